"""The search makes exactly the choices recorded before it was restructured
(tests/search_golden_cases.py): same visits, policy target, Q and move, float for float, on
every algorithm and game; ``batch = 1`` is that search.

The root value of Gumbel is the one number allowed to move, by rounding only: the mixed value
that completes the unvisited edges was written twice, summing ``p * w / n`` in one place and
``p * (w / n)`` in the other; it is now written once (the second way), which moves the value
by ~1e-17 on one record.
"""

from __future__ import annotations

import json

import pytest
from search_golden_cases import GAMES, GOLDEN, SEARCHES, as_record, run

RECORDS = json.loads(GOLDEN.read_text())
CASES = [f"{case}/{name}" for case in GAMES for name in SEARCHES]


def test_every_case_has_a_record() -> None:
    assert sorted(RECORDS) == sorted(CASES)


def _same(got: dict, want: dict) -> None:
    assert got["value"] == pytest.approx(want["value"], rel=0, abs=1e-12)
    assert {**got, "value": 0} == {**want, "value": 0}


@pytest.mark.parametrize("key", CASES)
@pytest.mark.parametrize("batch", [None, 1])
def test_search_equals_the_recorded_one(key: str, batch: int | None) -> None:
    case, name = key.split("/")
    got = [as_record(r) for r in run(case, name, batch)]
    assert len(got) == len(RECORDS[key])
    for g, w in zip(got, RECORDS[key]):
        _same(g, w)
