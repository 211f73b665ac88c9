"""Analysis of a position: the top moves with visits, values, priors and principal
variations, the value, and for Go the score lead and the ownership of every point; as one
answer or streamed while the search runs, stoppable at once (:mod:`serving.analyses`)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from serving.ai import AnalysisBudget
from serving.analyses import Analyses
from serving.api.deps import AIDep, SettingsDep
from serving.api.models import AnalysisCreate, AnalysisPublic
from serving.api.routes.games import GameId, check_limits
from serving.api.streaming import NDJSON
from serving.catalogue import build_game, replay
from serving.errors import BadInput, NotFound
from serving.rate_limits import RATE_LIMITED_DOC, rate_limited
from serving.settings import Settings

router = APIRouter(prefix="/v1", tags=["analysis"])

_NDJSON_EXAMPLE = (
    '{"id": "3f2a9c", "final": false, "level": "5", "visits": 80, "seconds": 0.5, '
    '"value": 0.3, "moves": [], "score_lead": null, "ownership": null}\n'
    '{"id": "3f2a9c", "final": true, "level": "5", "visits": 200, "seconds": 1.1, '
    '"value": 0.35, "moves": [], "score_lead": null, "ownership": null}\n'
)


def get_analyses(request: Request) -> Analyses:
    return request.app.state.analyses


def budget_for(settings: Settings, body: AnalysisCreate, level_simulations: int) -> AnalysisBudget:
    """The analysis's budget: what the body asks, each part refused above the service's
    limit; without ``visits``, the level's own simulations (a time budget alone: as many as
    the limit allows); without ``seconds``, the time limit."""
    if body.visits is not None and body.visits > settings.analysis_max_visits:
        raise BadInput(
            f"visits {body.visits} is over this service's limit of "
            f"{settings.analysis_max_visits} simulations per analysis",
            visits=body.visits, limit=settings.analysis_max_visits)
    if body.seconds is not None and body.seconds > settings.analysis_max_seconds:
        raise BadInput(
            f"seconds {body.seconds:g} is over this service's limit of "
            f"{settings.analysis_max_seconds:g} seconds per analysis",
            seconds=body.seconds, limit=settings.analysis_max_seconds)
    if body.visits is not None:
        visits = body.visits
    elif body.seconds is not None:
        visits = settings.analysis_max_visits
    else:
        visits = min(level_simulations, settings.analysis_max_visits)
    seconds = body.seconds if body.seconds is not None else settings.analysis_max_seconds
    return AnalysisBudget(visits, float(seconds), float(body.interval), body.top)


@router.post(
    "/games/{game}/analysis",
    response_model=AnalysisPublic,
    responses={
        200: {
            "description": "stream false: the final report; stream true: NDJSON, one report "
            "(AnalysisPublic) a line every interval, the last one final (a failure after the "
            "stream began ends it with an error body line)",
            "content": {NDJSON: {"schema": {"type": "string"}, "example": _NDJSON_EXAMPLE}},
            "headers": {"X-Analysis-Id": {
                "description": "the analysis's id (streams): DELETE /v1/analyses/{id} stops it",
                "schema": {"type": "string"}}},
        },
        404: {"description": "unknown game or level"},
        422: {"description": "bad config, an illegal move, a finished game, a level that does "
              "not search, or a budget over the service's limit"},
        **RATE_LIMITED_DOC,
    },
    dependencies=[rate_limited("analysis")],
    summary="analyse a position with an AI level: top moves, value, Go ownership",
)
async def analyse(
    game: GameId, body: AnalysisCreate, request: Request, ai: AIDep, settings: SettingsDep
) -> Any:
    check_limits(settings, body)
    g = build_game(game, body.config)
    level = ai.table(g).get(body.level)  # 404 before any work
    budget = budget_for(settings, body, ai.level_simulations(g, level))
    state = await run_in_threadpool(replay, g, body.moves, settings.max_move_chars)
    if g.is_terminal(state):
        raise BadInput("the game is over: there is no position to analyse")
    run = get_analyses(request).start(ai, g, state, level.id, budget)
    if not body.stream:
        return await run.final()
    return StreamingResponse(
        run.ndjson(), media_type=NDJSON,
        headers={"X-Analysis-Id": run.id, "Cache-Control": "no-cache",
                 "X-Accel-Buffering": "no"})


@router.delete(
    "/analyses/{analysis_id}",
    status_code=204,
    response_class=Response,
    responses={404: {"description": "no analysis with this id is running here"}},
    summary="stop an analysis at once (its worker is free for the next request)",
)
async def stop_analysis(
    analysis_id: Annotated[str, Path(description="X-Analysis-Id of the stream", max_length=64)],
    request: Request,
) -> Response:
    if not get_analyses(request).stop(analysis_id):
        raise NotFound(f"no analysis {analysis_id!r} is running: unknown, or already finished",
                       analysis_id=analysis_id)
    return Response(status_code=204)
