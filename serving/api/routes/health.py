"""Liveness and what the service offers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

import envs
from serving.api.deps import AIDep, ManagerDep
from serving.api.models import HealthPublic

router = APIRouter(prefix="/v1", tags=["health"])


@router.get("/health", response_model=HealthPublic, summary="service health")
def health(ai: AIDep, manager: ManagerDep) -> dict[str, Any]:
    return {
        "status": "ok",
        "games": envs.game_ids(),
        "database": manager.store.engine.dialect.name,
        "ai": ai.stats(),
        "replica": manager.replica(),
    }
