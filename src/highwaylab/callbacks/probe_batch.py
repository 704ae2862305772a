"""The fixed probe batch shared by the analysis callbacks, and the backbone they inspect."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.probe_batch")

import lightning as L
import torch
from lightning.pytorch.utilities import rank_zero_warn
from torch import Tensor

from highwaylab.analysis.samples import fixed_examples


def backbone_of(pl_module: L.LightningModule) -> torch.nn.Module:
    """The module's backbone (``pl_module.backbone``), which must offer ``forward_internals``.

    Raises:
        TypeError: the module exposes no such backbone.
    """
    net = getattr(pl_module, "backbone", None)
    if net is None or not hasattr(net, "forward_internals"):
        raise TypeError(f"{type(pl_module).__name__} has no `backbone` with forward_internals(); "
                        "the analysis callbacks need highwaylab's ClassifierModule and backbones")
    return net


def training_examples(trainer: L.Trainer, pl_module: L.LightningModule, n: int, seed: int
                      ) -> tuple[Tensor, Tensor]:
    """``n`` fixed training examples (seeded), moved to the module's device.

    A datamodule that keeps raw examples and prepares batches on the device (CIFAR: uint8 images,
    normalised in ``on_after_batch_transfer``) offers ``transform_batch(x, train)``; the examples go
    through it with ``train=False``: normalised like an evaluation batch, not augmented. Then the
    trainer's precision converts them as it converts a training batch (``trainer.precision=64-true``,
    ``16-true``, ``bf16-true``: the weights' dtype; pass 71, rows 41-42: before, a dtype-mismatch
    traceback at the first step).
    """
    x, y = fixed_examples(trainer.train_dataloader.dataset, n, seed)
    x, y = x.to(pl_module.device), y.to(pl_module.device)
    transform = getattr(trainer.datamodule, "transform_batch", None)
    x = x if transform is None else transform(x, train=False)
    return trainer.precision_plugin.convert_input(x), y


@torch.no_grad()
def internals_in_eval(net: torch.nn.Module, x: Tensor):
    """``net.forward_internals(x)`` in eval mode without autograd; the mode is restored after."""
    was_training = net.training
    net.eval()
    try:
        return net.forward_internals(x)
    finally:
        net.train(was_training)


def warn_no_layers(callback: L.Callback, consequence: str) -> None:
    """Warn once per ``callback`` that the backbone has no highway/residual layer after its stem
    (depth 1, or a conv net of empty stages), so that ``consequence`` (what it cannot draw)."""
    if getattr(callback, "_warned_no_layers", False):
        return
    callback._warned_no_layers = True
    rank_zero_warn(f"{type(callback).__name__}: the backbone has no highway/residual layer (depth 1 or empty "
                   f"stages), so {consequence}; set depth >= 2 to see them")
