"""Stereo Go (立体围棋): Go on the 359-point cylinder, and on plain N×N boards to check it.

Modules: ``board`` (board graphs, notation, observation grid, symmetries), ``kernel`` (the
compiled rules: chains, liberties, superko, end-of-game scoring), ``scoring`` (either rule set
with dead chains), ``game`` (the Game protocol), ``sgf`` (game records). See
``docs/stereo_go.md`` for the rule decisions.
"""

from envs.stereo_go.game import Score, StereoGo, StereoGoConfig, StereoGoState

__all__ = ["Score", "StereoGo", "StereoGoConfig", "StereoGoState"]
