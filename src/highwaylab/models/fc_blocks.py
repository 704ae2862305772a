"""The layers that a fully connected backbone stacks: plain layer, residual block, highway layer.

Every block maps ``(N, D) -> (N, D)`` and shares the constructor ``(width, act_layer, ...)``,
so the backbone's builder can stack any of them. Equations are from ../shared/science.md:

- plain layer        y = H(x) = act(W_H x + b_H)                              [HN eq. 1]
- highway layer      y = H(x) * T(x) + x * (1 - T(x)),  T(x) = sigmoid(W_T x + b_T)
                       = x + T * (H - x)  = torch.lerp(x, H, T)                [HN eq. 3]
- residual block     y = x + W act(norm(x)) + b   (pre-activation, pre-norm)  [RN eq. 1, PA]

Each block has ``forward(x)`` (the fast path used for training) and ``forward_internals(x)``,
which also returns the transform gate T of a highway layer (``None`` for the others).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from highwaylab.models import spec
from highwaylab.models.base import FusedGate

# Element-wise activations of torch.nn, by lower-case name ("relu", "tanh", "gelu", "leakyrelu"...):
# the names of spec.ACTIVATIONS that this torch has.
ACTIVATIONS: dict[str, type[nn.Module]] = {
    name.lower(): getattr(nn, name) for name in spec.ACTIVATIONS if hasattr(nn, name)
}


def get_activation(name: str | type[nn.Module]) -> type[nn.Module]:
    """Resolve an activation name ("relu", "tanh", "sigmoid", "GELU", ...) to its torch.nn class.

    Raises:
        ConfigError: the name is not an element-wise torch.nn activation; the message lists them.
    """
    if isinstance(name, type) and issubclass(name, nn.Module):
        return name
    return getattr(nn, spec.activation_name(name))


class Block(nn.Module):
    """Base of the blocks: ``(N, D) -> (N, D)``, plus the internals interface used by analysis."""

    has_gate = False

    def forward_internals(self, x: Tensor) -> tuple[Tensor, Tensor | None]:
        """Return the block output ``(N, D)`` and its transform gate ``(N, D)``, or ``None``."""
        return self(x), None

    def carry(self, x: Tensor) -> Tensor:
        """The output with the transform path switched off (T = 0, F = 0): the input, ``y = x``."""
        return x

    def init_weights(self) -> None:
        """Apply the block's own initialisation on top of PyTorch's default (Kaiming-uniform)."""


class PlainBlock(Block):
    """Plain layer ``y = act(W x + b)`` [HN eq. 1]; ``(N, D) -> (N, D)``."""

    def __init__(self, width: int, act_layer: type[nn.Module] = nn.ReLU) -> None:
        super().__init__()
        self.fc = nn.Linear(width, width)
        self.act = act_layer()

    def forward(self, x: Tensor) -> Tensor:
        return self.act(self.fc(x))


class ResidualBlock(Block):
    """Pre-activation residual block ``y = x + W act(norm(x)) + b`` [RN eq. 1; PA]; ``(N, D) -> (N, D)``.

    Args:
        width: D, the number of units.
        act_layer: activation class.
        norm: ``"none"`` or ``"layernorm"`` (applied before the activation: pre-norm).
        zero_init: zero the block's last (only) Linear layer, so that the block starts as the identity.

    Raises:
        ConfigError: unknown ``norm``.
    """

    def __init__(self, width: int, act_layer: type[nn.Module] = nn.ReLU, *,
                 norm: str = "layernorm", zero_init: bool = True) -> None:
        super().__init__()
        spec.check_block_options(norm=norm, zero_init=zero_init)
        self.norm = nn.Identity() if norm == "none" else nn.LayerNorm(width)
        self.act = act_layer()
        self.fc = nn.Linear(width, width)
        self.zero_init = zero_init
        self.init_weights()

    def init_weights(self) -> None:
        if self.zero_init:
            self.zero_init_last()

    def zero_init_last(self) -> None:
        """Zero W and b of the residual branch F, so that y = x at initialisation [PA, sec. 4]."""
        nn.init.zeros_(self.fc.weight)
        nn.init.zeros_(self.fc.bias)

    def forward(self, x: Tensor) -> Tensor:
        return x + self.fc(self.act(self.norm(x)))


class HighwayBlock(FusedGate, Block):
    """Highway layer with a coupled carry gate, H and T from one matmul [HN eq. 3]; ``(N, D) -> (N, D)``.

    ``proj`` is ``Linear(D, 2D)``: its weight stacks ``[W_H; W_T]`` and its bias ``[b_H; b_T]``.

    Args:
        width: D, the number of blocks (units) of the layer.
        act_layer: activation class of H.
        gate_bias: b_T, the initial transform-gate bias; negative values start the layer near carry.
    """

    has_gate = True

    def __init__(self, width: int, act_layer: type[nn.Module] = nn.ReLU, *,
                 gate_bias: float = -2.0) -> None:
        super().__init__()
        self.width = width
        self.gate_bias = float(gate_bias)
        self.proj = nn.Linear(width, 2 * width)
        self.act = act_layer()
        self.init_weights()

    def _transform(self, x: Tensor) -> tuple[Tensor, Tensor]:
        h, t = self.proj(x).chunk(2, dim=-1)  # (N, 2D) -> H pre-activation (N, D), T logits (N, D)
        return self.act(h), torch.sigmoid(t)  # H(x) = act(W_H x + b_H), T(x) = sigmoid(W_T x + b_T)

    def forward(self, x: Tensor) -> Tensor:
        h, t = self._transform(x)
        return torch.lerp(x, h, t)  # y = x + T * (H - x) = H*T + x*(1 - T)   [HN eq. 3]

    def forward_internals(self, x: Tensor) -> tuple[Tensor, Tensor]:
        h, t = self._transform(x)
        return torch.lerp(x, h, t), t


class NaiveHighwayBlock(Block):
    """Reference highway layer with two separate Linear layers: ``y = H*T + x*(1 - T)`` [HN eq. 3].

    The test oracle for :class:`HighwayBlock` and the baseline of ``benchmarks/``; not for training.
    """

    has_gate = True

    def __init__(self, width: int, act_layer: type[nn.Module] = nn.ReLU, *,
                 gate_bias: float = -2.0) -> None:
        super().__init__()
        self.plain = nn.Linear(width, width)  # W_H, b_H
        self.gate = nn.Linear(width, width)  # W_T, b_T
        self.act = act_layer()
        self.gate_bias = float(gate_bias)
        self.init_weights()

    def init_weights(self) -> None:
        with torch.no_grad():
            self.gate.bias.fill_(self.gate_bias)

    @classmethod
    def from_fused(cls, fused: HighwayBlock) -> NaiveHighwayBlock:
        """Copy W_H, b_H, W_T, b_T out of a fused layer's ``proj`` (rows ``[:D]`` and ``[D:]``)."""
        d = fused.width
        ref = cls(d, type(fused.act))
        with torch.no_grad():
            ref.plain.weight.copy_(fused.proj.weight[:d])
            ref.plain.bias.copy_(fused.proj.bias[:d])
            ref.gate.weight.copy_(fused.proj.weight[d:])
            ref.gate.bias.copy_(fused.proj.bias[d:])
        return ref

    def forward_internals(self, x: Tensor) -> tuple[Tensor, Tensor]:
        h = self.act(self.plain(x))
        t = torch.sigmoid(self.gate(x))
        return h * t + x * (1.0 - t), t

    def forward(self, x: Tensor) -> Tensor:
        return self.forward_internals(x)[0]


BLOCKS: dict[str, type[Block]] = {
    "plain": PlainBlock,
    "residual": ResidualBlock,
    "highway": HighwayBlock,
    "highway_naive": NaiveHighwayBlock,
}
