"""Train a highway, residual or plain network: ``python train.py model=highway depth=100``.

All options live in conf/ (Hydra); ``python train.py --help`` lists them. Nothing here imports
torch: ``--help``, ``--cfg job`` and a config error are answered in about a second, and torch,
Lightning and W&B load only once the config has passed its checks.
"""

import contextlib
import os
import signal
import sys


def interrupted_at_start_up(signum: int = signal.SIGINT, _frame: object = None) -> None:
    """Ctrl-C (SIGINT), SIGTERM (``kill``, ``timeout``) or SIGHUP (the terminal closed) before the
    run's own signal handling is in place (the imports, composing the config): one line, exit status
    128 + the signal's number (130, 143, 129), as the README says for a signal before training starts.

    Installed as the handler of these signals for the start-up (unless a signal is ignored or already
    handled: ``nohup``, a launcher's own): it ends the process at once (``os._exit``), since a
    KeyboardInterrupt raised inside Hydra's or OmegaConf's cleanup code turns into another exception
    and a traceback. The run folder that Hydra made for this run, if it did already, is removed first
    (``remove_refused_run_folder``: it holds only this start's record and log), so that the same
    command can run again, in the same ``hydra.run.dir`` too. The run's own handlers replace it in
    ``train()``; after them (and in a multirun's launcher) SIGTERM and SIGHUP have their default
    action again (:func:`highwaylab.utils.interrupt.end_start_up_handlers`)."""
    folder = sys.modules.get("highwaylab.utils.output_folder")  # loaded by Hydra's callback, if it ran
    if folder is not None and (made := folder.made_run_folder()) is not None:
        folder.remove_refused_run_folder(made)
    with contextlib.suppress(Exception):  # a resume's record, once Hydra wrote it: set aside (nothing ran)
        set_aside_untrained_record()
    with contextlib.suppress(OSError, ValueError):  # a closed terminal (SIGHUP) takes no line
        print(start_up_interrupt_line(signum, GIVEN_ARGS), file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(128 + signum)


def start_up_interrupt_line(signum: int, args: list[str]) -> str:
    """The line :func:`interrupted_at_start_up` prints: for a resume (a ``resume=`` argument), that the
    run it resumes is as it was, and the command that continues it (breaking pass 39, row 43: before,
    only "nothing was saved", which read as if the run's state were gone)."""
    line = f"highwaylab: interrupted by {signal.Signals(signum).name} during start-up: nothing was saved"
    if not any(arg.startswith("resume=") for arg in args):
        return line + "."
    import shlex

    return (f"{line}, and the run it resumes is as it was (its checkpoints untouched). Continue it with the "
            f"same command: python train.py {shlex.join(args)}")


def set_aside_untrained_record() -> object:
    """Set aside the record that Hydra wrote for this resume (``.hydra/resumed_<time>/``) when the
    resume wrote no checkpoint (it was refused, failed, or interrupted before it trained a step), so
    that the run's own settings stay those of its last start that trained: before, an extension to
    ``trainer.max_epochs=2`` stopped by Ctrl-C during its start-up left its record, and every later
    ``resume=`` read max_epochs=2 as the run's own and refused it as finished (breaking pass 31, rows
    56, 57, 72). Hydra's record of this start says whether it is a resume (``output_subdir``).

    Returns:
        The record set aside (``.hydra/refused_<time>/``), or ``None``."""
    hydra_config = sys.modules.get("hydra.core.hydra_config")
    resume = sys.modules.get("highwaylab.utils.resume")
    if hydra_config is None or resume is None or not hydra_config.HydraConfig.initialized():
        return None
    hydra_cfg = hydra_config.HydraConfig.get()
    subdir = str(hydra_cfg.output_subdir or "")
    if "resumed_" not in subdir or hydra_cfg.runtime.get("output_dir") in (None, "???"):
        return None
    from highwaylab.utils.clock import process_start

    return resume.set_aside_refused_record(Path(hydra_cfg.runtime.output_dir), subdir, process_start())


GIVEN_ARGS = list(sys.argv[1:])  # as typed: sys.argv becomes a resume's rewritten command line
interrupted_at_start_up.start_up_only = True  # end_start_up_handlers: the defaults come back after it
if signal.getsignal(signal.SIGINT) is signal.default_int_handler:  # not if started with SIGINT ignored
    signal.signal(signal.SIGINT, interrupted_at_start_up)  # the run's own handlers replace it in train()
for _signum in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):  # SIGHUP: not on Windows
    if _signum is not None and signal.getsignal(_signum) is signal.SIG_DFL:  # nohup, a launcher's: theirs
        signal.signal(_signum, interrupted_at_start_up)


from highwaylab.utils.console import guard_standard_streams  # noqa: E402

guard_standard_streams()  # a closed, broken or full stdout: one line, the log goes on in train.log
try:
    os.getcwd()  # Hydra records it for every run (pass 84, row 21: before, its FileNotFoundError traceback)
except FileNotFoundError:
    sys.stderr.write(f"highwaylab: the current folder no longer exists (removed after this shell entered "
                     f"it), and Hydra records it for each run. Fix: cd to a folder that exists, e.g. cd "
                     f"{os.path.dirname(__file__) if os.path.isabs(__file__) else '<the checkout>'}, then "
                     f"run the command again\n")
    sys.exit(1)

import logging  # noqa: E402 -- after the start-up SIGINT handler, which the imports below may meet
from pathlib import Path  # noqa: E402

import hydra  # noqa: E402
from hydra.core.hydra_config import HydraConfig  # noqa: E402
from hydra.errors import MissingConfigException  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

os.environ.setdefault("HIGHWAYLAB_ROOT", str(Path(__file__).resolve().parent))
for _name in ("HIGHWAYLAB_ROOT", "HIGHWAYLAB_DATA_DIR"):  # a relative folder names one where the command
    _value = os.environ.get(_name, "")  # was typed, under hydra.job.chdir=true too (the job's cwd is then
    if _value.strip() and not _value.startswith(("/", "~")) and _value == _value.lstrip():  # its run
        # folder); ~, '' and a leading space (' /work/shared/data', pass 92, row 29) are refused later
        os.environ[_name] = os.path.abspath(_value)


try:
    from highwaylab.config_checks import GROUPS, validate
    from highwaylab.errors import ConfigError, HighwaylabError, RunInterrupted
    from highwaylab.utils import full_key, register_resolvers, user_error
    from highwaylab.utils.caches import redirect_unwritable
    from highwaylab.utils.console import error_line, keep_run_log, own_log_only
    from highwaylab.utils.hardware import torch_import_problem
    from highwaylab.utils.hydra_utils import flags_first, hydra_help_argv
    from highwaylab.utils.output_folder import remove_refused_run_folder
    from highwaylab.utils.overrides import check_command_line
    from highwaylab.utils.quiet import warnings_into_the_log
    from highwaylab.utils.ranks import further_rank
    from highwaylab.utils.resume import prepare_argv
    from highwaylab.utils.run_lock import holding
    from highwaylab.utils.slurm import (
        finished_rerun,
        requeue,
        requeue_expected,
        requeueable,
        restart_count,
        slurm_job_id,
    )
    from highwaylab.utils.sweep import in_multirun, nan_objective, record_job
except KeyboardInterrupt:
    interrupted_at_start_up()

log = logging.getLogger("highwaylab")
register_resolvers()
# redirect_unwritable's warning, from before the command line's checks import W&B and Lightning (and with
# them matplotlib, which printed two lines of its own naming another folder: pass 75, row 64); main logs it
UNWRITABLE: list[str] = []


def stops_here(hydra_cfg: DictConfig) -> str:
    """What an interruption of a multirun's job means for the multirun: its later jobs do not start;
    in an Optuna search (``hparams_search=``), also that the trial's result never reaches the study
    (``resume=`` finishes the job's training, not the trial) and how the search goes on."""
    report = f"python -m highwaylab.report {hydra_cfg.sweep.dir} lists them"
    if hydra_cfg.runtime.choices.get("hparams_search") is None:
        return f" The multirun stops here: its later jobs do not start ({report})."
    return (f" The search stops here: its later trials do not start ({report}), and this trial's result "
            f"never reaches the Optuna study (resume= finishes the job's training, not the trial). To "
            f"continue the search, run its command again: the study marks this trial failed and runs the "
            f"trials left to hydra.sweeper.n_trials (raise it by 1 to make up for this one).")


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> float | None:
    """Train and return ``cfg.optimized_metric``. In a multirun, the job is recorded in the sweep's
    summary.jsonl; a job that fails on bad input is recorded with its error and returns nothing, so
    that the launcher goes on (the Optuna sweeper marks the trial failed); the sweep then ends with
    a list of the failed jobs and exit status 1 (``SweepSummary``). A job whose objective is NaN (a
    diverged run) is failed too, and a single run exits 1. A bug is raised with its traceback.
    SIGTERM, SIGINT or SIGHUP (``RunInterrupted``, after the state is saved) ends the process, a
    sweep included, with status 143, 130 or 129; the job is recorded as ``interrupted``. In a job of
    the SLURM launcher, SIGTERM and the warning signal USR2 requeue the job instead (recorded by its rerun,
    which resumes: :mod:`highwaylab.utils.slurm`)."""
    try:
        # rank zero holds the run folder's lock from the job's first line (pass 67, row 33: before, from
        # after the imports, and the same command started again a moment later was told to rm -r the
        # folder of the run still starting): resume= and a new run there wait for its end
        with contextlib.nullcontext() if further_rank() else holding(Path(cfg.paths.output_dir)):
            try:
                # train.log under any hydra/job_logging (stdout: next to the console); disabled: no empty file
                hydra_cfg = HydraConfig.get()
                chosen = hydra_cfg.runtime.choices.get("hydra/job_logging")
                if (unlogged := keep_run_log(chosen, hydra_cfg.job_logging)) is not None:
                    print(f"highwaylab: {unlogged}", file=sys.stderr)
                # found before the command line's checks imported W&B, Lightning and matplotlib (a job of
                # a launcher: here, before torch loads)
                unwritable = UNWRITABLE.pop() if UNWRITABLE else redirect_unwritable()
                if unwritable is not None:
                    log.warning(f"highwaylab: {unwritable}")
                validate(cfg)  # every check that needs no torch, before torch, Lightning and W&B load
                from highwaylab.train import optimized_metric, train
                warnings_into_the_log()  # after Lightning's import, which sets a warning format of its own
            except KeyboardInterrupt:  # Ctrl-C during these imports: the run's own handlers come later
                interrupted_at_start_up()
            if (done := finished_rerun(cfg.paths.output_dir)) is not None:  # pass 71, row 53: before, the
                # rerun of a finished job failed on its final checkpoint and recorded the job as failed
                log.warning(f"highwaylab: SLURM reran job {slurm_job_id()} (restart {restart_count()}) after "
                            f"it had finished: its results stand ({cfg.paths.output_dir}/metrics.json, and "
                            f"its line in summary.jsonl); nothing is run again")
                return optimized_metric(cfg, done)
            metrics = train(cfg)
        value = optimized_metric(cfg, metrics)
    except RunInterrupted as err:
        if requeue_expected(err.signum):  # SLURM runs the job again, resuming: record it then
            requeue(err.signum)
            log.warning(f"highwaylab: {err} SLURM job {slurm_job_id()} is requeued; its rerun resumes here.")
            sys.exit(err.exit_code)  # a SystemExit: submitit writes no result, the launcher waits on
        set_aside_untrained_record()  # stopped before it trained: as never started
        if not in_multirun():  # a single run stopped before its first step: its folder goes, as its line says
            remove_refused_run_folder(Path(cfg.paths.output_dir))
        record_job("interrupted", error=str(err))
        if requeueable():  # scancel of this job: the launcher gets its result; the sweep's other jobs go on
            error_line(log, f"highwaylab: {err} SLURM job {slurm_job_id()} ends here (it is not requeued); "
                            f"the sweep's other jobs go on.", extra=own_log_only())
            return None
        later = stops_here(HydraConfig.get()) if in_multirun() else ""
        error_line(log, f"highwaylab: {err}{later}", extra=own_log_only())  # each rank says it: once here
        sys.exit(err.exit_code)
    except Exception as err:
        user = user_error(err)
        where = full_key(err)  # the node Hydra was instantiating: callbacks.gate_stats, module, ...
        if isinstance(user, HighwaylabError) and where in GROUPS:
            where = None  # the group's own components name their keys in full (optim.optimizer.lr)
        message = f"{user or repr(err)}" + (f" [config key: {where}]" if where else "")
        if in_multirun():
            record_job("failed", error=message.splitlines()[0])
            error_line(log, f"highwaylab: job failed, the sweep goes on: {message}")
            if user is None:
                raise
            return None
        set_aside = set_aside_untrained_record()  # a later resume= takes the run's own
        if user is None:
            raise
        folder = Path(cfg.paths.output_dir)
        synced = (folder / "wandb").is_dir()  # W&B's closing lines named its offline run there
        removed = remove_refused_run_folder(folder)  # nothing trained: as if refused earlier
        if set_aside is not None and not removed:  # a later resume= takes the run's own overrides, not these
            message += f" (this refused resume's record is kept apart, in {set_aside})"
        if removed and synced:
            message += (" (nothing was trained, so the run's folder is removed: the 'wandb sync' line above "
                        "names a run that is gone)")
        error_line(log, f"highwaylab: {message}")  # train.log, unlinked with its folder, takes it still
        sys.exit(1)
    diverged = nan_objective(cfg.get("optimized_metric"), metrics, value)
    if diverged is not None:  # never ok: a failed trial for the Optuna sweeper; exit status 1
        record_job("failed", metrics, error=diverged)
        if in_multirun():
            error_line(log, f"highwaylab: job failed, the sweep goes on: {diverged}")
            return None
        error_line(log, f"highwaylab: {diverged}")
        sys.exit(1)
    record_job("ok", metrics)
    return value


if __name__ == "__main__":
    # resume=<run folder> becomes the run's own overrides, its folder and its last checkpoint; bad
    # resumes and reused folders stop here, before Hydra writes anything (highwaylab.utils.resume)
    try:
        conf = Path(__file__).resolve().parent / "conf"
        sys.argv = flags_first(sys.argv)  # train.py depth=3 -m ...: Hydra reads flags before overrides
        sys.argv = hydra_help_argv(sys.argv)  # --hydra-help: Hydra's own config, without the run's overrides
        if (unwritable := redirect_unwritable()) is not None:  # before W&B, Lightning and matplotlib load
            UNWRITABLE.append(unwritable)
        if (broken := torch_import_problem()) is not None:  # TORCH_LOGS=recompile: before the checks
            raise ConfigError(broken)  # import Lightning, and with it torch, half-way (pass 67, row 30)
        check_command_line(sys.argv, conf)  # typos, and a single run's config: before Hydra writes
        sys.argv = prepare_argv(sys.argv, conf)
        main()
    except KeyboardInterrupt:  # before the task wrapper's handlers (composing the config)
        interrupted_at_start_up()
    except (MissingConfigException, HighwaylabError) as err:  # a refused command line; nothing written
        print(f"highwaylab: {err}", file=sys.stderr)
        sys.exit(1)
