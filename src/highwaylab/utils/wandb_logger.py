"""Lightning's ``WandbLogger``, less one argument that wandb now warns about, and with a lost W&B
helper process as one line."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any

from lightning.pytorch.loggers import WandbLogger as _LightningWandbLogger

from highwaylab.errors import LoggerLost


class WandbLogger(_LightningWandbLogger):
    """:class:`lightning.pytorch.loggers.WandbLogger` that does not pass ``anonymous`` to
    ``wandb.init`` unless it is given, and passes ``settings`` from a config as a plain ``dict``
    (``wandb.init`` silently ignores a settings mapping that is not a ``dict`` or ``wandb.Settings``,
    such as the ``DictConfig`` that Hydra's ``instantiate`` gives).

    Lightning 2.6 always passes ``anonymous=None``; wandb releases since anonymous mode was removed
    (wandb/wandb#10909, late 2025; 0.31 here) print "The anonymous setting has no effect and will be
    removed in a future version" for any value passed, ``None`` included. Leaving the argument out
    is what ``anonymous=None`` meant. The class keeps Lightning's name: checkpoints store each logger's
    version under its class name (``ClassifierModule.on_save_checkpoint``), and resuming looks it
    up as ``WandbLogger``.
    """

    def __init__(self, *args: Any, anonymous: bool | None = None, **kwargs: Any) -> None:
        if isinstance(kwargs.get("settings"), Mapping):
            kwargs["settings"] = dict(kwargs["settings"])
        super().__init__(*args, anonymous=anonymous, **kwargs)
        if anonymous is None:
            self._wandb_init.pop("anonymous", None)

    def log_metrics(self, *args: Any, **kwargs: Any) -> None:
        with self._helper_alive():
            super().log_metrics(*args, **kwargs)

    def log_hyperparams(self, *args: Any, **kwargs: Any) -> None:
        with self._helper_alive():
            super().log_hyperparams(*args, **kwargs)

    def log_image(self, *args: Any, **kwargs: Any) -> None:
        with self._helper_alive():
            super().log_image(*args, **kwargs)

    def log_table(self, *args: Any, **kwargs: Any) -> None:
        with self._helper_alive():
            super().log_table(*args, **kwargs)

    @contextlib.contextmanager
    def _helper_alive(self) -> Iterator[None]:
        """Raise :class:`LoggerLost` for a ``ConnectionError`` of a W&B call: W&B's helper process
        (``wandb-core``, which writes the run's file) went away mid-run (killed, out of memory), and
        every later call would fail the same way (before: "The run failed: ConnectionResetError" and a
        traceback). After a signal (SLURM's SIGTERM reaches the helper too) the error is left as it is:
        the run is being interrupted, and :func:`highwaylab.utils.interrupt.as_interrupted` says so."""
        try:
            yield
        except ConnectionError as err:
            from highwaylab.utils import interrupt

            if isinstance(err, LoggerLost) or interrupt.signalled() is not None:
                raise
            run = self._experiment
            folder = str(getattr(run, "dir", "") or "").removesuffix("/files")  # its offline-run-* folder
            kept = f"; W&B run {run.id} keeps what it had written: wandb sync {folder}" if folder else ""
            stopped = interrupt.stopped_message(f"stopped because W&B's helper process (wandb-core) went "
                                                f"away ({type(err).__name__}: {err})")
            raise LoggerLost(f"{stopped.removesuffix('.')}{kept}") from err
