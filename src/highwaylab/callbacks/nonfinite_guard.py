"""Stop training at the first non-finite loss or gradient, naming the layer where it appeared."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.nonfinite_guard")

import lightning as L
import torch
from torch import Tensor

from highwaylab.callbacks.options import check_nonfinite_guard
from highwaylab.errors import NonFiniteError

__all__ = ["NonFiniteError", "NonFiniteGuard"]  # NonFiniteError lives in highwaylab.errors


class NonFiniteGuard(L.Callback):
    """Raise :class:`NonFiniteError` before an optimizer step would apply a NaN or inf.

    Checks the loss (``on_before_backward``) and the whole gradient (``on_before_optimizer_step``,
    before clipping: the global norm is non-finite if any entry is) at every step; each check is
    one reduction and one host sync. The message names the step, the first layer in forward order
    (``stem``, ``layer_001``, ..., ``head``) whose gradient is non-finite, and the last checkpoint
    written, which the failure leaves in place: the weights it holds were never touched by the
    bad step. Logs nothing.

    :class:`~highwaylab.module.ClassifierModule` refuses a non-finite training loss by itself (after
    this guard, whose message names the layer, had its turn); this guard adds the gradients.

    Args:
        check_every_n_steps: check only every n-th step (1: every step) to save the syncs.

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    def __init__(self, check_every_n_steps: int = 1) -> None:
        check_nonfinite_guard(check_every_n_steps)
        self.check_every_n_steps = check_every_n_steps
        self._bad_loss: float | None = None  # the non-finite loss of this step, if any
        self._params: list[torch.nn.Parameter] = []

    def on_train_start(self, trainer, pl_module) -> None:
        self._params = [p for p in pl_module.parameters() if p.requires_grad]  # walked once

    def _due(self, trainer: L.Trainer) -> bool:
        return trainer.global_step % self.check_every_n_steps == 0

    def on_before_backward(self, trainer, pl_module, loss: Tensor) -> None:
        self._bad_loss = None
        if self._due(trainer) and not torch.isfinite(loss.detach()).item():
            self._bad_loss = float(loss.detach())  # reported with the gradients below

    def on_before_optimizer_step(self, trainer, pl_module, optimizer) -> None:
        if not self._due(trainer):
            return
        grads = [p.grad for p in self._params if p.grad is not None]
        if self._bad_loss is None and torch.isfinite(torch.nn.utils.get_total_norm(grads)).item():
            return
        layer = _first_nonfinite_layer(pl_module)
        written = [getattr(cb, name, "") for name in ("last_model_path", "best_model_path")
                   for cb in trainer.checkpoint_callbacks]  # last.ckpt (LatestCheckpoint) first
        ckpt = next((path for path in written if path), "")
        what = "Non-finite loss" if self._bad_loss is not None else "Non-finite gradient"
        raise NonFiniteError(
            f"{what} at step {trainer.global_step} (epoch {trainer.current_epoch}): "
            f"{_detail(self._bad_loss, layer)}. Training stopped before "
            f"the optimizer step. Last checkpoint: {ckpt or 'none written yet'}. Fix: lower "
            "optim.optimizer.lr, keep trainer.gradient_clip_val set, or check the data for NaN.")


def _detail(bad_loss: float | None, layer: str | None) -> str:
    """What was found, in words that never contradict each other."""
    if bad_loss is not None and layer is not None:
        return f"the loss is {bad_loss} (train/loss); the first layer with a NaN/inf gradient is {layer}"
    if bad_loss is not None:
        return (f"the loss is {bad_loss} (train/loss) and every gradient is finite: only the loss is "
                "non-finite")
    if layer is not None:
        return f"the loss is finite; the first layer with a NaN/inf gradient is {layer}"
    # every entry finite, yet the global norm is not: the sum of squares overflows float32 (~3e38),
    # i.e. some gradient entries are beyond ~1e19 (what clipping by the global norm would divide by)
    return ("the loss and every gradient entry are finite, but the gradients' global norm overflows "
            "to inf (entries beyond about 1e19): the run is diverging")


def _first_nonfinite_layer(pl_module: L.LightningModule) -> str | None:
    """The first layer in forward order (``stem``, ``layer_001``, ..., ``head``) with a NaN/inf
    gradient, else the name of any other parameter of ``pl_module`` with one, else ``None``."""
    net = getattr(pl_module, "backbone", None)
    named = net.ordered_layers() if hasattr(net, "ordered_layers") else pl_module.named_children()
    for name, layer in named:
        for p in layer.parameters():
            if p.grad is not None and not torch.isfinite(p.grad).all():
                return name
    for name, p in pl_module.named_parameters():  # parameters outside the backbone's layers
        if p.grad is not None and not torch.isfinite(p.grad).all():
            return name
    return None
