"""Per-layer gradient norms: the vanishing / exploding picture during training."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.callbacks.grad_norms")

import lightning as L
import torch
from lightning.pytorch.utilities import grad_norm, rank_zero_warn
from torch import Tensor

from highwaylab.analysis.history import LayerHistory, named_scalars, per_layer_scalars
from highwaylab.analysis.plots import layer_lines, layer_step_maps
from highwaylab.callbacks.media import log_figure, log_scalars, log_table, step_of, when
from highwaylab.callbacks.options import check_grad_norms
from highwaylab.callbacks.probe_batch import backbone_of, warn_no_layers


class LayerGradNormMonitor(L.Callback):
    """L2 gradient norms per layer, at the first step of every fit (step 0 of a new run, the first
    step of a resumed one) and every ``every_n_steps`` steps, before clipping.

    Two profiles over the layers k = 1 .. depth - 1 after the stem, from the training batch of
    that step:

    - *params*: norm of the loss gradient with respect to all parameters of layer k together (sqrt
      of the sum of squares over its tensors), the training step's own gradients, read in
      ``on_before_optimizer_step``: after AMP unscaling, before clipping;
    - *input*: norm of the gradient with respect to layer k's input activations ``(N, D)``, from a
      separate forward/backward through ``forward_internals`` (the training step keeps none).

    Logged on rank zero at the step's ``trainer/global_step``: ``grad_norm/global`` (the whole
    gradient's norm before clipping) and ``grad_norm/input/first``, ``/middle``, ``/last`` (the
    input profile at the first, middle and last layer); with ``per_layer_scalars=True`` also
    ``grad_norm/params/layer_XXX`` and ``grad_norm/input/layer_XXX`` for every layer (opt-in).
    At each training-epoch end, two images: ``grad_norm/by_step`` (layer x step maps of both
    profiles, each on its own log colour scale, growing with the run) and ``grad_norm/by_layer``
    (both profiles against layer at the last measurement, log axis, the first measurement dashed).
    At the end of fitting, the table ``grad_norm/table`` (``layer``, ``params``, ``input``, each
    relative to the last layer, and ``measured_at_step``, the step of the last measurement it holds).
    A backbone with no layer after the stem (depth 1, or a conv net of empty stages) has no profile
    to draw: one warning at the first epoch end says so (``grad_norm/global`` is still logged). When
    the params norm of layer 1 over that of the last layer drops below ``vanishing_ratio`` or rises
    above ``exploding_ratio``, it warns once, naming the layer nearest
    the head where the ratio was first passed. Kept on ``self``: ``param_norms``, ``input_norms``
    (``(L,)`` tensors), ``global_norm``, and the histories ``param_history``, ``input_history``,
    which the checkpoint keeps (:meth:`state_dict`).

    Args:
        every_n_steps: cadence in optimizer steps (>= 1).
        vanishing_ratio, exploding_ratio: thresholds of the first/last-layer ratio.
        per_layer_scalars: also log the per-layer scalar keys (``2 x (depth - 1)`` keys).

    Raises:
        ConfigError: a bad option, naming its key (:mod:`highwaylab.callbacks.options`).
    """

    def __init__(self, every_n_steps: int = 200, vanishing_ratio: float = 1e-3,
                 exploding_ratio: float = 1e3, per_layer_scalars: bool = False) -> None:
        check_grad_norms(every_n_steps, vanishing_ratio, exploding_ratio, per_layer_scalars)
        self.every_n_steps = every_n_steps
        self.vanishing_ratio, self.exploding_ratio = vanishing_ratio, exploding_ratio
        self.per_layer_scalars = per_layer_scalars
        self.param_norms: Tensor | None = None
        self.input_norms: Tensor | None = None
        self.global_norm: float | None = None
        self.param_history = LayerHistory()
        self.input_history = LayerHistory()
        self._batch = None
        self._warned = False
        self._first_step: int | None = None  # the fit's first step (breaking pass 22, row 32)

    def state_dict(self) -> dict:
        """The histories (the last measurement is their last row) and whether it has warned, kept in
        the checkpoint: a resumed run's images go on from step 0, drawn at its first epoch end even
        before its next measurement, and the warning stays once per run."""
        return {"param_history": self.param_history.state_dict(),
                "input_history": self.input_history.state_dict(), "global_norm": self.global_norm,
                "warned": self._warned}

    def load_state_dict(self, state_dict: dict) -> None:
        self.param_history.load_state_dict(state_dict["param_history"])
        self.input_history.load_state_dict(state_dict["input_history"])
        self.global_norm, self._warned = state_dict.get("global_norm"), bool(state_dict.get("warned"))
        if len(self.param_history) and len(self.input_history):
            self.param_norms, self.input_norms = self.param_history.values[-1], self.input_history.values[-1]

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        # after the checkpoint's restore: a resumed run measures at its own first step too (before,
        # resume at step 3 with every_n_steps=200 measured nothing and drew no grad_norm/ figure)
        self._first_step = trainer.global_step

    def _due(self, trainer: L.Trainer) -> bool:
        step = trainer.global_step
        return trainer.is_global_zero and (step % self.every_n_steps == 0 or step == self._first_step)

    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx) -> None:
        self._batch = batch if self._due(trainer) else None  # a reference, for input gradients

    def on_before_optimizer_step(self, trainer, pl_module, optimizer) -> None:
        if self._batch is None:
            return
        net = backbone_of(pl_module)
        # stem, layer_001 .. layer_L, head: each layer's parameters together
        totals = {name: float(grad_norm(layer, 2).get("grad_2.0_norm_total", 0.0))
                  for name, layer in net.ordered_layers()}
        self.param_norms = torch.tensor([v for name, v in totals.items() if name.startswith("layer_")])
        self.global_norm = float(torch.tensor(list(totals.values())).norm())
        self.input_norms = input_grad_norms(net, pl_module.criterion, *self._batch)
        self._batch = None
        step = step_of(trainer, before_optimizer_step=True)
        self.param_history.add(step, self.param_norms)
        self.input_history.add(step, self.input_norms)
        metrics = {"grad_norm/global": self.global_norm, **named_scalars("grad_norm/input", self.input_norms)}
        if self.per_layer_scalars:
            metrics.update(per_layer_scalars("grad_norm/params", self.param_norms))
            metrics.update(per_layer_scalars("grad_norm/input", self.input_norms))
        log_scalars(trainer, metrics, step)
        self._check_ratio(trainer)

    def on_train_epoch_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self.param_norms is None or not trainer.is_global_zero:
            return
        if not len(self.param_norms):  # before: no figure, no table, and no word why
            warn_no_layers(self, "there is no per-layer gradient norm to draw: no grad_norm/ figures or "
                                 "table (grad_norm/global is still logged)")
            return
        step = step_of(trainer)
        last = f"measured every {self.every_n_steps} steps, last at step {self.param_history.steps[-1]}"
        log_figure(trainer, "grad_norm/by_step", lambda: layer_step_maps(
            self.param_history.steps, {"parameters of layer k": self.param_history.array(),
                                       "input activations of layer k": self.input_history.array()},
            f"Gradient norm by layer and step ({when(trainer, step)}; {last})",
            "L2 norm of the gradient (log scale)", cmap="magma", log=True, end_step=step,
            shared_scale=False, hold=self.every_n_steps), step)
        log_figure(trainer, "grad_norm/by_layer", lambda: layer_lines(
            {"parameters of layer k": self.param_norms.numpy(),
             "input activations of layer k": self.input_norms.numpy()},
            f"Gradient norm by layer ({when(trainer, step)}; {last})", "L2 norm of the gradient",
            log=True, reference={f"input, step {self.input_history.steps[0]}":
                                 self.input_history.initial.numpy()}), step)

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self.param_norms is None or not trainer.is_global_zero or not len(self.param_norms):
            return
        params, inputs = self.param_norms, self.input_norms
        # the step of the last measurement, which the table holds: it is filed at the fit's last step
        # (new-user check: a table at step 19 read as of step 19, though measured at step 0)
        measured = self.param_history.steps[-1] if len(self.param_history) else trainer.global_step
        rows = [[k, p, i, p / float(params[-1]) if params[-1] > 0 else float("nan"),
                 i / float(inputs[-1]) if inputs[-1] > 0 else float("nan"), measured]
                for k, (p, i) in enumerate(zip(params.tolist(), inputs.tolist(), strict=True), start=1)]
        log_table(trainer, "grad_norm/table", ["layer", "params", "input", "params_vs_last", "input_vs_last",
                                               "measured_at_step"], rows, step_of(trainer))

    def _check_ratio(self, trainer: L.Trainer) -> None:
        norms = self.param_norms
        if self._warned or len(norms) < 2 or norms[-1] <= 0:
            return
        block = getattr(getattr(trainer.lightning_module, "backbone", None), "block", None)
        message = ratio_warning(norms, trainer.global_step, self.vanishing_ratio, self.exploding_ratio,
                                block=block)
        if message is not None:
            rank_zero_warn(message)
            self._warned = True


# what to do about vanishing gradients, by the backbone's block: a plain stack has no path around its
# layers; a highway net's path is its carry gates, which b_T keeps open [TVDN sec. 2]; a residual net's,
# its identity shortcuts [He et al.] (new-user pass 50: before, a highway net was told it had none)
VANISHING_ADVICE = {
    "plain": "Gradients fade on their way down a deep net without shortcuts (Highway Networks, sec. 1); "
             "compare model=highway or model=residual at this depth, or a smaller depth",
    "highway": "In a highway net they reach the lower layers through the carry gates C = 1 - T, which a "
               "gate bias b_T too weak for the depth keeps shut (Training Very Deep Networks, sec. 2); try "
               "model.gate_bias=auto, or a lower (more negative) one",
    "residual": "A residual net's identity shortcuts pass the gradient down unchanged (He et al.), so a "
                "ratio this low comes from its blocks' branches; compare a lower optim.optimizer.lr, or "
                "model.zero_init=true (blocks that start as the identity)",
}


def ratio_warning(norms: Tensor, step: int, vanishing_ratio: float, exploding_ratio: float,
                  key: str = "callbacks.grad_norms", block: str | None = None) -> str | None:
    """The warning for parameter-gradient norms ``(L,)`` of layers 1 .. L whose first layer's, against
    the last layer's, is below ``vanishing_ratio`` or above ``exploding_ratio``: it names the layer
    nearest the head past the threshold, both ratios as ratios and the last layer's norm as a norm,
    the threshold's key and value, and what to do (before, "... (layer_001: 3.18e-05; threshold
    vanishing_ratio)": a ratio read as a norm, the last layer unnamed, no next step: new-user pass 32).
    ``block`` (the backbone's: ``plain``, ``highway``, ``residual``) chooses the advice
    (:data:`VANISHING_ADVICE`; a plain stack's without it). ``None`` when neither threshold is passed
    (or the last norm is 0)."""
    if len(norms) < 2 or norms[-1] <= 0:
        return None
    ratios, last = norms / norms[-1], len(norms)  # layer k against the last layer
    for kind, passed, threshold, side, what in (
            ("vanishing", ratios < vanishing_ratio, vanishing_ratio, "below",
             VANISHING_ADVICE.get(str(block), VANISHING_ADVICE["plain"])),
            ("exploding", ratios > exploding_ratio, exploding_ratio, "above",
             "Try a lower optim.optimizer.lr, or clip the gradients: trainer.gradient_clip_val=1.0")):
        if passed[0]:
            k = int(passed.nonzero().max()) + 1  # the layer nearest the head past the threshold
            first = "" if k == 1 else f", and layer_001's {float(ratios[0]):.2e} times"
            return (f"highwaylab: {kind} gradients at step {step}: the parameter-gradient norm of "
                    f"layer_{k:03d} is {float(ratios[k - 1]):.2e} times the last layer's (layer_{last:03d}: "
                    f"{float(norms[-1]):.2e}){first}, {side} {key}.{kind}_ratio={threshold:g}. {what} "
                    f"(see grad_norm/by_layer)")
    return None


def input_grad_norms(net: torch.nn.Module, criterion, x: Tensor, y: Tensor) -> Tensor:
    """Norm of d loss / d input of each layer k = 1 .. L for one batch, ``(L,)``.

    The input of layer k is ``states[k - 1]`` of ``forward_internals``; the gradients are taken
    with ``torch.autograd.grad``, so no parameter's ``.grad`` is touched.
    """
    with torch.enable_grad():
        logits, internals = net.forward_internals(x)
        inputs = internals.states[:-1]  # inputs of layers 1 .. L, (N, D) each
        if not inputs:
            return torch.zeros(0)
        grads = torch.autograd.grad(criterion(logits, y), inputs)
    return torch.stack([g.norm() for g in grads]).detach().float().cpu()  # float32 for numpy (bf16-true)
