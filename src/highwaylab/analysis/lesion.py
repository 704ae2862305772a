"""Lesioning [TVDN sec. 4.1, Figure 4]: close all transform gates of one layer, measure the error.

A layer whose transform gates are all closed (T = 0) copies its input: y = x [HN eq. 3] (a conv
layer that ends a stage also max-pools it: ``layer.carry(x)``). So the network with layer k lesioned
computes ``head(layers[L](...layers[k+1](carry_k(states[k-1]))))``: the states up to layer k's input
are shared by every lesion and computed once, and each lesion only reruns the layers above it
(L^2 / 2 layer evaluations for all L lesions instead of L^2). A layer that changes the shape (a plain
conv transition between stages) cannot copy its input: its error is NaN.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.lesion")

from collections.abc import Callable

import torch
from torch import Tensor


class LesionStopped(Exception):
    """:func:`lesion_errors` stopped because ``stop()`` said so (a signal to the run)."""


@torch.no_grad()
def lesion_errors(net: torch.nn.Module, x: Tensor, y: Tensor, batch_size: int = 2500,
                  stop: Callable[[], bool] | None = None) -> tuple[float, Tensor]:
    """Error with no lesion, and error with each layer k = 1 .. L lesioned in turn, ``(L,)`` float64.

    Errors are fractions of the N examples ``x (N, ...)``, ``y (N,)`` misclassified; NaN for a layer
    that cannot be lesioned. ``net`` is a :class:`highwaylab.models.Backbone` (``forward_internals``,
    ``forward_from``, ``layers[k].carry``). Runs in eval mode; the mode is restored after.

    Raises:
        LesionStopped: ``stop()`` (asked before each layer's lesion) returned true.
    """
    was_training = net.training
    net.eval()
    try:
        num_layers = len(net.layers)
        wrong = torch.zeros(num_layers + 1, dtype=torch.long)  # [no lesion, layer 1, ..., layer L]
        cannot = torch.zeros(num_layers + 1, dtype=torch.bool)  # layers that change the shape
        for start in range(0, len(y), batch_size):
            xb, yb = x[start:start + batch_size], y[start:start + batch_size]
            logits, internals = net.forward_internals(xb)
            wrong[0] += int((logits.argmax(dim=1) != yb).sum())
            for k in range(1, num_layers + 1):
                if stop is not None and stop():
                    raise LesionStopped(f"stopped at layer {k} of {num_layers}")
                carried = net.layers[k - 1].carry(internals.states[k - 1])  # layer k with T = 0: y = x
                if carried is None:
                    cannot[k] = True
                    continue
                lesioned = net.forward_from(k + 1, carried)
                wrong[k] += int((lesioned.argmax(dim=1) != yb).sum())
    finally:
        net.train(was_training)
    errors = wrong.double() / len(y)
    errors[cannot] = float("nan")
    return float(errors[0]), errors[1:]
