"""``train(cfg)``: build data, model, callbacks, loggers and trainer from the config; fit; test.

Called by the thin ``@hydra.main`` entry point ``train.py`` at the project root.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m highwaylab.train: before the imports of torch and Lightning
    from highwaylab.cli import not_a_command

    not_a_command("highwaylab.train")

import datetime
import importlib.util
import inspect
import json
import logging
import math
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import lightning as L
import torch
import yaml
from hydra.core.hydra_config import HydraConfig
from hydra.errors import InstantiationException
from hydra.types import RunMode
from hydra.utils import instantiate
from lightning.fabric.utilities.exceptions import MisconfigurationException
from lightning.pytorch.callbacks import LambdaCallback, LearningRateMonitor, ProgressBar
from lightning.pytorch.loggers import Logger, WandbLogger
from lightning.pytorch.utilities import rank_zero_only
from omegaconf import DictConfig, OmegaConf, open_dict
from omegaconf.errors import OmegaConfBaseException

from highwaylab.callbacks import (
    CarryStripeMonitor,
    EpochLogger,
    GateStatsMonitor,
    LayerGradNormMonitor,
    LesionMonitor,
    RunFolderMoved,
    StopOnSignal,
)
from highwaylab.callbacks.epoch_log import epoch_batches
from highwaylab.callbacks.latest_checkpoint import epoch_metrics
from highwaylab.callbacks.media import check_figures_folder
from highwaylab.config_checks import (
    as_given,
    nested_outputs_warning,
    replaced_tags_warning,
    validate,
    zero_rate_warning,
)
from highwaylab.errors import CheckpointMissingError, ConfigError, MetricsWriteError
from highwaylab.models.carry import check_carry
from highwaylab.trainer_checks import (
    check_devices_here,
    decayed_lr_warning,
    small_val_set_warning,
    undecayed_lr_warning,
)
from highwaylab.utils import full_key, instantiate_group, print_config_tree, task_wrapper, user_error
from highwaylab.utils.checkpoint_io import check_checkpoint_dirs, recorded_dirpaths, resumable
from highwaylab.utils.clock import startup_seconds
from highwaylab.utils.hydra_utils import did_you_mean
from highwaylab.utils.interrupt import started_training
from highwaylab.utils.loggers import (
    check_log_dirs,
    check_log_folders_free,
    check_wandb_save_dir,
    is_wandb,
    own_log_folders,
    reused_wandb_id,
    wandb_start_error,
    without_disabled_wandb,
)
from highwaylab.utils.numerics import configure_denormals
from highwaylab.utils.output_folder import check_checkpoint_fits, training_starting
from highwaylab.utils.quiet import quiet_known_notices, quiet_own_checkpoint_folder, quiet_srun_hint
from highwaylab.utils.ranks import further_rank
from highwaylab.utils.resume import (
    check_resume,
    continue_wandb_steps,
    latest_resolved,
    moved_from,
    run_metrics,
    run_of,
    saved_dirpath,
    wrote_wandb_run,
)
from highwaylab.utils.run_folder import remember as remember_run_folder
from highwaylab.utils.shell_args import override_arg
from highwaylab.utils.slurm import requeued_checkpoint, restart_count, slurm_job_id
from highwaylab.utils.sweep import in_multirun

log = logging.getLogger(__name__)


@task_wrapper
def train(cfg: DictConfig) -> dict[str, Any]:
    """Fit, test the best checkpoint, write ``metrics.json`` into the run directory.

    Returns:
        The contents of ``metrics.json``: the final ``train/*`` and ``val/*`` epoch metrics (not the
        per-batch ``train/loss_step``: its history is in the loggers), ``test/*`` of the best
        checkpoint, ``params`` (count), ``precision`` (what Lightning runs, e.g. ``bf16-mixed`` for
        ``16-mixed`` on a CPU), ``startup_s`` (process start to this job, in seconds: 0 for later
        jobs of a multirun), ``fit_time_s``, ``wall_time_s`` (start-up, data, loggers, fit and test),
        ``wandb_run_path`` and more.

    Raises:
        ConfigError: a bad config value (message names the key), e.g. ``depth=0``.
        DataError: a missing or corrupt data file.
    """
    job_start = time.monotonic()  # durations: on a clock that a step of the wall clock does not move
    startup = startup_seconds()  # the process's start-up (imports), for its first job
    validate(cfg)  # the torch-free checks, which train.py ran before importing torch: cheap
    output_dir = Path(cfg.paths.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    remember_run_folder(output_dir)  # moved or deleted mid-run: found before a write makes a new one
    # a dirpath that cannot take files, or holds another run's checkpoints: one line, before training
    check_checkpoint_dirs(cfg.get("callbacks"), output_dir, cfg.get("ckpt_path"))
    check_wandb_save_dir(cfg.get("logger"), output_dir)  # another run's folder: its W&B runs mixed in
    check_figures_folder(output_dir)  # a file there: before, found at the first figure, mid-run
    log.info(f"Run folder: {output_dir}")
    requeued = requeued_checkpoint(output_dir)  # a SLURM job rerun after preemption or its time limit
    if requeued is not None and not cfg.get("ckpt_path"):
        log.info(f"SLURM requeued job {slurm_job_id()} (restart {restart_count()}): resuming from {requeued}")
        with open_dict(cfg):
            cfg.ckpt_path = str(requeued)
    ckpt_path = cfg.get("ckpt_path")
    if rank_zero_only.rank == 0 and (reused := reused_wandb_id(cfg)) is not None:
        log.warning(reused)  # a new run with the W&B id of another run's offline run: merged by wandb sync
    if rank_zero_only.rank == 0 and (unknown := unknown_optimized_metric(cfg)) is not None:
        log.warning(unknown)
    if rank_zero_only.rank == 0 and (decayed := decayed_lr_warning(cfg)) is not None:
        log.warning(decayed)  # the default gamma 0.6 over 30 epochs and more
    # sgd_step in a short run; val_size=1; tags= beside an experiment's own tags; outputs/outputs/
    for warning in (undecayed_lr_warning, small_val_set_warning, replaced_tags_warning,
                    nested_outputs_warning):
        if rank_zero_only.rank == 0 and (line := warning(cfg)) is not None:
            log.warning(line)
    checkpoint = read_checkpoint(ckpt_path) if ckpt_path else None  # read once, for both checks
    if checkpoint is not None:
        continue_wandb_run(cfg, checkpoint, ckpt_path)
        if rank_zero_only.rank == 0 and (behind := older_state(output_dir, checkpoint)) is not None:
            log.warning(behind)
    elif not in_multirun():
        join_sweep_group(cfg, output_dir)  # a sweep's failed job run again on its own, into its folder
    datamodule, module, loggers, trainer = build(cfg)
    if checkpoint is not None and own_checkpoint(ckpt_path, output_dir):
        module.earlier_logger_versions = dict(checkpoint.get("logger_versions") or {})  # its own run's
        module.earlier_wandb_group = checkpoint.get("wandb_group")
    trainer.callbacks.append(RunFolderMoved())  # a moved run keeps its best and top-k checkpoints
    if cfg.get("test"):  # a fraction of the test set below one batch: refused before training, not after it
        trainer.callbacks.append(LambdaCallback(on_fit_start=lambda tr, _: check_test_limit(tr, datamodule)))
    trainer.callbacks.append(LambdaCallback(  # validation counted across epochs that never comes
        on_train_start=lambda tr, _: check_val_interval_across_epochs(tr)))
    if checkpoint is not None and rank_zero_only.rank == 0 and (
            unused := unused_callback_states(checkpoint, trainer)) is not None:
        log.info(unused)
    net = module.backbone
    if (limit_warning := check_checkpoint_fits(module)) is not None and rank_zero_only.rank == 0:
        log.warning(limit_warning)  # a checkpoint too big for ulimit -f: refused above, before training
    record_values_used(cfg, net, trainer, datamodule)  # before the config is written and logged
    warn_unused_size(cfg, net)
    resolved = output_dir / "config_resolved.yaml"
    if checkpoint is not None and rank_zero_only.rank == 0:
        for change in (precision_change, accumulation_change, train_set_change, val_set_change,
                       dropped_loggers):
            if (changed := change(cfg, output_dir, checkpoint)) is not None:
                log.warning(changed)
    if ckpt_path and resolved.exists():  # resumed in the run's own folder: keep the original record
        resolved = output_dir / f"config_resolved.resumed_{resume_stamp()}.yaml"
    if rank_zero_only.rank == 0:  # once per run, not once per DDP process
        print_config_tree(cfg, save_to=resolved, show=not in_multirun())  # a sweep: one line per job
        if in_multirun():
            log.info(f"Config: {resolved}")
    if checkpoint is not None:
        check_checkpoint(checkpoint, ckpt_path, module.state_dict())
        check_resume(cfg, ckpt_path, checkpoint)  # another data set or optimiser, or a finished run

    if rank_zero_only.rank == 0 and (carry_warning := check_carry(net)) is not None:
        log.warning(carry_warning)  # a highway net whose carry path starts closed [TVDN sec. 3]
    if rank_zero_only.rank == 0 and (zero_rate := zero_rate_warning(cfg)) is not None:
        log.warning(zero_rate)  # optim.optimizer.lr=0: nothing trains
    params = sum(p.numel() for p in net.parameters())
    log.info(f"Backbone: {cfg.model.block}, depth {net.depth}, width {net.width}, {params:,} parameters")
    analysis = (GateStatsMonitor, CarryStripeMonitor, LayerGradNormMonitor, LesionMonitor)
    analysed = [cb for cb in trainer.callbacks if isinstance(cb, analysis)]
    if analysed and not any(isinstance(cb, LesionMonitor) for cb in analysed):  # not for debug=fast
        log.info("Lesioning is off (it costs examples x depth^2 / 2 layer evaluations after fitting): "
                 "callbacks=analysis adds it [TVDN Figure 4].")
    # the resolved config at the top level (W&B: config.model.width, as lightning-hydra-template), and
    # the parameter count
    hparams = {**OmegaConf.to_container(cfg, resolve=True), "params": params}
    for logger in loggers:
        try:
            logger.log_hyperparams(hparams)  # the first use of a W&B logger starts its run
        except Exception as err:
            if "is in use" in str(err):  # wandb-core's message: the resumed run is held elsewhere
                raise ConfigError(
                    f"logger.wandb: {err}: the W&B run is still held by the process that was "
                    "interrupted (its wandb-core helper). Wait until that process has exited, "
                    "or kill it, then resume again.") from err
            online = isinstance(logger, WandbLogger) and not logger._offline  # offline: WANDB_MODE=dryrun
            mode = next((n.get("mode") for n in (cfg.get("logger") or {}).values() if is_wandb(n)), None)
            if (start_error := wandb_start_error(err, online, mode)) is not None:
                raise start_error from err
            raise
    # _step after the earlier segments of the W&B run the checkpoint records (a copy gets a new run)
    versions = (checkpoint or {}).get("logger_versions") or {}
    resumed_step = checkpoint.get("global_step") if checkpoint is not None else None
    continue_wandb_steps(loggers, resumed_id=versions.get("WandbLogger"), resumed_step=resumed_step,
                         every=trainer.log_every_n_steps)
    del checkpoint  # its weights and optimiser state: Lightning reads the file itself

    fit_start = time.monotonic()
    try:
        trainer.fit(module, datamodule=datamodule, ckpt_path=ckpt_path)
    except BaseException as err:
        if started_training(trainer):  # a refusal once a training step started keeps the run's folder
            training_starting()
        if isinstance(err, ValueError) and (error := val_check_error(trainer)) is not None:
            raise error from err
        if (error := limit_error(err)) is not None:
            raise error from None
        raise
    training_starting()  # the fit ended: the run's folder is kept, whatever comes next
    # epoch-level values only: a per-batch key (train/loss_step) holds the last batch's value here,
    # which the loggers, fed every trainer.log_every_n_steps, may never have seen
    fit_metrics = epoch_metrics(trainer)
    kept = float(module.val_acc_best.max_value)  # restored from the checkpoint: a resume that trained
    if "val/acc_best" not in fit_metrics and math.isfinite(kept):  # without validating keeps its best
        fit_metrics["val/acc_best"] = kept  # (pass 48, rows 26 and 45: before, dropped, a sweep's NaN)
    fit_seconds = time.monotonic() - fit_start
    best = trainer.checkpoint_callback.best_model_path if trainer.checkpoint_callback else ""
    why = ""
    trained_here = resumed_step is not None and trainer.global_step > resumed_step
    if best and trained_here and module.val_examples is None:
        # a resume that trained without validating (trainer.limit_val_batches=0): its best is of an
        # epoch before the resume; as a run without validation, it tests (and records) its final weights
        why = (f" (this resume trained from step {resumed_step} to {trainer.global_step} without a "
               f"validation, so its best checkpoint, {Path(best).name}, is of an epoch before them)")
        best = ""
    elif not best and module.val_examples is None:  # pass 36, row 44: before, Lightning's misleading
        why = " (training stopped before its first validation, so no best checkpoint was chosen)"  # HINT
    if resumed_step is not None and not trained_here and module.val_examples is None:
        module.val_examples = module.restored_val_examples  # only tested: the checkpoint's validation
    test_metrics: dict[str, float] = {}
    if cfg.get("test"):
        check_best_checkpoint(best, trainer)  # deleted during the run: one line, not Lightning's traceback
        log.info(f"Testing {'checkpoint ' + best if best else 'the final weights'}{why}")
        # on a terminal, Lightning's table of the test metrics; in a log file (> run.log) the Metrics: line
        try:
            trainer.test(module, datamodule=datamodule, ckpt_path=best or None, verbose=sys.stdout.isatty())
        except MisconfigurationException as err:
            raise limit_error(err) or err from None
        test_metrics = _floats(trainer.callback_metrics)
        note_partial_sets(module, datamodule, trainer)
    if best and not Path(best).is_file() and trainer.is_global_zero:  # test=false: never read (pass 40,
        log.warning(f"highwaylab: the best checkpoint {best} is gone (deleted or moved?), so metrics.json "
                    f"records best_ckpt: null")  # row 47: before, metrics.json named the deleted file)
        best = ""
    wandb_logger = next((lg for lg in loggers if isinstance(lg, WandbLogger)), None)
    last_batches, per_epoch = epoch_batches(trainer)
    metrics = {
        **{k: v for k, v in fit_metrics.items() if k.startswith(("train/", "val/"))},
        **{k: v for k, v in test_metrics.items() if k.startswith("test/")},
        "params": params,
        "width": net.width,
        "depth": net.depth,
        "epochs": trainer.current_epoch,  # the last one possibly partial: last_epoch_batches says
        "last_epoch_batches": last_batches,  # of batches_per_epoch: fewer if stopped inside the epoch
        "batches_per_epoch": per_epoch,
        "global_step": trainer.global_step,
        "precision": str(trainer.precision),
        # a run continued from a checkpoint (resume=, ckpt_path=): the step it started from; the
        # times below are this process's, not the earlier ones'
        "resumed_from_step": resumed_step,
        "startup_s": round(startup, 3),
        "fit_time_s": round(fit_seconds, 3),
        "wall_time_s": round(startup + time.monotonic() - job_start, 3),
        "val_examples": module.val_examples,  # over all processes; fewer with trainer.limit_val_batches
        "test_examples": module.test_examples,
        "best_ckpt": best or None,  # null: no best checkpoint was written, the final weights were tested
        "wandb_run_path": wandb_logger.experiment.path if wandb_logger else None,
        "wandb_dir": wandb_run_folder(wandb_logger),
    }
    if trainer.is_global_zero:
        write_metrics(output_dir, metrics)
        shown = {k: float(f"{v:.4g}") if isinstance(v, float) else v for k, v in metrics.items()}
        log.info(f"Metrics: {json.dumps(shown)} (to 4 significant digits; in full in metrics.json)")
    return metrics


def wandb_run_folder(logger: WandbLogger | None) -> str | None:
    """The W&B run's folder (``wandb/offline-run-*``), which ``wandb sync`` takes, not its ``files/``
    (new-user pass 48, finding 3); ``None`` without a W&B logger, and on the ranks other than zero,
    whose ``experiment`` is Lightning's placeholder (its ``dir`` is no path: pass 50, row 96)."""
    files = getattr(logger.experiment, "dir", None) if logger is not None else None
    return str(Path(files).parent) if isinstance(files, str) else None


def write_metrics(output_dir: Path, metrics: dict) -> None:
    """Write ``metrics`` to ``<output_dir>/metrics.json``, through ``metrics.json.tmp`` renamed over
    it, so that a reader never sees half a file.

    Raises:
        MetricsWriteError: the file could not be written: one line naming it, the cause and the fix,
            after which ``resume=`` tests the run again and writes it (before: Hydra's traceback of the
            PermissionError of a protected metrics.json, pass 32, row 9); the temporary file is removed.
    """
    import contextlib
    import errno

    path, tmp = output_dir / "metrics.json", output_dir / "metrics.json.tmp"
    try:
        tmp.write_text(json.dumps(metrics, indent=2))
        tmp.replace(path)
    except OSError as err:
        named = [Path(n) for n in (err.filename, err.filename2) if n]  # the file(s) of the failed call
        blocking = next((n for n in named if n.is_dir() or (n != tmp and n.exists())), None)
        with contextlib.suppress(OSError):
            if tmp.is_file():
                tmp.unlink()
        if err.errno in (errno.ENOSPC, errno.EDQUOT):
            fix = f"free space on the disk of {output_dir}"
        elif blocking is not None and blocking.is_dir():
            fix = f"move the folder {blocking} away (a file goes there)"
        elif blocking is not None:
            fix = (f"move {blocking} away, or make it writable (a protected file: lsattr shows an immutable "
                   f"one, chattr -i clears it)")
        else:
            fix = f"make {output_dir} writable"
        tested = f"trained and tested (test/acc {metrics['test/acc']:.4g})" if "test/acc" in metrics \
            else "trained"
        raise MetricsWriteError(
            f"could not write {path} ({err.strerror or err}): the run {tested}, and its checkpoints are "
            f"saved. Fix: {fix}, then python train.py {override_arg('resume', output_dir)} tests it again "
            f"and writes the file") from err


class Built(NamedTuple):
    """What :func:`build` makes from a config."""

    datamodule: L.LightningDataModule
    module: L.LightningModule  # its backbone is module.backbone
    loggers: list[Logger]
    trainer: L.Trainer


def build(cfg: DictConfig) -> Built:
    """Seed, then instantiate the data, backbone, module, callbacks, loggers and trainer, in order
    (the config has passed :func:`highwaylab.config_checks.validate`).

    Raises:
        ConfigError: a component rejects its config.
    """
    # before the first parallel operation: PyTorch's CPU worker threads start with this thread's mode
    if not configure_denormals(cfg.get("flush_denormal", True) is True) and cfg.get("flush_denormal", True):
        log.info("flush_denormal: this CPU cannot flush subnormal numbers; left as is")
    quiet_known_notices()  # two notices no configuration avoids; Lightning's other notices once
    if cfg.get("ckpt_path"):  # resumed in its own folder: that its checkpoints/ is not empty is no news
        quiet_own_checkpoint_folder(os.path.realpath(Path(cfg.paths.output_dir) / "checkpoints"))
        own = Path(cfg.paths.output_dir).resolve()
        if own_checkpoint(str(cfg.ckpt_path), own):  # and its checkpoint folders outside it (pass 76, row 79)
            for folder in recorded_dirpaths(own).values():
                quiet_own_checkpoint_folder(os.path.realpath(folder))
        else:  # a new run from another run's weights:
            # Lightning's "The dirpath has changed ... won't be reloaded" reads like a fault (pass 32,
            # note on part 1, row 22); it is this: the run ranks its own checkpoints afresh
            warnings.filterwarnings("ignore", message=r"The dirpath has changed from ")
            log.info(f"ckpt_path={cfg.ckpt_path} is of another run folder: this run goes on from its state, "
                     f"and ranks its own best checkpoints afresh, in {own / 'checkpoints'}")
    L.seed_everything(cfg.seed, workers=True)

    log.info(f"Instantiating datamodule <{cfg.data._target_}>")
    datamodule = instantiate_checked("data", cfg.data)
    log.info(f"Instantiating backbone <{cfg.model._target_}>")
    net = instantiate_checked("model", cfg.model, input_shape=datamodule.input_shape,
                              num_classes=datamodule.num_classes)
    log.info(f"Instantiating module <{cfg.module._target_}>")
    module = instantiate_checked("module", cfg.module, net=net, num_classes=datamodule.num_classes,
                                 input_shape=datamodule.input_shape)  # example input: FLOPs in the summary
    module.run_seed = cfg.get("seed")  # kept in its checkpoints: the run that wrote them
    callbacks = instantiate_group(cfg.get("callbacks"),  # a class's refusal names its key (pass 59, row 25b)
                                  lambda name, node: instantiate_checked(f"callbacks.{name}", node))
    # the epoch line is an epoch's last word: after the other callbacks' epoch-end work, which it times
    callbacks.sort(key=lambda cb: isinstance(cb, EpochLogger))
    callbacks.append(StopOnSignal())  # SIGTERM/SIGINT: stop at a batch boundary, state saved
    check_devices_here(cfg.trainer, torch.cuda.device_count())  # before the loggers write anything
    for line in own_log_folders(cfg.get("logger"), cfg.paths.output_dir):  # a save_dir that runs share
        log.info(line)
    if not cfg.get("ckpt_path") and not further_rank() and not restart_count():  # a new run (not requeued)
        check_log_folders_free(cfg.get("logger"))
    # pass 71, row 32: a logger of one's own without save_dir; before, Hydra's "Error in call to target"
    loggers = instantiate_group(without_disabled_wandb(cfg.get("logger")),
                                lambda name, node: instantiate_checked(f"logger.{name}", node))
    check_log_dirs(loggers, cfg.get("logger"))  # a folder that cannot be written: one line, not a traceback
    if not loggers:  # logger=none (which leaves the monitor out), or WANDB_MODE=disabled: Lightning's
        # monitor refuses to run without a logger
        callbacks = [cb for cb in callbacks if not isinstance(cb, LearningRateMonitor)]
        # under debug=fast, "add logger=csv" recorded nothing: fast_dev_run runs without loggers (new-user
        # pass 50, finding 8)
        fix = ("trainer.fast_dev_run (debug=fast) runs one batch without loggers, so no logger would record "
               "it" if cfg.trainer.get("fast_dev_run") else "add logger=csv to record it")
        log.info(f"No logger: train/lr is not recorded (Lightning's LearningRateMonitor needs a logger), so "
                 f"metrics.json has no train/lr; {fix}")  # pass 35a, row 52
    log.info(f"Instantiating trainer <{cfg.trainer._target_}>")
    given: dict[str, Any] = {}  # in place of the config's values
    if not sys.stdout.isatty() or cfg.trainer.get("enable_progress_bar") is False:
        # a progress bar only on a terminal: in a log file it is noise (EpochLogger says how it goes)
        callbacks = [cb for cb in callbacks if not isinstance(cb, ProgressBar)]
        given["enable_progress_bar"] = False  # else Lightning adds its own bar
    if not sys.stdout.isatty():  # a log file: Lightning's plain summary table, not rich's box drawing
        from lightning.pytorch.callbacks import ModelSummary, RichModelSummary

        callbacks = [ModelSummary(max_depth=cb._max_depth) if isinstance(cb, RichModelSummary) else cb
                     for cb in callbacks]
    if not sys.stdout.isatty() and "COLUMNS" not in os.environ:
        import rich  # a file has no width: rich's 80 columns cut the model summary's names (FCBackb…)

        rich.reconfigure(width=160)
    devices, nodes = cfg.trainer.get("devices"), cfg.trainer.get("num_nodes") or 1
    quiet_srun_hint(devices * nodes if isinstance(devices, int) and isinstance(nodes, int) else 0)
    max_time = cfg.trainer.get("max_time")
    if OmegaConf.is_dict(max_time) and "_target_" not in max_time:  # 'trainer.max_time={minutes: 30}'
        # Lightning's Timer takes a dict, not an omegaconf mapping ("Missing key total_seconds")
        given["max_time"] = datetime.timedelta(**OmegaConf.to_container(max_time))
    try:
        trainer: L.Trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=loggers or False,
                                         **given)
    except InstantiationException as err:
        if not isinstance(err.__cause__, MisconfigurationException):
            error = config_error("trainer", err, cfg.trainer)
            if error is None:
                raise
            raise error from err
        if str(cfg.trainer.get("accelerator")) in ("gpu", "cuda") and not torch.cuda.is_available():
            raise ConfigError(f"trainer: {err.__cause__} Fix: on a machine without a GPU use trainer=cpu, "
                              "or trainer=ddp_cpu for 2 CPU processes.") from err
        raise ConfigError(f"{_named_setting(cfg.trainer, str(err.__cause__))}: {err.__cause__} Fix: correct "
                          f"or remove that setting (python train.py --cfg job shows the config)") from err
    quiet_srun_hint(1)  # said once, as the Trainer was built; fit would say it again
    environment = getattr(trainer.strategy, "cluster_environment", None)  # multi-process strategies
    if in_multirun() and trainer.world_size > 1 and not environment.creates_processes_externally:
        raise ConfigError(
            f"trainer: {trainer.world_size} processes in a local multirun: Lightning would start each "
            "rank by rerunning the whole sweep (SLURM and torchrun start the ranks themselves). "
            "Run DDP jobs one at a time (without -m), or sweep "
            "through a launcher that starts the ranks itself: hydra/launcher=slurm.")

    return Built(datamodule, module, loggers, trainer)


def _named_setting(trainer: DictConfig, message: str) -> str:
    """The ``trainer.<key>`` that Lightning's ``message`` speaks of: a key whose name (or its singular,
    ``plugin`` for ``plugins``) is a word of it; ``trainer`` if none is (breaking pass 45, row 53: before,
    "Fix: check the trainer.* values named above" for a message that named no key)."""
    words = set(re.findall(r"[a-z_]+", message.lower()))
    named = [str(key) for key in trainer if str(key) in words or str(key).removesuffix("s") in words]

    def value_named(key: str) -> bool:  # its value is quoted too: the one meant ("plugin foo")
        value = trainer.get(key)
        values = list(value) if OmegaConf.is_list(value) else [value]
        return any(str(v) not in ("", "None") and str(v) in message for v in values)

    named.sort(key=lambda key: not value_named(key))
    return f"trainer.{named[0]}" if named else "trainer"


def check_best_checkpoint(best: str, trainer: L.Trainer) -> None:
    """Raises CheckpointMissingError when the best checkpoint, which the test runs on, is gone (it was
    deleted or moved during the run, or after it: a resume to complete the run meets it too), or is
    not a whole checkpoint file (cut short: torch's zip archive has no central directory; breaking
    pass 30, row 35: torch's RuntimeError and Hydra's traceback)."""
    import zipfile

    if not best or (os.path.isfile(best) and zipfile.is_zipfile(best)):
        return
    run = HydraConfig.get().runtime.output_dir if HydraConfig.initialized() else None
    again = f"python train.py {override_arg('resume', run)} test=false" if run else "test=false"
    monitor = getattr(trainer.checkpoint_callback, "monitor", None)
    if os.path.isfile(best):
        raise CheckpointMissingError(
            f"the best checkpoint {best}{f' (by {monitor})' if monitor else ''} is damaged (not a whole "
            f"checkpoint file: cut short, or overwritten?), and the test runs on it; the training state is "
            f"safe in the latest checkpoint. Fix: put an intact copy of the file back and resume the run "
            f"(it then tests), or finish it without the test: {again}")
    raise CheckpointMissingError(
        f"the best checkpoint {best}{f' (by {monitor})' if monitor else ''} is gone (deleted or moved?), "
        f"and the test runs on it; the training state is safe in the latest checkpoint. Fix: put the file "
        f"back and resume the run (it then tests), or finish it without the test: {again}")


def note_partial_sets(module: Any, datamodule: Any, trainer: L.Trainer) -> None:
    """One log line when the last validation or the test counted fewer examples than its set holds
    (``trainer.limit_val_batches`` / ``limit_test_batches``, or ``trainer.fast_dev_run``, which
    ``debug=fast`` sets): ``val/*`` and ``test/*`` are then over a part of the set (before: nothing
    said so, and a sweep's table compared them as if whole)."""
    for stage, key in (("val", "limit_val_batches"), ("test", "limit_test_batches")):
        counted, data = getattr(module, f"{stage}_examples"), getattr(datamodule, f"data_{stage}", None)
        # trainer.overfit_batches sets the validation's limit too (pass 49, row 99: before, the line named
        # trainer.limit_val_batches)
        overfit = stage == "val" and getattr(trainer, "overfit_batches", 0)
        cause = ("trainer.fast_dev_run" if getattr(trainer, "fast_dev_run", False) else
                 "trainer.overfit_batches" if overfit else f"trainer.{key}")
        if counted is not None and data is not None and counted < len(data):
            log.info(f"{stage}/loss and {stage}/acc are over {counted:,} of the {len(data):,} {stage} "
                     f"examples ({cause}); metrics.json's {stage}_examples says so")


def precision_change(cfg: DictConfig, output_dir: Path, checkpoint: dict) -> str | None:
    """A warning when this resume trains at another ``trainer.precision`` (as Lightning chose it:
    :func:`record_values_used`) than the run's latest record (``config_resolved.yaml``, or its latest
    ``config_resolved.resumed_*.yaml``) in ``output_dir``: ``metrics.json`` and the W&B config hold one
    precision, this resume's. ``None`` without a record, or with the same precision.
    """
    before, latest = _latest_record(output_dir, "trainer.precision")
    now = cfg.trainer.get("precision")
    if before is None or now is None or str(before) == str(now):
        return None
    # pass 37, row 30: before, a resume at bf16-mixed of a 32-true run recorded bf16-mixed only
    steps = checkpoint.get("global_step", "?")
    return (f"highwaylab: trainer.precision={now}: the run trained up to step {steps} at {before} (its "
            f"{latest.name}) and continues at {now}; metrics.json and the W&B config give {now}, this "
            f"resume's. To keep one precision, resume with trainer.precision={before}")


def accumulation_change(cfg: DictConfig, output_dir: Path, checkpoint: dict) -> str | None:
    """A warning when this resume accumulates another number of batches per optimiser step
    (``trainer.accumulate_grad_batches``; Lightning's default 1 where no record gives it) than the
    run's latest record in ``output_dir``: from the checkpoint on, each step sees another number of
    examples, and the run takes another number of steps an epoch (pass 66, row 12: before, in
    silence; ``data.batch_size``, the other half of the effective batch, is refused on a resume).
    ``None`` without a record, or with the same number.
    """
    latest = latest_resolved(output_dir)
    if not latest.is_file():
        return None
    recorded, _ = _latest_record(output_dir, "trainer.accumulate_grad_batches")
    before, now = 1 if recorded is None else recorded, cfg.trainer.get("accumulate_grad_batches", 1)
    if now is None or str(before) == str(now):
        return None
    keep = ("resume without +trainer.accumulate_grad_batches" if recorded is None
            else f"resume with trainer.accumulate_grad_batches={before}")
    batch = OmegaConf.select(cfg, "data.batch_size", default=None)

    def examples(n: object) -> str:  # a step's examples, where the batch size and n are whole numbers
        return f" ({n * batch} examples a step)" if isinstance(batch, int) and isinstance(n, int) else ""

    steps = checkpoint.get("global_step", "?")
    return (f"highwaylab: trainer.accumulate_grad_batches={now}: the run trained up to step {steps} with "
            f"{before}{examples(before)} and continues with {now}{examples(now)}, so its steps an epoch "
            f"and its learning rate per example change from here. To keep the run's recipe, {keep}")


def unused_callback_states(checkpoint: dict, trainer: L.Trainer) -> str | None:
    """One line naming the callbacks whose state the checkpoint holds and this run has not (a run with
    ``callbacks=minimal`` from one with ``callbacks=default``): their state is left out, and the run
    goes on without them. Lightning's own warning for it ("callbacks used to create the checkpoint need
    to be provided ... Please add the following callbacks") is silenced: it asks for something this run
    does not need (breaking pass 43, row 26). ``None`` when every state has its callback."""
    states = checkpoint.get("callbacks")
    if not isinstance(states, dict):
        return None
    used = {cb.state_key for cb in trainer.callbacks}
    missing = sorted({str(k).split("{", 1)[0] for k in states if k not in used})  # ModelCheckpoint{..}
    if not missing:
        return None
    warnings.filterwarnings("ignore", message=r"Be aware that when using `ckpt_path`, callbacks used")
    return (f"the checkpoint holds the state of callbacks that this run does not use ({', '.join(missing)}): "
            f"it is left out, and the run goes on without them")


def val_set_change(cfg: DictConfig, output_dir: Path, checkpoint: dict) -> str | None:
    """A warning when this resume validates on another part of the validation set
    (``trainer.limit_val_batches``; null is the whole set, as 1.0) than the run's latest record in
    ``output_dir``: ``val/acc_best`` and the best checkpoint then compare ``val/acc`` over two sets
    (breaking pass 42, row 54: before, without a word, while ``data.split_seed``, which changes the set
    too, is refused). ``None`` without a record, or with the same limit."""
    return _limit_change(cfg, output_dir, checkpoint, "val", "validated", "its val/acc_best and best "
                         "checkpoint compare val/acc over two parts of the validation set from here")


def _limit_change(cfg: DictConfig, output_dir: Path, checkpoint: dict, stage: str, did: str,
                  meaning: str) -> str | None:
    """The warning of :func:`val_set_change` and :func:`train_set_change`: this resume's
    ``trainer.limit_<stage>_batches`` against the run's latest record (null and 1.0: the whole set)."""
    key = f"trainer.limit_{stage}_batches"
    before, latest = _latest_record(output_dir, key, missing="?")
    now = cfg.trainer.get(f"limit_{stage}_batches")
    if before == "?" or (1.0 if before is None else before) == (1.0 if now is None else now):
        return None
    shown = "null" if before is None else before
    step = checkpoint.get("global_step", "?")
    return (f"highwaylab: {key}={'null' if now is None else now}: the run {did} with {key}={shown} up to "
            f"step {step} (its {latest.name}), so {meaning}. To keep one, resume with {key}={shown}")


def dropped_loggers(cfg: DictConfig, output_dir: Path, checkpoint: dict) -> str | None:
    """A warning when this resume leaves out a logger other than W&B's (``continue_wandb_run`` names
    that one) that the run's latest record in ``output_dir`` logged with: its log stops at the
    checkpoint's step (breaking pass 46, row 68: before, a TensorBoard log stopped without a word).
    ``None`` without a record, or with every logger kept."""
    before, latest = _latest_record(output_dir, "logger", missing=None)
    now = cfg.get("logger") or {}
    if not OmegaConf.is_dict(before):
        return None
    gone = [str(name) for name in before if name != "wandb" and name not in now]
    if not gone:
        return None
    kept = [str(name) for name in now]
    again = f"logger=[{','.join([*kept, *gone])}]" if kept else f"logger={gone[0]}" if len(gone) == 1 \
        else f"logger=[{','.join(gone)}]"
    return (f"highwaylab: the run logged with logger.{', logger.'.join(gone)} up to step "
            f"{checkpoint.get('global_step', '?')} (its {latest.name}), and this resume has "
            f"{'logger=' + ','.join(kept) if kept else 'no logger'}: "
            f"{'that log gets' if len(gone) == 1 else 'those logs get'} none of the steps trained now. To "
            f"keep {'it' if len(gone) == 1 else 'them'}, resume with {again}")


def train_set_change(cfg: DictConfig, output_dir: Path, checkpoint: dict) -> str | None:
    """A warning when this resume trains on another number of batches per epoch
    (``trainer.limit_train_batches``; null is the whole set, as 1.0) than the run's latest record in
    ``output_dir``: its epochs from here have another size, while its first record (which the report
    files the run under) names the earlier one (breaking pass 46, row 55: before, without a word, after
    a refusal's fix had named the wrong value). ``None`` without a record, or with the same limit."""
    return _limit_change(cfg, output_dir, checkpoint, "train", "trained", "its epochs from here have "
                         "another number of batches (the report files the run under its own overrides)")


def _latest_record(output_dir: Path, key: str, missing: Any = None) -> tuple[Any, Path]:
    """The value of the dotted ``key`` in the run's latest record of the values it ran with in
    ``output_dir`` (its latest ``config_resolved.resumed_*.yaml``, else ``config_resolved.yaml``), and
    that file; ``missing`` without a readable record (a new run from another run's checkpoint, or a
    damaged record) or the key."""
    latest = latest_resolved(output_dir)
    try:
        return OmegaConf.select(OmegaConf.load(latest), key, default=missing), latest
    except (OSError, ValueError, yaml.YAMLError, OmegaConfBaseException):
        return missing, latest


def resume_stamp() -> str:
    """The ``<date>_<time>`` of this resumed process's records: that of Hydra's
    ``.hydra/resumed_<date>_<time>/`` (``${config_subdir:}``), so that ``config_resolved.resumed_*.yaml``
    beside it has the same (before: a second or more apart); the current time outside Hydra."""
    subdir = HydraConfig.get().output_subdir if HydraConfig.initialized() else None
    if subdir and "resumed_" in subdir:
        return subdir.rsplit("resumed_", 1)[1]
    return time.strftime("%Y-%m-%d_%H-%M-%S")


def record_values_used(cfg: DictConfig, net: torch.nn.Module, trainer: L.Trainer | None = None,
                       datamodule: L.LightningDataModule | None = None) -> None:
    """Write into ``cfg.model`` the width and gate bias that ``net`` was built with, and into
    ``cfg.trainer.precision`` the precision that ``trainer`` runs (Lightning runs ``16-mixed`` as
    ``bf16-mixed`` on a CPU), and into an empty ``logger.<wandb>.project`` the ``WANDB_PROJECT`` that
    Lightning files the W&B run under then, so that the recorded config (``config_resolved.yaml``, the
    loggers' hyperparameters) holds the values used.

    ``model.width`` becomes the width used; when ``model.match_params`` chose it (plain and residual:
    71 and 70 units against 50 highway blocks), ``match_params`` becomes ``null``, so that the
    recorded model config builds the same network again. The top-level ``width`` keeps the value
    asked for. ``model.gate_bias: auto`` becomes the number it resolved to (e.g. -4.595 at depth 100).
    Keys the model config does not have (conv models have no ``width``) are left alone. A conv net
    (``model.stages``) reads neither top-level ``depth`` nor ``width``: they become the net's own
    (its conv layers, its widest stage's channels), as ``metrics.json`` and the run's name give them.

    A data or model option that the config lacks (removed, e.g. ``~data.batch_size``) is recorded
    with the default that the data module's or backbone's constructor used (``batch_size: 128``).
    """
    with open_dict(cfg):
        for group, built in (("data", datamodule), ("model", net)):
            if built is not None:
                _record_defaults(cfg[group], type(built), group)
        if "width" in cfg.model and getattr(net, "width", None) is not None and cfg.model.width != net.width:
            cfg.model.width = net.width
            if cfg.model.get("match_params") is not None:
                cfg.model.match_params = None
        if "stages" in cfg.model:  # a conv net: not the unused depth: 100 and width: 50 of train.yaml
            for key in ("depth", "width"):
                if key in cfg and getattr(net, key, None) is not None:
                    cfg[key] = getattr(net, key)
        if "gate_bias" in cfg.model and getattr(net, "gate_bias", None) is not None:  # null, auto: the number
            cfg.model.gate_bias = float(net.gate_bias)
        for node in (cfg.get("logger") or {}).values():  # an empty W&B project: Lightning files the run
            if is_wandb(node) and not node.get("project") and os.environ.get("WANDB_PROJECT"):  # under W&B's
                node.project = os.environ["WANDB_PROJECT"]  # variable (pass 78, row 57: before, recorded '')
        if trainer is not None and "precision" in cfg.trainer and str(trainer.precision) != str(
                cfg.trainer.precision):
            log.info(f"trainer.precision={cfg.trainer.precision} runs as {trainer.precision} here "
                     f"(Lightning's choice for {type(trainer.accelerator).__name__}); recorded as such")
            cfg.trainer.precision = str(trainer.precision)


def _record_defaults(node: DictConfig, cls: type, group: str) -> None:
    """Add to ``node`` (``cfg.data``, ``cfg.model``) the default of every argument of ``cls`` that
    it lacks and that a config can hold (a number, string or boolean)."""
    added = []
    for name, param in inspect.signature(cls).parameters.items():
        default = param.default
        if name in node or default is param.empty or default is None or not isinstance(
                default, bool | int | float | str):  # None: unused or chosen by the class (gate_bias)
            continue
        node[name] = default
        added.append(f"{group}.{name}={default}")
    if added:
        log.info(f"Not in the config, recorded with the defaults used: {', '.join(added)}")


# the config keys that the module's arguments come from (conf/train.yaml interpolates them)
SET_BY = {"module.optimizer": "optim.optimizer", "module.scheduler": "optim.scheduler"}


def instantiate_checked(key: str, node: DictConfig, **kwargs: Any) -> Any:
    """``instantiate(node, **kwargs)``; a config fault that Hydra reports as a raw
    ``InstantiationException`` becomes a one-line :func:`config_error` naming the key."""
    try:
        return instantiate(node, **kwargs)
    except InstantiationException as err:
        error = config_error(key, err, node)
        if error is None:
            raise
        raise error from err


def _meant_class(detail: str) -> list[str]:
    """The classes of close name (``<module>.<Class>``) for a ``_target_`` whose module imports and
    lacks the class named (``highwaylab.callbacks.EpochLog``: pass 95, row 03); else ``[]``."""
    from highwaylab.utils.hydra_utils import closest_names

    target = re.search(r"Error loading '([\w.]+)'", detail)
    module, _, name = target[1].rpartition(".") if target else ("", "", "")
    try:
        found = importlib.import_module(module) if module else None
    except Exception:  # noqa: BLE001  the module itself does not import: no class to compare
        return []
    names = [n for n in {*dir(found), *getattr(found, "__all__", ())}  # __all__: a package's lazy names
             if not n.startswith("_")] if found is not None else []
    return [f"{module}.{n}" for n in closest_names(name, names)]


def config_error(key: str, err: InstantiationException, node: DictConfig | None = None) -> ConfigError | None:
    """``err`` as a one-line ConfigError naming the config key, when its cause is the config's fault: a
    ``_target_`` that cannot be imported (a typo), an argument the target does not take
    (``+trainer.foo=1``), or a value the constructor rejects (``+trainer.strategy=nope``; precision
    and accelerator are checked before torch, :mod:`highwaylab.utils.hardware`); ``None`` for a
    user error already typed (reported as it is) or a
    bug (raised with its traceback). With the config ``node`` that was instantiated, a key its
    ``_target_`` does not take is named, with the closest argument it does take."""
    cause = err.__cause__
    if user_error(err) is not None or not isinstance(cause, ImportError | TypeError | ValueError):
        return None
    where = full_key(err) or key
    where = SET_BY.get(where, where)
    detail = " ".join(str(cause).split())
    if isinstance(cause, ImportError) and "Error locating target" in str(err):
        group = where.split(".", 1)[0]
        # pass 69, row 30: module (and a callback or logger entry) has no presets to choose
        other = ("or choose a preset (python train.py --help lists them)" if group in
                 ("model", "data", "optim", "trainer") and "." not in where else
                 "or leave it out (module._target_ is highwaylab.module.ClassifierModule)"
                 if where == "module" else f"or remove the entry: ~{where}" if group in ("callbacks",
                                                                                        "logger")
                 else "or optim.scheduler=null for none" if where == "optim.scheduler" else "or leave it out")
        # pass 95, row 03: "leave it out" was read as ~callbacks.epoch_log._target_, refused in turn
        package = re.search(r"No module named '(\w+)", detail)
        importable = (" (a class of your own: its package must be importable, e.g. pip install -e <it>, or "
                      "on PYTHONPATH)" if package and importlib.util.find_spec(package[1]) is None else "")
        fix = (" or ".join(f"{where}._target_={c}" for c in meant) if (meant := _meant_class(detail)) else
               f"correct the class path{importable}")
        return ConfigError(f"{where}._target_ cannot be imported ({detail}). Fix: {fix}, {other}")
    if isinstance(cause, TypeError) and node is not None and (unknown := _unknown_argument(node, where)):
        return unknown
    missing = re.findall(r"'(\w+)'", detail) if "required positional argument" in detail else []
    if isinstance(cause, TypeError) and missing:  # pass 59, row 25b: EarlyStopping without its monitor
        example = {"monitor": f"val/acc +{where}.mode=max",  # the metric highwaylab's checkpoints use
                   "save_dir": "'${paths.output_dir}'"}  # a logger's folder: the run's own
        adds = " ".join(f"+{where}.{name}={example.get(name, '<value>')}" for name in missing)
        cls = str((node or {}).get("_target_", "its class")).rsplit(".", 1)[-1]
        return ConfigError(f"{where}: {cls} needs {', '.join(missing)}, which the config does not give "
                           f"({detail}). Fix: {adds}")
    if "requires a GPU accelerator" in detail and not torch.cuda.is_available():  # pass 83, row 09:
        # Lightning's advice, accelerator='cuda', cannot work on a machine without a GPU
        given = next((o for o in sys.argv[1:] if o.split("=", 1)[0].lstrip("+~") == "trainer.strategy"),
                     "trainer.strategy")
        return ConfigError(f"{where}: {detail.split('. ')[0]}, and this machine has no GPU. Fix: leave "
                           f"{given} out (one process), or trainer=ddp_cpu for several processes on its CPUs")
    return ConfigError(f"{where}: {type(cause).__name__}: {detail}. Fix: correct or remove that setting "
                       f"(python train.py --cfg job shows the config)")


def _unknown_argument(node: DictConfig, where: str) -> ConfigError | None:
    """A ConfigError naming the first key of ``node`` that its ``_target_`` does not take
    (``+trainer.max_epoch=3``: "did you mean trainer.max_epochs?"), or ``None``."""
    from hydra.utils import get_object

    try:
        params = inspect.signature(get_object(node._target_)).parameters
    except (ValueError, TypeError, ImportError, AttributeError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return None
    unknown = [str(k) for k in node if not str(k).startswith("_") and k not in params]
    if not unknown:
        return None
    if len(unknown) > 1:  # pass 54/55, row 5 (major): model._target_=torch.nn.Linear; before, one key a run,
        # each said to be "+... added", though the preset held them
        keys = ", ".join(f"{where}.{k}" for k in unknown)
        return ConfigError(f"{where}._target_={node._target_} takes none of {keys}, which the config gives "
                           f"it: a _target_ of another class takes other arguments. Fix: leave "
                           f"{where}._target_ out (the option's own), or give a class that takes them")
    if where == "trainer" and unknown[0] in LIGHTNING_1_TRAINER:  # pass 66, row 26: before, "remove it",
        # which silently started a new run in place of the resume that was asked for
        return ConfigError(f"trainer.{unknown[0]} is a Lightning 1.x argument, which Lightning 2's Trainer "
                           f"no longer takes. Fix: remove it, and use {LIGHTNING_1_TRAINER[unknown[0]]}")
    meant = did_you_mean(unknown[0], list(params), prefix=f"{where}.") or "."
    return ConfigError(f"{where}.{unknown[0]} is not an argument of {node._target_}{meant} Fix: correct or "
                       f"remove it (+{where}.{unknown[0]}=... added it)")


# Trainer arguments of Lightning 1.x that Lightning 2 removed (an old tutorial's), with the way to do the
# same here
LIGHTNING_1_TRAINER = {
    "resume_from_checkpoint": "resume=<run folder> (it continues that run in its folder) or "
                              "ckpt_path=<file>.ckpt (a new run from the checkpoint's state)",
    "gpus": "trainer=gpu (trainer.devices=<n> for n GPUs)",
    "num_processes": "trainer.devices=<n> (processes on the CPU: trainer=ddp_cpu)",
    "tpu_cores": "trainer.accelerator=tpu trainer.devices=<n>",
    "auto_select_gpus": "trainer.devices=<n>, which takes the free GPUs where they are in exclusive mode",
    "checkpoint_callback": "+trainer.enable_checkpointing=<true|false>",
    "replace_sampler_ddp": "nothing: Lightning's use_distributed_sampler (true by default) shards the "
                           "training data under DDP, which highwaylab relies on (false is refused there)",
    "track_grad_norm": "the grad_norms callback (on by default), which logs each layer's gradient norm",
    "amp_backend": "trainer.precision=16-mixed (or bf16-mixed)",
    "amp_level": "trainer.precision=16-mixed (or bf16-mixed)",
    "terminate_on_nan": "nothing: a run stops at its first non-finite loss (callbacks.nonfinite_guard)",
    "progress_bar_refresh_rate": "trainer.enable_progress_bar=false for no bar, or "
                                 "+callbacks.rich_progress_bar.refresh_rate=<n>",
    "weights_summary": "callbacks.model_summary.max_depth=<n> (~callbacks.model_summary: no summary)",
    "auto_lr_find": "a search over the learning rate (hparams_search=mnist_tpe), or Lightning's "
                    "LearningRateFinder callback",
    "auto_scale_batch_size": "data.batch_size=<n>, or Lightning's BatchSizeFinder callback",
    "stochastic_weight_avg": "Lightning's StochasticWeightAveraging callback",
    "weights_save_path": "callbacks.model_checkpoint.dirpath=<folder>",
    "flush_logs_every_n_steps": "the CSV logger's flush_logs_every_n_steps",
    "move_metrics_to_cpu": "nothing: the metrics are torchmetrics, synchronised once an epoch",
}


# Lightning's refusal of a fraction of batches that rounds to none (trainer.limit_val_batches=0.001)
BELOW_ONE_BATCH = re.compile(r"You requested to check (\S+) of the `(\w+)_dataloader` but \S+ \* (\d+) < 1")


def limit_error(err: BaseException) -> ConfigError | None:
    """The one-line error for a ``trainer.limit_<stage>_batches`` fraction below one batch, which
    Lightning refuses naming its own argument and a 16-digit least value (pass 47, row 20); ``None``
    for any other error."""
    found = BELOW_ONE_BATCH.search(str(err)) if isinstance(err, MisconfigurationException) else None
    if found is None:
        return None
    return below_one_batch(found[2], found[1], int(found[3]))


def below_one_batch(stage: str, fraction: object, batches: int) -> ConfigError:
    """The one-line error for ``trainer.limit_<stage>_batches=<fraction>`` of ``batches`` batches,
    which is below one batch."""
    least = math.ceil(1e4 / batches) / 1e4  # rounded up to 4 decimals: still at least one batch
    return ConfigError(f"trainer.limit_{stage}_batches={fraction} is a fraction of the {batches} {stage} "
                       f"batches below one batch, so none would run. Fix: trainer.limit_{stage}_batches="
                       f"{least:g} or more, or a number of batches (trainer.limit_{stage}_batches=1)")


def check_test_limit(trainer: L.Trainer, datamodule: L.LightningDataModule) -> None:
    """Raises ConfigError at the start of the fit (the data set up, no step trained) for a
    ``trainer.limit_test_batches`` fraction below one test batch, which Lightning refuses only when the
    test starts (pass 78, row 29, major: before, after the whole training, and the corrected command was
    then refused for the run folder left behind). Lightning's rule: ``int(batches * fraction) == 0``."""
    fraction = trainer.limit_test_batches
    if not isinstance(fraction, float) or not 0.0 < fraction < 1.0:
        return
    batches = len(datamodule.test_dataloader())  # this process's share under DDP
    if int(batches * fraction) == 0:
        raise below_one_batch("test", f"{fraction:g}", batches)


def val_check_error(trainer: L.Trainer) -> ConfigError | None:
    """The one-line error for an integer ``trainer.val_check_interval`` above the number of training
    batches of an epoch (which Lightning refuses with a ValueError when the fit loop sets up its data),
    or ``None`` when that is not the case."""
    interval, batches = trainer.val_check_interval, trainer.fit_loop.max_batches
    if isinstance(interval, bool) or not isinstance(interval, int) or not interval > batches \
            or trainer.check_val_every_n_epoch is None:  # counted across epochs: checked as training starts
        return None
    total = run_batches(trainer)  # across epochs, only where the whole run reaches it (pass 80, row 28)
    across = (", or also set trainer.check_val_every_n_epoch=null to count batches across epochs"
              if total is None or total >= interval else "")
    key = as_given("trainer.val_check_interval")  # +trainer...: the presets do not set it (pass 87, row 37:
    # before, the example without its '+' was refused, "trainer has no key")
    return ConfigError(f"trainer.val_check_interval={interval} is more than the {batches} training batches "
                       f"of an epoch, so validation would never run. Fix: give at most {batches} batches "
                       f"({key}={batches}), or a fraction of the epoch (e.g. {key}=0.5){across}")


def run_batches(trainer: L.Trainer) -> int | None:
    """The training batches of the whole fit (``trainer.max_epochs`` epochs of the fit loop's batches,
    or ``trainer.max_steps`` optimiser steps of ``accumulate_grad_batches`` batches, whichever ends it
    first); ``None`` where neither bounds it."""
    totals = []
    if trainer.max_epochs not in (None, -1):
        totals.append(trainer.max_epochs * trainer.fit_loop.max_batches)
    if trainer.max_steps not in (None, -1):
        totals.append(trainer.max_steps * trainer.accumulate_grad_batches)
    return min(totals) if totals else None


def check_val_interval_across_epochs(trainer: L.Trainer) -> None:
    """Raises ConfigError as training starts (no step trained) for an integer
    ``trainer.val_check_interval`` counted across epochs (``trainer.check_val_every_n_epoch=null``)
    above the training batches of the whole run: validation would never run, and Lightning says so
    only in an INFO line (pass 80, row 28). A resumed fit is left alone."""
    interval = trainer.val_check_interval
    if trainer.check_val_every_n_epoch is not None or isinstance(interval, bool) or not isinstance(
            interval, int) or trainer.global_step > 0 or not trainer.limit_val_batches:
        return
    total = run_batches(trainer)
    if total is not None and interval > total:
        raise ConfigError(f"trainer.val_check_interval={interval} with trainer.check_val_every_n_epoch=null "
                          f"counts training batches across epochs, and this run trains {total} in all, so "
                          f"validation would never run. Fix: give at most {total} "
                          f"({as_given('trainer.val_check_interval')}={total}), or train longer "
                          f"(trainer.max_epochs)")


def warn_unused_size(cfg: DictConfig, net: torch.nn.Module) -> None:
    """Warn when the command line sets ``depth=`` or ``width=`` for a model that does not read them:
    a conv model's depth and channels follow ``model.stages`` (the run's name, tags and
    ``metrics.json`` give the depth that the stages build)."""
    if "stages" not in cfg.model or not HydraConfig.initialized():
        return
    given = {o.split("=", 1)[0].lstrip("+~"): o for o in HydraConfig.get().overrides.task if "=" in o}
    model = HydraConfig.get().runtime.choices.get("model")
    experiment = HydraConfig.get().runtime.choices.get("experiment")
    for key in ("depth", "width"):
        if key in given and key not in cfg.model:
            stages = any(k == "model.stages" or k.startswith("model.stages.") for k in given)
            own = not (Path(__file__).resolve().parents[2] / "conf" / "model" / f"{model}.yaml").is_file()
            fix = (f"leave {given[key]} out (model.stages, given here, sets them)" if stages else
                   # (given with an experiment, the command line's stages are the ones: pass 97, row 28c)
                   f"leave {given[key]} out (experiment={experiment} sets the stages)" if experiment else
                   # pass 96, row 51: a model file of one's own, which sets its stages
                   f"leave {given[key]} out for it (model={model}'s own file sets its stages)" if own else
                   # pass 91, row 39c: before, "set the stages" also when they were given, which the
                   # user then did, and got the same warning
                   "set the stages, e.g. 'model.stages=[{channels: 16, layers: 4}]', or an "
                   "experiment=paper_mnist_conv16")
            sweep = ("; in a multirun, this is this job's alone: the sweep's other models may read it"
                     if HydraConfig.get().mode == RunMode.MULTIRUN else "")
            log.warning(f"{given[key]} is not used by model={model}: "
                        f"a conv net's depth and channels follow model.stages (this one: depth "
                        f"{getattr(net, 'depth', '?')}, in its name, tags and metrics.json). Fix: "
                        f"{fix}{sweep}")


def read_checkpoint(path: str, name: str | None = None, fix: str | None = None) -> dict:
    """The Lightning checkpoint at ``path``, loaded on the CPU (weights only).

    Args:
        path: the checkpoint file.
        name: what the user gave, for the message (default ``ckpt_path=<path>``).
        fix: the fix for a damaged file (default: give the path of another checkpoint).

    Raises:
        ConfigError: the file is missing, a folder, damaged (truncated), not a Lightning
            checkpoint, or weights only.
    """
    name = name or f"ckpt_path={path}"
    where = name if name.endswith(str(path)) else f"{name}: {path}"
    hint = "give the path of a .ckpt file, e.g. ckpt_path=outputs/runs/<run>/checkpoints/last.ckpt"
    if not Path(path).is_file():
        if Path(path).exists():  # a folder, a device (/dev/null), a FIFO: not a checkpoint file
            from highwaylab.data.files import file_kind

            what = f"is {file_kind(os.stat(path).st_mode)}, not a checkpoint file"
        else:
            what = "does not exist"
        raise ConfigError(f"{where} {what}; {hint}")
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
        if not isinstance(checkpoint, dict) or "state_dict" not in checkpoint:
            raise ValueError("no state_dict in it")
    except Exception as err:
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else ""
        first_line = first_line.split(". ")[0].rstrip(".")  # torch appends paragraphs of advice
        raise ConfigError(f"{where} is not a readable Lightning checkpoint: damaged (e.g. cut short by a "
                          f"full disk or a kill) or another kind of file ({type(err).__name__}: "
                          f"{first_line}). Fix: {fix or hint}") from None
    return resumable(checkpoint, path)  # a full training state; no torch.compile prefixes


def check_checkpoint(checkpoint: dict, path: str, expected: Mapping[str, torch.Tensor],
                     prefix: str = "", fix: str | Callable[[], str] | None = None,
                     name: str | None = None) -> None:
    """Check that the weights of ``checkpoint`` (read from ``path``) fit ``expected`` (a module's
    ``state_dict()``): the same names and shapes, of the keys that start with ``prefix`` (``"net."``:
    the backbone's only), and that the backbone's weights are finite. ``fix``: the advice for
    another model's checkpoint (default: resume with the model of the run that wrote it; a callable is
    called for it, only then); ``name``:
    what the user gave, for the message (default ``ckpt_path=<path>``).

    Raises:
        ConfigError: the checkpoint was saved from another model, or holds NaN/inf weights.
    """
    name = name or f"ckpt_path={path}"
    state = {k: v for k, v in checkpoint["state_dict"].items() if k.startswith(prefix)}
    expected = {k: v for k, v in expected.items() if k.startswith(prefix)}
    missing = sorted(set(expected) - set(state))
    unexpected = sorted(set(state) - set(expected))
    reshaped = sorted(k for k in set(state) & set(expected) if state[k].shape != expected[k].shape)
    if missing or unexpected or reshaped:
        first = (missing or unexpected or reshaped)[0]
        fix = fix() if callable(fix) else fix or _model_of_run(path)
        raise ConfigError(
            f"{name} was saved from another model: {len(missing)} missing, {len(unexpected)} "
            f"unexpected and {len(reshaped)} reshaped weights (first: {first}). {fix}")
    bad = next((k for k, v in state.items() if k.startswith("net.") and v.is_floating_point()
                and not bool(torch.isfinite(v).all())), None)
    if bad is not None:  # before: "val/loss is nan in the sanity check ... lower optim.optimizer.lr"
        raise ConfigError(
            f"{name} holds non-finite weights (NaN/inf in {bad}): it was saved after its run "
            f"diverged, or the file is damaged, and no training step can continue from it. Fix: continue "
            f"from an earlier checkpoint of the run (its checkpoints/epoch_XXX.ckpt, by ckpt_path=), or "
            f"start a new run (e.g. with a lower optim.optimizer.lr)")


def _model_of_run(path: str) -> str:
    """The fix for a checkpoint of another model: the model, depth and width of the run that wrote it,
    read from its folder's record (``<run>/checkpoints/<file>``: ``<run>/.hydra/``); for a file outside
    a run's folder, that nothing beside it records them (pass 73, row 14: before, "its .hydra/config.yaml
    lists them" of a file copied alone)."""
    from highwaylab.utils.resume import _latest_record, _recorded_hydra

    run = Path(path).resolve().parent.parent
    try:  # the run's latest start's record, as resume= reads it
        config = OmegaConf.load(_latest_record(run, "config.yaml"))
        model = _recorded_hydra(run)["runtime"]["choices"]["model"]
        if "stages" in config.model:  # a conv net: its stages, quoted for the shell (pass 97, row 28: before,
            # a Python list the shell split, and depth=, which a conv net does not read, beside it)
            from highwaylab.utils.loggers import cli_text
            from highwaylab.utils.shell_args import shell_word

            stages = OmegaConf.to_container(config.model.stages, resolve=True)
            given = f"model={model} {shell_word(f'model.stages={cli_text(stages)}')}"
        else:
            given = f"model={model} depth={config.get('depth')} width={config.get('width')}"
    except Exception:  # no run's folder around the file, or a record that cannot be read
        return ("Give the model, depth and width (conv models: model.stages) it was trained with: the file "
                "lies outside a run's folder, so nothing beside it records them (a run lists them in its "
                ".hydra/config.yaml).")
    return f"Give the model of the run that wrote it, {run} (its .hydra/config.yaml): {given}."


def backbone_weights(cfg: DictConfig) -> dict[str, torch.Tensor] | None:
    """The backbone's ``state_dict()`` as a :class:`highwaylab.module.ClassifierModule` holds it
    (``net.<name>``), built from ``cfg.model`` on the meta device (shapes, no memory, no data read),
    with the data's shape (:data:`highwaylab.data.files.SHAPES`); ``None`` for data or a model
    that this cannot build without the data module."""
    from highwaylab.config_checks import data_shape

    input_shape, num_classes = data_shape(cfg.data)
    if input_shape is None:
        return None
    with torch.device("meta"):
        net = instantiate(cfg.model, input_shape=input_shape, num_classes=num_classes)
    return {f"net.{k}": v for k, v in net.state_dict().items()}


def copied_from(checkpoint: dict, path: str) -> Path | None:
    """The run folder that ``checkpoint`` (read from ``path``) was saved in, when that is another
    folder that still holds a ``checkpoints/last.ckpt``: the run's folder was copied, not moved.
    ``None`` otherwise (the same folder, a moved one, or no record of the folder)."""
    saved = saved_dirpath(checkpoint)
    if saved is None:
        return None
    here, there = Path(os.path.realpath(Path(path).parent)), Path(os.path.realpath(saved))
    if there == here or not (there / "last.ckpt").is_file():
        return None
    run = run_of(Path(path)) or Path(path).parent.parent
    return None if moved_from(run, checkpoint) else there.parent  # moved, and a new run started there


def other_copies(checkpoint: dict, path: str, run_id: str) -> list[Path]:
    """The other copies of a run whose own folder is gone, for a ``checkpoint`` (read from ``path``)
    saved in another folder than the one it is resumed from: folders beside this one, or beside the
    folder it was saved in, that hold a ``checkpoints/`` and W&B run ``run_id``'s offline segments
    (``wandb/offline-run-*-<run_id>``) or its ``metrics.json`` (``wandb_run_path``). Empty when the
    checkpoint is in its own folder, or the folder was moved (breaking pass 35, row 15: before, two
    copies of a run whose folder was deleted both continued W&B run ``run_id``, with two histories)."""
    saved = saved_dirpath(checkpoint)
    here = Path(os.path.realpath(Path(path).parent)).parent
    if saved is None or Path(os.path.realpath(saved)).parent == here:
        return []
    there = Path(os.path.realpath(saved)).parent
    found = []
    for parent in dict.fromkeys(p for p in (here.parent, there.parent) if p.is_dir()):
        try:
            folders = sorted(parent.iterdir())
        except OSError:  # a parent folder this user cannot list: no copies known there
            continue
        for folder in folders:
            if folder == here or not (folder / "checkpoints").is_dir():
                continue
            if wrote_wandb_run(folder, run_id):
                found.append(folder)
    return found


def older_state(run: Path, checkpoint: dict) -> str | None:
    """The warning for a resume whose checkpoint is of an earlier step than the run had reached (its
    ``metrics.json``'s ``global_step``): a ``last.ckpt`` restored from an older backup. The run goes on
    from that state, and its W&B history repeats the steps in between (breaking pass 33, row 38: before,
    without a word). ``None`` otherwise, or without a readable ``metrics.json``."""
    reached = (run_metrics(Path(run)) or {}).get("global_step")
    step = checkpoint.get("global_step")
    if not isinstance(reached, int) or not isinstance(step, int) or step >= reached:
        return None
    return (f"highwaylab: the checkpoint this resume goes on from is of step {step}, but the run had reached "
            f"step {reached} (its metrics.json): it trains again from the older state (restored from a "
            f"backup?), and its W&B history repeats steps {step}..{reached}")


def _resume_of(ckpt_path: str) -> str:
    """``resume=<the run folder that holds ckpt_path>`` (its ``checkpoints/`` parent, if that folder
    has a run's record), else ``resume=<its folder>``."""
    run = run_of(Path(ckpt_path))
    return override_arg("resume", run) if run is not None else "resume=<its folder>"


def join_sweep_group(cfg: DictConfig, output_dir: Path) -> str | None:
    """Put a new run whose folder is in a sweep's folder (``hydra.run.dir=<sweep>/<n>_<name>``: a job
    the sweep never started, or one that failed, run again on its own, as the report and the
    refusals advise) into that sweep's W&B group, when ``logger.wandb.group`` is not set: the group
    its jobs recorded (``config_resolved.yaml``), else ``sweep-<sweep folder>``, the default of a
    multirun (breaking pass 39, row 46: before, the run was in no group, so W&B and the report's run
    left it out of the sweep). Returns the group, with one line in the log, or ``None``."""
    wandb_cfg = (cfg.get("logger") or {}).get("wandb")
    sweep = output_dir.resolve().parent
    if wandb_cfg is None or wandb_cfg.get("group") or not (sweep / "multirun.yaml").is_file():
        return None
    from highwaylab.analysis.sweep_report import recorded_group

    others = [job for job in sorted(sweep.iterdir()) if job.is_dir() and job != output_dir.resolve()]
    group = recorded_group(others) or f"sweep-{sweep.name}"
    with open_dict(cfg):
        wandb_cfg.group = group
    if rank_zero_only.rank == 0:
        log.info(f"W&B group {group}: this run's folder is in the sweep {sweep}, so it joins that sweep's "
                 f"group (logger.wandb.group=<other> sets another)")
    return group


def _of_run(path: str, run: Path) -> bool:
    """Whether the checkpoint ``path`` lies in the run folder ``run``, as given or with its symbolic
    links followed: a ``checkpoints/`` moved to another disk and linked back is still the run's
    (pass 67, row 26: before, "a checkpoint of another run folder", and a new W&B run)."""
    runs = {Path(run).resolve(), Path(os.path.abspath(run))}
    folders = Path(os.path.abspath(path)).parents  # each, as given and with its links followed
    return any(folder in runs or folder.resolve() in runs for folder in folders) \
        or any(folder in runs for folder in Path(path).resolve().parents)


def own_checkpoint(path: str, run: Path) -> bool:
    """Whether the checkpoint ``path`` is the run's own: in its folder ``run`` (:func:`_of_run`), or in
    a checkpoint folder outside it that the run recorded (``callbacks.last_checkpoint.dirpath=
    /scratch/ck``: pass 76, row 68: before, its resume= was "a checkpoint of another run folder", and
    the run's history went on in a new W&B run)."""
    return _of_run(path, run) or Path(os.path.abspath(path)).parent in recorded_dirpaths(run).values()


def continue_wandb_run(cfg: DictConfig, checkpoint: dict, path: str) -> str | None:
    """Point ``cfg.logger.wandb`` at the W&B run that wrote ``checkpoint`` (``id``, ``resume: allow``,
    and its ``group`` when none is set), so that the resumed run's charts continue that run; an
    ``id`` set by the user wins.

    The run id comes from the checkpoint's ``logger_versions`` (:meth:`ClassifierModule.on_save_checkpoint`).
    A checkpoint outside this run's folder (a new run started from another run's checkpoint) or in a
    copy of a run gets a new W&B run, with a warning (breaking pass 30, row 42: the new run logged into
    the other run's W&B id). Returns the id, or ``None`` when there is no W&B logger, no id in the
    checkpoint, or the run gets a new W&B run.
    """
    wandb_cfg = (cfg.get("logger") or {}).get("wandb")
    run_id = checkpoint.get("logger_versions", {}).get(WandbLogger.__name__)
    own = Path(cfg.paths.output_dir).resolve()
    if wandb_cfg is not None and "disabled" in (os.environ.get("WANDB_MODE"), wandb_cfg.get("mode")):
        # no W&B run at all, as its own line says (pass 45, row 43: before, "this run gets a new W&B run"
        # of a copy, then "WANDB_MODE=disabled: no W&B run"); the run's own W&B run is named as left
        # behind, as for logger=csv (pass 88, row 67: before, no word of it)
        if run_id and own_checkpoint(path, own) and copied_from(checkpoint, path) is None \
                and not other_copies(checkpoint, path, run_id) and rank_zero_only.rank == 0:  # a copy's
            # W&B run is the original's, which a copy never continues (pass 45, row 43)
            given = ("WANDB_MODE=disabled" if os.environ.get("WANDB_MODE") == "disabled"
                     else "logger.wandb.mode=disabled")
            log.warning(f"highwaylab: the run logged to W&B run {run_id}, and this resume has {given}: W&B "
                        f"run {run_id} gets none of the steps trained now (from step "
                        f"{checkpoint.get('global_step', '?')}); they are only in this run's metrics.json, "
                        f"train.log and the other loggers. To continue the W&B run, resume without {given}")
        return None
    if wandb_cfg is None and run_id and own_checkpoint(path, own) and rank_zero_only.rank == 0:
        # pass 37, row 22: before, resume=<run> logger=csv left the run's W&B run behind without a word
        choice = HydraConfig.get().runtime.choices.get("logger") if HydraConfig.initialized() else None
        from highwaylab.utils.resume import GIVEN_WITH_RESUME

        # a choice of an earlier resume, kept in the run's record, is named as such (pass 90, row 39)
        typed = any(o.split("=", 1)[0].lstrip("+~") == "logger" for o in GIVEN_WITH_RESUME)
        kept = ", kept from an earlier resume of the run" if choice and not typed else ""
        which = f"logger={choice}{kept}" if choice else "the logger group holds none"
        log.warning(f"highwaylab: the run logged to W&B run {run_id}, and this resume has no W&B logger "
                    f"({which}): W&B run {run_id} "
                    f"gets none of the steps trained now (from step {checkpoint.get('global_step', '?')}); "
                    f"they are only in this run's metrics.json, train.log and the loggers given. To "
                    f"continue the W&B run, resume with logger=wandb")
    if wandb_cfg is None or wandb_cfg.get("id"):
        return None
    step = checkpoint.get("global_step")
    if not run_id and isinstance(step, int) and step > 0 and own_checkpoint(path, own) \
            and rank_zero_only.rank == 0:  # pass 43, row 42: before, its W&B run began there unsaid
        log.warning(f"highwaylab: the run trained steps 0 to {step} without a W&B logger (its checkpoint "
                    f"records no W&B run), so the W&B run it starts now begins at step {step}: the earlier "
                    f"steps are only in its metrics.json, train.log and the loggers it had then")
    if run_id and not own_checkpoint(path, own):  # a new run from another run's checkpoint
        # (before the copy's check, pass 35b, row 12: that said "this run" of the folder it copies)
        log.warning(f"highwaylab: ckpt_path={path} is a checkpoint of another run folder, not of this run's "
                    f"({own}): this run gets a new W&B run, and W&B run {run_id} stays that run's (to "
                    f"continue that run itself: python train.py {_resume_of(path)})")
        return None
    original = copied_from(checkpoint, path)
    if run_id and original is not None:  # both folders would continue one W&B run, with two histories
        log.warning(f"{Path(path).parent.parent} is a copy of the run in {original}, which still holds its "
                    f"checkpoints: this run gets a new W&B run, so that wandb sync does not merge the two "
                    f"histories into W&B run {run_id}")
        return None
    copies = other_copies(checkpoint, path, run_id) if run_id else []
    if copies:  # the original is gone, but another copy of it could continue the same W&B run
        gone = Path(saved_dirpath(checkpoint)).parent
        log.warning(f"{Path(path).parent.parent} and {', '.join(map(str, copies))} are copies of one run "
                    f"(saved in {gone}, gone since), which wrote W&B run {run_id}: "
                    f"this run gets a new W&B run, so that wandb sync does not merge two histories into "
                    f"W&B run {run_id} (to continue it, resume one copy after moving the others out of "
                    f"{', '.join(sorted({str(c.parent) for c in copies}))})")
        return None
    if run_id:
        before = _recorded_project(own)
        if before is not None and wandb_cfg.get("project") and str(wandb_cfg.project) != before:
            # pass 44, row 51: before, the run's next segment went to another project under the same id,
            # which wandb sync makes into a second run there
            raise ConfigError(f"logger.wandb.project={wandb_cfg.project}: the run's W&B run {run_id} is in "
                              f"project {before}, and a resume continues it; in another project its steps "
                              f"from here would be a second run, apart from the first. Fix: leave "
                              f"logger.wandb.project out (or start a new run in that project)")
        with open_dict(cfg):
            wandb_cfg.id = run_id
            wandb_cfg.resume = "allow"
            if not wandb_cfg.get("group") and checkpoint.get("wandb_group"):
                wandb_cfg.group = checkpoint["wandb_group"]  # a sweep's job resumed on its own
        group = f"group {wandb_cfg.group}" if wandb_cfg.get("group") else "no group"
        if not wandb_cfg.get("group") and (env_group := os.environ.get("WANDB_RUN_GROUP")):
            # pass 58, row 88: W&B files the part from here under it; before, "(no group)" was said
            group = (f"group {env_group}, from WANDB_RUN_GROUP, while its part before this resume is in no "
                     f"group; to keep it so, unset WANDB_RUN_GROUP")
        log.info(f"Continuing W&B run {run_id} ({group}) of {path}")
        if env_resume := os.environ.get("WANDB_RESUME"):  # pass 75, row 56: before, ignored unsaid
            log.warning(f"highwaylab: WANDB_RESUME={env_resume} is set in the environment, but W&B ignores "
                        f"it here: a resume continues the run's W&B run {run_id} (logger.wandb.resume=allow, "
                        f"as recorded), so that the run's history stays one W&B run. To quieten this, unset "
                        f"WANDB_RESUME; for a W&B run of its own, start a new run (in a new folder)")
    return run_id


def _recorded_project(run: Path) -> str | None:
    """The W&B project that the run in ``run`` logged to (its latest ``config_resolved*.yaml``), or
    ``None`` when none is recorded."""
    try:
        project = OmegaConf.select(OmegaConf.load(latest_resolved(run)), "logger.wandb.project")
    except (OSError, ValueError, yaml.YAMLError, OmegaConfBaseException):
        return None
    return str(project) if project else None


def _floats(metrics: dict) -> dict[str, float]:
    return {k: float(v) for k, v in metrics.items()}


def unknown_optimized_metric(cfg: DictConfig) -> str | None:
    """The warning for an ``optimized_metric`` that is not one of the metrics every run logs
    (:data:`highwaylab.config_checks.RUN_METRICS`), a misspelt name, at the job's start: a sweep's
    job would train and then fail at its end (:func:`optimized_metric`), and a single run, which
    does not read it, would say nothing (breaking pass 35a, row 47). ``None`` otherwise."""
    from highwaylab.config_checks import RUN_METRICS
    from highwaylab.utils.hydra_utils import did_you_mean

    name = cfg.get("optimized_metric")
    if not name or name in RUN_METRICS:
        return None
    end = ("this job of the sweep fails at its end without it" if in_multirun() else
           "only a sweep reads it, as the value each job returns, and a sweep's jobs would fail at their end")
    return (f"highwaylab: optimized_metric={name} is not a metric that every run logs "
            f"({', '.join(RUN_METRICS)}): {end}{did_you_mean(str(name), list(RUN_METRICS))}")


def optimized_metric(cfg: DictConfig, metrics: dict[str, Any]) -> float | None:
    """The value of ``cfg.optimized_metric`` for sweepers (NaN when it was never logged).

    Raises:
        ConfigError: in a multirun, the metric is not among ``metrics`` (a misspelt name).
    """
    name = cfg.get("optimized_metric")
    if not name:
        return None
    if name not in metrics and in_multirun():  # a sweeper would get nothing to optimise
        numeric = sorted(k for k, v in metrics.items() if isinstance(v, float))
        raise ConfigError(f"optimized_metric={name} was not logged; choose one of: {', '.join(numeric)}")
    value = metrics.get(name)
    return float(value) if value is not None else math.nan
