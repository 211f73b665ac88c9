"""Opening variety: a searching player that varies its opening among near-equal moves.

Why: a level at temperature 0 plays the same move in the same position, so a person who
finds a line that beats it can replay that line game after game (the ranking ladder's
farming, ``docs/ladder.md``). Drawing among the moves the search itself rates about as good
as its choice, for the first plies only, makes two games from the same start part early
while the level keeps its strength. A move is a *candidate* when

* the choice was searched (it has visits): the move has at least ``visits`` of the choice's
  visit count and a value at most ``margin`` below the choice's (values in [-1, 1] for the
  player to move, so 0.03 is 1.5 points of winning probability);
* the choice was not searched (a level without simulations plays its network's prior): the
  move has at least ``share`` of the choice's prior (policy weight).

The choice is always a candidate; the move played is drawn uniformly among the candidates
with the rng given (the service seeds it per game and ply, so a game is reproducible).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from agents.search import SearchResult


@dataclass(frozen=True)
class OpeningVariety:
    """The opening variety rule's parameters (see the module docstring)."""

    plies: int = 20  # vary while fewer than this many moves of the game were made
    visits: float = 0.4  # searched: a candidate's visits are at least this share of the choice's
    margin: float = 0.03  # searched: and its value at most this far below the choice's
    share: float = 0.5  # not searched: a candidate's prior is at least this share of the choice's

    def __post_init__(self) -> None:
        if (self.plies < 0 or not 0.0 < self.visits <= 1.0 or self.margin < 0.0
                or not 0.0 < self.share <= 1.0):
            raise ValueError(f"bad opening variety {self}: plies >= 0, 0 < visits <= 1, "
                             "margin >= 0, 0 < share <= 1")

    def applies(self, ply: int) -> bool:
        """Whether a move made after ``ply`` moves of the game is varied."""
        return ply < self.plies

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(data: dict[str, Any]) -> OpeningVariety:
        return OpeningVariety(int(data["plies"]), float(data["visits"]), float(data["margin"]),
                              float(data["share"]))


def candidates(result: SearchResult, variety: OpeningVariety) -> np.ndarray:
    """The actions the rule may play instead of ``result.action`` (which is always one)."""
    best = result.action
    if result.visits[best] > 0:
        ok = ((result.visits >= variety.visits * result.visits[best])
              & (result.q >= result.q[best] - variety.margin))
    else:
        policy = np.asarray(result.policy, dtype=np.float64)
        if policy[best] <= 0.0:  # a choice the policy does not weigh: nothing is near it
            return np.asarray([best])
        ok = policy >= variety.share * policy[best]  # > 0: never an illegal action
    ok[best] = True
    return np.flatnonzero(ok)


def varied_action(
    result: SearchResult, variety: OpeningVariety, rng: np.random.Generator
) -> int:
    """One of :func:`candidates`, drawn uniformly."""
    acts = candidates(result, variety)
    return int(acts[rng.integers(len(acts))]) if len(acts) > 1 else int(acts[0])
