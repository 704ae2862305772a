"""Send scalars, figures and tables to every logger of a Trainer, on rank zero only, on one step axis.

Every figure and table is also saved under ``<run dir>/figures/<key>/`` (PNG, CSV), whatever the
loggers. W&B gets ``wandb.Image`` (with a caption) and ``wandb.Table``; TensorBoard gets
``add_image`` and ``add_text`` (tables, as markdown).

**The step axis.** Every row is logged with ``step=``, which Lightning's loggers record as
``trainer/global_step`` (W&B's x-axis for every key, through ``define_metric``). Lightning logs the
metrics of a training batch, and the epoch-end metrics after that batch, at the batch's index: the
number of optimizer steps taken *before* it. :func:`step_of` gives the callbacks the same value, so
that an image and the scalars of the same moment share one ``trainer/global_step``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path

import lightning as L
import PIL.Image
from lightning.pytorch.loggers import TensorBoardLogger, WandbLogger
from lightning.pytorch.utilities import rank_zero_only, rank_zero_warn
from matplotlib.figure import Figure

from highwaylab.analysis.plots import to_rgb


def step_of(trainer: L.Trainer, before_optimizer_step: bool = False) -> int:
    """The ``trainer/global_step`` of the current moment, as Lightning's own logging counts it.

    ``before_optimizer_step=True`` in ``on_train_batch_start`` and ``on_before_optimizer_step``
    (``trainer.global_step`` optimizer steps were taken before this batch); ``False`` in hooks that
    run after a batch's optimizer step (``on_train_batch_end``, validation and epoch ends,
    ``on_fit_end``): the step of the batch just trained, ``trainer.global_step - 1``.
    """
    return trainer.global_step if before_optimizer_step else max(trainer.global_step - 1, 0)


def when(trainer: L.Trainer, step: int, fit_ended: bool = False) -> str:
    """``"epoch E, step S"`` for titles and captions: E counted from 0 like the progress bar's
    ``Epoch E/…``; at the end of fitting, the last epoch trained (Lightning has counted past it)."""
    epoch = max(trainer.current_epoch - 1, 0) if fit_ended else trainer.current_epoch
    return f"epoch {epoch}, step {step}"


@rank_zero_only
def log_scalars(trainer: L.Trainer, metrics: dict[str, float], step: int) -> None:
    """Log ``metrics`` at ``step`` (see :func:`step_of`) to every logger."""
    for logger in trainer.loggers:
        logger.log_metrics(metrics, step=step)


@rank_zero_only
def log_figure(trainer: L.Trainer, key: str, make: Callable[[], Figure], step: int,
               caption: str | None = None) -> Path | None:
    """Draw ``make()``, save it as ``<run dir>/figures/<key>/step_<step>.png`` and log it under ``key``
    at ``step`` (one W&B media key: its slider steps through the run). A figure that fails to draw
    (e.g. every value NaN) is skipped with a warning: a figure never stops a run.

    The PNG is written once, with fast compression, and W&B gets the file: its own encoder (PIL's
    default compression) took 80 ms of a figure's 250 ms.

    Returns:
        The PNG written, or ``None`` when the figure was skipped.
    """
    try:
        image = to_rgb(make())  # renders and closes the figure
    except Exception as err:  # noqa: BLE001 - any drawing failure skips the figure, nothing else
        rank_zero_warn(f"highwaylab: figure {key} at step {step} skipped: {type(err).__name__}: {err}")
        return None
    path = _figure_dir(trainer, key) / f"step_{step:07d}.png"
    PIL.Image.fromarray(image).save(path, compress_level=1)
    for logger in trainer.loggers:
        if isinstance(logger, WandbLogger):
            logger.log_image(key, images=[str(path)], step=step, caption=[caption or f"{key}, step {step}"])
        elif isinstance(logger, TensorBoardLogger):
            logger.experiment.add_image(key, image, step, dataformats="HWC")
    return path


@rank_zero_only
def log_table(trainer: L.Trainer, key: str, columns: list[str], rows: list[list], step: int) -> None:
    """Save a table as ``<run dir>/figures/<key>/step_<step>.csv`` and log it: ``wandb.Table`` for
    W&B (sortable and filterable there), markdown text for TensorBoard (its Text tab)."""
    path = _figure_dir(trainer, key) / f"step_{step:07d}.csv"
    with path.open("w", newline="") as f:
        csv.writer(f).writerows([columns, *rows])
    for logger in trainer.loggers:
        if isinstance(logger, WandbLogger):
            logger.log_table(key, columns=columns, data=rows, step=step)
        elif isinstance(logger, TensorBoardLogger):  # a markdown table in TensorBoard's Text tab
            logger.experiment.add_text(key, _markdown_table(columns, rows), step)


def _figure_dir(trainer: L.Trainer, key: str) -> Path:
    folder = Path(trainer.default_root_dir) / "figures" / key.replace("/", "_")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _markdown_table(columns: list[str], rows: list[list]) -> str:
    """``columns`` and ``rows`` as a markdown table, floats to 4 significant digits."""
    def cell(value) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(map(str, columns)) + " |", "|" + " --- |" * len(columns)]
    return "\n".join(lines + ["| " + " | ".join(map(cell, row)) + " |" for row in rows])
