"""The layers that a convolutional backbone stacks: plain conv layer, conv highway layer, residual block.

Every block maps ``(N, C, H, W) -> (N, C, H', W')`` and shares the constructor
``(channels, kernel_size, act_layer, *, batch_norm, pool)``; a plain layer may also change the
channel count (``in_channels``) and stride. Convolutions use "same" padding (``kernel_size // 2``,
odd kernels), so only a stride or the optional 2 x 2 max-pool at the end of a layer (``pool=True``:
the end of a stage) changes H and W. Equations (../shared/science.md):

- plain conv layer       y = act(BN(W_H * x + b_H))                               [HN eq. 1]
- conv highway layer     y = H * T + x * (1 - T) = lerp(x, H, T),                  [HN eq. 3; TVDN sec. 2]
                         H = act(BN(W_H * x + b_H)), T = sigmoid(W_T * x + b_T):
                         one gate per channel and position, H and T from one convolution
- residual block [RN]    y = act(x + BN(W_2 * act(BN(W_1 * x))))                   (post-activation)
- residual block [PA]    y = x + W_2 * act(BN(W_1 * act(BN(x))))                   (pre-activation)

``*`` is convolution. Each block offers ``forward_internals(x)`` (output and transform gate, or
``None``) and ``carry(x)``: its output with the transform path switched off (T = 0, or F = 0), used
for lesioning [TVDN sec. 4.1]; ``None`` when that is undefined (a plain layer changing the shape).
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from highwaylab.models.base import FusedGate
from highwaylab.models.spec import check_block_options, check_kernel


def _norm(batch_norm: bool, channels: int) -> nn.Module:
    return nn.BatchNorm2d(channels) if batch_norm else nn.Identity()


class ConvBlock(nn.Module):
    """Base of the conv blocks: ``pool`` (2 x 2 max-pool, or identity) after the layer's output."""

    has_gate = False

    def __init__(self, pool: bool) -> None:
        super().__init__()
        self.pool = nn.MaxPool2d(2) if pool else nn.Identity()  # (N, C, H, W) -> (N, C, H/2, W/2)

    def forward_internals(self, x: Tensor) -> tuple[Tensor, Tensor | None]:
        """Block output ``(N, C, H', W')`` and transform gate ``(N, C, H, W)``, or ``None``."""
        return self(x), None

    def carry(self, x: Tensor) -> Tensor | None:
        """The output with the transform path switched off: the input, pooled like the output."""
        return self.pool(x)

    def init_weights(self) -> None:
        """The block's own initialisation (gate bias, zero-init), after the backbone's weight init."""


class ConvPlainBlock(ConvBlock):
    """Plain conv layer ``y = act(BN(W * x + b))`` [HN eq. 1]; ``(N, C_in, H, W) -> (N, C, H/s, W/s)``.

    Args:
        channels: C, output channels.
        kernel_size: odd kernel size k ("same" padding k // 2).
        act_layer: activation class.
        batch_norm: batch norm before the activation.
        pool: 2 x 2 max-pool after the activation.
        in_channels: input channels (default C); a stem or a transition between stages changes it.
        stride: 2 for a strided downsampling layer.
    """

    def __init__(self, channels: int, kernel_size: int = 3, act_layer: type[nn.Module] = nn.ReLU, *,
                 batch_norm: bool = False, pool: bool = False, in_channels: int | None = None,
                 stride: int = 1) -> None:
        super().__init__(pool)
        check_kernel(kernel_size)
        in_channels = channels if in_channels is None else in_channels
        self.shape_preserving = in_channels == channels and stride == 1
        self.conv = nn.Conv2d(in_channels, channels, kernel_size, stride, kernel_size // 2,
                              bias=not batch_norm)  # BN's shift replaces the bias
        self.norm = _norm(batch_norm, channels)
        self.act = act_layer()

    def forward(self, x: Tensor) -> Tensor:
        return self.pool(self.act(self.norm(self.conv(x))))

    def carry(self, x: Tensor) -> Tensor | None:
        return self.pool(x) if self.shape_preserving else None


class ConvHighwayBlock(FusedGate, ConvBlock):
    """Conv highway layer [HN eq. 3; TVDN sec. 2]; ``(N, C, H, W) -> (N, C, H, W)`` (halved by ``pool``).

    ``proj`` is one ``Conv2d(C, 2C, k)``: output channels ``[:C]`` are W_H, ``[C:]`` are W_T, so
    H and T come from one convolution. The gate has one value per channel and position. With
    ``batch_norm`` the H half is normalised before its activation; T is not (BN's shift would
    cancel b_T).

    Args:
        channels: C, blocks (channels) of the layer.
        kernel_size: odd kernel size k of both H and T.
        act_layer: activation class of H (ReLU in the papers' conv nets).
        batch_norm: batch norm on H's pre-activation.
        pool: 2 x 2 max-pool after the layer.
        gate_bias: b_T, the initial transform-gate bias (negative: start near carry).
    """

    has_gate = True

    def __init__(self, channels: int, kernel_size: int = 3, act_layer: type[nn.Module] = nn.ReLU, *,
                 batch_norm: bool = False, pool: bool = False, gate_bias: float = -1.0) -> None:
        super().__init__(pool)
        check_kernel(kernel_size)
        self.channels = channels
        self.gate_bias = float(gate_bias)
        self.proj = nn.Conv2d(channels, 2 * channels, kernel_size, padding=kernel_size // 2)
        self.norm = _norm(batch_norm, channels)
        self.act = act_layer()
        self.init_weights()

    def _gate_and_output(self, x: Tensor) -> tuple[Tensor, Tensor]:
        h, t = self.proj(x).chunk(2, dim=1)  # (N, 2C, H, W) -> H pre-act (N, C, H, W), T logits (N, C, H, W)
        t = torch.sigmoid(t)  # T(x) = sigmoid(W_T * x + b_T)
        y = torch.lerp(x, self.act(self.norm(h)), t)  # y = x + T (H - x) = H T + x (1 - T)   [HN eq. 3]
        return self.pool(y), t

    def forward(self, x: Tensor) -> Tensor:
        return self._gate_and_output(x)[0]

    def forward_internals(self, x: Tensor) -> tuple[Tensor, Tensor]:
        return self._gate_and_output(x)


class ConvResidualBlock(ConvBlock):
    """Residual block of two k x k convolutions; ``(N, C, H, W) -> (N, C, H, W)`` (halved by ``pool``).

    ``form="post"`` [RN sec. 3, Fig. 2]: ``y = act(x + BN(W_2 * act(BN(W_1 * x))))``;
    ``form="pre"`` [PA sec. 3, Fig. 1b]: ``y = x + W_2 * act(BN(W_1 * act(BN(x))))``.
    Its two C x C convolutions hold as many weights as one highway layer's W_H and W_T.

    Args:
        channels, kernel_size, act_layer, batch_norm, pool: as for :class:`ConvHighwayBlock`.
        form: ``"post"`` or ``"pre"`` activation.
        zero_init: zero the last layer of the branch F (its BN scale for ``post`` with batch norm,
            else W_2 and b_2), so that the block starts as the identity [PA sec. 4; Goyal et al. 2017].

    Raises:
        ConfigError: unknown ``form``.
    """

    def __init__(self, channels: int, kernel_size: int = 3, act_layer: type[nn.Module] = nn.ReLU, *,
                 batch_norm: bool = False, pool: bool = False, form: str = "pre",
                 zero_init: bool = False) -> None:
        super().__init__(pool)
        check_kernel(kernel_size)
        check_block_options(form=form, zero_init=zero_init)
        self.form, self.zero_init = form, zero_init
        pad = kernel_size // 2
        self.conv1 = nn.Conv2d(channels, channels, kernel_size, padding=pad)
        self.conv2 = nn.Conv2d(channels, channels, kernel_size, padding=pad)
        # post: BN after each conv; pre: BN before each activation (on the block input, then on conv1)
        self.norm1, self.norm2 = _norm(batch_norm, channels), _norm(batch_norm, channels)
        self.act1, self.act2 = act_layer(), act_layer()
        self.init_weights()

    def init_weights(self) -> None:
        if self.zero_init:
            self.zero_init_last()

    def zero_init_last(self) -> None:
        """Make the residual branch F output 0 at initialisation, so that the block starts at y = x."""
        last = self.norm2 if self.form == "post" and isinstance(self.norm2, nn.BatchNorm2d) else self.conv2
        nn.init.zeros_(last.weight)
        nn.init.zeros_(last.bias)

    def forward(self, x: Tensor) -> Tensor:
        if self.form == "post":
            f = self.norm2(self.conv2(self.act1(self.norm1(self.conv1(x)))))  # F(x)
            return self.pool(self.act2(x + f))  # y = act(x + F(x))   [RN eq. 1]
        f = self.conv2(self.act2(self.norm2(self.conv1(self.act1(self.norm1(x))))))  # F(x), pre-activated
        return self.pool(x + f)  # y = x + F(x)   [PA eq. 1]

    def carry(self, x: Tensor) -> Tensor:
        """F = 0: ``act(x)`` (post) or ``x`` (pre), pooled like the output."""
        return self.pool(self.act2(x) if self.form == "post" else x)


CONV_BLOCKS: dict[str, type[ConvBlock]] = {
    "plain": ConvPlainBlock,
    "residual": ConvResidualBlock,
    "highway": ConvHighwayBlock,
}
