"""Exact plane geometry of the compiled TriGolden core: numbers in Q(sqrt 5), polygon rows and
the pair predicates of rules 2-4 (overlap, edge contact, vertex on vertex / on edge).

Why exact and why rows: legality turns on vertices landing *exactly* on edges, so every verdict
here is integer arithmetic. A point is an integer 4-vector over u_0..u_3 (``pieces.py``). For
each of the five line classes c (directions c and c + 5), two integer pairs describe a point:

* its **line key** ``(A, B)`` with ``A + B*phi = cross(u_c, p) / sin 36``: two points lie on one
  line of class c exactly when their keys are equal, and the key is also the point's
  projection on that class's normal (the separating axes of two convex golden polygons);
* its **position** along the class, ``(a, b)`` with ``a + b*phi = 2 * dot(u_c, p)``.

Values ``a + b*phi`` are compared exactly by :func:`sign_phi` (``2(a + b*phi) = x + y*sqrt 5``,
and the sign of ``x + y*sqrt 5`` follows from ``x*x`` against ``5*y*y``).

A polygon (a piece on the board, a candidate placement, a piece shape) is one int64 row of
``ROW`` columns (vertices, edge directions and labels, the exact extents on the five normals,
and the piece's facts) plus a float64 row of its bounding box. Floats never decide a verdict:
the box only skips pairs whose boxes are apart by more than ``GAP`` (1e-6, while coordinate
errors stay below 1e-11 for boards of ``MAX_COORD``), which then can share no point at all.
Everything nearer is decided by the exact tests.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from envs.trigolden import kcache  # noqa: F401  (drops a stale cache before compiling)

#: Most edges of a piece kind the rows hold (a larger piece set uses the Python engine).
MAX_E = 4
# int64 row layout of a polygon.
V = 0  # vertex k at V + 4k .. V + 4k + 3, counter-clockwise
NV = V + 4 * MAX_E  # number of vertices
DIR = NV + 1  # direction (0..9) of edge k: vertex k -> vertex k+1
LAB = DIR + MAX_E  # label of edge k
LO = LAB + MAX_E  # exact min of the line key on class c: (LO + 2c, LO + 2c + 1)
HI = LO + 10  # exact max
OWNER = HI + 10
KIND = OWNER + 1
FACE = KIND + 1
TARGET = FACE + 1  # -1 for the opening piece
TEDGE = TARGET + 1
EDGE = TEDGE + 1
DEPTH = EDGE + 1
OCC = DEPTH + 1  # bit mask of this piece's edge labels that hold a neighbour
ACTION = OCC + 1
SC = ACTION + 1  # scoring contact with the board (standard exception)
TOUCH = SC + 1  # any TriGolden contact with the board (draft)
# Per vertex k and class c, the line key at KA + 2(5k + c) and the position at PA + 2(5k + c)
# (pairs a, b): stored because the predicates read them far more often than vertices move.
CLS = TOUCH + 1  # line class of edge k (its direction mod 5), stored to spare a modulo
KA = CLS + MAX_E
PA = KA + 10 * MAX_E
ROW = PA + 10 * MAX_E
# float64 row: bounding box.
XMIN, XMAX, YMIN, YMAX = 0, 1, 2, 3
FROW = 4
GAP = 1e-6

#: Compiled without numba's reference counting (``_nrt=False``): these functions allocate
#: nothing, and an array passed to a compiled call otherwise costs two atomic reference-count
#: updates, which measured 10x the cost of the predicates themselves.
leaf = njit(cache=True, _nrt=False)
#: The smallest predicates are also inlined where they are called (numba IR inlining).
tiny = njit(cache=True, _nrt=False, inline="always")

# sin(36 m deg) / sin 36 deg and 2 cos(36 m deg), as (a, b) meaning a + b*phi.
_SIN_AB = ((0, 0), (1, 0), (0, 1), (0, 1), (1, 0), (0, 0), (-1, 0), (0, -1), (0, -1), (-1, 0))
_COS2_AB = ((2, 0), (0, 1), (-1, 1), (1, -1), (0, -1), (-2, 0), (0, -1), (1, -1), (-1, 1), (0, 1))
#: KEY[c, j, 0/1]: coefficient of coordinate j in the line key of class c; POS likewise.
KEY = np.array([[_SIN_AB[(j - c) % 10] for j in range(4)] for c in range(5)], dtype=np.int64)
POS = np.array([[_COS2_AB[(j - c) % 10] for j in range(4)] for c in range(5)], dtype=np.int64)
COS = np.array([math.cos(math.radians(36 * k)) for k in range(4)])
SIN = np.array([math.sin(math.radians(36 * k)) for k in range(4)])


@tiny
def sign_phi(a: int, b: int) -> int:
    """The sign of ``a + b*phi``, exactly."""
    x = 2 * a + b  # 2(a + b*phi) = x + b*sqrt(5)
    if x >= 0 and b >= 0:
        return 0 if x == 0 and b == 0 else 1
    if x <= 0 and b <= 0:
        return -1
    d = x * x - 5 * b * b  # never 0: sqrt(5) is irrational
    if x > 0:
        return 1 if d > 0 else -1
    return -1 if d > 0 else 1


@leaf
def set_keys(r: np.ndarray) -> None:
    """Compute the line keys and positions of every vertex of r from its coordinates, and
    the class of every edge."""
    for k in range(r[NV]):
        r[CLS + k] = r[DIR + k] % 5
        o = V + 4 * k
        for c in range(5):
            for h in range(2):
                r[KA + 10 * k + 2 * c + h] = KEY[c, 0, h] * r[o] + KEY[c, 1, h] * r[o + 1] \
                    + KEY[c, 2, h] * r[o + 2] + KEY[c, 3, h] * r[o + 3]
                r[PA + 10 * k + 2 * c + h] = POS[c, 0, h] * r[o] + POS[c, 1, h] * r[o + 1] \
                    + POS[c, 2, h] * r[o + 2] + POS[c, 3, h] * r[o + 3]


@leaf
def finish_row(r: np.ndarray, f: np.ndarray) -> None:
    """Fill the keys, the exact extents (LO, HI) and the float box of a row whose vertices
    are set."""
    set_keys(r)
    m = r[NV]
    for c in range(5):
        la, lb = r[KA + 2 * c], r[KA + 2 * c + 1]
        ha, hb = la, lb
        for k in range(1, m):
            a, b = r[KA + 10 * k + 2 * c], r[KA + 10 * k + 2 * c + 1]
            if sign_phi(a - la, b - lb) < 0:
                la, lb = a, b
            if sign_phi(a - ha, b - hb) > 0:
                ha, hb = a, b
        r[LO + 2 * c], r[LO + 2 * c + 1] = la, lb
        r[HI + 2 * c], r[HI + 2 * c + 1] = ha, hb
    f[XMIN], f[XMAX], f[YMIN], f[YMAX] = 1e300, -1e300, 1e300, -1e300
    for k in range(m):
        o = V + 4 * k
        x = r[o] * COS[0] + r[o + 1] * COS[1] + r[o + 2] * COS[2] + r[o + 3] * COS[3]
        y = r[o] * SIN[0] + r[o + 1] * SIN[1] + r[o + 2] * SIN[2] + r[o + 3] * SIN[3]
        f[XMIN], f[XMAX] = min(f[XMIN], x), max(f[XMAX], x)
        f[YMIN], f[YMAX] = min(f[YMIN], y), max(f[YMAX], y)


@leaf
def copy_row(dst: np.ndarray, i: int, src: np.ndarray, j: int) -> None:
    """dst[i] = src[j], element by element (a slice copy needs the reference counting)."""
    for x in range(src.shape[1]):
        dst[i, x] = src[j, x]


# The predicates take (array, row) pairs, not row views: a view passed to a compiled call costs
# reference counting, which dominated the first version's profile.


@tiny
def apart(f: np.ndarray, i: int, g: np.ndarray, j: int) -> bool:
    """Whether two boxes are clearly apart (then the polygons share no point)."""
    return (f[i, XMIN] > g[j, XMAX] + GAP or g[j, XMIN] > f[i, XMAX] + GAP
            or f[i, YMIN] > g[j, YMAX] + GAP or g[j, YMIN] > f[i, YMAX] + GAP)


@tiny
def overlap(r: np.ndarray, i: int, s: np.ndarray, j: int) -> bool:
    """Rule 2: whether the interiors of two convex polygons meet (separating axes, exact)."""
    for c in range(5):
        lo, hi = LO + 2 * c, HI + 2 * c
        if sign_phi(r[i, lo] - s[j, hi], r[i, lo + 1] - s[j, hi + 1]) >= 0:
            return False
        if sign_phi(s[j, lo] - r[i, hi], s[j, lo + 1] - r[i, hi + 1]) >= 0:
            return False
    return True


@tiny
def same_point(r: np.ndarray, i: int, k: int, s: np.ndarray, j: int, q: int) -> bool:
    o, p = V + 4 * k, V + 4 * q
    return r[i, o] == s[j, p] and r[i, o + 1] == s[j, p + 1] and r[i, o + 2] == s[j, p + 2] \
        and r[i, o + 3] == s[j, p + 3]


@tiny
def strictly_inside(r: np.ndarray, i: int, k: int, s: np.ndarray, j: int, e: int) -> bool:
    """Whether vertex k of row r[i] lies on edge e of s[j] strictly between its endpoints."""
    c = s[j, CLS + e]
    rk, se = KA + 10 * k + 2 * c, KA + 10 * e + 2 * c
    if r[i, rk] != s[j, se] or r[i, rk + 1] != s[j, se + 1]:
        return False
    e2 = e + 1 if e + 1 < s[j, NV] else 0
    rp, s0, s1 = PA + 10 * k + 2 * c, PA + 10 * e + 2 * c, PA + 10 * e2 + 2 * c
    d0 = sign_phi(r[i, rp] - s[j, s0], r[i, rp + 1] - s[j, s0 + 1])
    d1 = sign_phi(r[i, rp] - s[j, s1], r[i, rp + 1] - s[j, s1 + 1])
    return d0 * d1 < 0


@tiny
def edges_meet(r: np.ndarray, i: int, e: int, s: np.ndarray, j: int, f: int) -> bool:
    """Rule 3: whether edge e of r[i] and edge f of s[j] lie along one line over a positive
    length."""
    c = r[i, CLS + e]
    if s[j, CLS + f] != c:
        return False
    re, sf = KA + 10 * e + 2 * c, KA + 10 * f + 2 * c
    if r[i, re] != s[j, sf] or r[i, re + 1] != s[j, sf + 1]:
        return False
    e2 = e + 1 if e + 1 < r[i, NV] else 0
    f2 = f + 1 if f + 1 < s[j, NV] else 0
    a, b = PA + 10 * e + 2 * c, PA + 10 * e2 + 2 * c
    r0a, r0b, r1a, r1b = r[i, a], r[i, a + 1], r[i, b], r[i, b + 1]
    if sign_phi(r0a - r1a, r0b - r1b) > 0:
        r0a, r0b, r1a, r1b = r1a, r1b, r0a, r0b
    a, b = PA + 10 * f + 2 * c, PA + 10 * f2 + 2 * c
    s0a, s0b, s1a, s1b = s[j, a], s[j, a + 1], s[j, b], s[j, b + 1]
    if sign_phi(s0a - s1a, s0b - s1b) > 0:
        s0a, s0b, s1a, s1b = s1a, s1b, s0a, s0b
    return sign_phi(r0a - s1a, r0b - s1b) < 0 and sign_phi(s0a - r1a, s0b - r1b) < 0


@tiny
def first_free(r: np.ndarray, i: int) -> int:
    """Index of the first free vertex: 2 for a placement (0 and 1 lie on the attached edge),
    0 for the opening piece."""
    return 2 if r[i, TARGET] >= 0 else 0


@tiny
def edge_contact(r: np.ndarray, i: int, first_r: int, s: np.ndarray, j: int) -> bool:
    """Whether an edge of r[i] from edge ``first_r`` on lies along an edge of s[j] (rule 3)."""
    for e in range(first_r, r[i, NV]):
        for f in range(s[j, NV]):
            if edges_meet(r, i, e, s, j, f):
                return True
    return False


@tiny
def vertex_on_vertex(r: np.ndarray, i: int, first_r: int, s: np.ndarray, j: int) -> bool:
    """Whether a vertex of r[i] from ``first_r`` on is a vertex of s[j] (rule 4)."""
    for k in range(first_r, r[i, NV]):
        for q in range(s[j, NV]):
            if same_point(r, i, k, s, j, q):
                return True
    return False


@tiny
def vertex_on_edge(r: np.ndarray, i: int, first_r: int, s: np.ndarray, j: int) -> bool:
    """Whether a vertex of r[i] from ``first_r`` on lies strictly inside an edge of s[j]."""
    for k in range(first_r, r[i, NV]):
        for e in range(s[j, NV]):
            if strictly_inside(r, i, k, s, j, e):
                return True
    return False


@leaf
def compatible(x: np.ndarray, fx: np.ndarray, i: int, y: np.ndarray, fy: np.ndarray,
               j: int) -> bool:
    """Whether y[j] (legal on a board) stays legal once x[i] joins it: rules 2-4 between the
    two."""
    if apart(fx, i, fy, j):
        return True
    if overlap(x, i, y, j):
        return False
    if vertex_on_vertex(y, j, first_free(y, j), x, i):
        return False
    return not edge_contact(y, j, 1, x, i)


@leaf
def pieces_touch(x: np.ndarray, fx: np.ndarray, i: int, y: np.ndarray, fy: np.ndarray, j: int,
                 free_only: bool) -> bool:
    """Whether x[i] and y[j] form a TriGolden structure with each other: a vertex of one
    strictly inside an edge of the other. ``free_only`` counts free vertices only (the
    standard variant's *scoring* contact: an attached vertex is its target's, which is
    closer)."""
    if apart(fx, i, fy, j):
        return False
    return vertex_on_edge(y, j, first_free(y, j) if free_only else 0, x, i) or \
        vertex_on_edge(x, i, first_free(x, i) if free_only else 0, y, j)
