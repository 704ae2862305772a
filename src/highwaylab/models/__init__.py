"""Backbones (stem + layers + head) and the blocks they stack: fully connected and convolutional.

The names below are imported on first use (PEP 562), so that ``highwaylab.models.spec``, the
torch-free checks of a model's config, loads without torch.
"""

from highwaylab.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "highwaylab.models.base": ("Backbone", "Internals"),
    "highwaylab.models.conv_backbone": ("ConvBackbone", "auto_conv_gate_bias"),
    "highwaylab.models.conv_blocks": ("CONV_BLOCKS", "ConvHighwayBlock", "ConvPlainBlock",
                                      "ConvResidualBlock"),
    "highwaylab.models.fc_backbone": ("FCBackbone", "auto_gate_bias", "matched_width"),
    "highwaylab.models.fc_blocks": ("ACTIVATIONS", "BLOCKS", "HighwayBlock", "NaiveHighwayBlock",
                                    "PlainBlock", "ResidualBlock", "get_activation"),
    "highwaylab.models.spec": ("parse_stages",),
})
