"""Lightning callbacks that look inside the depth; one concern each, logging on rank zero.

The names below are imported on first use (PEP 562), so that ``highwaylab.callbacks.options``, the
torch-free checks of the callbacks' config, loads without torch.
"""

from highwaylab.lazy import lazy_exports

__getattr__, __all__ = lazy_exports(__name__, {
    "highwaylab.callbacks.carry_stripes": ("CarryStripeMonitor",),
    "highwaylab.callbacks.chance": ("ChanceWarning",),
    "highwaylab.callbacks.epoch_log": ("EpochLogger",),
    "highwaylab.callbacks.gate_stats": ("GateStatsMonitor",),
    "highwaylab.callbacks.grad_norms": ("LayerGradNormMonitor",),
    "highwaylab.callbacks.latest_checkpoint": ("LatestCheckpoint", "StopOnSignal"),
    "highwaylab.callbacks.lesion": ("LesionMonitor",),
    "highwaylab.callbacks.lr_monitor": ("LearningRateMonitor",),
    "highwaylab.callbacks.nonfinite_guard": ("NonFiniteError", "NonFiniteGuard"),
    "highwaylab.callbacks.run_folder_moved": ("RunFolderMoved",),
})
