"""Exact board geometry: placed pieces, candidate placements and the predicates of rules 1-4.

Identity is exact: vertices are integer 4-tuples over the 36-degree unit vectors (see
``pieces``), compared and hashed as tuples. Every edge lies on a line of one of five classes
``c = direction mod 5``; a line is keyed exactly by ``(c, A, B)`` where
``A + B*phi = cross(u_c, p) / sin 36`` for any point p on it (integers, see ``_KEY_A/_KEY_B``),
so "is this point on that line" and "do these edges lie on one line" are dictionary lookups.

Order along a line (``t = dot(u_c, p)``) and the separating-axis projections
(``w_c = A + B*phi``) are compared in floating point with tolerance ``EPS``. That is exact here:
both are ``(A + B*phi) * const`` with integers ``|A|, |B| <= M``, and a non-zero ``A + B*phi``
is at least ``1 / (2M)`` in size (``|A+B*phi| * |A+B*phi'| = |A*A + A*B - B*B| >= 1``), while
coordinates of a board of at most 180 pieces keep ``M`` below 10^4 and float errors below
1e-11. :func:`check_coordinates` refuses points outside that bound.

Interiors are compared with the separating-axis theorem over the five normal classes, which
is complete because every edge of every piece lies along one of them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from envs.core import InvalidState
from envs.trigolden.pieces import PHI, Point, Shape, add

EPS = 1e-7
#: Largest absolute coordinate accepted (keeps the tolerance argument above valid).
MAX_COORD = 2000

# sin(36 m deg) / sin 36 deg = s_a + s_b * phi, and 2 cos(36 m deg) = c_a + c_b * phi.
_SIN_AB = [(0, 0), (1, 0), (0, 1), (0, 1), (1, 0), (0, 0), (-1, 0), (0, -1), (0, -1), (-1, 0)]
_KEY_A = tuple(tuple(_SIN_AB[(j - c) % 10][0] for j in range(4)) for c in range(5))
_KEY_B = tuple(tuple(_SIN_AB[(j - c) % 10][1] for j in range(4)) for c in range(5))
_DOT = tuple(tuple(math.cos(math.radians(36 * (j - c))) for j in range(4)) for c in range(5))
_KEY_SPAN = 1 << 24

_INFO: dict[Point, tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]] = {}


def point_info(p: Point) -> tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]]:
    """(line keys, positions along the line, normal projections) of p for the 5 classes.

    Memoised: the same points recur in every position of a game and across games.
    """
    info = _INFO.get(p)
    if info is None:
        keys = []
        ts = []
        ws = []
        for c in range(5):
            ka, kb = _KEY_A[c], _KEY_B[c]
            a = ka[0] * p[0] + ka[1] * p[1] + ka[2] * p[2] + ka[3] * p[3]
            b = kb[0] * p[0] + kb[1] * p[1] + kb[2] * p[2] + kb[3] * p[3]
            keys.append((a * _KEY_SPAN + b) * 5 + c)
            d = _DOT[c]
            ts.append(d[0] * p[0] + d[1] * p[1] + d[2] * p[2] + d[3] * p[3])
            ws.append(a + b * PHI)
        info = (tuple(keys), tuple(ts), tuple(ws))
        if len(_INFO) > 500_000:  # bounded memory in long self-play runs
            _INFO.clear()
        _INFO[p] = info
    return info


def check_coordinates(p: Point) -> None:
    """Refuse a point too far out for the tolerance argument of this module."""
    if max(abs(x) for x in p) > MAX_COORD:
        raise InvalidState(f"coordinates {p} exceed {MAX_COORD}")


def projections(verts: tuple[Point, ...], infos: list | None = None) -> tuple[float, ...]:
    """(lo_0, hi_0, ..., lo_4, hi_4): the polygon's extent along the five normal axes.

    ``infos``: the vertices' :func:`point_info`, when the caller has them already."""
    out: list[float] = []
    ws = [i[2] for i in (infos or [point_info(v) for v in verts])]
    for c in range(5):
        vals = [w[c] for w in ws]
        out.append(min(vals))
        out.append(max(vals))
    return tuple(out)


def edge_keys(
    verts: tuple[Point, ...], dirs: tuple[int, ...], infos: list | None = None
) -> tuple[tuple[int, float, float], ...]:
    """(line key, lo, hi) of each counter-clockwise edge verts[i] -> verts[i+1]."""
    out = []
    m = len(verts)
    if infos is None:
        infos = [point_info(v) for v in verts]
    for i in range(m):
        c = dirs[i] % 5
        ki, ti, _ = infos[i]
        tj = infos[(i + 1) % m][1][c]
        t0 = ti[c]
        out.append((ki[c], t0, tj) if t0 < tj else (ki[c], tj, t0))
    return tuple(out)


def sat_overlap(p: tuple[float, ...], q: tuple[float, ...]) -> bool:
    """Whether two convex polygons' interiors overlap, from their five-axis projections."""
    for i in range(0, 10, 2):
        if p[i] >= q[i + 1] - EPS or q[i] >= p[i + 1] - EPS:
            return False
    return True


def near(p: tuple[float, ...], q: tuple[float, ...]) -> bool:
    """Whether two polygons' closed extents meet on all five axes (they may touch)."""
    for i in range(0, 10, 2):
        if p[i] > q[i + 1] + EPS or q[i] > p[i + 1] + EPS:
            return False
    return True


def point_strictly_inside(p: Point, edge: tuple[int, float, float]) -> bool:
    """Whether p lies on the edge's line strictly between its endpoints."""
    key, lo, hi = edge
    keys, ts, _ = point_info(p)
    c = key % 5
    return keys[c] == key and lo + EPS < ts[c] < hi - EPS


@dataclass(frozen=True)
class Placed:
    """A piece on the board (immutable). Vertices are counter-clockwise; ``labels[i]`` names
    the edge verts[i] -> verts[i+1]; ``target`` is -1 for the opening piece."""

    index: int
    owner: int
    kind: int
    face: int
    target: int
    target_edge: int
    edge: int
    verts: tuple[Point, ...]
    labels: tuple[int, ...]
    dirs: tuple[int, ...]
    depth: int

    def ccw_index(self, label: int) -> int:
        return self.labels.index(label)


#: (anchor, shape) -> (vertices, projections, edge keys): a placement's geometry depends only
#: on where its target edge is, which never changes, so it is computed once per process.
_GEOM: dict[tuple[Point, int], tuple] = {}
#: Each geometry gets a number never reused in this process (pair memos key on it).
_GEOM_IDS = itertools.count()


class Candidate:
    """A possible placement with its geometry computed once (and reused by every check)."""

    __slots__ = (
        "action", "target", "target_edge", "kind", "face", "edge", "verts", "labels", "dirs",
        "proj", "ekeys", "free", "sc", "touch", "legal", "depth", "vlines", "elines",
        "gid",
    )

    def __init__(
        self, action: int, target: int, target_edge: int, kind: int, face: int, edge: int,
        anchor: Point, shape: Shape, depth: int,
    ) -> None:
        self.action = action
        self.target = target
        self.target_edge = target_edge
        self.kind = kind
        self.face = face
        self.edge = edge
        key = (anchor, shape.serial)
        geom = _GEOM.get(key)
        if geom is None:
            verts = tuple(add(anchor, o) for o in shape.offsets)
            infos = [point_info(v) for v in verts]
            ekeys = edge_keys(verts, shape.dirs, infos)
            # Every line through a vertex, and every line of an edge: a contact between two
            # pieces needs one of them in common, so most pairs are rejected by one set test.
            vlines = frozenset(k for i in infos for k in i[0])
            elines = frozenset(k for k, _, _ in ekeys)
            geom = (verts, projections(verts, infos), ekeys, vlines, elines, next(_GEOM_IDS))
            if len(_GEOM) > 200_000:
                _GEOM.clear()
            _GEOM[key] = geom
        self.verts, self.proj, self.ekeys, self.vlines, self.elines, self.gid = geom
        self.labels = shape.labels
        self.dirs = shape.dirs
        # Vertices 0 and 1 lie on the attached edge; the rest are the free vertices of rule 4.
        self.free = self.verts[2:] if target >= 0 else self.verts
        self.depth = depth
        self.sc = False  # scoring contact with the board (free vertex on an edge, or edge hit)
        self.touch = False  # any TriGolden contact with the board (the draft's notion)
        self.legal = False

    def with_verdicts(self, legal: bool, sc: bool, touch: bool) -> Candidate:
        """The same placement judged on another board (this one stays as it is: the
        parent board's memo still holds it)."""
        out = Candidate.__new__(Candidate)
        for name in Candidate.__slots__:
            setattr(out, name, getattr(self, name))
        out.legal, out.sc, out.touch = legal, sc, touch
        return out

    def as_placed(self, index: int, owner: int) -> Placed:
        return Placed(
            index, owner, self.kind, self.face, self.target, self.target_edge, self.edge,
            self.verts, self.labels, self.dirs, self.depth,
        )


class Board:
    """The pieces on the board and the lookup tables the rules need, built incrementally.

    A Board is never changed after construction: :meth:`add` returns a new one sharing
    nothing mutable with the old.
    """

    __slots__ = (
        "pieces", "vertex_pieces", "line_edges", "line_verts", "proj", "occupied", "_dist",
        "cands", "specs",
    )

    def __init__(self) -> None:
        self.pieces: tuple[Placed, ...] = ()
        self.vertex_pieces: dict[Point, tuple[int, ...]] = {}
        self.line_edges: dict[int, tuple[tuple[float, float, int, int], ...]] = {}
        self.line_verts: dict[int, tuple[tuple[float, Point], ...]] = {}
        self.proj: np.ndarray = np.zeros((0, 10))
        self.occupied: tuple[int, ...] = ()  # bit mask of attached edge labels per piece
        self._dist: dict[tuple[int, int], int] = {}
        # action -> checked Candidate on this board (either player's): a memo that Rules
        # fills; a new board keeps the entries the new piece cannot affect (not near it).
        self.cands: dict[int, Candidate] = {}
        # piece -> its placement spellings edge by edge (``Rules.placements``): they depend
        # on the piece alone, so a new board copies its parent's.
        self.specs: dict[int, tuple] = {}

    def __getstate__(self) -> dict:
        # The memos fill in lazily; leave them out so pickles depend on the pieces only.
        memos = ("_dist", "cands", "specs")
        return {name: getattr(self, name) for name in self.__slots__ if name not in memos}

    def __setstate__(self, data: dict) -> None:
        for name, value in data.items():
            setattr(self, name, value)
        self._dist = {}
        self.cands = {}
        self.specs = {}

    def add(
        self, piece: Placed, recheck: Callable[[Candidate], Candidate] | None = None
    ) -> Board:
        """A new board with ``piece`` added (its index must be the next one).

        The new board keeps the checked placements of this one's memo that the piece cannot
        affect (closed extents apart). The others are dropped, or, given ``recheck`` (which
        re-judges a placement against the new piece alone, ``Rules.rechecker``), updated.
        """
        if piece.index != len(self.pieces):
            raise InvalidState("pieces must be added in index order")
        for v in piece.verts:
            check_coordinates(v)
        new = Board()
        new.pieces = self.pieces + (piece,)
        vp = dict(self.vertex_pieces)
        lv = dict(self.line_verts)
        for v in piece.verts:
            prev = vp.get(v)
            vp[v] = (prev or ()) + (piece.index,)
            if prev is None:
                keys, ts, _ = point_info(v)
                for c in range(5):
                    lv[keys[c]] = lv.get(keys[c], ()) + ((ts[c], v),)
        le = dict(self.line_edges)
        for i, (key, lo, hi) in enumerate(edge_keys(piece.verts, piece.dirs)):
            le[key] = le.get(key, ()) + ((lo, hi, piece.index, piece.labels[i]),)
        new.vertex_pieces = vp
        new.line_verts = lv
        new.line_edges = le
        zp = projections(piece.verts)
        new.proj = np.vstack([self.proj, np.array(zp)[None, :]])
        occ = list(self.occupied) + [0]
        if piece.target >= 0:
            occ[piece.target] |= 1 << piece.target_edge
            occ[piece.index] |= 1 << piece.edge
        new.occupied = tuple(occ)
        # ``near`` written out: this loop runs over the whole memo at every move.
        l0, l1, l2, l3, l4 = (zp[i] - EPS for i in range(0, 10, 2))
        h0, h1, h2, h3, h4 = (zp[i] + EPS for i in range(1, 10, 2))
        taken = (piece.target, piece.target_edge)  # nothing is placed on that edge again
        cands = {}
        for a, c in self.cands.items():
            q = c.proj
            if (q[0] > h0 or q[1] < l0 or q[2] > h1 or q[3] < l1 or q[4] > h2 or q[5] < l2
                    or q[6] > h3 or q[7] < l3 or q[8] > h4 or q[9] < l4):
                cands[a] = c
            elif recheck is not None and (c.target, c.target_edge) != taken:
                cands[a] = recheck(c)
        new.cands = cands
        new.specs = dict(self.specs)
        return new

    # ------------------------------------------------------------------ queries
    def edge_free(self, piece: int, label: int) -> bool:
        return not (self.occupied[piece] >> label) & 1

    def edges_containing(self, p: Point) -> list[tuple[int, int]]:
        """(piece, label) of every board edge that has p strictly between its endpoints."""
        keys, ts, _ = point_info(p)
        out = []
        for c in range(5):
            for lo, hi, piece, label in self.line_edges.get(keys[c], ()):
                if lo + EPS < ts[c] < hi - EPS:
                    out.append((piece, label))
        return out

    def vertices_inside(self, edge: tuple[int, float, float]) -> list[Point]:
        """Board vertices strictly between the endpoints of an edge (given as a key triple)."""
        key, lo, hi = edge
        return [v for t, v in self.line_verts.get(key, ()) if lo + EPS < t < hi - EPS]

    def edge_contact(self, edge: tuple[int, float, float]) -> bool:
        """Whether a board edge lies along this edge over a positive length (rule 3)."""
        key, lo, hi = edge
        for blo, bhi, _, _ in self.line_edges.get(key, ()):
            if blo < hi - EPS and lo < bhi - EPS:
                return True
        return False

    def distance(self, a: int, b: int) -> int:
        """Steps between two pieces through shared edges (the tree path length)."""
        if a == b:
            return 0
        key = (a, b) if a < b else (b, a)
        d = self._dist.get(key)
        if d is None:
            pa, pb = self.pieces[a], self.pieces[b]
            d = 0
            while pa.index != pb.index:
                if pa.depth >= pb.depth:
                    pa = self.pieces[pa.target]
                else:
                    pb = self.pieces[pb.target]
                d += 1
            self._dist[key] = d
        return d

    def closest(self, candidates: tuple[int, ...], to: int) -> int:
        """The piece of ``candidates`` closest to piece ``to``; ties to the earliest placed."""
        return min(candidates, key=lambda q: (self.distance(q, to), q))
