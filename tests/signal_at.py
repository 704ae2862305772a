"""Test callbacks that stop a run at a given step, added to a ``train.py`` run by overrides such as
``+callbacks.signal_at._target_=tests.signal_at.SignalAt +callbacks.signal_at.step=7``."""

import os
import signal

import lightning as L


class SignalAt(L.Callback):
    """Send this process the real signal ``signum`` (SIGTERM: 15, SIGINT: 2) once, at the end of the
    training batch that makes ``trainer.global_step`` equal to ``step``."""

    def __init__(self, step: int, signum: int = int(signal.SIGTERM)) -> None:
        self.step, self.signum, self.sent = step, signum, False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step and not self.sent:
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
