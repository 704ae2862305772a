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
from highwaylab.models.fc_blocks import get_activation
from highwaylab.models.spec import check_conv, conv_plan, resolve_gate_bias


def auto_conv_gate_bias(depth: int) -> float:
    """``b_T = -max(1, round(depth / 10))``: -1, -2, -3 for conv nets of about 10, 20 and 30 layers,
    as [TVDN sec. 2] suggests."""
    return -float(max(1, round(depth / 10)))


class ConvBackbone(Backbone):
    """Stem + stages of conv layers + GAP head; ``(N, C_in, H, W) -> (N, num_classes)`` logits.

    Args:
        block: ``"highway"``, ``"residual"`` or ``"plain"``: the type of the stages' blocks.
        stages: list of ``{channels, layers, kernel_size}`` (see :func:`highwaylab.models.spec.parse_stages`).
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

    unit = "channel"  # the maps are layer x channel, gates and outputs averaged over positions

    def __init__(self, block: str, stages: Sequence[Mapping], input_shape: Sequence[int], num_classes: int,
                 activation: str = "relu", batch_norm: bool = False, downsample: str = "maxpool",
                 stem_kernel: int = 3, transition_kernel: int = 3, gate_bias: float | str | None = None,
                 init: str = "he", **block_kwargs) -> None:
        super().__init__()
        specs = check_conv(block, stages, activation, batch_norm, downsample, stem_kernel,
                           transition_kernel, gate_bias, init, input_shape, num_classes)
        plan, stage_ends = conv_plan(block, specs, downsample, transition_kernel)
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
