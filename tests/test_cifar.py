"""The CIFAR DataModule on small fixture files in the official format: loading, errors, normalisation
and the on-device augmentation."""

import pickle
from types import SimpleNamespace

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from hydra.utils import instantiate
from lightning import LightningModule, Trainer

from highwaylab.data import CIFARDataModule
from highwaylab.errors import ConfigError, DataError

from .cifar_files import dump_py2, write_cifar10, write_cifar100
from .conftest import compose_cfg

VAL = 50  # validation images of the fixtures (of 300 training images)


@pytest.fixture(scope="module")
def cifar10_files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cifar10")
    return root, write_cifar10(root, n_train_per_batch=60, n_test=50, seed=0)


@pytest.fixture(scope="module")
def cifar10(cifar10_files):
    root, _ = cifar10_files
    dm = CIFARDataModule(str(root), val_size=VAL, batch_size=32, verify=False)
    dm.setup()
    return dm


@pytest.fixture
def fresh_cifar10(tmp_path):
    """A fixture folder of its own, to break."""
    write_cifar10(tmp_path, n_train_per_batch=20, n_test=10, seed=1)
    return tmp_path, tmp_path / "cifar-10-batches-py"


def test_cifar10_fixture_shapes_split_labels_and_pixel_layout(cifar10, cifar10_files):
    _, written = cifar10_files
    assert cifar10.data_train.x.shape == (250, 3, 32, 32) and cifar10.data_train.x.dtype == torch.uint8
    assert cifar10.data_val.x.shape == (VAL, 3, 32, 32) and cifar10.data_val.x.dtype == torch.uint8
    assert cifar10.data_test.x.shape == (50, 3, 32, 32) and cifar10.data_test.y.dtype == torch.long
    assert (cifar10.num_classes, cifar10.in_features, cifar10.input_shape) == (10, 3072, (3, 32, 32))
    assert cifar10.class_names[:2] == ["airplane", "automobile"]
    counts = torch.bincount(torch.cat([cifar10.data_train.y, cifar10.data_val.y]), minlength=10)
    assert counts.tolist() == np.bincount(written["train_y"], minlength=10).tolist()
    assert cifar10.data_test.y.tolist() == written["test_y"].tolist()
    # each row of 3072 bytes is R, G, B planes of a row-major 32 x 32 image
    image = torch.from_numpy(written["test_x"][7]).reshape(3, 32, 32)
    assert torch.equal(cifar10.data_test.x[7], image)
    assert cifar10.data_test.x[7, 1, 2, 5] == written["test_x"][7][1024 + 2 * 32 + 5]
    # the split: a seeded permutation of the 300 training images in file order
    perm = torch.randperm(300, generator=torch.Generator().manual_seed(0))
    fit_x = torch.from_numpy(written["train_x"]).reshape(-1, 3, 32, 32)
    assert torch.equal(cifar10.data_val.x, fit_x[perm[:VAL]])
    assert torch.equal(cifar10.data_train.x, fit_x[perm[VAL:]])
    assert cifar10.data_train.y.tolist() == written["train_y"][perm[VAL:].numpy()].tolist()


def test_cifar100_fixture_has_fine_labels_up_to_99(tmp_path):
    written = write_cifar100(tmp_path, n_train=300, n_test=100, seed=2)
    dm = CIFARDataModule(str(tmp_path), dataset="cifar100", val_size=VAL, verify=False)
    dm.setup()
    assert dm.num_classes == 100 and len(dm.class_names) == 100
    fit_y = torch.cat([dm.data_train.y, dm.data_val.y])
    assert int(fit_y.max()) == 99 and int(fit_y.min()) == 0
    expected = np.bincount(written["train_y"], minlength=100).tolist()
    assert torch.bincount(fit_y, minlength=100).tolist() == expected
    assert dm.data_test.y.tolist() == written["test_y"].tolist()
    assert torch.equal(dm.data_test.x[3], torch.from_numpy(written["test_x"][3]).reshape(3, 32, 32))


def test_setup_twice_keeps_the_data_and_the_split_is_seeded(cifar10, cifar10_files):
    first = cifar10.data_val.x
    cifar10.setup()
    assert cifar10.data_val.x is first
    other = CIFARDataModule(str(cifar10_files[0]), val_size=VAL, split_seed=1, verify=False)
    other.setup()
    assert not torch.equal(other.data_val.x, first)


def test_batches_stay_uint8_until_the_device(cifar10):
    x, y = next(iter(cifar10.train_dataloader()))
    assert x.shape == (32, 3, 32, 32) and x.dtype == torch.uint8 and y.dtype == torch.long
    assert len(list(cifar10.val_dataloader())) == 2  # ceil(50 / 32)


def test_md5_check_of_fixture_files_points_at_verify(cifar10_files):
    root, _ = cifar10_files
    with pytest.raises(DataError, match="data.verify=false") as err:
        CIFARDataModule(str(root), val_size=VAL).setup()
    assert str(root / "cifar-10-batches-py" / "data_batch_1") in str(err.value)
    assert "md5" in str(err.value) and "c99cafc152244af753f735de768cd75f" in str(err.value)


def test_missing_folder_names_path_and_download(tmp_path):
    with pytest.raises(DataError, match="Data folder missing") as err:
        CIFARDataModule(str(tmp_path), dataset="cifar100").setup()
    msg = str(err.value)
    assert str(tmp_path / "cifar-100-python") in msg
    assert "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz" in msg
    assert "HIGHWAYLAB_DATA_DIR" in msg and "data.download=true" in msg


def test_missing_file_is_named(fresh_cifar10):
    root, folder = fresh_cifar10
    (folder / "test_batch").unlink()
    with pytest.raises(DataError, match="Data file missing") as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    assert str(folder / "test_batch") in str(err.value)
    assert "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz" in str(err.value)


def test_unreadable_file_is_named(fresh_cifar10):
    root, folder = fresh_cifar10
    path = folder / "data_batch_3"
    path.write_bytes(path.read_bytes()[:500])  # truncated pickle
    with pytest.raises(DataError, match="could not be unpickled") as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    assert str(path) in str(err.value)


def test_labels_out_of_range_and_count_mismatch_are_named(fresh_cifar10):
    root, folder = fresh_cifar10
    path = folder / "data_batch_4"
    entry = read_batch(path)
    entry[b"labels"][0] = 10
    dump_py2(entry, path)
    with pytest.raises(DataError, match=r"labels outside 0 \.\. 9 \(min 0, max 10\)") as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    assert str(path) in str(err.value)
    entry[b"labels"] = entry[b"labels"][1:]
    dump_py2(entry, path)
    with pytest.raises(DataError, match="holds 20 images but 19 labels") as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    assert str(path) in str(err.value)


def read_batch(path):
    """A CIFAR batch file as the CIFAR site reads it: ``pickle.load(f, encoding="bytes")`` (bytes keys)."""
    with path.open("rb") as f:
        return pickle.load(f, encoding="bytes")


def setup_refusal(root) -> str:
    """The DataError line of a CIFAR-10 data module set up on ``root`` with ``data.verify=false``."""
    with pytest.raises(DataError) as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    return str(err.value)


@pytest.mark.parametrize("case", ["HWC images", "float images"])
def test_own_files_in_another_layout_are_refused_with_the_format_to_write(fresh_cifar10, case):
    # pass 35, row 16 (major): before, images saved as (N, 32, 32, 3) passed torchvision's reshape and the
    # run trained on scrambled channels, rc 0; row 17: float64 rows were refused with the official download
    # as the only fix, for files of the user's own (data.verify=false)
    root, folder = fresh_cifar10
    path = folder / "data_batch_2"
    entry = read_batch(path)
    rows = entry[b"data"]
    entry[b"data"] = (rows.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1).copy() if case == "HWC images"
                      else rows / 255.0)
    dump_py2(entry, path)
    got = "ndarray uint8 (20, 32, 32, 3)" if case == "HWC images" else "ndarray float64 (20, 3072)"
    refused = setup_refusal(root)
    assert refused == (
        f"Data file corrupt: {path} has no uint8 'data' array of (N, 3072) rows (got {got}). Fix: write "
        f"each batch as the CIFAR python files hold it (data.verify=false reads files of your own in that "
        f"format): a dict with 'data', a uint8 array of (N, 3072) rows (values 0..255; the red, then green, "
        f"then blue 32 x 32 plane of each image) and 'labels', N labels in 0 .. 9")


def test_a_meta_file_without_its_class_names_gets_the_format_of_meta(fresh_cifar10):
    # pass 66, row 18: before, a meta file without its class names was told to hold 'data' and 'labels', as
    # a batch does
    root, folder = fresh_cifar10
    path = folder / "batches.meta"
    dump_py2({"num_cases_per_batch": 20}, path)
    assert setup_refusal(root) == (
        f"Data file corrupt: {path} is not a CIFAR pickle: no 'label_names' entry. Fix: write batches.meta "
        f"as the CIFAR python files hold it (data.verify=false reads files of your own in that format): a "
        f"dict with 'label_names', the 10 class names in the order of the labels")
    dump_py2({"label_names": [f"class_{k}" for k in range(10)]}, path)  # the fix
    dm = CIFARDataModule(str(root), val_size=10, verify=False)
    dm.setup()
    assert dm.class_names == [f"class_{k}" for k in range(10)]


def test_batches_saved_again_with_bytes_keys_are_named_as_that_and_the_fix_works(fresh_cifar10):
    # breaking pass 60, row 23: before, "is not a CIFAR pickle: no 'labels' entry", of a file with b'labels'
    # (read with encoding='bytes', as the CIFAR site shows, and saved again from Python 3)
    root, folder = fresh_cifar10
    path = folder / "data_batch_3"
    batch = read_batch(path)
    with path.open("wb") as f:
        pickle.dump(batch, f)
    refused = setup_refusal(root)
    assert refused == (
        f"Data file corrupt: {path} has bytes keys (b'batch_label', b'labels', b'data', b'filenames'), as "
        f"pickle.load(f, encoding='bytes') reads the official files and pickle.dump then keeps them; the "
        f"files are read with str keys ('labels'). Fix: save each batch again with str keys, "
        f"{{k.decode(): v for k, v in batch.items()}}")
    with path.open("wb") as f:  # the fix
        pickle.dump({k.decode(): v for k, v in batch.items()}, f)
    CIFARDataModule(str(root), val_size=10, verify=False).setup()


@pytest.mark.parametrize("form", ["column array", "list of lists"])
def test_labels_in_a_column_are_refused_by_shape_before_any_step(fresh_cifar10, form):
    # breaking pass 61, row 8 (major): before, labels of shape (N, 1) passed the format check, and the first
    # validation step failed with a traceback ("0D or 1D target tensor expected, multi-target not supported")
    root, folder = fresh_cifar10
    path = folder / "data_batch_4"
    batch = read_batch(path)
    labels = np.asarray(batch[b"labels"]).reshape(-1, 1)
    batch[b"labels"] = labels if form == "column array" else labels.tolist()
    dump_py2(batch, path)
    got = f"of shape ({len(labels)}, 1)" if form == "column array" else "of lists"
    refused = setup_refusal(root)
    assert refused.startswith(
        f"Data file corrupt: {path} has 'labels' {got}; they must be N integers, one per image (a list or a "
        f"1-D array, e.g. labels.reshape(-1).tolist()). Fix: write each batch as the CIFAR python files hold "
        f"it"), refused
    batch[b"labels"] = labels.reshape(-1).tolist()  # the fix
    dump_py2(batch, path)
    CIFARDataModule(str(root), val_size=10, verify=False).setup()


def test_an_empty_batch_file_is_refused(fresh_cifar10):
    # breaking pass 62, row 24: before, a test_batch of 0 images ran, "tested" nothing and exited 0
    root, folder = fresh_cifar10
    path = folder / "test_batch"
    batch = read_batch(path)
    batch[b"data"], batch[b"labels"] = batch[b"data"][:0], []
    dump_py2(batch, path)
    refused = setup_refusal(root)
    assert refused.startswith(f"Data file corrupt: {path} holds 0 images, so the set it belongs to "
                                     f"would be measured on nothing. Fix: write each batch as the CIFAR")


def test_labels_written_as_text_are_refused_by_name(fresh_cifar10):
    # breaking pass 65, row 13 (major): before, '3' labels gave a TypeError traceback from the format check
    root, folder = fresh_cifar10
    path = folder / "data_batch_5"
    batch = read_batch(path)
    batch[b"labels"] = [str(label) for label in batch[b"labels"]]
    dump_py2(batch, path)
    first = batch[b"labels"][0]
    refused = setup_refusal(root)
    assert refused.startswith(f"Data file corrupt: {path} has 'labels' that are not integers (e.g. "
                                     f"{first!r}, a str); they must be N integers, one per image. Fix: ")


def test_eval_transform_is_deterministic_and_channel_standardised(cifar10):
    x = cifar10.data_train.x
    out = cifar10.transform_batch(x, train=False)
    assert out.dtype == torch.float32 and out.shape == x.shape
    assert torch.equal(out, cifar10.transform_batch(x, train=False))
    torch.testing.assert_close(out.mean(dim=(0, 2, 3)), torch.zeros(3), atol=1e-4, rtol=0)
    torch.testing.assert_close(out.std(dim=(0, 2, 3)), torch.ones(3), atol=1e-4, rtol=0)
    expected = (x.double() / 255 - x.double().div(255).mean(dim=(0, 2, 3), keepdim=True)) / \
        x.double().div(255).std(dim=(0, 2, 3), keepdim=True)
    torch.testing.assert_close(out, expected.float(), atol=1e-5, rtol=0)


def test_gcn_normalises_each_image(cifar10_files):
    dm = CIFARDataModule(str(cifar10_files[0]), val_size=VAL, normalise="gcn", verify=False)
    dm.setup()
    out = dm.transform_batch(dm.data_test.x, train=False)
    torch.testing.assert_close(out.mean(dim=(1, 2, 3)), torch.zeros(50), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.std(dim=(1, 2, 3)), torch.ones(50), atol=1e-5, rtol=0)
    flat = torch.zeros(1, 3, 32, 32, dtype=torch.uint8) + 77  # no contrast: all zeros, no division by 0
    assert torch.equal(dm.transform_batch(flat, train=False), torch.zeros(1, 3, 32, 32))


def _find_shifts(out: torch.Tensor, clean: torch.Tensor, pad: int = 4) -> tuple[torch.Tensor, torch.Tensor]:
    """For each augmented image, a (dy, dx, flipped) under which it equals the zero-padded clean image."""
    padded = F.pad(clean, (pad, pad, pad, pad))
    found = torch.zeros(len(out), dtype=torch.bool)
    shifts = torch.zeros(len(out), 3, dtype=torch.long)
    for dy in range(2 * pad + 1):
        for dx in range(2 * pad + 1):
            crop = padded[:, :, dy:dy + 32, dx:dx + 32]
            for flipped, candidate in ((0, crop), (1, crop.flip(-1))):
                match = ~found & ((candidate - out).abs().amax(dim=(1, 2, 3)) <= 1e-6)
                shifts[match] = torch.tensor([dy - pad, dx - pad, flipped])
                found |= match
    return found, shifts


@pytest.mark.slow
def test_augmentation_translates_and_mirrors_images_keeps_labels(cifar10):
    torch.manual_seed(0)
    x, y = cifar10.data_train.x, cifar10.data_train.y
    cifar10.trainer = SimpleNamespace(training=True)
    try:
        out, out_y = cifar10.on_after_batch_transfer((x, y), 0)
    finally:
        cifar10.trainer = None
    assert out_y is y
    found, shifts = _find_shifts(out, cifar10.transform_batch(x, train=False))
    assert found.all(), f"{int((~found).sum())} images are no shift/flip of their originals"
    assert shifts[:, :2].abs().max() <= 4
    assert shifts[:, 2].any() and not shifts[:, 2].all()  # p = 0.5 of 250 images
    assert (shifts[:, :2] != 0).any(dim=1).any()
    assert len({tuple(s) for s in shifts[:, :2].tolist()}) > 20  # translations are drawn per example


def test_no_augmentation_outside_training(cifar10_files, cifar10):
    x = cifar10.data_val.x
    assert cifar10.trainer is None  # then the hook treats the batch as evaluation
    out, _ = cifar10.on_after_batch_transfer((x, cifar10.data_val.y), 0)
    assert torch.equal(out, cifar10.transform_batch(x, train=False))
    plain = CIFARDataModule(str(cifar10_files[0]), val_size=VAL, augment=False, verify=False)
    plain.setup()
    assert torch.equal(plain.transform_batch(x, train=True), plain.transform_batch(x, train=False))


class _Recorder(LightningModule):
    """A linear model that records what training_step and validation_step receive."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(3072, 10)
        self.seen: dict[str, list[torch.Tensor]] = {"train": [], "val": []}

    def training_step(self, batch, batch_idx):
        self.seen["train"].append(batch[0])
        return F.cross_entropy(self.linear(batch[0].flatten(1)), batch[1])

    def validation_step(self, batch, batch_idx):
        self.seen["val"].append(batch[0])

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.01)


def test_trainer_calls_the_hook_augmenting_only_training_batches(cifar10_files):
    dm = CIFARDataModule(str(cifar10_files[0]), val_size=VAL, batch_size=64, verify=False)
    model = _Recorder()
    trainer = Trainer(accelerator="cpu", max_epochs=1, limit_train_batches=2, limit_val_batches=1,
                      num_sanity_val_steps=0, logger=False, enable_checkpointing=False,
                      enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(model, datamodule=dm)
    (val,) = model.seen["val"]
    torch.testing.assert_close(val, dm.transform_batch(dm.data_val.x[:64], train=False))
    assert len(model.seen["train"]) == 2 and model.seen["train"][0].dtype == torch.float32
    zero_border = (model.seen["train"][0][:, :, :1].abs().amax(dim=(1, 2, 3)) == 0).sum()
    assert zero_border > 0  # some training images were shifted down, bringing in padding


def test_bad_options_name_their_key(tmp_path, fresh_cifar10):
    with pytest.raises(ConfigError, match="data.dataset='cifar1000'"):
        CIFARDataModule(str(tmp_path), dataset="cifar1000")
    for bad in (0, 50_000, "5000"):
        with pytest.raises(ConfigError, match="data.val_size"):
            CIFARDataModule(str(tmp_path), val_size=bad)
    with pytest.raises(ConfigError, match="data.normalise='zca'"):
        CIFARDataModule(str(tmp_path), normalise="zca")
    with pytest.raises(ConfigError, match="data.pad=-1"):
        CIFARDataModule(str(tmp_path), pad=-1)
    with pytest.raises(ConfigError, match="data.verify='no'"):
        CIFARDataModule(str(tmp_path), verify="no")
    with pytest.raises(ConfigError, match="data.verify_md5='no'"):
        CIFARDataModule(str(tmp_path), verify_md5="no")
    with pytest.raises(ConfigError, match="data.batch_size"):
        CIFARDataModule(str(tmp_path), batch_size=0)
    root, _ = fresh_cifar10  # 100 training images
    with pytest.raises(ConfigError, match="data.val_size=5000 leaves no training images") as err:
        CIFARDataModule(str(root), verify=False).setup()
    assert "holds 100" in str(err.value)


@pytest.mark.parametrize("name", ["cifar10", "cifar100"])
def test_data_configs_instantiate(name, tmp_path):
    cfg = compose_cfg([f"data={name}", f"data.data_dir={tmp_path}"], tmp_path / "out")
    dm = instantiate(cfg.data)
    assert isinstance(dm, CIFARDataModule)
    assert dm.hparams.dataset == name and dm.hparams.verify and dm.hparams.augment
    assert dm.hparams.verify_md5 is None and dm.verify
    assert (dm.hparams.normalise, dm.hparams.pad, dm.hparams.val_size) == ("channel", 4, 5000)
    assert dm.num_classes == (10 if name == "cifar10" else 100)


def test_files_extracted_one_folder_too_deep_get_the_move_that_works(fresh_cifar10, tmp_path):
    # pass 68, row 24: the archive extracted inside a folder of its own name; before, "missing ... download"
    import subprocess

    root, folder = fresh_cifar10
    deep = folder / "cifar-10-batches-py"
    deep.mkdir()
    names = [p.name for p in folder.iterdir() if p.is_file()]
    for name in names:
        (folder / name).rename(deep / name)
    refused = setup_refusal(root)
    files = " ".join(str(deep / name) for name in
                     ["data_batch_1", "data_batch_2", "data_batch_3", "data_batch_4", "data_batch_5",
                      "test_batch", "batches.meta"])
    assert refused == (f"Data file missing: {folder / 'data_batch_1'}. The files are in {deep}, one folder "
                       f"below {folder}, where they are read (an archive extracted into a folder of its own "
                       f"name?). Fix: mv {files} {folder}/ && rmdir {deep}")
    subprocess.run(refused.split("Fix: ", 1)[1], shell=True, check=True)  # the fix, as given
    CIFARDataModule(str(root), val_size=10, verify=False).setup()
