"""Two-piece turns, compiled: which pairs of legal placements make a complete turn.

A pair (first i, second j) is a complete turn when j's kind is still in hand after i, j stays
legal once i is on the board (``compatible``), and the two are allowed together: same opponent
piece; standard: either one has a scoring contact with the board, or the two score with each
other (free vertices only); draft: i forms a structure with the board, the rule-5 relief holds,
or the two form any structure with each other. As ``rules.PairTable``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.trigolden.kboard import legal_candidates
from envs.trigolden.kgeom import (
    FROW,
    KIND,
    MAX_E,
    ROW,
    SC,
    TARGET,
    TOUCH,
    compatible,
    leaf,
    pieces_touch,
)


@leaf
def scratch_size(n: int, tab: tuple) -> int:
    """An upper bound on the placements on a board of n pieces (for scratch arrays)."""
    return max(n, 1) * MAX_E * tab[6].shape[1]


@leaf
def pair_ok(ci: np.ndarray, cf: np.ndarray, i: int, j: int, hand: np.ndarray,
            standard: bool, free_pairs: bool) -> bool:
    """Whether (ci[i], ci[j]) is a complete two-piece turn (see the module docstring)."""
    if i == j:
        return False
    if hand[ci[j, KIND]] - (ci[i, KIND] == ci[j, KIND]) < 1:
        return False
    same = ci[i, TARGET] == ci[j, TARGET]
    if standard:
        allowed = ci[i, SC] != 0 or ci[j, SC] != 0 or same
    else:
        allowed = ci[i, TOUCH] != 0 or same or free_pairs
    if allowed:
        return compatible(ci, cf, i, ci, cf, j)
    return pieces_touch(ci, cf, i, ci, cf, j, standard) and compatible(ci, cf, i, ci, cf, j)


@leaf
def has_partner(ci: np.ndarray, cf: np.ndarray, nc: int, i: int, hand: np.ndarray,
                standard: bool, free_pairs: bool) -> bool:
    # Search the neighbours in candidate order first: placements on the same target are
    # listed together, and they are the usual partners.
    for d in range(1, nc):
        j = (i + d) % nc
        if pair_ok(ci, cf, i, j, hand, standard, free_pairs):
            return True
    return False


@leaf
def draft_free_pairs(ci: np.ndarray, cf: np.ndarray, nc: int, hand: np.ndarray) -> bool:
    """Draft rule 5: no opponent piece can take two legal pieces of this hand."""
    for i in range(nc):
        for j in range(nc):
            if i != j and ci[i, TARGET] == ci[j, TARGET] and \
                    hand[ci[j, KIND]] - (ci[i, KIND] == ci[j, KIND]) >= 1 and \
                    compatible(ci, cf, i, ci, cf, j):
                return False
    return True


@njit(cache=True)
def has_complete_turn(bi: np.ndarray, bf: np.ndarray, n: int, player: int, hand: np.ndarray,
                      tab: tuple) -> bool:
    """Whether ``player`` has a legal complete turn of the standard variant (rules 1-4 and the
    same-piece rule with its exception; not the obligation itself)."""
    size = scratch_size(n, tab)
    ci = np.empty((size, ROW), dtype=np.int64)
    cf = np.empty((size, FROW))
    nc = legal_candidates(bi, bf, n, player, hand, tab, ci, cf)
    if nc == 0 or hand.sum() == 1:
        return nc > 0
    for i in range(nc):
        if has_partner(ci, cf, nc, i, hand, True, False):
            return True
    return False
