"""The LightningModule that trains a backbone."""

from highwaylab.module.classifier import ClassifierModule

__all__ = ["ClassifierModule"]
