"""MNIST and Fashion-MNIST as a LightningDataModule, read with torchvision's dataset classes."""

from __future__ import annotations

import math
from pathlib import Path

import torch
from torchvision.datasets import MNIST, FashionMNIST

from highwaylab.data.memory import InMemoryBatches, InMemoryDataModule
from highwaylab.errors import ConfigError, DataError

DATASETS: dict[str, type[MNIST]] = {"mnist": MNIST, "fashion_mnist": FashionMNIST}
RAW_FILES = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
             "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")


class MNISTDataModule(InMemoryDataModule):
    """MNIST or Fashion-MNIST held in memory as normalised ``(N, 1, 28, 28)`` float tensors.

    The 60,000 official training images are split, with ``split_seed``, into ``60,000 - val_size``
    for training and ``val_size`` for validation (55,000 / 5,000 by default); the test set is the
    official 10,000. Pixels are scaled to [0, 1], then standardised with the mean and standard
    deviation of the 60,000 training images (MNIST: 0.1307, 0.3081).

    Args:
        data_dir: the folder holding ``MNIST/raw/`` or ``FashionMNIST/raw/`` (torchvision's layout).
        dataset: ``"mnist"`` or ``"fashion_mnist"``.
        batch_size: examples per batch (per device under DDP).
        val_size: validation images taken from the official training set.
        split_seed: seed of the train/validation split (independent of the run's ``seed``).
        download: let torchvision download missing files (needs internet access).
        num_workers, pin_memory: DataLoader options.

    Raises:
        ConfigError: unknown dataset, non-positive batch size, or a val_size out of range.
        DataError: a missing, truncated or corrupt data file (the message names it and the fix).
    """

    input_shape = (1, 28, 28)
    num_classes = 10

    def __init__(self, data_dir: str, dataset: str = "mnist", batch_size: int = 128,
                 val_size: int = 5000, split_seed: int = 0, download: bool = False,
                 num_workers: int = 0, pin_memory: bool = False) -> None:
        super().__init__()
        if dataset not in DATASETS:
            raise ConfigError(f"data.dataset={dataset!r} is unknown; choose one of: {', '.join(DATASETS)}.")
        self.check_loader_args(batch_size, val_size, split_seed, num_workers, 60_000)
        self.save_hyperparameters(logger=False)

    @property
    def in_features(self) -> int:
        return math.prod(self.input_shape)

    @property
    def raw_folder(self) -> Path:
        return Path(self.hparams.data_dir) / DATASETS[self.hparams.dataset].__name__ / "raw"

    def prepare_data(self) -> None:
        """Download the raw files, only if ``download`` is set and they are not there yet."""
        if not self.hparams.download or all((self.raw_folder / f).exists() for f in RAW_FILES):
            return
        cls = DATASETS[self.hparams.dataset]
        try:
            for train in (True, False):
                cls(self.hparams.data_dir, train=train, download=True)
        except Exception as err:  # torchvision raises RuntimeError / URLError / OSError
            raise DataError(f"Downloading {cls.__name__} into {self.raw_folder} failed ({err}). "
                            f"{self._fix_hint()}") from err

    def setup(self, stage: str | None = None) -> None:
        """Load the files once into memory and split; calling it again does nothing."""
        if self.data_train is not None:
            return
        for name in RAW_FILES:  # torchvision needs all four, whichever split it reads
            check_idx_file(self.raw_folder / name, self._fix_hint())
        x_fit, y_fit = self._load(train=True)  # (60000, 1, 28, 28) uint8, (60000,)
        x_test, y_test = self._load(train=False)  # (10000, 1, 28, 28), (10000,)
        scaled = x_fit.float().div_(255)
        mean, std = scaled.mean(), scaled.std()

        def normalise(x: torch.Tensor) -> torch.Tensor:
            return (x.float() / 255 - mean) / std

        train_idx, val_idx = self.split(len(y_fit), self.raw_folder)
        x_fit = normalise(x_fit)
        self.data_train = InMemoryBatches(x_fit[train_idx], y_fit[train_idx])
        self.data_val = InMemoryBatches(x_fit[val_idx], y_fit[val_idx])
        self.data_test = InMemoryBatches(normalise(x_test), y_test)

    def _load(self, train: bool) -> tuple[torch.Tensor, torch.Tensor]:
        cls = DATASETS[self.hparams.dataset]
        try:
            ds = cls(self.hparams.data_dir, train=train, download=False)
        except Exception as err:
            raise DataError(f"torchvision could not read {cls.__name__} from {self.raw_folder} "
                            f"({err}). {self._fix_hint()}") from err
        prefix = "train" if train else "t10k"
        images, labels = (self.raw_folder / f"{prefix}-{kind}" for kind in ("images-idx3-ubyte",
                                                                           "labels-idx1-ubyte"))
        if len(ds.data) != len(ds.targets):
            raise DataError(f"Data files do not match: {images} holds {len(ds.data)} images but "
                            f"{labels} holds {len(ds.targets)} labels. Copy both files again from "
                            f"the same source. {self._fix_hint()}")
        if len(ds.targets) and not 0 <= int(ds.targets.min()) <= int(ds.targets.max()) < self.num_classes:
            raise DataError(f"Data file corrupt: {labels} has labels outside 0 .. {self.num_classes - 1} "
                            f"(min {int(ds.targets.min())}, max {int(ds.targets.max())}). Copy it again.")
        return ds.data.unsqueeze(1), ds.targets  # (N, 28, 28) -> (N, 1, 28, 28)

    def _fix_hint(self) -> str:
        name = DATASETS[self.hparams.dataset].__name__
        return (f"Expected the uncompressed IDX files {', '.join(RAW_FILES)} in {self.raw_folder}. "
                f"Fix: copy them there, or point data.data_dir= (or the environment variable "
                f"HIGHWAYLAB_DATA_DIR) at the folder that holds {name}/raw/, "
                f"or set data.download=true on a machine with internet access.")


def check_idx_file(path: Path, hint: str = "") -> None:
    """Check that an uncompressed uint8 IDX file exists and is as long as its header says.

    IDX layout (LeCun's MNIST page): 2 zero bytes, a type byte (0x08 = uint8), the number of
    dimensions n, n big-endian int32 sizes, then the data.

    Raises:
        DataError: the file is missing, has a bad header, or is truncated / too long.
    """
    if not path.is_file():
        raise DataError(f"Data file missing: {path}. {hint}")
    size = path.stat().st_size
    with path.open("rb") as f:
        head = f.read(4)
        ndim = head[3] if len(head) == 4 else 0
        dims_raw = f.read(4 * ndim)
    if len(head) < 4 or head[:3] != b"\x00\x00\x08" or not 1 <= ndim <= 3 or len(dims_raw) < 4 * ndim:
        raise DataError(f"Data file corrupt: {path} does not start with a uint8 IDX header. "
                        f"Delete it and copy or download it again. {hint}")
    dims = [int.from_bytes(dims_raw[4 * i: 4 * i + 4], "big") for i in range(ndim)]
    expected = 4 + 4 * ndim + math.prod(dims)
    if size != expected:
        raise DataError(f"Data file truncated or corrupt: {path} has {size} bytes, but its header "
                        f"({' x '.join(map(str, dims))}) needs {expected}. "
                        f"Delete it and copy or download it again. {hint}")
