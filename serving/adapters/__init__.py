"""Per-game extras the Game protocol does not cover: clocks, confirmation, drawing, scores.

The service serves every registered game through the Game protocol alone (turn timers
included: ``GameSpec.turn_seconds`` and ``Game.time_out``); a game that needs more (polygons to
draw, Stereo Go's scoring phase and byo-yomi clock) gets a small module
``serving/adapters/<game_id>.py`` defining ``ADAPTER``, an :class:`Adapter` subclass instance.
A registry lookup, not if/elif chains: a game without a module gets the generic adapter.
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from typing import Any

from envs.core import Game, IllegalMove
from serving.clocks import ByoYomiConfig


class Adapter:
    """Generic behaviour; per-game modules override what their engine offers."""

    #: Whether a session's turns stay provisional until ``confirm`` (TriGolden).
    confirm_turns_default: bool = False
    #: Whether a player may resign (a session-level result, not a move).
    supports_resign: bool = False
    #: Whether the players may agree on a draw (one offers on their turn, the other accepts).
    supports_draw_offers: bool = False
    #: Allowed numbers of games in a match (TriGolden: 1 or 2, the first player swapping).
    match_lengths: tuple[int, ...] = (1,)
    #: The session clock of the rules' main time + byo-yomi, with its default settings
    #: (None: the rules define no such clock; ``turn_seconds`` is the other kind of timer).
    byo_yomi_default: ByoYomiConfig | None = None

    def move_from_json(self, game: Game, state: Any, move: dict[str, Any]) -> str:
        """A move given as a JSON object (TriGolden's API form), in notation."""
        raise IllegalMove(move, "a move must be a string in the game's notation")

    def drawing(self, game: Game, state: Any) -> dict[str, Any]:
        """Extra data a client needs to draw the position (beyond the state JSON)."""
        return {}

    def score(self, game: Game, state: Any) -> list[float] | None:
        """Points per player (for games with a score, e.g. match totals); None if none."""
        return None

    def decides_match(self, game: Game, state: Any) -> str | None:
        """A reason when a finished game ends its whole match at once (TriGolden arbitration)."""
        return None

    def supports_arbitration(self, game: Game) -> bool:
        return False

    def arbitration_turn(self, game: Game, state: Any) -> list[int] | None:
        """The arbiter's search: a legal complete turn for the claimant, or None."""
        raise NotImplementedError

    def scoring_phase(self, game: Game, state: Any) -> bool:
        """Whether a finished game waits for the players to agree on the score (Go)."""
        return False

    def final_score(self, game: Game, state: Any, dead: list[str]) -> dict[str, Any]:
        """The agreed score: ``points`` per player, ``winner`` (index or None), ``detail``."""
        raise NotImplementedError

    def propose_dead(self, game: Game, state: Any) -> list[str]:
        """Chains the server proposes as dead in the scoring phase (one point of each)."""
        return []

    def resume(self, game: Game, state: Any) -> Any:
        """The state after a player resumes play in the scoring phase (Go)."""
        raise IllegalMove("resume", f"the rules of {game.spec.id} have no resumption of play")

    def resign(self, game: Game, state: Any, player: int) -> Any:
        """The state after ``player`` resigns, for engines that record it (else None: the
        session records the result itself)."""
        return None


_GENERIC = Adapter()


@lru_cache(maxsize=None)
def get_adapter(game_id: str) -> Adapter:
    """The adapter for ``game_id``: its module's ``ADAPTER`` or the generic one."""
    try:
        module = importlib.import_module(f"{__name__}.{game_id}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{game_id}":
            raise
        return _GENERIC
    return module.ADAPTER
