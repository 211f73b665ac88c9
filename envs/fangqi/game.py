"""Jieshou Fang Qi (界首方棋) on the Game protocol, per ``docs/rules/fangqi.md``.

The rules live in :mod:`envs.fangqi.rules` (transitions), :mod:`envs.fangqi.board` (geometry
and shape tables), :mod:`envs.fangqi.features` (observation planes, symmetries),
:mod:`envs.fangqi.notation` and :mod:`envs.fangqi.serialize`; this class binds them to the
protocol. Board index map and action space: see :mod:`envs.fangqi.board`. Rule decisions where
the spec leaves room: ``docs/fangqi.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.boards import fact, label_arg, seat_arg, seats_arg, special_board
from envs.core import Game, GameSpec, IllegalMove
from envs.fangqi import features, notation, serialize
from envs.fangqi.baseline import greedy_policy
from envs.fangqi.board import NUM_ACTIONS, NUM_POINTS, NUM_SYMMETRIES
from envs.fangqi.rules import apply_action, initial_state, legal_actions, time_out
from envs.fangqi.state import (
    DRAW,
    NO_CAPTURE_LIMIT,
    ONGOING,
    OVER,
    PLAYER_NAMES,
    FangQiState,
    position_key,
)

# Upper bound on the actions in a game: 36 placements; at most 36 removals after the board
# fills (pull, captures, making room: each takes one of the 36 pieces); and at most 60 steps
# per capture-free stretch, with at most 35 turns that capture, so 60 * 36 steps.
MAX_LENGTH = NUM_POINTS + NUM_POINTS + NO_CAPTURE_LIMIT * NUM_POINTS


@dataclass(frozen=True)
class FangQiConfig:
    """Fang Qi has no options; the class exists so every game is configured the same way."""


class FangQi(Game[FangQiState]):
    """Jieshou Fang Qi: placement with extra placements, the pull, movement with captures."""

    Config = FangQiConfig

    _SPEC = GameSpec(
        id="fangqi",
        name="Jieshou Fang Qi 界首方棋",
        player_names=PLAYER_NAMES,
        num_actions=NUM_ACTIONS,
        observation_shape=features.OBSERVATION_SHAPE,
        max_length=MAX_LENGTH,
        num_symmetries=NUM_SYMMETRIES,
        turn_seconds=60.0,
    )

    @property
    def spec(self) -> GameSpec:
        return self._SPEC

    # ------------------------------------------------------------ array level
    def initial_state(self) -> FangQiState:
        return initial_state()

    def to_play(self, state: FangQiState) -> int:
        return state.to_play

    def _legal(self, state: FangQiState) -> tuple[int, ...]:
        legal = state._legal
        if legal is None:
            legal = legal_actions(state)
            object.__setattr__(state, "_legal", legal)
        return legal

    def _cached_mask(self, state: FangQiState) -> np.ndarray:
        mask = state._mask
        if mask is None:
            mask = np.zeros(NUM_ACTIONS, dtype=bool)
            mask.put(self._legal(state), True)
            mask.flags.writeable = False
            object.__setattr__(state, "_mask", mask)
        return mask

    def legal_mask(self, state: FangQiState) -> np.ndarray:
        return self._cached_mask(state).copy()

    def legal_actions(self, state: FangQiState) -> np.ndarray:
        return np.array(self._legal(state), dtype=np.int64)

    def apply(self, state: FangQiState, action: int) -> FangQiState:
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < NUM_ACTIONS
        ):
            self.check_action(state, action)  # raises with the reason
        action = int(action)
        if action not in self._legal(state):
            self.check_action(state, action)  # raises with the reason
        return apply_action(state, action)

    def is_terminal(self, state: FangQiState) -> bool:
        return state.phase == OVER

    def returns(self, state: FangQiState) -> np.ndarray:
        if state.result in (ONGOING, DRAW):
            return np.zeros(2, dtype=np.float32)
        r = np.full(2, -1.0, dtype=np.float32)
        r[state.result] = 1.0
        return r

    def random_playout(
        self, state: FangQiState, rng: np.random.Generator, max_plies: int
    ) -> np.ndarray:
        """The raw engine loop, without masks or checks: about 2.4x the generic playout
        (``bench/fangqi_random.py``), which is what pure MCTS spends its time on."""
        for _ in range(max_plies):
            if state.phase == OVER:
                break
            actions = legal_actions(state)
            state = apply_action(state, actions[int(rng.integers(len(actions)))])
        return self.utility(state)

    def observation(self, state: FangQiState) -> np.ndarray:
        return features.observation(state)

    def apply_symmetry(
        self, index: int, observation: np.ndarray, policy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        return features.apply_symmetry(index, observation, policy)

    # ------------------------------------------------------------ notation level
    def action_to_move(self, state: FangQiState, action: int) -> str:
        if isinstance(action, np.integer):
            action = int(action)
        return notation.action_to_move(action)

    def move_to_action(self, state: FangQiState, move: str) -> int:
        return notation.move_to_action(state, move)

    def legal_moves(self, state: FangQiState) -> list[str]:
        return [notation.action_to_move(a) for a in self._legal(state)]

    # ------------------------------------------------------------ serialization
    def to_json(self, state: FangQiState) -> dict[str, Any]:
        return serialize.to_json(state)

    def from_json(self, data: Any) -> FangQiState:
        return serialize.from_json(data)

    def board_view(self, state: FangQiState) -> dict[str, Any]:
        return special_board("fangqi")

    def status_facts(self, state: FangQiState) -> list[dict[str, Any]]:
        """The phase and the pieces in hand; then what the side to act still owes (extra
        placements earned by shapes, captures, a piece removed to make room)."""
        data = serialize.to_json(state)
        phase, seat = data["phase"], seat_arg(data["to_play"])
        facts = [fact("state.fangqi", phase=label_arg(f"state.fangqi.{phase}"),
                      hand=seats_arg(data["hand"]))]
        if phase == "room":
            facts.append(fact("state.fangqi.owedRoom", seat=seat))
        elif data["owed"] and phase == "place":
            facts.append(fact("rules.fangqi.owed", seat=seat, n=data["owed"]))
        elif data["owed"]:
            facts.append(fact("state.fangqi.owedRemove", seat=seat, n=data["owed"]))
        return facts

    def render(self, state: FangQiState) -> str:
        return serialize.render(state)

    def time_out(self, state: FangQiState) -> FangQiState:
        """The state after the side to act runs out of time (sessions; see rules.time_out)."""
        if state.phase == OVER:
            raise IllegalMove("time-out", "the game is over")
        return time_out(state)

    # ------------------------------------------------------------ helpers
    def position(
        self,
        diagram: str,
        phase: str = "place",
        to_play: str = "black",
        **fields: Any,
    ) -> FangQiState:
        """A state from an ASCII diagram (rank 6 on top) and the JSON fields, for tests and
        analysis. ``fields`` are the other keys of :func:`serialize.to_json` (``owed``,
        ``hand``, ``no_capture``, ``history``...). In phase ``step`` the current position is
        added to the history if it is not already its last entry. Raises InvalidState."""
        data: dict[str, Any] = {
            "board": serialize.parse_diagram(diagram),
            "phase": phase,
            "to_play": to_play,
            **fields,
        }
        if phase == "step" and to_play in PLAYER_NAMES:
            black, white = serialize.parse_board_string(data["board"])
            key = format(position_key(black, white, PLAYER_NAMES.index(to_play)), "x")
            history = list(data.get("history", []))
            if not history or history[-1] != key:
                data["history"] = history + [key]
        return serialize.from_json(data)


# greedy_policy is re-exported here because agents.players looks for the greedy baseline in
# the module that defines the game class.
__all__ = ["FangQi", "FangQiConfig", "MAX_LENGTH", "greedy_policy"]
