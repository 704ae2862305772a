"""Checks of config values that need no torch, Lightning or W&B: :func:`validate` runs them all
before a run imports torch (``train.py`` answers ``depth=0`` in about a second) and again at the
start of :func:`highwaylab.train.train`.

Each raises :class:`highwaylab.errors.ConfigError` with one line that names the key and the fix.
Where a component owns a value (the backbone's depth, width and blocks), :func:`validate` calls
that component's own check (:mod:`highwaylab.models.spec`); the functions here check the run-level
settings that no component owns.
"""

from __future__ import annotations

import math
import os
from typing import Any

from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError, OptionNotTaken

MAX_SEED = 2**32 - 1
# integer trainer keys Lightning accepts as anything (and then fails far from the cause, or ignores)
INT_KEYS = (("max_epochs", -1, " (-1: no limit)"), ("min_epochs", 0, ""),
            ("max_steps", -1, " (-1: no limit)"), ("accumulate_grad_batches", 1, " (1: a step per batch)"),
            ("log_every_n_steps", 1, ""), ("num_sanity_val_steps", -1, " (-1: all validation batches)"),
            ("reload_dataloaders_every_n_epochs", 0, " (0: never)"), ("min_steps", 0, ""))
INT_EXAMPLES = {"max_epochs": 5, "min_epochs": 0, "max_steps": -1, "log_every_n_steps": 50,
                "num_sanity_val_steps": 2}
# switches read as true by any non-empty string (compile=maybe compiled, offline=no logged offline)
BOOL_KEYS = ("module.compile", "logger.wandb.offline", "trainer.benchmark", "trainer.detect_anomaly",
             "trainer.sync_batchnorm", "trainer.inference_mode", "trainer.use_distributed_sampler",
             "trainer.enable_progress_bar", "trainer.enable_model_summary")  # data.*: the data module
# trainer switches with a third value: deterministic=warn warns where no deterministic kernel exists
CHOICE_KEYS = {"trainer.deterministic": (True, False, "warn"), "optim.scheduler_interval": ("epoch", "step"),
               "trainer.gradient_clip_algorithm": ("value", "norm")}  # Lightning's GradClipAlgorithmType
DATASETS = ("mnist", "fashion_mnist", "cifar10", "cifar100")  # conf/data/<name>.yaml sets dataset: <name>
# conf/model/<name>.yaml sets block: <name without conv_>
MODEL_OPTIONS = ("highway", "plain", "residual", "conv_highway", "conv_plain", "conv_residual")
GROUPS = ("model", "data", "optim", "trainer", "module")  # the config groups a run is built from
# the metrics of every run (highwaylab.module.ClassifierModule), written into metrics.json: what a
# search can optimise
RUN_METRICS = ("val/acc_best", "val/acc", "val/loss", "train/loss", "train/acc", "test/acc", "test/loss")
# every key the module and Lightning's LearningRateMonitor log under train/, val/ and test/
LOGGED_METRICS = (*RUN_METRICS, "train/loss_step", "train/lr")
# numeric arguments of optimisers and schedulers, whatever their defaults say
NUMERIC_ARGS = frozenset({"lr", "momentum", "dampening", "weight_decay", "eps", "alpha", "rho", "lr_decay",
                          "gamma", "T_max", "T_0", "T_mult", "eta_min", "step_size", "factor",
                          "start_factor", "end_factor", "total_iters", "power", "base_lr", "max_lr",
                          "pct_start", "div_factor", "final_div_factor", "base_momentum", "max_momentum"})
OPTIM_EXAMPLES = {"lr": 0.1, "momentum": 0.9, "weight_decay": 5.0e-4, "gamma": 0.6}  # for the messages
LIMIT_KEYS = ("limit_train_batches", "limit_val_batches", "limit_test_batches", "limit_predict_batches")


def validate(cfg: DictConfig) -> None:
    """:func:`check_config`, with a value that cannot be resolved (``data.data_dir=${oc.env:NOPE}``)
    named in one line.

    Raises:
        ConfigError, DataError: what :func:`check_config` raises; an interpolation that does not
            resolve (naming its key and the reason).
    """
    from omegaconf.errors import InterpolationResolutionError

    try:
        check_config(cfg)
    except InterpolationResolutionError as err:
        reason = str(err).splitlines()[0]
        hint = " (or give a default: ${oc.env:NAME,<value>})" if "Environment variable" in reason else ""
        key = err.full_key or _unresolvable(cfg) or "the config"
        raise ConfigError(f"{key}: its value does not resolve ({reason}). Fix: set what it names{hint}, or "
                          f"give {key} a plain value") from None


def _unresolvable(node: Any, prefix: str = "") -> str | None:
    """The dotted key of the first value of ``node`` whose interpolation does not resolve (Hydra's
    own node is left out), or ``None``."""
    from omegaconf.errors import InterpolationResolutionError

    keys = range(len(node)) if OmegaConf.is_list(node) else [k for k in node if prefix or k != "hydra"]
    for key in keys:
        path = f"{prefix}[{key}]" if OmegaConf.is_list(node) else f"{prefix}{'.' if prefix else ''}{key}"
        try:
            value = node[key]
        except InterpolationResolutionError:
            return path
        if OmegaConf.is_config(value) and (found := _unresolvable(value, path)):
            return found
    return None


def check_config(cfg: DictConfig) -> None:
    """Every check of a composed run config that needs no torch, in the order a run meets them:
    the groups, the run's name, the seed, the trainer's schedule, its precision and accelerator
    (:func:`highwaylab.utils.hardware.check_trainer_hardware`), the SLURM tasks, the model
    (:func:`highwaylab.models.spec.check_model_config`), the data files (:func:`check_data_config`),
    the callbacks' monitored metrics, highwaylab's callbacks' options
    (:func:`highwaylab.callbacks.options.check_callbacks_config`) and the W&B project name, run id and tags
    (:func:`highwaylab.utils.loggers.check_wandb_names`).

    Raises:
        ConfigError: the first bad value, in one line naming its key and the fix.
        DataError: a data file that is not there (or not a file).
    """
    from highwaylab.callbacks.options import check_callbacks_config
    from highwaylab.models.spec import check_model_config
    from highwaylab.utils.hardware import check_trainer_hardware
    from highwaylab.utils.loggers import check_wandb_names
    from highwaylab.utils.resume import check_run

    for group in GROUPS:
        if not cfg.get(group):  # ~model removes the group the run is built from
            raise ConfigError(f"the {group} group is missing (removed by ~{group}?): a run needs one; "
                              f"choose one of those python train.py --help lists, or leave ~{group} out")
    check_run(cfg)  # run_name stays inside outputs/
    check_seed(cfg.get("seed"))
    check_paths_and_optim(cfg)
    check_schedule(cfg)
    check_choices_agree(cfg)  # data.dataset against data=, model.block against model=
    check_trainer_hardware(cfg.trainer)  # precision and accelerator, before Lightning's own checks
    check_slurm_tasks(cfg)  # in a SLURM job: its tasks against the trainer, before any logger
    try:
        check_model_config(cfg.model, *data_shape(cfg.data))  # with the data's shape: size, conv maps
    except OptionNotTaken as err:
        raise experiment_conflict(err) or err from None
    check_data_config(cfg.data)
    for group in ("callbacks", "logger"):
        check_targets(cfg.get(group), group)
    check_monitors(cfg.get("callbacks"))
    check_checkpoint_files(cfg.get("callbacks"))  # the best and the latest checkpoint: two files
    check_callbacks_config(cfg.get("callbacks"))  # highwaylab's callbacks: their own checks
    check_wandb_names(cfg.get("logger"), cfg.get("tags"))  # W&B's own checks of project, id, tags


# the data modules whose files check_data_config knows (by data.dataset)
DATA_MODULES = ("highwaylab.data.MNISTDataModule", "highwaylab.data.mnist.MNISTDataModule",
                "highwaylab.data.CIFARDataModule", "highwaylab.data.cifar.CIFARDataModule")


def data_shape(data: DictConfig) -> tuple[tuple[int, ...] | None, int | None]:
    """The shape of one example and the number of classes of ``data``
    (:data:`highwaylab.data.files.SHAPES`), for one of highwaylab's data modules and a known
    ``data.dataset``; else ``(None, None)``."""
    from highwaylab.data.files import SHAPES

    if str(data.get("_target_")) not in DATA_MODULES or data.get("dataset") not in SHAPES:
        return None, None
    return SHAPES[data.dataset]


def check_data_config(data: DictConfig) -> None:
    """Check the data module's switches and choices (:func:`highwaylab.data.files.check_data_options`),
    its loader arguments (:func:`highwaylab.data.files.check_loader_options`), and that
    ``data.data_dir`` is set and holds the data set's files, with the data modules' own path checks
    (:func:`highwaylab.data.files.check_data_files`), unless ``data.download`` may bring them. An
    unknown ``data.dataset`` or a data module of another ``_target_`` is left to the data module.

    Raises:
        ConfigError: ``data.data_dir`` is not set.
        DataError: a data file or folder is missing, or something else is at its path.
    """
    from highwaylab.data.files import (
        DATA_OPTIONS,
        LAYOUT,
        LOADER_OPTIONS,
        TRAIN_EXAMPLES,
        check_data_files,
        check_data_options,
        check_loader_options,
    )

    if str(data.get("_target_")) not in DATA_MODULES:
        return
    check_data_options(**{key: data[key] for key in DATA_OPTIONS if key in data})
    if data.get("dataset") in TRAIN_EXAMPLES:
        check_loader_options(**{key: data[key] for key in LOADER_OPTIONS if key in data},
                             train_examples=TRAIN_EXAMPLES[data.dataset])
    dataset = data.get("dataset")
    if dataset not in LAYOUT or data.get("download") is True:
        return
    check_data_files(dataset, data.get("data_dir"))


def check_targets(entries: DictConfig | None, group: str) -> None:
    """Raises ConfigError for an entry of ``callbacks`` or ``logger`` that builds nothing: a mapping
    without ``_target_`` (``+callbacks.gate_stat.every_n_steps=10``, a typo of ``gate_stats``, makes
    one, which would otherwise be skipped in silence). ``null`` entries switch one off and pass."""
    from highwaylab.utils.hydra_utils import did_you_mean

    for name, node in (entries or {}).items():
        if node is None or not OmegaConf.is_dict(node) or "_target_" in node:
            continue
        builders = [str(k) for k, v in entries.items() if OmegaConf.is_dict(v) and "_target_" in v]
        meant = did_you_mean(str(name), builders, prefix=f"{group}.") or "."
        raise ConfigError(f"{group}.{name} has no _target_, so it would build nothing and its settings would "
                          f"be ignored{meant} Fix: correct the name (python train.py --cfg job lists "
                          f"{group}), or give it a _target_")


def check_monitors(callbacks: DictConfig | None) -> None:
    """Raises ConfigError when a callback (``ModelCheckpoint``, ``EarlyStopping``) monitors a
    ``train/``, ``val/`` or ``test/`` metric that no run logs (a typo would otherwise be found only
    at the end of the first epoch, by Lightning). Keys of other callbacks (``gates/...``) pass."""
    for name, node in (callbacks or {}).items():
        monitor = node.get("monitor") if OmegaConf.is_dict(node) else None
        if isinstance(monitor, str) and monitor.split("/")[0] in ("train", "val", "test") \
                and monitor not in LOGGED_METRICS:
            raise ConfigError(f"callbacks.{name}.monitor={monitor} is not a metric of the run. Fix: choose "
                              f"one of {', '.join(LOGGED_METRICS)}")
        mode = node.get("mode") if OmegaConf.is_dict(node) and monitor else None
        if mode is not None and mode not in ("min", "max"):
            raise ConfigError(f"callbacks.{name}.mode={mode!r} must be min or max, e.g. "
                              f"callbacks.{name}.mode=max for val/acc")
        wanted = {"loss": "min", "acc": "max"}.get(str(monitor).rsplit("/", 1)[-1].split("_")[0])
        if mode is not None and wanted is not None and mode != wanted:
            raise ConfigError(f"callbacks.{name}.monitor={monitor} with mode={mode} would keep the worst "
                              f"epoch as the best. Fix: callbacks.{name}.mode={wanted}")


def check_checkpoint_files(callbacks: DictConfig | None) -> None:
    """Raises ConfigError when the best checkpoint (a ``ModelCheckpoint``) and the latest
    (``LatestCheckpoint``, ``last.ckpt``) would be one file: a ``filename`` of the same name in the
    same folder (the latest overwrites the best, and the test runs on the last epoch's weights), or
    ``save_last=true`` (two writers of ``last.ckpt``: Lightning writes ``last-v1.ckpt``)."""
    nodes = {name: node for name, node in (callbacks or {}).items() if OmegaConf.is_dict(node)}
    best = {n: c for n, c in nodes.items() if str(c.get("_target_", "")).endswith(".ModelCheckpoint")}
    latest = {n: c for n, c in nodes.items() if str(c.get("_target_", "")).endswith(".LatestCheckpoint")}
    for name, node in best.items():
        for other, last in latest.items():
            if node.get("save_last"):
                raise ConfigError(f"callbacks.{name}.save_last={node.save_last}: callbacks.{other} writes "
                                  f"last.ckpt already, and two writers make Lightning write last-v1.ckpt. "
                                  f"Fix: callbacks.{name}.save_last=false")
            same_folder = node.get("dirpath") == last.get("dirpath") or last.get("dirpath") is None
            if same_folder and str(node.get("filename")) == str(last.get("filename", "last")):
                last_file = f"{last.get('filename', 'last')}.ckpt"
                raise ConfigError(f"callbacks.{name}.filename={node.filename} is the file of "
                                  f"callbacks.{other} ({last_file}, the latest state): the best checkpoint "
                                  f"would be overwritten by the latest, and the test would run on the last "
                                  f"epoch's weights. Fix: another name, e.g. callbacks.{name}.filename=best")


def check_paths_and_optim(cfg: DictConfig) -> None:
    """Raises ConfigError for an empty ``paths.log_dir`` (the runs would go to ``/runs`` at the
    file system's root), an ``optim.optimizer`` that is not a ``_partial_`` node with a
    ``_target_`` (``optim.optimizer=null``, ``_partial_=false``: the module builds it with the
    network's parameters), an ``optim.scheduler`` that is neither ``null`` nor such a node, and the
    Trainer switches that need other groups too: ``trainer.barebones=true`` (no loggers, no
    callbacks) and ``trainer.enable_checkpointing=false`` (no checkpoint callbacks), and a
    ``trainer.max_time`` that is not ``DD:HH:MM:SS``."""
    root = OmegaConf.select(cfg, "paths.root_dir", default=None)
    if root is not None and not str(root).strip():
        raise ConfigError("paths.root_dir is empty (the environment variable HIGHWAYLAB_ROOT is set but "
                          "empty?), so the runs would be written to /outputs at the file system's root. Fix: "
                          "unset HIGHWAYLAB_ROOT (train.py sets it to its folder) or set it to a folder")
    log_dir = OmegaConf.select(cfg, "paths.log_dir", default=None)
    if log_dir is not None and not str(log_dir).strip():
        raise ConfigError("paths.log_dir is empty, so the runs' folders would be made at the file system's "
                          "root (/runs/...). Fix: give a folder, e.g. paths.log_dir=/data/highwaylab_runs, "
                          "or leave it out (outputs/ beside train.py)")
    for key, what in (("optim.optimizer", "an optimiser"), ("optim.scheduler", "a scheduler, or null,")):
        node = OmegaConf.select(cfg, key, default=None)
        if node is None and key == "optim.scheduler":
            continue
        if not OmegaConf.is_dict(node) or "_target_" not in node:
            raise ConfigError(f"{key}={node!r}: a run needs {what} given by a _target_ (e.g. "
                              f"{key}._target_=torch.optim.SGD). Fix: choose an optim preset (optim=sgd, "
                              f"sgd_step or adamw) and change its arguments")
        if node.get("_partial_") is not True:
            raise ConfigError(f"{key}._partial_={node.get('_partial_')!r} must stay true: the module builds "
                              f"the {key.rsplit('.', 1)[1]} itself, with the network's parameters. Fix: "
                              f"{key}._partial_=true")
        if key == "optim.optimizer" and "lr" not in node:  # ~optim.optimizer.lr: torch's own default
            raise ConfigError("optim.optimizer.lr is missing (removed by ~optim.optimizer.lr?): the run "
                              "would train at the optimiser's own default rate, which no record names. Fix: "
                              "leave ~optim.optimizer.lr out, or give optim.optimizer.lr=<rate>")
        for name, value in node.items():  # the module checks them again, with the target's defaults
            hint = f", e.g. {key}.{name}={OPTIM_EXAMPLES[name]}" if name in OPTIM_EXAMPLES else ""
            if name not in NUMERIC_ARGS or value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{key}.{name}={value!r} must be a number{hint}.")
            if not math.isfinite(value):
                raise ConfigError(f"{key}.{name}={value!r} must be finite{hint}.")
    trainer = cfg.get("trainer") or {}
    built = [f"{group}.{name}" for group in ("logger", "callbacks")
             for name, node in (cfg.get(group) or {}).items()
             if OmegaConf.is_dict(node) and "_target_" in node]
    if trainer.get("barebones") is True and built:
        raise ConfigError(f"trainer.barebones=true runs without loggers and callbacks (Lightning refuses "
                          f"{', '.join(built[:3])}{'...' if len(built) > 3 else ''}). Fix: add logger=none "
                          f"callbacks=none, or leave trainer.barebones out")
    writers = ("ModelCheckpoint", "LatestCheckpoint")
    checkpoints = [name for name, node in (cfg.get("callbacks") or {}).items()
                   if OmegaConf.is_dict(node) and str(node.get("_target_", "")).endswith(writers)]
    if trainer.get("enable_checkpointing") is False and checkpoints:
        removed = " ".join(f"~callbacks.{name}" for name in checkpoints)
        raise ConfigError(f"trainer.enable_checkpointing=false, but the callbacks write checkpoints "
                          f"({', '.join(checkpoints)}). Fix: leave trainer.enable_checkpointing out and "
                          f"remove them: {removed} (resume= then has no last.ckpt)")
    max_time = trainer.get("max_time")
    if isinstance(max_time, str) and not _is_duration(max_time):
        raise ConfigError(f"trainer.max_time={max_time!r} must be a duration DD:HH:MM:SS, e.g. "
                          f"trainer.max_time=00:12:00:00 (12 hours)")


def _is_duration(text: str) -> bool:
    """Lightning's ``max_time`` string: ``DD:HH:MM:SS`` (four integers)."""
    parts = text.split(":")
    return len(parts) == 4 and all(p.strip().isdigit() for p in parts)


def check_seed(seed: Any) -> None:
    """Raises ConfigError unless ``seed`` is an integer in 0 .. 2**32 - 1 (what NumPy's generator,
    seeded by ``seed_everything``, accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed={seed!r} must be an integer in 0 .. {MAX_SEED} (2**32 - 1), e.g. seed=0")


def check_schedule(cfg: DictConfig) -> None:
    """Raises ConfigError for a run that would do something else than it says: ``test`` or
    ``flush_denormal`` not a boolean (``test=no`` is a string, read as true), a
    ``trainer.gradient_clip_val`` at or below 0 (Lightning silently skips clipping), a
    ``trainer.check_val_every_n_epoch`` below 1, trainer counts that are not integers (``INT_KEYS``),
    ``min_epochs`` above ``max_epochs``, switches that are not booleans (``BOOL_KEYS``), a
    ``trainer.val_check_interval`` of 0 or below, ``optim.scheduler.milestones`` that are not
    increasing epochs, ``trainer.limit_test_batches=0`` with ``test=true``, and
    ``trainer.max_epochs=0`` (with no
    ``trainer.max_steps``) with ``test=true``, which would test the untrained network."""
    for key in ("test", "flush_denormal"):  # test=no would be a non-empty string, read as true
        if key in cfg and not isinstance(cfg[key], bool):
            raise ConfigError(f"{key}={cfg[key]!r} must be true or false, e.g. {key}=false")
    clip = cfg.trainer.get("gradient_clip_val")
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, int | float) or clip <= 0):
        raise ConfigError(f"trainer.gradient_clip_val={clip!r} must be a positive number (Lightning skips "
                          "clipping at 0 or below); to clip nothing, set trainer.gradient_clip_val=null")
    every = cfg.trainer.get("check_val_every_n_epoch")
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ConfigError(f"trainer.check_val_every_n_epoch={every!r} must be an integer >= 1, or null "
                          "(validate by trainer.val_check_interval only)")
    unbounded = cfg.trainer.get("max_steps", -1) in (-1, None) and cfg.trainer.get("max_time") is None
    if "max_epochs" in cfg.trainer and cfg.trainer.max_epochs is None and unbounded:
        raise ConfigError("trainer.max_epochs=null: Lightning then trains 1000 epochs. Fix: give a number of "
                          "epochs (e.g. trainer.max_epochs=5), or -1 for no limit with trainer.max_steps or "
                          "trainer.max_time")
    check_trainer_counts(cfg.trainer)
    for key in BOOL_KEYS:
        value = OmegaConf.select(cfg, key, default=None)
        if value is not None and not isinstance(value, bool):
            raise ConfigError(f"{key}={value!r} must be true or false, e.g. {key}=false")
    for key, allowed in CHOICE_KEYS.items():  # deterministic=ture: Lightning applies only part of it
        value = OmegaConf.select(cfg, key, default=None)
        if value is not None and not any(value is a or (isinstance(a, str) and value == a) for a in allowed):
            names = ", ".join(str(a).lower() for a in allowed)
            raise ConfigError(f"{key}={value!r} must be one of {names}, e.g. {key}={str(allowed[0]).lower()}")
    for key in LIMIT_KEYS:
        limit = cfg.trainer.get(key)
        if limit is not None and not _is_limit(limit):
            raise ConfigError(f"trainer.{key}={limit!r} must be a fraction of the batches in 0.0 .. 1.0 "
                              f"or a whole number of batches >= 0, e.g. trainer.{key}=0.25 or "
                              f"trainer.{key}=10")
    interval = cfg.trainer.get("val_check_interval")
    if interval is not None and not (_is_limit(interval) and interval > 0):  # 0: Lightning divides by it
        raise ConfigError(f"trainer.val_check_interval={interval!r} must be a fraction of the epoch in "
                          f"(0.0, 1.0] or a number of training batches >= 1, e.g. "
                          f"trainer.val_check_interval=0.5; null: once per epoch")
    devices = cfg.trainer.get("devices")
    if not _is_devices(devices):
        raise ConfigError(f"trainer.devices={devices!r} must be a number of devices >= 1, -1 or \"auto\" "
                          "(all of them), or a non-empty list of device indices, e.g. trainer.devices=1")
    if cfg.get("test"):
        max_epochs, max_steps = cfg.trainer.get("max_epochs"), cfg.trainer.get("max_steps", -1)
        if max_epochs == 0 and (max_steps is None or max_steps <= 0):
            raise ConfigError("trainer.max_epochs=0 trains nothing, and test=true would then report the "
                              "untrained network as the run's result. Fix: trainer.max_epochs=1 or more "
                              "(or trainer.max_steps=N), or test=false.")
        if max_steps == 0:
            raise ConfigError("trainer.max_steps=0 trains nothing, and test=true would then report the "
                              "untrained network as the run's result. Fix: trainer.max_steps=-1 (no limit) "
                              "or a number of steps, or test=false.")
        if cfg.trainer.get("limit_train_batches") == 0:
            raise ConfigError("trainer.limit_train_batches=0 trains nothing, and test=true would then "
                              "report the untrained network as the run's result. Fix: "
                              "trainer.limit_train_batches=1.0 (all) or a number of batches, or test=false.")
        if cfg.trainer.get("limit_test_batches") == 0:
            raise ConfigError("trainer.limit_test_batches=0 tests nothing, and test=true would then write "
                              "metrics.json without test/acc and test/loss. Fix: "
                              "trainer.limit_test_batches=1.0 (all) or a number of batches, or test=false.")
    min_epochs, max_epochs = cfg.trainer.get("min_epochs"), cfg.trainer.get("max_epochs")
    if isinstance(min_epochs, int) and isinstance(max_epochs, int) and 0 <= max_epochs < min_epochs:
        raise ConfigError(f"trainer.min_epochs={min_epochs} is more than trainer.max_epochs={max_epochs}, "
                          f"which wins: raise trainer.max_epochs or lower trainer.min_epochs")
    if cfg.trainer.get("max_time") is not None and isinstance(min_epochs, int) and min_epochs >= 1:
        raise ConfigError(f"trainer.max_time={cfg.trainer.max_time} with trainer.min_epochs={min_epochs} "
                          f"(the preset's): Lightning trains on past the time limit until epoch {min_epochs} "
                          f"ends. Fix: add trainer.min_epochs=0")
    min_steps, max_steps = cfg.trainer.get("min_steps"), cfg.trainer.get("max_steps")
    if isinstance(min_steps, int) and isinstance(max_steps, int) and 0 <= max_steps < min_steps:
        raise ConfigError(f"trainer.min_steps={min_steps} is more than trainer.max_steps={max_steps}, "
                          f"which wins (Lightning drops min_steps without a word): raise trainer.max_steps "
                          f"or lower trainer.min_steps")
    check_durations(cfg.trainer)
    t_max = OmegaConf.select(cfg, "optim.scheduler.T_max", default=None)
    if t_max is not None and (isinstance(t_max, bool) or not isinstance(t_max, int) or t_max < 1):
        raise ConfigError(f"optim.scheduler.T_max={t_max!r} must be a number of epochs >= 1 (it follows "
                          f"trainer.max_epochs={max_epochs}; a cosine period below 1 sets the learning rate "
                          f"to 0 every other epoch). Fix: set optim.scheduler.T_max=N, or "
                          f"trainer.max_epochs=N")
    milestones = OmegaConf.select(cfg, "optim.scheduler.milestones", default=None)
    if milestones is not None:
        listed = OmegaConf.is_list(milestones) or isinstance(milestones, list)
        values = list(milestones) if listed else None
        if not values or any(isinstance(m, bool) or not isinstance(m, int) or m < 1 for m in values) \
                or values != sorted(values):
            raise ConfigError(f"optim.scheduler.milestones={milestones!r} must be a list of epochs >= 1 in "
                              f"increasing order (the learning rate is divided at each; an epoch never "
                              f"equals anything else, so it would never decay), e.g. "
                              f"'optim.scheduler.milestones=[100,150]'")
    check_nodes(cfg)


def check_choices_agree(cfg: DictConfig) -> None:
    """Raises ConfigError where ``data.dataset`` or ``model.block`` contradicts the group option chosen
    (``data=mnist data.dataset=cifar10``, ``model=highway model.block=plain``): the run's folder, name
    and tags carry the option's name, so the run would be filed under another data set or model."""
    chosen = _choice("data")
    dataset = OmegaConf.select(cfg, "data.dataset", default=None)
    if chosen in DATASETS and dataset is not None and dataset != chosen:
        fix = f"data={dataset} instead" if dataset in DATASETS else \
            f"leave data.dataset out (the data sets: {', '.join(DATASETS)})"
        raise ConfigError(f"data.dataset={dataset} contradicts data={chosen} (whose name the run's folder, "
                          f"name and tags carry). Fix: {fix}")
    model_choice, block = _choice("model"), OmegaConf.select(cfg, "model.block", default=None)
    own_block = str(model_choice).removeprefix("conv_")
    if model_choice in MODEL_OPTIONS and block in ("highway", "plain", "residual") and block != own_block:
        option = f"{'conv_' if str(model_choice).startswith('conv_') else ''}{block}"
        raise ConfigError(f"model.block={block} contradicts model={model_choice} (whose name the run's "
                          f"folder, name and tags carry: a {block} net filed as {own_block}). Fix: "
                          f"model={option} instead")


def check_trainer_counts(trainer: DictConfig) -> None:
    """Raises ConfigError for a trainer count (``INT_KEYS``) that is not an integer at or above its
    lowest value (``trainer.max_epochs=1.5``: Lightning would take it as 1)."""
    for key, low, meaning in INT_KEYS:
        value = trainer.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise ConfigError(f"trainer.{key}={value!r} must be an integer >= {low}{meaning}, e.g. "
                              f"trainer.{key}={INT_EXAMPLES.get(key, 1)}")


def check_durations(node: Any, prefix: str = "trainer") -> None:
    """Raises ConfigError for a ``datetime.timedelta`` node (the README's
    ``+trainer.strategy.timeout._target_=datetime.timedelta +trainer.strategy.timeout.minutes=60``)
    whose fields are not numbers or not timedelta's: found before torch, not by the constructor."""
    if not OmegaConf.is_dict(node):
        return
    fields = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")
    if node.get("_target_") == "datetime.timedelta":
        for key, value in node.items():
            if key in ("_target_", "_partial_"):
                continue
            if key not in fields:
                raise ConfigError(f"{prefix}.{key} is not a field of datetime.timedelta: use one of "
                                  f"{', '.join(fields)}, e.g. {prefix}.minutes=60")
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ConfigError(f"{prefix}.{key}={value!r} must be a number, e.g. {prefix}.{key}=60")
        return
    for key, value in node.items():
        check_durations(value, f"{prefix}.{key}")


def check_nodes(cfg: DictConfig, environ: dict[str, str] | None = None) -> None:
    """Raises ConfigError for ``trainer.num_nodes`` > 1 in a process that no launcher started as one
    of several nodes: Lightning would wait for the other nodes for ever (only SIGKILL ends it). SLURM
    (``SLURM_NNODES``) and torchrun (``WORLD_SIZE``) set up such jobs."""
    env = os.environ if environ is None else environ
    nodes = cfg.trainer.get("num_nodes")
    launched = "SLURM_NNODES" in env or "WORLD_SIZE" in env
    if isinstance(nodes, int) and nodes > 1 and not launched:
        raise ConfigError(f"trainer.num_nodes={nodes} needs a launcher that starts the processes of the "
                          f"other nodes; started alone, this one would wait for them for ever. Fix: submit "
                          f"it with -m hydra/launcher=slurm (nodes follow trainer.num_nodes), or start it "
                          f"with torchrun --nnodes={nodes}; on one machine leave trainer.num_nodes=1")


def _is_limit(value: Any) -> bool:
    """Lightning's ``limit_*_batches``: an int >= 0 (batches) or a float in [0, 1] (a fraction)."""
    if isinstance(value, bool):
        return False
    return (isinstance(value, int) and value >= 0) or (isinstance(value, float) and 0.0 <= value <= 1.0)


def _is_devices(value: Any) -> bool:
    """Lightning's ``devices``: an int >= 1 or -1, "auto", such a number or an index list as a string
    ("2", "0,1"), or a non-empty list of indices."""
    if isinstance(value, str):
        if value == "auto":
            return True
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if len(parts) == 1 and parts[0].lstrip("-").isdigit():
            return _is_devices(int(parts[0]))
        return bool(parts) and all(part.isdigit() for part in parts)
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return value >= 1 or value == -1
    if OmegaConf.is_list(value) or isinstance(value, list | tuple):
        return len(value) > 0 and all(type(i) is int and i >= 0 for i in value)
    return False


def check_slurm_tasks(cfg: DictConfig, environ: dict[str, str] | None = None) -> None:
    """In a job of the SLURM launcher (``SUBMITIT_FOLDER`` set by submitit), check that SLURM started
    as many tasks as the trainer expects processes (``trainer.devices`` x ``trainer.num_nodes``),
    before any logger starts. (The launcher's own check, before submission, makes this rare: it
    catches a config changed between submission and start, or a launcher without that check.)

    Raises:
        ConfigError: naming both numbers and the keys to set.
    """
    env = os.environ if environ is None else environ
    tasks, devices = env.get("SLURM_NTASKS", ""), cfg.trainer.get("devices")
    if "SUBMITIT_FOLDER" not in env or not tasks.isdigit() or not isinstance(devices, int):
        return
    nodes = cfg.trainer.get("num_nodes") or 1
    if int(tasks) != devices * nodes:
        raise ConfigError(f"SLURM started {tasks} task(s) for this job (hydra.launcher.tasks_per_node x "
                          f"nodes), but trainer.devices={devices} x trainer.num_nodes={nodes} processes are "
                          f"expected. Fix: leave hydra.launcher.tasks_per_node and nodes unset (they follow "
                          f"the trainer), or set them to the same numbers.")


def experiment_conflict(err: OptionNotTaken) -> ConfigError | None:
    """For a model key that the model run does not take, set by ``experiment=<name>`` for another
    model than the one run (``experiment=paper_mnist_conv16 model=highway``: the experiment's
    ``model.stages`` merged into a fully connected model), the error that names the conflict; ``None``
    when the key is not the experiment's or the experiment's model is the one run
    (``experiment=paper_mnist_depth model=plain`` is how that experiment is swept)."""
    experiment, chosen = _choice("experiment"), _choice("model")
    if not experiment or chosen is None:
        return None
    wanted, keys = _experiment_option(experiment, "model")
    if wanted in (None, chosen) or err.key.removeprefix("model.") not in keys:
        return None
    drop = f", or drop the experiment's setting: ~{err.key}" if err.key != "model.stages" else ""
    return ConfigError(f"experiment={experiment} sets {err.key} for model={wanted}, which model={chosen} "
                       f"does not take. Fix: leave model={chosen} out (the experiment chooses "
                       f"model={wanted}){drop}")


def _experiment_option(experiment: str, group: str) -> tuple[str | None, set[str]]:
    """The option that ``conf/experiment/<experiment>.yaml``, or a file of its defaults list (such as
    ``_paper_cifar``), chooses for ``group`` (``override /<group>: <option>``), or ``None``; and the
    keys those files set under ``<group>:``."""
    import yaml
    from hydra.core.hydra_config import HydraConfig

    option, keys = None, set()
    folders = [s.path.removeprefix("file://") for s in HydraConfig.get().runtime.config_sources
               if s.schema == "file"]
    paths = [os.path.join(folder, "experiment", f"{experiment}.yaml") for folder in folders]
    path = next((p for p in paths if os.path.isfile(p)), None)
    if path is None:
        return None, keys
    with open(path, encoding="utf-8") as file:
        content = yaml.safe_load(file) or {}
    keys |= set(content.get(group) or {})
    for entry in content.get("defaults") or []:
        if isinstance(entry, dict) and f"override /{group}" in entry:
            option = str(entry[f"override /{group}"])
        elif isinstance(entry, str) and entry != "_self_":
            found, more = _experiment_option(entry, group)
            option, keys = option or found, keys | more
    return option, keys


def _choice(group: str) -> str | None:
    """The option chosen for ``group`` (``data=mnist``), when Hydra runs this process."""
    from hydra.core.hydra_config import HydraConfig

    return HydraConfig.get().runtime.choices.get(group) if HydraConfig.initialized() else None

