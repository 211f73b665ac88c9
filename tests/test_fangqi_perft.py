"""Perft counts from fixed Fang Qi positions in every phase, confirmed by the independent
reference in ``fangqi_reference.py``, and move-by-move differential games against it.

Perft(d) counts the leaves of the action tree d actions deep (every action is one ply: a
placement, a step or one removal); a game that ends earlier counts as one leaf. The numbers
below were computed by the engine and agree with the reference (checked here up to the depth
the slow reference allows in the default suite).
"""

from __future__ import annotations

import collections

import fangqi_reference as ref
import numpy as np
import pytest

from envs.fangqi import FangQi, greedy_policy
from envs.fangqi.state import PHASE_NAMES, PLAYER_NAMES

GAME = FangQi()

# name: (diagram, phase, to_play, fields, {depth: perft}, reference depth)
POSITIONS = {
    "place-owed": (
        """
        6 B . . W W .
        5 . . . B W B
        4 W . W . B .
        3 . . W W . B
        2 . B B B . W
        1 . B B . . W
        """,
        "place",
        "black",
        {"owed": 1},
        {1: 17, 2: 272, 3: 4080, 4: 57120},
        3,
    ),
    "place-to-fill": (
        """
        6 B W W W W B
        5 B . W B W W
        4 B . B B W .
        3 B W W W B W
        2 . B B W B B
        1 B W W B B W
        """,
        "place",
        "black",
        {},
        {1: 4, 2: 12, 3: 24, 4: 24, 5: 347, 6: 1268, 7: 3135},
        5,
    ),
    "pull": (
        """
        6 B W W W W B
        5 B W W B W W
        4 B B B W W B
        3 B B B B W B
        2 W B W B B B
        1 W W W B W B
        """,
        "pull",
        "black",
        {},
        {1: 13, 2: 32, 3: 84, 4: 337},
        3,
    ),
    "step": (
        """
        6 B . W W W W
        5 B W W B . B
        4 B B B W B .
        3 B B B B . B
        2 W B W B B B
        1 W W . W . B
        """,
        "step",
        "black",
        {"no_capture": 1},
        {1: 13, 2: 111, 3: 1188, 4: 11253},
        3,
    ),
    "capture": (
        """
        6 B W W W . W
        5 B W W B W B
        4 B B B W B W
        3 B B B B W B
        2 W B W B B .
        1 W W W B W B
        """,
        "capture",
        "black",
        {"owed": 2, "no_capture": 1},
        {1: 12, 2: 132, 3: 512, 4: 4156},
        3,
    ),
    "room": (
        """
        6 B B B W B W
        5 B W B W W B
        4 W B W B W B
        3 B . B W B W
        2 B B W W B B
        1 B B W W W B
        """,
        "room",
        "black",
        {"no_capture": 4},
        {1: 15, 2: 32, 3: 235, 4: 1829},
        3,
    ),
}

# Leaves at depth 3 by (phase, player to act): a finer check than the bare count.
SIGNATURES = {
    "place-owed": {("place", "white"): 3411, ("place", "black"): 669},
    "pull": {
        ("step", "white"): 18,
        ("room", "black"): 2,
        ("step", "black"): 50,
        ("capture", "black"): 6,
        ("capture", "white"): 8,
    },
    "step": {
        ("capture", "black"): 516,
        ("step", "white"): 395,
        ("step", "black"): 259,
        ("capture", "white"): 18,
    },
    "capture": {("step", "black"): 512},
    "room": {
        ("step", "white"): 83,
        ("capture", "black"): 55,
        ("room", "black"): 7,
        ("step", "black"): 45,
        ("capture", "white"): 45,
    },
}


def start(name: str):
    diagram, phase, to_play, fields, _, _ = POSITIONS[name]
    return GAME.position(diagram, phase, to_play, **fields)


def perft(state, depth: int) -> int:
    if depth == 0 or GAME.is_terminal(state):
        return 1
    return sum(perft(GAME.apply(state, int(a)), depth - 1) for a in GAME.legal_actions(state))


def signature(state, depth: int, out: collections.Counter) -> collections.Counter:
    if depth == 0 or GAME.is_terminal(state):
        out[(PHASE_NAMES[state.phase], PLAYER_NAMES[state.to_play])] += 1
    else:
        for a in GAME.legal_actions(state):
            signature(GAME.apply(state, int(a)), depth - 1, out)
    return out


def ref_signature(state: ref.RefState, depth: int, out: collections.Counter) -> collections.Counter:
    if depth == 0 or state.phase == "over":
        out[(state.phase, "black" if state.to_play == "B" else "white")] += 1
    else:
        for move in ref.legal_moves(state):
            ref_signature(ref.play(state, move), depth - 1, out)
    return out


def test_initial_perft():
    state = GAME.initial_state()
    assert [perft(state, d) for d in (1, 2)] == [36, 36 * 35]


@pytest.mark.parametrize("name", list(POSITIONS))
def test_perft_counts(name):
    state = start(name)
    for depth, expected in POSITIONS[name][4].items():
        if expected < 20000:
            assert perft(state, depth) == expected, (name, depth)


@pytest.mark.slow
def test_deep_perft_counts():
    assert perft(GAME.initial_state(), 3) == 36 * 35 * 34
    for name, position in POSITIONS.items():
        for depth, expected in position[4].items():
            assert perft(start(name), depth) == expected, (name, depth)


@pytest.mark.parametrize("name", list(POSITIONS))
def test_reference_agrees_with_perft_counts(name):
    counts, ref_depth = POSITIONS[name][4], POSITIONS[name][5]
    state = ref.from_engine_json(GAME.to_json(start(name)))
    for depth in range(1, ref_depth + 1):
        assert ref.perft(state, depth) == counts[depth], (name, depth)


@pytest.mark.parametrize("name", list(SIGNATURES))
def test_leaf_signatures(name):
    state = start(name)
    expected = collections.Counter(SIGNATURES[name])
    assert signature(state, 3, collections.Counter()) == expected
    ref_state = ref.from_engine_json(GAME.to_json(state))
    assert ref_signature(ref_state, 3, collections.Counter()) == expected


def summary(state) -> tuple:
    data = GAME.to_json(state)
    side = {"black": "B", "white": "W", "draw": "draw", None: None}
    return (
        data["board"],
        data["phase"],
        side[data["to_play"]],
        data["owed"],
        data["hand"]["black"],
        data["hand"]["white"],
        data["no_capture"],
        side[data["result"]],
    )


def differential_game(seed: int) -> int:
    """Play one game with the engine, following it with the reference; returns its length."""
    rng = np.random.default_rng(seed)
    state = GAME.initial_state()
    shadow = ref.RefState(board={}, phase="place", to_play="B")
    greedy_side = seed % 3  # 0/1: that side plays greedily (more shapes); 2: both random
    plies = 0
    while not GAME.is_terminal(state):
        assert set(GAME.legal_moves(state)) == ref.legal_moves(shadow), (seed, plies)
        if state.to_play == greedy_side:
            action = greedy_policy(GAME, state, rng)
        else:
            action = int(rng.choice(GAME.legal_actions(state)))
        move = GAME.action_to_move(state, action)
        state = GAME.apply(state, action)
        shadow = ref.play(shadow, move)
        assert summary(state) == ref.summary(shadow), (seed, plies, move)
        plies += 1
    assert ref.legal_moves(shadow) == set()
    return plies


def test_differential_games_against_the_reference():
    for seed in range(6):
        differential_game(seed)


@pytest.mark.slow
def test_many_differential_games_against_the_reference():
    for seed in range(6, 200):
        differential_game(seed)
