"""What the trainer asks of the machine, checked before torch loads: ``trainer.precision`` is one of
Lightning's values, and ``trainer.accelerator`` names hardware this machine has. Lightning makes
the same checks when the ``Trainer`` is built, after the imports and after Hydra has made the run's
folder; here they cost microseconds and leave nothing behind.

The device probes read only device files and installed packages (no CUDA initialisation): on Linux
an NVIDIA driver makes ``/dev/nvidia<N>``, ROCm makes ``/dev/kfd`` and WSL makes ``/dev/dxg``.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import sys
from typing import Any

from omegaconf import DictConfig, OmegaConf

from highwaylab.errors import ConfigError, OutOfMemory

# Lightning's precision values (lightning.fabric.plugins.precision.precision._PRECISION_INPUT)
PRECISIONS = ("32-true", "16-mixed", "bf16-mixed", "16-true", "bf16-true", "64-true",
              "transformer-engine", "transformer-engine-float16", "64", "32", "16", "bf16")
# Lightning's accelerator names (AcceleratorRegistry, and its "gpu" and "auto")
ACCELERATORS = ("auto", "cpu", "gpu", "cuda", "mps", "tpu")
# the device files an NVIDIA driver makes, one per GPU (/dev/nvidia0, ...)
NVIDIA_DEVICES = "/dev/nvidia[0-9]*"


def nvidia_gpu_here() -> bool:
    """Whether this machine has an NVIDIA GPU: one of its driver's device files (``/dev/nvidia<N>``)
    exists. No CUDA initialisation, so it costs microseconds and works before torch loads."""
    return bool(glob.glob(NVIDIA_DEVICES))


def torch_import_problem(environ: dict[str, str] | None = None) -> str | None:
    """Import torch first where the environment sets the logging variables that torch parses as it
    loads (``TORCH_LOGS``, ``TORCH_LOGS_FORMAT``, ``TORCH_LOGS_OUT``), or under an address-space limit
    (``ulimit -v``), and return one line naming them when the import fails; ``None`` otherwise (torch is
    then not imported here: the cheap paths stay without it). Before (pass 67, row 30),
    ``TORCH_LOGS=recompile`` (for ``recompiles``) failed
    torch's import inside the config checks' import of Lightning, and a second import then ended in a
    segmentation fault: torch's own line ("Invalid log settings") never showed."""
    import resource

    env = os.environ if environ is None else environ
    given = sorted(k for k in env if k in ("TORCH_LOGS", "TORCH_LOGS_FORMAT", "TORCH_LOGS_OUT"))
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]  # ulimit -v, in bytes
    if not given and limit == resource.RLIM_INFINITY:
        return None
    if not given:  # pass 78, row 50 (major): before, a traceback from the config checks' import of torch,
        # or (a little more memory) C++'s std::bad_alloc, which aborts the process: tried in a child first
        import subprocess
        import sys

        tried = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True, text=True)
        if tried.returncode == 0:
            return None
        said = [line.strip() for line in tried.stderr.splitlines() if line.strip()]
        why = said[-1] if said else f"exit status {tried.returncode}"
        return (f"torch could not be loaded ({why}) under this process's address-space limit, "
                f"{address_limit(limit)}. Fix: raise the limit (ulimit -v unlimited, or a few GiB more), or "
                f"run where more memory is allowed")
    try:
        import torch  # noqa: F401
    except Exception as err:  # noqa: BLE001 - whatever torch raised, named in one line
        lines = str(err).strip().splitlines() or [type(err).__name__]
        end = next((n for n, line in enumerate(lines[:3]) if line.rstrip().endswith(".")), 0)
        reason = " ".join(" ".join(lines[:end + 1]).split()).rstrip(".")  # its first sentence, wrapped or not
        shown = ", ".join(f"{k}={env[k]}" for k in given)
        return (f"torch could not be imported ({type(err).__name__}: {reason}), with {shown} set in the "
                f"environment, which torch reads as it loads. Fix: correct or unset "
                f"{' '.join(given)} (python -c 'import torch' shows torch's own message in full)")
    return None


def address_limit(limit: int) -> str:
    """The address-space limit ``limit`` (bytes, ``RLIMIT_AS``) as ``ulimit -v`` shows it."""
    return f"ulimit -v {limit // 1024} (KiB; {limit / 2**30:.2f} GiB)"


def out_of_memory(err: BaseException) -> OutOfMemory | None:
    """The one-line :class:`~highwaylab.errors.OutOfMemory` for ``err`` itself, if it is memory
    exhausted: Python's ``MemoryError``, ``torch.OutOfMemoryError`` (a GPU), or the ``RuntimeError`` of
    torch's CPU allocator (no type of its own: told by the allocator's name, ``DefaultCPUAllocator``, in
    its message); ``None`` otherwise (pass 78, row 50: before, the allocator's traceback)."""
    import resource

    oom = getattr(sys.modules.get("torch"), "OutOfMemoryError", MemoryError)
    if not isinstance(err, MemoryError | oom) and not (
            isinstance(err, RuntimeError) and "DefaultCPUAllocator" in str(err)):
        return None
    first = " ".join((str(err).strip().splitlines() or [type(err).__name__])[0].split())
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    fix = (f"raise this process's address-space limit, {address_limit(limit)} (ulimit -v unlimited), or "
           f"lower data.batch_size" if limit != resource.RLIM_INFINITY else
           "lower data.batch_size, or run where more memory is free")
    return OutOfMemory(f"out of memory ({type(err).__name__}: {first[:200]}). Fix: {fix}")


def _torch_version() -> str:
    """torch's version, read from its package record (torch is not imported here)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("torch")
    except PackageNotFoundError:
        return "?"


def check_master_port(trainer: DictConfig, environ: dict[str, str] | None = None) -> None:
    """Raises ConfigError when a single-node DDP run is given a ``MASTER_PORT`` that another process
    already listens on (on this machine): rank 0's store could not open it, and the other rank, left
    waiting, ended after ``startup_timeout_s`` with a second error after the command had returned
    (pass 51, row 43). Runs only where this process starts the ranks itself (not under torchrun,
    SLURM or as a further rank, whose launcher owns the port)."""
    import errno
    import socket

    env = os.environ if environ is None else environ
    strategy = trainer.get("strategy")
    ddp = ("DDP" in str(strategy.get("_target_", "")) if OmegaConf.is_dict(strategy)
           else str(strategy).startswith("ddp"))
    port, host = env.get("MASTER_PORT", ""), env.get("MASTER_ADDR", "127.0.0.1")
    launched = any(name in env for name in ("LOCAL_RANK", "RANK", "SLURM_JOB_ID", "TORCHELASTIC_RUN_ID"))
    nodes = trainer.get("num_nodes", 1)
    node = next(((name, env[name]) for name in ("NODE_RANK", "GROUP_RANK") if env.get(name, "0").strip()
                 not in ("", "0")), None)
    debug = env.get("TORCH_DISTRIBUTED_DEBUG", "").strip()
    if ddp and debug.upper() == "DETAIL" and str(trainer.get("accelerator")) == "cpu":  # pass 67, row 39
        # (major): torch's gloo, with the per-collective checks of DETAIL, crashed (exit 139, no line)
        raise ConfigError(f"TORCH_DISTRIBUTED_DEBUG={debug} is set in the environment, and with it this DDP "
                          f"run on the CPU (gloo) ends in a segmentation fault as its ranks start (torch "
                          f"{_torch_version()}). Fix: TORCH_DISTRIBUTED_DEBUG=INFO, or unset it")
    if ddp and not launched and nodes in (1, None) and node is not None:  # pass 67, row 3 (major): a
        # multi-node run's leftover; before, 120 s of waiting, then the network blamed
        raise ConfigError(f"{node[0]}={node[1]} is set in the environment, and this DDP run has one node "
                          f"(trainer.num_nodes=1): Lightning would start it as node {node[1]} and wait for "
                          f"node 0, which never comes. Fix: unset {node[0]} (a multi-node run sets it on "
                          f"each node, with trainer.num_nodes=<n>)")
    if ddp and not launched and trainer.get("num_nodes", 1) in (1, None) and host.strip():
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:  # rank 0 of a single-node run listens at MASTER_ADDR: it must be this machine's
                probe.bind((host, 0))
            except OSError as err:  # pass 54, row 51: before, two lines among torch's C++ stack dumps,
                # after startup_timeout_s
                if err.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT) or isinstance(err, socket.gaierror):
                    raise ConfigError(f"MASTER_ADDR={host} (from the environment) is not an address of this "
                                      f"machine, where rank 0 of this single-node DDP run listens: the ranks "
                                      f"could not meet. Fix: unset MASTER_ADDR (Lightning uses 127.0.0.1)"
                                      ) from None
    if ddp and port and not launched and not (port.strip().isdigit() and 1 <= int(port) <= 65535):
        raise ConfigError(f"MASTER_PORT={port!r} (from the environment) is not a port (an integer in 1 .. "
                          f"65535), where rank 0 of this DDP run would listen. Fix: unset MASTER_PORT "
                          f"(Lightning picks a free port), or e.g. MASTER_PORT=29500")  # pass 59, row 26
    if not ddp or not port.isdigit() or launched or host not in ("127.0.0.1", "localhost") \
            or trainer.get("num_nodes", 1) not in (1, None):
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", int(port)))
        except OSError as err:
            if err.errno != errno.EADDRINUSE:
                return
            raise ConfigError(f"MASTER_PORT={port} is in use on this machine (another process listens "
                              f"there), so the DDP ranks could not meet at it. Fix: unset MASTER_PORT "
                              f"(Lightning picks a free port), or give a free one") from None


def cli_list(values: list) -> str:
    """``[0,1]``: a list as an override writes it."""
    return "[" + ",".join(str(v) for v in values) + "]"


def check_trainer_hardware(trainer: DictConfig, platform: str | None = None,
                           devices_glob: tuple[str, ...] = (NVIDIA_DEVICES, "/dev/kfd", "/dev/dxg"),
                           ) -> None:
    """Check ``trainer.precision`` and ``trainer.accelerator`` (an accelerator object, as a
    ``_target_`` mapping, is left to Lightning).

    Args:
        trainer: the run's ``cfg.trainer``.
        platform: ``sys.platform`` (for tests).
        devices_glob: the device files of which one must exist on Linux for ``gpu``/``cuda``.

    Raises:
        ConfigError: an unknown precision or accelerator, ``transformer-engine`` without
            ``transformer_engine``, ``tpu`` without ``torch_xla``, ``mps``
            off macOS, ``gpu``/``cuda`` on a Linux machine without a GPU device file.
    """
    precision: Any = trainer.get("precision")
    if precision is not None and not (precision in (16, 32, 64) and not isinstance(precision, bool)
                                      or str(precision) in PRECISIONS and isinstance(precision, str)):
        raise ConfigError(f"trainer.precision={precision!r} is not one of Lightning's precisions: "
                          f"{', '.join(PRECISIONS[:6])} (or 32, 16, 64, bf16). Fix: e.g. "
                          f"trainer.precision=bf16-mixed, or leave it out (32-true)")
    engine = str(precision).startswith("transformer-engine")
    if engine and importlib.util.find_spec("transformer_engine") is None:
        # pass 45, row 16: before, Lightning's "Requirement ... not met" under the key "trainer"
        raise ConfigError(f"trainer.precision={precision} needs NVIDIA's Transformer Engine (the "
                          f"transformer_engine package, for CUDA GPUs), which is not installed here. Fix: "
                          f"trainer.precision=bf16-mixed, or leave it out (32-true)")
    accelerator = trainer.get("accelerator")
    platform = sys.platform if platform is None else platform
    strategy = trainer.get("strategy")
    backend = strategy.get("process_group_backend") if OmegaConf.is_dict(strategy) else None
    no_gpu = platform.startswith("linux") and not any(glob.glob(pattern) for pattern in devices_glob)
    if isinstance(backend, str) and "nccl" in backend and accelerator in ("gpu", "cuda") and no_gpu:
        # trainer=ddp (GPUs over NCCL) on a machine without one: both settings at once (pass 54, row 52,
        # major: before, the backend's fix alone, and the accelerator refused after it)
        raise ConfigError(f"trainer.accelerator={accelerator} with trainer.strategy.process_group_backend="
                          f"{backend} (trainer=ddp's set-up, for CUDA GPUs): this machine has no GPU (no "
                          f"{', '.join(devices_glob)}). Fix: trainer=ddp_cpu (CPU processes over gloo; "
                          f"data.batch_size is per process)")
    if isinstance(backend, str) and "nccl" in backend and (accelerator == "cpu" or no_gpu):
        # pass 49, row 84 (major): before, a traceback per rank ("ProcessGroupNCCL is only supported with
        # GPUs"), and a run folder left behind that refused the corrected command
        where = "this run is on the CPU (trainer.accelerator=cpu)" if accelerator == "cpu" else (
            f"this machine has no GPU (no {', '.join(devices_glob)})")
        raise ConfigError(f"trainer.strategy.process_group_backend={backend} is NCCL, for CUDA GPUs, and "
                          f"{where}. Fix: trainer.strategy.process_group_backend=gloo (trainer=ddp_cpu's)")
    if isinstance(backend, str) and backend.strip() and backend.strip().lower() not in ("gloo", "nccl") \
            and ":" not in backend:  # ("cpu:gloo,cuda:nccl": a device-to-backend map, for torch to read)
        # pass 69, row 18 (major): mpi, which pip's torch is built without; before, "the DDP processes
        # did not all connect within 120 s", a rank kept running, and its log kept the run's folder
        import torch.distributed

        name = backend.strip().lower()
        if not torch.distributed.is_backend_available(name):
            raise ConfigError(f"trainer.strategy.process_group_backend={backend}: this torch has no "
                              f"{backend} backend (torch.distributed.is_backend_available('{name}') is "
                              f"False; pip's builds have gloo, and nccl with CUDA). Fix: "
                              f"trainer.strategy.process_group_backend=gloo (on the CPU) or nccl (on GPUs)")
    timeout = strategy.get("timeout") if OmegaConf.is_dict(strategy) else None
    if timeout is not None and not (OmegaConf.is_dict(timeout) and "_target_" in timeout):
        # pass 50, row 97 (major): before, +trainer.strategy.timeout.minutes=60 alone gave a traceback per
        # rank ("set_timeout(): incompatible function arguments")
        target = "+trainer.strategy.timeout._target_=datetime.timedelta"
        fix = (f"add {target} beside its fields" if OmegaConf.is_dict(timeout) else f"{target} "
               f"+trainer.strategy.timeout.minutes=60, in place of trainer.strategy.timeout={timeout}")
        shown = OmegaConf.to_container(timeout) if OmegaConf.is_dict(timeout) else timeout
        raise ConfigError(f"trainer.strategy.timeout={shown} is not a datetime.timedelta, which the process "
                          f"group takes. Fix: {fix}")
    devices = trainer.get("devices")
    on_cpu = accelerator == "cpu" or accelerator == "auto" and no_gpu
    if on_cpu and (OmegaConf.is_list(devices) or isinstance(devices, list)):
        # pass 51, row 20: before, Lightning's "`devices` selected with `CPUAccelerator` should be an int > 0"
        shown = OmegaConf.to_container(devices) if OmegaConf.is_list(devices) else devices
        why = "trainer.accelerator=cpu" if accelerator == "cpu" else "trainer.accelerator=auto, without a GPU"
        count = max(len(shown), 1)
        raise ConfigError(f"trainer.devices={cli_list(shown)} lists GPU indices, and this run is on the CPU "
                          f"({why}), which takes a count of processes. Fix: trainer.devices={count}, or "
                          f"trainer=gpu where CUDA is")
    if not isinstance(accelerator, str):
        return
    if accelerator not in ACCELERATORS:
        raise ConfigError(f"trainer.accelerator={accelerator!r} is not one of {', '.join(ACCELERATORS)}. "
                          f"Fix: trainer=cpu, or trainer=gpu where CUDA is")
    if accelerator == "tpu" and importlib.util.find_spec("torch_xla") is None:
        raise ConfigError("trainer.accelerator=tpu needs torch_xla, which is not installed here. Fix: "
                          "trainer=cpu (or trainer=gpu where CUDA is)")
    if accelerator == "mps" and platform != "darwin":
        raise ConfigError(f"trainer.accelerator=mps is Apple's GPU (macOS); this machine runs {platform}. "
                          f"Fix: trainer=cpu (or trainer=gpu where CUDA is)")
    if accelerator in ("gpu", "cuda") and platform.startswith("linux") \
            and not any(glob.glob(pattern) for pattern in devices_glob):
        from hydra.core.hydra_config import HydraConfig

        from highwaylab.config_checks import given_override

        given = given_override("trainer.accelerator")
        preset = HydraConfig.get().runtime.choices.get("trainer") if HydraConfig.initialized() else None
        fix = "on a machine without a GPU use trainer=cpu, or trainer=ddp_cpu for 2 CPU processes"
        if given is not None and not given.startswith("~") and preset in ("default", "cpu", "ddp_cpu"):
            # pass 94, row 31: trainer=cpu trainer.accelerator=gpu; before, "use trainer=cpu", given already
            fix = f"leave {given} out (trainer={preset} runs on the CPU here)"

        raise ConfigError(f"trainer.accelerator={accelerator}: this machine has no GPU (no "
                          f"{', '.join(devices_glob)}). Fix: {fix}")
