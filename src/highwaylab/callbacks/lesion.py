"""Lesioning after training: the training error with each layer switched to a copy [Figure 4]."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.lesion")

import logging

import lightning as L
import torch

from highwaylab.analysis.lesion import LesionStopped, lesion_errors
from highwaylab.analysis.plots import layer_bars
from highwaylab.callbacks.media import log_figure, log_scalars, log_table, step_of, when
from highwaylab.callbacks.options import check_lesion
from highwaylab.callbacks.probe_batch import backbone_of, training_examples, warn_no_layers


class LesionMonitor(L.Callback):
    """At the end of fitting, lesion each layer in turn and measure the training-set error.

    Lesioning layer k sets all its transform gates to T = 0, so that it copies its input
    (residual: F = 0; a conv layer ending a stage still max-pools). A plain conv transition that
    changes the shape cannot copy its input: its error is NaN. On rank zero it logs
    ``lesion/baseline_error`` (no lesion) and ``lesion/max_error`` (fractions in [0, 1], like every
    error and accuracy key), the table ``lesion/table`` (columns ``layer``, ``error_pct``: the error
    in percent, ``increase_pp``: its increase over the baseline in percentage points) and the bar
    plot ``lesion/error_by_layer``: the increase in percentage points for layers 1 .. L, with the
    baseline error and the weight of one example in the title, so that a lesion that changes
    nothing has no bar and sampling noise can be judged. Kept on ``self``: ``baseline`` and
    ``errors`` (``(L,)``, fractions). A backbone with no layer to lesion (depth 1, or a conv net of
    empty stages: the stem alone) gets one warning saying so, and no ``lesion/`` scalars, table or plot.

    The paper measures the whole training set (55,000 images here): ``num_examples: null``.
    The cost grows as examples x depth^2 / 2 layer evaluations; the default of 2,000 fixed
    training examples takes about 3 s at depth 100 on 2 CPU cores.

    Args:
        num_examples: fixed (seeded) training examples to measure on; ``None``: all of them.
        batch_size: examples per forward pass.
        seed: seed of the examples' choice.

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    def __init__(self, num_examples: int | None = 2000, batch_size: int = 2500, seed: int = 0) -> None:
        check_lesion(num_examples, batch_size, seed)
        self.num_examples, self.batch_size, self.seed = num_examples, batch_size, seed
        self.baseline: float | None = None
        self.errors: torch.Tensor | None = None

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not trainer.is_global_zero or trainer.interrupted:
            return
        net = backbone_of(pl_module)
        if not len(net.layers):  # before: a ValueError "every value is NaN" and a header-only table
            warn_no_layers(self, "there is no layer to lesion: no lesion/ table or plot")
            return
        dataset = trainer.train_dataloader.dataset
        n = len(dataset) if self.num_examples is None else min(self.num_examples, len(dataset))
        if self.num_examples is not None and self.num_examples > n:  # pass 35, row 26: before, silent
            logging.getLogger(__name__).info(
                f"callbacks.lesion.num_examples={self.num_examples} is more than the {n:,} training "
                f"examples: all of them are used")
        x, y = training_examples(trainer, pl_module, n, self.seed)
        from highwaylab.utils.interrupt import signalled

        try:  # a signal (Ctrl-C) stops it within a layer (pass 79, row 52: before, it ran to its end first)
            self.baseline, self.errors = lesion_errors(net, x, y, self.batch_size,
                                                       stop=lambda: signalled() is not None)
        except LesionStopped as stopped:
            logging.getLogger(__name__).warning(f"lesioning {stopped} by the signal: no lesion/ table or "
                                                f"plot (a resume= that completes the run lesions again)")
            return
        step = step_of(trainer)
        log_scalars(trainer, {"lesion/baseline_error": self.baseline,
                              "lesion/max_error": _nanmax(self.errors)}, step)
        increase = 100 * (self.errors - self.baseline)  # percentage points
        pairs = zip(self.errors.tolist(), increase.tolist(), strict=True)
        rows = [[k, round(100 * e, 4), round(d, 4)] for k, (e, d) in enumerate(pairs, start=1)]  # percent
        log_table(trainer, "lesion/table", ["layer", "error_pct", "increase_pp"], rows, step)
        moment = when(trainer, step, fit_ended=True)
        log_figure(trainer, "lesion/error_by_layer", lambda: layer_bars(
            increase.numpy(), f"Training error with one layer lesioned (T = 0), minus the whole net's "
            f"({100 * self.baseline:.2f}%)\non {n} training examples (one example: {100 / n:.2g} "
            f"points), end of fitting ({moment})", "increase in error (percentage points)"), step)


def _nanmax(errors: torch.Tensor) -> float:
    """The largest error, ignoring the NaN of layers that cannot be lesioned; 0.0 if there is none."""
    valid = errors[~errors.isnan()]
    return float(valid.max()) if len(valid) else 0.0
