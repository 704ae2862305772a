"""One-command resume, one run per folder, and W&B continuity (highwaylab.utils.resume).

``python train.py resume=<run folder> [overrides]``: a finished run extended by 2 epochs after its
folder was moved ends as an uninterrupted 4-epoch run (best checkpoint included), continues its W&B
run and step axis; every refused resume is one ``highwaylab:`` line, exit status 1, and changes no
file. Folder names are unique beyond the second; a run does not start in another run's folder, and
``run_name`` cannot leave ``outputs/``. The README's ``wandb`` commands use flags the installed CLI has.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import yaml

from highwaylab.errors import HighwaylabError
from highwaylab.utils.resume import ResumeError, check_run, rewrite_argv
from highwaylab.utils.wandb_offline import read_history, read_records

from .conftest import ROOT, TINY, compose_cfg, subprocess_env

CONF = ROOT / "conf"
# 2 epochs of 10 batches; W&B offline (the default logger)
RUN = ["trainer=cpu", "depth=4", "width=16", "trainer.max_epochs=2", "trainer.limit_train_batches=10",
       "trainer.limit_val_batches=4", "trainer.limit_test_batches=4", "trainer.log_every_n_steps=5",
       "~callbacks.rich_progress_bar", "~callbacks.model_summary"]
EPOCH_LINE = re.compile(r"\] - (epoch \d+/\d+)  step (\d+)")
FOLDER = re.compile(r"^\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d_(?P<name>.+)_(?P<hex>[0-9a-f]{4})$")


def train_py(args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args, f"paths.log_dir={cwd}/outputs"],
                          capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=subprocess_env(HYDRA_FULL_ERROR="0"))


def listing(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file and folder under ``folder``: its size and modification time (ns)."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))} | {".": (0, folder.stat().st_mtime_ns)}


def refused(proc: subprocess.CompletedProcess) -> str:
    """The one ``highwaylab:`` line of a refused command (exit status 1, no traceback)."""
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output[-3000:]
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("highwaylab: "), lines
    return lines[0]


def argv(*args: str) -> list[str]:
    return rewrite_argv(["train.py", *args], CONF)


@pytest.fixture(scope="module")
def finished(tmp_path_factory, data_dir) -> Path:
    """A finished 2-epoch run (W&B offline) in its folder; the tests below must not change it."""
    cwd = tmp_path_factory.mktemp("finished")
    proc = train_py([*RUN, f"hydra.run.dir={cwd}/run"], cwd)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return cwd / "run"


# ---------------------------------------------------------------------------------------------
# 4. one command to resume
# ---------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_resume_rewrites_the_command_into_the_runs_own_overrides_folder_and_last_checkpoint(finished):
    new = argv(f"resume={finished}", "trainer.max_epochs=4", "seed=0")
    own = yaml.safe_load((finished / ".hydra" / "overrides.yaml").read_text())
    # the run's overrides, less the one the extra overrides replace, then those, then where
    assert new == ["train.py", *[o for o in own if not o.startswith("trainer.max_epochs=")],
                   "trainer.max_epochs=4", "seed=0", f"hydra.run.dir={finished}",
                   f"ckpt_path={finished}/checkpoints/last.ckpt"]
    assert "trainer.max_epochs=2" in own  # replaced, not repeated
    # allowed extras: where the data is, the logger, compiling; flags stay
    assert argv("--cfg", "job", f"resume={finished}", "trainer.max_epochs=3", "data.data_dir=/x",
                "logger=csv", "module.compile=true")[1:3] == ["--cfg", "job"]


def test_a_resume_folder_copied_with_the_sentences_full_stop_is_named(tmp_path):
    # new-user pass 3: "resume with: python train.py resume=<run>." copied with its full stop gave
    # "no such folder" and the generic example, not a word about the '.'
    from highwaylab.utils.resume import resume_folder

    run = tmp_path / "2026-12-01_21-50-01_mnist-highway-d3-relu-sgd-s0_94b4"
    run.mkdir()
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={run}.: no such folder; did you mean resume={run} (without the final '.', the end of "
            f"the sentence it was copied from)?")):
        resume_folder(f"{run}.")
    with pytest.raises(ResumeError, match=re.escape(f"resume={tmp_path}/nowhere.: no such folder; give the")):
        resume_folder(f"{tmp_path}/nowhere.")


@pytest.mark.slow
def test_a_relative_resume_folder_is_found_under_highwaylab_root_from_another_folder(
        finished, tmp_path, monkeypatch):
    # before: resume=outputs/runs/<run> was taken from the current folder only, while the runs lie
    # under HIGHWAYLAB_ROOT (train.py's folder): "no such folder" from anywhere else, with a hint
    # that repeated the same relative form
    monkeypatch.setenv("HIGHWAYLAB_ROOT", str(finished.parent))
    monkeypatch.chdir(tmp_path)
    assert argv(f"resume={finished.name}", "trainer.max_epochs=4")[-2:] == [
        f"hydra.run.dir={finished}", f"ckpt_path={finished}/checkpoints/last.ckpt"]
    with pytest.raises(ResumeError, match=re.escape(
            f"resume=nowhere: no such folder (looked for in the current folder, {tmp_path}, and in "
            f"HIGHWAYLAB_ROOT, {finished.parent}: train.py's folder unless set); give the folder of a run, "
            f"e.g. "
            f"resume={finished.parent}/outputs/runs/<date>_<time>_<run_name>_<hex>")):
        argv("resume=nowhere")
    # pass 43, row 60: a run made under another HIGHWAYLAB_ROOT, resumed from a shell without it: before,
    # "no such folder", without where it had looked
    monkeypatch.delenv("HIGHWAYLAB_ROOT")
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={finished.name}: no such folder (looked for in the current folder, {tmp_path}; "
            f"HIGHWAYLAB_ROOT, the other folder a relative resume= is read from, is not set); give")):
        argv(f"resume={finished.name}")


@pytest.mark.slow
def test_resume_continues_from_the_latest_checkpoint_under_its_configured_filename(finished, tmp_path):
    # before: a run with callbacks.last_checkpoint.filename=mylast printed "resume with: python train.py
    # resume=<run>" on SIGTERM, and that command was refused: "checkpoints/last.ckpt is missing"
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    (run / "checkpoints" / "last.ckpt").rename(run / "checkpoints" / "mylast.ckpt")
    recorded = yaml.safe_load((run / "config_resolved.yaml").read_text())
    recorded["callbacks"]["last_checkpoint"]["filename"] = "mylast"
    (run / "config_resolved.yaml").write_text(yaml.safe_dump(recorded))
    assert argv(f"resume={run}", "trainer.max_epochs=4")[-1] == f"ckpt_path={run}/checkpoints/mylast.ckpt"


@pytest.mark.slow
def test_a_finished_run_whose_result_was_deleted_is_tested_again_with_its_val_examples(finished, tmp_path):
    # pass 53, row 39: before, the resume that only tests wrote "val_examples": null (the original's: 512)
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    original = json.loads((run / "metrics.json").read_text())
    (run / "metrics.json").unlink()
    proc = train_py([f"resume={run}"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    again = json.loads((run / "metrics.json").read_text())
    assert original["val_examples"] == 4 * 128  # trainer.limit_val_batches=4 of 128
    assert again["val_examples"] == original["val_examples"]
    assert again["global_step"] == original["global_step"]
    assert again["val/acc"] == pytest.approx(original["val/acc"])
    assert again["test/acc"] == pytest.approx(original["test/acc"])


@pytest.mark.slow
def test_a_run_extended_without_validation_tests_its_final_weights(finished, tmp_path):
    # pass 29, row 76: before, the extension trained epoch 2 with trainer.limit_val_batches=0 and then
    # tested the best checkpoint of the first two epochs ("Testing checkpoint .../epoch_00N.ckpt"): its
    # metrics.json said epochs 3 with an older epoch's test/acc, where a new run without validation tests
    # its final weights
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    before = json.loads((run / "metrics.json").read_text())
    best = Path(before["best_ckpt"]).name
    proc = train_py([f"resume={run}", "trainer.max_epochs=3", "trainer.limit_val_batches=0"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (run / "train.log").read_text()
    assert (f"Testing the final weights (this resume trained from step 20 to 30 without a validation, so its "
            f"best checkpoint, {best}, is of an epoch before them)") in log
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["best_ckpt"] is None and metrics["epochs"] == 3 and metrics["global_step"] == 30
    # pass 48, rows 26 and 45: before, val/acc_best (a sweep's optimized_metric) was dropped from metrics.json
    assert metrics["val/acc_best"] == before["val/acc_best"] and "val/acc" not in metrics

@pytest.mark.slow
def test_a_new_run_from_another_runs_checkpoint_gets_a_new_wandb_run(finished, tmp_path):
    # pass 30, row 42 (major): before, a new run (its own hydra.run.dir) started with ckpt_path= at another
    # run's checkpoint logged into that run's W&B id, with a warning that blamed deleted offline segments;
    # wandb sync of both folders would merge two runs' histories
    other = json.loads((finished / "metrics.json").read_text())["wandb_run_path"]
    new = tmp_path / "new"
    proc = train_py([*RUN, "trainer.max_epochs=3", f"ckpt_path={finished}/checkpoints/last.ckpt",
                     f"hydra.run.dir={new}"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (new / "train.log").read_text()
    assert (f"highwaylab: ckpt_path={finished}/checkpoints/last.ckpt is a checkpoint of another run folder, "
            f"not of this run's ({new}): this run gets a new W&B run, and W&B run {other.split('/')[-1]} "
            f"stays that run's (to continue that run itself: python train.py resume={finished})") in log
    assert "holds none of its earlier offline segments" not in log
    # pass 32, note on part 1, row 22: Lightning's "The dirpath has changed ... won't be reloaded" read like
    # a fault; the run says what it means
    assert "The dirpath has changed" not in log + proc.stderr
    assert (f"ckpt_path={finished}/checkpoints/last.ckpt is of another run folder: this run goes on from its "
            f"state, and ranks its own best checkpoints afresh, in {new}/checkpoints") in log
    metrics = json.loads((new / "metrics.json").read_text())
    assert metrics["wandb_run_path"] != other and metrics["resumed_from_step"] == 20
    # pass 31, rows 21, 22 (major): before, such a run's only record was .hydra/resumed_<time>/, and its
    # resume= (the command its own SIGTERM line gives) was refused: "is not a run folder: it has no
    # .hydra/overrides.yaml"
    assert (new / ".hydra" / "overrides.yaml").is_file() and not list((new / ".hydra").glob("resumed_*"))
    proc = train_py([f"resume={new}", "trainer.max_epochs=4"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    resumed = json.loads((new / "metrics.json").read_text())
    assert resumed["global_step"] == 40 and resumed["wandb_run_path"] == metrics["wandb_run_path"]
    assert len(list((new / ".hydra").glob("resumed_*"))) == 1

@pytest.mark.slow
def test_a_renamed_wandb_segment_is_read_and_named_with_the_mv_that_names_it_back(tmp_path, data_dir):
    # pass 43, row 29: before, "holds none of its earlier offline segments (deleted, e.g. after wandb
    # sync?): this segment's _step starts at 0 again", of a segment folder the user had renamed
    run = tmp_path / "run"
    first = train_py([*RUN, "trainer.max_epochs=1", f"hydra.run.dir={run}"], tmp_path)  # not a copy
    assert first.returncode == 0, first.stderr[-3000:]
    (segment,) = (run / "wandb").glob("offline-run-*")
    run_id = segment.name.rsplit("-", 1)[1]
    rows = len(read_history(next(segment.glob("run-*.wandb"))))
    tidy = segment.rename(run / "wandb" / "my-first-run")
    proc = train_py([f"resume={run}", "trainer.max_epochs=2"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (run / "train.log").read_text()
    assert "holds none of its earlier offline segments" not in log
    line = next(x for x in log.splitlines() if "was renamed" in x)
    assert line.split("highwaylab: ", 1)[1].startswith(
        f"W&B run {run_id}'s earlier segment {tidy} was renamed: wandb sync {run}/wandb/offline-run-* leaves "
        f"it out, so W&B would miss its rows. Fix: mv {tidy} {run}/wandb/offline-run-")
    (new,) = (run / "wandb").glob("offline-run-*")
    steps = [int(row["_step"]) for row in read_history(next(new.glob("run-*.wandb")))]
    assert rows and steps and min(steps) >= rows  # _step goes on after the renamed segment's rows
    subprocess.run(line.split("Fix: ", 1)[1], shell=True, check=True)  # the fix, as printed
    assert sorted(p.name.rsplit("-", 1)[1] for p in (run / "wandb").glob("offline-run-*")) == [run_id] * 2
    assert "were lost when its process was killed" not in log  # its rows reach the checkpoint's step


@pytest.mark.slow
def test_a_wandb_segment_that_a_sigkill_left_without_its_rows_is_named_with_the_gap(tmp_path, data_dir):
    # pass 45, row 45 (major): a SIGKILL after a finished, checkpointed epoch left the W&B segment's file
    # with its header alone (W&B keeps rows in memory until a 32 KiB block is full); the resume said
    # nothing, and the synced run's charts silently started at the next epoch
    run = tmp_path / "run"
    first = train_py([*RUN, "trainer.max_epochs=1", f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    (file,) = (run / "wandb").glob("offline-run-*/run-*.wandb")
    run_id = file.parent.name.rsplit("-", 1)[1]
    with file.open("r+b") as f:
        f.truncate(7)  # as the killed process left it: W&B's header, no record
    proc = train_py([f"resume={run}", "trainer.max_epochs=2"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in (run / "train.log").read_text().splitlines() if "were lost" in x)
    assert line.split("highwaylab: ", 1)[1] == (
        f"W&B run {run_id}'s earlier offline segments hold no history row, but the checkpoint it resumes "
        f"from is at step 10: the rows of steps 0..10 were lost when its processes were stopped (W&B's "
        f"helper process too: a kill, SLURM's scancel) before W&B wrote them to disk, so its charts have a "
        f"gap there; the run's train.log holds those epochs' lines")
    # pass 78, row 35: before, "when its process was killed (SIGKILL, the OOM killer)", after a scancel


@pytest.mark.slow
def test_a_finished_run_resumed_without_extending_it_is_refused_and_keeps_every_file(finished, tmp_path):
    before = listing(finished)
    line = refused(train_py([f"resume={finished}"], tmp_path))
    # before: it ran, and metrics.json was rewritten with test/* only (train/*, val/* lost)
    assert line == (f"highwaylab: resume={finished}: the run has finished: its checkpoint is at the end of 2 "
                    f"epochs (step 20), and trainer.max_epochs=2; nothing would be trained, and its "
                    f"metrics.json already holds its result. To train it further, extend it: python "
                    f"train.py resume={finished} paths.log_dir={tmp_path}/outputs trainer.max_epochs=4")
    # (the other overrides given with resume= are kept: train_py gives paths.log_dir; pass 34, row 29)
    assert listing(finished) == before  # before: config_resolved.resumed_*.yaml, .hydra/resumed_*/ stayed
    assert {"train/loss", "val/acc", "val/acc_best", "test/acc"} <= set(
        json.loads((finished / "metrics.json").read_text()))


@pytest.mark.slow
def test_an_override_that_cannot_apply_to_the_checkpoint_is_one_line_and_writes_nothing(finished, tmp_path):
    before = listing(finished)
    # before: a 16-frame KeyError: 'step' from AdamW's step, after the run had written its record
    line = refused(train_py([f"resume={finished}", "trainer.max_epochs=3", "optim=adamw"], tmp_path))
    assert line.startswith(f"highwaylab: resume={finished}: optim=adamw cannot apply to the run's "
                           "checkpoint: it changes optim.optimizer._target_ (torch.optim.SGD -> "
                           "torch.optim.AdamW)")
    assert line.endswith("Resume without it, or start a new run with it")
    assert listing(finished) == before


BAD_EXTRAS = {  # an extra override -> the key the refusal names
    "data=fashion_mnist": "data.dataset (mnist -> fashion_mnist)",  # before: trained on, on the wrong data
    "model=plain": "changes model.",
    "model.activation=tanh": "model.activation (relu -> tanh)",
    "depth=5": "depth (4 -> 5)",
    "width=8": "width (16 -> 8)",
    "optim.optimizer._target_=torch.optim.Adam":
        "optim.optimizer._target_ (torch.optim.SGD -> torch.optim.Adam)",
    "optim.optimizer.lr=0.5": "optim.optimizer.lr (0.1 -> 0.5)",  # the checkpoint's lr would win silently
    "data.batch_size=64": "data.batch_size (128 -> 64)",
    "experiment=paper_mnist_conv16": "changes model.",
}


@pytest.mark.parametrize("extra", sorted(BAD_EXTRAS))
@pytest.mark.slow
def test_extra_overrides_bound_to_the_checkpoint_are_refused_naming_the_key(extra, finished):
    before = listing(finished)
    with pytest.raises(ResumeError) as err:
        argv(f"resume={finished}", "trainer.max_epochs=3", extra)
    assert f"resume={finished}: {extra} cannot apply to the run's checkpoint: it changes " in str(err.value)
    assert BAD_EXTRAS[extra] in str(err.value)
    assert listing(finished) == before


@pytest.mark.slow
def test_bad_resume_folders_are_refused_naming_the_path_and_the_fix(finished, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    no_ckpt = tmp_path / "no_ckpt"
    shutil.copytree(finished / ".hydra", no_ckpt / ".hydra")
    shutil.copy(finished / "train.log", no_ckpt / "train.log")  # its log, which holds no error
    cases = {
        f"resume={tmp_path}/nowhere": f"resume={tmp_path}/nowhere: no such folder; give the folder of a run",
        f"resume={empty}": f"resume={empty} is not a run folder: it has no .hydra/overrides.yaml",
        f"resume={finished}/checkpoints": f"is not a run folder: it has no .hydra/overrides.yaml (the record "
                                          f"train.py writes into every run folder); give the run's folder, "
                                          f"resume={finished}",
        f"resume={finished}/checkpoints/last.ckpt": f"is a checkpoint: resume= takes the run's folder: "
                                                    f"python train.py resume={finished}",
        f"resume={no_ckpt}": f"resume={no_ckpt}: the run has no checkpoint to resume from "
                             "(checkpoints/last.ckpt is missing: it stopped before its first checkpoint); "
                             "start it again: python train.py trainer=cpu depth=4",
    }
    before = listing(finished), listing(tmp_path)
    for arg, expected in cases.items():
        with pytest.raises(ResumeError, match=re.escape(expected)):
            argv(arg)
    for args, expected in ([("-m", f"resume={finished}"), "resumes one run: leave out -m/--multirun"],
                           [(f"resume={finished}", f"hydra.run.dir={tmp_path}"),
                            "and hydra.run.dir= together"],
                           [(f"resume={finished}", "ckpt_path=x.ckpt"), "and ckpt_path= together"]):
        with pytest.raises(ResumeError, match=re.escape(expected)):
            argv(*args)
    assert (listing(finished), listing(tmp_path)) == before


@pytest.mark.slow
def test_a_checkpoint_of_another_data_set_or_optimiser_is_refused_also_through_ckpt_path(finished):
    ckpt = finished / "checkpoints" / "last.ckpt"
    for extra, key in (["data=fashion_mnist", "data.dataset=mnist"],
                       ["optim=adamw", "optim.optimizer._target_"], ["model=plain", "model.block"]):
        with pytest.raises(ResumeError) as err:
            argv(f"ckpt_path={ckpt}", "trainer.max_epochs=3", *RUN[1:3], extra)
        assert str(err.value).startswith(f"ckpt_path={ckpt}: the checkpoint was written by a run with {key}")
        # pass 81, row 47: before, "Resume it with its own settings: python train.py resume=<run>", refused
        # in turn: the run has finished
        assert (f"It has finished; extend it with its own settings: python train.py resume={finished} "
                f"trainer.max_epochs=4; or start a new run without ckpt_path") in str(err.value)
    argv(f"ckpt_path={ckpt}", "trainer.max_epochs=3", *RUN[1:3])  # its own settings: accepted
    argv(f"resume={finished}", "trainer.max_epochs=4")  # the extension given: accepted


@pytest.mark.slow
def test_in_process_train_refuses_a_finished_checkpoint(finished, tmp_path):
    from highwaylab.train import train

    cfg = compose_cfg([*TINY[:3], "trainer.max_epochs=2", f"ckpt_path={finished}/checkpoints/last.ckpt"],
                      tmp_path)
    with pytest.raises(ResumeError, match="the run has finished: its checkpoint is at the end of 2 epochs"):
        train(cfg)


@pytest.mark.slow
def test_a_moved_finished_run_extended_by_2_epochs_ends_as_an_uninterrupted_run_in_its_wandb_run(
        tmp_path, data_dir):
    first = train_py([*RUN, f"hydra.run.dir={tmp_path}/a"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    moved = tmp_path / "moved" / "b"
    moved.parent.mkdir()
    (tmp_path / "a").rename(moved)
    resumed = train_py([f"resume={moved}", "trainer.max_epochs=4"], tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    two = [o for o in RUN if not o.startswith("trainer.max_epochs=")]  # a key given twice is refused
    straight = train_py([*two, "trainer.max_epochs=4", "logger=csv", f"hydra.run.dir={tmp_path}/straight"],
                        tmp_path)
    assert straight.returncode == 0, straight.stderr[-3000:]

    # the epoch lines count to the new end (Lightning's max_epochs is the extended one)
    # the W&B step of each epoch's metrics: its last batch
    assert EPOCH_LINE.findall(resumed.stdout) == [("epoch 2/3", "29"), ("epoch 3/3", "39")]
    m = json.loads((moved / "metrics.json").read_text())
    m_straight = json.loads((tmp_path / "straight" / "metrics.json").read_text())
    # every key again (before: test/* only after a resume of a finished run)
    assert set(m_straight) - {"wandb_run_path", "wandb_dir"} <= set(m)
    for key in ("global_step", "epochs", "train/loss", "val/acc", "val/acc_best", "test/acc", "test/loss"):
        assert m[key] == pytest.approx(m_straight[key], rel=1e-6), key
    # best checkpoint and top-k kept through the move (before: last-v1.ckpt, and "best" of epochs 2-3 only)
    assert Path(m["best_ckpt"]).name == Path(m_straight["best_ckpt"]).name
    assert Path(m["best_ckpt"]).parent == moved / "checkpoints"
    names = sorted(p.name for p in (moved / "checkpoints").iterdir())
    assert "last.ckpt" in names and not [n for n in names if "-v" in n], names
    state = torch.load(moved / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)
    mc = next(v for k, v in state["callbacks"].items() if k.startswith("ModelCheckpoint"))
    assert mc["best_model_score"].item() == pytest.approx(m_straight["val/acc_best"])
    paths = [p for p in (mc["dirpath"], mc["last_model_path"], mc["best_model_path"], *mc["best_k_models"])
             if p]  # last_model_path: "" when another callback writes last.ckpt
    assert len(paths) >= 3 and all(p.startswith(str(moved)) for p in paths), paths

    # the Hydra record: the original kept, the resume's beside it, naming the run's overrides
    resumed_record = next((moved / ".hydra").glob("resumed_*/overrides.yaml"))
    assert "trainer.max_epochs=4" in resumed_record.read_text()
    # the resolved config of the resume has the same <date>_<time> (new-user pass 3: a second or more apart)
    stamp = resumed_record.parent.name.removeprefix("resumed_")
    assert [p.name for p in moved.glob("config_resolved.resumed_*.yaml")] == [
        f"config_resolved.resumed_{stamp}.yaml"]
    assert "trainer.max_epochs=2" in (moved / ".hydra" / "overrides.yaml").read_text()

    # one W&B run in two offline segments; the second continues trainer/global_step and _step
    segments = sorted((moved / "wandb").glob("offline-run-*"))
    assert len(segments) == 2 and len({s.name.split("-")[-1] for s in segments}) == 1
    rows = [[r["history"] for r in read_records(s) if r.get("type") == "history"] for s in segments]
    steps = [[int(h["item"]["_step"]) for h in seg] for seg in rows]
    global_steps = [[h["item"]["trainer/global_step"] for h in seg if "trainer/global_step" in h["item"]]
                    for seg in rows]
    assert min(steps[1]) == max(steps[0]) + 1  # before: 0, overlapping the first segment's rows
    assert steps[1] == sorted(steps[1])
    assert max(global_steps[0]) <= 20 <= min(global_steps[1]) and max(global_steps[1]) == 40

    # the README's upload command, as far as offline allows: both segments, in one sync
    sync = subprocess.run([str(Path(sys.executable).parent / "wandb"), "sync", "--dry-run",
                           *map(str, segments)], capture_output=True, text=True, timeout=120,
                          env=subprocess_env())
    assert sync.returncode == 0, sync.stderr
    assert "Would sync 2 run(s)" in sync.stdout + sync.stderr
    # ... which the resumed run's log gives (new-user pass 32: before, only W&B's closing line, which names
    # the latest segment alone), and which, typed into a shell, syncs both
    run_id = segments[0].name.split("-")[-1]
    told = (f"W&B run {run_id} is in 2 offline segments (one per start of the run); upload them together, "
            f"as one run: wandb sync {moved / 'wandb'}/offline-run-*-{run_id}")
    assert told in resumed.stdout + resumed.stderr and told in (moved / "train.log").read_text()
    command = told.split(": ", 1)[1].replace("wandb sync", "wandb sync --dry-run", 1)
    path = f"{Path(sys.executable).parent}:{os.environ['PATH']}"  # the venv's wandb
    sync = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=120,
                          env={**subprocess_env(), "PATH": path})
    assert "Would sync 2 run(s)" in sync.stdout + sync.stderr, sync.stderr

    # wandb/ deleted (after a sync), then extended: before, _step restarted at 0 without a word
    shutil.rmtree(moved / "wandb")
    again = train_py([f"resume={moved}", "trainer.max_epochs=5"], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert (f"highwaylab: W&B run {segments[0].name.split('-')[-1]} continues, but {moved / 'wandb'} holds "
            f"none of its earlier offline segments (deleted, e.g. after wandb sync?)") in again.stdout


# ---------------------------------------------------------------------------------------------
# 5. one run, one folder
# ---------------------------------------------------------------------------------------------

def test_run_and_sweep_folders_are_unique_beyond_the_second(tmp_path):
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.utils import setup_globals

    from highwaylab.utils import register_resolvers

    register_resolvers()
    setup_globals()  # Hydra's ${now:}
    folders = []
    for _ in range(2):
        GlobalHydra.instance().clear()
        with initialize_config_dir(version_base="1.3", config_dir=str(CONF)):
            cfg = compose("train", overrides=[f"paths.log_dir={tmp_path}"], return_hydra_config=True)
        HydraConfig.instance().set_config(cfg)  # as Hydra does: ${hydra:runtime.choices.*} reads this one
        run, sweep = Path(cfg.hydra.run.dir), Path(cfg.hydra.sweep.dir)
        assert run.parent == tmp_path / "runs" and sweep.parent == tmp_path / "multiruns"
        match = FOLDER.match(run.name)
        assert match and match["name"] == "mnist-highway-d100-relu-sgd-s0", run.name
        assert re.match(r"^\d{4}-\d\d-\d\d_\d\d-\d\d-\d\d_[0-9a-f]{4}$", sweep.name), sweep.name
        assert cfg.hydra.run.dir == str(run)  # one value per config: resolved again, the same
        folders.append(run.name)
    GlobalHydra.instance().clear()
    assert folders[0] != folders[1]  # before: equal within the same second


@pytest.mark.parametrize("mode", [["hparams_search=mnist_tpe"], ["-m", "depth=3,4"]])
def test_a_multirun_given_hydra_run_dir_is_told_to_use_hydra_sweep_dir(tmp_path, mode):
    # pass 39, row 37: before, hparams_search=mnist_tpe hydra.run.dir=<folder> (no -m) ran its 20 trials
    # into outputs/multiruns/, and the folder given was dropped without a word
    with pytest.raises(ResumeError) as err:
        argv(*mode, "trainer.max_epochs=1", f"hydra.run.dir={tmp_path}/mine")
    what = "hparams_search=mnist_tpe is a multirun" if mode[0] != "-m" else "-m runs a multirun"
    assert str(err.value) == (
        f"hydra.run.dir={tmp_path}/mine is not used: {what}, whose jobs go into hydra.sweep.dir (one folder "
        f"per job under it). Fix: hydra.sweep.dir={tmp_path}/mine")
    argv(*mode, "trainer.max_epochs=1", f"hydra.sweep.dir={tmp_path}/mine")  # the fix is accepted
    assert not (tmp_path / "mine").exists()


def test_a_single_run_given_hydra_sweep_dir_is_told_to_add_m_or_use_hydra_run_dir(tmp_path):
    # pass 70, row 52: -m forgotten; before, the run went to outputs/runs/, the folder given unsaid
    with pytest.raises(ResumeError) as err:
        argv("depth=3", f"hydra.sweep.dir={tmp_path}/mine")
    assert str(err.value) == (
        f"hydra.sweep.dir={tmp_path}/mine is not used: without -m this is one run, which goes into "
        f"hydra.run.dir. Fix: add -m for a multirun into that folder, or hydra.run.dir={tmp_path}/mine for "
        f"one run")
    argv("-m", "depth=3", f"hydra.sweep.dir={tmp_path}/mine")  # either fix is accepted
    argv("depth=3", f"hydra.run.dir={tmp_path}/mine")
    argv("depth=3", "hydra.mode=MULTIRUN", f"hydra.sweep.dir={tmp_path}/mine")  # a multirun all the same


@pytest.mark.slow
def test_a_folder_given_with_an_interpolation_is_checked_as_it_resolves(finished, tmp_path):
    # pass 69, rows 35 and 56 (major): hydra.run.dir=<folder>/${run_name}, or a sweep's
    # .../${hydra.job.name}, run twice; before, the second trained into the first's folder, over its record,
    # metrics.json and last.ckpt
    before = listing(finished)
    with pytest.raises(ResumeError) as err:
        argv(*RUN[:3], "run_name=run", f"hydra.run.dir={finished.parent}/${{run_name}}")
    assert str(err.value).startswith(f"hydra.run.dir={finished} already holds another run (.hydra/, ")
    assert listing(finished) == before
    (tmp_path / "train" / "0_job" / ".hydra").mkdir(parents=True)  # train.py's jobs are named train
    with pytest.raises(ResumeError) as err:
        argv("-m", "depth=3,4", f"hydra.sweep.dir={tmp_path}/${{hydra.job.name}}")
    assert str(err.value).startswith(f"hydra.sweep.dir={tmp_path}/train already holds another sweep (job "
                                     f"folders 0_job)")
    argv(*RUN[:3], "run_name=new", f"hydra.run.dir={finished.parent}/${{run_name}}")  # a free folder


@pytest.mark.slow
def test_a_new_run_in_another_runs_folder_is_refused_before_writing_anything(finished, tmp_path):
    before = listing(finished)
    # before: it ran, overwrote .hydra/ and metrics.json and wrote last-v1.ckpt, epoch_000-v1.ckpt
    line = refused(train_py(["depth=5", f"hydra.run.dir={finished}"], tmp_path))
    assert line == (f"highwaylab: hydra.run.dir={finished} already holds another run (.hydra/, "
                    "checkpoints/, metrics.json, wandb/, config_resolved.yaml): a new run there would "
                    "overwrite its record and mix up its checkpoints. That run has finished (metrics.json, "
                    f"2 epochs); to train it further, extend it: python train.py resume={finished} "
                    "trainer.max_epochs=4; or give a new folder (or leave hydra.run.dir out: every run gets "
                    "a folder of its own)")
    assert listing(finished) == before
    # resuming it in place the low-level way is not "another run"
    argv(f"ckpt_path={finished}/checkpoints/last.ckpt", f"hydra.run.dir={finished}", *RUN[1:3],
         "trainer.max_epochs=3")
    # a sweep into another sweep's folder
    (tmp_path / "sweep" / "0_job" / ".hydra").mkdir(parents=True)
    with pytest.raises(ResumeError, match=r"hydra.sweep.dir=.*/sweep already holds another sweep "
                                          r"\(job folders 0_job\)") as refusal:
        argv("-m", "depth=3,4", f"hydra.sweep.dir={tmp_path}/sweep")
    # pass 35, row 28: before, the jobs an interrupted sweep never started had no way back into its folder
    assert str(refusal.value).endswith(
        "resume a job of it with resume=<job folder>, and run a job it never started into it with the "
        f"command that python -m highwaylab.report {tmp_path}/sweep gives")
    # ninth pass: before, a sweep into a run's folder, or into the current folder (hydra.sweep.dir=),
    # ran with exit 0, mixed among the files there
    with pytest.raises(ResumeError, match=rf"^hydra.sweep.dir={finished} is a run's folder \(.hydra/, "
                                          r"checkpoints/, metrics.json"):
        argv("-m", "depth=3,4", f"hydra.sweep.dir={finished}")
    with pytest.raises(ResumeError, match=r"^hydra.sweep.dir is empty, so the sweep would be written into "
                                          r"the current folder"):
        argv("-m", "depth=3,4", "hydra.sweep.dir=")
    # pass 37, row 52: before, a new run was written into another run's checkpoints/ folder (rc 0)
    with pytest.raises(ResumeError) as err:
        argv("depth=3", f"hydra.run.dir={finished}/checkpoints/newrun")
    assert str(err.value) == (
        f"hydra.run.dir={finished}/checkpoints/newrun is inside {finished}, the folder of another run (it "
        f"holds .hydra, metrics.json, checkpoints): the new run's record and checkpoints would be mixed "
        f"among that run's files (resume= of it would find them). Fix: give a folder outside it (or leave "
        f"hydra.run.dir out: every run gets a folder of its own)")
    argv("depth=3", f"hydra.run.dir={tmp_path}/sweep/1_job")  # a multirun's folder holds its jobs' runs
    # pass 36, row 83: before, "hydra.run.dir=. is not empty", of a value that was '' as given
    for empty in ("hydra.run.dir=", "hydra.run.dir=''"):
        with pytest.raises(ResumeError) as err:
            argv("depth=3", empty)
        assert str(err.value) == (
            "hydra.run.dir is empty, so the run would be written into the current folder, among its files. "
            "Fix: give a folder, e.g. hydra.run.dir=outputs/runs/mine, or leave it out (every run gets a "
            "folder of its own)")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("mine")
    with pytest.raises(ResumeError, match=r"is not empty \(.*notes holds todo.txt\)"):
        argv("-m", "depth=3,4", f"hydra.sweep.dir={tmp_path}/notes")
    assert listing(finished) == before
    # resume= with a search: before, each of its trials continued the run's checkpoint
    with pytest.raises(ResumeError, match=rf"^resume={finished} resumes one run, and "
                                          r"hparams_search=mnist_random is a multirun of new runs"):
        argv(f"resume={finished}", "trainer.max_epochs=3", "hparams_search=mnist_random")


@pytest.mark.parametrize("name", ["../../../../escaped", "a/b", "..", "a\\b", "x,../y"])
def test_run_name_cannot_leave_outputs(name, tmp_path):
    expected = "must be a plain name, without '/', '\\' or '..': it names the run's folder under outputs/"
    with pytest.raises(ResumeError, match=re.escape(expected)) as err:
        argv(f"run_name={name}", *(["-m"] if "," in name else []))
    assert str(err.value).startswith("run_name=")  # before: the run was written outside outputs/
    assert not (tmp_path / "escaped").exists()
    if "," not in name and "\\" not in name:  # and train(cfg) without the command line
        with pytest.raises(ResumeError, match=re.escape(expected)):
            check_run(compose_cfg([f"run_name={name}"], tmp_path))
    argv("run_name=my-run.v2")  # a plain name


@pytest.mark.slow
def test_ddp_cpu_with_the_default_folder_writes_one_run_folder(tmp_path, data_dir):
    # with W&B (pass 50, row 96: rank 1 failed on W&B's placeholder experiment, after rank 0's metrics.json)
    proc = train_py(["trainer=ddp_cpu", "data.batch_size=64", "logger=[csv,wandb]", *RUN[1:],
                     "trainer.max_epochs=1"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    runs = list((tmp_path / "outputs" / "runs").iterdir())
    assert len(runs) == 1 and FOLDER.match(runs[0].name), runs  # the child rank wrote into the same one
    assert (runs[0] / "metrics.json").is_file() and (runs[0] / "train_ddp_process_1.log").is_file()
    wandb_dir = Path(json.loads((runs[0] / "metrics.json").read_text())["wandb_dir"])
    assert wandb_dir.parent == runs[0] / "wandb" and wandb_dir.name.startswith("offline-run-")
    # Lightning's hint that srun is not used (SLURM installed, as in CI): outside a SLURM allocation
    # Lightning starts the processes itself and nothing hangs, so it is not said (pass 76, row 15: before,
    # once; pass 52, row 32: before that, again at fit, after W&B's start had reset the warnings' registry)
    hints = (proc.stdout + proc.stderr).count("The `srun` command is available on your system")
    assert hints == (0 if not os.environ.get("SLURM_JOB_ID") or not shutil.which("srun") else 1)


@pytest.mark.slow
def test_ctrl_c_to_a_ddp_run_says_each_line_once_and_saves_its_state(tmp_path, data_dir):
    # pass 53, row 55: Ctrl-C reaches every process; before, the "SIGINT received" warning and the
    # "interrupted" line were printed twice, once per rank
    signal_group = ["+callbacks.sigint._target_=tests.signal_at.SignalGroupAt", "+callbacks.sigint.step=3"]
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "trainer=ddp_cpu", "data.batch_size=64",
                           "logger=csv", *RUN[1:], "trainer.max_epochs=1", *signal_group,
                           f"hydra.run.dir={tmp_path}/run"], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=subprocess_env(HYDRA_FULL_ERROR="0", PYTHONPATH=str(ROOT)),
                          start_new_session=True)  # the signal goes to this run's process group alone
    output = proc.stdout + proc.stderr
    assert proc.returncode == 130, output[-3000:]
    assert output.count("SIGINT received: the run stops after the current batch") == 1, output[-3000:]
    assert output.count("highwaylab: interrupted by SIGINT") == 1, output[-3000:]
    # each rank still logs both lines in its own log
    for log in ("train.log", "train_ddp_process_1.log"):
        text = (tmp_path / "run" / log).read_text()
        assert "SIGINT received" in text and "interrupted by SIGINT" in text, log
    assert (tmp_path / "run" / "checkpoints" / "last.ckpt").is_file()


# ---------------------------------------------------------------------------------------------
# 6. W&B: the README's commands exist in the installed CLI
# ---------------------------------------------------------------------------------------------

def readme_wandb_commands() -> list[list[str]]:
    """Each ``wandb ...`` line in a code block of the README, as words."""
    commands, in_block = [], False
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("```"):
            in_block = not in_block
            continue
        words = line.split("#")[0].split()
        if in_block and words and Path(words[0]).name == "wandb":
            commands.append(words)
    return commands


def test_the_readme_wandb_commands_use_flags_the_installed_cli_has():
    import wandb

    commands = readme_wandb_commands()
    assert any(c[1] == "sync" for c in commands)  # the upload recipe
    exe = shutil.which("wandb", path=str(Path(sys.executable).parent)) or "wandb"
    for words in commands:
        sub = [w for w in words[1:] if not w.startswith("-") and "/" not in w and "<" not in w][:1]
        flags = [w.split("=")[0] for w in words[1:] if w.startswith("--")]
        help_text = subprocess.run([exe, *sub, "--help"], capture_output=True, text=True, timeout=120).stdout
        assert "Usage:" in help_text, (words, help_text)
        for flag in flags:
            assert re.search(rf"(^|[\s,/]){re.escape(flag)}\b", help_text), f"{' '.join(words)}: {flag} " \
                f"is not an option of wandb {wandb.__version__}"
        if sub == ["sync"]:  # the check would have caught the README's former `wandb sync --append`
            assert not re.search(r"(^|[\s,/])--append\b", help_text)
    # and the pin in pyproject.toml holds the installed version
    pin = re.search(r'"wandb>=([\d.]+),<([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pin, "wandb is pinned to a tested range"
    def version(text: str) -> tuple[int, ...]:
        return tuple(int(x) for x in text.split(".")[:2])

    assert version(pin[1]) <= version(wandb.__version__) < version(pin[2])


@pytest.mark.slow
def test_a_checkpoint_with_nan_weights_or_of_another_model_in_the_run_is_named_before_resuming(
        finished, tmp_path):
    # ninth pass: before, NaN weights gave "val/loss is nan in the sanity check: the weights diverged
    # at the last training steps ... lower optim.optimizer.lr" (no step had run), and another model's
    # last.ckpt copied into the run pointed at the run's own .hydra/config.yaml
    run = tmp_path / "copy"
    shutil.copytree(finished, run)
    last = run / "checkpoints" / "last.ckpt"
    state = torch.load(last, map_location="cpu", weights_only=False)
    first = next(k for k in state["state_dict"] if k.startswith("net.") and k.endswith("weight"))
    state["state_dict"][first][0, 0] = float("nan")
    torch.save(state, last)
    with pytest.raises(ResumeError, match=rf"^resume={run}: {last} holds non-finite weights \(NaN/inf in "
                                          rf"{re.escape(first)}\): it was saved after its run diverged"):
        argv(f"resume={run}", "trainer.max_epochs=3")
    del state["state_dict"][first]
    torch.save(state, last)
    # pass 42, row 29: before, "ckpt_path=<last> ..." for a resume=, and only "put the run's own last.ckpt
    # back", though the run's epoch checkpoints hold its model
    with pytest.raises(ResumeError) as err:
        argv(f"resume={run}", "trainer.max_epochs=3")
    text = str(err.value)
    assert text.startswith(f"resume={run}: {last} was saved from another model: 1 missing, 0 unexpected and "
                           f"0 reshaped weights (first: {first}). It is not the checkpoint this run wrote")
    best = sorted((run / "checkpoints").glob("epoch_*.ckpt"))[-1]
    assert f"; or resume from the run's {best.name}, which holds its model: python train.py " in text
    fix = shlex.split(text.split(", which holds its model: ", 1)[1].split("; or start a new run")[0])
    assert fix[-2:] == [f"ckpt_path={best}", f"hydra.run.dir={run}"] and "trainer.max_epochs=3" in fix


@pytest.mark.slow
def test_a_refused_resume_is_not_taken_as_the_runs_latest_start(finished, tmp_path):
    # tenth pass: before, its .hydra/resumed_<time>/ record made every later resume= repeat the refused
    # overrides (a missing data folder, an extension never trained)
    run = tmp_path / "copy"
    shutil.copytree(finished, run, symlinks=True)  # W&B's latest-run link, as a link
    proc = train_py([f"resume={run}", "trainer.max_epochs=3", f"data.data_dir={tmp_path}/nodata"], tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    refused_record = next((run / ".hydra").glob("refused_*"))
    assert f"Data file missing: {tmp_path}/nodata/MNIST/raw/" in proc.stdout + proc.stderr
    assert f"(this refused resume's record is kept apart, in {refused_record})" in proc.stdout + proc.stderr
    assert not list((run / ".hydra").glob("resumed_*"))
    assert not [a for a in argv(f"resume={run}", "trainer.max_epochs=3") if a.startswith("data.data_dir")]
    # pass 40, row 73 (major): a data file found damaged once W&B had started left a W&B segment closed
    # with exit code 1 in the finished run's wandb/, which wandb sync uploads as the run's last state
    segments = sorted(p.name for p in (run / "wandb").glob("offline-run-*"))
    raw = tmp_path / "damaged" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-labels-idx1-ubyte"):
        (raw / name).symlink_to(Path(os.environ["HIGHWAYLAB_DATA_DIR"]) / "MNIST" / "raw" / name)
    (raw / "t10k-images-idx3-ubyte").write_bytes(b"")
    proc = train_py([f"resume={run}", "trainer.max_epochs=3", f"data.data_dir={tmp_path}/damaged"], tmp_path)
    assert proc.returncode == 1 and "Data file corrupt: " in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert sorted(p.name for p in (run / "wandb").glob("offline-run-*")) == segments
    assert (run / "wandb" / "latest-run").resolve() == (run / "wandb" / segments[-1]).resolve()
    refused = max((run / ".hydra").glob("refused_*"))
    assert len(list((refused / "wandb").glob("offline-run-*"))) == 1  # kept, apart from the run's


@pytest.mark.slow
def test_a_resume_with_a_fractional_epoch_count_or_a_log_folder_is_one_line(finished, tmp_path):
    # tenth pass: before, max_epochs=1.5 was compared as 1 ("the run has finished ... trainer.max_epochs=1"),
    # and a folder at train.log gave two tracebacks ("Unable to configure handler 'file'")
    with pytest.raises(HighwaylabError, match=r"^trainer.max_epochs=3.5 must be an integer >= -1"):
        argv(f"resume={finished}", "trainer.max_epochs=3.5")
    run = tmp_path / "copy"
    shutil.copytree(finished, run)
    (run / "train.log").unlink()
    (run / "train.log").mkdir()
    with pytest.raises(ResumeError, match=rf"^resume={run}: {run}/train.log is a folder, not the file the "
                                          r"run keeps there. Fix: move it away"):
        argv(f"resume={run}", "trainer.max_epochs=3")


@pytest.mark.slow
def test_a_run_without_wandb_resumed_with_it_gets_no_word_of_missing_segments(tmp_path, data_dir):
    # eleventh pass: before, "holds none of its earlier offline segments (deleted ...?)" for a run that
    # never had a W&B logger
    run = tmp_path / "run"
    first = train_py([*RUN, "logger=csv", f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    again = train_py([f"resume={run}", "trainer.max_epochs=3", "logger=wandb"], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert "earlier offline segments" not in again.stdout + again.stderr
    assert list((run / "wandb").glob("offline-run-*"))  # the W&B run it starts


@pytest.mark.slow
def test_a_resume_with_another_logger_or_precision_is_named_and_the_wandb_run_continues_later(
        tmp_path, data_dir):
    # pass 37, row 22: before, resume=<run> logger=csv left W&B run <id> behind without a word, and its
    # checkpoint kept no W&B id, so that a later resume with logger=wandb started a second W&B run;
    # row 30: before, a resume at another trainer.precision recorded only the new one, without a word
    run = tmp_path / "run"
    first = train_py([*RUN, "trainer.max_epochs=1", f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    (segment,) = (run / "wandb").glob("offline-run-*")
    run_id = segment.name.rsplit("-", 1)[1]
    csv = train_py([f"resume={run}", "trainer.max_epochs=2", "logger=csv", "trainer.precision=bf16-mixed"],
                   tmp_path)
    assert csv.returncode == 0, csv.stderr[-3000:]
    output = csv.stdout + csv.stderr
    assert (f"highwaylab: the run logged to W&B run {run_id}, and this resume has no W&B logger "
            f"(logger=csv): W&B run {run_id} gets none of the steps trained now (from step 10); they are "
            f"only in this run's metrics.json, train.log and the loggers given. To continue the W&B run, "
            f"resume with logger=wandb") in output
    assert ("highwaylab: trainer.precision=bf16-mixed: the run trained up to step 10 at 32-true (its "
            "config_resolved.yaml) and continues at bf16-mixed; metrics.json and the W&B config give "
            "bf16-mixed, this resume's. To keep one precision, resume with trainer.precision=32-true"
            ) in output
    again = train_py([f"resume={run}", "trainer.max_epochs=3", "logger=wandb"], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    assert f"Continuing W&B run {run_id} (no group)" in again.stdout + again.stderr
    assert {p.name.rsplit("-", 1)[1] for p in (run / "wandb").glob("offline-run-*")} == {run_id}
    assert json.loads((run / "metrics.json").read_text())["global_step"] == 30


def one_epoch_run_and_its_copy(tmp_path: Path) -> tuple[Path, Path]:
    """A finished one-epoch W&B run in ``tmp_path/run``, and its copy in ``tmp_path/copy``."""
    run, copy = tmp_path / "run", tmp_path / "copy"
    first = train_py([*RUN, "trainer.max_epochs=1", f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    shutil.copytree(run, copy)
    return run, copy


@pytest.mark.slow
def test_missing_wandb_segments_are_named_for_the_run_that_continues_not_for_a_copy(tmp_path, data_dir):
    # pass 23, row 26: before, a resumed copy (which gets a new W&B run) was also told that "W&B run <new
    # id> continues, but ... holds none of its earlier offline segments ... would overlap", which is false
    run, copy = one_epoch_run_and_its_copy(tmp_path)
    shutil.rmtree(copy / "wandb")
    again = train_py([f"resume={copy}", "trainer.max_epochs=2"], tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    output = again.stdout + again.stderr
    assert f"{copy} is a copy of the run in {run}" in output and "earlier offline segments" not in output
    shutil.rmtree(run / "wandb")  # the run itself, its segments deleted after a wandb sync: named
    own = train_py([f"resume={run}", "trainer.max_epochs=2"], tmp_path)
    assert own.returncode == 0, own.stderr[-3000:]
    assert "continues, but" in own.stdout + own.stderr
    assert f"{run}/wandb holds none of its earlier offline segments" in own.stdout + own.stderr


@pytest.mark.slow
def test_a_copy_resumed_with_wandb_disabled_is_not_promised_a_new_wandb_run(tmp_path, data_dir):
    # pass 45, row 43: before, "<copy> is a copy of the run in <run> ...: this run gets a new W&B run",
    # then "WANDB_MODE=disabled: no W&B run (logger.wandb left out)"
    run, copy = one_epoch_run_and_its_copy(tmp_path)
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), f"resume={copy}", "trainer.max_epochs=2"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env=subprocess_env(WANDB_MODE="disabled"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    output = proc.stdout + proc.stderr
    assert "WANDB_MODE=disabled: no W&B run (logger.wandb left out)" in output
    assert "W&B run" not in output.replace("no W&B run (logger.wandb left out)", "")
    assert json.loads((copy / "metrics.json").read_text())["wandb_run_path"] is None


@pytest.mark.slow
def test_extending_a_cosine_annealed_run_is_refused_naming_t_max(tmp_path, data_dir):
    # before: resume=<adamw run> trainer.max_epochs=4 exited 0; the checkpoint's CosineAnnealingLR kept
    # T_max=2, so train/lr went 0.001, 0.0005, 0.0, 0.0005 (epoch 2 learnt nothing), while the record
    # said T_max: 4
    run = tmp_path / "run"
    proc = train_py([*RUN, "optim=adamw", "logger=csv", "callbacks=minimal", f"hydra.run.dir={run}"],
                    tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    before = listing(run)
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={run}: optim.scheduler.T_max=4 (it follows trainer.max_epochs), but the checkpoint's "
            f"scheduler has T_max=2, and Lightning restores the checkpoint's")):
        argv(f"resume={run}", "trainer.max_epochs=4")
    with pytest.raises(ResumeError, match=re.escape(
            "Its cosine schedule (optim.scheduler.T_max=2) ended with it, so resume= cannot extend it: "
            "start a new run with more epochs")):
        argv(f"resume={run}")  # the finished run's refusal offers no extension that is then refused
    assert listing(run) == before


def test_a_scheduler_argument_that_differs_from_the_checkpoints_is_found():
    from collections import Counter

    from omegaconf import OmegaConf

    from highwaylab.utils.resume import scheduler_change

    cfg = OmegaConf.create({"trainer": {"max_epochs": 4}, "optim": {"scheduler": {
        "_target_": "torch.optim.lr_scheduler.MultiStepLR", "milestones": [100, 150], "gamma": 0.1}}})
    same = {"lr_schedulers": [{"milestones": Counter({100: 1, 150: 1}), "gamma": 0.1, "last_epoch": 3}]}
    assert scheduler_change(cfg, same) is None
    moved = {"lr_schedulers": [{"milestones": Counter({50: 1, 150: 1}), "gamma": 0.1}]}
    assert scheduler_change(cfg, moved) == ("optim.scheduler.milestones", [50, 150], [100, 150])
    assert scheduler_change(cfg, {"lr_schedulers": [{"gamma": 0.5}]}) == ("optim.scheduler.gamma", 0.5, 0.1)
    assert scheduler_change(cfg, {}) is None  # a checkpoint without a scheduler


def test_an_optimizer_argument_that_differs_from_the_checkpoints_is_refused_naming_both(finished, tmp_path):
    # pass 38, rows 27 and 57: before, ckpt_path=<checkpoint> optim.optimizer.lr=0.001 (or momentum=0.5)
    # exited 0, trained at the checkpoint's lr 0.1 (momentum 0.9), and recorded 0.001 (0.5)
    from omegaconf import OmegaConf

    from highwaylab.utils.resume import optimizer_change

    last = finished / "checkpoints" / "last.ckpt"
    checkpoint = torch.load(last, map_location="cpu", weights_only=False)
    group = checkpoint["optimizer_states"][0]["param_groups"][0]
    assert (group["initial_lr"], group["momentum"]) == (0.1, 0.9) and group["lr"] < 0.1  # decayed
    cfg = OmegaConf.create({"optim": {"optimizer": {"_target_": "torch.optim.SGD", "_partial_": True,
                                                    "lr": 0.1, "momentum": 0.9, "weight_decay": 0.0}}})
    assert optimizer_change(cfg, checkpoint) is None  # the run's own: its scheduled lr is not a change
    cfg.optim.optimizer.momentum = 0.5
    assert optimizer_change(cfg, checkpoint) == ("optim.optimizer.momentum", 0.9, 0.5)
    adam = {"optimizer_states": [{"param_groups": [{"lr": 0.0005, "initial_lr": 0.001,
                                                    "betas": (0.9, 0.999)}]}]}
    cfg = OmegaConf.create({"optim": {"optimizer": {"lr": 0.001, "betas": [0.9, 0.999]}}})
    assert optimizer_change(cfg, adam) is None  # a tuple in the state, a list in the config
    plateau = {"optimizer_states": [{"param_groups": [{"lr": 0.0001}]}]}  # no initial_lr: not compared
    assert optimizer_change(cfg, plateau) is None
    with pytest.raises(ResumeError) as err:
        argv("trainer=cpu", "depth=4", "width=16", "trainer.max_epochs=3", "optim.optimizer.lr=0.001",
             f"ckpt_path={last}", f"hydra.run.dir={tmp_path}/new")
    assert str(err.value) == (
        f"ckpt_path={last}: optim.optimizer.lr=0.001, but the checkpoint's optimiser has lr=0.1, and "
        f"Lightning restores the checkpoint's optimiser state: the run would train with 0.1 while its record "
        f"says 0.001. Fix: give optim.optimizer.lr=0.1 (the checkpoint's), or start a new run without "
        f"ckpt_path")
    assert argv("trainer=cpu", "depth=4", "width=16", "trainer.max_epochs=3", f"ckpt_path={last}",
                f"hydra.run.dir={tmp_path}/new")  # the fix: the checkpoint's lr


@pytest.mark.slow
def test_resuming_a_run_that_another_process_still_runs_is_refused_before_anything_is_written(
        finished, tmp_path):
    # before: resume=<run> while the run's own process was finishing its test was accepted: both
    # processes wrote the folder, the second tested again, rewrote metrics.json and left a resumed_*
    # record. A running job of train.py holds .hydra/running.lock (flock); here this process holds it.
    from highwaylab.utils.run_lock import LOCK, holder, holding

    run = tmp_path / "run"
    shutil.copytree(finished, run)
    assert holder(run) is None
    with holding(run):
        assert holder(run) == os.getpid()
        before = listing(run)
        pid = os.getpid()
        with pytest.raises(ResumeError, match=re.escape(
                f"resume={run}: the run is still running in process {pid}, which holds {run / LOCK}: "
                f"wait for it to end, or stop it (kill {pid}: SIGTERM saves its state), then resume it")):
            argv(f"resume={run}", "trainer.max_epochs=4")
        assert listing(run) == before
        # fourteenth pass: before, a new run given the live run's folder was told that run "wrote no
        # checkpoint ... cannot be resumed" and to rm -r it
        with pytest.raises(ResumeError, match=re.escape(
                f"hydra.run.dir={run} is the folder of a run that is still running in process {pid} (it "
                f"holds {run / LOCK}): a new run there would write among its files")):
            argv("depth=3", f"hydra.run.dir={run}")
        busy = f"hydra.run.dir={run}: the run is still running"
        with pytest.raises(HighwaylabError, match=re.escape(busy)):
            with holding(run):  # the low-level ckpt_path= resume meets the lock when its job starts
                pass
    assert holder(run) is None  # released at the end of the job (the kernel releases it on any exit)
    assert argv(f"resume={run}", "trainer.max_epochs=4")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


@pytest.mark.slow
def test_a_debug_pass_cannot_resume_a_run_and_overwrite_its_result(finished):
    # before: resume=<finished run> trainer.max_epochs=3 debug=fast exited 0 after one debug batch and
    # wrote "epochs": 0, "test/acc": 0.5 over the run's metrics.json
    before = listing(finished)
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={finished} debug=fast: a debug pass (a batch or two, no logger) would run in the run's "
            f"folder and write its metrics.json over the run's result. Fix: leave debug= out")):
        argv(f"resume={finished}", "trainer.max_epochs=3", "debug=fast")
    assert listing(finished) == before


@pytest.mark.slow
def test_a_run_trained_with_test_false_is_completed_by_resume_with_its_test(finished, tmp_path):
    # before: resume=<run> test=true of a run extended with test=false was refused: "its metrics.json
    # already holds its result. To train it further, extend it", though that file had no test/*
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    metrics = json.loads((run / "metrics.json").read_text())
    untested = {k: v for k, v in metrics.items() if not k.startswith("test/")}
    (run / "metrics.json").write_text(json.dumps(untested))
    assert argv(f"resume={run}", "test=true")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"  # tests it
    with pytest.raises(ResumeError, match="the run has finished"):
        argv(f"resume={finished}", "test=true")  # a tested run stays finished


@pytest.mark.slow
def test_a_folder_at_the_lock_path_is_one_line_not_a_silently_unlocked_run(finished, tmp_path):
    # before: with a folder at .hydra/running.lock, resume= ran with no word, the lock silently off
    from highwaylab.utils.run_lock import LOCK, holding

    run = tmp_path / "run"
    shutil.copytree(finished, run)
    (run / LOCK).unlink(missing_ok=True)
    (run / LOCK).mkdir()
    fix = (f"{run / LOCK} is a folder, where the run keeps the lock that lets one process at a time write "
           f"its folder. Fix: remove it (rm -r {run / LOCK}); the run makes the file itself")
    with pytest.raises(HighwaylabError, match=re.escape(f"resume={run}: {fix}")):
        argv(f"resume={run}", "trainer.max_epochs=4")
    with pytest.raises(HighwaylabError, match=re.escape(f"hydra.run.dir={run}: {fix}")):
        with holding(run):
            pass


@pytest.mark.slow
def test_changing_how_the_best_checkpoint_is_chosen_is_refused_on_resume(finished):
    # before: resume=<run> ... callbacks.model_checkpoint.monitor=val/loss mode=min ran with Lightning's
    # raw "callbacks used to create the checkpoint need to be provided" warning, and the old best
    # (chosen by val/acc) stayed in checkpoints/ beside the new one
    before = listing(finished)
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={finished}: callbacks.model_checkpoint.monitor=val/loss changes how the run's best "
            f"checkpoint is chosen (the run chose it by monitor val/acc)")):
        argv(f"resume={finished}", "trainer.max_epochs=3", "callbacks.model_checkpoint.monitor=val/loss",
             "callbacks.model_checkpoint.mode=min")
    with pytest.raises(ResumeError, match=re.escape("callbacks.model_checkpoint.mode=min changes how")):
        argv(f"resume={finished}", "trainer.max_epochs=3", "callbacks.model_checkpoint.mode=min")
    # fourteenth pass: before, callbacks=none (or ~callbacks.model_checkpoint) was named as
    # "callbacks.model_checkpoint.monitor=None",
    # and callbacks.last_checkpoint=null was accepted, leaving last.ckpt at the resume point (the next
    # resume= trained those epochs again)
    # pass 56, row 25: before, callbacks=none and ~callbacks.model_checkpoint were said to "change how
    # the run's best checkpoint is chosen", a new best "chosen by another criterion"
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={finished}: ~callbacks.model_checkpoint removes the run's checkpoints "
            f"(callbacks.model_checkpoint): the resumed run would save no best checkpoint, so test/* would "
            f"be of its final weights, not of the run's best. Resume without it, or start a new run with "
            f"it")):
        argv(f"resume={finished}", "trainer.max_epochs=3", "~callbacks.model_checkpoint")
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={finished}: callbacks.last_checkpoint=null removes the run's latest checkpoint "
            f"(callbacks.last_checkpoint): its checkpoints/last.ckpt would stay at the resume point")):
        argv(f"resume={finished}", "trainer.max_epochs=3", "callbacks.last_checkpoint=null")
    assert listing(finished) == before


@pytest.mark.slow
def test_a_recorded_override_read_from_the_environment_is_checked_against_what_the_run_used(
        finished, tmp_path, monkeypatch):
    # before: with depth=${oc.decode:${oc.env:DEPTH}} in the run's overrides, a resume with DEPTH=5
    # blamed the run's own checkpoint ("saved from another model ... replaced or copied in?"), and
    # one with DEPTH unset ended in an InterpolationResolutionError traceback after the imports
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    own = yaml.safe_load((run / ".hydra" / "overrides.yaml").read_text())
    interpolated = "depth='${oc.decode:${oc.env:HWL_DEPTH}}'"  # as the shell passes it, quoted for Hydra
    own = [interpolated if o.startswith("depth=") else o for o in own]
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(own))
    monkeypatch.delenv("HWL_DEPTH", raising=False)
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={run}: the run's override {interpolated} cannot be resolved now (Environment variable "
            f"'HWL_DEPTH' not found); the run used depth=4. Fix: set the environment as when the run "
            f"started, then resume again")):
        argv(f"resume={run}", "trainer.max_epochs=4")
    monkeypatch.setenv("HWL_DEPTH", "5")
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={run}: the run's override {interpolated} resolves to depth=5 now, but the run used "
            f"depth=4 (its config_resolved.yaml), and its checkpoint is of that")):
        argv(f"resume={run}", "trainer.max_epochs=4")
    monkeypatch.setenv("HWL_DEPTH", "4")
    assert argv(f"resume={run}", "trainer.max_epochs=4")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


@pytest.mark.slow
def test_a_run_that_ended_early_is_not_trained_on_by_resume_without_an_extension(finished, tmp_path):
    # before: resume=<early-stopped run> trained another epoch, stopped again and wrote its
    # metrics.json over the run's result ("epochs": 3)
    run = tmp_path / "run"
    shutil.copytree(finished, run)  # made to look early-stopped: its own trainer.max_epochs is 5
    own = [o.replace("trainer.max_epochs=2", "trainer.max_epochs=5")
           for o in yaml.safe_load((run / ".hydra" / "overrides.yaml").read_text())]
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(own))
    record = yaml.safe_load((run / ".hydra" / "config.yaml").read_text())
    record["trainer"]["max_epochs"] = 5
    (run / ".hydra" / "config.yaml").write_text(yaml.safe_dump(record))
    with pytest.raises(ResumeError, match=re.escape(
            f"resume={run}: the run has finished: it stopped ") + ".*" + re.escape(
            "before trainer.max_epochs=5 (early stopping or a time limit ended it), and its metrics.json "
            "holds its result of that checkpoint")):
        argv(f"resume={run}")
    assert argv(f"resume={run}", "trainer.max_epochs=6")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


@pytest.mark.slow
def test_another_runs_checkpoint_copied_in_is_refused_after_that_runs_folder_is_gone(tmp_path):
    # pass 36, row 72: before, with run x's folder deleted, x's last.ckpt copied over y's was taken as y's
    # own folder moved ("The run's folder has moved"), and y trained on x's weights under y's record
    x, y = tmp_path / "x", tmp_path / "y"
    for folder, seed in ((x, 1), (y, 2)):
        proc = train_py([*RUN, "trainer.max_epochs=1", "logger=csv", f"seed={seed}",
                         f"hydra.run.dir={folder}"], tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
    shutil.copy(x / "checkpoints" / "last.ckpt", y / "checkpoints" / "last.ckpt")
    shutil.rmtree(x)
    line = refused(train_py([f"resume={y}", "trainer.max_epochs=2"], tmp_path))
    assert line == (
        f"highwaylab: resume={y}: checkpoints/last.ckpt was written by a run of seed=1 (saved in {x}), but "
        f"this run's config_resolved.yaml has seed=2: it is another run's checkpoint, copied over this run's "
        f"own, and resuming would train that run's weights under this run's record. Fix: restore this run's "
        f"own last.ckpt; or start a new run from its weights: python train.py <overrides> "
        f"ckpt_path={y}/checkpoints/last.ckpt")
    assert json.loads((y / "metrics.json").read_text())["epochs"] == 1  # nothing of y's changed


@pytest.mark.slow
def test_resume_of_an_older_checkpoint_says_the_run_goes_on_from_last_and_how_to_start_from_it(finished):
    # pass 45, row 42: before, resume=<run>/checkpoints/epoch_000.ckpt got the fix resume=<run> alone, which
    # goes on from last.ckpt, a later state than the one named, without a word
    (older, *_) = sorted((finished / "checkpoints").glob("epoch_*.ckpt"))
    with pytest.raises(ResumeError) as err:
        argv(f"resume={older}", "trainer.max_epochs=4")
    assert str(err.value) == (
        f"resume={older} is a checkpoint: resume= takes the run's folder: python train.py resume={finished} "
        f"trainer.max_epochs=4, which goes on "
        f"from its latest state ({finished}/checkpoints/last.ckpt), not from {older.name}. To train on from "
        f"{older.name} itself, start a new run from it (the run stays as it is): python train.py trainer=cpu "
        f"depth=4 width=16 trainer.limit_train_batches=10 trainer.limit_val_batches=4 "
        f"trainer.limit_test_batches=4 trainer.log_every_n_steps=5 '~callbacks.rich_progress_bar' "
        f"'~callbacks.model_summary' paths.log_dir={finished.parent}/outputs trainer.max_epochs=4 "
        f"ckpt_path={older}")
    proc = train_py(shlex.split(str(err.value).rsplit(": python train.py ", 1)[1]) + [
        f"hydra.run.dir={finished.parent}/from_older", "logger=none"], finished.parent)  # the fix, as given
    assert proc.returncode == 0, proc.stderr[-3000:]
    resumed = json.loads((finished.parent / "from_older" / "metrics.json").read_text())
    assert resumed["resumed_from_step"] == torch.load(older, weights_only=False)["global_step"]


@pytest.mark.slow
def test_an_edited_config_resolved_yaml_is_named_not_ignored(finished, tmp_path):
    # pass 45, row 37: before, a learning rate edited in config_resolved.yaml was ignored without a word: the
    # run went on with the record's 0.1, and kept the edited file (0.01) as its record
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    resolved = run / "config_resolved.yaml"
    text = resolved.read_text()
    assert text.count("lr: 0.1\n") == 2  # optim.optimizer and module.optimizer, which follows it
    resolved.write_text(text.replace("lr: 0.1\n", "lr: 0.01\n"))  # as sed -i 's/lr: 0.1$/lr: 0.01/' does
    with pytest.raises(ResumeError) as err:
        argv(f"resume={run}", "trainer.max_epochs=3")
    assert str(err.value) == (
        f"resume={run}: its config_resolved.yaml gives optim.optimizer.lr=0.01, but the run ran with "
        f"optim.optimizer.lr=0.1 (Hydra's record, .hydra/config.yaml, and its overrides): "
        f"config_resolved.yaml was edited since the run, and the resume would go on with "
        f"optim.optimizer.lr=0.1, keeping the edited file as the run's record. Fix: set optim.optimizer.lr "
        f"to 0.1 again in {resolved}")
    resolved.write_text(text)  # the fix
    assert argv(f"resume={run}", "trainer.max_epochs=3")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


@pytest.mark.slow
def test_a_conv_run_given_an_unused_depth_can_be_resumed(tmp_path, data_dir):
    # found while fixing pass 45, row 37: a conv net's depth follows model.stages, so depth=8 is unused (a
    # warning says so) and the run builds depth 12; its resume was refused, "the checkpoint was written by a
    # run with depth=8 (its .hydra/config.yaml), and this run has depth=12"
    run = tmp_path / "run"
    first = train_py(["model=conv_residual", "depth=8", "trainer.max_epochs=1",
                      "trainer.limit_train_batches=2", "trainer.limit_val_batches=1",
                      "trainer.limit_test_batches=1", "callbacks=minimal", "logger=none",
                      f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    again = train_py([f"resume={run}", "trainer.max_epochs=2"], tmp_path)
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    metrics = json.loads((run / "metrics.json").read_text())
    assert (metrics["depth"], metrics["epochs"], metrics["resumed_from_step"]) == (12, 2, 2)


@pytest.mark.slow
def test_a_copy_whose_latest_run_link_became_a_folder_is_named_and_counted_once(finished, tmp_path):
    # pass 45, row 61: a run copied with its links followed (cp -rL, a zip; shutil.copytree too) has a real
    # wandb/latest-run folder, a second copy of its segment: before, its resume left it and W&B's stray
    # latest-run.<pid> link without a word, and wandb_offline counted "<id> in 2 segments" of one segment
    from highwaylab.utils.wandb_offline import SeveralRunsError, find_run_segments

    copy = tmp_path / "copy"
    subprocess.run(["cp", "-rL", str(finished), str(copy)], check=True)
    latest = copy / "wandb" / "latest-run"
    assert latest.is_dir() and not latest.is_symlink()
    (segment,) = (copy / "wandb").glob("offline-run-*")
    assert find_run_segments(copy) == [next(segment.glob("run-*.wandb"))]  # once, not twice
    proc = train_py([f"resume={copy}", "trainer.max_epochs=3"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (link,) = (p for p in (copy / "wandb").glob("latest-run.*") if p.is_symlink())
    line = next(x for x in (copy / "train.log").read_text().splitlines() if "latest-run is a folder" in x)
    assert line.split("] - ", 1)[1] == (
        f"highwaylab: {latest} is a folder, not W&B's link to the latest segment (the run was copied with "
        f"its links followed: cp -rL, a zip?): it repeats a segment, and W&B linked this one beside it, as "
        f"{link.name}. Fix: rm -r {latest} {link}")
    with pytest.raises(SeveralRunsError) as err:  # the copy's own W&B run beside the original's segment
        find_run_segments(copy)
    assert " in 2 segments" not in str(err.value) and str(err.value).startswith(f"{copy}: 2 W&B runs")


@pytest.mark.slow
def test_a_folder_in_place_of_config_resolved_yaml_is_refused_with_the_mv(finished, tmp_path):
    # pass 46, row 39: before, the resume trained on and left the run's main record a folder, without a word
    run = tmp_path / "run"
    shutil.copytree(finished, run)
    (run / "config_resolved.yaml").unlink()
    (run / "config_resolved.yaml").mkdir()
    with pytest.raises(ResumeError) as err:
        argv(f"resume={run}", "trainer.max_epochs=3")
    assert str(err.value) == (
        f"resume={run}: its config_resolved.yaml is a folder, not the record of the settings the run ran "
        f"with. Fix: move it away (mv {run}/config_resolved.yaml <elsewhere>), then resume: the resume "
        f"writes the record again")


@pytest.mark.parametrize("record, fix", [
    ({"trainer": {"max_epochs": 3}, "optim": {"scheduler": {"milestones": [100]}}},
     "That run has finished (metrics.json, 3 epochs); to train it further, extend it: python train.py "
     "resume={run} trainer.max_epochs=5; or give a new folder"),
    ({"trainer": {"max_epochs": 3}, "optim": {"scheduler": {"T_max": 3}}},
     "That run has finished (metrics.json, 3 epochs), and its cosine schedule (optim.scheduler.T_max=3) "
     "ended with it, so resume= cannot extend it. Fix: give a new folder"),
    (None, "Resume that run with: python train.py resume={run}; or give a new folder"),
])
def test_a_new_run_into_a_finished_runs_folder_gets_the_fix_that_goes_on(record, fix, tmp_path):
    # new-user pass 48, finding 2: before, a finished run's folder was answered with a plain resume=<run>,
    # which is refused for a finished run ("nothing would be trained")
    from highwaylab.utils.resume import check_folder_free

    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / "last.ckpt").write_bytes(b"x")
    (run / ".hydra" / "config.yaml").write_text(yaml.safe_dump(record or {"trainer": {"max_epochs": 3}}))
    if record is not None:
        (run / "metrics.json").write_text(json.dumps({"epochs": 3, "global_step": 30}))
    with pytest.raises(ResumeError) as refusal:
        check_folder_free(run)
    assert fix.format(run=run) + " (or leave hydra.run.dir out: every run gets a folder of its own)" in str(
        refusal.value)


@pytest.mark.parametrize("record, fix", [
    ({"trainer": {"max_epochs": 3}, "optim": {"scheduler": {"milestones": [100]}}},
     "It has finished; extend it with its own settings: python train.py resume={run} "
     "trainer.max_epochs=5; or "),
    ({"trainer": {"max_epochs": 3}, "optim": {"scheduler": {"T_max": 3}}},
     "It has finished, and its cosine schedule ended with it, so it cannot be extended: "),
    (None, "Resume it with its own settings: python train.py resume={run}; or "),
])
def test_a_checkpoint_of_other_settings_is_answered_with_the_way_its_own_run_goes_on(record, fix, tmp_path):
    # the ckpt_path= refusal's part that goes on with the checkpoint's own run (pass 81, row 47), for each
    # state of that run: finished (extend it), finished with its cosine schedule (no extension), unfinished
    from highwaylab.utils.resume import _resume_own

    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    (run / ".hydra" / "config.yaml").write_text(yaml.safe_dump(record or {"trainer": {"max_epochs": 3}}))
    if record is not None:
        (run / "metrics.json").write_text(json.dumps({"epochs": 3, "global_step": 30}))
    assert _resume_own(run) == fix.format(run=run)


@pytest.mark.slow
def test_a_resume_keeps_the_jobs_name_and_so_its_log_file(tmp_path, data_dir):
    # pass 47, row 55: before, a resume dropped hydra.job.name=myjob: epoch 0 in myjob.log, epoch 1 in a new
    # train.log; and the Finished: line named no log file
    run = tmp_path / "run"
    first = train_py([*RUN, "trainer.max_epochs=1", "hydra.job.name=myjob", f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    proc = train_py([f"resume={run}", "trainer.max_epochs=2"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = (run / "myjob.log").read_text()
    assert [m.group(1) for m in EPOCH_LINE.finditer(log)] == ["epoch 0/0", "epoch 1/1"]
    assert not (run / "train.log").exists()
    assert log.rstrip().endswith(f"Finished: {run} holds the run's metrics.json, checkpoints/, figures/ and "
                                 f"myjob.log")


def test_a_run_name_that_resolves_to_a_path_is_refused_before_hydra_makes_a_folder(tmp_path):
    # pass 69, row 57: -m ... run_name=${paths.log_dir}; before, each job failed after Hydra had made the
    # folder 0_/<path>/.hydra inside the sweep's, whose folder then refused the corrected command
    with pytest.raises(ResumeError) as err:
        argv("-m", "depth=3", "run_name=${paths.log_dir}", f"paths.log_dir={tmp_path}/logs",
             f"hydra.sweep.dir={tmp_path}/sweep")
    assert str(err.value) == (
        f"run_name=${{paths.log_dir}} gives {tmp_path}/logs, which is not a plain name (without '/', '\\' or "
        f"'..'): it names the run's folder under outputs/ and its W&B run. Fix: a name of your own, e.g. "
        f"run_name=my-run (or leave it out)")
    assert not (tmp_path / "sweep").exists()
    argv("-m", "depth=3", "run_name=my-run", f"hydra.sweep.dir={tmp_path}/sweep")  # the fix
    argv("-m", "depth=3", "run_name=d${depth}", f"hydra.sweep.dir={tmp_path}/sweep")  # a plain name


@pytest.mark.slow
def test_a_run_started_with_its_own_primary_config_resumes_with_it(tmp_path):
    # pass 69, row 49: --config-dir <mine> --config-name mytrain (depth: 5 in it); before, resume= composed
    # train.yaml, blamed an edit of the run's record, and its fix wrote a false record
    mine = tmp_path / "myconf"
    mine.mkdir()
    (mine / "mytrain.yaml").write_text((CONF / "train.yaml").read_text().replace("depth: 100", "depth: 5"))
    proc = train_py(["--config-dir", str(mine), "--config-name", "mytrain", *RUN[:1], *RUN[2:7],
                     f"hydra.run.dir={tmp_path}/run"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    args = argv(f"resume={tmp_path}/run", "trainer.max_epochs=3")
    assert args[1:5] == ["--config-name", "mytrain", "--config-dir", str(mine)], args
    proc = train_py([f"resume={tmp_path}/run", "trainer.max_epochs=3"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert (metrics["depth"], metrics["epochs"], metrics["resumed_from_step"]) == (5, 3, 20)


def test_lightnings_srun_hint_is_dropped_outside_a_slurm_allocation(monkeypatch):
    # pass 76, row 15: trainer.devices=auto (and trainer=ddp_cpu) on a machine with SLURM installed gave
    # "The `srun` command is available on your system but is not used", though Lightning starts the
    # processes itself there; inside an allocation (SLURM_JOB_ID) a run of several processes keeps it
    import warnings

    from highwaylab.utils.quiet import quiet_srun_hint

    hint = "The `srun` command is available on your system but is not used. HINT: ..."
    for job_id, processes, shown in ((None, 2, 0), (None, 0, 0), ("42", 2, 1), ("42", 1, 0)):
        if job_id is None:
            monkeypatch.delenv("SLURM_JOB_ID", raising=False)
        else:
            monkeypatch.setenv("SLURM_JOB_ID", job_id)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            quiet_srun_hint(processes)
            warnings.warn(hint, UserWarning, stacklevel=1)
        assert len(caught) == shown, (job_id, processes)


def test_a_list_given_to_resume_is_one_line_with_a_command_per_run(tmp_path):
    # pass 77, row 13: before, "resume=[<a>,<b>]: no such folder", though both folders exist
    from highwaylab.utils.resume import ResumeError, resume_folder

    a, b = tmp_path / "a", tmp_path / "b"
    with pytest.raises(ResumeError) as err:
        resume_folder(f"[{a},{b}]")
    assert str(err.value) == (f"resume=[{a},{b}]: resume= continues one run, and takes its folder, not a "
                              f"list. Fix: one command per run: python train.py resume={a}; python train.py "
                              f"resume={b}")
