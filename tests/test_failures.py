"""Every result is what it says, every failure is one line: the run's record (precision, depth in the
name, metrics.json), the schedule and seed checks, W&B's modes and start-up errors, the output
folder (read-only, full, file-size limit), and a NaN objective."""

import contextlib
import csv
import json
import math
import os
import re
import resource
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from highwaylab.config_checks import validate
from highwaylab.errors import ConfigError
from highwaylab.train import train
from highwaylab.utils import user_error
from highwaylab.utils.loggers import WandbStartError
from highwaylab.utils.output_folder import OutputFolderError, check_output_folder
from highwaylab.utils.sweep import nan_objective

from .conftest import ROOT, TINY, compose_cfg, protected, subprocess_env


def run_train(args: list[str], tmp_path: Path, env: dict | None = None, timeout: int = 300,
              run_dir: bool = True) -> subprocess.CompletedProcess:
    where = [f"paths.log_dir={tmp_path}"] + ([f"hydra.run.dir={tmp_path}/run"] if run_dir else [])
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args, *where], capture_output=True,
                          text=True, timeout=timeout, env=env or subprocess_env(), cwd=tmp_path)


def one_line(proc: subprocess.CompletedProcess) -> str:
    """The ``highwaylab:`` line of a failed run (there must be exactly one, and no traceback)."""
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output[-2000:]
    assert "Traceback" not in output, output[-3000:]
    lines = [line for line in output.splitlines() if "highwaylab: " in line]
    assert len(lines) == 1, lines
    return lines[0].split("highwaylab: ", 1)[1]


# --- the record holds the values used ---------------------------------------------------------

@pytest.mark.slow
def test_precision_lightning_chose_is_recorded(tmp_path, data_dir):
    # before: metrics had no precision and config_resolved.yaml said 16-mixed, which runs as bf16 here
    metrics = train(compose_cfg(TINY + ["trainer.precision=16-mixed"], tmp_path))
    assert metrics["precision"] == "bf16-mixed"
    recorded = yaml.safe_load((tmp_path / "config_resolved.yaml").read_text())
    assert recorded["trainer"]["precision"] == "bf16-mixed"


@pytest.mark.slow
@pytest.mark.parametrize(("precision", "dtype"), [("64", "float64"), ("16-true", "float16")])
def test_a_true_precision_runs_with_the_model_summary(precision, dtype, tmp_path, data_dir):
    # before: RuntimeError "mat1 and mat2 must have the same dtype" in the summary's FLOP count, whose
    # example input stayed float32 while the weights were converted
    import torch

    from highwaylab.models import FCBackbone
    from highwaylab.module import ClassifierModule

    cfg = compose_cfg([o for o in TINY if o != "~callbacks.model_summary"]
                      + [f"trainer.precision={precision}", "callbacks=minimal"], tmp_path)
    metrics = train(cfg)
    assert metrics["precision"] == ("64-true" if precision == "64" else precision)
    assert math.isfinite(metrics["test/loss"])
    module = ClassifierModule(FCBackbone("highway", 3, 8, (1, 28, 28), 10), optimizer=None, scheduler=None,
                              num_classes=10, input_shape=(1, 28, 28))
    assert module.example_input_array.dtype == torch.float32
    assert module.to(getattr(torch, dtype)).example_input_array.dtype == getattr(torch, dtype)


def test_conv_run_is_named_and_tagged_by_the_depth_of_its_stages(tmp_path):
    # before: mnist-conv_plain-d100-relu-sgd-s0 (the unused top-level depth) and no depth tag
    cfg = compose_cfg(["model=conv_plain"], tmp_path)
    assert cfg.run_name == "mnist-conv_plain-d12-relu-sgd-s0"  # stem + 2 transitions + 3 x 3 layers
    assert "depth:12" in list(cfg.logger.wandb.tags)
    cfg = compose_cfg(["model=conv_highway", "model.stages=[{channels:8,layers:4}]"], tmp_path)
    assert cfg.run_name == "mnist-conv_highway-d5-relu-sgd-s0"
    assert compose_cfg(["depth=7"], tmp_path).run_name == "mnist-highway-d7-relu-sgd-s0"


def test_a_replaced_optimiser_is_named_and_tagged_by_the_class_that_runs(tmp_path):
    # breaking pass 16, row 18: before, mnist-highway-d3-relu-sgd-s0 and optim:sgd for an RMSprop run
    cfg = compose_cfg(["depth=3", "optim.optimizer._target_=torch.optim.RMSprop"], tmp_path)
    assert cfg.run_name == "mnist-highway-d3-relu-rmsprop-s0"
    tags = list(cfg.logger.wandb.tags)
    assert "optim:rmsprop" in tags and "optim:sgd" not in tags
    same = compose_cfg(["depth=3", "optim=sgd_step", "optim.optimizer._target_=torch.optim.SGD"], tmp_path)
    assert same.run_name == "mnist-highway-d3-relu-sgd_step-s0"  # the preset's own optimiser: its name
    assert "optim:sgd_step" in list(same.logger.wandb.tags)
    assert compose_cfg(["depth=3", "optim=adamw"], tmp_path).run_name == "mnist-highway-d3-relu-adamw-s0"


def test_experiments_are_named_as_the_readme_says(tmp_path):
    # the README said every paper experiment is named <experiment>-s<seed>; paper_mnist_depth, a
    # sweep of models and depths, keeps the default name so that its jobs' names differ
    conv32 = compose_cfg(["experiment=paper_mnist_conv32", "seed=2"], tmp_path)
    assert conv32.run_name == "paper_mnist_conv32-s2"
    assert compose_cfg(["experiment=paper_cifar10_gap"], tmp_path).run_name == "paper_cifar10_gap-s0"
    assert compose_cfg(["experiment=paper_mnist_depth", "model=plain", "depth=50"], tmp_path).run_name == \
        "mnist-plain-d50-relu-sgd-s0"


@pytest.mark.slow
def test_metrics_json_holds_epoch_values_only_and_the_whole_wall_time(tmp_path, data_dir):
    # 4 steps, logged every 3rd: the loggers got step 2's loss last; before, metrics.json gave
    # train/loss_step of step 3, which no logger ever got
    cfg = compose_cfg(TINY + ["logger=csv", "trainer.log_every_n_steps=3", "callbacks=minimal"], tmp_path)
    metrics = train(cfg)
    with open(next(tmp_path.rglob("metrics.csv"))) as f:
        rows = list(csv.DictReader(f))
    assert len([r for r in rows if r.get("train/loss_step")]) == 1
    assert "train/loss_step" not in metrics
    epoch_row = next(r for r in rows if r.get("train/loss"))
    assert metrics["train/loss"] == pytest.approx(float(epoch_row["train/loss"]), rel=1e-6)
    # wall time: start-up (process start to this job; 0 for a process's later jobs) + job + fit
    assert metrics["fit_time_s"] > 0 and metrics["startup_s"] >= 0
    assert metrics["wall_time_s"] >= metrics["startup_s"] + metrics["fit_time_s"]
    assert json.loads((tmp_path / "metrics.json").read_text())["wall_time_s"] == metrics["wall_time_s"]


@pytest.mark.slow
def test_first_job_of_a_process_counts_its_start_up(tmp_path, data_dir):
    proc = run_train(TINY, tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["startup_s"] > 1.0  # importing torch and Lightning alone takes seconds
    assert metrics["wall_time_s"] > metrics["startup_s"] + metrics["fit_time_s"]


def test_start_up_and_durations_do_not_follow_a_step_of_the_wall_clock(monkeypatch):
    # the start-up was time.time() less the process's start (boot time + its ticks): a wall clock stepped
    # back (NTP, a VM's clock sync) made it 0, and the wall time shorter than the fit (CI: startup_s > 1.0
    # failed once, under load). Here the wall clock reads 1970 from now on.
    from highwaylab.utils import clock

    age = clock.process_age()
    assert age is not None and age > 0.1  # this test process has run its imports and collection
    monkeypatch.setattr(clock, "_first_job", [True])
    monkeypatch.setattr(clock.time, "time", lambda: 0.0)
    assert clock.startup_seconds() >= age  # from /proc/uptime and the process's ticks, not time.time()
    assert clock.startup_seconds() == 0.0  # a later job of the same process: its start-up counted once
    monkeypatch.undo()
    # on the wall clock, for train.py's comparison with the modification times of a refused start's record
    # (pass 91, rows 67c and 70: before, train.py still imported it by that name, and every resume refused
    # after Hydra's start ended in an ImportError, its record left behind)
    assert abs(clock.process_start() - (time.time() - clock.process_age())) < 0.1
    train_py = (ROOT / "train.py").read_text()
    for name in re.findall(r"from highwaylab\.utils\.clock import (\w+)", train_py):
        assert callable(getattr(clock, name)), name


# --- values that would make the run meaningless ------------------------------------------------

@pytest.mark.parametrize("seed", [-1, 2**32, "abc", 1.5])
def test_seed_outside_numpys_range_is_refused_naming_seed(seed, tmp_path):
    # before: seed=-1 and 2**32 gave numpy's "Seed must be between 0 and 2**32 - 1" traceback
    cfg = compose_cfg(TINY + [f"seed={seed}"], tmp_path)
    with pytest.raises(ConfigError, match=r"seed=.* must be an integer in 0 \.\. 4294967295"):
        train(cfg)


@pytest.mark.slow
def test_largest_seed_is_accepted(tmp_path, data_dir):
    metrics = train(compose_cfg(TINY + [f"seed={2**32 - 1}"], tmp_path))
    assert math.isfinite(metrics["train/loss"])


def test_zero_epochs_with_test_is_refused_before_anything_runs(tmp_path):
    # before: exit 0 with the untrained network's test metrics as the run's result
    cfg = compose_cfg(TINY + ["trainer.max_epochs=0"], tmp_path)
    with pytest.raises(ConfigError, match=r"trainer\.max_epochs=0 trains nothing.*test=false"):
        train(cfg)
    assert not (tmp_path / "metrics.json").exists()


@pytest.mark.parametrize(("override", "message"), [
    ("test=no", "test='no' must be true or false"),
    ("flush_denormal=no", "flush_denormal='no' must be true or false"),
    ("trainer.gradient_clip_val=-1", "trainer.gradient_clip_val=-1 must be a positive number"),
    ("trainer.check_val_every_n_epoch=0", "trainer.check_val_every_n_epoch=0 must be an integer >= 1")])
def test_values_that_would_silently_do_something_else_are_refused(override, message, tmp_path):
    # found by the breaking pass: test=no tested anyway, flush_denormal=no flushed, clip -1 turned
    # clipping off silently, check_val_every_n_epoch=0 divided by zero in Lightning
    with pytest.raises(ConfigError, match=re.escape(message)):
        train(compose_cfg(TINY + [override], tmp_path))


def test_a_misspelt_optimized_metric_is_one_warning_in_a_single_run(tmp_path):
    # pass 35a, row 47: before, a single run took optimized_metric=val/acx without a word (a sweep's job
    # trained, then failed at its end)
    from highwaylab.train import unknown_optimized_metric

    assert unknown_optimized_metric(compose_cfg(["optimized_metric=val/acx"], tmp_path)) == (
        "highwaylab: optimized_metric=val/acx is not a metric that every run logs (val/acc_best, val/acc, "
        "val/loss, train/loss, train/acc, test/acc, test/loss): only a sweep reads it, as the value each job "
        "returns, and a sweep's jobs would fail at their end; did you mean val/acc?")
    assert unknown_optimized_metric(compose_cfg(["optimized_metric=train/loss"], tmp_path)) is None
    assert unknown_optimized_metric(compose_cfg(["optimized_metric=null"], tmp_path)) is None


def test_a_validation_set_of_a_few_examples_is_one_warning(tmp_path):
    # pass 46, row 67: before, data.val_size=1 ran without a word, its best checkpoint chosen by one example
    from highwaylab.trainer_checks import small_val_set_warning

    assert small_val_set_warning(compose_cfg(["data.val_size=1"], tmp_path)) == (
        "highwaylab: data.val_size=1: val/acc, which chooses the best checkpoint (the one tested) and gives "
        "val/acc_best, is over 1 example, in steps of 100%, so that choice is mostly noise. Fix: "
        "data.val_size=5000 (the default), or at least a few hundred")
    assert "is over 50 examples, in steps of 2%" in small_val_set_warning(compose_cfg(["data.val_size=50"],
                                                                                     tmp_path))
    assert small_val_set_warning(compose_cfg(["data.val_size=100"], tmp_path)) is None
    assert small_val_set_warning(compose_cfg([], tmp_path)) is None  # 5000


def test_a_step_schedule_that_never_decays_within_the_run_is_one_warning(tmp_path):
    # pass 45, row 64: before, optim=sgd_step (milestones [100, 150]) in a 5-epoch run trained at a constant
    # 0.05 without a word, while a cosine T_max below max_epochs is refused for the like reason
    from highwaylab.trainer_checks import undecayed_lr_warning

    assert undecayed_lr_warning(compose_cfg(["optim=sgd_step"], tmp_path)) == (
        "highwaylab: optim.scheduler.milestones=[100,150] lie at or past trainer.max_epochs=5: the learning "
        "rate never decays in this run (it stays 0.05). Fix: decay within the run, e.g. "
        "'optim.scheduler.milestones=[2,3]', or train past it (trainer.max_epochs=151 or more)")
    assert undecayed_lr_warning(compose_cfg(["optim=sgd_step", "trainer.max_epochs=1"], tmp_path)) == (
        "highwaylab: optim.scheduler.milestones=[100,150] lie at or past trainer.max_epochs=1: the learning "
        "rate never decays in this run (it stays 0.05). Fix: train past it (trainer.max_epochs=151 or more)")
    step = ["optim=sgd_step", "optim.scheduler._target_=torch.optim.lr_scheduler.StepLR",
            "~optim.scheduler.milestones", "+optim.scheduler.step_size=30", "trainer.max_epochs=8"]
    assert undecayed_lr_warning(compose_cfg(step, tmp_path)) == (
        "highwaylab: optim.scheduler.step_size=30 lies at or past trainer.max_epochs=8: the learning rate "
        "never decays in this run (it stays 0.05). Fix: decay within the run, e.g. "
        "optim.scheduler.step_size=4, or train past it (trainer.max_epochs=31 or more)")
    for fine in (["optim=sgd_step", "trainer.max_epochs=101"], ["optim=sgd_step", "trainer.max_epochs=5",
                 "optim.scheduler.milestones=[2,3]"], ["optim=sgd"], ["optim=adamw"],
                 ["optim=sgd_step", "optim.scheduler_interval=step"]):
        assert undecayed_lr_warning(compose_cfg(fine, tmp_path)) is None, fine


def test_a_learning_rate_that_decays_to_nothing_before_the_last_epoch_is_one_warning(tmp_path):
    # pass 35a, row 58: before, the default gamma 0.6 over 30 epochs ran its last 7 epochs at under 1e-5 of
    # the first learning rate (3.7e-7 of it in the last), without a word
    from highwaylab.trainer_checks import decayed_lr_warning

    assert decayed_lr_warning(compose_cfg(["trainer.max_epochs=30"], tmp_path)) == (
        "highwaylab: optim.scheduler.gamma=0.6 multiplies the learning rate by 0.6 every epoch, so from "
        "epoch 23 of trainer.max_epochs=30 it is below 1e-05 of its start (3.7e-07 of it in the last epoch), "
        "and those epochs barely train. Fix: for 30 epochs e.g. optim.scheduler.gamma=0.853 (1% of the start "
        "in the last epoch)")
    assert 0.853 ** 29 == pytest.approx(0.01, rel=0.01)  # the fix ends where it says
    assert decayed_lr_warning(compose_cfg(["trainer.max_epochs=23"], tmp_path)) is None  # 0.6^22 = 1.3e-5
    assert decayed_lr_warning(compose_cfg(["trainer.max_epochs=30", "optim.scheduler.gamma=0.853"],
                                          tmp_path)) is None
    assert decayed_lr_warning(compose_cfg(["trainer.max_epochs=30", "optim=adamw"], tmp_path)) is None


def test_a_run_without_a_logger_says_why_it_records_no_learning_rate(tmp_path, caplog):
    # pass 35a, row 52: before, logger=none dropped train/lr from metrics.json without a word
    with caplog.at_level("INFO", logger="highwaylab.train"):
        metrics = train(compose_cfg(TINY, tmp_path))  # TINY has logger=none
    assert "train/lr" not in metrics and "train/loss" in metrics
    assert ("No logger: train/lr is not recorded (Lightning's LearningRateMonitor needs a logger), so "
            "metrics.json has no train/lr; add logger=csv to record it") in caplog.messages
    caplog.clear()
    with caplog.at_level("INFO", logger="highwaylab.train"):
        metrics = train(compose_cfg([*TINY, "logger=csv"], tmp_path / "csv"))
    assert metrics["train/lr"] == 0.1  # exactly, as the loggers get it (new-user pass 60: 0.1000000014901)
    assert not [m for m in caplog.messages if "No logger" in m]
    caplog.clear()  # new-user pass 50, finding 8: debug=fast was told "add logger=csv", which records nothing
    with caplog.at_level("INFO", logger="highwaylab.train"):
        train(compose_cfg(["debug=fast", "depth=3", "width=8"], tmp_path / "fast"))
    assert [m for m in caplog.messages if m.startswith("No logger")] == [
        "No logger: train/lr is not recorded (Lightning's LearningRateMonitor needs a logger), so "
        "metrics.json has no train/lr; trainer.fast_dev_run (debug=fast) runs one batch without loggers, so "
        "no logger would record it"]


def test_a_nan_objective_is_a_failed_job():
    metrics = {"val/loss": math.nan, "val/acc_best": 0.1}
    assert "optimized_metric val/loss is NaN" in nan_objective("val/loss", metrics, math.nan)
    assert nan_objective("val/acc_best", metrics, 0.1) is None
    assert nan_objective("val/never", metrics, math.nan) is None  # a single run need not log it


@pytest.mark.slow
def test_a_diverged_trial_is_failed_and_the_sweep_exits_1(tmp_path, data_dir):
    # lr 1e38 diverges at once; before: recorded ok with train/loss 2.30 (NaN averaged away), exit 0
    proc = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "-m", "optim.optimizer.lr=1e38,0.05", "callbacks=none",
         *[o for o in TINY if "callbacks" not in o], "optimized_metric=train/loss",
         f"paths.log_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/sweep"],
        capture_output=True, text=True, timeout=600, env=subprocess_env(), cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    lines = [json.loads(line) for line in (tmp_path / "sweep" / "summary.jsonl").read_text().splitlines()]
    assert [line["status"] for line in lines] == ["failed", "ok"]
    assert "train/loss" in lines[0]["error"]
    assert "1 of 2 jobs finished" in proc.stdout + proc.stderr


# --- W&B --------------------------------------------------------------------------------------

@pytest.mark.slow
def test_wandb_mode_disabled_disables_wandb(tmp_path, data_dir, monkeypatch):
    # before: an offline W&B run was written anyway (Lightning's offline flag overrode the mode)
    monkeypatch.setenv("WANDB_MODE", "disabled")
    metrics = train(compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path))
    assert metrics["wandb_run_path"] is None
    assert not (tmp_path / "wandb").exists()


@pytest.mark.parametrize("mode", ["online", "run", "shared"])  # run, shared: pass 57, rows 9-10
def test_wandb_mode_online_with_the_offline_logger_is_one_warning(mode, tmp_path, monkeypatch, caplog):
    # before: the run stayed offline without a word, and W&B then advised setting WANDB_MODE=online
    from highwaylab.utils.loggers import without_disabled_wandb

    monkeypatch.setenv("WANDB_MODE", mode)
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        assert without_disabled_wandb(cfg.logger) is cfg.logger
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        f"WANDB_MODE={mode}, but logger.wandb.offline=true (the default here) keeps the run offline; to log "
        "online, set logger.wandb.offline=false (after wandb login)"]


def test_wandb_mode_offline_over_an_online_logger_is_one_warning_and_recorded(tmp_path, monkeypatch, caplog):
    # before: logger.wandb.offline=false with WANDB_MODE=offline in the shell ran offline without a
    # highwaylab line, and config_resolved.yaml recorded offline: false
    from highwaylab.utils.loggers import without_disabled_wandb

    monkeypatch.setenv("WANDB_MODE", "offline")
    online = ["logger=wandb", "logger.wandb.offline=false"]
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + online, tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        assert without_disabled_wandb(cfg.logger) is cfg.logger
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "WANDB_MODE=offline in the environment overrides logger.wandb.offline=false: the run logs offline "
        "(recorded so); to log online, unset WANDB_MODE (or WANDB_MODE=online)"]
    assert cfg.logger.wandb.offline is True  # what the record (config_resolved.yaml) then holds


def test_wandb_tags_given_to_the_logger_say_they_replace_the_runs_own(tmp_path, caplog):
    # pass 45, row 44: before, logger.wandb.tags=[mine] (Lightning's WandbLogger argument) ran, and the W&B
    # run silently lost every tag README says each run carries (data:, model:, depth:, ...)
    from highwaylab.utils.loggers import without_disabled_wandb

    wandb = [o for o in TINY if o != "logger=none"] + ["logger=wandb"]
    for shown, keep in (("[mine]", "to add tags and keep them, give tags=[mine] instead of "
                                   "logger.wandb.tags"),
                        ("null", "to keep them, leave logger.wandb.tags out")):
        caplog.clear()
        cfg = compose_cfg([*wandb, f"logger.wandb.tags={shown}"], tmp_path)
        with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
            without_disabled_wandb(cfg.logger)
        assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
            f"logger.wandb.tags={shown} replaces the run's own W&B tags (data:, model:, depth:, activation:, "
            f"optim:, seed:), by which W&B filters a sweep's runs; {keep}"]
    caplog.clear()
    cfg = compose_cfg([*wandb, "tags=[mine]"], tmp_path)  # the top-level tags: added to the run's own
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        without_disabled_wandb(cfg.logger)
    assert [r for r in caplog.records if r.name == "highwaylab.utils.loggers"] == []
    assert "mine" in list(cfg.logger.wandb.tags) and "model:highway" in list(cfg.logger.wandb.tags)


def test_wandb_group_and_tags_from_the_environment_are_one_warning_each(tmp_path, monkeypatch, caplog):
    # breaking pass 17, row 31: before, W&B grouped the run as envgroup while config_resolved.yaml said
    # group: null, and WANDB_TAGS was dropped without a word
    from highwaylab.utils.loggers import without_disabled_wandb

    monkeypatch.setenv("WANDB_RUN_GROUP", "envgroup")
    monkeypatch.setenv("WANDB_TAGS", "envtag")
    wandb = [o for o in TINY if o != "logger=none"] + ["logger=wandb"]
    cfg = compose_cfg(wandb, tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        assert without_disabled_wandb(cfg.logger) is cfg.logger
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "WANDB_RUN_GROUP=envgroup is set in the environment, and W&B uses it as this run's group, as "
        "logger.wandb.group=envgroup would (recorded so); for no group, unset WANDB_RUN_GROUP",
        "WANDB_TAGS=envtag is set in the environment, but W&B ignores it: the run's tags (logger.wandb.tags, "
        "from tags= plus data:, model:, ...) take its place; to add these tags, give 'tags=[envtag]'"]
    assert cfg.logger.wandb.group == "envgroup"  # what the record (config_resolved.yaml) then holds
    caplog.clear()
    monkeypatch.delenv("WANDB_TAGS")
    own = compose_cfg([*wandb, "logger.wandb.group=mine"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        without_disabled_wandb(own.logger)  # logger.wandb.group wins over WANDB_RUN_GROUP: no warning
    assert not [r for r in caplog.records if r.name == "highwaylab.utils.loggers"]
    assert own.logger.wandb.group == "mine"


@pytest.mark.parametrize(("variable", "value", "warning"), [
    # pass 26, row 47: before, WANDB_NAME=myname was dropped without a word (the run kept its run_name)
    ("WANDB_NAME", "myname", "WANDB_NAME=myname is set in the environment, but W&B ignores it: the run's "
                             "name (logger.wandb.name, from run_name) takes its place; to name the run so, "
                             "give run_name=myname"),
    # pass 27, row 21: before, WANDB_JOB_TYPE=eval was dropped without a word
    ("WANDB_JOB_TYPE", "eval", "WANDB_JOB_TYPE=eval is set in the environment, but W&B ignores it: the run's "
                               "job type (logger.wandb.job_type, train) takes its place; to set it, give "
                               "logger.wandb.job_type=eval"),
    # pass 35, row 28: before, WANDB_PROJECT=myproj was dropped without a word (the run filed under
    # highwaylab, while the workspace tool reads WANDB_PROJECT)
    ("WANDB_PROJECT", "myproj", "WANDB_PROJECT=myproj is set in the environment, but W&B ignores it: the "
                                "run's project (logger.wandb.project, highwaylab) takes its place; to file "
                                "the run there, give logger.wandb.project=myproj"),
    # pass 52, row 35: before, WANDB_DIR was ignored without a word
    ("WANDB_DIR", "/tmp/wbdir", "WANDB_DIR=/tmp/wbdir is set in the environment, but W&B ignores it: the "
                                "run's folder (logger.wandb.save_dir, {run}) takes its place; to write the "
                                "W&B run there, give logger.wandb.save_dir=/tmp/wbdir"),
])
def test_a_wandb_setting_from_the_environment_that_w_and_b_ignores_is_one_warning(
        variable, value, warning, tmp_path, monkeypatch, caplog):
    from highwaylab.utils.loggers import without_disabled_wandb

    monkeypatch.setenv(variable, value)
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        without_disabled_wandb(cfg.logger)
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        warning.format(run=cfg.logger.wandb.save_dir)]
    caplog.clear()  # stop 27's gap: before, these warnings came also with no W&B run to ignore them
    off = compose_cfg([o for o in TINY if o != "logger=none"]
                      + ["logger=wandb", "+logger.wandb.mode=disabled"], tmp_path)
    with caplog.at_level("INFO", logger="highwaylab.utils.loggers"):
        assert not without_disabled_wandb(off.logger)
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "logger.wandb.mode=disabled: no W&B run (logger.wandb left out)"]


def test_wandbs_own_disabled_mode_in_its_settings_leaves_the_logger_out(tmp_path, caplog):
    # pass 85, row 63 (major): before, W&B's dummy run, recorded in metrics.json as a run path and folder
    # that do not exist
    from highwaylab.utils.loggers import without_disabled_wandb

    off = compose_cfg([o for o in TINY if o != "logger=none"]
                      + ["logger=[wandb,csv]", "+logger.wandb.settings.mode=disabled"], tmp_path)
    with caplog.at_level("INFO", logger="highwaylab.utils.loggers"):
        assert list(without_disabled_wandb(off.logger)) == ["csv"]
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "logger.wandb.settings.mode=disabled: no W&B run (logger.wandb left out)"]


def test_wandb_settings_that_wandb_inits_arguments_override_are_warned_about(tmp_path, caplog):
    # pass 85, rows 60, 64, 66, 72: before, each was dropped without a word
    from highwaylab.utils.loggers import without_disabled_wandb

    cfg = compose_cfg([o for o in TINY if o != "logger=none"]
                      + ["logger=wandb", "+logger.wandb.settings.project=other",
                         "+logger.wandb.settings.run_tags=[mytag]",
                         "+logger.wandb.config_exclude_keys=[seed]"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        without_disabled_wandb(cfg.logger)
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "logger.wandb.settings.project=other is ignored: wandb.init's own argument, logger.wandb.project, "
        "takes its place; to file the run there, give logger.wandb.project=other",
        "logger.wandb.settings.run_tags=[mytag] is ignored: wandb.init's own argument, logger.wandb.tags, "
        "takes its place; to add these tags, give tags=[mytag]",
        "logger.wandb.config_exclude_keys=[seed] is ignored: it filters wandb.init's config= only, and the "
        "run's config, which Lightning logs to W&B after the start, keeps every key; leave it out"]


def test_a_wandb_config_of_ones_own_reaches_wandb_init_as_a_plain_mapping(tmp_path):
    # pass 85, row 57 (major): before, +logger.wandb.config={note:x} reached wandb.init as a DictConfig,
    # which W&B took for a dataclass: "TypeError: first argument must be callable or None"
    from hydra.utils import instantiate

    cfg = compose_cfg([o for o in TINY if o != "logger=none"]
                      + ["logger=wandb", "+logger.wandb.config={note:x}"], tmp_path)
    logger = instantiate(cfg.logger.wandb)
    assert type(logger._wandb_init["config"]) is dict and logger._wandb_init["config"] == {"note": "x"}
    assert type(logger._wandb_init["settings"]) is dict and type(logger._wandb_init["tags"]) is list


def test_a_wandb_sweep_id_in_the_environment_is_refused(tmp_path, monkeypatch):
    # pass 27, row 22: before, WANDB_SWEEP_ID filed the run under the folder's name as its project
    # ("Ignoring project 'highwaylab'")
    from highwaylab.utils.loggers import WandbStartError, without_disabled_wandb

    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    monkeypatch.setenv("WANDB_SWEEP_ID", "abc123")
    with pytest.raises(WandbStartError) as excinfo:
        without_disabled_wandb(cfg.logger)
    assert str(excinfo.value) == (
        "WANDB_SWEEP_ID=abc123 is set in the environment: W&B would file this run under that W&B sweep (and "
        "its project), not logger.wandb.project. Fix: unset WANDB_SWEEP_ID (this project's sweeps are Hydra "
        "multiruns, -m)")


def test_a_wandb_run_id_left_in_the_environment_is_one_warning(tmp_path, monkeypatch, caplog):
    # before: a second, new run logged into W&B run myid123 without a word (wandb sync merged the two)
    from highwaylab.utils.loggers import without_disabled_wandb

    monkeypatch.setenv("WANDB_RUN_ID", "myid123")
    wandb = [o for o in TINY if o != "logger=none"] + ["logger=wandb"]
    cfg = compose_cfg(wandb, tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        assert without_disabled_wandb(cfg.logger) is cfg.logger
        with_id = compose_cfg([*wandb, "logger.wandb.id=own"], tmp_path)
        without_disabled_wandb(with_id.logger)  # logger.wandb.id wins over WANDB_RUN_ID: no warning
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "WANDB_RUN_ID=myid123 is set in the environment, and W&B uses it for this run: it logs into W&B run "
        "myid123 (wandb sync merges it with any other run of that id); for a new run of its own, unset "
        "WANDB_RUN_ID"]


def test_a_new_run_with_the_wandb_id_of_another_runs_offline_run_is_one_warning(tmp_path, caplog):
    # pass 26, row 78: before, two new runs given logger.wandb.id=fixed01 (run31, then run32 with seed=1)
    # both wrote offline-run-*-fixed01 without a word, and wandb sync would merge them into one W&B run
    from highwaylab.utils.loggers import reused_wandb_id

    wandb = [o for o in TINY if o != "logger=none"] + ["logger=wandb", f"paths.log_dir={tmp_path}/outputs"]
    side = tmp_path / "side"
    (side / "run31" / "wandb" / "offline-run-20261202_061500-fixed01").mkdir(parents=True)
    (side / "run30" / "wandb" / "offline-run-20261202_061400-x-fixed01").mkdir(parents=True)  # id x-fixed01
    cfg = compose_cfg([*wandb, "logger.wandb.id=fixed01"], side / "run32")
    assert reused_wandb_id(cfg) == (
        f"highwaylab: logger.wandb.id=fixed01 is the id of the offline W&B run in {side / 'run31'} "
        f"(offline-run-20261202_061500-fixed01): this new run logs into that W&B run, and wandb sync would "
        f"merge the two histories into one. Fix: leave logger.wandb.id out for a run of its own, or "
        f"resume={side / 'run31'} to continue that run")
    # a sweep's job under paths.log_dir, from a run folder elsewhere
    job = tmp_path / "outputs" / "multiruns" / "sweep" / "0_job"
    (job / "wandb" / "offline-run-20261202_061600-sweep01").mkdir(parents=True)
    elsewhere = compose_cfg([*wandb, "logger.wandb.id=sweep01"], tmp_path / "elsewhere" / "run")
    assert reused_wandb_id(elsewhere).startswith(
        f"highwaylab: logger.wandb.id=sweep01 is the id of the offline W&B run in {job} (")
    # nothing to say: the run's own folder, a resume, another id, no id, W&B disabled
    assert reused_wandb_id(compose_cfg([*wandb, "logger.wandb.id=fixed01"], side / "run31")) is None
    resumed = compose_cfg([*wandb, "logger.wandb.id=fixed01", f"ckpt_path={side}/run31/last.ckpt"],
                          side / "run31b")
    assert reused_wandb_id(resumed) is None
    assert reused_wandb_id(compose_cfg([*wandb, "logger.wandb.id=other01"], side / "run32")) is None
    assert reused_wandb_id(compose_cfg(wandb, side / "run32")) is None
    assert reused_wandb_id(compose_cfg(TINY, side / "run32")) is None  # logger=none


@pytest.mark.slow
def test_train_warns_when_its_wandb_id_is_another_runs_offline_run(tmp_path, data_dir, caplog):
    # pass 26, row 78: before, the run started and logged into W&B run fixed01 without a word
    (tmp_path / "run31" / "wandb" / "offline-run-20261202_061500-fixed01").mkdir(parents=True)
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + [
        "logger=wandb", "logger.wandb.id=fixed01", f"paths.log_dir={tmp_path}/outputs"], tmp_path / "run32")
    with caplog.at_level("WARNING", logger="highwaylab.train"):
        train(cfg)
    assert [r.getMessage() for r in caplog.records if "fixed01" in r.getMessage()] == [
        f"highwaylab: logger.wandb.id=fixed01 is the id of the offline W&B run in {tmp_path / 'run31'} "
        f"(offline-run-20261202_061500-fixed01): this new run logs into that W&B run, and wandb sync would "
        f"merge the two histories into one. Fix: leave logger.wandb.id out for a run of its own, or "
        f"resume={tmp_path / 'run31'} to continue that run"]


@pytest.mark.parametrize("mode", ["", "onlin"])
def test_an_unknown_wandb_mode_is_one_line_naming_it(mode, tmp_path, monkeypatch):
    # before: pydantic's 4-line validation error from inside wandb.init
    monkeypatch.setenv("WANDB_MODE", mode)
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    with pytest.raises(WandbStartError, match=f"WANDB_MODE='{mode}' is not a W&B mode"):
        train(cfg)


def _online_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in subprocess_env().items() if not k.startswith("WANDB_")}
    home.mkdir(exist_ok=True)  # no ~/.netrc, no settings: no credentials
    return env | {"HOME": str(home), "WANDB_CONFIG_DIR": str(home), "WANDB_SILENT": "true"} | extra


@pytest.mark.slow
def test_online_wandb_without_an_api_key_is_one_line_with_the_fix(tmp_path, data_dir):
    proc = run_train(TINY[:-1] + ["logger.wandb.offline=false"], tmp_path, env=_online_env(tmp_path / "home"))
    line = one_line(proc)
    assert line.startswith("logger.wandb: W&B could not start its run (UsageError")
    assert "wandb login" in line and "logger.wandb.offline=true" in line


@pytest.mark.slow
def test_online_wandb_with_an_unreachable_server_fails_within_about_30_s(tmp_path, data_dir):
    env = _online_env(tmp_path / "home", WANDB_API_KEY="a" * 40, WANDB_BASE_URL="http://127.0.0.1:9")
    start = time.perf_counter()
    proc = run_train(TINY[:-1] + ["logger.wandb.offline=false"], tmp_path, env=env)
    seconds = time.perf_counter() - start
    line = one_line(proc)
    assert line.startswith("logger.wandb: W&B could not start its run (CommError")
    assert "logger.wandb.offline=true" in line and "WANDB_BASE_URL" in line
    assert seconds < 60, seconds  # W&B's defaults: 106 s here (2.3 min in the breaking pass)


# --- the output folder ---------------------------------------------------------------------------

@contextlib.contextmanager
def mounted(*args: str, target: Path):
    """``target`` mounted with ``mount *args`` for the block (root only; skipped where it can't)."""
    target.mkdir(parents=True, exist_ok=True)
    cmds = [["mount", *args, str(target)]]
    if "--bind" in args:  # a read-only bind mount takes a remount
        cmds.append(["mount", "-o", "remount,bind,ro", str(target)])
    for cmd in cmds:
        if subprocess.run(cmd, capture_output=True).returncode != 0:
            subprocess.run(["umount", str(target)], capture_output=True)
            pytest.skip(f"`{' '.join(cmd)}` is not permitted here (needs root)")
    try:
        yield target
    finally:
        subprocess.run(["umount", "-l", str(target)], check=True)


def test_read_only_file_system_is_refused_naming_the_folder(tmp_path):
    with mounted("--bind", str(tmp_path / "ro"), target=tmp_path / "ro"):
        with pytest.raises(OutputFolderError, match=r"hydra\.run\.dir=.*/ro/outputs/run: cannot write the "
                                                    r"run's folder \(on a read-only file system"):
            check_output_folder(tmp_path / "ro" / "outputs" / "run", "hydra.run.dir")


def test_a_full_disk_is_refused_before_the_run(tmp_path):
    with mounted("-t", "tmpfs", "-o", "size=8m", "tmpfs", target=tmp_path / "small"):
        with pytest.raises(OutputFolderError, match=r"only 8\.0 MB free on its disk; a run needs at least"):
            check_output_folder(tmp_path / "small" / "run", "hydra.run.dir")
        with contextlib.suppress(OSError), open(tmp_path / "small" / "filler", "wb") as f:
            f.write(b"\0" * (9 * 2**20))  # fills the disk to its last block
        with pytest.raises(OutputFolderError, match=r"cannot write the run's folder \(the disk is full"):
            check_output_folder(tmp_path / "small" / "run2", "hydra.run.dir")


@pytest.mark.slow
def test_a_disk_that_fills_under_the_csv_log_is_one_line_with_the_fix(tmp_path, data_dir):
    # pass 43, row 50: before, the CSV logger's write on the full disk ended the run in four chained
    # tracebacks, with no highwaylab line and no fix
    with mounted("-t", "tmpfs", "-o", "size=60m", "tmpfs", target=tmp_path / "small"):  # a run needs 50 MB
        fill = ["+callbacks.fill._target_=tests.signal_at.FillDiskAt", "+callbacks.fill.step=2",
                "logger=csv", "+logger.csv.flush_logs_every_n_steps=1", "trainer.log_every_n_steps=1",
                "trainer.limit_train_batches=200"]
        # the CSV log is written at every step; its next page (tmpfs gives whole pages: a few rows still fit
        # in the last one) fails long before the epoch's checkpoint, the other write
        given = ("logger=", "trainer.limit_train_batches=", "~callbacks")
        tiny = [o for o in TINY if not o.startswith(given)]
        tiny.append("callbacks=minimal")  # no figure files, whose full disk is a warning of its own
        proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *tiny, *fill,
                               f"hydra.run.dir={tmp_path}/small/run"], capture_output=True, text=True,
                              timeout=300, env=subprocess_env(), cwd=tmp_path)
        output = proc.stdout + proc.stderr
        assert proc.returncode == 1 and "Traceback" not in output, output[-3000:]
        # train.log's own page may fill first: a warning, and the run goes on (which write meets the full
        # disk first depends on how many log lines came before)
        lines = [line.split("highwaylab: ", 1)[1] for line in output.splitlines() if "highwaylab: " in line
                 and not line.endswith("train.log (No space left on device): the log continues on the "
                                       "console only")]
        assert len(lines) == 1, lines
        line = lines[0]
        assert line == (f"could not write a file of the run in {tmp_path}/small/run (No space left on "
                        f"device): the disk at {tmp_path}/small has 0 bytes free of 60.0 MiB; it saved no "
                        f"checkpoint yet. Free space on that disk, then start the run again (there is no "
                        f"checkpoint to resume from) after rm -r {tmp_path}/small/run, which holds its "
                        f"record, or write the run elsewhere: hydra.run.dir=/another/folder")


@pytest.mark.slow
def test_a_w_and_b_helper_killed_mid_run_is_one_line_naming_the_checkpoint_to_resume(tmp_path, data_dir):
    # before: "The run failed: ConnectionResetError('Connection lost')" and Hydra's traceback
    tiny = [o for o in TINY if not o.startswith(("logger=", "trainer.max_epochs=", "trainer.limit_train"))]
    kill = ["+callbacks.kill._target_=tests.signal_at.KillWandbHelperAt", "+callbacks.kill.step=6",
            "trainer.max_epochs=3", "trainer.limit_train_batches=4", "trainer.log_every_n_steps=1"]
    proc = run_train([*tiny, *kill, "logger=wandb"], tmp_path, env=subprocess_env(WANDB_MODE="offline"))
    line = one_line(proc)
    run = tmp_path / "run"
    [segment] = run.glob("wandb/offline-run-*")
    assert line == (f"stopped because W&B's helper process (wandb-core) went away (ConnectionResetError: "
                    f"Connection lost) in epoch 1 at step 6: the latest checkpoint is {run}/checkpoints/"
                    f"last.ckpt, of step 4 (stopped at once: the steps after it are lost); resume with: "
                    f"python train.py resume={run}; W&B run {segment.name.rsplit('-', 1)[1]} keeps what it "
                    f"had written: wandb sync {segment}")
    resumed = subprocess.run([sys.executable, str(ROOT / "train.py"), f"resume={run}", "~callbacks.kill"],
                             capture_output=True, text=True, timeout=300,
                             env=subprocess_env(WANDB_MODE="offline"), cwd=tmp_path)
    assert resumed.returncode == 0, (resumed.stdout + resumed.stderr)[-3000:]
    assert json.loads((run / "metrics.json").read_text())["global_step"] == 12


@pytest.mark.slow
def test_a_warning_made_an_error_by_pythonwarnings_is_one_line_naming_the_filter(tmp_path, data_dir):
    # pass 74, row 27: PYTHONWARNINGS=error::DeprecationWarning was refused, though a run issues none; it
    # now runs (exit 0), and a DeprecationWarning that does come ends the run in one line, not a traceback
    env = subprocess_env(PYTHONWARNINGS="error::DeprecationWarning")
    tiny = [o for o in TINY if not o.startswith(("trainer.max_epochs=", "trainer.limit_train"))]
    schedule = ["trainer.max_epochs=2", "trainer.limit_train_batches=3"]
    (tmp_path / "clean").mkdir()
    clean = run_train([*tiny, *schedule], tmp_path / "clean", env=env)
    assert clean.returncode == 0, (clean.stdout + clean.stderr)[-3000:]
    warned = ["+callbacks.dep._target_=tests.signal_at.DeprecationAt", "+callbacks.dep.step=4"]
    line = one_line(run_train([*tiny, *schedule, *warned], tmp_path, env=env))
    run, source = tmp_path / "run", ROOT / "tests" / "signal_at.py"
    issued = next(n for n, text in enumerate(source.read_text().splitlines(), 1) if "old_call()" in text)
    assert line == (f"PYTHONWARNINGS=error::DeprecationWarning made a DeprecationWarning an error, and it "
                    f"stopped the run: old_call() is deprecated; use new_call() (issued at "
                    f"{source}:{issued}); its latest checkpoint, "
                    f"{run}/checkpoints/last.ckpt, is kept. Fix: unset PYTHONWARNINGS, then resume: "
                    f"python train.py resume={run}")


def test_a_small_file_size_limit_is_refused(tmp_path):
    code = ("import resource; resource.setrlimit(resource.RLIMIT_FSIZE, (2**19, 2**19)); "
            "from highwaylab.utils.output_folder import check_output_folder as c; "
            f"c({str(tmp_path)!r}, 'hydra.run.dir')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert ("OutputFolderError: the file-size limit (ulimit -f) is 0.50 MB; a run's log files need at least "
            "1 MB.") in proc.stderr


@pytest.mark.slow
def test_a_run_refused_while_its_parts_are_built_leaves_no_folder(tmp_path, data_dir):
    # before (pass 22, row 22): the folder Hydra made (.hydra/, train.log) was left, and the corrected
    # command with the same hydra.run.dir was refused: "holds the record of a run that wrote no checkpoint"
    line = one_line(run_train([*TINY, "+module.foo=1"], tmp_path))
    assert line == ("module.foo is not an argument of highwaylab.module.ClassifierModule. Fix: correct or "
                    "remove it (+module.foo=... added it)")
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_a_gpu_only_strategy_added_on_a_machine_without_a_gpu_names_the_fixes_that_work_here(tmp_path,
                                                                                           data_dir):
    # pass 83, row 09: before, Lightning's "Please set accelerator='cuda'", which cannot work here
    import torch

    if torch.cuda.is_available():
        pytest.skip("the refusal is of a machine without a GPU")
    line = one_line(run_train([*TINY, "+trainer.strategy=fsdp"], tmp_path))
    assert line == ("trainer: The strategy `fsdp` requires a GPU accelerator, but received "
                    "`accelerator='cpu'`, and this machine has no GPU. Fix: leave +trainer.strategy=fsdp out "
                    "(one process), or trainer=ddp_cpu for several processes on its CPUs")
    assert not (tmp_path / "run").exists()


def test_a_current_folder_removed_under_the_shell_is_one_line(tmp_path):
    # pass 84, row 21: before, Hydra's traceback, FileNotFoundError from os.getcwd()
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (f"cd {shlex.quote(str(gone))} && rmdir {shlex.quote(str(gone))} && exec "
              f"{shlex.quote(sys.executable)} {shlex.quote(str(ROOT / 'train.py'))} depth=3")
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                          env=subprocess_env())
    assert (proc.returncode, proc.stdout) == (1, ""), proc.stderr[-2000:]
    assert proc.stderr == (f"highwaylab: the current folder no longer exists (removed after this shell "
                           f"entered it), and Hydra records it for each run. Fix: cd to a folder that "
                           f"exists, e.g. cd {ROOT}, then run the command again\n")


@pytest.mark.slow
def test_a_run_refused_at_its_w_and_b_start_leaves_no_folder(tmp_path, data_dir):
    # pass 23, row 10: before, the refusal kept the folder (.hydra/, config_resolved.yaml, train.log), and
    # the corrected command with the same hydra.run.dir was refused ("holds the record of a run ...")
    wandb = [o for o in TINY if o != "logger=none"] + ["logger=wandb", "+logger.wandb.settings.x_bogus=1"]
    line = one_line(run_train(wandb, tmp_path, env=subprocess_env(WANDB_MODE="offline")))
    assert line.startswith("logger.wandb: W&B could not start its run: its setting x_bogus=1 is "), line
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_a_refused_run_keeps_a_folder_it_did_not_make_and_one_whose_training_started(tmp_path, data_dir):
    (tmp_path / "run").mkdir()  # the user's own (empty) folder
    one_line(run_train([*TINY, "+module.foo=1"], tmp_path))
    assert (tmp_path / "run").is_dir() and {p.name for p in (tmp_path / "run").iterdir()} == {
        ".hydra", "train.log"}
    # refused after its first training step: the run's record is kept
    refuse = ["+callbacks.refuse._target_=tests.signal_at.RefuseAt", "+callbacks.refuse.step=1"]
    line = one_line(run_train([*TINY, *refuse], tmp_path, run_dir=False))
    assert line == "refused at step 1 on purpose (tests.signal_at.RefuseAt)"
    folders = list((tmp_path / "runs").iterdir())
    assert len(folders) == 1 and (folders[0] / "config_resolved.yaml").is_file(), folders


def test_a_refused_run_folder_is_removed_unless_it_holds_results_or_its_training_started(tmp_path,
                                                                                          monkeypatch):
    from highwaylab.utils import output_folder

    run = tmp_path / "run"
    monkeypatch.setattr(output_folder, "_made_run_folder", run)  # Hydra made it for this run
    monkeypatch.setattr(output_folder, "_training_started", False)

    def make(*files: str) -> None:
        for name in files:
            (run / name).parent.mkdir(parents=True, exist_ok=True)
            (run / name).write_text("")

    record = (".hydra/overrides.yaml", "config_resolved.yaml", "train.log")
    for results in ("checkpoints/last.ckpt", "checkpoints/epoch_000.ckpt", "metrics.json"):
        make(*record, results)
        assert not output_folder.remove_refused_run_folder(run) and (run / results).is_file()
        shutil.rmtree(run)
    # pass 26, rows 40, 64, 65, 67, 68: before, kept once a logger had written into it (wandb/, csv/)
    make(*record, "wandb/offline-run-x/run-x.wandb", "csv/version_0/hparams.yaml", "tensorboard/events")
    (run / "checkpoints").mkdir()  # made by the checkpoint callback, empty
    assert output_folder.remove_refused_run_folder(run) and not run.exists()
    make(*record)
    monkeypatch.setattr(output_folder, "_made_run_folder", tmp_path / "other")  # not the one Hydra made
    assert not output_folder.remove_refused_run_folder(run) and run.is_dir()
    monkeypatch.setattr(output_folder, "_made_run_folder", run)
    output_folder.training_starting()  # monkeypatch restores the flag
    assert not output_folder.remove_refused_run_folder(run) and run.is_dir()


def corrupt_data(tmp_path: Path, data_dir: Path) -> Path:
    """A copy of MNIST's raw files whose training images have 100 bytes more than the header says."""
    raw = tmp_path / "data" / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for source in (data_dir / "MNIST" / "raw").iterdir():
        shutil.copyfile(source, raw / source.name)
    with open(raw / "train-images-idx3-ubyte", "ab") as images:
        images.write(b"\0" * 100)
    return tmp_path / "data"


@pytest.mark.slow
@pytest.mark.parametrize(("case", "logger"), [("corrupt_data", "csv"), ("limit_train_batches", "wandb")])
def test_a_run_refused_after_its_loggers_started_leaves_no_folder(case, logger, tmp_path, data_dir):
    # pass 26, rows 40 and 68: before, refused when the fit set up its data, after W&B (or the CSV
    # logger) had written into the run's folder, which was kept (.hydra/, train.log, wandb/), and the
    # corrected command with the same hydra.run.dir was refused: "holds the record of a run that wrote
    # no checkpoint ... rm -r <run>"
    loggers = [o for o in TINY if o != "logger=none"] + [f"logger={logger}"]
    if case == "corrupt_data":
        bad = [f"data.data_dir={corrupt_data(tmp_path, data_dir)}", "data.verify=false"]
        expected = "Data file corrupt (longer than its header says): "
    else:
        bad = [o.replace("=4", "=0.001") for o in loggers if o.startswith("trainer.limit_train_batches=")]
        loggers = [o for o in loggers if not o.startswith("trainer.limit_train_batches=")]
        expected = ("trainer.limit_train_batches=0.001 is a fraction of the 430 train batches below one "
                    "batch, so none would run. Fix: trainer.limit_train_batches=0.0024 or more")
    line = one_line(run_train([*loggers, *bad], tmp_path, env=subprocess_env(WANDB_MODE="offline")))
    assert line.startswith(expected), line
    assert not (tmp_path / "run").exists()
    # pass 27, row 18: before, W&B's closing 'wandb sync <run>/wandb/...' line named the removed folder
    # without a word from the run
    removed = (" (nothing was trained, so the run's folder is removed: the 'wandb sync' line above names a "
               "run that is gone)")
    assert line.endswith(removed) == (logger == "wandb"), line
    if case == "limit_train_batches":  # the corrected command, in the same hydra.run.dir
        proc = run_train([*loggers, "trainer.limit_train_batches=4"], tmp_path,
                         env=subprocess_env(WANDB_MODE="offline"))
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
        assert (tmp_path / "run" / "metrics.json").is_file()


def run_under_file_size_limit(args: list[str], tmp_path: Path, limit: int) -> subprocess.CompletedProcess:
    """``train.py args`` in a process whose file-size limit (``ulimit -f``) is ``limit`` bytes."""
    def set_limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args, f"paths.log_dir={tmp_path}",
                           f"hydra.run.dir={tmp_path}/run"], capture_output=True, text=True, timeout=300,
                          env=subprocess_env(), cwd=tmp_path, preexec_fn=set_limit)


@pytest.mark.slow
def test_a_file_size_limit_that_the_checkpoints_fit_in_runs_with_a_warning(tmp_path, data_dir):
    # before (pass 21, row 27): any limit under a fixed 64 MB was refused, a depth-4 net's 5 MB too
    proc = run_under_file_size_limit([*TINY, "optim=adamw"], tmp_path, 5 * 2**20)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    warning = next(line for line in (proc.stdout + proc.stderr).splitlines() if "ulimit -f" in line)
    needs = float(warning.split("up to about ")[1].split(" MB")[0])
    assert "is 5.00 MB: this run's checkpoints (" in warning
    # the estimate bounds the checkpoint that AdamW's two moments make largest
    last = (tmp_path / "run" / "checkpoints" / "last.ckpt").stat().st_size
    assert last / 2**20 <= needs, (last, needs)


@pytest.mark.slow
def test_a_file_size_limit_below_the_checkpoints_is_one_line_before_training(tmp_path, data_dir):
    deep = [arg for arg in TINY if not arg.startswith(("depth=", "width="))] + ["depth=100", "width=50"]
    proc = run_under_file_size_limit(deep, tmp_path, int(1.5 * 2**20))
    line = one_line(proc)
    # 99 highway layers of 2 x (50 x 50 + 50) parameters, the stem's 785 x 50 and the head's 51 x 10
    assert line == ("the file-size limit (ulimit -f) is 1.50 MB; this run's checkpoints (544,660 parameters, "
                    "with the optimiser's state) are up to about 7.23 MB. Fix: raise it (ulimit -f "
                    "unlimited) before starting the run.")
    checkpoints = tmp_path / "run" / "checkpoints"
    assert not checkpoints.exists() or not any(checkpoints.iterdir())


@pytest.mark.slow
def test_a_read_only_run_folder_is_one_line_before_hydra_writes(tmp_path, data_dir):
    # before: "Unable to configure handler 'file'" and a traceback
    with mounted("--bind", str(tmp_path / "run"), target=tmp_path / "run"):
        line = one_line(run_train(TINY, tmp_path))
    assert line.startswith(f"hydra.run.dir={tmp_path}/run: cannot write the run's folder (on a read-only")
    assert "paths.log_dir=" in line


@pytest.mark.slow
def test_a_read_only_outputs_folder_is_one_line_for_a_multirun(tmp_path, data_dir):
    with mounted("--bind", str(tmp_path / "out"), target=tmp_path / "out"):
        proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "-m",
                               *[o for o in TINY if not o.startswith("depth=")], "depth=2,3",
                               f"paths.log_dir={tmp_path}/out"], capture_output=True, text=True,
                              timeout=300, env=subprocess_env(), cwd=tmp_path)
    line = one_line(proc)
    assert line.startswith(f"hydra.sweep.dir={tmp_path}/out/multiruns/")
    assert "(on a read-only file system" in line
    assert os.listdir(tmp_path / "out") == []


# --- second breaking pass (issue 11): each row was a traceback, a misleading or a silent result ---

@pytest.mark.parametrize(("override", "message"), [
    ("trainer.limit_train_batches=0", "trainer.limit_train_batches=0 trains nothing"),
    ("trainer.limit_train_batches=1.5", "trainer.limit_train_batches=1.5 must be a fraction of the batches"),
    ("trainer.limit_val_batches=-1", "trainer.limit_val_batches=-1 must be a fraction of the batches"),
    ("trainer.devices=0", "trainer.devices=0 must be a number of devices >= 1"),
    ("trainer.devices=[]", "trainer.devices=[] must be a number of devices >= 1")])
def test_trainer_values_lightning_would_misreport_are_refused_by_key(override, message, tmp_path):
    # before: limit_train_batches=0 tested the untrained net (exit 0); 1.5 and devices=0 were
    # Lightning's message with a fix about GPUs
    with pytest.raises(ConfigError, match=re.escape(message)):
        train(compose_cfg(TINY + [override], tmp_path))
    assert not (tmp_path / "metrics.json").exists()


def test_a_gpu_trainer_without_a_gpu_names_the_cpu_trainers(tmp_path):
    with pytest.raises(ConfigError, match=r"trainer.accelerator=gpu: this machine has no GPU .*Fix: on a "
                                          r"machine without a GPU use trainer=cpu"):
        train(compose_cfg(TINY + ["trainer=gpu"], tmp_path))


@pytest.mark.parametrize("overrides", [["depth=1"],
                                       ["model=conv_highway", "model.stages=[{channels:4,layers:0}]"]])
@pytest.mark.slow
def test_a_net_without_highway_layers_trains_and_the_stripes_are_skipped(overrides, tmp_path, data_dir):
    # before: ValueError "stack_layers needs at least one tensor" from CarryStripeMonitor at the
    # first epoch end (depth=1: the stem alone; a conv net of one stage of 0 layers: the stem alone)
    cfg = compose_cfg([o for o in TINY if not o.startswith(("depth", "width"))] + overrides, tmp_path)
    with pytest.warns(UserWarning, match="CarryStripeMonitor: the backbone has no highway/residual layer"):
        metrics = train(cfg)
    assert metrics["global_step"] == 4 and math.isfinite(metrics["train/loss"])
    assert metrics["depth"] == 1


@pytest.mark.slow
def test_a_net_without_layers_is_one_warning_from_the_lesion_and_grad_norm_monitors(tmp_path, data_dir):
    # before: LesionMonitor warned 'figure lesion/error_by_layer at step 3 skipped: ValueError: "Training
    # error with one layer lesioned ...": every value is NaN' and wrote a header-only lesion/table;
    # LayerGradNormMonitor wrote nothing and said nothing
    import warnings

    tiny = [o for o in TINY if not o.startswith(("depth", "width", "trainer.max_epochs"))]
    cfg = compose_cfg(["callbacks=analysis", *tiny, "depth=1", "trainer.max_epochs=2"], tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        metrics = train(cfg)
    said = [str(w.message) for w in caught]
    lesion = [m for m in said if m.startswith("LesionMonitor: the backbone has no highway/residual layer")]
    grads = [m for m in said if m.startswith("LayerGradNormMonitor: the backbone has no highway/residual")]
    assert len(lesion) == 1 and "no layer to lesion" in lesion[0]
    assert len(grads) == 1  # once, though two epochs ended
    assert not [m for m in said if "every value is NaN" in m]
    assert metrics["global_step"] == 8
    figures = Path(cfg.paths.output_dir) / "figures"
    assert not list(figures.glob("lesion*")) and not list(figures.glob("grad_norm*"))  # before: lesion_table/


def test_a_val_size_leaving_one_example_names_val_size_not_the_label_file(tmp_path, data_dir):
    # before: "all 1 training labels from .../train-labels-idx1-ubyte are class 3 ... copy the real
    # label file there again": the file was fine
    with pytest.raises(ConfigError, match=r"data\.val_size=59999 leaves 1 training example\(s\) of 60000"):
        train(compose_cfg(TINY + ["data.val_size=59999"], tmp_path))


def test_scheduler_interval_is_checked_by_key_before_any_logger_starts(tmp_path):
    with pytest.raises(Exception) as refused:  # raised inside instantiate: Hydra wraps it
        train(compose_cfg(TINY + ["optim.scheduler_interval=foo"], tmp_path))
    assert str(user_error(refused.value)).startswith(
        "optim.scheduler_interval='foo' must be one of epoch, step")


def test_one_epoch_log_key_given_alone_is_a_list_of_one(tmp_path):
    # before: a string was refused after the imports ("must be a list"); earlier still, it was read
    # as a list of its characters. Now it is one key, as tags=foo is one tag
    from highwaylab.callbacks import EpochLogger

    cfg = compose_cfg(TINY + ["callbacks.epoch_log.keys=val/acc"], tmp_path)
    validate(cfg)
    assert EpochLogger(keys=cfg.callbacks.epoch_log["keys"]).keys == ["val/acc"]


def test_an_epoch_log_key_given_twice_is_shown_once_where_it_first_stands(tmp_path):
    # before: 'callbacks.epoch_log.keys=[val/acc,val/acc]' printed "val/acc 0.5000  val/acc 0.5000"
    # in every epoch line
    from highwaylab.callbacks import EpochLogger

    cfg = compose_cfg(TINY + ["callbacks.epoch_log.keys=[val/acc,train/loss,val/acc,train/loss]"], tmp_path)
    validate(cfg)
    assert EpochLogger(keys=cfg.callbacks.epoch_log["keys"]).keys == ["val/acc", "train/loss"]


@pytest.mark.slow
def test_an_epoch_log_key_the_run_does_not_log_is_named_once(tmp_path, data_dir, caplog):
    cfg = compose_cfg([o for o in TINY if o != "trainer.max_epochs=1"]
                      + ["trainer.max_epochs=2", "callbacks.epoch_log.keys=[train/loss,val_acc]"],
                      tmp_path)
    with caplog.at_level("INFO", logger="highwaylab.callbacks.epoch_log"):
        train(cfg)
    warned = [r.getMessage() for r in caplog.records
              if r.levelname == "WARNING" and r.name == "highwaylab.callbacks.epoch_log"]
    assert len(warned) == 1
    assert warned[0].startswith("callbacks.epoch_log.keys: val_acc not logged by this run")
    assert "val/acc" in warned[0]  # the keys that are logged, to pick from
    epochs = [r.getMessage() for r in caplog.records if r.getMessage().startswith("epoch ")]
    assert len(epochs) == 2 and all("train/loss " in line for line in epochs)


@pytest.mark.slow
def test_a_damaged_last_checkpoint_names_the_intact_one_to_resume_from(tmp_path, data_dir):
    run = tmp_path / "run"
    two_epochs = [o for o in TINY if o != "trainer.max_epochs=1"] + ["trainer.max_epochs=2", "test=false"]
    first = run_train(two_epochs, tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    last = run / "checkpoints" / "last.ckpt"
    last.write_bytes(last.read_bytes()[:1000])  # cut short, as by a full disk or a kill
    message = one_line(subprocess.run([sys.executable, str(ROOT / "train.py"), f"resume={run}",
                                       "trainer.max_epochs=3"], capture_output=True, text=True,
                                      timeout=300, env=subprocess_env(), cwd=tmp_path))
    assert message.startswith(f"resume={run}: {last} is not a readable Lightning checkpoint: damaged")
    own = [o for o in two_epochs if o != "trainer.max_epochs=2"]  # the run's overrides, then the extra
    command = " ".join(shlex.quote(o) for o in [*own, f"paths.log_dir={tmp_path}", "trainer.max_epochs=3"])
    assert message.endswith(f"Fix: resume from another of the run's checkpoints: python train.py {command} "
                            f"ckpt_path={run}/checkpoints/epoch_001.ckpt hydra.run.dir={run}")


def test_a_failed_download_is_one_line_naming_the_files_to_copy(tmp_path):
    from highwaylab.data import MNISTDataModule

    dm = MNISTDataModule(data_dir=str(tmp_path), download=True)
    # torchvision's report of a failed download: one paragraph per mirror tried
    report = ("Error downloading train-images-idx3-ubyte.gz:\nTried https://a/, got:\n<urlopen error "
              "[Errno -2] Name or service not known>\nTried http://b/, got:\n<urlopen error [Errno -2] "
              "Name or service not known>\n")
    from highwaylab.data.checks import download_error

    err = download_error("MNIST", dm.raw_folder, RuntimeError(report), dm._fix_hint(download=False))
    assert "\n" not in str(err)
    assert str(err).startswith(f"data.download=true: downloading MNIST into {dm.raw_folder} failed "
                               "(urlopen error [Errno -2] Name or service not known;")
    assert "set data.download=true" not in str(err)  # the fix is not the setting that failed


@pytest.mark.slow
def test_depth_given_to_a_conv_model_is_named_as_unused(tmp_path, data_dir, caplog):
    proc = run_train(["model=conv_plain", "model.stages=[{channels:4,layers:2}]", "depth=50",
                      *[o for o in TINY if not o.startswith("depth")]], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert ("depth=50 is not used by model=conv_plain: a conv net's depth and channels follow "
            "model.stages (this one: depth 3") in proc.stdout
    # pass 91, row 39c: the stages are given here: before, "Fix: set the stages", and then the same warning
    assert "in its name, tags and metrics.json). Fix: leave depth=50 out (model.stages, given here, sets " \
           "them)" in proc.stdout
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["depth"] == 3


@pytest.mark.slow
def test_depth_given_to_a_conv_model_file_of_ones_own_names_that_file(tmp_path, data_dir):
    # pass 96, row 51: a model file of one's own with its stages; before, "Fix: set the stages", set there
    (tmp_path / "mine" / "model").mkdir(parents=True)
    (tmp_path / "mine" / "model" / "tinyconv.yaml").write_text(
        "defaults: [conv_highway]\nstages:\n  - {channels: 4, layers: 2}\n")
    proc = run_train(["--config-dir", str(tmp_path / "mine"), "model=tinyconv", "depth=3",
                      *[o for o in TINY if not o.startswith("depth")]], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "(this one: depth 3, in its name, tags and metrics.json). Fix: leave depth=3 out for it " \
           "(model=tinyconv's own file sets its stages)" in proc.stdout


@pytest.mark.slow
def test_depth_given_with_a_conv_experiment_says_to_leave_it_out(tmp_path, data_dir):
    # eighteenth pass: before, the fix said "... or an experiment=paper_mnist_conv16", the one given
    limits = [o for o in TINY if o.startswith(("trainer.limit", "trainer.max_epochs", "logger="))]
    proc = run_train(["experiment=paper_mnist_conv16", "depth=5", "callbacks=minimal", *limits], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Fix: leave depth=5 out (experiment=paper_mnist_conv16 sets the stages)" in proc.stdout


@pytest.mark.slow
@pytest.mark.parametrize(("overrides", "message"), [
    (["hydra.sweeper.n_trials=0"], "hydra.sweeper.n_trials=0 must be an integer >= 1"),
    (["seed=-1"], "seed=-1 must be an integer in 0 .. 4294967295"),
    (["hydra.sweeper.n_trials=2", "depth=0"], "all 2 trials of the search failed")])
def test_a_search_that_cannot_give_best_parameters_is_one_line(overrides, message, tmp_path):
    # before: optuna's "ValueError: No trials are completed yet" (n_trials=0, every trial failed)
    # and "Seed must be between 0 and 2**32 - 1" from the sampler, as tracebacks
    given = {o.split("=", 1)[0] for o in overrides}  # replaced, not repeated: a multirun refuses that
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "-m", "hparams_search=mnist_random",
                           *[o for o in TINY if o.split("=", 1)[0] not in given], *overrides,
                           f"paths.log_dir={tmp_path}", f"hydra.sweep.dir={tmp_path}/sweep"],
                          capture_output=True, text=True, timeout=600, env=subprocess_env(), cwd=tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in output, output[-3000:]
    final = [line for line in output.splitlines() if line.startswith("highwaylab: ")]
    assert len(final) == 1 and final[0].startswith(f"highwaylab: {message}"), output[-3000:]


# --- third breaking pass (issue 11): rows found by a fresh hostile user -----------------------------

@pytest.mark.parametrize(("overrides", "message"), [
    (["trainer.max_epochs=abc"], "trainer.max_epochs='abc' must be an integer >= -1 (-1: no limit)"),
    (["trainer.max_epochs=1.5"], "trainer.max_epochs=1.5 must be an integer >= -1"),
    (["+trainer.accumulate_grad_batches=0"], "trainer.accumulate_grad_batches=0 must be an integer >= 1"),
    (["trainer.log_every_n_steps=-1"], "trainer.log_every_n_steps=-1 must be an integer >= 1"),
    (["trainer.min_epochs=5"], "trainer.min_epochs=5 is more than trainer.max_epochs=1"),
    (["module.compile=maybe"], "module.compile='maybe' must be true or false"),
    (["logger=wandb", "logger.wandb.offline=no"], "logger.wandb.offline='no' must be true or false"),
    (["run_name="], "run_name='' must be a non-empty plain name")])
def test_values_lightning_would_fail_on_far_away_or_read_as_true_are_refused(overrides, message, tmp_path):
    # before: AssertionError in Lightning's fit loop (max_epochs=abc, 1.5), ZeroDivisionError
    # (accumulate 0), every step logged (-1), one epoch despite min_epochs=5, compile=maybe compiled,
    # logger.wandb.offline=no logged offline, run_name= gave a nameless W&B run
    with pytest.raises(Exception) as refused:
        train(compose_cfg(TINY + overrides, tmp_path))
    assert str(user_error(refused.value)).startswith(message)
    assert not (tmp_path / "metrics.json").exists()


@pytest.mark.slow
def test_resume_refuses_a_new_seed_and_resumes_a_search_trial_as_one_run(tmp_path, data_dir):
    from highwaylab.utils.resume import ResumeError, rewrite_argv

    proc = run_train([*TINY, "test=false"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    run = tmp_path / "run"
    # before: accepted; the run went on under seed 5, whose batch order the checkpoint is not of
    changed = r"seed=5 cannot apply to the run's checkpoint: it changes seed \(0 -> 5\)"
    with pytest.raises(ResumeError, match=changed):
        rewrite_argv(["train.py", f"resume={run}", "seed=5", "trainer.max_epochs=2"], ROOT / "conf")
    # a trial of hparams_search=...: before, resume= started a whole new 20-trial search (exit 0)
    record = run / ".hydra" / "overrides.yaml"
    record.write_text(yaml.safe_dump(yaml.safe_load(record.read_text()) + ["hparams_search=mnist_random"]))
    argv = rewrite_argv(["train.py", f"resume={run}", "trainer.max_epochs=2"], ROOT / "conf")
    assert not any(a.startswith("hparams_search=") for a in argv)
    assert f"hydra.run.dir={run}" in argv and f"ckpt_path={run}/checkpoints/last.ckpt" in argv


@pytest.mark.slow
def test_ctrl_c_during_start_up_is_one_line_and_130(tmp_path):
    import signal

    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), *TINY, f"hydra.run.dir={tmp_path}/run"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                            env=subprocess_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # a terminal's
    time.sleep(1.0)  # during the imports
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in output, output[-3000:]
    last = output.strip().splitlines()[-1]
    assert last == "highwaylab: interrupted by SIGINT during start-up: nothing was saved."


@pytest.mark.slow
def test_a_signal_during_a_resumes_start_up_says_the_run_is_as_it_was_and_how_to_continue(tmp_path, data_dir):
    # pass 39, row 43: before, SIGTERM during a resume's start-up said only "nothing was saved", which
    # read as if the run's state were gone, and did not give the resume command again
    import signal

    run = tmp_path / "earlier run"
    first = subprocess.run([sys.executable, str(ROOT / "train.py"), *TINY, f"hydra.run.dir={run}"],
                           capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=tmp_path)
    assert first.returncode == 0, (first.stdout + first.stderr)[-3000:]
    saved = (run / "checkpoints" / "last.ckpt").read_bytes()
    proc = subprocess.Popen([sys.executable, str(ROOT / "train.py"), f"resume={run}", "trainer.max_epochs=2"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                            env=subprocess_env())
    deadline = time.monotonic() + 120
    while not list(run.glob(".hydra/resumed_*/overrides.yaml")) and proc.poll() is None:  # Hydra wrote
        assert time.monotonic() < deadline  # this start's record: the task's checks and imports follow
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 143 and "Traceback" not in output, output[-3000:]
    assert output.strip().splitlines()[-1] == (
        f"highwaylab: interrupted by SIGTERM during start-up: nothing was saved, and the run it resumes is "
        f"as it was (its checkpoints untouched). Continue it with the same command: python train.py "
        f"'resume={run}' trainer.max_epochs=2")
    assert (run / "checkpoints" / "last.ckpt").read_bytes() == saved


@pytest.mark.slow
@pytest.mark.parametrize(("name", "status"), [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_after_hydra_made_the_run_folder_removes_it_so_the_command_runs_again(name, status, tmp_path,
                                                                                       data_dir):
    # pass 26, row 48: before, `timeout -s INT 2 python train.py ... hydra.run.dir=<run>` left <run>/.hydra/
    # and train.log, and the same command again was refused ("holds the record of a run that wrote no
    # checkpoint ... rm -r <run>"). Pass 28, row f54: SIGTERM there was silent, exit status 143, and left
    # .hydra/ and an empty train.log, and the same command again was refused
    import signal

    run = tmp_path / "run"
    command = [sys.executable, str(ROOT / "train.py"), *TINY, f"paths.log_dir={tmp_path}",
               f"hydra.run.dir={run}"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=tmp_path, env=subprocess_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not (run / ".hydra" / "overrides.yaml").exists() and proc.poll() is None:  # Hydra made the
        assert time.monotonic() < deadline  # folder: the task's checks and imports (torch) follow
        time.sleep(0.01)
    proc.send_signal(getattr(signal, name))
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == status and "Traceback" not in output, output[-3000:]
    last = output.strip().splitlines()[-1]
    assert last == f"highwaylab: interrupted by {name} during start-up: nothing was saved."
    assert not run.exists()
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=subprocess_env(),
                           cwd=tmp_path)
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]


@pytest.mark.slow
def test_an_extension_stopped_before_it_trained_leaves_the_runs_own_settings(tmp_path, data_dir):
    # pass 31, rows 56, 57, 72 (major): before, `resume=<run> trainer.max_epochs=2` stopped by Ctrl-C after
    # Hydra wrote its record left .hydra/resumed_<time>/ with max_epochs=2, and every later resume= (the
    # same command, and the one the interruption's line gave) was refused: "the run has finished: it stopped
    # at the end of epoch 0 ..., before trainer.max_epochs=2 ... start a new run"
    import signal

    run = tmp_path / "run"
    first = run_train([*TINY, "logger=none", f"hydra.run.dir={run}"], tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    command = [sys.executable, str(ROOT / "train.py"), f"resume={run}", "trainer.max_epochs=2"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=tmp_path, env=subprocess_env(),
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while not list((run / ".hydra").glob("resumed_*/overrides.yaml")) and proc.poll() is None:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, output[-3000:]
    assert not list((run / ".hydra").glob("resumed_*")) and list((run / ".hydra").glob("refused_*"))
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, env=subprocess_env(),
                           cwd=tmp_path)
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    assert json.loads((run / "metrics.json").read_text())["epochs"] == 2

@pytest.mark.parametrize("max_time", ["{minutes:1.5}", "00:00:01:30"])
def test_max_time_in_lightnings_forms_reaches_its_timer(max_time, tmp_path, data_dir):
    # pass 26, row 67: before, the mapping form reached Lightning's Timer as an omegaconf mapping:
    # "Missing key total_seconds" after the loggers had started
    from lightning.pytorch.callbacks import Timer

    from highwaylab.train import build

    cfg = compose_cfg([*TINY, f"+trainer.max_time={max_time}", "trainer.min_epochs=0"], tmp_path)
    validate(cfg)
    timer = next(cb for cb in build(cfg).trainer.callbacks if isinstance(cb, Timer))
    assert timer._duration == 90.0


def test_help_with_an_unknown_option_is_not_a_traceback(tmp_path):
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--help", "model=foo"],
                          capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stdout + proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.startswith("highwaylab: In 'train': Could not find 'model/foo'")


@pytest.mark.parametrize(("override", "message"), [
    ("+data.foo=1", "data.foo is not an argument of highwaylab.data.MNISTDataModule. Fix: correct or "
                    "remove it"),
    ("+trainer.fast_dev_runn=1", "trainer.fast_dev_runn is not an argument of lightning.pytorch.Trainer; did "
                                 "you mean trainer.fast_dev_run? Fix: correct or remove it"),
    # before torch since this session (utils/hardware.py); before, Lightning's ValueError and
    # "Requirement 'torch_xla>=1.13' not met", after the imports
    ("trainer.precision=8", "trainer.precision=8 is not one of Lightning's precisions"),
    ("trainer.accelerator=tpu", "trainer.accelerator=tpu needs torch_xla, which is not installed here. Fix: "
                                "trainer=cpu"),
    ("optim.scheduler._target_=torch.optim.lr_scheduler.Nope",
     "optim.scheduler._target_ cannot be imported")])
def test_a_setting_a_component_rejects_is_one_line_naming_its_key(override, message, tmp_path):
    # before: Hydra's "Error in call to target ..." with full_key (module.scheduler for the
    # scheduler), no highwaylab line and no fix; for tpu, a hint to pip install torch_xla
    with pytest.raises(ConfigError) as refused:
        train(compose_cfg(TINY + [override], tmp_path))
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)


@pytest.mark.parametrize(("overrides", "message"), [
    (["~model"], "the model group is missing (removed by ~model?): a run needs one; choose one of "
                 "those python train.py --help lists, or leave ~model out"),
    (["optim.optimizer.momentum=2"], "optim.optimizer.momentum=2 is outside [0, 1): the velocity would grow"),
    # pass 44, row 22: before, min_steps above what max_epochs allows was left unmet, without a word
    (["+trainer.min_steps=10"], "trainer.min_steps=10 is more than the 4 steps that trainer.max_epochs=1 "
                                "allows (4 an epoch), and max_epochs wins: the run would stop at step 4. "
                                "Fix: trainer.max_epochs=3, or a lower trainer.min_steps"),
    # pass 46, row 69 (major): before, 1000 with 4 batches an epoch trained one step an epoch at 1/250 of
    # the rate, near chance, without a word
    (["+trainer.accumulate_grad_batches=1000"], "trainer.accumulate_grad_batches=1000 is more than the 4 "
     "batches of an epoch: Lightning divides each batch's loss by 1000 and steps at the epoch's end, so "
     "every step would be 250 times too small. Fix: +trainer.accumulate_grad_batches=4 or less"),  # pass 90,
    # row 31 (major): before, the fix lacked the '+', and the presets have no such key: refused in turn
    # pass 42, row 8: before, a negative momentum was said to make the velocity grow
    (["optim.optimizer.momentum=-0.5"], "optim.optimizer.momentum=-0.5 is outside [0, 1): each step would "
                                        "subtract a share of the last one's velocity"),
    (["callbacks=analysis", "callbacks.gate_stats.every_n_steps=abc"],
     "callbacks.gate_stats.every_n_steps='abc' must be an integer >= 0"),
    (["callbacks.last_checkpoint.filename=../../escaped"],
     "callbacks.last_checkpoint.filename='../../escaped' must be a plain file name"),
    # sixth pass: before, "refused by Linear (TypeError ... 'lr')", with a fix about the arguments
    (["optim.optimizer._target_=torch.nn.Linear"],
     "optim.optimizer._target_=torch.nn.modules.linear.Linear is not an optimiser (a subclass of "
     "torch.optim.optimizer.Optimizer). Fix: e.g. optim.optimizer._target_=torch.optim.SGD")])
def test_more_values_found_by_the_third_pass_are_refused(overrides, message, tmp_path):
    # before: an InterpolationKeyError traceback (~model); momentum 2 accepted and the run diverged
    # with a fix about the learning rate; TypeError "'<' not supported" (every_n_steps=abc);
    # last.ckpt written outside the run folder, where resume= cannot find it
    with pytest.raises(Exception) as refused:
        train(compose_cfg(TINY + overrides, tmp_path))
    assert str(user_error(refused.value)).startswith(message)


def test_a_run_without_its_record_is_refused_before_hydra_writes(tmp_path):
    from highwaylab.utils.resume import ResumeError, rewrite_argv

    # before: the run could never be resumed ("is not a run folder"), yet a new run in its folder
    # was told to resume it
    with pytest.raises(ResumeError, match=r"hydra\.output_subdir=null would leave the run without its"):
        rewrite_argv(["train.py", "hydra.output_subdir=null", f"hydra.run.dir={tmp_path}/run"], ROOT / "conf")
    # fourteenth pass: before, hydra.output_subdir=meta was accepted (no .hydra/, no run-folder lock),
    # then resume= said "is not a run folder" while a new run there was told to resume it
    with pytest.raises(ResumeError, match=r"^hydra\.output_subdir=meta: the run.s record must be its"):
        rewrite_argv(["train.py", "hydra.output_subdir=meta", f"hydra.run.dir={tmp_path}/run"], ROOT / "conf")
    assert not (tmp_path / "run").exists()



def test_a_dataset_contradicting_the_data_choice_is_refused(tmp_path):
    # before: data=fashion_mnist data.dataset=mnist trained on MNIST in a run named fashion_mnist-...
    cfg = compose_cfg(TINY + ["data=fashion_mnist", "data.dataset=mnist"], tmp_path)
    with pytest.raises(ConfigError, match=r"data\.dataset=mnist contradicts data=fashion_mnist"):
        train(cfg)


@pytest.mark.slow
def test_a_search_for_a_metric_no_run_logs_is_refused_before_any_trial(tmp_path):
    # before: every trial trained, then failed with "optimized_metric=val/acx was not logged"
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "-m", "hparams_search=mnist_random",
                           "optimized_metric=val/acx", f"hydra.sweep.dir={tmp_path}/sweep"],
                          capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "highwaylab: optimized_metric=val/acx is not a metric of the run")
    assert not list((tmp_path / "sweep").glob("*_mnist-*"))  # no trial ran


def test_an_unwritable_home_gets_one_warning_and_temporary_caches(tmp_path):
    # before: the run went on, but wandb-core wrote its internal log to the console (18 lines, with
    # "ERROR main: failed to get logger path") and matplotlib warned twice, with no word of HOME
    from highwaylab.utils.caches import redirect_unwritable

    env = {"HOME": "/proc/nope"}
    warning = redirect_unwritable(env)
    temp = Path(env["XDG_CACHE_HOME"]).parent
    assert warning == (f"/proc/nope/.cache (from HOME=/proc/nope) and /proc/nope/.config (from "
                       f"HOME=/proc/nope) cannot be written: W&B's, matplotlib's and the data checksums' "
                       f"caches go to {temp} for this run (the checksums are computed again next time). Fix: "
                       f"export XDG_CACHE_HOME and XDG_CONFIG_HOME=<writable folders>, or a writable HOME")
    assert env["XDG_CONFIG_HOME"] == str(temp / "config") and temp.is_dir()
    assert redirect_unwritable(env) is None  # once redirected, nothing more to say
    home = {"HOME": str(tmp_path)}
    assert redirect_unwritable(home) is None and home == {"HOME": str(tmp_path)}
    # tenth pass: W&B's own variable (before: wandb-core's internal log on the console, exit 0)
    env = {"HOME": str(tmp_path), "WANDB_CACHE_DIR": "/proc/nope"}
    warning = redirect_unwritable(env)
    temp = Path(env["WANDB_CACHE_DIR"]).parent
    assert warning == (f"WANDB_CACHE_DIR=/proc/nope cannot be written: those caches go to {temp} for this "
                       f"run. Fix: point WANDB_CACHE_DIR at a writable folder, or unset it")
    assert env["WANDB_CACHE_DIR"] == str(temp / "wandb_cache_dir")
    # pass 67, row 29 (major): torch's compile cache; before, an 81-line traceback from the import of
    # Lightning that never named it
    env = {"HOME": str(tmp_path), "TORCHINDUCTOR_CACHE_DIR": "/proc/nope/inductor"}
    warning = redirect_unwritable(env)
    assert warning.startswith("TORCHINDUCTOR_CACHE_DIR=/proc/nope/inductor cannot be written: those caches "
                              "go to ")
    assert env["TORCHINDUCTOR_CACHE_DIR"].endswith("/torchinductor_cache_dir")


@pytest.mark.slow
def test_an_unwritable_cache_folder_is_one_warning_in_a_run_of_train_py(tmp_path, data_dir):
    # pass 75, row 64: before, matplotlib (imported by the command line's checks, before the redirect)
    # printed "mkdir -p failed for path /proc/nocache/matplotlib" and "Matplotlib created a temporary cache
    # directory at /tmp/matplotlib-..." before highwaylab's warning, which named another folder
    tiny = [o for o in TINY if o != "logger=none"] + ["logger=wandb"]  # the default's logger
    proc = run_train(tiny, tmp_path, env=subprocess_env(XDG_CACHE_HOME="/proc/nocache", WANDB_MODE="offline"))
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-3000:]
    assert "mkdir -p failed" not in output, output[:3000]
    assert "Matplotlib created a temporary cache" not in output, output[:3000]
    [line] = [line for line in output.splitlines() if "cannot be written" in line]
    assert line.split("highwaylab: ", 1)[1].startswith(
        "XDG_CACHE_HOME=/proc/nocache cannot be written: W&B's, matplotlib's and the data checksums' caches "
        "go to /tmp/highwaylab-home-")
    assert line in (tmp_path / "run" / "train.log").read_text()


def test_an_unset_home_is_set_from_the_password_database_with_one_warning():
    # pass 26, row 82: before, env -u HOME put 18 lines of W&B's internal log on the console ("ERROR
    # Unable to find cache directory ... neither $XDG_CACHE_HOME nor $HOME are defined")
    import pwd

    from highwaylab.utils.caches import redirect_unwritable

    home = pwd.getpwuid(os.getuid()).pw_dir
    env: dict[str, str] = {}
    assert redirect_unwritable(env) == (
        f"HOME is not set (env -u HOME?): W&B and matplotlib need it, so it is set to {home}, this user's "
        f"home in the password database, for this run. Fix: export HOME={home}")
    assert env == {"HOME": home}


def test_a_per_step_schedule_records_the_rate_of_its_last_logged_step(tmp_path, data_dir):
    # pass 52, row 24: before, metrics.json's train/lr was the rate at the epoch's start (0.05), with the
    # rate divided by 10 at steps 3 and 4 (0.0005 in the checkpoint) and no word
    cfg = compose_cfg([*TINY[:-1], "logger=csv", "optim=sgd_step", "optim.scheduler_interval=step",
                       "optim.scheduler.milestones=[3,4]", "trainer.log_every_n_steps=1",
                       "trainer.limit_train_batches=5"], tmp_path)
    metrics = train(cfg)
    assert metrics["train/lr"] == pytest.approx(0.05 * 0.1 * 0.1)  # logged at the start of step 4 (0-based)
    rows = list(csv.DictReader(next(Path(cfg.paths.output_dir).rglob("metrics.csv")).open()))
    assert [float(r["train/lr"]) for r in rows if r.get("train/lr")] == pytest.approx(
        [0.05, 0.05, 0.05, 0.005, 0.0005])


@pytest.mark.slow
def test_reduce_lr_on_plateau_watches_the_validation_loss(tmp_path, data_dir):
    # before: Lightning's "The lr scheduler dict must include a monitor ...", which no config key set
    cfg = compose_cfg(TINY + ["trainer.max_epochs=3", "optim.scheduler._target_=torch.optim.lr_scheduler."
                              "ReduceLROnPlateau", "~optim.scheduler.gamma", "+optim.scheduler.patience=0",
                              "+optim.scheduler.factor=0.5", "optim.optimizer.lr=1e-6", "logger=csv"],
                      tmp_path)
    metrics = train(cfg)
    assert metrics["epochs"] == 3
    # lr 1e-6 learns next to nothing: val/loss does not improve in epoch 1, so the rate is halved
    # (train/lr: the rate of the last epoch, 2)
    assert metrics["train/lr"] == pytest.approx(0.5e-6)


@pytest.mark.slow
def test_a_run_with_its_logging_disabled_still_prints_its_error(tmp_path, data_dir):
    # before: exit 1 with no message anywhere (the highwaylab logger was disabled), an empty train.log
    proc = run_train([*TINY, "hydra/job_logging=disabled", "+optim.optimizer.nestrov=true"],  # in the job
                     tmp_path)
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab: ")]
    assert lines[0] == ("highwaylab: hydra/job_logging=disabled: the log (the epoch lines, the metrics) is "
                        "not shown and train.log is not written; an error still prints here. To see the log "
                        "and keep it in train.log, leave hydra/job_logging=disabled out")
    assert lines[1].startswith("highwaylab: optim.optimizer.nestrov=true: SGD (torch.optim.SGD) has no "
                               "argument nestrov; did you mean optim.optimizer.nesterov?")
    assert len(lines) == 2 and "Traceback" not in proc.stderr


def test_a_checkpoint_path_that_is_no_file_says_what_it_is(tmp_path):
    # tenth pass: before, ckpt_path=/dev/null (or a FIFO) "does not exist"
    from highwaylab.train import read_checkpoint

    fifo = tmp_path / "fifo.ckpt"
    os.mkfifo(fifo)
    hint = "give the path of a .ckpt file, e.g. ckpt_path=outputs/runs/<run>/checkpoints/last.ckpt"
    for path, kind in (("/dev/null", "a character device"), (str(fifo), "a FIFO"),
                       (str(tmp_path), "a folder")):
        with pytest.raises(ConfigError) as err:
            read_checkpoint(path)
        assert str(err.value) == f"ckpt_path={path} is {kind}, not a checkpoint file; {hint}"
    with pytest.raises(ConfigError, match=rf"^ckpt_path={tmp_path}/none.ckpt does not exist; give"):
        read_checkpoint(str(tmp_path / "none.ckpt"))


@pytest.mark.slow
def test_a_run_folder_deleted_during_the_run_is_one_line(tmp_path, data_dir):
    # before: "The run failed: FileNotFoundError(2, ...)" and two tracebacks from the CSV logger
    # ('.../csv/version_0/metrics.csv'); no line said that the run's folder had gone
    run = tmp_path / "run"
    rm = ["+callbacks.rm._target_=tests.signal_at.DeleteRunFolderAt", "+callbacks.rm.step=5"]
    tiny = [o for o in TINY if not o.startswith(("logger=", "trainer.limit_train_batches="))]
    proc = run_train([*tiny, "logger=csv", "callbacks=minimal", "trainer.limit_train_batches=60", *rm],
                     tmp_path)
    assert one_line(proc) == folder_gone(run, run / "csv" / "version_0" / "metrics.csv")
    assert "The run failed" not in proc.stdout + proc.stderr


def folder_gone(run: Path, file: Path) -> str:
    """The line of a run whose folder ``run`` went away while it trained, found when ``file`` was written."""
    return (f"the run's folder {run} disappeared during the run (deleted, or moved away): {file} could not "
            f"be written. What it held went with it; start the run again, or, if you moved it, resume it "
            f"from its new place: python train.py resume=<its new folder>")


@pytest.mark.slow
def test_a_run_folder_moved_during_the_run_is_one_line_and_not_made_again(tmp_path, data_dir):
    # pass 40, row 65 (major): before, `mv <run> <run>_moved` while the run trained (W&B logger, figures)
    # and its next checkpoints and metrics.json went into a new <run>, its record stayed in <run>_moved,
    # exit 0; a resume of the moved folder was told it "stopped before its first checkpoint"
    run, moved = tmp_path / "run", tmp_path / "run_moved"
    mv = ["+callbacks.mv._target_=tests.signal_at.MoveRunFolderAt", "+callbacks.mv.step=5"]
    tiny = [o for o in TINY if not o.startswith(("logger=", "trainer.limit_train_batches=", "trainer.max_"))]
    proc = run_train([*tiny, "logger=wandb", "trainer.max_epochs=2", "trainer.limit_train_batches=4", *mv],
                     tmp_path)
    assert one_line(proc) == folder_gone(run, run / "checkpoints" / "epoch_001.ckpt")
    # before: made again, with checkpoints/ and metrics.json (W&B's own process still writes its files by
    # their old path, under run/wandb/)
    assert not (run / "checkpoints").exists() and not (run / "metrics.json").exists()
    assert (moved / "checkpoints" / "last.ckpt").is_file() and (moved / ".hydra").is_dir()
    again = run_train([f"resume={moved}", "callbacks.mv.step=-1"], tmp_path, run_dir=False)  # the fix
    assert again.returncode == 0, (again.stdout + again.stderr)[-3000:]
    assert json.loads((moved / "metrics.json").read_text())["global_step"] == 8


def test_a_metrics_file_that_cannot_be_written_is_one_line_with_the_fix(tmp_path):
    # pass 32, row 9 (major): before, a protected (immutable) metrics.json gave Hydra's traceback of
    # "PermissionError: [Errno 1] Operation not permitted: '<run>/metrics.json.tmp' -> '<run>/metrics.json'"
    # after the whole extension and its test, with no fix, and left metrics.json.tmp behind
    from highwaylab.errors import MetricsWriteError
    from highwaylab.train import write_metrics

    run = tmp_path / "run"
    (run / "metrics.json").mkdir(parents=True)  # a folder in the way
    metrics = {"test/acc": 0.91234, "epochs": 2}
    with pytest.raises(MetricsWriteError) as err:
        write_metrics(run, metrics)
    assert str(err.value) == (
        f"could not write {run}/metrics.json (Is a directory): the run trained and tested (test/acc 0.9123), "
        f"and its checkpoints are saved. Fix: move the folder {run}/metrics.json away (a file goes there), "
        f"then python train.py resume={run} tests it again and writes the file")
    assert sorted(p.name for p in run.iterdir()) == ["metrics.json"]  # no metrics.json.tmp left
    (run / "metrics.json").rmdir()
    (run / "metrics.json").write_text("{}")
    with protected(run / "metrics.json"), pytest.raises(MetricsWriteError) as err:  # skipped without chattr
        write_metrics(run, {"epochs": 2})  # test=false: no test/acc
    assert str(err.value) == (
        f"could not write {run}/metrics.json (Operation not permitted): the run trained, and its checkpoints "
        f"are saved. Fix: move {run}/metrics.json away, or make it writable (a protected file: lsattr shows "
        f"an immutable one, chattr -i clears it), then python train.py resume={run} tests it again and "
        f"writes the file")
    assert sorted(p.name for p in run.iterdir()) == ["metrics.json"]
    write_metrics(run, {"epochs": 2})
    assert json.loads((run / "metrics.json").read_text()) == {"epochs": 2}


def test_logger_wandb_mode_disabled_leaves_the_wandb_logger_out(tmp_path, caplog):
    # pass 35, row 43: before, W&B's dummy run, and metrics.json named the run path
    # "dummy/highwaylab/<id>" and a folder /tmp/wandb/run-... that did not exist
    from highwaylab.utils.loggers import without_disabled_wandb

    cfg = compose_cfg([o for o in TINY if o != "logger=none"]
                      + ["logger=[wandb,csv]", "+logger.wandb.mode=disabled"], tmp_path)
    with caplog.at_level("INFO", logger="highwaylab.utils.loggers"):
        kept = without_disabled_wandb(cfg.logger)
    assert list(kept) == ["csv"]
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "logger.wandb.mode=disabled: no W&B run (logger.wandb left out)"]


def test_the_legacy_wandb_disabled_variable_is_one_warning(tmp_path, monkeypatch, caplog):
    # pass 35, row 29: before, WANDB_DISABLED=true (which wandb no longer reads) wrote an offline W&B run
    # without a word
    from highwaylab.utils.loggers import without_disabled_wandb

    monkeypatch.delenv("WANDB_MODE", raising=False)
    monkeypatch.setenv("WANDB_DISABLED", "true")
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        assert without_disabled_wandb(cfg.logger) is cfg.logger
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        "WANDB_DISABLED=true is set in the environment, but W&B no longer reads it: this run logs to W&B "
        "(offline); for no W&B run, set WANDB_MODE=disabled (or logger=none)"]


def test_wandbs_own_dir_argument_which_save_dir_overrides_is_one_warning(tmp_path, caplog):
    # pass 35, row 44: before, +logger.wandb.dir=<folder> was accepted and nothing went there (the W&B
    # run went to the run folder's wandb/), without a word
    from highwaylab.utils.loggers import without_disabled_wandb

    cfg = compose_cfg([o for o in TINY if o != "logger=none"]
                      + ["logger=wandb", f"+logger.wandb.dir={tmp_path / 'wdir'}"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.utils.loggers"):
        without_disabled_wandb(cfg.logger)
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.utils.loggers"] == [
        f"logger.wandb.dir={tmp_path}/wdir is ignored: Lightning's logger.wandb.save_dir "
        f"({cfg.logger.wandb.save_dir}) chooses the W&B run's folder; to choose it, give "
        f"logger.wandb.save_dir={tmp_path}/wdir"]


def test_a_wandb_entity_that_is_not_a_user_or_team_name_is_refused(tmp_path, monkeypatch):
    # pass 36, row 59: before, WANDB_ENTITY=foo/bar ran, and metrics.json recorded the W&B run path
    # foo/bar/highwaylab/<id>
    from highwaylab.utils.loggers import check_wandb_names

    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    monkeypatch.setenv("WANDB_ENTITY", "foo/bar")
    with pytest.raises(ConfigError) as err:
        check_wandb_names(cfg.logger)
    assert str(err.value) == (
        "WANDB_ENTITY=foo/bar is not a W&B entity (a user or team name: letters, digits, '-', '_' and '.'), "
        "and the run's path would read foo/bar/<project>/<run id>. Fix: the user or team name alone, e.g. "
        "export WANDB_ENTITY=my-team, or leave it out (your default entity)")
    monkeypatch.setenv("WANDB_ENTITY", "my-team")
    check_wandb_names(cfg.logger)  # the fix
    with pytest.raises(ConfigError, match=r"^logger.wandb.entity=a b is not a W&B entity"):
        check_wandb_names(compose_cfg([o for o in TINY if o != "logger=none"]
                                      + ["logger=wandb", "+logger.wandb.entity='a b'"], tmp_path).logger)


def test_a_run_stopped_before_its_first_validation_says_so_without_lightnings_hint(tmp_path, caplog):
    # pass 36, row 44: before, trainer.max_steps=1 printed "ModelCheckpoint(monitor='val/acc') could not find
    # the monitored key ... HINT: Did you call log('val/acc', value)", though the module logs it at validation
    import warnings

    from highwaylab.utils.quiet import quiet_known_notices

    with warnings.catch_warnings(record=True) as caught, caplog.at_level("INFO", logger="highwaylab.train"):
        warnings.simplefilter("always")
        quiet_known_notices()
        metrics = train(compose_cfg([*TINY, "trainer.max_steps=1"], tmp_path))
    assert metrics["best_ckpt"] is None and metrics["global_step"] == 1
    assert not [w for w in caught if "could not find the monitored key" in str(w.message)]
    assert ("Testing the final weights (training stopped before its first validation, so no best checkpoint "
            "was chosen)") in caplog.messages


@pytest.mark.parametrize("blocker", ["file", "dangling link"])
def test_a_file_where_the_figures_folder_goes_is_refused_before_training(tmp_path, data_dir, blocker):
    # pass 39, row 39: before, a file named figures in a resumed run's folder was found at the first
    # figure, mid-run, with no fix: the run went on and ended with exit 0 and no figure files
    cfg = compose_cfg(TINY, tmp_path)
    figures = tmp_path / "figures"
    if blocker == "file":
        figures.write_text("x")
    else:
        figures.symlink_to(tmp_path / "gone")
    what = "a file, not a folder" if blocker == "file" else "a link to nothing"
    with pytest.raises(ConfigError) as err:
        train(cfg)
    assert str(err.value) == (
        f"{figures} is {what}, and the run saves its figure and table files under it (figures/<key>/"
        f"step_<step>.png). Fix: move it away (mv {figures} <elsewhere>) and run the same command again")
    assert not (tmp_path / "checkpoints").exists()  # before anything trained


@pytest.mark.slow
def test_a_run_into_a_sweeps_folder_joins_the_sweeps_wandb_group(tmp_path, data_dir, caplog):
    # pass 39, row 46: before, a failed job run again by hand into its sweep's folder (as the refusal's
    # rm -r fix leads to) had no W&B group: W&B and the report's run left it out of the sweep
    from highwaylab.utils.wandb_offline import summarize

    sweep = tmp_path / "sw4"
    (sweep / "0_mnist-highway-d3-relu-sgd-s0").mkdir(parents=True)
    (sweep / "0_mnist-highway-d3-relu-sgd-s0" / "config_resolved.yaml").write_text(
        "logger:\n  wandb:\n    group: my-group\n")  # the group the sweep's jobs recorded
    (sweep / "multirun.yaml").write_text("hydra: {}\n")
    job = sweep / "1_mnist-highway-d3-relu-sgd-s0"
    with caplog.at_level("INFO", logger="highwaylab.train"):
        train(compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], job))
    assert (f"W&B group my-group: this run's folder is in the sweep {sweep}, so it joins that sweep's group "
            f"(logger.wandb.group=<other> sets another)") in caplog.messages
    recorded = yaml.safe_load((job / "config_resolved.yaml").read_text())
    assert recorded["logger"]["wandb"]["group"] == "my-group"
    assert summarize(job).group == "my-group"
    other = tmp_path / "sw5"  # no job recorded a group: the default group of a multirun
    other.mkdir()
    (other / "multirun.yaml").write_text("hydra: {}\n")
    train(compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], other / "0_job"))
    assert summarize(other / "0_job").group == "sweep-sw5"


def test_a_best_checkpoint_deleted_before_a_run_without_test_is_not_recorded(tmp_path, data_dir, caplog):
    # pass 40, row 47: before, resume=<run> test=false (the fix for a deleted best checkpoint) wrote a
    # metrics.json whose best_ckpt named the deleted file
    rm = ["test=false", "+callbacks.rm._target_=tests.signal_at.DeleteBestAtFitEnd"]
    with caplog.at_level("WARNING", logger="highwaylab.train"):
        metrics = train(compose_cfg(TINY + rm, tmp_path))
    best = tmp_path / "checkpoints" / "epoch_000.ckpt"
    assert metrics["best_ckpt"] is None and not best.exists()
    assert json.loads((tmp_path / "metrics.json").read_text())["best_ckpt"] is None
    assert (f"highwaylab: the best checkpoint {best} is gone (deleted or moved?), so metrics.json records "
            f"best_ckpt: null") in caplog.messages


def test_a_target_of_another_class_names_every_argument_it_does_not_take():
    # pass 55, row 5 (major): model._target_=torch.nn.Linear; before, "model.block is not an argument ...
    # (+model.block=... added it)", a key of the preset, and removing it moved the error to model.depth
    from omegaconf import OmegaConf

    from highwaylab.train import _unknown_argument

    node = OmegaConf.create({"_target_": "torch.nn.Linear", "block": "highway", "depth": 3, "in_features": 4})
    assert str(_unknown_argument(node, "model")) == (
        "model._target_=torch.nn.Linear takes none of model.block, model.depth, which the config gives it: a "
        "_target_ of another class takes other arguments. Fix: leave model._target_ out (the option's own), "
        "or give a class that takes them")
    one = OmegaConf.create({"_target_": "torch.nn.Linear", "in_feature": 4})
    assert str(_unknown_argument(one, "model")) == (  # one key: a typo, or added with '+'
        "model.in_feature is not an argument of torch.nn.Linear; did you mean model.in_features? Fix: "
        "correct or remove it (+model.in_feature=... added it)")


def test_wandb_resume_beside_a_continued_run_is_one_warning(tmp_path, monkeypatch, caplog):
    # pass 75, row 56: before, WANDB_RESUME=never on a resume was ignored without a word (the logger passes
    # resume=allow, which W&B takes over the variable)
    from highwaylab.train import continue_wandb_run

    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    checkpoint = {"logger_versions": {"WandbLogger": "ab12cd34"}, "global_step": 10}
    monkeypatch.setenv("WANDB_RESUME", "never")
    with caplog.at_level("INFO", logger="highwaylab.train"):
        assert continue_wandb_run(cfg, checkpoint, str(tmp_path / "checkpoints" / "last.ckpt")) == "ab12cd34"
    assert cfg.logger.wandb.resume == "allow"
    assert caplog.messages[-1] == (
        "highwaylab: WANDB_RESUME=never is set in the environment, but W&B ignores it here: a resume "
        "continues the run's W&B run ab12cd34 (logger.wandb.resume=allow, as recorded), so that the run's "
        "history stays one W&B run. To quieten this, unset WANDB_RESUME; for a W&B run of its own, start a "
        "new run (in a new folder)")


def test_wandb_run_group_beside_a_continued_run_says_where_its_next_part_goes(tmp_path, monkeypatch, caplog):
    # pass 58, row 88: before, "Continuing W&B run <id> (no group)", while W&B filed the part from there
    # under WANDB_RUN_GROUP
    from highwaylab.train import continue_wandb_run

    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    checkpoint = {"logger_versions": {"WandbLogger": "ab12cd34"}, "global_step": 10}
    ckpt = str(tmp_path / "checkpoints" / "last.ckpt")
    monkeypatch.setenv("WANDB_RUN_GROUP", "sweep-x")
    with caplog.at_level("INFO", logger="highwaylab.train"):
        assert continue_wandb_run(cfg, checkpoint, ckpt) == "ab12cd34"
    assert f"Continuing W&B run ab12cd34 (group sweep-x, from WANDB_RUN_GROUP, while its part before this " \
           f"resume is in no group; to keep it so, unset WANDB_RUN_GROUP) of {ckpt}" in caplog.messages
    monkeypatch.delenv("WANDB_RUN_GROUP")
    cfg = compose_cfg([o for o in TINY if o != "logger=none"] + ["logger=wandb"], tmp_path)
    with caplog.at_level("INFO", logger="highwaylab.train"):
        continue_wandb_run(cfg, checkpoint, ckpt)
    assert caplog.messages[-1] == f"Continuing W&B run ab12cd34 (no group) of {ckpt}"
