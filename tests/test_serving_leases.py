"""Driver leases (serving/leases.py, serving/sessions/drivers.py) on a migrated SQLite file and
PostgreSQL schema: one holder at a time, expiry by the database's clock, renewal, a recorded
failure, which sessions a poller takes up, and counted holds within one replica."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from serving_helpers import postgres_schema, wait_for
from sqlalchemy import select, update

from serving import schema
from serving.db import SessionData, SessionRow, SessionStore
from serving.leases import LeaseRow, Leases, db_now
from serving.sessions.drivers import LeaseHolder

# Long enough that no pause of a loaded machine lets a lease run out unasked; the short one is
# for the leases a test waits out.
TTL = 30.0
SHORT_TTL = 0.2


def database_clock(store: SessionStore) -> float:
    with store.engine.connect() as conn:
        return float(conn.execute(select(db_now())).scalar_one())


def expiry(store: SessionStore, sid: str) -> float:
    with store.engine.connect() as conn:
        return float(conn.execute(
            select(LeaseRow.expires).where(LeaseRow.session_id == sid)).scalar_one())


@pytest.fixture(
    params=["sqlite", pytest.param("postgresql", marks=pytest.mark.needs("postgresql"))])
def store(request, tmp_path):
    with ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'leases.sqlite3'}"
        else:
            url = stack.enter_context(postgres_schema(request.getfixturevalue("postgres_url")))
        s = SessionStore(url)
        stack.callback(s.close)
        schema.upgrade(s.engine)
        yield s


@pytest.fixture()
def leases(store):
    """``leases(holder, ttl)``: a lease client, closed after the test."""
    made: list[Leases] = []

    def make(holder: str, ttl: float = 30) -> Leases:
        made.append(Leases(store.engine, holder, ttl))
        return made[-1]

    yield make
    for m in made:
        m.close()


def add_session(store: SessionStore, sid: str, **fields) -> None:
    values = dict(
        id=sid, game="jiugong", config={}, seats={}, owner_hash="", seat_hashes={},
        games=[[]], pending=[], extras={}, version=1, status="playing", result=None,
        confirm_turns=False, match_games=1, turn_seconds=None, turn_started=None,
        created=0.0, updated=0.0,
    )
    values.update(fields)
    store.insert(SessionData(**values))


def test_one_holder_at_a_time_until_the_lease_expires(leases):
    a, b = leases("a", TTL), leases("b", TTL)
    assert a.acquire("s") and not b.acquire("s")
    assert a.acquire("s")  # ours already: kept (and renewed)
    assert a.state("s").live
    # The same holder takes it again for a moment only; then it runs out by the database's
    # clock (waited for, not timed: the wait's limit only keeps a broken test from hanging).
    assert leases("a", SHORT_TTL).acquire("s")
    wait_for(lambda: not a.state("s").live, timeout=60)
    assert b.acquire("s") and not a.acquire("s")
    assert a.renew(["s"]) == set()  # lost: a renewal tells
    assert b.renew(["s"]) == {"s"}
    b.release("s")
    assert not b.state("s").live and a.acquire("s")


def test_renewal_moves_the_expiry_to_the_database_clock_plus_the_ttl(store, leases):
    """A renewal keeps a lease past its first expiry: it sets the expiry to the database's
    now + ttl. Checked on the stored expiry, which the database's clock bounds on both sides,
    rather than by sleeping between renewals (a loaded machine would oversleep)."""
    a, b = leases("a", TTL), leases("b", TTL)
    assert a.acquire("s")
    with store.engine.begin() as conn:  # as if most of the lease had run
        conn.execute(update(LeaseRow).where(LeaseRow.session_id == "s")
                     .values(expires=db_now() + 1.0))
    before = database_clock(store)
    assert a.renew(["s", "other"]) == {"s"}
    after = database_clock(store)
    assert before + TTL - 1e-3 <= expiry(store, "s") <= after + TTL + 1e-3
    assert a.state("s").live and not b.acquire("s")


def test_a_failure_frees_the_lease_and_is_shown_at_its_version(store, leases):
    a, b = leases("a", 30), leases("b", 30)
    add_session(store, "s", ai_turn=True, version=3)
    assert a.acquire("s")
    a.fail("s", 3, "no such level")
    state = b.state("s")
    assert not state.live and state.error == "no such level" and state.error_version == 3
    assert b.claimable(0.0, 10) == []  # failed at this version: nobody retries it
    with store.engine.begin() as conn:
        conn.execute(update(SessionRow).where(SessionRow.id == "s").values(version=4))
    assert b.claimable(0.0, 10) == ["s"]  # the session changed: try again
    assert b.acquire("s")


def test_pollers_take_up_due_clocks_and_ai_seats_nobody_holds(store, leases):
    a, b = leases("a", 30), leases("b", 30)
    add_session(store, "ai-free", ai_turn=True)
    add_session(store, "ai-held", ai_turn=True)
    add_session(store, "due-ours", deadline=100.0)
    add_session(store, "due-later", deadline=300.0)
    add_session(store, "over", ai_turn=True, deadline=100.0, status="over")
    add_session(store, "people", ai_turn=False)
    assert b.acquire("ai-held") and a.acquire("due-ours")
    assert sorted(a.claimable(200.0, 10)) == ["ai-free", "due-ours"]
    assert sorted(b.claimable(200.0, 10)) == ["ai-free"]
    assert sorted(b.claimable(300.0, 10)) == ["ai-free", "due-later"]
    assert len(a.claimable(200.0, 1)) == 1


def test_holds_are_counted_within_a_replica(leases):
    holder = LeaseHolder(leases("a", 30))
    other = leases("b", 30)
    assert holder.hold("s") and holder.hold("s")  # an AI worker and the poller
    holder.drop("s")
    assert not other.acquire("s") and holder.held() == ["s"]
    holder.drop("s")  # the last job gives the lease back
    assert holder.held() == [] and other.acquire("s")
    assert not holder.hold("s") and holder.held() == []
    assert not holder.still_ours("s")
