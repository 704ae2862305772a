"""DataModules: MNIST, Fashion-MNIST, CIFAR-10 and CIFAR-100, held in memory and batched by indexing."""

from highwaylab.data.cifar import CIFARDataModule
from highwaylab.data.memory import InMemoryBatches, batch_loader, keep_batch
from highwaylab.data.mnist import MNISTDataModule, check_idx_file

__all__ = ["CIFARDataModule", "InMemoryBatches", "MNISTDataModule", "batch_loader", "check_idx_file",
           "keep_batch"]
