"""The compiled TriGolden core (``envs/trigolden/k*.py``) against the pure-Python engine it
replaced (kept as the reference, ``TriGolden(..., reference=True)``), and its geometry
against Shapely.

1. Differential games: the same random actions through both engines, every position compared
   (mask, refusals by the obligation, turn, hands, structures, scores, passes, outcome, and
   the observation float for float), for both variants, both scoring modes and several hand
   sizes.
2. The core's incremental list of legal placements against the mask built from the board
   alone.
3. The exact predicates (interiors overlap, edges along one line over a positive length, a
   vertex strictly inside an edge, vertices equal) against Shapely's, in floating point with a
   tolerance far below the pieces' smallest feature, on pairs that come near each other in
   random positions: the near-misses that decide the game.
"""

from __future__ import annotations

import decimal
import zlib

import numpy as np
import pytest
from trigolden_positions import FORCED

from envs import IllegalMove
from envs.trigolden import TriGolden, TriGoldenConfig
from envs.trigolden.engine import Kernel, board_arrays
from envs.trigolden.kboard import candidates, new_board
from envs.trigolden.kgeom import (
    ACTION,
    FROW,
    NV,
    ROW,
    SC,
    TOUCH,
    V,
    apart,
    edge_contact,
    finish_row,
    overlap,
    sign_phi,
    vertex_on_edge,
    vertex_on_vertex,
)
from envs.trigolden.pieces import to_float
from envs.trigolden.state import ONGOING

shapely = pytest.importorskip("shapely")
from shapely.geometry import LineString, Point, Polygon  # noqa: E402

TOL = 1e-9  # the smallest feature of a golden piece is 1 - 1/phi ~ 0.38


def pair(variant: str, scoring: str, n: int = 9) -> tuple[TriGolden, TriGolden]:
    config = TriGoldenConfig(variant=variant, scoring=scoring, n=n)
    return TriGolden(config), TriGolden(config, reference=True)


def same_position(kernel_game: TriGolden, a, b) -> None:
    """Assert two states (core, reference) agree on everything the rules decide, and on
    what a network sees."""
    assert a.moves == b.moves
    assert a.outcome == b.outcome and a.claimant == b.claimant
    assert a.hands == b.hands and a.scores == b.scores and a.passes == b.passes
    assert a.structures == b.structures
    if a.outcome == ONGOING:
        assert (a.to_play, a.first, a.first_contact, a.free_pairs) == \
            (b.to_play, b.first, b.first_contact, b.free_pairs)
        assert list(kernel_game.legal_actions(a)) == sorted(b.options.legal)
        assert set(a.options.refused) == set(b.options.refused)
        assert a.options.unavoidable == b.options.unavoidable
    # The core's compiled encoding (``kobs``) against the Python loop, float for float: the
    # network must see the same input whichever engine built the state.
    obs = kernel_game.observation(a)
    assert obs.dtype == np.float32
    np.testing.assert_array_equal(obs, kernel_game.observation(b))


def differential(variant: str, scoring: str, n: int, games: int, seed: int) -> int:
    """Play random games through both engines; returns the positions compared."""
    fast, ref = pair(variant, scoring, n)
    rng = np.random.default_rng(seed)
    compared = 0
    for _ in range(games):
        a, b = fast.initial_state(), ref.initial_state()
        while True:
            same_position(fast, a, b)
            compared += 1
            if fast.is_terminal(a):
                break
            action = int(rng.choice(fast.legal_actions(a)))
            a, b = fast.apply(a, action), ref.apply(b, action)
        assert fast.returns(a).tolist() == ref.returns(b).tolist()
    return compared


@pytest.mark.parametrize("variant", ["standard", "draft"])
@pytest.mark.parametrize("scoring", ["bracing", "trigolden"])
def test_games_match_the_reference_engine(variant, scoring):
    # A fixed seed per case (``hash`` of a string changes from one process to the next, and
    # some of its seeds gave games short enough to fail the count).
    seed = zlib.crc32(f"{variant}/{scoring}".encode()) % 1000
    assert differential(variant, scoring, 9, games=2, seed=seed) > 100


@pytest.mark.parametrize("variant", ["standard", "draft"])
@pytest.mark.parametrize("n", [2, 4])
def test_small_hands_match_the_reference_engine(variant, n):
    # Small hands reach the obligation's refusals, arbitration and passes often.
    assert differential(variant, "bracing", n, games=6, seed=n) > 30


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["standard", "draft"])
@pytest.mark.parametrize("scoring", ["bracing", "trigolden"])
@pytest.mark.parametrize("n", [9, 4, 3])
def test_many_games_match_the_reference_engine(variant, scoring, n):
    assert differential(variant, scoring, n, games=25, seed=100 + n) > 200


def _verdict(game: TriGolden, state, move: str) -> int | str:
    try:
        return game.move_to_action(state, move)
    except IllegalMove as exc:
        return str(exc)


def test_move_strings_read_the_same_on_both_engines():
    """A move string is read from the core's arrays where a state has them (a request's
    replay) and from the Python board otherwise: the same action or the same refusal."""
    fast, ref = pair("standard", "bracing", 4)
    rng = np.random.default_rng(5)
    a, b = fast.initial_state(), ref.initial_state()
    checked = 0
    while not fast.is_terminal(a):
        n = len(a.moves)
        moves = [fast.action_to_move(a, int(x)) for x in fast.legal_actions(a)[:4]]
        moves += ["T", "P'"] + [f"{kind}@{target}.{edge}/{own}" for kind in ("T", "P'", "G")
                                for target in (0, max(n - 1, 0), n) for edge in (0, 3)
                                for own in (0, 1)]
        for move in moves:
            assert _verdict(fast, a, move) == _verdict(ref, b, move), move
            checked += 1
        action = int(rng.choice(fast.legal_actions(a)))
        a, b = fast.apply(a, action), ref.apply(b, action)
    assert checked > 300


def test_forced_position_matches_the_reference_engine():
    fast, ref = pair("standard", "bracing", 4)
    a, b = fast.initial_state(), ref.initial_state()
    for move in FORCED.split():
        a, b = fast.play(a, move), ref.play(b, move)
        same_position(fast, a, b)
    assert a.options.unavoidable
    for first in fast.legal_actions(a):
        a1, b1 = fast.apply(a, int(first)), ref.apply(b, int(first))
        same_position(fast, a1, b1)


def test_incremental_placements_match_a_board_built_from_scratch():
    game = TriGolden()
    kernel = Kernel(game.rules, game.config.scoring)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    checked = 0
    while not game.is_terminal(state):
        if state.num_pieces:
            legal, _, _, refused, flags, _, _ = kernel.turn_options(
                state.board, state.to_play, state.hands, state.first, state.first_contact,
                state.free_pairs)
            assert list(legal) == list(game.legal_actions(state))
            assert list(refused) == list(state.core.refused)
            assert list(flags) == list(state.core.flags)
            checked += 1
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    assert checked > 40


def test_playouts_end_like_replayed_games():
    game = TriGolden()
    rng = np.random.default_rng(5)
    state = game.initial_state()
    for _ in range(20):
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    values = {tuple(game.random_playout(state, rng, 1000).tolist()) for _ in range(20)}
    assert all(len(v) == 2 and abs(v[0] + v[1]) < 1e-6 and -1 <= v[0] <= 1 for v in values)
    assert len(values) > 1
    assert game.random_playout(state, rng, 1).tolist() == [0.0, 0.0]


def test_sign_phi_is_exact():
    decimal.getcontext().prec = 60
    phi = (1 + decimal.Decimal(5).sqrt()) / 2
    rng = np.random.default_rng(0)
    # Near-zero values a + b*phi come from consecutive Fibonacci numbers.
    fib = [1, 1]
    while len(fib) < 40:
        fib.append(fib[-1] + fib[-2])
    cases = [(fib[k + 1], -fib[k]) for k in range(35)] + [(-fib[k + 1], fib[k])
                                                           for k in range(35)]
    cases += [tuple(int(x) for x in rng.integers(-10**6, 10**6, 2)) for _ in range(500)]
    cases += [(0, 0), (5, 0), (0, -3)]
    for a, b in cases:
        value = a + b * phi
        assert sign_phi(a, b) == (value > 0) - (value < 0), (a, b)


# ---------------------------------------------------------------- Shapely
def polygon_of(rows: np.ndarray, i: int) -> list[tuple[float, float]]:
    r = rows[i]
    return [to_float(tuple(int(x) for x in r[V + 4 * k:V + 4 * k + 4])) for k in range(r[NV])]


def shapely_overlap(p: list, q: list) -> bool:
    """Interiors overlap: q shrunk by a tolerance still meets p. (The intersection's area is
    not robust here: for a triangle whose vertices all lie on a parallelogram's boundary,
    GEOS returned an empty intersection.)"""
    inner = Polygon(q).buffer(-1e-7)
    return not inner.is_empty and Polygon(p).intersects(inner)


def segments(p: list) -> list[LineString]:
    return [LineString([p[k], p[(k + 1) % len(p)]]) for k in range(len(p))]


def shapely_edge_contact(p: list, q: list) -> bool:
    """Two edges lie along one line over a positive length: the part of one within TOL of
    the other is long (a crossing at 36 degrees or more leaves a few TOL of it; collinear
    float segments rarely intersect exactly, hence the buffer)."""
    return any(b.intersection(a.buffer(TOL)).length > 1e-6
               for a in segments(p) for b in segments(q))


def shapely_vertex_on_edge(p: list, q: list) -> bool:
    """A vertex of p on an edge of q, away from that edge's ends."""
    for v in p:
        pt = Point(v)
        for e in segments(q):
            ends = e.coords
            if pt.distance(e) < TOL and min(pt.distance(Point(ends[0])),
                                            pt.distance(Point(ends[1]))) > TOL:
                return True
    return False


def shapely_vertex_on_vertex(p: list, q: list) -> bool:
    return any(Point(v).distance(Point(w)) < TOL for v in p for w in q)


def near_pairs(variant: str, games: int, seed: int):
    """(board rows, candidate rows, board piece, candidate) for every candidate placement,
    legal or not, and every board piece whose box comes near it, in random positions."""
    game = TriGolden(TriGoldenConfig(variant=variant))
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state()
        while not game.is_terminal(state):
            core = state.core
            if core.n and rng.random() < 0.3:
                size = core.n * 4 * game.kernel.tab[6].shape[1]
                ci, cf = np.empty((size, ROW), dtype=np.int64), np.empty((size, FROW))
                nc = candidates(core.bi, core.bf, core.n, state.to_play,
                                np.array(state.hands[state.to_play]), game.kernel.tab, ci, cf)
                for i in range(nc):
                    for j in range(core.n):
                        if not apart(cf, i, core.bf, j):
                            yield core.bi, core.bf, ci, cf, j, i
            state = game.apply(state, int(rng.choice(game.legal_actions(state))))


def check_predicates_against_shapely(variant: str, games: int, seed: int) -> dict[str, int]:
    hits = {"pairs": 0, "overlap": 0, "edge": 0, "vertex_on_edge": 0, "vertex": 0}
    for bi, _, ci, _, j, i in near_pairs(variant, games, seed):
        p, q = polygon_of(ci, i), polygon_of(bi, j)
        hits["pairs"] += 1
        ov = overlap(ci, i, bi, j)
        assert ov == shapely_overlap(p, q)
        ec = edge_contact(ci, i, 0, bi, j)
        assert ec == shapely_edge_contact(p, q)
        voe = vertex_on_edge(ci, i, 0, bi, j) or vertex_on_edge(bi, j, 0, ci, i)
        assert voe == (shapely_vertex_on_edge(p, q) or shapely_vertex_on_edge(q, p))
        vv = vertex_on_vertex(ci, i, 0, bi, j)
        assert vv == shapely_vertex_on_vertex(p, q)
        hits["overlap"] += ov
        hits["edge"] += ec
        hits["vertex_on_edge"] += voe
        hits["vertex"] += vv
    return hits


@pytest.mark.parametrize("variant", ["standard", "draft"])
def test_predicates_agree_with_shapely(variant):
    hits = check_predicates_against_shapely(variant, games=1, seed=11)
    # Every predicate is both true and false on many near pairs.
    assert hits["pairs"] > 500
    assert all(hits[k] > 20 and hits["pairs"] - hits[k] > 20 for k in hits if k != "pairs")


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["standard", "draft"])
def test_predicates_agree_with_shapely_many_games(variant):
    assert check_predicates_against_shapely(variant, games=8, seed=12)["pairs"] > 5000


def test_box_filter_never_hides_a_contact():
    # The float boxes only skip pairs that share no point; the board rows agree with the
    # vertices they were built from.
    game = TriGolden()
    rng = np.random.default_rng(2)
    state = game.initial_state()
    for _ in range(40):
        state = game.apply(state, int(rng.choice(game.legal_actions(state))))
    core = state.core
    again_i, again_f = board_arrays(state.board, game.rules.max_pieces)
    facts = [c for c in range(ROW) if c not in (ACTION, SC, TOUCH)]  # candidate-only columns
    assert np.array_equal(again_i[:core.n, facts], core.bi[:core.n, facts])
    assert np.allclose(again_f[:core.n], core.bf[:core.n], atol=1e-12)
    for j in range(core.n):
        for k in range(core.n):
            if apart(core.bf, j, core.bf, k):
                p, q = Polygon(polygon_of(core.bi, j)), Polygon(polygon_of(core.bi, k))
                assert p.distance(q) > 1e-7


def test_a_moved_shape_matches_a_row_computed_from_its_vertices():
    # Placements add the anchor's keys and extents to the shape's (linearity); recomputing
    # them from the vertices gives the same row.
    game = TriGolden()
    state = game.play(game.play(game.initial_state(), "P"), "T@0.0/1")
    bi, bf = new_board(game.rules.max_pieces)
    bi[1] = state.core.bi[1]
    finish_row(bi[1], bf[1])
    assert np.array_equal(bi[1], state.core.bi[1])
    assert np.allclose(bf[1], state.core.bf[1], atol=1e-12)
