"""TriGolden's piece set as data, and the exact vector arithmetic the pieces live in.

Coordinates are exact: a point is a 4-tuple of integers ``(c0, c1, c2, c3)`` meaning
``c0*u0 + c1*u1 + c2*u2 + c3*u3`` with ``u_k = (cos 36k deg, sin 36k deg)``. The ten unit
directions are ``u_0 .. u_9`` with ``u_4 = -u0 + u1 - u2 + u3`` and ``u_(k+5) = -u_k``, and
``phi * u_k = u_(k-1) + u_(k+1)``, so every edge of length ``a + b*phi`` along a multiple of
36 degrees is an integer vector, and two points are equal exactly when their tuples are.

A piece kind is a row of :data:`PIECE_TABLE`: its edges in counter-clockwise order, each a
direction (a multiple of 36 degrees) and a length ``a + b*phi`` given as ``(a, b)``. Another
piece set is another table: :func:`make_piece_set` checks that each polygon closes and is
convex, and everything else (placement shapes, symmetries, the action space) is derived.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

from envs.core import ConfigError

PHI = (1.0 + math.sqrt(5.0)) / 2.0
Point = tuple[int, int, int, int]
ORIGIN: Point = (0, 0, 0, 0)

#: The ten unit directions u_0..u_9 as exact 4-vectors.
UNIT: tuple[Point, ...] = (
    (1, 0, 0, 0),
    (0, 1, 0, 0),
    (0, 0, 1, 0),
    (0, 0, 0, 1),
    (-1, 1, -1, 1),
    (-1, 0, 0, 0),
    (0, -1, 0, 0),
    (0, 0, -1, 0),
    (0, 0, 0, -1),
    (1, -1, 1, -1),
)
_COS = tuple(math.cos(math.radians(36 * k)) for k in range(4))
_SIN = tuple(math.sin(math.radians(36 * k)) for k in range(4))


def add(p: Point, q: Point) -> Point:
    return (p[0] + q[0], p[1] + q[1], p[2] + q[2], p[3] + q[3])


def sub(p: Point, q: Point) -> Point:
    return (p[0] - q[0], p[1] - q[1], p[2] - q[2], p[3] - q[3])


def scale(p: Point, s: int) -> Point:
    return (p[0] * s, p[1] * s, p[2] * s, p[3] * s)


def edge_vector(direction: int, length: tuple[int, int]) -> Point:
    """The exact vector ``(a + b*phi) * u_direction``."""
    a, b = length
    k = direction % 10
    v = scale(UNIT[k], a)
    return add(v, scale(add(UNIT[(k - 1) % 10], UNIT[(k + 1) % 10]), b))


def to_float(p: Point) -> tuple[float, float]:
    """Cartesian (x, y) of an exact point, for clients and drawing."""
    return (
        p[0] * _COS[0] + p[1] * _COS[1] + p[2] * _COS[2] + p[3] * _COS[3],
        p[0] * _SIN[0] + p[1] * _SIN[1] + p[2] * _SIN[2] + p[3] * _SIN[3],
    )


def length_value(length: tuple[int, int]) -> float:
    return length[0] + length[1] * PHI


@dataclass(frozen=True)
class PieceKind:
    """One row of a piece table: letter id, name, and the counter-clockwise edges.

    ``edges[i] = (direction, (a, b))``: edge e_i runs from vertex v_i to v_(i+1) along
    ``u_direction`` with length ``a + b*phi``; v_0 is the origin.
    """

    letter: str
    name: str
    edges: tuple[tuple[int, tuple[int, int]], ...]

    @property
    def num_edges(self) -> int:
        return len(self.edges)

    def local_vertices(self) -> tuple[Point, ...]:
        """Exact vertices v_0..v_(m-1), v_0 at the origin, e_0 along the x-axis direction."""
        out = [ORIGIN]
        for d, length in self.edges[:-1]:
            out.append(add(out[-1], edge_vector(d, length)))
        return tuple(out)


#: The golden piece set of ``docs/rules/trigolden.md`` (T, G, P), edges counter-clockwise.
PIECE_TABLE: tuple[PieceKind, ...] = (
    PieceKind("T", "golden triangle", ((0, (1, 0)), (3, (0, 1)), (7, (0, 1)))),
    PieceKind("G", "golden gnomon", ((0, (0, 1)), (4, (1, 0)), (6, (1, 0)))),
    PieceKind("P", "golden parallelogram", ((0, (0, 1)), (2, (1, 0)), (5, (0, 1)), (7, (1, 0)))),
)


@dataclass(frozen=True)
class Shape:
    """A piece laid on a target edge, relative to the anchor point.

    The new piece's edge ``edge`` runs (counter-clockwise) from the anchor, which is the end B
    of the target's counter-clockwise edge A->B, to A. ``offsets`` are the counter-clockwise
    vertices relative to the anchor (offsets[0] is the anchor, offsets[1] is A); ``labels[i]``
    and ``dirs[i]`` are the label and direction of the edge offsets[i] -> offsets[i+1].
    """

    offsets: tuple[Point, ...]
    labels: tuple[int, ...]
    dirs: tuple[int, ...]
    #: A number no other shape of this process has: the key of geometry memos.
    serial: int = field(default_factory=lambda: next(_SERIALS), compare=False)


_SERIALS = itertools.count()


class PieceSet:
    """Everything derived from a piece table: faces, placement shapes, canonical spellings."""

    def __init__(self, kinds: tuple[PieceKind, ...]) -> None:
        if not kinds:
            raise ConfigError("a piece set needs at least one kind")
        letters = [k.letter for k in kinds]
        if len(set(letters)) != len(letters) or any(
            len(c) != 1 or not c.isalpha() or c == "'" for c in letters
        ):
            raise ConfigError(f"piece letters must be distinct single letters, got {letters}")
        for kind in kinds:
            _check_polygon(kind)
        self.kinds = kinds
        self.letters = tuple(letters)
        self.num_kinds = len(kinds)
        self.max_edges = max(k.num_edges for k in kinds)
        # ccw[kind][face] = ((label, direction, length), ...) in counter-clockwise order.
        self.ccw: list[list[tuple[tuple[int, int, tuple[int, int]], ...]]] = []
        for kind in kinds:
            m = kind.num_edges
            unflipped = tuple((i, d % 10, ln) for i, (d, ln) in enumerate(kind.edges))
            # Mirroring reverses the walk: e0, e_(m-1), ..., e1, each along 5 - d.
            order = [0] + list(range(m - 1, 0, -1))
            flipped = tuple((i, (5 - kind.edges[i][0]) % 10, kind.edges[i][1]) for i in order)
            self.ccw.append([unflipped, flipped])
        self._shapes: dict[tuple[int, int, int, int], Shape] = {}
        for k, kind in enumerate(kinds):
            for face in (0, 1):
                for edge in range(kind.num_edges):
                    for d in range(10):
                        self._shapes[(k, face, edge, d)] = self._make_shape(k, face, edge, d)
        # canonical[(kind, face, edge)] -> (face', edge'): the first spelling of one position.
        self.canonical: dict[tuple[int, int, int], tuple[int, int]] = {}
        for k, kind in enumerate(kinds):
            seen: dict[frozenset[Point], tuple[int, int]] = {}
            for face in (0, 1):
                for edge in range(kind.num_edges):
                    key = (kind.edges[edge][1], frozenset(self.shape(k, face, edge, 0).offsets))
                    self.canonical[(k, face, edge)] = seen.setdefault(key, (face, edge))  # type: ignore[arg-type]
        # The opening piece: flipping a mirror-symmetric kind gives a congruent opening.
        self.opening_canonical: dict[tuple[int, int], tuple[int, int]] = {}
        for k in range(self.num_kinds):
            symmetric = any(self.canonical[(k, 1, e)][0] == 0 for e in range(kinds[k].num_edges))
            self.opening_canonical[(k, 0)] = (k, 0)
            self.opening_canonical[(k, 1)] = (k, 0) if symmetric else (k, 1)

    def _make_shape(self, kind: int, face: int, edge: int, target_dir: int) -> Shape:
        walk = self.ccw[kind][face]
        pos = next(i for i, (label, _, _) in enumerate(walk) if label == edge)
        walk = walk[pos:] + walk[:pos]
        rot = (target_dir + 5 - walk[0][1]) % 10
        offsets = [ORIGIN]
        dirs = []
        for _, d, ln in walk:
            dirs.append((d + rot) % 10)
            offsets.append(add(offsets[-1], edge_vector(d + rot, ln)))
        return Shape(tuple(offsets[:-1]), tuple(label for label, _, _ in walk), tuple(dirs))

    def shape(self, kind: int, face: int, edge: int, target_dir: int) -> Shape:
        """The shape of ``kind`` (face, edge laid on a target edge running along target_dir)."""
        return self._shapes[(kind, face, edge, target_dir % 10)]

    def opening_shape(self, kind: int, face: int) -> Shape:
        """The opening piece: v0 at the origin, e0 along the x-axis (mirrored below it)."""
        walk = self.ccw[kind][face]
        offsets = [ORIGIN]
        start = ORIGIN
        if face == 1:
            # e0 of the mirrored piece runs v1' -> v0' = (len e0, 0) -> origin.
            start = edge_vector(0, walk[0][2])
        offsets = [start]
        dirs = []
        for _, d, ln in walk:
            dirs.append(d)
            offsets.append(add(offsets[-1], edge_vector(d, ln)))
        return Shape(tuple(offsets[:-1]), tuple(label for label, _, _ in walk), tuple(dirs))

    def edge_length(self, kind: int, edge: int) -> tuple[int, int]:
        return self.kinds[kind].edges[edge][1]


def _check_polygon(kind: PieceKind) -> None:
    """Refuse a table row that does not describe a convex counter-clockwise polygon."""
    if kind.num_edges < 3:
        raise ConfigError(f"piece {kind.letter}: a polygon needs at least 3 edges")
    total = ORIGIN
    for d, (a, b) in kind.edges:
        if not (isinstance(d, int) and isinstance(a, int) and isinstance(b, int)):
            raise ConfigError(f"piece {kind.letter}: directions and lengths must be integers")
        if a < 0 or b < 0 or a + b == 0:
            raise ConfigError(f"piece {kind.letter}: edge lengths a + b*phi need a, b >= 0, not 0")
        total = add(total, edge_vector(d, (a, b)))
    if total != ORIGIN:
        raise ConfigError(f"piece {kind.letter}: the edges do not close the polygon")
    turns = [(kind.edges[(i + 1) % kind.num_edges][0] - d) % 10 for i, (d, _) in
             enumerate(kind.edges)]
    if any(t == 0 or t >= 5 for t in turns) or sum(turns) != 10:
        raise ConfigError(f"piece {kind.letter}: the polygon must be convex and counter-clockwise")


def make_piece_set(table: tuple[PieceKind, ...] = PIECE_TABLE) -> PieceSet:
    """Build (and check) a piece set from a table."""
    return PieceSet(table)


GOLDEN = make_piece_set(PIECE_TABLE)
