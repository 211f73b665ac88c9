"""The database schema, made and changed only by Alembic migrations (``serving/migrations``).

``qizero db upgrade`` runs them, and so does every service start, so an embedded SQLite file
on a fresh machine just works and replicas started together on one PostgreSQL agree: the
upgrade runs in one transaction holding an advisory lock, so the second replica waits and then
finds nothing left to do. A database made before migrations existed (its tables from
``create_all``) is adopted: the first revision is stamped, not run.

Every table of the service belongs to :func:`target_metadata`; a test checks that the migrated
schema equals it (``alembic.autogenerate.compare_metadata``) on SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import MetaData, inspect, text
from sqlalchemy.engine import Connection, Engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
FIRST = "0001_sessions"  # the schema of the service before migrations
MIGRATION_LOCK = 0x71_7A_65_72_6F  # pg_advisory_xact_lock key ("qizero")


def target_metadata() -> MetaData:
    """Every table the service's models declare (what the migrations must build): the ORM
    models on ``Base`` and the event log's tables, gathered in one MetaData."""
    import serving.ladder.store  # noqa: F401  (declares the ladder's tables on Base)
    import serving.leases  # noqa: F401  (declares session_leases on Base)
    import serving.rate_limits  # noqa: F401  (declares rate_limits on Base)
    import serving.sessions.reviews  # noqa: F401  (declares session_reviews on Base)
    from serving import events
    from serving.db import Base

    gathered = MetaData()
    for metadata in (Base.metadata, events.metadata):
        for table in metadata.tables.values():
            table.to_metadata(gathered)
    return gathered


def config(connection: Connection | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    return cfg


def head() -> str:
    """The newest revision."""
    return ScriptDirectory.from_config(config()).get_current_head() or ""


def current(engine: Engine) -> str | None:
    """The database's revision (None: never migrated)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Bring the database to ``revision``; returns the revision it is at afterwards."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":  # one replica at a time; released at commit
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        cfg = config(conn)
        tables = set(inspect(conn).get_table_names())
        if "sessions" in tables and "alembic_version" not in tables:
            command.stamp(cfg, FIRST)  # made by create_all before migrations: adopt it
        command.upgrade(cfg, revision)
        return MigrationContext.configure(conn).get_current_revision()


def differences(engine: Engine) -> list[Any]:
    """What differs between the database and the models (empty when they agree)."""
    from alembic.autogenerate import compare_metadata

    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), target_metadata())
