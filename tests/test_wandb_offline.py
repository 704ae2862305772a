"""``highwaylab.utils.wandb_offline``: the summary of an offline W&B run's history keys, and its
command line ``python -m highwaylab.utils.wandb_offline <run>``."""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from highwaylab.utils.wandb_offline import (
    NoRunError,
    RunReadError,
    SeveralRunsError,
    check_key_budget,
    check_rows_have_step,
    find_run_file,
    keys_by_prefix,
    summarize,
    summarize_records,
)

from .conftest import ROOT, subprocess_env

PROG = "python -m highwaylab.utils.wandb_offline"

STEP = "trainer/global_step"
EPOCHS, BATCHES = 2, 20
TINY_RUN = ["trainer=cpu", "depth=6", "width=16", f"trainer.max_epochs={EPOCHS}",
            f"trainer.limit_train_batches={BATCHES}", "trainer.limit_val_batches=4",
            "trainer.limit_test_batches=4", "~callbacks.rich_progress_bar", "seed=3"]
COUNT_LINE = re.compile(r"^(\d+) distinct history keys \((\d+) scalar, (\d+) media(?:, (\d+) other)?\)$",
                        re.MULTILINE)


def cli(*args, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "highwaylab.utils.wandb_offline", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, env=subprocess_env(), cwd=ROOT)


def assert_one_line_error(proc: subprocess.CompletedProcess, *words: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    # the tool's name first, as argparse's own errors (pass 42, row 44: before, a bare "error: ")
    assert len(lines) == 1 and lines[0].startswith(f"{PROG}: error: "), proc.stderr
    assert "Traceback" not in proc.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])


# ---------------------------------------------------------------------------------------------
# the summary of records (no run needed)
# ---------------------------------------------------------------------------------------------

def _row(step_num, item):
    return {"type": "history", "history": {"item": {"_step": step_num, "_runtime": 1.0,
                                                    "_timestamp": 2.0, **item}}}


RECORDS = [
    {"type": "header"},
    {"type": "run", "run": {"run_id": "abc123", "display_name": "nm", "run_group": "g",
                            "tags": ["model:highway"], "project": "p", "job_type": "train"}},
    _row(0, {"lr": 0.1, STEP: 0}),
    _row(1, {"train/loss": 2.0, "train/acc": "NaN", "epoch": 0, STEP: 9.0}),
    _row(2, {"imgs._type": "images/separated", "imgs.count": 3, "imgs.filenames": ["a", "b", "c"],
             "img._type": "image-file", "img.path": "x.png", "nested.a": 1, STEP: 10}),
    _row(3, {"tab._type": "table-file", "tab.nrows": 2, "hist._type": "histogram", "hist.bins": [1, 2],
             "note": "text", STEP: 19}),
    _row(4, {"train/loss": 1.0, "imgs._type": "images/separated", "imgs.count": 2}),  # no step
    {"type": "exit", "exit": {}},
]


def test_summary_gathers_media_fields_and_counts_rows_and_steps():
    s = summarize_records(RECORDS, "x.wandb")
    assert (s.run_id, s.name, s.group, s.tags, s.project, s.job_type) == \
        ("abc123", "nm", "g", ["model:highway"], "p", "train")
    assert s.finished and s.exit_code == 0 and s.rows == 5
    assert set(s.keys) == {"lr", "train/loss", "train/acc", "epoch", "imgs", "img", "nested.a", "tab",
                           "hist", "note", STEP}  # no _step, _runtime, _timestamp; no imgs.count
    kinds = {k: info.kind for k, info in s.keys.items()}
    assert kinds == {"lr": "scalar", "train/loss": "scalar", "train/acc": "scalar", "epoch": "scalar",
                     "imgs": "image", "img": "image", "nested.a": "scalar", "tab": "table",
                     "hist": "media", "note": "other", STEP: "scalar"}
    assert s.keys["hist"].media_type == "histogram" and s.keys["imgs"].media_type == "images/separated"
    loss = s.keys["train/loss"]
    assert (loss.rows, loss.rows_without_step, loss.step_min, loss.step_max) == (2, 1, 9, 9)
    assert (loss.wandb_step_min, loss.wandb_step_max) == (1, 4)
    assert isinstance(loss.step_min, int)  # 9.0 -> 9
    assert s.keys["imgs"].images == 5 and s.keys["img"].images == 1 and s.keys["tab"].images == 0
    assert s.images == 6
    assert (s.keys[STEP].rows, s.keys[STEP].step_min, s.keys[STEP].step_max) == (4, 0, 19)
    assert s.count_line == "11 distinct history keys (6 scalar, 4 media, 1 other)"
    assert keys_by_prefix(s)["train/"] == 2
    json.dumps(s.to_dict())


def test_check_helpers_assert_the_key_budget_and_the_step_on_every_row():
    s = summarize_records(RECORDS, "x.wandb")
    assert check_key_budget(s, max_keys=11) is s
    with pytest.raises(AssertionError, match=r"11 distinct history keys .* more than the budget of 10; "
                                             r"by prefix: train/: 2"):
        check_key_budget(s, max_keys=10)
    with pytest.raises(AssertionError, match=r"rows without trainer/global_step: imgs \(1 of 2\), "
                                             r"train/loss \(1 of 2\)"):
        check_rows_have_step(s)
    assert check_rows_have_step(summarize_records(RECORDS[:-2])).rows == 4


def test_a_segment_closed_by_a_signal_is_not_shown_as_finished():
    # new-user pass 3: an interrupted segment (closed with the signal's code) read "finished, exit code 130"
    from highwaylab.utils.wandb_offline import format_summary

    assert "state    finished, exit code 0\n" in format_summary(summarize_records(RECORDS, "x.wandb"))
    closed = [*RECORDS[:-1], {"type": "exit", "exit": {"exit_code": 130}}]
    assert "state    closed with exit code 130: not finished (interrupted by a signal: resume it)\n" in \
        format_summary(summarize_records(closed, "x.wandb"))
    # pass 40, row 51: before, "(failed, or interrupted: resume it)" of a run that failed at step 1, with
    # no checkpoint to resume from
    failed = [*RECORDS[:-1], {"type": "exit", "exit": {"exit_code": 1}}]
    assert ("state    closed with exit code 1: the run failed (the last highwaylab: line of its train.log "
            "says why and how to go on)\n") in format_summary(summarize_records(failed, "x.wandb"))


def test_an_unfinished_run_has_no_exit_code():
    s = summarize_records(RECORDS[:-1])
    assert not s.finished and s.exit_code is None


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------

def test_help_does_not_import_torch_or_wandb():
    code = ("import runpy, sys\nsys.argv = ['wandb_offline', '--help']\n"
            "try:\n    runpy.run_module('highwaylab.utils.wandb_offline', run_name='__main__')\n"
            "except SystemExit as e:\n    assert e.code == 0\n"
            "print('heavy:', sorted({'torch', 'lightning', 'wandb'} & set(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=subprocess_env())
    assert proc.returncode == 0, proc.stderr
    assert "--json" in proc.stdout and "heavy: []" in proc.stdout


@pytest.mark.slow
def test_bad_paths_exit_2_with_one_line_naming_the_path(tmp_path):
    assert_one_line_error(cli(tmp_path / "nowhere"), str(tmp_path / "nowhere"), "no such file")
    (tmp_path / "empty_dir").mkdir()
    assert_one_line_error(cli(tmp_path / "empty_dir"), "empty_dir", "no W&B run")
    (tmp_path / "run-empty.wandb").write_bytes(b"")
    assert_one_line_error(cli(tmp_path / "run-empty.wandb"), "run-empty.wandb", "no W&B records")
    (tmp_path / "run-junk.wandb").write_bytes(bytes(range(256)) * 20)
    assert_one_line_error(cli(tmp_path / "run-junk.wandb"), "run-junk.wandb", "not a readable W&B run")
    with pytest.raises(NoRunError):
        summarize(tmp_path / "empty_dir")
    with pytest.raises(FileNotFoundError):  # as before: find_run_file's errors are FileNotFoundError
        find_run_file(tmp_path / "nowhere")
    with pytest.raises(RunReadError, match="no W&B records"):
        summarize(tmp_path / "run-empty.wandb")
    # pass 37, row 31: before, a run's metrics.json was "not a readable W&B run", without the folder to give
    (tmp_path / "wandb").mkdir()
    (tmp_path / "metrics.json").write_text("{}")
    with pytest.raises(RunReadError) as err:
        summarize(tmp_path / "metrics.json")
    assert str(err.value).endswith(f". Fix: give the folder that holds the run's run-*.wandb file (e.g. "
                                   f"{tmp_path}, which holds its wandb/)")
    # pass 36, row 47: before, a run's logs/ folder was "no W&B run here", without the folder to give
    run = tmp_path / "wandb" / "offline-run-20261202_120000-abc123"
    (run / "logs").mkdir(parents=True, exist_ok=True)
    (run / "run-abc123.wandb").write_bytes(b"")
    with pytest.raises(NoRunError) as err:
        summarize(run / "logs")
    assert str(err.value) == (f"{run}/logs: no W&B run here (no run-*.wandb file in this folder or below); "
                              f"it is inside the offline run {run}. Fix: give that folder")


@pytest.mark.parametrize(("loggers", "said"), [
    ({"csv": {"save_dir": "x"}},
     ": the run logged with logger=csv, not to W&B; its history is in its CSV log, "
     "csv/version_*/metrics.csv"),
    (None, ": the run logged to no logger (logger=none)"),
    ({"wandb": {"offline": True}},
     ": the run logged to W&B, but its offline run folder (wandb/offline-run-*) is gone: removed by wandb "
     "sync --clean after an upload (its history is then in W&B), or moved")])
def test_a_run_folder_without_a_wandb_run_says_what_the_run_logged_with(tmp_path, loggers, said):
    # pass 42, row 44: before, "no W&B run here" alone, for a logger=csv run (its history in its CSV log)
    (tmp_path / "config_resolved.yaml").write_text(json.dumps({"depth": 3, "logger": loggers}))
    with pytest.raises(NoRunError) as err:
        summarize(tmp_path)
    no_run = "no W&B run here (no run-*.wandb file in this folder or below)"
    assert str(err.value) == f"{tmp_path}: {no_run}{said}"


# ---------------------------------------------------------------------------------------------
# a real run of train.py
# ---------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def run_dir(tmp_path_factory, data_dir):
    """The folder of a tiny default run (2 epochs x 20 batches, CPU) with its offline W&B run."""
    tmp = tmp_path_factory.mktemp("wandb_offline")
    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), *TINY_RUN, f"paths.log_dir={tmp}",
                           f"hydra.run.dir={tmp}/run"], capture_output=True, text=True, timeout=600,
                          env=subprocess_env(HYDRA_FULL_ERROR="0"), cwd=tmp)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp / "run"


@pytest.mark.slow
def test_summary_of_a_real_run(run_dir):
    metrics = json.loads((run_dir / "metrics.json").read_text())
    s = summarize(run_dir)
    assert s.run_id == metrics["wandb_run_path"].split("/")[-1] and s.project == "highwaylab"
    assert s.name and {"model:highway", "depth:6", "seed:3"} <= set(s.tags)
    assert s.finished and s.exit_code == 0 and not s.notes
    for key in ("train/loss", "val/acc", STEP):
        assert s.keys[key].kind == "scalar", key
    assert s.keys["val/acc"].rows == EPOCHS and s.keys["train/loss"].rows == EPOCHS
    assert s.keys[STEP].rows == s.rows  # Lightning logs the step with every row
    assert s.keys[STEP].step_max == metrics["global_step"] == EPOCHS * BATCHES
    for key, info in s.keys.items():  # every row: a step of this run, and W&B's row counter
        assert 0 <= info.step_min <= info.step_max <= EPOCHS * BATCHES, (key, info)
        assert 0 <= info.wandb_step_min <= info.wandb_step_max < s.rows, (key, info)
        assert info.rows <= s.rows
    assert s.keys["test/acc"].step_min == EPOCHS * BATCHES  # tested after the last step
    check_rows_have_step(s)
    assert len(s.keys) == len(s.scalar_keys) + len(s.media_keys) + s.to_dict()["counts"]["other"]
    assert s.images == sum(s.keys[k].images for k in s.keys_of_kind("image"))
    # the same run, from each of the paths that lead to it
    file = find_run_file(run_dir)
    for path in (run_dir / "wandb", file.parent, file):
        assert summarize(path).keys == s.keys


@pytest.mark.slow
def test_cli_prints_the_run_the_keys_and_the_count_line(run_dir):
    s = summarize(run_dir)
    proc = cli(run_dir)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert re.search(rf"^run +{s.run_id} +{re.escape(s.name)}$", out, re.MULTILINE), out
    assert re.search(r"^tags +.*model:highway", out, re.MULTILINE), out
    assert re.search(rf"^key +kind +rows +no step +{STEP} +_step +images$", out, re.MULTILINE), out
    train_loss = s.keys["train/loss"]
    assert re.search(rf"^train/loss +scalar +{EPOCHS} +0 +{train_loss.step_min}\.\.{train_loss.step_max} ",
                     out, re.MULTILINE), out
    assert re.search(rf"^val/acc +scalar +{EPOCHS} +0 ", out, re.MULTILINE), out
    assert re.search(rf"^{STEP} +scalar +{s.rows} +0 +0\.\.{EPOCHS * BATCHES} ", out, re.MULTILINE), out
    for key in s.keys:
        assert re.search(rf"^{re.escape(key)} ", out, re.MULTILINE), key
    counts = COUNT_LINE.findall(out)
    assert len(counts) == 1 and s.count_line in out
    n, m, k, _ = counts[0]
    assert (int(n), int(m), int(k)) == (len(s.keys), len(s.scalar_keys), len(s.media_keys))


@pytest.mark.slow
def test_cli_json(run_dir):
    proc = cli(run_dir, "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    s = summarize(run_dir)
    assert data == json.loads(json.dumps(s.to_dict()))
    assert data["counts"]["keys"] == len(data["keys"]) == len(s.keys)
    assert data["keys"]["val/acc"]["kind"] == "scalar" and data["keys"]["val/acc"]["rows"] == EPOCHS
    assert data["keys"][STEP]["step_max"] == EPOCHS * BATCHES


@pytest.mark.slow
def test_cli_refuses_a_step_key_that_no_row_has(run_dir):
    # before: exit 0, a column titled "nope" and every key shown as without a step
    proc = cli(run_dir, "--step-key", "nope")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"{PROG}: error: --step-key nope: no row of the run has it; its step-like "
                                   f"keys: epoch, {STEP} (default {STEP})")
    assert cli(run_dir, "--step-key", "epoch").returncode == 0
    empty = cli(run_dir, "--step-key", "")  # pass 60, row 28: before, "--step-key : no row of the run has it"
    assert empty.returncode == 2 and empty.stderr.strip().splitlines()[-1] == (
        f"{PROG}: error: argument --step-key: '' is empty: give a step key, e.g. --step-key {STEP} (the "
        f"default)")


@pytest.mark.slow
def test_cli_takes_wandbs_own_step_as_the_step_key(run_dir):
    # pass 23, row 32: before, "--step-key _step: no row of the run has it", though every row has it
    proc = cli(run_dir, "--step-key", "_step")
    assert proc.returncode == 0, proc.stderr
    s = summarize(run_dir, step_key="_step")
    loss = s.keys["train/loss"]
    assert (loss.step_min, loss.step_max) == (loss.wandb_step_min, loss.wandb_step_max)
    assert loss.rows_without_step == 0
    assert re.search(rf"^train/loss +scalar +{EPOCHS} +0 +{loss.step_min}\.\.{loss.step_max} ", proc.stdout,
                     re.MULTILINE), proc.stdout


@pytest.mark.slow
def test_cli_refuses_corrupt_files_and_lists_several_runs(run_dir, tmp_path):
    file = find_run_file(run_dir)
    data = bytearray(file.read_bytes())
    data[len(data) // 4: len(data) // 4 + 16] = b"\xff" * 16
    (tmp_path / "run-corrupt.wandb").write_bytes(bytes(data))
    assert_one_line_error(cli(tmp_path / "run-corrupt.wandb"), "run-corrupt.wandb", "corrupt")
    with pytest.raises(RunReadError, match="corrupt"):
        summarize(tmp_path / "run-corrupt.wandb")
    # a file that ends early (a killed run): summarized as far as it goes, with a warning
    (tmp_path / "run-cut.wandb").write_bytes(file.read_bytes()[: len(data) // 2])
    proc = cli(tmp_path / "run-cut.wandb")
    assert proc.returncode == 0 and "warning:" in proc.stderr and "no exit record" in proc.stdout
    assert not summarize(tmp_path / "run-cut.wandb").finished
    # pass 39, row 49: before, a file cut before its first row read "history  0 rows", as if the run had
    # logged nothing; the run record comes first, and the first row after the first _timestamp (a summary)
    early = file.read_bytes()[: file.read_bytes().index(b"_timestamp")]
    (tmp_path / "run-early.wandb").write_bytes(early)
    proc = cli(tmp_path / "run-early.wandb")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"^run      [a-z0-9]{8}  mnist-highway-d6", proc.stdout, re.MULTILINE), proc.stdout
    assert ("history  0 rows (the file ends before the run's first logged row: cut short, or killed at its "
            "start?)") in proc.stdout.splitlines()
    # a resumed run: a second offline segment of the same id in the same wandb/ folder is read
    # after the first, as one run
    resumed = tmp_path / "resumed" / "wandb"
    shutil.copytree(file.parent, resumed / file.parent.name, symlinks=True)
    shutil.copytree(file.parent, resumed / file.parent.name.replace("offline-run-", "offline-run-9"),
                    symlinks=True)
    one, both = summarize(run_dir), summarize(tmp_path / "resumed")
    assert both.keys[STEP].rows == 2 * one.keys[STEP].rows
    assert cli(tmp_path / "resumed").returncode == 0
    # pass 40, row 74: a folder with another run beside a run in 2 segments was "3 W&B runs"
    other = resumed / "offline-run-20991231_000000-zzzzzzzz"
    other.mkdir()
    shutil.copyfile(file, other / "run-zzzzzzzz.wandb")
    proc = cli(tmp_path / "resumed")
    run_id = file.name.removeprefix("run-").removesuffix(".wandb")
    assert proc.returncode == 2 and (
        f"{tmp_path}/resumed: 2 W&B runs in this folder ({run_id} in 2 segments, zzzzzzzz), pass one of "
        f"them") in proc.stderr, proc.stderr
    # a folder with two runs: their files listed, exit 2
    for job in ("0", "1"):
        shutil.copytree(run_dir / "wandb", tmp_path / "sweep" / job / "wandb", symlinks=True)
    proc = cli(tmp_path / "sweep")
    assert_one_line_error(proc, "sweep", "2 W&B runs")
    assert len(proc.stdout.splitlines()) == 2 and all(line.endswith(".wandb") for line in
                                                      proc.stdout.splitlines())
    with pytest.raises(SeveralRunsError) as err:
        summarize(tmp_path / "sweep")
    assert len(err.value.runs) == 2
    # pass 73, row 89 (major): a sweep's folder; before, "pass one of them", and --run <id> was refused with
    # the same line: each run's folder is named, and --run picks the one folder that holds the id
    other = tmp_path / "sweep" / "1" / "wandb" / file.parent.name
    other.rename(other.parent / "offline-run-20991231_000000-yyyyyyyy")
    (other.parent / "offline-run-20991231_000000-yyyyyyyy" / file.name).rename(
        other.parent / "offline-run-20991231_000000-yyyyyyyy" / "run-yyyyyyyy.wandb")
    proc = cli(tmp_path / "sweep")
    assert proc.returncode == 2 and (
        f"error: {tmp_path}/sweep: 2 W&B runs under this folder, each in its own run's folder: "
        f"{tmp_path}/sweep/0 ({run_id}), {tmp_path}/sweep/1 (yyyyyyyy). Fix: give one of those folders, or "
        f"its id with --run (e.g. --run {run_id})") in proc.stderr, proc.stderr
    picked = cli(tmp_path / "sweep", "--run", "yyyyyyyy")
    assert picked.returncode == 0 and f"{tmp_path}/sweep/1/wandb" in picked.stdout, picked.stderr


@pytest.mark.slow
def test_a_resumed_runs_segment_without_records_is_skipped_with_a_note(run_dir, tmp_path):
    # before: after SIGKILL then resume=, the first segment held only the 7-byte file header, and the
    # reader refused the whole run: "no W&B records in it (an empty file, or not a .wandb log)", exit 2
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir / "wandb", copy / "wandb")
    segment = next((copy / "wandb").glob("offline-run-*"))
    whole = summarize(copy)
    killed = segment.with_name("offline-run-20000101_000000-" + segment.name.rsplit("-", 1)[1])
    killed.mkdir()
    data = next(segment.glob("run-*.wandb"))
    (killed / data.name).write_bytes(data.read_bytes()[:7])  # the header alone
    summary = summarize(copy)
    assert summary.rows == whole.rows and summary.keys == whole.keys
    assert any("no W&B records in this segment" in note and str(killed) in note for note in summary.notes)


@pytest.mark.slow
def test_one_segment_given_alone_says_which_it_is_and_where_the_others_are(run_dir, tmp_path):
    # pass 53, row 54: before, wandb/latest-run of a resumed run read its last segment alone, silently
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir / "wandb", copy / "wandb", symlinks=True)
    segment = next((copy / "wandb").glob("offline-run-*"))
    first = segment.with_name("offline-run-20000101_000000-" + segment.name.rsplit("-", 1)[1])
    shutil.copytree(segment, first)  # an earlier segment of the same run
    alone = summarize(segment)
    assert alone.one_of == (f"segment 2 of the run's 2 offline segments, read alone; give "
                            f"{(copy / 'wandb').resolve()} (or the run's folder) to read them all as one run")
    assert summarize(first).one_of.startswith("segment 1 of the run's 2 offline segments, read alone")
    assert summarize(copy).one_of == "" and summarize(copy).segments == 2  # the whole run: no note


@pytest.mark.slow
def test_a_resumed_runs_damaged_segment_is_named_in_its_warning(run_dir, tmp_path):
    # pass 29, row 52: before, "warning: <the last segment>: reached the end of an incomplete .wandb file",
    # naming the healthy last segment, not the damaged first one, and the note line named no file
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(run_dir / "wandb", copy / "wandb", symlinks=True)  # latest-run stays a link
    segment = next((copy / "wandb").glob("offline-run-*"))
    first = segment.with_name("offline-run-20000101_000000-" + segment.name.rsplit("-", 1)[1])
    first.mkdir()
    data = next(segment.glob("run-*.wandb")).read_bytes()
    (damaged := first / next(segment.glob("run-*.wandb")).name).write_bytes(data[:len(data) // 2])
    proc = cli(copy)
    assert proc.returncode == 0, proc.stderr
    prefix = "python -m highwaylab.utils.wandb_offline: warning: "
    warnings = [line for line in proc.stderr.splitlines() if line.startswith(prefix)]
    assert len(warnings) == 1 and warnings[0].startswith(f"{prefix}{damaged}: "), proc.stderr
    assert "incomplete" in warnings[0]
    assert any(line.startswith(f"note     {damaged}: ") for line in proc.stdout.splitlines()), proc.stdout
    # new-user pass 32: before, "file     <the last segment>", as if it were the only one read
    last = next(segment.glob("run-*.wandb"))
    assert f"file     {last}  (the last of the run's 2 offline segments, all read as one run)" \
        in proc.stdout.splitlines(), proc.stdout


def test_a_run_in_several_offline_segments_is_told_how_to_sync_them_all(tmp_path):
    # new-user pass 32: after a resume, W&B's closing line names the latest segment alone, whose sync
    # would upload the resumed part of the run only
    from highwaylab.utils.task import sync_line

    run = tmp_path / "my runs" / "r"  # a space: the folder is quoted for the shell, the glob left open
    first, latest = (run / "wandb" / f"offline-run-2026120{d}_101010-ab12cd34" for d in (1, 2))
    (run / "wandb" / "offline-run-20261203_101010-zz99zz99").mkdir(parents=True)  # another run's
    first.mkdir()
    (latest / "files").mkdir(parents=True)
    (run / "metrics.json").write_text(json.dumps({"wandb_run_path": "highwaylab/ab12cd34",
                                                  "wandb_dir": str(latest / "files")}))
    assert sync_line(run) == (
        f"W&B run ab12cd34 is in 2 offline segments (one per start of the run); upload them together, as "
        f"one run: wandb sync '{run / 'wandb'}'/offline-run-*-ab12cd34")
    (run / "metrics.json").write_text(json.dumps({"wandb_run_path": "highwaylab/ab12cd34",  # as recorded
                                                  "wandb_dir": str(latest)}))  # since new-user pass 48, 3
    assert sync_line(run).endswith(f"wandb sync '{run / 'wandb'}'/offline-run-*-ab12cd34")
    shutil.rmtree(first)
    assert sync_line(run) is None  # one segment: W&B's own line is right


def test_a_wandb_run_a_signal_closed_whose_run_finished_without_it_says_so(tmp_path):
    # pass 46, row 37: before, "closed with exit code 130: not finished (interrupted by a signal: resume it)"
    # of a run resumed with logger=none and finished; its resume was then refused as finished
    from highwaylab.utils.wandb_offline import RunSummary, format_summary

    run = tmp_path / "run"
    segment = run / "wandb" / "offline-run-20261203_100000-u2s6jdy1"
    segment.mkdir(parents=True)
    summary = RunSummary(path=segment / "run-u2s6jdy1.wandb", run_id="u2s6jdy1", exit_code=130)

    def state() -> str:
        return next(line for line in format_summary(summary).splitlines() if line.startswith("state"))

    assert state() == "state    closed with exit code 130: not finished (interrupted by a signal: resume it)"
    (run / "metrics.json").write_text(json.dumps({"global_step": 300, "wandb_run_path": None}))
    assert state() == (f"state    closed with exit code 130 (interrupted by a signal); the run went on "
                       f"without this W&B run and finished: its metrics.json (step 300) is in {run}")
    # a result this W&B run logged (interrupted in a later extension): resume it, as before
    (run / "metrics.json").write_text(json.dumps({"global_step": 300, "wandb_run_path": "me/p/u2s6jdy1"}))
    assert state().endswith("(interrupted by a signal: resume it)")


def test_a_wandb_log_that_is_not_a_regular_file_is_named(tmp_path):
    # pass 55, row 59: a FIFO in the .wandb file's place; before, "its offline run folder ... is gone:
    # removed by wandb sync --clean", the folder and its file being there
    import os

    segment = tmp_path / "run" / "wandb" / "offline-run-20261206_074116-um694g8u"
    segment.mkdir(parents=True)
    os.mkfifo(segment / "run-um694g8u.wandb")
    with pytest.raises(NoRunError) as refusal:
        summarize(tmp_path / "run")
    assert str(refusal.value) == (
        f"{segment}/run-um694g8u.wandb: the run's W&B log is a FIFO, not a regular file, so it cannot be "
        f"read. Fix: copy the run's .wandb file back there (from a backup, or the run's copy)")


def test_a_run_whose_wandb_save_dir_was_elsewhere_is_read_where_metrics_json_says(tmp_path):
    # pass 56, row 67: before, a run with logger.wandb.save_dir=<another folder> was said to have lost
    # its offline run folder ("removed by wandb sync --clean ... or moved"), though metrics.json names it
    from highwaylab.utils.wandb_offline import find_run_files

    segment = tmp_path / "elsewhere" / "wandb" / "offline-run-20261206_094100-k3y5abcd"
    (segment / "files").mkdir(parents=True)
    (segment / "run-k3y5abcd.wandb").write_bytes(b"x")
    run = tmp_path / "run"
    run.mkdir()
    (run / "config_resolved.yaml").write_text(json.dumps({"logger": {"wandb": {"save_dir": "x"}}}))
    (run / "metrics.json").write_text(json.dumps({"wandb_dir": str(segment / "files")}))
    assert find_run_files(run) == [segment / "run-k3y5abcd.wandb"]
    (run / "metrics.json").write_text(json.dumps({"wandb_dir": str(segment)}))  # as recorded now
    assert find_run_files(run) == [segment / "run-k3y5abcd.wandb"]
    shutil.rmtree(tmp_path / "elsewhere")
    with pytest.raises(NoRunError) as gone:
        find_run_files(run)
    assert str(gone.value) == (
        f"{run}: no W&B run here (no run-*.wandb file in this folder or below): the run logged to W&B, but "
        f"its offline run folder {segment}, as metrics.json records it, is gone: removed by wandb sync "
        f"--clean after an upload (its history is then in W&B), or moved")


def test_wandbs_own_debug_log_given_is_pointed_at_the_run_folder(tmp_path):
    # pass 57, rows 39-40: before, "not a readable W&B run: Not a .wandb file: .../debug.log" with no fix,
    # where a run's train.log got one
    from highwaylab.utils.wandb_offline import RunReadError

    segment = tmp_path / "run" / "wandb" / "offline-run-20261206_093709-6sywyrak"
    (segment / "logs").mkdir(parents=True)
    (segment / "run-6sywyrak.wandb").write_bytes(b"")
    (segment / "logs" / "debug.log").write_text("2026-12-06 09:37:09,000 INFO    MainThread:1 wandb\n")
    (tmp_path / "run" / "notes.txt").write_text("a note\n")
    for given, folder in ((segment / "logs" / "debug.log", segment),
                          (tmp_path / "run" / "notes.txt", tmp_path / "run")):
        with pytest.raises(RunReadError) as err:
            summarize(given)
        holds = ", which holds its wandb/" if folder == tmp_path / "run" else ""
        assert str(err.value).startswith(f"{given}: not a readable W&B run: "), str(err.value)
        assert str(err.value).endswith(
            f". Fix: give the folder that holds the run's run-*.wandb file (e.g. {folder}{holds})")


def test_a_run_still_in_its_first_steps_is_named_as_training_not_as_a_damaged_file(tmp_path):
    # breaking pass 60, row 44: before, "no W&B records in it (an empty file, or not a .wandb log)" of a run
    # whose W&B had not filled its first 32 KiB block yet
    from highwaylab.utils.run_lock import holding

    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    segment = run / "wandb" / "offline-run-20261206_130000-abcd1234"
    segment.mkdir(parents=True)
    (segment / "run-abcd1234.wandb").write_bytes(b"")
    with holding(run):  # as train.py holds it while it trains
        proc = cli(run)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        f"{PROG}: error: {segment}/run-abcd1234.wandb: no W&B records in it yet: its run, {run}, is still "
        f"training (process {os.getpid()}), and W&B writes the offline file in blocks of 32 KiB, none of "
        f"which is full yet. Read it again after more steps, or when the run has ended")
    ended = cli(run)  # no process trains it: the file is empty, as before
    assert ended.stderr.strip().endswith("no W&B records in it (an empty file, or not a .wandb log)")


@pytest.mark.slow
def test_a_copied_run_resumed_beside_the_originals_segment_reads_its_own_run(run_dir, tmp_path):
    # breaking pass 61, row 39 (major): cp -a of a run, then resume=: the copy's wandb/ holds the original's
    # segment and the copy's own new W&B run; before, "2 W&B runs in this folder ..., pass one of them",
    # with no way to pass one, and a segment's advice named that refused folder
    file = next((run_dir / "wandb").glob("offline-run-*/run-*.wandb"))
    own = file.name.removeprefix("run-").removesuffix(".wandb")
    copy = tmp_path / "copy"
    shutil.copytree(file.parent, copy / "wandb" / file.parent.name)
    other = copy / "wandb" / "offline-run-20000101_000000-orig0001"  # the original's, copied along
    other.mkdir()
    shutil.copyfile(file, other / "run-orig0001.wandb")
    (copy / "metrics.json").write_text(json.dumps({"wandb_run_path": f"me/highwaylab/{own}"}))
    proc = cli(copy)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == (
        f"{PROG}: warning: {copy} also holds W&B run orig0001, not this run's own ({own}, named by its "
        f"metrics.json or latest segment): copied with the folder? Read it with --run orig0001")
    assert proc.stdout.splitlines()[0].split()[:2] == ["run", own]
    assert cli(copy, "--run", "orig0001").returncode == 0
    refused = cli(copy, "--run", "nope")
    assert refused.returncode == 2 and refused.stderr.strip() == (
        f"{PROG}: error: {copy}: no W&B run nope here; its runs: orig0001, {own}. Fix: --run orig0001")
    empty = cli(copy, "--run=")  # pass 62, row 7: before, "no W&B run  here" (the empty id, unnamed)
    assert empty.returncode == 2 and empty.stderr.strip().splitlines()[-1] == (
        f"{PROG}: error: argument --run: '' is empty: give a W&B run id, e.g. --run 1g05owd3 (the ids are in "
        f"the folder's wandb/offline-run-<time>-<id> names)")
    (copy / "metrics.json").unlink()  # no record: both named, with the option that picks one
    proc = cli(copy)
    assert proc.returncode == 2 and (
        f"{copy}: 2 W&B runs in this folder (orig0001, {own}), pass one of them with --run <id>, e.g. --run "
        f"orig0001") in proc.stderr


def test_a_copied_run_without_its_wandb_folder_is_not_read_as_the_originals(tmp_path):
    # breaking pass 63, row 46: cp -a of a run, then rm -r <copy>/wandb: before, exit 0 with the original's
    # W&B run (the copied metrics.json's wandb_dir), as if it were the copy's
    original, copy = tmp_path / "base", tmp_path / "copy"
    segment = original / "wandb" / "offline-run-20261206_120000-abcd1234"
    segment.mkdir(parents=True)
    (segment / "run-abcd1234.wandb").write_bytes(b"")
    for folder in (original, copy):
        (folder / ".hydra").mkdir(parents=True, exist_ok=True)
        (folder / "metrics.json").write_text(json.dumps({"wandb_dir": str(segment / "files")}))
    proc = cli(copy)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        f"{PROG}: error: {copy}: no W&B run here (no run-*.wandb file in this folder or below); its "
        f"metrics.json names {segment}, in another run's folder, {original} (copied from there?). Fix: read "
        f"that run's: python -m highwaylab.utils.wandb_offline {original}")
