"""The game options a ladder player asks for: board, scoring rules, time control, handicap.

Two queued players are paired only when they asked for the same options (their ``key``).
A ladder game always has a clock: a game nobody plays must end (on time) so that nobody stays
in a rated game for ever.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from serving.adapters import get_adapter
from serving.catalogue import build_game
from serving.clocks import requested_byo_yomi
from serving.errors import BadInput

GAME = "stereo_go"


@dataclass(frozen=True)
class GameOptions:
    """Validated options: ``clock`` is the whole main time + byo-yomi object."""

    board: str
    rules: str
    clock: dict[str, Any]
    handicap: bool

    @classmethod
    def parse(cls, board: str = "cylinder", rules: str = "territory",
              clock: dict[str, Any] | None | str = "default", handicap: bool = False
              ) -> GameOptions:
        """Options from a request (422 naming what is wrong)."""
        build_game(GAME, {"board": board, "rules": rules})
        if clock is None:
            raise BadInput("a ladder game needs a clock (main time and/or byo-yomi)")
        resolved = requested_byo_yomi(GAME, get_adapter(GAME).byo_yomi_default, clock)
        assert resolved is not None  # Stereo Go has a default clock
        return cls(board, rules, resolved.to_json(), bool(handicap))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameOptions:
        return cls(data["board"], data["rules"], dict(data["clock"]), bool(data["handicap"]))

    def to_json(self) -> dict[str, Any]:
        return {"board": self.board, "rules": self.rules, "clock": dict(self.clock),
                "handicap": self.handicap}

    @property
    def key(self) -> str:
        """Canonical text of the options: equal keys, compatible players."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    def config(self, handicap_stones: int = 0) -> dict[str, Any]:
        """The session's game options (only what differs from the defaults)."""
        config: dict[str, Any] = {}
        if self.board != "cylinder":
            config["board"] = self.board
        if self.rules != "territory":
            config["rules"] = self.rules
        if handicap_stones:
            config["handicap"] = handicap_stones
        return config
