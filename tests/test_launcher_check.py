"""The SLURM launcher's check (:mod:`highwaylab.utils.launcher_check`) without a cluster: numeric launcher
settings that sbatch would refuse, and a SLURM controller that does not answer, are one ``highwaylab:``
line before the sweep's folder is made (not submitit's traceback after it)."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from highwaylab.errors import ConfigError
from highwaylab.utils.launcher_check import check_slurm_launcher

from .conftest import ROOT

SLURM_CPU = ["hydra/launcher=slurm_cpu", "trainer=cpu"]


def launcher_cfg(overrides: list[str]):
    """The config (with ``hydra.launcher``) of ``python train.py -m <overrides>``."""
    GlobalHydra.instance().clear()
    with initialize_config_dir(version_base="1.3", config_dir=str(ROOT / "conf")):
        return compose(config_name="train", overrides=overrides, return_hydra_config=True)


# pass 22, row 11: before, hydra.launcher.signal_delay_s=-5 passed this check and reached sbatch, whose
# "Invalid --signal specification" ended a 40-line traceback, the sweep's folder left behind
REFUSED = {
    "hydra.launcher.signal_delay_s=-5":
        "hydra.launcher.signal_delay_s=-5 must be a whole number of seconds >= 0, "
        "e.g. hydra.launcher.signal_delay_s=120",
    "hydra.launcher.signal_delay_s=65536":
        "hydra.launcher.signal_delay_s=65536 must be at most 65535 seconds (sbatch --signal), "
        "e.g. hydra.launcher.signal_delay_s=120",
    "hydra.launcher.timeout_min=10 hydra.launcher.signal_delay_s=600":
        "hydra.launcher.signal_delay_s=600 must be below the time limit, hydra.launcher.timeout_min=10 x 60 "
        "= 600 s: SLURM would send USR2 as the job starts, and the run would stop and requeue itself at "
        "once. Fix: e.g. hydra.launcher.signal_delay_s=120, or a longer hydra.launcher.timeout_min",
    "hydra.launcher.timeout_min=-5":
        "hydra.launcher.timeout_min=-5 must be a whole number of minutes (0: no time limit) >= 0, "
        "e.g. hydra.launcher.timeout_min=240",
    "hydra.launcher.cpus_per_task=0":
        "hydra.launcher.cpus_per_task=0 must be a whole number of CPUs >= 1 (or null: not asked of sbatch), "
        "e.g. hydra.launcher.cpus_per_task=1",
    "hydra.launcher.mem_gb=-1":
        "hydra.launcher.mem_gb=-1 must be a whole number of GB (0: all of the node's memory) >= 0 (or null: "
        "not asked of sbatch), e.g. hydra.launcher.mem_gb=4",
    "hydra.launcher.gpus_per_node=0":
        "hydra.launcher.gpus_per_node=0 must be a whole number of GPUs >= 1 (or null: not asked of sbatch), "
        "e.g. hydra.launcher.gpus_per_node=1",
    "hydra.launcher.array_parallelism=0":
        "hydra.launcher.array_parallelism=0 must be a whole number of jobs running at once >= 1, "
        "e.g. hydra.launcher.array_parallelism=256",
    "hydra.launcher.tasks_per_node=0":
        "hydra.launcher.tasks_per_node=0 must be a whole number of processes (it follows trainer.devices) "
        ">= 1, e.g. hydra.launcher.tasks_per_node=1",
}


@pytest.mark.parametrize("line", list(REFUSED))
def test_a_launcher_number_that_sbatch_refuses_is_one_line_naming_the_key(line):
    overrides = [*SLURM_CPU, *line.split()]
    with pytest.raises(ConfigError) as err:
        check_slurm_launcher(launcher_cfg(overrides), overrides, None)
    assert str(err.value) == REFUSED[line]


@pytest.mark.parametrize("line", ["", "hydra.launcher.timeout_min=0 hydra.launcher.signal_delay_s=0",
                                  "hydra.launcher.timeout_min=0 hydra.launcher.signal_delay_s=65535",
                                  "hydra.launcher.timeout_min=3 hydra.launcher.signal_delay_s=179",
                                  "hydra.launcher.mem_gb=0 hydra.launcher.cpus_per_task=null"])
def test_launcher_numbers_that_sbatch_takes_pass(line):
    overrides = [*SLURM_CPU, *line.split()]
    check_slurm_launcher(launcher_cfg(overrides), overrides, None)
