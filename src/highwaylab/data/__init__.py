"""DataModules: MNIST, Fashion-MNIST, CIFAR-10 and CIFAR-100, held in memory and batched by indexing;
their files verified against the official checksums (cached) and checked for degenerate data.

The names below are imported on first use (PEP 562), so that the torch-free modules
(``highwaylab.data.files``, ``highwaylab.data.checksums``) load without torch.
"""

from highwaylab.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "highwaylab.data.checksums": ("OFFICIAL", "verify_official"),
    "highwaylab.data.cifar": ("CIFARDataModule",),
    "highwaylab.data.memory": ("InMemoryBatches", "batch_loader", "keep_batch"),
    "highwaylab.data.mnist": ("MNISTDataModule", "check_idx_file"),
})
