"""Ladder players: register, profile with the game table, games page, membership grant."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, status
from starlette.concurrency import run_in_threadpool

from serving.api.deps import LadderDep, TokenDep
from serving.api.ladder_models import (
    GamesPage,
    GrantCreate,
    PlayerCreate,
    PlayerCreated,
    PlayerPublic,
)
from serving.api.streaming import StreamDep, stream_doc
from serving.ladder.notices import channel
from serving.rate_limits import RATE_LIMITED_DOC, rate_limited

router = APIRouter(prefix="/v1/players", tags=["ladder"])

Offset = Annotated[int, Query(ge=0, le=1_000_000, description="entries to skip")]
Limit = Annotated[int, Query(ge=1, le=100, description="entries in the page")]


@router.post(
    "",
    response_model=PlayerCreated,
    status_code=status.HTTP_201_CREATED,
    responses={409: {"description": "the name is taken"}, 422: {"description": "bad name"},
               **RATE_LIMITED_DOC},
    dependencies=[rate_limited("register")],
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


EVENTS_DOC = """
The player's ladder events live, as server-sent events (`text/event-stream`), or NDJSON with
`Accept: application/x-ndjson`; public, like the profile. Each message is
`{"id", "kind", "data", "at"}`.

* First a `snapshot`: the profile (as `GET /v1/players/{id}`), whose id is the last event it
  reflects; then every event as it is committed.
* `match_found`: a game was made for the player (queue, AI level or challenge): `game`,
  `session`, `colour`, `kind` (rated or friendly), `handicap`, `options`, `opponent` (id,
  name, kind, rank, points). Open the session and play.
* `rank_change`: after a rated game (`game`, `session`, `colour`, `result`) or a membership
  grant (`kind: "grant"`, `yuan`): `points` (before, after, change), `ranks` (before,
  after), `promoted`, `demoted`.
* `game_over`: a friendly game ended (`result`), or a game was void (`why`; no record).
* Other kinds may appear: read `kind`, skip what you do not know. Reconnect with
  `Last-Event-ID` (or `?last_event_id=`) to resume exactly after that event. The channel never
  ends; keep-alive every 15 s.
"""


@router.get(
    "/{player_id}/events",
    **stream_doc("follow a player's ladder events live (server-sent events or NDJSON)",
                 EVENTS_DOC, {404: "no such player"}),
)
async def player_events(player_id: str, ladder: LadderDep, stream: StreamDep) -> Response:
    await run_in_threadpool(ladder.players.profile, player_id, 0)  # 404 for an unknown player
    return await stream.open(channel(player_id),
                             snapshot=lambda: ladder.players.snapshot(player_id))


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
