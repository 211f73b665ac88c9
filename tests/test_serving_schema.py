"""The schema through Alembic: the migrations build exactly the models' tables (SQLite, and
PostgreSQL when QIZERO_TEST_POSTGRES_URL is set), ``qizero db upgrade``, and a database made by
the service before migrations (``create_all``) is adopted with its sessions going on."""

from __future__ import annotations

from serving_helpers import auth, client_for, postgres_schema, wait_for
from sqlalchemy import (
    JSON,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    create_engine,
    insert,
    inspect,
    select,
)

import qizero_cli
from serving import schema
from serving.db import SessionRow


def migrated_equals_models(url: str) -> None:
    engine = create_engine(url)
    try:
        assert schema.current(engine) is None
        assert schema.upgrade(engine) == schema.head()
        assert schema.differences(engine) == []
        assert schema.upgrade(engine) == schema.head()  # a second run has nothing to do
        tables = set(inspect(engine).get_table_names())
        assert tables == set(schema.target_metadata().tables) | {"alembic_version"}
    finally:
        engine.dispose()


def test_migrations_build_the_models_schema_on_sqlite(tmp_path):
    migrated_equals_models(f"sqlite:///{tmp_path / 'fresh.sqlite3'}")


def test_migrations_build_the_models_schema_on_postgres(postgres_url):
    with postgres_schema(postgres_url) as url:
        migrated_equals_models(url)


def test_qizero_db_upgrade_and_current(tmp_path, capsys):
    path = tmp_path / "cli.sqlite3"
    assert qizero_cli.main(["db", "current", "--database", str(path)]) == 0
    assert capsys.readouterr().out.startswith("empty")
    assert qizero_cli.main(["db", "upgrade", "--database", str(path)]) == 0
    assert schema.head() in capsys.readouterr().out
    assert qizero_cli.main(["db", "current", "--database", str(path)]) == 0
    assert capsys.readouterr().out.startswith(schema.head())


def legacy_sessions_table(metadata: MetaData) -> Table:
    """``sessions`` as the service declared it before migrations (made by ``create_all``)."""
    return Table(
        "sessions", metadata,
        Column("id", String(64), primary_key=True),
        Column("game", String(64), nullable=False),
        Column("config", JSON, nullable=False),
        Column("seats", JSON, nullable=False),
        Column("owner_hash", String(64), nullable=False),
        Column("seat_hashes", JSON, nullable=False),
        Column("games", JSON, nullable=False),
        Column("pending", JSON, nullable=False),
        Column("extras", JSON, nullable=False),
        Column("version", Integer, nullable=False),
        Column("status", String(16), nullable=False, index=True),
        Column("result", JSON, nullable=True),
        Column("confirm_turns", Integer, nullable=False),
        Column("match_games", Integer, nullable=False),
        Column("turn_seconds", Float, nullable=True),
        Column("turn_started", Float, nullable=True),
        Column("created", Float, nullable=False),
        Column("updated", Float, nullable=False),
    )


def test_a_database_from_before_migrations_is_adopted_and_its_ai_seats_move(tmp_path):
    # A session where the AI seat is to move, written by the service of before (no
    # migrations, no lease table, no schedule columns).
    with client_for(tmp_path / "new", timer_poll_seconds=3600) as c:
        body = c.post("/v1/sessions", json={"game": "jiugong", "turn_seconds": None}).json()
        sid = body["session"]["id"]
        r = c.post(f"/v1/sessions/{sid}/moves", json={"move": "a1-a2", "version": 1},
                   headers=auth(body["owner_token"]))
        assert r.status_code == 200
        store = c.app.state.sessions.store
        with store.engine.connect() as conn:
            row = dict(conn.execute(select(SessionRow.__table__).where(
                SessionRow.id == sid)).mappings().one())
    old = tmp_path / "old" / "sessions.sqlite3"
    old.parent.mkdir()
    legacy = MetaData()
    table = legacy_sessions_table(legacy)
    engine = create_engine(f"sqlite:///{old}")
    legacy.create_all(engine)
    row = {k: v for k, v in row.items() if k in table.c}
    row["seats"] = {**row["seats"], "north": {"type": "ai", "level": "random"}}
    with engine.begin() as conn:
        conn.execute(insert(table).values(**row))
    engine.dispose()

    with client_for(tmp_path / "old", timer_poll_seconds=3600) as c:
        store = c.app.state.sessions.store
        assert schema.current(store.engine) == schema.head()
        assert schema.differences(store.engine) == []
        s = wait_for(lambda: len((x := c.get(f"/v1/sessions/{sid}").json())["moves"]) == 2
                     and x)
        assert s["events"][1]["by"] == "ai" and s["position"]["to_play"] == "south"


def test_the_first_migration_is_the_schema_of_before(tmp_path):
    """The first revision builds what ``create_all`` built before migrations, so adopting a
    database of before by stamping it is right."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    engine = create_engine(f"sqlite:///{tmp_path / 'first.sqlite3'}")
    schema.upgrade(engine, schema.FIRST)
    legacy = MetaData()
    legacy_sessions_table(legacy)
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), legacy)
    assert diffs == []
    engine.dispose()
