"""The catalogue (games, levels) and stateless analysis: positions and move suggestions."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query

import envs
from envs.core import options_key
from serving.api.deps import AIDep, LadderDep, SettingsDep
from serving.api.models import (
    GamePublic,
    LevelsPublic,
    PositionBase,
    PositionCreate,
    PositionPublic,
    ReviewCreate,
    ReviewPublic,
    SuggestCreate,
    SuggestionPublic,
)
from serving.catalogue import build_game, check_game_id, describe, game_info, replay
from serving.errors import BadInput
from serving.ladder.ai_players import BASELINE
from serving.ladder.options import GAME as LADDER_GAME
from serving.levels import Level
from serving.rate_limits import RATE_LIMITED_DOC, rate_limited
from serving.review import plies_of_moves, review, review_level
from serving.settings import Settings
from serving.text import first_problem

router = APIRouter(prefix="/v1/games", tags=["games"])

GameId = Annotated[str, Path(description="a game id from /v1/games", examples=["jiugong"])]

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"description": "unknown game or level"},
    422: {"description": "bad config, or an illegal move (its index and the reason)"},
}


def check_limits(settings: Settings, body: PositionBase) -> None:
    if len(body.moves) > settings.max_moves:
        raise BadInput(f"too many moves: {len(body.moves)} > {settings.max_moves}")
    if len(body.config) > settings.max_config_options:
        raise BadInput(f"too many config options: {len(body.config)}")


@router.get("", response_model=list[GamePublic], summary="every game served")
def list_games() -> list[dict[str, Any]]:
    return [game_info(g) for g in envs.game_ids()]


@router.get("/{game}", response_model=GamePublic, responses=_ERRORS, summary="one game")
def get_game(game: GameId) -> dict[str, Any]:
    check_game_id(game)
    return game_info(game)


@router.get("/{game}/levels", response_model=LevelsPublic, responses=_ERRORS, summary="AI levels")
def get_levels(
    game: GameId,
    ai: AIDep,
    ladder: LadderDep,
    config: Annotated[
        str | None,
        Query(
            description="game options as a JSON object (URL-encoded): the levels trained for "
            "exactly these options; default: the game's default options",
            examples=["{}"],
            max_length=4096,
        ),
    ] = None,
) -> dict[str, Any]:
    """The levels for one configuration of the game (``levels``, ``default``); ``variants``
    lists every configuration with trained levels besides the default options."""
    check_game_id(game)
    try:
        options = json.loads(config) if config is not None else None
    except (ValueError, RecursionError) as exc:  # not JSON, or nested past the reader's limit
        raise BadInput(f"config is not JSON: {exc}") from None
    found = first_problem(options)
    if found is not None:
        raise BadInput(f"config: {found[0] or 'the value'} {found[1]}")
    built = build_game(game, options)
    table = ai.table(built)
    standings = ladder.ai_standings() if game == LADDER_GAME else {}

    def public(key: str, levels: tuple[Level, ...]) -> list[dict[str, Any]]:
        """The levels of one table, each with its ladder standing where it has one."""
        return [{**lv.public(),
                 "ladder": standings.get((BASELINE if lv.source == "baseline" else key, lv.id))}
                for lv in levels]

    variants = []
    for key in ai.levels.variants(game):
        other = ai.levels.table(game, key)
        variants.append({
            "key": key,
            "options": other.options,
            "default": other.default,
            "levels": public(key, other.levels),
        })
    return {
        "game": game,
        "default": table.default,
        "levels": public(options_key(built), table.levels),
        "variants": variants,
    }


@router.post(
    "/{game}/positions",
    response_model=PositionPublic,
    responses={**_ERRORS, **RATE_LIMITED_DOC},
    dependencies=[rate_limited("analysis")],
    summary="the position after a list of moves",
)
def position(game: GameId, body: PositionCreate, settings: SettingsDep) -> dict[str, Any]:
    check_limits(settings, body)
    g = build_game(game, body.config)
    state = replay(g, body.moves, settings.max_move_chars)
    return describe(g, state)


@router.post(
    "/{game}/suggest",
    response_model=SuggestionPublic,
    responses={**_ERRORS, **RATE_LIMITED_DOC},
    dependencies=[rate_limited("suggest")],
    summary="a move suggestion from an AI level",
)
async def suggest(game: GameId, body: SuggestCreate, ai: AIDep, settings: SettingsDep) -> Any:
    check_limits(settings, body)
    g = build_game(game, body.config)
    ai.table(g).get(body.level)  # 404 before any work

    def work() -> Any:
        state = replay(g, body.moves, settings.max_move_chars)
        return ai.analyse(g, state, body.level, body.seed)

    s = await ai.run(work)
    return {
        "move": s.move,
        "value": s.value,
        "top": [{"move": m, "probability": p} for m, p in s.top],
        "level": s.level,
        "seconds": s.seconds,
    }


@router.post(
    "/{game}/review",
    response_model=ReviewPublic,
    responses={**_ERRORS, **RATE_LIMITED_DOC},
    dependencies=[rate_limited("suggest")],
    summary="review a move list: the value after every move and each side's key mistakes",
    description="The level's network values every position of the game in a few batched "
    "passes (first seat's view; a finished game ends on its real result); for each side, the "
    "three moves that lost the most value and where the level's search would have played "
    "otherwise are listed with the move it preferred. A session's review: "
    "`GET /v1/sessions/{id}/review`.",
)
async def review_moves(game: GameId, body: ReviewCreate, ai: AIDep, settings: SettingsDep) -> Any:
    check_limits(settings, body)
    g = build_game(game, body.config)
    level = review_level(ai.table(g), body.level)  # 404 before any work

    def work() -> Any:
        return review(ai, g, plies_of_moves(g, body.moves, settings.max_move_chars), level)

    return await ai.run(work)
