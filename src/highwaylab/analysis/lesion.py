"""Lesioning [TVDN sec. 4.1, Figure 4]: close all transform gates of one layer, measure the error."""

from __future__ import annotations

import torch
from torch import Tensor


@torch.no_grad()
def error_rate(net: torch.nn.Module, x: Tensor, y: Tensor, batch_size: int = 2500) -> float:
    """Fraction of the examples ``x (N, ...)`` that ``net`` misclassifies, in [0, 1]."""
    wrong = 0
    for start in range(0, len(y), batch_size):
        logits = net(x[start:start + batch_size])
        wrong += int((logits.argmax(dim=1) != y[start:start + batch_size]).sum())
    return wrong / len(y)


@torch.no_grad()
def lesion_errors(net: torch.nn.Module, x: Tensor, y: Tensor, batch_size: int = 2500
                  ) -> tuple[float, Tensor]:
    """Error with no lesion, and error with each layer k = 1 .. L lesioned in turn, ``(L,)``.

    ``net`` must offer ``lesion(k)`` (:meth:`FCBackbone.lesion`): inside it, layer k copies its
    input, which for a highway layer is T = 0 for all its gates. Runs in eval mode; the mode is
    restored after.
    """
    was_training = net.training
    net.eval()
    try:
        baseline = error_rate(net, x, y, batch_size)
        errors = []
        for k in range(1, len(net.layers) + 1):
            with net.lesion(k):
                errors.append(error_rate(net, x, y, batch_size))
    finally:
        net.train(was_training)
    return baseline, torch.tensor(errors, dtype=torch.float64)
