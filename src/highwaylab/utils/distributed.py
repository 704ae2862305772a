"""DDP that cannot hang at start-up, and one-line errors when a DDP process is lost.

:class:`DDPStrategy` is Lightning's, with a short timeout (``startup_timeout_s``, 120 s) for the
start-up only: the other ranks wait that long for rank 0's TCPStore at MASTER_ADDR:MASTER_PORT to
accept connections, then ``init_process_group`` (the store's barrier, the backend's connections)
gets that long. A rank that died or cannot connect ends every other rank after about that long with
:class:`DistributedStartError`, instead of the 30 minutes of the default. Once the processes are
connected, collectives use the strategy's ``timeout`` (Lightning's 30 minutes): rank 0 alone may
work for minutes (figures, lesioning) while the others wait at the next collective.

:func:`distributed_error` turns a failure of ``torch.distributed`` into one of these typed errors
by its type, where it was raised, and whether rank 0 still answers (never by its message);
``highwaylab.utils.task.user_error`` applies it, so that ``train.py`` prints one line and exits 1.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import time
from datetime import timedelta
from typing import Any

import torch
from lightning.pytorch.strategies import DDPStrategy as LightningDDPStrategy

from highwaylab.errors import ConfigError, HighwaylabError

STARTUP_TIMEOUT_KEY = "trainer.strategy.startup_timeout_s"
RANK_LOGS = "train.log for rank 0, train_ddp_process_<n>.log for rank n, in the run folder"


class DistributedStartError(HighwaylabError, RuntimeError):
    """The DDP processes did not all connect within ``trainer.strategy.startup_timeout_s``: another
    rank died or could not reach rank 0 (MASTER_ADDR, MASTER_PORT). Raised on each rank still alive.
    The message names the key, the address and the fix."""


class DistributedPeerLostError(HighwaylabError, RuntimeError):
    """A collective failed once the DDP processes were connected: another rank died or hung, or the
    network between them failed. The message names the rank logs to read and how to resume."""


class DDPStrategy(LightningDDPStrategy):
    """Lightning's ``DDPStrategy`` whose start-up waits at most ``startup_timeout_s`` for the others.

    Args:
        startup_timeout_s: seconds (> 0) the start-up waits for the other ranks: ranks > 0 wait that
            long for rank 0's TCPStore to accept connections, then ``init_process_group`` gets that
            long (the store's barrier, gloo's or NCCL's connections). After start-up the process
            group's timeout becomes ``timeout`` (a ``datetime.timedelta``; Lightning's 30 minutes).
        *args, **kwargs: Lightning's ``DDPStrategy`` arguments (``process_group_backend``,
            ``timeout``, ...; the rest go to ``DistributedDataParallel``).

    Raises:
        ConfigError: ``startup_timeout_s`` is not a positive number (names the config key).
        DistributedStartError: from ``setup_distributed``, when the start-up fails or times out.
    """

    def __init__(self, *args: Any, startup_timeout_s: float = 120.0, **kwargs: Any) -> None:
        if isinstance(startup_timeout_s, bool) or not isinstance(startup_timeout_s, int | float) \
                or not math.isfinite(startup_timeout_s) or startup_timeout_s <= 0:
            raise ConfigError(f"{STARTUP_TIMEOUT_KEY}={startup_timeout_s!r} must be a positive number of "
                              "seconds, e.g. 120.")
        super().__init__(*args, **kwargs)
        self.startup_timeout = timedelta(seconds=startup_timeout_s)

    def setup_distributed(self) -> None:
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            return super().setup_distributed()  # a later fit/test of this process: connected already
        self.set_world_ranks()
        if self.global_rank > 0 and self.cluster_environment is not None:
            # torch's TCPStore client retries a refused connection for 1 to 2.5 timeouts: wait here
            # for rank 0's store instead, so that a rank 0 that died ends this rank on time
            wait_for_rank_zero(self.cluster_environment.main_address, self.cluster_environment.main_port,
                               self.startup_timeout)
        collective_timeout, self._timeout = self._timeout, self.startup_timeout
        try:
            super().setup_distributed()
        except RuntimeError as err:
            # DistNetworkError, DistStoreError, DistBackendError; gloo's plain RuntimeError
            if isinstance(err, torch.distributed.DistError) or _raised_in_torch_distributed(err):
                raise start_error(err, self.startup_timeout, others=self.stop_started_ranks()) from err
            raise
        finally:
            self._timeout = collective_timeout
        set_group_timeout(collective_timeout or torch.distributed.constants.default_pg_timeout)

    def stop_started_ranks(self) -> str | None:
        """On rank 0 of a run whose other ranks Lightning's launcher started (``trainer=ddp_cpu``: its
        ``_SubprocessScriptLauncher``, as child processes of this one), when the start-up has failed:
        stop (SIGKILL, as Lightning's launcher does on Ctrl-C) each rank still running, and wait for it,
        so that no rank outlives rank 0 and writes into the run folder after this run has ended (pass 77,
        row 79: a rank still starting wrote its log and a ``csv/`` folder there after rank 0 had removed
        the folder of a run that trained nothing, and the corrected command was refused twice).

        Returns:
            What became of each such rank, for :func:`start_error` ("rank 1 was still starting, and is
            stopped"; "rank 1 had ended (exit status 1; ...)"); ``None`` where another launcher (SLURM,
            ``torchrun``) started the ranks, which this process cannot stop.
        """
        from lightning.pytorch.strategies.launchers.subprocess_script import _SubprocessScriptLauncher

        launcher = self.launcher
        if self.global_rank != 0 or not isinstance(launcher, _SubprocessScriptLauncher) or not launcher.procs:
            return None
        fates = []
        first = self.node_rank * self.num_processes  # the children are local ranks 1, 2, ... of this node
        for local_rank, proc in enumerate(launcher.procs, start=1):
            if (status := proc.poll()) is None:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                fates.append(f"rank {first + local_rank} was still starting, and is stopped")
            else:
                fates.append(f"rank {first + local_rank} had ended (exit status {status}; its output is "
                             "above)")
        return "; ".join(fates)


def wait_for_rank_zero(address: str, port: int, timeout: timedelta) -> None:
    """Wait until rank 0's TCPStore at ``address:port`` accepts a connection (each try is closed at
    once; the store ignores it).

    Raises:
        DistributedStartError: not within ``timeout`` (rank 0 died or cannot be reached).
    """
    deadline = time.monotonic() + timeout.total_seconds()
    while True:
        left = deadline - time.monotonic()
        try:
            with socket.create_connection((address, int(port)), timeout=max(0.1, min(5.0, left))):
                return
        except OSError as err:
            if left <= 0:
                raise start_error(err, timeout, f"{address}:{port}") from err
            time.sleep(min(0.5, max(left, 0.0)))


def set_group_timeout(timeout: timedelta) -> None:
    """Set the timeout of the default process group's later collectives (``torch.distributed.set_timeout``,
    ``_set_pg_timeout`` before torch 2.9)."""
    c10d = torch.distributed.distributed_c10d
    setter = getattr(torch.distributed, "set_timeout", None) or c10d._set_pg_timeout
    setter(timeout)


def start_error(err: BaseException, timeout: timedelta | None = None, address: str | None = None,
                others: str | None = None) -> DistributedStartError:
    """The one-line :class:`DistributedStartError` for ``err``, a failure of the start-up after
    ``timeout`` (when known); ``address`` is rank 0's ``host:port`` (default: MASTER_ADDR, MASTER_PORT);
    ``others`` is what became of the ranks that this process started and stopped
    (:meth:`DDPStrategy.stop_started_ranks`). Without it the other ranks' logs are named, in the run
    folder; with it they are not, since a run that trained nothing leaves no folder (train.py)."""
    waited = f" within {STARTUP_TIMEOUT_KEY}={timeout.total_seconds():g} s" if timeout is not None else ""
    address = address or f"{os.environ.get('MASTER_ADDR', '?')}:{os.environ.get('MASTER_PORT', '?')}"
    if others is None:
        return DistributedStartError(
            f"the DDP processes did not all connect{waited} ({_first_line(err)}): another rank died or "
            f"could not connect to rank 0 at MASTER_ADDR:MASTER_PORT={address}. Fix: read the other ranks' "
            f"output ({RANK_LOGS}); check that this address is reachable from every node and the port is "
            f"free; raise {STARTUP_TIMEOUT_KEY} if the ranks start slowly.")
    return DistributedStartError(
        f"the DDP processes did not all connect{waited} ({_first_line(err)}): {others}. Fix: raise "
        f"{STARTUP_TIMEOUT_KEY} if the ranks start slowly (120 is the default); check that rank 0's address, "
        f"MASTER_ADDR:MASTER_PORT={address}, is reachable and the port is free.")


def peer_lost_error(err: BaseException) -> DistributedPeerLostError:
    """The one-line :class:`DistributedPeerLostError` for ``err``, a failed collective."""
    rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else "?"
    return DistributedPeerLostError(
        f"rank {rank} lost another DDP process during the run ({_first_line(err)}): another rank died "
        f"or hung, or the network between them failed. Fix: read the other ranks' output ({RANK_LOGS}), "
        "then continue the run with python train.py resume=<run folder>.")


def distributed_error(err: BaseException) -> HighwaylabError | None:
    """The user-facing error for ``err`` itself (not its causes), if it is a failure of
    ``torch.distributed``: a ``torch.distributed.DistError`` (``DistNetworkError``,
    ``DistStoreError``, ``DistBackendError``); or, once the process group is up, a ``RuntimeError``
    (gloo raises a plain one when a peer's connection closes) raised inside ``torch.distributed``
    (a collective), or raised anywhere (e.g. in the backward pass's all-reduce) on a rank > 0 whose
    rank 0 no longer accepts connections at MASTER_ADDR:MASTER_PORT (rank 0 is gone).
    Before the process group is up it is a :class:`DistributedStartError`, after it a
    :class:`DistributedPeerLostError`; anything else (a bug) gives ``None``."""
    dist = getattr(torch, "distributed", None)
    if dist is None or not dist.is_available() or not isinstance(err, RuntimeError):
        return None
    if not dist.is_initialized():
        user: HighwaylabError | None = start_error(err) if isinstance(err, dist.DistError) else None
    elif isinstance(err, dist.DistError) or _raised_in_torch_distributed(err) or _rank_zero_gone():
        user = peer_lost_error(err)
    else:
        user = None
    if user is not None:
        user.__cause__ = err
    return user


def _rank_zero_gone() -> bool:
    """On a rank > 0 of a process group that is up: whether rank 0's TCPStore at MASTER_ADDR:MASTER_PORT
    (set by Lightning on every rank) refuses connections, or none comes within 2 s."""
    address, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if torch.distributed.get_rank() == 0 or not address or not port:
        return False
    try:
        with socket.create_connection((address, int(port)), timeout=2.0):
            return False
    except (OSError, ValueError):
        return True


def _raised_in_torch_distributed(err: BaseException) -> bool:
    """Whether the innermost Python frame of ``err``'s traceback is in a ``torch.distributed`` module."""
    tb = err.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return str(tb.tb_frame.f_globals.get("__name__", "")).startswith("torch.distributed")


def _first_line(err: BaseException, limit: int = 160) -> str:
    """``Type: first line of the message``, cut to ``limit`` characters: one line for the report."""
    text = f"{type(err).__name__}: {(str(err).strip().splitlines() or [''])[0].strip()}"
    return text if len(text) <= limit else text[: limit - 3] + "..."
