"""Test callbacks that stop a run at a given step, added to a ``train.py`` run by overrides such as
``+callbacks.signal_at._target_=tests.signal_at.SignalAt +callbacks.signal_at.step=7``."""

import os
import signal
import warnings

import lightning as L
from hydra.experimental.callback import Callback


class SignalAt(L.Callback):
    """Send this process the real signal ``signum`` (SIGTERM: 15, SIGINT: 2) once, at the end of the
    training batch that makes ``trainer.global_step`` equal to ``step``."""

    def __init__(self, step: int, signum: int = int(signal.SIGTERM)) -> None:
        self.step, self.signum, self.sent = step, signum, False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step and not self.sent:
            self.sent = True
            os.kill(os.getpid(), self.signum)


class SignalAtFitStart(L.Callback):
    """Send this process the real signal ``signum`` at the start of fitting: a resumed run stopped
    while it restores its checkpoint, before it trains or saves anything."""

    def __init__(self, signum: int = int(signal.SIGTERM)) -> None:
        self.signum = signum

    def on_fit_start(self, trainer, pl_module) -> None:
        os.kill(os.getpid(), self.signum)


class DeleteRunFolderAt(L.Callback):
    """Delete the run's folder (``trainer.default_root_dir``) at the end of the training batch of step
    ``step``, as a user's ``rm -rf`` of a running run does."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            import shutil

            shutil.rmtree(trainer.default_root_dir)


class MoveRunFolderAt(L.Callback):
    """Rename the run's folder (``trainer.default_root_dir``) to ``<it>_moved`` at the end of the
    training batch of step ``step``, as a user's ``mv`` of a running run does."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            folder = str(trainer.default_root_dir).rstrip("/")
            os.rename(folder, folder + "_moved")


class DeleteBestAtFitEnd(L.Callback):
    """Delete the best checkpoint (``trainer.checkpoint_callback.best_model_path``) when fitting ends,
    before the test that runs on it, as a user's ``rm`` of it during the run does."""

    def on_fit_end(self, trainer, pl_module) -> None:
        best = trainer.checkpoint_callback.best_model_path
        if os.path.isfile(best):  # a resume of the run has the callback too
            os.remove(best)


class CutBestAtFitEnd(L.Callback):
    """Cut the best checkpoint to its first 1000 bytes when fitting ends, before the test that runs
    on it, as a copy or a disk that stopped short does."""

    def on_fit_end(self, trainer, pl_module) -> None:
        best = trainer.checkpoint_callback.best_model_path
        if os.path.isfile(best) and os.path.getsize(best) > 1000:  # a resume of the run has the callback too
            with open(best, "r+b") as f:
                f.truncate(1000)


class SignalRankZeroAt(L.Callback):
    """Send rank 0's own process the real signal ``signum`` once, at the end of the training batch
    that makes ``trainer.global_step`` equal to ``step``: a ``kill`` of a DDP run's main process,
    which the other ranks never receive."""

    def __init__(self, step: int, signum: int = int(signal.SIGTERM)) -> None:
        self.step, self.signum, self.sent = step, signum, False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_rank == 0 and trainer.global_step == self.step and not self.sent:
            self.sent = True
            os.kill(os.getpid(), self.signum)


class SignalRankZeroAtTest(L.Callback):
    """Send rank 0's own process the real signal ``signum`` once, at the end of its first test batch:
    a ``kill`` of a DDP run's main process during the test of the best checkpoint."""

    def __init__(self, signum: int = int(signal.SIGTERM)) -> None:
        self.signum, self.sent = signum, False

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        if trainer.global_rank == 0 and not self.sent:
            self.sent = True
            os.kill(os.getpid(), self.signum)


class CrashAt(L.Callback):
    """Raise ``RuntimeError`` at the end of the training batch of step ``step``: a run that dies
    without a signal (as with SIGKILL, nothing is saved on the way out)."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            raise RuntimeError(f"crash at step {self.step}")


class RefuseAt(L.Callback):
    """Raise a ``ConfigError`` (a refusal on bad input, as a user error) at the end of the training
    batch of step ``step``: a run refused once its training has started."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        from highwaylab.errors import ConfigError

        if trainer.global_step == self.step:
            raise ConfigError(f"refused at step {self.step} on purpose (tests.signal_at.RefuseAt)")


class SlowDown(L.Callback):
    """Sleep ``seconds`` after every training batch: a tiny run made slow enough for a test to act
    on it from outside (e.g. requeue its SLURM job in its second epoch). Changes no number."""

    def __init__(self, seconds: float = 0.1) -> None:
        self.seconds = seconds

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        import time

        time.sleep(self.seconds)


class FailJob(L.Callback):
    """Fail job number ``job`` of a multirun (Hydra's ``hydra.job.num``) at the start of fitting, as a
    bad input does (a ``ConfigError``: the job is recorded failed and returns nothing, so that the
    Optuna sweeper marks the trial failed); the other jobs run as usual."""

    def __init__(self, job: int) -> None:
        self.job = job

    def on_fit_start(self, trainer, pl_module) -> None:
        from hydra.core.hydra_config import HydraConfig

        from highwaylab.errors import ConfigError

        if HydraConfig.get().job.num == self.job:
            raise ConfigError(f"job {self.job} fails on purpose (tests.signal_at.FailJob)")


class CPULimitAt(L.Callback):
    """At the end of the training batch of step ``step``, set this process's soft CPU-time limit
    (``ulimit -S -t``) to ``seconds`` of CPU past what it has used, and its hard limit ``hard``
    seconds past that (SIGKILL there), then use CPU until the kernel's SIGXCPU has come: a batch
    system's CPU-time limit, met mid-run. The kernel sends SIGXCPU again every CPU second after the
    soft limit, during the save and the shut-down too."""

    def __init__(self, step: int, seconds: int = 1, hard: int = 30) -> None:
        self.step, self.seconds, self.hard, self.sent = step, seconds, hard, False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        import math
        import resource
        import time

        if trainer.global_step != self.step or self.sent:
            return
        self.sent = True
        usage = resource.getrusage(resource.RUSAGE_SELF)
        soft = math.ceil(usage.ru_utime + usage.ru_stime) + self.seconds
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + self.hard))
        deadline = time.monotonic() + 60
        while not trainer.received_sigterm and time.monotonic() < deadline:  # the handler raises it
            sum(i * i for i in range(10_000))


class SignalAtSanityCheck(L.Callback):
    """Send this process the real signal ``signum`` once, at the end of sanity-check batch ``batch``
    (the validation batches Lightning runs before the first training batch)."""

    def __init__(self, batch: int = 0, signum: int = int(signal.SIGTERM)) -> None:
        self.batch, self.signum, self.sent = batch, signum, False

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx,
                                dataloader_idx=0) -> None:
        if trainer.sanity_checking and batch_idx == self.batch and not self.sent:
            self.sent = True
            os.kill(os.getpid(), self.signum)


class FillDiskAt(L.Callback):
    """Fill the disk of the run's folder (``trainer.default_root_dir``) to its last block at the end of
    the training batch of step ``step``, as another job's output does on a shared disk."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            import contextlib

            filler = os.path.join(os.path.dirname(str(trainer.default_root_dir).rstrip("/")), "filler")
            with contextlib.suppress(OSError), open(filler, "wb") as f:
                while True:
                    f.write(b"\0" * 2**20)


class SignalGroupAt(L.Callback):
    """Send this process's whole process group the real signal ``signum`` once, from rank 0 at the end
    of the training batch that makes ``trainer.global_step`` equal to ``step``: as Ctrl-C on a terminal
    reaches every DDP process. Start the run in a session of its own (``start_new_session``)."""

    def __init__(self, step: int, signum: int = int(signal.SIGINT)) -> None:
        self.step, self.signum, self.sent = step, signum, False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step and trainer.global_rank == 0 and not self.sent:
            self.sent = True
            os.killpg(os.getpgid(0), self.signum)


class KillWandbHelperAt(L.Callback):
    """SIGKILL this process's W&B helper process (``wandb-core``, a child of this process) at the end of
    the training batch of step ``step``, as the kernel's out-of-memory killer or a stray ``kill`` does."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            from pathlib import Path

            for proc in Path("/proc").iterdir():
                try:
                    stat = (proc / "stat").read_text().rsplit(")", 1)[1].split()
                    command = (proc / "cmdline").read_bytes().split(b"\0")[0]
                except (OSError, IndexError):
                    continue
                if int(stat[1]) == os.getpid() and command.endswith(b"wandb-core"):  # its parent: this run
                    os.kill(int(proc.name), signal.SIGKILL)
                    os.waitpid(int(proc.name), 0)


class SignalAfterJob(Callback):
    """A Hydra callback (``+hydra.callbacks.signal_after_job._target_=tests.signal_at.SignalAfterJob``)
    that sends this process the real signal ``signum`` when job ``job`` of a multirun has ended (its own
    handlers gone): between that job and the next one."""

    def __init__(self, job: int = 0, signum: int = int(signal.SIGTERM)) -> None:
        self.job, self.signum = job, signum

    def on_job_end(self, config, job_return, **kwargs) -> None:
        if config.hydra.job.num == self.job:
            os.kill(os.getpid(), self.signum)


class DeprecationAt(L.Callback):
    """Issue a ``DeprecationWarning`` at the end of the training batch of step ``step``, as a library's
    notice of a deprecated call does (the warning filter decides whether it is an error)."""

    def __init__(self, step: int) -> None:
        self.step = step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            warnings.warn("old_call() is deprecated; use new_call()", DeprecationWarning, stacklevel=1)
