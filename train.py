"""Train a highway, residual or plain network: ``python train.py model=highway depth=100``.

All options live in conf/ (Hydra); ``python train.py --help`` lists them.
"""

import logging
import os
import sys
from pathlib import Path

import hydra
from omegaconf import DictConfig

os.environ.setdefault("HIGHWAYLAB_ROOT", str(Path(__file__).resolve().parent))

from highwaylab.train import optimized_metric, train  # noqa: E402
from highwaylab.utils import register_resolvers, user_error  # noqa: E402

log = logging.getLogger("highwaylab")
register_resolvers()


@hydra.main(version_base="1.3", config_path="conf", config_name="train")
def main(cfg: DictConfig) -> float | None:
    try:
        metrics = train(cfg)
    except Exception as err:
        if (user := user_error(err)) is None:
            raise
        where = str(err).split("full_key: ")[-1].strip() if "full_key: " in str(err) else ""
        log.error(f"highwaylab: {user}" + (f" [config key: {where}]" if where else ""))
        sys.exit(1)
    return optimized_metric(cfg, metrics)


if __name__ == "__main__":
    main()
