"""Request and response models of the ranking ladder (players, leaderboard, queue), with
examples. Requests refuse unknown fields, like every other request of the API."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool
from pydantic_core import PydanticCustomError

from serving.api.models import ClockCreate, WholeInt, _Request
from serving.ladder import names

_PLAYER_EXAMPLE = {
    "id": "q3Zt8KfLm0aB", "name": "Lin", "kind": "human", "ai": None, "rank": "14K",
    "rank_index": 4,
    "points": 4200, "rank_from": 4000, "next_rank_at": 5000, "points_per_game": 200,
    "wins": 23, "losses": 2, "draws": 0,
}
_GAME_EXAMPLE = {
    "game": "Fh2kQ0aZ9xYw3sT1", "session": "3q2Yd3x4Zq7Qm1f6cW0bLw", "kind": "rated",
    "rated": True, "unrated_reason": None, "status": "done", "colour": "black", "handicap": 0,
    "opponent": {"id": "ai-board-9x9_rules-area-3", "name": "AI club \u00b7 9\u00d79, area",
                 "kind": "ai", "ai": {"label": "club", "options": {"board": "9x9",
                                                                    "rules": "area"}}},
    "result": "win", "reason": "resignation", "moves": 87,
    "points": {"before": 4000, "after": 4200, "change": 200},
    "ranks": {"before": "14K", "after": "14K"},
    "started": 1767225600.0, "ended": 1767227400.0,
    "options": {"board": "9x9", "rules": "area", "handicap": False,
                "clock": {"main_time": 600.0, "periods": 3, "period_seconds": 30.0}},
}


# Printable and not all blank (the rest of the rules: serving.ladder.names).
NAME_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*\S[^\x00-\x1f\x7f-\x9f]*$"


def _name(text: str) -> str:
    try:
        return names.normalize(text)
    except names.BadName as exc:
        raise PydanticCustomError("bad_name", str(exc)) from None


# ---------------------------------------------------------------------------- players
class PlayerCreate(_Request):
    name: Annotated[str, AfterValidator(_name)] = Field(
        min_length=1, max_length=names.MAX_NAME_CHARS, pattern=NAME_PATTERN,
        description="shown on the leaderboard, stored Unicode-normalized (NFKC, spaces "
        "trimmed and collapsed); unique regardless of case; no control, format (zero-width, "
        "bidi) or unassigned characters; none that reads as an AI level's ('AI ...') or the "
        "administrator's, look-alike letters included")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"name": "Lin"}]})


class AIName(BaseModel):
    """An AI player's name in parts, so that a client writes it in its own language."""

    label: str = Field(description="the level's label ('master'; 'Random', 'MCTS 32' for the "
                                   "baselines)")
    options: dict[str, Any] | None = Field(
        description="the options its levels were trained for, in reading order: board and "
                    "rules, then any other option that differs from the defaults (e.g. "
                    "max_moves); null for a baseline level, which plays any options")

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"label": "master", "options": {"board": "9x9", "rules": "area"}}]})


_AI_DOC = ("an AI player's name in parts (null for a person); `name` is the same in English: "
           "'AI master · 9×9, area'")


class PlayerSummary(BaseModel):
    id: str
    name: str
    kind: Literal["human", "ai"] = Field(description="a person, or an AI level of the service")
    ai: AIName | None = Field(None, description=_AI_DOC)
    rank: str = Field(description="18K … 1K, 1D … 9D, Super 9D (read off the points)")
    rank_index: int = Field(description="0 = 18K … 27 = Super 9D")
    points: int
    rank_from: int = Field(description="the rank's first point")
    next_rank_at: int | None = Field(description="points where the next rank starts (null: "
                                                 "Super 9D, the top)")
    points_per_game: int = Field(description="what a rated win adds and a loss takes at this "
                                             "rank")
    wins: int = Field(description="rated games won")
    losses: int = Field(description="rated games lost")
    draws: int = Field(description="rated games drawn (no points change)")

    model_config = ConfigDict(json_schema_extra={"examples": [_PLAYER_EXAMPLE]})


class OpponentPublic(BaseModel):
    id: str
    name: str
    kind: Literal["human", "ai"]
    ai: AIName | None = Field(None, description=_AI_DOC)


class LadderGamePublic(BaseModel):
    game: str = Field(description="the ladder game's id")
    session: str = Field(description="the session to play or replay it (GET /v1/sessions/{id})")
    kind: Literal["rated", "friendly", "unrated"] = Field(
        description="friendly: the players' ranks were two or more apart when it started; "
                    "unrated: a rated game against an AI level that repeated one of the "
                    "pair's last two games (the same first 20 plies and winner)")
    rated: bool = Field(description="whether the game counts for points (kind 'rated')")
    unrated_reason: str | None = Field(
        None, description="why a game of kind 'unrated' is not rated, e.g. 'repeats game "
                          "<id>: the same first 20 plies and winner'")
    status: Literal["playing", "done"]
    colour: Literal["black", "white"] = Field(description="this player's colour")
    handicap: int = Field(description="handicap stones (White passes its first N moves)")
    opponent: OpponentPublic | None
    result: Literal["win", "loss", "draw", "friendly"] | None = Field(
        description="this player's result; a friendly game shows 'friendly' instead; null "
                    "while it is played")
    reason: str | None = Field(description="resignation, time, score, rules (move cap), "
                                           "agreement (draw)")
    moves: int | None
    points: dict[str, int | None] = Field(description="before, after and change for this "
                                                      "player")
    ranks: dict[str, str | None] = Field(description="before and after")
    started: float
    ended: float | None
    options: dict[str, Any] = Field(description="board, rules, clock, handicap asked for")

    model_config = ConfigDict(json_schema_extra={"examples": [_GAME_EXAMPLE]})


class PlayerPublic(PlayerSummary):
    rated_games: int
    friendly_games: int
    membership_points: int = Field(description="points granted by the administrator")
    level: dict[str, Any] | None = Field(description="an AI player's level: key (level "
                                                     "table), id, options it plays")
    created: float
    playing: list[LadderGamePublic] = Field(description="ladder games being played")
    games: list[LadderGamePublic] = Field(description="the latest recorded games (20), newest "
                                                      "first; invalid games leave no record")
    games_total: int

    model_config = ConfigDict(json_schema_extra={"examples": [{
        **_PLAYER_EXAMPLE, "rated_games": 25, "friendly_games": 1, "membership_points": 0,
        "level": None, "created": 1767225000.0, "playing": [], "games": [_GAME_EXAMPLE],
        "games_total": 26}]})


class PlayerCreated(BaseModel):
    player: PlayerPublic
    token: str = Field(description="the player's API token (shown once): 'Authorization: "
                                   "Bearer <token>' on every write, including moves in their "
                                   "ladder games")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "player": {**_PLAYER_EXAMPLE, "...": "see PlayerPublic"},
        "token": "Wc1n3o1YH1m0p7m3lq8kQ0m1sM5b9jV8m1rZ2w8q3cE"}]})


class GamesPage(BaseModel):
    total: int
    offset: int
    limit: int
    games: list[LadderGamePublic]


class GrantCreate(_Request):
    yuan: WholeInt = Field(gt=0, le=1_000_000, description="the recorded amount; 1 yuan = "
                                                            "1,000 points, capped at 518,000")
    note: str = Field("", max_length=200, description="why (kept with the grant); no control "
                      "characters")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"yuan": 68, "note": "membership, receipt 2026-0117"}]})


# ---------------------------------------------------------------------------- ladder
class LeaderboardEntry(PlayerSummary):
    position: int


class LeaderboardPublic(BaseModel):
    total: int
    offset: int
    limit: int
    players: list[LeaderboardEntry]
    you: LeaderboardEntry | None = Field(
        None, description="the entry of the player asked for with `player`, wherever the page "
                          "is (null without `player`, or an AI level when `include_ai` is "
                          "false)")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "total": 1, "offset": 0, "limit": 20, "players": [{"position": 1, **_PLAYER_EXAMPLE}],
        "you": {"position": 1, **_PLAYER_EXAMPLE}}]})


class RankPublic(BaseModel):
    rank: str
    index: int
    points_from: int
    points_to: int | None = Field(description="exclusive; null for Super 9D")
    points_per_game: int


class QueueCreate(_Request):
    board: str = Field("cylinder", max_length=16,
                       description="'cylinder' (the Stereo Go board) or a plain 'NxN' board")
    rules: Literal["territory", "area"] = Field("territory", description="scoring rules")
    clock: ClockCreate | None = Field(
        None, description="main time + byo-yomi; omit for the default (600 s + 3 x 30 s); "
                          "a ladder game always has a clock")
    handicap: StrictBool = Field(
        False, description="play a handicap game when the opponent's rank differs: the weaker "
                           "side takes Black, White passes one move per rank of difference; "
                           "only players who asked the same are paired")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {}, {"board": "9x9", "rules": "area", "clock": {"main_time": 300}, "handicap": True}]})


class QueueEntryPublic(BaseModel):
    options: dict[str, Any]
    since: float
    waited: float = Field(description="seconds in the queue so far")


class QueueGamePublic(BaseModel):
    game: str
    session: str = Field(description="play it: GET /v1/sessions/{id}, moves with your token")
    colour: Literal["black", "white"]
    opponent: str = Field(description="the opponent's player id (GET /v1/players/{id})")
    handicap: int
    options: dict[str, Any]


class QueueState(BaseModel):
    status: Literal["idle", "waiting", "playing"] = Field(
        description="waiting in the queue, playing a rated game, or neither")
    entry: QueueEntryPublic | None
    game: QueueGamePublic | None = Field(description="the rated game being played")

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"status": "waiting", "game": None,
         "entry": {"options": {"board": "cylinder", "rules": "territory", "handicap": False,
                               "clock": {"main_time": 600.0, "periods": 3,
                                         "period_seconds": 30.0}},
                   "since": 1767225600.0, "waited": 4.2}},
        {"status": "playing", "entry": None,
         "game": {"game": "Fh2kQ0aZ9xYw3sT1", "session": "3q2Yd3x4Zq7Qm1f6cW0bLw",
                  "colour": "white", "opponent": "q3Zt8KfLm0aB", "handicap": 0,
                  "options": {"board": "cylinder", "rules": "territory", "handicap": False,
                              "clock": {"main_time": 600.0, "periods": 3,
                                        "period_seconds": 30.0}}}},
    ]})


class ChallengeCreate(QueueCreate):
    opponent: str = Field(max_length=64, description="the challenged player's id")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"opponent": "q3Zt8KfLm0aB", "board": "9x9"}]})


class ChallengePublic(BaseModel):
    id: str
    challenger: str = Field(description="player id of who sent it")
    opponent: str = Field(description="player id of who may accept it")
    options: dict[str, Any]
    status: Literal["open", "accepted", "declined", "withdrawn"]
    created: float
    session: str | None = Field(description="the game, once accepted")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "Kq8fT1bZ0cWx", "challenger": "q3Zt8KfLm0aB", "opponent": "Zp0aL2mN8rTy",
        "options": {"board": "9x9", "rules": "territory", "handicap": False,
                    "clock": {"main_time": 600.0, "periods": 3, "period_seconds": 30.0}},
        "status": "accepted", "created": 1767225600.0,
        "session": "3q2Yd3x4Zq7Qm1f6cW0bLw"}]})
