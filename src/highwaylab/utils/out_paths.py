"""Checks of the places the command-line tools write to (``report --out``, ``workspace --out``,
``probe --plot``), made before they write: a ``~`` that no shell expanded, and a place inside the
folder of a run, whose files (``metrics.json``, ``checkpoints/``) a tool must never replace.
Standard library only."""

from __future__ import annotations

import os
from pathlib import Path

#: What marks the folder of a run (``.hydra/``, ``metrics.json``, ``checkpoints/``) or of a multirun
#: (``multirun.yaml``, ``summary.jsonl``).
RUN_FILES = (".hydra", "metrics.json", "checkpoints", "multirun.yaml", "summary.jsonl")


def tilde_problem(option: str, path: str | os.PathLike) -> str | None:
    """The message for ``path`` given to ``option`` when it starts with ``~``, which the shell did not
    expand (it expands ``~`` only at the start of a word: not in ``--out=~/x``, nor quoted), so the
    file would go into a folder named ``~`` of the current folder; else ``None``. The fix names the
    path with the home folder written out (``os.path.expanduser``)."""
    text = str(path)
    if not text.startswith("~"):
        return None
    expanded = os.path.expanduser(text)
    fix = f"{option} {expanded}" if expanded != text else f"{option} /home/<user>/{text.lstrip('~/')}"
    return (f"{option} {text}: ~ is not expanded here (a shell expands it only at the start of a word, not "
            f"after {option}= or in quotes), so it would be written into a folder named '~' in "
            f"{os.getcwd()}. Fix: {fix}")


def long_name_problem(option: str, path: str | os.PathLike) -> str | None:
    """The message for ``path`` (given as ``option``: ``--out``, ``hydra.run.dir=``) when a file or
    folder name in it is longer than the file system allows (``NAME_MAX``, of the nearest folder that
    exists; 255 bytes where it cannot be read), or the whole path longer than ``PATH_MAX`` (4096
    bytes): every use of it would fail with ``OSError`` 36, "File name too long" (breaking pass 60,
    row 33: before, a traceback from the first check that looked at it); else ``None``."""
    text = os.fsencode(os.fspath(path))
    if len(text) <= 255:
        return None  # no name in it can be too long
    existing = Path(os.path.abspath(os.fspath(path)))
    while not os.path.isdir(existing) and existing != existing.parent:  # isdir: False, never an error
        existing = existing.parent
    try:
        name_max, path_max = os.pathconf(existing, "PC_NAME_MAX"), os.pathconf(existing, "PC_PATH_MAX")
    except (OSError, ValueError):
        name_max, path_max = 255, 4096
    shown = os.fspath(path)
    shown = shown if len(shown) <= 80 else f"{shown[:60]}...{shown[-12:]}"
    long = next((part for part in text.split(b"/") if len(part) > name_max), None)
    if long is not None:
        name = os.fsdecode(long)
        return (f"{option}{shown}: the name {name[:24]}... in it is {len(long)} bytes long, and this file "
                f"system allows at most {name_max} in one file or folder name (File name too long). Fix: "
                f"give a shorter name")
    if len(text) >= path_max:
        return (f"{option}{shown}: the path is {len(text)} bytes long, and this system allows at most "
                f"{path_max - 1} (File name too long). Fix: give a shorter path")
    return None


def run_folder_holding(path: str | os.PathLike, *,
                       allowed: Path | None = None) -> tuple[Path, list[str]] | None:
    """The nearest folder at or above ``path`` (made absolute; it need not exist) that holds a run's
    or a multirun's files (:data:`RUN_FILES`), with the names it holds; ``None`` if there is none.
    ``allowed``: a folder that may hold ``path`` below it (the sweep a report is of: its ``report/``),
    though not be it."""
    target = Path(os.path.abspath(path))
    keep = Path(os.path.abspath(allowed)) if allowed is not None else None
    for folder in (target, *target.parents):
        if keep is not None and folder == keep and folder != target:
            return None
        held = [name for name in RUN_FILES if (folder / name).exists()] if folder.is_dir() else []
        if held:
            return folder, held
    return None
