"""Drawing one random legal placement without building the whole mask, compiled (the standard
variant's playouts; the Python reference is ``playout.py``, whose draws these repeat exactly
for the same generator).

A uniform draw from the mask is the first placement of a uniformly random permutation of the
legal ones that the mask holds; so a draw judges placements in that order and stops at the
first that opens a legal turn keeping the obligation (or, when none keeps it, the first that
opens a legal turn at all). The obligation's tests (``kobl``) run lazily, per placement.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.trigolden.kgeom import ACTION, FROW, ROW, SC, TARGET, compatible
from envs.trigolden.kobl import answered, keeps_exactly, witnesses
from envs.trigolden.kpairs import has_partner, pair_ok

ILLEGAL, BREAKS, KEEPS = 0, 1, 2


@njit(cache=True)
def section(li: np.ndarray, lf: np.ndarray, nl: int, split: int, player: int) -> tuple:
    """The placements of ``player`` in the list: views, not copies. The list holds player
    0's placements first (``[0, split)``), then player 1's, each of kinds still in hand."""
    lo, hi = (0, split) if player == 0 else (split, nl)
    return li[lo:hi], lf[lo:hi], hi - lo


@njit(cache=True)
def _surv(ci: np.ndarray, cf: np.ndarray, i: int, oi: np.ndarray, of: np.ndarray,
          wit: np.ndarray, surv: np.ndarray, done: np.ndarray) -> np.uint64:
    """The witnesses placement i leaves legal (bit mask), computed on first use."""
    if not done[i]:
        bits = np.uint64(0)
        for w in range(wit.shape[0]):
            if compatible(ci, cf, i, oi, of, wit[w, 0]) and \
                    compatible(ci, cf, i, oi, of, wit[w, 1]):
                bits |= np.uint64(1) << np.uint64(w)
        surv[i] = bits
        done[i] = True
    return surv[i]


@njit(cache=True)
def _quick(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray, i: int,
           j: int, opponent: int, opp_hand: np.ndarray, tab: tuple, judge: tuple) -> bool:
    """Tests 1 and 2 of the obligation for the turn (i, j) (j = -1: i alone)."""
    oi, of, wit, surv, done, state, ans, ansf = judge
    bits = _surv(ci, cf, i, oi, of, wit, surv, done)
    if j >= 0:
        bits &= _surv(ci, cf, j, oi, of, wit, surv, done)
    if bits:
        return True
    return answered(bi, bf, n, ci, cf, i, j, opponent, opp_hand, tab, state, ans, ansf)


@njit(cache=True)
def _judge(li: np.ndarray, lf: np.ndarray, nl: int, split: int, opponent: int,
           opp_hand: np.ndarray, nc: int) -> tuple:
    """The lazily filled tables of the obligation's tests for nc placements."""
    oi, of, no = section(li, lf, nl, split, opponent)
    wit = witnesses(oi, of, no, opp_hand)
    return (oi, of, wit, np.zeros(nc, dtype=np.uint64), np.zeros(nc, dtype=np.bool_),
            np.zeros(nc, dtype=np.int64), np.empty((2 * nc, ROW), dtype=np.int64),
            np.empty((2 * nc, FROW)))


@njit(cache=True)
def draw_second(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray,
                nl: int, split: int, mover: int, hands: np.ndarray, first: int,
                first_contact: bool, rng: np.random.Generator, tab: tuple) -> int:
    """``playout.draw_second_piece``: a uniform second piece of the turn whose first piece
    is ``first`` (standard), among those keeping the obligation when any does; -1 if none."""
    opp_hand = hands[1 - mover]
    ci, cf, nc = section(li, lf, nl, split, mover)
    sel = np.empty(nc, dtype=np.int64)
    ns = 0
    for i in range(nc):
        if ci[i, TARGET] == bi[first, TARGET] or first_contact or ci[i, SC] != 0:
            sel[ns] = i
            ns += 1
    if ns == 0:
        return -1
    if opp_hand.sum() == 0:
        return ci[sel[rng.integers(0, ns)], ACTION]
    order = rng.permutation(ns)
    judge = _judge(li, lf, nl, split, 1 - mover, opp_hand, nc)
    for p in order:
        i = sel[p]
        if _quick(bi, bf, n, ci, cf, i, -1, 1 - mover, opp_hand, tab, judge) or \
                keeps_exactly(bi, bf, n, ci, cf, i, -1, 1 - mover, opp_hand, tab):
            return ci[i, ACTION]
    return ci[sel[order[0]], ACTION]


@njit(cache=True)
def draw_first(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray,
               nl: int, split: int, player: int, hands: np.ndarray,
               rng: np.random.Generator, tab: tuple) -> int:
    """``playout.draw_first_piece``: a uniform first piece of a legal turn of ``player``,
    among those whose turns keep the obligation when any does; -1: no legal complete turn."""
    hand, opp_hand = hands[player], hands[1 - player]
    ci, cf, nc = section(li, lf, nl, split, player)
    order = rng.permutation(nc)
    oblige = opp_hand.sum() > 0
    judge = _judge(li, lf, nl, split, 1 - player, opp_hand, nc if oblige else 0)
    single = hand.sum() == 1
    seen = np.empty(nc, dtype=np.int64)
    fallback = -1
    for i in order:
        verdict = ILLEGAL
        if single:
            verdict = KEEPS if not oblige or _quick(
                bi, bf, n, ci, cf, i, -1, 1 - player, opp_hand, tab, judge) or keeps_exactly(
                bi, bf, n, ci, cf, i, -1, 1 - player, opp_hand, tab) else BREAKS
        elif not oblige:
            verdict = KEEPS if has_partner(ci, cf, nc, i, hand, True, False) else ILLEGAL
        else:
            m = 0
            for d in range(1, nc):  # neighbours first: partners on the same target
                j = (i + d) % nc
                if pair_ok(ci, cf, i, j, hand, True, False):
                    if _quick(bi, bf, n, ci, cf, i, j, 1 - player, opp_hand, tab, judge):
                        verdict = KEEPS
                        break
                    seen[m] = j
                    m += 1
            if verdict != KEEPS and m:
                verdict = BREAKS
                for k in range(m):
                    if keeps_exactly(bi, bf, n, ci, cf, i, seen[k], 1 - player, opp_hand,
                                     tab):
                        verdict = KEEPS
                        break
        if verdict == KEEPS:
            return ci[i, ACTION]
        if verdict == BREAKS and fallback < 0:
            fallback = ci[i, ACTION]
    return fallback
