"""Training throughput of the depth-100, width-50 highway net on MNIST, measured three ways.

    python benchmarks/throughput.py [--steps 300] [--repeats 3]

1. ``lightning``: ``train.py``'s own objects (default callbacks and logger, SGD, gradient clipping),
   timed by Lightning's ``Timer`` callback, validation off;
2. ``bare``: a plain PyTorch loop over the same fused model, optimiser, clipping and data;
3. ``naive``: the same bare loop over the reference two-Linear highway layer.

Prints samples/s of each (best of ``--repeats``) and the ratios lightning/bare (target >= 0.9)
and bare/naive, the speed-up of the fused H/T matmul (target >= 1.2). Ratios, not absolute
times, are the result: all three run in this one process on the same machine.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import torch
from arguments import missing_data, out_folder, positive

from highwaylab.errors import DataError
from highwaylab.models import FCBackbone
from highwaylab.train import build
from highwaylab.utils import close_loggers, compose_config

ROOT = Path(__file__).resolve().parents[1]


def lightning_run(steps: int, output_dir: Path, extra: tuple[str, ...] = ()) -> float:
    """Samples/s of a train.py run (default callbacks and logger), from Lightning's Timer."""
    from lightning.pytorch.callbacks import Timer

    overrides = ["model=highway", "depth=100", "width=50", "trainer=cpu", f"trainer.max_steps={steps}",
                 "trainer.limit_val_batches=0", "trainer.num_sanity_val_steps=0", "test=false",
                 "+callbacks.timer._target_=lightning.pytorch.callbacks.Timer", *extra]
    cfg = compose_config(ROOT / "conf", overrides, output_dir)
    try:
        parts = build(cfg)
        parts.trainer.fit(parts.module, datamodule=parts.datamodule)
        timer = next(cb for cb in parts.trainer.callbacks if isinstance(cb, Timer))
        batch = cfg.data.batch_size
        return parts.trainer.global_step * batch / timer.time_elapsed("train")
    finally:
        close_loggers(failed=False)


def bare_run(block: str, steps: int, loader) -> float:
    """Samples/s of a plain loop: forward, cross-entropy, backward, clip to norm 1, SGD step."""
    torch.manual_seed(0)
    net = FCBackbone(block, depth=100, width=50, input_shape=784, num_classes=10)
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    seen, done = 0, 0
    start = time.perf_counter()
    while done < steps:
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(net(x), y)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            seen, done = seen + len(y), done + 1
            if done == steps:
                break
    return seen / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--steps", type=positive, default=300)
    parser.add_argument("--repeats", type=positive, default=3)
    parser.add_argument("--out", type=out_folder, default=ROOT / "outputs" / "benchmarks")
    args = parser.parse_args()
    os.environ.setdefault("WANDB_MODE", "offline")
    os.environ.setdefault("HIGHWAYLAB_ROOT", str(ROOT))
    from highwaylab.data import MNISTDataModule

    dm = MNISTDataModule(os.environ.get("HIGHWAYLAB_DATA_DIR", str(ROOT / "data")))
    try:
        dm.setup()
    except DataError as err:
        parser.error(missing_data(err, "throughput.py"))
    loader = dm.train_dataloader()
    results: dict[str, list[float]] = {"lightning": [], "bare": [], "naive": []}
    for r in range(args.repeats):  # interleaved, so that drifts in machine load hit all three
        results["lightning"].append(lightning_run(args.steps, args.out / f"lightning_{r}"))
        results["bare"].append(bare_run("highway", args.steps, loader))
        results["naive"].append(bare_run("highway_naive", args.steps, loader))
    best = {k: max(v) for k, v in results.items()}
    print(f"\nthroughput, depth-100 width-50 highway, batch 128, {args.steps} steps, "
          f"{torch.get_num_threads()} threads (best of {args.repeats}):")
    for k, v in best.items():
        print(f"  {k:<10} {v:8.0f} samples/s   (runs: {', '.join(f'{x:.0f}' for x in results[k])})")
    print(f"  lightning / bare  = {best['lightning'] / best['bare']:.3f}   (target >= 0.9)")
    print(f"  fused / naive     = {best['bare'] / best['naive']:.3f}   (target >= 1.2)")


if __name__ == "__main__":
    main()
