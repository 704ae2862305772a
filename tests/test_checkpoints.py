"""Checkpoints as the resume point: signals that stop a run with its state saved and a non-zero exit
status, last.ckpt at every epoch end and inside epochs, exact mid-epoch resumes, atomic writes,
checkpoints independent of torch.compile and DDP, and checkpoints that cannot resume."""

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from highwaylab.errors import CheckpointWriteError, ConfigError, RunInterrupted
from highwaylab.train import train
from highwaylab.utils import interrupt
from highwaylab.utils.sweep import read_summary
from highwaylab.utils.wandb_offline import read_records

from .conftest import ROOT, compose_cfg, subprocess_env

# 10 batches per epoch, so that step 15 is in the middle of epoch 1 (the last)
RUN = ["trainer=cpu", "callbacks=minimal", "depth=4", "width=16", "seed=3", "trainer.max_epochs=2",
       "trainer.limit_train_batches=10", "trainer.limit_val_batches=4", "trainer.limit_test_batches=4",
       "~callbacks.rich_progress_bar", "~callbacks.model_summary"]


def args(*extra: str) -> list[str]:
    """RUN and ``extra`` overrides, an extra one replacing RUN's of the same key."""
    keys = {e.split("=", 1)[0] for e in extra}
    return [a for a in RUN if a.split("=", 1)[0] not in keys] + list(extra)


COMPARED = ("global_step", "epochs", "train/loss", "train/acc", "val/loss", "val/acc", "val/acc_best",
            "test/loss", "test/acc")


def signal_at(step: int, signum: int) -> list[str]:
    return ["+callbacks.signal_at._target_=tests.signal_at.SignalAt", f"+callbacks.signal_at.step={step}",
            f"+callbacks.signal_at.signum={signum}"]


def train_py(args: list[str], cwd: Path, python: list[str] | None = None) -> subprocess.CompletedProcess:
    cmd = [*(python or [sys.executable, str(ROOT / "train.py")]), *args, f"paths.log_dir={cwd}/outputs"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=subprocess_env(), cwd=cwd)


def highwaylab_lines(proc: subprocess.CompletedProcess) -> list[str]:
    return [line.split("] - ", 1)[-1] for line in (proc.stdout + proc.stderr).splitlines()
            if "] - highwaylab: " in line]


def last_ckpt(run: Path) -> dict:
    return torch.load(run / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)


def loader_state(checkpoint: dict) -> dict:
    return checkpoint["loops"]["fit_loop"]["state_dict"]["combined_loader"][0]


@pytest.fixture(scope="module")
def straight(tmp_path_factory, data_dir) -> dict:
    """The metrics of the uninterrupted run of RUN."""
    return train(compose_cfg(args("logger=none"), tmp_path_factory.mktemp("straight")))


def assert_same_metrics(resumed: dict, straight: dict) -> None:
    for key in COMPARED:
        assert resumed[key] == pytest.approx(straight[key], rel=1e-6), key


@pytest.mark.slow
def test_sigterm_mid_epoch_saves_the_state_exits_143_and_resumes_exactly(tmp_path, straight):
    run = tmp_path / "run"
    proc = train_py([*RUN, *signal_at(15, 15), f"hydra.run.dir={run}"], tmp_path)
    # before: exit status 0, "The run failed: SIGTERMException()", last.ckpt of epoch 0 (step 10)
    assert proc.returncode == 143, proc.stderr[-3000:]
    assert highwaylab_lines(proc) == [
        f"highwaylab: interrupted by SIGTERM in epoch 1 at step 15: its state at step 15 is saved in "
        f"{run}/checkpoints/last.ckpt; resume with: python train.py resume={run}."]
    assert "The run failed" not in proc.stdout + proc.stderr and not (run / "metrics.json").exists()
    saved = last_ckpt(run)
    assert (saved["epoch"], saved["global_step"]) == (1, 15)  # mid-epoch: 5 of epoch 1's 10 batches
    assert loader_state(saved) == {"epoch": 1, "batches": 5}
    assert "train_epoch_metrics" in saved  # epoch 1's running train/loss and train/acc
    assert not list((run / "checkpoints").glob("*.tmp"))
    records = read_records(sorted((run / "wandb").glob("offline-run-*"))[0])
    exit_record = next(r["exit"] for r in records if r.get("type") == "exit")
    assert exit_record["exit_code"] == 143  # the W&B run is closed as interrupted, not finished
    assert any(r.get("type") == "preempting" for r in records)

    resumed = train_py([*RUN, f"ckpt_path={run}/checkpoints/last.ckpt", f"hydra.run.dir={run}"], tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    metrics = json.loads((run / "metrics.json").read_text())
    assert_same_metrics(metrics, straight)
    # epoch 1's rate, lr * gamma (conf/optim/sgd.yaml): before, train/lr was missing after a mid-epoch
    # resume (Lightning calls no on_train_epoch_start for the resumed epoch)
    assert metrics["train/lr"] == pytest.approx(0.1 * 0.6)


@pytest.mark.slow
def test_sigint_in_a_multirun_records_the_job_interrupted_and_stops_the_sweep_with_130(tmp_path, data_dir):
    sweep = tmp_path / "sweep"
    proc = train_py(["-m", *args("depth=3,4", "logger=csv"), *signal_at(3, 2),
                     f"hydra.sweep.dir={sweep}"], tmp_path)
    # before: KeyboardInterrupt, Lightning's sys.exit(1): "failed", and the sweep went on to job 1
    assert proc.returncode == 130, proc.stderr[-3000:]
    summary = read_summary(sweep)
    assert [line["status"] for line in summary] == ["interrupted"]  # job 1 never started
    assert summary[0]["error"].startswith("interrupted by SIGINT in epoch 0 at step 3: its state at step 3")
    job = Path(summary[0]["output_dir"])
    assert (last_ckpt(job)["global_step"], loader_state(last_ckpt(job))) == (3, {"epoch": 0, "batches": 3})
    assert len(highwaylab_lines(proc)) == 1


@pytest.mark.parametrize("overrides", [["trainer.check_val_every_n_epoch=2"], ["optim.optimizer.lr=0.0"]],
                         ids=["validation-every-2nd-epoch", "val-acc-never-improves"])
@pytest.mark.slow
def test_last_ckpt_holds_every_epoch_end(overrides, tmp_path, data_dir):
    import lightning as L

    seen = []

    class ReadLast(L.Callback):
        def on_train_epoch_start(self, trainer, pl_module):
            path = tmp_path / "checkpoints" / "last.ckpt"
            seen.append(torch.load(path, weights_only=True)["global_step"] if path.exists() else None)

    from highwaylab.train import build

    cfg = compose_cfg(args("logger=none", "trainer.max_epochs=3", *overrides), tmp_path)
    parts = build(cfg)
    parts.trainer.callbacks.append(ReadLast())
    parts.trainer.fit(parts.module, datamodule=parts.datamodule)
    seen.append(last_ckpt(tmp_path)["global_step"])
    # before: [None, None, 20, 20] with validation every 2nd epoch; [None, 10, 10, 10] when val/acc
    # never improves (lr 0)
    assert seen == [None, 10, 20, 30]


EVERY = "callbacks.last_checkpoint.every_n_"


@pytest.mark.slow
def test_a_run_stopped_by_max_steps_inside_an_epoch_resumes_that_epoch_and_the_next(tmp_path, straight):
    # pass 26, row 87: before, last.ckpt counted the cut epoch 0 as done (Lightning runs its epoch end at a
    # max_steps stop), so the resume finished epoch 0 with epoch 1's batch order, counted it a second
    # time and stopped at max_epochs=2: global_step 10, epoch 1 never trained, rc 0
    run = tmp_path / "run"
    train(compose_cfg(args("logger=none", "trainer.max_steps=5"), run))
    saved = last_ckpt(run)
    assert (saved["global_step"], loader_state(saved)) == (5, {"epoch": 0, "batches": 5})
    progress = saved["loops"]["fit_loop"]["epoch_progress"]["current"]
    assert (progress["started"], progress["processed"]) == (1, 0)  # inside epoch 0, as a mid-epoch save
    resumed = train(compose_cfg(args("logger=none", f"ckpt_path={run}/checkpoints/last.ckpt"), run))
    assert_same_metrics(resumed, straight)


@pytest.mark.parametrize(("interval", "saved_step"),
                         [([f"{EVERY}train_steps=4", f"{EVERY}minutes=null"], 4),
                          ([f"{EVERY}train_steps=null", f"{EVERY}minutes=1e-9"], 6)],
                         ids=["every-4-steps", "every-moment"])
@pytest.mark.slow
def test_a_crash_mid_epoch_loses_at_most_the_interval_and_resumes_exactly(interval, saved_step, tmp_path,
                                                                           straight):
    # dies at step 17 (epoch 1, batch 7) without a signal: nothing is saved on the way out
    crash = ["+callbacks.crash._target_=tests.signal_at.CrashAt", "+callbacks.crash.step=17"]
    with pytest.raises(RuntimeError, match="crash at step 17"):
        train(compose_cfg(args("logger=none", *interval, *crash), tmp_path / "run"))
    saved = last_ckpt(tmp_path / "run")
    # before: last.ckpt of the end of epoch 0 (step 10)
    assert saved["global_step"] == 10 + saved_step
    assert loader_state(saved) == {"epoch": 1, "batches": saved_step}
    resumed = train(compose_cfg(args("logger=none", f"ckpt_path={tmp_path}/run/checkpoints/last.ckpt"),
                                tmp_path / "run"))
    assert_same_metrics(resumed, straight)


@pytest.mark.slow
def test_a_failed_checkpoint_write_keeps_the_previous_one_and_names_path_and_disk(tmp_path, data_dir,
                                                                                   monkeypatch):
    import highwaylab.utils.checkpoint_io as cio

    real, writes = cio._write, []

    def full_disk(path: Path, data) -> None:  # the second last.ckpt (epoch 1) finds the disk full
        writes.append(path.name)
        if writes.count("last.ckpt.tmp") == 2:
            path.write_bytes(bytes(data)[: len(data) // 3])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(cio, "_write", full_disk)
    last = tmp_path / "checkpoints" / "last.ckpt"
    with pytest.raises(CheckpointWriteError) as err:
        train(compose_cfg(args("logger=none"), tmp_path))
    message = str(err.value)
    assert message.startswith(f"could not write the checkpoint {last} (No space left on device): "
                              "the disk at /")
    assert " free of " in message and "the previous checkpoint there is kept" in message
    assert "\n" not in message
    # before: a truncated last.ckpt (Lightning's copy from the temp folder); now epoch 0's, whole
    assert last_ckpt(tmp_path)["global_step"] == 10
    assert not last.with_name("last.ckpt.tmp").exists()


FULL_DISK = """
import errno, runpy, sys
import highwaylab.utils.checkpoint_io as cio
real, seen = cio._write, []
def full_disk(path, data):
    seen.append(path.name)
    if seen.count("last.ckpt.tmp") == 2:
        raise OSError(errno.ENOSPC, "No space left on device")
    real(path, data)
cio._write = full_disk
sys.argv = [sys.argv[1], *sys.argv[2:]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""


@pytest.mark.slow
def test_train_py_on_a_full_disk_exits_1_with_one_line(tmp_path, data_dir):
    run = tmp_path / "run"
    proc = train_py([*args("logger=csv"), f"hydra.run.dir={run}"], tmp_path,
                    python=[sys.executable, "-c", FULL_DISK, str(ROOT / "train.py")])
    assert proc.returncode == 1, proc.stderr[-3000:]
    lines = highwaylab_lines(proc)
    assert len(lines) == 1 and "Traceback" not in proc.stderr
    assert lines[0].startswith(f"highwaylab: could not write the checkpoint {run}/checkpoints/last.ckpt "
                               "(No space left on device): the disk at ")
    assert last_ckpt(run)["global_step"] == 10


@pytest.mark.slow
def test_a_checkpoint_without_training_state_is_refused_in_one_line(tmp_path, data_dir):
    first = train(compose_cfg(args("logger=none", "trainer.max_epochs=1"), tmp_path / "first"))
    assert first["global_step"] == 10
    saved = last_ckpt(tmp_path / "first")
    weights = tmp_path / "weights.ckpt"
    torch.save({"state_dict": saved["state_dict"]}, weights)  # what torch.save of a state dict gives
    # before: KeyError 'pytorch-lightning_version' with a traceback from Lightning
    with pytest.raises(ConfigError, match=rf"^ckpt_path={weights} holds weights only, not a training state "
                                          r"\(no pytorch-lightning_version, optimizer_states, loops\)"):
        train(compose_cfg(args("logger=none", f"ckpt_path={weights}"), tmp_path / "second"))
    assert not (tmp_path / "second" / "checkpoints").exists()


@pytest.mark.slow
def test_checkpoints_resume_with_or_without_compile(tmp_path, data_dir):
    train(compose_cfg(args("logger=none", "trainer.max_epochs=1"), tmp_path / "plain"))
    # an uncompiled run resumed compiled: the saved keys stay net.*
    last = f"ckpt_path={tmp_path}/plain/checkpoints/last.ckpt"
    compiled = train(compose_cfg(args("logger=none", "module.compile=true", last), tmp_path / "plain"))
    assert compiled["global_step"] == 20
    saved = last_ckpt(tmp_path / "plain")
    # before: net._orig_mod.* keys, and a resume without compile refused as "another model"
    assert saved["global_step"] == 20 and not [k for k in saved["state_dict"] if "_orig_mod" in k]
    # a compiled run's checkpoint resumed without compile
    again = train(compose_cfg(args("logger=none", "trainer.max_epochs=3", last), tmp_path / "plain"))
    assert again["global_step"] == 30
    # a checkpoint written before this fix (net._orig_mod.* keys) still resumes
    saved["state_dict"] = {k.replace("net.", "net._orig_mod.", 1): v for k, v in saved["state_dict"].items()}
    torch.save(saved, tmp_path / "old.ckpt")
    old = train(compose_cfg(args("logger=none", "trainer.max_epochs=3", f"ckpt_path={tmp_path}/old.ckpt"),
                            tmp_path / "old"))
    assert old["global_step"] == 30 and old["train/loss"] == pytest.approx(again["train/loss"], rel=1e-6)


@pytest.mark.slow
def test_a_ddp_checkpoint_resumes_in_one_process(tmp_path, straight):
    proc = train_py([*args("trainer=ddp_cpu", "data.batch_size=64", "trainer.max_epochs=1", "logger=csv"),
                     f"hydra.run.dir={tmp_path}/ddp"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert last_ckpt(tmp_path / "ddp")["global_step"] == 10
    resumed = train(compose_cfg(args("logger=none", f"ckpt_path={tmp_path}/ddp/checkpoints/last.ckpt"),
                                tmp_path / "ddp"))
    assert (resumed["epochs"], resumed["global_step"]) == (2, 20)
    # 2 ranks of 64 examples took the single process's 128 per step: the same run up to rounding
    for key in ("train/loss", "val/loss", "test/loss"):
        assert resumed[key] == pytest.approx(straight[key], rel=1e-3), key


class FakeTrainer:
    """What the signal handler reads of a trainer in the middle of ``fit``."""

    def __init__(self, validating: bool = False, epoch: int = 1, step: int = 15, saved: int = 10) -> None:
        from lightning.pytorch.trainer.states import TrainerFn, TrainerStatus

        self.state = SimpleNamespace(status=TrainerStatus.RUNNING, fn=TrainerFn.FITTING)
        self.validating, self.sanity_checking = validating, False
        self._signal_connector = SimpleNamespace(received_sigterm=False)
        self.current_epoch, self.global_step = epoch, step
        self.checkpoint_callbacks = [SimpleNamespace(last_model_path="last.ckpt", last_saved_step=saved)]

    @property
    def received_sigterm(self) -> bool:
        return self._signal_connector.received_sigterm


def deliver(signum: int) -> None:
    os.kill(os.getpid(), signum)
    time.sleep(0.2)  # Python runs the handler at the next bytecode; this is a margin



def test_the_start_up_handler_of_sigterm_gives_way_to_the_default_after_the_run():
    # train.py's start-up handler says "during start-up: nothing was saved": after a run's own handlers
    # (and in a multirun's launcher) SIGTERM and SIGHUP get their default action back; SIGINT keeps its line
    def start_up(signum, frame):  # as train.py's interrupted_at_start_up
        raise AssertionError("not called")

    start_up.start_up_only = True
    signals = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
    before = {signum: signal.signal(signum, start_up) for signum in signals}
    try:
        with interrupt.signals_interrupt():
            assert signal.getsignal(signal.SIGTERM) is interrupt._on_signal
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL
        assert signal.getsignal(signal.SIGINT) is start_up
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)

def test_signal_handlers_stop_at_a_boundary_wait_for_validation_and_stop_at_once_when_repeated():
    before = {signum: signal.getsignal(signum) for signum in (signal.SIGTERM, signal.SIGINT)}
    # no trainer running yet: at once, with the signal's exit status
    with pytest.raises(RunInterrupted) as err, interrupt.signals_interrupt():
        deliver(signal.SIGTERM)
    assert err.value.exit_code == 143
    assert str(err.value) == ("interrupted by SIGTERM before training started: nothing was saved, nor "
                              "trained; start the run again with the same command.")
    # during fit's validation: the stop flag waits for the validation's end; a second signal stops at once
    trainer = FakeTrainer(validating=True)
    with pytest.raises(RunInterrupted) as err, interrupt.signals_interrupt():
        interrupt.watch(trainer)
        deliver(signal.SIGINT)
        assert not trainer.received_sigterm
        interrupt.validation_ended(trainer)
        assert trainer.received_sigterm  # Lightning raises at the next batch boundary
        deliver(signal.SIGINT)
    assert err.value.exit_code == 130
    assert str(err.value) == ("interrupted by SIGINT in epoch 1 at step 15: the latest checkpoint is "
                              "last.ckpt, of step 10 (stopped at once: the steps after it are lost); "
                              "resume from it (README: Resume).")
    assert {signum: signal.getsignal(signum) for signum in before} == before  # the handlers came back


@pytest.mark.slow
def test_a_signal_while_a_resume_restores_its_checkpoint_says_the_checkpoint_stands(tmp_path, data_dir):
    # before: "no resume point was saved (callbacks.last_checkpoint had not saved yet, so resume= finds
    # no checkpoints/last.ckpt); the latest checkpoint is .../epoch_001.ckpt; continue from it with:
    # python train.py ... ckpt_path=...", while last.ckpt was there, unchanged, and resume= worked
    run = tmp_path / "run"
    assert train_py([*args("logger=csv"), f"hydra.run.dir={run}"], tmp_path).returncode == 0
    last = run / "checkpoints" / "last.ckpt"
    before = last.read_bytes()
    proc = train_py([*args("logger=csv", "trainer.max_epochs=3"), f"ckpt_path={last}", f"hydra.run.dir={run}",
                     "+callbacks.stop._target_=tests.signal_at.SignalAtFitStart"], tmp_path)
    assert proc.returncode == 143, proc.stderr[-3000:]
    lines = highwaylab_lines(proc)
    # pass 31, row 57: before, "interrupted by SIGTERM in epoch 1 at step 20: ...", the epoch of the
    # checkpoint, while the run was about to train epoch 2
    assert lines == [
        f"highwaylab: interrupted by SIGTERM before it trained on from step 20: nothing was saved since the "
        f"checkpoint it resumed from, {last}, which is unchanged; resume with: python train.py resume={run}."]
    assert last.read_bytes() == before
    # an extension by resume= stopped so: the command given again, its extension included, since this
    # start's record is set aside (pass 32, part 1, row 57: before, "resume with: python train.py
    # resume=<run>", which was refused as finished)
    stop = "+callbacks.stop._target_=tests.signal_at.SignalAtFitStart"
    proc = train_py([f"resume={run}", "trainer.max_epochs=3", stop], tmp_path)
    assert proc.returncode == 143, proc.stderr[-3000:]
    assert (f"which is unchanged; resume with: python train.py resume={run} trainer.max_epochs=3 {stop} "
            f"paths.log_dir=") in highwaylab_lines(proc)[-1], highwaylab_lines(proc)  # (train_py adds that)
    again = train_py([f"resume={run}", "trainer.max_epochs=3"], tmp_path)  # that command, less the stop
    assert again.returncode == 0, again.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize(("damage", "what", "fix"), [
    ("DeleteBestAtFitEnd", "is gone (deleted or moved?)", "put the file back"),
    # pass 30, row 35: before, torch's "RuntimeError('PytorchStreamReader failed reading zip archive: failed
    # finding central directory')" and Hydra's traceback
    ("CutBestAtFitEnd", "is damaged (not a whole checkpoint file: cut short, or overwritten?)",
     "put an intact copy of the file back")])
def test_a_best_checkpoint_deleted_or_cut_during_the_run_is_one_line_and_the_run_can_finish(
        damage, what, fix, tmp_path, data_dir):
    # before: the test stopped with "FileNotFoundError: Checkpoint file not found: .../epoch_001.ckpt"
    # and a traceback, and every resume= to complete the run failed the same way
    run = tmp_path / "run"
    proc = train_py([*RUN, "logger=csv", f"hydra.run.dir={run}",
                     f"+callbacks.rm._target_=tests.signal_at.{damage}"], tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = highwaylab_lines(proc)
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"highwaylab: the best checkpoint {run}/checkpoints/epoch_")
    assert lines[0].endswith(
        f" (by val/acc) {what}, and the test runs on it; the training state is safe in the latest "
        f"checkpoint. Fix: {fix} and resume the run (it then tests), or finish it without the test: python "
        f"train.py resume={run} test=false"), lines
    finished = subprocess.run([sys.executable, str(ROOT / "train.py"), f"resume={run}", "test=false"],
                              capture_output=True, text=True, timeout=600, env=subprocess_env(), cwd=tmp_path)
    assert finished.returncode == 0, finished.stderr[-3000:]
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["epochs"] == 2 and "test/acc" not in metrics


@pytest.mark.slow
@pytest.mark.parametrize("batch", [0, 1])  # 1: the sanity check's last batch, where Lightning checks no flag
def test_a_signal_during_the_sanity_check_stops_before_the_first_training_batch(batch, tmp_path, data_dir):
    # breaking pass, finding 39: before, the run trained one more batch, then stopped at step 1 and saved it
    run = tmp_path / "run"
    proc = train_py(["trainer=cpu", "depth=3", "width=8", "trainer.max_epochs=1",
                     "trainer.limit_train_batches=5", "trainer.limit_val_batches=2",
                     "trainer.num_sanity_val_steps=2", "logger=csv",
                     "callbacks=minimal", "+callbacks.signal_at._target_=tests.signal_at.SignalAtSanityCheck",
                     f"+callbacks.signal_at.batch={batch}", f"hydra.run.dir={run}"], tmp_path)
    assert proc.returncode == 143, (proc.stdout + proc.stderr)[-3000:]
    assert highwaylab_lines(proc)[-1] == (  # the folder it made goes, as the README says (pass 62, row 25:
        # before, kept, with "rm -r <run> ..., then the same command"; pass 21, row 1)
        "highwaylab: interrupted by SIGTERM during the sanity check, before training started: nothing was "
        "saved, nor trained; the folder it made, which holds only this start's record and log, is removed: "
        "start the run again with the same command.")
    assert not run.exists()
    assert "epoch 0/0" not in proc.stdout and "Training starts" not in proc.stdout
