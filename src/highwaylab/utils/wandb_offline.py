"""Read an offline W&B run from its files, with wandb's own reader (``wandb leet inspect``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path


def find_run_file(path: str | Path) -> Path:
    """The ``run-<id>.wandb`` log of a run: ``path`` is the file, its run folder, or a folder above.

    Raises:
        FileNotFoundError: no ``.wandb`` file under ``path``, or more than one.
    """
    path = Path(path)
    if path.suffix == ".wandb":
        return path
    found = sorted(path.rglob("run-*.wandb"))
    if len(found) != 1:
        raise FileNotFoundError(f"expected one run-*.wandb file under {path}, found {len(found)}")
    return found[0]


def read_records(path: str | Path) -> list[dict]:
    """All records of an offline run's transaction log, as dicts (``{"type": "history", ...}``)."""
    exe = shutil.which("wandb", path=str(Path(sys.executable).parent)) or shutil.which("wandb")
    if exe is None:
        raise FileNotFoundError("the `wandb` command is not installed in this environment")
    out = subprocess.run([exe, "leet", "inspect", "--json", str(find_run_file(path))],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def read_history(path: str | Path) -> list[dict]:
    """The logged rows (``wandb.log`` calls) of an offline run, in order."""
    return [r["history"]["item"] for r in read_records(path) if r.get("type") == "history"]

