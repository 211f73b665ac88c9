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

``tests/test_trigolden_playout.py`` checks that the placements accepted here are exactly the
legal mask, position by position, that the games replay through ``Game.apply``, and that the
draws are uniform.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from envs.trigolden.geometry import Board, Candidate, Placed, near
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


def has_partner(cands: list[Candidate], i: int, hand: tuple[int, ...]) -> bool:
    """Whether legal placement ``cands[i]`` can open a complete two-piece turn of the
    standard variant: another legal placement, of a kind still in hand after it, stays legal
    once it is on the board and is allowed with it (same opponent piece, either one scoring,
    or the two touching). One row of ``Rules._first_piece``."""
    x = cands[i]
    # Pairs allowed without a contact between the two first: they need only compatibility,
    # and most are far apart. Touching pairs (the dear test) come last.
    touching = []
    for j, y in enumerate(cands):
        if j == i or hand[y.kind] - (y.kind == x.kind) < 1:
            continue
        if not (x.sc or y.sc or y.target == x.target):
            touching.append(y)
        elif not near(x.proj, y.proj) or Rules.compatible(x, y):
            return True
    return any(near(x.proj, y.proj) and Rules.pieces_touch(x, y, True)
               and Rules.compatible(x, y) for y in touching)


def _legal(rules: Rules, board: Board, player: int, hand: tuple[int, ...]) -> list[Candidate]:
    return [c for c in rules.candidates(board, player, hand) if c.legal]


def draw_first_piece(rules: Rules, board: Board, player: int, hand: tuple[int, ...],
                     rng: np.random.Generator) -> Candidate | None:
    """A uniform draw from the player's legal first pieces; None: no legal complete turn."""
    cands = _legal(rules, board, player, hand)
    last_piece = sum(hand) == 1
    for i in rng.permutation(len(cands)).tolist():
        if last_piece or has_partner(cands, i, hand):
            return cands[i]
    return None


def draw_second_piece(rules: Rules, board: Board, player: int, hand: tuple[int, ...],
                      first: Placed, first_contact: bool,
                      rng: np.random.Generator) -> Candidate | None:
    """A uniform draw from the legal second pieces (``Rules._second_piece``, standard)."""
    cands = [c for c in _legal(rules, board, player, hand)
             if first_contact or c.sc or c.target == first.target]
    return cands[int(rng.integers(len(cands)))] if cands else None


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
            second = draw_second_piece(rules, board, mover, tuple(hands[mover]), placed, cand.sc,
                                   rng)
            if second is not None:
                first, cand = placed, second
                continue
        first = None
        for player in (1 - mover, mover):
            if sum(hands[player]) == 0:
                continue
            nxt = draw_first_piece(rules, board, player, tuple(hands[player]), rng)
            if nxt is None:
                return PlayoutResult(ARBITRATION, (scores[0], scores[1]), player, actions)
            mover, cand = player, nxt
            break
        else:
            return PlayoutResult(FINISHED, (scores[0], scores[1]), -1, actions)
