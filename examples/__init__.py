"""Example games built on the Game protocol outside ``envs`` (docs/adding_a_game.md)."""
