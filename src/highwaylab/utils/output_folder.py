"""Check, before Hydra creates it, that the run's (or the sweep's) folder can be written.

Hydra makes the output folder, opens ``train.log`` in it and saves ``.hydra/`` before the task
starts; a read-only or full disk, a file-size limit (``ulimit -f``) or a read-only run folder would
stop it there with a traceback ("Unable to configure handler 'file'"). :class:`OutputFolderCheck`
runs first (a Hydra callback) and says it in one ``highwaylab:`` line, exit status 1.
"""

from __future__ import annotations

import errno
import os
import resource
import shlex
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from highwaylab.config_checks import tilde_root
from highwaylab.errors import ConfigError

_made_run_folder: Path | None = None  # the run folder Hydra made for this single run (it was missing)
_training_started = False  # the run's first training step started (or its fit ended): its folder is kept
MIN_FREE_MB = 50  # a depth-100 run writes about 10 MB (checkpoints, W&B, logs); 1000 layers: ~50 MB
MIN_FILE_SIZE_MB = 1  # Hydra's files and the run's logs (a checkpoint: check_checkpoint_fits, by the model)


class OutputFolderError(ConfigError):
    """The run's folder cannot be created or written; the message names the folder, the key that
    places it and the fix. ``cause``: the reason and the path at fault (``"permission denied: /x"``),
    where the folder could not be written at all (``None`` for a full disk, a file-size limit...)."""

    def __init__(self, message: str, cause: str | None = None) -> None:
        super().__init__(message)
        self.cause = cause


def users_root() -> str | None:
    """``HIGHWAYLAB_ROOT`` where the user set it (the environment), or ``None`` where it is the
    folder of ``train.py``, which ``train.py`` sets when it is not set."""
    root = os.environ.get("HIGHWAYLAB_ROOT")
    if not root or Path(root).absolute() == Path(sys.argv[0]).resolve().parent:
        return None
    return root


#: Kernel file systems (``/proc``, ``/sys`` and those mounted under them), which hold no files of their
#: own: a folder cannot be made there (mkdir: ENOENT in /proc, EPERM in /sys), whatever chattr or chmod
KERNEL_FILESYSTEMS = frozenset({"proc", "sysfs", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
                                "configfs", "pstore", "bpf", "efivarfs", "fusectl", "binfmt_misc", "devpts",
                                "mqueue"})


def kernel_filesystem(path: Path) -> tuple[str, Path] | None:
    """The type and mount point of the kernel file system (:data:`KERNEL_FILESYSTEMS`) that holds
    ``path`` (its nearest existing folder), from ``/proc/self/mountinfo``; ``None`` for any other file
    system, or where that file cannot be read."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    existing = Path(os.path.abspath(path))
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    existing = existing.resolve()
    best: tuple[str, Path] | None = None
    for line in lines:  # "<id> <parent> <dev> <root> <mount point> <options> ... - <type> <source> ..."
        fields, _, rest = line.partition(" - ")
        parts = fields.split()
        if len(parts) < 5 or not rest:
            continue
        point = Path(parts[4].encode().decode("unicode_escape"))  # spaces are written \040
        if existing.is_relative_to(point) and (best is None or len(str(point)) >= len(str(best[1]))):
            best = (rest.split()[0], point)  # the last mount of the longest mount point is the one seen
    return best if best is not None and best[0] in KERNEL_FILESYSTEMS else None


def check_output_folder(folder: str | Path, key: str) -> None:
    """Check that ``folder`` (``key`` places it: ``hydra.run.dir`` or ``hydra.sweep.dir``) can be
    created and written (``~`` is refused: Hydra does not expand it): a probe file is written into
    it (or into its nearest existing parent, whose missing folders are created), the disk holds at
    least ``MIN_FREE_MB`` MB, and the process may write files of ``MIN_FILE_SIZE_MB`` MB
    (``ulimit -f``), as Hydra's files and the run's logs need (the checkpoints, whose size depends on
    the model, are checked once it is built: :func:`check_checkpoint_fits`).

    Raises:
        OutputFolderError: naming the folder, the cause and the fix; a symlink on the way to a
            missing target (``hydra.run.dir=<a dangling link>``) is named with its target.
    """
    elsewhere = f"write runs elsewhere: paths.log_dir=/another/folder (or {key}=...)"
    if (problem := tilde_root(str(folder), f"; {key}={folder}")) is not None:  # the user set ~ there
        raise OutputFolderError(problem)
    if str(folder).startswith("~"):  # quoted: '~/x' reaches here as it is
        log_dir = str(folder)[1:].split("/runs/")[0].split("/multiruns/")[0]
        raise OutputFolderError(f"{key}={folder}: Hydra does not expand ~, so the run would go to a folder "
                                f"named '~' in {Path.cwd()}. Fix: write the folder in full: "
                                f"{key}=$HOME{str(folder)[1:]} (or, for the run folders under "  # pass 44,
                                f"paths.log_dir, paths.log_dir=$HOME{log_dir})")  # row 40: log_dir alone
    folder = Path(folder)

    def refuse(reason: str, where: object, fix: str | None) -> OutputFolderError:
        """The refusal, naming HIGHWAYLAB_ROOT where it put the runs there; ``fix``: ``None`` where
        writing elsewhere is the only one."""
        first, cause = f"{fix}, or " if fix else "", f"{reason}: {where}"
        if (root := users_root()) is not None and folder.absolute().is_relative_to(Path(root).absolute()):
            return OutputFolderError(f"HIGHWAYLAB_ROOT={root} (from the environment) puts the runs under "
                                     f"{Path(root) / 'outputs'}, and {key}={folder} there cannot be written "
                                     f"({cause}). Fix: {first}set HIGHWAYLAB_ROOT to a folder that can be "
                                     f"written (or unset it: the runs then go beside train.py)", cause=cause)
        return OutputFolderError(f"{key}={folder}: cannot write the run's folder ({cause}). Fix: {first}"
                                 f"{elsewhere}", cause=cause)

    if (kernel := kernel_filesystem(folder)) is not None:  # pass 83, row 43: before, "chattr -i -a /sys",
        # which cannot work there (and a mkdir under a cgroup file system makes a cgroup)
        kind, point = kernel
        raise refuse(f"{kind}, a file system of the kernel, which holds no folders of a user's", point, None)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder) as probe:
            probe.write(b"\0" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
        if protection(folder) == "append-only (chattr +a)":  # the probe above passes there, but a run
            # replaces its metrics.json and checkpoints (pass 67, row 10: before, refused at the end, with
            # metrics.json blamed and a fix that failed)
            raise PermissionError(errno.EPERM, "append-only", str(folder))
    except OSError as err:
        dangling = next((p for p in (folder, *folder.parents) if p.is_symlink() and not p.exists()), None)
        if dangling is not None:  # before: "a file is in the way", of a link to a folder not yet made
            try:
                target = dangling.resolve()  # through a chain of links, to the missing folder
            except (RuntimeError, OSError):  # a link that loops (pass 54, row 55, major: before, a
                # warning from this check, then Hydra's mkdir traceback, "Too many levels of symbolic links")
                raise OutputFolderError(f"{key}={folder}: cannot write the run's folder: {dangling} is a "
                                        f"symbolic link that loops (-> {os.readlink(dangling)}), never "
                                        f"reaching a folder. Fix: remove or correct the link (rm "
                                        f"{dangling}), or {elsewhere}") from None
            raise OutputFolderError(f"{key}={folder}: cannot write the run's folder: {dangling} is a symlink "
                                    f"to {target}, which does not exist. Fix: create the target folder "
                                    f"(mkdir -p {target}), or remove the link (rm {dangling}), or "
                                    f"{elsewhere}") from None
        reason = {errno.EROFS: "on a read-only file system", errno.EACCES: "permission denied",
                  errno.EPERM: "permission denied", errno.ENOSPC: "the disk is full",
                  errno.EDQUOT: "the disk quota is used up", errno.ENOTDIR: "a file is in the way",
                  errno.EEXIST: "a file is in the way"}.get(err.errno, err.strerror or str(err))
        where, fix = err.filename or folder, "make it writable"
        if err.errno in (errno.EPERM, errno.EACCES):  # a folder that mkdir could not make: the one above
            # it that refused (pass 66, row 22: before, chattr -i -a of <root>/outputs, which did not exist)
            where = next((p for p in (Path(where), *Path(where).parents) if os.path.lexists(p)), where)
        if err.errno == errno.EPERM:  # not the mode bits, which root passes: a protected (immutable or
            # append-only) folder (pass 63, row 44: before, "permission denied ... make it writable")
            where = folder if Path(str(where)).parent == folder else where  # the probe file: its folder
            reason = "operation not permitted: a protected folder? lsattr -d shows 'i' or 'a'"
            fix = f"clear its protection (chattr -i -a {shlex.quote(str(where))})"
        if err.errno in (errno.ENOTDIR, errno.EEXIST):  # name the file itself, not the folder below it
            where = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), where)
            fix = "move that file away"
            if Path(where).exists() and not Path(where).is_file():  # /dev/null: never to be moved
                reason, fix = "not a folder but a device or other special file", "give a folder"
            root = os.environ.get("HIGHWAYLAB_ROOT")
            if root and Path(where) == Path(root):  # before: blamed hydra.run.dir, never typed
                raise OutputFolderError(f"HIGHWAYLAB_ROOT={root} (from the environment) is a file, not a "
                                        f"folder: the runs would go under {root}/outputs ({key}={folder}). "
                                        f"Fix: set HIGHWAYLAB_ROOT to a folder, or unset it (the runs then "
                                        f"go beside train.py)") from None
        raise refuse(reason, where, fix) from None
    record = folder / ".hydra"  # a resumed run's record, which Hydra writes its resumed_<time>/ into
    if record.is_dir():  # (pass 34, row 45: a protected one gave Hydra's PermissionError traceback)
        try:
            with tempfile.TemporaryFile(dir=record):
                pass
        except OSError as err:
            raise OutputFolderError(f"{key}={folder}: its record folder {record} cannot be written "
                                    f"({err.strerror}: a protected folder? lsattr -d shows an immutable "
                                    f"one). Fix: clear its protection (chattr -i {record}) or make it "
                                    f"writable, then run the same command again") from None
    log_file = folder / "train.log"  # a resumed run's log, which Hydra appends to (pass 33, row 8: a
    if log_file.is_file():  # protected one gave Hydra's "Unable to configure handler 'file'" traceback)
        try:
            os.close(os.open(log_file, os.O_WRONLY | os.O_APPEND))
        except OSError as err:
            raise OutputFolderError(f"{key}={folder}: its log {log_file} cannot be written ({err.strerror}: "
                                    f"a protected file? lsattr shows an immutable one). Fix: clear its "
                                    f"protection (chattr -i {log_file}) or move it away, then run the same "
                                    f"command again") from None  # (no cause: the folder can be written)
    free_mb = shutil.disk_usage(folder).free / 2**20
    if free_mb < MIN_FREE_MB:
        raise OutputFolderError(f"{key}={folder}: only {free_mb:.1f} MB free on its disk; a run needs at "
                                f"least {MIN_FREE_MB} MB (checkpoints, logs, W&B). Fix: free some space, "
                                f"or {elsewhere}")
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft != resource.RLIM_INFINITY and soft < MIN_FILE_SIZE_MB * 2**20:
        raise OutputFolderError(f"the file-size limit (ulimit -f) is {soft / 2**20:.2f} MB; a run's log "
                                f"files need at least {MIN_FILE_SIZE_MB} MB. Fix: raise it (ulimit -f "
                                f"unlimited) before starting the run.")


def checkpoint_bytes(module: Any) -> int:
    """An upper estimate of the size of the run's checkpoints, in bytes: the module's state (weights
    and buffers) three times, since the optimiser's state adds at most two copies of it (SGD's
    momentum one, Adam's first and second moments two), and 1 MiB for the rest (the loops',
    callbacks' and loggers' state, the hyperparameters)."""
    weights = sum(t.numel() * t.element_size() for t in module.state_dict().values())
    return 3 * weights + 2**20


def check_checkpoint_fits(module: Any, limit: int | None = None) -> str | None:
    """Check the file-size limit (``ulimit -f``; ``limit`` in bytes, by default this process's soft
    limit) against :func:`checkpoint_bytes` of ``module`` (a ``LightningModule``), before training:
    a checkpoint that cannot be written would end the run at its first save.

    Returns:
        A warning for a finite limit that the checkpoints fit in (a log that outgrows it fails), or
        ``None`` without a limit.

    Raises:
        OutputFolderError: the checkpoints would not fit; the message gives both sizes and the fix.
    """
    if limit is None:
        limit, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if limit == resource.RLIM_INFINITY:
        return None
    params = sum(p.numel() for p in module.parameters())
    needs = checkpoint_bytes(module)
    what = f"this run's checkpoints ({params:,} parameters, with the optimiser's state)"
    if limit < needs:
        raise OutputFolderError(f"the file-size limit (ulimit -f) is {limit / 2**20:.2f} MB; {what} are up "
                                f"to about {needs / 2**20:.2f} MB. Fix: raise it (ulimit -f unlimited) "
                                f"before starting the run.")
    return (f"the file-size limit (ulimit -f) is {limit / 2**20:.2f} MB: {what} fit (up to about "
            f"{needs / 2**20:.2f} MB), but a log file that outgrows it cannot be written.")


class OutputFolderCheck(Callback):
    """Hydra callback: :func:`check_output_folder` for ``hydra.run.dir`` before a run and for
    ``hydra.sweep.dir`` before a multirun; on failure one ``highwaylab:`` line on stderr and exit
    status 1, before Hydra writes anything.

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.output_folder``).
    """

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        _check_or_exit(config, "hydra.run.dir")

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        _check_or_exit(config, "hydra.sweep.dir")


def _check_or_exit(config: DictConfig, key: str) -> None:
    global _made_run_folder
    HydraConfig.instance().set_config(config)  # the folder's name resolves ${hydra:...} (run_name)
    folder = OmegaConf.select(config, key)
    if key == "hydra.run.dir" and not Path(folder).exists():
        _made_run_folder = Path(folder).absolute()  # Hydra makes it for this run
    try:
        check_output_folder(folder, key)
    except OutputFolderError as err:
        if key == "hydra.run.dir" and config.get("ckpt_path") and err.cause and Path(folder).is_dir():
            # resume=<run> (or ckpt_path= in the run's own folder): hydra.run.dir and paths.log_dir are
            # not the user's to give, and a resume writes into the run's folder
            writable = (f"clear its protection (chattr -i -a {shlex.quote(str(folder))})"
                        if "protected" in err.cause else "make it writable")  # pass 67, row 10: chattr +a
            err = OutputFolderError(f"the run's folder {folder} cannot be written ({err.cause}), and a "
                                    f"resume writes its checkpoints, log and record there. Fix: {writable}, "
                                    f"or copy the run elsewhere (cp -r {folder} <copy>) and resume the copy: "
                                    f"python train.py resume=<copy>")
        print(f"highwaylab: {err}", file=sys.stderr)
        sys.exit(1)


def made_run_folder() -> Path | None:
    """The run folder that Hydra made for this single run (``hydra.run.dir``, which did not exist
    before: :class:`OutputFolderCheck`), or ``None`` (a folder that existed, a multirun, no run)."""
    return _made_run_folder


def training_starting() -> None:
    """Note that the run's training has started (:func:`highwaylab.train.train`: its first training
    step, or the end of its fit): from here on its folder holds a run, which
    :func:`remove_refused_run_folder` keeps."""
    global _training_started
    _training_started = True


def holds_results(folder: Path) -> bool:
    """Whether ``folder`` holds a run's results: a checkpoint (``*.ckpt``, anywhere in it) or
    ``metrics.json``."""
    return (folder / "metrics.json").exists() or next(folder.rglob("*.ckpt"), None) is not None


def protection(path: Path) -> str | None:
    """``"immutable (chattr +i)"`` or ``"append-only (chattr +a)"`` for a file or folder so protected
    (the flags lsattr shows, read with the FS_IOC_GETFLAGS ioctl), else ``None`` (also where the file
    system has no such flags)."""
    import fcntl
    import struct

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        flags = struct.unpack("l", fcntl.ioctl(fd, 0x80086601, struct.pack("l", 0)))[0]  # FS_IOC_GETFLAGS
    except OSError:
        return None
    finally:
        os.close(fd)
    return ("immutable (chattr +i)" if flags & 0x10 else "append-only (chattr +a)" if flags & 0x20 else None)


def remove_refused_run_folder(folder: Path) -> bool:
    """Remove ``folder``, the run folder of a single run stopped before its training started
    (:func:`training_starting`: no training step), so that the corrected command can run there, as a
    run refused before Hydra leaves no folder: refused on bad input while its parts were built, its
    loggers started or its fit set up (a ``+`` key that the module does not take, a W&B setting that
    W&B refuses, a corrupt data file, a scheduler without a required argument), or interrupted
    during its start-up (``train.py``'s ``interrupted_at_start_up``). What such a run wrote (Hydra's
    record ``.hydra/``, ``config_resolved.yaml``, ``train.log``, the loggers' first files: ``wandb/``,
    a CSV or TensorBoard log) goes with it. Only a folder that Hydra made for this run (it did not
    exist: :class:`OutputFolderCheck`) is removed, and never one that holds a checkpoint or
    ``metrics.json`` (:func:`holds_results`).

    Returns:
        Whether the folder was removed.
    """
    folder = Path(folder).absolute()
    if not removable_run_folder(folder):
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return not folder.exists()


def removable_run_folder(folder: Path) -> bool:
    """Whether :func:`remove_refused_run_folder` removes ``folder``: the folder Hydra made for this
    single run, whose training has not started, holding no checkpoint nor ``metrics.json``."""
    folder = Path(folder).absolute()
    return (not _training_started and _made_run_folder is not None and folder == _made_run_folder
            and folder.is_dir() and not holds_results(folder) and not _run_elsewhere(folder))


def _run_elsewhere(folder: Path) -> bool:
    """Whether another process holds ``folder``'s run lock: the same command started twice at once, both
    finding no folder, and this one refused (pass 67, row 33): the other's folder is never removed."""
    from highwaylab.utils.run_lock import holder

    try:
        pid = holder(folder)
    except Exception:  # noqa: BLE001 - a lock path that is not a file: kept, as if held
        return True
    return pid is not None and pid != os.getpid()  # this process's own lock (its job's): its own folder
