"""Fang Qi notation (``docs/rules/fangqi.md``): ``c3`` places, ``c3-c4`` steps, ``xc3`` removes.

Parsing explains, in words a player understands, why a well-formed move is not legal here
(wrong phase, occupied point, iron piece, ...), so the service can pass the reason on.
"""

from __future__ import annotations

import re

from envs.core import IllegalMove
from envs.fangqi.board import (
    BIT,
    NEIGHBOURS,
    NUM_ACTIONS,
    POINT_INDEX,
    POINT_NAMES,
    REMOVE_BASE,
    STEP_ACTION,
    STEP_BASE,
    STEPS,
)
from envs.fangqi.rules import legal_actions, loose
from envs.fangqi.state import CAPTURE, OVER, PLACE, PLAYER_NAMES, PULL, ROOM, STEP

_MOVE_RE = re.compile(r"^(x)?([a-f][1-6])(?:-([a-f][1-6]))?$")
_FORMAT = "expected 'c3' (place), 'c3-c4' (step) or 'xc3' (remove), points a1..f6"

_PHASE_HINT = {
    PLACE: "it is the placement phase: place a piece on an empty point, e.g. 'c3'",
    STEP: "it is the movement phase: step a piece to an adjacent empty point, e.g. 'c3-c4'",
    PULL: "Black must pull a White piece first, e.g. 'xd4'",
    CAPTURE: "captures are owed: remove a loose enemy piece, e.g. 'xe5'",
    ROOM: "the opponent cannot move: remove one of your own pieces to make room, e.g. 'xc3'",
}


def action_to_move(action: int) -> str:
    """The notation of an action index (any index of the action space, legal or not)."""
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise IllegalMove(action, f"action index must be an integer in 0..{NUM_ACTIONS - 1}")
    if action < STEP_BASE:
        return POINT_NAMES[action]
    if action < REMOVE_BASE:
        f, t = STEPS[action - STEP_BASE]
        return f"{POINT_NAMES[f]}-{POINT_NAMES[t]}"
    return "x" + POINT_NAMES[action - REMOVE_BASE]


def move_to_action(state, move: object) -> int:  # noqa: ANN001  (state: FangQiState)
    """Parse ``move`` and check it is legal in ``state``; IllegalMove says why not."""
    if not isinstance(move, str):
        raise IllegalMove(move, "a move must be a string like 'c3', 'c3-c4' or 'xc3'")
    text = move.strip().lower()
    m = _MOVE_RE.match(text) if len(text) <= 6 else None
    if m is None or (m.group(1) and m.group(3)):
        raise IllegalMove(move, _FORMAT)
    if state.phase == OVER:
        raise IllegalMove(move, "the game is over")
    p = POINT_INDEX[m.group(2)]
    if m.group(1):
        action = REMOVE_BASE + p
        kind = "remove"
    elif m.group(3):
        t = POINT_INDEX[m.group(3)]
        if t not in NEIGHBOURS[p]:
            raise IllegalMove(move, "a step goes one point horizontally or vertically")
        action = STEP_ACTION[(p, t)]
        kind = "step"
    else:
        action = p
        kind = "place"
    if action in legal_actions(state):
        return action
    raise IllegalMove(move, _reason(state, kind, action))


def _reason(state, kind: str, action: int) -> str:  # noqa: ANN001
    """Why a well-formed move is not legal in ``state``."""
    phase = state.phase
    expected = {PLACE: "place", STEP: "step"}.get(phase, "remove")
    if kind != expected:
        return _PHASE_HINT[phase]
    player = state.to_play
    own, enemy = (state.white, state.black) if player else (state.black, state.white)
    if kind == "place":
        return f"{POINT_NAMES[action]} is occupied"
    if kind == "step":
        f, t = STEPS[action - STEP_BASE]
        if not own & BIT[f]:
            what = "the opponent's" if enemy & BIT[f] else "no"
            return f"there is {what} piece on {POINT_NAMES[f]}; step one of your own"
        return f"{POINT_NAMES[t]} is occupied"
    p = action - REMOVE_BASE
    name = POINT_NAMES[p]
    if phase == PULL:
        if not state.white & BIT[p]:
            return f"the pull removes a White piece, and {name} holds none"
        return f"{name} is iron (in a complete White square); pull a loose piece"
    if phase == CAPTURE:
        if not enemy & BIT[p]:
            return f"there is no {PLAYER_NAMES[1 - player]} piece on {name} to capture"
        return f"{name} is iron (in a complete square) and cannot be captured"
    # ROOM
    if not own & BIT[p]:
        return f"making room removes one of your own pieces, and {name} holds none"
    if loose(own) & BIT[p]:
        return (
            f"removing {name} would not give the opponent a step; remove a loose piece next to "
            "an opponent piece"
        )
    return f"{name} is iron; remove a loose piece"
