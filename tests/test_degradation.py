"""Degradation is reported, and fast: carry product, chance warning, optimiser arguments, denormals."""

import functools
import logging
import math
import subprocess
import sys

import lightning as L
import pytest
import torch
import torch.nn.functional as F

from highwaylab.callbacks import ChanceWarning
from highwaylab.errors import ConfigError
from highwaylab.models import ConvBackbone, FCBackbone
from highwaylab.models.carry import carry_product, check_carry
from highwaylab.module import ClassifierModule
from highwaylab.train import build
from highwaylab.utils import user_error

from .conftest import TINY, compose_cfg

BARE = [o for o in TINY if not o.startswith("~callbacks")] + ["callbacks=none"]


def fc(block="highway", depth=50, **kwargs):
    return FCBackbone(block, depth=depth, width=8, input_shape=784, num_classes=10, **kwargs)


# --- carry product at initialisation [TVDN sec. 3, 4.1] ---

def test_carry_product_of_a_closed_and_an_open_highway_stack():
    closed = carry_product(fc(depth=50, gate_bias=-1))
    assert closed == pytest.approx((1 - 1 / (1 + math.exp(1))) ** 49, rel=1e-9)  # 0.731^49
    assert 2.1e-7 < closed < 2.2e-7
    # auto at depth 100: b_T = -ln(99), 1 - sigmoid(b_T) = 0.99 exactly (up to float32 rounding of b_T)
    assert carry_product(fc(depth=100, gate_bias="auto")) == pytest.approx(0.99**99, rel=1e-5)  # 0.3697
    paper = carry_product(fc(depth=100, gate_bias=-2))
    assert paper == pytest.approx((1 / (1 + math.exp(-2))) ** 99, rel=1e-6)  # 0.881^99 = 3.5e-6


def test_carry_product_uses_each_layers_actual_mean_bias_and_conv_highway_layers():
    net = fc(depth=3, gate_bias=-1)
    with torch.no_grad():
        net.layers[0].transform_bias.copy_(torch.tensor([-1.0, -3.0] * 4))  # mean -2
        net.layers[1].transform_bias.fill_(-4.0)
    expected = (1 / (1 + math.exp(-2))) * (1 / (1 + math.exp(-4)))
    assert carry_product(net) == pytest.approx(expected, rel=1e-6)
    # conv: 3 + 2 highway layers; the plain transition between the stages (8 -> 16 channels) carries nothing
    conv = ConvBackbone("highway", stages=[{"channels": 8, "layers": 3}, {"channels": 16, "layers": 2}],
                        input_shape=(1, 28, 28), num_classes=10, gate_bias=-2)
    assert sum(layer.has_gate for layer in conv.layers) == 5 and len(conv.layers) == 6
    assert carry_product(conv) == pytest.approx((1 / (1 + math.exp(-2))) ** 5, rel=1e-6)


def test_check_carry_warns_below_1e_3_naming_gate_bias_and_the_auto_value():
    warning = check_carry(fc(depth=50, gate_bias=-1), 50)
    assert warning is not None
    assert "model.gate_bias=-1 " in warning and "2.2e-07" in warning
    assert "model.gate_bias=auto (-3.892 at depth 50)" in warning  # -ln(49)
    assert check_carry(fc(depth=100, gate_bias="auto"), 100) is None  # 0.37
    assert check_carry(fc(depth=100, gate_bias=-2), 100) is not None  # 3.5e-6: the paper's -2 at depth 100
    assert check_carry(fc(depth=10, gate_bias=-1), 10) is None  # 0.731^9 = 0.06
    conv = ConvBackbone("highway", stages=[{"channels": 8, "layers": 12}], input_shape=(1, 28, 28),
                        num_classes=10, gate_bias=-0.5)  # 0.62^12 = 3e-3: no warning; -0.2: 0.55^12 = 7e-4
    assert check_carry(conv) is None
    conv_closed = ConvBackbone("highway", stages=[{"channels": 8, "layers": 12}], input_shape=(1, 28, 28),
                               num_classes=10, gate_bias=-0.2)
    assert "model.gate_bias=auto (-1.000 at depth 13)" in check_carry(conv_closed)


def test_check_carry_warns_when_the_transform_gates_are_shut():
    # pass 27, row 42: before, model.gate_bias=-1e9 ran without a word, and every highway layer got an
    # exactly zero gradient: only the stem and the head trained
    torch.manual_seed(0)
    net = fc(depth=5, gate_bias=-1e9)
    F.cross_entropy(net(torch.randn(16, 784)), torch.randint(0, 10, (16,))).backward()
    assert [float(p.grad.norm()) for n, p in net.named_parameters() if n.startswith("layers.")] == [0.0] * 8
    assert float(net.stem[1].weight.grad.norm()) > 0  # the stem and head do train
    assert check_carry(net) == (
        "model.gate_bias=-1e+09 closes the transform gates: at initialisation T = sigmoid(b_T) = 0.0e+00 or "
        "less in every highway layer (below 1e-06), and the gradients of the layers' H and T weights scale "
        "with T and T(1 - T), so the 4 highway layers would not train (only the stem and head would). Fix: "
        "model.gate_bias=auto (-1.386 at depth 5), or a value in the paper's range, -1 .. -10")
    assert check_carry(fc(depth=5, gate_bias=-10)) is None  # the paper's most closed: T = 4.5e-5


def test_check_carry_is_none_without_highway_layers():
    assert check_carry(fc("plain", depth=50), 50) is None
    assert check_carry(fc("residual", depth=50), 50) is None
    with pytest.raises(ValueError):
        carry_product(fc("plain", depth=50))


# --- chance warning ---

class LossRecorder(L.Callback):
    def __init__(self):
        self.losses = []

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.losses.append(float(outputs["loss"]))


def fit_watching_chance(overrides, tmp_path, caplog, steps=20):
    parts = build(compose_cfg(BARE + [f"trainer.limit_train_batches={steps}", "trainer.limit_val_batches=0",
                                      "trainer.num_sanity_val_steps=0", *overrides], tmp_path))
    warning, recorder = ChanceWarning(steps=steps, tolerance=0.01), LossRecorder()
    parts.trainer.callbacks.extend([warning, recorder])
    with caplog.at_level(logging.WARNING, logger="highwaylab.callbacks.chance"):
        parts.trainer.fit(parts.module, datamodule=parts.datamodule)
    records = [r for r in caplog.records if r.name == "highwaylab.callbacks.chance"]
    return warning, recorder.losses, records


@pytest.mark.slow
def test_chance_warning_fires_once_for_a_deep_plain_stack_at_chance(tmp_path, data_dir, caplog):
    warning, losses, records = fit_watching_chance(["model=plain", "depth=60", "model.activation=sigmoid"],
                                                   tmp_path, caplog)
    assert len(losses) == 20
    assert min(losses) >= 0.99 * math.log(10) and max(losses) < 2.45  # it does sit at chance (2.303)
    assert len(records) == 1 and records[0].levelno == logging.WARNING
    message = records[0].getMessage()
    assert message == warning.message
    assert "sits at chance" in message and "first 20 batches" in message
    assert "depth without shortcuts: model=plain at depth 60 (59 plain layers after the stem)" in message
    assert "model=highway or model=residual" in message


@pytest.mark.slow
def test_chance_warning_names_the_gate_bias_of_a_closed_highway_stack(tmp_path, data_dir, caplog):
    warning, losses, records = fit_watching_chance(["depth=50", "model.gate_bias=-1"], tmp_path, caplog)
    assert min(losses) >= 0.99 * math.log(10)
    assert len(records) == 1
    assert "model.gate_bias=-1 at depth 50" in warning.message
    assert "carry product of 2.2e-07" in warning.message
    assert "Use model.gate_bias=auto, -max(1, ln(depth - 1)) = -3.892 here." in warning.message


@pytest.mark.slow
def test_chance_warning_is_silent_for_a_learning_highway_net(tmp_path, data_dir, caplog):
    warning, losses, records = fit_watching_chance([], tmp_path, caplog)  # depth 4, auto gate bias
    assert min(losses) < 0.9 * math.log(10)  # it learns
    assert warning.message is None and records == []


def test_chance_warning_is_in_the_default_callbacks_and_can_be_switched_off(tmp_path):
    cfg = compose_cfg(["trainer=cpu"], tmp_path)
    assert cfg.callbacks.chance_warning.steps == 300 and cfg.callbacks.chance_warning.tolerance == 0.01
    for group in ("minimal", "analysis"):
        assert "chance_warning" in compose_cfg([f"callbacks={group}"], tmp_path).callbacks
    assert "chance_warning" not in compose_cfg(["~callbacks.chance_warning"], tmp_path).callbacks
    with pytest.raises(ConfigError, match="callbacks.chance_warning.steps"):
        ChanceWarning(steps=0)


# --- optimiser and scheduler arguments, refused at construction ---

def build_error(overrides, tmp_path) -> Exception:
    with pytest.raises(Exception) as err:
        build(compose_cfg(BARE + overrides, tmp_path))
    found = user_error(err.value)  # Hydra's instantiate wraps it
    assert isinstance(found, ConfigError), repr(err.value)
    return found


@pytest.mark.parametrize("gamma", ["-1", "1.5", "0"])
def test_scheduler_gamma_outside_0_1_is_refused(gamma, tmp_path, data_dir):
    message = str(build_error([f"optim.scheduler.gamma={gamma}"], tmp_path))
    assert message.startswith(f"optim.scheduler.gamma={gamma} is outside (0, 1]")
    assert "Fix: a decay factor such as optim.scheduler.gamma=0.6" in message


def test_a_negative_polynomial_power_is_refused_before_training(tmp_path, data_dir):
    # breaking pass 62, row 19 (major): before, the rate rose every epoch, then a ZeroDivisionError
    # traceback at epoch total_iters
    poly = ["optim.scheduler._target_=torch.optim.lr_scheduler.PolynomialLR", "~optim.scheduler.gamma"]
    assert str(build_error([*poly, "+optim.scheduler.power=-1"], tmp_path)) == (
        "optim.scheduler.power=-1 is negative: the scheduler multiplies the learning rate by (1 - t / "
        "total_iters) ** power, which then grows every epoch, and fails (0 to a negative power) at epoch "
        "total_iters (5). Fix: e.g. optim.scheduler.power=1.0 (a linear decay to 0)")
    parts = build(compose_cfg(BARE + [*poly, "+optim.scheduler.power=1.0"], tmp_path / "fixed"))
    assert parts.module.scheduler.keywords["power"] == 1.0


def test_an_optimiser_that_climbs_the_loss_is_refused(tmp_path, data_dir):
    # pass 86, row 49: before, maximize=true ran to below chance (val/acc 0.059) and exited 0
    assert str(build_error(["+optim.optimizer.maximize=true"], tmp_path)) == (
        "optim.optimizer.maximize=true makes the optimiser climb the loss, so the run would train away from "
        "its labels (below chance). Fix: leave it out (false)")
    build(compose_cfg(BARE + ["+optim.optimizer.maximize=false"], tmp_path / "fixed"))


def test_a_scheduler_that_needs_a_function_is_refused_with_a_fix_a_command_line_can_give(tmp_path, data_dir):
    # breaking pass 62, row 17: before, "add it: +optim.scheduler.lr_lambda=<value>", refused in turn for
    # every value ("'float' object is not callable")
    message = str(build_error(["optim.scheduler._target_=torch.optim.lr_scheduler.LambdaLR",
                               "~optim.scheduler.gamma"], tmp_path))
    assert message == (
        "optim.scheduler._target_=torch.optim.lr_scheduler.LambdaLR needs lr_lambda, a Python function, "
        "which a command line cannot give. Fix: a scheduler of numbers (e.g. "
        "optim.scheduler._target_=torch.optim.lr_scheduler.LinearLR, or optim=sgd_step), or a config file "
        "of your own (--config-dir) whose lr_lambda is built by a _target_")
    build(compose_cfg(BARE + ["optim=sgd_step"], tmp_path / "fixed"))  # a fix it offers
    # pass 84, row 45: the example fix removes the preset's gamma, which LinearLR does not take; before, the
    # example alone was refused in turn
    message = str(build_error(["optim.scheduler._target_=torch.optim.lr_scheduler.ChainedScheduler"],
                              tmp_path / "chained"))
    assert message.endswith("Fix: a scheduler of numbers (e.g. "
                            "optim.scheduler._target_=torch.optim.lr_scheduler.LinearLR "
                            "'~optim.scheduler.gamma', or optim=sgd_step)"), message
    build(compose_cfg(BARE + ["optim.scheduler._target_=torch.optim.lr_scheduler.LinearLR",
                              "~optim.scheduler.gamma"], tmp_path / "linear"))  # that fix works
    # pass 83, row 79: the preset's gamma kept, which MultiplicativeLR does not take; before, "remove it
    # (~optim.scheduler.gamma)" first, then this refusal
    message = str(build_error(["optim.scheduler._target_=torch.optim.lr_scheduler.MultiplicativeLR"],
                              tmp_path / "multiplicative"))
    assert message.startswith("optim.scheduler._target_=torch.optim.lr_scheduler.MultiplicativeLR needs "
                              "lr_lambda, a Python function, which a command line cannot give. Fix: a "
                              "scheduler of numbers"), message
    message = str(build_error(["optim.scheduler._target_=torch.optim.lr_scheduler.SequentialLR",  # pass 63,
                               "~optim.scheduler.gamma"], tmp_path / "sequential"))  # row 16
    assert message == (
        "optim.scheduler._target_=torch.optim.lr_scheduler.SequentialLR needs schedulers, schedulers built "
        "on the run's optimiser, which a command line cannot give. Fix: a scheduler of numbers (e.g. "
        "optim.scheduler._target_=torch.optim.lr_scheduler.LinearLR, or optim=sgd_step)")


def test_a_step_size_of_zero_is_refused_before_training(tmp_path, data_dir):
    # breaking pass 63, row 15 (major): before, epoch 0 trained, then a ZeroDivisionError traceback in
    # scheduler.step(), the epoch lost
    step = ["optim.scheduler._target_=torch.optim.lr_scheduler.StepLR", "+optim.scheduler.step_size=0"]
    assert str(build_error(step, tmp_path)) == (
        "optim.scheduler.step_size=0 must be an integer >= 1 (StepLR decays the rate every step_size "
        "epochs). Fix: e.g. optim.scheduler.step_size=30")


def test_an_empty_ckpt_path_is_refused_before_the_run_folder():
    # breaking pass 63, row 5 (major): before, Lightning's traceback ("found no path for the best weights")
    from highwaylab.utils.resume import ResumeError, rewrite_argv

    from .conftest import ROOT

    for given in ("ckpt_path=", "ckpt_path=''"):
        with pytest.raises(ResumeError) as err:
            rewrite_argv(["train.py", "depth=3", given], ROOT / "conf")
        assert str(err.value) == ("ckpt_path= is empty: give the path of a .ckpt file (e.g. ckpt_path="
                                  "outputs/runs/<run>/checkpoints/last.ckpt), or leave ckpt_path out for a "
                                  "new run")


@pytest.mark.parametrize(("given", "fetch"), [
    ("https://example.com/model.ckpt", "download it first (e.g. curl -fLo model.ckpt "
                                       "https://example.com/model.ckpt)"),
    ("s3://bucket/model.ckpt", "copy it to this machine first"),
])
def test_a_url_as_ckpt_path_is_refused_naming_the_file_to_give(given, fetch):
    # pass 74, row 38: before, "ckpt_path=https://example.com/model.ckpt: https:/example.com/model.ckpt does
    # not exist" (the URL read as a path)
    from highwaylab.utils.resume import ResumeError, rewrite_argv

    from .conftest import ROOT

    with pytest.raises(ResumeError) as err:
        rewrite_argv(["train.py", "depth=3", f"ckpt_path={given}"], ROOT / "conf")
    assert str(err.value) == (f"ckpt_path={given} is a URL, and a run reads its checkpoint from a file on "
                              f"this machine. Fix: {fetch}, then give the file: ckpt_path=model.ckpt")


def test_scheduler_gamma_1_is_accepted_and_refusal_comes_before_training(tmp_path, data_dir):
    parts = build(compose_cfg(BARE + ["optim.scheduler.gamma=1"], tmp_path))
    assert parts.module.scheduler.keywords["gamma"] == 1
    with pytest.raises(ConfigError, match=r"^optim.scheduler.gamma=-1 is outside"):  # the module alone
        ClassifierModule(torch.nn.Linear(4, 3), num_classes=3,
                         optimizer=functools.partial(torch.optim.SGD, lr=0.1),
                         scheduler=functools.partial(torch.optim.lr_scheduler.ExponentialLR, gamma=-1))


@pytest.mark.parametrize("key, value", [("optimizer.lr", "abc"), ("optimizer.momentum", "x"),
                                        ("optimizer.weight_decay", "lots"), ("scheduler.gamma", "half")])
def test_numeric_optimiser_arguments_given_as_strings_are_refused_by_name(key, value, tmp_path, data_dir):
    message = str(build_error([f"optim.{key}={value}"], tmp_path))
    assert message.startswith(f"optim.{key}='{value}' must be a number")


# --- flushing subnormal numbers ---

FLUSH_IN_A_FRESH_PROCESS = """
import torch
import torch.nn.functional as F
from highwaylab.utils.numerics import configure_denormals, flushes_denormals
torch.set_num_threads(2)
assert configure_denormals(True) is True  # x86 with SSE3
assert float(torch.tensor(1e-40) * 1) == 0.0  # this thread
assert flushes_denormals()  # and the worker threads started after it
assert configure_denormals(False) is True
assert abs(float(torch.tensor(1e-40) * 1) - 1e-40) < 1e-43  # a subnormal float32 again
print("ok")
"""


@pytest.mark.slow
def test_configure_denormals_flushes_subnormals_in_every_thread_and_restores():
    # in a fresh process, as train.py calls it: before PyTorch's worker threads start
    proc = subprocess.run([sys.executable, "-c", FLUSH_IN_A_FRESH_PROCESS], capture_output=True, text=True)
    assert proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_chance_warning_judges_the_mean_of_the_last_quarter_not_every_batch():
    # new-user pass: the README's model=plain depth=100 model.activation=sigmoid sat at chance (2.314), but
    # two of its first 300 batch losses fell 0.2% below ln(10) - 1% (2.2759 at step 213), and the warning,
    # which wanted every batch at or above it, never came
    from types import SimpleNamespace

    import torch

    trainer = SimpleNamespace(accumulate_grad_batches=1, is_global_zero=True)
    module = SimpleNamespace(block="plain", depth=100, layers=[None] * 99)

    def judged(losses):
        warning = ChanceWarning(steps=len(losses), tolerance=0.01)
        warning._start = ([], None)
        for i, loss in enumerate(losses):
            warning.on_train_batch_end(trainer, module, {"loss": torch.tensor(loss)}, None, i)
        return warning.message

    stuck = [2.31] * 20
    stuck[16] = stuck[18] = 2.2759  # noise below the bound (2.2796), at chance all the same
    assert judged(stuck).startswith(
        "The run sits at chance: the training loss of the last 5 of the first 20 batches averaged 2.296, at "
        "or above 2.280 (ln(10) = 2.303 minus 1%; lowest 2.276, mean 2.307). Likely cause: depth without "
        "shortcuts: model=plain at depth 100 (99 plain layers after the stem)")
    assert judged([2.31] * 15 + [1.9] * 5) is None  # it left chance at the end: learning
