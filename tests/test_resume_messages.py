"""The one-line messages of ``resume=`` and of an interrupted run name the real state and a fix that
works (issue 11, fourth breaking pass: rows #37, #39, #42, #107, #45/#46, #108).

Run folders are built by hand (``.hydra/overrides.yaml``, ``.hydra/config.yaml`` and small
Lightning-shaped checkpoints: epoch progress and step, no weights) and checked in process through
:func:`highwaylab.utils.resume.rewrite_argv`, what ``train.py`` runs before Hydra. A fix that is a
command is run through ``rewrite_argv`` too: it must be accepted. The tests marked slow train a tiny
net, stopped by a real SIGINT or SIGTERM at the last batch of an epoch.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml
from omegaconf import OmegaConf

from highwaylab.errors import RunInterrupted
from highwaylab.utils.resume import ResumeError, checkpoint_progress, rewrite_argv

from .conftest import DATA_DIR, ROOT, TINY, compose_cfg, subprocess_env

CONF = ROOT / "conf"
OWN = ["trainer=cpu", "depth=4", "width=16", "trainer.max_epochs=5", "logger=none"]  # a run's overrides


def argv(*args: str) -> list[str]:
    return rewrite_argv(["train.py", *args], CONF)


def message(*args: str) -> str:
    with pytest.raises(ResumeError) as err:
        argv(*args)
    text = str(err.value)
    assert "\n" not in text
    return text


def own_weights() -> dict[str, torch.Tensor]:
    """The backbone weights of a run of ``OWN`` (highway, depth 4, width 16, MNIST), as the module
    holds them."""
    from highwaylab.models import FCBackbone

    net = FCBackbone("highway", depth=4, width=16, input_shape=(1, 28, 28), num_classes=10)
    return {f"net.{k}": v for k, v in net.state_dict().items()}


def fake_checkpoint(path: Path, epochs: int, step: int, mid_epoch: bool,
                    weights: dict[str, torch.Tensor] | None = None, batches: int | None = None) -> Path:
    """A checkpoint as Lightning writes it, with the backbone weights (default: :func:`own_weights`)
    and no optimiser state: ``epochs`` processed, saved at ``step``, inside epoch ``epochs`` if
    ``mid_epoch`` (else at the end of epoch ``epochs - 1``); ``batches``: the batches trained in that
    epoch (its epoch loop's batch progress; at its last batch unless ``mid_epoch``)."""
    current = {"ready": epochs + mid_epoch, "started": epochs + mid_epoch, "processed": epochs,
               "completed": epochs - (not mid_epoch and epochs > 0)}
    path.parent.mkdir(parents=True, exist_ok=True)
    loops = {"fit_loop": {"epoch_progress": {"current": current, "total": dict(current)}}}
    if batches is not None:
        counts = dict.fromkeys(("ready", "started", "processed", "completed"), batches)
        loops["fit_loop"]["epoch_loop.batch_progress"] = {"current": counts, "total": dict(counts),
                                                          "is_last_batch": not mid_epoch}
    epoch = epochs if mid_epoch else max(epochs - 1, 0)
    weights = own_weights() if weights is None else weights
    torch.save({"state_dict": weights, "pytorch-lightning_version": "2.6.6", "optimizer_states": [],
                "epoch": epoch, "global_step": step, "loops": loops}, path)
    return path


def make_run(folder: Path, overrides: list[str] = OWN) -> Path:
    """A run folder's record, as Hydra writes it: the overrides and the composed config."""
    (folder / ".hydra").mkdir(parents=True)
    (folder / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(overrides))
    OmegaConf.save(compose_cfg(overrides, folder), folder / ".hydra" / "config.yaml")
    return folder


def fix_command(text: str, after: str) -> list[str]:
    """The overrides of the ``python train.py ...`` command that ends ``text``, after ``after``."""
    words = shlex.split(text.split(after, 1)[1])
    assert words[:2] == ["python", "train.py"], words
    return words[2:]


# ---------------------------------------------------------------------------------------------
# 1. resume= (#37)
# ---------------------------------------------------------------------------------------------

def test_an_empty_resume_is_refused_and_resume_null_is_no_resume():
    # before: resume= started a new 100-layer run with the default config, silently
    expected = ("resume= is empty: give a run folder, e.g. resume=outputs/runs/<run> (or leave resume= "
                "out to start a new run)")
    assert message("resume=") == expected
    assert message("resume=''", "depth=3") == expected
    assert argv("resume=null", "depth=3") == ["train.py", "resume=null", "depth=3"]  # no resume


def test_a_mistyped_extra_override_gets_a_new_runs_line_before_the_checkpoint_is_read(tmp_path):
    # breaking pass 15, row 34: before, after torch's import and the checkpoint's read (14.6 s),
    # Hydra's "To append to your config use +trainer.max_epoch=2"
    from highwaylab.utils.overrides import OverrideError

    run = make_run(tmp_path / "run")
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / "last.ckpt").write_bytes(b"not a checkpoint")  # read: "damaged"
    with pytest.raises(OverrideError) as err:
        argv(f"resume={run}", "trainer.max_epoch=2")
    assert str(err.value) == (
        "trainer.max_epoch=2: trainer has no key 'max_epoch'; did you mean trainer.max_epochs? Fix: correct "
        "the key (python train.py --cfg job lists them); if it is an argument of lightning.pytorch.Trainer "
        "that the preset does not set, add it: +trainer.max_epoch=...")
    # a key of the run's own model=: checked with the run's overrides
    with pytest.raises(OverrideError, match=r"^model.gate_biass=-1: model has no key 'gate_biass'; did you "
                                            r"mean model.gate_bias\?"):
        argv(f"resume={run}", "model.gate_biass=-1")
    # a fault of the run's own record (conf/ changed since) is not blamed on the extra overrides
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump([*OWN, "trainer.gone=1"]))
    with pytest.raises(ResumeError):
        argv(f"resume={run}", "seed=5")


# ---------------------------------------------------------------------------------------------
# 2. trainer.max_epochs at or below the checkpoint (#39), and a finished run
# ---------------------------------------------------------------------------------------------

def test_max_epochs_below_a_mid_epoch_checkpoint_says_so_and_not_that_the_run_finished(tmp_path):
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=3, step=1691, mid_epoch=True)
    # before: "the run has finished: its checkpoint is at the end of 3 epochs (step 1691)"
    assert message(f"resume={run}", "trainer.max_epochs=2") == (
        f"resume={run}: trainer.max_epochs=2 is at or below the checkpoint's progress: it was saved in the "
        f"middle of epoch 3 (step 1691; epochs 0..2 done), and the run's own trainer.max_epochs is 5; "
        f"nothing would be trained. Resume without trainer.max_epochs=2 (python train.py resume={run}), or "
        f"with trainer.max_epochs=4 or more")
    # max_epochs=3 would end the epoch the checkpoint is in before it ends
    assert "trainer.max_epochs=3 is at or below the checkpoint's progress" in message(
        f"resume={run}", "trainer.max_epochs=3")
    # both fixes are accepted
    for fix in ([], ["trainer.max_epochs=4"]):
        assert argv(f"resume={run}", *fix)[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_the_resume_to_give_leaves_out_a_batch_limit_below_the_checkpoints_position(tmp_path):
    # pass 76, row 65: before, "Resume without trainer.max_epochs=2 (python train.py resume=<run>
    # trainer.limit_train_batches=5)", which the next check refused (the checkpoint is after batch 171)
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=3, step=1691, mid_epoch=True, batches=171)
    assert message(f"resume={run}", "trainer.max_epochs=2", "trainer.limit_train_batches=5").endswith(
        f"nothing would be trained. Resume without trainer.max_epochs=2 (python train.py resume={run}), or "
        f"with trainer.max_epochs=4 or more")
    assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"  # that fix is taken
    assert message(f"resume={run}", "trainer.max_epochs=2", "trainer.limit_train_batches=500").endswith(
        f"(python train.py resume={run} trainer.limit_train_batches=500), or with trainer.max_epochs=4 or "
        f"more")  # a limit past the checkpoint's batch is kept


def test_max_epochs_below_an_epoch_end_checkpoint_names_that_epoch(tmp_path):
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=3, step=1290, mid_epoch=False)
    assert checkpoint_progress(torch.load(run / "checkpoints" / "last.ckpt")).describe() == (
        "at the end of epoch 2 (step 1290; epochs 0..2 done)")
    assert message(f"resume={run}", "trainer.max_epochs=2").endswith(
        "it was saved at the end of epoch 2 (step 1290; epochs 0..2 done), and the run's own "
        f"trainer.max_epochs is 5; nothing would be trained. Resume without trainer.max_epochs=2 "
        f"(python train.py resume={run}), or with trainer.max_epochs=4 or more")
    # the low-level ckpt_path= in a new run: the key and the value that trains
    ckpt = run / "checkpoints" / "last.ckpt"
    assert message(f"ckpt_path={ckpt}", *OWN[:3], "trainer.max_epochs=1").endswith(
        f"nothing would be trained. Give trainer.max_epochs=4 or more with ckpt_path={ckpt}")


def test_a_resume_whose_epochs_end_at_or_before_the_checkpoints_batch_is_refused(tmp_path):
    # pass 26, row 87: before, rc 0: resumed with trainer.limit_train_batches=3, a checkpoint saved after
    # batch 5 of epoch 0 (a 20-batch epoch) ended that epoch at once, "`max_epochs=2` reached", epoch 1
    # never trained; metrics.json: epochs 2, last_epoch_batches 6, batches_per_epoch 3, global_step 6
    run = make_run(tmp_path / "run", [*OWN, "trainer.limit_train_batches=20"])
    ckpt = fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=0, step=5, mid_epoch=True, batches=5)
    where = ("the checkpoint was saved after batch 5 of epoch 0 (step 5): that epoch would end at once, and "
             "Lightning would count an epoch it never trained")
    assert message(f"resume={run}", "trainer.limit_train_batches=3") == (
        f"resume={run}: trainer.limit_train_batches=3 gives 3 training batches per epoch, and {where}. Fix: "
        f"keep trainer.limit_train_batches at 6 or more for this resume (the run's own is 20), or start a "
        f"new run")
    assert message(f"resume={run}", "trainer.limit_train_batches=5").startswith(  # at the position: refused
        f"resume={run}: trainer.limit_train_batches=5 gives 5 training batches per epoch, and {where}.")
    # a fraction of the 430 batches of MNIST's 55000 training examples (60000, less data.val_size=5000)
    assert message(f"resume={run}", "trainer.limit_train_batches=0.01") == (
        f"resume={run}: trainer.limit_train_batches=0.01 gives 4 training batches per epoch (0.01 of 430), "
        f"and {where}. Fix: keep trainer.limit_train_batches at 6 or more for this resume (the run's own is "
        f"20), or start a new run")
    # the low-level ckpt_path=, and an epoch that the data itself makes shorter
    assert message(f"ckpt_path={ckpt}", *OWN[:3], "trainer.limit_train_batches=2") == (
        f"ckpt_path={ckpt}: trainer.limit_train_batches=2 gives 2 training batches per epoch, and {where}. "
        f"Fix: give trainer.limit_train_batches=6 or more with ckpt_path={ckpt}, or start a new run without "
        f"ckpt_path")
    assert message(f"ckpt_path={ckpt}", *OWN[:3], "data.batch_size=20000") == (
        f"ckpt_path={ckpt}: an epoch has 3 training batches here (55000 training examples / data.batch_size="
        f"20000), and {where}. Fix: continue it with the data.batch_size, data.val_size and trainer.devices "
        f"it was trained with, or start a new run")
    # the fixes are accepted: 6 batches, a fraction giving 6 (0.014 of 430), the run's own 20
    for fix in (["trainer.limit_train_batches=6"], ["trainer.limit_train_batches=0.014"], []):
        assert argv(f"resume={run}", *fix)[-1] == f"ckpt_path={ckpt}"
    # a checkpoint at an epoch's end: the next epoch starts at its first batch, whatever its length
    fake_checkpoint(ckpt, epochs=1, step=20, mid_epoch=False, batches=20)
    assert argv(f"resume={run}", "trainer.limit_train_batches=3")[-1] == f"ckpt_path={ckpt}"


def test_a_suggested_command_for_a_folder_with_a_space_can_be_pasted(tmp_path):
    # before: "extend it: python train.py resume=/.../my run_63f3 trainer.max_epochs=3", which the
    # shell split at the space (run_name='my run' makes such a folder)
    run = make_run(tmp_path / "2026-12-01_07-44-25_my run_63f3")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=2150, mid_epoch=False)
    (run / "metrics.json").write_text(json.dumps({"global_step": 2150, "test/acc": 0.9}))
    text = message(f"resume={run}")
    # quoted for Hydra too, since pass 32 (a comma would make a sweep of it; a space needs no Hydra quotes)
    assert fix_command(text, "extend it: ") == [f"resume='{run}'", "trainer.max_epochs=7"]


def test_a_run_whose_record_disagrees_with_itself_names_the_record(tmp_path):
    # before: "the checkpoint was written by a run with depth=4 ... Resume it with its own settings:
    # python train.py resume=<run>", the very command that had failed
    run = make_run(tmp_path / "edited")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump([o for o in OWN if o != "depth=4"]))
    record = run / ".hydra" / "overrides.yaml"
    assert message(f"resume={run}") == (  # pass 35, row 32: the check of every key names it first
        f"resume={run}: the run's recorded overrides ({record}, with conf/ as it is now) do not give the "
        f"config it ran with ({run}/.hydra/config.yaml): it ran with depth=4 (was the file or conf/ "
        "edited?), and a resume would change it. Fix: restore that file: printf '%s\\n' '- trainer=cpu' "
        f"'- width=16' '- trainer.max_epochs=5' '- logger=none' '- depth=4' > {record}")



def test_a_hand_edited_config_record_is_named_with_the_value_the_run_ran_with(tmp_path):
    # pass 42, row 51: before, "the run's recorded overrides ... do not give the config it ran with: it
    # ran with depth=3", and the fix rewrote the unedited overrides.yaml to the edited depth; the resume
    # was then refused for a checkpoint "saved from another model"
    run = make_run(tmp_path / "edited")  # depth=4
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    config = run / ".hydra" / "config.yaml"
    (run / "config_resolved.yaml").write_text("depth: 4\nwidth: 16\n")  # as the run ran
    edited = config.read_text().replace("depth: 4\n", "depth: 3\n")
    assert edited != config.read_text()
    config.write_text(edited)
    assert message(f"resume={run}") == (
        f"resume={run}: {config} (Hydra's record of the config the run ran with) gives depth=3, but the run "
        f"ran with depth=4 (its overrides.yaml and config_resolved.yaml): that file was edited since the "
        f"run. Fix: set depth to 4 again in {config}")
    config.write_text(edited.replace("depth: 3\n", "depth: 4\n"))  # the fix
    assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"
    # config_resolved.yaml edited too: the overrides are the odd one out, as before
    config.write_text(edited)
    (run / "config_resolved.yaml").write_text((run / "config_resolved.yaml").read_text().replace(
        "depth: 4\n", "depth: 3\n"))
    assert "the run's recorded overrides" in message(f"resume={run}")


def ran_with(run: Path, overrides: list[str]) -> None:
    """``run``'s ``config_resolved.yaml`` for ``overrides``: the values it ran with (of the keys that
    name its model and data)."""
    cfg = compose_cfg(overrides, run)
    (run / "config_resolved.yaml").write_text(yaml.safe_dump({
        k: OmegaConf.to_container(cfg[k], resolve=True) if OmegaConf.is_config(cfg[k]) else cfg[k]
        for k in ("depth", "width", "model", "data", "optim")}))


def test_a_record_copied_from_another_run_is_named_not_the_runs_own_checkpoint(tmp_path):
    # pass 42, rows 52 and 64: before, "last.ckpt was saved from another model ... It is not the checkpoint
    # this run wrote ... put the run's own last.ckpt back", of the run's own last.ckpt, when the record
    # (.hydra/) was another run's (copied back from the wrong run) or edited whole
    run = make_run(tmp_path / "run")  # the record: depth=4, width=16
    three = [o if o != "depth=4" else "depth=3" for o in OWN]
    ran_with(run, three)  # the run ran at depth 3, and its checkpoint holds that model
    from highwaylab.models import FCBackbone

    net = FCBackbone("highway", depth=3, width=16, input_shape=(1, 28, 28), num_classes=10)
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False,
                    weights={f"net.{k}": v for k, v in net.state_dict().items()})
    assert message(f"resume={run}", "trainer.max_epochs=6") == (
        f"resume={run}: the run's record (.hydra/overrides.yaml and config.yaml) gives depth=4, but the run "
        f"ran with depth=3 (its config_resolved.yaml, and its last.ckpt holds that model): the record was "
        f"edited, or copied from another run. Fix: put the run's own record back (as it ran: depth=3), or "
        f"start a new run")
    # a checkpoint of a third model is the checkpoint's fault, as before
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False,
                    weights={f"net.{k}": v for k, v in FCBackbone(
                        "highway", depth=5, width=16, input_shape=(1, 28, 28), num_classes=10
                    ).state_dict().items()})
    assert "was saved from another model" in message(f"resume={run}", "trainer.max_epochs=6")
    # the record put back: the resume goes on
    shutil.rmtree(run / ".hydra")
    make_run(run, three)
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False,
                    weights={f"net.{k}": v for k, v in net.state_dict().items()})
    assert argv(f"resume={run}", "trainer.max_epochs=6")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_a_record_edited_to_another_learning_rate_is_named_with_the_one_the_run_ran_with(tmp_path):
    # pass 42, rows 70-71: before, "lr=0.01, but the checkpoint's optimiser has lr=0.1 ... Fix: give
    # optim.optimizer.lr=0.1", and that fix was refused: "cannot apply ... changes optim.optimizer.lr (0.01
    # -> 0.1)"; the record (both files) had been edited, and no message named it
    run = make_run(tmp_path / "run", [*OWN, "optim.optimizer.lr=0.01"])
    ran_with(run, OWN)  # the default rate, 0.1
    last = fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    state = torch.load(last, weights_only=False)
    group = {"lr": 0.1, "initial_lr": 0.1, "params": []}
    state["optimizer_states"] = [{"state": {}, "param_groups": [group]}]
    torch.save(state, last)
    expected = (f"resume={run}: the run's record (.hydra/overrides.yaml and config.yaml) gives "
                f"optim.optimizer.lr=0.01, but the run ran with optim.optimizer.lr=0.1 (its "
                f"config_resolved.yaml{{}}): the record was edited, or copied from another run. Fix: put the "
                f"run's own record back (as it ran: optim.optimizer.lr=0.1), or start a new run")
    assert message(f"resume={run}", "trainer.max_epochs=6") == expected.format(
        ", as its checkpoint's optimiser")
    assert message(f"resume={run}", "trainer.max_epochs=6", "optim.optimizer.lr=0.1") == expected.format("")
    shutil.rmtree(run / ".hydra")
    make_run(run)  # the fix: the record as the run ran
    assert argv(f"resume={run}", "trainer.max_epochs=6")[-1] == f"ckpt_path={last}"


def test_a_resumed_run_whose_record_disagrees_with_itself_names_its_latest_record(tmp_path):
    # pass 28, rows f26, f28: before, "Fix: give depth=4 again in <run>/.hydra/overrides.yaml", a file that
    # resume= does not read for a resumed run (it reads the latest .hydra/resumed_*/overrides.yaml)
    run = make_run(tmp_path / "edited")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    resumed = run / ".hydra" / "resumed_2026-12-02_10-00-00"
    resumed.mkdir()
    (resumed / "overrides.yaml").write_text(yaml.safe_dump([o for o in OWN if o != "depth=4"]))
    assert message(f"resume={run}") == (
        f"resume={run}: the run's overrides (.hydra/resumed_2026-12-02_10-00-00/overrides.yaml, with conf/ "
        f"as it is now) give depth=100, but its .hydra/config.yaml, the config its checkpoint was trained "
        f"with, has depth=4 (was the record or conf/ edited?). Fix: give depth=4 again in "
        f"{resumed}/overrides.yaml")
    # the first record's config.yaml edited (pass 42, row 51), the overrides as the run ran: that file named
    (resumed / "overrides.yaml").write_text(yaml.safe_dump(OWN))
    (run / "config_resolved.yaml").write_text("depth: 4\nwidth: 16\n")
    config = run / ".hydra" / "config.yaml"
    config.write_text(config.read_text().replace("depth: 4\n", "depth: 3\n"))
    assert message(f"resume={run}") == (
        f"resume={run}: {config} (Hydra's record of the config the run ran with) gives depth=3, but the run "
        f"ran with depth=4 (its overrides.yaml and config_resolved.yaml): that file was edited since the "
        f"run. Fix: set depth to 4 again in {config}")


def test_odd_run_folders_get_a_fix_that_works(tmp_path):
    # before: a folder at last.ckpt was "missing (deleted?)", and the suggested command trained an
    # epoch before failing; a finished debug=fast run "stopped before its first checkpoint"; a
    # folder whose run saved nothing was "another run" to resume, which resume= then refused
    run = make_run(tmp_path / "lastdir")
    fake_checkpoint(run / "checkpoints" / "epoch_000.ckpt", epochs=1, step=4, mid_epoch=False)
    (run / "checkpoints" / "last.ckpt").mkdir()
    assert message(f"resume={run}") == (
        f"resume={run}: {run}/checkpoints/last.ckpt is a folder, not a checkpoint, and the run writes its "
        f"state there. Fix: move it away (mv {run}/checkpoints/last.ckpt <elsewhere>), then resume (resume= "
        f"then names the run's latest other checkpoint)")
    # pass 43, row 37: a folder at a top-k checkpoint's name, holding a file: before, the resume went on,
    # and Lightning's top-k cleanup removed the folder and the file without a word
    (run / "checkpoints" / "last.ckpt").rmdir()
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    (run / "checkpoints" / "epoch_000.ckpt").unlink()
    (run / "checkpoints" / "epoch_000.ckpt").mkdir()
    (run / "checkpoints" / "epoch_000.ckpt" / "notes.txt").write_text("mine")
    assert message(f"resume={run}", "trainer.max_epochs=6") == (
        f"resume={run}: {run}/checkpoints/epoch_000.ckpt is a folder, not a checkpoint, and Lightning "
        f"removes a checkpoint it replaces with all it holds. Fix: move it away (mv "
        f"{run}/checkpoints/epoch_000.ckpt <elsewhere>), then resume")
    fast = make_run(tmp_path / "fast", [*OWN, "debug=fast"])
    (fast / "metrics.json").write_text("{}")
    # pass 55, row 81 (major): before, the new run kept debug=fast, and trainer.max_epochs=2 trained a batch
    assert message(f"resume={fast}", "trainer.max_epochs=2") == (
        f"resume={fast}: the run finished without writing a checkpoint (debug=fast, trainer.fast_dev_run or "
        f"callbacks without checkpoints), so it cannot be resumed or extended; start a new run (without "
        f"debug=fast, which trains a batch or two): python train.py trainer=cpu depth=4 width=16 logger=none "
        f"trainer.max_epochs=2")
    # pass 58, row 73: a run of trainer.max_epochs=0 trained nothing; before, "(debug=fast, ...)"
    idle = make_run(tmp_path / "idle", [*OWN[:3], "trainer.max_epochs=0", "logger=none", "test=false"])
    (idle / "metrics.json").write_text(json.dumps({"global_step": 0}))
    assert message(f"resume={idle}", "trainer.max_epochs=1") == (
        f"resume={idle}: the run finished without training a step (its metrics.json: global_step 0; e.g. "
        f"trainer.max_epochs=0) and wrote no checkpoint, so it cannot be resumed or extended; start a new "
        f"run: python train.py trainer=cpu depth=4 width=16 logger=none test=false trainer.max_epochs=1")
    for name in ("metrics.json", ".hydra/overrides.yaml"):  # before: a traceback after an epoch of
        odd = make_run(tmp_path / name.replace("/", "_"))  # training; "is not a run folder"
        fake_checkpoint(odd / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
        if (odd / name).exists():
            (odd / name).unlink()
        (odd / name).mkdir()
        assert message(f"resume={odd}").startswith(
            f"resume={odd}: {odd}/{name} is a folder, not the file the run keeps there. Fix: move it away "
            f"(mv {odd}/{name} <elsewhere>)")
    hung_up = make_run(tmp_path / "hung_up")  # stopped before training: a record, no checkpoint
    # pass 67, row 33: a record this fresh, without the run's lock, may be a run still starting (the same
    # command started twice): before, the second was told to rm -r the first's folder
    assert message(f"hydra.run.dir={hung_up}", *OWN).startswith(
        f"hydra.run.dir={hung_up} holds the record of a run started 0 s ago (.hydra/), which may still be "
        f"starting (another command for this folder?). Fix: give a new folder (or leave hydra.run.dir out); "
        f"if no other command runs there, try again in a minute")
    before = time.time() - 60  # a minute later: a run that stopped
    os.utime(hung_up / ".hydra", (before, before))
    assert message(f"hydra.run.dir={hung_up}", *OWN) == (
        f"hydra.run.dir={hung_up} holds the record of a run that wrote no checkpoint (.hydra/), so it cannot "
        f"be resumed; a new run there would mix up the two records. Fix: give a new folder (or leave "
        f"hydra.run.dir out), or remove that run first: rm -r {hung_up}")


def test_a_new_run_in_a_folder_of_other_files_is_refused(tmp_path):
    # before: hydra.run.dir=. in a checkout wrote .hydra/, checkpoints/, train.log... among its files
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "README.md").write_text("mine")
    (folder / "data").mkdir()
    assert message(f"hydra.run.dir={folder}", *OWN) == (
        f"hydra.run.dir={folder} is not empty ({folder} holds README.md, data/): a run writes its record "
        f"(.hydra/), train.log, checkpoints/ and metrics.json into its folder, among those files. Give a new "
        f"or empty folder (or leave hydra.run.dir out: every run gets a folder of its own)")
    (folder / "README.md").unlink()
    (folder / "data").rmdir()
    assert argv(f"hydra.run.dir={folder}", *OWN)[1] == f"hydra.run.dir={folder}"  # an empty folder is free


def test_a_lone_checkpoint_of_another_model_is_named_before_its_progress(tmp_path):
    # before: a conv checkpoint outside a run folder, given to a fully connected run, was refused as
    # "the run has finished ... its metrics.json already holds its result": neither was known
    from highwaylab.models import ConvBackbone

    conv = ConvBackbone("plain", [{"channels": 4, "layers": 1}], input_shape=(1, 28, 28), num_classes=10)
    lone = fake_checkpoint(tmp_path / "lone.ckpt", epochs=1, step=3, mid_epoch=False,
                           weights={f"net.{k}": v for k, v in conv.state_dict().items()})
    assert message(f"ckpt_path={lone}", *OWN[:3], "trainer.max_epochs=1").startswith(
        f"ckpt_path={lone} was saved from another model: 10 missing, 6 unexpected and 0 reshaped weights "
        f"(first: net.head.bias)")
    fashion = fake_checkpoint(tmp_path / "fashion.ckpt", epochs=1, step=3, mid_epoch=False)
    state = torch.load(fashion)
    state["datamodule_hyper_parameters"] = {"dataset": "fashion_mnist"}  # as the data module saves it
    torch.save(state, fashion)
    # before: an MNIST run continued it, and reported the Fashion-MNIST run's val/acc_best as its own
    assert message(f"ckpt_path={fashion}", *OWN[:3], "trainer.max_epochs=3") == (
        f"ckpt_path={fashion}: the checkpoint was written by a run of data.dataset=fashion_mnist (its data "
        f"module's settings), and this run has data.dataset=mnist: its best score and the weights' training "
        f"would be another data set's. Fix: data=fashion_mnist, or start a new run without ckpt_path")
    fits = fake_checkpoint(tmp_path / "fits.ckpt", epochs=1, step=3, mid_epoch=False)
    assert message(f"ckpt_path={fits}", *OWN[:3], "trainer.max_epochs=1") == (
        f"ckpt_path={fits}: the run has finished: its checkpoint is at the end of 1 epoch (step 3), and "
        f"trainer.max_epochs=1; nothing would be trained. To train it further, give trainer.max_epochs=2 "
        f"or more with ckpt_path={fits}")
    # pass 78, row 21: before, "=3 or more" (the example of an extension, epochs + 2), though 2 trains
    assert argv(f"ckpt_path={fits}", *OWN[:3], "trainer.max_epochs=2")[-1] == "trainer.max_epochs=2"


def test_a_run_at_its_end_is_finished_only_once_it_has_its_metrics_json(tmp_path):
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=2150, mid_epoch=False)
    # no metrics.json: stopped after training, before its test; resume= completes it
    assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"
    (run / "metrics.json").write_text(json.dumps({"global_step": 1720}))  # of an earlier segment
    assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"
    (run / "metrics.json").write_text(json.dumps({"global_step": 2150, "test/acc": 0.9}))
    assert message(f"resume={run}") == (
        f"resume={run}: the run has finished: its checkpoint is at the end of 5 epochs (step 2150), and "
        f"trainer.max_epochs=5; nothing would be trained, and its metrics.json already holds its result. "
        f"To train it further, extend it: python train.py resume={run} trainer.max_epochs=7")
    # pass 35b, row 11: a new run from its checkpoint (ckpt_path=) was told only to extend the run
    with pytest.raises(ResumeError) as err:
        argv(f"ckpt_path={run}/checkpoints/last.ckpt", *OWN)
    assert str(err.value) == (
        f"ckpt_path={run}/checkpoints/last.ckpt: the run has finished: its checkpoint is at the end of 5 "
        f"epochs (step 2150), and trainer.max_epochs=5; nothing would be trained, and its metrics.json "
        f"already holds its result. To train further from it: for a new run from its weights, give "
        f"trainer.max_epochs=6 or more with this ckpt_path=; or extend that run itself: python train.py "
        f"resume={run} trainer.max_epochs=7")
    assert argv(f"ckpt_path={run}/checkpoints/last.ckpt", *OWN, "trainer.max_epochs=6")  # the least given


# ---------------------------------------------------------------------------------------------
# 3. last.ckpt deleted (#42), 6. last.ckpt damaged (#108)
# ---------------------------------------------------------------------------------------------

def test_a_deleted_last_checkpoint_names_the_latest_one_and_a_command_that_is_accepted(tmp_path):
    run = make_run(tmp_path / "run")
    epoch_2 = fake_checkpoint(run / "checkpoints" / "epoch_002.ckpt", epochs=3, step=1290, mid_epoch=False)
    text = message(f"resume={run}", "data.num_workers=0")
    # before: "the run has no checkpoint to resume from (checkpoints/last.ckpt is missing: it stopped
    # before its first checkpoint); resume from another ... ckpt_path=... hydra.run.dir=..." (without
    # the run's overrides: refused as a run of depth=100)
    assert text == (
        f"resume={run}: checkpoints/last.ckpt is missing (deleted?), and resume= continues from it; the "
        f"run's latest checkpoint is checkpoints/epoch_002.ckpt: continue from it with: python train.py "
        f"{' '.join(OWN)} data.num_workers=0 ckpt_path={epoch_2} hydra.run.dir={run}")
    fix = fix_command(text, "continue from it with: ")
    assert argv(*fix)[1:] == fix  # accepted: the run's own settings, its folder
    # pass 47, row 32: a last.ckpt moved into a subfolder was "missing (deleted?)", and the fix went on from
    # the older epoch_002.ckpt
    fake_checkpoint(run / "checkpoints" / "old" / "last.ckpt", epochs=3, step=1300, mid_epoch=True)
    assert message(f"resume={run}") == (
        f"resume={run}: checkpoints/last.ckpt is missing, but {run}/checkpoints/old/last.ckpt is there "
        f"(moved?). Fix: move it back (mv {run}/checkpoints/old/last.ckpt {run}/checkpoints/last.ckpt), then "
        f"resume again")


def test_a_deleted_last_checkpoint_is_never_replaced_by_one_of_weights_only(tmp_path):
    # pass 80, row 68 (major): before, a save_weights_only epoch_000.ckpt was offered as the checkpoint to
    # continue from, and its command was refused ("holds weights only ... e.g. .../last.ckpt")
    run = make_run(tmp_path / "run")
    epoch_0 = fake_checkpoint(run / "checkpoints" / "epoch_000.ckpt", epochs=1, step=430, mid_epoch=False)
    weights = run / "checkpoints" / "epoch_001.ckpt"
    torch.save({"state_dict": torch.load(epoch_0)["state_dict"]}, weights)  # save_weights_only: no state
    assert message(f"resume={run}") == (
        f"resume={run}: checkpoints/last.ckpt is missing (deleted?), and resume= continues from it; the "
        f"run's latest checkpoint is checkpoints/epoch_000.ckpt: continue from it with: python train.py "
        f"{' '.join(OWN)} ckpt_path={epoch_0} hydra.run.dir={run}")  # the newer one of weights only passed
    epoch_0.unlink()
    assert message(f"resume={run}") == (
        f"resume={run}: checkpoints/last.ckpt is missing (deleted?), and resume= continues from it; the "
        f"run's other checkpoints (epoch_001.ckpt) hold weights only (save_weights_only), not a training "
        f"state, so the run cannot be continued. Fix: start it again, in a new folder: python train.py "
        f"{' '.join(OWN)}")


LOG_WITHOUT_ERROR = "[2026-12-03 03:14:13,101][highwaylab.train][INFO] - Output folder: run\n"


def test_a_run_without_any_checkpoint_is_started_again(tmp_path):
    run = make_run(tmp_path / "run")
    (run / "train.log").write_text(LOG_WITHOUT_ERROR)  # killed (SIGKILL) before its first checkpoint
    assert message(f"resume={run}") == (
        f"resume={run}: the run has no checkpoint to resume from (checkpoints/last.ckpt is missing: it "
        f"stopped before its first checkpoint); start it again: python train.py {' '.join(OWN)}")
    # pass 66, row 24: a run without train.log (hydra/job_logging=disabled): before, the same line, with no
    # word that what stopped it (a NaN loss, from its learning rate) was never recorded
    (run / "train.log").unlink()
    assert message(f"resume={run}") == (
        f"resume={run}: the run has no checkpoint to resume from (checkpoints/last.ckpt is missing: it "
        f"stopped before its first checkpoint), and it kept no train.log (hydra/job_logging=disabled?), so "
        f"what stopped it is not recorded here: see that run's console output. Start it again once that is "
        f"fixed: python train.py {' '.join(OWN)}")


def test_a_sweeps_job_without_any_checkpoint_is_started_again_into_its_folder(tmp_path):
    # pass 40, row 60 (major): before, a sweep's job interrupted before its first checkpoint was given a
    # command without hydra.run.dir, which ran it outside the sweep (the report and W&B group lost it)
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "multirun.yaml").write_text("hydra: {}\n")
    job = make_run(tmp_path / "sweep" / "0_job")
    (job / "train.log").write_text(LOG_WITHOUT_ERROR)
    assert message(f"resume={job}") == (
        f"resume={job}: the run has no checkpoint to resume from (checkpoints/last.ckpt is missing: it "
        f"stopped before its first checkpoint); start it again: rm -r {job} (it holds no checkpoint), then "
        f"python train.py {' '.join(OWN)} hydra.run.dir={job}")


def test_a_run_that_failed_before_its_first_checkpoint_is_named_with_its_error(tmp_path):
    # pass 37, row 40: before, "it stopped before its first checkpoint); start it again: python train.py
    # ... optim.optimizer.lr=1e30", the learning rate that had made the loss NaN at step 1, without a word
    # on why it had stopped. The log's lines are those of Hydra's job logging (a real run's, shortened).
    run = make_run(tmp_path / "run")
    error = ("Non-finite loss at step 1 (epoch 0): the loss is nan (train/loss). Fix: lower "
             "optim.optimizer.lr, keep trainer.gradient_clip_val set, or check the data for NaN.")
    (run / "train.log").write_text(
        "[2026-12-03 03:14:13,101][highwaylab.train][INFO] - Output folder: run\n"
        "[2026-12-03 03:14:16,490][highwaylab][ERROR] - highwaylab: an older failure\n"
        f"[2026-12-03 03:14:16,504][highwaylab][ERROR] - highwaylab: {error}\n"
        "[2026-12-03 03:14:16,520][highwaylab.utils.task][INFO] - Closing W&B run mnist-highway-d4\n")
    assert message(f"resume={run}") == (
        f"resume={run}: the run has no checkpoint to resume from (checkpoints/last.ckpt is missing): it "
        f"ended before its first checkpoint, with this error in its train.log: \"{error}\". Start it "
        f"again, with the fix that names, if any: python train.py {' '.join(OWN)}")
    # pass 90, row 26: a fix that is one override of the run's is applied to the command; before, the command
    # kept the value that had failed (seed=00)
    seeded = make_run(tmp_path / "seeded", [*OWN, "seed=00"])
    leading = "seed=00: Hydra reads a number with a leading zero as a string. Fix: seed=0"
    (seeded / "train.log").write_text(
        f"[2026-12-03 03:14:16,504][highwaylab][ERROR] - highwaylab: {leading}\n")
    assert message(f"resume={seeded}") == (
        f"resume={seeded}: the run has no checkpoint to resume from (checkpoints/last.ckpt is missing): it "
        f"ended before its first checkpoint, with this error in its train.log: \"{leading}\". Start it "
        f"again with that fix, seed=0: python train.py {' '.join(OWN)} seed=0")
    # pass 43, row 30: the run's interrupt saved its state, and last.ckpt was deleted since: before, "it
    # ended before its first checkpoint", quoting the line that says it saved one
    with (run / "train.log").open("a") as log:
        log.write("[2026-12-03 11:44:29,485][highwaylab][ERROR] - highwaylab: interrupted by SIGINT in epoch "
                  "0 at step 164: its state at step 164 is saved in /elsewhere/checkpoints/last.ckpt; resume "
                  "with: python train.py resume=/elsewhere.\n")
    assert message(f"resume={run}") == (
        f"resume={run}: checkpoints/last.ckpt is missing (deleted?): the run saved its state at step 164 "
        f"when it was interrupted (its train.log says so), and holds no other checkpoint. Fix: put the "
        f"checkpoint back, or start the run again: python train.py {' '.join(OWN)}")


def test_a_damaged_only_checkpoint_says_so_and_gives_the_command_that_starts_the_run_again(tmp_path):
    run = make_run(tmp_path / "run")
    last = run / "checkpoints" / "last.ckpt"
    last.parent.mkdir()
    last.write_bytes(b"PK\x03\x04" + bytes(996))  # cut short
    text = message(f"resume={run}", "trainer.max_epochs=6")
    # before: "Fix: give the path of a .ckpt file, e.g. ckpt_path=outputs/runs/<run>/checkpoints/last.ckpt"
    assert text.startswith(f"resume={run}: {last} is not a readable Lightning checkpoint: damaged")
    own = [o for o in OWN if not o.startswith("trainer.max_epochs=")]
    assert text.endswith(f"Fix: the run has no other checkpoint: start it again, in a new folder: "
                         f"python train.py {' '.join(own)} trainer.max_epochs=6")


def test_a_damaged_last_checkpoint_names_another_one_with_a_command_that_is_accepted(tmp_path):
    run = make_run(tmp_path / "run")
    epoch_1 = fake_checkpoint(run / "checkpoints" / "epoch_001.ckpt", epochs=2, step=860, mid_epoch=False)
    last = run / "checkpoints" / "last.ckpt"
    last.write_bytes(b"PK\x03\x04" + bytes(996))
    text = message(f"resume={run}")
    assert text.endswith(f"Fix: resume from another of the run's checkpoints: python train.py "
                         f"{' '.join(OWN)} ckpt_path={epoch_1} hydra.run.dir={run}")
    fix = fix_command(text, "Fix: resume from another of the run's checkpoints: ")
    assert argv(*fix)[1:] == fix


# ---------------------------------------------------------------------------------------------
# 4. a record that is not valid YAML (#107)
# ---------------------------------------------------------------------------------------------

def test_a_record_that_is_not_valid_yaml_is_one_line_naming_the_file_and_line(tmp_path):
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=430, mid_epoch=False)
    (run / ".hydra" / "overrides.yaml").write_text("- depth=3\n  : [unclosed\n")
    # before: a yaml.parser.ParserError traceback
    assert message(f"resume={run}") == (
        f"resume={run}: {run}/.hydra/overrides.yaml is not valid YAML at line 2 (expected <block end>, but "
        "found '<block mapping start>'); resume= reads the run's overrides from it. Fix: repair that line "
        "(one override a line, as Hydra writes them: - depth=3), or start a new run")


@pytest.mark.parametrize(("text", "expected"), [
    ("depth: 3\n", "is not a list of overrides at line 1 (it holds a mapping)"),
    ("- depth=3\n- 5\n", "is not a list of overrides at line 2 (5 is not key=value)"),
])
def test_a_record_that_is_not_a_list_of_overrides_names_the_line_and_the_command_that_rebuilds_it(
        text, expected, tmp_path):
    # pass 77, row 73: before, "Fix: repair that line (... - depth=3)"; written as told, the next resume was
    # refused for a record that does not give the run's config, and only that line gave the rebuild
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=430, mid_epoch=False)
    (run / ".hydra" / "hydra.yaml").write_text(yaml.safe_dump({"hydra": {"runtime": {"choices": {
        "trainer": "cpu", "logger": "none", "model": "highway", "hydra/launcher": "basic"}}}}))
    record = run / ".hydra" / "overrides.yaml"
    record.write_text(text)
    text = message(f"resume={run}")
    head = (f"resume={run}: {record} {expected}; resume= reads the run's overrides from it. Fix: restore "
            f"that file, which the run's config ({run}/.hydra/config.yaml) gives: printf '%s\\n' ")
    assert text.startswith(head), text
    assert text.endswith(f" > {record}"), text
    subprocess.run(["bash", "-c", text.split("gives: ", 1)[1]], check=True)  # the fix, as given
    rebuilt = yaml.safe_load(record.read_text())  # the run's own, less trainer.max_epochs=5 (the default)
    assert sorted(rebuilt) == sorted(set(OWN) - {"trainer.max_epochs=5"}), rebuilt
    resumed = argv(f"resume={run}", "trainer.max_epochs=6")  # the record is whole again: the resume goes on
    assert {*rebuilt, "trainer.max_epochs=6", f"hydra.run.dir={run}"} <= set(resumed), resumed


def test_an_emptied_or_edited_overrides_record_names_every_setting_the_run_ran_with(tmp_path):
    # pass 35, row 32: before, an emptied overrides.yaml was named for depth alone; with depth given back,
    # the resume went on under the default trainer, logger and limits, without a word
    run = make_run(tmp_path / "run", [*OWN, "trainer.limit_train_batches=3"])
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=3, mid_epoch=False)
    (run / ".hydra" / "hydra.yaml").write_text(yaml.safe_dump({"hydra": {"runtime": {"choices": {
        "trainer": "cpu", "logger": "none", "model": "highway", "hydra/launcher": "basic"}}}}))
    record = run / ".hydra" / "overrides.yaml"
    record.write_text("[]\n")
    text = message(f"resume={run}", "trainer.max_epochs=6")
    assert text == (
        f"resume={run}: the run's recorded overrides ({record}, with conf/ as it is now) do not give the "
        f"config it ran with ({run}/.hydra/config.yaml): it ran with logger=none, trainer=cpu, depth=4, "
        "width=16 and 1 more (was the file or conf/ edited?), and a resume would change them. Fix: restore "
        "that file: printf '%s\\n' '- logger=none' '- trainer=cpu' '- depth=4' '- width=16' "
        f"'- trainer.limit_train_batches=3' > {record}")  # (5 epochs is the default)
    lines = shlex.split(text.split("printf ", 1)[1].split(" > ", 1)[0])[1:]
    record.write_text("".join(f"{line}\n" for line in lines))  # the fix, as printf writes it
    assert f"ckpt_path={run}/checkpoints/last.ckpt" in argv(f"resume={run}", "trainer.max_epochs=6")
    record.write_text(yaml.safe_dump([o for o in OWN if o != "depth=4"] + ["trainer.limit_train_batches=3"]))
    # one line lost
    assert "it ran with depth=4 (was the file or conf/ edited?)" in message(f"resume={run}")


def test_a_recorded_config_that_is_not_valid_yaml_is_one_line(tmp_path):
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=430, mid_epoch=False)
    (run / ".hydra" / "config.yaml").write_text("depth: 4\ntrainer: {max_epochs: 5\n")
    assert message(f"resume={run}").startswith(
        f"resume={run}: {run}/.hydra/config.yaml is not valid YAML at line 3 (")


# ---------------------------------------------------------------------------------------------
# 5. a signal at the last batch of the last epoch (#45, #46)
# ---------------------------------------------------------------------------------------------

def signal_at(step: int, signum: int) -> list[str]:
    return ["+callbacks.signal_at._target_=tests.signal_at.SignalAt", f"+callbacks.signal_at.step={step}",
            f"+callbacks.signal_at.signum={signum}"]


RESULT = ("train/loss", "train/acc", "val/loss", "val/acc", "val/acc_best", "test/loss", "test/acc")


@pytest.mark.slow
def test_sigint_at_the_last_batch_says_training_finished_and_resume_completes_the_run(tmp_path, data_dir):
    from highwaylab.train import train

    straight = train(compose_cfg(TINY, tmp_path / "straight"))
    run = make_run(tmp_path / "run", TINY)  # the record Hydra would write; 4 batches, 1 epoch
    with pytest.raises(RunInterrupted) as err:
        train(compose_cfg([*TINY, *signal_at(4, int(signal.SIGINT))], run))
    last = run / "checkpoints" / "last.ckpt"
    # before: "interrupted by SIGINT in epoch 1 at step 4 ...; resume with ..." (and a signal after the
    # last batch, before the validation, lost the validation and saved nothing)
    assert str(err.value).startswith(f"interrupted by SIGINT after training finished (1 epoch, step 4), "
                                     f"before its test: the final state, of step 4, is saved in {last}; "
                                     f"complete the run (its test and metrics.json) ")
    saved = torch.load(last, weights_only=True)
    assert checkpoint_progress(saved).describe() == "at the end of epoch 0 (step 4; epoch 0 done)"
    kept = saved["callbacks"]["LatestCheckpoint"]["epoch_metrics"]
    assert kept["val/acc"] == pytest.approx(straight["val/acc"])  # the epoch's validation ran
    assert not (run / "metrics.json").exists()
    # before: refused, "the run has finished ... metrics.json would lose its train/* and val/* values"
    assert argv(f"resume={run}")[-1] == f"ckpt_path={last}"
    completed = train(compose_cfg([*TINY, f"ckpt_path={last}"], run))
    assert json.loads((run / "metrics.json").read_text()) == completed
    for key in RESULT:  # the run's result, as if it had never been interrupted
        assert completed[key] == pytest.approx(straight[key], rel=1e-6), key
    assert (completed["epochs"], completed["global_step"]) == (1, 4)
    assert "the run has finished" in message(f"resume={run}")  # now it has


@pytest.mark.slow
def test_sigterm_during_the_test_says_during_its_test(tmp_path, data_dir):
    from highwaylab.train import train

    run = make_run(tmp_path / "run", TINY)
    stop = ["+callbacks.stop._target_=tests.signal_at.SignalRankZeroAtTest"]
    with pytest.raises(RunInterrupted) as err:
        train(compose_cfg([*TINY, *stop], run))
    # before: "before its test" (Lightning resets trainer.testing when the stopped test tears down)
    assert str(err.value).startswith(f"interrupted by SIGTERM after training finished (1 epoch, step 4), "
                                     f"during its test: the final state, of step 4, is saved in "
                                     f"{run}/checkpoints/last.ckpt; complete the run (its test and "
                                     f"metrics.json) ")
    assert not (run / "metrics.json").exists()


@pytest.mark.slow
def test_sigterm_at_the_end_of_an_earlier_epoch_names_that_epoch(tmp_path, data_dir):
    from highwaylab.train import train

    two = [o for o in TINY if o != "trainer.max_epochs=1"] + ["trainer.max_epochs=2"]
    with pytest.raises(RunInterrupted) as err:
        train(compose_cfg([*two, *signal_at(4, int(signal.SIGTERM))], tmp_path))
    # before: "in epoch 1 at step 4", an epoch that had not started
    assert str(err.value).startswith(f"interrupted by SIGTERM at the end of epoch 0, at step 4: its state "
                                     f"at step 4 is saved in {tmp_path}/checkpoints/last.ckpt")


@pytest.mark.slow
def test_train_py_interrupted_after_training_is_completed_by_the_resume_it_names(tmp_path, data_dir):
    def train_py(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "train.py"), *args], capture_output=True,
                              text=True, timeout=300, cwd=tmp_path, env=subprocess_env())

    run = tmp_path / "run"
    first = train_py(*TINY, *signal_at(4, int(signal.SIGINT)), f"hydra.run.dir={run}")
    assert first.returncode == 130, first.stderr[-3000:]
    line = [x for x in (first.stdout + first.stderr).splitlines() if "highwaylab: " in x][-1]
    assert line.endswith(f"highwaylab: interrupted by SIGINT after training finished (1 epoch, step 4), "
                         f"before its test: the final state, of step 4, is saved in {run}/checkpoints/"
                         f"last.ckpt; complete the run (its test and metrics.json) with: python train.py "
                         f"resume={run}.")
    resumed = train_py(f"resume={run}")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    metrics = json.loads((run / "metrics.json").read_text())
    assert set(RESULT) <= set(metrics) and metrics["global_step"] == 4


def test_a_copied_run_folder_is_told_from_a_moved_one(tmp_path):
    # before: a copy and its original, both resumed, continued one W&B id with two histories
    from highwaylab.train import copied_from

    original, copy = tmp_path / "run", tmp_path / "run_copy"
    for folder in (original, copy):
        (folder / "checkpoints").mkdir(parents=True)
        (folder / "checkpoints" / "last.ckpt").write_bytes(b"state")
    checkpoint = {"callbacks": {"ModelCheckpoint{'monitor': 'val/acc', 'mode': 'max'}":
                                {"dirpath": str(original / "checkpoints")}}}
    assert copied_from(checkpoint, str(copy / "checkpoints" / "last.ckpt")) == original
    assert copied_from(checkpoint, str(original / "checkpoints" / "last.ckpt")) is None  # its own folder
    (original / "checkpoints" / "last.ckpt").unlink()  # moved, not copied: the old folder is empty
    assert copied_from(checkpoint, str(copy / "checkpoints" / "last.ckpt")) is None


def test_resume_finds_last_ckpt_where_the_runs_config_put_it(tmp_path):
    # ninth pass: before, a run with callbacks.last_checkpoint.dirpath on another disk was "missing
    # checkpoints/last.ckpt (deleted?)" and pointed at its older best checkpoint
    from highwaylab.utils.resume import last_checkpoint_path, resume_folder

    run, elsewhere = tmp_path / "run", tmp_path / "scratch"
    (run / ".hydra").mkdir(parents=True)
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(["depth=3"]))
    (run / "config_resolved.yaml").write_text(yaml.safe_dump(
        {"paths": {"output_dir": str(run)},
         "callbacks": {"last_checkpoint": {"dirpath": str(elsewhere), "filename": "last"}}}))
    with pytest.raises(ResumeError, match=rf"resume={run}: the run has no checkpoint to resume from "
                                          rf"\({elsewhere}/last.ckpt is missing"):
        resume_folder(str(run))
    elsewhere.mkdir()
    (elsewhere / "last.ckpt").write_bytes(b"state")
    assert resume_folder(str(run)) == run and last_checkpoint_path(run) == elsewhere / "last.ckpt"
    # inside the run's folder as recorded (the folder may have moved since): the run's own checkpoints/
    (run / "config_resolved.yaml").write_text(yaml.safe_dump(
        {"paths": {"output_dir": "/old/place"},
         "callbacks": {"last_checkpoint": {"dirpath": "/old/place/checkpoints", "filename": "last"}}}))
    assert last_checkpoint_path(run) == run / "checkpoints" / "last.ckpt"


def test_a_cut_short_earlier_wandb_segment_is_named_when_the_run_continues(tmp_path, monkeypatch, caplog):
    # tenth-pass note: before, a truncated earlier .wandb file made _step restart without a word
    import logging

    import wandb
    from lightning.pytorch.loggers import WandbLogger

    from highwaylab.utils.resume import continue_wandb_steps

    monkeypatch.setenv("WANDB_MODE", "offline")
    first = wandb.init(project="p", id="cutshort1", dir=str(tmp_path), mode="offline")
    for step in range(50):
        first.log({"x": step})
    first.finish()
    file = next((tmp_path / "wandb").glob("offline-run-*-cutshort1/run-cutshort1.wandb"))
    # wandb-core may still be writing the file when finish() returns on a loaded machine (CI once cut
    # it inside its header: "bad header"): wait until its size holds, then cut it in its records
    size, deadline = -1, time.monotonic() + 60
    while time.monotonic() < deadline and (size != file.stat().st_size or size < 1024):
        size = file.stat().st_size
        time.sleep(0.5)
    # a cut on a record's boundary reads as a complete, shorter file (CI once hit one: no note), so cut
    # inside the record that holds the middle byte. The file is a LevelDB-style log: a 7-byte file header,
    # then records of a 7-byte header (<IHB: checksum, payload length, type) and the payload
    data, start = file.read_bytes(), 7
    assert len(data) == size < 32768  # one 32 KiB block: no block padding to skip

    def payload(at: int) -> int:
        return struct.unpack("<IHB", data[at:at + 7])[1]

    while start + 7 + payload(start) <= size // 2:
        start += 7 + payload(start)
    cut = start + 7 + payload(start) // 2
    with file.open("r+b") as f:
        f.truncate(cut)
    logger = WandbLogger(project="p", id="cutshort1", save_dir=str(tmp_path), offline=True)
    try:
        with caplog.at_level(logging.WARNING, logger="highwaylab.utils.resume"):
            continue_wandb_steps([logger], resumed_id="cutshort1")
        warned = [r.getMessage() for r in caplog.records if "earlier W&B segment" in r.getMessage()]
        assert len(warned) == 1 and warned[0].startswith(
            f"highwaylab: the earlier W&B segment {file}: reached the end of an incomplete .wandb file")
    finally:
        logger.experiment.finish()


def test_an_earlier_wandb_segment_folder_without_its_file_is_skipped_without_a_warning(tmp_path, monkeypatch,
                                                                                        caplog):
    # pass 32, row 1: a resume stopped before W&B wrote its file left an empty offline-run-* folder, and
    # every later resume warned "W&B's _step cannot continue after <it>: no W&B run here", though it did
    import logging

    import wandb
    from lightning.pytorch.loggers import WandbLogger

    from highwaylab.utils.resume import continue_wandb_steps

    monkeypatch.setenv("WANDB_MODE", "offline")
    first = wandb.init(project="p", id="emptyseg1", dir=str(tmp_path), mode="offline")
    for step in range(5):
        first.log({"x": step})
    first.finish()
    (tmp_path / "wandb" / "offline-run-20991231_235959-emptyseg1").mkdir()  # the stopped start's
    logger = WandbLogger(project="p", id="emptyseg1", save_dir=str(tmp_path), offline=True)
    try:
        with caplog.at_level(logging.WARNING, logger="highwaylab.utils.resume"):
            assert continue_wandb_steps([logger], resumed_id="emptyseg1") == 5  # after _step 0 .. 4
        assert not [r.getMessage() for r in caplog.records if "cannot continue" in r.getMessage()]
    finally:
        logger.experiment.finish()


def test_another_runs_checkpoint_copied_over_the_runs_own_is_refused_and_a_copied_folder_is_not(tmp_path):
    # breaking pass 16, row 11: before, resume= trained on from seed 1's weights while the run's
    # records said seed 0, and logged a false "The run's folder has moved: .../run_s1/checkpoints ->"
    other = make_run(tmp_path / "run_s1", [*OWN, "seed=1"])
    run = make_run(tmp_path / "run", [*OWN, "seed=0"])
    last = run / "checkpoints" / "last.ckpt"

    def checkpoint_of(folder: Path) -> None:
        fake_checkpoint(last, epochs=2, step=8, mid_epoch=False)
        state = torch.load(last, weights_only=False)
        state["callbacks"] = {"ModelCheckpoint{'monitor': 'val/acc', 'mode': 'max'}":
                              {"dirpath": str(folder / "checkpoints")}}
        torch.save(state, last)

    checkpoint_of(other)
    assert message(f"resume={run}") == (
        f"resume={run}: checkpoints/last.ckpt was written by another run: its paths point at "
        f"{other}/checkpoints, and {other} still exists with its own record (.hydra/config.yaml: seed=1; "
        f"this run's has seed=0), so resuming would train on that run's weights under this run's record. "
        f"Fix: restore this run's own last.ckpt; or resume that run: python train.py resume={other}; or "
        f"start a new run from its weights: python train.py <overrides> ckpt_path={last}")
    # a copied run folder: the folder its checkpoint was saved in holds the same run
    original = make_run(tmp_path / "original", [*OWN, "seed=0"])
    checkpoint_of(original)
    assert f"ckpt_path={last}" in argv(f"resume={run}")
    # the original extended since (another trainer.max_epochs in its record): still the same run
    extended = make_run(tmp_path / "extended", [*[o for o in OWN if "max_epochs" not in o], "seed=0",
                                                "trainer.max_epochs=9"])
    checkpoint_of(extended)
    assert f"ckpt_path={last}" in argv(f"resume={run}")
    # a moved run folder: nothing is left where it was saved
    checkpoint_of(tmp_path / "gone")
    assert f"ckpt_path={last}" in argv(f"resume={run}")
    checkpoint_of(run)  # its own
    assert f"ckpt_path={last}" in argv(f"resume={run}")


def test_a_run_moved_away_before_a_new_run_took_its_old_name_resumes_as_itself(tmp_path):
    # breaking pass 59, rows 63 and 64 (major): `mv m1 m1keep`, then a new run (seed 1) at m1; before,
    # resume=m1keep was refused "checkpoints/last.ckpt was written by another run: its paths point at
    # .../m1/checkpoints", and, as a copy of m1, would have got a new W&B run
    from highwaylab.train import copied_from

    keep = make_run(tmp_path / "m1keep", [*OWN, "seed=0"])
    new = make_run(tmp_path / "m1", [*OWN, "seed=1"])
    for folder, seed, run_id in ((keep, 0, "keep0001"), (new, 1, "newrun01")):
        (folder / "config_resolved.yaml").write_text(yaml.safe_dump({"seed": seed}))
        (folder / "wandb" / f"offline-run-20261206_120000-{run_id}").mkdir(parents=True)
        last = fake_checkpoint(folder / "checkpoints" / "last.ckpt", epochs=2, step=8, mid_epoch=False)
        state = torch.load(last, weights_only=False)
        state |= {"callbacks": {"ModelCheckpoint{'monitor': 'val/acc', 'mode': 'max'}":
                                {"dirpath": str(tmp_path / "m1" / "checkpoints")}},
                  "logger_versions": {"WandbLogger": run_id}, "run_seed": seed}
        torch.save(state, last)
    last = keep / "checkpoints" / "last.ckpt"
    assert argv(f"resume={keep}")[-1] == f"ckpt_path={last}"
    state = torch.load(last, weights_only=False)
    assert copied_from(state, str(last)) is None  # moved: it continues W&B run keep0001
    # without W&B, its seed tells it (its own, not the new run's)
    shutil.rmtree(keep / "wandb")
    assert argv(f"resume={keep}")[-1] == f"ckpt_path={last}"
    assert copied_from(state, str(last)) is None
    # the new run's checkpoint copied over m1keep's own is still refused
    shutil.copy(new / "checkpoints" / "last.ckpt", last)
    assert message(f"resume={keep}").startswith(
        f"resume={keep}: checkpoints/last.ckpt was written by a run of seed=1 (saved in {new}), but this "
        f"run's config_resolved.yaml has seed=0")


def test_a_run_without_the_checkpoint_callbacks_names_lightnings_default_checkpoint(tmp_path):
    # breaking pass 16, row 44: before, a ~callbacks run (Lightning's default checkpoint in
    # csv/version_0/checkpoints/, named in metrics.json's best_ckpt) "finished without writing a checkpoint"
    run = make_run(tmp_path / "run")
    (run / "metrics.json").write_text(json.dumps({"epochs": 1, "global_step": 3}))
    ckpt = fake_checkpoint(run / "csv" / "version_0" / "checkpoints" / "epoch=0-step=3.ckpt", epochs=1,
                           step=3, mid_epoch=False)
    text = message(f"resume={run}", "trainer.max_epochs=6")
    assert text.startswith(
        f"resume={run}: the run has no checkpoints/last.ckpt (it ran without the callbacks that write it: "
        f"~callbacks, callbacks=none or callbacks.last_checkpoint=null), and resume= continues from it; the "
        f"run's latest checkpoint is csv/version_0/checkpoints/epoch=0-step=3.ckpt: continue from it with: "
        f"python train.py {' '.join(OWN[:-2])} logger=none trainer.max_epochs=6 "), text
    fix = fix_command(text, "continue from it with: ")
    assert f"ckpt_path='{ckpt}'" in fix and f"hydra.run.dir={run}" in fix
    assert argv(*fix)[1:] == fix  # accepted: the run's own settings, its folder


def test_a_run_that_max_time_stopped_before_its_first_step_names_it_and_drops_it_from_the_fix(tmp_path):
    # breaking pass 16, row 40: before, "finished without writing a checkpoint (debug=fast,
    # trainer.fast_dev_run or callbacks without checkpoints)", and the new run kept max_time=0
    run = make_run(tmp_path / "run", [*OWN, "+trainer.max_time=00:00:00:00", "trainer.min_epochs=0"])
    (run / "metrics.json").write_text(json.dumps({"epochs": 0, "global_step": 0, "best_ckpt": None}))
    text = message(f"resume={run}", "trainer.max_epochs=6")
    assert text == (
        f"resume={run}: the run trained 0 steps: trainer.max_time=00:00:00:00 ended it before its first "
        f"step, so it wrote no checkpoint and cannot be resumed or extended; start a new run without that "
        f"time limit (or with a longer one): python train.py {' '.join(OWN[:-2])} logger=none "
        f"trainer.min_epochs=0 trainer.max_epochs=6")
    assert "max_time" not in " ".join(fix_command(text, "(or with a longer one): "))


def config_dir_run(tmp_path: Path) -> tuple[Path, Path]:
    """A run of ``--config-dir <tmp_path>/cfg model=myhighway`` (a copy of highway.yaml there) in
    ``tmp_path/run``, with its record as Hydra writes it (the config sources and group choices in
    ``hydra.yaml``) and a checkpoint: ``(the config folder, the run)``."""
    extra = tmp_path / "cfg"
    (extra / "model").mkdir(parents=True)
    (extra / "model" / "myhighway.yaml").write_text((CONF / "model" / "highway.yaml").read_text())
    own = [*OWN, "model=myhighway"]
    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    (run / ".hydra" / "overrides.yaml").write_text(yaml.safe_dump(own))
    cfg = compose_cfg([*own, f"hydra.searchpath=[file://{extra}]"], run)
    OmegaConf.save(cfg, run / ".hydra" / "config.yaml")
    sources = [{"path": "hydra.conf", "schema": "pkg", "provider": "hydra"},
               {"path": str(CONF), "schema": "file", "provider": "main"},
               {"path": str(extra), "schema": "file", "provider": "command-line"},
               {"path": "", "schema": "structured", "provider": "schema"}]
    runtime = {"config_sources": sources, "choices": {"model": "myhighway", "optim": "sgd"}}
    (run / ".hydra" / "hydra.yaml").write_text(yaml.safe_dump(
        {"hydra": {"overrides": {"hydra": [], "task": own}, "runtime": runtime}}))
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=2, step=8, mid_epoch=False)
    return extra, run


def test_resume_gives_hydra_the_config_dir_the_run_was_started_with(tmp_path):
    # breaking pass, finding 16: before, a run of --config-dir <folder> model=myhighway resumed without
    # it, and after 14 s Hydra's 15 lines "In 'train': Could not find 'model/myhighway'"
    extra, run = config_dir_run(tmp_path)
    rewritten = argv(f"resume={run}", "trainer.max_epochs=6")
    assert rewritten[:3] == ["train.py", "--config-dir", str(extra)] and "model=myhighway" in rewritten
    assert "trainer.max_epochs=6" in rewritten
    # the run's config composes here as Hydra will compose it, so the checks before Hydra run on it
    assert "model.activation=tanh cannot apply to the run's checkpoint" in message(
        f"resume={run}", "model.activation=tanh")
    assert argv("--config-dir", str(extra), f"resume={run}")[:3] == ["train.py", "--config-dir", str(extra)]
    (extra / "model" / "myhighway.yaml").rename(tmp_path / "myhighway.yaml")
    (extra / "model").rmdir()
    extra.rmdir()
    assert message(f"resume={run}") == (
        f"resume={run}: the run was started with --config-dir {extra} (model=myhighway is there), which no "
        f"longer exists. Fix: put that folder back, or give its new place: python train.py --config-dir "
        f"<folder> resume={run}")


def test_a_config_dir_file_edited_since_the_run_is_named(tmp_path):
    # pass 57, row 58: before, "(with conf/ as it is now) ... (was the file or conf/ edited?)", where a file
    # of the run's --config-dir was edited and neither overrides.yaml nor conf/ was
    import os
    import time

    extra, run = config_dir_run(tmp_path)
    mine = extra / "model" / "myhighway.yaml"
    mine.write_text(mine.read_text().replace("gate_bias: auto", "gate_bias: -3"))
    later = time.time() + 5
    os.utime(mine, (later, later))
    record = run / ".hydra" / "overrides.yaml"
    assert message(f"resume={run}", "trainer.max_epochs=6") == (
        f"resume={run}: the run's recorded overrides ({record}, with conf/ and {extra} as they are now) do "
        f"not give the config it ran with ({run}/.hydra/config.yaml): it ran with model.gate_bias=auto "
        f"({mine} changed since the run), and a resume would change it. Fix: restore that file: printf "
        f"'%s\\n' '- trainer=cpu' '- depth=4' '- width=16' '- trainer.max_epochs=5' '- logger=none' "
        f"'- model=myhighway' '- model.gate_bias=auto' > {record}, or set {mine} back as it was")
    fix = message(f"resume={run}", "trainer.max_epochs=6").split("Fix: restore that file: ")[1]
    fix = fix.split(", or")[0]
    subprocess.run(fix, shell=True, check=True)  # the fix, as given, keeps the run's model=myhighway
    assert yaml.safe_load(record.read_text())[-2:] == ["model=myhighway", "model.gate_bias=auto"]
    assert argv(f"resume={run}", "trainer.max_epochs=6")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_a_relative_ckpt_path_is_made_absolute_for_a_run_in_its_own_folder(tmp_path, monkeypatch):
    # pass 30, row 41: before, with hydra.job.chdir=true the run looked for ckpt_path=k3/checkpoints/last.ckpt
    # inside its own folder: "does not exist", though it did where the command was typed
    run = make_run(tmp_path / "k3")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    monkeypatch.chdir(tmp_path)
    new = argv(*OWN, "trainer.max_epochs=6", "ckpt_path=k3/checkpoints/last.ckpt", "hydra.job.chdir=true",
               f"hydra.run.dir={tmp_path}/new", "+logger.csv.save_dir=csvrel")
    # pass 31, row 61: a relative logger save_dir too (before: inside the run folder, recorded as relative)
    assert new == ["train.py", *OWN, "trainer.max_epochs=6", f"ckpt_path={run}/checkpoints/last.ckpt",
                   "hydra.job.chdir=true", f"hydra.run.dir={tmp_path}/new",
                   f"+logger.csv.save_dir={tmp_path}/csvrel"]
    swept = argv("-m", "seed=0,1", "logger=csv", "logger.csv.save_dir=a,b", "hydra.job.chdir=true")
    assert swept[-2:] == ["logger.csv.save_dir=a,b", "hydra.job.chdir=true"]  # a sweep's values: as given
    # pass 44, row 57: a relative checkpoint dirpath too (before: kept relative in the run's overrides, and
    # read again from the folder where each resume was typed)
    assert argv(*OWN, "callbacks.model_checkpoint.dirpath=bestck")[-1] == (
        f"callbacks.model_checkpoint.dirpath={tmp_path}/bestck")
    # pass 92, rows 47, 51, 54 (major): a relative data folder, by each key that sets it; before, kept
    # relative, it passed the early check and failed in the job's own folder (and was recorded so: row 52b)
    for key in ("data.data_dir", "paths.data_dir", "+hydra.job.env_set.HIGHWAYLAB_DATA_DIR"):
        assert argv(*OWN, f"{key}=shared/data", "hydra.job.chdir=true")[-2] == f"{key}={tmp_path}/shared/data"
    assert argv(*OWN, "data.data_dir=/abs/data")[-1] == "data.data_dir=/abs/data"  # absolute: as given


def test_an_extra_override_of_a_key_the_run_added_keeps_its_plus(tmp_path):
    # pass 30, row 51: before, resume=<run> trainer.max_time=... of a run started with +trainer.max_time
    # was refused: "trainer has no key 'max_time'. Fix: ... add it: +trainer.max_time=..."
    own = [*OWN, "+trainer.max_time=00:00:00:01"]
    run = make_run(tmp_path / "timed", own)
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    new = argv(f"resume={run}", "trainer.max_time=00:00:00:03")
    assert new[:-2] == ["train.py", *OWN, "+trainer.max_time=00:00:00:03"]


def test_a_resume_with_another_run_name_is_refused(tmp_path):
    # pass 31, row 68: before, resume=<run> run_name=other renamed the W&B run alone (its folder and record
    # kept the run's name), with no word
    run = make_run(tmp_path / "named")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    assert message(f"resume={run}", "run_name=other") == (
        f"resume={run} run_name=other: a resume keeps the run's name, which its folder, its record and its "
        f"W&B run share; run_name= here would rename the W&B run alone. Fix: leave run_name out")
    own = make_run(tmp_path / "own", [*OWN, "run_name=mine"])  # the run's own name, given again: accepted
    fake_checkpoint(own / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    assert argv(f"resume={own}", "run_name=mine")[-1] == f"ckpt_path={own}/checkpoints/last.ckpt"


def test_a_resume_that_wrote_a_best_checkpoint_but_no_resume_point_sets_its_record_aside(tmp_path):
    # pass 32, row 11 (major): an extension to trainer.max_epochs=3 whose last.ckpt could not be written
    # (a protected file) had written its best epoch_002.ckpt, so its record was kept; the retry after the
    # fix read max_epochs=3 as the run's own and was refused: "the run has finished ... (early stopping or
    # a time limit ended it) ... start a new run"
    import os

    from highwaylab.utils.resume import set_aside_refused_record

    run, started = tmp_path / "run", time.time()
    (run / "checkpoints").mkdir(parents=True)
    (record := run / ".hydra" / "resumed_2026-12-02_10-00-00").mkdir(parents=True)
    (last := run / "checkpoints" / "last.ckpt").write_bytes(b"of step 6")
    os.utime(last, (started - 60, started - 60))  # the checkpoint the resume started from
    (run / "checkpoints" / "epoch_002.ckpt").write_bytes(b"written by this resume")
    # pass 50, row 49: its config_resolved.resumed_<time>.yaml and the CSV logger's new version folder
    # (hparams.yaml alone) stayed, and the next resume named that record as the run's latest
    (resolved := run / "config_resolved.resumed_2026-12-02_10-00-00.yaml").write_text("depth: 3\n")
    (run / "csv" / "version_0").mkdir(parents=True)
    (run / "csv" / "version_0" / "metrics.csv").write_text("step\n0\n")  # the run's own log: kept
    (run / "csv" / "version_1").mkdir()
    (run / "csv" / "version_1" / "hparams.yaml").write_text("{}\n")
    os.utime(run / "csv" / "version_0", (started - 60, started - 60))
    assert set_aside_refused_record(run, ".hydra/resumed_2026-12-02_10-00-00", started) == \
        run / ".hydra" / "refused_2026-12-02_10-00-00"
    assert not record.exists()
    assert not resolved.exists()
    assert (run / ".hydra" / "refused_2026-12-02_10-00-00" / resolved.name).is_file()
    assert sorted(p.name for p in (run / "csv").iterdir()) == ["version_0"]
    # a resume that saved its resume point keeps its record: the checkpoint is its
    (record := run / ".hydra" / "resumed_2026-12-02_11-00-00").mkdir()
    last.write_bytes(b"of step 12")
    assert set_aside_refused_record(run, ".hydra/resumed_2026-12-02_11-00-00", started) is None
    assert record.is_dir()
    # without a last.ckpt (callbacks.last_checkpoint off), any checkpoint it wrote is its
    last.unlink()
    assert set_aside_refused_record(run, ".hydra/resumed_2026-12-02_11-00-00", started) is None


def test_a_run_whose_checkpoints_were_deleted_is_told_so(tmp_path):
    # pass 32, row 15: before, a finished run whose checkpoints/ was deleted (to free space), or replaced
    # by a file, "finished without writing a checkpoint (debug=fast, trainer.fast_dev_run or callbacks
    # without checkpoints)": a false cause
    run = make_run(tmp_path / "run")
    best = run / "checkpoints" / "epoch_000.ckpt"
    (run / "metrics.json").write_text(json.dumps({"epochs": 1, "global_step": 3, "best_ckpt": str(best)}))
    text = message(f"resume={run}", "trainer.max_epochs=3")
    gone = (f"resume={run}: the run's checkpoints are gone (its metrics.json names its best, epoch_000.ckpt, "
            f"and checkpoints/last.ckpt is missing: deleted?), so it cannot be resumed or extended. Fix: put "
            f"them back, or start a new run: python train.py ")
    assert text.startswith(gone), text
    # a copy of the run, whose metrics.json names the original's checkpoint, which is still there
    # (pass 33, row 15: before, the false "finished without writing a checkpoint (debug=fast, ...)")
    best.parent.mkdir()
    best.write_bytes(b"the original's")
    copy = make_run(tmp_path / "copy")
    (copy / "metrics.json").write_text((run / "metrics.json").read_text())
    assert message(f"resume={copy}").startswith(gone.replace(str(run), str(copy))), message(f"resume={copy}")
    shutil.rmtree(best.parent)
    (run / "checkpoints").write_text("")  # a file in the way of the folder
    assert message(f"resume={run}").startswith(
        f"resume={run}: {run}/checkpoints is a file, not the folder where the run keeps its checkpoints, so "
        f"there is none to resume from. Fix: put the run's checkpoints back there (mv {run}/checkpoints "
        f"<elsewhere> first), or start a new run: python train.py ")


def test_a_lock_file_deleted_by_hand_while_its_run_goes_on_still_keeps_others_out(tmp_path):
    # pass 38, rows 43 and 44: before, after rm .hydra/running.lock of a live run, resume= said "it stopped
    # before its first checkpoint" (no checkpoint yet), or trained beside the run (with one): two
    # processes wrote one folder, its train.log interleaved, its metrics.json replaced
    from highwaylab.errors import ConfigError
    from highwaylab.utils.run_lock import LOCK, holder, holding

    run = make_run(tmp_path / "run")
    with holding(run):  # this process runs the run
        (run / LOCK).unlink()
        assert holder(run) == 0
        assert message(f"resume={run}") == (
            f"resume={run}: another process holds {run / '.hydra'}, the lock of a running run (fuser -v "
            f"{run / '.hydra'} names it): wait for it to end, or stop it, then resume the run")
        with pytest.raises(ConfigError) as err:
            with holding(run):  # a ckpt_path= resume's job: its new lock file is free, the folder is not
                pass
        assert str(err.value) == (
            f"hydra.run.dir={run}: another process holds {run / '.hydra'}, the lock of a running run (fuser "
            f"-v {run / '.hydra'} names it): wait for it to end, or stop it, then resume the run")
    assert holder(run) is None  # released with the run's end
    with holding(run):
        assert holder(run) == os.getpid()


def test_a_protected_lock_file_still_keeps_a_second_process_out(tmp_path):
    # pass 66, row 29 (major): a copied run whose .hydra/running.lock was protected (chattr +i; for a user,
    # read-only): before, the lock was skipped, and two resumes of one run trained in its folder at once
    from highwaylab.errors import ConfigError
    from highwaylab.utils.run_lock import LOCK, holder, holding

    from .conftest import protected

    run = make_run(tmp_path / "run")
    (run / LOCK).write_text("4194999\n")  # the copied run's, naming a process that has ended
    with protected(run / LOCK), holding(run):  # the first resume's job: locked without writing its id
        assert holder(run) == 0
        assert message(f"resume={run}") == (
            f"resume={run}: another process holds {run / LOCK}, the lock of a running run (fuser -v "
            f"{run / LOCK} names it): wait for it to end, or stop it, then resume the run")
        with pytest.raises(ConfigError) as err:
            with holding(run):  # a second job, started all the same (a ckpt_path= resume)
                pass
        assert str(err.value).startswith(f"hydra.run.dir={run}: another process holds {run / LOCK}")
    assert holder(run) is None
    assert (run / LOCK).read_text() == "4194999\n"


def test_a_lock_held_by_another_program_does_not_name_the_dead_pid_in_its_file(tmp_path):
    # pass 32, row 44: `flock -x <run>/.hydra/running.lock sleep 25` (another program) while the file
    # still names the finished run's pid: before, "the run is still running in process <that dead pid>
    # ... (kill <it>: ...)"
    import os

    from highwaylab.utils.run_lock import LOCK

    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    (run / LOCK).write_text(gone.stdout.strip())  # the pid of a process that has ended
    holder_process = subprocess.Popen(["flock", "-x", str(run / LOCK), "sleep", "30"])
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # until flock holds it
            probe = subprocess.run(["flock", "-n", "-s", str(run / LOCK), "true"])
            if probe.returncode != 0:
                break
            time.sleep(0.05)
        assert message(f"resume={run}") == (
            f"resume={run}: another process holds {run / LOCK}, the lock of a running run (fuser -v "
            f"{run / LOCK} names it): wait for it to end, or stop it, then resume the run")
        assert os.path.exists(run / LOCK)
    finally:
        holder_process.kill()
        holder_process.wait()


def test_a_file_of_a_run_given_to_resume_is_pointed_at_the_runs_folder(tmp_path):
    # pass 33, row 34: before, resume=<run>/metrics.json (tab completion) got "no such folder", for an
    # existing file of a run
    run = make_run(tmp_path / "run")
    (run / "metrics.json").write_text("{}")
    assert message(f"resume={run}/metrics.json", "trainer.max_epochs=3") == (
        f"resume={run}/metrics.json is a file of the run in {run}: resume= takes the run's folder. Fix: "
        f"resume={run}")
    assert message(f"resume={run}/.hydra/overrides.yaml").endswith(f"Fix: resume={run}")


def test_a_run_copied_without_its_hidden_record_is_told_to_copy_it_back(tmp_path):
    # pass 33, row 7: before, a run copied with `cp -r run/*` (no .hydra/) was "not a run folder ... give
    # the run's folder", which the user had given
    copy = tmp_path / "copy"
    (copy / "checkpoints").mkdir(parents=True)
    (copy / "metrics.json").write_text("{}")
    (copy / "train.log").write_text("")
    assert message(f"resume={copy}", "trainer.max_epochs=5") == (
        f"resume={copy} holds a run's files (checkpoints, metrics.json, train.log) but not its record, the "
        f"hidden .hydra/ folder (copied without it? cp -r <run>/* leaves it out). Fix: copy it back (cp -r "
        f"<the original run>/.hydra {copy}/), then resume again")
    # pass 43, row 36: a file in place of .hydra/: before, "is not a run folder ... give the run's folder"
    (copy / ".hydra").write_text("x\n")
    assert message(f"resume={copy}", "trainer.max_epochs=5") == (
        f"resume={copy} holds a run's files (checkpoints, metrics.json, train.log), but its record "
        f"{copy}/.hydra is a file, not the folder train.py writes. Fix: move it away (mv {copy}/.hydra "
        f"<elsewhere>) and copy the run's record back (cp -r <the original run>/.hydra {copy}/), then resume "
        f"again")


def test_a_multirun_over_several_run_folders_is_told_to_resume_each(tmp_path):
    # pass 33, row 25: before, -m resume=<a>,<b> (two existing runs) got "resume=<a>,<b>: no such folder"
    a, b = make_run(tmp_path / "a"), make_run(tmp_path / "b")
    assert message("-m", f"resume={a},{b}", "trainer.max_epochs=6") == (
        f"resume={a},{b}: resume= continues one run, and -m does not sweep it (a multirun's jobs are new "
        f"runs). Fix: resume each in turn: python train.py resume={a} trainer.max_epochs=6; python train.py "
        f"resume={b} trainer.max_epochs=6")


def test_a_resume_from_an_older_state_than_the_run_reached_is_warned_about(tmp_path):
    # pass 33, row 38: before, a last.ckpt restored from an older backup (step 6, the run had reached step
    # 12) was trained on again without a word, and the run's W&B history repeated steps 6..12
    from highwaylab.train import older_state

    (tmp_path / "metrics.json").write_text(json.dumps({"global_step": 12}))
    assert older_state(tmp_path, {"global_step": 6}) == (
        "highwaylab: the checkpoint this resume goes on from is of step 6, but the run had reached step 12 "
        "(its metrics.json): it trains again from the older state (restored from a backup?), and its W&B "
        "history repeats steps 6..12")
    assert older_state(tmp_path, {"global_step": 12}) is None  # an extension of the finished run
    assert older_state(tmp_path, {"global_step": 15}) is None  # a resume past it (an interrupted extension)
    assert older_state(tmp_path / "new", {"global_step": 6}) is None  # a new run: no metrics.json yet


@pytest.mark.parametrize("given", [["trainer.max_steps=20"],
                                   ["trainer.max_steps=15", "trainer.max_epochs=6"]])
def test_the_extension_of_a_run_finished_at_an_epochs_end_goes_on_by_epochs(given, tmp_path):
    # pass 50, row 51 (major): before, resume=<finished run> trainer.max_steps=8 was told to extend it with
    # "... trainer.max_steps=8 trainer.max_epochs=7", a step limit from an epoch's end, which is refused
    run = make_run(tmp_path / "run")  # its own trainer.max_epochs=5: finished at step 15
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=15, mid_epoch=False)
    (run / "metrics.json").write_text(json.dumps({"global_step": 15, "test/acc": 0.5}))
    text = message(f"resume={run}", *given)
    assert text.endswith(f"To train it further, extend it: python train.py resume={run} trainer.max_epochs=7 "
                         f"trainer.max_steps=-1"), text
    assert argv(*fix_command(text, "extend it: "))[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"  # accepted


def test_the_fix_for_a_step_limit_below_the_checkpoint_keeps_the_other_overrides(tmp_path):
    # pass 34, row 29: before, `resume=<run> trainer.max_epochs=3 trainer.max_steps=4` was told "python
    # train.py resume=<run> trainer.max_steps=7", which dropped max_epochs=3 and was refused as finished
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=2, step=6, mid_epoch=False)
    (run / "metrics.json").write_text(json.dumps({"global_step": 6, "test/acc": 0.5}))
    text = message(f"resume={run}", "trainer.max_epochs=3", "trainer.max_steps=4")
    # pass 41, row 36 (major): a step limit from an epoch's end trained an epoch too few (Lightning), so the
    # fix goes on by epochs
    assert text.endswith(f"nothing would be trained. Lightning cannot go on by a step limit from an "
                         f"epoch's end: continue it by epochs, e.g. python train.py resume={run} "
                         f"trainer.max_epochs=3 trainer.max_steps=-1"), text
    assert argv(*fix_command(text, "e.g. "))[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"  # accepted
    with pytest.raises(ResumeError) as err:  # the step limit itself, from an epoch's end
        argv(f"resume={run}", "trainer.max_epochs=3", "trainer.max_steps=7")
    assert str(err.value).startswith(
        f"resume={run}: trainer.max_steps=7 with a checkpoint saved at the end of an epoch (")
    assert str(err.value).endswith(
        "): Lightning then replays that finished epoch, empty, and counts it twice, so the run would train "
        "an epoch too few and stop saying max_epochs was reached. Fix: limit it by epochs alone: python "
        f"train.py resume={run} trainer.max_epochs=3 trainer.max_steps=-1")


def test_two_copies_of_a_deleted_run_do_not_continue_one_wandb_run(tmp_path, caplog):
    # pass 35, row 15: before, with the original folder deleted, copy_a and copy_b both resumed into
    # W&B run abc123, so wandb sync merged two histories into it
    from omegaconf import OmegaConf

    from highwaylab.train import continue_wandb_run

    original, copy_a, copy_b = tmp_path / "run", tmp_path / "copy_a", tmp_path / "copy_b"
    for folder in (copy_a, copy_b):
        (folder / "checkpoints").mkdir(parents=True)
        (folder / "checkpoints" / "last.ckpt").write_bytes(b"state")
        (folder / "wandb" / "offline-run-20261202_120000-abc123").mkdir(parents=True)
    checkpoint = {"callbacks": {"ModelCheckpoint{'monitor': 'val/acc', 'mode': 'max'}":
                                {"dirpath": str(original / "checkpoints")}},
                  "logger_versions": {"WandbLogger": "abc123"}}

    def resumed(folder):
        cfg = OmegaConf.create({"logger": {"wandb": {"id": None}}, "paths": {"output_dir": str(folder)}})
        return continue_wandb_run(cfg, checkpoint, str(folder / "checkpoints" / "last.ckpt")), cfg

    with caplog.at_level("WARNING"):
        run_id, cfg = resumed(copy_a)
    assert run_id is None and cfg.logger.wandb.id is None
    assert (f"{copy_a} and {copy_b} are copies of one run (saved in {original}, gone since), which wrote W&B "
            f"run abc123: this run gets a new W&B run, so that wandb sync does not merge two histories into "
            f"W&B run abc123 (to continue it, resume one copy after moving the others out of {tmp_path})"
            ) in caplog.text
    shutil.rmtree(copy_b)  # one copy left: a moved run, which continues its W&B run
    run_id, cfg = resumed(copy_a)
    assert run_id == "abc123" and cfg.logger.wandb.id == "abc123" and cfg.logger.wandb.resume == "allow"


def test_a_resume_without_a_wandb_logger_says_where_the_wandb_run_stops(tmp_path, caplog, monkeypatch):
    # pass 37, row 22: before, resume=<run> logger=csv gave no word that W&B run abc123 was left behind
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    from highwaylab.train import continue_wandb_run

    monkeypatch.setattr(HydraConfig.instance(), "cfg", None)  # outside Hydra (an earlier test's choices)

    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    checkpoint = {"global_step": 430, "logger_versions": {"WandbLogger": "abc123"}}
    cfg = OmegaConf.create({"logger": {"csv": {"save_dir": str(run)}}, "paths": {"output_dir": str(run)}})
    with caplog.at_level("WARNING"):
        assert continue_wandb_run(cfg, checkpoint, str(run / "checkpoints" / "last.ckpt")) is None
    assert caplog.messages == [
        "highwaylab: the run logged to W&B run abc123, and this resume has no W&B logger (the logger group "
        "holds none): W&B run abc123 gets none of the steps trained now (from step 430); they are only in "
        "this run's metrics.json, train.log and the loggers given. To continue the W&B run, resume with "
        "logger=wandb"]
    caplog.clear()
    cfg = OmegaConf.create({"logger": {"wandb": {"id": None, "mode": "disabled"}},
                            "paths": {"output_dir": str(run)}})
    with caplog.at_level("WARNING"):  # pass 88, row 67: before, W&B disabled left it behind without a word
        assert continue_wandb_run(cfg, checkpoint, str(run / "checkpoints" / "last.ckpt")) is None
    assert caplog.messages == [
        "highwaylab: the run logged to W&B run abc123, and this resume has logger.wandb.mode=disabled: W&B "
        "run abc123 gets none of the steps trained now (from step 430); they are only in this run's "
        "metrics.json, train.log and the other loggers. To continue the W&B run, resume without "
        "logger.wandb.mode=disabled"]
    caplog.clear()
    cfg = OmegaConf.create({"logger": {"wandb": {"id": None}}, "paths": {"output_dir": str(run)}})
    with caplog.at_level("WARNING"):  # with its W&B logger: continued, without a warning
        assert continue_wandb_run(cfg, checkpoint, str(run / "checkpoints" / "last.ckpt")) == "abc123"
    assert caplog.messages == []
    # pass 43, row 42: the run trained without W&B, and this resume has it: before, its new W&B run began
    # at step 430 without a word
    cfg = OmegaConf.create({"logger": {"wandb": {"id": None}}, "paths": {"output_dir": str(run)}})
    with caplog.at_level("WARNING"):
        assert continue_wandb_run(cfg, {"global_step": 430}, str(run / "checkpoints" / "last.ckpt")) is None
    assert caplog.messages == [
        "highwaylab: the run trained steps 0 to 430 without a W&B logger (its checkpoint records no W&B "
        "run), so the W&B run it starts now begins at step 430: the earlier steps are only in its "
        "metrics.json, train.log and the loggers it had then"]
    # pass 44, row 51: the W&B run continued in another project: before, a second run there on sync
    from highwaylab.errors import ConfigError

    (run / "config_resolved.yaml").write_text("logger:\n  wandb:\n    project: highwaylab\n")
    cfg = OmegaConf.create({"logger": {"wandb": {"id": None, "project": "other"}},
                            "paths": {"output_dir": str(run)}})
    with pytest.raises(ConfigError) as err:
        continue_wandb_run(cfg, checkpoint, str(run / "checkpoints" / "last.ckpt"))
    assert str(err.value) == (
        "logger.wandb.project=other: the run's W&B run abc123 is in project highwaylab, and a resume "
        "continues it; in another project its steps from here would be a second run, apart from the first. "
        "Fix: leave logger.wandb.project out (or start a new run in that project)")
    cfg.logger.wandb.project = "highwaylab"
    assert continue_wandb_run(cfg, checkpoint, str(run / "checkpoints" / "last.ckpt")) == "abc123"


def test_a_new_run_from_a_copied_runs_checkpoint_is_told_it_is_another_runs(tmp_path, caplog):
    # pass 35b, row 12: before, "<copy> is a copy of the run in <run> ...: this run gets a new W&B run", where
    # "this run" read as the copy, not the new run that was starting
    from omegaconf import OmegaConf

    from highwaylab.train import continue_wandb_run

    original, copy, new = tmp_path / "run", tmp_path / "copy", tmp_path / "new"
    for folder in (original, copy):
        (folder / "checkpoints").mkdir(parents=True)
        (folder / "checkpoints" / "last.ckpt").write_bytes(b"state")
    checkpoint = {"callbacks": {"ModelCheckpoint{'monitor': 'val/acc', 'mode': 'max'}":
                                {"dirpath": str(original / "checkpoints")}},
                  "logger_versions": {"WandbLogger": "abc123"}}
    cfg = OmegaConf.create({"logger": {"wandb": {"id": None}}, "paths": {"output_dir": str(new)}})
    with caplog.at_level("WARNING"):
        assert continue_wandb_run(cfg, checkpoint, str(copy / "checkpoints" / "last.ckpt")) is None
    assert caplog.messages == [
        f"highwaylab: ckpt_path={copy}/checkpoints/last.ckpt is a checkpoint of another run folder, not of "
        f"this run's ({new}): this run gets a new W&B run, and W&B run abc123 stays that run's (to continue "
        f"that run itself: python train.py resume=<its folder>)"]


def test_a_renamed_checkpoint_folder_is_named_with_the_mv_that_puts_it_back(tmp_path):
    # pass 35b, row 31: before, "the run has no checkpoints/last.ckpt (it ran without the callbacks that write
    # it ...)", of a run whose checkpoints/ had been renamed
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=430, mid_epoch=False)
    (run / "checkpoints").rename(run / "ckpts")
    assert message(f"resume={run}") == (
        f"resume={run}: the run's checkpoint folder checkpoints/ is missing, and ckpts/ holds a last.ckpt "
        f"(renamed or moved?): resume= reads the run's state from checkpoints/last.ckpt. Fix: cd {run} && mv "
        f"ckpts checkpoints, then resume again")
    (run / "checkpoints").write_text("x")  # pass 37, row 45: a file in its place; the fix was refused
    assert message(f"resume={run}") == (
        f"resume={run}: the run's checkpoint folder checkpoints/ is a file, not a folder, and ckpts/ holds a "
        f"last.ckpt (renamed or moved?): resume= reads the run's state from checkpoints/last.ckpt. Fix: cd "
        f"{run} && mv checkpoints checkpoints.file && mv ckpts checkpoints, then resume again")
    (run / "checkpoints").rename(run / "checkpoints.file")
    (run / "ckpts").rename(run / "checkpoints")  # the fix
    assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_a_run_nested_inside_another_is_not_offered_as_its_checkpoint(tmp_path):
    # pass 37, row 53: before, a run whose checkpoints were gone was offered checkpoints/newrun/checkpoints/
    # last.ckpt, another run's (nested inside it), and continuing from it overwrote its metrics.json
    run = make_run(tmp_path / "run")
    (run / "metrics.json").write_text(json.dumps({"global_step": 450}))
    nested = make_run(run / "checkpoints" / "newrun")
    fake_checkpoint(nested / "checkpoints" / "last.ckpt", epochs=1, step=3, mid_epoch=False)
    text = message(f"resume={run}")
    assert "newrun" not in text and "finished without writing a checkpoint" in text


def test_a_multiruns_folder_given_to_resume_names_its_jobs(tmp_path):
    # pass 37, row 56: before, "is not a run folder ... e.g. resume=outputs/runs/<date>_<time>_<name>_<hex>"
    sweep = tmp_path / "sweep"
    for name in ("0_a", "1_b"):
        make_run(sweep / name)
    (sweep / "multirun.yaml").write_text("hydra: {}\n")
    head = (f"resume={sweep} is the folder of a multirun, whose jobs (0_a, 1_b) are runs of their own: "
            f"resume= continues one of them. Fix: ")
    (sweep / "0_a" / "metrics.json").write_text(json.dumps({"epochs": 4, "global_step": 20}))
    assert message(f"resume={sweep}") == f"{head}e.g. resume={sweep}/1_b (it has no result yet)"
    # pass 75, row 48: every job finished; before, "e.g. resume=<sweep>/0_a", which resume= then refused as
    # finished, naming the extension only then
    (sweep / "1_b" / "metrics.json").write_text(json.dumps({"epochs": 4, "global_step": 20}))
    assert message(f"resume={sweep}") == (f"{head}both its jobs have finished (metrics.json); to train one "
                                          f"further, extend it, e.g. python train.py resume={sweep}/0_a "
                                          f"trainer.max_epochs=6")


def test_a_resume_that_validates_on_another_part_of_the_set_says_so(tmp_path):
    # pass 42, row 54: before, resume=<run> trainer.limit_val_batches=null (the run had validated on 2
    # batches) chose its best checkpoint against val/acc over 256 examples without a word
    from highwaylab.train import val_set_change

    run = make_run(tmp_path / "run", [*OWN, "trainer.limit_val_batches=2"])
    OmegaConf.save(OmegaConf.create({"trainer": {"limit_val_batches": 2}}), run / "config_resolved.yaml")
    checkpoint = {"global_step": 6}
    whole = compose_cfg([*OWN, "trainer.limit_val_batches=null"], run)
    assert val_set_change(whole, run, checkpoint) == (
        "highwaylab: trainer.limit_val_batches=null: the run validated with trainer.limit_val_batches=2 up "
        "to step 6 (its config_resolved.yaml), so its val/acc_best and best checkpoint compare val/acc over "
        "two parts of the validation set from here. To keep one, resume with trainer.limit_val_batches=2")
    assert val_set_change(compose_cfg([*OWN, "trainer.limit_val_batches=2"], run), run, checkpoint) is None
    # the latest record counts; null and 1.0 are both the whole set
    OmegaConf.save(OmegaConf.create({"trainer": {"limit_val_batches": None}}),
                   run / "config_resolved.resumed_2026-12-03_10-00-00.yaml")
    assert val_set_change(compose_cfg([*OWN, "trainer.limit_val_batches=1.0"], run), run, checkpoint) is None
    assert "validated with trainer.limit_val_batches=null up to step 6 (its config_resolved.resumed_" in (
        val_set_change(compose_cfg([*OWN, "trainer.limit_val_batches=0.5"], run), run, checkpoint))
    # a new run from another run's checkpoint: no record in its folder, no warning
    assert val_set_change(compose_cfg(OWN, tmp_path), tmp_path / "new", checkpoint) is None


def test_a_sweep_beside_resume_of_a_key_the_run_set_names_the_runs_own_value(tmp_path):
    # pass 46, rows 54-55 (major): before, resume=<job> 'trainer.limit_train_batches=3,4' (a sweep's values
    # pasted) got "Fix: give one value (trainer.limit_train_batches=3)", the list's first, while the job had
    # run with 4: the fix changed its epoch size mid-run without a word
    from highwaylab.utils.overrides import OverrideError, check_command_line

    run = make_run(tmp_path / "1_job", [*OWN, "trainer.limit_train_batches=4"])
    with pytest.raises(OverrideError) as err:
        check_command_line(["train.py", f"resume={run}", "trainer.max_epochs=6",
                            "trainer.limit_train_batches=3,4"], CONF)
    assert str(err.value) == (
        "trainer.limit_train_batches=3,4: a list of values is a sweep, and resume= continues one run, which "
        "ran with trainer.limit_train_batches=4. Fix: leave trainer.limit_train_batches out (resume= keeps "
        "the run's own value)")
    with pytest.raises(OverrideError) as err:  # a key that extends the run: one value, as before
        check_command_line(["train.py", f"resume={run}", "trainer.max_epochs=6,7"], CONF)
    assert str(err.value) == ("trainer.max_epochs=6,7: a list of values is a sweep, and resume= continues "
                              "one run. Fix: give one value (trainer.max_epochs=6)")


def test_a_resume_that_trains_on_another_number_of_batches_per_epoch_says_so(tmp_path):
    # pass 46, row 55 (major): before, resume=<run> trainer.limit_train_batches=3 of a run that had trained
    # 4 batches per epoch trained its later epochs on 3 without a word, filed by the report under 4
    from highwaylab.train import train_set_change

    run = make_run(tmp_path / "run", [*OWN, "trainer.limit_train_batches=4"])
    OmegaConf.save(OmegaConf.create({"trainer": {"limit_train_batches": 4}}), run / "config_resolved.yaml")
    checkpoint = {"global_step": 4}
    assert train_set_change(compose_cfg([*OWN, "trainer.limit_train_batches=3"], run), run, checkpoint) == (
        "highwaylab: trainer.limit_train_batches=3: the run trained with trainer.limit_train_batches=4 up to "
        "step 4 (its config_resolved.yaml), so its epochs from here have another number of batches (the "
        "report files the run under its own overrides). To keep one, resume with "
        "trainer.limit_train_batches=4")
    same = compose_cfg([*OWN, "trainer.limit_train_batches=4"], run)
    assert train_set_change(same, run, checkpoint) is None
    assert train_set_change(compose_cfg(OWN, tmp_path), tmp_path / "new", checkpoint) is None  # no record


def test_a_resume_that_leaves_out_a_logger_the_run_had_says_its_log_stops(tmp_path):
    # pass 46, row 68: before, resume=<run> logger=csv of a 'logger=[csv,tensorboard]' run left its
    # TensorBoard log at the checkpoint's step without a word (a dropped W&B logger is named elsewhere)
    from highwaylab.train import dropped_loggers

    both = [*OWN[:-1], "logger=[csv,tensorboard]"]
    run = make_run(tmp_path / "run", both)
    OmegaConf.save(compose_cfg(both, run), run / "config_resolved.yaml")
    checkpoint = {"global_step": 85}
    assert dropped_loggers(compose_cfg([*OWN[:-1], "logger=csv"], run), run, checkpoint) == (
        "highwaylab: the run logged with logger.tensorboard up to step 85 (its config_resolved.yaml), and "
        "this resume has logger=csv: that log gets none of the steps trained now. To keep it, resume with "
        "logger=[csv,tensorboard]")
    assert dropped_loggers(compose_cfg(OWN, run), run, checkpoint) == (  # logger=none
        "highwaylab: the run logged with logger.csv, logger.tensorboard up to step 85 (its "
        "config_resolved.yaml), and this resume has no logger: those logs get none of the steps trained now. "
        "To keep them, resume with logger=[csv,tensorboard]")
    assert dropped_loggers(compose_cfg(both, run), run, checkpoint) is None
    assert dropped_loggers(compose_cfg(OWN, tmp_path), tmp_path / "new", checkpoint) is None  # no record


def test_a_finished_run_whose_metrics_json_was_edited_is_tested_again_by_resume(tmp_path):
    # pass 43, row 16: before, the report's fix for a metrics.json with test/acc NaN ("python train.py
    # resume=<job> tests it again") was refused: "the run has finished ... metrics.json already holds its
    # result"
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=20, mid_epoch=False)
    result = {"global_step": 20, "depth": 4, "train/loss": 0.5, "test/acc": 0.9}
    (run / "metrics.json").write_text(json.dumps(result))
    assert "the run has finished" in message(f"resume={run}")
    for edited in (float("nan"), "abc"):
        (run / "metrics.json").write_text(json.dumps(result | {"test/acc": edited}))
        assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_a_checkpoint_with_the_state_of_callbacks_this_run_lacks_is_one_info_line(tmp_path):
    # pass 43, row 26: before, a new run from a callbacks=default run's checkpoint with callbacks=minimal
    # logged Lightning's raw "callbacks used to create the checkpoint need to be provided ... Please add
    # the following callbacks: ['GateStatsMonitor', 'LayerGradNormMonitor']", which it did not need
    import warnings

    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from lightning.pytorch.trainer.call import _call_callbacks_on_load_checkpoint

    from highwaylab.train import unused_callback_states

    kept = ModelCheckpoint(dirpath=tmp_path, monitor="val/acc", mode="max")
    trainer = L.Trainer(callbacks=[kept], logger=False, enable_progress_bar=False, default_root_dir=tmp_path)
    checkpoint = {"pytorch-lightning_version": "2.6.6", "callbacks": {
        "GateStatsMonitor": {}, "LayerGradNormMonitor": {}, kept.state_key: {}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert unused_callback_states(checkpoint, trainer) == (
            "the checkpoint holds the state of callbacks that this run does not use (GateStatsMonitor, "
            "LayerGradNormMonitor): it is left out, and the run goes on without them")
        _call_callbacks_on_load_checkpoint(trainer, checkpoint)  # Lightning's own check, as at fit
    assert not [w for w in caught if "callbacks used to create the checkpoint" in str(w.message)]
    del checkpoint["callbacks"]["GateStatsMonitor"], checkpoint["callbacks"]["LayerGradNormMonitor"]
    assert unused_callback_states(checkpoint, trainer) is None


@pytest.mark.parametrize(("override", "recorded", "frozen"), [
    ("run_name=${now:%H:%M:%S}", {"run_name": "01:02:03"}, "run_name='01:02:03'"),
    ("tags=[t${now:%H%M}]", {"tags": ["t0102"]}, "tags=[t0102]"),
    ('seed="${oc.decode:${now:%S}}"', {"seed": 45}, "seed=45"),
    ("run_name=${now:%S}", {"run_name": "07"}, "run_name='07'"),  # a string, not the number 7
    ("+trainer.max_time='00:00:${now:%M}:00'", {"trainer": {"max_time": "00:00:07:00"}},
     "+trainer.max_time='00:00:07:00'"),  # a key added with '+' keeps it
])
def test_an_override_that_reads_the_clock_is_resumed_with_the_value_the_run_used(
        override, recorded, frozen, tmp_path):
    # pass 88, rows 24, 66, 69 (major): before, "the run's override run_name=${now:%H:%M} resolves to
    # run_name=13:14 now, but the run used run_name=13:13 ... Fix: set the environment as when the run
    # started", which cannot work: such a run could not be resumed at all
    run = make_run(tmp_path / "run", [*OWN, override])
    (run / "config_resolved.yaml").write_text(yaml.safe_dump({"depth": 4, "width": 16, **recorded}))
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=2, step=20, mid_epoch=False)
    given = argv(f"resume={run}", "trainer.max_epochs=8")
    assert frozen in given and override not in given, given
    assert given[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"
    key = frozen.split("=", 1)[0].lstrip("+")
    composed = compose_cfg([o for o in given if "=" in o and not o.startswith(("hydra.", "ckpt_path"))],
                           tmp_path / "composed")
    assert OmegaConf.select(composed, key) == OmegaConf.select(OmegaConf.create(recorded), key)  # read back


def test_a_checkpoint_or_a_wildcard_given_to_resume_gets_a_fix_that_keeps_the_other_overrides(tmp_path):
    # pass 90, row 50: before, "resume=<ckpt> is a checkpoint: resume= takes the run's folder, resume=<run>",
    # which dropped trainer.max_epochs=8; row 49: resume=<runs>/base*, which the shell leaves as it is, was
    # "no such folder" alone
    runs = tmp_path / "runs"
    for name in ("base", "base2"):
        run = make_run(runs / name)
        fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=2, step=20, mid_epoch=False)
    (runs / "based_on_nothing").mkdir()  # not a run: not named
    assert message(f"resume={runs}/base2/checkpoints/last.ckpt", "trainer.max_epochs=8") == (
        f"resume={runs}/base2/checkpoints/last.ckpt is a checkpoint: resume= takes the run's folder: python "
        f"train.py resume={runs}/base2 trainer.max_epochs=8")
    assert message(f"resume={runs}/base*", "trainer.max_epochs=8") == (
        f"resume={runs}/base*: the shell does not expand a wildcard inside an override, and resume= takes "
        f"one run's folder; it matches 2: {runs}/base, {runs}/base2. Fix: name one, e.g. python train.py "
        f"resume={runs}/base2 trainer.max_epochs=8")
    assert argv(f"resume={runs}/base2", "trainer.max_epochs=8")[-1] == (  # the fix is accepted
        f"ckpt_path={runs}/base2/checkpoints/last.ckpt")


def test_a_signed_extension_on_resume_is_named_as_the_total_it_is(tmp_path):
    # pass 90, row 69: before, trainer.max_epochs=+2 on a finished 1-epoch run trained 1 epoch more, where 2
    # more were meant, without a word (Hydra reads +2 as the number 2)
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=50, mid_epoch=False)
    assert message(f"resume={run}", "trainer.max_epochs=+2") == (
        f"resume={run} trainer.max_epochs=+2: the '+' sign does not add: trainer.max_epochs is the run's "
        f"total (2 epochs in all), and the run has done 5. Fix: trainer.max_epochs=7 for 2 more")
    assert message(f"resume={run}", "trainer.max_steps=+100").endswith(
        "the run has done 50. Fix: trainer.max_steps=150 for 100 more")
    assert argv(f"resume={run}", "trainer.max_epochs=7")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_a_logger_choice_kept_from_an_earlier_resume_is_named_so(tmp_path, caplog, monkeypatch):
    # pass 90, row 39: a resume with logger=none, then one without a logger choice: before, the second said
    # "this resume has no W&B logger (logger=none)", a value the user had not typed; and once W&B was back,
    # the steps trained without it were said to be lost to a kill
    from highwaylab.train import continue_wandb_run
    from highwaylab.utils import resume

    run = tmp_path / "run"
    cfg = compose_cfg([*OWN[:-1], "logger=none"], run)  # the run's record now chooses logger=none
    monkeypatch.setattr(resume, "GIVEN_WITH_RESUME", ["trainer.max_epochs=2"])  # not typed now
    (run / "checkpoints").mkdir(parents=True)
    checkpoint = {"global_step": 700, "logger_versions": {"WandbLogger": "f6jp66t1"}}
    with caplog.at_level("WARNING"):
        assert continue_wandb_run(cfg, checkpoint, str(run / "checkpoints" / "last.ckpt")) is None
    assert caplog.messages[0].startswith(
        "highwaylab: the run logged to W&B run f6jp66t1, and this resume has no W&B logger (logger=none, "
        "kept from an earlier resume of the run): W&B run f6jp66t1 gets none of the steps trained now")
    for stamp, logger in (("2026-12-07_13-59-02", "none"), ("2026-12-07_13-59-34", "wandb")):
        record = run / ".hydra" / f"resumed_{stamp}" / "hydra.yaml"
        record.parent.mkdir(parents=True)
        record.write_text(yaml.safe_dump({"hydra": {"runtime": {"choices": {"logger": logger}}}}))
    assert resume._resumed_without_wandb(run) == "logger=none"
    (run / ".hydra" / "resumed_2026-12-07_13-59-02" / "hydra.yaml").write_text(yaml.safe_dump(
        {"hydra": {"runtime": {"choices": {"logger": "wandb"}}}}))
    assert resume._resumed_without_wandb(run) is None  # every resume had W&B: a gap is a loss


def timed_checkpoint(path: Path, seconds: float) -> Path:
    """A mid-epoch checkpoint (epoch 2, step 521) whose Lightning ``Timer`` has counted ``seconds`` of
    training, as the Trainer's timer for ``trainer.max_time`` saves it."""
    fake_checkpoint(path, epochs=2, step=521, mid_epoch=True, batches=91)
    checkpoint = torch.load(path, weights_only=False)
    elapsed = {"train": seconds, "sanity_check": 0, "validate": 0.004, "test": 0, "predict": 0}
    checkpoint["callbacks"] = {"Timer": {"time_elapsed": elapsed}}
    torch.save(checkpoint, path)
    return path


def test_a_time_limit_the_checkpoints_timer_has_spent_is_refused_with_more_time(tmp_path):
    # pass 87, rows 60 and 68 (major): before, resume= with trainer.max_epochs=8 alone, and a new run's
    # ckpt_path= with the same limit, each stopped at once ("Time limit reached"), trained nothing, exited
    # 0 and wrote a result (the new run's best_ckpt: the other run's file)
    own = [*OWN, "+trainer.max_time={minutes: 0.03}", "trainer.min_epochs=0"]
    run = make_run(tmp_path / "run", own)
    ckpt = timed_checkpoint(run / "checkpoints" / "last.ckpt", 1.81)
    spent = ("trainer.max_time={minutes:0.03} (1.8 s) is already spent: the checkpoint's timer has counted "
             "1.8 s of training, and Lightning counts on from it, so the run would stop before its first "
             "step and train nothing. Fix: ")
    assert message(f"resume={run}", "trainer.max_epochs=8") == (
        f"resume={run}: {spent}give it more time: python train.py resume={run} trainer.max_epochs=8 "
        f"trainer.max_time=00:00:00:04 (or trainer.max_time=null for no limit)")
    for more in ("trainer.max_time=00:00:00:04", "trainer.max_time=null"):  # each fix is accepted
        assert argv(f"resume={run}", "trainer.max_epochs=8", more)[-1] == f"ckpt_path={ckpt}"
    new = ["trainer=cpu", "depth=4", "width=16", "logger=none", "+trainer.max_time={minutes: 0.03}",
           "trainer.min_epochs=0", f"ckpt_path={ckpt}", f"hydra.run.dir={tmp_path / 'new'}"]
    assert message(*new) == (f"ckpt_path={ckpt}: {spent}a longer limit in place of the given one, e.g. "
                             f"+trainer.max_time=00:00:00:04, or +trainer.max_time=null for none")
    assert not (tmp_path / "new").exists()  # refused before the run's folder
    for more in ("+trainer.max_time=00:00:00:04", "+trainer.max_time=null"):
        assert argv(*new[:4], more, *new[5:])[-1] == f"hydra.run.dir={tmp_path / 'new'}"
    timed_checkpoint(ckpt, 1.79)  # time left: the run trains on
    assert argv(f"resume={run}", "trainer.max_epochs=8")[-1] == f"ckpt_path={ckpt}"


@pytest.mark.parametrize("value", ["false", "0", "True", "no"])
def test_resume_given_a_switch_says_it_takes_a_folder_and_how_not_to_resume(value, tmp_path, monkeypatch):
    # pass 87, rows 09-10: before, "resume=false: no such folder", with no word of how not to resume
    monkeypatch.chdir(tmp_path)
    assert message(f"resume={value}") == (
        f"resume={value}: resume takes the folder of a run to continue (e.g. resume=outputs/runs/<run>), "
        f"not a switch. For a new run, leave resume out (or give resume=null)")
    make_run(tmp_path / value, OWN)  # a run folder of that name is one
    assert "not a switch" not in message(f"resume={value}")


def test_a_run_its_time_limit_stopped_is_continued_with_more_time(tmp_path):
    # pass 44, row 49: before, "the run has finished ... To train it further, start a new run", also with a
    # larger trainer.max_time; Lightning's timer goes on from the time the checkpoint counted
    own = [*OWN, "+trainer.max_time=00:00:00:04", "trainer.min_epochs=0"]
    run = make_run(tmp_path / "run", own)
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=0, step=120, mid_epoch=True, batches=120)
    (run / "metrics.json").write_text(json.dumps({"global_step": 120}))
    assert message(f"resume={run}").endswith(
        f"To train it further, give it more time: python train.py resume={run} trainer.max_time=00:00:00:08")
    for more in ("trainer.max_time=00:00:00:08", "~trainer.max_time"):
        assert argv(f"resume={run}", more)[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"
    # ~trainer.max_time drops the run's +trainer.max_time and goes no further: after it, Hydra refused it
    # ("Could not delete from config"), and the run did not start
    assert not [o for o in argv(f"resume={run}", "~trainer.max_time") if "max_time" in o]
    assert message(f"resume={run}", "trainer.max_time=00:00:00:03").endswith(  # less time: refused
        "trainer.max_time=00:00:00:08")


def test_a_moved_run_whose_dirpath_was_written_in_full_is_told_the_new_one(tmp_path):
    # pass 44, row 56: before, the moved run's new best checkpoint went to a new folder at its old place
    old = tmp_path / "x1"
    run = make_run(tmp_path / "x1m", [*OWN, f"callbacks.model_checkpoint.dirpath={old}/checkpoints"])
    (run / "config_resolved.yaml").write_text(f"paths:\n  output_dir: {old}\n")  # where it ran
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    assert message(f"resume={run}", "trainer.max_epochs=6") == (
        f"resume={run}: callbacks.model_checkpoint.dirpath={old}/checkpoints is inside the run's folder as "
        f"it was, {old}, and the run is now in {run}: its checkpoints would go to a new folder at the old "
        f"place, outside the run. Fix: python train.py resume={run} trainer.max_epochs=6 "
        f"callbacks.model_checkpoint.dirpath={run}/checkpoints")
    new = f"callbacks.model_checkpoint.dirpath={run}/checkpoints"
    fix = argv(f"resume={run}", "trainer.max_epochs=6", new)
    assert fix[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"


def test_a_data_folder_without_the_data_set_names_the_folder_the_run_used(tmp_path, data_dir, monkeypatch):
    # pass 47, row 25: a relative HIGHWAYLAB_DATA_DIR typed in another folder (train.py makes it absolute
    # there) gave "Data file missing: /shared/data/...", naming neither the run's folder nor why
    from highwaylab.utils.resume import check_data_folder

    run = tmp_path / "run"
    run.mkdir()
    (run / "config_resolved.yaml").write_text(yaml.safe_dump({"data": {"data_dir": str(data_dir)}}))
    cfg = OmegaConf.create({"data": {"dataset": "mnist", "data_dir": str(tmp_path / "elsewhere")}})
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(tmp_path / "elsewhere"))
    with pytest.raises(ResumeError) as refusal:
        check_data_folder(run, cfg, ["trainer.max_epochs=3"])
    assert str(refusal.value) == (
        f"resume={run}: HIGHWAYLAB_DATA_DIR names {tmp_path}/elsewhere, which holds no MNIST/raw/ (a "
        f"relative value is read against the folder the command is typed in, {tmp_path}); the run used "
        f"{data_dir} (its config_resolved.yaml). Fix: HIGHWAYLAB_DATA_DIR={data_dir} python train.py "
        f"resume={run} trainer.max_epochs=3")
    check_data_folder(run, cfg, [f"data.data_dir={tmp_path}/elsewhere"])  # given: the data checks name it
    monkeypatch.setenv("HIGHWAYLAB_DATA_DIR", str(data_dir))
    check_data_folder(run, cfg, [])  # the run's own folder
    # pass 57, row 14: unset, the data folder is the checkout's data/; before, "Data file missing: ..."
    monkeypatch.delenv("HIGHWAYLAB_DATA_DIR")
    with pytest.raises(ResumeError) as refusal:
        check_data_folder(run, cfg, [])
    assert str(refusal.value) == (
        f"resume={run}: HIGHWAYLAB_DATA_DIR is not set, so the data folder is {tmp_path}/elsewhere, which "
        f"holds no MNIST/raw/; the run used {data_dir} (its config_resolved.yaml). Fix: "
        f"HIGHWAYLAB_DATA_DIR={data_dir} python train.py resume={run}")


def test_a_run_folder_split_by_the_shell_at_a_space_is_named_with_the_quoted_command(tmp_path):
    # pass 47, row 41: before, resume=<runs>/my run (unquoted) was "resume=<runs>/my: no such folder"
    run = make_run(tmp_path / "my run", OWN)
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=False)
    assert message(f"resume={tmp_path}/my", "run", "trainer.max_epochs=6") == (
        f"resume={tmp_path}/my run: the shell split the run folder's name at a space ({run} is a folder). "
        f"Fix: quote it: python train.py \"resume='{run}'\" trainer.max_epochs=6")
    assert argv(f"resume='{run}'", "trainer.max_epochs=6")[-1] == f"ckpt_path='{run}/checkpoints/last.ckpt'"


def test_a_sweeps_job_that_never_started_points_to_the_report(tmp_path):
    # pass 47, row 57: before, "resume=<sweep>/2_job: no such folder; give the folder of a run, e.g. ..."
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "multirun.yaml").write_text("hydra: {}\n")
    assert message(f"resume={tmp_path}/sweep/2_job") == (
        f"resume={tmp_path}/sweep/2_job: no such folder; {tmp_path}/sweep is a multirun whose jobs are its "
        f"numbered folders, and this one never started (or was renamed): python -m highwaylab.report "
        f"{tmp_path}/sweep lists its jobs, with the command that runs a job it never started into the "
        f"sweep's folder")


def test_a_missing_resume_folder_under_a_tilde_names_what_the_tilde_became(monkeypatch, tmp_path):
    # pass 52, row 45: resume='~/...' (quoted, so the shell left the ~); before, "no such folder" alone
    monkeypatch.setenv("HOME", str(tmp_path))
    assert message("resume=~/runs/int").startswith(
        f"resume=~/runs/int: no such folder ({tmp_path}/runs/int: the ~ read as this user's home, "
        f"{tmp_path}); give the folder of a run, e.g. resume=")


@pytest.mark.parametrize("given", ["trainer=ddp_cpu", "trainer.devices=2"])
def test_a_resume_in_another_number_of_processes_is_refused(tmp_path, given):
    # pass 54, row 27 (major): a one-process run resumed with trainer=ddp_cpu; before, exit 0, the batch
    # doubled (128 -> 256) and the log said "31 of epoch 1's 215 batches done" of an epoch that had 400
    run = make_run(tmp_path / "run")  # OWN: trainer=cpu, one process
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=431, mid_epoch=True, batches=31)
    assert message(f"resume={run}", given) == (
        f"resume={run}: {given} changes the processes the run trains in, 1 -> 2: data.batch_size is per "
        f"process, so a step's batch (128 -> 256 examples), the batches of an epoch and the examples each "
        f"process draws would change under the checkpoint. Resume without it, or start a new run with it")
    assert argv(f"resume={run}")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"  # the fix: without it


def test_a_resume_into_another_wandb_run_is_refused(tmp_path):
    # pass 54, row 26: resume=<run> logger.wandb.id=otherid1; before, exit 0, and the run's history split
    # between its own W&B run and the new one, without a word
    run = make_run(tmp_path / "run", [t for t in OWN if t != "logger=none"])
    ckpt = fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=431, mid_epoch=True, batches=31)
    saved = torch.load(ckpt, weights_only=False)
    saved["logger_versions"] = {"WandbLogger": "sllnag6g"}
    torch.save(saved, ckpt)
    assert message(f"resume={run}", "logger.wandb.id=otherid1") == (
        f"resume={run}: logger.wandb.id=otherid1 is another W&B run than the run's own, sllnag6g, which the "
        f"resume continues: the run's history would be split between two W&B runs, the second starting at "
        f"step 431. Fix: leave logger.wandb.id=otherid1 out")
    assert argv(f"resume={run}", "logger.wandb.id=sllnag6g")[-1] == f"ckpt_path={ckpt}"  # its own: fine


def test_a_sweep_into_a_folder_inside_a_run_is_refused(tmp_path):
    # pass 56, row 61: before, -m ... hydra.sweep.dir=<run>/sweep ran (rc 0) and wrote the sweep's job
    # folders inside a finished run's folder; a single run there was refused already
    run = make_run(tmp_path / "run")
    (run / "metrics.json").write_text("{}")
    assert message("-m", "depth=3,4", f"hydra.sweep.dir={run}/sweep") == (
        f"hydra.sweep.dir={run}/sweep is inside {run}, the folder of a run (it holds .hydra, "
        f"metrics.json): the sweep's job folders and summary would be mixed among that run's files. Fix: "
        f"give a folder outside it (or leave hydra.sweep.dir out: every sweep gets a folder of its own)")
    assert not (run / "sweep").exists()
    # a sweep inside another sweep's folder (no run record of its own there) is not a run's folder
    (tmp_path / "outer" / "multirun.yaml").parent.mkdir()
    (tmp_path / "outer" / "multirun.yaml").write_text("{}")
    argv("-m", "depth=3,4", f"hydra.sweep.dir={tmp_path}/outer/inner")


def test_resume_with_callbacks_none_names_the_checkpoints_it_removes(tmp_path):
    # pass 56, row 25: before, "callbacks=none changes how the run's best checkpoint is chosen ... a new
    # best, chosen by another criterion", where it removes both checkpoint callbacks
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=2, step=10, mid_epoch=False)
    assert message(f"resume={run}", "callbacks=none", "trainer.max_epochs=6") == (
        f"resume={run}: callbacks=none removes the run's checkpoints (callbacks.model_checkpoint and "
        f"callbacks.last_checkpoint): its checkpoints/last.ckpt would stay at the resume point while the run "
        f"trains on (the next resume= would train that part again), and the resumed run would save no best "
        f"checkpoint, so test/* would be of its final weights, not of the run's best. Resume without it, or "
        f"start a new run with it")


def test_a_sweep_folder_that_holds_a_refused_sweeps_multirun_yaml_alone_is_free(tmp_path):
    # pass 57, row 96: before, the corrected sweep into the folder of one refused before its first job was
    # refused as "not empty (... holds multirun.yaml)"
    (tmp_path / "sweep").mkdir()
    (tmp_path / "sweep" / "multirun.yaml").write_text("{}")
    argv("-m", "depth=3,4", f"hydra.sweep.dir={tmp_path}/sweep")
    (tmp_path / "sweep" / "notes.txt").write_text("mine")
    assert message("-m", "depth=3,4", f"hydra.sweep.dir={tmp_path}/sweep").startswith(
        f"hydra.sweep.dir={tmp_path}/sweep is not empty")


def test_a_resume_on_unverified_files_of_another_folder_warns_that_they_are_unchecked(tmp_path, capsys):
    # breaking pass 62, row 26: before, resume= with data.data_dir=<Fashion-MNIST's files in MNIST/raw/> and
    # data.verify=false trained the rest of an MNIST run on Fashion-MNIST without a word
    run = make_run(tmp_path / "run")
    (run / "config_resolved.yaml").write_text(yaml.safe_dump({"data": {"data_dir": str(DATA_DIR)}}))
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=True)
    other = tmp_path / "fm" / "MNIST" / "raw"
    other.mkdir(parents=True)
    for name in (DATA_DIR / "FashionMNIST" / "raw").iterdir():
        (other / name.name).symlink_to(name)
    capsys.readouterr()
    argv(f"resume={run}", f"data.data_dir={tmp_path / 'fm'}", "data.verify=false")
    assert capsys.readouterr().err.strip() == (
        f"highwaylab: warning: resume={run}: data.data_dir={tmp_path / 'fm'} is not the folder the run "
        f"trained on ({DATA_DIR}), and data.verify=false reads its files unchecked: the rest of the run "
        f"trains on whatever they hold, under the run's data set (mnist). To go on with the run's own files: "
        f"python train.py resume={run} data.verify=false data.data_dir={DATA_DIR}; to check these against "
        f"the official files: python train.py resume={run} data.data_dir={tmp_path / 'fm'} data.verify=true")
    argv(f"resume={run}", "data.verify=false")  # its own folder: no word
    assert capsys.readouterr().err == ""
    # pass 91, row 67: a run that recorded data.verify=false, resumed under another HIGHWAYLAB_DATA_DIR;
    # before, "leave data.verify=false out", which this command did not hold
    own = make_run(tmp_path / "own", [*OWN, "data.verify=false"])
    (own / "config_resolved.yaml").write_text(yaml.safe_dump({"data": {"data_dir": str(tmp_path / "fm")}}))
    fake_checkpoint(own / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=True)
    argv(f"resume={own}", "trainer.max_epochs=3")
    assert capsys.readouterr().err.strip().endswith(
        f"To go on with the run's own files: python train.py resume={own} trainer.max_epochs=3 "
        f"data.data_dir={tmp_path / 'fm'}; to check these against the official files: python train.py "
        f"resume={own} trainer.max_epochs=3 data.verify=true")
    argv(f"resume={own}", "trainer.max_epochs=3", f"data.data_dir={tmp_path / 'fm'}")  # each fix: no word
    argv(f"resume={own}", "trainer.max_epochs=3", "data.verify=true")
    assert capsys.readouterr().err == ""


def test_a_resume_that_accumulates_other_batches_a_step_is_named_with_the_recipe_to_keep(tmp_path):
    # pass 66, row 12: before, resume= +trainer.accumulate_grad_batches=2 halved the run's steps from the
    # checkpoint on (global_step 453 where the run would reach 600), without a word
    from highwaylab.train import accumulation_change

    run = tmp_path / "run"
    run.mkdir()
    OmegaConf.save(compose_cfg(OWN, tmp_path / "cfg"), run / "config_resolved.yaml")
    resumed = compose_cfg([*OWN, "+trainer.accumulate_grad_batches=2"], tmp_path / "resumed")
    batch = resumed.data.batch_size
    assert accumulation_change(resumed, run, {"global_step": 305}) == (
        f"highwaylab: trainer.accumulate_grad_batches=2: the run trained up to step 305 with 1 ({batch} "
        f"examples a step) and continues with 2 ({2 * batch} examples a step), so its steps an epoch and its "
        f"learning rate per example change from here. To keep the run's recipe, resume without "
        f"+trainer.accumulate_grad_batches")
    assert accumulation_change(compose_cfg(OWN, tmp_path / "same"), run, {"global_step": 305}) is None
    OmegaConf.save(resumed, run / "config_resolved.yaml")  # a run that accumulated 2, resumed with 1
    message = accumulation_change(compose_cfg(OWN, tmp_path / "one"), run, {"global_step": 9})
    assert message.endswith("resume with trainer.accumulate_grad_batches=2")
    assert accumulation_change(resumed, tmp_path / "no-record", {"global_step": 9}) is None


def test_a_checkpoints_folder_moved_to_another_disk_and_linked_back_is_still_the_runs(tmp_path):
    # pass 67, row 26 (major): before, resume= of such a run warned that its checkpoint was "of another run
    # folder" and started a new W&B run, splitting the run's history in two
    from highwaylab.train import _of_run

    run, disk = tmp_path / "runs" / "r1", tmp_path / "bigdisk" / "r1_ckpts"
    (run / ".hydra").mkdir(parents=True)
    disk.mkdir(parents=True)
    (disk / "last.ckpt").write_bytes(b"")
    (run / "checkpoints").symlink_to(disk)
    assert _of_run(str(run / "checkpoints" / "last.ckpt"), run)
    assert not _of_run(str(disk / "last.ckpt"), tmp_path / "runs" / "r2")  # another run's checkpoint
    link = tmp_path / "link_to_run"  # the run folder given through a link of its own
    link.symlink_to(run)
    assert _of_run(str(link / "checkpoints" / "last.ckpt"), run)


def test_a_search_whose_study_file_is_gone_is_named_as_that(tmp_path):
    # pass 67, row 44: before, its own folder was called "another sweep", the missing optuna.db unnamed
    from highwaylab.utils.resume import check_sweep_folder_free

    sweep = tmp_path / "sweep"
    make_run(sweep / "0_mnist-highway-d3-relu-sgd-s0")
    (sweep / "optimization_results.yaml").write_text("best_value: 0.5\n")
    with pytest.raises(ResumeError) as err:
        check_sweep_folder_free(sweep, search=True)
    assert str(err.value) == (
        f"hydra.sweep.dir={sweep} holds a search (job folders 0_mnist-highway-d3-relu-sgd-s0, "
        f"optimization_results.yaml) whose study file optuna.db is missing (deleted or moved?), so it cannot "
        f"be continued, and a new study there would number its jobs from 0 again, over those. Fix: put "
        f"optuna.db back, or give a new hydra.sweep.dir for a new search")
    (sweep / "optuna.db").write_bytes(b"")  # put back: continued
    check_sweep_folder_free(sweep, search=True)
    # pass 96, row 53: a search file of one's own without storage never wrote optuna.db; before, "missing
    # (deleted or moved?)" and "put optuna.db back"
    (sweep / "optuna.db").unlink()
    (sweep / "0_mnist-highway-d3-relu-sgd-s0" / ".hydra" / "hydra.yaml").write_text(
        "hydra:\n  sweeper:\n    storage: null\n")
    with pytest.raises(ResumeError) as err:
        check_sweep_folder_free(sweep, search=True)
    assert str(err.value).endswith(
        "optimization_results.yaml) that kept its study in memory (its hydra.sweeper.storage is null: no "
        "optuna.db was written), so it cannot be continued, and a new study there would number its jobs from "
        "0 again, over those. Fix: give a new hydra.sweep.dir; to make a search continuable, give its file "
        "hydra.sweeper.storage: sqlite:///${hydra.sweep.dir}/optuna.db, as highwaylab's do")


def test_training_a_search_trial_further_warns_that_the_study_keeps_its_ranked_result(tmp_path):
    # pass 67, row 45: before, the trial's val/acc_best went from 0.52 to 0.77 in silence, while the
    # study and optimization_results.yaml kept 0.52
    from highwaylab.utils.resume import search_trial_warning

    sweep = tmp_path / "sweep"
    job = make_run(sweep / "0_mnist-highway-d3-relu-sgd-s0")
    (job / "metrics.json").write_text(json.dumps({"epochs": 1}))
    assert search_trial_warning(job, ["trainer.max_epochs=3"]) is None  # no study: a plain sweep's job
    (sweep / "optuna.db").write_bytes(b"")
    assert search_trial_warning(job, ["trainer.max_epochs=3"]) == (
        f"highwaylab: warning: resume={job} trains a finished trial of the search in {sweep} further: its "
        f"metrics.json (and the report) will give the longer run's result, while the study (optuna.db) and "
        f"optimization_results.yaml keep the one the trial was ranked by. To compare trials as the search "
        f"did, train the best one further as a new run: python train.py <its parameters> "
        f"trainer.max_epochs=<n>")
    assert search_trial_warning(job, []) is None  # resumed to its own end: the ranked result


def test_a_refused_start_never_removes_a_folder_another_process_runs_in(tmp_path, monkeypatch):
    # pass 67, row 33: the same command started twice at once; both found no folder, and the one refused
    # by the other's lock would have removed the folder of the run that goes on
    from highwaylab.utils import output_folder
    from highwaylab.utils.run_lock import holding

    run = make_run(tmp_path / "run")
    monkeypatch.setattr(output_folder, "_made_run_folder", run.absolute())
    monkeypatch.setattr(output_folder, "_training_started", False)  # as another test may have left it
    assert output_folder.removable_run_folder(run)  # this start's own folder, nothing trained
    with holding(run):  # this process's own job holds it: still its own folder
        assert output_folder.removable_run_folder(run)
    other = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom pathlib import Path\n"
                              "from highwaylab.utils.run_lock import holding\n"
                              f"with holding(Path({str(run)!r})):\n    print('held', flush=True)\n"
                              "    time.sleep(60)"], stdout=subprocess.PIPE, text=True, env=subprocess_env())
    try:
        assert other.stdout.readline().strip() == "held"  # the other process, which runs there
        assert not output_folder.remove_refused_run_folder(run)
    finally:
        other.kill()
        other.wait()
    assert (run / ".hydra").is_dir()


def test_a_resume_given_as_an_interpolation_names_the_folder_it_meant(tmp_path, monkeypatch):
    # pass 70, row 46: RUN=<run> train.py 'resume=${oc.env:RUN}'; before, "no such folder" and a template
    run = make_run(tmp_path / "run")
    monkeypatch.setenv("RUN", str(run))
    assert message("resume=${oc.env:RUN}", "trainer.max_epochs=2") == (
        f"resume=${{oc.env:RUN}}: resume= is read before Hydra resolves interpolations, so it takes the "
        f"run's folder as written. Fix: resume={run} (or resume=\"$RUN\" with RUN exported, which the shell "
        f"expands)")
    monkeypatch.delenv("RUN")
    assert message("resume=${oc.env:RUN}").endswith('Fix: resume="$RUN" with RUN exported (the shell '
                                                     'expands it)')


def test_a_resume_given_a_slurm_launcher_is_sent_to_a_slurm_job(tmp_path):
    # pass 71, row 55 (major): resume=<run> hydra/launcher=slurm_cpu (no -m); before, it trained on the
    # machine where it was typed, no job submitted, without a word
    from highwaylab.utils.overrides import OverrideError, check_command_line

    run = make_run(tmp_path / "run")
    with pytest.raises(OverrideError) as err:
        check_command_line(["train.py", f"resume={run}", "trainer.max_epochs=3", "hydra/launcher=slurm_cpu"],
                           CONF)
    assert str(err.value) == (
        "hydra/launcher=slurm_cpu launches the jobs of a multirun, and resume= continues one run in this "
        "process: nothing would be submitted. Fix: leave hydra/launcher=slurm_cpu out to continue it here; "
        f"on the cluster, run it in a SLURM job: sbatch --wrap 'python train.py resume={run} "
        f"trainer.max_epochs=3'")


def test_the_config_of_a_finished_run_is_printed_by_cfg_job_not_refused(tmp_path):
    # pass 91, row 51: before, --cfg job resume=<finished run> was refused ("nothing would be trained")
    # and its fix printed the config of an extension (trainer.max_epochs=5) instead of the run's own
    run = make_run(tmp_path / "run")
    ckpt = fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=20, mid_epoch=False)
    (run / "metrics.json").write_text(json.dumps({"test/acc": 0.9, "epochs": 5, "global_step": 20}))
    assert "the run has finished" in message(f"resume={run}")  # to train: refused, as before
    assert argv("--cfg", "job", f"resume={run}") == [
        "train.py", "--cfg", "job", *OWN, f"hydra.run.dir={run}", f"ckpt_path={ckpt}"]
    # pass 95, row 49 (major): --info config printed the config without the resume (the default depth,
    # resume: <run>, ckpt_path: null), unsaid
    assert argv(f"resume={run}", "trainer.max_epochs=6", "--info", "config") == [
        "train.py", "--info", "config", *OWN[:3], *OWN[4:], "trainer.max_epochs=6", f"hydra.run.dir={run}",
        f"ckpt_path={ckpt}"]
    assert argv("--info", "defaults", "depth=3") == ["train.py", "--info", "defaults", "depth=3"]  # no resume


def test_a_runs_override_of_hydras_node_is_resolved_as_hydra_resumes_it(tmp_path, monkeypatch):
    # pass 93, rows 40, 41, 48 (major): before, every run with ${paths.output_dir} or ${hydra:runtime.cwd}
    # in an override was refused ("cannot be resolved now ... HydraConfig was not set. Fix: set the
    # environment as when the run started"), in its place and from its folder, where nothing had changed
    def hydra_run(folder: Path, override: str, key: str, used: str, cwd: Path) -> Path:
        run = make_run(folder, [*OWN, override])
        record = {"callbacks": {}, "data": {}}
        record[key.split(".")[0]] = {key.split(".", 1)[1].split(".")[0]: {"dirpath": used}} \
            if key.startswith("callbacks") else {"data_dir": used}
        (run / "config_resolved.yaml").write_text(yaml.safe_dump(record))
        (run / ".hydra" / "hydra.yaml").write_text(yaml.safe_dump(
            {"hydra": {"runtime": {"output_dir": str(folder), "cwd": str(cwd)}}}))
        fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=True)
        return run

    monkeypatch.chdir(tmp_path)
    best = hydra_run(tmp_path / "best", "callbacks.model_checkpoint.dirpath=${paths.output_dir}/best",
                     "callbacks.model_checkpoint.dirpath", f"{tmp_path}/best/best", tmp_path)
    assert argv(f"resume={best}", "trainer.max_epochs=6")[-1] == f"ckpt_path={best}/checkpoints/last.ckpt"
    moved = best.rename(tmp_path / "moved")  # its best/ moved with it: resolved in the new folder
    assert argv(f"resume={moved}", "trainer.max_epochs=6")[-1] == f"ckpt_path={moved}/checkpoints/last.ckpt"
    started = tmp_path / "elsewhere"
    started.mkdir()
    data = hydra_run(tmp_path / "data", "data.data_dir=${hydra:runtime.cwd}/d", "data.data_dir",
                     f"{started}/d", started)
    assert message(f"resume={data}", "trainer.max_epochs=6") == (
        f"resume={data}: the run's override data.data_dir=${{hydra:runtime.cwd}}/d resolves against the "
        f"folder the command is typed in ({tmp_path}) to data.data_dir={tmp_path}/d, but the run used "
        f"data.data_dir={started}/d (its config_resolved.yaml). Fix: cd {started} and resume again, or "
        f"give data.data_dir={started}/d with the resume")
    argv(f"resume={data}", "trainer.max_epochs=6", f"data.data_dir={started}/d")  # the second fix
    monkeypatch.chdir(started)
    argv(f"resume={data}", "trainer.max_epochs=6")  # the first


def test_a_resume_override_of_the_runs_number_in_another_type_is_named_not_built(tmp_path):
    # pass 95, rows 15, 41, 42 (major): before, depth=3.0 and width=50.0 (the run's 3 and 50) passed the
    # "changes the model" check as equal, and the model's build raised 40 lines of traceback; depth=03
    # was "a change of depth (3 -> 03)"
    run = make_run(tmp_path / "run")  # OWN: depth=4, width=16
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=True)
    for given, typed, kind, own in (("depth=4.0", "4.0", "a float", "depth=4"),
                                    ("width=16.0", "16.0", "a float", "width=16"),
                                    ("depth=04", "04", "text", "depth=4")):
        key = given.split("=")[0]
        assert message(f"resume={run}", given) == (
            f"resume={run}: {given} is not the run's {own}: Hydra reads {typed} as {kind}, and {key} is an "
            f"integer. Fix: leave {given} out (the resume keeps {own})")
    one = make_run(tmp_path / "one", [*OWN[:1], "depth=1", *OWN[2:]])
    fake_checkpoint(one / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=True)
    assert message(f"resume={one}", "depth=true").endswith(
        "Hydra reads true as a boolean, and depth is an integer. Fix: leave depth=true out (the resume keeps "
        "depth=1)")
    assert argv(f"resume={run}", "depth=4")[-1] == f"ckpt_path={run}/checkpoints/last.ckpt"  # its own value


def test_a_resume_that_sets_an_optimiser_argument_to_the_default_it_ran_with_is_taken(tmp_path):
    # pass 95, row 32: the fix +optim.optimizer.nesterov=false (SGD's default) was refused as "changes
    # optim.optimizer.nesterov (None -> False)"
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=1, step=4, mid_epoch=True)
    ckpt = f"ckpt_path={run}/checkpoints/last.ckpt"
    assert argv(f"resume={run}", "+optim.optimizer.nesterov=false")[-1] == ckpt
    assert "it changes optim.optimizer.nesterov (None -> True)" in message(f"resume={run}",
                                                                         "+optim.optimizer.nesterov=true")
    assert "(None -> 0)" in message(f"resume={run}", "+optim.optimizer.maximize=0")  # not False: a change


def test_a_resume_file_setting_resume_is_named_and_the_fixes_keep_the_config_dir(tmp_path, monkeypatch):
    # pass 96, rows 50 and 50b: an experiment of one's own that sets resume:; before, "in Python, set
    # ckpt_path", and the finished run's fix left out the --config-dir that finds the experiment
    from highwaylab.utils.resume import _config_flags

    flags = ["--config-dir", "/x", "--cfg", "job", "-cn=mine"]
    assert _config_flags(flags) == ["--config-dir", "/x", "-cn=mine"]
    run = make_run(tmp_path / "run")
    fake_checkpoint(run / "checkpoints" / "last.ckpt", epochs=5, step=20, mid_epoch=False)
    (run / "metrics.json").write_text(json.dumps({"test/acc": 0.9, "epochs": 5, "global_step": 20}))
    mine = tmp_path / "mine" / "experiment"
    mine.mkdir(parents=True)
    (mine / "more.yaml").write_text("# @package _global_\ntrainer:\n  max_epochs: 5\n")
    assert message("--config-dir", str(tmp_path / "mine"), f"resume={run}", "experiment=more").endswith(
        f"extend it: python train.py resume={run} --config-dir {tmp_path / 'mine'} experiment=more "
        f"trainer.max_epochs=7")
    (mine / "cont.yaml").write_text(f"# @package _global_\nresume: {run}\n")
    from highwaylab.utils.overrides import check_command_line

    command = ["train.py", "--config-dir", str(tmp_path / "mine"), "experiment=cont"]
    monkeypatch.setattr(sys, "argv", command)  # the fix repeats the command line
    with pytest.raises(ResumeError) as err:
        check_command_line(command, CONF)
    assert str(err.value) == (
        f"resume: {run} is set in {mine / 'cont.yaml'}, and train.py reads resume= from its command line "
        f"only, where it becomes the run's own overrides. Fix: delete resume: from {mine / 'cont.yaml'}, and "
        f"give it on the command line: python train.py resume={run} --config-dir {tmp_path / 'mine'} "
        f"experiment=cont")


def test_a_new_run_from_a_checkpoint_of_another_schedule_gets_the_checkpoints_value_as_its_fix(tmp_path):
    # pass 97, row 28c: ckpt_path= of a checkpoint whose scheduler had gamma=0.85; before, "Fix: start a new
    # run with the schedule you want", of what was a new run already
    ckpt = fake_checkpoint(tmp_path / "lone.ckpt", epochs=1, step=10, mid_epoch=False, batches=10)
    checkpoint = torch.load(ckpt, weights_only=False)
    checkpoint["lr_schedulers"] = [{"gamma": 0.85, "last_epoch": 1}]
    torch.save(checkpoint, ckpt)
    new = [*OWN, f"ckpt_path={ckpt}", f"hydra.run.dir={tmp_path / 'new'}"]
    assert message(*new) == (
        f"ckpt_path={ckpt}: optim.scheduler.gamma=0.6, but the checkpoint's scheduler has gamma=0.85, and "
        f"Lightning restores the checkpoint's: the learning rate would go on along the old schedule (a "
        f"cosine one is 0 at its end, then rises again), while the record says 0.6. Fix: "
        f"optim.scheduler.gamma=0.85, to go on along the checkpoint's schedule; for another schedule, leave "
        f"ckpt_path out (a new run trained from its start)")
    assert "optim.scheduler.gamma=0.85" in argv(*new, "optim.scheduler.gamma=0.85")  # the fix is taken
