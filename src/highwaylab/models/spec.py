"""What a backbone's config may hold, checked without torch: the names, types and ranges of its
arguments. The backbones call these checks when they are built, and the entry point calls them
(through :func:`check_model_config`) before torch is imported, so that ``depth=0`` is answered in
about a second, with the same message.

Depth is counted as in the paper: one plain stem layer plus ``depth - 1`` highway, residual or
plain layers [HN sec. 4; TVDN sec. 4.1]. Sizes that need the data's shape (the parameter count,
the feature maps of conv stages) are checked here too when the shape of one example is given
(:data:`highwaylab.data.files.SHAPES` before torch; the data module's when the backbone is built).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError, OptionNotTaken

# block name -> the options its layers take from model.* (keyword arguments of the block's class,
# besides the width and activation); "gate_bias" marks the blocks with a transform gate T [HN eq. 3]
FC_BLOCKS = {"plain": (), "residual": ("norm", "zero_init"), "highway": ("gate_bias",),
             "highway_naive": ("gate_bias",)}
CONV_BLOCKS = {"plain": (), "residual": ("form", "zero_init"), "highway": ("gate_bias",)}
# the values of the block options: norm (FC residual: LayerNorm or none), form (conv residual: post
# [RN] or pre-activation [PA]), zero_init (residual: the block starts at the identity)
BLOCK_OPTION_VALUES = {"norm": ("none", "layernorm"), "form": ("post", "pre"), "zero_init": (True, False)}
# weight initialisations of the Linear and conv layers (models.base.WEIGHT_INITS maps them to torch)
WEIGHT_INITS = ("default", "glorot", "he")
DOWNSAMPLES = ("maxpool", "conv")
# the element-wise activations of torch.nn, by class name; model.activation takes them in any case,
# with or without '_' ("relu", "GELU", "leaky_relu"). Left out: modules that need arguments, change
# the shape or act across features (Softmax, GLU, PReLU, Threshold, MultiheadAttention...).
ACTIVATIONS = ("ReLU", "RReLU", "Hardtanh", "ReLU6", "Sigmoid", "Hardsigmoid", "Tanh", "SiLU", "Mish",
               "Hardswish", "ELU", "CELU", "SELU", "GELU", "Hardshrink", "LeakyReLU", "LogSigmoid",
               "Softplus", "Softshrink", "Softsign", "Tanhshrink")
_BY_KEY = {name.lower(): name for name in ACTIVATIONS}
# torch.nn activations the models cannot use in every layer, and why (by lower-case name)
NOT_ELEMENTWISE = {"prelu": "has learnable weights", "threshold": "needs arguments (threshold, value)",
                   "softmax": "acts across the features", "softmin": "acts across the features",
                   "logsoftmax": "acts across the features", "softmax2d": "acts across the channels",
                   "glu": "halves the features", "multiheadattention": "is an attention layer"}


def check_positive_int(key: str, value: Any, hint: str) -> None:
    """Raises ConfigError, naming ``key``, unless ``value`` is an int >= 1 (``True`` is not). For a
    string of digits (what ``${oc.env:NAME}`` gives) the message says it is a string and how to
    decode it."""
    if isinstance(value, str) and value.strip().isdigit() and int(value) >= 1:  # the number would do
        raise ConfigError(f"{key}={value!r} is invalid: it must be a positive integer, and this is the "
                          f"string {value!r} (${{oc.env:...}} gives strings). Fix: {key}={value.strip()}, or "
                          f"decode it: '{key}=\"${{oc.decode:${{oc.env:NAME}}}}\"'")
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"{key}={value!r} is invalid: it must be a positive integer ({hint}).")


def _spelling(name: Any) -> str:
    """``name`` lower case, without '_' and a ``torch.nn.`` or ``nn.`` prefix (breaking pass 45, row 1:
    ``nn.Tanh`` was "not a torch.nn activation" while ``torch.nn.Tanh`` ran)."""
    return str(name).lower().replace("_", "").removeprefix("torch.").removeprefix("nn.")


def activation_name(name: Any) -> str:
    """The torch.nn class name of the activation ``name`` ("relu" -> "ReLU", "leaky_relu" ->
    "LeakyReLU").

    Raises:
        ConfigError: not an element-wise torch.nn activation; the message lists them.
    """
    key = _spelling(name)
    if key not in _BY_KEY:
        what = (f": that torch.nn module {NOT_ELEMENTWISE[key]}, so it cannot be every layer's activation"
                if key in NOT_ELEMENTWISE else " is not a torch.nn activation")
        raise ConfigError(f"model.activation={name!r}{what}. Choose one of the parameter-free element-wise "
                          f"ones: {', '.join(sorted(_BY_KEY))} (e.g. model.activation=tanh).")
    return _BY_KEY[key]


def activation_key(name: Any) -> str:
    """The one spelling of the activation ``name`` for run names, tags and the comparison of a
    resumed run's settings: lower case, without '_', ``torch.nn.`` or ``nn.`` (``Relu``, ``ReLU`` and
    ``relu`` all give ``relu``; ``leaky_relu``: ``leakyrelu``), as :func:`activation_name` reads
    it. A name that is no activation is returned as given (its check names it)."""
    key = _spelling(name)
    return key if key in _BY_KEY else str(name)


def resolve_gate_bias(gate_bias: float | str | None, auto: float) -> float:
    """``model.gate_bias`` (b_T) as a finite float; ``None`` or ``"auto"`` give ``auto`` (the
    backbone's depth-aware default).

    Raises:
        ConfigError: not a number (a boolean neither), or not finite.
    """
    if gate_bias is None or gate_bias == "auto":
        return auto
    if isinstance(gate_bias, bool):  # float(True) is 1.0: a gate bias of +1, in silence
        raise ConfigError(f"model.gate_bias={str(gate_bias).lower()} is a boolean, not a number: give a "
                          f"number such as -2, or 'auto' for the depth-aware default.")
    try:
        value = float(gate_bias)
    except (TypeError, ValueError):
        raise ConfigError(f"model.gate_bias={gate_bias!r} is invalid: give a number such as -2, "
                          "or 'auto' for the depth-aware default.") from None
    if not math.isfinite(value):
        raise ConfigError(f"model.gate_bias={gate_bias!r} must be finite (e.g. -2 or auto).")
    return value


def check_gate_bias(block: str, gate_bias: Any, options: Sequence[str]) -> None:
    """Raises ConfigError for a gate bias on a block without gates (``gate_bias`` not among its
    ``options``), or one that is not a number."""
    if "gate_bias" in options:
        resolve_gate_bias(gate_bias, 0.0)
    elif gate_bias is not None:
        raise OptionNotTaken("model.gate_bias", f"model.gate_bias is for highway models, not {block!r}: "
                             f"remove it.")


MAX_PARAMS = 500_000_000  # 2 GB of float32 weights; with gradients and momentum 6 GB
# arguments of the backbones that train() passes from the data module, not from model.*
DATA_ARGS = ("input_shape", "num_classes")


def check_fc(block: Any, depth: Any, width: Any, activation: Any = "relu", match_params: Any = None,
             gate_bias: Any = None, init: Any = "default", input_shape: Sequence[int] | int | None = None,
             num_classes: int | None = None, depth_key: str = "depth", width_key: str = "width") -> None:
    """Check the arguments of :class:`highwaylab.models.FCBackbone` (see there); with ``input_shape``
    and ``num_classes``, also that the network is not too large to build.

    Raises:
        ConfigError: a non-positive depth or width (named by ``depth_key`` / ``width_key``), an
            unknown block, activation, ``init`` or ``match_params``, a gate bias that is not a
            number or is set for a block without gates, or more than :data:`MAX_PARAMS` parameters.
    """
    check_positive_int(depth_key, depth, "the stem plus depth - 1 layers; e.g. depth=10")
    check_positive_int(width_key, width, "units per layer; e.g. width=50")
    if block not in FC_BLOCKS:
        raise ConfigError(f"model.block={_typed(block)} is unknown; choose one of: {', '.join(FC_BLOCKS)}.")
    if init not in WEIGHT_INITS:
        raise ConfigError(f"model.init={_typed(init)} is unknown; choose one of: {', '.join(WEIGHT_INITS)} "
                          f"({_meant_init(init)})")
    if match_params is not None and match_params not in FC_BLOCKS:
        raise ConfigError(f"model.match_params={match_params!r} is unknown; "
                          f"choose null or one of: {', '.join(FC_BLOCKS)}.")
    check_gate_bias(block, gate_bias, FC_BLOCKS[block])
    activation_name(activation)
    if input_shape is not None and num_classes is not None:
        in_features = input_shape if isinstance(input_shape, int) else math.prod(input_shape)
        # a highway layer holds two D x D matrices; a plain or residual one, widened by match_params,
        # about as many parameters: at most 2 (D^2 + D) per layer either way
        estimate = 2 * (depth - 1) * (width * width + width) + (in_features + num_classes + 1) * width
        if estimate > MAX_PARAMS:
            raise ConfigError(f"{depth_key}={depth} and {width_key}={width} would need about {estimate:.2g} "
                              f"parameters (more than {MAX_PARAMS:.0e}); reduce depth or width.")


def _typed(value: Any) -> str:
    """``value`` as the command line wrote it: ``null`` for None, a string quoted (``'relu6'``)."""
    return "null" if value is None else repr(value)


def _meant_init(init: Any) -> str:
    """The fix for an unknown ``model.init``: torch's names of the two schemes (``xavier_uniform``,
    ``kaiming_normal``) are named as ours (pass 70, rows 16 and 57: before, no override to copy, and
    ``xavier_uniform`` unrecognised); else an example."""
    word = str(init).lower()
    if init is None:
        return "for each layer's own PyTorch initialisation, Fix: model.init=default"
    if "xavier" in word or "glorot" in word:
        return "torch's xavier_uniform_ is glorot here. Fix: model.init=glorot"
    if "kaiming" in word or word.startswith("he"):
        return "torch's kaiming_normal_ (for ReLU) is he here. Fix: model.init=he"
    return "e.g. model.init=glorot; default: each layer's own PyTorch initialisation"


def check_block_options(**options: Any) -> None:
    """Raises ConfigError, naming ``model.<option>``, for a block option outside
    :data:`BLOCK_OPTION_VALUES` (``model.norm=batchnorm``, ``model.zero_init=none``)."""
    for name, value in options.items():
        allowed = BLOCK_OPTION_VALUES[name]
        if not any(value is a if isinstance(a, bool) else value == a for a in allowed):
            raise ConfigError(f"model.{name}={value!r} is unknown; choose one of: "
                              f"{', '.join(str(a).lower() for a in allowed)}.")


def check_kernel(kernel_size: Any, key: str = "model.stages[...].kernel_size") -> None:
    """Raises ConfigError unless ``kernel_size`` is an odd positive int ('same' padding)."""
    if isinstance(kernel_size, bool) or not isinstance(kernel_size, int) or kernel_size < 1 \
            or kernel_size % 2 == 0:
        raise ConfigError(f"{key}={kernel_size!r} must be an odd positive integer (1, 3, 5, ...) "
                          "so that 'same' padding keeps the size.")


@dataclass(frozen=True)
class Stage:
    """One stage: ``layers`` blocks of ``channels`` channels; ``kernels`` is cycled over the layers."""

    channels: int
    layers: int
    kernels: tuple[int, ...]

    def kernel(self, j: int) -> int:
        """Kernel size of the stage's j-th block (0-based)."""
        return self.kernels[j % len(self.kernels)]


def parse_stages(stages: Sequence[Mapping]) -> list[Stage]:
    """Read ``[{channels: 16, layers: 4, kernel_size: 3}, ...]`` from the config.

    Raises:
        ConfigError: an empty list, a missing or unknown key, or a non-positive value (``layers``
            may be 0 only in a net of one stage: the stem alone); the message names the stage
            (``model.stages[i]``).
    """
    if isinstance(stages, (str, bytes)) or not isinstance(stages, Sequence) or not len(stages):
        raise ConfigError("model.stages must be a non-empty list of {channels, layers, kernel_size}.")
    parsed = []
    for i, stage in enumerate(stages):
        key = f"model.stages[{i}]"
        example = "e.g. {channels: 16, layers: 4, kernel_size: 3}"
        if not isinstance(stage, Mapping):
            raise ConfigError(f"{key}={stage!r} must be a mapping with channels, layers and optional "
                              f"kernel_size, {example}.")
        unknown = sorted(set(stage) - {"channels", "layers", "kernel_size"})
        missing = [k for k in ("channels", "layers") if k not in stage]
        problems = ([f"unknown key {', '.join(unknown)}"] if unknown else []) + \
            ([f"missing {', '.join(missing)}"] if missing else [])
        joined = next(((k, v) for k, v in stage.items() if isinstance(v, str) and re.search(r"\s\w+\s*:", v)),
                      None)  # {channels:4 layers:1}: a comma missing, read as channels='4 layers:1'
        if problems and joined is not None:  # (pass 51, row 62: before, only "missing layers")
            fixed = re.sub(r"\s+(\w+\s*:)", r",\1", f"{joined[0]}:{joined[1]}")
            raise ConfigError(f"{key}.{joined[0]}={joined[1]!r}: a comma is missing between two settings of "
                              f"the stage, so {joined[0]} took the rest as its value. Fix: write the stage "
                              f"as {{{fixed}}}")
        if problems:
            raise ConfigError(f"{key}: {'; '.join(problems)}. A stage has channels, layers and optional "
                              f"kernel_size, {example}.")
        channels, layers = stage["channels"], stage["layers"]
        kernels = stage.get("kernel_size", 3)
        kernels = tuple(kernels) if isinstance(kernels, Sequence) and not isinstance(kernels, str) \
            else (kernels,)
        for name, value, low in (("channels", channels, 1), ("layers", layers, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ConfigError(f"{key}.{name}={value!r} must be an integer >= {low}.")
        if not kernels or any(isinstance(k, bool) or not isinstance(k, int) or k < 1 or k % 2 == 0
                              for k in kernels):
            raise ConfigError(f"{key}.kernel_size={stage.get('kernel_size')!r} must be an odd positive "
                              "integer or a list of them, e.g. 3 or [3, 1].")
        parsed.append(Stage(channels, layers, kernels))
    empty = next((i for i, stage in enumerate(parsed) if stage.layers == 0), None)
    if empty is not None and len(parsed) > 1:  # one stage of 0 layers: the stem alone, as depth=1
        # pass 70, row 5: before, "to end the net at 16 channels" for a middle stage, and no override
        kept = ",".join(f"{{channels:{s.channels},layers:{s.layers},kernel_size:"
                        f"{s.kernels[0] if len(s.kernels) == 1 else list(s.kernels)}}}".replace(" ", "")
                        for j, s in enumerate(parsed) if j != empty)
        remove = f"'model.stages=[{kept}]'"
        fix = (f"to end the net at {parsed[empty - 1].channels} channels, remove the stage: {remove}"
               if empty == len(parsed) - 1 else
               f"give it layers (model.stages.{empty}.layers=1), or remove it: {remove}")
        alone = "a plain transition" if empty else "the stem"
        raise ConfigError(f"model.stages[{empty}].layers=0: a stage of a net of {len(parsed)} stages needs "
                          f"at least one layer (without one it is only {alone} to "
                          f"{parsed[empty].channels} channels). Fix: {fix}.")
    return parsed


def check_conv(block: Any, stages: Any, activation: Any = "relu", batch_norm: Any = False,
               downsample: Any = "maxpool", stem_kernel: Any = 3, transition_kernel: Any = 3,
               gate_bias: Any = None, init: Any = "he", input_shape: Sequence[int] | None = None,
               num_classes: int | None = None) -> list[Stage]:
    """Check the arguments of :class:`highwaylab.models.ConvBackbone` (see there) and return the
    parsed stages; with ``input_shape`` ``(C, H, W)``, also the network's size and the feature maps
    through its layers (:func:`check_conv_geometry`). ``num_classes`` is not needed for that.

    Raises:
        ConfigError: an unknown block, downsampling, ``init`` or activation; a ``batch_norm`` that is
            not a boolean; an even or non-positive kernel; bad stages (:func:`parse_stages`); a gate
            bias that is not a number or is set for a block without gates; what
            :func:`check_conv_geometry` raises.
    """
    if block not in CONV_BLOCKS:
        raise ConfigError(f"model.block={block!r} is unknown for conv backbones; choose one of: "
                          f"{', '.join(CONV_BLOCKS)}.")
    if downsample not in DOWNSAMPLES:
        raise ConfigError(f"model.downsample={downsample!r} is unknown; choose maxpool or conv.")
    if init not in WEIGHT_INITS:
        raise ConfigError(f"model.init={init!r} is unknown; choose one of: {', '.join(WEIGHT_INITS)}.")
    if not isinstance(batch_norm, bool):
        raise ConfigError(f"model.batch_norm={batch_norm!r} must be true or false.")
    for key, kernel in (("model.stem_kernel", stem_kernel), ("model.transition_kernel", transition_kernel)):
        check_kernel(kernel, key)
    specs = parse_stages(stages)
    check_gate_bias(block, gate_bias, CONV_BLOCKS[block])
    activation_name(activation)
    if input_shape is not None:
        check_conv_geometry(block, specs, tuple(input_shape), downsample, stem_kernel, transition_kernel)
    return specs


def conv_plan(block: str, specs: list[Stage], downsample: str, transition_kernel: int
              ) -> tuple[list[tuple[str, int, int, dict]], list[int]]:
    """The layers of a conv backbone after the stem as ``(kind, channels, kernel, plain-layer
    options)``, in order, and the index of each stage's last layer in that list. A stage i > 0
    starts with a plain transition layer when the channel count changes, or always (stride 2) with
    ``downsample="conv"``."""
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


def conv_depth(stages: Sequence[Mapping], downsample: str = "maxpool") -> int:
    """The depth of the conv backbone that ``stages`` build: stem + transitions + blocks (what
    :class:`highwaylab.models.ConvBackbone` calls ``depth``), e.g. 12 for ``model=conv_highway``'s
    three stages of 3.

    Raises:
        ConfigError: bad stages (see :func:`parse_stages`).
    """
    return 1 + len(conv_plan("plain", parse_stages(stages), downsample, 3)[0])


def check_conv_geometry(block: str, specs: list[Stage], input_shape: tuple[int, ...], downsample: str,
                        stem_kernel: int, transition_kernel: int) -> None:
    """Refuse, before anything is built, a conv net that the input ``(C, H, W)`` cannot hold: more
    than :data:`MAX_PARAMS` weights (``channels: 100000``), a 2 x 2 max-pool that would leave no
    pixel, and a kernel larger than 3 x 3 that is larger than its map (a slow net of mostly padding).
    The feature-map size is followed through the layers ("same" padding, stride 1 or 2).

    Raises:
        ConfigError: data that are not images, or naming ``model.stages``, ``model.stem_kernel``,
            ``model.transition_kernel`` or ``model.stages[i].kernel_size``.
    """
    if len(input_shape) != 3:
        raise ConfigError(f"conv backbones need images (C, H, W); the data gives {input_shape}. Fix: a "
                          f"fully connected model (model=highway) for these data")
    plan, ends = conv_plan(block, specs, downsample, transition_kernel)
    estimate = stem_kernel ** 2 * input_shape[0] * specs[0].channels  # weights; highway/residual: 2 convs
    for kind, c, k, extra in plan:
        estimate += (1 if kind == "plain" else 2) * k * k * c * extra.get("in_channels", c)
    if estimate > MAX_PARAMS:
        raise ConfigError(f"model.stages would need about {estimate:.2g} parameters (more than "
                          f"{MAX_PARAMS:.0e}); reduce channels or layers.")
    h, w = input_shape[1:]
    pooled = set(ends[:-1]) if downsample == "maxpool" else set()  # 2 x 2 max-pool after these layers
    layers = [("model.stem_kernel", stem_kernel, 1, -1 in pooled)]
    for j, (_, _, kernel, extra) in enumerate(plan):
        stage = next(i for i, end in enumerate(ends) if j <= end)
        key = "model.transition_kernel" if "in_channels" in extra else f"model.stages[{stage}].kernel_size"
        layers.append((key, kernel, extra.get("stride", 1), j in pooled))
    for key, kernel, stride, pool in layers:
        if kernel > 3 and kernel > min(h, w):
            raise ConfigError(f"{key}={kernel} is larger than the {h}x{w} maps it would slide over; "
                              f"use a kernel of at most {max(3, min(h, w))}.")
        h, w = ((h - 1) // stride + 1, (w - 1) // stride + 1)
        if pool:
            h, w = h // 2, w // 2
            if min(h, w) < 1:
                raise ConfigError(f"model.stages: {len(ends)} stages with 2x2 max-pooling between them "
                                  f"shrink the {input_shape[1]}x{input_shape[2]} input to nothing; use fewer "
                                  f"stages, or model.downsample=conv.")


# the backbones whose config check_model_config knows, by their _target_: (check, blocks)
_CHECKS = {"highwaylab.models.FCBackbone": (check_fc, FC_BLOCKS),
           "highwaylab.models.fc_backbone.FCBackbone": (check_fc, FC_BLOCKS),
           "highwaylab.models.ConvBackbone": (check_conv, CONV_BLOCKS),
           "highwaylab.models.conv_backbone.ConvBackbone": (check_conv, CONV_BLOCKS)}


def check_model_config(model: DictConfig, input_shape: Sequence[int] | None = None,
                       num_classes: int | None = None) -> None:
    """Check the ``model`` group of a composed config without building anything; a backbone of
    another ``_target_`` (a user's own class) is left to its constructor. With the data's
    ``input_shape`` (one example) and ``num_classes``, the network's size and (conv) feature maps
    are checked too.

    ``depth`` and ``width`` are named as the user set them: ``depth`` when ``model.depth`` is the
    top-level ``${depth}`` (the presets), ``model.depth`` when it was set itself.

    Raises:
        ConfigError: what :func:`check_fc` or :func:`check_conv` raise, and a key that neither the
            backbone nor its block takes (the message names that key and lists the valid ones).
    """
    known = _CHECKS.get(str(model.get("_target_")))
    if known is None:
        return
    check, blocks = known
    values = OmegaConf.to_container(model, resolve=True)
    values = {k: v for k, v in values.items() if not k.startswith("_")}
    block = values.get("block")
    options = tuple(o for o in blocks.get(block, ()) if o != "gate_bias")
    takes = [k for k in check.__code__.co_varnames[:check.__code__.co_argcount]
             if not k.endswith("_key") and k not in DATA_ARGS]
    unknown = sorted(k for k in values if k not in takes and k not in options)
    if block not in blocks:  # the check names the block; keys that only some blocks take wait
        values = {k: v for k, v in values.items() if k in takes}
    elif unknown:
        own = f", and {block!r} layers take {', '.join(options)}" if options else ""
        raise OptionNotTaken(f"model.{unknown[0]}", f"model.{unknown[0]} is not an option of model.block="
                             f"{block!r}: the backbone takes {', '.join(takes)}{own}. Fix: remove or correct "
                             f"model.{unknown[0]}")
    code = check.__code__
    required = code.co_varnames[:code.co_argcount - len(check.__defaults__ or ())]
    missing = [k for k in required if k not in values and k not in DATA_ARGS]
    if missing:  # ~model.depth: before, check_fc()'s TypeError traceback
        raise ConfigError(f"model.{missing[0]} is missing (removed by ~model.{missing[0]}?): the backbone "
                          f"needs it. Fix: leave ~model.{missing[0]} out, or give model.{missing[0]}=<value>")
    if block == "highway" and "gate_bias" in values and values["gate_bias"] is None:
        # pass 43, row 1: before, null was taken as auto, without a word, by a user who may mean 0
        raise ConfigError("model.gate_bias=null: a highway layer's gate bias b_T is a number or auto, and "
                          "null would mean auto without a word. Fix: model.gate_bias=auto for the "
                          "depth-aware default, or a number (model.gate_bias=0: no bias; the paper's -1 to "
                          "-3)")
    if check is check_fc:
        for key in ("depth", "width"):
            if key in model and not OmegaConf.is_interpolation(model, key):
                values[f"{key}_key"] = f"model.{key}"
    check(**{k: v for k, v in values.items() if k not in options}, input_shape=input_shape,
          num_classes=num_classes)
    check_block_options(**{k: v for k, v in values.items() if k in options})
