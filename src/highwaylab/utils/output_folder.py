"""Check, before Hydra creates it, that the run's (or the sweep's) folder can be written.

Hydra makes the output folder, opens ``train.log`` in it and saves ``.hydra/`` before the task
starts; a read-only or full disk, a file-size limit (``ulimit -f``) or a read-only run folder would
stop it there with a traceback ("Unable to configure handler 'file'"). :class:`OutputFolderCheck`
runs first (a Hydra callback) and says it in one ``highwaylab:`` line, exit status 1.
"""

from __future__ import annotations

import errno
import os
import resource
import shutil
import sys
import tempfile
from pathlib import Path

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from highwaylab.config_checks import tilde_root
from highwaylab.errors import ConfigError

MIN_FREE_MB = 50  # a depth-100 run writes about 10 MB (checkpoints, W&B, logs); 1000 layers: ~50 MB
MIN_FILE_SIZE_MB = 64  # the largest file a run writes: a checkpoint (depth 1000, width 50: ~40 MB)


class OutputFolderError(ConfigError):
    """The run's folder cannot be created or written; the message names the folder, the key that
    places it and the fix."""


def check_output_folder(folder: str | Path, key: str) -> None:
    """Check that ``folder`` (``key`` places it: ``hydra.run.dir`` or ``hydra.sweep.dir``) can be
    created and written (``~`` is refused: Hydra does not expand it): a probe file is written into
    it (or into its nearest existing parent, whose missing folders are created), the disk holds at
    least ``MIN_FREE_MB`` MB, and the process may write files of ``MIN_FILE_SIZE_MB`` MB
    (``ulimit -f``).

    Raises:
        OutputFolderError: naming the folder, the cause and the fix; a symlink on the way to a
            missing target (``hydra.run.dir=<a dangling link>``) is named with its target.
    """
    elsewhere = f"write runs elsewhere: paths.log_dir=/another/folder (or {key}=...)"
    if (problem := tilde_root(str(folder), f"; {key}={folder}")) is not None:  # the user set ~ there
        raise OutputFolderError(problem)
    if str(folder).startswith("~"):  # quoted: '~/x' reaches here as it is
        log_dir = str(folder)[1:].split("/runs/")[0].split("/multiruns/")[0]
        raise OutputFolderError(f"{key}={folder}: Hydra does not expand ~, so the run would go to a folder "
                                f"named '~' in {Path.cwd()}. Fix: write the folder in full, e.g. "
                                f"paths.log_dir=$HOME{log_dir}")
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder) as probe:
            probe.write(b"\0" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as err:
        dangling = next((p for p in (folder, *folder.parents) if p.is_symlink() and not p.exists()), None)
        if dangling is not None:  # before: "a file is in the way", of a link to a folder not yet made
            target = dangling.resolve()  # through a chain of links, to the missing folder
            raise OutputFolderError(f"{key}={folder}: cannot write the run's folder: {dangling} is a symlink "
                                    f"to {target}, which does not exist. Fix: create the target folder "
                                    f"(mkdir -p {target}), or remove the link (rm {dangling}), or "
                                    f"{elsewhere}") from None
        reason = {errno.EROFS: "on a read-only file system", errno.EACCES: "permission denied",
                  errno.EPERM: "permission denied", errno.ENOSPC: "the disk is full",
                  errno.EDQUOT: "the disk quota is used up", errno.ENOTDIR: "a file is in the way",
                  errno.EEXIST: "a file is in the way"}.get(err.errno, err.strerror or str(err))
        where, fix = err.filename or folder, "make it writable"
        if err.errno in (errno.ENOTDIR, errno.EEXIST):  # name the file itself, not the folder below it
            where = next((p for p in (folder, *folder.parents) if p.exists() and not p.is_dir()), where)
            fix = "move that file away"
            root = os.environ.get("HIGHWAYLAB_ROOT")
            if root and Path(where) == Path(root):  # before: blamed hydra.run.dir, never typed
                raise OutputFolderError(f"HIGHWAYLAB_ROOT={root} (from the environment) is a file, not a "
                                        f"folder: the runs would go under {root}/outputs ({key}={folder}). "
                                        f"Fix: set HIGHWAYLAB_ROOT to a folder, or unset it (the runs then "
                                        f"go beside train.py)") from None
        raise OutputFolderError(f"{key}={folder}: cannot write the run's folder ({reason}: {where}). "
                                f"Fix: {fix}, or {elsewhere}") from None
    free_mb = shutil.disk_usage(folder).free / 2**20
    if free_mb < MIN_FREE_MB:
        raise OutputFolderError(f"{key}={folder}: only {free_mb:.1f} MB free on its disk; a run needs at "
                                f"least {MIN_FREE_MB} MB (checkpoints, logs, W&B). Fix: free some space, "
                                f"or {elsewhere}")
    soft, _ = resource.getrlimit(resource.RLIMIT_FSIZE)
    if soft != resource.RLIM_INFINITY and soft < MIN_FILE_SIZE_MB * 2**20:
        raise OutputFolderError(f"the file-size limit (ulimit -f) is {soft / 2**20:.1f} MB; a run writes "
                                f"checkpoints of up to about {MIN_FILE_SIZE_MB} MB. Fix: raise it "
                                f"(ulimit -f unlimited) before starting the run.")


class OutputFolderCheck(Callback):
    """Hydra callback: :func:`check_output_folder` for ``hydra.run.dir`` before a run and for
    ``hydra.sweep.dir`` before a multirun; on failure one ``highwaylab:`` line on stderr and exit
    status 1, before Hydra writes anything.

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.output_folder``).
    """

    def on_run_start(self, config: DictConfig, **kwargs) -> None:
        _check_or_exit(config, "hydra.run.dir")

    def on_multirun_start(self, config: DictConfig, **kwargs) -> None:
        _check_or_exit(config, "hydra.sweep.dir")


def _check_or_exit(config: DictConfig, key: str) -> None:
    HydraConfig.instance().set_config(config)  # the folder's name resolves ${hydra:...} (run_name)
    try:
        check_output_folder(OmegaConf.select(config, key), key)
    except OutputFolderError as err:
        print(f"highwaylab: {err}", file=sys.stderr)
        sys.exit(1)
