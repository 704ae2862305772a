"""Where each data set's files lie under ``data.data_dir``, and the checks of those paths: the
folder is set, each file is there, is a file (not a folder, a looping or dangling link, a FIFO)
and can be read. No torch: :func:`highwaylab.config_checks.validate` calls
:func:`check_data_files` before torch is imported, and the DataModules call the same functions in
``setup()``.
"""

from __future__ import annotations

import errno
import os
import re
import shlex
import stat
import tarfile
import zipfile
from pathlib import Path

from highwaylab.data.checksums import OFFICIAL, unreadable_error
from highwaylab.errors import ConfigError, DataError

# data set -> (its folder under data.data_dir, as torchvision lays it out; the archive and its URL)
LAYOUT = {
    "mnist": ("MNIST/raw", None),
    "fashion_mnist": ("FashionMNIST/raw", None),
    "cifar10": ("cifar-10-batches-py", "https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz"),
    "cifar100": ("cifar-100-python", "https://www.cs.toronto.edu/~kriz/cifar-100-python.tar.gz"),
}

# the folders that torchvision's layout makes under data.data_dir (MNIST, raw, cifar-10-batches-py...): a
# file in the place of one of them is a stray file inside the data folder, which may be moved aside
DATA_SUBFOLDERS = {part for folder, _ in LAYOUT.values() for part in folder.split("/")}

# data set -> (the shape of one example (C, H, W), the number of classes): what the data modules
# give the backbone, known before any file is read (the model's size and conv maps are checked early)
SHAPES = {"mnist": ((1, 28, 28), 10), "fashion_mnist": ((1, 28, 28), 10), "cifar10": ((3, 32, 32), 10),
          "cifar100": ((3, 32, 32), 100)}
# data set -> the official training examples (the validation split is drawn from them)
TRAIN_EXAMPLES = {"mnist": 60_000, "fashion_mnist": 60_000, "cifar10": 50_000, "cifar100": 50_000}


# the data modules' switches and choices (MNISTDataModule: verify, download; CIFARDataModule: all of
# them), checked by the data modules and, before torch, by config_checks
DATA_OPTIONS = {"verify": (True, False), "download": (True, False), "augment": (True, False),
                "normalise": ("channel", "gcn"), "pin_memory": (True, False)}
# the loader arguments every in-memory data module takes (check_loader_options)
LOADER_OPTIONS = ("batch_size", "val_size", "split_seed", "num_workers")


def check_loader_options(batch_size: object = 128, val_size: object = 5000, split_seed: object = 0,
                         num_workers: object = 0, train_examples: int = 60_000) -> None:
    """Check the loader arguments every in-memory data module shares (``train_examples``: the data
    set's official training examples, :data:`TRAIN_EXAMPLES`).

    Raises:
        ConfigError: naming ``data.<key>``: a non-positive batch size, a ``val_size`` outside
            1 .. ``train_examples`` - 1, a ``split_seed`` that is not an integer in 0 .. 2**32 - 1
            (:func:`highwaylab.config_checks.check_seed`), negative ``num_workers``.
    """
    def integer(value: object) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if not integer(batch_size) or batch_size < 1:
        raise ConfigError(f"data.batch_size={batch_size!r} must be a positive integer, "
                          f"e.g. data.batch_size=128.")
    if not integer(val_size) or not 1 <= val_size < train_examples:
        raise ConfigError(f"data.val_size={val_size!r} must be an integer in 1 .. {train_examples - 1}.")
    from highwaylab.config_checks import check_seed

    check_seed(split_seed, "data.split_seed", "torch's generator keeps its low 32 bits: it would draw the "
               "split of data.split_seed={}")
    if not integer(num_workers) or num_workers < 0:
        raise ConfigError(f"data.num_workers={num_workers!r} must be an integer >= 0.")


def unshared_set(size: int, processes: int) -> str:
    """The message for a validation or test set of ``size`` examples that ``processes`` DDP processes
    cannot share (each needs one at least): said before torch by the config checks, and by the data
    loader for a set that only it knows."""
    return (f"a validation or test set of {size} examples cannot be shared by {processes} DDP processes "
            f"(each needs one at least): raise data.val_size, or lower trainer.devices / trainer.num_nodes.")


def check_data_options(**options: object) -> None:
    """Raises ConfigError, naming ``data.<option>``, for a value outside :data:`DATA_OPTIONS`
    (``data.verify=flase`` is a string, which would read as true)."""
    for key, value in options.items():
        allowed = DATA_OPTIONS[key]
        if any(value is a if isinstance(a, bool) else value == a for a in allowed):
            continue
        if allowed == (True, False):
            raise ConfigError(f"data.{key}={value!r} must be true or false.")
        raise ConfigError(f"data.{key}={value!r} is unknown; choose one of: {', '.join(map(str, allowed))}.")


def data_folder(data_dir: str | Path, dataset: str) -> Path:
    """The folder that holds ``dataset``'s files, e.g. ``<data_dir>/MNIST/raw``."""
    return Path(data_dir) / LAYOUT[dataset][0]


def data_files(dataset: str) -> tuple[str, ...]:
    """The names of ``dataset``'s files (the official ones: :data:`highwaylab.data.checksums.OFFICIAL`)."""
    return tuple(OFFICIAL[dataset])


def fix_hint(dataset: str, data_dir: str | Path, download: bool = True) -> str:
    """What to do when ``dataset``'s files are not in ``data_dir``: one sentence for messages."""
    folder, url = LAYOUT[dataset]
    where = data_folder(data_dir, dataset)
    if str(data_dir).startswith("~"):  # quoted in the shell, or from a config file: never expanded
        given = str(data_dir)
        key = "HIGHWAYLAB_DATA_DIR" if os.environ.get("HIGHWAYLAB_DATA_DIR") == given else "data.data_dir"
        home = f"$HOME{given[1:]}" if given == "~" or given.startswith("~/") else "/home/<user>/..."
        return (f"{key}={given} starts with ~, which is not expanded here (the shell expands it only "
                f"unquoted), so it was read as a folder named ~ in the current folder. Fix: write the folder "
                f"in full, e.g. HIGHWAYLAB_DATA_DIR={home} (or data.data_dir={home})")
    env = os.environ.get("HIGHWAYLAB_DATA_DIR") or ""  # train.py made it absolute: <cwd>/file:/data
    given_url = re.search(r"(?:^|/)((file|https?|s3|gs|ftp):/+(.*))$", str(data_dir))  # (url: LAYOUT's)
    if given_url is not None:  # pass 81, row 34: file:///data was read as a folder 'file:' in the current one
        key = "HIGHWAYLAB_DATA_DIR" if env == str(data_dir) else "data.data_dir"
        fix = (f"{key}=/{given_url[3]}" if given_url[2] == "file" else
               f"get the files into a folder on this machine (data.download=true fetches them), then "
               f"{key}=<that folder>")
        return f"{key}={given_url[1]} is a URL, and the data folder is a path on this machine. Fix: {fix}"
    offer = ", or set data.download=true on a machine with internet access." if download else "."
    given, parts = Path(str(data_dir)), Path(folder).parts
    # A folder inside the layout, given: the files' own (pass 32, note on row 3: before, "copy them
    # there", into <it>/MNIST/raw), or <data>/MNIST, which holds raw/ (pass 39, row 7: before, the
    # general advice, with a data.download=true that would fetch a second MNIST into MNIST/MNIST/raw).
    for inner in range(len(parts), 0, -1):
        below = Path(*parts[inner:]) if inner < len(parts) else Path()
        if not any((given / below / name).is_file() for name in data_files(dataset)):
            continue
        from_env = os.environ.get("HIGHWAYLAB_DATA_DIR") == str(data_dir)
        key = "HIGHWAYLAB_DATA_DIR" if from_env else "data.data_dir"
        above = Path(*given.parts[:-inner]) if given.parts[-inner:] == parts[:inner] else None
        fix = f"{key}={above}" if above is not None else f"give the folder that holds {folder}/"
        what = "the folder of the files themselves" if inner == len(parts) else f"{Path(*parts[:inner])}/"
        if above is None and inner == len(parts):  # pass 58, rows 6 and 55: before, a fix to follow by hand
            what, fix = _files_folder_fix(given, dataset, key)
        return (f"{key}={data_dir} is {what}; it names the folder that holds {folder}/. Fix: {fix}")
    if (below := _one_level_below(given, folder, dataset)) is not None:  # pass 57, row 56: one level up
        from_env = os.environ.get("HIGHWAYLAB_DATA_DIR") == str(data_dir)
        key = "HIGHWAYLAB_DATA_DIR" if from_env else "data.data_dir"
        return (f"{key}={data_dir} holds no {folder}/, but its folder {below} does. Fix: "
                f"{key}={shlex.quote(str(below))}")
    if (cased := _other_case(given, parts)) is not None:  # pass 49, row 18: mnist/ for MNIST/
        return (f"{cased} is there, but the folder names are case-sensitive: the files are read from "
                f"{given / folder}. Fix: mv {shlex.quote(str(cased))} {shlex.quote(str(given / parts[0]))}")
    if (short := _short_of_layout(given, parts, dataset)) is not None:  # pass 52, row 12: MNIST/<files>
        files = " ".join(shlex.quote(str(short / name)) for name in data_files(dataset)
                         if (short / name).is_file())
        return (f"The files are in {short}, but they are read from {where}. Fix: mkdir -p "
                f"{shlex.quote(str(where))} && mv {files} {shlex.quote(str(where))}/")
    if (deep := _one_level_too_deep(where, dataset)) is not None:  # pass 68, row 24: before, "download"
        files = " ".join(shlex.quote(str(deep / name)) for name in data_files(dataset)
                         if (deep / name).is_file())
        return (f"The files are in {deep}, one folder below {where}, where they are read (an archive "
                f"extracted into a folder of its own name?). Fix: mv {files} {shlex.quote(str(where))}/ && "
                f"rmdir {shlex.quote(str(deep))}")
    if renames := _renamed_files(where, dataset):  # pass 52, row 11: Kaggle's train-images.idx3-ubyte
        moves = " && ".join(f"mv {shlex.quote(found)} {shlex.quote(name)}" for found, name in renames)
        named = ", ".join(f"{found} for {name}" for found, name in renames)
        return (f"The folder {where} holds the files under other names ({named}), as some copies of "
                f"{dataset.upper()} name them. Fix: give them the names that are read: cd "
                f"{shlex.quote(str(where))} && {moves}")
    if (packed := _archive_hint(given, where, dataset)) is not None:  # pass 59, row 8: only mnist.zip
        return packed
    absent = ""  # new-user check: a relative HIGHWAYLAB_DATA_DIR, typed in another folder, named nowhere
    if not given.exists():
        absent = (f"; the folder {data_dir}, from the environment variable HIGHWAYLAB_DATA_DIR (a relative "
                  f"one is read from the folder the command was typed in), does not exist"
                  if env == str(data_dir) else f"; the folder data.data_dir={data_dir} does not exist")
    if url is None:
        return (f"Expected the uncompressed IDX files {', '.join(data_files(dataset))} in {where}{absent}. "
                f"Fix: copy them there, or point data.data_dir= (or the environment variable "
                f"HIGHWAYLAB_DATA_DIR) at the folder that holds {folder}/" + offer)
    return (f"Expected the python version of {dataset.upper()}: "
            f"{', '.join(data_files(dataset))} in {where}{absent}. Fix: on a machine with internet access "
            f"download {url}, extract it (tar -xzf {url.rsplit('/', 1)[1]}) into data.data_dir (now "
            f"{data_dir}; or the folder in the environment variable HIGHWAYLAB_DATA_DIR) so that it "
            f"holds {folder}/" + offer)


ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".7z", ".rar")


def _members(archive: Path) -> list[str] | None:
    """The names of the files in a zip or tar ``archive`` (read from its index, nothing unpacked);
    ``None`` for another kind (7z, rar), or one that cannot be read."""
    try:
        if zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as box:
                return [i.filename for i in box.infolist() if not i.is_dir()]
        with tarfile.open(archive) as box:
            return [m.name for m in box.getmembers() if m.isfile()]
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError):
        return None


def _archive_hint(given: Path, where: Path, dataset: str) -> str | None:
    """The fix when ``dataset``'s files are missing but an archive (zip, tar, 7z, rar) lies in ``given``
    or on the way to ``where``: the command that unpacks the data files from it into ``where``
    (CIFAR's tar.gz: into ``given``, which it makes ``<folder>/`` in), or what it holds instead.
    ``None`` without such an archive."""
    parts = Path(LAYOUT[dataset][0]).parts
    folders = [given, *(given / Path(*parts[:n]) for n in range(1, len(parts) + 1))]
    try:
        archives = [p for f in folders if f.is_dir() for p in sorted(f.iterdir())
                    if p.is_file() and p.name.lower().endswith(ARCHIVES)]
    except OSError:  # a folder this user may not enter: the general advice
        return None
    if not archives:
        return None
    archive, layout = archives[0], LAYOUT[dataset][0]
    members, box = _members(archive), shlex.quote(str(archive))
    if members is None:
        return (f"{archive} is there, packed, and the files are read unpacked from {where}. Fix: unpack it "
                f"so that {where} holds {', '.join(data_files(dataset))}")
    if any(m.startswith(f"{layout}/") or f"/{layout}/" in m for m in members):  # the layout inside it
        top = next(m for m in members if f"{layout}/" in m).split(f"{layout}/")[0].count("/")
        strip = f" --strip-components={top}" if top else ""
        unpack = (f"unzip -o {box} -d {shlex.quote(str(given))}" if zipfile.is_zipfile(archive) else
                  f"tar -xf {box} -C {shlex.quote(str(given))}{strip}")
        return f"{archive} is there, packed, and the files are read from {where}. Fix: {unpack}"
    wanted = {_plain_name(n + gz): n + gz for n in data_files(dataset) for gz in ("", ".gz")}
    found = {m: wanted[_plain_name(Path(m).name)] for m in members if _plain_name(Path(m).name) in wanted}
    if not found:
        shown = ", ".join(members[:3]) + (", ..." if len(members) > 3 else "")
        return (f"{archive} is there, but it holds none of {dataset}'s files ({shown}): the files read are "
                f"{', '.join(data_files(dataset))}, in {where}")
    dest = shlex.quote(str(where))
    names = " ".join(shlex.quote(m) for m in found)
    unpack = (f"unzip -j -o {box} {names} -d {dest}" if zipfile.is_zipfile(archive) else
              f"tar -xf {box} -C {dest} --transform='s|.*/||' {names}")
    steps = [f"mkdir -p {dest}", unpack]
    steps += [f"mv {dest}/{shlex.quote(Path(m).name)} {dest}/{shlex.quote(n)}" for m, n in found.items()
              if Path(m).name != n]
    if packed := [shlex.quote(str(where / n)) for n in found.values() if n.endswith(".gz")]:
        steps.append(f"gunzip -k {' '.join(packed)}")
    return (f"{archive} is there, packed, and the files are read unpacked from {where}. Fix: "
            + " && ".join(steps))


def _files_folder_fix(given: Path, dataset: str, key: str) -> tuple[str, str]:
    """What ``given`` (a data folder key's value that holds ``dataset``'s files themselves, not below
    ``<dataset's folder>``) is, and the fix: another data set's folder (``FashionMNIST/raw`` for MNIST,
    whose files have the same names) is named as that, with the folder above it when that holds
    ``dataset``'s folder too, else ``data=<other>``; a folder of its own gets the ``mkdir`` and ``mv``
    that make the layout inside it."""
    folder = LAYOUT[dataset][0]
    for other, (layout, _) in LAYOUT.items():
        depth = len(Path(layout).parts)
        if other != dataset and given.parts[-depth:] == Path(layout).parts:
            root = Path(*given.parts[:-depth])
            what = f"{other}'s folder ({layout}/), whose files have the same names"
            if data_folder(root, dataset).is_dir():
                return what, f"{key}={shlex.quote(str(root))} (it holds {folder}/ as well)"
            return what, f"for {other}, data={other} {key}={shlex.quote(str(root))}"
    files = " ".join(shlex.quote(str(given / name)) for name in data_files(dataset)
                     if (given / name).is_file())
    where = shlex.quote(str(given / folder))
    return "the folder of the files themselves", f"mkdir -p {where} && mv {files} {where}/"


def _one_level_below(given: Path, folder: str, dataset: str) -> Path | None:
    """The one folder directly inside ``given`` that holds ``folder`` (``MNIST/raw``) with one of
    ``dataset``'s files, when ``given`` does not hold it itself (a data folder given one level too
    high); ``None`` otherwise, or when several do."""
    if (given / folder).is_dir():
        return None
    try:
        found = [p for p in sorted(given.iterdir()) if p.is_dir()
                 and any((p / folder / name).is_file() for name in data_files(dataset))]
    except OSError:  # not a folder, or one this user may not enter: the general advice
        return None
    return found[0] if len(found) == 1 else None


def _one_level_too_deep(where: Path, dataset: str) -> Path | None:
    """The one folder directly inside ``where`` (the files' own folder, ``cifar-10-batches-py``) that
    holds one of ``dataset``'s files, when ``where`` holds none (``cifar-10-batches-py/
    cifar-10-batches-py/``); ``None`` otherwise, or when several do."""
    try:
        if not where.is_dir() or any((where / name).exists() for name in data_files(dataset)):
            return None
        found = [p for p in sorted(where.iterdir()) if p.is_dir()
                 and any((p / name).is_file() for name in data_files(dataset))]
    except OSError:  # a folder this user may not enter: the general advice
        return None
    return found[0] if len(found) == 1 else None


def _short_of_layout(given: Path, parts: tuple[str, ...], dataset: str) -> Path | None:
    """The folder on the way to the files (``<data_dir>/MNIST``, without ``raw/``) that holds one of
    ``dataset``'s files itself, when the files' own folder does not; ``None`` otherwise."""
    if (given / Path(*parts)).is_dir():
        return None
    for depth in range(len(parts) - 1, 0, -1):
        short = given / Path(*parts[:depth])
        if any((short / name).is_file() for name in data_files(dataset)):
            return short
    return None


def _renamed_files(where: Path, dataset: str) -> list[tuple[str, str]]:
    """The files in ``where`` that are ``dataset``'s missing files under another spelling: the same
    name, letter case and the separators ``-``, ``.``, ``_`` aside (``train-images.idx3-ubyte`` for
    ``train-images-idx3-ubyte``), as ``(found, expected)`` pairs."""
    try:
        present = [p.name for p in where.iterdir() if p.is_file()] if where.is_dir() else []
    except OSError:  # a folder this user may not enter: the general advice
        return []
    by_plain = {_plain_name(name): name for name in present}
    return [(by_plain[_plain_name(name)], name) for name in data_files(dataset)
            if name not in present and _plain_name(name) in by_plain]


def _other_case(given: Path, parts: tuple[str, ...]) -> Path | None:
    """The folder under ``given`` whose name is the layout's first folder (``MNIST``) in other letter
    case (``mnist``), when the right one is missing; ``None`` otherwise."""
    if (given / parts[0]).exists() or not given.is_dir():
        return None
    try:
        return next((p for p in sorted(given.iterdir()) if p.is_dir() and p.name.lower() == parts[0].lower()),
                    None)
    except OSError:  # an unreadable folder: the general advice
        return None


def check_data_files(dataset: str, data_dir: object) -> None:
    """Check that ``data_dir`` is set and holds ``dataset``'s folder and every one of its files
    (:func:`check_data_path`); their contents are checked when they are read.

    Raises:
        ConfigError: ``data_dir`` is not set (:func:`check_data_dir`).
        DataError: a missing folder or file, or something else at its path; one line naming it.
    """
    folder = LAYOUT[dataset][0]
    check_data_dir(data_dir, f"{folder}/")
    where = data_folder(Path(str(data_dir)).absolute(), dataset)  # a relative one: from the current folder
    if LAYOUT[dataset][1] is not None:  # CIFAR: the extracted folder itself
        check_data_path(where, f"Data folder missing: {where}. {fix_hint(dataset, data_dir)}", folder=True)
    for name in data_files(dataset):
        path = where / name
        check_data_path(path, missing_file(path, fix_hint(dataset, data_dir)))


def missing_file(path: Path, hint: str) -> str:
    """The "Data file missing" line for ``path``, with ``hint`` (:func:`fix_hint`), unless its ``.gz``
    lies beside it: then the fix is ``gunzip -k`` of it, or, when that file holds no gzip data (a
    browser that decoded the download kept the name), ``mv`` to the name that is read (pass 53, rows
    31 and 33: before, the early check said "copy them there", the files being there)."""
    def gzip_data(gz: Path) -> bool | None:  # None: no such file (or an unreadable one)
        try:
            with gz.open("rb") as f:
                return f.read(2) == b"\x1f\x8b"  # gzip's magic number
        except OSError:
            return None

    gz = path.with_name(path.name + ".gz")
    kind = gzip_data(gz)
    if kind is None and (copies := _numbered_copies(path.parent)):  # pass 58, row 78: wget's X.gz.1
        first = next((c for c in copies if c.name.startswith(path.name + ".gz.")), copies[0])
        packed = [c for c in copies if gzip_data(c)]
        moves = " && ".join(f"mv {shlex.quote(str(c))} {shlex.quote(str(c.with_suffix('')))}" for c in packed)
        moves += "".join(f" && mv {shlex.quote(str(c))} {shlex.quote(str(c.with_suffix('').with_suffix('')))}"
                         for c in copies if c not in packed)
        unpack = (f" && gunzip -k {' '.join(shlex.quote(str(c.with_suffix(''))) for c in packed)}"
                  if packed else "")
        return (f"Data file missing: {path}; only {first.name} is there, a name that wget gives a second "
                f"download of a file that was there. Fix: {moves.removeprefix(' && ')}{unpack}")
    if kind is None:
        return f"Data file missing: {path}. {hint}"
    # the fix for every such .gz of the folder at once, not one file per run
    alike = [p for p in sorted(path.parent.glob("*.gz"))
             if not p.with_suffix("").exists() and gzip_data(p) == kind]
    if kind:
        return (f"Data file missing: {path}; only the compressed {gz.name} is there, and the uncompressed "
                f"IDX file is what is read. Fix: gunzip -k {' '.join(shlex.quote(str(p)) for p in alike)}")
    moves = " && ".join(f"mv {shlex.quote(str(p))} {shlex.quote(str(p.with_suffix('')))}" for p in alike)
    return (f"Data file missing: {path}; {gz.name} is there, but it holds no gzip data (uncompressed "
            f"already, as a browser that decodes a download leaves it). Fix: {moves}")


def _numbered_copies(folder: Path) -> list[Path]:
    """The files ``<name>.gz.<n>`` in ``folder`` (wget's name for a download whose name was taken)
    whose ``<name>.gz`` and ``<name>`` are both missing, sorted."""
    try:
        found = sorted(p for p in folder.glob("*.gz.*") if p.suffix[1:].isdigit() and p.is_file())
    except OSError:
        return []
    return [p for p in found
            if not p.with_suffix("").exists() and not p.with_suffix("").with_suffix("").exists()]


def check_data_dir(data_dir: object, holds: str) -> None:
    """Check that ``data.data_dir`` is set: a non-empty path.

    Args:
        data_dir: the value of ``data.data_dir``.
        holds: what the folder should hold, for the message (e.g. ``"MNIST/raw/"``).

    Raises:
        ConfigError: ``data_dir`` is None, empty or not a path; names ``data.data_dir`` and
            ``HIGHWAYLAB_DATA_DIR``.
    """
    if isinstance(data_dir, (str, Path)) and str(data_dir).strip():
        return
    env = os.environ.get("HIGHWAYLAB_DATA_DIR")
    if env is not None and not env.strip() and data_dir == env:  # pass 36, row 68: before, named as an
        raise ConfigError(  # empty data.data_dir alone
            f"the environment variable HIGHWAYLAB_DATA_DIR is set, to {env!r}, and gives data.data_dir: not "
            f"a folder. Fix: set it to the folder that holds {holds} (export HIGHWAYLAB_DATA_DIR=<folder>), "
            f"or unset it (unset HIGHWAYLAB_DATA_DIR: the default, <checkout>/data), or give "
            f"data.data_dir=<folder>")
    if data_dir is None and env and env.strip():  # pass 41, row 59: before, "or the environment variable
        raise ConfigError(  # HIGHWAYLAB_DATA_DIR ...", which was set, to the right folder
            f"data.data_dir is not set (null), as ~data.data_dir or data.data_dir=null makes it, so the "
            f"environment variable HIGHWAYLAB_DATA_DIR ({env}), its default, is not used. Fix: leave "
            f"~data.data_dir (or data.data_dir=null) out, or give data.data_dir=<the folder that holds "
            f"{holds}>")
    what = "not set (null)" if data_dir is None else f"{data_dir!r}, not a folder"
    raise ConfigError(f"data.data_dir is {what}: set data.data_dir=<folder>, or the environment variable "
                      f"HIGHWAYLAB_DATA_DIR (its default), to the folder that holds {holds}.")


def check_data_path(path: Path, missing: str, folder: bool = False) -> None:
    """Check that ``path`` is a regular file (with ``folder``: a folder), following symbolic links,
    and say exactly what is there instead.

    A path with nothing at it (not even a link) raises ``DataError(missing)``: the caller's
    "Data file missing: ..." line, with its fix. Every other fault gets its own line naming the path,
    the fault and the fix: a symbolic link that loops (``ln -s x x``, or links that point at each
    other) or that points to nothing (a dangling link); a folder where a file should be (naming the
    file inside it, if the folder holds a file of its own name, as after unpacking into a folder of
    the file's name), or a file where a folder should be; a FIFO, socket or device (reading a FIFO
    would block forever); a folder on the way that is a file, a looping or a dangling link. A folder
    on the way that this user may not enter gives the ``chmod`` fix of
    :func:`~highwaylab.data.checksums.unreadable_error`.

    Args:
        path: the data file (or folder) that the DataModule reads.
        missing: the whole message for a path with nothing at it.
        folder: ``path`` must be a folder, not a file.

    Raises:
        DataError: one line, as above.
    """
    want = "folder" if folder else "file"
    try:
        mode = os.stat(path).st_mode  # follows links
    except PermissionError as err:
        raise unreadable_error(path, err) from err
    except OSError as err:
        raise _unreachable_error(path, err, missing, want) from err
    if folder == stat.S_ISDIR(mode) and (folder or stat.S_ISREG(mode)):
        return
    found = _what_is(path, mode)
    if not folder and stat.S_ISDIR(mode):
        inside = path / path.name
        try:
            holds_file = inside.is_file()
        except OSError:  # a folder this user may not enter
            holds_file = False
        unzipped = _unzipped_into_folders(path.parent)
        if not path.is_symlink() and any(box == path for box, _ in unzipped):  # pass 57, row 19: before,
            moves = " && ".join(  # "move the folder away ... and copy the real file there", of one file
                f"mv {shlex.quote(box.name)} {shlex.quote(box.name + '.d')} && mv "
                f"{shlex.quote(box.name + '.d/' + file.name)} {shlex.quote(box.name)} && rmdir "
                f"{shlex.quote(box.name + '.d')}" for box, file in unzipped)
            named = ", ".join(f"{box.name}/{file.name}" for box, file in unzipped)
            raise DataError(f"Data file is a folder: {path} is {found}, where the data file {path.name} "
                            f"should be; the files are inside folders of their names ({named}), as some "
                            f"unzip tools leave them. Fix: cd {shlex.quote(str(path.parent))} && {moves}")
        if path.is_symlink():
            fix = (f"remove the link (rm {path}) and copy the real file there, or point it at the real "
                   f"file (ln -sfn <real file> {path})")
        elif holds_file:
            fix = (f"the file seems to be inside it, at {inside}: move it up into {path.parent} in the "
                   f"folder's place")
        else:
            fix = f"move the folder away (e.g. mv {path} {path}.bak) and copy the real file {path.name} there"
        raise DataError(f"Data file is a folder: {path} is {found}, where the data file {path.name} should "
                        f"be. Fix: {fix}.")
    raise DataError(f"Data {want} is not a {want}: {path} is {found}, where the data {want} {path.name} "
                    f"should be. Fix: remove it (rm {path}) and copy the real {want} there.")


def _plain_name(name: str) -> str:
    """A file name with letter case and the separators ``-``, ``.``, ``_`` left out: the spellings of
    one data file that copies of the data sets use (``train-images.idx3-ubyte``)."""
    return "".join(c for c in name.lower() if c not in "-._")


def _unzipped_into_folders(raw: Path) -> list[tuple[Path, Path]]:
    """The folders in ``raw`` that each hold one regular file alone, of the folder's name in another
    spelling (letter case and the separators ``-``, ``.``, ``_`` aside: ``train-images-idx3-ubyte/
    train-images.idx3-ubyte``), as ``(folder, file)`` pairs: what some unzip tools make of an archive of
    archives."""
    found = []
    try:
        for box in sorted(p for p in raw.iterdir() if p.is_dir() and not p.is_symlink()):
            inner = list(box.iterdir())
            if len(inner) == 1 and inner[0].is_file() and _plain_name(inner[0].name) == _plain_name(box.name):
                found.append((box, inner[0]))
    except OSError:  # a folder this user may not enter: the general advice
        return []
    return found


def file_kind(mode: int) -> str:
    """``"a folder"``, ``"a regular file"``, ``"a FIFO"``, ... for a ``st_mode``."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISREG, "a regular file"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def _what_is(path: Path, mode: int) -> str:
    """What ``path`` (of ``st_mode`` ``mode``, links followed) is, e.g. ``"a folder"`` or
    ``"a symbolic link to ../x, which is a folder"``."""
    if not path.is_symlink():
        return file_kind(mode)
    return f"a symbolic link to {os.readlink(path)}, which is {file_kind(mode)}"


def _unreachable_error(path: Path, err: OSError, missing: str, want: str) -> DataError:
    """The DataError for a ``path`` that ``os.stat`` could not reach (``err``): the first component
    of it that is wrong (a looping or dangling link, a file on the way), or ``missing`` if it simply
    is not there."""
    if err.errno not in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
        return unreadable_error(path, err)
    for part in [*reversed(path.parents), path][1:]:  # each component, from the top (root excluded)
        noun = want if part == path else "folder"
        reach = "" if part == path else f", so {path} cannot be reached"
        try:
            part_mode = os.stat(part).st_mode
        except PermissionError as part_err:
            return unreadable_error(path, part_err)
        except OSError as part_err:
            if not part.is_symlink():
                if part_err.errno == errno.ENOENT:
                    return DataError(missing)
                return unreadable_error(path, part_err)
            target = os.readlink(part)
            if part_err.errno == errno.ELOOP:
                return DataError(
                    f"Data {noun} is a symbolic link that loops: {part} -> {target} never reaches a "
                    f"{noun} (too many levels of symbolic links){reach}. Fix: remove the link (rm {part}) "
                    f"and copy the real {noun} there, or point it at the real one "
                    f"(ln -sfn <real {noun}> {part}).")
            return DataError(
                f"Data {noun} is a dangling symbolic link: {part} -> {target} points to nothing "
                f"({os.path.realpath(part)} does not exist){reach}. Fix: point the link at the real {noun} "
                f"(ln -sfn <real {noun}> {part}), or remove it (rm {part}) and copy the real {noun} there.")
        if part != path and not stat.S_ISDIR(part_mode):
            point = ("Fix: point data.data_dir (or the environment variable HIGHWAYLAB_DATA_DIR) at the "
                     "folder that holds the data")
            if part.name not in DATA_SUBFOLDERS:  # data.data_dir itself, or above it: a file given as it
                return DataError(f"Data folder is not a folder: {part} is {_what_is(part, part_mode)}, so "
                                 f"{path} cannot be there. {point} (the one that holds MNIST/ or "
                                 f"cifar-10-batches-py/, ...), not a file.")
            return DataError(f"Data folder is not a folder: {part} is {_what_is(part, part_mode)}, so "
                             f"{path} cannot be there. {point}, or move this file aside (mv {part} "
                             f"{part}.old) and put the data folder there.")
    return DataError(missing)


def check_readable(path: Path) -> None:
    """Check that the existing file ``path`` can be opened and read.

    Raises:
        DataError: it cannot (e.g. PermissionError): names the file and the fix (``chmod a+r``).
    """
    try:
        with path.open("rb") as f:
            f.read(1)
    except OSError as err:
        raise unreadable_error(path, err) from err
