"""The SLURM launcher's check (:mod:`highwaylab.utils.launcher_check`) without a cluster: numeric launcher
settings that sbatch would refuse, and a SLURM controller that does not answer, are one ``highwaylab:``
line before the sweep's folder is made (not submitit's traceback after it)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.global_hydra import GlobalHydra

from highwaylab.errors import ConfigError
from highwaylab.utils import launcher_check
from highwaylab.utils.launcher_check import check_slurm_launcher, sinfo_partitions

from .conftest import ROOT, TINY, subprocess_env

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
        "hydra.launcher.signal_delay_s=600 leaves 0 s of the time limit, hydra.launcher.timeout_min=10 "
        "(600 s), before SLURM's warning signal (USR2), which SLURM may send up to 60 s early "
        "(man sbatch, --signal): the run could be stopped as it starts. Fix: "
        "hydra.launcher.timeout_min=12 or longer, or "
        "hydra.launcher.signal_delay_s=120",
    # pass 74, row 20b: before, passed; USR2 came 2 s into the job, and the launcher ended in a traceback
    "hydra.launcher.timeout_min=1 hydra.launcher.signal_delay_s=30":
        "hydra.launcher.signal_delay_s=30 leaves 30 s of the time limit, hydra.launcher.timeout_min=1 "
        "(60 s), before SLURM's warning signal (USR2), which SLURM may send up to 60 s early "
        "(man sbatch, --signal): the run could be stopped as it starts. Fix: "
        "hydra.launcher.timeout_min=2 or longer",
    # the default delay (120 s) in a 3-minute limit: 60 s left, which SLURM's early signal can take
    "hydra.launcher.timeout_min=3":
        "hydra.launcher.signal_delay_s=120 leaves 60 s of the time limit, hydra.launcher.timeout_min=3 "
        "(180 s), before SLURM's warning signal (USR2), which SLURM may send up to 60 s early "
        "(man sbatch, --signal): the run could be stopped as it starts. Fix: "
        "hydra.launcher.timeout_min=4 or longer, or "
        "hydra.launcher.signal_delay_s=119",
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
                                  "hydra.launcher.timeout_min=3 hydra.launcher.signal_delay_s=119",
                                  "hydra.launcher.mem_gb=0 hydra.launcher.cpus_per_task=null"])
def test_launcher_numbers_that_sbatch_takes_pass(line):
    overrides = [*SLURM_CPU, *line.split()]
    check_slurm_launcher(launcher_cfg(overrides), overrides, None)


def unreachable_controller(tmp_path) -> dict[str, str]:
    """An environment whose SLURM_CONF names a controller that does not answer (nothing listens on
    port 9 of this machine), so that the real sinfo and sbatch fail as with a controller down."""
    conf = tmp_path / "slurm.conf"
    conf.write_text("ClusterName=unreachable\nSlurmctldHost=nohost(127.0.0.1)\nSlurmctldPort=9\n")
    return subprocess_env(SLURM_CONF=str(conf))


needs_slurm_clients = pytest.mark.skipif(shutil.which("sinfo") is None or shutil.which("sbatch") is None,
                                         reason="sinfo or sbatch is not installed")


@needs_slurm_clients
@pytest.mark.slow
def test_a_slurm_controller_that_does_not_answer_is_one_line_before_the_sweep_folder(tmp_path):
    # pass 22, row 13: before, sinfo's failure was ignored and sbatch failed 20 s later with submitit's
    # traceback ending "Unable to contact slurm controller (connect failure)", .submitit/ left behind
    sweep = tmp_path / "sweep"
    tiny = [a for a in TINY if a != "trainer=cpu"]
    cmd = [sys.executable, str(ROOT / "train.py"), "-m", *SLURM_CPU, *tiny, f"hydra.sweep.dir={sweep}",
           f"paths.log_dir={tmp_path}/outputs"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env=unreachable_controller(tmp_path))
    wall_s = time.monotonic() - t0
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "Traceback" not in output, output[-3000:]
    assert output.strip().splitlines()[-1] == (
        "highwaylab: hydra/launcher=slurm_cpu: the SLURM controller does not answer (sinfo: "
        "slurm_load_partitions: Unable to contact slurm controller (connect failure)). Fix: start it (the "
        "test cluster: sudo bash tests/cluster/slurm.sh start), or check SLURM_CONF / the controller host; "
        "or run the sweep without hydra/launcher")
    assert not sweep.exists() and not (tmp_path / "outputs").exists()
    # no hang: sinfo's own retries take about 9 s, and it is cut at SINFO_TIMEOUT_S (20 s); a loose bound
    assert wall_s < 90, wall_s


@needs_slurm_clients
def test_sinfo_that_gives_no_answer_in_time_is_refused_naming_the_wait(tmp_path, monkeypatch):
    monkeypatch.setenv("SLURM_CONF", unreachable_controller(tmp_path)["SLURM_CONF"])
    monkeypatch.setattr(launcher_check, "SINFO_TIMEOUT_S", 0.5)  # sinfo's retries take about 9 s
    with pytest.raises(ConfigError) as err:
        sinfo_partitions("slurm")
    assert str(err.value).startswith("hydra/launcher=slurm: the SLURM controller does not answer (sinfo: "
                                     "timed out after 0.5 s). Fix: start it")


def test_without_sinfo_the_partitions_are_not_checked(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    assert sinfo_partitions("slurm") is None


def test_more_processes_than_a_nodes_cpus_get_fewer_devices_not_the_same_cpus_per_task():
    # pass 71, row 45 (major): trainer.devices=4 on 2-CPU nodes; before, "Fix: cpus_per_task=1" again
    # after cpus_per_task=1
    partitions = {"": (2, 24_000), "debug": (2, 24_000)}
    overrides = ["hydra/launcher=slurm_cpu", "trainer=ddp_cpu", "trainer.devices=4",
                 "hydra.launcher.cpus_per_task=1"]
    with pytest.raises(ConfigError) as err:
        check_slurm_launcher(launcher_cfg(overrides), overrides, partitions)
    assert str(err.value) == (
        "hydra.launcher.cpus_per_task=1 x trainer.devices=4 processes = 4 CPUs per node, but the nodes of "
        "the default partition have 2. Fix: trainer.devices=2 (one CPU per process).")
    fixed = [*overrides[:2], "trainer.devices=2", overrides[3]]
    check_slurm_launcher(launcher_cfg(fixed), fixed, partitions)  # the fix
    overrides[3] = "hydra.launcher.cpus_per_task=2"  # 8 CPUs: both numbers come down
    with pytest.raises(ConfigError) as err:
        check_slurm_launcher(launcher_cfg(overrides), overrides, partitions)
    assert str(err.value).endswith("Fix: trainer.devices=2 (one CPU per process) "
                                   "hydra.launcher.cpus_per_task=1.")


def test_gpus_asked_of_nodes_without_them_are_one_line_before_sbatch():
    # pass 71, rows 4, 16 and 56 (major): before, sbatch's "Invalid generic resource (gres) specification"
    # as a traceback, the sweep's folder left
    no_gpus, with_gpus = {"": (2, 24_000, 0)}, {"": (16, 128_000, 4)}
    cases = [
        (["hydra/launcher=slurm", "trainer=gpu"], no_gpus,
         "hydra.launcher.gpus_per_node=1 asks for GPUs, but the nodes of the default partition have none "
         "(sinfo lists no gpu GRES). Fix: hydra/launcher=slurm_cpu with trainer=cpu or trainer=ddp_cpu, or a "
         "partition with GPUs: hydra.launcher.partition=<name>"),
        ([*SLURM_CPU, "+hydra.launcher.gres=gpu:1"], no_gpus,
         "hydra.launcher.gres=gpu:1 asks for GPUs, but the nodes of the default partition have none (sinfo "
         "lists no gpu GRES). Fix: leave hydra.launcher.gres=gpu:1 out, or a partition with GPUs: "
         "hydra.launcher.partition=<name>"),
        ([*SLURM_CPU, "hydra.launcher.cpus_per_gpu=4", "hydra.launcher.cpus_per_task=null"], None,
         "hydra.launcher.cpus_per_gpu=4 asks for CPUs per GPU, and the jobs ask for no GPU "
         "(hydra.launcher.gpus_per_node is null): sbatch would refuse it. Fix: "
         "hydra.launcher.cpus_per_gpu=null hydra.launcher.cpus_per_task=4"),
    ]
    for overrides, partitions, line in cases:
        with pytest.raises(ConfigError) as err:
            check_slurm_launcher(launcher_cfg(overrides), overrides, partitions)
        assert str(err.value) == line
    gpu = ["hydra/launcher=slurm", "trainer=gpu"]
    check_slurm_launcher(launcher_cfg(gpu), gpu, with_gpus)  # nodes with GPUs take it
    assert launcher_check._gpu_count("gpu:a100:4(S:0-1)") == 4 and launcher_check._gpu_count("(null)") == 0
