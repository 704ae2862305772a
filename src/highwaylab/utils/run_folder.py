"""The identity of a run's folder while it trains: a folder moved or deleted mid-run is found before
a write would make a new, empty folder at its old path.

Before (breaking pass 40, row 65): ``mv <run> <run>_moved`` while the run trained, and its next
checkpoint and its ``metrics.json`` were written into a new ``<run>`` (the checkpoint writer makes its
folder and the ones above it), while ``.hydra/``, ``train.log`` and ``wandb/`` stayed in
``<run>_moved``; the run ended with exit 0, and a resume of either half failed. Now the run's
checkpoint writer (:class:`highwaylab.utils.checkpoint_io.AtomicCheckpointIO`) and its figure files
(:mod:`highwaylab.callbacks.media`) ask :func:`gone` first, and the run ends with the one line of
:func:`highwaylab.utils.task.run_folder_gone`.
"""

from __future__ import annotations

import os
from pathlib import Path

_identity: dict[str, tuple[int, int]] = {}  # absolute run folder -> (device, inode) when it started


def remember(folder: str | os.PathLike) -> None:
    """Note ``folder`` (an existing run folder) as the run's, by its device and inode."""
    stat = os.stat(folder)
    _identity[os.path.abspath(folder)] = (stat.st_dev, stat.st_ino)


def gone(path: str | os.PathLike) -> Path | None:
    """The remembered run folder that holds ``path`` (or is it) when it is no longer there: deleted,
    moved away, or replaced by another folder of the same name; ``None`` otherwise."""
    path = os.path.abspath(path)
    for folder, (device, inode) in _identity.items():
        if path != folder and not path.startswith(folder + os.sep):
            continue
        try:
            stat = os.stat(folder)
        except OSError:
            return Path(folder)
        if (stat.st_dev, stat.st_ino) != (device, inode):
            return Path(folder)
    return None
