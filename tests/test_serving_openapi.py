"""The published OpenAPI document says what is served (serving/api/openapi.py), OPTIONS and 405
answers list every method of a path (serving/api/methods.py), and every token route checks the
token before anything else (serving/sessions/manager.py, the ladder's routes)."""

from __future__ import annotations

import pytest
from ladder_helpers import register
from serving_helpers import auth, client_for

from serving.api.openapi import ErrorPublic, ValidationErrorPublic

ERROR_REF = "#/components/schemas/ErrorPublic"
VALIDATION_REF = "#/components/schemas/ValidationErrorPublic"


@pytest.fixture()
def client(tmp_path):
    with client_for(tmp_path, ladder_match_seconds=3600, timer_poll_seconds=3600) as c:
        yield c


def operations(doc):
    for path, item in doc["paths"].items():
        for method, op in item.items():
            yield path, method, op


def test_every_error_response_declares_the_real_error_body(client):
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    assert len(list(operations(doc))) >= 34
    for path, method, op in operations(doc):
        where = f"{method.upper()} {path}"
        responses = op["responses"]
        errors = {status: r for status, r in responses.items() if status[0] in "45"}
        for status, response in errors.items():
            schema = response["content"]["application/json"]["schema"]
            refs = [s["$ref"] for s in schema.get("anyOf", [schema])]
            assert ERROR_REF in refs, (where, status)
            assert (VALIDATION_REF in refs) == (status == "422"), (where, status)
        if "requestBody" in op:
            assert {"400", "413", "422"} <= set(responses), where
        if any(p["in"] == "path" for p in op.get("parameters", [])):
            assert "404" in responses, where
        if op.get("security") and {} not in op["security"]:  # {}: the token is optional
            assert "401" in responses, where


def test_the_error_bodies_served_fit_the_declared_models(client):
    r = client.get("/v1/ladder/leaderboard", params={"offset": -1})
    assert r.status_code == 422
    body = ValidationErrorPublic.model_validate(r.json())
    assert body.detail.problems[0].where == "query.offset"
    r = client.post("/v1/games/jiugong/positions", content=b'{"moves": ["\xff"]}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and ErrorPublic.model_validate(r.json()).error == "invalid_body"
    r = client.post("/v1/games/jiugong/positions", json={"moves": ["a1-a2", "a1-a2"]})
    assert r.status_code == 422 and ErrorPublic.model_validate(r.json()).detail["index"] == 1


def test_request_strings_declare_what_they_cannot_hold(client):
    """The body check (serving/text.py) is in the document: strings and free-form keys carry
    the pattern that refuses control characters."""
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    move = schemas["MoveCreate"]["properties"]["move"]["anyOf"]
    assert move[0]["pattern"] == move[1]["propertyNames"]["pattern"]
    assert "\\x00-\\x1f" in move[0]["pattern"]
    assert "pattern" in schemas["GrantCreate"]["properties"]["note"]


def test_options_and_405_list_every_method_of_the_path(client):
    doc = client.get("/openapi.json").json()
    for path, item in doc["paths"].items():
        url = path.replace("{answer}", "accept").replace("{", "").replace("}", "")
        documented = {m.upper() for m in item} | {"OPTIONS"}
        r = client.options(url)
        assert r.status_code == 204, url
        assert set(r.headers["allow"].split(", ")) == documented, url
        other = next(m for m in ("PATCH", "PUT", "DELETE", "POST") if m not in documented)
        r = client.request(other, url)
        assert r.status_code == 405 and set(r.headers["allow"].split(", ")) == documented
        assert r.json()["error"] == "method_not_allowed"
    assert client.options("/v1/ladder/queue").headers["allow"] == "DELETE, GET, OPTIONS, POST"


# ---------------------------------------------------------------------------- auth first
def session_writes(client):
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    for path, method, op in operations(doc):
        if path.startswith("/v1/sessions/{session_id}/") and method in ("post", "put"):
            name = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            example = schemas[name.rsplit("/", 1)[1]]["examples"][0]
            yield path, method, example


def test_a_stale_version_without_a_valid_token_is_401(client):
    """No token, a forged one, or another session's: 401 before the version is looked at
    (the session is at version 1; every request says 0)."""
    s = client.post("/v1/sessions", json={"game": "jiugong"}).json()
    other = client.post("/v1/sessions", json={"game": "jiugong"}).json()
    sid = s["session"]["id"]
    writes = list(session_writes(client))
    assert len(writes) == 11  # moves, confirm, cancel, seats, resign, draws, scoring...
    for path, method, example in writes:
        url = path.format(session_id=sid, seat="south", answer="accept")
        body = {**example, "version": 0}
        for headers in ({}, auth("forged"), auth(other["owner_token"])):
            r = client.request(method.upper(), url, json=body, headers=headers)
            assert r.status_code == 401, (url, headers, r.text)
            assert r.headers["www-authenticate"] == "Bearer"
        r = client.request(method.upper(), url, json=body, headers=auth(s["owner_token"]))
        assert r.status_code == 409, (url, r.text)  # authenticated: now the version speaks
    assert client.get(f"/v1/sessions/{sid}").json()["version"] == 1


def test_a_named_seat_is_checked_before_the_version(client):
    s = client.post("/v1/sessions", json={"game": "jiugong"}).json()
    sid, north = s["session"]["id"], s["seat_tokens"]["north"]
    r = client.put(f"/v1/sessions/{sid}/seats/south", json={"type": "ai", "version": 0},
                   headers=auth(north))
    assert r.status_code == 403
    r = client.post(f"/v1/sessions/{sid}/resign", json={"seat": "south", "version": 0},
                    headers=auth(north))
    assert r.status_code == 403


def test_ladder_routes_authenticate_before_anything_else(client):
    lin = register(client, "Lin")
    for method, url, body in (
        ("POST", "/v1/ladder/queue", {"board": "99x99"}),
        ("POST", "/v1/ladder/challenges", {"opponent": "nobody"}),
        ("POST", "/v1/ladder/challenges/nope/accept", None),
        ("DELETE", "/v1/ladder/challenges/nope", None),
        ("POST", f"/v1/players/{lin['id']}x/grant", {"yuan": 1}),
    ):
        for headers in ({}, auth("forged")):
            r = client.request(method, url, json=body, headers=headers)
            assert r.status_code in (401, 403), (url, headers, r.text)


def test_created_resources_link_to_their_operations(client):
    """A new session's answer links to every operation on it (path, owner token, version)."""
    doc = client.get("/openapi.json").json()
    links = doc["paths"]["/v1/sessions"]["post"]["responses"]["201"]["links"]
    on_session = [op["operationId"] for path, _, op in operations(doc)
                  if path.startswith("/v1/sessions/{session_id}")]
    assert sorted(links) == sorted(on_session) and len(on_session) == 14
    move = next(link for link in links.values() if link["operationId"].startswith("post_move"))
    assert move["parameters"]["path.session_id"] == "$response.body#/session/id"
    assert move["requestBody"] == {"version": "$response.body#/session/version"}
    for source, count in (("/v1/players", 4), ("/v1/ladder/challenges", 2)):
        assert len(doc["paths"][source]["post"]["responses"]["201"]["links"]) == count
