"""Stereo Go (立体围棋) on the Game protocol, per ``docs/rules/stereo-go.md``.

The board graph and its index map are in :mod:`envs.stereo_go.board` (cylinder: ring points
``(ring - 1) * 17 + meridian``, then ``NP`` = 357, ``SP`` = 358, pass = 359; N×N: GTP
coordinates, point ``(rank - 1) * N + column``, pass = N*N). The rules kernel is
:mod:`envs.stereo_go.kernel`.

Players: 0 = black (moves first), 1 = white. Action space: one action per point + pass.
Rule decisions (see ``docs/stereo_go.md``):

* Positional superko over board positions only (the side to move is ignored); a pass never
  violates it. Suicide is illegal.
* Handicap N: White's first N turns are automatic passes, so Black makes N + 1 actions in a
  row. Those passes are not actions and do not count toward the two passes that end the game
  (a Black pass during the handicap phase does count).
* Game end: two consecutive passes, resignation, or the move cap ``max_moves`` (default twice
  the number of points, for self-play). After passes or the cap the position is scored
  Tromp-Taylor (every stone alive) under the configured rule set; ``returns`` is the sign of
  the score difference after komi (0 only on an exact tie, impossible with a .5 komi).
* :meth:`resume` continues a game ended by two passes (sessions: a player resumes play
  instead of agreeing on the score); the player whose turn came after the second pass moves.
* Resignation is not an action of the fixed action space (nets never learn to resign from the
  mask); it is the notation move ``"resign"`` (``play(state, "resign")``) or :meth:`resign`.
* :meth:`score` scores any position under either rule set with an optional set of dead stones
  (for sessions, where players agree on dead chains after two passes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from envs.boards import fact, special_board
from envs.core import Game, GameSpec, IllegalMove, InvalidState, OutcomeTargets, PointOutcome
from envs.stereo_go import kernel as K
from envs.stereo_go.board import Board, board_names, get_board, parse_board_name
from envs.stereo_go.scoring import Score, ownership, score_position

_step_mask = K.step_mask
_mask_actions = K.mask_actions
_new_state = tuple.__new__  # skips NamedTuple's Python-level __new__ on the hot path
_empty = np.empty
_BOOL = np.dtype(np.bool_)
_INT16 = np.dtype(np.int16)
_INT64 = np.dtype(np.int64)
_INT16_SCALAR = np.int16  # what indexing legal_actions' array gives
_NUMPY_INTS = frozenset(
    (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
)

PLAYER_NAMES = ("black", "white")
BLACK, WHITE = 0, 1
RULE_SETS = ("territory", "area")
MAX_HANDICAP = 9
_STONE_CHARS = {K.EMPTY: ".", K.BLACK: "X", K.WHITE: "O"}
_CHAR_STONES = {".": K.EMPTY, "X": K.BLACK, "O": K.WHITE}


def _returns(outcome: int) -> np.ndarray:
    """Returns (Black, White) for the kernel's outcome slot (-1 ongoing, 2 a tie: zeros)."""
    r = np.zeros(2, dtype=np.float32)
    if outcome in (BLACK, WHITE):
        r[outcome] = 1.0
        r[1 - outcome] = -1.0
    return r


_REASONS = {
    K.OCCUPIED: "the point is occupied",
    K.SUICIDE: "suicide: the stone would have no liberty and captures nothing",
    K.SUPERKO: "positional superko: the move would repeat an earlier whole-board position",
    K.GAME_OVER: "the game is over",
}
_END_NAMES = {K.END_NONE: None, K.END_PASSES: "passes", K.END_RESIGN: "resign",
              K.END_MOVE_CAP: "move_cap"}
_END_CODES = {v: k for k, v in _END_NAMES.items()}
# The kernel's planes, then the game's rules from the mover's view (KataGo's global inputs):
# komi for the mover / KOMI_SCALE (negative when Black moves), 1 under territory scoring.
# One network then plays every rule set, and a ladder trained under one can be calibrated
# and served under the other.
NUM_PLANES = K.NUM_PLANES + 2
KOMI_PLANE, RULES_PLANE = K.NUM_PLANES, K.NUM_PLANES + 1
KOMI_SCALE = 15.0


@dataclass(frozen=True)
class StereoGoConfig:
    """Options of a Stereo Go game (validated by ``make_game``)."""

    board: str = field(
        default="cylinder",
        metadata={
            "choices": board_names(),
            "help": "'cylinder' (17 meridians x 21 rings + 2 poles) or a plain 'NxN' board",
        },
    )
    komi: float = field(default=7.5, metadata={"help": "points given to White (both rule sets)"})
    rules: str = field(
        default="territory",
        metadata={"choices": RULE_SETS, "help": "territory (Japanese/Korean) or area (Chinese)"},
    )
    handicap: int = field(
        default=0, metadata={"help": f"White passes its first N turns (0..{MAX_HANDICAP})"}
    )
    max_moves: int = field(
        default=0,
        metadata={
            "help": "game-length cap in actions, then Tromp-Taylor scoring; 0 = 2 x points"
        },
    )

    def __post_init__(self) -> None:
        parse_board_name(self.board)
        if not isinstance(self.komi, (int, float)) or not math.isfinite(self.komi):
            raise ValueError(f"komi must be a finite number, got {self.komi!r}")
        if abs(self.komi) > 1000 or self.komi * 4 != int(self.komi * 4):
            raise ValueError(f"komi must be a multiple of 0.25 in -1000..1000, got {self.komi}")
        if self.rules not in RULE_SETS:
            raise ValueError(f"rules must be one of {RULE_SETS}, got {self.rules!r}")
        if not 0 <= self.handicap <= MAX_HANDICAP:
            raise ValueError(f"handicap must be in 0..{MAX_HANDICAP}, got {self.handicap}")
        if not 0 <= self.max_moves <= 100_000:
            raise ValueError(
                f"max_moves must be in 0..100000 (0 = automatic), got {self.max_moves}"
            )


class StereoGoState(NamedTuple):
    """A position with everything the rules need (kernel arrays, see ``kernel.py``).

    ``g`` holds the board, the incremental chain data, a Bloom filter of the history and the
    scalars (side to move, passes, handicap passes left, ply, prisoners, last action, hash,
    outcome, final score); ``hist`` is an append-only buffer whose first entries are the hashes
    of all positions so far (positional superko; see ``kernel.py``); ``mask`` the legal
    actions as a read-only boolean mask (what ``legal_mask`` returns), computed in the same
    compiled call that makes the state, and ``n_legal`` how many (0 once the game is over).
    The arrays are treated as read-only: a move copies ``g`` and only ever appends to
    ``hist`` past this state's end.

    A NamedTuple rather than a frozen dataclass: equally immutable, and half the cost to
    create, which shows in the self-play loop.
    """

    g: np.ndarray
    hist: np.ndarray
    mask: np.ndarray
    n_legal: int

    @property
    def meta(self) -> np.ndarray:
        return self.g[K.META]

    @property
    def board(self) -> np.ndarray:
        """Point values: 0 empty, 1 black, 2 white (a read-only view)."""
        view = self.g[K.BOARD]
        view.flags.writeable = False
        return view

    @property
    def to_play(self) -> int:
        return int(self.meta[K.M_TO_PLAY])

    @property
    def ply(self) -> int:
        return int(self.meta[K.M_PLY])

    @property
    def passes(self) -> int:
        return int(self.meta[K.M_PASSES])

    @property
    def handicap_left(self) -> int:
        return int(self.meta[K.M_HANDICAP])

    @property
    def captures(self) -> tuple[int, int]:
        """Prisoners taken by (black, white)."""
        return int(self.meta[K.M_CAPS_BLACK]), int(self.meta[K.M_CAPS_WHITE])

    @property
    def last_action(self) -> int | None:
        last = int(self.meta[K.M_LAST])
        return None if last < 0 else last

    @property
    def end_reason(self) -> str | None:
        """None while the game goes on, else 'passes', 'resign' or 'move_cap'."""
        return _END_NAMES[int(self.meta[K.M_END])]

    @property
    def history(self) -> np.ndarray:
        """Zobrist hashes of every position so far, oldest first (the current one last)."""
        return self.hist[1 : 1 + int(self.g[K.META, K.M_HIST_LEN])].copy()

    def _key(self) -> tuple:
        scalars = self.meta[: K.M_SCORE_WHITE + 1]  # the game's facts, not caches/constants
        return (self.g[K.BOARD].tobytes(), scalars.tobytes(), np.sort(self.history).tobytes())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StereoGoState):
            return NotImplemented
        return self._key() == other._key()

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple:
        return (_restore_state, (self.g, self.hist, self.mask, self.n_legal))


def _restore_state(g: np.ndarray, hist: np.ndarray, mask: np.ndarray, n_legal: int
                   ) -> StereoGoState:
    """A state from pickle or deepcopy (which give writable arrays): its mask read-only."""
    mask.flags.writeable = False
    return StereoGoState(g, hist, mask, n_legal)


class StereoGo(Game[StereoGoState]):
    """Stereo Go (or plain Go on an N×N board) on the Game protocol."""

    Config = StereoGoConfig

    def __init__(self, config: StereoGoConfig | None = None) -> None:
        super().__init__(config)
        cfg = self.config
        self.board: Board = get_board(cfg.board)
        n = self.board.n_points
        self.n_points = n
        self.max_moves = cfg.max_moves or 2 * n
        self._n_actions = n + 1
        self._area = cfg.rules == "area"
        self._komi = float(cfg.komi)
        self._C = K.constants(self.board.nbr, self.board.deg)
        rows, cols = self.board.grid_shape
        self._spec = GameSpec(
            id="stereo_go",
            name="Stereo Go 立体围棋" if self.board.is_cylinder else f"Go {cfg.board}",
            player_names=PLAYER_NAMES,
            num_actions=n + 1,
            observation_shape=(NUM_PLANES, rows, cols),
            observation_range=(min(0.0, -abs(self._komi) / KOMI_SCALE),
                               max(1.0, abs(self._komi) / KOMI_SCALE)),
            max_length=self.max_moves,
            num_symmetries=self.board.num_symmetries,
            pass_action=n,
        )
        # Identity symmetry tables as one gather each, for apply_symmetry.
        self._sym_actions = np.empty((self.board.num_symmetries, n + 1), dtype=np.int64)
        for s, pts in enumerate(self.board.sym_points):
            src = np.empty(n + 1, dtype=np.int64)
            src[pts] = np.arange(n)
            src[n] = n
            self._sym_actions[s] = src

    def __reduce__(self) -> tuple:
        return (StereoGo, (self.config,))

    @property
    def spec(self) -> GameSpec:
        return self._spec

    # ------------------------------------------------------------------ array level
    def initial_state(self) -> StereoGoState:
        g = self._blank(BLACK, (0, 0))
        g[K.META, K.M_HANDICAP] = self.config.handicap
        return self._assemble(g, ())

    def _blank(self, to_play: int, captures: tuple[int, int]) -> np.ndarray:
        g = np.zeros((K.ROWS, self.n_points), dtype=np.int32)
        meta = g[K.META]
        meta[K.M_TO_PLAY] = to_play
        meta[K.M_LAST] = -1
        meta[K.M_OUTCOME] = -1
        meta[K.M_CAPS_BLACK], meta[K.M_CAPS_WHITE] = captures
        return g

    def _assemble(self, g: np.ndarray, history: tuple[int, ...]) -> StereoGoState:
        """A state from ``g`` with its BOARD row and game scalars set: builds the chains,
        hash, constants, history (``history`` = earlier position hashes), the final score if
        the game ended by passes or the move cap, and the legal actions."""
        if K.rebuild(g, self._C):
            raise InvalidState("the position has a chain without liberties")
        meta = g[K.META]
        meta[K.M_MAX_MOVES] = self.max_moves
        meta[K.M_AREA] = int(self._area)
        meta[K.M_KOMI4] = int(self._komi * 4)
        hashes = list(dict.fromkeys(list(history) + [int(K.position_hash(g))]))
        # Stone counts of given earlier positions are unknown: disable that superko shortcut.
        if len(hashes) == 1:
            meta[K.M_MAX_STONES] = meta[K.M_STONES]
        else:  # unknown earlier positions: disable both superko shortcuts (kernel.py)
            meta[K.M_MAX_STONES] = self.n_points
            meta[K.M_VACATED : K.M_VACATED + (self.n_points + 31) // 32] = -1
        hist = np.zeros(max(2 * self.n_points + 2, len(hashes) + 64), dtype=np.int64)
        hist[0] = len(hashes)
        hist[1 : 1 + len(hashes)] = hashes
        K.set_history(g, hist)
        if meta[K.M_END] in (K.END_PASSES, K.END_MOVE_CAP):
            K.finish(g, self._C)
        K.init_codes(g, self._C)
        return self._with_mask(g, hist)

    def _with_mask(self, g: np.ndarray, hist: np.ndarray) -> StereoGoState:
        """The state of ``g`` and ``hist``, its legal actions collected from ``g``'s codes."""
        mask = np.empty(self._n_actions, dtype=np.bool_)
        count = K.collect(g, hist, self._C, mask)
        mask.flags.writeable = False
        return StereoGoState(g, hist, mask, count)

    def to_play(self, state: StereoGoState) -> int:
        return state.g.item(K.META, K.M_TO_PLAY)  # a Python int, faster than int(g[i, j])

    def legal_mask(self, state: StereoGoState) -> np.ndarray:
        """The legal actions as a boolean mask: part of the state (read-only), computed when
        the state was made, in the same compiled call as the move that made it."""
        return state.mask

    def legal_actions(self, state: StereoGoState) -> np.ndarray:
        """Sorted legal actions (int16, a new array), from the state's mask."""
        out = _empty(self._n_actions, _INT16)
        return out[: _mask_actions(state.mask, out)]

    def apply(self, state: StereoGoState, action: int) -> StereoGoState:
        # The hot path (profiled: Python overhead here costs as much as the compiled work):
        # one array copy, one allocation and one compiled call, which also checks the
        # action's range and legality and writes the new state's legal mask.
        cls = action.__class__
        if cls is not int:
            action = int(action) if cls is _INT16_SCALAR else self._as_int(action)
        g = state.g.copy()
        mask = _empty(self._n_actions, _BOOL)
        try:
            count = _step_mask(g, state.hist, self._C, action, mask)
        except Exception:  # an integer too large for the kernel (int64) to receive
            if not 0 <= action <= self.n_points:
                raise IllegalMove(action, f"action index out of range 0..{self.n_points}") from None
            raise
        if count < 0:
            return self._apply_slow(state, action, g, -count)
        mask.setflags(False)  # read-only (positional: a keyword costs a dict per call)
        return _new_state(StereoGoState, (g, state.hist, mask, count))

    @staticmethod
    def _as_int(action: object) -> int:
        if action.__class__ in _NUMPY_INTS:
            return int(action)  # type: ignore[call-overload]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMove(action, "an action must be an integer index")
        return int(action)

    def _apply_slow(
        self, state: StereoGoState, action: int, g: np.ndarray, status: int
    ) -> StereoGoState:
        """A refused move: a clear error, or a fresh history buffer and a second try.

        The second try is the common case in a search (every sibling after the first), so it
        is kept as lean as ``apply``."""
        if status == K.NEED_BUFFER:  # another line of play extended the shared history
            length = g.item(K.META, K.M_HIST_LEN)
            hist = _empty(max(2 * self.n_points + 2, 2 * length + 2), _INT64)
            hist[: length + 1] = state.hist[: length + 1]
            hist[0] = length
            mask = _empty(self._n_actions, _BOOL)
            count = _step_mask(g, hist, self._C, action, mask)
            if count >= 0:
                mask.setflags(False)
                return _new_state(StereoGoState, (g, hist, mask, count))
            status = -count
        if status == K.OUT_OF_RANGE:
            raise IllegalMove(action, f"action index out of range 0..{self.n_points}")
        raise IllegalMove(self.action_to_move(state, action), _REASONS[status])

    def is_terminal(self, state: StereoGoState) -> bool:
        # Pass is legal in every live position, so only a finished game has no legal action.
        return not state.n_legal

    def returns(self, state: StereoGoState) -> np.ndarray:
        return _returns(int(state.meta[K.M_OUTCOME]))

    def random_playout(
        self, state: StereoGoState, rng: np.random.Generator, max_plies: int
    ) -> np.ndarray:
        """The generic loop's playout, move for move, in one compiled call
        (``kernel.random_playout``): pure MCTS spends nearly all its time here."""
        g = state.g.copy()
        length = g.item(K.META, K.M_HIST_LEN)
        plies = min(max_plies, max(g.item(K.META, K.M_MAX_MOVES) - g.item(K.META, K.M_PLY), 0))
        hist = _empty(length + plies + 2, _INT64)  # room for every hash the playout adds
        hist[: length + 1] = state.hist[: length + 1]
        hist[0] = length
        outcome = K.random_playout(g, hist, self._C, state.mask.copy(), state.n_legal, rng, plies)
        return _returns(int(outcome))

    def observation(self, state: StereoGoState) -> np.ndarray:
        """Planes (see ``kernel.observation_values``, then the komi and rules planes of
        ``NUM_PLANES``) laid out on the board's grid."""
        values = np.empty((NUM_PLANES, self.n_points), dtype=np.float32)
        K.observation_values(state.g, state.hist, self._C, values[: K.NUM_PLANES])
        black_to_move = state.g[K.META, K.M_TO_PLAY] == BLACK
        values[KOMI_PLANE] = (-self._komi if black_to_move else self._komi) / KOMI_SCALE
        values[RULES_PLANE] = 0.0 if self._area else 1.0
        return values[:, self.board.cell_point]

    def outcome_targets(self, state: StereoGoState) -> OutcomeTargets:
        """Ownership of every point (Tromp-Taylor: every stone alive, as self-play ends) and
        Black's margin under the game's rules, per point; laid on the observation grid."""
        owner = ownership(state.g[K.BOARD], self.board.nbr, self.board.deg)
        margin = self.score(state).margin
        return OutcomeTargets(owner[self.board.cell_point], margin / self.n_points)

    def read_outcome(self, ownership: np.ndarray, score: float) -> PointOutcome:
        """Each point's ownership is the mean of the cells that show it (a pole fills a row
        of the cylinder's grid); the margin is ``score`` times the points, as
        :meth:`outcome_targets` divided it."""
        cells = self.board.cell_point.reshape(-1)
        grid = np.asarray(ownership, dtype=np.float64).reshape(-1)
        sums = np.bincount(cells, weights=grid, minlength=self.n_points)
        counts = np.bincount(cells, minlength=self.n_points)
        means = np.clip(sums / np.maximum(counts, 1), -1.0, 1.0)
        names = self.board.names
        return PointOutcome(
            {names[p]: float(means[p]) for p in range(self.n_points)},
            float(score) * self.n_points,
        )

    def apply_symmetry(
        self, index: int, observation: np.ndarray, policy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"symmetry index must be an integer, got {index!r}")
        if not 0 <= index < self.spec.num_symmetries:
            raise ValueError(
                f"symmetry index {index} out of range 0..{self.spec.num_symmetries - 1}"
            )
        rows, cols = self.board.grid_shape
        if observation.shape[-2:] != (rows, cols) or policy.shape[-1] != self.n_points + 1:
            raise ValueError(
                f"expected observation (..., {rows}, {cols}) and per-action array "
                f"(..., {self.n_points + 1}), got {observation.shape} and {policy.shape}"
            )
        if index == 0:
            return observation, policy
        flat = observation.reshape(*observation.shape[:-2], rows * cols)
        obs = flat[..., self.board.sym_cells[index]].reshape(observation.shape)
        return obs, policy[..., self._sym_actions[index]]

    def transform_action(self, index: int, action: int) -> int:
        """The image of ``action`` under symmetry ``index`` (pass maps to pass)."""
        if not isinstance(index, (int, np.integer)) or not 0 <= index < self.spec.num_symmetries:
            raise ValueError(f"symmetry index must be in 0..{self.spec.num_symmetries - 1}")
        if not isinstance(action, (int, np.integer)) or not 0 <= action <= self.n_points:
            raise IllegalMove(action, f"action index out of range 0..{self.n_points}")
        if action == self.n_points:
            return int(action)
        return int(self.board.sym_points[index][action])

    # ------------------------------------------------------------------ notation level
    def action_to_move(self, state: StereoGoState, action: int) -> str:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMove(action, "an action must be an integer index")
        if not 0 <= int(action) <= self.n_points:
            raise IllegalMove(action, f"action index out of range 0..{self.n_points}")
        return "pass" if action == self.n_points else self.board.names[int(action)]

    def parse_point(self, move: str) -> int:
        """Action index of a notation string (``pass`` included), without legality checks."""
        if not isinstance(move, str):
            raise IllegalMove(move, "a move must be a string like 'D4', 'NP' or 'pass'")
        text = move.strip()
        if text.lower() == "pass":
            return self.n_points
        if text.lower() == "resign":
            raise IllegalMove(
                move, "resign is not an action of the action space; use play(state, 'resign')"
            )
        p = self.board.index(text) if len(text) <= 4 else None
        if p is None:
            example = "A1..Q21, NP, SP" if self.board.is_cylinder else (
                f"{self.board.names[0]}..{self.board.names[-1]}"
            )
            raise IllegalMove(move, f"not a point of this board ({example}) or 'pass'")
        return p

    def move_to_action(self, state: StereoGoState, move: str) -> int:
        action = self.parse_point(move)
        if self.is_terminal(state):
            raise IllegalMove(move, "the game is over")
        if action < self.n_points:
            code = K.legal_code(state.g, state.hist, self._C, action)
            if code != K.OK:
                raise IllegalMove(move, _REASONS[int(code)])
        return action

    def play(self, state: StereoGoState, move: str) -> StereoGoState:
        """Apply a notation move; ``"resign"`` resigns for the side to move."""
        if isinstance(move, str) and move.strip().lower() == "resign":
            if self.is_terminal(state):
                raise IllegalMove(move, "the game is over")
            return self.resign(state)
        return self.apply(state, self.move_to_action(state, move))

    def resign(self, state: StereoGoState, player: int | None = None) -> StereoGoState:
        """The game lost by ``player`` (default: the side to move) by resignation."""
        if self.is_terminal(state):
            raise IllegalMove("resign", "the game is over")
        if player is None:
            player = self.to_play(state)
        if player not in (BLACK, WHITE):
            raise IllegalMove("resign", f"player must be 0 (black) or 1 (white), got {player!r}")
        g = state.g.copy()
        g[K.META, K.M_OUTCOME] = 1 - player
        g[K.META, K.M_END] = K.END_RESIGN
        return self._with_mask(g, state.hist)

    def resume(self, state: StereoGoState) -> StereoGoState:
        """The game ended by two passes, continued: a session player resumed play.

        The rules let either player resume play in a session instead of agreeing on the
        score. Nothing is undone: the passes stay in the record, the pass count restarts at 0,
        and the player to move is the one whose turn came after the second pass (the
        opponent of the player who passed last). The superko history is kept: positions
        from before the passes stay forbidden. Refused (:class:`IllegalMove`) unless the game
        ended by passes below the move cap.
        """
        if state.end_reason != "passes":
            raise IllegalMove("resume", "only a game ended by two passes can resume")
        if state.ply >= self.max_moves:
            raise IllegalMove("resume", f"the move cap of {self.max_moves} actions is reached")
        g = state.g.copy()
        meta = g[K.META]
        meta[K.M_PASSES] = 0
        meta[K.M_END] = K.END_NONE
        meta[K.M_OUTCOME] = -1
        meta[K.M_SCORE_BLACK] = 0
        meta[K.M_SCORE_WHITE] = 0
        return self._with_mask(g, state.hist)

    # ------------------------------------------------------------------ scoring
    def score(
        self,
        state: StereoGoState,
        rules: str | None = None,
        dead: tuple[str, ...] | list[str] = (),
    ) -> Score:
        """Score ``state`` under ``rules`` (default: the config's) with ``dead`` chains removed.

        ``dead`` lists points in notation; each marks its whole chain dead. See
        :func:`envs.stereo_go.scoring.score_position`.
        """
        rules = self.config.rules if rules is None else rules
        if rules not in RULE_SETS:
            raise IllegalMove(rules, f"rules must be one of {RULE_SETS}")
        if isinstance(dead, str) or not isinstance(dead, (list, tuple, set, frozenset)):
            raise IllegalMove(dead, "dead must be a list of points such as ['C3', 'NP']")
        return score_position(
            state.g, self._C, rules, self._komi, [self.parse_point(d) for d in dead],
            self.board.names,
        )

    # ------------------------------------------------------------------ positions
    def state_from_board(
        self,
        board: str | list[str],
        to_play: int = BLACK,
        captures: tuple[int, int] = (0, 0),
        history: tuple[int, ...] = (),
    ) -> StereoGoState:
        """A state for an arbitrary position (tests, puzzles); ``board`` as :meth:`diagram`.

        ``history`` holds Zobrist hashes of earlier positions that superko must refuse.
        """
        values = self._parse_diagram(board)
        if to_play not in (BLACK, WHITE) or isinstance(to_play, bool):
            raise InvalidState(f"to_play must be 0 (black) or 1 (white), got {to_play!r}")
        if not (
            isinstance(captures, (tuple, list)) and len(captures) == 2
            and all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 2**30
                    for c in captures)
        ):
            raise InvalidState(f"captures must be two non-negative integers, got {captures!r}")
        if not all(isinstance(h, (int, np.integer)) and -(2**63) <= h < 2**63 for h in history):
            raise InvalidState("history must hold 64-bit position hashes (signed integers)")
        g = self._blank(to_play, captures)
        g[K.BOARD] = values
        return self._assemble(g, tuple(int(h) for h in history))

    def position_hash(self, state: StereoGoState) -> int:
        """Zobrist hash of the position (what positional superko compares)."""
        return int(K.position_hash(state.g))

    def diagram(self, state: StereoGoState) -> list[str]:
        """The board as rows of ``.XO`` (X black): the inverse of :meth:`state_from_board`.

        Cylinder: ``NP``'s one character, then rings 1..21 (17 characters, meridians A..Q),
        then ``SP``'s. N×N: ranks N..1 from the top, columns left to right.
        """
        chars = [_STONE_CHARS[int(v)] for v in state.g[K.BOARD]]
        if self.board.is_cylinder:
            rings = ["".join(chars[r * 17 : r * 17 + 17]) for r in range(21)]
            return [chars[357]] + rings + [chars[358]]
        n = int(round(self.n_points**0.5))
        return ["".join(chars[r * n : r * n + n]) for r in range(n - 1, -1, -1)]

    def _parse_diagram(self, board: str | list[str]) -> np.ndarray:
        if isinstance(board, str):
            rows = [r.strip() for r in board.strip().splitlines() if r.strip()]
        elif isinstance(board, (list, tuple)) and all(isinstance(r, str) for r in board):
            rows = [r.replace(" ", "") for r in board]
        else:
            raise InvalidState("a board diagram is a string or a list of row strings")
        rows = [r.replace(" ", "") for r in rows]
        if any(set(r) - set(_CHAR_STONES) for r in rows):
            raise InvalidState("board rows may contain only '.', 'X' (black) and 'O' (white)")
        values = np.zeros(self.n_points, dtype=np.int32)
        if self.board.is_cylinder:
            if len(rows) != 23 or len(rows[0]) != 1 or len(rows[-1]) != 1 or any(
                len(r) != 17 for r in rows[1:-1]
            ):
                raise InvalidState(
                    "a cylinder diagram is 23 rows: NP (1 character), rings 1..21 "
                    "(17 characters each, meridians A..Q), SP (1 character)"
                )
            for r in range(21):
                values[r * 17 : r * 17 + 17] = [_CHAR_STONES[c] for c in rows[r + 1]]
            values[357] = _CHAR_STONES[rows[0]]
            values[358] = _CHAR_STONES[rows[-1]]
        else:
            n = int(round(self.n_points**0.5))
            if len(rows) != n or any(len(r) != n for r in rows):
                raise InvalidState(f"a {n}x{n} diagram is {n} rows of {n} characters")
            for i, row in enumerate(rows):
                r = n - 1 - i
                values[r * n : r * n + n] = [_CHAR_STONES[c] for c in row]
        return values

    # ------------------------------------------------------------------ serialization
    def to_json(self, state: StereoGoState) -> dict[str, Any]:
        m = state.meta
        last = int(m[K.M_LAST])
        outcome = int(m[K.M_OUTCOME])
        return {
            "board": self.diagram(state),
            "to_play": PLAYER_NAMES[int(m[K.M_TO_PLAY])],
            "passes": int(m[K.M_PASSES]),
            "handicap_left": int(m[K.M_HANDICAP]),
            "ply": int(m[K.M_PLY]),
            "captures": [int(m[K.M_CAPS_BLACK]), int(m[K.M_CAPS_WHITE])],
            "last_move": None if last < 0 else self.action_to_move(state, last),
            "end": _END_NAMES[int(m[K.M_END])],
            "winner": None if outcome < 0 or outcome == 2 else PLAYER_NAMES[outcome],
            "history": [format(int(h) & (2**64 - 1), "016x") for h in state.history],
        }

    def from_json(self, data: Any) -> StereoGoState:
        if not isinstance(data, dict):
            raise InvalidState("a Stereo Go state is a JSON object")
        required = {"board", "to_play", "passes", "handicap_left", "ply", "captures", "history"}
        missing = required - set(data)
        if missing:
            raise InvalidState(f"Stereo Go state lacks {sorted(missing)}")
        board = data["board"]
        if not isinstance(board, list):
            raise InvalidState("board must be a list of row strings (see StereoGo.diagram)")
        if data["to_play"] not in PLAYER_NAMES:
            raise InvalidState(f"to_play must be one of {list(PLAYER_NAMES)}")
        ints = {k: data[k] for k in ("passes", "handicap_left", "ply")}
        for k, v in ints.items():
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise InvalidState(f"{k} must be a non-negative integer")
        if ints["passes"] > 2 or ints["handicap_left"] > self.config.handicap:
            raise InvalidState("passes must be 0..2 and handicap_left at most the handicap")
        if ints["ply"] > self.max_moves:
            raise InvalidState(f"ply must be at most max_moves = {self.max_moves}")
        caps = data["captures"]
        if not (
            isinstance(caps, list) and len(caps) == 2
            and all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in caps)
        ):
            raise InvalidState("captures must be [black's prisoners, white's prisoners]")
        hist = data["history"]
        if not isinstance(hist, list) or not all(isinstance(h, str) for h in hist):
            raise InvalidState("history must be a list of 16-digit hex position hashes")
        try:
            hashes = [int(h, 16) for h in hist]
        except ValueError as exc:
            raise InvalidState("history must be a list of 16-digit hex position hashes") from exc
        if any(not 0 <= h < 2**64 for h in hashes):
            raise InvalidState("history hashes must fit in 64 bits")
        signed = tuple(h - 2**64 if h >= 2**63 else h for h in hashes)
        g = self._blank(PLAYER_NAMES.index(data["to_play"]), (caps[0], caps[1]))
        g[K.BOARD] = self._parse_diagram(board)
        meta = g[K.META]
        meta[K.M_PASSES] = ints["passes"]
        meta[K.M_HANDICAP] = ints["handicap_left"]
        meta[K.M_PLY] = ints["ply"]
        last = data.get("last_move")
        if last is not None:
            try:
                meta[K.M_LAST] = self.parse_point(last)
            except IllegalMove as exc:
                raise InvalidState(f"last_move: {exc}") from exc
        end = data.get("end")
        if end not in _END_CODES:
            raise InvalidState("end must be null, 'passes', 'resign' or 'move_cap'")
        expected_end = (
            K.END_PASSES if ints["passes"] >= 2
            else K.END_MOVE_CAP if ints["ply"] >= self.max_moves else None
        )
        if end == "resign":
            winner = data.get("winner")
            if winner not in PLAYER_NAMES:
                raise InvalidState("a resigned game needs winner 'black' or 'white'")
            meta[K.M_END] = K.END_RESIGN
            meta[K.M_OUTCOME] = PLAYER_NAMES.index(winner)
        elif expected_end is not None:
            if _END_CODES[end] != expected_end:
                raise InvalidState(f"end must be {_END_NAMES[expected_end]!r} here")
            meta[K.M_END] = expected_end  # _assemble scores it
        elif end is not None:
            raise InvalidState(f"end {end!r} does not match passes and ply")
        return self._assemble(g, signed)

    def board_view(self, state: StereoGoState) -> dict[str, Any]:
        return special_board("stereo_go")

    def status_facts(self, state: StereoGoState) -> list[dict[str, Any]]:
        black, white = state.captures
        return [fact("state.stereo", black=black, white=white),
                fact("state.komi", komi=self.config.komi)]

    def render(self, state: StereoGoState) -> str:
        rows = self.diagram(state)
        if self.board.is_cylinder:
            header = "     " + " ".join("ABCDEFGHIJKLMNOPQ")
            lines = [f"NP   {' '.join(rows[0] * 17)}", header]
            lines += [f"{r:>2}   {' '.join(row)}" for r, row in enumerate(rows[1:-1], start=1)]
            lines += [header, f"SP   {' '.join(rows[-1] * 17)}"]
        else:
            n = len(rows)
            letters = " ".join(self.board.names[i][0] for i in range(n))
            lines = [f"{n - i:>2} {' '.join(row)}" for i, row in enumerate(rows)]
            lines.append(f"   {letters}")
        b, w = state.captures
        if self.is_terminal(state):
            r = self.returns(state)
            who = "tie" if not r.any() else f"{PLAYER_NAMES[int(np.argmax(r))]} wins"
            status = f"game over ({state.end_reason}): {who}"
        else:
            status = f"{PLAYER_NAMES[state.to_play]} to play"
        lines.append(f"{status}; prisoners black {b}, white {w}")
        return "\n".join(lines)
