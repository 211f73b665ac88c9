"""The search makes exactly the choices recorded before it was restructured
(tests/search_golden_cases.py): same visits, policy target, Q, value and move, float for float,
on every algorithm and game; ``batch = 1`` is that search."""

from __future__ import annotations

import json

import pytest

from search_golden_cases import GAMES, GOLDEN, SEARCHES, as_record, run

RECORDS = json.loads(GOLDEN.read_text())
CASES = [f"{case}/{name}" for case in GAMES for name in SEARCHES]


def test_every_case_has_a_record() -> None:
    assert sorted(RECORDS) == sorted(CASES)


@pytest.mark.parametrize("key", CASES)
def test_search_equals_the_recorded_one(key: str) -> None:
    case, name = key.split("/")
    got = [as_record(r) for r in run(case, name)]
    assert got == RECORDS[key]
