"""Export AI levels' networks to ONNX (dynamic batch, self-describing metadata)."""

from training.cli import add_export_arguments as add_arguments
from training.cli import run_export as run

__all__ = ["add_arguments", "run"]
