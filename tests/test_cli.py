"""``python train.py ...`` as a user runs it: an offline W&B run end to end, and bad input."""

import json
import subprocess
import sys

import pytest

from highwaylab.utils.wandb_offline import read_history, read_records

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
    assert run["display_name"] == "highway-d3-s7" and run["project"] == "highwaylab"
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
    "model=foo": (["model=foo"], "Could not find 'model/foo'"),
    "data=foo": (["data=foo"], "Could not find 'data/foo'"),
    "activation": (["model.activation=swishy"], "model.activation='swishy' is not a torch.nn activation"),
    "missing file": (["data.data_dir={tmp}/empty"], "Data file missing: {tmp}/empty/MNIST/raw/"),
    "truncated file": (["data.data_dir={tmp}/trunc"],
                       "Data file truncated or corrupt: {tmp}/trunc/MNIST/raw/t10k-images-idx3-ubyte"),
    "huge depth": (["depth=100000000"], "depth=100000000 and width=8 would need about 1.4e+10 parameters"),
    "bad callback option": (["callbacks=analysis", "callbacks.gate_stats.every_n_steps=-1"],
                            "every_n_steps=-1 must be >= 0 (0: validation ends only) "
                            "[config key: callbacks.gate_stats]"),
    "not a checkpoint": (["ckpt_path={tmp}/notes.txt"],
                         "ckpt_path={tmp}/notes.txt is not a Lightning checkpoint"),
    "negative lr": (["optim.optimizer.lr=-1"], "optim: the optimizer or scheduler rejected its config"),
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
    small = [a for a in ("depth=3", "width=8") if a.split("=")[0] not in {x.split("=")[0] for x in args}]
    proc = run_train(["logger=none", "trainer=cpu", *small, *args], tmp_path)
    assert proc.returncode != 0
    output = proc.stdout + proc.stderr
    assert expected.format(tmp=tmp_path) in output
    assert "Traceback" not in output
    if case in ("model=foo", "data=foo"):  # Hydra lists the options
        assert "Available options" in output


@pytest.mark.slow
def test_analysis_callbacks_write_keys_and_images_into_the_offline_wandb_run(tmp_path, data_dir):
    proc = run_train(SMALL + ["depth=6", "callbacks=analysis", "callbacks.gate_stats.every_n_steps=2",
                              "callbacks.grad_norms.every_n_steps=2",
                              "callbacks.lesion.num_examples=300"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    history = read_history(tmp_path / "run" / "wandb")
    keys = set().union(*history)
    for k in range(1, 6):  # the 5 highway layers after the stem
        for key in (f"gates/mean/layer_{k:03d}", f"gates/bias/layer_{k:03d}", f"gates/open/layer_{k:03d}",
                    f"gates/closed/layer_{k:03d}", f"grad_norm/params/layer_{k:03d}",
                    f"grad_norm/input/layer_{k:03d}"):
            assert key in keys, key
    assert "grad_norm/global" in keys and "lesion/baseline_error" in keys
    for media in ("stripes/gates", "stripes/outputs", "gates/mean_map", "gates/bias_map",
                  "gates/mean_by_layer", "gates/class_difference", "grad_norm/by_layer",
                  "lesion/error_by_layer"):
        rows = [row for row in history if f"{media}.filenames" in row]
        assert rows, media
        for name in rows[-1][f"{media}.filenames"]:  # the image files are in the run's folder
            assert list((tmp_path / "run" / "wandb").rglob(f"files/{name}")), name
    # one image per validation epoch, each with a caption naming the examples
    stripes = [row for row in history if "stripes/gates.filenames" in row]
    assert len(stripes) == 2
    assert "example 0: label" in stripes[0]["stripes/gates.captions"][0]
    assert any("lesion/table.path" in row for row in history)
