"""Analysis: one position searched under a budget, reporting as it goes, stoppable at once.

Why its own loop (and not :func:`agents.search.search`): a move suggestion needs only the
result, while an analysis board (KataGo's analysis engine, Lizzie, lichess) shows the search
while it runs and lets the user stop it. So this drives the shared :class:`Tree` step by step:
after every step it may hand a snapshot (:class:`RootReport`) to ``report`` (at most every
``interval`` seconds), and it stops at the first step after the budget (visits or seconds) is
spent, ``cancel`` is set, or the MCTS-Solver has proved the root (its value is then exact: more
simulations would add nothing). Every algorithm (Gumbel, PUCT, UCT) and every evaluator works as in
a move search: the same tree, the same batching (``cfg.batch``), the same evaluator calls.

A snapshot is read between steps, when no descent is in flight (no virtual loss counted).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.config import SearchConfig
from agents.evaluator import Evaluator
from agents.search.node import Node
from agents.search.tree import Tree
from envs.core import Game

#: Longest principal variation reported (plies).
MAX_PV = 24


@dataclass
class MoveReport:
    """One root move: its search statistics and the line the search expects after it."""

    action: int
    move: str
    visits: int
    value: float | None  # mean value for the side to move at the root; None if unvisited
    prior: float
    pv: list[str]  # starts with ``move``


@dataclass
class RootReport:
    """The search of one root so far (``final``: the budget is spent or it was stopped)."""

    final: bool
    visits: int  # simulations backed up through the root
    seconds: float
    value: float  # the root value for the side to move, in [-1, 1]
    moves: list[MoveReport] = field(default_factory=list)  # best first


def analysis_config(cfg: SearchConfig, visits: int) -> SearchConfig:
    """A level's search settings for an analysis of up to ``visits`` simulations: no
    temperature (the analysis shows the best move, it does not sample one)."""
    return cfg.model_copy(update={"simulations": visits, "temperature": 0.0})


def analyse(
    game: Game,
    state: Any,
    evaluator: Evaluator,
    cfg: SearchConfig,
    rng: np.random.Generator,
    *,
    seconds: float | None = None,
    interval: float | None = None,
    report: Callable[[RootReport], None] | None = None,
    cancel: threading.Event | None = None,
    top: int = 5,
) -> RootReport:
    """Search ``state`` for ``cfg.simulations`` simulations or ``seconds``, whichever ends
    first (or until ``cancel`` is set); returns the final report. Every ``interval`` seconds
    ``report`` gets a partial one (``final`` False). ``top``: root moves listed."""
    if game.is_terminal(state):
        raise ValueError("cannot analyse a terminal state: the game is over")
    from agents.search import ALGORITHMS, leaf_evaluator

    t0 = time.perf_counter()
    evaluator = leaf_evaluator(evaluator, cfg, rng)
    tree = Tree(game, state, cfg, ALGORITHMS[cfg.algorithm](cfg, rng))
    priors, values = evaluator.evaluate(game, [state])
    tree.start(priors[0], float(values[0]), None)
    deadline = t0 + seconds if seconds is not None else None
    next_report = t0 + interval if interval is not None else None
    while tree.started < cfg.simulations and tree.root.proven is None:
        if cancel is not None and cancel.is_set():
            break
        now = time.perf_counter()
        if deadline is not None and now >= deadline:
            break
        if report is not None and next_report is not None and now >= next_report:
            report(snapshot(tree, now - t0, final=False, top=top))
            next_report = now + interval  # type: ignore[operator]
        leaves = tree.descend()
        if leaves:
            p, v = evaluator.evaluate(game, [leaf.state for leaf in leaves])
            tree.finish(p, v)
    return snapshot(tree, time.perf_counter() - t0, final=True, top=top)


def snapshot(tree: Tree, seconds: float, final: bool, top: int) -> RootReport:
    """The root's statistics now: its value (exact once the solver proved it, else as the
    algorithm states it) and its ``top`` moves, best first (:func:`_rank`)."""
    root, game = tree.root, tree.game
    if root.proven is not None:
        value = float(root.proven[root.player])
    else:
        value = float(tree.algorithm.target(root).value)
    order = sorted(range(len(root.actions)), key=lambda i: _rank(root, i), reverse=True)
    moves = []
    for i in order[:top]:
        n = int(root.N[i])
        moves.append(MoveReport(
            action=root.actions[i],
            move=game.action_to_move(root.state, root.actions[i]),
            visits=n,
            value=float(root.W[i]) / n if n else None,
            prior=float(root.prior[i]),
            pv=principal_variation(game, root, i),
        ))
    return RootReport(final, root.total, seconds, value, moves)


def principal_variation(game: Game, root: Node, i: int) -> list[str]:
    """Root edge ``i`` then, in each node below, the most visited edge (ties: the better
    value for the player there), while the search has visited that node's edges."""
    line = [game.action_to_move(root.state, root.actions[i])]
    node = root.children[i]
    while node is not None and node.expanded and node.total > 0 and len(line) < MAX_PV:
        j = _most_visited(node)
        line.append(game.action_to_move(node.state, node.actions[j]))
        node = node.children[j]
    return line


def _most_visited(node: Node) -> int:
    N, W = node.N.tolist(), node.W.tolist()
    return max(range(len(N)), key=lambda k: (N[k], W[k] / N[k] if N[k] else -2.0))


def _rank(root: Node, i: int) -> tuple[int, int, float, float]:
    """A root edge's place: proven wins first and proven losses last (MCTS-Solver: a few
    visits can prove what many visits of another move only estimate, as the move choice of
    :meth:`Tree.result` also knows), then visits, value, prior."""
    child, n = root.children[i], int(root.N[i])
    proof = 0
    if child is not None and child.proven is not None:
        exact = child.proven[root.player]
        proof = 1 if exact >= 1.0 else -1 if exact <= -1.0 else 0
    return proof, n, float(root.W[i]) / n if n else -2.0, float(root.prior[i])
