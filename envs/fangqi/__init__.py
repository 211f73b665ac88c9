"""Jieshou Fang Qi (界首方棋): rules engine, per ``docs/rules/fangqi.md``.

Modules, one job each: ``board`` (index map, bitboards, shape tables, symmetries), ``state``
(the frozen state), ``rules`` (legal actions and transitions), ``notation`` (``c3``, ``c3-c4``,
``xc3``), ``features`` (observation planes, symmetries of planes and actions), ``serialize``
(JSON, diagrams, rendering), ``game`` (the Game protocol class) and ``baseline`` (the greedy
player).
"""

from envs.fangqi.baseline import greedy_policy
from envs.fangqi.game import FangQi, FangQiConfig
from envs.fangqi.state import FangQiState

__all__ = ["FangQi", "FangQiConfig", "FangQiState", "greedy_policy"]
