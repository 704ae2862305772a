"""Check the command line's overrides before Hydra reads them, so that a typo is answered with the
key it probably meant instead of Hydra's advice to append it.

Hydra answers ``trainer.max_epoch=3`` with "To append to your config use +trainer.max_epoch=3",
which then trains with the setting ignored (``+hydra.run.dirr=...``, ``+callbacks.gate_stat...``)
or fails later. :func:`check_overrides` composes the config as Hydra will (the first value of a
swept key stands for the sweep) and turns these faults into one :class:`OverrideError` line:

* a key the config does not have (``trainer.max_epoch=3``, ``hydra.sweeper.directon=...``): the
  closest key of that node (``did you mean trainer.max_epochs?``); or, for a key under one that a
  ``~`` of the same command line removes (``~trainer trainer.max_epochs=1``), that ``~``;
* a key added with ``+`` to one of Hydra's own typed nodes that has no such field
  (``+hydra.run.dirr=...``, which Hydra would accept and ignore);
* a config group set to null (``model=null``, ``logger=null``; Hydra: a traceback ending in "Config
  group override must be a string or a list"): its options, and its ``none`` option where it has one
  (``logger=none``) (:func:`_null_group`);
* ``run_name=null``, which would name the run's folder ``..._None_...`` (:func:`_null_run_name`);
* ``<key>:<value>`` for a config group or a key of the config (``model:highway``): the override
  with '=' (:func:`_colon`);
* an option of a list of options that does not exist (``logger=[wandb,tensorbord]``), with the
  options there are;
* a value Hydra's override grammar cannot read (``run_name=δοκιμή``, ``paths.log_dir=~/x``): how to
  quote it, and that Hydra does not expand ``~``; a list of values split by a space after a comma
  (``model=plain, residual,highway``): the list to write (:func:`_split_list`);
* an entry of a search space addressed through ``hydra.sweeper.params`` (its keys hold dots, which
  an override cannot address): the forms that work (:func:`_search_space_entry`);
* where a run writes that would mix runs up (:func:`_shared_folder`): ``paths.output_dir=`` (it
  follows Hydra's run folder: set, it splits the run in two), a multirun's ``hydra.sweep.subdir``
  without the job's number (every job in one folder), and ``WANDB_RUN_ID`` in the environment of a
  multirun (every job one W&B run).

A key given twice on a multirun's command line (``-m seed=0 seed=1``: Hydra keeps the last without a
word, and runs one job where two were meant) is refused by :func:`_given_once`; in a single run,
where a key appended to a copied command replaces the earlier one, it is one warning line.

An ``interval()`` outside an Optuna search (a single run, a plain ``-m`` sweep) is refused with the
search and a list of its ends. Anything else (an unknown single option ``model=foo``, a list,
``range()`` or ``choice()`` sweep without ``-m``) is left to Hydra, whose own message ("requires
--multirun") is clear.

:func:`check_command_line` runs these checks on ``train.py``'s command line and then, for a single
run, :func:`highwaylab.config_checks.validate` on the composed config: a refused command line is
answered before Hydra creates the run's folder, so it leaves no file behind. (The jobs of a
multirun are validated one by one, each recorded as failed while the sweep goes on.) No torch:
this runs in well under a second.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import math
import os
import re
import shlex
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import (
    ConfigAttributeError,
    ConfigIndexError,
    ConfigKeyError,
    ConfigTypeError,
    ValidationError,
)

from highwaylab.errors import ConfigError, WarningAsError
from highwaylab.utils.hydra_utils import closest_names, did_you_mean
from highwaylab.utils.shell_args import override_arg, shell_word

# Hydra's config groups, which an override chooses with a slash (hydra/job_logging=disabled)
# the run's config groups that choose one option (logger takes a list: logger=[wandb,csv])
ONE_OPTION_GROUPS = ("model", "data", "optim", "trainer", "paths", "experiment", "hparams_search", "debug")
HYDRA_GROUPS = ("hydra.job_logging", "hydra.hydra_logging", "hydra.launcher", "hydra.sweeper",
                "hydra.sweeper.sampler", "hydra.help", "hydra.hydra_help", "hydra.env", "hydra.output")


class OverrideError(ConfigError):
    """An override of the command line that Hydra would misread or refuse unclearly."""


# the arguments of the optim presets' optimisers (their __init__'s, past params), read here without importing
# torch; tests/test_config_checks.py compares them with the installed torch's
OPTIMIZER_ARGUMENTS = {
    "torch.optim.SGD": ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize", "foreach",
                        "differentiable", "fused"),
    "torch.optim.AdamW": ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize", "foreach",
                          "capturable", "differentiable", "fused"),
}
# other names of the optimisers' arguments (Keras', papers'): the argument they mean, and what it is
ARGUMENT_ALIASES = {"learning_rate": "lr", "learningrate": "lr", "wd": "weight_decay", "l2": "weight_decay"}
ALIAS_NAMES = {"lr": "learning rate", "weight_decay": "weight decay (L2 penalty)"}
# config nodes without a _target_ that the module reads key by key: a key added to them is read by nothing
READ_WHOLE = ("optim",)
# the --config-dir of the command line being checked (absolute), composed with as Hydra will: before,
# --config-dir <folder> model=mymodel was refused as "model has no option 'mymodel'" (pass 48, rows 23-24)
_CONFIG_DIRS: list[str] = []
_MISSING = object()  # OmegaConf.select's default for a key that the config lacks


def check_command_line(argv: list[str], config_dir: str | Path, config_name: str = "train") -> None:
    """:func:`_check_command_line`, composing with the command line's ``--config-dir`` while it runs."""
    try:
        _check_command_line(argv, config_dir, config_name)
    finally:
        _CONFIG_DIRS.clear()


def _check_command_line(argv: list[str], config_dir: str | Path, config_name: str = "train") -> None:
    """Check ``train.py``'s command line ``argv`` before Hydra runs it: its overrides
    (:func:`check_overrides`) and, for a single run, the composed config
    (:func:`highwaylab.config_checks.validate`). ``resume=`` command lines are checked by
    :mod:`highwaylab.utils.resume` instead; the ranks that a launcher starts beside the first, and a
    command line Hydra's parser refuses, are left alone.

    Raises:
        OverrideError: a faulty override (see the module's docstring), or two of Hydra's commands
            (``-m --cfg job``), which Hydra refuses with a traceback.
        ConfigError, DataError: what :func:`~highwaylab.config_checks.validate` raises.
    """
    from hydra.types import RunMode

    from highwaylab.utils.hydra_utils import quiet_args_parser
    from highwaylab.utils.out_paths import long_name_problem
    from highwaylab.utils.ranks import further_rank
    from highwaylab.utils.resume import NOT_A_RUN, check_name_lengths

    if further_rank():
        check_rank_variables()
        return  # its first rank checked the same command line
    for word in argv[1:]:  # before the flags are read: --cfg job<CR> is no choice of --cfg
        if (problem := _control_character(word) or _undecoded(word)) is not None:
            raise OverrideError(problem)
    try:
        args = quiet_args_parser().parse_args(argv[1:])
    except (ValueError, SystemExit):
        _flag_for_a_key(argv[1:], config_dir, config_name)  # --resume x: resume=x
        return
    _one_command(args)
    _no_rerun(args)
    if args.config_dir and (problem := long_name_problem("--config-dir ", args.config_dir)) is not None:
        raise OverrideError(problem)
    check_name_lengths(dict(o.split("=", 1) for o in args.overrides if "=" in o))  # before any path is used
    if args.config_dir and not Path(args.config_dir).expanduser().is_dir():  # before: Hydra's line, no fix
        raise OverrideError(f"--config-dir {args.config_dir}: no such folder. Fix: give the folder that "
                            f"holds your config groups (e.g. its model/ with your model's .yaml), or leave "
                            f"--config-dir out")
    _CONFIG_DIRS[:] = [str(Path(args.config_dir).expanduser().resolve())] if args.config_dir else []
    if _CONFIG_DIRS:
        _shadowed_files(Path(_CONFIG_DIRS[0]), Path(config_dir))
    if args.config_path and not str(args.config_path).startswith("pkg://") and not (
            folder := Path(config_dir).resolve().parent / Path(args.config_path).expanduser()).is_dir():
        # pass 48, row 25: before, Hydra's 3 lines ("Primary config directory not found")
        raise OverrideError(f"--config-path {args.config_path}: no such folder ({folder}; a relative path is "
                            f"read from train.py's folder). Fix: give the folder that holds your main config "
                            f"(with --config-name), or --config-dir <folder> to add your config groups to "
                            f"highwaylab's")
    if args.config_path and not str(args.config_path).startswith("pkg://") and not (
            folder / f"{str(args.config_name or config_name).removesuffix('.yaml')}.yaml").is_file():
        # pass 95, row 11: a folder of config groups given as --config-path; before, Hydra's 7 lines
        name = str(args.config_name or config_name).removesuffix(".yaml")
        mains = sorted(p.stem for p in folder.glob("*.yaml"))
        named = f" (its .yaml files: {', '.join(mains)}; choose one with --config-name)" if mains else ""
        groups = sorted(f"{d.name}/" for d in folder.iterdir() if d.is_dir() and not d.name.startswith("."))
        own = f" ({', '.join(groups)})" if groups else ""
        raise OverrideError(f"--config-path {args.config_path}: {folder} holds no {name}.yaml{named}; "
                            f"--config-path names the folder of the main config, which replaces "
                            f"highwaylab's. Fix: to add config groups of your own{own} to highwaylab's, "
                            f"--config-dir {shlex.quote(str(args.config_path))} in its place")
    if args.config_name and not args.config_path:  # pass 43, row 17: before, Hydra's 6 lines
        folders = [Path(config_dir)] + ([Path(args.config_dir).expanduser()] if args.config_dir else [])
        name = str(args.config_name).removesuffix(".yaml")
        if not any((folder / f"{name}.yaml").is_file() for folder in folders):
            mains = sorted({p.stem for folder in folders for p in folder.glob("*.yaml")})
            near = (difflib.get_close_matches(name, mains, n=1) or [config_name])[0]
            where = " or ".join(str(f) for f in folders)
            raise OverrideError(f"--config-name={args.config_name}: there is no {name}.yaml in {where} "
                                f"(its configs: {', '.join(mains) or 'none'}). Fix: --config-name={near}, or "
                                f"leave --config-name out for the main config, {config_name}.yaml")
    if any(getattr(args, name, None) for name in NOT_A_RUN):
        if args.help and (bare := next((o for o in args.overrides if "=" not in o and o.strip()
                                        and not o.startswith("~")), None)) is not None:
            # pass 79, row 53 (major): before, Hydra's OverrideParseException ("missing EQUAL"), 27 lines
            see = (f"to see an option's config: python train.py {bare}=<option> --cfg job"
                   if bare in _group_names(config_dir) else f"python train.py --cfg job shows {bare}'s value")
            raise OverrideError(f"--help {bare}: '{bare}' is not an override (key=value), and --help takes "
                                f"no topic: python train.py --help lists every group and its options; {see}")
        return
    check_warning_filters()  # PYTHONWARNINGS=error: Lightning's first notice would stop the run
    _option_file_names(list(args.overrides), args.config_dir, config_dir)
    check_thread_count()  # OMP_NUM_THREADS=abc: only libgomp's line, and every core is used
    check_trainer_variables()  # PL_TRAINER_FAST_DEV_RUN=1: a debug pass the record does not show
    check_plot_backend()  # MPLBACKEND of a notebook's: matplotlib's traceback as it is imported
    if (mode := next((o for o in args.overrides if _key(o) == "hydra.mode"), None)) is not None:
        # pass 76, rows 89, 95 (major): hydra.mode=MULTIRUN ran as a multirun that the checks, which read
        # -m, took for one run: seed=0 seed=1 ran seed=1 alone, hydra.run.dir was ignored, unsaid
        multi = "MULTIRUN" in mode.split("=", 1)[-1].upper()
        rest = " ".join(shlex.quote(o) for o in args.overrides if o != mode)
        fix = (f"leave {mode} out (-m makes the multirun)" if args.multirun else
               f"give -m in its place: python train.py -m {rest}" if multi else
               f"leave {mode} out (one run is the default; -m makes a multirun)")
        raise OverrideError(f"{mode}: Hydra's mode follows -m (a multirun) or its absence (one run), and "
                            f"highwaylab's checks of a multirun read -m. Fix: {fix}")
    searches = any(_key(o) == "hparams_search" for o in args.overrides)  # a search sets MULTIRUN itself
    # the user's own: resume= and the launchers add theirs later; a single run's warning of a key given
    # twice is printed once the overrides have passed (not before a refusal that contradicts it)
    twice = _given_once(list(args.overrides), bool(args.multirun) or searches)
    if (removed := next((o for o in args.overrides if o.startswith("~") and _key(o) == "resume"), None)):
        # before, Hydra's "Could not delete from config. 'resume' does not exist." (train.py takes resume
        # out of the overrides it hands on)
        raise OverrideError(f"{removed}: resume is null unless given (a new run), so there is nothing to "
                            f"remove. Fix: leave {removed} out")
    if args.config_path or args.config_name or any(_key(o) == "resume" for o in args.overrides):
        if not args.multirun and any(_key(o) == "resume" for o in args.overrides):
            _resume_sweep(list(args.overrides))
            launcher = next((o for o in args.overrides if _key(o) == "hydra/launcher"
                             and o.split("=", 1)[-1] not in ("basic", "null")), None)
            if launcher is not None:  # pass 71, row 55 (major): before, it trained here, no job submitted
                job = "python train.py " + " ".join(shlex.quote(o) for o in args.overrides if o != launcher)
                raise OverrideError(f"{launcher} launches the jobs of a multirun, and resume= continues one "
                                    f"run in this process: nothing would be submitted. Fix: leave {launcher} "
                                    f"out to continue it here; on the cluster, run it in a SLURM job: sbatch "
                                    f"--wrap {shlex.quote(job)}")
        _warn(twice)
        return
    cfg = check_overrides(list(args.overrides), config_dir, config_name)
    if cfg is None:
        return  # Hydra refuses it
    _check_logging(cfg, list(args.overrides))  # before Hydra configures it: logging.config's tracebacks
    from highwaylab.config_checks import check_package_lines

    check_package_lines(cfg, dict(cfg.hydra.runtime.choices))  # a multirun's too (its jobs: no validate)
    search = cfg.hydra.runtime.choices.get("hparams_search")
    if search is not None and not args.multirun and cfg.hydra.mode != RunMode.MULTIRUN:
        # pass 96, row 08 (major): a search file of one's own without hydra.mode: MULTIRUN; before, one
        # ordinary run, its trials and hydra.sweep.dir ignored without a word
        files = [Path(d) / "hparams_search" / f"{search}.yaml" for d in (*_CONFIG_DIRS, config_dir)]
        where = next((str(f) for f in files if f.is_file()), f"hparams_search/{search}.yaml")
        raise OverrideError(f"hparams_search={search}: {where} does not set hydra.mode: MULTIRUN "
                            f"(highwaylab's searches do), so without -m Hydra would run one ordinary run, "
                            f"not the search. "
                            f"Fix: add -m (python train.py -m ... hparams_search={search}), or add 'mode: "
                            f"MULTIRUN' under its hydra:")
    if not args.multirun and cfg.hydra.mode != RunMode.MULTIRUN:  # hparams_search sets the mode
        from hydra.core.override_parser.overrides_parser import OverridesParser

        for override in OverridesParser.create().parse_overrides(list(args.overrides)):
            if override.is_sweep_override() and not override.is_interval_sweep():  # interval: below
                raise OverrideError(_sweep_without_multirun(override, config_dir, config_name))
    if args.cfg:
        _warn(twice)
        return
    _check_own_files(cfg, list(args.overrides), bool(args.multirun) or cfg.hydra.mode == RunMode.MULTIRUN,
                     config_dir, config_name, argv[0])
    choices = cfg.hydra.runtime.choices
    launcher = choices.get("hydra/launcher")
    if not args.multirun and launcher not in (None, "basic") and choices.get("hparams_search") is None:
        raise OverrideError(f"hydra/launcher={launcher} launches the jobs of a multirun; this command runs "
                            f"here, without it. Fix: add -m to submit it (python train.py -m "
                            f"hydra/launcher={launcher} ...)")
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parsed = OverridesParser.create().parse_overrides(list(args.overrides))
    for group, what in (("logger", "none removes every logger, the others included"),
                        ("callbacks", "none is the choice of no callbacks and adds nothing to a list, so the "
                                      "others run as if it were not there")):  # pass 51, row 26: before,
        given = [o.value() for o in parsed if o.key_or_group == group and not o.is_sweep_override()]
        chosen = given[-1] if given else None  # callbacks=[minimal,none] ran as minimal without a word
        if isinstance(chosen, list) and "none" in chosen and len(chosen) > 1:
            others = ",".join(str(x) for x in chosen if x != "none")
            raise OverrideError(f"{group}=[{','.join(str(x) for x in chosen)}]: {what}. Fix: leave none out "
                                f"({group}=[{others}]), or {group}=none alone")
    multirun = args.multirun or cfg.hydra.mode == RunMode.MULTIRUN  # hparams_search sets the mode
    _env_set_folder(cfg, list(args.overrides), multirun)  # env_set applies after Hydra chose the folder
    _env_set_at_start(cfg, list(args.overrides))  # PYTHON*: read as the interpreter starts
    threads = OmegaConf.select(cfg, "hydra.job.env_set.OMP_NUM_THREADS", throw_on_resolution_failure=False)
    if threads is not None:  # pass 45, row 58: before, libgomp's line alone, and every core used
        check_thread_count({"OMP_NUM_THREADS": str(threads)}, "hydra.job.env_set.OMP_NUM_THREADS")
    basic = "BasicSweeper" in str(cfg.hydra.sweeper.get("_target_"))
    for override in parsed:  # Hydra's basic sweeper raises a traceback for these
        if multirun and basic and override.is_interval_sweep():
            raise OverrideError(f"{override.input_line}: a multirun sweeps lists, range() and choice(); "
                                f"an interval is a search space, for an Optuna search. Fix: list values, "
                                f"e.g. {_interval_ends(override)} (its two ends), or search it: "
                                f"{_interval_search(override, cfg)}")
        if not multirun and override.is_interval_sweep():  # Hydra: "requires --multirun", refused there too
            raise OverrideError(f"{override.input_line}: interval() is a search space, for an Optuna search, "
                                f"not a value of a single run (nor of a plain -m sweep). Fix: search it: "
                                f"{_interval_search(override, cfg)}; for a plain sweep list values, e.g. -m "
                                f"{_interval_ends(override)}; for one run give one value, e.g. "
                                f"{_first_value(override)}")
        if multirun and override.key_or_group == "tags" and override.is_sweep_override() \
                and not override.is_interval_sweep():  # pass 59, row 21: before, 4 jobs for 2 seeds, unsaid
            values = getattr(override.value(), "list", None) or []
            lists = any(isinstance(v, list) for v in values)  # tags=[a],[b]: a list per job (pass 62, 35:
            flat = [str(t) for v in values for t in (v if isinstance(v, list) else [v])]  # before, the fix
            listed = ",".join(dict.fromkeys(flat)) or ",".join(_sweep_strings(override))  # was [[a],[b]])
            what = "each list of tags" if lists else "each tag"
            raise OverrideError(f"{override.input_line}: in a multirun, a comma sweeps: {what} would be a "
                                f"job of its own, and every other setting would run once per "
                                f"{'list' if lists else 'tag'}. Fix: 'tags=[{listed}]' (all of them on every "
                                f"job)")
        one_id = override.get_key_element() == "logger.wandb.id" and not override.is_sweep_override()
        if multirun and one_id and override.value() not in (None, "null"):
            raise OverrideError(f"{override.input_line}: every job of this multirun would log to that one "
                                f"W&B run (and wandb sync would merge them). Fix: leave logger.wandb.id out "
                                f"(each job gets a run of its own, in the sweep's group), or sweep it: "
                                f"logger.wandb.id=<id1>,<id2>")
    _check_job_environment(cfg)
    with job_environment(cfg):  # hydra.job.env_set=WANDB_RUN_ID: every job has it
        run_id = os.environ.get("WANDB_RUN_ID")
    env_set = OmegaConf.select(cfg, "hydra.job.env_set.WANDB_RUN_ID", default=None,
                               throw_on_resolution_failure=False)
    if multirun and run_id and env_set is not None:  # pass 97, rows 18, 18b (major): before, "Fix: unset
        # WANDB_RUN_ID", which left the override that set it, and the same refusal followed
        given = next((o for o in args.overrides if _key(o).lstrip("+~") == "hydra.job.env_set.WANDB_RUN_ID"),
                     None)
        where = given or "hydra.job.env_set.WANDB_RUN_ID (in a config file of the run)"
        raise OverrideError(f"{where} sets WANDB_RUN_ID={run_id} in every job, so every job of this multirun "
                            f"would log to that one W&B run (and wandb sync would merge them). Fix: leave "
                            f"{given or 'it'} out (each job gets a run of its own, in the sweep's group); "
                            f"for one run, logger.wandb.id=<id>")
    if multirun and run_id:
        raise OverrideError(f"WANDB_RUN_ID={run_id} is set, so every job of this "
                            f"multirun would log to that one W&B run (and wandb sync would merge them). "
                            f"Fix: unset WANDB_RUN_ID (each job gets a run of its own, in the sweep's "
                            f"group); for one run, logger.wandb.id=<id>")
    if multirun and launcher in (None, "basic"):
        _check_local_ranks(cfg.trainer)
    if multirun:
        return
    _warn(twice)
    validate_as_run(cfg)


def validate_as_run(cfg: DictConfig) -> None:
    """:func:`~highwaylab.config_checks.validate` of a composed ``cfg`` as its job will see it: with
    Hydra's config set (``${hydra:...}`` reads it) and ``hydra.job.env_set`` in the environment
    (``${oc.env:...}``, ``WANDB_*``); both undone after."""
    from hydra.core.hydra_config import HydraConfig

    from highwaylab.config_checks import validate

    HydraConfig.instance().set_config(cfg)
    try:
        with job_environment(cfg):
            validate(cfg)
    finally:
        HydraConfig.instance().cfg = None


def _check_logging(cfg: DictConfig, overrides: list[str]) -> None:
    """Raises OverrideError for a level of ``hydra.job_logging`` or ``hydra.hydra_logging`` that
    Python's logging does not know (``...console.level=warning``: its names are upper case), and for a
    log file whose folder does not exist. Hydra hands them to ``logging.config.dictConfig``, which
    refused them with two tracebacks, after the run's folder was made (pass 49, rows 93, 123, 126)."""
    import logging

    levels = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")
    for part in ("job_logging", "hydra_logging"):
        node = OmegaConf.select(cfg, f"hydra.{part}", default=None)
        if not OmegaConf.is_dict(node):
            continue
        raw = OmegaConf.to_container(node, resolve=False)
        places = [("root", raw.get("root"))] + [
            (f"{kind}.{name}", entry) for kind in ("handlers", "loggers")
            for name, entry in (raw.get(kind) or {}).items() if isinstance(raw.get(kind), dict)]
        for where, entry in places:
            if not isinstance(entry, dict):
                continue
            level, key = entry.get("level"), f"hydra.{part}.{where}.level"
            if level is not None and not isinstance(logging.getLevelName(str(level)), int) \
                    and not isinstance(level, int):  # getLevelName gives the number of a level's name
                given = next((o.split("=", 1)[0] for o in overrides if _key(o) == key), key)
                meant = (f"{given}={str(level).upper()}" if str(level).upper() in levels
                         else f"e.g. {given}=WARNING")
                raise OverrideError(f"{given}={level} is not a logging level: Python's are "
                                    f"{', '.join(levels)} (upper case). Fix: {meant}")
            filename = entry.get("filename")
            if isinstance(filename, str) and "${" not in filename \
                    and not Path(filename).expanduser().absolute().parent.is_dir():
                folder = Path(filename).expanduser().absolute().parent
                raise OverrideError(f"hydra.{part}.{where}.filename={filename}: its folder {folder} does "
                                    f"not exist, so the log file cannot be opened. Fix: a file in a folder "
                                    f"that exists (mkdir -p {shlex.quote(str(folder))}), or leave it out "
                                    f"(the run's folder)")
        for name, entry in (raw.get("formatters") or {}).items() if isinstance(raw.get("formatters"), dict) \
                else []:
            if (problem := _format_problem(f"hydra.{part}.formatters.{name}", entry, overrides)) is not None:
                raise OverrideError(problem)
        given = [o for o in overrides if _key(o).startswith((f"hydra.{part}", f"hydra/{part}"))]
        if part == "job_logging" and raw.get("disable_existing_loggers") is True and any(  # pass 84, rows
                _key(o) == "hydra.job_logging.disable_existing_loggers" for o in given):  # 56, 58 (the
            # disabled preset's is true: it logs nothing, and says so)
            raise OverrideError(  # before: the Finished line and train.log's interrupt line were lost, unsaid
                "hydra.job_logging.disable_existing_loggers=true would silence the loggers that highwaylab "
                "made before Hydra configures logging, and with them lines of the run's log (its Finished: "
                "line, a Ctrl-C's resume= command in train.log). Fix: leave it out (false, Hydra's default)")
        if given and (problem := _logging_trial(node)) is not None:  # pass 84, rows 53, 59-64: before,
            # logging's tracebacks, after the run's folder was made
            raise OverrideError(f"hydra.{part}: Python's logging cannot be configured with it ({problem}). "
                                f"Fix: correct or leave out {' '.join(given)}")


# configures logging from a JSON dictConfig on stdin, in a process of its own; prints why it cannot
_LOGGING_TRIAL = """
import json, logging.config, sys
try:
    logging.config.dictConfig(json.loads(sys.stdin.read()))
except Exception as err:
    cause = err.__cause__ or err.__context__
    print(f"{err}: {cause}" if cause is not None and str(cause) not in str(err) else str(err))
    sys.exit(1)
"""


def _logging_trial(node: DictConfig) -> str | None:
    """Why ``logging.config.dictConfig`` refuses the logging config ``node`` (Hydra's ``job_logging``
    or ``hydra_logging``), tried in a child process (so that this one's logging stays as it is), with
    each file handler's file in a temporary folder; ``None`` when it takes it, or it cannot be tried
    (an interpolation that resolves only in the job)."""
    import json
    import subprocess
    import tempfile

    try:
        config = OmegaConf.to_container(node, resolve=True)
    except Exception:  # noqa: BLE001 -- ${hydra.runtime.output_dir}: resolved by Hydra in the job
        config = OmegaConf.to_container(node, resolve=False)
    with tempfile.TemporaryDirectory() as folder:
        for name, handler in (config.get("handlers") or {}).items() if isinstance(config.get("handlers"),
                                                                                   dict) else []:
            if isinstance(handler, dict) and "filename" in handler:
                handler["filename"] = str(Path(folder) / f"{name}.log")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
        try:
            proc = subprocess.run([sys.executable, "-c", _LOGGING_TRIAL], input=json.dumps(config),
                                  capture_output=True, text=True, timeout=60, env=env, cwd=folder)
        except (OSError, subprocess.SubprocessError, TypeError, ValueError):
            return None
    if proc.returncode == 0:
        return None
    lines = proc.stdout.strip().splitlines()
    return " ".join(lines[-1].split()) if lines else None


def _format_problem(key: str, entry: Any, overrides: list[str]) -> str | None:
    """The message for a log formatter (``hydra.job_logging.formatters.<name>``) whose format Python's
    logging cannot fill from a log record: a field records lack (``%(foo)s``), or a malformed format.
    Before, the run trained, printed a "--- Logging error ---" block for each line, and its train.log
    stayed empty (pass 79, row 36, major). ``None`` for a format that works, a formatter built by a
    factory (``()``), or one with an interpolation."""
    import logging

    if not isinstance(entry, dict) or "()" in entry:
        return None
    fmt, datefmt, style = entry.get("format"), entry.get("datefmt"), entry.get("style", "%")
    if not isinstance(fmt, str) or "${" in fmt or style not in ("%", "{", "$"):
        return None
    record = logging.LogRecord("highwaylab", logging.INFO, __file__, 1, "a line of the run", None, None)
    try:
        logging.Formatter(fmt, datefmt if isinstance(datefmt, str) else None, style=style).format(record)
    except (KeyError, ValueError, TypeError, IndexError) as err:
        given = next((o.split("=", 1)[0] for o in overrides if _key(o) == f"{key}.format"), f"{key}.format")
        fields = "asctime, name, levelname, message, module, funcName, lineno, process, thread"
        return (f"{given}={fmt}: Python's logging cannot fill this format from a log record "
                f"({type(err).__name__}: {err}); a record's fields are {fields} (as %(name)s). Fix: a format "
                f"of these, e.g. \"{given}='%(asctime)s %(levelname)s - %(message)s'\", or leave it out")
    return None


def _resume_sweep(overrides: list[str]) -> None:
    """Raises OverrideError for a sweep (``key=1,2``, ``range()``, ``choice()``) beside ``resume=``,
    which continues one run: Hydra would refuse it after the resume's checks, with advice to add
    ``-m`` that ``resume=`` refuses in turn (breaking pass 26, row 31)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except OverrideParseException:
        return  # resume.py names the override that does not parse
    for override in parsed:
        if override.is_sweep_override():
            if (path := _one_path(override)) is not None:
                raise OverrideError(path)
            extends = override.key_or_group in ("trainer.max_epochs", "trainer.max_steps", "trainer.max_time")
            if not extends and (own := _runs_own(overrides, override.key_or_group)) is not None:
                # pass 46, rows 54-55: before, "give one value (<the list's first>)", not the run's own
                raise OverrideError(f"{override.input_line}: a list of values is a sweep, and resume= "
                                    f"continues one run, which ran with {own}. Fix: leave "
                                    f"{override.key_or_group} out (resume= keeps the run's own value)")
            first = _first_value(override)
            one = f" ({first})" if first else ""
            raise OverrideError(f"{override.input_line}: a list of values is a sweep, and resume= continues "
                                f"one run. Fix: give one value{one}")


def _runs_own(overrides: list[str], key: str) -> str | None:
    """The override of ``key`` that the run named by ``resume=`` among ``overrides`` was started with
    (its latest record's ``overrides.yaml``), or ``None``: none, or no such run."""
    import yaml

    from highwaylab.utils.resume import overrides_record

    value = next((o.split("=", 1)[1] for o in overrides if _key(o) == "resume" and "=" in o), None)
    root = Path(os.environ.get("HIGHWAYLAB_ROOT") or ".")  # where resume= also looks (resume_folder)
    run = next((p for p in (Path(value or "").expanduser(), root / (value or "")) if value
                and (p / ".hydra" / "overrides.yaml").is_file()), None)
    try:
        lines = yaml.safe_load(overrides_record(run).read_text()) if run is not None else None
    except Exception:  # noqa: BLE001 -- an unreadable record: its refusal comes from resume.py
        return None
    return next((o.lstrip("+") for o in lines or [] if isinstance(o, str) and _key(o) == key), None)


def _shadowed_files(extra_dir: Path, config_dir: Path) -> None:
    """Raises OverrideError for a file in ``--config-dir`` with the name of one of highwaylab's
    (``train.yaml``, ``model/highway.yaml``): Hydra reads highwaylab's ``conf/`` first, so the user's
    file would be ignored in silence (breaking pass 68, rows 2 and 12: an edited copy of a preset, and
    a main config, trained with highwaylab's values)."""
    if extra_dir.resolve() == config_dir.resolve():  # --config-dir conf: highwaylab's own, given again
        return
    try:
        mine = sorted(p for p in extra_dir.rglob("*.yaml") if p.is_file())
    except OSError:
        return
    for path in mine:
        relative = path.relative_to(extra_dir)
        if (config_dir / relative).is_file():
            stem, group = relative.with_name(f"{relative.stem}_mine.yaml"), relative.parent.as_posix()
            fix = (f"rename it (e.g. {stem}) and choose it ({group}={stem.stem})" if group != "." else
                   f"put your values in an experiment of your own, experiment/mine.yaml in {extra_dir} with "
                   f"'# @package _global_' as its first line, and choose it (experiment=mine)")
            raise OverrideError(f"--config-dir {extra_dir}: {relative} has the name of one of highwaylab's "
                                f"own (conf/{relative}), which Hydra reads in its place, so yours would be "
                                f"ignored. Fix: {fix}")


def _option_file_names(overrides: list[str], extra_dir: str | None, config_dir: str | Path) -> None:
    """Raises OverrideError for a group's option given by its file's name (``data=mnist.yaml``): Hydra
    takes it, and the run is named and tagged ``mnist.yaml``, apart from the ``data=mnist`` runs
    (breaking pass 32, row 26)."""
    folders = [Path(config_dir), *([Path(extra_dir).expanduser()] if extra_dir else [])]
    for override in overrides:
        key, _, value = override.lstrip("+~").partition("=")
        for option in (v.strip() for v in value.split(",")):  # a sweep's values too
            if option.endswith((".yaml", ".yml")) and "/" not in option \
                    and any((folder / key.split("@")[0] / option).is_file() for folder in folders):
                name = option.rsplit(".", 1)[0]
                raise OverrideError(f"{override}: an option is named without its file's .yaml, or the run is "
                                    f"named and tagged {option}, apart from the {key}={name} runs. Fix: "
                                    f"{key}={name}")
            group = key.split("@")[0]
            parts = Path(option.removesuffix(".yaml").removesuffix(".yml")).parts
            if "/" in option and len(parts) >= 2 and parts[-2] == Path(group).name and not any(
                    (folder / group / option).with_suffix(".yaml").is_file() for folder in folders) and any(
                    (folder / group / f"{parts[-1]}.yaml").is_file() for folder in folders):
                # pass 90, row 61: model=conf/model/highway; before, Hydra's 14-line "Could not find"
                fixed = ",".join(parts[-1] if v.strip() == option else v for v in value.split(","))
                raise OverrideError(f"{override}: an option is named by its name in the group, not by its "
                                    f"file's path. Fix: {key}={fixed}")


def _one_path(override: Any) -> str | None:
    """The message for a comma sweep whose whole value is one existing file or folder
    (``resume=/runs/run,v2``): the comma is part of its name, and Hydra reads it only quoted (breaking
    pass 32, row 12: before, "give one value (resume=/runs/run)", a folder that does not exist);
    ``None`` for any other sweep."""
    line = override.input_line
    value = line.split("=", 1)[1] if "=" in line else ""
    if not override.is_sweep_override() or "," not in value or value.startswith(("[", "{", "'", '"')) \
            or not Path(value).expanduser().exists():
        return None
    key = line.split("=", 1)[0]
    return (f"{line}: the comma makes Hydra read a list of values (a sweep), but {value} is one existing "
            f"path, whose name holds the comma. Fix: quote it for Hydra: {override_arg(key, value)}")


def _warn(line: str | None) -> None:
    """Print a warning line of the command line's checks (``None``: nothing) on stderr."""
    if line is not None:
        print(line, file=sys.stderr)


def _sweep_without_multirun(override: Any, config_dir: str | Path, config_name: str) -> str:
    """The message for a sweep (``key=1,2``, ``range()``, ``choice()``) in a command line without
    ``-m``, which Hydra refuses in four lines ("Ambiguous value for argument"); for a key that holds
    a list in the config (``tags=a,b``), with the list it probably meant."""
    if (path := _one_path(override)) is not None:
        return path
    line, first = override.input_line, _first_value(override)
    one = f"give one value ({first})" if first else "give one option"
    key = override.get_key_element()
    base, _ = _compose(config_dir, config_name, [])
    listed = None if base is None else OmegaConf.select(base, key.lstrip("+~"), default=None,
                                                        throw_on_resolution_failure=False)
    value = line.split("=", 1)[1]
    if OmegaConf.is_list(listed) and "(" not in line:
        one = f"write a list value in brackets ('{key}=[{value}]')"
    if key.lstrip("+~") == "logger" and "(" not in line:  # the one group that takes a list of options
        one += f"; for all of them at once, a list: '{key}=[{value}]'"
    # depth=1,000: a thousands separator (pass 55, row 84: before, a sweep of 1 and 0); not 100,200, a sweep
    integer = isinstance(listed, int) and not isinstance(listed, bool)
    if integer and re.fullmatch(r"[+-]?\d{1,3}(,000)+", value):
        whole = value.replace(",", "")
        return (f"{line}: a comma separates the values of a sweep, and a number takes no thousands "
                f"separator; did you mean {key}={whole}? Fix: write {key}={whole}")
    known = base is not None and OmegaConf.select(base, key.lstrip("+~"), default=_MISSING,
                                                  throw_on_resolution_failure=False) is not _MISSING
    if known and (listed is None or isinstance(listed, (float, str))) \
            and re.fullmatch(r"[+-]?\d+,\d+", value):  # a decimal comma: lr=0,05, gate_bias=-2,5
        decimal = value.replace(",", ".")
        # a float setting takes only the decimal; one that may hold a word or null (gate_bias: auto,
        # gradient_clip_val: null) may also have meant the sweep (pass 52, row 2: before, only "add -m,
        # or give one value")
        low, high = value.split(",")
        sweep = "" if isinstance(listed, float) else f" (or, for a sweep of {low} and {high}, add -m)"
        return (f"{line}: a comma separates the values of a sweep, not a number's decimals; did you mean "
                f"{key}={decimal}? Fix: write {key}={decimal}{sweep}")
    if key.lstrip("+~") == "tags":  # a sweep of tags is refused under -m too (pass 59, row 21)
        return (f"{line}: a list of values is a sweep, one job per value, and this command runs one job. "
                f"Fix: write the tags as a list, in brackets ('tags=[{value}]')")
    if " " in value and "(" not in value and "'" not in value:  # pass 71, row 40: a text with a comma
        # (+logger.wandb.notes=first try, lr 0.1); before, one value offered, the rest of the text lost
        return (f"{line}: a comma separates the values of a sweep, and this looks like one text. Fix: quote "
                f"the value, \"{key}='{value}'\" (or add -m for a sweep of its parts)")
    return (f"{line}: a list of values is a sweep, one job per value, and this command runs one job. Fix: "
            f"add -m to sweep it (python train.py -m ... {line}), or {one}")


def _interval_ends(override: Any) -> str:
    """The sweep of an ``interval()`` override's two ends: ``optim.optimizer.lr=0.01,0.1``."""
    bounds = override.value()
    return f"{override.get_key_element()}={bounds.start:g},{bounds.end:g}"


def _interval_search(override: Any, cfg: DictConfig | None = None) -> str:
    """The Optuna search of an ``interval()`` override (conf/hparams_search/), quoted for the shell; over
    whole numbers (``int(interval(3,5))``) for a key whose value in ``cfg`` is an integer (``depth``:
    a search drawing real numbers for it is refused, pass 67)."""
    line, value = override.input_line, override.value()
    current = None  # the key's own value: in the main config, as it stands before this override
    if cfg is not None:
        with contextlib.suppress(Exception):
            source = next(s for s in cfg.hydra.runtime.config_sources if s.provider == "main")
            main = Path(str(source.path).removeprefix("file://")) / f"{cfg.hydra.job.config_name}.yaml"
            current = OmegaConf.select(OmegaConf.load(main), override.key_or_group, default=None)
    whole = all(float(v).is_integer() for v in (value.start, value.end))
    if isinstance(current, int) and not isinstance(current, bool) and whole and "int(" not in line \
            and not value.tags:
        line = f"{override.get_key_element()}=int(interval({int(value.start)},{int(value.end)}))"
    return f"-m hparams_search=mnist_tpe '{line}' (or hparams_search=mnist_random)"


def _env_set_folder(cfg: DictConfig, overrides: list[str], multirun: bool) -> None:
    """Raises OverrideError for a ``hydra.job.env_set`` variable that the run's folder
    (``hydra.run.dir``; a multirun's ``hydra.sweep.dir`` and ``subdir``) reads, through its
    interpolations (``${paths.log_dir}`` -> ``${paths.root_dir}`` -> ``${oc.env:HIGHWAYLAB_ROOT,.}``), with
    another value than the shell's. Hydra chooses the folder before it applies env_set, and the job
    resolves its config after: the run would be written under the shell's value and its record
    (``config_resolved.yaml``: ``paths.root_dir``, ``paths.log_dir``) say the env_set one."""
    env_set = OmegaConf.select(cfg, "hydra.job.env_set")
    if not env_set:
        return
    raw = OmegaConf.to_container(cfg, resolve=False)
    keys = ["hydra.sweep.dir", "hydra.sweep.subdir"] if multirun else ["hydra.run.dir"]
    read = _env_read(raw, keys)
    with job_environment(cfg):
        job = {name: os.environ.get(name) for name in read}
    for name in read:
        shell = os.environ.get(name)
        if job[name] is None or job[name] == shell:
            continue
        given = next((o.split("=", 1)[0] for o in overrides if o.split("=", 1)[0].lstrip("+") ==
                      f"hydra.job.env_set.{name}"), f"hydra.job.env_set.{name}")
        folder, who = ("multirun's folders", "its jobs") if multirun else ("run's folder", "the run")
        raise OverrideError(f"{given}: Hydra chooses the {folder} before env_set applies, so {who} would "
                            f"go under {shell if shell is not None else f'{name} unset'} while the record "
                            f"says {job[name]}. Fix: set {name} in the shell ({name}={job[name]} python "
                            f"train.py ...), or paths.log_dir=<folder>")


def _env_set_at_start(cfg: DictConfig, overrides: list[str]) -> None:
    """Raises OverrideError for a ``hydra.job.env_set`` of a ``PYTHON*`` variable, which Python reads
    as it starts, long before Hydra applies env_set: it would change nothing (pass 70, row 17:
    ``+hydra.job.env_set.PYTHONWARNINGS=error`` ran as without it, unsaid)."""
    env_set = OmegaConf.select(cfg, "hydra.job.env_set", throw_on_resolution_failure=False)
    for name in (str(n) for n in (env_set or {}) if str(n).startswith("PYTHON")):
        given = next((o.split("=", 1)[0] for o in overrides if o.split("=", 1)[0].lstrip("+") ==
                      f"hydra.job.env_set.{name}"), f"hydra.job.env_set.{name}")
        fix = ("leave it out (warnings made errors would stop the run at Lightning's first notice, and are "
               "refused in the shell too; name another class: PYTHONWARNINGS=error::DeprecationWarning "
               "python train.py ...)" if name == "PYTHONWARNINGS" else
               f"set it in the shell: {name}={env_set[name]} python train.py ...")
        raise OverrideError(f"{given}: Python reads {name} as it starts, before Hydra applies env_set, so "
                            f"it would change nothing. Fix: {fix}")


def _env_read(raw: Any, keys: list[str]) -> list[str]:
    """The environment variables (``${oc.env:NAME}``) that the config values at ``keys`` read, through
    their references to other keys (``${paths.log_dir}``, ``${hydra:runtime.choices}``); ``raw``: the
    config unresolved, as containers."""
    names: list[str] = []
    seen: set[str] = set()
    todo = list(keys)
    while todo:
        key = todo.pop()
        if key in seen:
            continue
        seen.add(key)
        value: Any = raw
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if not isinstance(value, str):
            continue
        names += [n for n in re.findall(r"oc\.env:\s*([A-Za-z_]\w*)", value) if n not in names]
        todo += re.findall(r"\$\{\s*([A-Za-z_][\w.]*)\s*\}", value)
        todo += [f"hydra.{k}" for k in re.findall(r"\$\{\s*hydra:\s*([\w.]+)\s*\}", value)]
    return names


def _env_set(cfg: Any) -> Iterator[tuple[str, str | None, Exception | None]]:
    """Each entry of the composed ``hydra.job.env_set``: its name, its value as resolved here (``None``
    where it is null or does not resolve), and the error of its resolution, if any."""
    env_set = OmegaConf.select(cfg, "hydra.job.env_set", default=None)
    for name in env_set or {}:
        try:
            value = env_set[name]
        except Exception as err:  # noqa: BLE001 -- an interpolation: the job's own, or a missing variable
            yield str(name), None, err
        else:
            yield str(name), None if value is None else str(value), None


def _check_job_environment(cfg: Any) -> None:
    """Raises OverrideError for a value of ``hydra.job.env_set`` whose ``${oc.env:...}`` does not
    resolve: Hydra fails on it in the job, with a traceback, after the run's folder is made (pass 84,
    row 106). (A variable of ``hydra.job.env_copy`` that is not set fails the composition itself:
    :func:`_explain` names it.)"""
    from omegaconf.errors import InterpolationResolutionError

    for name, _, err in _env_set(cfg):
        if not isinstance(err, InterpolationResolutionError):
            continue
        reason = " ".join(str(err).splitlines()[0].split())
        if "Environment variable" not in reason:
            continue  # ${hydra:runtime.output_dir}: the job's own, resolved there
        missing = re.search(r"Environment variable '([^']+)'", reason)
        raw = OmegaConf.to_container(OmegaConf.select(cfg, "hydra.job.env_set"), resolve=False).get(name)
        variable = missing[1] if missing else "<NAME>"
        raise OverrideError(f"hydra.job.env_set.{name}={raw}: its value does not resolve ({variable} is "
                            f"not set). Fix: export {variable}=<value> first, or give a default: "
                            f"${{oc.env:{variable},<value>}}") from None


@contextlib.contextmanager
def job_environment(cfg: Any) -> Iterator[None]:
    """Within this context, the environment holds the job's ``hydra.job.env_set`` values, as Hydra
    sets them for the job (``hydra.core.utils.env_override``), so that the checks before Hydra creates
    the run's folder read what the job will (``+hydra.job.env_set.HIGHWAYLAB_DATA_DIR=...``: the data
    folder of ``${oc.env:HIGHWAYLAB_DATA_DIR,...}``); before, they read the shell's, and the job itself
    refused the run after its folder was made. A value that does not resolve yet (``${hydra:runtime
    .output_dir}``) is left out: the job sets it. The environment is as before at the end."""
    values = {name: value for name, value, _ in _env_set(cfg) if value is not None}
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def check_rank_variables(environ: dict[str, str] | None = None) -> None:
    """Raises OverrideError for a rank variable other than 0 (``LOCAL_RANK``, ``RANK``,
    ``SLURM_PROCID``) in a process that no launcher started as one of several: Lightning's own DDP
    processes and torchrun get ``WORLD_SIZE`` with ``MASTER_ADDR`` and ``MASTER_PORT`` (where the
    processes meet), a SLURM job ``SLURM_NTASKS``. Left over in a shell (``export LOCAL_RANK=1``, or
    ``RANK=1 WORLD_SIZE=2``: pass 93, rows 20 and 22, major, a traceback after training), it makes a
    single run act as a further rank: no config, epoch lines, resolved config or loggers of rank zero."""
    env = os.environ if environ is None else environ
    meet = ("WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    if all(name in env for name in meet) or "SLURM_NTASKS" in env:
        return
    found = [f"{name}={env[name]}" for name in ("LOCAL_RANK", "RANK", "SLURM_PROCID")
             if env.get(name, "0") not in ("", "0")]
    if found:
        names = [f.split("=")[0] for f in found] + [name for name in meet if name in env]
        missing = [name for name in meet if name not in env]
        unset = (f"{missing[0]} is" if len(missing) == 1 else
                 f"{', '.join(missing[:-1])} and {missing[-1]} are")
        raise OverrideError(f"{', '.join(found)} is set, but no launcher started this process as one of "
                            f"several ({unset} not set, which torchrun and Lightning set for each process "
                            f"they start): the run would act as a further rank and write none of rank zero's "
                            f"log, config and loggers. Fix: unset {' '.join(names)} (left over from torchrun "
                            f"or a SLURM job?)")


# warning classes issued in every run, with PYTHONWARNINGS=always: Lightning's notices (UserWarning;
# PossibleUserWarning on a short epoch) and a ResourceWarning at the end (a temporary folder cleaned up
# implicitly). A filter that makes them errors stops every run. Others (DeprecationWarning, FutureWarning,
# ...) pass (pass 74, row 27: before, refused though a run raises none); should one come, the run ends
# in one line (:func:`warning_as_error`)
COMMON_WARNINGS = ("", "Warning", "UserWarning", "ResourceWarning")


def _filter_source(option: str, environ: dict[str, str] | None = None) -> tuple[str, str]:
    """``(where, fix)`` of the interpreter's warning filter ``option``: ``("PYTHONWARNINGS=<its value>",
    "unset PYTHONWARNINGS")`` when the environment gave it, else ``("python -W <option>", "leave -W
    <option> out")``."""
    env = os.environ if environ is None else environ
    if option in env.get("PYTHONWARNINGS", "").split(","):
        return f"PYTHONWARNINGS={env['PYTHONWARNINGS']}", "unset PYTHONWARNINGS"
    return f"python -W {option}", f"leave -W {option} out"


def _makes_errors(option: str) -> bool:
    """Whether the warning filter ``option`` (``error::UserWarning``, ``e``) makes warnings errors."""
    return "error".startswith(option.partition(":")[0].strip().lower() or "-")


def _error_filter() -> tuple[str, str] | None:
    """``(where, fix)`` (:func:`_filter_source`) of this interpreter's first warning filter that makes
    warnings errors; ``None`` without one."""
    return next((_filter_source(o) for o in sys.warnoptions if _makes_errors(o)), None)


def warning_as_error(err: BaseException, run: str | os.PathLike | None) -> WarningAsError | None:
    """A :class:`WarningAsError` for ``err`` when its chain of causes holds a ``Warning`` raised as an
    exception by this interpreter's warning filter (``PYTHONWARNINGS=error::DeprecationWarning`` and a
    library's ``DeprecationWarning``), naming the filter, the warning, where it was issued and the run's
    latest checkpoint; ``None`` otherwise (before: the library's traceback)."""
    import traceback

    filt = _error_filter()
    while err is not None and not isinstance(err, Warning):
        err = err.__cause__ or err.__context__
    if err is None or filt is None:
        return None
    cls = type(err)
    name = cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"
    frames = traceback.extract_tb(err.__traceback__)
    at = f" (issued at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""
    found = sorted(Path(run, "checkpoints").glob("*.ckpt"), key=lambda f: f.stat().st_mtime) if run else []
    kept = f"; its latest checkpoint, {found[-1]}, is kept" if found else ""
    then = f", then resume: python train.py {override_arg('resume', run)}" if found else ""
    where, fix = filt
    return WarningAsError(f"{where} made a {name} an error, and it stopped the run: {err}{at}{kept}. "
                          f"Fix: {fix}{then}")


def check_warning_filters(options: list[str] | None = None, environ: dict[str, str] | None = None) -> None:
    """Raises OverrideError for a warning filter of the interpreter that turns the libraries'
    notices into errors: ``PYTHONWARNINGS=error`` or ``python -W error`` (``sys.warnoptions``),
    with no class or a common one (``error::UserWarning``). Lightning's notices (e.g. its
    ``PossibleUserWarning`` on a short epoch) then stop the run with a 30-line traceback, once its
    folder and loggers are made. A filter for a class of one's own (``error::mypkg.MyWarning``) passes.
    """
    for option in sys.warnoptions if options is None else options:
        rest = option.partition(":")[2]
        category = rest.split(":", 2)[1] if rest.count(":") >= 1 else ""
        if not _makes_errors(option) or category.strip() not in COMMON_WARNINGS:
            continue
        where, fix = _filter_source(option, environ)
        raise OverrideError(f"{where} turns warnings into errors, and Lightning's and torch's notices (e.g. "
                            f"Lightning's PossibleUserWarning on a short epoch) would stop the run with a "
                            f"traceback. Fix: {fix}; to make other warnings errors, name their class (e.g. "
                            f"error::DeprecationWarning)")


def check_trainer_variables(environ: dict[str, str] | None = None) -> None:
    """Raises OverrideError for a ``PL_TRAINER_<ARG>`` environment variable: Lightning's ``Trainer``
    takes it as the default of argument ``<arg>``, unseen by the config, so the run would not be the
    one its record (``config_resolved.yaml``, the W&B config) describes (breaking pass 60, row 5:
    ``PL_TRAINER_FAST_DEV_RUN=1`` left in a shell made every run a one-batch debug pass, exit 0, and
    ``PL_TRAINER_ACCUMULATE_GRAD_BATCHES=5`` took one optimiser step of five batches, unsaid)."""
    found = sorted((k, v) for k, v in (os.environ if environ is None else environ).items()
                   if k.startswith("PL_TRAINER_"))
    if not found:
        return
    name, value = found[0]
    key = f"trainer.{name.removeprefix('PL_TRAINER_').lower()}"
    others = f" (and {', '.join(k for k, _ in found[1:])})" if len(found) > 1 else ""
    raise OverrideError(f"{name}={value} is set in the environment{others}: Lightning's Trainer would take "
                        f"it as {key}, which the run's record (config_resolved.yaml, the W&B config) would "
                        f"not show. Fix: unset {' '.join(k for k, _ in found)}; to set it for a run, give "
                        f"{key}={value} on the command line (+{key}={value} where python train.py --cfg job "
                        f"shows no {key})")


def check_plot_backend(environ: dict[str, str] | None = None) -> None:
    """Raises OverrideError for an ``MPLBACKEND`` that matplotlib refuses (``rcsetup.validate_backend``):
    a notebook's ``!python train.py`` passes on its own inline backend, and matplotlib then stopped the
    run with a traceback that never named the variable (breaking pass 67, row 32). The run draws its
    figures into files, so it needs no window."""
    value = (os.environ if environ is None else environ).get("MPLBACKEND")
    if not value:
        return
    try:
        from matplotlib import rcsetup  # which reads MPLBACKEND itself, and may refuse it as it loads

        rcsetup.validate_backend(value)
    except ValueError:
        raise OverrideError(f"MPLBACKEND={value} is set in the environment (a notebook's !python passes its "
                            f"own on), and matplotlib does not take it here, so the run would stop as it "
                            f"draws. The run draws its figures into files, with no window. Fix: unset "
                            f"MPLBACKEND, or MPLBACKEND=Agg") from None


def check_thread_count(environ: dict[str, str] | None = None, key: str = "OMP_NUM_THREADS") -> None:
    """Raises OverrideError for an ``OMP_NUM_THREADS`` that OpenMP does not take (a positive integer,
    or a comma-separated list of them for nested levels): libgomp prints "Invalid value for
    environment variable OMP_NUM_THREADS" and torch then uses every core, against what was asked
    (the README's advice for a busy machine is ``OMP_NUM_THREADS=1``). ``key``: where it was set, the
    shell's variable or ``hydra.job.env_set.OMP_NUM_THREADS`` (the job's)."""
    value = (os.environ if environ is None else environ).get("OMP_NUM_THREADS")
    count = r"\+?0*[1-9]\d*"  # as libgomp's strtoul reads it: +2 and 01 too (pass 91, rows 63, 65)
    if not (value or "").strip() or re.fullmatch(rf"\s*{count}(\s*,\s*{count})*\s*", value):
        return  # unset, or empty (OMP_NUM_THREADS=$UNSET in a script): OpenMP's own default
    fix = ("OMP_NUM_THREADS=1 (one thread, for a busy machine) or another count, or unset it"
           if key == "OMP_NUM_THREADS" else f"+{key}=1 (one thread, for a busy machine) or another count, "
           f"or leave it out")
    raise OverrideError(f"{key}={value!r} is not a positive number of threads, so OpenMP ignores it and "
                        f"torch would use every core. Fix: {fix}")


def _null_group(override: Any, overrides: list[str], config_dir: str | Path, config_name: str) -> str | None:
    """The message for a config group set to ``null`` (``model=null``, ``logger=null``,
    ``hydra/launcher=null``, or a sweep with a null value): Hydra stops with a traceback ending in
    "Config group override must be a string or a list. Got NoneType". It names the group's options
    and the fix: the group's ``none`` option where it has one (``logger=none``), leaving the group
    out where the config chooses no option by default (``experiment``), else an option. ``None`` for
    any other override (a key set to null, ``optim.scheduler=null``, is fine)."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.override_parser.types import ChoiceSweep, OverrideType

    value = override.value()
    values = value.list if isinstance(value, ChoiceSweep) else [value]
    group = override.key_or_group
    if override.type == OverrideType.DEL or "." in group or None not in values:
        return None
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(Path(config_dir).resolve())):
            loader = GlobalHydra.instance().config_loader()
            options = [o for o in loader.get_group_options(group) if not o.startswith("_")]
    except Exception:  # noqa: BLE001 -- Hydra reports it
        return None
    finally:
        GlobalHydra.instance().clear()
    if not options:  # not a group: a key set to null
        return None
    rest = [o for o in overrides if _key(o) != _key(override.input_line) and "(" not in o and "," not in o]
    cfg, _ = _compose(config_dir, config_name, rest)
    default = cfg.hydra.runtime.choices.get(group, "") if cfg is not None else ""
    name = group.rsplit("/", 1)[-1]
    if group in ("hydra/job_logging", "hydra/hydra_logging"):  # pass 87, row 58: before, a typed setting's
        # message, for hydra.job_logging=null ("none ... to run without a job_logging": for the slash form)
        lines = "train.log" if name == "job_logging" else "lines of Hydra's own"
        fix = (f"{group}=disabled for no {lines} ({group}=none leaves Python's logging unconfigured), or "
               f"leave {group} out for the default")
    elif "none" in options:
        fix = f"{group}=none to run without {name if name.endswith('s') else 'a ' + name}"
    elif default is None:
        fix = f"leave {group} out (by default the config chooses none of its options), or choose one"
    elif default:
        fix = f"choose one, e.g. {group}={default} (the default, as when {group} is left out)"
    else:
        fix = f"choose one, e.g. {group}={options[0]}"
    return f"{override.input_line}: a config group needs one of its options: {', '.join(options)}. Fix: {fix}"


# what a run does without each top-level key of train.yaml that it reads itself (none interpolates it)
REMOVED_TOP_LEVEL = {
    "test": "test=false skips the test set",
    "run_name": "a name of your own, e.g. run_name=my-run",
    "tags": "tags=[] gives no extra tags",
    "flush_denormal": "flush_denormal=false keeps subnormal numbers",
    "optimized_metric": "leaving it out returns val/acc_best to a sweeper",
    "ckpt_path": "ckpt_path=null, its default: no checkpoint to start from",
}


def _removed_top_level(override: Any, config_dir: str | Path, config_name: str) -> str | None:
    """The message for ``~<key>`` of a top-level key of the primary config that the run reads
    itself (``~test``: before, the test set was skipped without a word, the record without
    ``test``; ``~run_name``: the message named a ``run_name=''`` never typed; pass 69, rows 41 and
    43). ``None`` for any other override."""
    import yaml
    from hydra.core.override_parser.types import OverrideType

    key = override.key_or_group
    if override.type != OverrideType.DEL or "." in key or "/" in key or key not in REMOVED_TOP_LEVEL:
        return None
    try:
        primary = yaml.safe_load((Path(config_dir) / f"{config_name}.yaml").read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError):
        return None
    if not isinstance(primary, dict) or key not in primary:
        return None
    default = "the default name" if key == "run_name" else f"its default, {key}={_shown(primary[key])}"
    return (f"{override.input_line}: removes {key}, a top-level key the run reads itself, so the run would "
            f"go on without it, unsaid. Fix: give it a value ({REMOVED_TOP_LEVEL[key]}), or leave "
            f"{override.input_line} out for {default}")


def _shown(value: Any) -> str:
    """``value`` as an override writes it: ``true``, ``null``, ``[]``."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    return "[]" if value == [] else str(value)


def _null_run_name(override: Any, overrides: list[str], config_dir: str | Path,
                   config_name: str) -> str | None:
    """The message for ``run_name=null`` (or a null in a sweep of it): before, the run ran in a folder
    ``<date>_<time>_None_<hex>``, with a W&B run of no name and ``run_name: null`` in its record. It
    names the default name that leaving ``run_name`` out gives (composed from the rest of the command
    line). ``None`` for any other override."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.override_parser.types import ChoiceSweep, OverrideType

    from highwaylab.utils.hydra_utils import register_resolvers

    value = override.value()
    values = value.list if isinstance(value, ChoiceSweep) else [value]
    if override.key_or_group != "run_name" or override.type == OverrideType.DEL or None not in values:
        return None
    example = ""
    rest = [o for o in overrides if _key(o) != "run_name" and "(" not in o and "," not in o]
    cfg, _ = _compose(config_dir, config_name, rest)
    if cfg is not None:
        register_resolvers()
        HydraConfig.instance().set_config(cfg)
        try:
            example = f" (e.g. {cfg.run_name})"
        except Exception:  # noqa: BLE001 -- a config that does not resolve is named by validate()
            example = ""
        finally:
            HydraConfig.instance().cfg = None
    return (f"{override.input_line}: a run needs a name: run_name names the run's folder, its W&B run and "
            f"its record. Fix: leave run_name out for the default name{example}, or give one, e.g. "
            f"run_name=my-run")


def _group_form(override: Any, config_dir: str | Path, config_name: str) -> str | None:
    """The message for a group override in a form Hydra misreads: ``+experiment=x`` for a group
    the config's defaults list already has (Hydra: "Multiple values for experiment. To override a
    value use 'override experiment: x'", a defaults-list form), and a list of options for a group
    that takes one (``model=[highway,plain]``: Hydra merges both, and the error then names a key of
    the second). ``None`` for any other override."""
    import yaml

    group, value = override.key_or_group, override.value()
    if group == "hparams_search" and (override.is_sweep_override() or isinstance(value, list)):
        # breaking pass 60, row 37: before, -m hparams_search=a,b was offered, which ran two plain jobs of
        # the default config (or got Hydra's raw "Key 'n_trials' not in 'BasicSweeperConf'")
        swept = override.is_sweep_override() and not override.is_interval_sweep()
        options = (_sweep_strings(override) if swept else
                   [str(v) for v in value] if isinstance(value, list) else [])
        first = options[0] if options else "mnist_tpe"
        return (f"{override.input_line}: a search is a multirun of its own (the Optuna sweeper runs its "
                f"trials), so one command runs one search, and a multirun cannot run a search per job. Fix: "
                f"choose one (hparams_search={first}); to run several, give each its own command and "
                f"folder (e.g. hparams_search={first} hydra.sweep.dir=outputs/multiruns/{first})")
    if group not in ONE_OPTION_GROUPS or override.is_sweep_override():
        return None
    if override.package not in (None, "", group) and not override.is_delete():
        # pass 79, row 47: before, Hydra's "To append to your default list use +model@foo=plain", which
        # was refused next (model is in the defaults already)
        where = ("at the config's top level" if override.package == "_global_" else
                 f"under another key ({override.package})")
        return (f"{override.input_line}: '@{override.package}' would put the {group} option's config "
                f"{where}, which nothing reads; the run's {group} is chosen as {group}=<option>. Fix: "
                f"{group}={value}")
    if isinstance(value, list):
        options = ",".join(str(v) for v in value)
        return (f"{override.input_line}: {group} takes one option; a list would merge them into one "
                f"config. Fix: choose one ({group}={value[0] if value else '<option>'}), or run each in a "
                f"multirun: -m {group}={options}")
    if override.is_add():
        defaults = yaml.safe_load((Path(config_dir) / f"{config_name}.yaml").read_text()).get("defaults", [])
        if any(isinstance(d, dict) and group in d for d in defaults):
            return (f"{override.input_line}: {group} is in the config's defaults already (as "
                    f"{group}: null or an option), so it is chosen without '+'. Fix: {group}={value}")
    return None


def _check_local_ranks(trainer: Any) -> None:
    """Raises OverrideError for a multirun of the local (basic) launcher whose trainer starts
    several processes (``trainer=ddp_cpu``): Lightning starts each further rank by running the
    command line again, which reruns the whole sweep. Before, each job was refused after the imports
    (:func:`highwaylab.train.build`); a sweep's first value is checked here (a ``trainer=`` sweep's
    later values still meet that refusal). Not where a launcher or torchrun starts the ranks
    (``WORLD_SIZE``, ``SLURM_NTASKS``)."""
    if "WORLD_SIZE" in os.environ or "SLURM_NTASKS" in os.environ:
        return
    devices, nodes = trainer.get("devices"), trainer.get("num_nodes") or 1
    if isinstance(devices, str) and devices.strip().isdigit():
        devices = int(devices)
    elif isinstance(devices, str) and "," in devices:
        devices = len([d for d in devices.split(",") if d.strip()])
    elif not isinstance(devices, int | bool):
        devices = len(devices) if OmegaConf.is_list(devices) else 1  # "auto": one CPU, GPUs unknown here
    processes = devices * nodes if isinstance(devices, int) and not isinstance(devices, bool) else 1
    if processes > 1:
        given = trainer.get("devices")
        raise OverrideError(f"trainer.devices={given} starts {processes} processes, and in a "
                            f"local multirun Lightning would start each further rank by rerunning the whole "
                            f"sweep. Fix: run DDP jobs one at a time (without -m), or sweep through a "
                            f"launcher that starts the ranks itself: -m hydra/launcher=slurm (or slurm_cpu)")


def _no_rerun(args: Any) -> None:
    """Raises OverrideError for Hydra's ``--experimental-rerun <file>``: it reads the pickle that Hydra's
    ``PickleJobInfoCallback`` writes (``.hydra/config.pickle``), which no run here writes, and it
    failed with an unpickling traceback on ``.hydra/config.yaml`` (breaking pass 29, row 70)."""
    given = getattr(args, "experimental_rerun", None)
    if not given:
        return
    run = Path(given).expanduser().parent.parent if Path(given).parent.name == ".hydra" else None
    run_text = shlex.quote(str(run)) if run is not None else "<run folder>"
    resume = override_arg("resume", run) if run is not None else "resume=<run folder>"
    raise OverrideError(f"--experimental-rerun {given}: Hydra's experimental rerun (of the config.pickle "
                        f"that its PickleJobInfoCallback writes) is not supported by highwaylab, whose runs "
                        f"go on through resume=. Fix: to continue or extend a run, python train.py "
                        f"{resume}; to run it again from the start, give its overrides (listed in "
                        f"{run_text}/.hydra/overrides.yaml) to python train.py")


def _one_command(args: Any) -> None:
    """Raises OverrideError when the command line gives more than one of Hydra's commands (``-m``,
    ``--run``, ``--cfg``, ``--info``, ``--shell-completion``), which Hydra refuses with a traceback."""
    commands = (("-m", args.multirun), ("--run", args.run), ("--cfg", args.cfg is not None),
                ("--info", args.info is not None), ("--shell-completion", args.shell_completion))
    given = [flag for flag, on in commands if on]
    if len(given) < 2:
        return
    fix = (" Fix: leave out -m; --cfg job <overrides> shows one job's config (give one value of each swept "
           "key, e.g. model=plain)" if "-m" in given and "--cfg" in given else " Fix: keep one of them")
    raise OverrideError(f"{' and '.join(given)}: Hydra runs one of -m (--multirun), --run, --cfg, --info and "
                        f"--shell-completion at a time.{fix}")


def _given_once(overrides: list[str], multirun: bool = True) -> str | None:
    """Raises OverrideError for a key that a multirun's command line ``overrides`` set more than once
    (``-m seed=0 seed=1``; ``+key``, ``key`` and ``++key`` are one key; ``~key`` is left alone, as in
    ``'~key' '+key=...'``, which replaces a node). Hydra keeps the last without a word: the multirun
    runs ``seed=1`` only, and its record lists both. In a single run (``multirun`` false) the last
    one wins, as Hydra has it (a key appended to a copied command changes it).

    Returns:
        For a single run, the warning lines that name the values dropped (one per key), for
        :func:`check_command_line` to print once the overrides have passed; ``None`` if none.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import OverrideType
    from hydra.errors import OverrideParseException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except OverrideParseException:
        return None  # check_overrides names the one that does not parse
    warnings = []
    given: dict[str, list[str]] = {}
    for override in parsed:
        if override.type != OverrideType.DEL:
            key = override.key_or_group + (f"@{override.package}" if override.package else "")
            given.setdefault(key, []).append(override.input_line)
    for key, lines in given.items():
        if len(lines) < 2:
            continue
        times = "twice" if len(lines) == 2 else f"{len(lines)} times"
        fix = f"keep one of them ({lines[-1]})"
        values = [line.split("=", 1)[1] for line in lines]
        if not key.startswith(("hydra.", "hydra/", "resume")) and not any("(" in v for v in values):
            prefix = lines[-1].split(key, 1)[0]  # +, ++ or nothing
            swept: list[str] = []  # each value once (pass 46, row 50: before, 3 and 3,4 gave the sweep 3,3,4)
            for value in values:
                for one in ([value] if any(c in value for c in "[{'\"") else value.split(",")):
                    if one not in swept:
                        swept.append(one)
            fix = (f"one override per key; for a sweep over {'both' if len(lines) == 2 else 'all'}, write "
                   f"{prefix}{key}={','.join(swept)} with -m")
        if not multirun:
            warnings.append(f"highwaylab: warning: {key} is given {times} ({', '.join(lines)}): the last "
                            f"one, {lines[-1]}, is used")
            continue
        raise OverrideError(f"{key} is given {times} ({', '.join(lines)}): Hydra would use only the last "
                            f"and drop the others without a word. Fix: {fix}")
    return "\n".join(warnings) or None


def _flag_for_a_key(args: list[str], config_dir: str | Path, config_name: str) -> None:
    """Raises OverrideError for ``--<key>=<value>`` (or ``--<key> <value>``, one dash too) where
    ``<key>`` is a key of the config or a config group (``--resume outputs/runs/x``, ``--depth 10``,
    ``--model=highway``, ``--trainer.max_epochs=1``): Hydra takes overrides as ``key=value``, and its
    parser would print its usage (twice) and "unrecognized arguments" without a fix. Hydra's own
    flags (``--cfg``, ``-m``, ``--config-dir``, ...) are left alone."""
    import re

    import yaml

    from highwaylab.utils.hydra_utils import quiet_args_parser

    try:
        keys = set(yaml.safe_load((Path(config_dir) / f"{config_name}.yaml").read_text()) or {})
    except (OSError, yaml.YAMLError):
        return
    keys |= {p.name for p in Path(config_dir).iterdir() if p.is_dir()} | {"hydra"}  # the config groups
    flags = set(quiet_args_parser()._option_string_actions)  # Hydra's own: --cfg, -m, -cd, ...
    for arg in args:  # -help, -cfg: a long flag with one dash (pass 58, row 68: before, argparse's
        flag = arg.partition("=")[0]  # "argument --help/-h: ignored explicit argument 'elp'")
        if flag.startswith("-") and not flag.startswith("--") and flag not in flags and f"-{flag}" in flags:
            raise OverrideError(f"{arg}: a long flag takes two dashes. Fix: -{arg}")
    for i, arg in enumerate(args):
        flag, _, value = arg.partition("=")
        name = flag.lstrip("-")
        if not arg.startswith("-") or flag in flags or re.split(r"[./@]", name.lstrip("+~"))[0] not in keys:
            continue
        following = args[i + 1] if i + 1 < len(args) else ""
        spaced = (not value and following and "=" not in following and not following.startswith("--")
                  and following not in flags)
        if spaced:
            arg, value = f"{arg} {following}", following
        if not value and not name.startswith(("+", "~")):  # -callbacks.carry_stripes: "~" mistyped, or a
            # value left out (pass 53, row 43: before, only "Fix: callbacks.carry_stripes=<value>")
            raise OverrideError(f"{arg}: Hydra takes overrides without dashes; '~' removes a key. Fix: "
                                f"~{name} to remove it, or {name}=<value> to set it")
        raise OverrideError(f"{arg}: Hydra takes overrides without dashes. Fix: {name}={value or '<value>'}")
    actions = quiet_args_parser()._option_string_actions
    long_flags = sorted(f for f in flags if f.startswith("--"))
    squeezed = {f.replace("-", "").replace("_", ""): f for f in long_flags}
    for arg in args:  # --multi-run, --multirn: a typo of Hydra's flag (pass 88, row 50: before, argparse's
        flag, eq, value = arg.partition("=")  # usage, with the valid overrides as "unrecognized" too)
        if not flag.startswith("--") or flag in flags or re.split(r"[./@]", flag[2:].lstrip("+~"))[0] in keys:
            continue
        meant = squeezed.get(flag.replace("-", "").replace("_", "")) or next(
            iter(closest_names(flag, long_flags)), None)
        if meant is not None:
            also = [o for o in actions[meant].option_strings if o != meant]
            raise OverrideError(f"{arg}: not a flag of train.py (its flags are Hydra's: python train.py "
                                f"--help lists them); did you mean {meant}{f' ({also[0]})' if also else ''}? "
                                f"Fix: {meant}{eq}{value}")
    # --max_epochs=2: a key below a group, given by its last name (pass 86, row 38: before, argparse's
    # usage and "unrecognized arguments"); the config is composed once, for all of them
    named = [arg for arg in args if arg.startswith("--") and arg.partition("=")[0] not in flags
             and re.fullmatch(r"[A-Za-z_]\w*", arg.partition("=")[0].lstrip("-"))]
    if not named:
        return
    cfg, _ = _compose(config_dir, config_name, [])
    if cfg is None:
        return

    def paths(node: object, prefix: str = "") -> Iterator[str]:
        if isinstance(node, dict):
            for key, child in node.items():
                if key != "hydra":
                    yield f"{prefix}{key}"
                    yield from paths(child, f"{prefix}{key}.")

    every = sorted(paths(OmegaConf.to_container(cfg, resolve=False)))
    for arg in named:
        flag, _, value = arg.partition("=")
        name = flag.lstrip("-")
        found = [path for path in every if path.rsplit(".", 1)[-1] == name]
        if found:
            raise OverrideError(f"{arg}: Hydra takes overrides as key=value, without dashes, and a key by "
                                f"its whole path. Fix: {found[0]}={value or '<value>'}"
                                + (f" (or {', '.join(found[1:3])})" if len(found) > 1 else ""))


def check_overrides(overrides: list[str], config_dir: str | Path,
                    config_name: str = "train") -> DictConfig | None:
    """Check ``overrides`` (the command line's, without flags) against the config they change.

    Returns:
        The composed config (with Hydra's node; a sweep's first values), or ``None`` when Hydra
        will report a fault of its own.

    Raises:
        OverrideError: see the module's docstring; one line naming the override and the fix.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except OverrideParseException:
        for i, override in enumerate(overrides):  # find the one that does not parse
            try:
                OverridesParser.create().parse_overrides([override])
            except OverrideParseException:
                raise OverrideError(_stray_argument(override)
                                    or _from_the_end(overrides, i, config_dir, config_name)
                                    or _spaced_equals(overrides, i) or _split_bracket(overrides, i)
                                    or _split_list(overrides, i)
                                    or _colon(overrides, i, config_dir, config_name)
                                    or _split_value(overrides, i, config_dir)
                                    or _unreadable(override)) from None
        return None
    for override in parsed:
        if problem := _environment_variable(override):
            raise OverrideError(problem)
        if problem := _search_tags(override):
            raise OverrideError(problem)
        if override.is_interval_sweep() and (bounds := override.value()).start > bounds.end:
            raise OverrideError(f"{override.input_line}: the interval's low bound {bounds.start:g} is above "
                                f"its high bound {bounds.end:g} (Optuna would stop with a traceback). Fix: "
                                f"interval({bounds.end:g}, {bounds.start:g})")
        if override.key_or_group.startswith("hydra.sweeper.params"):
            optuna = any(_key(o) in ("hparams_search", "hydra/sweeper") for o in overrides)
            if problem := _search_space_entry(override.input_line, override.key_or_group, optuna):
                raise OverrideError(problem)
        if problem := _shared_folder(override.key_or_group, override.input_line):
            raise OverrideError(problem)
        if problem := _out_of_float_range(override.input_line):
            raise OverrideError(problem)
        if problem := _verbose_typo(override):
            raise OverrideError(problem)
        if problem := _follows_top_level(override.key_or_group, override.input_line, overrides, config_dir,
                                         config_name):
            raise OverrideError(problem)
        if problem := _null_group(override, overrides, config_dir, config_name):
            raise OverrideError(problem)
        if problem := _module_follows(override, overrides, config_dir, config_name):
            raise OverrideError(problem)
        if problem := _null_run_name(override, overrides, config_dir, config_name):
            raise OverrideError(problem)
        if problem := _removed_top_level(override, config_dir, config_name):
            raise OverrideError(problem)
        if problem := _group_form(override, config_dir, config_name):
            raise OverrideError(problem)
        if problem := _shared_part(override, config_dir):
            raise OverrideError(problem)
        if problem := _glob_on_value(override, config_dir):
            raise OverrideError(problem)
        if problem := _hydra_sweep(override):
            raise OverrideError(problem)
        if override.key_or_group in HYDRA_GROUPS and isinstance(override.value(), str):
            group = override.key_or_group.replace(".", "/")
            raise OverrideError(f"{override.input_line}: {group} is a config group of Hydra's, chosen with a "
                                f"slash: {group}={override.value()}")
        if override.key_or_group in HYDRA_GROUPS and (override.is_delete() or override.value() is None):
            # hydra.sweeper=null: before, an AttributeError in the sweep check; hydra.job_logging=null, a
            # typed setting's message (pass 87, row 58); ~hydra.job_logging, a fix that removed it again
            group = override.key_or_group.replace(".", "/")
            from hydra.core.override_parser.overrides_parser import OverridesParser

            slash = OverridesParser.create().parse_overrides([f"{group}=null"])[0]
            others = [o for o in overrides if o != override.input_line]
            if problem := _null_group(slash, others, config_dir, config_name):
                needs = problem.split(": a config group needs ", 1)[-1]
                raise OverrideError(f"{override.input_line}: {group} is a config group of Hydra's, chosen "
                                    f"with a slash, and it needs {needs}")
    if problem := _key_of_swept_options(parsed, config_dir, config_name):
        raise OverrideError(problem)
    single = [_first_value(o) for o in parsed]
    cfg, err = _compose(config_dir, config_name, [o for o in single if o is not None])
    if err is not None:
        problem = _explain(err, overrides, single, config_dir, config_name)
        if problem is not None:
            job = _first_job_refused(parsed, single, config_dir, config_name) or ""
            raise OverrideError(job + problem) from None
        return None  # Hydra reports it, clearly enough
    _check_sweep_jobs(parsed, single, overrides, config_dir, config_name)
    for override in parsed:
        if override.is_add() and override.key_or_group.startswith("hydra."):
            rest = [o for o in single if o is not None and o != override.input_line]
            if (optuna := _optuna_setting(override.key_or_group, override.input_line, rest, config_dir,
                                          config_name)) is not None:
                raise OverrideError(optuna)
            _check_typed_field(cfg, override.key_or_group)
    for override in parsed:  # each '+a.b=...': composed once without it, for the two checks below
        if not override.is_add() or "." not in override.key_or_group \
                or override.key_or_group.startswith("hydra."):
            continue
        parent, _, name = override.key_or_group.rpartition(".")
        rest = [o for o in single if o is not None and o != override.input_line]
        base, _ = _compose(config_dir, config_name, rest)
        node = OmegaConf.select(base, parent) if base is not None else None
        if parent in READ_WHOLE and isinstance(node, DictConfig) and name not in node:
            # +optim.lr=0.01: read by nothing, the run trained at the preset's rate (pass 51, row 16, major)
            keys = ", ".join(f"{parent}.{k}" for k in node)
            meant = _deeper(node, parent, name) or "."
            raise OverrideError(f"{override.input_line}: adds {override.key_or_group}, which nothing "
                                f"reads (the module reads only {keys}){meant} Fix: correct the key "
                                f"(python train.py --cfg job lists them)")
        # +callbacks.lr_monitor.x=1 with logger=none: under a node that a group option switches off
        if (off := _switched_off(override.key_or_group, override.input_line, single, config_dir,
                                 config_name, base)) is not None:
            raise OverrideError(off)
    _removed_but_used(parsed, cfg, config_dir)
    _top_level_additions(parsed, single, config_dir, config_name)
    return cfg


def _switched_off(key: str, given: str, single: list[str | None], config_dir: str | Path,
                  config_name: str, cfg: DictConfig | None = None) -> str | None:
    """The message for a setting under a node that an option of a config group sets to ``null``
    (``logger=none`` switches ``callbacks.lr_monitor`` off, ``debug=overfit`` the scheduler):
    ``callbacks.lr_monitor.logging_interval=batch`` there was refused as a key the node lacks, and the
    ``+`` that message offered as a node without ``_target_`` (pass 48, rows 1-2). ``None`` when no
    node above ``key`` is null without ``given``. ``cfg``: the config composed without ``given``, where
    the caller has it (composed here otherwise)."""
    rest = [o for o in single if o is not None and o != given]
    if cfg is None:
        cfg, _ = _compose(config_dir, config_name, rest)
    if cfg is None:
        return None
    parts, nulled = key.split("."), None
    for n in range(1, len(parts)):  # the highest node above the key that is null
        node = OmegaConf.select(cfg, ".".join(parts[:n]), default="<absent>")
        if node is None:
            nulled = ".".join(parts[:n])
        if not OmegaConf.is_dict(node):
            break
    if nulled is None:
        return None
    groups = [o for o in rest if "=" in o and not o.startswith(("+", "~")) and "." not in _key(o)
              and (Path(config_dir) / _key(o)).is_dir()]
    by = next((o for o in groups if OmegaConf.is_dict(OmegaConf.select(
        _compose(config_dir, config_name, [r for r in rest if r != o])[0] or {}, nulled))), None)
    if by is None:
        return (f"{given}: {nulled} is off (null) in this config, so its settings would be ignored. Fix: "
                f"leave {given} out")
    return (f"{given}: {nulled} is off (null) with {by}, which switches it off, so its settings would be "
            f"ignored. Fix: leave {given} out, or drop {by}")


def _shared_part(override: Any, config_dir: str | Path) -> str | None:
    """The message for a config group's option whose name starts with '_'
    (``hparams_search=_mnist_space``, ``experiment=_paper_cifar``): a part that the group's other
    options share, not meant to be chosen alone (``--help`` lists it; chosen, it ran a whole search
    with its defaults, in silence); ``None`` otherwise."""
    group = override.key_or_group.lstrip("+~")
    values = override.value() if isinstance(override.value(), list) else [override.value()]
    folder = Path(config_dir) / group
    shared = next((v for v in values if isinstance(v, str) and v.startswith("_")
                   and (folder / f"{v}.yaml").is_file()), None)
    if shared is None or override.is_sweep_override():
        return None
    options = sorted(p.stem for p in folder.glob("*.yaml") if not p.stem.startswith("_"))
    return (f"{override.input_line}: {group}/{shared}.yaml is a part that the other {group} options share, "
            f"not meant to be chosen alone. Fix: choose one of them: "
            f"{', '.join(f'{group}={o}' for o in options)}")


# the config keys that do what an environment variable of the project or W&B does, for the fix
ENVIRONMENT_KEYS = {"HIGHWAYLAB_DATA_DIR": "data.data_dir", "WANDB_PROJECT": "logger.wandb.project",
                    "WANDB_ENTITY": "logger.wandb.entity", "WANDB_RUN_GROUP": "logger.wandb.group",
                    "WANDB_TAGS": "tags"}


def _environment_variable(override: Any) -> str | None:
    """The message for an environment variable written as an override, after the script
    (``python train.py HIGHWAYLAB_DATA_DIR=/data``, ``WANDB_MODE=disabled``): the config's keys are
    lower case, and before, the fix was to add it with '+', which was refused in turn as a key that
    nothing reads (pass 89, rows 14 and 18, major). ``None`` for any other override."""
    name = override.key_or_group
    if not re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", name) and name not in os.environ:
        return None
    if not name.isupper() or override.is_delete() or override.is_sweep_override():
        return None
    value = str(override.value())
    also = (f", or give {ENVIRONMENT_KEYS[name]}={value} in its place" if name in ENVIRONMENT_KEYS else
            ", or logger=none for no W&B logger" if name == "WANDB_MODE" and value == "disabled" else "")
    return (f"{override.input_line}: {name} is an environment variable, not a config key (those are lower "
            f"case). Fix: set it before the command, as the README does: {name}={shell_word(value)} python "
            f"train.py <the same overrides, without it>{also}")


def _top_level_additions(parsed: list[Any], single: list[str | None], config_dir: str | Path,
                         config_name: str) -> None:
    """Raises OverrideError for a ``+key=value`` that adds a top-level key nothing reads
    (``+max_epochs=2``, meant for ``trainer.max_epochs``: the run ignored it, and its record listed
    it), with the key it probably meant. A group (``+experiment=...``) is left to Hydra."""
    added = [o for o in parsed if o.is_add() and "." not in o.key_or_group and "/" not in o.key_or_group
             and not (Path(config_dir) / o.key_or_group).is_dir()]
    for override in added:
        key = override.key_or_group
        rest = [o for o in single if o is not None and o != override.input_line]
        base, _ = _compose(config_dir, config_name, rest)
        if base is None or key in base:
            continue
        leaves = [path for path in _leaf_paths(OmegaConf.to_container(base, resolve=False))
                  if not path.startswith("hydra.")]
        names = {path.rsplit(".", 1)[-1]: path for path in reversed(leaves)}  # the first path per name
        meant = next(iter(closest_names(key, list(names))), "")
        hint = f"; did you mean {names[meant]}?" if meant else "."
        raise OverrideError(f"{override.input_line}: adds a top-level key '{key}' that nothing in the run "
                            f"reads (it would be ignored, and recorded){hint} Fix: correct the key (python "
                            f"train.py --cfg job lists them)")


def _leaf_paths(node: Any, path: str = "") -> list[str]:
    """The dotted paths of the scalar values under ``node`` (a plain container)."""
    if isinstance(node, dict):
        return [leaf for k, v in node.items() for leaf in _leaf_paths(v, f"{path}.{k}" if path else str(k))]
    return [path] if path else []


def _removed_but_used(parsed: list[Any], cfg: DictConfig, config_dir: str | Path) -> None:
    """Raises OverrideError for a ``~key`` (a key removed, not a group) that another key of the
    composed ``cfg`` interpolates without a default (``~optim.scheduler``: ``module.scheduler:
    ${optim.scheduler}``; ``~seed``: ``run_name``), which would otherwise fail later as that other
    key's unresolvable value, or as a traceback after the imports."""
    import re

    from hydra.core.override_parser.types import OverrideType

    from highwaylab.config_checks import GROUPS

    removed = [o for o in parsed if o.type == OverrideType.DEL and "/" not in o.key_or_group
               and o.value() is None and o.key_or_group not in GROUPS]  # those: "the group is missing"
    if not removed:
        return
    raw = OmegaConf.to_container(cfg, resolve=False)
    raw.pop("hydra", None)
    for override in removed:
        key = override.key_or_group
        use = re.compile(r"\$\{" + re.escape(key) + r"[}.\[]")  # ${optim.scheduler}, not ${oc.select:...}
        user = _first_use(raw, use)
        if user is None:
            continue
        group = (Path(config_dir) / key).is_dir()  # ~paths: the group's config (pass 97, rows 24, 24b:
        # before, the first key that used it, then the next one, each named alone)
        fix = (f"for no scheduler, write {key}=null instead" if key == "optim.scheduler" else
               f"leave {override.input_line} out, or choose another of its options ({key}=<option>)" if group
               else f"leave {override.input_line} out, or give {key} a value")
        what = f"the {key} group's config" if group else key
        raise OverrideError(f"{override.input_line}: removes {what}, which {user} uses, so the config would "
                            f"not resolve. Fix: {fix}")


def _first_use(node: Any, pattern: Any, path: str = "") -> str | None:
    """The key of the first string value under ``node`` (a plain container) that ``pattern`` finds."""
    if isinstance(node, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in node.items())
    elif isinstance(node, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(node))
    else:
        return path if isinstance(node, str) and pattern.search(node) else None
    for where, value in items:
        if (found := _first_use(value, pattern, where)) is not None:
            return found
    return None


def _search_tags(override: Any) -> str | None:
    """The message for a sweep's ``tag()`` that the Optuna sweeper cannot take: it reads one tag, ``log``,
    of an ``interval()`` (a log-uniform search, which needs a low bound above 0: else Optuna stops with a
    traceback, after the study is made), and ignores any other (``tag(int, ...)`` ran as a float
    search, unsaid); ``None`` otherwise (breaking pass 62, rows 29 and 31)."""
    if not override.is_sweep_override():
        return None
    value = override.value()
    tags = sorted(getattr(value, "tags", None) or ())
    key = override.get_key_element()
    if other := [t for t in tags if t != "log"]:
        return (f"{override.input_line}: the Optuna sweeper reads one tag, log (of an interval: a "
                f"log-uniform search), and would ignore {', '.join(other)}; an interval of integers, "
                f"interval(1, 10), searches integers. Fix: tag(log, interval(...)), or no tag")
    if tags and not override.is_interval_sweep():
        return (f"{override.input_line}: tag(log, ...) makes a search log-uniform only over an interval(); "
                f"the sweeper ignores it here. Fix: e.g. '{key}=tag(log, interval(0.001, 1.0))', or no tag")
    if tags and value.start <= 0:
        low, high = value.end / 1000, value.end
        return (f"{override.input_line}: a log-uniform interval needs a low bound above 0 (Optuna would "
                f"stop with a traceback). Fix: e.g. '{key}=tag(log, interval({low:g}, {high:g}))'")
    return None


def _sweep_strings(override: Any) -> list[str]:
    """The values of the sweep ``override`` as strings (Hydra's ``sweep_string_iterator``).

    Raises:
        OverrideError: a ``range()`` Hydra cannot step through (``seed=range(0,4,0)``: breaking pass
            60, row 12: before, a traceback ending in "range() arg 3 must not be zero").
    """
    try:
        return list(override.sweep_string_iterator())
    except ValueError as err:
        key = override.get_key_element()
        raise OverrideError(f"{override.input_line}: {err}: range(start, stop, step) steps from start up to "
                            f"stop (not included) by a step that is not 0. Fix: e.g. {key}=range(0,4) or "
                            f"{key}=range(0,4,2)") from None


def _hydra_sweep(override: Any) -> str | None:
    """The message for a sweep of Hydra's own settings (``-m hydra/job_logging=default,stdout``), which
    Hydra refuses with "Sweeping over Hydra's configuration is not supported" and no fix (breaking
    pass 67, row 34); ``None`` otherwise. A search space entry (``hydra.sweeper.params.<key>``) is a
    string that the search parses: it is quoted."""
    key = override.key_or_group
    if not override.is_sweep_override() or not (key == "hydra" or key.startswith(("hydra/", "hydra."))):
        return None
    value = override.input_line.split("=", 1)[1] if "=" in override.input_line else "<value>"
    if key.endswith((".dir", ".subdir")):  # a folder: never "one multirun for each value" (pass 78, row 37,
        # major: before, hydra.run.dir=a,b was told to add -m, then to give hydra.sweep.dir=a,b, which
        # Hydra refused in its own words)
        if (path := _one_path(override)) is not None:  # an existing folder whose name holds the comma
            return path
        first = _first_value(override) or f"{key}=<folder>"
        if key == "hydra.run.dir":  # -m takes its folder as hydra.sweep.dir
            first += f"; with -m, {first.replace('hydra.run.dir=', 'hydra.sweep.dir=', 1)}"
        return (f"{override.input_line}: a comma separates the values of a sweep, and Hydra does not sweep "
                f"its own settings (hydra.* keys): a multirun puts each job in a folder of its own under one "
                f"hydra.sweep.dir. Fix: give one folder ({first}), or quote a folder whose name holds a "
                f"comma (\"{key}='{value}'\")")
    if key.startswith("hydra.sweeper.params."):
        return (f"{override.input_line}: a search space entry is text that the search parses, and unquoted "
                f"Hydra takes it as a sweep of its own settings. Fix: quote it: \"{key}='{value}'\"")
    strings = [] if override.is_interval_sweep() else _sweep_strings(override)
    first = {"True": "true", "False": "false"}.get(strings[0], strings[0]) if strings else "<value>"
    return (f"{override.input_line}: Hydra does not sweep its own settings (hydra/ groups and hydra.* keys): "
            f"every job of a multirun shares them. Fix: one multirun for each value, e.g. {key}={first}")


def _glob_on_value(override: Any, config_dir: str | Path) -> str | None:
    """The message for a ``glob()`` over a key that is not a config group (``seed=glob(*)``): it
    matches the options of a group, so a value's sweep has none, and the multirun would run no job,
    with exit status 0 (breaking pass 66, row 45); ``None`` otherwise."""
    from hydra.core.override_parser.types import Glob

    if not isinstance(override.value(), Glob):
        return None
    group = override.key_or_group.replace(".", "/")
    if any((Path(folder) / group).is_dir() for folder in (config_dir, *_CONFIG_DIRS)) \
            or group.startswith("hydra/"):
        return None
    key = override.get_key_element()
    return (f"{override.input_line}: glob() chooses among the options of a config group (e.g. "
            f"'model=glob(*highway)'), and {key} is a value, not a group, so the multirun would run no job. "
            f"Fix: list the values, e.g. {key}=0,1,2 or '{key}=range(0,3)'")


def _first_value(override: Any) -> str | None:
    """``override`` as a single value: a sweep ``depth=3,4`` as ``depth=3``; ``None`` for a
    ``glob()`` over a group's options (Hydra expands it with its config loader, when it runs).

    Raises:
        OverrideError: a sweep of no value (``seed=range(0,0)``: a multirun of no job).
    """
    from hydra.core.override_parser.types import Glob

    if not override.is_sweep_override():
        return override.input_line
    key = override.get_key_element()
    if override.is_interval_sweep():
        start = override.value().start  # 3 for interval(3,5), whose bounds Hydra reads as 3.0
        return f"{key}={int(start) if float(start).is_integer() else start}"
    if isinstance(override.value(), Glob):
        return None
    first = next(iter(_sweep_strings(override)), None)
    if first is None:
        from hydra.core.override_parser.types import RangeSweep

        sweep = override.value()
        if isinstance(sweep, RangeSweep) and sweep.start is not None and sweep.step:  # pass 83, row 33:
            # before, "e.g. depth=range(0,3)", whose depth=0 is refused: the examples start at its start
            start, step = sweep.start, abs(sweep.step)
            shown = ",".join(f"{start + i * step:g}" for i in range(2))
            whole = float(start).is_integer() and float(step).is_integer()  # a float range's stop is fragile
            step_text = f",{step:g}" if step != 1 else ""
            also = f" or '{key}=range({start:g},{start + 2 * step:g}{step_text})'" if whole else ""
            raise OverrideError(f"{override.input_line}: the range is empty (range(start, stop[, step]) "
                                f"stops before stop, and {sweep.stop:g} is not past {start:g} in the step's "
                                f"direction), so the multirun would run no job. Fix: values from its start, "
                                f"e.g. {key}={shown}{also}")
        raise OverrideError(f"{override.input_line}: the sweep has no value, so the multirun would run no "
                            f"job. Fix: give at least one, e.g. {key}=range(0,3) or {key}=0,1,2")
    return f"{key}={first}"


def _check_sweep_jobs(parsed: list[Any], single: list[str | None], overrides: list[str],
                      config_dir: str | Path, config_name: str) -> None:
    """Raises OverrideError when a later job of a sweep over a config group (``model=highway,residual``)
    does not compose, naming that job: the checks compose the first job (:func:`_first_value`), and
    Hydra's sweeper composes every job before the first starts, so a later job's key (``model.gate_bias``
    with ``model=residual``) or option (``model=highway,resdual``) was Hydra's raw lines, after the
    sweep's folder was made (pass 57, rows 26 and 29, major). Each other value of each group sweep is
    composed with the other overrides at their first values."""
    for _, override, job, others, err in _other_jobs_composed(parsed, single, config_dir, config_name):
        if err is not None:
            problem = _explain(err, overrides, others, config_dir, config_name) or _one_line(err)
            raise OverrideError(f"{job}, a job of the sweep {override.input_line}, is refused (nothing ran): "
                                f"{problem}")


def _other_jobs_composed(parsed: list[Any], single: list[str | None], config_dir: str | Path,
                         config_name: str) -> Iterator[tuple[int, Any, str, list, Exception | None]]:
    """For each other value of each group sweep (:func:`_other_jobs`), with the other overrides at
    their first values (``single``): the override's index, the override, the job's value of it
    (``model=residual``), that job's overrides, and the composition's error (``None``: it composes)."""
    for i, override in enumerate(parsed):
        for value in _other_jobs(override, config_dir):
            job = f"{override.get_key_element()}={value}"
            others = [*single[:i], job, *single[i + 1:]]
            yield i, override, job, others, _compose(config_dir, config_name, [o for o in others if o])[1]


def _other_jobs(override: Any, config_dir: str | Path) -> list[str]:
    """The values of a sweep over a config group past the first (which the checks compose as the
    first job); every option that a ``glob()`` takes (none of which is composed as the first: pass
    58, row 82); ``[]`` for any other override."""
    from hydra.core.override_parser.types import Glob

    group = override.key_or_group
    folders = [Path(folder) / group for folder in (config_dir, *_CONFIG_DIRS)]
    if not override.is_sweep_override() or override.is_interval_sweep() or override.package is not None \
            or not any(folder.is_dir() for folder in folders):
        return []
    if isinstance(override.value(), Glob):
        options = sorted({p.stem for folder in folders for p in folder.glob("*.yaml")})
        return override.value().filter(options)
    return _sweep_strings(override)[1:]


def _key_of_swept_options(parsed: list[Any], config_dir: str | Path, config_name: str) -> str | None:
    """The message for a key override of a config group that the command line sweeps
    (``-m model=residual,conv_residual model.zero_init=false``) where the key is in the swept options'
    configs and not in the group's default's: Hydra composes a multirun's own config (for its sweeper
    and launcher) from the overrides that are not sweeps, so there the group is its default, which has
    no such key. Without '+', Hydra refused it there in its own lines, suggesting '+'; with '+', each
    job's config, which has the key, refused it, and the fix was "without '+'" (pass 93, rows 10 and
    13, major). ``++`` sets the key where it is and adds it where it is not; an option without the key
    is named, to sweep apart. ``None`` if no override is such a key."""
    swept = {o.key_or_group: o for o in parsed if o.is_sweep_override() and not o.is_interval_sweep()
             and o.package is None and _first_value(o) is not None
             and (Path(config_dir) / o.key_or_group).is_dir()}
    for override in parsed:
        key, group = override.key_or_group, override.key_or_group.split(".", 1)[0]
        if group not in swept or "." not in key or override.is_delete() or override.is_force_add() \
                or override.is_sweep_override() or (override.is_add() and isinstance(override.value(),
                                                                                      dict | list)):
            continue
        rest = [o.input_line for o in parsed if not o.is_sweep_override() and o is not override]
        sweep = swept[group]
        options = [_first_value(sweep).split("=", 1)[1], *_other_jobs(sweep, config_dir)]
        default = _compose(config_dir, config_name, rest)[0]  # the multirun's own config: first, and
        if default is None or _has_key(default, key):  # usually the last composed (not the cause)
            continue
        chosen = default.hydra.runtime.choices.get(group)
        if chosen in options:  # a job of the sweep lacks it: that job is named (_check_sweep_jobs)
            continue
        has = {v: _has_key(_compose(config_dir, config_name, [*rest, f"{group}={v}"])[0], key)
               for v in options}
        if not any(has.values()):
            continue
        value = override.input_line.split("=", 1)[1]
        where = ("Hydra refuses it there" if not override.is_add() else
                 "with '+', each job that has it refuses it")
        forced = shell_word(f"++{key}={value}")
        fix = f"{forced} ('++' sets the key where it is and adds it where it is not)"
        lack, with_key = [v for v in options if not has[v]], [v for v in options if has[v]]
        owners = f"the options of the sweep {sweep.input_line}"
        if lack:
            owners = f"{' and '.join(f'{group}={v}' for v in with_key)} (of the sweep {sweep.input_line})"
            fix = (f"sweep the options that have it with {fix}, and the others apart without it: "
                   f"{group}={','.join(with_key)} {forced}, then {group}={','.join(lack)}")
        return (f"{override.input_line}: {key} is a key of {owners}, but not of {group}={chosen}, the "
                f"default, with which Hydra composes a multirun's own config (the overrides that are not "
                f"sweeps) before its jobs: {where}. Fix: {fix}")
    return None


def _has_key(cfg: DictConfig | None, key: str) -> bool:
    """Whether the composed ``cfg`` holds the dotted ``key`` (a null value counts)."""
    missing = object()
    return cfg is not None and OmegaConf.select(cfg, key, default=missing, throw_on_missing=False,
                                                throw_on_resolution_failure=False) is not missing


def _first_job_refused(parsed: list[Any], single: list[str | None], config_dir: str | Path,
                       config_name: str) -> str | None:
    """For a sweep whose first job does not compose, while the job of another value of one of its
    group sweeps does: the prefix that names that first job (``model=highway, a job of the sweep
    model=highway,residual, is refused (nothing ran): ``), as a later job's refusal reads (pass 58,
    row 20: before, the first job's was worded as a single run's); ``None`` otherwise."""
    for i, override, _, _, err in _other_jobs_composed(parsed, single, config_dir, config_name):
        if single[i] is not None and err is None:
            return f"{single[i]}, a job of the sweep {override.input_line}, is refused (nothing ran): "
    return None


def _one_line(err: Exception) -> str:
    """The first line of Hydra's or OmegaConf's message for ``err``."""
    return next((line.strip() for line in str(err).splitlines() if line.strip()), type(err).__name__)


def _compose(config_dir: str | Path, config_name: str, overrides: list[str]) -> tuple[DictConfig | None,
                                                                                      Exception | None]:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    from highwaylab.utils.resume import _searched

    for folder in _CONFIG_DIRS:
        overrides = _searched(overrides, folder)
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(Path(config_dir).resolve())):
            return compose(config_name, overrides=overrides, return_hydra_config=True), None
    except Exception as err:  # Hydra's and OmegaConf's composition errors
        return None, err
    finally:
        GlobalHydra.instance().clear()


def _added_but_present(single: list[str | None], config_dir: str | Path, config_name: str) -> str | None:
    """The message for a ``+key=value`` (Hydra's append) of a key the config already has, from its
    files or from an earlier override on the command line (``depth=3 +depth=5``, a ``+`` appended to a
    copied command), which Hydra refuses in three lines ("Could not append to config"); ``None`` if
    no such override is the cause. Each ``+`` override of a key (not a group) is tried, with Hydra's
    own rule (``ConfigLoaderImpl._apply_overrides_to_config``): the config composed with the
    overrides before it holds a value there that is not null (a null key takes ``+``), the value
    given is not a mapping or a list (those merge), and the composition fails with it, not before."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    given = [o for o in single if o is not None]
    for i, override in enumerate(OverridesParser.create().parse_overrides(given)):
        key = override.key_or_group
        if not override.is_add() or "/" in key or (Path(config_dir) / key).is_dir() \
                or isinstance(override.value(), dict | list):
            continue
        before, _ = _compose(config_dir, config_name, given[:i])
        if before is None or OmegaConf.select(before, key, throw_on_missing=False,
                                              throw_on_resolution_failure=False) is None:
            continue
        if _compose(config_dir, config_name, given[:i + 1])[0] is not None:
            continue  # it composes: not the cause
        earlier = next((o for o in reversed(given[:i]) if _key(o) == key), None)
        where = f"{earlier} on this command line" if earlier else "the config has it"
        value = override.input_line.split("=", 1)[1]
        if earlier is not None and earlier.startswith("+"):  # the key is the command line's own addition
            fix = f"give it once: {override.input_line}"
        else:
            fix = f"write {key}={value} (without '+'{'; the last value given is used' if earlier else ''})"
        return (f"{override.input_line}: {key} is already set ({where}), and '+' adds only a key that is "
                f"not there, so Hydra would refuse it. Fix: {fix}")
    return None


def _new_key_in_mapping(missing_key: str, overrides: list[str], single: list[str | None],
                        config_dir: str | Path, config_name: str) -> str | None:
    """The message for a mapping given to a key of the config (``key={new:1}``, no ``+``) that holds a
    key the config's mapping there lacks: Hydra merges the two and refuses the new key in six lines
    ("Could not override ... Key 'new' is not in struct"; pass 71, row 17:
    ``hydra.launcher.additional_parameters={mail-type:END}``): a near key of the mapping, or the ``+``
    that adds it. ``None`` if no such override is found, or it sets a config group's node."""
    for i, line in enumerate(single):
        key = _key(line) if line is not None else ""
        value = line.split("=", 1)[1].strip() if line is not None and "=" in line else ""
        if not key or line.startswith(("+", "~")) or not missing_key.startswith(key + ".") \
                or not (value.startswith("{") and value.endswith("}")) \
                or any((Path(d) / key.replace(".", "/")).is_dir() for d in (config_dir, *_CONFIG_DIRS)):
            continue
        new = missing_key[len(key) + 1:].split(".", 1)[0]
        rest, _ = _compose(config_dir, config_name, [o for o in single if o is not None and o != line])
        node = OmegaConf.select(rest, key, default=None) if rest is not None else None
        near = closest_names(new, [str(k) for k in node.keys()]) if OmegaConf.is_dict(node) else []
        if near:
            return (f"{overrides[i]}: {key} has no key '{new}'; did you mean '{near[0]}'? Fix: correct it "
                    f"in the mapping")
        return (f"{overrides[i]}: {key} has no key '{new}', and a mapping given without '+' only changes "
                f"the keys it has. Fix: add it with '+': +{overrides[i]}")
    return None


def _past_the_list(key: str, index: int, overrides: list[str], single: list[str | None],
                   config_dir: str | Path, config_name: str) -> str | None:
    """The message for an override of a list's entry that the list does not have
    (``model.stages.5.channels=3`` of a 3-stage preset; Hydra: "list index out of range" in 5 lines):
    how many entries the list has, and how to replace it whole (breaking pass 39, row 36); ``None``
    when the override or the list cannot be found."""
    prefix = f"{key}.{index}"
    given = next((o for o in overrides if _key(o) == prefix or _key(o).startswith(f"{prefix}.")), None)
    if given is None:
        return None
    rest, _ = _compose(config_dir, config_name, [o for o in single if o is not None and o != given])
    node = OmegaConf.select(rest, key, default=None) if rest is not None else None
    if not OmegaConf.is_list(node):
        return None
    count = len(node)
    entries = f"{count} entries (indices 0 to {count - 1})" if count > 1 else (
        "1 entry (index 0)" if count else "no entries")
    whole = _flow(OmegaConf.to_container(node, resolve=False))
    return (f"{given}: {key} is a list of {entries}, so it has no entry {index}. Fix: an index that it has, "
            f"or give the whole list, e.g. '{key}={whole}' (python train.py --cfg job shows it)")


def _flow(value: Any) -> str:
    """``value`` (a plain container) as Hydra's override grammar writes it: ``[{channels:16,layers:3}]``."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_flow(v) for v in value) + "]"
    return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)


# the pip packages of Hydra's plugins, by group and option (an option of one that is not installed)
PLUGIN_PACKAGES = {
    "hydra/launcher": {"joblib": "hydra-joblib-launcher", "ray": "hydra-ray-launcher",
                       "rq": "hydra-rq-launcher", "submitit_local": "hydra-submitit-launcher",
                       "submitit_slurm": "hydra-submitit-launcher"},
    "hydra/sweeper": {"optuna": "hydra-optuna-sweeper", "ax": "hydra-ax-sweeper",
                      "nevergrad": "hydra-nevergrad-sweeper"},
    "hydra/job_logging": {"colorlog": "hydra-colorlog"},
    "hydra/hydra_logging": {"colorlog": "hydra-colorlog"},
}


def _explain(err: Exception, overrides: list[str], single: list[str | None], config_dir: str | Path,
             config_name: str) -> str | None:
    """The one-line message for a composition error ``err``, or ``None`` to leave it to Hydra."""
    from hydra.errors import MissingConfigException

    from highwaylab.config_checks import adam_momentum

    if (conflict := _search_conflict(overrides, single, config_dir, config_name)) is not None:
        return conflict
    copy = next((o for o in overrides if _key(o) == "hydra.job.env_copy"), None)
    if isinstance(err, KeyError) and copy is not None and err.args and err.args[0] not in os.environ:
        # pass 84, row 17: Hydra copies hydra.job.env_copy's variables as it composes; before, its KeyError
        return (f"{copy}: {err.args[0]} is not set in this shell, and Hydra copies each variable of "
                f"hydra.job.env_copy into the job's environment. Fix: export {err.args[0]}=<value> first, or "
                f"leave it out of hydra.job.env_copy")
    if (present := _added_but_present(single, config_dir, config_name)) is not None:
        return present
    if (added := _group_added(err, single, config_dir, config_name)) is not None:
        return added
    if (second := _second_choice(err, single, config_dir)) is not None:
        return second
    if (unread := _not_yaml(err)) is not None:
        return unread
    if isinstance(err, MissingConfigException) and err.missing_cfg_file and "/" in err.missing_cfg_file:
        group, name = err.missing_cfg_file.rsplit("/", 1)
        culprit = next((o for o in overrides if o.split("=", 1)[0].lstrip("+~") == group
                        and o.split("=", 1)[-1].startswith("[")), None)
        options = sorted({p.stem for folder in (config_dir, *_CONFIG_DIRS)
                          for p in (Path(folder) / group).glob("*.yaml") if not p.stem.startswith("_")})
        of_group = [o for o in overrides if o.split("=", 1)[0].lstrip("+~") == group]
        # the override that names the missing option, not an earlier one of the group (pass 86, row 44:
        # "$T callbacks=Minimal" was answered as "callbacks=minimal: ... no option 'Minimal'")
        given = next((o for o in of_group if o.split("=", 1)[-1] == name), next(iter(of_group), None))
        if group.startswith("hydra/") and err.options and given and culprit is None:
            # pass 38, row 28: before, Hydra's 12 lines for hydra/job_logging=colorlog, a plugin's option;
            # pass 45, row 57: hydra/launcher=joblib too (Hydra's own and the plugins' options, and ours)
            found = sorted({*err.options, *options})
            meant = did_you_mean(name, found, prefix=f"{group}=")
            package = PLUGIN_PACKAGES.get(group, {}).get(name)
            example = (f"{name}: pip install {package}" if package else "e.g. colorlog: pip install "
                       "hydra-colorlog" if group.endswith("logging") else "e.g. joblib: pip install "
                       "hydra-joblib-launcher")
            plugin = "" if meant else f" An option of a Hydra plugin needs that plugin installed ({example})"
            return (f"{given}: Hydra's {group} has no option '{name}'{meant or '.'} Its options here: "
                    f"{', '.join(found)}.{plugin}")
        if not options:
            return None
        if culprit is None:  # a single option: Hydra's 12 lines listed the options (pass 45, row 57: one
            folded = [o for o in options if o.lower() == name.lower()]  # line, as every refusal); a slip
            meant = f"; did you mean {group}={folded[0]}?" if folded else did_you_mean(name, options,
                                                                                      prefix=f"{group}=")
            if given is None:  # of case or a typo gets its fix (pass 32, note on row 22: model=Highway)
                return None
            if (elsewhere := _in_another_folder(group, name)) is not None:  # pass 70, row 23: models/
                return (f"{given}: {group} has no option '{name}', but {elsewhere} is there: the group's "
                        f"folder is {group}/. Fix: mv {shlex.quote(str(elsewhere.parent))} "
                        f"{shlex.quote(str(elsewhere.parent.parent / group))}")
            return f"{given}: {group} has no option '{name}'{meant or '.'} Its options: {', '.join(options)}"
        meant = did_you_mean(name, options, prefix=f"{group}=")
        return f"{culprit}: {group} has no option '{name}'{meant or '.'} Its options: {', '.join(options)}"
    deleted = re.fullmatch(r"Could not delete from config\. '(.+)' does not exist\.", str(err))
    if deleted is not None:  # pass 49, row 92: before, Hydra's 3 lines for ~callbacks.carry_stripe
        key = deleted[1]
        given = next((o for o in overrides if o.startswith("~") and _key(o) == key), f"~{key}")
        parent, _, name = key.rpartition(".")
        rest, _ = _compose(config_dir, config_name, [o for o in single if o is not None and o != given])
        node = OmegaConf.select(rest, parent) if rest is not None and parent else rest
        keys = [str(k) for k in node.keys()] if isinstance(node, DictConfig) else []
        meant = did_you_mean(name, keys, prefix=f"~{parent}." if parent else "~")
        where = f"{parent} has no key '{name}'" if parent else f"the config has no top-level key '{name}'"
        return (f"{given}: {where}, so there is nothing to remove{meant or '.'} Fix: correct the key (python "
                f"train.py --cfg job lists them), or leave {given} out")
    cause = err.__cause__
    missing_key = getattr(cause, "full_key", None)
    if isinstance(cause, ConfigTypeError) and missing_key:  # tags={a:1}: a mapping into a list
        given = next((o for o in overrides if _key(o) == missing_key), None)
        if given is not None:
            if missing_key == "tags":
                return f"{given}: tags must be a list of tags or one tag, e.g. tags=[base,wide] or tags=base"
            rest, _ = _compose(config_dir, config_name, [o for o in single if o is not None and o != given])
            node = OmegaConf.select(rest, missing_key) if rest is not None else None
            kind = ("a list" if OmegaConf.is_list(node) else "a mapping" if OmegaConf.is_dict(node)
                    else "of another kind")
            value = given.split("=", 1)[1].strip() if "=" in given else ""
            entries = OmegaConf.is_list(node) and len(node) and OmegaConf.is_dict(node[0])  # of mappings
            if entries and value.startswith("{") and value.endswith("}"):  # pass 63, row 13:
                # model.stages={channels:4,layers:1}; before, "replace it whole" with the same mapping
                return (f"{given}: {missing_key} is a list in the config, and this is one entry of it (a "
                        f"mapping). Fix: give the list, e.g. '{missing_key}=[{value}]'")
            return (f"{given}: {missing_key} is {kind} in the config, and Hydra cannot merge this value into "
                    f"it ({' '.join(str(cause).splitlines()[:1])}). Fix: give a value of its kind (python "
                    f"train.py --cfg job shows it), or replace it whole: '~{missing_key}' "
                    f"'+{given.lstrip('+~')}'")
    if isinstance(cause, ConfigIndexError) and missing_key and (
            entry := re.fullmatch(r"(.+)\[(-?\d+)\]", missing_key)) is not None:
        return _past_the_list(entry[1], int(entry[2]), overrides, single, config_dir, config_name)
    given = next((o for o in overrides if _key(o) == missing_key), None) if missing_key else None
    if isinstance(cause, ValidationError) and given is not None:  # pass 36, row 66: before, Hydra's 5
        rest, _ = _compose(config_dir, config_name, [o for o in single if o is not None and o != given])
        now = OmegaConf.select(rest, missing_key, default=None) if rest is not None else None  # lines
        example = f" Fix: a value of its type, e.g. {missing_key}={now}" if now is not None else ""
        if OmegaConf.is_dict(now) or OmegaConf.is_list(now):  # a mapping's repr is no override Hydra reads
            # (pass 55, row 49, major: hydra.sweeper.sampler=null got "e.g. sampler={'_target_': ...}",
            # and each quoted form of it was refused in turn)
            target = now.get("_target_") if OmegaConf.is_dict(now) else None
            what = (f"a mapping of {target}" if target else
                    "a mapping" if OmegaConf.is_dict(now) else "a list")
            shown = "hydra" if missing_key.startswith("hydra.") else "job"
            example = (f" Fix: leave {given} out (its value is {what}), or set one of its keys, e.g. "
                       f"{missing_key}.<key>=<value> (python train.py --cfg {shown} shows them)")
        return f"{given}: {missing_key} is a typed setting: {str(cause).splitlines()[0]}.{example}"
    if not isinstance(cause, ConfigAttributeError | ConfigKeyError) or not missing_key:
        return None
    missing_key = re.sub(r"\[(\d+)\]", r".\1", missing_key)  # model.stages[0].chanels, as it was given (pass
    # 72, row 50: before, Hydra's "To append to your config use +model.stages.0.chanels=32", refused in turn)
    at = [i for i, o in enumerate(single) if o is not None and (_key(o) == missing_key
                                                                 or _key(o).startswith(missing_key + "."))]
    index = next((i for i in at if not single[i].startswith("~")), at[0] if at else None)  # ~trainer: later
    if index is None:
        return _new_key_in_mapping(missing_key, overrides, single, config_dir, config_name)
    given = overrides[index]
    removed = next((o for o in overrides if o.startswith("~") and "=" not in o
                    and (missing_key == _key(o) or missing_key.startswith(_key(o) + "."))), None)
    if removed is not None and not given.startswith("~"):  # ~trainer trainer.max_epochs=1
        return (f"{given}: the config has no key '{missing_key}': '{_key(removed)}' was removed by {removed} "
                f"on this command line. Fix: drop {removed} ({given} alone changes that key)")
    parent, _, name = missing_key.rpartition(".")
    if (off := _switched_off(missing_key, single[index], single, config_dir, config_name)) is not None:
        return off.replace(single[index], given, 1)
    rest = [o for i, o in enumerate(single) if o is not None and i != index]
    cfg, _ = _compose(config_dir, config_name, rest)
    if cfg is not None and (source := _followed(cfg, missing_key)) is not None and not given.startswith("~"):
        # pass 69, row 29 (major): module.optimizer.lr=0.01, the key as --cfg job prints it; before,
        # "add it: +module.optimizer.lr", which was refused in turn ("drop the '+'")
        return _follows_message(given, missing_key, *source)
    node = OmegaConf.select(cfg, parent) if cfg is not None and parent else cfg
    keys = [str(k) for k in node.keys()] if isinstance(node, DictConfig) else []
    where = f"{parent} has no key '{name}'" if parent else f"the config has no top-level key '{name}'"
    meant = did_you_mean(name, keys, prefix=f"{parent}." if parent else "") or _deeper(node, parent, name)
    value = given.split("=", 1)[1] if "=" in given else ""
    near = closest_names(name, keys)
    if len(near) == 1 and cfg is not None and parent and not given.startswith("~") and (
            follows := _followed(cfg, f"{parent}.{near[0]}")) is not None and "." not in follows[1]:
        # new-user check: model.widht=10 was sent to model.width=10, which is refused in turn ("width=10")
        meant = f"; did you mean {follows[1]}={value} ({follows[0]} follows the top-level {follows[1]})?"
    groups = [p.parent.name for p in Path(config_dir).glob(f"*/{value}.yaml")] if value and not parent else []
    if group := next(iter(closest_names(name, groups)), ""):
        meant = f"; did you mean the group {group}={value}?"  # modle=plain: model=, not module
    model = cfg.hydra.runtime.choices.get("model") if cfg is not None else None
    if missing_key == "model.gate_bias" and model is not None and not given.startswith("~"):
        # +model.gate_bias would be refused in turn (check_gate_bias): a block without gates
        return (f"{given}: model={model} has no gates, and model.gate_bias is for highway models. Fix: "
                f"model=highway {given.lstrip('+')} (model=conv_highway for a conv net), or leave it out")
    if (optuna := _optuna_setting(missing_key, given, rest, config_dir, config_name)) is not None:
        return optuna
    if parent == "hydra.launcher" and cfg is not None and cfg.hydra.runtime.choices.get("hydra/launcher") in (
            None, "basic"):
        return _basic_launcher_setting(given)
    show = "hydra" if missing_key.startswith("hydra.") else "job"
    target = node.get("_target_") if isinstance(node, DictConfig) else None
    if parent == "optim.optimizer" and not given.startswith("~") and (
            adam := adam_momentum(OmegaConf.create({"_target_": str(target), name: value}))) is not None:
        return adam  # optim=adamw optim.optimizer.momentum=0.9: '+' would be refused in turn
    if not given.startswith("~") and (  # a key of another option before a near one of this option
            other := _key_of_other_options(missing_key, given, rest, cfg, config_dir, config_name)):
        return other  # (pass 50, row 7: model=residual model.form=post: "did you mean model.norm?")
    kind = OmegaConf.get_type(node) if isinstance(node, DictConfig) else None
    if kind is not None and dataclasses.is_dataclass(kind):  # Hydra's typed node: '+' is refused too
        fields = [f.name for f in dataclasses.fields(kind) if not f.name.startswith("_")]
        return (f"{given}: {where}{meant or '.'} Fix: correct the key (the fields of {kind.__name__}: "
                f"{', '.join(fields)}); Hydra's typed node takes no other key, with '+' neither")
    # pass 58, row 21: an argument the optimiser does not take; before, "add it: +...=...", refused in turn
    alias = ARGUMENT_ALIASES.get(name.lower().replace("-", "_"))
    if parent == "optim.optimizer" and alias in OPTIMIZER_ARGUMENTS.get(str(target), ()) \
            and not given.startswith("~"):  # pass 72, row 53: before, "leave it out", which trained at lr 0.1
        return (f"{given}: {target} takes no argument {name}; its {ALIAS_NAMES[alias]} is {alias}. Fix: "
                f"{parent}.{alias}={value}")
    if parent == "optim.optimizer" and str(target) in OPTIMIZER_ARGUMENTS and not given.startswith("~") \
            and name not in OPTIMIZER_ARGUMENTS[str(target)] and not meant:
        other = next((t for t, args in OPTIMIZER_ARGUMENTS.items() if name in args), None)
        preset = {"torch.optim.SGD": "sgd", "torch.optim.AdamW": "adamw"}.get(str(other))
        there = f"; it is an argument of {other}: optim={preset} +{_key(given)}={value}" if preset else ""
        return (f"{given}: {target} takes no argument {name} (its arguments: "
                f"{', '.join(OPTIMIZER_ARGUMENTS[str(target)])}). Fix: leave it out{there}")
    if parent.rpartition(".")[2].isdigit() and not given.startswith("~"):  # a key of a list's entry (pass 72,
        # row 50: model.stages.0.chanels): '+' would add a key the entry's reader refuses in turn
        # a stage's optional key, which the stage given leaves out (pass 73, row 65)
        stage = re.fullmatch(r"model\.stages\.\d+", parent) is not None
        optional = [k for k in ("kernel_size",) if stage and k not in keys]
        if name in optional:
            return (f"{given}: {parent} does not set {name} (optional: the model's default applies), so it "
                    f"is added, not changed. Fix: +{given.lstrip('+')}")
        near = near or closest_names(name, optional)
        fix = f"{parent}.{near[0]}={value}" if near else f"a key it has ({', '.join(keys + optional)})"
        if near and near[0] in optional:
            fix = f"+{parent}.{near[0]}={value}"
        return f"{given}: {where}{meant or '.'} Fix: {fix}"
    takes = _own_arguments(str(target)) if target and not given.startswith("~") else None
    cls = str(target).rsplit(".", 1)[-1]
    if takes is not None and name not in takes and not meant:  # pass 80, row 16: before, "if it is an
        # argument of MNISTDataModule ..., add it: +data.persistent_workers=...", which was refused in turn
        return (f"{given}: {where.rstrip('. ')}, and {cls} takes no argument {name} (its arguments: "
                f"{', '.join(takes)}). Fix: leave it out")
    add = (f"{cls} takes it, and the preset does not set it: add it: +{_key(given)}={value}"
           if takes is not None and name in takes else
           f"{cls} takes no argument {name}" if takes is not None else
           f"if it is an argument of {target} that the preset does not set, add it: +{_key(given)}=..."
           if target else f"the module reads only {', '.join(f'{parent}.{k}' for k in keys)}" if parent in
           READ_WHOLE else f"to add a new key on purpose, write +{_key(given)}=...")
    then = (_refused_when_added(_key(given), value, rest, config_dir, config_name)
            if "add it: +" in add and value and not meant and not given.startswith("~") else None)
    if then is not None:  # pass 83, rows 08, 21: before, the '+' advised was refused in turn, for the value
        add += f"; but with it the run is refused in turn: {then}"
    return (f"{given}: {where}{meant or '.'} Fix: correct the key (python train.py --cfg {show} lists "
            f"them); {add}")


def _refused_when_added(key: str, value: str, rest: list[str], config_dir: str | Path,
                        config_name: str) -> str | None:
    """What the run would refuse next if ``+key=value`` were added, as a message's fix advises: the
    config's checks (:func:`~highwaylab.config_checks.validate`), and for an optimiser's argument its
    build by torch (on the way to a refusal only: this imports torch); ``None`` when they pass or
    cannot tell. Its examples get the ``+`` the key needs."""
    from highwaylab.errors import HighwaylabError

    cfg, _ = _compose(config_dir, config_name, [*rest, f"+{key}={value}"])
    if cfg is None:
        return None
    try:
        validate_as_run(cfg)
        if key.startswith("optim.optimizer."):
            import torch
            from hydra.utils import instantiate

            from highwaylab.module.classifier import build_from_config, check_optim_args

            part = instantiate(cfg.optim.optimizer)
            check_optim_args(part, None, "epoch")  # the module's checks first: betas=[0.9] (pass 85, row 27:
            # before, torch's "tuple index out of range", the two numbers needed unsaid)
            build_from_config("optim.optimizer", part, params=[torch.zeros(1, requires_grad=True)])
    except HighwaylabError as err:
        return str(err).rstrip(".").replace(f"e.g. {key}=", f"e.g. +{key}=")
    except Exception:  # noqa: BLE001 -- a check that needs more than the config: not told here
        return None
    return None


def _own_arguments(target: str) -> list[str] | None:
    """The keyword arguments of ``target``, a class of highwaylab's own (``highwaylab.data.
    MNISTDataModule``), read from its signature (this imports it, and with it torch: only on the way to
    a refusal); ``None`` for another package's target, one that takes ``**kwargs``, or one that cannot
    be imported."""
    import inspect

    if not target.startswith("highwaylab."):
        return None
    try:
        from hydra.utils import get_class

        params = inspect.signature(get_class(target)).parameters.values()
    except Exception:  # noqa: BLE001 - not importable here: the generic advice
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):
        return None
    return [p.name for p in params if p.kind is not inspect.Parameter.VAR_POSITIONAL and p.name != "self"]


def _group_added(err: Exception, single: list[str | None], config_dir: str | Path,
                 config_name: str) -> str | None:
    """The message for a group of the main config's defaults list given with ``+`` or ``++`` on the
    command line (``+logger=csv``, ``+callbacks=default``, ``++model=plain``), where Hydra's line
    ("Multiple values for logger", "callbacks appears more than once in the final defaults list",
    "force-add of config groups is not supported") gives no fix (pass 97, rows 25, 26, 26e: before,
    Hydra's line, or a fix for a file of one's own that chose it, of which there was none). ``None``
    for any other error."""
    import yaml

    line = _one_line(err)
    if not any(words in line for words in ("Multiple values for", "appears more than once", "force-add")):
        return None
    defaults = yaml.safe_load((Path(config_dir) / f"{config_name}.yaml").read_text()).get("defaults", [])
    chosen = {str(k): v for d in defaults if isinstance(d, dict) for k, v in d.items()}
    for given in (o for o in single if o is not None and o.startswith("+") and "=" in o):
        group, value = _key(given).lstrip("+"), given.split("=", 1)[1]
        if group not in chosen:
            continue
        other = next((o for o in single if o is not None and not o.startswith(("+", "~"))
                      and _key(o) == group), None)
        now = other.split("=", 1)[1] if other is not None else chosen[group]
        both = (f", or {group}=[{now},{value}] for both" if group in ("logger", "callbacks")
                and now not in (None, "null", "none", value) else "")
        fix = (f"choose one: {group}={value} or {other}" if other is not None and now != value
               else f"{group}={value}")
        return (f"{given}: {group} is in the config's defaults already ({group}: {chosen[group]}), so its "
                f"option is chosen without '+' ('+' adds a group the config lacks; '++' is for keys). "
                f"Fix: {fix}{both}")
    return None


def _second_choice(err: Exception, single: list[str | None], config_dir: str | Path) -> str | None:
    """The message for an option file whose defaults list chooses an option of a group that the
    config has chosen already (``- /model: conv_highway`` in an experiment of one's own): Hydra's
    line ("Multiple values for model. To override a value use 'override model: conv_highway'") names
    no file, and its form, without the leading slash, names a group under the file's own folder
    (pass 68, row 19, major); and a group named without that slash. ``None`` for any other error."""
    line = _one_line(err)
    packaged = re.fullmatch(r"In '(\w+)/([^']+)': Could not override '[^'@]+@\1\.[^']*'\.", line)
    if packaged is not None:  # pass 68, row 23: an own search file without its package line
        group, name = packaged[1], packaged[2]
        shown = next((f"conf/{group}/{p.name}" for p in sorted((Path(config_dir) / group).glob("*.yaml"))
                      if not p.name.startswith("_")
                      and p.read_text(encoding="utf-8").startswith("# @package _global_")), "")
        return (f"{group}/{name}.yaml ({group}={name}): its file has no '# @package _global_' first line, so "
                f"its defaults and keys land under {group}.*, where Hydra does not apply them. Fix: add "
                f"'# @package _global_' as the first line of {group}/{name}.yaml"
                + (f", as {shown} has it" if shown else ""))
    relative = (re.fullmatch(r"In '(\w+)/([^']+)': Could not find '\1/(\w+)/([^']+)'", line)
                or re.fullmatch(r"In '(\w+)/([^']+)': Could not override '\1/(\w+)@\3'\. No match in the "
                                r"defaults list\.", line))
    if relative is not None and (Path(config_dir) / relative[3]).is_dir():  # '- model: x' in experiment/a:
        # Hydra reads the group relative to the file's folder (experiment/model), which has none
        file, group = f"{relative[1]}/{relative[2]}.yaml", relative[3]
        value = relative[4] if relative.re.groups == 4 else next(
            (str(e[k]) for folder in (*_CONFIG_DIRS, config_dir) for e in _defaults_of(Path(folder) / file)
             for k in e if str(k).split()[-1] == group), "<option>")
        return (f"{file} ({relative[1]}={relative[2]}): its defaults list names the group {group} without "
                f"a leading slash, which Hydra reads as {relative[1]}/{group}, a group inside its own "
                f"folder. Fix: in {file}, write '- override /{group}: {value}' (as "
                f"conf/experiment/paper_mnist_conv16.yaml does)")
    later = re.fullmatch(r"In '(\w+)/([^']+)': Could not override '(\w+)'\.", line)
    if later is not None and (Path(config_dir) / later[3]).is_dir():  # pass 71, row 61: an experiment's
        # '- override /hparams_search: x'; train.yaml chooses hparams_search after experiment, so no
        # experiment can override it; before, Hydra's two lines
        file, group = f"{later[1]}/{later[2]}.yaml", later[3]
        value = next((str(e[k]) for folder in (*_CONFIG_DIRS, config_dir)
                      for e in _defaults_of(Path(folder) / file)
                      for k in e if str(k).split()[-1].strip("/") == group), "<option>")
        return (f"{file} ({later[1]}={later[2]}): its defaults list overrides {group}, which train.yaml's "
                f"defaults list chooses after {later[1]}, so Hydra cannot override it from there. Fix: drop "
                f"that line from {file} and give {group}={value} on the command line")
    found = re.fullmatch(r"Multiple values for (\S+)\. To override a value use 'override (\S+): (.+)'", line)
    if found is None:
        return None
    group, value = found[1], found[3]
    where = "the file that chooses it"
    for given in (o for o in single if o is not None and "=" in o and "." not in _key(o)):
        for folder in (config_dir, *_CONFIG_DIRS):
            path = Path(folder) / _key(given).lstrip("+~") / f"{given.split('=', 1)[1]}.yaml"
            names = (group, f"/{group}")
            if entry := next((e for e in _defaults_of(path) if set(names) & set(map(str, e))), None):
                where = f"{path.parent.name}/{path.name} ({given})"
                # the file's value, not Hydra's (pass 71, row 61: Hydra's line gave None, the config's)
                value = str(next(v for k, v in entry.items() if str(k) in names))
                break
    chooser = where.split("/")[0]
    if _chosen_after(config_dir, group, chooser):  # hparams_search from an experiment: its override fails too
        return (f"{where}: its defaults list chooses {group}: {value}, which train.yaml's defaults list "
                f"chooses after {chooser}, so Hydra cannot take it from there. Fix: drop that line from "
                f"{where.split(' (')[0]} and give {group}={value} on the command line")
    return (f"{where}: its defaults list chooses {group}: {value}, while the config has chosen {group} "
            f"already, and Hydra takes a second choice only as an override. Fix: in {where.split(' (')[0]}, "
            f"write '- override /{group}: {value}' (with the slash: the group at the top of the config; as "
            f"conf/experiment/paper_mnist_conv16.yaml does)")


def _module_follows(override: Any, overrides: list[str], config_dir: str | Path,
                    config_name: str) -> str | None:
    """The message for an override of a ``module.*`` key that follows a key of ``optim``
    (``module.scheduler_interval: ${optim.scheduler_interval}``): set there, the run used it while
    its record, W&B config and the checks read the ``optim`` key (pass 70, rows 10 and 34:
    ``module.scheduler_interval=step`` decayed the rate per batch, recorded as per epoch, past the
    check that refuses ``optim.scheduler_interval=step`` with the preset's gamma). ``None`` for any
    other override."""
    key = override.key_or_group
    if not key.startswith("module.") or override.is_sweep_override():
        return None
    given = override.input_line
    cfg, _ = _compose(config_dir, config_name, [o for o in overrides if o != given and "," not in o
                                                 and "(" not in o])
    source = _followed(cfg, key) if cfg is not None else None
    return _follows_message(given, key, *source) if source is not None else None


def _follows_message(given: str, key: str, node: str, target: str) -> str:
    """The message for ``given``, an override of ``key`` at or under ``node``, which follows
    ``target`` (``module.optimizer: ${optim.optimizer}``): the key to set in its place."""
    if given.startswith("~"):
        value, fix = None, f"{target}{key[len(node):]}=null" if key == node else f"~{target}{key[len(node):]}"
    else:
        value = given.split("=", 1)[1] if "=" in given else "<value>"
        fix = f"{target}{key[len(node):]}={value}"
    return (f"{given}: {node} is not a setting of its own: it follows {target} ({node}: ${{{target}}}), "
            f"so it is set there (the run's record and checks read that key). Fix: {fix}")


def _followed(cfg: DictConfig, key: str) -> tuple[str, str] | None:
    """The node above ``key`` (or ``key`` itself) whose value in ``cfg`` is one interpolation of
    another node (``module.optimizer: ${optim.optimizer}``), and that node, as ``(node, target)``;
    ``None`` when none is."""
    from highwaylab.config_checks import NODE_INTERPOLATION

    parts = key.split(".")
    for n in range(1, len(parts) + 1):
        node = ".".join(parts[:n])
        parent = OmegaConf.select(cfg, ".".join(parts[:n - 1])) if n > 1 else cfg
        if not OmegaConf.is_dict(parent) or parts[n - 1] not in parent:
            return None
        raw = OmegaConf.to_container(parent, resolve=False)[parts[n - 1]]  # as written: ${optim.optimizer}
        if isinstance(raw, str) and (follows := NODE_INTERPOLATION.fullmatch(raw)) is not None:
            return node, follows.group(1)
    return None


def _in_another_folder(group: str, name: str) -> Path | None:
    """``<name>.yaml`` in a folder of the ``--config-dir`` that is not ``group``'s own but looks like
    it (``models/`` for ``model``, ``Model/``), when ``group/`` there lacks it; ``None`` otherwise."""
    for folder in _CONFIG_DIRS:
        try:
            found = [p / f"{name}.yaml" for p in sorted(Path(folder).iterdir()) if p.is_dir()
                     and p.name != group and closest_names(group, [p.name.lower().rstrip("s")])
                     and (p / f"{name}.yaml").is_file()]
        except OSError:
            continue
        if found and not (Path(folder) / group / f"{name}.yaml").exists():
            return found[0]
    return None


def _not_yaml(err: Exception) -> str | None:
    """The message for a config file that is not valid YAML (an own file under ``--config-dir``:
    ``mycsv: {save_dir: ${paths.output_dir}}``, whose ``{`` YAML reads as a mapping's): Hydra let
    yaml's error through as a traceback. ``None`` for any other error."""
    import yaml

    if not isinstance(err, yaml.MarkedYAMLError) or err.problem_mark is None:
        return None
    try:
        lines = Path(err.problem_mark.name).read_text(encoding="utf-8").splitlines()
    except OSError:
        lines = []
    mark = err.problem_mark  # where yaml stopped; past the last line: where the unclosed part began
    if mark.line >= len(lines) and err.context_mark is not None:
        mark = err.context_mark
    text = lines[mark.line].strip() if mark.line < len(lines) else ""
    quote = ("; a value holding ${...} inside {...} or [...] is quoted, e.g. "
             "{save_dir: '${paths.output_dir}'}, or written on lines of its own" if "${" in text else "")
    shown = f": {text}" if text else ""
    why = f"{err.context}: {err.problem}" if err.context else err.problem
    return (f"{mark.name}: not valid YAML, line {mark.line + 1}, column {mark.column + 1}{shown} "
            f"({why}). Fix: correct that line{quote}")


def _chosen_after(config_dir: str | Path, group: str, chooser: str) -> bool:
    """Whether ``train.yaml``'s defaults list (in ``config_dir``) names ``group`` after ``chooser``
    (``hparams_search`` after ``experiment``): an option of ``chooser`` cannot override it."""
    order = [str(k).split()[-1].lstrip("/") for e in _defaults_of(Path(config_dir) / "train.yaml") for k in e]
    return group in order and chooser in order and order.index(group) > order.index(chooser)


def _defaults_of(path: Path) -> list[dict]:
    """The mappings of the defaults list of the config file at ``path`` (``{"override /model":
    "conv_highway"}``); none when it cannot be read."""
    import yaml

    try:
        entries = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("defaults") or []
    except (OSError, yaml.YAMLError, AttributeError):
        return []
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


def _deeper(node: Any, parent: str, name: str) -> str:
    """``"; did you mean <key>?"`` for a key a level or more below ``node`` (at ``parent``) whose last
    part is ``name`` (``optim.lr``: ``optim.optimizer.lr``; pass 51, row 16: before, no suggestion, and
    the ``+optim.lr`` offered trained at the preset's rate); ``""`` if there is none."""
    if not isinstance(node, DictConfig):
        return ""
    found = [path for path in _leaf_paths(OmegaConf.to_container(node, resolve=False))
             if "." in path and path.rsplit(".", 1)[-1] == name]
    return f"; did you mean {parent + '.' if parent else ''}{found[0]}?" if found else ""


def _key_of_other_options(key: str, given: str, rest: list[str], cfg: DictConfig | None,
                          config_dir: str | Path, config_name: str) -> str | None:
    """The message for a key that the chosen option of its config group lacks but other options of
    that group have (``data.normalise=gcn`` with ``data=mnist``: a key of ``data=cifar10`` and
    ``cifar100``), where Hydra's advice, to add it with '+', would be refused in turn when the
    component is built. ``None`` when no other option has it."""
    group = key.split(".", 1)[0]
    chosen = cfg.hydra.runtime.choices.get(group) if cfg is not None else None
    folder = Path(config_dir) / group
    if chosen is None or not folder.is_dir():
        return None
    having = []
    for option in sorted(p.stem for p in folder.glob("*.yaml") if not p.stem.startswith("_")):
        if option == chosen:
            continue
        others = [o for o in rest if _key(o) != group]
        with_it, _ = _compose(config_dir, config_name, [*others, f"{group}={option}"])
        if with_it is not None and OmegaConf.select(with_it, key, default="absent",
                                                    throw_on_resolution_failure=False) != "absent":
            having.append(f"{group}={option}")
    if not having:
        return None
    example = f"{having[0]} {given}"
    others = [o for o in rest if _key(o) != group]
    refused = _refused_there(group, key, [*others, having[0], given.lstrip("+")], config_dir, config_name)
    if key == "trainer.strategy" and refused is None and not given.startswith("~"):  # pass 69, row 32:
        # trainer.strategy=single_device was sent to trainer=ddp, which needs a GPU; any trainer takes a
        # Trainer argument of Lightning's with '+' (not num_nodes, which needs DDP: pass 71, row 46)
        value = given.split("=", 1)[1] if "=" in given else "<value>"
        from highwaylab.utils.hardware import nvidia_gpu_here

        if value.split("_")[0].lower() in ("fsdp", "deepspeed") and not nvidia_gpu_here():
            # pass 83, row 09: before, "add it: +trainer.strategy=fsdp", then Lightning's "set accelerator=
            # 'cuda'", which cannot work here
            return (f"{given}: trainer={chosen} does not set {key}, and {value} runs on GPUs only, which "
                    f"this machine does not have. Fix: leave it out (one process), or trainer=ddp_cpu for "
                    f"several processes on its CPUs")
        return (f"{given}: trainer={chosen} does not set {key} ({', '.join(having)} do), so there is no key "
                f"to change. Fix: to give this Trainer argument, add it: +{_key(given)}={value}")
    nodes = given.split("=", 1)[1] if "=" in given else ""
    if key == "trainer.num_nodes" and refused is None and nodes.isdigit() and int(nodes) > 1 \
            and "SLURM_NNODES" not in os.environ and "WORLD_SIZE" not in os.environ:
        # pass 80, row 29: before, "e.g. trainer=ddp trainer.num_nodes=2", refused next for want of a
        # launcher that starts the other nodes
        from highwaylab.utils.hardware import nvidia_gpu_here

        gpus = nvidia_gpu_here()  # the launcher and trainer of this machine's kind
        launch = ("hydra/launcher=slurm trainer=ddp trainer.devices=<GPUs per node>" if gpus else
                  "hydra/launcher=slurm_cpu trainer=ddp_cpu")
        return (f"{given}: {key} is an option of {', '.join(having)}; {group}={chosen} does not take it, and "
                f"{nodes} nodes need a launcher that starts the other nodes' processes. Fix: submit it with "
                f"python train.py -m {launch} {given.lstrip('+')} (nodes follow trainer.num_nodes), or start "
                f"it with torchrun --nnodes={nodes}; on one machine leave it out")
    if refused is not None:  # model.downsample=avgpool: conv_highway takes the key, not the value (pass 31)
        full = _key(given)  # the key given, below the option's node (callbacks.carry_stripes.seed)
        default = OmegaConf.select(_compose(config_dir, config_name, [having[0]])[0], full, default=None,
                                   throw_on_resolution_failure=False)
        shown = (f", whose {full} is {default} unless set" if default is not None
                 and not OmegaConf.is_config(default) else "")  # not a mapping's repr (pass 83, row 68)
        example = f"{having[0]}{shown}; and {refused}"
    return (f"{given}: {key} is an option of {', '.join(having)}; {group}={chosen} does not take it. Fix: "
            f"leave it out, or choose one that takes it (e.g. {example})")


def _refused_there(group: str, key: str, overrides: list[str], config_dir: str | Path,
                   config_name: str) -> str | None:
    """What the model or data checks say of ``overrides`` (another option of ``group`` with the
    user's value of ``key``), or ``None`` when they pass or cannot tell (another group, a config
    that does not compose)."""
    from highwaylab.data.files import check_data_options
    from highwaylab.models.spec import check_model_config
    from highwaylab.trainer_checks import check_trainer_counts

    cfg, _ = _compose(config_dir, config_name, overrides)
    if cfg is None:
        return None
    if group not in ("model", "data", "trainer"):  # pass 83, row 68: callbacks.carry_stripes.seed=abc was
        # sent to callbacks=analysis with its value, refused in turn
        from highwaylab.errors import HighwaylabError

        try:
            validate_as_run(cfg)
        except HighwaylabError as err:
            return str(err).rstrip(".") if str(err).startswith((f"{key}=", f"{key} ", f"{key}.")) else None
        except Exception:  # noqa: BLE001 -- a check that needs more than the config: not told here
            return None
        return None
    try:
        if group == "model":
            check_model_config(cfg.model)
        elif group == "trainer":  # pass 52, row 30: trainer=ddp_cpu trainer.num_nodes=0
            check_trainer_counts(cfg.trainer)
        else:
            name = key.split(".", 1)[1]
            check_data_options(**{name: OmegaConf.select(cfg, key)})
    except ConfigError as err:
        return str(err).rstrip(".")
    except Exception:  # noqa: BLE001 -- a check that needs more than the config: not told here
        return None
    return None


def _follows_top_level(key: str, given: str, overrides: list[str], config_dir: str | Path,
                       config_name: str) -> str | None:
    """The message for ``model.depth=`` or ``model.width=``: the fully connected models take them from
    the top-level ``depth`` and ``width`` (``depth: ${depth}``), which also name the run
    (``run_name``), its W&B tag (``depth:``) and its record; set on the model alone, a depth-5 net
    ran as ``...-d3-...`` with the tag ``depth:3`` (breaking pass 30, row 60). ``None`` otherwise."""
    top = {"model.depth": "depth", "model.width": "width"}.get(key)
    removed = any(o.split("=", 1)[0].strip() == "~model" for o in overrides)  # that it is gone says more
    if top is None or given.startswith("~") or "=" not in given or removed:
        return None
    others = [o for o in overrides if _key(o) != key and "," not in o and "(" not in o]
    cfg, _ = _compose(config_dir, config_name, others)
    model = OmegaConf.to_container(cfg.model, resolve=False) if cfg is not None and "model" in cfg else {}
    if not isinstance(model, dict) or model.get(top) != f"${{{top}}}":  # a conv model: no such key
        return None
    value = given.split("=", 1)[1]
    if value.replace(" ", "") in (f"${{{top}}}", f"${{.{top}}}"):  # pass 90, row 40: before, "Fix:
        # width=${width}", which Hydra then refused as a recursive interpolation
        return (f"{given}: model.{top} is ${{{top}}} already (it follows the top-level {top}). Fix: leave "
                f"{given} out, and give {top}=<value> to change it")
    return (f"{given}: model.{top} follows the top-level {top} (model.{top}: ${{{top}}}), which also names "
            f"the run and its W&B tags; set here, the net and its name would disagree. Fix: {top}={value}")


# the keys whose values the command line's checks refuse where a run would share, split or lose its
# folder; a config file of one's own (--config-dir) that sets them is checked as well (pass 97, rows 10,
# 11, 14, 15, 20, 29, 36, 37, major: before, each was taken from such a file without a word: a second run
# trained into the first's folder, a sweep's jobs into one folder, a run ran without its record)
OWN_FILE_KEYS = ("hydra.run.dir", "hydra.sweep.dir", "hydra.sweep.subdir", "hydra.output_subdir",
                 "paths.output_dir", "hydra.sweeper.params", "run_name")
_ABSENT = object()


def _own_file_settings(cfg: DictConfig, overrides: list[str]) -> dict[str, tuple[Path, str, Any]]:
    """``{key: (file, the key as the file writes it, its value)}`` for each of :data:`OWN_FILE_KEYS`
    that a file of one's own chosen in ``cfg`` (an option of ``--config-dir``) sets and the command
    line ``overrides`` do not (the later file, in the defaults list's order, where two do)."""
    import yaml

    if not _CONFIG_DIRS:
        return {}
    found: dict[str, tuple[Path, str, Any]] = {}
    for group, option in reversed(list(cfg.hydra.runtime.choices.items())):  # in the defaults' order
        path = Path(_CONFIG_DIRS[0]) / group / f"{option}.yaml"
        if option is None or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
            node = yaml.safe_load(text)
        except (OSError, UnicodeDecodeError, yaml.YAMLError):
            continue  # Hydra names a file it cannot read
        header = re.match(r"#\s*@package\s+(\S+)", text)
        package = header[1] if header else group.replace("/", ".")
        package = "" if package == "_global_" else package
        for key in OWN_FILE_KEYS:
            if not package:
                written = key
            elif key.startswith(f"{package}."):
                written = key[len(package) + 1:]
            else:
                continue
            value: Any = node
            for part in written.split("."):
                value = value.get(part, _ABSENT) if isinstance(value, dict) else _ABSENT
            if value is not _ABSENT:
                found[key] = (path, written, value)
    given = {_key(o).lstrip("+~") for o in overrides}
    return {key: found[key] for key in found
            if key not in given and not any(g.startswith(f"{key}.") for g in given)}


def _check_own_files(cfg: DictConfig, overrides: list[str], multirun: bool, config_dir: str | Path,
                     config_name: str, script: str) -> None:
    """Refuse what a file of one's own sets (:func:`_own_file_settings`) where the command line's
    checks would refuse the same value typed there, naming the file and what to change in it.

    Raises:
        OverrideError: ``hydra.output_subdir`` or ``paths.output_dir`` set; a multirun's
            ``hydra.sweep.subdir`` without the job's number or with ``/`` or ``..``; a sweep
            (``hydra.sweeper.params``) without ``-m``.
        ResumeError: ``hydra.run.dir`` (``hydra.sweep.dir``) that holds another run (sweep) or other
            files (:func:`highwaylab.utils.resume.check_folder_free`).
    """
    from highwaylab.utils.resume import (
        ResumeError,
        _resolved,
        _searched,
        check_folder_free,
        check_run_name,
        check_sweep_folder_free,
    )

    for key, (file, written, value) in _own_file_settings(cfg, overrides).items():
        shown = f"{file} sets {written}: {'null' if value is None else value}"
        leaf = written.rsplit(".", 1)[-1]
        if key == "run_name" and (value is None or "${" not in str(value)):  # pass 97, row 17: before, a
            try:  # multirun's job refused it after Hydra had made its folder, 0_../escaped/, the file unnamed
                check_run_name(value)
            except ResumeError as err:
                raise ResumeError(f"{err} (run_name is set by {file})") from None
        if key == "hydra.output_subdir":
            raise OverrideError(f"{shown}, and the run's record must be its .hydra/ folder (config, "
                                f"overrides, the run-folder lock), where resume=, the report and the "
                                f"one-run-per-folder checks look for it. Fix: remove {leaf} from {file}")
        if key == "paths.output_dir":
            raise OverrideError(f"{shown}, but paths.output_dir is the run's folder as Hydra makes it; set "
                                f"there, the run would be split in two (its record and train.log in Hydra's "
                                f"folder, its checkpoints and metrics.json in {value}, over another run's). "
                                f"Fix: remove {leaf} from {file}; to choose where the runs' folders go, set "
                                f"{written.replace('output_dir', 'log_dir')}: <folder> there in its place")
        if key == "hydra.sweep.subdir" and multirun and isinstance(value, str):
            flat = re.sub(r"\$\{[^}]*\}", "", value)
            if ".." in value or "/" in flat or "job.num" not in value:
                why = ("a job's folder must be one folder directly in the sweep's folder (hydra.sweep.dir), "
                       "where the report and resume= find it" if ".." in value or "/" in flat else
                       "every job of the multirun would write into that one folder, over the others' "
                       "checkpoints and metrics.json")
                name = value.replace("/", "_").replace("..", "").strip("_") or "name"
                raise OverrideError(f"{shown}: {why}. Fix: keep the job's number in it, one folder "
                                    f"('{leaf}: ${{hydra.job.num}}_{name}' in {file}), or remove {leaf} "
                                    f"from it (<n>_<run_name>)")
        if key == "hydra.sweeper.params" and not multirun and value:
            swept = " ".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else value
            raise OverrideError(f"{file} sets hydra.sweeper.params ({swept}), a sweep, which runs only as "
                                f"a multirun: without -m, Hydra would run one run, the sweep ignored. Fix: "
                                f"add -m (python train.py -m ...), or remove the sweep from {file} for one "
                                f"run")
        folder_key = "hydra.sweep.dir" if multirun else "hydra.run.dir"
        if key == folder_key and isinstance(value, str):
            own = _searched(overrides, _CONFIG_DIRS[0])
            folder = _resolved(key, Path(config_dir), config_name, own, script)
            if not isinstance(folder, str) or not folder.strip():
                continue  # Hydra or the job says why
            search = cfg.hydra.runtime.choices.get("hparams_search") is not None
            try:
                if multirun:
                    check_sweep_folder_free(Path(folder), search=search)
                else:
                    check_folder_free(Path(folder), OmegaConf.select(cfg, "ckpt_path", default=None))
            except ResumeError as err:
                what = "sweep" if multirun else "run"
                unique = ("" if "folder_suffix" in value or "now:" in value else
                          f". A folder that {file} fixes is the same for every {what}: for one of its own "
                          f"each time, keep a part that differs in it, as highwaylab's does ('{leaf}: "
                          f"{value.rstrip('/')}/${{now:%Y-%m-%d_%H-%M-%S}}_${{folder_suffix:}}')")
                named = str(err).replace(f"{key}={folder}", f"{key}={folder} (set by {file}, {written}: "
                                                           f"{value})", 1)
                raise ResumeError(named.rstrip(".") + unique) from None


def _shared_folder(key: str, given: str) -> str | None:
    """The message for an override that would make runs share a folder, or split one: see the
    module's docstring. ``None`` for any other override."""
    value = given.split("=", 1)[1] if "=" in given else ""
    if key in ("hydra.run.dir", "hydra.sweep.dir") and "=" in given and not value.strip("'\" "):
        # pass 79, row 11 (major): before, refused as logger.wandb.save_dir='', a key not given
        kind = "a multirun's folder (its jobs' folders go under it)" if key == "hydra.sweep.dir" else \
            "the run's folder"
        return (f"{given}: {key} is empty, and it is {kind}. Fix: give a folder, e.g. {key}=/tmp/myrun, or "
                f"leave it out for the default under outputs/")
    if key == "paths.output_dir" and not given.startswith("~"):
        return (f"{given}: paths.output_dir is the run's folder as Hydra makes it; set here, the run would "
                f"be split in two (its record and train.log in Hydra's folder, its checkpoints and "
                f"metrics.json here, over another run's). Fix: hydra.run.dir={value or '<folder>'} (a "
                f"multirun: hydra.sweep.dir=), or paths.log_dir=<folder> for where the runs' folders go")
    if key == "hydra.job.name" and not given.startswith("~") and (
            not value.strip() or "/" in value or "\\" in value or value in (".", "..")):
        return (f"{given}: hydra.job.name names the run's log file (<name>.log) inside its folder, so it "
                f"must be a plain name, without '/' or '..'. Fix: a plain name, e.g. hydra.job.name=train, "
                f"or leave it out")
    if key == "hydra.sweep.subdir" and ".." in value:
        return (f"{given}: a job's folder must stay inside the sweep's folder (hydra.sweep.dir), where the "
                f"report and resume= find it. Fix: leave hydra.sweep.subdir out (<n>_<run_name>)")
    if key == "hydra.sweep.subdir" and "/" in re.sub(r"\$\{[^}]*\}", "", value):  # pass 84, row 75: before,
        # the jobs ran into <sweep>/0/x, where the report found none ("started no job") and sent the user
        # to run the sweep again, which was refused in turn
        flat = value.replace("/", "_").strip("_")
        return (f"{given}: a job's folder must be one folder directly in the sweep's folder "
                f"(hydra.sweep.dir), where the report and resume= find it, not a path of folders. Fix: one "
                f"name, e.g. 'hydra.sweep.subdir={flat}', or leave it out (<n>_<run_name>)")
    if key == "hydra.sweep.subdir" and "job.num" not in value:
        return (f"{given}: every job of the multirun would write into that one folder, over the others' "
                f"checkpoints and metrics.json. Fix: keep the job's number in it, e.g. "
                f"'hydra.sweep.subdir=${{hydra.job.num}}_{value or 'name'}', or leave it out")
    return None


def _search_space_entry(given: str, key: str, optuna: bool = True) -> str | None:
    """The message for an override of the Optuna search space through ``hydra.sweeper.params``:
    ``hydra.sweeper.params.optim.optimizer.lr=...`` reads as nested keys (the space's keys are
    dotted paths, one key each), ``+...`` as sweeping Hydra's own config, and ``={...}`` merges
    into the space. The sweeper takes the entries as overrides of the run's keys instead, after the
    config's space: a range replaces that entry, a fixed value takes the key out of the search, and
    ``hydra.sweeper.params=null`` empties the space so that only the command line's entries remain.
    ``None`` for ``hydra.sweeper.params=null`` itself. Without an Optuna search (``optuna`` false:
    Hydra's basic sweeper, whose ``params`` the command line's own sweeps fill), the fix is to sweep
    the key itself (``-m hydra.sweeper.params.depth=3,4``: ``-m depth=3,4``)."""
    entry = key.removeprefix("hydra.sweeper.params").lstrip(".")
    value = given.split("=", 1)[1] if "=" in given else ""
    deletes = given.startswith("~")
    if not entry and value == "null" and not deletes:
        return None
    if not optuna and entry and value and not deletes:
        return (f"{given}: hydra.sweeper.params holds what the sweep varies, which Hydra's basic sweeper "
                f"(a plain -m sweep) fills from the command line's own lists. Fix: sweep the key itself: "
                f"-m {entry}={value}")
    space = "add hydra.sweeper.params=null to search only the entries given on the command line"
    if deletes and not entry:
        return (f"{given}: Hydra cannot delete the sweeper's params. Fix: hydra.sweeper.params=null empties "
                f"the search space; then give its entries as overrides of the run's keys, e.g. "
                f"'optim.optimizer.lr=tag(log, interval(0.01, 0.1))'")
    if deletes:
        fix = (f"to take {entry} out of the search, fix its value: {entry}=<value>; or {space} (if the "
               f"model has no {entry})")
    else:
        example = (f"'{entry}={value}'" if entry and value
                   else "'optim.optimizer.lr=tag(log, interval(0.01, 0.1))'")
        fix = (f"give the entry as an override of the run's key: {example} (a range replaces that entry of "
               f"the space; a fixed value, e.g. optim.optimizer.momentum=0.9, takes the key out of the "
               f"search); {space}")
    return (f"{given}: the search space's entries are keys with dots (optim.optimizer.lr), which an override "
            f"of hydra.sweeper.params cannot address. Fix: {fix}")


def _optuna_setting(key: str, given: str, rest: list[str], config_dir: str | Path,
                    config_name: str) -> str | None:
    """The message for a ``hydra.sweeper.<key>`` that Hydra's basic sweeper lacks but the Optuna
    sweeper of an ``hparams_search=`` option has (``hydra.sweeper.n_trials``, ``direction``), given
    without one: adding it with ``+`` would be refused in turn. ``None`` for any other key."""
    if not key.startswith("hydra.sweeper.") or any(_key(o) == "hparams_search" for o in rest):
        return None
    searches = sorted((p.stem for p in (Path(config_dir) / "hparams_search").glob("*.yaml")
                       if not p.stem.startswith("_")), key=lambda name: ("tpe" not in name, name))  # README's
    if not searches:
        return None
    with_search, _ = _compose(config_dir, config_name, [*rest, f"hparams_search={searches[0]}"])
    if with_search is None or OmegaConf.select(with_search, key, default="absent") == "absent":
        return None
    return (f"{given}: {key} is a setting of the Optuna sweeper, which an hparams_search= option chooses "
            f"(this command has Hydra's basic sweeper). Fix: add the search, e.g. python train.py "
            f"hparams_search={searches[0]} {given.lstrip('+')} (its options: {', '.join(searches)})")


def _basic_launcher_setting(given: str) -> str:
    """The message for a ``hydra.launcher.<key>`` given to Hydra's basic launcher, which has no
    settings (``-m ... hydra.launcher.n_jobs=2``): Hydra's advice, to add it with '+', is refused in
    turn ("BasicLauncherConf has no field")."""
    return (f"{given}: Hydra's basic launcher (a plain -m's) runs the jobs one after another in this "
            f"process and takes no settings. Fix: leave it out; to run jobs side by side, choose a "
            f"launcher that does, hydra/launcher=submitit_local (local processes) or "
            f"hydra/launcher=slurm_cpu (a SLURM cluster, README: Clusters), and give its settings; for an "
            f"Optuna search's trials at "
            f"once, hydra.sweeper.n_jobs")


def _check_typed_field(cfg: DictConfig, key: str) -> None:
    """Refuse ``+key`` when its parent is one of Hydra's typed nodes (a dataclass) without that field."""
    parent, _, name = key.rpartition(".")
    node = OmegaConf.select(cfg, parent) if parent else None
    kind = OmegaConf.get_type(node) if isinstance(node, DictConfig) else None
    if kind is None or not dataclasses.is_dataclass(kind):
        return
    fields = [f.name for f in dataclasses.fields(kind)]
    if name not in fields and parent == "hydra.launcher" and kind.__name__ == "BasicLauncherConf":
        raise OverrideError(_basic_launcher_setting(f"+{key}"))
    if name not in fields:
        meant = did_you_mean(name, fields, prefix=parent + ".")
        raise OverrideError(f"+{key}: {parent} ({kind.__name__}) has no field '{name}', so Hydra would keep "
                            f"the value and ignore it{meant or '.'} Fix: correct the key (its fields: "
                            f"{', '.join(fields)})")


# characters that look like ASCII ones but are not (pasted from a document): Hydra cannot read them
# Hydra's command-line flags that take no '=' value of an override's kind (-m, --multirun, --cfg ...)
HYDRA_FLAGS = ("-m", "--multirun", "-c", "--cfg", "--help", "-h", "--hydra-help", "--info", "-i",
               "--resolve", "-p", "--package", "-cp", "--config-path", "-cn", "--config-name", "-cd",
               "--config-dir", "--version", "--shell-completion", "-sc", "--run", "-r")
LOOKALIKES = {"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"',
              "\u201d": '"', "\u00a0": " "}


# Cyrillic and Greek letters drawn as Latin ones (a keyboard layout left on, or pasted text), and the
# invisible characters of pasted text (zero-width space, joiners, word joiner, byte-order mark): ''
CONFUSABLES = {**dict(zip("аеорсухіјѕԁӏАВЕКМНОРСТХІЈЅ", "aeopcyxijsdlABEKMHOPCTXIJS", strict=True)),
               **dict(zip("οαινκτυΑΒΕΗΙΚΜΝΟΡΤΥΧΖ", "oaivktuABEHIKMNOPTYXZ", strict=True)),
               "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": ""}


def _look_alike(char: str) -> str | None:
    """The ASCII character that ``char`` stands in for: a dash or quote of :data:`LOOKALIKES`, a
    compatibility form whose Unicode normalisation (NFKC) is ASCII, as the full-width ``３`` that a CJK
    input method types for ``3`` (pass 53, row 23, major: before, "quote it", and the quoted value was
    then to be given unquoted again), a Cyrillic or Greek letter drawn as a Latin one, or ``""`` for an
    invisible character (:data:`CONFUSABLES`; pass 54, rows 16-17, major: the same loop); ``None`` for
    any other character."""
    if char in LOOKALIKES:
        return LOOKALIKES[char]
    if char in CONFUSABLES:
        return CONFUSABLES[char]
    plain = unicodedata.normalize("NFKC", char)
    return plain if plain != char and plain.isascii() and plain.isprintable() else None


def _search_conflict(overrides: list[str], single: list[str | None], config_dir: str | Path,
                     config_name: str) -> str | None:
    """The message for an ``hparams_search`` (an Optuna search: conf/hparams_search/) combined with a
    sweeper or sampler that cannot run it, whose composition fails on a key the user never typed:
    ``hydra/sweeper=basic`` ("Could not override 'hydra/sweeper/sampler'"), or a
    ``hydra/sweeper/sampler`` that lacks an argument the search sets (``grid``: "Key 'seed' not in
    'SamplerConfig'"; ``random`` with ``mnist_tpe``: ``n_startup_trials``). ``None`` otherwise."""
    search = next((o.split("=", 1)[1] for o in overrides if _key(o) == "hparams_search"), None)
    if search is None:
        return None
    sweeper = next((o for o in overrides if _key(o) == "hydra/sweeper"), None)
    if sweeper is not None and sweeper.split("=", 1)[1] != "optuna":
        return (f"{sweeper}: hparams_search={search} is a search of Hydra's Optuna sweeper (its sampler, "
                f"trials and search space), which {sweeper} replaces. Fix: leave {sweeper} out; for a grid "
                f"of values, leave hparams_search out and sweep with -m (e.g. -m model.gate_bias=-1,-3)")
    sampler = next((o for o in overrides if _key(o) == "hydra/sweeper/sampler"), None)
    if sampler is None:
        return None
    from hydra.core.config_store import ConfigStore

    name = sampler.split("=", 1)[1]
    try:  # the sampler's own fields (the Optuna plugin's dataclass, in Hydra's config store, which the
        # failed composition that brought us here filled)
        fields = set(ConfigStore.instance().load(f"hydra/sweeper/sampler/{name}.yaml").node.keys())
        search_file = OmegaConf.load(Path(config_dir) / "hparams_search" / f"{search}.yaml")
    except Exception:  # an unknown sampler or search: Hydra lists the options
        return None
    given = OmegaConf.select(search_file, "hydra.sweeper.sampler", default=None)  # what the search sets
    extra = sorted(set(given or {}) - fields - {"_target_"})
    if not extra:
        return None
    keys = ", ".join(f"hydra.sweeper.sampler.{k}" for k in extra)
    return (f"{sampler}: hparams_search={search} sets {keys} for its own sampler, which the {name} sampler "
            f"does not take. Fix: leave {sampler} out, or use the search made for a sampler "
            f"(hparams_search=mnist_tpe: tpe; mnist_random: random)")


def _split_bracket(overrides: list[str], i: int) -> str | None:
    """The message for ``overrides[i]``, a list or mapping left open (``tags=[first``), when the next
    arguments, without '=', close it (``run]``): the shell split it at a space (pass 72, row 67, major:
    ``tags=[first run]``; before, "the list is not closed. Fix: 'tags=[first]'", which dropped ``run``,
    and each later fix built on it); ``None`` otherwise."""
    key, equals, value = overrides[i].partition("=")
    opening = value[:1]
    if not equals or opening not in ("[", "{"):
        return None
    closing = "]" if opening == "[" else "}"
    stray = []
    for token in overrides[i + 1:]:
        if "=" in token or token.startswith(("~", "+", "-")):
            break
        stray.append(token)
        whole = " ".join([value, *stray])
        if whole.count(opening) == whole.count(closing):
            break
    else:
        return None
    if not stray or whole.count(opening) != whole.count(closing):
        return None
    entries = whole[1:-1].split() if whole.endswith(closing) else []
    if opening == "[" and entries and not any(c in whole[1:-1] for c in ",'\"[]{}"):
        listed, spaced = ",".join(entries), " ".join(entries)
        return (f"'{key}={whole}': the shell split the list at its spaces into {len(stray) + 1} arguments. "
                f"Fix: {shell_word(f'{key}=[{listed}]')} for {len(entries)} entries, or "
                f"\"{key}=['{spaced}']\" for one entry with a space")
    return (f"'{key}={whole}': the shell split the {'list' if opening == '[' else 'mapping'} at its spaces "
            f"into {len(stray) + 1} arguments. Fix: quote the whole override: "
            f"{shlex.quote(f'{key}={whole}')}")


def _split_list(overrides: list[str], i: int) -> str | None:
    """The message for ``overrides[i]``, which does not parse, when a space around a comma split a
    list of values (``model=plain, residual,highway``: ``model=plain,`` ends in a comma, and
    ``residual,highway`` is an argument without '='); ``None`` otherwise."""
    head, after = i, "after"
    if "=" not in overrides[i] and overrides[i].startswith(",") and i > 0 and "=" in overrides[i - 1]:
        head, after = i - 1, "before"  # model=plain ,residual
    elif "=" not in overrides[i] or not overrides[i].endswith(","):
        return None
    key, _, value = overrides[head].partition("=")
    stray = []
    for token in overrides[head + 1:]:
        if "=" in token:
            break
        stray.append(token)
    if not stray:
        return (f"{overrides[head]}: the value ends in a comma, with no value after it. Fix: leave the comma "
                f"out ({key}={value.rstrip(',')}), or give the next value without a space: "
                f"{key}={value}<value>")
    joined = ",".join(p.strip(",") for p in [value, *stray] if p.strip(","))
    left = (f"the next argument, {stray[0]}, has" if len(stray) == 1
            else f"the next arguments, {' '.join(stray)}, have")
    return (f"{overrides[head]}: a space {after} a comma split the list of values: {left} no '=' of its own. "
            f"Fix: write {key}={joined} (no spaces {after} commas)")


FLOAT = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)[eE][-+]?\d+(?![\w.])")


def _verbose_typo(override: Any) -> str | None:
    """The message for ``hydra.verbose=<a slip of true or false>`` (``tru``): Hydra reads any other
    string as the name of a logger to set to DEBUG, so the run went on without a word and without its
    debug lines (breaking pass 41, row 46); ``None`` otherwise (true, false, a logger's name)."""
    value = override.value()
    if override.key_or_group != "hydra.verbose" or not isinstance(value, str) or override.is_sweep_override():
        return None
    meant = did_you_mean(value.lower(), ["true", "false"], prefix="")
    if not meant and value.lower() not in ("yes", "no", "on", "off"):
        return None
    fix = "false" if "false" in meant or value.lower() in ("no", "off") else "true"
    return (f"{override.input_line}: Hydra reads a hydra.verbose that is not true or false as the name of a "
            f"logger to set to DEBUG, and no logger is named '{value}'. Fix: hydra.verbose={fix}, or a "
            f"logger's name (hydra.verbose=highwaylab)")


def _out_of_float_range(override: str) -> str | None:
    """The message for an override with a number in exponent form beyond a float's range
    (``optim.optimizer.lr=1e-400``: read as 0.0, so the run trained nothing, and its warning spoke of an
    ``lr=0`` never typed: breaking pass 40, row 37; ``1e400``: read as inf); ``None`` otherwise."""
    from highwaylab.config_checks import OPTIM_EXAMPLES

    key, _, value = override.partition("=")
    key = key.lstrip("+~")
    name = key.rsplit(".", 1)[-1]  # a known setting's own example (pass 50, row 4: lr=1e400 was to be 1e6)
    for number in FLOAT.findall(value):
        read = float(number)
        mantissa = re.split(r"[eE]", number)[0]
        if read == 0 and any(c in "123456789" for c in mantissa):
            example = f"{key}={OPTIM_EXAMPLES[name]}" if name in OPTIM_EXAMPLES else "1e-6"
            return (f"{override}: {number} is below the smallest float (about 5e-324), so it would be read "
                    f"as 0. Fix: a value within a float's range (e.g. {example})")
        if math.isinf(read) and read < 0:  # pass 86, row 08: before, "above the largest float ... inf", and
            # an example of the other sign
            return (f"{override}: {number} is below the most negative float (about -1.8e308), so it would be "
                    f"read as -inf. Fix: a value within a float's range (e.g. {key}=-1e6)")
        if math.isinf(read):
            example = f"{key}={OPTIM_EXAMPLES[name]}" if name in OPTIM_EXAMPLES else "1e6"
            return (f"{override}: {number} is above the largest float (about 1.8e308), so it would be read "
                    f"as inf. Fix: a value within a float's range (e.g. {example})")
    return None


def _split_value(overrides: list[str], i: int, config_dir: str | Path) -> str | None:
    """The message for ``overrides[i]``, a word without '=' right after a ``key=value``, when the shell
    split a value at a space (``run_name=my run``, ``tags=first run``: ``run`` alone is no override)
    (breaking pass 40, row 34: before, "run: an override needs a value: run=<value> (or ... +run=<value>
    to add one)", which would add a key nothing reads); ``None`` otherwise, and for a config group
    (``model=plain residual``: a missing comma, not a value with a space)."""
    word = overrides[i]
    if i == 0 or "=" in word or word.startswith(("~", "+", "-")) or "=" not in overrides[i - 1]:
        return None
    key, _, value = overrides[i - 1].partition("=")
    if (Path(config_dir) / key.lstrip("+~")).is_dir():
        return None
    stray = []
    for token in overrides[i:]:
        if "=" in token or token.startswith(("~", "+", "-")):
            break
        stray.append(token)
    whole = " ".join([value, *stray])
    text = key.lstrip("+~").rsplit(".", 1)[-1] in ("run_name", "tags", "name", "group", "project", "notes") \
        or "dir" in key or "path" in key  # a name or a folder: a number then a word is a value with a space
    if re.fullmatch(r"[-+]?\d+(\.\d*)?([eE][-+]?\d+)?", value) and len(stray) == 1 and stray[0].isalpha() \
            and not text:
        # trainer.max_epochs=5 epochs: a unit after a number (pass 90, row 62, major: before, "quote it" or
        # 5_epochs, and each was refused as not an integer)
        return (f"{word}: an argument without '=' after {overrides[i - 1]}: a word after the number (a "
                f"unit?); {key.lstrip('+~')} takes the number alone. Fix: {key}={value}")
    if not value:  # trainer.max_epochs= 1: a space after '=' (pass 52, row 53: before, "=_1")
        return (f"{word}: an argument without '=' after {overrides[i - 1]}: a space after '=' split the "
                f"override. Fix: {key}={'_'.join(stray)}")
    return (f"{word}: an argument without '=' after {overrides[i - 1]}: the shell split a value at a space. "
            f"Fix: quote the override, e.g. {shlex.quote(f'{key}={whole}')}, or leave the space out "
            f"({key}={'_'.join([value, *stray])})")


def _colon(overrides: list[str], i: int, config_dir: str | Path, config_name: str) -> str | None:
    """The message for ``overrides[i]``, which does not parse, when it is ``<key>:<value>`` (a colon
    for '=', as in YAML: ``model:highway``, ``trainer.max_epochs: 3``) and ``<key>`` is a config group
    or a key of the config (composed from the command line's other overrides); ``None`` otherwise.
    Before, it was "an override needs a value: model:highway=<value>"."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    override = overrides[i]
    if "=" in override or ":" not in override:
        return None
    key, _, value = override.partition(":")
    bare, shown = key.lstrip("+~").strip(), override
    if not bare:
        return None
    if not value.strip():  # model: highway (a space after the colon): the value is the next argument
        following = overrides[i + 1] if i + 1 < len(overrides) else ""
        value = following if following and "=" not in following else "<value>"
        shown = f"{override} {following}" if value == following else override
    others = []
    for other in overrides[:i] + overrides[i + 1:]:
        try:
            OverridesParser.create().parse_overrides([other])
            others.append(other)
        except OverrideParseException:
            continue
    cfg, _ = _compose(config_dir, config_name, others)
    if cfg is None:
        cfg, _ = _compose(config_dir, config_name, [])
    group = bare.split("@", 1)[0]
    if group.startswith("hydra/"):  # one of Hydra's groups: hydra/launcher is the node hydra.launcher
        group, bare = "hydra", group.replace("/", ".")
    parent, _, name = bare.rpartition(".")
    try:  # the key's parent node, without resolving the key's value (hydra.run.dir needs a job)
        node = (OmegaConf.select(cfg, parent, throw_on_resolution_failure=False) if parent else cfg)
    except Exception:  # noqa: BLE001 -- a path OmegaConf cannot read: no key of the config
        node = None
    known = isinstance(node, DictConfig) and name in node.keys()
    if not known and (group == "hydra" or not (Path(config_dir) / group).is_dir()):
        return None
    fixed = f"{key.strip()}={value.strip()}"
    return (f"{shown}: an override sets a value with '=', not ':'; did you mean {fixed}? Fix: write "
            f"{fixed}")


def _spaced_equals(overrides: list[str], i: int) -> str | None:
    """The message for an override split by spaces around its '=' (``model = residual``, ``model
    =residual``): three or two words, of which the first has no value (pass 49, row 103: before, only
    "an override needs a value"); ``None`` otherwise."""
    word, following = overrides[i], overrides[i + 1:i + 3]
    if "=" in word or not following or not following[0].startswith("="):
        return None
    value = following[0][1:] or (following[1] if len(following) > 1 else "")
    shown = " ".join(overrides[i:i + (2 if following[0][1:] or len(following) < 2 else 3)])
    return (f"'{shown}': spaces around '=' split one override into several words. Fix: "
            f"{shell_word(f'{word}={value}') if value else word + '=<value>'}")


def _undecoded(word: str) -> str | None:
    """The message for a word of the command line that holds bytes Python could not decode as text
    (kept as surrogates: the shell's locale is C or POSIX, ``LC_ALL=C``, and Python's UTF-8 mode is off),
    which the run's name, folder and W&B run cannot take (pass 79, row 18, major: before, a
    UnicodeEncodeError traceback from the run name's check); ``None`` for a word of text."""
    if sys.getfilesystemencoding().lower().replace("-", "") == "utf8":
        return None  # bytes that are not UTF-8 at all: _unreadable quotes them
    try:
        word.encode("utf-8")
    except UnicodeEncodeError:
        try:  # UTF-8 text that the ASCII locale could not read
            shown = word.encode(sys.getfilesystemencoding(), "surrogateescape").decode("utf-8")
        except (UnicodeError, LookupError):
            return None
        locale = os.environ.get("LC_ALL") or os.environ.get("LC_CTYPE") or os.environ.get("LANG") or "unset"
        return (f"{shown}: it holds characters that this shell's locale ({locale}: ASCII) does not let "
                f"Python read as text. Fix: run under a UTF-8 locale (LC_ALL=C.UTF-8 python train.py ...) "
                f"or with PYTHONUTF8=1, or use ASCII characters only")
    return None


def _control_character(override: str) -> str | None:
    """The message for an override holding an invisible control character: a carriage return, as a
    line of a script saved with Windows (CRLF) line endings ends in (pass 53, row 24, major: before,
    "quote it", and each quoted fix was refused again), or another one (a tab and a line feed, which a
    quoted value may hold, aside); ``None`` for an override without one."""
    shown = override.encode("unicode_escape").decode("ascii")  # depth=4\r, visible
    if "\r" in override:
        return (f"{shown}: it holds a carriage return (CR, U+000D), invisible on a terminal: a line of a "
                f"script saved with Windows (CRLF) line endings ends in one. Fix: convert the script "
                f"(dos2unix <script>, or sed -i 's/\\r$//' <script>), or type the command again")
    found = next((c for c in override if unicodedata.category(c) == "Cc" and c not in "\t\n"), None)
    if found is None:
        return None
    fixed = "".join(c for c in override if c != found)
    return (f"{shown}: it holds the control character U+{ord(found):04X}, invisible on a terminal (pasted "
            f"text?). Fix: type it: {shell_word(fixed)}")


def _from_the_end(overrides: list[str], i: int, config_dir: str | Path, config_name: str) -> str | None:
    """For an override whose key indexes a list from its end (``model.stages.-1.channels=32``): Hydra's
    keys number list items from 0 only, and its grammar cannot read the ``-``; the message gives the
    index from the start, read from the config the other overrides compose (pass 59, row 67: before,
    "quote it", which was refused in turn). ``None`` for any other override."""
    import re

    key, _, value = overrides[i].partition("=")
    parts = key.lstrip("+~").split(".")
    at = next((j for j, part in enumerate(parts) if re.fullmatch(r"-\d+", part)), None)
    if at is None:
        return None
    others = [o for j, o in enumerate(overrides) if j != i]
    cfg = _compose(config_dir, config_name, others)[0]
    items = OmegaConf.select(cfg, ".".join(parts[:at]), default=None) if cfg is not None else None
    if OmegaConf.is_list(items) and -len(items) <= int(parts[at]) < 0:
        fixed = ".".join([*parts[:at], str(len(items) + int(parts[at])), *parts[at + 1:]])
        return (f"{overrides[i]}: a key numbers list items from 0, not from the end ({'.'.join(parts[:at])} "
                f"has {len(items)}). Fix: {key[:len(key) - len(key.lstrip('+~'))]}{fixed}={value}")
    return (f"{overrides[i]}: a key numbers list items from 0, not from the end. Fix: give the item's index "
            f"from the start (0 for the first)")


def _group_names(config_dir: str | Path) -> set[str]:
    """The config groups in ``config_dir`` (its folders: model, data, optim, ...)."""
    return {p.name for p in Path(config_dir).iterdir() if p.is_dir() and not p.name.startswith((".", "_"))}


def _stray_argument(override: str) -> str | None:
    """The message for an argument that is no override at all: empty or blank, or Hydra's flag typed
    with a look-alike dash; ``None`` otherwise."""
    if not override.strip():  # pass 71, rows 19 and 35: "$EXTRA" unset, or ' ' after a backslash
        shown, why = (("an empty argument ('')", "a quoted shell variable that is not set, \"$EXTRA\"?")
                      if not override else (f"a blank argument ({override!r})",
                                            "a space after a line-continuation backslash, '\\ '?"))
        return (f"{shown} is on the command line, where an override goes ({why}). Fix: leave it out, or "
                f"give the variable a value")
    dashed = "".join(LOOKALIKES.get(c, c) if c in "\u2212\u2013\u2014" else c for c in override)
    if dashed != override and dashed.split("=", 1)[0] in HYDRA_FLAGS:  # pass 71, row 34: '–m' pasted
        first = next(c for c in override if c in "\u2212\u2013\u2014")
        return (f"{override}: it begins with {unicodedata.name(first)} (pasted text?), not '-', so it is not "
                f"Hydra's flag {dashed}. Fix: type it: {dashed}")
    return None


def _unreadable(override: str) -> str:
    key, equals, value = override.partition("=")
    if override[:1] in (" ", "\t") and override.strip() and not re.search(r"\s", override.strip()):
        # pass 69, row 8 (major): '\ ' typed inside one line (a line continuation out of place) gives the
        # shell's word ' trainer.max_epochs=2'; before, "quote it", which looped
        return (f"'{override}' starts with a space (a '\\' typed before it, inside one line? The shell then "
                f"keeps the space in the word). Fix: leave the backslash out: {override.strip()}")
    if not equals and override.endswith(".py"):  # python train.py train.py ... (pass 55, row 27: before,
        # "train.py=<value> (or ~train.py ...)")
        return (f"{override}: a script's name, not an override (the script given twice, or a second one?). "
                f"Fix: leave it out: python train.py <overrides>")
    if not equals:
        return (f"{override}: an override needs a value: {key}=<value> (or ~{key} to remove the key, "
                f"+{key}=<value> to add one)")
    bare = key.lstrip("+~")
    letters = [c for c in bare if not c.isascii()]  # letters only: a look-alike dash is named below
    if letters and all(c.isalpha() for c in letters):  # pass 82, row 46 (major): dépth=4; before, "quote it",
        # which looped, a quote more each time: the key, not the value, is what Hydra cannot read
        plain = "".join(c for c in unicodedata.normalize("NFKD", bare) if not unicodedata.combining(c))
        meant = (f"; did you mean {plain}? Fix: {key[:len(key) - len(bare)]}{plain}={value}"
                 if plain.isascii() and plain else
                 ". Fix: write the key in ASCII (python train.py --cfg job lists them)")
        return (f"{override}: a key is ASCII letters, digits, '_' and '.', and {bare!r} holds "
                f"{', '.join(repr(c) for c in dict.fromkeys(letters))}{meant}")
    words = re.split(r"[ \t]+", override.strip(" \t"))  # a no-break space is a look-alike, below
    balanced = all(w.count(a) == w.count(b) for w in words for a, b in ("[]", "{}", "()"))
    # (pass 71, row 60 (major): 'hydra.launcher.setup=[export X=/y]', one list entry with a space, was cut
    # into '...=[export' 'X=/y]', which looped; it is the list's message below)
    if len(words) > 1 and balanced and all(re.fullmatch(r"[+~]?[A-Za-z_][\w.@/-]*=\S*", w) for w in words):
        # pass 49, rows 106-107 (major): 'model=residual width=30' (one argument, "$ARGS" quoted) was to be
        # quoted as "model='residual width=30'", which is then no option of model
        return (f"'{override}' is {len(words)} overrides in one argument (quoted together?). Fix: give them "
                f"as separate words: {' '.join(shell_word(w) for w in words)}")
    # a letter of another script is a look-alike in a Latin word (hіghway), not in a word of its own
    # script (run_name=δοκιμή, which Hydra reads quoted)
    latin = all(_look_alike(c) is not None for c in override if not c.isascii())
    if found := [c for c in override if _look_alike(c) is not None
                 and (latin or not CONFUSABLES.get(c))]:
        fixed = "".join(c if (plain := _look_alike(c)) is None else plain for c in override)
        if fixed.startswith("-") and "=" in fixed:  # —seed=1 (a word processor's --): Hydra takes no dashes
            fixed = fixed.lstrip("-")  # (pass 52, row 59: before, "-seed=1", refused in turn)
        first, plain = found[0], _look_alike(found[0])
        looks = f"which looks like '{plain}' but is not" if plain else "which is invisible"
        shown = override.encode("ascii", "backslashreplace").decode() if not plain else override
        name = unicodedata.name(first, "a character")
        return (f"{shown}: it contains {name} (U+{ord(first):04X}), {looks} (pasted text?). Fix: type it: "
                f"{fixed}")
    if value.startswith("~"):
        return (f"{override}: Hydra does not expand ~ (and reads it as an operator here). Fix: write the "
                f"folder in full, e.g. {key}=$HOME{value[1:]}")
    if (raw := _bytes_not_utf8(override)) is not None:  # the example must be typeable: $'...\xff...'
        quoted = _ansi_c(f"{key}='{value}'")
        return (f"{_ansi_c(override)}: Hydra's override grammar cannot read this value unquoted (it holds "
                f"the byte {raw}, which is not UTF-8). Fix: quote it, e.g. {quoted}")
    inner = value.strip()
    for mark in ("'", '"'):  # pass 51, row 64: trainer.max_epochs=1" was to be quoted, and then refused
        if inner.count(mark) % 2 and not any(c in inner for c in " ,[]{}()"):
            return (f"{override}: the value has an unmatched {mark} (a stray quote?). Fix: "
                    f"{key}={inner.replace(mark, '')}")
    opened, closed = inner.count("("), inner.count(")")
    if re.match(r"[A-Za-z_]\w*\s*\(", inner) and opened > closed:
        # pass 53, row 47 (major): tag(log, interval(0.01, 0.1) was to be quoted, and the search's every
        # trial then failed on the string
        fixed = inner.rstrip() + ")" * (opened - closed)
        return (f"{override}: the parentheses do not balance ({opened} '(' and {closed} ')'). Fix: "
                f"{shell_word(f'{key}={fixed}')}")
    sweep = re.fullmatch(r"(interval|range|choice|tag)\((.*)\)", inner)
    if sweep and sweep[1] == "interval" and len([a for a in sweep[2].split(",") if a.strip()]) != 2:
        # pass 51, row 41 (major): interval(0.01) was to be quoted, and every trial then failed
        return (f"{override}: interval() takes two bounds, a low and a high one. Fix: e.g. "
                f"'{key}=interval({sweep[2].strip() or '0.001'}, <high>)'")
    if inner.startswith("=") and not inner.startswith("=="):  # pass 38, row 45: before, depth==10 was to
        # be quoted as depth='=10', which was then refused as not a positive integer
        return (f"{override}: '==' is not how an override sets a value: it takes one '='. Fix: "
                f"{key}={inner[1:].strip()}")
    if (numbers := re.fullmatch(r"([+-]?\d+(?:\.\d*)?)=([+-]?\d+(?:\.\d*)?)?", inner)) is not None:
        # pass 81, row 03: depth=3=4; before, "quote it: depth='3=4'", refused in turn as not an integer
        either = f"{key}={numbers[1]}" + (f" or {key}={numbers[2]}" if numbers[2] else "")
        return (f"{override}: a second '=' in the value: an override sets one value, key=value. Fix: "
                f"{either}")
    for opening, closing, what in (("[", "]", "list"), ("{", "}", "mapping")):
        missing = inner.count(opening) - inner.count(closing)
        if inner.startswith(opening) and missing > 0:  # tags=[a,b: quoted, one tag '[a,b' (pass 30, row 59)
            return (f"{override}: the {what} is not closed (no '{closing}'). Fix: "
                    f"'{key}={inner}{closing * missing}'")
        if inner.startswith(opening) and missing < 0 and inner.endswith(closing * -missing):
            # tags=[a,b]]: quoted as the fix said, one tag '[a,b]]' (pass 50, row 89)
            return (f"{override}: the {what} has {-missing} '{closing}' too many at its end. Fix: "
                    f"'{key}={inner[:missing]}'")
    if inner.startswith("(") and inner.endswith(")"):  # depth=(3): quoted, it would be the string '(3)'
        inner = inner[1:-1].strip()
        bare = key.lstrip("+~")
        fix = (f"{key}={inner}" if "," not in inner else
               f"-m {bare}={inner} for a sweep, one job per value, or '{key}=[{inner}]' for a list")
        return (f"{override}: Hydra's override grammar takes no parentheses around a value. Fix: {fix}")
    call = re.fullmatch(r"([A-Za-z_][\w.]*)\s*\((.*)\)", inner)
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from highwaylab.models.spec import ACTIVATIONS

    functions = sorted(OverridesParser.create().functions.functions)
    activation = key.lstrip("+~").rsplit(".", 1)[-1] == "activation"
    named = call[1].rsplit(".", 1)[-1].lower() if call else ""  # nn.Sigmoid(): sigmoid
    known = named in {name.lower() for name in ACTIVATIONS}
    if call and call[1] not in functions and not (activation and known):
        # breaking pass 62, row 9 (major): tags=extend_list(mine) was to be quoted, which made the tag
        # 'extend_list(mine)'; Hydra 1.3 has no such function
        example = f" (e.g. {key}={call[2].strip()})" if call[2].strip() else ""
        return (f"{override}: {call[1]}() is not a function of Hydra's override grammar (its functions: "
                f"{', '.join(functions)}). Fix: give the value itself{example}")
    if call and activation:  # pass 40, row 6: before, "quote it",
        # and the quoted 'Sigmoid()' was then refused as not an activation
        # pass 71, row 21: LeakyReLU(0.2); before, the slope dropped without a word
        fixed = (f" ({call[2].strip()} cannot be set here: {named} runs with torch's own defaults)"
                 if call[2].strip() else "")
        return (f"{override}: an activation is given by its name, not called{fixed}. Fix: {key}={named} "
                f"(its options: {', '.join(name.lower() for name in ACTIVATIONS)})")
    if call and call[1] in functions:  # pass 84, row 07: tag(x,0.1): before, "quote it", and the quoted
        # 'tag(x,0.1)' was then refused as no number
        last = call[2].rsplit(",", 1)[-1].strip() or "<value>"
        what = ("labels the values of a sweep (tag(<label>, choice(...)), tag(<label>, range(...))) for a "
                "multirun" if call[1] == "tag" else "is a function of Hydra's sweeps")
        return (f"{override}: {call[1]}() {what}, and Hydra cannot evaluate it with these arguments. Fix: "
                f"one value for a single run, e.g. {key}={last}, or a sweep with -m as Hydra's override "
                f"grammar writes it (e.g. -m '{key}=choice({last})')")
    entries = [e.strip() for e in inner[1:-1].split(",")] if inner.startswith("[") and inner.endswith("]") \
        else []
    if entries and all(e and not set(e) & set("'\"[]{}") for e in entries):
        # breaking pass 60, row 43 (major): tags=[🚀] was to be quoted whole, which made one tag, '[🚀]'
        listed = ",".join(f"'{e}'" for e in entries)
        return (f"{override}: Hydra's override grammar cannot read an entry of this list unquoted. Fix: "
                f"quote each entry, e.g. \"{key}=[{listed}]\"")
    if (result := _arithmetic(inner)) is not None:  # pass 88, row 60: data.batch_size=2^7; before, "quote
        # it", and the quoted '2^7' was then refused as not an integer
        return (f"{override}: Hydra does not compute arithmetic in a value; give the number itself. Fix: "
                f"{key}={result}")
    return (f"{override}: Hydra's override grammar cannot read this value unquoted. Fix: quote it, "
            f"e.g. \"{key}='{value}'\"")


def _arithmetic(text: str) -> str | None:
    """The value of ``text`` when it is arithmetic on numbers (``2^7``, ``2**7``, ``60000/128``, with
    ``^`` read as a power, as users write it), as an override would give it (``128``, ``468.75``);
    ``None`` for anything else. Evaluated from its syntax tree: no names, calls or attributes."""
    import ast
    import operator

    if not re.fullmatch(r"[\d.eE\s+\-*/^()%]+", text) or not re.search(r"\d\s*[-+*/^%]", text):
        return None
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.USub: operator.neg, ast.UAdd: operator.pos}

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            if isinstance(node.op, ast.Pow) and abs(value(node.right)) > 64:  # no 10**10**10
                raise ValueError("too large")
            return ops[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in ops:
            return ops[type(node.op)](value(node.operand))
        raise ValueError("not arithmetic")

    try:
        result = value(ast.parse(text.replace("^", "**"), mode="eval").body)
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError, TypeError):
        return None
    if isinstance(result, float) and result.is_integer() and abs(result) < 2**53:
        result = int(result)
    return str(result)


def _bytes_not_utf8(text: str) -> str | None:
    """The first byte of ``text`` that was not UTF-8 on the command line (Python keeps such a byte
    as a lone surrogate, U+DC80..U+DCFF), as ``0xff``; ``None`` if every byte was UTF-8."""
    found = next((c for c in text if 0xDC80 <= ord(c) <= 0xDCFF), None)
    return None if found is None else f"0x{ord(found) - 0xDC00:02x}"


def _ansi_c(text: str) -> str:
    """``text`` as a bash ANSI-C quoted word (``$'...'``), its bytes that are not UTF-8 as ``\\xNN``,
    so that pasted into the shell it gives the same bytes back."""
    out = []
    for c in text:
        if 0xDC80 <= ord(c) <= 0xDCFF:
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif c in "\\'":
            out.append("\\" + c)
        else:
            out.append(c)
    return "$'" + "".join(out) + "'"


def _key(override: str) -> str:
    return override.split("=", 1)[0].lstrip("+~")
