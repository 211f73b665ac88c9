"""Every qizero game as a PettingZoo AEC (agent-environment cycle) environment.

Built by :func:`envs.pettingzoo_env` (``envs.pettingzoo_env("fangqi")``); PettingZoo is an
optional extra (``pip install 'qizero[pettingzoo]'``), imported only when an env is made.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from envs.core import ConfigError, Game, IllegalMove, make_game, require
from envs.gym_env import observation_space

pettingzoo = require("pettingzoo", "pettingzoo")
from pettingzoo.utils import wrappers  # noqa: E402  (after the check that it is installed)


class GameAECEnv(pettingzoo.AECEnv):
    """A qizero game as a PettingZoo AEC environment with legal-action masks.

    ## Description
    Any game of ``envs`` through the Game protocol, one agent per side. The agents are the
    rules' side names (``spec.player_names``: ``"south"``/``"north"`` in Jiugong,
    ``"black"``/``"white"`` in Fang Qi and Stereo Go, ``"p1"``/``"p2"`` in TriGolden). The
    agent selected to act is always the player to move in the game state, never the next in
    turn order: a turn of several actions (Fang Qi's extra placements and captures, TriGolden's
    two pieces) selects the same agent again.

    ## Action Space
    ``Discrete(spec.num_actions)`` for every agent: the game's fixed action space.

    ## Observation Space
    ``Dict(observation=Box(float32, spec.observation_shape), action_mask=Box(int8, (n,)))``.
    ``observation`` is the position encoded from the view of the player to move (the array the
    Gymnasium env and qizero's networks see; all zeros once the game is over). ``action_mask``
    marks the legal actions for the agent selected to act and is all zeros for any other agent.

    ## Starting State
    The game's initial state; the first agent selected is the rules' first mover.

    ## Rewards
    0 until the game ends; then each agent's result from ``game.returns`` (+1 win, -1 loss,
    0 draw), all at the last step, as PettingZoo's ``last()`` hands them to each agent in turn.

    ## Episode End
    Every agent terminates when the game is over under its own rules (draw rules included); no
    truncation. An illegal action ends the game as a loss (-1) for the agent that made it and 0
    for the others, with ``infos[agent]["illegal_action"] = True`` (PettingZoo's
    ``TerminateIllegalWrapper`` convention), unless ``illegal_action="raise"``
    (:class:`envs.IllegalMove` with the reason).

    ## Arguments
    * ``game``: a game id or a Game instance; ``game_config``: options for ``make_game``.
    * ``illegal_action``: ``"lose"`` (default) or ``"raise"``.
    * ``render_mode``: ``None`` or ``"ansi"`` (``render()`` returns the game's text picture).

    ## Version History
    * v0: first version.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "qizero_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str | Game = "jiugong",
        game_config: dict[str, Any] | None = None,
        illegal_action: str = "lose",
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.game = make_game(game, **(game_config or {})) if isinstance(game, str) else game
        spec = self.game.spec
        if illegal_action not in ("lose", "raise"):
            raise ConfigError("illegal_action must be 'lose' or 'raise'")
        if render_mode not in (None, "ansi"):
            raise ConfigError("render_mode must be None or 'ansi'")
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": f"qizero_{spec.id}_v0"}
        self.possible_agents = list(spec.player_names)
        self._observation_spaces = {
            agent: observation_space(spec) for agent in self.possible_agents
        }
        self._action_spaces = {
            agent: spaces.Discrete(spec.num_actions) for agent in self.possible_agents
        }
        self.state: Any = None
        self._over = False  # the game ended: by its rules or by an illegal action

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # The games have no chance: the seed only seeds the action spaces' sampling.
        if seed is not None:
            for k, agent in enumerate(self.possible_agents):
                self._action_spaces[agent].seed(seed + k)
        self.state = self.game.initial_state()
        self._over = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.game.to_play(self.state)]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        spec = self.game.spec
        mask = np.zeros(spec.num_actions, dtype=np.int8)
        if self.state is None or self._over:
            obs = np.zeros(spec.observation_shape, dtype=np.float32)
            return {"observation": obs, "action_mask": mask}
        if agent == self.possible_agents[self.game.to_play(self.state)]:
            mask = self.game.legal_mask(self.state).astype(np.int8)
        return {"observation": self.game.observation(self.state), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        try:
            action = self.game.check_action(self.state, action)
            legal = True
        except IllegalMove:
            if self.illegal_action == "raise":
                raise
            legal = False
        if legal:
            self.state = self.game.apply(self.state, action)
            if self.game.is_terminal(self.state):
                returns = self.game.returns(self.state)
                self._end({a: float(returns[i]) for i, a in enumerate(self.possible_agents)})
            else:
                self.agent_selection = self.possible_agents[self.game.to_play(self.state)]
        else:
            self.infos[agent]["illegal_action"] = True
            self._end({a: (-1.0 if a == agent else 0.0) for a in self.agents})
        self._accumulate_rewards()

    def _end(self, rewards: dict[str, float]) -> None:
        """The game is over: every agent terminates with its reward; the agents after the last
        mover in seat order are selected first for their closing (dead) steps."""
        mover = self.agent_selection
        self._over = True
        self.rewards = rewards
        self.terminations = dict.fromkeys(self.agents, True)
        seats = self.possible_agents
        self.agent_selection = seats[(seats.index(mover) + 1) % len(seats)]

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.state is not None:
            return self.game.render(self.state)
        return None

    def close(self) -> None:
        pass


def make_env(
    game_id: str,
    *,
    illegal_action: str = "lose",
    render_mode: str | None = None,
    **options: Any,
) -> pettingzoo.AECEnv:
    """A game's AEC env with PettingZoo's order checks (``OrderEnforcingWrapper``: ``step``
    before ``reset`` and the like raise); ``env.unwrapped`` is the :class:`GameAECEnv`."""
    env = GameAECEnv(game_id, options, illegal_action=illegal_action, render_mode=render_mode)
    return wrappers.OrderEnforcingWrapper(env)
