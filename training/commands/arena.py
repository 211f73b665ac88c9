"""Play a seeded round robin between players and fit Elo ratings (random = 0)."""

from training.cli import add_arena_arguments as add_arguments
from training.cli import run_arena as run

__all__ = ["add_arguments", "run"]
