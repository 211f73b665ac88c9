"""The published OpenAPI document, made to say what the service answers.

Why a pass over the generated document: FastAPI declares its own 422 body (``detail``: an
array) on every route with parameters, while this service answers every error as
``{"error", "message", "detail"}`` (:mod:`serving.errors`), a 422 for invalid input with
``detail: {"problems": [...]}``; and statuses that come from below the routes (a body that is
not UTF-8 JSON: 400, over the size limit: 413) appear nowhere. Declaring them route by route
would be easy to forget on the next route; here every operation gets them from one place:

* every 4xx/5xx response declares the error body (:class:`ErrorPublic`; a 422 either
  :class:`ValidationErrorPublic` or a service error);
* every operation with a request body declares 400, 413 and 422;
* every operation that reads levels or the database declares 503 (a level's files cannot be
  read, the service is stopping);
* every string of a request body, and every key of its free-form objects, declares the
  characters it may not hold (:mod:`serving.text` refuses them in every body);
* the answers that create a resource (a session, a player, a challenge) link to the operations
  on it (OpenAPI ``links``: its id in the path, a session's owner token and version), so a
  client, or a checker such as schemathesis, can follow them.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, ConfigDict, Field


class ErrorPublic(BaseModel):
    """Every error the service answers (serving/errors.py)."""

    error: str = Field(description="a short machine code: not_found, conflict, invalid_input…")
    message: str = Field(description="what went wrong, for people")
    detail: dict[str, Any] = Field(description="facts about it (the move's index, the "
                                               "session's version…); may be empty")

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"error": "conflict", "message": "stale version 3: the session is at version 4",
         "detail": {"version": 4}}]})


class Problem(BaseModel):
    where: str = Field(description="where in the request: body.moves.0, query.limit…")
    problem: str


class ProblemList(BaseModel):
    problems: list[Problem]


class ValidationErrorPublic(BaseModel):
    """A request that does not fit the route's parameters or body model (422)."""

    error: str = Field(description="invalid_request")
    message: str
    detail: ProblemList

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"error": "invalid_request", "message": "invalid request: body.version: Field required",
         "detail": {"problems": [{"where": "body.version", "problem": "Field required"}]}}]})


REF = "#/components/schemas/{model}"
BODY_STATUSES = {
    "400": "the body cannot be read: not UTF-8, or JSON nested too deep to parse",
    "413": "the body is over the size limit (max_body_bytes)",
    "422": "invalid input",
}
UNAVAILABLE = "the service cannot answer now: a level's files cannot be read, or it is stopping"
# Operations that touch neither levels nor the database: no 503.
NO_503 = {("get", "/v1/games"), ("get", "/v1/games/{game}"), ("get", "/v1/ladder/ranks")}


# No C0, DEL or C1 control character (serving.text; lone surrogates are not JSON text at all).
PLAIN_TEXT = "^[^\\x00-\\x1f\\x7f-\\x9f]*$"
_NOT_SCHEMAS = ("examples", "example", "default", "const", "enum")


def declare_plain_text(schema: Any, schemas: dict[str, Any], seen: set[str]) -> None:
    """Give every string in ``schema`` (following references once) the :data:`PLAIN_TEXT`
    pattern unless it has a pattern or fixed values, and every object with free-form keys the
    same rule for its keys."""
    if isinstance(schema, list):
        for item in schema:
            declare_plain_text(item, schemas, seen)
        return
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        name = ref.rsplit("/", 1)[1]
        if name not in seen and name in schemas:
            seen.add(name)
            declare_plain_text(schemas[name], schemas, seen)
    if schema.get("type") == "string" and not {"pattern", "enum", "const"} & set(schema):
        schema["pattern"] = PLAIN_TEXT
    if schema.get("type") == "object" and schema.get("additionalProperties") not in (None, False):
        schema.setdefault("propertyNames", {"pattern": PLAIN_TEXT})
    for key, value in schema.items():
        if key not in _NOT_SCHEMAS:
            declare_plain_text(value, schemas, seen)


# Created resources and how their answer names them: (path, status) -> (the path prefix of the
# operations on it, the path parameters they take from the answer).
CREATORS: dict[tuple[str, str], tuple[str, dict[str, str]]] = {
    ("/v1/sessions", "201"): ("/v1/sessions/{session_id}", {
        "session_id": "$response.body#/session/id",
        "seat": "$response.body#/session/position/to_play", "answer": "decline"}),
    ("/v1/players", "201"): ("/v1/players/{player_id}", {
        "player_id": "$response.body#/player/id"}),
    ("/v1/ladder/challenges", "201"): ("/v1/ladder/challenges/{challenge_id}", {
        "challenge_id": "$response.body#/id"}),
}


def add_links(doc: dict[str, Any]) -> None:
    """Link each creating answer (:data:`CREATORS`) to every operation on what it made; for a
    session, the owner token authenticates the writes and the answer's version is theirs."""
    paths = doc.get("paths", {})
    for (source, status), (prefix, values) in CREATORS.items():
        response = paths.get(source, {}).get("post", {}).get("responses", {}).get(status)
        if response is None:
            continue
        links: dict[str, Any] = {}
        for path, item in paths.items():
            if not path.startswith(prefix):
                continue
            for method, op in item.items():
                names = [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]
                if not set(names) <= set(values):
                    continue
                link: dict[str, Any] = {
                    "operationId": op["operationId"],
                    "parameters": {f"path.{name}": values[name] for name in names},
                }
                if source == "/v1/sessions" and op.get("security"):
                    link["parameters"]["header.Authorization"] = (
                        "Bearer {$response.body#/owner_token}")
                    link["requestBody"] = {"version": "$response.body#/session/version"}
                links[op["operationId"]] = link
        response["links"] = links


def _schemas() -> dict[str, Any]:
    """The error models' JSON schemas, each under its own name."""
    found: dict[str, Any] = {}
    for model in (ErrorPublic, ValidationErrorPublic):
        schema = model.model_json_schema(ref_template=REF)
        found.update(schema.pop("$defs", {}))
        found[model.__name__] = schema
    return found


def _error_content(status: str) -> dict[str, Any]:
    error = {"$ref": REF.format(model="ErrorPublic")}
    if status == "422":
        schema = {"anyOf": [{"$ref": REF.format(model="ValidationErrorPublic")}, error]}
    else:
        schema = error
    return {"application/json": {"schema": schema}}


def fix_operation(path: str, method: str, op: dict[str, Any]) -> None:
    """Give ``op`` every error status it can answer, each with the real error body."""
    responses: dict[str, Any] = op.setdefault("responses", {})
    if "requestBody" in op:
        for status, text in BODY_STATUSES.items():
            responses.setdefault(status, {"description": text})
    if (method, path) not in NO_503 and path.startswith("/v1/"):
        responses.setdefault("503", {"description": UNAVAILABLE})
    for status, response in responses.items():
        if status[0] in "45":
            response["content"] = _error_content(status)
            if response.get("description") == "Validation Error":
                response["description"] = "invalid input"


def build(app: FastAPI) -> dict[str, Any]:
    """The document as FastAPI makes it, with every error declared (see the module)."""
    doc = get_openapi(title=app.title, version=app.version, description=app.description,
                      routes=app.routes, tags=app.openapi_tags)
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            if isinstance(op, dict) and "responses" in op:
                fix_operation(path, method, op)
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    for unused in ("HTTPValidationError", "ValidationError"):
        schemas.pop(unused, None)
    schemas.update(_schemas())
    add_links(doc)
    seen: set[str] = set()
    for item in doc.get("paths", {}).values():
        for op in item.values():
            if isinstance(op, dict) and "requestBody" in op:
                declare_plain_text(op["requestBody"], schemas, seen)
    return doc


def install_openapi(app: FastAPI) -> None:
    """Serve :func:`build`'s document at /openapi.json (made once, on first request)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
