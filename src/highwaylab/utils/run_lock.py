"""One process per run folder: while a job of ``train.py`` runs, it holds an exclusive ``flock`` on
``<run>/.hydra/running.lock`` (the file holds its process id) and on the ``<run>/.hydra`` folder
itself (which stays locked when the file is deleted by hand), so that ``resume=<run>`` of a run
that is still running, or still finishing its test, is refused before anything is written, instead
of two processes writing one folder. The kernel releases the lock when the process ends, however it
ends (SIGKILL too), so a lock is never stale. Nothing here imports torch.

Where ``flock`` is missing (not POSIX) or the file system refuses it, nothing is locked.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None

LOCK = Path(".hydra") / "running.lock"


@contextlib.contextmanager
def holding(run: Path) -> Iterator[None]:
    """Hold the run's lock for the ``with`` block (one job; a multirun's next job takes its own).
    Nothing is locked for a run without a ``.hydra`` record folder (``hydra.output_subdir=null``).

    Raises:
        ConfigError: another process holds it (its process id named), checked again here for a
            ``ckpt_path=`` resume that :func:`holder` did not see.
    """
    from highwaylab.errors import ConfigError

    path = Path(run) / LOCK
    if fcntl is None or not path.parent.is_dir():
        yield
        return
    check_lock_file(path, f"hydra.run.dir={run}")
    fd = folder = None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        # a protected (chattr +i) or read-only lock file: flock needs no write access, so it is locked
        # all the same, without this process's id (pass 66, row 29: before, the lock was skipped, and
        # two resumes of one run trained in its folder at once)
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDONLY)
    with contextlib.suppress(OSError):  # the record folder's lock outlives an rm of the file
        folder = os.open(path.parent, os.O_RDONLY)
    try:
        for locked, shown in ((fd, path), (folder, path.parent)):
            if locked is None:
                continue
            try:
                fcntl.flock(locked, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # pass 38, row 44: the folder's, with running.lock deleted by hand
                pid = _pid(fd) if locked == fd else 0  # the id the file names, if that process lives
                pid = pid if pid and _alive(pid) else 0
                raise ConfigError(busy_message(Path(run), pid, f"hydra.run.dir={run}", shown)) from None
            except OSError:  # a file system without flock: run unlocked
                pass
        with contextlib.suppress(OSError, TypeError):  # the holder's id, where the file can be written
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        for opened in (fd, folder):  # closing releases the locks
            if opened is not None:
                os.close(opened)


def holder(run: Path) -> int | None:
    """The process id that holds ``run``'s lock (0 if it wrote none, or the process it names has ended:
    another program holds the lock), or ``None`` when no running process holds it.

    Raises:
        ConfigError: something else than a file is at the lock's path (:func:`check_lock_file`).
    """
    path = Path(run) / LOCK
    if fcntl is None:
        return None
    check_lock_file(path, f"resume={run}")
    if not path.is_file() or not _held(path):  # pass 38, row 43: the file deleted by hand (or made
        return 0 if _held(path.parent) else None  # again) while its run goes on: its folder stays locked
    try:  # held: by the process the file names, if it lives; else by another (0) (pass 32, row 44:
        text = path.read_text(errors="replace").strip()  # before, "still running in <a dead pid>")
    except OSError:
        return 0
    pid = int(text) if text.isdigit() else 0
    return pid if pid and _alive(pid) else 0


def _held(path: Path) -> bool:
    """Whether another process holds an exclusive ``flock`` on ``path`` (a file or a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


def check_lock_file(path: Path, given: str) -> None:
    """Raises ConfigError when something else than a file (a folder, a FIFO...) is at the lock's
    path: the lock would be silently off, and two processes could write one run folder."""
    from highwaylab.errors import ConfigError

    if os.path.lexists(path) and not path.is_file():
        kind = "a folder" if path.is_dir() else "not a plain file"
        raise ConfigError(f"{given}: {path} is {kind}, where the run keeps the lock that lets one process "
                          f"at a time write its folder. Fix: remove it (rm -r {path}); the run makes the "
                          f"file itself")


def held_lock(run: Path) -> Path:
    """The lock that a running job of ``run`` holds and that a message names: its lock file, or its
    ``.hydra`` folder when the file is gone (deleted by hand)."""
    return Path(run) / LOCK if (Path(run) / LOCK).is_file() else Path(run) / LOCK.parent


def busy_message(run: Path, pid: int | None, given: str, held: Path | None = None) -> str:
    """The one line for ``given`` (``resume=<run>``) when process ``pid`` (0 or ``None``: unknown)
    still runs ``run``, holding the lock of ``held`` (default: the lock file)."""
    if not pid:
        held = held or held_lock(run)
        return (f"{given}: another process holds {held}, the lock of a running run (fuser -v {held} names "
                f"it): wait for it to end, or stop it, then resume the run")
    return (f"{given}: the run is still running in process {pid}, which holds {Path(run) / LOCK}: wait for "
            f"it to end, or stop it (kill {pid}: SIGTERM saves its state), then resume it")


def _alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (one of another user's counts: it cannot be signalled)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _pid(fd: int) -> int:
    try:
        text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return 0
    return int(text) if text.isdigit() else 0
