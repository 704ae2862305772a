"""The console log handler of Hydra's job logging (``conf/hydra/default.yaml``), and the run's one
error line whatever that logging is."""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import os
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
        return sys.__stderr__, f"highwaylab: {console_failure(err)}\n"

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop the records marked for the log file alone (:func:`own_log_only`), and a further DDP
        rank's records below WARNING: each rank logs the same run, into its own log file, and the
        first rank's lines already say it (pass 55, row 78: before, "Testing checkpoint ..." and each
        partial-set line twice on the console)."""
        from highwaylab.utils.ranks import further_rank

        if record.levelno < logging.WARNING and further_rank():
            return False
        return not getattr(record, "file_only", False) and super().filter(record)


def own_log_only() -> dict[str, bool]:
    """The ``extra`` of a record that every rank logs at once (a signal to the process group: Ctrl-C
    reaches every DDP process): on a further rank it goes to that rank's own log file alone, not to
    the console that the first rank's copy reaches too (pass 53, row 55: before, each line twice)."""
    from highwaylab.utils.ranks import further_rank

    return {"file_only": further_rank()}


def console_failure(err: OSError, stream: str = "the console log") -> str:
    """What a failed write to the console (``stream``: its log on stdout, or stderr) means, and where
    the log goes on: ``| head`` closed the pipe (EPIPE); a full device under stdout or under W&B's copy
    of the console (ENOSPC)."""
    cause = {errno.EPIPE: "the program reading it has ended, as | head does",
             errno.ENOSPC: "stdout, or W&B's copy of the console in logger.wandb.save_dir, is on a full "
                           "device: check its free space"}.get(err.errno, "")
    if not_a_run():
        return f"the console cannot be written ({err.strerror or err}{'; ' + cause if cause else ''})"
    return (f"{stream} cannot be written ({err.strerror or err}{'; ' + cause if cause else ''}). "
            f"The run goes on; its log goes on in train.log only")


# Hydra's flags that print and exit without a run (no train.log): --cfg job, --info, --help, ...
NOT_A_RUN_FLAGS = ("-c", "--cfg", "-i", "--info", "-h", "--help", "--hydra-help", "-sc", "--shell-completion")


def not_a_run(argv: list[str] | None = None) -> bool:
    """Whether this ``train.py`` command line only prints (``--cfg job``, ``--info``, ``--help``):
    a reader that closes the pipe early (``| head``) is then no failure, and there is no run."""
    return any(arg.split("=", 1)[0] in NOT_A_RUN_FLAGS for arg in (sys.argv if argv is None else argv)[1:])


class GuardedStream:
    """``sys.stdout`` (and ``sys.stderr``) for a run: the console as it is, until a write or flush
    fails with an ``OSError`` (a closed pipe, ``| head``; a full device, ``> /dev/full``). Then one
    line (:func:`console_failure`) on stderr, or, where stderr is the stream that failed (``2>&1 |
    head``), in ``train.log`` alone; the stream's file descriptor is pointed at ``os.devnull`` and the
    run goes on, its log in ``train.log``: no traceback from a print (the config tree, Lightning's
    summary, W&B's lines on stderr), and none from the interpreter's last flush at exit. Every other
    attribute is the console's. (Pass 79, row 39, major: before, stderr was not guarded, and under
    ``2>&1 | head`` W&B's first line on stderr ended the run, whose folder then went with its log.)"""

    def __init__(self, stream: TextIO) -> None:
        object.__setattr__(self, "_stream", stream)
        object.__setattr__(self, "failed", False)

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as err:
            self._fail(err)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as err:
            self._fail(err)

    def _fail(self, err: OSError) -> None:
        if not self.failed:
            object.__setattr__(self, "failed", True)
            quiet = err.errno == errno.EPIPE and not_a_run()  # --cfg job | head: as cat | head, silent
            stderr = self._stream is sys.__stderr__
            if not quiet:  # the run's log file records it (stderr may be the stream that failed)
                logging.getLogger("highwaylab").warning(
                    f"highwaylab: {console_failure(err, 'stderr' if stderr else 'the console log')}",
                    extra={"file_only": True})
            if not stderr:
                with contextlib.suppress(Exception):
                    if not quiet:
                        sys.__stderr__.write(f"highwaylab: {console_failure(err)}\n")
                    sys.__stderr__.flush()
                for handler in logging.getLogger().handlers:  # Hydra's console handler: no second line
                    if isinstance(handler, StdoutHandler):
                        handler.failed = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, self._stream.fileno())  # what is buffered, and what comes, goes nowhere
            os.close(null)
            self._stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    def __setattr__(self, name: str, value: Any) -> None:  # wandb's console capture wraps write
        object.__setattr__(self, name, value)


def guard_standard_streams() -> None:
    """At the start of ``train.py``: a stdout (or stderr) that was closed when the process started
    (``>&-``, some daemons: Python then sets ``sys.stdout`` to ``None``) is opened on ``os.devnull``,
    on its own file descriptor, so that no later file takes descriptor 1 or 2 and every print goes
    nowhere (one line on stderr says so, if stderr is open); a console whose encoding lacks a
    character (``PYTHONIOENCODING=ascii`` and a run name in Greek) writes it escaped (``\u03b4``)
    instead of raising; and ``sys.stdout`` and ``sys.stderr`` each become a :class:`GuardedStream`."""
    for fd, name in ((1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is not None:
            continue
        null = os.open(os.devnull, os.O_WRONLY)  # the lowest free descriptor: this one
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
        stream = open(fd, "w", buffering=1, encoding="utf-8", closefd=False)  # noqa: SIM115
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)
        if name == "stdout" and sys.stderr is not None:
            sys.stderr.write("highwaylab: stdout is closed (started with >&-?): the run's log goes to "
                             "train.log only\n")
    for stream in (sys.stdout, sys.stderr):  # PYTHONIOENCODING=ascii: \u03b4 for a character it lacks
        with contextlib.suppress(AttributeError, ValueError, io.UnsupportedOperation):
            stream.reconfigure(errors="backslashreplace")
    if not isinstance(sys.stdout, GuardedStream):
        sys.stdout = GuardedStream(sys.stdout)
    if not isinstance(sys.stderr, GuardedStream):
        sys.stderr = GuardedStream(sys.stderr)


class RunLogFileHandler(FailsOnce, logging.FileHandler):
    """``train.log`` (Hydra's file handler): when a write fails with an ``OSError`` (a full disk), one
    line on stderr says so, and the file is left out from then on (:class:`FailsOnce`). The console
    keeps the log."""

    def failure(self, err: OSError) -> tuple[TextIO, str]:
        return sys.stderr, (f"highwaylab: could not write {self.baseFilename} ({err.strerror or err}): "
                            "the log continues on the console only\n")


# the format of train.log under Hydra's default job logging (conf/hydra/default.yaml's file handler)
RUN_LOG_FORMAT = "[%(asctime)s][%(name)s][%(levelname)s] - %(message)s"


def _writes_to(filename: str) -> bool:
    """Whether a handler of the root logger, or of any other logger, writes the file ``filename``."""
    loggers = [logging.getLogger(), *(lg for lg in logging.Logger.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    return any(isinstance(h, logging.FileHandler) and h.baseFilename == os.path.abspath(filename)
               for lg in loggers for h in lg.handlers)


def keep_run_log(job_logging: str | None, logging_cfg: Any) -> str | None:
    """Keep the run's ``train.log`` whatever Hydra job logging was chosen (``job_logging``: the choice of
    ``hydra/job_logging``; ``logging_cfg``: its config, ``hydra.job_logging``, resolved).

    ``conf/hydra/default.yaml`` adds the ``file`` handler to every choice, but only Hydra's default
    attaches it to the root logger: under ``hydra/job_logging=stdout`` logging made the file (empty)
    and dropped the handler. Here a :class:`RunLogFileHandler` for that file is attached to the root
    logger, in the default's format (or the format the ``file`` handler names), next to the console.
    Under ``hydra/job_logging=disabled`` (no log at all) the empty file is removed instead, and the
    returned line says so; a root level above INFO returns the warning of :func:`_quiet_root` (``None``
    otherwise). ``hydra/job_logging=none`` (Hydra leaves logging
    as its own start-up set it, the ``[HYDRA]`` lines, and makes no file) is left as it is, and the
    returned line says that no train.log is written."""
    if job_logging == "none":
        return ("hydra/job_logging=none: Hydra leaves the log as its own start-up set it (the [HYDRA] "
                "lines) and train.log is not written. For train.log, leave hydra/job_logging=none out (or "
                "choose hydra/job_logging=stdout for plain console lines, with train.log)")
    file_cfg = (logging_cfg.get("handlers") or {}).get("file") if logging_cfg else None
    if not file_cfg or not file_cfg.get("filename") or logging_cfg.get("root") is None:
        return None
    filename = str(file_cfg["filename"])
    quiet = _quiet_root(logging_cfg) if job_logging != "disabled" else None  # disabled: said below
    if _writes_to(filename):
        return quiet
    if job_logging == "disabled":  # pass 74, row 48: before, "Fix: ... for both", a notice read as a
        # refusal, and a resumed run's train.log stopped short unsaid
        earlier = False
        with contextlib.suppress(OSError):
            earlier = os.path.getsize(filename) > 0
            if not earlier:
                os.remove(filename)
        kept = (" (the run's train.log keeps its earlier part only: this start adds nothing to it)" if earlier
                else "")
        return (f"hydra/job_logging=disabled: the log (the epoch lines, the metrics) is not shown and "
                f"train.log is not written{kept}; an error still prints here. To see the log and keep it in "
                f"train.log, leave hydra/job_logging=disabled out")
    named = (logging_cfg.get("formatters") or {}).get(file_cfg.get("formatter") or "") or {}
    handler = RunLogFileHandler(filename, encoding="utf-8")
    handler.setFormatter(logging.Formatter(named.get("format") or RUN_LOG_FORMAT, named.get("datefmt")))
    logging.getLogger().addHandler(handler)
    return quiet


def _quiet_root(logging_cfg: Any) -> str | None:
    """The warning for a root logger level above INFO (``hydra.job_logging.root.level=WARNING``, set
    to quieten the console), under which the run's own INFO lines (the start, the epoch lines, the
    test, the metrics) are dropped from ``train.log`` too, unless the ``highwaylab`` logger is given
    a level of its own; ``None`` otherwise."""
    level = (logging_cfg.get("root") or {}).get("level")
    own = ((logging_cfg.get("loggers") or {}).get("highwaylab") or {}).get("level")
    number = logging.getLevelName(str(level).upper()) if isinstance(level, str) else level
    if own is not None or not isinstance(number, int) or number <= logging.INFO:
        return None
    return (f"warning: hydra.job_logging.root.level={level} drops the run's own lines (the start, the epoch "
            f"lines, the test, the metrics) from train.log as well as from the console. Fix: to quieten "
            f"only the console, +hydra.job_logging.handlers.console.level={level} instead (train.log "
            f"keeps them)")


def error_line(log: logging.Logger, message: str, extra: dict | None = None) -> None:
    """Log the run's one ``highwaylab:`` error ``message`` on ``log`` (with the record's ``extra``:
    :func:`own_log_only`); print it to stderr as well when the logging config lets it reach no
    handler (``hydra/job_logging=disabled`` disables every logger), so that a failed run never ends
    without a word."""
    log.error(message, extra=extra)
    logger, reached = log, False
    while logger is not None and not log.disabled and log.isEnabledFor(logging.ERROR):
        if any(h.level <= logging.ERROR for h in logger.handlers):
            reached = True
            break
        logger = logger.parent if logger.propagate else None
    if not reached:
        print(message, file=sys.stderr)
