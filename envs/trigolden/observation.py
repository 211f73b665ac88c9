"""TriGolden observations for a set/transformer network: one token per piece slot + globals.

Shape ``(max_pieces + 1, F)`` float32, from the view of the player to move; every value is in
[-1, 1] (``GameSpec.observation_range``). Row 0 holds the
global features; row ``1 + i`` is piece ``i`` of the board (placement order, the same index as
the action's target slot), all zeros (presence 0) while the slot is empty.

Token columns (K kinds, E = most edges of a kind; golden set: K = 3, E = 4, F = 20)::

    0            present
    1, 2         owned by the mover, owned by the opponent
    3 .. 3+K-1   kind one-hot
    3+K          flipped
    4+K, 5+K     centroid x, y (board units / 16, clipped to [-1, 1])
    6+K, 7+K     cos, sin of the direction of the piece's counter-clockwise edge e0
    8+K .. 8+K+E-1  edge e_i is free (not shared with another piece); 0 for missing edges
    8+K+E        tree depth / max_pieces
    9+K+E        the first piece of the current turn
    10+K+E       the target of that first piece
    11+K+E       placement order / max_pieces
    12+K+E       points of the structures this piece is part of (as either piece) / 20,
                 clipped to 1

Global row columns::

    0, 1         variant standard, draft
    2, 3         scoring mode bracing, trigolden
    4 .. 4+K-1   mover's pieces in hand by kind / n
    4+K .. 3+2K  opponent's pieces in hand by kind / n
    4+2K         placing the second piece of a turn
    5+2K         the mover is p1 (opened the game)
    6+2K         tanh((mover's score - opponent's score) / 20)
    7+2K, 8+2K   mover's score / 100, opponent's score / 100 (clipped to 1)
    9+2K         draft: the two pieces of this turn may go on different opponent pieces
    10+2K        the first piece of this turn may be followed anywhere (its contact)
    11+2K        pieces on the board / max_pieces
    12+2K        1 (a constant, so the row is never all zero)
"""

from __future__ import annotations

import math

import numpy as np

from envs.trigolden.kobs import fill
from envs.trigolden.pieces import PieceSet, to_float
from envs.trigolden.rules import BRACING, STANDARD
from envs.trigolden.state import TriGoldenState


def num_features(pieces: PieceSet) -> int:
    k, e = pieces.num_kinds, pieces.max_edges
    return max(13 + k + e, 13 + 2 * k)


def encode(state: TriGoldenState, pieces: PieceSet, variant: str, scoring: str, n: int,
           max_pieces: int) -> np.ndarray:
    K, E = pieces.num_kinds, pieces.max_edges
    obs = np.zeros((max_pieces + 1, num_features(pieces)), dtype=np.float32)
    me = state.to_play
    if state.core is not None:  # the compiled core's arrays: no Python board to build
        _encode_core(obs, state, K, E, variant, scoring, n, max_pieces)
        return obs
    board = state.board
    _globals(obs[0], state, K, variant, scoring, n, max_pieces, len(board.pieces))
    points = [0] * len(board.pieces)
    for s in state.structures:
        points[s.trigolden] += s.points
        points[s.bracing] += s.points
    first_target = board.pieces[state.first].target if state.first >= 0 else -2
    for p in board.pieces:
        row = obs[1 + p.index]
        row[0] = 1.0
        row[1 if p.owner == me else 2] = 1.0
        row[3 + p.kind] = 1.0
        row[3 + K] = float(p.face)
        xs = [to_float(v) for v in p.verts]
        row[4 + K] = min(max(sum(x for x, _ in xs) / len(xs) / 16.0, -1.0), 1.0)
        row[5 + K] = min(max(sum(y for _, y in xs) / len(xs) / 16.0, -1.0), 1.0)
        d = p.dirs[p.labels.index(0)]
        row[6 + K] = math.cos(math.radians(36 * d))
        row[7 + K] = math.sin(math.radians(36 * d))
        occ = board.occupied[p.index]
        for label in range(len(p.verts)):
            row[8 + K + label] = float(not (occ >> label) & 1)
        row[8 + K + E] = p.depth / max_pieces
        row[9 + K + E] = float(p.index == state.first)
        row[10 + K + E] = float(p.index == first_target)
        row[11 + K + E] = p.index / max_pieces
        row[12 + K + E] = min(points[p.index] / 20.0, 1.0)
    return obs


def _encode_core(obs: np.ndarray, state: TriGoldenState, K: int, E: int, variant: str,
                 scoring: str, n: int, max_pieces: int) -> None:
    """The observation of a state built by the compiled core, in one compiled call
    (:func:`kobs.fill`: the values of the loop in :func:`encode`, which the kernel tests
    compare exactly)."""
    core = state.core
    me = state.to_play
    points = np.zeros(max(core.n, 1))
    for s in state.structures:
        points[s.trigolden] += s.points
        points[s.bracing] += s.points
    fill(obs, core.bi, core.n, me, state.first, points, K, E, max_pieces,
         0 if variant == STANDARD else 1, 2 if scoring == BRACING else 3,
         state.hands[me], state.hands[1 - me], n, state.scores[me], state.scores[1 - me],
         state.free_pairs, state.first_contact)


def _globals(g: np.ndarray, state: TriGoldenState, K: int, variant: str, scoring: str, n: int,
             max_pieces: int, pieces_on_board: int) -> None:
    me = state.to_play
    g[0 if variant == STANDARD else 1] = 1.0
    g[2 if scoring == BRACING else 3] = 1.0
    g[4:4 + K] = np.asarray(state.hands[me], dtype=np.float32) / n
    g[4 + K:4 + 2 * K] = np.asarray(state.hands[1 - me], dtype=np.float32) / n
    g[4 + 2 * K] = float(state.first >= 0)
    g[5 + 2 * K] = float(me == 0)
    mine, theirs = state.scores[me], state.scores[1 - me]
    g[6 + 2 * K] = math.tanh((mine - theirs) / 20.0)
    g[7 + 2 * K] = min(mine / 100.0, 1.0)
    g[8 + 2 * K] = min(theirs / 100.0, 1.0)
    g[9 + 2 * K] = float(state.free_pairs)
    g[10 + 2 * K] = float(state.first_contact)
    g[11 + 2 * K] = pieces_on_board / max_pieces
    g[12 + 2 * K] = 1.0
