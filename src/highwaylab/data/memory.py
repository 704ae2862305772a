"""An in-memory dataset that is indexed a whole batch at a time (no per-sample work)."""

from __future__ import annotations

import os

import torch
from torch import Tensor
from torch.utils.data import DataLoader, Dataset, DistributedSampler


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
                 pin_memory: bool = False, trainer=None) -> DataLoader:
    """A DataLoader over ``data`` that fetches each batch with one indexing.

    Shuffled batches of a single-process run follow a permutation seeded by the run's seed
    (``PL_GLOBAL_SEED``, set by ``seed_everything``) and the epoch: a one-replica
    ``DistributedSampler``, whose ``set_epoch`` Lightning calls at every epoch. So a run resumed
    from a checkpoint sees the same batches as one that was never interrupted. Under DDP
    (``trainer.world_size > 1``) Lightning puts its own ``DistributedSampler`` in, with the same
    seed, and each rank gets its shard.
    """
    sampler = None
    if shuffle and (trainer is None or trainer.world_size == 1):
        sampler = DistributedSampler(data, num_replicas=1, rank=0, shuffle=True,
                                     seed=int(os.environ.get("PL_GLOBAL_SEED", 0)))
    return DataLoader(data, batch_size=batch_size, shuffle=shuffle and sampler is None, sampler=sampler,
                      collate_fn=keep_batch, num_workers=num_workers, pin_memory=pin_memory,
                      persistent_workers=num_workers > 0)
