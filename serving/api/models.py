"""Request and response models (FastAPI's Base / Create / Public families), with examples.

Requests refuse unknown fields, so a typo in a client is an error, not a silent default, and
refuse text that cannot be stored or repeated (lone surrogates, control characters) or input
nested too deep, wherever it is in the body (:mod:`serving.text`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    model_validator,
)
from pydantic_core import PydanticCustomError

from serving.clocks import MAX_MAIN_TIME, MAX_PERIOD_SECONDS, MAX_PERIODS
from serving.text import first_problem

# The largest integer every JSON reader holds exactly (a double's 53 bits): bounds beyond it
# are not the same number in every client and schema tool.
JSON_SAFE_INT = 2**53 - 1


def _whole(value: Any) -> Any:
    """JSON Schema's ``integer`` includes ``3.0``: take it as 3 (never ``true``, ``"3"``, 3.5)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


WholeInt = Annotated[StrictInt, BeforeValidator(_whole)]

ConfigValue = StrictBool | StrictInt | StrictFloat | StrictStr
GameConfig = dict[str, ConfigValue]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _plain_text(cls, data: Any) -> Any:
        """Refuse the whole body at the first string no field could take (see serving.text)."""
        found = first_problem(data)
        if found is not None:
            where, why = found
            raise PydanticCustomError("bad_text", "{where} {why}", {"where": where, "why": why})
        return data


# ---------------------------------------------------------------------------- positions
class PositionBase(_Request):
    config: GameConfig = Field(default_factory=dict, description="game options (defaults apply)")
    moves: list[str | dict[str, Any]] = Field(
        default_factory=list,
        description="moves so far, in notation (TriGolden also takes its JSON move objects)",
    )


class PositionCreate(PositionBase):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"config": {}, "moves": ["a1-a2", "b3-b2"]}]},
    )


class ResultPublic(BaseModel):
    returns: dict[str, float] = Field(description="per side, +1 win, -1 loss, 0 draw")
    winner: str | None
    reason: str
    score: dict[str, float] | None = None


class FactPublic(BaseModel):
    key: str = Field(description="label key, looked up in the client's tables or the game's labels")
    args: dict[str, Any] = Field(
        description="values for the label: plain, or {seat: name}, {label: key}, "
        "{seats: {name: value}} to be shown in the page's language"
    )


class PositionPublic(BaseModel):
    to_play: str | None = Field(description="side to move (lower case), null when over")
    legal_moves: list[str]
    is_over: bool
    result: ResultPublic | None
    score: dict[str, float] | None = Field(None, description="running score, where scored")
    state: dict[str, Any] = Field(description="the state as the engine's JSON")
    text: str = Field(description="a plain-text picture of the position")
    drawing: dict[str, Any] = Field(description="extra drawing data (TriGolden: polygons)")
    board: dict[str, Any] = Field(
        description="how to draw the position: its kind (grid, text, or a game's own) and the "
        "kind's data (a grid's rows, columns, cells and click mode; docs/adding_a_game.md)"
    )
    facts: list[FactPublic] = Field(
        description="what to show about the position besides whose turn it is, as labels"
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "to_play": "south",
                    "legal_moves": ["a1-a2", "b1-b2"],
                    "is_over": False,
                    "result": None,
                    "score": None,
                    "state": {"board": "SSS..XNNN", "to_play": "south"},
                    "text": "3 N N N\n2 . . X\n1 S S S\n  a b c",
                    "drawing": {},
                    "board": {"kind": "jiugong"},
                    "facts": [{"key": "state.jiugong.locked", "args": {}}],
                }
            ]
        }
    )


# ---------------------------------------------------------------------------- suggestions
class SuggestCreate(PositionBase):
    level: str | None = Field(None, description="level id or label; default level if omitted")
    seed: WholeInt | None = Field(None, ge=0, le=JSON_SAFE_INT,
                                   description="for reproducible picks")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"config": {}, "moves": ["a1-a2"], "seed": 7}]},
    )


class TopMove(BaseModel):
    move: str
    probability: float


class SuggestionPublic(BaseModel):
    move: str
    value: float | None = Field(description="value for the side to move in [-1, 1], if known")
    top: list[TopMove]
    level: str
    seconds: float = Field(description="time the search took")

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "move": "b1-b2",
                    "value": 0.12,
                    "top": [{"move": "b1-b2", "probability": 0.7}],
                    "level": "3",
                    "seconds": 0.05,
                }
            ]
        }
    )


# ---------------------------------------------------------------------------- reviews
class ReviewCreate(PositionBase):
    level: str | None = Field(
        None, max_length=64,
        description="level id or label whose network and search judge the game; default: "
        "the strongest level")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"config": {}, "moves": ["a1-a2", "b3-b2"]}]},
    )


class MistakePublic(BaseModel):
    ply: int = Field(description="0-based index of the move in the move list")
    player: int = Field(description="the seat that moved (index in the game's seats)")
    move: str = Field(description="the move played")
    preferred: str = Field(description="the move the level's search preferred there")
    loss: float = Field(description="how much the value fell for that player (> 0)")


class ReviewPublic(BaseModel):
    level: str = Field(description="the level that judged the game")
    seconds: float = Field(description="time the review took to compute")
    values: list[float] = Field(
        description="the level's value of the position before any move, then after each "
        "move (len(moves) + 1), from the first seat's view, in [-1, 1]; a finished game's "
        "last value is its real result")
    mistakes: list[MistakePublic] = Field(
        description="at most 3 per seat, grouped by seat, biggest loss first within each")

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "level": "5",
                    "seconds": 0.4,
                    "values": [0.0, 0.1, 0.9, -1.0],
                    "mistakes": [{"ply": 1, "player": 1, "move": "b3-b2",
                                  "preferred": "c3-c2", "loss": 0.8}],
                }
            ]
        }
    )

# ---------------------------------------------------------------------------- analysis
class AnalysisCreate(PositionBase):
    level: str | None = Field(None, description="level id or label; default level if omitted")
    visits: WholeInt | None = Field(
        None, ge=0, le=JSON_SAFE_INT,
        description="simulations to spend; default: the level's own (at most the service's "
        "analysis_max_visits: above it, 422)")
    seconds: StrictFloat | WholeInt | None = Field(
        None, gt=0, le=JSON_SAFE_INT,
        description="time budget in seconds; default and upper bound: the service's "
        "analysis_max_seconds (above it, 422)")
    interval: StrictFloat | WholeInt = Field(
        0.5, ge=0.05, le=3600, description="seconds between partial results of a stream")
    stream: StrictBool = Field(
        False, description="true: NDJSON, one result per interval, the last one final")
    top: WholeInt = Field(5, ge=1, le=20, description="root moves listed")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [
            {"config": {}, "moves": ["a1-a2"], "visits": 200, "stream": True, "interval": 0.5}]},
    )


class AnalysisMove(BaseModel):
    move: str
    visits: int = Field(description="simulations through this move")
    value: float | None = Field(description="its mean value for the side to move, in [-1, 1]; "
                                "null before any visit")
    prior: float = Field(description="the network's prior probability")
    pv: list[str] = Field(description="principal variation, starting with the move")


class AnalysisPublic(BaseModel):
    """One report of an analysis (a stream sends one per interval, the last one final)."""

    id: str = Field(description="the analysis; DELETE /v1/analyses/{id} stops it")
    final: bool
    level: str
    visits: int = Field(description="root visits so far")
    seconds: float = Field(description="since the search started")
    value: float = Field(description="the position's value for the side to move, in [-1, 1]")
    moves: list[AnalysisMove] = Field(description="best first: most visits, then value")
    score_lead: float | None = Field(
        description="Go: the expected margin in points for the side to move; else null")
    ownership: dict[str, float] | None = Field(
        description="Go: every point (its move string) -> -1..1, +1 owned by the side to "
        "move; else null")

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "id": "3f2a9c", "final": True, "level": "5", "visits": 200, "seconds": 0.4,
        "value": 0.35, "moves": [{"move": "E5", "visits": 120, "value": 0.37, "prior": 0.3,
                                  "pv": ["E5", "C4", "F3"]}],
        "score_lead": 4.5, "ownership": {"A1": -0.2, "E5": 0.9}}]})


# ---------------------------------------------------------------------------- catalogue
class OptionPublic(BaseModel):
    name: str
    type: str
    default: Any
    choices: list[Any] | None
    help: str


class GamePublic(BaseModel):
    id: str
    name: str
    players: list[str]
    options: list[OptionPublic]
    variants: dict[str, list[Any]] = Field(description="options with a fixed set of choices")
    num_actions: int
    max_length: int
    board_kind: str = Field(description="the kind of board the position is drawn on (grid...)")
    labels: dict[str, dict[str, str]] = Field(
        description="the game's own texts per language (name, seats, facts), for clients"
    )
    sessions: dict[str, Any] = Field(description="session features: timer, confirm, resign...")


class LevelLadderPublic(BaseModel):
    """A level as a ladder player (Stereo Go): docs/ladder.md, "AI players"."""

    player: str = Field(description="its ladder player id")
    measured: bool = Field(description="the ladder bench measured its starting points for "
                           "this network and search; an unmeasured level is not offered by "
                           "the matching")
    rank: str | None = Field(description="its rank now (e.g. 12K); null while unmeasured")
    points: int | None = Field(description="its ladder points now; null while unmeasured")


class LevelPublic(BaseModel):
    id: str
    label: str
    elo: float | None
    elo_ci: list[float] | None = Field(description="95% interval of the Elo")
    games: int | None
    source: str
    ladder: LevelLadderPublic | None = Field(
        default=None, description="the level as a ladder player (Stereo Go with AI players "
        "on the ladder), else null")


class LevelVariantPublic(BaseModel):
    key: str = Field(description="options key, the folder checkpoints/<game>/<key>/")
    options: dict[str, Any] = Field(description="the game options these levels play")
    default: str | None
    levels: list[LevelPublic]


class LevelsPublic(BaseModel):
    game: str
    default: str | None
    levels: list[LevelPublic] = Field(description="levels for the game's default options")
    variants: list[LevelVariantPublic] = Field(
        default_factory=list, description="levels trained for other options"
    )

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "game": "jiugong",
                    "default": "2",
                    "levels": [
                        {"id": "1", "label": "beginner", "elo": 210.0,
                         "elo_ci": [150.0, 270.0], "games": 240, "source": "levels.json"},
                        {"id": "2", "label": "strong", "elo": 640.5,
                         "elo_ci": [560.0, 720.0], "games": 240, "source": "levels.json"},
                    ],
                    "variants": [],
                }
            ]
        }
    )


class HealthPublic(BaseModel):
    status: Literal["ok"]
    games: list[str]
    database: str
    ai: dict[str, Any]
    replica: dict[str, Any] = Field(
        description="this replica as a lease holder: its id, the sessions it drives now "
        "(leases held) and the AI moves it committed since it started"
    )


# ---------------------------------------------------------------------------- sessions
class SeatBase(_Request):
    type: Literal["human", "ai"] = "human"
    level: str | None = Field(None, max_length=64, description="AI level (default if omitted)")


class ClockCreate(_Request):
    """Main time + byo-yomi (Stereo Go); a missing field takes the game's default."""

    main_time: StrictFloat | None = Field(
        None, ge=0, le=MAX_MAIN_TIME, description="seconds of main time per side (default 600)"
    )
    periods: WholeInt | None = Field(
        None, ge=0, le=MAX_PERIODS, description="byo-yomi periods per side (default 3)"
    )
    period_seconds: StrictFloat | None = Field(
        None, gt=0, le=MAX_PERIOD_SECONDS, description="seconds of one period (default 30)"
    )

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"main_time": 600, "periods": 3, "period_seconds": 30}]},
    )


class SessionCreate(_Request):
    game: str = Field(max_length=64)
    config: GameConfig = Field(default_factory=dict)
    seats: dict[str, SeatBase] = Field(
        default_factory=dict, description="by side name; missing seats are human"
    )
    turn_seconds: float | None = Field(
        None,
        gt=0,
        le=86400,
        description="seconds per turn; omit for the game's default, null = none",
    )
    clock: ClockCreate | None = Field(
        None,
        description="main time + byo-yomi (Stereo Go); omit for the game's default "
        "(Stereo Go: 600 s + 3 x 30 s), null = none",
    )
    confirm_turns: bool | None = Field(None, description="turns stay provisional until confirm")
    match_games: int = Field(1, ge=1, le=2, description="games in a match (TriGolden: 2)")

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "game": "jiugong",
                    "seats": {
                        "south": {"type": "human"},
                        "north": {"type": "ai"},
                    },
                },
                {
                    "game": "stereo_go",
                    "config": {"board": "9x9"},
                    "clock": {"main_time": 300, "periods": 5, "period_seconds": 20},
                },
            ]
        },
    )


class SessionPublic(BaseModel):
    id: str
    game: str
    config: dict[str, Any]
    version: int
    status: str = Field(description="playing, scoring (Go, after two passes) or over")
    seats: dict[str, Any]
    moves: list[str] = Field(description="moves of the game in progress")
    events: list[dict[str, Any]] = Field(description="moves and time-outs of the game in progress")
    pending: list[str] = Field(description="provisional moves not yet confirmed")
    turn_complete: bool
    confirm_turns: bool
    position: PositionPublic
    timer: dict[str, Any] = Field(
        description="turn_seconds, turn_started, deadline and remaining of the running side; "
        "clock: main time + byo-yomi per seat (main_left, periods_left, period_left, running, "
        "deadline) or null"
    )
    match: dict[str, Any]
    scoring: dict[str, Any] | None = Field(
        description="scoring phase (Go): the dead-stone marks, who accepted them, and the "
        "chains the server proposes as dead (a heuristic; they count only once marked)"
    )
    draw_offer: dict[str, Any] | None = Field(
        None, description="the draw offer of this turn: by, to, status (open or declined)"
    )
    result: dict[str, Any] | None
    ladder: dict[str, Any] | None = Field(
        None, description="a ladder game: its id, kind (rated or friendly), the players by "
        "colour, handicap, the players' presence by seat (present, disconnections, "
        "absent_since, loses_at); once over, the outcome (void, or results, points and ranks; "
        "kind 'unrated' with 'why' for a rated game against an AI level that repeated one of "
        "the pair's last two games)"
    )
    ai_thinking: bool
    ai_error: str | None
    created: float
    updated: float


class SessionCreated(BaseModel):
    session: SessionPublic
    owner_token: str = Field(description="acts for every seat (one shared screen)")
    seat_tokens: dict[str, str] = Field(description="one per seat, for remote play")

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "session": {"id": "3q2Yd3x4Zq7Qm1f6cW0bLw", "game": "jiugong", "version": 1,
                                "status": "playing", "moves": [], "...": "see SessionPublic"},
                    "owner_token": "Wc1n3o1YH1m0p7m3lq8kQ0m1sM5b9jV8m1rZ2w8q3cE",
                    "seat_tokens": {"south": "Hq...", "north": "p0..."},
                }
            ]
        }
    )


class VersionBase(_Request):
    version: WholeInt = Field(ge=0, le=JSON_SAFE_INT,
                               description="the session version you last saw")

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"version": 4}]})


class MoveCreate(VersionBase):
    move: str | dict[str, Any] = Field(
        description="in notation (TriGolden also takes its JSON move objects)"
    )

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"move": "b1-b2", "version": 1}]}
    )


class SeatUpdate(VersionBase):
    type: Literal["human", "ai"]
    level: str | None = Field(None, max_length=64)

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"type": "ai", "level": "random", "version": 3}]},
    )


class ResumeCreate(VersionBase):
    """Resume play in the scoring phase (Go); the body is the version only."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"version": 9}]})


class DeadStonesUpdate(VersionBase):
    dead: list[str] = Field(max_length=400, description="one point of each dead chain")

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"dead": ["D4", "Q16"], "version": 9}]}
    )


class ResignCreate(VersionBase):
    seat: str | None = Field(None, max_length=64, description="defaults to the token's seat")

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"version": 12, "seat": "black"}]}
    )
