"""The compiled TriGolden step and random playout: one placement played, the turn order of
``state.place`` / ``state.next_turn`` applied, and the next mask computed, in one call.

Why one call: the Python side of a step is then a handful of array reads, so a new position
costs what the kernel costs. ``step`` works in place on the board arrays it is given (the
caller copies them for immutable states). ``random_playout`` plays on one copy: the draft
draws from each full mask (``step``), the standard variant places (``place``) and draws the
next placement without the mask (``kdraw``), as the reference engines do.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.trigolden.kboard import MAX_STRUCT, judge, lay, make_row, openings, push, structures
from envs.trigolden.kdraw import draw_first, draw_second, section
from envs.trigolden.kgeom import (
    FROW,
    KIND,
    LAB,
    NV,
    OCC,
    OWNER,
    ROW,
    SC,
    TARGET,
    TOUCH,
    apart,
    compatible,
    copy_row,
    pieces_touch,
)
from envs.trigolden.kturn import turn_options

ONGOING, FINISHED, ARBITRATION = 0, 1, 2
# info slots returned by step
I_TO_PLAY, I_FIRST, I_CONTACT, I_FREE, I_OUTCOME, I_CLAIMANT, I_NPASS = range(7)


@njit(cache=True)
def options(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray, nl: int,
            split: int, mover: int, hands: np.ndarray, first: int, first_contact: bool,
            free_pairs: bool, standard: bool, tab: tuple) -> tuple:
    """``kturn.turn_options`` from the list of legal placements (openings on an empty
    board)."""
    if n == 0:
        ci = np.empty((2 * tab[2].shape[0], ROW), dtype=np.int64)
        cf = np.empty((2 * tab[2].shape[0], FROW))
        nc = openings(hands[mover], mover, tab, ci, cf)
        return turn_options(bi, bf, n, ci, cf, nc, ci, cf, 0, mover, hands, first,
                            first_contact, free_pairs, standard, tab)
    ci, cf, nc = section(li, lf, nl, split, mover)
    oi, of, no = section(li, lf, nl, split, 1 - mover)
    return turn_options(bi, bf, n, ci, cf, nc, oi, of, no, mover, hands, first, first_contact,
                        free_pairs, standard, tab)


@njit(cache=True)
def advance_list(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray,
                 nl: int, split: int, row: np.ndarray, f: np.ndarray, hands: np.ndarray,
                 tab: tuple) -> tuple:
    """Both players' legal placements once ``row`` has become piece n (already pushed, and
    its kind taken from the hand): player 0's first, then player 1's, each of kinds still in
    ``hands``. Returns ``(li, lf, nl, split)``.

    Rules 2-4 are conditions on pairs of pieces, so a placement stays legal exactly when it
    is compatible with the new piece, and its contacts grow by those with the new piece; the
    only new placements are the opponent's on the new piece's free edges. Hands only shrink,
    so a placement of a kind its player has run out of is dropped for good. Keeping each
    player's placements together, in the order they were found, lets ``kdraw.section`` hand
    out a player's placements without copying them."""
    extra = bi[n, NV] * tab[6].shape[1]
    oi = np.empty((nl + extra, ROW), dtype=np.int64)
    of = np.empty((nl + extra, FROW))
    player = 1 - bi[n, OWNER]
    m = 0
    new_split = 0
    for owner in range(2):
        lo, hi = (0, split) if owner == 0 else (split, nl)
        for c in range(lo, hi):
            if hands[owner, li[c, KIND]] == 0 or not compatible(row, f, 0, li, lf, c):
                continue
            copy_row(oi, m, li, c)
            copy_row(of, m, lf, c)
            if not apart(f, 0, lf, c):
                if oi[m, SC] == 0 and pieces_touch(row, f, 0, oi, of, m, True):
                    oi[m, SC] = 1
                if oi[m, TOUCH] == 0 and (oi[m, SC] != 0 or pieces_touch(row, f, 0, oi, of,
                                                                         m, False)):
                    oi[m, TOUCH] = 1
            m += 1
        if owner == player:
            m = new_placements(bi, bf, n, player, hands[player], tab, oi, of, m)
        if owner == 0:
            new_split = m
    return oi, of, m, new_split


@njit(cache=True)
def new_placements(bi: np.ndarray, bf: np.ndarray, n: int, player: int, hand: np.ndarray,
                   tab: tuple, oi: np.ndarray, of: np.ndarray, m: int) -> int:
    """``player``'s legal placements on piece n's free edges, of kinds in ``hand``, written
    from row m on; returns the new end of the rows."""
    len_id, spell, n_spell = tab[5], tab[6], tab[7]
    for k in range(bi[n, NV]):
        label = bi[n, LAB + k]
        if (bi[n, OCC] >> label) & 1:
            continue
        lid = len_id[bi[n, KIND], label]
        for s in range(n_spell[lid]):
            if hand[spell[lid, s, 0]] == 0:
                continue
            lay(bi, n, k, spell[lid, s, 0], spell[lid, s, 1], spell[lid, s, 2], player, tab,
                oi, of, m)
            if judge(bi, bf, n + 1, oi, of, m):
                m += 1
    return m


@njit(cache=True)
def place(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray, nl: int,
          split: int, action: int, mover: int, hands: np.ndarray, bracing: bool,
          tab: tuple) -> tuple:
    """The placement itself: piece n on the board, its structures and points, the hand and
    the list of legal placements updated. Returns ``(structs, ns, gained, li, lf, nl, split,
    row)`` (``row`` is the piece's row with its contacts before it was placed)."""
    row = np.empty((1, ROW), dtype=np.int64)
    f = np.empty((1, FROW))
    make_row(bi, mover, action, tab, row, f, 0)
    judge(bi, bf, n, row, f, 0)
    sbuf = np.empty((MAX_STRUCT, 8), dtype=np.int64)
    ns = structures(bi, bf, n, row, f, 0, sbuf)
    push(bi, bf, n, row, f, 0)
    hands[mover, row[0, KIND]] -= 1
    li, lf, nl, split = advance_list(bi, bf, n, li, lf, nl, split, row, f, hands, tab)
    gained = np.zeros(2, dtype=np.int64)
    for s in range(ns):
        piece = sbuf[s, 6] if bracing else sbuf[s, 0]
        gained[bi[piece, OWNER]] += sbuf[s, 7]
    return sbuf, ns, gained, li, lf, nl, split, row


@njit(cache=True)
def step(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray, nl: int,
         split: int, action: int, mover: int, hands: np.ndarray, first: int, free_pairs: bool,
         standard: bool, bracing: bool, tab: tuple) -> tuple:
    """Place ``action`` (legal) as piece n on ``bi``/``bf`` and ``hands`` (changed in place);
    ``li``/``lf`` hold both players' placements legal under rules 1-4 (player 0's before
    ``split``, then player 1's, of kinds in hand).

    Returns ``(structs, gained, info, passes, options, li, lf, nl, split)``: the new
    structures (rows of ``kboard.structures``), the points each player gained, ``info`` (to
    play, first piece, its contact, free pairs, outcome, claimant, number of passes), the
    players who passed (draft), the next position's options (empty when the game is over)
    and the new list of legal placements.
    """
    sbuf, ns, gained, li, lf, nl, split, row = place(bi, bf, n, li, lf, nl, split, action,
                                                     mover, hands, bracing, tab)
    r = row[0]
    m = n + 1
    in_before = hands[mover].sum() + 1
    info = np.zeros(7, dtype=np.int64)
    passes = np.zeros(2, dtype=np.int64)
    info[I_CLAIMANT] = -1
    if r[TARGET] >= 0 and first < 0 and in_before >= 2:
        contact = (r[SC] if standard else r[TOUCH]) != 0
        opts = options(bi, bf, m, li, lf, nl, split, mover, hands, n, contact, free_pairs,
                       standard, tab)
        if opts[0].shape[0] > 0:
            info[I_TO_PLAY], info[I_FIRST], info[I_CONTACT] = mover, n, contact
            info[I_FREE] = free_pairs
            return sbuf[:ns], gained, info, passes, opts, li, lf, nl, split
    info[I_FIRST] = -1
    for k in range(2):
        player = 1 - mover if k == 0 else mover
        if hands[player].sum() == 0:
            continue
        opts = options(bi, bf, m, li, lf, nl, split, player, hands, -1, False, False, standard,
                       tab)
        if opts[0].shape[0] > 0:
            info[I_TO_PLAY], info[I_FREE] = player, opts[4][1]
            return sbuf[:ns], gained, info, passes, opts, li, lf, nl, split
        if standard:
            info[I_TO_PLAY], info[I_OUTCOME], info[I_CLAIMANT] = player, ARBITRATION, player
            return sbuf[:ns], gained, info, passes, _no_options(), li, lf, nl, split
        passes[info[I_NPASS]] = player
        info[I_NPASS] += 1
    info[I_TO_PLAY], info[I_OUTCOME] = mover, FINISHED
    return sbuf[:ns], gained, info, passes, _no_options(), li, lf, nl, split


@njit(cache=True)
def child(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray, nl: int,
          split: int, action: int, mover: int, hands: np.ndarray, first: int,
          free_pairs: bool, standard: bool, bracing: bool, tab: tuple) -> tuple:
    """:func:`step` on new board arrays holding the first ``n`` pieces of ``bi``/``bf`` and
    room for the new one (a state's arrays are never changed): ``(bi, bf, *step's result)``.
    One compiled call, where copying in NumPy first cost four (engine.Kernel.apply)."""
    nbi = np.zeros((n + 1, ROW), dtype=np.int64)
    nbf = np.zeros((n + 1, FROW))
    nbi[:n] = bi[:n]
    nbf[:n] = bf[:n]
    out = step(nbi, nbf, n, li, lf, nl, split, action, mover, hands, first, free_pairs,
               standard, bracing, tab)
    return nbi, nbf, out


@njit(cache=True)
def _no_options() -> tuple:
    e = np.zeros(0, dtype=np.int64)
    b = np.zeros(0, dtype=np.bool_)
    return e, b, b, e.copy(), np.zeros(3, dtype=np.bool_), e.copy(), np.zeros(0, dtype=np.int8)


@njit(cache=True)
def random_playout(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray,
                   nl: int, split: int, hands: np.ndarray, mover: int, first: int, free_pairs: bool,
                   legal: np.ndarray, scores: np.ndarray, standard: bool, bracing: bool,
                   rng: np.random.Generator, max_plies: int, tab: tuple) -> tuple:
    """Uniformly random legal placements from a position (its sorted mask ``legal``) until
    the game ends or ``max_plies`` were played; the arrays are changed in place, ``scores``
    ends with the final scores. Returns ``(outcome, claimant, plies)``.

    The draws are those of the reference engine with the same generator (numba's generators
    are NumPy's, bit for bit): the standard variant draws as ``playout.random_playout`` (and
    stops at the cap even on a last placement), the draft as ``Game.random_playout``.
    """
    if max_plies <= 0:
        return ONGOING, -1, 0
    action = legal[rng.integers(0, legal.shape[0])]
    if standard:
        return standard_playout(bi, bf, n, li, lf, nl, split, hands, mover, first, action,
                                scores, bracing, rng, max_plies, tab)
    plies = 0
    while True:
        _, gained, info, _, opts, li, lf, nl, split = step(
            bi, bf, n, li, lf, nl, split, action, mover, hands, first, free_pairs, standard,
            bracing, tab)
        n += 1
        plies += 1
        scores += gained
        if info[I_OUTCOME] != ONGOING:
            return info[I_OUTCOME], info[I_CLAIMANT], plies
        if plies >= max_plies:
            return ONGOING, -1, plies
        mover, first, free_pairs = info[I_TO_PLAY], info[I_FIRST], info[I_FREE] != 0
        action = opts[0][rng.integers(0, opts[0].shape[0])]


@njit(cache=True)
def standard_playout(bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray, lf: np.ndarray,
                     nl: int, split: int, hands: np.ndarray, mover: int, first: int, action: int,
                     scores: np.ndarray, bracing: bool, rng: np.random.Generator,
                     max_plies: int, tab: tuple) -> tuple:
    """The standard variant's playout loop, as ``playout.random_playout``: each placement is
    drawn by rejection (``kdraw``), without building the whole mask."""
    plies = 0
    while True:
        _, _, gained, li, lf, nl, split, row = place(bi, bf, n, li, lf, nl, split, action,
                                                     mover, hands, bracing, tab)
        in_before = hands[mover].sum() + 1
        scores += gained
        plies += 1
        n += 1
        if plies >= max_plies:
            return ONGOING, -1, plies
        if row[0, TARGET] >= 0 and first < 0 and in_before >= 2:
            second = draw_second(bi, bf, n, li, lf, nl, split, mover, hands, n - 1,
                                 row[0, SC] != 0, rng, tab)
            if second >= 0:
                first, action = n - 1, second
                continue
        first = -1
        for k in range(3):
            if k == 2:
                return FINISHED, -1, plies
            player = 1 - mover if k == 0 else mover
            if hands[player].sum() == 0:
                continue
            action = draw_first(bi, bf, n, li, lf, nl, split, player, hands, rng, tab)
            if action < 0:
                return ARBITRATION, player, plies
            mover = player
            break
