"""The Optuna sweeper of ``hydra-optuna-sweeper``, with a shared study that a restarted search
continues, and a search whose every trial failed reported in one line.

The search itself is the plugin's own: it asks the study for ``n_jobs`` trials at a time, launches
them together through the launcher (``hydra/launcher=slurm``: ``n_jobs`` SLURM jobs at once) and
tells the study each result; a failed or NaN trial (the job returns nothing) is marked failed.
Added here, around it:

- the storage folder is created first (``sqlite:///<sweep dir>/optuna.db``), and the search holds its
  sweep folder's lock while it runs: a second search there is refused in one line (:func:`_one_search`);
- a continued study whose trials drew a parameter otherwise than this command would (another kind,
  or a ``choice()`` of other values, which optuna refuses within a study) is refused before any trial;
- a study that already holds trials (the same ``hydra.sweep.dir`` and ``study_name``: a restarted
  search) is continued (in the direction it was created with, and with the fixed overrides its
  trials ran with, which the plugin keeps as each trial's user attributes: another direction, or a
  fixed override added, left out or changed, ``depth=4`` for a study of ``depth=3``, is refused in
  one line before any trial, as it would mix the trials of two settings in one ranking; the
  search's own parameters and the keys that leave a trial's result as it is, ``FREE``, may
  change, and so may ``hydra.*``, ``n_trials`` too): its finished trials count towards
  ``n_trials``, trials left ``RUNNING`` by
  a search that died are marked failed, new jobs are numbered after the old ones, so that no job
  folder is reused, and the sampler is reseeded (randomly: a seeded sampler would propose the
  earlier trials again);
- when every trial failed, optuna's ``study.best_trial`` raises "No trials are completed yet"; that
  becomes the failed jobs' errors and one ``highwaylab:`` line, exit status 1.

Chosen by ``hydra.sweeper._target_`` in ``conf/hparams_search/``. The sweeper's settings are checked
before it is built, by :class:`highwaylab.utils.sweep.SweepCheck`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

from hydra_plugins.hydra_optuna_sweeper.optuna_sweeper import OptunaSweeper as _OptunaSweeper

log = logging.getLogger("highwaylab")
SQLITE = "sqlite:///"
# fixed overrides a continued study may change: they leave a trial's result as it is (where the data
# lies and how it is read, the loggers and callbacks, which log, draw and save, names), or choose the
# search itself (hparams_search=)
FREE = ("data.data_dir", "data.num_workers", "data.pin_memory", "data.download", "data.verify",
        "module.compile", "logger", "callbacks", "trainer.log_every_n_steps", "trainer.enable_progress_bar",
        "paths", "run_name", "tags", "hparams_search")


# optuna's study.best_trial without a finished trial: in memory, and in an RDB storage (optuna 2.10)
NO_BEST = ("No trials are completed yet", "Record does not exist")


class OptunaSweeper(_OptunaSweeper):
    """``hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper``, continuing a stored
    study and with one-line errors (see the module docstring)."""

    def sweep(self, arguments: list[str]) -> None:
        with _one_search(Path(str(self.sweeper.config.hydra.sweep.dir))):
            return self._sweep(arguments)

    def _sweep(self, arguments: list[str]) -> None:
        impl = self.sweeper
        storage = impl.storage if isinstance(impl.storage, str) else None
        if storage and storage.startswith(SQLITE):
            Path(storage[len(SQLITE):]).parent.mkdir(parents=True, exist_ok=True)
        if storage and impl.study_name:
            self._continue_study(storage, impl.study_name, arguments)
        try:
            return super().sweep(arguments)
        except ValueError as err:
            from highwaylab.utils.sweep import read_summary

            jobs = read_summary(impl.config.hydra.sweep.dir)
            none_done = any(text in str(err) for text in NO_BEST)
            if not none_done or not jobs or any(job["status"] == "ok" for job in jobs):
                raise  # not the all-failed case (optuna's study.best_trial): a bug, with its traceback
            for job in jobs:
                log.error(f"job {job['job']} ({' '.join(job['overrides'])}) {job['status']}: {job['error']}")
            given = any(o.startswith("hydra.sweep.dir=") for o in impl.config.hydra.overrides.hydra)
            again = (" in a new hydra.sweep.dir (continued in this one, the study would count its failed "
                     "trials towards hydra.sweeper.n_trials)" if given else "")
            _exit(f"all {len(jobs)} trials of the search failed (errors above, and in "
                  f"{impl.config.hydra.sweep.dir}/summary.jsonl), so there are no best parameters. Fix "
                  f"the first error and run the search again{again}.")

    def _continue_study(self, storage: str, name: str, arguments: list[str]) -> None:
        import optuna

        try:
            study = optuna.load_study(study_name=name, storage=storage)
        except KeyError:  # no such study yet: a new search, in a folder of its own
            others = [s for s in optuna.get_all_study_summaries(storage=storage) if s.n_trials > 0]
            if others:  # pass 33, row 43 (major): before, its trials, numbered from 0, ran in the
                held = ", ".join(f"{s.study_name} ({s.n_trials} trial{'s' if s.n_trials != 1 else ''})"
                                 for s in others)  # other study's job folders, over their files
                _exit(f"hydra.sweep.dir={self.sweeper.config.hydra.sweep.dir} holds another study's trials "
                      f"({held}, in {storage}), and this search ({name}) would number its jobs from 0 again, "
                      f"into those trials' folders. Fix: a new hydra.sweep.dir for a new study (or continue "
                      f"that study with the hparams_search= it was started with)")
            return
        trials = study.get_trials(deepcopy=False)
        if not trials:
            return
        impl = self.sweeper
        # first: a changed objective (optimized_metric) is named as that, not by the direction that
        # follows it (pass 80, row 71, major: before, the direction's fix, then the metric's, in a loop)
        if (changed := self._changed_overrides(trials, arguments)) is not None:
            _exit(f"hydra.sweep.dir={impl.config.hydra.sweep.dir} holds a study ({name}, {len(trials)} "
                  f"trial{'s' if len(trials) != 1 else ''}) whose trials ran with {changed}, or a new "
                  f"hydra.sweep.dir for a new study")
        wanted = [str(d).lower() for d in impl._get_directions()]
        stored = [d.name.lower() for d in study.directions]
        if wanted != stored:  # optuna would raise "Cannot overwrite study direction", with a traceback
            given, held = ",".join(wanted), f"{len(trials)} trial{'s' if len(trials) != 1 else ''}"
            _exit(f"hydra.sweeper.direction={given}, but the study {name} in {storage} was created to "
                  f"{','.join(stored)} (it holds {held}, ranked so), and a study keeps its "
                  f"direction. Fix: continue it with hydra.sweeper.direction={','.join(stored)}, or start a "
                  f"new search in another hydra.sweep.dir")
        if (drawn := self._changed_distribution(trials, arguments)) is not None:
            _exit(f"hydra.sweep.dir={impl.config.hydra.sweep.dir} holds a study ({name}, {len(trials)} "
                  f"trial{'s' if len(trials) != 1 else ''}) whose trials drew {drawn}, or a new "
                  f"hydra.sweep.dir for a new study")
        stale = [t for t in trials if t.state == optuna.trial.TrialState.RUNNING]
        for trial in stale:  # asked by a search that died before it could tell the result
            study._storage.set_trial_state(trial._trial_id, optuna.trial.TrialState.FAIL)
        done = len(trials)
        impl.job_idx = max(impl.job_idx or 0, done)  # new job folders after the old ones
        left = max(0, impl.n_trials - done)
        make_up = (f" (failed trials count among them: hydra.sweeper.n_trials={impl.n_trials + len(stale)} "
                   f"makes up for the {len(stale)} that stopped)" if stale else "")
        log.info(f"Continuing study {name} in {storage}: {done} trials already "
                 f"({len(stale)} left running by an earlier search, now failed); {left} more to reach "
                 f"hydra.sweeper.n_trials={impl.n_trials}{make_up}")
        impl.n_trials = left
        reseed = getattr(impl.sampler, "reseed_rng", None)
        if callable(reseed):  # else the seeded sampler would propose the earlier search's trials again
            reseed()

    def _changed_distribution(self, trials: list, arguments: list[str]) -> str | None:
        """How a parameter that this command searches is drawn otherwise than the study's trials drew
        it, in a way optuna refuses within one study (``optuna.distributions.
        check_distribution_compatibility``: another kind, real numbers for whole ones, or a
        ``choice()`` of other values), as the middle of the refusal: ``model.activation from
        choice(relu,tanh); this command draws it from choice(relu,sigmoid). Fix: ...``; ``None`` when
        every one agrees. Before (breaking pass 66, rows 05 and 34), optuna's ValueError came from
        inside the search: a traceback, or "all trials failed" after none had run. Bounds may change."""
        from hydra_plugins.hydra_optuna_sweeper._impl import create_params_from_overrides
        from optuna.distributions import check_distribution_compatibility

        impl = self.sweeper
        searched, _ = create_params_from_overrides([*impl._parse_sweeper_params_config(), *arguments])
        for trial in sorted(trials, key=lambda t: t.number):
            for key, old in trial.distributions.items():
                new = searched.get(key)
                if new is None:
                    continue
                try:
                    check_distribution_compatibility(old, new)
                except ValueError:
                    given = next((o for o in arguments if _key(o.split("=", 1)[0]) == key), None)
                    where = f"draws it from {_drawn(new)}" if given else (
                        f"(its hparams_search's hydra.sweeper.params) draws it from {_drawn(new)}")
                    return (f"{key} from {_drawn(old)}; this command {where}, and optuna cannot change a "
                            f"parameter's kind (real or whole numbers, on a log scale or not, or a choice) "
                            f"or a choice's values within a study. Fix: '{key}={_drawn(old)}' to continue it")
        return None

    def _changed_overrides(self, trials: list, arguments: list[str]) -> str | None:
        """How the command's fixed overrides (``arguments``, less the search's parameters and ``FREE``
        keys) differ from those the study's first recorded trial ran with (its user attributes, which
        the plugin sets to the fixed overrides of the command that asked for it), as the middle of
        the refusal: ``depth=3; this command has depth=4. Fix: give depth=3 to continue it``;
        ``None`` when they agree, or when no trial records them (a study made elsewhere)."""
        from hydra_plugins.hydra_optuna_sweeper._impl import create_params_from_overrides

        impl = self.sweeper
        searched, fixed = create_params_from_overrides([*impl._parse_sweeper_params_config(), *arguments])
        searched = {_key(k) for k in searched} | {_key(k) for k in (impl.search_space or {})}
        recorded = next((t.user_attrs for t in sorted(trials, key=lambda t: t.number) if t.user_attrs), None)
        if recorded is None:
            return None
        given = {_key(k): o for o in arguments for k in [o.split("=", 1)[0]]}

        def kept(params: dict) -> dict:
            return {_key(k): (k, v) for k, v in params.items()
                    if _key(k) not in searched and not any(_key(k) == f or _key(k).startswith(f + ".")
                                                           or _key(k).startswith(f + "/") for f in FREE)}

        old, new = kept(dict(recorded)), kept(fixed)
        keys = [k for k in [*old, *(k for k in new if k not in old)] if old.get(k, (0, None))[1] !=
                new.get(k, (0, None))[1] or (k in old) != (k in new)]
        if not keys:
            return None
        ran = ", ".join(_shown(*old[k]) if k in old else f"no {k}=" for k in keys)
        has = ", ".join(given.get(k) or _shown(*new[k]) if k in new else f"no {k}=" for k in keys)
        give = [_shown(*old[k]) for k in keys if k in old]
        drop = [given.get(k) or _shown(*new[k]) for k in keys if k not in old]
        fix = " and ".join(([f"give {' '.join(give)}"] if give else [])
                           + ([f"leave out {' '.join(drop)}"] if drop else []))
        return f"{ran}; this command has {has}. Fix: {fix} to continue it"


def _key(key: str) -> str:
    """The config key an override's key sets: ``depth`` for ``+depth``, ``++depth`` or ``~depth``."""
    return key.lstrip("+~").split("@")[0]


def _shown(key: str, value: object) -> str:
    """``key=value`` as it is written on the command line (``null``, ``true``, ``[a,b]``)."""
    if key.startswith("~"):
        return key
    return f"{key}={_value_text(value)}"


def _value_text(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, list | tuple):
        return "[" + ",".join(_value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_value_text(v)}" for k, v in value.items()) + "}"
    return str(value)


def _drawn(distribution: object) -> str:
    """An optuna distribution as the override that draws it: ``interval(3.0,5.0)``,
    ``int(interval(3,5))``, ``tag(log,interval(0.01,0.1))``, ``choice(relu,tanh)``,
    ``range(1,5,2)``."""
    name = type(distribution).__name__
    if hasattr(distribution, "choices"):
        return f"choice({','.join(_value_text(c) for c in distribution.choices)})"
    low, high = distribution.low, distribution.high
    step = getattr(distribution, "step", None) or getattr(distribution, "q", None)
    if "Discrete" in name or (step not in (None, 1) and "Int" in name):
        return f"range({low},{high + step},{step})"
    text = f"interval({low},{high})"
    text = f"int({text})" if "Int" in name else text
    return f"tag(log,{text})" if "Log" in name or getattr(distribution, "log", False) else text


@contextlib.contextmanager
def _one_search(sweep_dir: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on the sweep's folder while the search runs, so that a second
    search started in that folder is refused in one line (pass 67, row 42: before, it marked the
    first's live trial failed, the first then stopped with a traceback, and optimization_results.yaml
    named the worse trial). Parallel trials are one search's: ``hydra.sweeper.n_jobs``. The kernel
    releases the lock when the process ends; where the folder cannot be opened or locked, nothing is."""
    try:
        import fcntl

        sweep_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(sweep_dir, os.O_RDONLY)
    except (ImportError, OSError):
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            _exit(f"hydra.sweep.dir={sweep_dir} is in use by another search, still running (fuser -v "
                  f"{sweep_dir} names it): a second one would mark its live trials failed. Fix: wait for it "
                  f"to end, then run this command to continue the study; to run trials in parallel, give one "
                  f"search hydra.sweeper.n_jobs=<n>")
        except OSError:  # a file system without flock
            pass
        yield
    finally:
        os.close(fd)


def _exit(message: str) -> None:
    print(f"highwaylab: {message}", file=sys.stderr)
    sys.exit(1)
