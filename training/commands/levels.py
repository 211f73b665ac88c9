"""Build the strength ladder from a training run, calibrate it, write levels.json."""

from training.cli import add_levels_arguments as add_arguments
from training.cli import run_levels as run

__all__ = ["add_arguments", "run"]
