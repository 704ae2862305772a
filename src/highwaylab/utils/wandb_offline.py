"""Read an offline W&B run back from its files, and summarize its history keys.

Command line (``--help`` for the options)::

    python -m highwaylab.utils.wandb_offline outputs/runs/<run>            # a table of the keys
    python -m highwaylab.utils.wandb_offline outputs/runs/<run> --json     # the same, as JSON

``<run>`` is a run folder, its ``wandb/`` folder, the ``offline-run-*`` folder, or the
``run-<id>.wandb`` file itself. It prints the run's id, name, group and tags, then one line per
history key (a metric, or a media key such as an image or a table): its kind, the number of rows
that hold it, how many of them lack ``trainer/global_step``, the range of ``trainer/global_step``
and of W&B's ``_step`` over those rows, and the number of images; and last
``N distinct history keys (M scalar, K media)``. W&B's own bookkeeping keys (``_step``,
``_runtime``, ``_timestamp``: every key that starts with ``_``) are not counted. Bad input (no
run there, an empty or corrupt file) prints one line to stderr, naming the path, and exits with 2;
a folder with several runs lists them and exits with 2 too.

In Python, :func:`summarize` returns the same as a :class:`RunSummary`, and
:func:`check_key_budget` and :func:`check_rows_have_step` turn it into test assertions.

**The reader: wandb's own, ``wandb leet inspect --json``.** The ``.wandb`` file is a LevelDB-style
log of protobuf records, whose format belongs to wandb and changes with it, so the tools that
wandb ships to read it are the way to stay correct across its versions. The Python reader of
older releases (``wandb.sdk.internal.datastore``) is gone from wandb 0.31, the one installed
here, and it was never a public API; the public ``wandb.Api`` reads runs from a server, which
offline runs never reached. ``wandb leet inspect --json`` (documented in its ``--help``) prints
each record as one JSON line, checks the log's checksums, and says on stderr when the file ends
early (a run still active, or killed) or holds corrupt data. Running it as a subprocess also
keeps this module light: it imports neither wandb nor torch. Two facts of its output shape this
module: a logged media object (an image, a table, a histogram...) is spread over
``<key>._type``, ``<key>.path`` etc. and is gathered back under ``<key>`` here; and a logged
nested dict also appears as dotted keys (``a.b``), which stay separate keys, as in the W&B UI.
"""

from __future__ import annotations

if __name__ == "__main__":  # before the reading of the run, which can take seconds
    from highwaylab.cli import stop_on_sigint

    stop_on_sigint("python -m highwaylab.utils.wandb_offline",
                   "the summary was not printed in full; the run is not changed")

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from highwaylab.cli import non_empty
from highwaylab.errors import HighwaylabError

PROG = "python -m highwaylab.utils.wandb_offline"
STEP_KEY = "trainer/global_step"
"""Lightning's x-axis: WandbLogger logs it with every row, ``define_metric`` makes it the step."""
KEY_BUDGET = 40
"""The most distinct history keys (metrics and media) a default run should log."""

IMAGE_TYPES = frozenset({"image-file", "images/separated", "images"})
INSPECT_TIMEOUT_S = 300


class RunReadError(HighwaylabError):
    """An offline W&B run cannot be read: the message is one line and names the path."""


class NoRunError(RunReadError, FileNotFoundError):
    """No ``.wandb`` file at or under the path."""


class SeveralRunsError(NoRunError):
    """A folder with more than one run, where one was needed: ``runs`` lists their files."""

    def __init__(self, message: str, runs: list[Path]):
        super().__init__(message)
        self.runs = runs


# ---------------------------------------------------------------------------------------------
# finding and reading the .wandb file
# ---------------------------------------------------------------------------------------------

def find_run_files(path: str | Path) -> list[Path]:
    """Every ``run-<id>.wandb`` log at or under ``path`` (a file is taken as is), sorted.

    Raises:
        NoRunError: ``path`` does not exist, or holds no ``run-*.wandb`` file.
    """
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.exists():
        raise NoRunError(f"{path}: no such file or folder")
    found: dict[Path, Path] = {}
    for file in sorted(path.rglob("run-*.wandb")):  # `**` does not enter the latest-run link
        if file.is_file():
            found.setdefault(file.resolve(), file)
    # a latest-run that is a folder (a copy that followed links: cp -rL, a zip) repeats a segment: left out
    # where another one holds its file (pass 45, row 61: before, "35smke5l in 2 segments" of one)
    named = Counter(file.name for file in found.values())
    found = {key: file for key, file in found.items()
             if not (named[file.name] > 1 and file.parent.name.startswith("latest-run"))}
    odd = [file for file in sorted(path.rglob("run-*.wandb")) if file.exists() and not file.is_file()]
    if not found and odd:  # pass 55, row 59: a FIFO there; before, "its offline run folder is gone"
        import stat

        kind = "a FIFO" if stat.S_ISFIFO(odd[0].stat().st_mode) else "a folder" if odd[0].is_dir() else \
            "not a regular file"
        raise NoRunError(f"{odd[0]}: the run's W&B log is {kind}, not a regular file, so it cannot be read. "
                         f"Fix: copy the run's .wandb file back there (from a backup, or the run's copy)")
    if not found and (recorded := recorded_wandb_folder(path)) is not None and recorded.is_dir() \
            and not recorded.resolve().is_relative_to(path.resolve()):
        other = next((p for p in list(recorded.absolute().parents)[:3] if (p / ".hydra").is_dir()), None)
        # in another run's folder: this one's metrics.json was copied from there
        if other is not None and (path / ".hydra").is_dir() and other.resolve() != path.resolve():
            raise NoRunError(f"{path}: no W&B run here (no run-*.wandb file in this folder or below); its "
                             f"metrics.json names {recorded}, in another run's folder, {other} (copied from "
                             f"there?). Fix: read that run's: python -m highwaylab.utils.wandb_offline "
                             f"{other}")  # pass 63, row 46: before, read as this run's, without a word
        return find_run_files(recorded)  # logger.wandb.save_dir elsewhere: where metrics.json says it is
    if not found:
        above = next((p for p in path.resolve().parents if list(p.glob("run-*.wandb"))), None)
        if above is not None:  # pass 36, row 47: a run's logs/ or files/ folder, its run file above
            raise NoRunError(f"{path}: no W&B run here (no run-*.wandb file in this folder or below); it "
                             f"is inside the offline run {above}. Fix: give that folder")
        raise NoRunError(f"{path}: no W&B run here (no run-*.wandb file in this folder or below)"
                         f"{_what_it_logged(path)}")
    return sorted(found.values())


def recorded_wandb_folder(run: Path) -> Path | None:
    """The W&B run folder that the run folder ``run``'s ``metrics.json`` records (``wandb_dir``: its
    ``offline-run-*`` folder, wherever ``logger.wandb.save_dir`` put it; a ``files/`` folder, as it was
    recorded before new-user pass 48, is read as its run folder); ``None`` without that record (pass
    56, row 67: before, a run logged to another save_dir was said to have lost its W&B run)."""
    try:
        recorded = Path(json.loads((run / "metrics.json").read_text())["wandb_dir"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return recorded.parent if recorded.name == "files" else recorded  # as recorded before new-user 48/3


def _what_it_logged(run: Path) -> str:
    """For a run folder without a W&B run file, what its record (``config_resolved.yaml``) says it
    logged with (breaking pass 42, row 44: before, no word of a ``logger=csv`` run's CSV history, nor of
    a W&B run whose offline folder was removed); "" for another folder."""
    import yaml

    try:
        loggers = yaml.safe_load((run / "config_resolved.yaml").read_text())["logger"]
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return ""
    if not isinstance(loggers, dict) or not loggers:
        return ": the run logged to no logger (logger=none)"
    if "wandb" in loggers:
        recorded = recorded_wandb_folder(run)
        where = f"{recorded}, as metrics.json records it," if recorded is not None else \
            "(wandb/offline-run-*)"
        return (f": the run logged to W&B, but its offline run folder {where} is gone: removed by wandb sync "
                f"--clean after an upload (its history is then in W&B), or moved")
    where = {"csv": "its CSV log, csv/version_*/metrics.csv",
             "tensorboard": "its TensorBoard log, tensorboard/"}
    found = ", ".join(where.get(name, f"logger.{name}") for name in loggers)
    return f": the run logged with logger={','.join(loggers)}, not to W&B; its history is in {found}"


def find_run_segments(path: str | Path) -> list[Path]:
    """The ``run-<id>.wandb`` logs of one run, oldest first: a run resumed offline writes each
    segment into its own ``offline-run-<date>_<time>-<id>`` folder of the same ``wandb/`` folder,
    with the same id (see :func:`highwaylab.utils.resume.continue_wandb_steps`).

    Raises:
        NoRunError: no ``.wandb`` file under ``path``.
        SeveralRunsError: files of different runs (other ids, or other ``wandb/`` folders).
    """
    files = find_run_files(path)
    runs = Counter((f.name, f.parent.parent.resolve()) for f in files)
    if len(runs) > 1:  # pass 40, row 74: before, "4 W&B runs", counting the 3 segments of one run as 3
        named = ", ".join(name.removeprefix("run-").removesuffix(".wandb")
                          + (f" in {n} segments" if n > 1 else "") for (name, _), n in runs.items())
        raise SeveralRunsError(f"{path}: {len(runs)} W&B runs in this folder ({named}), pass one of them",
                               files)
    return sorted(files, key=lambda f: f.parent.name)  # offline-run-<date>_<time>-<id>: in time order


def find_run_file(path: str | Path) -> Path:
    """The ``run-<id>.wandb`` log of a run: ``path`` is the file, its run folder, or a folder above.

    Raises:
        NoRunError: no ``.wandb`` file under ``path``.
        SeveralRunsError: more than one (both are ``FileNotFoundError``).
    """
    files = find_run_files(path)
    if len(files) > 1:
        raise SeveralRunsError(f"{path}: {len(files)} W&B runs in this folder, pass one of them", files)
    return files[0]


def _wandb_exe() -> str:
    exe = shutil.which("wandb", path=str(Path(sys.executable).parent)) or shutil.which("wandb")
    if exe is None:
        raise RunReadError("the `wandb` command is not installed in this environment (pip install wandb)")
    return exe


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _run_folder_around(file: Path) -> Path | None:
    """The nearest folder above ``file`` (a run's other file: ``train.log``, ``metrics.json``, W&B's
    ``debug.log``) that holds an offline W&B run: its ``run-*.wandb`` file, or ``offline-run-*/`` or
    ``wandb/offline-run-*/`` folders with one; ``None`` within three levels."""
    for folder in list(file.absolute().parents)[:3]:
        for pattern in ("run-*.wandb", "offline-run-*/run-*.wandb", "wandb/offline-run-*/run-*.wandb"):
            if next(folder.glob(pattern), None) is not None:
                return folder
    return None


def read_segment(file: Path) -> tuple[list[dict], list[str]]:
    """One offline segment (a ``run-*.wandb`` transaction log) read by W&B's own reader,
    ``wandb leet inspect --json file``: its records (dicts), and its notes on stderr (one per line;
    e.g. a segment cut short).

    Raises:
        RunReadError: the file is not a readable W&B run, or the reader took more than
            ``INSPECT_TIMEOUT_S`` seconds.
    """
    try:
        proc = subprocess.run([_wandb_exe(), "leet", "inspect", "--json", str(file)],
                              capture_output=True, text=True, timeout=INSPECT_TIMEOUT_S)
    except subprocess.TimeoutExpired as err:
        raise RunReadError(f"{file}: wandb leet inspect took more than {INSPECT_TIMEOUT_S} s") from err
    notes = [_one_line(line.removeprefix("wandb leet inspect:").removeprefix("Error:"))
             for line in proc.stderr.splitlines() if line.strip()]
    if proc.returncode != 0:
        # pass 37, row 31: a run's metrics.json given, without the fix; pass 57, rows 39-40: W&B's own
        # debug.log (in wandb/, or in offline-run-*/logs/), the same
        folder = _run_folder_around(Path(file)) if not Path(file).name.endswith(".wandb") else None
        holds = ", which holds its wandb/" if folder is not None and (folder / "wandb").is_dir() else ""
        fix = (f". Fix: give the folder that holds the run's run-*.wandb file (e.g. {folder}{holds})"
               if folder is not None else "")
        raise RunReadError(f"{file}: not a readable W&B run: {'; '.join(notes) or f'exit {proc.returncode}'}"
                           f"{fix}")
    records = []
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as err:
                raise RunReadError(f"{file}: wandb leet inspect printed a line that is not JSON "
                                   f"({err})") from err
    return records, notes


def read_records(path: str | Path) -> list[dict]:
    """All records of an offline run's transaction log, as dicts (``{"type": "history", ...}``).

    Lenient: what wandb could read of an incomplete or partly corrupt file (see :func:`summarize`
    for the strict reading). A resumed run's segments are read in order.
    """
    return [r for file in find_run_segments(path) for r in read_segment(file)[0]]


def read_history(path: str | Path) -> list[dict]:
    """The logged rows (``wandb.log`` calls) of an offline run, in order."""
    return [r["history"]["item"] for r in read_records(path) if r.get("type") == "history"]


# ---------------------------------------------------------------------------------------------
# the summary
# ---------------------------------------------------------------------------------------------

@dataclass
class KeyInfo:
    """One history key over the run.

    ``kind``: ``scalar`` (numbers, booleans, NaN and infinities), ``image``, ``table``, ``media``
    (another W&B media type, named in ``media_type``: ``histogram``, ``html-file``...), ``other``
    (text, lists, None), or ``mixed`` (different kinds in different rows). ``step_min`` and
    ``step_max`` are the range of the step key (``trainer/global_step``) over the rows that hold
    this key and it; ``rows_without_step`` counts the others. ``wandb_step_min`` and
    ``wandb_step_max`` are the range of W&B's own row counter ``_step``. ``images``: the number
    of images logged under the key (a list of images counts each).
    """

    kind: str
    rows: int = 0
    rows_without_step: int = 0
    step_min: int | float | None = None
    step_max: int | float | None = None
    wandb_step_min: int | float | None = None
    wandb_step_max: int | float | None = None
    images: int = 0
    media_type: str | None = None

    @property
    def is_media(self) -> bool:
        return self.kind in ("image", "table", "media")


@dataclass
class RunSummary:
    """What an offline run logged: who it is, and each of its history keys (:class:`KeyInfo`)."""

    path: Path
    run_id: str | None = None
    name: str | None = None
    group: str | None = None
    tags: list[str] = field(default_factory=list)
    project: str | None = None
    job_type: str | None = None
    exit_code: int | None = None
    """None when the file has no exit record (a run still active, or killed)."""
    rows: int = 0
    """The number of history rows (``wandb.log`` calls)."""
    step_key: str = STEP_KEY
    keys: dict[str, KeyInfo] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """What wandb's reader said on stderr, e.g. that the file ends early."""
    segments: int = 1
    """The ``.wandb`` files read as this run: more than one for a run resumed offline (``path``: the last)."""
    one_of: str = ""
    """For one segment given alone (``wandb/latest-run``), of a run with others beside it: which one it
    is, and the folder that reads them all."""

    @property
    def finished(self) -> bool:
        return self.exit_code is not None

    def keys_of_kind(self, *kinds: str) -> list[str]:
        return [k for k, info in self.keys.items() if info.kind in kinds]

    @property
    def scalar_keys(self) -> list[str]:
        return self.keys_of_kind("scalar")

    @property
    def media_keys(self) -> list[str]:
        return self.keys_of_kind("image", "table", "media")

    @property
    def images(self) -> int:
        return sum(info.images for info in self.keys.values())

    @property
    def count_line(self) -> str:
        """``N distinct history keys (M scalar, K media)`` (``, J other`` when there are some)."""
        n, m, k = len(self.keys), len(self.scalar_keys), len(self.media_keys)
        other = f", {n - m - k} other" if n - m - k else ""
        return f"{n} distinct history keys ({m} scalar, {k} media{other})"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what ``--json`` prints)."""
        return {"path": str(self.path), "run_id": self.run_id, "name": self.name, "group": self.group,
                "tags": self.tags, "project": self.project, "job_type": self.job_type,
                "exit_code": self.exit_code, "finished": self.finished, "rows": self.rows,
                "step_key": self.step_key, "notes": self.notes,
                "counts": {"keys": len(self.keys), "scalar": len(self.scalar_keys),
                           "media": len(self.media_keys),
                           "other": len(self.keys) - len(self.scalar_keys) - len(self.media_keys),
                           "images": self.images},
                "keys": {k: asdict(info) for k, info in self.keys.items()}}


def _is_scalar(value: Any) -> bool:
    if isinstance(value, bool | int | float):
        return True
    return value in ("NaN", "Infinity", "-Infinity")  # how the reader prints non-finite floats


def _number(value: Any) -> int | float | None:
    """A step value as a number (``19.0`` -> ``19``), or None if it is none."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        if value.is_integer():
            return int(value)
    return value


def _media_kind(media_type: str) -> str:
    if media_type in IMAGE_TYPES:
        return "image"
    return "table" if "table" in media_type else "media"


def _image_count(fields: dict[str, Any], media_type: str) -> int:
    if media_type not in IMAGE_TYPES:
        return 0
    if isinstance(fields.get("count"), int):
        return fields["count"]
    if isinstance(fields.get("filenames"), list):
        return len(fields["filenames"])
    return 1


def split_row(item: dict[str, Any]) -> dict[str, tuple[str, str | None, Any]]:
    """A history row as ``{key: (kind, media type, value)}``, without W&B's ``_`` keys: the
    fields of a media object (``img._type``, ``img.path``...) gathered under its key (``img``),
    with the value the dict of those fields."""
    prefixes = {k.removesuffix("._type") for k, v in item.items()
                if k.endswith("._type") and isinstance(v, str) and not k.startswith("_")}
    media: dict[str, dict[str, Any]] = {p: {} for p in prefixes}
    out: dict[str, tuple[str, str | None, Any]] = {}
    for key, value in item.items():
        if key.startswith("_"):
            continue
        owner = None
        if prefixes:  # the longest media key that `key` is a field of
            dots = [i for i, c in enumerate(key) if c == "."]
            owner = next((key[:i] for i in reversed(dots) if key[:i] in prefixes), None)
        if owner is not None:
            media[owner][key[len(owner) + 1:]] = value
        else:
            out[key] = ("scalar" if _is_scalar(value) else "other", None, value)
    for prefix, fields in media.items():
        out[prefix] = (_media_kind(fields["_type"]), fields["_type"], fields)
    return out


def _extend(lo: Any, hi: Any, value: Any) -> tuple[Any, Any]:
    if value is None:
        return lo, hi
    return (value if lo is None else min(lo, value)), (value if hi is None else max(hi, value))


def summarize_records(records: list[dict], path: str | Path = "", step_key: str = STEP_KEY) -> RunSummary:
    """The :class:`RunSummary` of records as :func:`read_records` returns them."""
    summary = RunSummary(path=Path(path), step_key=step_key)
    for rec in records:
        kind = rec.get("type")
        if kind == "run":  # a resumed or updated run has several: the later ones win
            run = rec.get("run", {})
            summary.run_id = run.get("run_id") or summary.run_id
            summary.name = run.get("display_name") or summary.name
            summary.group = run.get("run_group") or summary.group
            summary.tags = list(run.get("tags") or summary.tags)
            summary.project = run.get("project") or summary.project
            summary.job_type = run.get("job_type") or summary.job_type
        elif kind == "exit":
            summary.exit_code = int(rec.get("exit", {}).get("exit_code", 0))
        elif kind == "history":
            item = rec.get("history", {}).get("item", {})
            summary.rows += 1
            step, wandb_step = _number(item.get(step_key)), _number(item.get("_step"))
            for key, (key_kind, media_type, value) in split_row(item).items():
                info = summary.keys.get(key)
                if info is None:
                    info = summary.keys[key] = KeyInfo(kind=key_kind, media_type=media_type)
                elif info.kind != key_kind:
                    info.kind = "mixed"
                if media_type is not None and info.media_type != media_type:
                    info.media_type = media_type if info.media_type is None else "mixed"
                info.rows += 1
                if step is None:
                    info.rows_without_step += 1
                info.step_min, info.step_max = _extend(info.step_min, info.step_max, step)
                info.wandb_step_min, info.wandb_step_max = _extend(info.wandb_step_min,
                                                                   info.wandb_step_max, wandb_step)
                if media_type is not None:
                    info.images += _image_count(value, media_type)
    summary.keys = dict(sorted(summary.keys.items()))
    return summary


def _training(file: Path) -> tuple[Path, int] | None:
    """The run folder that holds the ``.wandb`` ``file`` (``<run>/wandb/offline-run-*/run-*.wandb``) and
    the process training it, while one is (it holds the run's lock); ``None`` otherwise."""
    from highwaylab.utils.run_lock import holder

    run = Path(file).resolve().parent.parent.parent
    try:
        pid = holder(run) if (run / ".hydra").is_dir() else None
    except Exception:  # something else at the lock's path: not a run known to be training
        return None
    return None if pid is None else (run, pid)


def _run_id_of(file: Path) -> str:
    return file.name.removeprefix("run-").removesuffix(".wandb")


def own_run_id(path: str | Path) -> str | None:
    """The W&B run id that the run folder at ``path`` (or its ``wandb/`` folder) names as its own: its
    ``metrics.json``'s ``wandb_run_path``, else the segment that ``wandb/latest-run`` links to (the
    last one it wrote); ``None`` for another folder, or without either."""
    from highwaylab.utils.resume import run_metrics

    folder = Path(path)
    run = folder.parent if folder.name == "wandb" else folder
    recorded = str((run_metrics(run) or {}).get("wandb_run_path") or "")
    if recorded:
        return recorded.rsplit("/", 1)[-1]
    latest = run / "wandb" / "latest-run"
    if latest.is_symlink():
        return latest.resolve().name.rsplit("-", 1)[-1]
    return None


def choose_run(path: str | Path, run_id: str | None = None) -> tuple[list[Path], str]:
    """The segments of one W&B run at ``path`` (:func:`find_run_segments`), and a note (or ``""``):
    with ``run_id`` (``--run``), that run's; where ``path`` holds several runs, the run folder's own
    (:func:`own_run_id`), with a note naming the others (breaking pass 61, row 39: a copied run,
    resumed, holds the original's segment beside its own new W&B run, and was refused as "2 W&B runs
    ..., pass one of them", with no way to pass one).

    Raises:
        NoRunError: no run there, or none of ``run_id``. SeveralRunsError: several runs, and neither
            ``run_id`` nor the folder's record chooses one.
    """
    try:
        files = find_run_segments(path)
    except SeveralRunsError as err:
        runs = sorted({(f.parent.parent.parent, _run_id_of(f)) for f in err.runs})  # (run folder, id)
        if len({f.parent.parent.resolve() for f in err.runs}) > 1:  # the runs of several folders (a sweep's
            # jobs); pass 73, row 89: before, --run was refused here too, with the same line, which did not
            # name the folders
            holding = [folder for folder, i in runs if i == run_id]
            if len(holding) == 1:
                chosen = [f for f in err.runs if f.parent.parent.parent == holding[0]]
                return sorted(chosen, key=lambda f: f.parent.name), ""
            listed = ", ".join(f"{folder} ({i})" for folder, i in runs if not holding or i == run_id)
            by_id = "" if holding else f", or its id with --run (e.g. --run {runs[0][1]})"
            raise SeveralRunsError(f"{path}: {len(runs)} W&B runs under this folder, each in its own "
                                   f"run's folder: {listed}. Fix: give one of those folders{by_id}",
                                   err.runs) from None
        files = list(err.runs)
    ids: dict[str, list[Path]] = {}
    for file in files:
        ids.setdefault(_run_id_of(file), []).append(file)
    if run_id is not None and run_id not in ids:
        raise NoRunError(f"{path}: no W&B run {run_id} here; its runs: {', '.join(ids)}. Fix: --run "
                         f"{next(iter(ids))}")
    chosen = run_id if run_id is not None else own_run_id(path) if len(ids) > 1 else next(iter(ids))
    if chosen not in ids:
        named = ", ".join(f"{i}" + (f" in {len(f)} segments" if len(f) > 1 else "") for i, f in ids.items())
        raise SeveralRunsError(f"{path}: {len(ids)} W&B runs in this folder ({named}), pass one of them "
                               f"with --run <id>, e.g. --run {next(iter(ids))}", files)
    others = [i for i in ids if i != chosen]
    note = ("" if run_id is not None or not others else
            f"{path} also holds W&B run {', '.join(others)}, not this run's own ({chosen}, named by its "
            f"metrics.json or latest segment): copied with the folder? Read it with --run {others[0]}")
    return sorted(ids[chosen], key=lambda f: f.parent.name), note


def summarize(path: str | Path, step_key: str = STEP_KEY, run_id: str | None = None) -> RunSummary:
    """Summarize the offline W&B run at ``path`` (a run folder, its ``wandb/`` folder, the
    ``offline-run-*`` folder or the ``.wandb`` file).

    A file that ends early (a run still active, or killed) is summarized as far as it goes, and
    wandb's note on it kept in ``notes``, after the file's path (of a resumed run's segment: its own).

    Raises:
        NoRunError: no run there. SeveralRunsError: more than one (the segments of one resumed
            run are summarized together).
        RunReadError: the file is empty or corrupt, or wandb cannot read it (a resumed run's segment
            without a record, left by a process killed at once, is skipped with a note).
    """
    files, chosen = choose_run(path, run_id)
    records, notes = [], [chosen] if chosen else []
    for file in files:  # a resumed run: its segments in order, as one run
        file_records, file_notes = read_segment(file)
        corrupt = [n for n in file_notes if "corrupt" in n.lower()]
        if corrupt:
            raise RunReadError(f"{file}: corrupt W&B log: {'; '.join(corrupt)}")
        if not file_records and len(files) == 1:
            if (running := _training(file)) is not None:  # pass 60, row 44: before, "an empty file, or
                raise RunReadError(  # not a .wandb log", of a run in its first steps
                    f"{file}: no W&B records in it yet: its run, {running[0]}, is still training (process "
                    f"{running[1] or '?'}), and W&B writes the offline file in blocks of 32 KiB, none of "
                    f"which is full yet. Read it again after more steps, or when the run has ended")
            raise RunReadError(f"{file}: no W&B records in it (an empty file, or not a .wandb log)")
        if not file_records:  # a segment killed before it wrote a record (SIGKILL, then resume=)
            notes.append(f"{file}: no W&B records in this segment (its process was killed before it "
                         f"wrote any); the run's other segments are read")
            continue
        records += file_records
        notes += [f"{file}: {note}" for note in file_notes]  # the segment it is about, not the last one
    if not records:
        raise RunReadError(f"{files[-1]}: no W&B records in any of the run's {len(files)} segments")
    file = files[-1]
    summary = summarize_records(records, file, step_key)
    summary.notes, summary.segments = notes, len(files)
    summary.one_of = _one_segment_of(files)
    return summary


def _one_segment_of(files: list[Path]) -> str:
    """``"segment k of n ..."`` when ``files`` is one segment of a run resumed offline whose other
    segments lie beside it, in the same ``wandb/`` folder (pass 53, row 54: before, ``wandb/latest-run``
    read the last segment alone, without a word of the earlier ones); ``""`` otherwise."""
    if len(files) != 1:
        return ""
    own = files[0].resolve()
    wandb_dir = own.parent.parent
    every = sorted({f.resolve() for f in wandb_dir.glob(f"*/{own.name}") if f.is_file()},
                   key=lambda f: f.parent.name)
    if len(every) < 2:
        return ""
    others = {f.name for f in wandb_dir.glob("*/run-*.wandb")} - {own.name}
    choose = f" --run {_run_id_of(own)}" if others else ""  # other runs there too (pass 61, row 39)
    return (f"segment {every.index(own) + 1} of the run's {len(every)} offline segments, read alone; give "
            f"{wandb_dir}{choose} (or the run's folder{choose}) to read them all as one run")


# ---------------------------------------------------------------------------------------------
# assertions for tests
# ---------------------------------------------------------------------------------------------

def keys_by_prefix(summary: RunSummary) -> Counter[str]:
    """How many history keys start with each prefix: the part up to the first ``/``."""
    return Counter(k.split("/", 1)[0] + "/" if "/" in k else k for k in summary.keys)


def check_key_budget(summary: RunSummary | str | Path, max_keys: int = KEY_BUDGET) -> RunSummary:
    """Assert that a run logged at most ``max_keys`` distinct history keys (metrics and media,
    W&B's ``_`` keys aside), e.g. ``check_key_budget(run_dir)`` in a test.

    Raises:
        AssertionError: more keys, with the count by prefix (``grad_norm/: 40, ...``).
    """
    if not isinstance(summary, RunSummary):
        summary = summarize(summary)
    if len(summary.keys) > max_keys:
        prefixes = ", ".join(f"{p}: {n}" for p, n in keys_by_prefix(summary).most_common())
        raise AssertionError(f"{summary.path}: {summary.count_line}, more than the budget of "
                             f"{max_keys}; by prefix: {prefixes}")
    return summary


def check_rows_have_step(summary: RunSummary | str | Path) -> RunSummary:
    """Assert that every history row that logs a key also carries the step key
    (``trainer/global_step``), so that W&B plots each key against it.

    Raises:
        AssertionError: naming the keys with rows without it, and how many.
    """
    if not isinstance(summary, RunSummary):
        summary = summarize(summary)
    missing = {k: info.rows_without_step for k, info in summary.keys.items() if info.rows_without_step}
    if missing:
        raise AssertionError(f"{summary.path}: rows without {summary.step_key}: "
                             + ", ".join(f"{k} ({n} of {summary.keys[k].rows})" for k, n in missing.items()))
    return summary


# ---------------------------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------------------------

def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _range(lo: Any, hi: Any) -> str:
    if lo is None:
        return "-"
    return str(lo) if lo == hi else f"{lo}..{hi}"


def _finished_after(summary: RunSummary) -> str | None:
    """For a W&B run whose last segment a signal closed: what the run folder that holds it
    (``<run>/wandb/offline-run-*/run-<id>.wandb``) says when the run went on without this W&B run and
    finished (its ``metrics.json`` names no W&B run, or another one; breaking pass 46, row 37: before,
    "interrupted by a signal: resume it", a resume that is refused as finished); ``None`` otherwise."""
    from highwaylab.utils.resume import run_metrics  # only for a run a signal closed

    run = Path(summary.path).parent.parent.parent
    metrics = run_metrics(run)
    if metrics is None or str(metrics.get("wandb_run_path") or "").endswith(
            f"/{summary.run_id}"):
        return None
    return (f"the run went on without this W&B run and finished: its metrics.json (step "
            f"{metrics.get('global_step', '?')}) is in {run}")


def format_summary(summary: RunSummary) -> str:
    """The text that the command line prints."""
    if summary.finished and summary.exit_code == 0:
        state = "finished, exit code 0"
    elif summary.finished and summary.exit_code in (129, 130, 143) and (after := _finished_after(summary)):
        state = f"closed with exit code {summary.exit_code} (interrupted by a signal); {after}"
    elif summary.finished and summary.exit_code in (129, 130, 143):  # before: "finished, exit code 130"
        state = (f"closed with exit code {summary.exit_code}: not finished "
                 f"(interrupted by a signal: resume it)")
    elif summary.finished:  # pass 40, row 51: before, "(failed, or interrupted: resume it)" of a run that
        # failed before its first checkpoint, which resume= refuses
        state = (f"closed with exit code {summary.exit_code}: the run failed (the last highwaylab: line of "
                 f"its train.log says why and how to go on)")
    else:
        state = "no exit record (the run is still active, or was killed)"
    project = summary.project or "-"
    if summary.job_type:
        project += f"  (job type {summary.job_type})"
    out = [f"run      {summary.run_id or '-'}  {summary.name or ''}".rstrip(),
           f"group    {summary.group or '-'}",
           f"tags     {', '.join(summary.tags) if summary.tags else '-'}",
           f"project  {project}",
           f"file     {summary.path}" + (f"  (the last of the run's {summary.segments} offline segments, all "
                                         f"read as one run)" if summary.segments > 1 else
                                         f"  ({summary.one_of})" if summary.one_of else ""),
           f"state    {state}",
           f"history  {_n(summary.rows, 'row')}" + (
               " (the file ends before the run's first logged row: cut short, or killed at its start?)"
               if not summary.rows and summary.exit_code is None and summary.notes else "")]
    out += [f"note     {n}" for n in summary.notes]
    header = ("key", "kind", "rows", "no step", summary.step_key, "_step", "images")
    table = [header]
    for key, info in summary.keys.items():
        kind = info.kind if info.kind != "media" else f"media:{info.media_type}"
        table.append((key, kind, str(info.rows), str(info.rows_without_step),
                      _range(info.step_min, info.step_max), _range(info.wandb_step_min, info.wandb_step_max),
                      str(info.images) if info.kind == "image" else ""))
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    right = {2, 3, 6}
    out.append("")
    for row in table:
        cells = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    out.append("")
    out.append(summary.count_line)
    if summary.media_keys:
        parts = [f"{_n(len(summary.keys_of_kind('image')), 'image key')} with "
                 f"{_n(summary.images, 'image')}"]
        for kind in ("table", "media"):
            if summary.keys_of_kind(kind):
                parts.append(_n(len(summary.keys_of_kind(kind)),
                                "table key" if kind == "table" else "other media key"))
        out.append(f"media: {', '.join(parts)}")
    return "\n".join(out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Summarize the history keys of an offline W&B run: for each metric and media key, "
                    "its kind, its rows, and the range of trainer/global_step and _step over them. "
                    "Reads the .wandb file with wandb's own reader (wandb leet inspect).",
        epilog="Exit status: 0, or 2 for bad input (no run at the path, several runs, an empty or "
               "corrupt file), with one line on stderr.")
    parser.add_argument("run", type=non_empty("a run folder, e.g. outputs/runs/<run>"),
                        help="a run folder (outputs/runs/<run>), its wandb/ folder, the "
                                    "offline-run-* folder, or the run-<id>.wandb file")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--run", dest="run_id", default=None, metavar="ID",
                        type=non_empty("a W&B run id, e.g. --run 1g05owd3 (the ids are in the folder's "
                                       "wandb/offline-run-<time>-<id> names)"),
                        help="the W&B run id to read where the folder holds several (default: the run "
                             "folder's own, from its metrics.json)")
    parser.add_argument("--step-key", default=STEP_KEY, metavar="KEY",
                        type=non_empty(f"a step key, e.g. --step-key {STEP_KEY} (the default)"),
                        help=f"the step key whose range is shown (default: {STEP_KEY})")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        summary = summarize(args.run, step_key=args.step_key, run_id=args.run_id)
    except SeveralRunsError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        if args.json:
            print(json.dumps({"runs": [str(r) for r in err.runs]}, indent=2))
        else:
            print("\n".join(str(r) for r in err.runs))
        return 2
    except RunReadError as err:
        print(f"{PROG}: error: {_one_line(str(err))}", file=sys.stderr)
        return 2
    known = args.step_key in summary.keys or args.step_key == "_step"  # W&B's row counter: every row
    if args.step_key != STEP_KEY and summary.rows and not known:
        # step counters, not per-step values such as train/loss_step (pass 60, row 28)
        scalars = [k for k in summary.keys_of_kind("scalar") if k == "epoch" or k.split("/")[-1] in (
            "step", "global_step", "_step") or k.endswith("_steps")]
        print(f"{PROG}: error: --step-key {args.step_key}: no row of the run has it; its step-like keys: "
              f"{', '.join(scalars[:6] or list(summary.keys)[:6])} (default {STEP_KEY})", file=sys.stderr)
        return 2
    for note in summary.notes:  # each names its segment's file
        print(f"{PROG}: warning: {note}", file=sys.stderr)
    print(json.dumps(summary.to_dict(), indent=2) if args.json else format_summary(summary))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # `... | head`: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
