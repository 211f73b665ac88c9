"""The Go rules kernel: incremental chains, liberties and positional superko on any board graph.

Why a kernel: the engine sits in the innermost loop of self-play. A first version that called
small helper functions per point spent most of its time in call overhead; these functions are
compiled with numba (a dependency) and written as few, flat loops over row views. Without numba
they run unchanged as plain Python (correct, much slower). They take and mutate plain numpy
arrays; immutable-state semantics live one level up (``game.py`` copies ``g`` before a move).

Arrays (one column per point; n = number of points):

``g`` — int32 ``(ROWS, n)``, the whole mutable position (int32 halves the copy per move):
    ``BOARD`` 0 empty, 1 black, 2 white; ``HEAD`` the chain's representative point (-1 if
    empty); ``NEXT`` the next stone of the chain (a circular list); and, valid at a chain's
    head only, ``SIZE`` (stones), ``PL`` (pseudo-liberties: (stone, empty neighbour) pairs),
    ``LS`` and ``LQ`` (sum and sum of squares of the pseudo-liberty points). A chain is in atari
    exactly when all its pseudo-liberties are the same point, i.e. ``PL * LQ == LS ** 2``
    (the equality case of Cauchy-Schwarz), so atari tests are O(1) and a move touches only the
    chains next to it (products are taken in int64). ``BLOOM`` is a Bloom filter (two bits per
    hash, a power-of-two number of 32-bit words <= n) of the history hashes: the exact history
    is searched only on a Bloom hit. ``META`` holds the scalars, the game's constants
    (``M_*`` slots) and, from ``M_VACATED`` on, a bitset of the points captures have emptied.
    ``CODE`` caches what the legal-move scan needs per point, kept up to date by every move
    (``place`` recomputes only the points a move can affect): bit 0 / bit 2 black / white may
    play there (empty, not suicide), bit 1 / bit 3 that move captures, bit 4 a capture emptied
    the point (the ``M_VACATED`` bitset again). A move's legality is then one read plus, for
    the few points where superko is possible, a hash lookup; see ``collect``.
``hist`` — the history: an append-only int64 buffer shared along a line of play. ``hist[0]``
    is how many hashes the buffer holds, ``hist[1 : 1 + g[META, M_HIST_LEN]]`` are the hashes
    of this state's positions so far (the current one included); a stone move is refused when
    the position it makes is among them (positional superko). A move appends in place when
    this state is the buffer's newest (the common case: no copy per move); a state whose
    buffer was already extended by a sibling gets a copy (``step`` returns ``NEED_BUFFER``).
    Entries are never overwritten, so every state sharing a buffer keeps its own history.
``C`` — int64 ``(n, D + 3)`` constants of the board, one row per point so that a point's data
    share a cache line: columns ``0..D-1`` its neighbours (padded with -1), column ``D`` its
    degree, columns ``D+1`` / ``D+2`` the Zobrist keys of a black / white stone there.

The Zobrist hash of a position is the XOR of the keys of its stones (the empty board hashes to
0); the side to move is not part of it: superko here is positional.
"""

from __future__ import annotations

import numpy as np

try:  # numba is a dependency; the fallback keeps the rules importable (slowly) without it.
    from numba import njit
except ImportError:  # pragma: no cover - exercised only where numba is missing

    def njit(*args, **kwargs):  # type: ignore[no-redef]
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


EMPTY, BLACK, WHITE = 0, 1, 2

# rows of g
BOARD, HEAD, NEXT, SIZE, PL, LS, LQ, BLOOM, META, CODE = range(10)
ROWS = 10

# bits of the CODE row (C_OK and C_CAP shifted left by 2 * (colour - 1): black 0, white 2)
C_OK = 1  # the colour may play here: the point is empty and the stone would not be suicide
C_CAP = 2  # a stone of the colour here captures
C_VACATED = 16  # a capture has emptied this point at some time (as the M_VACATED bitset)

# slots of the META row
M_TO_PLAY = 0  # 0 black, 1 white
M_PASSES = 1  # consecutive passes by the players (handicap passes excluded)
M_HANDICAP = 2  # automatic White passes still to come
M_PLY = 3  # actions applied so far
M_CAPS_BLACK = 4  # white stones captured by black (black's prisoners)
M_CAPS_WHITE = 5
M_LAST = 6  # last action, -1 before the first
M_HASH = 7  # Zobrist hash of the position: low 32 bits here, high 32 bits in M_HASH_HI
M_OUTCOME = 8  # -1 ongoing, 0 black won, 1 white won, 2 tie
M_END = 9  # why the game ended: see END_*
M_SCORE_BLACK = 10  # final Tromp-Taylor score without komi (when ended by passes or the cap)
M_SCORE_WHITE = 11
M_NOVEL = 12  # 1 + a stone placed since the last capture on a point no capture had emptied
#               before (0: none). Every earlier position lacks that stone (the point was empty
#               up to then), and every position since the last capture has a subset of the
#               current stones: a move that keeps that stone cannot repeat a position.
M_BLOOM_MASK = 13  # bit-index mask of the Bloom filter (a constant of the board)
M_HIST_LEN = 14  # number of history hashes of this state in hist[1:]
M_MAX_MOVES = 15  # game constants: the move cap,
M_AREA = 16  # 1 for area scoring, 0 for territory,
M_KOMI4 = 17  # and 4 x komi (komi is a multiple of 0.25)
M_HASH_HI = 18
M_STONES = 19  # stones on the board
M_MAX_STONES = 20  # most stones of any position in the history (an upper bound): a move that
#                    captures nothing makes a position of M_STONES + 1 stones, which cannot be
#                    in the history when that exceeds this, so its superko check is skipped
M_VACATED = 21  # from here on: a bitset of the points a capture has ever emptied. A move
#                 that captures nothing on a point never emptied by a capture makes a position
#                 with a stone where no earlier position had one: no superko check needed.
META_LEN = M_VACATED  # fixed slots; the bitset takes ceil(n / 32) more (n >= 25 leaves room)

END_NONE, END_PASSES, END_RESIGN, END_MOVE_CAP = 0, 1, 2, 3

# legality codes (step also answers NEED_BUFFER: give it a history buffer it may append to)
OK, OCCUPIED, SUICIDE, SUPERKO, GAME_OVER, NEED_BUFFER, OUT_OF_RANGE = 0, 1, 2, 3, 4, 5, 6

NUM_PLANES = 11


def zobrist_table(n_points: int) -> np.ndarray:
    """Fixed (seeded) Zobrist keys, so hashes in saved states stay valid across runs."""
    rng = np.random.Generator(np.random.PCG64(0x5733_60C0 + n_points))
    return rng.integers(1, 2**63 - 1, size=(2, n_points), dtype=np.int64)


def constants(nbr: np.ndarray, deg: np.ndarray) -> np.ndarray:
    """The ``C`` array of a board from its neighbour table (n, D) and degrees."""
    n, d = nbr.shape
    c = np.empty((n, d + 3), dtype=np.int64)
    c[:, :d] = nbr
    c[:, d] = deg
    c[:, d + 1 :] = zobrist_table(n).T
    return c


@njit(cache=True, inline="always")
def get_hash(g):
    """The position's 64-bit Zobrist hash from its two int32 halves."""
    return (np.int64(g[META, M_HASH_HI]) << 32) | (np.int64(g[META, M_HASH]) & 0xFFFFFFFF)


@njit(cache=True, inline="always")
def _i32(x):
    """The low 32 bits of ``x`` as a signed value (what an int32 slot can hold)."""
    return ((x & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000


@njit(cache=True, inline="always")
def _set_hash(g, h):
    g[META, M_HASH] = _i32(h)
    g[META, M_HASH_HI] = h >> 32


@njit(cache=True)
def position_hash(g):
    """The position's Zobrist hash (callable from Python)."""
    return get_hash(g)


@njit(cache=True)
def scan(g, hist, C, colour, first, last, out, collect):
    """Legality of ``colour`` playing each point of ``first..last-1``.

    With ``collect`` false, writes each point's code (OK, OCCUPIED, SUICIDE, SUPERKO) into
    ``out[p - first]``; with ``collect`` true, writes the legal points in order into ``out``
    instead. Returns how many points were written as legal (collect) or 0.

    The one implementation of move legality, written as a single flat loop that indexes the
    2-D arrays directly: per-point helper calls or row views (reference counted by numba)
    cost more than the work itself, and this runs over every point of every legal-move scan.
    """
    d = C.shape[1] - 3
    h0 = get_hash(g)
    mask = np.int64(g[META, M_BLOOM_MASK])
    fresh = g[META, M_STONES] + 1 > g[META, M_MAX_STONES]
    nh = g[META, M_HIST_LEN]
    caps = np.empty(d, dtype=np.int64)
    k = 0
    for p in range(first, last):
        code = OK
        if g[BOARD, p] != EMPTY:
            code = OCCUPIED
        else:
            has_lib = False
            ncap = 0
            h = h0
            for j in range(C[p, d]):
                q = C[p, j]
                v = g[BOARD, q]
                if v == EMPTY:
                    has_lib = True
                    continue
                if v == colour and has_lib:
                    continue  # nothing more to learn from an own chain
                hq = g[HEAD, q]
                ls = np.int64(g[LS, hq])
                atari = np.int64(g[PL, hq]) * g[LQ, hq] == ls * ls
                if v == colour:
                    if not atari:
                        has_lib = True
                elif atari:  # its only liberty is p: captured
                    seen = False
                    for i in range(ncap):
                        if caps[i] == hq:
                            seen = True
                    if not seen:
                        caps[ncap] = hq
                        ncap += 1
                        s = hq
                        while True:
                            h ^= C[s, d + 3 - colour]
                            s = g[NEXT, s]
                            if s == hq:
                                break
            if not has_lib and ncap == 0:
                code = SUICIDE
            elif ncap > 0 or not (
                fresh or ((g[META, M_VACATED + (p >> 5)] >> (p & 31)) & 1) == 0
            ):
                h ^= C[p, d + colour]
                b1 = (h >> 11) & mask
                b2 = (h >> 37) & mask
                if (g[BLOOM, b1 >> 5] >> (b1 & 31)) & (g[BLOOM, b2 >> 5] >> (b2 & 31)) & 1:
                    for i in range(nh, 0, -1):  # maybe seen: search exactly, newest first
                        if hist[i] == h:
                            code = SUPERKO
                            break
        if collect:
            if code == OK:
                out[k] = p
                k += 1
        else:
            out[p - first] = code
    return k


@njit(cache=True)
def legal_code(g, hist, C, p):
    """Legality code of a stone on ``p`` for the side to move (game over not checked)."""
    codes = np.empty(1, dtype=np.int8)
    scan(g, hist, C, g[META, M_TO_PLAY] + 1, p, p + 1, codes, False)
    return codes[0]


@njit(cache=True)
def legal_actions(g, hist, C, out):
    """Write the legal actions of the side to move, sorted, pass last, into ``out`` (length
    n + 1); returns how many (filling a caller's buffer is cheaper than returning an array)."""
    n = g.shape[1]
    if g[META, M_OUTCOME] >= 0:
        return 0
    k = scan(g, hist, C, g[META, M_TO_PLAY] + 1, 0, n, out, True)
    out[k] = n
    return k + 1


@njit(cache=True, inline="always")
def _remove_chain(g, C, h, colour):
    """Take chain ``h`` off the board; its points become liberties of the chains around it.

    Returns the number of stones removed and the XOR of their Zobrist keys.
    """
    board = g[BOARD]
    head = g[HEAD]
    nxt = g[NEXT]
    d = C.shape[1] - 3
    s = h
    n = 0
    x = np.int64(0)
    while True:
        board[s] = EMPTY
        head[s] = -1
        x ^= C[s, d + colour]
        g[META, M_VACATED + (s >> 5)] |= _i32(np.int64(1) << (s & 31))
        g[CODE, s] |= C_VACATED
        n += 1
        s = nxt[s]
        if s == h:
            break
    s = h
    while True:
        for k in range(C[s, d]):
            t = C[s, k]
            if board[t] != EMPTY:
                ht = head[t]
                g[PL, ht] += 1
                g[LS, ht] += s
                g[LQ, ht] += s * s
        s = nxt[s]
        if s == h:
            break
    return n, x


@njit(cache=True, inline="always")
def _merge(g, a, b):
    """Join chains with heads ``a`` and ``b`` (relabelling the smaller one)."""
    if g[SIZE, a] < g[SIZE, b]:
        a, b = b, a
    s = b
    while True:
        g[HEAD, s] = a
        s = g[NEXT, s]
        if s == b:
            break
    na = g[NEXT, a]
    g[NEXT, a] = g[NEXT, b]
    g[NEXT, b] = na
    g[SIZE, a] += g[SIZE, b]
    g[PL, a] += g[PL, b]
    g[LS, a] += g[LS, b]
    g[LQ, a] += g[LQ, b]


@njit(cache=True, inline="always")
def _atari(g, h):
    """Whether the chain with head ``h`` has one liberty (all its pseudo-liberties alike)."""
    ls = np.int64(g[LS, h])
    return np.int64(g[PL, h]) * g[LQ, h] == ls * ls


@njit(cache=True, inline="always")
def _point_code(g, C, p, d):
    """The CODE bits 0..3 of point ``p`` (see the module docstring); 0 on a stone."""
    if g[BOARD, p] != EMPTY:
        return 0
    lib_b = False  # a stone here would have a liberty (an empty point or a safe own chain)
    lib_w = False
    cap_b = False  # ... would capture (a neighbouring chain of the other colour in atari)
    cap_w = False
    for j in range(C[p, d]):
        q = C[p, j]
        v = g[BOARD, q]
        if v == EMPTY:
            lib_b = True
            lib_w = True
        elif _atari(g, g[HEAD, q]):
            if v == BLACK:
                cap_w = True
            else:
                cap_b = True
        elif v == BLACK:
            lib_b = True
        else:
            lib_w = True
    code = 0
    if lib_b or cap_b:
        code |= C_OK
    if cap_b:
        code |= C_CAP
    if lib_w or cap_w:
        code |= C_OK << 2
    if cap_w:
        code |= C_CAP << 2
    return code


@njit(cache=True, inline="always")
def _update(g, C, p, d):
    g[CODE, p] = (g[CODE, p] & C_VACATED) | _point_code(g, C, p, d)


@njit(cache=True)
def init_codes(g, C):
    """Fill the CODE row from the chains (``rebuild``) and the ``M_VACATED`` bitset."""
    d = C.shape[1] - 3
    for p in range(g.shape[1]):
        vacated = (g[META, M_VACATED + (p >> 5)] >> (p & 31)) & 1
        g[CODE, p] = _point_code(g, C, p, d) | (C_VACATED if vacated else 0)


@njit(cache=True, inline="always")
def _seen_head(g, C, p, k, h):
    """Whether a neighbour of ``p`` before its ``k``-th one is a stone of chain ``h``."""
    for i in range(k):
        r = C[p, i]
        if g[BOARD, r] != EMPTY and g[HEAD, r] == h:
            return True
    return False


@njit(cache=True)
def place(g, C, p, colour):
    """Put a stone (assumed legal) and resolve captures; returns the number captured.

    Also keeps the CODE row up to date. A point's code depends only on its own emptiness and
    its neighbours' (emptiness, colour, whether their chain is in atari). So a move changes the
    codes of p and its neighbours, of the captured stones and their neighbours, and of the
    liberties of chains whose atari status changed; such a chain is in atari before or after
    the move, with one liberty then (LS / PL): those are recomputed, found before the move
    (chains next to p or to a captured chain) and after it (chains next to p).
    """
    board = g[BOARD]
    head = g[HEAD]
    d = C.shape[1] - 3
    deg = C[p, d]
    opp = 3 - colour
    # Before the move. ``pre`` lists points to recompute afterwards, and captured chains as
    # -1 - head (their stones keep their NEXT links once removed). Only needed when a chain
    # next to p is in atari: allocated then only.
    extra = 0
    for k in range(deg):
        q = C[p, k]
        v = board[q]
        if v != EMPTY and _atari(g, head[q]):
            extra += g[SIZE, head[q]] * d + 1 if v == opp else 1
    npre = 0
    pre = np.empty(extra, dtype=np.int64)
    if extra:
        for k in range(deg):
            q = C[p, k]
            v = board[q]
            if v == EMPTY:
                continue
            hq = head[q]
            if not _atari(g, hq) or _seen_head(g, C, p, k, hq):
                continue
            if v == colour:  # joins p's chain: its one liberty may stop being an atari point
                pre[npre] = g[LS, hq] // g[PL, hq]
                npre += 1
            else:  # captured: it frees the own chains in atari next to it
                pre[npre] = -1 - hq
                npre += 1
                s = hq
                while True:
                    for j in range(C[s, d]):
                        t = C[s, j]
                        if board[t] == colour:
                            ht = head[t]
                            if _atari(g, ht):
                                pre[npre] = g[LS, ht] // g[PL, ht]
                                npre += 1
                    s = g[NEXT, s]
                    if s == hq:
                        break
    h = get_hash(g) ^ C[p, d + colour]
    board[p] = colour
    head[p] = p
    g[NEXT, p] = p
    g[SIZE, p] = 1
    pl = 0
    ls = 0
    lq = 0
    for k in range(C[p, d]):
        q = C[p, k]
        if board[q] == EMPTY:
            pl += 1
            ls += q
            lq += q * q
        else:
            hq = head[q]
            g[PL, hq] -= 1
            g[LS, hq] -= p
            g[LQ, hq] -= p * p
    g[PL, p] = pl
    g[LS, p] = ls
    g[LQ, p] = lq
    captured = 0
    for k in range(C[p, d]):
        q = C[p, k]
        if board[q] == opp:
            hq = head[q]
            if g[PL, hq] == 0:
                n, x = _remove_chain(g, C, hq, opp)
                captured += n
                h ^= x
    _set_hash(g, h)
    g[META, M_STONES] += 1 - captured
    for k in range(C[p, d]):
        q = C[p, k]
        if board[q] == colour:
            a = head[q]
            b = head[p]
            if a != b:
                _merge(g, a, b)
    # After the move: the codes that may have changed.
    _update(g, C, p, d)
    for k in range(deg):
        q = C[p, k]
        if board[q] == EMPTY:  # an empty neighbour, or a captured stone
            _update(g, C, q, d)
        else:
            hq = head[q]
            if _atari(g, hq):
                _update(g, C, g[LS, hq] // g[PL, hq], d)
    for i in range(npre):
        e = pre[i]
        if e >= 0:
            _update(g, C, e, d)
            continue
        hq = -1 - e
        s = hq
        while True:
            _update(g, C, s, d)
            for j in range(C[s, d]):
                t = C[s, j]
                if board[t] == EMPTY:
                    _update(g, C, t, d)
            s = g[NEXT, s]
            if s == hq:
                break
    return captured


@njit(cache=True)
def _bloom_add(g, h):
    mask = np.int64(g[META, M_BLOOM_MASK])
    b1 = (h >> 11) & mask
    b2 = (h >> 37) & mask
    g[BLOOM, b1 >> 5] |= _i32(np.int64(1) << (b1 & 31))
    g[BLOOM, b2 >> 5] |= _i32(np.int64(1) << (b2 & 31))


@njit(cache=True)
def set_history(g, hist):
    """Point ``g`` at the first ``hist[0]`` hashes of ``hist`` and rebuild its Bloom row.

    The Bloom filter has a power-of-two number of 32-bit words, at most n.
    """
    g[BLOOM, :] = 0
    words = 1
    while words * 2 <= g.shape[1]:
        words *= 2
    g[META, M_BLOOM_MASK] = words * 32 - 1
    g[META, M_HIST_LEN] = hist[0]
    for i in range(1, hist[0] + 1):
        _bloom_add(g, hist[i])


@njit(cache=True)
def territory(board, C):
    """Empty points reached by black only and by white only (Tromp-Taylor regions)."""
    n = board.shape[0]
    d = C.shape[1] - 3
    seen = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)
    tb = 0
    tw = 0
    for p0 in range(n):
        if board[p0] != EMPTY or seen[p0]:
            continue
        seen[p0] = True
        stack[0] = p0
        top = 1
        size = 0
        border = 0
        while top > 0:
            top -= 1
            p = stack[top]
            size += 1
            for k in range(C[p, d]):
                q = C[p, k]
                v = board[q]
                if v == EMPTY:
                    if not seen[q]:
                        seen[q] = True
                        stack[top] = q
                        top += 1
                else:
                    border |= v
        if border == BLACK:
            tb += size
        elif border == WHITE:
            tw += size
    return tb, tw


@njit(cache=True)
def finish(g, C):
    """Score the final position Tromp-Taylor style (every stone alive) and set the outcome."""
    board = g[BOARD]
    tb, tw = territory(board, C)
    if g[META, M_AREA]:
        sb = tb
        sw = tw
        for p in range(board.shape[0]):
            if board[p] == BLACK:
                sb += 1
            elif board[p] == WHITE:
                sw += 1
    else:
        sb = tb + g[META, M_CAPS_BLACK]
        sw = tw + g[META, M_CAPS_WHITE]
    g[META, M_SCORE_BLACK] = sb
    g[META, M_SCORE_WHITE] = sw
    diff = 4 * (sb - sw) - g[META, M_KOMI4]
    g[META, M_OUTCOME] = 0 if diff > 0 else (1 if diff < 0 else 2)


@njit(cache=True, inline="always")
def _fresh(g):
    """Whether a stone that captures nothing makes a position with more stones than any
    earlier one (then it cannot repeat one)."""
    return g[META, M_STONES] + 1 > g[META, M_MAX_STONES]


@njit(cache=True, inline="always")
def _novel_capture_point(g, colour):
    """With a novel stone (``M_NOVEL``) of the other colour than ``colour`` in atari: its
    chain's liberty, the one move of ``colour`` that removes it; else -1."""
    x = g[META, M_NOVEL] - 1
    if x < 0 or g[BOARD, x] == colour:
        return -1
    h = g[HEAD, x]
    if not _atari(g, h):
        return -1
    return g[LS, h] // g[PL, h]


@njit(cache=True, inline="always")
def _may_repeat(g, p, colour, code):
    """Whether a legal stone of ``colour`` on ``p`` (``code``: its CODE bits for that colour,
    shifted down) might repeat a position. Not when it keeps the novel stone (``M_NOVEL``);
    without one, only when it captures or fills a point a capture emptied while the position
    is not fresh (see ``scan``)."""
    if g[META, M_NOVEL]:
        return p == _novel_capture_point(g, colour)
    return (code & C_CAP) != 0 or (not _fresh(g) and (g[CODE, p] & C_VACATED) != 0)


@njit(cache=True)
def _repeats(g, hist, C, p, colour, code):
    """Whether a stone of ``colour`` on ``p`` (legal but for superko; ``code``: its CODE bits
    for that colour, shifted down) makes a position of the history."""
    d = C.shape[1] - 3
    h = get_hash(g) ^ C[p, d + colour]
    if code & C_CAP:
        opp = 3 - colour
        for k in range(C[p, d]):
            q = C[p, k]
            if g[BOARD, q] != opp:
                continue
            hq = g[HEAD, q]
            if not _atari(g, hq) or _seen_head(g, C, p, k, hq):
                continue
            s = hq
            while True:
                h ^= C[s, d + opp]
                s = g[NEXT, s]
                if s == hq:
                    break
    return _seen(g, hist, h)


@njit(cache=True, inline="always")
def _seen(g, hist, h):
    """Whether the position hash ``h`` is in the history (the Bloom filter first)."""
    mask = np.int64(g[META, M_BLOOM_MASK])
    b1 = (h >> 11) & mask
    b2 = (h >> 37) & mask
    found = False
    if (g[BLOOM, b1 >> 5] >> (b1 & 31)) & (g[BLOOM, b2 >> 5] >> (b2 & 31)) & 1:
        # Maybe seen: search. A loop without an early exit compiles to vector code, several
        # times faster than stopping at a match (found or not, all of it is read).
        for i in range(1, np.int64(g[META, M_HIST_LEN]) + 1):
            if hist[i] == h:
                found = True
    return found


@njit(cache=True)
def collect(g, hist, C, mask):
    """The legal actions of the side to move as a boolean mask into ``mask`` (length n + 1,
    pass last), from the CODE row; returns how many (0 once the game is over)."""
    n = g.shape[1]
    if g[META, M_OUTCOME] >= 0:
        mask[:] = False
        return 0
    mover = g[META, M_TO_PLAY]
    shift = 2 * mover
    need = C_CAP << shift  # the codes that call for a superko check
    if not _fresh(g):
        need |= C_VACATED
    codes = g[CODE]
    # A branch-free pass (compiled to vector code), then the superko checks.
    k = 0
    check = 0
    for p in range(n):
        c = codes[p]
        ok = (c >> shift) & C_OK
        mask[p] = ok
        k += ok
        check |= c & need & -ok
    if g[META, M_NOVEL]:  # at most one move may repeat a position: the novel stone's capture
        p = _novel_capture_point(g, mover + 1)
        if p >= 0 and mask[p] and _repeats(g, hist, C, p, mover + 1, (codes[p] >> shift) & 3):
            mask[p] = False
            k -= 1
    elif check:
        colour = mover + 1
        d = C.shape[1] - 3
        h0 = get_hash(g)
        legal = C_OK << shift
        capture = C_CAP << shift
        for p in range(n):
            c = codes[p]
            if c & legal and c & need:
                if c & capture:
                    repeats = _repeats(g, hist, C, p, colour, C_OK | C_CAP)
                else:
                    repeats = _seen(g, hist, h0 ^ C[p, d + colour])
                if repeats:
                    mask[p] = False
                    k -= 1
    mask[n] = True
    return k + 1


@njit(cache=True)
def mask_actions(mask, out):
    """The indices of ``mask``'s true entries, in order, into ``out``; returns how many."""
    k = 0
    for p in range(mask.shape[0]):
        out[k] = p  # written always, kept when legal: no branch to mispredict
        k += mask[p]
    return k


@njit(cache=True)
def step(g, hist, C, action):
    """Apply ``action`` in place on ``g`` (and append to ``hist``); returns a status code.

    OK: done. OCCUPIED / SUICIDE / SUPERKO / GAME_OVER: refused, nothing changed.
    NEED_BUFFER: the move is legal but ``hist`` cannot take this state's next hash (full, or
    already extended by another line of play); nothing changed: retry with a fresh copy.
    """
    if g[META, M_OUTCOME] >= 0:
        return GAME_OVER
    n = g.shape[1]
    if action < 0 or action > n:
        return OUT_OF_RANGE
    mover = g[META, M_TO_PLAY]
    if action == n:
        g[META, M_PASSES] += 1
    else:
        code = (g[CODE, action] >> (2 * mover)) & (C_OK | C_CAP)
        if not code & C_OK:
            return OCCUPIED if g[BOARD, action] != EMPTY else SUICIDE
        colour = mover + 1
        if _may_repeat(g, action, colour, code) and _repeats(g, hist, C, action, colour, code):
            return SUPERKO
        length = g[META, M_HIST_LEN]
        if hist[0] != length or length + 1 >= hist.shape[0]:
            return NEED_BUFFER
        emptied = g[CODE, action] & C_VACATED
        captured = place(g, C, action, mover + 1)
        g[META, M_CAPS_BLACK + mover] += captured
        if captured:
            g[META, M_NOVEL] = 0 if emptied else action + 1
        elif not emptied and g[META, M_NOVEL] == 0:
            g[META, M_NOVEL] = action + 1
        g[META, M_PASSES] = 0
        h = get_hash(g)
        hist[length + 1] = h
        hist[0] = length + 1
        g[META, M_HIST_LEN] = length + 1
        _bloom_add(g, h)
        if g[META, M_STONES] > g[META, M_MAX_STONES]:
            g[META, M_MAX_STONES] = g[META, M_STONES]
    g[META, M_PLY] += 1
    g[META, M_LAST] = action
    if mover == 0 and g[META, M_HANDICAP] > 0:
        g[META, M_HANDICAP] -= 1  # White's automatic pass: Black moves again
    else:
        g[META, M_TO_PLAY] = 1 - mover
    if g[META, M_PASSES] >= 2:
        g[META, M_END] = END_PASSES
    elif g[META, M_PLY] >= g[META, M_MAX_MOVES]:
        g[META, M_END] = END_MOVE_CAP
    if g[META, M_END] != END_NONE:
        finish(g, C)
    return OK


@njit(cache=True)
def step_mask(g, hist, C, action, mask):
    """``step``, then the new position's legal actions as a mask into ``mask`` (``collect``).

    Returns how many legal actions (0 once the game is over), or ``-status`` when ``step``
    refused. One compiled call per ply: the call overhead is a large part of a ply's cost.
    """
    status = step(g, hist, C, action)
    if status != OK:
        return -status
    return collect(g, hist, C, mask)


@njit(cache=True)
def random_playout(g, hist, C, mask, count, rng, max_plies):
    """Uniformly random legal actions, in place, until the game ends or ``max_plies`` were
    played; returns the outcome slot (-1: still going).

    Pure MCTS spends nearly all its time in playouts, and one compiled call per ply cost
    more than the ply itself. ``mask`` and ``count`` are the position's legal actions (as
    ``collect`` writes them; overwritten); ``hist`` must be a buffer this playout may append
    ``max_plies`` hashes to. ``rng`` is a ``numpy.random.Generator``: numba draws
    ``integers(0, count)`` exactly as NumPy does, so the playout is the generic loop's
    (``Game.random_playout``) move for move.
    """
    for _ in range(max_plies):
        if count == 0:
            break
        rank = rng.integers(0, count)
        action = 0
        while not mask[action] or rank > 0:  # the rank-th legal action, in index order
            rank -= mask[action]
            action += 1
        if step(g, hist, C, action) != OK:
            raise RuntimeError("random_playout: a legal move was refused (history buffer full?)")
        count = collect(g, hist, C, mask)
    return g[META, M_OUTCOME]


@njit(cache=True)
def rebuild(g, C):
    """Fill the chain rows of ``g`` from its BOARD row and hash the position into META.

    Returns how many chains have no liberty (a well-formed position has none).
    """
    n = g.shape[1]
    d = C.shape[1] - 3
    stack = np.empty(n, dtype=np.int64)
    board = g[BOARD]
    h = np.int64(0)
    stones = 0
    for p in range(n):
        g[HEAD, p] = -1
        if board[p] != EMPTY:
            h ^= C[p, d + board[p]]
            stones += 1
    _set_hash(g, h)
    g[META, M_STONES] = stones
    dead = 0
    for p0 in range(n):
        colour = board[p0]
        if colour == EMPTY or g[HEAD, p0] != -1:
            continue
        g[HEAD, p0] = p0
        g[NEXT, p0] = p0
        g[SIZE, p0] = 1
        g[PL, p0] = 0
        g[LS, p0] = 0
        g[LQ, p0] = 0
        stack[0] = p0
        top = 1
        while top > 0:
            top -= 1
            p = stack[top]
            for k in range(C[p, d]):
                q = C[p, k]
                v = board[q]
                if v == EMPTY:
                    g[PL, p0] += 1
                    g[LS, p0] += q
                    g[LQ, p0] += q * q
                elif v == colour and g[HEAD, q] == -1:
                    g[HEAD, q] = p0
                    g[NEXT, q] = g[NEXT, p0]
                    g[NEXT, p0] = q
                    g[SIZE, p0] += 1
                    stack[top] = q
                    top += 1
        if g[PL, p0] == 0:
            dead += 1
    return dead


@njit(cache=True)
def liberties(g, C):
    """Exact liberty count of the chain on every point (0 on empty points)."""
    n = g.shape[1]
    d = C.shape[1] - 3
    board = g[BOARD]
    out = np.zeros(n, dtype=np.int64)
    stamp = np.full(n, -1, dtype=np.int64)
    for h in range(n):
        if board[h] == EMPTY or g[HEAD, h] != h:
            continue
        count = 0
        s = h
        while True:
            for k in range(C[s, d]):
                q = C[s, k]
                if board[q] == EMPTY and stamp[q] != h:
                    stamp[q] = h
                    count += 1
            s = g[NEXT, s]
            if s == h:
                break
        s = h
        while True:
            out[s] = count
            s = g[NEXT, s]
            if s == h:
                break
    return out


@njit(cache=True)
def observation_values(g, hist, C, out):
    """Per-point feature planes from the mover's view into ``out`` (NUM_PLANES, n).

    Planes: 0 own stones, 1 opponent stones, 2/3 own chains with 1/2 liberties, 4/5 opponent
    chains with 1/2 liberties, 6 empty points the mover may not play (suicide or superko),
    7 the stone placed by the last action, 8 ones when Black is to move, 9 ones when a pass now
    would end the game, 10 ones (marks real cells against a network's zero padding).
    """
    n = g.shape[1]
    out[:] = 0.0
    me = g[META, M_TO_PLAY] + 1
    libs = liberties(g, C)
    codes = np.empty(n, dtype=np.int8)
    scan(g, hist, C, me, 0, n, codes, False)
    board = g[BOARD]
    black_to_move = 1.0 if g[META, M_TO_PLAY] == 0 else 0.0
    pass_ends = 1.0 if g[META, M_PASSES] == 1 else 0.0
    for p in range(n):
        v = board[p]
        if v == EMPTY:
            if codes[p] != OK:
                out[6, p] = 1.0
        else:
            base = 0 if v == me else 1
            out[base, p] = 1.0
            if libs[p] <= 2:
                out[2 + 2 * base + libs[p] - 1, p] = 1.0
        out[8, p] = black_to_move
        out[9, p] = pass_ends
        out[10, p] = 1.0
    last = g[META, M_LAST]
    if 0 <= last < n:
        out[7, last] = 1.0
