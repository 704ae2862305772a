"""Train a highway, residual or plain network: ``python train.py model=highway depth=100``.

All options live in conf/ (Hydra); ``python train.py --help`` lists them.
"""

import logging
import math
import os
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

os.environ.setdefault("HIGHWAYLAB_ROOT", str(Path(__file__).resolve().parent))

from highwaylab.train import optimized_metric, train  # noqa: E402
from highwaylab.utils import register_resolvers, user_error  # noqa: E402
from highwaylab.utils.sweep import in_multirun, record_job  # noqa: E402

log = logging.getLogger("highwaylab")
register_resolvers()


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> float | None:
    """Train; in a multirun, record the job in the sweep's summary.jsonl, and let a failed job
    return NaN (the sweep, or the Optuna search, goes on) instead of raising."""
    try:
        metrics = train(cfg)
    except Exception as err:
        user = user_error(err)
        where = str(err).split("full_key: ")[-1].strip() if "full_key: " in str(err) else ""
        message = f"{user or repr(err)}" + (f" [config key: {where}]" if where else "")
        if in_multirun():
            record_job("failed", error=message.splitlines()[0])
            # a bug (not a user error) keeps its traceback in the job's log
            log.error(f"highwaylab: job failed, the sweep goes on: {message}", exc_info=user is None)
            return math.nan
        if user is None:
            raise
        log.error(f"highwaylab: {message}")
        sys.exit(1)
    record_job("ok", metrics)
    return optimized_metric(cfg, metrics)


if __name__ == "__main__":
    main()
