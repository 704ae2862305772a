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


WANDB_MODES = ("online", "offline", "disabled", "dryrun", "shared", "run")


class WandbStartError(ConfigError):
    """W&B could not start its run (no API key, an unreachable server, a bad ``WANDB_MODE``); the
    message names ``logger.wandb`` and the way to log offline."""


def _is_wandb(node: object) -> bool:
    return isinstance(node, DictConfig) and "WandbLogger" in str(node.get("_target_", ""))


def without_disabled_wandb(group: DictConfig | None) -> DictConfig | None:
    """The ``logger`` group less its W&B logger when the environment variable ``WANDB_MODE`` is
    ``disabled`` (W&B's own switch: no run, no files), with one log line saying so.

    Raises:
        WandbStartError: ``WANDB_MODE`` is set to a value W&B does not know (e.g. empty).
    """
    mode = os.environ.get("WANDB_MODE")
    if group is None or not any(_is_wandb(node) for node in group.values()):
        return group
    if mode is not None and mode not in WANDB_MODES:
        raise WandbStartError(f"WANDB_MODE={mode!r} is not a W&B mode; set it to one of "
                              f"{', '.join(WANDB_MODES[:3])} (or unset it: logger.wandb.offline decides).")
    if mode != "disabled":
        return group
    import logging

    names = [name for name, node in group.items() if _is_wandb(node)]
    logging.getLogger(__name__).info(f"WANDB_MODE=disabled: no W&B run (logger.{names[0]} left out)")
    return DictConfig({name: node for name, node in group.items() if name not in names})


def wandb_start_error(err: Exception, online: bool) -> WandbStartError | None:
    """``err`` (raised by ``wandb.init``, at a W&B logger's first use) as one line naming
    ``logger.wandb`` and the fix, or ``None`` if it is not a W&B error."""
    import wandb

    if not isinstance(err, wandb.errors.Error):
        return None
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if isinstance(err, wandb.errors.UsageError):  # wandb.init's error for "no API key configured"
        fix = ("run `wandb login` or set WANDB_API_KEY, or log offline (the default): "
               "logger.wandb.offline=true")
    elif online:
        fix = ("check the network and WANDB_BASE_URL (the wait is logger.wandb.settings.init_timeout), or "
               "log offline and upload later: logger.wandb.offline=true, then "
               "`wandb sync <run>/wandb/offline-run-*`")
    else:
        fix = "check that the run folder's wandb/ is writable, or choose logger=csv"
    return WandbStartError(f"logger.wandb: W&B could not start its run ({type(err).__name__}: {first}). "
                           f"Fix: {fix}")
