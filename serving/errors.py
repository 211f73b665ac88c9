"""Errors the service answers with: every one is JSON ``{"error", "message", "detail"}``.

Why a small hierarchy: routes and the session manager raise plain Python exceptions that say
what went wrong; one set of exception handlers turns them into the right status code, so no
route builds error responses by hand and no error ever leaves as an HTML page or a 500.

An error body often repeats the client's input (the illegal move, the unknown level): every
string in it is made encodable first (:func:`serving.text.printable`), so no input, however
odd, can turn a 4xx into a response that cannot be sent.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from envs.core import IllegalMove, QizeroError
from serving.text import printable

log = logging.getLogger("qizero.serving")


class ServiceError(Exception):
    """An error with an HTTP status, a short machine code and a message for people."""

    status = 400
    code = "bad_request"

    def __init__(self, message: str, **detail: Any) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class BadInput(ServiceError):
    status, code = 422, "invalid_input"


class IllegalMoveAt(ServiceError):
    """An illegal or malformed move at a given index of a move list."""

    status, code = 422, "illegal_move"

    def __init__(self, index: int, move: Any, reason: str) -> None:
        super().__init__(
            f"move {index} ({move!r}) is illegal: {reason}", index=index, move=move, reason=reason
        )


class NotFound(ServiceError):
    status, code = 404, "not_found"


class Unauthorized(ServiceError):
    status, code = 401, "unauthorized"


class Forbidden(ServiceError):
    status, code = 403, "forbidden"


class Conflict(ServiceError):
    status, code = 409, "conflict"


class TooLarge(ServiceError):
    status, code = 413, "too_large"


class Unavailable(ServiceError):
    status, code = 503, "unavailable"


def error_body(code: str, message: str, detail: Any = None) -> dict[str, Any]:
    return {"error": code, "message": printable(message), "detail": printable(detail or {})}


# What FastAPI answers for a body it cannot read (not UTF-8, or JSON nested past Python's
# recursion limit): a 400 with this message, re-worded here.
UNREADABLE_BODY = "There was an error parsing the body"


def install_handlers(app: FastAPI) -> None:
    """Register the JSON error handlers on ``app``."""

    @app.exception_handler(ServiceError)
    async def _service(_: Request, exc: ServiceError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return JSONResponse(
            error_body(exc.code, exc.message, exc.detail), status_code=exc.status, headers=headers
        )

    @app.exception_handler(IllegalMove)
    async def _illegal(_: Request, exc: IllegalMove) -> JSONResponse:
        detail = {"move": exc.move, "reason": exc.reason}
        return JSONResponse(error_body("illegal_move", str(exc), detail), status_code=422)

    @app.exception_handler(QizeroError)
    async def _qizero(_: Request, exc: QizeroError) -> JSONResponse:
        return JSONResponse(error_body("invalid_input", str(exc)), status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()))
            problem = err.get("msg", "invalid")
            if err.get("type") == "bad_text":  # serving.text: the place inside the body
                inner = err["ctx"]["where"]
                where, problem = f"{where}.{inner}" if inner else where, err["ctx"]["why"]
            problems.append({"where": where, "problem": problem})
        first = problems[0] if problems else {"where": "", "problem": "invalid request"}
        message = f"invalid request: {first['where']}: {first['problem']}"
        return JSONResponse(
            error_body("invalid_request", message, {"problems": problems}), status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        codes = {400: "invalid_body", 404: "not_found", 405: "method_not_allowed",
                 413: "too_large"}
        message = str(exc.detail)
        if exc.status_code == 400 and message == UNREADABLE_BODY:
            message = "the body cannot be read: it must be JSON in UTF-8, nested a few levels"
        return JSONResponse(
            error_body(codes.get(exc.status_code, "http_error"), message),
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error", exc_info=exc)
        return JSONResponse(
            error_body("internal", f"internal error: {type(exc).__name__}"), status_code=500
        )
