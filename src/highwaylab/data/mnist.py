"""MNIST and Fashion-MNIST as a LightningDataModule, read from the IDX files in torchvision's layout."""

from __future__ import annotations

import math
import os
import shlex
from pathlib import Path

import numpy as np
import torch
from torchvision.datasets import MNIST, FashionMNIST

from highwaylab.data.checks import (
    check_data_dir,
    check_data_path,
    check_finite_std,
    check_not_constant,
    download_error,
)
from highwaylab.data.checksums import note_unverified, unreadable_error, verify_official
from highwaylab.data.files import (
    SHAPES,
    TRAIN_EXAMPLES,
    check_data_options,
    check_loader_options,
    data_files,
    data_folder,
    fix_hint,
    missing_file,
)
from highwaylab.data.memory import InMemoryBatches, InMemoryDataModule
from highwaylab.errors import ConfigError, DataError

DATASETS: dict[str, type[MNIST]] = {"mnist": MNIST, "fashion_mnist": FashionMNIST}
RAW_FILES = data_files("mnist")  # the same names for Fashion-MNIST


class MNISTDataModule(InMemoryDataModule):
    """MNIST or Fashion-MNIST held in memory as normalised ``(N, 1, 28, 28)`` float tensors.

    The 60,000 official training images are split, with ``split_seed``, into ``60,000 - val_size``
    for training and ``val_size`` for validation (55,000 / 5,000 by default); the test set is the
    official 10,000. Pixels are scaled to [0, 1], then standardised with the mean and standard
    deviation of the 60,000 training images (MNIST: 0.1307, 0.3081).

    Before use, ``setup()`` checks the four files (``checksums.py``, ``checks.py``): each is an
    uncompressed uint8 IDX file of the length its header says; with ``verify``, each is the official
    file of its name (md5, cached per folder: a Fashion-MNIST file in ``MNIST/raw/``, train and test
    files swapped, or a file of no official dataset are refused); images files hold 28 x 28 images,
    labels files one dimension, as many labels as images; the training images are not all constant
    and their labels hold at least two classes.

    Args:
        data_dir: the folder holding ``MNIST/raw/`` or ``FashionMNIST/raw/`` (torchvision's layout).
        dataset: ``"mnist"`` or ``"fashion_mnist"``.
        batch_size: examples per batch (per device under DDP).
        val_size: validation images taken from the official training set.
        split_seed: seed of the train/validation split (independent of the run's ``seed``).
        verify: check the files against the md5 sums of the official ones. Set it to false for
            subsets or your own files in the same format (their format and contents are still checked).
        download: let torchvision download missing files (needs internet access).
        num_workers, pin_memory: DataLoader options.

    Raises:
        ConfigError: unknown dataset, ``data_dir`` not set, non-positive batch size, a val_size out of
            range, or a flag that is not a bool.
        DataError: a missing, unreadable, truncated, corrupt, unofficial (with ``verify``), mixed-up or
            degenerate data file, or something else at a data file's name (a looping or dangling
            symbolic link, a folder); the message names it and the fix.
    """

    input_shape, num_classes = SHAPES["mnist"]  # (1, 28, 28), 10; Fashion-MNIST's too

    def __init__(self, data_dir: str, dataset: str = "mnist", batch_size: int = 128,
                 val_size: int = 5000, split_seed: int = 0, verify: bool = True, download: bool = False,
                 num_workers: int = 0, pin_memory: bool = False) -> None:
        super().__init__()
        if dataset not in DATASETS:
            raise ConfigError(f"data.dataset={dataset!r} is unknown; choose one of: {', '.join(DATASETS)}.")
        check_data_dir(data_dir, f"{DATASETS[dataset].__name__}/raw/")
        check_loader_options(batch_size, val_size, split_seed, num_workers, TRAIN_EXAMPLES[dataset])
        check_data_options(verify=verify, download=download, pin_memory=pin_memory)
        self.save_hyperparameters(logger=False)

    @property
    def in_features(self) -> int:
        return math.prod(self.input_shape)

    @property
    def raw_folder(self) -> Path:
        return data_folder(self.hparams.data_dir, self.hparams.dataset)

    def prepare_data(self) -> None:
        """Download the raw files, only if ``download`` is set and they are not there yet. A path
        that holds something other than the file (a looping or dangling link, a folder) is refused
        as in ``setup()``, not downloaded over."""
        if not self.hparams.download:
            return
        present = [self.raw_folder / f for f in RAW_FILES if os.path.lexists(self.raw_folder / f)]
        for path in present:
            check_data_path(path, f"Data file missing: {path}. {self._fix_hint()}")
        if len(present) == len(RAW_FILES):
            return
        cls = DATASETS[self.hparams.dataset]
        try:
            for train in (True, False):
                cls(self.hparams.data_dir, train=train, download=True)
        except Exception as err:  # torchvision raises RuntimeError / URLError / OSError
            raise download_error(cls.__name__, self.raw_folder, err, self._fix_hint(download=False)) from err

    def setup(self, stage: str | None = None) -> None:
        """Check the files (see the class docstring), load them once into memory and split; calling
        it again does nothing."""
        if self.data_train is not None:
            return
        folder = self.raw_folder
        dims = {name: check_idx_file(folder / name, self._fix_hint()) for name in RAW_FILES}
        if self.hparams.verify:
            verify_official(self.hparams.dataset, folder, RAW_FILES)
        else:
            note_unverified(folder)
        for prefix in ("train", "t10k"):
            check_pair(folder / f"{prefix}-images-idx3-ubyte", dims[f"{prefix}-images-idx3-ubyte"],
                       folder / f"{prefix}-labels-idx1-ubyte", dims[f"{prefix}-labels-idx1-ubyte"])
        x_fit, y_fit = self._load(train=True)  # (60000, 1, 28, 28) uint8, (60000,)
        x_test, y_test = self._load(train=False)  # (10000, 1, 28, 28), (10000,)
        train_idx, val_idx = self.split(len(y_fit), folder)
        self.check_split_labels(y_fit, train_idx, str(folder / "train-labels-idx1-ubyte"),
                                DATASETS[self.hparams.dataset].classes)
        check_not_constant(x_fit, str(folder / "train-images-idx3-ubyte"))
        scaled = x_fit.float().div_(255)
        mean, std = scaled.mean(), scaled.std()
        check_finite_std(std, str(folder / "train-images-idx3-ubyte"))

        def normalise(x: torch.Tensor) -> torch.Tensor:
            return (x.float() / 255 - mean) / std

        x_fit = normalise(x_fit)
        self.data_train = InMemoryBatches(x_fit[train_idx], y_fit[train_idx])
        self.data_val = InMemoryBatches(x_fit[val_idx], y_fit[val_idx])
        self.data_test = InMemoryBatches(normalise(x_test), y_test)

    def _load(self, train: bool) -> tuple[torch.Tensor, torch.Tensor]:
        """Images ``(N, 1, 28, 28)`` uint8 and labels ``(N,)`` int64 of the checked files of a split."""
        prefix = "train" if train else "t10k"
        images, labels = (self.raw_folder / f"{prefix}-{kind}" for kind in ("images-idx3-ubyte",
                                                                           "labels-idx1-ubyte"))
        x = read_idx(images).unsqueeze(1)  # (N, 28, 28) -> (N, 1, 28, 28)
        y = read_idx(labels).long()
        if len(y) and not 0 <= int(y.min()) <= int(y.max()) < self.num_classes:
            raise DataError(f"Data file corrupt: {labels} has labels outside 0 .. {self.num_classes - 1} "
                            f"(min {int(y.min())}, max {int(y.max())}). Copy it again.")
        return x, y

    def _fix_hint(self, download: bool = True) -> str:
        return fix_hint(self.hparams.dataset, self.hparams.data_dir, download)


def check_idx_file(path: Path, hint: str = "") -> list[int]:
    """Check that an uncompressed uint8 IDX file exists, can be read and is as long as its header says.

    IDX layout (LeCun's MNIST page): 2 zero bytes, a type byte (0x08 = uint8), the number of
    dimensions n, n big-endian int32 sizes, then the data.

    Returns:
        the sizes of its n dimensions, e.g. ``[60000, 28, 28]``.

    Raises:
        DataError: the file is missing (with only its ``.gz`` beside it, the fix is ``gunzip -k``),
            not a file (a looping or dangling symbolic link, a folder, a FIFO: see
            :func:`~highwaylab.data.checks.check_data_path`), unreadable (names the fix,
            ``chmod a+r``), has a bad header, or is truncated / too long.
    """
    missing = missing_file(path, hint)
    check_data_path(path, missing)
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            head = f.read(4)
            ndim = head[3] if len(head) == 4 else 0
            dims_raw = f.read(4 * ndim)
    except OSError as err:
        raise unreadable_error(path, err) from err
    if head[:2] == b"\x1f\x8b":  # pass 68, row 6: before, "does not start with a uint8 IDX header", no gunzip
        quoted = shlex.quote(str(path))
        raise DataError(f"Data file compressed: {path} holds gzip data (its first bytes are 1f 8b, gzip's "
                        f"magic number) under the name of the uncompressed IDX file, which is what is read. "
                        f"Fix: gunzip -c {quoted} > {quoted}.idx && mv {quoted}.idx {quoted}")
    if len(head) < 4 or head[:3] != b"\x00\x00\x08" or not 1 <= ndim <= 3 or len(dims_raw) < 4 * ndim:
        raise DataError(f"Data file corrupt: {path} does not start with a uint8 IDX header. "
                        f"Delete it and copy or download it again. {hint}")
    dims = [int.from_bytes(dims_raw[4 * i: 4 * i + 4], "big") for i in range(ndim)]
    expected = 4 + 4 * ndim + math.prod(dims)
    want = 3 if "images" in path.name else 1 if "labels" in path.name else None  # t10k-images-idx3-ubyte
    if size != expected and want is not None and ndim != want:  # pass 36, row 21: before, "longer than its
        kinds = {1: "labels", 3: "images"}  # header says" of an images file whose header was a labels file's
        kind = f", a {kinds[ndim]} file's" if ndim in kinds else ""
        raise DataError(f"Data file corrupt: {path} has the header of a {ndim}-dimensional IDX file "
                        f"(bytes 0-3: {head.hex(' ')}{kind}), but an {kinds[want]} file has {want} "
                        f"(00 00 08 0{want}), and its {size} bytes do not fit that header: the header is "
                        f"damaged. Delete it and copy or download it again. {hint}")
    if size != expected:  # short: cut off in a copy; long: extra bytes after the data, or another file
        what = "truncated or corrupt" if size < expected else "corrupt (longer than its header says)"
        raise DataError(f"Data file {what}: {path} has {size} bytes, but its header "
                        f"({' x '.join(map(str, dims))}) needs {expected}. "
                        f"Delete it and copy or download it again. {hint}")
    return dims


def check_pair(images: Path, image_dims: list[int], labels: Path, label_dims: list[int]) -> None:
    """Check the roles of a split's two IDX files (their headers' ``dims``, from
    :func:`check_idx_file`): images ``(N, 28, 28)``, labels ``(N,)``, with the same N.

    Raises:
        DataError: an images file that holds labels (or the reverse: image and label files swapped),
            images that are not 28 x 28, or counts that differ; names the file.
    """
    for path, dims, want in ((images, image_dims, 3), (labels, label_dims, 1)):
        if len(dims) != want:
            other = "labels (1 dimension)" if len(dims) == 1 else f"{len(dims)}-dimensional data"
            role = "images (N, 28, 28)" if want == 3 else "labels (N,)"
            shape = ", ".join(map(str, dims))
            raise DataError(f"Data file mixed up: {path} holds {other}, of shape ({shape}), "
                            f"but {path.name} must hold {role}: image and label files swapped? "
                            f"Fix: put each file at its own name.")
    if image_dims[1:] != [28, 28]:
        raise DataError(f"Data file not MNIST-sized: {images} holds images of {image_dims[1]} x "
                        f"{image_dims[2]} pixels; the models here take 28 x 28. Fix: resize them to 28 x 28.")
    if image_dims[0] != label_dims[0]:
        raise DataError(f"Data files do not match: {images} holds {image_dims[0]} images but "
                        f"{labels} holds {label_dims[0]} labels. Copy both files again from the same source.")


def read_idx(path: Path) -> torch.Tensor:
    """The uint8 contents of an IDX file that :func:`check_idx_file` passed, shaped as its header says.

    Raises:
        DataError: it cannot be read.
    """
    try:
        with path.open("rb") as f:
            ndim = f.read(4)[3]
            dims = [int.from_bytes(f.read(4), "big") for _ in range(ndim)]
            data = np.fromfile(f, dtype=np.uint8)
    except OSError as err:
        raise unreadable_error(path, err) from err
    return torch.from_numpy(data).reshape(dims)
