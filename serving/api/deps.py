"""Dependencies as ``Annotated`` aliases: routes declare what they need, tests override it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from serving.ai import AIEngine
from serving.ladder.service import Ladder
from serving.sessions.manager import SessionManager
from serving.settings import Settings


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_ai(request: Request) -> AIEngine:
    return request.app.state.ai


def get_manager(request: Request) -> SessionManager:
    return request.app.state.sessions


def get_ladder(request: Request) -> Ladder:
    return request.app.state.ladder


_bearer = HTTPBearer(
    auto_error=False,
    description="a session's owner or seat token, or a ladder player's token",
)


def get_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> str | None:
    return credentials.credentials if credentials is not None else None


SettingsDep = Annotated[Settings, Depends(get_settings)]
AIDep = Annotated[AIEngine, Depends(get_ai)]
ManagerDep = Annotated[SessionManager, Depends(get_manager)]
LadderDep = Annotated[Ladder, Depends(get_ladder)]
TokenDep = Annotated[str | None, Depends(get_token)]
