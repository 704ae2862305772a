"""Cost of subnormal (denormal) numbers in deep fully connected nets on the CPU, measured in one process.

    python benchmarks/denormals.py [--steps 15 3] [--warmup 3 1]

A training step (forward, cross-entropy, backward, SGD step with momentum; batch 128 of real MNIST,
or uniform noise without it) of plain and highway nets of width 50 at depth 100 and 1000 (ReLU),
and of a sigmoid plain stack at depth 100, on one thread (``torch.set_num_threads(1)``), with and
without flushing subnormal numbers to zero (``highwaylab.utils.numerics.configure_denormals``).
Each net starts from the same seed in both modes. Prints the median ms/step of ``--steps`` steps
after ``--warmup`` steps (first number: depth 100, second: depth 1000), the
ratio off/on, and the shares of the hidden values and of the parameter gradients of the first step
(flush off) that are subnormal (nonzero and below 1.2e-38 in magnitude, float32's smallest normal
number) or zero. With PyTorch's default initialisation (biases too) the forward signal of a plain
ReLU stack stays normal; its gradient shrinks layer by layer towards the stem, through the subnormal
range (slow) down to exact zeros (fast again).
Ratios, not absolute times, are the result: every configuration runs in this one process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import torch
from arguments import non_negative, positive

from highwaylab.models import FCBackbone
from highwaylab.utils.numerics import configure_denormals

ROOT = Path(__file__).resolve().parents[1]
NETS = (("plain", 100, "relu"), ("plain", 100, "sigmoid"), ("highway", 100, "relu"),
        ("plain", 1000, "relu"), ("highway", 1000, "relu"))
TINY = torch.finfo(torch.float32).tiny  # 1.18e-38, the smallest normal float32


def one_batch(batch_size: int = 128) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of normalised MNIST training images ``(N, 1, 28, 28)`` and labels, or uniform noise."""
    data_dir = os.environ.get("HIGHWAYLAB_DATA_DIR", str(ROOT / "data"))
    try:
        from highwaylab.data import MNISTDataModule

        dm = MNISTDataModule(data_dir, batch_size=batch_size)
        dm.setup()
        return next(iter(dm.train_dataloader()))
    except Exception as err:  # no MNIST here: the timings hardly depend on the pixels
        print(f"(no MNIST in {data_dir}: {type(err).__name__}; using uniform noise)")
        generator = torch.Generator().manual_seed(0)
        return torch.rand(batch_size, 1, 28, 28, generator=generator), torch.randint(10, (batch_size,))


def make_net(block: str, depth: int, activation: str) -> FCBackbone:
    torch.manual_seed(0)
    return FCBackbone(block, depth=depth, width=50, input_shape=784, num_classes=10, activation=activation)


def shares(tensors: list[torch.Tensor]) -> tuple[float, float]:
    """Shares of the entries of ``tensors`` that are subnormal, and that are exactly zero."""
    subnormal = zero = total = 0
    for t in tensors:
        subnormal += int(((t != 0) & (t.abs() < TINY)).sum())
        zero += int((t == 0).sum())
        total += t.numel()
    return subnormal / total, zero / total


def first_step_shares(net: FCBackbone, x: torch.Tensor, y: torch.Tensor) -> tuple[float, float, float]:
    """Subnormal shares of the hidden values and of the parameter gradients of one forward and
    backward pass, and the share of gradient entries that are exactly zero."""
    logits, internals = net.forward_internals(x)
    torch.nn.functional.cross_entropy(logits, y).backward()
    hidden, _ = shares([h.detach() for h in internals.states])
    grad_subnormal, grad_zero = shares([p.grad for p in net.parameters()])
    net.zero_grad(set_to_none=True)
    return hidden, grad_subnormal, grad_zero


def step_times(net: FCBackbone, x: torch.Tensor, y: torch.Tensor, warmup: int, steps: int) -> list[float]:
    """Seconds of each of ``steps`` training steps after ``warmup`` steps."""
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    times = []
    for i in range(warmup + steps):
        start = time.perf_counter()
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i >= warmup:
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--steps", type=positive, nargs=2, default=(15, 3), metavar=("D100", "D1000"))
    parser.add_argument("--warmup", type=non_negative, nargs=2, default=(3, 1), metavar=("D100", "D1000"))
    args = parser.parse_args()
    torch.set_num_threads(1)
    x, y = one_batch()
    rows = []
    try:
        for block, depth, activation in NETS:
            k = 0 if depth <= 100 else 1
            ms, share = {}, (0.0, 0.0, 0.0)
            for flush in (False, True):  # the same initial weights and batch in both modes
                if not configure_denormals(flush):
                    raise SystemExit("this CPU cannot flush subnormal numbers (torch.set_flush_denormal)")
                net = make_net(block, depth, activation)
                if not flush:
                    share = first_step_shares(net, x, y)
                times = step_times(net, x, y, args.warmup[k], args.steps[k])
                ms[flush] = 1000 * statistics.median(times)
                print(f"  {block} d{depth} {activation} flush={'on' if flush else 'off'}: "
                      f"{', '.join(f'{1000 * t:.0f}' for t in times)} ms", flush=True)
            rows.append((f"{block} d{depth} {activation}", ms[False], ms[True], share))
    finally:
        configure_denormals(False)  # PyTorch's default
    print(f"\ntraining step, width 50, batch 128, 1 thread, median of {args.steps[0]} (depth 100) / "
          f"{args.steps[1]} (depth 1000) steps after {args.warmup[0]} / {args.warmup[1]} warm-up steps:")
    print(f"  {'net':<22} {'flush off':>10} {'flush on':>10} {'off/on':>7}   subnormal: hidden  grads"
          "   zero grads")
    for name, off, on, (hidden, grads, zero) in rows:
        print(f"  {name:<22} {off:>7.1f} ms {on:>7.1f} ms {off / on:>6.2f}x {100 * hidden:>17.1f}% "
              f"{100 * grads:>5.1f}% {100 * zero:>11.1f}%")


if __name__ == "__main__":
    main()
