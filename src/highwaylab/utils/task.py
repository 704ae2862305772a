"""The task wrapper: turns user errors into one message, signals into :class:`RunInterrupted`, and
always closes the loggers."""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import shlex
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from highwaylab.errors import DiskFull, HighwaylabError, RunFolderGone, RunInterrupted
from highwaylab.utils import interrupt
from highwaylab.utils.overrides import warning_as_error
from highwaylab.utils.run_folder import gone
from highwaylab.utils.shell_args import override_arg

log = logging.getLogger(__name__)
R = TypeVar("R")


def user_error(err: BaseException | None) -> Exception | None:
    """The user-facing error in ``err``'s chain of causes (Hydra's instantiate wraps them): a
    :class:`HighwaylabError`, or Lightning's ``MisconfigurationException`` (e.g. trainer=gpu
    on a machine without one); failing those, memory exhausted (:func:`highwaylab.utils.hardware.
    out_of_memory`), or a failure of ``torch.distributed`` (a DDP rank that
    died or could not connect) as a ``DistributedStartError`` or ``DistributedPeerLostError``
    (:func:`highwaylab.utils.distributed.distributed_error`)."""
    exceptions = sys.modules.get("lightning.fabric.utilities.exceptions")  # none before Lightning loads
    user = (HighwaylabError, exceptions.MisconfigurationException) if exceptions else (HighwaylabError,)
    chain = []
    while err is not None and len(chain) < 100:
        if isinstance(err, user):
            return err
        chain.append(err)
        err = err.__cause__ or err.__context__
    from highwaylab.utils.hardware import out_of_memory

    for link in chain:  # memory exhausted (pass 78, row 50: before, the allocator's traceback)
        if (found := out_of_memory(link)) is not None:
            found.__cause__ = link
            return found
    if "torch.distributed" in sys.modules:  # no torch error without torch
        from highwaylab.utils.distributed import distributed_error

        for link in chain:
            found = distributed_error(link)
            if found is not None:
                return found
    return None


def run_folder_gone(err: BaseException, run: str | os.PathLike | None) -> RunFolderGone | None:
    """A :class:`RunFolderGone` for ``err`` when a file-not-found ``OSError`` in its chain of causes
    names a file under ``run`` (``paths.output_dir``) and ``run`` itself no longer exists: a logger
    (the CSV logger's ``metrics.csv``) or a checkpoint met a deleted run folder. ``None`` otherwise."""
    if not run or (os.path.isdir(run) and gone(run) is None):  # (moved away, another made in its place)
        return None
    folder = os.path.abspath(run)
    while err is not None:
        name = getattr(err, "filename", None) if isinstance(err, OSError) else None
        if isinstance(err, FileNotFoundError) and isinstance(name, str | os.PathLike) and \
                os.path.abspath(name).startswith(folder + os.sep):
            return RunFolderGone(
                f"the run's folder {folder} disappeared during the run (deleted, or moved "
                f"away): {name} could not be written. What it held went with it; start the run again, or, if "
                f"you moved it, resume it from its new place: python train.py resume=<its new folder>")
        err = err.__cause__ or err.__context__
    return None


def disk_full(err: BaseException, run: str | os.PathLike | None) -> DiskFull | None:
    """A :class:`DiskFull` for ``err`` when an ``OSError`` in its chain of causes is a full disk or a
    used-up quota (``ENOSPC``, ``EDQUOT``) met by a write that has no line of its own (the CSV logger's
    ``metrics.csv``; a checkpoint's has: :func:`highwaylab.utils.checkpoint_io.write_failure`), with
    the run's latest checkpoint, ``None`` otherwise (breaking pass 43, row 50: before, four chained
    tracebacks and no fix)."""
    from highwaylab.utils.checkpoint_io import after_space, disk_of

    while err is not None and not (isinstance(err, OSError) and err.errno in (errno.ENOSPC, errno.EDQUOT)):
        if isinstance(err, HighwaylabError):  # a write with a line of its own (the checkpoint's)
            return None
        err = err.__cause__ or err.__context__
    if err is None:
        return None
    name = getattr(err, "filename", None)
    what = f"{name}" if name else (f"a file of the run in {run}" if run else "a file of the run")
    where = Path(name).parent if name else Path(run) if run else Path.cwd()
    found = sorted(Path(run, "checkpoints").glob("*.ckpt"), key=lambda p: p.stat().st_mtime) if run else []
    if found:
        then = f"its latest checkpoint, {found[-1]}, is kept. Free space, then resume: python train.py " \
               f"{override_arg('resume', run)}"
    else:
        # pass 53, row 61: "or set paths.log_dir", which does not move a run placed by hydra.run.dir
        then = f"it saved no checkpoint yet. Free space on that disk, " \
               f"{after_space(Path(run, 'checkpoints') if run else where)}"
    return DiskFull(f"could not write {what} ({err.strerror or err}): {disk_of(where)}; {then}")


def full_key(err: BaseException) -> str | None:
    """The config key that Hydra names in an instantiation error (its ``full_key: <key>`` line)."""
    text = str(err)
    return text.split("full_key: ")[-1].strip().splitlines()[0] if "full_key: " in text else None


def close_loggers(failed: bool, interrupted: RunInterrupted | None = None) -> None:
    """Finish the W&B run of this process, if any, so that the next job of a sweep gets its own: with
    exit code 0, 1 if ``failed``, or, if ``interrupted``, the signal's code (143, 130) after marking
    the run as preempted (to be resumed). A failure to close (W&B's helper process already gone)
    is logged, never raised: it must not hide the run's outcome."""
    wandb = sys.modules.get("wandb")
    if wandb is not None and wandb.run is not None:
        log.info(f"Closing W&B run {wandb.run.name}")
        try:
            if interrupted is not None:
                wandb.run.mark_preempting()
            wandb.finish(exit_code=interrupted.exit_code if interrupted is not None else int(failed))
        except Exception as err:  # e.g. SLURM's SIGTERM also stopped W&B's helper process (wandb-core)
            # never replace the run's own outcome (a requeue, a clean end) by this failure
            log.warning(f"W&B could not close run {wandb.run.id if wandb.run else ''} ({type(err).__name__}: "
                        f"{err}); what it had received is in its run folder (wandb sync uploads it)")
            with contextlib.suppress(Exception):
                wandb.teardown()  # so that the next job of a sweep starts a fresh W&B run


def finished_line(output_dir: str | None) -> None:
    """The log's last line for a run that finished (its ``metrics.json`` written; on rank zero): where
    its results are, after W&B's closing lines, which name only W&B's own folder."""
    from highwaylab.utils.ranks import further_rank

    if output_dir is None or further_rank() or not (Path(output_dir) / "metrics.json").is_file():
        return
    folder = Path(output_dir)
    from hydra.core.hydra_config import HydraConfig

    log_file = f"{HydraConfig.get().job.name}.log" if HydraConfig.initialized() else "train.log"  # myjob.log
    known = ("metrics.json", "checkpoints/", "figures/", "csv/", "tensorboard/")
    held = [name for name in known if (folder / name).exists()]  # new-user pass: before, figures/ and the
    # loggers' folders unnamed; a CSV or TensorBoard log under another name (logger.csv.name=: version_0/)
    # too (pass 53, row 74: before, left out)
    others = sorted(d for d in folder.iterdir() if d.is_dir() and f"{d.name}/" not in known
                    and not d.name.startswith(".") and d.name != "wandb")
    held += [f"{d.name}/" for d in others
             if next(d.rglob("metrics.csv"), None) or next(d.rglob("events.out.tfevents*"), None)]
    # Lightning's own checkpoint, without a ModelCheckpoint of the config (callbacks=none): in the logger's
    # folder, <name>/<version>/checkpoints/ (pass 57, row 87: before, left out of this line)
    held += sorted({f"{ckpt.parent.relative_to(folder)}/" for d in others for ckpt in d.rglob("*.ckpt")})
    if (folder / log_file).exists():  # a log that could not be written holds none of this run's end
        # (pass 83, row 61: before, named as the others, though it stopped where its writes failed)
        from highwaylab.utils.console import RunLogFileHandler

        failed = any(isinstance(h, RunLogFileHandler) and h.failed and Path(h.baseFilename) == (
            folder / log_file).absolute() for h in logging.getLogger().handlers)
        held += [f"{log_file} (cut short where it could not be written)" if failed else log_file]
    if (sync := sync_line(folder)) is not None:
        log.info(sync)
    log.info(f"Finished: {output_dir} holds the run's {', '.join(held[:-1])} and {held[-1]}"
             if len(held) > 1 else f"Finished: {output_dir} holds the run's metrics.json")


def sync_line(folder: Path) -> str | None:
    """For a run resumed offline (its W&B run in more than one ``offline-run-*-<id>`` segment): the
    ``wandb sync`` that uploads all of them, its folder quoted for the shell. W&B's own closing line
    names the latest segment alone, which would upload the resumed part only (new-user pass 32).
    ``None`` for a run of one segment, an online run, or none."""
    from highwaylab.utils.wandb_offline import recorded_wandb_folder

    run_dir = recorded_wandb_folder(folder)  # .../wandb/offline-run-<date>_<time>-<id>
    if run_dir is None or not run_dir.name.startswith("offline-run-"):
        return None
    run_id = run_dir.name.rsplit("-", 1)[1]
    segments = sorted(run_dir.parent.glob(f"offline-run-*-{run_id}"))
    if len(segments) < 2:
        return None
    folder = shlex.quote(str(run_dir.parent))
    return (f"W&B run {run_id} is in {len(segments)} offline segments (one per start of the run); upload "
            f"them together, as one run: wandb sync {folder}/offline-run-*-{run_id}")


def _output_dir(cfg: Any) -> str | None:
    try:
        return str(cfg.paths.output_dir)
    except Exception:  # not a run's config
        return None


def task_wrapper(fn: Callable[..., R]) -> Callable[..., R]:
    """Run ``fn`` with SIGTERM and SIGINT turned into a saved state and :class:`RunInterrupted`
    (:mod:`highwaylab.utils.interrupt`); close the loggers whatever happens; log a failure that is
    not the user's before re-raising it."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs) -> R:
        failed, interrupted = True, None
        with interrupt.signals_interrupt():
            try:
                result = fn(*args, **kwargs)
                failed = False
                return result
            except BaseException as err:
                interrupted = interrupt.as_interrupted(err)
                if interrupted is not None:
                    if interrupted is err:
                        raise
                    raise interrupted from err  # not Lightning's SIGTERMException, a SystemExit
                cfg = args[0] if args else kwargs.get("cfg")
                gone = run_folder_gone(err, _output_dir(cfg))
                if gone is not None:  # a deleted run folder: one line, not the logger's traceback
                    raise gone from err
                if (full := disk_full(err, _output_dir(cfg))) is not None:  # a logger's file, on a full disk
                    raise full from err
                if (warned := warning_as_error(err, _output_dir(cfg))) is not None:  # PYTHONWARNINGS=error::X
                    raise warned from err
                if user_error(err) is None:  # user errors are reported by the entry point
                    log.error(f"The run failed: {err!r}")
                raise
            finally:
                with interrupt.closing():  # a signal now is noted: the run's outcome stands
                    close_loggers(failed, interrupted)
                finished_line(None if failed else _output_dir(args[0] if args else kwargs.get("cfg")))
                if (late := interrupt.late_signal()) is not None and not failed and interrupted is None:
                    from highwaylab.utils.sweep import in_multirun

                    then = ("the job ends normally and the multirun goes on (send the signal again to stop "
                            "it)" if in_multirun() else "the process ends normally")
                    log.warning(f"highwaylab: {signal.Signals(late).name} came while the loggers were "
                                f"closing, after the run had finished: its results are complete "
                                f"(metrics.json) and its W&B run is closed as finished; {then}")

    return wrapped
