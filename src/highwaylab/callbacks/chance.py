"""Warn once when the training loss sits at chance through the first steps, naming the likely cause."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.chance")

import logging
import math

import lightning as L
import torch
from torch import Tensor

from highwaylab.callbacks.options import check_chance_warning
from highwaylab.models.carry import CARRY_THRESHOLD, auto_gate_bias_for, carry_product, layer_gate_biases
from highwaylab.models.conv_backbone import ConvBackbone

log = logging.getLogger(__name__)


class ChanceWarning(L.Callback):
    """Log one warning (rank zero) when the training loss of the first ``steps`` training batches
    stays at chance level: its mean over their last quarter is at or above ``(1 - tolerance) *
    ln(num_classes)`` nats (2.280 for 10 classes at 1%), the loss of predicting the class prior. A mean,
    not every batch: at chance a batch's loss scatters about ln(C) (new-user pass: two of 300 batches of
    the README's sigmoid plain stack fell 0.2% below the bound, and the warning never came).

    A net that learns leaves that level within a few dozen steps; one that does not (a deep plain
    stack whose signals vanish, a highway stack whose gate bias closes the carry path [TVDN sec. 2,
    Figure 1]) sits there for whole epochs. The warning names the likely cause: depth without
    shortcuts (plain), or a gate bias too weak for the depth (highway: ``model.gate_bias`` against
    its ``auto`` value ``-max(1, ln(depth - 1))``). Only a lower bound is used: at chance the batch
    losses of a saturated (sigmoid) plain stack run 1-5% above ln(C) while its head oscillates.

    Cost: a ``torch.minimum`` and an addition on the device per batch for the first ``steps``
    batches, one host sync at batch ``steps``, nothing after. A run that starts past batch 0 (resumed)
    or ends before ``steps`` batches is not judged. Logs no metric.

    Args:
        steps: training batches to watch from the start (>= 1).
        tolerance: relative margin below ``ln(num_classes)``, in (0, 1).

    Attributes:
        message: the warning text, once given (``None`` before, or when the run learns).

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    def __init__(self, steps: int = 300, tolerance: float = 0.01) -> None:
        check_chance_warning(steps, tolerance)
        self.steps, self.tolerance = steps, float(tolerance)
        self.message: str | None = None
        self._seen = 0
        self._lowest: Tensor | None = None  # lowest batch loss so far, on the device
        self._total: Tensor | None = None  # their sum, for the mean in the message
        self._tail: Tensor | None = None  # the sum of the last quarter's losses, which decides
        self._start: tuple[list[float], float | None] = ([], None)  # gate biases and carry product at start
        self._chance = math.log(10)
        self._done = False

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        self._done = trainer.global_step > 0  # resumed: the first steps are behind
        self._seen, self._lowest, self._total, self._tail, self.message = 0, None, None, None, None
        self._chance = math.log(_num_classes(trainer, pl_module))
        net = getattr(pl_module, "backbone", pl_module)
        biases = layer_gate_biases(net)
        self._start = (biases, carry_product(net) if biases else None)

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs, batch,
                           batch_idx: int) -> None:
        if self._done:
            return
        loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
        if not isinstance(loss, Tensor):
            return
        loss = loss.detach() * trainer.accumulate_grad_batches  # Lightning divides it by that
        self._lowest = loss if self._lowest is None else torch.minimum(self._lowest, loss)
        self._total = loss if self._total is None else self._total + loss
        self._seen += 1
        tail = max(1, self.steps // 4)  # the last quarter of the watched batches
        if self._seen > self.steps - tail:
            self._tail = loss if self._tail is None else self._tail + loss
        if self._seen < self.steps:
            return
        self._done = True
        lowest, mean = float(self._lowest), float(self._total) / self._seen  # the one host sync
        last = float(self._tail) / tail
        floor = (1 - self.tolerance) * self._chance
        if last >= floor:
            self.message = (
                f"The run sits at chance: the training loss of the last {tail} of the first {self.steps} "
                f"batches averaged {last:.3f}, at or above {floor:.3f} "
                f"(ln({round(math.exp(self._chance))}) = {self._chance:.3f} minus {self.tolerance:.0%}; "
                f"lowest {lowest:.3f}, mean {mean:.3f}). "
                f"Likely cause: {self._cause(getattr(pl_module, 'backbone', pl_module))}")
            if trainer.is_global_zero:
                log.warning(self.message)

    def _cause(self, net) -> str:
        block, depth = getattr(net, "block", None), getattr(net, "depth", None)
        biases, carry = self._start
        if biases:
            bias = sum(biases) / len(biases)
            if carry is not None and carry < CARRY_THRESHOLD:
                rule = ("-max(1, round(depth / 10))" if isinstance(net, ConvBackbone)
                        else "-max(1, ln(depth - 1))")
                return (f"a gate bias too weak for the depth: model.gate_bias={bias:g} at depth {depth} "
                        f"left a carry product of {carry:.1e} at the start (prod(1 - sigmoid(b_T)) over "
                        f"{len(biases)} highway layers). Use model.gate_bias=auto, {rule} = "
                        f"{auto_gate_bias_for(net):.3f} here.")
            return (f"not the gate bias (model.gate_bias={bias:g} left a carry product of {carry:.2f} at "
                    "the start): check optim.optimizer.lr (too high or too low) and the data.")
        if block == "plain":
            conv = "conv_" if isinstance(net, ConvBackbone) else ""
            return (f"depth without shortcuts: model={conv}plain at depth {depth} ({len(net.layers)} plain "
                    "layers after the stem) passes vanishing signals and gradients [TVDN Figure 1]. "
                    f"Use model={conv}highway or model={conv}residual, or a smaller depth.")
        return "check optim.optimizer.lr (too high or too low) and the data (labels matching the inputs)."


def _num_classes(trainer: L.Trainer, pl_module: L.LightningModule) -> int:
    """The number of classes: the module's ``num_classes`` hyperparameter, else the datamodule's."""
    hparams = getattr(pl_module, "hparams", {})
    if "num_classes" in hparams:
        return int(hparams["num_classes"])
    return int(getattr(trainer.datamodule, "num_classes", 10))
