"""Backbones (stem + layers + head) and the blocks they stack."""

from highwaylab.models.backbones import FCBackbone, Internals, auto_gate_bias, matched_width
from highwaylab.models.blocks import (
    ACTIVATIONS,
    BLOCKS,
    HighwayBlock,
    NaiveHighwayBlock,
    PlainBlock,
    ResidualBlock,
    get_activation,
)

__all__ = [
    "ACTIVATIONS", "BLOCKS", "FCBackbone", "HighwayBlock", "Internals", "NaiveHighwayBlock",
    "PlainBlock", "ResidualBlock", "auto_gate_bias", "get_activation", "matched_width",
]
