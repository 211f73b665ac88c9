"""Ladder player names (serving/ladder/names.py) and grant notes: normalized, case-insensitively
unique in the database itself (migration 0005 on SQLite and PostgreSQL), and none that reads as
an AI level's or the administrator's."""

from __future__ import annotations

from contextlib import ExitStack

import pytest
from ladder_helpers import ADMIN, register
from serving_helpers import auth, client_for, postgres_schema, settings_for
from sqlalchemy import create_engine, text
from sqlalchemy.exc import IntegrityError

from serving import schema
from serving.ladder import names
from serving.ladder.ai_players import ai_levels
from serving.levels import LevelRegistry
from serving.settings import DEFAULT_CHECKPOINTS


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request, tmp_path):
    with ExitStack() as stack:
        overrides = {}
        if request.param == "postgresql":
            overrides["database_url"] = stack.enter_context(
                postgres_schema(request.getfixturevalue("postgres_url")))
        settings = settings_for(tmp_path, ladder_admin_token=ADMIN, ladder_match_seconds=3600,
                                **overrides)
        yield stack.enter_context(client_for(tmp_path, settings=settings))


@pytest.mark.parametrize("given, stored", [
    ("Lin", "Lin"),
    ("  Lin   Wu  ", "Lin Wu"),               # trimmed, inner spaces collapsed
    ("Ｌｉｎ", "Lin"),                          # fullwidth: NFKC
    ("Lin\u00a0Wu", "Lin Wu"),                 # no-break space
    ("Lin\u2028Wu", "Lin Wu"),                 # line separator
    ("Cafe\u0301", "Café"),                    # composed
    ("ﬁre", "fire"),                          # ligature
    ("李明", "李明"),
    ("Aiden", "Aiden"), ("Admiral", "Admiral"), ("AIbot", "AIbot"),  # not reserved words
])
def test_names_are_stored_normalized(client, given, stored):
    r = client.post("/v1/players", json={"name": given})
    assert r.status_code == 201, r.text
    assert r.json()["player"]["name"] == stored
    assert client.get(f"/v1/players/{r.json()['player']['id']}").json()["name"] == stored


@pytest.mark.parametrize("name", [
    "\u200b", "\u200b\u200c\ufeff", "  \u00a0 ", "\u0301\u0301",   # nothing visible
    "Lin\u202eniL", "\u2066Lin\u2069", "Lin\u200dWu", "Lin\u00adWu",  # bidi, zero-width, soft hy.
    "Lin\U000e0001", "Lin\ue000", "Lin\U0010ffff",                  # tag, private, unassigned
    "AI master", "ai", "AI\u00a0master", "ＡＩ master", "\u0391\u0399 master",  # Greek Alpha Iota
    "\u0410I master", "A.I. master", "AI-master", "Al master", "A1 master", "AI_master",
    "admin", "Admin", "ADMINISTRATOR", "Adm1n", "\u0430dmin", "admin 2", "Àdmin",
    "x" * 33, "ﷺ" * 2,                                             # too long once normalized
])
def test_bad_names_are_refused_with_422(client, name):
    r = client.post("/v1/players", json={"name": name})
    assert r.status_code == 422, (name, r.text)
    assert r.json()["error"] == "invalid_request" and r.json()["message"]


@pytest.mark.parametrize("first, second", [
    ("Lin", "lin"), ("Lin", "LIN"), ("Straße", "STRASSE"), ("Lin Wu", "lin  wu"),
    ("Ｌｉｎ", "lin"), ("Σοφία", "ΣΟΦΊΑ"),
])
def test_names_differing_only_by_case_are_taken(client, first, second):
    register(client, first)
    r = client.post("/v1/players", json={"name": second})
    assert r.status_code == 409 and r.json()["error"] == "conflict", r.text


def test_no_name_of_an_ai_level_is_free(tmp_path):
    """Every AI level's name is reserved (the shipped ladders' and the baselines')."""
    found = ai_levels(LevelRegistry(tmp_path / "none", True))
    found += ai_levels(LevelRegistry(DEFAULT_CHECKPOINTS, True))
    assert found
    for ai in found:
        assert names.reserved(ai.name), ai.name


def test_the_database_refuses_a_second_key_by_itself(tmp_path):
    """The uniqueness holds below the service too: two rows with one key cannot both exist."""
    url = f"sqlite:///{tmp_path / 'keys.sqlite3'}"
    engine = create_engine(url)
    schema.upgrade(engine)
    row = ("INSERT INTO ladder_players (id, name, name_key, kind, points, rated_games, "
           "rated_wins, rated_losses, rated_draws, friendly_games, granted, lock, created) "
           "VALUES (:id, :name, :key, 'human', 0, 0, 0, 0, 0, 0, 0, 0, 0)")
    with engine.begin() as conn:
        conn.execute(text(row), {"id": "a", "name": "Lin", "key": "lin"})
    with pytest.raises(IntegrityError), engine.begin() as conn:
        conn.execute(text(row), {"id": "b", "name": "LIN", "key": "lin"})
    engine.dispose()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_migration_keys_existing_players(request, tmp_path, backend):
    """Rows from before 0005 get their key; of two names that differ only by case the first
    registered keeps the plain key, the other one of its own, and no new player takes either."""
    with ExitStack() as stack:
        if backend == "sqlite":
            url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
        else:
            url = stack.enter_context(postgres_schema(request.getfixturevalue("postgres_url")))
        engine = create_engine(url)
        stack.callback(engine.dispose)
        schema.upgrade(engine, "0004_ladder")
        row = ("INSERT INTO ladder_players (id, name, kind, points, rated_games, rated_wins, "
               "rated_losses, rated_draws, friendly_games, granted, lock, created) "
               "VALUES (:id, :name, 'human', 0, 0, 0, 0, 0, 0, 0, 0, :created)")
        with engine.begin() as conn:
            for pid, name, created in (("p1", "Lin", 1.0), ("p2", "LIN", 2.0), ("p3", "Wu", 3.0)):
                conn.execute(text(row), {"id": pid, "name": name, "created": created})
        assert schema.upgrade(engine) == schema.head()
        assert schema.differences(engine) == []
        with engine.connect() as conn:
            keys = dict(conn.execute(text("SELECT id, name_key FROM ladder_players")).all())
        assert keys == {"p1": "lin", "p2": "lin#p2", "p3": "wu"}
        settings = settings_for(tmp_path, database_url=url, ladder_match_seconds=3600)
        with client_for(tmp_path, settings=settings) as c:
            assert c.post("/v1/players", json={"name": "lin"}).status_code == 409
            assert c.post("/v1/players", json={"name": "wU"}).status_code == 409


@pytest.mark.parametrize("note", ["a\x00b", "\udc00", "x" * 201, "tab\there", "\x85", 5, None])
def test_grant_notes_are_checked(client, note):
    lin = register(client, "Lin")
    r = client.post(f"/v1/players/{lin['id']}/grant", content=_json({"yuan": 1, "note": note}),
                    headers={**auth(ADMIN), "content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert client.get(f"/v1/players/{lin['id']}").json()["points"] == 0


def test_a_plain_note_is_kept(client):
    lin = register(client, "Lin")
    r = client.post(f"/v1/players/{lin['id']}/grant", headers=auth(ADMIN),
                    json={"yuan": 2, "note": "receipt 2026-0117 — 会员 ✓"})
    assert r.status_code == 200 and r.json()["points"] == 2000


def _json(body: object) -> bytes:
    import json

    return json.dumps(body).encode("utf-8", "surrogatepass")
