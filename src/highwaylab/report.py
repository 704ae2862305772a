"""Depth report of a multirun: ``python -m highwaylab.report outputs/multiruns/<date>_<time>_<hex>``.

Writes into ``<sweep dir>/report/`` (or ``--out``):

- ``depth.png``: final training loss and test accuracy against depth, one line per model, the
  seeds as mean +- standard deviation and dots [TVDN Figure 1];
- ``loss_curves.png``: the training-loss curves, one panel per depth;
- ``table.md`` and ``table.csv``: the same numbers (and the failed jobs, with their errors);
- ``.report_of``: the sweep's folder; an ``--out`` that holds another sweep's report is refused.

Each point is one model and depth (and value of any other key the sweep varies); its ``seeds`` are
the distinct seeds of its jobs: jobs that repeat a seed count once (see
:mod:`highwaylab.analysis.sweep_report`), with a one-line warning on stderr.

It also logs them to a W&B run of ``job_type`` ``report`` in the sweep's project and group, as its
jobs recorded them (``logger.wandb.project`` and ``.group``; default ``highwaylab`` and
``sweep-<sweep folder name>``; ``--project`` and ``--group`` set others): offline unless
``WANDB_MODE`` says otherwise, so that it works from the files alone, without network;
``--no-wandb`` skips it.

Ctrl-C (SIGINT) stops it with one line ``highwaylab: interrupted ...`` and exit status 130; an
``--out`` folder that it made and that is still empty is removed.
"""

from __future__ import annotations

import argparse
import csv
import os
import shlex
import sys
import tempfile
import warnings
from pathlib import Path
from typing import NoReturn

from highwaylab.analysis.plots import to_rgb
from highwaylab.analysis.sweep_report import (
    aggregate,
    collect_jobs,
    curve_cut_short,
    curve_starts_late,
    curves_figure,
    depth_figure,
    markdown_table,
    recorded_wandb,
    recorded_wandb_values,
    table_rows,
    ungrouped,
    wandb_folder_gone,
    wandb_run_files,
)
from highwaylab.cli import non_empty
from highwaylab.utils.out_paths import long_name_problem, run_folder_holding, tilde_problem

SWEEP_EXAMPLE = "outputs/multiruns/<date>_<time>_<hex>"  # in the messages: what a multirun folder is


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(prog="python -m highwaylab.report", description=__doc__.split("\n")[0])
    parser.add_argument("sweep_dir", type=non_empty(f"the multirun folder, e.g. {SWEEP_EXAMPLE}", Path),
                        help=f"the multirun folder, e.g. {SWEEP_EXAMPLE}")
    parser.add_argument("--out", default=None, help="output folder (default: <sweep_dir>/report)")
    parser.add_argument("--project", default=None, help="W&B project of the report run (default: the "
                        "jobs' logger.wandb.project, else highwaylab)")
    parser.add_argument("--group", default=None, help="W&B group of the report run (default: the jobs' "
                        "logger.wandb.group, else sweep-<sweep folder name>)")
    parser.add_argument("--no-wandb", action="store_true", help="do not log a W&B report run")
    args, extra = parser.parse_known_args(argv)
    if extra:
        given = [args.sweep_dir, *map(Path, extra)]
        parents = {p.absolute().parent for p in given}
        if len(parents) == 1 and (sweep := parents.pop()).joinpath("multirun.yaml").is_file():
            # pass 68, row 4: a shell glob (<sweep>/*) gave the sweep's jobs; before, argparse's
            # "unrecognized arguments" listed all but the first
            fail(parser, f"{len(given)} paths inside the multirun {sweep} were given (a shell glob, "
                         f"<sweep>/*?): the report takes the multirun's folder and reads its jobs itself. "
                         f"Fix: python -m highwaylab.report {shlex.quote(str(sweep))}")
        flags = ["--out", "--project", "--group", "--no-wandb", "--help"]
        if (flag := next((e.split("=", 1)[0] for e in extra if e.startswith("-")), None)) is not None:
            # pass 82, row 37: --outdir; before, argparse's usage and "unrecognized arguments", no suggestion
            import difflib

            close = difflib.get_close_matches(flag.lstrip("-"), [f.lstrip("-") for f in flags], n=1)
            fix = f"--{close[0]} in its place" if close else "python -m highwaylab.report --help lists them"
            fail(parser, f"{flag} is not an option of the report (its options: {', '.join(flags)}). "
                         f"Fix: {fix}")
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    where: dict = {"out": None, "made": []}  # the --out folder, and those of its folders this report made
    try:
        return _report(parser, args, where)
    except KeyboardInterrupt:  # before: a traceback through matplotlib, and an empty --out left behind
        parser.exit(130, _interrupted(where["out"], where["made"]) + "\n")


def _interrupted(out: Path | None, made: list[Path]) -> str:
    """The line of a report stopped by SIGINT (Ctrl-C), after removing the folders in ``made`` (those
    of ``out`` that the report made, innermost first) that are still empty: a folder that was there
    before, or holds a file, stays."""
    if out is None:
        return "highwaylab: interrupted (SIGINT) while reading the sweep: nothing written"
    removed = 0
    for folder in made:
        try:
            folder.rmdir()  # only an empty folder
        except OSError:
            break
        removed += 1
    if made and removed == len(made):
        return f"highwaylab: interrupted (SIGINT) before the report was written: removed {out}, the empty " \
               f"--out folder it had made"
    return f"highwaylab: interrupted (SIGINT) while writing the report: what {out} holds may be " \
           f"incomplete. Fix: run it again"


def _placeholder(given: Path) -> str:
    """The note that ``given`` holds the README's placeholders (``<date>``), else ``""``."""
    held = "<" in str(given)
    return " (its <...> parts are placeholders, as in the README, to be replaced)" if held else ""


def _multiruns_here(given: Path) -> str:
    """An example multirun folder for the messages: the newest of those beside ``given`` or in
    ``outputs/multiruns/`` (of ``HIGHWAYLAB_ROOT`` or the current folder), else the form of one (pass 53,
    row 42: before, always the README's form, which was the very input when that was typed)."""
    root = Path(os.environ.get("HIGHWAYLAB_ROOT") or ".")
    for folder in (given.parent, root / "outputs" / "multiruns"):
        try:
            sweeps = sorted((p for p in folder.iterdir() if (p / "multirun.yaml").is_file()),
                            key=lambda p: p.stat().st_mtime)
        except OSError:  # no such folder, or unreadable
            continue
        if sweeps:
            return f"e.g. the newest in {folder}: {sweeps[-1]}"
    return (f"e.g. {SWEEP_EXAMPLE}; none is in {(root / 'outputs' / 'multiruns').absolute()}: a sweep "
            f"(python train.py -m ...) makes one")


def _report(parser: argparse.ArgumentParser, args: argparse.Namespace, where: dict) -> Path:
    """The work of :func:`main` after its arguments are read; sets ``where["out"]`` to the output
    folder once it is known, and ``where["made"]`` to those of its folders that it made, innermost
    first (:func:`_interrupted` removes them if still empty)."""
    if not args.no_wandb and args.project is not None:  # before any work: W&B would refuse it later
        check_project(parser, args.project)
    if args.group is not None and not args.group.strip():  # before: silently the default group
        fail(parser, "--group is empty: give a W&B group, e.g. --group sweep-depth (or leave --group out: "
                     "the jobs' group)")
    parent = args.sweep_dir.parent
    if args.sweep_dir.is_file() and any((parent / name).exists() for name in ("multirun.yaml",
                                                                             "summary.jsonl")):
        # pass 55, row 46: the sweep's summary.jsonl; before, "none is in outputs/multiruns"
        fail(parser, f"{args.sweep_dir} is a file of the multirun {parent}: the report takes the multirun's "
                     f"folder. Fix: python -m highwaylab.report {shlex.quote(str(parent))}")
    sweep = next((p for p in args.sweep_dir.absolute().parents
                  if (p / "multirun.yaml").is_file() or (p / "summary.jsonl").is_file()), None)
    if sweep is not None and not args.sweep_dir.is_dir() and args.sweep_dir.exists():
        # a file of one of its jobs (<sweep>/0_<run>/metrics.json; pass 90, row 53: before, "is not a
        # folder", with an example in outputs/multiruns)
        fail(parser, f"{args.sweep_dir} is a file of a job of the multirun {sweep}: the report takes the "
                     f"multirun's folder. Fix: python -m highwaylab.report {shlex.quote(str(sweep))}")
    if not args.sweep_dir.is_dir():  # pass 57, row 79: a relative one that is not here, named in full
        where = "" if args.sweep_dir.is_absolute() or _placeholder(args.sweep_dir) else \
            f" ({args.sweep_dir.absolute()})"
        what = " is not a folder" if args.sweep_dir.exists() else f": no such folder{where}"
        fail(parser, f"{args.sweep_dir}{what}{_placeholder(args.sweep_dir)}: give a multirun "
                     f"folder, {_multiruns_here(args.sweep_dir)}")
    if args.out is not None and not args.out.strip():  # Path("") is ".": the report in the cwd
        fail(parser, f"--out is empty: give a folder, e.g. --out {args.sweep_dir / 'report'} (or leave --out "
                     f"out: <sweep_dir>/report)")
    if args.out is not None and args.out.strip() == "-":  # before: a folder named '-' (pass 30, row 44)
        fail(parser, f"--out -: the report is a folder of figures and tables, not one stream; give a folder, "
                     f"e.g. --out {args.sweep_dir.resolve().name}_report (its table.md is the table as text)")
    tilde = tilde_problem("--out", args.out) if args.out is not None else None
    if tilde is not None:  # pass 35, row 25: before, the report written into a folder named '~'
        fail(parser, tilde)
    if args.out is not None and (long := long_name_problem("--out ", args.out)) is not None:
        fail(parser, long)
    args.out = Path(args.out) if args.out is not None else None
    # --out is checked before the jobs are read, so that a refusal is one line, without their warnings
    # before it (pass 50, row 57; pass 52, row 64), as the README says
    out = args.out or args.sweep_dir / "report"
    mine = Path(f"{args.sweep_dir.resolve().name}_report")  # in the current folder
    elsewhere = args.sweep_dir / "report" if args.out is not None else mine
    writable = f"give a folder that can be written, e.g. --out {elsewhere}"
    given = f"--out {out}" if args.out is not None else f"{out} (the default --out, inside the sweep)"
    if out.exists() and not out.is_dir():
        fail(parser, f"{given} is a file, not a folder: {writable}")
    if args.out is not None and not out.exists() and out.suffix.lower() in (".png", ".pdf", ".svg", ".jpg",
                                                                            ".md", ".csv", ".html"):
        # pass 85, row 59: before, a folder named report.png, "Report written to .../report.png"
        fail(parser, f"{given} names a file, but --out is the folder the report writes its files into "
                     f"(depth.png, loss_curves.png, table.md, table.csv). Fix: a folder, e.g. --out "
                     f"{out.with_suffix('')}")
    run = run_folder_holding(out, allowed=args.sweep_dir)
    if run is not None:  # pass 32, row 43: before, a job's folder as --out lost its own W&B run to the
        folder, held = run  # report's; pass 35, row 26: and a folder inside a run was taken
        inside = "" if folder == Path(os.path.abspath(out)) else f" is inside {folder}, which"
        fail(parser, f"{given}{inside} is the folder of a run or a multirun (it holds {', '.join(held)}): "
                     f"the report would put its files and W&B run among that run's. Fix: give a folder of "
                     f"its own, e.g. --out {elsewhere}")
    report_files = ("table.md", "table.csv", "depth.png", "loss_curves.png")
    present = [name for name in report_files if (out / name).exists()]
    if present and len(present) < 3:  # pass 37, row 35: before, a table.md of the user's own was replaced
        fail(parser, f"{given} holds {', '.join(present)}, which the report would replace, but not the other "
                     f"files of an earlier report ({', '.join(report_files)}): are they your own? Fix: give "
                     f"a new folder, e.g. --out {elsewhere}, or move them away first")
    owner = _report_owner(out)
    # the sweep's own report, moved with it (pass 80, row 46: before, "the report of another sweep", and a
    # new report in the current folder beside the stale one)
    moved = args.out is None and owner is not None and Path(owner).is_absolute() and not Path(owner).exists()
    if owner is not None and owner != str(args.sweep_dir.resolve()) and not moved \
            and owner != f"report-{args.sweep_dir.resolve().name}":  # pass 57, rows 81-82: before, replaced
        fail(parser, f"{given} holds the report of another sweep ({owner}): this report would replace its "
                     f"tables, figures and W&B report run. Fix: give a folder of its own, e.g. --out "
                     f"{elsewhere}")
    with warnings.catch_warnings(record=True) as caught:  # each printed as one line, below
        warnings.simplefilter("always")
        try:
            jobs = collect_jobs(args.sweep_dir)
        except FileNotFoundError as err:
            fail(parser, str(err))
        points = aggregate(jobs)
    for warning in caught:
        print(f"{parser.prog}: warning: {warning.message}", file=sys.stderr)
    project, group = recorded_wandb(jobs)  # before: always highwaylab and sweep-<folder>
    projects = recorded_wandb_values(jobs, "project")
    if not args.project and not args.no_wandb and len(projects) > 1:  # pass 70, row 54: before, unsaid
        print(f"{parser.prog}: warning: the jobs logged to {len(projects)} W&B projects "
              f"({', '.join(sorted(projects))}), and the report run goes into one, {project} (most jobs'); "
              f"give --project to choose", file=sys.stderr)
    if not args.group and group is None and not args.no_wandb and ungrouped(jobs):  # pass 62, row 49
        print(f"{parser.prog}: warning: the jobs ran without a W&B group (logger.wandb.group=null), so the "
              f"report run goes into group sweep-{args.sweep_dir.resolve().name}, which holds none of them; "
              f"give --group to choose another", file=sys.stderr)
    chosen = {"project": args.project, "group": args.group}
    args.project = args.project or project or "highwaylab"
    args.group = args.group or group or f"sweep-{args.sweep_dir.resolve().name}"
    for variable, key in (("WANDB_PROJECT", "project"), ("WANDB_RUN_GROUP", "group")):
        value = os.environ.get(variable)  # pass 66, row 46 and pass 67, row 17: before, dropped without a
        if not args.no_wandb and chosen[key] is None and value and value != getattr(args, key):  # word
            print(f"{parser.prog}: warning: {variable}={value} is set in the environment, but the report "
                  f"run goes into the sweep's {key}, {getattr(args, key)} (the one its jobs recorded). To "
                  f"file it under {value}: --{key} {value}", file=sys.stderr)
    if not args.no_wandb and os.environ.get("WANDB_RUN_ID"):  # pass 67, row 16 (major): before, the report
        # run took that id (a job's, left exported), and wandb sync would have merged the report into it
        print(f"{parser.prog}: warning: WANDB_RUN_ID={os.environ['WANDB_RUN_ID']} is set in the environment, "
              f"but the report run takes an id of its own, so that it never joins that run", file=sys.stderr)
    if not args.no_wandb and project is not None:
        check_project(parser, args.project)
    where["out"] = out
    missing = [folder for folder in (out, *out.parents) if not folder.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        where["made"] = missing
        with tempfile.TemporaryFile(dir=out):  # an existing folder may still refuse files (/proc, full disk)
            pass
    except OSError as err:
        fail(parser, f"{given}: cannot write the report there ({err.strerror or err}); {writable}")

    rows = table_rows(points)
    finished = [job for job in jobs if job.status == "ok"]
    # the jobs without a curve that had no W&B file either (a damaged one is named by its own warning:
    # pass 34, re-check of pass 33, row 29)
    gone = [job.folder.name for job in finished if not job.curve and wandb_folder_gone(job.folder)]
    without = [job.folder.name for job in finished if not job.curve and job.folder.name not in gone
               and not wandb_run_files(job.folder)]
    if finished and len(without) == len(finished):
        print(f"{parser.prog}: warning: loss_curves.png has no curve: no job logged its training loss to "
              f"W&B or to a CSV logger (logger=none, or tensorboard only)", file=sys.stderr)
    elif without:  # pass 32, row 46: before, a tensorboard-only job's curve was left out without a word
        print(f"{parser.prog}: warning: loss_curves.png has no curve of {', '.join(without)}: "
              f"{'it' if len(without) == 1 else 'they'} logged no training loss to W&B or to a CSV logger "
              f"(logger=none, or tensorboard only)", file=sys.stderr)
    if gone:  # pass 42, row 48: before, "it logged no training loss to W&B", of a job that had
        one = len(gone) == 1
        print(f"{parser.prog}: warning: loss_curves.png has no curve of {', '.join(gone)}: "
              f"{'it' if one else 'they'} logged to W&B, but {'its' if one else 'their'} offline run folder "
              f"(wandb/offline-run-*) is gone: removed by wandb sync --clean after an upload (the curve is "
              f"then in W&B), or moved", file=sys.stderr)
    for job in finished:  # pass 39, row 53: before, a job resumed with logger=none: its curve stopped
        for note in (curve_starts_late(job), curve_cut_short(job)):  # where W&B stopped, without a word
            if note is not None:
                print(f"{parser.prog}: warning: {note}", file=sys.stderr)
    # no job finished: no figures (before, two empty ones), and none left of an earlier report (pass 93 note)
    figures = {"depth": depth_figure(points), "loss_curves": curves_figure(jobs)} if points else {}
    try:
        for name in ("depth", "loss_curves"):
            if name in figures:
                figures[name].savefig(out / f"{name}.png", dpi=120)
            else:
                (out / f"{name}.png").unlink(missing_ok=True)
        (out / "table.md").write_text(markdown_table(rows, jobs, points))
        with (out / "table.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["model", "depth"])
            writer.writeheader()
            writer.writerows(rows)
        (out / REPORT_OF).write_text(f"{args.sweep_dir.resolve()}\n")  # whose report: _report_owner
    except OSError as err:
        fail(parser, f"--out {out}: writing the report failed ({err.strerror or err}); {writable}")
    print((out / "table.md").read_text())
    print(f"Report written to {out}")
    if not points:
        parser.exit(1, f"No job of {args.sweep_dir} finished (see the list above): nothing to plot, so the "
                       f"report is table.md and table.csv alone.\n")
    if not args.no_wandb and os.environ.get("WANDB_MODE") == "disabled":  # pass 32, row 45: before, "W&B
        print("WANDB_MODE=disabled: no W&B report run (as --no-wandb)")  # report run: <a folder never made>"
    elif not args.no_wandb:
        try:
            log_to_wandb(args.sweep_dir, out, figures, rows, jobs, args.project, args.group)
        except Exception as err:  # noqa: BLE001 -- W&B's refusal (no API key, no server): one line
            if type(err).__module__.split(".")[0] != "wandb":
                raise
            why = f"{type(err).__name__}: {' '.join(str(err).split())}"
            parser.exit(1, f"{parser.prog}: error: the report is written to {out}, but its W&B run could not "
                           f"start ({why}). Fix: wandb login, or WANDB_MODE=offline (wandb sync later), or "
                           f"--no-wandb\n")
    return out


def check_project(parser: argparse.ArgumentParser, project: str) -> None:
    """Exit with status 2 when W&B's own rule refuses the project name ``project``."""
    from highwaylab.workspace import project_name_error

    refused = project_name_error(project)
    if refused is not None:
        fail(parser, f"{refused} (or --no-wandb)")


def fail(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    """Exit with status 2 (argparse's, for bad arguments) after ``<prog>: error: <message>``, one line
    (argparse's own ``parser.error`` prints the usage first)."""
    parser.exit(2, f"{parser.prog}: error: {message}\n")


def log_to_wandb(sweep_dir: Path, out: Path, figures: dict, rows: list[dict], jobs: list,
                 project: str, group: str | None = None) -> None:
    """One W&B run (``job_type="report"``, in ``project`` and ``group``, default ``sweep-<folder>``)
    with the figures and the tables. The offline report runs that an earlier report left in
    ``<out>/wandb`` are removed once this one is written, with one line naming them: ``wandb sync``
    of the folder would otherwise upload every report ever made of the sweep, as runs of their own
    (breaking pass 27, row 46)."""
    import shutil

    import wandb

    earlier = [folder for folder in sorted((out / "wandb").glob("offline-run-*")) if _is_report_run(folder)]
    group = group or f"sweep-{sweep_dir.resolve().name}"
    exported = os.environ.pop("WANDB_RUN_ID", None)  # a run of its own, never that id's (pass 67, row 16)
    try:
        run = wandb.init(project=project, group=group, job_type="report",
                         name=f"report-{sweep_dir.resolve().name}", dir=str(out),
                         mode=os.environ.get("WANDB_MODE", "offline"))
    finally:
        if exported is not None:
            os.environ["WANDB_RUN_ID"] = exported
    try:
        run.log({f"report/{name}": wandb.Image(to_rgb(fig)) for name, fig in figures.items()})
        columns = list(rows[0]) if rows else ["model", "depth"]
        run.log({"report/table": wandb.Table(columns=columns, data=[list(r.values()) for r in rows]),
                 "report/jobs": wandb.Table(columns=["job", "model", "depth", "seed", "status", "error"],
                                            data=[[j.folder.name, j.model, str(j.depth), str(j.seed),
                                                   j.status, j.error or ""] for j in jobs])})
        # depth and seed as text: a failed job's may be a word (depth=abc), which a W&B column of numbers
        # refuses (pass 64, row 16: a traceback after the report's files were written)
        print(f"W&B report run: {Path(run.dir).parent}")  # offline-run-*: what wandb sync takes, not files/
    finally:
        run.finish()
    for folder in earlier:
        shutil.rmtree(folder, ignore_errors=True)
    if earlier:
        names = ", ".join(folder.name for folder in earlier)
        print(f"python -m highwaylab.report: replaced the earlier report's W&B run ({names}) in "
              f"{out / 'wandb'}: wandb sync uploads this report alone", file=sys.stderr)


REPORT_OF = ".report_of"
"""The file in a report's folder that names the sweep it is of (its folder, resolved)."""


def _report_owner(out: Path) -> str | None:
    """The sweep whose report ``out`` holds: the folder its ``.report_of`` names, else the name of its
    W&B report run (``report-<sweep folder's name>``, for a report written before that file); ``None``
    for a folder without a report."""
    from highwaylab.utils.wandb_offline import summarize

    try:
        return (out / REPORT_OF).read_text().strip() or None
    except OSError:
        pass
    for folder in sorted((out / "wandb").glob("offline-run-*")):
        try:
            summary = summarize(folder)
        except Exception:  # noqa: BLE001 - unreadable: not known to be a report's
            continue
        if summary.job_type == "report" and summary.name:
            return summary.name
    return None


def _is_report_run(folder: Path) -> bool:
    """Whether the offline W&B run in ``folder`` is a report's (``job_type="report"``), which a new
    report replaces; any other run, or one that cannot be read, is never removed."""
    from highwaylab.utils.wandb_offline import summarize

    try:
        return summarize(folder).job_type == "report"
    except Exception:  # noqa: BLE001 - unreadable: not known to be a report's, so kept
        return False


if __name__ == "__main__":
    main()
