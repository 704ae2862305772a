"""Backbones (stem + layers + head) and the blocks they stack: fully connected and convolutional."""

from highwaylab.models.base import Backbone, Internals
from highwaylab.models.conv_backbone import ConvBackbone, auto_conv_gate_bias, parse_stages
from highwaylab.models.conv_blocks import (
    CONV_BLOCKS,
    ConvHighwayBlock,
    ConvPlainBlock,
    ConvResidualBlock,
)
from highwaylab.models.fc_backbone import FCBackbone, auto_gate_bias, matched_width
from highwaylab.models.fc_blocks import (
    ACTIVATIONS,
    BLOCKS,
    HighwayBlock,
    NaiveHighwayBlock,
    PlainBlock,
    ResidualBlock,
    get_activation,
)

__all__ = [
    "ACTIVATIONS", "BLOCKS", "CONV_BLOCKS", "Backbone", "ConvBackbone", "ConvHighwayBlock",
    "ConvPlainBlock", "ConvResidualBlock", "FCBackbone", "HighwayBlock", "Internals",
    "NaiveHighwayBlock", "PlainBlock", "ResidualBlock", "auto_conv_gate_bias", "auto_gate_bias",
    "get_activation", "matched_width", "parse_stages",
]
