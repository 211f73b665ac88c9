"""Alembic's environment for the service's migrations (run through :mod:`serving.schema`).

:func:`serving.schema.upgrade` hands over a connection already inside its transaction (and, on
PostgreSQL, holding the advisory lock that lets one replica migrate at a time); migrations run
in it, so on PostgreSQL a failed upgrade leaves nothing half done.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("run the migrations through serving.schema (qizero db upgrade)")

from serving.schema import target_metadata  # noqa: E402  (only once run by serving.schema)

context.configure(connection=connection, target_metadata=target_metadata())
with context.begin_transaction():
    context.run_migrations()
