"""Checks of config values that need no torch, Lightning or W&B: :func:`validate` runs them all
before a run imports torch (``train.py`` answers ``depth=0`` in about a second) and again at the
start of :func:`highwaylab.train.train`.

Each raises :class:`highwaylab.errors.ConfigError` with one line that names the key and the fix.
Where a component owns a value (the backbone's depth, width and blocks), :func:`validate` calls
that component's own check (:mod:`highwaylab.models.spec`); the functions here check the run-level
settings that no component owns.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import unicodedata
from typing import Any

from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError, OptionNotTaken
from highwaylab.trainer_checks import check_schedule, check_slurm_tasks

MAX_SEED = 2**32 - 1
DATASETS = ("mnist", "fashion_mnist", "cifar10", "cifar100")  # conf/data/<name>.yaml sets dataset: <name>
# conf/model/<name>.yaml sets block: <name without conv_>
MODEL_OPTIONS = ("highway", "plain", "residual", "conv_highway", "conv_plain", "conv_residual")
GROUPS = ("model", "data", "optim", "trainer", "module")  # the config groups a run is built from
# the groups whose option is chosen in a defaults list (model=highway): their key holds that option's config
CHOSEN_GROUPS = ("model", "data", "optim", "callbacks", "logger", "trainer", "paths", "debug",
                 "hparams_search")
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
# the Trainer arguments that highwaylab.train.build sets from a group, replacing any trainer.<key>
TRAINER_FROM_GROUPS = {
    "logger": ("loggers", "to run without loggers use logger=none (or choose them: logger=[wandb,csv])"),
    "callbacks": ("callbacks", "to run without them use callbacks=none (or add one: "
                               "+callbacks.<name>._target_=...)")}
# boolean switches of optimisers and schedulers (torch takes any truthy value: nesterov=maybe is on);
# those of BOOL_OR_NULL_ARGS may be null (torch's None: its own choice)
BOOL_ARGS = frozenset({"nesterov", "amsgrad", "maximize", "foreach", "capturable", "differentiable", "fused",
                       "decoupled_weight_decay", "centered", "verbose", "three_phase", "cycle_momentum"})
BOOL_OR_NULL_ARGS = frozenset({"foreach", "fused"})
# scheduler arguments that are learning rates or factors of one: negative, the rate goes negative
RATE_ARGS = frozenset({"eta_min", "base_lr", "max_lr", "start_factor", "end_factor", "factor"})
OPTIM_EXAMPLES = {"lr": 0.1, "momentum": 0.9, "weight_decay": 5.0e-4, "gamma": 0.6}  # for the messages



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
    except ConfigError as err:
        decoded = string_number(cfg, str(err))
        if decoded is None:
            raise
        raise ConfigError(decoded) from None
    except InterpolationResolutionError as err:
        reason = str(err).splitlines()[0]
        hint = " (or give a default: ${oc.env:NAME,<value>})" if "Environment variable" in reason else ""
        key = _interpolated_from(cfg, err.full_key or _unresolvable(cfg) or "the config")
        if (named := re.search(r"Environment variable '([^']+)' not found", reason)) is not None:
            key = _reads_variable(cfg, named.group(1)) or key  # depth=${oc.env:DEPTH}, met in run_name
            if _takes_a_number(cfg, key, named.group(1)):
                # pass 79, row 48 (major): before, "set what it names"; set, seed=${oc.env:SEED} was then
                # refused as a string: oc.env gives text, which a number's key takes decoded
                name = named.group(1)
                raise ConfigError(
                    f"{key}: its value does not resolve ({reason}). Fix: set {name} and decode it, as "
                    f"${{oc.env:...}} gives text and {key} is a number: '{key}=\"${{oc.decode:${{oc.env:"
                    f"{name}}}}}\"' (with a default: ${{oc.decode:${{oc.env:{name},<value>}}}}); or give "
                    f"{key} a plain value") from None
        raise ConfigError(f"{key}: its value does not resolve ({reason}). Fix: set what it names{hint}, or "
                          f"give {key} a plain value") from None


def _takes_a_number(cfg: DictConfig, key: str, name: str) -> bool:
    """Whether ``key``, whose value is ``${oc.env:<name>}`` (or with a default) and ``name`` unset,
    is a number's key: with ``name`` set to ``1`` for the trial, :func:`check_config` refuses the key's
    text ``'1'`` as a string of a number (:func:`string_number`)."""
    raw = _raw(cfg, key)
    if not isinstance(raw, str) or not re.fullmatch(rf"\$\{{oc\.env:{re.escape(name)}(,[^}}]*)?\}}", raw):
        return False
    saved = os.environ.get(name)
    os.environ[name] = "1"
    try:
        check_config(cfg)
    except ConfigError as err:
        return str(err).startswith(f"{key}=") and string_number(cfg, str(err)) is not None
    except Exception:  # noqa: BLE001 - another fault: not told apart here
        return False
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved
    return False


# a number as YAML writes it, and an integer: what a string from ${oc.env:...} may hold
NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
INTEGER = re.compile(r"[+-]?\d+")
# a value that is one interpolation of another key: ${trainer.max_epochs}
NODE_INTERPOLATION = re.compile(r"\$\{([A-Za-z_][\w.]*)\}")


def string_number(cfg: DictConfig, message: str) -> str | None:
    """The message for a refused key (``message`` starts with ``<key>=``) whose value is a string of
    a number (``seed=${oc.env:SEED,7}``: ``oc.env`` gives the string ``'7'``), when that number
    itself would pass the checks: the value is a string, and the fixes: the number, or the same
    value decoded (``seed='${oc.decode:${oc.env:SEED,7}}'``). A key that follows another one
    (``${trainer.max_epochs}``) is traced to the key that gives the string. ``None`` otherwise: the
    message stands."""
    import copy

    from omegaconf import open_dict, read_write

    match = re.match(r"([A-Za-z_][\w.\[\]]*)=", message)
    if match is None:
        return None
    key = origin = match.group(1)
    try:
        value = OmegaConf.select(cfg, key, throw_on_missing=False)
        raw = _raw(cfg, origin)
        while isinstance(raw, str) and (follows := NODE_INTERPOLATION.fullmatch(raw)):
            origin, raw = follows.group(1), _raw(cfg, follows.group(1))
    except Exception:  # an address select cannot read: the message stands
        return None
    if not isinstance(value, str) or not NUMBER.fullmatch(value.strip()):
        return None
    number = int(value) if INTEGER.fullmatch(value.strip()) else float(value)
    trial = copy.deepcopy(cfg)
    with read_write(trial), open_dict(trial):
        OmegaConf.update(trial, origin, number, merge=False)
    try:
        check_config(trial)
    except ConfigError as err:
        if str(err).startswith((f"{key}=", f"{origin}=")):  # refused as a number too
            return None
    except Exception:  # anything else is another fault, which the user meets once this one is fixed
        pass
    # a full-width digit (３) as its ASCII one (pass 53, row 23: before, "Fix: depth=３", refused in turn)
    given, plain = str(raw), unicodedata.normalize("NFKC", value.strip())
    if given == value and re.fullmatch(r"[+-]?0\d+", plain):  # pass 39, rows 30 and 34: before, depth=010
        # (unquoted: Hydra's grammar reads a leading zero as a string) was told to drop quotes it had not
        return (f"{key}={plain}: Hydra reads a number with a leading zero as a string. Fix: "
                f"{key}={number}")
    if given == value:  # a quoted number: seed='7' in a config file, "7" on the command line
        return f"{key}={value!r} is a string, not a number. Fix: {key}={plain}, without quotes"
    source = (f": {given} gives a string" if origin == key
              else f": it follows {origin}={given}, which gives a string")
    every = " (as every ${oc.env:...} does)" if "${oc.env:" in given else ""
    decode = (f", or decode it: '{origin}=\"${{oc.decode:{given}}}\"'" if given.startswith("${")
              and given.endswith("}") else "")
    return f"{key}={value!r} is a string, not a number{source}{every}. Fix: {origin}={plain}{decode}"


def _interpolated_from(cfg: DictConfig, key: str) -> str:
    """The key the user set behind ``key``, whose interpolation does not resolve: while the value of
    ``key`` as written names another key (``model.width: ${width}``; ``run_name: ...-s${seed}``)
    that does not resolve either, that key (``width``, set as ``width=${oops}``; breaking pass 30,
    row 16: ``model.width`` was named, and setting it left ``width`` failing)."""
    seen = {key}
    while True:
        raw = _raw(cfg, key)
        named = [m.group(1) for m in NODE_INTERPOLATION.finditer(raw)] if isinstance(raw, str) else []
        failing = next((k for k in named if k not in seen and _raw(cfg, k) is not None
                        and not _resolves(cfg, k)), None)  # run_name: ...-s${seed}, with seed=${oops}
        if failing is None:
            return key
        key = failing
        seen.add(key)


def _reads_variable(cfg: DictConfig, name: str) -> str | None:
    """The dotted key whose value, as written, reads the environment variable ``name``
    (``${oc.env:NAME}``; Hydra's own node left out): the key the user set, when a value that uses it
    through a resolver (``run_name``: ``d${net_depth:}``) fails first (breaking pass 46, row 11: before,
    ``run_name`` was named for ``depth=${oc.env:DEPTH}``); ``None`` if none does."""
    pattern = re.compile(r"\$\{oc\.env:\s*" + re.escape(name) + r"\s*[,}]")

    def walk(node: Any, prefix: str) -> str | None:
        if isinstance(node, dict):
            items = [(k, v) for k, v in node.items() if prefix or k != "hydra"]
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            return prefix if isinstance(node, str) and pattern.search(node) else None
        for k, v in items:
            path = f"{prefix}[{k}]" if isinstance(node, list) else f"{prefix}{'.' if prefix else ''}{k}"
            if (found := walk(v, path)) is not None:
                return found
        return None

    return walk(OmegaConf.to_container(cfg, resolve=False), "")


def _resolves(cfg: DictConfig, key: str) -> bool:
    try:
        OmegaConf.select(cfg, key)
        return True
    except Exception:  # noqa: BLE001 -- any resolution failure
        return False


def _raw(cfg: DictConfig, key: str) -> Any:
    """The value of ``key`` in ``cfg`` as written, its interpolation unresolved; ``None`` if there is
    no such key."""
    parent, _, name = key.rpartition(".")
    try:
        node = OmegaConf.select(cfg, parent, throw_on_resolution_failure=False) if parent else cfg
        return node._get_node(name)._value() if OmegaConf.is_dict(node) and name in node else None
    except Exception:  # noqa: BLE001 -- a key OmegaConf cannot walk
        return None


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


def check_own_options(cfg: DictConfig) -> None:
    """Raises ConfigError for an option file of one's own (``--config-dir``) that the run would
    misread, in silence (pass 67):

    - an ``experiment`` file without ``# @package _global_`` (row 22): its keys land under
      ``experiment.*``, which nothing reads, and the run trains with the defaults, tagged
      ``experiment:<name>``;
    - a ``model`` file whose ``depth`` is a number of its own (row 38): the net is built that deep,
      while the run's name, W&B tags and record give the top-level ``depth``.
    """
    choices = {}
    with contextlib.suppress(Exception):  # outside a run of train.py: no choices to name
        from hydra.core.hydra_config import HydraConfig

        choices = dict(HydraConfig.get().runtime.choices)
    for group in CHOSEN_GROUPS:  # pass 68, rows 13-14 (major): an AttributeError traceback, or a wrong key
        value = cfg.get(group)
        if isinstance(value, str):
            where = (f"experiment/{choices['experiment']}.yaml" if choices.get("experiment") else
                     "its config file")
            raise ConfigError(f"{group}: {value} (in {where}) sets the key {group} to the string '{value}' "
                              f"in place of the {group} config: a group's option is chosen in a defaults "
                              f"list, not by a key. Fix: in {where}, replace '{group}: {value}' with "
                              f"'defaults: [override /{group}: {value}]' (as conf/experiment/"
                              f"paper_mnist_conv16.yaml chooses its model), or give {group}={value} on the "
                              f"command line")
    for group, base in (("trainer", "default"), ("model", "highway"), ("data", "mnist")):
        node = cfg.get(group)  # pass 68, row 36 (major): a trainer file of its own without the default
        # trainer's keys; each key refused in turn (trainer.devices=None, then the next), fixes in a loop
        name = choices.get(group) or "<name>"
        if not OmegaConf.is_dict(node) or not len(node) or node.get("_target_") is not None:
            continue
        if not _own_file(group, name):  # ~model._target_ (or model._target_=null): before, a traceback
            given = given_override(f"{group}._target_") or f"{group}._target_=null"
            raise ConfigError(f"{given}: {group}._target_ is the class that builds the {group}, so without "
                              f"it there is no {group} to build. Fix: leave {given} out (to build another "
                              f"class, give its path: {group}._target_=<module>.<Class>)")
        fix = ("add 'defaults: [default]' as its first line, as conf/trainer/cpu.yaml has, so that it "
               "changes only the keys it gives" if group == "trainer" else
               f"add 'defaults: [{base}]' as its first line, so that it changes only the keys it gives "
               f"of {group}={base}")
        keys = ", ".join(map(str, list(node)[:4]))
        raise ConfigError(f"{group}={name}: its file has no _target_ (it gives only {keys}), so the "
                          f"{group} would be built from nothing. Fix: in {group}/{name}.yaml, {fix}")
    check_package_lines(cfg, choices)
    optim = cfg.get("optim")
    missing = [k for k in ("optimizer", "scheduler", "scheduler_interval") if k not in (optim or {})]
    if OmegaConf.is_dict(optim) and missing:  # pass 68, row 44 (major): before, an InterpolationKeyError
        # traceback after the W&B run had started
        name = choices.get("optim") or "<name>"
        raise ConfigError(f"optim={name}: its file has no {', '.join(missing)}, which the module reads "
                          f"(module.{missing[0]}: ${{optim.{missing[0]}}}). Fix: add "
                          f"{'them' if len(missing) > 1 else 'it'} to optim/{name}.yaml, as "
                          f"conf/optim/sgd.yaml has them (scheduler: null for a constant rate; "
                          f"scheduler_interval: epoch)")
    model = cfg.get("model")
    if not OmegaConf.is_dict(model):
        return
    given = OmegaConf.to_container(model, resolve=False)
    for key in ("depth", "width"):  # pass 72, rows 55 and 86 (major): width too, from a model file or an
        # experiment's model: {width: 100}; before, the net 100 wide, its record (and W&B) width: 50
        raw, top = given.get(key), cfg.get(key)
        if not isinstance(raw, int) or isinstance(raw, bool) or not isinstance(top, int) or raw == top:
            continue
        name, experiment = choices.get("model") or "<name>", choices.get("experiment")
        what = "names the run, tags it in W&B and is recorded" if key == "depth" else "is recorded (W&B's " \
            "config)"
        if experiment and not _own_file("model", name):
            raise ConfigError(f"model.{key}={raw} (in experiment/{experiment}.yaml) differs from "
                              f"{key}={top}, the top-level {key} that {what}: the net and its record would "
                              f"disagree. Fix: in experiment/{experiment}.yaml, set the top-level "
                              f"'{key}: {raw}' in place of "
                              f"model.{key}, as conf/experiment/paper_mnist_depth.yaml sets 'width: 50'")
        raise ConfigError(f"model.{key}={raw} (in the file of model={name}) differs from {key}={top}, the "
                          f"top-level {key} that {what}: the net and its record would disagree. Fix: write "
                          f"'{key}: ${{{key}}}' in model/{name}.yaml, as the models in conf/model/ do, and "
                          f"give {key}={raw} on the command line")


# the groups whose options set keys anywhere in the config: what a file without its package line does
PACKAGED = {"experiment": ("the run would train with the defaults", "the experiments in conf/experiment/"),
            "hparams_search": ("the search would run with the default trials and space",
                               "the searches in conf/hparams_search/"),
            "debug": ("the run would go on without them", "the options in conf/debug/")}


def check_package_lines(cfg: DictConfig, choices: dict | None = None) -> None:
    """Raises ConfigError for an option file of a ``_global_`` group (``experiment``,
    ``hparams_search``, ``debug``) without ``# @package _global_``: its keys land under
    ``<group>.*``, where nothing reads them (pass 67, row 22: an experiment trained with the defaults;
    pass 71, row 33: a search of one's own ran the default 20 trials over the whole space). Called for
    a multirun too (:func:`highwaylab.utils.overrides.check_command_line`)."""
    if choices is None:
        choices = {}
        with contextlib.suppress(Exception):  # outside a run of train.py: no choices to name
            from hydra.core.hydra_config import HydraConfig

            choices = dict(HydraConfig.get().runtime.choices)
    for group, (then, files) in PACKAGED.items():
        node = cfg.get(group)
        if OmegaConf.is_dict(node) and len(node):
            name = choices.get(group) or "<name>"
            keys = ", ".join(map(str, list(node)[:4]))
            raise ConfigError(f"{group}={name}: its file has no '# @package _global_' first line, so its "
                              f"keys ({keys}) landed under {group}.*, where nothing reads them, and {then}. "
                              f"Fix: add '# @package _global_' as the first line of {group}/{name}.yaml, as "
                              f"{files} have it")


def given_override(key: str) -> str | None:
    """The override of this run's command line that sets or removes ``key`` (``~model._target_``);
    ``None`` when none does, or outside a run of train.py."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return None
    return next((o for o in HydraConfig.get().overrides.task if o.split("=", 1)[0].lstrip("+~") == key), None)


def as_given(key: str) -> str:
    """``key`` with the ``+`` or ``++`` that this run's command line gave it, for a message's example
    (``+optim.optimizer.betas``: a key the preset does not set, which an example without the ``+`` would
    be refused for; pass 50, row 28; pass 84, row 67). Before Hydra has started (a resume's checks), the
    command line's overrides as train.py read them; ``key`` itself when neither gives it."""
    from hydra.core.hydra_config import HydraConfig

    from highwaylab.utils.resume import GIVEN_OVERRIDES

    overrides = HydraConfig.get().overrides.task if HydraConfig.initialized() else GIVEN_OVERRIDES
    given = [o.split("=", 1)[0] for o in overrides if o.split("=", 1)[0].lstrip("+") == key]
    return given[-1] if given else key


def removal(key: str) -> str:
    """How to remove ``key`` from this run's config, as a fix to quote: ``~key`` for a key of the
    config files; ``leave +key=value out`` for one this command line adds (pass 74, row 56: before,
    ``+optim.scheduler.verbose=true`` was told "~optim.scheduler.verbose", which Hydra then refused:
    the files have no such key); ``~key in place of key=value`` for one it sets."""
    given = given_override(key)
    if given is None or given.startswith("~"):
        return f"~{key}"
    if given.startswith("+"):
        return f"leave {given} out"
    return f"~{key} in place of {given}"


def _own_file(group: str, name: str) -> bool:
    """Whether option ``name`` of ``group`` is a file of one's own (``--config-dir``): not one of
    highwaylab's ``conf/`` (which Hydra reads first), in a run of train.py."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return False
    main = [s.path.removeprefix("file://") for s in HydraConfig.get().runtime.config_sources
            if s.provider == "main" and s.schema == "file"]
    return bool(main) and not any(os.path.isfile(os.path.join(m, group, f"{name}.yaml")) for m in main)


def check_config(cfg: DictConfig) -> None:
    """Every check of a composed run config that needs no torch, in the order a run meets them:
    the groups, the run's name, the seed, the trainer's schedule, its precision and accelerator
    (:func:`highwaylab.utils.hardware.check_trainer_hardware`), the SLURM tasks, the model
    (:func:`highwaylab.models.spec.check_model_config`), the data files (:func:`check_data_config`),
    the callbacks' monitored metrics, the best and latest checkpoints (:func:`check_checkpoint_files`,
    :func:`check_best_checkpoint_saves`), highwaylab's callbacks' options
    (:func:`highwaylab.callbacks.options.check_callbacks_config`), the loggers' step counts
    (:func:`highwaylab.utils.loggers.check_logger_steps`), their folders
    (:func:`highwaylab.utils.loggers.check_logger_folders`) and the W&B project name, run id and tags
    (:func:`highwaylab.utils.loggers.check_wandb_names`).

    Raises:
        ConfigError: the first bad value, in one line naming its key and the fix.
        DataError: a data file that is not there (or not a file).
    """
    from highwaylab.callbacks.options import check_callbacks_config
    from highwaylab.models.spec import check_model_config
    from highwaylab.utils.hardware import check_master_port, check_trainer_hardware
    from highwaylab.utils.loggers import (
        check_logger_folders,
        check_logger_steps,
        check_one_wandb,
        check_wandb_names,
    )
    from highwaylab.utils.resume import check_run

    check_own_options(cfg)
    for group in GROUPS:
        if not cfg.get(group):  # ~model removes the group the run is built from
            raise ConfigError(f"the {group} group is missing (removed by ~{group}?): a run needs one; "
                              f"choose one of those python train.py --help lists, or leave ~{group} out")
    check_run(cfg)  # run_name stays inside outputs/
    raw_seed = OmegaConf.to_container(cfg, resolve=False).get("seed") if OmegaConf.is_dict(cfg) else None
    if cfg.get("seed") is None and isinstance(raw_seed, str) and "hydra:job.num" in raw_seed.replace(" ", ""):
        # pass 84, row 98: before, "seed=None must be an integer", the cause unsaid
        raise ConfigError(f"seed={raw_seed} is null outside a multirun: Hydra numbers jobs (hydra.job.num) "
                          f"only under -m. Fix: give a number for one run, e.g. seed=0, or run it with -m")
    check_seed(cfg.get("seed"))
    check_paths_and_optim(cfg)
    check_schedule(cfg)
    check_step_schedule(cfg)  # a preset's epoch counts with optim.scheduler_interval=step
    check_choices_agree(cfg)  # data.dataset against data=, model.block against model=
    check_trainer_hardware(cfg.trainer)  # precision and accelerator, before Lightning's own checks
    check_master_port(cfg.trainer)  # a MASTER_PORT in use: the ranks could not meet
    check_slurm_tasks(cfg)  # in a SLURM job: its tasks against the trainer, before any logger
    try:
        check_model_config(cfg.model, *data_shape(cfg.data))  # with the data's shape: size, conv maps
    except OptionNotTaken as err:
        raise experiment_conflict(err) or err from None
    check_data_config(cfg.data)
    for group in ("callbacks", "logger"):
        check_targets(cfg.get(group), group)
    check_monitors(cfg.get("callbacks"))
    check_lr_shown(cfg.get("callbacks"), cfg.get("logger"))  # train/lr in the epoch lines, no monitor
    check_summary_depth(cfg.get("callbacks"))
    check_checkpoint_files(cfg.get("callbacks"))  # the best and the latest checkpoint: two files
    check_progress_bars(cfg.get("callbacks"))  # Lightning takes one
    check_best_checkpoint_saves(cfg.get("callbacks"))  # the best: chosen at validation, not mid-training
    check_callbacks_config(cfg.get("callbacks"))  # highwaylab's callbacks: their own checks
    check_logger_steps(cfg.get("logger"))  # logger.csv.flush_logs_every_n_steps=0: Lightning divides by it
    check_logger_folders(cfg.get("logger"))  # logger.tensorboard.version=../x: outside the run's folder
    check_wandb_names(cfg.get("logger"), cfg.get("tags"))  # W&B's own checks of project, id, tags
    check_one_wandb(cfg.get("logger"))  # two W&B loggers: one run, every metric twice
    check_fast_dev_run(cfg)  # +trainer.fast_dev_run=true with loggers: an empty W&B run
    check_val_set_shared(cfg)  # data.val_size=1 under DDP: before the ranks start
    check_root_dir(cfg)  # trainer.default_root_dir apart from the run's folder: its figures elsewhere


def check_root_dir(cfg: DictConfig) -> None:
    """Raises ConfigError for a ``trainer.default_root_dir`` other than the run's folder
    (``paths.output_dir``, which it follows): the callbacks write the figures there, while the
    checkpoints, ``metrics.json``, the log and W&B stay in the run's folder (pass 56, rows 8-9, major:
    before, exit 0 and one run split over two folders, or its figures lost in a folder that could not
    be written)."""
    raw = OmegaConf.to_container(cfg.trainer, resolve=False) if OmegaConf.is_dict(cfg.get("trainer")) else {}
    given = raw.get("default_root_dir") if isinstance(raw, dict) else None
    if given is None or given == "${paths.output_dir}":
        return
    raise ConfigError(f"trainer.default_root_dir={given}: the run's files go to its own folder "
                      f"(paths.output_dir, placed by hydra.run.dir), and trainer.default_root_dir follows "
                      f"it; set apart, the figures would go there and the rest to the run's folder. Fix: "
                      f"leave trainer.default_root_dir out; to place the run, give hydra.run.dir={given}")


def check_val_set_shared(cfg: DictConfig) -> None:
    """Raises ConfigError for a validation set smaller than the DDP processes (``data.val_size=1`` with
    ``trainer=ddp_cpu``), which each need one example at least: the data module refuses it too, but
    only after the ranks started, once per rank (pass 55, row 51: before, the line twice, after the
    DDP start-up)."""
    from highwaylab.utils.resume import processes_of

    size, processes = OmegaConf.select(cfg, "data.val_size", default=None), processes_of(cfg)
    if not isinstance(size, int) or isinstance(size, bool) or processes is None or size >= processes:
        return
    from highwaylab.data.files import unshared_set

    raise ConfigError(unshared_set(size, processes))


def check_fast_dev_run(cfg: DictConfig) -> None:
    """Raises ConfigError for ``trainer.fast_dev_run`` with loggers: Lightning then runs a batch or
    two and gives the loggers nothing, so the run would record a W&B run that holds no row and name
    it in ``metrics.json`` (pass 53, row 6: before, exit 0 without a word). ``debug=fast`` is that
    mode with the loggers and callbacks off."""
    fast = cfg.trainer.get("fast_dev_run") if OmegaConf.is_dict(cfg.get("trainer")) else None
    loggers = [name for name, node in (cfg.get("logger") or {}).items() if node is not None]
    if fast in (None, False, 0) or not loggers:
        return
    chosen = OmegaConf.select(cfg, "hydra.runtime.choices.debug", default=None) or _choice("debug")
    fix = ("leave the logger out (debug=fast sets logger=none)" if chosen == "fast" else
           "debug=fast (trainer.fast_dev_run without loggers and callbacks) instead, or logger=none")
    raise ConfigError(f"trainer.fast_dev_run={fast}: Lightning runs a batch or two and gives the loggers "
                      f"nothing, so the run's logger ({', '.join(loggers)}) would record an empty run. Fix: "
                      f"{fix}")


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

    if OmegaConf.is_dict(entries) and "_target_" in entries:  # pass 68, rows 37-38 (major): before, the
        # own file's logger (or callback) was dropped in silence, its _target_ a string among the entries
        option = _choice(group) or "<name>"
        name = option.removeprefix("[").split(",")[0].strip("]") if option.startswith("[") else option
        shown = {"callbacks": "conf/callbacks/minimal.yaml", "logger": "conf/logger/csv.yaml"}[group]
        raise ConfigError(f"{group}={option}: its file gives _target_ at its top, while the {group} group "
                          f"holds named entries ({group}.<name>._target_), so it would build nothing, in "
                          f"silence. Fix: in {group}/{name}.yaml, put its keys under a name (a line "
                          f"'{name}:' with _target_ and the rest indented under it; a defaults list stays at "
                          f"the top), as {shown} does")
    for name, node in (entries or {}).items():
        target = str(node.get("_target_", "")) if OmegaConf.is_dict(node) else ""
        if target.endswith(("BatchSizeFinder", "LearningRateFinder")):  # pass 59, row 60 (major): before,
            # rc 0, trained at batch 8192 with batch_size 128 recorded, and limit_*_batches dropped
            what = "data.batch_size" if target.endswith("BatchSizeFinder") else "optim.optimizer.lr"
            raise ConfigError(f"{group}.{name}: {target.rsplit('.', 1)[-1]} changes {what} during the "
                              f"run, while the run's record (config_resolved.yaml, the W&B config) keeps the "
                              f"value given, and it resets trainer.limit_*_batches. Fix: leave it out; find "
                              f"the value in a run of its own, then give it: {what}=<value>")
        if node is None or not OmegaConf.is_dict(node) or "_target_" in node:
            continue
        builders = [str(k) for k, v in entries.items() if OmegaConf.is_dict(v) and "_target_" in v]
        if group == "logger" and str(name) in LOGGER_OPTIONS:  # pass 81, row 52: +logger.wandb.mode=online
            # beside logger=csv; before, "give it a _target_", naming a class of Lightning's
            given = ", ".join(f"logger.{name}.{k}" for k in node)
            raise ConfigError(f"logger.{name}: the logger option chosen leaves the {name} logger out, and "
                              f"the command line sets {given}. Fix: leave {given} out, or choose that "
                              f"logger: logger={name} (or 'logger=[{name},csv]')")
        meant = did_you_mean(str(name), builders, prefix=f"{group}.") or "."
        key = f"+{group}.{name}"  # pass 59, row 25: before, "give it a _target_", naming no class
        example = (f"{key}._target_=lightning.pytorch.callbacks.EarlyStopping {key}.monitor=val/acc "
                   f"{key}.mode=max" if "stop" in str(name).lower() else
                   f"{key}._target_=lightning.pytorch.callbacks.<Class>" if group == "callbacks" else
                   f"{key}._target_=lightning.pytorch.loggers.<Class>")
        raise ConfigError(f"{group}.{name} has no _target_, so it would build nothing and its settings would "
                          f"be ignored{meant} Fix: correct the name (python train.py --cfg job lists "
                          f"{group}), or give it a _target_, e.g. {example}")


#: the loggers of conf/logger/ (each its own option, with an entry of the same name)
LOGGER_OPTIONS = ("wandb", "csv", "tensorboard")


def check_monitors(callbacks: DictConfig | None) -> None:
    """Raises ConfigError when a callback (``ModelCheckpoint``, ``EarlyStopping``) monitors a
    ``train/``, ``val/`` or ``test/`` metric that no run logs (a typo would otherwise be found only
    at the end of the first epoch, by Lightning), or a ``test/`` metric (logged only after fitting).
    Keys of other callbacks (``gates/...``) pass. A fix that names a metric names the mode it needs
    too (pass 73, row 87: before, a typo's fix led to a test/ metric, then to a metric without its mode,
    each refused in turn)."""
    from highwaylab.utils.hydra_utils import closest_names

    def with_mode(name: str, node: Any, metric: str) -> str:  # the override(s) that monitor ``metric``
        given = given_override(f"callbacks.{name}.monitor") or ""  # '+': a callback added on the command
        monitor = f"{'+' if given.startswith('+') else ''}callbacks.{name}.monitor={metric}"  # line: in place
        target = str(node.get("_target_", ""))  # of it, with '+'
        if _better(metric) != "max" or node.get("mode") == "max" or "lightning" not in target \
                or not target.endswith(("EarlyStopping", "ModelCheckpoint")):
            return monitor
        return f"{monitor} {'' if 'mode' in node else '+'}callbacks.{name}.mode=max"

    fitting = [m for m in LOGGED_METRICS if not m.startswith("test/")]  # what a callback can monitor
    for name, node in (callbacks or {}).items():
        monitor = node.get("monitor") if OmegaConf.is_dict(node) else None
        if isinstance(monitor, str) and monitor.split("/")[0] in ("train", "val", "test") \
                and monitor not in LOGGED_METRICS:
            stem = monitor.replace("test/", "val/", 1)
            near = closest_names(stem, fitting) or [m for m in fitting if stem.startswith(m)][-1:]
            fix = (f"did you mean {near[0]}? Fix: {with_mode(name, node, near[0])}" if near else
                   f"Fix: choose one of {', '.join(fitting)}")
            raise ConfigError(f"callbacks.{name}.monitor={monitor} is not a metric of the run; {fix}")
        if isinstance(monitor, str) and monitor.startswith("test/"):
            instead = f"val/{monitor.removeprefix('test/')}"
            raise ConfigError(f"callbacks.{name}.monitor={monitor}: test/ metrics are logged only by the "
                              f"test after fitting, so the callback would find no {monitor} at the end of "
                              f"the first epoch. Fix: monitor a val/ or train/ metric, e.g. "
                              f"{with_mode(name, node, instead)}")
        mode = node.get("mode") if OmegaConf.is_dict(node) and monitor else None
        if mode is not None and mode not in ("min", "max"):
            raise ConfigError(f"callbacks.{name}.mode={mode!r} must be min or max, e.g. "
                              f"callbacks.{name}.mode=max for val/acc")
        wanted = _better(str(monitor))
        target = str(node.get("_target_", "")) if OmegaConf.is_dict(node) else ""
        if mode is None and monitor and wanted == "max" and "lightning" in target and target.endswith(
                ("EarlyStopping", "ModelCheckpoint")):  # pass 47, row 36 (major): before, EarlyStopping on
            plus = "" if "mode" in node else "+"  # val/acc stopped the run as the accuracy rose, exit 0
            cls = target.rsplit(".", 1)[-1]
            raise ConfigError(f"callbacks.{name}.monitor={monitor} without a mode: {cls}'s default is "
                              f"mode=min, which takes a falling {monitor} as the better (it would stop or "
                              f"keep on the worst epochs). Fix: {plus}callbacks.{name}.mode=max")
        if mode is not None and wanted is not None and mode != wanted:
            raise ConfigError(f"callbacks.{name}.monitor={monitor} with mode={mode} would keep the worst "
                              f"epoch as the best. Fix: callbacks.{name}.mode={wanted}")


def _better(metric: str) -> str | None:
    """The mode under which ``metric`` improves: ``min`` for a loss, ``max`` for an accuracy."""
    return {"loss": "min", "acc": "max"}.get(metric.rsplit("/", 1)[-1].split("_")[0])


def check_lr_shown(callbacks: DictConfig | None, loggers: DictConfig | None) -> None:
    """Raises ConfigError when an epoch line is to show ``train/lr`` (``callbacks.epoch_log.keys``)
    and no learning-rate monitor logs it: ``logger=none`` switches ``callbacks.lr_monitor`` off (it
    needs a logger). Before, one warning after the first epoch, without the cause (pass 57, row 74)."""
    nodes = {name: node for name, node in (callbacks or {}).items() if OmegaConf.is_dict(node)}
    if any(str(node.get("_target_", "")).endswith("LearningRateMonitor") for node in nodes.values()):
        return
    for name, node in nodes.items():
        keys = node.get("keys") if str(node.get("_target_", "")).endswith("EpochLogger") else None
        if keys is not None and "train/lr" in (OmegaConf.to_container(keys) if OmegaConf.is_list(keys)
                                               else [keys]):
            why, fix = (("logger=none switches it off (it needs a logger)", "add a logger (e.g. logger=csv)")
                        if not loggers else ("this run has none", "put callbacks.lr_monitor back"))
            raise ConfigError(f"callbacks.{name}.keys: train/lr is logged by the learning-rate monitor "
                              f"(callbacks.lr_monitor), and {why}, so no epoch line could show it. Fix: "
                              f"leave train/lr out, or {fix}")


def check_summary_depth(callbacks: DictConfig | None) -> None:
    """Raises ConfigError for a Lightning model summary (``ModelSummary``, ``RichModelSummary``) whose
    ``max_depth`` Lightning refuses (an integer >= -1), which it did with a traceback at the fit's start
    (pass 48, row 4)."""
    for name, node in (callbacks or {}).items():
        if not OmegaConf.is_dict(node) or not str(node.get("_target_", "")).endswith("ModelSummary"):
            continue
        depth = node.get("max_depth", 1)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < -1:
            raise ConfigError(f"callbacks.{name}.max_depth={depth!r} must be an integer >= -1 (-1: every "
                              f"layer, 0: no summary, 1: the top-level modules), e.g. callbacks.{name}."
                              f"max_depth=1")


def check_progress_bars(callbacks: DictConfig | None) -> None:
    """Raises ConfigError for two progress bars among the callbacks (``+callbacks.tqdm._target_=
    lightning.pytorch.callbacks.TQDMProgressBar`` beside the presets' ``rich_progress_bar``): Lightning
    takes one, and refuses the second on a terminal only (off one, highwaylab shows none), so that
    such a run failed on a terminal after its parts were built, naming neither key (pass 97, row 01t)."""
    from hydra.utils import get_class

    bars = []
    for name, node in (callbacks or {}).items():
        if not OmegaConf.is_dict(node) or not isinstance(target := node.get("_target_"), str):
            continue
        if target.startswith(("lightning.pytorch.callbacks.", "highwaylab.")):  # known: no import
            if target.endswith("ProgressBar"):
                bars.append(f"callbacks.{name}")
            continue
        try:  # a callback of one's own: a subclass of Lightning's bar?
            from lightning.pytorch.callbacks import ProgressBar

            if issubclass(get_class(target), ProgressBar):
                bars.append(f"callbacks.{name}")
        except Exception:  # noqa: BLE001 -- a target that does not import: its own check names it
            continue
    if len(bars) > 1:
        keep = bars[-1]
        raise ConfigError(f"{' and '.join(bars)} are each a progress bar, and Lightning shows one. Fix: keep "
                          f"one, e.g. {' '.join(f'{b}=null' for b in bars if b != keep)} to show {keep}")


def check_checkpoint_files(callbacks: DictConfig | None) -> None:
    """Raises ConfigError when the best checkpoint (a ``ModelCheckpoint``) and the latest
    (``LatestCheckpoint``, ``last.ckpt``) would be one file: a ``filename`` of the same name in the
    same folder (the latest overwrites the best, and the test runs on the last epoch's weights), or
    ``save_last=true`` (two writers of ``last.ckpt``: Lightning writes ``last-v1.ckpt``)."""
    nodes = {name: node for name, node in (callbacks or {}).items() if OmegaConf.is_dict(node)}
    for name, node in nodes.items():  # pass 44, rows 59 and 61: before, the checkpoints went to the
        dirpath = node.get("dirpath") if "dirpath" in node else None  # folder where the command was typed
        if isinstance(dirpath, str) and not dirpath.strip():
            raise ConfigError(f"callbacks.{name}.dirpath='{dirpath}' is empty, so the checkpoints would go "
                              f"to the folder where the command is typed, outside the run. Fix: leave that "
                              f"override out (the default is the run's checkpoints/), or give a folder")
    best = {n: c for n, c in nodes.items() if str(c.get("_target_", "")).endswith(".ModelCheckpoint")}
    latest = {n: c for n, c in nodes.items() if str(c.get("_target_", "")).endswith(".LatestCheckpoint")}
    keeps = (f"callbacks.{next(iter(latest))} saves the run's state when a signal stops it (SIGTERM, "
             f"SIGINT), for resume=, and" if latest else "highwaylab's latest checkpoint (callbacks="
             "minimal or default) saves the run's state when a signal stops it, and")
    for name, node in nodes.items():  # pass 97, rows 05-05c (major): a diverged run saved on_exception.ckpt,
        # "none written yet" said beside it, and resume= continued from it, to diverge again at once
        if str(node.get("_target_", "")).endswith(".OnExceptionCheckpoint"):
            raise ConfigError(f"callbacks.{name} (Lightning's OnExceptionCheckpoint) saves the state at any "
                              f"exception, a NaN loss or a bad batch included, which resume= would continue "
                              f"from, into the same failure; {keeps} a run that fails says why and how to go "
                              f"on. Fix: leave callbacks.{name} out")
    for name, node in best.items():
        if node.get("save_on_exception"):  # pass 96, rows 37b-37f (major): a NaN loss saved as
            # epoch_000.ckpt, "none written yet" said beside it, and resume= offered it, which diverged again
            raise ConfigError(f"callbacks.{name}.save_on_exception={str(node.save_on_exception).lower()} "
                              f"saves the state at any exception, a NaN loss or a bad batch included, under "
                              f"a best checkpoint's name ({node.get('filename')}.ckpt), where resume= and "
                              f"the test would take it for one; {keeps} a run that fails says why and how to "
                              f"go on. Fix: leave callbacks.{name}.save_on_exception out")
        for other, last in latest.items():
            if node.get("save_last"):
                raise ConfigError(f"callbacks.{name}.save_last={node.save_last}: callbacks.{other} writes "
                                  f"last.ckpt already, and two writers make Lightning write last-v1.ckpt. "
                                  f"Fix: callbacks.{name}.save_last=false")
            same_folder = node.get("dirpath") == last.get("dirpath") or last.get("dirpath") is None
            last_name = str(last.get("filename", "last"))
            if same_folder and str(node.get("filename")) == last_name:
                raise ConfigError(f"callbacks.{name}.filename={node.filename} is the file of "
                                  f"callbacks.{other} ({last_name}.ckpt, the latest state): the best "
                                  f"checkpoint would be overwritten by the latest, and the test would run on "
                                  f"the last epoch's weights. Fix: another name, e.g. "
                                  f"callbacks.{name}.filename=best")
            pattern = _filename_pattern(str(node.get("filename")))
            if same_folder and pattern is not None and re.fullmatch(pattern, last_name):
                raise ConfigError(f"callbacks.{other}.filename={last_name} is a name that callbacks.{name} "
                                  f"gives its best checkpoints ({node.filename}.ckpt): the latest state "
                                  f"would overwrite a best checkpoint, and the test would run on another "
                                  f"epoch's weights. Fix: another name, e.g. callbacks.{other}.filename=last")


# ModelCheckpoint's saves during training, and the option of LatestCheckpoint that saves so instead
STEP_SAVES = {"every_n_train_steps": "every_n_train_steps=<steps>",
              "train_time_interval": "every_n_minutes=<minutes>"}


def check_best_checkpoint_saves(callbacks: DictConfig | None) -> None:
    """Raises ConfigError for a ``ModelCheckpoint`` that monitors a validation metric (``val/acc``) and
    saves during training (``every_n_train_steps`` other than 0 or null, or ``train_time_interval``):
    it saves at a training batch's end, before the validation logs the metric, so no best checkpoint is
    written before the first validation (the test then runs on the final weights) and each later one
    is scored by the previous validation. The latest state inside long epochs is ``LatestCheckpoint``'s
    (``callbacks.last_checkpoint.every_n_train_steps``, ``every_n_minutes``)."""
    from highwaylab.utils.loggers import cli_text

    nodes = {name: node for name, node in (callbacks or {}).items() if OmegaConf.is_dict(node)}
    latest = next((n for n, c in nodes.items() if str(c.get("_target_", "")).endswith(".LatestCheckpoint")),
                  "last_checkpoint")
    for name, node in nodes.items():
        monitor = node.get("monitor")
        if not str(node.get("_target_", "")).endswith(".ModelCheckpoint") or monitor not in LOGGED_METRICS \
                or not str(monitor).startswith("val/"):  # train/loss_step is there at every batch
            continue
        for key, instead in STEP_SAVES.items():
            value = node.get(key)
            if value is None or (key == "every_n_train_steps" and value == 0):  # Lightning's "off"
                continue
            shown = cli_text(value)  # train_time_interval: a datetime.timedelta node
            raise ConfigError(f"callbacks.{name}.{key}={shown}: saves the best checkpoint during training, "
                              f"before the validation logs {monitor}, so none is written before the first "
                              f"validation (the test would run on the final weights) and each is scored by "
                              f"the previous validation. Fix: leave callbacks.{name}.{key} out (the best is "
                              f"chosen at each validation); for the latest state inside long epochs, "
                              f"callbacks.{latest}.{instead}")


def _filename_pattern(template: str) -> str | None:
    """A regular expression for the names a ``ModelCheckpoint`` ``filename`` template gives
    (``epoch_{epoch:03d}``: ``epoch_`` and anything); ``None`` for a name without a placeholder."""
    parts = re.split(r"\{[^{}]*\}", template)
    return ".+".join(re.escape(part) for part in parts) if len(parts) > 1 else None


def check_paths_and_optim(cfg: DictConfig) -> None:
    """Raises ConfigError for an empty ``paths.root_dir`` or ``paths.log_dir`` (the runs would go to
    ``/runs`` at the file system's root), a ``HIGHWAYLAB_ROOT`` that starts with ``~``
    (:func:`tilde_root`), an ``optim.optimizer`` that is not a ``_partial_`` node with a
    ``_target_`` (``optim.optimizer=null``, ``_partial_=false``: the module builds it with the
    network's parameters), an ``optim.scheduler`` that is neither ``null`` nor such a node, and the
    Trainer switches that need other groups too: ``trainer.barebones=true`` (no ``self.log``: no
    metric is recorded, so it is refused) and ``trainer.enable_checkpointing=false`` (no checkpoint
    callbacks), a
    ``trainer.logger`` or ``trainer.callbacks`` (``TRAINER_FROM_GROUPS``: the ``logger`` and
    ``callbacks`` groups build them, in their place), and a ``trainer.max_time`` in none of
    Lightning's forms (:func:`max_time_problem`)."""
    from highwaylab.utils.loggers import cli_text

    root = OmegaConf.select(cfg, "paths.root_dir", default=None)
    if root is not None and not str(root).strip():
        raise ConfigError("paths.root_dir is empty (the environment variable HIGHWAYLAB_ROOT is set but "
                          "empty?), so the runs would be written to /outputs at the file system's root. Fix: "
                          "unset HIGHWAYLAB_ROOT (train.py sets it to its folder) or set it to a folder")
    if root is not None and (problem := tilde_root(str(root))) is not None:
        raise ConfigError(problem)
    for name in ("HIGHWAYLAB_ROOT", "HIGHWAYLAB_DATA_DIR"):  # pass 32, row 41: "Data file missing:
        value = os.environ.get(name, "")  # /work/shared/data /MNIST/raw/...", the space not pointed at
        if value.strip() and value != value.rstrip() and not os.path.exists(value):
            end = {"\n": "a newline", "\t": "a tab", "\r": "a carriage return"}.get(value[-1], "a space")
            raise ConfigError(f"{name}={value!r} (from the environment) ends with {end}, which is part "
                              f"of the folder's name, and no such folder exists. Fix: set "
                              f"{name}={value.rstrip()}")
        if value.strip() and value != value.lstrip() and not os.path.exists(value):  # pass 92, row 29:
            # ' /work/shared/data', read as a folder ' ' in the current one; before, "Data file missing:
            # <cwd>/ /work/shared/data/MNIST/raw/...", the space not pointed at
            raise ConfigError(f"{name}={value!r} (from the environment) begins with a space, which makes it "
                              f"a relative folder, read from {os.getcwd()}, and no such folder exists. Fix: "
                              f"set {name}={value.strip()}")
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
            example = ("torch.optim.SGD" if key == "optim.optimizer" else  # pass 49, row 35: before, SGD
                       "torch.optim.lr_scheduler.StepLR +optim.scheduler.step_size=30")  # for a scheduler too
            none = (f"; for no scheduler, {key}=null (a constant learning rate)" if key == "optim.scheduler"
                    and str(node).strip().lower() in ("none", "null", "off", "false", "no", "") else "")
            raise ConfigError(f"{key}={node!r}: a run needs {what} given by a _target_ (e.g. "
                              f"{key}._target_={example}). Fix: choose an optim preset (optim=sgd, "
                              f"sgd_step or adamw) and change its arguments{none}")  # pass 57, row 83
        if (problem := module_target(key, node.get("_target_"), what)) is not None:
            raise ConfigError(problem)
        if key == "optim.optimizer" and (problem := adam_momentum(node)) is not None:
            raise ConfigError(problem)
        if key == "optim.optimizer" and (problem := optimiser_mode(node, cfg.get("trainer"))) is not None:
            raise ConfigError(problem)
        if "_partial_" not in node:  # an option of one's own without it (pass 67, row 37: before,
            # "_partial_=None must stay true. Fix: optim.optimizer._partial_=true", which Hydra refuses)
            raise ConfigError(f"{key} has no _partial_: true, and the module builds the "
                              f"{key.rsplit('.', 1)[1]} itself, with the network's parameters. Fix: add "
                              f"_partial_: true under {key.rsplit('.', 1)[1]} in the option's file, or "
                              f"+{key}._partial_=true")
        if node.get("_partial_") is not True:  # pass 70, row 11: the value as typed; what each is built with
            from highwaylab.utils.loggers import cli_text

            what = key.rsplit(".", 1)[1]
            inputs = "the network's parameters" if what == "optimizer" else "the optimiser it builds first"
            raise ConfigError(f"{key}._partial_={cli_text(node.get('_partial_'))} must stay true: the module "
                              f"builds the {what} itself, with {inputs}. Fix: {key}._partial_=true")
        if key == "optim.optimizer" and str(node.get("_target_")).endswith(".SparseAdam"):
            raise ConfigError(f"optim.optimizer._target_={node.get('_target_')} needs sparse gradients "
                              f"(nn.Embedding(sparse=True)), and these networks' are dense: it fails at the "
                              f"first step. Fix: torch.optim.Adam, or optim=adamw")
        if key == "optim.optimizer" and "lr" not in node:  # ~optim.optimizer.lr: torch's own default
            raise ConfigError("optim.optimizer.lr is missing (removed by ~optim.optimizer.lr?): the run "
                              "would train at the optimiser's own default rate, which no record names. Fix: "
                              "leave ~optim.optimizer.lr out, or give optim.optimizer.lr=<rate>")
        for name, value in node.items():  # the module checks them again, with the target's defaults
            if name in BOOL_ARGS and not isinstance(value, bool) \
                    and not (value is None and name in BOOL_OR_NULL_ARGS):
                null = " (or null: torch's choice)" if name in BOOL_OR_NULL_ARGS else ""
                raise ConfigError(f"{key}.{name}={value!r} must be true or false{null}, "
                                  f"e.g. {key}.{name}=false")
            # the example apart from the sentence's period (pass 90, row 04: before, "e.g.
            # optim.optimizer.lr=0.1." for lr=.1., whose copy kept the stray period)
            hint = f" Fix: e.g. {key}.{name}={OPTIM_EXAMPLES[name]}" if name in OPTIM_EXAMPLES else ""
            if name not in NUMERIC_ARGS or value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ConfigError(f"{key}.{name}={value!r} must be a number.{hint}")
            if not math.isfinite(value):
                raise ConfigError(f"{key}.{name}={value!r} must be finite.{hint}")
            # torch takes it (pass 49, row 33b, major: before, train/lr fell to -0.75, the loss rose to 1.6e8)
            if key == "optim.scheduler" and name in RATE_ARGS and value < 0:
                raise ConfigError(
                    f"{key}.{name}={value!r} is negative, so the scheduler would make the learning rate "
                    f"negative (gradient ascent: the loss rises). Fix: {key}.{name}=0 or a small positive "
                    f"{'rate' if name in ('eta_min', 'base_lr', 'max_lr') else 'factor'}")
    check_weight_decay(OmegaConf.select(cfg, "optim.optimizer", default=None))
    check_cosine_floor(cfg)
    trainer = cfg.get("trainer") or {}
    if trainer.get("barebones") is True:  # pass 58, row 60: before, logger=none callbacks=none, then two
        # more fixes, one at a time, and the run that ran recorded no metric while its log quoted test/*
        raise ConfigError("trainer.barebones=true turns Lightning's self.log off (and refuses loggers, "
                          "callbacks, log_every_n_steps and the sanity check), so the run would record no "
                          "train/, val/ or test/ metric: metrics.json without results, and no analysis. Fix: "
                          "leave trainer.barebones out (for a lean run: callbacks=minimal logger=none)")
    for key, (built_from, fix) in TRAINER_FROM_GROUPS.items():  # train.build passes them to the Trainer
        if key in trainer:
            value = trainer[key]
            shown = cli_text(value)
            raise ConfigError(f"trainer.{key}={shown}: the run's {built_from} are built from the {key} group "
                              f"and given to the Trainer in place of this value, which would be ignored. "
                              f"Fix: leave trainer.{key} out; {fix}")
    writers = ("ModelCheckpoint", "LatestCheckpoint")
    checkpoints = [name for name, node in (cfg.get("callbacks") or {}).items()
                   if OmegaConf.is_dict(node) and str(node.get("_target_", "")).endswith(writers)]
    if trainer.get("enable_checkpointing") is False and checkpoints:
        removed = " ".join(f"~callbacks.{name}" for name in checkpoints)
        raise ConfigError(f"trainer.enable_checkpointing=false, but the callbacks write checkpoints "
                          f"({', '.join(checkpoints)}). Fix: leave trainer.enable_checkpointing out and "
                          f"remove them: {removed} (resume= then has no last.ckpt)")
    if (problem := max_time_problem(trainer.get("max_time"), _as_typed("trainer.max_time"),
                                    trainer.get("min_epochs"))) is not None:
        raise ConfigError(problem)


def check_cosine_floor(cfg: DictConfig) -> None:
    """Raises ConfigError for a cosine scheduler (``CosineAnnealingLR``,
    ``CosineAnnealingWarmRestarts``) whose ``eta_min``, the rate it decays to, lies above the rate it
    starts from, ``optim.optimizer.lr``: the "decay" would then raise the rate (pass 66, row 02:
    ``optim=adamw +optim.scheduler.eta_min=1`` took lr 0.001 to 0.5 in one epoch, the loss to 1957, in
    silence)."""
    scheduler = OmegaConf.select(cfg, "optim.scheduler", default=None)
    lr = OmegaConf.select(cfg, "optim.optimizer.lr", default=None)
    if not OmegaConf.is_dict(scheduler) or "CosineAnnealing" not in str(scheduler.get("_target_")):
        return
    floor = scheduler.get("eta_min")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (floor, lr))
    if numbers and floor > lr:
        raise ConfigError(f"optim.scheduler.eta_min={floor} is above the learning rate the cosine schedule "
                          f"starts from (optim.optimizer.lr={lr}), so it would raise the rate to {floor} in "
                          f"place of lowering it. Fix: an eta_min below the learning rate, e.g. "
                          f"{lr / 100:g} (or leave it out: torch's default is 0)")


def check_weight_decay(node: Any) -> None:
    """Raises ConfigError for a weight decay that scales the weights by ``1 - lr * weight_decay <= 0``
    at each step: SGD's ``p -= lr * (g + weight_decay * p)`` and AdamW's (or Adam's with
    ``decoupled_weight_decay``) ``p *= 1 - lr * weight_decay`` then flip the weights' sign and grow
    them until the loss is NaN, whatever the learning rate's own size (pass 54, row 7, major: before,
    the NaN line's "Fix: lower optim.optimizer.lr", which failed the same way at a tenth of it)."""
    if not OmegaConf.is_dict(node):
        return
    lr, decay = node.get("lr"), node.get("weight_decay")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (lr, decay))
    target = str(node.get("_target_", ""))
    scaled = target.endswith((".SGD", ".AdamW")) or node.get("decoupled_weight_decay") is True
    if not numbers or not scaled or lr * decay < 1:
        return
    power = math.log10(decay) if decay > 1 else 0.0
    lost = f" (or {1 / decay:g}, if the exponent lost its minus sign)" if power == round(power) != 0 else ""
    raise ConfigError(f"optim.optimizer.weight_decay={decay:g} with optim.optimizer.lr={lr:g}: each step "
                      f"scales the weights by 1 - lr x weight_decay = {1 - lr * decay:g}, which flips their "
                      f"sign and grows them until the loss is NaN. Fix: a small weight decay, e.g. "
                      f"optim.optimizer.weight_decay=5e-4{lost}")


# the fields of datetime.timedelta: the keys of Lightning's mapping form of trainer.max_time
TIMEDELTA_FIELDS = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")


def max_time_problem(max_time: Any, typed: str = "trainer.max_time", min_epochs: Any = None) -> str | None:
    """The message for a ``trainer.max_time`` in none of the forms that Lightning's Trainer takes
    (``Timer(duration=...)``): a string ``DD:HH:MM:SS`` (hours, minutes and seconds of two digits), a
    mapping of ``datetime.timedelta``'s fields (``'trainer.max_time={minutes: 1}'``: numbers >= 0),
    or a ``datetime.timedelta`` node (``_target_``: :func:`highwaylab.trainer_checks.check_durations`
    checks its fields); ``None`` for one of them, or null. A bare number (``trainer.max_time=5``) has
    no unit: before, Lightning's "'int' object has no attribute 'total_seconds'" after the loggers
    had started. The examples write the key as the command line gave it (``typed``: with its ``+``,
    which the trainer configs need, having no ``max_time``; before, the fixes lacked it and were
    refused, new-user pass 32). With ``min_epochs`` of 1 or more (the preset's), each example adds
    ``trainer.min_epochs=0``, which :func:`highwaylab.trainer_checks.check_schedule` asks of a run
    with a time limit (pass 68, rows 31-32: before, the example was refused in turn); a duration in
    another common form (``00:30:00``, ``30m``) is given in this one."""
    from highwaylab.utils.loggers import cli_text

    also = " trainer.min_epochs=0" if isinstance(min_epochs, int) and min_epochs >= 1 else ""
    forms = (f"must be a duration DD:HH:MM:SS, e.g. {typed}=00:12:00:00{also} (12 hours), or a mapping "
             f"of datetime.timedelta's fields, e.g. '{typed}={{hours: 12}}'{also}")
    if max_time is None or (OmegaConf.is_dict(max_time) and "_target_" in max_time):
        return None
    if isinstance(max_time, str):
        if _is_duration(max_time):
            return None
        if (meant := _meant_duration(max_time)) is not None:
            return (f"trainer.max_time={max_time!r} must be a duration DD:HH:MM:SS; did you mean "
                    f"{typed}={meant[0]}{also} ({meant[1]})?")
        return f"trainer.max_time={max_time!r} {forms}"
    if OmegaConf.is_dict(max_time):
        for key, value in max_time.items():
            if key not in TIMEDELTA_FIELDS:
                return (f"trainer.max_time.{key} is not a field of datetime.timedelta: use one of "
                        f"{', '.join(TIMEDELTA_FIELDS)}, e.g. '{typed}={{minutes: 30}}'{also}")
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                    or value < 0:
                return (f"trainer.max_time.{key}={cli_text(value)} must be a number >= 0, e.g. "
                        f"'{typed}={{{key}: 30}}'{also}")
        return None
    if isinstance(max_time, int | float) and not isinstance(max_time, bool):  # a number without its unit
        return (f"trainer.max_time={max_time} has no unit. Fix: a duration DD:HH:MM:SS (e.g. "
                f"{typed}=00:12:00:00{also}, 12 hours) or a mapping of datetime.timedelta's fields (e.g. "
                f"'{typed}={{minutes: {max_time}}}'{also} for {max_time} minutes)")
    shown = cli_text(max_time)
    return f"trainer.max_time={shown} {forms}"


UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}  # a duration's units, by their first letter


def _meant_duration(text: str) -> tuple[str, str] | None:
    """``text`` in Lightning's ``DD:HH:MM:SS`` and in words, for a duration in another common form:
    ``HH:MM:SS`` (``00:30:00``), one digit where Lightning takes two (``0:1:0:0``), or a number and a
    unit (``30m``, ``2h``, ``90 s``, ``1day``); ``None`` for anything else."""
    clock = re.fullmatch(r"(?:(\d{1,2}):)?(\d{1,2}):([0-5]?\d):([0-5]?\d)", text.strip())
    unit = re.fullmatch(r"(\d+)\s*(d|days?|h|hrs?|hours?|m|mins?|minutes?|s|secs?|seconds?)",
                        text.strip().lower())
    if clock is not None:
        seconds = int(clock[1] or 0) * 86400 + int(clock[2]) * 3600 + int(clock[3]) * 60 + int(clock[4])
    elif unit is not None:
        seconds = int(unit[1]) * UNITS[unit[2][0]]
    else:
        return None
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    words = ", ".join(f"{n} {name}{'s' if n != 1 else ''}" for n, name in
                      ((days, "day"), (hours, "hour"), (minutes, "minute"), (secs, "second")) if n)
    return f"{days:02d}:{hours:02d}:{minutes:02d}:{secs:02d}", words or "0 seconds"


def _as_typed(key: str) -> str:
    """``key`` as this run's command line gave it, with its ``+`` or ``++`` (``+trainer.max_time``), so
    that a fix that repeats it works; ``key`` itself when no override names it, or outside a Hydra run."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return key
    typed = (o.split("=", 1)[0] for o in HydraConfig.get().overrides.task if "=" in o)
    return next((t for t in typed if t.lstrip("+") == key and not t.startswith("~")), key)


# the optimisers of torch.optim whose momentum terms are betas (beta1: the gradient's running mean)
ADAM_FAMILY = ("Adam", "AdamW", "NAdam", "RAdam", "Adamax", "SparseAdam")


def module_target(key: str, target: Any, what: str) -> str | None:
    """The message for a ``<key>._target_`` that names a module instead of a class
    (``optim.optimizer._target_=torch.optim.adam``, the file that defines ``Adam``; Hydra would raise
    its InstantiationException "not callable" once the run's folder is made), found on disk
    without importing the package (no torch here); with the class it probably meant, read from the
    module's source (``class Adam(``), as its package exports it where it does. ``None`` for any
    other target (a class, a typo: the module reports those when it builds them)."""
    import importlib.util
    from pathlib import Path

    from highwaylab.utils.hydra_utils import did_you_mean

    if not isinstance(target, str) or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", target):
        return None
    top, *parts = target.split(".")
    try:
        spec = importlib.util.find_spec(top)  # a top-level name: found, not imported
    except (ImportError, ValueError):
        return None
    folders = [Path(f) for f in (spec.submodule_search_locations or [])] if spec else []
    source, package_init = None, None
    for i, part in enumerate(parts):
        found = next((f / part for f in folders if (f / part / "__init__.py").is_file()), None)
        last = i == len(parts) - 1
        if found is not None:
            package_init = found / "__init__.py" if not last else package_init
            source, folders = (found / "__init__.py" if last else None), [found]
            continue
        file = next((f / f"{part}.py" for f in folders if (f / f"{part}.py").is_file()), None)
        if file is None or not last:
            return None
        source = file
    if source is None:
        return None
    parent = target.rsplit(".", 1)[0]
    try:
        classes = re.findall(r"^class (\w+)\(", source.read_text(errors="replace"), flags=re.M)
        exported = package_init.read_text(errors="replace") if package_init is not None else ""
    except OSError:
        return None
    public = [c for c in classes if not c.startswith("_")]
    name = target.rsplit(".", 1)[1]
    same = next((c for c in public if c.lower() == name.lower()), None)
    meant = f"; did you mean {target}.{same}" if same else did_you_mean(name, public, prefix=f"{target}.")
    if same and re.search(rf"\b{same}\b", exported):
        meant = f"; did you mean {parent}.{same}"  # as the package exports it: torch.optim.Adam
    meant = meant.rstrip("?") + "?" if meant else "."
    names = ", ".join(f"{target}.{c}" for c in public[:4]) + (", ..." if len(public) > 4 else "")
    listed = f" (it defines {names})" if public and meant == "." else ""
    kind = what.replace(", or null,", "")
    return (f"{key}._target_={target} is a module, not {kind} class{meant} Fix: name the class "
            f"itself{listed}, or choose an optim preset (optim=sgd, sgd_step or adamw)")


def adam_momentum(node: DictConfig) -> str | None:
    """The message for ``optim.optimizer.momentum`` given to an optimiser of the Adam family
    (``optim=adamw optim.optimizer.momentum=0.9``), which has no such argument: its momentum terms
    are ``betas``; before torch loads (the module checks every argument against the class's own
    signature too, :func:`highwaylab.module.classifier.check_optim_args`). ``None`` otherwise."""
    target = str(node.get("_target_"))
    name = target.rsplit(".", 1)[-1]
    if "momentum" not in node or not target.startswith("torch.optim.") or name not in ADAM_FAMILY:
        return None
    return (f"optim.optimizer.momentum={node.get('momentum')}: {target} has no momentum argument: its "
            f"momentum terms are optim.optimizer.betas=[beta1,beta2] (beta1, the running mean of the "
            f"gradient, plays momentum's part; default [0.9,0.999]). Fix: leave momentum out "
            f"(~optim.optimizer.momentum when a preset sets it), e.g. optim.optimizer.betas=[0.9,0.999]; "
            f"for SGD with momentum, optim=sgd")


def optimiser_mode(node: DictConfig, trainer: Any) -> str | None:
    """The message for an optimiser switch that this training loop cannot run (breaking pass 65, rows
    34-35: each passed, then torch failed at the first step with a traceback): ``differentiable=true``
    (the step as part of autograd, for meta-learning: torch refuses it on leaf parameters) and
    ``capturable=true`` off a GPU (the state kept on the GPU for CUDA graphs: torch asserts against a
    CPU run); ``None`` otherwise."""
    from highwaylab.utils.hardware import nvidia_gpu_here

    if node.get("differentiable") is True:
        return ("optim.optimizer.differentiable=true makes the optimiser's step part of autograd (for "
                "meta-learning), which torch refuses on the network's own (leaf) parameters at the first "
                "step. Fix: leave it out (or optim.optimizer.differentiable=false)")
    accelerator = str((trainer or {}).get("accelerator", "auto")).lower() if trainer is not None else "auto"
    gpu = accelerator in ("gpu", "cuda") or (accelerator == "auto" and nvidia_gpu_here())
    if node.get("capturable") is True and not gpu:
        return (f"optim.optimizer.capturable=true keeps the optimiser's state on the GPU (for CUDA graphs), "
                f"and this run trains on the CPU (trainer.accelerator={accelerator}), where torch asserts "
                f"against it at the first step. Fix: leave it out (or optim.optimizer.capturable=false)")
    return None


def zero_rate_warning(cfg: DictConfig) -> str | None:
    """The warning for ``optim.optimizer.lr=0``: the weights never change, so the run measures its
    initial network throughout (a legitimate use: the analysis of an untrained net; as a slip, a run
    that trains all its epochs for nothing, in silence). ``None`` for any other rate."""
    if OmegaConf.select(cfg, "optim.optimizer.lr", default=None) != 0:
        return None
    return ("highwaylab: optim.optimizer.lr=0: the weights never change, so the run measures its initial "
            "network throughout (the analysis of an untrained net). To train, give a rate, e.g. "
            "optim.optimizer.lr=0.1")


def tilde_root(folder: str, where: str = "") -> str | None:
    """The message for ``folder`` (``paths.root_dir``, or a run's folder under it: ``where`` names
    it) when it starts with the environment's ``HIGHWAYLAB_ROOT`` and that starts with ``~``, which
    nothing expands (quoted in the shell: ``HIGHWAYLAB_ROOT='~/x'``); else ``None``."""
    root = os.environ.get("HIGHWAYLAB_ROOT", "")
    folder = str(folder)
    if not root.startswith("~") or not (folder == root or folder.startswith(root.rstrip("/") + "/")):
        return None
    home = f"$HOME{root[1:]}" if root == "~" or root.startswith("~/") else "/home/<user>/..."
    return (f"HIGHWAYLAB_ROOT='{root}' (from the environment{where}): ~ is not expanded (the shell expands "
            f"it only unquoted), so the runs would be written under a folder named '~' in {os.getcwd()}. "
            f"Fix: set HIGHWAYLAB_ROOT={home}")


def _is_duration(text: str) -> bool:
    """Lightning's ``max_time`` string: ``DD:HH:MM:SS`` (days, then two digits each), as its ``Timer``
    reads it."""
    return re.fullmatch(r"(\d+):(\d\d):(\d\d):(\d\d)", text.strip()) is not None


def check_seed(seed: Any, key: str = "seed", wraps: str = "") -> None:
    """Raises ConfigError, naming ``key``, unless ``seed`` is an integer in 0 .. 2**32 - 1 (what
    NumPy's generator, seeded by ``seed_everything``, accepts; torch's CPU generator, which draws
    ``data.split_seed``'s split, keeps the low 32 bits of its seed). ``wraps``: what an integer
    outside that range would draw instead, with ``{}`` for its value modulo 2**32."""
    integer = isinstance(seed, int) and not isinstance(seed, bool)
    if not integer or not 0 <= seed <= MAX_SEED:
        why = f" ({wraps.format(seed % 2**32)})" if wraps and integer else ""
        raise ConfigError(f"{key}={seed!r} must be an integer in 0 .. {MAX_SEED} (2**32 - 1){why}, "
                          f"e.g. {key}=0")


def check_choices_agree(cfg: DictConfig) -> None:
    """Raises ConfigError where ``data.dataset`` or ``model.block`` contradicts the group option chosen
    (``data=mnist data.dataset=cifar10``, ``model=highway model.block=plain``), or ``data=`` the data
    set of the ``experiment=`` (``experiment=paper_mnist_conv16 data=fashion_mnist``): the run's
    folder, name and tags carry the option's (or the experiment's) name, so the run would be filed
    under another data set or model."""
    chosen = _choice("data")
    dataset = OmegaConf.select(cfg, "data.dataset", default=None)
    if chosen in DATASETS and dataset is not None and dataset != chosen:
        fix = f"data={dataset} instead" if dataset in DATASETS else \
            f"leave data.dataset out (the data sets: {', '.join(DATASETS)})"
        raise ConfigError(f"data.dataset={dataset} contradicts data={chosen} (whose name the run's folder, "
                          f"name and tags carry). Fix: {fix}")
    experiment = _choice("experiment")
    wanted = _experiment_option(str(experiment), "data")[0] if experiment else None
    if wanted is not None and chosen is not None and chosen != wanted:
        model = _experiment_option(str(experiment), "model")[0] or _choice("model")
        raise ConfigError(f"data={chosen} contradicts experiment={experiment}, an experiment on "
                          f"data={wanted}: the run would train {chosen} under the experiment's name and "
                          f"tags. Fix: leave data={chosen} out, or run without the experiment (e.g. "
                          f"model={model} data={chosen})")
    if experiment and (optim := _optim_contradicts(str(experiment))) is not None:
        raise optim
    wanted_model = _experiment_option(str(experiment), "model")[0] if experiment else None
    if wanted_model is not None and _choice("model") not in (None, wanted_model) and \
            _experiment_names_run(str(experiment)):  # pass 30, row 66: a conv residual net as the gap run
        raise _model_contradicts(str(experiment), wanted_model, str(_choice("model")))
    if experiment and _experiment_names_run(str(experiment)):  # pass 54, row 48: before, a 386-parameter
        # net filed as paper_mnist_conv16 with the Table 1 tags, without a word
        stages = next((content["model"]["stages"] for content in _experiment_files(str(experiment))
                       if isinstance(content.get("model"), dict) and "stages" in content["model"]), None)
        given = OmegaConf.select(cfg, "model.stages", default=None)
        given = OmegaConf.to_container(given) if OmegaConf.is_list(given) else given
        if stages is not None and given != stages:
            raise ConfigError(f"model.stages replaces experiment={experiment}'s architecture (the paper's "
                              f"stages), and the run would be filed under the experiment's name and tags. "
                              f"Fix: leave model.stages out, or run without the experiment (e.g. "
                              f"model={wanted_model or _choice('model')} with the stages you want)")
    model_choice, block = _choice("model"), OmegaConf.select(cfg, "model.block", default=None)
    own_block = str(model_choice).removeprefix("conv_")
    if model_choice in MODEL_OPTIONS and block in ("highway", "plain", "residual") and block != own_block:
        option = f"{'conv_' if str(model_choice).startswith('conv_') else ''}{block}"
        raise ConfigError(f"model.block={block} contradicts model={model_choice} (whose name the run's "
                          f"folder, name and tags carry: a {block} net filed as {own_block}). Fix: "
                          f"model={option} instead")


EPOCH_COUNTS = {"MultiStepLR": "milestones", "StepLR": "step_size"}  # scheduler: its argument in epochs


def check_step_schedule(cfg: DictConfig) -> None:
    """Raises ConfigError for ``optim.scheduler_interval=step`` with a MultiStepLR's milestones (or a
    StepLR's step_size) still those of the ``optim=`` preset, which counts them in epochs
    (``optim=sgd_step``: [100, 150]): stepped per batch, the learning rate would decay at steps 100
    and 150, in the first epoch, without a word. Counts that the user set pass."""
    if OmegaConf.select(cfg, "optim.scheduler_interval", default="epoch") != "step":
        return
    scheduler = str(OmegaConf.select(cfg, "optim.scheduler._target_", default="")).rsplit(".", 1)[-1]
    key, choice = EPOCH_COUNTS.get(scheduler), _choice("optim")
    if scheduler == "ExponentialLR" and choice:
        _check_step_gamma(cfg, str(choice))
    value = OmegaConf.select(cfg, f"optim.scheduler.{key}", default=None) if key else None
    if value is None or not choice:
        return
    from highwaylab.utils.hydra_utils import preset_option

    preset = preset_option("optim", str(choice))
    scheduler_node = preset.get("scheduler")
    preset_value = scheduler_node.get(key) if isinstance(scheduler_node, dict) else None
    container = OmegaConf.to_container(value) if OmegaConf.is_config(value) else value
    if preset_value is None or container != preset_value:
        return
    example, first = ("[4000,6000]", container[0]) if key == "milestones" else ("4000", container)
    raise ConfigError(f"optim.scheduler.{key}={container} (optim={choice}'s, in epochs) would be counted in "
                      f"steps with optim.scheduler_interval=step: the learning rate would decay at step "
                      f"{first}, within the first epoch. Fix: give them in steps "
                      f"(optim.scheduler.{key}={example}) or leave scheduler_interval=epoch")


def _check_step_gamma(cfg: DictConfig, choice: str) -> None:
    """Raises ConfigError for an ExponentialLR whose ``gamma`` is still the ``optim=`` preset's, a
    factor per epoch (``optim=sgd``: 0.6), stepped per batch (``optim.scheduler_interval=step``): the
    rate would be multiplied by it at every step, to 0.1 x 0.6^430 = 1e-96 in the first epoch,
    without a word (pass 69, row 16). The fix gives the factor per step that makes the same decay per
    epoch, where the epoch's batches are known (:func:`highwaylab.utils.resume.train_batches`)."""
    from highwaylab.utils.hydra_utils import preset_option
    from highwaylab.utils.resume import train_batches

    gamma = OmegaConf.select(cfg, "optim.scheduler.gamma", default=None)
    scheduler_node = preset_option("optim", choice).get("scheduler")
    preset = scheduler_node.get("gamma") if isinstance(scheduler_node, dict) else None
    if preset is None or gamma != preset or not isinstance(gamma, int | float) or not 0 < gamma < 1:
        return
    lr = OmegaConf.select(cfg, "optim.optimizer.lr", default=None)
    batches = train_batches(cfg)
    steps = batches.count if batches is not None else None
    fall = (f": after one epoch's {steps} steps the rate would be {lr} x {gamma}^{steps} = "
            f"{lr * gamma ** steps:.1e}" if steps and isinstance(lr, int | float) else "")
    per_step = (f"optim.scheduler.gamma={gamma ** (1 / steps):.6g}, the same {gamma} per epoch over its "
                f"{steps} steps" if steps else "optim.scheduler.gamma=<factor per step>")
    raise ConfigError(f"optim.scheduler.gamma={gamma} (optim={choice}'s, a factor per epoch) would be "
                      f"applied at every step with optim.scheduler_interval=step{fall}. Fix: give a factor "
                      f"per step ({per_step}), or leave scheduler_interval=epoch")


def _optim_contradicts(experiment: str) -> ConfigError | None:
    """The error for an ``optim=`` other than the one ``experiment`` chooses, when the experiment sets
    values for its own optimiser (``experiment=paper_mnist_conv16 optim=adamw``: its SGD rate 0.05 and
    decay 0.85 applied to AdamW, without a word, under the experiment's name and tags; pass 58, rows
    95 and 108); ``None`` otherwise."""
    wanted, chosen = _experiment_option(experiment, "optim")[0], _choice("optim")
    if wanted is None or chosen in (None, wanted):
        return None
    values: list[str] = []

    def walk(prefix: str, node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}", value)
        else:
            values.append(f"{prefix}={node}")

    for content in _experiment_files(experiment):
        walk("optim", content.get("optim") or {})
    if not values:  # it sets none: the optimiser is the user's to choose
        return None
    model = _experiment_option(experiment, "model")[0] or _choice("model")
    return ConfigError(f"optim={chosen} contradicts experiment={experiment}, which sets {', '.join(values)} "
                       f"for its optim={wanted}: the run would train {chosen} with those values, under the "
                       f"experiment's name and tags. Fix: leave optim={chosen} out, or run without the "
                       f"experiment (e.g. model={model} optim={chosen})")


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
    if _experiment_names_run(experiment):  # dropping the key would file a {chosen} net under its name
        return _model_contradicts(experiment, wanted, chosen)
    drop = f", or drop the experiment's setting: ~{err.key}" if err.key != "model.stages" else ""
    return ConfigError(f"experiment={experiment} sets {err.key} for model={wanted}, which model={chosen} "
                       f"does not take. Fix: leave model={chosen} out (the experiment chooses "
                       f"model={wanted}){drop}")


def _model_contradicts(experiment: str, wanted: str, chosen: str) -> ConfigError:
    return ConfigError(f"model={chosen} contradicts experiment={experiment}, an experiment on "
                       f"model={wanted}: the run would train a {chosen} net under the experiment's name and "
                       f"tags. Fix: leave model={chosen} out, or run without the experiment (with "
                       f"model={chosen} and the settings you want)")


def _experiment_option(experiment: str, group: str) -> tuple[str | None, set[str]]:
    """The option that ``conf/experiment/<experiment>.yaml``, or a file of its defaults list (such as
    ``_paper_cifar``), chooses for ``group`` (``override /<group>: <option>``), or ``None``; and the
    keys those files set under ``<group>:``."""
    option, keys = None, set()
    for content in _experiment_files(experiment):  # the experiment's own file first
        keys |= set(content.get(group) or {})
        for entry in content.get("defaults") or []:
            if option is None and isinstance(entry, dict) and f"override /{group}" in entry:
                option = str(entry[f"override /{group}"])
    return option, keys


def nested_outputs_warning(cfg: DictConfig) -> str | None:
    """The warning for a ``HIGHWAYLAB_ROOT`` that is an ``outputs/`` folder itself: it names the folder
    that holds ``outputs/``, so the run goes to ``<it>/outputs/runs/...`` (pass 59, row 39:
    ``HIGHWAYLAB_ROOT=<checkout>/outputs`` wrote ``outputs/outputs/`` without a word); ``None`` otherwise,
    or where ``paths.log_dir`` or the run's folder is set elsewhere."""
    root = os.environ.get("HIGHWAYLAB_ROOT", "")
    if not root.strip() or os.path.basename(os.path.normpath(root)) != "outputs":
        return None
    nested = os.path.join(os.path.abspath(root), "outputs")
    output_dir = os.path.abspath(str(OmegaConf.select(cfg, "paths.output_dir", default="") or ""))
    if not (output_dir == nested or output_dir.startswith(nested + os.sep)):
        return None
    parent = os.path.dirname(os.path.abspath(root))
    return (f"HIGHWAYLAB_ROOT={root} (from the environment) is an outputs/ folder itself, but it names the "
            f"folder that holds outputs/, so this run is written to {output_dir} (outputs/ inside outputs/). "
            f"To write the runs to {os.path.abspath(root)}/runs/..., set HIGHWAYLAB_ROOT={parent}")


def replaced_tags_warning(cfg: DictConfig) -> str | None:
    """The warning for ``tags=...`` beside an ``experiment=`` whose file sets tags of its own: Hydra
    replaces the list, so the run loses the experiment's tags (pass 57, row 75: ``experiment=
    paper_mnist_depth tags=mine`` lost ``paper`` and ``mnist_depth`` without a word); ``None``
    otherwise."""
    experiment = _choice("experiment")
    if experiment is None:
        return None
    own = next((content["tags"] for content in _experiment_files(experiment)
                if isinstance(content.get("tags"), list)), [])
    tags = cfg.get("tags")
    listed = OmegaConf.to_container(tags) if OmegaConf.is_list(tags) else [tags] if tags else []
    given = [str(t) for t in listed]  # tags=mine: one tag
    lost = [str(t) for t in own if str(t) not in given]
    if not lost:
        return None
    shown = given[0] if len(given) == 1 else f"[{','.join(given)}]"
    keep = ",".join(dict.fromkeys([*map(str, own), *given]))
    return (f"tags={shown} replaces the tags of experiment={experiment} ({', '.join(map(str, own))}), so "
            f"the run lacks {', '.join(lost)}; to keep them, give them too: 'tags=[{keep}]'")


def _experiment_names_run(experiment: str) -> bool:
    """Whether ``experiment`` (or a file of its defaults list) names the run after itself
    (``run_name: ${hydra:runtime.choices.experiment}-s${seed}``: the paper's one-architecture
    experiments), so that a run of another model or data set would be filed under its name."""
    return any("choices.experiment" in str(content.get("run_name", ""))
               for content in _experiment_files(experiment))


def _experiment_files(experiment: str) -> list[dict]:
    """The contents of ``conf/experiment/<experiment>.yaml`` and of the files of its defaults list
    (such as ``_paper_cifar``), in that order; none when there is no such file."""
    import yaml
    from hydra.core.hydra_config import HydraConfig

    folders = [s.path.removeprefix("file://") for s in HydraConfig.get().runtime.config_sources
               if s.schema == "file"]
    paths = [os.path.join(folder, "experiment", f"{experiment}.yaml") for folder in folders]
    path = next((p for p in paths if os.path.isfile(p)), None)
    if path is None:
        return []
    with open(path, encoding="utf-8") as file:
        content = yaml.safe_load(file) or {}
    found = [content]
    for entry in content.get("defaults") or []:
        if isinstance(entry, str) and entry != "_self_":
            found += _experiment_files(entry)
    return found


def _choice(group: str) -> str | None:
    """The option chosen for ``group`` (``data=mnist``), when Hydra runs this process."""
    from hydra.core.hydra_config import HydraConfig

    return HydraConfig.get().runtime.choices.get(group) if HydraConfig.initialized() else None

