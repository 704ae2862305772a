"""User-facing errors: bad configuration or bad data, reported as one clear line.

`train.py` catches :class:`HighwaylabError` and prints its message instead of a stack trace;
any other exception is a bug and keeps its traceback.
"""


class HighwaylabError(Exception):
    """Base class of errors caused by the user's input, not by a bug."""


class ConfigError(HighwaylabError, ValueError):
    """A config value is out of range or unknown. The message names the key and the fix."""


class OptionNotTaken(ConfigError):
    """A config key that the component does not take (``model.stages`` for a fully connected model,
    ``model.gate_bias`` for a plain one). :attr:`key` is the full key, e.g. ``model.stages``."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key


class DataError(HighwaylabError, FileNotFoundError):
    """A data file is missing, truncated or corrupt. The message names the file and the fix."""


class RunInterrupted(HighwaylabError):
    """The run was stopped by a signal (SIGTERM from a scheduler or ``kill``, SIGINT from Ctrl-C).

    Raised by the task wrapper (:mod:`highwaylab.utils.interrupt`) once the run has saved its state
    and closed its loggers. The message says where the state is; ``train.py`` logs it as one line and
    exits with :attr:`exit_code`, the shell's code for the signal: ``128 + signum`` (143 for
    SIGTERM, 130 for SIGINT).
    """

    def __init__(self, signum: int, message: str) -> None:
        super().__init__(message)
        self.signum = signum
        self.exit_code = 128 + signum


class CheckpointWriteError(HighwaylabError, OSError):
    """A checkpoint could not be written (a full disk, a folder that cannot be made or written, the
    file-size limit). The message names the file, the cause and the fix; the previous checkpoint at
    that path is left as it was."""


class MetricsWriteError(HighwaylabError, OSError):
    """A finished run's ``metrics.json`` could not be written (a protected file, a full disk). The
    message names the file, the cause and the fix; the checkpoints are saved, so ``resume=`` tests the
    run again and writes the file."""


class NonFiniteError(HighwaylabError, FloatingPointError):
    """The training loss, a gradient or the validation loss became NaN or infinite: the run diverged
    (or the data holds NaN/inf). The message names the metric or layer, the step and the fix."""


class RunFolderGone(HighwaylabError, OSError):
    """The run's folder disappeared while the run wrote into it (deleted, or moved away): a logger or
    checkpoint could not write its file. Raised by the task wrapper
    (:func:`highwaylab.utils.task.run_folder_gone`) from the ``OSError`` it found; the message names
    the folder, the file and what is left to do."""


class DiskFull(HighwaylabError, OSError):
    """A file of the run (a logger's, the console's) could not be written because its disk is full
    or the quota is used up. Raised by the task wrapper (:func:`highwaylab.utils.task.disk_full`)
    from the ``OSError`` it found; the message names the disk, the run's latest checkpoint and the
    fix."""


class CheckpointMissingError(HighwaylabError, FileNotFoundError):
    """A checkpoint that the run needs is gone (deleted or moved during the run): the best one,
    which the test runs on. The message names the file and the ways to finish the run."""


class LoggerLost(HighwaylabError, ConnectionError):
    """A logger's helper process went away during the run (W&B's ``wandb-core``: killed, or out of
    memory), so nothing more can be logged to it. The message names the logger, the step, what the
    logger kept, and how to resume from the run's latest checkpoint."""


class WarningAsError(HighwaylabError, RuntimeError):
    """A warning that the interpreter's filter (``PYTHONWARNINGS=error::<Class>``, ``python -W``)
    made an exception stopped the run. The message names the filter, the warning and where it was
    issued, and the run's latest checkpoint."""


class OutOfMemory(HighwaylabError, MemoryError):
    """Memory ran out (the allocator of torch, on the CPU or a GPU, or Python's): the message quotes the
    allocator, names an address-space limit (``ulimit -v``) where one is set, and the fix."""
