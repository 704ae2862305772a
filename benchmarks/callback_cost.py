"""Cost of the depth-analysis callbacks on the highway MNIST run, as ratios measured in one process.

    python benchmarks/callback_cost.py [--depths 100 1000] [--epochs 5 1] [--repeats 1]

For each depth, fits the same run (width 50, real MNIST, no test) with ``callbacks=minimal`` (no
analysis), ``callbacks=default`` (gate statistics, carry stripes, gradient norms at their default
cadence) and ``callbacks=analysis`` (the default plus lesioning), interleaved so that drifts in the
machine's load hit every variant. Prints, for each variant:

- the wall time of ``trainer.fit`` and its ratio to ``callbacks=minimal`` (target for the default:
  at most 1.10); on a shared 2-core machine single fits vary by 10-20%, so also
- the in-run ratio ``T / (T - C)`` from Lightning's ``SimpleProfiler``: ``C`` is the time spent
  inside the highwaylab analysis callbacks' hooks of a fit that took ``T``. It compares the run
  with itself, free of drift between runs.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from arguments import missing_data, out_folder

from highwaylab.errors import DataError
from highwaylab.train import build
from highwaylab.utils import close_loggers, compose_config

ROOT = Path(__file__).resolve().parents[1]
ANALYSIS = ("GateStatsMonitor", "CarryStripeMonitor", "LayerGradNormMonitor", "LesionMonitor")
VARIANTS = ("minimal", "default", "analysis")


def fit_seconds(depth: int, callbacks: str, epochs: int, output_dir: Path) -> tuple[float, float]:
    """Wall time of ``trainer.fit``, and the time spent in the analysis callbacks' hooks."""
    cfg = compose_config(ROOT / "conf", ["model=highway", f"depth={depth}", "width=50", "trainer=cpu",
                                         f"trainer.max_epochs={epochs}", "test=false", "logger=wandb",
                                         f"callbacks={callbacks}", "+trainer.profiler=simple"], output_dir)
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
    parser.add_argument("--depths", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--epochs", type=int, nargs="+", default=[5, 1],
                        help="epochs for each depth (one value: the same for all)")
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=VARIANTS)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=out_folder, default=ROOT / "outputs" / "benchmarks" / "callback_cost")
    args = parser.parse_args()
    if len(args.epochs) not in (1, len(args.depths)):  # pass 67, row 14: before, a traceback after training
        parser.error(f"--epochs {' '.join(map(str, args.epochs))}: give one count for all depths, or one for "
                     f"each of the {len(args.depths)} --depths ({' '.join(map(str, args.depths))})")
    if args.repeats < 1 or min(args.epochs) < 1 or min(args.depths) < 1:
        parser.error("--repeats, --epochs and --depths must be 1 or more")
    epochs = args.epochs * len(args.depths) if len(args.epochs) == 1 else args.epochs
    os.environ.setdefault("WANDB_MODE", "offline")
    os.environ.setdefault("HIGHWAYLAB_ROOT", str(ROOT))
    for depth, n_epochs in zip(args.depths, epochs, strict=True):
        seconds: dict[str, list[float]] = {name: [] for name in args.variants}
        in_run: dict[str, list[float]] = {name: [] for name in args.variants}
        for r in range(args.repeats):
            for name in args.variants:
                try:
                    total, inside = fit_seconds(depth, name, n_epochs, args.out / f"d{depth}_{name}_{r}")
                except DataError as err:
                    parser.error(missing_data(err, "callback_cost.py"))
                seconds[name].append(total)
                in_run[name].append(total / (total - inside))
                print(f"depth {depth}, callbacks={name}, run {r}: fit {total:.1f} s, "
                      f"analysis hooks {inside:.1f} s", flush=True)
        best = {name: min(v) for name, v in seconds.items()}
        reference = best.get("minimal")
        print(f"\nfit wall time, depth-{depth} width-50 highway on MNIST, {n_epochs} epoch(s), "
              f"best of {args.repeats}:")
        for name, value in best.items():
            ratio = f"{value / reference:.3f}" if reference else "-"
            print(f"  callbacks={name:<9} {value:7.1f} s   wall ratio to minimal {ratio}   in-run "
                  f"T/(T-C): {', '.join(f'{x:.3f}' for x in in_run[name])}")
    print("target: callbacks=default within 1.10 of callbacks=minimal")


if __name__ == "__main__":
    main()
