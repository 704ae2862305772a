"""TensorBoard as a second dashboard: ``logger=tensorboard`` and ``logger=[wandb,tensorboard]`` in tiny
real runs, read back through a real TensorBoard server's HTTP API and looked at in headless Chromium.

The Chromium check skips when no Chromium is installed, except under CI (``CI`` set), where it fails:
``.ci/run`` installs the Debian package ``chromium``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from highwaylab.errors import ConfigError
from highwaylab.train import train
from highwaylab.utils.loggers import check_log_dirs

from .conftest import ROOT, TINY, compose_cfg, protected, subprocess_env

pytestmark = pytest.mark.slow

BASE = [o for o in TINY if not o.startswith("logger=")]
# the analysis callbacks at a cadence that logs within 4 training steps; train/loss_step every step
ANALYSIS = ["callbacks=analysis", "callbacks.gate_stats.every_n_steps=2",
            "callbacks.grad_norms.every_n_steps=2", "callbacks.carry_stripes.class_examples=300",
            "callbacks.lesion.num_examples=500", "trainer.log_every_n_steps=1"]
WINDOW = (1400, 1000)
# the tabs to photograph: the URL fragment of TensorBoard's single-page app (2.x: #timeseries, #scalars,
# #images); the scalars filtered (tagFilter=^(train|val)/|^grad_norm/global$) to curves that move
# within 4 steps (a nearly flat one, such as gates/bias over 4 steps, is drawn off its default y-range)
TABS = {"scalars": "#scalars&tagFilter=%5E(train%7Cval)%2F%7C%5Egrad_norm%2Fglobal%24", "images": "#images"}


# -- a tiny run with logger=tensorboard, and a TensorBoard server on its folder -------------------------

@pytest.fixture(scope="module")
def tb_run(tmp_path_factory, data_dir) -> Path:
    """The run folder of a tiny highway run with ``logger=tensorboard`` and the analysis callbacks."""
    run_dir = tmp_path_factory.mktemp("tb_run")
    train(compose_cfg(BASE + ["logger=tensorboard", "depth=6", *ANALYSIS], run_dir))
    return run_dir


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)


def _tags(server: str, plugin: str) -> set[str]:
    """Every tag of every run of ``plugin`` (``scalars``, ``images``, ``text``), from TensorBoard's
    data API."""
    return {tag for run in _get(f"{server}/data/plugin/{plugin}/tags").values() for tag in run}


@pytest.fixture(scope="module")
def tb_server(tb_run):
    """``tensorboard --logdir <run>/tensorboard`` on a free local port (127.0.0.1 only), once it serves
    the run's scalars and images; stopped (its process group: TensorBoard and its data server) after."""
    port = _free_port()
    log_path = tb_run / "tensorboard_server.log"
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "tensorboard.main", "--logdir", str(tb_run / "tensorboard"),
             "--host", "127.0.0.1", "--port", str(port), "--reload_interval", "1"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    server = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if proc.poll() is not None:
                pytest.fail(f"tensorboard exited with {proc.returncode}: {log_path.read_text()[-2000:]}")
            try:  # the first answers come before the event files are read: wait for both plugins' tags
                if "train/loss" in _tags(server, "scalars") and _tags(server, "images"):
                    break
            except OSError:
                pass  # not listening yet
            if time.monotonic() > deadline:
                pytest.fail(f"tensorboard did not serve the run's tags within 90 s: "
                            f"{log_path.read_text()[-2000:]}")
            time.sleep(0.5)
        yield server
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def test_event_files_land_in_the_run_folder(tb_run):
    folder = tb_run / "tensorboard"
    assert list(folder.glob("events.out.tfevents.*")), sorted(p.name for p in tb_run.iterdir())
    assert not list(folder.glob("version_*")), "version: '' puts the event files straight into tensorboard/"
    assert json.loads((tb_run / "metrics.json").read_text())["wandb_run_path"] is None


def test_tensorboard_serves_the_scalars_and_the_analysis_images(tb_server):
    scalars = _tags(tb_server, "scalars")
    for tag in ("train/loss", "train/loss_step", "val/acc", "val/loss", "test/acc"):
        assert tag in scalars, sorted(scalars)
    for prefix in ("gates/", "grad_norm/"):
        assert any(t.startswith(prefix) for t in scalars), (prefix, sorted(scalars))
    images = _tags(tb_server, "images")
    for prefix in ("gates/", "stripes/", "grad_norm/", "lesion/"):
        assert any(t.startswith(prefix) for t in images), (prefix, sorted(images))
    tables = _tags(tb_server, "text")  # the callbacks' tables, as markdown in the Text tab
    for prefix in ("gates/", "grad_norm/", "lesion/"):
        assert any(t.startswith(prefix) for t in tables), (prefix, sorted(tables))
    # an image tag's samples are real PNGs at the step of the callback that logged them
    tag = min(t for t in images if t.startswith("stripes/"))
    run = next(iter(_get(f"{tb_server}/data/plugin/images/tags")))
    query = urllib.parse.urlencode({"run": run, "tag": tag, "sample": 0})
    entries = _get(f"{tb_server}/data/plugin/images/images?{query}")
    assert entries and all(e["step"] >= 0 for e in entries)
    image_url = f"{tb_server}/data/plugin/images/individualImage?{entries[-1]['query']}"
    with urllib.request.urlopen(image_url, timeout=5) as response:
        assert response.read(8) == b"\x89PNG\r\n\x1a\n"


# -- the same pages in a real browser ---------------------------------------------------------------------

def _chromium() -> str:
    exe = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)
    if exe is None:
        reason = "headless Chromium is not installed (Debian: apt-get install chromium)"
        if os.environ.get("CI", "").lower() not in ("", "0", "false", "no"):
            pytest.fail(f"{reason}; CI must run this check (.ci/run installs it)")
        pytest.skip(reason)
    return exe


def screenshot(exe: str, url: str, png: Path, profile: Path) -> None:
    """A headless Chromium screenshot of ``url`` after 15 s of virtual time (TensorBoard's app loads,
    fetches the tags and draws the charts; no network needed)."""
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
           "--disable-quic", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
           "--virtual-time-budget=15000", f"--screenshot={png}", url]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and png.is_file(), proc.stderr[-2000:]


def colourful_pixels(image: Image.Image) -> np.ndarray:
    """The saturated pixels (HSV) of the dashboard's content area, right of the sidebar and below the
    header and the tag filter: chart lines, image maps. Text, grid and background are grey."""
    hsv = np.asarray(image.convert("RGB").crop((360, 130, *image.size)).convert("HSV")).reshape(-1, 3)
    return hsv[(hsv[:, 1] > 100) & (hsv[:, 2] > 60)]


def test_headless_chromium_shows_the_scalar_charts_and_the_images(tb_run, tb_server, tmp_path):
    exe = _chromium()
    folder = tb_run / "screenshots"
    folder.mkdir(exist_ok=True)
    for tab, fragment in TABS.items():
        png = folder / f"{tab}.png"
        screenshot(exe, f"{tb_server}/{fragment}", png, tmp_path / f"profile_{tab}")
        with Image.open(png) as image:
            assert image.format == "PNG" and image.size == WINDOW, (image.format, image.size)
            assert len(image.convert("RGB").getcolors(1 << 24)) > 500, f"{png} looks blank"
            colourful = colourful_pixels(image)
        if tab == "scalars":  # the orange curves (hue < 23 degrees); an empty or loading tab has none
            orange = int((colourful[:, 0] < 16).sum())
            assert orange > 500, f"{png}: {orange} orange pixels: no charts drawn"
        else:  # the colour maps of the figures; TensorBoard's own page has only its blue links
            assert len(colourful) > 10_000, f"{png}: {len(colourful)} coloured pixels: no images shown"
            assert len(np.unique(colourful, axis=0)) > 200, f"{png}: too few colours for the figures"


# -- both loggers at once ---------------------------------------------------------------------------------

def test_wandb_and_tensorboard_compose_and_both_log(tmp_path, data_dir):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    cfg = compose_cfg(BASE + ["logger=[wandb,tensorboard]", "trainer.log_every_n_steps=1"], tmp_path)
    assert list(cfg.logger) == ["wandb", "tensorboard"]
    metrics = train(cfg)
    assert metrics["wandb_run_path"] and list((tmp_path / "wandb").glob("offline-run-*/*.wandb"))
    events = EventAccumulator(str(tmp_path / "tensorboard"))
    events.Reload()
    assert {"train/loss", "val/acc", "test/acc"} <= set(events.Tags()["scalars"])


# -- bad input ---------------------------------------------------------------------------------------------

def run_train(args: list[str], tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "train.py"), *args, f"paths.log_dir={tmp_path}",
                           f"hydra.run.dir={tmp_path}/run"], capture_output=True, text=True, timeout=300,
                          env=subprocess_env(HYDRA_FULL_ERROR="0"), cwd=tmp_path)


def test_unwritable_tensorboard_folder_is_one_line_naming_the_key_and_the_fix(tmp_path, data_dir):
    (tmp_path / "a_file").write_text("not a folder")
    proc = run_train(["trainer=cpu", "depth=3", "width=8", "logger=tensorboard",
                      f"logger.tensorboard.save_dir={tmp_path}/a_file"], tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output[-3000:]
    assert "Traceback" not in output
    lines = [line for line in output.splitlines() if "highwaylab: " in line]
    assert len(lines) == 1, lines
    # the run's own folder below a save_dir outside the run: <parent folder>/<run folder> (own_log_folders);
    # the file in the way named, with its fix (pass 33, row 35: before, "cannot write the TensorBoard log
    # folder ... (NotADirectoryError ...). Fix: set logger.tensorboard.save_dir to a writable folder")
    assert lines[0].endswith(
        f"highwaylab: logger.tensorboard.save_dir={tmp_path}/a_file: {tmp_path}/a_file is a file, where the "
        f"TensorBoard log folder {tmp_path}/a_file/tensorboard/{tmp_path.name}/run goes. Fix: move it away "
        f"(mv {tmp_path}/a_file <elsewhere>), then run the same command again"), lines


def test_unknown_logger_lists_the_options(tmp_path):
    proc = run_train(["logger=foo"], tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Traceback" not in output
    # pass 45, row 57: one line, not Hydra's 12 that listed the options
    assert output == ("highwaylab: logger=foo: logger has no option 'foo'. Its options: csv, none, "
                      "tensorboard, wandb\n")


def test_check_log_dirs_creates_the_folders_and_names_the_key(tmp_path):
    from lightning.pytorch.loggers import CSVLogger, TensorBoardLogger
    from omegaconf import OmegaConf

    loggers = [TensorBoardLogger(tmp_path / "new", name="tensorboard", version=""),
               CSVLogger(tmp_path / "new", name="csv")]
    check_log_dirs(loggers)
    assert (tmp_path / "new" / "tensorboard").is_dir() and (tmp_path / "new" / "csv" / "version_0").is_dir()
    (tmp_path / "file").write_text("")
    group = OmegaConf.create({"tb2": {"_target_": "lightning.pytorch.loggers.TensorBoardLogger"}})
    # a file in the way is named, with its fix (pass 33, row 35: before, "cannot write the TensorBoard log
    # folder ... Fix: set logger.tb2.save_dir to a writable folder ..., or leave it at its default")
    with pytest.raises(ConfigError) as refused:
        check_log_dirs([TensorBoardLogger(tmp_path / "file", name="tb")], group)
    assert str(refused.value) == (
        f"logger.tb2.save_dir={tmp_path}/file: {tmp_path}/file is a file, where the TensorBoard log folder "
        f"{tmp_path}/file/tb/version_0 goes. Fix: move it away (mv {tmp_path}/file <elsewhere>), then run "
        f"the same command again")
    with pytest.raises(ConfigError, match=r"^logger\.csv\.save_dir=.*file is a file, where the CSV log"):
        check_log_dirs([CSVLogger(tmp_path / "file", name="csv")])
    # before: W&B warned, fell back to /tmp/wandb/ (outside the run's folder) and the run went on
    from highwaylab.utils.wandb_logger import WandbLogger

    wandb_group = OmegaConf.create({"wandb": {"_target_": "highwaylab.utils.wandb_logger.WandbLogger"}})
    with pytest.raises(ConfigError, match=r"^logger\.wandb\.save_dir=.*file is a file, where the W&B log"):
        check_log_dirs([WandbLogger(save_dir=str(tmp_path / "file"), offline=True)], wandb_group)
    # a folder that cannot be made (here below /proc, which takes none): as before
    with pytest.raises(ConfigError, match=r"^logger\.csv\.save_dir=/proc/x: cannot write the CSV log folder"):
        check_log_dirs([CSVLogger("/proc/x", name="csv")])


def test_a_log_folder_on_a_disk_too_full_for_a_run_is_refused(tmp_path, monkeypatch):
    # before: a W&B folder on a nearly full disk: 305 "--- Logging error ---" tracebacks, exit 0, and
    # the W&B history lost. Here the real disk stands for a full one: the threshold is above its size
    import shutil

    from omegaconf import OmegaConf

    from highwaylab.utils import loggers
    from highwaylab.utils.wandb_logger import WandbLogger

    monkeypatch.setattr(loggers, "MIN_FREE_BYTES", shutil.disk_usage(tmp_path).total + 1)
    group = OmegaConf.create({"wandb": {"_target_": "highwaylab.utils.wandb_logger.WandbLogger"}})
    with pytest.raises(ConfigError, match=r"^logger\.wandb\.save_dir=.*: its disk has .* MB free, and the "
                                          r"W&B log of a run \(history, figures, console\) takes tens of MB"):
        check_log_dirs([WandbLogger(save_dir=str(tmp_path), offline=True)], group)


def test_two_runs_with_one_tensorboard_save_dir_get_a_folder_each(tmp_path, data_dir):
    # pass 29, row 88 (major): before, both runs' event files went into <save_dir>/tensorboard/ (version ""),
    # which TensorBoard showed as one run with two interleaved histories; hparams.yaml kept the first seed.
    # Pass 30, rows 32, 33 (major): run folders of one name (A/run and B/run; the jobs of two sweeps,
    # <n>_<run_name>) still shared one folder: the version names the parent folder too
    shared = tmp_path / "tb"
    for seed, parent in enumerate(("A", "B")):
        run = tmp_path / parent / "run"
        overrides = ["logger=tensorboard", f"logger.tensorboard.save_dir={shared}", f"seed={seed}"]
        cfg = compose_cfg([*BASE, *overrides], run)
        train(cfg)
        assert cfg.logger.tensorboard.version == f"{parent}/run"  # recorded as it ran
    board = shared / "tensorboard"
    assert sorted(str(p.relative_to(board)) for p in board.glob("*/*")) == ["A/run", "B/run"]
    for seed, parent in enumerate(("A", "B")):
        folder = shared / "tensorboard" / parent / "run"
        assert len(list(folder.glob("events.out.tfevents.*"))) >= 1
        assert f"seed: {seed}\n" in (folder / "hparams.yaml").read_text()


def test_a_second_run_given_the_same_tensorboard_version_is_refused(tmp_path, data_dir):
    # pass 31, row 69 (major): before, two runs given logger.tensorboard.version=run with one save_dir wrote
    # into one folder: one TensorBoard run of two interleaved histories, hparams.yaml of the first only
    shared = tmp_path / "tb"
    overrides = ["logger=tensorboard", f"logger.tensorboard.save_dir={shared}",
                 "logger.tensorboard.version=run"]
    train(compose_cfg([*BASE, *overrides], tmp_path / "A"))
    with pytest.raises(ConfigError) as refused:
        train(compose_cfg([*BASE, *overrides, "seed=1"], tmp_path / "B"))
    assert str(refused.value) == (
        f"logger.tensorboard: {shared}/tensorboard/run holds another run's TensorBoard files already, and "
        f"this run's would join them (TensorBoard would show the two as one run). Fix: leave "
        f"logger.tensorboard.version out (each run then gets a folder of its own), or give one not used yet")
    assert "seed: 0\n" in (shared / "tensorboard" / "run" / "hparams.yaml").read_text()


def test_a_file_where_wandb_keeps_its_runs_is_one_line(tmp_path):
    # pass 31, row 55: before, resume= of a run whose wandb/ had become a file ended in W&B's
    # NotADirectoryError traceback, after the resume's record was written
    from lightning.pytorch.loggers import WandbLogger

    (tmp_path / "wandb").write_text("x\n")
    with pytest.raises(ConfigError) as refused:
        check_log_dirs([WandbLogger(save_dir=str(tmp_path), offline=True)])
    assert str(refused.value) == (
        f"logger.wandb.save_dir={tmp_path}: {tmp_path}/wandb is a file, where W&B keeps its runs. Fix: move "
        f"it away (mv {tmp_path}/wandb <elsewhere>), then run the same command again")


def test_a_wandb_folder_that_cannot_be_written_is_one_line(tmp_path):
    # pass 33, row 10 (major): before, resume= of a run whose wandb/ could not be written (a read-only
    # mount; here a protected folder, which root cannot write either) ended in W&B's OSError traceback
    from lightning.pytorch.loggers import WandbLogger

    (own := tmp_path / "wandb").mkdir()
    with protected(own), pytest.raises(ConfigError) as refused:
        check_log_dirs([WandbLogger(save_dir=str(tmp_path), offline=True)])
    assert str(refused.value) == (
        f"logger.wandb.save_dir={tmp_path}: {own}, where W&B keeps this run's offline segments, cannot be "
        f"written (Operation not permitted). Fix: make it writable, or log elsewhere: "
        f"logger.wandb.save_dir=/another/folder (or logger=csv)")
