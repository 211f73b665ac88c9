"""The compiled TriGolden legal mask: ``turn_options`` of the player to move, both variants,
with the obligation of the standard one (``kpairs``, ``kobl``); the same rules and sets as
``rules.Rules.turn_options`` followed by ``obligation.turn_options``
(``tests/test_trigolden_kernel.py`` compares them position by position).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.trigolden.kboard import legal_candidates
from envs.trigolden.kgeom import ACTION, FROW, ROW, SC, TARGET, TOUCH, pieces_touch
from envs.trigolden.kobl import obliged
from envs.trigolden.kpairs import draft_free_pairs, has_partner, scratch_size


@njit(cache=True)
def turn_options(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray,
                 nc: int, oi: np.ndarray, of: np.ndarray, no: int, mover: int,
                 hands: np.ndarray, first: int, first_contact: bool, free_pairs: bool,
                 standard: bool, tab: tuple) -> tuple:
    """The legal mask of the player to move, as ``rules.Rules.turn_options`` followed by
    ``obligation.turn_options``, from the mover's placements legal under rules 1-4 (``ci``,
    the openings on an empty board) and the opponent's (``oi``, for the obligation), both
    of kinds in hand.

    Returns ``(legal, sc, touch, refused, flags, corder, cinfo)``: the legal actions (sorted)
    with each one's contacts with the board, the actions left out by the obligation (sorted),
    ``flags = (complete, free_pairs, unavoidable)``, and every placement legal under rules 1-4
    in candidate order with its verdict (see below). ``first`` is the slot of the turn's first piece
    while the second is placed, else -1.
    """
    hand = hands[mover]
    opp_hand = hands[1 - mover]
    sel = np.zeros(nc, dtype=np.bool_)
    out_free = False
    ends = True
    if n == 0 or (first < 0 and hand.sum() == 1):
        sel[:] = True
    elif first >= 0:
        out_free = free_pairs
        for i in range(nc):
            if ci[i, TARGET] == bi[first, TARGET] or first_contact:
                sel[i] = True
            elif standard:
                sel[i] = ci[i, SC] != 0
            else:
                sel[i] = free_pairs or pieces_touch(bi, bf, first, ci, cf, i, False)
    else:
        ends = False
        if not standard:
            out_free = draft_free_pairs(ci, cf, nc, hand)
        for i in range(nc):
            sel[i] = has_partner(ci, cf, nc, i, hand, standard, out_free)
        if nc > 0 and not sel.any() and not standard:
            sel[:] = True  # draft: no two-piece turn; a single piece ends the turn
    complete = bool(sel.any())
    keep = sel.copy()
    unavoidable = False
    if standard and complete and opp_hand.sum() > 0:
        keep = obliged(bi, bf, n, ci, cf, nc, oi, of, no, sel, ends, hand, 1 - mover,
                        opp_hand, tab)
        if not keep.any():
            keep = sel.copy()
            unavoidable = True
    nl = int(keep.sum())
    legal = np.empty(nl, dtype=np.int64)
    sc = np.empty(nl, dtype=np.bool_)
    touch = np.empty(nl, dtype=np.bool_)
    refused = np.empty(int(sel.sum()) - nl, dtype=np.int64)
    a = b = 0
    for i in range(nc):
        if keep[i]:
            legal[a] = ci[i, ACTION]
            sc[a] = ci[i, SC] != 0
            touch[a] = ci[i, TOUCH] != 0
            a += 1
        elif sel[i]:
            refused[b] = ci[i, ACTION]
            b += 1
    order = np.argsort(legal)
    flags = np.array([complete, out_free, unavoidable], dtype=np.bool_)
    # The placements legal under rules 1-4 in candidate order (the reference engine's), each
    # 0 (not a turn), 1 (refused by the obligation) or 2 (in the mask): what a playout that
    # draws as ``playout.py`` does needs.
    corder = np.empty(nc, dtype=np.int64)
    cinfo = np.empty(nc, dtype=np.int8)
    for i in range(nc):
        corder[i] = ci[i, ACTION]
        cinfo[i] = 2 if keep[i] else (1 if sel[i] else 0)
    return legal[order], sc[order], touch[order], np.sort(refused), flags, corder, cinfo


@njit(cache=True)
def options_from_scratch(bi: np.ndarray, bf: np.ndarray, n: int, mover: int, hands: np.ndarray,
                         first: int, first_contact: bool, free_pairs: bool, standard: bool,
                         tab: tuple) -> tuple:
    """:func:`turn_options` with both players' placements built from the board alone."""
    size = scratch_size(n, tab)
    ci = np.empty((size, ROW), dtype=np.int64)
    cf = np.empty((size, FROW))
    nc = legal_candidates(bi, bf, n, mover, hands[mover], tab, ci, cf)
    oi = np.empty((size, ROW), dtype=np.int64)
    of = np.empty((size, FROW))
    no = legal_candidates(bi, bf, n, 1 - mover, hands[1 - mover], tab, oi, of) if n else 0
    return turn_options(bi, bf, n, ci, cf, nc, oi, of, no, mover, hands, first, first_contact,
                        free_pairs, standard, tab)
