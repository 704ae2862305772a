"""Per-layer values over training: the data behind a layer x step map, and the few named layers
whose values get scalar keys of their own."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.history")

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor


@dataclass
class LayerHistory:
    """Per-layer values ``(L,)`` measured at training steps, in order.

    Attributes:
        steps: the ``trainer/global_step`` of each measurement, ``(S,)``.
        values: one ``(L,)`` CPU tensor per measurement (NaN: a layer without that value).
    """

    steps: list[int] = field(default_factory=list)
    values: list[Tensor] = field(default_factory=list)

    def add(self, step: int, values: Tensor) -> None:
        """Record ``values (L,)`` at ``step``; a second measurement at the same step replaces the first."""
        values = values.detach().float().cpu()
        if self.steps and self.steps[-1] == step:
            self.values[-1] = values
        else:
            self.steps.append(step)
            self.values.append(values)

    def array(self) -> np.ndarray:
        """``(S, L)``: one row per measurement."""
        return torch.stack(self.values).numpy()

    @property
    def initial(self) -> Tensor:
        """The first measurement, ``(L,)``: at step 0 of a new run, the state at initialisation."""
        return self.values[0]

    def __len__(self) -> int:
        return len(self.steps)

    def state_dict(self) -> dict:
        """``{"steps": [int, ...], "values": (S, L) tensor}``: what a checkpoint keeps, so that a
        resumed run's layer x step maps go on from the first measurement (plain types and a tensor:
        loadable with ``torch.load(weights_only=True)``)."""
        values = torch.stack(self.values) if self.values else torch.empty(0)
        return {"steps": list(self.steps), "values": values}

    def load_state_dict(self, state: dict) -> None:
        """Restore what :meth:`state_dict` returned.

        Raises:
            ValueError: the steps and the rows of the values differ in number.
        """
        steps, values = [int(s) for s in state.get("steps", [])], state.get("values")
        rows = [] if not steps else [row.float().clone() for row in values]
        if len(rows) != len(steps):
            raise ValueError(f"a layer history of {len(steps)} steps holds {len(rows)} rows of values")
        self.steps, self.values = steps, rows


def named_layers(values: Tensor) -> dict[str, int]:
    """The first, middle and last layer with a value (not NaN), as 1-based layer numbers:
    ``{"first": 1, "middle": 50, "last": 99}`` for 99 layers. Empty if there is no value."""
    present = [k for k, v in enumerate(values.tolist(), start=1) if not math.isnan(v)]
    if not present:
        return {}
    return {"first": present[0], "middle": present[(len(present) - 1) // 2], "last": present[-1]}


def named_scalars(prefix: str, values: Tensor) -> dict[str, float]:
    """``{prefix/first: v_1, prefix/middle: v_m, prefix/last: v_L}`` (see :func:`named_layers`)."""
    return {f"{prefix}/{name}": float(values[k - 1]) for name, k in named_layers(values).items()}


def per_layer_scalars(prefix: str, values: Tensor) -> dict[str, float]:
    """``{prefix/layer_001: v_1, ...}`` for every layer with a value (the opt-in per-layer keys)."""
    return {f"{prefix}/layer_{k:03d}": v for k, v in enumerate(values.tolist(), start=1)
            if not math.isnan(v)}
