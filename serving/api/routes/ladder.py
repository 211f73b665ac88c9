"""The ranking ladder: the rank table, the leaderboard, the matching queue, challenges."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from serving.api.deps import LadderDep, TokenDep
from serving.api.ladder_models import (
    ChallengeCreate,
    ChallengePublic,
    LeaderboardPublic,
    QueueCreate,
    QueueState,
    RankPublic,
)
from serving.api.routes.players import Limit, Offset
from serving.ladder.options import GameOptions
from serving.ladder.rules import RANKS
from serving.rate_limits import RATE_LIMITED_DOC, rate_limited

router = APIRouter(prefix="/v1/ladder", tags=["ladder"])

_AUTH: dict[int | str, dict[str, Any]] = {401: {"description": "missing or unknown token"}}


@router.get("/ranks", response_model=list[RankPublic],
            summary="the rank table: points bands and points per rated game")
def ranks() -> Any:
    return [{"rank": r.name, "index": r.index, "points_from": r.low, "points_to": r.high,
             "points_per_game": r.step} for r in RANKS]


@router.get("/leaderboard", response_model=LeaderboardPublic,
            responses={404: {"description": "no player with the id given as `player`"}},
            summary="players by points, paged; with `player`, that player's entry too",
            description="Players by points, then rated games, then who registered first. "
            "With `player` (a player id) the answer's `you` is that player's entry with their "
            "position, wherever the page is, so a client keeps their row in sight.")
def leaderboard(
    ladder: LadderDep,
    offset: Offset = 0,
    limit: Limit = 20,
    include_ai: Annotated[bool, Query(description="list the AI levels too")] = True,
    player: Annotated[str | None, Query(max_length=64,
                                        description="a player id: their entry as `you`")] = None,
) -> Any:
    return ladder.players.leaderboard(offset, limit, include_ai, player)


@router.post(
    "/queue",
    response_model=QueueState,
    status_code=status.HTTP_201_CREATED,
    responses={**_AUTH, 409: {"description": "already queued, or playing a rated game"},
               422: {"description": "bad options"}, **RATE_LIMITED_DOC},
    dependencies=[rate_limited("queue")],
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
    ladder.matcher.join(player, _options(body))
    return ladder.matcher.state(player)


def _options(body: QueueCreate) -> GameOptions:
    """The validated game options of a queue entry or a challenge (omitted clock: default)."""
    clock: dict[str, Any] | None | str = "default"
    if "clock" in body.model_fields_set:
        clock = body.clock.model_dump() if body.clock is not None else None
    return GameOptions.parse(body.board, body.rules, clock, body.handicap)


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


@router.post(
    "/challenges",
    response_model=ChallengePublic,
    status_code=status.HTTP_201_CREATED,
    responses={**_AUTH, 404: {"description": "no such opponent"},
               409: {"description": "an AI level, or too many open challenges"},
               422: {"description": "bad options, or yourself"}},
    summary="challenge a named player to a game (with the queue's options)",
    description="Any two players may play by challenge. Ranks two or more apart make a "
    "**friendly** game (recorded, shown as friendly, no points); otherwise the game is rated, "
    "and the one-rated-game rule applies when it is accepted.",
)
def challenge(body: ChallengeCreate, token: TokenDep, ladder: LadderDep) -> Any:
    player = ladder.players.authenticate(token)
    return ladder.challenges.send(player, body.opponent, _options(body))


@router.get("/challenges", response_model=list[ChallengePublic], responses=_AUTH,
            summary="your open challenges, sent and received")
def challenges(token: TokenDep, ladder: LadderDep) -> Any:
    return ladder.challenges.mine(ladder.players.authenticate(token))


@router.post(
    "/challenges/{challenge_id}/accept",
    response_model=ChallengePublic,
    responses={**_AUTH, 403: {"description": "not the challenged player"},
               404: {"description": "no such challenge"},
               409: {"description": "no longer open; a rated game while either player is in "
                                    "one or queued"}},
    summary="accept a challenge: the game is made (its session is in the answer)",
)
def accept(challenge_id: str, token: TokenDep, ladder: LadderDep) -> Any:
    return ladder.challenges.accept(ladder.players.authenticate(token), challenge_id)


@router.delete(
    "/challenges/{challenge_id}",
    response_model=ChallengePublic,
    responses={**_AUTH, 403: {"description": "not one of its two players"},
               404: {"description": "no such challenge"},
               409: {"description": "no longer open"}},
    summary="withdraw your challenge, or decline one sent to you",
)
def close(challenge_id: str, token: TokenDep, ladder: LadderDep) -> Any:
    return ladder.challenges.close(ladder.players.authenticate(token), challenge_id)
