"""``OPTIONS`` and 405 answers that list every method a path takes (the ``Allow`` header).

Why: Starlette answers a method a path does not take from the first route whose path
matched, so ``/v1/ladder/queue`` (GET, POST and DELETE, three routes) said ``Allow: POST``,
and ``OPTIONS`` got that 405 too. Here the methods of every route whose path matches are
gathered: ``OPTIONS`` is answered 204 with them, any other method a path does not take 405
with them (RFC 9110: a 405 carries ``Allow``).
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match, Mount

from serving.errors import error_body

METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT")


def allowed_methods(app: FastAPI, request: Request) -> list[str]:
    """Every method some route of ``app`` takes at the request's path (sorted), and OPTIONS.

    Each method is tried on the routes as the router would (``matches`` on the request's scope
    with that method, as the top level saw it: a mount moves ``root_path`` on), so routers
    included with a prefix answer for their own routes."""
    top = {**request.scope, "root_path": request.scope.get("app_root_path",
                                                           request.scope.get("root_path", ""))}
    methods = {"OPTIONS"}
    for method in METHODS:
        scope = {**top, "method": method}
        for route in app.router.routes:
            match, _ = route.matches(scope)
            if isinstance(route, Mount):
                if match != Match.NONE and method in ("GET", "HEAD"):
                    methods.add(method)  # the web client's folders: files to read
            elif match == Match.FULL:
                methods.add(method)
    return sorted(methods)


def install_method_answers(app: FastAPI) -> None:
    """Answer OPTIONS, and a method the path does not take, with the full ``Allow``."""

    @app.exception_handler(405)
    async def _not_allowed(request: Request, exc: StarletteHTTPException) -> Response:
        allow = ", ".join(allowed_methods(app, request))
        if request.method == "OPTIONS":
            return Response(status_code=204, headers={"Allow": allow})
        return JSONResponse(
            error_body("method_not_allowed",
                       f"{request.method} is not allowed here; allowed: {allow}"),
            status_code=405, headers={"Allow": allow},
        )
