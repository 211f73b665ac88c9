"""TriGolden in sessions (``docs/rules/trigolden.md``): provisional turns, polygons, matches,
arbitration.

* Moves may also be given in the JSON form of the rules
  (``{"kind": "P", "flipped": true, "target": 7, "target_edge": 2, "edge": 1}``); they are
  stored in notation.
* Turns stay provisional until ``confirm`` (the default for TriGolden sessions).
* ``drawing`` gives every piece's polygon (float coordinates, counter-clockwise) for clients.
* A match is two games, the first player swapping; the score is the engine's points.
* Arbitration (``standard`` variant): claimed at the start of the claimant's turn; the
  arbiter (:func:`envs.trigolden.match.arbitrate`) looks for a legal complete turn; if there is
  one it is played and the claimant loses the match. A player who starts a turn with no legal
  complete turn has already won: the engine ends the game with outcome ``arbitration`` and the
  session ends the match at once in the claimant's favour.
"""

from __future__ import annotations

from typing import Any

from envs.core import Game
from envs.trigolden.match import arbitrate
from envs.trigolden.state import ARBITRATION
from serving.adapters import Adapter


class TriGoldenAdapter(Adapter):
    confirm_turns_default = True
    match_lengths = (1, 2)

    def move_from_json(self, game: Game, state: Any, move: dict[str, Any]) -> str:
        action = game.json_to_action(state, move)  # type: ignore[attr-defined]
        return game.action_to_move(state, action)

    def drawing(self, game: Game, state: Any) -> dict[str, Any]:
        return {"pieces": game.piece_polygons(state)}  # type: ignore[attr-defined]

    def score(self, game: Game, state: Any) -> list[float] | None:
        return [float(x) for x in state.scores]

    def decides_match(self, game: Game, state: Any) -> str | None:
        return "arbitration" if state.outcome == ARBITRATION else None

    def supports_arbitration(self, game: Game) -> bool:
        return game.config.variant == "standard"

    def arbitration_turn(self, game: Game, state: Any) -> list[int] | None:
        return arbitrate(game, state)  # type: ignore[arg-type]


ADAPTER = TriGoldenAdapter()
