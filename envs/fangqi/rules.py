"""Fang Qi transitions and legal actions: the rules of ``docs/rules/fangqi.md`` as pure functions.

Every function takes a :class:`FangQiState` and returns a new one; nothing is mutated. A turn
that needs several actions by one player (extra placements, captures, making room) is a chain
of states in which ``to_play`` stays the same and ``phase`` says what is owed.

The end-of-turn logic is shared by every phase that can end a movement turn:

* :func:`_end_of_turn` (after a step without captures, after the last capture, after the pull):
  the opponent steps next if it can; otherwise the mover must make room (phase ROOM).
* :func:`_after_room`: the mover loses if it removed its last piece; otherwise the opponent
  steps if it now can, else its turn is skipped and the mover steps again.
* :func:`_about_to_step`: records the position for the repetition rule and applies both draw
  rules; this is the one place a movement turn is "complete".
"""

from __future__ import annotations

from envs.fangqi.board import (
    ALL,
    BIT,
    NOT_FILE_A,
    NOT_FILE_F,
    PLACE_BASE,
    REMOVE_BASE,
    SIZE,
    STEP_BASE,
    STEP_BY_DIRECTION,
    STEPS,
    can_step,
    iron,
    point_actions,
    shape_value,
    step_sources,
)
from envs.fangqi.state import (
    BLACK,
    CAPTURE,
    DRAW,
    NO_CAPTURE_LIMIT,
    ONGOING,
    OVER,
    PLACE,
    PULL,
    REPETITIONS_FOR_DRAW,
    ROOM,
    STEP,
    WHITE,
    FangQiState,
    position_key,
)


def initial_state() -> FangQiState:
    """The empty board, Black to place (project rule: Black opens the placement)."""
    return FangQiState(black=0, white=0, phase=PLACE, to_play=BLACK)


def adjacent(mask: int) -> int:
    """Bitboard of the points next to any point of ``mask``."""
    return (
        (mask << SIZE) | (mask >> SIZE) | ((mask << 1) & NOT_FILE_A) | ((mask >> 1) & NOT_FILE_F)
    ) & ALL


def loose(own: int) -> int:
    """Pieces of ``own`` that are not iron: the ones that may be pulled or captured."""
    return own & ~iron(own)


def room_choices(own: int, opponent: int) -> int:
    """The pieces a side may remove to make room (project rule, in order of preference).

    A loose piece next to an opponent piece (its removal gives the opponent a step), if there
    is one; otherwise any loose piece; otherwise any own piece.
    """
    free = loose(own)
    giving = free & adjacent(opponent)
    return giving or free or own


# ------------------------------------------------------------------------------ legal actions
def legal_actions(state: FangQiState) -> tuple[int, ...]:
    """The legal actions of ``state`` in increasing order (empty when the game is over)."""
    phase = state.phase
    black, white = state.black, state.white
    if phase == PLACE:
        return point_actions(ALL & ~(black | white), False)
    if phase == STEP:
        own = white if state.to_play else black
        empty = ALL & ~(black | white)
        out = []
        for sources, table in zip(step_sources(own, empty), STEP_BY_DIRECTION):
            while sources:
                low = sources & -sources
                out.append(table[low.bit_length() - 1])
                sources ^= low
        out.sort()
        return tuple(out)
    if phase == CAPTURE:
        targets = loose(black if state.to_play else white)
    elif phase == PULL:
        targets = loose(white) or white
    elif phase == ROOM:
        own, opp = (white, black) if state.to_play else (black, white)
        targets = room_choices(own, opp)
    else:
        return ()
    return point_actions(targets, True)


# ------------------------------------------------------------------------------ transitions
def apply_action(state: FangQiState, action: int) -> FangQiState:
    """The state after a legal ``action`` (the caller has checked legality)."""
    phase = state.phase
    if phase == PLACE:
        return _place(state, action - PLACE_BASE)
    if phase == STEP:
        return _step(state, *STEPS[action - STEP_BASE])
    p = action - REMOVE_BASE
    if phase == CAPTURE:
        return _capture(state, p)
    if phase == ROOM:
        return _room(state, p)
    return _pull(state, p)


def time_out(state: FangQiState) -> FangQiState:
    """The state after the side to act runs out of time (sessions only, not the RL env).

    Per the spec's timer rule: no piece is placed or moved and the turn passes to the other
    side; removals still owed by the side that timed out (the pull, captures, making room) are
    made automatically, each time the lowest-numbered legal choice (a1=0, ..., f6=35).
    Decisions (project rules): extra placements still owed are lost; in the placement phase
    the turn stays when the other side has nothing in hand; in the movement phase the other
    side is about to step (a new repetition entry, no movement turn counted), or, if it has no
    legal step, the side that timed out is about to step again. A time-out does not advance
    ``ply`` (which counts actions); automatic removals do, as the actions they are.
    """
    player = state.to_play
    if state.phase == PLACE:
        other_hand = state.hand_white if player == BLACK else state.hand_black
        nxt = 1 - player if other_hand else player
        return _with(state, to_play=nxt, owed=0, ply=state.ply)
    if state.phase == STEP:
        black, white = state.black, state.white
        opp = black if player else white
        nxt = 1 - player if can_step(opp, ALL & ~(black | white)) else player
        new = _about_to_step(state, black, white, nxt, state.no_capture, state.history)
        object.__setattr__(new, "ply", state.ply)  # a fresh state, not yet seen by anyone
        return new
    while state.phase in (PULL, CAPTURE, ROOM) and state.to_play == player:
        state = apply_action(state, legal_actions(state)[0])
    return state


def _with(state: FangQiState, **changes: int | tuple[int, ...]) -> FangQiState:
    """A copy of ``state`` with ``changes`` and one more ply.

    Builds the instance without the dataclass ``__init__`` (which sets each frozen field through
    ``object.__setattr__``): this is the hot path of search, and the fields are already checked.
    """
    d = state.__dict__.copy()
    d["ply"] += 1
    d["result"] = ONGOING
    d["_legal"] = None
    d["_mask"] = None
    d.update(changes)
    new = object.__new__(FangQiState)
    new.__dict__.update(d)
    return new


def _place(state: FangQiState, p: int) -> FangQiState:
    player = state.to_play
    black, white = state.black, state.white
    hand_black, hand_white = state.hand_black, state.hand_white
    if player == BLACK:
        black |= BIT[p]
        hand_black -= 1
        own, own_hand, other_hand = black, hand_black, hand_white
    else:
        white |= BIT[p]
        hand_white -= 1
        own, own_hand, other_hand = white, hand_white, hand_black
    if black | white == ALL:
        # The board is full: placements still owed are lost; Black pulls.
        return _with(
            state,
            black=black,
            white=white,
            hand_black=hand_black,
            hand_white=hand_white,
            phase=PULL,
            to_play=BLACK,
            owed=0,
        )
    owed = max(state.owed - 1, 0) + shape_value(own, p)
    if owed and own_hand:
        nxt = player
    else:
        owed = 0  # owed placements without pieces in hand are lost
        nxt = 1 - player if other_hand else player
    return _with(
        state,
        black=black,
        white=white,
        hand_black=hand_black,
        hand_white=hand_white,
        to_play=nxt,
        owed=owed,
    )


def _pull(state: FangQiState, p: int) -> FangQiState:
    return _end_of_turn(state, state.black, state.white ^ BIT[p], BLACK, state.no_capture, ())


def _step(state: FangQiState, f: int, t: int) -> FangQiState:
    player = state.to_play
    black, white = state.black, state.white
    move = BIT[f] | BIT[t]
    if player == BLACK:
        black ^= move
        own, enemy = black, white
    else:
        white ^= move
        own, enemy = white, black
    no_capture = state.no_capture + 1
    value = shape_value(own, t)
    if value and loose(enemy):
        return _with(
            state, black=black, white=white, phase=CAPTURE, owed=value, no_capture=no_capture
        )
    # No shape, or nothing capturable: any captures formed are lost.
    return _end_of_turn(state, black, white, player, no_capture, state.history)


def _capture(state: FangQiState, p: int) -> FangQiState:
    player = state.to_play
    black, white = state.black, state.white
    if player == BLACK:
        white ^= BIT[p]
        enemy = white
    else:
        black ^= BIT[p]
        enemy = black
    if not enemy:
        return _with(
            state,
            black=black,
            white=white,
            phase=OVER,
            owed=0,
            no_capture=0,
            history=(),
            result=player,
        )
    owed = state.owed - 1
    if owed and loose(enemy):
        return _with(state, black=black, white=white, owed=owed, no_capture=0, history=())
    return _end_of_turn(state, black, white, player, 0, ())


def _room(state: FangQiState, p: int) -> FangQiState:
    player = state.to_play
    black, white = state.black, state.white
    if player == BLACK:
        black ^= BIT[p]
        own, opp = black, white
    else:
        white ^= BIT[p]
        own, opp = white, black
    if not own:
        # Making room with one's last piece loses the game.
        return _with(
            state, black=black, white=white, phase=OVER, owed=0, history=(), result=1 - player
        )
    empty = ALL & ~(black | white)
    nxt = 1 - player if can_step(opp, empty) else player  # else the opponent's turn is skipped
    return _about_to_step(state, black, white, nxt, state.no_capture, ())


def _end_of_turn(
    state: FangQiState,
    black: int,
    white: int,
    mover: int,
    no_capture: int,
    history: tuple[int, ...],
) -> FangQiState:
    opp = black if mover else white
    if can_step(opp, ALL & ~(black | white)):
        return _about_to_step(state, black, white, 1 - mover, no_capture, history)
    return _with(
        state,
        black=black,
        white=white,
        phase=ROOM,
        to_play=mover,
        owed=0,
        no_capture=no_capture,
        history=history,
    )


def _about_to_step(
    state: FangQiState,
    black: int,
    white: int,
    player: int,
    no_capture: int,
    history: tuple[int, ...],
) -> FangQiState:
    key = position_key(black, white, player)
    history = history + (key,)
    draw = no_capture >= NO_CAPTURE_LIMIT or history.count(key) >= REPETITIONS_FOR_DRAW
    return _with(
        state,
        black=black,
        white=white,
        phase=OVER if draw else STEP,
        to_play=player,
        owed=0,
        no_capture=no_capture,
        history=history,
        result=DRAW if draw else ONGOING,
    )


__all__ = [
    "BLACK",
    "WHITE",
    "adjacent",
    "apply_action",
    "initial_state",
    "legal_actions",
    "loose",
    "room_choices",
]
