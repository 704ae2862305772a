"""Command lines that highwaylab prints for the user to copy: one ``key=value`` argument that both the
shell and Hydra's override grammar read back as the same value.

A run folder may hold characters that Hydra reads as syntax (a comma separates a sweep's values,
brackets and braces make lists and mappings, a space or a quote ends a value) and others that the
shell expands (``$``, a space). ``python train.py 'resume=/runs/a,b'`` was shell-quoted, yet Hydra read
a sweep of ``/runs/a`` and ``b`` (breaking pass 32, rows 12 and 13).
"""

from __future__ import annotations

import re
import shlex

# what Hydra's grammar takes unquoted in a value, conservatively (its UNQUOTED_CHAR, letters and digits)
_PLAIN = re.compile(r"[A-Za-z0-9_\-+./@%]+")


def hydra_value(value: object) -> str:
    """``value`` as Hydra's override grammar reads it back verbatim: as is when plain, else in single
    quotes, with a quote and an interpolation's ``${`` escaped (``/runs/a,b`` -> ``'/runs/a,b'``)."""
    text = str(value)
    if _PLAIN.fullmatch(text):
        return text
    return "'" + text.replace("\\'", "\\\\'").replace("'", "\\'").replace("${", "\\${") + "'"


def shell_word(word: str) -> str:
    """``word`` quoted for a POSIX shell, readably: as is when safe, else in single quotes, or, when it
    holds single quotes itself (a Hydra-quoted value), in double quotes with ``$`` escaped."""
    if shlex.quote(word) == word or "'" not in word:
        return shlex.quote(word)
    if not any(c in word for c in '"\\`!'):
        return '"' + word.replace("$", "\\$") + '"'
    return shlex.quote(word)


def override_arg(key: str, value: object) -> str:
    """The command-line argument ``key=value`` for the shell and Hydra: ``resume=/runs/r``, or
    ``"resume='/runs/a,b \\$x'"`` for a folder ``/runs/a,b $x``."""
    return shell_word(f"{key}={hydra_value(value)}")
