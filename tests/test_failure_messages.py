"""One line with the right fix for three failures of the breaking pass (issue 11): a checkpoint
folder that cannot be written (#48: was reported as a full disk), a signal with
``callbacks.last_checkpoint`` off (#54: said no checkpoint was written, beside the ModelCheckpoint's
epoch checkpoints) and a W&B project name that W&B refuses (#57: was answered with ``wandb login``).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import torch
from hydra.core.hydra_config import HydraConfig
from omegaconf import open_dict, read_write

from highwaylab.errors import CheckpointWriteError, ConfigError, RunInterrupted
from highwaylab.train import train
from highwaylab.utils.checkpoint_io import (
    AtomicCheckpointIO,
    CheckpointFolderError,
    check_checkpoint_dirs,
    write_failure,
)
from highwaylab.utils.loggers import WandbStartError, check_wandb_names, wandb_start_error

from .conftest import ROOT, TINY, compose_cfg, protected, subprocess_env

STATE = {"weights": torch.zeros(10_000)}  # a 40 KiB checkpoint
KEYS = ("choose another folder with the checkpoint callback's dirpath key "
        "(callbacks.model_checkpoint.dirpath or callbacks.last_checkpoint.dirpath=/another/folder)")
NO_FILE = "no earlier checkpoint was there"


def failed_write(path: Path, state: dict | None = None) -> CheckpointWriteError:
    """The error of the real ``AtomicCheckpointIO`` writing ``state`` (``STATE``) to ``path``."""
    with pytest.raises(CheckpointWriteError) as err:
        AtomicCheckpointIO().save_checkpoint(state or STATE, path)
    assert "\n" not in str(err.value)
    return err.value


def size_of(state: dict) -> int:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getbuffer().nbytes


@contextlib.contextmanager
def mounted(*args: str, target: Path):
    """``target`` mounted with ``mount *args`` for the block (root only; skipped where it can't)."""
    target.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mount", *args, str(target)], capture_output=True).returncode != 0:
        pytest.skip(f"`mount {' '.join(args)}` is not permitted here (needs root)")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


@pytest.fixture
def no_hydra_run():
    """No Hydra run set in this process (another test's composed config may have set one)."""
    saved = HydraConfig.instance().cfg
    HydraConfig.instance().cfg = None
    yield
    HydraConfig.instance().cfg = saved


@pytest.fixture
def hydra_run(tmp_path):
    """A Hydra run of ``train.py`` whose folder is ``tmp_path/run``, as Hydra sets it for the task."""
    run = tmp_path / "run"
    run.mkdir()  # Hydra makes it before the task starts
    compose_cfg(TINY, run)
    runtime = HydraConfig.instance().cfg.hydra.runtime
    with read_write(runtime), open_dict(runtime):
        runtime.output_dir = str(run)
    assert HydraConfig.get().runtime.output_dir == str(run)
    yield run
    HydraConfig.instance().cfg = None


def test_a_run_stopped_before_training_in_a_named_folder_says_to_remove_it_first(hydra_run):
    # breaking pass 21, row 1: "start the run again with the same command", which hydra.run.dir=<run>
    # then refuses (the folder holds the stopped start's record)
    from highwaylab.utils import interrupt

    assert interrupt._message(15, None, at_once=True).endswith("start the run again with the same command.")
    hydra = HydraConfig.instance().cfg.hydra
    with read_write(hydra), open_dict(hydra):
        hydra.overrides.hydra = [*hydra.overrides.hydra, f"hydra.run.dir={hydra_run}"]
    assert interrupt._message(15, None, at_once=True) == (
        f"interrupted by SIGTERM before training started: nothing was saved, nor trained; start the run "
        f"again: rm -r {hydra_run} (it holds only this start's record and log), then the same command.")
    # pass 40, row 60 (major): a sweep's job was told "the same command", which its sweep's folder refuses
    with read_write(hydra), open_dict(hydra):
        hydra.mode, hydra.overrides.task = "MULTIRUN", ["seed=1", "depth=3"]
    assert interrupt._message(15, None, at_once=True) == (
        f"interrupted by SIGTERM before training started: nothing was saved, nor trained; run this job "
        f"again into its sweep: rm -r {hydra_run} (it holds no checkpoint), then python train.py seed=1 "
        f"depth=3 hydra.run.dir={hydra_run}.")
    with read_write(hydra), open_dict(hydra):
        hydra.mode = "RUN"
    # never for a folder that holds a run's checkpoint, nor for a resume (resume= names the run's folder)
    (hydra_run / "checkpoints").mkdir()
    (hydra_run / "checkpoints" / "last.ckpt").write_bytes(b"")
    assert interrupt._message(15, None, at_once=True).endswith("start the run again with the same command.")
    (hydra_run / "checkpoints" / "last.ckpt").unlink()
    with read_write(hydra), open_dict(hydra):
        hydra.overrides.task = [*hydra.overrides.task, f"ckpt_path={hydra_run}/checkpoints/last.ckpt"]
    assert interrupt._message(15, None, at_once=True).endswith("start the run again with the same command.")


def one_line(proc: subprocess.CompletedProcess, status: int = 1) -> str:
    """The one ``highwaylab:`` line of a failed ``train.py`` (exit ``status``, no traceback)."""
    output = proc.stdout + proc.stderr
    assert proc.returncode == status, output[-3000:]
    assert "Traceback" not in output, output[-3000:]
    lines = [line.split("highwaylab: ", 1)[1] for line in output.splitlines() if "highwaylab: " in line]
    assert len(lines) == 1, lines
    return lines[0]


def train_py(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args, f"paths.log_dir={cwd}/outputs"],
                          capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=cwd)


# --- #48: a checkpoint folder that cannot be written is not a full disk ---------------------------

def test_a_folder_on_a_file_system_that_takes_none_names_the_dirpath_keys(tmp_path, no_hydra_run):
    path = Path("/proc/highwaylab_nope/epoch_000.ckpt")  # mkdir: ENOENT
    err = failed_write(path)
    assert err.__cause__.errno == errno.ENOENT
    # before: "(No such file or directory): the disk at /proc has 0 bytes free of 0 bytes; ... Free space on
    # that disk, or set paths.log_dir to another one, then resume."
    assert str(err) == (f"could not write the checkpoint {path}: its folder /proc/highwaylab_nope cannot be "
                        f"made in /proc (no such file or directory); {NO_FILE}. Fix: {KEYS}.")


@pytest.mark.parametrize("under", ["a_file/checkpoints", "a_file"], ids=["ENOTDIR", "EEXIST"])
def test_a_file_in_the_way_of_the_folder_is_named(under, tmp_path, no_hydra_run):
    (tmp_path / "a_file").write_text("not a folder")
    path = tmp_path / under / "last.ckpt"
    err = failed_write(path)
    assert err.__cause__.errno == (errno.ENOTDIR if "/" in under else errno.EEXIST)
    assert str(err) == (f"could not write the checkpoint {path}: its folder {tmp_path / under} cannot be "
                        f"made ({tmp_path / 'a_file'} is a file, not a folder); {NO_FILE}. Fix: move "
                        f"{tmp_path / 'a_file'} away, or {KEYS}.")


def test_a_read_only_file_system_names_the_folder_not_the_free_space(tmp_path, no_hydra_run):
    with mounted("-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", target=tmp_path / "ro") as ro:
        inside, below = failed_write(ro / "last.ckpt"), failed_write(ro / "checkpoints" / "last.ckpt")
    assert inside.__cause__.errno == below.__cause__.errno == errno.EROFS
    assert str(inside) == (f"could not write the checkpoint {ro}/last.ckpt: its folder {ro} cannot be "
                           f"written (read-only file system); {NO_FILE}. Fix: make {ro} writable, or {KEYS}.")
    assert str(below) == (f"could not write the checkpoint {ro}/checkpoints/last.ckpt: its folder "
                          f"{ro}/checkpoints cannot be made in {ro} (read-only file system); {NO_FILE}. Fix: "
                          f"make {ro} writable, or {KEYS}.")


EACCES_AS_NOBODY = """
import os, sys, torch, hydra.core.hydra_config
from highwaylab.errors import CheckpointWriteError
from highwaylab.utils.checkpoint_io import AtomicCheckpointIO
os.setegid(65534); os.seteuid(65534)  # root writes anywhere: the write as nobody
try:
    AtomicCheckpointIO().save_checkpoint({"weights": torch.zeros(3)}, sys.argv[1])
except CheckpointWriteError as err:
    print(err.__cause__.errno, err, sep="|")
"""


@pytest.mark.slow
def test_a_folder_without_write_permission_names_the_folder():
    if os.geteuid() != 0:
        pytest.skip("needs root, to write as another user")
    base = Path(tempfile.mkdtemp(prefix="highwaylab_eacces_", dir="/tmp"))  # pytest's base folder is 0700
    try:
        base.chmod(0o755)
        locked = base / "locked"
        locked.mkdir(mode=0o555)
        path = locked / "checkpoints" / "last.ckpt"
        proc = subprocess.run([sys.executable, "-c", EACCES_AS_NOBODY, str(path)],
                              capture_output=True, text=True, timeout=120, env=subprocess_env())
    finally:
        shutil.rmtree(base)
    code, message = proc.stdout.strip().split("|", 1)
    assert int(code) == errno.EACCES, proc.stderr[-2000:]
    assert message == (f"could not write the checkpoint {path}: its folder {locked}/checkpoints cannot be "
                       f"made in {locked} (permission denied); {NO_FILE}. Fix: make {locked} writable, or "
                       f"{KEYS}.")


@pytest.mark.parametrize("code, words", [(errno.EACCES, "permission denied"),
                                         (errno.EPERM, "operation not permitted")])
def test_permission_errors_of_an_existing_folder_name_it(code, words, tmp_path, no_hydra_run):
    path = tmp_path / "last.ckpt"
    message = write_failure(path, OSError(code, os.strerror(code), f"{path}.tmp"))
    assert message == (f"could not write the checkpoint {path}: its folder {tmp_path} cannot be written "
                       f"({words}); {NO_FILE}. Fix: make {tmp_path} writable, or {KEYS}.")


def test_a_protected_checkpoint_in_a_writable_folder_is_named_not_its_folder(tmp_path, no_hydra_run):
    # pass 32, row 10: before, an immutable last.ckpt (chattr +i) gave "its folder <run>/checkpoints
    # cannot be written (operation not permitted) ... Fix: make <folder> writable, or ... hydra.run.dir=",
    # while the folder took epoch_002.ckpt in the same run
    path = tmp_path / "last.ckpt"
    path.write_bytes(b"the previous state")
    rename = OSError(errno.EPERM, os.strerror(errno.EPERM), f"{path}.tmp", None, str(path))  # tmp -> path
    message = write_failure(path, rename)
    assert message == (f"could not write the checkpoint {path}: that file cannot be replaced (operation not "
                       f"permitted; its folder can be written: a protected file? lsattr shows an immutable "
                       f"one); the previous checkpoint there is kept. Fix: clear its protection (chattr -i "
                       f"{path}) or move it away, then resume.")


def test_a_folder_in_the_run_folder_names_paths_log_dir(hydra_run):
    path = hydra_run / "checkpoints" / "last.ckpt"
    message = write_failure(path, OSError(errno.EROFS, os.strerror(errno.EROFS), str(path.parent)))
    assert message.endswith(f"Fix: make {hydra_run} writable, or write the run elsewhere: "
                            "paths.log_dir=/another/folder.")
    assert "free" not in message


def test_a_folder_in_a_run_folder_given_by_hydra_run_dir_names_hydra_run_dir(tmp_path):
    # before: "... or write the run elsewhere: paths.log_dir=/another/folder.", which does not move a
    # run whose folder hydra.run.dir= placed
    run = tmp_path / "run"
    run.mkdir()
    compose_cfg([*TINY, f"hydra.run.dir={run}"], run)
    runtime = HydraConfig.instance().cfg.hydra.runtime
    with read_write(runtime), open_dict(runtime):
        runtime.output_dir = str(run)
    try:
        (run / "checkpoints").write_text("")  # a file where the checkpoints' folder goes
        path = run / "checkpoints" / "epoch_000.ckpt"
        message = write_failure(path, OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path)))
    finally:
        HydraConfig.instance().cfg = None
    folder = run / "checkpoints"
    assert message == (f"could not write the checkpoint {path}: its folder {folder} cannot be made ({folder} "
                       f"is a file, not a folder); {NO_FILE}. Fix: move {folder} away, or write the run "
                       f"elsewhere: hydra.run.dir=/another/folder.")


def test_a_full_disk_gives_its_free_space_and_keeps_the_previous_file(tmp_path, no_hydra_run):
    with mounted("-t", "tmpfs", "-o", "size=64k", "tmpfs", target=tmp_path / "small") as small:
        path = small / "last.ckpt"
        AtomicCheckpointIO().save_checkpoint({"weights": torch.zeros(100)}, path)  # the previous one
        err = failed_write(path, {"weights": torch.zeros(40_000)})  # 160 KiB
        assert err.__cause__.errno == errno.ENOSPC
        assert torch.load(path, weights_only=True)["weights"].numel() == 100
        assert not (small / "last.ckpt.tmp").exists()
    message = str(err)
    assert message.startswith(f"could not write the checkpoint {path} (No space left on device): the disk "
                              f"at {small} has ")
    # pass 53, row 61: the fix names what to resume (before, "or set paths.log_dir to another one, then
    # resume", which does not go with resume=)
    assert message.endswith(f" free of 64.0 KiB; the previous checkpoint there is kept. Free space on that "
                            f"disk, then resume it: python train.py ckpt_path={small}/last.ckpt")


def test_a_disk_without_free_inodes_says_so_beside_its_free_space(tmp_path, no_hydra_run):
    # pass 54, row 54 (major): before, "(No space left on device): the disk at ... has 49.9 MiB free of 50.0
    # MiB", the missing inodes never named
    with mounted("-t", "tmpfs", "-o", "size=8m,nr_inodes=8", "tmpfs", target=tmp_path / "few") as few:
        for i in range(8):  # use up every inode
            try:
                (few / f"f{i}").write_text("")
            except OSError:
                break
        err = failed_write(few / "last.ckpt")
        assert err.__cause__.errno == errno.ENOSPC
        message = str(err)
    assert message.startswith(f"could not write the checkpoint {few}/last.ckpt (No space left on device): "
                              f"the disk at {few} has no free inodes (all ")
    assert " of its files are used), though " in message and "delete files there" in message


def test_a_used_up_quota_says_quota(tmp_path, no_hydra_run):
    path = tmp_path / "last.ckpt"
    message = write_failure(path, OSError(errno.EDQUOT, os.strerror(errno.EDQUOT), f"{path}.tmp"))
    assert message.startswith(f"could not write the checkpoint {path} (Disk quota exceeded): your disk quota "
                              f"there is used up (the disk at /")
    assert message.endswith(
        "no earlier checkpoint was there. Free space within your quota (`quota -s` shows it), then start the "
        "run again (there is no checkpoint to resume from), or choose another folder with the checkpoint "
        "callback's dirpath key (callbacks.model_checkpoint.dirpath or "
        "callbacks.last_checkpoint.dirpath=/another/folder)")


def test_a_full_disk_before_the_first_checkpoint_says_to_start_again_where_the_run_is_placed(hydra_run):
    # pass 53, row 61 (major): before, "Free space on that disk, or set paths.log_dir to another one, then
    # resume": the run had nothing to resume, and paths.log_dir does not move a run given hydra.run.dir
    path = hydra_run / "checkpoints" / "epoch_000.ckpt"
    path.parent.mkdir()
    message = write_failure(path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), f"{path}.tmp"))
    assert message.endswith("no earlier checkpoint was there. Free space on that disk, then start the run "
                            "again (there is no checkpoint to resume from), or write the run elsewhere: "
                            "paths.log_dir=/another/folder")
    (path.parent / "last.ckpt").write_bytes(b"")  # a run that saved its state: resume= goes on with it
    message = write_failure(path, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), f"{path}.tmp"))
    assert message.endswith(f"Free space on that disk, then resume it: python train.py resume={hydra_run}")


def test_a_file_size_limit_names_ulimit_and_the_checkpoint_size(tmp_path):
    path = tmp_path / "last.ckpt"
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024, hard))
    try:  # Python ignores SIGXFSZ: the write fails with EFBIG
        with pytest.raises(CheckpointWriteError) as err:
            AtomicCheckpointIO().save_checkpoint(STATE, path)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # before anything prints
    assert err.value.__cause__.errno == errno.EFBIG
    assert str(err.value) == (
        f"could not write the checkpoint {path} (File too large): the file-size limit of this process "
        f"(ulimit -f) is 16.0 KiB and the checkpoint is {size_of(STATE) / 1024:.1f} KiB; {NO_FILE}. Fix: "
        "raise the limit (ulimit -f unlimited) in the shell or job script that starts the run, then resume.")
    assert not (tmp_path / "last.ckpt.tmp").exists()


def test_another_error_is_named_by_its_errno(tmp_path, no_hydra_run):
    path = tmp_path / "last.ckpt"
    message = write_failure(path, OSError(errno.EIO, os.strerror(errno.EIO), str(path)))
    assert message == (f"could not write the checkpoint {path} (EIO: Input/output error); {NO_FILE}. Fix: "
                       f"check the disk of {tmp_path} (the system log names its fault), or {KEYS}.")


@pytest.mark.parametrize("dirpath, reason", [
    ("/proc/highwaylab_nope", "its folder /proc/highwaylab_nope cannot be made in /proc (no such file or "
                              "directory). Fix: "),
    ("{tmp}/a_file/checkpoints", "its folder {tmp}/a_file/checkpoints cannot be made ({tmp}/a_file is a "
                                 "file, not a folder). Fix: move {tmp}/a_file away, or "),
])
def test_a_checkpoint_folder_that_cannot_be_written_is_refused_before_training(dirpath, reason, tmp_path):
    (tmp_path / "a_file").write_text("not a folder")
    dirpath, reason = dirpath.format(tmp=tmp_path), reason.format(tmp=tmp_path)
    cfg = compose_cfg([*TINY, f"callbacks.model_checkpoint.dirpath={dirpath}"], tmp_path / "run")
    with pytest.raises(CheckpointFolderError) as err:
        check_checkpoint_dirs(cfg.callbacks)
    key = "callbacks.model_checkpoint.dirpath"
    assert str(err.value) == (f"{key}={dirpath}: no checkpoint can be written there: {reason}set {key} to "
                              "another folder (or leave it out: the run's folder's checkpoints/)")


def test_a_checkpoint_folder_of_another_run_is_refused_before_training(tmp_path):
    # before: exit 0, another run's last.ckpt overwritten (Lightning: "exists and is not empty")
    other = tmp_path / "other_run" / "checkpoints"
    other.mkdir(parents=True)
    (other / "last.ckpt").write_bytes(b"its state")
    cfg = compose_cfg([*TINY, f"callbacks.last_checkpoint.dirpath={other}"], tmp_path / "run")
    with pytest.raises(CheckpointFolderError) as err:
        check_checkpoint_dirs(cfg.callbacks, tmp_path / "run")
    assert str(err.value) == (
        f"callbacks.last_checkpoint.dirpath={other} already holds checkpoints (last.ckpt) of another run, "
        f"which this run would overwrite. Fix: give a new or empty folder, or leave "
        f"callbacks.last_checkpoint.dirpath out (the run's folder's checkpoints/)")
    check_checkpoint_dirs(cfg.callbacks, tmp_path / "run", ckpt_path=str(other / "last.ckpt"))  # continues it
    assert (other / "last.ckpt").read_bytes() == b"its state"
    # pass 44, row 26: a run whose best checkpoints went to a folder of their own, resumed in its folder:
    # before, "already holds checkpoints ... of another run", of its own best checkpoint
    best = tmp_path / "best"
    best.mkdir()
    (best / "epoch_000.ckpt").write_bytes(b"its best")
    run = tmp_path / "run"
    cfg = compose_cfg([*TINY, f"callbacks.model_checkpoint.dirpath={best}"], run)
    resumed = str(run / "checkpoints" / "last.ckpt")
    with pytest.raises(CheckpointFolderError, match="of another run"):  # no record of it: another run's
        check_checkpoint_dirs(cfg.callbacks, run, ckpt_path=resumed)
    run.mkdir(exist_ok=True)
    (run / "config_resolved.yaml").write_text(f"callbacks:\n  model_checkpoint:\n    dirpath: {best}\n")
    check_checkpoint_dirs(cfg.callbacks, run, ckpt_path=resumed)  # the run's own: accepted


@pytest.mark.slow
def test_a_run_with_its_checkpoints_outside_its_folder_resumes_into_its_own_wandb_run(tmp_path, data_dir):
    # pass 76, row 68 (major): last.ckpt in a folder of its own; before, resume= warned "a checkpoint of
    # another run folder" and split the run's history into a new W&B run (with the best checkpoints there
    # too, resume= was refused: "already holds checkpoints ... of another run"); row 79: Lightning's
    # "Checkpoint directory ... exists and is not empty" of the run's own folder
    run, last, best = tmp_path / "run", tmp_path / "last", tmp_path / "best"
    args = [a for a in TINY if not a.startswith(("logger=", "~callbacks.model_summary"))] + ["logger=wandb"]
    env = subprocess_env(WANDB_MODE="offline")
    first = subprocess.run([sys.executable, str(ROOT / "train.py"), *args, f"hydra.run.dir={run}",
                            f"callbacks.last_checkpoint.dirpath={last}",
                            f"callbacks.model_checkpoint.dirpath={best}"],
                           capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    [segment] = run.glob("wandb/offline-run-*")
    run_id = segment.name.rsplit("-", 1)[1]
    resumed = subprocess.run([sys.executable, str(ROOT / "train.py"), f"resume={run}",
                              "trainer.max_epochs=2"], capture_output=True, text=True, timeout=300, env=env,
                             cwd=tmp_path)
    output = resumed.stdout + resumed.stderr
    assert resumed.returncode == 0, output[-3000:]
    assert f"Continuing W&B run {run_id} (no group) of {last}/last.ckpt" in output
    assert "another run folder" not in output and "exists and is not empty" not in output, output[-3000:]
    assert {s.name.rsplit("-", 1)[1] for s in run.glob("wandb/offline-run-*")} == {run_id}  # one W&B run
    assert json.loads((run / "metrics.json").read_text())["epochs"] == 2


def test_writable_checkpoint_folders_pass_and_nothing_is_made(tmp_path):
    cfg = compose_cfg([*TINY, f"callbacks.last_checkpoint.dirpath={tmp_path}/elsewhere/deeper"],
                      tmp_path / "run")
    check_checkpoint_dirs(cfg.callbacks)  # model_checkpoint: <run>/checkpoints; last: a missing folder
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_train_py_with_a_checkpoint_folder_in_proc_is_one_line_naming_the_key(tmp_path, data_dir):
    proc = train_py(tiny("callbacks.model_checkpoint.dirpath=/proc/highwaylab_nope"), tmp_path)
    line = one_line(proc)
    # before: "... (No such file or directory): the disk at /proc has 0 bytes free of 0 bytes; ... Free space
    # on that disk, or set paths.log_dir to another one, then resume."
    assert "/proc/highwaylab_nope" in line and "callbacks.model_checkpoint.dirpath" in line, line
    assert "free" not in line.lower(), line


# --- #54: a signal with callbacks.last_checkpoint off names the ModelCheckpoint's checkpoint ------

def signal_at(step: int, signum: int) -> list[str]:
    return ["+callbacks.signal_at._target_=tests.signal_at.SignalAt", f"+callbacks.signal_at.step={step}",
            f"+callbacks.signal_at.signum={signum}"]


def tiny(*extra: str) -> list[str]:
    """TINY and ``extra`` overrides, an extra one replacing TINY's of the same key."""
    keys = {e.split("=", 1)[0] for e in extra}
    return [a for a in TINY if a.split("=", 1)[0] not in keys] + list(extra)


NO_LAST = tiny("depth=3", "width=8", "trainer.max_epochs=3", "callbacks.last_checkpoint=null")


@pytest.mark.slow
def test_sigint_without_last_checkpoint_names_the_epoch_checkpoint(tmp_path, data_dir):
    with pytest.raises(RunInterrupted) as err:  # 4 batches per epoch: step 6 is in epoch 1
        train(compose_cfg([*NO_LAST, *signal_at(6, int(signal.SIGINT))], tmp_path))
    ckpt = tmp_path / "checkpoints" / "epoch_000.ckpt"
    assert torch.load(ckpt, map_location="cpu", weights_only=True)["global_step"] == 4
    assert err.value.exit_code == 130
    # before: "interrupted by SIGINT in epoch 1 at step 6: no checkpoint was written yet (resuming means
    # starting again)."
    assert str(err.value) == (
        f"interrupted by SIGINT in epoch 1 at step 6: no resume point was saved (callbacks.last_checkpoint "
        f"is off, so resume= finds no checkpoints/last.ckpt); the latest checkpoint is {ckpt}, of step 4; "
        f"the steps after it are lost; continue from it with: python train.py <the run's overrides> "
        f"ckpt_path={ckpt} (keep callbacks.last_checkpoint on for a resume point).")
    assert not (tmp_path / "checkpoints" / "last.ckpt").exists()


@pytest.mark.slow
def test_sigterm_before_any_checkpoint_still_says_none_was_written(tmp_path, data_dir):
    with pytest.raises(RunInterrupted) as err:
        train(compose_cfg([*NO_LAST, *signal_at(2, int(signal.SIGTERM))], tmp_path))
    # pass 95, row 44: which setting left the run without a resume point, and the command that keeps one
    assert str(err.value) == (
        "interrupted by SIGTERM in epoch 0 at step 2: no checkpoint was written yet, and the latest "
        "checkpoint, which saves the state when a signal comes, is off (callbacks.last_checkpoint=null), so "
        "its 2 steps are lost; start the run again with the same command, without "
        "callbacks.last_checkpoint=null, to keep the state of the next interruption.")
    assert not (tmp_path / "checkpoints").exists() or not list((tmp_path / "checkpoints").iterdir())


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGUSR2, 140), (signal.SIGUSR1, 138),
                                               (signal.SIGQUIT, 131), (signal.SIGALRM, 142)])
def test_usr2_and_usr1_outside_slurm_save_and_stop_like_sigterm(signum, status, tmp_path, data_dir):
    # before: USR2 (a scheduler's warning signal) outside a SLURM job, USR1 (Lightning's) anywhere, and
    # SIGALRM (timeout -s ALRM; pass 21, row 28) killed the run by their default action: exit 140 / 138 /
    # 142, no line, no checkpoint
    with pytest.raises(RunInterrupted) as err:
        train(compose_cfg([*tiny("depth=3", "width=8", "trainer.max_epochs=3"),
                           *signal_at(6, int(signum))], tmp_path))
    assert err.value.exit_code == status
    assert str(err.value).startswith(f"interrupted by {signum.name} in epoch 1 at step 6: its state at step "
                                     f"6 is saved in {tmp_path}/checkpoints/last.ckpt; resume")
    assert (tmp_path / "checkpoints" / "last.ckpt").is_file()


@pytest.mark.slow
def test_the_soft_cpu_time_limit_saves_and_stops_like_sigterm(tmp_path, data_dir):
    # before (finding 26): SIGXCPU, of a soft CPU-time limit (ulimit -S -t), killed the run by its default
    # action: exit 152, no line, no last.ckpt. The kernel's repeats (once per CPU second) do not stop the save
    run = tmp_path / "run"
    limit = ["+callbacks.cpu_limit._target_=tests.signal_at.CPULimitAt", "+callbacks.cpu_limit.step=6"]
    proc = train_py([*tiny("depth=3", "width=8", "trainer.max_epochs=3"), *limit, f"hydra.run.dir={run}"],
                    tmp_path)
    line = one_line(proc, status=128 + int(signal.SIGXCPU))
    last = run / "checkpoints" / "last.ckpt"
    assert line.startswith(f"interrupted by SIGXCPU in epoch 1 at step 6: its state at step 6 is saved in "
                           f"{last}; resume"), line
    assert torch.load(last, map_location="cpu", weights_only=True)["global_step"] == 6
    assert "the soft CPU-time limit" in proc.stdout + proc.stderr


@pytest.mark.slow
def test_the_command_in_the_line_continues_the_run_in_its_folder(tmp_path, data_dir):
    run = tmp_path / "run"
    proc = train_py([*NO_LAST, *signal_at(6, int(signal.SIGINT)), f"hydra.run.dir={run}"], tmp_path)
    line = one_line(proc, status=130)
    ckpt = run / "checkpoints" / "epoch_000.ckpt"
    assert line.startswith(f"interrupted by SIGINT in epoch 1 at step 6: no resume point was saved "
                           f"(callbacks.last_checkpoint is off, so resume= finds no checkpoints/last.ckpt); "
                           f"the latest checkpoint is {ckpt}, of step 4; the steps after it are lost; "
                           "continue from it with: python train.py ")
    command = line.split("continue from it with: ", 1)[1].removesuffix(
        " (keep callbacks.last_checkpoint on for a resume point).")
    words = shlex.split(command)
    assert words[-2:] == [f"ckpt_path={ckpt}", f"hydra.run.dir={run}"]
    assert "callbacks.last_checkpoint=null" in words
    # the command as given, with the signal moved past the end (replaced: a key given twice is refused)
    moved = [w if not w.startswith("+callbacks.signal_at.step=") else "+callbacks.signal_at.step=1000"
             for w in words[2:]]
    assert moved != words[2:]
    resumed = subprocess.run([sys.executable, str(ROOT / "train.py"), *moved],
                             capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    metrics = json.loads((run / "metrics.json").read_text())
    assert (metrics["global_step"], metrics["epochs"]) == (12, 3)


# --- #57: a W&B name that W&B refuses is named before the run, not as a login problem ------------

WANDB = [a for a in TINY if a != "logger=none"]  # the default logger: W&B, offline


@pytest.mark.parametrize("project", ["p" * 200, "team/highway", "depth#100", "runs:2026"],
                         ids=["200-characters", "slash", "hash", "colon"])
def test_a_project_name_wandb_refuses_is_one_line_naming_the_key(project, tmp_path):
    import wandb

    cfg = compose_cfg([*WANDB, f"logger.wandb.project={project!r}"], tmp_path)
    with pytest.raises(wandb.errors.UsageError) as refused:  # W&B's own answer, offline too
        wandb.init(project=project, mode="offline", dir=str(tmp_path))
    with pytest.raises(ConfigError) as err:
        check_wandb_names(cfg.logger)
    shown = f"{'p' * 40}... (200 characters)" if len(project) > 60 else project
    assert str(err.value) == (f"logger.wandb.project={shown} is refused by W&B ({refused.value}). Fix: "
                              "give logger.wandb.project a value W&B accepts, e.g. "
                              "logger.wandb.project=highwaylab (the default)")
    assert "wandb login" not in str(err.value)


@pytest.mark.parametrize("project", ["highwaylab", "my-project_v2.1", "Tiefe Netze", "p" * 128],
                         ids=["default", "dashes-dots", "space", "128-characters"])
def test_project_names_wandb_takes_pass(project, tmp_path):
    cfg = compose_cfg([*WANDB, f"logger.wandb.project={project!r}"], tmp_path)
    assert cfg.logger.wandb.project == project
    check_wandb_names(cfg.logger)


def test_an_empty_project_is_refused_unless_wandb_project_names_one(tmp_path, monkeypatch):
    # tenth pass: before, exit 0 and the run in Lightning's fallback project, lightning_logs
    monkeypatch.delenv("WANDB_PROJECT", raising=False)
    cfg = compose_cfg([*WANDB, "logger.wandb.project=''"], tmp_path)
    with pytest.raises(ConfigError, match=r"^logger.wandb.project is empty, so the W&B run would go to "
                                          r"Lightning's fallback project, lightning_logs"):
        check_wandb_names(cfg.logger)
    monkeypatch.setenv("WANDB_PROJECT", "mine")
    check_wandb_names(cfg.logger)  # W&B's variable names it (Lightning passes it on)
    # pass 78, row 57: before, the run was filed under 'mine' and its record said project: ''
    from hydra.utils import instantiate

    from highwaylab.train import record_values_used

    record_values_used(cfg, instantiate(cfg.model, input_shape=(1, 28, 28), num_classes=10))
    assert cfg.logger.wandb.project == "mine"


def test_a_run_id_wandb_refuses_and_a_number_are_named(tmp_path):
    cfg = compose_cfg([*WANDB, "logger.wandb.id='run:1'"], tmp_path)
    with pytest.raises(ConfigError, match=r"^logger\.wandb\.id=run:1 is refused by W&B \(Run ID cannot "
                                          r"contain the characters: .*\)\. Fix: give logger\.wandb\.id a "
                                          r"value W&B accepts, e\.g\. logger\.wandb\.id=null "
                                          r"\(W&B draws one\)$"):
        check_wandb_names(cfg.logger)
    cfg = compose_cfg([*WANDB, "logger.wandb.project=2026"], tmp_path)
    with pytest.raises(ConfigError) as err:
        check_wandb_names(cfg.logger)
    assert str(err.value) == ("logger.wandb.project=2026 must be a string (W&B takes no int); quote it: "
                              "'logger.wandb.project=\"2026\"'")


def test_wandb_project_from_the_environment_and_a_disabled_wandb(tmp_path, monkeypatch):
    cfg = compose_cfg([*WANDB, "logger.wandb.project=''"], tmp_path)
    monkeypatch.setenv("WANDB_PROJECT", "a/b")  # Lightning's fallback for an empty project
    fix = ("Fix: unset WANDB_PROJECT or give it a value W&B accepts (W&B reads the environment variable "
           "even where logger.wandb.project is set)")
    with pytest.raises(ConfigError, match=r"^WANDB_PROJECT=a/b is refused by W&B \(.*\)\. " + re.escape(fix)):
        check_wandb_names(cfg.logger)
    # before: with a valid logger.wandb.project, W&B still refused WANDB_PROJECT=a/b at the logger's
    # first use, ten seconds in, and the line said to change logger.wandb (which does not help)
    good = compose_cfg([*WANDB, "logger.wandb.project=otherproj"], tmp_path)
    with pytest.raises(ConfigError, match=r"^WANDB_PROJECT=a/b is refused by W&B \(.*\)\. " + re.escape(fix)):
        check_wandb_names(good.logger)
    monkeypatch.delenv("WANDB_PROJECT")
    monkeypatch.setenv("WANDB_RUN_ID", "a/b")
    with pytest.raises(ConfigError, match=r"^WANDB_RUN_ID=a/b is refused by W&B \(.*\)\. Fix: unset WANDB_"):
        check_wandb_names(good.logger)
    monkeypatch.delenv("WANDB_RUN_ID")
    monkeypatch.setenv("WANDB_MODE", "disabled")  # no W&B run: nothing to check
    check_wandb_names(compose_cfg([*WANDB, "logger.wandb.project='a/b'"], tmp_path).logger)
    check_wandb_names(compose_cfg(TINY, tmp_path).logger)  # logger=none


def test_the_loggers_module_loads_no_torch_lightning_or_wandb():
    code = ("import sys, highwaylab.utils.loggers; "
            "print(sorted(m for m in ('torch', 'lightning', 'wandb') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "[]", proc.stderr[-2000:]


def test_a_usage_error_offline_is_not_answered_with_wandb_login():
    import wandb

    try:
        wandb.Settings(project="a/b")
    except wandb.errors.UsageError as err:
        usage = err
    offline, online = wandb_start_error(usage, online=False), wandb_start_error(usage, online=True)
    assert isinstance(offline, WandbStartError) and isinstance(online, WandbStartError)
    assert "wandb login" not in str(offline) and "wandb login" in str(online)  # online: no API key
    assert str(offline) == (f"logger.wandb: W&B could not start its run (UsageError: {usage}). Fix: "
                            "change the logger.wandb setting W&B names (project, id, settings), or choose "
                            "logger=csv")
    # pass 81, row 52 (major): +logger.wandb.mode=online beside offline: true, without an API key; before,
    # the offline answer above, which named settings that were fine and not the mode given
    keyless = wandb.errors.UsageError("No API key configured. Use `wandb login` to log in.")
    assert str(wandb_start_error(keyless, online=False, mode="online")) == (
        "logger.wandb: W&B could not start its run (UsageError: No API key configured. Use `wandb login` to "
        "log in.). Fix: logger.wandb.mode=online logs online, which needs a W&B API key: run `wandb login` "
        "or set WANDB_API_KEY, or leave logger.wandb.mode out (runs log offline: logger.wandb.offline=true)")


@pytest.mark.slow
def test_train_py_with_a_long_project_name_is_one_line_without_wandb_login(tmp_path, data_dir):
    proc = train_py([*WANDB, f"logger.wandb.project={'p' * 200}"], tmp_path)
    line = one_line(proc)
    # before: "logger.wandb: W&B could not start its run (UsageError: Invalid project name 'ppp...':
    # exceeded 128 characters). Fix: run `wandb login` or set WANDB_API_KEY, ..."
    assert line.startswith("logger.wandb"), line
    assert "project" in line and "wandb login" not in line and "WANDB_API_KEY" not in line, line


CONSOLE_MODES = "auto, off, wrap, redirect, wrap_raw, wrap_emu"  # wandb 0.31's Settings.console


def test_a_wandb_rewind_or_fork_variable_is_refused_and_a_settings_error_never_shows_the_api_key(
        tmp_path):
    # breaking pass 62, row 32 (major): before, WANDB_RESUME_FROM passed the checks, W&B refused it at
    # wandb.init, and the line held W&B's whole Settings repr (5 KB), WANDB_API_KEY in clear text
    import wandb

    from highwaylab.utils.loggers import _settings_error, check_wandb_environment

    with pytest.raises(ConfigError) as err:
        check_wandb_environment({"WANDB_RESUME_FROM": "abcd1234?_step=3"})
    assert str(err.value) == (
        "WANDB_RESUME_FROM='abcd1234?_step=3' (from the environment) is set: W&B's rewind of a run "
        "(resume_from) cannot go with the run's own W&B run (a new one, or the one resume= continues), and "
        "needs an online run. Fix: unset WANDB_RESUME_FROM (to continue a run: python train.py "
        "resume=<its folder>)")
    with pytest.raises(ConfigError, match=r"^WANDB_FORK_FROM='abcd1234\?_step=3' \(from the environment\) "
                                          r"is set: W&B's fork of a run \(fork_from\)"):
        check_wandb_environment({"WANDB_FORK_FROM": "abcd1234?_step=3"})
    key = "0123456789abcdef0123456789abcdef01234567"
    with pytest.raises(ValueError) as refused:  # a check of the whole Settings, as wandb.init makes it
        wandb.Settings(api_key=key, resume="allow", resume_from="abcd1234?_step=3")
    line = str(_settings_error(refused.value))
    assert key not in line and "Settings(" not in line and len(line) < 400, line
    assert line == ("logger.wandb: W&B could not start its run: its settings are refused (`fork_from`, "
                    "`resume`, or `resume_from` are mutually exclusive. Please specify only one of them.). "
                    "Fix: check logger.wandb.settings and the WANDB_* environment variables (env | grep "
                    "WANDB_)")


def test_a_wandb_variable_wandb_refuses_is_named_before_the_run(monkeypatch):
    from highwaylab.utils.loggers import check_wandb_environment

    with pytest.raises(ConfigError) as err:
        check_wandb_environment({"WANDB_CONSOLE": "bogus", "WANDB_PROJECT": "p"})
    assert str(err.value) == (f"WANDB_CONSOLE='bogus' (from the environment) is not a W&B console mode: "
                              f"{CONSOLE_MODES}. Fix: unset WANDB_CONSOLE (or set it to one of these)")
    with pytest.raises(ConfigError) as err:
        check_wandb_environment({"WANDB_SILENT": "maybe"})
    assert str(err.value).startswith("WANDB_SILENT='maybe' (from the environment) is refused by W&B (")
    check_wandb_environment({"WANDB_CONSOLE": "wrap", "WANDB_SILENT": "true", "WANDB_MODE": "bogus"})
    monkeypatch.setenv("WANDB_CONSOLE", "bogus")  # the config checks run it where there is a W&B logger
    with pytest.raises(ConfigError, match="WANDB_CONSOLE='bogus'"):
        check_wandb_names(compose_cfg(WANDB, Path("/tmp")).logger)
    check_wandb_names(compose_cfg(TINY, Path("/tmp")).logger)  # logger=none: not read


def test_a_settings_error_at_wandb_init_is_one_line_naming_its_source(monkeypatch):
    import wandb

    with pytest.raises(ValueError) as raised:
        wandb.Settings(console="bogus")
    error = wandb_start_error(raised.value, online=False)
    assert error is not None and "\n" not in str(error)
    assert str(error).startswith("logger.wandb: W&B could not start its run: its setting console='bogus' "
                                 "is refused ("), error
    assert str(error).endswith("Fix: change or remove logger.wandb.settings.console, or the WANDB_CONSOLE "
                               "environment variable"), error
    monkeypatch.setenv("WANDB_CONSOLE", "bogus")
    assert str(wandb_start_error(raised.value, online=False)) == (
        f"logger.wandb: W&B could not start its run: WANDB_CONSOLE='bogus' (from the environment) is not a "
        f"W&B console mode: {CONSOLE_MODES}. Fix: unset WANDB_CONSOLE (or set it to one of these)")


def test_a_settings_error_of_a_loggers_own_argument_names_that_argument():
    # pass 94, rows 42b and 43b: before, W&B's run_group named as logger.wandb.settings.run_group, whose
    # removal (~logger.wandb.settings.run_group) was refused in turn: the logger's group= sets it
    import wandb

    with pytest.raises(ValueError) as raised:
        wandb.Settings(run_group=128)
    assert str(wandb_start_error(raised.value, online=False)).endswith(
        "Fix: change or remove logger.wandb.group, or the WANDB_RUN_GROUP environment variable")


@pytest.mark.slow
def test_train_py_with_a_bad_wandb_console_is_one_line_before_torch_and_no_folder(tmp_path):
    # before (finding 16): rc 1 after the imports and the data, "The run failed: 1 validation error for
    # Settings ...", a pydantic traceback of some 200 lines and the run's folder left behind
    run = tmp_path / "run"
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *WANDB, f"hydra.run.dir={run}"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env=subprocess_env(WANDB_CONSOLE="bogus"))
    assert one_line(proc) == (f"WANDB_CONSOLE='bogus' (from the environment) is not a W&B console mode: "
                              f"{CONSOLE_MODES}. Fix: unset WANDB_CONSOLE (or set it to one of these)")
    assert not run.exists()


@pytest.mark.slow
def test_sigterm_while_the_wandb_run_closes_after_a_finished_run_is_one_line_and_exit_0(tmp_path, data_dir):
    # ninth pass: before, exit 143 with no line (or a "before its test" message swallowed as a W&B
    # closing failure), although metrics.json was written and the W&B run finished
    from highwaylab.utils.wandb_offline import read_records

    run = tmp_path / "run"
    args = [a for a in tiny("depth=3", "width=8") if not a.startswith("logger=")]
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *args, f"hydra.run.dir={run}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                            env=subprocess_env(PYTHONUNBUFFERED="1"))
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "Closing W&B run" in line:
            proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=300) == 0, "".join(lines[-30:])
    said = [line.split("] - ", 1)[-1].strip() for line in lines if "highwaylab: " in line]
    assert said == ["highwaylab: SIGTERM came while the loggers were closing, after the run had finished: "
                    "its results are complete (metrics.json) and its W&B run is closed as finished; the "
                    "process ends normally"]
    assert "test/acc" in json.loads((run / "metrics.json").read_text())
    records = read_records(sorted((run / "wandb").glob("offline-run-*"))[0])
    assert next(r["exit"] for r in records if r.get("type") == "exit")["exit_code"] == 0


# --- finding 52: hydra.job.env_set is what the checks before the run's folder read -----------------

def test_env_set_values_are_what_the_checks_before_hydra_read(tmp_path, data_dir, monkeypatch, no_hydra_run):
    from highwaylab.errors import DataError
    from highwaylab.utils.overrides import check_command_line

    missing = tmp_path / "nonexistent"
    # before: the checks read the shell's HIGHWAYLAB_DATA_DIR and passed; the job, with the env_set value,
    # refused the run after Hydra had made its folder
    def check(*args: str) -> None:
        check_command_line(["train.py", *args], ROOT / "conf")

    with pytest.raises(DataError, match=f"Data file missing: {missing}/MNIST/raw/"):
        check(*TINY, f"+hydra.job.env_set.HIGHWAYLAB_DATA_DIR={missing}")
    assert os.environ["HIGHWAYLAB_DATA_DIR"] == str(data_dir)  # the environment is as it was
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(missing))  # the shell's is wrong, the job's is right
    check(*TINY, f"+hydra.job.env_set.HIGHWAYLAB_DATA_DIR={data_dir}")
    assert os.environ["HIGHWAYLAB_DATA_DIR"] == str(missing)
    monkeypatch.undo()
    with pytest.raises(ConfigError) as err:  # a W&B variable set so, too
        check(*WANDB, "+hydra.job.env_set.WANDB_CONSOLE=bogus")
    # named as the override it is (pass 21, row 46: "from the environment ... Fix: unset WANDB_CONSOLE")
    assert str(err.value) == (f"WANDB_CONSOLE='bogus' (from hydra.job.env_set.WANDB_CONSOLE) is not a W&B "
                              f"console mode: {CONSOLE_MODES}. Fix: correct or remove the override "
                              f"hydra.job.env_set.WANDB_CONSOLE (or set it to one of these)")
    assert "WANDB_CONSOLE" not in os.environ


def test_an_env_set_variable_that_the_run_folder_reads_is_refused_before_hydra(tmp_path, data_dir,
                                                                             no_hydra_run):
    # breaking pass, finding 46: before, +hydra.job.env_set.HIGHWAYLAB_ROOT=<x> ran under the shell's
    # $HIGHWAYLAB_ROOT/outputs/runs/ while its config_resolved.yaml recorded paths.root_dir: <x>
    from highwaylab.utils.overrides import OverrideError, check_command_line

    def check(*args: str) -> None:
        check_command_line(["train.py", *args], ROOT / "conf")

    shell, envroot = os.environ["HIGHWAYLAB_ROOT"], tmp_path / "envroot"
    for multirun, folder, who in (([], "run's folder", "the run"), (["-m", "seed=0,1"], "multirun's folders",
                                                                    "its jobs")):
        with pytest.raises(OverrideError) as err:
            check(*multirun, *TINY, f"+hydra.job.env_set.HIGHWAYLAB_ROOT={envroot}")
        assert str(err.value) == (
            f"+hydra.job.env_set.HIGHWAYLAB_ROOT: Hydra chooses the {folder} before env_set applies, so "
            f"{who} would go under {shell} while the record says {envroot}. Fix: set HIGHWAYLAB_ROOT in the "
            f"shell (HIGHWAYLAB_ROOT={envroot} python train.py ...), or paths.log_dir=<folder>")
    assert os.environ["HIGHWAYLAB_ROOT"] == shell and not envroot.exists()
    env_set = f"+hydra.job.env_set.HIGHWAYLAB_ROOT={envroot}"
    check(*TINY, env_set, f"paths.log_dir={envroot}/outputs")  # the fix: the folder given, not read
    check(*TINY, env_set, f"hydra.run.dir={tmp_path}/run")  # a folder that reads no variable
    check(*TINY, f"+hydra.job.env_set.HIGHWAYLAB_ROOT={shell}")  # the shell's value: the same folder


@pytest.mark.slow
def test_a_run_refused_for_an_env_set_data_folder_leaves_no_folder(tmp_path, data_dir):
    # before (finding 52): "Data file missing" from inside the job, and run_j08/ (.hydra/, train.log) left
    # behind, so that the corrected command was refused for a folder "that wrote no checkpoint"
    run = tmp_path / "run_j08"
    proc = train_py([*TINY, f"+hydra.job.env_set.HIGHWAYLAB_DATA_DIR={tmp_path}/nonexistent",
                     f"hydra.run.dir={run}"], tmp_path)
    assert one_line(proc).startswith(f"Data file missing: {tmp_path}/nonexistent/MNIST/raw/")
    assert not run.exists()


@pytest.mark.parametrize("name", ["sig,c $x", "run,v2", "a b", "it's", "x[1]", "plain_run-1.2", "ü"])
def test_a_printed_resume_command_reads_back_as_the_run_folder_in_the_shell_and_hydra(name, tmp_path):
    # pass 32, rows 12 and 13 (major): a run in hydra.run.dir='/x/sig,c $x' was told "resume with: python
    # train.py 'resume=/x/sig,c $x'", shell-quoted only: Hydra read a sweep of /x/sig and 'c $x'
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from highwaylab.utils.shell_args import override_arg

    folder = str(tmp_path / name)
    argument = override_arg("resume", folder)
    word = subprocess.run(["bash", "-c", f"printf %s {argument}"], capture_output=True, text=True,
                          check=True).stdout
    override = OverridesParser.create().parse_override(word)
    assert override.value() == folder and not override.is_sweep_override(), (argument, word)
    plain = not set(name) - set("abcdefghijklmnopqrstuvwxyz0123456789_-.")
    assert (argument == f"resume={folder}") == plain  # as before, where nothing needs quoting


def test_the_resume_line_of_an_interrupt_quotes_the_folder_for_hydra(tmp_path):
    # pass 32, row 13 (major): before, "resume with: python train.py 'resume=/tmp/pass32/sig,c $x'."
    from highwaylab.utils import interrupt

    run = tmp_path / "sig,c $x"
    run.mkdir()
    compose_cfg(TINY, run)
    runtime = HydraConfig.instance().cfg.hydra.runtime
    try:
        with read_write(runtime), open_dict(runtime):
            runtime.output_dir = str(run)
        hint = interrupt._resume_hint()
        assert hint == "resume with: python train.py " + f"\"resume='{tmp_path}/sig,c \\$x'\""
    finally:
        HydraConfig.instance().cfg = None


def test_a_forked_data_worker_leaves_a_signal_to_the_run(no_hydra_run):
    # pass 32, row 33: with data.num_workers=2, one Ctrl-C to the terminal's process group logged "SIGINT
    # received: the run stops after the current batch ..." 5 times: each forked worker ran the handler too
    import signal

    from highwaylab.utils import interrupt

    with interrupt.signals_interrupt():
        pid = os.fork()
        if pid == 0:  # the worker: the handler returns, nothing logged, raised or noted
            try:
                interrupt._on_signal(signal.SIGINT, None)
                os._exit(0 if interrupt._state.signum is None else 2)
            except BaseException:  # noqa: BLE001 - before: RunInterrupted in the worker
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        with pytest.raises(RunInterrupted):  # the run's own process: stopped, as before
            interrupt._on_signal(signal.SIGINT, None)


def test_a_protected_checkpoint_folder_of_the_run_is_named_without_a_key_never_set(tmp_path):
    # pass 34, row 46: before, resume= of a run whose checkpoints/ was protected (chattr +i) was told
    # "callbacks.model_checkpoint.dirpath=<run>/checkpoints: ... or set callbacks.model_checkpoint.dirpath
    # to another folder (or leave it out ...)", a key the user never set
    run = tmp_path / "run"
    cfg = compose_cfg(TINY, run)
    (folder := run / "checkpoints").mkdir(parents=True)
    with protected(folder), pytest.raises(CheckpointFolderError) as err:
        check_checkpoint_dirs(cfg.callbacks, run)
    assert str(err.value) == (
        f"the run's checkpoint folder {folder}: no checkpoint can be written there: its folder {folder} "
        f"cannot be written (operation not permitted) (a protected folder? lsattr -d shows an immutable "
        f"one). Fix: make {folder} writable, then run the same command again")


def test_an_append_only_checkpoint_folder_is_refused_before_training_with_its_cause(tmp_path):
    # breaking pass 60, row 26: before, resume= of a run whose checkpoints/ was append-only (chattr +a)
    # trained an epoch, failed renaming epoch_001.ckpt.tmp, and said the folder "cannot be written", "no
    # earlier checkpoint was there" and "hydra.run.dir=...", none of it true of the run
    run = tmp_path / "run"
    cfg = compose_cfg(TINY, run)
    (folder := run / "checkpoints").mkdir(parents=True)
    if subprocess.run(["chattr", "+a", str(folder)], capture_output=True).returncode != 0:
        pytest.skip("chattr +a is not available here")
    try:
        with pytest.raises(CheckpointFolderError) as err:
            check_checkpoint_dirs(cfg.callbacks, run)
    finally:
        subprocess.run(["chattr", "-a", str(folder)], check=True)
    assert str(err.value) == (
        f"the run's checkpoint folder {folder}: no checkpoint can be saved there: {folder} is append-only "
        f"(chattr +a; lsattr -d shows 'a'), so a file can be made in it but not renamed or removed, and each "
        f"checkpoint is written as <name>.tmp, then renamed into place. Fix: chattr -a {folder}, then run "
        f"the same command again")
    check_checkpoint_dirs(cfg.callbacks, run)  # the fix


def test_a_protected_checkpoint_the_run_would_replace_is_refused_before_training(tmp_path):
    # breaking pass 61, row 53 (major): before, an immutable best checkpoint (epoch_000.ckpt), then resume=,
    # trained epoch 1 and failed removing the old best: Lightning's PermissionError traceback, and
    # last.ckpt left at the step before, the epoch's resume point lost
    run = tmp_path / "run"
    cfg = compose_cfg(TINY, run)
    (folder := run / "checkpoints").mkdir(parents=True)
    best = folder / "epoch_000.ckpt"
    best.write_bytes(b"checkpoint")
    with protected(best), pytest.raises(CheckpointFolderError) as err:
        check_checkpoint_dirs(cfg.callbacks, run)
    assert str(err.value) == (
        f"the run's checkpoint {best} is immutable (chattr +i; lsattr shows 'i'), and the run replaces or "
        f"removes its checkpoints as it trains (last.ckpt each epoch, a best one when a better epoch comes), "
        f"which would fail after an epoch of training. Fix: chattr -i {best}, then run the same command "
        f"again (to keep a copy, copy it elsewhere first)")
    check_checkpoint_dirs(cfg.callbacks, run)  # the fix: the protection cleared


def test_a_second_ctrl_c_after_an_interrupted_run_stopped_is_not_called_a_start_up_interrupt(no_hydra_run):
    # pass 45, row 49: Ctrl-C twice; the second one came after the run's handlers had given train.py's
    # start-up handler back, and the run ended with "interrupted by SIGINT during start-up: nothing was
    # saved" after its true line (its state saved in last.ckpt)
    from highwaylab.utils import interrupt

    called = []

    def start_up(signum, frame):
        called.append(signum)

    start_up.start_up_only = True
    before = signal.signal(signal.SIGINT, start_up)
    try:
        with pytest.raises(RunInterrupted), interrupt.signals_interrupt():
            interrupt._on_signal(signal.SIGINT, None)  # no trainer: stops at once, the signal noted
        os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, while the process ends
        assert called == []
    finally:
        signal.signal(signal.SIGINT, before)
    with interrupt.signals_interrupt():  # a run that was not interrupted gives the start-up handler back
        pass
    assert signal.getsignal(signal.SIGINT) is before


def test_a_folder_in_the_place_of_the_checkpoint_or_its_temporary_file_is_named(hydra_run):
    # pass 55, row 87: before, "could not write the checkpoint .../last.ckpt (EISDIR: Is a directory) ...
    # Fix: check the disk of ... (the system log names its fault)", for a folder at last.ckpt.tmp
    path = hydra_run / "checkpoints" / "last.ckpt"
    (hydra_run / "checkpoints" / "last.ckpt.tmp").mkdir(parents=True)
    with pytest.raises(CheckpointWriteError) as err:
        AtomicCheckpointIO().save_checkpoint(STATE, path)
    assert str(err.value) == (
        f"could not write the checkpoint {path}: a folder, {path}.tmp, is in the place of the temporary file "
        f"it is written to first; {NO_FILE}. Fix: move that folder away (mv {path}.tmp {path}.tmp.old), then "
        f"start the run again (there is no checkpoint to resume from), or write the run elsewhere: "
        f"paths.log_dir=/another/folder")
    (path.parent / "last.ckpt.tmp").rmdir()
    AtomicCheckpointIO().save_checkpoint(STATE, path)  # the fix: it writes
    epoch = path.parent / "epoch_001.ckpt"
    epoch.mkdir()
    with pytest.raises(CheckpointWriteError) as err:
        AtomicCheckpointIO().save_checkpoint(STATE, epoch)
    assert str(err.value) == (
        f"could not write the checkpoint {epoch}: a folder, {epoch}, is in the place of the checkpoint file; "
        f"{NO_FILE}. Fix: move that folder away (mv {epoch} {epoch}.old), then "
        f"resume it: python train.py resume={hydra_run}")
