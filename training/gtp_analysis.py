"""GTP analysis: ``lz-analyze`` and ``kata-analyze`` for the GTP front end (:mod:`training.gtp`).

Why: Lizzie, Sabaki and KaTrain show a Go engine's thinking through these two commands (Leela
Zero's and KataGo's extensions to GTP): the engine answers ``=`` at once, then prints one line
of ``info move ...`` entries every interval (centiseconds) while it searches, until the next
command arrives; that command stops the search and ends the response with its blank line.

The search is :func:`agents.search.analysis.analyse` with the player's own evaluator and
search settings, run on a thread; the numbers are the side to move's, as both programs report
them by default:

* ``lz-analyze``: ``winrate``, ``prior`` and ``lcb`` in 0..10000 (Leela Zero's integers);
* ``kata-analyze``: the same as 0..1 floats, plus ``scoreLead`` (the network's score head) and,
  with ``ownership true``, ``ownership`` then one value per point in -1..1, from the top row to
  the bottom, left to right (the cylinder: the engine's point order).

A move is listed once the search has visited it (``order`` 0 is the best); before any visit the
line lists the network's ten favourite moves with 0 visits. ``lcb`` is the win rate's lower 95%
bound, ``w - 1.96 * sqrt(w (1 - w) / n)`` (a binomial bound: the search keeps no variance).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.search.analysis import MoveReport, RootReport, analyse, analysis_config
from envs.core import Game, PointOutcome

#: Moves a line lists before the search has visited any (the network's favourites).
UNVISITED_LISTED = 10
COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
#: Keywords that take a value after them (Leela Zero's and KataGo's); ``allow``/``avoid``
#: lists are not supported.
_KEYWORDS = ("interval", "minmoves", "maxmoves", "ownership")


@dataclass(frozen=True)
class AnalyzeRequest:
    colour: int | None  # None: the side to move
    interval: float  # seconds between lines
    ownership: bool  # kata-analyze ``ownership true``
    max_moves: int  # moves listed a line (``maxmoves``); 0: every visited one


def parse_request(args: list[str], kata: bool) -> AnalyzeRequest:
    """``[colour] [interval] [keyword value ...]`` as both programs take them; ValueError
    with the reason for anything else."""
    colour: int | None = None
    interval_cs: float | None = None
    ownership = False
    max_moves = 0
    i = 0
    while i < len(args):
        word = args[i].lower()
        if word in COLOURS and colour is None and interval_cs is None:
            colour = COLOURS[word]
        elif word in _KEYWORDS:
            if i + 1 >= len(args):
                raise ValueError(f"{word} needs a value")
            value = args[i + 1].lower()
            i += 1
            if word == "interval":
                interval_cs = _number(value, "interval")
            elif word == "ownership":
                if not kata:
                    raise ValueError("ownership is a kata-analyze option")
                if value not in ("true", "false"):
                    raise ValueError("ownership must be true or false")
                ownership = value == "true"
            elif word == "maxmoves":
                max_moves = int(_number(value, "maxmoves"))
            # minmoves: every visited move is listed anyway
        elif interval_cs is None:
            interval_cs = _number(word, "interval")
        else:
            raise ValueError(f"unknown argument {args[i]!r}")
        i += 1
    interval = (interval_cs if interval_cs is not None else 100.0) / 100.0
    return AnalyzeRequest(colour, max(interval, 0.01), ownership, max_moves)


def _number(text: str, what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{what} must be a number >= 0, got {text!r}")
    return value


def lower_bound(winrate: float, visits: int) -> float:
    """The win rate's lower 95% bound after ``visits`` simulations (0 before any)."""
    if visits <= 0:
        return 0.0
    return max(0.0, winrate - 1.96 * math.sqrt(max(winrate * (1 - winrate), 0.0) / visits))


def info_line(
    report: RootReport,
    kata: bool,
    outcome: PointOutcome | None,
    ownership_order: list[str] | None,
    max_moves: int = 0,
) -> str:
    """One line of ``info move ...`` entries (and KataGo's ``ownership``)."""
    moves = [m for m in report.moves if m.visits > 0] or report.moves[:UNVISITED_LISTED]
    if max_moves > 0:
        moves = moves[:max_moves]
    parts = [_entry(m, order, report, kata, outcome) for order, m in enumerate(moves)]
    if kata and ownership_order is not None and outcome is not None:
        parts.append("ownership " + " ".join(
            f"{outcome.ownership[name]:.4f}" for name in ownership_order))
    return " ".join(parts)


def _entry(
    m: MoveReport, order: int, report: RootReport, kata: bool, outcome: PointOutcome | None
) -> str:
    value = m.value if m.value is not None else report.value
    winrate = (value + 1.0) / 2.0
    lcb = lower_bound(winrate, m.visits)
    if kata:
        fields = [f"winrate {winrate:.6f}"]
        if outcome is not None:
            fields.append(f"scoreLead {outcome.margin:.3f}")
        fields += [f"prior {m.prior:.6f}", f"lcb {lcb:.6f}"]
    else:
        fields = [f"winrate {round(winrate * 10000)}", f"prior {round(m.prior * 10000)}",
                  f"lcb {round(lcb * 10000)}"]
    return (f"info move {m.move} visits {m.visits} {' '.join(fields)} order {order} "
            f"pv {' '.join(m.pv)}")


def ownership_order(game: Game) -> list[str]:
    """The points in the order KataGo prints ownership: top row first, left to right, on a
    square board; the engine's own point order on the cylinder."""
    board = getattr(game, "board", None)
    if board is None:
        return []
    if board.is_cylinder:
        return list(board.names)
    n = int(round(math.sqrt(board.n_points)))
    return [board.names[(rank - 1) * n + col] for rank in range(n, 0, -1) for col in range(n)]


class Analyzer:
    """One ``*-analyze`` command in flight: a search on a thread printing a line every
    interval (and once at the end of its budget), stopped by :meth:`stop`."""

    def __init__(
        self,
        write: Callable[[str], None],
        game: Game,
        state: Any,
        player: Any,
        request: AnalyzeRequest,
        kata: bool,
        visits: int,
        outcome: PointOutcome | None,
        seed: int,
    ) -> None:
        self.cancel = threading.Event()
        order = ownership_order(game) if request.ownership else None

        def line(report: RootReport) -> None:
            if not self.cancel.is_set():
                write(info_line(report, kata, outcome, order, request.max_moves) + "\n")

        def run() -> None:
            final = analyse(
                game, state, player.evaluator, analysis_config(player.cfg, visits),
                np.random.default_rng(seed), interval=request.interval, report=line,
                cancel=self.cancel, top=max(len(np.flatnonzero(game.legal_mask(state))), 1),
            )
            line(final)

        self.thread = threading.Thread(target=run, name="qizero-gtp-analyze", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        """Stop the search at its next step and wait for it (no line is printed after)."""
        self.cancel.set()
        self.thread.join()
