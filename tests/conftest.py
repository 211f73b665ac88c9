"""Fixtures shared by the test modules (helpers that are plain functions: serving_helpers.py)."""

from __future__ import annotations

import os

import pytest


@pytest.fixture()
def postgres_url() -> str:
    """A reachable PostgreSQL server's SQLAlchemy URL (QIZERO_TEST_POSTGRES_URL), else skip."""
    url = os.environ.get("QIZERO_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("set QIZERO_TEST_POSTGRES_URL (e.g. postgresql+psycopg://postgres@127.0.0.1/"
                    "qizero_test) to run the PostgreSQL persistence tests")
    from sqlalchemy import create_engine, text

    try:
        with create_engine(url).connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"no PostgreSQL server reachable at QIZERO_TEST_POSTGRES_URL: {exc}")
    return url
