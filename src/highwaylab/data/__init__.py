"""DataModules: MNIST, Fashion-MNIST, CIFAR-10 and CIFAR-100, held in memory and batched by indexing;
their files verified against the official checksums (cached) and checked for degenerate data.

The names below are imported on first use (PEP 562), so that the torch-free modules
(``highwaylab.data.files``, ``highwaylab.data.checksums``) load without torch.
"""

from importlib import import_module
from typing import Any

_FROM = {
    "highwaylab.data.checksums": ("OFFICIAL", "verify_official"),
    "highwaylab.data.cifar": ("CIFARDataModule",),
    "highwaylab.data.memory": ("InMemoryBatches", "batch_loader", "keep_batch"),
    "highwaylab.data.mnist": ("MNISTDataModule", "check_idx_file"),
}
_MODULE_OF = {name: module for module, names in _FROM.items() for name in names}
__all__ = sorted(_MODULE_OF)


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'highwaylab.data' has no attribute {name!r}")
    return getattr(import_module(_MODULE_OF[name]), name)
