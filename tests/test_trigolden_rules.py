"""TriGolden rules on hand-built positions (notation literals), checked against the reference.

Every position below is a move list in the notation of ``docs/rules/trigolden.md``. The engine's
verdicts are compared with ``trigolden_reference`` (floats, clipping, brute force), which
shares no code with the engine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from envs import IllegalMove, make_game
from envs.trigolden.geometry import Board
from envs.trigolden.match import arbitrate
from envs.trigolden.pieces import to_float
from envs.trigolden.state import ARBITRATION, FINISHED, ONGOING

sys.path.insert(0, str(Path(__file__).parent))
import trigolden_reference as ref  # noqa: E402
from trigolden_positions import FORCED  # noqa: E402

standard = make_game("trigolden")
draft = make_game("trigolden", variant="draft")


def play(game, moves: str):
    state = game.initial_state()
    for move in moves.split():
        state = game.play(state, move)
    return state


def ref_board(game, state) -> list[ref.RefPiece]:
    """The reference's board for a state, rebuilt from its moves."""
    board: list[ref.RefPiece] = []
    s = game.initial_state()
    for a in state.moves:
        t, te, k, e, f = game.rules.decode(a)
        board.append(ref.place(board, s.to_play, ref.KINDS[k], bool(f), t, te, e))
        s = game.apply(s, a)
    return board


def key_of(kind: int, verts) -> tuple:
    pts = (to_float(v) for v in verts)
    return (ref.KINDS[kind], tuple(sorted((round(x, 5) + 0.0, round(y, 5) + 0.0) for x, y in pts)))


def ref_piece_for(game, state, move: str) -> tuple[list[ref.RefPiece], ref.RefPiece, int, int]:
    t, te, kind, e, face = game.parse_move(move)
    board = ref_board(game, state)
    piece = ref.place(board, state.to_play, ref.KINDS[kind], bool(face), t, te, e)
    return board, piece, te, e


def refused(game, state, move: str) -> str:
    with pytest.raises(IllegalMove) as info:
        game.play(state, move)
    return info.value.reason


# ---------------------------------------------------------------- rules 1-4
def test_rule_2_overlap_refused():
    state = play(standard, "P' T@0.0/2 G@0.1/2")
    assert "rule 2" in refused(standard, state, "G@1.0/1")
    board, piece, _, _ = ref_piece_for(standard, state, "G@1.0/1")
    assert max(ref.overlap_area(piece.ccw(), p.ccw()) for p in board) > 0.01


def test_rule_3_partial_edge_contact_refused():
    state = play(standard, "G G@0.1/2 G@0.2/2")
    assert "rule 3" in refused(standard, state, "G@1.1/2")
    board, piece, _, e = ref_piece_for(standard, state, "G@1.1/2")
    assert all(ref.overlap_area(piece.ccw(), p.ccw()) < 1e-9 for p in board)
    contacts = [
        (i, q) for i in range(3) if i != e for q, p in enumerate(board)
        for j in range(len(p.verts)) if ref.collinear_overlap(*piece.edge(i), *p.edge(j))
    ]
    assert contacts  # an edge other than the attached one lies along a board edge


def test_rule_4_free_vertex_on_vertex_refused():
    state = play(standard, "G P@0.1/1 P'@0.2/1 P'@2.3/1 P'@2.2/0")
    assert "rule 4" in refused(standard, state, "P@3.0/0")
    board, piece, _, _ = ref_piece_for(standard, state, "P@3.0/0")
    assert ref.legal(board[:0], piece, 0, 0)  # sanity: the reference itself builds it
    assert not ref.legal(board, piece, 0, 0)


def test_rule_1_refusals():
    state = play(standard, "T")
    assert "own piece" not in refused(standard, state, "G@0.0/0")  # wrong length
    assert "differ in length" in refused(standard, state, "G@0.0/0")
    assert "no piece 3" in refused(standard, state, "T@3.0/0")
    assert "edges 0..2" in refused(standard, state, "T@0.3/0")
    state = play(standard, "T T@0.0/0")
    assert "own piece" in refused(standard, state, "T@1.1/1")  # p2 on its own piece
    state = play(standard, "T T@0.0/0 T@0.1/1")
    assert "already holds" in refused(standard, state, "T@1.0/0")


def test_point_contact_allowed():
    # The second piece touches the first piece at one point only (a vertex on an edge).
    state = play(standard, "P P'@0.2/0 P@0.0/0 P@2.1/1")
    after = standard.play(state, "P@1.1/1")
    board = ref_board(standard, after)
    y = len(board) - 1
    assert all(ref.overlap_area(board[y].ccw(), p.ccw()) < 1e-9 for p in board[:y])
    assert ref.forms_any_structure(board, y, 3)


# ---------------------------------------------------------------- structures and scoring
WORTH_3 = "P P'@0.1/1 T@0.2/1 G@1.2/0 P@1.0/0 T@4.2/2 T@4.3/0 P'@5.0/1"
WORTH_4 = "G P'@0.1/1 P'@0.2/1 P'@2.3/1 G@2.2/0 G@3.0/0 G@3.3/1 P'@5.1/1"


def test_structure_worth_3():
    state = play(standard, WORTH_3)
    structs = [(s.trigolden, s.edge, s.bracing, s.points) for s in state.structures]
    assert structs == [(7, 0, 0, 3)]
    assert ref.structures(ref_board(standard, state)) == structs
    # Pieces 0 and 7 are both p1's: p1 scores in either mode.
    assert state.scores == (3, 0)
    assert play(make_game("trigolden", scoring="trigolden"), WORTH_3).scores == (3, 0)


def test_structure_worth_4():
    state = play(standard, WORTH_4)
    structs = [(s.trigolden, s.edge, s.bracing, s.points) for s in state.structures]
    assert structs == [(1, 2, 7, 4)]
    assert structs == ref.structures(ref_board(standard, state))


def test_scoring_modes():
    # In WORTH_4 the bracing piece 7 is p1's and the TriGolden piece 1 is p2's.
    assert play(standard, WORTH_4).scores == (4, 0)
    trigolden_mode = make_game("trigolden", scoring="trigolden")
    state = play(trigolden_mode, WORTH_4)
    assert state.scores == (0, 4)
    assert list(state.scores) == ref.scores(ref_board(trigolden_mode, state), "trigolden")


def test_closest_bracing_piece():
    # At the point on edge 2 of piece 11, pieces 16 and 18 both have a vertex: 16 is 6 steps
    # from 11 along the tree, 18 is 7, so 16 braces and scores 5.
    moves = ("T G@0.0/1 G@0.2/0 P'@1.2/1 G@1.0/0 G@4.1/2 P@4.2/1 T@5.0/1 G@5.1/1 P'@3.3/1 "
             "T@3.2/1 T@9.0/1 P'@9.3/1 T@12.0/2 T@12.2/1 G@10.2/0 P@2.1/1 T@16.2/1 G@16.3/1")
    state = play(standard, moves)
    (s,) = [s for s in state.structures if s.trigolden == 11]
    assert sorted(state.board.vertex_pieces[s.point]) == [16, 18]
    assert (s.bracing, s.points) == (16, 5)
    assert state.board.distance(16, 11) == 6 and state.board.distance(18, 11) == 7
    assert (11, 2, 16, 5) in ref.structures(ref_board(standard, state))


def test_closest_bracing_piece_not_the_earliest():
    # The origin lies inside edge 2 of piece 10; pieces 0 (p1, placed first) and 1 (p2) both
    # have a vertex there. Piece 1 is 4 steps from piece 10, piece 0 is 5: piece 1 braces,
    # worth 3 to p2 (taking piece 0 would have given p1 4).
    moves = "G P'@0.2/1 G@0.1/1 P'@1.0/0 P@1.3/1 G@4.3/1 P'@4.0/0 P'@6.2/0 G@6.3/1 G@4.2/0 P'@7.1/1"
    state = play(standard, moves)
    (s,) = state.structures
    assert state.board.vertex_pieces[s.point] == (0, 1)
    assert (s.trigolden, s.edge, s.bracing, s.points) == (10, 2, 1, 3)
    assert state.scores == (0, 3)
    assert ref.structures(ref_board(standard, state)) == [(10, 2, 1, 3)]


def test_ties_go_to_the_earliest_piece():
    # Ties cannot arise on a legal board (the pieces with a vertex at one point form a
    # connected subtree, whose nearest piece to any other piece is unique), but the rule is
    # implemented: among equally distant pieces the earliest wins.
    state = play(standard, "T T@0.0/0 T@0.1/1")
    # Pieces 1 and 2 are both one step from piece 0.
    assert state.board.closest((2, 1), 0) == 1
    assert state.board.closest((1, 2), 0) == 1


def test_no_structure_worth_less_than_3():
    rng = np.random.default_rng(5)
    seen = []
    for _ in range(6):
        state = standard.initial_state()
        while not standard.is_terminal(state):
            state = standard.apply(state, int(rng.choice(standard.legal_actions(state))))
        seen.extend(s.points for s in state.structures)
    assert seen and min(seen) >= 3


# ---------------------------------------------------------------- turn structure, standard
SAME_PIECE = "P' G@0.2/0 G@0.1/2 T@1.2/0"


def test_same_piece_rule_standard():
    state = play(standard, SAME_PIECE)
    assert state.first == 3 and state.to_play == 0
    reason = refused(standard, state, "T@2.0/1")
    assert "same opponent piece" in reason
    board = ref_board(standard, state)
    _, piece, te, e = ref_piece_for(standard, state, "T@2.0/1")
    assert ref.legal(board, piece, te, e)  # legal by rules 1-4: only the turn rule refuses it
    assert not ref.part_of_scoring(board + [piece], 3)
    assert not ref.part_of_scoring(board + [piece], 4)
    # Engine and reference agree on every second piece here.
    hand = dict(zip(ref.KINDS, state.hands[0]))
    expected = ref.second_piece_options(board, 3, 0, hand, "standard", False)
    assert {key_of(c.kind, c.verts) for c in state.options.legal.values()} == expected


@pytest.mark.parametrize(
    "moves, second, why",
    [
        # The second piece forms a scoring structure with pieces already on the board.
        ("G P@0.1/1 T@0.2/0 P'@1.2/0 P'@1.3/1 G@3.3/2 P@3.2/0 P'@2.2/0", "P@6.3/1", "board"),
        # The first piece is already part of a scoring structure.
        ("G P'@0.1/1 P'@0.2/1 P'@2.3/1 G@2.2/0 G@3.0/0 G@3.3/1 P'@5.1/1", "T@1.0/1", "first"),
        # The two new pieces form a scoring structure with each other.
        ("P P'@0.2/0 P@0.0/0 P@2.1/1", "P@1.1/1", "pair"),
    ],
)
def test_exception_standard(moves, second, why):
    state = play(standard, moves)
    first = state.first
    after = standard.play(state, second)
    y = after.num_pieces - 1
    assert after.board.pieces[y].target != after.board.pieces[first].target
    board = ref_board(standard, after)
    assert ref.part_of_scoring(board, first) or ref.part_of_scoring(board, y)
    if why == "first":
        assert ref.part_of_scoring(board[:y], first)
    if why == "pair":
        assert ref.forms_any_structure(board, y, first)
        assert not ref.part_of_scoring(board[:y], first)
        structs = ref.structures(board)
        assert any({b, brace} == {first, y} for b, _, brace, _ in structs)
    if why == "board":
        assert not ref.part_of_scoring(board[:y], first)
        assert not ref.forms_any_structure(board, y, first)


# ---------------------------------------------------------------- draft rules 5-7
def test_draft_same_piece_refused():
    state = play(draft, SAME_PIECE)
    assert "same opponent piece" in refused(draft, state, "T@2.0/1")


def test_draft_rule_6_first_piece_forms_a_structure():
    state = play(draft, "G P'@0.1/1 P'@0.2/1 P'@2.3/1 G@2.2/0 G@3.0/0 G@3.3/1 P'@5.1/1")
    assert state.first_contact and not state.free_pairs
    draft.play(state, "T@1.0/1")


def test_draft_rule_7_second_forms_a_structure_with_the_first():
    state = play(draft, "P P'@0.2/0 P@0.0/0 P@2.1/1")
    assert not state.first_contact and not state.free_pairs
    after = draft.play(state, "P@1.1/1")
    assert ref.forms_any_structure(ref_board(draft, after), 4, 3)


def test_draft_rule_5_no_piece_takes_two():
    # After p2's turn, no p2 piece can take two legal p1 pieces: the two may go anywhere.
    state = play(draft, "G G@0.2/1 G@0.1/2")
    assert state.free_pairs
    state = draft.play(state, "P'@2.0/0")
    after = draft.play(state, "T@1.0/1")
    assert after.board.pieces[4].target != after.board.pieces[3].target


def test_draft_masks_match_reference():
    for moves in ("G G@0.2/1 G@0.1/2", "P' G@0.2/0 G@0.1/2", "T T@0.2/2 P@0.1/0"):
        state = play(draft, moves)
        board = ref_board(draft, state)
        hand = dict(zip(ref.KINDS, state.hands[state.to_play]))
        expected = ref.first_piece_options(board, state.to_play, hand, "draft")
        if not expected:
            expected = {k for _, _, k in ref.single_placements(board, state.to_play, hand)}
        assert {key_of(c.kind, c.verts) for c in state.options.legal.values()} == expected


# ---------------------------------------------------------------- obligation and arbitration
def test_obligation_broken_claimant_wins():
    # Every turn of p1 leaves p2 (parallelograms only) no legal complete turn, so p1 must play
    # one (tests/test_trigolden_obligation.py): the game ends, p2 wins by arbitration.
    game = make_game("trigolden", n=4)
    state = play(game, FORCED)
    state = game.apply(state, int(game.legal_actions(state)[0]))
    state = game.apply(state, int(game.legal_actions(state)[0]))
    assert state.outcome == ARBITRATION and state.claimant == 1
    assert list(game.returns(state)) == [-1.0, 1.0]
    assert not game.legal_mask(state).any()
    assert arbitrate(game, state) is None
    board = ref_board(game, state)
    assert not ref.first_piece_options(board, 1, {"T": 0, "G": 0, "P": 4}, "standard")


def test_arbitration_finds_a_turn_claimant_loses():
    state = play(standard, "T T@0.0/0 T@0.1/1")
    turn = arbitrate(standard, state)
    assert turn is not None and len(turn) == 2
    s = state
    for a in turn:
        assert s.to_play == 0
        s = standard.apply(s, a)
    assert s.to_play == 1 and s.first < 0
    with pytest.raises(IllegalMove):
        arbitrate(standard, standard.apply(state, turn[0]))  # not at the start of a turn
    with pytest.raises(IllegalMove):
        arbitrate(draft, draft.initial_state())


# ---------------------------------------------------------------- perft-style counts
@pytest.mark.parametrize("opening, firsts, turns", [("T", 15, 75), ("P'", 20, 150)])
def test_counts_after_opening(opening, firsts, turns):
    state = play(standard, opening)
    assert len(standard.legal_actions(state)) == firsts
    board = ref_board(standard, state)
    hand = {"T": 9, "G": 9, "P": 9}
    assert len({k for _, _, k in ref.single_placements(board, 1, hand)}) == firsts
    engine_turns = set()
    for a in standard.legal_actions(state):
        s1 = standard.apply(state, int(a))
        for b in standard.legal_actions(s1):
            s2 = standard.apply(s1, int(b))
            engine_turns.add(frozenset(key_of(p.kind, p.verts) for p in s2.board.pieces[1:]))
    assert len(engine_turns) == turns
    assert engine_turns == ref.complete_turns(board, 1, hand, "standard")


# ---------------------------------------------------------------- whole games
def test_turn_order_n9_and_even_n():
    rng = np.random.default_rng(3)
    for n, last_single in ((9, 1), (2, 0)):
        game = make_game("trigolden", n=n)
        state = game.initial_state()
        turns = []  # (player, pieces placed)
        while not game.is_terminal(state):
            mover = state.to_play
            if not turns or turns[-1][0] != mover or state.first < 0:
                turns.append([mover, 0])
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            turns[-1][1] += 1
        if state.outcome == ARBITRATION:
            continue
        sizes = [k for _, k in turns]
        assert sizes[0] == 1 and sizes[-1] == 1 and all(k == 2 for k in sizes[1:-1])
        assert [p for p, _ in turns] == [i % 2 for i in range(len(turns))]
        assert turns[-1][0] == last_single
        assert state.hands == ((0, 0, 0), (0, 0, 0)) and state.outcome == FINISHED


def test_complete_game_scores_match_reference():
    rng = np.random.default_rng(11)
    for game in (standard, make_game("trigolden", scoring="trigolden"), draft):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        board = ref_board(game, state)
        assert [tuple(s) for s in ref.structures(board)] == sorted(
            (s.trigolden, s.edge, s.bracing, s.points) for s in state.structures)
        assert list(state.scores) == ref.scores(board, game.config.scoring)
        if state.outcome == FINISHED:
            diff = state.scores[0] - state.scores[1]
            assert list(game.returns(state)) == [np.sign(diff), -np.sign(diff)]


def test_draft_pass_and_end():
    # With n = 1 and the draft rules, placements run out quickly: the game ends when nobody
    # can place, passes recorded; the engine never offers an empty mask on a live state.
    game = make_game("trigolden", variant="draft", n=1)
    rng = np.random.default_rng(0)
    for _ in range(20):
        state = game.initial_state()
        while not game.is_terminal(state):
            assert game.legal_mask(state).any()
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        assert state.outcome == FINISHED
        for pieces, player in state.passes:
            assert 0 < pieces <= state.num_pieces
        assert state.outcome != ONGOING


# ---------------------------------------------------------------- the board's memo
@pytest.mark.parametrize("game", [standard, draft], ids=["standard", "draft"])
def test_memo_carried_across_moves_matches_a_board_built_from_scratch(game):
    """Each board keeps its parent's checked placements, re-judged against the new piece
    alone (``Rules.rechecker``); the verdicts must be those of a board that never had a
    memo."""
    rng = np.random.default_rng(8)
    compared = 0
    for _ in range(3):
        state = game.initial_state()
        while not game.is_terminal(state):
            if state.board.pieces:
                fresh = Board()
                for piece in state.board.pieces:
                    fresh = fresh.add(piece)
                mover, hand = state.to_play, state.hands[state.to_play]
                carried = game.rules.candidates(state.board, mover, hand)
                scratch = game.rules.candidates(fresh, mover, hand)
                flags = [[(c.action, c.legal, c.legal and c.sc, c.legal and c.touch)
                          for c in cands] for cands in (carried, scratch)]
                assert flags[0] == flags[1]
                compared += len(carried)
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    assert compared > 1000


# ---------------------------------------------------------------- differential runs
def _differential(game, seeds, max_pieces: int, every: int, masks_up_to: int) -> int:
    """Compare engine and reference along random games: pieces, structures, the legal single
    placements, and the masks (first pieces on boards up to ``masks_up_to`` pieces, second
    pieces always). Returns how many masks were compared."""
    compared = 0
    variant = game.config.variant
    for seed in seeds:
        rng = np.random.default_rng(seed)
        state = game.initial_state()
        step = 0
        while not game.is_terminal(state) and state.num_pieces <= max_pieces:
            board = ref_board(game, state)
            mover = state.to_play
            hand = dict(zip(ref.KINDS, state.hands[mover]))
            mask = {key_of(c.kind, c.verts) for c in state.options.legal.values()}
            if step % every == 0 and board:
                assert [key_of(p.kind, p.verts) for p in state.board.pieces] == [
                    ref.position_key(p) for p in board]
                assert sorted((s.trigolden, s.edge, s.bracing, s.points)
                              for s in state.structures) == ref.structures(board)
                singles = {k for _, _, k in ref.single_placements(board, mover, hand)}
                engine = {key_of(c.kind, c.verts) for c in
                          game.rules.candidates(state.board, mover, state.hands[mover])
                          if c.legal}
                assert singles == engine
                opp_hand = dict(zip(ref.KINDS, state.hands[1 - mover]))
                # The obligation needs the opponent's turns, which the float reference finds
                # slowly: beyond small boards, positions where the engine refuses nothing for
                # it are compared with the plain rules (test_trigolden_obligation.py judges
                # every mask's obligation the slow way along whole games).
                obliged = variant == "standard" and (
                    len(board) <= masks_up_to or state.options.refused
                    or state.options.unavoidable)
                if state.first >= 0:
                    if obliged:
                        expected = ref.obliged_second_pieces(board, state.first, mover, hand,
                                                             opp_hand)
                    else:
                        expected = ref.second_piece_options(board, state.first, mover, hand,
                                                            variant, state.free_pairs)
                    assert mask == expected
                    compared += 1
                elif sum(state.hands[mover]) >= 2 and len(board) <= masks_up_to:
                    if obliged:
                        expected = ref.obliged_first_pieces(board, mover, hand, opp_hand)
                    else:
                        expected = ref.first_piece_options(board, mover, hand, variant)
                    assert mask == (expected or (singles if variant == "draft" else set()))
                    compared += 1
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
            step += 1
    return compared


def test_differential_against_reference():
    assert _differential(standard, [1, 2], max_pieces=16, every=3, masks_up_to=4) >= 4
    assert _differential(draft, [3], max_pieces=12, every=3, masks_up_to=4) >= 2


@pytest.mark.slow
def test_differential_against_reference_long():
    for game in (standard, draft, make_game("trigolden", scoring="trigolden")):
        assert _differential(game, range(10, 13), max_pieces=54, every=2, masks_up_to=8) > 10


# ---------------------------------------------------------------- a golden game record
GOLDEN_GAME = (
    "G G@0.1/2 G@0.2/2 P'@2.1/1 T@2.0/1 P@3.0/0 P@3.3/1 P@6.3/1 G@6.0/0 G@7.2/0 P@7.3/1 "
    "G@9.1/1 T@9.2/0 P'@12.1/0 T@12.2/2 T@10.0/2 G@10.3/2 G@15.1/0 T@15.0/0 T@1.0/2 P@5.3/1 "
    "T@20.2/2 P'@20.3/1 G@21.0/2 P@21.1/0 T@19.0/0 G@19.1/0 G@26.1/2 T@26.2/0 G@23.0/0 "
    "G@23.1/1 P@13.1/1 T@13.2/1 P'@32.0/1 T@32.2/1 P@17.1/1 G@17.2/1 P'@16.0/0 P'@8.1/1 "
    "G@37.3/1 T@25.2/1 P'@31.3/1 T@31.2/1 T@18.2/1 P@37.1/1 T@44.2/2 T@44.3/0 T@41.0/1 "
    "G@41.3/1 G@40.0/1 T@40.2/1 P'@50.2/0 P'@50.0/1 G@51.2/0"
)


def test_complete_game_record():
    state = play(standard, GOLDEN_GAME)
    assert state.outcome == FINISHED and state.num_pieces == 54
    assert state.hands == ((0, 0, 0), (0, 0, 0))
    structs = [(s.trigolden, s.edge, s.bracing, s.points) for s in state.structures]
    assert structs == [(20, 0, 11, 5), (34, 2, 22, 9), (36, 0, 38, 6), (14, 1, 39, 6),
                       (44, 0, 18, 4)]
    assert state.scores == (11, 19)
    assert list(standard.returns(state)) == [-1.0, 1.0]
    assert sorted(structs) == ref.structures(ref_board(standard, state))
    # The same moves scored by the TriGolden pieces' owners.
    assert play(make_game("trigolden", scoring="trigolden"), GOLDEN_GAME).scores == tuple(
        ref.scores(ref_board(standard, state), "trigolden"))
