"""Lightning's ``LearningRateMonitor``, also after a mid-epoch resume.

Lightning's fit loop skips ``on_train_epoch_start`` when it resumes inside an epoch (the epoch has
started already), and the monitor, with ``logging_interval="epoch"``, logs only there: the resumed
epoch had no ``train/lr`` in the loggers' history, and ``metrics.json`` (which reads
``trainer.callback_metrics``, where the monitor also puts it) had none. And the monitor puts the
rate there as a float32 tensor: ``metrics.json`` read 0.1 as 0.10000000149011612, where the loggers
got 0.1 (new-user pass 60).
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.lr_monitor")

from typing import Any

import lightning as L
import torch
from lightning.pytorch.callbacks import LearningRateMonitor as _LightningMonitor


class LearningRateMonitor(_LightningMonitor):
    """``lightning.pytorch.callbacks.LearningRateMonitor`` (same arguments) that, on a fit resumed
    mid-epoch, logs the learning rate at the start of training as Lightning's does at an epoch's
    start; and keeps the rates in ``trainer.callback_metrics`` as the float64 values the loggers get."""

    def on_train_start(self, trainer: L.Trainer, *args: Any, **kwargs: Any) -> None:
        super().on_train_start(trainer, *args, **kwargs)
        if trainer.fit_loop.restarted_mid_epoch:  # Lightning calls no on_train_epoch_start for it
            self.on_train_epoch_start(trainer, *args, **kwargs)

    def _extract_stats(self, trainer: L.Trainer, interval: str) -> dict[str, float]:
        stats = super()._extract_stats(trainer, interval)
        trainer.callback_metrics.update({name: torch.tensor(value, dtype=torch.float64)
                                         for name, value in stats.items()})
        return stats
