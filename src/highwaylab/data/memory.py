"""An in-memory dataset that is indexed a whole batch at a time (no per-sample work)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import torch
from lightning import LightningDataModule
from lightning.pytorch.overrides.distributed import UnrepeatedDistributedSampler
from torch import Tensor
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from highwaylab.data.checks import check_several_classes
from highwaylab.data.files import unshared_set
from highwaylab.errors import ConfigError


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


class ResumableDataLoader(DataLoader):
    """A DataLoader whose place in the epoch goes into checkpoints, so that a run resumed mid-epoch
    continues that epoch's batch order.

    ``state_dict()`` holds the sampler's epoch of the current pass and the batches served in it;
    Lightning saves it with the fit loop (it does so for any loader with ``state_dict`` and
    ``load_state_dict``). After ``load_state_dict()``, the next pass skips the batches served
    before, if it is a pass over the same epoch; a pass over the next epoch (the checkpoint was
    written at an epoch's end) starts at its beginning. The pass starts at its first ``next()``,
    not at ``iter()``: Lightning calls ``iter()`` before it sets the sampler's epoch.
    """

    _position: tuple[int | None, int] = (None, 0)  # (sampler epoch, batches served) of the current pass
    _resume_at: tuple[int | None, int] | None = None  # from load_state_dict, for the next pass

    def __iter__(self) -> _ResumingIterator:
        return _ResumingIterator(self)

    def state_dict(self) -> dict[str, int | None]:
        epoch, served = self._position
        return {"epoch": epoch, "batches": served}

    def load_state_dict(self, state: dict[str, int | None]) -> None:
        self._resume_at = (state.get("epoch"), int(state.get("batches") or 0))

    def _sampler_epoch(self) -> int | None:
        for sampler in (self.sampler, getattr(self.batch_sampler, "sampler", None)):
            if hasattr(sampler, "epoch"):
                return int(sampler.epoch)
        return None

    def _start_pass(self):
        epoch, resume = self._sampler_epoch(), self._resume_at
        self._resume_at = None
        iterator = super().__iter__()
        skip = resume[1] if resume is not None and resume[0] == epoch else 0
        for _ in range(skip):  # in-memory batches: one indexing each
            next(iterator)
        self._position = (epoch, skip)
        return iterator


class _ResumingIterator:
    """A pass of a :class:`ResumableDataLoader`: counts the batches it serves."""

    def __init__(self, loader: ResumableDataLoader) -> None:
        self.loader = loader
        self.iterator = None

    def __iter__(self) -> _ResumingIterator:
        return self

    def __next__(self):
        if self.iterator is None:
            self.iterator = self.loader._start_pass()
        batch = next(self.iterator)
        epoch, served = self.loader._position
        self.loader._position = (epoch, served + 1)
        return batch

    def __len__(self) -> int:
        return len(self.loader)

    def __getstate__(self) -> dict:
        return {"loader": self.loader, "iterator": None}  # a DataLoader's iterator cannot be pickled


def batch_loader(data: InMemoryBatches, batch_size: int, shuffle: bool, num_workers: int = 0,
                 pin_memory: bool = False, trainer=None) -> DataLoader:
    """A DataLoader over ``data`` that fetches each batch with one indexing.

    Shuffled batches of a single-process run follow a permutation seeded by the run's seed
    (``PL_GLOBAL_SEED``, set by ``seed_everything``) and the epoch: a one-replica
    ``DistributedSampler``, whose ``set_epoch`` Lightning calls at every epoch. So a run resumed
    from a checkpoint sees the same batches as one that was never interrupted; the shuffled
    (training) loader is a :class:`ResumableDataLoader`, so a resume from a mid-epoch checkpoint
    continues that epoch where it stopped. Under DDP (``trainer.world_size > 1``) Lightning puts its
    own ``DistributedSampler`` in the shuffled loader, with the same seed, and each rank gets its shard.

    The unshuffled loaders (validation, test) count each example exactly once under DDP: rank ``r`` of
    ``W`` gets examples ``r, r + W, r + 2W, ...`` (Lightning's ``UnrepeatedDistributedSampler``,
    which Lightning keeps, as it keeps any ``DistributedSampler``), where Lightning's own sampler
    would pad the set to a multiple of ``W`` with repeated examples. The ranks may then run one
    batch more or less than each other: nothing in a validation or test step may synchronise the
    ranks (``self.log(..., sync_dist=True)``); epoch-end synchronisation (torchmetrics' compute) is
    fine. Epoch metrics then equal the single-process ones.

    Raises:
        ConfigError: under DDP, an unshuffled set smaller than the number of processes (each needs one
            example at least).
    """
    sampler = None
    world_size = 1 if trainer is None else trainer.world_size
    if shuffle and world_size == 1:
        sampler = DistributedSampler(data, num_replicas=1, rank=0, shuffle=True,
                                     seed=int(os.environ.get("PL_GLOBAL_SEED", 0)))
    elif not shuffle and world_size > 1:
        if len(data) < world_size:
            raise ConfigError(unshared_set(len(data), world_size))
        sampler = UnrepeatedDistributedSampler(data, num_replicas=world_size, rank=trainer.global_rank,
                                               shuffle=False)
    cls = ResumableDataLoader if shuffle else DataLoader
    return cls(data, batch_size=batch_size, shuffle=shuffle and sampler is None, sampler=sampler,
               collate_fn=keep_batch, num_workers=num_workers, pin_memory=pin_memory,
               persistent_workers=num_workers > 0)


class InMemoryDataModule(LightningDataModule):
    """Base of the DataModules that hold a whole dataset in memory as :class:`InMemoryBatches`.

    Subclasses fill ``data_train``, ``data_val`` and ``data_test`` in ``setup()`` (with
    :meth:`split` for the validation set) and keep ``batch_size``, ``val_size``, ``split_seed``,
    ``num_workers`` and ``pin_memory`` in ``hparams``.
    """

    data_train: InMemoryBatches | None = None
    data_val: InMemoryBatches | None = None
    data_test: InMemoryBatches | None = None

    def split(self, n: int, source: Path) -> tuple[Tensor, Tensor]:
        """Indices ``(train, validation)`` of ``n`` official training examples: ``val_size`` of them,
        drawn with ``split_seed``, for validation, the rest for training.

        Raises:
            ConfigError: ``val_size`` leaves no training example (``source`` is named).
        """
        if not self.hparams.val_size < n:
            raise ConfigError(f"data.val_size={self.hparams.val_size} leaves no training images: "  # a value
                              f"{source} holds {n}. Fix: a smaller validation set, e.g. "  # that trains (pass
                              f"data.val_size={max(1, n // 10)} (a tenth)")  # 92, row 26: n - 1 was refused)
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(self.hparams.split_seed))
        return perm[self.hparams.val_size:], perm[: self.hparams.val_size]

    def check_split_labels(self, y_fit: Tensor, train_idx: Tensor, source: str,
                           class_names: Sequence[str] | None = None) -> None:
        """Check the official training labels ``y_fit`` (``(N,)`` int64) and the training part
        ``y_fit[train_idx]`` of the split: each must hold at least two classes.

        Raises:
            DataError: the label file ``source`` holds one class (the file is at fault).
            ConfigError: the file holds several, but ``data.val_size`` leaves too few training
                examples to hold two classes (the setting is at fault).
        """
        check_several_classes(y_fit, source, class_names)
        left = torch.unique(y_fit[train_idx])
        if len(left) < 2:
            raise ConfigError(f"data.val_size={self.hparams.val_size} leaves {len(train_idx)} training "
                              f"example(s) of {len(y_fit)}, {len(left)} class(es): too few to train a "
                              f"classifier. Fix: lower data.val_size (default 5000).")

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.data_train, shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.data_val, shuffle=False)

    def test_dataloader(self) -> DataLoader:
        return self._loader(self.data_test, shuffle=False)

    def _loader(self, data: InMemoryBatches | None, shuffle: bool) -> DataLoader:
        if data is None:
            raise RuntimeError("call setup() before asking for a dataloader")
        return batch_loader(data, self.hparams.batch_size, shuffle, self.hparams.num_workers,
                            self.hparams.pin_memory, trainer=self.trainer)
