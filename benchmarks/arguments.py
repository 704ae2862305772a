"""Argument types of the benchmark scripts: a bad value is argparse's one line (exit 2), before any run.

    parser.add_argument("--steps", type=positive, default=300)
    parser.add_argument("--out", type=out_folder, default=ROOT / "outputs" / "benchmarks")
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path


def at_least(low: int) -> Callable[[str], int]:
    """The argument type of an integer of ``low`` or more (``--steps 0`` divided by zero after the
    runs: pass 68, rows 20 and 35; ``denormals.py --steps 0 0``: no median of no steps, pass 69, row 51)."""
    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text}: give a whole number, {low} or more") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{text}: give {low} or more")
        return value

    return whole


positive = at_least(1)  # --steps, --repeats
non_negative = at_least(0)  # --warmup: no warm-up steps


def out_folder(text: str) -> Path:
    """A folder for the benchmark's own runs: not a file, and not a run of train.py, whose folder the
    runs would be written into (``--out <run>/metrics.json``: a traceback; pass 68, row 21)."""
    path = Path(text).expanduser()
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; give a folder for the benchmark's runs (made if "
                                         f"missing), e.g. --out outputs/benchmarks")
    run_files = ("metrics.json", ".hydra", "train.log", "checkpoints")
    holds = [name for name in run_files if (path / name).exists()]
    if holds:
        raise argparse.ArgumentTypeError(f"{text} holds a run of train.py ({', '.join(holds)}), and the "
                                         f"benchmark's runs would be written among its files; give a folder "
                                         f"of their own, e.g. --out outputs/benchmarks")
    return path


def missing_data(err: Exception, script: str) -> str:
    """The one line for a benchmark whose MNIST files are missing or damaged (``DataError``): the
    file, and the benchmark's one way to the data, ``HIGHWAYLAB_DATA_DIR`` (pass 73, row 28: before,
    two tracebacks, and a fix naming train.py's data.data_dir= and data.download=, which no benchmark
    takes)."""
    import os

    what = str(err).split(" Fix:")[0].rstrip(". ")
    where = os.environ.get("HIGHWAYLAB_DATA_DIR")
    now = f"now {where}" if where else "unset: the checkout's data/"
    return (f"{what}. The benchmark reads MNIST from the folder HIGHWAYLAB_DATA_DIR names ({now}). Fix: "
            f"HIGHWAYLAB_DATA_DIR=<the folder that holds MNIST/raw/> python benchmarks/{script} ...")
