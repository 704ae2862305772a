"""A training job under SLURM: preemption, the time limit and requeue, without losing the run.

What happens (README: Preemption and time limits):

- **Warning signal** (``USR2``, sent by SLURM ``hydra.launcher.signal_delay_s`` seconds before the
  time limit; submitit's ``--signal``): the run stops at the next batch boundary, saves
  ``checkpoints/last.ckpt``, closes its W&B run as preempted and requeues its own SLURM job
  (``scontrol requeue``).
- **SIGTERM** (``scontrol requeue``, a preemption with ``PreemptMode=REQUEUE``): the same, except
  that SLURM requeues the job itself.
- In both cases the job ends without a result, so the launcher keeps waiting for it, and no line is
  written to the sweep's ``summary.jsonl``.
- **SIGTERM without a requeue** (``scancel``, the time limit without the warning signal): the state
  is saved, the job is recorded ``interrupted`` in ``summary.jsonl`` with the command that resumes it,
  and it returns, so that the launcher gets its result and ends with the sweep's summary.
- **The rerun** (SLURM sets ``SLURM_RESTART_COUNT``) runs the same job in the same folder: it resumes
  from that ``last.ckpt`` (:func:`requeued_checkpoint`), continues the same W&B run id, and records
  the job once when it finishes.

Nothing here imports torch.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
from pathlib import Path

log = logging.getLogger(__name__)
WARNING_SIGNAL = signal.SIGUSR2  # submitit's --signal=USR2@<signal_delay_s>


def slurm_job_id() -> str | None:
    """This process's SLURM job as ``scontrol`` names it (``<array job>_<task>`` for an array task),
    or ``None`` outside a SLURM job (e.g. ``salloc`` shells count: ``SLURM_JOB_ID`` is set)."""
    array, task = os.environ.get("SLURM_ARRAY_JOB_ID"), os.environ.get("SLURM_ARRAY_TASK_ID")
    if array and task:
        return f"{array}_{task}"
    return os.environ.get("SLURM_JOB_ID") or None


def requeueable() -> bool:
    """Whether this process is a SLURM job started by the submitit launcher (hydra/launcher=slurm):
    SLURM reruns it as the same job, in the same folder. (A job of one's own ``sbatch`` script that
    runs ``python train.py`` gets a new run folder when rerun: resume it with ``resume=``.)"""
    return slurm_job_id() is not None and "SUBMITIT_FOLDER" in os.environ


def restart_count() -> int:
    """How often SLURM has requeued this job (``SLURM_RESTART_COUNT``; 0 for the first attempt)."""
    try:
        return int(os.environ.get("SLURM_RESTART_COUNT", "0"))
    except ValueError:
        return 0


def requeued_checkpoint(output_dir: str | Path) -> Path | None:
    """The checkpoint that a requeued SLURM job resumes from: ``<output_dir>/checkpoints/last.ckpt``
    when this is a rerun (:func:`restart_count` > 0) of a job of the SLURM launcher and the earlier
    attempt saved it; else ``None``
    (a first attempt, or one stopped before its first checkpoint: it starts again)."""
    if not requeueable() or restart_count() < 1:
        return None
    path = Path(output_dir) / "checkpoints" / "last.ckpt"
    return path if path.is_file() else None


def finished_rerun(output_dir: str | Path) -> dict | None:
    """The recorded metrics of a job that SLURM reran after it had finished (``scontrol requeue`` of a
    completed job, by hand: :func:`restart_count` > 0, and the folder holds ``metrics.json``), which is
    not to run again; ``None`` for any other start, or a ``metrics.json`` that cannot be read."""
    path = Path(output_dir) / "metrics.json"
    if not requeueable() or restart_count() < 1 or not path.is_file():
        return None
    try:
        metrics = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return metrics if isinstance(metrics, dict) else None


def requeue_expected(signum: int) -> bool:
    """Whether a run stopped by ``signum`` is to run again: in a job of the SLURM launcher, after the warning
    signal (this process requeues the job: :func:`requeue`), or after a SIGTERM that came with SLURM's
    requeue or a preemption (:func:`requeued_by_slurm`). A SIGTERM of ``scancel`` (or of the time
    limit) ends the job for good: the job then records itself as interrupted and returns, so that the
    launcher gets its result and goes on (pass 78, row 33, major: before, the job said "SLURM job 117
    is requeued; its rerun resumes here", no rerun came, and the launcher waited for ever)."""
    if not requeueable():
        return False
    return signum == int(WARNING_SIGNAL) or signum == int(signal.SIGTERM) and requeued_by_slurm()


def requeued_by_slurm() -> bool:
    """Whether SLURM has requeued this job since it started: ``scontrol show job`` counts more
    ``Restarts`` than this attempt's ``SLURM_RESTART_COUNT``. SLURM counts a requeue (``scontrol
    requeue``, a preemption) before it sends the job its SIGTERM; ``scancel`` leaves the count. Where
    ``scontrol`` cannot answer, a requeue is assumed (the state is saved either way, and a rerun that
    does not come is resumed by hand)."""
    job = slurm_job_id()
    try:
        shown = subprocess.run(["scontrol", "show", "job", str(job)], capture_output=True, text=True,
                               timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return True
    restarts = next((word.split("=", 1)[1] for word in shown.split() if word.startswith("Restarts=")), "")
    return not restarts.isdigit() or int(restarts) > restart_count()


def requeue(signum: int) -> None:
    """After the warning signal, requeue this SLURM job (``scontrol requeue <job>``); SIGTERM needs
    nothing (SLURM requeues a job it preempts or is told to requeue). A failure is logged, not raised:
    the checkpoint is saved, and ``resume=<run folder>`` continues the run by hand."""
    job = slurm_job_id()
    if signum != int(WARNING_SIGNAL) or job is None:
        return
    try:
        subprocess.run(["scontrol", "requeue", job], check=True, capture_output=True, text=True, timeout=60)
        log.info(f"SLURM job {job} requeued: its rerun resumes from checkpoints/last.ckpt")
    except (OSError, subprocess.SubprocessError) as err:
        detail = getattr(err, "stderr", "") or err
        log.error(f"could not requeue SLURM job {job} ({str(detail).strip()}); the state is saved: "
                  f"continue it with python train.py resume=<its run folder>")
