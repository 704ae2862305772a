"""What every backbone shares: stem -> layers -> head, and the internals interface of the analysis.

A backbone has ``stem`` (a plain layer that maps the input to the working width), ``layers``
(the ``depth - 1`` plain, residual or highway layers, numbered 1 .. L) and ``head`` (the classifier
whose logits go to the cross-entropy loss). Depth is counted as in [TVDN sec. 3.1]: the stem plus
the layers; the head is not counted. Analysis callbacks reach the internals only through the
methods below.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor, nn

from highwaylab.models.spec import resolve_gate_bias  # noqa: F401  (models.base.resolve_gate_bias)

# Weight initialisations of the Linear and conv layers; "default" keeps PyTorch's (Kaiming-uniform
# with a = sqrt(5): weights ~ U(+-1/sqrt(fan_in)), variance 1 / (3 fan_in)).
# keys: spec.WEIGHT_INITS (the names the config checks know, without torch)
WEIGHT_INITS = {
    "default": None,
    "glorot": nn.init.xavier_uniform_,  # variance 2 / (fan_in + fan_out) [Glorot & Bengio 2010]
    "he": lambda w: nn.init.kaiming_normal_(w, nonlinearity="relu"),  # variance 2 / fan_in [He 2015]
}


@dataclass
class Internals:
    """Per-layer hidden states and gates of one forward pass.

    Attributes:
        states: ``depth`` tensors: ``states[0]`` is the stem's output and ``states[k]`` the output of
            layer k, so layer k's input is ``states[k - 1]``. Shapes ``(N, D)`` (fully connected) or
            ``(N, C, H, W)`` (convolutional; C and H, W may change between stages).
        gates: one entry per layer k at ``gates[k - 1]``: the transform gate T of a highway layer,
            shaped like its input (one gate per block, or per channel and position), or ``None``
            for a layer without gates (plain, residual, a plain transition between conv stages).
    """

    states: list[Tensor] = field(default_factory=list)
    gates: list[Tensor] = field(default_factory=list)


class FusedGate:
    """Gate-bias methods of a highway layer whose ``proj`` computes H and T in one go (a Linear or a
    convolution with 2D outputs): outputs ``[:D]`` are H's, ``[D:]`` are T's, its bias ``[b_H; b_T]``.
    Mixed into the fully connected and the conv highway layer, which set ``proj`` and ``gate_bias``."""

    proj: nn.Module
    gate_bias: float

    def init_weights(self) -> None:
        self.init_gate_bias(self.gate_bias)

    def init_gate_bias(self, value: float) -> None:
        """Set every transform-gate bias b_T to ``value`` [HN sec. 2; TVDN sec. 2]."""
        with torch.no_grad():
            self.transform_bias.fill_(value)

    @property
    def transform_bias(self) -> Tensor:
        """b_T, shape ``(D,)`` (or ``(C,)``): a view into ``proj.bias``."""
        return self.proj.bias[self.proj.bias.shape[0] // 2:]


class Backbone(nn.Module):
    """Base class: subclasses build ``stem``, ``layers`` (an ``nn.ModuleList``), ``head`` and ``depth``.

    Every layer offers ``forward_internals(x) -> (y, T or None)`` and ``carry(x)`` (its output
    with the transform path off, for lesioning), and highway layers ``transform_bias``.
    """

    stem: nn.Module
    layers: nn.ModuleList
    head: nn.Module
    depth: int
    unit: str = "block"  # what one unit of a layer is: a block (fully connected), a channel (conv)

    def init_weights(self, scheme: str = "default") -> None:
        """Initialise every Linear and conv weight with ``scheme`` (see ``WEIGHT_INITS``), biases at
        0; then each layer's own initialisation: b_T of highway layers, residual zero-init.

        A fused highway ``proj`` stacks ``[W_H; W_T]`` along its outputs: each half is initialised
        as the separate matrix (or convolution) it stands for.
        """
        weight_init = WEIGHT_INITS[scheme]
        if weight_init is not None:
            fused = {id(layer.proj) for layer in self.layers if isinstance(layer, FusedGate)}
            with torch.no_grad():
                for module in self.modules():
                    if isinstance(module, (nn.Linear, nn.Conv2d)):
                        for weight in module.weight.chunk(2 if id(module) in fused else 1):  # W_H, W_T
                            weight_init(weight)
                        if module.bias is not None:
                            nn.init.zeros_(module.bias)
        for layer in self.layers:
            layer.init_weights()

    def ordered_layers(self) -> list[tuple[str, nn.Module]]:
        """All layers in forward order with their names: ``stem``, ``layer_001`` ... , ``head``."""
        named = [(f"layer_{k:03d}", layer) for k, layer in enumerate(self.layers, start=1)]
        return [("stem", self.stem), *named, ("head", self.head)]

    @property
    def has_gates(self) -> bool:
        """Whether any layer is a highway layer with transform gates."""
        return any(layer.has_gate for layer in self.layers)

    def gate_biases(self) -> list[Tensor | None]:
        """b_T of each layer k at index k - 1: ``(D,)`` or ``(C,)``, detached; ``None`` without gates."""
        return [layer.transform_bias.detach() if layer.has_gate else None for layer in self.layers]

    def forward_from(self, k: int, h: Tensor) -> Tensor:
        """Run layers k .. L and the head on ``h``, the input of layer k; returns the logits.

        ``forward_from(1, stem(x)) == forward(x)``; ``k = L + 1`` runs the head alone. Lesioning
        layer k [TVDN sec. 4.1] is ``forward_from(k + 1, layers[k - 1].carry(states[k - 1]))``.

        Raises:
            IndexError: k is not in 1 .. L + 1.
        """
        if not 1 <= k <= len(self.layers) + 1:
            raise IndexError(f"layer {k} is not in 1 .. {len(self.layers) + 1}")
        for layer in self.layers[k - 1:]:
            h = layer(h)
        return self.head(h)

    def forward(self, x: Tensor) -> Tensor:
        """``(N, *input_shape) -> (N, num_classes)`` logits; keeps no per-layer state."""
        h = self.stem(x)
        for layer in self.layers:
            h = layer(h)
        return self.head(h)

    def forward_internals(self, x: Tensor) -> tuple[Tensor, Internals]:
        """Like :meth:`forward`, and also return every layer's output and gate (:class:`Internals`).

        The caller decides about autograd: wrap in ``torch.no_grad()`` for statistics, or keep the
        graph and differentiate with respect to ``states`` for gradients at layer inputs.
        """
        h = self.stem(x)
        out = Internals(states=[h])
        for layer in self.layers:
            h, gate = layer.forward_internals(h)
            out.states.append(h)
            out.gates.append(gate)
        return self.head(h), out
