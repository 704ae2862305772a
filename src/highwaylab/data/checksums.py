"""The official data files' md5 sums, and their verification, cached once per data folder.

Every file a DataModule reads is identified by its md5 before use: the official file of its own
name passes; a file that is another official file (Fashion-MNIST's in ``MNIST/raw/``, the test
images under the training images' name) or no official file at all is refused in one line that
says which it is and the fix (a subset or custom files: ``data.verify=false``).

Sources of the sums (stored here as data, so that what is checked does not change with the
installed torchvision; ``tests/test_data_identity.py`` compares them with it):

- MNIST, Fashion-MNIST: md5 of the *uncompressed* IDX files, the values most public code quotes,
  as listed in ``shared/data/README.md`` (and equal to the md5 of the files there; torchvision's
  ``MNIST.resources`` lists the md5 of the ``.gz`` archives instead).
- CIFAR-10, CIFAR-100: torchvision 0.29.1, ``torchvision.datasets.CIFAR10.train_list``,
  ``.test_list``, ``.meta["md5"]`` and the same of ``CIFAR100``: the md5 of the files in the python
  versions of the archives (https://www.cs.toronto.edu/~kriz/cifar.html).

Cost: hashing reads every byte (MNIST's four files are 55 MB). The md5 of each file is cached,
keyed by the file's resolved path, size, mtime and ctime (a file changed in any way, even with its
mtime restored, e.g. by ``cp -p``, changes its ctime and is hashed again). The cache is a JSON file
beside the data files (:data:`CACHE_NAME`) if that folder is writable, else in
``$XDG_CACHE_HOME/highwaylab/`` (default ``~/.cache/highwaylab/``), e.g. for a read-only shared
data folder (one without write permission is left alone, even by root). A cache that cannot be read
or written costs only the hashing.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from highwaylab.errors import DataError

log = logging.getLogger(__name__)

CACHE_NAME = ".highwaylab-checksums.json"  # beside the data files, or in the user cache folder
CACHE_VERSION = 1


@dataclass(frozen=True)
class OfficialFile:
    """One official data file: ``dataset`` (a ``data=`` option), its file ``name`` and its md5.

    ``split`` is ``"train"``, ``"test"`` or ``None`` (meta files); ``kind`` is ``"images"``,
    ``"labels"``, ``"batch"`` (images and labels, CIFAR) or ``"meta"``.
    """

    dataset: str
    name: str
    md5: str
    split: str | None
    kind: str

    @property
    def what(self) -> str:
        """e.g. ``"MNIST's t10k-images-idx3-ubyte (test images)"``."""
        split = {"train": "training ", "test": "test ", None: ""}[self.split]
        kind = {"images": "images", "labels": "labels", "batch": "images and labels", "meta": "class names"}
        return f"{DATASET_NAMES[self.dataset]}'s {self.name} ({split}{kind[self.kind]})"


DATASET_NAMES = {"mnist": "MNIST", "fashion_mnist": "Fashion-MNIST", "cifar10": "CIFAR-10",
                 "cifar100": "CIFAR-100"}


def _idx(dataset: str, md5s: tuple[str, str, str, str]) -> dict[str, OfficialFile]:
    names = [("train-images-idx3-ubyte", "train", "images"), ("train-labels-idx1-ubyte", "train", "labels"),
             ("t10k-images-idx3-ubyte", "test", "images"), ("t10k-labels-idx1-ubyte", "test", "labels")]
    return {name: OfficialFile(dataset, name, md5, split, kind)
            for (name, split, kind), md5 in zip(names, md5s, strict=True)}


OFFICIAL: dict[str, dict[str, OfficialFile]] = {
    # uncompressed IDX files (shared/data/README.md)
    "mnist": _idx("mnist", ("6bbc9ace898e44ae57da46a324031adb", "a25bea736e30d166cdddb491f175f624",
                            "2646ac647ad5339dbf082846283269ea", "27ae3e4e09519cfbb04c329615203637")),
    "fashion_mnist": _idx("fashion_mnist", ("f4a8712d7a061bf5bd6d2ca38dc4d50a",
                                            "9018921c3c673c538a1fc5bad174d6f9",
                                            "8181f5470baa50b63fa0f6fddb340f0a",
                                            "15d484375f8d13e6eb1aabb0c3f46965")),
    # torchvision 0.29.1: CIFAR10.train_list, CIFAR10.test_list, CIFAR10.meta
    "cifar10": {f.name: f for f in (
        OfficialFile("cifar10", "data_batch_1", "c99cafc152244af753f735de768cd75f", "train", "batch"),
        OfficialFile("cifar10", "data_batch_2", "d4bba439e000b95fd0a9bffe97cbabec", "train", "batch"),
        OfficialFile("cifar10", "data_batch_3", "54ebc095f3ab1f0389bbae665268c751", "train", "batch"),
        OfficialFile("cifar10", "data_batch_4", "634d18415352ddfa80567beed471001a", "train", "batch"),
        OfficialFile("cifar10", "data_batch_5", "482c414d41f54cd18b22e5b47cb7c3cb", "train", "batch"),
        OfficialFile("cifar10", "test_batch", "40351d587109b95175f43aff81a1287e", "test", "batch"),
        OfficialFile("cifar10", "batches.meta", "5ff9c542aee3614f3951f8cda6e48888", None, "meta"))},
    # torchvision 0.29.1: CIFAR100.train_list, CIFAR100.test_list, CIFAR100.meta
    "cifar100": {f.name: f for f in (
        OfficialFile("cifar100", "train", "16019d7e3df5f24257cddd939b257f8d", "train", "batch"),
        OfficialFile("cifar100", "test", "f0ef6b0ae62326f3e7ffdfab6717acfc", "test", "batch"),
        OfficialFile("cifar100", "meta", "7973b15100ade9c7d40fb424638fde48", None, "meta"))},
}
BY_MD5: dict[str, OfficialFile] = {f.md5: f for files in OFFICIAL.values() for f in files.values()}


def verify_official(dataset: str, folder: Path, names: list[str] | tuple[str, ...]) -> None:
    """Check that each file ``folder/<name>`` is the official file of that name of ``dataset``.

    The md5 of a file comes from the cache while the file's path, size, mtime and ctime are those
    recorded; otherwise the file is read and hashed (about 0.1 s per 50 MB), and the cache updated.

    Raises:
        DataError: one line naming the first file that is not the official one: the official file it
            is instead (another dataset's, or of another name: train and test swapped, images and
            labels swapped), or that it is no official file (fix: copy it again, or set
            ``data.verify=false`` for a subset or custom files); or a file that cannot be read.
    """
    official = OFFICIAL[dataset]
    md5s = file_md5s([folder / name for name in names])
    for name in names:
        path, md5 = folder / name, md5s[folder / name]
        expected = official[name]
        if md5 == expected.md5:
            continue
        found = BY_MD5.get(md5)
        if found is None:
            raise DataError(
                f"Data file not official: {path} is not {expected.what}: its md5 is {md5}, not "
                f"{expected.md5}, and it matches no other official MNIST, Fashion-MNIST or CIFAR file. "
                f"Fix: copy the official file there again; for a subset or your own files in the same "
                f"format set data.verify=false.")
        raise DataError(f"Data file mixed up: {path} is {found.what}{_guess(expected, found)} "
                        f"Fix: {_fix(expected, found, folder)}")


def _guess(expected: OfficialFile, found: OfficialFile) -> str:
    if found.dataset != expected.dataset:
        return f", not {DATASET_NAMES[expected.dataset]}'s: files of two datasets mixed up?"
    if found.kind == expected.kind and found.split != expected.split:
        return ": train and test files swapped?"
    if found.split == expected.split and {found.kind, expected.kind} == {"images", "labels"}:
        return ": image and label files swapped?"
    return f", not {expected.name}: files renamed?"


def _fix(expected: OfficialFile, found: OfficialFile, folder: Path) -> str:
    own = (f"put {DATASET_NAMES[expected.dataset]}'s own {expected.name} (md5 {expected.md5}) "
           f"at that name in {folder}")
    if found.dataset != expected.dataset:
        return (f"{own}, or to train on {DATASET_NAMES[found.dataset]} use data={found.dataset} "
                f"with its files in their own folder.")
    return f"{own}, and each of the other files at its own name."


def file_md5s(paths: list[Path]) -> dict[Path, str]:
    """The md5 (hex) of each file of ``paths``, from the cache where it is valid, else hashed.

    Files hashed here are recorded in the cache of their folder (beside them, or the user cache).

    Raises:
        DataError: a file cannot be read (names it and the fix, e.g. ``chmod a+r``).
    """
    out: dict[Path, str] = {}
    fresh: dict[Path, dict[str, Any]] = {}  # folder -> entries to record
    for path, (cached, stamp) in _lookup(paths).items():
        if cached is not None:
            out[path] = cached
            continue
        key, folder = str(path.resolve()), path.resolve().parent
        out[path] = md5_of(path)
        if _stamp(path) == stamp:  # not changed while it was read
            fresh.setdefault(folder, {})[key] = {**stamp, "md5": out[path]}
    for folder, entries in fresh.items():
        _save_cache(folder, entries)
    return out


def cached_md5s(paths: list[Path]) -> dict[Path, str | None]:
    """What the cache holds for each file of ``paths`` as it is now (``None``: no valid entry).
    Reads no file content: only the cache files and each file's ``stat``."""
    return {path: cached for path, (cached, _) in _lookup(paths).items()}


def _lookup(paths: list[Path]) -> dict[Path, tuple[str | None, dict[str, Any]]]:
    """For each file of ``paths``: the md5 its folder's cache holds for it as it is now (``None``: no
    valid entry) and its ``stat`` stamp. Each folder's cache is read once."""
    caches: dict[Path, dict[str, Any]] = {}
    out: dict[Path, tuple[str | None, dict[str, Any]]] = {}
    for path in paths:
        folder, stamp = path.resolve().parent, _stamp(path)
        if folder not in caches:
            caches[folder] = _load_cache(folder)
        entry = caches[folder].get(str(path.resolve()))
        out[path] = (entry["md5"] if _valid(entry, stamp) else None, stamp)
    return out


def md5_of(path: Path) -> str:
    """The md5 (hex) of the file at ``path`` (torchvision's ``calculate_md5``, 1 MiB chunks).

    Raises:
        DataError: the file cannot be read.
    """
    from torchvision.datasets.utils import calculate_md5

    try:
        return calculate_md5(str(path))
    except OSError as err:
        raise unreadable_error(path, err) from err


def unreadable_error(path: Path, err: OSError) -> DataError:
    """A one-line DataError for a data file that exists but cannot be read, with the fix."""
    if isinstance(err, PermissionError):
        closed = next((p for p in reversed(path.parents) if not os.access(p, os.X_OK)), None)
        fix = f"chmod a+rx {closed}" if closed is not None else f"chmod a+r {path}"
        return DataError(f"Data file unreadable: {path} ({err.strerror or err} for user id {os.getuid()}). "
                         f"Fix: {fix} (or run as a user who may read it).")
    return DataError(f"Data file unreadable: {path} ({type(err).__name__}: {err.strerror or err}). "
                     f"Fix: check the disk, or copy the file there again.")


def cache_files(folder: Path) -> list[Path]:
    """Where the cache of ``folder`` may be: beside its files, then in the user cache folder."""
    return [folder / CACHE_NAME, user_cache_dir() / CACHE_NAME]


def user_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/highwaylab``, or ``~/.cache/highwaylab``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path("~/.cache").expanduser())
    return Path(base) / "highwaylab"


def _stamp(path: Path) -> dict[str, int]:
    try:
        st = path.stat()
    except OSError as err:
        raise unreadable_error(path, err) from err
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ctime_ns": st.st_ctime_ns}


def _valid(entry: Any, stamp: dict[str, int]) -> bool:
    """Does the cache ``entry`` hold an md5 for the file as it is now (its ``stamp``)?"""
    return (isinstance(entry, dict) and all(entry.get(k) == v for k, v in stamp.items())
            and isinstance(entry.get("md5"), str))


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != CACHE_VERSION:
        return {}
    if not isinstance(data.get("files"), dict):
        return {}
    return data["files"]


def _load_cache(folder: Path) -> dict[str, Any]:
    """The cache entries of all cache files that may hold ``folder``'s files (beside ones first)."""
    merged: dict[str, Any] = {}
    for cache in reversed(cache_files(folder)):
        merged.update(_read_json(cache))
    return merged


def _save_cache(folder: Path, entries: dict[str, Any]) -> None:
    """Add ``entries`` to the cache beside ``folder``'s files, else to the user cache; entries of
    files that no longer exist are dropped. Written atomically; a cache that cannot be written is
    skipped (the next run hashes again)."""
    for cache in cache_files(folder):
        if cache.parent == folder and not _writable(folder):
            continue
        files = {k: v for k, v in _read_json(cache).items() if Path(k).exists()} | entries
        tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps({"version": CACHE_VERSION, "files": files}, indent=1, sort_keys=True))
            os.replace(tmp, cache)
        except OSError as err:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass
            log.debug("checksum cache %s not written (%s)", cache, err)
            continue
        log.debug("checksums of %d file(s) in %s cached in %s", len(entries), folder, cache)
        return


def _writable(folder: Path) -> bool:
    """May we add a file to ``folder``? Its mode must allow writing to someone, as well as to us: a
    folder made read-only (``chmod a-w``) is left alone even by root, whom no mode bit stops."""
    try:
        return bool(folder.stat().st_mode & 0o222) and os.access(folder, os.W_OK)
    except OSError:
        return False


def note_unverified(folder: Path) -> None:
    """Log (INFO) that the files in ``folder`` are not checked against the official checksums."""
    log.info("data.verify=false: the files in %s are not checked against the official md5 sums "
             "(only their format and contents are checked)", folder)
