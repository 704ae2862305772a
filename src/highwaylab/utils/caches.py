"""The per-user cache and config folders that W&B, matplotlib and the data checksums use, when
``HOME`` (or ``XDG_CACHE_HOME`` / ``XDG_CONFIG_HOME``) cannot be written: a read-only home on a
cluster node, ``HOME=/nonexistent`` under a service account.

Without this, the run works but its console fills with wandb-core's internal log (it cannot open its
log file under ``~/.cache/wandb/logs`` and writes to stderr instead) and matplotlib's warnings, and
no line says why. :func:`redirect_unwritable` points the variables at one temporary folder for the
process, before those libraries are imported, and returns the one warning to log.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# variable -> (the folder it replaces when unset, the variable that points into it)
FOLDERS = {"XDG_CACHE_HOME": ".cache", "XDG_CONFIG_HOME": ".config"}
# the libraries' own variables for those folders: checked when set (WANDB_CACHE_DIR=/proc/x gave
# wandb-core's internal log on the console, and no word of the variable)
OWN_FOLDERS = ("WANDB_CACHE_DIR", "WANDB_CONFIG_DIR", "WANDB_DATA_DIR", "MPLCONFIGDIR",
               # torch's compile caches (pass 67, row 29: an unwritable one stopped the import of
               # Lightning with an 81-line traceback that never named it)
               "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR")


def writable(folder: str | Path) -> bool:
    """Whether ``folder`` can take files: it, or the nearest folder above it that exists (where it
    would be made), holds a probe file (made and removed at once)."""
    path = Path(folder).absolute()
    existing = next((p for p in (path, *path.parents) if p.exists()), None)
    if existing is None or not existing.is_dir():
        return False
    try:
        with tempfile.TemporaryFile(dir=existing):
            return True
    except OSError:
        return False


def _password_home() -> str:
    """This user's home folder from the password database (``HOME`` unset), else ``/``."""
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir or "/"
    except KeyError:
        return "/"


def redirect_unwritable(environ: dict[str, str] | None = None) -> str | None:
    """Point ``XDG_CACHE_HOME`` and ``XDG_CONFIG_HOME`` (and so W&B's and matplotlib's folders) that
    cannot be written at a new temporary folder, in ``environ`` (default ``os.environ``).

    Returns:
        The warning to log (naming the variable, its folder and the fix), or ``None`` when every
        folder can be written.
    """
    env = os.environ if environ is None else environ
    unset = not env.get("HOME")
    home = env.get("HOME") or _password_home()
    if unset:  # W&B then logs "neither $XDG_CACHE_HOME nor $HOME are defined" on the console, 18 lines
        env["HOME"] = home
    moved, temp = [], None
    for variable, default in FOLDERS.items():
        given = env.get(variable)
        folder = given or os.path.join(home, default)
        if writable(folder):
            continue
        temp = temp or tempfile.mkdtemp(prefix="highwaylab-home-")
        env[variable] = os.path.join(temp, default.lstrip("."))
        named = f"{variable}={given}" if given else f"{folder} (from HOME={home})"
        if named not in moved:
            moved.append(named)
    own = []
    for variable in OWN_FOLDERS:
        given = env.get(variable)
        if given and not writable(given):
            temp = temp or tempfile.mkdtemp(prefix="highwaylab-home-")
            env[variable] = os.path.join(temp, variable.lower())
            own.append(f"{variable}={given}")
    if own:
        names = " and ".join(v.split("=")[0] for v in own)
        return (f"{' and '.join(moved + own)} cannot be written: those caches go to {temp} for this run. "
                f"Fix: point {names} at a writable folder, or unset it")
    if not moved and unset:
        return (f"HOME is not set (env -u HOME?): W&B and matplotlib need it, so it is set to {home}, this "
                f"user's home in the password database, for this run. Fix: export HOME={home}")
    if not moved:
        return None
    return (f"{' and '.join(moved)} cannot be written: W&B's, matplotlib's and the data checksums' caches go "
            f"to {temp} for this run (the checksums are computed again next time). Fix: export "
            f"XDG_CACHE_HOME and XDG_CONFIG_HOME=<writable folders>, or a writable HOME")
