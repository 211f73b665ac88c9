"""The Game protocol: the one seam between rules engines and everything else.

Every game in qizero is a :class:`Game`. Search, training, the Gymnasium wrapper and the
service only ever talk to this protocol, never to game-specific code, so a new game is a new
module plus one ``register_game`` line: in ``envs/__init__.py`` for the games shipped here, or
in a module of your own named by ``QIZERO_GAME_MODULES`` (``envs.plugins``).
``Game.board_view`` says how the web client draws a position (a generic grid, or a picture of
the game's own), so a grid game is playable in the browser with no web code
(docs/adding_a_game.md).

Design decisions (the same for every game):

* **States are immutable.** ``apply`` and ``play`` return a new state and never change the one
  passed in. States are small frozen dataclasses (numpy arrays inside are treated as read-only).
  Search keeps references to states freely because of this.
* **Who acts comes from the state.** ``to_play(state)`` says which player acts next; a turn may
  be several actions by the same player (Fang Qi's extra placements and captures, TriGolden's
  two pieces). Nothing in qizero assumes alternation; values are backed up per player.
* **Two levels of access.** The array level (fixed action space, boolean legal mask, integer
  actions, observation planes from the mover's view, symmetries) is for RL and search. The
  notation level (move strings from the rules files, JSON states) is for people, the API and
  cross-checks against other programs. Both levels describe the same moves.
* **Bad input raises clear errors**, all subclasses of :class:`QizeroError` (itself a
  ``ValueError``): :class:`IllegalMove` for a move that is malformed or not legal here,
  :class:`InvalidState` for a JSON state that does not describe a reachable-looking position,
  :class:`ConfigError` for an unknown game or a bad config option.

The module imports only the standard library and numpy, like every rules module.
"""

from __future__ import annotations

import abc
import dataclasses
import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

__all__ = [
    "ConfigError",
    "Game",
    "GameSpec",
    "IllegalMove",
    "InvalidState",
    "MissingDependency",
    "QizeroError",
    "game_class",
    "game_ids",
    "game_module",
    "make_game",
    "register_game",
    "require",
]


class QizeroError(ValueError):
    """Base class of every error qizero raises for bad input."""


class IllegalMove(QizeroError):
    """A move that is malformed, or well-formed but not legal in the given state.

    ``move`` is the offending move as given (a string or an action index) and ``reason`` says
    why in words a player understands.
    """

    def __init__(self, move: object, reason: str) -> None:
        self.move = move
        self.reason = reason
        super().__init__(f"illegal move {move!r}: {reason}")


class InvalidState(QizeroError):
    """A serialized state (JSON) that cannot be turned into a state of this game."""


class ConfigError(QizeroError):
    """An unknown game id, an unknown config option, or a config value of the wrong kind."""


class MissingDependency(QizeroError):
    """An optional package that a feature needs (one of pyproject.toml's extras) is missing."""


def require(module: str, extra: str) -> ModuleType:
    """Import an optional package (PettingZoo, OpenSpiel, ONNX...) when a feature first needs it,
    or say which extra installs it: ``import envs`` stays free of them."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependency(
            f"{module} is not installed ({exc}); install it with: pip install 'qizero[{extra}]'"
        ) from None


@dataclass(frozen=True)
class GameSpec:
    """Static facts about a game, declared as data (OpenSpiel's GameInfo, in spirit).

    Attributes:
        id: registry id, e.g. ``"jiugong"``.
        name: human-readable name.
        player_names: one name per player, in player-index order, lower case as used for
            session seats (``("south", "north")``); player 0 is the one listed first.
        num_actions: size of the fixed action space (the length of every legal mask).
        observation_shape: shape of :meth:`Game.observation`'s array.
        max_length: an upper bound on the number of actions in a game (for buffers and caps).
        num_symmetries: how many transforms :meth:`Game.apply_symmetry` knows (1 = identity).
        observation_range: bounds of every observation value (the Gymnasium Box bounds);
            scale counts into it (e.g. pieces in hand / pieces per side).
        turn_seconds: default seconds per turn in sessions, from the rules' Timer section;
            None when the rules define no turn timer (see :meth:`Game.time_out`).
        pass_action: the action that passes the turn, for games where passing is a move
            (self-play can keep it out of the early game); None when there is none.
    """

    id: str
    name: str
    player_names: tuple[str, ...]
    num_actions: int
    observation_shape: tuple[int, ...]
    max_length: int
    num_symmetries: int = 1
    observation_range: tuple[float, float] = (0.0, 1.0)
    turn_seconds: float | None = None
    pass_action: int | None = None

    @property
    def num_players(self) -> int:
        return len(self.player_names)


S = TypeVar("S")


@dataclass(frozen=True)
class OutcomeTargets:
    """What the end of a game says about each point and the margin (see
    :meth:`Game.outcome_targets`), from the first player's view.

    ``ownership``: float32 ``observation_shape[1:]``, +1 where the first player owns the
    point at the end, -1 the second player, 0 neither (cells that are no point: 0).
    ``score``: the final margin for the first player divided by the number of points
    (about -1..1), so one scale serves every board size.
    """

    ownership: np.ndarray
    score: float


@dataclass(frozen=True)
class PointOutcome:
    """Who owns each point and the margin, as a game names them (:meth:`Game.read_outcome`):
    ``ownership`` maps every point's move string to -1..1, ``margin`` is in points."""

    ownership: dict[str, float]
    margin: float


class Game(abc.ABC, Generic[S]):
    """A game's rules, bound to one configuration.

    Subclasses set ``Config`` (a frozen dataclass of the game's options, with defaults) and
    implement the abstract methods. ``make_game(id, **options)`` builds one with a validated
    config. Methods marked *default* have a generic implementation that engines may override
    for speed.
    """

    #: Frozen dataclass with the game's config options and their defaults.
    Config: ClassVar[type]
    #: Registry id; set by :func:`register_game`.
    id: ClassVar[str]

    def __init__(self, config: Any = None) -> None:
        self.config = config if config is not None else self.Config()

    # ---------------------------------------------------------------- game facts
    @property
    @abc.abstractmethod
    def spec(self) -> GameSpec:
        """Static facts for this configuration."""

    # ---------------------------------------------------------------- array level
    @abc.abstractmethod
    def initial_state(self) -> S:
        """The position at the start of a game."""

    @abc.abstractmethod
    def to_play(self, state: S) -> int:
        """Index of the player who acts next. Undefined (may raise) on terminal states."""

    @abc.abstractmethod
    def legal_mask(self, state: S) -> np.ndarray:
        """Boolean array of length ``spec.num_actions``; all False on terminal states."""

    @abc.abstractmethod
    def apply(self, state: S, action: int) -> S:
        """The state after ``action``. Raises :class:`IllegalMove` if it is not legal."""

    @abc.abstractmethod
    def is_terminal(self, state: S) -> bool:
        """Whether the game is over."""

    @abc.abstractmethod
    def returns(self, state: S) -> np.ndarray:
        """Per-player results in [-1, 1] (float array of length num_players).

        On a terminal state: +1 win, -1 loss, 0 draw (or a scaled score where a game defines
        one). On a non-terminal state: zeros.
        """

    def utility(self, state: S) -> np.ndarray:
        """*Default.* What search and value learning maximise at a terminal state: the returns.

        A game whose match is decided by points added over several games (TriGolden) returns
        its scaled score margin instead: winning one game by a point and losing the next by
        twenty loses the match. Same shape and range as :meth:`returns`.
        """
        return self.returns(state)

    def outcome_targets(self, state: S) -> OutcomeTargets | None:
        """*Default: none.* Auxiliary training targets read off the end of a game (KataGo's
        ownership and score heads), for games where who owns what decides the result.

        A self-play game's final state gives every sample of that game its targets; the value
        alone says only who won, these say where and by how much, which teaches a small
        network much faster (Wu 2019). ``None``: the game has none.
        """
        return None

    def read_outcome(self, ownership: np.ndarray, score: float) -> PointOutcome | None:
        """*Default: none.* The inverse of :meth:`outcome_targets`: what a network's ownership
        and score heads say (``ownership`` on the observation grid, ``score`` the margin per
        point, both in one player's view) as each point's ownership, keyed by the point's move
        string, and the margin in points, in that same view. ``None``: the game has none."""
        return None

    @abc.abstractmethod
    def observation(self, state: S) -> np.ndarray:
        """float32 array of ``spec.observation_shape``, from the view of ``to_play(state)``."""

    def legal_actions(self, state: S) -> np.ndarray:
        """*Default.* Sorted int array of legal actions."""
        return np.flatnonzero(self.legal_mask(state))

    def apply_symmetry(
        self, index: int, observation: np.ndarray, policy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """*Default.* Transform an (observation, per-action array) pair by symmetry ``index``.

        ``0 <= index < spec.num_symmetries``; index 0 is the identity. The per-action array
        may be a policy target or a legal mask: both are permuted the same way.
        """
        if not 0 <= index < self.spec.num_symmetries:
            last = self.spec.num_symmetries - 1
            raise ValueError(f"symmetry index {index} out of range 0..{last}")
        return observation, policy

    # ---------------------------------------------------------------- notation level
    @abc.abstractmethod
    def action_to_move(self, state: S, action: int) -> str:
        """The notation string of ``action`` in ``state`` (the action need not be legal)."""

    @abc.abstractmethod
    def move_to_action(self, state: S, move: str) -> int:
        """Parse a notation string into an action index.

        Raises :class:`IllegalMove` if the string is malformed or the move is not legal in
        ``state`` (the reason says which).
        """

    def legal_moves(self, state: S) -> list[str]:
        """*Default.* The legal moves in notation, in action order."""
        return [self.action_to_move(state, int(a)) for a in self.legal_actions(state)]

    def play(self, state: S, move: str) -> S:
        """*Default.* Apply a move given in notation."""
        return self.apply(state, self.move_to_action(state, move))

    def check_action(self, state: S, action: object) -> int:
        """Validate an action index for ``state``; returns it as int or raises IllegalMove."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMove(action, "an action must be an integer index")
        action = int(action)
        if self.is_terminal(state):
            raise IllegalMove(action, "the game is over")
        if not 0 <= action < self.spec.num_actions:
            raise IllegalMove(action, f"action index out of range 0..{self.spec.num_actions - 1}")
        if not self.legal_mask(state)[action]:
            raise IllegalMove(self.action_to_move(state, action), "not legal in this position")
        return action

    def time_out(self, state: S) -> S:
        """The state after the player to act runs out of time (the rules' Timer section).

        Only games whose spec has ``turn_seconds`` define it; sessions apply it, the RL
        environment never does.
        """
        raise IllegalMove("time-out", f"the rules of {self.spec.id} define no turn timer")

    def random_playout(self, state: S, rng: np.random.Generator, max_plies: int) -> np.ndarray:
        """*Default.* Play uniformly random legal actions from ``state`` until the game ends or
        ``max_plies`` actions were played; the :meth:`utility` (all zero if the cap was reached
        first).

        Pure MCTS spends nearly all its time here: engines with a faster internal loop than
        ``legal_mask`` + ``apply`` override it (same distribution over games).
        """
        for _ in range(max_plies):
            if self.is_terminal(state):
                break
            legal = np.flatnonzero(self.legal_mask(state))
            state = self.apply(state, int(legal[rng.integers(len(legal))]))
        if self.is_terminal(state):
            return self.utility(state)
        return np.zeros(self.spec.num_players, dtype=np.float32)

    # ---------------------------------------------------------------- serialization
    @abc.abstractmethod
    def to_json(self, state: S) -> dict[str, Any]:
        """A JSON-compatible dict that :meth:`from_json` turns back into an equal state."""

    @abc.abstractmethod
    def from_json(self, data: Any) -> S:
        """Rebuild a state; raises :class:`InvalidState` with a clear message on bad data."""

    # ---------------------------------------------------------------- matches
    #: Games in one match of the rules (TriGolden: 2, the first player swapping). Match
    #: player A opens game 1, B opens game 2, and so on; the arena scores matches.
    match_games: ClassVar[int] = 1

    def match_returns(self, finals: Sequence[S | None]) -> np.ndarray:
        """*Default.* Results ``(A, B)`` of a match from its games' final states, in order.

        A game the match no longer needs may be None; a game that did not finish (a
        ply cap) is None too, and a match that needs it is a draw. One-game matches are the
        game itself.
        """
        if finals[0] is None:
            return np.zeros(2, dtype=np.float32)
        return self.returns(finals[0]).astype(np.float32)

    def render(self, state: S) -> str:
        """*Default.* A human-readable picture of the state (ASCII)."""
        return repr(self.to_json(state))

    # ---------------------------------------------------------------- for people
    #: Texts a client shows for this game, per language (``{"en": {key: text}, "zh": {...}}``):
    #: its name (``game.<id>``), its seats (``seat.<name>``), its status facts' keys. The
    #: web client adds them to its label tables, so a new game needs no client strings.
    labels: ClassVar[dict[str, dict[str, str]]] = {}

    def board_view(self, state: S) -> dict[str, Any]:
        """*Default: text.* How a client draws ``state``: ``{"kind": ..., ...}`` (envs.boards):
        ``"grid"`` for any board of rows and columns (``envs.boards.grid_board``), a kind of
        the game's own, or this default, the :meth:`render` picture with the legal moves as
        buttons."""
        return {"kind": "text", "text": self.render(state)}

    def status_facts(self, state: S) -> list[dict[str, Any]]:
        """*Default: none.* What a client shows about ``state`` besides whose turn it is
        (captures, pieces in hand, actions still owed), as label keys with arguments
        (``envs.boards.fact``): the client renders them in its language, with no per-game
        code."""
        return []

    def winner(self, state: S) -> int | None:
        """*Default.* Index of the player with the best positive result, or None (draw/not over)."""
        if not self.is_terminal(state):
            return None
        r = self.returns(state)
        best = int(np.argmax(r))
        return best if r[best] > 0 and np.count_nonzero(r == r[best]) == 1 else None


# ---------------------------------------------------------------------------- registry

# id -> "module:Class". Imported lazily so that using one game never imports the others.
_REGISTRY: dict[str, str] = {}
_CLASSES: dict[str, type[Game]] = {}
# id -> Gymnasium id ("qizero/Jiugong-v0"), registered by envs.gym_env.
GYM_IDS: dict[str, str] = {}


def register_game(game_id: str, target: str, gym_id: str) -> None:
    """Register a game class by import path (``"envs.jiugong:Jiugong"``) and its Gymnasium id."""
    _REGISTRY[game_id] = target
    GYM_IDS[game_id] = gym_id


def game_ids() -> list[str]:
    """Ids of every registered game."""
    return list(_REGISTRY)


def game_module(game_id: str) -> ModuleType:
    """The registered module of a game: it exports the Game class and, where the game has one,
    ``greedy_policy`` (its baseline player)."""
    if not isinstance(game_id, str) or game_id not in _REGISTRY:
        raise ConfigError(f"unknown game {game_id!r}; known games: {', '.join(sorted(_REGISTRY))}")
    return importlib.import_module(_REGISTRY[game_id].split(":")[0])


def game_class(game_id: str) -> type[Game]:
    """The Game subclass registered under ``game_id``; ConfigError if unknown."""
    if game_id not in _CLASSES:
        cls = getattr(game_module(game_id), _REGISTRY[game_id].split(":")[1])
        cls.id = game_id
        _CLASSES[game_id] = cls
    return _CLASSES[game_id]


def build_config(config_cls: type, options: dict[str, Any], game_id: str) -> Any:
    """Instantiate a game's Config dataclass from user options, with clear errors.

    Unknown options are refused; values are checked against the field's declared type
    (int, float, str, bool, or a tuple of allowed strings given as ``metadata["choices"]``).
    """
    fields = {f.name: f for f in dataclasses.fields(config_cls)}
    unknown = sorted(set(options) - set(fields))
    if unknown:
        raise ConfigError(
            f"unknown config option(s) {unknown} for game {game_id!r}; "
            f"known options: {sorted(fields)}"
        )
    values: dict[str, Any] = {}
    for name, value in options.items():
        f = fields[name]
        kind = f.type if isinstance(f.type, type) else _TYPE_NAMES.get(str(f.type))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if kind is not None and (
            not isinstance(value, kind) or (kind is int and isinstance(value, bool))
        ):
            raise ConfigError(
                f"config option {name!r} of game {game_id!r} must be {kind.__name__}, "
                f"got {value!r}"
            )
        choices = f.metadata.get("choices")
        if choices is not None and value not in choices:
            raise ConfigError(
                f"config option {name!r} of game {game_id!r} must be one of {list(choices)}, "
                f"got {value!r}"
            )
        values[name] = value
    try:
        return config_cls(**values)
    except (TypeError, ValueError) as exc:  # __post_init__ range checks
        raise ConfigError(f"bad config for game {game_id!r}: {exc}") from exc


_TYPE_NAMES = {"int": int, "float": float, "str": str, "bool": bool}


def config_options(game_id: str) -> list[dict[str, Any]]:
    """Describe a game's config options (name, type, default, choices, help) for clients."""
    cls = game_class(game_id)
    out = []
    for f in dataclasses.fields(cls.Config):
        default = f.default if f.default is not dataclasses.MISSING else None
        kind = f.type if isinstance(f.type, str) else f.type.__name__
        out.append(
            {
                "name": f.name,
                "type": kind,
                "default": default,
                "choices": list(f.metadata["choices"]) if "choices" in f.metadata else None,
                "help": f.metadata.get("help", ""),
            }
        )
    return out


def changed_options(game: Game) -> dict[str, Any]:
    """The options of ``game`` that differ from their defaults."""
    default = type(game.config)()
    return {
        f.name: getattr(game.config, f.name)
        for f in dataclasses.fields(game.config)
        if getattr(game.config, f.name) != getattr(default, f.name)
    }


def options_key(game: Game) -> str:
    """A short, stable name for a game's configuration, ``""`` for the defaults, else the changed
    options as ``name-value`` joined by ``+`` (``scoring-trigolden``): the folder, under
    ``checkpoints/<game>/``, of the levels trained for exactly this configuration."""
    return "+".join(f"{k}-{v}" for k, v in sorted(changed_options(game).items()))


def make_game(game_id: str, **options: Any) -> Game:
    """Build a game by registry id with validated config options.

    >>> g = make_game("jiugong")
    >>> g.legal_moves(g.initial_state())[:2]
    ['a1-a2', 'b1-b2']
    """
    cls = game_class(game_id)
    return cls(build_config(cls.Config, options, game_id))
