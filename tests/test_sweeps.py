"""Sweeps and scale-out as users run them (subprocesses of train.py): a 2 x 2 multirun and its depth
report, a failing job, the Optuna sweeper, DDP on 2 CPU processes, the submitit launcher, and a
run killed with SIGKILL that resumes to the same metrics."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
import yaml

from highwaylab.report import main as report_main
from highwaylab.utils.sweep import read_summary
from highwaylab.utils.wandb_offline import read_records

from .conftest import ROOT, subprocess_env

pytestmark = pytest.mark.slow

# an MNIST subset: a few batches of each split
SUBSET = ["width=16", "trainer.max_epochs=1", "trainer.limit_train_batches=6",
          "trainer.limit_val_batches=2", "trainer.limit_test_batches=2", "trainer.log_every_n_steps=2",
          "~callbacks.rich_progress_bar", "~callbacks.model_summary"]


def train_py(args: list[str], cwd: Path, timeout: int = 600, popen: bool = False):
    cmd = [sys.executable, str(ROOT / "train.py"), *args, f"paths.log_dir={cwd}/outputs"]
    env = subprocess_env(HYDRA_FULL_ERROR="1")
    if popen:  # in a process group of its own, to be killed with its helpers (wandb-core)
        return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd,
                                start_new_session=True)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)


def wandb_run(job: Path) -> tuple[dict, dict]:
    """The run record and the exit record of the offline W&B run in ``job``."""
    records = read_records(job / "wandb")
    return (next(r["run"] for r in records if r.get("type") == "run"),
            next(r["exit"] for r in records if r.get("type") == "exit"))


def test_2x2_multirun_four_finished_wandb_runs_in_one_group_and_the_report(tmp_path, data_dir):
    proc = train_py(["-m", "model=plain,highway", "depth=3,5", *SUBSET, f"hydra.sweep.dir={tmp_path}/sweep"],
                    tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    sweep = tmp_path / "sweep"
    jobs = sorted((p for p in sweep.iterdir() if p.is_dir()), key=lambda p: int(p.name.split("_")[0]))
    assert [p.name for p in jobs] == ["0_mnist-plain-d3-relu-sgd-s0", "1_mnist-plain-d5-relu-sgd-s0",
                                      "2_mnist-highway-d3-relu-sgd-s0", "3_mnist-highway-d5-relu-sgd-s0"]
    metrics = {p.name: json.loads((p / "metrics.json").read_text()) for p in jobs}
    runs = []
    for job in jobs:
        run, exit_rec = wandb_run(job)
        assert exit_rec.get("exit_code", 0) == 0  # finished
        runs.append(run)
    assert len({r["run_id"] for r in runs}) == 4  # no W&B run reused between the jobs of one process
    assert {r["run_group"] for r in runs} == {"sweep-sweep"}
    assert runs[3]["display_name"] == "mnist-highway-d5-relu-sgd-s0"
    assert {"data:mnist", "model:highway", "depth:5", "activation:relu", "optim:sgd",
            "seed:0"} <= set(runs[3]["tags"])
    assert [line["status"] for line in read_summary(sweep)] == ["ok"] * 4

    out = report_main([str(sweep)])
    with (out / "table.csv").open() as f:
        rows = {(r["model"], int(r["depth"])): r for r in csv.DictReader(f)}
    assert sorted(rows) == [("highway", 3), ("highway", 5), ("plain", 3), ("plain", 5)]  # the 4 points
    for name, m in metrics.items():
        # <n>_<data>-<model>-d<depth>-<activation>-<optim>-s<seed>
        model, depth = name.split("-")[1], int(name.split("-d")[1].split("-")[0])
        assert float(rows[(model, depth)]["train_loss_mean"]) == pytest.approx(m["train/loss"])
        assert float(rows[(model, depth)]["test_acc_mean"]) == pytest.approx(m["test/acc"])
    assert (out / "depth.png").stat().st_size > 10_000 and (out / "loss_curves.png").is_file()
    report_run = next(r["run"] for r in read_records(out / "wandb") if r.get("type") == "run")
    assert report_run["run_group"] == "sweep-sweep" and report_run["job_type"] == "report"


def test_a_failing_job_is_recorded_and_the_sweep_goes_on(tmp_path, data_dir):
    proc = train_py(["-m", "depth=0,3", "logger=csv", *SUBSET, f"hydra.sweep.dir={tmp_path}/sweep"], tmp_path)
    # every job ran; the sweep ends with the list of failed jobs and exit status 1, no traceback
    assert proc.returncode == 1
    assert (f"Sweep {tmp_path}/sweep: 1 of 2 jobs finished (summary.jsonl); compare them with: python -m "
            f"highwaylab.report {tmp_path}/sweep") in proc.stderr + proc.stdout  # new-user pass 48, 11
    assert "job 0 (depth=0" in proc.stderr + proc.stdout and "Traceback" not in proc.stderr
    summary = {line["job"]: line for line in read_summary(tmp_path / "sweep")}
    assert summary[0]["status"] == "failed"
    assert summary[0]["error"].startswith("depth=0 is invalid: it must be a positive integer")
    assert summary[1]["status"] == "ok" and summary[1]["metrics"]["depth"] == 3
    assert (tmp_path / "sweep" / "1_mnist-highway-d3-relu-sgd-s0" / "metrics.json").is_file()


GRID_WITH_FAILURE = """# @package _global_
defaults:
  - override /hydra/sweeper: optuna
  - override /hydra/sweeper/sampler: random
hydra:
  mode: MULTIRUN
  sweeper:
    direction: maximize
    n_trials: 3
    max_failure_rate: 1.0
    sampler:
      seed: 1
    params:
      optim.optimizer.lr: choice(0.1, -1.0, 0.05)
"""


def test_optuna_sweeper_completes_three_trials_with_one_forced_failure(tmp_path, data_dir):
    # optuna's random sampler with seed 1 draws lr = -1.0, 0.1, 0.05: the optimiser refuses -1.0
    search = tmp_path / "extra" / "hparams_search"
    search.mkdir(parents=True)
    (search / "grid_with_failure.yaml").write_text(GRID_WITH_FAILURE)
    proc = train_py([f"hydra.searchpath=[file://{tmp_path}/extra]", "hparams_search=grid_with_failure",
                     "depth=3", "logger=csv", *SUBSET, f"hydra.sweep.dir={tmp_path}/sweep"], tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]  # the search ran to the end, then lists the failure
    assert "2 of 3 jobs finished" in proc.stderr + proc.stdout
    summary = read_summary(tmp_path / "sweep")
    assert sorted(line["status"] for line in summary) == ["failed", "ok", "ok"]
    failed = next(line for line in summary if line["status"] == "failed")
    assert "Invalid learning rate: -1.0" in failed["error"]
    results = yaml.safe_load((tmp_path / "sweep" / "optimization_results.yaml").read_text())
    ok = {float(next(o for o in line["overrides"] if o.startswith("optim.optimizer.lr=")).split("=")[1]):
          line["metrics"]["val/acc_best"] for line in summary if line["status"] == "ok"}
    assert results["best_value"] == pytest.approx(max(ok.values()))
    assert results["best_params"]["optim.optimizer.lr"] == max(ok, key=ok.get)


def test_an_interrupted_search_says_how_to_continue_and_the_continuation_how_to_make_up(tmp_path, data_dir):
    # pass 23, row 30: before, only "resume with: python train.py resume=<job>" (which never reports the
    # trial to the study) and "The multirun stops here"; the continued search then counted the failed trial
    # in n_trials without a word
    sweep = tmp_path / "sweep"
    search = ["hparams_search=mnist_random", "depth=3", "logger=csv", *SUBSET, f"hydra.sweep.dir={sweep}",
              "hydra.sweeper.n_trials=2"]
    stop = ["+callbacks.signal_at._target_=tests.signal_at.SignalAt", "+callbacks.signal_at.step=2",
            f"+callbacks.signal_at.signum={int(signal.SIGINT)}"]
    first = train_py([*search, *stop], tmp_path)
    assert first.returncode == 130, first.stderr[-3000:]
    lines = (first.stdout + first.stderr).splitlines()
    line = next(x for x in lines if "highwaylab: interrupted by SIGINT" in x)
    assert line.endswith(
        f"The search stops here: its later trials do not start (python -m highwaylab.report {sweep} lists "
        "them), and this trial's result never reaches the Optuna study (resume= finishes the job's training, "
        "not the trial). To continue the search, run its command again: the study marks this trial failed "
        "and runs the trials left to hydra.sweeper.n_trials (raise it by 1 to make up for this one)."), line
    again = train_py(search, tmp_path)
    output = again.stderr + again.stdout
    assert "Continuing study mnist_random in sqlite:///" in output, output[-3000:]
    assert ("1 trials already (1 left running by an earlier search, now failed); 1 more to reach "
            "hydra.sweeper.n_trials=2 (failed trials count among them: hydra.sweeper.n_trials=3 makes up for "
            "the 1 that stopped)") in output


@pytest.mark.parametrize(("name", "sampler"), [("mnist_tpe", "TPESampler"),
                                               ("mnist_random", "RandomSampler")])
def test_hparams_search_configs_hold_the_papers_search_space(name, sampler):
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=[f"hparams_search={name}"], return_hydra_config=True)
    sweeper = cfg.hydra.sweeper
    assert sweeper._target_.endswith("OptunaSweeper") and sweeper.sampler._target_.endswith(sampler)
    assert sweeper.max_failure_rate == 1.0  # a failed trial does not end the search
    assert dict(sweeper.params) == {
        "optim.optimizer.lr": "tag(log, interval(0.001, 1.0))",
        "optim.optimizer.momentum": "interval(0.5, 0.99)",
        "optim.scheduler.gamma": "interval(0.5, 1.0)", "model.activation": "choice(relu, tanh)",
        "model.gate_bias": "range(-10, -1)"}


def test_ddp_cpu_one_run_folder_one_wandb_run_and_the_single_process_metrics(tmp_path, data_dir):
    common = ["depth=4", "width=16", "trainer.max_epochs=1", "trainer.limit_train_batches=20",
              "trainer.limit_val_batches=5", "trainer.limit_test_batches=5", "~callbacks.rich_progress_bar"]
    ddp = train_py(["trainer=ddp_cpu", "data.batch_size=64", *common, f"hydra.run.dir={tmp_path}/ddp"],
                   tmp_path)
    assert ddp.returncode == 0, ddp.stderr[-3000:]
    single = train_py(["trainer=cpu", "data.batch_size=128", "logger=csv", *common,
                       f"hydra.run.dir={tmp_path}/single"], tmp_path)
    assert single.returncode == 0, single.stderr[-3000:]
    # no run folders from the child rank
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["ddp", "single"]
    assert len(list((tmp_path / "ddp" / "wandb").glob("offline-run-*"))) == 1  # one W&B run, rank 0's
    m_ddp = json.loads((tmp_path / "ddp" / "metrics.json").read_text())
    m_single = json.loads((tmp_path / "single" / "metrics.json").read_text())
    # each rank takes every other example of the same seeded permutation: the same 128 examples per
    # step as the single process, gradients averaged: the same run up to float rounding
    assert m_ddp["global_step"] == m_single["global_step"] == 20
    for key in ("train/loss", "val/loss", "test/loss"):
        assert m_ddp[key] == pytest.approx(m_single[key], rel=1e-3), key
    for key in ("val/acc", "test/acc"):
        assert m_ddp[key] == pytest.approx(m_single[key], abs=2 / 640), key


def test_submitit_local_launcher_runs_two_jobs(tmp_path, data_dir):
    proc = train_py(["-m", "hydra/launcher=submitit_local", "model=plain,highway", "depth=3", "logger=csv",
                     *SUBSET, f"hydra.sweep.dir={tmp_path}/sweep"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = read_summary(tmp_path / "sweep")
    assert sorted(line["job"] for line in summary) == [0, 1]
    assert all(line["status"] == "ok" for line in summary)
    assert list((tmp_path / "sweep" / ".submitit").iterdir())  # submitit's own job folders
    for job in ("0_mnist-plain-d3-relu-sgd-s0", "1_mnist-highway-d3-relu-sgd-s0"):
        assert json.loads((tmp_path / "sweep" / job / "metrics.json").read_text())["global_step"] == 6


def test_run_killed_mid_epoch_resumes_to_the_metrics_of_an_uninterrupted_run(tmp_path, data_dir):
    args = ["depth=20", "width=32", "trainer.max_epochs=3", "trainer.limit_train_batches=250",
            "trainer.limit_val_batches=4", "trainer.limit_test_batches=4", "~callbacks.rich_progress_bar",
            "seed=3"]
    straight = train_py([*args, "logger=csv", f"hydra.run.dir={tmp_path}/straight"], tmp_path)
    assert straight.returncode == 0, straight.stderr[-3000:]
    run = tmp_path / "killed"
    proc = train_py([*args, f"hydra.run.dir={run}"], tmp_path, popen=True)
    deadline = time.time() + 300
    while not (run / "checkpoints" / "last.ckpt").exists() and time.time() < deadline:  # epoch 0 done
        time.sleep(0.2)
    time.sleep(0.5)  # into epoch 1 (an epoch takes seconds)
    os.killpg(proc.pid, signal.SIGKILL)  # as a scheduler kills a job: the process and its children
    proc.wait()
    saved = torch.load(run / "checkpoints" / "last.ckpt", map_location="cpu", weights_only=True)
    assert saved["epoch"] == 0 and not (run / "metrics.json").exists(), "not killed in epoch 1"
    resumed = train_py([*args, f"ckpt_path={run}/checkpoints/last.ckpt", f"hydra.run.dir={run}"], tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    m_resumed = json.loads((run / "metrics.json").read_text())
    m_straight = json.loads((tmp_path / "straight" / "metrics.json").read_text())
    for key in ("global_step", "epochs", "train/loss", "val/acc", "val/acc_best", "test/acc", "test/loss"):
        assert m_resumed[key] == pytest.approx(m_straight[key], rel=1e-6), key
    # the original record of the run is kept; the resumed run writes its own beside it
    assert "ckpt_path" not in (run / ".hydra" / "overrides.yaml").read_text()
    assert "ckpt_path" in next((run / ".hydra").glob("resumed_*/overrides.yaml")).read_text()
    # the resumed run continues the killed run's W&B run: the same run id in both offline folders
    folders = sorted((run / "wandb").glob("offline-run-*"))
    assert len(folders) == 2 and folders[0].name.split("-")[-1] == folders[1].name.split("-")[-1]


def fake_job(sweep: Path, name: str, model: str, depth: int, metrics: str | None) -> Path:
    """A job folder as a multirun leaves it: Hydra's record, and metrics.json when it finished."""
    job = sweep / name
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "config.yaml").write_text(f"depth: {depth}\nseed: 0\n")
    (job / ".hydra" / "hydra.yaml").write_text(f"hydra:\n  runtime:\n    choices:\n      model: {model}\n")
    if metrics is not None:
        (job / "metrics.json").write_text(metrics)
    return job


def test_report_survives_damaged_files_and_refuses_a_sweep_without_results(tmp_path, capsys):
    sweep = tmp_path / "sweep"
    fake_job(sweep, "0_plain-d3-s0", "plain", 3, json.dumps({"train/loss": 0.5, "test/acc": 0.9, "depth": 3}))
    fake_job(sweep, "1_highway-d3-s0", "highway", 3, '{"train/loss": 0.')  # killed while writing
    (sweep / "summary.jsonl").write_text('{"job": 0, "status": "ok"')  # a half-written line
    out = report_main([str(sweep), "--no-wandb"])
    table = (out / "table.md").read_text()
    assert "| plain | 3 | 1 | 0.5000 | 90.00 |" in table
    assert "1_highway-d3-s0: incomplete: metrics.json cannot be read" in table

    empty = tmp_path / "failed"
    fake_job(empty, "0_plain-d3-s0", "plain", 3, None)
    with pytest.raises(SystemExit) as err:
        report_main([str(empty), "--no-wandb"])
    assert err.value.code == 1 and "nothing to plot" in capsys.readouterr().err
    # no figures of nothing (pass 93 note: before, an empty depth.png and loss_curves.png), the table kept
    written = empty / "report"
    assert (written / "table.md").is_file() and not list(written.glob("*.png"))


def test_a_full_disk_on_summary_jsonl_is_one_warning_and_the_summary_says_incomplete(tmp_path, monkeypatch,
                                                                                        caplog):
    from omegaconf import OmegaConf

    from highwaylab.utils import sweep as sweep_module

    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "summary.jsonl").symlink_to("/dev/full")  # every write: ENOSPC, as on a full disk
    hc = OmegaConf.create({"job": {"num": 1}, "overrides": {"task": ["seed=1"]},
                           "runtime": {"output_dir": str(sweep / "1_seed1")}, "sweep": {"dir": str(sweep)}})
    monkeypatch.setattr(sweep_module, "in_multirun", lambda: True)
    monkeypatch.setattr(sweep_module.HydraConfig, "get", staticmethod(lambda: hc))
    with caplog.at_level("INFO", logger="highwaylab.utils.sweep"):
        # before: OSError: [Errno 28] No space left on device, out of record_job
        assert sweep_module.record_job("ok", {"test/acc": 0.9}) is None
        # before: no "jobs finished" line (the sweep had ended in the traceback)
        end = OmegaConf.create({"hydra": {"sweep": {"dir": str(sweep)}}})
        sweep_module.SweepSummary().on_multirun_end(end)
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0] == (f"highwaylab: {sweep / 'summary.jsonl'}: job 1's line could not be written (No space "
                        f"left on device, a full disk); the sweep goes on, and its results are in its folder "
                        f"{sweep / '1_seed1'}")
    assert lines[1] == (f"Sweep {sweep}: 0 of 0 jobs finished (summary.jsonl is incomplete: some jobs could "
                        f"not be recorded (a full disk?); their folders hold their results, python -m "
                        f"highwaylab.report {sweep} lists them)")
    assert len(lines) == 2 and (sweep / "summary.jsonl.incomplete").is_file()


def study_of_one_trial(tmp_path: Path, ran: dict[str, str] | None = None) -> Path:
    """``<tmp_path>/sweep`` holding the Optuna study ``mnist_random`` (maximize) of one finished trial,
    whose fixed overrides were ``ran`` (the plugin's user attributes), as a search leaves it."""
    import optuna

    sweep = tmp_path / "sweep"
    sweep.mkdir()
    study = optuna.create_study(study_name="mnist_random", storage=f"sqlite:///{sweep}/optuna.db",
                                direction="maximize")
    study.add_trial(optuna.trial.create_trial(params={}, distributions={}, value=0.5, user_attrs=ran or {}))
    return sweep


@pytest.mark.slow
def test_continuing_a_study_in_another_direction_is_one_line_before_any_trial(tmp_path, data_dir):
    # before: "Continuing study mnist_random ...", then optuna's 25-line traceback "ValueError: Cannot
    # overwrite study direction from [MAXIMIZE] to [MINIMIZE]"
    sweep = study_of_one_trial(tmp_path)
    proc = train_py(["hparams_search=mnist_random", f"hydra.sweep.dir={sweep}", "hydra.sweeper.n_trials=2",
                     "hydra.sweeper.direction=minimize", "optimized_metric=train/loss"], tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]
    assert lines == [
        f"highwaylab: hydra.sweeper.direction=minimize, but the study mnist_random in "
        f"sqlite:///{sweep}/optuna.db was created to maximize (it holds 1 trial, ranked so), and a study "
        f"keeps its direction. Fix: continue it with hydra.sweeper.direction=maximize, or start a new search "
        f"in another hydra.sweep.dir"]
    assert "Traceback" not in proc.stderr and sorted(p.name for p in sweep.iterdir()) == ["optuna.db"]
    # pass 80, row 71 (major): a study that records its trials' overrides, asked with another objective
    # and its direction: before, the direction's fix (maximize), which the metric's check then refused
    # (a loss is minimised), in a loop; now the changed objective is named first
    (sweep / "optuna.db").unlink()
    sweep.rmdir()
    sweep = study_of_one_trial(tmp_path, {"hparams_search": "mnist_random"})
    proc = train_py(["hparams_search=mnist_random", f"hydra.sweep.dir={sweep}", "hydra.sweeper.n_trials=2",
                     "hydra.sweeper.direction=minimize", "optimized_metric=val/loss"], tmp_path)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert lines == [
        f"highwaylab: hydra.sweep.dir={sweep} holds a study (mnist_random, 1 trial) whose trials ran with no "
        f"optimized_metric=; this command has optimized_metric=val/loss. Fix: leave out "
        f"optimized_metric=val/loss to continue it, or a new hydra.sweep.dir for a new study"]


@pytest.mark.slow
def test_a_second_study_in_the_folder_of_another_is_one_line_before_any_trial(tmp_path, data_dir):
    # pass 33, row 43 (major): before, rc 0: an hparams_search=mnist_tpe search in the folder of an
    # mnist_random study numbered its jobs from 0 again and ran its trials in that study's job folders,
    # over their metrics.json, checkpoints and logs, without a word
    sweep = study_of_one_trial(tmp_path)
    proc = train_py(["hparams_search=mnist_tpe", f"hydra.sweep.dir={sweep}", "hydra.sweeper.n_trials=2"],
                    tmp_path)
    assert proc.returncode == 1, proc.stderr[-3000:]
    lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]
    assert lines == [
        f"highwaylab: hydra.sweep.dir={sweep} holds another study's trials (mnist_random (1 trial), in "
        f"sqlite:///{sweep}/optuna.db), and this search (mnist_tpe) would number its jobs from 0 again, into "
        f"those trials' folders. Fix: a new hydra.sweep.dir for a new study (or continue that study with the "
        f"hparams_search= it was started with)"]
    assert "Traceback" not in proc.stderr and sorted(p.name for p in sweep.iterdir()) == ["optuna.db"]


@pytest.mark.slow
def test_continuing_a_study_with_other_fixed_overrides_is_one_line_before_any_trial(tmp_path, data_dir):
    # pass 26, row 52: before, rc 0: a depth=4 search in the folder of a depth=3 study joined it without a
    # word, and its optimization_results.yaml kept a depth-3 trial as the best
    # the trial's fixed overrides, as the plugin keeps them (its user attributes)
    sweep = study_of_one_trial(tmp_path, {"hparams_search": "mnist_random", "depth": "3",
                                          "trainer.max_epochs": "1"})
    search = ["hparams_search=mnist_random", f"hydra.sweep.dir={sweep}"]

    def refusal(*args: str) -> str:
        proc = train_py([*search, *args], tmp_path)
        assert proc.returncode == 1, proc.stderr[-3000:]
        lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]
        assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
        assert sorted(p.name for p in sweep.iterdir()) == ["optuna.db"]  # no trial ran
        return lines[0]

    assert refusal("depth=4", "trainer.max_epochs=1", "hydra.sweeper.n_trials=3") == (
        f"highwaylab: hydra.sweep.dir={sweep} holds a study (mnist_random, 1 trial) whose trials ran with "
        f"depth=3; this command has depth=4. Fix: give depth=3 to continue it, or a new hydra.sweep.dir for "
        f"a new study")
    assert refusal("depth=3", "seed=1", "hydra.sweeper.n_trials=3") == (
        f"highwaylab: hydra.sweep.dir={sweep} holds a study (mnist_random, 1 trial) whose trials ran with "
        f"trainer.max_epochs=1, no seed=; this command has no trainer.max_epochs=, seed=1. Fix: give "
        f"trainer.max_epochs=1 and leave out seed=1 to continue it, or a new hydra.sweep.dir for a new study")
    # continued: hydra.sweeper.n_trials, the order, the loggers and the search's own parameters may change
    proc = train_py(["logger=csv", "trainer.max_epochs=1", "model.activation=choice(relu)", "depth=3",
                     *search, "hydra.sweeper.n_trials=1"], tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Continuing study mnist_random" in output, proc.stderr[-3000:]
    assert not [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]


@pytest.mark.slow
def test_continuing_a_study_whose_trials_drew_a_parameter_otherwise_is_one_line_before_any_trial(
        tmp_path, data_dir):
    # pass 66, row 34 (major): before, optuna's "CategoricalDistribution does not support dynamic value
    # space" as a 13-frame traceback, a trial left RUNNING; row 05: real numbers after whole ones, "all 2
    # trials of the search failed" after none had run
    import optuna
    from optuna.distributions import CategoricalDistribution

    from .conftest import protected

    sweep = tmp_path / "sweep"
    sweep.mkdir()
    study = optuna.create_study(study_name="mnist_random", storage=f"sqlite:///{sweep}/optuna.db",
                                direction="maximize")
    study.add_trial(optuna.trial.create_trial(
        params={"model.activation": "relu"}, value=0.5, user_attrs={"hparams_search": "mnist_random"},
        distributions={"model.activation": CategoricalDistribution(["relu", "tanh"])}))
    search = ["hparams_search=mnist_random", f"hydra.sweep.dir={sweep}", "hydra.sweeper.n_trials=2"]

    def refusal(*args: str) -> str:
        proc = train_py([*search, *args], tmp_path)
        lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]
        assert proc.returncode == 1 and len(lines) == 1, proc.stderr[-3000:]
        assert "Traceback" not in proc.stderr
        assert sorted(p.name for p in sweep.iterdir() if p.name != "optimization_results.yaml") == [
            "optuna.db"]  # no trial ran
        return lines[0]

    assert refusal("model.activation=choice(relu,sigmoid)") == (
        f"highwaylab: hydra.sweep.dir={sweep} holds a study (mnist_random, 1 trial) whose trials drew "
        f"model.activation from choice(relu,tanh); this command draws it from choice(relu,sigmoid), and "
        f"optuna cannot change a parameter's kind (real or whole numbers, on a log scale or not, or a "
        f"choice) or a choice's values within a study. Fix: 'model.activation=choice(relu,tanh)' to continue "
        f"it, or a new hydra.sweep.dir for a new study")
    # pass 66, rows 20 and 28 (major): the files a continued search rewrites, protected: before, a traceback
    # through SQLAlchemy ("invalid data in the commit"), or one after the trials, the old best left in place
    with protected(sweep / "optuna.db"):
        assert refusal() == (
            f"highwaylab: {sweep}/optuna.db, the search's study, cannot be written (Operation not permitted: "
            f"a protected file? lsattr shows 'i' or 'a'), and a continued search rewrites it. Fix: chattr -i "
            f"-a {sweep}/optuna.db (or make it writable), or a new hydra.sweep.dir for a new search")
    # pass 67, row 9 (major): an append-only sweep folder (chattr +a): before, a 75-line traceback through
    # SQLAlchemy ("invalid data in the commit") and a stale optuna.db-journal
    if subprocess.run(["chattr", "+a", str(sweep)], capture_output=True).returncode == 0:
        try:
            assert refusal() == (
                f"highwaylab: {sweep}, the folder of the search's study, is append-only (chattr +a), and "
                f"SQLite makes and deletes a journal file there at each write. Fix: chattr -i -a {sweep} (or "
                f"make it writable), or a new hydra.sweep.dir for a new search")
        finally:
            subprocess.run(["chattr", "-a", str(sweep)], check=True)
    (sweep / "optimization_results.yaml").write_text("best_value: 0.5\n")
    with protected(sweep / "optimization_results.yaml"):
        assert refusal().startswith(f"highwaylab: {sweep}/optimization_results.yaml, the best trial's file, "
                                    f"cannot be written (Operation not permitted")


@pytest.mark.slow
def test_a_second_search_in_the_folder_of_a_running_one_is_one_line(tmp_path, data_dir):
    # pass 67, row 42 (major): the same search started twice; before, the second marked the first's live
    # trial failed, the first stopped with a traceback, and optimization_results.yaml named the worse trial.
    # A running search holds an flock on its folder; here this process holds it.
    import fcntl

    sweep = tmp_path / "sweep"
    sweep.mkdir()
    fd = os.open(sweep, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        proc = train_py(["hparams_search=mnist_random", f"hydra.sweep.dir={sweep}",
                         "hydra.sweeper.n_trials=1", "depth=3", *SUBSET], tmp_path)
    finally:
        os.close(fd)
    lines = [line for line in proc.stderr.splitlines() if line.startswith("highwaylab:")]
    assert proc.returncode == 1 and lines == [
        f"highwaylab: hydra.sweep.dir={sweep} is in use by another search, still running (fuser -v {sweep} "
        f"names it): a second one would mark its live trials failed. Fix: wait for it to end, then run this "
        f"command to continue the study; to run trials in parallel, give one search "
        f"hydra.sweeper.n_jobs=<n>"], proc.stderr[-3000:]
    assert not list(sweep.iterdir())  # no study, no trial


def test_the_sweeps_closing_line_names_a_relative_sweep_folder_in_full(tmp_path, monkeypatch, caplog):
    # pass 57, row 79: before, hydra.sweep.dir=sweeps/74rel gave "compare them with: python -m
    # highwaylab.report sweeps/74rel", which a shell in another folder did not find
    import json

    from omegaconf import OmegaConf

    from highwaylab.utils import sweep as sweep_module

    sweep = tmp_path / "sweeps" / "74rel"
    sweep.mkdir(parents=True)
    line = {"job": 0, "status": "ok", "output_dir": str(sweep / "0_seed0")}
    (sweep / "summary.jsonl").write_text(json.dumps(line) + "\n")
    monkeypatch.chdir(tmp_path)
    end = OmegaConf.create({"hydra": {"sweep": {"dir": "sweeps/74rel"}}})
    with caplog.at_level("INFO", logger="highwaylab.utils.sweep"):
        sweep_module.SweepSummary().on_multirun_end(end)
    assert [r.getMessage() for r in caplog.records] == [
        f"Sweep {tmp_path}/sweeps/74rel: 1 of 1 jobs finished (summary.jsonl); compare them with: python -m "
        f"highwaylab.report {tmp_path}/sweeps/74rel"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_between_the_jobs_of_a_sweep_is_one_line(signum, tmp_path):
    # breaking pass 60, row 45: before, a SIGTERM as the next job started ended the sweep with status 143
    # and no word at all
    sweep = tmp_path / "sweep"
    proc = subprocess.run(
        [sys.executable, "train.py", "-m", "depth=3", "trainer.max_epochs=1", "trainer.limit_train_batches=2",
         "trainer.limit_val_batches=1", "trainer.limit_test_batches=1", "callbacks=minimal", "logger=none",
         "seed=0,1,2", "+hydra.callbacks.signal_after_job._target_=tests.signal_at.SignalAfterJob",
         f"+hydra.callbacks.signal_after_job.signum={int(signum)}", f"hydra.sweep.dir={sweep}"],
        capture_output=True, text=True, cwd=ROOT, env=subprocess_env(), timeout=600)
    assert proc.returncode == 128 + signum, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        f"highwaylab: interrupted by {signum.name} between the jobs of the multirun in {sweep} (1 job in "
        f"summary.jsonl): the multirun stops here, before its next job. See what ran, and the command of "
        f"each job that did not, with: python -m highwaylab.report {sweep}")
    assert [line["status"] for line in map(json.loads, (sweep / "summary.jsonl").read_text().splitlines())] \
        == ["ok"]
