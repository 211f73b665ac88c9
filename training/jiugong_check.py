"""Judge a Jiugong player against the exact solver: the proof that training reached perfect play.

Three figures, all over every position reachable from the start (positions without history,
as the solver labels them):

1. **Search player** (the top level): in every non-terminal position, is its move one that does
   not worsen the solved outcome (a won position stays won, a drawn one at least drawn)?
   Reported as positions checked and failures (must be 0).
2. **Conversion**: from every won position, playing it out against the solver (which picks at
   random among its optimal moves), does the player actually win — no shuffling into a
   repetition draw or the 200-ply cap?
3. **Raw policy** (no search): the share of positions where the network's most probable move
   keeps the solved outcome (target >= 95%).

Players are searched in large batches, so the whole check takes seconds, not hours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.evaluator import Evaluator
from agents.players import Player
from envs.jiugong_solver import WIN, get_solver


@dataclass
class JiugongReport:
    positions: int
    failures: int
    won_positions: int
    conversions: int
    raw_positions: int
    raw_agreement: float  # fraction of positions where the raw policy keeps the outcome
    failure_examples: list[str]

    def lines(self) -> list[str]:
        return [
            f"top level: positions checked {self.positions}, failures {self.failures}",
            f"won positions played out against the solver: {self.won_positions}, "
            f"won {self.conversions}, not won {self.won_positions - self.conversions}",
            f"raw policy (no search): keeps the solved outcome in "
            f"{100 * self.raw_agreement:.2f}% of {self.raw_positions} positions",
        ]


def _batched(player: Player, game, states, rng, chunk: int = 1024) -> list[int]:
    out: list[int] = []
    for start in range(0, len(states), chunk):
        out += player.select_actions(game, states[start : start + chunk], rng)
    return out


def check_player(
    player: Player, evaluator: Evaluator | None, seed: int = 0, playouts: bool = True
) -> JiugongReport:
    """All three figures for ``player`` (and for ``evaluator``'s raw policy when given)."""
    solver = get_solver()
    game = solver.game
    rng = np.random.default_rng(seed)
    states = [s for s in solver.positions() if not game.is_terminal(s)]
    moves = _batched(player, game, states, rng)
    failures = []
    for s, a in zip(states, moves):
        if a not in solver.preserving_actions(s):
            failures.append(
                f"{game.to_json(s)['board']} {game.to_json(s)['to_play']}"
                f"{' locked' if s.shared_locked else ''}: played {game.action_to_move(s, a)} "
                f"({solver.value(s)} -> {solver.move_values(s)[a]})"
            )
    # Raw policy agreement.
    raw_ok, raw_n = 0, 0
    if evaluator is not None:
        for start in range(0, len(states), 2048):
            chunk = states[start : start + 2048]
            priors, _ = evaluator.evaluate(game, chunk)
            for s, p in zip(chunk, priors):
                raw_n += 1
                raw_ok += int(int(np.argmax(p)) in solver.preserving_actions(s))
    # Conversion of won positions against the solver.
    won = [s for s in states if solver.value(s).outcome == WIN]
    conversions = 0
    if playouts:
        conversions = _play_out(player, game, solver, won, rng)
    return JiugongReport(
        positions=len(states),
        failures=len(failures),
        won_positions=len(won),
        conversions=conversions,
        raw_positions=raw_n,
        raw_agreement=raw_ok / raw_n if raw_n else float("nan"),
        failure_examples=failures[:10],
    )


def _play_out(player: Player, game, solver, starts, rng: np.random.Generator) -> int:
    """Play every start position out, ``player`` on the side to move, the solver opposite."""
    states = list(starts)
    hero = [game.to_play(s) for s in states]
    active = list(range(len(states)))
    while active:
        mine = [k for k in active if game.to_play(states[k]) == hero[k]]
        if mine:
            acts = _batched(player, game, [states[k] for k in mine], rng)
            for k, a in zip(mine, acts):
                states[k] = game.apply(states[k], a)
        for k in active:
            s = states[k]
            if not game.is_terminal(s) and game.to_play(s) != hero[k]:
                states[k] = game.apply(s, int(rng.choice(solver.optimal_actions(s))))
        active = [k for k in active if not game.is_terminal(states[k])]
    return sum(1 for k, s in enumerate(states) if game.winner(s) == hero[k])
