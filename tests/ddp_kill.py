"""Start a tiny ``python train.py trainer=ddp_cpu ...`` run, SIGKILL its rank 0 as soon as a line of
its output contains MARKER, and write what its rank 1 then did to OUT_JSON: the helper of
tests/test_ddp_exact.py.

    python tests/ddp_kill.py MARKER OUT_JSON WAIT_S <train.py overrides...>

This process makes itself a child subreaper (Linux ``prctl``), so that rank 1, a child of rank 0,
is re-parented to it when rank 0 dies and its exit status can be read. It kills what is left of
both ranks (by pid) before it exits. OUT_JSON holds ``rank1_exit`` (its exit status; null if it
outlived WAIT_S), ``rank1_seconds`` (from the kill to its exit), ``lines`` (the whole output of
both ranks, in order) and ``after_kill`` (the lines read after the kill).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PR_SET_CHILD_SUBREAPER = 36


def children(pid: int) -> list[int]:
    """The pids of ``pid``'s children (from /proc)."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
    return found


def is_train_py(pid: int) -> bool:
    try:
        return "train.py" in Path(f"/proc/{pid}/cmdline").read_text()
    except OSError:
        return False


def kill(pid: int | None) -> None:
    if pid is not None:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def main(marker: str, out: Path, wait_s: float, overrides: list[str]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
    rank0 = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *overrides], cwd=ROOT,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[tuple[float, str]] = []
    seen = threading.Event()

    def read() -> None:
        for line in rank0.stdout:  # rank 1 writes into the same pipe
            lines.append((time.monotonic(), line.rstrip("\n")))
            if marker in line:
                seen.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    result: dict = {"rank1_exit": None, "rank1_seconds": None, "rank1_pid": None}
    rank1 = None
    killed = None
    try:
        if not seen.wait(wait_s):
            result["error"] = f"no line with {marker!r} within {wait_s} s"
            return
        ranks = [pid for pid in children(rank0.pid) if is_train_py(pid)]
        if len(ranks) != 1:
            result["error"] = f"rank 0 has {len(ranks)} train.py children"
            return
        rank1 = result["rank1_pid"] = ranks[0]
        os.kill(rank0.pid, signal.SIGKILL)
        killed = time.monotonic()
        rank0.wait()
        while time.monotonic() - killed < wait_s:
            pid, status = os.waitpid(rank1, os.WNOHANG)  # a child of this process now
            if pid:
                result["rank1_exit"] = os.waitstatus_to_exitcode(status)
                result["rank1_seconds"] = round(time.monotonic() - killed, 2)
                rank1 = None
                break
            time.sleep(0.1)
        reader.join(10)
    finally:
        kill(rank0.pid)
        kill(rank1)
        result["lines"] = [line for _, line in lines]
        result["after_kill"] = [line for t, line in lines if killed is not None and t >= killed]
        out.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]), float(sys.argv[3]), sys.argv[4:])
