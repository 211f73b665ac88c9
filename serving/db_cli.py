"""The service's database: ``qizero db upgrade`` brings its schema to the newest migration
(the service also does so at every start), ``qizero db current`` prints the revision it is at.

The database is the one ``qizero serve`` would use: QIZERO_DATABASE_URL (or --database-url)
for PostgreSQL, else the SQLite file (QIZERO_DATABASE_PATH or --database).
"""

from __future__ import annotations

import argparse

from serving.cli import add_database_arguments, database_overrides


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["upgrade", "current"],
                        help="upgrade: run every pending migration; current: print the revision")
    add_database_arguments(parser)
    parser.add_argument("--revision", default="head", help="upgrade to this revision")


def run(args: argparse.Namespace) -> int:
    from serving import schema
    from serving.db import SessionStore
    from serving.settings import Settings

    store = SessionStore(Settings(**database_overrides(args)).resolved_database_url)
    try:
        if args.action == "upgrade":
            before = schema.current(store.engine)
            after = schema.upgrade(store.engine, args.revision)
            print(f"database at {after} (was {before or 'empty'})")
        else:
            print(f"{schema.current(store.engine) or 'empty'} (newest: {schema.head()})")
    finally:
        store.close()
    return 0
