"""Exact solution of Jiugong by retrograde analysis.

Every position reachable from the start (board, side to move, shared-piece lock) is labelled
from the view of the side to move: WIN, LOSS or DRAW, with the distance to the end in plies
under optimal play (the winner hurries, the loser delays). Positions from which neither side
can force a win are draws: with optimal play they cycle until the repetition rule ends them.

The table is the ground truth for Jiugong: an opponent (``solver_policy``) and the judge of
trained agents (``training`` checks that the top level never worsens a solved outcome).
History-dependent draw rules (threefold repetition, the 200-ply cap) are not part of a
position; the solver ignores them, as the rules file says.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from envs.jiugong import (
    STEPS,
    Jiugong,
    JiugongState,
    legal_steps,
    position_key,
)

WIN, LOSS, DRAW = 1, -1, 0
OUTCOME_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}
Position = tuple[tuple[int, ...], int, bool]


def _child(pos: Position, action: int) -> Position:
    board, to_play, _ = pos
    f, t = STEPS[action]
    b = list(board)
    moved_shared = b[f] == 3
    b[t], b[f] = b[f], 0
    return tuple(b), 1 - to_play, moved_shared


@dataclass(frozen=True)
class SolvedValue:
    """The solved value of a position for the side to move."""

    outcome: int  # WIN, LOSS or DRAW
    distance: int | None  # plies to the end with optimal play; None for draws

    @property
    def name(self) -> str:
        return OUTCOME_NAMES[self.outcome]

    def __str__(self) -> str:
        if self.outcome == DRAW:
            return "draw"
        return f"{self.name} in {self.distance}"


class JiugongSolver:
    """The retrograde table over every position reachable from the start.

    Arrays are indexed by a dense position number; ``index`` maps position keys to it.
    """

    def __init__(
        self,
        keys: np.ndarray,
        outcome: np.ndarray,
        distance: np.ndarray,
    ) -> None:
        self.keys = keys
        self.outcome = outcome
        self.distance = distance
        self.index = {int(k): i for i, k in enumerate(keys)}
        self.game = Jiugong()

    # -------------------------------------------------------------- building
    @classmethod
    def build(cls) -> JiugongSolver:
        """Enumerate reachable positions, then propagate wins and losses backwards."""
        start: Position = ((1, 1, 1, 0, 0, 3, 2, 2, 2), 0, True)
        positions: list[Position] = [start]
        index = {start: 0}
        children: list[list[int]] = []
        queue = deque([start])
        while queue:
            pos = queue.popleft()
            kids = []
            for a in legal_steps(*pos):
                c = _child(pos, a)
                if c not in index:
                    index[c] = len(positions)
                    positions.append(c)
                    queue.append(c)
                kids.append(index[c])
            children.append(kids)
        # children[] was filled in BFS order, which is index order.
        n = len(positions)
        parents: list[list[int]] = [[] for _ in range(n)]
        for p, kids in enumerate(children):
            for c in kids:
                parents[c].append(p)
        outcome = np.zeros(n, dtype=np.int8)  # DRAW until proven otherwise
        distance = np.full(n, -1, dtype=np.int32)
        unresolved = np.array([len(k) for k in children], dtype=np.int32)
        frontier = deque()
        for p in range(n):
            if not children[p]:  # no legal move: the side to move loses at once
                outcome[p], distance[p] = LOSS, 0
                frontier.append(p)
        # Breadth-first by distance gives the optimal distances: a parent of a LOSS child is a
        # WIN at the first (smallest) distance reached; a parent all of whose children are
        # WINs is a LOSS at the last (largest) one, i.e. when its last child gets resolved.
        while frontier:
            c = frontier.popleft()
            for p in parents[c]:
                if distance[p] >= 0:
                    continue
                if outcome[c] == LOSS:
                    outcome[p], distance[p] = WIN, distance[c] + 1
                    frontier.append(p)
                else:
                    unresolved[p] -= 1
                    if unresolved[p] == 0:
                        outcome[p], distance[p] = LOSS, distance[c] + 1
                        frontier.append(p)
        keys = np.array([position_key(*pos) for pos in positions], dtype=np.int64)
        return cls(keys, outcome, distance)

    # -------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> None:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, keys=self.keys, outcome=self.outcome, distance=self.distance)
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> JiugongSolver:
        with np.load(path) as data:
            return cls(data["keys"], data["outcome"], data["distance"])

    # -------------------------------------------------------------- queries
    def __len__(self) -> int:
        return len(self.keys)

    def counts(self) -> dict[str, int]:
        return {name: int(np.count_nonzero(self.outcome == v)) for v, name in OUTCOME_NAMES.items()}

    def value(self, state: JiugongState) -> SolvedValue:
        """The solved value of a state's position for its side to move."""
        i = self.index.get(state.key)
        if i is None:
            raise KeyError("position is not reachable from the start of the game")
        d = int(self.distance[i])
        return SolvedValue(int(self.outcome[i]), d if d >= 0 else None)

    def move_values(self, state: JiugongState) -> dict[int, SolvedValue]:
        """For each legal action, the solved value of the result for the side that moved."""
        out = {}
        pos: Position = (state.board, state.to_play, state.shared_locked)
        for a in legal_steps(*pos):
            c = self.index[position_key(*_child(pos, a))]
            d = int(self.distance[c])
            out[a] = SolvedValue(-int(self.outcome[c]), d + 1 if d >= 0 else None)
        return out

    def optimal_actions(self, state: JiugongState) -> list[int]:
        """Actions that keep the solved outcome and are best by distance.

        Won: the fastest wins. Drawn: every drawing move. Lost: the slowest losses.
        """
        values = self.move_values(state)
        if not values:
            return []
        best = max(values.values(), key=_rank)
        return [a for a, v in values.items() if _rank(v) == _rank(best)]

    def preserving_actions(self, state: JiugongState) -> list[int]:
        """Actions that do not worsen the solved outcome (any distance)."""
        target = self.value(state).outcome
        return [a for a, v in self.move_values(state).items() if v.outcome >= target]

    def positions(self) -> list[JiugongState]:
        """Every reachable position, as a state without history."""
        return [self.game.state_from_position(*decode_key(int(k))) for k in self.keys]


def _rank(v: SolvedValue) -> tuple[int, int]:
    if v.outcome == WIN:
        return (2, -v.distance)
    if v.outcome == DRAW:
        return (1, 0)
    return (0, v.distance)


def decode_key(key: int) -> Position:
    """Inverse of ``position_key``."""
    locked = bool(key & 1)
    key >>= 1
    to_play = key & 1
    key >>= 1
    board = []
    for _ in range(9):
        board.append(key & 3)
        key >>= 2
    return tuple(reversed(board)), to_play, locked


DEFAULT_CACHE = Path.home() / ".cache" / "qizero" / "jiugong_solver.npz"


@lru_cache(maxsize=1)
def get_solver(cache: str | None = None) -> JiugongSolver:
    """The table, loaded from ``cache`` when it exists there, built (and saved) otherwise."""
    path = Path(cache) if cache else DEFAULT_CACHE
    if path.exists():
        try:
            return JiugongSolver.load(path)
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache is rebuilt
    solver = JiugongSolver.build()
    try:
        solver.save(path)
    except OSError:
        pass  # a read-only home still gets a working solver
    return solver


def solver_move(game: Jiugong, state: JiugongState, rng: np.random.Generator) -> int:
    """A perfect player: a random choice among the optimal actions. A module-level function, so
    that arena worker processes can receive it (each loads the cached table once)."""
    return int(rng.choice(get_solver().optimal_actions(state)))


def solver_policy() -> Any:
    """:func:`solver_move`, with the table loaded (or built) now rather than on the first move."""
    get_solver()
    return solver_move
