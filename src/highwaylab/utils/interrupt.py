"""Signals as interruptions: SIGTERM, SIGINT and SIGHUP (and USR1, USR2, SIGQUIT, SIGXCPU and
SIGALRM: :func:`_signals`) stop a run at a batch boundary with its state saved, and end it with
:class:`~highwaylab.errors.RunInterrupted` (exit status 128 + the signal's number: 143, 130, 129,
152 for SIGXCPU, 142 for SIGALRM), never as a success.

SIGHUP is what a run started in a terminal gets when the terminal or ssh session closes. A run
started with ``nohup`` (SIGHUP ignored) keeps ignoring it: the handler is installed only where
SIGHUP is not ignored. A closed terminal refuses every later write (``EIO``), the progress bar's
last one included, which would stop the run before its checkpoint is saved; so at any signal, the
standard output and error that are such a terminal are pointed at ``/dev/null``
(:func:`_drop_hung_up_terminal`), and ``train.log`` keeps the log.

How a signal travels:

1. :func:`signals_interrupt` (entered by the task wrapper for the whole run) installs
   :func:`_on_signal` for SIGTERM, SIGINT and SIGHUP (unless ignored) (and, in a SLURM launcher's
   job, its warning signal USR2: :mod:`highwaylab.utils.slurm`). Lightning's own SIGTERM handler,
   installed for each ``fit``/``test``, calls it after its own.
2. While a trainer runs (registered by the :class:`~highwaylab.callbacks.StopOnSignal` callback that
   :func:`highwaylab.train.build` adds), the handler only raises Lightning's ``received_sigterm``
   flag: Lightning then raises ``SIGTERMException`` at the next batch boundary, where the training
   state is consistent. A signal during the validation inside ``fit`` waits until that validation
   ends (``StopOnSignal.on_validation_end``), so that the epoch's validation is not lost; so does
   one that came just before it, after the epoch's last training batch
   (``StopOnSignal.on_validation_start``). Outside a trainer run, or at a second signal, the handler
   raises :class:`RunInterrupted` at once. Under DDP the ranks stop together, at points that every
   rank reaches at once (:func:`sync_stop`: each training batch's end and the end of a validation
   inside ``fit``; :func:`sync_stop_now`: the test's start and end), whichever rank got the signal.
3. ``LatestCheckpoint.on_exception`` saves ``checkpoints/last.ckpt`` (the state after the last
   finished batch, resumable mid-epoch).
4. :func:`as_interrupted` turns the ``SIGTERMException`` into :class:`RunInterrupted`, whose
   message names the signal, the epoch and step, and the checkpoint to resume from: ``last.ckpt``,
   or with ``callbacks.last_checkpoint`` off the latest checkpoint of the ``ModelCheckpoint`` (and
   the ``ckpt_path=`` command that continues from it). A signal after training finished (the last
   epoch's end, or during the test) says so: ``resume=`` then runs the test and writes
   ``metrics.json`` (:func:`highwaylab.utils.resume.check_resume`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shlex
import signal
import sys
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from highwaylab.errors import RunInterrupted
from highwaylab.utils.console import own_log_only
from highwaylab.utils.shell_args import override_arg, shell_word

log = logging.getLogger(__name__)
SIGNALS = (signal.SIGTERM, signal.SIGINT)


def _signals() -> tuple[signal.Signals, ...]:
    """SIGTERM and SIGINT; SIGHUP (a closed terminal or ssh session) unless it is ignored (``nohup``
    ignores it: such a run goes on when its terminal closes, as ``nohup`` promises); and USR2, the
    warning signal that schedulers send before a time limit: in a job of the SLURM launcher it
    requeues the job (:mod:`highwaylab.utils.slurm`, in place of submitit's handler), elsewhere it
    stops the run like SIGTERM (its default action would kill the process without a checkpoint); and
    USR1, the warning signal of Lightning's and many clusters' set-ups (``--signal=USR1@90``), which
    stops the run like SIGTERM everywhere (exit status 138); and SIGQUIT (Ctrl-\\ on a terminal),
    which does too (exit status 131), instead of its default action (no checkpoint, no line); and
    SIGXCPU, the soft CPU-time limit (``ulimit -S -t``, as batch systems set it), which does too
    (exit status 152): its default action killed the run with no line and no save. The kernel
    repeats SIGXCPU once per CPU second until the hard limit's SIGKILL; the repeats are not a
    second signal (:func:`_on_signal` ignores them), so the save goes on; and SIGALRM, which
    ``timeout -s ALRM`` sends (and nothing in a run uses as a timer), which does too (exit status
    142): its default action killed the run with no line and no save."""
    from highwaylab.utils.slurm import WARNING_SIGNAL

    hangup = getattr(signal, "SIGHUP", None)  # not on Windows
    hup = (hangup,) if hangup is not None and signal.getsignal(hangup) is not signal.SIG_IGN else ()
    usr1 = (signal.SIGUSR1,) if hasattr(signal, "SIGUSR1") else ()
    quit_ = (signal.SIGQUIT,) if hasattr(signal, "SIGQUIT") else ()  # Ctrl-\
    cpu = (signal.SIGXCPU,) if hasattr(signal, "SIGXCPU") else ()  # the soft CPU-time limit
    alarm = (signal.SIGALRM,) if hasattr(signal, "SIGALRM") else ()  # timeout -s ALRM
    return SIGNALS + hup + (WARNING_SIGNAL,) + usr1 + quit_ + cpu + alarm


class _State:
    """What the handler knows: the trainer that runs, and the signal received (the first one)."""

    def __init__(self) -> None:
        self.trainer: weakref.ref | None = None
        self.signum: int | None = None
        self.pending = False  # received during the validation inside fit: applied when it ends
        self.closing = False  # the run has ended and its loggers are closing: a signal only noted
        self.late: int | None = None  # the signal noted while closing
        self.want_stop = False  # under DDP: the stop that sync_stop applies on every rank together
        self.in_sanity_check = False  # the signal came during the sanity check before training
        self.owner = os.getpid()  # the process whose run the handlers stop (not a forked data worker)

    def current_trainer(self) -> Any:
        return self.trainer() if self.trainer is not None else None


_state = _State()


def watch(trainer: Any) -> None:
    """Make ``trainer`` the one that a signal stops (at its next batch boundary)."""
    _state.trainer = weakref.ref(trainer)


def without_collective_in_handler(trainer: Any) -> None:
    """Under DDP, Lightning's SIGTERM notifier (``_SignalConnector._sigterm_notifier_fn``, Lightning
    2.6) forwards the signal to the other ranks and calls ``torch.distributed.broadcast`` inside the
    signal handler, on rank 0 alone, and its loops then stop the signalled rank at its own batch end
    (``on_advance_end``): collectives that no other rank matches, so the ranks wait on each other
    for ever (a SIGTERM to rank 0 of ``trainer=ddp_cpu`` hung). Here the notifier does nothing; the
    handler of this module notes the signal, and :func:`sync_stop`, at every training batch end of
    every rank, stops all ranks at the same batch, each saving through the same collective calls."""
    connector = getattr(trainer, "_signal_connector", None)
    if connector is None or not hasattr(connector, "_sigterm_notifier_fn"):
        return

    def notice(signum: int, frame: Any) -> None:  # this module's handler, composed after it, acts
        log.info(f"[rank: {trainer.global_rank}] Received {signal.Signals(signum).name}: the ranks stop "
                 f"together after the current training batch")

    connector._sigterm_notifier_fn = notice  # read when Lightning registers its handlers, after setup


def sync_stop(trainer: Any) -> bool:
    """Under DDP, at a point that every rank reaches together (the end of every training batch, and
    of a validation inside ``fit``), on every rank: the largest signal number that any rank wants to
    stop for (``_set_stop``), reduced over the ranks; if any, Lightning's stop flag goes up on every
    rank at once, so that all of them stop at the same place and save together.

    Returns:
        Whether the ranks stop.
    """
    import torch

    local = (_state.signum or 0) if _state.want_stop else 0
    reduced = trainer.strategy.reduce(torch.tensor([local], device=trainer.strategy.root_device),
                                      reduce_op="max")
    signum = int(reduced.item())
    if signum:
        _state.signum = _state.signum or signum  # a rank that got no signal itself: the message's
        trainer._signal_connector.received_sigterm = True
    return bool(signum)


def sync_stop_now(trainer: Any) -> None:
    """Under DDP, at the start and the end of the test (points that every rank reaches together; the
    test's batches are not: each rank has its own share of an uneven set): stop every rank at once
    (Lightning's ``SIGTERMException``) if any rank got a signal, as a single process stops at its
    next test batch. A signal during the test is otherwise applied at its end, the test's result
    left unwritten, as a single process's is.

    Raises:
        SIGTERMException: on every rank, if any rank got a signal.
    """
    from lightning.pytorch.utilities.exceptions import SIGTERMException

    if sync_stop(trainer):
        raise SIGTERMException


def signalled() -> int | None:
    """The signal received in this run, if any."""
    return _state.signum


@contextlib.contextmanager
def signals_interrupt() -> Iterator[None]:
    """Within this context, SIGTERM, SIGINT and SIGHUP (unless ignored) interrupt the run as the
    module docstring says; the previous handlers come back at its end. Does nothing outside the
    main thread (where Python cannot install handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    end_start_up_handlers()
    signals = _signals()
    previous = {signum: signal.getsignal(signum) for signum in signals}
    outer = (_state.trainer, _state.signum, _state.pending)
    _state.trainer, _state.signum, _state.pending = None, None, False
    _state.want_stop = _state.in_sanity_check = False
    _state.owner = os.getpid()
    for signum in signals:
        signal.signal(signum, _on_signal)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            if _is_cpu_limit(signum) and _is_cpu_limit(_state.signum):
                # the process ends with the run's line (RunInterrupted): the kernel's next SIGXCPU, a
                # CPU second on, must not kill it first by the default action
                signal.signal(signum, signal.SIG_IGN)
                continue
            if _state.signum is not None and getattr(handler, "start_up_only", False):
                # the run stops, its state saved, with a line of its own still to come: a signal now (a
                # second Ctrl-C) must not end it with the start-up line "nothing was saved" (pass 45, 49)
                signal.signal(signum, _stopping)
                continue
            signal.signal(signum, handler if handler is not None else signal.SIG_DFL)
        _state.trainer, _state.signum, _state.pending = outer


def _stopping(signum: int, frame: Any) -> None:
    """The handler after an interrupted run's own handlers: the run has stopped (its state saved, as
    its last line will say) and the process is ending, so a further signal is ignored."""


def end_start_up_handlers() -> None:
    """Give SIGTERM and SIGHUP their default action back where ``train.py``'s start-up handler
    (marked ``start_up_only``) still holds them: it speaks of a start-up, and is only right before a
    run's own handlers (:func:`signals_interrupt`, which then restores the default at its end) or a
    multirun's launcher (:class:`highwaylab.utils.sweep.SweepCheck`) take over. SIGINT keeps it: its
    one line beats a KeyboardInterrupt's traceback between a multirun's jobs."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if signum is not None and getattr(signal.getsignal(signum), "start_up_only", False):
            signal.signal(signum, signal.SIG_DFL)


def _is_cpu_limit(signum: int | None) -> bool:
    """Whether ``signum`` is SIGXCPU, the soft CPU-time limit's signal (repeated by the kernel)."""
    return signum is not None and signum == getattr(signal, "SIGXCPU", None)


def _drop_hung_up_terminal() -> list[int]:
    """Point file descriptors 1 and 2 at ``/dev/null`` where they are a terminal that was hung up
    (closed: ``tcgetattr`` fails with ``EIO``, as every write to it would), so that the run's later
    output (log lines, the progress bar's last refresh, the final line) is dropped instead of raising
    ``OSError`` inside the run's shutdown. A file, a pipe or a live terminal is left as it is.

    Returns:
        The file descriptors redirected.
    """
    import errno
    import termios

    dropped = []
    for fd in (1, 2):
        try:
            termios.tcgetattr(fd)
        except termios.error as err:
            if err.args and err.args[0] == errno.EIO:  # a hung-up terminal; ENOTTY: not a terminal
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, fd)
                os.close(null)
                dropped.append(fd)
        except (OSError, ValueError):  # a closed descriptor: nothing to do
            pass
    return dropped


@contextlib.contextmanager
def closing() -> Iterator[None]:
    """Within this context (the task wrapper closing the loggers after the run ended), a signal is
    noted (:func:`late_signal`), not raised: raised inside ``wandb.finish`` it would leave the W&B
    run half closed, and the run's outcome (a finished run, a saved state) already stands."""
    _state.closing, _state.late = True, None
    try:
        yield
    finally:
        _state.closing = False


def late_signal() -> int | None:
    """The signal noted by :func:`closing`, if any."""
    return _state.late


def _on_signal(signum: int, frame: Any) -> None:
    if os.getpid() != _state.owner:  # a DataLoader worker forked from the run inherits the handler; a
        return  # terminal's Ctrl-C reaches it too: the run stops them (pass 32, row 33: 5 lines for one)
    name = signal.Signals(signum).name
    _drop_hung_up_terminal()  # a closed terminal (SIGHUP) would make the next write fail
    if _state.closing:
        _state.late = _state.late or signum
        return
    first = _state.signum is None
    if not first and _is_cpu_limit(signum) and _is_cpu_limit(_state.signum):
        return  # the kernel's repeat, once per CPU second past the soft limit: not a second signal
    if first:
        _state.signum = signum
    trainer = _state.current_trainer()
    if not first or trainer is None or not _running(trainer):
        raise RunInterrupted(signum, _message(signum, trainer, at_once=True))
    once = own_log_only()  # every DDP process gets the signal: one line on the console
    if _is_cpu_limit(signum):
        saved = "with its state saved" if _has_resume_point(trainer) else "its state is not saved " \
            "(callbacks.last_checkpoint is off)"
        log.warning(f"{name} received (the soft CPU-time limit, ulimit -S -t): the run stops after the "
                    f"current batch, {saved}, before the hard limit's SIGKILL", extra=once)
    elif _has_resume_point(trainer):
        log.warning(f"{name} received: the run stops after the current batch, with its state saved "
                    f"(send {name} again to stop at once, without saving)", extra=once)
    else:
        log.warning(f"{name} received: the run stops after the current batch; its state is not saved "
                    f"(callbacks.last_checkpoint is off; send {name} again to stop at once)", extra=once)
    _state.in_sanity_check = bool(trainer.sanity_checking)
    if _fitting(trainer) and trainer.validating and not trainer.sanity_checking:
        _state.pending = True  # let the epoch's validation finish: StopOnSignal.on_validation_end
        _set_stop(trainer, False)  # Lightning's own SIGTERM handler, called before this one, set it
    elif trainer.sanity_checking and getattr(trainer, "world_size", 1) > 1:
        _state.want_stop = True  # DDP: every rank ends the sanity check, then all stop together
        trainer._signal_connector.received_sigterm = False  # (sanity_check_ended), not this rank alone
    else:
        _set_stop(trainer, True)  # Lightning's loops stop at the next batch end, the sanity check's too


def sanity_check_ended(trainer: Any) -> None:
    """The sanity check before training ended: a signal that came during it stops the run here,
    before the first training batch, with nothing trained (before, its flag stayed up and the run
    trained one batch, then stopped at step 1 and saved it). Under DDP every rank stops here together.

    Raises:
        SIGTERMException: a signal came.
    """
    from lightning.pytorch.utilities.exceptions import SIGTERMException

    if getattr(trainer, "world_size", 1) > 1:
        sync_stop_now(trainer)
    elif _state.signum is not None and trainer.received_sigterm:
        raise SIGTERMException


def stop_if_signalled(trainer: Any) -> None:
    """Raise Lightning's stop flag if a signal came and the flag is down (Lightning lowers it when a
    run starts, so a signal that came during set-up would be lost), unless it waits for the
    validation to end."""
    if _state.signum is not None and not _state.pending and not trainer.received_sigterm:
        _set_stop(trainer, True)


def validation_started(trainer: Any) -> None:
    """A validation inside ``fit`` starts: a signal that came just before it (after the epoch's last
    training batch, when Lightning would stop at the validation's first batch, losing the epoch's
    validation and its epoch-end checkpoint) waits until it ends, as one during it does."""
    if (_state.signum is not None and not _state.pending and trainer.received_sigterm
            and _fitting(trainer) and not trainer.sanity_checking):
        _state.pending = True
        _set_stop(trainer, False)


def validation_ended(trainer: Any) -> None:
    """Apply a signal that waited for the validation inside ``fit`` to end."""
    if _state.pending and not trainer.sanity_checking:
        _state.pending = False
        _set_stop(trainer, True)


def _set_stop(trainer: Any, value: bool) -> None:
    if getattr(trainer, "world_size", 1) > 1:  # DDP: every rank at once, at the next sync_stop
        _state.want_stop = value
        if not value:  # a stop that sync_stop raised on every rank waits (validation_started on each)
            trainer._signal_connector.received_sigterm = False
        return
    trainer._signal_connector.received_sigterm = value  # what Lightning's loops check at batch ends


def _running(trainer: Any) -> bool:
    from lightning.pytorch.trainer.states import TrainerStatus

    return trainer.state.status == TrainerStatus.RUNNING


def _fitting(trainer: Any) -> bool:
    from lightning.pytorch.trainer.states import TrainerFn

    return trainer.state.fn == TrainerFn.FITTING


def as_interrupted(err: BaseException) -> RunInterrupted | None:
    """``err`` as a :class:`RunInterrupted` if a signal caused it: Lightning's ``SIGTERMException``
    (raised at a batch boundary after SIGTERM, or SIGINT or SIGHUP through :func:`_on_signal`), a
    ``KeyboardInterrupt`` (SIGINT without these handlers; Lightning turns it into ``sys.exit(1)``),
    or a :class:`RunInterrupted` itself; and, after a signal came, a lost connection
    (``ConnectionError``: SLURM's SIGTERM of a requeue reaches every process of the job, W&B's
    helper ``wandb-core`` too, and the run's next W&B call then fails before the batch boundary);
    ``None`` for any other error."""
    from lightning.pytorch.utilities.exceptions import SIGTERMException

    seen: BaseException | None = err
    lost = False
    while seen is not None:
        if isinstance(seen, RunInterrupted):
            return seen
        if isinstance(seen, SIGTERMException | KeyboardInterrupt):
            default = signal.SIGINT if isinstance(seen, KeyboardInterrupt) else signal.SIGTERM
            signum = _state.signum or int(default)
            return RunInterrupted(signum, _message(signum, _state.current_trainer(), at_once=False))
        lost = lost or isinstance(seen, ConnectionError)
        seen = seen.__cause__ or seen.__context__
    if lost and _state.signum is not None:  # the signal's doing, not the run's: its latest checkpoint
        return RunInterrupted(_state.signum, _message(_state.signum, _state.current_trainer(), at_once=False))
    return None


def stopped_message(stopped: str) -> str:
    """The one line for a run that something other than a signal stopped (``stopped``, e.g. "stopped
    because W&B's helper process went away"), worded as :func:`_message` for a signal: where it
    stopped, and the run's latest checkpoint with the command that resumes from it. Nothing is saved
    here: the latest checkpoint is the one that was written before."""
    return _message(int(signal.SIGTERM), _state.current_trainer(), at_once=True, stopped=stopped)


def _message(signum: int, trainer: Any, at_once: bool, stopped: str | None = None) -> str:
    """The one line of :class:`RunInterrupted`: the signal, the epoch and step, and the checkpoint to
    continue from with the command that does it: the resume point ``last.ckpt`` of a
    ``LatestCheckpoint`` (``resume=<run folder>``); without one (``callbacks.last_checkpoint`` off,
    or none written yet), the latest checkpoint of another checkpoint callback, e.g. the best
    ``epoch_XXX.ckpt`` of the ``ModelCheckpoint`` (``ckpt_path=<file> hydra.run.dir=<run folder>``
    with the run's overrides); "no checkpoint was written yet" only when there is none at all. After
    training finished (:func:`_training_finished`), with its final state saved: that the test (and
    ``metrics.json``) is what is missing, and the ``resume=`` that does it."""
    name = signal.Signals(signum).name
    stopped = stopped or f"interrupted by {name}"
    if trainer is None:
        return (f"{stopped} before training started: nothing was saved, nor trained; "
                f"{_start_again()}.")  # before: no next step
    where = _where(trainer)
    path, step = _latest_checkpoint(trainer)
    if not path and _resumed_from(trainer) is None and not started_training(trainer):  # a new run, stopped
        when = "during the sanity check, " if _state.in_sanity_check else ""  # before its first batch
        return (f"{stopped} {when}before training started: nothing was saved, nor trained; "
                f"{_start_again()}.")
    finished = _training_finished(trainer)
    if finished and path and step == trainer.global_step:  # only the test (and metrics.json) is missing
        return (f"{stopped} {where}: the final state, of step {step}, is saved in {path}; "
                f"{_resume_hint(complete=True)}.")
    resumed = _resumed_from(trainer)
    if not path and resumed is not None:  # a resume stopped before its first save: its checkpoint stands
        run_own = any(hasattr(cb, "last_saved_step") and _same_file(getattr(cb, "path", ""), resumed)
                      for cb in getattr(trainer, "checkpoint_callbacks", []))
        # nothing saved: this start's record is set aside (train.py), so its own overrides go again
        extra = getattr(sys.modules.get("highwaylab.utils.resume"), "GIVEN_WITH_RESUME", [])
        again = _resume_hint(extra=extra) if run_own else f"continue from it with: {_continue_hint(resumed)}"
        trained = any(getattr(cb, "_trained", False) for cb in getattr(trainer, "checkpoint_callbacks", []))
        lost = " (what this process trained after it is lost)" if trained else ""
        if not trained:  # still restoring: Lightning's epoch count is the checkpoint's, not the next
            where = f"before it trained on from step {trainer.global_step}"  # (pass 31, row 57: "in epoch 1")
        saved = (f"nothing was saved since the checkpoint it resumed from, {resumed}, which is "
                 f"unchanged{lost}; {again}")
    elif not path:
        other = _other_checkpoint(trainer)
        if other is None and not any(hasattr(cb, "last_saved_step")  # no LatestCheckpoint (pass 95, row
                                     for cb in getattr(trainer, "checkpoint_callbacks", [])):  # 44: before,
            # "no checkpoint was written yet", as if too early, and the same command lost it again)
            why = _no_checkpoints_why()
            instead = (f"with callbacks=minimal in place of {why}" if why == "callbacks=none" else
                       f"without {why}")
            saved = (f"no checkpoint was written yet, and the latest checkpoint, which saves the state when "
                     f"a signal comes, is off ({why}), so its {trainer.global_step} steps are lost; "
                     f"{_start_again()}, {instead}, to keep the state of the next interruption")
        elif other is None:
            saved = "no checkpoint was written yet (resuming means starting again)"
        else:
            saved = _other_saved(trainer, *other)
    elif step == trainer.global_step:
        saved = f"its state at step {step} is saved in {path}; {_resume_hint()}"
    else:
        lost = " (stopped at once: the steps after it are lost)" if at_once else ""
        saved = f"the latest checkpoint is {path}, of step {step}{lost}; {_resume_hint()}"
    return f"{stopped} {where}: {saved}."


def _no_checkpoints_why() -> str:
    """Why a run has no latest checkpoint: ``callbacks=none`` when the run chose it, the override that
    removed ``callbacks.last_checkpoint``, else that key."""
    try:
        from hydra.core.hydra_config import HydraConfig

        if HydraConfig.initialized() and HydraConfig.get().runtime.choices.get("callbacks") == "none":
            return "callbacks=none"
        from highwaylab.config_checks import given_override

        if (given := given_override("callbacks.last_checkpoint")) is not None:
            return given  # ~callbacks.last_checkpoint, callbacks.last_checkpoint=null
    except Exception:  # noqa: BLE001  outside a Hydra job: the general reason
        pass
    return "callbacks.last_checkpoint=null"


def _start_again() -> str:
    """How to start a run stopped before training again: the same command; when that command named
    the run's folder (``hydra.run.dir=``), which the interrupted start has made and a new run refuses
    (it holds a record), that folder's removal first (before: "the same command", which was refused)."""
    try:
        from hydra.core.hydra_config import HydraConfig
        from hydra.types import RunMode

        if HydraConfig.initialized():
            hydra = HydraConfig.get()
            folder = Path(str(hydra.runtime.output_dir))
            named = any(o.split("=", 1)[0].lstrip("+") == "hydra.run.dir" for o in hydra.overrides.hydra)
            resumed = any(o.split("=", 1)[0].lstrip("+") == "ckpt_path" for o in hydra.overrides.task)
            # never for a resume (resume= names the run's own folder) or a folder with a run's results
            kept = (folder / "metrics.json").exists() or any(folder.glob("**/*.ckpt"))
            if hydra.mode == RunMode.MULTIRUN and not resumed and not kept \
                    and hydra.runtime.choices.get("hparams_search") is not None:  # a search's trial: run
                # again alone, its result would never reach the study, and hparams_search= makes it a
                # multirun that refuses hydra.run.dir (pass 67, row 20): the search's own way, named after
                return f"its folder {shlex.quote(str(folder))} holds only this start's record and log"
            if hydra.mode == RunMode.MULTIRUN and not resumed and not kept:  # a sweep's job: the
                # same command is refused in the sweep's folder (pass 40, row 60)
                from highwaylab.utils.resume import start_job_again

                again = start_job_again(folder, list(hydra.overrides.task))
                return f"run this job again into its sweep: {again}"
            from highwaylab.utils.output_folder import removable_run_folder

            if hydra.mode != RunMode.MULTIRUN and removable_run_folder(folder):  # train.py removes it, as
                # the README says (pass 62, row 25: before, kept, with "rm -r" advice)
                return ("the folder it made, which holds only this start's record and log, is removed: "
                        "start the run again with the same command")
            if named and not resumed and not kept:
                return (f"start the run again: rm -r {shlex.quote(str(folder))} (it holds only this start's "
                        f"record and log), then the same command")
    except Exception:  # no Hydra run: the plain advice
        pass
    return "start the run again with the same command"


def _resumed_from(trainer: Any) -> str | None:
    """The checkpoint file this fit resumed from (Lightning's ``trainer.ckpt_path``), if it is still
    on disk; else ``None``."""
    ckpt = getattr(trainer, "ckpt_path", None)
    return str(ckpt) if isinstance(ckpt, str | Path) and os.path.isfile(ckpt) else None


def _same_file(a: str, b: str) -> bool:
    try:
        return bool(a) and os.path.samefile(a, b)
    except OSError:
        return False


def _resume_hint(complete: bool = False, extra: list[str] | tuple[str, ...] = ()) -> str:
    """How to continue: ``resume=<run folder>`` in a run of ``train.py``, and the ``extra`` overrides
    (those an extension gave beside it, when it stopped before it trained: its record is set aside,
    so ``resume=`` alone would not extend); ``complete``: the checkpoint is at the run's end, and
    what that resume does is the test and ``metrics.json``."""
    what = "complete the run (its test and metrics.json)" if complete else "resume"
    try:
        from hydra.core.hydra_config import HydraConfig

        if HydraConfig.initialized():  # a run of train.py: its folder
            run = HydraConfig.get().runtime.output_dir
            given = "".join(f" {shell_word(o)}" for o in extra)
            return f"{what} with: python train.py {override_arg('resume', run)}{given}"
    except Exception:  # no Hydra run: say where the recipe is
        pass
    return f"{what} from it (README: Resume)"


def _where(trainer: Any) -> str:
    """Where the run was: ``in epoch 3 at step 1691``; ``at the end of epoch 2, at step 1290`` (the
    epoch and its validation ended, the next had not started); ``after training finished (5 epochs,
    step 2150), before its test`` or ``during its test``. Epochs are 0-based, as in the log."""
    epoch, step = trainer.current_epoch, trainer.global_step
    progress = _epoch_progress(trainer)
    if _training_finished(trainer):
        n = progress.processed if progress is not None else None
        epochs = f"{n} epoch{'' if n == 1 else 's'}, " if n is not None else ""
        when = "during its test" if _testing(trainer) else "before its test"
        return f"after training finished ({epochs}step {step}), {when}"
    if progress is not None and progress.completed > 0 and progress.started == progress.completed:
        return f"at the end of epoch {progress.completed - 1}, at step {step}"
    return f"in epoch {epoch} at step {step}"


def started_training(trainer: Any) -> bool:
    """Whether ``trainer`` started a training batch (``True`` when it cannot tell)."""
    try:
        return trainer.global_step > 0 or trainer.fit_loop.epoch_loop.batch_progress.total.started > 0
    except AttributeError:
        return True


def _testing(trainer: Any) -> bool:
    """Whether ``trainer`` runs (or ran, when the signal stopped it) a test: Lightning resets
    ``trainer.testing`` (the stage) when a stopped run tears down, and keeps ``trainer.state.fn``."""
    from lightning.pytorch.trainer.states import TrainerFn

    state = getattr(trainer, "state", None)
    return bool(getattr(trainer, "testing", False)) or getattr(state, "fn", None) == TrainerFn.TESTING


def _epoch_progress(trainer: Any) -> Any:
    """Lightning's count of the fit loop's epochs (``started``, ``processed``, ``completed``), or
    ``None`` if ``trainer`` has none."""
    try:
        return trainer.fit_loop.epoch_progress.current
    except AttributeError:
        return None


def _training_finished(trainer: Any) -> bool:
    """Whether ``trainer``'s fit reached its end: ``max_epochs`` epochs processed (Lightning counts
    an epoch processed before its epoch-end checkpoint) or ``max_steps`` steps."""
    progress = _epoch_progress(trainer)
    if progress is None:
        return False
    max_epochs, max_steps = getattr(trainer, "max_epochs", None), getattr(trainer, "max_steps", -1)
    by_steps = isinstance(max_steps, int) and max_steps != -1 and trainer.global_step >= max_steps
    by_epochs = isinstance(max_epochs, int) and max_epochs != -1 and progress.processed >= max_epochs
    return by_steps or by_epochs


def _latest_checkpoint(trainer: Any) -> tuple[str, int | None]:
    """The path and step of the last checkpoint written by a ``LatestCheckpoint`` of ``trainer``."""
    for cb in getattr(trainer, "checkpoint_callbacks", []):
        path = getattr(cb, "last_model_path", "")
        if path and hasattr(cb, "last_saved_step"):
            return path, cb.last_saved_step
    return "", None


def _has_resume_point(trainer: Any) -> bool:
    """Whether ``trainer`` has a ``LatestCheckpoint`` (``callbacks.last_checkpoint``), saved or not."""
    return any(hasattr(cb, "last_saved_step") for cb in getattr(trainer, "checkpoint_callbacks", []))


def _other_checkpoint(trainer: Any) -> tuple[str, int | None, bool] | None:
    """The latest checkpoint file that another checkpoint callback of ``trainer`` wrote (Lightning's
    ``ModelCheckpoint``: its latest save, else its ``last_model_path`` or ``best_model_path``), with
    its step if known and whether it holds weights only; ``None`` if none is on disk."""
    for cb in getattr(trainer, "checkpoint_callbacks", []):
        if hasattr(cb, "last_saved_step"):  # a LatestCheckpoint: _latest_checkpoint's
            continue
        latest = getattr(cb, "_last_checkpoint_saved", "")  # Lightning's record of its latest save
        for path in (latest, getattr(cb, "last_model_path", ""), getattr(cb, "best_model_path", "")):
            if path and os.path.isfile(path):
                step = getattr(cb, "_last_global_step_saved", None) if path == latest else None
                return str(path), step, bool(getattr(cb, "save_weights_only", False))
    return None


def _other_saved(trainer: Any, path: str, step: int | None, weights_only: bool) -> str:
    """What the message says of a checkpoint that is not a resume point (``_other_checkpoint``)."""
    of_step = f", of step {step}" if step is not None else ""
    off = not _has_resume_point(trainer)
    why = "callbacks.last_checkpoint is off" if off else "callbacks.last_checkpoint had not saved yet"
    keep = " (keep callbacks.last_checkpoint on for a resume point)" if off else ""
    if weights_only:
        return (f"no training state was saved ({why}); the latest checkpoint, {path}{of_step}, holds "
                f"weights only (save_weights_only), so resuming means starting again{keep}")
    lost = "; the steps after it are lost" if step is not None and step != trainer.global_step else ""
    return (f"no resume point was saved ({why}, so resume= finds no checkpoints/last.ckpt); the latest "
            f"checkpoint is {path}{of_step}{lost}; continue from it with: {_continue_hint(path)}{keep}")


def _continue_hint(path: str) -> str:
    """The command that continues the run from the checkpoint ``path`` in the run's own folder (the
    one that holds it as ``<run>/checkpoints/<file>``, with its record ``.hydra/``): the run's
    overrides, ``ckpt_path=<path>`` and ``hydra.run.dir=<run>`` (what ``resume=`` does with
    ``last.ckpt``); for a checkpoint elsewhere, ``ckpt_path=<path>`` with the run's overrides."""
    run = Path(path).resolve().parent.parent
    if (run / ".hydra" / "overrides.yaml").is_file():
        try:
            from highwaylab.utils.resume import continue_command

            return continue_command(run, path)
        except Exception:  # an unreadable record: the low-level way below
            pass
    return f"python train.py <the run's overrides> {override_arg('ckpt_path', path)}"
