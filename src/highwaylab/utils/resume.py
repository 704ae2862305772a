"""Resume a run in place with one command, and keep one run to one folder.

``python train.py resume=<run folder> [overrides]`` continues a run where it stopped: in its own
folder, from ``<run folder>/checkpoints/last.ckpt``, with its own overrides (the latest record in
``<run folder>/.hydra/``) and the same W&B run. :func:`prepare_argv` rewrites the command line
into what that means for Hydra, before ``@hydra.main`` sees it::

    <the run's overrides, less those the extra ones replace> <the extra overrides>
    hydra.run.dir=<run folder> ckpt_path=<run folder>/checkpoints/last.ckpt

**Why the command line.** Hydra composes the config, chooses the run folder and writes its record
(``.hydra/``) before ``main()`` runs, and a resume must change all three: the overrides (the run's
own, e.g. ``model=plain``, are config-group choices, which no resolver or callback can apply after
composition), the folder (the run's own) and the record (into ``.hydra/resumed_<date>_<time>/``).
Hydra's own ``--experimental-rerun`` re-runs a pickled config but takes no overrides and no folder.
Rewriting the arguments also lets every check run *before* Hydra writes anything, so that a
refused resume leaves no file behind: the same step checks a low-level ``ckpt_path=`` resume and
an explicit ``hydra.run.dir=`` / ``hydra.sweep.dir=``.

Refused, with one ``highwaylab:`` line (:class:`ResumeError`, exit status 1):

* an empty ``resume=`` (``resume=null`` means no resume);
* a ``resume=`` folder that is not a run folder, has no ``checkpoints/last.ckpt`` (the command that
  continues from its latest other checkpoint, if any), a damaged one, or a record (``.hydra/``)
  that is not valid YAML;
* an extra override that cannot apply to a checkpoint: one that changes ``model``, ``depth``,
  ``width``, ``optim``, ``data`` (but ``data.data_dir``, ``data.num_workers``...) or
  ``module`` (but ``module.compile``), e.g. ``optim=adamw``, ``data=fashion_mnist``,
  ``model.activation=tanh``; and a checkpoint written by a run of another model, optimiser or data
  set (its run's ``.hydra/config.yaml``);
* resuming a finished run (its checkpoint is at ``trainer.max_epochs`` or ``trainer.max_steps``,
  and its ``metrics.json`` is of that checkpoint) without extending it, and a ``trainer.max_epochs``
  or ``trainer.max_steps`` at or below the checkpoint's progress. A run stopped after training and
  before its test (its checkpoint at its end, no ``metrics.json`` of it) is completed: its test
  runs and ``metrics.json`` is written;
* a checkpoint saved inside an epoch, resumed with epochs whose batches (``trainer.limit_train_batches``
  of the training batches) end at or before its place in that epoch (:func:`check_epoch_position`);
* a new run in a folder that holds another run's files (``hydra.run.dir=`` given explicitly; the
  default folder names are unique: ``<date>_<time>_<run_name>_<4 hex digits>``);
* a ``run_name`` with a path separator or ``..``.

An extra override with a mistyped key (``resume=<run> trainer.max_epoch=2``) gets the line a new run
gets (:func:`check_extra_overrides`), before the checkpoint is read.

A resumed run whose folder was moved keeps its best score, best checkpoint and top-k list
(:class:`highwaylab.callbacks.RunFolderMoved`), and its offline W&B rows continue the ``_step``
axis of the earlier segments (:func:`continue_wandb_steps`).
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import math
import os
import re
import shlex
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from omegaconf import DictConfig, ListConfig, OmegaConf, open_dict

from highwaylab.errors import ConfigError
from highwaylab.utils.ranks import further_rank
from highwaylab.utils.run_lock import busy_message, held_lock, holder
from highwaylab.utils.shell_args import hydra_value, override_arg, shell_word

log = logging.getLogger(__name__)

LAST_CKPT = Path("checkpoints") / "last.ckpt"
STUDY_FILE = "optuna.db"  # the Optuna study of an hparams_search, in its sweep folder
RECORD = ".hydra"
# what a run leaves in its folder: a folder with any of them holds a run
MAX_RUN_NAME = 200  # bytes: a file name has 255 at most, and the run folder adds 25 (date, time, hex)
RUN_FILES = (RECORD, "checkpoints", "metrics.json", "wandb", "config_resolved.yaml", "tensorboard")
# overrides that say where and from what a run resumes: a resume sets its own
WHERE = ("hydra.run.dir", "hydra.output_subdir", "hydra.job.name", "ckpt_path", "resume")
# config subtrees a checkpoint is bound to, and the keys in them that may still change on resume
BOUND = ("model", "depth", "width", "optim", "data", "module", "seed")  # seed: the batch order
FREE = {"data": {"data_dir", "num_workers", "pin_memory", "download", "verify", "verify_md5"},
        "module": {"compile"}}
# what identifies the run that wrote a checkpoint, compared with its run's .hydra/config.yaml
IDENTITY = ("data._target_", "data.dataset", "model._target_", "model.block", "model.activation",
            "model.stages", "depth", "width", "optim.optimizer._target_", "optim.scheduler._target_")
# Hydra options after which the command is not a run: left alone
NOT_A_RUN = ("help", "hydra_help", "info", "shell_completion", "experimental_rerun")


class ResumeError(ConfigError):
    """A resume, or a run folder, that cannot work: the message is one line with the fix."""


class BrokenOverrides(ResumeError):
    """The record of a run's overrides (``.hydra/overrides.yaml``) is not a list of overrides.

    Args:
        problem: what is wrong, naming the file and the line (one sentence, ending in a full stop).
        fix: the fix where the record cannot be rebuilt from the run's ``config.yaml``.
    """

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem} Fix: {fix}")
        self.problem = problem


# the overrides given beside resume= in this process (an extension's trainer.max_epochs=3): a resume
# stopped before it trained is continued by the same command, these included (pass 32, part 1, row 57)
GIVEN_WITH_RESUME: list[str] = []
# the whole command line's overrides in this process, for a fix that keeps a key's '+' before Hydra has
# started (config_checks.as_given reads Hydra's record of them once it has)
GIVEN_OVERRIDES: list[str] = []
# resume= values that mean a switch, not a folder (unless a folder has that name)
NOT_A_FOLDER = ("false", "true", "0", "1", "no", "yes", "off", "on", "none")


# ---------------------------------------------------------------------------------------------
# the command line
# ---------------------------------------------------------------------------------------------

def prepare_argv(argv: list[str], config_dir: str | Path, config_name: str = "train") -> list[str]:
    """:func:`rewrite_argv`, or on bad input one ``highwaylab:`` line on stderr and exit status 1."""
    try:
        return rewrite_argv(argv, config_dir, config_name)
    except ResumeError as err:
        print(f"highwaylab: {err}", file=sys.stderr)
        sys.exit(1)


# the environment variables that name folders the run reads or writes
PATH_VARIABLES = ("HIGHWAYLAB_DATA_DIR", "HIGHWAYLAB_ROOT", "WANDB_DIR")


def check_name_lengths(values: dict[str, str]) -> None:
    """Raises ResumeError for an override's value (``hydra.run.dir=``, ``ckpt_path=``, ``resume=``,
    ``data.data_dir=`` ...: any value with a ``/``, or of a key that names a path) or a folder's
    environment variable (:data:`PATH_VARIABLES`) with a file or folder name longer than the file system
    allows (:func:`highwaylab.utils.out_paths.long_name_problem`; breaking pass 60, row 33: before, a
    traceback, ``OSError: [Errno 36] File name too long``, from the first check that looked at it)."""
    from highwaylab.utils.out_paths import long_name_problem

    named = {f"{key}=": value for key, value in values.items()
             if "/" in value or key.rsplit(".", 1)[-1] in ("dir", "dirpath", "path", "resume", "ckpt_path")
             or key.endswith(("_dir", "_path"))}
    named |= {f"{name}=": os.environ[name] for name in PATH_VARIABLES if os.environ.get(name)}
    for option, value in named.items():
        if (problem := long_name_problem(option, value)) is not None:
            raise ResumeError(problem)


def rewrite_argv(argv: list[str], config_dir: str | Path, config_name: str = "train") -> list[str]:
    """The command line ``argv`` (``sys.argv``) as Hydra should see it; see the module's docstring.

    ``resume=<run>`` becomes the run's overrides, the extra ones, ``hydra.run.dir`` and
    ``ckpt_path``; a ``ckpt_path=`` resume, ``hydra.run.dir=`` and ``hydra.sweep.dir=`` are checked.
    The ranks that Lightning, torchrun or SLURM start beside the first get ``argv`` unchanged.

    Raises:
        ResumeError: see the module's docstring.
    """
    if further_rank():
        return list(argv)
    from highwaylab.utils.hydra_utils import quiet_args_parser

    try:
        args = quiet_args_parser().parse_args(argv[1:])
    except (ValueError, SystemExit):  # Hydra's own parser reports it, with its usage
        return list(argv)
    resumed = any(_key_value(o)[0] == "resume" for o in args.overrides)
    if any(getattr(args, name, None) for name in NOT_A_RUN if not (name == "info" and resumed)):
        return list(argv)  # --info config of a resume shows the config resumed (pass 95, row 49), as --cfg
    if args.config_path:  # relative to train.py, as Hydra reads it
        config_dir = (Path(config_dir).parent / args.config_path).resolve()
    config_name = args.config_name or config_name
    overrides = list(args.overrides)
    GIVEN_OVERRIDES[:] = overrides
    flags = [token for token in argv[1:] if token not in set(overrides)]
    values = {key: value for key, value in map(_key_value, overrides) if key}
    given = [o for o in overrides if _key_value(o)[0] == "resume"]
    if given and (given[-1].startswith("~") or values["resume"].lower() == "null"):
        del values["resume"]  # resume=null (or ~resume): no resume
    elif given and not values["resume"].strip():  # before: a new run with the default config
        raise ResumeError("resume= is empty: give a run folder, e.g. resume=outputs/runs/<run> (or leave "
                          "resume= out to start a new run)")
    elif given and values["resume"].strip().lower() in NOT_A_FOLDER and not Path(values["resume"]).exists():
        # pass 87, rows 09-10: before, "resume=false: no such folder", with no word of how not to resume
        raise ResumeError(f"resume={values['resume']}: resume takes the folder of a run to continue (e.g. "
                          f"resume=outputs/runs/<run>), not a switch. For a new run, leave resume out (or "
                          f"give resume=null)")
    for value in _sweep_values(values.get("run_name")):
        check_run_name(value)
    if "${" in values.get("run_name", ""):  # pass 69, row 57: run_name=${paths.log_dir}, a path; before,
        # each job failed after Hydra had made a folder 0_/<path>/ inside the sweep's
        resolved = _resolved("run_name", config_dir, config_name, overrides, argv[0])
        if isinstance(resolved, str) and ("/" in resolved or "\\" in resolved or ".." in resolved):
            raise ResumeError(f"run_name={values['run_name']} gives {resolved}, which is not a plain name "
                              f"(without '/', '\\' or '..'): it names the run's folder under outputs/ and "
                              f"its W&B run. Fix: a name of your own, e.g. run_name=my-run (or leave it out)")
    check_name_lengths(values)
    if values.get("hydra.output_subdir") in ("null", "", "~"):
        raise ResumeError("hydra.output_subdir=null would leave the run without its record (.hydra/: its "
                          "config and overrides), so resume= could never continue it; leave "
                          "hydra.output_subdir out")
    if "hydra.output_subdir" in values:  # before: meta/ accepted, then "not a run folder" for resume=
        raise ResumeError(f"hydra.output_subdir={values['hydra.output_subdir']}: the run's record must be "
                          f"its .hydra/ folder (config, overrides, the run-folder lock), where resume=, the "
                          f"report and the one-run-per-folder checks look for it; leave "
                          f"hydra.output_subdir out")

    if "resume" in values:
        extra = [o for o in overrides if _key_value(o)[0] != "resume"]
        GIVEN_WITH_RESUME[:] = [*_config_flags(flags), *extra]  # the fixes below repeat them, and the
        # --config-dir that finds the options they choose (pass 96, row 50b: before, left out of the fix)
        listed = _sweep_values(values["resume"])
        if args.multirun and len(listed) > 1 and all(Path(v).expanduser().is_dir() for v in listed):
            # pass 33, row 25: before, "resume=<a>,<b>: no such folder", of two existing runs
            each = "; ".join(_command([f"resume={_quote(Path(v))}", *extra]) for v in listed)
            raise ResumeError(f"resume={values['resume']}: resume= continues one run, and -m does not sweep "
                              f"it (a multirun's jobs are new runs). Fix: resume each in turn: {each}")
        run = resume_folder(values["resume"], extra)
        if args.multirun:
            raise ResumeError(f"resume={values['resume']} resumes one run: leave out -m/--multirun "
                              "(resume each job of a sweep by its folder)")
        if values.get("hparams_search", "null") != "null":  # before: every trial continued that run
            raise ResumeError(f"resume={values['resume']} resumes one run, and hparams_search="
                              f"{values['hparams_search']} is a multirun of new runs (each of its trials "
                              f"would continue this run's checkpoint, its sampled values ignored). Fix: "
                              f"leave out hparams_search; to continue a search, rerun its command with "
                              f"hydra.sweep.dir=<its folder>")
        debug = values.get("debug", "null")
        if debug != "null":  # before: one debug batch overwrote the run's metrics.json
            raise ResumeError(f"resume={values['resume']} debug={debug}: a debug pass (a batch or two, no "
                              f"logger) would run in the run's folder and write its metrics.json over the "
                              f"run's result. Fix: leave debug= out; to debug the run's setup, start a new "
                              f"run: python train.py debug={debug} <the run's overrides>")
        for key in ("ckpt_path", "hydra.run.dir"):
            if key in values:
                raise ResumeError(f"resume={values['resume']} and {key}= together: resume= continues "
                                  f"the run in its own folder from its latest checkpoint; give only "
                                  f"resume=<run folder> (ckpt_path= alone is the low-level way)")
        try:
            own, broken = freeze_clock(run_overrides(run), run), None
        except BrokenOverrides as err:  # rebuilt from the run's config.yaml by check_record_agrees
            own, broken = [], err
        own_name = next((_key_value(o)[1] for o in own if _key_value(o)[0] == "run_name"), None)
        if "run_name" in values and values["run_name"] != own_name:  # before: the W&B run alone renamed
            raise ResumeError(f"resume={values['resume']} run_name={values['run_name']}: a resume keeps "
                              f"the run's name, which its folder, its record and its W&B run share; "
                              f"run_name= here would rename the W&B run alone. Fix: leave run_name out")
        extra_dir = args.config_dir or run_config_dir(run, own, config_dir)  # the run's --config-dir
        if extra_dir and not args.config_dir:  # taken as its overrides are: the configs they choose
            flags = ["--config-dir", str(extra_dir), *flags]
        if not args.config_name and (own_config := run_config_name(run)) not in (None, config_name):
            # pass 69, row 49: a run started with --config-name mytrain; before, resume composed train.yaml
            # and blamed an edit of the run's record, whose fix rewrote the record falsely
            flags, config_name = ["--config-name", own_config, *flags], own_config
        ckpt = last_checkpoint_path(run)
        where = [f"hydra.run.dir={_quote(run)}", f"ckpt_path={_quote(ckpt)}"]
        merged = merge_overrides(own, extra)
        check_dirpaths_moved(run, merged, extra)  # a dirpath written in full, into the run's old place
        own_searched = _searched(own, extra_dir)  # for composing here: Hydra adds --config-dir itself
        check_extra_overrides(own_searched, extra, config_dir, config_name)  # a typo: before the ckpt's read
        base_cfg = _compose(config_dir, config_name, own_searched)
        cfg = _compose(config_dir, config_name, _searched(merged, extra_dir))
        check_interpolated_overrides(own, cfg, run)  # depth=${oc.env:DEPTH}: as when the run started?
        check_data_folder(run, cfg, extra)  # a relative HIGHWAYLAB_DATA_DIR, typed in another folder
        if (unchecked := unverified_data_warning(run, cfg, extra)) is not None:
            print(unchecked, file=sys.stderr)
        if (trial := search_trial_warning(run, extra)) is not None:
            print(trial, file=sys.stderr)
        if base_cfg is not None:
            check_record_agrees(run, base_cfg, compose=lambda more: _compose(  # an emptied or edited record
                config_dir, config_name, _searched(merge_overrides(own, more), extra_dir)), broken=broken)
        if broken is not None:  # the record could not be compared (no config.yaml): its own fix
            raise broken
        if base_cfg is not None and cfg is not None:
            check_bound(base_cfg, cfg, extra, run, compose=lambda more: _compose(
                config_dir, config_name, _searched(merge_overrides(own, more), extra_dir)))
            check_checkpoint_callbacks(base_cfg, cfg, run, extra)
            check_processes(base_cfg, cfg, extra, run)
        if args.cfg or args.info:  # --cfg, --info print the config resumed, train nothing: the checkpoint's
            return [argv[0], *flags, *merged, *where]  # checks are for training (pass 91, row 51; 95, row 49)
        checkpoint = _read(ckpt, f"resume={run}", merged, resume=True)
        check_own_checkpoint(run, ckpt, checkpoint)  # another run's last.ckpt copied in
        check_signed_extension(run, extra, checkpoint)  # trainer.max_epochs=+2: read as 2 in all
        check_wandb_id(run, checkpoint, extra)  # logger.wandb.id=<another>: the history split in two
        if cfg is not None:
            check_resume(cfg, str(ckpt), checkpoint, resume=True)
            _check_run_weights(cfg, ckpt, checkpoint, run, merged)  # NaN weights, or a checkpoint copied in
        check_resolved_record(run)  # last: .hydra/ agrees with the checkpoint; config_resolved.yaml edited
        log.debug(f"resume={run}: {' '.join(merged + where)}")
        return [argv[0], *flags, *merged, *where]

    search = values.get("hparams_search", "null") != "null"  # a multirun, with or without -m (hydra.mode)
    if (args.multirun or search) and "hydra.run.dir" in values and "hydra.sweep.dir" not in values:
        # pass 39, row 37: before, hparams_search=mnist_tpe hydra.run.dir=<folder> ran its 20 trials into
        # outputs/multiruns/, and the folder given was dropped without a word
        what = f"hparams_search={values['hparams_search']} is a multirun" if search else "-m runs a multirun"
        raise ResumeError(f"hydra.run.dir={values['hydra.run.dir']} is not used: {what}, whose jobs go into "
                          f"hydra.sweep.dir (one folder per job under it). Fix: hydra.sweep.dir="
                          f"{values['hydra.run.dir']}")
    if not (args.multirun or search) and "hydra.sweep.dir" in values and "hydra.run.dir" not in values \
            and _resolved("hydra.job.name", config_dir, config_name, overrides, argv[0]) is not None \
            and "MULTIRUN" not in str(_resolved("hydra.mode", config_dir, config_name, overrides, argv[0])):
        # (the job's name: the config composes; one that does not is left to Hydra, which says why)
        # pass 70, row 52: -m forgotten (and no option sets hydra.mode); before, the run went to outputs/runs/
        raise ResumeError(f"hydra.sweep.dir={values['hydra.sweep.dir']} is not used: without -m this is one "
                          f"run, which goes into hydra.run.dir. Fix: add -m for a multirun into that folder, "
                          f"or hydra.run.dir={values['hydra.sweep.dir']} for one run")
    if args.multirun or search:
        if "hydra.sweep.dir" in values and not values["hydra.sweep.dir"].strip():
            raise ResumeError("hydra.sweep.dir is empty, so the sweep would be written into the current "
                              "folder, among its files. Fix: give a folder, e.g. hydra.sweep.dir=outputs/"
                              "multiruns/mine, or leave it out (every sweep gets a folder of its own)")
        if "hydra.sweep.dir" in values and "${" not in values["hydra.sweep.dir"]:
            check_sweep_folder_free(Path(values["hydra.sweep.dir"]), search=search)
        elif "hydra.sweep.dir" in values and isinstance(sweep := _resolved(
                "hydra.sweep.dir", config_dir, config_name, overrides, argv[0]), str) and sweep.strip():
            check_sweep_folder_free(Path(sweep), search=search)
        return absolute_paths(argv, overrides)
    ckpt_path = values.get("ckpt_path")
    if ckpt_path is not None and not ckpt_path.strip():  # pass 63, row 5: before, Lightning's traceback
        raise ResumeError("ckpt_path= is empty: give the path of a .ckpt file (e.g. ckpt_path=outputs/runs/"
                          "<run>/checkpoints/last.ckpt), or leave ckpt_path out for a new run")
    if ckpt_path and "://" in ckpt_path:  # pass 74, row 38: before, "https:/example.com/model.ckpt does not
        # exist" (the URL read as a path)
        fetch = (f"download it first (e.g. curl -fLo model.ckpt {shell_word(ckpt_path)})" if
                 ckpt_path.lower().startswith(("http://", "https://")) else "copy it to this machine first")
        raise ResumeError(f"ckpt_path={ckpt_path} is a URL, and a run reads its checkpoint from a file on "
                          f"this machine. Fix: {fetch}, then give the file: ckpt_path=model.ckpt")
    if ckpt_path and ckpt_path != "null":
        cfg = _compose(config_dir, config_name, overrides)
        checkpoint = _read(Path(ckpt_path), f"ckpt_path={ckpt_path}",
                           [o for o in overrides if _key_value(o)[0] not in WHERE])
        if cfg is not None:
            if run_of(Path(ckpt_path)) is None:  # a lone checkpoint: its weights say what wrote it
                _check_weights(cfg, ckpt_path, checkpoint)  # (in a run folder, its record says it)
            check_resume(cfg, ckpt_path, checkpoint)
    if "hydra.run.dir" in values and not values["hydra.run.dir"].strip():  # pass 36, row 83: before,
        raise ResumeError("hydra.run.dir is empty, so the run would be written into the current folder, "
                          "among its files. Fix: give a folder, e.g. hydra.run.dir=outputs/runs/mine, or "
                          "leave it out (every run gets a folder of its own)")  # (it was named as ".")
    if "hydra.run.dir" in values and "${" not in values["hydra.run.dir"]:
        check_folder_free(Path(values["hydra.run.dir"]), ckpt_path)
    elif "hydra.run.dir" in values and isinstance(folder := _resolved(
            "hydra.run.dir", config_dir, config_name, overrides, argv[0]), str) and folder.strip():
        check_folder_free(Path(folder), ckpt_path)
    return absolute_paths(argv, overrides)


def _resolved(key: str, config_dir: Path, config_name: str, overrides: list[str], script: str) -> Any:
    """``key`` (``hydra.run.dir``, ``hydra.sweep.dir``, ``run_name``) as the job will see it, for a
    value given with an interpolation (``hydra.run.dir=/runs/${run_name}``), so that the checks of a
    value typed out apply to it (pass 69, rows 35 and 56, major: before, the same command run twice
    trained into the finished run's folder, over its record, metrics.json and last.ckpt).
    A sweep's values count with their first (``seed=0,1``: ``seed=0``); ``hydra.job.name`` is the
    name of ``script`` (``train.py``: ``train``), as Hydra names a job after its script. ``None``
    when it does not resolve here (Hydra or the job then says why)."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import open_dict, read_write

    from highwaylab.utils.overrides import _first_value

    try:
        single = [_first_value(o) for o in OverridesParser.create().parse_overrides(overrides)]
    except Exception:  # noqa: BLE001 -- an override Hydra refuses: it says why
        return None
    cfg = _compose(config_dir, config_name, [o for o in single if o is not None])
    if cfg is None:
        return None
    with read_write(cfg), open_dict(cfg):
        cfg.hydra.job.name = Path(script).stem or "train"
    HydraConfig.instance().set_config(cfg)
    try:
        value = OmegaConf.select(cfg, key)
    except Exception:  # noqa: BLE001 -- ${oc.env:...} of a variable not set: the job names it
        return None
    finally:
        HydraConfig.instance().cfg = None
    return value


# a logger's folder, and a checkpoint callback's (pass 44, row 57: a relative dirpath, kept as written in the
# run's overrides, was read again from the folder where each resume was typed)
SAVE_DIR = re.compile(r"logger\.\w+\.save_dir|callbacks\.\w+\.dirpath")
# the keys that name the data folder, read by the job (pass 92, rows 47, 51, 54: a relative one passed the
# early check, read from the folder where the command was typed, then failed under hydra.job.chdir=true;
# row 52b: recorded relative, a resume from another folder read it from there)
DATA_DIR_KEYS = ("data.data_dir", "paths.data_dir", "hydra.job.env_set.HIGHWAYLAB_DATA_DIR")


def absolute_paths(argv: list[str], overrides: list[str]) -> list[str]:
    """``argv`` with a relative ``ckpt_path=``, ``logger.<name>.save_dir=``,
    ``callbacks.<name>.dirpath=`` and data folder (``DATA_DIR_KEYS``) made absolute, from the
    folder where the command was typed, so that a run under ``hydra.job.chdir=true`` (in its own
    folder) finds the checkpoint and writes its logs where a run without it does (breaking pass 30,
    row 41: "ckpt_path=... does not exist"; pass 31, row 61: the logs went inside the run folder,
    recorded as relative)."""
    out = list(argv)
    for i, token in enumerate(argv):
        key, value = _key_value(token)
        if token not in overrides or not value or value == "null" or value.startswith("~") or any(
                mark in value for mark in ("${", "://", ",", "(")):  # ~: refused so; ${}, a URL, a sweep
            continue
        if (key == "ckpt_path" or SAVE_DIR.fullmatch(key) or key.lstrip("+~") in DATA_DIR_KEYS) \
                and not Path(value).is_absolute():
            prefix = token[:len(token) - len(token.lstrip("+"))]
            out[i] = f"{prefix}{key}={_quote(Path(value).absolute())}"
    return out


def _job_to_resume(sweep: Path, jobs: list[str]) -> str:
    """The fix for ``resume=<a multirun's folder>``: the first of its ``jobs`` without a result
    (``metrics.json``: interrupted, or failed); when every job has one, the extension of the first,
    ``python train.py resume=<job> trainer.max_epochs=<its epochs + 2>`` (pass 75, row 48: before, the
    first job, which resume= then refused as finished, naming the extension only then)."""
    unfinished = [job for job in jobs if not (sweep / job / "metrics.json").is_file()]
    if unfinished:
        return f"e.g. {override_arg('resume', sweep / unfinished[0])} (it has no result yet)"
    try:
        epochs = json.loads((sweep / jobs[0] / "metrics.json").read_text()).get("epochs")
    except (OSError, ValueError, AttributeError):
        epochs = None
    more = f"{epochs + 2}" if isinstance(epochs, int) else "<more epochs>"
    every = {1: "its job has", 2: "both its jobs have"}.get(len(jobs), f"all {len(jobs)} of its jobs have")
    return (f"{every} finished (metrics.json); to train one further, extend it, e.g. python train.py "
            f"{override_arg('resume', sweep / jobs[0])} trainer.max_epochs={more}")


def resume_folder(value: str, extra: list[str] | tuple[str, ...] = ()) -> Path:
    """The run folder that ``resume=<value>`` names, absolute. A relative ``value`` is taken from the
    current folder, or else from ``HIGHWAYLAB_ROOT`` (``paths.root_dir``, the folder that holds
    ``outputs/``: train.py's own by default). ``extra``: the command line's other overrides, for the
    command that a message gives.

    Raises:
        ResumeError: no such folder, not a run folder (no ``.hydra/overrides.yaml``), or no
            ``checkpoints/last.ckpt`` (with the command that continues from the run's latest other
            checkpoint, if it has one, else the one that starts it again).
    """
    path = Path(value).expanduser()
    env = re.fullmatch(r"\$\{oc\.env:(\w+)(?:,[^}]*)?\}", value.strip())
    if "${" in value and not path.is_dir():  # pass 70, row 46: before, "no such folder" and a template
        known = os.environ.get(env[1]) if env else None
        fix = (f"resume={_quote(Path(known))} (or resume=\"${env[1]}\" with {env[1]} exported, which the "
               f"shell expands)" if known else f"resume=\"${env[1]}\" with {env[1]} exported (the shell "
               f"expands it)" if env else "give the folder itself, e.g. resume=outputs/runs/<run>")
        raise ResumeError(f"resume={value}: resume= is read before Hydra resolves interpolations, so it "
                          f"takes the run's folder as written. Fix: {fix}")
    listed = value.strip()
    if listed.startswith("[") and listed.endswith("]") and not path.exists():  # pass 77, row 13: before,
        items = [i.strip().strip("'\"") for i in listed[1:-1].split(",") if i.strip()]  # "no such folder"
        each = "; ".join(f"python train.py {override_arg('resume', i)}" for i in items[:3])
        raise ResumeError(f"resume={value}: resume= continues one run, and takes its folder, not a list. "
                          f"Fix: {f'one command per run: {each}' if each else 'resume=outputs/runs/<run>'}")
    root = Path(os.environ.get("HIGHWAYLAB_ROOT") or ".")  # paths.root_dir: where outputs/ lies
    if not path.is_absolute() and not path.exists() and (root / path).exists():
        path = root / path  # resume=outputs/runs/<run>, started from another folder than the checkout
    example = f"e.g. resume={root.resolve() / 'outputs' / 'runs'}/<date>_<time>_<run_name>_<hex>"
    if path.is_file() and path.suffix == ".ckpt":
        run = run_of(path) or path.parent.parent  # with the other overrides given (pass 90, row 50: before,
        # the fix dropped trainer.max_epochs=3, and was refused as a finished run)
        kept = "".join(f" {shell_word(o)}" for o in extra if _key_value(o)[0] != "resume")
        raise ResumeError(f"resume={value} is a checkpoint: resume= takes the run's folder: python train.py "
                          f"{override_arg('resume', run)}{kept}{_not_from_this(path, run, extra)}")
    if path.is_file():  # a file of a run (tab completion: resume=<run>/metrics.json; pass 33, row 34)
        run = next((p for p in path.resolve().parents if (p / RECORD / "overrides.yaml").is_file()), None)
        if run is not None:
            raise ResumeError(f"resume={value} is a file of the run in {run}: resume= takes the run's "
                              f"folder. Fix: {override_arg('resume', run)}")
    if not path.is_dir():
        trimmed = value.rstrip(".,;:")  # copied with the full stop that ends a message's sentence
        found = trimmed and (Path(trimmed).expanduser().is_dir() or (root / trimmed).is_dir())
        if trimmed != value and found:
            raise ResumeError(f"resume={value}: no such folder; did you mean resume={trimmed} (without the "
                              f"final {value[len(trimmed):]!r}, the end of the sentence it was copied from)?")
        sweep = path.parent
        if (sweep / "multirun.yaml").is_file():  # pass 47, row 57: before, "no such folder", of a sweep's job
            # that never started
            raise ResumeError(f"resume={value}: no such folder; {sweep} is a multirun whose jobs are its "
                              f"numbered folders, and this one never started (or was renamed): python -m "
                              f"highwaylab.report {shlex.quote(str(sweep))} lists its jobs, with the command "
                              f"that runs a job it never started into the sweep's folder")
        if any(c in value for c in "*?[") and not path.exists():  # pass 90, row 49: resume=runs/base*, which
            # the shell leaves as it is inside an override; before, "no such folder" alone
            import glob

            matches = sorted(Path(m) for m in glob.glob(str(path)) + (
                glob.glob(str(root / path)) if not path.is_absolute() else [])
                if (Path(m) / RECORD / "overrides.yaml").is_file())  # run folders only
            kept = "".join(f" {shell_word(o)}" for o in extra if _key_value(o)[0] != "resume")
            if matches:
                names = ", ".join(str(m) for m in matches[:4]) + (", ..." if len(matches) > 4 else "")
                raise ResumeError(f"resume={value}: the shell does not expand a wildcard inside an override, "
                                  f"and resume= takes one run's folder; it matches {len(matches)}: {names}. "
                                  f"Fix: name one, e.g. python train.py "
                                  f"{override_arg('resume', matches[-1])}{kept}")
        fragments = [word for word in extra if "=" not in word and not word.startswith(("~", "+", "-"))]
        for n in range(1, len(fragments) + 1):  # resume=<run> with a space in its name, unquoted (pass 47,
            joined = " ".join([value, *fragments[:n]])  # row 41: before, "no such folder" of the first part)
            if Path(joined).expanduser().is_dir() or (root / joined).is_dir():
                rest = [o for o in extra if o not in fragments[:n]]
                raise ResumeError(f"resume={value} {' '.join(fragments[:n])}: the shell split the run "
                                  f"folder's name at a space ({joined} is a folder). Fix: quote it: python "
                                  f"train.py {override_arg('resume', joined)}"
                                  f"{''.join(' ' + shell_word(o) for o in rest)}")
        if not path.is_absolute():  # where it looked (pass 43, row 60: a run made under another root)
            env = os.environ.get("HIGHWAYLAB_ROOT")
            here = f" (looked for in the current folder, {Path.cwd()}"
            looked = (f"{here}, and in HIGHWAYLAB_ROOT, {root.resolve()}: train.py's folder unless set)"
                      if env else f"{here}; HIGHWAYLAB_ROOT, the other folder a relative resume= is read "
                      f"from, is not set)")
            raise ResumeError(f"resume={value}: no such folder{looked}; give the folder of a run, {example}")
        # pass 52, row 45: before, "no such folder" of a quoted resume='~/...', not saying what ~ became
        home = f" ({path}: the ~ read as this user's home, {Path.home()})" if value.startswith("~") else ""
        raise ResumeError(f"resume={value}: no such folder{home}; give the folder of a run, {example}")
    path = path.resolve()
    for name in (f"{RECORD}/overrides.yaml", "metrics.json", f"{RECORD}/config.yaml", "train.log"):
        if (path / name).is_dir():  # the run writes (or reads) a file there
            raise ResumeError(f"resume={value}: {path / name} is a folder, not the file the run keeps there. "
                              f"Fix: move it away (mv {shlex.quote(str(path / name))} <elsewhere>)"
                              + (", then put the run's record back" if name.startswith(RECORD) else ""))
    if not (path / RECORD / "overrides.yaml").is_file():
        parent = next((p for p in path.parents if (p / RECORD / "overrides.yaml").is_file()), None)
        held = [name for name in ("checkpoints", "metrics.json", "config_resolved.yaml", "train.log")
                if (path / name).exists()]
        record = path / RECORD
        if parent is None and record.exists() and not record.is_dir() and len(held) >= 2:  # pass 43, row 36
            raise ResumeError(  # before: "is not a run folder", of a run whose record is a file
                f"resume={value} holds a run's files ({', '.join(held)}), but its record {record} is a file, "
                f"not the folder train.py writes. Fix: move it away (mv {shlex.quote(str(record))} "
                f"<elsewhere>) and copy the run's record back (cp -r <the original run>/{RECORD} "
                f"{shlex.quote(str(path))}/), then resume again")
        if parent is None and not record.exists() and len(held) >= 2:  # pass 33, row 7: before,
            raise ResumeError(  # "is not a run folder ... give the run's folder", which it was
                f"resume={value} holds a run's files ({', '.join(held)}) but not its record, the hidden "
                f"{RECORD}/ folder (copied without it? cp -r <run>/* leaves it out). Fix: copy it back "
                f"(cp -r <the original run>/{RECORD} {shlex.quote(str(path))}/), then resume again")
        sweep = path.is_dir() and any((path / name).is_file() for name in ("multirun.yaml", "summary.jsonl"))
        jobs = sorted(p.name for p in path.glob("*") if sweep and (p / RECORD / "overrides.yaml").is_file())
        if jobs:  # pass 37, row 56: before, "give the run's folder, e.g. resume=outputs/runs/<...>"
            shown = ", ".join(jobs[:3]) + (f" and {len(jobs) - 3} more" if len(jobs) > 3 else "")
            raise ResumeError(f"resume={value} is the folder of a multirun, whose jobs ({shown}) are runs of "
                              f"their own: resume= continues one of them. Fix: {_job_to_resume(path, jobs)}")
        hint = f"resume={parent}" if parent else example
        raise ResumeError(f"resume={value} is not a run folder: it has no {RECORD}/overrides.yaml (the "
                          f"record train.py writes into every run folder); give the run's folder, {hint}")
    if (pid := holder(path)) is not None:  # its job still runs (or finishes its test): one writer
        raise ResumeError(busy_message(path, pid, f"resume={value}"))
    last = last_checkpoint_path(path)  # checkpoints/last.ckpt, or where the run's config put it
    shown = last.relative_to(path) if _inside(last, path) else last  # checkpoints/last.ckpt
    if last.is_dir():  # not missing: something else is at its name
        where = shlex.quote(str(last))
        raise ResumeError(f"resume={value}: {last} is a folder, not a checkpoint, and the run "
                          f"writes its state there. Fix: move it away (mv {where} <elsewhere>), then resume "
                          f"(resume= then names the run's latest other checkpoint)")
    folders = sorted(p for p in last.parent.glob("*.ckpt") if p.is_dir()) if last.parent.is_dir() else []
    if folders:  # pass 43, row 37: before, Lightning's top-k cleanup removed it, and what it held, unsaid
        where = shlex.quote(str(folders[0]))
        raise ResumeError(f"resume={value}: {folders[0]} is a folder, not a checkpoint, and Lightning "
                          f"removes a checkpoint it replaces with all it holds. Fix: move it away (mv "
                          f"{where} <elsewhere>), then resume")
    if not last.is_file():
        moved = sorted(p for p in last.parent.rglob(last.name) if p.is_file() and not any(
            (q / RECORD).is_dir() for q in p.parents[:len(p.relative_to(last.parent).parts) - 1])) \
            if last.parent.is_dir() else []  # into a subfolder of checkpoints/ (not another run's, nested)
        if moved:  # pass 47, row 32: before, "missing (deleted?)", with a command from an older checkpoint
            raise ResumeError(f"resume={value}: {shown} is missing, but {moved[0]} is there (moved?). Fix: "
                              f"move it back (mv {shlex.quote(str(moved[0]))} {shlex.quote(str(last))}), "
                              f"then resume again")
        others = _checkpoints(path / LAST_CKPT.parent)
        # only one that holds a training state can be continued (pass 80, row 68, major: before, a
        # save_weights_only checkpoint was offered, and its command was refused for holding weights only)
        latest = next((p for p in reversed(others) if _holds_training_state(p)), None)
        if latest is not None:  # last.ckpt was deleted (or moved): the run did save
            raise ResumeError(
                f"resume={value}: {shown} is missing (deleted?), and resume= continues from it; the "
                f"run's latest checkpoint is {latest.relative_to(path)}: continue from it with: "
                f"{continue_command(path, latest, merge_overrides(run_overrides(path), list(extra)))}")
        if others:
            names = ", ".join(p.name for p in others[-3:])
            raise ResumeError(
                f"resume={value}: {shown} is missing (deleted?), and resume= continues from it; the run's "
                f"other checkpoints ({names}) hold weights only (save_weights_only), not a training state, "
                f"so the run cannot be continued. Fix: start it again, in a new folder: "
                f"{_command(merge_overrides(run_overrides(path), list(extra)))}")
        saved = _checkpoints_under(path)  # Lightning's default one, of a run without our callbacks
        renamed = next((p.parent for p in reversed(saved) if p.name == last.name), None)
        if renamed is not None and _inside(last, path) and not last.parent.is_dir():  # pass 35b, row 31:
            gone, moved = last.parent.relative_to(path), renamed.relative_to(path)  # before, "it ran without
            is_file = last.parent.exists()  # the callbacks ..."; pass 37, row 45: a file
            state = "is a file, not a folder" if is_file else "is missing"
            away = f"mv {gone} {gone}.file && " if is_file else ""
            raise ResumeError(
                f"resume={value}: the run's checkpoint folder {gone}/ {state}, and {moved}/ holds a "
                f"{last.name} (renamed or moved?): resume= reads the run's state from {shown}. Fix: cd "
                f"{shlex.quote(str(path))} && {away}mv {shlex.quote(str(moved))} {gone}, then resume again")
        if saved:
            latest = saved[-1]
            raise ResumeError(
                f"resume={value}: the run has no {shown} (it ran without the callbacks that write it: "
                f"~callbacks, callbacks=none or callbacks.last_checkpoint=null), and resume= continues "
                f"from it; the run's latest checkpoint is {latest.relative_to(path)}: continue from it "
                f"with: {continue_command(path, latest, merge_overrides(run_overrides(path), list(extra)))}")
        again = _command(merge_overrides(run_overrides(path), list(extra)))
        metrics = run_metrics(path)
        max_time = _own_value(path, "trainer.max_time", f"resume={value}")
        if metrics is not None and metrics.get("global_step") == 0 and max_time is not None:
            kept = [o for o in merge_overrides(run_overrides(path), list(extra))
                    if _key_value(o)[0] != "trainer.max_time"]
            raise ResumeError(f"resume={value}: the run trained 0 steps: trainer.max_time={max_time} ended "
                              f"it before its first step, so it wrote no checkpoint and cannot be resumed or "
                              f"extended; start a new run without that time limit (or with a longer one): "
                              f"{_command(kept)}")
        folder = last.parent
        if folder.exists() and not folder.is_dir():  # pass 32, row 15: "finished without writing a ..."
            raise ResumeError(f"resume={value}: {folder} is a file, not the folder where the run keeps its "
                              f"checkpoints, so there is none to resume from. Fix: put the run's checkpoints "
                              f"back there (mv {shlex.quote(str(folder))} <elsewhere> first), or start a new "
                              f"run: {again}")
        best = (metrics or {}).get("best_ckpt")  # it wrote checkpoints, by this name in its folder (a copy's
        own_best = folder / Path(best).name if isinstance(best, str) and best else None  # names the original)
        if own_best is not None and not own_best.exists():  # gone since (pass 33, row 15: a copy's check)
            raise ResumeError(f"resume={value}: the run's checkpoints are gone (its metrics.json names its "
                              f"best, {Path(best).name}, and {shown} is missing: deleted?), so it cannot be "
                              f"resumed or extended. Fix: put them back, or start a new run: {again}")
        if (path / "metrics.json").is_file():  # it finished without writing any (debug=fast)
            # a debug pass again would train a batch or two, whatever the epochs asked for (pass 55, row
            # 81, major: before, the command kept debug=fast, and trainer.max_epochs=2 ran one batch)
            kept = [o for o in merge_overrides(run_overrides(path), list(extra))
                    if _key_value(o)[0] != "debug"]
            debug = [o for o in run_overrides(path) if _key_value(o)[0] == "debug"]
            without = f" (without {debug[0]}, which trains a batch or two)" if debug else ""
            idle = (metrics or {}).get("global_step") == 0  # pass 58, row 73: trainer.max_epochs=0
            why = ("finished without training a step (its metrics.json: global_step 0; e.g. "
                   "trainer.max_epochs=0) and wrote no checkpoint" if idle else
                   "finished without writing a checkpoint (debug=fast, trainer.fast_dev_run or callbacks "
                   "without checkpoints)")
            raise ResumeError(f"resume={value}: the run {why}, so it cannot be resumed or extended; start a "
                              f"new run{without}: {_command(kept)}")
        if (path.parent / "multirun.yaml").is_file():  # a sweep's job: again into its folder (pass 40,
            again = start_job_again(path, merge_overrides(run_overrides(path), list(extra)))  # row 60:
            # before, a command without hydra.run.dir, which ran the job outside its sweep)
        failure = last_error_line(path)  # pass 37, row 40: before, "start it again" with the same
        saved = re.search(r"(?:state at step|state, of step|checkpoint is \S+, of step) (\d+)", failure or "")
        if saved is not None:  # its interrupt saved a checkpoint, since gone (pass 43, row 30: before, "it
            raise ResumeError(  # ended before its first checkpoint", quoting the line that said it saved one)
                f"resume={value}: {shown} is missing (deleted?): the run saved its state at step "
                f"{saved[1]} when it was interrupted (its train.log says so), and holds no other checkpoint. "
                f"Fix: put the checkpoint back, or start the run again: {again}")
        if failure is not None:  # learning rate that had made the loss NaN at step 1
            merged = merge_overrides(run_overrides(path), list(extra))
            named = re.search(r"Fix: ([^\s=]+=\S+?)\.?$", failure)  # one override: applied to the command
            if named is not None and _key_value(named[1])[0] in {_key_value(o)[0] for o in merged}:
                # (pass 90, row 26: before, "with the fix that names", and the command kept seed=00)
                fixed = merge_overrides(merged, [named[1]])
                again = (start_job_again(path, fixed) if (path.parent / "multirun.yaml").is_file()
                         else _command(fixed))
                raise ResumeError(f"resume={value}: the run has no checkpoint to resume from ({shown} is "
                                  f"missing): it ended before its first checkpoint, with this error in its "
                                  f"train.log: \"{failure}\". Start it again with that fix, {named[1]}: "
                                  f"{again}")
            raise ResumeError(f"resume={value}: the run has no checkpoint to resume from ({shown} is "
                              f"missing): it ended before its first checkpoint, with this error in its "
                              f"train.log: \"{failure}\". Start it again, with the fix that names, if any: "
                              f"{again}")
        if not (path / "train.log").is_file():  # pass 66, row 24: before, "start it again" with the command
            # that had failed, and no word of why it stopped
            raise ResumeError(f"resume={value}: the run has no checkpoint to resume from ({shown} is "
                              f"missing: it stopped before its first checkpoint), and it kept no train.log "
                              f"(hydra/job_logging=disabled?), so what stopped it is not recorded here: see "
                              f"that run's console output. Start it again once that is fixed: {again}")
        raise ResumeError(f"resume={value}: the run has no checkpoint to resume from ({shown} is "
                          f"missing: it stopped before its first checkpoint); start it again: {again}")
    return path


def last_error_line(run: Path) -> str | None:
    """The latest ``highwaylab:`` error of ``run``'s ``train.log`` (what ended its last attempt: a
    non-finite loss, a missing data file...), without the log's time stamp and prefix; ``None``
    when the log is missing or holds none."""
    try:
        lines = (run / "train.log").read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        head, sep, message = line.partition("][ERROR] - highwaylab: ")
        if sep and head.startswith("["):
            return message.strip()
    return None


def set_aside_refused_record(run: Path, subdir: str | None, started: float) -> Path | None:
    """Rename the record Hydra wrote for a resume of ``run`` (``subdir``: ``.hydra/resumed_<time>``)
    to ``.hydra/refused_<time>`` when that resume wrote no resume point (its ``last.ckpt``, or without
    one any checkpoint, is not newer than ``started``, the process's start): it was refused (a
    missing data folder...), and
    :func:`run_overrides` takes the latest ``resumed_*`` record as the run's overrides, so that a
    later ``resume=`` would repeat the refused ones. A resume that trained keeps its record: the
    checkpoints are its.

    Returns:
        The renamed record, or ``None`` when nothing was renamed.
    """
    if not subdir or not Path(subdir).name.startswith("resumed_"):
        return None
    record = run / subdir
    last = last_checkpoint_path(run)
    # the resume point, where there is one: a best checkpoint written before last.ckpt failed (a full
    # disk, a protected file) is not where resume= goes on from (pass 32, row 11: before, that record
    # was kept, and the retry was refused as finished at the record's max_epochs)
    saved = [last] if last.is_file() else _checkpoints(run / LAST_CKPT.parent)
    if not record.is_dir() or any(p.is_file() and p.stat().st_mtime >= started for p in saved):
        return None
    target = record.with_name("refused_" + record.name.removeprefix("resumed_"))
    try:
        record.rename(target)
    except OSError:
        return None
    set_aside_wandb_segments(run, target, started)
    # its resolved record, and the empty log folders its loggers made (csv/version_1/): before, the next
    # resume named that record as the run's latest (pass 50, row 49)
    resolved = run / f"config_resolved.{record.name}.yaml"
    with contextlib.suppress(OSError):
        resolved.rename(target / resolved.name)
    for folder in run.glob("csv/version_*"):  # the CSV logger's: hparams.yaml, before any metrics.csv
        if folder.is_dir() and folder.stat().st_mtime >= started and {p.name for p in folder.iterdir()} <= {
                "hparams.yaml"}:
            with contextlib.suppress(OSError):
                (folder / "hparams.yaml").unlink(missing_ok=True)
                folder.rmdir()
    return target


def set_aside_wandb_segments(run: Path, record: Path, started: float) -> list[Path]:
    """Move the W&B offline segments that a refused resume of ``run`` wrote (``wandb/offline-run-*``
    folders changed since ``started``, the process's start) into its set-aside ``record``, and point
    ``wandb/latest-run`` (and W&B's ``debug*.log`` links) back at the run's latest segment left, so that
    ``wandb sync <run>/wandb/offline-run-*`` does not upload the refused start, closed with exit code
    1, as the last state of the run (breaking pass 40, row 73: before, a finished run resumed with a
    damaged data file showed in W&B as failed). Returns the segments moved."""
    wandb_dir = run / "wandb"
    moved = []
    for segment in sorted(wandb_dir.glob("*run-*")):
        if segment.is_symlink() or not segment.is_dir() or segment.stat().st_mtime < started:
            continue
        try:
            (record / "wandb").mkdir(exist_ok=True)
            segment.rename(record / "wandb" / segment.name)
        except OSError:
            continue
        moved.append(record / "wandb" / segment.name)
    if not moved:
        return moved
    left = sorted((p for p in wandb_dir.glob("*run-*") if p.is_dir() and not p.is_symlink()),
                  key=lambda p: p.name.split("-")[-2])  # by the start time in the name
    for link, inside in (("latest-run", ""), ("debug.log", "logs/debug.log"),
                         ("debug-internal.log", "logs/debug-internal.log")):
        path = wandb_dir / link
        with contextlib.suppress(OSError):
            if path.is_symlink() and not path.exists():  # it named a segment moved away
                path.unlink()
                if left:
                    path.symlink_to(Path(left[-1].name) / inside if inside else left[-1].name)
    return moved


def last_checkpoint_path(run: Path) -> Path:
    """The latest-state checkpoint of ``run``: ``checkpoints/last.ckpt``, or where the run's recorded
    config (``config_resolved.yaml``) put it: ``checkpoints/<filename>.ckpt`` for another
    ``callbacks.last_checkpoint.filename``, and ``<dirpath>/<filename>.ckpt`` for a
    ``callbacks.last_checkpoint.dirpath`` outside the run's folder (another disk)."""
    try:
        recorded = yaml.safe_load((run / "config_resolved.yaml").read_text()) or {}
        node = recorded["callbacks"]["last_checkpoint"] or {}
        dirpath, output_dir = node.get("dirpath"), recorded["paths"]["output_dir"]
        name = f"{node.get('filename') or 'last'}.ckpt"
    except (OSError, yaml.YAMLError, KeyError, TypeError, AttributeError):
        return run / LAST_CKPT
    if not dirpath or not output_dir or _inside(Path(dirpath), Path(output_dir)):
        return run / LAST_CKPT.parent / name  # inside the run (which may have moved since): its own folder
    return Path(dirpath) / name


def _latest_record(run: Path, file: str) -> Path | None:
    """``file`` (``overrides.yaml``, ``hydra.yaml``, ``config.yaml``) of the latest start of ``run``
    that recorded it: its latest ``.hydra/resumed_*/`` record (the names sort by date and time), else
    ``.hydra/``; ``None`` if no record holds it."""
    records = [run / RECORD, *sorted((run / RECORD).glob("resumed_*"))]
    return next((r / file for r in reversed(records) if (r / file).is_file()), None)


def overrides_record(run: Path) -> Path:
    """The record of the overrides that the latest start of ``run`` was given: the latest
    ``.hydra/resumed_*/overrides.yaml`` of a resumed run, else ``.hydra/overrides.yaml`` (the caller
    has checked that one exists)."""
    return _latest_record(run, "overrides.yaml") or run / RECORD / "overrides.yaml"


def run_overrides(run: Path) -> list[str]:
    """The overrides that the latest start of ``run`` was given (``.hydra/overrides.yaml``, or the
    latest ``.hydra/resumed_*/overrides.yaml``), less where it ran and resumed from (``WHERE``) and
    ``hparams_search`` (a trial of a search continues as one run: its sampled values are among its
    overrides), and with its ``hydra.searchpath`` (from ``hydra.yaml``), if any.

    Raises:
        ResumeError: the record is not valid YAML, or not a list of overrides (names the file and
            the line).
    """
    path = overrides_record(run)
    record, name, what = path.parent, f"resume={run}", "the run's overrides"
    fix = "repair that line (one override a line, as Hydra writes them: - depth=3), or start a new run"
    loaded = _load_yaml(path, name, what, fix)
    if loaded is not None and not isinstance(loaded, list):
        kind = "mapping" if isinstance(loaded, dict) else f"single value ({loaded!r})"
        raise BrokenOverrides(f"{name}: {path} is not a list of overrides at line 1 (it holds a {kind}); "
                              f"resume= reads {what} from it.", fix)
    overrides = list(loaded or [])
    bad = next((i for i, o in enumerate(overrides) if not isinstance(o, str)), None)
    if bad is not None:
        raise BrokenOverrides(f"{name}: {path} is not a list of overrides at line {_item_line(path, bad)} "
                              f"({overrides[bad]!r} is not key=value); resume= reads {what} from it.", fix)
    hydra_yaml = record / "hydra.yaml"
    kept = [o for o in overrides if _key_value(o)[0] not in (*WHERE, "hparams_search")]
    # Hydra's own overrides that the run's files follow: its config folders, and the job's name, which
    # names its log (hydra.job.name=myjob: myjob.log; pass 47, row 55: before, a resume dropped it, and
    # the log went on in a new train.log)
    carried = {"hydra.searchpath", "hydra.job.name"} - {_key_value(o)[0] for o in overrides}
    if hydra_yaml.is_file() and carried:
        hydra_cfg = _load_yaml(hydra_yaml, name, "the run's Hydra settings",
                               "repair that line (Hydra wrote it), or start a new run")
        hydra_cfg = hydra_cfg.get("hydra") if isinstance(hydra_cfg, dict) else None
        hydra_overrides = hydra_cfg.get("overrides") if isinstance(hydra_cfg, dict) else None
        hydra_overrides = hydra_overrides.get("hydra") if isinstance(hydra_overrides, dict) else None
        kept += [str(o) for o in hydra_overrides or [] if _key_value(str(o))[0] in carried]
    return kept


def run_config_name(run: Path) -> str | None:
    """The primary config that the latest start of ``run`` composed (``--config-name``: its record's
    ``hydra.job.config_name``), or ``None`` where the record does not say."""
    hydra_node = _recorded_hydra(run)
    job = hydra_node.get("job") if isinstance(hydra_node, dict) else None  # a damaged record: not said here
    name = job.get("config_name") if isinstance(job, dict) else None
    return name if isinstance(name, str) and name else None


def _recorded_hydra(run: Path) -> dict | None:
    """The ``hydra`` node of the latest start's ``.hydra/hydra.yaml`` of ``run``; ``None`` without it.

    Raises:
        ResumeError: the file does not parse (names the line, :func:`_load_yaml`).
    """
    record = _latest_record(run, "hydra.yaml")
    if record is None:
        return None
    hydra_cfg = _load_yaml(record, f"resume={run}", "the run's Hydra settings",
                           "repair that line (Hydra wrote it), or start a new run")
    node = hydra_cfg.get("hydra") if isinstance(hydra_cfg, dict) else None
    return node if isinstance(node, dict) else None


def run_config_dir(run: Path, own: list[str], config_dir: str | Path) -> str | None:
    """The extra config folder that the latest start of ``run`` was given (``--config-dir``: the
    ``command-line`` source of ``hydra.runtime.config_sources`` in its record's ``hydra.yaml``), or
    ``None``. Its overrides (``own``) may choose configs that only that folder holds
    (``model=myhighway``), so resume= gives it to Hydra again.

    Raises:
        ResumeError: the folder is gone (names the run's choices that ``config_dir`` lacks).
    """
    hydra_cfg = _recorded_hydra(run)
    runtime = hydra_cfg.get("runtime") if isinstance(hydra_cfg, dict) else None
    sources = runtime.get("config_sources") if isinstance(runtime, dict) else None
    folder = next((s.get("path") for s in sources or [] if isinstance(s, dict) and s.get("path")
                   and s.get("provider") == "command-line" and s.get("schema") == "file"), None)
    if folder is None:
        return None
    if not Path(folder).is_dir():
        elsewhere = [o for o in own if "=" in o and "/" not in (group := _key_value(o)[0].lstrip("+~"))
                     and (Path(config_dir) / group).is_dir()
                     and not (Path(config_dir) / group / f"{_key_value(o)[1]}.yaml").is_file()]
        verb = "is" if len(elsewhere) == 1 else "are"
        there = f" ({', '.join(elsewhere)} {verb} there)" if elsewhere else ""
        raise ResumeError(f"resume={run}: the run was started with --config-dir {folder}{there}, which no "
                          f"longer exists. Fix: put that folder back, or give its new place: python train.py "
                          f"--config-dir <folder> resume={run}")
    return str(folder)


def _searched(overrides: list[str], folder: str | None) -> list[str]:
    """``overrides`` with the config folder ``folder`` (a ``--config-dir``) on ``hydra.searchpath``, for
    composing the config here as Hydra will compose it (``None``: ``overrides`` as they are)."""
    if not folder:
        return list(overrides)
    last = next((i for i in reversed(range(len(overrides))) if overrides[i].rstrip().endswith("]")
                 and _key_value(overrides[i])[0] == "hydra.searchpath"), None)
    if last is None:
        return [*overrides, f"hydra.searchpath=[file://{folder}]"]
    head = overrides[last].rstrip()[:-1].rstrip()
    joined = f"{head}{'' if head.endswith('[') else ','}file://{folder}]"
    return [*overrides[:last], joined, *overrides[last + 1:]]


def continue_command(run: Path, ckpt: Path | str, overrides: list[str] | None = None) -> str:
    """The shell command that continues the run in the folder ``run`` from its checkpoint ``ckpt``
    (what ``resume=`` does with ``last.ckpt``): ``overrides`` (default: the run's own,
    :func:`run_overrides`), ``ckpt_path=<ckpt>`` and ``hydra.run.dir=<run>``."""
    overrides = run_overrides(run) if overrides is None else overrides
    return _command([*overrides, f"ckpt_path={_quote(Path(ckpt))}", f"hydra.run.dir={_quote(Path(run))}"])


def merge_overrides(own: list[str], extra: list[str]) -> list[str]:
    """``own`` less the overrides whose key one in ``extra`` sets, then ``extra``. An extra override
    without a prefix that replaces an own one that added its key (``+trainer.max_time=...``) adds it
    too (breaking pass 30, row 51: "trainer has no key 'max_time'", for a key the run has); an extra
    ``~key`` of a key an own override added (``~trainer.max_time``) drops that override, and is itself
    dropped: composed after it, it would remove a key the config no longer has (Hydra: "Could not
    delete from config")."""
    replaced = {_key_value(o)[0] for o in extra}
    added = {_key_value(o)[0] for o in own if o.startswith("+") and not o.startswith("++")}
    extra = [f"+{o}" if not o.startswith(("+", "~")) and _key_value(o)[0] in added else o for o in extra
             if not (o.startswith("~") and _key_value(o)[0] in added)]
    return [o for o in own if _key_value(o)[0] not in replaced] + list(extra)


def check_extra_overrides(own: list[str], extra: list[str], config_dir: str | Path,
                          config_name: str = "train") -> None:
    """Check a resume's extra overrides as a new run's are checked
    (:func:`highwaylab.utils.overrides.check_overrides`), with the run's own overrides that they
    change: a mistyped key (``trainer.max_epoch=2``) gets the line a new run gets, before the
    checkpoint is read (before: Hydra's advice to append the key, after torch's import). A fault of
    the run's own overrides alone (``conf/`` changed since the run) is left to the checks after.

    Raises:
        OverrideError: the first faulty extra override, in one line.
    """
    from highwaylab.utils.overrides import OverrideError, check_overrides

    if not extra:
        return
    try:
        check_overrides(merge_overrides(own, extra), config_dir, config_name)
    except OverrideError as err:
        try:
            check_overrides(own, config_dir, config_name)
        except OverrideError:
            return  # the run's own overrides: not what this command line added
        raise err from None


def check_run_name(value: Any) -> None:
    """Raises ResumeError if ``run_name`` could name a folder outside ``outputs/``, or is null (the
    folder would be ``<date>_<time>_None_<hex>``, the W&B run unnamed)."""
    if value is None:
        raise ResumeError("run_name=null: a run needs a name: run_name names the run's folder, its W&B run "
                          "and its record. Fix: leave run_name out for the default name "
                          "(<data>-<model>-d<depth>-<activation>-<optim>-s<seed>), or give one, e.g. "
                          "run_name=my-run")
    text = str(value)
    if not text.strip():
        raise ResumeError(f"run_name={text!r} must be a non-empty plain name: it names the run's folder "
                          "under outputs/ and its W&B run; e.g. run_name=my-run (or leave it out)")
    if "/" in text or "\\" in text or ".." in text:
        raise ResumeError(f"run_name={text} must be a plain name, without '/', '\\' or '..': it names "
                          "the run's folder under outputs/ and its W&B run; e.g. run_name=my-run")
    if len(text.encode()) > MAX_RUN_NAME:  # the folder <date>_<time>_<run_name>_<hex> has 255 bytes at most
        raise ResumeError(f"run_name={text[:40]}... has {len(text.encode())} bytes; the run's folder "
                          f"(<date>_<time>_<run_name>_<hex>) allows {MAX_RUN_NAME}. Fix: a shorter run_name")


def _check_outside_runs(folder: Path, key: str, run: str, mixed: str, made: str) -> None:
    """Raises ResumeError if ``folder`` (given by ``key``) lies inside the folder of ``run`` (a folder
    that holds a run's record, not a lone ``metrics.json``; a multirun's folder, which holds its jobs'
    runs, is not one): ``mixed`` says what would be mixed among that run's files, ``made`` what gets a
    folder of its own when ``key`` is left out."""
    from highwaylab.utils.out_paths import run_folder_holding

    around = run_folder_holding(folder.parent)
    if around is not None and RECORD in around[1]:
        other, held = around
        raise ResumeError(f"{key}={folder} is inside {other}, the folder of {run} (it holds "
                          f"{', '.join(held)}): {mixed}. Fix: give a folder outside it (or leave {key} out: "
                          f"every {made} gets a folder of its own)")


# a run record written this recently, without the run's lock, may be a run still starting
STARTING_S = 30.0


def _seconds_since_written(path: Path) -> float | None:
    """Seconds since ``path`` was last modified, or ``None`` if it cannot be read."""
    try:
        return max(0.0, time.time() - path.stat().st_mtime)
    except OSError:
        return None


def check_folder_free(folder: Path, ckpt_path: str | None = None) -> None:
    """Raises ResumeError if ``folder`` (``hydra.run.dir``) holds another run's files, or any other
    files (``hydra.run.dir=.`` in a checkout: the run's record, checkpoints and logs would be written
    among them, over files of the same names), and this run does not resume the run there (from a
    checkpoint inside it). A missing or empty folder is free."""
    if ckpt_path and ckpt_path != "null" and _inside(Path(ckpt_path), folder):
        return  # resuming that very run, in place
    # pass 37, row 52: before, a whole run was written into another's checkpoints/
    _check_outside_runs(folder, "hydra.run.dir", "another run", "the new run's record and checkpoints would "
                        "be mixed among that run's files (resume= of it would find them)", "run")
    if not folder.is_dir():
        return  # nothing there yet
    if (pid := holder(folder)) is not None:  # before: "wrote no checkpoint ... rm -r" of a live run
        held = held_lock(folder)
        who = f"process {pid}" if pid else f"another process (fuser -v {held} names it)"
        raise ResumeError(f"hydra.run.dir={folder} is the folder of a run that is still running in {who} "
                          f"(it holds {held}): a new run there would write among its files. "
                          f"Fix: give a new folder (or leave hydra.run.dir out)")
    found = _run_files(folder)
    age = _seconds_since_written(folder / ".hydra")
    if found and not _checkpoints(folder / LAST_CKPT.parent) and age is not None and age < STARTING_S:
        # pass 67, row 33: the same command started twice; before, the second was told to rm -r the
        # folder of the first, which was still starting (it takes the folder's lock a moment after)
        raise ResumeError(f"hydra.run.dir={folder} holds the record of a run started {age:.0f} s ago "
                          f"({', '.join(found)}), which may still be starting (another command for this "
                          f"folder?). Fix: give a new folder (or leave hydra.run.dir out); if no other "
                          f"command runs there, try again in a minute for the way to go on")
    if found and not _checkpoints(folder / LAST_CKPT.parent):  # its run saved nothing to resume from
        raise ResumeError(f"hydra.run.dir={folder} holds the record of a run that wrote no checkpoint "
                          f"({', '.join(found)}), so it cannot be resumed; a new run there would mix up the "
                          f"two records. Fix: give a new folder (or leave hydra.run.dir out), or remove that "
                          f"run first: rm -r {shlex.quote(str(folder))}")
    if found:
        raise ResumeError(f"hydra.run.dir={folder} already holds another run ({', '.join(found)}): a new "
                          f"run there would overwrite its record and mix up its checkpoints. "
                          f"{_go_on_with(folder)}")
    others = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    if others:
        shown = ", ".join(others[:4]) + (f" and {len(others) - 4} more" if len(others) > 4 else "")
        raise ResumeError(f"hydra.run.dir={folder} is not empty ({folder.resolve()} holds {shown}): a run "
                          f"writes its record (.hydra/), train.log, checkpoints/ and metrics.json into its "
                          f"folder, among those files. Give a new or empty folder (or leave hydra.run.dir "
                          f"out: every run gets a folder of its own)")


def _finished(run: Path, key: str) -> tuple[int, int | None] | None:
    """A finished run's extension facts, for the messages that say how to go on with ``run``: its
    epochs (``metrics.json``), and its cosine ``T_max`` when the schedule ended with it (``T_max`` =
    ``trainer.max_epochs``: :func:`check_resume` refuses to extend it), else ``None``. ``None`` for a
    run without its result, or whose record is damaged (``resume=`` names it); ``key`` is the
    argument that named the folder, for those errors."""
    metrics = run_metrics(run)
    epochs = metrics.get("epochs") if metrics else None
    if not isinstance(epochs, int) or isinstance(epochs, bool):
        return None
    try:
        max_epochs = _own_value(run, "trainer.max_epochs", key)
        t_max = _own_value(run, "optim.scheduler.T_max", key)
    except ResumeError:
        return None
    return epochs, (t_max if t_max is not None and t_max == max_epochs else None)


def _resume_own(run: Path) -> str:
    """The part of a message that resumes ``run`` with its own settings, ending in "; or ": a plain
    ``resume=``, or, for a finished run (``metrics.json``), its extension by two epochs (pass 81, row 47:
    before, a plain resume=, refused in turn as finished); nothing where its cosine schedule ended with it."""
    again = f"python train.py {override_arg('resume', run)}"
    finished = _finished(run, f"resume={run}")
    if finished is None:
        return f"Resume it with its own settings: {again}; or "
    epochs, ended = finished
    if ended is not None:
        return "It has finished, and its cosine schedule ended with it, so it cannot be extended: "
    return f"It has finished; extend it with its own settings: {again} trainer.max_epochs={epochs + 2}; or "


def _go_on_with(run: Path) -> str:
    """How to go on with the run in ``run``, for a new run pointed at its folder: resume it; or, once
    it has its result (``metrics.json``), extend it by epochs, unless its cosine schedule ended with
    it. Before, a finished run was given a plain ``resume=``, which is refused for it (new-user pass 48,
    finding 2)."""
    again = f"python train.py {override_arg('resume', run)}"
    new = "give a new folder (or leave hydra.run.dir out: every run gets a folder of its own)"
    finished = _finished(run, f"hydra.run.dir={run}")
    if finished is None:
        return f"Resume that run with: {again}; or {new}"
    epochs, t_max = finished
    done = f"That run has finished (metrics.json, {epochs} epoch{'' if epochs == 1 else 's'})"
    if t_max is not None:
        return (f"{done}, and its cosine schedule (optim.scheduler.T_max={t_max}) ended with it, so resume= "
                f"cannot extend it. Fix: {new}")
    return f"{done}; to train it further, extend it: {again} trainer.max_epochs={epochs + 2}; or {new}"


def check_sweep_folder_free(folder: Path, search: bool = False) -> None:
    """Raises ResumeError if the multirun folder ``folder`` holds another sweep's jobs, unless
    ``search`` (an ``hparams_search=``) and it holds that search's study (``optuna.db``): a restarted
    search continues its study, its new trials numbered after the old ones; or if ``folder`` is inside
    a run's folder (pass 56, row 61: before, the sweep's folders were written into a finished run's)."""
    _check_outside_runs(folder, "hydra.sweep.dir", "a run", "the sweep's job folders and summary would be "
                        "mixed among that run's files", "sweep")
    if not folder.is_dir() or (search and (folder / STUDY_FILE).is_file()):
        return
    jobs = sorted(p.name for p in folder.iterdir() if (p / RECORD).is_dir())
    if jobs or (folder / "summary.jsonl").exists():
        what = (f"job folders {', '.join(jobs[:3])}{'...' if len(jobs) > 3 else ''}" if jobs
                else "summary.jsonl")
        records = [folder / "multirun.yaml", *(folder / job / RECORD / "hydra.yaml" for job in jobs)]
        storage = next((value for record in records if (value := recorded_at(
            record, "hydra.sweeper.storage", "unknown")) != "unknown"), "unknown")  # the jobs' own records:
        # Optuna's sweeper writes no multirun.yaml
        if search and (folder / "optimization_results.yaml").is_file() and storage is None:  # pass 96, row
            # 53: a search file of one's own without storage; before, "optuna.db is missing (deleted?)"
            raise ResumeError(f"hydra.sweep.dir={folder} holds a search ({what}, optimization_results.yaml) "
                              f"that kept its study in memory (its hydra.sweeper.storage is null: no "
                              f"{STUDY_FILE} was written), so it cannot be continued, and a new study there "
                              f"would number its jobs from 0 again, over those. Fix: give a new "
                              f"hydra.sweep.dir; to make a search continuable, give its file hydra.sweeper."
                              f"storage: sqlite:///${{hydra.sweep.dir}}/{STUDY_FILE}, as highwaylab's do")
        if search and (folder / "optimization_results.yaml").is_file():  # pass 67, row 44: a search's own
            # folder whose study file is gone; before, "another sweep", the missing optuna.db unnamed
            raise ResumeError(f"hydra.sweep.dir={folder} holds a search ({what}, "
                              f"optimization_results.yaml) whose study file {STUDY_FILE} is missing "
                              f"(deleted or moved?), so it cannot be continued, and a new study there would "
                              f"number its jobs from 0 again, over those. Fix: put {STUDY_FILE} back, or "
                              f"give a new hydra.sweep.dir for a new search")
        raise ResumeError(f"hydra.sweep.dir={folder} already holds another sweep ({what}): its jobs would "
                          "be overwritten. Give a new folder (or leave hydra.sweep.dir out: every sweep "
                          "gets a folder of its own); resume a job of it with resume=<job folder>, and run "
                          "a job it never started into it with the command that python -m highwaylab.report "
                          f"{shlex.quote(str(folder))} gives")
    if found := _run_files(folder):  # before: the sweep's jobs were mixed into a run's folder
        raise ResumeError(f"hydra.sweep.dir={folder} is a run's folder ({', '.join(found)}): the sweep's "
                          f"job folders and summary would be mixed into it. Give a new folder (or leave "
                          f"hydra.sweep.dir out: every sweep gets a folder of its own)")
    others = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir())
    if others == ["multirun.yaml"]:  # a sweep refused before its first job: Hydra writes it anew (pass 57,
        return  # row 96: before, "is not empty", for the corrected command in the same folder)
    if others:  # e.g. a checkout: the sweep's files among its own
        shown = ", ".join(others[:4]) + (f" and {len(others) - 4} more" if len(others) > 4 else "")
        raise ResumeError(f"hydra.sweep.dir={folder} is not empty ({folder.resolve()} holds {shown}): a "
                          f"sweep writes multirun.yaml, summary.jsonl and a folder per job into it, among "
                          f"those files. Give a new or empty folder (or leave hydra.sweep.dir out)")


#: keys of a run's recorded config that its overrides need not give back: where it resumed from and ran, and
#: what a search's sweeper optimises (``hparams_search=`` is left out of a resumed trial's overrides)
NOT_RECORDED = ("ckpt_path", "resume", "paths.output_dir", "optimized_metric")


def check_dirpaths_moved(run: Path, overrides: list[str], extra: list[str]) -> None:
    """Raises ResumeError when one of ``overrides`` (the run's and the resume's) sets a checkpoint
    callback's ``dirpath`` in full to a folder inside the run's folder as it was when it ran (its
    ``config_resolved.yaml``'s ``paths.output_dir``), and the run has been moved since: its checkpoints
    would go to a new folder at the old place, outside the run (breaking pass 44, row 56: before,
    without a word; the default dirpath follows the run by itself)."""
    was = _recorded_value(run, "paths.output_dir")
    if not isinstance(was, str) or Path(was).resolve() == run.resolve():
        return
    for override in overrides:
        key, value = _key_value(override)
        key = key.lstrip("+")
        if not re.fullmatch(r"callbacks\.\w+\.dirpath", key) or not value or not Path(value).is_absolute():
            continue
        if Path(value).resolve().is_relative_to(Path(was).resolve()):
            now = run / Path(value).resolve().relative_to(Path(was).resolve())
            given = [o for o in extra if _key_value(o)[0].lstrip("+") != key]
            raise ResumeError(f"resume={run}: {key}={value} is inside the run's folder as it was, {was}, and "
                              f"the run is now in {run}: its checkpoints would go to a new folder at the old "
                              f"place, outside the run. Fix: "
                              f"{_command([f'resume={_quote(run)}', *given, f'{key}={_quote(now)}'])}")


def check_record_agrees(run: Path, base: DictConfig,
                        compose: Callable[[list[str]], DictConfig | None] | None = None,
                        broken: BrokenOverrides | None = None) -> None:
    """Raises ResumeError if the overrides that ``run`` records (:func:`overrides_record`) do not give
    the config it ran with, the ``config.yaml`` and group choices (``hydra.yaml``) in the same record
    folder; ``base`` is the config composed from those overrides, and ``compose`` composes them with
    more (the group choices the record differs in, whose options' keys are then compared). An emptied or
    edited ``overrides.yaml`` would resume the run under other settings (breaking pass 35, row 32: before, an
    emptied file was named for ``depth`` alone, and with that fixed the run went on with the default
    ``trainer.limit_*_batches`` and callbacks, without a word). Keys the record lacks (a config key
    added since) are not compared. One line, naming the first keys and the values the run ran with,
    and the command that writes them back. With ``broken`` (the record is not a list of overrides:
    ``base`` is composed without them), the command rebuilds the record from ``config.yaml``, and the
    line says what is wrong with it (pass 77, row 73: before, "repair that line (- depth=3)", and the
    rebuild came only after that was tried)."""
    path = overrides_record(run)
    record = path.parent
    try:
        loaded = OmegaConf.load(record / "config.yaml")  # read as Hydra composed it (1e-3 is a float)
        ran = OmegaConf.to_container(loaded, resolve=False) if isinstance(loaded, DictConfig) else None
        hydra_yaml = (yaml.safe_load((record / "hydra.yaml").read_text())
                      if (record / "hydra.yaml").is_file() else {})
    except (OSError, yaml.YAMLError, ValueError):  # no record to compare with (read and named elsewhere)
        return
    if not isinstance(ran, dict) or not isinstance(hydra_yaml, dict | None):
        return
    chosen = ((hydra_yaml or {}).get("hydra") or {}).get("runtime", {}).get("choices") or {}
    composed_choices = OmegaConf.to_container(base.hydra.runtime.choices) if "hydra" in base else {}
    fixes: list[tuple[str, Any]] = [(group, choice) for group, choice in chosen.items()
                                    if not group.startswith("hydra/") and group != "hparams_search"
                                    and group in composed_choices and composed_choices[group] != choice]
    if fixes and compose is not None:  # the keys of the options the run chose, set on top of them
        base = compose([f"{group}={hydra_value('null' if c is None else c)}" for group, c in fixes]) or base
    composed = OmegaConf.to_container(base, resolve=False)
    composed.pop("hydra", None)
    given = [] if broken is not None else [
        o for o in (_load_yaml(path, f"resume={run}", "the run's overrides", "") or []) if isinstance(o, str)]
    # depth=${oc.env:DEPTH}: checked against what the run used by check_interpolated_overrides
    interpolated = [_key_value(o)[0].lstrip("+~") for o in given if "${" in _key_value(o)[1]]

    def walk(key: str, a: Any, b: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k, v in a.items():
                if k in b:
                    walk(f"{key}.{k}" if key else str(k), v, b[k])
        elif a != b and key not in NOT_RECORDED and not any(_covers(i, key) for i in interpolated):
            fixes.append((key, a))

    walk("", ran, composed)
    if not fixes:
        if broken is not None:  # the run ran with the defaults: an empty list gives its config
            raise ResumeError(f"{broken.problem} Fix: restore that file as the empty list that the run's "
                              f"config ({record / 'config.yaml'}) gives: echo '[]' > "
                              f"{shlex.quote(str(path))}")
        return
    config_edited(run, record / "config.yaml", fixes, composed)
    shown = ", ".join(f"{k}={_short(v)}" for k, v in fixes[:4]) + (
        f" and {len(fixes) - 4} more" if len(fixes) > 4 else "")
    keys = [k for k, _ in fixes]
    def agrees(override: str) -> bool:  # a group choice (model=myhighway) stays under its keys' fixes
        key = _key_value(override)[0].lstrip("+~")
        return not any(key == k or ("." in key and _covers(key, k)) for k in keys)

    kept = [o for o in given if agrees(o)]  # the lines that agree
    lines = [f"- {o}" for o in kept] + [f"- {k}={hydra_value('null' if v is None else v)}" for k, v in fixes]
    write = (f": printf '%s\\n' {' '.join(map(shlex.quote, lines))} > {shlex.quote(str(path))}"
             if all(v is None or isinstance(v, str | int | float | bool) for _, v in fixes) else
             " from a backup")
    them = "them" if len(fixes) > 1 else "it"
    sources = _config_sources(hydra_yaml)
    folders = " and ".join(["conf/", *sources[1:]])
    changed = _configs_changed_since(record / "config.yaml", sources, chosen)
    asked = (f"{', '.join(changed)} changed since the run" if changed else
             f"was the file or {' or '.join(['conf/', *sources[1:]])} edited?")
    back = f", or set {changed[0]} back as it was" if len(changed) == 1 else ""
    are = "they are" if len(sources) > 1 else "it is"
    if broken is not None:
        raise ResumeError(f"{broken.problem} Fix: restore that file, which the run's config "
                          f"({record / 'config.yaml'}) gives{write}")
    raise ResumeError(f"resume={run}: the run's recorded overrides ({path}, with {folders} as {are} now) do "
                      f"not give the config it ran with ({record / 'config.yaml'}): it ran with {shown} "
                      f"({asked}), and a resume would change {them}. Fix: restore that file{write}{back}")


def _config_sources(hydra_yaml: dict | None) -> list[str]:
    """The config folders a run composed from, as its ``.hydra/hydra.yaml`` records them: the main
    one first, then any ``--config-dir``; ``[]`` without that record."""
    try:
        sources = hydra_yaml["hydra"]["runtime"]["config_sources"]
        return [str(s["path"]) for s in sources if s.get("schema") == "file" and s.get("path")]
    except (KeyError, TypeError):
        return []


def _configs_changed_since(config: Path, sources: list[str], chosen: dict) -> list[str]:
    """The config files of the run's group choices (``chosen``), in the folders it composed from
    (``sources``), that were written after ``config`` (its record of the config it ran with): the
    edit that makes its overrides give another config now (pass 57, row 58: before, a ``--config-dir``
    file edited since was blamed on "the file or conf/")."""
    try:
        since = config.stat().st_mtime
    except OSError:
        return []
    files = [Path(folder) / group / f"{choice}.yaml" for folder in sources for group, choice in chosen.items()
             if isinstance(choice, str) and not group.startswith("hydra/")]
    changed = []
    for file in files:
        try:
            if file.stat().st_mtime > since:
                changed.append(str(file))
        except OSError:
            continue
    return changed


# the keys of config_resolved.yaml compared with Hydra's record on resume (check_resolved_record): the
# model, the optimiser and the data the run trained with; none of them is rewritten when the run starts,
# but for REWRITTEN
RESOLVED_COMPARED = ("seed", "depth", "width", "model", "optim", "data.dataset", "data.batch_size")


def check_resolved_record(run: Path) -> None:
    """Raises ResumeError when the run's ``config_resolved.yaml`` (the settings it ran with, as its
    first start wrote them) differs from Hydra's record of that start (``.hydra/config.yaml``) in a
    value written there as it is (no interpolation) under ``RESOLVED_COMPARED``: called after the
    checks that compare Hydra's record with the checkpoint (which name an edited ``.hydra/``), the file
    was edited since, and a resume would run with the record's value and keep the edited file as the
    run's record (breaking pass 45, row 37: an edited learning rate there was ignored without a word)."""
    record = run / "config_resolved.yaml"
    if record.exists() and not record.is_file():  # pass 46, row 39: before, the resume left it a folder
        raise ResumeError(f"resume={run}: its config_resolved.yaml is a folder, not the record of the "
                          f"settings the run ran with. Fix: move it away (mv {shlex.quote(str(record))} "
                          f"<elsewhere>), then resume: the resume writes the record again")
    try:
        ran = OmegaConf.to_container(OmegaConf.load(run / RECORD / "config.yaml"), resolve=False)
        resolved = OmegaConf.to_container(OmegaConf.load(record), resolve=False)
    except Exception:  # noqa: BLE001 -- a missing or unreadable file: named by the checks that read it
        return
    if not isinstance(ran, dict) or not isinstance(resolved, dict):
        return
    model = ran.get("model") if isinstance(ran.get("model"), dict) else {}
    conv = isinstance(model.get("stages"), list)
    edited: list[tuple[str, Any, Any]] = []

    def walk(key: str, a: Any, b: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k, v in a.items():
                if k in b:
                    walk(f"{key}.{k}" if key else str(k), v, b[k])
        elif (a != b and any(_covers(top, key) for top in RESOLVED_COMPARED) and key not in REWRITTEN
              and not (conv and key in ("depth", "width")) and "${" not in str(a)):
            edited.append((key, b, a))

    walk("", ran, resolved)
    if not edited:
        return
    given, used, back = _edited_lists(edited)
    raise ResumeError(f"resume={run}: its config_resolved.yaml gives {given}, but the run ran with {used} "
                      f"(Hydra's record, {RECORD}/config.yaml, and its overrides): config_resolved.yaml was "
                      f"edited since the run, and the resume would go on with {used}, keeping the edited "
                      f"file as the run's record. Fix: set {back} again in {run / 'config_resolved.yaml'}")


def _edited_lists(edited: list[tuple[str, Any, Any]]) -> tuple[str, str, str]:
    """For ``(key, value in the edited file, value the run ran with)`` triples, the first four as
    ``key=value``, ``key=used`` and ``key to used`` lists (``and N more``)."""
    more = f" and {len(edited) - 4} more" if len(edited) > 4 else ""
    return (", ".join(f"{k}={_short(v)}" for k, v, _ in edited[:4]) + more,
            ", ".join(f"{k}={_short(u)}" for k, _, u in edited[:4]) + more,
            ", ".join(f"{k} to {_short(u)}" for k, _, u in edited[:4]) + more)


def config_edited(run: Path, config: Path, fixes: list[tuple[str, Any]], composed: dict) -> None:
    """Raises ResumeError when the keys in which the record's ``config`` (``.hydra/config.yaml``) and
    the config its overrides compose (``composed``) differ, ``fixes`` (``(key, value in config)``), are
    all ones where the run's ``config_resolved.yaml`` (the values it ran with) agrees with its
    overrides: then ``config.yaml`` is the file that was edited, and the fix is to set it back (breaking
    pass 42, row 51: before, the fix rewrote the overrides to the edited value, and the resume was then
    refused for a checkpoint "saved from another model")."""
    edited = []
    for key, value in fixes:
        node: Any = composed
        for part in key.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        used = _ran_with(run, key)
        if used is None or used != node or used == value:
            return
        edited.append((key, value, used))
    given, used, back = _edited_lists(edited)
    raise ResumeError(f"resume={run}: {config} (Hydra's record of the config the run ran with) gives "
                      f"{given}, but the run ran with {used} (its overrides.yaml and config_resolved.yaml): "
                      f"that file was edited since the run. Fix: set {back} again in {config}")


def check_bound(base: DictConfig, cfg: DictConfig, extra: list[str], run: Path,
                compose: Callable[[list[str]], DictConfig | None] | None = None) -> None:
    """Raises ResumeError if the extra overrides change what a checkpoint is bound to (``BOUND``):
    the config ``cfg`` (the run's overrides and ``extra``) against ``base`` (the run's own). The
    message names the override: the one whose key covers the changed key, else (e.g.
    ``experiment=...``) the first that changes it alone (``compose(overrides)``: the run's
    overrides and these)."""
    for path, old, new in _differences(base, cfg):
        if old is None and _class_default(base, path, new):  # +optim.optimizer.nesterov=false: what SGD
            continue  # ran with (pass 95, row 32: before, "changes it (None -> False)")
        override = next((o for o in extra if _covers(_key_value(o)[0], path)), None)
        if override is None and compose is not None:
            override = next((o for o in extra if (one := compose([o])) is not None
                             and any(d[0] == path for d in _differences(base, one))), None)
        override = override or " ".join(extra)
        if (used := _ran_with(run, path)) is not None and used == new and old != used:
            # the record changed since the run, and this gives back what it ran with (pass 42, row 71)
            raise _record_changed(run, f"{path}={_short(old)}", f"{path}={_short(used)}",
                                  "its config_resolved.yaml")
        if _same_number(old, new):  # pass 95, rows 15, 41, 42: depth=3.0, depth=03, depth=true for 3 and 1;
            # before, a traceback from the model's build, or "changes depth (3 -> 03)"
            typed = _key_value(override)[1] if override in extra else _short(new)
            raise ResumeError(
                f"resume={run}: {override} is not the run's {path}={_short(old)}: Hydra reads {typed} as "
                f"{_kind(new)}, and {path} is {_kind(old)}. Fix: leave {override} out (the resume keeps "
                f"{path}={_short(old)})")
        raise ResumeError(
            f"resume={run}: {override} cannot apply to the run's checkpoint: it changes {path} "
            f"({_short(old)} -> {_short(new)}), and the checkpoint holds the weights, optimiser state and "
            f"data order of the run as it was. Resume without it, or start a new run with it")


def check_wandb_id(run: Path, checkpoint: dict, extra: list[str]) -> None:
    """Raises ResumeError for a ``logger.wandb.id`` among the resume's overrides other than the W&B
    run the checkpoint continues (``checkpoint["logger_versions"]["WandbLogger"]``): the run's history
    would be split between two W&B runs, the second starting in mid-run (pass 54, row 26: before,
    exit 0 without a word, and ``wandb_offline <run>`` then refused "2 W&B runs")."""
    versions = checkpoint.get("logger_versions") if isinstance(checkpoint, dict) else None
    own = versions.get("WandbLogger") if isinstance(versions, dict) else None
    given = next((o for o in extra if _key_value(o)[0].lstrip("+") == "logger.wandb.id"), None)
    if own is None or given is None or _key_value(given)[1] in (own, "null", ""):
        return
    raise ResumeError(f"resume={run}: {given} is another W&B run than the run's own, {own}, which the "
                      f"resume continues: the run's history would be split between two W&B runs, the second "
                      f"starting at step {int(checkpoint.get('global_step', 0))}. Fix: leave {given} out")


def processes_of(cfg: DictConfig) -> int | None:
    """The processes a run of ``cfg`` trains in, for a strategy that shards the data (``ddp``):
    ``trainer.devices`` x ``trainer.num_nodes``; 1 for one process; ``None`` where not a number."""
    devices, nodes = _select(cfg, "trainer.devices"), _select(cfg, "trainer.num_nodes") or 1
    if isinstance(devices, list) or OmegaConf.is_list(devices):
        devices = len(devices)
    if isinstance(devices, str) and devices.strip().isdigit():
        devices = int(devices)
    counts = (devices, nodes)
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in counts):
        return None
    return devices * nodes


def check_processes(base: DictConfig, cfg: DictConfig, extra: list[str], run: Path) -> None:
    """Raises ResumeError if the extra overrides change the number of processes the run trains in
    (``trainer=ddp_cpu`` for a one-process run): ``data.batch_size`` is per process, so the global
    batch, the epoch's batches and each process's share of the epoch's order would change under the
    checkpoint (pass 54, row 27, major: before, exit 0, the batch doubled and the log said "31 of epoch
    1's 215 batches done" of an epoch that had 400)."""
    old, new = processes_of(base), processes_of(cfg)
    if old is None or new is None or old == new:
        return
    trainer_keys = ("trainer", "+trainer", "~trainer")
    override = next((o for o in extra if _key_value(o)[0].split(".")[0].lstrip("+~") == "trainer"
                     or o.startswith(trainer_keys)), " ".join(extra))
    size = _select(cfg, "data.batch_size")
    batch = (f" ({old * size} -> {new * size} examples)" if isinstance(size, int) and
             not isinstance(size, bool) else "")
    raise ResumeError(f"resume={run}: {override} changes the processes the run trains in, {old} -> {new}: "
                      f"data.batch_size is per process, so a step's batch{batch}, the batches of an epoch "
                      f"and the examples each process draws would change under the checkpoint. Resume "
                      f"without it, or start a new run with it")


def freeze_clock(own: list[str], run: Path) -> list[str]:
    """The run's own overrides, each that reads the clock (Hydra's ``${now:...}``: ``run_name=${now:%H%M}``,
    ``'seed="${oc.decode:${now:%S}}"'``) given as the value the run used (its ``config_resolved.yaml``):
    resolved again, it gives another time, and the run is of the first one (breaking pass 88, rows 24,
    66, 69, major: before, such a run could not be resumed, and the fix named the environment).
    An override whose value the record lacks is kept as it is (:func:`check_interpolated_overrides`
    then names it)."""
    frozen = []
    for override in own:
        key, value = _key_value(override)
        name = key.lstrip("+~")
        used = _recorded_value(run, name) if value is not None and "${now:" in value else None
        if used is None or isinstance(used, dict) or (isinstance(used, list) and any(
                isinstance(item, dict | list) for item in used)):
            frozen.append(override)
            continue
        shown = ("[" + ",".join(_literal(item) for item in used) + "]" if isinstance(used, list)
                 else _literal(used))
        frozen.append(f"{override[:len(override) - len(override.lstrip('+~'))]}{name}={shown}")  # its '+'
    return frozen


def _literal(value: Any) -> str:
    """A plain recorded value as an override's value that Hydra reads back as the same value: a string
    that Hydra would read as another type (``'45'``, ``'true'``) or that holds its grammar's characters
    (``'13:13'``) in quotes."""
    if not isinstance(value, str):
        return "null" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
    shown = hydra_value(value)
    if shown == value and re.fullmatch(r"[-+]?(\d[\d_]*\.?\d*(e[-+]?\d+)?|\.\d+|inf|nan)|true|false|null",
                                       value, re.IGNORECASE):
        return f"'{value}'"
    return shown


def check_interpolated_overrides(own: list[str], cfg: DictConfig | None, run: Path) -> None:
    """Raises ResumeError when one of the run's own overrides holds an interpolation
    (``depth=${oc.decode:${oc.env:DEPTH}}``) that no longer resolves (``cfg`` is ``None``: the
    config could not be composed, or the key does not resolve), or resolves to another value than
    the run used (its ``config_resolved.yaml``): the checkpoint is of the value the run used, and
    the resume would fail with a traceback, or blame the checkpoint. An interpolation of Hydra's
    node is resolved as Hydra will resolve it (:func:`_check_hydra_interpolation`), not by any
    ``HydraConfig`` this process holds."""
    from hydra.core.hydra_config import HydraConfig

    held, HydraConfig.instance().cfg = HydraConfig.instance().cfg, None
    try:
        _check_interpolations(own, cfg, run)
    finally:
        HydraConfig.instance().cfg = held


def _check_interpolations(own: list[str], cfg: DictConfig | None, run: Path) -> None:
    """:func:`check_interpolated_overrides`, without a ``HydraConfig``."""
    for override in own:
        key, value = _key_value(override)
        if value is None or "${" not in value:
            continue
        key = key.lstrip("+~")
        used = _recorded_value(run, key)
        try:
            if cfg is None:
                raise _last_compose_error[0] or ValueError("the config cannot be composed")
            now = OmegaConf.select(cfg, key, throw_on_resolution_failure=True)
        except Exception as err:  # an environment variable that is not set now
            if "HydraConfig was not set" in str(err):  # ${paths.output_dir}, ${hydra:runtime.cwd}
                _check_hydra_interpolation(override, key, used, cfg, run)
                continue
            reason = next((line.strip() for line in str(err).splitlines() if "not found" in line),
                          " ".join(str(err).splitlines()[:1]))
            reason = reason.split(': "', 1)[-1].rstrip('"')  # omegaconf's 'KeyError raised ...: "<why>"'

            raise ResumeError(
                f"resume={run}: the run's override {override} cannot be resolved now ({reason}); the run "
                f"used {key}={_short(used)}. Fix: set the environment as when the run started, then resume "
                f"again") from None
        if used is not None and now != used:
            raise ResumeError(
                f"resume={run}: the run's override {override} resolves to {key}={_short(now)} now, but the "
                f"run used {key}={_short(used)} (its config_resolved.yaml), and its checkpoint is of that. "
                f"Fix: set the environment as when the run started, then resume again")


def _check_hydra_interpolation(override: str, key: str, used: Any, cfg: DictConfig, run: Path) -> None:
    """Raises ResumeError when the run's ``override`` of ``key``, an interpolation of Hydra's node
    (``${hydra:runtime.cwd}/data``), resolves, as Hydra will resolve it for the resume (in the run's
    folder, from the folder the command is typed in), to another value than ``used``; a path under
    the run's folder (``${paths.output_dir}/best``) follows the folder if it was moved. Before (pass
    93, rows 40, 41, 48, major), each was refused unresolved, with "set the environment as when the
    run started", where no environment had changed."""
    from hydra.core.hydra_config import HydraConfig

    full = copy.deepcopy(cfg)  # set_config makes its hydra node read-only
    with open_dict(full):
        full.hydra.runtime.output_dir, full.hydra.runtime.cwd = str(run), os.getcwd()
    HydraConfig.instance().set_config(full)
    try:
        now = OmegaConf.select(full, key, throw_on_resolution_failure=True)
    except Exception:  # noqa: BLE001  left to Hydra, which names it as the run starts
        return
    finally:
        HydraConfig.instance().cfg = None
    record = run / ".hydra" / "hydra.yaml"
    before, started = (recorded_at(record, f"hydra.runtime.{name}") for name in ("output_dir", "cwd"))
    if used is None or now == used or (isinstance(now, str) and isinstance(used, str) and
                                       isinstance(before, str) and now == used.replace(before, str(run), 1)):
        return
    back = f"cd {shlex.quote(started)} and resume again, or " if isinstance(started, str) else ""
    raise ResumeError(
        f"resume={run}: the run's override {override} resolves against the folder the command is typed in "
        f"({os.getcwd()}) to {key}={now}, but the run used {key}={used} (its "
        f"config_resolved.yaml). Fix: {back}give {override_arg(key, used)} with the resume")


#: keys whose value in ``config_resolved.yaml`` is the one the run built, not the one it was given
#: (:func:`highwaylab.train.record_values_used`)
REWRITTEN = ("model.width", "model.match_params", "model.gate_bias", "trainer.precision")


def _ran_with(run: Path, key: str) -> Any:
    """The plain value (not a dict or list) that the run ran with for ``key`` as given (its
    ``config_resolved.yaml``); ``None`` if missing, or for a key that records the value built
    (``REWRITTEN``; a conv net's ``depth`` and ``width``)."""
    conv = _recorded_value(run, "model.stages") is not None
    if key in REWRITTEN or (conv and key in ("depth", "width")):
        return None
    value = _recorded_value(run, key)
    return None if isinstance(value, dict | list) else value


def recorded_at(record: Path, key: str, missing: Any = None) -> Any:
    """The value of the dotted ``key`` in the YAML file ``record`` (a run's ``config_resolved*.yaml``
    or ``.hydra/config.yaml``); ``missing`` if the file cannot be read or lacks the key. The one
    reader of a run's recorded values for resume, train and the report."""
    try:
        node: Any = yaml.safe_load(Path(record).read_text()) or {}
        for part in key.split("."):
            node = node[part]
        return node
    except (OSError, yaml.YAMLError, KeyError, TypeError, IndexError):
        return missing


def _recorded_value(run: Path, key: str) -> Any:
    """The value of the dotted ``key`` in the run's ``config_resolved.yaml`` (as it ran); ``None``
    if the file or the key is missing."""
    return recorded_at(run / "config_resolved.yaml", key)


BEST_CRITERION = ("callbacks.model_checkpoint.monitor", "callbacks.model_checkpoint.mode")


def search_trial_warning(run: Path, extra: list[str]) -> str | None:
    """The warning for a resume that trains a finished trial of an Optuna search further (its sweep
    folder holds the study, ``optuna.db``): the study and ``optimization_results.yaml`` keep the result
    the trial was ranked by, and the report shows the new one (pass 67, row 45: before, in silence);
    ``None`` otherwise."""
    sweep = run.parent
    if not (sweep / STUDY_FILE).is_file() or not (run / "metrics.json").is_file() \
            or not any(_key_value(o)[0] in ("trainer.max_epochs", "trainer.max_steps") for o in extra):
        return None
    return (f"highwaylab: warning: resume={run} trains a finished trial of the search in {sweep} further: "
            f"its metrics.json (and the report) will give the longer run's result, while the study "
            f"({STUDY_FILE}) and optimization_results.yaml keep the one the trial was ranked by. To compare "
            f"trials as the search did, train the best one further as a new run: python train.py <its "
            f"parameters> trainer.max_epochs=<n>")


def unverified_data_warning(run: Path, cfg: DictConfig | None, extra: list[str] = ()) -> str | None:
    """The warning for a resume that reads its data from another folder than the run trained on with
    ``data.verify=false``: the files' identity is not checked, so the rest of the run may train on
    another data set under the run's name (breaking pass 62, row 26: Fashion-MNIST's files in
    ``MNIST/raw/``, unsaid); ``None`` otherwise (the same folder, or verified files). Its two fixes
    are commands: back to the run's own folder, or these files checked (``data.verify=true``, which
    also overrides a ``data.verify=false`` that the run recorded; pass 91, row 67: before, "leave
    data.verify=false out", which the command did not hold)."""
    if cfg is None or _select(cfg, "data.verify") is not False:
        return None
    used, here = recorded_at(latest_resolved(run), "data.data_dir"), _select(cfg, "data.data_dir")
    if not isinstance(used, str) or not isinstance(here, str) or \
            os.path.realpath(used) == os.path.realpath(os.path.abspath(here)):
        return None
    resume = f"resume={hydra_value(run)}"
    own = [resume, *(o for o in extra if _key_value(o)[0].lstrip("+~") not in DATA_DIR_KEYS)]
    verify = [o for o in extra if _key_value(o)[0].lstrip("+~") != "data.verify"]
    checked = _command([resume, *verify, "data.verify=true"])
    return (f"highwaylab: warning: resume={run}: data.data_dir={here} is not the folder the run trained on "
            f"({used}), and data.verify=false reads its files unchecked: the rest of the run trains on "
            f"whatever they hold, under the run's data set ({_select(cfg, 'data.dataset')}). To go on with "
            f"the run's own files: {_command([*own, f'data.data_dir={hydra_value(used)}'])}; to check these "
            f"against the official files: {checked}")


def check_data_folder(run: Path, cfg: DictConfig | None, extra: list[str]) -> None:
    """Raises ResumeError when ``HIGHWAYLAB_DATA_DIR`` names a folder without the run's data set while
    the run's own data folder (its ``config_resolved.yaml``) holds it: a relative value typed in
    another folder (``train.py`` makes it absolute against the folder the command is typed in) gave
    "Data file missing: /shared/data/...", naming neither the folder the run used nor why (pass 47,
    row 25). A ``data.data_dir=`` given with the resume is left to the data checks."""
    from highwaylab.data.files import LAYOUT, data_folder

    given = os.environ.get("HIGHWAYLAB_DATA_DIR", "")
    if cfg is None or given.startswith("~") or any(
            _key_value(o)[0].lstrip("+~") == "data.data_dir" for o in extra):
        return
    dataset, used = _select(cfg, "data.dataset"), recorded_at(latest_resolved(run), "data.data_dir")
    here = Path(given).absolute() if given.strip() else _select(cfg, "data.data_dir")
    if dataset not in LAYOUT or not isinstance(used, str) or not isinstance(here, (str, Path)) \
            or not data_folder(used, dataset).is_dir() or data_folder(here, dataset).is_dir():
        return
    again = f"python train.py {override_arg('resume', run)}{''.join(' ' + shell_word(o) for o in extra)}"
    # pass 57, row 14: unset, it is the checkout's data/; before, "Data file missing", not the run's folder
    layout = LAYOUT[dataset][0]
    why = (f"HIGHWAYLAB_DATA_DIR names {here}, which holds no {layout}/ (a relative value is read against "
           f"the folder the command is typed in, {Path.cwd()})" if given.strip() else
           f"HIGHWAYLAB_DATA_DIR is not set, so the data folder is {here}, which holds no {layout}/")
    raise ResumeError(f"resume={run}: {why}; the run used {used} (its config_resolved.yaml). Fix: "
                      f"HIGHWAYLAB_DATA_DIR={shlex.quote(used)} {again}")


def check_checkpoint_callbacks(base: DictConfig, cfg: DictConfig, run: Path, extra: list[str] = ()) -> None:
    """Raises ResumeError when the extra overrides change how the run's best checkpoint is chosen
    (``BEST_CRITERION``): Lightning keeps a ``ModelCheckpoint``'s state under its monitor and mode,
    so the resumed run would start a new "best" (with a raw warning), and the old best checkpoint
    would stay in ``checkpoints/`` beside the new one, chosen by another metric; or when they remove
    the run's latest checkpoint (``callbacks.last_checkpoint=null``): its ``last.ckpt`` would stay at
    the resume point while the run trains on, and the next ``resume=`` would train that part again.
    The message names the extra override that does it (``callbacks=none``); one that removes the
    checkpoint callbacks themselves is named as that (pass 56, row 25: ``callbacks=none`` was said to
    choose the best "by another criterion")."""
    removed = [key for key in ("callbacks.model_checkpoint", "callbacks.last_checkpoint")
               if _select(base, key) is not None and _select(cfg, key) is None]
    if "callbacks.model_checkpoint" in removed:
        given = next((o for o in extra if any(_covers(_key_value(o)[0], key) for key in removed)),
                     f"~{removed[0]}")
        lost = (f"its {LAST_CKPT} would stay at the resume point while the run trains on (the next resume= "
                f"would train that part again), and " if len(removed) == 2 else "")
        raise ResumeError(
            f"resume={run}: {given} removes the run's checkpoints ({' and '.join(removed)}): {lost}the "
            f"resumed run would save no best checkpoint, so test/* would be of its final weights, not of "
            f"the run's best. Resume without it, or start a new run with it")
    for key in BEST_CRITERION:
        old, new = _select(base, key), _select(cfg, key)
        if old is not None and old != new:
            field = key.rsplit(".", 1)[1]
            given = next((o for o in extra if _covers(_key_value(o)[0], key)), f"{key}={_short(new)}")
            raise ResumeError(
                f"resume={run}: {given} changes how the run's best checkpoint is chosen (the run chose it "
                f"by {field} {_short(old)}): its best so far would stay beside a new best, chosen by "
                f"another criterion, and test/* would be of the new one. Resume without it, or start a new "
                f"run with it")
    key = "callbacks.last_checkpoint"
    if _select(base, key) is not None and _select(cfg, key) is None:
        given = next((o for o in extra if _covers(_key_value(o)[0], key)), f"~{key}")
        raise ResumeError(
            f"resume={run}: {given} removes the run's latest checkpoint (callbacks.last_checkpoint): its "
            f"{LAST_CKPT} would stay at the resume point while the run trains on, and the next resume= "
            f"would train that part again. Resume without it")


def saved_dirpath(checkpoint: dict) -> str | None:
    """The ``checkpoints/`` folder that ``checkpoint`` was saved in (its ModelCheckpoint state's
    ``dirpath``); ``None`` without that record."""
    states = checkpoint.get("callbacks") or {}
    return next((s.get("dirpath") for k, s in states.items() if k.startswith("ModelCheckpoint")
                 and isinstance(s, dict) and s.get("dirpath")), None)


def wrote_wandb_run(folder: Path, run_id: str) -> bool:
    """Whether ``folder`` (a run's folder) holds W&B run ``run_id``: its offline segments
    (``wandb/*run-*-<run_id>``) or its ``metrics.json``'s ``wandb_run_path``."""
    segments = (folder / "wandb").is_dir() and any((folder / "wandb").glob(f"*run-*-{run_id}"))
    return segments or str((run_metrics(folder) or {}).get("wandb_run_path") or "").endswith(f"/{run_id}")


def moved_from(run: Path, checkpoint: dict) -> bool:
    """Whether ``run``'s folder was moved away from the folder ``checkpoint`` (its own ``last.ckpt``)
    was saved in, and another run has been started at that path since: the checkpoint's W&B run
    (``logger_versions``) is in this folder and not in that one, or, without W&B, the checkpoint's
    seed (``run_seed``) is this run's and not that one's (breaking pass 59, rows 63 and 64: before,
    ``mv m1 m1keep`` then a new run at ``m1`` made ``resume=m1keep`` refused as "written by another run",
    or taken for a copy that got a new W&B run)."""
    saved = saved_dirpath(checkpoint)
    if not saved:
        return False
    other = Path(os.path.realpath(saved)).parent
    versions = checkpoint.get("logger_versions")
    run_id = versions.get("WandbLogger") if isinstance(versions, dict) else None
    if isinstance(run_id, str) and run_id:
        ours, theirs = wrote_wandb_run(run, run_id), wrote_wandb_run(other, run_id)
        if ours != theirs:
            return ours
    seed = checkpoint.get("run_seed")
    return (isinstance(seed, int) and _recorded_value(run, "seed") == seed
            and _recorded_value(other, "seed") not in (seed, None))


def check_own_checkpoint(run: Path, ckpt: Path, checkpoint: dict) -> None:
    """Check that ``checkpoint`` (read from ``ckpt``, the checkpoint ``resume=<run>`` continues from)
    was written by ``run``. Its ``ModelCheckpoint`` state records the folder it was saved in; when
    that is another folder (the run's folder was moved or copied), and that folder's run still exists
    with a record (``.hydra/config.yaml``) whose seed, model or data set differ from this run's, the
    checkpoint is that run's, copied over this run's own. (A copy extended on its own, e.g. to more
    epochs, still has the original's seed, model and data.)

    Raises:
        ResumeError: naming the other run's folder, the first keys its record differs in, and the fixes.
    """
    saved = saved_dirpath(checkpoint)
    ours_seed = _recorded_value(run, "seed") if "run_seed" in checkpoint else None
    if isinstance(ours_seed, int) and checkpoint["run_seed"] != ours_seed:  # seed is bound: never changed
        shown = ckpt.relative_to(run) if _inside(ckpt, run) else ckpt  # (pass 36, row 72: before, taken
        where = f" (saved in {Path(saved).parent})" if saved else ""  # as the run, moved, when the other
        raise ResumeError(  # run's folder was gone)
            f"resume={run}: {shown} was written by a run of seed={checkpoint['run_seed']}{where}, but this "
            f"run's config_resolved.yaml has seed={ours_seed}: it is another run's checkpoint, "
            f"copied over this run's own, and resuming would train that run's weights under this run's "
            f"record. Fix: restore this run's own {ckpt.name}; or start a new run from its weights: python "
            f"train.py <overrides> {override_arg('ckpt_path', ckpt)}")
    if not saved:
        return
    here, there = Path(os.path.realpath(ckpt.parent)), Path(os.path.realpath(saved))
    other = there.parent
    if there == here or other == Path(os.path.realpath(run)):
        return  # its own folder
    if not (other / RECORD / "config.yaml").is_file() or not (run / RECORD / "config.yaml").is_file():
        return  # a moved folder: nothing is left where it was saved
    if moved_from(run, checkpoint):
        return  # a moved folder, and a new run started where it was
    name = f"resume={run}"
    theirs = OmegaConf.to_container(_load_config(other / RECORD / "config.yaml", name), resolve=False)
    ours = OmegaConf.to_container(_load_config(run / RECORD / "config.yaml", name), resolve=False)
    found: list[tuple[str, Any, Any]] = []

    def walk(path: str, a: Any, b: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                if not (path == "" and k in ("paths", "resume", "ckpt_path")):  # where it ran
                    walk(f"{path}.{k}" if path else str(k), a.get(k), b.get(k))
        elif a != b and not _same_activation(path, a, b):
            found.append((path, a, b))

    def identity(record: Any) -> dict:  # what makes the weights that run's: not how long or where it ran
        record = record if isinstance(record, dict) else {}
        data = record.get("data") if isinstance(record.get("data"), dict) else {}
        return {"seed": record.get("seed"), "model": record.get("model"),
                "data": {k: v for k, v in data.items()
                         if k in ("_target_", "dataset", "val_size", "split_seed")}}

    walk("", identity(theirs), identity(ours))
    if not found:
        return  # a copy of the run: the folder it was saved in holds the same run
    shown = ckpt.relative_to(run) if _inside(ckpt, run) else ckpt
    keys = ", ".join(f"{k}={_short(a)}" for k, a, _ in found[:3])
    own = ", ".join(f"{k}={_short(b)}" for k, _, b in found[:3])
    raise ResumeError(
        f"{name}: {shown} was written by another run: its paths point at {there}, and {other} still "
        f"exists with its own record ({RECORD}/config.yaml: {keys}; this run's has {own}), so resuming "
        f"would train on that run's weights under this run's record. Fix: restore this run's own "
        f"{ckpt.name}; or resume that run: python train.py {override_arg('resume', other)}; or start a "
        f"new run from its weights: python train.py <overrides> {override_arg('ckpt_path', ckpt)}")


def check_resume(cfg: DictConfig, ckpt_path: str, checkpoint: dict, resume: bool = False) -> None:
    """Check that ``checkpoint`` (read from ``ckpt_path``) can continue under ``cfg``.

    A checkpoint at the run's end (its epoch is ``trainer.max_epochs``, or its step
    ``trainer.max_steps``) of a run that has no result of it (no ``metrics.json`` of its step: the
    run was stopped after training, before its test) is accepted: nothing is trained, and the run is
    completed (its test, and ``metrics.json`` with the final epoch's ``train/*`` and ``val/*``,
    which :class:`highwaylab.callbacks.LatestCheckpoint` keeps in the checkpoint).

    Raises:
        ResumeError: the checkpoint was written by a run of another data set, model or optimiser
            (its run's ``.hydra/config.yaml``); the run has finished (checkpoint at its end, and
            tested); or ``trainer.max_epochs`` / ``trainer.max_steps`` is at or below the
            checkpoint's progress (mid-epoch, or short of the run's own end). One line, naming the
            key, the checkpoint's epoch and step, and the fix.
    """
    from highwaylab.trainer_checks import check_trainer_counts

    name = f"resume={run_of(Path(ckpt_path))}" if resume else f"ckpt_path={ckpt_path}"
    check_trainer_counts(cfg.trainer)  # trainer.max_epochs=1.5, before it is compared as 1
    run = run_of(Path(ckpt_path))
    if run is not None:
        record = _load_config(run / RECORD / "config.yaml", name)
        conv = _select(record, "model.stages") is not None
        for key in IDENTITY:
            if conv and key in ("depth", "width"):
                continue  # a conv net's: built from model.stages (compared as that); an unused depth=8 given
                # to it is in the record, its built depth in cfg (before, such a run could not be resumed)
            old, new = _select(record, key), _select(cfg, key)
            if _same_activation(key, old, new):
                continue
            if old != new and old is not None and resume:  # the run's own record disagrees with itself
                # config.yaml edited (pass 42, row 51: before, the fix rewrote the overrides to its value)
                config_edited(run, run / RECORD / "config.yaml", [(key, old)],
                              OmegaConf.to_container(cfg, resolve=False))
                record_file = overrides_record(run)  # a resumed run's: its latest resumed_* record
                raise ResumeError(
                    f"{name}: the run's overrides ({record_file.relative_to(run)}, with conf/ as it is now) "
                    f"give {key}={_short(new)}, but its {RECORD}/config.yaml, the config its checkpoint was "
                    f"trained with, has {key}={_short(old)} (was the record or conf/ edited?). Fix: give "
                    f"{key}={_short(old)} again in {record_file}")
            if old != new and old is not None:
                raise ResumeError(
                    f"{name}: the checkpoint was written by a run with {key}={_short(old)} (its "
                    f"{RECORD}/config.yaml), and this run has {key}={_short(new)}. {_resume_own(run)}start a "
                    f"new run without ckpt_path")
    if (changed := scheduler_change(cfg, checkpoint)) is not None:
        from highwaylab.config_checks import as_given

        key, old, new = changed
        follows = next((k for k in ("trainer.max_epochs", "trainer.max_steps")
                        if _select(cfg, k) == new and isinstance(new, int)), None)
        via = f" (it follows {follows})" if follows else ""
        raise ResumeError(
            f"{name}: {key}={_short(new)}{via}, but the checkpoint's scheduler has {key.split('.')[-1]}="
            f"{_short(old)}, and Lightning restores the checkpoint's: the learning rate would go on along "
            f"the old schedule (a cosine one is 0 at its end, then rises again), while the record says "
            + (f"{_short(new)}. Fix: start a new run with the schedule you want; a run extended by resume= "
               f"keeps its schedule (optim=sgd decays by epoch and extends)" if resume else
               f"{_short(new)}. Fix: {as_given(key)}={_short(old)}, to go on along the checkpoint's "
               f"schedule; for another schedule, leave ckpt_path out (a new run trained from its start)"))
    if (changed := optimizer_change(cfg, checkpoint)) is not None:  # pass 38, rows 27 and 57: before,
        key, old, new = changed  # ckpt_path= with lr=0.001 trained at the checkpoint's 0.1, recorded 0.001
        used = _recorded_value(run, key) if resume and run is not None else None
        if used is not None and _same_value(old, used):  # the record, not the run, changed
            # (pass 42, rows 70-71: before, "give lr=0.1 (the checkpoint's)", which check_bound then refused)
            raise _record_changed(run, f"{key}={_short(new)}", f"{key}={_short(used)}",
                                  "its config_resolved.yaml, as its checkpoint's optimiser")
        raise ResumeError(
            f"{name}: {key}={_short(new)}, but the checkpoint's optimiser has {key.split('.')[-1]}="
            f"{_short(old)}, and Lightning restores the checkpoint's optimiser state: the run would train "
            f"with {_short(old)} while its record says {_short(new)}. Fix: give {key}={_short(old)} (the "
            f"checkpoint's), or start a new run without {'resume' if resume else 'ckpt_path'}")
    progress = checkpoint_progress(checkpoint)
    epochs, steps = progress.epochs, progress.step
    max_epochs, max_steps = _select(cfg, "trainer.max_epochs"), _select(cfg, "trainer.max_steps")
    max_steps = -1 if max_steps is None else int(max_steps)
    if max_epochs is None:
        max_epochs = 1000 if max_steps == -1 else -1  # Lightning's default
    max_epochs = int(max_epochs)
    done_epochs = max_epochs != -1 and epochs >= max_epochs
    done_steps = max_steps != -1 and steps >= max_steps
    if not (done_epochs or done_steps):
        if max_steps != -1 and not progress.mid_epoch:  # pass 41, rows 36, 62, 63 (major): before, exit 0
            # with one epoch trained too few (or none) and "max_epochs reached" in the log and the record
            given = "".join(f" {shell_word(o)}" for o in GIVEN_WITH_RESUME
                            if _key_value(o)[0] != "trainer.max_steps") if resume else ""
            where = override_arg("resume", run) if resume and run is not None else (
                override_arg("ckpt_path", ckpt_path))
            raise ResumeError(
                f"{name}: trainer.max_steps={max_steps} with a checkpoint saved at the end of an epoch "
                f"({progress.describe()}): Lightning then replays that finished epoch, empty, and counts it "
                f"twice, so the run would train an epoch too few and stop saying max_epochs was reached. "
                f"Fix: limit it by epochs alone: python train.py {where}{given} trainer.max_steps=-1")
        if resume and run is not None and _result_at(run, steps) and not _extended(run, cfg, name):
            limit = _seconds(_own_value(run, "trainer.max_time", name))
            further = "start a new run" if limit is None else (  # pass 44, row 49: its timer goes on
                f"give it more time: python train.py {override_arg('resume', run)} trainer.max_time="
                f"{_as_max_time(2 * limit)}")
            raise ResumeError(  # before: an early-stopped run trained on, its metrics.json replaced
                f"{name}: the run has finished: it stopped {progress.describe()}, before "
                f"trainer.max_epochs={max_epochs} (early stopping or a time limit ended it), and its "
                f"metrics.json holds its result of that checkpoint; resuming it would train on past its "
                f"own stop and write over that result. To train it further, {further}")
        check_time_left(cfg, checkpoint, name, run if resume else None)
        check_epoch_position(cfg, checkpoint, name, run if resume else None, ckpt_path)
        return
    key, value = ("trainer.max_epochs", max_epochs) if done_epochs else ("trainer.max_steps", max_steps)
    at_end = (epochs == max_epochs and not progress.mid_epoch) if done_epochs else steps == max_steps
    again = override_arg("resume", run) if run is not None else override_arg("ckpt_path", ckpt_path)
    if resume:  # the other overrides given with resume= (pass 34, row 29: before, the fix dropped them),
        # less a trainer.limit_train_batches that ends the checkpoint's epoch before its position, which
        # check_epoch_position would refuse next (pass 76, row 65: before, kept, and the fix refused)
        position = epoch_position(checkpoint)
        batches = train_batches(cfg) if position is not None else None
        short = batches is not None and batches.count <= position.batches
        again += "".join(f" {shell_word(o)}" for o in GIVEN_WITH_RESUME if _key_value(o)[0] != key
                         and not (short and _key_value(o)[0] == "trainer.limit_train_batches"))
    if at_end and not _tested(run, steps, test=bool(cfg.get("test"))):  # untested: complete it
        log.info(f"{name}: the checkpoint is at the run's end ({key}={value}: {progress.describe()}) and "
                 f"the run has no tested result of it (metrics.json): nothing is trained; its test runs and "
                 f"metrics.json is written")
        return
    if at_end:
        # the extension: more steps inside an epoch; from an epoch's end, more epochs, without a step limit
        # (Lightning replays a finished epoch under one: refused above; pass 50, row 51: before, the fix kept
        # the given trainer.max_steps, and the command it gave was refused)
        limits = ("trainer.max_epochs", "trainer.max_steps")
        if progress.mid_epoch:  # "or more" names the least that trains (pass 78, row 21: before, the example)
            grow, more, least = "trainer.max_steps", steps * 2, steps + 1
            extend = f"{grow}={more}"
        else:
            grow, more, least = "trainer.max_epochs", epochs + 2, epochs + 1
            extend = f"{grow}={more}" + (" trainer.max_steps=-1" if max_steps != -1 else "")
        if resume:
            where = override_arg("resume", run) if run is not None else override_arg("ckpt_path", ckpt_path)
            again = where + "".join(f" {shell_word(o)}" for o in GIVEN_WITH_RESUME
                                    if _key_value(o)[0] not in limits)
        at = (f"the end of {epochs} epoch{'s' if epochs != 1 else ''} (step {steps})" if done_epochs
              else f"step {steps}")
        states = checkpoint.get("lr_schedulers") or [{}]
        cosine_end = done_epochs and isinstance(states[0], dict) and states[0].get("T_max") == max_epochs \
            and _select(cfg, "optim.scheduler.T_max") == max_epochs
        if run is not None and cosine_end:  # T_max: ${trainer.max_epochs} ended with the run
            result = (f", and its metrics.json already holds its result. Its cosine schedule "
                      f"(optim.scheduler.T_max={max_epochs}) ended with it, so resume= cannot extend it: "
                      f"start a new run with more epochs")
        elif run is not None and resume:
            result = (f", and its metrics.json already holds its result. To train it further, extend it: "
                      f"python train.py {again} {extend}")
        elif run is not None:  # pass 35b, row 11: before, only "extend it", of the run the checkpoint is in
            result = (f", and its metrics.json already holds its result. To train further from it: for a "
                      f"new run from its weights, give {grow}={least} or more with this ckpt_path=; or "
                      f"extend that run itself: python train.py {override_arg('resume', run)} {extend}")
        else:  # a checkpoint outside a run folder: no record of its run, nor of its result
            result = f". To train it further, give {grow}={least} or more with ckpt_path={ckpt_path}"
        raise ResumeError(f"{name}: the run has finished: its checkpoint is at {at}, and {key}={value}; "
                          f"nothing would be trained{result}")
    need = epochs + 1 if done_epochs else steps + 1
    own = _own_value(run, key, name) if run is not None else None
    own_text = f", and the run's own {key} is {own}" if own is not None and own != value else ""
    if resume and isinstance(own, int) and own >= need:
        fix = f"Resume without {key}={value} (python train.py {again}), or with {key}={need} or more"
    elif key == "trainer.max_steps" and not progress.mid_epoch:  # pass 41, row 36: a step limit from an
        # epoch's end is the path where Lightning trains an epoch too few (refused above)
        by_epochs = f"trainer.max_epochs={max(epochs + 1, max_epochs)} trainer.max_steps=-1"
        kept = "".join(f" {shell_word(o)}" for o in GIVEN_WITH_RESUME
                       if _key_value(o)[0] not in ("trainer.max_epochs", "trainer.max_steps"))
        fix = (f"Lightning cannot go on by a step limit from an epoch's end: continue it by epochs, e.g. "
               f"python train.py {override_arg('resume', run)}{kept} {by_epochs}" if resume and run else
               f"Lightning cannot go on by a step limit from an epoch's end: give {by_epochs} with "
               f"ckpt_path={ckpt_path}")
    elif resume:
        fix = f"Resume with {key}={need} or more: python train.py {again} {key}={need}"
    else:
        fix = f"Give {key}={need} or more with ckpt_path={ckpt_path}"
    raise ResumeError(f"{name}: {key}={value} is at or below the checkpoint's progress: it was saved "
                      f"{progress.describe()}{own_text}; nothing would be trained. {fix}")


def check_epoch_position(cfg: DictConfig, checkpoint: dict, name: str, run: Path | None,
                         ckpt_path: str) -> None:
    """Raises ResumeError when ``checkpoint`` was saved inside an epoch (:func:`epoch_position`) and
    the epochs of ``cfg`` have no batch after that position (:func:`train_batches`: e.g.
    ``trainer.limit_train_batches`` lowered by the resume): Lightning would end that epoch at once and
    count an epoch it never trained (pass 26, row 87). ``run``: the run folder of a ``resume=``
    (``None`` for ``ckpt_path=``), for the run's own setting and the fix."""
    position = epoch_position(checkpoint)
    batches = train_batches(cfg) if position is not None else None
    if position is None or batches is None or batches.count > position.batches:
        return
    need, key = position.batches + 1, "trainer.limit_train_batches"
    where = (f"the checkpoint was saved after batch {position.batches} of epoch {position.epoch} (step "
             f"{int(checkpoint.get('global_step', 0))}): that epoch would end at once, and Lightning would "
             f"count an epoch it never trained")
    if batches.total is not None and batches.total <= position.batches:  # not the limit: the data, devices
        raise ResumeError(f"{name}: an epoch has {batches.total} training batches here ({batches.why}), and "
                          f"{where}. Fix: continue it with the data.batch_size, data.val_size and "
                          f"trainer.devices it was trained with, or start a new run")
    own = _own_value(run, key, name) if run is not None else None
    own_text = f" (the run's own is {'null: all batches' if own is None else own})" \
        if run is not None and own != batches.limit else ""
    if run is not None:
        fix = f"keep {key} at {need} or more for this resume{own_text}, or start a new run"
    else:
        fix = f"give {key}={need} or more with ckpt_path={ckpt_path}, or start a new run without ckpt_path"
    part = f" ({batches.limit} of {batches.total})" if isinstance(batches.limit, float) else ""
    raise ResumeError(f"{name}: {key}={batches.limit} gives {batches.count} training batch"
                      f"{'es' if batches.count != 1 else ''} per epoch{part}, and {where}. Fix: {fix}")


class EpochPosition(NamedTuple):
    """Where inside an epoch a checkpoint was saved: ``batches`` trained of epoch ``epoch`` (0-based)."""

    epoch: int
    batches: int


def epoch_position(checkpoint: dict) -> EpochPosition | None:
    """The :class:`EpochPosition` of a checkpoint saved inside an epoch (its fit loop's batch progress:
    batches completed in the epoch, not at its last batch: a ``trainer.max_steps`` stop, a signal, a
    mid-epoch checkpoint); ``None`` at an epoch's end, or for a checkpoint without loops."""
    try:
        loop = checkpoint["loops"]["fit_loop"]
        progress = loop["epoch_loop.batch_progress"]
        done = int(progress["current"]["completed"])
        epoch = int(loop["epoch_progress"]["current"]["started"]) - 1
    except (KeyError, TypeError, ValueError):
        return None
    if progress.get("is_last_batch") or done <= 0:
        return None
    return EpochPosition(max(epoch, 0), done)


class TrainBatches(NamedTuple):
    """The training batches per epoch (per process) of a config, or at most that many (``count``);
    ``limit``: the ``trainer.limit_train_batches`` that cuts them (``None``: all batches);
    ``total``: the batches of the whole training set (``None``: unknown), and ``why``, how they follow."""

    count: int
    limit: int | float | None
    total: int | None
    why: str


def train_batches(cfg: DictConfig) -> TrainBatches | None:
    """The training batches per epoch of each process under ``cfg``, as Lightning counts them
    (``trainer.num_training_batches``, metrics.json's ``batches_per_epoch``), or an upper bound of
    them: the training examples (the official set's, :data:`highwaylab.data.files.TRAIN_EXAMPLES`,
    less ``data.val_size``; only with ``data.verify``, which holds the files to the official ones)
    over the processes (``trainer.devices`` x ``trainer.num_nodes``, where they are numbers; else
    one) and ``data.batch_size``, cut by ``trainer.limit_train_batches`` as Lightning cuts them (an
    int: at most that many; a fraction: that part of them, rounded down). ``None``: unknown (neither
    the examples nor an int limit)."""
    from highwaylab.data.files import TRAIN_EXAMPLES

    limit = _select(cfg, "trainer.limit_train_batches")
    if isinstance(limit, bool) or not isinstance(limit, int | float) or limit < 0 or limit == 1.0 \
            and isinstance(limit, float):
        limit = None  # null or 1.0 (all), or a value the trainer checks refuse
    dataset, val_size, size = (_select(cfg, f"data.{k}") for k in ("dataset", "val_size", "batch_size"))
    total, why = None, ""
    if dataset in TRAIN_EXAMPLES and _select(cfg, "data.verify") is True and isinstance(val_size, int) \
            and isinstance(size, int) and size > 0 and 0 <= val_size < TRAIN_EXAMPLES[dataset]:
        examples = TRAIN_EXAMPLES[dataset] - val_size
        world = processes_of(cfg) or 1  # "auto", -1: at most one's share
        total = math.ceil(math.ceil(examples / world) / size)  # DistributedSampler pads; no drop_last
        why = f"{examples} training examples / data.batch_size={size}" + (f" / {world} processes"
                                                                          if world > 1 else "")
    if isinstance(limit, int) and (total is None or limit < total):
        return TrainBatches(limit, limit, total, why)
    if isinstance(limit, float) and total is not None:
        return TrainBatches(int(total * limit), limit, total, why)
    return None if total is None else TrainBatches(total, None, total, why)


def scheduler_change(cfg: DictConfig, checkpoint: dict) -> tuple[str, Any, Any] | None:
    """The first argument of ``optim.scheduler`` (``T_max``, ``gamma``, ``step_size``, ``milestones``,
    ...) whose value in ``cfg`` differs from the state of the checkpoint's learning-rate scheduler
    (``checkpoint["lr_schedulers"][0]``, which Lightning restores over the config's): ``(key, the
    checkpoint's value, cfg's value)``; ``None`` if they agree or either is missing. ``T_max:
    ${trainer.max_epochs}`` makes an extended run's ``T_max`` differ."""
    scheduler = OmegaConf.select(cfg, "optim.scheduler", default=None)
    states = checkpoint.get("lr_schedulers") if isinstance(checkpoint, dict) else None
    if not OmegaConf.is_dict(scheduler) or not states or not isinstance(states[0], dict):
        return None
    for arg in scheduler:
        new = _select(cfg, f"optim.scheduler.{arg}")  # resolved: T_max: ${trainer.max_epochs}
        if arg.startswith("_") or arg not in states[0]:
            continue
        old = states[0][arg]
        if isinstance(old, dict):  # MultiStepLR keeps its milestones as a Counter
            old = sorted(m for m, count in old.items() for _ in range(count))
        if isinstance(new, list):
            new = sorted(new)
        if not _same_value(old, new):
            return f"optim.scheduler.{arg}", old, new
    return None


def optimizer_change(cfg: DictConfig, checkpoint: dict) -> tuple[str, Any, Any] | None:
    """The first argument of ``optim.optimizer`` (``lr``, ``momentum``, ``weight_decay``, ``betas``,
    ...) whose value in ``cfg`` differs from the checkpoint's optimiser state
    (``checkpoint["optimizer_states"][0]["param_groups"][0]``, which Lightning restores over the
    config's): ``(key, the checkpoint's value, cfg's value)``; ``None`` if they agree or either is
    missing. ``lr`` is compared with the group's ``initial_lr``, the base rate a scheduler starts
    from (its ``lr`` is the scheduled one), and skipped without it (``ReduceLROnPlateau``)."""
    optimizer = OmegaConf.select(cfg, "optim.optimizer", default=None)
    states = checkpoint.get("optimizer_states") if isinstance(checkpoint, dict) else None
    groups = states[0].get("param_groups") if states and isinstance(states[0], dict) else None
    if not OmegaConf.is_dict(optimizer) or not groups or not isinstance(groups[0], dict):
        return None
    group = groups[0]
    for arg in optimizer:
        saved = "initial_lr" if arg == "lr" else arg
        if arg.startswith("_") or saved not in group:
            continue
        old, new = group[saved], _select(cfg, f"optim.optimizer.{arg}")
        if isinstance(old, tuple | list) and isinstance(new, list | tuple):
            old, new = list(old), list(new)
        if not _same_value(old, new):
            return f"optim.optimizer.{arg}", old, new
    return None


def _same_value(old: Any, new: Any) -> bool:
    """Whether an optimiser's or scheduler's argument ``old`` (a checkpoint's) and ``new`` agree: numbers
    to a relative 1e-9, anything else (booleans, ``betas``, milestones) exactly."""
    if isinstance(old, bool) or isinstance(new, bool) or not isinstance(old, int | float):
        return old == new
    return isinstance(new, int | float) and abs(old - new) <= 1e-9 * max(abs(old), abs(new))


CONFIG_FLAGS = ("--config-dir", "-cd", "--config-path", "-cp", "--config-name", "-cn")


def _config_flags(flags: list[str]) -> list[str]:
    """The words of ``flags`` (a command line's, less its overrides) that say where its configs are
    (``--config-dir <folder>``, ``-cn=<name>``), each with its value, in their order."""
    kept: list[str] = []
    for i, word in enumerate(flags):
        if word in CONFIG_FLAGS and i + 1 < len(flags):
            kept += [word, flags[i + 1]]
        elif word.split("=", 1)[0] in CONFIG_FLAGS and "=" in word:
            kept.append(word)
    return kept


def check_run(cfg: DictConfig) -> None:
    """The checks of :func:`rewrite_argv` that a composed config allows (for ``train(cfg)`` called
    without ``train.py``'s command line): ``run_name``, and no ``resume`` left in the config.

    Raises:
        ResumeError: see :func:`check_run_name`; ``resume`` set (only ``train.py`` reads it).
    """
    if "run_name" in cfg:  # a config of the Python API may have none
        check_run_name(cfg.run_name)
    if cfg.get("resume"):
        if (source := _resume_file()) is not None:  # pass 96, row 50: before, "in Python, ...", of a file
            raise ResumeError(f"resume: {cfg.resume} is set in {source}, and train.py reads resume= from its "
                              f"command line only, where it becomes the run's own overrides. Fix: delete "
                              f"resume: from {source}, and give it on the command line: python train.py "
                              f"{override_arg('resume', cfg.resume)}"
                              f"{''.join(' ' + shell_word(word) for word in sys.argv[1:])}")
        raise ResumeError(f"resume={cfg.resume} is read by train.py's command line (python train.py "
                          "resume=<run folder>); in Python, set ckpt_path and the run's folder instead")


def _resume_file() -> str | None:
    """The config file of this Hydra run's choices (an ``experiment``'s, say) that sets a top-level
    ``resume:``; ``None`` outside a Hydra run, or when none does."""
    from hydra.core.hydra_config import HydraConfig

    if not HydraConfig.initialized():
        return None
    runtime = HydraConfig.get().runtime
    folders = [Path(str(source.path)) for source in runtime.config_sources
               if source.schema == "file" and source.path]
    for group, option in runtime.choices.items():
        for folder in folders:
            path = folder / str(group) / f"{option}.yaml"
            try:
                if path.is_file() and "resume" in (yaml.safe_load(path.read_text()) or {}):
                    return str(path)
            except (OSError, yaml.YAMLError, TypeError):
                continue
    return None


class Progress(NamedTuple):
    """How far the run of a checkpoint got: ``epochs`` trained to their end (Lightning's processed
    epochs: what it compares with ``max_epochs``), the optimizer ``step`` (``global_step``), and
    whether it was saved inside an epoch (``mid_epoch``: then inside epoch ``epochs``, 0-based as
    in the log)."""

    epochs: int
    step: int
    mid_epoch: bool

    def describe(self) -> str:
        """E.g. ``in the middle of epoch 3 (step 1691; epochs 0..2 done)``, ``at the end of epoch 0
        (step 4; epoch 0 done)``."""
        done = {0: "no epoch done", 1: "epoch 0 done"}.get(self.epochs, f"epochs 0..{self.epochs - 1} done")
        if self.mid_epoch or not self.epochs:
            return f"in the middle of epoch {self.epochs} (step {self.step}; {done})"
        return f"at the end of epoch {self.epochs - 1} (step {self.step}; {done})"


def checkpoint_progress(checkpoint: dict) -> Progress:
    """The :class:`Progress` of a Lightning checkpoint, from its fit loop's epoch progress (an epoch
    is processed before ``on_train_epoch_end``, where checkpoints are saved; one started and not
    processed was saved inside it); ``checkpoint["epoch"]`` for a checkpoint without loops."""
    step = int(checkpoint.get("global_step", 0))
    try:
        current = checkpoint["loops"]["fit_loop"]["epoch_progress"]["current"]
        epochs = int(current["processed"])
        return Progress(epochs, step, int(current["started"]) > epochs)
    except (KeyError, TypeError, ValueError):
        return Progress(int(checkpoint.get("epoch", 0)), step, False)


def finished_epochs(checkpoint: dict) -> int:
    """The epochs that the run of ``checkpoint`` has trained to their end: what Lightning compares
    with ``max_epochs`` when it resumes (:func:`checkpoint_progress`)."""
    return checkpoint_progress(checkpoint).epochs


# ---------------------------------------------------------------------------------------------
# during the run
# ---------------------------------------------------------------------------------------------

def _resumed_without_wandb(run: Path) -> str | None:
    """The logger choice of an earlier resume of ``run`` that had no W&B logger (``logger=none``, from
    its ``.hydra/resumed_*/hydra.yaml``; this resume's own record, the latest, left out), or ``None``:
    the steps it trained are missing from the W&B run for that reason (pass 90, row 39: before, they were
    said to be lost to a kill)."""
    records = sorted((run / RECORD).glob("resumed_*/hydra.yaml"))[:-1]
    for record in records:
        choice = recorded_at(record, "hydra.runtime.choices.logger", missing="")
        if choice != "" and "wandb" not in str(choice):
            return f"logger={choice}"
    return None


def continue_wandb_steps(loggers: list, resumed_id: str | None = None, resumed_step: int | None = None,
                         every: int = 50) -> int | None:
    """Continue W&B's ``_step`` axis after the earlier offline segments of a resumed run.

    Offline, a resumed W&B run (the same id) starts a new folder ``wandb/offline-run-*-<id>`` whose
    ``_step`` starts at 0 again, as wandb cannot ask the server where the run stopped; uploaded,
    its rows would overlap the first segment's. Logging nothing at ``step = last _step + 1``
    (``commit=False``: no row) moves the counter on. Online, wandb already starts at the server's
    step. ``trainer/global_step``, the charts' x-axis, continues by itself.

    A resumed run that continues the checkpoint's W&B run (``resumed_id``, the id the checkpoint
    records, is this run's) and whose ``wandb/`` holds no earlier segment at all (deleted, e.g.
    after ``wandb sync``) is warned about: this segment's ``_step`` starts at 0 again. A resumed copy
    of a run, which gets a new W&B run, has no earlier rows to overlap: no word. So is one whose
    earlier segments end more than ``every`` (``trainer.log_every_n_steps``) steps of
    ``trainer/global_step`` before its checkpoint's ``resumed_step``: its killed process (SIGKILL, the
    OOM killer) never wrote those rows, which W&B keeps in memory until a block is full (breaking pass
    45, row 45: a finished, checkpointed epoch was missing from W&B, and nothing said so).

    Returns:
        The first ``_step`` of this segment, or ``None`` when nothing was done.
    """
    import wandb
    from lightning.pytorch.loggers import WandbLogger

    from highwaylab.utils.wandb_offline import RunReadError, find_run_segments, read_segment

    logger = next((lg for lg in loggers if isinstance(lg, WandbLogger)), None)
    run = getattr(logger, "experiment", None) if logger is not None else None
    # ranks other than zero hold Lightning's _DummyExperiment, whose every attribute is a no-op method
    if not isinstance(run, wandb.Run) or not run.offline or not run.dir:
        return None
    this = Path(getattr(run, "sync_dir", None) or Path(run.dir).parent)  # .../wandb/offline-run-<time>-<id>
    # a segment folder without its .wandb file (a start stopped before W&B wrote it) holds no rows:
    # skipped (pass 32, row 1: before, "W&B's _step cannot continue after <it>" on every later resume)
    earlier = [p for p in sorted(this.parent.glob(f"offline-run-*-{run.id}"))
               if p != this and any(p.glob("run-*.wandb"))]
    # a segment folder renamed by the user (pass 43, row 29: before, "holds none of its earlier offline
    # segments (deleted ...?)"): read, in the order of its file's time, and named, for wandb sync misses it
    own_file = f"run-{run.id}.wandb"
    renamed = sorted(p for p in this.parent.iterdir() if p.is_dir() and not p.is_symlink()  # not latest-run
                     and (p / own_file).is_file()
                     and not p.name.startswith(("offline-run-", "run-", "latest-run")))
    copied = this.parent / "latest-run"
    real = copied.is_dir() and not copied.is_symlink()
    files = {f.name for f in copied.glob("run-*.wandb")} if real else set()
    if files and any((p / name).is_file() for p in this.parent.glob("offline-run-*") for name in files):
        # pass 45, row 61: a run copied with its links followed (cp -rL): latest-run repeats a segment
        links = sorted(p for p in this.parent.glob("latest-run.*") if p.is_symlink())  # W&B's, beside it
        log.warning(f"highwaylab: {copied} is a folder, not W&B's link to the latest segment (the run was "
                    f"copied with its links followed: cp -rL, a zip?): it repeats a segment, and W&B "
                    f"linked this one beside it{f', as {links[0].name}' if links else ''}. Fix: rm -r "
                    f"{' '.join(shlex.quote(str(p)) for p in [copied, *links])}")
    if renamed:
        import time

        def written(p: Path) -> float:
            return min(f.stat().st_mtime for f in p.glob("run-*.wandb"))

        earlier = sorted([*earlier, *renamed], key=written)
        first = renamed[0]
        stamp = time.strftime("%Y%m%d_%H%M%S", time.localtime(written(first)))
        back = this.parent / f"offline-run-{stamp}-{run.id}"
        log.warning(f"highwaylab: W&B run {run.id}'s earlier segment {first} was renamed: wandb sync "
                    f"{this.parent}/offline-run-* leaves it out, so W&B would miss its rows. Fix: mv "
                    f"{shlex.quote(str(first))} {shlex.quote(str(back))}")
    others = [p for p in this.parent.glob("offline-run-*") if p != this]
    if run.id == resumed_id and not renamed and not others:
        log.warning(f"highwaylab: W&B run {run.id} continues, but {this.parent} holds none of its earlier "
                    f"offline segments (deleted, e.g. after wandb sync?): this segment's _step starts at 0 "
                    f"again, and synced it would overlap the earlier rows of _step; the charts' x-axis, "
                    f"trainer/global_step, continues")
        return None
    last = logged_to = -1
    for folder in earlier:
        try:
            records = []
            for file in find_run_segments(folder):
                found, notes = read_segment(file)
                if notes:  # cut short (a killed process, a damaged copy): its later rows are lost
                    log.warning(f"highwaylab: the earlier W&B segment {file}: {notes[0]}; this segment's "
                                f"_step continues after the {sum(r.get('type') == 'history' for r in found)} "
                                f"rows it holds")
                records += found
            for record in records:
                if record.get("type") == "history":
                    step = record["history"].get("step", {}).get("num")
                    step = record["history"].get("item", {}).get("_step", step)
                    if step is not None:
                        last = max(last, int(step))
                    global_step = record["history"].get("item", {}).get("trainer/global_step")
                    if isinstance(global_step, int | float):
                        logged_to = max(logged_to, int(global_step))
        except (RunReadError, ValueError, TypeError) as err:
            log.warning(f"W&B's _step cannot continue after {folder}: {err}")
    if run.id == resumed_id and earlier and resumed_step is not None and resumed_step - logged_to > every:
        held = f"up to trainer/global_step {logged_to} only" if logged_to >= 0 else "no history row"
        without = _resumed_without_wandb(this.parent.parent)
        cause = (f"were trained by a resume without W&B ({without}), so its charts have a gap there"
                 if without else "were lost when its processes were stopped (W&B's helper process too: a "
                 "kill, SLURM's scancel) before W&B wrote them to disk, so its charts have a gap there")
        log.warning(f"highwaylab: W&B run {run.id}'s earlier offline segments hold {held}, but the "
                    f"checkpoint it resumes from is at step {resumed_step}: the rows of steps "
                    f"{logged_to + 1}..{resumed_step} {cause}; the run's train.log holds those epochs' "
                    f"lines")
    if last < 0 or run.step > last:
        return None
    run.log({}, step=last + 1, commit=False)
    log.info(f"Continuing W&B's _step at {last + 1}, after {len(earlier)} earlier offline segment(s)")
    return last + 1


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------

def _key_value(override: str) -> tuple[str, str]:
    """``("optim", "adamw")`` for ``optim=adamw``, ``++optim=adamw`` or ``~optim``; the key of
    ``model@x=y`` is ``model``."""
    text = override.lstrip("~+")
    key, _, value = text.partition("=")
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":  # a quoted value
        value = value[1:-1]
    return key.split("@")[0].strip(), value


def _sweep_values(value: str | None) -> list[str]:
    if value is None:
        return []
    return [v for v in value.split(",")] if "," in value and not value.startswith(("[", "{")) else [value]


def _quote(path: Path) -> str:
    """``path`` as an override value: quoted if Hydra's grammar needs it (spaces, '=', ',', ...)."""
    return hydra_value(path)


def _compose(config_dir: Path, config_name: str, overrides: list[str]) -> DictConfig | None:
    """The config of ``train.py <overrides>``, or ``None`` if Hydra refuses it (Hydra says why when
    it composes it again)."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.errors import HydraException
    from omegaconf.errors import OmegaConfBaseException

    from highwaylab.utils.hydra_utils import register_resolvers

    register_resolvers()
    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(version_base="1.3", config_dir=str(Path(config_dir).resolve())):
            return compose(config_name, overrides=overrides, return_hydra_config=True)
    except (HydraException, OmegaConfBaseException, ValueError) as err:
        log.debug(f"not composed ({err}); Hydra reports it")
        _last_compose_error[0] = err
        return None
    finally:
        GlobalHydra.instance().clear()


_last_compose_error: list[BaseException | None] = [None]  # why the latest _compose returned None


def _read(ckpt: Path, name: str, overrides: list[str] | None = None, resume: bool = False) -> dict:
    """The checkpoint ``ckpt`` (:func:`highwaylab.train.read_checkpoint`); for a damaged one, the fix
    is the command that continues from the run's latest other checkpoint (with ``overrides``), or,
    for ``resume=`` of a run without another, the one that starts it again."""
    from highwaylab.train import read_checkpoint

    run = run_of(ckpt)
    others = [p for p in _checkpoints(ckpt.parent) if p.name != ckpt.name]
    fix = None
    if run is not None and others:
        fix = (f"resume from another of the run's checkpoints: "
               f"{continue_command(run, others[-1], overrides)}")
    elif run is not None and resume:
        fix = (f"the run has no other checkpoint: start it again, in a new folder: "
               f"{_command(overrides if overrides is not None else run_overrides(run))}")
    try:
        return read_checkpoint(str(ckpt), name, fix)
    except ConfigError as err:
        raise ResumeError(str(err)) from None


def _check_weights(cfg: DictConfig, ckpt_path: str, checkpoint: dict) -> None:
    """Raises ResumeError when the checkpoint's data set (its data module's ``dataset``) is not the
    run's, or when the backbone's weights in ``checkpoint`` do not fit the model of
    ``cfg`` (:func:`highwaylab.train.check_checkpoint`, with the backbone built on the meta device),
    so that a checkpoint of another model is named as that, before anything about its progress."""
    from highwaylab.train import backbone_weights, check_checkpoint

    written = (checkpoint.get("datamodule_hyper_parameters") or {}).get("dataset")
    dataset = _select(cfg, "data.dataset")
    if written is not None and dataset is not None and written != dataset:
        raise ResumeError(f"ckpt_path={ckpt_path}: the checkpoint was written by a run of "
                          f"data.dataset={written} (its data module's settings), and this run has "
                          f"data.dataset={dataset}: its best score and the weights' training would be "
                          f"another data set's. Fix: data={written}, or start a new run without ckpt_path")
    expected = backbone_weights(cfg)
    try:
        if expected is not None:
            check_checkpoint(checkpoint, ckpt_path, expected, prefix="net.")
    except ConfigError as err:
        raise ResumeError(str(err)) from None


def _check_run_weights(cfg: DictConfig, ckpt: Path, checkpoint: dict, run: Path,
                       overrides: list[str]) -> None:
    """Raises ResumeError when the checkpoint that ``resume=<run>`` continues from does not hold the
    run's own model (``cfg``: the run's record and the extra overrides), or holds NaN/inf weights
    (:func:`highwaylab.train.check_checkpoint`, the backbone built on the meta device). For another
    model's, the fix offers the run's latest other checkpoint that holds its model, continued with
    ``overrides`` (breaking pass 42, row 29: before, only "put the run's own last.ckpt back")."""
    from highwaylab.train import backbone_weights, check_checkpoint

    expected = backbone_weights(cfg)
    if expected is None:
        return
    name = f"resume={run}: {ckpt}"

    def fits(path: Path) -> bool:
        import torch

        try:
            check_checkpoint(torch.load(path, map_location="cpu", weights_only=True), str(path), expected,
                             prefix="net.")
            return True
        except Exception:  # damaged, or another model's too: not offered
            return False

    def fix() -> str:  # for another model's: first, is the record the run's? (rows 52, 64)
        record_not_the_runs(run, cfg, ckpt, checkpoint)
        others = [p for p in _checkpoints(ckpt.parent) if p.name != ckpt.name]
        other = next((p for p in reversed(others) if fits(p)), None)
        instead = (f"; or resume from the run's {other.name}, which holds its model: "
                   f"{continue_command(run, other, overrides)}" if other is not None else "")
        return (f"It is not the checkpoint this run wrote (its record, .hydra/, is the model above): "
                f"replaced or copied in? Fix: put the run's own {ckpt.name} back{instead}; or start a new "
                f"run")

    try:
        check_checkpoint(checkpoint, str(ckpt), expected, prefix="net.", fix=fix, name=name)
    except ConfigError as err:
        raise ResumeError(str(err)) from None


def record_not_the_runs(run: Path, cfg: DictConfig, ckpt: Path, checkpoint: dict) -> None:
    """Raises ResumeError when ``checkpoint`` (``ckpt``), which does not hold the model of the run's
    record (``cfg``), holds the model that the run ran with (its latest ``config_resolved*.yaml``): the
    record, not the checkpoint, is then what changed, edited or copied from another run (breaking pass
    42, rows 52 and 64: before, "It is not the checkpoint this run wrote ... put the run's own
    last.ckpt back", of the run's own checkpoint)."""
    from highwaylab.train import backbone_weights, check_checkpoint

    latest = latest_resolved(run)
    try:
        ran = OmegaConf.load(latest)
        expected = backbone_weights(ran) if isinstance(ran, DictConfig) else None
        if expected is None:
            return
        check_checkpoint(checkpoint, str(ckpt), expected, prefix="net.")
    except Exception:  # no readable record of what it ran with, or the checkpoint fits neither
        return
    changed = [(k, _select(cfg, k), _select(ran, k)) for k in IDENTITY]
    changed = [(k, a, b) for k, a, b in changed if a != b and b is not None and not _same_activation(k, a, b)]
    given = ", ".join(f"{k}={_short(a)}" for k, a, _ in changed[:4]) or "another model"
    used = ", ".join(f"{k}={_short(b)}" for k, _, b in changed[:4]) or "the model"
    raise _record_changed(run, given, used, f"its {latest.name}, and its {ckpt.name} holds that model")


def latest_resolved(run: Path) -> Path:
    """The run's latest record of the values it ran with: its latest
    ``config_resolved.resumed_<date>_<time>.yaml``, else ``config_resolved.yaml`` (which may not exist)."""
    records = sorted(run.glob("config_resolved.resumed_*.yaml"))
    return records[-1] if records else run / "config_resolved.yaml"


def _record_changed(run: Path, given: str, used: str, evidence: str) -> ResumeError:
    """The error for a run whose record (``.hydra/``) gives ``given`` (``key=value, ...``) where the run
    ran with ``used``, as ``evidence`` (its ``config_resolved.yaml`` and its checkpoint) shows."""
    return ResumeError(f"resume={run}: the run's record ({RECORD}/overrides.yaml and config.yaml) gives "
                       f"{given}, but the run ran with {used} ({evidence}): the record was edited, or "
                       f"copied from another run. Fix: put the run's own record back (as it ran: {used}), or "
                       f"start a new run")


def _holds_training_state(ckpt: Path) -> bool:
    """Whether the checkpoint file ``ckpt`` holds a training state that Lightning resumes from (its
    optimizer and loop states), not weights alone (``save_weights_only``); ``False`` for a file that
    cannot be read."""
    import torch

    from highwaylab.utils.checkpoint_io import TRAINING_STATE  # resumable()'s own test

    try:
        checkpoint = torch.load(ckpt, map_location="cpu", weights_only=False, mmap=True)
    except Exception:  # noqa: BLE001 - a damaged file: not one to continue from
        return False
    return isinstance(checkpoint, dict) and all(k in checkpoint for k in TRAINING_STATE)


def _checkpoints(folder: Path) -> list[Path]:
    """The ``*.ckpt`` files in ``folder``, oldest first (by modification time)."""
    if not folder.is_dir():
        return []
    found = (p for p in folder.glob("*.ckpt") if p.is_file())
    return sorted(found, key=lambda p: (p.stat().st_mtime, p.name))


def _checkpoints_under(run: Path) -> list[Path]:
    """The ``*.ckpt`` files anywhere in the folder ``run`` (Lightning's default checkpoint of a run
    without ``ModelCheckpoint`` callbacks: ``<logger>/version_N/checkpoints/epoch=E-step=S.ckpt``),
    oldest first (by modification time)."""

    def nested(p: Path) -> bool:  # inside another run's folder within this one (pass 37, row 53)
        parts = p.relative_to(run).parts
        return any((run.joinpath(*parts[:i]) / RECORD).is_dir() for i in range(1, len(parts)))

    found = (p for p in run.rglob("*.ckpt") if p.is_file() and "wandb" not in p.relative_to(run).parts
             and not nested(p))
    return sorted(found, key=lambda p: (p.stat().st_mtime, str(p)))


def _not_from_this(ckpt: Path, run: Path, extra: list[str] | tuple[str, ...] = ()) -> str:
    """For ``resume=<a checkpoint>`` other than the run's ``last.ckpt``: that ``resume=<run>`` goes on
    from ``last.ckpt``, and the command that trains on from this checkpoint instead, a new run with the
    run's own overrides, those given with ``resume=`` (``extra``) over them, and ``ckpt_path=``
    (breaking pass 45, row 42: before, the fix silently went on from another state than the one named);
    ``""`` for ``last.ckpt``."""
    last = run / "checkpoints" / "last.ckpt"
    if ckpt.name == last.name or not last.is_file():
        return ""
    try:
        recorded = yaml.safe_load((run / RECORD / "overrides.yaml").read_text()) or []
    except (OSError, ValueError):
        recorded = []
    given = [o for o in extra if _key_value(o)[0] != "resume"]
    dropped = {"resume", "ckpt_path", "hydra.run.dir", "hydra.sweep.dir", *(_key_value(o)[0] for o in given)}
    kept = [o for o in recorded if isinstance(o, str) and _key_value(o)[0] not in dropped]
    start = _command([*kept, *given, f"ckpt_path={hydra_value(str(ckpt.resolve()))}"])
    return (f", which goes on from its latest state ({last}), not from {ckpt.name}. To train on from "
            f"{ckpt.name} itself, start a new run from it (the run stays as it is): {start}")


def start_job_again(job: Path, overrides: list[str]) -> str:
    """How to run a sweep's job that wrote no checkpoint (interrupted or failed before it) again into
    its folder, where the report finds it and the run joins the sweep's W&B group: the folder removed
    first (it holds only the record and log of that start: a new run there is refused otherwise),
    then its own ``overrides`` with ``hydra.run.dir=<job>``."""
    return (f"rm -r {shlex.quote(str(job))} (it holds no checkpoint), then "
            f"{_command([*overrides, f'hydra.run.dir={hydra_value(str(job.resolve()))}'])}")


def _command(overrides: list[str]) -> str:
    """``python train.py <overrides>``, each quoted for the shell where it needs it."""
    return " ".join(["python", "train.py", *(shell_word(o) for o in overrides)])


def _load_yaml(path: Path, name: str, what: str, fix: str, load: Callable[[Path], Any] | None = None) -> Any:
    """The YAML file ``path`` of a run's record, which holds ``what``, loaded (by ``load``; default
    ``yaml.safe_load``).

    Raises:
        ResumeError: not valid YAML (names the file, the line and ``fix``), or not readable.
    """
    try:
        return load(path) if load is not None else yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        problem = getattr(err, "problem", None) or " ".join(str(err).split())
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ResumeError(f"{name}: {path} is not valid YAML{where} ({problem}); resume= reads {what} "
                          f"from it. Fix: {fix}") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ResumeError(f"{name}: {path} cannot be read ({type(err).__name__}: "
                          f"{getattr(err, 'strerror', None) or err}); resume= reads {what} from it. Fix: "
                          f"make it readable, or start a new run") from None


def _item_line(path: Path, index: int) -> int | str:
    """The line (1-based) of item ``index`` of the YAML list in ``path``; ``"?"`` if not found."""
    try:
        node = yaml.compose(path.read_text())
        return node.value[index].start_mark.line + 1
    except Exception:  # only for a message
        return "?"


def _load_config(path: Path, name: str) -> DictConfig:
    """A run's recorded config (``.hydra/config.yaml``), as OmegaConf reads it (an empty one if the
    file holds no mapping).

    Raises:
        ResumeError: not readable, or not valid YAML (see :func:`_load_yaml`).
    """
    loaded = _load_yaml(path, name, "the run's config", "repair that line (Hydra wrote the run's config "
                        "there), or start a new run", load=OmegaConf.load)
    return loaded if isinstance(loaded, DictConfig) else OmegaConf.create()


def _own_value(run: Path, key: str, name: str) -> Any:
    """The value of ``key`` in the latest record of ``run`` (``.hydra/config.yaml``, or the latest
    ``.hydra/resumed_*/config.yaml``): the run's own setting; ``None`` if not set."""
    record = _latest_record(run, "config.yaml")
    return _select(_load_config(record, name), key) if record is not None else None


def run_metrics(run: Path) -> dict | None:
    """The run's ``metrics.json``, or ``None`` if it is missing, unreadable or not a mapping."""
    try:
        metrics = json.loads((run / "metrics.json").read_text())
    except (OSError, ValueError):
        return None
    return metrics if isinstance(metrics, dict) else None


def _result_at(run: Path, step: int) -> bool:
    """Whether ``run``'s ``metrics.json`` is the result of the checkpoint of ``step`` (its
    ``global_step``): the run ended there."""
    metrics = run_metrics(run)
    return metrics is not None and metrics.get("global_step") == step


def _extended(run: Path, cfg: DictConfig, name: str) -> bool:
    """Whether ``cfg`` trains longer than the run's own record (``trainer.max_epochs`` or
    ``trainer.max_steps`` raised by the resume's extra overrides, or a ``trainer.max_time`` that
    ended the run raised or removed: Lightning's timer goes on from the time the checkpoint counted;
    breaking pass 44, row 49: before, such a run could not be continued)."""
    for key in ("trainer.max_epochs", "trainer.max_steps"):
        own, new = _own_value(run, key, name), _select(cfg, key)
        if isinstance(own, int) and isinstance(new, int) and new != own:
            return True
    own, new = _seconds(_own_value(run, "trainer.max_time", name)), _select(cfg, "trainer.max_time")
    return own is not None and (new is None or (_seconds(new) or 0) > own)


def check_signed_extension(run: Path, extra: list[str], checkpoint: dict) -> None:
    """Raises ResumeError for ``trainer.max_epochs=+2`` (or ``max_steps``) given with ``resume=``: Hydra
    reads ``+2`` as the number 2, the run's total, not 2 more (breaking pass 90, row 69: a finished
    1-epoch run trained 1 epoch more, where 2 were meant, without a word). The fix names the total
    that gives that many more, from the checkpoint's progress."""
    progress = checkpoint_progress(checkpoint)
    for override in extra:
        key, value = _key_value(override)
        if key.lstrip("+~") not in ("trainer.max_epochs", "trainer.max_steps") or value is None:
            continue
        signed = re.fullmatch(r"\s*\+\s*(\d+)\s*", value)
        if signed is None:
            continue
        done = progress.epochs if key.endswith("max_epochs") else progress.step
        unit = "epochs" if key.endswith("max_epochs") else "steps"
        name = key.lstrip("+~")
        raise ResumeError(f"resume={run} {override}: the '+' sign does not add: {name} is the run's total "
                          f"({signed[1]} {unit} in all), and the run has done {done}. Fix: "
                          f"{name}={done + int(signed[1])} for {signed[1]} more")


def check_time_left(cfg: DictConfig, checkpoint: dict, name: str, run: Path | None) -> None:
    """Refuse a ``trainer.max_time`` that the checkpoint's training time has already reached.

    Lightning's ``Timer`` callback (which the Trainer adds for ``max_time``) keeps the seconds trained
    in the checkpoint (``callbacks['Timer']['time_elapsed']['train']``) and, restored, counts on from
    them, for ``resume=`` and for a new run's ``ckpt_path=`` alike; it stops training once they reach
    the limit, so such a run would stop before its first step, train nothing and exit 0 (breaking pass
    87, rows 60 and 68, major: ``resume=`` with ``trainer.max_epochs=5`` alone, and ``ckpt_path=`` with
    the same limit, each wrote a result of nothing, the second naming the other run's checkpoint).

    Args:
        cfg: the run's composed config (its ``trainer.max_time``, if any).
        checkpoint: the loaded checkpoint.
        name: ``resume=<run>`` or ``ckpt_path=<file>``, to begin the message with.
        run: the run folder for ``resume=``; ``None`` for ``ckpt_path=``.

    Raises:
        ResumeError: the checkpoint's training time (in seconds) is at or above ``trainer.max_time``;
            one line, naming both times and a longer limit (or none) as the fix.
    """
    limit = _seconds(_select(cfg, "trainer.max_time"), exact=True)
    timer = (checkpoint.get("callbacks") or {}).get("Timer")
    elapsed = ((timer or {}).get("time_elapsed") or {}).get("train") if isinstance(timer, dict) else None
    if limit is None or not isinstance(elapsed, int | float) or elapsed < limit:
        return
    from highwaylab.config_checks import as_given
    from highwaylab.utils.loggers import cli_text

    more = _as_max_time(math.ceil(elapsed + max(limit, 1.0)))
    given = f"trainer.max_time={cli_text(_select(cfg, 'trainer.max_time'))}"
    if run is not None:
        kept = "".join(f" {shell_word(o)}" for o in GIVEN_WITH_RESUME
                       if _key_value(o)[0] != "trainer.max_time")
        fix = (f"give it more time: python train.py {override_arg('resume', run)}{kept} "
               f"trainer.max_time={more} (or trainer.max_time=null for no limit)")
    else:
        key = as_given("trainer.max_time")  # checked before Hydra too: then as the command line gave it
        fix = f"a longer limit in place of the given one, e.g. {key}={more}, or {key}=null for none"
    raise ResumeError(
        f"{name}: {given} ({limit:g} s) is already spent: the checkpoint's timer has counted {elapsed:.1f} "
        f"s of training, and Lightning counts on from it, so the run would stop before its first step and "
        f"train nothing. Fix: {fix}")


def _as_max_time(seconds: int) -> str:
    """``seconds`` as ``trainer.max_time``'s ``DD:HH:MM:SS``."""
    minutes, secs = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    days, hours = divmod(hours, 24)
    return f"{days:02d}:{hours:02d}:{minutes:02d}:{secs:02d}"


def _seconds(max_time: Any, exact: bool = False) -> Any:
    """``trainer.max_time`` (``DD:HH:MM:SS``, or a mapping of ``days``, ``hours``, ``minutes``,
    ``seconds``) in whole seconds, or with ``exact`` as a float (``{minutes: 0.03}`` is 1.8 s, the
    limit Lightning's timer compares with); ``None`` when unset or not one of those."""
    if isinstance(max_time, str) and re.fullmatch(r"\d+:\d+:\d+:\d+", max_time.strip()):
        days, hours, minutes, seconds = (int(p) for p in max_time.strip().split(":"))
        return ((days * 24 + hours) * 60 + minutes) * 60 + seconds
    if isinstance(max_time, dict | DictConfig):
        units = {"days": 86400, "hours": 3600, "minutes": 60, "seconds": 1, "milliseconds": 1e-3,
                 "microseconds": 1e-6, "weeks": 604800}
        try:
            total = sum(float(max_time.get(u, 0) or 0) * s for u, s in units.items())
            return total if exact else int(total)
        except (TypeError, ValueError):
            return None
    return None


def _tested(run: Path | None, step: int, test: bool = False) -> bool:
    """Whether ``run`` has a result (``metrics.json``) of the checkpoint of ``step``: written after
    the test that follows training; with ``test`` (the resume asks for the test), a result with its
    ``test/acc`` (a run with ``test=false`` wrote one without); ``True`` when the run folder is
    unknown (as before)."""
    if run is None:
        return True
    metrics = run_metrics(run)
    if metrics is None or metrics_problem(metrics, run) is not None:
        return False  # missing, unreadable or edited: completing the run writes it again
    if test and "test/acc" not in metrics:
        return False  # trained with test=false: test=true completes it
    written = metrics.get("global_step")
    return written is None or written == step


def metrics_problem(metrics: object, folder: Path | None = None) -> str | None:
    """Why a run's ``metrics.json`` (loaded: ``metrics``; of the run in ``folder``, where given) is not
    its result: not a JSON object, a value the report reads (``depth``, ``train/loss``, ``test/acc``)
    that is not a number (``null``, a NaN the run wrote, is one), an edited or foreign file; or, of a
    multirun's job, a file whose ``best_ckpt`` is in another job's folder (``<n>_<name>``, another
    ``n``: copied from that job; breaking pass 45, row 56: the report averaged it as a second seed);
    ``None`` if it is. A resume of such a run tests it again and writes the file (breaking pass 43,
    row 16: before, resume= called the run finished, and the report's fix, that resume, was refused)."""
    if not isinstance(metrics, dict):
        return f"is not a JSON object (a {type(metrics).__name__})"
    if not metrics:  # pass 88, row 49: before, the report's line under its table said "incomplete" alone
        return "holds no metrics (an empty object {}: edited, or cut short?)"
    best = metrics.get("best_ckpt")
    if folder is not None and isinstance(best, str) and best:
        other = Path(best).parent.parent.name  # <run>/checkpoints/<file>
        ours, theirs = (re.match(r"(\d+)_", name) for name in (Path(folder).name, other))
        if ours and theirs and ours.group(1) != theirs.group(1):
            return f"is another job's: its best_ckpt is {best}, in job {theirs.group(1)}'s folder (copied?)"
    for key in ("depth", "train/loss", "test/acc"):
        value = metrics.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            return f"has {key}={value!r}, not a number"
        if isinstance(value, float) and not math.isfinite(value):  # JSON's NaN, by hand (pass 34, row 47:
            return f"has {key}={value}, not a finite number (edited? train.py writes null)"  # a traceback)
    return None


def run_of(ckpt: Path) -> Path | None:
    """The run folder that holds ``ckpt`` as ``<run>/checkpoints/<file>``, if it has a record."""
    run = Path(ckpt).expanduser().resolve().parent.parent
    return run if (run / RECORD / "config.yaml").is_file() else None


def _run_files(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    return [name + ("/" if (folder / name).is_dir() else "") for name in RUN_FILES
            if (folder / name).exists()]


def _inside(path: Path, folder: Path) -> bool:
    try:
        Path(path).expanduser().resolve().relative_to(Path(folder).expanduser().resolve())
        return True
    except ValueError:
        return False


def _select(cfg: DictConfig, key: str) -> Any:
    """The value at ``key``, resolved when it can be, else as written; ``None`` if missing."""
    try:
        value = OmegaConf.select(cfg, key, throw_on_resolution_failure=True)
    except Exception:
        value = OmegaConf.select(cfg, key, throw_on_resolution_failure=False)
    if isinstance(value, DictConfig | ListConfig):
        return OmegaConf.to_container(value, resolve=False)
    return value


def _plain(cfg: DictConfig, key: str) -> Any:
    node = OmegaConf.select(cfg, key, throw_on_resolution_failure=False)
    if isinstance(node, DictConfig | ListConfig):
        value = OmegaConf.to_container(node, resolve=False)
    else:
        value = node
    if isinstance(value, dict) and key in FREE:
        value = {k: v for k, v in value.items() if k not in FREE[key]}
    return value


def _differences(base: DictConfig, cfg: DictConfig) -> list[tuple[str, Any, Any]]:
    """``(dotted key, base value, cfg value)`` for each bound key (``BOUND``) that differs."""
    found: list[tuple[str, Any, Any]] = []

    def walk(path: str, a: Any, b: Any) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in list(a) + [k for k in b if k not in a]:
                walk(f"{path}.{k}", a.get(k), b.get(k))
        elif (a != b or type(a) is not type(b)) and not _same_activation(path, a, b):
            found.append((path, a, b))  # 3.0 and True are not depth 3 and 1 (pass 95, rows 15, 42)

    for key in BOUND:
        walk(key, _plain(base, key), _plain(cfg, key))
    return found


def _class_default(cfg: DictConfig, path: str, value: Any) -> bool:
    """Whether ``path`` (``optim.optimizer.nesterov``), which ``cfg`` leaves out, is an argument of
    the class its node builds (``_target_``) whose default is ``value``, of the same type: the run
    ran with it. Imports that class (torch's, for an optimiser) only then."""
    import inspect

    from hydra.utils import get_object

    parent, _, name = path.rpartition(".")
    target = OmegaConf.select(cfg, f"{parent}._target_", default=None) if parent else None
    if not isinstance(target, str):
        return False
    try:
        default = inspect.signature(get_object(target)).parameters[name].default
    except Exception:  # noqa: BLE001  no such class or argument, or no signature: a change, as before
        return False
    return default is not inspect.Parameter.empty and type(default) is type(value) and default == value


def _same_number(old: Any, new: Any) -> bool:
    """Whether ``new`` is the number ``old`` of another type: ``3.0``, ``True`` (for 1), or text
    that reads as it (``'03'``: Hydra reads a leading zero as text)."""
    if not isinstance(old, int | float) or type(old) is type(new):
        return False
    if isinstance(new, str):
        try:
            return float(new) == old
        except ValueError:
            return False
    return isinstance(new, int | float) and new == old


def _kind(value: Any) -> str:
    """``value``'s type in words: ``an integer``, ``a float``, ``a boolean``, ``text``."""
    return ("a boolean" if isinstance(value, bool) else "an integer" if isinstance(value, int) else
            "a float" if isinstance(value, float) else "text" if isinstance(value, str) else
            f"a {type(value).__name__}")


def _same_activation(path: str, old: Any, new: Any) -> bool:
    """Whether ``old`` and ``new`` at ``path`` are one activation in two spellings
    (``model.activation``: ``Relu`` and ``relu`` build the same ``nn.ReLU``)."""
    from highwaylab.models.spec import activation_key

    return (path == "model.activation" and isinstance(old, str) and isinstance(new, str)
            and activation_key(old) == activation_key(new))


def _covers(key: str, path: str) -> bool:
    """Whether an override of ``key`` (e.g. ``optim``, ``model.activation``) sets ``path``."""
    key = key.replace("/", ".")
    return path == key or path.startswith(key + ".") or key.startswith(path + ".")


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."
