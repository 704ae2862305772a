"""Checks of the loggers before the run starts: the folders of the loggers that write into a local
folder (TensorBoard, CSV), the W&B names (:func:`check_wandb_names`), the loggers' step counts
(:func:`check_logger_steps`), the W&B mode, and W&B's start-up errors as one line.

Lightning creates the loggers' folders lazily, at the first logged value, so a folder that cannot be
written would otherwise stop the run with a traceback in the middle of fitting. The module imports
no torch or Lightning (they load inside :func:`check_log_dirs`), so that the config checks can call
:func:`check_wandb_names` and :func:`check_logger_steps` before torch loads.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict

from highwaylab.errors import ConfigError
from highwaylab.utils.shell_args import hydra_value, shell_word

if TYPE_CHECKING:
    from lightning.pytorch.loggers import Logger


def check_log_dirs(loggers: Sequence[Logger], group: Mapping | None = None) -> None:
    """Create the log folder of every TensorBoard, CSV and W&B logger and write a probe file into it, on
    rank zero only: the process that writes them (on another rank, a CSV logger would count the
    folder made here and pick the next ``version_N``).

    Args:
        loggers: the loggers, as :func:`~highwaylab.utils.instantiate_group` built them from ``group``.
        group: the ``logger`` config group, to name the config key (``logger.<name>.save_dir``) in
            the message; without it the key is named after the logger's class.

    Raises:
        ConfigError: a log folder cannot be created or written, or its disk has less than
            :data:`MIN_FREE_BYTES` free; the message names the key and the fix.
    """
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger, WandbLogger
    from lightning.pytorch.utilities import rank_zero_only

    if rank_zero_only.rank != 0:
        return
    # W&B writes <save_dir>/wandb/; given a folder it cannot make, it falls back to /tmp with a warning
    folder_loggers = {TensorBoardLogger: "TensorBoard", CSVLogger: "CSV", WandbLogger: "W&B"}
    names = [name for name, node in (group or {}).items()
             if isinstance(node, DictConfig) and "_target_" in node]  # instantiate_group's order
    if len(names) != len(loggers):
        names = [type(lg).__name__.removesuffix("Logger").lower() for lg in loggers]
    for name, logger in zip(names, loggers, strict=True):
        kind = next((k for cls, k in folder_loggers.items() if isinstance(logger, cls)), None)
        if kind is None or "://" in str(logger.save_dir):  # not a local folder (W&B, s3://, ...)
            continue
        folder = os.path.normpath(logger.save_dir if isinstance(logger, WandbLogger) else logger.log_dir)
        own = os.path.join(folder, "wandb")  # W&B's folder of runs (pass 31, row 55: a traceback)
        if isinstance(logger, WandbLogger) and os.path.lexists(own) and not os.path.isdir(own):
            raise ConfigError(f"logger.{name}.save_dir={logger.save_dir}: {own} is a file, where W&B keeps "
                              f"its runs. Fix: move it away (mv {shlex.quote(own)} <elsewhere>), then run "
                              f"the same command again")
        blocking = next((p for p in (Path(folder), *Path(folder).parents) if p.exists() and not p.is_dir()),
                        None)  # a file where a folder goes (pass 33, row 35: "cannot write ..., or leave
        if blocking is not None:  # it at its default", which it was)
            raise ConfigError(f"logger.{name}.save_dir={logger.save_dir}: {blocking} is a file, where the "
                              f"{kind} log folder {folder} goes. Fix: move it away (mv "
                              f"{shlex.quote(str(blocking))} <elsewhere>), then run the same command again")
        try:
            os.makedirs(folder, exist_ok=True)
            with tempfile.TemporaryFile(dir=folder):
                pass
            if isinstance(logger, WandbLogger) and os.path.isdir(own):  # its runs' folder, kept from an
                try:  # earlier start (pass 33, row 10: read-only, W&B's traceback)
                    with tempfile.TemporaryFile(dir=own):
                        pass
                except OSError as err:
                    key = f"logger.{name}.save_dir"
                    raise ConfigError(f"{key}={logger.save_dir}: {own}, where W&B keeps this run's offline "
                                      f"segments, cannot be written ({err.strerror or err}). Fix: make it "
                                      f"writable, or log elsewhere: {key}=/another/folder (or logger=csv)"
                                      ) from err
            free = shutil.disk_usage(folder).free
            if free < MIN_FREE_BYTES:
                key = f"logger.{name}.save_dir"
                raise ConfigError(f"{key}={logger.save_dir}: its disk has {free / 1e6:.2g} MB free, and the "
                                  f"{kind} log of a run (history, figures, console) takes tens of MB. Fix: "
                                  f"free space there, or set {key} to a folder on another disk")
        except OSError as err:
            key = f"logger.{name}.save_dir"
            raise ConfigError(
                f"{key}={logger.save_dir}: cannot write the {kind} log folder {folder} "
                f"({type(err).__name__}: {err.strerror or err}). Fix: set {key} to a writable folder "
                f"(e.g. {key}=/tmp/highwaylab_logs), or leave it at its default, the run directory.") from err


# the tags highwaylab.utils.hydra_utils.run_tags adds to every W&B run, from its config
AUTOMATIC_TAGS = ("data:", "model:", "depth:", "activation:", "optim:", "seed:", "experiment:")
MIN_FREE_BYTES = 50_000_000  # a log folder's disk below this fills during a default run (its figures)
WANDB_MODES = ("online", "offline", "disabled", "dryrun", "shared", "run")


class WandbStartError(ConfigError):
    """W&B could not start its run (no API key, an unreachable server, a bad ``WANDB_MODE``); the
    message names ``logger.wandb`` and the way to log offline."""


def is_wandb(node: object) -> bool:
    """Whether ``node`` is the config of a W&B logger (Lightning's ``WandbLogger`` or a subclass)."""
    return isinstance(node, DictConfig) and "WandbLogger" in str(node.get("_target_", ""))


def without_disabled_wandb(group: DictConfig | None) -> DictConfig | None:
    """The ``logger`` group less its W&B logger when the environment variable ``WANDB_MODE`` is
    ``disabled`` (W&B's own switch: no run, no files), with one log line saying so; with
    ``WANDB_MODE=online`` and ``logger.wandb.offline=true``, one warning that the run stays offline
    (W&B's own line would advise setting ``WANDB_MODE=online``); with ``WANDB_MODE=offline`` and
    ``logger.wandb.offline=false``, one warning that W&B follows the environment, and the node set
    to ``offline: true`` (in place: the recorded config holds what runs). With ``WANDB_RUN_ID`` in
    the environment and no ``logger.wandb.id``, one warning that W&B logs this run into that run id
    (a multirun with it is refused before: :func:`highwaylab.utils.overrides.check_command_line`).
    With ``WANDB_RUN_GROUP`` and no ``logger.wandb.group``, one warning that W&B groups the run so,
    and the node's group set to it (recorded so); with ``WANDB_TAGS``, ``WANDB_NAME`` or
    ``WANDB_JOB_TYPE`` or ``WANDB_PROJECT``, one warning that W&B ignores it (the run's tags, never
    empty, its name, ``run_name``, its job type and ``logger.wandb.project`` take their place). With
    ``WANDB_MODE=disabled``, or ``logger.wandb.mode=disabled``, the W&B logger is left out (one line).

    Raises:
        WandbStartError: ``WANDB_MODE`` is set to a value W&B does not know (e.g. empty), or
            ``WANDB_SWEEP_ID`` is set (W&B would file the run under that sweep's project).
    """
    mode = os.environ.get("WANDB_MODE")
    if group is None or not any(is_wandb(node) for node in group.values()):
        return group
    if mode is not None and mode not in WANDB_MODES:
        raise WandbStartError(f"WANDB_MODE={mode!r} is not a W&B mode; set it to one of "
                              f"{', '.join(WANDB_MODES[:3])} (or unset it: logger.wandb.offline decides).")
    import logging

    names = [name for name, node in group.items() if is_wandb(node)]
    if mode == "disabled" or all(_own_mode(group[name]) == "disabled" for name in names):
        return _without(group, names, mode)  # no W&B run: its environment variables change nothing
    if mode in ("online", "run", "shared") and any(group[name].get("offline") is True for name in names):
        logging.getLogger(__name__).warning(  # run, shared: W&B's online modes (pass 57, rows 9-10)
            f"WANDB_MODE={mode}, but logger.{names[0]}.offline=true (the default here) keeps the run "
            f"offline; to log online, set logger.{names[0]}.offline=false (after wandb login)")
    asked_online = [name for name in names if group[name].get("offline") is False]
    if mode in ("offline", "dryrun") and asked_online:  # W&B follows WANDB_MODE
        logging.getLogger(__name__).warning(
            f"WANDB_MODE={mode} in the environment overrides logger.{asked_online[0]}.offline=false: the "
            f"run logs offline (recorded so); to log online, unset WANDB_MODE (or WANDB_MODE=online)")
        with open_dict(group):
            for name in asked_online:
                group[name].offline = True  # the record holds what runs
    run_id = os.environ.get("WANDB_RUN_ID")
    if mode != "disabled" and run_id and not any(group[name].get("id") for name in names):
        logging.getLogger(__name__).warning(  # logger.wandb.id, when set, wins over it
            f"WANDB_RUN_ID={run_id} is set in the environment, and W&B uses it for this run: it logs into "
            f"W&B run {run_id} (wandb sync merges it with any other run of that id); for a new run of its "
            f"own, unset WANDB_RUN_ID")
    env_group = os.environ.get("WANDB_RUN_GROUP")
    no_group = [name for name in names if not group[name].get("group")]  # logger.wandb.group wins over it
    if mode != "disabled" and env_group and no_group:
        logging.getLogger(__name__).warning(
            f"WANDB_RUN_GROUP={env_group} is set in the environment, and W&B uses it as this run's group, "
            f"as logger.{no_group[0]}.group={env_group} would (recorded so); for no group, unset "
            f"WANDB_RUN_GROUP")
        with open_dict(group):
            for name in no_group:
                group[name].group = env_group  # the record holds the group W&B uses
    env_tags = os.environ.get("WANDB_TAGS")
    if mode != "disabled" and env_tags and any(group[name].get("tags") for name in names):
        listed = ",".join(tag.strip() for tag in env_tags.split(",") if tag.strip())
        logging.getLogger(__name__).warning(
            f"WANDB_TAGS={env_tags} is set in the environment, but W&B ignores it: the run's tags "
            f"(logger.{names[0]}.tags, from tags= plus data:, model:, ...) take its place; to add these "
            f"tags, give 'tags=[{listed}]'")
    sweep_id = os.environ.get("WANDB_SWEEP_ID")
    if mode != "disabled" and sweep_id:  # W&B files the run under that sweep's project, not logger.wandb's
        raise WandbStartError(f"WANDB_SWEEP_ID={sweep_id} is set in the environment: W&B would file this run "
                              f"under that W&B sweep (and its project), not logger.{names[0]}.project. Fix: "
                              f"unset WANDB_SWEEP_ID (this project's sweeps are Hydra multiruns, -m)")
    node = f"logger.{names[0]}"
    for variable, key, what, source, fix in (  # W&B takes wandb.init's arguments over these
            ("WANDB_JOB_TYPE", "job_type", "job type", group[names[0]].get("job_type"), "to set it, give "
             f"{node}.job_type="),
            ("WANDB_NAME", "name", "name", "from run_name", "to name the run so, give run_name="),
            # pass 35, row 28: before, silent, and the run filed under logger.wandb.project
            ("WANDB_PROJECT", "project", "project", group[names[0]].get("project"), "to file the run there, "
             f"give {node}.project="),
            # pass 52, row 35: before, silent, and the W&B files went to the run's folder
            ("WANDB_DIR", "save_dir", "folder", group[names[0]].get("save_dir"),
             f"to write the W&B run there, give {node}.save_dir=")):
        value = os.environ.get(variable)
        if mode != "disabled" and value and any(group[name].get(key) for name in names):
            logging.getLogger(__name__).warning(
                f"{variable}={value} is set in the environment, but W&B ignores it: the run's {what} "
                f"({node}.{key}, {source}) takes its place; {fix}{value}")
    for name in names:  # pass 45, row 44: before, logger.wandb.tags=[mine] dropped the run's own tags unsaid
        raw = OmegaConf.to_container(group[name], resolve=False).get("tags", "${run_tags:}")
        if not (isinstance(raw, str) and raw.replace(" ", "") == "${run_tags:}"):
            keep = (f"to add tags and keep them, give tags={_shown(raw)} instead of logger.{name}.tags" if raw
                    else f"to keep them, leave logger.{name}.tags out")
            logging.getLogger(__name__).warning(
                f"logger.{name}.tags={_shown(raw)} replaces the run's own W&B tags (data:, model:, depth:, "
                f"activation:, optim:, seed:), by which W&B filters a sweep's runs; {keep}")
    for name in names:  # pass 85, rows 60, 64, 66, 72: before, these were dropped without a word
        settings = group[name].get("settings")
        for key, (argument, fix) in SETTINGS_TAKEN.items():
            value = settings.get(key) if isinstance(settings, Mapping) else None
            if value is not None and group[name].get(argument) is not None:
                logging.getLogger(__name__).warning(
                    f"logger.{name}.settings.{key}={_shown(value)} is ignored: wandb.init's own argument, "
                    f"logger.{name}.{argument}, takes its place; "
                    f"{fix.format(node=f'logger.{name}', value=_shown(value))}")
        for key in ("config_exclude_keys", "config_include_keys"):
            if group[name].get(key):
                logging.getLogger(__name__).warning(
                    f"logger.{name}.{key}={_shown(group[name].get(key))} is ignored: it filters wandb.init's "
                    f"config= only, and the run's config, which Lightning logs to W&B after the start, keeps "
                    f"every key; leave it out")
    for name in names:  # pass 35, row 44: before, +logger.wandb.dir was dropped without a word
        if group[name].get("dir") is not None and group[name].get("save_dir") is not None:
            logging.getLogger(__name__).warning(
                f"logger.{name}.dir={group[name].dir} is ignored: Lightning's logger.{name}.save_dir "
                f"({group[name].save_dir}) chooses the W&B run's folder; to choose it, give "
                f"logger.{name}.save_dir={group[name].dir}")
    legacy = os.environ.get("WANDB_DISABLED", "")
    if mode is None and legacy.strip().lower() in ("1", "true", "yes"):  # pass 35, row 29: before, silent
        logging.getLogger(__name__).warning(
            f"WANDB_DISABLED={legacy} is set in the environment, but W&B no longer reads it: this run logs "
            f"to W&B ({'offline' if group[names[0]].get('offline') else 'online'}); for no W&B run, set "
            f"WANDB_MODE=disabled (or logger=none)")
    return _without(group, names, mode)


# W&B settings that an argument of wandb.init, which the logger always passes, overrides: the argument,
# and how to set what the setting meant
SETTINGS_TAKEN = {"project": ("project", "to file the run there, give {node}.project={value}"),
                  "root_dir": ("save_dir", "to write the W&B run there, give {node}.save_dir={value}"),
                  "run_tags": ("tags", "to add these tags, give tags={value}"),
                  "run_name": ("name", "to name the run so, give run_name={value}"),
                  "run_group": ("group", "to group the run so, give {node}.group={value}"),
                  "run_job_type": ("job_type", "to set it, give {node}.job_type={value}")}


def _own_mode(node: Mapping) -> str | None:
    """The W&B mode a logger node sets itself: ``mode``, or ``settings.mode`` (pass 85, row 63: before,
    ``+logger.wandb.settings.mode=disabled`` ran W&B's dummy run, recorded in metrics.json as a run that
    does not exist)."""
    settings = node.get("settings")
    return node.get("mode") or (settings.get("mode") if isinstance(settings, Mapping) else None)


def _without(group: DictConfig, names: list[str], mode: str | None) -> DictConfig:
    """``group`` less its W&B loggers that ``WANDB_MODE=disabled`` or their own ``mode: disabled``
    switch off, with one line saying so (pass 35, row 43: before, ``logger.wandb.mode=disabled`` ran
    W&B's dummy run, recorded in metrics.json as a run path and folder that do not exist)."""
    import logging

    off = [name for name in names if mode == "disabled" or _own_mode(group[name]) == "disabled"]
    if not off:
        return group
    key = "mode" if group[off[0]].get("mode") == "disabled" else "settings.mode"
    why = "WANDB_MODE=disabled" if mode == "disabled" else f"logger.{off[0]}.{key}=disabled"
    logging.getLogger(__name__).info(f"{why}: no W&B run (logger.{off[0]} left out)")
    return DictConfig({name: node for name, node in group.items() if name not in off})


def reused_wandb_id(cfg: DictConfig) -> str | None:
    """The warning for a new run (no ``ckpt_path``) given a ``logger.<name>.id`` that an offline W&B
    run in another run folder already has (its ``wandb/offline-run-<date>_<time>-<id>``, as
    :func:`highwaylab.utils.wandb_offline.find_run_segments` finds a run's segments): ``wandb sync``
    of both would merge their histories into one W&B run. Looked for with a glob, without W&B, in
    the folders beside this run's (``hydra.run.dir=`` side by side, a sweep's jobs) and in
    ``paths.log_dir``'s ``runs/*`` and ``multiruns/*/*``. A warning, not a refusal: logging into an
    existing (online) run by its id is W&B's way. ``None`` when there is nothing to say
    (``WANDB_MODE=disabled``, no W&B logger, no id, or no other run of it)."""
    import glob
    import re
    from pathlib import Path

    group = cfg.get("logger")
    if cfg.get("ckpt_path") or os.environ.get("WANDB_MODE") == "disabled" or not isinstance(group,
                                                                                            DictConfig):
        return None
    name = next((n for n, node in group.items() if is_wandb(node) and node.get("id")), None)
    if name is None:
        return None
    run_id = str(group[name].id)
    own = Path(str(cfg.paths.output_dir)).expanduser().resolve()
    log_dir = glob.escape(str(Path(str(cfg.paths.log_dir)).expanduser()))
    segment = f"wandb/offline-run-*-{glob.escape(run_id)}"
    exact = re.compile(rf"offline-run-\d{{8}}_\d{{6}}-{re.escape(run_id)}")  # not the id "x-<id>"
    found: dict[Path, Path] = {}
    for pattern in (f"{glob.escape(str(own.parent))}/*/{segment}", f"{log_dir}/runs/*/{segment}",
                    f"{log_dir}/multiruns/*/*/{segment}"):
        for path in sorted(Path(p) for p in glob.glob(pattern)):
            run = path.parent.parent.resolve()
            if path.is_dir() and run != own and exact.fullmatch(path.name):
                found.setdefault(run, path)
    if not found:
        return None
    run, path = next(iter(found.items()))
    others = len(found) - 1
    more = f" (and {others} other run folder{'s' if others > 1 else ''})" if others else ""
    return (f"highwaylab: logger.{name}.id={run_id} is the id of the offline W&B run in {run}{more} "
            f"({path.name}): this new run logs into that W&B run, and wandb sync would merge the two "
            f"histories into one. Fix: leave logger.{name}.id out for a run of its own, or resume={run} "
            f"to continue that run")


def check_one_wandb(logger_cfg: Mapping | None) -> None:
    """Raises ConfigError for two W&B loggers (``logger=[wandb,mine]``, ``mine`` a ``WandbLogger`` of
    one's own): in one process the second reuses the first one's W&B run, its own project and name
    ignored, and logs every metric into it a second time (pass 97, row 44: before, only Lightning's
    notice that it "will reuse this run")."""
    names = [f"logger.{name}" for name, node in (logger_cfg or {}).items()
             if isinstance(node, Mapping) and str(node.get("_target_", "")).endswith("WandbLogger")]
    if len(names) > 1:
        raise ConfigError(f"{' and '.join(names)} are each a W&B logger, and in one process W&B logs to one "
                          f"run: the second would reuse the first one's run (its own project and name "
                          f"ignored) and log every metric into it twice. Fix: keep one (e.g. logger="
                          f"{names[-1].split('.', 1)[1]}); for another project, set its project on that one")


def check_wandb_names(logger_cfg: Mapping | None, tags: object = None) -> None:
    """Check the names that ``wandb.init`` validates, before any run starts: the project
    (``logger.<name>.project``, or the environment variable ``WANDB_PROJECT`` when it is empty),
    the run id (``logger.<name>.id``, or Lightning's ``version``), the variables ``WANDB_PROJECT``
    and ``WANDB_RUN_ID`` when set (W&B validates them whatever the config says) and the run's extra
    ``tags`` (the top-level ``tags``, :func:`check_wandb_tags`), with W&B's own validation (its
    ``wandb.Settings`` fields; in wandb 0.31 a project name has at most 128 characters and none of
    ``/ \\ # ? % :``, and a tag 1 to 64 characters). Unchecked, W&B refuses them at the logger's
    first use, after the data and model are built, with a ``UsageError`` that reads like a login
    problem (a tag: a pydantic traceback). W&B does not check the entity offline (an online server
    does, at ``wandb.init``).

    With a W&B logger, the other ``WANDB_*`` variables are checked too
    (:func:`check_wandb_environment`). Nothing is checked without a W&B logger in ``logger_cfg``
    (the ``logger`` group) or with ``WANDB_MODE=disabled``. Imports ``wandb`` (about 0.4 s, no
    torch) only when there is a W&B logger, which imports it anyway.

    Args:
        logger_cfg: the ``logger`` group.
        tags: the config's top-level ``tags`` (``cfg.get("tags")``); ``None``: none given.

    Raises:
        ConfigError: naming the key (e.g. ``logger.wandb.project``, ``tags``), the value, W&B's
            reason and the fix.
    """
    from highwaylab.config_checks import given_override

    if os.environ.get("WANDB_MODE") == "disabled":
        return
    if any(is_wandb(node) for node in (logger_cfg or {}).values()):
        check_wandb_tags(tags)
    for name, node in (logger_cfg or {}).items():
        if not is_wandb(node):
            continue
        check_wandb_arguments(name, node)
        if node.get("version") is not None:  # Lightning's alias of id, past every check of the id
            value = cli_text(node.get("version"))
            raise ConfigError(f"logger.{name}.version={value} is Lightning's other name for the W&B run id, "
                              f"which highwaylab takes as logger.{name}.id (checked against the other runs "
                              f"and a multirun's jobs, so that two runs never merge into one W&B run). Fix: "
                              f"logger.{name}.id={value} in its place, or leave it out (W&B draws an id)")
        checks = [(f"logger.{name}.project", "project", node.get("project"), "highwaylab (the default)"),
                  (f"logger.{name}.id", "run_id", node.get("id"), "null (W&B draws one)")]
        if not checks[0][2] and os.environ.get("WANDB_PROJECT"):  # Lightning's fallback: W&B's variable
            checks[0] = ("WANDB_PROJECT", "project", os.environ["WANDB_PROJECT"], "")
        for variable, field in (("WANDB_PROJECT", "project"), ("WANDB_RUN_ID", "run_id")):
            if os.environ.get(variable) and all(key != variable for key, *_ in checks):  # W&B validates
                checks.append((variable, field, os.environ[variable], ""))  # it, whatever the config says
        for key, field, value, example in checks:
            removed = given_override(key) if key.startswith("logger.") else None
            if field == "project" and value is None and removed and removed.startswith("~"):  # pass 83,
                # row 49: before, "is empty", and the fix given beside the ~ was refused in turn
                raise ConfigError(f"{removed} removes the W&B project, so the W&B run would go to "
                                  f"Lightning's fallback project, lightning_logs, away from the other runs. "
                                  f"Fix: leave {removed} out (the project is then highwaylab), or give "
                                  f"{key}=<a name> in its place, or set WANDB_PROJECT")
            if field == "project" and value in (None, ""):  # before: Lightning's fallback, lightning_logs
                raise ConfigError(f"{key} is empty, so the W&B run would go to Lightning's fallback project, "
                                  f"lightning_logs, away from the other runs. Fix: {key}=highwaylab (the "
                                  f"default) or another name, or set WANDB_PROJECT")
            if value is None:
                continue
            shown = f"{str(value)[:40]}... ({len(str(value))} characters)" if len(str(value)) > 60 else value
            if not isinstance(value, str):
                raise ConfigError(f"{key}={value!r} must be a string (W&B takes no {type(value).__name__}); "
                                  f"quote it: '{key}=\"{value}\"'")
            if field == "project" and value.strip() and value != value.strip():  # pass 88, rows 37 and 47:
                # before, taken: W&B keeps the spaces, and the run went to another project, unsaid
                fix = shell_word(f"{key}={hydra_value(value.strip())}") if key.startswith("logger.") else \
                    f"export {key}={shell_word(value.strip())}"
                raise ConfigError(f"{key}={value!r} begins or ends with a space, which W&B keeps: the run "
                                  f"would go to another project than {value.strip()!r}. Fix: {fix}")
            reason = _wandb_refusal(field, value)
            if reason is not None:
                config_key = f"logger.{name}.project" if field == "project" else f"logger.{name}.id"
                fix = (f"give {key} a value W&B accepts, e.g. {key}={example}" if key.startswith("logger.")
                       else f"unset {key} or give it a value W&B accepts (W&B reads the environment "
                            f"variable even where {config_key} is set)")
                raise ConfigError(f"{key}={shown} is refused by W&B ({reason}). Fix: {fix}")
        run_name = node.get("name")  # ${run_name}: run_name=0 or run_name=${seed} is an int (pass 65, row 5:
        if run_name is not None and not isinstance(run_name, str):  # before, blamed on W&B's settings)
            raw = (OmegaConf.to_container(node, resolve=False) if OmegaConf.is_dict(node) else node)
            key = "run_name" if "${run_name}" in str(raw.get("name")) else f"logger.{name}.name"
            typed = cli_text(run_name)  # run_name=true: a boolean (before, "True is an integer": a bool is)
            kind = ("a boolean" if isinstance(run_name, bool) else "an integer" if isinstance(run_name, int)
                    else "a number" if isinstance(run_name, float) else f"a {type(run_name).__name__}")
            letters = ("" if isinstance(run_name, bool)
                       else f" (or a name with letters, e.g. {key}=seed{typed})")
            raise ConfigError(f"{key}={typed} is {kind}, and W&B takes a run's name as text. Fix: quote "
                              f"it: '{key}=\"{typed}\"'{letters}")
        for field in ("group", "job_type", "notes"):  # pass 94, rows 42 and 43 (major): before, W&B refused
            # group=128 at its start, after the imports, naming its setting run_group, which no one had set
            try:
                value = node.get(field)
            except Exception:  # noqa: BLE001  ${sweep_group:} before Hydra's job: the job checks it
                continue
            if value is None or isinstance(value, str):
                continue
            key, what = f"logger.{name}.{field}", field.replace("_", " ")
            if isinstance(value, bool | int | float):
                kind = "a boolean" if isinstance(value, bool) else "a number"
                given = given_override(key) or key  # with its '+', and the value as typed (1e3, not 1000.0)
                typed = given.split("=", 1)[1] if "=" in given and "${" not in given else cli_text(value)
                plus = given[:len(given) - len(given.lstrip("+"))]
                raise ConfigError(f"{key}={cli_text(value)} is {kind}, and W&B takes a run's {what} as text. "
                                  f"Fix: quote it: '{plus}{key}=\"{typed}\"'")
            raise ConfigError(f"{key}={cli_text(value)} is not text, and W&B takes a run's {what} as text. "
                              f"Fix: e.g. {key}=my-{field.replace('_', '-')}")
        for key, value in ((f"logger.{name}.entity", node.get("entity")),
                           ("WANDB_ENTITY", os.environ.get("WANDB_ENTITY"))):
            check_wandb_entity(key, value)
        check_log_model(name, node)
    if any(is_wandb(node) for node in (logger_cfg or {}).values()):
        mode = os.environ.get("WANDB_MODE")
        if mode is not None and mode not in WANDB_MODES:  # pass 49, row 38: before, met at the logger's
            raise WandbStartError(f"WANDB_MODE={mode!r} is not a W&B mode; set it to one of "  # build, 8 s
                                  f"{', '.join(WANDB_MODES[:3])} (or unset it: logger.wandb.offline "
                                  f"decides).")
        check_wandb_environment()


def check_wandb_arguments(name: str, node: DictConfig) -> None:
    """Raises ConfigError for a key of the W&B logger node that neither Lightning's ``WandbLogger``
    nor ``wandb.init`` (which takes the logger's other keyword arguments) takes: before, ``+logger.wandb.
    log_graph=true`` (a TensorBoard logger's argument) ended in a traceback at the logger's first use
    (pass 51, row 25). The logger's arguments are read from its source (no torch), wandb.init's from
    its signature."""
    import ast
    import importlib.util
    import inspect

    import wandb

    from highwaylab.config_checks import removal
    from highwaylab.utils.hydra_utils import did_you_mean

    try:
        # found from the top package, which find_spec does not import (a submodule's spec imports its
        # parents, lightning.pytorch and with it torch: pass 78, row 50)
        package = Path(importlib.util.find_spec("lightning").origin).parent
        source = package / "pytorch" / "loggers" / "wandb.py"
        tree = ast.parse(source.read_text())
        init = next(f for c in ast.walk(tree) if isinstance(c, ast.ClassDef) and c.name == "WandbLogger"
                    for f in c.body if isinstance(f, ast.FunctionDef) and f.name == "__init__")
        takes = {a.arg for a in [*init.args.args, *init.args.kwonlyargs]} - {"self"}
        takes |= set(inspect.signature(wandb.init).parameters)
    except (AttributeError, OSError, SyntaxError, StopIteration, TypeError, ValueError):
        return  # another layout of Lightning's source: the logger's own error
    settings = node.get("settings") if isinstance(node.get("settings"), Mapping) else {}
    for where, within in ((f"logger.{name}", node), (f"logger.{name}.settings", settings)):
        if within.get("sync_tensorboard"):  # pass 85, row 62: before, every metric three times in the W&B
            # history, without trainer/global_step
            raise ConfigError(f"{where}.sync_tensorboard=true makes W&B copy TensorBoard's event files into "
                              f"the W&B run, which the run's metrics reach already: each would be logged "
                              f"again, without trainer/global_step. Fix: "
                              f"{removal(f'{where}.sync_tensorboard')} (logger=[wandb,tensorboard] writes "
                              f"both already)")
        for key, what in RUN_HANDLING_ARGUMENTS.items():
            if within.get(key):  # pass 83, row 91: before, W&B's "fork_from, resume, or resume_from are
                # mutually exclusive", with a fix that pointed at WANDB_*: the resume is Lightning's own
                raise ConfigError(
                    f"{where}.{key}={cli_text(within.get(key))}: W&B's {what} cannot go with the run's own "
                    f"W&B run (Lightning's WandbLogger opens it with resume='allow': a new one, or the one "
                    f"resume= continues), and needs an online run. Fix: {removal(f'{where}.{key}')} (to "
                    f"continue a run: python train.py resume=<its folder>; to start from another run's "
                    f"weights: ckpt_path=<its .ckpt file>)")
    for key in node:
        if str(key).startswith("_") or key in takes:
            continue
        meant = did_you_mean(str(key), sorted(takes), prefix=f"logger.{name}.") or "."
        raise ConfigError(f"logger.{name}.{key} is not an argument of Lightning's WandbLogger nor of "
                          f"wandb.init{meant} Fix: remove it ({removal(f'logger.{name}.{key}')}), or correct "
                          f"its name")


ENTITY_CHARACTERS = re.compile(r"[A-Za-z0-9_.-]+")  # a W&B user or team name


def check_wandb_entity(key: str, value: object) -> None:
    """Raises ConfigError if the W&B entity ``value`` (of ``key``: ``logger.<name>.entity`` or the
    variable ``WANDB_ENTITY``) is not a user or team name: W&B checks it only online, and offline
    the run's path was recorded as ``foo/bar/highwaylab/<id>`` for ``foo/bar`` (breaking pass 36,
    row 59). ``None`` and empty (W&B's default entity) pass."""
    if value in (None, ""):
        return
    if not isinstance(value, str) or not ENTITY_CHARACTERS.fullmatch(value):
        fix = f"{key}=my-team" if key.startswith("logger.") else f"export {key}=my-team"
        raise ConfigError(f"{key}={value} is not a W&B entity (a user or team name: letters, digits, '-', "
                          f"'_' and '.'), and the run's path would read {value}/<project>/<run id>. Fix: the "
                          f"user or team name alone, e.g. {fix}, or leave it out (your default entity)")


# W&B variables checked elsewhere, with messages of their own: WANDB_MODE (without_disabled_wandb)
OWN_WANDB_CHECKS = ("WANDB_MODE",)
WANDB_SETTING_NOUNS = {"console": "console mode"}  # how a message names a setting's values
# W&B variables that take a run's W&B history elsewhere than the run's own handling does
RUN_HANDLING_VARIABLES = {"WANDB_RESUME_FROM": "rewind of a run (resume_from)",
                          "WANDB_FORK_FROM": "fork of a run (fork_from)"}
# the same, as arguments of wandb.init (logger.wandb.<key>) or W&B settings (logger.wandb.settings.<key>)
RUN_HANDLING_ARGUMENTS = {variable.removeprefix("WANDB_").lower(): what
                          for variable, what in RUN_HANDLING_VARIABLES.items()}


def check_wandb_environment(environ: Mapping[str, str] | None = None) -> None:
    """Check the ``WANDB_*`` environment variables that ``wandb.init`` reads into its settings
    (``wandb.Settings.update_from_env_vars``), each on its own, with W&B's own validation: unchecked,
    a value it refuses (``WANDB_CONSOLE=bogus``) stops the run at the logger's first use, after the
    data and model are built, with a pydantic traceback of some 200 lines. A setting with a fixed
    set of values (``console``) is named with that set, as the installed wandb's ``Settings`` lists it.
    ``WANDB_MODE`` is left to :func:`without_disabled_wandb`.

    Raises:
        ConfigError: naming the variable, its value, W&B's reason (or its values) and the fix.
    """
    import typing

    import wandb

    env = os.environ if environ is None else environ
    for variable, what in RUN_HANDLING_VARIABLES.items():  # pass 62, row 32: before, W&B refused it at
        if env.get(variable):  # wandb.init, and the line held its whole Settings, the API key in clear
            source, unset = _env_origin(variable)
            raise ConfigError(f"{variable}={env[variable]!r} (from {source}) is set: W&B's {what} cannot go "
                              f"with the run's own W&B run (a new one, or the one resume= continues), and "
                              f"needs an online run. Fix: {unset} (to continue a run: python train.py "
                              f"resume=<its folder>)")
    for variable in sorted(env):
        if not variable.startswith("WANDB_") or variable in OWN_WANDB_CHECKS:
            continue
        value = env[variable]
        try:
            wandb.Settings().update_from_env_vars({variable: value})
        except (ValueError, wandb.errors.UsageError) as err:  # pydantic's ValidationError is a ValueError
            errors = getattr(err, "errors", None)
            details = errors() if callable(errors) else []
            field = str(details[0]["loc"][0]) if details and details[0].get("loc") else None
            info = wandb.Settings.model_fields.get(field) if field else None
            choices = typing.get_args(info.annotation) if info is not None and \
                typing.get_origin(info.annotation) is typing.Literal else ()
            source, unset = _env_origin(variable)
            if choices:
                noun = WANDB_SETTING_NOUNS.get(field, f"value of its {field} setting")
                raise ConfigError(f"{variable}={value!r} (from {source}) is not a W&B {noun}: "
                                  f"{', '.join(map(str, choices))}. Fix: {unset} (or set it to one "
                                  f"of these)") from None
            if details:
                reason = " ".join(str(details[0]["msg"]).removeprefix("Value error, ").split())
            else:
                reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise ConfigError(f"{variable}={value!r} (from {source}) is refused by W&B ({reason}). "
                              f"Fix: {unset}, or give it a value W&B accepts") from None


def _env_origin(variable: str) -> tuple[str, str]:
    """Where the value of the environment variable ``variable`` comes from, and how to drop it: the
    run's ``hydra.job.env_set`` (an override such as ``+hydra.job.env_set.WANDB_CONSOLE=x``, which
    Hydra applies to the job; before, "unset" advice that the shell could not follow), else the
    environment."""
    from hydra.core.hydra_config import HydraConfig

    try:
        env_set = HydraConfig.get().job.env_set if HydraConfig.initialized() else {}
        if env_set and variable in env_set:
            return (f"hydra.job.env_set.{variable}",
                    f"correct or remove the override hydra.job.env_set.{variable}")
    except Exception:  # no readable Hydra config: the environment
        pass
    return "the environment", f"unset {variable}"


# integer step counts of the loggers' own arguments (CSVLogger's): Lightning divides by them
LOGGER_STEP_KEYS = {"flush_logs_every_n_steps": 100}


def check_logger_steps(logger_cfg: Mapping | None) -> None:
    """Raises ConfigError for a logger's step count (``LOGGER_STEP_KEYS``: CSVLogger's
    ``flush_logs_every_n_steps``) that is not a whole number >= 1: 0 stops the run at the first
    logged value with Lightning's ``ZeroDivisionError`` (``(step + 1) % 0``), and a negative or
    fractional count writes the file at other steps than it says. (TensorBoard's ``max_queue`` and
    ``flush_secs`` take 0 and run.)"""
    from highwaylab.config_checks import as_given

    for name, node in (logger_cfg or {}).items():
        if not OmegaConf.is_dict(node) and not isinstance(node, Mapping):
            continue
        for key, example in LOGGER_STEP_KEYS.items():
            value = node.get(key)
            if value is None or (type(value) is int and value >= 1):
                continue
            raise ConfigError(f"logger.{name}.{key}={value!r}: must be a positive whole number of steps (how "
                              f"often the logger writes its file; Lightning divides by it). Fix: "
                              f"{as_given(f'logger.{name}.{key}')}={example} (Lightning's default), or "
                              f"leave it out")


FOLDER_LOGGERS = {"TensorBoardLogger": "TensorBoard", "CSVLogger": "CSV"}  # <save_dir>/<name>/<version>/


# the folders a run writes into its own folder (checkpoints, figures, its record, W&B's)
RUN_FOLDERS = ("checkpoints", "figures", ".hydra", "wandb")


def check_logger_folders(logger_cfg: Mapping | None) -> None:
    """Raises ConfigError for a TensorBoard or CSV logger's ``name`` or ``version`` (the folders below
    its ``save_dir``: ``<run>/tensorboard/``) that is absolute or climbs out with ``..``
    (``logger.tensorboard.version=../../x``): its files would go outside the run's folder, silently,
    and ``tensorboard --logdir <run>/tensorboard`` would show nothing. Logs meant elsewhere are put
    there with ``save_dir``."""
    for name, node in (logger_cfg or {}).items():
        if not OmegaConf.is_dict(node) and not isinstance(node, Mapping):
            continue
        target = str(node.get("_target_", "")).rpartition(".")[2]
        kind = FOLDER_LOGGERS.get(target)
        save_dir = node.get("save_dir", ".")  # pass 62, row 47: null, a traceback in check_log_dirs
        if (kind or target == "WandbLogger") and (save_dir is None or not str(save_dir).strip()):
            shown = "null" if save_dir is None else repr(save_dir)
            raise ConfigError(f"logger.{name}.save_dir={shown}: the logger needs a folder for its files (by "
                              f"default the run's folder). Fix: leave logger.{name}.save_dir out, or give "
                              f"a folder")
        for key in ("name", "version", "sub_dir") if kind else ():  # sub_dir: TensorBoard's (pass 65, row 38)
            value = node.get(key)
            parts = str(value).replace("\\", "/").split("/")
            if isinstance(value, str) and (os.path.isabs(value) or ".." in parts):
                add = "+" if key == "sub_dir" else ""  # not in the preset: added with '+'
                raise ConfigError(f"logger.{name}.{key}={value} would put the {kind} files outside "
                                  f"logger.{name}.save_dir (the run's folder): {key} names a folder below "
                                  f"it. Fix: a plain name, e.g. {add}logger.{name}.{key}=v1; to write the "
                                  f"logs elsewhere, set logger.{name}.save_dir")
        value = node.get("name") if kind else None  # pass 70, row 26: logger.csv.name=checkpoints; before,
        # the CSV log went among the checkpoints, the only sign Lightning's "exists and is not empty"
        written = OmegaConf.to_container(node, resolve=False).get("save_dir") if OmegaConf.is_dict(node) \
            else save_dir  # as written: ${paths.output_dir}, the run's folder
        first = value.strip("/").split("/")[0] if isinstance(value, str) else None
        if written == "${paths.output_dir}" and first in RUN_FOLDERS:
            raise ConfigError(f"logger.{name}.name={value} would put the {kind} files in the run's own "
                              f"{first}/ folder, among what the run writes there. Fix: another name, e.g. "
                              f"logger.{name}.name={kind.lower()}")


def check_wandb_save_dir(logger_cfg: Mapping | None, output_dir: str | os.PathLike) -> None:
    """Raises ConfigError for a W&B logger whose ``save_dir`` lies in the folder of another run or
    multirun (:func:`highwaylab.utils.out_paths.run_folder_holding`) than this run's ``output_dir``:
    its ``wandb/offline-run-*`` would sit among that run's own, and ``wandb sync`` of that run's
    folder upload both (pass 54, row 14: before, exit 0 without a word, and ``wandb_offline`` of that
    run then refused "2 W&B runs")."""
    from highwaylab.utils.out_paths import run_folder_holding

    run = Path(output_dir).absolute()
    for name, node in (logger_cfg or {}).items():
        if not (OmegaConf.is_dict(node) or isinstance(node, Mapping)) \
                or not str(node.get("_target_", "")).endswith("WandbLogger"):
            continue
        save_dir = node.get("save_dir")
        if not save_dir or "://" in str(save_dir):
            continue
        folder = Path(os.path.expanduser(str(save_dir))).absolute()
        holding = run_folder_holding(folder)
        if folder.is_relative_to(run) or holding is None or run.is_relative_to(holding[0]):
            continue
        other, held = holding
        raise ConfigError(f"logger.{name}.save_dir={save_dir} is in the folder of another run ({other}, "
                          f"which holds {', '.join(held)}): this run's W&B files would sit among that run's, "
                          f"and wandb sync of that folder would upload both. Fix: leave "
                          f"logger.{name}.save_dir out (this run's own folder), or give a folder of its own")


def own_log_folders(group: DictConfig | None, output_dir: str | os.PathLike) -> list[str]:
    """Give each TensorBoard or CSV logger whose files would go straight into ``<save_dir>/<name>/``
    (``version: ""``, as ``conf/logger/tensorboard.yaml`` has it for the run's own folder), or into
    Lightning's next ``version_N`` there (no ``version``: the CSV logger's; nothing would record which
    run wrote which), a folder of its run there, where ``save_dir`` is outside the run's folder
    (``logger.tensorboard.save_dir=tb``), and ``save_dir`` made absolute:
    ``version`` becomes ``<parent folder's name>/<run folder's name>`` (a multirun's job:
    ``<sweep folder>/<n>_<run_name>``, as the job folders of two sweeps share their names), in place
    (the recorded config holds it), so that two runs with one ``save_dir`` do not write into one
    folder, which TensorBoard shows as one run with two interleaved histories (breaking pass 29, row
    88; pass 30, rows 32 and 33). A resumed run has its folder's names, and continues its own.

    Returns:
        One log line per logger changed, naming its folder.
    """
    lines = []
    run = Path(output_dir).absolute()
    for name, node, kind in _folder_loggers(group):
        save_dir = node.get("save_dir")
        if node.get("version") not in ("", None) or not save_dir or "://" in str(save_dir):
            continue
        if Path(save_dir).absolute().is_relative_to(run):
            continue
        with open_dict(node):  # the CSV logger's preset has no version (Lightning's version_N)
            node.version = f"{run.parent.name}/{run.name}"  # a sweep's jobs share names: its folder's too
            node.save_dir = str(Path(save_dir).absolute())  # recorded whole: the report finds it anywhere
        folder = Path(node.save_dir) / str(node.get("name") or "") / node.version
        lines.append(f"logger.{name}.save_dir={save_dir} is outside the run's folder, so this run's {kind} "
                     f"files go to a folder of their own there: {folder} (logger.{name}.version)")
    return lines


def _folder_loggers(group: DictConfig | None) -> list[tuple[str, DictConfig, str]]:
    """``(name, node, kind)`` of each TensorBoard or CSV logger of the ``logger`` group."""
    found = []
    for name, node in (group or {}).items():
        kind = FOLDER_LOGGERS.get(str(node.get("_target_", "")).rpartition(".")[2]) \
            if OmegaConf.is_dict(node) else None
        if kind is not None:
            found.append((name, node, kind))
    return found


def check_log_folders_free(group: DictConfig | None) -> None:
    """Raises ConfigError for a new run (no ``ckpt_path``) whose TensorBoard or CSV logger would write
    into a folder that holds files already (``<save_dir>/<name>/<version>``: a ``version`` given for
    two runs): TensorBoard would show both runs' event files as one run, with one ``hparams.yaml``
    (breaking pass 31, row 69). A resume continues its own folder; ``version`` null is Lightning's next
    ``version_N``."""
    for name, node, kind in _folder_loggers(group):
        version, save_dir = node.get("version"), node.get("save_dir")
        if version is None or not save_dir or "://" in str(save_dir):
            continue
        folder = Path(save_dir) / str(node.get("name") or "") / str(version)
        if folder.is_dir() and any(folder.iterdir()):
            raise ConfigError(f"logger.{name}: {folder} holds another run's {kind} files already, and this "
                              f"run's would join them ({kind} would show the two as one run). Fix: leave "
                              f"logger.{name}.version out (each run then gets a folder of its own), or give "
                              f"one not used yet")


def check_log_model(name: str, node: Mapping) -> None:
    """Raises ConfigError for ``logger.<name>.log_model`` other than true, false or ``all``, or set
    (true or ``all``: checkpoints uploaded as W&B artifacts) for an offline run
    (``logger.<name>.offline=true``, the default, or ``WANDB_MODE=offline``), which cannot upload them:
    Lightning refuses that at the logger's start, in two lines naming its Python arguments."""
    key, value = f"logger.{name}.log_model", node.get("log_model", False)
    if not (isinstance(value, bool) or value == "all"):
        raise ConfigError(f"{key}={value!r} must be false, true (the best and last checkpoints at the end) "
                          f"or all (every checkpoint), e.g. {key}=false")
    offline = node.get("offline") is True or os.environ.get("WANDB_MODE") in ("offline", "dryrun")
    if value and offline:
        raise ConfigError(f"{key}={str(value).lower()} uploads checkpoints to W&B, which an offline run "
                          f"cannot do (logger.{name}.offline=true, the default here). Fix: {key}=false (the "
                          f"checkpoints stay in the run's checkpoints/), or logger.{name}.offline=false "
                          f"after wandb login")


def check_wandb_tags(tags: object) -> None:
    """Check the config's ``tags``, the run's extra W&B tags (:func:`highwaylab.utils.hydra_utils.run_tags`
    adds them to W&B's): ``null``, one tag (``tags=foo``: a string; a number is taken as its text),
    or a list of them, each of which W&B takes (its ``wandb.Settings(run_tags=...)`` check: 1 to 64
    characters in wandb 0.31). A list or mapping inside the list, or a ``null`` in it, is refused:
    ``run_tags`` would make it a tag such as ``['b', 'c']`` or ``None``, without a word.

    Raises:
        ConfigError: naming ``tags`` (``tags[<i>]`` for one item), the value, the reason and the fix.
    """
    if tags is None or tags == "" or tags == []:  # no extra tags
        return
    if isinstance(tags, DictConfig | Mapping):
        raise ConfigError(f"tags={_shown(tags)} must be a list of tags or one tag, not a mapping; "
                          f"e.g. tags=[baseline,wide] or tags=baseline")
    given = list(tags) if isinstance(tags, ListConfig | list | tuple) else [tags]
    for i, tag in enumerate(given):
        if tag is None or isinstance(tag, DictConfig | ListConfig | Mapping | list | tuple):
            kind = ("null" if tag is None else "a mapping" if isinstance(tag, DictConfig | Mapping)
                    else "a list")
            flat = [t for t in _leaves(OmegaConf.to_container(tags) if isinstance(tags, ListConfig) else tags)
                    if t is not None]
            raise ConfigError(f"tags[{i}]={_shown(tag)} is {kind}, but each W&B tag is one string (it "
                              f"would become the tag {str(tag)!r}); list the tags flat, e.g. "
                              f"tags={_shown(flat)}")
    for i, tag in enumerate(given):  # W&B takes ' ' and shows a blank tag
        if str(tag) and not str(tag).strip():
            raise ConfigError(f"tags[{i}]={str(tag)!r} is blank (only spaces): W&B would show an empty tag. "
                              f"Fix: drop it, or give it a name, e.g. tags=[baseline]")
    for i, tag in enumerate(given):  # run_tags adds these itself, from the run's config
        prefix = str(tag).split(":", 1)[0] + ":"
        if prefix in AUTOMATIC_TAGS:
            raise ConfigError(f"tags[{i}]={tag}: the {prefix}<value> tags are the run's own (from its "
                              f"config: {', '.join(AUTOMATIC_TAGS)}), and a second one would contradict it. "
                              f"Fix: another tag name, e.g. tags=[my-{str(tag).replace(':', '-')}]")
    for i, tag in enumerate(given):  # W&B keeps both, and shows the tag twice
        if str(tag) in (str(t) for t in given[:i]):
            once = list(dict.fromkeys(str(t) for t in given))
            raise ConfigError(f"tags[{i}]={tag} is given twice in tags={_shown(tags)}: W&B would show it "
                              f"twice. Fix: give each tag once, tags={_shown(once)}")
    reason = _wandb_refusal("run_tags", tuple(str(t) for t in given))  # W&B's indices are the list's
    if reason is not None:
        raise ConfigError(f"tags={_shown(tags)} is refused by W&B ({reason}). Fix: shorten or drop the "
                          f"tag W&B names, e.g. tags=[baseline,wide]")


def _leaves(value: object) -> list:
    """The scalars of a nest of lists and mappings (a mapping's keys and values), in order."""
    if isinstance(value, Mapping):
        return [leaf for k, v in value.items() for leaf in (k, *_leaves(v))]
    if isinstance(value, list | tuple):
        return [leaf for v in value for leaf in _leaves(v)]
    return [value]


def _shown(value: object) -> str:
    """``value`` as it is written on the command line (``[a,[b,c]]``, ``{k:v}``), cut to about 60
    characters."""
    text = cli_text(value)
    return f"{text[:40]}... ({len(text)} characters)" if len(text) > 60 else text


def cli_text(value: object) -> str:
    """A config value as it is written on the command line: ``[0.9,0.999]``, ``[a,[b,c]]``,
    ``{k:v}``, ``null``, ``''``, ``true``."""
    if isinstance(value, DictConfig | ListConfig):
        value = OmegaConf.to_container(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{cli_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(cli_text(v) for v in value) + "]"
    if isinstance(value, bool):
        return str(value).lower()
    return "null" if value is None else "''" if value == "" else str(value)


def _wandb_refusal(field: str, value: object) -> str | None:
    """W&B's own reason for refusing ``value`` as the ``wandb.Settings`` field ``field`` (one line),
    or ``None`` if W&B takes it."""
    import wandb

    try:
        wandb.Settings(**{field: value})
    except wandb.errors.UsageError as err:  # the field validators' error
        return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    except ValueError as err:  # pydantic's ValidationError: a validator's ValueError, or the type
        errors = getattr(err, "errors", None)
        if callable(errors) and errors():
            return " ".join(str(errors()[0]["msg"]).removeprefix("Value error, ").split())
        return f"{type(err).__name__}: {str(err).strip().splitlines()[0]}"
    return None


def wandb_start_error(err: Exception, online: bool, mode: str | None = None) -> WandbStartError | None:
    """``err`` (raised by ``wandb.init``, at a W&B logger's first use) as one line naming
    ``logger.wandb`` and the fix, or ``None`` if it is not a W&B error.

    The fix follows the error's type and the mode, never its text: a ``UsageError`` online is taken
    as no API key (``wandb login``); offline no key is needed, so it is a setting W&B refused (the
    names are checked before the run by :func:`check_wandb_names`). ``mode`` is ``logger.wandb.mode``
    where the config sets it (``+logger.wandb.mode=online``: online although ``offline: true``)."""
    import wandb

    if type(err).__name__ == "ValidationError" and getattr(err, "title", None) == "Settings":
        return _settings_error(err)  # pydantic's, of wandb.Settings: a value from the environment or config
    if not isinstance(err, wandb.errors.Error):
        return None
    first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if isinstance(err, wandb.errors.UsageError) and mode == "online":  # pass 81, row 52: before, "change
        # the logger.wandb setting W&B names (project, id, settings)", not the mode given
        fix = ("logger.wandb.mode=online logs online, which needs a W&B API key: run `wandb login` or set "
               "WANDB_API_KEY, or leave logger.wandb.mode out (runs log offline: logger.wandb.offline=true)")
    elif isinstance(err, wandb.errors.UsageError) and online:  # wandb.init: "no API key configured"
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


def _settings_error(err: Exception) -> WandbStartError:
    """A ``wandb.Settings`` validation error at ``wandb.init`` as one line: the ``WANDB_*`` variable
    that holds the refused value (:func:`check_wandb_environment`, which the config checks run before
    the run, finds it), else the setting, as ``logger.wandb.settings.<name>``."""
    try:
        check_wandb_environment()
    except ConfigError as found:
        return WandbStartError(f"logger.wandb: W&B could not start its run: {found}")
    details = err.errors() if callable(getattr(err, "errors", None)) else []
    detail = details[0] if details else {}
    field = ".".join(str(part) for part in detail.get("loc", ()))
    reason = " ".join(str(detail.get("msg", err)).removeprefix("Value error, ").split())
    given = detail.get("input")
    if not field or not isinstance(given, str | int | float | bool | None):  # a check of the whole
        # Settings: its repr, the API key in it, is never shown (pass 62, row 32)
        return WandbStartError(f"logger.wandb: W&B could not start its run: its settings are refused "
                               f"({reason[:300]}). Fix: check logger.wandb.settings and the WANDB_* "
                               f"environment variables (env | grep WANDB_)")
    key = {"run_group": "logger.wandb.group", "run_job_type": "logger.wandb.job_type",
           "run_notes": "logger.wandb.notes", "run_name": "logger.wandb.name"}.get(
        field, f"logger.wandb.settings.{field}")  # the logger's own keys (pass 94, rows 42b, 43b)
    return WandbStartError(f"logger.wandb: W&B could not start its run: its setting {field}="
                           f"{given!r} is refused ({reason}). Fix: change or remove {key}, or "
                           f"the WANDB_{field.upper()} environment variable")
