"""The compiled TriGolden board: candidate placements, their legality (rules 1-4), their
contacts with the board, placing a piece and the structures it adds.

A board is two arrays with one row per piece slot (``kgeom`` row layout): ``bi`` int64
``(slots, ROW)`` and ``bf`` float64 ``(slots, FROW)``, of which the first ``n`` rows are the
pieces in placement order; nothing reads a row past ``n``, and placing piece ``n`` needs one
more slot (a state's arrays have ``n + 1`` while its child is made, a playout's
``max_pieces``). Candidates use the same rows, so every predicate works on
either. Why no incremental memo (the Python engine keeps one): with exact tests only for the
pieces a candidate's box comes near, building every candidate from scratch costs a few
microseconds, and a position is then a pure function of its pieces.

``tab`` (built once per piece set by ``engine.py``) is a tuple of arrays:

``shape_i``, ``shape_f``
    rows of every piece shape laid on a target edge, anchored at the origin, at
    ``((kind * 2 + face) * MAX_E + edge) * 10 + target_direction``;
``open_i``, ``open_f``, ``open_ok``
    the opening shapes at ``kind * 2 + face`` and whether that spelling is canonical;
``len_id``, ``spell``, ``n_spell``
    ``len_id[kind, label]`` numbers the edge lengths; ``spell[l, s] = (kind, face, edge)`` are
    the canonical spellings of a placement on an edge of length ``l``;
``dims``
    ``(K, E, max_pieces, opening_base)``: kinds, edges of the action encoding, slots, and the
    first opening action.
"""

from __future__ import annotations

import numpy as np

from envs.trigolden.kgeom import (
    ACTION,
    CLS,
    DEPTH,
    DIR,
    EDGE,
    FACE,
    FROW,
    HI,
    KA,
    KIND,
    LAB,
    LO,
    MAX_E,
    NV,
    OCC,
    OWNER,
    PA,
    ROW,
    SC,
    TARGET,
    TEDGE,
    TOUCH,
    XMAX,
    XMIN,
    YMAX,
    YMIN,
    V,
    apart,
    copy_row,
    edge_contact,
    first_free,
    leaf,
    overlap,
    same_point,
    strictly_inside,
    vertex_on_edge,
    vertex_on_vertex,
)
from envs.trigolden.kgeom import COS as _COS
from envs.trigolden.kgeom import SIN as _SIN

MAX_STRUCT = 64  # structures one placement can add (a few at most on golden boards)


@leaf
def encode(dims: np.ndarray, target: int, tedge: int, kind: int, edge: int, face: int) -> int:
    return (((target * dims[1] + tedge) * dims[0] + kind) * dims[1] + edge) * 2 + face


@leaf
def lay(bi: np.ndarray, t: int, k: int, kind: int, face: int, edge: int, mover: int,
        tab: tuple, ci: np.ndarray, cf: np.ndarray, i: int) -> None:
    """Write to row i the placement of ``edge`` of a ``kind`` (face) on the edge at
    counter-clockwise position k of piece t: the shape row moved to the anchor (the end of
    the target's edge)."""
    shape_i, shape_f, dims = tab[0], tab[1], tab[8]
    m = bi[t, NV]
    q = (k + 1) % m
    a = V + 4 * q
    sid = ((kind * 2 + face) * MAX_E + edge) * 10 + bi[t, DIR + k]
    copy_row(ci, i, shape_i, sid)
    nv = ci[i, NV]
    for p in range(nv):
        for d in range(4):
            ci[i, V + 4 * p + d] += bi[t, a + d]
    # Keys and positions are linear in the point: the anchor's are added to the shape's.
    for c in range(5):
        ka, kb = bi[t, KA + 10 * q + 2 * c], bi[t, KA + 10 * q + 2 * c + 1]
        pa, pb = bi[t, PA + 10 * q + 2 * c], bi[t, PA + 10 * q + 2 * c + 1]
        ci[i, LO + 2 * c] += ka
        ci[i, LO + 2 * c + 1] += kb
        ci[i, HI + 2 * c] += ka
        ci[i, HI + 2 * c + 1] += kb
        for p in range(nv):
            ci[i, KA + 10 * p + 2 * c] += ka
            ci[i, KA + 10 * p + 2 * c + 1] += kb
            ci[i, PA + 10 * p + 2 * c] += pa
            ci[i, PA + 10 * p + 2 * c + 1] += pb
    ax = bi[t, a] * _COS[0] + bi[t, a + 1] * _COS[1] + bi[t, a + 2] * _COS[2] \
        + bi[t, a + 3] * _COS[3]
    ay = bi[t, a] * _SIN[0] + bi[t, a + 1] * _SIN[1] + bi[t, a + 2] * _SIN[2] \
        + bi[t, a + 3] * _SIN[3]
    cf[i, XMIN] = shape_f[sid, XMIN] + ax
    cf[i, XMAX] = shape_f[sid, XMAX] + ax
    cf[i, YMIN] = shape_f[sid, YMIN] + ay
    cf[i, YMAX] = shape_f[sid, YMAX] + ay
    label = bi[t, LAB + k]
    ci[i, OWNER] = mover
    ci[i, KIND], ci[i, FACE], ci[i, EDGE] = kind, face, edge
    ci[i, TARGET], ci[i, TEDGE] = t, label
    ci[i, DEPTH] = bi[t, DEPTH] + 1
    ci[i, OCC] = 0
    ci[i, ACTION] = encode(dims, t, label, kind, edge, face)
    ci[i, SC] = 0
    ci[i, TOUCH] = 0


@leaf
def candidates(bi: np.ndarray, bf: np.ndarray, n: int, mover: int, hand: np.ndarray,
               tab: tuple, ci: np.ndarray, cf: np.ndarray) -> int:
    """Rule 1: every canonical placement of a kind in hand on a free edge of an opponent
    piece, written to ``ci``/``cf`` (geometry and facts only); returns how many."""
    len_id, spell, n_spell = tab[5], tab[6], tab[7]
    nc = 0
    for t in range(n):
        if bi[t, OWNER] == mover:
            continue
        for k in range(bi[t, NV]):
            label = bi[t, LAB + k]
            if (bi[t, OCC] >> label) & 1:
                continue
            lid = len_id[bi[t, KIND], label]
            for s in range(n_spell[lid]):
                kind = spell[lid, s, 0]
                if hand[kind] == 0:
                    continue
                lay(bi, t, k, kind, spell[lid, s, 1], spell[lid, s, 2], mover, tab, ci, cf, nc)
                nc += 1
    return nc


@leaf
def make_row(bi: np.ndarray, mover: int, action: int, tab: tuple, ci: np.ndarray,
             cf: np.ndarray, i: int) -> None:
    """Row i: the placement of one action (one the mask offers)."""
    dims = tab[8]
    if action >= dims[3]:
        kf = action - dims[3]
        copy_row(ci, i, tab[2], kf)
        copy_row(cf, i, tab[3], kf)
        ci[i, OWNER] = mover
        ci[i, ACTION] = action
        return
    rest, face = action // 2, action % 2
    rest, edge = rest // dims[1], rest % dims[1]
    rest, kind = rest // dims[0], rest % dims[0]
    t, label = rest // dims[1], rest % dims[1]
    for k in range(bi[t, NV]):
        if bi[t, LAB + k] == label:
            lay(bi, t, k, kind, face, edge, mover, tab, ci, cf, i)
            return


@leaf
def openings(hand: np.ndarray, mover: int, tab: tuple, ci: np.ndarray, cf: np.ndarray) -> int:
    """The opening placements of the kinds in hand (canonical faces only)."""
    open_i, open_f, open_ok, dims = tab[2], tab[3], tab[4], tab[8]
    nc = 0
    for kf in range(open_i.shape[0]):
        if not open_ok[kf] or hand[kf // 2] == 0:
            continue
        copy_row(ci, nc, open_i, kf)
        copy_row(cf, nc, open_f, kf)
        ci[nc, OWNER] = mover
        ci[nc, ACTION] = dims[3] + kf
        nc += 1
    return nc


@leaf
def judge(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray,
          i: int) -> bool:
    """Rules 2-4 for candidate row i on the board; on success also set its contacts: ``SC``
    (a free vertex strictly inside a board edge, or a board vertex strictly inside one of its
    edges) and ``TOUCH`` (that, or an attached vertex strictly inside a board edge)."""
    for j in range(n):
        if not apart(cf, i, bf, j) and (overlap(ci, i, bi, j) or edge_contact(ci, i, 1, bi, j)
                                         or vertex_on_vertex(ci, i, first_free(ci, i), bi, j)):
            return False
    contacts(bi, bf, n, ci, cf, i)
    return True


@leaf
def contacts(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray,
             i: int) -> None:
    """Set ``SC`` and ``TOUCH`` of a legal candidate (see :func:`judge`)."""
    free = first_free(ci, i)
    sc = False
    touch = False
    for j in range(n):
        if apart(cf, i, bf, j):
            continue
        for k in range(ci[i, NV]):
            for e in range(bi[j, NV]):
                if strictly_inside(ci, i, k, bi, j, e):
                    touch = True
                    sc = sc or k >= free
        if not sc:
            sc = vertex_on_edge(bi, j, 0, ci, i)
    ci[i, SC] = sc
    ci[i, TOUCH] = sc or touch


@leaf
def legal_candidates(bi: np.ndarray, bf: np.ndarray, n: int, mover: int, hand: np.ndarray,
                     tab: tuple, ci: np.ndarray, cf: np.ndarray) -> int:
    """The placements legal under rules 1-4 (the opening ones on an empty board), compacted
    to the front of ``ci``/``cf``; returns how many."""
    if n == 0:
        return openings(hand, mover, tab, ci, cf)
    nc = candidates(bi, bf, n, mover, hand, tab, ci, cf)
    out = 0
    for i in range(nc):
        if judge(bi, bf, n, ci, cf, i):
            if out != i:
                copy_row(ci, out, ci, i)
                copy_row(cf, out, cf, i)
            out += 1
    return out


@leaf
def push(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray,
         i: int) -> None:
    """Put candidate row i on the board as piece n (the row is copied, not changed)."""
    copy_row(bi, n, ci, i)
    copy_row(bf, n, cf, i)
    if ci[i, TARGET] >= 0:
        bi[ci[i, TARGET], OCC] |= 1 << ci[i, TEDGE]
        bi[n, OCC] = 1 << ci[i, EDGE]
    else:
        bi[n, OCC] = 0


@leaf
def distance(bi: np.ndarray, a: int, b: int) -> int:
    """Steps between two pieces through shared edges (the tree path length)."""
    d = 0
    while a != b:
        if bi[a, DEPTH] >= bi[b, DEPTH]:
            a = bi[a, TARGET]
        else:
            b = bi[b, TARGET]
        d += 1
    return d


@leaf
def _seen_before(bi: np.ndarray, bf: np.ndarray, cf: np.ndarray, i: int, j: int,
                 q: int) -> bool:
    """Whether vertex q of piece j is a vertex of an earlier piece, or earlier in j (pieces
    clear of candidate i cannot hold it)."""
    for h in range(j):
        if apart(cf, i, bf, h):
            continue
        for p in range(bi[h, NV]):
            if same_point(bi, j, q, bi, h, p):
                return True
    for p in range(q):
        if same_point(bi, j, q, bi, j, p):
            return True
    return False


@leaf
def structures(bi: np.ndarray, bf: np.ndarray, n: int, ci: np.ndarray, cf: np.ndarray,
               i: int, out: np.ndarray) -> int:
    """The structures that placing row i as piece n adds, in the Python engine's order, as
    rows ``(trigolden, edge label, point (4), bracing, points)``; returns how many.

    Existing structures never change: the new piece's free vertices cannot land on board
    vertices (rule 4), and its attached vertices are its target's, which is closer.
    """
    target = ci[i, TARGET]
    if target < 0:
        return 0
    ns = 0
    m = ci[i, NV]
    for e in range(m):
        for j in range(n):
            if apart(cf, i, bf, j):
                continue
            for q in range(bi[j, NV]):
                if not strictly_inside(bi, j, q, ci, i, e) or _seen_before(bi, bf, cf, i, j, q):
                    continue
                best, best_d = -1, 1 << 40
                for h in range(j, n):  # the pieces with a vertex at the point
                    if apart(cf, i, bf, h):
                        continue
                    for p in range(bi[h, NV]):
                        if same_point(bi, j, q, bi, h, p):
                            d = distance(bi, h, target)
                            if d < best_d:
                                best, best_d = h, d
                            break
                out[ns, 0], out[ns, 1] = n, ci[i, LAB + e]
                for d in range(4):
                    out[ns, 2 + d] = bi[j, V + 4 * q + d]
                out[ns, 6], out[ns, 7] = best, best_d
                ns += 1
    for k in range(2, m):
        for c in range(5):
            for j in range(n):
                if apart(cf, i, bf, j):
                    continue
                for e in range(bi[j, NV]):
                    if bi[j, CLS + e] == c and strictly_inside(ci, i, k, bi, j, e):
                        out[ns, 0], out[ns, 1] = j, bi[j, LAB + e]
                        for d in range(4):
                            out[ns, 2 + d] = ci[i, V + 4 * k + d]
                        out[ns, 6], out[ns, 7] = n, distance(bi, j, target)
                        ns += 1
    return ns


def new_board(max_pieces: int) -> tuple[np.ndarray, np.ndarray]:
    """Empty board arrays for ``max_pieces`` slots."""
    return np.zeros((max_pieces, ROW), dtype=np.int64), np.zeros((max_pieces, FROW))
