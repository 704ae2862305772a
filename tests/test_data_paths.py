"""Something other than a data file at a data file's name (issue 11, #75/#76): a symbolic link that
loops or points nowhere, a folder, a FIFO, a file where a folder should be. Each is refused in one
line that names the path, what is wrong with it and the fix, not as a missing file ("copy them
there"). The DataModules are called in-process; every fault is found before any file is read."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from highwaylab.data import CIFARDataModule, MNISTDataModule, check_idx_file
from highwaylab.data.checks import check_data_path
from highwaylab.data.mnist import RAW_FILES
from highwaylab.errors import DataError

IMAGES = "train-images-idx3-ubyte"


@pytest.fixture
def linked_mnist(tmp_path: Path, data_dir: Path) -> tuple[Path, Path]:
    """``<tmp>/MNIST/raw/`` holding symbolic links to the four real MNIST files (to break one)."""
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in RAW_FILES:
        (raw / name).symlink_to(data_dir / "MNIST" / "raw" / name)
    return tmp_path, raw


def setup_error(root: Path, download: bool = False) -> str:
    """The one DataError message of ``prepare_data()`` + ``setup()`` of MNIST in ``root``."""
    dm = MNISTDataModule(str(root), download=download)
    with pytest.raises(DataError) as err:
        dm.prepare_data()
        dm.setup()
    msg = str(err.value)
    assert "\n" not in msg  # one line
    assert "copy them there" not in msg  # not the missing-file message
    return msg


def _replace(path: Path, make: Callable[[Path], object]) -> Path:
    path.unlink()
    make(path)
    return path


# fault: (how to make it at MNIST/raw/train-images-idx3-ubyte, words the message must hold)
FILE_FAULTS = {
    "link to itself": (lambda p: os.symlink(p.name, p),
                       ["Data file is a symbolic link that loops:", f"-> {IMAGES} never reaches a file",
                        "Fix: remove the link (rm {path})", "ln -sfn <real file> {path}"]),
    "links to each other": (lambda p: (os.symlink("a", p), os.symlink("b", p.parent / "a"),
                                       os.symlink("a", p.parent / "b")),
                            ["Data file is a symbolic link that loops:", "{path} -> a never reaches a file",
                             "Fix: remove the link (rm {path})"]),
    "dangling link": (lambda p: os.symlink(p.parent / "gone" / p.name, p),
                      ["Data file is a dangling symbolic link:", "points to nothing",
                       "{raw}/gone/" + IMAGES + " does not exist)", "Fix: point the link at the real file"]),
    "folder": (lambda p: p.mkdir(),
               ["Data file is a folder: {path} is a folder, where the data file " + IMAGES + " should be",
                "Fix: move the folder away (e.g. mv {path} {path}.bak)"]),
    "link to a folder": (lambda p: os.symlink(p.parent, p),
                         ["Data file is a folder: {path} is a symbolic link to {raw}, which is a folder",
                          "Fix: remove the link (rm {path})"]),
    "FIFO": (lambda p: os.mkfifo(p),  # reading it would block forever
             ["Data file is not a file: {path} is a FIFO", "Fix: remove it (rm {path})"]),
}


@pytest.mark.parametrize("fault", FILE_FAULTS)
def test_a_broken_data_file_is_named_with_its_fault_and_fix(linked_mnist, fault):
    root, raw = linked_mnist
    make, words = FILE_FAULTS[fault]
    path = _replace(raw / IMAGES, make)
    msg = setup_error(root)
    assert msg.startswith("Data file ") and f"{path}" in msg
    for word in words:
        assert word.format(path=path, raw=raw) in msg, (word, msg)


def test_the_file_inside_a_folder_of_its_name_is_pointed_at(linked_mnist, data_dir):
    root, raw = linked_mnist
    folder = _replace(raw / IMAGES, Path.mkdir)
    (folder / IMAGES).symlink_to(data_dir / "MNIST" / "raw" / IMAGES)  # unpacked one level too deep
    msg = setup_error(root)
    assert msg.startswith(f"Data file is a folder: {folder} is a folder,")
    assert msg.endswith(f"Fix: cd {raw} && mv {IMAGES} {IMAGES}.d && mv {IMAGES}.d/{IMAGES} {IMAGES} && "
                        f"rmdir {IMAGES}.d")  # pass 57, row 19: a command, where it said "move it up"


@pytest.mark.parametrize("fault", ["file", "loop", "dangling"])
def test_a_broken_raw_folder_is_named_not_the_file_below_it(linked_mnist, fault):
    root, raw = linked_mnist
    for name in RAW_FILES:
        (raw / name).unlink()
    raw.rmdir()
    {"file": lambda: raw.write_bytes(b""), "loop": lambda: os.symlink("raw", raw),
     "dangling": lambda: os.symlink(root / "elsewhere", raw)}[fault]()
    msg = setup_error(root)
    first = raw / RAW_FILES[0]
    assert {"file": f"Data folder is not a folder: {raw} is a regular file, so {first} cannot be there. "
                    f"Fix: point data.data_dir (or the environment variable HIGHWAYLAB_DATA_DIR) at the "
                    f"folder that holds the data, or move this file aside (mv {raw} {raw}.old) and put "
                    f"the data folder there.",  # before: "put the data folder at ... in its place"
            "loop": f"Data folder is a symbolic link that loops: {raw} -> raw never reaches a folder (too "
                    f"many levels of symbolic links), so {first} cannot be reached. Fix: remove the link "
                    f"(rm {raw})",
            "dangling": f"Data folder is a dangling symbolic link: {raw} -> {root / 'elsewhere'} points to "
                        f"nothing ({root / 'elsewhere'} does not exist), so {first} cannot be reached. "
                        f"Fix: point the link at the real folder"}[fault] in msg


def test_a_loop_is_refused_before_any_download(linked_mnist):
    """With data.download=true the loop is not taken for a missing file (a download, failing offline)."""
    root, raw = linked_mnist
    path = _replace(raw / IMAGES, lambda p: os.symlink(p.name, p))
    msg = setup_error(root, download=True)
    assert msg.startswith(f"Data file is a symbolic link that loops: {path} -> {IMAGES} ")
    assert "download" not in msg


def test_only_the_gz_there_says_gunzip(linked_mnist):
    """The loader reads the uncompressed IDX file; a .gz beside its name is not read, and named."""
    root, raw = linked_mnist
    (raw / IMAGES).unlink()
    (raw / f"{IMAGES}.gz").write_bytes(b"\x1f\x8b")
    msg = setup_error(root)
    assert msg == (f"Data file missing: {raw / IMAGES}; only the compressed {IMAGES}.gz is there, and the "
                   f"uncompressed IDX file is what is read. Fix: gunzip -k {raw / IMAGES}.gz")


def test_gzip_data_under_the_idx_files_name_gets_the_gunzip_that_works(linked_mnist, data_dir):
    # pass 68, row 6: a .gz renamed to the plain name; before, "does not start with a uint8 IDX header"
    import gzip
    import subprocess

    root, raw = linked_mnist
    labels = raw / "t10k-labels-idx1-ubyte"
    labels.unlink()
    labels.write_bytes(gzip.compress((data_dir / "MNIST" / "raw" / labels.name).read_bytes()))
    msg = setup_error(root)
    assert msg == (f"Data file compressed: {labels} holds gzip data (its first bytes are 1f 8b, gzip's magic "
                   f"number) under the name of the uncompressed IDX file, which is what is read. Fix: gunzip "
                   f"-c {labels} > {labels}.idx && mv {labels}.idx {labels}")
    subprocess.run(msg.split("Fix: ", 1)[1], shell=True, check=True)  # the fix, as given
    assert check_idx_file(labels) == [10_000]


def test_a_missing_file_keeps_its_message_and_a_linked_file_is_read(linked_mnist):
    root, raw = linked_mnist
    # the control: a link to the real file is a file
    assert check_idx_file(raw / IMAGES) == [60_000, 28, 28]
    (raw / IMAGES).unlink()
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(root)).setup()
    assert str(err.value).startswith(f"Data file missing: {raw / IMAGES}. Expected the uncompressed IDX "
                                     "files ")
    assert "Fix: copy them there" in str(err.value)
    with pytest.raises(DataError) as err:
        check_data_path(raw / IMAGES, "the caller's message")
    assert str(err.value) == "the caller's message"


# --- CIFAR: the same checks of its folder and files ----------------------------------------------

@pytest.fixture
def cifar_names(tmp_path: Path) -> tuple[Path, Path]:
    """``<tmp>/cifar-10-batches-py/`` with an (empty) file of each name: the path checks come first."""
    folder = tmp_path / "cifar-10-batches-py"
    folder.mkdir()
    for name in [*(f"data_batch_{i}" for i in range(1, 6)), "test_batch", "batches.meta"]:
        (folder / name).write_bytes(b"")
    return tmp_path, folder


def test_cifar_file_loop_and_folder_are_named(cifar_names):
    root, folder = cifar_names
    path = _replace(folder / "test_batch", lambda p: os.symlink(p.name, p))
    with pytest.raises(DataError) as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    assert str(err.value).startswith(f"Data file is a symbolic link that loops: {path} -> test_batch ")
    _replace(path, Path.mkdir)
    with pytest.raises(DataError) as err:
        CIFARDataModule(str(root), val_size=10, verify=False).setup()
    assert str(err.value).startswith(f"Data file is a folder: {path} is a folder, where the data file "
                                     f"test_batch should be.")


def test_cifar_folder_that_is_a_file_or_loops_is_named(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    folder.write_bytes(b"")
    with pytest.raises(DataError) as err:
        CIFARDataModule(str(tmp_path), val_size=10).setup()
    assert str(err.value).startswith(f"Data folder is not a folder: {folder} is a regular file, where the "
                                     f"data folder cifar-10-batches-py should be.")
    folder.unlink()
    folder.symlink_to(folder.name)
    with pytest.raises(DataError) as err:
        CIFARDataModule(str(tmp_path), val_size=10, download=True).prepare_data()
    assert str(err.value).startswith(f"Data folder is a symbolic link that loops: {folder} -> "
                                     f"cifar-10-batches-py never reaches a folder")


@pytest.mark.slow
def test_a_relative_data_folder_names_one_where_the_command_was_typed_under_chdir(tmp_path):
    # pass 26, row 24: before, HIGHWAYLAB_DATA_DIR=../shared/data with hydra.job.chdir=true passed the early
    # check, then "Data file missing: <run folder>/../shared/data/MNIST/raw/...": the job resolved it in
    # its run folder
    import subprocess
    import sys

    from .conftest import ROOT, subprocess_env

    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "hydra.job.chdir=true", "--cfg", "job",
                           "--resolve", "--package", "paths"], capture_output=True, text=True, timeout=120,
                          env={**subprocess_env(), "HIGHWAYLAB_DATA_DIR": "mine/data"}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"data_dir: {tmp_path}/mine/data\n" in proc.stdout


def test_a_data_folder_given_as_a_file_is_not_advised_to_be_moved(tmp_path):
    # pass 27, row 35: before, HIGHWAYLAB_DATA_DIR=<data>/SHA256SUMS (a file) was told "mv <data>/SHA256SUMS
    # <data>/SHA256SUMS.old": to move the shared data's checksum list
    given = tmp_path / "SHA256SUMS"
    given.write_text("")
    first = given / "MNIST" / "raw" / IMAGES
    assert setup_error(given) == (
        f"Data folder is not a folder: {given} is a regular file, so {first} cannot be there. Fix: point "
        f"data.data_dir (or the environment variable HIGHWAYLAB_DATA_DIR) at the folder that holds the data "
        f"(the one that holds MNIST/ or cifar-10-batches-py/, ...), not a file.")


@pytest.mark.parametrize(("inside", "what"), [("MNIST/raw", "the folder of the files themselves"),
                                              ("MNIST", "MNIST/")])
def test_a_data_dir_inside_the_layout_is_pointed_at_the_folder_above(tmp_path, monkeypatch, inside, what):
    # pass 32, note on row 3: HIGHWAYLAB_DATA_DIR=<data>/MNIST/raw was told to copy the files into
    # <data>/MNIST/raw/MNIST/raw; pass 39, row 7: <data>/MNIST (which holds raw/) got the general advice,
    # with a data.download=true that would fetch a second MNIST into <data>/MNIST/MNIST/raw
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / "train-images-idx3-ubyte").write_bytes(b"")
    given = tmp_path / inside
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(given))
    dm = MNISTDataModule(data_dir=str(given))
    with pytest.raises(DataError) as err:
        dm.setup()
    assert str(err.value) == (
        f"Data file missing: {given}/MNIST/raw/train-images-idx3-ubyte. HIGHWAYLAB_DATA_DIR={given} is "
        f"{what}; it names the folder that holds MNIST/raw/. Fix: HIGHWAYLAB_DATA_DIR={tmp_path}")


def test_a_data_dir_one_level_above_the_data_folder_is_pointed_at_it(tmp_path, monkeypatch):
    # pass 57, row 56: HIGHWAYLAB_DATA_DIR=/work/shared for /work/shared/data; before, "copy them there"
    raw = tmp_path / "data" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    (raw / IMAGES).write_bytes(b"")
    (tmp_path / "code").mkdir()  # another folder beside it, without the data
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(tmp_path))
    with pytest.raises(DataError) as err:
        MNISTDataModule(data_dir=str(tmp_path)).setup()
    assert str(err.value) == (
        f"Data file missing: {tmp_path}/MNIST/raw/{IMAGES}. HIGHWAYLAB_DATA_DIR={tmp_path} holds no "
        f"MNIST/raw/, but its folder {tmp_path}/data does. Fix: HIGHWAYLAB_DATA_DIR={tmp_path}/data")
    (tmp_path / "copy" / "MNIST" / "raw").mkdir(parents=True)  # two such folders: which one is not guessed
    (tmp_path / "copy" / "MNIST" / "raw" / IMAGES).write_bytes(b"")
    with pytest.raises(DataError) as err:
        MNISTDataModule(data_dir=str(tmp_path)).setup()
    assert "holds no MNIST/raw/, but" not in str(err.value)


def test_a_data_folder_in_other_letter_case_is_named_with_the_mv(tmp_path):
    # pass 49, row 18: before, "Data file missing: .../MNIST/raw/..." with the general advice, beside a mnist/
    from highwaylab.data.files import check_data_files

    (tmp_path / "mnist" / "raw").mkdir(parents=True)
    with pytest.raises(DataError) as refusal:
        check_data_files("mnist", str(tmp_path))
    assert str(refusal.value) == (
        f"Data file missing: {tmp_path}/MNIST/raw/train-images-idx3-ubyte. {tmp_path}/mnist is there, but "
        f"the folder names are case-sensitive: the files are read from {tmp_path}/MNIST/raw. Fix: mv "
        f"{tmp_path}/mnist {tmp_path}/MNIST")


def refused_then_fixed(data_dir: Path, starts: str, after: str = "Fix: ") -> None:
    """``check_data_files`` refuses ``data_dir`` with a message that starts with ``starts``; the fix it
    gives (the text after ``after``), run in a shell, makes the same check pass."""
    import subprocess

    from highwaylab.data.files import check_data_files

    with pytest.raises(DataError) as refusal:
        check_data_files("mnist", str(data_dir))
    message = str(refusal.value)
    assert message.startswith(starts), message
    subprocess.run(message.split(after)[1], shell=True, check=True)
    check_data_files("mnist", str(data_dir))  # the fix, as given, makes the layout right


def test_files_named_as_another_copy_names_them_get_the_renames_that_work(tmp_path):
    # pass 52, row 11: Kaggle's MNIST names its files train-images.idx3-ubyte; before, "Data file missing"
    # with the general "copy them there", beside the four files
    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in RAW_FILES:
        (raw / name.replace("s-idx", "s.idx")).write_bytes(b"")
    refused_then_fixed(
        tmp_path, f"Data file missing: {raw}/{IMAGES}. The folder {raw} holds the files under other names "
                  f"(train-images.idx3-ubyte for train-images-idx3-ubyte, train-labels.idx1-ubyte for "
                  f"train-labels-idx1-ubyte, t10k-images.idx3-ubyte for t10k-images-idx3-ubyte, ",
        after="Fix: give them the names that are read: ")
    assert sorted(p.name for p in raw.iterdir()) == sorted(RAW_FILES)


def test_a_zipped_or_tarred_data_set_gets_the_command_that_unpacks_it(tmp_path):
    # pass 59, row 8: a data folder holding only mnist.zip; before, "Expected the uncompressed IDX files
    # ... Fix: copy them there", with no word of the archive
    import gzip
    import tarfile
    import zipfile

    raw = tmp_path / "MNIST" / "raw"
    with zipfile.ZipFile(tmp_path / "mnist.zip", "w") as box:  # the .gz files, in a folder of their own
        for name in RAW_FILES:
            box.writestr(f"mnist/{name}.gz", gzip.compress(b""))
    refused_then_fixed(tmp_path, f"Data file missing: {raw}/{IMAGES}. {tmp_path}/mnist.zip is there, packed, "
                                 f"and the files are read unpacked from {raw}. Fix: mkdir -p {raw} && unzip "
                                 f"-j -o {tmp_path}/mnist.zip mnist/train-images-idx3-ubyte.gz ")
    assert sorted(p.name for p in raw.iterdir()) == sorted([*RAW_FILES, *(n + ".gz" for n in RAW_FILES)])
    # Kaggle's spelling, unpacked as it is and renamed to the names that are read
    other = tmp_path / "kaggle"
    other.mkdir()
    with zipfile.ZipFile(other / "archive.zip", "w") as box:
        for name in RAW_FILES:
            box.writestr(name.replace("s-idx", "s.idx"), b"")
    refused_then_fixed(other, f"Data file missing: {other}/MNIST/raw/{IMAGES}. {other}/archive.zip is there")
    assert sorted(p.name for p in (other / "MNIST" / "raw").iterdir()) == sorted(RAW_FILES)
    # a tar of the whole layout: unpacked where it belongs
    layout = tmp_path / "tarred"
    (layout / "src").mkdir(parents=True)
    with tarfile.open(layout / "mnist.tar.gz", "w:gz") as box:
        box.add(raw, arcname="data/MNIST/raw")
    refused_then_fixed(layout, f"Data file missing: {layout}/MNIST/raw/{IMAGES}. {layout}/mnist.tar.gz is "
                               f"there, packed, and the files are read from {layout}/MNIST/raw. Fix: tar -xf "
                               f"{layout}/mnist.tar.gz -C {layout} --strip-components=1")
    # an archive of something else is named as such, with what it holds
    csv = tmp_path / "csv"
    csv.mkdir()
    with zipfile.ZipFile(csv / "mnist.zip", "w") as box:
        box.writestr("mnist_train.csv", "")
        box.writestr("mnist_test.csv", "")
    with pytest.raises(DataError, match=(f"^Data file missing: {csv}/MNIST/raw/{IMAGES}. {csv}/mnist.zip is "
                                         f"there, but it holds none of mnist's files \\(mnist_train.csv, "
                                         f"mnist_test.csv\\): the files read are {IMAGES}, ")):
        from highwaylab.data.files import check_data_files

        check_data_files("mnist", str(csv))


def test_files_one_folder_above_their_own_get_the_move_that_works(tmp_path):
    # pass 52, row 12: the four files in MNIST/, without raw/; before, "Data file missing" and "copy them
    # there", with no word that they were one folder up
    (tmp_path / "MNIST").mkdir()
    for name in RAW_FILES:
        (tmp_path / "MNIST" / name).write_bytes(b"")
    refused_then_fixed(
        tmp_path, f"Data file missing: {tmp_path}/MNIST/raw/{IMAGES}. The files are in {tmp_path}/MNIST, but "
                  f"they are read from {tmp_path}/MNIST/raw. Fix: mkdir -p {tmp_path}/MNIST/raw && mv "
                  f"{tmp_path}/MNIST/{IMAGES} ")


@pytest.mark.parametrize("compressed", [True, False], ids=["gzip", "decoded"])
def test_only_gz_files_before_torch_get_the_fix_for_all_of_them(tmp_path, compressed):
    # pass 53, rows 31 and 33: before, the check before torch said "Expected the uncompressed IDX files ...
    # Fix: copy them there" beside the four .gz downloads (or four uncompressed files under .gz names)
    import gzip

    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in RAW_FILES:
        data = b"\x00\x00\x08\x01" + name.encode()
        (raw / f"{name}.gz").write_bytes(gzip.compress(data) if compressed else data)
    head = (f"only the compressed {IMAGES}.gz is there, and the uncompressed IDX file is what is read. Fix: "
            f"gunzip -k {raw}/t10k-images-idx3-ubyte.gz {raw}/t10k-labels-idx1-ubyte.gz" if compressed else
            f"{IMAGES}.gz is there, but it holds no gzip data (uncompressed already, as a browser that "
            f"decodes a download leaves it). Fix: mv {raw}/t10k-images-idx3-ubyte.gz "
            f"{raw}/t10k-images-idx3-ubyte")
    refused_then_fixed(tmp_path, f"Data file missing: {raw}/{IMAGES}; {head}")  # the fix brings all four
    assert all((raw / name).read_bytes() == b"\x00\x00\x08\x01" + name.encode() for name in RAW_FILES)


def test_files_left_in_folders_of_their_names_by_an_unzip_tool_get_the_moves_that_work(tmp_path):
    # pass 57, row 19: 7-zip on Windows makes raw/train-images-idx3-ubyte/train-images.idx3-ubyte for each
    # file; before, "move the folder away ... and copy the real file there", of the first folder alone
    raw = tmp_path / "MNIST" / "raw"
    for name in RAW_FILES:
        (raw / name).mkdir(parents=True)
        (raw / name / name.replace("s-idx", "s.idx")).write_bytes(b"")
    refused_then_fixed(
        tmp_path,
        f"Data file is a folder: {raw}/{IMAGES} is a folder, where the data file {IMAGES} should be; the "
        f"files are inside folders of their names (t10k-images-idx3-ubyte/t10k-images.idx3-ubyte, "
        f"t10k-labels-idx1-ubyte/t10k-labels.idx1-ubyte, {IMAGES}/train-images.idx3-ubyte, "
        f"train-labels-idx1-ubyte/train-labels.idx1-ubyte), as some unzip tools leave them. Fix: cd {raw} && "
        f"mv t10k-images-idx3-ubyte t10k-images-idx3-ubyte.d && mv ")
    assert sorted(p.name for p in raw.iterdir()) == sorted(RAW_FILES)


def test_files_straight_in_the_data_folder_get_the_layout_made_there(tmp_path, monkeypatch):
    # pass 58, row 6: before, "Fix: give the folder that holds MNIST/raw/", a folder that did not exist
    for name in RAW_FILES:
        (tmp_path / name).write_bytes(b"")
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(tmp_path))
    refused_then_fixed(
        tmp_path, f"Data file missing: {tmp_path}/MNIST/raw/{IMAGES}. HIGHWAYLAB_DATA_DIR={tmp_path} is the "
                  f"folder of the files themselves; it names the folder that holds MNIST/raw/. Fix: mkdir -p "
                  f"{tmp_path}/MNIST/raw && mv {tmp_path}/{IMAGES} ")


def test_another_data_sets_folder_is_named_as_that(tmp_path, monkeypatch):
    # pass 58, row 55: HIGHWAYLAB_DATA_DIR=<data>/FashionMNIST/raw for MNIST (the files have the same names);
    # before, "Fix: give the folder that holds MNIST/raw/", with <data> holding it
    from highwaylab.data.files import check_data_files

    fashion = tmp_path / "FashionMNIST" / "raw"
    fashion.mkdir(parents=True)
    (fashion / IMAGES).write_bytes(b"")
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(fashion))
    with pytest.raises(DataError) as refusal:
        check_data_files("mnist", str(fashion))
    assert str(refusal.value).endswith(
        f"HIGHWAYLAB_DATA_DIR={fashion} is fashion_mnist's folder (FashionMNIST/raw/), whose files have the "
        f"same names; it names the folder that holds MNIST/raw/. Fix: for fashion_mnist, data=fashion_mnist "
        f"HIGHWAYLAB_DATA_DIR={tmp_path}")
    (tmp_path / "MNIST" / "raw").mkdir(parents=True)
    with pytest.raises(DataError) as refusal:
        check_data_files("mnist", str(fashion))
    assert str(refusal.value).endswith(f"Fix: HIGHWAYLAB_DATA_DIR={tmp_path} (it holds MNIST/raw/ as well)")


def test_wgets_numbered_downloads_get_the_renames_and_gunzip_that_work(tmp_path):
    # pass 58, row 78: wget names a second download of X.gz "X.gz.1"; before, the general "copy them there"
    import gzip

    raw = tmp_path / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in RAW_FILES:
        (raw / f"{name}.gz.1").write_bytes(gzip.compress(b"idx"))
    refused_then_fixed(
        tmp_path, f"Data file missing: {raw}/{IMAGES}; only {IMAGES}.gz.1 is there, a name that wget gives a "
                  f"second download of a file that was there. Fix: mv {raw}/t10k-images-idx3-ubyte.gz.1 "
                  f"{raw}/t10k-images-idx3-ubyte.gz && ")
    assert (raw / IMAGES).read_bytes() == b"idx"


def test_a_data_folder_that_does_not_exist_is_named_with_where_it_came_from(tmp_path, monkeypatch):
    # new-user check (68cf0ec): a relative HIGHWAYLAB_DATA_DIR typed in another folder; before, "Data file
    # missing: <cwd>/shared/data/MNIST/raw/..." with no word that the folder itself is not there, or whence
    nowhere = tmp_path / "shared" / "data"
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(nowhere))
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(nowhere)).setup()
    assert (f"MNIST/raw; the folder {nowhere}, from the environment variable HIGHWAYLAB_DATA_DIR (a relative "
            f"one is read from the folder the command was typed in), does not exist. Fix: ") in str(err.value)
    monkeypatch.delenv("HIGHWAYLAB_DATA_DIR")
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(nowhere)).setup()
    assert f"MNIST/raw; the folder data.data_dir={nowhere} does not exist. Fix: " in str(err.value)
    nowhere.mkdir(parents=True)  # there, but empty: the files are what is missing
    with pytest.raises(DataError) as err:
        MNISTDataModule(str(nowhere)).setup()
    assert "does not exist" not in str(err.value)
