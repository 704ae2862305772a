"""``python -m highwaylab.report`` on multirun folders written here as a real sweep writes them
(issue 11, #102/#103): a point's seeds are its distinct seeds (jobs that repeat a seed count once,
with one warning line; jobs that differ in another swept key are separate points), and its one-line
errors for a bad ``--out``. The command runs as a subprocess, as a user runs it; it imports no torch."""

from __future__ import annotations

import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from highwaylab.analysis.sweep_report import aggregate, collect_jobs, markdown_table, table_rows

from .conftest import compose_cfg, subprocess_env

FIXED = ["trainer=cpu", "depth=3", "width=8", "trainer.max_epochs=1", "trainer.limit_train_batches=3"]
CHOICES = {"debug": None, "hparams_search": None, "experiment": None, "hydra": "default", "paths": "default",
           "trainer": "cpu", "logger": "wandb", "callbacks": "default", "optim": "sgd", "model": "highway",
           "data": "mnist"}


def write_job(sweep: Path, num: int, overrides: list[str], loss: float | None, acc: float | None,
              error: str | None = None, csv_log: bool = True) -> Path:
    """Job ``num`` of a multirun in ``sweep``, with the files a real job leaves: ``.hydra/config.yaml``
    (the composed config: top-level depth, width, seed), ``.hydra/hydra.yaml`` (the group choices),
    ``.hydra/overrides.yaml`` (its overrides, one ``- key=value`` line each), ``metrics.json`` and, with
    ``csv_log``, the CSV logger's file (:func:`write_csv_log`) when it finished, and its line in
    ``summary.jsonl`` (as :func:`highwaylab.utils.sweep.record_job` writes it). ``loss``/``acc`` None:
    the job failed with ``error``."""
    given = dict(o.split("=", 1) for o in overrides)
    model, depth, seed = given.get("model", "highway"), int(given.get("depth", 3)), int(given.get("seed", 0))
    job = sweep / f"{num}_mnist-{model}-d{depth}-relu-sgd-s{seed}"
    (job / ".hydra").mkdir(parents=True)
    (job / ".hydra" / "config.yaml").write_text(
        f"depth: {depth}\nwidth: {given.get('width', 8)}\nseed: {seed}\n"
        "run_name: ${hydra:runtime.choices.data}-${hydra:runtime.choices.model}-d${net_depth:}"
        "-${model.activation}-${hydra:runtime.choices.optim}-s${seed}\n"
        f"resume: null\nmodel:\n  _target_: highwaylab.models.FCBackbone\n  block: {model}\n")
    choices = "".join(f"      {k}: {'null' if v is None else v}\n"
                      for k, v in (CHOICES | {"model": model}).items())
    (job / ".hydra" / "hydra.yaml").write_text(
        f"hydra:\n  runtime:\n    choices:\n{choices}  overrides:\n    task: {json.dumps(overrides)}\n"
        "  verbose: false\n")
    (job / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    metrics = {}
    if loss is not None:
        metrics = {"train/loss": loss, "test/acc": acc, "val/acc_best": acc, "params": 6658, "width": 8,
                   "depth": depth, "epochs": 1, "global_step": 3, "precision": "32-true"}
        (job / "metrics.json").write_text(json.dumps(metrics, indent=2))
        if csv_log:
            write_csv_log(job)
    line = {"job": num, "overrides": overrides, "output_dir": str(job), "status": "ok" if loss is not None
            else "failed", "error": error, "metrics": metrics}
    with (sweep / "summary.jsonl").open("a") as f:
        f.write(json.dumps(line) + "\n")
    return job


def write_csv_log(job: Path, prefix: str = "") -> Path:
    """Give ``job`` the CSV logger's file of a ``logger=csv`` run (``csv/version_0/metrics.csv``, one
    row per log call): ``train/loss_step`` 2.25 at step 49 and 1.5 at step 99, the epoch's means at 99;
    with ``prefix`` (``logger.csv.prefix``) its keys as Lightning writes them, ``<prefix>-train/loss``."""
    logged = job / "csv" / "version_0"
    logged.mkdir(parents=True)
    keyed = [f"{prefix}-{k}" if prefix else k for k in ("grad_norm/global", "train/loss", "train/loss_step",
                                                          "val/acc")]
    with (logged / "metrics.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["epoch", keyed[0], "step", *keyed[1:]])
        writer.writerows([["", "0.8", "0", "", "", ""], ["", "", "49", "", "2.25", ""],
                          ["", "", "99", "", "1.5", ""], ["0", "", "99", "1.9", "", "0.6"]])
    return job


def report(*args: str | Path, cwd: Path, **environ: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "highwaylab.report", *map(str, args)], capture_output=True,
                          text=True, timeout=120, cwd=cwd, env=subprocess_env(**environ))


def read_csv(out: Path) -> list[dict]:
    with (out / "table.csv").open() as f:
        return list(csv.DictReader(f))


REPEAT_NOTE = ("highway depth 3: seed 0 ran in 2 jobs (0_mnist-highway-d3-relu-sgd-s0, "
               "1_mnist-highway-d3-relu-sgd-s0): each seed is counted once, with the mean of its jobs' "
               "results (n = 2 distinct seeds, from 3 jobs)")


@pytest.fixture
def repeated_seed(tmp_path: Path) -> Path:
    """``-m seed=0,0,1`` of one model and depth: seed 0 ran twice."""
    sweep = tmp_path / "repeated"
    for num, (seed, loss, acc) in enumerate([(0, 0.30, 0.90), (0, 0.50, 0.80), (1, 0.70, 0.95)]):
        write_job(sweep, num, [*FIXED, f"seed={seed}"], loss, acc)
    return sweep


def test_a_repeated_seed_counts_once_with_the_mean_of_its_jobs(repeated_seed):
    jobs = collect_jobs(repeated_seed)
    with pytest.warns(UserWarning) as caught:
        (point,) = aggregate(jobs)
    # seed 0: mean of its two jobs (0.4, 0.85); seed 1: 0.7, 0.95. Before: n = 3, loss 0.5 +- 0.2
    assert point.seeds == [0, 1] and len(point.jobs) == 3
    assert point.loss == pytest.approx([0.4, 0.7]) and point.acc == pytest.approx([0.85, 0.95])
    (row,) = table_rows([point])
    assert (row["seeds"], row["jobs"]) == (2, 3)
    assert row["train_loss_mean"] == pytest.approx(0.55)
    assert row["train_loss_std"] == pytest.approx(statistics.stdev([0.4, 0.7]))  # 0.2121
    assert row["test_acc_mean"] == pytest.approx(0.90)
    assert row["test_acc_std"] == pytest.approx(statistics.stdev([0.85, 0.95]))  # 0.0707
    assert [str(w.message) for w in caught] == [REPEAT_NOTE]


def test_identical_jobs_without_a_seed_override_are_one_seed(tmp_path):
    """``-m depth=3,3``: the same job twice (seed 0 from the config) is one seed, std 0."""
    sweep = tmp_path / "twice"
    write_job(sweep, 0, ["depth=3"], 0.2, 0.93)
    write_job(sweep, 1, ["depth=3"], 0.4, 0.91)
    with pytest.warns(UserWarning, match=r"seed 0 ran in 2 jobs"):
        (row,) = table_rows(aggregate(collect_jobs(sweep)))
    assert (row["seeds"], row["jobs"]) == (1, 2)  # before: 2 seeds, loss 0.3 +- 0.141
    # one seed has no standard deviation (new-user check: before, 0.0, as if measured)
    assert (row["train_loss_mean"], row["train_loss_std"]) == (pytest.approx(0.3), None)
    assert (row["test_acc_mean"], row["test_acc_std"]) == (pytest.approx(0.92), None)


def test_jobs_that_differ_in_another_swept_key_are_separate_points(tmp_path):
    """``-m optim.optimizer.lr=0.1,0.01 seed=0,1`` (one job of lr=0.01 failed): one point per lr,
    never the two learning rates averaged as if they were seeds."""
    sweep = tmp_path / "lr"
    values = [("0.1", 0, 0.3, 0.9), ("0.1", 1, 0.5, 0.8), ("0.01", 0, 1.1, 0.6), ("0.01", 1, None, None)]
    for num, (lr, seed, loss, acc) in enumerate(values):
        write_job(sweep, num, [*FIXED, f"optim.optimizer.lr={lr}", f"seed={seed}"], loss, acc,
                  None if loss is not None else "optimized_metric val/acc_best is NaN: the run diverged")
    jobs = collect_jobs(sweep)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no seed repeats here
        points = aggregate(jobs)
    rows = table_rows(points)
    assert [(r["optim.optimizer.lr"], r["seeds"], r["jobs"]) for r in rows] == [("0.01", 1, 1), ("0.1", 2, 2)]
    assert rows[0]["train_loss_mean"] == pytest.approx(1.1) and rows[0]["train_loss_std"] is None
    assert rows[1]["train_loss_mean"] == pytest.approx(0.4)
    assert rows[1]["train_loss_std"] == pytest.approx(statistics.stdev([0.3, 0.5]))  # before: 3 seeds, 0.633
    assert [p.label for p in points] == ["highway optim.optimizer.lr=0.01", "highway optim.optimizer.lr=0.1"]
    table = markdown_table(rows, jobs, points)
    assert table.startswith("| model | depth | optim.optimizer.lr | seeds | final training loss (nats) | "
                            "test accuracy (%) |\n|---|---|---|---|---|---|\n"
                            "| highway | 3 | 0.01 | 1 | 1.100 | 60.00 |\n"
                            "| highway | 3 | 0.1 | 2 | 0.4000 ± 0.14 | 85.00 ± 7.07 |\n")
    assert "- 3_mnist-highway-d3-relu-sgd-s1: failed: optimized_metric val/acc_best is NaN" in table


@pytest.mark.parametrize("error", ["optim.optimizer (lr=-1, ...) was refused by SGD",
                                   "Non-finite loss at step 1 (epoch 0): the loss is nan"])
def test_a_swept_key_keeps_its_column_when_the_other_value_failed(tmp_path, error):
    # pass 39, rows 44 and 50: before, -m 'optim.optimizer.lr=0.1,-1' (or 0.1,1e30, which diverged) with
    # its second job failed gave a table without the optim.optimizer.lr column: its one row said no lr
    sweep = tmp_path / "lr"
    write_job(sweep, 0, [*FIXED, "optim.optimizer.lr=0.1"], 0.3, 0.9)
    write_job(sweep, 1, [*FIXED, "optim.optimizer.lr=-1"], None, None, error)
    jobs = collect_jobs(sweep)
    points = aggregate(jobs)
    table = markdown_table(table_rows(points), jobs, points)
    assert table.startswith("| model | depth | optim.optimizer.lr | seeds | final training loss (nats) | "
                            "test accuracy (%) |\n|---|---|---|---|---|---|\n"
                            "| highway | 3 | 0.1 | 1 | 0.3000 | 90.00 |\n"), table
    assert f"- 1_mnist-highway-d3-relu-sgd-s0: failed: {error}" in table


def test_swept_numbers_sort_by_value_and_one_activation_is_one_row(tmp_path):
    # pass 51, row 68: data.batch_size 128 came before 64 (sorted as text); row 37: model.activation=tanh and
    # Tanh, one activation (as the runs' names and tags spell it), were two rows
    sweep = tmp_path / "sweep"
    for n, (size, activation) in enumerate([(128, "tanh"), (64, "Tanh"), (64, "tanh"), (128, "Tanh")]):
        write_job(sweep, n, [*FIXED, f"data.batch_size={size}", f"model.activation={activation}",
                             f"seed={n}"], 0.5, 0.9)
    points = aggregate(collect_jobs(sweep))
    assert [(p.variant, len(p.seeds)) for p in points] == [((("data.batch_size", "64"),), 2),
                                                           ((("data.batch_size", "128"),), 2)]


def test_a_curve_that_stops_before_the_jobs_training_did_is_named(tmp_path):
    # pass 39, row 53: before, a job resumed with logger=none had a curve that stopped where its W&B run
    # stopped, while the table gave its final loss, and no line said so
    sweep = tmp_path / "sweep"
    cut = write_job(sweep, 0, FIXED, 0.5, 0.9)  # its CSV log: per-batch losses at steps 49 and 99
    whole = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)
    for job, step in ((cut, 150), (whole, 149)):  # 3 epochs of 50 steps; log_every_n_steps: 50
        metrics = json.loads((job / "metrics.json").read_text())
        metrics |= {"global_step": step, "last_epoch_batches": 50}
        (job / "metrics.json").write_text(json.dumps(metrics))
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    curve_lines = [line for line in proc.stderr.splitlines() if "loss_curves.png" in line]
    assert curve_lines == [
        f"python -m highwaylab.report: warning: loss_curves.png: the curve of {cut.name} ends at step 99, "
        f"but the job trained to step 150: the part after it was trained without a W&B or CSV logger "
        f"(logger=none?), so its training loss is not on the curve (the table gives the job's final loss)"]


def test_a_curve_that_starts_after_the_jobs_training_did_and_a_removed_wandb_folder_are_named(tmp_path):
    # pass 42, rows 48 and 50: before, a job whose W&B offline folder was removed (wandb sync --clean) "logged
    # no training loss to W&B", and once resumed its curve began at the resumed part, without a word
    sweep = tmp_path / "sweep"
    late = write_job(sweep, 0, FIXED, 0.5, 0.9)  # its CSV log: per-batch losses at steps 49 and 99
    whole = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)
    other = write_job(sweep, 2, [*FIXED[:1], "depth=5", *FIXED[2:]], 0.4, 0.8)  # began from a checkpoint
    gone = write_job(sweep, 3, [*FIXED[:1], "depth=6", *FIXED[2:]], 0.4, 0.8, csv_log=False)
    (gone / "config_resolved.yaml").write_text("logger:\n  wandb:\n    offline: true\n")
    (gone / "wandb").mkdir()  # what wandb sync --clean leaves: the folder, without its offline-run-*
    (other / "config_resolved.yaml").write_text("ckpt_path: /elsewhere/last.ckpt\n")
    # pass 46, row 25: its first epoch logged to TensorBoard alone, its second (a resume) to a CSV log
    board = write_job(sweep, 4, [*FIXED[:1], "depth=7", *FIXED[2:]], 0.4, 0.8)
    (board / "config_resolved.yaml").write_text("logger:\n  tensorboard:\n    save_dir: x\n")
    for job in (late, whole, other, board):  # 2 epochs of 50 steps; log_every_n_steps: 50
        metrics = json.loads((job / "metrics.json").read_text())
        (job / "metrics.json").write_text(json.dumps(metrics | {"global_step": 100, "batches_per_epoch": 50}))
    for job in (late, other, board):  # the first epoch's rows gone
        log = job / "csv" / "version_0" / "metrics.csv"
        log.write_text("".join(line for line in log.read_text().splitlines(keepends=True)
                               if ",49," not in line))
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [line for line in proc.stderr.splitlines() if "loss_curves.png" in line] == [
        f"python -m highwaylab.report: warning: loss_curves.png has no curve of {gone.name}: it logged to "
        f"W&B, but its offline run folder (wandb/offline-run-*) is gone: removed by wandb sync --clean after "
        f"an upload (the curve is then in W&B), or moved",
        f"python -m highwaylab.report: warning: loss_curves.png: the curve of {late.name} starts at step 99, "
        f"but the job trained from step 0: its training loss before that is in none of its W&B run folders "
        f"or CSV logs here (a W&B folder removed by wandb sync --clean after its upload, or moved?), so that "
        f"part is not on the curve",
        f"python -m highwaylab.report: warning: loss_curves.png: the curve of {board.name} starts at step "
        f"99, but the job trained from step 0: its first part was trained with logger=tensorboard (its "
        f"config_resolved.yaml), which the report does not read, so that part is not on the curve"]


def test_a_job_that_failed_on_a_seed_that_is_no_integer_is_listed_not_a_traceback(tmp_path):
    # pass 41, row 66 (major): before, -m 'seed=0,x' (job 1 failed: seed='x' refused) made the report end
    # in a traceback, int('x') of the job's recorded seed
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    bad = write_job(sweep, 1, [*FIXED, "seed=1"], None, None, "seed='x' must be an integer")
    config = bad / ".hydra" / "config.yaml"
    config.write_text(config.read_text().replace("seed: 1\n", "seed: x\n"))
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert f"- {bad.name}: failed: seed='x' must be an integer" in proc.stdout
    assert "| highway | 3 | 1 | 0.5000 | 90.00 |" in proc.stdout
    (row,) = read_csv(sweep / "report")  # one seed: its std cells are empty (before: 0.0, as if measured)
    assert (row["seeds"], row["train_loss_mean"], row["train_loss_std"], row["test_acc_std"]) == (
        "1", "0.5", "", "")


def test_the_command_reports_distinct_seeds_and_warns_in_one_line(repeated_seed, tmp_path):
    proc = report(repeated_seed, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "| highway | 3 | 2 | 0.5500 ± 0.21 | 90.00 ± 7.07 |" in proc.stdout
    assert "- repeated seeds: highway depth 3: seed 0 ran in 2 jobs" in proc.stdout
    warning = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert warning == [f"python -m highwaylab.report: warning: {REPEAT_NOTE}"]
    (row,) = read_csv(repeated_seed / "report")
    assert (row["model"], row["depth"], row["seeds"], row["jobs"]) == ("highway", "3", "2", "3")
    assert float(row["train_loss_std"]) == pytest.approx(statistics.stdev([0.4, 0.7]))


def test_plain_seeds_and_models_keep_the_table_as_it_was(tmp_path):
    """``-m model=plain,highway seed=0,1``: no other swept key, no repeat: no extra column, no warning."""
    sweep = tmp_path / "grid"
    for num, (model, seed, loss, acc) in enumerate([("plain", 0, 0.9, 0.7), ("plain", 1, 1.3, 0.5),
                                                    ("highway", 0, 0.2, 0.95), ("highway", 1, 0.4, 0.93)]):
        write_job(sweep, num, [*FIXED, f"model={model}", f"seed={seed}"], loss, acc)
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr[-3000:]
    assert ("| model | depth | seeds | final training loss (nats) | test accuracy (%) |\n"
            "|---|---|---|---|---|\n"
            "| highway | 3 | 2 | 0.3000 ± 0.14 | 94.00 ± 1.41 |\n"
            "| plain | 3 | 2 | 1.100 ± 0.28 | 60.00 ± 14.14 |\n") in proc.stdout
    assert list(read_csv(sweep / "report")[0]) == ["model", "depth", "seeds", "jobs", "train_loss_mean",
                                                   "train_loss_std", "test_acc_mean", "test_acc_std"]


# --- --out errors: one line, exit status 2 ---------------------------------------------------------

@pytest.fixture(scope="module")
def one_job(tmp_path_factory) -> Path:
    sweep = tmp_path_factory.mktemp("sweep")
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    return sweep


def test_an_out_that_is_a_file_is_one_line_before_the_jobs_warnings(tmp_path):
    # pass 50, row 57: before, a warning about the jobs' test sets came first, where the README says one line
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9)
    metrics = json.loads((job / "metrics.json").read_text())
    (job / "metrics.json").write_text(json.dumps(metrics | {"test_examples": 128}))  # a partial test set
    assert "warning: " in report(sweep, "--no-wandb", cwd=tmp_path).stderr  # the control: it warns
    (a_file := tmp_path / "a_file").write_text("not a folder\n")
    proc = report(sweep, "--no-wandb", "--out", a_file, cwd=tmp_path)
    assert (proc.returncode, proc.stderr) == (
        2, f"python -m highwaylab.report: error: --out {a_file} is a file, not a folder: give a folder that "
           f"can be written, e.g. --out {sweep / 'report'}\n")
    # pass 52, row 64: an --out inside a job's folder, refused after the same warning
    proc = report(sweep, "--no-wandb", "--out", job / "rep", cwd=tmp_path)
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1, proc.stderr
    assert proc.stderr.startswith(f"python -m highwaylab.report: error: --out {job}/rep is inside {job}")


@pytest.mark.parametrize("case", ["a file", "below a file", "in /proc", "/proc itself", "no sweep folder",
                                  "placeholder", "summary file", "a job's file", "an image's name",
                                  "empty group", "dash", "default unwritable", "a job's folder",
                                  "the sweep's folder", "inside a job's folder", "tilde", "own table"])
def test_a_bad_out_or_sweep_folder_is_one_line_and_exit_2(one_job, tmp_path, case):
    a_file = tmp_path / "a_file"
    a_file.write_text("not a folder\n")
    unwritable = tmp_path / "unwritable_sweep"  # its report/ is a link to nowhere: mkdir fails, as read-only
    mine = tmp_path / "mine"
    if case == "own table":
        mine.mkdir()
        (mine / "table.md").write_text("my own notes\n")
    if case == "default unwritable":
        shutil.copytree(one_job, unwritable)
        (unwritable / "report").symlink_to("/proc/nonexistent/report")
    writable = f"give a folder that can be written, e.g. --out {one_job / 'report'}"
    cannot = "cannot write the report there"
    args, message = {
        "a file": ([one_job, "--out", a_file], f"--out {a_file} is a file, not a folder: {writable}"),
        # pass 85, row 59: before, a folder named report.png, "Report written to .../report.png"
        "an image's name": ([one_job, "--out", tmp_path / "report.png"],
                            f"--out {tmp_path / 'report.png'} names a file, but --out is the folder the "
                            f"report writes its files into (depth.png, loss_curves.png, table.md, "
                            f"table.csv). Fix: a folder, e.g. --out {tmp_path / 'report'}"),
        "below a file": ([one_job, "--out", a_file / "sub"],
                         f"--out {a_file / 'sub'}: {cannot} (Not a directory); {writable}"),
        "in /proc": ([one_job, "--out", "/proc/x"],
                     f"--out /proc/x: {cannot} (No such file or directory); {writable}"),
        "/proc itself": ([one_job, "--out", "/proc"],  # exists, but takes no file
                         f"--out /proc: {cannot} (No such file or directory); {writable}"),
        # pass 31, row 27: before, the example lacked the _<hex> of a real multirun folder
        # pass 53, row 42: and where it looked for one to offer
        "no sweep folder": ([a_file], f"{a_file} is not a folder: give a multirun folder, e.g. "
                                      f"outputs/multiruns/<date>_<time>_<hex>; none is in "
                                      f"{tmp_path}/outputs/multiruns: a sweep (python train.py -m ...) "
                                      f"makes one"),
        # pass 55, row 46: the sweep's own summary.jsonl; before, "none is in outputs/multiruns"
        "summary file": ([one_job / "summary.jsonl"],
                         f"{one_job}/summary.jsonl is a file of the multirun {one_job}: the report takes the "
                         f"multirun's folder. Fix: python -m highwaylab.report {one_job}"),
        # pass 90, row 53: a job's metrics.json; before, "is not a folder", with an example in outputs/
        "a job's file": ([next(one_job.glob("0_*")) / "metrics.json"],
                         f"{next(one_job.glob('0_*'))}/metrics.json is a file of a job of the multirun "
                         f"{one_job}: the report takes the multirun's folder. Fix: python -m "
                         f"highwaylab.report {one_job}"),
        # pass 53, row 42: before, the example was the very input, placeholders and all
        "placeholder": (["outputs/multiruns/<date>_<time>_<hex>"],
                        f"outputs/multiruns/<date>_<time>_<hex>: no such folder (its <...> parts are "
                        f"placeholders, as in the README, to be replaced): give a multirun folder, e.g. the "
                        f"newest in outputs/multiruns: outputs/multiruns/{one_job.name}"),
        # pass 57, row 79: a relative folder that is not here: before, "is not a folder", and not where
        "relative, not here": (["sweeps/74rel"], f"sweeps/74rel: no such folder ({tmp_path}/sweeps/74rel): "
                                                 f"give a multirun folder"),
        # eighteenth pass: before, rc 0 and the report run silently in the default group
        "empty group": ([one_job, "--group", ""], "--group is empty: give a W&B group, e.g. --group "
                                                  "sweep-depth (or leave --group out: the jobs' group)"),
        # pass 30, row 44: before, rc 0 and a folder named '-'
        "dash": ([one_job, "--out", "-"], f"--out -: the report is a folder of figures and tables, not one "
                                          f"stream; give a folder, e.g. --out {one_job.name}_report (its "
                                          f"table.md is the table as text)"),
        # pass 30, row 63: before, "--out <sweep>/report: ...; e.g. --out <sweep>/report": the refused folder
        # as the example, and an --out never typed
        "default unwritable": ([unwritable], f"{unwritable}/report (the default --out, inside the sweep): "
                                             f"{cannot} (File exists); give a folder that can be written, "
                                             f"e.g. --out unwritable_sweep_report"),
        # pass 32, row 43 (major): before, rc 0, and the report's W&B run replaced the job's own (its
        # training history deleted: "replaced the earlier report's W&B run")
        "a job's folder": ([one_job, "--out", job := next(one_job.glob("0_*"))],
                           f"--out {job} is the folder of a run or a multirun (it holds .hydra, "
                           f"metrics.json): the report would put its files and W&B run among that run's. "
                           f"Fix: give a folder of its own, e.g. --out {one_job}/report"),
        "the sweep's folder": ([one_job, "--out", one_job], f"--out {one_job} is the folder of a run or a "
                                                           f"multirun (it holds summary.jsonl): the report"),
        # pass 35, row 26: before, rc 0 and the report's files written beside the job's last.ckpt
        "inside a job's folder": ([one_job, "--out", job / "checkpoints"],
                                  f"--out {job}/checkpoints is inside {job}, which is the folder of a run or "
                                  f"a multirun (it holds .hydra, metrics.json): the report would put its "
                                  f"files and W&B run among that run's. Fix: give a folder of its own, e.g. "
                                  f"--out {one_job}/report"),
        # pass 35, row 25: before, rc 0, "Report written to ~/rep" and the report in <cwd>/~/rep
        "tilde": ([one_job, "--out=~/rep"], f"--out ~/rep: ~ is not expanded here (a shell expands it only "
                                            f"at the start of a word, not after --out= or in quotes), so it "
                                            f"would be written into a folder named '~' in {tmp_path}. "
                                            f"Fix: --out {Path('~/rep').expanduser()}"),
        # pass 37, row 35: before, rc 0 and a table.md of the user's own replaced
        "own table": (
            [one_job, "--out", mine],
            f"--out {mine} holds table.md, which the report would replace, but not the other files of an "
            f"earlier report (table.md, table.csv, depth.png, loss_curves.png): are they your own? Fix: give "
            f"a new folder, e.g. --out {one_job}/report, or move them away first"),
    }[case]
    if case == "placeholder":  # a multirun of the user's, to be offered
        (tmp_path / "outputs" / "multiruns").mkdir(parents=True)
        shutil.copytree(one_job, tmp_path / "outputs" / "multiruns" / one_job.name)
        (tmp_path / "outputs" / "multiruns" / one_job.name / "multirun.yaml").write_text("{}\n")
    proc = report(*args, "--no-wandb", cwd=tmp_path, HIGHWAYLAB_ROOT=str(tmp_path))  # its outputs/, not ours
    assert proc.returncode == 2
    # one line: no usage, no traceback
    if case == "the sweep's folder":
        assert proc.stderr.startswith(f"python -m highwaylab.report: error: {message}"), proc.stderr
        return
    assert proc.stderr == f"python -m highwaylab.report: error: {message}\n"
    assert proc.stdout == ""
    assert a_file.read_text() == "not a folder\n"
    assert not (tmp_path / "~").exists() and not (job / "checkpoints").exists()
    assert case != "own table" or (mine / "table.md").read_text() == "my own notes\n"


def test_the_report_imports_no_torch(one_job, tmp_path):
    """The report reads files only: neither --help nor a whole report imports torch (seconds saved)."""
    for args in (["--help"], [one_job, "--no-wandb"]):
        command = [sys.executable, "-X", "importtime", "-m", "highwaylab.report", *map(str, args)]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path,
                              env=subprocess_env())
        assert proc.returncode == 0, proc.stderr[-3000:]
        imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
        assert "matplotlib" in imported and "torch" not in imported, args  # the control: the list is read


def test_jobs_in_folders_of_their_own_subdir_are_not_called_absent(tmp_path):
    # pass 95, row 45b (major): hydra.sweep.subdir=run_${hydra.job.num}; before, both finished jobs "did not
    # run", with a command that trained job 0 again
    import yaml

    from highwaylab.analysis.sweep_report import absent_jobs

    sweep = tmp_path / "sweep"
    (sweep).mkdir()
    (sweep / "multirun.yaml").write_text(yaml.safe_dump({"hydra": {
        "sweeper": {"_target_": "hydra._internal.core_plugins.basic_sweeper.BasicSweeper"},
        "overrides": {"task": ["depth=3", "seed=0,1,2"]}}}))
    for num in (0, 1):  # job 0 by its record alone, job 1 by its summary.jsonl line too
        (sweep / f"run_{num}" / ".hydra").mkdir(parents=True)
        (sweep / f"run_{num}" / ".hydra" / "hydra.yaml").write_text(yaml.safe_dump(
            {"hydra": {"job": {"num": num}}} if num == 0 else {"hydra": {}}))
    line = {"job": 1, "status": "ok", "output_dir": str(sweep / "run_1"), "error": None, "overrides": []}
    (sweep / "summary.jsonl").write_text(json.dumps(line) + "\n")
    assert absent_jobs(sweep, [sweep / "run_0", sweep / "run_1"]) == [
        "job 2 (seed=2) did not run: the sweep stopped before it. Fix: run it on its own into this sweep's "
        "folder, where the report finds it: python train.py depth=3 seed=2 "
        f"'hydra.run.dir={sweep}/2_${{run_name}}'"]


def test_the_jobs_a_report_cannot_show_are_named(tmp_path):
    # before: a job whose folder was deleted, and the jobs after an interrupted one, were left out of
    # the report without a word
    import yaml

    from highwaylab.analysis.sweep_report import absent_jobs

    sweep = tmp_path / "sweep"
    (sweep / "0_run-s0").mkdir(parents=True)
    (sweep / "multirun.yaml").write_text(yaml.safe_dump({"hydra": {
        "sweeper": {"_target_": "hydra._internal.core_plugins.basic_sweeper.BasicSweeper"},
        "overrides": {"task": ["depth=3", "seed=0,1,2,3"]}}}))
    lines = [{"job": 0, "status": "ok", "output_dir": str(sweep / "0_run-s0")},
             {"job": 1, "status": "ok", "output_dir": str(sweep / "1_run-s1")},  # deleted since
             {"job": 2, "status": "interrupted", "output_dir": str(sweep / "2_run-s2")}]
    (sweep / "summary.jsonl").write_text("".join(json.dumps(line | {"error": None, "overrides": []}) + "\n"
                                                 for line in lines))
    (sweep / "2_run-s2").mkdir()
    assert absent_jobs(sweep, [sweep / "0_run-s0", sweep / "2_run-s2"]) == [
        "1_run-s1: its folder is missing (moved or deleted?); summary.jsonl records it as ok",
        "job 3 (seed=3) did not run: the sweep stopped before it. Fix: run it on its own into this sweep's "
        "folder, where the report finds it: python train.py depth=3 seed=3 "
        f"'hydra.run.dir={sweep}/3_${{run_name}}'"]
    # pass 48, row 38: a file standing at the job's folder was "missing (moved or deleted?)"
    (sweep / "1_run-s1").write_text("not a folder")
    assert absent_jobs(sweep, [sweep / "0_run-s0", sweep / "2_run-s2"])[0] == (
        f"1_run-s1: a file, not the job's folder, stands at {sweep}/1_run-s1; summary.jsonl records the job "
        f"as ok. Fix: move the file away (mv {sweep}/1_run-s1 <elsewhere>) and put the job's folder back")
    (sweep / "1_run-s1").unlink()
    # pass 34, row 33: a folder that is there without its .hydra/config.yaml was "missing (moved or deleted?)"
    (sweep / "1_run-s1").mkdir()
    assert absent_jobs(sweep, [sweep / "0_run-s0", sweep / "2_run-s2"])[0] == (
        "1_run-s1: its record 1_run-s1/.hydra/config.yaml is missing (deleted?), so the report cannot place "
        "the job (model, depth, seed); summary.jsonl records it as ok. Fix: put the file back")
    # pass 38, row 37: before, a renamed job folder, read and counted in the table, was also "missing
    # (moved or deleted?)"
    (sweep / "1_run-s1").rename(sweep / "1_renamed")
    (sweep / "1_renamed" / ".hydra").mkdir()
    assert absent_jobs(sweep, [sweep / "0_run-s0", sweep / "1_renamed", sweep / "2_run-s2"])[0] == (
        "1_run-s1: not under that name; 1_renamed holds job 1 (renamed?), and the report reads it there")
    (sweep / "1_renamed").rename(sweep / "1_run-s1")
    # pass 38, row 51: before, with the sweep still running (job 2's run holding its lock), job 3 "did
    # not run: the sweep stopped before it", with a command that would have run it twice
    from highwaylab.utils.run_lock import holding

    (sweep / "2_run-s2" / ".hydra").mkdir()
    with holding(sweep / "2_run-s2"):  # this process runs job 2
        assert absent_jobs(sweep, [sweep / "0_run-s0", sweep / "2_run-s2"])[1] == (
            f"job 3 (seed=3) has not run yet: the sweep is still running (2_run-s2 is held by process "
            f"{os.getpid()}); report again when it ends")


def test_a_job_without_its_metrics_json_is_named_with_the_reason(tmp_path):
    # breaking pass 19, row 59: before, a finished job (summary.jsonl: ok) whose metrics.json was
    # deleted was "incomplete" under the table, with no reason and no warning line
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    deleted = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)
    (deleted / "metrics.json").unlink()
    running = write_job(sweep, 2, [*FIXED[:1], "depth=5", *FIXED[2:]], 0.4, 0.8)
    (running / "metrics.json").unlink()
    # pass 30, row 22: before, a cut metrics.json was only a note under the table, with no fix
    cut = write_job(sweep, 3, [*FIXED[:1], "depth=6", *FIXED[2:]], 0.4, 0.8)
    (cut / "metrics.json").write_text((cut / "metrics.json").read_text()[:20])
    lines = (sweep / "summary.jsonl").read_text().splitlines()
    (sweep / "summary.jsonl").write_text("\n".join(lines[:2] + lines[3:]) + "\n")  # job 2: not ended
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    missing = "its metrics.json is missing (deleted?), though summary.jsonl records the job as ok"
    fix = "Fix: python train.py resume={} tests it again and writes its metrics.json"
    assert f"{deleted.name}: {missing}; not in the table. {fix.format(deleted)}" in proc.stderr
    assert f"- {deleted.name}: incomplete: {missing}. {fix.format(deleted)}" in proc.stdout
    assert f"warning: {cut.name}: its metrics.json cannot be read (" in proc.stderr
    assert f"; not in the table. {fix.format(cut)}" in proc.stderr
    # pass 39, row 23: before, the line under the table named a cut metrics.json without the fix
    cut_line = next(line for line in proc.stdout.splitlines() if line.startswith(f"- {cut.name}: "))
    assert cut_line.startswith(f"- {cut.name}: incomplete: metrics.json cannot be read (")
    assert cut_line.endswith(f"). {fix.format(cut)}")
    # pass 88, row 49: before, an emptied metrics.json ({}) was "- <job>: incomplete" alone, with no reason
    (cut / "metrics.json").write_text("{}")
    proc = report(sweep, "--no-wandb", "--out", tmp_path / "emptied", cwd=tmp_path)
    assert (f"- {cut.name}: incomplete: metrics.json holds no metrics (an empty object {{}}: edited, or cut "
            f"short?). {fix.format(cut)}") in proc.stdout.splitlines()
    # pass 31, row 59: before, a metrics.json that is a folder was "missing (deleted?)", and the resume=
    # advised was refused ("metrics.json is a folder ... move it away")
    (deleted / "metrics.json").mkdir()
    proc = report(sweep, "--no-wandb", "--out", tmp_path / "again", cwd=tmp_path)
    assert (f"warning: {deleted.name}: its metrics.json is not a file (a folder?); not in the table. Fix: "
            f"move it away (mv {deleted}/metrics.json <elsewhere>), then: python train.py resume={deleted} "
            f"tests it again and writes its metrics.json") in proc.stderr
    assert f"- {running.name}: incomplete: no metrics.json: the job did not finish, and no process runs it " \
           "(killed?)" in proc.stdout
    assert "| highway | 3 | 1 |" in proc.stdout  # the finished job is still shown


def test_a_job_whose_hydra_record_is_gone_is_placed_by_its_resolved_config(tmp_path):
    # pass 75, row 72: before, a job whose .hydra/ was deleted was left out of the table, "Fix: put the
    # file back"; row 72x: with .hydra/config.yaml put back alone, "its .hydra record cannot be read
    # (FileNotFoundError); skipped" and then "config.yaml is missing", though it was there
    import shutil

    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    gone = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)
    (gone / "config_resolved.yaml").write_text("depth: 4\nwidth: 8\nseed: 0\nmodel:\n  _target_: "
                                               "highwaylab.models.FCBackbone\n  block: highway\n")
    shutil.rmtree(gone / ".hydra")
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    placed = (f"{gone.name}: its .hydra record cannot be read (.hydra/ is missing); the report places the "
              f"job by its config_resolved.yaml and its line in summary.jsonl")
    assert [line for line in proc.stderr.splitlines() if gone.name in line] == [
        f"python -m highwaylab.report: warning: {placed}"]
    assert [row["depth"] for row in read_csv(sweep / "report")] == ["3", "4"]  # both jobs in the table
    (gone / ".hydra").mkdir()
    shutil.copy(gone / "config_resolved.yaml", gone / ".hydra" / "config.yaml")
    proc = report(sweep, "--no-wandb", "--out", tmp_path / "again", cwd=tmp_path)
    assert [line for line in proc.stderr.splitlines() if gone.name in line] == [
        f"python -m highwaylab.report: warning: {placed.replace('.hydra/ is', '.hydra/hydra.yaml is')}"]
    (gone / "config_resolved.yaml").unlink()  # nothing to place it by: skipped, said once
    proc = report(sweep, "--no-wandb", "--out", tmp_path / "third", cwd=tmp_path)
    assert [line for line in proc.stderr.splitlines() if gone.name in line] == [
        f"python -m highwaylab.report: warning: {gone.name}: its .hydra record cannot be read "
        f"(.hydra/hydra.yaml is missing); skipped"]


def test_edited_records_and_an_empty_out_are_named_not_tracebacks(tmp_path):
    # tenth pass: before, a summary.jsonl line [1, 2] and "test/acc": "abc" in a metrics.json gave
    # tracebacks (TypeError, ValueError), and --out '' wrote the report into the current folder
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    bad = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)
    (bad / "metrics.json").write_text(json.dumps({"train/loss": 0.4, "test/acc": "abc", "depth": 4}))
    with (sweep / "summary.jsonl").open("a") as f:
        f.write("[1, 2]\n")
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert f"{sweep}/summary.jsonl, line 3: not a job's record (an object with its status and output_dir; " \
           "edited?); skipped" in proc.stderr
    jobs = {job.folder.name: job for job in collect_jobs(sweep)}
    assert jobs[bad.name].status == "incomplete"
    rewrite = f"Fix: python train.py resume={bad} tests it again and writes its metrics.json"
    assert jobs[bad.name].error == f"metrics.json has test/acc='abc', not a number. {rewrite}"
    assert "| highway | 3 | 1 |" in proc.stdout  # the other job is plotted
    # pass 34, row 47 (major): a hand-written NaN (JSON's NaN, which train.py never writes: it writes null)
    # ended the report in a traceback in statistics.stdev
    (bad / "metrics.json").write_text('{"train/loss": 0.4, "test/acc": NaN, "depth": 4}')
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert {job.folder.name: job for job in collect_jobs(sweep)}[bad.name].error == (
        f"metrics.json has test/acc=nan, not a finite number (edited? train.py writes null). {rewrite}")
    assert "| highway | 3 | 1 |" in proc.stdout
    empty = report(sweep, "--out", "", "--no-wandb", cwd=tmp_path)
    assert empty.returncode == 2 and empty.stderr == (
        f"python -m highwaylab.report: error: --out is empty: give a folder, e.g. --out {sweep / 'report'} "
        "(or leave --out out: <sweep_dir>/report)\n")
    assert not (tmp_path / "table.md").exists()


def test_a_wandb_report_run_that_cannot_start_is_one_line_after_the_files(one_job, tmp_path):
    # tenth pass: before, online W&B without an API key wrote the files, then a UsageError traceback
    env = subprocess_env(WANDB_MODE="online", HOME=str(tmp_path), WANDB_BASE_URL="http://127.0.0.1:9")
    env.pop("WANDB_API_KEY", None)
    proc = subprocess.run([sys.executable, "-m", "highwaylab.report", str(one_job), "--out",
                           str(tmp_path / "rep")], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1].startswith(
        f"python -m highwaylab.report: error: the report is written to {tmp_path / 'rep'}, but its W&B run "
        "could not start (")
    assert proc.stderr.strip().endswith("Fix: wandb login, or WANDB_MODE=offline (wandb sync later), or "
                                        "--no-wandb")
    assert (tmp_path / "rep" / "table.md").is_file()


def test_the_loss_curves_of_a_csv_logged_sweep_come_from_its_csv_logs(tmp_path):
    # breaking pass 20, row 30: before, a logger=csv sweep's loss_curves.png was only the text "no
    # training loss in the jobs' W&B runs", and the console said nothing
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9)  # with its CSV log
    bare = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8, csv_log=False)  # logger=none
    jobs = {j.folder.name: j for j in collect_jobs(sweep)}
    assert jobs[job.name].curve == [(49, 2.25), (99, 1.5)]  # train/loss_step, not the epoch mean
    assert jobs[bare.name].curve == []
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the job without a curve is named (pass 32, row 46: before, left out of loss_curves.png without a word)
    assert [line for line in proc.stderr.splitlines() if "loss_curves" in line] == [
        f"python -m highwaylab.report: warning: loss_curves.png has no curve of {bare.name}: it logged no "
        f"training loss to W&B or to a CSV logger (logger=none, or tensorboard only)"]
    # pass 21, row 2: logger.csv.prefix=pre writes pre-train/loss_step; before: "no curve", falsely
    prefixed = write_job(sweep, 2, [*FIXED[:1], "depth=5", *FIXED[2:]], 0.4, 0.8, csv_log=False)
    (prefixed / "config_resolved.yaml").write_text("logger:\n  csv:\n    prefix: pre\n")
    write_csv_log(prefixed, prefix="pre")
    assert {j.folder.name: j for j in collect_jobs(sweep)}[prefixed.name].curve == [(49, 2.25), (99, 1.5)]
    (job / "csv" / "version_0" / "metrics.csv").unlink()
    (prefixed / "csv" / "version_0" / "metrics.csv").unlink()
    proc = report(sweep, "--no-wandb", "--out", tmp_path / "empty", cwd=tmp_path)
    assert proc.stderr.splitlines() == [
        "python -m highwaylab.report: warning: loss_curves.png has no curve: no job logged its training loss "
        "to W&B or to a CSV logger (logger=none, or tensorboard only)"]


def test_a_resumed_jobs_curve_keeps_the_epoch_means_before_its_per_batch_losses(tmp_path):
    # pass 38, row 26: before, a job of 3-step epochs (no train/loss_step at log_every_n_steps=50) resumed
    # with trainer.log_every_n_steps=1 had a curve from step 3 only: its first epoch (2.25 at step 2) was
    # left out without a word
    job = write_job(tmp_path / "sweep", 0, FIXED, 0.5, 0.9, csv_log=False)
    for version, rows in ((0, [["0", "2", "2.25", ""]]),
                          (1, [["", "3", "", "2.0"], ["", "4", "", "1.75"], ["1", "5", "1.8", "1.5"]])):
        (job / "csv" / f"version_{version}").mkdir(parents=True)
        with (job / "csv" / f"version_{version}" / "metrics.csv").open("w", newline="") as f:
            csv.writer(f).writerows([["epoch", "step", "train/loss", "train/loss_step"], *rows])
    with pytest.warns(UserWarning) as caught:
        (found,) = collect_jobs(tmp_path / "sweep")
    assert found.curve == [(2, 2.25), (3, 2.0), (4, 1.75), (5, 1.5)]
    assert [str(w.message) for w in caught if "starts at step" in str(w.message)] == [
        f"{job.name}: its per-batch train/loss_step starts at step 3; before that, its curve in "
        f"loss_curves.png is the epoch means train/loss (steps 2: trainer.log_every_n_steps was longer than "
        f"those epochs)"]


def test_the_loss_curves_come_from_a_csv_log_outside_the_job_folder(tmp_path):
    # pass 30, row 72: before, a sweep with logger.csv.save_dir=<shared folder> got "loss_curves.png has no
    # curve: no job logged its training loss", though each job's CSV log was in that folder (as version_0,
    # version_1, which no record tied to a job); each job now records a folder of its own there
    from highwaylab.utils.loggers import own_log_folders

    shared = tmp_path / "csvsw"
    cfg = compose_cfg(["logger=csv", f"logger.csv.save_dir={shared}"], tmp_path / "sweep" / "0_job")
    assert own_log_folders(cfg.logger, cfg.paths.output_dir) == [
        f"logger.csv.save_dir={shared} is outside the run's folder, so this run's CSV files go to a folder "
        f"of their own there: {shared}/csv/sweep/0_job (logger.csv.version)"]
    assert (cfg.logger.csv.version, cfg.logger.csv.save_dir) == ("sweep/0_job", str(shared))
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9, csv_log=False)
    (job / "config_resolved.yaml").write_text(
        f"logger:\n  csv:\n    save_dir: {shared}\n    name: csv\n    version: sweep/{job.name}\n")
    write_csv_log(tmp_path / "holder")
    (shared / "csv" / "sweep").mkdir(parents=True)
    (tmp_path / "holder" / "csv" / "version_0").rename(shared / "csv" / "sweep" / job.name)
    assert collect_jobs(sweep)[0].curve == [(49, 2.25), (99, 1.5)]

def test_a_short_sweeps_log_axes_are_labelled_with_plain_numbers(tmp_path):
    # before: one depth and losses within a decade gave labels like 2.2x10^0, and the loss curves of
    # a 30-step job a step axis of 27.5 .. 30.5
    from highwaylab.analysis.sweep_report import Job, curves_figure, depth_figure

    jobs = [Job(tmp_path / f"{i}", "highway", 10, i, "ok", {"train/loss": loss, "test/acc": 0.9},
                curve=[(29, loss), (30, loss * 0.9)]) for i, loss in enumerate((2.1, 2.4))]
    for fig in (depth_figure(aggregate(jobs)), curves_figure(jobs)):
        fig.canvas.draw()
        ticks = [t for ax in fig.axes
                 for t in (*ax.get_yticklabels(), *ax.yaxis.get_minorticklabels(), *ax.get_xticklabels())]
        labels = [t.get_text() for t in ticks if t.get_text()]
        assert labels and not [t for t in labels if "times" in t or "^" in t], labels
    steps = [t.get_text() for t in curves_figure(jobs).axes[0].get_xticklabels()]
    assert steps and all("." not in t for t in steps), steps


def loss_axis_labels(fig) -> list[str]:
    """The labels of the first panel's y axis (the loss), major then minor, that lie on the axis."""
    fig.canvas.draw()
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    return [t.get_text() for t in (*ax.get_yticklabels(), *ax.get_yminorticklabels())
            if t.get_text() and low <= t.get_position()[1] <= high]


def test_losses_of_under_a_decade_are_readable_off_the_depth_axis(tmp_path):
    # new-user pass 32: losses 0.67, 0.82 and 1.83 (plain, highway, residual at depth 5) had one labelled
    # tick, 1, so none of the three could be read off
    from highwaylab.analysis.sweep_report import Job, depth_figure

    jobs = [Job(tmp_path / model, model, 5, 0, "ok", {"train/loss": loss, "test/acc": 0.9})
            for model, loss in (("residual", 0.6676), ("highway", 0.8178), ("plain", 1.829))]
    fig = depth_figure(aggregate(jobs))
    labels = loss_axis_labels(fig)
    assert labels == ["1", "0.7", "0.8", "0.9", "1.2", "1.5"], labels
    import matplotlib.pyplot as plt

    plt.close(fig)  # pyplot keeps it: past 20 open figures, its warning fails the no-warning tests


def test_a_loss_axis_of_many_decades_labels_the_powers_of_ten_alone(tmp_path):
    # pass 93, row 27b: losses 5.8e18 and 5.8e22 (a diverged learning-rate sweep) labelled 1.2e+22 and
    # 1.5e+22 over 1e+22, at each decade: no label could be read
    from highwaylab.analysis.sweep_report import Job, depth_figure

    jobs = [Job(tmp_path / f"{i}", "highway", 3, 0, "ok", {"train/loss": loss, "test/acc": 0.1},
                overrides={"optim.optimizer.lr": str(lr)})
            for i, (lr, loss) in enumerate(((1e6, 5.844e18), (1e7, 5.840e22)))]
    fig = depth_figure(aggregate(jobs))
    labels = loss_axis_labels(fig)
    assert labels == ["1e+19", "1e+20", "1e+21", "1e+22"], labels
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_a_narrow_loss_axis_has_no_repeated_labels(tmp_path):
    # breaking pass 21, row 3: losses 2.2504 .. 2.2839 gave the labels 2.25, 2.25, 2.26, 2.27, 2.27, ...
    from highwaylab.analysis.sweep_report import Job, curves_figure

    jobs = [Job(tmp_path / "0", "highway", 3, 0, "ok", {"train/loss": 2.25, "test/acc": 0.5},
                curve=[(2, 2.2504), (3, 2.2839)])]
    fig = curves_figure(jobs)
    labels = loss_axis_labels(fig)
    assert len(labels) >= 2 and len(labels) == len(set(labels)), labels


def test_an_optuna_sweeps_depth_figure_has_short_labels_below_the_panels_and_no_warning(tmp_path):
    # before: labels like optim.optimizer.lr=0.044303752452182654 in a legend inside each panel, over
    # the data and off both sides of the figure, and "UserWarning: Tight layout not applied"
    import re

    from highwaylab.analysis.sweep_report import Job, depth_figure

    searched = [("0.044303752452182654", "0.8504427895224855", "0.801381688035822", "relu", "-4"),
                ("0.2667448046459377", "0.5394636552892903", "0.6516229880728643", "tanh", "-10")]
    keys = ("optim.optimizer.lr", "optim.optimizer.momentum", "optim.scheduler.gamma", "model.activation",
            "model.gate_bias")
    jobs = [Job(tmp_path / f"{i}_{depth}", "highway", depth, 0, "ok",
                {"train/loss": 2.0 + i, "test/acc": 0.5 + i / 10},
                overrides=dict(zip(keys, values, strict=True)))
            for i, values in enumerate(searched) for depth in (3, 10)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = depth_figure(aggregate(jobs))
        fig.savefig(tmp_path / "depth.png", dpi=120)
    (legend,) = fig.legends  # one, for both panels
    labels = [t.get_text() for t in legend.get_texts()]
    assert [" ".join(label.split()) for label in labels] == [
        "highway model.activation=relu model.gate_bias=-4 optim.optimizer.lr=0.0443 "
        "optim.optimizer.momentum=0.85 optim.scheduler.gamma=0.801",
        "highway model.activation=tanh model.gate_bias=-10 optim.optimizer.lr=0.267 "
        "optim.optimizer.momentum=0.539 optim.scheduler.gamma=0.652"]
    digits = [len(re.sub(r"\D", "", m).lstrip("0")) for m in re.findall(r"=(-?[\d.]+)", " ".join(labels))]
    assert digits and max(digits) <= 3
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)  # inside the figure
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent(renderer))  # below the panels, not over them



def test_an_optuna_sweeps_loss_curves_have_one_legend_below_and_a_colour_per_trial(tmp_path):
    # pass 29, row 78: before, loss_curves.png had a legend inside the one panel, wider than it (cut off on
    # both sides, over the y-axis label and the data), both highway trials drawn in one colour, and
    # "UserWarning: Tight layout not applied"
    from highwaylab.analysis.sweep_report import Job, curves_figure

    keys = ("optim.optimizer.lr", "optim.optimizer.momentum", "optim.scheduler.gamma", "model.gate_bias")
    searched = [("0.044303752452182654", "0.8504427895224855", "0.801381688035822", "-4"),
                ("0.2667448046459377", "0.5394636552892903", "0.6516229880728643", "-10")]
    jobs = [Job(tmp_path / f"{i}", "highway", 3, 0, "ok", {"train/loss": 2.0, "test/acc": 0.5},
                curve=[(1, 2.3), (2, 2.0 - i / 10), (3, 1.8 - i / 10)],
                overrides=dict(zip(keys, values, strict=True)))
            for i, values in enumerate(searched)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = curves_figure(jobs)
        fig.savefig(tmp_path / "loss_curves.png", dpi=120)
    (ax,) = fig.axes
    assert ax.get_legend() is None  # none inside the panel
    (legend,) = fig.legends
    assert [" ".join(t.get_text().split()) for t in legend.get_texts()] == [
        "highway model.gate_bias=-10 optim.optimizer.lr=0.267 optim.optimizer.momentum=0.539 "
        "optim.scheduler.gamma=0.652 s0",
        "highway model.gate_bias=-4 optim.optimizer.lr=0.0443 optim.optimizer.momentum=0.85 "
        "optim.scheduler.gamma=0.801 s0"]
    colours = {line.get_color() for line in ax.get_lines()}
    assert len(colours) == 2  # a colour per trial
    renderer = fig.canvas.get_renderer()
    box = legend.get_window_extent(renderer)
    assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)  # inside the figure
    assert not box.overlaps(ax.get_window_extent(renderer))  # below the panel, not over it

# run the report with Figure.savefig sending this process a real SIGINT (Ctrl-C) at its call number N
SIGINT_AT_SAVE = """
import os, signal, sys
from matplotlib.figure import Figure
from highwaylab.report import main
calls, save = [], Figure.savefig
def savefig(self, *args, **kwargs):
    calls.append(1)
    if len(calls) == int(os.environ["SIGINT_AT_SAVE"]):
        os.kill(os.getpid(), signal.SIGINT)
    return save(self, *args, **kwargs)
Figure.savefig = savefig
main(sys.argv[1:])
"""


@pytest.mark.parametrize("at_save", [1, 2])
def test_ctrl_c_during_the_report_is_one_line_and_leaves_no_empty_out_folder(tmp_path, at_save):
    # before: rc 130 with a 30-line traceback through matplotlib ending KeyboardInterrupt, and the
    # --out folder it had made left behind, empty
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)  # with a loss curve (its CSV log): no warning line
    out = tmp_path / "new" / "rep"  # neither folder is there: the report makes both
    proc = subprocess.run([sys.executable, "-c", SIGINT_AT_SAVE, str(sweep), "--out", str(out), "--no-wandb"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=subprocess_env(SIGINT_AT_SAVE=str(at_save)))
    assert proc.returncode == 130
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    if at_save == 1:  # nothing written yet: the folders it made are gone
        assert proc.stderr == (f"highwaylab: interrupted (SIGINT) before the report was written: removed "
                               f"{out}, the empty --out folder it had made\n")
        assert not (tmp_path / "new").exists()
    else:  # depth.png written: kept, and said to be incomplete
        assert proc.stderr == (f"highwaylab: interrupted (SIGINT) while writing the report: what {out} holds "
                               f"may be incomplete. Fix: run it again\n")
        assert sorted(p.name for p in out.iterdir()) == ["depth.png"]


def test_ctrl_c_leaves_an_out_folder_that_was_there(tmp_path):
    # the report removes only the folders it made: an empty --out given by the user stays
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    (out := tmp_path / "rep").mkdir()
    proc = subprocess.run([sys.executable, "-c", SIGINT_AT_SAVE, str(sweep), "--out", str(out), "--no-wandb"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=subprocess_env(SIGINT_AT_SAVE="1"))
    assert proc.returncode == 130 and proc.stderr.startswith("highwaylab: interrupted (SIGINT) while writing")
    assert out.is_dir() and not list(out.iterdir())


def test_a_job_resumed_to_more_epochs_is_not_averaged_with_the_others_and_says_so(tmp_path):
    # sixteenth pass: before, a trial resumed to 2 epochs stood beside the 1-epoch ones with nothing
    # saying so (its overrides still say trainer.max_epochs=1), or was averaged with them as a seed
    from highwaylab.analysis.sweep_report import Job

    same = {"trainer.max_epochs": "1"}
    runs = [(0.5, 0.44, 1), (0.3, 0.63, 2), (0.4, 0.5, 1)]  # train/loss, test/acc, epochs trained
    jobs = [Job(tmp_path / f"{i}_j", "highway", 10, i, "ok", {"train/loss": loss, "test/acc": acc,
                                                              "epochs": n}, overrides=dict(same))
            for i, (loss, acc, n) in enumerate(runs)]
    points = aggregate(jobs)
    assert [(p.variant, p.seeds) for p in points] == [((("epochs trained", "1"),), [0, 2]),
                                                      ((("epochs trained", "2"),), [1])]
    table = markdown_table(table_rows(points), jobs, points)
    assert table.splitlines()[0] == ("| model | depth | epochs trained | seeds | final training loss "
                                     "(nats) | test accuracy (%) |")
    assert "| highway | 10 | 2 | 1 | 0.3000 | 63.00 |" in table
    for job in jobs:
        job.metrics["epochs"] = 1
    assert [p.variant for p in aggregate(jobs)] == [()]  # the same epochs: no column


def test_the_wandb_report_run_goes_to_the_jobs_recorded_project_and_group(tmp_path, monkeypatch):
    # breaking pass 16, rows 10 and 48: before, the report run was in project highwaylab and group
    # sweep-<folder> even when the jobs recorded logger.wandb.project=myproj / logger.wandb.group=mygroup
    import wandb

    from highwaylab.report import main

    sweep = tmp_path / "sw"
    for num in (0, 1):
        job = write_job(sweep, num, [*FIXED, f"seed={num}"], 0.5, 0.9)
        (job / "config_resolved.yaml").write_text(
            "logger:\n  wandb:\n    project: myproj\n    group: mygroup\n")
    started: list[dict] = []

    class Stop(Exception):
        pass

    def init(**kwargs):
        started.append(kwargs)
        raise Stop

    monkeypatch.setattr(wandb, "init", init)
    with pytest.raises(Stop):
        main([str(sweep), "--out", str(tmp_path / "rep")])
    assert (started[-1]["project"], started[-1]["group"]) == ("myproj", "mygroup")
    with pytest.raises(Stop):  # the flags win
        main([str(sweep), "--out", str(tmp_path / "rep"), "--project", "other", "--group", "g"])
    assert (started[-1]["project"], started[-1]["group"]) == ("other", "g")
    for job in sweep.glob("*/config_resolved.yaml"):  # nothing recorded: the defaults
        job.unlink()
    with pytest.raises(Stop):
        main([str(sweep), "--out", str(tmp_path / "rep")])
    assert (started[-1]["project"], started[-1]["group"]) == ("highwaylab", "sweep-sw")


def test_a_debug_fast_sweep_is_reported_as_a_check_not_as_results(tmp_path):
    # pass 59, row 32: before, the report of `-m debug=fast depth=3,4` showed one-step runs as results,
    # blamed their 128 test examples on trainer.limit_test_batches, and wrote losses 2.3 beside 2.301
    from .conftest import ROOT

    sweep = tmp_path / "sweep"
    ran = subprocess.run([sys.executable, "train.py", "-m", "debug=fast", "depth=3,4",
                          f"hydra.sweep.dir={sweep}"], capture_output=True, text=True, timeout=600, cwd=ROOT,
                         env=subprocess_env())
    assert ran.returncode == 0, ran.stderr[-3000:]
    done = report(sweep, "--no-wandb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    note = ("every finished job ran trainer.fast_dev_run (debug=fast): one batch of training, validation and "
            "test each, so their loss and accuracy are those of a net trained for one step, a check that the "
            "sweep runs, not a result: run the sweep without debug=fast for the paper's figures")
    assert f"python -m highwaylab.report: warning: {note}" in done.stderr.splitlines()
    assert "limit_test_batches" not in done.stderr
    table = (sweep / "report" / "table.md").read_text()
    assert table.endswith(f"\n- {note}\n")
    losses = [line.split(" | ")[3] for line in table.splitlines()[2:4]]
    assert [len(loss) for loss in losses] == [5, 5], losses  # 4 significant digits each: 2.300, 2.284


def test_a_job_folder_that_is_a_link_to_another_jobs_gets_a_fix_that_runs_it_again(tmp_path):
    # breaking pass 62, row 46 (major): before, "copied?", with the fix resume=<the link>, refused: the link
    # resolved to the other job's finished folder
    sweep = tmp_path / "sweep"
    first = write_job(sweep, 0, ["seed=0"], 0.5, 0.6)
    second = write_job(sweep, 1, ["seed=1"], 0.4, 0.7)
    shutil.rmtree(second)
    second.symlink_to(first)
    done = report(sweep, "--no-wandb", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    fix = (f"its folder is a link to {first}, so it holds no result of its own. Fix: rm {second} (the link), "
           f"then run it again: python train.py seed=1 hydra.run.dir={second}")
    assert f"python -m highwaylab.report: warning: {second.name}: {fix}" in done.stderr.splitlines()
    assert f"- {second.name}: incomplete: {fix}" in (sweep / "report" / "table.md").read_text()


def test_a_test_accuracy_over_part_of_the_test_set_is_named_under_the_table(tmp_path):
    # pass 26, row 34: before, the table's test accuracy of jobs run with trainer.limit_test_batches (256
    # of 10,000 examples) read like the paper's, with no word
    from highwaylab.analysis.sweep_report import partial_test_note

    sweep = tmp_path / "sweep"
    for num, examples in ((0, 256), (1, 10_000), (2, 512)):
        job = write_job(sweep, num, [f"seed={num}"], 0.5, 0.6)
        metrics = json.loads((job / "metrics.json").read_text())
        (job / "metrics.json").write_text(json.dumps({**metrics, "test_examples": examples}))
    note = ("the test accuracy of 2 of 3 finished jobs counts 256 to 512 of the test set's 10,000 examples "
            "(trainer.limit_test_batches), so it is a rough estimate: run without the limit for the paper's "
            "figures")
    jobs = collect_jobs(sweep)
    assert partial_test_note(jobs) == note
    with pytest.warns(UserWarning, match=r"^the test accuracy of 2 of 3 finished jobs counts 256 to 512"):
        points = aggregate(jobs)
    assert markdown_table(table_rows(points), jobs, points).endswith(f"\n- {note}\n")


@pytest.mark.slow
def test_a_report_made_again_keeps_one_wandb_report_run(tmp_path):
    # pass 27, row 46: before, each report of the sweep left an offline W&B run in <out>/wandb, without a
    # word, and wandb sync of the folder uploaded every one of them as a report run of its own
    sweep = tmp_path / "sw"
    for num in (0, 1):
        write_job(sweep, num, [*FIXED, f"seed={num}"], 0.5, 0.9)
    first = report(sweep, cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    [earlier] = sorted((sweep / "report" / "wandb").glob("offline-run-*"))
    again = report(sweep, cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    [kept] = sorted((sweep / "report" / "wandb").glob("offline-run-*"))
    assert kept != earlier
    line = (f"python -m highwaylab.report: replaced the earlier report's W&B run ({earlier.name}) in "
            f"{sweep / 'report' / 'wandb'}: wandb sync uploads this report alone")
    assert line in again.stderr.splitlines()


def test_a_damaged_summary_line_is_one_warning(tmp_path):
    # pass 28, row f29: before, "line 3: not JSON ...; skipped" was printed 4 times (the summary is read
    # more than once)
    sweep = tmp_path / "sw"
    for num in (0, 1):
        write_job(sweep, num, [*FIXED, f"seed={num}"], 0.5, 0.9)
    with (sweep / "summary.jsonl").open("a") as f:
        f.write('{"overrides": [\n')
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert [line for line in proc.stderr.splitlines() if "not JSON" in line] == [
        f"{sweep / 'summary.jsonl'}, line 3: not JSON (a job killed while writing it?); skipped"]


def test_bytes_of_another_encoding_in_the_summary_or_a_metrics_file_are_one_warning(tmp_path):
    # pass 32, rows 49, 50 (major): before, a Latin-1 line in summary.jsonl, or a stray byte in a job's
    # metrics.json, ended the report in a UnicodeDecodeError traceback, with no report written
    sweep = tmp_path / "sw"
    jobs = [write_job(sweep, num, [*FIXED, f"seed={num}"], 0.5, 0.9) for num in (0, 1)]
    with (sweep / "summary.jsonl").open("ab") as f:
        f.write(b'{"note": "caf\xe9"}\n')
    with (jobs[0] / "metrics.json").open("ab") as f:
        f.write(b"\xe9")
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    warnings = [line for line in proc.stderr.splitlines() if "warning" in line or "UTF-8" in line]
    summary = (f"{sweep / 'summary.jsonl'}, line 3: not UTF-8 text (byte 0xe9 at column 14: written by an "
               f"editor in another encoding?); skipped")
    assert summary in warnings, proc.stderr
    metrics = (f"python -m highwaylab.report: warning: {jobs[0].name}: its metrics.json cannot be read "
               f"('utf-8' codec can't decode byte 0xe9")
    assert any(line.startswith(metrics) and "resume=" in line for line in warnings), proc.stderr
    assert (sweep / "report" / "table.md").is_file()


def test_a_report_with_wandb_disabled_names_no_wandb_run(tmp_path, monkeypatch):
    # pass 32, row 45: before, WANDB_MODE=disabled printed "W&B report run: /tmp/wandb/run-.../files", a
    # folder that was never written
    sweep = tmp_path / "sw"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    monkeypatch.setenv("WANDB_MODE", "disabled")
    proc = report(sweep, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.splitlines()[-1] == "WANDB_MODE=disabled: no W&B report run (as --no-wandb)"
    assert "W&B report run:" not in proc.stdout and not (sweep / "report" / "wandb").exists()


def test_a_killed_job_that_saved_its_state_gets_the_resume_fix(tmp_path):
    # pass 32, row 27: before, "incomplete: no metrics.json: the job did not finish (still running, or
    # killed?)" and no fix, though resume= of it works
    sweep = tmp_path / "sw"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    killed = write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)
    (killed / "metrics.json").unlink()
    lines = (sweep / "summary.jsonl").read_text().splitlines()
    (sweep / "summary.jsonl").write_text(lines[0] + "\n")  # SIGKILL: the job never wrote its line
    (killed / "checkpoints").mkdir()
    (killed / "checkpoints" / "last.ckpt").write_bytes(b"its state")
    with pytest.warns(UserWarning) as caught:  # pass 42, row 62: a warning line names it too
        jobs = collect_jobs(sweep)
    said = (f"no metrics.json: the job did not finish, and no process runs it (killed?); it saved its state: "
            f"continue it with python train.py resume={killed}")
    assert [str(w.message) for w in caught] == [f"{killed.name}: {said}"]
    assert f"- {killed.name}: incomplete: {said}" in markdown_table(
        table_rows(aggregate(jobs)), jobs, aggregate(jobs)).splitlines()
    # pass 42, row 62: killed before its first checkpoint: before, no fix, and no warning line
    shutil.rmtree(killed / "checkpoints")
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    fix = f"rm -r {killed} (it holds no checkpoint), then python train.py {' '.join(FIXED[:1])} depth=4 "
    (warning,) = [line for line in proc.stderr.splitlines() if killed.name in line]
    assert warning.startswith(f"python -m highwaylab.report: warning: {killed.name}: no metrics.json: "
                              f"the job did not finish, and no process runs it (killed?); start it again: "
                              f"{fix}")
    assert warning.endswith(f" hydra.run.dir={killed}")
    # pass 43, row 57: a job the sweep is still training (it holds its run lock) gets no rm -r
    from highwaylab.utils.run_lock import holding

    (killed / ".hydra").mkdir(exist_ok=True)
    with holding(killed):
        proc = report(sweep, "--no-wandb", "--out", tmp_path / "live", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"- {killed.name}: incomplete: no metrics.json yet: the job is still running (process " \
           f"{os.getpid()} holds it); report again when it ends" in proc.stdout.splitlines()
    assert "rm -r" not in proc.stdout + proc.stderr


def test_a_loss_cell_that_is_not_a_number_is_left_out_with_a_warning(tmp_path):
    # pass 33, row 28 (major): before, a metrics.csv cell edited to 'abc' ended the report in a traceback
    # ("could not convert string to float: 'abc'"), with no report written
    sweep = tmp_path / "sw"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9)
    path = job / "csv" / "version_0" / "metrics.csv"
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    cells = lines[1].split(",")
    cells[header.index("train/loss_step")] = "abc"
    path.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n")
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert (f"python -m highwaylab.report: warning: {job.name}: a training-loss value that is not a number "
            f"(train/loss_step 'abc' at step '{cells[header.index('step')]}'; edited?) is left out of "
            f"loss_curves.png") in proc.stderr.splitlines(), proc.stderr
    assert (sweep / "report" / "loss_curves.png").is_file()


def test_a_damaged_wandb_file_of_a_job_is_named_not_called_empty(tmp_path, monkeypatch):
    # pass 33, row 29: before, a job whose run-*.wandb was cut short got "it logged no training loss to W&B
    # or to a CSV logger", a false cause
    import time

    import wandb

    from highwaylab.analysis.sweep_report import loss_curve

    monkeypatch.setenv("WANDB_MODE", "offline")
    job = tmp_path / "0_job"
    run = wandb.init(project="p", id="cutjob01", dir=str(job), mode="offline")
    for step in range(40):
        run.log({"train/loss_step": 2.0 - step / 40, "trainer/global_step": step})
    run.finish()
    [file] = job.glob("wandb/offline-run-*/run-cutjob01.wandb")
    size, held, deadline = -1, 0, time.monotonic() + 60  # wandb-core may still be writing it: until its
    while time.monotonic() < deadline and held < 4:  # size holds for 2 s (under load, 0.5 s was too short)
        held = held + 1 if size == file.stat().st_size and size >= 1024 else 0
        size = file.stat().st_size
        time.sleep(0.5)
    assert len(loss_curve(job)) == 40  # the control: the whole file is read
    with file.open("r+b") as f:  # cut inside its first records, which hold a checksum each: a cut at a
        f.seek(200)  # record's end read as a whole, shorter file, without a word (CI, under load)
        f.write(b"\x00" * 64)
        f.truncate(300)
    time.sleep(1)
    assert file.stat().st_size == 300  # nothing wrote past the cut since
    with pytest.warns(UserWarning) as caught:
        curve = loss_curve(job)
    messages = [str(w.message) for w in caught if str(w.message).startswith(f"{file}: ")]
    assert len(messages) == 1 and "(cut short, or damaged?); its training loss" in messages[0], messages
    assert len(curve) < 40
    # the report says so once, without the false "it logged no training loss to W&B" beside it (pass 34,
    # re-check of pass 33, row 29)
    sweep = tmp_path / "sw"
    job_folder = write_job(sweep, 0, FIXED, 0.5, 0.9, csv_log=False)
    write_job(sweep, 1, [*FIXED[:1], "depth=4", *FIXED[2:]], 0.4, 0.8)  # with its CSV curve
    (job_folder / "wandb").mkdir()
    (job / "wandb" / file.parent.name).rename(job_folder / "wandb" / file.parent.name)
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "(cut short, or damaged?)" in proc.stderr and "loss_curves.png has no curve" not in proc.stderr, \
        proc.stderr


@pytest.mark.slow
def test_a_job_a_stopped_sweep_never_started_runs_into_its_folder_by_the_reports_command(tmp_path, data_dir):
    # pass 35, row 28: before, "run it alone with those overrides, or the sweep again": the sweep was refused
    # in its folder ("already holds another sweep"), and a job run alone went to a folder of its own, outside
    # the report and the sweep's W&B group
    import shlex

    from .conftest import ROOT

    sweep = tmp_path / "sweep"
    tiny = ["depth=3", "trainer.max_epochs=1", "trainer.limit_train_batches=3", "trainer.limit_val_batches=2",
            "trainer.limit_test_batches=2", "callbacks=minimal"]
    first = subprocess.run([sys.executable, str(ROOT / "train.py"), "-m", *tiny, "seed=0,1",
                            f"hydra.sweep.dir={sweep}"], capture_output=True, text=True, timeout=600,
                           env=subprocess_env(), cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    [job1] = sweep.glob("1_*")
    seed1 = json.loads((job1 / "metrics.json").read_text())
    shutil.rmtree(job1)  # as if the sweep had been stopped before job 1
    summary = (sweep / "summary.jsonl").read_text().splitlines()
    (sweep / "summary.jsonl").write_text(summary[0] + "\n")
    report = subprocess.run([sys.executable, "-m", "highwaylab.report", str(sweep), "--no-wandb"],
                            capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=tmp_path)
    assert report.returncode == 0, report.stderr[-3000:]
    [note] = [line for line in report.stderr.splitlines() if "did not run" in line]
    command = note.split("where the report finds it: ", 1)[1]
    assert command == (f"python train.py {' '.join(tiny)} seed=1 'hydra.run.dir={sweep}/1_${{run_name}}' "
                       f"logger.wandb.group=sweep-sweep")
    words = shlex.split(command)
    again = subprocess.run([sys.executable, str(ROOT / "train.py"), *words[2:]], capture_output=True,
                           text=True, timeout=600, env=subprocess_env(), cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-3000:]
    [job1] = sweep.glob("1_*")
    assert job1.name == "1_mnist-highway-d3-relu-sgd-s1"  # the folder the sweep would have given it
    assert json.loads((job1 / "metrics.json").read_text())["test/acc"] == seed1["test/acc"]
    assert yaml_load(job1 / "config_resolved.yaml")["logger"]["wandb"]["group"] == "sweep-sweep"
    report = subprocess.run([sys.executable, "-m", "highwaylab.report", str(sweep), "--no-wandb"],
                            capture_output=True, text=True, timeout=300, env=subprocess_env(), cwd=tmp_path)
    assert report.returncode == 0 and "did not run" not in report.stderr, report.stderr[-3000:]
    rows = list(csv.DictReader((sweep / "report" / "table.csv").open()))
    assert [(r["model"], r["depth"], r["seeds"]) for r in rows] == [("highway", "3", "2")]


def yaml_load(path: Path) -> dict:
    import yaml

    return yaml.safe_load(path.read_text())


@pytest.mark.slow
def test_a_job_resumed_with_another_logger_keeps_both_parts_of_its_curve(tmp_path, data_dir):
    # pass 41, row 34 (major): before, a job that logged epoch 0 to CSV and, resumed with logger=wandb,
    # epoch 1 to W&B had a curve of epoch 1 alone: its CSV part was dropped, without a word
    from highwaylab.analysis.sweep_report import loss_curve

    from .conftest import ROOT

    job = tmp_path / "sw" / "0_job"
    tiny = ["depth=3", "trainer.limit_train_batches=3", "trainer.limit_val_batches=2",
            "trainer.limit_test_batches=2", "callbacks=minimal"]
    for args in ([*tiny, "trainer.max_epochs=1", "logger=csv", f"hydra.run.dir={job}"],
                 [f"resume={job}", "trainer.max_epochs=2", "logger=wandb"]):
        proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *args], capture_output=True, text=True,
                              timeout=300, env=subprocess_env(), cwd=tmp_path)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    csv_part = next(float(row["train/loss"]) for row in csv.DictReader(
        (job / "csv" / "version_0" / "metrics.csv").open()) if row.get("train/loss"))
    curve = loss_curve(job)
    assert [step for step, _ in curve] == [2, 5]  # the epoch means of epochs 0 (CSV) and 1 (W&B)
    assert curve[0][1] == pytest.approx(csv_part)


@pytest.mark.parametrize("seeds", [2, 1])
def test_a_sweep_run_with_test_false_is_reported_without_its_accuracy(tmp_path, seeds):
    # pass 43, rows 40 and 41: before, a traceback in statistics.stdev (2 seeds) or in matplotlib's log
    # axis (1 seed), and no report, for jobs whose metrics.json has no test/acc
    sweep = tmp_path / "sweep"
    jobs = [write_job(sweep, n, [*FIXED, f"seed={n}", "test=false"], 0.5 + n / 10, 0.9)
            for n in range(seeds)]
    for job in jobs:
        metrics = json.loads((job / "metrics.json").read_text())
        del metrics["test/acc"]
        (job / "metrics.json").write_text(json.dumps(metrics))
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    which = "every finished job" if seeds > 1 else "the finished job"
    note = (f"{which} ran without its test (test=false), so the table and depth.png have no test accuracy "
            f"for {'them' if seeds > 1 else 'it'} (-); test {'each' if seeds > 1 else 'it'} with: "
            + "; ".join(f"python train.py resume={job} test=true" for job in jobs))  # pass 92, row 55b: every
    # job (before, "test one with", and the row stayed - once it was tested)
    assert f"python -m highwaylab.report: warning: {note}" in proc.stderr.splitlines()
    table = (sweep / "report" / "table.md").read_text()
    loss = "0.5500 ± 0.071" if seeds > 1 else "0.5000"
    assert f"| highway | 3 | {seeds} | {loss} | - |" in table.splitlines() and f"- {note}" in table
    assert (sweep / "report" / "depth.png").stat().st_size > 0


def test_the_loss_curves_come_from_a_csv_log_of_another_name(tmp_path):
    # pass 43, row 58: before, logger.csv.name=myexp (the log in <job>/myexp/version_0/) gave "no job
    # logged its training loss", and no curve
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9)
    (job / "csv").rename(job / "myexp")
    (job / "config_resolved.yaml").write_text(f"logger:\n  csv:\n    save_dir: {job}\n    name: myexp\n")
    assert collect_jobs(sweep)[0].curve == [(49, 2.25), (99, 1.5)]
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "no curve" not in proc.stderr, proc.stderr


def test_the_loss_curves_come_from_an_own_csv_logger_under_lightnings_default_name(tmp_path):
    # pass 70, row 48: the README's own logger (logger.mycsv, a CSVLogger without name: Lightning's
    # lightning_logs/); before, "no job logged its training loss ... to a CSV logger", and no curve
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9)
    (job / "csv").rename(job / "lightning_logs")
    (job / "config_resolved.yaml").write_text(
        f"logger:\n  mycsv:\n    _target_: lightning.pytorch.loggers.CSVLogger\n    save_dir: {job}\n")
    assert collect_jobs(sweep)[0].curve == [(49, 2.25), (99, 1.5)]


def test_the_loss_curve_of_a_job_whose_wandb_save_dir_was_elsewhere_is_read_there(tmp_path, monkeypatch):
    # pass 43, row 59: before, logger.wandb.save_dir=<a shared folder> gave "they logged to W&B, but their
    # offline run folder is gone", and no curve, though each job's metrics.json names its run
    import time

    import wandb

    monkeypatch.setenv("WANDB_MODE", "offline")
    shared = tmp_path / "wbsave"
    for run_id in ("other001", "shared01"):  # another job's run in the same folder is not read
        run = wandb.init(project="p", id=run_id, dir=str(shared), mode="offline")
        for step in range(0, 100, 50):
            loss = 2.0 - step / 100 + (run_id == "other001")
            run.log({"train/loss_step": loss, "trainer/global_step": step})
        run.finish()
    [file] = shared.glob("wandb/offline-run-*/run-shared01.wandb")
    deadline = time.monotonic() + 60  # wandb-core may still be writing it
    while time.monotonic() < deadline and file.stat().st_size < 300:
        time.sleep(0.5)
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9, csv_log=False)
    metrics = json.loads((job / "metrics.json").read_text())
    (job / "metrics.json").write_text(json.dumps(metrics | {"wandb_run_path": "highwaylab/shared01"}))
    (job / "config_resolved.yaml").write_text(f"logger:\n  wandb:\n    save_dir: {shared}\n")
    assert collect_jobs(sweep)[0].curve == [(0, 2.0), (50, 1.5)]
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0 and "no curve" not in proc.stderr, proc.stderr


def test_the_loss_curve_of_a_job_with_a_wandb_prefix_is_read_without_it(tmp_path, monkeypatch):
    # pass 70, row 19: +logger.wandb.prefix=mine (W&B then holds mine-train/loss_step); before, an empty
    # loss_curves.png, and no warning line on the console
    import time

    import wandb

    monkeypatch.setenv("WANDB_MODE", "offline")
    sweep = tmp_path / "sweep"
    job = write_job(sweep, 0, FIXED, 0.5, 0.9, csv_log=False)
    run = wandb.init(project="p", id="prefix01", dir=str(job), mode="offline")
    for step in range(0, 100, 50):
        run.log({"mine-train/loss_step": 2.0 - step / 100, "trainer/global_step": step})  # as Lightning
    run.finish()
    [file] = job.glob("wandb/offline-run-*/run-prefix01.wandb")
    deadline = time.monotonic() + 60  # wandb-core may still be writing it
    while time.monotonic() < deadline and file.stat().st_size < 300:
        time.sleep(0.5)
    (job / "config_resolved.yaml").write_text(f"logger:\n  wandb:\n    save_dir: {job}\n    prefix: mine\n")
    assert collect_jobs(sweep)[0].curve == [(0, 2.0), (50, 1.5)]


def test_a_job_whose_overrides_yaml_was_deleted_is_labelled_by_its_hydra_yaml(tmp_path):
    # pass 45, row 55: before, a job whose .hydra/overrides.yaml was deleted had every swept column read
    # "(default)" and split the sweep into two rows; hydra.yaml's hydra.overrides.task holds the same list
    from highwaylab.analysis.sweep_report import collect_jobs, swept_keys, swept_value

    sweep = tmp_path / "sweep"
    for num, seed in enumerate((0, 1)):
        write_job(sweep, num, ["logger=csv", "trainer.max_epochs=1", f"seed={seed}"], 2.0 + num, 0.5)
    (next(sweep.glob("0_*")) / ".hydra" / "overrides.yaml").unlink()
    jobs = collect_jobs(sweep)
    assert [job.overrides for job in jobs] == [{"logger": "csv", "trainer.max_epochs": "1", "seed": str(s)}
                                               for s in (0, 1)]
    assert swept_keys(jobs) == []  # the same logger and max_epochs: one row of two seeds
    assert [swept_value(job, "trainer.max_epochs") for job in jobs] == ["1", "1"]


def test_a_metrics_json_copied_from_another_job_is_not_counted_as_this_jobs_seed(tmp_path):
    # pass 45, row 56: before, job 0's metrics.json replaced by job 1's was averaged as a second seed (a
    # spread of 0) though its best_ckpt names job 1's folder
    from highwaylab.analysis.sweep_report import collect_jobs

    sweep = tmp_path / "sweep"
    jobs = [write_job(sweep, num, [f"seed={num}"], 2.0 + num, 0.25 * (num + 1)) for num in (0, 1)]
    for job in jobs:
        metrics = json.loads((job / "metrics.json").read_text())
        metrics["best_ckpt"] = str(tmp_path / "old" / job.name / "checkpoints" / "epoch_000.ckpt")  # a copy
        (job / "metrics.json").write_text(json.dumps(metrics))
    assert [job.status for job in collect_jobs(sweep)] == ["ok", "ok"]  # a copied sweep's own files
    shutil.copy(jobs[1] / "metrics.json", jobs[0] / "metrics.json")
    first, second = collect_jobs(sweep)
    best = tmp_path / "old" / jobs[1].name / "checkpoints" / "epoch_000.ckpt"
    assert (first.status, first.metrics, second.status) == ("incomplete", {}, "ok")
    assert first.error == (f"metrics.json is another job's: its best_ckpt is {best}, in job 1's folder "
                           f"(copied?). Fix: python train.py resume={jobs[0]} tests it again and writes its "
                           f"metrics.json")
    from highwaylab.utils.resume import _tested

    assert not _tested(jobs[0], 3)  # so the fix's resume tests it, not refuses it as finished
    assert _tested(jobs[1], 3)


def test_a_sweep_refused_before_its_first_job_is_named_as_that(tmp_path):
    # pass 57, row 95: before, "holds no job folder ...: give the folder of a multirun", of a multirun's
    # folder that Hydra made (multirun.yaml) before refusing the sweep
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    (sweep / "multirun.yaml").write_text("hydra:\n  overrides:\n    task:\n    - model=highway,residual\n")
    proc = report(sweep, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith(
        f"{sweep} is a multirun that started no job (it holds multirun.yaml, no job folder <n>_<name>/): "
        f"nothing to report. Run the sweep again (its command's overrides are in multirun.yaml, under "
        f"hydra.overrides.task), then report it")


def test_a_report_folder_of_another_sweep_is_not_replaced(tmp_path, monkeypatch):
    # pass 57, rows 81-82: before, --out <sweep A's report> replaced A's tables and figures with sweep B's
    # without a word, and deleted A's unsynced W&B report run as "the earlier report's W&B run"
    import wandb

    first, second = tmp_path / "sweep_a", tmp_path / "sweep_b"
    write_job(first, 0, FIXED, 0.5, 0.9)
    write_job(second, 0, FIXED, 0.4, 0.95)
    out = tmp_path / "reports"
    assert report(first, "--no-wandb", "--out", out, cwd=tmp_path).returncode == 0
    table = (out / "table.csv").read_text()
    proc = report(second, "--no-wandb", "--out", out, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith(
        f"--out {out} holds the report of another sweep ({first}): this report would replace its tables, "
        f"figures and W&B report run. Fix: give a folder of its own, e.g. --out {second}/report")
    assert (out / "table.csv").read_text() == table
    assert report(first, "--no-wandb", "--out", out, cwd=tmp_path).returncode == 0  # its own: replaced
    # a report written before .report_of: its W&B report run names the sweep
    import time

    (out / ".report_of").unlink()
    monkeypatch.setenv("WANDB_MODE", "offline")
    wandb.init(project="p", name="report-sweep_a", job_type="report", dir=str(out), mode="offline").finish()
    [file] = out.glob("wandb/offline-run-*/run-*.wandb")
    deadline = time.monotonic() + 60  # wandb-core may still be writing it
    while time.monotonic() < deadline and file.stat().st_size < 300:
        time.sleep(0.5)
    proc = report(second, "--no-wandb", "--out", out, cwd=tmp_path)
    assert proc.returncode == 2 and "holds the report of another sweep (report-sweep_a)" in proc.stderr


def test_a_mistyped_option_is_one_line_naming_the_option_meant(tmp_path):
    # pass 82, row 37: before, argparse's usage and "unrecognized arguments: --outdir ...", no suggestion
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    proc = report(sweep, "--no-wandb", "--outdir", tmp_path / "rep", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines() == [
        "python -m highwaylab.report: error: --outdir is not an option of the report (its options: --out, "
        "--project, --group, --no-wandb, --help). Fix: --out in its place"], proc.stderr
    assert report(sweep, "--no-wandb", "--out", tmp_path / "rep", cwd=tmp_path).returncode == 0  # the fix


def test_a_moved_sweeps_own_report_is_remade_in_place(tmp_path):
    # pass 80, row 46: before, "holds the report of another sweep (<its old folder>)", and the fix wrote a
    # new report in the current folder, the stale one left inside the sweep
    sweep = tmp_path / "sweep_a"
    write_job(sweep, 0, FIXED, 0.5, 0.9)
    assert report(sweep, "--no-wandb", cwd=tmp_path).returncode == 0
    moved = tmp_path / "sweep_b"
    sweep.rename(moved)
    proc = report(moved, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (moved / "report" / ".report_of").read_text().strip() == str(moved)
    assert not (tmp_path / "sweep_b_report").exists()
    copy = tmp_path / "sweep_c"  # a copy whose original is still there: still another sweep's report
    import shutil

    shutil.copytree(moved, copy)
    proc = report(copy, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 2 and f"holds the report of another sweep ({moved})" in proc.stderr


def test_a_report_of_jobs_without_a_wandb_group_says_where_its_run_goes(tmp_path):
    # breaking pass 62, row 49: before, the report run went into group sweep-<folder>, which holds none of
    # the jobs (they ran with logger.wandb.group=null), without a word
    sweep = tmp_path / "sweep"
    for num in (0, 1):
        job = write_job(sweep, num, [f"seed={num}", "logger.wandb.group=null"], 0.5, 0.6)
        (job / "config_resolved.yaml").write_text(
            "logger:\n  wandb:\n    project: highwaylab\n    group: null\n")
    done = report(sweep, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("python -m highwaylab.report: warning: the jobs ran without a W&B group "
            "(logger.wandb.group=null), so the report run goes into group sweep-sweep, which holds none of "
            "them; give --group to choose another") in done.stderr.splitlines()
    assert "without a W&B group" not in report(sweep, "--group", "mine", cwd=tmp_path).stderr


def test_a_wandb_project_variable_the_report_does_not_follow_is_named_with_the_flag_that_does(tmp_path):
    # pass 66, row 46: before, WANDB_PROJECT=myproj was dropped without a word (train.py names it)
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, ["seed=0"], 0.5, 0.6)
    done = report(sweep, cwd=tmp_path, WANDB_PROJECT="myproj")
    assert done.returncode == 0, done.stderr
    assert ("python -m highwaylab.report: warning: WANDB_PROJECT=myproj is set in the environment, but the "
            "report run goes into the sweep's project, highwaylab (the one its jobs recorded). To file it "
            "under myproj: --project myproj") in done.stderr.splitlines()
    fixed = report(sweep, "--project", "myproj", "--out", tmp_path / "fixed", cwd=tmp_path,
                   WANDB_PROJECT="myproj")
    assert fixed.returncode == 0 and "WANDB_PROJECT" not in fixed.stderr, fixed.stderr
    # pass 67, rows 16 (major) and 17: a job's run id left exported took over the report run (wandb sync
    # would have merged the report into that training run), and WANDB_RUN_GROUP was dropped in silence
    out = tmp_path / "ids"
    done = report(sweep, "--out", out, cwd=tmp_path, WANDB_RUN_ID="785xd4fo", WANDB_RUN_GROUP="mine")
    assert done.returncode == 0, done.stderr
    assert ("python -m highwaylab.report: warning: WANDB_RUN_ID=785xd4fo is set in the environment, but the "
            "report run takes an id of its own, so that it never joins that run") in done.stderr.splitlines()
    assert "WANDB_RUN_GROUP=mine is set in the environment, but the report run goes into the sweep's group" \
        in done.stderr
    runs = list((out / "wandb").glob("offline-run-*"))
    assert len(runs) == 1 and not runs[0].name.endswith("-785xd4fo"), runs


def test_jobs_in_several_wandb_projects_are_named_with_the_one_the_report_goes_into(tmp_path):
    # pass 70, row 54: logger.wandb.project=hw-${hydra:runtime.choices.model}; before, the report run went
    # into the first job's project without a word
    sweep = tmp_path / "sweep"
    for num, (model, project) in enumerate((("plain", "hw-plain"), ("highway", "hw-highway"),
                                            ("highway", "hw-highway"))):
        job = write_job(sweep, num, [f"model={model}", f"seed={num}"], 0.5, 0.6)
        (job / "config_resolved.yaml").write_text(f"logger:\n  wandb:\n    project: {project}\n")
    done = report(sweep, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert ("python -m highwaylab.report: warning: the jobs logged to 2 W&B projects (hw-highway, hw-plain), "
            "and the report run goes into one, hw-highway (most jobs'); give --project to choose"
            ) in done.stderr.splitlines(), done.stderr
    fixed = report(sweep, "--project", "hw-plain", "--out", tmp_path / "fixed", cwd=tmp_path)
    assert fixed.returncode == 0 and "W&B projects" not in fixed.stderr, fixed.stderr


def test_a_failed_job_of_a_word_for_a_depth_is_logged_to_the_wandb_report_run(tmp_path):
    # breaking pass 64, row 16 (major): -m depth=3,abc: job 1 refused; before, the report's W&B run failed
    # with a traceback (TypeError: the jobs table's depth column took 3, then 'abc')
    sweep = tmp_path / "sweep"
    write_job(sweep, 0, ["depth=3"], 0.5, 0.6)
    failed = write_job(sweep, 1, ["depth=3"], None, None, error="depth='abc' must be a positive integer")
    config = failed / ".hydra" / "config.yaml"
    config.write_text(config.read_text().replace("depth: 3", "depth: abc"))
    done = report(sweep, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr and "W&B report run: " in done.stdout


def test_one_runs_folder_given_to_the_report_is_named_as_one_run(tmp_path):
    # pass 71, row 12: before, "holds no job folder ... e.g. outputs/multiruns/<date>_<time>_<hex>"
    run = write_job(tmp_path / "sweep", 0, ["depth=3"], 0.1, 0.9)
    summary = (tmp_path / "sweep" / "summary.jsonl").read_text()
    (tmp_path / "sweep" / "summary.jsonl").unlink()  # a folder of runs, not a multirun's
    proc = report(run, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.splitlines()[-1] == (
        f"python -m highwaylab.report: error: {run} is the folder of one run (it holds .hydra/), not of a "
        f"multirun: the report compares a multirun's jobs. Fix: give the multirun's folder (python train.py "
        f"-m ... makes one under outputs/multiruns/); this run's results are in {run}/metrics.json")
    assert report(run.parent, "--no-wandb", cwd=tmp_path).returncode == 0  # the fix
    # pass 72, row 31: a job of a multirun; before, the same line, which did not name the multirun
    (tmp_path / "sweep" / "summary.jsonl").write_text(summary)
    proc = report(run, "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.splitlines()[-1] == (
        f"python -m highwaylab.report: error: {run} is the folder of one job of the multirun {run.parent}: "
        f"the report compares a multirun's jobs. Fix: python -m highwaylab.report {run.parent}")


def test_the_jobs_of_a_sweep_given_by_a_glob_are_named_with_the_sweeps_folder(tmp_path):
    # pass 68, row 4: `python -m highwaylab.report $S/*`; before, argparse's "unrecognized arguments"
    sweep = tmp_path / "sweep"
    jobs = [write_job(sweep, n, [f"depth={d}"], 0.1, 0.9) for n, d in enumerate((3, 5))]
    (sweep / "multirun.yaml").write_text("hydra: {}\n")
    proc = report(*sorted(sweep.iterdir()), "--no-wandb", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        f"python -m highwaylab.report: error: 4 paths inside the multirun {sweep} were given (a shell glob, "
        f"<sweep>/*?): the report takes the multirun's folder and reads its jobs itself. Fix: python -m "
        f"highwaylab.report {sweep}"], proc.stderr
    assert not (sweep / "report").exists()
    proc = report(jobs[0], "--bogus", cwd=tmp_path)  # anything else: the unknown option named (pass 82)
    assert proc.returncode == 2 and proc.stderr.splitlines()[-1] == (
        "python -m highwaylab.report: error: --bogus is not an option of the report (its options: --out, "
        "--project, --group, --no-wandb, --help). Fix: python -m highwaylab.report --help lists them")
