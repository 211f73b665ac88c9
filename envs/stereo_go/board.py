"""Board graphs for Stereo Go: the 359-point cylinder and plain N×N boards.

A board is a flat point index with a neighbour table padded with -1, so the rules kernel never
knows which board it plays on. Point ``n_points`` (one past the last point) is the pass action.

The cylinder (default, ``board="cylinder"``): 17 meridians ``A``..``Q`` × 21 rings ``1``..``21``
plus the two poles. Ring points are ``(ring - 1) * 17 + meridian``; the poles come last::

                    NP = 357  (touches every point of ring 1)
    ring  1     0   1   2  ...  15  16        A1  B1  C1 ... P1  Q1
    ring  2    17  18  19  ...  32  33        A2  B2  C2 ... P2  Q2
    ...                                       (Q is next to A on every ring)
    ring 21   340 341 342  ... 355 356        A21 B21 ...    Q21
                    SP = 358  (touches every point of ring 21)
    pass = 359

Plain N×N boards (``board="9x9"``, 5 <= N <= 19) use GTP coordinates: columns ``A``..``T``
without ``I``, rank ``1`` at the bottom, point ``(rank - 1) * N + column``::

    rank N   N(N-1) ... N*N-1
    ...
    rank 1   0   1  ...  N-1          A1 B1 ... ; pass = N*N

Observation grid. The CNN sees the cylinder as 23 rows × 17 columns: row 0 is the north pole
(its value repeated across the row), rows 1..21 are rings 1..21, row 22 is the south pole;
column m is meridian m (the network pads columns circularly). A square board is N rows × N
columns, row r = rank r + 1. ``cell_point[r, c]`` gives the point shown in each cell.

Symmetries are graph automorphisms given both as a point permutation (for actions) and as a cell
permutation (for observation planes). The cylinder has 68: index ``s`` = rotation ``s % 17``
(meridian m -> m + r), then a meridian mirror when ``(s // 17) % 2`` (m -> -m), then a pole swap
when ``s >= 34`` (ring k -> 22 - k). Square boards have the 8 of the dihedral group.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

MERIDIANS = 17
RINGS = 21
CYLINDER_LETTERS = "ABCDEFGHIJKLMNOPQ"  # 17 meridians, the letter I included
GTP_LETTERS = "ABCDEFGHJKLMNOPQRST"  # GTP skips I
MIN_SIZE, MAX_SIZE = 5, 19

_SQUARE_RE = re.compile(r"^(\d+)x(\d+)$")


@dataclass(frozen=True, eq=False)
class Board:
    """A board graph with its notation, observation grid and symmetries (all precomputed).

    Attributes:
        name: ``"cylinder"`` or ``"NxN"``.
        n_points: number of points; the pass action is ``n_points``.
        nbr: ``(n_points, max_degree)`` int32 neighbour table padded with -1.
        deg: ``(n_points,)`` int32 degree of each point.
        names: notation of every point.
        cell_point: ``(rows, cols)`` int64, the point shown in each observation cell.
        sym_points: ``(num_symmetries, n_points)`` int64, image of each point.
        sym_cells: ``(num_symmetries, rows * cols)`` int64, source cell of each target cell.
    """

    name: str
    n_points: int
    nbr: np.ndarray
    deg: np.ndarray
    names: tuple[str, ...]
    cell_point: np.ndarray
    sym_points: np.ndarray
    sym_cells: np.ndarray

    @property
    def pass_action(self) -> int:
        return self.n_points

    @property
    def grid_shape(self) -> tuple[int, int]:
        return self.cell_point.shape  # type: ignore[return-value]

    @property
    def num_symmetries(self) -> int:
        return len(self.sym_points)

    @property
    def is_cylinder(self) -> bool:
        return self.name == "cylinder"

    def index(self, name: str) -> int | None:
        """Point index of a notation string (case-insensitive), or None."""
        return _name_index(self).get(name.strip().upper())


_INDEX_CACHE: dict[str, dict[str, int]] = {}


def _name_index(board: Board) -> dict[str, int]:
    if board.name not in _INDEX_CACHE:
        _INDEX_CACHE[board.name] = {n: i for i, n in enumerate(board.names)}
    return _INDEX_CACHE[board.name]


def _table(neighbours: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = max(len(n) for n in neighbours)
    nbr = np.full((len(neighbours), width), -1, dtype=np.int32)
    for p, ns in enumerate(neighbours):
        nbr[p, : len(ns)] = sorted(ns)
    deg = np.array([len(n) for n in neighbours], dtype=np.int32)
    return nbr, deg


def _cylinder() -> Board:
    n_ring = MERIDIANS * RINGS
    north, south = n_ring, n_ring + 1
    neighbours: list[list[int]] = [[] for _ in range(n_ring + 2)]
    for ring in range(RINGS):
        for m in range(MERIDIANS):
            p = ring * MERIDIANS + m
            ns = [ring * MERIDIANS + (m + 1) % MERIDIANS, ring * MERIDIANS + (m - 1) % MERIDIANS]
            ns.append((ring - 1) * MERIDIANS + m if ring > 0 else north)
            ns.append((ring + 1) * MERIDIANS + m if ring < RINGS - 1 else south)
            neighbours[p] = ns
    neighbours[north] = list(range(MERIDIANS))
    neighbours[south] = list(range((RINGS - 1) * MERIDIANS, n_ring))
    nbr, deg = _table(neighbours)
    names = tuple(
        f"{CYLINDER_LETTERS[p % MERIDIANS]}{p // MERIDIANS + 1}" for p in range(n_ring)
    ) + ("NP", "SP")
    rows = RINGS + 2
    cell_point = np.empty((rows, MERIDIANS), dtype=np.int64)
    cell_point[0] = north
    cell_point[-1] = south
    for ring in range(RINGS):
        cell_point[ring + 1] = ring * MERIDIANS + np.arange(MERIDIANS)
    sym_points, sym_cells = [], []
    for s in range(4 * MERIDIANS):
        rot, mirror, swap = s % MERIDIANS, (s // MERIDIANS) % 2, s // (2 * MERIDIANS)

        def cell_image(r: int, c: int) -> tuple[int, int]:
            c2 = ((-c if mirror else c) + rot) % MERIDIANS
            return (rows - 1 - r if swap else r), c2

        pts = np.empty(n_ring + 2, dtype=np.int64)
        src = np.empty(rows * MERIDIANS, dtype=np.int64)
        for r in range(rows):
            for c in range(MERIDIANS):
                r2, c2 = cell_image(r, c)
                pts[cell_point[r, c]] = cell_point[r2, c2]
                src[r2 * MERIDIANS + c2] = r * MERIDIANS + c
        sym_points.append(pts)
        sym_cells.append(src)
    return Board(
        "cylinder", n_ring + 2, nbr, deg, names, cell_point,
        np.array(sym_points), np.array(sym_cells),
    )


def _square(n: int) -> Board:
    neighbours: list[list[int]] = []
    for p in range(n * n):
        r, c = divmod(p, n)
        ns = [
            (r + dr) * n + (c + dc)
            for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0))
            if 0 <= r + dr < n and 0 <= c + dc < n
        ]
        neighbours.append(ns)
    nbr, deg = _table(neighbours)
    names = tuple(f"{GTP_LETTERS[p % n]}{p // n + 1}" for p in range(n * n))
    cell_point = np.arange(n * n, dtype=np.int64).reshape(n, n)
    sym_points, sym_cells = [], []
    for s in range(8):

        def image(r: int, c: int) -> tuple[int, int]:
            if s & 4:
                r, c = c, r
            if s & 1:
                r = n - 1 - r
            if s & 2:
                c = n - 1 - c
            return r, c

        pts = np.empty(n * n, dtype=np.int64)
        for r in range(n):
            for c in range(n):
                r2, c2 = image(r, c)
                pts[r * n + c] = r2 * n + c2
        src = np.empty(n * n, dtype=np.int64)
        src[pts] = np.arange(n * n)
        sym_points.append(pts)
        sym_cells.append(src)
    return Board(
        f"{n}x{n}", n * n, nbr, deg, names, cell_point, np.array(sym_points), np.array(sym_cells)
    )


_BOARDS: dict[str, Board] = {}


def board_names() -> tuple[str, ...]:
    """Every accepted value of the ``board`` config option."""
    return ("cylinder",) + tuple(f"{n}x{n}" for n in range(MIN_SIZE, MAX_SIZE + 1))


def parse_board_name(name: str) -> int | None:
    """Side length of an ``"NxN"`` name, None for the cylinder; ValueError otherwise."""
    if name == "cylinder":
        return None
    m = _SQUARE_RE.match(name) if isinstance(name, str) else None
    if not m or m.group(1) != m.group(2) or not MIN_SIZE <= int(m.group(1)) <= MAX_SIZE:
        raise ValueError(
            f"board must be 'cylinder' or 'NxN' with {MIN_SIZE} <= N <= {MAX_SIZE}, got {name!r}"
        )
    return int(m.group(1))


def get_board(name: str) -> Board:
    """The (cached, shared, read-only) board called ``name``."""
    if name not in _BOARDS:
        size = parse_board_name(name)
        board = _cylinder() if size is None else _square(size)
        for arr in (board.nbr, board.deg, board.cell_point, board.sym_points, board.sym_cells):
            arr.flags.writeable = False
        _BOARDS[name] = board
    return _BOARDS[name]
