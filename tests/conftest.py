"""Shared fixtures: the real MNIST folder, and the training config composed once, tiny and on CPU."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from omegaconf import DictConfig

from highwaylab.utils import compose_config, register_resolvers

register_resolvers()  # as train.py does at import: ${net_depth:} and the others, whatever test runs first
ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("HIGHWAYLAB_DATA_DIR", ROOT.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session", autouse=True)
def _offline_env(tmp_path_factory):
    """W&B offline, and its settings and caches (and the data checksums' cache) kept out of $HOME,
    for the whole session."""
    home = tmp_path_factory.mktemp("wandb_home")
    env = {"WANDB_MODE": "offline", "WANDB_SILENT": "true", "WANDB_CONFIG_DIR": str(home),
           "WANDB_CACHE_DIR": str(home), "WANDB_DATA_DIR": str(home),
           "XDG_CACHE_HOME": str(home / "cache"),  # the data's checksum cache, for read-only data folders
           "HIGHWAYLAB_DATA_DIR": str(DATA_DIR), "HIGHWAYLAB_ROOT": str(ROOT)}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    yield
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The folder with the real MNIST/raw and FashionMNIST/raw (../shared/data or HIGHWAYLAB_DATA_DIR)."""
    if not (DATA_DIR / "MNIST" / "raw" / "train-images-idx3-ubyte").is_file():
        pytest.fail(f"the real MNIST is not in {DATA_DIR}: set HIGHWAYLAB_DATA_DIR to the folder "
                    "that holds MNIST/raw/ (see README)")
    return DATA_DIR


# A suite started in the background by a non-interactive shell (`bash .ci/run > log &`) inherits Ctrl-C
# (SIGINT) ignored, and so would every tool its tests start, which the Ctrl-C tests then could not stop. A
# handler set here is reset to the default in each child (an ignored signal would stay ignored).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment of a ``train.py`` subprocess: this one's, without the address of the W&B
    service that an in-process ``wandb.init`` of this pytest process started (``WANDB_SERVICE``);
    a child would otherwise share it, and a killed child's run would stay "in use" there."""
    return {k: v for k, v in os.environ.items() if k != "WANDB_SERVICE"} | extra


def compose_cfg(overrides: list[str], output_dir: Path) -> DictConfig:
    """Compose conf/train.yaml with the Hydra config set, as ``python train.py <overrides>`` would."""
    return compose_config(ROOT / "conf", overrides, output_dir)


TINY = ["trainer=cpu", "depth=4", "width=16", "trainer.max_epochs=1",
        "trainer.limit_train_batches=4", "trainer.limit_val_batches=2",
        "trainer.limit_test_batches=2", "~callbacks.rich_progress_bar",
        "~callbacks.model_summary", "logger=none"]


@pytest.fixture
def cfg_tiny(tmp_path, data_dir) -> DictConfig:
    """A tiny CPU run without logger: 4-layer, width-16 highway net, 4 training batches."""
    return compose_cfg(TINY, tmp_path)


@contextlib.contextmanager
def protected(path: Path) -> Iterator[Path]:
    """``path`` made immutable for the block (``chattr +i``: not even root may change it, as a protected
    file on a shared disk); the test is skipped where ``chattr`` is not available."""
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        yield path
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)
