"""Per-layer transform-gate statistics of a highway backbone [TVDN sec. 4, Figure 2 columns 1-2]."""

from __future__ import annotations

import math

import lightning as L
from lightning.pytorch.utilities import rank_zero_info

from highwaylab.analysis.gates import GateStats, gate_stats
from highwaylab.analysis.layer_maps import stack_layers
from highwaylab.analysis.plots import layer_lines, layer_maps
from highwaylab.callbacks.media import log_figures, log_scalars
from highwaylab.callbacks.probe_batch import backbone_of, internals_in_eval, training_examples
from highwaylab.errors import ConfigError


class GateStatsMonitor(L.Callback):
    """Measure the transform gates on a fixed probe batch of training examples.

    Every ``every_n_steps`` training steps and at the end of each validation (sanity check
    skipped), on rank zero, logs for each highway layer ``k`` (``XXX`` = ``k`` in 3 digits):

    - ``gates/mean/layer_XXX``: mean transform-gate output T over examples and blocks (and
      positions, for conv layers), in (0, 1);
    - ``gates/bias/layer_XXX``: mean gate bias b_T over the blocks (logit units);
    - ``gates/closed/layer_XXX`` / ``gates/open/layer_XXX``: fraction of gates with
      T < ``closed_below`` (carry) / T > ``open_above`` (transform), in [0, 1].

    At the end of each validation it also logs three figures: ``gates/mean_by_layer`` (line plot of
    mean T against layer), ``gates/bias_map`` and ``gates/mean_map`` (layer x block heat maps of
    b_T and of the mean T: Figure 2, columns 1 and 2). Plain and residual backbones have no gates:
    the callback then does nothing; a conv net's plain transition layers are skipped (NaN rows in
    the maps). The last statistics are kept in ``self.stats`` and ``self.biases`` (``(L, D)``).

    Args:
        every_n_steps: step cadence of the scalars; 0 logs them at validation ends only.
        num_examples: size of the probe batch (seeded choice of training examples).
        seed: seed of that choice.
        closed_below, open_above: thresholds of the closed / open fractions.

    Raises:
        ConfigError: negative ``every_n_steps``, ``num_examples < 1``, or thresholds not in (0, 1).
    """

    def __init__(self, every_n_steps: int = 50, num_examples: int = 1000, seed: int = 0,
                 closed_below: float = 0.1, open_above: float = 0.9) -> None:
        if every_n_steps < 0:
            raise ConfigError(f"every_n_steps={every_n_steps} must be >= 0 (0: validation ends only)")
        if num_examples < 1:
            raise ConfigError(f"num_examples={num_examples} must be >= 1")
        if not 0 < closed_below <= open_above < 1:
            raise ConfigError(f"need 0 < closed_below ({closed_below}) <= open_above ({open_above}) < 1")
        self.every_n_steps, self.num_examples, self.seed = every_n_steps, num_examples, seed
        self.closed_below, self.open_above = closed_below, open_above
        self.stats: GateStats | None = None
        self.biases = None
        self._probe = None
        self._active = False

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        has_gates = backbone_of(pl_module).has_gates
        if not has_gates:
            rank_zero_info("GateStatsMonitor: the backbone has no transform gates; nothing to log")
        self._active = trainer.is_global_zero and has_gates
        if self._active:
            self._probe = training_examples(trainer, pl_module, self.num_examples, self.seed)

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        if self._active and self.every_n_steps and trainer.global_step % self.every_n_steps == 0:
            log_scalars(trainer, self._measure(pl_module))

    def on_validation_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if not self._active or trainer.sanity_checking:
            return
        log_scalars(trainer, self._measure(pl_module))
        epoch = f"epoch {trainer.current_epoch}, step {trainer.global_step}"
        log_figures(trainer, "gates/mean_by_layer", [layer_lines(
            {"mean T": self.stats.mean.cpu().numpy()}, f"Mean transform gate by layer ({epoch})",
            "mean T")])
        log_figures(trainer, "gates/bias_map", [layer_maps(
            [self.biases.cpu().numpy()], ["b_T"], f"Transform-gate biases ({epoch})", "b_T",
            cmap="viridis")])
        log_figures(trainer, "gates/mean_map", [layer_maps(
            [self.stats.mean_map.cpu().numpy()], ["mean T"],
            f"Mean transform gate over {self.num_examples} training examples ({epoch})", "T",
            vmin=0, vmax=1)])

    def _measure(self, pl_module: L.LightningModule) -> dict[str, float]:
        net = backbone_of(pl_module)
        _, internals = internals_in_eval(net, self._probe[0])
        self.stats = gate_stats(internals.gates, self.closed_below, self.open_above)
        self.biases = stack_layers(net.gate_biases())  # (L, D), NaN rows for layers without gates
        metrics = {}
        per_layer = {"mean": self.stats.mean, "bias": self.biases.nanmean(dim=1),
                     "closed": self.stats.closed, "open": self.stats.open}
        for name, values in per_layer.items():
            for k, value in enumerate(values.tolist(), start=1):
                if not math.isnan(value):  # a plain transition layer of a conv net has no gates
                    metrics[f"gates/{name}/layer_{k:03d}"] = value
        return metrics
