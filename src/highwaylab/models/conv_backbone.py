"""Convolutional deep networks: a plain stem, stages of conv highway, residual or plain layers, a GAP head.

An architecture is a list of stages, each ``{channels, layers, kernel_size}`` [TVDN sec. 3.2 and
supplementary; Fitnets]. Built in order:

- stem: a plain conv layer ``in_channels -> stages[0].channels`` (kernel ``stem_kernel``);
- each stage i > 0 starts with a transition: with ``downsample="maxpool"`` the last layer of stage
  i - 1 ends with a 2 x 2 max-pool, and a plain conv layer (kernel ``transition_kernel``) changes the
  channel count if it differs; with ``downsample="conv"`` a plain stride-2 conv layer does both;
- then ``layers`` blocks of the chosen type, with ``kernel_size`` an odd int or a list cycled over
  the stage's layers (``[3, 1]`` alternates 3 x 3 and 1 x 1 receptive fields: Highway C);
- head: global average pooling over positions and a Linear classifier ``(N, C) -> (N, num_classes)``.

Depth counts the conv layers: stem + transitions + blocks (the head is not counted). The papers'
conv tables count the softmax layer too: their "10-layer" MNIST net is depth 9 here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from torch import nn

from highwaylab.errors import ConfigError
from highwaylab.models.base import Backbone
from highwaylab.models.conv_blocks import CONV_BLOCKS, ConvPlainBlock
from highwaylab.models.fc_backbone import MAX_PARAMS
from highwaylab.models.fc_blocks import get_activation
from highwaylab.models.spec import Stage, check_conv, parse_stages, resolve_gate_bias


def auto_conv_gate_bias(depth: int) -> float:
    """``b_T = -max(1, round(depth / 10))``: -1, -2, -3 for conv nets of about 10, 20 and 30 layers,
    as [TVDN sec. 2] suggests."""
    return -float(max(1, round(depth / 10)))


class ConvBackbone(Backbone):
    """Stem + stages of conv layers + GAP head; ``(N, C_in, H, W) -> (N, num_classes)`` logits.

    Args:
        block: ``"highway"``, ``"residual"`` or ``"plain"``: the type of the stages' blocks.
        stages: list of ``{channels, layers, kernel_size}`` (see :func:`parse_stages`).
        input_shape: ``(C_in, H, W)`` of one example, e.g. ``(3, 32, 32)``.
        num_classes: number of classes.
        activation: name of a torch.nn activation, used by every layer (ReLU in the papers).
        batch_norm: batch norm in every conv layer (before the activation; highway: on H only).
        downsample: ``"maxpool"`` or ``"conv"`` (plain stride-2 layer) between stages.
        stem_kernel, transition_kernel: kernel sizes of the stem and of channel-changing layers.
        gate_bias: highway only: b_T as a number, or ``"auto"`` for :func:`auto_conv_gate_bias`.
        init: ``"default"`` (PyTorch's), ``"glorot"`` or ``"he"`` for every conv and Linear weight;
            the fused highway convolution is initialised as two separate ones (W_H, W_T).
        **block_kwargs: residual: ``form`` (``"post"`` [RN] or ``"pre"`` [PA]), ``zero_init``.

    Attributes:
        depth: conv layers: stem + transitions + blocks.
        width: the largest channel count.

    Raises:
        ConfigError: unknown block, activation, downsample, init or block option; bad stages;
            a network too large to build.
    """

    def __init__(self, block: str, stages: Sequence[Mapping], input_shape: Sequence[int], num_classes: int,
                 activation: str = "relu", batch_norm: bool = False, downsample: str = "maxpool",
                 stem_kernel: int = 3, transition_kernel: int = 3, gate_bias: float | str | None = None,
                 init: str = "he", **block_kwargs) -> None:
        super().__init__()
        specs = check_conv(block, stages, activation, batch_norm, downsample, stem_kernel,
                           transition_kernel, gate_bias, init)
        if len(input_shape) != 3:
            raise ConfigError(f"conv backbones need images (C, H, W); the data gives {tuple(input_shape)}.")
        plan, stage_ends = _plan(block, specs, downsample, transition_kernel)
        _check_size(input_shape[0], stem_kernel, specs[0].channels, plan)
        self.block, self.depth = block, 1 + len(plan)
        self.width = max(s.channels for s in specs)
        act_layer = get_activation(activation)
        if block == "plain" and block_kwargs:
            raise ConfigError(f"model: plain conv layers do not accept {sorted(block_kwargs)}; remove them.")
        if CONV_BLOCKS[block].has_gate:
            block_kwargs["gate_bias"] = resolve_gate_bias(gate_bias, auto_conv_gate_bias(self.depth))
        self.gate_bias = block_kwargs.get("gate_bias")

        # maxpool: the last layer of every stage but the final one ends with a 2 x 2 max-pool
        pooled = set(stage_ends[:-1]) if downsample == "maxpool" else set()
        _check_maps(tuple(input_shape[1:]), stem_kernel, plan, stage_ends, pooled)
        self.stem = ConvPlainBlock(specs[0].channels, stem_kernel, act_layer, batch_norm=batch_norm,
                                   in_channels=input_shape[0], pool=-1 in pooled)
        layers = []
        for j, (kind, channels, kernel, extra) in enumerate(plan):
            kwargs = extra if kind == "plain" else block_kwargs
            try:
                layers.append(CONV_BLOCKS[kind](channels, kernel, act_layer, batch_norm=batch_norm,
                                                pool=j in pooled, **kwargs))
            except TypeError as err:  # an option this block does not take, e.g. form= for highway
                raise ConfigError(f"model: {kind!r} conv layers do not accept one of {sorted(kwargs)} "
                                  f"({err}); remove that key.") from err
        self.layers = nn.ModuleList(layers)
        self.head = nn.Sequential(  # global average pooling [TVDN Table 3; Lin et al. 2014]
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(specs[-1].channels, num_classes))
        self.init_weights(init)


def conv_depth(stages: Sequence[Mapping], downsample: str = "maxpool") -> int:
    """The depth of the conv backbone that ``stages`` build: stem + transitions + blocks (what
    :class:`ConvBackbone` calls ``depth``), e.g. 12 for ``model=conv_highway``'s three stages of 3.

    Raises:
        ConfigError: bad stages (see :func:`parse_stages`).
    """
    return 1 + len(_plan("plain", parse_stages(stages), downsample, 3)[0])


def _plan(block: str, specs: list[Stage], downsample: str, transition_kernel: int
          ) -> tuple[list[tuple[str, int, int, dict]], list[int]]:
    """The layers after the stem as ``(kind, channels, kernel, plain-layer options)``, in order, and
    the index of each stage's last layer in that list (-1: the stem)."""
    plan, ends = [], []
    for i, stage in enumerate(specs):
        previous = specs[i - 1].channels if i else stage.channels
        if i and (downsample == "conv" or stage.channels != previous):
            stride = 2 if downsample == "conv" else 1
            plan.append(("plain", stage.channels, transition_kernel,
                         {"in_channels": previous, "stride": stride}))
        plan.extend((block, stage.channels, stage.kernel(j), {}) for j in range(stage.layers))
        ends.append(len(plan) - 1)
    return plan, ends


def _check_size(in_channels: int, stem_kernel: int, channels: int, plan: list) -> None:
    """Refuse, before building anything, a network too large to build (e.g. channels: 100000)."""
    estimate = stem_kernel ** 2 * in_channels * channels  # weights only; highway/residual: 2 convs
    for kind, c, k, extra in plan:
        estimate += (1 if kind == "plain" else 2) * k * k * c * extra.get("in_channels", c)
    if estimate > MAX_PARAMS:
        raise ConfigError(f"model.stages would need about {estimate:.2g} parameters (more than "
                          f"{MAX_PARAMS:.0e}); reduce channels or layers.")


def _check_maps(size: tuple[int, int], stem_kernel: int, plan: list, stage_ends: list[int],
                pooled: set[int]) -> None:
    """Follow the feature-map size through the layers; refuse a max-pool that would leave no pixel,
    and a kernel larger than 3 x 3 that is larger than its map (a slow net of mostly padding).

    Raises:
        ConfigError: naming ``model.stem_kernel``, ``model.transition_kernel`` or ``model.stages[i]``.
    """
    h, w = size
    input_size = f"{h}x{w}"
    layers = [("model.stem_kernel", stem_kernel, 1, -1 in pooled)]
    for j, (_, _, kernel, extra) in enumerate(plan):
        stage = next(i for i, end in enumerate(stage_ends) if j <= end)
        key = "model.transition_kernel" if "in_channels" in extra else f"model.stages[{stage}].kernel_size"
        layers.append((key, kernel, extra.get("stride", 1), j in pooled))
    for key, kernel, stride, pool in layers:
        if kernel > 3 and kernel > min(h, w):
            raise ConfigError(f"{key}={kernel} is larger than the {h}x{w} maps it would slide over; "
                              f"use a kernel of at most {max(3, min(h, w))}.")
        h, w = ((h - 1) // stride + 1, (w - 1) // stride + 1)  # "same" padding, stride 1 or 2
        if pool:
            h, w = h // 2, w // 2
            if min(h, w) < 1:
                raise ConfigError(f"model.stages: {len(stage_ends)} stages with 2x2 max-pooling between "
                                  f"them shrink the {input_size} input to nothing; use fewer stages, or "
                                  "model.downsample=conv.")
