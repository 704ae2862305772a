"""Gradient norms through depth at initialisation: the vanishing / exploding picture.

    python -m highwaylab.probe                       # the five stacks of the published table
    python -m highwaylab.probe --activation tanh --form plain --scale 3 --depth 50

Set-up (../shared/science.md, "Gradient norms through depth"): ``depth`` layers of width D, a batch
of N standard-normal inputs, weights ``W ~ N(0, (scale / sqrt(D))^2)``, no biases;
plain ``h <- f(h W)``, residual ``h <- h + f(h W)``. A unit-norm gradient (every entry
``1 / sqrt(N D)``) is sent back from the top; the result is the norm of the gradient with respect
to the input of each layer. Computed in float64, so that 1e-19 does not underflow.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m highwaylab.analysis.probe: the computations, not the command
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.probe", tool="python -m highwaylab.probe")

from dataclasses import dataclass

import torch

from highwaylab.models.fc_blocks import get_activation

# the stacks of the published table: (activation, form, weight scale)
PUBLISHED = [("sigmoid", "plain", 1.0), ("tanh", "plain", 1.0), ("tanh", "plain", 3.0),
             ("sigmoid", "residual", 1.0), ("tanh", "residual", 0.3)]
# its values at layers 30, 20, 10, 1 (one numpy run, seed 0); other seeds change only the digits
PUBLISHED_NORMS = {
    ("sigmoid", "plain", 1.0): (0.26, 1.19e-07, 5.1e-14, 1.67e-19),
    ("tanh", "plain", 1.0): (1.07, 0.781, 0.381, 0.114),
    ("tanh", "plain", 3.0): (1.37, 32.7, 568, 4.6e03),
    ("sigmoid", "residual", 1.0): (1, 1.03, 1.09, 1.27),
    ("tanh", "residual", 0.3): (1.05, 1.31, 1.86, 2.57),
}


@dataclass(frozen=True)
class Stack:
    """One stack of the probe: ``form`` is ``"plain"`` or ``"residual"``."""

    activation: str
    form: str
    scale: float

    def __str__(self) -> str:
        weights = "" if self.scale == 1 else f", weights x{self.scale:g}"
        return f"{self.activation}, {self.form}{weights}"


def input_grad_norms(stack: Stack, depth: int = 30, width: int = 64, batch: int = 32,
                     seed: int = 0) -> torch.Tensor:
    """Norm of the gradient w.r.t. the input of layers 1 .. depth; shape ``(depth,)``, float64.

    Raises:
        ValueError: unknown form, or non-positive depth, width or batch.
    """
    if stack.form not in ("plain", "residual"):
        raise ValueError(f"form={stack.form!r}: choose plain or residual")
    if min(depth, width, batch) < 1:
        raise ValueError("depth, width and batch must be positive")
    act = get_activation(stack.activation)()
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(batch, width, generator=gen, dtype=torch.float64)
    weights = [torch.randn(width, width, generator=gen, dtype=torch.float64) * stack.scale / width**0.5
               for _ in range(depth)]
    inputs = []  # inputs[l - 1] is the input of layer l, (N, D)
    h = x.requires_grad_(True)
    for w in weights:
        inputs.append(h)
        out = act(h @ w)  # f(h W)
        h = h + out if stack.form == "residual" else out  # residual: h + f(h W); plain: f(h W)
    top = torch.full_like(h, 1.0 / (batch * width) ** 0.5)  # unit-norm gradient from the top
    grads = torch.autograd.grad(h, inputs, grad_outputs=top)
    return torch.stack([g.norm() for g in grads])


def table(norms: dict[Stack, torch.Tensor], layers: list[int]) -> str:
    """The gradient-norm table as markdown: one row per stack, one column per layer (1-based)."""
    head = "| stack | " + " | ".join(f"layer {k}" for k in layers) + " |"
    rows = [head, "|---" * (len(layers) + 1) + "|"]
    for stack, values in norms.items():
        rows.append(f"| {stack} | " + " | ".join(f"{values[k - 1].item():.3g}" for k in layers) + " |")
    return "\n".join(rows)
