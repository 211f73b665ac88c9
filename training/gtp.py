"""GTP (Go Text Protocol, version 2) both ways: a front end for qizero players, and a client.

Why: GTP is how Go programs talk (GoGui, Sabaki, gomill, GNU Go). :class:`GtpEngine` serves any
player of :func:`agents.players.make_player` (``random``, ``mcts:100``, ``level:3``,
``net:PATH[:SIMS[:TEMP]]``) on the Stereo Go engine, so a trained level can play GNU Go or be
used from a GUI; :class:`GtpClient` drives another GTP program, and :func:`play_game` referees a
game between two of them on our own engine (the engine's rules decide legality, the end and
the Tromp-Taylor score).

Boards: a plain ``NxN`` board (5..19) speaks ordinary GTP vertices (``D4``, no ``I``);
``boardsize`` changes it. The cylinder (``--board cylinder``) is fixed (``boardsize`` is
refused) and its vertices are the engine's notation: ``A1``..``Q21`` (17 meridians, the letter
I included), ``NP``, ``SP``.

Decisions:

* ``play`` must be for the side to move (the engine has no same-colour consecutive moves;
  handicap stones are not supported over GTP): otherwise ``? illegal move (... to play)``.
* After the game ended (two passes, or the engine's move cap), ``genmove`` answers ``pass``
  without changing anything and ``play`` is refused (``the game is over``).
* ``komi`` rebuilds the game with the new komi and replays the moves (a multiple of 0.25, the
  engine's limit). ``final_score`` is Tromp-Taylor area scoring (every stone alive) whatever
  the ``rules`` option, as the GTP convention of most tools expects.
* ``undo`` replays all moves but the last.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from envs import make_game
from envs.core import ConfigError, IllegalMove, QizeroError
from training.gtp_analysis import Analyzer, parse_request

PROTOCOL_VERSION = "2"
STREAMING = "<the command prints its own response>"  # a handler's answer: nothing to add
COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
COLOUR_NAMES = ("black", "white")


class GtpError(QizeroError):
    """A GTP command that failed (answered with ``?``) or a peer that broke the protocol."""


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("qizero")
    except Exception:  # noqa: BLE001 (not installed as a package: still answer something)
        return "0"


class GtpEngine:
    """The GTP front end: one game of Stereo Go (or N×N Go) and one qizero player.

    ``handle(line)`` answers one command line (the full GTP response, ``None`` for a blank or
    comment line); ``serve(inp, out)`` runs the loop until ``quit`` or end of input.
    """

    def __init__(
        self,
        player_spec: str,
        board: str = "cylinder",
        komi: float = 7.5,
        rules: str = "area",
        max_moves: int = 0,
        seed: int = 0,
        analysis_visits: int = 1000,
    ) -> None:
        self.options: dict[str, Any] = {
            "board": board, "komi": float(komi), "rules": rules, "max_moves": max_moves,
        }
        self.game = make_game("stereo_go", **self.options)
        from agents.players import make_player

        self.player_spec = player_spec
        self.player = make_player(self.game, player_spec, seed)
        self.rng = np.random.default_rng(seed)
        self.actions: list[int] = []
        self.state = self.game.initial_state()
        self.finished = False  # set by quit
        self.seed = seed
        # lz-analyze / kata-analyze (training.gtp_analysis): the search's budget, the output
        # it prints to (serve() sets it), the one in flight.
        self.analysis_visits = analysis_visits
        self.out: IO[str] = sys.stdout
        self._write_lock = threading.Lock()
        self._ident = ""
        self.analyzer: Analyzer | None = None
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: PROTOCOL_VERSION,
            "name": lambda a: "qizero",
            "version": lambda a: f"{_version()} ({self.player.name})",
            "known_command": self._known_command,
            "list_commands": lambda a: "\n".join(self.commands),
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "undo": self._undo,
            "showboard": lambda a: "\n" + self.game.render(self.state),
            "final_score": self._final_score,
            "lz-analyze": lambda a: self._analyze(a, kata=False),
            "kata-analyze": lambda a: self._analyze(a, kata=True),
            "quit": self._quit,
        }

    # ------------------------------------------------------------------ protocol loop
    def handle(self, line: str) -> str | None:
        """The response to one command line, with its trailing blank line."""
        line = "".join(ch for ch in line if ch in "\t\n" or ord(ch) >= 32 and ord(ch) != 127)
        line = line.split("#", 1)[0].replace("\t", " ").strip()
        if not line:
            return None
        self.stop_analysis()  # any command stops an analysis and ends its response
        words = line.split()
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
            if not words:
                return f"?{ident} missing command\n\n"
        name, args = words[0], words[1:]
        handler = self.commands.get(name)
        if handler is None:
            return f"?{ident} unknown command\n\n"
        self._ident = ident
        try:
            result = handler(args)
            if result is STREAMING:  # the analysis prints its own response
                return ""
        except GtpError as exc:
            return f"?{ident} {exc}\n\n"
        except Exception as exc:  # noqa: BLE001 (a GTP server answers, it does not crash)
            return f"?{ident} internal error: {type(exc).__name__}: {exc}\n\n"
        sep = "" if result.startswith("\n") or not result else " "
        return f"={ident}{sep}{result}\n\n"

    def serve(self, inp: IO[str] = sys.stdin, out: IO[str] = sys.stdout) -> None:
        self.out = out
        try:
            for line in inp:
                response = self.handle(line)
                if response:
                    self._write(response)
                if self.finished:
                    break
        finally:
            self.stop_analysis()

    def _write(self, text: str) -> None:
        with self._write_lock:
            self.out.write(text)
            self.out.flush()

    def stop_analysis(self) -> None:
        """Stop the analysis in flight, if any, and end its response (the blank line)."""
        if self.analyzer is not None:
            self.analyzer.stop()
            self.analyzer = None
            self._write("\n")

    # ------------------------------------------------------------------ helpers
    def _colour(self, word: str) -> int:
        colour = COLOURS.get(word.lower())
        if colour is None:
            raise GtpError("syntax error (colour must be b, w, black or white)")
        return colour

    def _rebuild(self, **changes: Any) -> None:
        """A game with new options, the moves so far replayed on it."""
        options = {**self.options, **changes}
        try:
            game = make_game("stereo_go", **options)
        except (ConfigError, ValueError) as exc:
            raise GtpError(str(exc)) from None
        state = game.initial_state()
        for a in self.actions:
            state = game.apply(state, a)
        self.game, self.options, self.state = game, options, state

    # ------------------------------------------------------------------ commands
    def _known_command(self, args: list[str]) -> str:
        return "true" if args and args[0] in self.commands else "false"

    def _boardsize(self, args: list[str]) -> str:
        if len(args) != 1 or not args[0].isdigit():
            raise GtpError("syntax error (boardsize N)")
        if self.game.board.is_cylinder:
            raise GtpError("unacceptable size (the Stereo Go cylinder has a fixed board)")
        n = int(args[0])
        try:
            self.actions = []
            self._rebuild(board=f"{n}x{n}")
        except GtpError:
            raise GtpError("unacceptable size") from None
        return ""

    def _clear_board(self, args: list[str]) -> str:
        self.actions = []
        self.state = self.game.initial_state()
        return ""

    def _komi(self, args: list[str]) -> str:
        try:
            komi = float(args[0]) if len(args) == 1 else None
        except ValueError:
            komi = None
        if komi is None:
            raise GtpError("syntax error (komi FLOAT)")
        self._rebuild(komi=komi)
        return ""

    def _play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error (play COLOUR VERTEX)")
        colour = self._colour(args[0])
        if self.game.is_terminal(self.state):
            raise GtpError("illegal move (the game is over)")
        if colour != self.game.to_play(self.state):
            raise GtpError(
                f"illegal move ({COLOUR_NAMES[self.game.to_play(self.state)]} to play)"
            )
        try:
            action = self.game.move_to_action(self.state, args[1])
        except IllegalMove as exc:
            raise GtpError(f"illegal move ({exc.reason})") from None
        self.state = self.game.apply(self.state, action)
        self.actions.append(action)
        return ""

    def _genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error (genmove COLOUR)")
        colour = self._colour(args[0])
        if self.game.is_terminal(self.state):
            return "pass"
        if colour != self.game.to_play(self.state):
            raise GtpError(f"{COLOUR_NAMES[self.game.to_play(self.state)]} to play")
        action = int(self.player.select_action(self.game, self.state, self.rng))
        move = self.game.action_to_move(self.state, action)
        self.state = self.game.apply(self.state, action)
        self.actions.append(action)
        return move

    def _analyze(self, args: list[str], kata: bool) -> str:
        """``lz-analyze`` / ``kata-analyze``: answer ``=`` now, then lines while the search
        runs (training.gtp_analysis), until the next command."""
        from agents.evaluator import network_outcome, playout_outcome
        from agents.inference import ModelPipeline
        from agents.players import SearchPlayer

        try:
            request = parse_request(args, kata)
        except ValueError as exc:
            raise GtpError(f"syntax error ({exc})") from None
        if not isinstance(self.player, SearchPlayer):
            raise GtpError(f"{self.player.name} does not search: analysis needs level:N, "
                           "net:PATH or mcts:N")
        if self.game.is_terminal(self.state):
            raise GtpError("the game is over")
        if request.colour is not None and request.colour != self.game.to_play(self.state):
            raise GtpError(f"{COLOUR_NAMES[self.game.to_play(self.state)]} to play")
        outcome = None
        if kata:  # the network's heads, or (pure MCTS) random playouts
            pipeline = self.player.evaluator
            model = pipeline.loaded.model if isinstance(pipeline, ModelPipeline) else None
            outcome = (network_outcome(model, self.game, self.state) if model is not None
                       else playout_outcome(self.game, self.state, self.rng))
        self._write(f"={self._ident}\n")
        self.analyzer = Analyzer(
            self._write, self.game, self.state, self.player, request, kata,
            self.analysis_visits, outcome, self.seed + len(self.actions))
        return STREAMING

    def _undo(self, args: list[str]) -> str:
        if not self.actions:
            raise GtpError("cannot undo")
        self.actions = self.actions[:-1]
        self._rebuild()
        return ""

    def _final_score(self, args: list[str]) -> str:
        return format_score(self.game.score(self.state, rules="area").margin)

    def _quit(self, args: list[str]) -> str:
        self.finished = True
        return ""


def format_score(margin: float) -> str:
    """GTP's result notation for ``black - white - komi``: ``B+3.5``, ``W+0.5`` or ``0``."""
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


# ---------------------------------------------------------------------- the client side
class GtpClient:
    """Another GTP program, as a subprocess: ``client("genmove b") -> "D4"``.

    Raises :class:`GtpError` when the program answers ``?`` or exits. Its standard error is
    discarded unless ``stderr`` (a file) keeps it: engines such as Pachi log their search there.
    """

    def __init__(
        self, argv: Sequence[str], cwd: str | None = None, stderr: IO[Any] | None = None,
    ) -> None:
        self.argv = list(argv)
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if stderr is None else stderr, text=True, cwd=cwd,
        )

    def __call__(self, command: str) -> str:
        if self.proc.stdin is None or self.proc.stdout is None:
            raise GtpError("the GTP program's pipes are closed")
        try:
            self.proc.stdin.write(command + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise GtpError(f"{self.argv[0]} exited before {command!r}") from None
        lines: list[str] = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise GtpError(f"{self.argv[0]} exited during {command!r}")
            if line.strip() == "":
                if lines:
                    break
                continue
            lines.append(line.rstrip("\n"))
        answer = "\n".join(lines)
        if not answer.startswith("="):
            raise GtpError(f"{self.argv[0]} refused {command!r}: {answer}")
        return answer[1:].strip()

    def close(self) -> None:
        try:
            self("quit")
        except GtpError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> GtpClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class GameRecord:
    """A refereed game: the moves in order, why it ended and the area result."""

    moves: list[str]
    end: str  # "passes", "move_cap" or "resign"
    winner: int  # 0 black, 1 white
    margin: float | None  # black - white - komi (Tromp-Taylor area); None after a resignation


def random_opening(board: str, plies: int, rng: np.random.Generator) -> list[str]:
    """``plies`` uniformly random legal moves, passes excluded, from the empty board.

    Why: two deterministic programs (a network at temperature 0, GNU Go with a fixed seed)
    replay one game per colour; games from different random openings measure more than two.
    """
    if plies < 0:
        raise ConfigError(f"opening plies must be >= 0, got {plies}")
    game = make_game("stereo_go", board=board)
    state = game.initial_state()
    moves: list[str] = []
    for _ in range(plies):
        legal = np.flatnonzero(game.legal_mask(state))
        legal = legal[legal != game.spec.pass_action]
        if legal.size == 0:
            break
        action = int(legal[rng.integers(legal.size)])
        moves.append(game.action_to_move(state, action))
        state = game.apply(state, action)
    return moves


def play_game(
    black: GtpClient, white: GtpClient, board: str = "9x9", komi: float = 7.5,
    max_moves: int = 0, opening: Sequence[str] = (),
) -> GameRecord:
    """Referee one game between two GTP programs on this engine (area rules, Tromp-Taylor).

    Both programs get ``boardsize``, ``clear_board`` and ``komi``, then the ``opening`` moves
    (black first) with ``play``; each ``genmove`` answer is checked by the engine and relayed to
    the other program with ``play``. The game ends at two passes, at the engine's move cap
    (``max_moves``, 0 = 2 × points) or on ``resign``. ``moves`` in the record include the
    opening.
    """
    game = make_game("stereo_go", board=board, komi=komi, rules="area", max_moves=max_moves)
    size = board.split("x")[0]
    for client in (black, white):
        if not game.board.is_cylinder:
            client(f"boardsize {size}")
        client("clear_board")
        client(f"komi {komi:g}")
    state = game.initial_state()
    moves: list[str] = []
    clients = (black, white)
    for move in opening:
        colour = "bw"[game.to_play(state)]
        try:
            state = game.play(state, move)
        except IllegalMove as exc:
            raise GtpError(f"the opening has an illegal move: {exc}") from None
        moves.append(move)
        for client in clients:
            client(f"play {colour} {move}")
    while not game.is_terminal(state):
        mover = game.to_play(state)
        colour = "bw"[mover]
        move = clients[mover](f"genmove {colour}").strip()
        if move.lower() == "resign":
            return GameRecord(moves, "resign", 1 - mover, None)
        try:
            state = game.play(state, move)
        except IllegalMove as exc:
            raise GtpError(f"{clients[mover].argv[0]} played an illegal move: {exc}") from None
        moves.append(move)
        clients[1 - mover](f"play {colour} {move}")
    margin = game.score(state, rules="area").margin
    winner = int(np.argmax(game.returns(state)))
    return GameRecord(moves, str(state.end_reason), winner, margin)
