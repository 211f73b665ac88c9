"""The obligation of the standard variant: a turn must leave the opponent a legal complete turn.

``docs/rules/trigolden.md``, *Obligation*: at the end of a turn the opponent must have at least one
legal complete turn (two pieces, or one if it has one left; judged by rules 1-4 and the
same-piece rule with its exception, not by the obligation itself). Only if every legal turn of
the mover breaks it must the mover still play one, and then loses by arbitration. So the mask
of the player to move holds the legal turns that keep the obligation, or every legal turn
when none does (:func:`turn_options`).

Judging a turn exactly means searching the opponent's turns on the board after it. Nearly
always that is unnecessary: a placement legal on a board stays legal when a new piece is
:meth:`~envs.trigolden.rules.Rules.compatible` with it (a condition on the two pieces alone,
false only when they are near), and the opponent's scoring contacts only grow. So a few
*witnesses* (legal complete turns of the opponent on the board before the turn, spread over
its targets) are found once, and a turn none of whose pieces spoils some witness keeps the
obligation. A turn that spoils every witness may still leave the opponent an answer on one of
its own new pieces; only when it does not either is the turn judged exactly
(:meth:`Obligation.keeps_exactly`): the board after it is built and the opponent's turns
searched.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Iterable, Sequence

import numpy as np

from envs.trigolden.geometry import EPS, Board, Candidate, Placed, near
from envs.trigolden.rules import STANDARD, Rules, TurnOptions

#: Witness turns kept per position (bits of a uint64): two pieces can spoil only the
#: witnesses near them, so a few dozen spread over the board nearly always leave a survivor.
MAX_WITNESSES = 32


def has_complete_turn(rules: Rules, board: Board, player: int, hand: tuple[int, ...]) -> bool:
    """Whether ``player`` has a legal complete turn on ``board`` (rules 1-4 and the same-piece
    rule with its exception; the obligation itself is not applied)."""
    cands = [c for c in rules.candidates(board, player, hand) if c.legal]
    if not cands or sum(hand) == 1:
        return bool(cands)
    table = rules.pair_table(cands, hand)
    return bool(table.far.any()) or any(table.has_partner(i) for i in range(len(cands)))


def ends_the_turn(board: Board, hand: tuple[int, ...], first: Placed | None) -> bool:
    """Whether the piece placed now ends the turn: a second piece, a player's last piece, or
    the opening."""
    return first is not None or sum(hand) == 1 or not board.pieces


def may_follow(a: Candidate, b: Candidate, hand: tuple[int, ...]) -> bool:
    """Whether ``b`` can be placed after ``a`` in one turn as far as the pieces go: its kind
    is still in hand and it stays legal once ``a`` is on the board."""
    return hand[b.kind] - (a.kind == b.kind) >= 1 and Rules.compatible(a, b)


def turns_on_target(group: Sequence[Candidate], hand: tuple[int, ...],
                    limit: int) -> list[tuple[Candidate, ...]]:
    """Up to ``limit`` complete turns made of the legal placements ``group``, all on one
    target: a single piece when one is left in hand, else two on different edges of it (always
    allowed) of which the second stays legal after the first."""
    if sum(hand) == 1:
        return [(c,) for c in group[:limit]]
    # Disjoint pairs: a piece shared by several witnesses would let one spoil them all.
    turns: list[tuple[Candidate, ...]] = []
    used: set[int] = set()
    for i, a in enumerate(group):
        if i in used:
            continue
        for j in range(i + 1, len(group)):
            b = group[j]
            if j not in used and b.target_edge != a.target_edge and may_follow(a, b, hand):
                turns.append((a, b))
                used.update((i, j))
                break
        if len(turns) >= limit:
            break
    return turns


def find_witnesses(rules: Rules, board: Board, player: int, hand: tuple[int, ...],
                   limit: int = MAX_WITNESSES) -> list[tuple[Candidate, ...]]:
    """Up to ``limit`` legal complete turns of ``player`` on ``board``, spread out so that two
    new pieces rarely spoil them all: turns on one target, a target at a time, then turns
    allowed by the scoring exception (a placement that scores, with one on another target)."""
    by_target: dict[int, list[Candidate]] = {}
    for c in rules.candidates(board, player, hand):
        if c.legal:
            by_target.setdefault(c.target, []).append(c)
    per_group = [turns_on_target(group, hand, 4) for group in by_target.values()]
    if sum(hand) > 1:
        scoring = [c for group in by_target.values() for c in group if c.sc][:4]
        for a in scoring:
            per_group.append([(a, b) for group in by_target.values() for b in group[:1]
                              if b.target != a.target and may_follow(a, b, hand)])
    out: list[tuple[Candidate, ...]] = []
    depth = 0
    while len(out) < limit and any(depth < len(t) for t in per_group):
        out.extend(t[depth] for t in per_group if depth < len(t))
        depth += 1
    return out[:limit]


class Obligation:
    """Judges turns of ``mover`` on ``board`` by the obligation towards the opponent.

    ``board`` is the board the judged pieces are added to (before the turn for a first piece,
    with the first piece on it for a second). A turn keeps the obligation when

    1. one of the opponent's witness turns on ``board`` stays legal after it (:meth:`survivors`,
       vectorised over all placements), or
    2. the opponent can answer on one of the turn's own pieces, which are new targets: a turn
       on that piece legal on ``board`` and compatible with the turn's pieces
       (:meth:`answers_on`), or
    3. failing both, the board after the turn is built and searched (:meth:`keeps_exactly`).
    """

    def __init__(self, rules: Rules, board: Board, mover: int,
                 opponent_hand: tuple[int, ...]) -> None:
        self.rules = rules
        self.board = board
        self.mover = mover
        self.opponent = 1 - mover
        self.opponent_hand = opponent_hand
        self._boards: dict[int, Board] = {}
        self._answers: dict[int, list[tuple[Candidate, ...]]] = {}

    @functools.cached_property
    def witnesses(self) -> list[tuple[Candidate, ...]]:
        """The opponent's witness turns on ``board`` (found on first use)."""
        return find_witnesses(self.rules, self.board, self.opponent, self.opponent_hand)

    def survivors(self, cands: Sequence[Candidate]) -> np.ndarray:
        """Per placement, the bit mask of the witnesses it does not spoil (uint64)."""
        every = np.uint64((1 << len(self.witnesses)) - 1)
        surv = np.full(len(cands), every, dtype=np.uint64)
        if not self.witnesses or not cands:
            return surv
        pieces: list[Candidate] = []
        bits: list[int] = []
        for w, turn in enumerate(self.witnesses):
            for piece in turn:
                pieces.append(piece)
                bits.append(1 << w)
        cp = np.array([c.proj for c in cands])
        wp = np.array([p.proj for p in pieces])
        close = ((cp[:, None, 0::2] <= wp[None, :, 1::2] + EPS)
                 & (wp[None, :, 0::2] <= cp[:, None, 1::2] + EPS)).all(axis=2)
        for i, k in zip(*np.nonzero(close)):
            if not Rules.compatible(cands[i], pieces[k]):
                surv[i] &= ~np.uint64(bits[k])
        return surv

    def spared(self, turn: Sequence[Candidate]) -> bool:
        """Test 1 for one turn: whether a witness stays legal after all of its pieces (what
        :meth:`survivors` tells for every placement at once)."""
        for witness in self.witnesses:
            if all(not near(p.proj, w.proj) or Rules.compatible(p, w)
                   for p in turn for w in witness):
                return True
        return False

    def answers_on(self, piece: Candidate) -> list[tuple[Candidate, ...]]:
        """An opponent's turn on ``piece`` (a placement of the mover) once it is on ``board``,
        or none: placements on its free edges, legal on ``board`` (rules 2-4) and compatible
        with it. Memoised per placement.

        The edges' placements are built one at a time, round robin over the edges, and each
        legal one is paired with those found on the other edges, so the search stops at the
        first answer.
        """
        known = self._answers.get(piece.action)
        if known is None:
            known = self._answers[piece.action] = self._answer_on(piece)
        return known

    def _answer_on(self, piece: Candidate) -> list[tuple[Candidate, ...]]:
        rules, hand, board = self.rules, self.opponent_hand, self.board
        single = sum(hand) == 1
        target = piece.as_placed(len(board.pieces), self.mover)
        edges = [[spec for spec in specs if hand[spec[3]]]
                 for label, specs in rules.piece_specs(target) if label != piece.edge]
        found: list[Candidate] = []
        for specs in itertools.zip_longest(*edges):
            for spec in specs:
                if spec is None:
                    continue
                b = rules.placement(*spec)
                if not (Rules.compatible(piece, b) and rules.legal_on(board, [b])[0]):
                    continue
                if single:
                    return [(b,)]
                for a in found:
                    if a.target_edge != b.target_edge and may_follow(a, b, hand):
                        return [(a, b)]
                found.append(b)
        return []

    def answered(self, turn: Sequence[Candidate]) -> bool:
        """Test 2: an answer on one of the turn's pieces that the other pieces leave legal."""
        for p in turn:
            others = [q for q in turn if q is not p]
            for answer in self.answers_on(p):
                if all(Rules.compatible(q, a) for q in others for a in answer):
                    return True
        return False

    def _after(self, piece: Candidate, index: int, base: Board) -> Board:
        return base.add(piece.as_placed(index, self.mover))

    def keeps_exactly(self, pieces: Sequence[Candidate]) -> bool:
        """Whether the opponent has a legal complete turn once ``pieces`` (a legal sequence of
        the mover's placements) are on the board: built and searched."""
        board = self.board
        n = len(board.pieces)
        if pieces:
            # The board after a first piece is shared by all of its second pieces.
            first = pieces[0]
            board = self._boards.get(first.action)
            if board is None:
                board = self._boards[first.action] = self._after(first, n, self.board)
            for k, piece in enumerate(pieces[1:], start=1):
                board = self._after(piece, n + k, board)
        return has_complete_turn(self.rules, board, self.opponent, self.opponent_hand)

    def keeps_any(self, turns: Iterable[Sequence[Candidate]]) -> bool:
        """Whether one of ``turns`` (none settled by the witnesses) keeps the obligation:
        every turn is tried by test 2 before any is built (test 3)."""
        tried = []
        for turn in turns:
            if self.answered(turn):
                return True
            tried.append(turn)
        return any(self.keeps_exactly(t) for t in tried)


def _restrict(base: TurnOptions, keep: dict[int, Candidate]) -> TurnOptions:
    """The options that keep the obligation, or all of them when none does."""
    if not keep:
        return dataclasses.replace(base, unavoidable=True)
    refused = frozenset(base.legal) - frozenset(keep)
    return TurnOptions(keep, True, base.free_pairs, refused)


def turn_options(rules: Rules, board: Board, mover: int,
                 hands: tuple[tuple[int, ...], tuple[int, ...]], first: Placed | None,
                 first_contact: bool, free_pairs: bool) -> TurnOptions:
    """The mask of the player to move: :meth:`Rules.turn_options` with, in the standard
    variant, the turns that break the obligation taken out (unless every turn does).

    The options a state keeps carry no pairs table: states live by the thousand in a search
    tree, and the table's arrays are quadratic in the placements.
    """
    base = rules.turn_options(board, mover, hands[mover], first, first_contact, free_pairs)
    options = _obliged(rules, board, mover, hands, first, base)
    return dataclasses.replace(options, table=None) if options.table is not None else options


def _obliged(rules: Rules, board: Board, mover: int,
             hands: tuple[tuple[int, ...], tuple[int, ...]], first: Placed | None,
             base: TurnOptions) -> TurnOptions:
    hand, opponent_hand = hands[mover], hands[1 - mover]
    if rules.variant != STANDARD or not base.legal or sum(opponent_hand) == 0:
        return base
    judge = Obligation(rules, board, mover, opponent_hand)
    if ends_the_turn(board, hand, first):
        cands = list(base.legal.values())
        surv = judge.survivors(cands)
        keep = {c.action: c for c, s in zip(cands, surv) if s or judge.keeps_any([(c,)])}
        return _restrict(base, keep)
    # A first piece: it keeps the obligation when one of its second pieces does. Its
    # second pieces come from every legal placement, not only the first pieces.
    table = base.table
    if table is None:
        raise AssertionError("a standard first-piece mask carries its pairs table")
    every = table.cands
    surv_every = judge.survivors(every)
    shared = (surv_every[:, None] & surv_every[None, :]) != 0
    sure = set(table.firsts(shared))
    keep = {}
    for i, c in enumerate(every):
        if c.action in base.legal and (i in sure or judge.keeps_any(
                (c, every[j]) for j in table.partners(i))):
            keep[c.action] = c
    return _restrict(base, keep)
