"""How long ``train.py`` takes to answer, against importing Hydra and OmegaConf, in one process tree.

    python benchmarks/startup.py [--repeats 5] [--root <checkout>]

Runs each command ``--repeats`` times, one after the other, and prints the median wall time and its
ratio to the baseline ``python -c "import hydra, omegaconf"``:

- ``train.py depth=0``: a config error (one ``highwaylab:`` line, exit status 1);
- ``train.py --help`` and ``train.py --cfg job``;
- ``train.py debug=fast``, up to its first training step: a callback (:class:`FirstStep`, from this
  file, added with ``+callbacks.first_step``) prints a marker at the first batch; the time is taken
  when the marker arrives, and the run is then stopped with SIGTERM (its own clean stop).

``--root`` measures another checkout (e.g. a ``git worktree`` of an older commit) with this venv:
its ``src/`` goes first on ``PYTHONPATH``. Ratios, not absolute times, are the result: the machine's
load changes both sides alike.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MARKER = "highwaylab-benchmark: first training step"
HERE = Path(__file__).resolve().parent


class FirstStep:
    """Lightning callback (duck-typed, so that importing this file needs no Lightning): print
    :data:`MARKER` at the first training batch."""

    def __getattr__(self, name: str):  # every other hook of the Callback interface does nothing
        if name.startswith("on_") or name in ("setup", "teardown", "state_dict", "load_state_dict"):
            return lambda *args, **kwargs: {} if name == "state_dict" else None
        raise AttributeError(name)

    @property
    def state_key(self) -> str:
        return "FirstStep"

    def on_train_batch_start(self, *args, **kwargs) -> None:
        print(MARKER, flush=True)


def timed(cmd: list[str], env: dict[str, str], cwd: Path, until: str | None = None) -> float:
    """Wall seconds of ``cmd``: until it exits, or until a line of its output holds ``until``."""
    start = time.perf_counter()
    if until is None:
        subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    for line in proc.stdout:
        if until in line:
            elapsed = time.perf_counter() - start
            proc.send_signal(signal.SIGTERM)
            proc.communicate()
            return elapsed
    proc.wait()
    raise RuntimeError(f"{' '.join(cmd)} exited ({proc.returncode}) before its first training step")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--root", type=Path, default=HERE.parent, help="the checkout to measure")
    args = parser.parse_args()
    root = args.root.resolve()
    if args.repeats < 1:  # pass 67, row 13: before, "no median for empty data", a traceback
        parser.error(f"--repeats {args.repeats}: give 1 or more (the runs whose median is reported)")
    if not (root / "train.py").is_file():  # pass 67, row 12: before, a traceback naming neither
        parser.error(f"--root {args.root}: {root} has no train.py; give the checkout's own folder "
                     f"(the one with train.py, src/ and conf/), e.g. --root {HERE.parent}")
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        env = os.environ | {"PYTHONPATH": os.pathsep.join([str(root / "src"), str(HERE)]),
                            "WANDB_MODE": "offline"}
        out = [f"paths.log_dir={tmp}"]
        commands = {
            "baseline: import hydra, omegaconf": ([py, "-c", "import hydra, omegaconf"], None),
            "train.py depth=0": ([py, "train.py", "depth=0", *out], None),
            "train.py --help": ([py, "train.py", "--help"], None),
            "train.py --cfg job": ([py, "train.py", "--cfg", "job"], None),
            "train.py debug=fast, to the first step": (
                [py, "train.py", "debug=fast", "+callbacks.first_step._target_=startup.FirstStep", *out],
                MARKER),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(args.repeats):  # interleaved: a change of load touches every command alike
            for name, (cmd, until) in commands.items():
                times[name].append(timed(cmd, env, root, until))
    base = statistics.median(times["baseline: import hydra, omegaconf"])
    print(f"{root}: median of {args.repeats} runs each")
    print(f"{'command':42s} {'median s':>9s} {'x baseline':>11s}   all runs (s)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:42s} {median:9.2f} {median / base:11.1f}   {' '.join(f'{v:.2f}' for v in values)}")


if __name__ == "__main__":
    main()
