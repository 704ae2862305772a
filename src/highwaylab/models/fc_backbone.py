"""Fully connected deep networks: a plain stem, ``depth - 1`` plain, residual or highway layers, a head.

Depth is counted as in [TVDN sec. 3.1]: "a 10-layer network" is one fully connected plain layer
(the stem) + 9 plain/highway layers + a softmax classifier (the head, a Linear layer whose
logits go to the cross-entropy loss). Layers are numbered 1 .. depth - 1 after the stem, so layer k
is layer k + 1 of the paper's count.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from torch import nn

from highwaylab.errors import ConfigError
from highwaylab.models.base import Backbone
from highwaylab.models.fc_blocks import BLOCKS, get_activation
from highwaylab.models.spec import check_fc, resolve_gate_bias


def auto_gate_bias(num_layers: int) -> float:
    """Depth-aware transform-gate bias ``b_T = -max(1, ln(L))`` for ``L = depth - 1`` highway layers.

    With ``T ~ sigmoid(b_T) ~ e^{b_T}`` at initialisation, the carry product through the stack is
    ``prod (1 - T) ~ (1 - 1/L)^L ~ 1/e``: the input reaches the head, whatever the depth
    (b_T = -2.2 at depth 10, -4.6 at 100, -6.9 at 1000). A fixed ``b_T = -2`` leaves
    ``0.88^99 ~ 3e-6`` of the carry path at depth 100. [TVDN sec. 2 searched -1 .. -10.]
    """
    return -max(1.0, math.log(max(num_layers, 1)))


def block_params(block: str, width: int, **block_kwargs) -> int:
    """Number of parameters of one ``block`` layer of the given width (e.g. highway 50: 5,100)."""
    return sum(p.numel() for p in BLOCKS[block](width, **block_kwargs).parameters())


def matched_width(block: str, like: str, like_width: int, **block_kwargs) -> int:
    """The width at which one ``block`` layer has as many parameters as one ``like`` layer.

    The paper compares plain layers 71 units wide with highway layers 50 blocks wide, about
    5,000 parameters per layer either way [TVDN sec. 3.1]: ``matched_width("plain", "highway", 50) == 71``.
    """
    target = block_params(like, like_width)
    lo, hi = 1, 4 * like_width  # params grow with width: bisect for the last width <= target
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if block_params(block, mid, **block_kwargs) <= target:
            lo = mid
        else:
            hi = mid - 1
    # take whichever neighbour is closer to the target count
    below, above = block_params(block, lo, **block_kwargs), block_params(block, lo + 1, **block_kwargs)
    return lo if target - below <= above - target else lo + 1


class FCBackbone(Backbone):
    """Stem + ``depth - 1`` layers + head; ``(N, *input_shape) -> (N, num_classes)`` logits.

    Args:
        block: ``"plain"``, ``"residual"`` or ``"highway"`` (``"highway_naive"``: the reference layer).
        depth: layers counted as in the paper: 1 stem + ``depth - 1`` blocks (>= 1).
        width: units per layer (>= 1); for highway, the number of blocks per layer.
        input_shape: shape of one example, e.g. ``(1, 28, 28)`` for MNIST, or the flattened size
            (784); the stem flattens it.
        num_classes: number of classes (10 for MNIST).
        activation: name of a torch.nn activation, used by the stem and every layer.
        match_params: ``None``, or a block name (``"highway"``): then the width is chosen so that each
            layer has as many parameters as a ``match_params`` layer of ``width`` (plain 71 vs highway 50).
        gate_bias: highway only; b_T as a number, or ``"auto"`` for :func:`auto_gate_bias`.
        init: weight initialisation of every Linear layer: ``"default"`` (PyTorch's), ``"glorot"``
            or ``"he"``; biases start at 0, then b_T and the residual zero-init are applied.
        **block_kwargs: passed to the block (residual: ``norm``, ``zero_init``).

    Raises:
        ConfigError: non-positive depth or width, unknown block, activation or block option.
    """

    def __init__(self, block: str, depth: int, width: int, input_shape: int | Sequence[int], num_classes: int,
                 activation: str = "relu", match_params: str | None = None,
                 gate_bias: float | str | None = None, init: str = "default", **block_kwargs) -> None:
        super().__init__()
        check_fc(block, depth, width, activation, match_params, gate_bias, init, input_shape, num_classes)
        in_features = input_shape if isinstance(input_shape, int) else math.prod(input_shape)
        if BLOCKS[block].has_gate:
            block_kwargs["gate_bias"] = resolve_gate_bias(gate_bias, auto_gate_bias(depth - 1))
        act_layer = get_activation(activation)
        self.block = block
        self.depth = depth
        self.width = (width if match_params is None
                      else matched_width(block, match_params, width, **_sized_kwargs(block_kwargs)))
        self.gate_bias = block_kwargs.get("gate_bias")

        self.stem = nn.Sequential(nn.Flatten(), nn.Linear(in_features, self.width), act_layer())
        try:
            self.layers = nn.ModuleList(
                BLOCKS[block](self.width, act_layer, **block_kwargs) for _ in range(depth - 1)
            )
        except TypeError as err:  # an option this block does not take, e.g. norm= for highway
            raise ConfigError(f"model: {block!r} layers do not accept one of "
                              f"{sorted(block_kwargs)} ({err}); remove that key.") from err
        self.head = nn.Linear(self.width, num_classes)
        self.init_weights(init)


def _sized_kwargs(block_kwargs: dict) -> dict:
    """Block options that change the parameter count (LayerNorm adds 2D); others are irrelevant."""
    return {k: v for k, v in block_kwargs.items() if k == "norm"}
