"""A resumed run whose folder has moved keeps its best score, best checkpoint and top-k list."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.run_folder_moved")

import logging
import os
from pathlib import Path
from typing import Any

from lightning.pytorch.callbacks import Callback, ModelCheckpoint

log = logging.getLogger(__name__)


class RunFolderMoved(Callback):
    """Keep the best score, best checkpoint and top-k list of a run whose folder has moved.

    Lightning's ``ModelCheckpoint`` keeps them as absolute paths, and drops them on load when its
    folder (``dirpath``) is not the one it saved from: then the next last checkpoint is written as
    ``last-v1.ckpt``, and "best" is the best epoch after the resume. When a run resumes from a
    checkpoint in its own checkpoint folder, this callback rewrites the stored paths from the old
    folder to the new one first (``on_load_checkpoint`` runs before the callbacks' ``load_state_dict``).
    A checkpoint from another folder (a fine-tune, or ``ckpt_path`` into a new run) is left alone.
    """

    def on_load_checkpoint(self, trainer, pl_module, checkpoint: dict[str, Any]) -> None:
        if not trainer.ckpt_path:
            return
        states = checkpoint.get("callbacks") or {}
        loaded = Path(os.path.realpath(trainer.ckpt_path))
        for callback in trainer.checkpoint_callbacks:
            state = states.get(callback.state_key)
            if not isinstance(callback, ModelCheckpoint) or not state or not callback.dirpath:
                continue
            old, new = state.get("dirpath"), str(callback.dirpath)
            if not old or old == new or loaded.parent != Path(new):
                continue
            states[callback.state_key] = _moved(state, old, new)
            log.info(f"The run's folder has moved: checkpoint paths {old} -> {new}")


def _moved(value: Any, old: str, new: str) -> Any:
    """``value`` with every path under ``old`` moved under ``new`` (dict keys included)."""
    if isinstance(value, str):
        return new + value[len(old):] if value == old or value.startswith(old + os.sep) else value
    if isinstance(value, dict):
        return {_moved(k, old, new): _moved(v, old, new) for k, v in value.items()}
    return value
