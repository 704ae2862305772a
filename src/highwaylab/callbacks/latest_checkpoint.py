"""The resume point: ``checkpoints/last.ckpt`` always holds the latest state of the run."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.latest_checkpoint")

import logging
import time
from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.callbacks import Checkpoint
from lightning.pytorch.trainer.states import TrainerFn
from lightning.pytorch.utilities.exceptions import SIGTERMException

from highwaylab.callbacks.options import check_last_checkpoint
from highwaylab.utils import interrupt

log = logging.getLogger(__name__)


class LatestCheckpoint(Checkpoint):
    """Write the latest training state to ``<dirpath>/<filename>.ckpt`` (``checkpoints/last.ckpt``):

    - at the end of every training epoch, after its validation if one ran, whatever the monitored
      metric did (Lightning's ``ModelCheckpoint(save_last=True)`` rewrites its last checkpoint only
      when it saved a top-k one, and not at all in an epoch without validation);
    - inside long epochs, once ``every_n_train_steps`` steps or ``every_n_minutes`` minutes have
      passed since the last save, whichever comes first (``null`` switches either off), so that a
      kill loses at most that much work; when validation is due after that batch, the save waits
      for its end, and at the last batch of an epoch the epoch-end save does it;
    - when a signal stops the run (SIGTERM, SIGINT: :mod:`highwaylab.utils.interrupt`), the state
      after the last finished batch;
    - when training ends mid-epoch (``trainer.max_steps``).

    Each checkpoint also holds the epoch-level metrics (``train/*``, ``val/*``...) of the latest
    finished epoch, as its state (``checkpoint["callbacks"]["LatestCheckpoint"]["epoch_metrics"]``).
    A fit that trains nothing, because its checkpoint is at the run's end (a run stopped after
    training, before its test, and completed by ``resume=``: :func:`highwaylab.utils.resume.check_resume`),
    gets them back into ``trainer.callback_metrics`` at its end, so that ``metrics.json`` holds the
    final epoch's values.

    A mid-epoch checkpoint resumes exactly: the training loader continues the epoch's batch order
    (:class:`highwaylab.data.memory.ResumableDataLoader`) and the module restores the epoch's
    running training metrics (:class:`highwaylab.module.ClassifierModule`). Every write goes to a
    temporary file that is then renamed (``AtomicCheckpointIO``), so the previous checkpoint stays
    whole if a write fails.

    Keep ``save_last`` off in the config's ``ModelCheckpoint``: two writers of ``last.ckpt`` make
    Lightning's write ``last-v1.ckpt``.

    Args:
        dirpath: the folder; ``None``: ``<trainer.default_root_dir>/checkpoints``.
        filename: the file name without ``.ckpt``.
        every_n_train_steps: save after this many optimizer steps since the last save.
        every_n_minutes: save after this many minutes since the last save.

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    best_model_path = ""  # not a best checkpoint: trainer.checkpoint_callback may be this one

    def __init__(self, dirpath: str | None = None, filename: str = "last",
                 every_n_train_steps: int | None = 1000, every_n_minutes: float | None = 10.0) -> None:
        check_last_checkpoint(dirpath, filename, every_n_train_steps, every_n_minutes)
        self.dirpath = dirpath
        self.filename = filename
        self.every_n_train_steps = every_n_train_steps
        self.every_n_minutes = every_n_minutes
        self.last_model_path = ""
        self.last_saved_step: int | None = None
        self._last_time = time.monotonic()
        self._waiting_for_validation = False
        self.epoch_metrics: dict[str, float] = {}  # of the latest finished epoch: saved with the state
        self._trained = False  # whether this fit ran the training loop

    @property
    def path(self) -> str:
        return str(Path(self.dirpath or ".") / f"{self.filename}.ckpt")

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if self.dirpath is None:
            self.dirpath = str(Path(trainer.default_root_dir) / "checkpoints")

    def on_fit_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._trained = False

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._trained = True
        self.last_saved_step = trainer.global_step  # a fresh run at 0, a resumed one at its checkpoint
        self._last_time = time.monotonic()
        self._waiting_for_validation = False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        if not self._due(trainer):
            return
        epoch_loop = trainer.fit_loop.epoch_loop
        if epoch_loop.batch_progress.is_last_batch:
            return  # the epoch-end save comes after this epoch's validation
        try:  # validation after this batch: save at its end, so that a resume does not skip it
            validation_follows = epoch_loop._should_check_val_fx(trainer.fit_loop._data_fetcher)
        except Exception:  # Lightning's internals changed: the safe choice
            validation_follows = True
        if validation_follows:
            self._waiting_for_validation = True
        else:
            self._save(trainer)

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        fitting = trainer.state.fn == TrainerFn.FITTING and not trainer.sanity_checking
        if self._waiting_for_validation and fitting:
            self._waiting_for_validation = False
            if not trainer.fit_loop.epoch_loop.batch_progress.is_last_batch:
                self._save(trainer)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._waiting_for_validation = False
        self.epoch_metrics = epoch_metrics(trainer)
        self._save(trainer)

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self._trained:
            return
        # nothing trained: the checkpoint was at the run's end; its final epoch's metrics stand, and
        # the checkpoint restored, if it is this one's file, stays the resume point (a signal during
        # the test that follows names it)
        if trainer.ckpt_path and Path(trainer.ckpt_path).resolve() == Path(self.path).resolve():
            self.last_model_path, self.last_saved_step = self.path, trainer.global_step
        metrics = trainer.callback_metrics  # Lightning's own dict: train.py reads it after fit
        restored = {k: v for k, v in self.epoch_metrics.items() if k not in metrics}
        metrics.update({k: torch.tensor(v) for k, v in restored.items()})
        step = trainer.global_step
        if restored:
            log.info(f"Nothing was trained (the checkpoint, of step {step}, is at the run's end): its "
                     f"final epoch's metrics come from the checkpoint ({', '.join(sorted(restored))})")
        elif trainer.ckpt_path and not any(k.startswith("train/") for k in metrics):
            log.warning(f"Nothing was trained (the checkpoint, of step {step}, is at the run's end), and "
                        "the checkpoint holds no epoch metrics (written by an earlier highwaylab): "
                        "metrics.json has no train/* and val/* values")

    def on_save_checkpoint(self, trainer: L.Trainer, pl_module: L.LightningModule, checkpoint: dict) -> None:
        uncount_cut_epoch(trainer, checkpoint)

    def state_dict(self) -> dict:
        return {"epoch_metrics": dict(self.epoch_metrics)}

    def load_state_dict(self, state_dict: dict) -> None:
        self.epoch_metrics = dict(state_dict.get("epoch_metrics") or {})

    def on_train_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.global_step != self.last_saved_step:  # stopped mid-epoch (max_steps)
            self._save(trainer)

    def on_exception(self, trainer: L.Trainer, pl_module: L.LightningModule,
                     exception: BaseException) -> None:
        # Lightning raises SIGTERMException at a batch boundary (after a finished batch, or after an
        # epoch's end): a consistent state. Not during a validation (Lightning would skip it on
        # resume) nor for any other error (the state may be half-updated, or non-finite).
        if (isinstance(exception, SIGTERMException) and trainer.state.fn == TrainerFn.FITTING
                and not trainer.sanity_checking and not trainer.validating
                and self.last_saved_step is not None and trainer.global_step != self.last_saved_step):
            self._save(trainer)

    def _due(self, trainer: L.Trainer) -> bool:
        steps = self.every_n_train_steps is not None and \
            trainer.global_step - (self.last_saved_step or 0) >= self.every_n_train_steps
        minutes = False
        if self.every_n_minutes is not None:
            minutes = time.monotonic() - self._last_time >= 60 * self.every_n_minutes
            if trainer.world_size > 1:  # clocks differ: rank 0 decides for all, as all must save
                minutes = trainer.strategy.broadcast(minutes)
        return steps or minutes

    def _save(self, trainer: L.Trainer) -> None:
        path = self.path
        trainer.save_checkpoint(path, weights_only=False)  # the full training state
        self.last_model_path = path
        self.last_saved_step = trainer.global_step
        self._last_time = time.monotonic()
        log.debug(f"Saved {path} (epoch {trainer.current_epoch}, step {trainer.global_step})")


def uncount_cut_epoch(trainer: L.Trainer, checkpoint: dict) -> bool:
    """In ``checkpoint``, saved at the end of an epoch that a stop cut short (``trainer.max_steps``
    inside it: Lightning ends the epoch, counts it processed and runs its epoch-end hooks, where this
    callback saves), count that epoch as started, not processed, as in a checkpoint saved inside it:
    else a resume (``trainer.max_steps`` raised) would finish the epoch's batches, count it processed a
    second time and skip the next epoch, ending at ``trainer.max_epochs`` one epoch short (pass 26,
    row 87). Any checkpoint Lightning writes then passes here (callbacks' ``on_save_checkpoint``).

    Returns:
        Whether the checkpoint was changed.
    """
    epoch_loop = trainer.fit_loop.epoch_loop
    batches = epoch_loop.batch_progress
    total = trainer.num_training_batches
    cut = not batches.is_last_batch and 0 < batches.current.ready < total  # a finite epoch's middle
    try:
        progress = checkpoint["loops"]["fit_loop"]["epoch_progress"]
        counted = all(0 < progress[part]["processed"] == progress[part]["started"]
                      for part in ("current", "total"))
    except (KeyError, TypeError):
        return False
    if not (cut and counted and trainer.state.fn == TrainerFn.FITTING):
        return False
    for part in ("current", "total"):
        progress[part]["processed"] -= 1
        progress[part]["completed"] = min(progress[part]["completed"], progress[part]["processed"])
    return True


def epoch_metrics(trainer: L.Trainer) -> dict[str, float]:
    """The epoch-level scalar metrics in ``trainer.callback_metrics`` (not the per-batch ``*_step``
    ones), as floats: at ``on_train_epoch_end``, the epoch's ``train/*`` means and its ``val/*``."""
    found = {}
    for key, value in trainer.callback_metrics.items():
        if key.endswith("_step"):
            continue
        try:
            found[key] = float(value)
        except (TypeError, ValueError, RuntimeError):  # not a scalar
            continue
    return found


class StopOnSignal(L.Callback):
    """Connect a trainer to the signal handlers of :mod:`highwaylab.utils.interrupt`: register it at
    set-up, keep a signal that came during set-up (Lightning lowers its stop flag when a run
    starts), and apply a signal that came during ``fit``'s validation, or just before it (after the
    epoch's last training batch), when that validation ends.
    :func:`highwaylab.train.build` adds it to every trainer."""

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        interrupt.watch(trainer)
        if trainer.world_size > 1:
            interrupt.without_collective_in_handler(trainer)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx: int) -> None:
        interrupt.stop_if_signalled(trainer)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        if trainer.world_size > 1:  # DDP: every rank stops after the same batch
            interrupt.sync_stop(trainer)

    def on_validation_batch_start(self, trainer, pl_module, batch, batch_idx: int,
                                  dataloader_idx: int = 0) -> None:
        interrupt.stop_if_signalled(trainer)

    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx: int, dataloader_idx: int = 0) -> None:
        interrupt.stop_if_signalled(trainer)

    def on_validation_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        interrupt.validation_started(trainer)

    def on_sanity_check_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        interrupt.sanity_check_ended(trainer)  # a signal during it: stop before the first training batch

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        interrupt.validation_ended(trainer)
        if trainer.world_size > 1 and not trainer.sanity_checking:  # DDP: a signal during (or just
            interrupt.sync_stop(trainer)  # before) it stops every rank now, not at a later batch

    def on_test_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.world_size > 1:  # DDP: a signal between fit and test stops every rank here
            interrupt.sync_stop_now(trainer)

    def on_test_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.world_size > 1:  # DDP: a signal during the test stops every rank at its end
            interrupt.sync_stop_now(trainer)
