"""Live streams of an event-log channel (:mod:`serving.events`) over HTTP: server-sent events,
or NDJSON for a client that accepts ``application/x-ndjson`` (as the lichess board API does).

Every message is one JSON object ``{"id", "kind", "data", "at"}``. In SSE it is the ``data:``
line, its id the ``id:`` line, with no ``event:`` name: an ``EventSource`` gets every kind, new
ones included, in ``onmessage``. Ids increase strictly along a stream; a client that reconnects
with ``Last-Event-ID`` (the header an EventSource sends, or ``?last_event_id=``) gets exactly the
events after that id: nothing missed, nothing repeated (0: from the channel's first event).
Without one, a stream that has a snapshot starts with it (the full state, with the id of the
last event it reflects), one without starts at the next event. A stream may add derived
messages without an id (a session's ``view`` after each burst of events). An idle stream sends
a keep-alive (an SSE comment; an empty NDJSON line). The stream ends once its channel is closed
and read to the end; a reconnection then answers 204, which tells an EventSource to stop.

A route of its own is three lines::

    @router.get("/{player_id}/events", **stream_doc("a player's events", "match_found, ..."))
    async def player_events(player_id: str, stream: StreamDep) -> Response:
        return await stream.open(f"player:{player_id}")
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, Header, Query, Request
from fastapi.responses import Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from serving.errors import BadInput
from serving.events import Event, EventLog, Head

log = logging.getLogger("qizero.serving")

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
RETRY_MS = 2000  # an EventSource reconnects this long after a dropped connection


@dataclass(frozen=True)
class Message:
    """What a stream sends: an event of the log, or a derived message (``id`` None)."""

    id: int | None
    kind: str
    data: Any
    at: float | None = None

    @staticmethod
    def of(ev: Event) -> Message:
        return Message(ev.id, ev.kind, ev.data, ev.at)

    def text(self) -> str:
        return json.dumps({"id": self.id, "kind": self.kind, "data": self.data, "at": self.at})

    def sse(self) -> str:
        return (f"id: {self.id}\n" if self.id is not None else "") + f"data: {self.text()}\n\n"

    def ndjson(self) -> str:
        return self.text() + "\n"


async def follow(
    events: EventLog, channel: str, after: int, keepalive: float
) -> AsyncIterator[list[Event] | None]:
    """The channel's events after id ``after``, in batches as they are committed; None after
    ``keepalive`` seconds without any. Ends when the channel is closed and read to the end, or
    the service stops."""
    with events.wakeups.subscribe(channel) as sub:
        quiet_until = time.monotonic() + keepalive
        while not events.wakeups.closed:
            sub.clear()  # before reading: a commit during the read still wakes the wait below
            head, batch = await run_in_threadpool(events.since, channel, after)
            if batch:
                after = batch[-1].id
                yield batch
                quiet_until = time.monotonic() + keepalive
            elif head.last_id > after:
                after = head.last_id  # trimmed away (a channel closed long ago): nothing to send
            if after < head.last_id:
                continue  # a full batch: read on
            if head.closed is not None:
                return
            if not await sub.wait(quiet_until - time.monotonic()):
                yield None
                quiet_until = time.monotonic() + keepalive


class EventStream:
    """One request for a stream: where it resumes, its format, the event log."""

    def __init__(self, request: Request, after: int | None) -> None:
        self.events: EventLog = request.app.state.events
        self.keepalive: float = request.app.state.settings.event_keepalive_seconds
        self.after = after
        self.ndjson = NDJSON in request.headers.get("accept", "")

    async def open(
        self,
        channel: str,
        snapshot: Callable[[], tuple[int, Any]] | None = None,
        refresh: Callable[[list[Event]], Any] | None = None,
    ) -> Response:
        """The response streaming ``channel``. ``snapshot()`` gives the first message of a new
        stream (the id of the last event it reflects, its data); ``refresh(events)`` the data
        of a ``view`` message sent after each burst of events. Both run in a worker thread."""
        head = await run_in_threadpool(self.events.head, channel)
        after = self.after
        if after is not None and after > head.last_id:
            raise BadInput(
                f"Last-Event-ID {after} is not an event of this stream: its last event is "
                f"{head.last_id}", last_event_id=after, last=head.last_id)
        first = None
        if snapshot is not None and (after is None or await self._gone(channel, after, head)):
            eid, data = await run_in_threadpool(snapshot)
            first, after = Message(eid, "snapshot", data), eid
        elif after is None:
            after = head.last_id
        elif head.closed is not None and after >= head.last_id:
            return Response(status_code=204)  # over and read to the end: an EventSource stops
        return StreamingResponse(
            self._body(channel, after, first, refresh),
            media_type=NDJSON if self.ndjson else SSE,
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
        )

    async def _gone(self, channel: str, after: int, head: Head) -> bool:
        """Whether events after ``after`` were trimmed (the stream restarts from a snapshot)."""
        if after >= head.last_id:
            return False
        _, batch = await run_in_threadpool(self.events.since, channel, after, 1)
        return not batch or batch[0].id != after + 1

    async def _body(
        self,
        channel: str,
        after: int,
        first: Message | None,
        refresh: Callable[[list[Event]], Any] | None,
    ) -> AsyncIterator[str]:
        encode = Message.ndjson if self.ndjson else Message.sse
        if not self.ndjson:
            yield f"retry: {RETRY_MS}\n\n"
        if first is not None:
            yield encode(first)
        async for batch in follow(self.events, channel, after, self.keepalive):
            if batch is None:
                yield "\n" if self.ndjson else ": keep-alive\n\n"
                continue
            yield "".join(encode(Message.of(ev)) for ev in batch)
            if refresh is not None:
                yield encode(Message(None, "view", await run_in_threadpool(refresh, batch)))


def resume_point(
    request: Request,
    last_event_id_header: Annotated[str | None, Header(
        alias="Last-Event-ID",
        description="id of the last event seen: the stream resumes after it (an EventSource "
        "sends it by itself when it reconnects)")] = None,
    last_event_id: Annotated[str | None, Query(
        description="the same as the Last-Event-ID header, for clients that cannot set "
        "headers (the header wins); 0 streams from the first event")] = None,
) -> EventStream:
    """The stream a request asks for (422 for an id that is not a whole number >= 0)."""
    raw = last_event_id_header if last_event_id_header is not None else last_event_id
    after = None
    if raw is not None and raw.strip():  # blank: no id seen yet (what an EventSource may send)
        text = raw.strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 18):
            raise BadInput(
                f"Last-Event-ID must be the id of an event (a whole number >= 0), got {raw[:40]!r}",
                last_event_id=raw[:40])
        after = int(text)
    return EventStream(request, after)


StreamDep = Annotated[EventStream, Depends(resume_point)]

_EXAMPLE_SSE = (
    "retry: 2000\n\n"
    'id: 4\ndata: {"id": 4, "kind": "snapshot", "data": {"id": "…", "version": 5, "...": "…"}, '
    '"at": null}\n\n'
    'id: 5\ndata: {"id": 5, "kind": "move", "data": {"game": 1, "index": 2, "m": "b1-b2", '
    '"seat": "south", "by": "human", "version": 6}, "at": 1718000000.0}\n\n'
    ": keep-alive\n\n"
)


# What a stream sends, as OpenAPI (and schema checkers) read it: each server-sent event is an
# object whose ``data`` is one JSON message (``id`` null for a ``view``, which has no id).
MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["id", "kind", "data", "at"],
    "properties": {"id": {"type": ["integer", "null"]}, "kind": {"type": "string"}, "data": {},
                   "at": {"type": ["number", "null"]}},
}
SSE_EVENT: dict[str, Any] = {
    "type": "object", "required": ["data"],
    "properties": {
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": MESSAGE_SCHEMA},
        "event": {"type": "string"}, "id": {"type": "string"}, "retry": {"type": "integer"},
    },
}


def stream_doc(
    summary: str, description: str, errors: dict[int, str] | None = None
) -> dict[str, Any]:
    """Route keyword arguments for a stream: summary, description, both media types and the
    error statuses (``errors``: more of them, e.g. ``{404: "no such player"}``)."""
    example = _EXAMPLE_SSE
    ndjson_example = "".join(
        line[len("data: "):] + "\n" for line in example.splitlines() if line.startswith("data: "))
    return {
        "summary": summary,
        "description": description,
        "response_class": StreamingResponse,
        "responses": {
            200: {
                "description": "the stream: one JSON message {id, kind, data, at} per event",
                "content": {
                    SSE: {"schema": SSE_EVENT, "example": example},
                    NDJSON: {"schema": {"type": "string"}, "example": ndjson_example},
                },
            },
            204: {"description": "the stream is over and you have read all of it"},
            422: {"description": "Last-Event-ID is not a whole number, or not an event of "
                  "this stream"},
            **{status: {"description": text} for status, text in (errors or {}).items()},
        },
    }
