"""lz-analyze and kata-analyze over GTP (training.gtp_analysis): a scripted session whose next
command stops each analysis, the info lines' format, the argument parsing."""

from __future__ import annotations

import os
import re
import threading
import time

import pytest

from envs import make_game
from training.gtp import GtpEngine
from training.gtp_analysis import lower_bound, ownership_order, parse_request

LZ_ENTRY = re.compile(r"info move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (\d+) "
                      r"order (\d+) pv ((?:\S+ ?)+?)(?= info |$)")
KATA_ENTRY = re.compile(r"info move (\S+) visits (\d+) winrate ([\d.]+) scoreLead (-?[\d.]+) "
                        r"prior ([\d.]+) lcb ([\d.]+) order (\d+) pv ((?:\S+ ?)+?)"
                        r"(?= info | ownership |$)")


class Output:
    """What the engine writes, readable while it runs."""

    def __init__(self) -> None:
        self.text = ""
        self.lock = threading.Lock()

    def write(self, text: str) -> None:
        with self.lock:
            self.text += text

    def flush(self) -> None:
        pass

    def wait_for(self, pattern: str, count: int, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while len(re.findall(pattern, self.text, re.M)) < count:
            assert time.monotonic() < deadline, f"no {count} x {pattern!r} in {self.text!r}"
            time.sleep(0.02)


@pytest.fixture(scope="module")
def session():
    """A 9x9 master level served over a pipe, as a GUI would talk to it."""
    yield from served(GtpEngine("level:5", board="9x9", seed=0, analysis_visits=5000))


def served(engine: GtpEngine):
    """``(send, output)`` of ``engine`` serving a pipe on a thread, until quit."""
    read, write = os.pipe()
    inp, pipe = os.fdopen(read, "r"), os.fdopen(write, "w")
    out = Output()
    thread = threading.Thread(target=engine.serve, args=(inp, out), daemon=True)
    thread.start()

    def send(line: str) -> None:
        pipe.write(line + "\n")
        pipe.flush()

    yield send, out
    send("quit")
    pipe.close()
    thread.join(timeout=30)


def test_analyze_commands_run_until_the_next_command(session) -> None:
    send, out = session
    send("play b E5")
    send("1 lz-analyze 5")
    out.wait_for(r"^=1$", 1)
    out.wait_for(r"^info move", 2)  # lines while it searches (its budget lasts seconds)
    send("2 kata-analyze w 5 ownership true")
    out.wait_for(r"^=2$", 1)
    out.wait_for(r"ownership", 2)
    send("3 name")
    out.wait_for(r"^=3 qizero$", 1)
    responses = out.text.split("\n\n")
    lz = next(r for r in responses if r.startswith("=1"))
    kata = next(r for r in responses if r.startswith("=2"))
    assert "=3 qizero" in responses  # the analysis ended with its blank line first
    lz_lines = lz.split("\n")[1:]
    assert len(lz_lines) >= 2
    for line in lz_lines:
        entries = LZ_ENTRY.findall(line)
        assert entries and line.startswith("info move"), line
        for move, visits, winrate, prior, lcb, order, pv in entries:
            assert 0 <= int(winrate) <= 10000 and 0 <= int(prior) <= 10000
            assert int(lcb) <= int(winrate) and pv.split()[0] == move
        assert [int(e[5]) for e in entries] == list(range(len(entries)))
    final = LZ_ENTRY.findall(lz_lines[-1])
    assert sum(int(e[1]) for e in final) > 0
    game = make_game("stereo_go", board="9x9")
    for line in kata.split("\n")[1:]:
        entries = KATA_ENTRY.findall(line)
        assert entries, line
        assert all(0 <= float(e[2]) <= 1 for e in entries)
        values = line.split(" ownership ")[1].split()
        assert len(values) == 81 and all(-1 <= float(v) <= 1 for v in values)
        assert all(e[0] in game.board.names or e[0] == "pass" for e in entries)


def test_pure_mcts_reports_playout_ownership() -> None:
    session = served(GtpEngine("mcts:16", board="9x9", seed=0, analysis_visits=16))
    send, out = next(session)
    send("1 kata-analyze 5 ownership true")
    out.wait_for(r"ownership", 1)  # the line at the end of its budget, at least
    line = next(x for x in out.text.split("\n") if "ownership" in x)
    assert KATA_ENTRY.findall(line) and len(line.split(" ownership ")[1].split()) == 81
    next(session, None)  # quit


def test_analysis_errors(session) -> None:
    send, out = session
    send("clear_board")
    send("7 lz-analyze w 10")  # Black is to move
    out.wait_for(r"^\?7 black to play$", 1)
    send("8 lz-analyze fast")
    out.wait_for(r"^\?8 syntax error", 1)
    send("9 lz-analyze 10 ownership true")
    out.wait_for(r"^\?9 syntax error \(ownership is a kata-analyze option\)$", 1)
    plain = GtpEngine("random", board="9x9")
    assert plain.handle("lz-analyze 10").startswith("? random does not search")


def test_parsing_and_the_figures() -> None:
    req = parse_request(["B", "25", "ownership", "true", "maxmoves", "3"], kata=True)
    assert (req.colour, req.interval, req.ownership, req.max_moves) == (0, 0.25, True, 3)
    assert parse_request(["interval", "50"], kata=False).interval == 0.5
    assert parse_request([], kata=False).interval == 1.0
    with pytest.raises(ValueError):
        parse_request(["10", "20"], kata=False)
    assert lower_bound(0.5, 0) == 0.0
    assert 0 < lower_bound(0.5, 100) < 0.5 and lower_bound(0.5, 10_000) > 0.49
    order = ownership_order(make_game("stereo_go", board="9x9"))
    assert order[0] == "A9" and order[8] == "J9" and order[-1] == "J1" and len(order) == 81
