"""Carry stripes: gates and block outputs of fixed examples, layer x block [TVDN Figures 2-3]."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.carry_stripes")

import lightning as L
import torch
from lightning.pytorch.utilities import rank_zero_warn

from highwaylab.analysis.gates import class_gate_difference
from highwaylab.analysis.layer_maps import layer_unit_map, unit_axis
from highwaylab.analysis.plots import layer_maps
from highwaylab.analysis.samples import fixed_examples
from highwaylab.callbacks.media import log_figure, step_of, when
from highwaylab.callbacks.options import check_carry_stripes
from highwaylab.callbacks.probe_batch import backbone_of, internals_in_eval, training_examples, warn_no_layers


class CarryStripeMonitor(L.Callback):
    """Images of what each layer does to a few fixed training examples, at every epoch end.

    On rank zero, at each training-epoch end (at the ``trainer/global_step`` of Lightning's epoch
    metrics), logs one figure per key; W&B's image slider then steps through the epochs:

    - ``stripes/outputs``: for each of the ``num_examples`` examples, the layer x block map of the
      layer outputs (Figure 2, column 4); for conv nets layer x channel, averaged over positions.
      Values constant down a column over many layers are the "carry stripes": blocks that copy
      their input. Applies to every backbone. Colour scale: :func:`output_scale`.
    - ``stripes/gates`` (highway only): the layer x block map of the transform-gate outputs T of
      the same examples (Figure 2, column 3).
    - ``gates/class_difference`` (highway only), once at the end of fitting: for each class, the
      mean T over the class's examples among ``class_examples`` fixed training examples, minus the
      mean over all of them (Figure 3), layer x block. (Ten panels cost as much to draw as all the
      other images of an epoch together, so they are drawn once, for the trained net.) Each panel's
      title gives its class's count (``class 2 (n=1)``); a class with no example among them gets a
      grey panel titled ``class 2: no examples`` (blank white would read as a difference of 0 on the
      diverging scale), and a warning at the start of fitting names the classes and the key.

    Captions name each example's index and label. The examples are a seeded choice and stay the
    same for the whole run. The last maps are kept in ``self.outputs`` and ``self.gates``
    (``(K, L, D)``), ``self.class_difference`` (``(C, L, D)``) and ``self.class_counts`` (``(C,)``).

    Args:
        num_examples: K, the examples shown (default 4, at most 32: one panel each).
        class_examples: examples used for the per-class map; 0 switches that map off.
        seed: seed of the examples' choice.

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    def __init__(self, num_examples: int = 4, class_examples: int = 1000, seed: int = 0) -> None:
        check_carry_stripes(num_examples, class_examples, seed)
        self.num_examples, self.class_examples, self.seed = num_examples, class_examples, seed
        self.outputs = self.gates = self.class_difference = self.class_counts = None

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """Warn once, before training, when the ``class_examples`` examples of the class map leave a
        class without an example (breaking pass 22, row 8: ``class_examples=3`` drew 7 of 10 panels
        blank, like a difference of 0, with no word)."""
        net = backbone_of(pl_module)
        if not (self.class_examples and net.has_gates and trainer.is_global_zero) \
                or trainer.train_dataloader is None:
            return
        _, y = fixed_examples(trainer.train_dataloader.dataset, self.class_examples, self.seed)
        counts = class_counts(y, pl_module.hparams.get("num_classes", int(y.max()) + 1))
        missing = [c for c, n in enumerate(counts.tolist()) if n == 0]
        if missing:
            key = "callbacks.carry_stripes.class_examples"
            rank_zero_warn(f"{key}={self.class_examples} leaves classes {', '.join(map(str, missing))} "
                           f"without an example: their panels of gates/class_difference are empty; give "
                           f"at least {len(counts)} (one per class), e.g. {key}=1000 (the default)")

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not trainer.is_global_zero:
            return
        net = backbone_of(pl_module)
        x, y = training_examples(trainer, pl_module, self.num_examples, self.seed)
        _, internals = internals_in_eval(net, x)
        if len(internals.states) < 2:  # depth 1: the stem alone, no layer to map
            warn_no_layers(self, "there are no stripes to draw")
            return
        # float32 whatever trainer.precision (64-true, 16-true, bf16-true): numpy and the figures take it
        self.outputs = layer_unit_map(internals.states[1:]).transpose(0, 1).float().cpu()  # (K, L, D)
        step = step_of(trainer)
        moment = when(trainer, step)
        titles = [f"example {i}: label {label}" for i, label in enumerate(y.tolist())]
        caption = f"{moment}; {', '.join(titles)}"  # "epoch 0 (step 429); example 0: label 5, example 1: ..."
        scale = output_scale(self.outputs)
        log_figure(trainer, "stripes/outputs", lambda: layer_maps(
            list(self.outputs.numpy()), titles, f"Layer outputs of fixed training examples ({moment})",
            "layer output", xlabel=unit_axis(net.unit), **scale), step, caption=caption)
        if not net.has_gates:
            return
        self.gates = layer_unit_map(internals.gates).transpose(0, 1).float().cpu()  # (L, K, D) -> (K, L, D)
        log_figure(trainer, "stripes/gates", lambda: layer_maps(
            list(self.gates.numpy()), titles, f"Transform gates T of fixed training examples ({moment})",
            "T", vmin=0, vmax=1, xlabel=unit_axis(net.unit)), step, caption=caption)

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        net = backbone_of(pl_module)
        if not (self.class_examples and net.has_gates and trainer.is_global_zero) or trainer.interrupted:
            return
        if trainer.train_dataloader is None:  # training was skipped (limit_train_batches=0)
            return
        x, y = training_examples(trainer, pl_module, self.class_examples, self.seed)
        _, internals = internals_in_eval(net, x)
        num_classes = pl_module.hparams.get("num_classes", int(y.max()) + 1)
        self.class_difference = class_gate_difference(internals.gates, y, num_classes).float().cpu()
        self.class_counts = class_counts(y, num_classes)
        bound = _abs_max(self.class_difference)
        step = step_of(trainer)
        log_figure(trainer, "gates/class_difference", lambda: layer_maps(
            list(self.class_difference.numpy()), class_titles(self.class_counts),
            f"Mean T of each class minus the mean over all {len(y):,} examples (end of fitting, "
            f"{when(trainer, step, fit_ended=True)})", "difference in T", cmap="RdBu_r",
            vmin=-bound, vmax=bound, xlabel=unit_axis(net.unit)), step)


def class_counts(labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    """The number of examples of each class in ``labels (N,)``: ``(num_classes,)`` on the CPU."""
    return torch.bincount(labels.cpu().long(), minlength=num_classes)[:num_classes]


def class_titles(counts: torch.Tensor) -> list[str]:
    """The panel titles of ``gates/class_difference``: ``class 2 (n=1)``, or ``class 2: no examples``
    for a class whose panel is empty (its difference is NaN)."""
    return [f"class {c} (n={n})" if n else f"class {c}: no examples" for c, n in enumerate(counts.tolist())]


def output_scale(outputs: torch.Tensor) -> dict:
    """The colour scale of ``stripes/outputs`` for layer outputs ``(K, L, D)``: a diverging map centred
    on 0 for outputs of either sign (tanh layers, residual sums), else (ReLU highway and plain layers,
    never negative) a sequential map from 0 to the largest output, so that no half of the scale
    stays unused. Keyword arguments of :func:`highwaylab.analysis.plots.layer_maps`."""
    bound = _abs_max(outputs)
    if bool((outputs.nan_to_num() < 0).any()):
        return {"cmap": "RdBu_r", "vmin": -bound, "vmax": bound}
    return {"cmap": "viridis", "vmin": 0.0, "vmax": bound}


def _abs_max(t: torch.Tensor) -> float:
    value = float(t.nan_to_num().abs().max())
    return value if value > 0 else 1.0
