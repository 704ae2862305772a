"""Cost of the analysis callbacks on the depth-100 highway MNIST run, as a ratio of wall times.

    python benchmarks/callback_cost.py [--epochs 1] [--repeats 2]

Times ``trainer.fit`` (training, validation, and what runs at the end of fitting) of the same
run three ways in this one process: ``callbacks=default``, ``callbacks=analysis`` (default
frequencies) and ``callbacks=analysis`` without the end-of-fit lesioning. Prints the best of
``--repeats`` for each and the ratios against the default run (target: at most 1.10).

Wall times on a shared 2-core machine drift by 10-20% between runs, so each analysis run also
measures its own cost with Lightning's ``SimpleProfiler``: ``C``, the time spent inside the
analysis callbacks' hooks, gives the in-run ratio ``T / (T - C)`` for a fit that took ``T``.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from highwaylab.train import build
from highwaylab.utils import close_loggers, compose_config

ROOT = Path(__file__).resolve().parents[1]
ANALYSIS = ("GateStatsMonitor", "CarryStripeMonitor", "LayerGradNormMonitor", "LesionMonitor")
VARIANTS = {
    "default": ["callbacks=default"],
    "analysis": ["callbacks=analysis"],
    "analysis, no lesion": ["callbacks=analysis", "~callbacks.lesion"],
}


def fit_seconds(overrides: list[str], epochs: int, output_dir: Path) -> tuple[float, float]:
    """Wall time of ``trainer.fit``, and the time spent in the analysis callbacks' hooks."""
    cfg = compose_config(ROOT / "conf", ["model=highway", "depth=100", "width=50", "trainer=cpu",
                                         f"trainer.max_epochs={epochs}", "test=false",
                                         "+trainer.profiler=simple", *overrides], output_dir)
    try:
        parts = build(cfg)
        start = time.perf_counter()
        parts.trainer.fit(parts.module, datamodule=parts.datamodule)
        total = time.perf_counter() - start
        durations = parts.trainer.profiler.recorded_durations  # "[Callback]<name>.<hook>" -> seconds
        inside = sum(sum(v) for k, v in durations.items() if any(name in k for name in ANALYSIS))
        return total, inside
    finally:
        close_loggers(failed=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", type=Path, default=ROOT / "outputs" / "benchmarks" / "callback_cost")
    args = parser.parse_args()
    os.environ.setdefault("WANDB_MODE", "offline")
    os.environ.setdefault("HIGHWAYLAB_ROOT", str(ROOT))
    seconds: dict[str, list[float]] = {name: [] for name in VARIANTS}
    in_run: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for r in range(args.repeats):  # interleaved, so that drifts in machine load hit all variants
        for name, overrides in VARIANTS.items():
            out = args.out / f"{name.replace(', ', '_').replace(' ', '_')}_{r}"
            total, inside = fit_seconds(overrides, args.epochs, out)
            seconds[name].append(total)
            in_run[name].append(total / (total - inside))
    best = {name: min(v) for name, v in seconds.items()}
    print(f"\nfit wall time, depth-100 width-50 highway on MNIST, {args.epochs} epoch(s), "
          f"best of {args.repeats}:")
    for name, value in best.items():
        runs = ", ".join(f"{x:.1f}" for x in seconds[name])
        ratios = ", ".join(f"{x:.3f}" for x in in_run[name])
        print(f"  {name:<20} {value:7.1f} s   ratio {value / best['default']:.3f}   (runs: {runs})"
              f"   in-run T/(T-C): {ratios}")
    print("  target: analysis / default <= 1.10")


if __name__ == "__main__":
    main()
