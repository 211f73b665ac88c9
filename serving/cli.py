"""Run the qizero service (FastAPI + uvicorn): move suggestions and game sessions over REST.

Sessions are kept in an SQLite file by default; QIZERO_DATABASE_URL (or --database-url)
points the service at PostgreSQL instead (``postgresql+psycopg://user:pass@host/db``).
Every other setting can also come from a QIZERO_* environment variable (serving/settings.py).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_database_arguments(parser: argparse.ArgumentParser) -> None:
    """--database / --database-url (also read by ``qizero db``)."""
    parser.add_argument("--database", type=Path, default=None,
                        help="SQLite file for sessions (default data/sessions.sqlite3)")
    parser.add_argument("--database-url", default=None,
                        help="SQLAlchemy URL (PostgreSQL); overrides --database")


def database_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The settings that --database / --database-url give."""
    overrides: dict[str, object] = {}
    if args.database is not None:
        overrides["database_path"] = args.database
    if args.database_url:
        overrides["database_url"] = args.database_url
    return overrides


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on")
    add_database_arguments(parser)
    parser.add_argument("--checkpoints", type=Path, default=None,
                        help="folder with <game>/levels.json (default: the shipped checkpoints)")
    parser.add_argument("--cors", action="append", default=None, metavar="ORIGIN",
                        help="allow a front end at ORIGIN (repeatable)")
    parser.add_argument("--no-batching", action="store_true",
                        help="evaluate each search alone (to measure what batching gains)")
    parser.add_argument("--workers", type=int, default=None, help="AI worker threads")
    parser.add_argument("--search-processes", type=int, default=None,
                        help="processes for searches (default: one per CPU core; 0: in the "
                             "server process)")
    parser.add_argument("--inference", choices=("local", "shared"), default=None,
                        help="the search processes' networks: a copy in each (local) or one "
                             "inference server per network for all of them (shared)")
    parser.add_argument("--log-level", default="info", help="uvicorn log level")


def run(args: argparse.Namespace) -> int:
    from serving.app import create_app
    from serving.server import serve
    from serving.settings import Settings

    overrides = database_overrides(args)
    if args.checkpoints is not None:
        overrides["checkpoints_root"] = args.checkpoints
    if args.cors:
        overrides["cors_origins"] = args.cors
    if args.no_batching:
        overrides["batching"] = False
    if args.workers is not None:
        overrides["ai_workers"] = args.workers
    if args.search_processes is not None:
        overrides["search_processes"] = args.search_processes
    if args.inference is not None:
        overrides["inference"] = args.inference
    if "QIZERO_BACKGROUND_START" not in os.environ:
        # liveness at once, readiness when the levels are loaded (docs/service.md)
        overrides["background_start"] = True
    settings = Settings(**overrides)
    # SIGTERM ends the process within settings.shutdown_seconds: streams are closed (clients
    # reconnect with Last-Event-ID), searches abandoned, leases handed back (serving/server.py).
    serve(create_app(settings), args.host, args.port, args.log_level, settings.shutdown_seconds,
          access_log=not settings.json_logs)
    return 0
