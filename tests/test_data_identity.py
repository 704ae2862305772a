"""Data identity and degenerate data: the official files are verified by md5 (cached per folder),
mixed-up, unofficial, unreadable or degenerate files are refused in one line naming the file."""

import hashlib
import json
import logging
import os
import pickle
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from torchvision.datasets import CIFAR10, CIFAR100

from highwaylab.data import CIFARDataModule, MNISTDataModule
from highwaylab.data.checksums import CACHE_NAME, OFFICIAL, cached_md5s, verify_official
from highwaylab.data.mnist import RAW_FILES
from highwaylab.errors import ConfigError, DataError

from .cifar_files import dump_py2, write_cifar10
from .conftest import ROOT, subprocess_env

TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS = RAW_FILES


@pytest.fixture(autouse=True)
def _user_cache(tmp_path, monkeypatch):
    """A user cache of this test's own (the shared data folder is read-only: its checksums go there)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg_cache"))


def make_raw(root: Path, sources: dict[str, Path | bytes], base: Path) -> Path:
    """``root/MNIST/raw/`` with the four files: ``sources[name]`` (a file to copy, or bytes), else
    ``base/name``."""
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for name in RAW_FILES:
        src = sources.get(name, base / name)
        if isinstance(src, bytes):
            (raw / name).write_bytes(src)
        else:
            shutil.copyfile(src, raw / name)
    return raw


def idx_bytes(array: np.ndarray) -> bytes:
    """``array`` (uint8) as an IDX file: 0, 0, 0x08, ndim, big-endian int32 sizes, data."""
    head = bytes([0, 0, 8, array.ndim]) + b"".join(int(n).to_bytes(4, "big") for n in array.shape)
    return head + np.ascontiguousarray(array, dtype=np.uint8).tobytes()


def read_idx(path: Path) -> np.ndarray:
    data = path.read_bytes()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


@pytest.fixture(scope="module")
def real(data_dir):
    return data_dir / "MNIST" / "raw", data_dir / "FashionMNIST" / "raw"


def test_stored_checksums_are_the_real_files_and_torchvisions(real):
    mnist, fashion = real
    for dataset, folder in (("mnist", mnist), ("fashion_mnist", fashion)):
        for name in RAW_FILES:
            md5 = hashlib.md5((folder / name).read_bytes()).hexdigest()
            assert OFFICIAL[dataset][name].md5 == md5, f"{dataset} {name}"
    for dataset, cls in (("cifar10", CIFAR10), ("cifar100", CIFAR100)):
        listed = dict(cls.train_list + cls.test_list) | {cls.meta["filename"]: cls.meta["md5"]}
        assert {name: f.md5 for name, f in OFFICIAL[dataset].items()} == listed


def test_real_mnist_and_fashion_pass_and_are_cached_in_the_user_cache(data_dir, tmp_path, real):
    for dataset, folder in zip(("mnist", "fashion_mnist"), real, strict=True):
        verify_official(dataset, folder, RAW_FILES)
    cache = tmp_path / "xdg_cache" / "highwaylab" / CACHE_NAME  # the data folder is read-only
    assert cache.is_file() and not (real[0] / CACHE_NAME).exists()
    cached = cached_md5s([folder / name for folder in real for name in RAW_FILES])
    assert sorted(cached.values()) == sorted(f.md5 for d in ("mnist", "fashion_mnist")
                                             for f in OFFICIAL[d].values())


def test_fashion_files_in_the_mnist_folder_are_refused(tmp_path, real):
    mnist, fashion = real
    raw = make_raw(tmp_path, {name: fashion / name for name in RAW_FILES}, mnist)
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(tmp_path)).setup()
    msg = str(err.value)
    assert msg.startswith(f"Data file mixed up: {raw / TRAIN_IMAGES} is Fashion-MNIST's "
                          f"train-images-idx3-ubyte (training images), not MNIST's")
    assert "data=fashion_mnist" in msg and OFFICIAL["mnist"][TRAIN_IMAGES].md5 in msg
    assert "\n" not in msg


def test_fashion_labels_with_mnist_images_are_refused(tmp_path, real):
    mnist, fashion = real
    raw = make_raw(tmp_path, {name: fashion / name for name in (TRAIN_LABELS, TEST_LABELS)}, mnist)
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(tmp_path)).setup()
    msg = str(err.value)
    assert f"{raw / TRAIN_LABELS} is Fashion-MNIST's train-labels-idx1-ubyte (training labels)" in msg


def test_train_and_test_files_swapped_are_refused(tmp_path, real):
    mnist, _ = real
    raw = make_raw(tmp_path, {TRAIN_IMAGES: mnist / TEST_IMAGES, TRAIN_LABELS: mnist / TEST_LABELS,
                              TEST_IMAGES: mnist / TRAIN_IMAGES, TEST_LABELS: mnist / TRAIN_LABELS}, mnist)
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(tmp_path)).setup()
    assert (f"{raw / TRAIN_IMAGES} is MNIST's t10k-images-idx3-ubyte (test images): train and test files "
            f"swapped?") in str(err.value)


def test_a_subset_is_refused_when_verified_and_accepted_with_verify_false(tmp_path, real, caplog):
    mnist, _ = real
    images, labels = read_idx(mnist / TRAIN_IMAGES)[:1000], read_idx(mnist / TRAIN_LABELS)[:1000]
    raw = make_raw(tmp_path, {TRAIN_IMAGES: idx_bytes(images), TRAIN_LABELS: idx_bytes(labels)}, mnist)
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(tmp_path), val_size=100).setup()
    msg = str(err.value)
    assert msg.startswith(f"Data file not official: {raw / TRAIN_IMAGES} is not MNIST's {TRAIN_IMAGES}")
    assert hashlib.md5(idx_bytes(images)).hexdigest() in msg and "data.verify=false" in msg
    with caplog.at_level(logging.INFO, logger="highwaylab.data"):
        dm = MNISTDataModule(str(tmp_path), val_size=100, verify=False)
        dm.setup()
    assert (len(dm.data_train), len(dm.data_val), len(dm.data_test)) == (900, 100, 10_000)
    lines = [m for r in caplog.records if "not checked against the official md5" in (m := r.getMessage())]
    assert len(lines) == 1 and str(raw) in lines[0] and lines[0].startswith("data.verify=false")


def test_all_zero_images_are_refused_naming_the_zero_std(tmp_path, real):
    mnist, _ = real
    zeros = np.zeros((60_000, 28, 28), dtype=np.uint8)
    raw = make_raw(tmp_path, {TRAIN_IMAGES: idx_bytes(zeros)}, mnist)
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(tmp_path), verify=False).setup()
    msg = str(err.value)
    assert str(raw / TRAIN_IMAGES) in msg
    assert "all 60000 training images are constant (every pixel is 0)" in msg
    assert "standard deviation is 0" in msg


def test_single_class_labels_are_refused_naming_file_and_class(tmp_path, real):
    mnist, fashion = real
    for folder, dataset, name in ((mnist, "mnist", "'3 - three'"), (fashion, "fashion_mnist", "'Dress'")):
        root = tmp_path / dataset
        raw = make_raw(root, {TRAIN_LABELS: idx_bytes(np.full(60_000, 3, dtype=np.uint8))}, folder)
        if dataset == "fashion_mnist":
            (root / "FashionMNIST").mkdir()
            raw = raw.rename(root / "FashionMNIST" / "raw")
        with pytest.raises(DataError) as err:
            MNISTDataModule(str(root), dataset=dataset, verify=False).setup()
        msg = str(err.value)
        assert f"all 60000 training labels from {raw / TRAIN_LABELS} are class 3 ({name})" in msg
        assert "single class" in msg


def test_swapped_image_and_label_files_are_named(tmp_path, real):
    mnist, _ = real
    raw = make_raw(tmp_path, {TRAIN_IMAGES: mnist / TRAIN_LABELS, TRAIN_LABELS: mnist / TRAIN_IMAGES}, mnist)
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(tmp_path)).setup()
    assert (f"{raw / TRAIN_IMAGES} is MNIST's train-labels-idx1-ubyte (training labels): image and label "
            f"files swapped?") in str(err.value)
    with pytest.raises(DataError) as err:  # unverified: the IDX headers tell
        MNISTDataModule(str(tmp_path), verify=False).setup()
    assert str(err.value).startswith(f"Data file mixed up: {raw / TRAIN_IMAGES} holds labels (1 dimension)")
    assert "image and label files swapped?" in str(err.value)


def test_images_of_another_size_are_refused_unverified(tmp_path, real):
    mnist, _ = real
    raw = make_raw(tmp_path, {TEST_IMAGES: idx_bytes(np.ones((10_000, 32, 32), dtype=np.uint8))}, mnist)
    with pytest.raises(DataError, match="32 x 32") as err:
        MNISTDataModule(str(tmp_path), verify=False).setup()
    assert str(raw / TEST_IMAGES) in str(err.value)


@pytest.mark.parametrize("value", [None, "", "  "])
def test_data_dir_not_set_names_the_key_and_the_variable(value):
    for cls in (MNISTDataModule, CIFARDataModule):
        with pytest.raises(ConfigError) as err:
            cls(value)
        assert "data.data_dir" in str(err.value) and "HIGHWAYLAB_DATA_DIR" in str(err.value)


def test_train_py_with_data_dir_null_prints_one_line(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "data.data_dir=null", "logger=none",
                           "trainer=cpu", f"paths.log_dir={tmp_path}", f"hydra.run.dir={tmp_path}/run"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=subprocess_env(HYDRA_FULL_ERROR="0"))
    assert proc.returncode == 1
    out = proc.stdout + proc.stderr
    assert "Traceback" not in out
    (line,) = [x for x in out.splitlines() if "highwaylab: data.data_dir is not set (null)" in x]
    assert "HIGHWAYLAB_DATA_DIR" in line


def test_a_changed_file_is_verified_again(tmp_path, real):
    """The cache is keyed by path, size, mtime and ctime: Fashion's file copied over MNIST's (same
    size), with the old mtime put back, is hashed again and refused."""
    mnist, fashion = real
    raw = make_raw(tmp_path, {}, mnist)
    MNISTDataModule(str(tmp_path)).setup()
    assert (raw / CACHE_NAME).is_file()  # a writable folder: the cache lies beside the files
    path = raw / TRAIN_LABELS
    assert cached_md5s([path])[path] == OFFICIAL["mnist"][TRAIN_LABELS].md5
    st = path.stat()
    shutil.copyfile(fashion / TRAIN_LABELS, path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert cached_md5s([path])[path] is None
    with pytest.raises(DataError, match="is Fashion-MNIST's train-labels-idx1-ubyte"):
        MNISTDataModule(str(tmp_path)).setup()


def test_cached_md5s_are_used_not_recomputed(tmp_path, real):
    """A second verification takes each md5 from the cache: a cache entry forged to Fashion-MNIST's
    md5 (the file's stat unchanged) makes the real MNIST file look like Fashion's, which it could not
    if the file were read again."""
    raw = make_raw(tmp_path, {}, real[0])
    verify_official("mnist", raw, RAW_FILES)
    cache = raw / CACHE_NAME
    record = json.loads(cache.read_text())
    key = str((raw / TRAIN_LABELS).resolve())
    assert set(record["files"]) == {str((raw / name).resolve()) for name in RAW_FILES}
    assert record["files"][key]["md5"] == OFFICIAL["mnist"][TRAIN_LABELS].md5
    assert record["files"][key]["size"] == 60_008
    record["files"][key]["md5"] = OFFICIAL["fashion_mnist"][TRAIN_LABELS].md5
    cache.write_text(json.dumps(record))
    with pytest.raises(DataError, match="is Fashion-MNIST's train-labels-idx1-ubyte"):
        verify_official("mnist", raw, RAW_FILES)
    cache.unlink()  # no cache: hashed again, and right
    verify_official("mnist", raw, RAW_FILES)
    assert json.loads(cache.read_text())["files"][key]["md5"] == OFFICIAL["mnist"][TRAIN_LABELS].md5


# --- as an unprivileged user: root reads any file, whatever its mode -----------------------------

AS_NOBODY = """
import os, sys
from pathlib import Path
from highwaylab.data import MNISTDataModule, verify_official
from highwaylab.data.mnist import RAW_FILES
from highwaylab.errors import DataError
uid, gid = int(sys.argv[1]), int(sys.argv[2])
if os.geteuid() == 0:  # drop to the user after the imports: the interpreter may lie where it may not go
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
for job in sys.argv[3:]:  # "setup:<data_dir>" or "verify:<data_dir>"
    what, root = job.split(":", 1)
    try:
        if what == "verify":
            verify_official("mnist", Path(root) / "MNIST" / "raw", RAW_FILES)
        else:
            MNISTDataModule(root).setup()
        print(f"ok uid={os.getuid()}")
    except DataError as err:
        print(f"DataError uid={os.getuid()}: {err}")
"""


@pytest.fixture
def open_tmp():
    """A folder that any user may enter (pytest's tmp_path is closed to others)."""
    path = Path(tempfile.mkdtemp(prefix="highwaylab-identity-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path)


def as_nobody(jobs: list[str], tmp_path: Path) -> list[str]:
    """Run ``jobs`` (``"setup:<data_dir>"``, ``"verify:<data_dir>"``) in one python process as the
    user ``nobody`` (as this user, if it is not root); one line of outcome per job."""
    user = pwd.getpwnam("nobody")
    env = subprocess_env(XDG_CACHE_HOME=str(tmp_path / "nobody_cache"))
    proc = subprocess.run([sys.executable, "-c", AS_NOBODY, str(user.pw_uid), str(user.pw_gid), *jobs],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path.anchor)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == len(jobs), proc.stdout + proc.stderr[-3000:]
    return lines


def open_raw(root: Path, base: Path) -> Path:
    raw = make_raw(root, {}, base)
    for p in (root, root / "MNIST", raw):
        p.chmod(0o755)
    return raw


@pytest.mark.slow
def test_unreadable_file_is_named_with_the_fix(open_tmp, tmp_path, real):
    file_closed = open_raw(open_tmp / "a", real[0])
    (file_closed / TEST_LABELS).chmod(0o000)
    folder_closed = open_raw(open_tmp / "b", real[0])
    folder_closed.chmod(0o700)
    first, second = as_nobody([f"setup:{open_tmp / 'a'}", f"setup:{open_tmp / 'b'}"], tmp_path)
    assert first.startswith("DataError") and "uid=0:" not in first
    assert f"Data file unreadable: {file_closed / TEST_LABELS} (Permission denied" in first
    assert f"Fix: chmod a+r {file_closed / TEST_LABELS} " in first
    assert second.startswith("DataError") and f"Fix: chmod a+rx {folder_closed} " in second


@pytest.mark.slow
def test_cached_verification_reads_no_file_content(open_tmp, tmp_path, real):
    """The files are made unreadable to ``nobody`` before root verifies them (root reads them and
    caches their md5 beside them); ``nobody`` can then verify them only from the cache."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to make files unreadable to another user before reading them; "
                    "test_cached_md5s_are_used_not_recomputed covers the cache for any user")
    cached, uncached = open_raw(open_tmp / "cached", real[0]), open_raw(open_tmp / "uncached", real[0])
    for raw in (cached, uncached):
        for name in RAW_FILES:
            (raw / name).chmod(0o000)
    verify_official("mnist", cached, RAW_FILES)  # as root: hashes and caches
    assert (cached / CACHE_NAME).is_file() and not (uncached / CACHE_NAME).exists()
    with_cache, without = as_nobody([f"verify:{open_tmp / 'cached'}", f"verify:{open_tmp / 'uncached'}"],
                                    tmp_path)
    assert with_cache == f"ok uid={pwd.getpwnam('nobody').pw_uid}"
    # the control: without the cache nobody must read the files, and cannot
    assert without.startswith("DataError") and f"Data file unreadable: {uncached}" in without


# --- CIFAR: the same checks from CIFARDataModule.setup ------------------------------------------

def _rewrite(path: Path, **changes) -> None:
    with path.open("rb") as f:
        entry = pickle.load(f, encoding="bytes")
    entry.update({k.encode(): v for k, v in changes.items()})
    dump_py2(entry, path)


def test_cifar_unofficial_files_name_verify_and_degenerate_data_are_refused(tmp_path, caplog):
    write_cifar10(tmp_path, n_train_per_batch=20, n_test=10, seed=3)
    folder = tmp_path / "cifar-10-batches-py"
    with pytest.raises(DataError, match="data.verify=false") as err:
        CIFARDataModule(str(tmp_path), val_size=10).setup()
    assert str(err.value).startswith(f"Data file not official: {folder / 'data_batch_1'} is not CIFAR-10's")
    with caplog.at_level(logging.INFO, logger="highwaylab.data"):
        CIFARDataModule(str(tmp_path), val_size=10, verify=False).setup()  # the fixture itself passes
    assert any("not checked against the official md5" in r.getMessage() for r in caplog.records)
    for i in range(1, 6):
        _rewrite(folder / f"data_batch_{i}", labels=[7] * 20)
    with pytest.raises(DataError, match=r"all 100 training labels from .* are class 7 \('horse'\)") as err:
        CIFARDataModule(str(tmp_path), val_size=10, verify=False).setup()
    assert str(folder / "data_batch_1") in str(err.value)
    for i in range(1, 6):
        data = np.random.default_rng(i).integers(0, 256, (20, 3072), dtype=np.uint8)
        data[:, 1024:2048] = 128  # green constant
        _rewrite(folder / f"data_batch_{i}", labels=[i % 2] * 20, data=data)
    with pytest.raises(DataError, match=r"the green channel of all 90 training images is constant \(128\)"):
        CIFARDataModule(str(tmp_path), val_size=10, verify=False).setup()
    with pytest.raises(DataError, match="standard deviation is 0"):  # also with per-image normalisation
        CIFARDataModule(str(tmp_path), val_size=10, verify=False, normalise="gcn").setup()


def test_cifar_old_switch_verify_md5_false_still_turns_the_check_off(tmp_path):
    write_cifar10(tmp_path, n_train_per_batch=20, n_test=10, seed=4)
    dm = CIFARDataModule(str(tmp_path), val_size=10, verify_md5=False)
    dm.setup()
    assert len(dm.data_train) == 90
