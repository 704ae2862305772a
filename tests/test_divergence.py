"""A diverged run is never reported as ok: non-finite losses end the run, evaluation keeps NaN."""

import functools
import math

import lightning as L
import pytest
import torch

from highwaylab.callbacks import NonFiniteGuard
from highwaylab.errors import HighwaylabError, NonFiniteError
from highwaylab.module import ClassifierModule
from highwaylab.train import build, train
from highwaylab.utils import user_error

from .conftest import TINY, compose_cfg

BARE = [o for o in TINY if not o.startswith("~callbacks")] + ["callbacks=none"]  # no guard, no checkpoint


def all_finite(module) -> bool:
    return all(torch.isfinite(p).all() for p in module.parameters())


def test_diverged_run_without_callbacks_fails_naming_train_loss(tmp_path, data_dir):
    # lr 1e38: the first step (gradient clipped to norm 1) sends the weights to ~1e37; step 1's
    # logits overflow. MeanMetric(nan_strategy="warn") used to drop the NaN: train/loss 2.30, "ok".
    cfg = compose_cfg(BARE + ["optim.optimizer.lr=1e38"], tmp_path)
    with pytest.raises(NonFiniteError) as err:
        train(cfg)
    message = str(err.value)
    assert isinstance(err.value, HighwaylabError) and user_error(err.value) is err.value  # train.py: exit 1
    assert message.startswith("train/loss is nan at step 1 (epoch 0):")
    assert "optim.optimizer.lr (now 1e+38)" in message
    assert not (tmp_path / "metrics.json").exists()  # no result of a diverged run


class PoisonInput(L.Callback):
    """NaN inputs from step ``at`` on: the loss is NaN there, the gradients of that step too."""

    def __init__(self, at: int) -> None:
        self.at = at
        self.weights_before: list[torch.Tensor] = []

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_step == self.at:
            self.weights_before = [p.detach().clone() for p in pl_module.parameters()]
            batch[0].fill_(float("nan"))


def test_nan_loss_is_refused_before_the_optimizer_step_without_the_guard(tmp_path, data_dir):
    parts = build(compose_cfg(BARE, tmp_path))
    poison = PoisonInput(at=2)
    parts.trainer.callbacks.append(poison)
    assert not any(isinstance(cb, NonFiniteGuard) for cb in parts.trainer.callbacks)
    with pytest.raises(NonFiniteError, match=r"^train/loss is nan at step 2 \(epoch 0\)"):
        parts.trainer.fit(parts.module, datamodule=parts.datamodule)
    assert parts.trainer.global_step == 2  # the bad step was not applied ...
    after = [p.detach() for p in parts.module.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(after, poison.weights_before, strict=True))  # ... at all
    assert all_finite(parts.module)


def test_nan_loss_metrics_are_not_averaged_away(data_dir):
    module = ClassifierModule(torch.nn.Linear(4, 3), num_classes=3,
                              optimizer=functools.partial(torch.optim.SGD, lr=0.1))
    for stage in ("train", "val", "test"):
        metric = module.losses[f"{stage}_loss"]
        metric.update(torch.tensor(1.0), weight=10)
        metric.update(torch.tensor(float("nan")), weight=10)
        assert math.isnan(float(metric.compute())), stage  # "warn" gave 1.0


class PoisonWeightsBeforeValidation(L.Callback):
    """After the training batches of epoch 0, before validation: a NaN weight (the last step diverged)."""

    def on_validation_start(self, trainer, pl_module):
        if not trainer.sanity_checking:
            with torch.no_grad():
                pl_module.backbone.head.weight[0, 0] = float("nan")


def test_nan_validation_loss_fails_the_run(tmp_path, data_dir):
    parts = build(compose_cfg(BARE, tmp_path))
    parts.trainer.callbacks.append(PoisonWeightsBeforeValidation())
    with pytest.raises(NonFiniteError, match=r"^val/loss is nan after step 4 \(epoch 0\)"):
        parts.trainer.fit(parts.module, datamodule=parts.datamodule)


class PoisonSecondTestBatch(L.Callback):
    def on_test_batch_start(self, trainer, pl_module, batch, batch_idx, dataloader_idx=0):
        if batch_idx == 1:
            batch[0][0].fill_(float("nan"))  # one example of the second batch


def test_nan_test_loss_is_reported_as_nan(tmp_path, data_dir):
    parts = build(compose_cfg(BARE + ["trainer.max_epochs=0"], tmp_path))
    parts.trainer.callbacks.append(PoisonSecondTestBatch())
    parts.trainer.test(parts.module, datamodule=parts.datamodule)  # 2 batches; the first is finite
    assert math.isnan(float(parts.trainer.callback_metrics["test/loss"]))  # "warn" averaged batch 1 alone


class InfLossModule(ClassifierModule):
    """The cross-entropy plus a constant +inf: the loss is inf, every gradient stays finite."""

    def training_step(self, batch, batch_idx):
        return super().training_step(batch, batch_idx) + torch.tensor(float("inf"))


class HugeGradientModule(ClassifierModule):
    """The cross-entropy times 1e30: finite loss and gradient entries, whose global norm overflows."""

    def training_step(self, batch, batch_idx):
        return super().training_step(batch, batch_idx) * 1e30


@pytest.mark.parametrize("module_cls, words", [
    (InfLossModule, "Non-finite loss at step 0 (epoch 0): the loss is inf (train/loss) and every "
                    "gradient is finite: only the loss is non-finite."),
    (HugeGradientModule, "Non-finite gradient at step 0 (epoch 0): the loss and every gradient entry "
                         "are finite, but the gradients' global norm overflows to inf"),
])
def test_guard_message_says_what_is_non_finite_without_contradiction(module_cls, words, tmp_path, data_dir):
    parts = build(compose_cfg(BARE, tmp_path))
    module = module_cls(net=parts.module.net, num_classes=10, optimizer=parts.module.optimizer,
                        scheduler=parts.module.scheduler)
    parts.trainer.callbacks.append(NonFiniteGuard())
    with pytest.raises(NonFiniteError) as err:
        parts.trainer.fit(module, datamodule=parts.datamodule)
    message = str(err.value)
    assert message.startswith(words)
    assert "is none" not in message and "the loss is finite; " not in message  # the old contradiction
    assert all_finite(module)


def test_a_finite_but_diverging_loss_warns_with_the_learning_rate(tmp_path, data_dir, caplog):
    # breaking pass 61, row 52: before, lr 1e9 without the non-finite guard reached a loss of 2.6e31 and
    # ended with exit 0 and no word; the epoch line printed it with 32 digits
    # lr 1e3: a loss of about 2e6 after 5 steps, far from float32's overflow on any thread count (1e9
    # reached inf under CI's two threads)
    cfg = compose_cfg(BARE + ["optim.optimizer.lr=1e3", "trainer.limit_train_batches=5"], tmp_path)
    with caplog.at_level("WARNING", logger="highwaylab.module.classifier"):
        metrics = train(cfg)
    loss = metrics["train/loss"]
    assert math.isfinite(loss) and loss > 100 * math.log(10)
    warned = [r.getMessage() for r in caplog.records if "diverging" in r.getMessage()]
    assert warned == [
        f"highwaylab: train/loss is {loss:.4g} at the end of epoch 0 (step 5), "
        f"{loss / math.log(10):.3g} times the loss of chance (ln 10 = 2.303): the run is diverging, though "
        f"its loss is still finite. Fix: lower optim.optimizer.lr (it is 1000), or keep "
        f"trainer.gradient_clip_val set"]
    caplog.clear()
    with caplog.at_level("WARNING", logger="highwaylab.module.classifier"):  # a run that learns: no word
        train(compose_cfg(BARE + ["trainer.limit_train_batches=5"], tmp_path / "ok"))
    assert not [r for r in caplog.records if "diverging" in r.getMessage()]


def test_the_epoch_line_writes_huge_values_in_four_significant_digits():
    from highwaylab.callbacks.epoch_log import _number

    assert (_number(2.6086484224286258e31), _number(123456.789), _number(2.5e-5)) == (
        "2.609e+31", "123456.7890", "2.5e-05")
