"""Stereo Go in sessions (``docs/rules/stereo-go.md``): pass, resignation, the scoring phase,
resuming play, the main-time + byo-yomi clock.

* Pass is an ordinary move (``"pass"``); resignation is the engine's (``StereoGo.resign``), so
  a replay of the session's events gives the resigned state. Draw by agreement
  (``docs/rules/ladder.md``): a player offers on their turn, the other accepts or declines.
* Scoring phase: when a game ends by two passes the session does not end at once: the players
  mark dead chains (any stone of the chain), and the score is final when every human seat
  accepts the marks (AI seats accept any marks). Marks are scored by the engine
  (``StereoGo.score``) under the game's rule set and komi. The server proposes dead chains
  (``scoring.proposed``, a heuristic: :mod:`serving.adapters.go_dead`); they count only once
  a player marks them.
* Resuming play: instead of accepting, a person may resume play (``StereoGo.resume``: the
  player whose turn came after the second pass moves; the superko history is kept). It is an
  event of the game (``{"t": "resume"}``), so a replay rebuilds the continued game; marks and
  acceptances are dropped.
* Clock: main time, then byo-yomi periods (:class:`serving.clocks.ByoYomi`), by default
  600 s + 3 x 30 s per side; running out of everything loses on time. The clock stops in the
  scoring phase and restarts for the side to move when play resumes.
"""

from __future__ import annotations

from typing import Any

from envs.core import Game
from serving.adapters import Adapter
from serving.adapters.go_dead import propose_dead
from serving.clocks import ByoYomiConfig


class StereoGoAdapter(Adapter):
    supports_resign = True
    supports_draw_offers = True
    byo_yomi_default = ByoYomiConfig(main_time=600.0, periods=3, period_seconds=30.0)

    def resign(self, game: Game, state: Any, player: int) -> Any:
        return game.resign(state, player)  # type: ignore[attr-defined]

    def resume(self, game: Game, state: Any) -> Any:
        return game.resume(state)  # type: ignore[attr-defined]

    def scoring_phase(self, game: Game, state: Any) -> bool:
        return state.end_reason == "passes"

    def propose_dead(self, game: Game, state: Any) -> list[str]:
        names = game.board.names  # type: ignore[attr-defined]
        return [names[p] for p in propose_dead(state.board, game.board.nbr)]  # type: ignore[attr-defined]

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
