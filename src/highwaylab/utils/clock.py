"""When this process started: the start-up (interpreter, imports) counts in a run's wall time."""

from __future__ import annotations

import os
import time

_IMPORTED_AT = time.time()  # the fallback: when highwaylab's first module was imported
_first_job: list[bool] = [True]


def process_start() -> float:
    """The wall-clock time (seconds since the epoch) at which this process started.

    On Linux it is read from ``/proc/self/stat`` (field 22, ``starttime``, in clock ticks after
    boot) and ``/proc/stat``'s ``btime`` (boot time), to 1/100 s; elsewhere it is the time this module
    was imported, which leaves out the interpreter's own start (about 0.05 s).
    """
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # the name, in parentheses, may hold spaces
        ticks = int(fields[19])  # field 22 of proc(5); fields[0] is field 3
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return _IMPORTED_AT


def startup_seconds(job_start: float) -> float:
    """Seconds from the start of this process to ``job_start`` (a ``time.time()``) for the first job
    the process runs; 0 for later jobs of the same process (a multirun's sequential jobs share one
    start-up)."""
    if not _first_job[0]:
        return 0.0
    _first_job[0] = False
    return max(0.0, job_start - process_start())
