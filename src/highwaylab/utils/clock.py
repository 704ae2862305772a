"""When this process started: the start-up (interpreter, imports) counts in a run's wall time.

Every duration here is read from clocks that a change of the system's wall clock (NTP, a VM's clock
sync) does not move: the time since boot (``/proc/uptime``) against the process's start in clock
ticks since boot (``/proc/self/stat``), and ``time.monotonic()``. Before, the start-up was the wall
clock's ``time.time()`` less the boot time, and the fit and wall times differences of ``time.time()``:
a wall clock stepped back during a run made the start-up 0 and the wall time shorter than the fit
(a CI run of ``tests/test_failures.py``'s start-up test failed once, under load, with no other cause
found). ``highwaylab.callbacks.epoch_log`` had its own ``process_age``; both now use this one.
:func:`process_start` stays on the wall clock: train.py compares it with files' modification times.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_IMPORTED_AT = time.monotonic()  # the fallback: when highwaylab's first module was imported
_first_job: list[bool] = [True]


def process_age() -> float | None:
    """Seconds since this process started (Linux: ``/proc/uptime`` less field 22 of
    ``/proc/self/stat``, ``starttime`` in clock ticks after boot, to 1/100 s); ``None`` where that
    cannot be read."""
    try:
        # the fields after the command name (in parentheses, which may hold spaces) start at field 3
        start_ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - start_ticks / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError):
        return None


def process_start() -> float:
    """The wall-clock time (seconds since the epoch) at which this process started, for a comparison
    with files' modification times (which are on the wall clock): now less :func:`process_age` (or
    less the time since this module was imported, without ``/proc``)."""
    age = process_age()
    return time.time() - (age if age is not None else time.monotonic() - _IMPORTED_AT)


def startup_seconds() -> float:
    """Seconds from the start of this process to now for the first job the process runs (called as
    the job starts); 0 for later jobs of the same process (a multirun's sequential jobs share one
    start-up). Without ``/proc``, the time since this module was imported, which leaves out the
    interpreter's own start (about 0.05 s)."""
    if not _first_job[0]:
        return 0.0
    _first_job[0] = False
    age = process_age()
    return age if age is not None else time.monotonic() - _IMPORTED_AT
