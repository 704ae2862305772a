"""The task wrapper: turns user errors into one message and always closes the loggers."""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable
from typing import TypeVar

from highwaylab.errors import HighwaylabError

log = logging.getLogger(__name__)
R = TypeVar("R")


def user_error(err: BaseException | None) -> Exception | None:
    """The user-facing error in ``err``'s chain of causes (Hydra's instantiate wraps them): a
    :class:`HighwaylabError`, or Lightning's ``MisconfigurationException`` (e.g. trainer=gpu
    on a machine without one)."""
    from lightning.fabric.utilities.exceptions import MisconfigurationException

    while err is not None:
        if isinstance(err, HighwaylabError | MisconfigurationException):
            return err
        err = err.__cause__ or err.__context__
    return None


def close_loggers(failed: bool) -> None:
    """Finish the W&B run of this process, if any, so that the next job of a sweep gets its own."""
    wandb = sys.modules.get("wandb")
    if wandb is not None and wandb.run is not None:
        log.info(f"Closing W&B run {wandb.run.name}")
        wandb.finish(exit_code=1 if failed else 0)


def task_wrapper(fn: Callable[..., R]) -> Callable[..., R]:
    """Run ``fn``; close the loggers whatever happens; log the failure before re-raising it."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs) -> R:
        failed = True
        try:
            result = fn(*args, **kwargs)
            failed = False
            return result
        except BaseException as err:
            if user_error(err) is None:  # user errors are reported by the entry point
                log.error(f"The run failed: {err!r}")
            raise
        finally:
            close_loggers(failed)

    return wrapped
