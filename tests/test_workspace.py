"""``highwaylab.workspace``: the W&B workspace layout, its keys against what the code logs, and its
command line. No test touches the network: sockets to the internet raise, in this process and in the
command-line subprocesses."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import highwaylab
from highwaylab.workspace import SECTIONS, X_AXIS, build_workspace

from .conftest import ROOT, subprocess_env

SECTION_NAMES = ["Metrics", "Gates", "Stripes", "Gradients", "Lesion"]
PACKAGE = Path(highwaylab.__file__).resolve().parent
CALLBACK_MODULES = ["gate_stats", "grad_norms", "carry_stripes", "lesion"]

# Run the command line with Internet sockets disabled (wandb-workspaces must not call the network
# to build or serialise a workspace; the no-key path must stop before any call).
GUARDED_MAIN = """
import runpy, socket, sys
def _refuse(*args, **kwargs):
    raise RuntimeError(f"network call in a test: {args!r}")
_connect = socket.socket.connect
def _connect_local(self, address):
    if self.family in (socket.AF_INET, socket.AF_INET6):
        _refuse(address)
    return _connect(self, address)
socket.socket.connect = _connect_local
socket.getaddrinfo = socket.create_connection = _refuse
sys.argv = ["highwaylab.workspace", *sys.argv[1:]]
runpy.run_module("highwaylab.workspace", run_name="__main__", alter_sys=True)
"""


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """No network call leaves the machine: only loopback addresses (127.0.0.1) may be reached."""
    def loopback(host: object) -> bool:
        return str(host) in ("127.0.0.1", "localhost", "::1")

    def refuse(*args, **kwargs):
        raise RuntimeError(f"network call in a test: {args!r}")
    real_connect, real_create = socket.socket.connect, socket.create_connection
    real_getaddrinfo = socket.getaddrinfo

    def connect(self, address):
        if self.family in (socket.AF_INET, socket.AF_INET6) and not loopback(address[0]):
            refuse(address)
        return real_connect(self, address)

    def create_connection(address, *args, **kwargs):
        return real_create(address, *args, **kwargs) if loopback(address[0]) else refuse(address)

    def getaddrinfo(host, *args, **kwargs):
        return real_getaddrinfo(host, *args, **kwargs) if loopback(host) else refuse(host)
    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    monkeypatch.setattr(socket, "create_connection", create_connection)


def module_source(dotted: str) -> str:
    """The text of a highwaylab module, read without importing it."""
    parts = dotted.split(".")
    assert parts[0] == "highwaylab", dotted
    return PACKAGE.joinpath(*parts[1:]).with_suffix(".py").read_text()


def documented(key: str, source: str) -> bool:
    """``key`` is named in ``source``'s docstrings: ````key```` or, for the named layers of
    ``named_scalars``, ````prefix/first````, ````/middle````, ````/last````."""
    if f"``{key}``" in source:
        return True
    prefix, _, leaf = key.rpartition("/")
    return leaf in {"middle", "last"} and f"``{prefix}/first``" in source and f"``/{leaf}``" in source


def panel_keys(workspace) -> dict[str, list[tuple[str, list[str]]]]:
    """Section name -> [(panel kind, keys)] of a built workspace, in order."""
    out = {}
    for section in workspace.sections:
        rows = []
        for panel in section.panels:
            kind = type(panel).__name__
            if kind == "LinePlot":
                rows.append((kind, list(panel.y)))
            elif kind == "MediaBrowser":
                rows.append((kind, list(panel.media_keys)))
            elif kind == "WeavePanelSummaryTable":
                rows.append((kind, [panel.table_name]))
            else:
                raise AssertionError(f"unexpected panel {kind} in {section.name}")
        out[section.name] = rows
    return out


def test_layout_builds_with_five_sections_in_order():
    workspace = build_workspace("my-team", "highwaylab", "highwaylab depth")
    assert [s.name for s in workspace.sections] == SECTION_NAMES
    assert [s.name for s in SECTIONS] == SECTION_NAMES
    assert workspace.name == "highwaylab depth" and workspace.settings.x_axis == X_AXIS
    panels = panel_keys(workspace)
    assert panels["Metrics"] == [("LinePlot", [k]) for k in
                                 ["train/loss", "train/loss_step", "val/loss", "train/acc", "val/acc",
                                  "val/acc_best", "train/lr"]]
    assert [kind for kind, _ in panels["Gates"]] == ["LinePlot"] * 5 + ["MediaBrowser"] * 5 + [
        "WeavePanelSummaryTable"]
    assert panels["Gates"][-1] == ("WeavePanelSummaryTable", ["gates/table"])
    assert panels["Stripes"] == [("MediaBrowser", ["stripes/outputs"]), ("MediaBrowser", ["stripes/gates"])]
    assert panels["Lesion"] == [("LinePlot", ["lesion/baseline_error"]), ("LinePlot", ["lesion/max_error"]),
                                ("MediaBrowser", ["lesion/error_by_layer"]),
                                ("WeavePanelSummaryTable", ["lesion/table"])]
    for section in workspace.sections:
        for panel in section.panels:
            if type(panel).__name__ == "LinePlot":
                assert panel.x == X_AXIS
                assert bool(panel.log_y) == (section.name == "Gradients"), (section.name, panel.y)


def test_every_panel_key_is_documented_by_the_module_that_logs_it():
    """The layout cannot drift from what is logged: each key is in its module's docstrings."""
    built = {k for rows in panel_keys(build_workspace("e", "p")).values() for _, keys in rows for k in keys}
    listed = set()
    for section in SECTIONS:
        for group in section.groups:
            source = module_source(group.source)
            for key in group.all:
                assert documented(key, source), f"{key} is not named in {group.source}"
                listed.add(key)
    assert built == listed
    assert len(listed) == sum(len(g.all) for s in SECTIONS for g in s.groups), "a key listed twice"


def test_every_image_table_and_named_scalar_the_callbacks_log_is_in_the_layout():
    """The other way round: a new figure, table or first/middle/last scalar in a callback must be
    added to the layout."""
    media = {k for s in SECTIONS for k in s.keys("media")}
    tables = {k for s in SECTIONS for k in s.keys("tables")}
    lines = {k for s in SECTIONS for k in s.keys("lines")}
    for name in CALLBACK_MODULES:
        source = module_source(f"highwaylab.callbacks.{name}")
        for key in re.findall(r'log_figure\(\s*trainer,\s*"([^"]+)"', source):
            assert key in media, f"image {key} of callbacks/{name}.py has no media panel"
        for key in re.findall(r'log_table\(\s*trainer,\s*"([^"]+)"', source):
            assert key in tables, f"table {key} of callbacks/{name}.py has no table panel"
        for prefix in re.findall(r'named_scalars\(\s*"([^"]+)"', source):
            for leaf in ("first", "middle", "last"):
                assert f"{prefix}/{leaf}" in lines, f"{prefix}/{leaf} of callbacks/{name}.py has no line plot"


def cli(*args: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = {k: v for k, v in subprocess_env().items()
            if k not in ("NETRC", "WANDB_IDENTITY_TOKEN_FILE", "WANDB_BASE_URL", "WANDB_ENTITY")}
    base |= {"HOME": str(home), "WANDB_CONFIG_DIR": str(home), "WANDB_API_KEY": "", "WANDB_MODE": "offline"}
    return subprocess.run([sys.executable, "-c", GUARDED_MAIN, *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path, env=base | env)


def test_cli_out_dash_prints_the_layout_and_writes_no_file(tmp_path):
    # tenth pass: before, a file named "-" in the current folder
    proc = cli("--entity", "my-team", "--project", "depth", "--out", "-", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["project"] == "depth" and not (tmp_path / "-").exists()


def test_cli_out_writes_the_layout_as_json(tmp_path):
    out = tmp_path / "layouts" / "ws.json"
    proc = cli("--entity", "my-team", "--project", "depth", "--out", str(out), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert str(out) in proc.stdout
    view = json.loads(out.read_text())
    assert (view["entity"], view["project"], view["displayName"]) == ("my-team", "depth", "highwaylab depth")
    sections = view["spec"]["section"]["panelBankConfig"]["sections"]
    assert [s["name"] for s in sections] == SECTION_NAMES
    text = out.read_text()
    for section, spec in zip(sections, SECTIONS, strict=True):
        configs = [p["config"] for p in section["panels"]]
        assert [c["metrics"] for c in configs if "metrics" in c] == [[k] for k in spec.keys("lines")]
        assert all(c["xAxis"] == X_AXIS for c in configs if "metrics" in c)
        assert [c["mediaKeys"] for c in configs if "mediaKeys" in c] == [[k] for k in spec.keys("media")]
        for key in spec.keys("tables"):
            assert f'"{key}"' in text
    gradients = sections[SECTION_NAMES.index("Gradients")]
    assert all(p["config"].get("yLogScale") for p in gradients["panels"] if "metrics" in p["config"])


def test_cli_offline_writes_the_default_file(tmp_path):
    proc = cli("--offline", "--name", "mine", tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    view = json.loads((tmp_path / "wandb_workspace.json").read_text())
    assert view["displayName"] == "mine" and view["project"] == "highwaylab"
    # pass 38, row 42: before, "wrote the workspace layout (5 sections) to wandb_workspace.json" alone, of a
    # layout whose "entity" is ""
    assert view["entity"] == "" and proc.stdout.strip() == (
        "wrote the workspace layout (5 sections) to wandb_workspace.json (no entity in it: --entity and "
        "WANDB_ENTITY are unset; to save it to W&B, run the command with --entity <user or team> and "
        "without --out)")


def test_cli_without_api_key_stops_with_one_line(tmp_path):
    proc = cli("--entity", "my-team", "--project", "depth", tmp_path=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("highwaylab: "), proc.stderr
    assert "wandb login" in lines[0] and "--out" in lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_cli_refuses_an_empty_workspace_name_or_entity(tmp_path):
    # before: exit 0 and "displayName": "" (or "entity": "") in the layout
    proc = cli("--entity", "", "--out", str(tmp_path / "ws.json"), tmp_path=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        "python -m highwaylab.workspace: error: --entity '' is empty: the layout names the W&B entity (user "
        "or team) of the project; give one, e.g. --entity my-team")
    refused = {  # ninth pass: before, "entity": "me/you" was written
        "--entity": ("me/you", "--entity me/you holds '/', which a W&B entity (user or team) cannot hold: "
                               "W&B paths are <entity>/<project>. Give the entity alone, e.g. --entity "
                               "my-team (the project goes to --project)"),
        "--name": ("", "--name '' is empty: W&B shows a workspace by its name; give one, e.g. --name "
                       "'highwaylab depth' (the default)")}
    for flag, (value, message) in refused.items():
        proc = cli(flag, value, "--out", str(tmp_path / "ws.json"), tmp_path=tmp_path)
        assert proc.returncode == 2 and not (tmp_path / "ws.json").exists()
        assert proc.stderr.strip().splitlines()[-1] == f"python -m highwaylab.workspace: error: {message}"


def test_cli_bad_out_is_one_line_naming_the_flag_and_the_fix(tmp_path):
    # before: "highwaylab: cannot write <out>: Is a directory" (no flag, no fix)
    (tmp_path / "folder").mkdir()
    proc = cli("--out", str(tmp_path / "folder"), tmp_path=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        f"python -m highwaylab.workspace: error: --out {tmp_path}/folder is a folder; give a file name, e.g. "
        f"--out {tmp_path}/folder/wandb_workspace.json")
    proc = cli("--out", "/proc/nope/ws.json", tmp_path=tmp_path)
    assert proc.returncode == 2 and proc.stderr.strip().splitlines()[-1] == (
        "python -m highwaylab.workspace: error: --out /proc/nope/ws.json cannot be written (No such file or "
        "directory); give a file in a folder that can be written, e.g. --out wandb_workspace.json")


def test_an_unreachable_server_is_named_as_that_at_once(monkeypatch):
    # before: answered after 20 s as failed credentials and a busy service (a loopback port here)
    from highwaylab.workspace import WorkspaceError, main

    with socket.socket() as closed:  # a loopback port that nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    monkeypatch.setenv("WANDB_API_KEY", "0123456789012345678901234567890123456789ab")
    monkeypatch.setenv("WANDB_BASE_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(WorkspaceError) as err:
        main(["--entity", "me", "--project", "depth"])
    assert str(err.value) == (
        f"W&B at http://127.0.0.1:{port} cannot be reached (ConnectionRefusedError: Connection refused): "
        f"check WANDB_BASE_URL and the network, or write the layout to a file with --out FILE and save it "
        f"from a machine that reaches W&B")


def test_cli_help_is_light(tmp_path):
    proc = subprocess.run([sys.executable, "-c", "import sys, highwaylab.workspace; "
                           "assert 'wandb' not in sys.modules, 'wandb imported'; "
                           "assert 'wandb_workspaces' not in sys.modules"],
                          capture_output=True, text=True, timeout=60, cwd=ROOT, env=subprocess_env())
    assert proc.returncode == 0, proc.stderr
    proc = cli("--help", tmp_path=tmp_path)
    assert proc.returncode == 0 and "--out" in proc.stdout and "--entity" in proc.stdout


def test_a_name_with_an_emoji_or_a_symbol_is_one_line_before_any_work(tmp_path):
    # pass 55, row 57 (major): before, pydantic's ValidationError traceback ("Emojis are not allowed"), exit 1
    out = tmp_path / "ws.json"
    proc = cli("--entity", "me", "--name", "résumé ✓ depth", "--out", str(out), tmp_path=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == (
        "python -m highwaylab.workspace: error: --name 'résumé ✓ depth': W&B does not take it as a workspace "
        "name (Value error, Emojis are not allowed :(). Fix: a name of letters, digits and plain "
        "punctuation, e.g. --name 'résumé depth'\n")
    assert not out.exists()
    fixed = cli("--entity", "me", "--name", "résumé depth", "--out", str(out), tmp_path=tmp_path)
    assert fixed.returncode == 0 and out.is_file()  # the fix, as given


def test_cli_out_to_a_stream_writes_the_layout_there_and_never_advises_removing_it(tmp_path):
    # breaking pass 62, row 33 (major): before, --out /dev/stdout, with the output redirected to a log file,
    # was "a file that holds something else than a workspace layout ... or remove the file first"
    log = tmp_path / "run.log"
    log.write_text("earlier lines\n")
    with log.open("a") as out:
        proc = subprocess.run([sys.executable, "-m", "highwaylab.workspace", "--entity", "me", "--project",
                               "highwaylab", "--out", "/dev/stdout"], stdout=out, stderr=subprocess.PIPE,
                              text=True, cwd=tmp_path, env=subprocess_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    text = log.read_text()
    assert text.startswith("earlier lines\n") and json.loads(text.split("\n", 1)[1])["entity"] == "me"
    fifo = tmp_path / "fifo"  # any other stream: a FIFO, read as it is written
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    proc = cli("--entity", "me", "--out", str(fifo), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(reader.communicate(timeout=60)[0])["project"] == "highwaylab"
