"""Lightning callbacks that look inside the depth; one concern each, logging on rank zero."""

from highwaylab.callbacks.carry_stripes import CarryStripeMonitor
from highwaylab.callbacks.chance import ChanceWarning
from highwaylab.callbacks.epoch_log import EpochLogger
from highwaylab.callbacks.gate_stats import GateStatsMonitor
from highwaylab.callbacks.grad_norms import LayerGradNormMonitor
from highwaylab.callbacks.latest_checkpoint import LatestCheckpoint, StopOnSignal
from highwaylab.callbacks.lesion import LesionMonitor
from highwaylab.callbacks.nonfinite_guard import NonFiniteError, NonFiniteGuard
from highwaylab.callbacks.run_folder_moved import RunFolderMoved

__all__ = ["CarryStripeMonitor", "ChanceWarning", "EpochLogger", "GateStatsMonitor", "LatestCheckpoint",
           "LayerGradNormMonitor", "LesionMonitor", "NonFiniteError", "NonFiniteGuard", "RunFolderMoved",
           "StopOnSignal"]
