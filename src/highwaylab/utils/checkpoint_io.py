"""Checkpoint files: written whole or not at all (:class:`AtomicCheckpointIO`), and checked before a
resume (:func:`resumable`)."""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path
from typing import Any

import torch
from lightning.fabric.plugins import TorchCheckpointIO
from lightning.fabric.utilities.cloud_io import _is_local_file_protocol

from highwaylab.errors import CheckpointWriteError, ConfigError


class AtomicCheckpointIO(TorchCheckpointIO):
    """Lightning's ``TorchCheckpointIO``, with local checkpoints written to ``<name>.tmp`` in the same
    folder, flushed to disk, then renamed over ``<name>``: a reader, or a resume after a kill, sees
    the previous file or the new one, whole. (Lightning's own write goes through a temporary file in
    the system's temp folder and a copy, which a full disk leaves truncated.)

    Set in ``conf/trainer/default.yaml`` (``trainer.plugins``).

    Raises:
        CheckpointWriteError: the write failed (e.g. no space left): the message names the file, the
            disk and its free space; the temporary file is removed and the previous file is kept.
    """

    def save_checkpoint(self, checkpoint: dict[str, Any], path: Any,
                        storage_options: Any | None = None) -> None:
        if storage_options is not None or not _is_local_file_protocol(path):
            return super().save_checkpoint(checkpoint, path, storage_options)  # its error, or remote storage
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        buffer = io.BytesIO()
        torch.save(checkpoint, buffer)  # serialised first: only the file write can fail below
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            _write(tmp, buffer.getbuffer())
            os.replace(tmp, path)
            _sync_folder(path.parent)
        except OSError as err:
            tmp.unlink(missing_ok=True)
            raise CheckpointWriteError(write_failure(path, err)) from err


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


def write_failure(path: Path, err: OSError) -> str:
    """One line: the file, the error, the disk (mount point) and its free space, and the fix."""
    reason = err.strerror or str(err)
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        usage = shutil.disk_usage(folder)
        disk = f"the disk at {_mount_point(folder)} has {_size(usage.free)} free of {_size(usage.total)}"
    except OSError:
        disk = f"the disk of {folder} cannot be read"
    kept = "the previous checkpoint there is kept" if path.exists() else "no earlier checkpoint was there"
    return (f"could not write the checkpoint {path} ({reason}): {disk}; {kept}. Free space on that disk, "
            "or set paths.log_dir to another one, then resume.")


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


def resumable(checkpoint: dict, path: str) -> dict:
    """``checkpoint`` (read from ``path``) if Lightning can resume training from it, with any
    ``torch.compile`` wrapper segment (``_orig_mod.``) taken out of its weight names.

    Raises:
        ConfigError: the file holds weights only (a state dict saved by hand, or
            ``ModelCheckpoint(save_weights_only=True)``): no Lightning version, optimizer or loop state.
    """
    from highwaylab.module.classifier import unwrapped_state_dict

    missing = [k for k in ("pytorch-lightning_version", "optimizer_states", "loops") if k not in checkpoint]
    if missing:
        raise ConfigError(
            f"ckpt_path={path} holds weights only, not a training state (no {', '.join(missing)}), so "
            "training cannot resume from it; give a checkpoint that a run wrote, e.g. "
            "outputs/runs/<run>/checkpoints/last.ckpt")
    checkpoint["state_dict"] = unwrapped_state_dict(checkpoint["state_dict"])
    return checkpoint
