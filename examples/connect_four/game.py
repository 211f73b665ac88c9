"""Connect Four on the Game protocol: 7 columns x 6 rows, discs dropped into a column.

Rules: red moves first; a disc dropped into a column that is not full falls to the lowest
empty cell; four discs of one colour in a row (across, up or diagonally) win; a full board
with no such row is a draw. Notation: a move is its column's letter, ``a`` to ``g``; cells are
named like ``d1`` (column, row from the bottom).

The worked example of docs/adding_a_game.md: a state, the array level (a 7-action space, two
observation planes, the mirror symmetry), the notation level, JSON, and a grid board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.boards import fact, grid_board
from envs.core import Game, GameSpec, IllegalMove, InvalidState

COLS, ROWS, LINE = 7, 6, 4
FILES = "abcdefg"
PLAYER_NAMES = ("red", "yellow")
EMPTY = -1


def _lines() -> list[tuple[int, ...]]:
    """Every run of four cells (cell = row * COLS + col, row 0 at the bottom)."""
    out = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(LINE)]
                if all(0 <= rr < ROWS and 0 <= cc < COLS for rr, cc in cells):
                    out.append(tuple(rr * COLS + cc for rr, cc in cells))
    return out


LINES = _lines()
LINES_THROUGH = [[line for line in LINES if cell in line] for cell in range(ROWS * COLS)]


@dataclass(frozen=True)
class ConnectFourConfig:
    """No options: the class exists so every game is configured the same way."""


@dataclass(frozen=True)
class ConnectFourState:
    """``cells``: 42 entries, row 0 (the bottom) first, each a player index or EMPTY."""

    cells: tuple[int, ...]
    to_play: int
    last: int  # the cell of the last disc, -1 at the start
    winner: int  # the player with four in a row, -1 if none (yet)

    @property
    def full(self) -> bool:
        return EMPTY not in self.cells[(ROWS - 1) * COLS :]


def _landing_row(cells: tuple[int, ...], col: int) -> int | None:
    for r in range(ROWS):
        if cells[r * COLS + col] == EMPTY:
            return r
    return None


def _wins(cells: tuple[int, ...], cell: int) -> bool:
    who = cells[cell]
    return any(all(cells[c] == who for c in line) for line in LINES_THROUGH[cell])


class ConnectFour(Game[ConnectFourState]):
    """Connect Four (7 x 6) on the Game protocol."""

    Config = ConnectFourConfig

    _SPEC = GameSpec(
        id="connect_four",
        name="Connect Four",
        player_names=PLAYER_NAMES,
        num_actions=COLS,
        observation_shape=(2, ROWS, COLS),
        max_length=ROWS * COLS,
        num_symmetries=2,
    )

    #: Its name, seats, status fact and rules dialog (how to play, rules, notation).
    labels = {
        "en": {
            "game.connect_four": "Connect Four",
            "game.connect_four.other": "四子棋",
            "seat.red": "red",
            "seat.yellow": "yellow",
            "state.connect_four.discs": "{n} of {total} discs played",
            "rules.connect_four.how": "Tap any cell of a column to drop a disc into it.\n"
            "The dot marks the last disc played.",
            "rules.connect_four.rules": "The board stands upright: 7 columns, 6 rows.\n"
            "Red moves first; the players take turns dropping one disc into a column that is "
            "not full, where it falls to the lowest empty cell.\n"
            "Four discs of one colour in a line, across, up or diagonally, win.\n"
            "A full board without such a line is a draw.",
            "rules.connect_four.notation": "Columns are a–g (left to right), rows 1–6 (bottom "
            "to top). A move is the column's letter: d.",
        },
        "zh": {
            "game.connect_four": "四子棋",
            "game.connect_four.other": "Connect Four",
            "seat.red": "红方",
            "seat.yellow": "黄方",
            "state.connect_four.discs": "已下 {n} / {total} 枚棋子",
            "rules.connect_four.how": "点某一列的任意格子，就把一枚棋子投进这一列。\n"
            "圆点标出刚下的那枚棋子。",
            "rules.connect_four.rules": "棋盘竖立：7 列 6 行。\n"
            "红方先下；双方轮流把一枚棋子投进未满的一列，棋子落到这一列最低的空格。\n"
            "同色四子连成一线（横、竖或斜）即胜。\n"
            "棋盘下满仍无人连成四子，判为和棋。",
            "rules.connect_four.notation": "列为 a–g（从左到右），行为 1–6（从下到上）。"
            "一步棋写作列的字母：d。",
        },
    }

    @property
    def spec(self) -> GameSpec:
        return self._SPEC

    # ------------------------------------------------------------ array level
    def initial_state(self) -> ConnectFourState:
        return ConnectFourState((EMPTY,) * (ROWS * COLS), 0, -1, -1)

    def to_play(self, state: ConnectFourState) -> int:
        return state.to_play

    def is_terminal(self, state: ConnectFourState) -> bool:
        return state.winner >= 0 or state.full

    def legal_mask(self, state: ConnectFourState) -> np.ndarray:
        if self.is_terminal(state):
            return np.zeros(COLS, dtype=bool)
        top = np.asarray(state.cells[(ROWS - 1) * COLS :])
        return top == EMPTY

    def apply(self, state: ConnectFourState, action: int) -> ConnectFourState:
        col = self.check_action(state, action)
        cell = _landing_row(state.cells, col) * COLS + col
        cells = list(state.cells)
        cells[cell] = state.to_play
        cells_t = tuple(cells)
        winner = state.to_play if _wins(cells_t, cell) else -1
        return ConnectFourState(cells_t, 1 - state.to_play, cell, winner)

    def returns(self, state: ConnectFourState) -> np.ndarray:
        out = np.zeros(2, dtype=np.float32)
        if state.winner >= 0:
            out[state.winner], out[1 - state.winner] = 1.0, -1.0
        return out

    def observation(self, state: ConnectFourState) -> np.ndarray:
        """Planes: the mover's discs, the opponent's (rows from the bottom)."""
        cells = np.asarray(state.cells).reshape(ROWS, COLS)
        obs = np.zeros((2, ROWS, COLS), dtype=np.float32)
        obs[0] = cells == state.to_play
        obs[1] = cells == 1 - state.to_play
        return obs

    def apply_symmetry(
        self, index: int, observation: np.ndarray, policy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Index 1 mirrors the board left to right: the columns, and the actions with them."""
        observation, policy = super().apply_symmetry(index, observation, policy)
        if index == 0:
            return observation, policy
        return observation[..., ::-1].copy(), policy[::-1].copy()

    # ------------------------------------------------------------ notation level
    def action_to_move(self, state: ConnectFourState, action: int) -> str:
        if not 0 <= int(action) < COLS:
            raise IllegalMove(action, f"action index out of range 0..{COLS - 1}")
        return FILES[int(action)]

    def move_to_action(self, state: ConnectFourState, move: str) -> int:
        if not isinstance(move, str) or len(move.strip()) != 1 or move.strip() not in FILES:
            raise IllegalMove(move, f"a move is a column letter, {FILES[0]} to {FILES[-1]}")
        col = FILES.index(move.strip())
        if self.is_terminal(state):
            raise IllegalMove(move, "the game is over")
        if _landing_row(state.cells, col) is None:
            raise IllegalMove(move, f"column {move.strip()} is full")
        return col

    # ------------------------------------------------------------ serialization
    def to_json(self, state: ConnectFourState) -> dict[str, Any]:
        """``rows``: one string per row from the top, ``R`` red, ``Y`` yellow, ``.`` empty."""
        symbols = {EMPTY: ".", 0: "R", 1: "Y"}
        rows = ["".join(symbols[state.cells[r * COLS + c]] for c in range(COLS))
                for r in reversed(range(ROWS))]
        return {
            "rows": rows,
            "to_play": PLAYER_NAMES[state.to_play],
            "last": None if state.last < 0 else _cell_name(state.last),
        }

    def from_json(self, data: Any) -> ConnectFourState:
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise InvalidState("a Connect Four state is an object with 'rows' (6 strings)")
        rows = data["rows"]
        if len(rows) != ROWS or not all(isinstance(r, str) and len(r) == COLS for r in rows):
            raise InvalidState(f"'rows' must be {ROWS} strings of {COLS} characters")
        values = {".": EMPTY, "R": 0, "Y": 1}
        try:
            cells = tuple(values[rows[ROWS - 1 - r][c]] for r in range(ROWS) for c in range(COLS))
        except KeyError as exc:
            raise InvalidState(f"unknown cell {exc.args[0]!r}: use R, Y or .") from None
        for c in range(COLS):
            column = [cells[r * COLS + c] for r in range(ROWS)]
            if EMPTY in column and any(v != EMPTY for v in column[column.index(EMPTY):]):
                raise InvalidState(f"column {FILES[c]} has a disc above an empty cell")
        reds, yellows = cells.count(0), cells.count(1)
        if reds - yellows not in (0, 1):
            raise InvalidState(f"{reds} red and {yellows} yellow discs: red moves first")
        to_play = 0 if reds == yellows else 1
        if data.get("to_play", PLAYER_NAMES[to_play]) != PLAYER_NAMES[to_play]:
            raise InvalidState(f"with these discs {PLAYER_NAMES[to_play]} is to play")
        last = _parse_cell(data.get("last"), cells, 1 - to_play)
        winners = {cells[line[0]] for line in LINES
                   if cells[line[0]] != EMPTY and all(cells[i] == cells[line[0]] for i in line)}
        if len(winners) > 1:
            raise InvalidState("both sides have four in a row")
        return ConnectFourState(cells, to_play, last, winners.pop() if winners else -1)

    def render(self, state: ConnectFourState) -> str:
        rows = self.to_json(state)["rows"]
        lines = [f"{ROWS - i} " + " ".join(row) for i, row in enumerate(rows)]
        return "\n".join([*lines, "  " + " ".join(FILES)])

    # ------------------------------------------------------------ for people
    def board_view(self, state: ConnectFourState) -> dict[str, Any]:
        """A grid clicked by column: a click anywhere in a column drops a disc there."""
        cells = [[None if (v := state.cells[r * COLS + c]) == EMPTY else v for c in range(COLS)]
                 for r in reversed(range(ROWS))]
        highlight = [] if state.last < 0 else [_cell_name(state.last)]
        return grid_board(cells, FILES, [str(r) for r in range(ROWS, 0, -1)],
                          click="column", highlight=highlight)

    def status_facts(self, state: ConnectFourState) -> list[dict[str, Any]]:
        played = ROWS * COLS - state.cells.count(EMPTY)
        return [fact("state.connect_four.discs", n=played, total=ROWS * COLS)]


def _cell_name(cell: int) -> str:
    return f"{FILES[cell % COLS]}{cell // COLS + 1}"


def _parse_cell(name: Any, cells: tuple[int, ...], owner: int) -> int:
    """The last disc's cell from its name (None before the first move)."""
    if name is None:
        if any(v != EMPTY for v in cells):
            raise InvalidState("'last' (the last disc's cell) is missing")
        return -1
    if (not isinstance(name, str) or len(name) != 2 or name[0] not in FILES
            or not "1" <= name[1] <= str(ROWS)):
        raise InvalidState(f"'last' must name a cell a1..g6, got {name!r}")
    cell = (int(name[1]) - 1) * COLS + FILES.index(name[0])
    if cells[cell] != owner:
        raise InvalidState(f"the last disc, on {name}, must be {PLAYER_NAMES[owner]}")
    return cell
