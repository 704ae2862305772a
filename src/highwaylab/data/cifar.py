"""CIFAR-10 and CIFAR-100 as a LightningDataModule: uint8 images in memory, normalised and augmented
a whole batch at a time on the training device."""

from __future__ import annotations

import math
import numbers
import os
import pickle
from pathlib import Path
from typing import Any

import kornia.augmentation as K
import numpy as np
import torch
from torch import Tensor, nn
from torchvision.datasets import CIFAR10, CIFAR100

from highwaylab.data.checks import (
    check_data_dir,
    check_data_path,
    check_finite_std,
    check_not_constant,
    check_readable,
    download_error,
)
from highwaylab.data.checksums import note_unverified, verify_official
from highwaylab.data.files import (
    SHAPES,
    TRAIN_EXAMPLES,
    check_data_options,
    check_loader_options,
    data_files,
    data_folder,
    fix_hint,
)
from highwaylab.data.memory import InMemoryBatches, InMemoryDataModule
from highwaylab.errors import ConfigError, DataError

GCN_EPS = 1e-8  # the smallest divisor of global contrast normalisation


class CIFAR10NoMD5(CIFAR10):
    """torchvision's CIFAR10 with ``None`` md5 sums, so that ``check_integrity(path, None)`` only
    checks that each file exists (the md5 sums are checked, once and cached, by
    :func:`~highwaylab.data.checksums.verify_official`)."""

    train_list = [[name, None] for name, _ in CIFAR10.train_list]
    test_list = [[name, None] for name, _ in CIFAR10.test_list]
    meta = {**CIFAR10.meta, "md5": None}


class CIFAR100NoMD5(CIFAR100):
    """torchvision's CIFAR100 with ``None`` md5 sums, so that ``check_integrity(path, None)`` only
    checks that each file exists."""

    train_list = [[name, None] for name, _ in CIFAR100.train_list]
    test_list = [[name, None] for name, _ in CIFAR100.test_list]
    meta = {**CIFAR100.meta, "md5": None}


DATASETS: dict[str, type[CIFAR10]] = {"cifar10": CIFAR10, "cifar100": CIFAR100}
DATASETS_NO_MD5: dict[str, type[CIFAR10]] = {"cifar10": CIFAR10NoMD5, "cifar100": CIFAR100NoMD5}
CHANNELS = ("red", "green", "blue")


class CIFARDataModule(InMemoryDataModule):
    """CIFAR-10 or CIFAR-100 held in memory as uint8 ``(N, 3, 32, 32)`` tensors; batches are normalised
    and augmented on the training device by :meth:`transform_batch`.

    The 50,000 official training images are split, with ``split_seed``, into ``50,000 - val_size``
    for training and ``val_size`` for validation (45,000 / 5,000 by default); the test set is the
    official 10,000. The data are read with torchvision's ``CIFAR10`` / ``CIFAR100`` from the python
    version of the archives: ``<data_dir>/cifar-10-batches-py/`` (``data_batch_1`` .. ``data_batch_5``,
    ``test_batch``, ``batches.meta``) or ``<data_dir>/cifar-100-python/`` (``train``, ``test``, ``meta``).

    Every batch leaves the DataLoader as uint8 and is turned into float32 after it reached the
    device, in :meth:`on_after_batch_transfer` (which calls :meth:`transform_batch`):

    - ``normalise="channel"``: pixels scaled to [0, 1], then standardised per channel with the
      mean and standard deviation of the training split.
    - ``normalise="gcn"``: global contrast normalisation of each image [Goodfellow et al. 2013,
      Maxout Networks; TVDN Table 3]: with ``x`` the image's 3 x 32 x 32 values scaled to [0, 1],
      ``x' = (x - mean(x)) / max(eps, std(x))``, mean and (unbiased) std over all pixels and
      channels of that image, ``eps = 1e-8``.
    - ``augment`` (training batches only): each image, after normalisation, is padded with ``pad``
      zeros on every side (zero is the mean, so the border is "average"), randomly cropped back to
      32 x 32 (a random translation by up to ``pad`` pixels in each direction), and mirrored
      horizontally with probability 0.5, independently per example (kornia ``RandomCrop`` and
      ``RandomHorizontalFlip``, drawn from torch's global random generator). Labels are untouched.

    Args:
        data_dir: the folder holding ``cifar-10-batches-py/`` or ``cifar-100-python/``.
        dataset: ``"cifar10"`` or ``"cifar100"``.
        batch_size: examples per batch (per device under DDP).
        val_size: validation images taken from the official training set.
        split_seed: seed of the train/validation split (independent of the run's ``seed``).
        normalise: ``"channel"`` or ``"gcn"`` (see above).
        augment: translate and mirror training images (see above).
        pad: largest translation in pixels (0: mirroring only).
        verify: check every file against torchvision's md5 sums of the official files (once per
            folder, cached; see :mod:`highwaylab.data.checksums`): another official file (CIFAR-100's,
            or the test batch as a training batch) or an unofficial one is refused. Set it to False
            for other files in the same format (test fixtures, a subset): they are still checked for
            format and consistency, and the training images and labels for degenerate values.
        verify_md5: the old name of ``verify``, kept for runs recorded with it: ``None`` (the
            default) leaves ``verify`` alone; ``False`` turns the check off as ``verify=False`` does.
        download: let torchvision download and extract missing files (needs internet access).
        num_workers, pin_memory: DataLoader options.

    Raises:
        ConfigError: an unknown dataset or normalisation, non-positive batch size, or a val_size,
            pad or flag out of range.
        DataError: a missing, corrupt or inconsistent data file, or something else at a data file's
            or folder's name (a looping or dangling symbolic link, a folder where a file should be);
            the message names it and the fix.
    """

    input_shape = SHAPES["cifar10"][0]  # (3, 32, 32), CIFAR-100's too

    def __init__(self, data_dir: str, dataset: str = "cifar10", batch_size: int = 128,
                 val_size: int = 5000, split_seed: int = 0, normalise: str = "channel",
                 augment: bool = True, pad: int = 4, verify: bool = True, verify_md5: bool | None = None,
                 download: bool = False, num_workers: int = 0, pin_memory: bool = False) -> None:
        super().__init__()
        if dataset not in DATASETS:
            raise ConfigError(f"data.dataset={dataset!r} is unknown; choose one of: {', '.join(DATASETS)}.")
        check_data_dir(data_dir, f"{DATASETS[dataset].base_folder}/")
        check_loader_options(batch_size, val_size, split_seed, num_workers, TRAIN_EXAMPLES[dataset])
        check_data_options(normalise=normalise, augment=augment, verify=verify, download=download,
                           pin_memory=pin_memory)
        if verify_md5 is not None and not isinstance(verify_md5, bool):
            raise ConfigError(f"data.verify_md5={verify_md5!r} must be true, false or null "
                              f"(it is the old name of data.verify).")
        if isinstance(pad, bool) or not isinstance(pad, int) or not 0 <= pad <= 32:
            raise ConfigError(f"data.pad={pad!r} must be an integer in 0 .. 32.")
        self.save_hyperparameters(logger=False)
        self.verify = verify and verify_md5 is not False  # either switch turns the check off
        self.class_names: list[str] | None = None
        self.channel_mean: Tensor | None = None  # (3,), of the training split scaled to [0, 1]
        self.channel_std: Tensor | None = None
        self._stats_on: dict[torch.device, tuple[Tensor, Tensor]] = {}  # (1, 3, 1, 1) copies per device
        steps: list[nn.Module] = [K.RandomCrop((32, 32), padding=pad, cropping_mode="slice")] if pad else []
        self.augmentation = nn.Sequential(*steps, K.RandomHorizontalFlip()) if augment else None

    @property
    def num_classes(self) -> int:
        return SHAPES[self.hparams.dataset][1]

    @property
    def in_features(self) -> int:
        return math.prod(self.input_shape)

    @property
    def data_folder(self) -> Path:
        return data_folder(self.hparams.data_dir, self.hparams.dataset)

    @property
    def file_names(self) -> list[str]:
        """The files torchvision reads: training batches, test batch, meta file."""
        return list(data_files(self.hparams.dataset))

    def prepare_data(self) -> None:
        """Download and extract the archive, only if ``download`` is set and files are missing. A path
        that holds something other than the file or folder (a looping or dangling link, a folder
        where a file should be) is refused as in ``setup()``, not downloaded over."""
        if not self.hparams.download:
            return
        paths = [self.data_folder, *(self.data_folder / f for f in self.file_names)]
        present = [p for p in paths if os.path.lexists(p)]
        for path in present:
            check_data_path(path, f"Data file missing: {path}. {self._fix_hint()}", folder=path == paths[0])
        if len(present) == len(paths):
            return
        cls = DATASETS[self.hparams.dataset]
        try:
            cls(self.hparams.data_dir, train=True, download=True)
        except Exception as err:  # torchvision raises RuntimeError / URLError / OSError
            raise download_error(cls.url, Path(self.hparams.data_dir), err,
                                 self._fix_hint(download=False)) from err

    def setup(self, stage: str | None = None) -> None:
        """Check the files (readable; with ``verify`` the official ones), load them once into memory,
        split, and check the training split (at least two classes, no constant channel); calling it
        again does nothing."""
        if self.data_train is not None:
            return
        # a folder or file that is missing, a looping or dangling link, a file where the folder
        # should be or the reverse, or a folder on the way that this user may not enter: one line each
        check_data_path(self.data_folder, f"Data folder missing: {self.data_folder}. {self._fix_hint()}",
                        folder=True)
        for name in self.file_names:  # torchvision needs all of them, whichever split it reads
            path = self.data_folder / name
            check_data_path(path, f"Data file missing: {path}. {self._fix_hint()}")
        for name in self.file_names:
            check_readable(self.data_folder / name)
        if self.verify:
            verify_official(self.hparams.dataset, self.data_folder, self.file_names)
        else:  # pass 35, row 16: before, (N, 32, 32, 3) arrays passed torchvision's reshape, and the
            note_unverified(self.data_folder)  # run trained on scrambled channels without a word
            problem = self._format_error()
            if problem is not None:
                raise problem
        x_fit, y_fit = self._load(train=True)  # (50000, 3, 32, 32) uint8, (50000,) int64
        x_test, y_test = self._load(train=False)  # (10000, 3, 32, 32), (10000,)
        train_idx, val_idx = self.split(len(y_fit), self.data_folder)
        cls = DATASETS[self.hparams.dataset]
        first, last = cls.train_list[0][0], cls.train_list[-1][0]
        train_files = str(self.data_folder / first) + (f" .. {last}" if last != first else "")
        self.check_split_labels(y_fit, train_idx, train_files, self.class_names)
        check_not_constant(x_fit[train_idx], train_files, CHANNELS)
        self.channel_mean, self.channel_std = channel_stats(x_fit[train_idx])
        check_finite_std(self.channel_std, train_files)
        self._stats_on = {}
        self.data_train = InMemoryBatches(x_fit[train_idx], y_fit[train_idx])
        self.data_val = InMemoryBatches(x_fit[val_idx], y_fit[val_idx])
        self.data_test = InMemoryBatches(x_test, y_test)

    def on_after_batch_transfer(self, batch: Any, dataloader_idx: int) -> Any:
        """Normalise (and, while training, augment) a batch that is already on the device.

        ``(x, y)`` batches give ``(transform_batch(x), y)``; a bare uint8 tensor is transformed
        alone; anything else (a model's float ``example_input_array``) passes unchanged.
        """
        train = self.trainer is not None and self.trainer.training
        if isinstance(batch, Tensor):
            return self.transform_batch(batch, train=train) if batch.dtype == torch.uint8 else batch
        x, y = batch
        return self.transform_batch(x, train=train), y

    def transform_batch(self, x: Tensor, train: bool) -> Tensor:
        """uint8 images ``(N, 3, 32, 32)`` on any device -> normalised float32 on that device,
        augmented only when ``train`` and ``augment`` are both true (see the class docstring)."""
        if x.dtype != torch.uint8 or x.dim() != 4 or tuple(x.shape[1:]) != self.input_shape:
            raise ValueError(f"transform_batch expects uint8 images (N, 3, 32, 32), got {x.dtype} "
                             f"{tuple(x.shape)}")
        x = x.float().div_(255)
        if self.hparams.normalise == "gcn":
            mean = x.mean(dim=(1, 2, 3), keepdim=True)
            std = x.std(dim=(1, 2, 3), keepdim=True)
            x = x.sub_(mean).div_(std.clamp_min(GCN_EPS))
        else:
            mean, std = self._channel_stats_on(x.device)
            x = x.sub_(mean).div_(std)
        if train and self.augmentation is not None:
            x = self.augmentation(x)
        return x

    def _channel_stats_on(self, device: torch.device) -> tuple[Tensor, Tensor]:
        if self.channel_mean is None or self.channel_std is None:
            raise RuntimeError("call setup() before transform_batch(): the channel statistics come from "
                               "the training split")
        if device not in self._stats_on:
            self._stats_on[device] = (self.channel_mean.view(1, 3, 1, 1).to(device),
                                      self.channel_std.view(1, 3, 1, 1).to(device))
        return self._stats_on[device]

    def _load(self, train: bool) -> tuple[Tensor, Tensor]:
        cls = DATASETS_NO_MD5[self.hparams.dataset]  # verify_official() checked the md5 sums
        try:
            ds = cls(self.hparams.data_dir, train=train, download=False)
        except Exception as err:  # md5 mismatch (RuntimeError), unpickling, reshape, missing key
            raise self._corrupt_error(err) from err
        if ds.data.dtype.name != "uint8":  # the official files hold bytes; a float array is not CIFAR
            raise DataError(f"Data file corrupt: the images in {self.data_folder} are {ds.data.dtype}, "
                            f"not uint8 bytes as in the CIFAR python files. {self._fix_hint()}")
        x = torch.from_numpy(ds.data).permute(0, 3, 1, 2).contiguous()  # (N, 32, 32, 3) -> (N, 3, 32, 32)
        y = torch.as_tensor(ds.targets, dtype=torch.long)
        if len(x) != len(y) or (len(y) and not 0 <= int(y.min()) <= int(y.max()) < self.num_classes):
            raise self._corrupt_error(None)
        self.class_names = list(ds.classes)
        return x, y

    def _corrupt_error(self, err: Exception | None) -> DataError:
        """A DataError naming the first file that fails a check (unpickling, format, labels)."""
        problem = self._format_error()
        if problem is not None:
            return problem
        cls = DATASETS[self.hparams.dataset]
        why = f" ({err})" if err is not None else ""
        return DataError(f"torchvision could not read {cls.__name__} from {self.data_folder}{why}. "
                         f"{self._fix_hint()}")

    def _format_error(self) -> DataError | None:
        """A DataError naming the first file that fails a check (unpickling; the format of the CIFAR
        python files: a uint8 ``data`` array of (N, 3072) rows, as many labels, in range), or None.
        The fix: with ``data.verify``, the official files again; without, the format to write."""
        cls = DATASETS[self.hparams.dataset]
        label_key = "labels" if self.hparams.dataset == "cifar10" else "fine_labels"
        again = (f"Delete it and download or copy it again. {self._fix_hint()}" if self.verify else
                 "Fix: write each batch as the CIFAR python files hold it (data.verify=false reads files of "
                 f"your own in that format): a dict with 'data', a uint8 array of (N, 3072) rows (values "
                 f"0..255; the red, then green, then blue 32 x 32 plane of each image) and '{label_key}', "
                 f"N labels in 0 .. {self.num_classes - 1}")
        for name in self.file_names:
            path = self.data_folder / name
            try:
                with path.open("rb") as f:
                    entry = pickle.load(f, encoding="latin1")
            except Exception as load_err:
                return DataError(f"Data file corrupt: {path} could not be unpickled "
                                 f"({type(load_err).__name__}: {load_err}). {again}")
            is_meta = name == cls.meta["filename"]
            problem = _format_problem(entry, cls.meta["key"] if is_meta else label_key,
                                      is_meta=is_meta, num_classes=self.num_classes)
            if problem:
                if "Fix: " in problem:  # a fix of its own: bytes keys
                    fix = ""
                elif is_meta and not self.verify:  # pass 66, row 18: before, the fix described a batch file
                    fix = (f". Fix: write {name} as the CIFAR python files hold it (data.verify=false reads "
                           f"files of your own in that format): a dict with '{cls.meta['key']}', the "
                           f"{self.num_classes} class names in the order of the labels")
                else:
                    fix = f". {again}"
                return DataError(f"Data file corrupt: {path} {problem}{fix}")
        return None

    def _fix_hint(self, download: bool = True) -> str:
        return fix_hint(self.hparams.dataset, self.hparams.data_dir, download)


def _format_problem(entry: Any, key: str, is_meta: bool, num_classes: int) -> str | None:
    """What is wrong with one unpickled CIFAR file, or None."""
    if isinstance(entry, dict) and key not in entry and key.encode() in entry:  # pass 60, row 23: before,
        # "no 'labels' entry", of a file that has b'labels'
        shown = ", ".join(repr(k) for k in list(entry)[:4]) + (", ..." if len(entry) > 4 else "")
        return (f"has bytes keys ({shown}), as pickle.load(f, encoding='bytes') reads the official files and "
                f"pickle.dump then keeps them; the files are read with str keys ({key!r}). Fix: save each "
                f"batch again with str keys, {{k.decode(): v for k, v in batch.items()}}")
    if not isinstance(entry, dict) or key not in entry:
        return f"is not a CIFAR pickle: no {key!r} entry"
    if is_meta:
        return None
    data, labels = entry.get("data"), entry[key]
    shape = getattr(data, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] != 3072 or str(getattr(data, "dtype", "")) != "uint8":
        parts = (type(data).__name__, getattr(data, "dtype", None), shape)
        got = " ".join(str(part) for part in parts if part is not None)
        return f"has no uint8 'data' array of (N, 3072) rows (got {got})"
    label_shape = getattr(labels, "shape", None)
    first = labels[0] if len(labels) else 0
    nested = isinstance(first, list | tuple) or getattr(first, "ndim", 0) > 0
    if (label_shape is not None and len(label_shape) != 1) or nested:  # pass 61, row 8: (N, 1) labels passed,
        # and the first validation step failed with a traceback ("0D or 1D target tensor expected")
        got = f"of shape {tuple(label_shape)}" if label_shape is not None else "of lists"
        return (f"has {key!r} {got}; they must be N integers, one per image (a list or a 1-D array, e.g. "
                f"labels.reshape(-1).tolist())")
    wrong = next((v for v in labels if isinstance(v, bool) or not isinstance(v, numbers.Integral)), None) \
        if label_shape is None else (None if np.issubdtype(getattr(labels, "dtype", np.int64), np.integer)
                                     else labels[0])
    if wrong is not None:  # pass 65, row 13: '3' (text) labels: before, a TypeError traceback here
        return (f"has {key!r} that are not integers (e.g. {wrong!r}, a {type(wrong).__name__}); they must "
                f"be N integers, one per image")
    if shape[0] == 0:  # pass 62, row 24: an empty test_batch tested nothing, and the run ended ok
        return "holds 0 images, so the set it belongs to would be measured on nothing"
    if shape[0] != len(labels):
        return f"holds {shape[0]} images but {len(labels)} labels"
    if len(labels) and not 0 <= min(labels) <= max(labels) < num_classes:
        return f"has labels outside 0 .. {num_classes - 1} (min {min(labels)}, max {max(labels)})"
    return None


def channel_stats(x: Tensor) -> tuple[Tensor, Tensor]:
    """Per-channel mean and (unbiased) std of uint8 images ``x (N, C, H, W)`` scaled to [0, 1].

    Exact, from a 256-bin histogram per channel, without a float copy of the images.
    Returns two float32 tensors of shape ``(C,)`` (the std at least 1e-8; a constant channel is
    refused before, by :func:`~highwaylab.data.checks.check_not_constant`).
    """
    values = torch.arange(256, dtype=torch.float64) / 255
    means, stds = [], []
    for c in range(x.shape[1]):
        hist = torch.bincount(x[:, c].reshape(-1), minlength=256).double()
        n = hist.sum()
        mean = (hist * values).sum() / n
        var = (hist * (values - mean) ** 2).sum() / (n - 1).clamp_min(1)
        means.append(mean)
        stds.append(var.sqrt().clamp_min(GCN_EPS))
    return torch.stack(means).float(), torch.stack(stds).float()
