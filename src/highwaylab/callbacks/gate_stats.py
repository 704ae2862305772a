"""Per-layer transform-gate statistics of a highway backbone [TVDN sec. 4, Figure 2 columns 1-2]."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.gate_stats")

import logging
import math

import lightning as L
import numpy as np
import torch

from highwaylab.analysis.gates import GateStats, gate_stats
from highwaylab.analysis.history import LayerHistory, named_scalars, per_layer_scalars
from highwaylab.analysis.layer_maps import stack_layers, unit_axis
from highwaylab.analysis.plots import layer_lines, layer_maps, layer_step_map
from highwaylab.callbacks.media import log_figure, log_scalars, log_table, step_of, when
from highwaylab.callbacks.options import check_gate_stats
from highwaylab.callbacks.probe_batch import backbone_of, internals_in_eval, training_examples

log = logging.getLogger(__name__)



def scale_low(initial: np.ndarray) -> float:
    """The low end of the log colour scale of ``gates/mean_by_step`` (and the y axis of
    ``gates/mean_by_layer``): the power of ten a decade below the lowest initial mean T of
    ``initial (L,)``, so that gates closing below their start stay distinguishable (before: the
    power of ten at or below it, 0.01 for an initial mean of 0.02, so that any gate closing below
    0.01 had the lowest colour); 1e-3 without layers."""
    values = initial[~np.isnan(initial)] if len(initial) else initial
    if not len(values):
        return 1e-3
    return 10.0 ** (math.floor(math.log10(max(float(values.min()), 1e-6))) - 1)


class GateStatsMonitor(L.Callback):
    """Measure the transform gates T on a fixed probe batch of training examples.

    Measures at step 0 and every ``every_n_steps`` training steps (before that step's update), and
    at each training-epoch end; logs on rank zero, at the ``trainer/global_step`` of the moment:

    - ``gates/mean/first``, ``gates/mean/middle``, ``gates/mean/last``: mean T (over examples,
      blocks, and positions of conv layers; in (0, 1)) of the first, middle and last highway layer;
    - ``gates/closed`` / ``gates/open``: fraction of all gate values with T < ``closed_below``
      (carry) / T > ``open_above`` (transform), in [0, 1], averaged over the highway layers;
    - with ``per_layer_scalars=True`` also ``gates/{mean,bias,closed,open}/layer_XXX`` for every
      layer k (``XXX`` = k in 3 digits; b_T in logit units): 4 keys per layer, opt-in.

    At each training-epoch end, four images (one media key each, whatever the depth):

    - ``gates/mean_by_step``: layer x training-step map of the mean T, growing with the run; log
      colour scale from a decade below the initial mean to 1, the initial mean marked;
    - ``gates/mean_by_layer``: mean T against layer now, the initial profile dashed (log axis, top 1);
    - ``gates/bias_map``: layer x block map of b_T (Figure 2, column 1), a diverging scale centred
      on the initial b_T (marked) and at least +-1 wide, so that noise stays pale;
    - ``gates/mean_map``: layer x block map of the mean T (Figure 2, column 2), scale [0, 1].

    At the end of fitting, the table ``gates/table`` (one row per layer: ``layer``, ``mean_T``,
    ``mean_T_initial``, ``b_T``, ``b_T_initial``, ``closed``, ``open``).

    The histories are kept in the checkpoint (:meth:`state_dict`): a resumed run's images go on
    from step 0. Plain and residual backbones have no gates: the callback then does nothing. A conv
    net's plain transition layers have no gates (NaN rows, blank in the maps, no key). Kept on ``self``:
    ``stats`` (:class:`GateStats`), ``biases`` (``(L, D)``), ``history`` (mean T per layer over
    steps) and ``bias_history`` (mean b_T per layer over steps).

    Args:
        every_n_steps: step cadence of the measurements; 0: at epoch ends only.
        num_examples: size of the probe batch (seeded choice of training examples).
        seed: seed of that choice.
        closed_below, open_above: thresholds of the closed / open fractions.
        per_layer_scalars: also log the per-layer scalar keys (``4 x (depth - 1)`` keys).

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    def __init__(self, every_n_steps: int = 200, num_examples: int = 1000, seed: int = 0,
                 closed_below: float = 0.1, open_above: float = 0.9, per_layer_scalars: bool = False
                 ) -> None:
        check_gate_stats(every_n_steps, num_examples, seed, closed_below, open_above, per_layer_scalars)
        self.every_n_steps, self.num_examples, self.seed = every_n_steps, num_examples, seed
        self.closed_below, self.open_above = closed_below, open_above
        self.per_layer_scalars = per_layer_scalars
        self.stats: GateStats | None = None
        self.biases: torch.Tensor | None = None
        self.history = LayerHistory()
        self.bias_history = LayerHistory()
        self._initial_map: np.ndarray | None = None  # (L, D) b_T at the first measurement
        self._probe = None
        self._active = False

    def state_dict(self) -> dict:
        """The histories and the first b_T map, kept in the checkpoint: a resumed run's
        ``gates/mean_by_step`` goes on from step 0, and "initial" stays the state at step 0."""
        initial = None if self._initial_map is None else torch.from_numpy(self._initial_map.copy())
        return {"history": self.history.state_dict(), "bias_history": self.bias_history.state_dict(),
                "initial_map": initial}

    def load_state_dict(self, state_dict: dict) -> None:
        self.history.load_state_dict(state_dict["history"])
        self.bias_history.load_state_dict(state_dict["bias_history"])
        initial = state_dict.get("initial_map")
        self._initial_map = None if initial is None else initial.numpy().copy()

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        has_gates = backbone_of(pl_module).has_gates
        if not has_gates and trainer.is_global_zero:
            log.info("GateStatsMonitor: the backbone has no transform gates; nothing to log")
        self._active = trainer.is_global_zero and has_gates
        if self._active:
            self._probe = training_examples(trainer, pl_module, self.num_examples, self.seed)
            if len(self._probe[0]) < self.num_examples:  # the figures' titles give the number used
                log.info(f"callbacks.gate_stats.num_examples={self.num_examples} is more than the "
                         f"{len(self._probe[0]):,} training examples: all of them are used")

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        if self._active and self.every_n_steps and trainer.global_step % self.every_n_steps == 0:
            self._measure(trainer, pl_module, step_of(trainer, before_optimizer_step=True))

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not self._active:
            return
        step = step_of(trainer)
        self._measure(trainer, pl_module, step)
        moment, used = when(trainer, step), f"{len(self._probe[0]):,}"
        initial = self.history.initial.numpy()
        bias0 = self._initial_bias(pl_module)
        low = scale_low(initial)
        log_figure(trainer, "gates/mean_by_step", lambda: layer_step_map(
            self.history.steps, self.history.array(),
            f"Mean transform gate T by layer and step ({used} training examples; {moment})",
            "mean T (log scale)", vmin=low, vmax=1.0, log=True, end_step=step,
            cbar_marks=[(float(np.nanmean(initial)), f"initial mean {np.nanmean(initial):.3g}")]), step)
        log_figure(trainer, "gates/mean_by_layer", lambda: layer_lines(
            {f"mean T, {moment}": self.stats.mean.numpy()},
            f"Mean transform gate T by layer ({moment})", "mean T (log scale)", log=True,
            ylim=(low, 1.0), reference={f"at step {self.history.steps[0]}": initial}), step)
        spread = max(1.0, float(np.nanmax(np.abs(self.biases.numpy() - bias0))))
        unit = backbone_of(pl_module).unit
        log_figure(trainer, "gates/bias_map", lambda: layer_maps(
            [self.biases.numpy()], ["b_T"], f"Transform-gate biases b_T ({moment})", "b_T (logit)",
            cmap="RdBu_r", vmin=bias0 - spread, vmax=bias0 + spread,
            cbar_marks=[(bias0, f"initial {bias0:.3g}")], xlabel=unit_axis(unit, averaged=False)), step)
        log_figure(trainer, "gates/mean_map", lambda: layer_maps(
            [self.stats.mean_map.numpy()], ["mean T"],
            f"Mean transform gate T over {used} training examples ({moment})", "mean T",
            vmin=0, vmax=1, xlabel=unit_axis(unit)), step)

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not self._active or self.stats is None:
            return
        columns = ["layer", "mean_T", "mean_T_initial", "b_T", "b_T_initial", "closed", "open"]
        per_layer = [self.history.values[-1], self.history.initial, self.bias_history.values[-1],
                     self.bias_history.initial, self.stats.closed, self.stats.open]
        columns_by_layer = zip(*(v.tolist() for v in per_layer), strict=True)  # one tuple per layer
        rows = [[k, *values] for k, values in enumerate(columns_by_layer, start=1)
                if not math.isnan(values[0])]
        log_table(trainer, "gates/table", columns, rows, step_of(trainer))

    def _initial_bias(self, pl_module: L.LightningModule) -> float:
        """The b_T the run started from: the backbone's configured value, else the first measurement."""
        value = getattr(backbone_of(pl_module), "gate_bias", None)
        return float(value) if isinstance(value, int | float) else float(np.nanmean(self._initial_map))

    def _measure(self, trainer: L.Trainer, pl_module: L.LightningModule, step: int) -> None:
        net = backbone_of(pl_module)
        _, internals = internals_in_eval(net, self._probe[0])
        stats = gate_stats(internals.gates, self.closed_below, self.open_above)
        self.stats = GateStats(*(t.float().cpu()  # float32 for numpy, whatever trainer.precision (bf16-true)
                                 for t in (stats.mean_map, stats.mean, stats.closed, stats.open)))
        self.biases = stack_layers(net.gate_biases()).detach().float().cpu()  # (L, D), NaN rows: no gates
        if self._initial_map is None:
            self._initial_map = self.biases.numpy().copy()
        bias_means = self.biases.nanmean(dim=1)
        self.history.add(step, self.stats.mean)
        self.bias_history.add(step, bias_means)
        metrics = named_scalars("gates/mean", self.stats.mean)
        metrics["gates/closed"] = float(self.stats.closed.nanmean())
        metrics["gates/open"] = float(self.stats.open.nanmean())
        if self.per_layer_scalars:
            for name, values in (("mean", self.stats.mean), ("bias", bias_means),
                                 ("closed", self.stats.closed), ("open", self.stats.open)):
                metrics.update(per_layer_scalars(f"gates/{name}", values))
        log_scalars(trainer, metrics, step)
