"""Fixed, seeded examples of a dataset, for probes that must look at the same inputs every time."""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.samples")

import torch
from torch import Tensor
from torch.utils.data import Dataset


def fixed_examples(dataset: Dataset, n: int, seed: int = 0) -> tuple[Tensor, Tensor]:
    """``n`` examples of ``dataset`` drawn without replacement with ``seed``: ``(x (n, ...), y (n,))``.

    Uses the dataset's batched ``__getitems__`` when it has one (:class:`InMemoryBatches`).
    With ``n`` larger than the dataset, returns all of it (shuffled).
    """
    gen = torch.Generator().manual_seed(seed)
    idx = torch.randperm(len(dataset), generator=gen)[:n].tolist()
    if hasattr(dataset, "__getitems__"):
        return dataset.__getitems__(idx)
    xs, ys = zip(*(dataset[i] for i in idx), strict=True)
    return torch.stack(xs), torch.as_tensor(ys)
