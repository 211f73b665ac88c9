"""One generic Gymnasium environment over any :class:`envs.core.Game`.

The rules stay in the engines; this wrapper adds only what rules should not know about: the
mapping from the agent to a seat, the opponent policy, the illegal-action convention and the
Gymnasium spaces.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from envs.core import GYM_IDS, ConfigError, Game, GameSpec, make_game
from envs.policies import Policy, named_policy


def observation_space(spec: GameSpec) -> spaces.Dict:
    """The observation space of a game's envs (Gymnasium and PettingZoo): the mover's view and
    the int8 legal-action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(
                *spec.observation_range, shape=spec.observation_shape, dtype=np.float32
            ),
            "action_mask": spaces.Box(0, 1, shape=(spec.num_actions,), dtype=np.int8),
        }
    )


class GameEnv(gym.Env):
    """A qizero game as a Gymnasium environment with legal-action masking.

    ## Description
    Wraps any game of ``envs`` (Jiugong, Fang Qi, Stereo Go, TriGolden) through the Game
    protocol. Turns with several actions by the same player (Fang Qi's captures, TriGolden's
    two pieces) are simply several steps by that player.

    ## Action Space
    ``Discrete(game.spec.num_actions)``: the game's fixed action space. Only actions with
    ``action_mask == 1`` are legal.

    ## Observation Space
    ``Dict(observation=Box(float32, game.spec.observation_shape), action_mask=Box(int8, (n,)))``,
    the observation encoded from the view of the player to move. ``info["action_mask"]`` and
    :meth:`action_masks` carry the same mask (the sb3-contrib convention).

    ## Starting State
    The game's initial state. In versus-opponent mode with ``agent_player=1`` the opponent moves
    first, inside ``reset``.

    ## Rewards
    0 on every step until the game ends; then the agent's result from ``game.returns``
    (+1 win, -1 loss, 0 draw). In self-play mode the reward is that of the player who made the
    last action. ``info["returns"]`` has every player's result.

    ## Episode End
    Terminated when the game is over (its own rules, draw rules included). An illegal action
    ends the episode as a loss for the player who made it, with ``info["illegal_action"] = True``
    (the PettingZoo convention), unless ``illegal_action="raise"``.

    ## Arguments
    * ``game``: a game id (``"jiugong"``) or a Game instance.
    * ``game_config``: options passed to ``envs.make_game`` when ``game`` is an id.
    * ``opponent``: ``None`` for self-play (the agent acts for whoever is to move), a policy
      name of ``envs.policies`` (``"random"``, ``"greedy"``, ``"solver"`` for Jiugong), or a
      callable ``(game, state, rng) -> action``.
    * ``agent_player``: the seat the agent plays against an opponent (0 or 1).
    * ``illegal_action``: ``"lose"`` (default) or ``"raise"``.

    ## Version History
    * v0: first version.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}

    def __init__(
        self,
        game: str | Game = "jiugong",
        game_config: dict[str, Any] | None = None,
        opponent: str | Policy | None = None,
        agent_player: int = 0,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        self.game = make_game(game, **(game_config or {})) if isinstance(game, str) else game
        spec = self.game.spec
        if illegal_action not in ("lose", "raise"):
            raise ConfigError("illegal_action must be 'lose' or 'raise'")
        if not 0 <= agent_player < spec.num_players:
            raise ConfigError(f"agent_player must be in 0..{spec.num_players - 1}")
        if render_mode not in (None, "ansi"):
            raise ConfigError("render_mode must be None or 'ansi'")
        self.opponent: Policy | None = (
            named_policy(self.game, opponent) if isinstance(opponent, str) else opponent
        )
        self.agent_player = agent_player
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.action_space = spaces.Discrete(spec.num_actions)
        self.observation_space = observation_space(spec)
        self.state: Any = None
        self._mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._opponent_rng = np.random.default_rng()

    # ------------------------------------------------------------------ helpers
    def _agent_to_move(self) -> bool:
        return self.opponent is None or self.game.to_play(self.state) == self.agent_player

    def _play_opponent(self) -> None:
        while not self.game.is_terminal(self.state) and not self._agent_to_move():
            action = self.opponent(self.game, self.state, self._opponent_rng)
            self.state = self.game.apply(self.state, action)

    def _observe(self) -> dict[str, np.ndarray]:
        # The boolean mask becomes int8 once, here at the boundary.
        self._mask = self.game.legal_mask(self.state).astype(np.int8)
        if self.game.is_terminal(self.state):
            obs = np.zeros(self.game.spec.observation_shape, dtype=np.float32)
        else:
            obs = self.game.observation(self.state)
        return {"observation": obs, "action_mask": self._mask}

    def _info(self, **extra: Any) -> dict[str, Any]:
        terminal = self.game.is_terminal(self.state)
        info = {
            "action_mask": self._mask,
            "to_play": None if terminal else self.game.to_play(self.state),
        }
        info.update(extra)
        return info

    # ------------------------------------------------------------------ gym API
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        self._opponent_rng = np.random.default_rng(self.np_random.integers(2**63))
        self.state = self.game.initial_state()
        if self.opponent is not None:
            self._play_opponent()
        obs = self._observe()
        return obs, self._info()

    def step(
        self, action: int
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        if self.game.is_terminal(self.state):
            raise RuntimeError("the episode is over; call reset()")
        mover = self.game.to_play(self.state)
        action = int(action)
        if not (0 <= action < self.game.spec.num_actions and self._mask[action]):
            if self.illegal_action == "raise":
                self.game.check_action(self.state, action)  # raises IllegalMove with the reason
            obs = self._observe()
            self._mask = np.zeros_like(self._mask)
            obs["action_mask"] = self._mask
            returns = np.zeros(self.game.spec.num_players, dtype=np.float32)
            returns[mover] = -1.0
            info = self._info(illegal_action=True, returns=returns)
            info["to_play"] = None
            self.state = None
            return obs, -1.0, True, False, info
        self.state = self.game.apply(self.state, action)
        if self.opponent is not None:
            self._play_opponent()
        obs = self._observe()
        terminated = self.game.is_terminal(self.state)
        reward = 0.0
        info = self._info()
        if terminated:
            returns = self.game.returns(self.state)
            seat = mover if self.opponent is None else self.agent_player
            reward = float(returns[seat])
            info["returns"] = returns
        return obs, reward, terminated, False, info

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of the current state (sb3-contrib's MaskablePPO calls this)."""
        return self._mask.astype(bool)

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.state is not None:
            return self.game.render(self.state)
        return None


def register_gym_envs() -> None:
    """Register ``qizero/<Game>-v0`` for every registered game (idempotent)."""
    for game_id, gym_id in GYM_IDS.items():
        if gym_id not in gym.registry:
            gym.register(id=gym_id, entry_point=GameEnv, kwargs={"game": game_id})
