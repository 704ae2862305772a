"""Matplotlib figures of per-layer quantities. Layer 1 is at the top of every layer x block image.

Every figure says what it shows and when in its title, labels its colour bar, and keeps its colour
range or axis fixed where the quantity has a natural one (T in [0, 1]) or centred on a marked
reference (the initial gate bias), so that noise never fills the scale.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m <this module>: a part of the package, not a command (pass 73, row 68)
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.analysis.plots")

import textwrap
from collections.abc import Sequence

import matplotlib

matplotlib.use("Agg")  # no display on training machines
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.colors import ListedColormap, LogNorm  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import LogFormatterSciNotation, MaxNLocator, NullLocator  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

# how a log scale's missing zeros are named in the figures
ZERO_NOTE = "not on a log scale"


def layer_maps(maps: Sequence[np.ndarray], titles: Sequence[str], suptitle: str, cbar_label: str,
               cmap: str = "viridis", vmin: float | None = None, vmax: float | None = None,
               xlabel: str = "block", ncols: int = 5, cbar_marks: Sequence[tuple[float, str]] = ()
               ) -> Figure:
    """Layer x block heat maps ``(L, D)``, ``ncols`` a row, sharing one colour scale and colour bar.

    ``cbar_marks``: ``(value, label)`` pairs drawn as black lines across the colour bar, with the
    label in its legend text (e.g. the initial gate bias). A map that is NaN everywhere (a class
    with no example) is a grey panel marked "no data", not an image: blank white would read as the
    middle of a diverging scale.

    Raises:
        ValueError: every value is NaN (nothing to draw).
    """
    maps = [np.asarray(m, dtype=float) for m in maps]
    if all(np.isnan(m).all() for m in maps):
        raise ValueError(f"{suptitle!r}: every value is NaN")
    n_layers = maps[0].shape[0]
    ncols = min(ncols, len(maps))
    nrows = -(-len(maps) // ncols)
    # a fixed layout in inches (constrained layout would double the drawing time, paid every epoch):
    # 0.8 in left of the maps, 2.3 in per map, 1.5 in right of them for the colour bar and its labels
    width, height = max(6.0, 2.3 + 2.3 * ncols), 0.8 + 3.2 * nrows
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False)
    fig.subplots_adjust(left=0.8 / width, right=1 - 1.5 / width, top=1 - 0.7 / height,
                        bottom=0.55 / height, wspace=0.3, hspace=0.45)
    if vmin is None:
        vmin = float(np.nanmin([np.nanmin(m) for m in maps if not np.isnan(m).all()]))
    if vmax is None:
        vmax = float(np.nanmax([np.nanmax(m) for m in maps if not np.isnan(m).all()]))
    for ax in axes.flat[len(maps):]:
        ax.set_visible(False)
    for ax, m, title in zip(axes.flat, maps, titles, strict=False):
        ax.set_title(title, fontsize=9)
        if np.isnan(m).all():
            ax.set_facecolor("0.85")
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes, color="0.3")
            ax.set_xticks([])
            ax.set_yticks([])
            continue
        image = ax.imshow(m, aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax, interpolation="nearest",
                          extent=(0.5, m.shape[1] + 0.5, n_layers + 0.5, 0.5))  # layer 1 on top
        ax.set_xlabel(xlabel)
        ax.set_yticks(_layer_ticks(n_layers))
    for row in axes:
        row[0].set_ylabel("layer")
    cbar = fig.colorbar(image, cax=fig.add_axes((1 - 1.3 / width, 0.55 / height, 0.12 / width,
                                                 1 - 1.25 / height)))
    _mark_colorbar(cbar, cbar_label, cbar_marks)
    fig.suptitle(suptitle, fontsize=10)
    return fig


def layer_step_map(steps: Sequence[int], values: np.ndarray, title: str, cbar_label: str,
                   cmap: str = "viridis", vmin: float | None = None, vmax: float | None = None,
                   log: bool = False, cbar_marks: Sequence[tuple[float, str]] = (),
                   end_step: int | None = None) -> Figure:
    """Layer x training-step heat map of ``values (S, L)`` measured at ``steps (S,)``; see
    :func:`layer_step_maps`."""
    return layer_step_maps(steps, {"": values}, title, cbar_label, cmap, vmin, vmax, log, cbar_marks,
                           end_step)


def layer_step_maps(steps: Sequence[int], maps: dict[str, np.ndarray], title: str, cbar_label: str,
                    cmap: str = "viridis", vmin: float | None = None, vmax: float | None = None,
                    log: bool = False, cbar_marks: Sequence[tuple[float, str]] = (),
                    end_step: int | None = None, shared_scale: bool = True,
                    hold: int | None = None) -> Figure:
    """Layer x training-step heat maps, side by side: each ``(S, L)`` array of ``maps`` (titled by
    its key) holds per-layer values measured at ``steps (S,)``, layer 1 on top. ``shared_scale``:
    one colour scale and bar for all panels (values of one quantity); else each panel has its own
    scale and bar over its own range (different quantities, e.g. the gradient norms of a layer's
    parameters and of its input, which can lie decades apart).
    Each measurement is drawn from its step to the next one's (the last to ``end_step``, the step
    the figure is drawn at, or one step on), so the x axis runs from the first measurement to now;
    small ticks at the bottom mark the measurements. ``hold``: the measurements' cadence in steps; a
    measurement is drawn for at most that many steps, and the steps after it are left blank until the
    next one (new-user pass 60: a run of 30 steps measured every 200 showed step 0's value painted
    over all 30). ``log``: a logarithmic colour scale; values of
    exactly 0 (a gradient that vanished entirely: below any log scale) are drawn grey and the colour
    bar's label says so (before, blank white, like no measurement: new-user pass 32), other
    non-positive values are left blank; ``vmin``/``vmax`` default to the data's range.

    Raises:
        ValueError: an array is not ``(len(steps), L)``, or every value is NaN (or, with ``log``,
            not positive).
    """
    steps = np.asarray(steps, dtype=float)
    arrays = {name: np.asarray(a, dtype=float) for name, a in maps.items()}
    for a in arrays.values():
        if a.ndim != 2 or a.shape[0] != len(steps) or len(steps) == 0:
            raise ValueError(f"{title!r}: values {a.shape} do not match {len(steps)} steps")
    shown = {name: np.where(a > 0, a, np.nan) if log else a for name, a in arrays.items()}
    zeros = {name: np.where(a == 0, 1.0, np.nan) for name, a in arrays.items()} if log else {}
    zeros = {name: z for name, z in zeros.items() if not np.isnan(z).all()}
    if zeros:
        cbar_label += f"\n(grey: exactly 0, {ZERO_NOTE})"
    if all(np.isnan(a).all() for a in shown.values()):
        raise ValueError(f"{title!r}: no value to draw")
    groups = [list(shown.values())] if shared_scale else [[a] for a in shown.values()]
    norms = []
    for group in groups:  # one colour scale per group of panels: vmin/vmax, or the group's range
        low = float(np.nanmin([np.nanmin(a) for a in group])) if vmin is None else vmin
        high = float(np.nanmax([np.nanmax(a) for a in group])) if vmax is None else vmax
        norms += [LogNorm(vmin=low, vmax=high) if log else plt.Normalize(vmin=low, vmax=high)] * len(group)
    end = max(float(end_step) if end_step is not None else steps[-1], steps[-1] + 1)
    edges = np.concatenate([steps, [end]])  # measurement i holds from steps[i] to steps[i + 1]
    if hold is not None:  # ... or for `hold` steps, then a blank (NaN) span until the next one
        stops = np.minimum(edges[1:], steps + hold)
        gaps = np.flatnonzero(stops < edges[1:])
        edges = np.insert(edges, gaps + 1, stops[gaps])
        shown = {name: np.insert(a, gaps + 1, np.nan, axis=0) for name, a in shown.items()}
        zeros = {name: np.insert(z, gaps + 1, np.nan, axis=0) for name, z in zeros.items()}
    # a fixed layout in inches (constrained layout costs twice the drawing time, paid every epoch):
    # 0.8 in left, 5.2 in per panel and 0.35 in between (1.6 in with a colour bar each), 1.6 in right
    # for the last colour bar and its labels
    gap = 0.35 if shared_scale else 1.6
    width, height = 2.4 + 5.2 * len(shown) + gap * (len(shown) - 1), 4.2
    fig, axes = plt.subplots(1, len(shown), figsize=(width, height), squeeze=False, sharey=True)
    fig.subplots_adjust(left=0.8 / width, right=1 - 1.6 / width, top=1 - 0.75 / height, bottom=0.6 / height,
                        wspace=gap / 5.2)
    meshes = []
    for ax, (name, a), norm in zip(axes.flat, shown.items(), norms, strict=True):
        mesh = ax.pcolormesh(edges, np.arange(0.5, a.shape[1] + 1), a.T, cmap=cmap, norm=norm, shading="flat")
        meshes.append(mesh)
        if name in zeros:
            ax.pcolormesh(edges, np.arange(0.5, a.shape[1] + 1), zeros[name].T, cmap=ListedColormap(["0.6"]),
                          shading="flat")
        ax.set_xlim(edges[0], edges[-1])
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xticks(steps, minor=True)  # where the measurements were taken
        ax.tick_params(axis="x", which="minor", length=4, color="black")
        ax.set_xlabel("training step (trainer/global_step)")
        if name:
            ax.set_title(name, fontsize=9)
    n_layers = next(iter(shown.values())).shape[1]
    axes[0, 0].set_ylim(n_layers + 0.5, 0.5)  # layer 1 on top
    axes[0, 0].set_yticks(_layer_ticks(n_layers))
    axes[0, 0].set_ylabel("layer")
    bars = [(axes[0, -1], meshes[-1])] if shared_scale else list(zip(axes.flat, meshes, strict=True))
    for ax, mesh in bars:  # each bar 0.2 in right of its panel (inches from the figure's left)
        right = ax.get_position().x1 * width
        cax = fig.add_axes(((right + 0.2) / width, 0.6 / height, 0.12 / width, 1 - 1.35 / height))
        _mark_colorbar(fig.colorbar(mesh, cax=cax), cbar_label, cbar_marks)
    fig.suptitle(title, fontsize=10)
    return fig


def _mark_colorbar(cbar, label: str, marks: Sequence[tuple[float, str]]) -> None:
    norm = cbar.norm
    if not isinstance(norm, LogNorm) or norm.vmax >= 100 * norm.vmin:  # decades enough to label the scale:
        cbar.minorticks_off()  # then minor ticks only cost drawing time (a fifth of it)
    for value, _ in marks:
        cbar.ax.axhline(value, color="black", linewidth=1.5)
    cbar.set_label(label + "".join(f"\n(line: {text})" for _, text in marks))


def _wrapped(title: str, width: int = 78) -> tuple[str, int]:
    """``title`` with each of its lines wrapped at ``width`` characters (what a 6.5-inch figure holds at
    font size 10), and its number of lines."""
    lines = [part for line in title.split("\n") for part in textwrap.wrap(line, width) or [""]]
    return "\n".join(lines), len(lines)


def _layer_ticks(n_layers: int) -> list[int]:
    """Layer 1, every ``step``-th layer (a round number, about a fifth of the depth), and the last."""
    step = int(round(n_layers / 5, -1)) or max(1, n_layers // 5)
    return sorted({1, *range(step, n_layers + 1, step), n_layers})


def layer_lines(series: dict[str, np.ndarray], title: str, ylabel: str, log: bool = False,
                ylim: tuple[float, float] | None = None,
                reference: dict[str, np.ndarray] | None = None) -> Figure:
    """Line plot of per-layer values (layer 1 .. L on the x axis), one line per entry of ``series``;
    ``reference`` lines (e.g. the values at initialisation) are drawn dashed and grey. ``ylim`` fixes
    the y axis (e.g. ``(0, 1)`` for gate values). The legend sits below the axes, never over data.
    ``log``: values of exactly 0, which a log axis cannot show, are marked ``x`` on its bottom edge,
    with a legend entry (before, the line simply stopped there: new-user pass 32).

    Raises:
        ValueError: every value is NaN (or, with ``log``, not positive).
    """
    few = max(len(np.asarray(v)) for v in series.values()) <= 60
    marker = {"marker": "."} if few else {}  # dots only where there are few layers
    styles = [(label, values, marker) for label, values in series.items()]
    styles += [(label, values, {"linestyle": "--", "color": "grey"})
               for label, values in (reference or {}).items()]
    zero_labels = [f"{label}: exactly 0 ({ZERO_NOTE})" for label, values, _ in styles
                   if log and (np.asarray(values, dtype=float) == 0).any()]
    entries = [label for label, _, _ in styles] + zero_labels if len(styles) > 1 or zero_labels else []
    ncols = min(len(entries), 1 if any(len(e) > 40 for e in entries) else 3) or 1  # long ones: a row each
    rows = -(-len(entries) // ncols)
    # fixed margins in inches: 1.2 left (tick labels such as 3.6x10^-2, then the label: before, 0.95
    # cut the label, new-user pass 32), 0.75 below plus 0.18 a legend row (before, the legend could run
    # off both sides), 0.2 plus 0.2 a title line above; the axes 2.9 high
    title, lines = _wrapped(title)
    top, bottom = 0.2 + 0.2 * lines, 0.75 + 0.18 * rows
    height = 2.9 + top + bottom
    fig, ax = plt.subplots(figsize=(6.5, height))
    fig.subplots_adjust(left=1.2 / 6.5, right=1 - 0.25 / 6.5, top=1 - top / height, bottom=bottom / height)
    drawn, low, high = 0, np.inf, -np.inf
    for label, values, style in styles:
        values = np.asarray(values, dtype=float)
        visible = values > 0 if log else ~np.isnan(values)
        drawn += int(visible.sum())
        if visible.any():
            low, high = min(low, float(values[visible].min())), max(high, float(values[visible].max()))
        line, = ax.plot(np.arange(1, len(values) + 1), values, label=label, **style)
        if log and (values == 0).any():  # on the bottom edge, in axes units: below any log scale
            at = np.flatnonzero(values == 0) + 1
            ax.plot(at, np.zeros(len(at)), transform=blended_transform_factory(ax.transData, ax.transAxes),
                    marker="x", linestyle="none", color=line.get_color(), clip_on=False,
                    label=f"{label}: exactly 0 ({ZERO_NOTE})")
    if not drawn:
        raise ValueError(f"{title!r}: no value to draw")
    if log:
        ax.set_yscale("log", nonpositive="mask")  # a zero breaks the line (not a drop to the edge)
        if ylim is None and high < 100 * low:  # under two decades: few powers of ten, so label 2, 5, ...
            ax.yaxis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False,
                                                                 minor_thresholds=(2, 0.5)))
        else:  # unlabelled minor ticks would cost a fifth of the drawing time
            ax.yaxis.set_minor_locator(NullLocator())
    if ylim is not None:
        ax.set_ylim(*ylim)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.5, max(len(np.asarray(v)) for _, v, _ in styles) + 0.5)
    ax.set_xlabel("layer")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    if entries:
        fig.legend(loc="lower center", ncols=ncols, fontsize=8, frameon=False)
    return fig


def layer_bars(values: np.ndarray, title: str, ylabel: str) -> Figure:
    """Bar plot of one value per layer, layers 1 .. L on the x axis (NaN: no bar).

    Raises:
        ValueError: every value is NaN.
    """
    values = np.asarray(values, dtype=float)
    if np.isnan(values).all():
        raise ValueError(f"{title!r}: every value is NaN")
    title, lines = _wrapped(title)  # before, a long title ran off the right edge (new-user pass 32)
    height = 3.8 + 0.2 * lines  # fixed margins in inches: 1.2 left, 0.6 below, 0.2 a title line above
    fig, ax = plt.subplots(figsize=(6.5, height))
    fig.subplots_adjust(left=1.2 / 6.5, right=1 - 0.25 / 6.5, top=1 - (0.2 + 0.2 * lines) / height,
                        bottom=0.6 / height)
    ax.bar(np.arange(1, len(values) + 1), np.nan_to_num(values), color="tab:blue", width=0.8)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlim(0.4, len(values) + 0.6)
    ax.set_xlabel("lesioned layer")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return fig


def to_rgb(fig: Figure) -> np.ndarray:
    """Render a figure to an ``(H, W, 3)`` uint8 array and close it."""
    try:
        fig.canvas.draw()
        return np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    finally:
        plt.close(fig)
