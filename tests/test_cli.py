"""``python train.py ...`` as a user runs it: an offline W&B run end to end, and bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from highwaylab.utils.wandb_offline import check_key_budget, check_rows_have_step, read_history, read_records

from .conftest import ROOT, subprocess_env

SMALL = ["trainer=cpu", "depth=3", "width=8", "trainer.max_epochs=2",
         "trainer.limit_train_batches=3", "trainer.limit_val_batches=2",
         "trainer.limit_test_batches=2", "~callbacks.rich_progress_bar"]


def run_train(args: list[str], tmp_path, timeout: int = 300) -> subprocess.CompletedProcess:
    env = subprocess_env(HYDRA_FULL_ERROR="0")
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args,
                           f"paths.log_dir={tmp_path}", f"hydra.run.dir={tmp_path}/run"],
                          capture_output=True, text=True, timeout=timeout, env=env, cwd=tmp_path)


@pytest.mark.slow
def test_train_py_writes_metrics_checkpoint_and_offline_wandb_run(tmp_path, data_dir):
    proc = run_train(SMALL + ["seed=7"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    run_dir = tmp_path / "run"
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["global_step"] == 6 and metrics["depth"] == 3
    assert (run_dir / "checkpoints" / "last.ckpt").is_file()
    # the offline run, read back with wandb's own reader
    history = read_history(run_dir / "wandb")
    val_acc = [row["val/acc"] for row in history if "val/acc" in row]
    assert len(val_acc) == 2  # one per epoch
    assert val_acc[-1] == pytest.approx(metrics["val/acc"])
    assert any(row.get("test/acc") == pytest.approx(metrics["test/acc"]) for row in history)
    run = next(r["run"] for r in read_records(run_dir / "wandb") if r.get("type") == "run")
    assert run["display_name"] == "mnist-highway-d3-relu-sgd-s7" and run["project"] == "highwaylab"
    # new-user pass 48, finding 3: wandb_dir named the run's files/, where wandb sync finds "No runs to sync"
    segment = Path(metrics["wandb_dir"]).name
    assert segment.startswith("offline-run-") and segment.endswith(f"-{run['run_id']}")
    assert Path(metrics["wandb_dir"]).parent == run_dir / "wandb"
    assert {"data:mnist", "model:highway", "depth:3", "activation:relu", "optim:sgd",
            "seed:7"} <= set(run["tags"])
    assert metrics["wandb_run_path"].split("/")[-2:] == ["highwaylab", run["run_id"]]
    exit_rec = next(r for r in read_records(run_dir / "wandb") if r.get("type") == "exit")
    assert exit_rec["exit"].get("exit_code", 0) == 0


def _truncate(root, data_dir):
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    for f in (data_dir / "MNIST" / "raw").iterdir():
        (raw / f.name).symlink_to(f)
    (raw / "t10k-images-idx3-ubyte").unlink()
    (raw / "t10k-images-idx3-ubyte").write_bytes((data_dir / "MNIST/raw/t10k-images-idx3-ubyte")
                                                 .read_bytes()[:5000])


BAD_INPUTS = {
    "depth=0": (["depth=0"], "depth=0 is invalid: it must be a positive integer"),
    "width=-3": (["width=-3"], "width=-3 is invalid: it must be a positive integer"),
    "model=foo": (["model=foo"], "highwaylab: model=foo: model has no option 'foo'. Its options: "
                                 "conv_highway, conv_plain, conv_residual, highway, plain, residual\n"),
    "data=foo": (["data=foo"], "highwaylab: data=foo: data has no option 'foo'. Its options: cifar10, "
                               "cifar100, fashion_mnist, mnist\n"),
    "activation": (["model.activation=swishy"], "model.activation='swishy' is not a torch.nn activation"),
    "missing file": (["data.data_dir={tmp}/empty"], "Data file missing: {tmp}/empty/MNIST/raw/"),
    "truncated file": (["data.data_dir={tmp}/trunc"],
                       "Data file truncated or corrupt: {tmp}/trunc/MNIST/raw/t10k-images-idx3-ubyte"),
    "huge depth": (["depth=100000000"], "depth=100000000 and width=8 would need about 1.4e+10 parameters"),
    "bad callback option": (["callbacks=analysis", "callbacks.gate_stats.every_n_steps=-1"],
                            "highwaylab: callbacks.gate_stats.every_n_steps=-1 must be an integer >= 0 "
                            "(0: at epoch ends only)"),
    "not a checkpoint": (["ckpt_path={tmp}/notes.txt"],
                         "ckpt_path={tmp}/notes.txt is not a readable Lightning checkpoint"),
    "negative lr": (["optim.optimizer.lr=-1"], "optim.optimizer (lr=-1, momentum=0.9, weight_decay=0.0) was "
                    "refused by SGD (ValueError: Invalid learning rate: -1)"),
    "gpu without one": (["trainer=gpu"], "Fix: on a machine without a GPU use trainer=cpu"),
    "even conv kernel": (["model=conv_highway", "model.stages=[{{channels:4,layers:1,kernel_size:2}}]"],
                         "model.stages[0].kernel_size=2 must be an odd positive integer"),
    "cifar missing": (["data=cifar10", "model=conv_highway", "data.data_dir={tmp}/empty"],
                      "Data folder missing: {tmp}/empty/cifar-10-batches-py"),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_exits_nonzero_with_one_clear_message(case, tmp_path, data_dir):
    args, expected = BAD_INPUTS[case]
    if case == "truncated file":
        _truncate(tmp_path / "trunc", data_dir)
    (tmp_path / "notes.txt").write_text("not a checkpoint")
    args = [a.format(tmp=tmp_path) for a in args]
    given = {x.split("=")[0] for x in args}  # a key given twice is refused: the case's own replaces it
    small = [a for a in ("logger=none", "trainer=cpu", "depth=3", "width=8") if a.split("=")[0] not in given]
    proc = run_train([*small, *args], tmp_path)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert expected.format(tmp=tmp_path) in output
    assert "Traceback" not in output
    if case in ("model=foo", "data=foo"):  # pass 45, row 57: one line, not Hydra's 12 that list the options
        assert "Available options" not in output and output.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize("callbacks", ["default", "analysis"])
def test_a_depth_100_run_shows_every_family_in_at_most_40_wandb_keys_on_one_step_axis(
        callbacks, tmp_path, data_dir):
    cadence = ["callbacks.gate_stats.every_n_steps=2", "callbacks.grad_norms.every_n_steps=2",
               "callbacks.carry_stripes.class_examples=300"]
    lesion = ["callbacks.lesion.num_examples=300"] if callbacks == "analysis" else []
    small = [o for o in SMALL if not o.startswith("depth=")]  # a key given twice is refused
    proc = run_train(small + ["depth=100", f"callbacks={callbacks}", *cadence, *lesion], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = check_key_budget(tmp_path / "run", max_keys=40)
    check_rows_have_step(summary)  # every row, images included, carries trainer/global_step
    keys = summary.keys
    scalars = {"gates/mean/first", "gates/mean/middle", "gates/mean/last", "gates/closed", "gates/open",
               "grad_norm/global", "grad_norm/input/first", "grad_norm/input/last", "train/loss", "val/acc"}
    images = {"stripes/gates", "stripes/outputs", "gates/mean_map", "gates/bias_map", "gates/mean_by_layer",
              "gates/mean_by_step", "gates/class_difference", "grad_norm/by_layer", "grad_norm/by_step"}
    tables = {"gates/table", "grad_norm/table"}
    if callbacks == "analysis":
        scalars |= {"lesion/baseline_error", "lesion/max_error"}
        images.add("lesion/error_by_layer")
        tables.add("lesion/table")
    else:
        assert not [k for k in keys if k.startswith("lesion/")]
    assert scalars <= set(summary.scalar_keys), scalars - set(summary.scalar_keys)
    assert {k for k in keys if keys[k].kind == "image"} == images
    assert {k for k in keys if keys[k].kind == "table"} == tables
    # 2 epochs of 3 batches: the epoch's images sit at the step of its validation metrics (2 and 5)
    for key in images - {"gates/class_difference", "lesion/error_by_layer"}:
        assert (keys[key].rows, keys[key].step_min, keys[key].step_max) == (2, 2, 5), key
    assert (keys["val/acc"].step_min, keys["val/acc"].step_max) == (2, 5)
    assert (keys["gates/mean/first"].step_min, keys["gates/mean/first"].step_max) == (0, 5)
    history = read_history(tmp_path / "run" / "wandb")
    stripes = [row for row in history if "stripes/gates.filenames" in row]
    assert "example 0: label" in stripes[0]["stripes/gates.captions"][0]
    assert "examples example" not in stripes[0]["stripes/gates.captions"][0]  # a new user read that
    for name in stripes[-1]["stripes/gates.filenames"]:  # the image files are in the run's folder
        assert list((tmp_path / "run" / "wandb").rglob(f"files/{name}")), name


def test_version_is_printed_once(tmp_path):
    import hydra

    proc = subprocess.run([sys.executable, str(ROOT / "train.py"), "--version"], capture_output=True,
                          text=True, timeout=120, env=subprocess_env(), cwd=tmp_path)
    # before: "Hydra 1.3.8" four times (the command-line checks each ran Hydra's parser, which printed it)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"Hydra {hydra.__version__}\n", "")



@pytest.mark.slow
def test_ctrl_c_in_the_probe_is_one_line_and_status_130(tmp_path):
    # pass 27, row 23: before, Ctrl-C 2.5 s in gave a 35- to 219-line traceback of the import or the
    # computation that was running, ending in KeyboardInterrupt
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "highwaylab.probe", "--depth", "50"], cwd=tmp_path,
                            env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # inside the imports of torch and matplotlib, or the work after them
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert (proc.returncode, err) == (
        130, "python -m highwaylab.probe: interrupted (SIGINT): the table and the plot were not finished\n")



def test_the_probe_piped_to_head_writes_its_plot_and_exits_0(tmp_path):
    # pass 29, row 81: before, `python -m highwaylab.probe ... | head -1` ended in a BrokenPipeError
    # traceback (exit status 1) at the table, and the plot was never written
    plot = tmp_path / "probe.png"
    proc = subprocess.Popen([sys.executable, "-m", "highwaylab.probe", "--activation", "tanh", "--depth", "5",
                             "--width", "8", "--plot", str(plot)], cwd=tmp_path, env=subprocess_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.readline()  # as head -1: one line, then the pipe closes
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 0 and err == "", err
    assert first.startswith("Norm of the gradient w.r.t. the input of each layer (5 layers, width 8")
    assert plot.stat().st_size > 10_000  # a PNG of the five layers' norms

def test_the_tools_stop_on_ctrl_c_in_one_line_from_their_first_import():
    # pass 27, row 24: highwaylab.workspace and highwaylab.utils.wandb_offline install it before their
    # imports too (a 28- and 29-line traceback before); here the mechanism, in a process of its own
    import signal

    script = ("from highwaylab.cli import stop_on_sigint; stop_on_sigint('tool', 'nothing was done'); "
              "import time; print('ready', flush=True); time.sleep(30)")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=subprocess_env())
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert (proc.returncode, err) == (130, "tool: interrupted (SIGINT): nothing was done\n")
    for module in ("highwaylab/workspace.py", "highwaylab/utils/wandb_offline.py", "highwaylab/probe.py"):
        source = (ROOT / "src" / module).read_text()
        assert source.index("stop_on_sigint(") < source.index("\nimport argparse")  # before the imports


@pytest.mark.parametrize("args, line", [
    (["highwaylab.probe", "--depth", "5", "--plot", ""],
     "python -m highwaylab.probe: error: argument --plot: '' is empty: give a file name, e.g. --plot "
     "outputs/probe/grad_norms.png"),
    (["highwaylab.report", ""],
     "python -m highwaylab.report: error: argument sweep_dir: '' is empty: give the multirun folder, e.g. "
     "outputs/multiruns/<date>_<time>_<hex>"),
    (["highwaylab.utils.wandb_offline", " "],
     "python -m highwaylab.utils.wandb_offline: error: argument run: ' ' is empty: give a run folder, e.g. "
     "outputs/runs/<run>"),
    (["highwaylab.workspace", "--out", ""],
     "python -m highwaylab.workspace: error: argument --out: '' is empty: give a file name, e.g. --out "
     "wandb_workspace.json (or -: print it)"),
])
def test_an_empty_path_argument_is_refused_not_read_as_the_current_folder(args, line, tmp_path):
    # pass 45, row 26: before, --plot '' was refused as "--plot . is a folder", a value never typed; and
    # report '' (an unset shell variable) reported the current folder, writing report/ into it
    (tmp_path / "0_job" / ".hydra").mkdir(parents=True)  # a folder a report of '.' would read
    proc = subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=tmp_path,
                          env=subprocess_env(), timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0_job"]  # nothing written where it ran


LONG = "x" * 300  # a folder name longer than NAME_MAX, 255 bytes on Linux's file systems
TOO_LONG = (f"the name {'x' * 24}... in it is 300 bytes long, and this file system allows at most 255 in one "
            f"file or folder name (File name too long). Fix: give a shorter name")


@pytest.mark.parametrize("args, option", [
    (["train.py", "depth=3", "hydra.run.dir=/tmp/{long}/run"], "hydra.run.dir="),
    (["train.py", "-m", "depth=3,4", "hydra.sweep.dir=/tmp/{long}"], "hydra.sweep.dir="),
    (["train.py", "depth=3", "ckpt_path=/tmp/{long}/last.ckpt"], "ckpt_path="),
    (["train.py", "resume=/tmp/{long}"], "resume="),
    (["train.py", "depth=3", "data.data_dir=/tmp/{long}"], "data.data_dir="),
    (["train.py", "depth=3", "HIGHWAYLAB_DATA_DIR"], "HIGHWAYLAB_DATA_DIR="),
    (["-m", "highwaylab.report", "/tmp/{long}"], "python -m highwaylab.report: error: argument sweep_dir: "),
    (["-m", "highwaylab.report", "{sweep}", "--out", "/tmp/{long}"],
     "python -m highwaylab.report: error: --out "),
    (["-m", "highwaylab.utils.wandb_offline", "/tmp/{long}"],
     "python -m highwaylab.utils.wandb_offline: error: argument run: "),
    (["-m", "highwaylab.probe", "--plot", "/tmp/{long}/plot.png"],
     "python -m highwaylab.probe: error: argument --plot: "),
])
def test_a_path_with_a_name_too_long_for_the_file_system_is_one_line(args, option, tmp_path):
    # breaking pass 60, row 33: before, each gave a traceback ending in OSError: [Errno 36] File name too long
    sweep = tmp_path / "sweep"
    (sweep / "0_job" / ".hydra").mkdir(parents=True)
    env = subprocess_env()
    if "HIGHWAYLAB_DATA_DIR" in args:
        args, env["HIGHWAYLAB_DATA_DIR"] = args[:-1], f"/tmp/{LONG}"
    command = [a.format(long=LONG, sweep=sweep) for a in args]
    proc = subprocess.run([sys.executable, *command], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=120)
    line = proc.stderr.strip().splitlines()[-1]
    given = next((a.split("=", 1)[1] for a in command if a.startswith(option)), None) or \
        env["HIGHWAYLAB_DATA_DIR"] if "=" in option else command[-1]
    shown = f"{given[:60]}...{given[-12:]}"
    prefix = "highwaylab: " + option if args[0] == "train.py" else option
    assert proc.returncode == (1 if args[0] == "train.py" else 2), proc.stderr[-2000:]
    assert line == f"{prefix}{shown}: {TOO_LONG}", line
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("module, shown", [("highwaylab.train", "python train.py depth=3"),
                                           ("highwaylab", "python train.py depth=3"),
                                           ("highwaylab.analysis", "python train.py depth=3")])
def test_python_m_of_a_module_that_is_not_a_command_names_train_py_and_exits_2(module, shown, tmp_path):
    # pass 47, rows 30-31 (major): before, python -m highwaylab.train depth=3 exited 0 having trained nothing
    proc = subprocess.run([sys.executable, "-m", module, "depth=3"], capture_output=True, text=True,
                          cwd=tmp_path, env=subprocess_env(), timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        f"highwaylab: python -m {module} is not a command: training runs through the checkout's train.py "
        f"({shown}); {ANALYSES}; the tools are python -m highwaylab.report <sweep>, python -m "
        f"highwaylab.probe, python -m highwaylab.workspace, python -m highwaylab.utils.wandb_offline <run>"]
    assert list(tmp_path.iterdir()) == []  # no run folder


ANALYSES = ("the analyses (gate statistics, carry stripes, gradient norms, lesioning) are callbacks of a "
            "training run (callbacks=analysis adds them all)")


@pytest.mark.parametrize("module", ["highwaylab.analysis.lesion", "highwaylab.callbacks.lesion",
                                    "highwaylab.analysis.gates", "highwaylab.callbacks"])
def test_python_m_of_a_part_takes_only_what_train_py_reads(module, tmp_path):
    # pass 73, rows 1, 68 and 70 (major): 'python -m highwaylab.analysis lesion <run>' was sent to 'python
    # train.py lesion <run>', refused in turn; the analysis modules and callbacks exited 0, doing nothing
    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    proc = subprocess.run([sys.executable, "-m", module, "lesion", str(run), "seed=1"], capture_output=True,
                          text=True, cwd=tmp_path, env=subprocess_env(), timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[0].startswith(
        f"highwaylab: python -m {module} is not a command: training runs through the checkout's train.py "
        f"(python train.py resume={run} seed=1; lesion: no argument of train.py, left out); {ANALYSES}; ")


def test_python_m_of_the_sweep_reports_computations_names_the_report_command(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "highwaylab.analysis.sweep_report", str(tmp_path)],
                          capture_output=True, text=True, cwd=tmp_path, env=subprocess_env(), timeout=60)
    assert proc.returncode == 2 and proc.stderr.splitlines() == [
        f"highwaylab: python -m highwaylab.analysis.sweep_report is not a command: it holds what python -m "
        f"highwaylab.report computes. Fix: python -m highwaylab.report {tmp_path}"]


def test_python_m_of_the_probes_computations_names_the_probe_command(tmp_path):
    # pass 70, row 21: python -m highwaylab.analysis.probe --depth 10 (the probe's --help names the module);
    # before, exit 0, nothing printed, nothing written
    proc = subprocess.run([sys.executable, "-m", "highwaylab.analysis.probe", "--depth", "10"],
                          capture_output=True, text=True, cwd=tmp_path, env=subprocess_env(), timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "highwaylab: python -m highwaylab.analysis.probe is not a command: it holds what python -m "
        "highwaylab.probe computes. Fix: python -m highwaylab.probe --depth 10"]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("script", "args", "line"), [
    # pass 67, rows 12-14: before, tracebacks (the last after its training)
    ("startup.py", ["--repeats", "0"], "startup.py: error: --repeats 0: give 1 or more"),
    ("startup.py", ["--root", "src"], "startup.py: error: --root src: "),
    ("callback_cost.py", ["--depths", "3", "--epochs", "1", "2"],
     "callback_cost.py: error: --epochs 1 2: give one count for all depths, or one for each of the 1 "
     "--depths (3)"),
    # pass 68, rows 20, 21 and 35: before, tracebacks (--out <run>/metrics.json, --steps 0, --repeats 0)
    ("throughput.py", ["--steps", "0"], "throughput.py: error: argument --steps: 0: give 1 or more"),
    # pass 69, row 51: before, "StatisticsError: no median for empty data"
    ("denormals.py", ["--steps", "0", "0"], "denormals.py: error: argument --steps: 0: give 1 or more"),
    ("denormals.py", ["--warmup", "-1", "1"], "denormals.py: error: argument --warmup: -1: give 0 or more"),
    ("throughput.py", ["--repeats", "0"], "throughput.py: error: argument --repeats: 0: give 1 or more"),
    ("throughput.py", ["--out", "README.md"], "throughput.py: error: argument --out: README.md is a file; "
     "give a folder for the benchmark's runs (made if missing), e.g. --out outputs/benchmarks"),
    ("callback_cost.py", ["--out", "RUN"], "callback_cost.py: error: argument --out: RUN holds a run of "
     "train.py (metrics.json), and the benchmark's runs would be written among its files; give a folder of "
     "their own, e.g. --out outputs/benchmarks"),
])
def test_a_benchmarks_bad_arguments_are_one_line(script, args, line, tmp_path):
    import subprocess
    import sys

    from .conftest import ROOT, subprocess_env

    (tmp_path / "metrics.json").write_text("{}")  # a finished run's folder
    args = [str(tmp_path) if a == "RUN" else a for a in args]
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], capture_output=True,
                          text=True, cwd=ROOT, env=subprocess_env(), timeout=120)
    shown = proc.stderr.strip().splitlines()[-1].replace(str(tmp_path), "RUN")
    assert proc.returncode == 2 and shown.startswith(line), proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.json"]  # nothing written beside it


@pytest.mark.parametrize("script", ["throughput.py", "callback_cost.py"])
def test_a_benchmark_without_the_data_is_one_line_naming_its_variable(script, tmp_path):
    # pass 73, row 28 (major): before, two tracebacks, and a fix naming train.py's data.data_dir=
    import subprocess
    import sys

    from .conftest import ROOT, subprocess_env

    args = ["--depths", "3", "--epochs", "1", "--repeats", "1"] if script == "callback_cost.py" else \
        ["--steps", "5", "--repeats", "1"]
    env = subprocess_env(HIGHWAYLAB_DATA_DIR=str(tmp_path / "none"), WANDB_MODE="offline")
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args, "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        f"{script}: error: Data file missing: {tmp_path}/none/MNIST/raw/train-images-idx3-ubyte. Expected "
        f"the uncompressed IDX files train-images-idx3-ubyte, train-labels-idx1-ubyte, "
        f"t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte in {tmp_path}/none/MNIST/raw; the folder "
        f"{tmp_path}/none, from the environment variable HIGHWAYLAB_DATA_DIR (a relative one is read from "
        f"the folder the command was typed in), does not exist. The benchmark "
        f"reads MNIST from the folder HIGHWAYLAB_DATA_DIR names (now {tmp_path}/none). Fix: "
        f"HIGHWAYLAB_DATA_DIR=<the folder that holds MNIST/raw/> python benchmarks/{script} ...")
