"""Checkpoint files: written whole or not at all (:class:`AtomicCheckpointIO`), and checked before a
resume (:func:`resumable`)."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import resource
import shlex
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from lightning.fabric.plugins import TorchCheckpointIO
from lightning.fabric.utilities.cloud_io import _is_local_file_protocol

from highwaylab.errors import CheckpointWriteError, ConfigError
from highwaylab.utils.run_folder import gone
from highwaylab.utils.shell_args import override_arg


class AtomicCheckpointIO(TorchCheckpointIO):
    """Lightning's ``TorchCheckpointIO``, with local checkpoints written to ``<name>.tmp`` in the same
    folder, flushed to disk, then renamed over ``<name>``: a reader, or a resume after a kill, sees
    the previous file or the new one, whole. (Lightning's own write goes through a temporary file in
    the system's temp folder and a copy, which a full disk leaves truncated.)

    Set in ``conf/trainer/default.yaml`` (``trainer.plugins``).

    Raises:
        CheckpointWriteError: the write failed: one line (:func:`write_failure`) naming the file, the
            cause and its fix (a full disk: the disk and its free space; a folder that cannot be made
            or written: the folder and the key that places it); the temporary file is removed and the
            previous file is kept.
    """

    def save_checkpoint(self, checkpoint: dict[str, Any], path: Any,
                        storage_options: Any | None = None) -> None:
        if storage_options is not None or not _is_local_file_protocol(path):
            return super().save_checkpoint(checkpoint, path, storage_options)  # its error, or remote storage
        path = Path(path)
        if (folder := gone(path)) is not None:  # moved away mid-run: its mkdir below would make a new one
            raise FileNotFoundError(errno.ENOENT, f"the run's folder {folder} is gone", str(path))
        tmp = path.with_name(path.name + ".tmp")
        buffer = io.BytesIO()
        torch.save(checkpoint, buffer)  # serialised first: only the file write can fail below
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(tmp, buffer.getbuffer())
            os.replace(tmp, path)
            _sync_folder(path.parent)
        except OSError as err:
            with contextlib.suppress(OSError):  # e.g. ENOTDIR: no temporary file was made
                tmp.unlink(missing_ok=True)
            raise CheckpointWriteError(write_failure(path, err, buffer.getbuffer().nbytes)) from err


def _write(path: Path, data: memoryview) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (where the platform allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_failure(path: Path, err: OSError, size: int | None = None) -> str:
    """One line for a checkpoint write that failed with ``err``: the file, the cause and the fix that
    fits it, chosen by ``err.errno`` (never by its text):

    - ``ENOSPC``, ``EDQUOT`` (a full disk, a used-up quota): the disk (mount point) and its free
      space; free space, or write elsewhere (``paths.log_dir``);
    - ``EFBIG`` (a file larger than the process may write): the file-size limit (``ulimit -f``) and
      the checkpoint's size (``size``, bytes, if known); raise the limit;
    - ``EACCES``, ``EPERM``, ``EROFS``, ``ENOTDIR``, ``EEXIST``, ``ENOENT`` (the folder cannot be
      made or written): the folder and the key that places it (:func:`_elsewhere`: ``hydra.run.dir``
      for a run given one, else ``paths.log_dir``);
    - anything else: the error's name and text, and the folder's keys.
    """
    folder = path.parent
    kept = "the previous checkpoint there is kept" if path.is_file() else "no earlier checkpoint was there"
    code = err.errno
    if code in (errno.ENOSPC, errno.EDQUOT):
        reason = err.strerror or str(err)
        disk = disk_of(folder)
        if code == errno.EDQUOT:
            return (f"could not write the checkpoint {path} ({reason}): your disk quota there is used up "
                    f"({disk}); {kept}. Free space within your quota (`quota -s` shows it), "
                    f"{after_space(folder)}")
        return (f"could not write the checkpoint {path} ({reason}): {disk}; {kept}. Free space on that "
                f"disk, {after_space(folder)}")
    if code == errno.EFBIG:
        soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
        limit = "unlimited" if soft == resource.RLIM_INFINITY else _size(soft)
        needs = f" and the checkpoint is {_size(size)}" if size is not None else ""
        return (f"could not write the checkpoint {path} (File too large): the file-size limit of this "
                f"process (ulimit -f) is {limit}{needs}; {kept}. Fix: raise the limit (ulimit -f "
                "unlimited) in the shell or job script that starts the run, then resume.")
    if code in (errno.EPERM, errno.EACCES) and path.is_file() and folder.is_dir() \
            and os.access(folder, os.W_OK | os.X_OK):  # the folder takes files: the file is protected
        return (f"could not write the checkpoint {path}: that file cannot be replaced "
                f"({FOLDER_ERRORS[code]}; its folder can be written: a protected file? lsattr shows an "
                f"immutable one); {kept}. Fix: clear its protection (chattr -i {path}) or move it away, then "
                f"resume.")
    tmp = path.with_name(path.name + ".tmp")
    if code == errno.EISDIR and (blocker := next((p for p in (tmp, path) if p.is_dir()), None)) is not None:
        role = "the temporary file it is written to first" if blocker == tmp else "the checkpoint file"
        return (f"could not write the checkpoint {path}: a folder, {blocker}, is in the place of {role}; "
                f"{kept}. Fix: move that folder away (mv {shlex.quote(str(blocker))} "
                f"{shlex.quote(str(blocker) + '.old')}), {after_space(folder)}")  # pass 55, row 87
    if code in FOLDER_ERRORS:
        reason, fix = _folder_reason(err, folder)
        return f"could not write the checkpoint {path}: {reason}; {kept}. Fix: {fix}{_elsewhere(folder)}."
    name = errno.errorcode.get(code, type(err).__name__) if code is not None else type(err).__name__
    return (f"could not write the checkpoint {path} ({name}: {err.strerror or err}); {kept}. Fix: check "
            f"the disk of {folder} (the system log names its fault), or {_elsewhere(folder)}.")


# errors of a folder that cannot be made or written (not of a full disk): the fix is the folder's key
FOLDER_ERRORS = {errno.EACCES: "permission denied", errno.EPERM: "operation not permitted",
                 errno.EROFS: "read-only file system", errno.ENOTDIR: "a file is in the way",
                 errno.EEXIST: "a file is in the way", errno.ENOENT: "no such file or directory"}
CHECKPOINT_KEYS = ("callbacks.model_checkpoint.dirpath", "callbacks.last_checkpoint.dirpath")


def _folder_reason(err: OSError, folder: Path) -> tuple[str, str]:
    """Why ``folder`` cannot take a checkpoint (``err``, of a folder: :data:`FOLDER_ERRORS`), naming
    the folder, or the parent it cannot be made in, or the file in the way; and the first fix
    (``"make <it> writable, or "``), if there is one."""
    what = FOLDER_ERRORS[err.errno]
    if folder.is_dir():
        return f"its folder {folder} cannot be written ({what})", f"make {folder} writable, or "
    parent = _nearest_existing(folder)
    if not parent.is_dir():
        return (f"its folder {folder} cannot be made ({parent} is a file, not a folder)",
                f"move {parent} away, or ")
    # ENOENT beside an existing parent: a file system that takes no folders (/proc, /sys)
    fix = "" if err.errno == errno.ENOENT else f"make {parent} writable, or "
    return f"its folder {folder} cannot be made in {parent} ({what})", fix


def _nearest_existing(folder: Path) -> Path:
    """``folder``, or its nearest parent that exists (``exists()`` is false under a file, too)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def after_space(folder: Path) -> str:
    """What to do once space is freed for the checkpoints of ``folder``: resume the run from its
    ``last.ckpt`` (in its own folder: ``resume=`` keeps it), or, with none yet, start it again, there
    or elsewhere (pass 53, row 61, major: before, "or set paths.log_dir to another one, then resume",
    for a run with nothing to resume, placed by hydra.run.dir, which paths.log_dir does not move)."""
    run = _run_folder()
    if (folder / "last.ckpt").is_file():
        where = override_arg("resume", run) if run is not None else f"ckpt_path={folder / 'last.ckpt'}"
        return f"then resume it: python train.py {where}"
    again = "then start the run again (there is no checkpoint to resume from)"
    if run is not None and _run_folder_key() == "hydra.run.dir":  # its record refuses a new run there
        again += f" after rm -r {run}, which holds its record"  # (pass 54, row 54)
    return f"{again}, or {_elsewhere(folder)}"


def _elsewhere(folder: Path) -> str:
    """How to put the checkpoints of ``folder`` elsewhere, by the key that placed it: when it lies in
    this run's folder (the default: ``<run folder>/checkpoints``), the key of the run's folder
    (:func:`_run_folder_key`), else the checkpoint callbacks' ``dirpath`` keys."""
    run = _run_folder()
    if run is not None and _inside(folder, run):
        return f"write the run elsewhere: {_run_folder_key()}=/another/folder"
    return (f"choose another folder with the checkpoint callback's dirpath key "
            f"({' or '.join(CHECKPOINT_KEYS)}=/another/folder)")


def _run_folder() -> Path | None:
    try:
        from hydra.core.hydra_config import HydraConfig

        if HydraConfig.initialized():
            return Path(HydraConfig.get().runtime.output_dir)
    except Exception:  # no Hydra run (a test, a notebook)
        pass
    return None


def _run_folder_key() -> str:
    """The key that placed this run's folder: ``hydra.run.dir`` (``hydra.sweep.dir`` for a job of a
    multirun) when the run was given it (Hydra's overrides, as in the run's ``.hydra/hydra.yaml``),
    which ``paths.log_dir`` does not move; else ``paths.log_dir``."""
    try:
        from hydra.core.hydra_config import HydraConfig
        from hydra.types import RunMode

        if HydraConfig.initialized():
            hydra = HydraConfig.get()
            key = "hydra.sweep.dir" if hydra.mode == RunMode.MULTIRUN else "hydra.run.dir"
            if key in {o.split("=", 1)[0].lstrip("+~") for o in hydra.overrides.hydra}:
                return key
    except Exception:  # no Hydra run (a test, a notebook)
        pass
    return "paths.log_dir"


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(os.path.abspath(path)).relative_to(os.path.abspath(folder))
    except ValueError:
        return False
    return True


def disk_of(folder: Path) -> str:
    """``the disk at <mount point> has <free> free of <total>``, for the nearest existing folder."""
    folder = _nearest_existing(folder)
    try:
        usage, files = shutil.disk_usage(folder), os.statvfs(folder)
    except OSError:
        return f"the disk of {folder} cannot be read"
    if files.f_files and not files.f_favail:  # no file can be made: pass 54, row 54 (major): before, "the
        # disk is full" beside its free megabytes, the missing inodes never named
        return (f"the disk at {_mount_point(folder)} has no free inodes (all {files.f_files:,} of its files "
                f"are used), though {_size(usage.free)} of {_size(usage.total)} are free: delete files there")
    return f"the disk at {_mount_point(folder)} has {_size(usage.free)} free of {_size(usage.total)}"


class CheckpointFolderError(ConfigError):
    """A checkpoint callback's folder cannot take files; the message names its ``dirpath`` key."""


def recorded_dirpaths(run: Path) -> dict[str, Path]:
    """``{callback name: checkpoint folder}`` that the run in ``run`` recorded for its callbacks
    (``callbacks.<name>.dirpath`` in its ``config_resolved.yaml``, written absolute), absolute; empty
    for a folder without that record (a new run)."""
    import yaml

    try:
        callbacks = yaml.safe_load((Path(run) / "config_resolved.yaml").read_text())["callbacks"]
    except (OSError, yaml.YAMLError, KeyError, TypeError):
        return {}
    folders = {name: node.get("dirpath") for name, node in (callbacks or {}).items()
               if isinstance(node, dict)}
    return {name: Path(os.path.expanduser(f)).absolute() for name, f in folders.items()
            if isinstance(f, str) and "://" not in f}


def _own_dirpath(run_dir: Path | None, ckpt_path: str, name: str, folder: Path) -> bool:
    """Whether a resume in the run's own folder ``run_dir`` (``ckpt_path`` inside it, or in a checkpoint
    folder the run recorded: pass 76, row 68) finds ``folder`` as the ``callbacks.<name>.dirpath`` that
    the run recorded (its ``config_resolved.yaml``): the run's own best checkpoints, not another run's
    (breaking pass 44, row 26: before, a run with its own ``dirpath`` could not be resumed)."""
    if run_dir is None:
        return False
    recorded = recorded_dirpaths(run_dir)
    own = Path(ckpt_path).absolute().is_relative_to(Path(run_dir).absolute()) \
        or Path(ckpt_path).absolute().parent in recorded.values()
    return own and recorded.get(name) == folder.absolute()


def check_checkpoint_dirs(callbacks: Mapping | None, run_dir: Path | None = None,
                          ckpt_path: str | None = None) -> None:
    """Check, before training, that each checkpoint callback's ``dirpath`` (``callbacks.<name>.dirpath``,
    e.g. ``callbacks.model_checkpoint.dirpath``) can take files: a probe file is created and removed in
    the folder, or in its nearest existing parent (nothing is left behind, no folder is made). A
    folder that is read-only, not writable, under a file or impossible to create would otherwise
    fail at the first checkpoint, after an epoch of training. A ``dirpath`` that is null, remote
    (``s3://``) or does not resolve is left to the callback.

    A ``dirpath`` outside ``run_dir`` (the run's folder) that already holds checkpoints is another
    run's, whose ``last.ckpt`` and best checkpoints this run would overwrite, unless this run
    continues from a checkpoint there (``ckpt_path``), or resumes in its own folder, whose run wrote
    its checkpoints there (:func:`_own_dirpath`).

    Raises:
        CheckpointFolderError: naming ``callbacks.<name>.dirpath``, the folder, the cause and the fix.
    """
    for name, node in (callbacks or {}).items():
        if not isinstance(node, Mapping) or "dirpath" not in node:
            continue
        try:
            value = node.get("dirpath")
        except Exception:  # an interpolation that does not resolve here (no Hydra run)
            continue
        if value is None or "://" in str(value):
            continue
        folder = Path(os.path.expanduser(str(value)))
        key = f"callbacks.{name}.dirpath"
        outside = run_dir is not None and not folder.absolute().is_relative_to(Path(run_dir).absolute())
        continued = ckpt_path and (Path(ckpt_path).absolute().parent == folder.absolute()
                                   or _own_dirpath(run_dir, ckpt_path, name, folder))
        found = sorted(p.name for p in folder.glob("*.ckpt")) if folder.is_dir() else []
        if outside and found and not continued:
            raise CheckpointFolderError(f"{key}={value} already holds checkpoints ({', '.join(found[:3])}"
                                        f"{'...' if len(found) > 3 else ''}) of another run, which this "
                                        f"run would overwrite. Fix: give a new or empty folder, or leave "
                                        f"{key} out (the run's folder's checkpoints/)")
        try:
            _probe(folder)
        except OSError as err:
            if err.errno in FOLDER_ERRORS:
                reason, fix = _folder_reason(err, folder)
            else:
                reason, fix = f"{folder} cannot take files ({err.strerror or err})", ""
            if run_dir is not None and not outside:  # the run's own folder: no key of the user's (pass 34,
                protected = " (a protected folder? lsattr -d shows an immutable one)" \
                    if err.errno == errno.EPERM else ""  # row 46: "set callbacks....dirpath", never set)
                first = fix.removesuffix(", or ") or f"make {folder} writable"
                raise CheckpointFolderError(f"the run's checkpoint folder {folder}: no checkpoint can be "
                                            f"written there: {reason}{protected}. Fix: {first}, then run the "
                                            f"same command again") from err
            raise CheckpointFolderError(f"{key}={value}: no checkpoint can be written there: {reason}. Fix: "
                                        f"{fix}set {key} to another folder (or leave it out: the run's "
                                        "folder's checkpoints/)") from err
        if run_dir is not None and not outside:
            check_checkpoints_replaceable(folder)
        existing = _nearest_existing(folder)
        if _append_only(existing):  # pass 60, row 26: before, the first checkpoint's rename failed after an
            # epoch of training, with a line that misread the cause
            where = (f"the run's checkpoint folder {folder}" if run_dir is not None and not outside
                     else f"{key}={value}")
            raise CheckpointFolderError(
                f"{where}: no checkpoint can be saved there: {existing} is append-only (chattr +a; lsattr -d "
                f"shows 'a'), so a file can be made in it but not renamed or removed, and each checkpoint is "
                f"written as <name>.tmp, then renamed into place. Fix: chattr -a "
                f"{shlex.quote(str(existing))}, then run the same command again")


# linux/fs.h: the inode flags that lsattr shows ('i': immutable, 'a': append only)
FS_IOC_GETFLAGS, FS_IMMUTABLE_FL, FS_APPEND_FL = 0x80086601, 0x10, 0x20


def _inode_flags(path: Path) -> int:
    """The inode flags of ``path`` (``lsattr``'s); 0 where the file system or the platform has none."""
    try:
        import array
        import fcntl

        fd = os.open(path, os.O_RDONLY)
    except (ImportError, OSError):
        return 0
    try:
        flags = array.array("i", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        return flags[0]
    except OSError:  # a file system without inode flags (tmpfs, NFS)
        return 0
    finally:
        os.close(fd)


def _append_only(folder: Path) -> bool:
    """Whether ``folder`` has the append-only flag (``chattr +a``)."""
    return bool(_inode_flags(folder) & FS_APPEND_FL)


def check_checkpoints_replaceable(folder: Path) -> None:
    """Raises CheckpointFolderError for a checkpoint in the run's ``folder`` that is protected
    (``chattr +i`` or ``+a``): the run replaces ``last.ckpt`` and removes a best checkpoint when a
    better epoch comes (``save_top_k``), and that would fail after an epoch of training, with
    Lightning's ``PermissionError`` traceback and the epoch's resume point lost (breaking pass 61, row
    53: an immutable ``epoch_000.ckpt``, then ``resume=``)."""
    try:
        files = sorted(p for p in folder.glob("*.ckpt") if p.is_file())
    except OSError:
        return
    for path in files:
        flags = _inode_flags(path)
        if flags & (FS_IMMUTABLE_FL | FS_APPEND_FL):
            how = "immutable (chattr +i; lsattr shows 'i')" if flags & FS_IMMUTABLE_FL else \
                "append-only (chattr +a; lsattr shows 'a')"
            flag = "i" if flags & FS_IMMUTABLE_FL else "a"
            raise CheckpointFolderError(
                f"the run's checkpoint {path} is {how}, and the run replaces or removes its checkpoints as "
                f"it trains (last.ckpt each epoch, a best one when a better epoch comes), which would fail "
                f"after an epoch of training. Fix: chattr -{flag} {shlex.quote(str(path))}, then run the "
                f"same command again (to keep a copy, copy it elsewhere first)")


def _probe(folder: Path) -> None:
    """Raise the ``OSError`` that writing a file into ``folder`` (made if missing) would raise."""
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(existing))
    with tempfile.TemporaryFile(dir=existing):
        pass


def _mount_point(folder: Path) -> Path:
    folder = folder.resolve()
    while not os.path.ismount(folder) and folder != folder.parent:
        folder = folder.parent
    return folder


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,} bytes" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} TiB"


#: what a checkpoint holds beside its weights when Lightning can resume training from it
TRAINING_STATE = ("pytorch-lightning_version", "optimizer_states", "loops")


def resumable(checkpoint: dict, path: str) -> dict:
    """``checkpoint`` (read from ``path``) if Lightning can resume training from it, with any
    ``torch.compile`` wrapper segment (``_orig_mod.``) taken out of its weight names.

    Raises:
        ConfigError: the file holds weights only (a state dict saved by hand, or
            ``ModelCheckpoint(save_weights_only=True)``): no Lightning version, optimizer or loop state.
    """
    from highwaylab.module.classifier import unwrapped_state_dict

    missing = [k for k in TRAINING_STATE if k not in checkpoint]
    if missing:
        raise ConfigError(
            f"ckpt_path={path} holds weights only, not a training state (no {', '.join(missing)}), so "
            "training cannot resume from it; give a checkpoint that a run wrote, e.g. "
            "outputs/runs/<run>/checkpoints/last.ckpt")
    checkpoint["state_dict"] = unwrapped_state_dict(checkpoint["state_dict"])
    return checkpoint
