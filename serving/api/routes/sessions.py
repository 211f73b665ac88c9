"""Game sessions: create, read, follow live, move, confirm/cancel, seats, resign, draw offers,
Go's scoring phase."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Response, status
from starlette.concurrency import run_in_threadpool

from serving.api.deps import AIDep, LadderDep, ManagerDep, SettingsDep, TokenDep
from serving.api.models import (
    DeadStonesUpdate,
    MoveCreate,
    ResignCreate,
    ResumeCreate,
    ReviewPublic,
    SeatUpdate,
    SessionCreate,
    SessionCreated,
    SessionPublic,
    VersionBase,
)
from serving.api.streaming import StreamDep, stream_doc
from serving.errors import BadInput
from serving.sessions.changes import channel

router = APIRouter(prefix="/v1/sessions", tags=["sessions"])

_WRITE: dict[int | str, dict[str, Any]] = {
    401: {"description": "missing or unknown token"},
    403: {"description": "the token belongs to another seat"},
    404: {"description": "no such session"},
    409: {"description": "stale version, not your turn, or the session is over"},
    422: {"description": "illegal move (index and reason) or bad input"},
}


@router.post(
    "",
    response_model=SessionCreated,
    status_code=status.HTTP_201_CREATED,
    responses={404: {"description": "unknown game"}, 422: {"description": "bad input"}},
    summary="start a session",
)
def create_session(body: SessionCreate, manager: ManagerDep, settings: SettingsDep) -> Any:
    if len(body.config) > settings.max_config_options:
        raise BadInput(f"too many config options: {len(body.config)}")
    kwargs: dict[str, Any] = {}
    if "turn_seconds" in body.model_fields_set:
        kwargs["turn_seconds"] = body.turn_seconds
    if "clock" in body.model_fields_set:
        kwargs["clock"] = body.clock.model_dump() if body.clock is not None else None
    ctx, owner, seat_tokens = manager.create(
        body.game,
        body.config,
        {k: v.model_dump() for k, v in body.seats.items()},
        confirm_turns=body.confirm_turns,
        match_games=body.match_games,
        **kwargs,
    )
    return {"session": manager.view(ctx), "owner_token": owner, "seat_tokens": seat_tokens}


@router.get(
    "/{session_id}",
    response_model=SessionPublic,
    responses={404: {"description": "no such session"}},
    summary="state, seats, timer and the full move list",
)
def get_session(session_id: str, manager: ManagerDep) -> Any:
    return manager.view(manager.get(session_id))


@router.get(
    "/{session_id}/review",
    response_model=ReviewPublic,
    responses={404: {"description": "no such session"},
               409: {"description": "the game is still being played (or scored)"}},
    summary="the review of a finished game: values after every move, each side's mistakes",
    description="Computed once, on the first request after the game ends, by the game's "
    "strongest level, and stored with the session: later requests (on any replica, after any "
    "restart) answer the stored review. A match is reviewed by its last game; `player` and "
    "the values' view are seats (the first seat is the first of the game's `players`). "
    "The review of any move list: `POST /v1/games/{game}/review`.",
)
async def session_review(session_id: str, manager: ManagerDep, ai: AIDep) -> Any:
    ctx = await run_in_threadpool(manager.get, session_id)
    found = await run_in_threadpool(manager.reviews.stored, ctx)
    if found is not None:
        return found
    return await ai.run(manager.reviews.get, ctx)


EVENTS_DOC = """
The session live, as server-sent events (`text/event-stream`), or NDJSON with
`Accept: application/x-ndjson`. Each message is `{"id", "kind", "data", "at"}`.

* First a `snapshot`: the full session (as `GET /v1/sessions/{id}`), whose id is the last event
  it reflects; then every event as it is committed, and after each burst of events a `view`
  (the full session again, with no id of its own) so a client never needs to poll.
* Kinds: `move`, `timeout`, `resign`, `resume`, `time_loss` (the stored game events, with
  `game`, `index` and their fields), `clock` (at every move and time-out: running seat,
  deadline, main time and byo-yomi left), `pending` (provisional moves), `seat` (a seat handed
  over or its level changed), `ai_thinking`, `ai_error`, `scoring` (Go's scoring phase),
  `game_end`, `game_start` (matches), `draw_offer` (Stereo Go: the offer of this turn, or
  null once a move clears it), `draw` (a draw agreed), `end` (the result; the stream then
  ends). Other kinds may appear (one per new session feature): read `kind`, skip what you do
  not know. Every event's `data` has the session `version` it produced.
* In a ladder game, a stream opened with a player's own token (`Authorization: Bearer`) is
  that player's presence: `presence` events (`seat`, `player`, `present`, `disconnections`,
  `absent_since`, `loses_at`) tell the others when they leave and return, and from the fourth
  disconnection an absence longer than their byo-yomi left loses on time (docs/ladder.md).
  Without a token, or with one that is no seat's, a stream is a spectator's.
* Reconnect with `Last-Event-ID` (or `?last_event_id=`) to resume exactly after that event;
  `0` replays the session's events from the first. Keep-alive every 15 s; 204 once the session
  is over and everything was read.
"""


@router.get(
    "/{session_id}/events",
    **stream_doc("follow the session live (server-sent events or NDJSON)", EVENTS_DOC,
                 {404: "no such session"}),
    # The token is optional and never refused: a ladder player's own token makes the stream
    # their presence, any other (or none) a spectator's (docs/ladder.md, "Presence").
    openapi_extra={"security": [{}]},  # added to the bearer requirement: either
)
async def session_events(
    session_id: str, manager: ManagerDep, stream: StreamDep, ladder: LadderDep, token: TokenDep
) -> Response:
    ctx = await run_in_threadpool(manager.get, session_id)  # 404 for an unknown session
    response = await stream.open(
        channel(session_id),
        snapshot=lambda: manager.snapshot(session_id),
        refresh=lambda events: manager.current_view(
            session_id, max(ev.data["version"] for ev in events)),
    )
    return ladder.presence.attend(response, ctx.data, token)  # a ladder player's presence


@router.post("/{session_id}/moves", response_model=SessionPublic, responses=_WRITE,
             summary="play a move (provisional where turns are confirmed)")
def post_move(session_id: str, body: MoveCreate, token: TokenDep, manager: ManagerDep) -> Any:
    if not isinstance(body.move, str) and len(body.move) > 16:
        raise BadInput("a move object has at most 16 fields")
    return manager.view(manager.move(session_id, token, body.move, body.version))


@router.post("/{session_id}/confirm", response_model=SessionPublic, responses=_WRITE,
             summary="confirm the provisional turn")
def confirm(session_id: str, body: VersionBase, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.confirm(session_id, token, body.version))


@router.post("/{session_id}/cancel", response_model=SessionPublic, responses=_WRITE,
             summary="take back the provisional moves of this turn")
def cancel(session_id: str, body: VersionBase, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.cancel(session_id, token, body.version))


@router.put("/{session_id}/seats/{seat}", response_model=SessionPublic, responses=_WRITE,
            summary="hand a seat to an AI level or to a person; change its level")
def put_seat(
    session_id: str, seat: str, body: SeatUpdate, token: TokenDep, manager: ManagerDep
) -> Any:
    return manager.view(
        manager.set_seat(session_id, token, seat, body.type, body.level, body.version)
    )


@router.post("/{session_id}/arbitration", response_model=SessionPublic, responses=_WRITE,
             summary="claim arbitration at the start of your turn (TriGolden standard rules)")
def arbitration(session_id: str, body: VersionBase, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.arbitration(session_id, token, body.version))


@router.put("/{session_id}/scoring/dead", response_model=SessionPublic, responses=_WRITE,
            summary="mark the dead chains in the scoring phase (Go)")
def mark_dead(
    session_id: str, body: DeadStonesUpdate, token: TokenDep, manager: ManagerDep
) -> Any:
    return manager.view(manager.mark_dead(session_id, token, body.dead, body.version))


@router.post("/{session_id}/scoring/accept", response_model=SessionPublic, responses=_WRITE,
             summary="accept the dead-stone marks; the score is final when every person has")
def accept_score(session_id: str, body: VersionBase, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.accept_score(session_id, token, body.version))


@router.post(
    "/{session_id}/resume",
    response_model=SessionPublic,
    responses={
        **_WRITE,
        409: {"description": "stale version, not in the scoring phase, or no person to resume"},
    },
    summary="resume play instead of agreeing on the score (Go, scoring phase)",
    description="Any human seat (its seat token or the owner token) may resume play after the "
    "two passes: the dead-stone marks and acceptances are dropped, the player whose turn came "
    "after the second pass moves, and the clock of that side runs again.",
)
def resume(session_id: str, body: ResumeCreate, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.resume(session_id, token, body.version))


@router.post("/{session_id}/resign", response_model=SessionPublic, responses=_WRITE,
             summary="resign (where the game's rules have it)")
def resign(session_id: str, body: ResignCreate, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.resign(session_id, token, body.seat, body.version))


@router.post(
    "/{session_id}/draw/offer",
    response_model=SessionPublic,
    responses={**_WRITE, 409: {"description": "not your turn, an offer already made this turn, "
                                              "an AI opponent, stale version, session over"}},
    summary="offer a draw on your turn (Stereo Go)",
    description="The offer stands (`draw_offer` in the session) until the opponent accepts "
    "or declines it, or the next move or time-out. One offer a turn. AI levels do not agree "
    "to draws. On the ladder a draw agreed before move 15 is not rated and leaves no record.",
)
def offer_draw(session_id: str, body: VersionBase, token: TokenDep, manager: ManagerDep) -> Any:
    return manager.view(manager.offer_draw(session_id, token, body.version))


@router.post(
    "/{session_id}/draw/{answer}",
    response_model=SessionPublic,
    responses={**_WRITE, 409: {"description": "no offer stands, it is your own, stale version"}},
    summary="answer the opponent's draw offer: accept (the game ends drawn) or decline",
    description="`accept`: the game ends drawn (result reason `agreement`, event `draw`). "
    "`decline`: play goes on; the offer stays shown as declined until the next move.",
)
def answer_draw(
    session_id: str,
    answer: Literal["accept", "decline"],
    body: VersionBase,
    token: TokenDep,
    manager: ManagerDep,
) -> Any:
    return manager.view(
        manager.answer_draw(session_id, token, answer == "accept", body.version)
    )
