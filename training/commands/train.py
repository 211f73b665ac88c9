"""Train an agent by self-play from a YAML config (resume from any checkpoint)."""

from training.cli import add_train_arguments as add_arguments
from training.cli import run_train as run

__all__ = ["add_arguments", "run"]
