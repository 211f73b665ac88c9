"""Fang Qi observation planes and the board's 8 symmetries.

Planes (``NUM_PLANES`` x 6 x 6, float32, from the view of the side to play; plane ``[c, r, f]``
is rank ``r + 1``, file ``f``, the index map of :mod:`envs.fangqi.board`):

====  ==========================================================================
0     own pieces
1     opponent pieces
2     empty points
3     own iron pieces (corners of a complete own big square)
4     opponent iron pieces
5-9   phase, one-hot: place, pull, step, capture, room
10    placements or removals still owed, min(owed, 16) / 16 (all points)
11    own pieces in hand / 30
12    opponent pieces in hand / 30
13    movement turns without a capture / 60 (the draw counter)
14    earlier occurrences of this position (0, 0.5 or 1 for 0, 1, 2)
15    all ones when the side to play is Black (the rules are not colour-symmetric)
====  ==========================================================================

Every value lies in [0, 1]. All shapes (squares, the two long diagonals and their corners, the
inner ranks and files) map onto shapes of the same kind under the 8 symmetries of the square,
so every symmetry maps legal positions and moves to legal positions and moves.
"""

from __future__ import annotations

import numpy as np

from envs.fangqi.board import (
    ACTION_PERM,
    ALL,
    NUM_ACTIONS,
    NUM_POINTS,
    NUM_SYMMETRIES,
    POINT_PERM,
    SIZE,
    iron,
    transform_mask,
)
from envs.fangqi.state import (
    BLACK,
    NO_CAPTURE_LIMIT,
    PIECES_PER_SIDE,
    REPETITIONS_FOR_DRAW,
    STEP,
    FangQiState,
)

NUM_PLANES = 16
OBSERVATION_SHAPE = (NUM_PLANES, SIZE, SIZE)
OWED_SCALE = 16


_BYTES = 5  # 36 bits fit in 5 bytes; each bitboard takes a 40-bit slot in the packed buffer
#: _BYTE_BITS[v] = the 8 bits of byte v as float32, least significant first.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")
_BYTE_BITS = _BYTE_BITS.astype(np.float32)


def observation(state: FangQiState) -> np.ndarray:
    """The planes above for ``state`` (not terminal).

    Built with few numpy calls (they dominate at this size): the five bitboard planes are
    packed into one integer and expanded through a byte table; the eleven constant planes
    are one broadcast.
    """
    player = state.to_play
    own, opp = (state.white, state.black) if player else (state.black, state.white)
    packed = own | opp << 40 | (ALL & ~(own | opp)) << 80 | iron(own) << 120 | iron(opp) << 160
    raw = np.frombuffer(packed.to_bytes(5 * _BYTES, "little"), dtype=np.uint8)
    seen = 0.0
    if state.phase == STEP and len(state.history) > 1:
        repeats = min(state.history.count(state.key) - 1, REPETITIONS_FOR_DRAW - 1)
        seen = repeats / (REPETITIONS_FOR_DRAW - 1)
    phase = state.phase
    scalars = np.array(
        (
            phase == 0,
            phase == 1,
            phase == 2,
            phase == 3,
            phase == 4,
            min(state.owed, OWED_SCALE) / OWED_SCALE,
            state.hand(player) / PIECES_PER_SIDE,
            state.hand(1 - player) / PIECES_PER_SIDE,
            min(state.no_capture, NO_CAPTURE_LIMIT) / NO_CAPTURE_LIMIT,
            seen,
            player == BLACK,
        ),
        dtype=np.float32,
    )
    obs = np.empty((NUM_PLANES, NUM_POINTS), dtype=np.float32)
    obs[:5] = _BYTE_BITS[raw].reshape(5, 8 * _BYTES)[:, :NUM_POINTS]
    obs[5:] = scalars[:, None]
    return obs.reshape(OBSERVATION_SHAPE)


# Inverse permutations: transformed[..., q] = original[..., INVERSE[k][q]].
_POINT_INVERSE = tuple(np.argsort(np.array(perm)) for perm in POINT_PERM)
_ACTION_INVERSE = tuple(np.argsort(np.array(perm)) for perm in ACTION_PERM)


def apply_symmetry(
    index: int, observation: np.ndarray, policy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Transform planes (``[..., C, 6, 6]``) and a per-action array (``[..., 192]``) by symmetry
    ``index`` consistently: a piece on point p moves to ``POINT_PERM[index][p]`` and action a's
    entry moves to ``ACTION_PERM[index][a]``."""
    if (
        isinstance(index, bool)
        or not isinstance(index, (int, np.integer))
        or not (0 <= index < NUM_SYMMETRIES)
    ):
        raise ValueError(f"symmetry index {index!r} out of range 0..{NUM_SYMMETRIES - 1}")
    observation = np.asarray(observation)
    policy = np.asarray(policy)
    if observation.shape[-2:] != (SIZE, SIZE) or policy.shape[-1:] != (NUM_ACTIONS,):
        raise ValueError(
            f"expected observation [..., C, {SIZE}, {SIZE}] and policy [..., {NUM_ACTIONS}], "
            f"got {observation.shape} and {policy.shape}"
        )
    if index == 0:
        return observation, policy
    flat = observation.reshape(*observation.shape[:-2], NUM_POINTS)
    obs = flat[..., _POINT_INVERSE[index]].reshape(observation.shape)
    return obs, policy[..., _ACTION_INVERSE[index]]


def transform_state(state: FangQiState, index: int) -> FangQiState:
    """``state`` with the board transformed by symmetry ``index`` (history keys too)."""

    def key(k: int) -> int:
        b = transform_mask(index, k & ALL)
        w = transform_mask(index, (k >> NUM_POINTS) & ALL)
        return b | (w << NUM_POINTS) | ((k >> (2 * NUM_POINTS)) << (2 * NUM_POINTS))

    return FangQiState(
        black=transform_mask(index, state.black),
        white=transform_mask(index, state.white),
        phase=state.phase,
        to_play=state.to_play,
        owed=state.owed,
        hand_black=state.hand_black,
        hand_white=state.hand_white,
        no_capture=state.no_capture,
        history=tuple(key(k) for k in state.history),
        ply=state.ply,
        result=state.result,
    )
