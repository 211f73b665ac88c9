"""Refit a run's network so its value predicts the mean result of random playouts: a search
over it then needs no playouts (training.value_fit)."""

from training.cli import add_value_fit_arguments as add_arguments
from training.cli import run_value_fit_command as run

__all__ = ["add_arguments", "run"]
