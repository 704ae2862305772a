"""Narrowly targeted filters for notices that no configuration can switch off.

Everything else Lightning used to say at start-up is avoided at its source, in the config
(``conf/trainer/default.yaml``: ``enable_model_summary: false`` beside the callbacks' own
``RichModelSummary``, ``limit_*_batches: null``), in the module (``example_input_array``, so that
the model summary counts FLOPs) and in :class:`highwaylab.utils.wandb_logger.WandbLogger`. No
other warning or message is touched: no blanket filter.
"""

from __future__ import annotations

import logging
import warnings

# Lightning 2.6 prints these adverts through ``rank_zero_info`` whenever no ``LitLogger`` is used
# ("Tip: ... try installing [litlogger] ...", in LoggerConnector.configure_logger) and when no
# ModelCheckpoint is given ("Tip: ... try installing [litmodels] ...", CallbackConnector). There is
# no Trainer argument for them.
_ADVERTS = ("[litlogger](https://pypi.org/project/litlogger/)", "[litmodels](https://pypi.org/project/litmodels/)")


class _DropLightningAdverts(logging.Filter):
    """Drops the "💡 Tip: ... try installing litlogger/litmodels" records, nothing else."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not (message.startswith("💡 Tip:") and any(advert in message for advert in _ADVERTS))


_ADVERT_FILTER = _DropLightningAdverts()


def quiet_known_notices() -> None:
    """Install both filters (idempotent): on the logger that Lightning's ``rank_zero_info`` writes to,
    a filter dropping its litlogger/litmodels adverts; and a warnings filter for one deprecation that
    Lightning's own code triggers in torch (see below). And print each Lightning notice once (see
    :func:`lightning_logs_once`)."""
    from lightning_utilities.core import rank_zero

    lightning_logs_once()
    rank_zero.log.addFilter(_ADVERT_FILTER)  # the emitting logger (lightning.pytorch.utilities.rank_zero)
    # torch 2.14 deprecates constructing ``LeafSpec()``; Lightning 2.6.6's
    # lightning/pytorch/utilities/_pytree.py still does, at every fit (a FutureWarning attributed to
    # that module). Nothing we configure avoids the call; remove this filter once Lightning uses
    # ``treespec_leaf()``.
    warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated",
                            category=FutureWarning, module=r"lightning\.pytorch\.utilities\._pytree")
    # the module logs every val/ key at each validation, so ModelCheckpoint misses one only when training
    # stopped before the first (trainer.max_steps=1): "HINT: Did you call log('val/acc', value)" misleads,
    # and the run's "Testing the final weights (training stopped before its first validation ...)" line
    # says what happened (breaking pass 36, row 44)
    warnings.filterwarnings("ignore", message=r"`?ModelCheckpoint\(monitor='val/\w+'\)`? could not find "
                                              r"the monitored key")


# the package loggers that ``import lightning`` gives a console handler of their own (and
# ``propagate = False``) when it is imported before logging is configured: resume= reads the
# checkpoint, and so imports Lightning, before Hydra configures the job's logging
LIGHTNING_LOGGERS = ("lightning", "lightning.pytorch", "lightning.fabric", "pytorch_lightning",
                     "lightning_fabric")


def lightning_logs_once() -> None:
    """Remove the console handlers that ``import lightning`` adds to its package loggers
    (:data:`LIGHTNING_LOGGERS`; bare messages on stderr), and let them propagate again, when the
    root logger already has handlers (Hydra's job logging: the console and ``train.log``).
    Lightning's notices ("Seed set to 0", "`Trainer.fit` stopped") then print once, in the log's
    format, into the log file too, instead of bare (and twice)."""
    if not logging.getLogger().handlers:
        return
    for name in LIGHTNING_LOGGERS:
        package = logging.getLogger(name)
        own = [h for h in package.handlers if type(h) is logging.StreamHandler]
        for handler in own:
            package.removeHandler(handler)
        if own:
            package.propagate = True


def warnings_into_the_log() -> None:
    """Route Python warnings through logging (``logging.captureWarnings``: the ``py.warnings``
    logger) when the root logger has handlers (Hydra's job logging), one line each, as
    ``<Category>: <message> [<file>:<line>]`` (the path from the package folder on). Lightning's
    ``rank_zero_warn`` notices ("You requested to overfit but enabled train dataloader shuffling")
    then print in the log's format and into ``train.log``, instead of bare on stderr with the source
    line under them. Called by ``train.py`` only: in-process callers keep their own warning capture
    (pytest's)."""
    if not logging.getLogger().handlers:
        return
    warnings.formatwarning = _one_line_warning
    logging.captureWarnings(True)


def _one_line_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                      line: str | None = None) -> str:
    short = filename.split("site-packages/", 1)[-1]
    return f"{category.__name__}: {' '.join(str(message).split())} [{short}:{lineno}]"


def quiet_own_checkpoint_folder(folder: str) -> None:
    """Drop ModelCheckpoint's "Checkpoint directory <folder> exists and is not empty" for the run's
    own checkpoint folder, which a resumed run continues by design; a folder of another run is
    refused before training (:func:`highwaylab.utils.checkpoint_io.check_checkpoint_dirs`)."""
    import re

    pattern = rf"Checkpoint directory {re.escape(str(folder))} exists and is not empty"
    warnings.filterwarnings("ignore", message=pattern)


def quiet_srun_hint(processes: int) -> None:
    """For a single-process run (``processes == 1``), drop Lightning's "The `srun` command is
    available on your system but is not used" hint. Lightning gives it whenever SLURM is installed
    and the process was not started by ``srun`` (a login node, a workstation with a test cluster),
    to warn that a multi-process job would hang; one process needs no ``srun``. Runs of several
    processes keep it, on their first rank; call it again with ``processes == 1`` once the Trainer is
    built: Lightning gives the hint when it builds the Trainer and again when ``fit`` selects its
    checkpoint (pass 52, row 32: before, printed twice). Outside a SLURM allocation (no
    ``SLURM_JOB_ID``) it is dropped whatever the count: Lightning starts the processes itself there, and
    nothing hangs (pass 76, row 15: before, ``trainer.devices=auto`` and ``trainer=ddp_cpu`` on a machine
    with SLURM installed told the user to prepend srun)."""
    import os

    from highwaylab.utils.ranks import further_rank

    if processes == 1 or further_rank() or not os.environ.get("SLURM_JOB_ID"):
        warnings.filterwarnings("ignore", message=r"The `srun` command is available on your system")

