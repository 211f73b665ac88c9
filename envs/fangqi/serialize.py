"""Fang Qi states as JSON and as ASCII diagrams, with the checks that keep bad data out.

JSON (what ``to_json`` writes and ``from_json`` reads)::

    {"board": "B.W...",          # 36 characters '.', 'B', 'W' for a1, b1, ..., f1, a2, ..., f6
     "phase": "place",           # place | pull | step | capture | room | over
     "to_play": "black",         # who acts next (in phase over: who would have)
     "owed": 0,                  # extra placements (place) or captures (capture) still owed
     "hand": {"black": 30, "white": 30},
     "no_capture": 0,            # movement turns since the last capture
     "history": ["1a2b..."],     # hex keys of the positions seen since the last removal
     "ply": 0,
     "result": null}             # null | "black" | "white" | "draw"

Only ``board``, ``phase`` and ``to_play`` are required; ``hand`` defaults to 30 minus the
pieces on the board. A diagram is six rows of ``. B W`` from rank 6 down to rank 1, each
optionally prefixed by its rank number, with an optional ``a b c d e f`` footer::

    6 . . . . . .
    5 . B B . . .
    4 . B B . . .
    3 . . . W . .
    2 . . . . . .
    1 W . . . . .
      a b c d e f
"""

from __future__ import annotations

from typing import Any

from envs.core import InvalidState
from envs.fangqi.board import ALL, NUM_POINTS, POINT_NAMES, SIZE, can_step
from envs.fangqi.rules import loose
from envs.fangqi.state import (
    BLACK,
    CAPTURE,
    DRAW,
    NO_CAPTURE_LIMIT,
    ONGOING,
    OVER,
    PHASE_NAMES,
    PIECES_PER_SIDE,
    PLACE,
    PLAYER_NAMES,
    PULL,
    REPETITIONS_FOR_DRAW,
    RESULT_NAMES,
    ROOM,
    STEP,
    WHITE,
    FangQiState,
    position_key,
)

_SYMBOL = {".": None, "B": BLACK, "W": WHITE}
_MAX_KEY = 1 << (2 * NUM_POINTS + 1)


def board_string(black: int, white: int) -> str:
    return "".join(
        "B" if black >> p & 1 else "W" if white >> p & 1 else "." for p in range(NUM_POINTS)
    )


def parse_board_string(text: Any) -> tuple[int, int]:
    """(black, white) bitboards of a 36-character board string (a1..f1, a2..f2, ...)."""
    if not isinstance(text, str) or len(text) != NUM_POINTS or set(text) - set(_SYMBOL):
        raise InvalidState(
            "board must be 36 characters from '.BW', points a1..f1, a2..f2, ..., a6..f6"
        )
    black = sum(1 << p for p, ch in enumerate(text) if ch == "B")
    white = sum(1 << p for p, ch in enumerate(text) if ch == "W")
    return black, white


def parse_diagram(diagram: str) -> str:
    """The 36-character board string of an ASCII diagram (rank 6 on top)."""
    if not isinstance(diagram, str):
        raise InvalidState("a diagram is a string of six rows of '. B W'")
    rows = []
    for line in diagram.strip().splitlines():
        cells = line.replace(" ", "")
        if not cells or cells == "abcdef":
            continue
        if cells[0].isdigit():
            cells = cells[1:]
        if len(cells) != SIZE or set(cells) - set(_SYMBOL):
            raise InvalidState(f"bad diagram row {line!r}: expected six of '. B W'")
        rows.append(cells)
    if len(rows) != SIZE:
        raise InvalidState(f"a diagram has {SIZE} rows, got {len(rows)}")
    return "".join(reversed(rows))


def _int(data: dict, name: str, default: int, high: int | None = None) -> int:
    value = data.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidState(f"{name} must be a non-negative integer, got {value!r}")
    if high is not None and value > high:
        raise InvalidState(f"{name} must be at most {high}, got {value}")
    return value


def to_json(state: FangQiState) -> dict[str, Any]:
    return {
        "board": board_string(state.black, state.white),
        "phase": PHASE_NAMES[state.phase],
        "to_play": PLAYER_NAMES[state.to_play],
        "owed": state.owed,
        "hand": {"black": state.hand_black, "white": state.hand_white},
        "no_capture": state.no_capture,
        "history": [format(k, "x") for k in state.history],
        "ply": state.ply,
        "result": RESULT_NAMES[state.result],
    }


def from_json(data: Any) -> FangQiState:
    """Rebuild and check a state; InvalidState names what is wrong."""
    if not isinstance(data, dict):
        raise InvalidState("a Fang Qi state is a JSON object")
    missing = {"board", "phase", "to_play"} - set(data)
    if missing:
        raise InvalidState(f"Fang Qi state lacks {sorted(missing)}")
    black, white = parse_board_string(data["board"])
    if data["phase"] not in PHASE_NAMES:
        raise InvalidState(f"phase must be one of {list(PHASE_NAMES)}, got {data['phase']!r}")
    phase = PHASE_NAMES.index(data["phase"])
    if data["to_play"] not in PLAYER_NAMES:
        raise InvalidState(f"to_play must be one of {list(PLAYER_NAMES)}")
    player = PLAYER_NAMES.index(data["to_play"])
    counts = (black.bit_count(), white.bit_count())
    if max(counts) > PIECES_PER_SIDE:
        raise InvalidState(f"a side has at most {PIECES_PER_SIDE} pieces")
    hand_data = data.get("hand", {})
    if not isinstance(hand_data, dict) or set(hand_data) - set(PLAYER_NAMES):
        raise InvalidState("hand must be an object like {'black': 30, 'white': 30}")
    hands = [
        _int(hand_data, name, PIECES_PER_SIDE - counts[i], PIECES_PER_SIDE - counts[i])
        for i, name in enumerate(PLAYER_NAMES)
    ]
    owed = _int(data, "owed", 0)
    no_capture = _int(data, "no_capture", 0)
    ply = _int(data, "ply", 0)
    history_data = data.get("history", [])
    if not isinstance(history_data, list):
        raise InvalidState("history must be a list of hex position keys")
    history = []
    for item in history_data:
        try:
            key = int(item, 16) if isinstance(item, str) and item[:2].lower() != "0x" else -1
        except ValueError:
            key = -1
        if not 0 <= key < _MAX_KEY or (key & ALL) & ((key >> NUM_POINTS) & ALL):
            raise InvalidState(f"bad position key {item!r} in history")
        history.append(key)
    result_name = data.get("result")
    if result_name not in RESULT_NAMES.values():
        raise InvalidState("result must be null, 'black', 'white' or 'draw'")
    result = next(k for k, v in RESULT_NAMES.items() if v == result_name)
    if (result == ONGOING) != (phase != OVER):
        raise InvalidState("result must be set exactly when phase is 'over'")
    state = FangQiState(
        black=black,
        white=white,
        phase=phase,
        to_play=player,
        owed=owed,
        hand_black=hands[0],
        hand_white=hands[1],
        no_capture=no_capture,
        history=tuple(history),
        ply=ply,
        result=result,
    )
    _check(state, counts)
    return state


def _check(state: FangQiState, counts: tuple[int, int]) -> None:
    """Refuse positions the rules can never produce in the given phase."""
    phase, player = state.phase, state.to_play
    black, white = state.black, state.white
    full = black | white == ALL
    own, opp = state.pieces(player), state.pieces(1 - player)
    empty = ALL & ~(black | white)
    if phase != PLACE and (state.owed and phase != CAPTURE):
        raise InvalidState("owed must be 0 outside the placement and capture phases")
    if phase == PLACE:
        if full:
            raise InvalidState("the board is full: the phase is 'pull', not 'place'")
        if state.hand_black + counts[0] != PIECES_PER_SIDE or (
            state.hand_white + counts[1] != PIECES_PER_SIDE
        ):
            raise InvalidState("during placement, pieces on the board plus in hand make 30")
        if not state.hand(player):
            raise InvalidState(f"{PLAYER_NAMES[player]} has no pieces in hand to place")
        if state.history or state.no_capture:
            raise InvalidState("history and no_capture are empty during placement")
        return
    if phase == PULL:
        if not full or player != BLACK:
            raise InvalidState("the pull comes with a full board, Black to play")
        return
    if full:
        raise InvalidState("after the pull the board always has an empty point")
    if phase == OVER:
        _check_result(state)
        return
    if not own or not opp:
        raise InvalidState("a side without pieces has lost: the phase must be 'over'")
    if state.no_capture > NO_CAPTURE_LIMIT:
        raise InvalidState(f"no_capture is at most {NO_CAPTURE_LIMIT}")
    if phase == STEP:
        if not can_step(own, empty):
            raise InvalidState(f"{PLAYER_NAMES[player]} is to step but has no legal step")
        if not state.history or state.history[-1] != state.key:
            raise InvalidState("in phase 'step' the history ends with the current position")
        if state.no_capture >= NO_CAPTURE_LIMIT or (
            state.history.count(state.key) >= REPETITIONS_FOR_DRAW
        ):
            raise InvalidState("this position is a draw: the phase must be 'over'")
    elif phase == CAPTURE:
        if not state.owed or not loose(opp):
            raise InvalidState("captures are owed only while the enemy has loose pieces")
    elif phase == ROOM:
        if can_step(opp, empty):
            raise InvalidState("making room is owed only when the opponent has no legal step")


def _check_result(state: FangQiState) -> None:
    if state.result == DRAW:
        key = position_key(state.black, state.white, state.to_play)
        if state.no_capture < NO_CAPTURE_LIMIT and state.history.count(key) < REPETITIONS_FOR_DRAW:
            raise InvalidState("a draw needs 60 turns without a capture or a threefold repetition")
    elif state.pieces(1 - state.result):
        raise InvalidState("a side wins only when the other has no pieces left")


def render(state: FangQiState) -> str:
    """The board (rank 6 on top) and a line saying who acts and what is owed."""
    text = board_string(state.black, state.white)
    rows = [
        f"{r + 1} " + " ".join(text[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE - 1, -1, -1)
    ]
    rows.append("  " + " ".join("abcdef"))
    if state.phase == OVER:
        status = "draw" if state.result == DRAW else f"{PLAYER_NAMES[state.result]} wins"
    else:
        who = PLAYER_NAMES[state.to_play]
        status = {
            PLACE: f"{who} to place" + (f" ({state.owed} extra owed)" if state.owed else ""),
            PULL: "black to pull a white piece",
            STEP: f"{who} to step",
            CAPTURE: f"{who} to capture ({state.owed} owed)",
            ROOM: f"{who} to make room",
        }[state.phase]
    hands = f"in hand: black {state.hand_black}, white {state.hand_white}"
    return "\n".join(rows + [f"{status}; {hands}; no capture for {state.no_capture} turns"])


__all__ = ["to_json", "from_json", "parse_diagram", "render", "POINT_NAMES"]
