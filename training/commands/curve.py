"""Rate checkpoints spread over a training run against fixed anchors: Elo against training time
(curve.json, TensorBoard, PNG)."""

from training.cli import add_curve_arguments as add_arguments
from training.cli import run_curve as run

__all__ = ["add_arguments", "run"]
