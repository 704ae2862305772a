"""One line, before the work, for four inputs of the fourth breaking pass (issue 11): an Optuna
direction that optuna refuses (#55: was a 22-line traceback and a sweep folder with optuna.db), a
``--plot`` file type matplotlib cannot write (#65: was a traceback after the computation), W&B tags
that are lists or too long (#79: a silent tag "['b', 'c']"; #81: a pydantic traceback after 7 s),
and optimiser arguments that torch refuses (#94: an omegaconf IndexError inside AdamW).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import pytest
import torch
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.utils import instantiate
from omegaconf import OmegaConf

from highwaylab.errors import ConfigError
from highwaylab.probe import main as probe_main
from highwaylab.utils import user_error
from highwaylab.utils.loggers import check_wandb_names
from highwaylab.utils.sweep import SweepCheck

from .conftest import ROOT, TINY, compose_cfg

# --- #55: hydra.sweeper.direction -----------------------------------------------------------------


def sweep_check(overrides: list[str], capsys) -> tuple[int | None, str]:
    """SweepCheck on the composed multirun config: (exit status or None, its stderr)."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["hparams_search=mnist_tpe", *overrides], return_hydra_config=True)
    try:
        SweepCheck().on_multirun_start(cfg)
    except SystemExit as exit_:
        return exit_.code, capsys.readouterr().err
    return None, capsys.readouterr().err


REFUSED = ("is not a direction of the Optuna sweeper: give minimize or maximize (lower case), e.g. "
           "hydra.sweeper.direction=maximize for optimized_metric=val/acc_best")


@pytest.mark.parametrize(("direction", "message"), [
    ("minimise", f"hydra.sweeper.direction=minimise {REFUSED}"),
    ("MAXIMIZE", f"hydra.sweeper.direction=MAXIMIZE {REFUSED}"),
    ("null", f"hydra.sweeper.direction=null {REFUSED}"),
    ("[maximize,up]", f"hydra.sweeper.direction=[maximize,up] {REFUSED}"),
    ("[maximize,minimize]", "hydra.sweeper.direction=[maximize,minimize] asks for a search of 2 "
                            "objectives, but a job returns one value (optimized_metric), so every trial "
                            "would fail: give one direction, e.g. hydra.sweeper.direction=maximize"),
])
def test_a_direction_optuna_refuses_is_one_line_before_the_sweeper(direction, message, capsys):
    import optuna

    assert sweep_check([f"hydra.sweeper.direction={direction}"], capsys) == (1, f"highwaylab: {message}\n")
    if direction in ("minimise", "MAXIMIZE"):  # optuna itself refuses them (the traceback of #55)
        with pytest.raises(ValueError, match="Please set either 'minimize' or 'maximize'"):
            optuna.create_study(direction=direction)


@pytest.mark.parametrize(("direction", "metric"), [("maximize", "val/acc_best"), ("minimize", "val/loss"),
                                                 ("[minimize]", "train/loss")])
def test_the_directions_of_the_optuna_sweeper_pass(direction, metric, capsys):
    assert sweep_check([f"hydra.sweeper.direction={direction}", f"optimized_metric={metric}"],
                       capsys) == (None, "")


# breaking pass 25, row 21: a loss chosen as the objective with the search's own direction, maximize,
# searched for the worst trial in silence


@pytest.mark.parametrize(("overrides", "message"), [
    (["optimized_metric=val/loss"],
     "optimized_metric=val/loss is a loss, but hydra.sweeper.direction=maximize would choose the trial with "
     "the highest loss. Fix: add hydra.sweeper.direction=minimize"),
    (["optimized_metric=train/loss", "hydra.sweeper.direction=[maximize]"],
     "optimized_metric=train/loss is a loss, but hydra.sweeper.direction=maximize would choose the trial "
     "with the highest loss. Fix: add hydra.sweeper.direction=minimize"),
    (["hydra.sweeper.direction=minimize"],
     "optimized_metric=val/acc_best is an accuracy, but hydra.sweeper.direction=minimize would choose the "
     "trial with the lowest accuracy. Fix: hydra.sweeper.direction=maximize (hparams_search's), or a loss "
     "to minimise, e.g. optimized_metric=val/loss"),
])
def test_an_objective_searched_the_wrong_way_is_one_line_before_the_sweeper(overrides, message, capsys):
    assert sweep_check(overrides, capsys) == (1, f"highwaylab: {message}\n")


@pytest.mark.parametrize("overrides", [
    ["optimized_metric=val/loss", "hydra.sweeper.direction=minimize"],
    ["optimized_metric=train/loss", "hydra.sweeper.direction=minimize"],  # README: Figure 1's criterion
    ["optimized_metric=val/acc"],
])
def test_an_objective_searched_its_own_way_passes(overrides, capsys):
    assert sweep_check(overrides, capsys) == (None, "")


# breaking pass 15, row 22: hydra.sweeper.max_failure_rate out of 0 .. 1 was the sweeper's bare
# AssertionError() (full_key: hydra.sweeper), after the sweep folder was made


@pytest.mark.parametrize(("rate", "shown"), [("2", "2.0"), ("-0.5", "-0.5"), ("nan", "nan")])
def test_a_max_failure_rate_outside_0_to_1_is_one_line_before_the_sweeper(rate, shown, capsys):
    assert sweep_check([f"hydra.sweeper.max_failure_rate={rate}"], capsys) == (
        1, f"highwaylab: hydra.sweeper.max_failure_rate={shown}: must be a fraction in 0.0 .. 1.0 (the share "
           f"of a batch of trials that may fail before the search stops; 1.0: it goes on whatever fails). "
           f"Fix: e.g. hydra.sweeper.max_failure_rate=1.0\n")


@pytest.mark.parametrize("rate", ["0", "0.5", "1"])
def test_a_max_failure_rate_in_0_to_1_passes(rate, capsys):
    assert sweep_check([f"hydra.sweeper.max_failure_rate={rate}"], capsys) == (None, "")


# breaking pass 16, row 46: before, n_startup_trials=-1 ran silently as 0 (both trials ran)


@pytest.mark.parametrize(("overrides", "message"), [
    (["hydra.sweeper.sampler.n_startup_trials=-1"],
     "hydra.sweeper.sampler.n_startup_trials=-1 must be an integer >= 0 (the random trials before the "
     "sampler models the results). Fix: e.g. hydra.sweeper.sampler.n_startup_trials=10 (optuna's default), "
     "or leave it out"),
    (["hydra.sweeper.sampler.n_ei_candidates=0"],
     "hydra.sweeper.sampler.n_ei_candidates=0 must be an integer >= 1 (the candidates TPE scores"),
])
def test_a_negative_sampler_count_is_one_line_before_the_sweeper(overrides, message, capsys):
    code, err = sweep_check(overrides, capsys)
    assert code == 1 and err.startswith(f"highwaylab: {message}") and err.count("\n") == 1, err


@pytest.mark.parametrize("overrides", [["hydra.sweeper.sampler.n_startup_trials=0"],
                                       ["hydra.sweeper.sampler.n_ei_candidates=1"]])
def test_sampler_counts_at_their_least_pass(overrides, capsys):
    assert sweep_check(overrides, capsys) == (None, "")


# --- #65: probe --plot --------------------------------------------------------------------------


def probe_error(args: list[str], capsys) -> str:
    """The probe's argparse error line (exit status 2), checking that nothing was computed."""
    with pytest.raises(SystemExit) as exit_:
        probe_main(["--depth", "3", "--width", "8", "--activation", "tanh", *args])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""  # refused before the table
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize("seed", ["99999999999999999999", "-1", "4294967296"])
def test_a_probe_seed_out_of_range_is_refused_as_train_pys(seed, tmp_path, capsys):
    # pass 30, row 29: before, a traceback after the header ("ValueError: Overflow when unpacking long
    # long") for 99999999999999999999, and --seed -1 accepted where train.py refuses seed=-1
    line = probe_error(["--seed", seed, "--plot", str(tmp_path / "p.png")], capsys)
    assert line == (f"python -m highwaylab.probe: error: --seed must be an integer in 0 .. 4294967295 "
                    f"(2**32 - 1), got {seed}")

def test_a_plot_type_matplotlib_cannot_write_is_refused_before_the_computation(tmp_path, capsys):
    line = probe_error(["--plot", str(tmp_path / "p.pdff")], capsys)
    assert line == (f"python -m highwaylab.probe: error: --plot {tmp_path}/p.pdff: matplotlib cannot write "
                    ".pdff files; end the name with one of .avif, .eps, .gif, .jpeg, .jpg, .pdf, .pgf, "
                    ".png, .ps, .raw, .rgba, .svg, .svgz, .tif, .tiff, .webp (e.g. --plot "
                    f"{tmp_path}/p.png)")
    assert not (tmp_path / "p.pdff").exists()
    line = probe_error(["--plot", str(tmp_path)], capsys)  # a folder
    assert line == (f"python -m highwaylab.probe: error: --plot {tmp_path} is a folder; give a file name, "
                    f"e.g. --plot {tmp_path}/grad_norms.png")
    # breaking pass 60, row 17: before, --plot /dev/null made a regular file /dev/null.png (as root)
    assert probe_error(["--plot", "/dev/null"], capsys) == (
        "python -m highwaylab.probe: error: --plot /dev/null is a character device, not a file: the figure "
        "is written to a file of its own (a name without a suffix gets .png), and the table is printed "
        "either way. Fix: give a file name, e.g. --plot /tmp/grad_norms.png")
    assert not Path("/dev/null.png").exists()
    os.mkfifo(tmp_path / "fifo")
    assert " --plot " + str(tmp_path / "fifo") + " is a FIFO, not a file" in probe_error(
        ["--plot", str(tmp_path / "fifo")], capsys)
    (tmp_path / "file").write_text("")
    line = probe_error(["--plot", str(tmp_path / "file" / "g.png")], capsys)
    assert line.endswith(f"cannot create the folder {tmp_path}/file (a file is there); give a writable "
                         "place, e.g. --plot /tmp/grad_norms.png")


@pytest.mark.skipif(shutil.which(matplotlib.rcParams["pgf.texsystem"]) is not None,
                    reason="this machine has the LaTeX that .pgf needs")
def test_a_plot_type_whose_writer_needs_a_missing_program_is_refused_first(tmp_path, capsys):
    line = probe_error(["--plot", str(tmp_path / "p.pgf")], capsys)
    texsystem = matplotlib.rcParams["pgf.texsystem"]
    assert line.startswith(f"python -m highwaylab.probe: error: --plot {tmp_path}/p.pgf: matplotlib cannot "
                           f"write .pgf on this machine (RuntimeError: '{texsystem}' not found")
    assert line.endswith(f"choose another type, e.g. --plot {tmp_path}/p.png")
    assert not (tmp_path / "p.pgf").exists()


def test_a_plot_without_a_suffix_is_written_and_named_as_matplotlib_writes_it(tmp_path, capsys):
    small = ["--depth", "3", "--width", "8", "--activation", "tanh"]
    probe_main([*small, "--plot", str(tmp_path / "g" / "norms")])
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"plot: {tmp_path}/g/norms.png")
    assert (tmp_path / "g" / "norms.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    probe_main([*small, "--plot", str(tmp_path / "n.SVG")])
    assert (tmp_path / "n.SVG").read_text().lstrip().startswith("<?xml")  # the type, case-insensitive


# --- #79, #81: W&B tags ---------------------------------------------------------------------------

WANDB = [a for a in TINY if a != "logger=none"]  # the default logger: W&B, offline


def tags_error(tags: str, tmp_path: Path) -> str:
    cfg = compose_cfg([*WANDB, f"tags={tags}"], tmp_path)
    with pytest.raises(ConfigError) as err:
        check_wandb_names(cfg.logger, cfg.get("tags"))
    return str(err.value)


def test_a_list_inside_tags_is_refused_instead_of_becoming_one_tag(tmp_path):
    assert tags_error("[a,[b,c]]", tmp_path) == (
        "tags[1]=[b,c] is a list, but each W&B tag is one string (it would become the tag \"['b', 'c']\"); "
        "list the tags flat, e.g. tags=[a,b,c]")
    assert tags_error("[a,{x:1}]", tmp_path).startswith("tags[1]={x:1} is a mapping, but each W&B tag is "
                                                        "one string")
    assert tags_error("[a,null]", tmp_path) == ("tags[1]=null is null, but each W&B tag is one string (it "
                                                "would become the tag 'None'); list the tags flat, e.g. "
                                                "tags=[a]")
    cfg = compose_cfg(WANDB, tmp_path)  # (tags={a:1} is Hydra's to refuse: tags is a list in train.yaml)
    with pytest.raises(ConfigError) as err:
        check_wandb_names(cfg.logger, OmegaConf.create({"a": 1}))
    assert str(err.value) == ("tags={a:1} must be a list of tags or one tag, not a mapping; e.g. "
                              "tags=[baseline,wide] or tags=baseline")


def test_a_tag_wandb_refuses_is_one_line_with_wandbs_reason(tmp_path):
    import wandb

    long = "t" * 80
    with pytest.raises(ValueError, match="Tags must be between 1 and 64 characters"):  # W&B's own rule
        wandb.Settings(run_tags=(long,))
    assert tags_error(long, tmp_path) == (
        f"tags={'t' * 40}... (80 characters) is refused by W&B (Tag '{'t' * 20}...{'t' * 20}' is 80 "
        "characters. Tags must be between 1 and 64 characters). Fix: shorten or drop the tag W&B names, "
        "e.g. tags=[baseline,wide]")
    assert tags_error("[ok,'']", tmp_path) == (
        "tags=[ok,''] is refused by W&B (Tag at index 1 is empty. Tags must be between 1 and 64 "
        "characters). Fix: shorten or drop the tag W&B names, e.g. tags=[baseline,wide]")


def test_tags_wandb_takes_pass_and_one_string_stays_one_tag(tmp_path, monkeypatch):
    for tags, first in (("foo", ["foo"]), ("[a,b]", ["a", "b"]), ("[a,1]", ["a", "1"]),
                        ("t" * 64, ["t" * 64]), ("[]", [])):
        cfg = compose_cfg([*WANDB, f"tags={tags}"], tmp_path)
        check_wandb_names(cfg.logger, cfg.get("tags"))
        assert list(cfg.logger.wandb.tags)[:len(first)] == first
        assert list(cfg.logger.wandb.tags)[len(first)].startswith("data:")
    cfg = compose_cfg([*TINY, "tags=[a,[b,c]]"], tmp_path)  # logger=none: no W&B run, nothing to check
    check_wandb_names(cfg.get("logger"), cfg.get("tags"))
    monkeypatch.setenv("WANDB_MODE", "disabled")
    cfg = compose_cfg([*WANDB, "tags=[a,[b,c]]"], tmp_path)
    check_wandb_names(cfg.logger, cfg.get("tags"))


# --- #94: optimiser and scheduler arguments -------------------------------------------------------


def build_module(overrides: list[str], tmp_path: Path):
    cfg = compose_cfg([*TINY, *overrides], tmp_path)
    net = instantiate(cfg.model, input_shape=(1, 28, 28), num_classes=10)
    return instantiate(cfg.module, net=net, num_classes=10, input_shape=(1, 28, 28))


def optim_error(overrides: list[str], tmp_path: Path) -> str:
    with pytest.raises(Exception) as err:
        build_module(overrides, tmp_path).configure_optimizers()
    user = user_error(err.value)
    assert isinstance(user, ConfigError), repr(err.value)
    return str(user)


def test_betas_of_the_wrong_length_are_named_at_construction(tmp_path):
    # pass 50, row 28: the example keeps the '+' the key was given with (optim=adamw does not set betas:
    # before, the example without it was refused as "has no key 'betas'")
    message = ("optim.optimizer.betas={} must be 2 finite numbers, like AdamW's default [0.9,0.999]: e.g. "
               "+optim.optimizer.betas=[0.9,0.999]")
    for betas in ("[0.9]", "0.9", "[0.9,0.99,0.999]"):
        with pytest.raises(Exception) as err:  # at the module's construction: before any training
            build_module(["optim=adamw", f"+optim.optimizer.betas={betas}"], tmp_path)
        assert str(user_error(err.value)) == message.format(betas)


def test_arguments_torch_refuses_are_one_line_naming_the_group_and_torchs_reason(tmp_path):
    assert optim_error(["optim=adamw", "+optim.optimizer.betas=[0.9,1.5]"], tmp_path) == (
        "optim.optimizer (lr=0.001, weight_decay=0.01, betas=[0.9,1.5]) was refused by AdamW (ValueError: "
        "Invalid beta parameter at index 1: 1.5). Fix: correct or remove the optim.optimizer.<argument> at "
        "fault; AdamW takes lr, betas, eps, weight_decay, amsgrad, maximize, foreach, capturable, "
        "differentiable, fused")
    assert optim_error(["optim.optimizer.lr=-1"], tmp_path).startswith(
        "optim.optimizer (lr=-1, momentum=0.9, weight_decay=0.0) was refused by SGD (ValueError: Invalid "
        "learning rate: -1). Fix:")
    # an argument SGD does not take: now at the module's construction (_check_argument_names)
    assert optim_error(["+optim.optimizer.beta=0.9"], tmp_path) == (
        "optim.optimizer.beta=0.9: SGD (torch.optim.SGD) has no argument beta. Fix: remove it "
        "(leave +optim.optimizer.beta=0.9 out) or correct its name; SGD takes lr, momentum, dampening, "
        "weight_decay, nesterov, maximize, foreach, differentiable, fused")
    assert optim_error(["optim=sgd_step", "optim.scheduler.milestones=5"], tmp_path) == (
        "optim.scheduler (milestones=5, gamma=0.1) was refused by MultiStepLR (TypeError: 'int' object is "
        "not iterable). Fix: correct or remove the optim.scheduler.<argument> at fault; MultiStepLR takes "
        "milestones, gamma, last_epoch")


ONE_CYCLE = ["optim.scheduler._target_=torch.optim.lr_scheduler.OneCycleLR", "~optim.scheduler.gamma",
             "+optim.scheduler.max_lr=0.1", "optim.scheduler_interval=step"]


def test_a_one_cycle_schedule_shorter_than_the_run_is_refused_before_training(tmp_path):
    # breaking pass 17, row 14: before, "Tried to step 3 times. The specified number of total steps is 2"
    # mid-run, a traceback, and no checkpoint
    trainer = SimpleNamespace(estimated_stepping_batches=3, max_epochs=1)

    def built(overrides: list[str]) -> dict:
        module = build_module(ONE_CYCLE + overrides, tmp_path)
        module._trainer = trainer
        return module.configure_optimizers()

    with pytest.raises(ConfigError) as err:
        built(["+optim.scheduler.total_steps=2"])
    assert str(err.value) == (
        "optim.scheduler.total_steps=2 is below the run's 3 training steps (optim.scheduler_interval=step): "
        "OneCycleLR would raise at step 3, mid-run. Fix: optim.scheduler.total_steps=3 or more (or epochs x "
        "steps_per_epoch >= 3)")
    with pytest.raises(ConfigError) as err:
        built(["+optim.scheduler.epochs=1", "+optim.scheduler.steps_per_epoch=2"])
    assert str(err.value).startswith("optim.scheduler.epochs=1 x optim.scheduler.steps_per_epoch=2 = 2 steps "
                                     "is below the run's 3 training steps")
    assert built(["+optim.scheduler.total_steps=3"])["lr_scheduler"]["scheduler"].total_steps == 3


def test_a_plateau_scheduler_steps_on_the_epochs_that_validate(tmp_path):
    # pass 66, row 38 (major): before, trainer.check_val_every_n_epoch=2 stopped the run after epoch 0 with
    # Lightning's "ReduceLROnPlateau conditioned on metric val/loss which is not available", whose fix (a
    # `monitor` key) no config key sets. Lightning steps it when (epoch + 1) % frequency == 0: the epochs
    # that validate when (epoch + 1) % check_val_every_n_epoch == 0
    plateau = ["optim.scheduler._target_=torch.optim.lr_scheduler.ReduceLROnPlateau",
               "~optim.scheduler.gamma"]
    for every, frequency in ((2, 2), (1, None)):
        module = build_module(plateau, tmp_path / str(every))
        module._trainer = SimpleNamespace(estimated_stepping_batches=10, max_epochs=5,
                                          check_val_every_n_epoch=every)
        settings = module.configure_optimizers()["lr_scheduler"]
        assert settings["monitor"] == "val/loss" and settings.get("frequency") == frequency


CYCLIC = ["optim.scheduler._target_=torch.optim.lr_scheduler.CyclicLR", "~optim.scheduler.gamma",
          "+optim.scheduler.max_lr=0.1"]


def test_a_scheduler_is_rehearsed_over_the_run_before_training(tmp_path):
    # a twin of the scheduler steps as the run will (5 epochs): a learning rate that turns negative
    # mid-run, or one negative from the start, is named with its epoch before any training
    trainer = SimpleNamespace(estimated_stepping_batches=10, max_epochs=5)

    def built(overrides: list[str], name: str) -> dict:
        module = build_module(overrides, tmp_path / name)
        module._trainer = trainer
        return module.configure_optimizers()

    cosine = ["optim.scheduler._target_=torch.optim.lr_scheduler.CosineAnnealingLR", "~optim.scheduler.gamma",
              "+optim.scheduler.T_max=5"]
    with pytest.raises(ConfigError) as err:
        built([*cosine, "+optim.scheduler.eta_min=-0.05"], "cosine")
    # lr 0.1 (optim=sgd): eta_min + (0.1 - eta_min) (1 + cos(pi 4 / 5)) / 2 = -0.0356763 in epoch 4
    assert str(err.value) == (
        "optim.scheduler (T_max=5, eta_min=-0.05) sets the learning rate to -0.0356763 in epoch 4 of the "
        "run's 5 (below 0: the optimiser would climb the loss). Fix: correct or remove the "
        "optim.scheduler.<argument> at fault; CosineAnnealingLR takes T_max, eta_min, last_epoch")
    assert built([*cosine, "+optim.scheduler.eta_min=0.0"], "fixed")["lr_scheduler"]["scheduler"].eta_min == 0
    with pytest.raises(ConfigError) as err:
        built([*CYCLIC, "+optim.scheduler.base_lr=-0.01"], "cyclic")
    assert str(err.value).startswith("optim.scheduler (max_lr=0.1, base_lr=-0.01) sets the learning rate to "
                                     "-0.01 in epoch 0 of the run's 5 (below 0")
    trainer.max_epochs = -1  # no bound in epochs: rehearsed REHEARSAL_STEPS far, and passes
    unbounded = built([*CYCLIC, "+optim.scheduler.base_lr=0.01"], "unbounded")
    assert unbounded["lr_scheduler"]["interval"] == "epoch"


def test_an_optimiser_or_scheduler_that_raises_as_it_is_built_is_one_line(tmp_path):
    # CyclicLR's step_size_up=0: before, torch's ZeroDivisionError was not among the refusals turned
    # into one line, and came as a traceback after the loggers had started
    assert optim_error([*CYCLIC, "+optim.scheduler.base_lr=0.01", "+optim.scheduler.step_size_up=0"],
                       tmp_path) == (
        "optim.scheduler (max_lr=0.1, base_lr=0.01, step_size_up=0) was refused by CyclicLR "
        "(ZeroDivisionError: float division by zero). Fix: correct or remove the optim.scheduler.<argument> "
        "at fault; CyclicLR takes base_lr, max_lr, step_size_up, step_size_down, mode, gamma, scale_fn, "
        "scale_mode, cycle_momentum, base_momentum, max_momentum, last_epoch")
    # torch's RuntimeError for two arguments that exclude each other: before, a traceback
    assert optim_error(["optim=adamw", "+optim.optimizer.fused=true", "+optim.optimizer.foreach=true"],
                       tmp_path / "fused") == (
        "optim.optimizer (lr=0.001, weight_decay=0.01, fused=true, foreach=true) was refused by AdamW "
        "(RuntimeError: `fused` and `foreach` cannot be `True` together). Fix: correct or remove the "
        "optim.optimizer.<argument> at fault; AdamW takes lr, betas, eps, weight_decay, amsgrad, maximize, "
        "foreach, capturable, differentiable, fused")


@pytest.mark.parametrize(("overrides", "message"), [
    # pass 25, row 6: before, AdamW's TypeError in configure_optimizers, after the loggers had started
    (["optim=adamw", "+optim.optimizer.momentum=0.9"],
     "optim.optimizer.momentum=0.9: torch.optim.AdamW has no momentum argument: its momentum terms are "
     "optim.optimizer.betas=[beta1,beta2]"),
    (["+optim.optimizer.nestrov=true"],
     "optim.optimizer.nestrov=true: SGD (torch.optim.SGD) has no argument nestrov; did you mean "
     "optim.optimizer.nesterov? Fix: remove it (leave +optim.optimizer.nestrov=true out) or correct its "
     "name; SGD takes lr, momentum, dampening, weight_decay, nesterov,"),
    # pass 74, row 56: a key this command line adds is left out, not removed with '~' (before,
    # "~optim.scheduler.verbose", which Hydra refused in turn: the files have no such key)
    (["+optim.scheduler.verbose=true"],
     "optim.scheduler.verbose=true: ExponentialLR (torch.optim.lr_scheduler.ExponentialLR) has no argument "
     "verbose. Fix: remove it (leave +optim.scheduler.verbose=true out) or correct its name; ExponentialLR "
     "takes gamma, last_epoch"),
    # a preset's key that a command line sets: '~' in place of the setting
    (["optim.optimizer._target_=torch.optim.Adagrad", "optim.optimizer.momentum=0.5"],
     "optim.optimizer.momentum=0.5: Adagrad (torch.optim.Adagrad) has no argument momentum. Fix: remove it "
     "(~optim.optimizer.momentum in place of optim.optimizer.momentum=0.5) or correct its name;"),
    (["+optim.scheduler.gama=0.5"],
     "optim.scheduler.gama=0.5: ExponentialLR (torch.optim.lr_scheduler.ExponentialLR) has no argument "
     "gama; did you mean optim.scheduler.gamma?"),
    # pass 55, row 8: another optimiser; before, the preset's keys it lacks named one a run
    (["optim.optimizer._target_=torch.optim.Rprop"],
     "optim.optimizer: Rprop (torch.optim.Rprop) has no arguments momentum, weight_decay (the preset's). "
     "Fix: remove them: '~optim.optimizer.momentum' '~optim.optimizer.weight_decay'; Rprop takes lr, etas,"),
])
def test_an_argument_the_target_does_not_take_is_refused_when_the_module_is_built(overrides, message,
                                                                                   tmp_path):
    with pytest.raises(Exception) as err:
        build_module(overrides, tmp_path)  # the module's __init__: before any logger starts
    user = user_error(err.value)  # what train.py prints, out of Hydra's InstantiationException
    assert isinstance(user, ConfigError) and str(user).startswith(message), repr(err.value)


@pytest.mark.parametrize(("overrides", "message", "fix"), [
    # pass 26, row 64: before, "optim.scheduler (gamma=0.6) was refused by StepLR (TypeError:
    # StepLR.__init__() missing 1 required positional argument: 'step_size'). Fix: correct or remove the
    # optim.scheduler.<argument> at fault" when the fit set up the optimiser, after W&B had started
    (["optim.scheduler._target_=torch.optim.lr_scheduler.StepLR"],
     "optim.scheduler._target_=torch.optim.lr_scheduler.StepLR needs step_size, which optim.scheduler does "
     "not give. Fix: add it: +optim.scheduler.step_size=<epochs> (StepLR takes step_size, gamma, last_epoch)",
     ["+optim.scheduler.step_size=2"]),
    (["optim.scheduler._target_=torch.optim.lr_scheduler.StepLR", "optim.scheduler_interval=step"],
     "optim.scheduler._target_=torch.optim.lr_scheduler.StepLR needs step_size, which optim.scheduler does "
     "not give. Fix: add it: +optim.scheduler.step_size=<steps> (StepLR takes step_size, gamma, last_epoch)",
     ["+optim.scheduler.step_size=200"]),
    (["optim=sgd_step", "~optim.scheduler.milestones"],
     "optim.scheduler._target_=torch.optim.lr_scheduler.MultiStepLR needs milestones, which optim.scheduler "
     "does not give. Fix: add it: +optim.scheduler.milestones=[<epoch>,<epoch>] (MultiStepLR takes "
     "milestones, gamma, last_epoch)", ["+optim.scheduler.milestones=[2,4]"]),
    (["optim.scheduler._target_=torch.optim.lr_scheduler.CyclicLR", "~optim.scheduler.gamma"],
     "optim.scheduler._target_=torch.optim.lr_scheduler.CyclicLR needs base_lr and max_lr, which "
     "optim.scheduler does not give. Fix: add them: +optim.scheduler.base_lr=<value> "
     "+optim.scheduler.max_lr=<value> (CyclicLR takes base_lr, max_lr, step_size_up,",
     ["+optim.scheduler.base_lr=0.01", "+optim.scheduler.max_lr=0.1"]),
])
def test_a_required_argument_not_given_is_named_with_the_plus_that_adds_it(overrides, message, fix, tmp_path):
    with pytest.raises(Exception) as err:
        build_module(overrides, tmp_path)  # the module's __init__: before any logger starts
    user = user_error(err.value)
    assert isinstance(user, ConfigError) and str(user).startswith(message), repr(err.value)
    build_module(overrides + fix, tmp_path).configure_optimizers()  # the fix the message gives builds


def test_list_arguments_reach_torch_as_plain_values_and_the_presets_build(tmp_path):
    module = build_module(["optim=adamw", "+optim.optimizer.betas=[0.8,0.99]"], tmp_path)
    built = module.configure_optimizers()
    assert built["optimizer"].param_groups[0]["betas"] == (0.8, 0.99)  # a tuple, as torch's default
    assert type(built["optimizer"].param_groups[0]["betas"]) is tuple
    for preset, optimizer, scheduler in (("adamw", torch.optim.AdamW, "CosineAnnealingLR"),
                                         ("sgd", torch.optim.SGD, "ExponentialLR"),
                                         ("sgd_step", torch.optim.SGD, "MultiStepLR")):
        built = build_module([f"optim={preset}"], tmp_path).configure_optimizers()
        assert type(built["optimizer"]) is optimizer
        assert type(built["lr_scheduler"]["scheduler"]).__name__ == scheduler
        assert built["lr_scheduler"]["name"] == "train/lr"
    assert built["lr_scheduler"]["scheduler"].milestones == {100: 1, 150: 1}
    assert built["optimizer"].param_groups[0]["weight_decay"] == 5.0e-4


def test_a_probe_plot_with_an_unexpanded_tilde_is_refused(tmp_path, capsys, monkeypatch):
    # pass 35, row 31: before, rc 0, "plot: ~/probe_t.png", and the plot in <cwd>/~/probe_t.png
    monkeypatch.chdir(tmp_path)
    line = probe_error(["--plot=~/probe_t.png"], capsys)
    assert line == (f"python -m highwaylab.probe: error: --plot ~/probe_t.png: ~ is not expanded here "
                    f"(a shell expands it only at the start of a word, not after --plot= or in quotes), "
                    f"so it would be written into a folder named '~' in {tmp_path}. Fix: --plot "
                    f"{Path('~/probe_t.png').expanduser()}")
    assert not (tmp_path / "~").exists()


def test_a_probe_whose_gradients_all_vanish_prints_its_table_and_says_why_no_plot(tmp_path, capsys):
    # pass 35, row 40: before, the table of zeros, then a traceback (ValueError: "Gradient norm w.r.t. each
    # layer's input at initialisation": no value to draw) and exit status 1
    plot = tmp_path / "p.png"
    probe_main(["--activation", "hardshrink", "--scale", "0.01", "--depth", "10", "--width", "16",
                "--plot", str(plot)])
    out = capsys.readouterr().out
    assert "| hardshrink, plain, weights x0.01 | 0 | 0 | 0 | 0 |" in out
    assert out.rstrip().endswith(f"plot: not drawn: every gradient norm above is 0 (the gradient vanished "
                                 f"in every layer), which a log scale cannot show; {plot} was not written")
    assert not plot.exists()


def test_a_probe_whose_weights_overflow_says_so_and_exits_2(tmp_path, capsys):
    # pass 88, row 34: before, a table of nan, "every gradient norm above is 0 (the gradient vanished in
    # every layer)" and exit status 0
    plot = tmp_path / "p.png"
    with pytest.raises(SystemExit) as exit_:
        probe_main(["--activation", "tanh", "--scale", "1e308", "--depth", "10", "--width", "16",
                    "--plot", str(plot)])
    captured = capsys.readouterr()
    assert exit_.value.code == 2
    assert "| tanh, plain, weights x1e+308 | nan | nan | nan | nan |" in captured.out
    assert captured.err == (
        f"python -m highwaylab.probe: error: the gradient norms of tanh, plain, weights x1e+308 are not "
        f"finite (nan or inf): weights x1e+308 overflow float64 in the forward pass, so nothing can be read "
        f"from them, and {plot} was not written. Fix: a smaller --scale, e.g. --scale 2.0\n")
    assert not plot.exists()


def test_the_optuna_sweeper_with_nothing_to_search_is_one_line_before_the_sweeper(capsys):
    # pass 53, row 68: -m hydra/sweeper=optuna alone; before, once its direction was fixed, identical
    # trials and "Best parameters: {}", exit 0
    def check(overrides: list[str], sweep: str | None = None) -> tuple[int | None, str]:
        from omegaconf import open_dict, read_write

        GlobalHydra.instance().clear()
        with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
            cfg = compose("train", overrides=["hydra/sweeper=optuna", *overrides], return_hydra_config=True)
        if sweep is not None:  # as -m puts it among the task's overrides (compose takes no sweep)
            with read_write(cfg), open_dict(cfg):
                cfg.hydra.overrides.task.append(sweep)
        try:
            SweepCheck().on_multirun_start(cfg)
        except SystemExit as exit_:
            return exit_.code, capsys.readouterr().err
        return None, capsys.readouterr().err

    assert check(["hydra.sweeper.direction=maximize"]) == (
        1, "highwaylab: hydra/sweeper=optuna has nothing to search (no hydra.sweeper.params, and no sweep "
           "among the overrides), so every trial would train the same config. Fix: hparams_search=mnist_tpe "
           "(or mnist_random: the README's search space), or give what to search, e.g. "
           "'optim.optimizer.lr=tag(log, interval(0.01, 0.1))'\n")
    assert check(["hydra.sweeper.direction=maximize"], "optim.optimizer.lr=tag(log, interval(0.01, 0.1))") \
        == (None, "")  # the fix: a search of the learning rate
    assert check(["hydra.sweeper.direction=maximize"], "depth=3,4") == (None, "")


def test_a_list_of_seeds_beside_a_search_is_one_line_before_the_sweeper(capsys):
    # pass 53, row 75: hparams_search=mnist_random seed=0,1; before, the seed became a searched parameter
    # (the best parameters held 'seed': 1), without a word
    from omegaconf import open_dict, read_write

    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["hparams_search=mnist_random"], return_hydra_config=True)
    with read_write(cfg), open_dict(cfg):
        cfg.hydra.overrides.task.append("seed=0,1")  # as -m puts it there
    with pytest.raises(SystemExit) as exit_:
        SweepCheck().on_multirun_start(cfg)
    assert exit_.value.code == 1
    assert capsys.readouterr().err == (
        "highwaylab: seed=0,1: beside a search, a list of seeds makes the seed a searched parameter, so the "
        "search would tune on noise and pick a lucky seed. Fix: give one seed (the sampler's own is "
        "hydra.sweeper.sampler.seed); to repeat the best trial over seeds, run it afterwards with python "
        "train.py -m <its parameters> seed=0,1\n")


@pytest.mark.parametrize(("overrides", "message"), [
    # pass 54, row 50: before, "is not a metric of the run", which metrics.json holds
    (["optimized_metric=train/lr"],
     "optimized_metric=train/lr is the learning rate the run was given, not a result, so the search would "
     "rank the trials by their own setting; choose one of val/acc_best, val/acc, val/loss, train/loss, "
     "train/acc, test/acc, test/loss"),
    # pass 54, row 67: before, each trial trained in full, then failed ("was not logged")
    (["optimized_metric=test/acc", "test=false"],
     "optimized_metric=test/acc with test=false: no trial runs the test, so none would have a result. Fix: "
     "optimized_metric=val/acc_best (or leave test=false out)"),
])
def test_an_objective_no_trial_can_give_is_one_line_before_the_sweeper(overrides, message, capsys):
    assert sweep_check(overrides, capsys) == (1, f"highwaylab: {message}\n")


def test_a_basic_sweeper_batch_size_below_one_is_one_line_and_no_sweep_folder(tmp_path):
    # breaking pass 60, row 29: before, Hydra's BasicSweeper asserted it: a traceback ending in a bare
    # AssertionError, and an empty sweep folder left behind
    import subprocess
    import sys

    from .conftest import subprocess_env

    sweep = tmp_path / "sweep"
    proc = subprocess.run([sys.executable, "train.py", "-m", "depth=3", "seed=0,1",
                           "hydra.sweeper.max_batch_size=0", f"hydra.sweep.dir={sweep}"], capture_output=True,
                          text=True, cwd=ROOT, env=subprocess_env(), timeout=300)
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1] == (
        "highwaylab: hydra.sweeper.max_batch_size=0 must be an integer >= 1 (the jobs the basic sweeper "
        "hands the launcher at a time), or null (all at once), e.g. hydra.sweeper.max_batch_size=2")
    assert "Traceback" not in proc.stderr and not sweep.exists()


def test_a_sampler_target_that_does_not_take_the_searchs_settings_is_one_line(capsys):
    # breaking pass 60, row 30: before, Hydra's raw block: "Error in call to target ... CmaEsSampler ...
    # unexpected keyword argument 'consider_prior'", after the sweep folder was made
    code, err = sweep_check(["hydra.sweeper.sampler._target_=optuna.samplers.CmaEsSampler"], capsys)
    assert code == 1 and err.startswith(
        "highwaylab: hydra.sweeper.sampler._target_=optuna.samplers.CmaEsSampler does not take "
        "hydra.sweeper.sampler.consider_prior, hydra.sweeper.sampler.prior_weight, "), err
    assert err.endswith("which the sampler of hparams_search=mnist_tpe holds (a sampler's settings cannot "
                        "be removed on the command line). Fix: leave hydra.sweeper.sampler._target_ out, or "
                        "use the search made for a sampler (hparams_search=mnist_tpe: tpe; mnist_random: "
                        "random)\n")
    assert sweep_check(["hydra.sweeper.sampler._target_=optuna.samplers.TPESampler"], capsys) == (None, "")


def test_a_choice_value_a_run_refuses_is_named_before_the_search_starts(tmp_path):
    # breaking pass 61, row 24: before, each trial that drew PReLU failed after the study had started, and
    # Optuna added "Return value must be float-castable. Got 'None'."
    import subprocess
    import sys

    from .conftest import subprocess_env

    def search(choice: str) -> subprocess.CompletedProcess:
        tiny = ["depth=3", "trainer.max_epochs=1", "trainer.limit_train_batches=2", "callbacks=minimal",
                "trainer.limit_val_batches=1", "trainer.limit_test_batches=1", "logger=none"]
        return subprocess.run([sys.executable, "train.py", "hparams_search=mnist_random", *tiny,
                               "hydra.sweeper.n_trials=1", f"model.activation={choice}",
                               f"hydra.sweep.dir={tmp_path / choice[7:11]}"], capture_output=True, text=True,
                              cwd=ROOT, env=subprocess_env(), timeout=600)

    refused = search("choice(relu,PReLU)")
    line = refused.stderr.strip().splitlines()[-1]
    assert refused.returncode == 1 and line.startswith(
        "highwaylab: model.activation=choice(relu,PReLU): PReLU, one of its choices, fails the run's "
        "checks, so every trial that draws it would fail: model.activation='PReLU': that torch.nn module has "
        "learnable weights, so it cannot be every layer's activation."), line
    assert line.endswith("(e.g. model.activation=tanh). Fix: leave PReLU out of the choice()")
    assert not (tmp_path / "relu").exists()  # no study, no trial
    assert search("choice(relu,tanh)").returncode == 0  # the fix


def test_an_interval_or_a_group_choice_a_run_refuses_is_named_before_the_search_starts(tmp_path):
    # pass 66, row 05 (major): before, every trial failed on its drawn depth=3.87..., and the search's fix
    # ("run the search again") in the same folder ran nothing; row 06 (major): optim=choice(sgd,adamw)
    # stopped the search at Hydra's "Could not override 'optim.optimizer.momentum'" with a wrong fix
    import subprocess
    import sys

    from .conftest import subprocess_env

    def search(given: str, name: str) -> subprocess.CompletedProcess:
        tiny = ["trainer.max_epochs=1", "trainer.limit_train_batches=2", "callbacks=minimal",
                "trainer.limit_val_batches=1", "trainer.limit_test_batches=1", "logger=none"]
        return subprocess.run([sys.executable, "train.py", "hparams_search=mnist_random", *tiny,
                               "hydra.sweeper.n_trials=1", given, f"hydra.sweep.dir={tmp_path / name}"],
                              capture_output=True, text=True, cwd=ROOT, env=subprocess_env(), timeout=600)

    def refusal(given: str, name: str) -> str:
        proc = search(given, name)
        assert proc.returncode == 1 and not (tmp_path / name).exists(), proc.stderr[-3000:]  # no study
        return proc.stderr.strip().splitlines()[-1]

    assert refusal("depth=interval(3,5)", "real") == (
        "highwaylab: depth=interval(3,5) draws real numbers (such as depth=3.74), and the run refuses "
        "them: depth=3.74 is invalid: it must be a positive integer (the stem plus depth - 1 layers; e.g. "
        "depth=10). Fix: 'depth=int(interval(3,5))', the whole numbers 3 .. 5")
    assert refusal("depth=interval(0.2,0.9)", "below").startswith(
        "highwaylab: depth=interval(0.2,0.9): depth=0.2, a value it draws, fails the run's checks, so every "
        "trial that draws it would fail: depth=0.2 is invalid")
    assert refusal("optim=choice(sgd,adamw)", "group") == (
        "highwaylab: hparams_search=mnist_random searches optim.optimizer.momentum, which optim=adamw (one "
        "of the optim options it draws, sgd,adamw) does not have. Fix: draw only the optim options that have "
        "it (here: sgd), or search without it: hydra.sweeper.params=null and the entries to search as "
        "overrides")
    assert search("depth=int(interval(3,4))", "fixed").returncode == 0  # the fix


@pytest.mark.parametrize("name", ["''", "' '"])
def test_an_empty_study_name_is_refused_before_the_search(name, capsys):
    # breaking pass 62, row 51 (major): before, continuing a search of study_name='' re-ran trial 0 into
    # job 0's finished folder, replacing its metrics.json and checkpoints
    shown = repr(name.strip("'"))
    assert sweep_check([f"hydra.sweeper.study_name={name}"], capsys) == (1, (
        f"highwaylab: hydra.sweeper.study_name={shown} is empty: a search continues its study in optuna.db "
        f"by the study's name, and its trials' job folders by that study's trials. Fix: leave it out (by "
        f"default the search's name, mnist_tpe), or give a name\n"))
    assert sweep_check([], capsys) == (None, "")


def test_a_search_trial_stopped_before_training_is_not_told_to_run_alone(tmp_path):
    # pass 67, row 20: SIGALRM in a trial before its training; before, "run this job again into its
    # sweep: ... python train.py ... hparams_search=mnist_random ... hydra.run.dir=<job>", which is refused
    # (hparams_search= makes it a multirun), and whose result would never reach the study
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import open_dict

    from highwaylab.utils.interrupt import _start_again

    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        cfg = compose("train", overrides=["hparams_search=mnist_random"], return_hydra_config=True)
    job = tmp_path / "2_mnist-highway-d3-relu-sgd-s0"
    job.mkdir()
    with open_dict(cfg):
        cfg.hydra.runtime.output_dir = str(job)
    HydraConfig.instance().set_config(cfg)
    try:
        assert _start_again() == f"its folder {job} holds only this start's record and log"
    finally:  # the search's Hydra config must not reach later tests' messages (a later SIGHUP test of
        HydraConfig.instance().cfg = None  # tests/test_pass5.py read it, under -m "not slow")
