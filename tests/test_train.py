"""train(cfg) in-process: metrics.json, checkpoints, resume, reproducibility."""

import json

import pytest
from omegaconf import OmegaConf, open_dict

from highwaylab.train import train

from .conftest import ROOT, TINY, compose_cfg


def test_train_writes_metrics_and_checkpoints(cfg_tiny, tmp_path):
    metrics = train(cfg_tiny)
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert saved == pytest.approx(metrics)
    for key in ("train/loss", "train/acc", "val/loss", "val/acc", "test/loss", "test/acc"):
        assert 0.0 <= saved[key] < 10.0, key
    # 4-layer, width-16 highway net on 784 inputs: stem + 3 fused layers + head
    assert saved["params"] == (784 * 16 + 16) + 3 * (16 * 32 + 32) + (16 * 10 + 10)
    assert saved["global_step"] == 4 and saved["epochs"] == 1
    assert (tmp_path / "checkpoints" / "last.ckpt").is_file()
    assert saved["best_ckpt"].endswith("epoch_000.ckpt")
    assert (tmp_path / "config_resolved.yaml").is_file()


def test_metrics_json_counts_the_examples_of_a_limited_and_of_a_whole_evaluation(tmp_path, data_dir, caplog):
    # new-user pass 3: test/acc over 640 of the 10,000 test examples (limit_test_batches=5), and
    # nothing said so. TINY: 2 validation and 2 test batches of 128; here the validation set is whole
    cfg = compose_cfg([*[o for o in TINY if not o.startswith("trainer.limit_val")], "data.val_size=300",
                       "trainer.limit_val_batches=1.0"], tmp_path)
    with caplog.at_level("INFO", logger="highwaylab.train"):
        metrics = train(cfg)
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert (saved["val_examples"], saved["test_examples"]) == (300, 256) == (
        metrics["val_examples"], metrics["test_examples"])
    notes = [r.getMessage() for r in caplog.records if "examples (trainer.limit_" in r.getMessage()]
    assert notes == ["test/loss and test/acc are over 256 of the 10,000 test examples "
                     "(trainer.limit_test_batches); metrics.json's test_examples says so"]


def test_the_partial_set_line_of_debug_fast_names_fast_dev_run(tmp_path, data_dir, caplog):
    # breaking pass 21, row 39: debug=fast's line named trainer.limit_val_batches, which it does not set
    with caplog.at_level("INFO", logger="highwaylab.train"):
        metrics = train(compose_cfg(["debug=fast", "depth=3", "width=8"], tmp_path))
    assert (metrics["val_examples"], metrics["test_examples"]) == (128, 128)  # one batch each
    notes = [r.getMessage() for r in caplog.records if "examples (trainer." in r.getMessage()]
    assert notes == ["val/loss and val/acc are over 128 of the 5,000 val examples (trainer.fast_dev_run); "
                     "metrics.json's val_examples says so",
                     "test/loss and test/acc are over 128 of the 10,000 test examples "
                     "(trainer.fast_dev_run); metrics.json's test_examples says so"]


def test_the_partial_set_line_of_overfit_batches_names_it(tmp_path, data_dir, caplog):
    # pass 49, row 99: the line named trainer.limit_val_batches (2 batches, 256 examples), but
    # trainer.overfit_batches=1 had cut the validation to 128
    with caplog.at_level("INFO", logger="highwaylab.train"):
        tiny = [o for o in TINY if not o.startswith("trainer.limit_train_batches=")]  # overfit sets it
        metrics = train(compose_cfg([*tiny, "+trainer.overfit_batches=1"], tmp_path))
    assert (metrics["val_examples"], metrics["test_examples"]) == (128, 256)
    notes = [r.getMessage() for r in caplog.records if "examples (trainer." in r.getMessage()]
    assert notes == ["val/loss and val/acc are over 128 of the 5,000 val examples (trainer.overfit_batches); "
                     "metrics.json's val_examples says so",
                     "test/loss and test/acc are over 256 of the 10,000 test examples "
                     "(trainer.limit_test_batches); metrics.json's test_examples says so"]


def test_a_last_epoch_cut_by_max_steps_says_how_much_of_it_ran(tmp_path, data_dir, caplog):
    # breaking pass 20, row 52: before, max_steps=6 with 4 batches an epoch recorded "epochs": 2 and
    # train/* of the 2-batch second epoch, with nothing to tell it from two whole epochs
    whole = train(compose_cfg(TINY, tmp_path / "whole"))
    assert (whole["epochs"], whole["last_epoch_batches"], whole["batches_per_epoch"]) == (1, 4, 4)
    # the README's row for metrics.json names each of its fields (the new-user pass of stop 44: before,
    # global_step was missing); the metrics, train/*, val/* and test/*, by their prefix
    lines = (ROOT / "README.md").read_text().splitlines()
    row = next(line for line in lines if line.startswith("| `metrics.json`"))
    fields = {key for key in whole if not key.startswith(("train/", "val/", "test/"))}
    assert {key for key in fields if f"`{key}`" not in row} == set()
    tiny = [o for o in TINY if not o.startswith("trainer.max_epochs")]
    cfg = compose_cfg([*tiny, "trainer.max_epochs=-1", "trainer.max_steps=6"], tmp_path / "cut")
    with caplog.at_level("INFO", logger="highwaylab.callbacks.epoch_log"):
        cut = train(cfg)
    assert (cut["epochs"], cut["global_step"], cut["last_epoch_batches"]) == (2, 6, 2)
    assert cut["batches_per_epoch"] == 4
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("epoch ")]
    assert "2 of 4 batches" not in lines[0]
    assert lines[1].startswith("epoch 1  step 5  train/loss ") and \
        "  2 of 4 batches (trainer.max_steps=6 reached)  " in lines[1], lines


def test_a_run_without_a_best_checkpoint_records_best_ckpt_null(tmp_path, data_dir):
    # breaking pass 15, row 35: before, "best_ckpt": "" (no best checkpoint; the final weights tested)
    metrics = train(compose_cfg([*TINY, "~callbacks.model_checkpoint"], tmp_path))
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert metrics["best_ckpt"] is None and saved["best_ckpt"] is None
    assert sorted(p.name for p in (tmp_path / "checkpoints").iterdir()) == ["last.ckpt"]


@pytest.mark.slow
def test_same_seed_same_metrics_on_cpu(tmp_path):
    a = train(compose_cfg(TINY + ["seed=3"], tmp_path / "a"))
    b = train(compose_cfg(TINY + ["seed=3"], tmp_path / "b"))
    c = train(compose_cfg(TINY + ["seed=4"], tmp_path / "c"))
    for key in ("train/loss", "val/loss", "test/loss", "val/acc"):
        assert a[key] == b[key], key
    assert a["train/loss"] != c["train/loss"]


@pytest.mark.slow
def test_resume_from_last_ckpt_continues_at_the_right_step(tmp_path):
    first = train(compose_cfg(TINY, tmp_path / "first"))
    last = tmp_path / "first" / "checkpoints" / "last.ckpt"
    assert first["global_step"] == 4
    cfg = compose_cfg(TINY + ["trainer.max_epochs=3", f"ckpt_path={last}"], tmp_path / "resumed")
    resumed = train(cfg)
    # the resumed run starts at epoch 1, step 4, and trains epochs 1 and 2 only
    assert resumed["epochs"] == 3
    assert resumed["global_step"] == 12
    # metrics.json says it was resumed, and from which step (new-user pass 3: nothing said so)
    assert (first["resumed_from_step"], resumed["resumed_from_step"]) == (None, 4)
    # same as an uninterrupted 3-epoch run with the same seed
    straight = train(compose_cfg(TINY + ["trainer.max_epochs=3"], tmp_path / "straight"))
    assert resumed["global_step"] == straight["global_step"]


@pytest.mark.slow
def test_every_config_group_option_composes_and_instantiates(tmp_path, data_dir):
    from hydra.utils import instantiate

    from highwaylab.data import MNISTDataModule

    for overrides in (["model=highway"], ["model=plain"], ["model=residual"], ["data=fashion_mnist"],
                      ["optim=adamw"], ["trainer=cpu"], ["logger=csv"], ["logger=none"],
                      ["debug=fast"], ["debug=overfit"], ["callbacks=none"]):
        cfg = compose_cfg(overrides, tmp_path)
        dm = instantiate(cfg.data)
        assert isinstance(dm, MNISTDataModule)
        net = instantiate(cfg.model, input_shape=784, num_classes=10)
        module = instantiate(cfg.module, net=net, num_classes=10)
        assert module.configure_optimizers()["optimizer"] is not None
        with open_dict(cfg):
            cfg.trainer.accelerator = "cpu"
        instantiate(cfg.trainer, logger=False)


@pytest.mark.slow
def test_checkpoint_of_another_depth_is_refused_with_the_fix(tmp_path):
    from highwaylab.errors import ConfigError

    train(compose_cfg(TINY, tmp_path / "first"))
    last = tmp_path / "first" / "checkpoints" / "last.ckpt"
    with pytest.raises(ConfigError, match=r"was saved from another model: 2 missing, 0 unexpected") as err:
        train(compose_cfg(TINY + ["depth=5", f"ckpt_path={last}"], tmp_path / "deeper"))
    # pass 73, row 14: a file outside a run's folder says that nothing beside it records the model; a run's
    # record names it (before, "its .hydra/config.yaml lists them" in both cases)
    assert str(err.value).endswith("the file lies outside a run's folder, so nothing beside it records them "
                                   "(a run lists them in its .hydra/config.yaml)."), str(err.value)
    from hydra.core.hydra_config import HydraConfig

    first = compose_cfg(TINY, tmp_path / "first")  # the record Hydra writes: the job's config, its own node
    (tmp_path / "first" / ".hydra").mkdir()
    OmegaConf.save(first, tmp_path / "first" / ".hydra" / "config.yaml")
    OmegaConf.save({"hydra": HydraConfig.get()}, tmp_path / "first" / ".hydra" / "hydra.yaml")
    with pytest.raises(ConfigError) as err:
        train(compose_cfg(TINY + ["depth=5", f"ckpt_path={last}"], tmp_path / "deeper"))
    assert str(err.value).endswith(f"Give the model of the run that wrote it, {tmp_path / 'first'} (its "
                                   f".hydra/config.yaml): model=highway depth=4 width=16."), str(err.value)
    with pytest.raises(ConfigError, match="is a folder"):
        train(compose_cfg(TINY + [f"ckpt_path={tmp_path}"], tmp_path / "folder"))


@pytest.mark.parametrize("stage, fraction, batches, least", [("val", 0.001, 3, 0.3334),
                                                             ("test", 0.01, 79, 0.0127)])
def test_a_limit_fraction_below_one_batch_is_one_line_naming_the_key(stage, fraction, batches, least,
                                                                     tmp_path, data_dir):
    # pass 47, row 20: before, Lightning's "Please increase the `limit_val_batches` argument. Try at least
    # `limit_val_batches=0.025`", which names no config key
    from highwaylab.errors import ConfigError

    cfg = compose_cfg([*TINY, "data.val_size=300", f"trainer.limit_{stage}_batches={fraction}"], tmp_path)
    with pytest.raises(ConfigError) as refusal:
        train(cfg)
    assert str(refusal.value) == (
        f"trainer.limit_{stage}_batches={fraction} is a fraction of the {batches} {stage} batches below one "
        f"batch, so none would run. Fix: trainer.limit_{stage}_batches={least:g} or more, or a number of "
        f"batches (trainer.limit_{stage}_batches=1)")
    # pass 78, row 29 (major): before, the test's fraction was refused after the whole training (its
    # checkpoints written), and the corrected command was refused for the run folder left behind
    assert list(tmp_path.rglob("*.ckpt")) == []


def test_the_model_of_a_conv_run_is_given_as_its_quoted_stages(tmp_path):
    # pass 97, row 28: before, "model=conv_highway depth=3 model.stages=[{'channels': 16, ...}]": a Python
    # list the shell split at its spaces, beside a depth= that a conv net does not read
    from highwaylab.train import _model_of_run

    run = tmp_path / "run"
    (run / ".hydra").mkdir(parents=True)
    stages = [{"channels": c, "layers": 2, "kernel_size": 3} for c in (16, 32)]
    OmegaConf.save({"depth": 3, "width": 50, "model": {"stages": stages}}, run / ".hydra" / "config.yaml")
    choices = {"model": "conv_highway"}
    OmegaConf.save({"hydra": {"runtime": {"choices": choices}}}, run / ".hydra" / "hydra.yaml")
    assert _model_of_run(str(run / "checkpoints" / "last.ckpt")) == (
        f"Give the model of the run that wrote it, {run} (its .hydra/config.yaml): model=conv_highway "
        f"'model.stages=[{{channels:16,layers:2,kernel_size:3}},{{channels:32,layers:2,kernel_size:3}}]'.")


def test_depth_given_beside_stages_and_an_experiment_names_the_stages_given(caplog):
    # pass 97, row 28c: before, "experiment=warm sets the stages", of stages the command line gave
    from hydra import compose, initialize_config_dir
    from hydra.core.hydra_config import HydraConfig

    from highwaylab.train import warn_unused_size
    from highwaylab.utils.hydra_utils import register_resolvers

    register_resolvers()
    given = ["experiment=paper_mnist_conv16", "depth=5", "model.stages=[{channels:4,layers:2}]"]
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=given, return_hydra_config=True)
    HydraConfig.instance().set_config(cfg)
    try:
        with caplog.at_level("WARNING", logger="highwaylab.train"):
            warn_unused_size(cfg, None)
    finally:
        HydraConfig.instance().cfg = None
    assert [r.getMessage().split("Fix: ")[1] for r in caplog.records] == [
        "leave depth=5 out (model.stages, given here, sets them)"]
