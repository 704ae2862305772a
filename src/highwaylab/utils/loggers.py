"""Checks of the loggers that write into a local folder (TensorBoard, CSV), before the run starts.

Lightning creates those folders lazily, at the first logged value, so a folder that cannot be
written would otherwise stop the run with a traceback in the middle of fitting.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence

from lightning.pytorch.loggers import CSVLogger, Logger, TensorBoardLogger
from lightning.pytorch.utilities import rank_zero_only
from omegaconf import DictConfig

from highwaylab.errors import ConfigError

_FOLDER_LOGGERS = {TensorBoardLogger: "TensorBoard", CSVLogger: "CSV"}


def check_log_dirs(loggers: Sequence[Logger], group: Mapping | None = None) -> None:
    """Create the log folder of every TensorBoard and CSV logger and write a probe file into it, on
    rank zero only: the process that writes them (on another rank, a CSV logger would count the
    folder made here and pick the next ``version_N``).

    Args:
        loggers: the loggers, as :func:`~highwaylab.utils.instantiate_group` built them from ``group``.
        group: the ``logger`` config group, to name the config key (``logger.<name>.save_dir``) in
            the message; without it the key is named after the logger's class.

    Raises:
        ConfigError: a log folder cannot be created or written; the message names the key and the fix.
    """
    if rank_zero_only.rank != 0:
        return
    names = [name for name, node in (group or {}).items()
             if isinstance(node, DictConfig) and "_target_" in node]  # instantiate_group's order
    if len(names) != len(loggers):
        names = [type(lg).__name__.removesuffix("Logger").lower() for lg in loggers]
    for name, logger in zip(names, loggers, strict=True):
        kind = next((k for cls, k in _FOLDER_LOGGERS.items() if isinstance(logger, cls)), None)
        if kind is None or "://" in str(logger.save_dir):  # not a local folder (W&B, s3://, ...)
            continue
        folder = os.path.normpath(logger.log_dir)
        try:
            os.makedirs(folder, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
        except OSError as err:
            key = f"logger.{name}.save_dir"
            raise ConfigError(
                f"{key}={logger.save_dir}: cannot write the {kind} log folder {folder} "
                f"({type(err).__name__}: {err.strerror or err}). Fix: set {key} to a writable folder "
                f"(e.g. {key}=/tmp/highwaylab_logs), or leave it at its default, the run directory.") from err
