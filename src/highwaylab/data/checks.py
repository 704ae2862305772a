"""Checks of a dataset's values that no checksum can make: the training data are not degenerate
(constant images, a single class), and a download failure is one line. (The paths: the data
folder is set and the files are there and readable, in :mod:`highwaylab.data.files`, without torch.)

Called from the DataModules' ``setup()``; each raises one line naming the config key or the file,
and the fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from torch import Tensor

from highwaylab.data.files import check_data_dir, check_data_path, check_readable  # noqa: F401
from highwaylab.errors import DataError


def check_not_constant(x: Tensor, source: str, channels: Sequence[str] | None = None) -> None:
    """Check that the training images ``x`` (uint8 ``(N, C, H, W)``) vary: a constant channel has a
    standard deviation of 0, and standardising by it divides by zero (the run would fail later with
    non-finite losses, or learn nothing).

    Args:
        x: the training images, uint8 ``(N, C, H, W)``, N >= 1.
        source: the file(s) they were read from, for the message.
        channels: names of the C channels (e.g. red, green, blue); None for one channel.

    Raises:
        DataError: every training pixel (of a channel) has one value: names ``source``, the value
            and that the standard deviation is 0.
    """
    if x.numel() == 0:
        raise DataError(f"Degenerate data: {source} holds no training pixels. Fix: copy the files again.")
    lo, hi = x.amin(dim=(0, 2, 3)), x.amax(dim=(0, 2, 3))  # (C,)
    constant = [c for c in range(x.shape[1]) if int(lo[c]) == int(hi[c])]
    if not constant:
        return
    if len(constant) == x.shape[1]:
        values = sorted({int(lo[c]) for c in constant})
        what = f"all {len(x)} training images are constant (every pixel is {' or '.join(map(str, values))})"
    else:
        names = [channels[c] if channels else str(c) for c in constant]
        what = (f"the {', '.join(names)} channel of all {len(x)} training images is constant "
                f"({', '.join(str(int(lo[c])) for c in constant)})")
    raise DataError(f"Degenerate data: in {source} {what}: the pixels' standard deviation is 0, so they "
                    f"cannot be standardised and nothing can be learnt from them. Fix: copy the real "
                    f"files there again.")


def check_finite_std(std: Tensor, source: str) -> None:
    """Check that the standard deviation(s) ``std`` used to standardise the images are finite and > 0.

    Raises:
        DataError: naming ``source`` and the value.
    """
    bad = ~torch.isfinite(std) | (std <= 0)
    if bool(bad.any()):
        raise DataError(f"Degenerate data: the standard deviation of the training pixels in {source} is "
                        f"{std.tolist()}, not a positive number, so they cannot be standardised. Fix: copy "
                        f"the real files there again.")


def check_several_classes(y: Tensor, source: str, class_names: Sequence[str] | None = None) -> None:
    """Check that the training labels ``y`` (int64 ``(N,)``) hold at least two classes.

    Args:
        y: the official training labels (the whole file, before the validation split).
        source: the label file(s) they were read from, for the message.
        class_names: names of the classes, for the message.

    Raises:
        DataError: one class only: names ``source`` and the class.
    """
    classes = torch.unique(y)
    if len(classes) >= 2:
        return
    if len(classes) == 0:
        raise DataError(f"Degenerate data: {source} holds no training labels. Fix: copy the files again.")
    c = int(classes[0])
    name = f" ({class_names[c]!r})" if class_names is not None and 0 <= c < len(class_names) else ""
    raise DataError(f"Degenerate data: all {len(y)} training labels from {source} are class {c}{name}: "
                    f"a classifier cannot learn from a single class. Fix: copy the real label file there "
                    f"again; a subset must hold at least two classes.")


def download_error(what: str, folder: Path, err: BaseException, fix: str) -> DataError:
    """The one-line error for a failed ``data.download=true``: what was fetched into ``folder``, the
    last line of torchvision's report (it lists every mirror it tried), and ``fix`` (how to get the
    files without a download)."""
    lines = [line.strip().strip("<>") for line in str(err).splitlines() if line.strip().strip("<>).")]
    reason = lines[-1] if lines else type(err).__name__
    return DataError(f"data.download=true: downloading {what} into {folder} failed ({reason}; this "
                     f"machine may have no internet access). {fix}")

