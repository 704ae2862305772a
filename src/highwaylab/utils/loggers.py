"""Checks of the loggers before the run starts: the folders of the loggers that write into a local
folder (TensorBoard, CSV), the W&B names (:func:`check_wandb_names`), the W&B mode, and W&B's
start-up errors as one line.

Lightning creates the loggers' folders lazily, at the first logged value, so a folder that cannot be
written would otherwise stop the run with a traceback in the middle of fitting. The module imports
no torch or Lightning (they load inside :func:`check_log_dirs`), so that the config checks can call
:func:`check_wandb_names` before torch loads.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from omegaconf import DictConfig

from highwaylab.errors import ConfigError

if TYPE_CHECKING:
    from lightning.pytorch.loggers import Logger


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
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
    from lightning.pytorch.utilities import rank_zero_only

    if rank_zero_only.rank != 0:
        return
    folder_loggers = {TensorBoardLogger: "TensorBoard", CSVLogger: "CSV"}
    names = [name for name, node in (group or {}).items()
             if isinstance(node, DictConfig) and "_target_" in node]  # instantiate_group's order
    if len(names) != len(loggers):
        names = [type(lg).__name__.removesuffix("Logger").lower() for lg in loggers]
    for name, logger in zip(names, loggers, strict=True):
        kind = next((k for cls, k in folder_loggers.items() if isinstance(logger, cls)), None)
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


def check_wandb_names(logger_cfg: Mapping | None) -> None:
    """Check the names that ``wandb.init`` validates, before any run starts: the project
    (``logger.<name>.project``, or the environment variable ``WANDB_PROJECT`` when it is empty) and
    the run id (``logger.<name>.id``, or Lightning's ``version``), with W&B's own validation (its
    ``wandb.Settings`` fields; in wandb 0.31 a project name has at most 128 characters and none of
    ``/ \\ # ? % :``). Unchecked, W&B refuses them at the logger's first use, after the data and
    model are built, with a ``UsageError`` that reads like a login problem. W&B does not check the
    entity offline (an online server does, at ``wandb.init``).

    Nothing is checked without a W&B logger in ``logger_cfg`` (the ``logger`` group) or with
    ``WANDB_MODE=disabled``. Imports ``wandb`` (about 0.4 s, no torch) only when there is a W&B
    logger, which imports it anyway.

    Raises:
        ConfigError: naming the key (e.g. ``logger.wandb.project``), the value, W&B's reason and
            the fix.
    """
    if os.environ.get("WANDB_MODE") == "disabled":
        return
    for name, node in (logger_cfg or {}).items():
        if not _is_wandb(node):
            continue
        run_id = "version" if node.get("version") else "id"  # Lightning passes version or id
        checks = [(f"logger.{name}.project", "project", node.get("project"), "highwaylab (the default)"),
                  (f"logger.{name}.{run_id}", "run_id", node.get(run_id), "null (W&B draws one)")]
        if not checks[0][2] and os.environ.get("WANDB_PROJECT"):  # Lightning's fallback: W&B's variable
            checks[0] = ("WANDB_PROJECT", "project", os.environ["WANDB_PROJECT"], "")
        for key, field, value, example in checks:
            if value is None or value == "" and field == "project":  # Lightning: lightning_logs
                continue
            shown = f"{str(value)[:40]}... ({len(str(value))} characters)" if len(str(value)) > 60 else value
            if not isinstance(value, str):
                raise ConfigError(f"{key}={value!r} must be a string (W&B takes no {type(value).__name__}); "
                                  f"quote it: '{key}=\"{value}\"'")
            reason = _wandb_refusal(field, value)
            if reason is not None:
                fix = (f"give {key} a value W&B accepts, e.g. {key}={example}" if key != "WANDB_PROJECT"
                       else f"change or unset WANDB_PROJECT, or set logger.{name}.project=highwaylab")
                raise ConfigError(f"{key}={shown} is refused by W&B ({reason}). Fix: {fix}")


def _wandb_refusal(field: str, value: str) -> str | None:
    """W&B's own reason for refusing ``value`` as the ``wandb.Settings`` field ``field`` (one line),
    or ``None`` if W&B takes it."""
    import wandb

    try:
        wandb.Settings(**{field: value})
    except wandb.errors.UsageError as err:  # the field validators' error
        return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    except ValueError as err:  # pydantic's ValidationError: the type
        return f"{type(err).__name__}: {str(err).strip().splitlines()[-1]}"
    return None


def wandb_start_error(err: Exception, online: bool) -> WandbStartError | None:
    """``err`` (raised by ``wandb.init``, at a W&B logger's first use) as one line naming
    ``logger.wandb`` and the fix, or ``None`` if it is not a W&B error.

    The fix follows the error's type and the mode, never its text: a ``UsageError`` online is taken
    as no API key (``wandb login``); offline no key is needed, so it is a setting W&B refused (the
    names are checked before the run by :func:`check_wandb_names`)."""
    import wandb

    if not isinstance(err, wandb.errors.Error):
        return None
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if isinstance(err, wandb.errors.UsageError) and online:  # wandb.init's error for "no API key configured"
        fix = ("run `wandb login` or set WANDB_API_KEY, or log offline (the default): "
               "logger.wandb.offline=true")
    elif isinstance(err, wandb.errors.UsageError):
        fix = ("change the logger.wandb setting W&B names (project, id, settings), or choose "
               "logger=csv")
    elif online:
        fix = ("check the network and WANDB_BASE_URL (the wait is logger.wandb.settings.init_timeout), or "
               "log offline and upload later: logger.wandb.offline=true, then "
               "`wandb sync <run>/wandb/offline-run-*`")
    else:
        fix = "check that the run folder's wandb/ is writable, or choose logger=csv"
    return WandbStartError(f"logger.wandb: W&B could not start its run ({type(err).__name__}: {first}). "
                           f"Fix: {fix}")
