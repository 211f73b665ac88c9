"""Games as the service sees them: building a configured game, replaying moves, describing a
position for a client. Only the Game protocol and the adapters are used here.

Why replay: a position is always given (and stored) as its move list; the rules engine rebuilds
the state, so the engine stays the one source of truth and a bad move is reported by its index.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import envs
from envs.core import Game, IllegalMove, QizeroError
from serving.adapters import get_adapter
from serving.errors import BadInput, IllegalMoveAt, NotFound

log = logging.getLogger("qizero.serving")


def config_key(config: dict[str, Any] | None) -> str:
    """A canonical string for a config dict (cache key, stored with sessions)."""
    return json.dumps(config or {}, sort_keys=True, separators=(",", ":"))


def check_game_id(game_id: str) -> None:
    if game_id not in envs.game_ids():
        raise NotFound(
            f"unknown game {game_id!r}; known games: {', '.join(envs.game_ids())}",
            game=game_id,
        )


@lru_cache(maxsize=256)
def _make(game_id: str, key: str) -> Game:
    return envs.make_game(game_id, **json.loads(key))


def build_game(game_id: str, config: dict[str, Any] | None) -> Game:
    """A configured game (cached: games are immutable rule objects); 404/422 on bad input."""
    check_game_id(game_id)
    if config is not None and not isinstance(config, dict):
        raise BadInput("config must be a JSON object of option: value")
    try:
        return _make(game_id, config_key(config))
    except QizeroError as exc:
        raise BadInput(str(exc), game=game_id) from None


def notation(game: Game, state: Any, move: Any, index: int) -> Any:
    """A move as a notation string (JSON-object moves go through the game's adapter)."""
    if isinstance(move, dict):
        try:
            return get_adapter(game.spec.id).move_from_json(game, state, move)
        except IllegalMove as exc:
            raise IllegalMoveAt(index, move, exc.reason) from None
    return move


def apply_move(game: Game, state: Any, move: Any, index: int, max_chars: int = 64) -> Any:
    """Play one notation move, turning any rejection into a 422 naming ``index``."""
    move = notation(game, state, move, index)
    if not isinstance(move, str):
        raise IllegalMoveAt(index, move, "a move must be a string in the game's notation")
    if len(move) > max_chars:
        raise IllegalMoveAt(index, move[:max_chars] + "...", f"longer than {max_chars} characters")
    try:
        return game.play(state, move)
    except IllegalMove as exc:
        raise IllegalMoveAt(index, move, exc.reason) from None
    except QizeroError as exc:
        raise IllegalMoveAt(index, move, str(exc)) from None
    except Exception as exc:  # noqa: BLE001  an engine bug must not become a 500 for bad input
        log.exception("rules engine failed on move %r", move)
        raise IllegalMoveAt(index, move, f"rejected by the rules engine ({exc})") from None


def replay(game: Game, moves: Sequence[Any], max_chars: int = 64) -> Any:
    state = game.initial_state()
    for i, move in enumerate(moves):
        state = apply_move(game, state, move, i, max_chars)
    return state


def result_of(game: Game, state: Any) -> dict[str, Any] | None:
    """The result of a finished game by seat name (None while it goes on)."""
    if not game.is_terminal(state):
        return None
    names = game.spec.player_names
    returns = [float(x) for x in game.returns(state)]
    winner = game.winner(state)
    out: dict[str, Any] = {
        "returns": dict(zip(names, returns)),
        "winner": names[winner] if winner is not None else None,
        "reason": "rules",
    }
    score = get_adapter(game.spec.id).score(game, state)
    if score is not None:
        out["score"] = dict(zip(names, score))
    return out


def describe(game: Game, state: Any, include_legal: bool = True) -> dict[str, Any]:
    """Everything a client needs to show a position and offer its moves."""
    adapter = get_adapter(game.spec.id)
    over = game.is_terminal(state)
    names = game.spec.player_names
    score = adapter.score(game, state)
    return {
        "to_play": None if over else names[game.to_play(state)],
        "legal_moves": game.legal_moves(state) if include_legal and not over else [],
        "is_over": over,
        "result": result_of(game, state),
        "score": dict(zip(names, score)) if score is not None else None,
        "state": game.to_json(state),
        "text": game.render(state),
        "drawing": adapter.drawing(game, state),
        "board": game.board_view(state),
        "facts": game.status_facts(state),
    }


def game_info(game_id: str) -> dict[str, Any]:
    """A catalogue entry: ids, names, sides, options with defaults, variants, session features."""
    game = envs.make_game(game_id)
    options = envs.config_options(game_id)
    adapter = get_adapter(game_id)
    return {
        "id": game_id,
        "name": game.spec.name,
        "players": list(game.spec.player_names),
        "options": options,
        "variants": {o["name"]: o["choices"] for o in options if o["choices"]},
        "num_actions": game.spec.num_actions,
        "max_length": game.spec.max_length,
        "board_kind": game.board_view(game.initial_state())["kind"],
        "labels": type(game).labels,
        "sessions": {
            "turn_seconds_default": game.spec.turn_seconds,
            "timer": game.spec.turn_seconds is not None,
            "clock_default": (  # main time + byo-yomi (serving.clocks), where the rules have it
                adapter.byo_yomi_default.to_json() if adapter.byo_yomi_default else None
            ),
            "confirm_turns": adapter.confirm_turns_default,
            "resign": adapter.supports_resign,
            "match_lengths": list(adapter.match_lengths),
        },
    }
