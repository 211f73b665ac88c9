"""The TriGolden observation of a state built by the compiled core, in one compiled call.

Why compiled: search encodes every new leaf, and the numpy version of this (a few dozen
array operations on rows of ~20 pieces) cost ~190 us a call, a quarter of an 800-simulation
move. The values are those of the Python loop in ``observation.encode``, float for float
(the same operations in the same order; ``tests/test_trigolden_kernel.py`` compares them
exactly); the layout is documented there.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.trigolden.kgeom import DEPTH, DIR, FACE, KIND, LAB, NV, OCC, OWNER, TARGET, V

_COS = np.array([math.cos(math.radians(36 * k)) for k in range(4)])
_SIN = np.array([math.sin(math.radians(36 * k)) for k in range(4)])
_COS10 = np.array([math.cos(math.radians(36 * d)) for d in range(10)])
_SIN10 = np.array([math.sin(math.radians(36 * d)) for d in range(10)])


@njit(cache=True)
def fill(obs: np.ndarray, bi: np.ndarray, n: int, me: int, first: int, points: np.ndarray,
         K: int, E: int, max_pieces: int, variant_col: int, scoring_col: int,
         hand_me: tuple, hand_opp: tuple, n_hand: int, mine: int, theirs: int,
         free_pairs: bool, first_contact: bool) -> None:
    """Write the global row and the ``n`` piece tokens into ``obs`` (zeros on entry).

    ``points[i]`` sums the points of the structures piece ``i`` is part of;
    ``variant_col`` / ``scoring_col`` are the global columns set for the variant and scoring.
    """
    g = obs[0]
    g[variant_col] = 1.0
    g[scoring_col] = 1.0
    for k in range(K):
        g[4 + k] = np.float32(hand_me[k]) / np.float32(n_hand)
        g[4 + K + k] = np.float32(hand_opp[k]) / np.float32(n_hand)
    g[4 + 2 * K] = 1.0 if first >= 0 else 0.0
    g[5 + 2 * K] = 1.0 if me == 0 else 0.0
    g[6 + 2 * K] = math.tanh((mine - theirs) / 20.0)
    g[7 + 2 * K] = min(mine / 100.0, 1.0)
    g[8 + 2 * K] = min(theirs / 100.0, 1.0)
    g[9 + 2 * K] = 1.0 if free_pairs else 0.0
    g[10 + 2 * K] = 1.0 if first_contact else 0.0
    g[11 + 2 * K] = n / max_pieces
    g[12 + 2 * K] = 1.0
    first_target = bi[first, TARGET] if first >= 0 else -2
    for i in range(n):
        r = bi[i]
        row = obs[1 + i]
        nv = r[NV]
        row[0] = 1.0
        row[1 if r[OWNER] == me else 2] = 1.0
        row[3 + r[KIND]] = 1.0
        row[3 + K] = r[FACE]
        # Centroid: each vertex's x (y) summed left to right over its four coordinates, then
        # over the vertices, as ``to_float`` and ``sum`` do.
        cx = 0.0
        cy = 0.0
        for k in range(nv):
            x = 0.0
            y = 0.0
            for j in range(4):
                c = float(r[V + 4 * k + j])
                x = c * _COS[j] if j == 0 else x + c * _COS[j]
                y = c * _SIN[j] if j == 0 else y + c * _SIN[j]
            cx = x if k == 0 else cx + x
            cy = y if k == 0 else cy + y
        row[4 + K] = min(max(cx / nv / 16.0, -1.0), 1.0)
        row[5 + K] = min(max(cy / nv / 16.0, -1.0), 1.0)
        d = 0
        for k in range(nv):
            if r[LAB + k] == 0:
                d = r[DIR + k]
                break
        row[6 + K] = _COS10[d]
        row[7 + K] = _SIN10[d]
        occ = r[OCC]
        for label in range(nv):
            row[8 + K + label] = 0.0 if (occ >> label) & 1 else 1.0
        row[8 + K + E] = r[DEPTH] / max_pieces
        row[9 + K + E] = 1.0 if i == first else 0.0
        row[10 + K + E] = 1.0 if i == first_target else 0.0
        row[11 + K + E] = i / max_pieces
        row[12 + K + E] = min(points[i] / 20.0, 1.0)
