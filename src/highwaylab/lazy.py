"""Names a package exports but imports on first use (PEP 562), so that its torch-free modules
(``highwaylab.models.spec``, ``highwaylab.data.files``) load without torch."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from typing import Any


def lazy_exports(package: str, sources: dict[str, tuple[str, ...]]) -> tuple[Callable[[str], Any], list[str]]:
    """The ``__getattr__`` and ``__all__`` of ``package``, which exports the names ``sources`` lists
    by module (``{"highwaylab.models.base": ("Backbone", ...)}``), each imported when first used.

    Raises (from ``__getattr__``):
        AttributeError: ``package`` exports no such name.
    """
    module_of = {name: module for module, names in sources.items() for name in names}

    def __getattr__(name: str) -> Any:
        if name not in module_of:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(module_of[name]), name)

    return __getattr__, sorted(module_of)
