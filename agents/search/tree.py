"""The tree that every algorithm shares: descents, expansion, backup, proofs, the result.

Values are backed up *per player* (each edge accumulates the value of the player who chose
it), so a turn of several actions by the same player needs nothing special. Terminal values
are ``game.utility(state)``; values from an evaluator are zero-sum between two players (the
mover gets ``v``, every other player ``-v``).

Batches (``SearchConfig.batch = B > 1``): up to B descents go down before their leaves are
evaluated, in one evaluator call with the other trees' leaves. Each descent marks the edges it
took with a *virtual loss* (one more visit, a lost one for the player choosing), so the next
descent of the batch prefers other lines; the backup turns the loss into the real value
(Gumbel marks nothing: ``Algorithm.virtual_loss``).
Two descents can still meet at the same new leaf: it is evaluated once and each descent backed
up with its value. A descent that ends on a terminal or proven state is backed up at once. At
``B = 1`` nothing is marked and the search is the sequential one, float for float. With
``cfg.prefetch_cuts`` Gumbel's cutting rounds, which go one descent at a time, also send down
the descents their next picks are predicted to make; the picks are then made one by one, and
a predicted leaf is used when its pick comes (:meth:`Tree._descend_cut`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.config import SearchConfig
from agents.search.algorithm import Algorithm
from agents.search.node import Node
from envs.core import Game

# The value a descent in flight counts as on each edge it took: a loss for whoever chose it.
VIRTUAL_LOSS = 1.0

Path = list[tuple[Node, int]]


@dataclass
class SearchResult:
    """What a search says about its root.

    ``policy`` is the training target over the full action space (improved policy for Gumbel,
    visit distribution for PUCT); ``value`` the root value for the player to move.
    """

    action: int
    policy: np.ndarray
    value: float
    visits: np.ndarray  # full action space
    q: np.ndarray  # full action space, for the player to move (0 where unvisited)
    simulations: int


class Tree:
    """One root being searched by one algorithm; :func:`agents.search.search` steps many
    trees together."""

    def __init__(self, game: Game, state: Any, cfg: SearchConfig, algorithm: Algorithm) -> None:
        self.game = game
        self.cfg = cfg
        self.algorithm = algorithm
        self.root = Node(game, state)
        self.started = 0  # descents begun (simulations spent)
        self.virtual = cfg.batch > 1 and algorithm.virtual_loss
        # The batch going down: each descent's path, how many of its edges are unmarked (all
        # of them without virtual losses, else none), its leaf; the distinct leaves.
        self._descents: list[tuple[Path, int, Node]] = []
        self.leaves: list[Node] = []
        # ``cfg.prefetch_cuts``: the predicted descents of a cutting round going down with this
        # step (root edge, path, leaf; their leaves end ``self.leaves``), and those evaluated
        # and waiting for their pick (root edge -> path, leaf, prior and value or None).
        self.prefetch = cfg.prefetch_cuts and cfg.batch > 1
        self._predicted: list[tuple[int, Path, Node]] = []
        self._ready: dict[int, tuple[Path, Node, np.ndarray | None, float]] = {}

    def start(self, prior: np.ndarray, value: float, mask: np.ndarray | None) -> None:
        self.root.expand(self.game, prior, value, self.cfg.policy_temperature, mask)
        self.algorithm.prepare(self.root)

    def descend(self) -> list[Node]:
        """The next batch of simulations goes down (``cfg.batch`` of them or fewer: the budget
        left, the algorithm's say); returns the distinct leaves that need an evaluation (pass
        their priors and values to :meth:`finish`)."""
        count = min(self.cfg.batch, self.cfg.simulations - self.started)
        if count > 1 and self.prefetch:
            picks = self.algorithm.cut_picks(self.started, count)
            while picks and self._descend_cut(picks):  # a round done without the network
                count = min(self.cfg.batch, self.cfg.simulations - self.started)
                picks = self.algorithm.cut_picks(self.started, count) if count > 1 else 0
            if picks or self.leaves:
                return self.leaves
        if count > 1:
            count = self.algorithm.batch_size(self.started, count)
        for _ in range(count):
            self._descend_one()
        return self.leaves

    def _descend_cut(self, picks: int) -> bool:
        """``picks`` descents of a cutting round (``cfg.prefetch_cuts``), one after the other
        as the sequential search makes them: each takes the root edge that
        :meth:`Algorithm.select_root` gives on the statistics the ones before it left; one
        whose leaf a step before predicted and evaluated is backed up at once. The first that
        was not predicted goes down to be evaluated in this step, with the round's next picks
        as predicted now (their subtrees are untouched until their next descent, so each finds
        the leaf the predicted descent found). True if the round's picks are all done."""
        root = self.root
        while picks:
            if root.proven is not None:  # solved: each simulation adds nothing
                for _ in range(picks):
                    self._descend_one()
                return True
            i = self.algorithm.select_root(root, self.started)
            self.started += 1
            picks -= 1
            ready = self._ready.pop(i, None)
            if ready is None:
                self._descend_edge(i)
                if self.leaves:  # to be evaluated: predict the rest of the round with it
                    self._predict(picks)
                    return False
                continue
            path, leaf, prior, value = ready
            if prior is not None:
                self._expand(leaf, prior, value)
            proven = leaf.proven
            self._backup(path, len(path), proven if proven is not None
                         else _value_vector(self.game, leaf.player, leaf.raw_value))
        return True

    def _predict(self, picks: int) -> None:
        """Send down the descents of the round's next ``picks`` picks as predicted now."""
        game, select = self.game, self.algorithm.select
        for i in self.algorithm.ranked_root(self.root, self.started, picks):
            if i in self._ready:
                continue
            path: Path = [(self.root, i)]
            node = self.root.child(game, i)
            while node.expanded and node.proven is None:
                j = select(node)
                path.append((node, j))
                node = node.child(game, j)
            if node.proven is not None:
                self._ready[i] = (path, node, None, 0.0)
            else:
                self._predicted.append((i, path, node))
                self.leaves.append(node)

    def _descend_one(self) -> None:
        sim = self.started
        self.started += 1
        node = self.root
        if node.proven is not None:  # solved: the simulation adds nothing
            self._backup([], 0, node.proven)
            return
        self._descend_edge(self.algorithm.select_root(node, sim))

    def _descend_edge(self, i: int) -> None:
        """A descent through root edge ``i`` (its simulation counted) goes down to its leaf."""
        game, node = self.game, self.root
        if self._ready:  # a leaf predicted below ``i`` is no longer the next one
            self._ready.pop(i, None)
        path: Path = [(node, i)]
        node = node.child(game, i)
        select = self.algorithm.select
        while node.expanded and node.proven is None:
            i = select(node)
            path.append((node, i))
            node = node.child(game, i)
        if node.proven is not None:  # terminal, or solved: its exact value, no evaluation
            self._backup(path, len(path), node.proven)
            return
        unmarked = len(path)
        if self.virtual:
            unmarked = 0
            for parent, i in path:
                parent.count_visit(i)
                parent.W[i] -= VIRTUAL_LOSS
        self._descents.append((path, unmarked, node))
        leaves = self.leaves
        if not leaves or all(node is not leaf for leaf in leaves):
            leaves.append(node)

    def finish(self, priors: np.ndarray, values: np.ndarray) -> None:
        """Expand the leaves with their evaluations and back up every descent of the batch."""
        game = self.game
        own = len(self.leaves) - len(self._predicted)
        for leaf, prior, value in zip(self.leaves[:own], priors, values):
            self._expand(leaf, prior, float(value))
        for (i, path, leaf), prior, value in zip(self._predicted, priors[own:], values[own:]):
            self._ready[i] = (path, leaf, prior, float(value))  # expanded when picked
        self._predicted = []
        for path, unmarked, leaf in self._descents:
            if leaf.proven is not None:
                self._backup(path, unmarked, leaf.proven)
            else:
                self._backup(path, unmarked, _value_vector(game, leaf.player, leaf.raw_value))
        self._descents = []
        self.leaves = []

    def _expand(self, leaf: Node, prior: np.ndarray, value: float) -> None:
        leaf.expand(self.game, prior, value, self.cfg.policy_temperature)
        if self.cfg.solver and self.cfg.terminal_lookahead:
            self._look_ahead(leaf)

    def _look_ahead(self, node: Node) -> bool:
        """Create every child at once and solve the node if one of them ends the game in a
        win for the mover (or all of them end it): one ply of exact tactics per expansion."""
        p = node.player
        best: list[float] | None = None
        complete = True
        for i in range(len(node.actions)):
            c = node.child(self.game, i)
            if c.proven is None:
                complete = False
            elif best is None or c.proven[p] > best[p]:
                best = c.proven
            if best is not None and best[p] >= 1.0:
                break
        if best is not None and (best[p] >= 1.0 or complete):
            node.proven = best
            return True
        return False

    def _backup(self, path: Path, unmarked: int, values: list[float]) -> None:
        """Add the values along ``path``; its edges from ``unmarked`` on already hold this
        descent's visit (with a virtual loss, taken back here)."""
        solver = self.cfg.solver
        if not self.virtual:  # the sequential search: the hot path, kept lean
            for node, i in path:
                node.count_visit(i)
                node.W[i] += values[node.player]
        else:
            for k, (node, i) in enumerate(path):
                if k < unmarked:
                    node.count_visit(i)
                else:
                    node.W[i] += VIRTUAL_LOSS
                node.W[i] += values[node.player]
                child = node.children[i]
                if solver and child is not None and child.proven is not None:
                    # Proven while this descent was in flight: the edge holds the exact value
                    # (the proof set it before this descent's visit arrived).
                    node.W[i] = node.N[i] * child.proven[node.player]
        if path:
            self.algorithm.backed_up(path[0][1])
        if solver:
            self._propagate_proofs(path)

    def _propagate_proofs(self, path: Path) -> None:
        """MCTS-Solver (Winands et al. 2008), per player: an edge into a proven child takes
        the child's exact value; a node is proven when its player has a proven win, or when
        every child is proven (then it is worth the best of them for its player)."""
        for node, i in reversed(path):
            proven = node.children[i].proven
            if proven is None:
                return
            p = node.player
            node.W[i] = node.N[i] * proven[p]
            if proven[p] < 1.0:
                for c in node.children:
                    if c is None or c.proven is None:
                        return  # not solved: nothing above changes either
                    if c.proven[p] > proven[p]:
                        proven = c.proven
            node.proven = proven

    def _solved_choice(self, i: int) -> int:
        """Take a proven win when there is one; never a proven loss when something else is
        left (the statistics alone can still favour them after few simulations)."""
        root = self.root
        p = root.player
        best_win, best_n = -1, -1
        for j, c in enumerate(root.children):
            if c is not None and c.proven is not None and c.proven[p] >= 1.0 and root.N[j] > best_n:
                best_win, best_n = j, root.N[j]
        if best_win >= 0:
            return best_win
        chosen = root.children[i]
        if chosen is None or chosen.proven is None or chosen.proven[p] > -1.0:
            return i
        others = [
            j
            for j, c in enumerate(root.children)
            if c is None or c.proven is None or c.proven[p] > -1.0
        ]
        if not others:
            return i
        return max(others, key=lambda j: (root.N[j], root.W[j] / max(root.N[j], 1)))

    def result(self) -> SearchResult:
        root, cfg = self.root, self.cfg
        a_count = self.game.spec.num_actions
        acts = np.asarray(root.actions, dtype=np.int64)
        visits = np.zeros(a_count, dtype=np.int64)
        q_full = np.zeros(a_count, dtype=np.float64)
        policy = np.zeros(a_count, dtype=np.float32)
        visits[acts] = root.N
        q_full[acts] = root.q()
        target = self.algorithm.target(root)
        policy[acts] = target.policy
        i = target.choice
        if cfg.solver and cfg.temperature == 0:
            i = self._solved_choice(i)
        return SearchResult(
            action=int(acts[i]),
            policy=policy,
            value=target.value,
            visits=visits,
            q=q_full,
            simulations=root.total,
        )


def _value_vector(game: Game, player: int, value: float) -> list[float]:
    v = [-value] * game.spec.num_players
    v[player] = value
    return v
