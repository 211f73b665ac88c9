"""The Fang Qi state: a small frozen dataclass of ints (two bitboards and counters).

Bitboards and point indices are those of :mod:`envs.fangqi.board`. The state carries
everything the rules need, so the game is a pure function of it: the phase and who acts, the
placements or removals still owed, the pieces in hand, and the two draw counters (movement
turns since the last capture, and the position keys seen since the last removal).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envs.fangqi.board import NUM_POINTS

BLACK, WHITE = 0, 1
PLAYER_NAMES = ("black", "white")
PIECES_PER_SIDE = 30

# Phases. PLACE: the side to play places a piece (``owed`` = extra placements still owed).
# PULL: Black removes a White piece once the board is full. STEP: the side to play steps.
# CAPTURE: the side to play removes an enemy loose piece (``owed`` = captures still owed).
# ROOM: the side to play removes one of its own pieces to make room. OVER: the game has ended.
PLACE, PULL, STEP, CAPTURE, ROOM, OVER = range(6)
PHASE_NAMES = ("place", "pull", "step", "capture", "room", "over")

# Results, fixed when the state is created.
ONGOING, BLACK_WINS, WHITE_WINS, DRAW = -1, BLACK, WHITE, 2
RESULT_NAMES = {ONGOING: None, BLACK_WINS: "black", WHITE_WINS: "white", DRAW: "draw"}

#: Movement turns without a capture that end the game as a draw.
NO_CAPTURE_LIMIT = 60
#: Occurrences of one position (board + side about to step) that end the game as a draw.
REPETITIONS_FOR_DRAW = 3


def position_key(black: int, white: int, to_play: int) -> int:
    """A unique integer for (board, side about to step): what the repetition rule compares."""
    return black | (white << NUM_POINTS) | (to_play << (2 * NUM_POINTS))


@dataclass(frozen=True)
class FangQiState:
    """A Fang Qi position.

    ``history`` holds the key of every position in which a side was about to step since the
    last removal (a removal makes all earlier positions unreachable, so they can be dropped),
    including the current one when ``phase == STEP``. ``no_capture`` counts movement turns
    since the last capture actually made; a step adds one and a capture sets it back to 0, so a
    turn with a capture leaves it at 0. ``ply`` counts actions since the start.
    """

    black: int
    white: int
    phase: int
    to_play: int
    owed: int = 0
    hand_black: int = PIECES_PER_SIDE
    hand_white: int = PIECES_PER_SIDE
    no_capture: int = 0
    history: tuple[int, ...] = field(default=(), repr=False)
    ply: int = 0
    result: int = ONGOING
    # Cache of the legal actions (computed on first use); not part of the position.
    _legal: tuple[int, ...] | None = field(default=None, compare=False, repr=False)
    _mask: np.ndarray | None = field(default=None, compare=False, repr=False)

    def pieces(self, player: int) -> int:
        """Bitboard of ``player``'s pieces."""
        return self.white if player else self.black

    def hand(self, player: int) -> int:
        """Pieces ``player`` still has in hand."""
        return self.hand_white if player else self.hand_black

    @property
    def key(self) -> int:
        return position_key(self.black, self.white, self.to_play)

    def __getstate__(self) -> dict:
        # Pickles carry the position only, not the caches.
        state = dict(self.__dict__)
        state["_legal"] = None
        state["_mask"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
