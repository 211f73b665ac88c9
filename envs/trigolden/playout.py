"""Uniformly random playouts of the standard variant, without building each position's mask.

Pure MCTS and every search level spend nearly all their time in random playouts (90% of a
level-5 move, profiled). :func:`~envs.trigolden.state.place` builds the whole legal mask of
every position, and for the first piece of a turn that means searching a partner for every
placement. A playout needs one uniform draw from that mask, so it draws by rejection: it takes
the placements legal under rules 1-4 (``Rules.candidates``, with the board's memo) in a
uniformly random order and plays the first that has a partner. The first legal element of a
uniform permutation is uniform over the legal ones, so the games have exactly the
distribution of drawing from the full mask; the draws themselves (and so the games for a
given seed) differ from those of ``Game.random_playout``.

The obligation (``obligation.py``) is judged the same way, for the drawn turn only: the first
placement of the permutation whose turn keeps it is played, or, when no turn keeps it, the
first legal one (the mask then holds every legal turn).

``tests/test_trigolden_playout.py`` checks that the placements accepted here are exactly the
legal mask, position by position, that the games replay through ``Game.apply``, and that the
draws are uniform.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from envs.trigolden.geometry import Board, Candidate, Placed, near
from envs.trigolden.obligation import Obligation
from envs.trigolden.rules import STANDARD, Rules
from envs.trigolden.state import ARBITRATION, FINISHED, ONGOING, TriGoldenState, score_of


@dataclass
class PlayoutResult:
    """How a playout ended: ``outcome`` (ONGOING if cut by the ply cap), the scores, the
    arbitration claimant (-1 if none) and the actions played."""

    outcome: int
    scores: tuple[int, int]
    claimant: int
    actions: list[int]


def partners(cands: list[Candidate], i: int, hand: tuple[int, ...]) -> Iterator[int]:
    """The j for which (``cands[i]``, ``cands[j]``) is a complete two-piece turn of the
    standard variant: ``cands[j]``, of a kind still in hand after ``cands[i]``, stays legal
    once it is on the board and is allowed with it (same opponent piece, either one scoring,
    or the two touching). One row of ``Rules.pair_table``, without the whole table."""
    x = cands[i]
    # Pairs allowed without a contact between the two first: they need only compatibility,
    # and most are far apart. Touching pairs (the dear test) come last.
    touching = []
    for j, y in enumerate(cands):
        if j == i or hand[y.kind] - (y.kind == x.kind) < 1:
            continue
        if not (x.sc or y.sc or y.target == x.target):
            touching.append(j)
        elif not near(x.proj, y.proj) or Rules.compatible(x, y):
            yield j
    for j in touching:
        y = cands[j]
        if near(x.proj, y.proj) and Rules.pieces_touch(x, y, True) and Rules.compatible(x, y):
            yield j


def has_partner(cands: list[Candidate], i: int, hand: tuple[int, ...]) -> bool:
    """Whether legal placement ``cands[i]`` can open a complete two-piece turn."""
    return next(partners(cands, i, hand), None) is not None


def _legal(rules: Rules, board: Board, player: int, hand: tuple[int, ...]) -> list[Candidate]:
    return [c for c in rules.candidates(board, player, hand) if c.legal]


class Judge:
    """The obligation's verdicts on the turns of one draw, each test done only when needed:
    the witnesses first (found once per draw, from the opponent's placements that the board's
    memo keeps for its next turn anyway), then an answer on the turn's own pieces, then the
    board built."""

    def __init__(self, rules: Rules, board: Board, player: int,
                 hands: tuple[tuple[int, ...], tuple[int, ...]], cands: list[Candidate]) -> None:
        self.oblige = sum(hands[1 - player]) > 0
        self._judge = Obligation(rules, board, player, hands[1 - player])
        self._cands = cands

    def quick(self, turn: tuple[int, ...]) -> bool:
        """Whether the turn (indices into the candidates) surely keeps the obligation."""
        pieces = [self._cands[k] for k in turn]
        return self._judge.spared(pieces) or self._judge.answered(pieces)

    def keeps(self, turn: tuple[int, ...]) -> bool:
        """Whether the turn keeps the obligation."""
        return self.quick(turn) or self._judge.keeps_exactly([self._cands[k] for k in turn])


ILLEGAL, BREAKS, KEEPS = 0, 1, 2


def first_piece_verdict(cands: list[Candidate], i: int, hand: tuple[int, ...],
                        judge: Judge) -> int:
    """Whether ``cands[i]`` can open a legal turn (or end one, as the player's last piece),
    and if so whether such a turn keeps the obligation: ILLEGAL, BREAKS or KEEPS."""
    if sum(hand) == 1:
        return KEEPS if not judge.oblige or judge.keeps((i,)) else BREAKS
    if not judge.oblige:
        return KEEPS if has_partner(cands, i, hand) else ILLEGAL
    seen = []
    for j in partners(cands, i, hand):
        if judge.quick((i, j)):
            return KEEPS
        seen.append(j)
    if not seen:
        return ILLEGAL
    return KEEPS if any(judge.keeps((i, j)) for j in seen) else BREAKS


def draw_first_piece(rules: Rules, board: Board, player: int,
                     hands: tuple[tuple[int, ...], tuple[int, ...]],
                     rng: np.random.Generator) -> Candidate | None:
    """A uniform draw from the player's legal first pieces; None: no legal complete turn.

    With the obligation (the opponent has pieces), the draw is uniform over the first pieces
    that keep it, or over all of them when none does: the first of a uniform permutation
    that keeps it, else the first that is legal at all.
    """
    hand = hands[player]
    cands = _legal(rules, board, player, hand)
    judge = Judge(rules, board, player, hands, cands)
    fallback = None
    for i in rng.permutation(len(cands)).tolist():
        verdict = first_piece_verdict(cands, i, hand, judge)
        if verdict == KEEPS:
            return cands[i]
        if verdict == BREAKS and fallback is None:
            fallback = cands[i]
    return fallback


def draw_second_piece(rules: Rules, board: Board, player: int,
                      hands: tuple[tuple[int, ...], tuple[int, ...]], first: Placed,
                      first_contact: bool, rng: np.random.Generator) -> Candidate | None:
    """A uniform draw from the legal second pieces (``Rules._second_piece``, standard), those
    that keep the obligation when any does."""
    cands = [c for c in _legal(rules, board, player, hands[player])
             if first_contact or c.sc or c.target == first.target]
    judge = Judge(rules, board, player, hands, cands)
    if not cands or not judge.oblige:
        return cands[int(rng.integers(len(cands)))] if cands else None
    order = rng.permutation(len(cands)).tolist()
    return next((cands[i] for i in order if judge.keeps((i,))), cands[order[0]])


def _pair(hands: list[list[int]]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return tuple(hands[0]), tuple(hands[1])


def random_playout(rules: Rules, scoring: str, state: TriGoldenState,
                   rng: np.random.Generator, max_plies: int) -> PlayoutResult:
    """Play uniformly random legal placements from ``state`` until the game ends or
    ``max_plies`` were played (standard variant only)."""
    if rules.variant != STANDARD:
        raise ValueError("the fast playout implements the standard variant only")
    scores = list(state.scores)
    actions: list[int] = []
    if state.outcome != ONGOING or max_plies <= 0:
        return PlayoutResult(state.outcome, state.scores, state.claimant, actions)
    board = state.board
    hands = [list(state.hands[0]), list(state.hands[1])]
    mover = state.to_play
    first = board.pieces[state.first] if state.first >= 0 else None
    legal = state.options.legal
    order = sorted(legal)
    cand = legal[order[int(rng.integers(len(order)))]]
    while True:
        index = len(board.pieces)
        structures = Rules.new_structures(board, cand, index)
        placed = cand.as_placed(index, mover)
        board = board.add(placed, rules.rechecker(cand))
        in_hand_before = sum(hands[mover])
        hands[mover][cand.kind] -= 1
        gained = score_of(tuple(structures), board, scoring)
        scores[0] += gained[0]
        scores[1] += gained[1]
        actions.append(cand.action)
        if len(actions) >= max_plies:
            return PlayoutResult(ONGOING, (scores[0], scores[1]), -1, actions)
        if cand.target >= 0 and first is None and in_hand_before >= 2:
            second = draw_second_piece(rules, board, mover, _pair(hands), placed, cand.sc, rng)
            if second is not None:
                first, cand = placed, second
                continue
        first = None
        for player in (1 - mover, mover):
            if sum(hands[player]) == 0:
                continue
            nxt = draw_first_piece(rules, board, player, _pair(hands), rng)
            if nxt is None:
                return PlayoutResult(ARBITRATION, (scores[0], scores[1]), player, actions)
            mover, cand = player, nxt
            break
        else:
            return PlayoutResult(FINISHED, (scores[0], scores[1]), -1, actions)
