"""Checks of the trainer's settings and the run's schedule that need no torch or Lightning: epochs,
steps and their limits, the trainer's counts, switches and choices, devices, nodes, SLURM tasks and
``datetime.timedelta`` durations. :func:`highwaylab.config_checks.check_config` runs them before a run
imports torch; each raises :class:`highwaylab.errors.ConfigError` with one line naming the key and the
fix. Lightning accepts most of these values as anything, then fails far from the cause or ignores them.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError

# integer trainer keys Lightning accepts as anything (and then fails far from the cause, or ignores)
INT_KEYS = (("max_epochs", -1, " (-1: no limit)"), ("min_epochs", 0, ""),
            ("max_steps", -1, " (-1: no limit)"), ("accumulate_grad_batches", 1, " (1: a step per batch)"),
            ("log_every_n_steps", 1, ""), ("num_sanity_val_steps", -1, " (-1: all validation batches)"),
            ("reload_dataloaders_every_n_epochs", 0, " (0: never)"), ("min_steps", 0, ""),
            ("num_nodes", 1, " (the machines the run spans)"))
INT_EXAMPLES = {"max_epochs": 5, "min_epochs": 0, "max_steps": -1, "log_every_n_steps": 50,
                "num_sanity_val_steps": 2}
# switches read as true by any non-empty string (compile=maybe compiled, offline=no logged offline)
BOOL_KEYS = ("module.compile", "logger.wandb.offline", "trainer.benchmark", "trainer.detect_anomaly",
             "trainer.sync_batchnorm", "trainer.inference_mode", "trainer.use_distributed_sampler",
             "trainer.enable_progress_bar", "trainer.enable_model_summary")  # data.*: the data module
# trainer switches with a third value: deterministic=warn warns where no deterministic kernel exists
CHOICE_KEYS = {"trainer.deterministic": (True, False, "warn"), "optim.scheduler_interval": ("epoch", "step"),
               "trainer.gradient_clip_algorithm": ("value", "norm")}  # Lightning's GradClipAlgorithmType
NOT_NULL = ("optim.scheduler_interval",)  # of CHOICE_KEYS: the others' null is Lightning's default
# Lightning's strategy names that spawn or fork their processes (ddp_spawn, ddp_fork, ddp_notebook, ...)
SPAWN_WORDS = ("spawn", "fork", "notebook")
LIMIT_KEYS = ("limit_train_batches", "limit_val_batches", "limit_test_batches", "limit_predict_batches")


def check_schedule(cfg: DictConfig) -> None:
    """Raises ConfigError for a run that would do something else than it says: ``test`` or
    ``flush_denormal`` not a boolean (``test=no`` is a string, read as true), a
    ``trainer.gradient_clip_val`` at or below 0 (Lightning silently skips clipping), a
    ``trainer.check_val_every_n_epoch`` below 1, trainer counts that are not integers (``INT_KEYS``),
    ``min_epochs`` above ``max_epochs``, switches that are not booleans (``BOOL_KEYS``), a
    ``trainer.val_check_interval`` of 0 or below, ``optim.scheduler.milestones`` that are not
    increasing epochs, a cosine ``optim.scheduler.T_max`` below ``trainer.max_epochs`` (its learning
    rate is 0 at epoch ``T_max``, then rises), ``trainer.limit_test_batches=0`` with ``test=true``, and
    ``trainer.max_epochs=0`` (with no
    ``trainer.max_steps``) with ``test=true``, which would test the untrained network."""
    for key in ("test", "flush_denormal"):  # test=no would be a non-empty string, read as true
        if key in cfg and not isinstance(cfg[key], bool):
            raise ConfigError(not_a_switch(key, cfg[key]))
    clip = cfg.trainer.get("gradient_clip_val")
    if clip is not None and (isinstance(clip, bool) or not isinstance(clip, int | float) or clip <= 0):
        raise ConfigError(f"trainer.gradient_clip_val={clip!r} must be a positive number (Lightning skips "
                          "clipping at 0 or below); to clip nothing, set trainer.gradient_clip_val=null")
    overfit, limit = cfg.trainer.get("overfit_batches"), cfg.trainer.get("limit_train_batches")
    if overfit not in (None, 0, 0.0) and limit not in (None, 1.0) and not isinstance(overfit, bool):
        # pass 73, row 40: debug=overfit trainer.limit_train_batches=5 ran 3 batches, the 5 recorded
        raise ConfigError(f"trainer.limit_train_batches={limit} does nothing while trainer.overfit_batches="
                          f"{overfit} is set (as debug=overfit sets it): Lightning then trains and validates "
                          f"on the overfit batches alone, while the record would keep limit_train_batches="
                          f"{limit}. Fix: trainer.overfit_batches={limit} in place of "
                          f"trainer.limit_train_batches={limit}")
    every = cfg.trainer.get("check_val_every_n_epoch")
    if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
        raise ConfigError(f"trainer.check_val_every_n_epoch={every!r} must be an integer >= 1, or null "
                          "(validate by trainer.val_check_interval only)")
    unbounded = cfg.trainer.get("max_steps", -1) in (-1, None) and cfg.trainer.get("max_time") is None
    if "max_epochs" in cfg.trainer and cfg.trainer.max_epochs is None and unbounded:
        raise ConfigError("trainer.max_epochs=null: Lightning then trains 1000 epochs. Fix: give a number of "
                          "epochs (e.g. trainer.max_epochs=5), or -1 for no limit with trainer.max_steps or "
                          "trainer.max_time")
    stops = any(str((node or {}).get("_target_", "")).endswith("EarlyStopping")  # it ends the run itself
                for node in (cfg.get("callbacks") or {}).values() if OmegaConf.is_dict(node))
    if cfg.trainer.get("max_epochs") == -1 and unbounded and not stops:
        # pass 36, row 77: before, it trained until stopped, and never tested nor wrote metrics.json
        raise ConfigError("trainer.max_epochs=-1 with no trainer.max_steps and no trainer.max_time: the run "
                          "would train until it is stopped, and never test nor write metrics.json. Fix: give "
                          "a number of epochs (e.g. trainer.max_epochs=5), a limit (trainer.max_steps=10000 "
                          "or +trainer.max_time=00:02:00:00), or an early-stopping callback")
    check_trainer_counts(cfg.trainer)
    for key in BOOL_KEYS:
        value = OmegaConf.select(cfg, key, default=None)
        if value is not None and not isinstance(value, bool):
            raise ConfigError(not_a_switch(key, value))
    for key, allowed in CHOICE_KEYS.items():  # deterministic=ture: Lightning applies only part of it
        value = OmegaConf.select(cfg, key, default=None)
        if value is None and key in NOT_NULL and OmegaConf.select(cfg, key, default="absent") is None:
            names = " or ".join(str(a).lower() for a in allowed)  # null: no default to fall back on
            raise ConfigError(f"{key}=null must be {names} (it has no default), e.g. "
                              f"{key}={str(allowed[0]).lower()}")
        if value is not None and not any(value is a or (isinstance(a, str) and value == a) for a in allowed):
            names = ", ".join(str(a).lower() for a in allowed)
            raise ConfigError(f"{key}={value!r} must be one of {names}, e.g. {key}={str(allowed[0]).lower()}")
    for key in LIMIT_KEYS:
        limit = cfg.trainer.get(key)
        percent = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*%\s*", limit) if isinstance(limit, str) else None
        if percent is not None and float(percent[1]) <= 100:  # pass 90, row 65: before, "e.g. ...=10" too,
            # which a user who meant 10% would copy as 10 batches
            raise ConfigError(f"trainer.{key}={limit!r} is a percentage; Lightning takes a fraction of the "
                              f"batches in 0.0 .. 1.0 (or a whole number of batches). Fix: "
                              f"trainer.{key}={float(percent[1]) / 100:g}")
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
        from highwaylab.utils.loggers import cli_text

        whose = " (the preset's)" if min_epochs == 1 else ""  # conf/trainer/default.yaml
        raise ConfigError(f"trainer.max_time={cli_text(cfg.trainer.max_time)} with trainer.min_epochs="
                          f"{min_epochs}{whose}: Lightning trains on past the time limit until "
                          f"{_epochs(min_epochs)} ended (the log counts from epoch 0). Fix: add "
                          f"trainer.min_epochs=0")
    min_steps, max_steps = cfg.trainer.get("min_steps"), cfg.trainer.get("max_steps")
    if isinstance(min_steps, int) and isinstance(max_steps, int) and 0 <= max_steps < min_steps:
        raise ConfigError(f"trainer.min_steps={min_steps} is more than trainer.max_steps={max_steps}, "
                          f"which wins (Lightning drops min_steps without a word): raise trainer.max_steps "
                          f"or lower trainer.min_steps")
    check_durations(cfg.trainer)
    t_max = OmegaConf.select(cfg, "optim.scheduler.T_max", default=None)
    if t_max is not None and (isinstance(t_max, bool) or not isinstance(t_max, int) or t_max < 1):
        raise ConfigError(f"optim.scheduler.T_max={t_max!r} must be a whole number of epochs >= 1 (a "
                          f"preset's follows trainer.max_epochs={max_epochs}; a cosine period below 1 sets "
                          f"the learning rate to 0 every other epoch). Fix: set optim.scheduler.T_max=N, or "
                          f"trainer.max_epochs=N")
    cosine = str(OmegaConf.select(cfg, "optim.scheduler._target_", default="")).endswith("CosineAnnealingLR")
    by_epoch = OmegaConf.select(cfg, "optim.scheduler_interval", default="epoch") == "epoch"
    if cosine and by_epoch and isinstance(t_max, int) and isinstance(max_epochs, int) and t_max < max_epochs:
        raise ConfigError(f"optim.scheduler.T_max={t_max} is less than trainer.max_epochs={max_epochs}: the "
                          f"cosine learning rate reaches 0 at epoch {t_max} (0-based), which learns nothing, "
                          f"then rises again. Fix: drop the T_max override (it follows trainer.max_epochs), "
                          f"or set optim.scheduler.T_max={max_epochs} or more")
    scheduler = OmegaConf.select(cfg, "optim.scheduler", default=None)
    raw = (OmegaConf.to_container(scheduler, resolve=False).get("T_max") if OmegaConf.is_dict(scheduler)
           else None)
    if cosine and not by_epoch and isinstance(raw, str) and "trainer.max_epochs" in raw:  # optim=adamw's
        raise ConfigError(f"optim.scheduler.T_max={t_max} (it follows trainer.max_epochs) counts steps under "
                          f"optim.scheduler_interval=step: the cosine learning rate would be 0 at step "
                          f"{t_max}, then rise again. Fix: set optim.scheduler.T_max to the run's number of "
                          f"training steps, or leave optim.scheduler_interval=epoch")
    plateau = str(OmegaConf.select(cfg, "optim.scheduler._target_", default="")).endswith("ReduceLROnPlateau")
    if plateau and cfg.trainer.get("limit_val_batches") == 0:  # it waits on val/loss, which never comes
        raise ConfigError("optim.scheduler._target_=ReduceLROnPlateau waits on val/loss, and "
                          "trainer.limit_val_batches=0 runs no validation: the run would stop after its "
                          "first epoch. Fix: keep a validation (trainer.limit_val_batches=1.0 or a number of "
                          "batches), or another scheduler")
    milestones = OmegaConf.select(cfg, "optim.scheduler.milestones", default=None)
    if milestones is not None:
        listed = OmegaConf.is_list(milestones) or isinstance(milestones, list)
        values = list(milestones) if listed else None
        if not values or any(isinstance(m, bool) or not isinstance(m, int) or m < 1 for m in values) \
                or values != sorted(set(values)):  # [1,1]: MultiStepLR multiplies by gamma twice at 1
            raise ConfigError(f"optim.scheduler.milestones={milestones!r} must be a list of epochs >= 1 in "
                              f"strictly increasing order (the learning rate is multiplied by gamma at each; "
                              f"an epoch given twice applies it twice there, and one out of order never "
                              f"decays it), e.g. 'optim.scheduler.milestones=[100,150]'")
    check_nodes(cfg)
    check_start_method(cfg.trainer)
    check_distributed_sampler(cfg.trainer)
    check_single_device(cfg.trainer)


LR_FLOOR = 1e-5  # the fraction of its first learning rate below which an epoch's steps barely train


def decayed_lr_warning(cfg: DictConfig) -> str | None:
    """The warning for an exponentially decaying learning rate (``ExponentialLR``, stepped once an
    epoch, lr_e = lr * gamma^e [TVDN 3.1]) that falls below ``LR_FLOOR`` of its start before the last
    of ``trainer.max_epochs`` epochs: those epochs barely train (breaking pass 35a, row 58: the default
    gamma 0.6 gives 1e-7 at epoch 30, without a word). Names the epoch and a gamma that ends at 1% of
    the start. ``None`` otherwise, or for another schedule, or no epoch limit."""
    optim = cfg.get("optim") or {}
    scheduler = optim.get("scheduler") or {}
    epochs = cfg.trainer.get("max_epochs")
    gamma = scheduler.get("gamma")
    if (not str(scheduler.get("_target_", "")).endswith("ExponentialLR") or optim.get("scheduler_interval",
            "epoch") != "epoch" or isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 2
            or isinstance(gamma, bool) or not isinstance(gamma, int | float) or not 0 < gamma < 1):
        return None
    last = gamma ** (epochs - 1)  # the last epoch's learning rate, as a fraction of the first's
    if last >= LR_FLOOR:
        return None
    below = math.ceil(math.log(LR_FLOOR) / math.log(gamma))  # the first epoch below the floor
    slower = 0.01 ** (1 / (epochs - 1))
    return (f"highwaylab: optim.scheduler.gamma={gamma} multiplies the learning rate by {gamma} every epoch, "
            f"so from epoch {below} of trainer.max_epochs={epochs} it is below {LR_FLOOR:g} of its start "
            f"({last:.1e} of it in the last epoch), and those epochs barely train. Fix: for {epochs} epochs "
            f"e.g. optim.scheduler.gamma={slower:.3f} (1% of the start in the last epoch)")


SMALL_VAL_SET = 100  # below it, one example moves val/acc by more than 1%


def small_val_set_warning(cfg: DictConfig) -> str | None:
    """The warning for a validation set of fewer than ``SMALL_VAL_SET`` examples (``data.val_size``):
    ``val/acc``, which chooses the best checkpoint that is tested, and ``val/acc_best``, moves in steps
    of more than 1% (breaking pass 46, row 67: ``data.val_size=1`` ran without a word, its best
    checkpoint chosen by one example). ``None`` otherwise."""
    size = OmegaConf.select(cfg, "data.val_size", default=None)
    if isinstance(size, bool) or not isinstance(size, int) or not 0 < size < SMALL_VAL_SET:
        return None
    return (f"highwaylab: data.val_size={size}: val/acc, which chooses the best checkpoint (the one tested) "
            f"and gives val/acc_best, is over {size} example{'s' if size > 1 else ''}, in steps of "
            f"{100 / size:.3g}%, so that choice is mostly noise. Fix: data.val_size=5000 (the default), or "
            f"at least a few hundred")


def undecayed_lr_warning(cfg: DictConfig) -> str | None:
    """The warning for a step schedule stepped once an epoch (``MultiStepLR``'s
    ``optim.scheduler.milestones``, ``StepLR``'s ``step_size``) whose first decay comes at or after
    ``trainer.max_epochs``: the run trains at its first learning rate throughout (breaking pass 45, row
    64: ``optim=sgd_step``, milestones [100, 150], in a 5-epoch run, without a word; a cosine ``T_max``
    below ``max_epochs`` is refused for the like reason). ``None`` otherwise, or without an epoch limit."""
    optim = cfg.get("optim") or {}
    scheduler = optim.get("scheduler") or {}
    epochs = cfg.trainer.get("max_epochs")
    target = str(scheduler.get("_target_", ""))
    if (optim.get("scheduler_interval", "epoch") != "epoch" or isinstance(epochs, bool)
            or not isinstance(epochs, int) or epochs < 1):
        return None
    within = sorted({e for e in (epochs // 2, 3 * epochs // 4) if 1 <= e < epochs})  # half, 3/4 of the way
    if target.endswith("MultiStepLR"):
        milestones = scheduler.get("milestones")
        values = list(milestones) if OmegaConf.is_list(milestones) or isinstance(milestones, list) else []
        if not values or not all(isinstance(m, int) and not isinstance(m, bool) for m in values) \
                or min(values) < epochs:
            return None
        key, given, past, verb = "milestones", f"[{','.join(map(str, values))}]", max(values) + 1, "lie"
        fix = f"'optim.scheduler.milestones=[{','.join(map(str, within))}]'" if within else None
    elif target.endswith(".StepLR"):
        step = scheduler.get("step_size")
        if isinstance(step, bool) or not isinstance(step, int) or step < epochs:
            return None
        key, given, past, verb = "step_size", str(step), step + 1, "lies"
        fix = f"optim.scheduler.step_size={within[0]}" if within else None
    else:
        return None
    lr = OmegaConf.select(cfg, "optim.optimizer.lr", default=None)
    return (f"highwaylab: optim.scheduler.{key}={given} {verb} at or past trainer.max_epochs={epochs}: the "
            f"learning rate never decays in this run (it stays {lr}). Fix: "
            + (f"decay within the run, e.g. {fix}, or " if fix else "")
            + f"train past it (trainer.max_epochs={past} or more)")


def check_start_method(trainer: DictConfig) -> None:
    """Raises ConfigError for a strategy that starts its processes by spawning or forking: a name
    (``trainer.strategy=ddp_spawn``, ``ddp_fork``, ``ddp_notebook``, their ``_find_unused_parameters_*``
    variants, any name with ``spawn``) or a strategy object with ``start_method`` other than
    ``popen``. The processes would train on pickled copies of the loggers and callbacks, whose records
    the parent never sees (breaking pass 22, row 2: Lightning's CSVLogger then failed after training
    with ``dict contains fields not in fieldnames``, leaving the run folder). ``trainer=ddp_cpu`` and
    ``trainer=ddp`` start each rank by rerunning the command (``popen``), which the project supports."""
    strategy = trainer.get("strategy")
    if OmegaConf.is_dict(strategy):
        method = strategy.get("start_method", "popen")
        if method in (None, "popen"):
            return
        key, value = "trainer.strategy.start_method", method
    elif isinstance(strategy, str) and any(word in strategy.lower() for word in SPAWN_WORDS):
        key, value = "trainer.strategy", strategy
    else:
        return
    raise ConfigError(f"{key}={value} is not supported (a spawned process trains on pickled copies of the "
                      f"loggers and callbacks, whose records the parent never sees). Fix: trainer=ddp_cpu on "
                      f"CPUs or trainer=ddp on GPUs")


def check_distributed_sampler(trainer: DictConfig) -> None:
    """Raises ConfigError for ``trainer.use_distributed_sampler=false`` under DDP (a ``ddp`` strategy,
    several devices or nodes): Lightning would leave the training loader unsharded, so every rank
    would train on all the examples, not on its shard, and an epoch would take ``world_size`` times
    the steps of the sharded one (:func:`highwaylab.data.memory.batch_loader` relies on Lightning's
    sampler for the training shards)."""
    if trainer.get("use_distributed_sampler") is not False:
        return
    strategy = trainer.get("strategy")
    name = strategy.get("_target_", "") if OmegaConf.is_dict(strategy) else str(strategy or "")
    devices, nodes = trainer.get("devices"), trainer.get("num_nodes")
    several = (isinstance(devices, int) and not isinstance(devices, bool) and devices > 1) \
        or (OmegaConf.is_list(devices) and len(devices) > 1) or (isinstance(nodes, int) and nodes > 1)
    if "ddp" in name.lower() or several:
        raise ConfigError("trainer.use_distributed_sampler=false under DDP: Lightning would not shard the "
                          "training data, so every process would train on all of it, not on its shard "
                          "(metrics unlike both one process and the sharded run). Fix: leave "
                          "trainer.use_distributed_sampler out (each process trains on its own shard)")


# words that mean a switch on or off (test=yes, flush_denormal=off), and slips of true and false
SWITCH_WORDS = {
    **dict.fromkeys(("yes", "y", "on", "1", "t", "ture", "treu", "tru", "enable", "enabled"), True),
    **dict.fromkeys(("no", "n", "off", "0", "f", "fasle", "flase", "fales", "disable", "disabled"), False)}


def not_a_switch(key: str, value: Any) -> str:
    """The message for a switch ``key`` given ``value``, which is not a boolean: the value as typed
    (``null``, not Python's ``None``), and the boolean it most likely meant (``test=yes``: before, the
    example was ``test=false``, the opposite; pass 70, rows 8 and 15)."""
    from highwaylab.utils.loggers import cli_text

    shown = repr(value) if isinstance(value, str) else cli_text(value)
    meant = SWITCH_WORDS.get(str(value).strip().lower()) if isinstance(value, str | int) else None
    if meant is not None:
        return f"{key}={shown} must be true or false; did you mean {key}={str(meant).lower()}?"
    return f"{key}={shown} must be true or false: {key}=true or {key}=false"


def check_single_device(trainer: DictConfig) -> None:
    """Raises ConfigError for ``trainer.strategy=single_device`` (one process on one device) with
    several devices or nodes (``trainer=ddp_cpu``: 2): Lightning trains in one process, while the
    run's record says 2 devices (pass 69, row 33, major: before, exit 0 without a word)."""
    strategy = trainer.get("strategy")
    if not isinstance(strategy, str) or strategy.strip().lower() != "single_device":
        return
    devices, nodes = trainer.get("devices"), trainer.get("num_nodes")
    count = len(devices) if OmegaConf.is_list(devices) else devices
    if isinstance(count, str) and count.strip().isdigit():
        count = int(count)
    counts = (("devices", devices, count), ("num_nodes", nodes, nodes))
    several = [f"trainer.{key}={value}" for key, value, n in counts
               if isinstance(n, int) and not isinstance(n, bool) and n > 1]
    if several:
        raise ConfigError(f"trainer.strategy={strategy} trains in one process on one device, while "
                          f"{' and '.join(several)} asks for more: the run would train on one, with the "
                          f"record saying otherwise. Fix: trainer=cpu +trainer.strategy={strategy} for one "
                          f"device, or leave trainer.strategy out for DDP")


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


def check_devices_here(trainer: DictConfig, gpus: int) -> None:
    """Raises ConfigError for ``trainer.devices=-1`` (Lightning's "every device") on a machine with
    no GPU (``gpus``: CUDA's device count) where the accelerator is the CPU (``cpu``, or ``auto``,
    which picks it): Lightning's CPU accelerator takes a number of processes >= 1 only, and refused
    it with "should be an int > 0" as the Trainer was built (breaking pass 26, row 21). Called once
    torch has counted the GPUs, before the loggers start."""
    accelerator, devices = trainer.get("accelerator", "auto"), trainer.get("devices")
    if gpus == 0 and accelerator in ("auto", "cpu", None) and str(devices).strip() == "-1":
        raise ConfigError("trainer.devices=-1 asks for every GPU, and this machine has none: on the CPU, "
                          "Lightning takes a number of processes >= 1. Fix: trainer.devices=1 (one process), "
                          "or trainer=ddp_cpu for two CPU processes")


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


def min_steps_unreachable(trainer: Any) -> str | None:
    """The error for a ``trainer.min_steps`` above the steps that ``trainer.max_epochs`` lets the run
    take, which Lightning lets win without a word: the run would stop short of it (breaking pass 44,
    row 22: before, ``+trainer.min_steps=10`` with 3 steps an epoch and ``max_epochs=1`` ended at step
    3). ``trainer``: a fit that knows the batches of an epoch (``on_train_start``); ``None`` when it
    is reachable, or not set."""
    min_steps = getattr(trainer, "min_steps", None)
    if not isinstance(min_steps, int) or min_steps <= 0:
        return None
    reach = trainer.estimated_stepping_batches  # optimizer steps: max_steps, or max_epochs' batches
    if not math.isfinite(reach) or min_steps <= reach:
        return None
    reach = int(reach)  # not max_steps: one below min_steps is refused before (check_schedule)
    per_epoch = max(1, reach // max(1, trainer.max_epochs))
    return (f"trainer.min_steps={min_steps} is more than the {reach} steps that trainer.max_epochs="
            f"{trainer.max_epochs} allows ({per_epoch} an epoch), and max_epochs wins: the run would stop at "
            f"step {reach}. Fix: trainer.max_epochs={math.ceil(min_steps / per_epoch)}, or a lower "
            f"trainer.min_steps")


def accumulation_past_epoch(trainer: Any) -> str | None:
    """The error for a ``trainer.accumulate_grad_batches`` above the batches of an epoch: Lightning
    divides each batch's loss by it and steps the optimiser at the epoch's end, so every step carries
    ``batches / accumulate_grad_batches`` of an averaged gradient (breaking pass 46, row 69: 1000 with 3
    batches an epoch trained at 1/333 of the rate, near chance, without a word). ``trainer``: a fit
    that knows the batches of an epoch (``on_train_start``); ``None`` when it fits in an epoch."""
    accumulate = getattr(trainer, "accumulate_grad_batches", 1)
    batches = getattr(trainer, "num_training_batches", None)
    if not isinstance(accumulate, int) or not isinstance(batches, int | float) or not math.isfinite(batches) \
            or accumulate <= batches:
        return None
    batches = int(batches)
    from highwaylab.config_checks import as_given  # its '+': the presets do not set it (pass 90, row 31)

    return (f"trainer.accumulate_grad_batches={accumulate} is more than the {batches} batches of an epoch: "
            f"Lightning divides each batch's loss by {accumulate} and steps at the epoch's end, so every "
            f"step would be {accumulate / batches:.3g} times too small. Fix: "
            f"{as_given('trainer.accumulate_grad_batches')}={batches} or less")


def _epochs(count: int) -> str:
    """``count`` whole epochs, as the time-limit message says them: "1 whole epoch has", "3 whole
    epochs have" (pass 56, row 53: "until epoch 1 ends" read as the log's second epoch)."""
    return "1 whole epoch has" if count == 1 else f"{count} whole epochs have"
