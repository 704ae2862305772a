"""The depth report of a multirun [TVDN Figure 1]: final training loss and test accuracy against
depth, one line per model, seeds as mean +- standard deviation; training-loss curves per depth.

Everything is read from the sweep's files: each job folder's ``.hydra/`` (model, depth, seed),
``metrics.json``, and its offline W&B run (the ``train/loss_step`` history), plus the sweep's
``summary.jsonl`` (failed jobs and their errors).
"""

from __future__ import annotations

import json
import math
import statistics
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import NullFormatter  # noqa: E402
from omegaconf import OmegaConf  # noqa: E402

from highwaylab.utils.sweep import read_summary  # noqa: E402
from highwaylab.utils.wandb_offline import read_history  # noqa: E402

LOSS, ACC, STEP = "train/loss", "test/acc", "trainer/global_step"


@dataclass
class Job:
    """One job of the sweep: its folder, model, depth, seed, final metrics and loss curve."""

    folder: Path
    model: str
    depth: int
    seed: int
    status: str  # "ok", "failed" or "interrupted" (in summary.jsonl), or "incomplete" (no metrics.json)
    metrics: dict = field(default_factory=dict)
    error: str | None = None
    curve: list[tuple[int, float]] = field(default_factory=list)  # (step, train/loss_step)


def collect_jobs(sweep_dir: str | Path) -> list[Job]:
    """Every job folder under ``sweep_dir`` (those with a ``.hydra/config.yaml``), in job order.

    Raises:
        FileNotFoundError: ``sweep_dir`` holds no job folder.
    """
    sweep_dir = Path(sweep_dir)
    ended = {Path(line["output_dir"]).name: (line["status"], line["error"])  # failed, or interrupted
             for line in read_summary(sweep_dir) if line["status"] != "ok"}
    jobs = []
    for config in sorted(sweep_dir.glob("*/.hydra/config.yaml"), key=_job_number):
        folder = config.parent.parent
        try:
            cfg = OmegaConf.load(config)
            choices = OmegaConf.load(folder / ".hydra" / "hydra.yaml").hydra.runtime.choices
        except Exception as err:  # a damaged record: the job cannot be placed on the plot
            warnings.warn(f"{folder.name}: its .hydra record cannot be read ({type(err).__name__}); skipped",
                          stacklevel=2)
            continue
        metrics, (recorded, error) = {}, ended.get(folder.name, (None, None))
        if (folder / "metrics.json").is_file():
            try:
                metrics = json.loads((folder / "metrics.json").read_text())
            except json.JSONDecodeError as err:
                error = f"metrics.json cannot be read ({err})"
        status = "ok" if metrics else (recorded or "incomplete")
        depth = int(metrics.get("depth", cfg.get("depth") or 0))  # the backbone's own depth if it finished
        jobs.append(Job(folder, str(choices.get("model")), depth, int(cfg.seed), status, metrics, error,
                        loss_curve(folder)))
    if not jobs:
        raise FileNotFoundError(f"{sweep_dir} holds no job folder (<n>_<name>/.hydra/config.yaml): "
                                "give the folder of a multirun, e.g. outputs/multiruns/<date>_<time>")
    return jobs


def loss_curve(folder: Path) -> list[tuple[int, float]]:
    """``(step, training loss)`` of every offline W&B run in ``folder`` (a resumed job has several):
    the per-batch ``train/loss_step`` (logged every ``trainer.log_every_n_steps`` steps), or, for a
    job too short to log it, the per-epoch ``train/loss``."""
    per_step, per_epoch = {}, {}
    for run_file in sorted(folder.glob("wandb/*run-*/run-*.wandb")):
        for row in read_history(run_file):
            if STEP in row:
                for key, points in ((LOSS + "_step", per_step), (LOSS, per_epoch)):
                    if key in row:
                        points[int(row[STEP])] = float(row[key])
    return sorted((per_step or per_epoch).items())


@dataclass
class Point:
    """Mean and standard deviation over the seeds of one (model, depth)."""

    model: str
    depth: int
    seeds: list[int]
    loss: list[float]
    acc: list[float]

    @property
    def loss_mean(self) -> float:
        return statistics.fmean(self.loss) if self.loss else math.nan

    @property
    def acc_mean(self) -> float:
        return statistics.fmean(self.acc) if self.acc else math.nan

    @staticmethod
    def spread(values: list[float]) -> float:
        return statistics.stdev(values) if len(values) > 1 else 0.0


def aggregate(jobs: list[Job]) -> list[Point]:
    """One :class:`Point` per (model, depth) over the finished jobs, sorted by model then depth."""
    groups: dict[tuple[str, int], Point] = {}
    for job in jobs:
        if job.status != "ok":
            continue
        point = groups.setdefault((job.model, job.depth), Point(job.model, job.depth, [], [], []))
        point.seeds.append(job.seed)
        point.loss.append(float(job.metrics.get(LOSS, math.nan)))
        point.acc.append(float(job.metrics.get(ACC, math.nan)))
    return [groups[k] for k in sorted(groups)]


def depth_figure(points: list[Point]) -> Figure:
    """Final training loss (log scale) and test accuracy against depth, one line per model."""
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    by_model = defaultdict(list)
    for p in points:
        by_model[p.model].append(p)
    for model, pts in sorted(by_model.items()):
        depths = [p.depth for p in pts]
        for ax, mean, values, scale in ((ax_loss, "loss_mean", "loss", 1), (ax_acc, "acc_mean", "acc", 100)):
            line = ax.errorbar(depths, [scale * getattr(p, mean) for p in pts],
                               yerr=[scale * Point.spread(getattr(p, values)) for p in pts],
                               marker="o", capsize=3, label=model)
            for p in pts:  # each seed as a faint dot
                ax.scatter([p.depth] * len(getattr(p, values)), [scale * v for v in getattr(p, values)],
                           s=10, alpha=0.4, color=line[0].get_color())
    ax_loss.set_yscale("log")
    ax_loss.set_ylabel("final training loss (nats, mean over the last epoch)")
    ax_acc.set_ylabel("test accuracy (%)")
    for ax in (ax_loss, ax_acc):
        ax.set_xlabel("depth (layers)")
        ax.set_xscale("log")
        ax.set_xticks(sorted({p.depth for p in points}), [str(d) for d in sorted({p.depth for p in points})])
        ax.xaxis.set_minor_formatter(NullFormatter())  # only the swept depths are labelled
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle("Depth against final training loss and test accuracy (mean +- std over seeds)")
    fig.tight_layout()
    return fig


def curves_figure(jobs: list[Job]) -> Figure:
    """Training-loss curves (``train/loss_step``), one panel per depth, one line per model and seed."""
    depths = sorted({j.depth for j in jobs if j.curve})
    if not depths:  # no job logged a training loss
        fig, ax = plt.subplots(figsize=(6, 2))
        ax.text(0.5, 0.5, "no training loss in the jobs' W&B runs", ha="center", va="center")
        ax.set_axis_off()
        return fig
    fig, axes = plt.subplots(1, len(depths), figsize=(3.2 * len(depths) + 1, 3.6), squeeze=False,
                             sharey=True)
    colours = {m: f"C{i}" for i, m in enumerate(sorted({j.model for j in jobs}))}
    for ax, depth in zip(axes[0], depths, strict=True):
        for job in (j for j in jobs if j.depth == depth and j.curve):
            steps, losses = zip(*job.curve, strict=True)
            ax.plot(steps, losses, color=colours[job.model], alpha=0.9 if job.seed == 0 else 0.5,
                    marker="o" if len(steps) < 5 else None,  # a single epoch mean stays visible
                    label=f"{job.model} s{job.seed}")
        ax.set_title(f"depth {depth}")
        ax.set_xlabel("step")
        ax.set_yscale("log")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel("training loss")
    fig.tight_layout()
    return fig


def table_rows(points: list[Point]) -> list[dict]:
    """The table: model, depth, seeds, mean and std of final training loss and test accuracy."""
    return [{"model": p.model, "depth": p.depth, "seeds": len(p.seeds),
             "train_loss_mean": p.loss_mean, "train_loss_std": Point.spread(p.loss),
             "test_acc_mean": p.acc_mean, "test_acc_std": Point.spread(p.acc)} for p in points]


def markdown_table(rows: list[dict], jobs: list[Job]) -> str:
    """The table as markdown, followed by the jobs that failed or did not finish."""
    lines = ["| model | depth | seeds | final training loss (nats) | test accuracy (%) |",
             "|---|---|---|---|---|"]
    for r in rows:  # accuracies in percent, as in the README; table.csv keeps fractions, as metrics.json
        lines.append(f"| {r['model']} | {r['depth']} | {r['seeds']} | {r['train_loss_mean']:.4g} ± "
                     f"{r['train_loss_std']:.2g} | {100 * r['test_acc_mean']:.2f} ± "
                     f"{100 * r['test_acc_std']:.2f} |")
    for job in (j for j in jobs if j.status != "ok"):
        lines.append(f"\n- {job.folder.name}: {job.status}" + (f": {job.error}" if job.error else ""))
    return "\n".join(lines) + "\n"


def _job_number(config: Path) -> tuple[int, str]:
    name = config.parent.parent.name
    head = name.split("_", 1)[0]
    return (int(head) if head.isdigit() else 1 << 30, name)
