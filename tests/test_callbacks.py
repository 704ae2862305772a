"""The analysis callbacks in tiny Trainer runs: recorded state against hand computations, logged keys."""

import copy
import csv
import math

import lightning as L
import pytest
import torch

from highwaylab.callbacks import (
    CarryStripeMonitor,
    GateStatsMonitor,
    LayerGradNormMonitor,
    LesionMonitor,
    NonFiniteError,
)
from highwaylab.train import build

from .conftest import TINY, compose_cfg

ANALYSIS = TINY + ["callbacks=analysis",
                   "logger=csv", "callbacks.lesion.num_examples=500",
                   "callbacks.gate_stats.every_n_steps=2", "callbacks.grad_norms.every_n_steps=2",
                   "callbacks.carry_stripes.class_examples=300"]


def fit(overrides, tmp_path, extra_callbacks=(), before_fit=None):
    parts = build(compose_cfg(ANALYSIS + overrides, tmp_path))
    parts.trainer.callbacks.extend(extra_callbacks)
    if before_fit:
        before_fit(parts.module.backbone)
    parts.trainer.fit(parts.module, datamodule=parts.datamodule)
    return parts


def callback(trainer, cls):
    return next(cb for cb in trainer.callbacks if isinstance(cb, cls))


def logged_rows(tmp_path) -> list[dict[str, str]]:
    """The rows of the CSV logger's metrics.csv (empty strings where a key was not logged)."""
    with next(tmp_path.rglob("metrics.csv")).open() as f:
        return list(csv.DictReader(f))


@pytest.mark.slow
def test_gate_statistics_at_init_equal_sigmoid_of_the_bias(tmp_path, data_dir):
    def zero_gate_weights(net):
        with torch.no_grad():
            for layer in net.layers:
                layer.proj.weight[layer.width:].zero_()  # W_T = 0: T = sigmoid(b_T) for every input

    # lr 0 keeps the initial weights through the run
    parts = fit(["model.gate_bias=-2", "depth=5", "optim.optimizer.lr=0.0"], tmp_path,
                before_fit=zero_gate_weights)
    gates = callback(parts.trainer, GateStatsMonitor)
    sigmoid = 1 / (1 + math.exp(2))
    torch.testing.assert_close(gates.stats.mean, torch.full((4,), sigmoid))
    torch.testing.assert_close(gates.biases, torch.full((4, 16), -2.0))
    assert gates.stats.closed.tolist() == [0.0] * 4  # sigmoid(-2) = 0.119 > 0.1
    rows = logged_rows(tmp_path)
    last = [r for r in rows if r.get("gates/mean/first")][-1]
    assert float(last["gates/mean/first"]) == pytest.approx(sigmoid, rel=1e-6)
    assert float(last["gates/mean/last"]) == pytest.approx(sigmoid, rel=1e-6)
    columns = set(rows[0])
    for key in ("gates/mean/first", "gates/mean/middle", "gates/mean/last", "gates/closed", "gates/open",
                "grad_norm/input/first", "grad_norm/input/middle", "grad_norm/input/last",
                "grad_norm/global", "lesion/baseline_error", "lesion/max_error"):
        assert key in columns, key
    assert not [c for c in columns if "layer_" in c]  # per-layer scalar keys are opt-in
    for key in ("gates_mean_map", "gates_bias_map", "gates_mean_by_layer", "gates_mean_by_step",
                "stripes_gates", "stripes_outputs", "gates_class_difference", "grad_norm_by_layer",
                "grad_norm_by_step", "lesion_error_by_layer"):
        assert list((tmp_path / "figures" / key).glob("*.png")), key
    for key in ("lesion_table", "gates_table", "grad_norm_table"):
        assert list((tmp_path / "figures" / key).glob("*.csv")), key
    with next((tmp_path / "figures" / "gates_table").glob("*.csv")).open() as f:
        table = list(csv.DictReader(f))
    assert [int(r["layer"]) for r in table] == [1, 2, 3, 4]
    assert float(table[0]["mean_T_initial"]) == pytest.approx(sigmoid, rel=1e-6)
    assert float(table[3]["b_T"]) == pytest.approx(-2.0)


@pytest.mark.slow
def test_measurements_share_lightnings_step_axis(tmp_path, data_dir):
    # 4 batches an epoch, 2 epochs, every 2 steps: measured before steps 0, 2, 4, 6 and at the two
    # epoch ends, which Lightning logs at the index of the epoch's last batch: 3 and 7
    parts = fit(["trainer.max_epochs=2"], tmp_path)
    gates = callback(parts.trainer, GateStatsMonitor)
    assert gates.history.steps == [0, 2, 3, 4, 6, 7]
    assert callback(parts.trainer, LayerGradNormMonitor).param_history.steps == [0, 2, 4, 6]
    with next((tmp_path / "figures" / "grad_norm_table").glob("*.csv")).open() as f:
        measured = {r["measured_at_step"] for r in csv.DictReader(f)}  # filed at step 7, measured at 6
    assert measured == {"6"}
    rows = logged_rows(tmp_path)
    val_steps = sorted({int(r["step"]) for r in rows if r.get("val/acc")})
    gate_steps = sorted({int(r["step"]) for r in rows if r.get("gates/mean/first")})
    assert val_steps == [3, 7] and gate_steps == [0, 2, 3, 4, 6, 7]
    images = (tmp_path / "figures" / "gates_mean_map").glob("*.png")
    assert sorted(int(p.stem.split("_")[1]) for p in images) == val_steps  # the step of its validation
    assert len(gates.history.array()) == 6  # the layer x step map has one column per measurement


@pytest.mark.slow
def test_per_layer_scalar_keys_are_opt_in(tmp_path, data_dir):
    fit(["depth=4", "callbacks.gate_stats.per_layer_scalars=true",
         "callbacks.grad_norms.per_layer_scalars=true", "~callbacks.lesion"], tmp_path)
    columns = set(logged_rows(tmp_path)[0])
    for k in (1, 2, 3):
        for key in (f"gates/mean/layer_{k:03d}", f"gates/bias/layer_{k:03d}", f"gates/closed/layer_{k:03d}",
                    f"gates/open/layer_{k:03d}", f"grad_norm/params/layer_{k:03d}",
                    f"grad_norm/input/layer_{k:03d}"):
            assert key in columns, key


@pytest.mark.slow
def test_stripe_images_of_a_depth_50_width_50_net_have_49_rows_and_50_columns(tmp_path, data_dir):
    parts = fit(["depth=50", "width=50"], tmp_path)
    stripes = callback(parts.trainer, CarryStripeMonitor)
    assert stripes.gates.shape == (4, 49, 50)  # K examples x highway layers x blocks
    assert stripes.outputs.shape == (4, 49, 50)
    assert stripes.class_difference.shape == (10, 49, 50)
    assert ((stripes.gates > 0) & (stripes.gates < 1)).all()
    lesion = callback(parts.trainer, LesionMonitor)
    assert lesion.errors.shape == (49,)
    assert 0.0 <= lesion.baseline <= 1.0


@pytest.mark.slow
def test_plain_backbone_gets_output_stripes_but_no_gate_maps(tmp_path, data_dir):
    parts = fit(["model=plain", "depth=6"], tmp_path)
    stripes = callback(parts.trainer, CarryStripeMonitor)
    assert stripes.outputs.shape == (4, 5, 23)  # plain width matched to highway width 16
    assert stripes.gates is None
    assert callback(parts.trainer, GateStatsMonitor).stats is None
    assert not (tmp_path / "figures" / "stripes_gates").exists()


class FirstBatch(L.Callback):
    """Keeps a copy of the backbone and the batch of the first training step."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == 0:
            self.net, self.batch = copy.deepcopy(pl_module.backbone), batch


def test_layer_gradient_norms_equal_a_hand_computation(tmp_path, data_dir):
    first = FirstBatch()
    parts = fit(["depth=4", "width=5", "trainer.limit_train_batches=1",
                 "callbacks.grad_norms.every_n_steps=1"], tmp_path, extra_callbacks=[first])
    monitor = callback(parts.trainer, LayerGradNormMonitor)
    net, (x, y) = first.net, first.batch
    # by hand: the three highway layers, their inputs kept explicitly
    h0 = net.stem(x)
    h1 = net.layers[0](h0)
    h2 = net.layers[1](h1)
    h3 = net.layers[2](h2)
    loss = torch.nn.functional.cross_entropy(net.head(h3), y)
    params = [list(layer.parameters()) for layer in net.layers]
    flat = [p for group in params for p in group]
    grads = torch.autograd.grad(loss, flat + [h0, h1, h2])
    param_grads, input_grads = grads[:len(flat)], grads[len(flat):]
    by_layer = [torch.sqrt(sum((g ** 2).sum() for g in param_grads[2 * k: 2 * k + 2]))
                for k in range(3)]  # each layer has proj.weight and proj.bias
    torch.testing.assert_close(monitor.param_norms, torch.stack(by_layer), rtol=1e-5, atol=1e-8)
    torch.testing.assert_close(monitor.input_norms, torch.stack([g.norm() for g in input_grads]),
                               rtol=1e-5, atol=1e-8)
    all_grads = torch.autograd.grad(torch.nn.functional.cross_entropy(net(x), y),
                                    list(net.parameters()))
    assert monitor.global_norm == pytest.approx(float(torch.nn.utils.get_total_norm(all_grads)),
                                                rel=1e-5)


def test_the_gradient_ratio_warning_names_the_layers_the_threshold_and_a_next_step():
    # new-user pass 32: before, "... layer_043 is 8.78e-04 times that of the last layer (layer_001:
    # 3.18e-05; threshold vanishing_ratio)": the last layer unnamed, a ratio that read as a norm, the
    # threshold's value not given, no next step
    from highwaylab.callbacks.grad_norms import ratio_warning

    norms = torch.tensor([3e-7, 5e-6, 2e-2, 1e-2])  # layers 1 .. 4; layer 2 is the last one below 1e-3
    assert ratio_warning(norms, 7, 1e-3, 1e3) == (
        "highwaylab: vanishing gradients at step 7: the parameter-gradient norm of layer_002 is 5.00e-04 "
        "times the last layer's (layer_004: 1.00e-02), and layer_001's 3.00e-05 times, below "
        "callbacks.grad_norms.vanishing_ratio=0.001. Gradients fade on their way down a deep net without "
        "shortcuts (Highway Networks, sec. 1); compare model=highway or model=residual at this depth, or a "
        "smaller depth (see grad_norm/by_layer)")
    assert ratio_warning(torch.tensor([50.0, 0.01]), 3, 1e-3, 1e3) == (
        "highwaylab: exploding gradients at step 3: the parameter-gradient norm of layer_001 is 5.00e+03 "
        "times the last layer's (layer_002: 1.00e-02), above callbacks.grad_norms.exploding_ratio=1000. Try "
        "a lower optim.optimizer.lr, or clip the gradients: trainer.gradient_clip_val=1.0 (see "
        "grad_norm/by_layer)")
    # new-user pass 50: a highway net was told "without shortcuts; compare model=highway"
    assert ratio_warning(norms, 7, 1e-3, 1e3, block="highway").endswith(
        "callbacks.grad_norms.vanishing_ratio=0.001. In a highway net they reach the lower layers through "
        "the carry gates C = 1 - T, which a gate bias b_T too weak for the depth keeps shut (Training Very "
        "Deep Networks, sec. 2); try model.gate_bias=auto, or a lower (more negative) one (see "
        "grad_norm/by_layer)")
    assert "identity shortcuts" in ratio_warning(norms, 7, 1e-3, 1e3, block="residual")
    assert ratio_warning(norms, 7, 1e-3, 1e3, block="plain") == ratio_warning(norms, 7, 1e-3, 1e3)
    assert ratio_warning(torch.tensor([1e-3, 1e-2]), 3, 1e-3, 1e3) is None  # a tenth: within the range
    assert ratio_warning(torch.tensor([1e-3, 0.0]), 3, 1e-3, 1e3) is None  # no last-layer gradient


def test_the_gradient_monitor_advises_by_the_modules_own_block():
    # new-user pass 50: the monitor reads the block of the module's backbone (a highway net's advice)
    from types import SimpleNamespace

    from highwaylab.callbacks import LayerGradNormMonitor

    monitor = LayerGradNormMonitor()
    monitor.param_norms = torch.tensor([3e-7, 1e-2])
    trainer = SimpleNamespace(global_step=0, lightning_module=SimpleNamespace(
        backbone=SimpleNamespace(block="highway")))
    with pytest.warns(UserWarning, match=r"In a highway net they reach the lower layers through the carry"):
        monitor._check_ratio(trainer)


@pytest.mark.slow
def test_vanishing_gradients_warn_once_naming_the_layer(tmp_path, data_dir):
    with pytest.warns(UserWarning, match=r"vanishing gradients at step 0: .* of layer_0\d\d is"):
        fit(["model=plain", "model.activation=sigmoid", "depth=30",
             "callbacks.grad_norms.every_n_steps=1"], tmp_path)


class PoisonGradient(L.Callback):
    """From epoch 1, the gradient of layer_003's weight becomes NaN (the loss stays finite)."""

    def on_train_epoch_start(self, trainer, pl_module):
        if trainer.current_epoch == 1:
            pl_module.backbone.layers[2].proj.weight.register_hook(lambda g: g * float("nan"))


class PoisonLoss(L.Callback):
    """From epoch 1, the inputs are NaN, so the loss is NaN."""

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.current_epoch == 1:
            batch[0].fill_(float("nan"))


@pytest.mark.parametrize("poison, layer, loss", [(PoisonGradient(), "layer_003", "the loss is finite"),
                                                 (PoisonLoss(), "stem", "the loss is nan")])
@pytest.mark.slow
def test_nonfinite_guard_stops_naming_the_layer_and_keeps_the_checkpoint(
        poison, layer, loss, tmp_path, data_dir):
    with pytest.raises(NonFiniteError) as err:
        fit(["trainer.max_epochs=3"], tmp_path, extra_callbacks=[poison])
    message = str(err.value)
    assert f"first layer with a NaN/inf gradient is {layer}" in message
    assert "at step 4 (epoch 1)" in message and loss in message
    last = tmp_path / "checkpoints" / "last.ckpt"
    assert str(last) in message
    state = torch.load(last, weights_only=True)["state_dict"]
    assert state and all(torch.isfinite(v).all() for v in state.values() if v.is_floating_point())


def test_a_compiled_module_counts_its_flops_on_its_own_layers_without_torchs_warning():
    # pass 89, row 37b: module.compile=true; before, Lightning's model summary (its FLOP counter sets global
    # module hooks) ran the compiled wrapper, and torch warned that the hooks would fire an extra time
    import functools
    import warnings

    from torch.utils.flop_counter import FlopCounterMode

    from highwaylab.models import FCBackbone
    from highwaylab.module import ClassifierModule

    module = ClassifierModule(FCBackbone("highway", 3, 8, (1, 28, 28), 10), num_classes=10, compile=True,
                              optimizer=functools.partial(torch.optim.SGD, lr=0.1))
    module.setup("fit")
    assert module._compiled is not None
    x = torch.randn(2, 1, 28, 28)
    with warnings.catch_warnings(record=True) as caught, FlopCounterMode(display=False) as flops:
        warnings.simplefilter("always")
        module(x)
    assert not [w for w in caught if "global hooks" in str(w.message)]
    # FCBackbone: a stem 784 -> 8, two highway layers of 8 -> 2 x 8 (H and T), a head 8 -> 10; 2 FLOPs a
    # multiply-add, batch 2
    assert flops.get_total_flops() == 2 * 2 * (784 * 8 + 2 * 8 * 16 + 8 * 10)


@pytest.mark.slow
def test_callbacks_inspect_the_backbone_inside_torch_compile(tmp_path, data_dir):
    parts = fit(["module.compile=true", "depth=3", "width=8"], tmp_path)
    # the training forward ran compiled, through a wrapper kept out of the state dict
    assert parts.module._compiled is not None and parts.module._compiled._orig_mod is parts.module.net
    assert parts.module.backbone is parts.module.net
    assert not any("_orig_mod" in key for key in parts.module.state_dict())
    assert callback(parts.trainer, GateStatsMonitor).stats.mean.shape == (2,)
    assert callback(parts.trainer, LayerGradNormMonitor).param_norms.shape == (2,)
    assert callback(parts.trainer, CarryStripeMonitor).gates.shape == (4, 2, 8)


@pytest.mark.slow
def test_gate_stats_says_when_it_uses_fewer_examples_than_asked(tmp_path, data_dir, caplog):
    # before: num_examples above the training set's size was used as the whole set, and the figures'
    # titles said "100000 training examples" of a set of 55,000
    with caplog.at_level("INFO"):
        parts = fit(["callbacks.gate_stats.num_examples=100000", "~callbacks.lesion"], tmp_path)
    stats = callback(parts.trainer, GateStatsMonitor)
    assert len(stats._probe[0]) == 55_000
    assert any("callbacks.gate_stats.num_examples=100000 is more than the 55,000 training examples: all of "
               "them are used" in r.getMessage() for r in caplog.records)


@pytest.mark.slow
def test_lesion_says_when_it_uses_fewer_examples_than_asked(tmp_path, data_dir, caplog):
    # pass 35, row 26: before, callbacks.lesion.num_examples=100000 was cut to the 55,000 training examples
    # without a word, while gate_stats says so
    with caplog.at_level("INFO"):
        parts = fit(["callbacks.lesion.num_examples=100000", "~callbacks.gate_stats"], tmp_path)
    lesion = callback(parts.trainer, LesionMonitor)
    assert lesion.errors.shape == (len(parts.module.backbone.layers),) and 0.0 <= lesion.baseline <= 1.0
    assert [r.getMessage() for r in caplog.records if r.name == "highwaylab.callbacks.lesion"] == [
        "callbacks.lesion.num_examples=100000 is more than the 55,000 training examples: all of them are "
        "used"]


@pytest.mark.slow
def test_a_resumed_run_keeps_the_gate_and_gradient_histories(tmp_path, data_dir):
    # before: the monitors kept no state in the checkpoint, so a resumed run's gates/mean_by_step began
    # at the resume step, its "initial" profile (and gates/table's mean_T_initial) was the resume
    # point's, and grad_norm/by_step was missing until the next measurement
    whole = fit(["~callbacks.lesion", "trainer.max_epochs=2"], tmp_path / "whole")
    fit(["~callbacks.lesion", "trainer.max_epochs=1"], tmp_path / "cut")
    parts = build(compose_cfg(ANALYSIS + ["~callbacks.lesion", "trainer.max_epochs=2"], tmp_path / "resumed"))
    parts.trainer.fit(parts.module, datamodule=parts.datamodule,
                      ckpt_path=tmp_path / "cut" / "checkpoints" / "last.ckpt")
    for cls, names in ((GateStatsMonitor, ("history", "bias_history")),
                       (LayerGradNormMonitor, ("param_history", "input_history"))):
        expected, resumed = callback(whole.trainer, cls), callback(parts.trainer, cls)
        for name in names:
            assert getattr(resumed, name).steps == getattr(expected, name).steps, (cls.__name__, name)
            torch.testing.assert_close(torch.from_numpy(getattr(resumed, name).array()),
                                       torch.from_numpy(getattr(expected, name).array()))
    assert callback(parts.trainer, GateStatsMonitor).history.steps == [0, 2, 3, 4, 6, 7]
    steps = sorted(int(p.stem.split("_")[1]) for p in (tmp_path / "resumed" / "figures" / "grad_norm_by_step")
                   .glob("*.png"))
    assert steps == [7]  # drawn at the resumed run's only epoch end
    with next((tmp_path / "resumed" / "figures" / "gates_table").glob("*.csv")).open() as f:
        table = list(csv.DictReader(f))
    initial = callback(whole.trainer, GateStatsMonitor).history.initial.tolist()
    assert [float(r["mean_T_initial"]) for r in table] == pytest.approx(initial, rel=1e-6)


@pytest.mark.slow
def test_a_resumed_run_measures_gradient_norms_at_its_first_step(tmp_path, data_dir):
    # breaking pass 22, row 32: before, a run resumed at step 4 with every_n_steps=200 measured at no
    # step (step 0 and every 200 only), so it logged no grad_norm/ key and drew no grad_norm/ figure
    options = [o for o in ANALYSIS if not o.startswith("callbacks.grad_norms.")] + [
        "~callbacks.lesion", "callbacks.grad_norms.every_n_steps=200"]
    fit_cut = build(compose_cfg(options + ["trainer.max_epochs=1"], tmp_path / "cut"))
    fit_cut.trainer.fit(fit_cut.module, datamodule=fit_cut.datamodule)
    parts = build(compose_cfg(options + ["trainer.max_epochs=2"], tmp_path / "resumed"))
    parts.trainer.fit(parts.module, datamodule=parts.datamodule,
                      ckpt_path=tmp_path / "cut" / "checkpoints" / "last.ckpt")
    steps = [int(r["step"]) for r in logged_rows(tmp_path / "resumed") if r.get("grad_norm/global")]
    assert steps == [4]  # the resumed part's first step (steps 4 .. 7)
    assert callback(parts.trainer, LayerGradNormMonitor).param_history.steps == [0, 4]
    figures = sorted(p.name for p in (tmp_path / "resumed" / "figures" / "grad_norm_by_layer").glob("*.png"))
    assert figures == ["step_0000007.png"]


@pytest.mark.slow
def test_a_class_without_an_example_is_a_named_empty_panel_and_a_warning(tmp_path, data_dir, monkeypatch):
    # breaking pass 22, row 8: before, class_examples=3 drew 7 of the 10 class panels blank white (on
    # the RdBu scale also "difference 0"), titled "class 0" .. "class 9", with no warning
    from highwaylab.callbacks import carry_stripes

    drawn = []

    def layer_maps(*args, **kwargs):
        fig = carry_stripes.layer_maps.__wrapped__(*args, **kwargs)
        drawn.append([(ax.get_title(), len(ax.images)) for ax in fig.axes if ax.get_visible()][:len(args[0])])
        return fig

    layer_maps.__wrapped__ = carry_stripes.layer_maps
    monkeypatch.setattr(carry_stripes, "layer_maps", layer_maps)
    options = [o for o in ANALYSIS if not o.startswith("callbacks.carry_stripes.")]
    parts = build(compose_cfg(options + ["~callbacks.lesion", "callbacks.carry_stripes.class_examples=3"],
                              tmp_path))
    with pytest.warns(UserWarning) as record:
        parts.trainer.fit(parts.module, datamodule=parts.datamodule)
    panels = drawn[-1]  # gates/class_difference, drawn last: (title, images in the panel)
    assert panels[:2] == [("class 0: no examples", 0), ("class 1 (n=1)", 1)]
    counts = callback(parts.trainer, CarryStripeMonitor).class_counts.tolist()
    assert counts == [0, 1, 0, 0, 1, 0, 0, 0, 1, 0]  # the 3 examples of seed 0: classes 1, 4 and 8
    assert panels == [(f"class {c} (n={n})", 1) if n else (f"class {c}: no examples", 0)
                      for c, n in enumerate(counts)]
    warnings = [str(w.message) for w in record if "class_examples" in str(w.message)]
    assert warnings == ["callbacks.carry_stripes.class_examples=3 leaves classes 0, 2, 3, 5, 6, 7, 9 without "
                        "an example: their panels of gates/class_difference are empty; give at least 10 (one "
                        "per class), e.g. callbacks.carry_stripes.class_examples=1000 (the default)"]


def test_a_layer_history_round_trips_through_its_state():
    from highwaylab.analysis.history import LayerHistory

    history = LayerHistory()
    history.add(0, torch.tensor([0.1, float("nan"), 0.3]))
    history.add(5, torch.tensor([0.2, float("nan"), 0.4]))
    state = history.state_dict()
    assert state["steps"] == [0, 5] and tuple(state["values"].shape) == (2, 3)
    restored = LayerHistory()
    restored.load_state_dict(state)
    assert restored.steps == [0, 5]
    torch.testing.assert_close(torch.from_numpy(restored.array()), torch.from_numpy(history.array()),
                               equal_nan=True)
    with pytest.raises(ValueError, match="a layer history of 3 steps holds 2 rows of values"):
        restored.load_state_dict({"steps": [0, 5, 9], "values": state["values"]})


def test_relu_stripes_use_the_whole_colour_scale_and_signed_ones_centre_on_zero():
    # before: every stripes/outputs map was centred on 0, so a ReLU net's (never negative) outputs
    # used half of the scale (-11 .. +11 for outputs in 0 .. 11)
    from highwaylab.callbacks.carry_stripes import output_scale

    relu = torch.tensor([[[0.0, 2.5], [11.0, 0.3]]])  # (K, L, D)
    assert output_scale(relu) == {"cmap": "viridis", "vmin": 0.0, "vmax": 11.0}
    signed = torch.tensor([[[-0.5, 0.25], [0.75, float("nan")]]])
    assert output_scale(signed) == {"cmap": "RdBu_r", "vmin": -0.75, "vmax": 0.75}
    assert output_scale(torch.zeros(1, 2, 2)) == {"cmap": "viridis", "vmin": 0.0, "vmax": 1.0}


@pytest.mark.parametrize("precision", ["64-true", "bf16-true"])
def test_the_analysis_callbacks_run_at_each_true_precision(precision, tmp_path, data_dir):
    # pass 71, rows 41-42 (major): the probe examples stayed float32 while the weights were float64 or
    # bfloat16; before, a dtype-mismatch traceback at the first step (and numpy refused bfloat16)
    from highwaylab.callbacks import CarryStripeMonitor, GateStatsMonitor, LayerGradNormMonitor, LesionMonitor

    parts = fit([f"trainer.precision={precision}"], tmp_path)
    dtype = {"64-true": torch.float64, "bf16-true": torch.bfloat16}[precision]
    assert next(parts.module.backbone.parameters()).dtype == dtype
    gates = callback(parts.trainer, GateStatsMonitor)
    assert gates.stats.mean.dtype == torch.float32 and torch.isfinite(gates.stats.mean).all()
    assert callback(parts.trainer, CarryStripeMonitor).gates.shape[:2] == (4, 3)  # 4 examples x 3 layers
    assert torch.isfinite(callback(parts.trainer, LayerGradNormMonitor).param_norms).all()
    assert len(callback(parts.trainer, LesionMonitor).errors) == 3
