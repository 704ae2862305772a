"""The summary of a multirun: one JSON line per finished or failed job in ``<sweep dir>/summary.jsonl``.

Every job appends its own line when it ends (one small ``write`` in append mode, so jobs of a
parallel launcher do not interleave), whether it succeeded or failed; ``python -m highwaylab.report``
reads it with the jobs' ``metrics.json`` files.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import math
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError
from highwaylab.utils.ranks import env_rank

log = logging.getLogger(__name__)
SUMMARY = "summary.jsonl"
INCOMPLETE = "summary.jsonl.incomplete"  # beside it: a job's line could not be written (a full disk)


def in_multirun() -> bool:
    """Whether this process runs a job of a Hydra multirun (``-m``)."""
    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def record_job(status: str, metrics: dict[str, Any] | None = None, error: str | None = None) -> Path | None:
    """Append this job's line to ``<sweep dir>/summary.jsonl``; does nothing outside a multirun and on
    any rank but zero (:func:`highwaylab.utils.ranks.env_rank`).

    The line holds ``job`` (Hydra's job number), ``overrides`` (the job's command-line overrides),
    ``output_dir``, ``status`` (``"ok"``, ``"failed"``, or ``"interrupted"``: stopped by SIGTERM,
    SIGINT or SIGHUP with its state saved, to be resumed), ``error`` (one line, or null), and the
    job's final ``metrics`` (NaN and infinity written as null).

    A line that cannot be written (``OSError``: a full disk, a read-only folder) is one warning line
    naming the file and the cause; the job's own folder still holds its results, the sweep goes on,
    and the file is marked incomplete (an empty ``summary.jsonl.incomplete`` beside it, where that
    can be made, and in this process) for :class:`SweepSummary`. Nothing is raised.

    Returns:
        The summary file, or ``None`` outside a multirun or when its line could not be written.
    """
    if not in_multirun() or env_rank() != 0:  # a DDP job is recorded once, by rank zero
        return None
    hc = HydraConfig.get()
    line = {"job": hc.job.num, "overrides": list(hc.overrides.task), "output_dir": hc.runtime.output_dir,
            "status": status, "error": error,
            "metrics": {k: _json_value(v) for k, v in (metrics or {}).items()}}
    path = Path(hc.sweep.dir) / SUMMARY
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as f:
            f.write(json.dumps(line) + "\n")
    except OSError as err:
        _UNRECORDED.add(str(path.parent))
        with contextlib.suppress(OSError):  # an empty file: it may fit where the line did not
            (path.parent / INCOMPLETE).touch()
        log.warning(f"highwaylab: {path}: job {hc.job.num}'s line could not be written "
                    f"({err.strerror or err}{', a full disk' if err.errno == errno.ENOSPC else ''}); "
                    f"the sweep goes on, and its results are in its folder {hc.runtime.output_dir}")
        return None
    return path


_UNRECORDED: set[str] = set()  # the sweep folders whose summary.jsonl missed a line of this process's jobs


def summary_incomplete(sweep_dir: str | Path) -> bool:
    """Whether a job of the sweep in ``sweep_dir`` could not write its line to ``summary.jsonl``
    (:func:`record_job`): in this process (the basic launcher's jobs) or, as the marker file
    ``summary.jsonl.incomplete`` says, in another."""
    return str(Path(sweep_dir)) in _UNRECORDED or (Path(sweep_dir) / INCOMPLETE).exists()


def nan_objective(name: str | None, metrics: dict[str, Any], value: float | None) -> str | None:
    """Why the job failed when its objective ``value`` (``optimized_metric`` ``name``, read from
    ``metrics``) is NaN, as one line; ``None`` when it is a number, or when the metric was never
    logged outside a multirun (a single run need not log it).

    A NaN objective means a run that diverged (a NaN loss) or never evaluated: the job is recorded
    ``failed``, the Optuna sweeper marks the trial failed, and the run exits with status 1.
    """
    if value is None or not math.isnan(value) or (name not in metrics and not in_multirun()):
        return None
    return (f"optimized_metric {name} is NaN: the run diverged or did not evaluate (its metrics.json "
            "has the rest). Fix: lower optim.optimizer.lr, or check the data and trainer.limit_val_batches")


def read_summary(sweep_dir: str | Path) -> list[dict[str, Any]]:
    """The lines of ``<sweep_dir>/summary.jsonl``, in the order the jobs ended; [] if there is none.
    A line that is not JSON (a job killed while writing it), or not a job's record (an object with
    its ``status`` and ``output_dir``: an edited file), is skipped with a warning (once a process)."""
    path = Path(sweep_dir) / SUMMARY
    if not path.is_file():
        return []
    lines = []
    for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
        try:  # line by line: one line of another encoding spoils only itself
            text = raw.decode("utf-8")
        except UnicodeDecodeError as err:  # pass 32, row 49: before, a traceback and no report
            _warn_once(f"{path}, line {number}: not UTF-8 text (byte {raw[err.start]:#04x} at column "
                       f"{err.start + 1}: written by an editor in another encoding?); skipped")
            continue
        if not text.strip():
            continue
        try:
            line = json.loads(text)
        except json.JSONDecodeError:
            _warn_once(f"{path}, line {number}: not JSON (a job killed while writing it?); skipped")
            continue
        if not isinstance(line, dict) or not isinstance(line.get("status"), str) \
                or not isinstance(line.get("output_dir"), str):
            _warn_once(f"{path}, line {number}: not a job's record (an object with its status and "
                       f"output_dir; edited?); skipped")
            continue
        line.setdefault("error", None)
        lines.append(line)
    return lines


_warned: set[str] = set()  # the summary's faults already named in this process


def _warn_once(message: str) -> None:
    """Log ``message`` as a warning the first time in this process: the summary is read several
    times by one report (breaking pass 28, row f29: one damaged line, four warnings)."""
    if message not in _warned:
        _warned.add(message)
        log.warning(message)


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


class SweepSummary(Callback):
    """Hydra callback: at the end of a multirun, log how many jobs finished and each failed job with
    its error (from ``summary.jsonl``; saying when it is incomplete: :func:`summary_incomplete`), and
    exit with status 1 if any failed.

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.sweep_summary``).
    """

    def on_multirun_end(self, config: DictConfig, **kwargs) -> None:
        sweep = os.path.abspath(config.hydra.sweep.dir)  # pass 57, row 79: a relative one, named in full
        try:
            lines = read_summary(sweep)
        except OSError as err:  # summary.jsonl unreadable: the count is of no job
            log.warning(f"highwaylab: {Path(sweep) / SUMMARY} cannot be read ({err.strerror or err})")
            lines = []
        failed = [line for line in lines if line["status"] != "ok"]
        incomplete = (" is incomplete: some jobs could not be recorded (a full disk?); their folders hold "
                      f"their results, python -m highwaylab.report {shlex.quote(sweep)} lists them"
                      if summary_incomplete(sweep) else "")
        compare = (f"; compare them with: python -m highwaylab.report {shlex.quote(sweep)}"
                   if len(lines) > len(failed) and not incomplete else "")  # new-user pass 48, finding 11
        log.info(f"Sweep {sweep}: {len(lines) - len(failed)} of {len(lines)} jobs finished "
                 f"(summary.jsonl{incomplete}){compare}")
        for line in failed:
            log.error(f"job {line['job']} ({' '.join(line['overrides'])}) {line['status']}: {line['error']}")
        if failed:
            sys.exit(1)




# the Optuna samplers' integer counts (hydra.sweeper.sampler.<key>): the least each may be, optuna's
# default, and what it counts
SAMPLER_COUNTS = {"n_startup_trials": (0, 10, "the random trials before the sampler models the results"),
                  "n_ei_candidates": (1, 24, "the candidates TPE scores for each trial"),
                  "n_ehvi_candidates": (1, 24, "the candidates MOTPE scores for each trial"),
                  "population_size": (2, 50, "NSGA-II's trials per generation"),
                  "inc_popsize": (1, 2, "the factor CMA-ES grows its population by at each restart")}


def check_sampler_counts(sampler: Any) -> None:
    """Raises ConfigError for an integer count of the Optuna sampler (:data:`SAMPLER_COUNTS`) that
    is not a whole number at or above its least value (optuna runs ``n_startup_trials=-1`` as 0, in
    silence)."""
    if not OmegaConf.is_dict(sampler):
        return
    for key, (least, default, what) in SAMPLER_COUNTS.items():
        value = sampler.get(key)
        if key not in sampler or value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ConfigError(f"hydra.sweeper.sampler.{key}={value!r} must be an integer >= {least} "
                              f"({what}). Fix: e.g. hydra.sweeper.sampler.{key}={default} (optuna's "
                              f"default), or leave it out")


def check_sampler_arguments(sampler: Any, search: str | None) -> None:
    """Raises ConfigError when the Optuna sampler's class (``hydra.sweeper.sampler._target_``) does not
    take a setting the sampler's node holds: a ``_target_`` given alone keeps the settings that
    ``hparams_search=<search>`` made for its own sampler (breaking pass 60, row 30: ``_target_=
    optuna.samplers.CmaEsSampler`` under ``mnist_tpe`` got Hydra's raw "unexpected keyword argument
    'consider_prior'", and ``~hydra.sweeper.sampler.<key>`` is refused: its node is a structured
    config). A class that cannot be imported, or that takes ``**kwargs``, is left to Hydra."""
    import inspect

    from hydra.utils import get_class

    if not OmegaConf.is_dict(sampler) or not isinstance(sampler.get("_target_"), str):
        return
    try:
        params = inspect.signature(get_class(sampler._target_)).parameters
    except Exception:  # not importable, or no signature: Hydra's own error names it
        return
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    extra = [str(k) for k in sampler if not str(k).startswith("_") and k not in params]
    if not extra:
        return
    keys = ", ".join(f"hydra.sweeper.sampler.{k}" for k in extra)
    made = f", which the sampler of hparams_search={search} holds" if search else ""
    raise ConfigError(f"hydra.sweeper.sampler._target_={sampler._target_} does not take {keys}{made} (a "
                      f"sampler's settings cannot be removed on the command line). Fix: leave "
                      f"hydra.sweeper.sampler._target_ out, or use the search made for a sampler "
                      f"(hparams_search=mnist_tpe: tpe; mnist_random: random)")


def stop_between_jobs(sweep_dir: Path) -> None:
    """Make SIGTERM, SIGINT and SIGHUP (unless ignored: ``nohup``) end the multirun in ``sweep_dir``
    with one line and exit status 128 + the signal's number when they come between its jobs (each
    job's own handlers take them while it runs, and give these back at its end). Before (breaking pass
    60, row 45), a SIGTERM as the next job started ended the sweep with status 143 and no word. Nothing
    is left to save then: the finished jobs are in ``summary.jsonl``, and the report gives the command
    of each job that did not run. Does nothing outside the main thread."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def between_jobs(signum: int, frame: Any) -> None:
        finished = len(read_summary(sweep_dir)) if (sweep_dir / SUMMARY).is_file() else 0
        with contextlib.suppress(OSError, ValueError):  # a closed terminal (SIGHUP) takes no line
            print(f"highwaylab: interrupted by {signal.Signals(signum).name} between the jobs of the "
                  f"multirun in {sweep_dir} ({finished} {'job' if finished == 1 else 'jobs'} in "
                  f"summary.jsonl): the multirun stops here, before its next job. See what ran, and the "
                  f"command of each job that did not, with: python -m highwaylab.report "
                  f"{shlex.quote(str(sweep_dir))}",
                  file=sys.stderr, flush=True)
        os._exit(128 + signum)  # at once: an exception raised inside Hydra's launcher loop is a traceback

    for signum in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", None)):
        if signum is not None and signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, between_jobs)


class SweepCheck(Callback):
    """Hydra callback: before a multirun builds its sweeper, check what the sweeper reads: ``seed``
    (it seeds the Optuna sampler as well as every job), a search's ``optimized_metric`` (one of
    ``RUN_METRICS``), ``hydra.sweeper.direction`` (:func:`check_direction`),
    ``hydra.sweeper.n_trials`` and ``n_jobs`` (integers >= 1), the sampler's counts
    (:func:`check_sampler_counts`: ``n_startup_trials`` >= 0, ...), ``hydra.sweeper.max_failure_rate``
    (:func:`check_max_failure_rate`: 0 .. 1), ``hydra.sweeper.storage``
    (:func:`check_storage`) and the keys that
    ``hydra.sweeper.params`` sets (:func:`check_params`: each must be a key of the job's config). A
    bad value is one ``highwaylab:`` line on stderr and exit status 1, instead of optuna's traceback
    or Hydra's "Could not override" (after the sweep folder and its ``optuna.db`` are made) or, for
    ``n_trials=0``, a search that fails at its end. A search that tunes on a ``test/`` metric gets a
    one-line warning (the search goes on).

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.sweep_check``).
    """

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        from highwaylab.config_checks import RUN_METRICS, check_seed
        from highwaylab.utils.interrupt import end_start_up_handlers

        end_start_up_handlers()  # SIGTERM to a sweep's launcher: not a start-up's line, but the sweep's
        if "BasicLauncher" in str(OmegaConf.select(config, "hydra.launcher._target_", default="")):
            stop_between_jobs(Path(str(config.hydra.sweep.dir)))  # its jobs run in this process, in turn

        try:
            check_seed(config.get("seed"))
            metric = config.get("optimized_metric")
            if "n_trials" in config.hydra.sweeper and metric == "train/lr":  # pass 54, row 50: before, "not
                # a metric of the run", which metrics.json holds
                raise ConfigError(f"optimized_metric={metric} is the learning rate the run was given, not a "
                                  f"result, so the search would rank the trials by their own setting; choose "
                                  f"one of {', '.join(RUN_METRICS)}")
            if "n_trials" in config.hydra.sweeper and metric is not None and metric not in RUN_METRICS:
                raise ConfigError(f"optimized_metric={metric} is not a metric of the run, so every trial "
                                  f"would train and then fail; choose one of {', '.join(RUN_METRICS)}")
            # pass 54, row 67: before, every trial trained in full, then failed ("was not logged")
            if "n_trials" in config.hydra.sweeper and str(metric).startswith("test/") \
                    and config.get("test") is False:
                raise ConfigError(f"optimized_metric={metric} with test=false: no trial runs the test, so "
                                  f"none would have a result. Fix: optimized_metric=val/acc_best (or leave "
                                  f"test=false out)")
            check_params(config)
            if "n_trials" in config.hydra.sweeper:  # a search (Optuna's): a plain sweep's job that fails
                check_choice_values(config)  # is recorded as failed, and the sweep goes on (the README)
            # pass 62, row 51: '' re-ran trial 0 into job 0's folder; the value as given, not resolved (the
            # search's own ${hydra:runtime.choices.hparams_search} resolves only inside a Hydra run)
            name = OmegaConf.to_container(config.hydra.sweeper, resolve=False).get("study_name", "x")
            # (null: the Optuna sweeper's own default, a new study each time, left as it is)
            if "n_trials" in config.hydra.sweeper and isinstance(name, str) and not name.strip():
                search = config.hydra.runtime.choices.get("hparams_search")
                default = f" (by default the search's name, {search})" if search else ""
                raise ConfigError(f"hydra.sweeper.study_name={name!r} is empty: a search continues its study "
                                  f"in optuna.db by the study's name, and its trials' job folders by that "
                                  f"study's trials. Fix: leave it out{default}, or give a name")
            if "storage" in config.hydra.sweeper:  # the Optuna sweeper's study
                check_storage(config.hydra.sweeper.storage)
            if "n_trials" in config.hydra.sweeper:
                check_search_files(config)
            if "direction" in config.hydra.sweeper:  # the Optuna sweeper's; the basic sweeper has none
                check_search_space(config)
                check_direction(config.hydra.sweeper.direction)
                check_metric_direction(metric, config.hydra.sweeper.direction)
            for key in ("n_trials", "n_jobs"):
                if key not in config.hydra.sweeper:  # the basic sweeper has neither
                    continue
                value = config.hydra.sweeper[key]
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ConfigError(f"hydra.sweeper.{key}={value!r} must be an integer >= 1 (n_trials: "
                                      f"the trials of the search; n_jobs: how many run at once), e.g. "
                                      f"hydra.sweeper.{key}=4")
            batch = config.hydra.sweeper.get("max_batch_size")  # the basic sweeper's, which asserts it
            if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
                raise ConfigError(f"hydra.sweeper.max_batch_size={batch!r} must be an integer >= 1 (the jobs "
                                  f"the basic sweeper hands the launcher at a time), or null (all at once), "
                                  f"e.g. hydra.sweeper.max_batch_size=2")  # pass 60, row 29: AssertionError
            check_sampler_counts(config.hydra.sweeper.get("sampler"))  # the Optuna sweeper's
            check_sampler_arguments(config.hydra.sweeper.get("sampler"),
                                    config.hydra.runtime.choices.get("hparams_search"))
            if "max_failure_rate" in config.hydra.sweeper:  # the Optuna sweeper asserts 0 <= it <= 1
                check_max_failure_rate(config.hydra.sweeper.max_failure_rate)
        except ConfigError as err:
            print(f"highwaylab: {err}", file=sys.stderr)
            sys.exit(1)
        warning = tuned_on_test_warning(config)
        if warning is not None:
            log.warning(warning)


def check_search_space(config: DictConfig) -> None:
    """Raises ConfigError for the Optuna sweeper with nothing to search: no ``hydra.sweeper.params``
    and no sweep among the command line's overrides (``key=a,b``, ``interval()``, ``range()``,
    ``choice()``, ``tag()``), so that every trial would train the same config (pass 53, row 68:
    before, after the direction's fix, identical trials and "Best parameters: {}", exit 0); and for a
    sweep of ``seed`` among them, which the search would tune as a parameter."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    task = list(config.hydra.overrides.get("task") or [])
    try:
        sweeps = [o for o in OverridesParser.create().parse_overrides(task) if o.is_sweep_override()]
    except Exception:  # noqa: BLE001 -- Hydra's own parse error comes later, with its own line
        return
    seeds = [o.input_line for o in sweeps if o.get_key_element().lstrip("+~") == "seed"]
    if seeds:  # pass 53, row 75: before, the seed became a searched parameter, and the best a lucky seed
        given = seeds[0]
        raise ConfigError(f"{given}: beside a search, a list of seeds makes the seed a searched parameter, "
                          f"so the search would tune on noise and pick a lucky seed. Fix: give one seed "
                          f"(the sampler's own is hydra.sweeper.sampler.seed); to repeat the best trial over "
                          f"seeds, run it afterwards with python train.py -m <its parameters> {given}")
    if config.hydra.sweeper.get("params") or sweeps:
        return
    raise ConfigError("hydra/sweeper=optuna has nothing to search (no hydra.sweeper.params, and no sweep "
                      "among the overrides), so every trial would train the same config. Fix: "
                      "hparams_search=mnist_tpe (or mnist_random: the README's search space), or give what "
                      "to search, e.g. 'optim.optimizer.lr=tag(log, interval(0.01, 0.1))'")


def check_metric_direction(metric: Any, direction: Any) -> None:
    """Check that ``hydra.sweeper.direction`` (already checked by :func:`check_direction`) goes the
    way of ``optimized_metric``: a loss (``.../loss``) is minimised, an accuracy (``.../acc``,
    ``val/acc_best``) maximised. The config's direction is ``maximize``, for ``val/acc_best``; a
    loss chosen without ``hydra.sweeper.direction=minimize`` would search for the worst trial, in
    silence (breaking pass 25, row 21).

    Raises:
        ConfigError: naming both keys and the direction to give.
    """
    given = direction[0] if isinstance(direction, Sequence) and not isinstance(direction, str) else direction
    name = getattr(given, "name", given)  # a Direction member, or its name
    if not isinstance(metric, str) or name not in ("minimize", "maximize"):
        return
    kind = metric.rsplit("/", 1)[-1]
    if kind == "loss" and name == "maximize":
        raise ConfigError(f"optimized_metric={metric} is a loss, but hydra.sweeper.direction=maximize "
                          f"would choose the trial with the highest loss. Fix: add "
                          f"hydra.sweeper.direction=minimize")
    if kind.startswith("acc") and name == "minimize":
        raise ConfigError(f"optimized_metric={metric} is an accuracy, but hydra.sweeper.direction=minimize "
                          f"would choose the trial with the lowest accuracy. Fix: "
                          f"hydra.sweeper.direction=maximize (hparams_search's), or a loss to minimise, "
                          f"e.g. optimized_metric=val/loss")


def check_max_failure_rate(rate: Any) -> None:
    """Raises ConfigError unless ``hydra.sweeper.max_failure_rate`` is a number in 0 .. 1: the share
    of a batch's trials (``n_jobs`` at a time) that may fail before the Optuna sweeper stops the search
    (1: it never stops for failures). The sweeper's own check is a bare ``assert``, which Hydra reports
    as ``AssertionError()`` with ``full_key: hydra.sweeper``."""
    if isinstance(rate, bool) or not isinstance(rate, int | float) or not 0.0 <= rate <= 1.0:
        raise ConfigError(f"hydra.sweeper.max_failure_rate={rate!r}: must be a fraction in 0.0 .. 1.0 (the "
                          f"share of a batch of trials that may fail before the search stops; 1.0: it goes "
                          f"on whatever fails). Fix: e.g. hydra.sweeper.max_failure_rate=1.0")


def tuned_on_test_warning(config: DictConfig) -> str | None:
    """The one-line warning for a search (a sweeper with ``n_trials``: Optuna's) whose
    ``optimized_metric`` is a ``test/`` metric: it picks hyperparameters by the test set, so the best
    trial's test score is no longer a fair estimate; the papers tune on validation [TVDN sec. 3.1].
    ``None`` for any other metric or sweeper."""
    metric = config.get("optimized_metric")
    searching = "n_trials" in config.hydra.sweeper
    if not searching or not isinstance(metric, str) or not metric.startswith("test/"):
        return None
    instead = "val/loss (with hydra.sweeper.direction=minimize)" if metric == "test/loss" else "val/acc_best"
    return (f"highwaylab: optimized_metric={metric} tunes the search on the test set, so the best trial's "
            f"{metric} is no longer a fair estimate of it; tune on the validation set instead: "
            f"optimized_metric={instead}")


def check_choice_values(config: DictConfig) -> None:
    """Check each value of a ``choice()`` over a key (not a config group) that a search draws
    from (an override such as ``'model.activation=choice(relu,PReLU)'``, or an entry of
    ``hydra.sweeper.params``) as a single run's value is checked: the job's config with that value
    must pass :func:`highwaylab.config_checks.validate` (breaking pass 61, row 24: before, each trial
    that drew ``PReLU`` failed, after the study had started, and Optuna added "Return value must be
    float-castable").

    Raises:
        ConfigError: naming the choice, the value and the reason it is refused.
    """
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import ChoiceSweep, IntervalSweep

    from highwaylab.config_checks import validate
    from highwaylab.errors import HighwaylabError

    choices = dict(config.hydra.runtime.choices)
    lines = [str(o) for o in config.hydra.overrides.task]
    lines += [f"{k}={v}" for k, v in (config.hydra.sweeper.get("params") or {}).items()]
    try:
        parsed = OverridesParser.create().parse_overrides(lines)
    except Exception:  # Hydra's own parser reports it
        return
    if not HydraConfig.initialized():  # the run's name and folder resolve against it
        HydraConfig.instance().set_config(config)
    try:  # the job as composed first: a fault of its own is not a choice's (each job reports it)
        validate(OmegaConf.create(OmegaConf.to_container(config, resolve=False)))
    except Exception:
        return
    for override in parsed:
        key = override.key_or_group
        if key.replace(".", "/") in choices or key.startswith("hydra."):
            continue
        if isinstance(override.value(), IntervalSweep):
            check_interval_values(config, override)
        if not isinstance(override.value(), ChoiceSweep):
            continue
        for value in override.value().list:
            if not isinstance(value, str | int | float | bool):
                continue
            job = OmegaConf.create(OmegaConf.to_container(config, resolve=False))
            try:
                OmegaConf.update(job, key, value, merge=False)
                validate(job)
            except HighwaylabError as err:
                raise ConfigError(f"{override.input_line}: {value}, one of its choices, fails the run's "
                                  f"checks, so every trial that draws it would fail: {str(err).rstrip('.')}. "
                                  f"Fix: leave {value} out of the choice()") from None
            except Exception:  # a key the job's config lacks: check_params names it
                continue


def check_interval_values(config: DictConfig, override: Any) -> None:
    """Check the values an ``interval()`` of a search draws from (``'depth=interval(3,5)'``) as a
    single run's value is checked (:func:`highwaylab.config_checks.validate`): its two bounds and,
    for an interval of real numbers, a value between them that is not a whole number (the Optuna
    sweeper draws real numbers from ``interval(3,5)``, and whole ones only from
    ``int(interval(3,5))``). Before (breaking pass 66, row 05), every trial failed on its drawn
    ``depth=3.87...``, after the study had started.

    Raises:
        ConfigError: naming the interval, a value it draws, the run's reason, and the fix: the
            ``int(...)`` form where whole numbers pass, else narrower bounds.
    """
    from highwaylab.config_checks import validate
    from highwaylab.errors import HighwaylabError

    sweep, key = override.value(), override.key_or_group
    start, end = sweep.start, sweep.end
    whole = isinstance(start, int) and isinstance(end, int)
    between = start + (end - start) * 0.37  # not a whole number for real bounds, unless they are close
    samples = [start, end] if whole else [start, between, end]

    def refusal(value: object) -> HighwaylabError | None:
        job = OmegaConf.create(OmegaConf.to_container(config, resolve=False))
        try:
            OmegaConf.update(job, key, value, merge=False)
            validate(job)
        except HighwaylabError as err:
            return err
        return None

    for value in samples:
        if (err := refusal(value)) is None:
            continue
        ints = (math.ceil(start), math.floor(end))
        if not whole and ints[0] <= ints[1] and all(refusal(v) is None for v in ints):
            value, err = between, refusal(between) or err  # the reason a real number is refused
            raise ConfigError(f"{override.input_line} draws real numbers (such as {key}={value:g}), and the "
                              f"run refuses them: {str(err).rstrip('.')}. Fix: '{key}=int(interval({ints[0]},"
                              f"{ints[1]}))', the whole numbers {ints[0]} .. {ints[1]}") from None
        raise ConfigError(f"{override.input_line}: {key}={value:g}, a value it draws, fails the run's "
                          f"checks, so every trial that draws it would fail: {str(err).rstrip('.')}. Fix: "
                          f"bounds within the values the run takes") from None


def check_params(config: DictConfig) -> None:
    """Check that every key ``hydra.sweeper.params`` sets (the Optuna search space, or the basic
    sweeper's ``params``) is a key of the job's config, as Hydra requires of an override without
    ``+``. Its keys are dotted config paths, each one key of ``params`` (``model.gate_bias``). Skipped:
    ``+``/``++``/``~`` keys (they add or delete), ``hydra.*`` keys (Hydra refuses those itself),
    config groups (``model: choice(highway,plain)``) and the keys inside a group that the search
    itself chooses.

    Raises:
        ConfigError: naming the search (``hparams_search=<choice>``, else ``hydra.sweeper.params``),
            the key, the group choice that lacks it (e.g. ``model=plain``) and the choices of that
            group that have it.
    """
    params = config.hydra.sweeper.get("params")
    if not params:
        return
    from omegaconf import OmegaConf

    choices = dict(config.hydra.runtime.choices)
    swept_groups = _swept_groups(config, choices)
    job = OmegaConf.to_container(config, resolve=False, throw_on_missing=False)
    job.pop("hydra", None)
    search = (f"hparams_search={choices['hparams_search']}" if choices.get("hparams_search")
              else "hydra.sweeper.params")
    for key in map(str, params):
        if key.startswith(("+", "~", "hydra.")) or key.replace(".", "/") in choices:
            continue
        group = _owner_group(key, choices)
        if group in swept_groups:  # each option the search draws must have it (pass 66, row 06: before,
            # optim=choice(sgd,adamw) stopped the search at Hydra's "Could not override
            # 'optim.optimizer.momentum'" and its wrong fix, a +momentum AdamW does not take)
            having = _options_with(config, group, key)  # [] outside a run of train.py: not known
            lacking = [o for o in swept_groups[group] if having and o not in having]
            if lacking:
                fit = ",".join(o for o in swept_groups[group] if o in having) or "none"
                raise ConfigError(f"{search} searches {key}, which {group}={lacking[0]} (one of the {group} "
                                  f"options it draws, {','.join(swept_groups[group])}) does not have. Fix: "
                                  f"draw only the {group} options that have it (here: {fit}), or search "
                                  f"without it: hydra.sweeper.params=null "
                                  f"and the entries to search as overrides")
            continue
        if _has_key(job, key):
            continue
        if group is None:
            raise ConfigError(f"{search} searches {key}, which the config does not have: correct or "
                              f"remove that entry of hydra.sweeper.params, or choose another search")
        name = group.replace("/", ".")
        having = _options_with(config, group, key)
        which = (f" ({' or '.join(f'{group}={o}' for o in having)})" if having else "")
        article = "an" if name[0] in "aeiou" else "a"
        raise ConfigError(f"{search} searches {key}, which {group}={choices[group]} does not have: choose "
                          f"{article} {name} that has it{which} or another search, or search without it: "
                          f"hydra.sweeper.params=null and the entries to search as overrides, e.g. "
                          f"'optim.optimizer.lr=tag(log, interval(0.001, 1.0))'")


def check_storage(storage: object) -> None:
    """Check the Optuna study's ``hydra.sweeper.storage``, a SQLAlchemy database URL, before the
    sweeper opens it: that SQLAlchemy reads it and has its dialect and driver, and, for SQLite, that
    the file's folder exists or can be made (its nearest existing folder can be written). ``null``
    (a study in memory) passes.

    Raises:
        ConfigError: naming ``hydra.sweeper.storage``, SQLAlchemy's or the file system's reason, and
            the fix.
    """
    if storage is None:
        return
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    fix = ("Fix: hydra.sweeper.storage=sqlite:///<folder>/optuna.db (the default puts it in the sweep's "
           "folder), another database URL, or null (a study in memory, lost at the end)")
    try:
        url = make_url(str(storage))
        dialect = url.get_dialect()
    except (ArgumentError, NoSuchModuleError, ValueError) as err:
        reason = str(err).splitlines()[0]
        raise ConfigError(f"hydra.sweeper.storage={storage} is not a database URL SQLAlchemy can open "
                          f"({type(err).__name__}: {reason}). {fix}") from None
    try:
        (getattr(dialect, "import_dbapi", None) or dialect.dbapi)()  # the driver (SQLAlchemy 2 / 1.4)
    except ImportError as err:
        raise ConfigError(f"hydra.sweeper.storage={storage}: the {url.get_backend_name()} driver that "
                          f"SQLAlchemy needs is not installed ({err}). Fix: pip install it (e.g. psycopg2 "
                          f"for postgresql), or use SQLite: the default hydra.sweeper.storage") from None
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        return
    if not os.path.isabs(url.database):  # pass 63, row 48: before, the study went to the folder the command
        # was typed in, and the same command typed elsewhere opened another, empty one
        whole = Path(url.database).absolute()
        raise ConfigError(f"hydra.sweeper.storage={storage} is relative to the folder the command is typed "
                          f"in ({Path.cwd()}), so the same command typed elsewhere would open another "
                          f"study, not continue this one. Fix: an absolute path, "
                          f"hydra.sweeper.storage=sqlite:///{whole} (or leave it out: optuna.db in the "
                          f"sweep's folder)")
    folder = Path(url.database).absolute().parent
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    reason = f"{existing} is a file" if not existing.is_dir() else None
    try:
        if reason is None:
            with tempfile.TemporaryFile(dir=existing):  # a probe, removed at once: nothing is left
                pass
    except OSError as err:
        reason = f"{err.strerror or err} at {existing}"
    if reason is not None:
        raise ConfigError(f"hydra.sweeper.storage={storage}: the study's folder {folder} cannot be made "
                          f"({reason}). {fix}")


def check_search_files(config: DictConfig) -> None:
    """Check that the files a continued search rewrites can be written, before any trial: its SQLite
    study (``hydra.sweeper.storage``) and ``<sweep dir>/optimization_results.yaml`` (the best trial,
    written at the end), where they exist. Each is opened for reading and writing and closed, which
    changes nothing; a protected file (``chattr +i`` or ``+a``, or read-only for a user) refuses it.
    Before (breaking pass 66, rows 20 and 28), a protected ``optuna.db`` was a traceback through
    SQLAlchemy that blamed "invalid data in the commit", and a protected
    ``optimization_results.yaml`` a traceback after the trials had run, the file left holding an
    earlier search's best.

    Raises:
        ConfigError: naming the file, the reason and the fix.
    """
    from sqlalchemy.engine import make_url

    from highwaylab.utils.output_folder import protection

    files = [Path(str(config.hydra.sweep.dir)).absolute() / "optimization_results.yaml"]
    storage = config.hydra.sweeper.get("storage")
    try:
        url = make_url(str(storage)) if storage is not None else None
    except Exception:  # noqa: BLE001 - check_storage names it
        url = None
    if url is not None and url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        files.insert(0, Path(url.database).absolute())
    study = files[0] if files[0].name != "optimization_results.yaml" else None
    if study is not None and study.exists() and study.parent.is_dir() \
            and (protection(study.parent) or not os.access(study.parent, os.W_OK)):
        # SQLite makes and deletes a journal file beside the study at each write (pass 67, row 9: an
        # append-only folder, chattr +a, refused the delete: a traceback blaming "invalid data")
        folder, why = shlex.quote(str(study.parent)), protection(study.parent) or "not writable"
        raise ConfigError(f"{study.parent}, the folder of the search's study, is {why}, and SQLite makes "
                          f"and deletes a journal file there at each write. Fix: chattr -i -a {folder} (or "
                          f"make it writable), or a new hydra.sweep.dir for a new search")
    for path in files:
        if not path.exists():
            continue
        try:
            with path.open("r+b"):  # read and write, from the start: nothing is changed
                pass
        except OSError as err:
            what = "the best trial's file" if path.name.startswith("optimization") else "the search's study"
            raise ConfigError(f"{path}, {what}, cannot be written ({err.strerror or err}: a protected file? "
                              f"lsattr shows 'i' or 'a'), and a continued search rewrites it. Fix: chattr -i "
                              f"-a {shlex.quote(str(path))} (or make it writable), or a new hydra.sweep.dir "
                              f"for a new search") from None


def _swept_groups(config: DictConfig, choices: dict) -> dict[str, list[str]]:
    """The config groups that a sweep draws (``optim=choice(sgd,adamw)``, ``optim=sgd,adamw``, on the
    command line or in ``hydra.sweeper.params``), each with the options it draws (``[]`` where they
    are not listed: ``glob()``)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import ChoiceSweep

    lines = [str(o) for o in config.hydra.overrides.task]
    lines += [f"{k}={v}" for k, v in (config.hydra.sweeper.get("params") or {}).items()]
    swept: dict[str, list[str]] = {}
    for line in lines:
        try:
            override = OverridesParser.create().parse_overrides([line])[0]
        except Exception:  # noqa: BLE001 - Hydra's own parser reports it
            continue
        group = override.key_or_group.replace(".", "/")
        if group in choices and override.is_sweep_override():
            value = override.value()
            swept[group] = [str(v) for v in value.list] if isinstance(value, ChoiceSweep) else []
    return swept


def _owner_group(key: str, choices: dict) -> str | None:
    """The config group whose choice holds the dotted ``key`` (the longest one: ``optim`` for
    ``optim.optimizer.lr``), or ``None`` if no chosen group does."""
    parts = key.split(".")
    for n in range(len(parts) - 1, 0, -1):
        group = "/".join(parts[:n])
        if choices.get(group) is not None:
            return group
    return None


def _has_key(container: Any, key: str) -> bool:
    """Whether the dotted ``key`` is a key of the unresolved config ``container`` (plain dicts and
    lists); a path through an interpolation (unknown before resolution) counts as present."""
    node = container
    for part in key.split("."):
        if isinstance(node, str) and node.startswith("${"):
            return True
        if isinstance(node, dict):
            if part not in node:
                return False
            node = node[part]
        elif isinstance(node, list) and part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
            node = node[int(part)]
        else:
            return False
    return True


def _options_with(config: DictConfig, group: str, key: str) -> list[str]:
    """The options of config group ``group`` whose job config has ``key`` with a value (else with the
    key at all), composed as the sweep's jobs are (its overrides, with ``group=<option>``); [] when
    Hydra is not initialised (outside a run of ``train.py``) or nothing fits."""
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf

    if not GlobalHydra.instance().is_initialized():
        return []
    loader = GlobalHydra.instance().config_loader()
    try:
        task = [str(o) for o in config.hydra.overrides.task]
        parsed = OverridesParser.create().parse_overrides(task)
        task = [text for text, o in zip(task, parsed, strict=True)  # one job's: no sweeps (a,b)
                if o.key_or_group != group and not o.is_sweep_override()]
        options = loader.get_group_options(group)
    except Exception:  # noqa: BLE001 - only the suggestion is lost
        return []
    with_value, with_key = [], []
    for option in options:
        try:
            overrides = [*config.hydra.overrides.hydra, *task, f"{group}={option}"]
            cfg = loader.load_configuration(config_name=config.hydra.job.config_name, overrides=overrides,
                                            run_mode=RunMode.RUN)
        except Exception:  # noqa: BLE001 - an option these overrides do not fit
            continue
        job = OmegaConf.to_container(cfg, resolve=False, throw_on_missing=False)
        if _has_key(job, key):
            with_key.append(option)
            if OmegaConf.select(cfg, key, throw_on_resolution_failure=False) is not None:
                with_value.append(option)
    return with_value or with_key


def check_direction(direction: Any) -> None:
    """Check ``hydra.sweeper.direction`` of the Optuna sweeper: one of the names of the plugin's own
    ``Direction`` enum (``hydra_plugins.hydra_optuna_sweeper.config.Direction``: ``minimize``,
    ``maximize``; optuna compares them case-sensitively), a ``Direction`` member, or a list of one
    of them. A list of two or more (optuna's multi-objective search) is refused too: a job returns
    one value, ``optimized_metric``, so every trial would train and then fail.

    Raises:
        ConfigError: naming ``hydra.sweeper.direction``, the value and the fix.
    """
    from hydra_plugins.hydra_optuna_sweeper.config import Direction

    names = list(Direction.__members__)
    listed = isinstance(direction, Sequence) and not isinstance(direction, str)
    given = list(direction) if listed else [direction]
    names_given = ["null" if d is None else d.name if isinstance(d, Direction) else d for d in given]
    shown = f"[{','.join(map(str, names_given))}]" if listed else names_given[0]
    bad = [d for d in given if not isinstance(d, Direction) and not (isinstance(d, str) and d in names)]
    if bad or not given:
        raise ConfigError(f"hydra.sweeper.direction={shown} is not a direction of the Optuna sweeper: "
                          f"give {' or '.join(names)} (lower case), e.g. hydra.sweeper.direction=maximize "
                          f"for optimized_metric=val/acc_best")
    if len(given) > 1:
        raise ConfigError(f"hydra.sweeper.direction={shown} asks for a search of {len(given)} objectives, "
                          f"but a job returns one value (optimized_metric), so every trial would fail: "
                          f"give one direction, e.g. hydra.sweeper.direction={names_given[0]}")
