"""The console log handler of Hydra's job logging (``conf/hydra/default.yaml``), and the run's one
error line whatever that logging is."""

from __future__ import annotations

import contextlib
import logging
import sys
from typing import Any, TextIO


class FailsOnce:
    """A logging handler mixin: when a write fails with an ``OSError`` (a full disk), one line on
    stderr (:meth:`failure`) says so, and the handler is left out from then on, instead of a
    "--- Logging error ---" traceback for every record."""

    failed = False

    def failure(self, err: OSError) -> tuple[TextIO, str]:
        """The stream and the line that report ``err``."""
        raise NotImplementedError

    def emit(self, record: logging.LogRecord) -> None:
        if not self.failed:
            super().emit(record)

    def handleError(self, record: logging.LogRecord) -> None:
        err = sys.exc_info()[1]
        if not isinstance(err, OSError):
            return super().handleError(record)
        if not self.failed:
            self.failed = True
            stream, line = self.failure(err)
            with contextlib.suppress(Exception):
                stream.write(line)


class StdoutHandler(FailsOnce, logging.StreamHandler):
    """A ``StreamHandler`` that writes each record to ``sys.stdout`` as it is at that moment, not as it
    was when logging was configured.

    While Lightning's ``RichProgressBar`` is shown (on a terminal), rich replaces ``sys.stdout`` with
    a proxy that prints above the bar; a handler holding the original stream would write into the
    bar's lines, and rich's next refresh would erase the log line (the epoch lines of
    :class:`highwaylab.callbacks.EpochLogger`). Without a live display this is a plain stdout handler.
    A console that cannot be written (W&B copies it into its run folder: a full disk there fails every
    write) is one line on stderr (:class:`FailsOnce`); train.log keeps the log.
    """

    def __init__(self, stream: Any = None) -> None:  # Hydra's default config passes ext://sys.stdout
        super().__init__()

    @property
    def stream(self) -> TextIO:
        return sys.stdout

    @stream.setter
    def stream(self, value: Any) -> None:  # StreamHandler.__init__ and setStream assign it
        pass

    def failure(self, err: OSError) -> tuple[TextIO, str]:
        return sys.__stderr__, (f"highwaylab: the console log cannot be written ({err.strerror or err}); W&B "
                                f"copies the console into its run folder, so check the free space of "
                                f"logger.wandb.save_dir. The log goes on in train.log only\n")


class RunLogFileHandler(FailsOnce, logging.FileHandler):
    """``train.log`` (Hydra's file handler): when a write fails with an ``OSError`` (a full disk), one
    line on stderr says so, and the file is left out from then on (:class:`FailsOnce`). The console
    keeps the log."""

    def failure(self, err: OSError) -> tuple[TextIO, str]:
        return sys.stderr, (f"highwaylab: could not write {self.baseFilename} ({err.strerror or err}): "
                            "the log continues on the console only\n")


def error_line(log: logging.Logger, message: str) -> None:
    """Log the run's one ``highwaylab:`` error ``message`` on ``log``; print it to stderr as well
    when the logging config lets it reach no handler (``hydra/job_logging=disabled`` disables every
    logger), so that a failed run never ends without a word."""
    log.error(message)
    logger, reached = log, False
    while logger is not None and not log.disabled and log.isEnabledFor(logging.ERROR):
        if any(h.level <= logging.ERROR for h in logger.handlers):
            reached = True
            break
        logger = logger.parent if logger.propagate else None
    if not reached:
        print(message, file=sys.stderr)
