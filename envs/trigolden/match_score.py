"""The result of a TriGolden match from the final states of its games.

Match players are called ``A`` and ``B``: A is p1 of game 1 and p2 of game 2. Each player's
points from the two games are added; the higher total wins the match, equal totals draw. A game
that ends by arbitration decides the match at once: the claimant, the player who had no legal
complete turn, wins.

Why a module of its own: the Game protocol (``game.py``: ``match_returns``) and the match
driver (``match.py``, which plays through game.py) both score matches; with the scoring here,
match.py imports game.py and game.py imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from envs.core import IllegalMove
from envs.trigolden.state import ARBITRATION, ONGOING, TriGoldenState

MATCH_PLAYERS = ("A", "B")


@dataclass(frozen=True)
class MatchResult:
    """Totals per match player (A, B), the winner (0 = A, 1 = B, None = draw), and how."""

    totals: tuple[int, int]
    winner: int | None
    decided_by: str  # "score" or "arbitration"
    games: tuple[TriGoldenState, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": dict(zip(MATCH_PLAYERS, self.totals)),
            "winner": None if self.winner is None else MATCH_PLAYERS[self.winner],
            "decided_by": self.decided_by,
        }


def match_result(game1: TriGoldenState, game2: TriGoldenState | None) -> MatchResult:
    """Combine the final states of a match's games (A is p1 of game 1 and p2 of game 2)."""
    games = (game1,) if game2 is None else (game1, game2)
    totals = [game1.scores[0], game1.scores[1]]
    if game1.outcome == ARBITRATION:
        return MatchResult(tuple(totals), game1.claimant, "arbitration", games)  # type: ignore[arg-type]
    if game1.outcome == ONGOING:
        raise IllegalMove("match", "game 1 is not over")
    if game2 is None:
        raise IllegalMove("match", "game 1 ended on points; the match needs game 2")
    if game2.outcome == ONGOING:
        raise IllegalMove("match", "game 2 is not over")
    totals[0] += game2.scores[1]
    totals[1] += game2.scores[0]
    if game2.outcome == ARBITRATION:
        # In game 2, p1 is B (1) and p2 is A (0).
        return MatchResult(tuple(totals), 1 - game2.claimant, "arbitration", games)  # type: ignore[arg-type]
    winner = None if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
    return MatchResult(tuple(totals), winner, "score", games)  # type: ignore[arg-type]
