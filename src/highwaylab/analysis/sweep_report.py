"""The depth report of a multirun [TVDN Figure 1]: final training loss and test accuracy against
depth, one line per model, seeds as mean +- standard deviation; training-loss curves per depth.

Everything is read from the sweep's files: each job folder's ``.hydra/`` (model, depth and seed from
``config.yaml`` and ``hydra.yaml``, the job's overrides from ``overrides.yaml``), ``metrics.json``,
and its offline W&B run (the ``train/loss_step`` history), plus the sweep's ``summary.jsonl``
(failed jobs and their errors).

**What a point is, and what its seeds are** (:func:`aggregate`). The finished jobs are grouped by
model, depth and every other key the sweep varies (an override whose value differs between the
finished jobs, e.g. ``optim.optimizer.lr`` or ``width``), everything but ``seed``: jobs that differ
in anything but their seed are never averaged as if they were seeds of one configuration; such keys
become columns of the table and part of each line's label. Within a group, ``seeds`` (``n``) is the
number of *distinct* seeds. Jobs that repeat a seed of their group (the same overrides run twice,
e.g. ``-m seed=0,0``) are not independent draws: they are counted as one seed whose result is the
mean of theirs, the mean and standard deviation are taken over the distinct seeds, and each such
group is reported in one warning line (and under the table) naming the seed and the jobs.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.sweep_report", tool="python -m highwaylab.report")

import csv
import glob
import json
import math
import os
import shlex
import statistics
import textwrap
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib
import yaml

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation, LogLocator, MaxNLocator, NullFormatter  # noqa: E402
from omegaconf import DictConfig, OmegaConf  # noqa: E402

from highwaylab.utils.resume import metrics_problem, recorded_at  # noqa: E402
from highwaylab.utils.shell_args import hydra_value, override_arg  # noqa: E402
from highwaylab.utils.sweep import read_summary  # noqa: E402
from highwaylab.utils.wandb_offline import RunReadError, read_segment  # noqa: E402

LOSS, ACC, STEP = "train/loss", "test/acc", "trainer/global_step"
# the seed is what a point averages over; model and depth place it; the W&B group files a job, and
# changes nothing it trains (a job the sweep never started, run on its own into its group: pass 35, row 28)
NOT_SWEPT = ("seed", "model", "depth", "logger.wandb.group")
STATS = ("seeds", "jobs", "train_loss_mean", "train_loss_std", "test_acc_mean", "test_acc_std")


@dataclass
class Job:
    """One job of the sweep: its folder, model, depth, seed, final metrics, loss curve and overrides
    (``{key: value}`` of its ``.hydra/overrides.yaml``; see :func:`parse_overrides`)."""

    folder: Path
    model: str
    depth: int | str  # as written, for a job that failed on a value that is no integer (seed=x)
    seed: int | str
    status: str  # "ok", "failed" or "interrupted" (in summary.jsonl), or "incomplete" (no metrics.json)
    metrics: dict = field(default_factory=dict)
    error: str | None = None
    curve: list[tuple[int, float]] = field(default_factory=list)  # (step, train/loss_step)
    overrides: dict[str, str | None] = field(default_factory=dict)
    fast_dev_run: bool = False  # trainer.fast_dev_run (debug=fast): one batch each, a check, not a result


def collect_jobs(sweep_dir: str | Path) -> list[Job]:
    """Every job folder under ``sweep_dir`` (those with a ``.hydra/config.yaml``), in job order.

    Raises:
        FileNotFoundError: ``sweep_dir`` holds no job folder.
    """
    sweep_dir = Path(sweep_dir)
    summary = {Path(line["output_dir"]).name: line["status"] for line in read_summary(sweep_dir)}
    given_overrides = {Path(line["output_dir"]).name: list(line.get("overrides") or [])
                       for line in read_summary(sweep_dir)}
    ended = {Path(line["output_dir"]).name: (line["status"], line["error"])  # failed, or interrupted
             for line in read_summary(sweep_dir) if line["status"] != "ok"}
    jobs, skipped = [], []
    # the jobs with a record (.hydra/config.yaml), and those of summary.jsonl whose record is gone but whose
    # config_resolved.yaml is there (pass 75, row 72: before, left out, "Fix: put the file back")
    configs = {*sweep_dir.glob("*/.hydra/config.yaml"),
               *(sweep_dir / name / ".hydra" / "config.yaml" for name in given_overrides
                 if (sweep_dir / name / "config_resolved.yaml").is_file())}
    for config in sorted(configs, key=_job_number):
        folder = config.parent.parent
        try:
            cfg, model, lines = _job_record(folder, given_overrides.get(folder.name))
            overrides = parse_overrides(lines)
        except Exception as err:  # a damaged record: the job cannot be placed on the plot
            warnings.warn(f"{folder.name}: its .hydra record cannot be read ({_what_failed(err, folder)}); "
                          f"skipped", stacklevel=2)
            skipped.append(folder)  # said here: not again as absent
            continue
        metrics, (recorded, error) = {}, ended.get(folder.name, (None, None))
        if folder.is_symlink():  # pass 62, row 46: before, "copied?", and a resume= fix that resolved
            # the link to the other job's finished folder and was refused
            from highwaylab.utils.resume import _command
            from highwaylab.utils.shell_args import hydra_value

            target, here = Path(os.path.realpath(folder)), hydra_value(str(folder.absolute()))
            given = given_overrides.get(folder.name)
            again = (_command([*given, f"hydra.run.dir={here}"]) if given is not None else
                     f"python train.py <its overrides, in {sweep_dir / 'multirun.yaml'}> "
                     f"hydra.run.dir={here}")
            error = (f"its folder is a link to {target}, so it holds no result of its own. Fix: rm "
                     f"{shlex.quote(str(folder))} (the link), then run it again: {again}")
            warnings.warn(f"{folder.name}: {error}", stacklevel=2)
        elif (folder / "metrics.json").is_file():
            try:
                metrics = json.loads((folder / "metrics.json").read_text())
            except ValueError as err:  # not JSON, or not UTF-8 text (pass 32, row 50: a traceback)
                error = f"metrics.json cannot be read ({err})"
                warnings.warn(f"{folder.name}: its {error}; not in the table. {_rewrite(folder)}",
                              stacklevel=2)
                error += f". {_rewrite(folder)}"  # pass 39, row 23: before, not on its line under the table
            else:
                if (problem := metrics_problem(metrics, folder)) is not None:  # an edited or foreign file
                    metrics, error = {}, f"metrics.json {problem}. {_rewrite(folder)}"
        elif (folder / "metrics.json").exists():  # a folder (pass 31, row 59: "missing (deleted?)")
            error = "its metrics.json is not a file (a folder?)"
            warnings.warn(f"{folder.name}: {error}; not in the table. Fix: move it away (mv "
                          f"{shlex.quote(str(folder / 'metrics.json'))} <elsewhere>), then: "
                          f"{_rewrite(folder).removeprefix('Fix: ')}", stacklevel=2)
        elif summary.get(folder.name) == "ok":  # before: "incomplete", with no reason and no warning
            error = "its metrics.json is missing (deleted?), though summary.jsonl records the job as ok"
            warnings.warn(f"{folder.name}: {error}; not in the table. {_rewrite(folder)}", stacklevel=2)
            error += f". {_rewrite(folder)}"
        elif folder.name not in summary and (pid := _holder(folder)) is not None:
            # pass 43, row 57: before, the fix for a killed job (rm -r) was given for the job being trained
            error = (f"no metrics.json yet: the job is still running (process {pid or '?'} holds it); report "
                     f"again when it ends")
        elif folder.name not in summary:  # no process runs it: killed (SIGKILL, the OOM killer)
            error = error or "no metrics.json: the job did not finish, and no process runs it (killed?)"
            if (folder / "checkpoints" / "last.ckpt").is_file():  # pass 32, row 27: before, no fix
                resume = override_arg("resume", folder)
                error += f"; it saved its state: continue it with python train.py {resume}"
            else:  # pass 42, row 62: before, no fix and no warning line, before its first checkpoint
                from highwaylab.utils.resume import start_job_again

                error += f"; start it again: {start_job_again(folder, lines)}"
            warnings.warn(f"{folder.name}: {error}", stacklevel=2)
        status = "ok" if metrics else (recorded or "incomplete")
        depth = _whole(metrics.get("depth", cfg.get("depth") or 0))  # the backbone's own if it finished
        smoke = bool(OmegaConf.select(cfg, "trainer.fast_dev_run", default=False))
        jobs.append(Job(folder, model, depth, _whole(cfg.get("seed")), status, metrics,
                        error, loss_curve(folder), overrides, smoke))
    if not jobs and (sweep_dir / "multirun.yaml").is_file():  # pass 57, row 95: before, "give the folder
        raise FileNotFoundError(f"{sweep_dir} is a multirun that started no job (it holds multirun.yaml, "
                                f"no job folder <n>_<name>/): nothing to report. Run the sweep again (its "
                                f"command's overrides are in multirun.yaml, under hydra.overrides.task), "
                                f"then report it")  # of a multirun", which it is
    parent = sweep_dir.resolve().parent
    if not jobs and (sweep_dir / ".hydra").is_dir() and (
            (parent / "multirun.yaml").is_file() or (parent / "summary.jsonl").is_file()):
        # pass 72, row 31: a job's folder; before, "give the multirun's folder (python train.py -m ... makes
        # one)", which did not name the multirun it is a job of
        raise FileNotFoundError(f"{sweep_dir} is the folder of one job of the multirun {parent}: the report "
                                f"compares a multirun's jobs. Fix: python -m highwaylab.report "
                                f"{shlex.quote(str(parent))}")
    if not jobs and (sweep_dir / ".hydra").is_dir():  # pass 71, row 12: one run's folder
        raise FileNotFoundError(f"{sweep_dir} is the folder of one run (it holds .hydra/), not of a "
                                f"multirun: the report compares a multirun's jobs. Fix: give the multirun's "
                                f"folder (python train.py -m ... makes one under outputs/multiruns/); this "
                                f"run's results are in {sweep_dir / 'metrics.json'}")
    if not jobs:
        raise FileNotFoundError(f"{sweep_dir} holds no job folder (<n>_<name>/.hydra/config.yaml): "
                                "give the folder of a multirun, e.g. outputs/multiruns/<date>_<time>_<hex>")
    for note in absent_jobs(sweep_dir, [job.folder for job in jobs] + skipped):
        warnings.warn(note, stacklevel=2)
    return jobs


def _job_record(folder: Path, given: list[str] | None) -> tuple[DictConfig, str, list]:
    """``(config, model choice, overrides)`` of the job in ``folder``, from its ``.hydra`` record; when
    that cannot be read (deleted, damaged) and the job has a line in summary.jsonl (``given``: its
    overrides) and a ``config_resolved.yaml``, from those two, with a warning naming what is missing.

    Raises:
        Exception: the record cannot be read, and there is nothing to place the job by instead.
    """
    try:
        cfg = OmegaConf.load(folder / ".hydra" / "config.yaml")
        hydra_record = OmegaConf.load(folder / ".hydra" / "hydra.yaml").hydra
        choices = hydra_record.runtime.choices
        given_file = folder / ".hydra" / "overrides.yaml"  # deleted (pass 45, row 55: before, the job's
        task = OmegaConf.select(hydra_record, "overrides.task")  # columns read "(default)"): hydra.yaml's
        lines = (yaml.safe_load(given_file.read_text()) or []) if given_file.is_file() else \
            OmegaConf.to_object(task) if OmegaConf.is_list(task) else []  # none: Hydra did not write it
        return cfg, str(choices.get("model")), lines
    except Exception as err:
        resolved = folder / "config_resolved.yaml"
        if given is None or not resolved.is_file():
            raise
        failed = _what_failed(err, folder)
    cfg = OmegaConf.load(resolved)
    warnings.warn(f"{folder.name}: its .hydra record cannot be read ({failed}); the report places the job by "
                  f"its config_resolved.yaml and its line in summary.jsonl", stacklevel=3)
    return cfg, _model_choice(cfg, given), given


def _what_failed(err: BaseException, folder: Path) -> str:
    """What of a job's record could not be read: ``.hydra/hydra.yaml is missing`` for a file that is
    gone, else the error's type (pass 75, row 72x: before, "(FileNotFoundError)" alone)."""
    name = getattr(err, "filename", None)
    if isinstance(err, FileNotFoundError) and name:
        path = Path(name)
        if not path.parent.exists():  # the whole record folder: .hydra/ is missing
            path = path.parent
        shown = path.relative_to(folder) if path.is_relative_to(folder) else path
        return f"{shown}{'/' if path.suffix == '' else ''} is missing"
    return type(err).__name__


def _model_choice(cfg: DictConfig, given: list[str]) -> str:
    """The ``model`` option of a job without its Hydra record: as its overrides give it, else its W&B
    tag ``model:<option>``, else from the config (``conv_`` for a ``ConvBackbone``, then its block)."""
    chosen = [o.split("=", 1)[1] for o in given if o.split("=", 1)[0].lstrip("+") == "model" and "=" in o]
    if chosen:
        return chosen[-1]
    tags = OmegaConf.select(cfg, "logger.wandb.tags", default=None) or []
    tagged = [str(t).split(":", 1)[1] for t in tags if str(t).startswith("model:")]
    if tagged:
        return tagged[-1]
    target = str(OmegaConf.select(cfg, "model._target_", default=""))
    return f"{'conv_' if 'Conv' in target else ''}{OmegaConf.select(cfg, 'model.block', default='?')}"


def _whole(value: object) -> int | str:
    """``value`` (a job's recorded depth or seed) as an integer, or as written when it is none: a job
    that failed on ``seed=x`` (pass 41, row 66: before, the report's traceback in ``int('x')``)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return str(value)


def _rewrite(folder: Path) -> str:
    """The fix for a finished job whose metrics.json is gone or damaged (breaking pass 30, row 22: only
    a note under the table): its resume finds the run trained and runs its test again."""
    return (f"Fix: python train.py {override_arg('resume', folder)} tests it again and writes its "
            f"metrics.json")


def recorded_wandb(jobs: list[Job]) -> tuple[str | None, str | None]:
    """The W&B ``(project, group)`` that the jobs recorded (``logger.wandb.project`` and ``.group`` of
    each job's ``config_resolved.yaml``, else of its ``.hydra/config.yaml``), the most common among
    them; ``None`` for one that no job recorded (no W&B logger, or the default ``sweep-<folder>``
    group left as its interpolation)."""
    project, group = (c.most_common(1)[0][0] if c else None for c in map(
        lambda key: recorded_wandb_values(jobs, key), ("project", "group")))
    return project, group


def recorded_wandb_values(jobs: list[Job], key: str) -> Counter:
    """How many jobs recorded each value of ``logger.wandb.<key>`` (``project``, ``group``): plain
    strings only, not an interpolation left unresolved."""
    counter: Counter = Counter()
    for job in jobs:
        wandb_cfg = recorded_logger(job.folder, "wandb")
        value = wandb_cfg.get(key) if isinstance(wandb_cfg, dict) else None
        if isinstance(value, str) and value and "${" not in value:
            counter[value] += 1
    return counter


def ungrouped(jobs: list[Job]) -> bool:
    """Whether every job that logged to W&B recorded ``logger.wandb.group`` as null (no group), and
    at least one did."""
    nodes = [n for n in (recorded_logger(job.folder, "wandb") for job in jobs) if isinstance(n, dict)]
    return bool(nodes) and all("group" in node and node["group"] is None for node in nodes)


# the class of each logger preset, by its name: an own logger of that class counts as the preset
LOGGER_CLASSES = {"csv": "CSVLogger", "wandb": "WandbLogger", "tensorboard": "TensorBoardLogger"}


def recorded_logger(folder: Path, name: str) -> object:
    """The ``logger.<name>`` node a job recorded (:func:`recorded_value`), else its first logger of
    the same class (``logger.mycsv``, an own file's ``CSVLogger``: pass 70, row 48, before, "no job
    logged its training loss ... to a CSV logger", of jobs that had)."""
    node = recorded_value(folder, f"logger.{name}")
    loggers = recorded_value(folder, "logger")
    if isinstance(node, dict) or not isinstance(loggers, dict) or name not in LOGGER_CLASSES:
        return node
    return next((n for n in loggers.values() if isinstance(n, dict)
                 and str(n.get("_target_", "")).endswith(LOGGER_CLASSES[name])), node)


def recorded_value(folder: Path, key: str) -> object:
    """The value of the dotted ``key`` that the job in ``folder`` recorded: of its
    ``config_resolved.yaml`` (the values used), else of its ``.hydra/config.yaml``; ``None`` when
    neither can be read or holds it."""
    absent = object()
    for record in ("config_resolved.yaml", ".hydra/config.yaml"):
        if (value := recorded_at(folder / record, key, absent)) is not absent:
            return value
    return None


def absent_jobs(sweep_dir: Path, folders: list[Path]) -> list[str]:
    """One line for each job of the sweep that the report cannot show: a job of ``summary.jsonl``
    whose folder is gone, and, for a sweep of Hydra's basic sweeper (its ``multirun.yaml``), a job
    it would have launched that has neither a folder nor a line (the sweep stopped before it: a
    signal, a crash)."""
    present = {folder.name for folder in folders}
    notes = []
    for line in read_summary(sweep_dir):
        name = Path(line["output_dir"]).name
        if name in present:
            continue
        if (sweep_dir / name).is_dir():  # there, but without its record (pass 34, row 33: "its folder is
            notes.append(f"{name}: its record {name}/.hydra/config.yaml is missing (deleted?), so the report "
                         f"cannot place the job (model, depth, seed); summary.jsonl records it as "
                         f"{line['status']}. Fix: put the file back")  # missing", of a folder there)
        elif (sweep_dir / name).exists():  # pass 48, row 38: before, "missing (moved or deleted?)"
            notes.append(f"{name}: a file, not the job's folder, stands at {sweep_dir / name}; summary.jsonl "
                         f"records the job as {line['status']}. Fix: move the file away (mv "
                         f"{shlex.quote(str(sweep_dir / name))} <elsewhere>) and put the job's folder back")
        elif (renamed := next((p for p in sorted(present) if p.split("_", 1)[0] == name.split("_", 1)[0]),
                              None)) is not None:  # pass 38, row 37: before, "missing (moved or deleted?)"
            notes.append(f"{name}: not under that name; {renamed} holds job {name.split('_', 1)[0]} "  # of a
                         f"(renamed?), and the report reads it there")  # folder the table counted
        else:
            notes.append(f"{name}: its folder is missing (moved or deleted?); summary.jsonl records it as "
                         f"{line['status']}")
    # a job's number: its folder's <n>_, its summary.jsonl line's, or its own record's (hydra.job.num: a
    # hydra.sweep.subdir of its own, run_${hydra.job.num}; pass 95, row 45b: before, "did not run", and a
    # command that trained the finished job again)
    numbers = {name.split("_", 1)[0] for name in present} | {
        Path(line["output_dir"]).name.split("_", 1)[0] for line in read_summary(sweep_dir)} | {
        str(line["job"]) for line in read_summary(sweep_dir) if isinstance(line.get("job"), int)} | {
        str(number) for folder in folders
        if isinstance(number := recorded_at(folder / ".hydra" / "hydra.yaml", "hydra.job.num"), int)}
    try:
        from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
        from hydra.core.override_parser.overrides_parser import OverridesParser

        record = OmegaConf.load(sweep_dir / "multirun.yaml").hydra
        if "BasicSweeper" not in str(record.sweeper.get("_target_")):
            return notes
        parsed = OverridesParser.create().parse_overrides(list(record.overrides.task))
        launched = [job for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]
    except Exception:  # no record, or a sweep this cannot expand (glob over groups): lines only
        return notes
    group = recorded_group(folders)
    live = running_job(sweep_dir)
    for number, overrides in enumerate(launched):
        if str(number) not in numbers:
            swept = [o for o in overrides if o not in record.overrides.task]
            if live is not None:  # pass 38, row 51: before, "the sweep stopped before it", and a command
                name, pid = live  # that would have run the job twice, of a sweep still running
                who = f"process {pid}" if pid else "another process"
                notes.append(f"job {number} ({' '.join(swept) or ' '.join(overrides)}) has not run yet: the "
                             f"sweep is still running ({name} is held by {who}); report again when it ends")
                continue
            notes.append(f"job {number} ({' '.join(swept) or ' '.join(overrides)}) did not run: the sweep "
                         f"stopped before it. Fix: run it on its own into this sweep's folder, where the "
                         f"report finds it: {missing_job_command(sweep_dir, number, overrides, group)}")
    return notes


def _holder(folder: Path) -> int | None:
    """The process id that holds the run lock of the job in ``folder`` (0 when unknown:
    :mod:`highwaylab.utils.run_lock`), or ``None`` when no live process holds it."""
    from highwaylab.errors import ConfigError
    from highwaylab.utils.run_lock import holder

    try:
        return holder(folder)
    except ConfigError:  # something else than a file at its lock path: not a live run
        return None


def running_job(sweep_dir: Path) -> tuple[str, int] | None:
    """``(job folder name, process id)`` of a job of the sweep whose run is still running (it holds
    its run lock: :mod:`highwaylab.utils.run_lock`; process id 0 when unknown), or ``None``."""
    for folder in sorted(p for p in sweep_dir.iterdir() if p.is_dir()):
        if (pid := _holder(folder)) is not None:
            return folder.name, pid
    return None


def missing_job_command(sweep_dir: Path, number: int, overrides: list[str], group: str | None) -> str:
    """The command that runs job ``number`` of a sweep (its ``overrides``) on its own, into the job
    folder ``<sweep_dir>/<number>_<run_name>`` that the sweep would have given it, in W&B ``group``
    (the sweep's), so that the report and the W&B group show it with the others (breaking pass 35,
    row 28: before, "run it alone ... or the sweep again", and the sweep was refused in its folder)."""
    folder = str(sweep_dir.resolve())
    run_dir = (shlex.quote(f"hydra.run.dir={folder}/{number}_${{run_name}}") if hydra_value(folder) == folder
               else override_arg("hydra.run.dir", f"{folder}/{number}_job"))
    words = [shlex.quote(o) for o in overrides] + [run_dir]
    if group:
        words.append(override_arg("logger.wandb.group", group))
    return "python train.py " + " ".join(words)


def recorded_group(folders: list[Path]) -> str | None:
    """The W&B group that the sweep's jobs in ``folders`` recorded (``None`` without a W&B logger)."""
    for folder in folders:
        wandb_cfg = recorded_logger(folder, "wandb")
        group = wandb_cfg.get("group") if isinstance(wandb_cfg, dict) else None
        if isinstance(group, str) and group and "${" not in group:
            return group
    return None


def parse_overrides(lines: object) -> dict[str, str | None]:
    """``{key: value}`` of Hydra's override strings (a job's ``.hydra/overrides.yaml``): ``key=value``,
    ``+key=value`` and ``++key=value`` give ``value`` as written; ``~key`` (a deletion) gives None.

    Raises:
        ValueError: ``lines`` is not a list of strings.
    """
    if not isinstance(lines, (list, tuple)):
        raise ValueError(f"overrides must be a list of strings, not {type(lines).__name__}")
    out: dict[str, str | None] = {}
    for line in lines:
        if not isinstance(line, str):
            raise ValueError(f"override {line!r} is not a string")
        key, eq, value = line.partition("=")
        out[key.lstrip("+~")] = None if key.startswith("~") else value if eq else ""
    return out


def swept_keys(jobs: list[Job]) -> list[str]:
    """The override keys, other than seed, model and depth, whose value differs between the jobs of
    the sweep, finished or not (a key that a job does not override counts as one more value), sorted:
    a sweep over ``optim.optimizer.lr=0.1,-1`` whose second job failed still shows the first's
    ``lr`` (breaking pass 39, rows 44 and 50: before, only the finished jobs counted, and the column
    went); and ``TRAINED`` (the epochs a job trained, metrics.json's ``epochs``) where that differs
    between the finished jobs: a job resumed to more epochs (``resume=<job> trainer.max_epochs=2``)
    keeps its sweep's overrides, and is not a seed of the jobs that trained fewer."""
    done = [j for j in jobs if j.status == "ok"]
    keys = sorted({k for j in jobs for k in j.overrides} - set(NOT_SWEPT))
    trained = [TRAINED] if len({swept_value(j, TRAINED) for j in done}) > 1 else []
    return [k for k in keys if len({swept_value(j, k) for j in jobs}) > 1] + trained


TRAINED = "epochs trained"  # a column of its own where the jobs' metrics.json "epochs" differ


def swept_value(job: Job, key: str) -> str:
    """The value of override ``key`` in ``job`` as written; ``"(deleted)"`` for ``~key``, and
    ``"(default)"`` if the job does not override it; for ``TRAINED``, metrics.json's ``epochs``."""
    if key == TRAINED:
        return str(job.metrics.get("epochs", "?"))
    if key not in job.overrides:
        return "(default)"
    value = job.overrides[key]
    if value is not None and key == "model.activation":  # Tanh and tanh are one activation, as the run's
        value = value.lower()  # name and tags spell it (pass 51, row 37: before, two rows of one result)
    return "(deleted)" if value is None else value


def _natural(variant: tuple) -> tuple:
    """A sort key for a point's swept values: numbers by value, before words (pass 51, row 68: before,
    data.batch_size 128 came before 64, sorted as text)."""
    def one(value: str) -> tuple:
        try:
            return (0, float(value), "")
        except (TypeError, ValueError):
            return (1, 0.0, str(value))
    return tuple((key, one(value)) for key, value in variant)


def curve_cut_short(job: Job) -> str | None:
    """The warning for a finished job whose loss curve ends before its training did: a part trained
    without a W&B or CSV logger (``resume=<job> logger=none``), so that its curve in
    ``loss_curves.png`` stops there while the table gives the final loss; ``None`` otherwise (no
    curve at all has its own warning).

    Where the curve must reach, of a job that logged all its training (metrics.json's ``global_step``
    ``S``, ``trainer.log_every_n_steps`` ``n``): Lightning logs the per-batch loss at the steps ``s``
    with ``(s + 1) % n == 0``, so the last of them is at ``S - n`` or later; a job shorter than ``n``
    steps has only epoch means, logged at each epoch's last step, so its curve reaches the step where
    its last epoch began (``S`` less metrics.json's ``last_epoch_batches``) or later."""
    step, last = job.metrics.get("global_step"), job.metrics.get("last_epoch_batches")
    if not job.curve or not isinstance(step, int) or not isinstance(last, int):
        return None
    every = _log_every_n_steps(job.folder)
    reach = step - last if step < every else step - every
    end = max(s for s, _ in job.curve)
    if end >= reach:
        return None
    return (f"loss_curves.png: the curve of {job.folder.name} ends at step {end}, but the job trained to "
            f"step {step}: the part after it was trained without a W&B or CSV logger (logger=none?), so its "
            f"training loss is not on the curve (the table gives the job's final loss)")


def curve_starts_late(job: Job) -> str | None:
    """The warning for a finished job whose loss curve starts after its training did: the history of
    its first part is in none of its W&B run folders or CSV logs (a W&B offline folder removed by
    ``wandb sync --clean`` after its upload, or moved), so that ``loss_curves.png`` shows its later part
    alone (breaking pass 42, row 50: before, without a word); ``None`` otherwise, and for a job that
    began from another run's checkpoint (``ckpt_path`` in its first record: it starts at that step).

    Where the curve must start: at the first per-batch loss (step ``n - 1``,
    ``trainer.log_every_n_steps`` ``n``) or at the first epoch's mean (its last step,
    ``trainer.limit_train_batches - 1`` of the job's first record, else metrics.json's
    ``batches_per_epoch - 1``), whichever is first; one step of slack."""
    batches = job.metrics.get("batches_per_epoch")
    if not job.curve or not isinstance(batches, int) or recorded_value(job.folder, "ckpt_path"):
        return None
    limit = recorded_value(job.folder, "trainer.limit_train_batches")
    if isinstance(limit, int) and not isinstance(limit, bool) and limit > 0:
        batches = limit
    first = min(s for s, _ in job.curve)
    if first <= min(_log_every_n_steps(job.folder), batches):
        return None
    loggers = recorded_value(job.folder, "logger")  # its first start's (config_resolved.yaml)
    if isinstance(loggers, dict) and not any(name in loggers for name in ("wandb", "csv")):
        # pass 46, row 25: before, "a W&B folder removed ... or moved?" of a first part logged elsewhere
        used = f"logger={','.join(loggers)}" if loggers else "logger=none"
        why = (f"its first part was trained with {used} (its config_resolved.yaml), which the report does "
               f"not read")
    else:
        why = ("its training loss before that is in none of its W&B run folders or CSV logs here (a W&B "
               "folder removed by wandb sync --clean after its upload, or moved?)")
    return (f"loss_curves.png: the curve of {job.folder.name} starts at step {first}, but the job trained "
            f"from step 0: {why}, so that part is not on the curve")


def wandb_folder_gone(folder: Path) -> bool:
    """Whether the job ran with a W&B logger (its recorded config) and holds no W&B run file: its
    offline run folder was removed (``wandb sync --clean``, after an upload) or moved (breaking pass 42,
    row 48: before, such a job "logged no training loss to W&B")."""
    return isinstance(recorded_logger(folder, "wandb"), dict) and not wandb_run_files(folder)


def wandb_run_files(folder: Path) -> list[Path]:
    """The ``run-<id>.wandb`` files of the job in ``folder`` (one per segment of a resumed run): in its
    ``wandb/``, else, for a job whose ``logger.wandb.save_dir`` was another folder (shared by the
    sweep's jobs), those of its own run there (the id in its metrics.json's ``wandb_run_path``;
    breaking pass 43, row 59: before, "its offline run folder is gone"); sorted."""
    own = sorted(folder.glob("wandb/*run-*/run-*.wandb"))
    node = recorded_logger(folder, "wandb")
    if own or not isinstance(node, dict) or not node.get("save_dir"):
        return own
    try:
        run_path = json.loads((folder / "metrics.json").read_text()).get("wandb_run_path")
    except (OSError, ValueError, AttributeError):
        return own
    run_id = str(run_path).rsplit("/", 1)[-1] if run_path else ""
    if not run_id or not run_id.isalnum():
        return own
    return sorted(Path(str(node["save_dir"])).glob(f"wandb/*run-*-{run_id}/run-{run_id}.wandb"))


def _log_every_n_steps(folder: Path) -> int:
    """The job's ``trainer.log_every_n_steps`` (:func:`recorded_value`); Lightning's default, 50,
    when it records no positive integer."""
    value = recorded_value(folder, "trainer.log_every_n_steps")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 50


def loss_curve(folder: Path) -> list[tuple[int, float]]:
    """``(step, training loss)`` of every offline W&B run in ``folder`` (a resumed job has several)
    and of its CSV logger's ``csv/version_*/metrics.csv`` (``logger=csv``; before: no curve, and an
    empty figure with no word on the console): the per-batch
    ``train/loss_step`` (logged every ``trainer.log_every_n_steps`` steps), or, for a job too short
    to log it, the per-epoch ``train/loss``."""
    per_step, per_epoch = {}, {}
    rows = []
    for run_file in wandb_run_files(folder):
        try:
            found, notes = read_segment(run_file)
        except RunReadError as err:
            found, notes = [], [str(err).removeprefix(f"{run_file}: ")]
        if notes or not found:  # pass 33, row 29: before, "it logged no training loss to W&B"
            warnings.warn(f"{run_file}: {'; '.join(notes) or 'no W&B records in it'} (cut short, or "
                          f"damaged?); its training loss {'after that ' if found else ''}is left out",
                          stacklevel=2)
        prefix = _logger_prefix(folder, "wandb")  # pass 70, row 19: +logger.wandb.prefix=mine
        rows += [{k.removeprefix(prefix): v for k, v in r["history"]["item"].items()}
                 for r in found if r.get("type") == "history"]
    # both: a job that logged part of its training to CSV and the rest to W&B (resumed with another
    # logger: pass 41, row 34, before, its CSV part was dropped when it had any W&B rows); W&B's value
    # wins where both logged a step (logger=[wandb,csv])
    rows = _csv_rows(folder) + rows
    bad = None
    for row in rows:
        if row.get(STEP) not in (None, ""):
            for key, points in ((LOSS + "_step", per_step), (LOSS, per_epoch)):
                if row.get(key) not in (None, ""):
                    try:
                        points[int(float(row[STEP]))] = float(row[key])
                    except (TypeError, ValueError):  # a hand-edited cell (pass 33, row 28: a traceback)
                        bad = bad or f"{key} {row[key]!r} at step {row[STEP]!r}"
    if bad is not None:
        warnings.warn(f"{folder.name}: a training-loss value that is not a number ({bad}; edited?) is left "
                      f"out of loss_curves.png", stacklevel=2)
    earlier = {s: v for s, v in per_epoch.items() if per_step and s < min(per_step)}
    if earlier:  # pass 38, row 26: before, a job resumed with a shorter trainer.log_every_n_steps lost the
        first = min(per_step)  # part of its curve that only epoch means cover, without a word
        warnings.warn(f"{folder.name}: its per-batch {LOSS}_step starts at step {first}; before that, its "
                      f"curve in loss_curves.png is the epoch means {LOSS} (steps "
                      f"{', '.join(map(str, sorted(earlier)))}: trainer.log_every_n_steps was longer than "
                      f"those epochs)", stacklevel=2)
    return sorted((earlier | per_step or per_epoch).items())


def _csv_rows(folder: Path) -> list[dict[str, str]]:
    """The rows of the CSV logger's files in ``folder`` (``<name>/version_*/metrics.csv``, in version
    order; ``<name>`` is ``logger.csv.name`` as the job recorded it, ``csv`` by default: breaking pass
    43, row 58, before, another name lost every curve), with its ``step`` column as
    ``trainer/global_step`` and the keys without the logger's prefix (``logger.csv.prefix=pre``:
    Lightning writes ``pre-train/loss``); [] without one, or unreadable."""
    def version(path: Path) -> int:
        number = path.parent.name.removeprefix("version_")
        return int(number) if number.isdigit() else 1 << 30

    prefix, rows = _logger_prefix(folder, "csv"), []
    node = recorded_logger(folder, "csv")
    names = [str(node.get("name") or "")] if isinstance(node, dict) and node.get("name") is not None else \
        ["csv", "lightning_logs"]  # the preset's, and Lightning's default (an own CSVLogger without name)
    paths = next((found for name in names if (found := sorted(folder.glob(
        f"{glob.escape(name)}/version_*/metrics.csv" if name else "version_*/metrics.csv"), key=version))),
                 []) or _csv_elsewhere(folder)
    for path in paths:
        try:
            with path.open(newline="") as f:
                rows += [{**{k.removeprefix(prefix): v for k, v in row.items() if k},
                          STEP: row.get("step", "")} for row in csv.DictReader(f)]
        except (OSError, csv.Error, UnicodeDecodeError) as err:
            warnings.warn(f"{path}: cannot be read ({err}); its training loss is left out", stacklevel=2)
    return rows


def _csv_elsewhere(folder: Path) -> list[Path]:
    """The CSV log of a job whose ``logger.csv.save_dir`` was outside its folder: the folder of its
    own that the job recorded there (``<save_dir>/<name>/<version>/metrics.csv``:
    :func:`highwaylab.utils.loggers.own_log_folders`; breaking pass 30, row 72: "no job logged its
    training loss", though both had); [] without one."""
    node = recorded_logger(folder, "csv")
    if not isinstance(node, dict) or not node.get("version") or not os.path.isabs(str(node.get("save_dir"))):
        return []
    path = Path(str(node["save_dir"])) / str(node.get("name") or "") / str(node["version"]) / "metrics.csv"
    return [path] if path.is_file() else []


def _logger_prefix(folder: Path, name: str) -> str:
    """What the job's logger ``name`` (``csv``, ``wandb``) put before each key:
    ``<logger.<name>.prefix>-`` (Lightning's join character) as the job recorded it
    (``config_resolved.yaml``, else ``.hydra/config.yaml``); "" without one."""
    node = recorded_logger(folder, name)
    prefix = node.get("prefix") if isinstance(node, dict) else None
    return f"{prefix}-" if isinstance(prefix, str) and prefix and "${" not in prefix else ""


@dataclass
class Point:
    """Mean and standard deviation over the distinct seeds of one (model, depth, swept keys).

    ``seeds`` holds each distinct seed once (sorted), ``loss`` and ``acc`` one value per seed (the
    mean over the jobs of that seed, see the module docstring), ``jobs`` the folder names of all
    the group's jobs, ``repeats`` ``{seed: [job folder names]}`` of the seeds run by more than one
    job, and ``variant`` the ``(key, value)`` of each swept key (:func:`swept_keys`,
    :func:`swept_value`).
    """

    model: str
    depth: int
    seeds: list[int]
    loss: list[float]
    acc: list[float]
    variant: tuple[tuple[str, str], ...] = ()
    jobs: list[str] = field(default_factory=list)
    repeats: dict[int, list[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The model and the swept keys, e.g. ``"highway optim.optimizer.lr=0.01"``."""
        return " ".join([self.model, *(f"{k}={v}" for k, v in self.variant)])

    @property
    def legend(self) -> str:
        """:attr:`label` for a figure's legend: float values in 3 significant digits (an Optuna
        sweep's ``optim.optimizer.lr=0.044303752452182654`` is ``optim.optimizer.lr=0.0443``; the
        table keeps them whole), see :func:`short_value`."""
        return " ".join([self.model, *(f"{k}={short_value(v)}" for k, v in self.variant)])

    @property
    def loss_mean(self) -> float:
        return statistics.fmean(self.loss) if self.loss else math.nan

    @property
    def acc_mean(self) -> float:
        return statistics.fmean(self.acc) if self.acc else math.nan

    @staticmethod
    def spread(values: list[float]) -> float:
        """The sample standard deviation (n - 1) of ``values``; 0 for fewer than two; NaN when one is NaN
        (a job that wrote no such value: ``test=false`` has no ``test/acc``; pass 43, row 40: before,
        ``statistics.stdev`` ended the report in a traceback)."""
        if len(values) < 2:
            return 0.0
        return statistics.stdev(values) if all(math.isfinite(v) for v in values) else math.nan

    def repeats_note(self) -> str | None:
        """One line naming the seeds of this point that more than one job ran, or None."""
        if not self.repeats:
            return None
        each = "; ".join(f"seed {seed} ran in {len(names)} jobs ({', '.join(names)})"
                         for seed, names in sorted(self.repeats.items()))
        return (f"{self.label} depth {self.depth}: {each}: each seed is counted once, with the mean of its "
                f"jobs' results (n = {len(self.seeds)} distinct seeds, from {len(self.jobs)} jobs)")


def aggregate(jobs: list[Job]) -> list[Point]:
    """One :class:`Point` per (model, depth, values of the swept keys) over the finished jobs, sorted
    by model, swept values, then depth; the statistics are over distinct seeds (module docstring).

    Warns:
        UserWarning: one line per point whose seeds were repeated (:meth:`Point.repeats_note`).
    """
    keys = swept_keys(jobs)
    groups: dict[tuple, dict[int, list[Job]]] = {}
    for job in jobs:
        if job.status != "ok":
            continue
        variant = tuple((k, swept_value(job, k)) for k in keys)
        groups.setdefault((job.model, variant, job.depth), {}).setdefault(job.seed, []).append(job)
    points = []
    order = sorted(groups, key=lambda group: (group[0], _natural(group[1]), group[2]))
    for (model, variant, depth), by_seed in ((group, groups[group]) for group in order):
        seeds = sorted(by_seed)
        point = Point(model, depth, seeds,
                      [statistics.fmean(_metric(j, LOSS) for j in by_seed[s]) for s in seeds],
                      [statistics.fmean(_metric(j, ACC) for j in by_seed[s]) for s in seeds], variant,
                      [j.folder.name for s in seeds for j in by_seed[s]],
                      {s: [j.folder.name for j in by_seed[s]] for s in seeds if len(by_seed[s]) > 1})
        if point.repeats:
            warnings.warn(point.repeats_note(), stacklevel=2)
        points.append(point)
    for note in (smoke_test_note(jobs), partial_test_note(jobs), untested_note(jobs)):
        if note is not None:
            warnings.warn(note, stacklevel=2)
    return points


def untested_note(jobs: list[Job]) -> str | None:
    """One line for the finished jobs that ran without their test (``test=false``: no ``test/acc`` in
    their metrics.json), whose accuracy the table and ``depth.png`` leave empty (breaking pass 43, rows
    40 and 41: before, a traceback); ``None`` if none."""
    untested = [j.folder for j in jobs if j.status == "ok" and ACC not in j.metrics]
    if not untested:
        return None
    finished = sum(j.status == "ok" for j in jobs)
    which = ("the finished job" if finished == 1 else "every finished job" if len(untested) == finished
             else f"{len(untested)} of {finished} finished jobs")
    # every one of them (pass 92, row 55b: before, "test one with ...", and once it was tested, its row still
    # showed -, averaged with the seeds left untested)
    each = "; ".join(f"python train.py {override_arg('resume', job)} test=true" for job in untested[:4])
    more = f"; and so on for the other {len(untested) - 4}" if len(untested) > 4 else ""
    one = len(untested) == 1
    return (f"{which} ran without its test (test=false), so the table and depth.png have no test accuracy "
            f"for {'it' if one else 'them'} (-); test {'it' if one else 'each'} with: {each}{more}")


# the test sets of MNIST, Fashion-MNIST, CIFAR-10 and CIFAR-100 each hold 10,000 examples
TEST_SET_SIZE = 10_000


def partial_test_note(jobs: list[Job]) -> str | None:
    """One line for the finished jobs whose test accuracy counts fewer examples than the test set
    (``test_examples`` in their metrics.json, below ``TEST_SET_SIZE``: ``trainer.limit_test_batches``),
    which the table's accuracy would otherwise not show (breaking pass 26, row 34); ``None`` if none."""
    partial = {j.folder.name: j.metrics["test_examples"] for j in jobs
               if j.status == "ok" and not j.fast_dev_run and isinstance(j.metrics.get("test_examples"), int)
               and j.metrics["test_examples"] < TEST_SET_SIZE}
    if not partial:
        return None
    counts = sorted(set(partial.values()))
    shown = f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"
    finished = sum(j.status == "ok" for j in jobs)
    which = ("every finished job" if len(partial) == finished
             else f"{len(partial)} of {finished} finished jobs")
    return (f"the test accuracy of {which} counts {shown} of the test set's {TEST_SET_SIZE:,} examples "
            f"(trainer.limit_test_batches), so it is a rough estimate: run without the limit for the "
            f"paper's figures")


def smoke_test_note(jobs: list[Job]) -> str | None:
    """One line for the finished jobs that ran ``trainer.fast_dev_run`` (``debug=fast``): one batch of
    training, validation and test each, so their loss and accuracy are those of an untrained net, a
    check that the sweep runs (pass 59, row 32: before, shown as results, and their 128 test examples
    blamed on ``trainer.limit_test_batches``); ``None`` if none."""
    smoke = [j for j in jobs if j.status == "ok" and j.fast_dev_run]
    if not smoke:
        return None
    finished = sum(j.status == "ok" for j in jobs)
    which = "every finished job" if len(smoke) == finished else f"{len(smoke)} of {finished} finished jobs"
    return (f"{which} ran trainer.fast_dev_run (debug=fast): one batch of training, validation and test "
            f"each, so {'its' if len(smoke) == 1 else 'their'} loss and accuracy are those of a net trained "
            f"for one step, a check that the sweep runs, not a result: run the sweep without debug=fast "
            f"for the paper's figures")


def _metric(job: Job, key: str) -> float:
    value = job.metrics.get(key)
    return math.nan if value is None else float(value)  # null: NaN written by the job


def short_value(value: str) -> str:
    """An override's value for a figure's label: a float written with a point or an exponent in 3
    significant digits (``0.044303752452182654`` -> ``0.0443``, ``1e-3`` -> ``0.001``); integers
    (``-4``, ``128``), words and ``(default)`` as written."""
    try:
        number = float(value)
    except ValueError:
        return value
    if not math.isfinite(number) or not any(c in value.lower() for c in ".e"):
        return value
    return f"{number:.3g}"


LEGEND_WIDTH = 120  # characters of a legend line before it wraps: 10 inches at fontsize 8 hold ~150


def legend_layout(names: list[str], width: int = LEGEND_WIDTH) -> tuple[dict[str, str], int, int]:
    """A legend of ``names`` below a figure's panels: each name wrapped at ``width`` characters (a
    10-inch figure's :data:`LEGEND_WIDTH`), the number of columns (short names share a row) and the
    rows of text it takes, for the figure's height.

    Returns:
        ``({name: wrapped name}, columns, rows)``.
    """
    labels = {name: textwrap.fill(name, width, break_long_words=False) for name in names}
    widest = max((len(line) for text in labels.values() for line in text.splitlines()), default=1)
    ncol = max(1, min(len(labels), width // (widest + 8)))
    rows = sum(max(labels[m].count("\n") + 1 for m in list(labels)[i:i + ncol])
               for i in range(0, len(labels), ncol))
    return labels, ncol, rows


def depth_figure(points: list[Point]) -> Figure:
    """Final training loss (log scale) and test accuracy against depth, one line per model (and values
    of the swept keys, :attr:`Point.legend`), a dot per distinct seed.

    The legend is one, below both panels (room made for it: the figure grows by its rows), so that
    long labels (an Optuna sweep's five searched keys) cover no data; labels longer than
    :data:`LEGEND_WIDTH` characters wrap, and several short ones share a row."""
    by_model = defaultdict(list)  # one line per model and values of the swept keys
    for p in points:
        by_model[p.legend].append(p)
    labels, ncol, rows = legend_layout(list(by_model))
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4 + 0.2 * rows), layout="constrained")
    for model, pts in by_model.items():
        depths = [p.depth for p in pts]
        for ax, mean, values, scale in ((ax_loss, "loss_mean", "loss", 1), (ax_acc, "acc_mean", "acc", 100)):
            line = ax.errorbar(depths, [scale * getattr(p, mean) for p in pts],
                               yerr=[scale * Point.spread(getattr(p, values)) for p in pts],
                               marker="o", capsize=3, label=labels[model])
            for p in pts:  # each seed as a faint dot
                ax.scatter([p.depth] * len(getattr(p, values)), [scale * v for v in getattr(p, values)],
                           s=10, alpha=0.4, color=line[0].get_color())
    ax_loss.set_yscale("log")
    _plain_log_labels(ax_loss.yaxis)
    ax_loss.set_ylabel("final training loss (nats, mean over the last epoch)")
    ax_acc.set_ylabel("test accuracy (%)")
    panels = [ax_loss, ax_acc]
    if points and not any(math.isfinite(v) for p in points for v in p.acc):  # test=false: no accuracy
        ax_acc.clear()  # (pass 43, row 41: before, a log x-axis over no data, and a traceback)
        ax_acc.text(0.5, 0.5, "no test accuracy:\nthe jobs ran with test=false", ha="center", va="center")
        ax_acc.set_axis_off()
        panels = [ax_loss]
    for ax in panels:
        ax.set_xlabel("depth (layers)")
        ax.set_xscale("log")
        ax.set_xticks(sorted({p.depth for p in points}), [str(d) for d in sorted({p.depth for p in points})])
        ax.xaxis.set_minor_formatter(NullFormatter())  # only the swept depths are labelled
        ax.grid(alpha=0.3)
    if points:  # no finished job: an empty plot, without matplotlib's warning of an empty legend
        # before: a legend in each panel, over the data, and tight_layout's "not applied" warning
        fig.legend(*ax_loss.get_legend_handles_labels(), loc="outside lower center", ncol=ncol, fontsize=8)
    fig.suptitle("Depth against final training loss and test accuracy (mean +- std over seeds)")
    return fig


def curves_figure(jobs: list[Job]) -> Figure:
    """Training-loss curves (``train/loss_step``), one panel per depth, one line per model and seed."""
    depths = sorted({j.depth for j in jobs if j.curve})
    if not depths:  # no job logged a training loss (collect_jobs has said so)
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.text(0.5, 0.5, "no training loss in the jobs' W&B runs or CSV logs", ha="center", va="center")
        ax.set_axis_off()
        return fig
    keys = swept_keys(jobs)

    def series(job: Job) -> str:  # a model and its values of the swept keys: one colour, over seeds
        return " ".join([job.model, *(f"{k}={short_value(swept_value(job, k))}" for k in keys)])

    names = sorted({f"{series(j)} s{j.seed}" for j in jobs if j.curve})
    colours = {name: f"C{i % 10}" for i, name in enumerate(sorted({series(j) for j in jobs if j.curve}))}
    inches = max(3.2 * len(depths) + 1, 6.0)
    labels, ncol, rows = legend_layout(names, int(inches * LEGEND_WIDTH / 10))  # fontsize 7: as 8 on 10 in
    # one legend below the panels (before: one inside each panel, whose long labels, an Optuna
    # search's searched keys, covered the data and ran off the figure; and every line of a model in
    # one colour, so that the legend could not tell a search's trials apart)
    fig, axes = plt.subplots(1, len(depths), figsize=(inches, 3.6 + 0.2 * rows), squeeze=False, sharey=True,
                             layout="constrained")
    for ax, depth in zip(axes[0], depths, strict=True):
        for job in (j for j in jobs if j.depth == depth and j.curve):
            steps, losses = zip(*job.curve, strict=True)
            ax.plot(steps, losses, color=colours[series(job)], alpha=0.9 if job.seed == 0 else 0.5,
                    marker="o" if len(steps) < 5 else None,  # a single epoch mean stays visible
                    label=labels[f"{series(job)} s{job.seed}"])
        ax.set_title(f"depth {depth}")
        ax.set_xlabel("step")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # steps are whole numbers
        ax.set_yscale("log")
        _plain_log_labels(ax.yaxis)
        ax.grid(alpha=0.3)
    axes[0][0].set_ylabel("training loss")
    handles = {}
    for ax in axes[0]:  # each label once, in the legend's order
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            handles.setdefault(label, handle)
    order = [labels[name] for name in names]
    fig.legend([handles[label] for label in order], order, loc="outside lower center", ncol=ncol, fontsize=7)
    return fig


class _PlainLogFormatter(LogFormatterSciNotation):
    """Matplotlib's log-axis labels, on the same ticks, as plain numbers (0.3, 2.2, 10), not
    ``2.2x10^0``: the losses of a short sweep often span less than a decade, where matplotlib labels
    the minor ticks in that form."""

    def __init__(self, *args, minor: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.minor = minor

    def __call__(self, x: float, pos: int | None = None) -> str:
        if not super().__call__(x, pos):
            return ""
        low, high = sorted(abs(v) for v in self.axis.get_view_interval()) if self.axis else (0, 0)
        decades = math.log10(high / low) if low > 0 else 1.0
        if self.minor and x > 0:  # a minor tick: matplotlib reads 1.2 and 1.5 as 1 and 2, and
            # labelled them on an axis of many decades too, over the powers of ten (pass 93, row 27b)
            coeff = x / 10 ** math.floor(math.log10(x) + 1e-9)
            if decades > self.minor_thresholds[0] or (decades > self.minor_thresholds[1]
                                                      and abs(coeff - round(coeff)) > 1e-6):
                return ""
        # 3 significant digits, more on an axis spanning a small part of a decade, so that adjacent
        # ticks differ (before: 2.25, 2.25, 2.26, ... for losses between 2.250 and 2.284)
        digits = 3 + (math.ceil(math.log10(0.3 / decades)) if 0 < decades < 0.3 else 0)
        return f"{x:.{digits}g}"


def _plain_log_labels(axis) -> None:
    """Plain labels on a log axis; on an axis of under a decade every minor tick is labelled (before,
    matplotlib's default labelled a subset, which for losses 0.67 .. 1.83 was none: the one label was 1,
    new-user pass 32), on one of up to two decades a subset."""
    axis.set_major_formatter(_PlainLogFormatter())
    # 1.2 and 1.5 too: between 1 and 2 (losses of 1.83, say) matplotlib's minor ticks have none
    axis.set_minor_locator(LogLocator(subs=(1.2, 1.5, 2, 3, 4, 5, 6, 7, 8, 9)))
    axis.set_minor_formatter(_PlainLogFormatter(labelOnlyBase=False, minor_thresholds=(2, 1), minor=True))


def table_rows(points: list[Point]) -> list[dict]:
    """The table: model, depth, the swept keys' values (if any), the number of distinct seeds and of
    jobs, mean and std over the seeds of final training loss and test accuracy. The std of one seed is
    ``None`` (an empty cell of ``table.csv``): undefined, not a measured 0 (new-user check: before, 0.0)."""
    def std(values: list[float]) -> float | None:  # one value per seed
        return Point.spread(values) if len(values) > 1 else None

    return [{"model": p.model, "depth": p.depth, **{k: v for k, v in p.variant}, "seeds": len(p.seeds),
             "jobs": len(p.jobs), "train_loss_mean": p.loss_mean, "train_loss_std": std(p.loss),
             "test_acc_mean": p.acc_mean, "test_acc_std": std(p.acc)} for p in points]


def _spread(mean: float, std: float | None, seeds: int, mean_format: str,
            std_format: str | None = None) -> str:
    """``mean ± std`` over seeds; one seed has no spread to show, only its value."""
    if seeds < 2 or std is None:
        return format(mean, mean_format)
    return f"{format(mean, mean_format)} ± {format(std, std_format or mean_format)}"


def markdown_table(rows: list[dict], jobs: list[Job], points: list[Point] | None = None) -> str:
    """The table as markdown (a column per swept key, after depth), then the seeds that several jobs
    ran (from ``points``), then the jobs that failed or did not finish."""
    swept = [k for k in (rows[0] if rows else {}) if k not in ("model", "depth", *STATS)]
    lines = ["| " + " | ".join(["model", "depth", *swept, "seeds", "final training loss (nats)",
                                "test accuracy (%)"]) + " |",
             "|" + "---|" * (5 + len(swept))]
    for r in rows:  # accuracies in percent, as in the README; table.csv keeps fractions, as metrics.json
        loss = _spread(r["train_loss_mean"], r["train_loss_std"], r["seeds"], "#.4g", ".2g")  # 2.300, not
        # 2.3 beside 2.301 (pass 59, row 32)
        acc_std = None if r["test_acc_std"] is None else 100 * r["test_acc_std"]
        acc = (_spread(100 * r["test_acc_mean"], acc_std, r["seeds"], ".2f")
               if math.isfinite(r["test_acc_mean"]) else "-")  # test=false: not tested
        lines.append(" | ".join([f"| {r['model']}", str(r["depth"]), *(str(r[k]) for k in swept),
                                 str(r["seeds"]), loss, acc]) + " |")
    for note in (p.repeats_note() for p in points or []):
        if note:
            lines.append(f"\n- repeated seeds: {note}")
    for note in (smoke_test_note(jobs), partial_test_note(jobs), untested_note(jobs)):
        if note is not None:
            lines.append(f"\n- {note}")
    for job in (j for j in jobs if j.status != "ok"):
        lines.append(f"\n- {job.folder.name}: {job.status}" + (f": {job.error}" if job.error else ""))
    return "\n".join(lines) + "\n"


def _job_number(config: Path) -> tuple[int, str]:
    name = config.parent.parent.name
    head = name.split("_", 1)[0]
    return (int(head) if head.isdigit() else 1 << 30, name)
