"""The LightningModule: a backbone trained with cross-entropy, optimiser and scheduler from the config."""

from __future__ import annotations

import functools
import inspect
import logging
import math
import numbers
import warnings
from collections.abc import Callable, Sequence

import torch
from lightning import LightningModule
from omegaconf import DictConfig, ListConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException
from torch import Tensor, nn
from torchmetrics import MaxMetric, MeanMetric, SumMetric
from torchmetrics.classification import MulticlassAccuracy

from highwaylab.config_checks import NUMERIC_ARGS, as_given
from highwaylab.config_checks import OPTIM_EXAMPLES as _EXAMPLES
from highwaylab.errors import ConfigError, HighwaylabError, NonFiniteError
from highwaylab.trainer_checks import CHOICE_KEYS, accumulation_past_epoch, min_steps_unreachable
from highwaylab.utils.loggers import cli_text

log = logging.getLogger(__name__)

# an epoch's mean training loss this many times the loss of chance, ln(classes), is a diverging run's
DIVERGED_FACTOR = 100.0


def _global_module_hooks() -> bool:
    """Whether a global forward or backward hook is set on every ``nn.Module`` (torch's
    ``register_module_forward_hook`` and the like: the FLOP counter of Lightning's model summary), by
    the test that ``torch.compile`` warns on (``torch.nn.modules.module._has_any_global_hook``)."""
    return bool(getattr(torch.nn.modules.module, "_has_any_global_hook", lambda: False)())


class ClassifierModule(LightningModule):
    """Trains ``net`` (``(N, ...) -> (N, num_classes)`` logits) with cross-entropy.

    Logged keys (per epoch, synchronised across processes by torchmetrics): ``train/loss``,
    ``train/acc``, ``val/loss``, ``val/acc``, ``val/acc_best``, ``test/loss``, ``test/acc``;
    and ``train/loss_step`` every ``trainer.log_every_n_steps`` steps (averaged over processes).
    Losses are in nats per example, accuracies are fractions in [0, 1]. A NaN or inf loss is never
    averaged away: the loss metrics keep NaN (``nan_strategy=float("nan")``), and

    - a non-finite training loss raises :class:`~highwaylab.errors.NonFiniteError` naming
      ``train/loss``, the step and the fix, before that step's optimizer step, with or without
      callbacks (the module's ``on_before_optimizer_step`` runs after the callbacks' hook of the
      same name, so that ``NonFiniteGuard``, if present, reports it first, naming the layer).
      Cost: one ``isfinite(loss).item()`` per training step, a host sync: nothing on a CPU; on a
      GPU it is taken after the backward pass has been queued (the host then waits for the
      backward pass before it queues the optimizer step: one fewer step of run-ahead);
    - a non-finite ``val/loss`` at the end of a validation epoch raises ``NonFiniteError`` naming
      ``val/loss`` (the weights diverged at the last steps, or the validation data holds NaN);
    - ``test/loss`` is reported as it is, NaN included.

    ``val_examples`` and ``test_examples``: the examples the last validation and the test counted,
    over all processes (fewer than the set's with ``trainer.limit_val_batches`` /
    ``limit_test_batches``); ``None`` before one ran.

    Args:
        net: the backbone, e.g. :class:`highwaylab.models.FCBackbone`.
        num_classes: number of classes.
        optimizer: a partial optimiser, called with the parameters (Hydra ``_partial_: true``).
        scheduler: a partial LR scheduler called with the optimiser, or ``None``.
        scheduler_interval: ``"epoch"`` or ``"step"``: when the scheduler steps.
        compile: run ``net`` through ``torch.compile`` at fit time. The compiled callable is kept
            outside the registered submodules, so the state dict, and so every checkpoint, holds
            the same keys (``net.*``, never ``net._orig_mod.*``) with or without compile: a
            checkpoint resumes either way.
        input_shape: the shape of one example, e.g. ``(1, 28, 28)`` (the DataModule's
            ``input_shape``): sets ``example_input_array`` (a batch of one zero example), with which
            Lightning's model summary measures the FLOPs and the layers' input and output sizes.

    Raises:
        ConfigError: at construction (before any training), by :func:`check_optim_args`: a numeric
            argument of ``optim.optimizer`` / ``optim.scheduler`` given as a string, or not finite;
            ``optim.scheduler.gamma`` outside (0, 1]; ``optim.scheduler_interval`` not epoch or step.
            At fit start (:meth:`configure_optimizers`), before the first step, by
            :func:`rehearse_schedule`: a scheduler that would fail, or set a negative or non-finite
            learning rate, at some epoch of the run.

    The learning rate is logged by Lightning's ``LearningRateMonitor`` as ``train/lr`` (the
    scheduler's ``name``) whatever the optimiser; without a scheduler the learning rate is held by a
    ``ConstantLR`` of factor 1 named the same way.
    """

    LR_KEY = "train/lr"
    PLATEAU_MONITOR = "val/loss"  # what a ReduceLROnPlateau scheduler watches (mode min, its default)
    _compiled: Callable[[Tensor], Tensor] | None = None  # torch.compile(net), set in setup("fit")

    def __init__(self, net: nn.Module, num_classes: int, optimizer: Callable[..., torch.optim.Optimizer],
                 scheduler: Callable[..., torch.optim.lr_scheduler.LRScheduler] | None = None,
                 scheduler_interval: str = "epoch", compile: bool = False,
                 input_shape: Sequence[int] | None = None) -> None:
        super().__init__()
        check_optim_args(optimizer, scheduler, scheduler_interval)
        if scheduler_interval not in CHOICE_KEYS["optim.scheduler_interval"]:  # one list, in trainer_checks
            raise ConfigError(f"optim.scheduler_interval={scheduler_interval!r} must be epoch or step "
                              "(when the scheduler steps), e.g. optim.scheduler_interval=epoch")
        # plain values only, so that checkpoints load with torch.load(weights_only=True)
        self.save_hyperparameters(logger=False, ignore=["net", "optimizer", "scheduler", "input_shape"])
        if input_shape is not None:
            self.example_input_array = torch.zeros(1, *input_shape)  # (1, *input_shape)
        self.net = net
        self.optimizer, self.scheduler = optimizer, scheduler
        self.run_seed: int | None = None  # the run's seed (train.py sets it), kept in its checkpoints
        # the logger versions of the checkpoint this run resumes (train.py sets them): a resume without
        # its W&B logger (logger=csv) keeps the W&B run id for the next resume (pass 37, row 22)
        self.earlier_logger_versions: dict[str, str] = {}
        self.earlier_wandb_group: str | None = None
        self.criterion = nn.CrossEntropyLoss()
        stages = ("train", "val", "test")  # "train" itself would clash with nn.Module.train
        # nan_strategy=nan: a NaN loss stays NaN in the mean, and each batch keeps its weight (len(y));
        # torchmetrics 1.9's "disable" drops the weights (every batch would weigh 1)
        self.losses = nn.ModuleDict({f"{s}_loss": MeanMetric(nan_strategy=float("nan")) for s in stages})
        self.accs = nn.ModuleDict({f"{s}_acc": MulticlassAccuracy(num_classes, average="micro",
                                                                  validate_args=False)
                                   for s in stages})
        # the examples each evaluation counted, summed over processes (not logged; metrics.json's
        # val_examples and test_examples): fewer than the set's with trainer.limit_*_batches
        self.examples = nn.ModuleDict({f"{s}_examples": SumMetric() for s in ("val", "test")})
        self.val_examples: int | None = None
        self.test_examples: int | None = None
        # the val_examples of the checkpoint a run resumed from: a resume that trains nothing (it only
        # tests) records them with the checkpoint's val/* values (pass 53, row 39: before, null)
        self.restored_val_examples: int | None = None
        self.val_acc_best = MaxMetric()
        self.val_acc_best.persistent(True)  # saved in checkpoints: a resumed run keeps its best
        # this step's training loss, on its device (the first non-finite one of its micro-batches)
        self._step_loss: Tensor | None = None
        self._evaluated: tuple[int, int] | None = None  # (global step, batch index) last counted

    @property
    def example_input_array(self) -> Tensor | None:
        """``(1, *input_shape)`` zeros in the dtype of the weights, or ``None``: Lightning's model
        summary runs the net on it after the precision plugin has converted the weights
        (``trainer.precision=64-true``: float64; ``16-true``: float16)."""
        example = self._example_input_array
        net = getattr(self, "net", None)
        weights = net.parameters() if net is not None else ()
        weight = next((p for p in weights if p.is_floating_point()), None)
        return example if example is None or weight is None else example.to(weight.dtype)

    @example_input_array.setter
    def example_input_array(self, example: Tensor | None) -> None:
        self._example_input_array = example

    @property
    def backbone(self) -> nn.Module:
        """The backbone itself (never the ``torch.compile`` wrapper): what analysis callbacks inspect."""
        return getattr(self.net, "_orig_mod", self.net)

    def forward(self, x: Tensor) -> Tensor:
        """``(N, ...) -> (N, num_classes)`` logits. The compiled net runs unless torch's global module
        hooks are set (Lightning's model summary counts FLOPs with them): those see the net's own
        layers, and torch warned that they would fire an extra time on the compiled wrapper (breaking
        pass 89, row 37b: a UserWarning in every ``module.compile=true`` run's log)."""
        if self._compiled is None or _global_module_hooks():
            return self.net(x)
        return self._compiled(x)

    def setup(self, stage: str) -> None:
        if self.hparams.compile and stage == "fit" and self._compiled is None:
            # not registered as a submodule (object.__setattr__): it shares net's parameters, and
            # the state dict keeps net's own keys
            object.__setattr__(self, "_compiled", torch.compile(self.net))

    def _step(self, batch: tuple[Tensor, Tensor], stage: str) -> Tensor:
        x, y = batch  # (N, ...), (N,)
        logits = self(x)  # (N, num_classes)
        loss = self.criterion(logits, y)
        mean_loss, acc = self.losses[f"{stage}_loss"], self.accs[f"{stage}_acc"]
        mean_loss.update(loss.detach(), weight=len(y))  # update(), not forward(): no per-batch compute
        acc.update(logits.detach(), y)
        if stage != "train":
            self.examples[f"{stage}_examples"].update(float(len(y)))
        self.log(f"{stage}/loss", mean_loss, on_step=False, on_epoch=True, prog_bar=True)
        self.log(f"{stage}/acc", acc, on_step=False, on_epoch=True, prog_bar=True)
        return loss

    def training_step(self, batch: tuple[Tensor, Tensor], batch_idx: int) -> Tensor:
        """Cross-entropy of the batch; a non-finite one is refused (see the class docstring). An
        optimiser that evaluates the loss more than once per step (``torch.optim.LBFGS``'s closure,
        up to ``max_iter`` + ``max_eval`` times) counts the batch once in ``train/loss``,
        ``train/acc`` and ``train/loss_step``: its first evaluation, at the step's starting weights,
        as for SGD (before: every evaluation counted, an epoch mean of 3.1 over batches of 0.1 to 1.4)."""
        here = (self.trainer.global_step, batch_idx)
        if here == self._evaluated:  # the same batch again within its step: LBFGS's line search
            x, y = batch
            return self.criterion(self(x), y)
        self._evaluated = here
        loss = self._step(batch, "train")
        self.log("train/loss_step", loss.detach(), on_step=True, on_epoch=False, sync_dist=True)
        # kept on the device, checked in on_before_optimizer_step: no host sync here
        checked = loss.detach()
        if self._step_loss is not None:  # an accumulated micro-batch: keep the first non-finite loss
            checked = torch.where(torch.isfinite(self._step_loss), checked, self._step_loss)
        self._step_loss = checked
        return loss

    def on_train_start(self) -> None:
        self._step_loss, self._evaluated = None, None
        for check in (min_steps_unreachable, accumulation_past_epoch):
            if (problem := check(self.trainer)) is not None:
                raise ConfigError(problem)

    def on_before_optimizer_step(self, optimizer: torch.optim.Optimizer) -> None:
        """Raise :class:`NonFiniteError` when this step's training loss (any of its accumulated
        micro-batches) is NaN or inf, before the optimizer applies it; one host sync. Runs after the
        callbacks' hook of the same name: ``NonFiniteGuard`` reports it first when present. The
        step's metrics never reach the loggers (they are sent after the optimizer step)."""
        loss, self._step_loss = self._step_loss, None
        if loss is not None and not torch.isfinite(loss).item():
            raise NonFiniteError(self._nonfinite_message(float(loss), optimizer))

    def on_train_epoch_end(self) -> None:
        """Warn (once per run, rank zero) when the epoch's mean training loss is finite but more than
        :data:`DIVERGED_FACTOR` times the loss of chance, ln(classes): the weights are diverging, though
        no NaN/inf has come yet to stop the run (breaking pass 61, row 52: ``optim.optimizer.lr=1e9``
        without the non-finite guard reached a loss of 2.6e31 and ended with exit 0, unsaid)."""
        loss = self.trainer.callback_metrics.get("train/loss")
        if loss is None or getattr(self, "_diverged_warned", False):
            return
        value, chance = float(loss), math.log(self.hparams.num_classes)
        if not math.isfinite(value) or value <= DIVERGED_FACTOR * chance:
            return
        self._diverged_warned = True
        optimizers = self.trainer.optimizers
        group = optimizers[0].param_groups[0] if optimizers and optimizers[0].param_groups else None
        lr = f" (it is {float(group.get('initial_lr', group['lr'])):g})" if group is not None else ""
        if self.trainer.is_global_zero:
            log.warning(f"highwaylab: train/loss is {value:.4g} at the end of epoch {self.current_epoch} "
                        f"(step {self.global_step}), {value / chance:.3g} times the loss of chance (ln "
                        f"{self.hparams.num_classes} = {chance:.3f}): the run is diverging, though its "
                        f"loss is still finite. Fix: lower optim.optimizer.lr{lr}, or keep "
                        f"trainer.gradient_clip_val set")

    def _nonfinite_message(self, value: float, optimizer: torch.optim.Optimizer) -> str:
        trainer = self.trainer
        lr = f" (now {float(optimizer.param_groups[0]['lr']):g})" if optimizer.param_groups else ""
        return (f"train/loss is {value} at step {trainer.global_step} (epoch {trainer.current_epoch}): "
                "the run diverged (or the input holds NaN/inf). Training stopped before the optimizer "
                "step. Fix: lower "
                f"optim.optimizer.lr{lr}, keep trainer.gradient_clip_val set, or check the data for "
                "NaN; callbacks.nonfinite_guard (in callbacks=minimal and default) also names the "
                "first layer with a NaN/inf gradient.")

    def validation_step(self, batch: tuple[Tensor, Tensor], batch_idx: int) -> None:
        self._step(batch, "val")

    def test_step(self, batch: tuple[Tensor, Tensor], batch_idx: int) -> None:
        self._step(batch, "test")

    def _count(self, stage: str) -> int:
        """The examples this ``stage``'s epoch evaluated, over all processes; then reset."""
        counter = self.examples[f"{stage}_examples"]
        # compute() synchronises the processes: under DDP every rank calls it, counted or not
        count = int(counter.compute()) if counter.update_called or self.trainer.world_size > 1 else 0
        counter.reset()
        return count

    def on_test_epoch_end(self) -> None:
        self.test_examples = self._count("test")

    def on_validation_epoch_end(self) -> None:
        count = self._count("val")
        if not self.trainer.sanity_checking:
            self.val_examples = count
        val_loss = self.losses["val_loss"]
        value = float(val_loss.compute()) if val_loss.update_called else 0.0  # once per epoch
        if not math.isfinite(value):
            when = ("in the sanity check" if self.trainer.sanity_checking else
                    f"after step {self.trainer.global_step} (epoch {self.trainer.current_epoch})")
            raise NonFiniteError(
                f"val/loss is {value} {when}: the weights diverged at the last "
                "training steps, or the validation data holds NaN/inf. Fix: lower "
                "optim.optimizer.lr, keep trainer.gradient_clip_val set, or check the data for NaN.")
        if not self.trainer.sanity_checking:
            self.val_acc_best(self.accs["val_acc"].compute())
            self.log("val/acc_best", self.val_acc_best.compute(), sync_dist=True)

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        """Store each logger's version (W&B: the run id) as ``checkpoint["logger_versions"]``, and the
        W&B group as ``checkpoint["wandb_group"]``, so that a run resumed from this checkpoint
        continues the same W&B run, in the same group; and the run's seed as ``checkpoint["run_seed"]``
        (:attr:`run_seed`), by which ``resume=`` tells another run's checkpoint copied in. The
        versions of :attr:`earlier_logger_versions` (the resumed checkpoint's) are kept for the loggers
        this run lacks, and :attr:`earlier_wandb_group` without a W&B logger, so that a later resume
        with its W&B logger continues its W&B run, in its group."""
        checkpoint["logger_versions"] = {**self.earlier_logger_versions,
                                         **{type(lg).__name__: str(lg.version) for lg in self.loggers
                                            if lg.version is not None}}
        if self.earlier_wandb_group and "WandbLogger" not in {type(lg).__name__ for lg in self.loggers}:
            checkpoint["wandb_group"] = self.earlier_wandb_group
        for lg in self.loggers:
            group = getattr(getattr(lg, "experiment", None), "group", None)
            if isinstance(group, str) and group:
                checkpoint["wandb_group"] = group
        if self.run_seed is not None:  # which run wrote it: resume= refuses another run's (pass 36, row 72)
            checkpoint["run_seed"] = self.run_seed
        if self.val_examples is not None:  # what the val/* values it holds counted
            checkpoint["val_examples"] = self.val_examples
        save_epoch_metrics(self, checkpoint)

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        """Read checkpoints of runs that wrapped the backbone (``net._orig_mod.*`` keys, written by
        ``torch.compile`` before it was kept outside the state dict), and restore the running
        training metrics of a checkpoint written mid-epoch."""
        checkpoint["state_dict"] = unwrapped_state_dict(checkpoint["state_dict"])
        self.restored_val_examples = checkpoint.get("val_examples")
        load_epoch_metrics(self, checkpoint)

    def configure_optimizers(self) -> dict:
        """The optimiser (``optim.optimizer``) and scheduler (``optim.scheduler``; without one a
        ``ConstantLR`` of factor 1) as Lightning's dict, the scheduler named ``train/lr``. A
        ``ReduceLROnPlateau`` watches ``val/loss`` (:attr:`PLATEAU_MONITOR`), and steps on the epochs
        that validate (every ``trainer.check_val_every_n_epoch``).

        List and mapping arguments reach torch as plain ``list``/``dict`` (a tuple where torch's
        default is one, e.g. ``betas``), never as omegaconf containers.

        Raises:
            ConfigError: the optimiser or scheduler refused its arguments (``lr=-1``, a misspelt
                argument, ``betas=[0.9]``): one line naming ``optim.optimizer`` or
                ``optim.scheduler``, its arguments, torch's reason and what the target takes.
        """
        optimizer = build_from_config("optim.optimizer", self.optimizer, params=self.parameters())
        scheduler = (None if self.scheduler is None
                     else build_from_config("optim.scheduler", self.scheduler, optimizer=optimizer))
        if scheduler is None:  # a constant learning rate, so that LearningRateMonitor names it LR_KEY too
            scheduler = torch.optim.lr_scheduler.ConstantLR(optimizer, factor=1.0, total_iters=0)
        check_one_cycle_steps(scheduler, dict(getattr(self.scheduler, "keywords", None) or {}),
                              self.hparams.scheduler_interval, self._trainer)
        rehearse_schedule(self.optimizer, self.scheduler, self.hparams.scheduler_interval, self._trainer,
                          device=next(self.parameters()).device)
        settings = {"scheduler": scheduler, "interval": self.hparams.scheduler_interval, "name": self.LR_KEY}
        if isinstance(scheduler, torch.optim.lr_scheduler.ReduceLROnPlateau):
            settings["monitor"] = self.PLATEAU_MONITOR  # the metric whose plateau it waits for
            every = getattr(self._trainer, "check_val_every_n_epoch", None)
            if isinstance(every, int) and every > 1 and settings["interval"] == "epoch":
                # it steps on the epochs that validate, as Lightning's docs advise (pass 66, row 38: before,
                # trainer.check_val_every_n_epoch=2 stopped the run after epoch 0: "val/loss ... not
                # available", with a fix, the `monitor` key, that no config key sets)
                settings["frequency"] = every
        return {"optimizer": optimizer, "lr_scheduler": settings}




def check_one_cycle_steps(scheduler: object, args: dict, interval: str, trainer: object | None) -> None:
    """Raises ConfigError for a ``OneCycleLR`` whose ``total_steps`` (or ``epochs * steps_per_epoch``)
    is below the number of times the run steps it: the training steps
    (``trainer.estimated_stepping_batches``) with ``optim.scheduler_interval=step``, the epochs
    with ``epoch``. torch would raise ``Tried to step N times`` mid-run, before any checkpoint."""
    if not isinstance(scheduler, torch.optim.lr_scheduler.OneCycleLR) or trainer is None:
        return
    if interval == "step":
        steps, unit = trainer.estimated_stepping_batches, "training steps"
    else:
        steps, unit = trainer.max_epochs, "epochs"
    if not isinstance(steps, int | float) or not math.isfinite(steps) or steps <= scheduler.total_steps:
        return
    steps = int(steps)
    given = (f"optim.scheduler.total_steps={scheduler.total_steps}" if "epochs" not in args else
             f"optim.scheduler.epochs={args.get('epochs')} x optim.scheduler.steps_per_epoch="
             f"{args.get('steps_per_epoch')} = {scheduler.total_steps} steps")
    raise ConfigError(f"{given} is below the run's {steps} {unit} (optim.scheduler_interval={interval}): "
                      f"OneCycleLR would raise at step {scheduler.total_steps + 1}, mid-run. Fix: "
                      f"optim.scheduler.total_steps={steps} or more (or epochs x steps_per_epoch >= {steps})")


# the most scheduler steps a rehearsal takes (about 2 µs each): a run without a bound is rehearsed this far
REHEARSAL_STEPS = 100_000


def rehearse_schedule(optimizer: Callable | None, scheduler: Callable | None, interval: str,
                      trainer: object | None, device: torch.device | str = "cpu") -> None:
    """Step a twin of the run's scheduler as the run will (``trainer.max_epochs`` times with
    ``optim.scheduler_interval=epoch``, ``trainer.estimated_stepping_batches`` with ``step``; at
    most :data:`REHEARSAL_STEPS`), on a twin of its optimiser that holds one parameter, ``(1,)`` on
    ``device``, before anything is trained. A scheduler that raises at some step (CyclicLR's
    ``step_size_up=0``: a ZeroDivisionError), or that sets a learning rate that is negative or not
    finite, would otherwise fail or climb the loss mid-run, after epochs of work. Nothing is checked
    without a trainer, for a ``ReduceLROnPlateau`` (it steps on a metric), or where the twin cannot
    be built (the run's own optimiser and scheduler were).

    Raises:
        ConfigError: naming ``optim.scheduler`` with its arguments, the epoch (or training step) at
            fault, torch's reason or the learning rate, and the arguments the target takes.
    """
    if not isinstance(scheduler, functools.partial) or optimizer is None or trainer is None \
            or issubclass(scheduler.func, torch.optim.lr_scheduler.ReduceLROnPlateau):
        return
    steps = trainer.estimated_stepping_batches if interval == "step" else trainer.max_epochs
    if not isinstance(steps, int | float) or math.isnan(steps) or steps < 0:
        steps = REHEARSAL_STEPS  # max_epochs=-1: no bound in epochs
    steps = int(min(steps, REHEARSAL_STEPS))
    unit = "training step" if interval == "step" else "epoch"
    try:
        twin = build_from_config("optim.optimizer", optimizer,
                                 params=[torch.zeros(1, device=device, requires_grad=True)])
        twin = build_from_config("optim.scheduler", scheduler, optimizer=twin)
    except Exception:  # noqa: BLE001 - the run's own were built: its optimiser takes them as they are
        return
    given, fix = _given(scheduler), _fix("optim.scheduler", scheduler.func, {"optimizer"})
    with warnings.catch_warnings():  # "lr_scheduler.step() before optimizer.step()": the twin never trains
        warnings.simplefilter("ignore")
        for done in range(steps):  # the rate of epoch (or step) `done`, then the step() at its end
            rates = [float(group["lr"]) for group in twin.optimizer.param_groups]
            if bad := [lr for lr in rates if not math.isfinite(lr) or lr < 0]:
                why = "below 0: the optimiser would climb the loss" if bad[0] < 0 else "not finite"
                raise ConfigError(f"optim.scheduler ({given}) sets the learning rate to {bad[0]:g} in {unit} "
                                  f"{done} of the run's {steps} ({why}). Fix: {fix}")
            try:
                twin.step()
            except Exception as err:  # noqa: BLE001 - torch's reason, whatever its class, in one line
                raise ConfigError(f"optim.scheduler ({given}) fails at the end of {unit} {done} of the run's "
                                  f"{steps} ({_reason(err)}), where the run would stop. Fix: {fix}") from err


def _given(part: Callable) -> str:
    """The arguments of ``part`` as a command line gives them, ``step_size=0, gamma=0.1``."""
    return ", ".join(f"{k}={cli_text(v)}" for k, v in (getattr(part, "keywords", None) or {}).items()) \
        or "no arguments"


def _reason(err: BaseException) -> str:
    """``<class>: <first line of the message>``, its spaces collapsed, without a closing full stop."""
    reason = " ".join((str(err).strip().splitlines() or [""])[0].split()).rstrip(".") or type(err).__name__
    return f"{type(err).__name__}: {reason}"


def _fix(group: str, target: Callable, exclude: set[str]) -> str:
    """The fix for arguments that ``target`` refused: the ones it takes."""
    name = getattr(target, "__name__", type(target).__name__)
    takes = _arguments(target, exclude=exclude)
    return (f"correct or remove the {group}.<argument> at fault"
            + (f"; {name} takes {', '.join(takes)}" if takes else ""))


def check_optim_args(optimizer: Callable | None, scheduler: Callable | None, interval: str = "epoch") -> None:
    """Check the arguments of the optimiser and scheduler partials (Hydra ``_partial_: true`` gives
    ``functools.partial`` objects; their ``.keywords`` are ``optim.optimizer.*`` and
    ``optim.scheduler.*``) before anything is trained or logged. Other callables are not inspected.

    Numeric arguments (the names in ``NUMERIC_ARGS``, or any whose default in the target's signature
    is a number) must be finite real numbers (a tensor is accepted as is); every argument that the
    target requires (no default: StepLR's ``step_size``) must be given, but the ``params`` or
    ``optimizer`` that the module passes itself; an argument whose default is a tuple of numbers
    (AdamW's ``betas=(0.9, 0.999)``) must be as many finite numbers;
    ``gamma``, the factor a scheduler multiplies the learning rate by (ExponentialLR: every epoch;
    StepLR, MultiStepLR: at its steps), must be in (0, 1]. The ranges of the other arguments are
    torch's to check, when :meth:`ClassifierModule.configure_optimizers` builds them
    (:func:`build_from_config`).

    Raises:
        ConfigError: naming ``optim.optimizer.<key>`` or ``optim.scheduler.<key>`` and the fix,
            e.g. ``lr=abc``, ``gamma=-1`` or ``betas=[0.9]``; a ``_target_`` that is not a torch
            optimiser (``torch.optim.Optimizer``) or scheduler (``LRScheduler``); a required
            argument not given, with the ``+<group>.<argument>=...`` that adds it (``interval``,
            ``optim.scheduler_interval``: whether a scheduler's counts are epochs or steps).
    """
    kinds = {"optim.optimizer": (torch.optim.Optimizer, "an optimiser", "torch.optim.SGD"),
             "optim.scheduler": (torch.optim.lr_scheduler.LRScheduler, "a learning-rate scheduler",
                                 "torch.optim.lr_scheduler.ExponentialLR")}
    for group, part in (("optim.optimizer", optimizer), ("optim.scheduler", scheduler)):
        if not isinstance(part, functools.partial):
            continue
        base, what, example = kinds[group]
        if not (isinstance(part.func, type) and issubclass(part.func, base)):
            name = f"{getattr(part.func, '__module__', '')}.{getattr(part.func, '__qualname__', part.func)}"
            raise ConfigError(f"{group}._target_={name.lstrip('.')} is not {what} (a subclass of "
                              f"{base.__module__}.{base.__qualname__}). Fix: e.g. "
                              f"{group}._target_={example}, or choose an optim preset (optim=sgd, sgd_step "
                              f"or adamw)")
        if group == "optim.optimizer" and part.keywords.get("maximize") is True:  # pass 86, row 49: before,
            # the run climbed its loss to below chance, and exited 0
            raise ConfigError("optim.optimizer.maximize=true makes the optimiser climb the loss, so the run "
                              "would train away from its labels (below chance). Fix: leave it out (false)")
        _check_function_args(group, part)  # first: no other fix makes such a target usable (pass 83, row
        _check_argument_names(group, part)  # 79: before, "remove gamma", then this, for MultiplicativeLR)
        _check_required_args(group, part, interval)
        _check_tuple_args(group, part)
        defaults = _numeric_defaults(part.func)
        for key, value in part.keywords.items():
            if isinstance(value, Tensor) or (key not in NUMERIC_ARGS and key not in defaults):
                continue
            example = _EXAMPLES.get(key, defaults.get(key))
            hint = f", e.g. {group}.{key}={example}" if example is not None else ""
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise ConfigError(f"{group}.{key}={value!r} must be a number{hint}.")
            if not math.isfinite(value):
                raise ConfigError(f"{group}.{key}={value!r} must be finite{hint}.")
        momentum = part.keywords.get("momentum")
        if group == "optim.optimizer" and isinstance(momentum, numbers.Real) and not 0 <= momentum < 1:
            why = ("the velocity would grow by that factor every step and the run diverge" if momentum >= 1
                   else "each step would subtract a share of the last one's velocity, so that the updates "
                        "alternate in direction in place of adding up (pass 42, row 8)")
            raise ConfigError(f"optim.optimizer.momentum={momentum!r} is outside [0, 1): {why}. Fix: e.g. "
                              f"optim.optimizer.momentum=0.9 (0: none)")
        gamma = part.keywords.get("gamma")
        if group == "optim.scheduler" and gamma is not None and not isinstance(gamma, Tensor) \
                and not 0 < gamma <= 1:
            raise ConfigError(
                f"optim.scheduler.gamma={gamma!r} is outside (0, 1]: the scheduler multiplies the "
                "learning rate by it (negative: the rate changes sign every other time; 0: it drops "
                "to 0; above 1: it grows). Fix: a decay factor such as optim.scheduler.gamma=0.6 "
                "(1: a constant rate).")
        step = part.keywords.get("step_size")  # StepLR's, divided by in scheduler.step() (pass 63, row 15:
        if group == "optim.scheduler" and isinstance(step, numbers.Integral) and not isinstance(step, bool) \
                and step < 1:  # step_size=0 trained an epoch, then a ZeroDivisionError traceback)
            raise ConfigError(f"optim.scheduler.step_size={step!r} must be an integer >= 1 (StepLR decays "
                              f"the rate every step_size epochs). Fix: e.g. optim.scheduler.step_size=30")
        power = part.keywords.get("power")  # PolynomialLR's (pass 62, row 19: -1 raised the rate each
        if group == "optim.scheduler" and isinstance(power, numbers.Real) and power < 0:  # epoch, then
            total = part.keywords.get("total_iters", 5)  # ZeroDivisionError at total_iters)
            raise ConfigError(
                f"optim.scheduler.power={power!r} is negative: the scheduler multiplies the learning rate by "
                f"(1 - t / total_iters) ** power, which then grows every epoch, and fails (0 to a negative "
                f"power) at epoch total_iters ({total}). Fix: e.g. optim.scheduler.power=1.0 (a linear decay "
                f"to 0)")


def _check_argument_names(group: str, part: functools.partial) -> None:
    """Each argument of ``part`` must be one its target takes (``optim=adamw
    +optim.optimizer.momentum=0.9``: AdamW has none, and torch's TypeError came only when the
    optimiser was built, after the loggers had started). A target with ``**kwargs``, or without a
    signature, takes anything.

    Raises:
        ConfigError: naming ``<group>.<argument>``, the target, the closest argument it takes and
            the list of them.
    """
    from highwaylab.config_checks import adam_momentum, removal
    from highwaylab.utils.hydra_utils import did_you_mean

    try:
        params = inspect.signature(part.func).parameters.values()
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    name = f"{part.func.__module__}.{part.func.__qualname__}"
    if getattr(torch.optim, part.func.__qualname__, None) is part.func:  # as torch.optim exports it
        name = f"torch.optim.{part.func.__qualname__}"
    for key, value in part.keywords.items():
        if key in {p.name for p in params}:
            continue
        if group == "optim.optimizer" and (
                adam := adam_momentum(OmegaConf.create({"_target_": name, key: cli_text(value)}))):
            raise ConfigError(adam)
        takes = _arguments(part.func, exclude={"params", "optimizer"})
        meant = did_you_mean(str(key), takes, prefix=f"{group}.")
        shown = cli_text(value)  # as typed: true
        others = [k for k in part.keywords if k != key and k not in {p.name for p in params}]
        if others and not meant:  # another class than the preset's: all its keys it lacks at once (pass 55,
            # row 8: before, one a run, Rprop's momentum, then its weight_decay)
            keys = [key, *others]
            fixes = [removal(f"{group}.{k}") for k in keys]  # the preset's: '~<key>'; one's own: left out
            quoted = all(f[0] == "~" for f in fixes)
            removed = " ".join(f"'{f}'" for f in fixes) if quoted else "; ".join(fixes)
            raise ConfigError(f"{group}: {part.func.__qualname__} ({name}) has no arguments "
                              f"{', '.join(keys)} (the preset's). Fix: remove them: {removed}; "
                              f"{part.func.__qualname__} takes {', '.join(takes)}")
        raise ConfigError(f"{group}.{key}={shown}: {part.func.__qualname__} ({name}) has no "
                          f"argument {key}{meant or '.'} Fix: remove it ({removal(f'{group}.{key}')}) or "
                          f"correct its name; {part.func.__qualname__} takes {', '.join(takes)}")


# what a required argument of a scheduler counts, for the '+optim.scheduler.<argument>=...' to add
_COUNTS = {"step_size": "<{unit}s>", "T_max": "<{unit}s>", "T_0": "<{unit}s>",
           "milestones": "[<{unit}>,<{unit}>]"}


# arguments that no override can give: Python functions (LambdaLR's, MultiplicativeLR's lr_lambda) and
# other schedulers built on the run's optimiser (SequentialLR's, ChainedScheduler's schedulers)
FUNCTION_ARGS = {"lr_lambda": "a Python function", "schedulers": "schedulers built on the run's optimiser"}


def _required_args(group: str, part: functools.partial) -> tuple[list[str], str]:
    """The arguments that the target of ``part`` requires (no default) and its keywords lack, less the
    one the module passes itself (``params``, ``optimizer``), and the target's name as torch exports
    it; ``[]`` for a target without a signature."""
    try:
        params = inspect.signature(part.func).parameters.values()
    except (TypeError, ValueError):
        return [], ""
    passed = {"optim.optimizer": "params", "optim.scheduler": "optimizer"}[group]
    missing = [p.name for p in params if p.default is p.empty and p.name not in part.keywords
               and p.name not in (passed, "self") and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    name = f"{part.func.__module__}.{part.func.__qualname__}"
    if getattr(torch.optim, part.func.__qualname__, None) is part.func:  # as torch.optim exports it
        name = f"torch.optim.{part.func.__qualname__}"
    return missing, name


def _check_function_args(group: str, part: functools.partial) -> None:
    """A required argument that no override can give (:data:`FUNCTION_ARGS`: LambdaLR's ``lr_lambda``)
    is refused with the schedulers a command line can use (pass 62, row 17: before, "add it:
    +optim.scheduler.lr_lambda=<value>", and every value a command line gives was refused in turn).

    Raises:
        ConfigError: naming ``<group>._target_``, the argument and the fix.
    """
    from highwaylab.config_checks import removal

    missing, name = _required_args(group, part)
    if functions := [key for key in missing if key in FUNCTION_ARGS]:
        own = (f", or a config file of your own (--config-dir) whose {functions[0]} is built by a _target_"
               if functions[0] == "lr_lambda" else "")  # schedulers need the module's optimiser: none
        # the example's LinearLR takes none of the preset's other arguments (optim=sgd's gamma): removed
        # with it (pass 84, row 45: before, the example alone was refused in turn, for gamma)
        linear = set(_arguments(torch.optim.lr_scheduler.LinearLR, exclude=set()))
        extra = "".join(f" '{removal(f'{group}.{k}')}'" for k in part.keywords if k not in linear)
        raise ConfigError(f"{group}._target_={name} needs {' and '.join(functions)}, "
                          f"{FUNCTION_ARGS[functions[0]]}, which a command line cannot give. Fix: a "
                          f"scheduler of numbers (e.g. {group}._target_=torch.optim.lr_scheduler.LinearLR"
                          f"{extra}, or optim=sgd_step){own}")


def _check_required_args(group: str, part: functools.partial, interval: str) -> None:
    """Each argument that the target of ``part`` requires (no default; StepLR's ``step_size``) must
    be among its keywords, but the one the module passes itself (``params``, ``optimizer``): torch's
    TypeError came only when the fit set up the optimiser, after the loggers had started. The
    arguments no override can give are refused before, by :func:`_check_function_args`.

    Raises:
        ConfigError: naming ``<group>._target_``, the arguments missing and the ``+`` overrides
            that add them (a scheduler's counts in epochs or steps, as ``interval``).
    """
    missing, name = _required_args(group, part)
    if not missing:
        return
    unit = "step" if interval == "step" else "epoch"
    values = {key: _COUNTS[key].format(unit=unit) if key in _COUNTS else _EXAMPLES.get(key, "<value>")
              for key in missing}
    needs = " and ".join(missing)
    added = " ".join(f"+{group}.{key}={value}" for key, value in values.items())
    takes = _arguments(part.func, exclude={"params", "optimizer"})
    raise ConfigError(f"{group}._target_={name} needs {needs}, which {group} does not give. Fix: add "
                      f"{'them' if len(missing) > 1 else 'it'}: {added} ({part.func.__qualname__} takes "
                      f"{', '.join(takes)})")


def _check_tuple_args(group: str, part: functools.partial) -> None:
    """Each argument of ``part`` whose default in its target's signature is a tuple of numbers
    (AdamW's ``betas``, Rprop's ``etas``) must be a list of as many finite numbers (torch would
    index it, and fail with an IndexError or at the first step)."""
    for key, default in _tuple_defaults(part.func).items():
        value = part.keywords.get(key, default)
        if isinstance(value, Tensor) or value is default:
            continue
        listed = isinstance(value, Sequence | ListConfig) and not isinstance(value, str)
        items = list(value) if listed else None
        if items is not None and len(items) == len(default) and all(
                isinstance(v, Tensor) or isinstance(v, numbers.Real) and not isinstance(v, bool)
                and math.isfinite(v) for v in items):
            continue
        example = "[" + ",".join(f"{v:g}" for v in default) + "]"
        name = getattr(part.func, "__name__", "the target")
        raise ConfigError(f"{group}.{key}={cli_text(value)} must be {len(default)} finite numbers, like "
                          f"{name}'s default {example}: e.g. {as_given(f'{group}.{key}')}={example}")


def build_from_config(group: str, part: Callable, **kwargs: object) -> object:
    """``part(**kwargs)``: build the optimiser or scheduler of ``group`` (``optim.optimizer`` or
    ``optim.scheduler``) from its partial, its omegaconf list and mapping arguments given as plain
    containers (a tuple where the target's default is a tuple).

    Raises:
        ConfigError: the target refused its arguments (a TypeError, ValueError, IndexError,
            KeyError, ArithmeticError, RuntimeError or omegaconf error: a bad value, a misspelt
            argument, a list too short, two arguments that exclude each other): one
            line with ``group``, its arguments, torch's reason and the arguments the target takes.
    """
    keywords = dict(getattr(part, "keywords", None) or {})
    target = getattr(part, "func", part)
    tuples = _tuple_defaults(target)
    plain = {}
    for key, value in keywords.items():
        if isinstance(value, DictConfig | ListConfig):
            value = OmegaConf.to_container(value, resolve=True)
            plain[key] = tuple(value) if key in tuples and isinstance(value, list) else value
    try:
        return part(**plain, **kwargs)
    except HighwaylabError:
        raise
    except (TypeError, ValueError, IndexError, KeyError, ArithmeticError, RuntimeError,
            OmegaConfBaseException) as err:  # ArithmeticError: CyclicLR's step_size_up=0 divides by zero
        # as it is built; RuntimeError: torch's "`fused` and `foreach` cannot be `True` together"
        name = getattr(target, "__name__", type(target).__name__)
        raise ConfigError(f"{group} ({_given(part)}) was refused by {name} ({_reason(err)}). Fix: "
                          + _fix(group, target, set(kwargs))) from err


def _arguments(target: Callable, exclude: set[str]) -> list[str]:
    """The names of ``target``'s keyword arguments, less ``exclude``; [] without a signature."""
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.name not in exclude and p.name != "self"
            and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _tuple_defaults(target: Callable) -> dict[str, tuple]:
    """The arguments of ``target``'s signature whose defaults are non-empty tuples of numbers."""
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return {}
    return {p.name: p.default for p in params if isinstance(p.default, tuple) and p.default
            and all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in p.default)}


def _numeric_defaults(target: Callable) -> dict[str, float]:
    """The arguments of ``target``'s signature whose defaults are numbers (not booleans)."""
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return {}
    return {p.name: p.default for p in params
            if isinstance(p.default, numbers.Real) and not isinstance(p.default, bool)}


EPOCH_METRICS_KEY = "train_epoch_metrics"
_TRAIN_METRICS = ("losses.train_loss", "accs.train_acc")


def unwrapped_state_dict(state: dict) -> dict:
    """``state`` with the ``_orig_mod.`` segments of ``torch.compile`` wrappers taken out of its keys."""
    return {k.replace("_orig_mod.", ""): v for k, v in state.items()} if any(
        "_orig_mod." in k for k in state) else state


def _mid_epoch(module: LightningModule) -> bool:
    trainer = module._trainer
    if trainer is None or trainer.state.fn != "fit":  # TrainerFn.FITTING (a str enum)
        return False
    ready = trainer.fit_loop.epoch_loop.batch_progress.current.ready
    return 0 < ready < trainer.num_training_batches


def save_epoch_metrics(module: LightningModule, checkpoint: dict) -> None:
    """Store the running training metrics (``train/loss``, ``train/acc`` of the epoch so far) in a
    checkpoint written mid-epoch, as ``checkpoint["train_epoch_metrics"]``: a run resumed from it
    ends the epoch with the same means as one never interrupted. At an epoch's end they are not
    stored (they are reset for the next epoch)."""
    if _mid_epoch(module):
        checkpoint[EPOCH_METRICS_KEY] = {
            name: {k: v.detach().clone() if isinstance(v, Tensor) else v
                   for k, v in module.get_submodule(name).metric_state.items()}
            for name in _TRAIN_METRICS}


def load_epoch_metrics(module: LightningModule, checkpoint: dict) -> None:
    """Restore what :func:`save_epoch_metrics` stored, if anything."""
    for name, states in (checkpoint.get(EPOCH_METRICS_KEY) or {}).items():
        metric = module.get_submodule(name)
        for key, value in states.items():
            setattr(metric, key, value.to(module.device) if isinstance(value, Tensor) else value)
