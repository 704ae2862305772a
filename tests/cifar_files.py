"""Write small CIFAR-10 / CIFAR-100 fixture folders in the exact format of the official python archives.

The official files (https://www.cs.toronto.edu/~kriz/cifar.html) are pickled by Python 2 with
protocol 2: dicts whose keys and strings are Python-2 ``str`` (8-bit, so ``pickle.load(f,
encoding="bytes")`` gives ``b"data"``, and torchvision's ``encoding="latin1"`` gives ``"data"``),
``data`` a ``(N, 3072)`` uint8 array, each row 1024 red, then 1024 green, then 1024 blue values of
the 32 x 32 image in row-major order, and the labels a list of ints. Python 3 pickles ``bytes``
as ``_codecs.encode(...)`` calls that always load as ``bytes``, which torchvision could not read;
:class:`_Py2Pickler` writes them as the ``BINSTRING`` opcodes of a Python-2 ``str`` instead.
"""

from __future__ import annotations

import pickle
import struct
from pathlib import Path

import numpy as np

CIFAR10_NAMES = [b"airplane", b"automobile", b"bird", b"cat", b"deer", b"dog", b"frog", b"horse",
                 b"ship", b"truck"]


class _Py2Pickler(pickle._Pickler):
    """The pure-Python pickler, writing ``bytes`` as Python-2 ``str`` (opcodes SHORT_BINSTRING, BINSTRING)."""

    dispatch = pickle._Pickler.dispatch.copy()

    def save_py2_str(self, obj: bytes) -> None:
        if len(obj) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(obj)]) + obj)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(obj)) + obj)
        self.memoize(obj)

    dispatch[bytes] = save_py2_str


def dump_py2(obj: object, path: Path) -> None:
    """Pickle ``obj`` to ``path`` as Python 2 did (protocol 2, ``bytes`` as ``str``)."""
    with path.open("wb") as f:
        _Py2Pickler(f, protocol=2).dump(obj)


def _images(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.integers(0, 256, size=(n, 3072), dtype=np.uint8)  # rows: R (1024), G, B, row-major


def write_cifar10(root: Path, n_train_per_batch: int = 60, n_test: int = 50,
                  seed: int = 0) -> dict[str, np.ndarray]:
    """Write ``root/cifar-10-batches-py/`` (data_batch_1..5, test_batch, batches.meta).

    Returns the written ``train_x`` ``(5 * n_train_per_batch, 3072)``, ``train_y``, ``test_x``,
    ``test_y`` (the training batches concatenated in order 1..5).
    """
    folder = Path(root) / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    xs, ys = [], []
    for i in range(1, 6):
        x, y = _images(rng, n_train_per_batch), rng.integers(0, 10, n_train_per_batch).tolist()
        names = [f"image_{i}_{j}.png".encode() for j in range(n_train_per_batch)]
        dump_py2({b"batch_label": f"training batch {i} of 5".encode(), b"labels": y, b"data": x,
                  b"filenames": names}, folder / f"data_batch_{i}")
        xs.append(x)
        ys.extend(y)
    test_x, test_y = _images(rng, n_test), rng.integers(0, 10, n_test).tolist()
    dump_py2({b"batch_label": b"testing batch 1 of 1", b"labels": test_y, b"data": test_x,
              b"filenames": [f"test_{j}.png".encode() for j in range(n_test)]}, folder / "test_batch")
    dump_py2({b"num_cases_per_batch": n_train_per_batch, b"label_names": CIFAR10_NAMES, b"num_vis": 3072},
             folder / "batches.meta")
    return {"train_x": np.concatenate(xs), "train_y": np.array(ys), "test_x": test_x,
            "test_y": np.array(test_y)}


def write_cifar100(root: Path, n_train: int = 300, n_test: int = 100, seed: int = 0) -> dict[str, np.ndarray]:
    """Write ``root/cifar-100-python/`` (train, test, meta); fine label ``k`` has coarse label ``k // 5``.

    Returns the written ``train_x`` ``(n_train, 3072)``, ``train_y`` (fine labels), ``test_x``,
    ``test_y``. The training labels always include 0 and 99.
    """
    folder = Path(root) / "cifar-100-python"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    out = {}
    for split, n in (("train", n_train), ("test", n_test)):
        x, y = _images(rng, n), rng.integers(0, 100, n)
        if split == "train":
            y[:2] = (0, 99)
        dump_py2({b"filenames": [f"{split}_{j}.png".encode() for j in range(n)],
                  b"batch_label": f"{split}ing batch 1 of 1".encode(), b"fine_labels": y.tolist(),
                  b"coarse_labels": (y // 5).tolist(), b"data": x}, folder / split)
        out[f"{split}_x"], out[f"{split}_y"] = x, y
    dump_py2({b"fine_label_names": [f"fine_{k}".encode() for k in range(100)],
              b"coarse_label_names": [f"coarse_{k}".encode() for k in range(20)]}, folder / "meta")
    return out
