"""Every route of the API with inputs no client should send, on SQLite and on PostgreSQL
(``QIZERO_TEST_POSTGRES_URL``): lone surrogates, NUL and other control characters, format
characters, look-alike names, huge and deeply nested bodies, bodies that are not UTF-8 or not
JSON, wrong types, odd path and query values. Nothing may answer 5xx, and every error is the
service's JSON error body.

The routes come from the published OpenAPI document (every operation the service serves); path
parameters are real ids (a session, a player, a challenge) where a made-up one would stop at
404 before the input is read. Each body starts from the route's own documented example, and
each of its values in turn is replaced by every bad value. The inputs are fixed lists: the test
is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest
from fastapi.testclient import TestClient
from serving_helpers import auth, client_for, postgres_schema, settings_for

ADMIN = "admin-token-for-fuzz"

BAD_TEXT = [
    "\udc00", "a\ud800b", "\ud83d", "\x00", "a\x00b", "\x1b[31m", "\x7f", "\x85", "tab\there",
    "\u202eevil", "\u200b", "\ufeff", "\U000e0041", "ΑΙ master", "ＡＩ", "AI\u00a0master",
    "", " ", "x" * 5000,
]
WRONG_TYPES: list[Any] = [None, [], {}, -1, 10**30, 1.5, True, [["deep"]], {"\udc00": 1}]
BAD_PATH = ["%00", "%ED%B0%80", "%FF", "a%0Ab", "x" * 300, "%E2%80%AE"]
BAD_QUERY = ["%00", "%ED%B0%80", "-1", "1e999", "x" * 5000, "%7B%22%5Cu0000%22%3A1%7D",
             "%5B" * 2000 + "%5D" * 2000, "%22%5Cudc00%22"]


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


RAW_BODIES = [
    b"\xff\xfe\x00",                                  # not UTF-8
    b'{"move": "\xed\xb0\x80", "version": 1}',        # a surrogate encoded as "UTF-8"
    b"not json",
    b"null", b"[]", b"1e999", b'"\\udc00"',
    b'{"version": 1e400}',
    b'{"moves": ' + _deep(50_000).encode() + b"}",    # deeper than the JSON reader goes
    b'{"moves": [' + b'{"a": ' * 40 + b"1" + b"}" * 40 + b"]}",  # deeper than allowed
    b'{"version": 1, "\\u0000": 1}',
    b'{"moves": [' + b'"a1-a2",' * 30_000 + b'"a1-a2"]}',  # many moves, under the size limit
    b'{"name": "' + b"x" * 300_000 + b'"}',          # over the size limit
]


@pytest.fixture(params=["sqlite", "postgresql"])
def client(request, tmp_path) -> Iterator[TestClient]:
    with ExitStack() as stack:
        overrides: dict[str, Any] = {}
        if request.param == "postgresql":
            url = request.getfixturevalue("postgres_url")
            overrides["database_url"] = stack.enter_context(postgres_schema(url))
        settings = settings_for(tmp_path, ladder_admin_token=ADMIN, timer_poll_seconds=3600,
                                ladder_match_seconds=3600, **overrides)
        yield stack.enter_context(client_for(tmp_path, settings=settings))


def world(client: TestClient) -> dict[str, Any]:
    """Real ids for the path parameters, and a token for each kind of route."""
    s = client.post("/v1/sessions", json={"game": "jiugong", "turn_seconds": None})
    t = client.post("/v1/sessions", json={"game": "trigolden"})
    lin = client.post("/v1/players", json={"name": "Lin"}).json()
    wu = client.post("/v1/players", json={"name": "Wu"}).json()
    c = client.post("/v1/ladder/challenges", json={"opponent": wu["player"]["id"]},
                    headers=auth(lin["token"]))
    assert s.status_code == t.status_code == c.status_code == 201, (s.text, t.text, c.text)
    return {
        "params": {"game": "jiugong", "session_id": s.json()["session"]["id"], "seat": "south",
                   "answer": "accept", "player_id": lin["player"]["id"],
                   "challenge_id": c.json()["id"],
                   "analysis_id": "0" * 16},  # none running: its DELETE answers 404
        "session_token": s.json()["owner_token"],
        "trigolden": (t.json()["session"]["id"], t.json()["owner_token"]),
        "player_token": lin["token"],
    }


def operations(client: TestClient) -> Iterator[tuple[str, str, dict[str, Any]]]:
    doc = client.get("/openapi.json").json()
    for path, item in doc["paths"].items():
        for method, op in item.items():
            yield path, method.upper(), op


def example_body(client: TestClient, op: dict[str, Any]) -> Any:
    """The route's documented request example (every request model has one)."""
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    name = schema["$ref"].rsplit("/", 1)[1]
    found = client.get("/openapi.json").json()["components"]["schemas"][name]
    return found.get("examples", [{}])[0]


def token_for(path: str, w: dict[str, Any]) -> str:
    if path.endswith("/grant"):
        return ADMIN
    return w["session_token"] if path.startswith("/v1/sessions/") else w["player_token"]


def leaves(value: Any, where: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in an example body a value sits (keys of objects, items of lists)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield (*where, k)
            yield from leaves(v, (*where, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield (*where, i)
            yield from leaves(v, (*where, i))


def replaced(value: Any, where: tuple[Any, ...], new: Any) -> Any:
    copy = json.loads(json.dumps(value))
    target = copy
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = new
    return copy


def check(r: Any, what: str) -> None:
    """No 5xx; an error is the service's JSON error body."""
    what = what[:300]
    assert r.status_code < 500, f"{what}: {r.status_code} {r.text[:300]}"
    if r.status_code >= 400:
        assert r.headers["content-type"].startswith("application/json"), what
        body = r.json()
        assert set(body) == {"error", "message", "detail"}, f"{what}: {body}"
        assert isinstance(body["detail"], dict) and body["message"], what


def send(client: TestClient, method: str, url: str, token: str | None, body: Any = None,
         raw: bytes | None = None) -> Any:
    headers = {"content-type": "application/json", **(auth(token) if token else {})}
    content = raw if raw is not None else (
        None if body is None else json.dumps(body).encode("utf-8", "surrogatepass"))
    return client.request(method, url, content=content, headers=headers)


def test_no_input_gives_a_server_error(client):
    w = world(client)
    fuzzed, reached, ops = 0, set(), 0
    for path, method, op in operations(client):
        ops += 1
        url = path.format(**w["params"])
        stream = path.endswith("/events")  # a valid request would stream until closed
        if not stream:  # junk where the route expects nothing
            check(send(client, method, f"{url}?junk=%00", None, raw=RAW_BODIES[0]), url)
        reached.add((method, path))
        for name in [p["name"] for p in op.get("parameters", []) if p["in"] == "path"]:
            for bad in BAD_PATH:
                bad_url = path.format(**{**w["params"], name: bad})
                check(send(client, method, bad_url, token_for(path, w)),
                      f"{method} {bad_url}")
                fuzzed += 1
        for param in [p for p in op.get("parameters", []) if p["in"] == "query"]:
            for bad in BAD_QUERY if not stream else ["%00", "x", "-1", "1e999"]:
                bad_url = f"{url}?{param['name']}={bad}"
                check(send(client, method, bad_url, token_for(path, w)), f"{method} {bad_url}")
                fuzzed += 1
        if "requestBody" not in op:
            continue
        for token in (token_for(path, w), None, "x" * 5000):
            for raw in RAW_BODIES:
                check(send(client, method, url, token, raw=raw), f"{method} {url} {raw[:40]!r}")
                fuzzed += 1
        example = example_body(client, op)
        for where in leaves(example):
            for bad in [*BAD_TEXT, *WRONG_TYPES]:
                body = replaced(example, where, bad)
                check(send(client, method, url, token_for(path, w), body),
                      f"{method} {url} {body!r:.200}")
                fuzzed += 1
    assert len(reached) == ops >= 34 and fuzzed > 1500


@pytest.mark.parametrize("move", [
    "\udc00", "a\x00", "\u202ea1-a2", {"kind": "\udc00"}, {"kind": "move", "from": "\x00"},
    {"kind": "move", "\udc00": 1}, {"kind": [[[[["deep"]]]]]}, ["a1-a2"], 7,
])
def test_bad_moves_at_the_right_version_are_refused(client, move):
    """The issue's cases at the session's real version (past every other check)."""
    w = world(client)
    for sid, token in ((w["params"]["session_id"], w["session_token"]), w["trigolden"]):
        r = send(client, "POST", f"/v1/sessions/{sid}/moves", token,
                 {"move": move, "version": 1})
        check(r, repr(move))
        assert r.status_code == 422
        assert client.get(f"/v1/sessions/{sid}").json()["version"] == 1
    for game in ("jiugong", "trigolden"):
        for body in ({"moves": [move]}, {"level": move}, {"config": {"x": move}}):
            for route in ("positions", "suggest"):
                if route == "positions" and "level" in body:
                    continue
                r = send(client, "POST", f"/v1/games/{game}/{route}", None, body)
                check(r, f"{route} {body!r}")
                assert r.status_code in (404, 422)


def test_text_is_stored_alike_on_both_databases(client):
    """What a name or a note may hold is decided before the database sees it: a NUL, refused
    on SQLite too, never reaches PostgreSQL (which would refuse it with a 500)."""
    w = world(client)
    for name in ("a\x00b", "a\udc00", "Lin\x85"):
        r = send(client, "POST", "/v1/players", None, {"name": name})
        check(r, repr(name))
        assert r.status_code == 422
    url = f"/v1/players/{w['params']['player_id']}/grant"
    for note in ("a\x00b", "\udc00", "x" * 201, "line\nbreak"):
        r = send(client, "POST", url, ADMIN, {"yuan": 1, "note": note})
        check(r, repr(note))
        assert r.status_code == 422
    r = send(client, "POST", url, ADMIN, {"yuan": 1, "note": "receipt 7 — ok ✓"})
    assert r.status_code == 200, r.text
