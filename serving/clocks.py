"""Session clocks: the one timer mechanism behind every time control a game's rules define.

A clock keeps no state in memory: everything is stored with the session and committed with
each write. ``SessionData.turn_started`` is when the running side's clock started (null while
no clock runs: no time control, the game over, Go's scoring phase); the time control says
when that side's time is up and what a finished turn costs. Two kinds:

* :class:`TurnTimer` (``turn_seconds``, the Timer sections of Jiugong and Fang Qi): every turn
  has the same seconds; at the deadline the game applies its ``time_out`` rule (the turn
  passes) and the next turn starts at the deadline.
* :class:`ByoYomi` (``extras["clock"]``, Stereo Go): each seat has main time, then a number of
  byo-yomi periods of fixed length. A turn is charged to main time first; time past it uses
  periods: a turn ended inside a period keeps that period (it starts afresh next turn), every
  period that ran out is gone. When main time and all periods are used up the side loses on
  time.

The sessions (:mod:`serving.sessions.machine`, :mod:`serving.sessions.timeouts`) ask a time
control three things only: the deadline of the side to move, what a finished turn costs
(:meth:`charge`), and what happens at the deadline (``loses_on_time``). Deadlines are exact
instants computed from stored numbers, so a time-out applied late (by the poller, on the next
request, after a restart) lands where it would have. :func:`requested_byo_yomi` validates the
clock a new session asks for.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from serving.db import SessionData
from serving.errors import BadInput

#: The time source, in seconds (``time.time``; tests inject a fake one).
Clock = Callable[[], float]

MAX_MAIN_TIME = 86_400.0  # a day: beyond that a session is a correspondence game
MAX_PERIODS = 100
MAX_PERIOD_SECONDS = 3_600.0


class TimeControl:
    """What the sessions need of a time control (subclasses below)."""

    #: True: running out of time loses the game; False: the game's ``time_out`` rule applies.
    loses_on_time: bool = False

    def deadline(self, data: SessionData, seat: str) -> float:
        """When ``seat``'s time is up, its clock running since ``data.turn_started``."""
        raise NotImplementedError

    def charge(self, data: SessionData, seat: str, end: float) -> None:
        """``seat``'s turn (since ``data.turn_started``) ended at ``end``: take its time off."""

    def view(self, data: SessionData, running: str | None, now: float) -> dict[str, Any] | None:
        """Per-seat figures for clients (None: the ``timer`` fields say everything)."""
        return None


@dataclass(frozen=True)
class TurnTimer(TimeControl):
    """The same seconds for every turn; the game's ``time_out`` rule at the deadline."""

    seconds: float

    def deadline(self, data: SessionData, seat: str) -> float:
        assert data.turn_started is not None  # only asked while a clock runs
        return data.turn_started + self.seconds


@dataclass(frozen=True)
class ByoYomiConfig:
    """Main time plus ``periods`` byo-yomi periods of ``period_seconds`` each, per seat."""

    main_time: float = 600.0
    periods: int = 3
    period_seconds: float = 30.0

    def __post_init__(self) -> None:
        main, periods, period = self.main_time, self.periods, self.period_seconds
        if not (isinstance(main, (int, float)) and math.isfinite(main)
                and 0 <= main <= MAX_MAIN_TIME):
            raise ValueError(f"main_time must be 0..{MAX_MAIN_TIME:g} seconds, got {main!r}")
        if isinstance(periods, bool) or not isinstance(periods, int) or not (
            0 <= periods <= MAX_PERIODS
        ):
            raise ValueError(f"periods must be an integer 0..{MAX_PERIODS}, got {periods!r}")
        if not (isinstance(period, (int, float)) and math.isfinite(period)
                and 0 < period <= MAX_PERIOD_SECONDS):
            raise ValueError(
                f"period_seconds must be above 0 and at most {MAX_PERIOD_SECONDS:g}, got {period!r}"
            )
        if main == 0 and periods == 0:
            raise ValueError("a clock needs main time or at least one byo-yomi period")

    def to_json(self) -> dict[str, Any]:
        return {"main_time": float(self.main_time), "periods": self.periods,
                "period_seconds": float(self.period_seconds)}


def requested_byo_yomi(
    game_id: str, default: ByoYomiConfig | None, clock: dict[str, Any] | None | str
) -> ByoYomiConfig | None:
    """The validated main time + byo-yomi clock a new session asks for (None: no clock).

    ``clock`` is ``"default"`` (the game's ``default``), None (no clock) or a partial
    ``{"main_time", "periods", "period_seconds"}`` that takes missing fields from the default."""
    if clock == "default":
        return default
    if clock is None:
        return None
    if default is None:
        raise BadInput(f"{game_id} sessions have no byo-yomi clock (its rules define none)")
    if not isinstance(clock, dict):
        raise BadInput("clock must be an object {main_time, periods, period_seconds}")
    unknown = sorted(set(clock) - {"main_time", "periods", "period_seconds"})
    if unknown:
        raise BadInput(f"unknown clock field(s) {unknown}")
    values = {**default.to_json(), **{k: v for k, v in clock.items() if v is not None}}
    try:
        return ByoYomiConfig(**values)
    except ValueError as exc:
        raise BadInput(str(exc)) from None


class ByoYomi(TimeControl):
    """Main time then byo-yomi periods; the per-seat state is ``extras["clock"]["seats"]``:
    ``{"main": seconds left, "periods": periods left}``."""

    loses_on_time = True

    def __init__(self, config: ByoYomiConfig) -> None:
        self.config = config

    @staticmethod
    def install(data: SessionData, config: ByoYomiConfig, seats: list[str]) -> None:
        """Give every seat a full clock (a new session, or a new game of a match)."""
        data.extras["clock"] = {
            **config.to_json(),
            "seats": {s: {"main": float(config.main_time), "periods": config.periods}
                      for s in seats},
        }

    def _left(self, data: SessionData, seat: str, elapsed: float) -> tuple[float, int, float]:
        """(main time left, periods left, seconds left in the current period) after
        ``elapsed`` seconds of ``seat``'s turn; the period figure is a whole period while in
        main time, 0 when everything is used up."""
        st = data.extras["clock"]["seats"][seat]
        period = self.config.period_seconds
        if elapsed < st["main"]:
            return st["main"] - elapsed, st["periods"], period if st["periods"] else 0.0
        over = elapsed - st["main"]
        used = int(over // period)
        if used >= st["periods"]:
            return 0.0, 0, 0.0
        return 0.0, st["periods"] - used, period - (over - used * period)

    def deadline(self, data: SessionData, seat: str) -> float:
        assert data.turn_started is not None  # only asked while a clock runs
        st = data.extras["clock"]["seats"][seat]
        return data.turn_started + st["main"] + st["periods"] * self.config.period_seconds

    def charge(self, data: SessionData, seat: str, end: float) -> None:
        assert data.turn_started is not None
        main, periods, _ = self._left(data, seat, end - data.turn_started)
        data.extras["clock"]["seats"][seat] = {"main": main, "periods": periods}

    def view(self, data: SessionData, running: str | None, now: float) -> dict[str, Any]:
        seats: dict[str, Any] = {}
        started = data.turn_started
        for seat in data.extras["clock"]["seats"]:
            live = running == seat and started is not None
            elapsed = max(0.0, now - started) if started is not None and live else 0.0
            main, periods, period_left = self._left(data, seat, elapsed)
            seats[seat] = {
                "main_left": main,
                "periods_left": periods,
                "period_left": period_left if main == 0 else None,
                "running": live,
                "deadline": self.deadline(data, seat) if live else None,
            }
        return {**self.config.to_json(), "running": running if started is not None else None,
                "seats": seats}


def time_control(data: SessionData) -> TimeControl | None:
    """A session's time control, from what is stored with it (None: no clock)."""
    if data.turn_seconds is not None:
        return TurnTimer(data.turn_seconds)
    clock = data.extras.get("clock")
    if clock is not None:
        return ByoYomi(ByoYomiConfig(clock["main_time"], clock["periods"],
                                     clock["period_seconds"]))
    return None
