"""Check a shipped Jiugong level against the exact solver (perfect-play figures)."""

from training.cli import add_check_arguments as add_arguments
from training.cli import run_check as run

__all__ = ["add_arguments", "run"]
