"""DataModules: MNIST, Fashion-MNIST, CIFAR-10 and CIFAR-100, held in memory and batched by indexing;
their files verified against the official checksums (cached) and checked for degenerate data."""

from highwaylab.data.checksums import OFFICIAL, verify_official
from highwaylab.data.cifar import CIFARDataModule
from highwaylab.data.memory import InMemoryBatches, batch_loader, keep_batch
from highwaylab.data.mnist import MNISTDataModule, check_idx_file

__all__ = ["OFFICIAL", "CIFARDataModule", "InMemoryBatches", "MNISTDataModule", "batch_loader",
           "check_idx_file", "keep_batch", "verify_official"]
