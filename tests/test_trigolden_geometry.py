"""TriGolden geometry: the piece table, exact coordinates, tolerance, agreement with floats."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import ConfigError, make_game
from envs.trigolden import TriGolden, TriGoldenConfig
from envs.trigolden.geometry import EPS, MAX_COORD, point_info
from envs.trigolden.pieces import (
    GOLDEN,
    PHI,
    PIECE_TABLE,
    UNIT,
    PieceKind,
    add,
    edge_vector,
    make_piece_set,
    scale,
    sub,
    to_float,
)

sys.path.insert(0, str(Path(__file__).parent))
import trigolden_reference as ref  # noqa: E402

game = make_game("trigolden")


def phi_times(p):
    """phi * p by the relation phi * u_k = u_(k-1) + u_(k+1), coordinate by coordinate."""
    out = (0, 0, 0, 0)
    for k, c in enumerate(p):
        out = add(out, scale(add(UNIT[(k - 1) % 10], UNIT[(k + 1) % 10]), c))
    return out


def test_unit_vector_relations():
    for k in range(10):
        x, y = to_float(UNIT[k])
        assert math.isclose(x, math.cos(math.radians(36 * k)), abs_tol=1e-12)
        assert math.isclose(y, math.sin(math.radians(36 * k)), abs_tol=1e-12)
        assert UNIT[(k + 5) % 10] == scale(UNIT[k], -1)
    assert UNIT[4] == add(add(scale(UNIT[0], -1), UNIT[1]), add(scale(UNIT[2], -1), UNIT[3]))
    for k in range(10):
        # phi^2 = phi + 1, exactly, on every direction.
        assert phi_times(phi_times(UNIT[k])) == add(phi_times(UNIT[k]), UNIT[k])
        assert phi_times(UNIT[k]) == edge_vector(k, (0, 1))


def test_piece_table_matches_the_spec():
    spec = {
        "T": [(0, 0), (1, 0), (0.5, math.sqrt(PHI * PHI - 0.25))],
        "G": [(0, 0), (PHI, 0), (PHI / 2, math.sin(math.radians(36)))],
        "P": [(0, 0), (PHI, 0), (PHI + math.cos(math.radians(72)), math.sin(math.radians(72))),
              (math.cos(math.radians(72)), math.sin(math.radians(72)))],
    }
    assert GOLDEN.letters == ("T", "G", "P")
    for kind in PIECE_TABLE:
        got = [to_float(v) for v in kind.local_vertices()]
        for (x, y), (ex, ey) in zip(got, spec[kind.letter], strict=True):
            assert math.isclose(x, ex, abs_tol=1e-12) and math.isclose(y, ey, abs_tol=1e-12)
    assert spec["T"][2][1] == pytest.approx(1.53884, abs=1e-5)


def test_symmetries_of_the_pieces():
    # T and G are mirror-symmetric (a flipped opening is the unflipped one), P is not.
    assert GOLDEN.opening_canonical[(0, 1)] == (0, 0)
    assert GOLDEN.opening_canonical[(1, 1)] == (1, 0)
    assert GOLDEN.opening_canonical[(2, 1)] == (2, 1)
    # P's half-turn: e2 lies like e0 and e3 like e1.
    assert GOLDEN.canonical[(2, 0, 2)] == (0, 0) and GOLDEN.canonical[(2, 0, 3)] == (0, 1)
    # Flipped G on leg e1 is unflipped G on leg e2.
    assert GOLDEN.canonical[(1, 1, 1)] == (0, 2)


def test_bad_piece_tables_refused():
    with pytest.raises(ConfigError, match="close"):
        make_piece_set((PieceKind("Q", "open", ((0, (1, 0)), (3, (1, 0)), (7, (1, 0)))),))
    with pytest.raises(ConfigError, match="convex"):
        make_piece_set((PieceKind("Q", "clockwise", ((0, (1, 0)), (7, (0, 1)), (3, (0, 1)))),))
    with pytest.raises(ConfigError, match="distinct"):
        make_piece_set((PIECE_TABLE[0], PIECE_TABLE[0]))
    with pytest.raises(ConfigError):
        make_piece_set(())


def test_another_piece_set_is_a_table_away():
    rhombus = PieceKind("R", "thin rhombus", ((0, (1, 0)), (1, (1, 0)), (5, (1, 0)), (6, (1, 0))))
    pieces = make_piece_set((PIECE_TABLE[0], rhombus))
    g = TriGolden(TriGoldenConfig(n=3), pieces)
    assert g.spec.observation_shape[0] == 2 * 2 * 3 + 1
    rng = np.random.default_rng(0)
    state = g.initial_state()
    while not g.is_terminal(state):
        state = g.apply(state, int(rng.choice(g.legal_actions(state))))
    assert state.num_pieces >= 2


@settings(max_examples=300, deadline=None)
@given(st.integers(-10_000, 10_000), st.integers(-10_000, 10_000))
def test_tolerance_is_safe(a, b):
    # Every comparison value is (A + B*phi) * const with |A|, |B| far below 10^4 on a board;
    # a non-zero one is never within a thousand EPS of zero.
    value = a + b * PHI
    if a or b:
        assert abs(value) > 1000 * EPS
        assert abs(value) >= 1 / (2 * max(abs(a), abs(b))) - 1e-12


def rotate(p, steps: int = 1):
    for _ in range(steps % 10):
        p = add(add(scale(UNIT[1], p[0]), scale(UNIT[2], p[1])),
                add(scale(UNIT[3], p[2]), scale(UNIT[4], p[3])))
    return p


def mirror(p):
    """Reflection in the x-axis: u_k -> u_(-k)."""
    return add(add(scale(UNIT[0], p[0]), scale(UNIT[9], p[1])),
               add(scale(UNIT[8], p[2]), scale(UNIT[7], p[3])))


def rebuild(piece, target):
    """A placed piece's vertices from the table by rotation and translation, exactly."""
    local = list(PIECE_TABLE[piece.kind].local_vertices())
    if piece.face:
        local = [mirror(v) for v in local]
    m = len(local)
    a, b = local[piece.edge], local[(piece.edge + 1) % m]
    if piece.face:
        a, b = b, a  # the mirrored piece runs clockwise: its counter-clockwise edge is b -> a
    i = target.labels.index(piece.target_edge)
    A, B = target.verts[i], target.verts[(i + 1) % len(target.verts)]
    (r,) = [r for r in range(10) if rotate(sub(b, a), r) == sub(A, B)]
    return [add(B, rotate(sub(v, a), r)) for v in local]


def random_final_states(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        state = game.initial_state()
        while not game.is_terminal(state):
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))
        yield state


def test_coordinates_agree_along_different_paths():
    """A vertex reached through different branches of the tree is the same exact tuple, and
    the exact tuples agree with an independent float construction (trigonometry)."""
    checked = 0
    for state in random_final_states(4, seed=21):
        pieces = state.board.pieces
        all_verts = [(p.index, v) for p in pieces for v in p.verts]
        floats = [to_float(v) for _, v in all_verts]
        for i in range(len(all_verts)):
            for j in range(i + 1, len(all_verts)):
                same_exact = all_verts[i][1] == all_verts[j][1]
                close = math.dist(floats[i], floats[j]) < 1e-9
                assert same_exact == close
                if same_exact and all_verts[i][0] != all_verts[j][0]:
                    checked += 1
        # Each piece rebuilt exactly another way: rotate its table vertices with the linear
        # map u_k -> u_(k+1) until its edge lies on the target's edge.
        for p in pieces[1:]:
            assert sorted(rebuild(p, pieces[p.target])) == sorted(p.verts)
            assert max(abs(c) for v in p.verts for c in v) < MAX_COORD
        # The independent float construction (reference) lands on the same points.
        rboard = []
        for p in pieces:
            rboard.append(ref.place(rboard, p.owner, ref.KINDS[p.kind], bool(p.face),
                                    p.target, p.target_edge, p.edge))
            mine = sorted(to_float(v) for v in p.verts)
            theirs = sorted(rboard[-1].verts)
            for a, b in zip(mine, theirs, strict=True):
                assert math.dist(a, b) < 1e-9
    assert checked > 50  # many vertices are shared by pieces of different branches


def test_line_keys_are_exact():
    # Points on one line through the same direction class share the key; others do not.
    p = (1, 2, -1, 0)
    for c in range(5):
        for steps in range(1, 4):
            q = add(p, scale(UNIT[c], steps))
            assert point_info(q)[0][c] == point_info(p)[0][c]
            off = add(q, UNIT[(c + 1) % 10])
            assert point_info(off)[0][c] != point_info(p)[0][c]


def test_no_overlap_and_tree_in_random_games():
    for state in random_final_states(2, seed=8):
        rboard = []
        for p in state.board.pieces:
            rboard.append(ref.place(rboard, p.owner, ref.KINDS[p.kind], bool(p.face),
                                    p.target, p.target_edge, p.edge))
        n = len(rboard)
        shared = 0
        for i in range(n):
            for j in range(i + 1, n):
                assert ref.overlap_area(rboard[i].ccw(), rboard[j].ccw()) < 1e-9
                touching = [
                    (a, b) for a in range(len(rboard[i].verts)) for b in range(len(rboard[j].verts))
                    if ref.collinear_overlap(*rboard[i].edge(a), *rboard[j].edge(b))
                ]
                if touching:
                    # Only a piece and its target share an edge, and exactly one.
                    assert rboard[j].target == i and len(touching) == 1
                    shared += 1
        assert shared == n - 1  # a tree: n pieces, n - 1 shared edges, all to the target
