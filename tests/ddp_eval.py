"""Evaluate the same weights on MNIST with one CPU process or several (DDP, gloo), and write what
each stage measured to a JSON file (rank 0): the helper of tests/test_ddp_exact.py.

    python tests/ddp_eval.py WEIGHTS OUT_JSON DEVICES DATA_DIR VAL_SIZE TEST_SIZE

Lightning starts ranks 1.. by rerunning this command. The stages: ``fit`` (one training batch at
learning rate 0, so the weights stay those of WEIGHTS, then the epoch's validation, with the model
wrapped in DistributedDataParallel), ``validate`` and ``test``. For each, the JSON holds the logged
metrics, and, summed over the ranks at the epoch's end, the examples seen, the sum of their labels
and of their pixels, and the weight total of the ``MeanMetric`` behind ``<stage>/loss``.
"""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

import lightning as L
import torch

from highwaylab.data import InMemoryBatches, MNISTDataModule
from highwaylab.models import FCBackbone
from highwaylab.module import ClassifierModule
from highwaylab.utils.distributed import DDPStrategy

DEPTH, WIDTH, BATCH = 2, 8, 128


def build_module() -> ClassifierModule:
    """A depth-2, width-8 highway net; SGD at learning rate 0 (``fit`` leaves the weights as they are)."""
    net = FCBackbone("highway", DEPTH, WIDTH, (1, 28, 28), 10)
    return ClassifierModule(net, 10, optimizer=partial(torch.optim.SGD, lr=0.0))


class TrimmedTest(MNISTDataModule):
    """MNIST with its test set cut to the first ``test_size`` examples (an uneven size for the test)."""

    def __init__(self, test_size: int, **kwargs) -> None:
        super().__init__(**kwargs)
        self.test_size = test_size

    def setup(self, stage: str | None = None) -> None:
        super().setup(stage)
        if len(self.data_test) > self.test_size:
            n = self.test_size
            self.data_test = InMemoryBatches(self.data_test.x[:n], self.data_test.y[:n])


class CountExamples(L.Callback):
    """What each validation and test epoch saw, summed over the ranks at the epoch's end."""

    def __init__(self) -> None:
        self.seen: dict[str, torch.Tensor] = {}
        self.results: dict[str, list[dict]] = {}

    def _start(self, stage: str) -> None:
        self.seen[stage] = torch.zeros(4, dtype=torch.float64)  # examples, label sum, pixel sum, batches

    def _batch(self, stage: str, batch) -> None:
        x, y = batch
        self.seen[stage] += torch.tensor([len(y), float(y.sum()), float(x.double().sum()), 1.0],
                                         dtype=torch.float64)

    def _end(self, trainer: L.Trainer, pl_module: ClassifierModule, stage: str) -> None:
        local = self.seen[stage]
        total = trainer.strategy.reduce(local.clone(), reduce_op="sum")  # an epoch-end collective
        per_rank = trainer.strategy.all_gather(local[0].clone()).reshape(-1)
        loss = pl_module.losses[f"{stage}_loss"]
        with loss.sync_context(should_unsync=True):  # the states compute() would use
            weight = float(loss.weight)
        self.results.setdefault(stage, []).append({
            "examples": int(total[0]), "label_sum": float(total[1]), "pixel_sum": float(total[2]),
            "batches": int(total[3]), "examples_per_rank": [int(n) for n in per_rank.tolist()],
            "loss_weight": weight})

    def on_validation_epoch_start(self, trainer, pl_module) -> None:
        self._start("val")

    def on_test_epoch_start(self, trainer, pl_module) -> None:
        self._start("test")

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx,
                                dataloader_idx=0) -> None:
        self._batch("val", batch)

    def on_test_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0) -> None:
        self._batch("test", batch)

    def on_validation_epoch_end(self, trainer, pl_module) -> None:
        self._end(trainer, pl_module, "val")

    def on_test_epoch_end(self, trainer, pl_module) -> None:
        self._end(trainer, pl_module, "test")


def group_timeout_s() -> float | None:
    """The default process group's timeout for collectives, in seconds (None without one)."""
    if not (torch.distributed.is_available() and torch.distributed.is_initialized()):
        return None
    backend = torch.distributed.distributed_c10d._get_default_group()._get_backend(torch.device("cpu"))
    return backend.options._timeout.total_seconds()


def evaluate(weights: Path, out: Path, devices: int, data_dir: str, val_size: int, test_size: int) -> None:
    """Run the three stages with ``devices`` CPU processes; rank 0 writes ``out``."""
    L.seed_everything(0)
    datamodule = TrimmedTest(test_size, data_dir=data_dir, val_size=val_size, batch_size=BATCH)
    module = build_module()
    module.load_state_dict(torch.load(weights, weights_only=True))
    count = CountExamples()
    strategy = DDPStrategy(process_group_backend="gloo", startup_timeout_s=60) if devices > 1 else "auto"
    trainer = L.Trainer(accelerator="cpu", devices=devices, strategy=strategy, max_epochs=1,
                        limit_train_batches=1, num_sanity_val_steps=0, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        callbacks=[count], default_root_dir=str(out.parent))
    trainer.fit(module, datamodule=datamodule)
    metrics = {"fit": {k: float(v) for k, v in trainer.callback_metrics.items() if k.startswith("val/")}}
    metrics["validate"] = {k: float(v) for k, v in trainer.validate(module, datamodule=datamodule,
                                                                    verbose=False)[0].items()}
    metrics["test"] = {k: float(v) for k, v in trainer.test(module, datamodule=datamodule,
                                                            verbose=False)[0].items()}
    if trainer.global_rank == 0:
        sets = {"val": datamodule.data_val, "test": datamodule.data_test}
        out.write_text(json.dumps({
            "world_size": trainer.world_size, "metrics": metrics, "counts": count.results,
            "module_examples": {"val": module.val_examples, "test": module.test_examples},
            "group_timeout_s": group_timeout_s(),
            "sets": {k: {"examples": len(d.y), "label_sum": float(d.y.sum()),
                         "pixel_sum": float(d.x.double().sum())} for k, d in sets.items()}}, indent=1))


if __name__ == "__main__":
    weights_arg, out_arg, devices_arg, data_dir_arg, val_arg, test_arg = sys.argv[1:7]
    evaluate(Path(weights_arg), Path(out_arg), int(devices_arg), data_dir_arg, int(val_arg), int(test_arg))
