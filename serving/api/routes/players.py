"""Ladder players: register, profile with the game table, games page, membership grant."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from serving.api.deps import LadderDep, TokenDep
from serving.api.ladder_models import (
    GamesPage,
    GrantCreate,
    PlayerCreate,
    PlayerCreated,
    PlayerPublic,
)

router = APIRouter(prefix="/v1/players", tags=["ladder"])

Offset = Annotated[int, Query(ge=0, le=1_000_000, description="entries to skip")]
Limit = Annotated[int, Query(ge=1, le=100, description="entries in the page")]


@router.post(
    "",
    response_model=PlayerCreated,
    status_code=status.HTTP_201_CREATED,
    responses={409: {"description": "the name is taken"}, 422: {"description": "bad name"}},
    summary="register a ladder player (18K, 0 points) and get their API token",
    description="The token is shown once; only its hash is stored. It authenticates the "
    "player's writes: queueing, and moves, resignation and draw offers in their ladder games "
    "(`Authorization: Bearer <token>`).",
)
def register(body: PlayerCreate, ladder: LadderDep) -> Any:
    player, token = ladder.players.register(body.name)
    return {"player": player, "token": token}


@router.get(
    "/{player_id}",
    response_model=PlayerPublic,
    responses={404: {"description": "no such player"}},
    summary="a player's rank, points, results, games being played and latest games",
    description="Friendly games (ranks two or more apart) show `friendly` instead of a "
    "result; invalid games (resigned or lost on time before 10 moves or within the first "
    "minute) and draws agreed before move 15 leave no record.",
)
def profile(player_id: str, ladder: LadderDep) -> Any:
    return ladder.players.profile(player_id)


@router.get(
    "/{player_id}/games",
    response_model=GamesPage,
    responses={404: {"description": "no such player"}},
    summary="a page of the player's recorded ladder games, newest first",
)
def games(player_id: str, ladder: LadderDep, offset: Offset = 0, limit: Limit = 20) -> Any:
    return ladder.players.games(player_id, offset, limit)


@router.post(
    "/{player_id}/grant",
    response_model=PlayerPublic,
    responses={
        401: {"description": "no token"},
        403: {"description": "not the administrator's token, or grants are off"},
        404: {"description": "no such player"},
        409: {"description": "an AI level"},
    },
    summary="administrator: grant a membership balance (1 yuan = 1,000 points, up to 5D)",
    description="No payment is processed: the administrator records an amount paid "
    "elsewhere. Grants add up; a grant never takes a player past 518,000 points (the 5D "
    "amount) and never lowers their points. A player with granted points cannot get the "
    "direct promotion (20 straight wins from 18K). Needs the token set as "
    "`QIZERO_LADDER_ADMIN_TOKEN`.",
)
def grant(player_id: str, body: GrantCreate, token: TokenDep, ladder: LadderDep) -> Any:
    return ladder.players.grant(player_id, token, body.yuan, body.note)
