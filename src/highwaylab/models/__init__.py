"""Backbones (stem + layers + head) and the blocks they stack: fully connected and convolutional.

The names below are imported on first use (PEP 562), so that ``highwaylab.models.spec``, the
torch-free checks of a model's config, loads without torch.
"""

from importlib import import_module
from typing import Any

_FROM = {
    "highwaylab.models.base": ("Backbone", "Internals"),
    "highwaylab.models.conv_backbone": ("ConvBackbone", "auto_conv_gate_bias"),
    "highwaylab.models.conv_blocks": ("CONV_BLOCKS", "ConvHighwayBlock", "ConvPlainBlock",
                                      "ConvResidualBlock"),
    "highwaylab.models.fc_backbone": ("FCBackbone", "auto_gate_bias", "matched_width"),
    "highwaylab.models.fc_blocks": ("ACTIVATIONS", "BLOCKS", "HighwayBlock", "NaiveHighwayBlock",
                                    "PlainBlock", "ResidualBlock", "get_activation"),
    "highwaylab.models.spec": ("parse_stages",),
}
_MODULE_OF = {name: module for module, names in _FROM.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'highwaylab.models' has no attribute {name!r}")
    return getattr(import_module(_MODULE_OF[name]), name)
