"""The service's database: ``qizero db upgrade`` brings its schema to the newest migration
(the service also does so at every start), ``qizero db current`` prints the revision it is at.

The database is the one ``qizero serve`` would use: QIZERO_DATABASE_URL (or --database-url)
for PostgreSQL, else the SQLite file (QIZERO_DATABASE_PATH or --database).
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=["upgrade", "current"],
                        help="upgrade: run every pending migration; current: print the revision")
    parser.add_argument("--database", type=Path, default=None,
                        help="SQLite file for sessions (default data/sessions.sqlite3)")
    parser.add_argument("--database-url", default=None,
                        help="SQLAlchemy URL (PostgreSQL); overrides --database")
    parser.add_argument("--revision", default="head", help="upgrade to this revision")


def run(args: argparse.Namespace) -> int:
    from serving import schema
    from serving.db import SessionStore
    from serving.settings import Settings

    overrides: dict[str, object] = {}
    if args.database is not None:
        overrides["database_path"] = args.database
    if args.database_url:
        overrides["database_url"] = args.database_url
    store = SessionStore(Settings(**overrides).resolved_database_url)
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
