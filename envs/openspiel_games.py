"""Every qizero game as an OpenSpiel Python game, so OpenSpiel's algorithms play it.

Importing this module registers ``qizero_<id>`` for every game with ``pyspiel.register_game``
(``pyspiel.load_game("qizero_fangqi")``; :func:`load` does the same with keyword options). The
game facts are data taken from the Game spec: ``GameType`` (sequential, deterministic, perfect
information, zero-sum, terminal rewards; the game's options as parameters, with their defaults)
and, per configuration, ``GameInfo`` (actions, players, utility range [-1, 1], max length).

The rules stay qizero's: a state holds the qizero state, ``current_player`` is ``to_play`` (so a
turn of several actions is several actions by the same player, and OpenSpiel's MCTS backs
values up per player), legal actions come from the legal mask, returns from ``game.returns``.

Why the holder with ``__deepcopy__``: OpenSpiel clones a Python state by deep-copying its
attributes. qizero states are immutable and a game's tables can be large, so both are shared
between clones instead of copied; ``_apply_action`` replaces the state, never changes it.

Observations: the tensor is ``game.observation`` (the position from the view of the player to
move, zeros once the game is over) whichever player asks; in a game of perfect information it
describes the whole state for everyone. The observation string is the game's text picture.

OpenSpiel is an optional extra (``pip install 'qizero[openspiel]'``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from envs.core import Game, game_class, game_ids, make_game, require
from envs.policies import Policy

pyspiel = require("pyspiel", "openspiel")
from open_spiel.python.observation import IIGObserverForPublicInfoGame  # noqa: E402

PREFIX = "qizero_"


class _Shared:
    """A reference that deep copies share: for immutable things (qizero states and games)."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


def game_type(game_id: str) -> Any:
    """OpenSpiel's GameType of a qizero game (its options' defaults as the parameters)."""
    cls = game_class(game_id)
    spec = make_game(game_id).spec
    params = {f.name: getattr(cls.Config(), f.name) for f in dataclasses.fields(cls.Config)}
    return pyspiel.GameType(
        short_name=PREFIX + game_id,
        long_name=f"qizero {spec.name}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=spec.num_players,
        min_num_players=spec.num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params,
    )


def game_info(game: Game) -> Any:
    """OpenSpiel's GameInfo of one configuration of a qizero game."""
    spec = game.spec
    return pyspiel.GameInfo(
        num_distinct_actions=spec.num_actions,
        max_chance_outcomes=0,
        num_players=spec.num_players,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=spec.max_length,
    )


class OpenSpielGame(pyspiel.Game):
    """A qizero game bound to one configuration, as an OpenSpiel game. :func:`register` makes
    one subclass per game, setting ``game_id``."""

    game_id: str

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.qizero = make_game(self.game_id, **(params or {}))
        super().__init__(game_type(self.game_id), game_info(self.qizero), dict(params or {}))

    def new_initial_state(self) -> OpenSpielState:
        return OpenSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info and not iig_obs_type.perfect_recall):
            return Observer(self.qizero, params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class OpenSpielState(pyspiel.State):
    """An OpenSpiel state holding an (immutable) qizero state."""

    def __init__(self, game: OpenSpielGame) -> None:
        super().__init__(game)
        self._game = _Shared(game.qizero)
        self._state = _Shared(game.qizero.initial_state())

    @property
    def qizero_game(self) -> Game:
        return self._game.value

    @property
    def qizero_state(self) -> Any:
        """The qizero state (immutable) this OpenSpiel state stands for."""
        return self._state.value

    def current_player(self) -> int:
        if self.qizero_game.is_terminal(self.qizero_state):
            return pyspiel.PlayerId.TERMINAL
        return self.qizero_game.to_play(self.qizero_state)

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return [int(a) for a in self.qizero_game.legal_actions(self.qizero_state)]

    def _apply_action(self, action: int) -> None:
        # The qizero engine checks the action (IllegalMove with the reason if it is not legal).
        self._state = _Shared(self.qizero_game.apply(self.qizero_state, int(action)))

    def _action_to_string(self, player: int, action: int) -> str:
        return self.qizero_game.action_to_move(self.qizero_state, int(action))

    def is_terminal(self) -> bool:
        return self.qizero_game.is_terminal(self.qizero_state)

    def returns(self) -> list[float]:
        return [float(r) for r in self.qizero_game.returns(self.qizero_state)]

    def __str__(self) -> str:
        return self.qizero_game.render(self.qizero_state)


class Observer:
    """OpenSpiel's PyObserver: the observation planes (see the module docstring)."""

    def __init__(self, game: Game, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        shape = game.spec.observation_shape
        self.tensor = np.zeros(int(np.prod(shape)), dtype=np.float32)
        self.dict = {"observation": self.tensor.reshape(shape)}

    def set_from(self, state: OpenSpielState, player: int) -> None:
        if state.is_terminal():
            self.tensor.fill(0.0)
        else:
            self.dict["observation"][...] = state.qizero_game.observation(state.qizero_state)

    def string_from(self, state: OpenSpielState, player: int) -> str:
        return str(state)


class PolicyBot(pyspiel.Bot):
    """Any qizero policy ``(game, state, rng) -> action`` (``envs.policies``; a trained level
    through ``lambda g, s, rng: player.select_action(g, s, rng)``) as an OpenSpiel bot, for
    OpenSpiel's ``evaluate_bots`` and the like."""

    def __init__(self, policy: Policy, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.policy = policy
        self.rng = np.random.default_rng(seed)

    def restart_at(self, state: OpenSpielState) -> None:
        pass

    def step(self, state: OpenSpielState) -> int:
        return int(self.policy(state.qizero_game, state.qizero_state, self.rng))


def register() -> list[str]:
    """Register every qizero game with OpenSpiel (once per process); their short names."""
    known = set(pyspiel.registered_names())
    names = []
    for game_id in game_ids():
        name = PREFIX + game_id
        if name not in known:
            # A class as the creator, as OpenSpiel's own Python games do: OpenSpiel's registry
            # outlives the interpreter, and a class is never freed before it (a function
            # would be, at exit, without the GIL: a crash).
            cls = type(f"OpenSpiel_{game_id}", (OpenSpielGame,), {"game_id": game_id})
            pyspiel.register_game(game_type(game_id), cls)
        names.append(name)
    return names


def load(game_id: str, **options: Any) -> Any:
    """``pyspiel.load_game("qizero_<id>", options)``, the options checked by qizero first (an
    unknown game or option raises ConfigError)."""
    make_game(game_id, **options)
    return pyspiel.load_game(PREFIX + game_id, options)


register()
