"""An in-memory dataset that is indexed a whole batch at a time (no per-sample work)."""

from __future__ import annotations

import torch
from torch import Tensor
from torch.utils.data import DataLoader, Dataset


class InMemoryBatches(Dataset):
    """Tensors ``x (N, ...)`` and ``y (N,)`` held in memory.

    ``DataLoader`` calls ``__getitems__`` with the indices of a whole batch, so a batch is one
    tensor indexing, and :func:`keep_batch` passes it through instead of collating samples.
    Works with any sampler, including the ``DistributedSampler`` that Lightning adds under DDP.
    """

    def __init__(self, x: Tensor, y: Tensor) -> None:
        if len(x) != len(y):
            raise ValueError(f"x has {len(x)} rows but y has {len(y)}")
        self.x, self.y = x, y

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, index: int) -> tuple[Tensor, Tensor]:
        return self.x[index], self.y[index]

    def __getitems__(self, indices: list[int]) -> tuple[Tensor, Tensor]:
        idx = torch.as_tensor(indices, dtype=torch.long)
        return self.x[idx], self.y[idx]


def keep_batch(batch: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
    """``collate_fn`` for :class:`InMemoryBatches`: the batch is already stacked."""
    return batch


def batch_loader(data: InMemoryBatches, batch_size: int, shuffle: bool, num_workers: int = 0,
                 pin_memory: bool = False) -> DataLoader:
    """A DataLoader over ``data`` that fetches each batch with one indexing."""
    return DataLoader(data, batch_size=batch_size, shuffle=shuffle, collate_fn=keep_batch,
                      num_workers=num_workers, pin_memory=pin_memory,
                      persistent_workers=num_workers > 0)
