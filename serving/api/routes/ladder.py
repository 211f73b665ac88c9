"""The ranking ladder: the rank table, the leaderboard, the matching queue."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from serving.api.deps import LadderDep, TokenDep
from serving.api.ladder_models import LeaderboardPublic, QueueCreate, QueueState, RankPublic
from serving.api.routes.players import Limit, Offset
from serving.ladder.options import GameOptions
from serving.ladder.rules import RANKS

router = APIRouter(prefix="/v1/ladder", tags=["ladder"])

_AUTH: dict[int | str, dict[str, Any]] = {401: {"description": "missing or unknown token"}}


@router.get("/ranks", response_model=list[RankPublic],
            summary="the rank table: points bands and points per rated game")
def ranks() -> Any:
    return [{"rank": r.name, "index": r.index, "points_from": r.low, "points_to": r.high,
             "points_per_game": r.step} for r in RANKS]


@router.get("/leaderboard", response_model=LeaderboardPublic,
            summary="players by points, paged")
def leaderboard(
    ladder: LadderDep,
    offset: Offset = 0,
    limit: Limit = 20,
    include_ai: Annotated[bool, Query(description="list the AI levels too")] = True,
) -> Any:
    return ladder.players.leaderboard(offset, limit, include_ai)


@router.post(
    "/queue",
    response_model=QueueState,
    status_code=status.HTTP_201_CREATED,
    responses={**_AUTH, 409: {"description": "already queued, or playing a rated game"},
               422: {"description": "bad options"}},
    summary="join the matching queue (paired at once when a partner waits)",
    description="Players are paired with the same options only, by the matching order: "
    "the longest-waiting player chooses first, among players of the same rank, then one "
    "rank lower, then one rank higher, never two or more apart. After "
    "`ladder_ai_wait_seconds` without a partner an AI level of the nearest rank (same "
    "order) takes the other seat. Colours follow the ladder's rules. The answer is the "
    "queue state: `playing` with the session when paired at once.",
)
def join(body: QueueCreate, token: TokenDep, ladder: LadderDep) -> Any:
    player = ladder.players.authenticate(token)
    clock: dict[str, Any] | None | str = "default"
    if "clock" in body.model_fields_set:
        clock = body.clock.model_dump() if body.clock is not None else None
    options = GameOptions.parse(body.board, body.rules, clock, body.handicap)
    ladder.matcher.join(player, options)
    return ladder.matcher.state(player)


@router.get("/queue", response_model=QueueState, responses=_AUTH,
            summary="your queue state: waiting, playing (the rated game's session) or idle")
def queue_state(token: TokenDep, ladder: LadderDep) -> Any:
    return ladder.matcher.state(ladder.players.authenticate(token))


@router.delete("/queue", response_model=QueueState, responses=_AUTH,
               summary="leave the queue (the state after: idle, or playing if paired first)")
def leave(token: TokenDep, ladder: LadderDep) -> Any:
    player = ladder.players.authenticate(token)
    ladder.matcher.leave(player)
    return ladder.matcher.state(player)
