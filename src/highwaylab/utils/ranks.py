"""The rank of this process as its launcher set it, before (or without) ``torch.distributed``.

Under ``torchrun`` and Lightning's own DDP launcher every process runs ``train.py``; under SLURM
(``hydra/launcher=slurm`` with ``tasks_per_node`` > 1) every task runs the whole Hydra job. Only
rank zero writes the job's records (``summary.jsonl``, ``metrics.json``, ``train.log``); each
further rank logs to ``train_ddp_process_<rank>.log``. Nothing here imports torch.
"""

from __future__ import annotations

import os

RANK_LOG = "train_ddp_process_{rank}"  # the name Lightning's DDP launcher gives its ranks' Hydra jobs


def env_rank() -> int:
    """The global rank from the environment: ``RANK`` (torchrun, Lightning's DDP launcher), else
    ``SLURM_PROCID`` (a task started by ``srun``), else 0."""
    for key in ("RANK", "SLURM_PROCID"):
        value = os.environ.get(key, "")
        if value.isdigit():
            return int(value)
    return 0


def log_name(job_name: str) -> str:
    """The name of this process's log file (without ``.log``): ``job_name`` on rank zero and for a
    job that Lightning already named per rank, else ``train_ddp_process_<rank>``. Registered as the
    ``${log_name:...}`` resolver for Hydra's file handler (``conf/hydra/default.yaml``)."""
    rank = env_rank()
    if rank == 0 or job_name.startswith(RANK_LOG.split("{", 1)[0]):
        return job_name
    return RANK_LOG.format(rank=rank)


def further_rank() -> bool:
    """Whether this process is a rank other than the first (Lightning's DDP children, torchrun, SLURM)."""
    return any(os.environ.get(name, "0") not in ("", "0") for name in ("LOCAL_RANK", "RANK", "SLURM_PROCID"))
