"""Send scalars, figures and tables to every logger of a Trainer, on rank zero only.

W&B gets ``wandb.Image`` lists (with captions) and ``wandb.Table``; TensorBoard gets
``add_figure``; any other logger (CSV) gets PNG and CSV files under ``<run dir>/figures/``.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import lightning as L
import numpy as np
from lightning.pytorch.loggers import TensorBoardLogger, WandbLogger
from lightning.pytorch.utilities import rank_zero_only
from matplotlib.figure import Figure

from highwaylab.analysis.plots import to_rgb


@rank_zero_only
def log_scalars(trainer: L.Trainer, metrics: dict[str, float]) -> None:
    """Log ``metrics`` at ``trainer.global_step`` to every logger."""
    for logger in trainer.loggers:
        logger.log_metrics(metrics, step=trainer.global_step)


@rank_zero_only
def log_figures(trainer: L.Trainer, key: str, figures: Sequence[Figure],
                captions: Sequence[str] | None = None) -> list[Path]:
    """Log figures under ``key`` (one W&B media key: its slider steps through the epochs).

    Returns the PNG files written for loggers without image support (empty otherwise).
    """
    written: list[Path] = []
    images = [to_rgb(fig) for fig in figures]  # renders and closes every figure
    captions = list(captions or [f"{key}, epoch {trainer.current_epoch}, step {trainer.global_step}"]
                    * len(images))
    for logger in trainer.loggers:
        if isinstance(logger, WandbLogger):
            logger.log_image(key, images=images, step=trainer.global_step, caption=captions)
        elif isinstance(logger, TensorBoardLogger):
            for i, image in enumerate(images):
                logger.experiment.add_image(f"{key}/{i}", image, trainer.global_step, dataformats="HWC")
        else:
            written += _save_pngs(trainer, key, images)
    return written


@rank_zero_only
def log_table(trainer: L.Trainer, key: str, columns: list[str], rows: list[list]) -> None:
    """Log a table: ``wandb.Table`` for W&B, a CSV file under ``<run dir>/figures/`` otherwise."""
    for logger in trainer.loggers:
        if isinstance(logger, WandbLogger):
            logger.log_table(key, columns=columns, data=rows, step=trainer.global_step)
        else:
            path = _figure_dir(trainer, key) / f"step_{trainer.global_step:07d}.csv"
            with path.open("w", newline="") as f:
                csv.writer(f).writerows([columns, *rows])


def _figure_dir(trainer: L.Trainer, key: str) -> Path:
    folder = Path(trainer.default_root_dir) / "figures" / key.replace("/", "_")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _save_pngs(trainer: L.Trainer, key: str, images: Sequence[np.ndarray]) -> list[Path]:
    import matplotlib.image

    paths = []
    for i, image in enumerate(images):
        path = _figure_dir(trainer, key) / f"step_{trainer.global_step:07d}_{i}.png"
        matplotlib.image.imsave(path, image)
        paths.append(path)
    return paths
