"""What text a client may send: Unicode scalar values, no control characters, not too deep.

Why one check on every request body, before any field is read: JSON admits escapes that decode
to strings nothing downstream can hold. ``"\\udc00"`` is a lone surrogate, which no UTF-8
encoder takes (the database, and the error body that would repeat it); ``"\\u0000"`` is a NUL,
which PostgreSQL refuses in text while SQLite stores it, so the same request would succeed on
one database and fail with a 500 on the other. No field of the API has a use for control
characters (C0, DEL, C1) either. Refusing all of them up front, with the place they were found,
answers every such input with the same 422 on both databases.

Depth: a move object (TriGolden) is free-form JSON; no legitimate one is nested more than a few
levels, and walking or echoing an input thousands of levels deep only costs.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 32

# Lone surrogates, C0 controls, DEL and C1 controls: never part of a request's text.
_FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def describe_char(ch: str) -> str:
    """A character named so that the message itself stays plain, encodable text."""
    code = ord(ch)
    if 0xD800 <= code <= 0xDFFF:
        return f"a lone surrogate (U+{code:04X}), which is not a character"
    return f"a control character (U+{code:04X})"


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot be taken (its first forbidden character), or None."""
    found = _FORBIDDEN.search(text)
    return None if found is None else f"holds {describe_char(found.group())}"


def first_problem(value: Any, where: str = "", depth: int = 0) -> tuple[str, str] | None:
    """The first place in a decoded JSON value (keys included) whose text cannot be taken, or
    that is nested deeper than :data:`MAX_DEPTH`: ``(where, why)``; None when all is well."""
    if isinstance(value, str):
        why = text_problem(value)
        return None if why is None else (where, why)
    if not isinstance(value, dict | list):
        return None
    if depth >= MAX_DEPTH:
        return where, f"is nested more than {MAX_DEPTH} levels deep"
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        here = f"{where}.{key}" if where else str(key)
        if isinstance(key, str):
            why = text_problem(key)
            if why is not None:
                return f"{where or '(top)'} key", why
        found = first_problem(item, here, depth + 1)
        if found is not None:
            return found
    return None


def printable(value: Any, depth: int = 0) -> Any:
    """``value`` with every string made encodable (lone surrogates written as ``\\udc00``)
    and nothing deeper than :data:`MAX_DEPTH`: what an error body may repeat of an input."""
    if depth > MAX_DEPTH:
        return "..."
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return value.encode("utf-8", "backslashreplace").decode("utf-8")
        return value
    if isinstance(value, dict):
        return {printable(k): printable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable(v, depth + 1) for v in value]
    return value
