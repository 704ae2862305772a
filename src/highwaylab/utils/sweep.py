"""The summary of a multirun: one JSON line per finished or failed job in ``<sweep dir>/summary.jsonl``.

Every job appends its own line when it ends (one small ``write`` in append mode, so jobs of a
parallel launcher do not interleave), whether it succeeded or failed; ``python -m highwaylab.report``
reads it with the jobs' ``metrics.json`` files.
"""

from __future__ import annotations

import json
import logging
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig

from highwaylab.errors import ConfigError
from highwaylab.utils.ranks import env_rank

log = logging.getLogger(__name__)
SUMMARY = "summary.jsonl"


def in_multirun() -> bool:
    """Whether this process runs a job of a Hydra multirun (``-m``)."""
    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def record_job(status: str, metrics: dict[str, Any] | None = None, error: str | None = None) -> Path | None:
    """Append this job's line to ``<sweep dir>/summary.jsonl``; does nothing outside a multirun and on
    any rank but zero (:func:`highwaylab.utils.ranks.env_rank`).

    The line holds ``job`` (Hydra's job number), ``overrides`` (the job's command-line overrides),
    ``output_dir``, ``status`` (``"ok"``, ``"failed"``, or ``"interrupted"``: stopped by SIGTERM or
    SIGINT with its state saved, to be resumed), ``error`` (one line, or null), and the
    job's final ``metrics`` (NaN and infinity written as null).

    Returns:
        The summary file, or ``None`` outside a multirun.
    """
    if not in_multirun() or env_rank() != 0:  # a DDP job is recorded once, by rank zero
        return None
    hc = HydraConfig.get()
    line = {"job": hc.job.num, "overrides": list(hc.overrides.task), "output_dir": hc.runtime.output_dir,
            "status": status, "error": error,
            "metrics": {k: _json_value(v) for k, v in (metrics or {}).items()}}
    path = Path(hc.sweep.dir) / SUMMARY
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(line) + "\n")
    return path


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
    A line that is not JSON (a job killed while writing it) is skipped with a warning."""
    path = Path(sweep_dir) / SUMMARY
    if not path.is_file():
        return []
    lines = []
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        if not text.strip():
            continue
        try:
            lines.append(json.loads(text))
        except json.JSONDecodeError:
            log.warning(f"{path}, line {number}: not JSON (a job killed while writing it?); skipped")
    return lines


def _json_value(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


class SweepSummary(Callback):
    """Hydra callback: at the end of a multirun, log how many jobs finished and each failed job with
    its error (from ``summary.jsonl``), and exit with status 1 if any failed.

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.sweep_summary``).
    """

    def on_multirun_end(self, config: DictConfig, **kwargs) -> None:
        lines = read_summary(config.hydra.sweep.dir)
        failed = [line for line in lines if line["status"] != "ok"]
        log.info(f"Sweep {config.hydra.sweep.dir}: {len(lines) - len(failed)} of {len(lines)} jobs finished "
                 f"(summary.jsonl)")
        for line in failed:
            log.error(f"job {line['job']} ({' '.join(line['overrides'])}) {line['status']}: {line['error']}")
        if failed:
            sys.exit(1)




class SweepCheck(Callback):
    """Hydra callback: before a multirun builds its sweeper, check what the sweeper reads: ``seed``
    (it seeds the Optuna sampler as well as every job), a search's ``optimized_metric`` (one of
    ``RUN_METRICS``), ``hydra.sweeper.direction`` (:func:`check_direction`) and
    ``hydra.sweeper.n_trials`` and ``n_jobs`` (integers >= 1). A bad value is one ``highwaylab:``
    line on stderr and exit status 1, instead of optuna's traceback (after the sweep folder and its
    ``optuna.db`` are made) or, for ``n_trials=0``, a search that fails at its end.

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.sweep_check``).
    """

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        from highwaylab.config_checks import RUN_METRICS, check_seed

        try:
            check_seed(config.get("seed"))
            metric = config.get("optimized_metric")
            if "n_trials" in config.hydra.sweeper and metric is not None and metric not in RUN_METRICS:
                raise ConfigError(f"optimized_metric={metric} is not a metric of the run, so every trial "
                                  f"would train and then fail; choose one of {', '.join(RUN_METRICS)}")
            if "direction" in config.hydra.sweeper:  # the Optuna sweeper's; the basic sweeper has none
                check_direction(config.hydra.sweeper.direction)
            for key in ("n_trials", "n_jobs"):
                if key not in config.hydra.sweeper:  # the basic sweeper has neither
                    continue
                value = config.hydra.sweeper[key]
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ConfigError(f"hydra.sweeper.{key}={value!r} must be an integer >= 1 (n_trials: "
                                      f"the trials of the search; n_jobs: how many run at once), e.g. "
                                      f"hydra.sweeper.{key}=4")
        except ConfigError as err:
            print(f"highwaylab: {err}", file=sys.stderr)
            sys.exit(1)


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
