"""Transform-gate statistics [TVDN sec. 4, Figures 2 and 3].

Inputs are the per-layer gates of :meth:`FCBackbone.forward_internals`: a list of L tensors
``T (N, D)`` with values in (0, 1), one per highway layer; ``T -> 0`` is carry, ``T -> 1`` transform.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class GateStats:
    """Gate statistics over N examples, for L highway layers of D blocks.

    Attributes:
        mean_map: ``(L, D)`` mean of T over the examples (Figure 2, column 2).
        mean: ``(L,)`` mean of T over examples and blocks.
        closed: ``(L,)`` fraction of (example, block) pairs with ``T < closed_below`` (carry).
        open: ``(L,)`` fraction with ``T > open_above`` (transform).
    """

    mean_map: Tensor
    mean: Tensor
    closed: Tensor
    open: Tensor


def gate_stats(gates: list[Tensor], closed_below: float = 0.1, open_above: float = 0.9) -> GateStats:
    """Per-layer gate statistics of one batch; ``gates`` is L tensors ``(N, D)``."""
    t = torch.stack(gates)  # (L, N, D)
    mean_map = t.mean(dim=1)  # (L, D)
    return GateStats(mean_map=mean_map, mean=mean_map.mean(dim=1),
                     closed=(t < closed_below).float().mean(dim=(1, 2)),
                     open=(t > open_above).float().mean(dim=(1, 2)))


def class_gate_difference(gates: list[Tensor], labels: Tensor, num_classes: int) -> Tensor:
    """Mean T of each class minus the mean T over all examples, ``(num_classes, L, D)`` [Figure 3].

    A class with no example in ``labels`` gets NaN.
    """
    t = torch.stack(gates)  # (L, N, D)
    overall = t.mean(dim=1)  # (L, D)
    per_class = torch.stack([t[:, labels == c].mean(dim=1) for c in range(num_classes)])  # (C, L, D)
    return per_class - overall
