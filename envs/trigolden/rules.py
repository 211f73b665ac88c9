"""TriGolden turn rules: legal placements, the two-piece turn of both variants, structures.

Everything here works on a :class:`~envs.trigolden.geometry.Board` and plain values; the Game
class (``game.py``) wraps it in the protocol. The central job is :meth:`Rules.turn_options`:
for the player to move, the placements that may be made now (the legal mask), each one
already known to lead to a legal complete turn when it is the first piece of a two-piece turn.

Speed comes from three things: every candidate's geometry is computed once (vertices,
projections on the five normal axes, exact line keys); interiors are tested against the whole
board at once with numpy; and for the first piece, most pairs (first, second) are far apart,
so they are settled by array comparisons and only nearby pairs are checked one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from envs.trigolden.geometry import (
    EPS,
    Board,
    Candidate,
    Placed,
    edge_keys,
    point_strictly_inside,
    sat_overlap,
)
from envs.trigolden.pieces import PieceSet

STANDARD, DRAFT = "standard", "draft"
# Memos of pair predicates, keyed by the two placements' geometry numbers.
_COMPATIBLE: dict[int, bool] = {}
_TOUCH: dict[int, bool] = {}
BRACING, TRIGOLDEN = "bracing", "trigolden"


@dataclass(frozen=True)
class Structure:
    """A TriGolden structure: point ``point`` strictly inside edge ``edge`` of piece
    ``trigolden``, scored by the closest piece with a vertex there, ``bracing``."""

    trigolden: int
    edge: int
    point: tuple[int, int, int, int]
    bracing: int
    points: int


@dataclass
class TurnOptions:
    """What the player to move may place now: ``legal`` maps action -> candidate (the mask).

    ``complete`` says whether a legal complete turn exists (standard: for arbitration; draft:
    False means the player must pass). ``free_pairs`` is the draft's rule-5 relief, judged at
    the start of a turn.
    """

    legal: dict[int, Candidate]
    complete: bool
    free_pairs: bool = False
    #: Turns legal by rules 1-4 and the same-piece rule but left out by the obligation
    #: (standard; ``obligation.py``), for the words of a refusal.
    refused: frozenset[int] = frozenset()
    #: Every legal turn breaks the obligation (so all of them stay in the mask).
    unavoidable: bool = False
    #: The pairs table a first piece's mask was computed from (reused by the obligation).
    table: PairTable | None = None


class PairTable:
    """Which pairs (first piece ``cands[i]``, second piece ``cands[j]``) of the player's legal
    placements make a complete two-piece turn.

    A pair is a turn when the kinds in hand allow it (``avail``), the second stays legal once
    the first is on the board, and the two are allowed together: ``allowed`` (same opponent
    piece, either one scoring with the board, or the draft's relief), or, failing that, a
    contact between the two pieces themselves. Pairs whose closed extents do not meet
    (``~near``) cannot interfere, so they are settled by array operations; the near ones are
    checked one by one (memoised pair predicates).
    """

    def __init__(self, cands: list[Candidate], near: np.ndarray, avail: np.ndarray,
                 allowed: np.ndarray, standard: bool, free_pairs: bool = False) -> None:
        self.cands = cands
        self.near = near
        self.avail = avail
        self.allowed = allowed
        self.standard = standard
        self.free_pairs = free_pairs
        self.far = avail & allowed & ~near

    def near_partners(self, i: int, extra: np.ndarray | None = None) -> Iterator[int]:
        """The near j that complete a turn with first piece i (and ``extra[i, j]``): pairs
        allowed already need only compatibility; the others also a contact, which costs more."""
        x = self.cands[i]
        row = self.near[i] & self.avail[i]
        if extra is not None:
            row = row & extra[i]
        for j in np.flatnonzero(row & self.allowed[i]).tolist():
            if Rules.compatible(x, self.cands[j]):
                yield j
        for j in np.flatnonzero(row & ~self.allowed[i]).tolist():
            y = self.cands[j]
            if Rules.pieces_touch(x, y, self.standard) and Rules.compatible(x, y):
                yield j

    def partners(self, i: int) -> Iterator[int]:
        """Every j that completes a turn with first piece i."""
        yield from np.flatnonzero(self.far[i]).tolist()
        yield from self.near_partners(i)

    def has_partner(self, i: int, extra: np.ndarray | None = None) -> bool:
        far = self.far[i] if extra is None else self.far[i] & extra[i]
        return bool(far.any()) or next(self.near_partners(i, extra), None) is not None

    def firsts(self, extra: np.ndarray | None = None) -> list[int]:
        """The i that have a partner j (with ``extra[i, j]``, when given)."""
        far = self.far if extra is None else self.far & extra
        done = far.any(axis=1)
        return [i for i in range(len(self.cands)) if done[i] or self.has_partner(i, extra)]


class Rules:
    """The rules of one configuration: a piece set, a variant and n."""

    def __init__(self, pieces: PieceSet, variant: str, n: int) -> None:
        self.pieces = pieces
        self.variant = variant
        self.n = n
        self.max_pieces = 2 * pieces.num_kinds * n
        self.E = pieces.max_edges
        self.K = pieces.num_kinds
        self.opening_base = self.max_pieces * self.E * self.K * self.E * 2
        self.num_actions = self.opening_base + self.K * 2
        # For a target edge of a given length: the canonical (kind, face, edge) spellings.
        self.by_length: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        for k, kind in enumerate(pieces.kinds):
            for face in (0, 1):
                for e in range(kind.num_edges):
                    if pieces.canonical[(k, face, e)] == (face, e):
                        self.by_length.setdefault(kind.edges[e][1], []).append((k, face, e))

    # ------------------------------------------------------------------ actions
    def encode(self, target: int, target_edge: int, kind: int, edge: int, face: int) -> int:
        return (((target * self.E + target_edge) * self.K + kind) * self.E + edge) * 2 + face

    def encode_opening(self, kind: int, face: int) -> int:
        return self.opening_base + kind * 2 + face

    def decode(self, action: int) -> tuple[int, int, int, int, int]:
        """(target, target_edge, kind, edge, face); target -1 for an opening action."""
        if action >= self.opening_base:
            kind, face = divmod(action - self.opening_base, 2)
            return -1, -1, kind, -1, face
        rest, face = divmod(action, 2)
        rest, edge = divmod(rest, self.E)
        rest, kind = divmod(rest, self.K)
        target, target_edge = divmod(rest, self.E)
        return target, target_edge, kind, edge, face

    # ------------------------------------------------------------------ candidates
    def opening_candidates(self, hand: tuple[int, ...]) -> dict[int, Candidate]:
        out = {}
        for k in range(self.K):
            if hand[k] == 0:
                continue
            for face in (0, 1):
                if self.pieces.opening_canonical[(k, face)] != (k, face):
                    continue
                shape = self.pieces.opening_shape(k, face)
                c = Candidate(self.encode_opening(k, face), -1, -1, k, face, -1,
                              (0, 0, 0, 0), shape, 0)
                c.legal = True
                out[c.action] = c
        return out

    def make_candidate(
        self, board: Board, target: int, target_edge: int, kind: int, face: int, edge: int
    ) -> Candidate:
        """The geometry of one placement (whether or not it is legal)."""
        t = board.pieces[target]
        action = self.encode(target, target_edge, kind, edge, face)
        return self.placement(action, t, t.labels.index(target_edge), kind, face, edge)

    def placements(
        self, board: Board, mover: int, hand: tuple[int, ...]
    ) -> list[tuple[int, Placed, int, int, int, int]]:
        """Rule 1: ``(action, target piece, edge position on it, kind, face, edge)`` of every
        canonical placement on a free edge of an opponent piece, for the kinds in hand."""
        out: list[tuple[int, Placed, int, int, int, int]] = []
        memo = board.specs
        every_kind = all(hand)
        for t in board.pieces:
            if t.owner == mover:
                continue
            edges = memo.get(t.index)
            if edges is None:
                edges = memo[t.index] = self.piece_specs(t)
            occ = board.occupied[t.index]
            for label, specs in edges:
                if not (occ >> label) & 1:
                    out.extend(specs if every_kind else [s for s in specs if hand[s[3]]])
        return out

    def piece_specs(self, t: Placed) -> tuple[tuple[int, tuple], ...]:
        """``(edge label, placements on that edge)`` for each edge of piece t."""
        edge_length = self.pieces.edge_length
        return tuple(
            (label, tuple((self.encode(t.index, label, k, e, face), t, i, k, face, e)
                          for k, face, e in self.by_length.get(edge_length(t.kind, label), ())))
            for i, label in enumerate(t.labels)
        )

    def placement(self, action: int, t: Placed, i: int, kind: int, face: int,
                  edge: int) -> Candidate:
        """The geometry of one of :meth:`placements` (legality not checked yet)."""
        anchor = t.verts[(i + 1) % len(t.verts)]
        return Candidate(action, t.index, t.labels[i], kind, face, edge, anchor,
                         self.pieces.shape(kind, face, edge, t.dirs[i]), t.depth + 1)

    def candidates(self, board: Board, mover: int, hand: tuple[int, ...]) -> list[Candidate]:
        """Every canonical placement on a free edge of an opponent piece, with its legality
        under rules 1-4 (``legal``) and its contacts with the board (``sc``, ``touch``)."""
        out: list[Candidate] = []
        fresh: list[Candidate] = []
        memo = board.cands
        for spec in self.placements(board, mover, hand):
            c = memo.get(spec[0])
            if c is None:
                c = self.placement(*spec)
                fresh.append(c)
            out.append(c)
        if fresh:
            self.check_rules(board, fresh)
            for c in fresh:
                memo[c.action] = c
        return out

    def check_rules(self, board: Board, cands: list[Candidate]) -> None:
        """Set ``legal`` (rules 2-4; rule 1 holds by construction), ``sc`` and, for the
        draft, ``touch``."""
        for c, legal in zip(cands, self.legal_on(board, cands)):
            c.legal = legal
            if legal:
                c.sc = self.scoring_contact(board, c)
                if self.variant != STANDARD:
                    c.touch = c.sc or any(board.edges_containing(v) for v in c.verts[:2])

    def legal_on(self, board: Board, cands: list[Candidate]) -> list[bool]:
        """Whether each placement keeps rules 2-4 on ``board`` (the placements unchanged)."""
        if not cands:
            return []
        cp = np.array([c.proj for c in cands])
        bp = board.proj
        clo, chi = cp[:, 0::2], cp[:, 1::2]
        blo, bhi = bp[:, 0::2], bp[:, 1::2]
        overlap = (
            (clo[:, None, :] < bhi[None, :, :] - EPS) & (blo[None, :, :] < chi[:, None, :] - EPS)
        ).all(axis=2).any(axis=1)
        return [not ov and self.clear_of_board(board, c) for c, ov in zip(cands, overlap.tolist())]

    @staticmethod
    def clear_of_board(board: Board, c: Candidate) -> bool:
        """Rules 3 and 4: no free vertex on a board vertex, no other edge along a board edge."""
        vp = board.vertex_pieces
        if any(v in vp for v in c.free):
            return False
        return not any(board.edge_contact(e) for e in c.ekeys[1:])

    @staticmethod
    def scoring_contact(board: Board, c: Candidate) -> bool:
        """Whether a (legal) placement forms a scoring structure with the board: a free vertex
        strictly inside a board edge, or a board vertex strictly inside one of its edges."""
        return any(board.edges_containing(v) for v in c.free) or any(
            board.vertices_inside(e) for e in c.ekeys
        )

    def violation(self, board: Board, c: Candidate) -> str | None:
        """Which of rules 2-4 a placement breaks, in words (None when it breaks none)."""
        for p in board.pieces:
            if sat_overlap(c.proj, tuple(board.proj[p.index])):
                return f"it would overlap piece {p.index} (rule 2)"
        for e in c.ekeys[1:]:
            if board.edge_contact(e):
                return "another of its edges would lie along an edge on the board (rule 3)"
        for v in c.free:
            if v in board.vertex_pieces:
                return "a free vertex would land on a vertex on the board (rule 4)"
        return None

    # ------------------------------------------------------------------ pairs
    @staticmethod
    def compatible(x: Candidate, y: Candidate) -> bool:
        """Whether y stays legal once x is on the board (y checked against x only).

        Pure geometry of the two placements, so memoised for the process: the same pairs
        come back at every turn of a game.
        """
        key = (x.gid << 32) | y.gid
        known = _COMPATIBLE.get(key)
        if known is None:
            known = Rules._compatible(x, y)
            if len(_COMPATIBLE) > 300_000:
                _COMPATIBLE.clear()
            _COMPATIBLE[key] = known
        return known

    @staticmethod
    def _compatible(x: Candidate, y: Candidate) -> bool:
        if sat_overlap(x.proj, y.proj):
            return False
        xv = x.verts
        if any(v in xv for v in y.free):
            return False
        for key, lo, hi in y.ekeys[1:]:
            for k2, lo2, hi2 in x.ekeys:
                if key == k2 and lo2 < hi - EPS and lo < hi2 - EPS:
                    return False
        return True

    @staticmethod
    def pair_touch(xv: tuple, xk: tuple, y: Candidate, free_only: bool, xfree: tuple) -> bool:
        # x is given by its vertices, edge keys and free vertices (a Candidate or a Placed).
        """Whether x and y form a TriGolden structure with each other.

        ``free_only``: count only free vertices (the standard variant's *scoring* contact:
        an attached vertex is also a vertex of the target, which is closer)."""
        yv = y.free if free_only else y.verts
        if any(point_strictly_inside(v, e) for v in yv for e in xk):
            return True
        xs = xfree if free_only else xv
        return any(point_strictly_inside(v, e) for v in xs for e in y.ekeys)

    @staticmethod
    def pieces_touch(x: Candidate, y: Candidate, free_only: bool) -> bool:
        """:meth:`pair_touch` of two candidates, memoised for the process (pure geometry of
        the two placements); most pairs share no line and are settled by one set test."""
        key = ((x.gid << 32) | y.gid) * 2 + free_only
        known = _TOUCH.get(key)
        if known is None:
            known = not (x.vlines.isdisjoint(y.elines) and y.vlines.isdisjoint(x.elines))
            known = known and Rules.pair_touch(x.verts, x.ekeys, y, free_only, x.free)
            if len(_TOUCH) > 300_000:
                _TOUCH.clear()
            _TOUCH[key] = known
        return known

    def rechecker(self, piece: Candidate) -> Callable[[Candidate], Candidate]:
        """How a placement checked on a board is judged once ``piece`` joins it, from the
        two placements alone (``Board.add``'s ``recheck``).

        Exact because rules 2-4 and the contacts are conditions on pairs of pieces: a
        placement legal on the board stays legal when it is :meth:`compatible` with the new
        piece, and gains a contact when it touches the new piece (only the new piece's free
        vertices are new to the board; its attached ones are its target's). Both verdicts are
        memoised per process, so most rechecks are dictionary lookups.
        """
        draft = self.variant != STANDARD

        def recheck(c: Candidate) -> Candidate:
            if not c.legal:
                return c
            legal = self.compatible(piece, c)
            sc = legal and (c.sc or self.pieces_touch(piece, c, True))
            touch = legal and draft and (c.touch or self.pieces_touch(piece, c, False))
            if legal and sc == c.sc and touch == c.touch:
                return c
            return c.with_verdicts(legal, sc, touch)

        return recheck

    # ------------------------------------------------------------------ turns
    def turn_options(
        self, board: Board, mover: int, hand: tuple[int, ...], first: Placed | None,
        first_contact: bool, free_pairs: bool,
    ) -> TurnOptions:
        """The legal mask of the player to move (see the module docstring)."""
        if not board.pieces:
            opening = self.opening_candidates(hand)
            return TurnOptions(opening, bool(opening))
        in_hand = sum(hand)
        cands = [c for c in self.candidates(board, mover, hand) if c.legal]
        if first is not None:
            return self._second_piece(board, cands, first, first_contact, free_pairs)
        if in_hand == 1:
            return TurnOptions({c.action: c for c in cands}, bool(cands))
        return self._first_piece(cands, hand)

    def _second_piece(
        self, board: Board, cands: list[Candidate], first: Placed, first_contact: bool,
        free_pairs: bool,
    ) -> TurnOptions:
        legal = {}
        xk = None
        for c in cands:
            if c.target == first.target or first_contact:
                ok = True
            elif self.variant == STANDARD:
                ok = c.sc  # judged on the board with the first piece: covers contacts with it
            else:
                ok = free_pairs
                if not ok:
                    if xk is None:
                        xk = edge_keys(first.verts, first.dirs)
                    ok = self.pair_touch(first.verts, xk, c, False, ())
            if ok:
                legal[c.action] = c
        return TurnOptions(legal, bool(legal), free_pairs)

    def _first_piece(self, cands: list[Candidate], hand: tuple[int, ...]) -> TurnOptions:
        if not cands:
            return TurnOptions({}, False)
        table = self.pair_table(cands, hand)
        legal = {cands[i].action: cands[i] for i in table.firsts()}
        if not legal and self.variant != STANDARD:
            # Draft: no two-piece turn exists; a single legal piece ends the turn.
            return TurnOptions({c.action: c for c in cands}, True, table.free_pairs)
        return TurnOptions(legal, bool(legal), table.free_pairs, table=table)

    def pair_table(self, cands: list[Candidate], hand: tuple[int, ...]) -> PairTable:
        """The pairs of legal placements that make a complete two-piece turn (see
        :class:`PairTable`), with the draft's rule-5 relief judged on the way."""
        proj = np.array([c.proj for c in cands])
        lo, hi = proj[:, 0::2], proj[:, 1::2]
        near = ((lo[:, None, :] <= hi[None, :, :] + EPS)
                & (lo[None, :, :] <= hi[:, None, :] + EPS)).all(axis=2)
        kinds = np.array([c.kind for c in cands])
        targets = np.array([c.target for c in cands])
        hand_arr = np.array(hand)
        avail = (hand_arr[kinds][None, :] - (kinds[:, None] == kinds[None, :])) >= 1
        same = targets[:, None] == targets[None, :]
        np.fill_diagonal(avail, False)
        standard = self.variant == STANDARD
        contact = np.array([c.sc if standard else c.touch for c in cands])
        free_pairs = False
        if not standard:
            # Rule 5 of the draft: is there an opponent piece that can take two pieces?
            same_piece = PairTable(cands, near, avail & same, same, False)
            free_pairs = not (same_piece.far.any() or any(
                same_piece.has_partner(i) for i in range(len(cands))))
        if standard:
            allowed = contact[:, None] | same | contact[None, :]
        else:
            allowed = contact[:, None] | same | free_pairs
        return PairTable(cands, near, avail, allowed, standard, free_pairs)

    # ------------------------------------------------------------------ structures
    @staticmethod
    def new_structures(board: Board, c: Candidate | Placed, index: int) -> list[Structure]:
        """The structures that placing ``c`` (as piece ``index``) adds to ``board``.

        Existing structures never change: a new piece's free vertices cannot land on existing
        vertices (rule 4), and its attached vertices are its target's, which is closer.
        """
        if c.target < 0:
            return []
        out = []
        ek = c.ekeys if isinstance(c, Candidate) else edge_keys(c.verts, c.dirs)
        labels = c.labels
        for i, e in enumerate(ek):
            for p in board.vertices_inside(e):
                brace = board.closest(board.vertex_pieces[p], c.target)
                out.append(Structure(index, labels[i], p, brace,
                                     board.distance(brace, c.target)))
        for v in c.verts[2:]:
            for piece, label in board.edges_containing(v):
                out.append(Structure(piece, label, v, index, board.distance(piece, c.target)))
        return out
