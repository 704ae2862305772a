"""The carry product of a highway stack at initialisation, and a warning when it closes the carry path.

A highway layer passes ``1 - T`` of its input on unchanged (the carry path) [HN eq. 3]. At
initialisation ``T ~ sigmoid(b_T)`` (``W_T x`` has mean zero), so the share of the input that
reaches the head through all L highway layers on the carry path alone is
``prod_k (1 - sigmoid(b_T,k))`` [TVDN sec. 3, sec. 4.1]: with ``b_T = -1`` at depth 50 that is
``0.731^49 ~ 2.1e-7``, and such a net sits at chance; the ``auto`` bias keeps it near 1/e.
"""

from __future__ import annotations

import math

from torch import Tensor, nn

from highwaylab.models.conv_backbone import ConvBackbone, auto_conv_gate_bias
from highwaylab.models.fc_backbone import auto_gate_bias

CARRY_THRESHOLD = 1e-3  # below it, check_carry warns
# below it, the transform gates are shut: T = sigmoid(b_T) < 1e-6 at b_T < -13.8 (the paper searched
# -1 .. -10: sigmoid(-10) = 4.5e-5), and the layers' gradients, which scale with T, all but vanish
TRANSFORM_THRESHOLD = 1e-6


def _gate_bias(layer: nn.Module) -> Tensor | None:
    """b_T of a highway layer (the fused ``transform_bias``, or the reference layer's ``gate.bias``),
    shape ``(D,)`` or ``(C,)``; ``None`` for a layer without a transform gate."""
    if not getattr(layer, "has_gate", False):
        return None
    bias = getattr(layer, "transform_bias", None)
    return bias if bias is not None else layer.gate.bias


def layer_gate_biases(net: nn.Module) -> list[float]:
    """The mean transform-gate bias b_T of each highway layer of ``net``, in forward order (layers
    without a gate, e.g. plain transitions between conv stages, are skipped)."""
    biases = (_gate_bias(layer) for layer in getattr(net, "layers", []))
    return [float(b.detach().float().mean()) for b in biases if b is not None]


def carry_product(net: nn.Module) -> float:
    """``prod_k (1 - sigmoid(b_T,k))`` over the highway layers k of ``net`` (fully connected or
    convolutional), from each layer's actual gate bias (the mean over its blocks or channels when
    they differ).

    Meaning [TVDN sec. 3, sec. 4.1]: at initialisation, with ``T ~ sigmoid(b_T)``, the share of the
    signal that reaches the head through every highway layer on the carry path, untransformed: about
    1/e with ``model.gate_bias=auto``, ``0.88^99 ~ 3e-6`` with the paper's -2 at depth 100. Near 0,
    the input reaches the head only through ~L transforms, as in a plain net. It ignores ``W_T x``
    (mean zero at initialisation) and the plain transition layers of conv nets (which carry
    nothing). Computed in float64 through the logarithm (no underflow before 1e-308).

    Returns:
        A number in (0, 1], unitless.

    Raises:
        ValueError: ``net`` has no highway layers (plain, residual).
    """
    biases = layer_gate_biases(net)
    if not biases:
        raise ValueError(f"{type(net).__name__} has no highway layers: no carry product")
    # 1 - sigmoid(b) = sigmoid(-b); log sigmoid(-b) = -log(1 + e^b), stable for any b
    log_carry = sum(-_softplus(b) for b in biases)
    return math.exp(log_carry)


def auto_gate_bias_for(net: nn.Module, depth: int | None = None) -> float:
    """The value ``model.gate_bias=auto`` gives ``net`` at ``depth`` (default ``net.depth``):
    ``-max(1, ln(depth - 1))`` for fully connected nets, ``-max(1, round(depth / 10))`` for conv nets."""
    depth = net.depth if depth is None else depth
    return auto_conv_gate_bias(depth) if isinstance(net, ConvBackbone) else auto_gate_bias(depth - 1)


def check_carry(net: nn.Module, depth: int | None = None,
                threshold: float = CARRY_THRESHOLD) -> str | None:
    """A warning text when the carry product of ``net`` (:func:`carry_product`) is below
    ``threshold`` (1e-3), or when the transform gates are shut (``T = sigmoid(b_T)`` below
    ``TRANSFORM_THRESHOLD``, 1e-6, in every highway layer: ``model.gate_bias=-1e9``, whose layers get
    no gradient), naming ``model.gate_bias`` and the ``auto`` value for this depth; ``None`` when
    neither, or when ``net`` has no highway layers.

    Args:
        net: the backbone, before training (``module.backbone``).
        depth: the net's depth as the paper counts it (stem + layers); default ``net.depth``, which
            is right for fully connected and conv nets alike.
        threshold: the carry product below which to warn.
    """
    biases = layer_gate_biases(net)
    if not biases:
        return None
    depth = net.depth if depth is None else depth
    bias = sum(biases) / len(biases)
    auto = auto_gate_bias_for(net, depth)
    opening = max(_sigmoid(b) for b in biases)  # the most open layer's T at initialisation
    if opening < TRANSFORM_THRESHOLD:
        return (f"model.gate_bias={bias:g} closes the transform gates: at initialisation T = sigmoid(b_T) "
                f"= {opening:.1e} or less in every highway layer (below {TRANSFORM_THRESHOLD:g}), and the "
                f"gradients of the layers' H and T weights scale with T and T(1 - T), so the {len(biases)} "
                f"highway layers would not train (only the stem and head would). Fix: model.gate_bias=auto "
                f"({auto:.3f} at depth {depth}), or a value in the paper's range, -1 .. -10")
    product = carry_product(net)
    if product >= threshold:
        return None
    return (f"model.gate_bias={bias:g} closes the carry path at depth {depth}: at initialisation only "
            f"{product:.1e} of the signal passes the {len(biases)} highway layers untransformed "
            f"(carry product prod(1 - sigmoid(b_T)) < {threshold:g}), and such a net is likely to sit "
            f"at chance. Fix: model.gate_bias=auto ({auto:.3f} at depth {depth}), or a value closer "
            "to it.")


def _sigmoid(x: float) -> float:
    """``1 / (1 + e^-x)`` without overflow (0 for x below about -745)."""
    return math.exp(-_softplus(-x))


def _softplus(x: float) -> float:
    """``log(1 + e^x)`` without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))
