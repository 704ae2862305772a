"""The MNIST DataModule on the real files, and its errors on missing or broken ones."""

import shutil

import pytest
import torch

from highwaylab.data import MNISTDataModule
from highwaylab.errors import ConfigError, DataError

# label counts of the 60,000 MNIST training images (../shared/data/README.md)
MNIST_TRAIN_COUNTS = [5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]


@pytest.fixture(scope="module")
def mnist(data_dir):
    dm = MNISTDataModule(str(data_dir))
    dm.setup()
    return dm


def test_real_mnist_shapes_split_and_label_counts(mnist):
    assert mnist.data_train.x.shape == (55_000, 1, 28, 28)
    assert mnist.data_val.x.shape == (5_000, 1, 28, 28)
    assert mnist.data_test.x.shape == (10_000, 1, 28, 28)
    assert mnist.data_train.x.dtype == torch.float32
    counts = torch.bincount(torch.cat([mnist.data_train.y, mnist.data_val.y]), minlength=10)
    assert counts.tolist() == MNIST_TRAIN_COUNTS
    assert torch.bincount(mnist.data_test.y).sum() == 10_000
    # standardised with the training images' own mean 0.1307 and std 0.3081
    fit = torch.cat([mnist.data_train.x, mnist.data_val.x])
    assert fit.mean().item() == pytest.approx(0.0, abs=1e-3)
    assert fit.std().item() == pytest.approx(1.0, abs=1e-3)
    raw_zero = (0 - 0.1307) / 0.3081  # a black pixel
    assert mnist.data_test.x.min().item() == pytest.approx(raw_zero, abs=1e-3)


def test_split_is_seeded_and_setup_is_idempotent(data_dir, mnist):
    first = mnist.data_val.y.clone()
    mnist.setup()  # a second call keeps the data
    assert torch.equal(mnist.data_val.y, first)
    other = MNISTDataModule(str(data_dir), split_seed=1)
    other.setup()
    assert not torch.equal(other.data_val.y, first)


def test_batches_come_whole_from_indexing(mnist):
    x, y = next(iter(mnist.train_dataloader()))
    assert x.shape == (128, 1, 28, 28) and y.shape == (128,)
    assert y.dtype == torch.long
    batches = list(mnist.val_dataloader())
    assert len(batches) == 40  # ceil(5000 / 128)
    torch.testing.assert_close(torch.cat([b[0] for b in batches]), mnist.data_val.x)


def test_fashion_mnist_has_6000_train_images_per_class(data_dir):
    dm = MNISTDataModule(str(data_dir), dataset="fashion_mnist")
    dm.setup()
    counts = torch.bincount(torch.cat([dm.data_train.y, dm.data_val.y]))
    assert counts.tolist() == [6000] * 10
    assert torch.bincount(dm.data_test.y).tolist() == [1000] * 10


@pytest.fixture
def copied_mnist(tmp_path, data_dir):
    raw = tmp_path / "MNIST" / "raw"
    shutil.copytree(data_dir / "MNIST" / "raw", raw)
    return tmp_path, raw


def test_missing_file_names_folder_files_and_fixes(copied_mnist):
    root, raw = copied_mnist
    (raw / "t10k-labels-idx1-ubyte").unlink()
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(root)).setup()
    msg = str(err.value)
    assert str(raw / "t10k-labels-idx1-ubyte") in msg
    assert "train-images-idx3-ubyte" in msg and "HIGHWAYLAB_DATA_DIR" in msg
    assert "data.download=true" in msg


def test_truncated_file_is_reported_with_its_sizes(copied_mnist):
    root, raw = copied_mnist
    path = raw / "train-images-idx3-ubyte"
    path.write_bytes(path.read_bytes()[:100_000])
    with pytest.raises(DataError, match="truncated") as err:
        MNISTDataModule(str(root)).setup()
    assert str(path) in str(err.value)
    assert "100000 bytes" in str(err.value) and "47040016" in str(err.value)  # 16 + 60000*28*28


def test_an_images_file_with_a_labels_header_is_called_a_damaged_header(copied_mnist):
    # pass 36, row 21: before, "corrupt (longer than its header says) ... its header (10000) needs 10008"
    root, raw = copied_mnist
    path = raw / "t10k-images-idx3-ubyte"
    data = bytearray(path.read_bytes())
    data[3] = 1  # the labels file's magic, 00 00 08 01
    path.write_bytes(bytes(data))
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(root)).setup()
    assert str(err.value).startswith(
        f"Data file corrupt: {path} has the header of a 1-dimensional IDX file (bytes 0-3: 00 00 08 01, a "
        f"labels file's), but an images file has 3 (00 00 08 03), and its 7840016 bytes do not fit that "
        f"header: the header is damaged. Delete it and copy or download it again.")


def test_a_file_longer_than_its_header_is_not_called_truncated(copied_mnist):
    root, raw = copied_mnist
    path = raw / "t10k-labels-idx1-ubyte"
    path.write_bytes(path.read_bytes() + bytes(100))
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(root), verify=False).setup()
    assert str(err.value).startswith(f"Data file corrupt (longer than its header says): {path} has 10108 "
                                     f"bytes, but its header (10000) needs 10008.")


def test_corrupt_header_is_reported(copied_mnist):
    root, raw = copied_mnist
    path = raw / "train-labels-idx1-ubyte"
    path.write_bytes(b"garbage" + path.read_bytes()[7:])
    with pytest.raises(DataError, match="IDX header") as err:
        MNISTDataModule(str(root)).setup()
    assert str(path) in str(err.value)


def test_bad_datamodule_options(tmp_path):
    with pytest.raises(ConfigError, match="data.dataset='cifar'"):
        MNISTDataModule(str(tmp_path), dataset="cifar")
    with pytest.raises(ConfigError, match="data.val_size"):
        MNISTDataModule(str(tmp_path), val_size=0)
    with pytest.raises(ConfigError, match="data.batch_size"):
        MNISTDataModule(str(tmp_path), batch_size=0)
    with pytest.raises(ConfigError, match="data.verify='no'"):
        MNISTDataModule(str(tmp_path), verify="no")


def test_image_and_label_files_of_different_lengths_are_reported(copied_mnist, data_dir):
    root, raw = copied_mnist
    labels = raw / "train-labels-idx1-ubyte"
    labels.write_bytes((data_dir / "MNIST" / "raw" / "t10k-labels-idx1-ubyte").read_bytes())  # valid, 10k
    with pytest.raises(DataError, match="do not match") as err:  # verified, it is "train and test swapped?"
        MNISTDataModule(str(root), verify=False).setup()
    assert "60000 images" in str(err.value) and "10000 labels" in str(err.value)
    assert str(labels) in str(err.value)


def test_labels_out_of_range_are_reported(copied_mnist):
    root, raw = copied_mnist
    labels = raw / "t10k-labels-idx1-ubyte"
    data = bytearray(labels.read_bytes())
    data[8] = 255  # the first label (after the 8-byte header)
    labels.write_bytes(bytes(data))
    with pytest.raises(DataError, match=r"labels outside 0 \.\. 9 \(min 0, max 255\)") as err:
        MNISTDataModule(str(root), verify=False).setup()
    assert str(labels) in str(err.value)


def test_val_size_must_leave_training_images(copied_mnist):
    root, raw = copied_mnist
    for name, item in (("train-images-idx3-ubyte", 28 * 28), ("train-labels-idx1-ubyte", 1)):
        path = raw / name
        data = bytearray(path.read_bytes())
        header = 16 if item > 1 else 8
        data[4:8] = (100).to_bytes(4, "big")  # keep a valid file of the first 100 examples
        path.write_bytes(bytes(data[:header + 100 * item]))
    with pytest.raises(ConfigError, match="data.val_size=5000 leaves no training images") as err:
        MNISTDataModule(str(root), verify=False).setup()
    # pass 92, row 26: a value that trains (before, "set data.val_size below that": 99 was refused in turn)
    assert str(err.value).endswith(
        "holds 100. Fix: a smaller validation set, e.g. data.val_size=10 (a tenth)")
    MNISTDataModule(str(root), val_size=10, verify=False).setup()  # the fix trains
    dm = MNISTDataModule(str(root), val_size=20, verify=False)
    dm.setup()
    assert (len(dm.data_train), len(dm.data_val)) == (80, 20)
    with pytest.raises(ConfigError, match="data.num_workers=-1"):
        MNISTDataModule(str(root), num_workers=-1)
    with pytest.raises(ConfigError, match="data.split_seed='abc'"):
        MNISTDataModule(str(root), split_seed="abc")


def test_an_empty_data_dir_variable_is_named_with_unset_as_a_fix(monkeypatch):
    # pass 36, row 68: before, "data.data_dir is '', not a folder", with the variable set but empty
    from highwaylab.data.files import check_data_dir
    from highwaylab.errors import ConfigError

    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", "")
    with pytest.raises(ConfigError) as err:
        check_data_dir("", "MNIST/raw/")
    assert str(err.value) == (
        "the environment variable HIGHWAYLAB_DATA_DIR is set, to '', and gives data.data_dir: not a folder. "
        "Fix: set it to the folder that holds MNIST/raw/ (export HIGHWAYLAB_DATA_DIR=<folder>), or unset it "
        "(unset HIGHWAYLAB_DATA_DIR: the default, <checkout>/data), or give data.data_dir=<folder>")
