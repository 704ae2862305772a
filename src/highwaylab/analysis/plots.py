"""Matplotlib figures of per-layer quantities. Layer 1 is at the top of every layer x block image."""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # no display on training machines
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402


def layer_maps(maps: Sequence[np.ndarray], titles: Sequence[str], suptitle: str, cbar_label: str,
               cmap: str = "viridis", vmin: float | None = None, vmax: float | None = None,
               xlabel: str = "block", ncols: int = 5) -> Figure:
    """Layer x block heat maps ``(L, D)``, ``ncols`` a row, sharing one colour scale and colour bar."""
    maps = [np.asarray(m, dtype=float) for m in maps]
    n_layers = maps[0].shape[0]
    ncols = min(ncols, len(maps))
    nrows = -(-len(maps) // ncols)
    # a fixed layout in inches (constrained layout would double the drawing time, paid every epoch):
    # 0.7 in left of the maps, 2.3 in per map, 1.2 in right of them for the colour bar and its labels
    width, height = max(6.0, 1.9 + 2.3 * ncols), 0.7 + 3.2 * nrows
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False)
    fig.subplots_adjust(left=0.7 / width, right=1 - 1.2 / width, top=1 - 0.7 / height,
                        bottom=0.5 / height, wspace=0.3, hspace=0.45)
    if vmin is None:
        vmin = float(np.nanmin([np.nanmin(m) for m in maps]))  # NaN: a layer without that value
    if vmax is None:
        vmax = float(np.nanmax([np.nanmax(m) for m in maps]))
    for ax in axes.flat[len(maps):]:
        ax.set_visible(False)
    for ax, m, title in zip(axes.flat, maps, titles, strict=False):
        image = ax.imshow(m, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest",
                          extent=(0.5, m.shape[1] + 0.5, n_layers + 0.5, 0.5))  # layer 1 on top
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_yticks(_layer_ticks(n_layers))
    for row in axes:
        row[0].set_ylabel("layer")
    fig.colorbar(image, cax=fig.add_axes((1 - 1.0 / width, 0.5 / height, 0.12 / width, 1 - 1.2 / height)),
                 label=cbar_label)
    fig.suptitle(suptitle, fontsize=10)
    return fig


def _layer_ticks(n_layers: int) -> list[int]:
    """Layer 1, every ``step``-th layer (a round number, about a fifth of the depth), and the last."""
    step = int(round(n_layers / 5, -1)) or max(1, n_layers // 5)
    return sorted({1, *range(step, n_layers + 1, step), n_layers})


def layer_lines(series: dict[str, np.ndarray], title: str, ylabel: str, log: bool = False) -> Figure:
    """Line plot of per-layer values (layer 1 .. L on the x axis), one line per entry."""
    fig, ax = plt.subplots(figsize=(6, 3.6))
    fig.subplots_adjust(left=0.13, right=0.97, top=0.9, bottom=0.14)
    for label, values in series.items():
        values = np.asarray(values, dtype=float)
        ax.plot(np.arange(1, len(values) + 1), values, marker=".", label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel("layer")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    if len(series) > 1:
        ax.legend()
    return fig


def layer_bars(values: np.ndarray, title: str, ylabel: str, baseline: float | None = None) -> Figure:
    """Bar plot of one value per layer (1 .. L), with an optional horizontal baseline."""
    values = np.asarray(values, dtype=float)
    fig, ax = plt.subplots(figsize=(6, 3.6))
    fig.subplots_adjust(left=0.13, right=0.97, top=0.9, bottom=0.14)
    ax.bar(np.arange(1, len(values) + 1), values, color="tab:blue")
    if baseline is not None:
        ax.axhline(baseline, color="tab:red", linestyle="--", label=f"no lesion: {baseline:.4f}")
        ax.legend()
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("lesioned layer")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return fig


def to_rgb(fig: Figure) -> np.ndarray:
    """Render a figure to an ``(H, W, 3)`` uint8 array and close it."""
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    plt.close(fig)
    return rgb
