"""SGF (FF[4]) export and import of Stereo Go game records.

Square boards are standard SGF Go records (``GM[1]``, ``SZ[N]``, points as two letters, column
then row from the top, pass as an empty value). The cylinder uses SGF's rectangular size
``SZ[17:21]`` with a documented extension for the poles:

* columns ``a``..``q`` are meridians ``A``..``Q``; rows ``a``..``u`` are rings ``1``..``21``
  (ring 1, nearest the north pole, is the top row), so ``B[ca]`` is Black on ``C1``;
* the poles lie outside the 17 x 21 grid, in column ``r``: ``ra`` is the north pole ``NP``
  (beside ring 1) and ``ru`` the south pole ``SP`` (beside ring 21);
* the root says so in ``GC[...]`` and carries the private property ``SG[cylinder]`` which an
  importer must see to read ``SZ[17:21]`` as the cylinder.

Handicap: this project's handicap is White's automatic opening passes (``HA[n]``; no setup
stones). Exported records spell those passes out as ``W[]`` nodes so that other programs see
the real move order; the importer accepts them or their absence. ``RU`` is ``Japanese``
(territory) or ``Chinese`` (area). Setup properties (``AB``/``AW``/``AE``) are refused with a
clear error, since positions here always come from the empty board.
"""

from __future__ import annotations

from collections.abc import Sequence

from envs.core import IllegalMove, QizeroError
from envs.stereo_go import kernel as K
from envs.stereo_go.game import StereoGo, StereoGoState

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_CYLINDER_GC = (
    "Stereo Go cylinder: columns a-q = meridians A-Q, rows a-u = rings 1-21; "
    "north pole NP = [ra], south pole SP = [ru]"
)
_TERRITORY_RULES = {"japanese", "korean", "territory"}
_AREA_RULES = {"chinese", "area", "aga", "tromp-taylor", "new zealand", "nz"}


class SgfError(QizeroError):
    """An SGF text that is malformed or not a record this project can replay."""


# ---------------------------------------------------------------------------- coordinates
def point_to_sgf(game: StereoGo, action: int) -> str:
    """SGF coordinates of an action (``""`` for pass)."""
    n = game.n_points
    if action == n:
        return ""
    if game.board.is_cylinder:
        if action == 357:
            return "ra"
        if action == 358:
            return "ru"
        ring, meridian = divmod(action, 17)
        return _LETTERS[meridian] + _LETTERS[ring]
    size = _side(game)
    rank, column = divmod(action, size)
    return _LETTERS[column] + _LETTERS[size - 1 - rank]


def sgf_to_point(game: StereoGo, value: str) -> int:
    """The action of SGF coordinates (``""`` or ``tt`` on boards up to 19 = pass)."""
    n = game.n_points
    if value == "" or (value == "tt" and not game.board.is_cylinder and _side(game) <= 19):
        return n
    if len(value) != 2 or any(c not in _LETTERS for c in value):
        raise SgfError(f"bad SGF point {value!r}: two lower-case letters expected")
    x, y = _LETTERS.index(value[0]), _LETTERS.index(value[1])
    if game.board.is_cylinder:
        if value == "ra":
            return 357
        if value == "ru":
            return 358
        if x < 17 and y < 21:
            return y * 17 + x
        raise SgfError(f"SGF point {value!r} is off the cylinder (poles are [ra] and [ru])")
    size = _side(game)
    if x < size and y < size:
        return (size - 1 - y) * size + x
    raise SgfError(f"SGF point {value!r} is off the {size}x{size} board")


def _side(game: StereoGo) -> int:
    return int(round(game.n_points**0.5))


# ---------------------------------------------------------------------------- export
def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def to_sgf(
    game: StereoGo,
    moves: Sequence[str | int],
    *,
    black: str = "",
    white: str = "",
    result: str | None = None,
) -> str:
    """The SGF record of a game given as its moves from the start (notation or actions).

    The last move may be ``"resign"`` (the side to move resigns). ``result`` defaults to the
    outcome of the replayed game (``B+R``, ``W+3.5``, ... or nothing if unfinished).
    """
    cfg = game.config
    props = ["FF[4]", "GM[1]", "CA[UTF-8]", "AP[qizero]"]
    if game.board.is_cylinder:
        props += ["SZ[17:21]", "SG[cylinder]", f"GC[{_escape(_CYLINDER_GC)}]"]
    else:
        props.append(f"SZ[{_side(game)}]")
    props.append(f"KM[{cfg.komi:g}]")
    props.append("RU[Japanese]" if cfg.rules == "territory" else "RU[Chinese]")
    if cfg.handicap:
        props.append(f"HA[{cfg.handicap}]")
    if black:
        props.append(f"PB[{_escape(black)}]")
    if white:
        props.append(f"PW[{_escape(white)}]")
    state = game.initial_state()
    nodes: list[str] = []
    for i, move in enumerate(moves):
        if isinstance(move, str) and move.strip().lower() == "resign":
            if i != len(moves) - 1:
                raise IllegalMove(move, "resign can only be the last move")
            state = game.resign(state)
            break
        action = game.move_to_action(state, move) if isinstance(move, str) else int(move)
        colour = "BW"[game.to_play(state)]
        auto_pass = colour == "B" and state.handicap_left > 0
        state = game.apply(state, action)
        nodes.append(f";{colour}[{point_to_sgf(game, action)}]")
        if auto_pass:
            nodes.append(";W[]")
    if result is None:
        result = game_result(game, state)
    if result:
        props.append(f"RE[{_escape(result)}]")
    return "(;" + "".join(props) + "".join(nodes) + ")\n"


def game_result(game: StereoGo, state: StereoGoState) -> str:
    """SGF result of a finished game (``B+R``, ``W+0.5``, ``0``), ``""`` while it goes on."""
    if not game.is_terminal(state):
        return ""
    meta = state.meta
    winner = int(meta[K.M_OUTCOME])
    if state.end_reason == "resign":
        return f"{'BW'[winner]}+R"
    margin = int(meta[K.M_SCORE_BLACK]) - int(meta[K.M_SCORE_WHITE]) - game.config.komi
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


# ---------------------------------------------------------------------------- import
def _parse(text: str) -> list[list[tuple[str, list[str]]]]:
    """The main line of the first game tree: a list of nodes, each a list of properties."""
    if not isinstance(text, str):
        raise SgfError("an SGF record is a string")
    i = text.find("(")
    if i < 0:
        raise SgfError("not an SGF record: no '('")
    nodes: list[list[tuple[str, list[str]]]] = []
    n = len(text)
    while i < n:
        c = text[i]
        if c == "(":  # a variation: the first one continues the main line
            i += 1
        elif c == ")":
            break  # end of the main line: the first variation ends here
        elif c == ";":
            i += 1
            node: list[tuple[str, list[str]]] = []
            while True:
                while i < n and text[i].isspace():
                    i += 1
                j = i
                while j < n and text[j].isalpha():
                    j += 1
                if j == i:
                    break
                ident = "".join(ch for ch in text[i:j] if ch.isupper())
                i = j
                values = []
                while True:
                    while i < n and text[i].isspace():
                        i += 1
                    if i >= n or text[i] != "[":
                        break
                    value, i = _value(text, i + 1)
                    values.append(value)
                if not values:
                    raise SgfError(f"SGF property {ident!r} has no value")
                node.append((ident, values))
            nodes.append(node)
        elif c.isspace():
            i += 1
        else:
            raise SgfError(f"unexpected character {c!r} at offset {i}")
    if not nodes:
        raise SgfError("the SGF record has no node")
    return nodes


def _value(text: str, i: int) -> tuple[str, int]:
    out = []
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif c == "]":
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    raise SgfError("unterminated SGF property value")


def from_sgf(text: str, max_moves: int = 0) -> tuple[StereoGo, list[str], StereoGoState]:
    """Replay an SGF record: the game (its config from the root), its moves in notation
    (``"resign"`` last if the side to move resigned) and the final state."""
    nodes = _parse(text)
    root = dict((k, v) for k, v in nodes[0])
    if root.get("GM", ["1"])[0] != "1":
        raise SgfError("not a Go record (GM is not 1)")
    for setup in ("AB", "AW", "AE"):
        if any(setup in dict(node) for node in nodes):
            raise SgfError(
                f"setup property {setup} is not supported: games start from the empty board "
                "and handicap is White's opening passes (HA)"
            )
    size = root.get("SZ", ["19"])[0].strip()
    if size == "17:21":
        if root.get("SG", [""])[0] != "cylinder":
            raise SgfError("SZ[17:21] is read as the cylinder only with SG[cylinder]")
        board = "cylinder"
    elif size.isdigit():
        board = f"{int(size)}x{int(size)}"
    else:
        raise SgfError(f"unsupported board size SZ[{size}]")
    options: dict = {"board": board, "max_moves": max_moves}
    if "KM" in root:
        try:
            options["komi"] = float(root["KM"][0])
        except ValueError as exc:
            raise SgfError(f"bad komi KM[{root['KM'][0]}]") from exc
    rules = root.get("RU", [""])[0].strip().lower()
    if rules in _AREA_RULES:
        options["rules"] = "area"
    elif rules in _TERRITORY_RULES or not rules:
        options["rules"] = "territory"
    else:
        raise SgfError(f"unknown rules RU[{rules}]: use Japanese/Korean or Chinese")
    if "HA" in root:
        try:
            options["handicap"] = int(root["HA"][0])
        except ValueError as exc:
            raise SgfError(f"bad handicap HA[{root['HA'][0]}]") from exc
    try:
        game = StereoGo(StereoGo.Config(**options))
    except (TypeError, ValueError) as exc:
        raise SgfError(f"bad game settings in the SGF root: {exc}") from exc

    state = game.initial_state()
    moves: list[str] = []
    pending_auto_pass = False
    for node in nodes:
        props = dict(node)
        colours = [c for c in ("B", "W") if c in props]
        if not colours:
            continue
        if len(colours) == 2:
            raise SgfError("a node holds both a B and a W move")
        colour = colours[0]
        action = sgf_to_point(game, props[colour][0])
        if pending_auto_pass and colour == "W" and action == game.n_points:
            pending_auto_pass = False  # White's automatic handicap pass, spelled out
            continue
        pending_auto_pass = False
        if game.is_terminal(state):
            raise SgfError(f"move {colour}[{props[colour][0]}] after the end of the game")
        if "BW"[game.to_play(state)] != colour:
            raise SgfError(
                f"move {len(moves) + 1} is {colour}[{props[colour][0]}] but "
                f"{'black' if game.to_play(state) == 0 else 'white'} is to play"
            )
        pending_auto_pass = colour == "B" and state.handicap_left > 0
        try:
            state = game.apply(state, action)
        except IllegalMove as exc:
            raise SgfError(f"move {len(moves) + 1} {colour}[{props[colour][0]}]: {exc}") from exc
        moves.append(game.action_to_move(state, action))
    result = root.get("RE", [""])[0].strip().upper()
    if result.endswith("+R") and not game.is_terminal(state):
        loser = 1 if result.startswith("B") else 0
        if loser == game.to_play(state):
            moves.append("resign")
        state = game.resign(state, loser)
    return game, moves, state
