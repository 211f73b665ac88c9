"""A deliberately simple, slow Fang Qi reference, written from ``docs/rules/fangqi.md`` alone.

It shares no code with ``envs.fangqi``: the board is a dict of point names, shapes are found by
walking the grid, and moves are notation strings. Tests compare the engine with it move by move
(legal move sets and successor positions) and use it to confirm perft counts.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

FILES = "abcdef"
POINTS = [f + str(r) for r in range(1, 7) for f in FILES]  # a1, b1, ..., f6


def xy(point: str) -> tuple[int, int]:
    return FILES.index(point[0]), int(point[1]) - 1


def name(x: int, y: int) -> str:
    return FILES[x] + str(y + 1)


def on_board(x: int, y: int) -> bool:
    return 0 <= x < 6 and 0 <= y < 6


def neighbours(point: str) -> list[str]:
    x, y = xy(point)
    return [
        name(x + dx, y + dy)
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
        if on_board(x + dx, y + dy)
    ]


CELLS = [
    [name(x, y), name(x + 1, y), name(x, y + 1), name(x + 1, y + 1)]
    for x in range(5)
    for y in range(5)
]
LONG_DIAGONALS = [[name(i, i) for i in range(6)], [name(i, 5 - i) for i in range(6)]]
INNER_LINES = [[name(x, y) for x in range(6)] for y in range(1, 5)] + [
    [name(x, y) for y in range(6)] for x in range(1, 5)
]


def value_formed(board: dict[str, str], colour: str, point: str) -> int:
    """Sum of the values of all shapes of ``colour`` containing ``point``."""
    mine = {p for p, c in board.items() if c == colour}
    total = 0
    for cell in CELLS:
        if point in cell and all(p in mine for p in cell):
            total += 1
    for diag in LONG_DIAGONALS:
        if point not in diag:
            continue
        if all(p in mine for p in diag):
            total += 4
            continue
        for line in (diag, diag[::-1]):
            run = []
            for p in line:
                if p not in mine:
                    break
                run.append(p)
            if len(run) >= 3 and point in run:
                total += {3: 1, 4: 2, 5: 3}[len(run)]
    for line in INNER_LINES:
        if point in line and all(p in mine for p in line):
            total += 3
    return total


def is_iron(board: dict[str, str], point: str) -> bool:
    colour = board[point]
    return any(point in cell and all(board.get(p) == colour for p in cell) for cell in CELLS)


def other(colour: str) -> str:
    return "W" if colour == "B" else "B"


@dataclass
class RefState:
    board: dict[str, str]
    phase: str  # place, pull, step, capture, room, over
    to_play: str  # "B" or "W"
    owed: int = 0
    hand: dict[str, int] = field(default_factory=lambda: {"B": 30, "W": 30})
    no_capture: int = 0
    seen: list[tuple[str, str]] = field(default_factory=list)  # positions about to step
    result: str | None = None  # "B", "W", "draw"


def board_text(board: dict[str, str]) -> str:
    return "".join(board.get(p, ".") for p in POINTS)


def has_step(board: dict[str, str], colour: str) -> bool:
    return any(c == colour and any(q not in board for q in neighbours(p)) for p, c in board.items())


def loose_pieces(board: dict[str, str], colour: str) -> list[str]:
    return [p for p, c in board.items() if c == colour and not is_iron(board, p)]


def legal_moves(s: RefState) -> set[str]:
    b, me = s.board, s.to_play
    if s.phase == "place":
        return {p for p in POINTS if p not in b}
    if s.phase == "step":
        return {f"{p}-{q}" for p, c in b.items() if c == me for q in neighbours(p) if q not in b}
    if s.phase == "capture":
        return {"x" + p for p in loose_pieces(b, other(me))}
    if s.phase == "pull":
        choices = loose_pieces(b, "W") or [p for p, c in b.items() if c == "W"]
        return {"x" + p for p in choices}
    if s.phase == "room":
        mine_loose = loose_pieces(b, me)
        giving = [p for p in mine_loose if any(b.get(q) == other(me) for q in neighbours(p))]
        choices = giving or mine_loose or [p for p, c in b.items() if c == me]
        return {"x" + p for p in choices}
    return set()


def play(s: RefState, move: str) -> RefState:
    if move not in legal_moves(s):
        raise ValueError(f"reference: {move} not legal")
    s = copy.deepcopy(s)
    me, b = s.to_play, s.board
    if s.phase == "place":
        b[move] = me
        s.hand[me] -= 1
        if len(b) == 36:
            s.phase, s.to_play, s.owed = "pull", "B", 0
            return s
        was_extra = s.owed > 0
        s.owed = (s.owed - 1 if was_extra else 0) + value_formed(b, me, move)
        if s.owed > 0 and s.hand[me] > 0:
            return s
        s.owed = 0
        if s.hand[other(me)] > 0:
            s.to_play = other(me)
        return s
    if s.phase == "pull":
        del b[move[1:]]
        return turn_over(s, "B")
    if s.phase == "step":
        src, dst = move.split("-")
        del b[src]
        b[dst] = me
        s.no_capture += 1
        value = value_formed(b, me, dst)
        if value and loose_pieces(b, other(me)):
            s.phase, s.owed = "capture", value
            return s
        return turn_over(s, me)
    if s.phase == "capture":
        del b[move[1:]]
        s.no_capture = 0
        if not any(c == other(me) for c in b.values()):
            s.phase, s.result, s.owed = "over", me, 0
            return s
        s.owed -= 1
        if s.owed and loose_pieces(b, other(me)):
            return s
        s.owed = 0
        return turn_over(s, me)
    if s.phase == "room":
        del b[move[1:]]
        if not any(c == me for c in b.values()):
            s.phase, s.result = "over", other(me)
            return s
        nxt = other(me) if has_step(b, other(me)) else me
        return about_to_step(s, nxt)
    raise ValueError("reference: game over")


def turn_over(s: RefState, mover: str) -> RefState:
    if has_step(s.board, other(mover)):
        return about_to_step(s, other(mover))
    s.phase, s.to_play, s.owed = "room", mover, 0
    return s


def about_to_step(s: RefState, side: str) -> RefState:
    s.phase, s.to_play, s.owed = "step", side, 0
    position = (board_text(s.board), side)
    s.seen.append(position)
    if s.no_capture >= 60 or s.seen.count(position) >= 3:
        s.phase, s.result = "over", "draw"
    return s


def from_engine_json(data: dict) -> RefState:
    """A reference state from the engine's JSON (history is rebuilt from the hex keys)."""
    board = {POINTS[i]: ch for i, ch in enumerate(data["board"]) if ch != "."}
    seen = []
    for key_hex in data.get("history", []):
        key = int(key_hex, 16)
        text = "".join(
            "B" if key >> i & 1 else "W" if key >> (36 + i) & 1 else "." for i in range(36)
        )
        seen.append((text, "W" if key >> 72 else "B"))
    result = {"black": "B", "white": "W", "draw": "draw", None: None}[data.get("result")]
    return RefState(
        board=board,
        phase=data["phase"],
        to_play="B" if data["to_play"] == "black" else "W",
        owed=data.get("owed", 0),
        hand={"B": data["hand"]["black"], "W": data["hand"]["white"]},
        no_capture=data.get("no_capture", 0),
        seen=seen,
        result=result,
    )


def summary(s: RefState) -> tuple:
    """What the engine's JSON must agree with (everything but ply and the key encoding)."""
    return (
        board_text(s.board),
        s.phase,
        s.to_play,
        s.owed,
        s.hand["B"],
        s.hand["W"],
        s.no_capture,
        s.result,
    )


def perft(s: RefState, depth: int) -> int:
    """Leaf count of the move tree to ``depth`` (a game that ends early counts as one leaf)."""
    if depth == 0 or s.phase == "over":
        return 1
    return sum(perft(play(s, m), depth - 1) for m in legal_moves(s))
