"""The Optuna sweeper of ``hydra-optuna-sweeper``, with a shared study that a restarted search
continues, and a search whose every trial failed reported in one line.

The search itself is the plugin's own: it asks the study for ``n_jobs`` trials at a time, launches
them together through the launcher (``hydra/launcher=slurm``: ``n_jobs`` SLURM jobs at once) and
tells the study each result; a failed or NaN trial (the job returns nothing) is marked failed.
Added here, around it:

- the storage folder is created first (``sqlite:///<sweep dir>/optuna.db``);
- a study that already holds trials (the same ``hydra.sweep.dir`` and ``study_name``: a restarted
  search) is continued (in the direction it was created with: another one is refused in one
  line): its finished trials count towards ``n_trials``, trials left ``RUNNING`` by
  a search that died are marked failed, new jobs are numbered after the old ones, so that no job
  folder is reused, and the sampler is reseeded (randomly: a seeded sampler would propose the
  earlier trials again);
- when every trial failed, optuna's ``study.best_trial`` raises "No trials are completed yet"; that
  becomes the failed jobs' errors and one ``highwaylab:`` line, exit status 1.

Chosen by ``hydra.sweeper._target_`` in ``conf/hparams_search/``. The sweeper's settings are checked
before it is built, by :class:`highwaylab.utils.sweep.SweepCheck`.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from hydra_plugins.hydra_optuna_sweeper.optuna_sweeper import OptunaSweeper as _OptunaSweeper

log = logging.getLogger("highwaylab")
SQLITE = "sqlite:///"


class OptunaSweeper(_OptunaSweeper):
    """``hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper``, continuing a stored
    study and with one-line errors (see the module docstring)."""

    def sweep(self, arguments: list[str]) -> None:
        impl = self.sweeper
        storage = impl.storage if isinstance(impl.storage, str) else None
        if storage and storage.startswith(SQLITE):
            Path(storage[len(SQLITE):]).parent.mkdir(parents=True, exist_ok=True)
        if storage and impl.study_name:
            self._continue_study(storage, impl.study_name)
        try:
            return super().sweep(arguments)
        except ValueError:
            from highwaylab.utils.sweep import read_summary

            jobs = read_summary(impl.config.hydra.sweep.dir)
            if not jobs or any(job["status"] == "ok" for job in jobs):
                raise  # not the all-failed case: a bug, with its traceback
            for job in jobs:
                log.error(f"job {job['job']} ({' '.join(job['overrides'])}) {job['status']}: {job['error']}")
            _exit(f"all {len(jobs)} trials of the search failed (errors above, and in "
                  f"{impl.config.hydra.sweep.dir}/summary.jsonl), so there are no best parameters. Fix "
                  f"the first error and run the search again.")

    def _continue_study(self, storage: str, name: str) -> None:
        import optuna

        try:
            study = optuna.load_study(study_name=name, storage=storage)
        except KeyError:  # no such study yet: a new search
            return
        trials = study.get_trials(deepcopy=False)
        if not trials:
            return
        impl = self.sweeper
        wanted = [str(d).lower() for d in impl._get_directions()]
        stored = [d.name.lower() for d in study.directions]
        if wanted != stored:  # optuna would raise "Cannot overwrite study direction", with a traceback
            given, held = ",".join(wanted), f"{len(trials)} trial{'s' if len(trials) != 1 else ''}"
            _exit(f"hydra.sweeper.direction={given}, but the study {name} in {storage} was created to "
                  f"{','.join(stored)} (it holds {held}, ranked so), and a study keeps its "
                  f"direction. Fix: continue it with hydra.sweeper.direction={','.join(stored)}, or start a "
                  f"new search in another hydra.sweep.dir")
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


def _exit(message: str) -> None:
    print(f"highwaylab: {message}", file=sys.stderr)
    sys.exit(1)
