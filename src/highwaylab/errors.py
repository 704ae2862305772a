"""User-facing errors: bad configuration or bad data, reported as one clear line.

`train.py` catches :class:`HighwaylabError` and prints its message instead of a stack trace;
any other exception is a bug and keeps its traceback.
"""


class HighwaylabError(Exception):
    """Base class of errors caused by the user's input, not by a bug."""


class ConfigError(HighwaylabError, ValueError):
    """A config value is out of range or unknown. The message names the key and the fix."""


class DataError(HighwaylabError, FileNotFoundError):
    """A data file is missing, truncated or corrupt. The message names the file and the fix."""
