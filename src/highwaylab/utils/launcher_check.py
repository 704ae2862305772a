"""Check the SLURM launcher's settings against the trainer's before anything is submitted.

Under ``hydra/launcher=slurm`` (or ``slurm_cpu``) SLURM starts ``tasks_per_node`` processes on each
of ``nodes`` nodes, and Lightning gives each its rank from SLURM's environment; a trainer that
expects another number of processes hangs or fails inside the job, after its W&B run started. A
request the partition cannot satisfy is refused by sbatch (``EnforcePartLimits``) or pends forever.
:class:`LauncherCheck` refuses both in one line, naming the two keys, before Hydra builds the
launcher. Nothing here imports torch.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import signal
import subprocess
import sys
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError

SWEPT = ("trainer", "trainer.devices", "trainer.num_nodes")  # read once per sweep by the launcher


def is_slurm_launcher(config: DictConfig) -> bool:
    """Whether ``hydra.launcher`` is hydra-submitit-launcher's SLURM launcher."""
    target = str(OmegaConf.select(config, "hydra.launcher._target_", default="") or "")
    return "submitit" in target and "Slurm" in target


def check_slurm_launcher(config: DictConfig, overrides: list[str],
                         partitions: dict[str, tuple[int, int]] | None) -> None:
    """Raise ConfigError when the SLURM launcher and the trainer disagree.

    Args:
        config: the multirun's config (``hydra.launcher.*`` and ``trainer.*``).
        overrides: the command line's overrides (``hydra.overrides.task``).
        partitions: ``{partition: (CPUs, memory in MB)}`` of its largest node, the default partition
            under the key ``""`` as well (:func:`sinfo_partitions`); ``None``: not checked against the
            partitions (the settings alone, or ``sinfo`` not installed).

    Raises:
        ConfigError: ``trainer.devices`` not a number; the trainer swept (``trainer=cpu,ddp_cpu``);
            a numeric launcher key that sbatch would refuse (:func:`check_whole_numbers`);
            ``tasks_per_node`` != ``trainer.devices``; ``nodes`` != ``trainer.num_nodes``;
            ``cpus_per_task`` with ``cpus_per_gpu``; an unknown partition; more CPUs or memory per
            node than the partition's nodes have.
    """
    for override in overrides:
        key, _, value = override.lstrip("+~").partition("=")
        if key in SWEPT and ("," in value or value.startswith(("range(", "choice(", "glob(", "interval("))):
            raise ConfigError(f"{override}: the SLURM launcher reads the trainer once for the whole sweep "
                              f"(its tasks_per_node and nodes follow trainer.devices and trainer.num_nodes). "
                              f"Fix: run one sweep per trainer setting.")
    launcher, trainer = config.hydra.launcher, config.trainer
    devices = trainer.get("devices")
    if isinstance(devices, bool) or not isinstance(devices, int) or devices < 1:
        raise ConfigError(f"trainer.devices={devices!r}: under hydra/launcher=slurm give the number of "
                          f"devices (processes) per node, e.g. trainer.devices=4; "
                          f"hydra.launcher.tasks_per_node and gpus_per_node follow it")
    check_whole_numbers(launcher)
    nodes_wanted = trainer.get("num_nodes") or 1
    pairs = (("tasks_per_node", launcher.get("tasks_per_node"), "trainer.devices", devices),
             ("nodes", launcher.get("nodes"), "trainer.num_nodes", nodes_wanted))
    for key, value, trainer_key, expected in pairs:
        if value != expected:
            raise ConfigError(f"hydra.launcher.{key}={value} but {trainer_key}={expected}: SLURM would start "
                              f"{value} where Lightning expects {expected}. Fix: leave hydra.launcher.{key} "
                              f"unset (it follows {trainer_key}), or set both to the same number.")
    gres = str(launcher.get("gres") or "")
    asks_gpus = bool(launcher.get("gpus_per_node")) or "gpu" in gres.lower()
    if launcher.get("cpus_per_task") is not None and launcher.get("cpus_per_gpu") is not None:
        raise ConfigError("hydra.launcher.cpus_per_task and hydra.launcher.cpus_per_gpu are both set; sbatch "
                          "refuses the pair. Fix: hydra.launcher.cpus_per_gpu=null"
                          + (" (or cpus_per_task=null)." if asks_gpus else "."))
    if launcher.get("cpus_per_gpu") is not None and not asks_gpus:  # pass 71, row 4: sbatch's "Invalid
        # generic resource (gres) specification" as a traceback, the sweep's folder left
        per_gpu = launcher.get("cpus_per_gpu")
        raise ConfigError(f"hydra.launcher.cpus_per_gpu={per_gpu} asks for CPUs per GPU, and the jobs ask "
                          f"for no GPU (hydra.launcher.gpus_per_node is null): sbatch would refuse it. Fix: "
                          f"hydra.launcher.cpus_per_gpu=null hydra.launcher.cpus_per_task={per_gpu}")
    if partitions is None:
        return
    partition = launcher.get("partition")
    if partition is not None and str(partition) not in partitions:
        known = ", ".join(sorted(p for p in partitions if p)) or "none"
        raise ConfigError(f"hydra.launcher.partition={partition}: no such SLURM partition (sinfo lists: "
                          f"{known}). Fix: hydra.launcher.partition=<one of them>, or null for the default.")
    cpus, memory_mb, *more = partitions.get(str(partition) if partition is not None else "", (None, None))
    where = f"partition {partition}" if partition is not None else "the default partition"
    if asks_gpus and more and more[0] == 0:  # pass 71, rows 16 and 56 (major): before, sbatch's traceback
        asked = (f"hydra.launcher.gres={gres}" if "gpu" in gres.lower() else
                 f"hydra.launcher.gpus_per_node={launcher.get('gpus_per_node')}")
        fix = (f"leave {asked} out" if "gpu" in gres.lower() else
               "hydra/launcher=slurm_cpu with trainer=cpu or trainer=ddp_cpu")
        raise ConfigError(f"{asked} asks for GPUs, but the nodes of {where} have none (sinfo lists no gpu "
                          f"GRES). Fix: {fix}, or a partition with GPUs: hydra.launcher.partition=<name>")
    per_task = launcher.get("cpus_per_task") or 1
    if cpus is not None and per_task * devices > cpus:
        # pass 71, row 45 (major): 4 processes on 2-CPU nodes; before, cpus_per_task=1 again and again
        fix = (f"hydra.launcher.cpus_per_task={cpus // devices} (or fewer trainer.devices)" if cpus >= devices
               else f"trainer.devices={cpus} (one CPU per process)" + (" hydra.launcher.cpus_per_task=1"
                                                                       if per_task > 1 else ""))
        raise ConfigError(f"hydra.launcher.cpus_per_task={per_task} x trainer.devices={devices} "
                          f"processes = {per_task * devices} CPUs per node, but the nodes of {where} have "
                          f"{cpus}. Fix: {fix}.")
    mem_gb = launcher.get("mem_gb")
    if memory_mb is not None and mem_gb is not None and mem_gb * 1024 > memory_mb:
        raise ConfigError(f"hydra.launcher.mem_gb={mem_gb} per node, but the nodes of {where} have "
                          f"{memory_mb / 1024:.1f} GB. Fix: "
                          f"hydra.launcher.mem_gb={max(1, memory_mb // 1024)} or less.")


# hydra.launcher.<key> that submitit passes on to sbatch as a number: the least value sbatch takes,
# whether null (the option left out) is allowed, what the number counts, and an example
WHOLE_NUMBERS = (
    ("timeout_min", 0, False, "minutes (0: no time limit)", 240),
    ("signal_delay_s", 0, False, "seconds", 120),
    ("nodes", 1, False, "nodes (it follows trainer.num_nodes)", 1),
    ("tasks_per_node", 1, False, "processes (it follows trainer.devices)", 1),
    ("cpus_per_task", 1, True, "CPUs", 1),
    ("cpus_per_gpu", 1, True, "CPUs", 4),
    ("gpus_per_node", 1, True, "GPUs", 1),
    ("gpus_per_task", 1, True, "GPUs", 1),
    ("mem_gb", 0, True, "GB (0: all of the node's memory)", 4),
    ("array_parallelism", 1, False, "jobs running at once", 256),
)
SIGNAL_DELAY_MAX = 65535  # sbatch --signal=<sig>@<sig_time>: sig_time is 0..65535 seconds
SIGNAL_EARLY_S = 60  # man sbatch, --signal: "the signal may be sent up to 60 seconds earlier than specified"


def check_whole_numbers(launcher: DictConfig) -> None:
    """Raise ConfigError for a numeric ``hydra.launcher`` key that sbatch would refuse at submission
    (``Invalid --signal specification``, ``Invalid numeric value``), after the sweep's folder is made:
    each of :data:`WHOLE_NUMBERS` a whole number >= its least value (or null where allowed),
    ``signal_delay_s`` at most 65535 and, under a time limit, more than :data:`SIGNAL_EARLY_S` seconds
    below ``timeout_min`` x 60 (else SLURM may send USR2 as the job starts, and the run stops at once)."""
    for key, least, nullable, unit, example in WHOLE_NUMBERS:
        value = launcher.get(key)
        if value is None and nullable:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            shown = f"'{value}'" if isinstance(value, str) else value
            raise ConfigError(f"hydra.launcher.{key}={shown} must be a whole number of {unit} >= {least}"
                              f"{' (or null: not asked of sbatch)' if nullable else ''}, "
                              f"e.g. hydra.launcher.{key}={example}")
    delay, timeout = launcher.get("signal_delay_s"), launcher.get("timeout_min")
    if delay > SIGNAL_DELAY_MAX:
        raise ConfigError(f"hydra.launcher.signal_delay_s={delay} must be at most {SIGNAL_DELAY_MAX} "
                          f"seconds (sbatch --signal), e.g. hydra.launcher.signal_delay_s=120")
    if timeout > 0 and timeout * 60 - delay <= SIGNAL_EARLY_S:  # pass 74, row 20b: timeout_min=1 with
        # signal_delay_s=30 passed; USR2 came 2 s into the job, during its imports, and the launcher ended
        # in a traceback ("partially initialized module 'torch'")
        room = timeout * 60 - SIGNAL_EARLY_S - 1  # the longest delay that this limit leaves room for
        least = (delay + SIGNAL_EARLY_S) // 60 + 1  # the shortest limit that this delay leaves room in
        shorter = f", or hydra.launcher.signal_delay_s={min(120, room)}" if room >= 1 else ""
        raise ConfigError(f"hydra.launcher.signal_delay_s={delay} leaves {max(0, timeout * 60 - delay)} s "
                          f"of the time limit, hydra.launcher.timeout_min={timeout} ({timeout * 60} s), "
                          f"before SLURM's warning signal (USR2), which SLURM may send up to "
                          f"{SIGNAL_EARLY_S} s early (man sbatch, --signal): the run could be stopped as it "
                          f"starts. Fix: "
                          f"hydra.launcher.timeout_min={least} or longer{shorter}")


SINFO_TIMEOUT_S = 20  # a controller that gives no answer by then: sbatch would fail (or hang) too


def sinfo_partitions(launcher: str = "slurm") -> dict[str, tuple[int, int]] | None:
    """``{partition: (CPUs, memory in MB)}`` of each partition's largest node, from ``sinfo``; the
    default partition (marked ``*``) also under ``""``. ``None`` when ``sinfo`` is not installed.

    Raises:
        ConfigError: ``sinfo`` fails or gives no answer within :data:`SINFO_TIMEOUT_S` seconds: the
            SLURM controller does not answer (down, another host, a wrong ``SLURM_CONF``), so sbatch
            would fail after the sweep's folder is made. ``launcher`` names the launcher's option.
    """
    try:
        out = subprocess.run(["sinfo", "-h", "-N", "-o", "%P %c %m %G"], capture_output=True, text=True,
                             timeout=SINFO_TIMEOUT_S, check=True).stdout
    except FileNotFoundError:
        return None
    except (OSError, subprocess.SubprocessError) as err:
        if isinstance(err, subprocess.TimeoutExpired):
            why = f"timed out after {SINFO_TIMEOUT_S} s"
        elif isinstance(err, subprocess.CalledProcessError):
            lines = [line.strip() for line in (err.stderr or "").splitlines() if line.strip()]
            why = lines[-1] if lines else f"exit status {err.returncode}, no message"
        else:
            why = str(err)
        raise ConfigError(f"hydra/launcher={launcher}: the SLURM controller does not answer (sinfo: {why}). "
                          f"Fix: start it (the test cluster: sudo bash tests/cluster/slurm.sh start), or "
                          f"check SLURM_CONF / the controller host; or run the sweep without "
                          f"hydra/launcher") from err
    found: dict[str, tuple[int, int, int]] = {}
    for line in out.splitlines():
        try:
            name, cpus, memory, gres = line.split(maxsplit=3)
            cpus_n, memory_n = int(cpus), int(memory.rstrip("+"))
        except ValueError:
            continue
        gpus = sum(_gpu_count(item) for item in gres.split(","))  # gpu:2, gpu:a100:4(S:0-1), (null)
        keys = [name.rstrip("*")] + ([""] if name.endswith("*") else [])
        for key in keys:
            old = found.get(key, (0, 0, 0))
            found[key] = (max(old[0], cpus_n), max(old[1], memory_n), max(old[2], gpus))
    return found


def check_sbatch_accepts(config: DictConfig, overrides: list[str]) -> None:
    """Ask ``sbatch --test-only`` whether SLURM takes the jobs of this multirun, from the submission
    script that submitit writes for ``hydra.launcher`` (its own ``_make_sbatch_string``): a node feature
    it lacks (``constraint``), every node excluded (``exclude``), an account or QOS it does not know.
    Before, sbatch refused them at submission, after the sweep's folder was made, in a 30-line traceback
    of submitit's (pass 76, rows 58, 59). Nothing is submitted. An answer that does not come within
    :data:`SINFO_TIMEOUT_S` seconds is left to the submission.

    Raises:
        ConfigError: quoting sbatch's reason and naming the command line's ``hydra.launcher`` settings.
    """
    import tempfile
    from pathlib import Path

    import submitit
    from hydra_plugins.hydra_submitit_launcher.config import BaseQueueConf

    params = OmegaConf.to_container(config.hydra.launcher, resolve=True)
    init = {"slurm_max_num_timeout": params.pop("max_num_timeout", 0)}
    params = {k: v for k, v in params.items() if k not in ("_target_", "submitit_folder")}
    base = set(OmegaConf.structured(BaseQueueConf).keys())
    with tempfile.TemporaryDirectory(prefix="highwaylab-sbatch-") as folder:
        script = Path(folder) / "test.sh"
        try:  # submitit's own script; a release that builds it otherwise, or a parameter it refuses
            # itself, leaves the check to the submission, as before it
            executor = submitit.AutoExecutor(cluster="slurm", folder=folder, **init)
            executor.update_parameters(**{k if k in base else f"slurm_{k}": v for k, v in params.items()})
            script.write_text(executor._executor._make_submission_file_text("true", "test"))  # as submitted
        except Exception:
            return
        try:
            answer = subprocess.run(["sbatch", "--test-only", str(script)], capture_output=True, text=True,
                                    timeout=SINFO_TIMEOUT_S, cwd=folder)
        except (OSError, subprocess.SubprocessError):
            return
    if answer.returncode == 0:
        return
    lines = [line.strip() for line in answer.stderr.splitlines() if line.strip()]
    why = lines[-1].split("failed: ", 1)[-1].split("failure: ", 1)[-1].removeprefix("sbatch: error: ") \
        if lines else f"exit status {answer.returncode}"  # --test-only: "allocation failure: <reason>"
    given = [o.lstrip("+") for o in [*overrides, *(OmegaConf.select(config, "hydra.overrides.hydra") or [])]
             if o.lstrip("+~").startswith("hydra.launcher.")]
    which = (f"this command line sets {', '.join(given)}" if given else "the settings are hydra/launcher's "
             "(python train.py -m ... --cfg hydra -p hydra.launcher lists them)")
    raise ConfigError(f"sbatch refuses the jobs of this multirun (sbatch --test-only): {why}; {which}. "
                      f"Nothing was submitted. Fix: correct or leave out the setting at fault (sinfo -N -o "
                      f"'%N %P %f' lists the nodes, their partitions and features)")


def _gpu_count(item: str) -> int:
    """The GPUs of one GRES entry of ``sinfo``'s ``%G`` (``gpu:a100:4(S:0-1)``: 4); 0 for another."""
    parts = item.split("(")[0].split(":")
    if parts[0] != "gpu":
        return 0
    return int(parts[-1]) if parts[-1].isdigit() else 1


class LauncherCheck(Callback):
    """Hydra callback: before a multirun under the SLURM launcher builds its launcher, check that
    ``sbatch`` can be found, :func:`check_slurm_launcher` on the settings alone, then that the SLURM
    controller answers ``sinfo`` (:func:`sinfo_partitions`) and the settings against its partitions; a
    failure is one ``highwaylab:`` line on stderr and exit status 1, before anything is submitted and
    before the sweep's folder is made. Without ``sinfo`` (sbatch alone on the PATH) the partitions
    are not checked.

    Configured in ``conf/hydra/default.yaml`` (``hydra.callbacks.launcher_check``).
    """

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        if not is_slurm_launcher(config):
            return
        submitit = logging.getLogger("submitit")
        if not any(isinstance(f, SacctNote) for f in submitit.filters):
            submitit.addFilter(SacctNote())
        try:
            if shutil.which("sbatch") is None:
                raise ConfigError("hydra/launcher=slurm submits each job with SLURM's sbatch, which is not "
                                  "on this machine's PATH. Fix: run the sweep on a SLURM login node (or, for "
                                  "the test cluster, sudo bash tests/cluster/slurm.sh start).")
            overrides = list(config.hydra.overrides.task)
            check_slurm_launcher(config, overrides, None)  # the settings alone first: no wait on sinfo
            choice = OmegaConf.select(config, "hydra.runtime.choices", default=None) or {}
            partitions = sinfo_partitions(str(choice.get("hydra/launcher") or "slurm"))
            if partitions is not None:
                check_slurm_launcher(config, overrides, partitions)
                check_sbatch_accepts(config, overrides)
        except ConfigError as err:
            print(f"highwaylab: {err}", file=sys.stderr)
            sys.exit(1)
        signal.signal(signal.SIGINT, JobsGoOn(os.path.abspath(config.hydra.sweep.dir)))


class JobsGoOn:
    """The SIGINT handler of a SLURM multirun's launcher, which submits the jobs and then waits for
    their results: Ctrl-C ends it with one line saying that the jobs go on in SLURM and where their
    results go, and exit status 130 (pass 78, row 33: before, "interrupted by SIGINT during start-up:
    nothing was saved", the start-up's line, while a job's checkpoint was there)."""

    def __init__(self, sweep: str) -> None:
        self.sweep = sweep

    def __call__(self, signum: int, _frame: object = None) -> None:
        print(f"highwaylab: interrupted by {signal.Signals(signum).name} while the launcher waited for its "
              f"SLURM jobs: the jobs it submitted go on in SLURM (squeue lists them, scancel stops them), "
              f"and each writes its results and its line of summary.jsonl itself; python -m "
              f"highwaylab.report {shlex.quote(self.sweep)} lists them.", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signum)


class SacctNote(logging.Filter):
    """On the ``submitit`` logger: submitit's "Bypassing sacct error ... status may be inaccurate"
    warnings, which a cluster without job accounting (``sacct`` fails, as on the test cluster) gives
    at each poll, each printed three times (submitit's stdout and stderr handlers, and Hydra's log),
    become one line that says what they mean (pass 72, row 32b: before, 12 lines for a one-job sweep,
    read as a fault). submitit then tells a job's end by its result file, which the jobs write."""

    def __init__(self) -> None:
        super().__init__()
        self.said = False

    def filter(self, record: logging.LogRecord) -> bool:
        if "Bypassing sacct error" not in record.getMessage():
            return True
        if not self.said:
            self.said = True
            logging.getLogger(__name__).info(
                "This cluster has no job accounting (sacct fails, and prints 'Slurm accounting storage is "
                "disabled' at each poll), so submitit tells the jobs' ends by their result files: harmless; "
                "submitit's warnings about it ('status may be inaccurate') are left out")
        return False
