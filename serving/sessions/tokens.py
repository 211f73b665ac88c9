"""Who may act on a session: its owner token and seat tokens.

The owner token acts for every seat (one shared screen); a seat token only for its seat.
Tokens are 256 random bits; only their SHA-256 is stored, and every write checks them in
constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from serving.db import SessionData
from serving.errors import Forbidden, Unauthorized


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    return secrets.token_urlsafe(32)  # 256 random bits


def authenticate(data: SessionData, token: str | None) -> None:
    """Raise 401 unless ``token`` is one of the session's (its owner's or a seat's).

    Every write calls this before it looks at anything else (the version, the state): who
    has no token of the session learns nothing about it from the answer."""
    if not token:
        raise Unauthorized("this action needs a token: 'Authorization: Bearer <token>'")
    h = hash_token(token)
    known = [data.owner_hash, *data.seat_hashes.values()]
    if not any([hmac.compare_digest(h, k) for k in known]):  # a list: compare them all
        raise Unauthorized("unknown token for this session")


def authorize(data: SessionData, token: str | None, seat: str) -> None:
    """Raise unless ``token`` may act for ``seat`` (401: none or unknown, 403: another seat's)."""
    if not token:
        raise Unauthorized("this action needs a token: 'Authorization: Bearer <token>'")
    h = hash_token(token)
    if hmac.compare_digest(h, data.owner_hash):
        return
    for s, sh in data.seat_hashes.items():
        if hmac.compare_digest(h, sh):
            if s == seat:
                return
            raise Forbidden(f"this token is for seat {s!r}; it cannot act for {seat!r}")
    raise Unauthorized("unknown token for this session")


def token_seat(data: SessionData, token: str | None) -> str | None:
    """The seat a seat token belongs to (None for the owner token or an unknown one)."""
    if not token:
        return None
    h = hash_token(token)
    for s, sh in data.seat_hashes.items():
        if hmac.compare_digest(h, sh):
            return s
    return None
