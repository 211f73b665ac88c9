"""Fang Qi board geometry as precomputed tables over 36-bit bitboards.

Points are a flat index, rank by rank from the bottom (``p = 6 * rank + file``)::

    rank 6   30 31 32 33 34 35      a6 b6 c6 d6 e6 f6
    rank 5   24 25 26 27 28 29      a5 .. f5
    rank 4   18 19 20 21 22 23      a4 .. f4
    rank 3   12 13 14 15 16 17      a3 .. f3
    rank 2    6  7  8  9 10 11      a2 .. f2
    rank 1    0  1  2  3  4  5      a1 b1 c1 d1 e1 f1
              a  b  c  d  e  f

A set of points is an ``int`` whose bit ``p`` is set for each point ``p`` (a bitboard). Every
shape is a fixed set of points, so "does this side own the whole shape" is one ``&`` and one
``==``; everything the hot path needs is computed here once, at import.

Action space (``NUM_ACTIONS = 192``):

* ``0 .. 35``    placement on point ``p`` (``c3``),
* ``36 .. 155``  the 120 directed steps along grid lines, ``STEPS[a - 36] = (from, to)`` in
  order of (from, to) (``c3-c4``),
* ``156 .. 191`` removal of the piece on point ``p`` (``xc3``): the pull, captures and
  making-room removals.
"""

from __future__ import annotations

SIZE = 6
NUM_POINTS = SIZE * SIZE
FILES = "abcdef"
POINT_NAMES: tuple[str, ...] = tuple(f"{FILES[p % SIZE]}{p // SIZE + 1}" for p in range(NUM_POINTS))
POINT_INDEX: dict[str, int] = {name: p for p, name in enumerate(POINT_NAMES)}

ALL = (1 << NUM_POINTS) - 1
FILE_A = sum(1 << (r * SIZE) for r in range(SIZE))
FILE_F = FILE_A << (SIZE - 1)
NOT_FILE_A = ALL & ~FILE_A
NOT_FILE_F = ALL & ~FILE_F

BIT: tuple[int, ...] = tuple(1 << p for p in range(NUM_POINTS))


def bits(mask: int) -> list[int]:
    """The points of a bitboard, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(points: list[int] | tuple[int, ...]) -> int:
    """The bitboard of a collection of points."""
    m = 0
    for p in points:
        m |= 1 << p
    return m


def _neighbours(p: int) -> list[int]:
    r, c = divmod(p, SIZE)
    out = []
    for dr, dc in ((-1, 0), (0, -1), (0, 1), (1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < SIZE and 0 <= cc < SIZE:
            out.append(rr * SIZE + cc)
    return out


#: Neighbours of each point (horizontal and vertical), in increasing order.
NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(tuple(_neighbours(p)) for p in range(NUM_POINTS))
NEIGHBOUR_MASK: tuple[int, ...] = tuple(mask_of(n) for n in NEIGHBOURS)

# ------------------------------------------------------------------------------ actions
PLACE_BASE = 0
STEP_BASE = NUM_POINTS
#: Directed steps (from, to), in order of (from, to).
STEPS: tuple[tuple[int, int], ...] = tuple((p, q) for p in range(NUM_POINTS) for q in NEIGHBOURS[p])
REMOVE_BASE = STEP_BASE + len(STEPS)  # 156
NUM_ACTIONS = REMOVE_BASE + NUM_POINTS  # 192
STEP_ACTION: dict[tuple[int, int], int] = {s: STEP_BASE + i for i, s in enumerate(STEPS)}

# Step actions indexed by direction, then by the point the piece steps from; used to turn the
# "pieces that can step this way" bitboards into action indices.
UP, DOWN, RIGHT, LEFT = 0, 1, 2, 3
_DELTA = {UP: SIZE, DOWN: -SIZE, RIGHT: 1, LEFT: -1}
STEP_BY_DIRECTION: tuple[tuple[int, ...], ...] = tuple(
    tuple(STEP_ACTION.get((p, p + _DELTA[d]), -1) for p in range(NUM_POINTS))
    for d in (UP, DOWN, RIGHT, LEFT)
)


def _byte_table(base: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """``table[i][v]``: the actions ``base + p`` for the points p set in byte i (value v)."""
    return tuple(
        tuple(
            tuple(base + 8 * i + k for k in range(8) if v >> k & 1 and 8 * i + k < NUM_POINTS)
            for v in range(256)
        )
        for i in range(5)
    )


_PLACE_BY_BYTE = _byte_table(PLACE_BASE)
_REMOVE_BY_BYTE = _byte_table(REMOVE_BASE)


def point_actions(mask: int, removal: bool) -> tuple[int, ...]:
    """The placement (or removal) actions on the points of ``mask``, in increasing order.

    Five table look-ups instead of a loop over the bits: this runs once per search node.
    """
    t = _REMOVE_BY_BYTE if removal else _PLACE_BY_BYTE
    return (
        t[0][mask & 255]
        + t[1][(mask >> 8) & 255]
        + t[2][(mask >> 16) & 255]
        + t[3][(mask >> 24) & 255]
        + t[4][mask >> 32]
    )


def step_sources(own: int, empty: int) -> tuple[int, int, int, int]:
    """Bitboards of ``own`` pieces that can step up, down, right, left onto ``empty``."""
    return (
        own & (empty >> SIZE),
        own & (empty << SIZE),
        own & (empty >> 1) & NOT_FILE_F,
        own & (empty << 1) & NOT_FILE_A,
    )


def can_step(own: int, empty: int) -> bool:
    """Whether any ``own`` piece has an empty neighbour (cheaper than listing the steps)."""
    return bool(
        own
        & (
            (empty >> SIZE)
            | (empty << SIZE)
            | ((empty >> 1) & NOT_FILE_F)
            | ((empty << 1) & NOT_FILE_A)
        )
    )


# ------------------------------------------------------------------------------ shapes
SQUARE_VALUE = 1
DRAGON_VALUE = 3
#: Value of a corner diagonal run by its length (the full diagonal is 6).
DIAGONAL_VALUE = {3: 1, 4: 2, 5: 3, 6: 4}

#: The 25 big squares (unit cells), each as a bitboard of its four corners.
SQUARES: tuple[int, ...] = tuple(
    mask_of((r * SIZE + c, r * SIZE + c + 1, (r + 1) * SIZE + c, (r + 1) * SIZE + c + 1))
    for r in range(SIZE - 1)
    for c in range(SIZE - 1)
)
#: The two long diagonals, each listed from one corner to the other: a1..f6 and a6..f1.
DIAGONALS: tuple[tuple[int, ...], ...] = (
    tuple(i * SIZE + i for i in range(SIZE)),
    tuple((SIZE - 1 - i) * SIZE + i for i in range(SIZE)),
)
#: Dragons: the inner ranks 2-5 and the inner files b-e.
DRAGONS: tuple[int, ...] = tuple(
    mask_of([r * SIZE + c for c in range(SIZE)]) for r in range(1, 5)
) + tuple(mask_of([r * SIZE + c for r in range(SIZE)]) for c in range(1, 5))

SQUARES_AT: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in SQUARES if m >> p & 1) for p in range(NUM_POINTS)
)
DRAGONS_AT: tuple[tuple[int, ...], ...] = tuple(
    tuple(m for m in DRAGONS if m >> p & 1) for p in range(NUM_POINTS)
)


def _diagonal_tables() -> tuple[tuple[int, ...], tuple[dict[int, int], ...]]:
    """For each point: its long diagonal's bitboard (0 if none) and a table own-bits -> value.

    The value is that of the corner run the point belongs to, per the counting rule: the run of
    own pieces starting at a corner, maximal, of length 3 or more, containing the point; the full
    diagonal counts once as six.
    """
    diag_mask = [0] * NUM_POINTS
    tables: list[dict[int, int]] = [{} for _ in range(NUM_POINTS)]
    for line in DIAGONALS:
        line_mask = mask_of(line)
        for i, p in enumerate(line):
            diag_mask[p] = line_mask
            for pattern in range(1 << SIZE):
                owned = [pattern >> k & 1 == 1 for k in range(SIZE)]
                if not owned[i]:
                    continue
                value = 0
                if all(owned):
                    value = DIAGONAL_VALUE[6]
                else:
                    lo = next(k for k in range(SIZE) if not owned[k])  # run from corner 0
                    hi = next(k for k in range(SIZE) if not owned[SIZE - 1 - k])  # from corner 5
                    if i < lo and lo >= 3:
                        value = DIAGONAL_VALUE[lo]
                    elif i >= SIZE - hi and hi >= 3:
                        value = DIAGONAL_VALUE[hi]
                if value:
                    tables[p][mask_of([line[k] for k in range(SIZE) if owned[k]])] = value
    return tuple(diag_mask), tuple(tables)


DIAGONAL_AT, _DIAGONAL_VALUE_AT = _diagonal_tables()


def shape_value(own: int, p: int) -> int:
    """Total value of the shapes of ``own`` (a bitboard including ``p``) that contain ``p``.

    This is what a placement or a step onto ``p`` forms: extra placements in the placement
    phase, captures in the movement phase.
    """
    value = 0
    for m in SQUARES_AT[p]:
        if own & m == m:
            value += SQUARE_VALUE
    d = DIAGONAL_AT[p]
    if d:
        value += _DIAGONAL_VALUE_AT[p].get(own & d, 0)
    for m in DRAGONS_AT[p]:
        if own & m == m:
            value += DRAGON_VALUE
    return value


def iron(own: int) -> int:
    """Bitboard of the pieces of ``own`` that are corners of a complete own big square."""
    pairs = own & (own >> 1) & NOT_FILE_F  # bit q: q and q+1 are own (q not on file f)
    cells = pairs & (pairs >> SIZE)  # bit q: the cell with lower-left corner q is complete
    return cells | (cells << 1) | (cells << SIZE) | (cells << (SIZE + 1))


# ------------------------------------------------------------------------------ symmetries
def _transform(k: int, p: int) -> int:
    """Point ``p`` under the k-th symmetry of the square (0 = identity, 1-3 rotations, 4-7
    reflections), on (rank, file) coordinates."""
    r, c = divmod(p, SIZE)
    n = SIZE - 1
    if k >= 4:
        c = n - c  # mirror files first, then rotate
    for _ in range(k % 4):
        r, c = c, n - r  # rotate 90 degrees
    return r * SIZE + c


NUM_SYMMETRIES = 8
#: POINT_PERM[k][p] = image of point p under symmetry k.
POINT_PERM: tuple[tuple[int, ...], ...] = tuple(
    tuple(_transform(k, p) for p in range(NUM_POINTS)) for k in range(NUM_SYMMETRIES)
)


def _action_perm(k: int) -> tuple[int, ...]:
    perm = POINT_PERM[k]
    out = [perm[p] for p in range(NUM_POINTS)]
    out += [STEP_ACTION[(perm[f], perm[t])] for f, t in STEPS]
    out += [REMOVE_BASE + perm[p] for p in range(NUM_POINTS)]
    return tuple(out)


#: ACTION_PERM[k][a] = image of action a under symmetry k.
ACTION_PERM: tuple[tuple[int, ...], ...] = tuple(_action_perm(k) for k in range(NUM_SYMMETRIES))


def transform_mask(k: int, mask: int) -> int:
    """A bitboard under symmetry ``k``."""
    perm = POINT_PERM[k]
    out = 0
    for p in bits(mask):
        out |= 1 << perm[p]
    return out
