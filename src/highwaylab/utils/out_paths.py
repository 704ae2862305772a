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
