"""The obligation of the standard variant, compiled: a turn must leave the opponent a legal
complete turn (``docs/rules/trigolden.md``; the Python reference is ``obligation.py``).

Judging a turn exactly means searching the opponent's turns on the board after it, so three
tests run in order of cost, each exact in what it accepts, the last one exact outright:

1. *witnesses*: up to 64 of the opponent's complete turns on the board before the turn (one
   bit each, ``survivors``); a turn none of whose pieces spoils some witness keeps the
   obligation, because rules 2-4 are conditions on pairs of pieces and contacts only grow;
2. *answers*: an opponent's turn on one of the turn's own pieces (a new target), legal on the
   board and compatible with the turn's pieces;
3. the board after the turn, built and searched (``keeps_exactly``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.trigolden.kboard import judge, lay, push
from envs.trigolden.kgeom import EDGE, FROW, KIND, LAB, NV, ROW, TARGET, TEDGE, compatible
from envs.trigolden.kpairs import has_complete_turn, pair_ok

MAX_WITNESSES = 64
#: Neighbours in list order searched for a witness's second piece: the placements on one
#: target are listed together.
NEIGHBOURS = 12


@njit(cache=True)
def witnesses(oi: np.ndarray, of: np.ndarray, no: int, hand: np.ndarray) -> np.ndarray:
    """Up to MAX_WITNESSES complete turns among the opponent's legal placements ``oi``, as
    index pairs ``(first, second)`` (one piece twice when one is left in hand), each
    placement the first piece of at most one."""
    out = np.empty((MAX_WITNESSES, 2), dtype=np.int64)
    if hand.sum() == 1:
        nw = min(no, MAX_WITNESSES)
        for w in range(nw):
            out[w, 0] = out[w, 1] = w
        return out[:nw]
    nw = 0
    for i in range(no):
        for d in range(1, min(no, NEIGHBOURS + 1)):
            j = (i + d) % no
            # Two pieces on one target make a turn whatever their contacts: the cheap kind.
            if oi[j, TARGET] == oi[i, TARGET] and pair_ok(oi, of, i, j, hand, True, False):
                out[nw, 0], out[nw, 1] = i, j
                nw += 1
                break
        if nw == MAX_WITNESSES:
            break
    return out[:nw]


@njit(cache=True)
def survivors(ci: np.ndarray, cf: np.ndarray, nc: int, oi: np.ndarray, of: np.ndarray,
              wit: np.ndarray) -> np.ndarray:
    """Per placement, the bit mask of the witnesses it leaves legal."""
    out = np.zeros(nc, dtype=np.uint64)
    for i in range(nc):
        bits = np.uint64(0)
        for w in range(wit.shape[0]):
            if compatible(ci, cf, i, oi, of, wit[w, 0]) and \
                    compatible(ci, cf, i, oi, of, wit[w, 1]):
                bits |= np.uint64(1) << np.uint64(w)
        out[i] = bits
    return out


@njit(cache=True)
def answer_on(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray, i: int,
              opponent: int, opp_hand: np.ndarray, tab: tuple, ai: np.ndarray,
              af: np.ndarray) -> bool:
    """Test 2 for piece ci[i]: an opponent's turn on its free edges, legal on the board and
    compatible with it, written to ``ai[0], ai[1]`` (the same piece twice when the opponent
    has one left). Returns whether one exists."""
    len_id, spell, n_spell = tab[5], tab[6], tab[7]
    size = ci[i, NV] * spell.shape[1]
    ti = np.empty((size, ROW), dtype=np.int64)
    tf = np.empty((size, FROW))
    m = 0
    single = opp_hand.sum() == 1
    for k in range(ci[i, NV]):
        label = ci[i, LAB + k]
        if label == ci[i, EDGE] and ci[i, TEDGE] >= 0:
            continue
        lid = len_id[ci[i, KIND], label]
        for s in range(n_spell[lid]):
            if opp_hand[spell[lid, s, 0]] == 0:
                continue
            lay(ci, i, k, spell[lid, s, 0], spell[lid, s, 1], spell[lid, s, 2], opponent, tab,
                ti, tf, m)
            if not (compatible(ci, cf, i, ti, tf, m) and judge(bi, bf, n, ti, tf, m)):
                continue
            for a in range(m + 1):
                if single and a < m:
                    continue
                ok = single or (ti[a, TEDGE] != ti[m, TEDGE] and opp_hand[ti[m, KIND]]
                                - (ti[a, KIND] == ti[m, KIND]) >= 1
                                and compatible(ti, tf, a, ti, tf, m))
                if ok:
                    for h, src in ((0, a), (1, m)):
                        for x in range(ROW):
                            ai[h, x] = ti[src, x]
                        for x in range(FROW):
                            af[h, x] = tf[src, x]
                    return True
            m += 1
    return False


@njit(cache=True)
def keeps_exactly(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray,
                  i: int, j: int, opponent: int, opp_hand: np.ndarray, tab: tuple) -> bool:
    """Whether the opponent has a legal complete turn once ci[i] (and ci[j], if j >= 0) are
    on the board: the board is copied, the pieces added and the opponent's turns searched."""
    sbi = np.empty((n + 2, ROW), dtype=np.int64)
    sbf = np.empty((n + 2, FROW))
    sbi[:n] = bi[:n]
    sbf[:n] = bf[:n]
    push(sbi, sbf, n, ci, cf, i)
    m = n + 1
    if j >= 0:
        push(sbi, sbf, m, ci, cf, j)
        m += 1
    return has_complete_turn(sbi, sbf, m, opponent, opp_hand, tab)


@njit(cache=True)
def obliged(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray, nc: int,
            oi: np.ndarray, of: np.ndarray, no: int, sel: np.ndarray, ends: bool,
            hand: np.ndarray, opponent: int, opp_hand: np.ndarray, tab: tuple) -> np.ndarray:
    """Which selected placements keep the obligation: for a piece that ends the turn, the
    turn of that piece; for a first piece, one of its turns (partners from every legal
    placement)."""
    surv = survivors(ci, cf, nc, oi, of, witnesses(oi, of, no, opp_hand))
    # Test 2, per placement on first use: 0 unknown, 1 none, 2 found (rows in ans).
    state = np.zeros(nc, dtype=np.int64)
    ans = np.empty((2 * nc, ROW), dtype=np.int64)
    ansf = np.empty((2 * nc, FROW))
    keep = np.zeros(nc, dtype=np.bool_)
    for i in range(nc):
        if not sel[i]:
            continue
        if ends:
            keep[i] = surv[i] != 0 or answered(bi, bf, n, ci, cf, i, -1, opponent, opp_hand,
                                                tab, state, ans, ansf) \
                or keeps_exactly(bi, bf, n, ci, cf, i, -1, opponent, opp_hand, tab)
            continue
        for j in range(nc):  # the cheap tests over every partner first
            if surv[i] & surv[j] and pair_ok(ci, cf, i, j, hand, True, False):
                keep[i] = True
                break
        if keep[i]:
            continue
        for j in range(nc):
            if pair_ok(ci, cf, i, j, hand, True, False) and answered(
                    bi, bf, n, ci, cf, i, j, opponent, opp_hand, tab, state, ans, ansf):
                keep[i] = True
                break
        if keep[i]:
            continue
        for j in range(nc):
            if pair_ok(ci, cf, i, j, hand, True, False) and keeps_exactly(
                    bi, bf, n, ci, cf, i, j, opponent, opp_hand, tab):
                keep[i] = True
                break
    return keep


@njit(cache=True)
def answered(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray, i: int,
              j: int, opponent: int, opp_hand: np.ndarray, tab: tuple, state: np.ndarray,
              ans: np.ndarray, ansf: np.ndarray) -> bool:
    """Test 2 for the turn (ci[i], ci[j]) (j = -1: ci[i] alone): an answer on one of its
    pieces that the other leaves legal."""
    for p, q in ((i, j), (j, i)):
        if p < 0:
            continue
        if state[p] == 0:
            found = answer_on(bi, bf, n, ci, cf, p, opponent, opp_hand, tab,
                              ans[2 * p:2 * p + 2], ansf[2 * p:2 * p + 2])
            state[p] = 2 if found else 1
        if state[p] == 2 and (q < 0 or (compatible(ci, cf, q, ans, ansf, 2 * p)
                                        and compatible(ci, cf, q, ans, ansf, 2 * p + 1))):
            return True
    return False
