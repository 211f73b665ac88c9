"""Stereo Go in sessions (``rules/stereo-go.md``): pass, resignation, the scoring phase.

* Pass is an ordinary move (``"pass"``); resignation is the engine's (``StereoGo.resign``), so
  a replay of the session's events gives the resigned state.
* Scoring phase: when a game ends by two passes the session does not end at once: the players
  mark dead chains (any stone of the chain), and the score is final when every human seat
  accepts the marks (AI seats accept any marks). Marks are scored by the engine
  (``StereoGo.score``) under the game's rule set and komi.
* *(not offered)* Resuming play after the passes, and the main-time/byo-yomi clock: the engine
  has no way to continue a game ended by passes, and the rules' time control is not a per-turn
  timer; sessions of Stereo Go have no timer.
"""

from __future__ import annotations

from typing import Any

from envs.core import Game
from serving.adapters import Adapter


class StereoGoAdapter(Adapter):
    supports_resign = True

    def resign(self, game: Game, state: Any, player: int) -> Any:
        return game.resign(state, player)  # type: ignore[attr-defined]

    def scoring_phase(self, game: Game, state: Any) -> bool:
        return state.end_reason == "passes"

    def final_score(self, game: Game, state: Any, dead: list[str]) -> dict[str, Any]:
        sc = game.score(state, dead=tuple(dead))  # type: ignore[attr-defined]
        return {
            "points": [float(sc.black), float(sc.white) + sc.komi],
            "winner": sc.winner,
            "detail": {
                "rules": sc.rules,
                "komi": sc.komi,
                "margin": sc.margin,
                "territory": [sc.black_territory, sc.white_territory],
                "stones": [sc.black_stones, sc.white_stones],
                "prisoners": [sc.black_prisoners, sc.white_prisoners],
                "dead": [sc.dead_black, sc.dead_white],
            },
        }

    def score(self, game: Game, state: Any) -> list[float] | None:
        return None


ADAPTER = StereoGoAdapter()
