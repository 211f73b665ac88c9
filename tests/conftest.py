"""Fixtures shared by the test modules (helpers that are plain functions: serving_helpers.py),
and the rule that CI runs the tests that need outside programs.

A test that needs GNU Go, Chromium or a PostgreSQL server carries ``@pytest.mark.needs(tool)``
(the tests that take the ``postgres_url`` or ``browser`` fixtures are marked here, at
collection). Without the tool such a test skips, with its reason printed (``-rs`` in
pyproject.toml). Under ``CI=true`` (``.ci/run`` installs and starts all three) that skip is a
failure instead: a failed install must not turn the differential, persistence and browser
tests into a green run that checked nothing.
"""

from __future__ import annotations

import os

import pytest

#: What ``needs`` accepts: the tool and how the failure names it.
TOOLS = {"gnugo": "GNU Go", "chromium": "Chromium", "postgresql": "PostgreSQL"}
#: Fixtures whose tests need a tool (marked at collection, however the test takes them).
FIXTURE_TOOLS = {"postgres_url": "postgresql", "browser": "chromium"}


def on_ci() -> bool:
    """Whether this run is CI's (``CI=true``, as CI services set it and .ci/run does)."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "needs(tool): the test needs an outside program (gnugo, chromium, postgresql); it "
        "skips without it, except under CI=true, where that skip fails the run",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, tool in FIXTURE_TOOLS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.needs(tool))
        for mark in item.iter_markers("needs"):
            if len(mark.args) != 1 or mark.args[0] not in TOOLS:
                raise pytest.UsageError(
                    f"{item.nodeid}: needs() takes one of {sorted(TOOLS)}, not {mark.args}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo) -> object:
    """Under CI=true, a skipped test that needs a tool is reported as failed, with the reason."""
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or not on_ci() or hasattr(report, "wasxfail"):
        return
    tools = sorted({TOOLS[m.args[0]] for m in item.iter_markers("needs")})
    if not tools:
        return
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    reason = reason.removeprefix("Skipped: ")
    report.outcome = "failed"
    report.longrepr = (
        f"CI=true and this test needs {' and '.join(tools)}, but it was skipped: {reason}\n"
        "(.ci/run installs and starts them; see its output for what failed)"
    )


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels() -> None:
    """The games' numba kernels compiled once per test process, before any test runs: on a
    cold cache (CI's clean clone) a first TriGolden or Stereo Go move compiles for tens of
    seconds, which must not land inside a test's HTTP timeout or analysis budget
    (``envs.warm``; the service warms them at start the same way)."""
    from agents.search import kernels
    from envs import make_game
    from envs.warm import warm_kernels

    kernels.warm()
    for game_id, options in (("trigolden", {}), ("trigolden", {"variant": "draft"}),
                             ("stereo_go", {}), ("stereo_go", {"board": "9x9"})):
        warm_kernels(make_game(game_id, **options))


@pytest.fixture(scope="session")
def _postgres_server_url() -> str | None:
    """The PostgreSQL database this test process uses, or None (the reason is then raised as
    a skip by ``postgres_url``). Under pytest-xdist each worker gets a database of its own,
    made empty at its start, so the tests that use the public schema or LISTEN/NOTIFY never
    meet another worker's rows or events."""
    url = os.environ.get("QIZERO_TEST_POSTGRES_URL")
    if not url:
        return None
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        return url
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    base = make_url(url)
    own = base.set(database=f"{base.database}_{worker}")
    admin = create_engine(base, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{own.database}" WITH (FORCE)'))
            conn.execute(text(f'CREATE DATABASE "{own.database}"'))
    except Exception:  # noqa: BLE001 - unreachable: postgres_url skips with the reason
        return url
    finally:
        admin.dispose()
    return own.render_as_string(hide_password=False)


@pytest.fixture()
def postgres_url(_postgres_server_url: str | None) -> str:
    """A reachable PostgreSQL server's SQLAlchemy URL (QIZERO_TEST_POSTGRES_URL; under
    pytest-xdist, a database of this worker's own on that server), else skip."""
    url = _postgres_server_url
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
