"""The suite's rule for outside programs (conftest.py): a test that needs GNU Go, Chromium or
PostgreSQL skips without it, with its reason printed, but under ``CI=true`` the skip fails the
run. Checked on a small suite of its own, run with this conftest in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

SUITE = '''
import pytest

@pytest.mark.needs("gnugo")
@pytest.mark.skipif(True, reason="GNU Go is not installed")
def test_against_gnugo():
    pass

def test_on_postgresql(postgres_url):
    pass

def test_that_skips_for_another_reason():
    pytest.skip("nothing outside needed")

def test_plain():
    pass
'''


def run_suite(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text())
    (tmp_path / "test_suite.py").write_text(SUITE)
    env = {k: v for k, v in os.environ.items() if k != "QIZERO_TEST_POSTGRES_URL"}
    env["CI"] = ci
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the installed plugins only slow it down
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )


def test_outside_programs_skip_with_their_reason_off_ci(tmp_path: Path) -> None:
    proc = run_suite(tmp_path, ci="")
    assert proc.returncode == 0, proc.stdout
    assert "1 passed, 3 skipped" in proc.stdout
    assert "GNU Go is not installed" in proc.stdout  # the reasons are printed
    assert "set QIZERO_TEST_POSTGRES_URL" in proc.stdout


@pytest.mark.parametrize("ci", ["true", "1"])
def test_under_ci_a_skip_for_want_of_an_outside_program_fails(tmp_path: Path, ci: str) -> None:
    proc = run_suite(tmp_path, ci=ci)
    assert proc.returncode == 1, proc.stdout
    assert "1 passed, 1 skipped, 2 errors" in proc.stdout
    assert "this test needs GNU Go, but it was skipped: GNU Go is not installed" in proc.stdout
    assert "this test needs PostgreSQL, but it was skipped" in proc.stdout
    assert "nothing outside needed" in proc.stdout  # a skip that needs nothing stays one


def test_needs_names_a_known_tool(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text((HERE / "conftest.py").read_text())
    (tmp_path / "test_typo.py").write_text(
        "import pytest\n\n@pytest.mark.needs('gnu-go')\ndef test_x():\n    pass\n")
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           str(tmp_path)], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode != 0 and "needs() takes one of" in proc.stdout + proc.stderr
