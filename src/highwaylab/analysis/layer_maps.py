"""Per-layer tensors as one layer x unit array, for fully connected and convolutional backbones.

A "unit" is a block of a fully connected layer, or a channel of a conv layer. Conv tensors
``(N, C, H, W)`` are averaged over positions to ``(N, C)`` [issue: gate means and stripes of conv nets
are averaged over positions]. Layers may differ in width (stages of a conv net), and some layers
have no gate (plain transitions): those entries are padded with NaN, which plots leave blank.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.layer_maps")

import torch
from torch import Tensor


def unit_means(t: Tensor) -> Tensor:
    """``(N, D) -> (N, D)``; ``(N, C, H, W) -> (N, C)``, the mean over the H x W positions."""
    return t if t.dim() == 2 else t.flatten(2).mean(dim=2)


def stack_layers(tensors: list[Tensor | None]) -> Tensor:
    """Stack L tensors ``(..., D_k)`` (or ``None``) into ``(L, ..., max D_k)``, NaN where there is no value.

    Raises:
        ValueError: no tensor at all, or tensors whose leading shapes differ.
    """
    present = [t for t in tensors if t is not None]
    if not present:
        raise ValueError("stack_layers needs at least one tensor")
    lead, width = present[0].shape[:-1], max(t.shape[-1] for t in present)
    out = torch.full((len(tensors), *lead, width), float("nan"), dtype=present[0].dtype,
                     device=present[0].device)
    for k, t in enumerate(tensors):
        if t is not None:
            if t.shape[:-1] != lead:
                raise ValueError(f"layer {k + 1} has shape {tuple(t.shape)}, expected (*{tuple(lead)}, D)")
            out[k, ..., : t.shape[-1]] = t
    return out


def layer_unit_map(tensors: list[Tensor | None]) -> Tensor:
    """Per-layer activations or gates ``(N, D)`` / ``(N, C, H, W)`` -> ``(L, N, max D)`` unit means."""
    return stack_layers([None if t is None else unit_means(t) for t in tensors])


def unit_axis(unit: str, averaged: bool = True) -> str:
    """The x label of a layer x unit map of a backbone whose units are ``unit`` (``Backbone.unit``):
    ``block``; ``channel (mean over positions)`` for the maps of a conv net's activations or gates,
    which :func:`unit_means` averages over H x W (``averaged``), and ``channel`` for its per-channel
    parameters (the gate biases b_T)."""
    return f"{unit} (mean over positions)" if averaged and unit == "channel" else unit
