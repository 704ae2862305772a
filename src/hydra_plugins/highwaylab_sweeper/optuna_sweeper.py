"""The Optuna sweeper of ``hydra-optuna-sweeper``, with one case that it reports as a traceback made
one line: a search whose every trial failed (optuna's ``study.best_trial`` raises "No trials are
completed yet"). The search itself is the plugin's own, unchanged. Chosen by
``hydra.sweeper._target_`` in ``conf/hparams_search/``. The sweeper's settings are checked before it
is built, by :class:`highwaylab.utils.sweep.SweepCheck`."""

from __future__ import annotations

import logging
import sys

from hydra_plugins.hydra_optuna_sweeper.optuna_sweeper import OptunaSweeper as _OptunaSweeper

log = logging.getLogger("highwaylab")


class OptunaSweeper(_OptunaSweeper):
    """``hydra_plugins.hydra_optuna_sweeper.optuna_sweeper.OptunaSweeper`` with one-line errors:
    ``highwaylab: <message>`` on stderr and exit status 1."""

    def sweep(self, arguments: list[str]) -> None:
        impl = self.sweeper
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


def _exit(message: str) -> None:
    print(f"highwaylab: {message}", file=sys.stderr)
    sys.exit(1)
