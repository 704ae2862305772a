"""A saved W&B workspace for highwaylab runs: Metrics, Gates, Stripes, Gradients and Lesion sections.

Built with W&B's ``wandb-workspaces`` library (``wandb_workspaces.workspaces`` for the workspace
and its sections, the panels of ``wandb_workspaces.reports.v2``): line plots of the scalars against
``trainer/global_step``, a media panel per image key, a table panel per ``wandb.Table``.

    python -m highwaylab.workspace --entity E --project P [--name "highwaylab depth"]   # save it to W&B
    python -m highwaylab.workspace --out workspace.json     # write the layout (JSON), no network

Saving needs a W&B API key (``wandb login`` or ``WANDB_API_KEY``); without one it stops with one
line and exit status 2. ``--out FILE`` (or ``--offline``, to ``wandb_workspace.json``) writes the
workspace model that ``save()`` would send, as JSON, and touches no network.

The keys are listed once, in :data:`SECTIONS`, each with the module that logs it (whose docstring
names it); ``tests/test_workspace.py`` checks them against those modules.
"""

from __future__ import annotations

if __name__ == "__main__":  # before the imports of wandb, which take seconds
    from highwaylab.cli import stop_on_sigint

    stop_on_sigint("python -m highwaylab.workspace", "the workspace was not finished, saved or written")

import argparse
import json
import math
import os
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from highwaylab.cli import non_empty
from highwaylab.utils.out_paths import run_folder_holding, tilde_problem

if TYPE_CHECKING:  # wandb_workspaces imports wandb: imported only when a workspace is built
    import wandb_workspaces.workspaces as ws

X_AXIS = "trainer/global_step"
DEFAULT_NAME = "highwaylab depth"
DEFAULT_OFFLINE_FILE = "wandb_workspace.json"


@dataclass(frozen=True)
class Keys:
    """Keys logged by one module (``source``, dotted): scalars, images and tables."""

    source: str
    lines: tuple[str, ...] = ()
    media: tuple[str, ...] = ()
    tables: tuple[str, ...] = ()

    @property
    def all(self) -> tuple[str, ...]:
        return self.lines + self.media + self.tables


@dataclass(frozen=True)
class SectionSpec:
    """One workspace section: its panels are the groups' line plots, then their media, then tables."""

    name: str
    groups: tuple[Keys, ...]
    log_y: bool = False  # line plots on a log y axis

    def keys(self, kind: str) -> tuple[str, ...]:
        return tuple(k for g in self.groups for k in getattr(g, kind))


CLASSIFIER = "highwaylab.module.classifier"
GATE_STATS = "highwaylab.callbacks.gate_stats"
CARRY_STRIPES = "highwaylab.callbacks.carry_stripes"
GRAD_NORMS = "highwaylab.callbacks.grad_norms"
LESION = "highwaylab.callbacks.lesion"

#: The layout, in order: the one place that names the logged keys.
SECTIONS: tuple[SectionSpec, ...] = (
    SectionSpec("Metrics", (
        Keys(CLASSIFIER, lines=("train/loss", "train/loss_step", "val/loss", "train/acc", "val/acc",
                                "val/acc_best", "train/lr")),
    )),
    SectionSpec("Gates", (
        Keys(GATE_STATS,
             lines=("gates/mean/first", "gates/mean/middle", "gates/mean/last", "gates/closed", "gates/open"),
             media=("gates/mean_by_step", "gates/mean_by_layer", "gates/bias_map", "gates/mean_map"),
             tables=("gates/table",)),
        Keys(CARRY_STRIPES, media=("gates/class_difference",)),
    )),
    SectionSpec("Stripes", (
        Keys(CARRY_STRIPES, media=("stripes/outputs", "stripes/gates")),
    )),
    SectionSpec("Gradients", (
        Keys(GRAD_NORMS,
             lines=("grad_norm/global", "grad_norm/input/first", "grad_norm/input/middle",
                    "grad_norm/input/last"),
             media=("grad_norm/by_step", "grad_norm/by_layer"),
             tables=("grad_norm/table",)),
    ), log_y=True),
    SectionSpec("Lesion", (
        Keys(LESION, lines=("lesion/baseline_error", "lesion/max_error"),
             media=("lesion/error_by_layer",), tables=("lesion/table",)),
    )),
)


class WorkspaceError(Exception):
    """A user-facing failure of the command line: printed as one line, exit status 2."""


def build_workspace(entity: str, project: str, name: str = DEFAULT_NAME) -> ws.Workspace:
    """The workspace object (nothing is sent: ``.save()`` does that)."""
    import wandb_workspaces.reports.v2 as wr
    import wandb_workspaces.workspaces as ws

    sections = []
    for spec in SECTIONS:
        panels = [wr.LinePlot(title=key, x=X_AXIS, y=[key], log_y=spec.log_y or None)
                  for key in spec.keys("lines")]
        panels += [wr.MediaBrowser(title=key, media_keys=[key], num_columns=1) for key in spec.keys("media")]
        panels += [wr.WeavePanelSummaryTable(table_name=key, layout=wr.Layout(w=24, h=12))
                   for key in spec.keys("tables")]
        sections.append(ws.Section(
            name=spec.name, panels=panels, is_open=True,
            layout_settings=ws.SectionLayoutSettings(columns=3, rows=max(2, math.ceil(len(panels) / 3))),
            panel_settings=ws.SectionPanelSettings(x_axis=X_AXIS)))
    return ws.Workspace(entity=entity, project=project, name=name, sections=sections,
                        settings=ws.WorkspaceSettings(x_axis=X_AXIS))


def workspace_json(workspace: ws.Workspace) -> str:
    """The workspace as the library serialises it (its ``View`` model: entity, project,
    ``displayName`` and the ``spec`` that ``save()`` uploads), as indented JSON."""
    return workspace._to_model().model_dump_json(by_alias=True, exclude_none=True, indent=1)


def has_credentials() -> bool:
    """Whether wandb finds an API key for its server (``WANDB_API_KEY``, an identity-token file,
    the netrc written by ``wandb login``, or wandb's settings), without prompting or the network."""
    try:
        from wandb.sdk import wandb_setup
        from wandb.sdk.lib import wbauth
    except ImportError:  # another wandb layout: the key or any netrc entry of a W&B host
        import netrc

        try:
            hosts = netrc.netrc(os.environ.get("NETRC")).hosts
        except (OSError, netrc.NetrcParseError):
            hosts = {}
        return bool(os.environ.get("WANDB_API_KEY")) or any("wandb" in h or "coreweave" in h for h in hosts)
    base_url = wandb_setup.singleton().settings.base_url
    auth = wbauth.authenticate_session(host=base_url, source="highwaylab.workspace", prompt=False,
                                       update_session=False)
    return auth is not None


def project_name_error(project: str, given_as: str = "--project") -> str | None:
    """Why W&B refuses ``project`` as a project name (one line, naming ``given_as`` and the fix), or
    ``None`` if it takes it. The rule is W&B's own (its ``wandb.Settings`` check, through
    :func:`highwaylab.utils.loggers.check_wandb_names`' helper; in wandb 0.31: at most 128 characters,
    none of ``/ \\ # ? % :``); an empty name is refused too (W&B would file the run elsewhere).
    Imports ``wandb`` (about 0.4 s). W&B does not check an entity name (its server does)."""
    from highwaylab.utils.loggers import _wandb_refusal

    shown = f"{given_as} {shlex.quote(project)}"
    fix = "give a project name W&B accepts, e.g. --project highwaylab"
    if not project.strip():
        return f"{shown} is empty: {fix}"
    if project != project.strip():  # pass 88, row 37: before, taken, and W&B filed it in another project
        return (f"{shown} begins or ends with a space, which W&B keeps (another project than "
                f"{project.strip()!r}): give {given_as} {shlex.quote(project.strip())}")
    reason = _wandb_refusal("project", project)
    return None if reason is None else f"{shown} is refused by W&B ({reason}): {fix}"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m highwaylab.workspace",
        description="Create the highwaylab W&B workspace (sections Metrics, Gates, Stripes, Gradients, "
                    "Lesion) in a project, or write its layout to a JSON file.")
    parser.add_argument("--entity", default=os.environ.get("WANDB_ENTITY"),
                        help="W&B entity (user or team); default $WANDB_ENTITY")
    parser.add_argument("--project", default="highwaylab",
                        help="W&B project (default highwaylab, the runs' logger.wandb.project; the runs "
                             "do not read $WANDB_PROJECT, so neither does this)")
    parser.add_argument("--name", default=DEFAULT_NAME, help=f"workspace name (default {DEFAULT_NAME!r})")
    parser.add_argument("--out", metavar="FILE",
                        type=non_empty("a file name, e.g. --out wandb_workspace.json (or -: print it)"),
                        help="write the layout as JSON to FILE (-: print it) instead of saving it to W&B "
                             "(no network)")
    parser.add_argument("--offline", action="store_true",
                        help=f"same as --out, to {DEFAULT_OFFLINE_FILE} unless --out is given")
    return parser


def _name_refused(entity: str, project: str, name: str) -> str | None:
    """The message for a ``--name`` that W&B's workspace model refuses (emoji, symbols such as ✓), which
    it raises as a pydantic ``ValidationError`` when the layout is built (pass 55, row 57, major:
    before, its traceback, exit 1); ``None`` for a name it takes. Checked on an empty workspace, whose
    validator is the same, before the sections are built."""
    import wandb_workspaces.workspaces as ws

    try:
        ws.Workspace(entity=entity, project=project, name=name)
    except Exception as err:  # noqa: BLE001 -- pydantic's ValidationError; anything else: later, as before
        if type(err).__name__ != "ValidationError":
            return None
        reason = err.errors()[0].get("msg", str(err)) if hasattr(err, "errors") else str(err)
        plain = " ".join("".join(c for c in name if c.isalnum() or c in " -_.,()").split())
        example = f" e.g. --name {shlex.quote(plain)}" if plain else f" e.g. --name {DEFAULT_NAME!r}"
        return (f"--name {shlex.quote(name)}: W&B does not take it as a workspace name ({reason}). Fix: a "
                f"name of letters, digits and plain punctuation,{example}")
    return None


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    # new-user pass 48, finding 1: before, $WANDB_PROJECT, which the runs ignore: a workspace without them
    refused = project_name_error(args.project)
    if refused is not None:  # before any work: an argparse error, one line, exit status 2
        parser.exit(2, f"{parser.prog}: error: {refused}\n")
    if args.entity is not None and not args.entity.strip():
        parser.exit(2, f"{parser.prog}: error: --entity {args.entity!r} is empty: the layout names the W&B "
                       f"entity (user or team) of the project; give one, e.g. --entity my-team\n")
    bad = sorted({c for c in args.entity or "" if c in '/\\#?%:' or c.isspace()})
    if bad:  # before: written as is; <entity>/<project> paths would then name another project
        shown = " ".join(map(repr, bad))
        parser.exit(2, f"{parser.prog}: error: --entity {shlex.quote(args.entity)} holds {shown}, "
                       f"which a W&B entity (user or team) cannot hold: W&B paths are <entity>/<project>. "
                       f"Give the entity alone, e.g. --entity my-team (the project goes to --project)\n")
    if not args.name.strip():
        parser.exit(2, f"{parser.prog}: error: --name {args.name!r} is empty: W&B shows a workspace by its "
                       f"name; give one, e.g. --name {DEFAULT_NAME!r} (the default)\n")
    if (refused := _name_refused(args.entity or "me", args.project, args.name)) is not None:
        parser.exit(2, f"{parser.prog}: error: {refused}\n")
    if args.out is not None or args.offline:
        if args.out and args.out.endswith(("/", os.sep)) and not Path(args.out).is_dir():
            # pass 37, row 36: before, --out wsdir/ wrote a file named wsdir
            parser.exit(2, f"{parser.prog}: error: --out {args.out}: the trailing / names a folder, which "
                           f"does not exist, and --out names the layout's file. Fix: --out {args.out}"
                           f"{DEFAULT_OFFLINE_FILE} after mkdir -p {args.out}, or --out "
                           f"{args.out.rstrip('/' + os.sep)}.json\n")
        out = Path(args.out) if args.out else Path(DEFAULT_OFFLINE_FILE)
        if out.is_dir():
            parser.exit(2, f"{parser.prog}: error: --out {out} is a folder; give a file name, e.g. "
                           f"--out {out / DEFAULT_OFFLINE_FILE}\n")
        # a stream, not a file: /dev/stdout, /dev/stderr, a FIFO (pass 62, row 33: before, /dev/stdout
        # redirected to a log file was "a file ... remove the file first", advice that deletes it)
        stream = str(out).startswith(("/dev/", "/proc/self/fd/")) or (out.exists() and not out.is_file())
        refused = None if str(out) == "-" or stream else out_problem(out)
        if refused is not None:  # before: written over whatever was there (pass 35, rows 22-24)
            parser.exit(2, f"{parser.prog}: error: {refused}\n")
        text = workspace_json(build_workspace(args.entity or "", args.project, args.name))
        if str(out) == "-":  # the usual name of standard output: the layout printed, no file "-"
            print(text)
            return 0
        if stream:
            try:
                with open(out, "a") as f:  # appended: a log behind /dev/stdout keeps what it holds
                    f.write(text + "\n")
            except OSError as err:
                parser.exit(2, f"{parser.prog}: error: --out {out} cannot be written "
                               f"({err.strerror or err}); to print the layout, give --out -\n")
            return 0
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text + "\n")
        except OSError as err:
            parser.exit(2, f"{parser.prog}: error: --out {out} cannot be written ({err.strerror or err}); "
                           f"give a file in a folder that can be written, e.g. "
                           f"--out {DEFAULT_OFFLINE_FILE}\n")
        # pass 38, row 42: before, the file's "entity": "" went without a word
        unnamed = "" if args.entity else (" (no entity in it: --entity and WANDB_ENTITY are unset; to save "
                                          "it to W&B, run the command with --entity <user or team> and "
                                          "without --out)")
        print(f"wrote the workspace layout ({len(SECTIONS)} sections) to {out}{unnamed}")
        return 0
    if not args.entity:
        raise WorkspaceError("no W&B entity: pass --entity (or set WANDB_ENTITY), "
                             "or write the layout to a file with --out FILE")
    try:
        found = has_credentials()
    except Exception as err:  # noqa: BLE001 - e.g. a malformed key: wandb's AuthenticationError
        raise WorkspaceError(f"W&B credentials unusable ({_one_line(err)}): run `wandb login`, "
                             "or write the layout to a file with --out FILE") from None
    if not found:
        raise WorkspaceError("no W&B API key found: run `wandb login` (or set WANDB_API_KEY), "
                             "or write the layout to a file with --out FILE")
    unreachable = server_error()
    if unreachable is not None:
        raise WorkspaceError(f"{unreachable}: check WANDB_BASE_URL and the network, or write the layout to a "
                             f"file with --out FILE and save it from a machine that reaches W&B")
    workspace = build_workspace(args.entity, args.project, args.name)
    try:
        workspace.save()
    except Exception as err:  # noqa: BLE001 - network, permission, unknown project: one line
        raise WorkspaceError(f"saving the workspace to {args.entity}/{args.project} failed: "
                             f"{_one_line(err)}") from None
    print(f"saved workspace {args.name!r}: {workspace.url}")
    return 0


def out_problem(out: Path) -> str | None:
    """Why ``--out`` must not be written, or ``None``: a ``~`` that no shell expanded; a file inside the
    folder of a run or a multirun (its ``metrics.json`` or ``checkpoints/last.ckpt`` would be replaced);
    an existing file that is not a workspace layout (a layout written before, with its ``displayName``,
    is replaced, as ``--out`` says)."""
    tilde = tilde_problem("--out", out)
    if tilde is not None:
        return tilde
    run = run_folder_holding(out.parent)
    if run is not None:
        folder, held = run
        return (f"--out {out} is inside {folder}, the folder of a run or a multirun (it holds "
                f"{', '.join(held)}), whose files the layout must not replace. Fix: give a file of its own, "
                f"e.g. --out {DEFAULT_OFFLINE_FILE}")
    if out.is_file() and out.stat().st_size:
        try:
            layout = json.loads(out.read_text())
        except (OSError, UnicodeDecodeError, ValueError):
            layout = None
        if not isinstance(layout, dict) or "displayName" not in layout:
            return (f"--out {out} is a file that holds something else than a workspace layout, which "
                    f"writing would replace. Fix: give a new file name, e.g. --out {DEFAULT_OFFLINE_FILE}, "
                    f"or remove the file first")
    return None


def server_error(timeout_s: float = 5.0) -> str | None:
    """Why the W&B server (``WANDB_BASE_URL``, else W&B's default ``https://api.wandb.ai``) cannot
    be reached: its host does not resolve or refuses or drops a TCP connection within ``timeout_s``
    seconds; ``None`` when it answers. (Without this check, W&B reports an unreachable server after
    about 20 s as failed credentials and a busy service.)"""
    import socket
    from urllib.parse import urlsplit

    url = os.environ.get("WANDB_BASE_URL") or "https://api.wandb.ai"
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout_s):
            return None
    except OSError as err:
        return f"W&B at {url} cannot be reached ({type(err).__name__}: {err.strerror or err})"


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


if __name__ == "__main__":
    try:
        sys.exit(main())
    except WorkspaceError as err:
        print(f"highwaylab: {err}", file=sys.stderr)
        sys.exit(2)
