"""Liveness (``/v1/health``), readiness (``/v1/ready``) and what the service offers.

Why two: a load balancer or orchestrator restarts a process whose liveness fails, and sends
traffic only to one that is ready. Liveness answers at once, even while the levels' networks
load or the service stops (asking the search processes for their figures waits at most a
second); readiness is 503 until the start is done, every level's network is loaded and the
database answers, and again from the moment a stop begins.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import text
from starlette.concurrency import run_in_threadpool

import envs
from serving.api.deps import AIDep, ManagerDep
from serving.api.models import HealthPublic
from serving.errors import error_body

router = APIRouter(prefix="/v1", tags=["health"])

STATS_SECONDS = 1.0  # how long liveness waits for a search process's figures
RETRY_SECONDS = 1  # Retry-After of a 503 from /v1/ready


class ReadyPublic(BaseModel):
    status: Literal["ready"]


@router.get("/health", response_model=HealthPublic, summary="service health (liveness)")
def health(ai: AIDep, manager: ManagerDep) -> dict[str, Any]:
    return {
        "status": "ok",
        "games": envs.game_ids(),
        "database": manager.store.engine.dialect.name,
        "ai": ai.stats(timeout=STATS_SECONDS),
        "replica": manager.replica(),
    }


@router.get(
    "/ready",
    response_model=ReadyPublic,
    summary="readiness: levels loaded, database reachable, not stopping",
    responses={503: {"description": "not ready: `detail.problems` says why (starting, "
                     "levels loading, database unreachable, stopping)"}},
)
async def ready(request: Request, manager: ManagerDep) -> Any:
    problems = await run_in_threadpool(request.app.state.lifecycle.problems)
    if not problems:
        try:
            await run_in_threadpool(_ping, manager)
        except Exception as exc:  # noqa: BLE001  any failure means "not reachable"
            problems.append(f"database unreachable: {type(exc).__name__}")
    if problems:
        return JSONResponse(
            error_body("unavailable", f"not ready: {', '.join(problems)}",
                       {"problems": problems}),
            status_code=503, headers={"Retry-After": str(RETRY_SECONDS)},
        )
    return {"status": "ready"}


def _ping(manager: Any) -> None:
    with manager.store.engine.connect() as conn:
        conn.execute(text("SELECT 1"))
