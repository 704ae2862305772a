"""Send scalars, figures and tables to every logger of a Trainer, on rank zero only, on one step axis.

Every figure and table is also saved under ``<run dir>/figures/<key>/`` (PNG, CSV), whatever the
loggers. W&B gets ``wandb.Image`` (with a caption) and ``wandb.Table``; TensorBoard gets
``add_image`` and ``add_text`` (tables, as markdown).

**Figures never stop a run.** A figure that fails to draw is skipped with a warning. A file that
cannot be written (``OSError``: a full disk, a used-up quota, a read-only folder) is one logged
warning (``train.log`` has it too) that names the file and the reason, and from then on the run
writes no figure or table files (the loggers still get them, W&B from the image in memory); a
logger that cannot take one (W&B copies each image into its run folder) is one warning too, and
gets no more figures or tables. The run goes on, so that the checkpoint, whose writer has its own
one-line error for a full disk (:func:`highwaylab.utils.checkpoint_io.write_failure`), reports the
real problem.

**The step axis.** Every row is logged with ``step=``, which Lightning's loggers record as
``trainer/global_step`` (W&B's x-axis for every key, through ``define_metric``). Lightning logs the
metrics of a training batch, and the epoch-end metrics after that batch, at the batch's index: the
number of optimizer steps taken *before* it. :func:`step_of` gives the callbacks the same value, so
that an image and the scalars of the same moment share one ``trainer/global_step``.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.media")

import contextlib
import csv
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import lightning as L
import PIL.Image
from lightning.pytorch.loggers import TensorBoardLogger, WandbLogger
from lightning.pytorch.utilities import rank_zero_only, rank_zero_warn
from matplotlib.figure import Figure

from highwaylab.analysis.plots import to_rgb
from highwaylab.utils.run_folder import gone

log = logging.getLogger(__name__)


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
    (e.g. every value NaN) is skipped with a warning, and a file or logger that cannot take it is
    one warning and then left out for the rest of the run (module docstring): a figure never stops
    a run.

    The PNG is written once, with fast compression, and W&B gets the file: its own encoder (PIL's
    default compression) took 80 ms of a figure's 250 ms. Without the file (figure files off), W&B
    gets the image (H, W, 3) uint8 and encodes it itself.

    Returns:
        The PNG written, or ``None`` when the figure was skipped or figure files are off.
    """
    try:
        image = to_rgb(make())  # renders and closes the figure
    except Exception as err:  # noqa: BLE001 - any drawing failure skips the figure, nothing else
        rank_zero_warn(f"highwaylab: figure {key} at step {step} skipped: {type(err).__name__}: {err}")
        return None
    path = _write_file(trainer, key, step, "png",
                       lambda target: PIL.Image.fromarray(image).save(target, compress_level=1))
    for logger in _loggers(trainer):
        with _logger_guard(trainer, logger, f"figure {key} at step {step}"):
            if isinstance(logger, WandbLogger):
                logger.log_image(key, images=[str(path) if path is not None else image], step=step,
                                 caption=[caption or f"{key}, step {step}"])
            elif isinstance(logger, TensorBoardLogger):
                logger.experiment.add_image(key, image, step, dataformats="HWC")
    return path


@rank_zero_only
def log_table(trainer: L.Trainer, key: str, columns: list[str], rows: list[list], step: int) -> None:
    """Save a table as ``<run dir>/figures/<key>/step_<step>.csv`` and log it: ``wandb.Table`` for
    W&B (sortable and filterable there), markdown text for TensorBoard (its Text tab). A file or
    logger that cannot take it is one warning and then left out for the rest of the run, as in
    :func:`log_figure`."""
    def write(target: Path) -> None:
        with target.open("w", newline="") as f:
            csv.writer(f).writerows([columns, *rows])

    _write_file(trainer, key, step, "csv", write)
    for logger in _loggers(trainer):
        with _logger_guard(trainer, logger, f"table {key} at step {step}"):
            if isinstance(logger, WandbLogger):
                logger.log_table(key, columns=columns, data=rows, step=step)
            elif isinstance(logger, TensorBoardLogger):  # a markdown table in TensorBoard's Text tab
                logger.experiment.add_text(key, _markdown_table(columns, rows), step)


#: What a run has stopped writing after an OSError, by run folder (``trainer.default_root_dir``):
#: ``"files"`` (figure and table files) and the class names of loggers that refused a figure.
_OFF: dict[str, set[str]] = {}
FILES = "files"


def _off(trainer: L.Trainer) -> set[str]:
    return _OFF.setdefault(str(trainer.default_root_dir), set())


def check_figures_folder(run_dir: Path) -> None:
    """Check, before training, that ``<run_dir>/figures`` is a folder or absent: something else there
    (a file, a link to nothing) would turn figure files off at the first figure, mid-run, in a run that
    ends well (breaking pass 39, row 39).

    Raises:
        ConfigError: naming the path, what is there and the fix (move it away).
    """
    import shlex

    from highwaylab.errors import ConfigError

    folder = Path(run_dir) / "figures"
    if folder.is_dir() or not (folder.exists() or folder.is_symlink()):
        return
    what = "a link to nothing" if not folder.exists() else "a file, not a folder"
    raise ConfigError(f"{folder} is {what}, and the run saves its figure and table files under it "
                      f"(figures/<key>/step_<step>.png). Fix: move it away (mv {shlex.quote(str(folder))} "
                      f"<elsewhere>) and run the same command again")


def _write_file(trainer: L.Trainer, key: str, step: int, suffix: str,
                write: Callable[[Path], None]) -> Path | None:
    """Write ``<run dir>/figures/<key>/step_<step>.<suffix>`` with ``write(path)``; the path, or
    ``None`` if figure files are off for this run. An ``OSError`` (making the folder or writing the
    file) turns them off, with one warning naming the file and the reason; a partly written file is
    removed."""
    if FILES in _off(trainer):
        return None
    folder = Path(trainer.default_root_dir) / "figures" / key.replace("/", "_")
    path = folder / f"step_{step:07d}.{suffix}"
    if gone(folder) is not None:  # moved away mid-run: mkdir would make a new one; the run's next
        _off(trainer).add(FILES)  # checkpoint (or metrics.json) ends it with the one line that says so
        return None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write(path)
        return path
    except OSError as err:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)  # never leave a truncated figure behind
        _off(trainer).add(FILES)
        sent = " (the loggers still get them)" if trainer.loggers else ""
        reason = err.strerror or str(err) or type(err).__name__
        log.warning(f"highwaylab: could not write {path} ({reason}): no more figure or table "
                       f"files are written in this run{sent}; the run goes on")
        return None


def _loggers(trainer: L.Trainer) -> list[Any]:
    """The loggers of ``trainer`` that still take figures and tables in this run."""
    off = _off(trainer)
    return [logger for logger in trainer.loggers if type(logger).__name__ not in off]


@contextlib.contextmanager
def _logger_guard(trainer: L.Trainer, logger: Any, what: str):
    """An ``OSError`` inside (e.g. W&B copying an image into its run folder on a full disk) is one
    warning, and ``logger`` gets no more figures or tables in this run."""
    try:
        yield
    except OSError as err:
        name = type(logger).__name__
        _off(trainer).add(name)
        log.warning(f"highwaylab: {name} could not take {what} ({_reason(err)}): it gets no more "
                       f"figures or tables in this run; the run goes on")


def _reason(err: OSError) -> str:
    """``err``'s reason, with the file it names if any: ``No space left on device: <file>`` (of a
    copy, its destination: ``shutil`` puts the source in ``filename`` and the target in
    ``filename2``)."""
    reason = err.strerror or str(err) or type(err).__name__
    target = err.filename2 or err.filename
    return f"{reason}: {target}" if target else reason


def _markdown_table(columns: list[str], rows: list[list]) -> str:
    """``columns`` and ``rows`` as a markdown table, floats to 4 significant digits."""
    def cell(value) -> str:
        return f"{value:.4g}" if isinstance(value, float) else str(value)

    lines = ["| " + " | ".join(map(str, columns)) + " |", "|" + " --- |" * len(columns)]
    return "\n".join(lines + ["| " + " | ".join(map(cell, row)) + " |" for row in rows])
