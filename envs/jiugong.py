"""Jiugong Shuang Cheng (九宫双承棋): rules engine, per ``docs/rules/jiugong.md``.

Board: 3x3 points, each joined to its horizontal and vertical neighbours. Points are a flat
index, rank by rank from the bottom::

    rank 3   6 7 8        a3 b3 c3     North starts here
    rank 2   3 4 5        a2 b2 c2     the shared piece starts on c2 (index 5)
    rank 1   0 1 2        a1 b1 c1     South starts here, and moves first
             a b c

Cell values: 0 empty, 1 South, 2 North, 3 the shared piece.

Action space: the 24 directed steps along the 12 lines of the grid (``STEPS``), in order of
(from, to). A step is legal when the piece on ``from`` is the mover's own piece, or the shared
piece while it is not locked, and ``to`` is empty. Notation: ``b1-b2``.

The shared-piece lock is one flag: true at the start and right after any shared-piece move,
false after a move of an own piece. Game end: the side to move with no legal step loses at once;
a position (board, side to move, lock) occurring for the third time, or 200 plies without a
result, is a draw.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.boards import fact, special_board
from envs.core import Game, GameSpec, IllegalMove, InvalidState

EMPTY, SOUTH_PIECE, NORTH_PIECE, SHARED = 0, 1, 2, 3
SOUTH, NORTH = 0, 1
PLAYER_NAMES = ("south", "north")
MAX_PLIES = 200
REPETITIONS_FOR_DRAW = 3

FILES = "abc"
POINT_NAMES = tuple(f"{FILES[i % 3]}{i // 3 + 1}" for i in range(9))
_POINT_INDEX = {name: i for i, name in enumerate(POINT_NAMES)}


def _neighbours(p: int) -> list[int]:
    r, c = divmod(p, 3)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < 3 and 0 <= cc < 3:
            out.append(rr * 3 + cc)
    return out


#: Directed steps (from, to), the fixed action space.
STEPS: tuple[tuple[int, int], ...] = tuple(
    (p, q) for p in range(9) for q in sorted(_neighbours(p))
)
NUM_ACTIONS = len(STEPS)  # 24
_STEP_INDEX = {step: i for i, step in enumerate(STEPS)}
_MIRROR_POINT = tuple((p // 3) * 3 + (2 - p % 3) for p in range(9))
#: Action permutation of the left-right mirror (files a <-> c).
MIRROR_ACTIONS = np.array(
    [_STEP_INDEX[(_MIRROR_POINT[f], _MIRROR_POINT[t])] for f, t in STEPS], dtype=np.int64
)
_MIRROR_POINTS_ARRAY = np.array(_MIRROR_POINT)

INITIAL_BOARD = (1, 1, 1, 0, 0, 3, 2, 2, 2)

# Outcome codes stored in the state.
ONGOING, SOUTH_WINS, NORTH_WINS, DRAW = -1, 0, 1, 2


@dataclass(frozen=True)
class JiugongConfig:
    """Jiugong has no options; the class exists so every game is configured the same way."""


@dataclass(frozen=True)
class JiugongState:
    """A position with the history the draw rules need.

    ``history`` holds the position key of every position so far (including this one), for the
    threefold-repetition rule. ``outcome`` and ``legal`` (the legal step indices, the hot path
    of search) are fixed when the state is created.
    """

    board: tuple[int, ...]
    to_play: int
    shared_locked: bool
    ply: int = 0
    history: tuple[int, ...] = field(default=(), repr=False)
    outcome: int = ONGOING
    legal: tuple[int, ...] = field(default=(), repr=False)

    @property
    def key(self) -> int:
        return position_key(self.board, self.to_play, self.shared_locked)


def position_key(board: tuple[int, ...], to_play: int, shared_locked: bool) -> int:
    """A unique integer for (board, side to move, lock): what the repetition rule compares."""
    k = 0
    for v in board:
        k = k * 4 + v
    return (k * 2 + to_play) * 2 + int(shared_locked)


def legal_steps(board: tuple[int, ...], to_play: int, shared_locked: bool) -> list[int]:
    """Indices into STEPS that the side to move may play (ignoring whether the game is over)."""
    own = SOUTH_PIECE if to_play == SOUTH else NORTH_PIECE
    out = []
    for i, (f, t) in enumerate(STEPS):
        piece = board[f]
        if board[t] == EMPTY and (piece == own or (piece == SHARED and not shared_locked)):
            out.append(i)
    return out


def _make_state(
    board: tuple[int, ...], to_play: int, shared_locked: bool, ply: int, history: tuple[int, ...]
) -> JiugongState:
    key = position_key(board, to_play, shared_locked)
    history = history + (key,)
    legal = tuple(legal_steps(board, to_play, shared_locked))
    if not legal:
        outcome = NORTH_WINS if to_play == SOUTH else SOUTH_WINS
    elif ply >= MAX_PLIES or history.count(key) >= REPETITIONS_FOR_DRAW:
        outcome = DRAW
    else:
        outcome = ONGOING
    if outcome != ONGOING:
        legal = ()
    return JiugongState(board, to_play, shared_locked, ply, history, outcome, legal)


class Jiugong(Game[JiugongState]):
    """Jiugong Shuang Cheng on the Game protocol."""

    Config = JiugongConfig

    _SPEC = GameSpec(
        id="jiugong",
        name="Jiugong Shuang Cheng 九宫双承棋",
        player_names=PLAYER_NAMES,
        num_actions=NUM_ACTIONS,
        observation_shape=(4, 3, 3),
        max_length=MAX_PLIES,
        num_symmetries=2,
        turn_seconds=60.0,
    )

    @property
    def spec(self) -> GameSpec:
        return self._SPEC

    # ------------------------------------------------------------ array level
    def initial_state(self) -> JiugongState:
        return _make_state(INITIAL_BOARD, SOUTH, True, 0, ())

    def state_from_position(
        self, board: tuple[int, ...], to_play: int, shared_locked: bool
    ) -> JiugongState:
        """A state for an arbitrary position, with no history (for solvers and tests)."""
        return _make_state(tuple(board), to_play, shared_locked, 0, ())

    def to_play(self, state: JiugongState) -> int:
        return state.to_play

    def legal_mask(self, state: JiugongState) -> np.ndarray:
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        mask[list(state.legal)] = True
        return mask

    def legal_actions(self, state: JiugongState) -> np.ndarray:
        return np.array(state.legal, dtype=np.int64)

    def apply(self, state: JiugongState, action: int) -> JiugongState:
        if type(action) is not int or action not in state.legal:
            action = self.check_action(state, action)  # raises IllegalMove with the reason
        f, t = STEPS[action]
        board = list(state.board)
        moved_shared = board[f] == SHARED
        board[t], board[f] = board[f], EMPTY
        return _make_state(
            tuple(board), 1 - state.to_play, moved_shared, state.ply + 1, state.history
        )

    def is_terminal(self, state: JiugongState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: JiugongState) -> np.ndarray:
        if state.outcome in (ONGOING, DRAW):
            return np.zeros(2, dtype=np.float32)
        r = np.full(2, -1.0, dtype=np.float32)
        r[state.outcome] = 1.0
        return r

    def observation(self, state: JiugongState) -> np.ndarray:
        """Planes: own pieces, opponent pieces, the shared piece, the lock (all ones if locked)."""
        board = np.asarray(state.board).reshape(3, 3)
        own = SOUTH_PIECE if state.to_play == SOUTH else NORTH_PIECE
        opp = NORTH_PIECE if own == SOUTH_PIECE else SOUTH_PIECE
        obs = np.zeros((4, 3, 3), dtype=np.float32)
        obs[0] = board == own
        obs[1] = board == opp
        obs[2] = board == SHARED
        obs[3] = float(state.shared_locked)
        return obs

    def apply_symmetry(
        self, index: int, observation: np.ndarray, policy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        observation, policy = super().apply_symmetry(index, observation, policy)
        if index == 0:
            return observation, policy
        # Mirror files a <-> c: the observation's last axis, and the steps with it.
        mirrored = np.empty_like(policy)
        mirrored[MIRROR_ACTIONS] = policy
        return observation[..., ::-1].copy(), mirrored

    def time_out(self, state: JiugongState) -> JiugongState:
        """The turn passes with no move made and the shared-piece lock is cleared.

        Not a ply (the 200-ply cap counts moves), but the new position enters the repetition
        history like any other, so endless time-outs still end in a draw by repetition.
        """
        if state.outcome != ONGOING:
            raise IllegalMove("time-out", "the game is over")
        return _make_state(state.board, 1 - state.to_play, False, state.ply, state.history)

    # ------------------------------------------------------------ notation level
    def action_to_move(self, state: JiugongState, action: int) -> str:
        if not 0 <= int(action) < NUM_ACTIONS:
            raise IllegalMove(action, f"action index out of range 0..{NUM_ACTIONS - 1}")
        f, t = STEPS[int(action)]
        return f"{POINT_NAMES[f]}-{POINT_NAMES[t]}"

    def move_to_action(self, state: JiugongState, move: str) -> int:
        if not isinstance(move, str):
            raise IllegalMove(move, "a move must be a string like 'b1-b2'")
        parts = move.strip().split("-")
        if len(parts) != 2 or parts[0] not in _POINT_INDEX or parts[1] not in _POINT_INDEX:
            raise IllegalMove(move, "expected 'from-to' with points a1..c3, e.g. 'b1-b2'")
        f, t = _POINT_INDEX[parts[0]], _POINT_INDEX[parts[1]]
        if (f, t) not in _STEP_INDEX:
            raise IllegalMove(move, "a step goes to a horizontally or vertically adjacent point")
        if state.outcome != ONGOING:
            raise IllegalMove(move, "the game is over")
        piece = state.board[f]
        own = SOUTH_PIECE if state.to_play == SOUTH else NORTH_PIECE
        if piece == EMPTY:
            raise IllegalMove(move, f"there is no piece on {parts[0]}")
        if piece == SHARED and state.shared_locked:
            reason = (
                "the shared piece may not be moved on the first move of the game"
                if state.ply == 0
                else "the shared piece was just moved by the opponent and is locked this turn"
            )
            raise IllegalMove(move, reason)
        if piece not in (own, SHARED):
            raise IllegalMove(move, f"the piece on {parts[0]} belongs to the opponent")
        if state.board[t] != EMPTY:
            raise IllegalMove(move, f"{parts[1]} is occupied")
        return _STEP_INDEX[(f, t)]

    # ------------------------------------------------------------ for people
    def board_view(self, state: JiugongState) -> dict[str, Any]:
        return special_board("jiugong")

    def status_facts(self, state: JiugongState) -> list[dict[str, Any]]:
        return [fact("state.jiugong.locked" if state.shared_locked else "state.jiugong.free")]

    # ------------------------------------------------------------ serialization
    def to_json(self, state: JiugongState) -> dict[str, Any]:
        symbols = {EMPTY: ".", SOUTH_PIECE: "S", NORTH_PIECE: "N", SHARED: "X"}
        return {
            "board": "".join(symbols[v] for v in state.board),
            "to_play": PLAYER_NAMES[state.to_play],
            "shared_locked": state.shared_locked,
            "ply": state.ply,
            "history": list(state.history),
        }

    def from_json(self, data: Any) -> JiugongState:
        if not isinstance(data, dict):
            raise InvalidState("a Jiugong state is a JSON object")
        missing = {"board", "to_play", "shared_locked"} - set(data)
        if missing:
            raise InvalidState(f"Jiugong state lacks {sorted(missing)}")
        board_s = data["board"]
        values = {".": EMPTY, "S": SOUTH_PIECE, "N": NORTH_PIECE, "X": SHARED}
        if not isinstance(board_s, str) or len(board_s) != 9 or set(board_s) - set(values):
            raise InvalidState(
                "board must be 9 characters from '.SNX', points a1..c1, a2..c2, a3..c3"
            )
        board = tuple(values[c] for c in board_s)
        counts = [board.count(v) for v in (SOUTH_PIECE, NORTH_PIECE, SHARED)]
        if counts != [3, 3, 1]:
            raise InvalidState("board must hold 3 'S', 3 'N' and 1 'X'")
        if data["to_play"] not in PLAYER_NAMES:
            raise InvalidState(f"to_play must be one of {list(PLAYER_NAMES)}")
        if not isinstance(data["shared_locked"], bool):
            raise InvalidState("shared_locked must be true or false")
        ply = data.get("ply", 0)
        history = data.get("history", [])
        if not isinstance(ply, int) or isinstance(ply, bool) or not 0 <= ply <= MAX_PLIES:
            raise InvalidState(f"ply must be an integer in 0..{MAX_PLIES}")
        if not isinstance(history, list) or not all(
            isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in history
        ):
            raise InvalidState("history must be a list of position keys (non-negative integers)")
        to_play = PLAYER_NAMES.index(data["to_play"])
        key = position_key(board, to_play, data["shared_locked"])
        prior = tuple(history)
        if prior and prior[-1] == key:
            prior = prior[:-1]  # to_json stores the history including the current position
        return _make_state(board, to_play, data["shared_locked"], ply, prior)

    def render(self, state: JiugongState) -> str:
        symbols = {EMPTY: ".", SOUTH_PIECE: "S", NORTH_PIECE: "N", SHARED: "X"}
        rows = [
            f"{r + 1} " + " ".join(symbols[state.board[r * 3 + c]] for c in range(3))
            for r in (2, 1, 0)
        ]
        lock = " (shared piece locked)" if state.shared_locked else ""
        return "\n".join(rows + ["  a b c", f"{PLAYER_NAMES[state.to_play]} to play{lock}"])
