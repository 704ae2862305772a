"""Lightning's ``WandbLogger``, less one argument that wandb now warns about."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lightning.pytorch.loggers import WandbLogger as _LightningWandbLogger


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
