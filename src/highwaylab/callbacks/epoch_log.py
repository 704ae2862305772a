"""One log line per epoch, so that a run's log (``train.log``, or stdout sent to a file) says how it goes."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.epoch_log")

import logging
import math
import time
from collections.abc import Sequence

import lightning as L
from lightning.pytorch.utilities import rank_zero_only

from highwaylab.callbacks.media import step_of
from highwaylab.callbacks.options import epoch_log_keys
from highwaylab.utils.clock import process_age

log = logging.getLogger(__name__)
_process_start_reported = False  # the first training start of the process counts from its start


class EpochLogger(L.Callback):
    """Log one line at the start of training and one per training epoch, through Python logging
    (logger ``highwaylab.callbacks.epoch_log``; under Hydra it goes to stdout and ``train.log``), on
    rank zero, whether or not stdout is a terminal (the progress bar is shown only on a terminal).

    The epoch line holds the epoch in Lightning's 0-based numbering, as the progress bar shows it
    (``epoch 0/4`` for ``max_epochs=5``), the step of the epoch's last batch (the
    ``trainer/global_step`` at which Lightning logs the epoch's metrics: the optimizer steps taken
    before that batch), the epoch means of ``keys`` (the ``val/*`` ones only when validation ran),
    the wall time of the epoch (since the previous epoch line, or the epoch's start for the first:
    validation and the other callbacks' work included, so that the epoch times add up to the time
    of the fit) and the training throughput
    (training examples of all processes per second of that time, validation excluded). For example::

        epoch 0/4  step 429  train/loss 0.2891  val/loss 0.1669  val/acc 0.9514  13.2 s  4,282 samples/s

    An epoch that training left before its end says how much of it ran, and why where it is
    ``trainer.max_steps``: ``epoch 1  step 3  train/loss 2.1164  1 of 3 batches (trainer.max_steps=4
    reached)  0.0 s ...`` (its ``train/*`` are over those batches; ``val/*`` stay the last validation's).

    The start line gives the start-up time to the first training batch: from the start of the
    process (Linux ``/proc``) for the first run of a process, else (a later job of a multirun, or no
    ``/proc``) from the creation of this callback, when the job's callbacks were built.

    Args:
        keys: the metrics to show, in order (one name alone is a list of one; a name given twice is
            shown once, where it first stands); a key not logged (yet) is left out, and after the
            first validated epoch a warning names the keys the run does not log (a typo such as
            ``val_acc``, or a key a user's module does not log).

    Raises:
        ConfigError: ``keys`` is not a string or a list of strings, names a ``train/``, ``val/`` or
            ``test/`` metric that no run logs or a ``test/`` one, or a key of highwaylab's monitors
            (``gates/``, ``grad_norm/``, ``lesion/``: not epoch metrics); see
            :func:`highwaylab.callbacks.options.epoch_log_keys`.
    """

    def __init__(self, keys: Sequence[str] = ("train/loss", "val/loss", "val/acc")) -> None:
        self.keys = epoch_log_keys(keys)
        self._unknown_reported = False
        self._created = time.perf_counter()
        self._age_at_creation = process_age()
        self._epoch_start = 0.0
        self._last_line: float | None = None  # when the previous epoch line was logged
        self._val_seconds = 0.0
        self._val_start: float | None = None
        self._samples = 0
        self._validated = False

    def _epoch_label(self, trainer: L.Trainer) -> str:
        last = trainer.max_epochs - 1 if trainer.max_epochs is not None and trainer.max_epochs > 0 else None
        return f"epoch {trainer.current_epoch}" + (f"/{last}" if last is not None else "")

    @rank_zero_only
    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        global _process_start_reported
        self._last_line = None
        self.on_train_epoch_start(trainer, pl_module)  # a resume mid-epoch gets no epoch start
        since_creation = time.perf_counter() - self._created
        if self._age_at_creation is not None and not _process_start_reported:
            startup, since = self._age_at_creation + since_creation, "the process's start"
            _process_start_reported = True  # a later job of a multirun in this process: see below
            what = "imports, data, model, loggers"
        else:
            startup, since = since_creation, "the job's start"
            what = "data, loggers, sanity check"
        log.info(f"Training starts{_resumed_at(trainer)}: {_plan(trainer)}; first batch {startup:.1f} s "
                 f"after {since} ({what})")

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._epoch_start = self._last_line if self._last_line is not None else time.perf_counter()
        self._val_seconds = 0.0
        self._samples = 0
        self._validated = False

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx: int) -> None:
        labels = batch[-1] if isinstance(batch, list | tuple) else batch
        self._samples += len(labels)

    def on_validation_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._val_start = time.perf_counter()

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self._val_start is not None and not trainer.sanity_checking:
            self._val_seconds += time.perf_counter() - self._val_start
            self._validated = True
        self._val_start = None

    @rank_zero_only
    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        # Lightning 2.6 runs the epoch's validation before this hook, and has reduced the epoch
        # means of the training metrics by now (the logger connector's epoch_end_reached)
        seconds = time.perf_counter() - self._epoch_start
        metrics = trainer.callback_metrics
        parts = [self._epoch_label(trainer), f"step {step_of(trainer)}"]  # the W&B x of the epoch's metrics
        for key in self.keys:
            if key in metrics and (self._validated or not key.startswith("val/")):
                parts.append(f"{key} {_number(float(metrics[key]))}")
        done, total = epoch_batches(trainer)
        if total is not None and done < total:  # before: a partial last epoch read as a whole one
            cause = f" (trainer.max_steps={trainer.max_steps} reached)" if _max_steps_reached(trainer) else ""
            parts.append(f"{done} of {total} batches{cause}")
        if self._validated and not self._unknown_reported:  # every key of the epoch is logged by now
            self._unknown_reported = True
            unknown = [k for k in self.keys if k not in metrics]
            if unknown:
                log.warning(f"callbacks.epoch_log.keys: {', '.join(unknown)} not logged by this run, left "
                            f"out of the epoch lines; logged: {', '.join(sorted(metrics))}")
        parts.append(f"{seconds:.1f} s")
        train_seconds = seconds - self._val_seconds
        if self._samples and train_seconds > 0:
            parts.append(f"{self._samples * trainer.world_size / train_seconds:,.0f} samples/s")
        log.info("  ".join(parts))
        self._last_line = time.perf_counter()


def epoch_batches(trainer: L.Trainer) -> tuple[int, int | None]:
    """``(batches trained in the current epoch, batches per epoch)``: fewer than a whole epoch when
    training stopped inside it (``trainer.max_steps``, ``trainer.max_time``, a callback's stop); the
    second is ``None`` when the epoch's length is unknown (an iterable without ``len``)."""
    done = trainer.fit_loop.epoch_loop.batch_progress.current.completed
    total = trainer.num_training_batches
    return done, int(total) if math.isfinite(total) else None


def _max_steps_reached(trainer: L.Trainer) -> bool:
    steps = trainer.max_steps
    return steps is not None and steps > 0 and trainer.global_step >= steps


def _number(value: float) -> str:
    """4 decimals; tiny values, NaN and infinity in 3 significant digits (``2.5e-05``, ``nan``), and
    values of 1e6 and more in 4 (``2.609e+31``; pass 61, row 52: before, 32 digits and 4 decimals)."""
    if math.isfinite(value) and abs(value) >= 1e6:
        return f"{value:.4g}"
    return f"{value:.4f}" if value == 0 or (math.isfinite(value) and abs(value) >= 1e-3) else f"{value:.3g}"


def _plan(trainer: L.Trainer) -> str:
    """The training ahead, for the first line: ``epochs 0..9, 430 batches per epoch``, and the step
    at which ``trainer.max_steps`` stops it, which may be inside those epochs (pass 93, row 15: before,
    "epochs 2..19" for a run that trainer.max_steps=1000 stopped in epoch 2)."""
    parts = [f"{trainer.num_training_batches} batches per epoch"]
    if trainer.max_epochs is not None and trainer.max_epochs > 0:
        parts.insert(0, f"epochs {trainer.current_epoch}..{trainer.max_epochs - 1}")
    if trainer.max_steps is not None and trainer.max_steps > 0:
        until = f"until step {trainer.max_steps} (trainer.max_steps)"
        parts.append(f"{until}, if it comes first" if len(parts) > 1 else until)
    return ", ".join(parts)


def _resumed_at(trainer: L.Trainer) -> str:
    """`` at step S (resumed[: B of epoch E's N batches done])`` for a fit that starts from a
    checkpoint, ``""`` for one from step 0 (new-user pass: before, a resumed run's first line read as a
    fresh start's, and its first epoch line covered only the batches left without a word)."""
    step = trainer.global_step
    if not step:
        return ""
    try:
        progress = trainer.fit_loop.epoch_loop.batch_progress
        done = int(progress.current.completed)
        ended = bool(getattr(progress, "is_last_batch", False))  # saved at an epoch's end: its count
    except (AttributeError, TypeError, ValueError):
        done, ended = 0, False
    total = trainer.num_training_batches
    # pass 81, row 56: a checkpoint of epoch 5's end (2 batches an epoch), resumed at 5 an epoch: before,
    # "resumed: 2 of epoch 6's 5 batches done", and epoch 6 trained all 5
    inside = not ended and (0 < done < total if isinstance(total, int) else done > 0)
    return (f" at step {step} (resumed" + (f": {done} of epoch {trainer.current_epoch}'s {total} batches done"
                                            if inside else "") + ")")
