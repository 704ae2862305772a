"""The console log handler of Hydra's job logging (``conf/hydra/default.yaml``)."""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO


class StdoutHandler(logging.StreamHandler):
    """A ``StreamHandler`` that writes each record to ``sys.stdout`` as it is at that moment, not as it
    was when logging was configured.

    While Lightning's ``RichProgressBar`` is shown (on a terminal), rich replaces ``sys.stdout`` with
    a proxy that prints above the bar; a handler holding the original stream would write into the
    bar's lines, and rich's next refresh would erase the log line (the epoch lines of
    :class:`highwaylab.callbacks.EpochLogger`). Without a live display this is a plain stdout handler.
    """

    def __init__(self, stream: Any = None) -> None:  # Hydra's default config passes ext://sys.stdout
        super().__init__()

    @property
    def stream(self) -> TextIO:
        return sys.stdout

    @stream.setter
    def stream(self, value: Any) -> None:  # StreamHandler.__init__ and setStream assign it
        pass
