"""Transform-gate statistics [TVDN sec. 4, Figures 2 and 3].

Inputs are the per-layer gates of ``forward_internals``: a list of L entries, ``T (N, D)`` (fully
connected) or ``T (N, C, H, W)`` (convolutional) with values in (0, 1), or ``None`` for a layer
without gates; ``T -> 0`` is carry, ``T -> 1`` transform. Conv gates are averaged over positions
for the maps (see :mod:`highwaylab.analysis.layer_maps`); layers without gates give NaN.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.gates")

from dataclasses import dataclass

import torch
from torch import Tensor

from highwaylab.analysis.layer_maps import layer_unit_map


@dataclass
class GateStats:
    """Gate statistics over N examples, for L layers of at most D blocks (channels).

    Attributes:
        mean_map: ``(L, D)`` mean of T over the examples (and positions) (Figure 2, column 2).
        mean: ``(L,)`` mean of T over examples, blocks (and positions).
        closed: ``(L,)`` fraction of gate values with ``T < closed_below`` (carry).
        open: ``(L,)`` fraction with ``T > open_above`` (transform).
    """

    mean_map: Tensor
    mean: Tensor
    closed: Tensor
    open: Tensor


def gate_stats(gates: list[Tensor | None], closed_below: float = 0.1, open_above: float = 0.9) -> GateStats:
    """Per-layer gate statistics of one batch; NaN for the layers whose entry is ``None``."""
    mean_map = layer_unit_map(gates).mean(dim=1)  # (L, N, D) -> (L, D)
    present = [k for k, t in enumerate(gates) if t is not None]

    def fraction(test) -> Tensor:  # over every example, block and position of each layer
        out = torch.full((len(gates),), float("nan"))
        if present:  # one transfer from the device for all layers
            out[present] = torch.stack([test(gates[k]).float().mean() for k in present]).cpu()
        return out

    return GateStats(mean_map=mean_map, mean=mean_map.nanmean(dim=1),
                     closed=fraction(lambda t: t < closed_below), open=fraction(lambda t: t > open_above))


def class_gate_difference(gates: list[Tensor | None], labels: Tensor, num_classes: int) -> Tensor:
    """Mean T of each class minus the mean T over all examples, ``(num_classes, L, D)`` [Figure 3].

    A class with no example in ``labels`` gets NaN.
    """
    t = layer_unit_map(gates)  # (L, N, D)
    overall = t.mean(dim=1)  # (L, D)
    per_class = torch.stack([t[:, labels == c].mean(dim=1) for c in range(num_classes)])  # (C, L, D)
    return per_class - overall
