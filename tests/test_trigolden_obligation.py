"""The obligation of TriGolden's standard variant (``envs/trigolden/obligation.py``).

``docs/rules/trigolden.md``: at the end of a turn the opponent must have a legal complete turn; a
turn that breaks this is illegal, unless every legal turn of the mover breaks it (then the
mover must still play one and loses by arbitration). The engine settles most turns with
witnesses and answers; these tests judge every turn the slow way (the board after it built and
the opponent's turns searched) and, on small boards, with the float reference.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from envs import make_game
from envs.core import IllegalMove
from envs.trigolden.obligation import has_complete_turn
from envs.trigolden.state import ARBITRATION, ONGOING

sys.path.insert(0, str(Path(__file__).parent))
import trigolden_reference as ref  # noqa: E402
from test_trigolden_rules import key_of, play, ref_board  # noqa: E402
from trigolden_positions import CROWDED, FORCED  # noqa: E402

standard = make_game("trigolden")

def exact_mask(game, state) -> set[int]:
    """The mask by the rules' words, the slow way: every turn built, the opponent searched."""
    rules, board, mover = game.rules, state.board, state.to_play
    hand, opp_hand = state.hands[mover], state.hands[1 - mover]
    first = board.pieces[state.first] if state.first >= 0 else None
    base = rules.turn_options(board, mover, hand, first, state.first_contact, state.free_pairs)
    if game.config.variant != "standard" or sum(opp_hand) == 0:
        return set(base.legal)

    def after(b, c):
        return b.add(c.as_placed(len(b.pieces), mover))

    def opponent_can_play(b) -> bool:
        return has_complete_turn(rules, b, 1 - mover, opp_hand)

    keep = set()
    for action, c in base.legal.items():
        b2 = after(board, c)
        if first is not None or sum(hand) == 1 or not board.pieces:
            ok = opponent_can_play(b2)  # this piece ends the turn
        else:
            h2 = list(hand)
            h2[c.kind] -= 1
            seconds = rules.turn_options(b2, mover, tuple(h2), b2.pieces[-1], c.sc, False)
            ok = any(opponent_can_play(after(b2, y)) for y in seconds.legal.values())
        if ok:
            keep.add(action)
    return keep or set(base.legal)


def test_a_first_piece_whose_turns_all_break_the_obligation_is_refused():
    state = play(standard, CROWDED)
    assert state.to_play == 0 and state.first < 0
    with pytest.raises(IllegalMove) as info:
        standard.play(state, "G@42.0/1")
    assert "obligation" in info.value.reason and "opponent" in info.value.reason
    t, te, kind, edge, face = standard.parse_move("G@42.0/1")
    refused = standard.rules.encode(t, te, kind, edge, face)
    assert refused in state.options.refused
    assert not standard.legal_mask(state)[refused]
    # By rules 1-4 and the same-piece rule alone it would open a turn: both of its second
    # pieces are legal, and each leaves p2 with no legal complete turn.
    base = standard.rules.turn_options(state.board, 0, state.hands[0], None, False, False)
    x = base.legal[refused]
    b2 = state.board.add(x.as_placed(len(state.board.pieces), 0))
    hand = list(state.hands[0])
    hand[x.kind] -= 1
    seconds = standard.rules.turn_options(b2, 0, tuple(hand), b2.pieces[-1], x.sc, False).legal
    assert {standard.action_to_move(state, a) for a in seconds} == {"G@37.0/0", "G@41.2/0"}
    for y in seconds.values():
        b3 = b2.add(y.as_placed(len(b2.pieces), 0))
        assert not has_complete_turn(standard.rules, b3, 1, state.hands[1])
    assert set(state.options.legal) == exact_mask(standard, state)
    assert len(state.options.legal) == len(base.legal) - 1


def test_a_second_piece_that_breaks_the_obligation_is_refused():
    state = play(standard, "G G@0.2/1")
    with pytest.raises(IllegalMove, match="obligation: this piece ends the turn"):
        standard.play(state, "G@0.1/2")
    assert set(state.options.legal) == exact_mask(standard, state)
    # The float reference reads the rule literally and agrees.
    board = ref_board(standard, state)
    hand = dict(zip(ref.KINDS, state.hands[1]))
    expected = ref.obliged_second_pieces(board, state.first, 1, hand,
                                         dict(zip(ref.KINDS, state.hands[0])))
    assert {key_of(c.kind, c.verts) for c in state.options.legal.values()} == expected
    assert len(expected) < len(ref.second_piece_options(board, 1, 1, hand, "standard", False))


def test_first_piece_masks_match_the_reference_on_small_boards():
    rng = np.random.default_rng(5)
    compared = 0
    state = standard.initial_state()
    while state.num_pieces <= 5:
        if state.first < 0 and state.board.pieces:
            mover = state.to_play
            board = ref_board(standard, state)
            expected = ref.obliged_first_pieces(
                board, mover, dict(zip(ref.KINDS, state.hands[mover])),
                dict(zip(ref.KINDS, state.hands[1 - mover])))
            assert {key_of(c.kind, c.verts) for c in state.options.legal.values()} == expected
            compared += 1
        state = standard.apply(state, int(rng.choice(standard.legal_actions(state))))
    assert compared >= 2


def test_when_every_turn_breaks_the_obligation_all_stay_legal_and_arbitration_follows():
    game = make_game("trigolden", n=4)
    state = play(game, FORCED)
    assert state.to_play == 0 and state.hands == ((1, 1, 3), (0, 0, 4))
    assert state.options.unavoidable and not state.options.refused
    base = game.rules.turn_options(state.board, 0, state.hands[0], None, False, False)
    assert set(state.options.legal) == set(base.legal) == exact_mask(game, state)
    assert len(state.options.legal) == 4
    for first in sorted(state.options.legal):
        s1 = game.apply(state, first)
        assert s1.to_play == 0 and s1.first >= 0 and s1.options.unavoidable
        for second in sorted(s1.options.legal):
            end = game.apply(s1, second)
            assert end.outcome == ARBITRATION and end.claimant == 1
            assert list(game.returns(end)) == [-1.0, 1.0]


@pytest.mark.slow
def test_the_forced_position_agrees_with_the_reference():
    game = make_game("trigolden", n=4)
    state = play(game, FORCED)
    board = ref_board(game, state)
    assert {key_of(c.kind, c.verts) for c in state.options.legal.values()} == \
        ref.obliged_first_pieces(board, 0, {"T": 1, "G": 1, "P": 3}, {"T": 0, "G": 0, "P": 4})


def _check_random_games(game, seeds) -> tuple[int, int]:
    positions = refused = 0
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.initial_state()
        while not game.is_terminal(state):
            assert set(state.options.legal) == exact_mask(game, state)
            refused += bool(state.options.refused)
            positions += 1
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    return positions, refused


def test_masks_match_the_slow_judgement_along_random_games():
    positions, refused = _check_random_games(standard, [21, 22])
    assert positions > 100 and refused >= 1


@pytest.mark.slow
def test_masks_match_the_slow_judgement_along_many_random_games():
    for game, seeds in ((standard, range(30, 50)), (make_game("trigolden", n=3), range(20)),
                        (make_game("trigolden", scoring="trigolden"), range(50, 60))):
        positions, refused = _check_random_games(game, seeds)
        assert positions > 100 and refused >= 1


def test_the_draft_has_no_obligation():
    draft = make_game("trigolden", variant="draft")
    state = play(draft, "G G@0.2/1")
    assert not state.options.refused
    assert set(state.options.legal) == exact_mask(draft, state)


def test_a_game_of_kept_obligations_never_ends_by_arbitration():
    # Random players choosing from the mask never leave the opponent without a turn unless
    # every turn would: over these seeds no position was forced, so no game ends that way.
    rng = np.random.default_rng(9)
    for _ in range(6):
        state = standard.initial_state()
        forced = False
        while not standard.is_terminal(state):
            forced = forced or state.options.unavoidable
            state = standard.apply(state, int(rng.choice(standard.legal_actions(state))))
        assert state.outcome != ARBITRATION or forced
        assert state.outcome != ONGOING
