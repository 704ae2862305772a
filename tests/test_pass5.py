"""Fifth breaking pass (issue 11), one line and nothing silently wrong for: a search over a key the
chosen model lacks (#39: was Hydra's "use +model.gate_bias=-4", a wrong fix, after optuna.db was
made) and a search tuned on the test set (#75: now a warning); a W&B project name W&B refuses in
``highwaylab.report`` (#85: a traceback after the report) and ``highwaylab.workspace`` (#61: a
layout for an invalid project); a figure file that cannot be written (#53: a full disk ended the
run with a 60-line traceback and no checkpoint); SIGHUP, a closed terminal (#47: the run died
without a word or a checkpoint); and a refused ``probe`` command that left an empty folder (#55).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from highwaylab.analysis.plots import layer_maps
from highwaylab.callbacks.media import log_figure, log_table
from highwaylab.errors import RunInterrupted
from highwaylab.probe import main as probe_main
from highwaylab.report import main as report_main
from highwaylab.utils import interrupt
from highwaylab.utils.sweep import SweepCheck
from highwaylab.workspace import main as workspace_main
from highwaylab.workspace import project_name_error

from .conftest import ROOT, TINY, compose_cfg, subprocess_env
from .test_checkpoints import FakeTrainer, deliver

SWEEP_LOGGER = "highwaylab.utils.sweep"
MEDIA_LOGGER = "highwaylab.callbacks.media"


def records(caplog, logger: str) -> list[tuple[int, str]]:
    """(level, message) of the records of ``logger`` (W&B, once started, logs on its own loggers)."""
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.name == logger]


def messages(caplog, logger: str) -> list[str]:
    return [message for _, message in records(caplog, logger)]

# --- #39, #75: SweepCheck on hydra.sweeper.params and a test-set objective ---------------------------


def sweep_check(overrides: list[str], capsys, hydra_up: bool = True) -> tuple[int | None, str]:
    """SweepCheck on the composed multirun config, as Hydra calls it before building the sweeper:
    (exit status or None, its stderr). ``hydra_up``: called while Hydra is initialised, as in a run of
    train.py (the check then composes the other options of a group to name those that fit)."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=overrides, return_hydra_config=True)
        if hydra_up:
            return _call_check(cfg, capsys)
    return _call_check(cfg, capsys)


def _call_check(cfg, capsys) -> tuple[int | None, str]:
    try:
        SweepCheck().on_multirun_start(cfg)
    except SystemExit as exit_:
        return exit_.code, capsys.readouterr().err
    return None, capsys.readouterr().err


@pytest.mark.parametrize(("overrides", "message"), [
    (["hparams_search=mnist_random", "model=plain"],
     "hparams_search=mnist_random searches model.gate_bias, which model=plain does not have: choose a "
     "model that has it (model=conv_highway or model=highway) or another search, or search without it: "
     "hydra.sweeper.params=null and the entries to search as overrides, e.g. "
     "'optim.optimizer.lr=tag(log, interval(0.001, 1.0))'"),
    (["hparams_search=mnist_tpe", "model=residual", "depth=5"],
     "hparams_search=mnist_tpe searches model.gate_bias, which model=residual does not have: choose a "
     "model that has it (model=conv_highway or model=highway) or another search, or search without it: "
     "hydra.sweeper.params=null and the entries to search as overrides, e.g. "
     "'optim.optimizer.lr=tag(log, interval(0.001, 1.0))'"),
    (["hparams_search=mnist_random", "optim=adamw"],
     "hparams_search=mnist_random searches optim.optimizer.momentum, which optim=adamw does not have: "
     "choose an optim that has it (optim=sgd or optim=sgd_step) or another search, or search without it: "
     "hydra.sweeper.params=null and the entries to search as overrides, e.g. "
     "'optim.optimizer.lr=tag(log, interval(0.001, 1.0))'"),
    (["hparams_search=mnist_random", "+hydra.sweeper.params.nope='choice(1,2)'"],
     "hparams_search=mnist_random searches nope, which the config does not have: correct or remove that "
     "entry of hydra.sweeper.params, or choose another search"),
    # sixth pass: before, a sqlalchemy or FileNotFoundError traceback and an empty sweep folder
    (["hparams_search=mnist_random", "hydra.sweeper.storage=garbage://x"],
     "hydra.sweeper.storage=garbage://x is not a database URL SQLAlchemy can open (NoSuchModuleError: "
     "Can't load plugin: sqlalchemy.dialects:garbage). Fix: "
     "hydra.sweeper.storage=sqlite:///<folder>/optuna.db (the default puts it in the sweep's folder), "
     "another database URL, or null (a study in memory, lost at the end)"),
    (["hparams_search=mnist_random", "hydra.sweeper.storage=sqlite:////proc/nope/optuna.db"],
     "hydra.sweeper.storage=sqlite:////proc/nope/optuna.db: the study's folder /proc/nope cannot be made "
     "(No such file or directory at /proc). Fix: hydra.sweeper.storage=sqlite:///<folder>/optuna.db (the "
     "default puts it in the sweep's folder), another database URL, or null (a study in memory, lost at "
     "the end)"),
    # breaking pass 63, row 48: before, the study went to the folder the command was typed in, and the same
    # command typed elsewhere opened another, empty one
    (["hparams_search=mnist_random", "hydra.sweeper.storage=sqlite:///rel.db"],
     f"hydra.sweeper.storage=sqlite:///rel.db is relative to the folder the command is typed in "
     f"({Path.cwd()}), so the same command typed elsewhere would open another study, not continue this one. "
     f"Fix: an absolute path, hydra.sweeper.storage=sqlite:///{Path.cwd() / 'rel.db'} (or leave it out: "
     f"optuna.db in the sweep's folder)"),
])
def test_a_searched_key_the_config_lacks_is_one_line_before_the_sweeper(overrides, message, capsys):
    # before: Hydra's "Could not override 'model.gate_bias'. To append to your config use
    # +model.gate_bias=-4" at the first trial, after optuna.db was made
    assert sweep_check(overrides, capsys) == (1, f"highwaylab: {message}\n")


def test_outside_a_hydra_run_the_line_names_no_options(capsys):
    """Without an initialised Hydra (a config composed elsewhere) the options are not composed."""
    assert sweep_check(["hparams_search=mnist_random", "model=plain"], capsys, hydra_up=False) == (
        1, "highwaylab: hparams_search=mnist_random searches model.gate_bias, which model=plain does not "
           "have: choose a model that has it or another search, or search without it: "
           "hydra.sweeper.params=null and the entries to search as overrides, e.g. "
           "'optim.optimizer.lr=tag(log, interval(0.001, 1.0))'\n")


@pytest.mark.parametrize("overrides", [
    ["hparams_search=mnist_random"],  # model=highway, optim=sgd: every key is there
    ["hparams_search=mnist_tpe", "model=conv_highway"],
    ["hparams_search=mnist_random", "optim=sgd_step"],
    # the search chooses the model itself, among options that all have the keys it searches
    ["hparams_search=mnist_random", "model=plain",
     "+hydra.sweeper.params.model='choice(highway,conv_highway)'"],
    ["seed=0"],  # the basic sweeper: no params
])
def test_searches_whose_keys_exist_pass_without_a_word(overrides, capsys, caplog):
    with caplog.at_level(logging.WARNING, logger=SWEEP_LOGGER):
        assert sweep_check(overrides, capsys) == (None, "")
    assert records(caplog, SWEEP_LOGGER) == []


def test_a_search_that_chooses_a_model_without_a_key_it_searches_is_refused(capsys):
    # pass 66, row 06: a trial that draws model=plain could not set model.gate_bias (Hydra's "Could not
    # override"), which stopped the whole search; before, this passed, as "cannot be checked before a trial"
    assert sweep_check(["hparams_search=mnist_random", "model=plain",
                        "+hydra.sweeper.params.model='choice(highway,plain)'"], capsys) == (
        1, "highwaylab: hparams_search=mnist_random searches model.gate_bias, which model=plain (one of the "
           "model options it draws, highway,plain) does not have. Fix: draw only the model options that have "
           "it (here: highway), or search without it: hydra.sweeper.params=null and the entries to search as "
           "overrides\n")


@pytest.mark.parametrize(("metric", "direction", "instead"), [
    ("test/acc", "maximize", "val/acc_best"),
    ("test/loss", "minimize", "val/loss (with hydra.sweeper.direction=minimize)"),
])
def test_a_search_tuned_on_the_test_set_is_warned_once_and_goes_on(metric, direction, instead, capsys,
                                                                   caplog):
    with caplog.at_level(logging.WARNING, logger=SWEEP_LOGGER):
        assert sweep_check(["hparams_search=mnist_random", f"optimized_metric={metric}",
                            f"hydra.sweeper.direction={direction}"], capsys) == (None, "")
    assert records(caplog, SWEEP_LOGGER) == [(
        logging.WARNING,
        f"highwaylab: optimized_metric={metric} tunes the search on the test set, so the best trial's "
        f"{metric} is no longer a fair estimate of it; tune on the validation set instead: "
        f"optimized_metric={instead}")]


def test_a_test_metric_outside_a_search_is_not_warned(capsys, caplog):
    with caplog.at_level(logging.WARNING, logger=SWEEP_LOGGER):
        assert sweep_check(["optimized_metric=test/acc"], capsys) == (None, "")  # basic sweeper
    assert records(caplog, SWEEP_LOGGER) == []


@pytest.mark.slow
def test_train_py_refuses_the_search_before_any_folder_or_optuna_db(tmp_path):
    proc = subprocess.run(
        [sys.executable, "train.py", "hparams_search=mnist_random", "model=plain", "hydra.sweeper.n_trials=1",
         *TINY, f"paths.log_dir={tmp_path / 'logs'}"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=subprocess_env())
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1] == (
        "highwaylab: hparams_search=mnist_random searches model.gate_bias, which model=plain does not have: "
        "choose a model that has it (model=conv_highway or model=highway) or another search, or search "
        "without it: hydra.sweeper.params=null and the entries to search as overrides, e.g. "
        "'optim.optimizer.lr=tag(log, interval(0.001, 1.0))'")
    assert "Could not override" not in proc.stderr + proc.stdout
    assert not (tmp_path / "logs").exists()  # no sweep folder, no optuna.db


# --- #85, #61: W&B project names in report and workspace ---------------------------------------------

BAD_NAME = ("--project bad/name is refused by W&B (Invalid project name 'bad/name': cannot contain "
            "characters '/,\\\\,#,?,%,:', found '/'): give a project name W&B accepts, e.g. "
            "--project highwaylab")


def test_report_refuses_a_project_wandb_refuses_before_writing_anything(tmp_path, capsys):
    out = tmp_path / "report"
    with pytest.raises(SystemExit) as exit_:
        report_main([str(tmp_path), "--project", "bad/name", "--out", str(out)])
    assert exit_.value.code == 2
    captured = capsys.readouterr()
    # before: the report was written, then wandb's UsageError as a 20-line traceback, exit status 1
    assert captured.err == f"python -m highwaylab.report: error: {BAD_NAME} (or --no-wandb)\n"
    assert captured.out == "" and not out.exists()


def test_report_refuses_an_empty_project_and_ignores_the_name_with_no_wandb(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        report_main([str(tmp_path / "none"), "--project", ""])
    assert (exit_.value.code, capsys.readouterr().err) == (
        2, "python -m highwaylab.report: error: --project '' is empty: give a project name W&B accepts, "
           "e.g. --project highwaylab (or --no-wandb)\n")
    with pytest.raises(SystemExit) as exit_:  # pass 88, row 37: before, taken, and filed in another project
        report_main([str(tmp_path / "none"), "--project", "highwaylab "])
    assert (exit_.value.code, capsys.readouterr().err) == (
        2, "python -m highwaylab.report: error: --project 'highwaylab ' begins or ends with a space, which "
           "W&B keeps (another project than 'highwaylab'): give --project highwaylab (or --no-wandb)\n")
    with pytest.raises(SystemExit) as exit_:  # --no-wandb: the project is not used, the next check speaks
        report_main([str(tmp_path / "none"), "--project", "bad/name", "--no-wandb"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith(f"python -m highwaylab.report: error: {tmp_path / 'none'}: no "
                                              "such folder")


def test_workspace_refuses_a_project_wandb_refuses_before_writing_the_layout(tmp_path, capsys):
    out = tmp_path / "w.json"
    with pytest.raises(SystemExit) as exit_:
        workspace_main(["--entity", "", "--project", "bad/name", "--out", str(out)])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == f"python -m highwaylab.workspace: error: {BAD_NAME}\n"
    assert not out.exists()  # before: a layout for project bad/name, exit status 0


def test_workspace_goes_to_the_runs_project_whatever_wandb_project_says(tmp_path, capsys, monkeypatch):
    # new-user pass 48, finding 1: before, the workspace took $WANDB_PROJECT, which the runs ignore (they
    # log to logger.wandb.project, highwaylab), so it landed in a project without the runs
    out = tmp_path / "w.json"
    monkeypatch.setenv("WANDB_PROJECT", "a#b")
    assert workspace_main(["--out", str(out)]) == 0
    assert json.loads(out.read_text())["project"] == "highwaylab"
    with pytest.raises(SystemExit) as exit_:  # a bad --project is still refused before any work
        workspace_main(["--out", str(tmp_path / "x.json"), "--project", "a#b"])
    assert (exit_.value.code, capsys.readouterr().err) == (
        2, "python -m highwaylab.workspace: error: --project 'a#b' is refused by W&B (Invalid project "
           "name 'a#b': cannot contain characters '/,\\\\,#,?,%,:', found '#'): give a project name W&B "
           "accepts, e.g. --project highwaylab\n")
    assert not (tmp_path / "x.json").exists()


def test_project_names_at_w_and_bs_length_limit():
    assert project_name_error("p" * 128) is None
    assert project_name_error("my-project_2") is None
    assert project_name_error("p" * 129).endswith("exceeded 128 characters): give a project name W&B "
                                                  "accepts, e.g. --project highwaylab")


# --- #53: a figure file that cannot be written -------------------------------------------------------

def ones_figure():
    return layer_maps([np.ones((3, 4))], ["T"], "t", "T")


def test_a_full_disk_at_a_figure_is_one_warning_and_no_more_figure_files(tmp_path, caplog):
    run = tmp_path / "run"
    folder = run / "figures" / "gates_mean_map"
    folder.mkdir(parents=True)
    full = folder / "step_0000007.png"
    full.symlink_to("/dev/full")  # every write to it fails with ENOSPC, as on a full disk
    trainer = SimpleNamespace(loggers=[], default_root_dir=str(run))
    with caplog.at_level(logging.WARNING, logger=MEDIA_LOGGER):
        assert log_figure(trainer, "gates/mean_map", ones_figure, 7) is None  # before: OSError, run dead
        assert log_figure(trainer, "gates/bias_map", ones_figure, 8) is None  # files are off from now on
        log_table(trainer, "gates/table", ["layer", "mean"], [[1, 0.5]], 8)
    assert messages(caplog, MEDIA_LOGGER) == [
        f"highwaylab: could not write {full} ({os.strerror(errno.ENOSPC)}): no more figure or table files "
        "are written in this run; the run goes on"]
    assert not full.is_symlink() and not full.exists()  # no partial file left
    assert sorted(p.name for p in (run / "figures").iterdir()) == ["gates_mean_map"]
    # another run (another folder) still writes its figures
    other = SimpleNamespace(loggers=[], default_root_dir=str(tmp_path / "other"))
    assert log_figure(other, "gates/mean_map", ones_figure, 7).stat().st_size > 1000


@pytest.mark.slow
def test_wandb_gets_the_image_without_the_file_and_a_refusing_logger_is_dropped(tmp_path, caplog):
    from lightning.pytorch.loggers import WandbLogger

    logger = WandbLogger(save_dir=str(tmp_path / "wandb_dir"), offline=True, project="highwaylab")
    try:
        media = Path(logger.experiment.dir) / "media" / "images"
        run = tmp_path / "run"
        (run / "figures" / "gates_mean_map").mkdir(parents=True)
        (run / "figures" / "gates_mean_map" / "step_0000001.png").symlink_to("/dev/full")
        trainer = SimpleNamespace(loggers=[logger], default_root_dir=str(run))
        with caplog.at_level(logging.WARNING, logger=MEDIA_LOGGER):
            assert log_figure(trainer, "gates/mean_map", ones_figure, 1) is None
        assert [m.split(": no more")[1] for m in messages(caplog, MEDIA_LOGGER)] == [
            " figure or table files are written in this run (the loggers still get them); the run goes on"]
        assert len(list(media.glob("gates/mean_map_*.png"))) == 1  # W&B encoded the image itself
        # W&B's own copy fails (a file where its media folder goes): one warning, then W&B gets no more
        other = SimpleNamespace(loggers=[logger], default_root_dir=str(tmp_path / "run2"))
        (media / "grad_norm").write_text("in the way\n")
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger=MEDIA_LOGGER):
            path = log_figure(other, "grad_norm/by_layer", ones_figure, 2)
            assert path is not None and path.is_file()  # the run's own file is written
            assert log_figure(other, "grad_norm/by_step", ones_figure, 3).is_file()
            log_table(other, "grad_norm/table", ["layer"], [[1]], 3)  # not sent to W&B: no warning
        said = messages(caplog, MEDIA_LOGGER)
        assert len(said) == 1 and said[0].startswith(
            "highwaylab: WandbLogger could not take figure grad_norm/by_layer at step 2 (")
        assert said[0].endswith("): it gets no more figures or tables in this run; the run goes on")
    finally:
        logger.experiment.finish()


@pytest.mark.slow
def test_a_training_run_whose_figures_cannot_be_written_finishes_with_its_checkpoints(tmp_path, caplog):
    from highwaylab.train import train

    # a file where a figure's folder goes (a file at figures/ itself is refused before training: pass 39,
    # row 39), so that the figure cannot be written mid-run
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "gates_mean_by_step").write_text("a file where a figure's folder goes\n")
    with caplog.at_level(logging.WARNING, logger=MEDIA_LOGGER):
        metrics = train(compose_cfg(TINY, tmp_path))
    assert metrics["global_step"] == 4 and (tmp_path / "checkpoints" / "last.ckpt").is_file()
    assert (tmp_path / "metrics.json").is_file()
    said = messages(caplog, MEDIA_LOGGER)
    assert len(said) == 1, said
    assert said[0].startswith(f"highwaylab: could not write {tmp_path / 'figures' / 'gates_mean_by_step'}/")
    assert said[0].endswith(f"({os.strerror(errno.EEXIST)}): no more figure or table files are written "
                                "in this run; the run goes on")


# --- #47: SIGHUP --------------------------------------------------------------------------------------

def fake_trainer() -> FakeTrainer:
    """A trainer in the middle of epoch 0, at step 7, whose last.ckpt is of step 7."""
    return FakeTrainer(epoch=0, step=7, saved=7)


@pytest.fixture
def hangup_default():
    """SIGHUP at its default (as in a terminal), whatever this pytest was started with (nohup)."""
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGHUP, before)


def test_sighup_stops_at_a_batch_boundary_and_exits_129(hangup_default):
    with pytest.raises(RunInterrupted) as err, interrupt.signals_interrupt():
        deliver(signal.SIGHUP)  # no trainer yet: at once
    assert err.value.exit_code == 129
    assert str(err.value) == ("interrupted by SIGHUP before training started: nothing was saved, nor "
                              "trained; start the run again with the same command.")
    trainer = fake_trainer()
    with interrupt.signals_interrupt():
        interrupt.watch(trainer)
        deliver(signal.SIGHUP)
        assert trainer.received_sigterm  # Lightning raises SIGTERMException at the next batch boundary
        assert interrupt.signalled() == signal.SIGHUP
        stopped = interrupt.as_interrupted(RuntimeError())
        assert stopped is None  # another error stays itself
        # W&B's helper, stopped by the same signal (SLURM signals every process of the job): the
        # run's next W&B call loses its connection before the batch boundary (CI at 775cf23: the
        # requeued job was recorded as failed with ConnectionResetError('Connection lost'))
        lost = interrupt.as_interrupted(ConnectionResetError("Connection lost"))
        assert lost.exit_code == 129 and str(lost).startswith("interrupted by SIGHUP in epoch 0 at step 7:")
        from lightning.pytorch.utilities.exceptions import SIGTERMException

        stopped = interrupt.as_interrupted(SIGTERMException())
    assert (stopped.exit_code, str(stopped)) == (
        129, "interrupted by SIGHUP in epoch 0 at step 7: its state at step 7 is saved in last.ckpt; resume "
             "from it (README: Resume).")
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_DFL  # the handler came back


def test_a_lost_connection_without_a_signal_stays_itself():
    with interrupt.signals_interrupt():
        interrupt.watch(fake_trainer())
        assert interrupt.as_interrupted(ConnectionResetError("Connection lost")) is None


def test_an_ignored_sighup_stays_ignored_as_nohup_promises():
    before = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with interrupt.signals_interrupt():
            assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
            deliver(signal.SIGHUP)  # nothing happens
            assert interrupt.signalled() is None
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


def test_a_hung_up_terminal_on_stdout_is_pointed_at_dev_null():
    saved = os.dup(1)
    master, slave = os.openpty()
    try:
        os.dup2(slave, 1)
        assert interrupt._drop_hung_up_terminal() == []  # a live terminal is left alone
        assert os.path.realpath("/proc/self/fd/1").startswith("/dev/pts/")
        os.close(master)  # the terminal closes: every write to it now fails with EIO
        master = None
        with pytest.raises(OSError) as err:
            os.write(1, b"x")
        assert err.value.errno == errno.EIO
        assert interrupt._drop_hung_up_terminal() == [1]  # fd 2 (pytest's capture file) stays
        assert os.path.realpath("/proc/self/fd/1") == "/dev/null"
        assert os.write(1, b"x") == 1
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(slave)
        if master is not None:
            os.close(master)


@pytest.mark.slow
def test_closing_the_terminal_of_a_training_run_saves_it_and_exits_129(tmp_path):
    """train.py on a pseudo-terminal (progress bar on); the terminal closes mid-epoch, as when an ssh
    session ends: the kernel sends SIGHUP, and every later write to the terminal fails."""
    args = [sys.executable, "train.py", "depth=30", "width=50", "trainer.max_epochs=3",
            "trainer.limit_val_batches=2", "trainer.limit_test_batches=2", "logger=none", "callbacks=minimal",
            f"hydra.run.dir={tmp_path / 'run'}"]
    env = subprocess_env(HYDRA_FULL_ERROR="1")
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session leader whose controlling terminal is the pty
        try:
            os.chdir(ROOT)
            # a terminal's session: SIGHUP at its default action, though pytest may run under nohup (which
            # ignores it, as a nohup'd run would keep ignoring it; before, this test then failed: exit 0)
            signal.signal(signal.SIGHUP, signal.SIG_DFL)
            os.execve(sys.executable, args, env)
        finally:
            os._exit(127)
    log = tmp_path / "run" / "train.log"
    seen, deadline = b"", time.monotonic() + 120
    try:
        while not (log.is_file() and "Training starts" in log.read_text()):
            assert time.monotonic() < deadline, seen[-2000:]
            if select.select([fd], [], [], 0.2)[0]:  # read the terminal, as a terminal does
                try:
                    seen += os.read(fd, 65536)
                except OSError:  # EIO: the run ended before training started
                    pytest.fail(f"train.py ended early: {seen[-2000:]!r}")
        time.sleep(1.0)  # a few batches into epoch 0
    finally:
        os.close(fd)  # the terminal goes away
    deadline = time.monotonic() + 120
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0:
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            pytest.fail("the run did not stop after SIGHUP")
        time.sleep(0.2)
    assert os.waitstatus_to_exitcode(done[1]) == 129  # before: killed by SIGHUP, nothing saved
    run = tmp_path / "run"
    assert (run / "checkpoints" / "last.ckpt").is_file()
    last = (run / "train.log").read_text().strip().splitlines()[-1]
    assert "highwaylab: interrupted by SIGHUP in epoch 0 at step " in last
    saved = run / "checkpoints" / "last.ckpt"
    assert f"is saved in {saved}; resume with: python train.py resume={run}" in last


# --- #55: probe creates nothing when it refuses its arguments -----------------------------------------

@pytest.mark.parametrize(("args", "message"), [
    (["--layers", "a,b", "--depth", "5"], "--layers must be comma-separated layer numbers, e.g. 30,20,10,1; "
                                          "got a,b"),
    (["--layers", "9", "--depth", "5"], "--layers must lie in 1 .. 5"),
    (["--batch", "0", "--depth", "5"], "--batch must be a positive integer, got 0"),
    # sixth pass: before, ignored without --activation (the published table printed, exit 0)
    (["--scale", "3", "--depth", "5"], "--scale 3.0 describes a stack of your own, which needs --activation "
                                       "too (e.g. --activation tanh --scale 3.0); without --activation the "
                                       "five published stacks run"),
    (["--form", "residual", "--scale", "2"], "--form residual and --scale 2.0 describe a stack of your own, "
                                             "which needs --activation too (e.g. --activation tanh --form "
                                             "residual --scale 2.0); without --activation the five published "
                                             "stacks run"),
    # pass 73, row 46 (major): before, "--scale 0.0 describes a stack of your own ... (e.g. --activation tanh
    # --scale 0.0)", refused in turn
    (["--scale", "0", "--depth", "5"], "--scale must be a positive finite number, got 0.0; and --scale "
                                       "describes a stack of your own, which needs --activation too (e.g. "
                                       "--activation tanh --scale 2.0)"),
    # pass 84, rows 25, 115: inf is positive, not finite; an activation by its module path
    (["--scale", "inf", "--activation", "tanh"], "--scale must be a positive finite number, got inf"),
    (["--activation", "torch.nn.Tanh"], "--activation 'torch.nn.Tanh': give the activation by its name, e.g. "
                                        "--activation tanh"),
    # pass 79, row 60: before, "--scale must be a positive number, got nan", then a second refusal for
    # --activation; with it given, the one problem alone
    (["--scale", "nan", "--activation", "tanh"], "--scale must be a positive finite number, got nan"),
    # ninth pass: before, a RuntimeError traceback ("can't allocate memory")
    (["--activation", "tanh", "--depth", "5", "--width", "100000000"],
     "--depth 5 --width 100000000 --batch 32 needs about 4e+08 GB (float64 weights and activations)"),
    (["--activation", "tanh", "--depth", "5", "--width", "8", "--batch", "100000000000"],
     "--depth 5 --width 8 --batch 100000000000 needs about 1.28e+05 GB"),
])
def test_a_refused_probe_leaves_no_folder(args, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # the default --plot is outputs/probe/grad_norms.png, in the cwd
    with pytest.raises(SystemExit) as exit_:
        probe_main(args)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(f"python -m highwaylab.probe: error: "
                                                                      f"{message}")
    assert list(tmp_path.iterdir()) == []  # before: an empty outputs/probe/


def test_an_accepted_probe_still_makes_the_plot_folder(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    probe_main(["--depth", "3", "--width", "8", "--activation", "tanh"])
    assert (tmp_path / "outputs" / "probe" / "grad_norms.png").stat().st_size > 1000
    assert "plot: outputs/probe/grad_norms.png" in capsys.readouterr().out


def test_a_repeated_probe_layer_is_one_column(tmp_path, monkeypatch, capsys):
    # eleventh pass: before, --layers 3,3 printed the layer 3 column twice
    monkeypatch.chdir(tmp_path)
    probe_main(["--activation", "tanh", "--depth", "5", "--width", "8", "--layers", "3,3,1"])
    header = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| stack"))
    assert header == "| stack | layer 3 | layer 1 |"


@pytest.mark.parametrize("case", ["metrics.json", "last.ckpt", "other file", "tilde"])
def test_workspace_out_never_replaces_a_runs_file_or_another_file(case, tmp_path, capsys, monkeypatch):
    # pass 35, rows 22-24: before, rc 0 and "wrote the workspace layout (5 sections) to <run>/metrics.json"
    # (the run's result gone), to <run>/checkpoints/last.ckpt (its resume point gone), and to ~/ws.json
    # (written into <cwd>/~/ws.json)
    monkeypatch.chdir(tmp_path)
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / ".hydra").mkdir()
    (run / "metrics.json").write_text('{"test/acc": 0.9}\n')
    (run / "checkpoints" / "last.ckpt").write_bytes(b"state")
    (tmp_path / "notes.txt").write_text("mine\n")
    out, message = {
        "metrics.json": (run / "metrics.json", None),
        "last.ckpt": (run / "checkpoints" / "last.ckpt", None),
        "other file": (tmp_path / "notes.txt", f"--out {tmp_path}/notes.txt is a file that holds something "
                                               f"else than a workspace layout, which writing would replace. "
                                               f"Fix: give a new file name, e.g. --out wandb_workspace.json, "
                                               f"or remove the file first"),
        "tilde": ("~/ws.json", f"--out ~/ws.json: ~ is not expanded here (a shell expands it only at the "
                               f"start of a word, not after --out= or in quotes), so it would be written "
                               f"into a folder named '~' in {tmp_path}. Fix: --out "
                               f"{Path('~/ws.json').expanduser()}"),
    }[case]
    message = message or (f"--out {out} is inside {run}, the folder of a run or a multirun (it holds .hydra, "
                          f"metrics.json, checkpoints), whose files the layout must not replace. Fix: give a "
                          f"file of its own, e.g. --out wandb_workspace.json")
    with pytest.raises(SystemExit) as exit_:
        workspace_main(["--entity", "me", f"--out={out}"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == f"python -m highwaylab.workspace: error: {message}\n"
    assert (run / "metrics.json").read_text() == '{"test/acc": 0.9}\n'
    assert (run / "checkpoints" / "last.ckpt").read_bytes() == b"state"
    assert (tmp_path / "notes.txt").read_text() == "mine\n" and not (tmp_path / "~").exists()
    workspace_main(["--entity", "me", "--out", "ws.json"])  # a new file, then the same one again: written
    workspace_main(["--entity", "me", "--out", "ws.json"])
    assert json.loads((tmp_path / "ws.json").read_text())["displayName"] == "highwaylab depth"


def test_workspace_out_with_a_trailing_slash_is_not_written_as_a_file(tmp_path, capsys):
    # pass 37, row 36: before, --out <new folder>/ wrote a 31 KB file named after the folder
    with pytest.raises(SystemExit) as exit_:
        workspace_main(["--entity", "me", f"--out={tmp_path}/wsdir/"])
    assert exit_.value.code == 2 and not (tmp_path / "wsdir").exists()
    assert capsys.readouterr().err == (
        f"python -m highwaylab.workspace: error: --out {tmp_path}/wsdir/: the trailing / names a folder, "
        f"which does not exist, and --out names the layout's file. Fix: --out "
        f"{tmp_path}/wsdir/wandb_workspace.json after mkdir -p {tmp_path}/wsdir/, or --out "
        f"{tmp_path}/wsdir.json\n")
