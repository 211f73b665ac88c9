"""A deliberately simple, independent TriGolden reference for the tests (floats, brute force).

It shares nothing with ``envs.trigolden`` but the rules text: pieces come from the float
vertices of the spec's table, placements are rotated with trigonometry, overlap is a polygon
clipping area, structures are found by testing every vertex against every edge, tree distances
by breadth-first search, and turns by trying every pair of placements. Slow, so it is used on
small boards only.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

PHI = (1 + math.sqrt(5)) / 2
TOL = 1e-7
C72, S72 = math.cos(math.radians(72)), math.sin(math.radians(72))
LOCAL = {
    "T": [(0.0, 0.0), (1.0, 0.0), (0.5, math.sqrt(PHI * PHI - 0.25))],
    "G": [(0.0, 0.0), (PHI, 0.0), (PHI / 2, math.sin(math.radians(36)))],
    "P": [(0.0, 0.0), (PHI, 0.0), (PHI + C72, S72), (C72, S72)],
}
KINDS = "TGP"


@dataclass
class RefPiece:
    owner: int
    kind: str
    flipped: bool
    target: int
    verts: list[tuple[float, float]]  # label order v0..v(m-1)

    def edge(self, i: int) -> tuple[tuple[float, float], tuple[float, float]]:
        """Edge e_i as the counter-clockwise directed segment."""
        a, b = self.verts[i], self.verts[(i + 1) % len(self.verts)]
        return (b, a) if self.flipped else (a, b)

    def ccw(self) -> list[tuple[float, float]]:
        return self.verts[::-1] if self.flipped else list(self.verts)


def local(kind: str, flipped: bool) -> list[tuple[float, float]]:
    pts = LOCAL[kind]
    return [(x, -y) for x, y in pts] if flipped else list(pts)


def place(board: list[RefPiece], owner: int, kind: str, flipped: bool, target: int,
          target_edge: int, edge: int) -> RefPiece:
    """The piece laid with its edge ``edge`` on ``target_edge`` of piece ``target``."""
    if target < 0:
        return RefPiece(owner, kind, flipped, -1, local(kind, flipped))
    A, B = board[target].edge(target_edge)
    loc = local(kind, flipped)
    probe = RefPiece(owner, kind, flipped, target, loc)
    a, b = probe.edge(edge)  # its counter-clockwise edge a -> b goes onto B -> A
    ang = math.atan2(A[1] - B[1], A[0] - B[0]) - math.atan2(b[1] - a[1], b[0] - a[0])
    c, s = math.cos(ang), math.sin(ang)

    def tr(p: tuple[float, float]) -> tuple[float, float]:
        x, y = p[0] - a[0], p[1] - a[1]
        return (B[0] + c * x - s * y, B[1] + s * x + c * y)

    return RefPiece(owner, kind, flipped, target, [tr(p) for p in loc])


def _cross(o, a, b) -> float:
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def _area(poly) -> float:
    return 0.5 * sum(poly[i][0] * poly[i - 1][1] - poly[i - 1][0] * poly[i][1]
                     for i in range(len(poly))) * -1


def overlap_area(p: list, q: list) -> float:
    """Area of the intersection of two convex counter-clockwise polygons (clipping)."""
    out = p
    for i in range(len(q)):
        a, b = q[i], q[(i + 1) % len(q)]
        inp, out = out, []
        if not inp:
            break
        for j in range(len(inp)):
            cur, prev = inp[j], inp[j - 1]
            cin, pin = _cross(a, b, cur) >= 0, _cross(a, b, prev) >= 0
            if cin != pin:
                d1, d2 = _cross(a, b, prev), _cross(a, b, cur)
                t = d1 / (d1 - d2)
                out.append((prev[0] + t * (cur[0] - prev[0]), prev[1] + t * (cur[1] - prev[1])))
            if cin:
                out.append(cur)
    return abs(_area(out)) if len(out) >= 3 else 0.0


def _close(p, q) -> bool:
    return abs(p[0] - q[0]) < 1e-6 and abs(p[1] - q[1]) < 1e-6


def strictly_inside(p, a, b) -> bool:
    """p on segment a-b, strictly between its ends."""
    L = math.dist(a, b)
    if abs(_cross(a, b, p)) / L > 1e-6:
        return False
    t = ((p[0] - a[0]) * (b[0] - a[0]) + (p[1] - a[1]) * (b[1] - a[1])) / L
    return 1e-6 < t < L - 1e-6


def collinear_overlap(a, b, c, d) -> bool:
    """Segments a-b and c-d lie on one line and share a positive length."""
    L = math.dist(a, b)
    if abs(_cross(a, b, c)) / L > 1e-6 or abs(_cross(a, b, d)) / L > 1e-6:
        return False
    ux, uy = (b[0] - a[0]) / L, (b[1] - a[1]) / L
    tc = (c[0] - a[0]) * ux + (c[1] - a[1]) * uy
    td = (d[0] - a[0]) * ux + (d[1] - a[1]) * uy
    lo, hi = min(tc, td), max(tc, td)
    return min(hi, L) - max(lo, 0.0) > 1e-6


def legal(board: list[RefPiece], piece: RefPiece, target_edge: int, edge: int) -> bool:
    """Rules 2-4 for a placed piece against a board (rule 1 holds by construction)."""
    m = len(piece.verts)
    attached = set(piece.edge(edge))
    for other in board:
        if overlap_area(piece.ccw(), other.ccw()) > 1e-6:
            return False
        for i in range(m):
            if i == edge:
                continue
            a, b = piece.edge(i)
            for j in range(len(other.verts)):
                c, d = other.edge(j)
                if collinear_overlap(a, b, c, d):
                    return False
        for v in piece.verts:
            if any(_close(v, a) for a in attached):
                continue
            if any(_close(v, w) for w in other.verts):
                return False
    return True


def distances(board: list[RefPiece], src: int) -> list[int]:
    adj = [[] for _ in board]
    for i, p in enumerate(board):
        if p.target >= 0:
            adj[i].append(p.target)
            adj[p.target].append(i)
    dist = [-1] * len(board)
    dist[src] = 0
    q = deque([src])
    while q:
        u = q.popleft()
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist


def structures(board: list[RefPiece]) -> list[tuple[int, int, int, int]]:
    """(trigolden piece, its edge, bracing piece, points) of every structure on the board."""
    out = []
    for b, piece in enumerate(board):
        dist = distances(board, b)
        for i in range(len(piece.verts)):
            a, c = piece.edge(i)
            points: list[tuple[tuple[float, float], list[int]]] = []
            for q, other in enumerate(board):
                if q == b:
                    continue
                for v in other.verts:
                    if strictly_inside(v, a, c):
                        for p, owners in points:
                            if _close(p, v):
                                owners.append(q)
                                break
                        else:
                            points.append((v, [q]))
            for _, owners in points:
                brace = min(owners, key=lambda q: (dist[q], q))
                out.append((b, i, brace, dist[brace] - 1))
    return sorted(out)


def scores(board: list[RefPiece], mode: str) -> list[int]:
    s = [0, 0]
    for b, _, brace, pts in structures(board):
        s[board[brace if mode == "bracing" else b].owner] += pts
    return s


def position_key(piece: RefPiece) -> tuple:
    return (piece.kind, tuple(sorted((round(x, 5) + 0.0, round(y, 5) + 0.0)
                                     for x, y in piece.verts)))


def single_placements(board: list[RefPiece], mover: int, hand: dict[str, int]) -> list[tuple]:
    """Every legal placement (all spellings) as (spelling, piece, position key)."""
    out = []
    for t, tp in enumerate(board):
        if tp.owner == mover:
            continue
        for te in range(len(tp.verts)):
            A, B = tp.edge(te)
            for kind in KINDS:
                if hand[kind] == 0:
                    continue
                for flipped in (False, True):
                    for e in range(len(LOCAL[kind])):
                        probe = RefPiece(mover, kind, flipped, t, local(kind, flipped))
                        a, b = probe.edge(e)
                        if abs(math.dist(a, b) - math.dist(A, B)) > 1e-6:
                            continue
                        piece = place(board, mover, kind, flipped, t, te, e)
                        if legal(board, piece, te, e):
                            out.append(((t, te, kind, e, flipped), piece, position_key(piece)))
    return out


def part_of_scoring(board: list[RefPiece], index: int) -> bool:
    return any(index in (b, brace) for b, _, brace, _ in structures(board))


def forms_any_structure(board: list[RefPiece], x: int, y: int | None = None) -> bool:
    """Draft: a vertex of x strictly inside an edge of another piece (y only, if given), or
    the reverse."""
    others = [y] if y is not None else [q for q in range(len(board)) if q != x]
    px = board[x]
    for q in others:
        pq = board[q]
        for v in px.verts:
            if any(strictly_inside(v, *pq.edge(j)) for j in range(len(pq.verts))):
                return True
        for v in pq.verts:
            if any(strictly_inside(v, *px.edge(j)) for j in range(len(px.verts))):
                return True
    return False


def first_piece_options(board: list[RefPiece], mover: int, hand: dict[str, int],
                        variant: str) -> set[tuple]:
    """Position keys of the first pieces that lead to a legal complete two-piece turn."""
    firsts = single_placements(board, mover, hand)
    free_pairs = False
    if variant == "draft":
        free_pairs = True
        for spell, piece, _ in firsts:
            b2 = board + [piece]
            h2 = dict(hand)
            h2[piece.kind] -= 1
            if any(s2[0] == spell[0] for s2, _, _ in single_placements(b2, mover, h2)):
                free_pairs = False
                break
    out = set()
    for spell, piece, key in firsts:
        if key in out:
            continue
        b2 = board + [piece]
        h2 = dict(hand)
        h2[piece.kind] -= 1
        x = len(board)
        for spell2, piece2, _ in single_placements(b2, mover, h2):
            b3 = b2 + [piece2]
            y = len(b2)
            if spell2[0] == spell[0]:
                ok = True
            elif variant == "standard":
                ok = part_of_scoring(b3, x) or part_of_scoring(b3, y)
            else:
                ok = free_pairs or forms_any_structure(b2, x) or forms_any_structure(b3, y, x)
            if ok:
                out.add(key)
                break
    return out


def second_piece_options(board: list[RefPiece], first: int, mover: int, hand: dict[str, int],
                         variant: str, free_pairs: bool) -> set[tuple]:
    """Position keys of the legal second pieces after ``first`` (already on ``board``)."""
    out = set()
    target = board[first].target
    for spell, piece, key in single_placements(board, mover, hand):
        b3 = board + [piece]
        y = len(board)
        if spell[0] == target:
            ok = True
        elif variant == "standard":
            ok = part_of_scoring(b3, first) or part_of_scoring(b3, y)
        else:
            ok = (free_pairs or forms_any_structure(board, first)
                  or forms_any_structure(b3, y, first))
        if ok:
            out.add(key)
    return out


def complete_turns(board: list[RefPiece], mover: int, hand: dict[str, int],
                   variant: str) -> set[frozenset]:
    """Every distinct legal complete two-piece turn (standard), as a set of two position keys."""
    out = set()
    firsts = first_piece_options(board, mover, hand, variant)
    for _, piece, key in single_placements(board, mover, hand):
        if key not in firsts:
            continue
        h2 = dict(hand)
        h2[piece.kind] -= 1
        b2 = board + [piece]
        for key2 in second_piece_options(b2, len(board), mover, h2, variant, False):
            out.add(frozenset((key, key2)))
    return out


# ---------------------------------------------------------------- the obligation (standard)
def turn_boards(board: list[RefPiece], mover: int, hand: dict[str, int]):
    """Every legal complete turn of the standard variant as (first key, second key, board
    after it); a single piece (second key None) when one is left in hand."""
    if sum(hand.values()) == 1:
        for _, piece, key in single_placements(board, mover, hand):
            yield key, None, board + [piece]
        return
    for spell, piece, key in single_placements(board, mover, hand):
        b2 = board + [piece]
        h2 = dict(hand)
        h2[piece.kind] -= 1
        x = len(board)
        for spell2, piece2, key2 in single_placements(b2, mover, h2):
            b3 = b2 + [piece2]
            if spell2[0] == spell[0] or part_of_scoring(b3, x) or part_of_scoring(b3, x + 1):
                yield key, key2, b3


def has_complete_turn(board: list[RefPiece], player: int, hand: dict[str, int]) -> bool:
    """Whether ``player`` has a legal complete turn (standard; the obligation not applied)."""
    return next(turn_boards(board, player, hand), None) is not None


def keeps_obligation(after: list[RefPiece], opponent: int, opp_hand: dict[str, int]) -> bool:
    """At the end of a turn the opponent, if it has pieces, must have a legal complete turn."""
    return sum(opp_hand.values()) == 0 or has_complete_turn(after, opponent, opp_hand)


def obliged_first_pieces(board: list[RefPiece], mover: int, hand: dict[str, int],
                         opp_hand: dict[str, int]) -> set[tuple]:
    """Position keys of the first pieces (standard) of the turns that keep the obligation,
    or of every legal turn when none does."""
    keep: set[tuple] = set()
    legal: set[tuple] = set()
    for key, _, after in turn_boards(board, mover, hand):
        legal.add(key)
        if key not in keep and keeps_obligation(after, 1 - mover, opp_hand):
            keep.add(key)
    return keep or legal


def obliged_second_pieces(board: list[RefPiece], first: int, mover: int, hand: dict[str, int],
                          opp_hand: dict[str, int]) -> set[tuple]:
    """Position keys of the second pieces after ``first`` that keep the obligation, or of every
    legal second piece when none does (standard)."""
    legal = second_piece_options(board, first, mover, hand, "standard", False)
    keep = set()
    for _, piece, key in single_placements(board, mover, hand):
        if key in legal and keeps_obligation(board + [piece], 1 - mover, opp_hand):
            keep.add(key)
    return keep or legal
