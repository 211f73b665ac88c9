"""Game-agnostic Monte Carlo tree search, batched across many games.

One search over the Game protocol: the player to move comes from ``game.to_play(state)`` and
values are backed up *per player* (each edge accumulates the value of the player who chose it),
so a turn of several actions by the same player needs nothing special. Terminal values are
``game.utility(state)`` (the returns, or a game's scaled score margin); non-terminal leaves go
to an :class:`~training.evaluator.Evaluator`.

Three algorithms, chosen by ``SearchConfig.algorithm``:

* ``gumbel`` (default): Gumbel AlphaZero (Danihelka et al., ICLR 2022). At the root, Gumbel-top-k
  sampling of ``max_considered`` actions and sequential halving over them; inside the tree the
  deterministic "match the improved policy" rule; the policy target is the completed-Q improved
  policy ``softmax(logits + sigma(completed Q))``. It improves the policy even with very few
  simulations, which is what cheap CPUs need. Constants follow DeepMind's mctx.
* ``puct``: AlphaZero's PUCT with optional Dirichlet noise at the root; target = visit counts.
* ``uct``: classical UCT, for pure MCTS over random playouts (no priors to scale the
  exploration by): untried children first, then UCB1; target = visit counts.

Batching: :func:`search` takes a list of states and runs simulation *k* of every tree, gathers
all the leaves that need an evaluation and sends them to the evaluator in one call. Self-play
workers search their whole batch of games this way, and so does the arena.

Values are assumed zero-sum between two players for evaluator outputs (the evaluator gives the
mover's value ``v``; every other player gets ``-v``); terminal utilities are used as they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from typing import Any

import numpy as np

from envs.core import Game
from training.config import SearchConfig
from training.evaluator import Evaluator, RolloutMixEvaluator

__all__ = ["Node", "SearchResult", "search", "considered_visit_sequence"]


class Node:
    """A state in the tree with its per-edge statistics over the legal actions only.

    ``W[i]`` sums the values, for ``player`` (the one acting here), of the simulations through
    legal action ``actions[i]``; ``N[i]`` counts them. Statistics are plain Python lists: nodes
    have few edges, and for short vectors list arithmetic is several times faster than numpy's
    per-call overhead (profiled: the selection rule dominates the search's own cost).
    """

    __slots__ = (
        "state",
        "terminal",
        "player",
        "actions",
        "prior",
        "logits",
        "N",
        "W",
        "children",
        "raw_value",
        "expanded",
        "total",
        "proven",
    )

    def __init__(self, game: Game, state: Any) -> None:
        self.state = state
        self.terminal = game.is_terminal(state)
        self.player = -1 if self.terminal else game.to_play(state)
        self.expanded = False
        self.actions: list[int] = []
        self.prior: list[float] = []
        self.logits: list[float] = []
        self.N: list[int] = []
        self.W: list[float] = []
        self.children: list[Node | None] = []
        self.raw_value = 0.0
        self.total = 0  # simulations through this node's edges (sum of N)
        # Exact per-player values once known (MCTS-Solver): the terminal utility, or the
        # minimax of proven children.
        self.proven: list[float] | None = (
            [float(x) for x in game.utility(state)] if self.terminal else None
        )

    def expand(
        self,
        game: Game,
        prior_full: np.ndarray,
        value: float,
        temperature: float = 1.0,
        allowed: np.ndarray | None = None,
    ) -> None:
        """Create the edges: every legal action, or those of them that ``allowed`` keeps
        (when it keeps any)."""
        actions = np.flatnonzero(restrict_mask(game.legal_mask(self.state), allowed))
        p = prior_full[actions].astype(np.float64)
        if temperature != 1.0:
            p = np.power(p, 1.0 / temperature)
        total = p.sum()
        p = p / total if total > 0 else np.full(len(p), 1.0 / max(len(p), 1))
        k = len(p)
        self.actions = actions.tolist()
        self.prior = p.tolist()
        self.logits = np.log(p + 1e-12).tolist()
        self.N = [0] * k
        self.W = [0.0] * k
        self.children = [None] * k
        self.raw_value = float(value)
        self.expanded = True

    def child(self, game: Game, i: int) -> Node:
        c = self.children[i]
        if c is None:
            c = Node(game, game.apply(self.state, self.actions[i]))
            self.children[i] = c
        return c

    def q(self) -> list[float]:
        """Mean value of each visited edge for this node's player (0 where unvisited)."""
        return [w / n if n else 0.0 for n, w in zip(self.N, self.W)]


def restrict_mask(legal: np.ndarray, allowed: np.ndarray | None) -> np.ndarray:
    """The legal actions that ``allowed`` keeps; all of them when it keeps none (a rule for
    the players' choice never leaves a player without a move)."""
    if allowed is None:
        return legal
    kept = legal & allowed
    return kept if kept.any() else legal


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


# ---------------------------------------------------------------------------- Gumbel helpers


def considered_visit_sequence(max_considered: int, simulations: int) -> tuple[int, ...]:
    """The visit count that the root action of each simulation must have (mctx's schedule).

    Sequential halving: every considered action is visited equally within a phase, then the
    worse half is dropped; phases share the budget evenly.
    """
    if max_considered <= 1:
        return tuple(range(simulations))
    log2max = int(math.ceil(math.log2(max_considered)))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:simulations])


def _completed_q(node: Node, cfg: SearchConfig) -> list[float]:
    """sigma(completed Q): visited edges keep Q, unvisited ones get the mixed value estimate,
    then min-max rescaling and mctx's (c_visit + max N) * c_scale scaling.

    Written as plain loops over short lists: this is the search's hot spot (profiled)."""
    N, W, prior = node.N, node.W, node.prior
    total = node.total
    if total == 0:  # every edge gets the same (mixed) value: rescaled to 0
        return [0.0] * len(N)
    p_vis = pq = 0.0
    max_n = 0
    completed = []
    for n, w, p in zip(N, W, prior):
        if n:
            q = w / n
            p_vis += p
            pq += p * q
            if n > max_n:
                max_n = n
            completed.append(q)
        else:
            completed.append(None)
    mixed = (node.raw_value + total * pq / (p_vis if p_vis > 1e-12 else 1e-12)) / (1 + total)
    completed = [mixed if c is None else c for c in completed]
    lo, hi = min(completed), max(completed)
    if hi - lo < 1e-8:
        return [0.0] * len(N)
    scale = (cfg.c_visit + max_n) * cfg.c_scale / (hi - lo)
    return [scale * (c - lo) for c in completed]


def _completed_q_sparse(node: Node, cfg: SearchConfig) -> tuple[dict[int, float], float]:
    """:func:`_completed_q` as ``{visited edge: value}`` and the one value that every unvisited
    edge gets (the same numbers, computed in the same order), in time proportional to the
    visited edges plus one pass over ``N``: at a Go root (hundreds of edges, a handful
    visited) the full list, built every simulation, was the search's largest cost."""
    N = node.N
    total = node.total
    visited = list(compress(range(len(N)), N))  # the indices with N > 0, ascending
    if total == 0:
        return dict.fromkeys(visited, 0.0), 0.0
    W, prior = node.W, node.prior
    p_vis = pq = 0.0
    max_n = 0
    qs = []
    for i in visited:
        n = N[i]
        q = W[i] / n
        p = prior[i]
        p_vis += p
        pq += p * q
        if n > max_n:
            max_n = n
        qs.append(q)
    mixed = (node.raw_value + total * pq / (p_vis if p_vis > 1e-12 else 1e-12)) / (1 + total)
    lo, hi = min(qs), max(qs)
    if len(visited) < len(N):  # some edge is unvisited: the mixed value is among the values
        lo, hi = min(lo, mixed), max(hi, mixed)
    if hi - lo < 1e-8:
        return dict.fromkeys(visited, 0.0), 0.0
    scale = (cfg.c_visit + max_n) * cfg.c_scale / (hi - lo)
    return {i: scale * (q - lo) for i, q in zip(visited, qs)}, scale * (mixed - lo)


def _mixed_completion(node: Node) -> list[float]:
    """Completed Q without rescaling: Q where visited, the mixed value estimate elsewhere."""
    if node.total == 0:
        return [node.raw_value] * len(node.N)
    p_vis = pq = 0.0
    for n, w, p in zip(node.N, node.W, node.prior):
        if n:
            p_vis += p
            pq += p * w / n
    mixed = (node.raw_value + node.total * pq / max(p_vis, 1e-12)) / (1 + node.total)
    return [w / n if n else mixed for n, w in zip(node.N, node.W)]


def _improved_policy(node: Node, cfg: SearchConfig) -> list[float]:
    """softmax(logits + sigma(completed Q)) over the node's legal actions."""
    if node.total == 0:
        return node.prior
    z = [lg + c for lg, c in zip(node.logits, _completed_q(node, cfg))]
    top = max(z)
    e = [math.exp(x - top) for x in z]
    s = sum(e)
    return [x / s for x in e]


def _gumbel_interior(node: Node, cfg: SearchConfig) -> int:
    """Deterministic interior selection: the action whose visit share lags the improved
    policy the most, i.e. argmax of pi'(a) - N(a) / (1 + sum N)."""
    if node.total == 0:
        prior = node.prior
        return prior.index(max(prior))
    z = [lg + c for lg, c in zip(node.logits, _completed_q(node, cfg))]
    top = max(z)
    e = [math.exp(x - top) for x in z]
    inv_s = 1.0 / sum(e)
    inv = 1.0 / (1.0 + node.total)
    best, best_score = 0, -math.inf
    for i, (x, n) in enumerate(zip(e, node.N)):
        score = x * inv_s - n * inv
        if score > best_score:
            best, best_score = i, score
    return best


def _uct(node: Node, c: float, rng: np.random.Generator) -> int:
    """UCB1: a random untried child while there is one, else the best mean + exploration."""
    untried = [i for i, n in enumerate(node.N) if n == 0]
    if untried:
        return untried[int(rng.integers(len(untried)))] if len(untried) > 1 else untried[0]
    log_total = math.log(node.total)
    best, best_score = 0, -math.inf
    for i, (n, w) in enumerate(zip(node.N, node.W)):
        score = w / n + c * math.sqrt(log_total / n)
        if score > best_score:
            best, best_score = i, score
    return best


def _puct(node: Node, cfg: SearchConfig, prior: list[float]) -> int:
    # Unvisited edges: first-play urgency = the node's own value estimate.
    sq = cfg.c_puct * math.sqrt(node.total + 1)
    fpu = node.raw_value
    best, best_score = 0, -math.inf
    for i, (n, w) in enumerate(zip(node.N, node.W)):
        score = (w / n if n else fpu) + sq * prior[i] / (1 + n)
        if score > best_score:
            best, best_score = i, score
    return best


# ---------------------------------------------------------------------------- the search


class _Tree:
    """One root being searched; the batch driver steps many of these together."""

    def __init__(self, game: Game, state: Any, cfg: SearchConfig, rng: np.random.Generator):
        self.game = game
        self.cfg = cfg
        self.rng = rng
        self.root = Node(game, state)
        self.path: list[tuple[Node, int]] = []
        self.leaf: Node | None = None

    def prepare_root(self) -> None:
        """After the root is expanded: noise, Gumbel sample, schedule."""
        root, cfg = self.root, self.cfg
        k = len(root.actions)
        self.root_prior = root.prior
        if cfg.algorithm == "puct" and cfg.dirichlet_fraction > 0 and k > 1:
            noise = self.rng.dirichlet([cfg.dirichlet_alpha] * k)
            f = cfg.dirichlet_fraction
            self.root_prior = [(1 - f) * p + f * x for p, x in zip(root.prior, noise)]
        if cfg.gumbel_scale > 0:
            self.gumbel = (self.rng.gumbel(size=k) * cfg.gumbel_scale).tolist()
        else:
            self.gumbel = [0.0] * k
        m = min(cfg.max_considered, k)
        self.schedule = considered_visit_sequence(m, cfg.simulations)
        self.gumbel_logits = [g + lg for g, lg in zip(self.gumbel, root.logits)]

    def select_leaf(self, sim: int) -> Node | None:
        """Walk down from the root; returns the leaf needing evaluation, or None if the
        walk ended on a terminal state (already backed up)."""
        game, cfg = self.game, self.cfg
        gumbel, uct = cfg.algorithm == "gumbel", cfg.algorithm == "uct"
        node = self.root
        path = []
        while node.expanded and node.proven is None:
            if uct:
                i = _uct(node, cfg.c_uct, self.rng)
            elif not path:
                i = self._gumbel_root(sim) if gumbel else self._puct_root()
            elif gumbel:
                i = _gumbel_interior(node, cfg)
            else:
                i = _puct(node, cfg, node.prior)
            path.append((node, i))
            node = node.child(game, i)
        self.path = path
        if node.proven is not None:  # terminal, or solved: its exact value, no evaluation
            self._backup(node.proven)
            return None
        self.leaf = node
        return node

    def _root_scores(self) -> list[float]:
        root = self.root
        cq = _completed_q(root, self.cfg)
        return [g + lg + c for g, lg, c in zip(self.gumbel, root.logits, cq)]

    def _gumbel_root(self, sim: int) -> int:
        """Sequential halving: among the actions with the scheduled visit count, the best by
        gumbel + logits + sigma(completed Q) (the first round is the Gumbel-top-k sample)."""
        want = self.schedule[sim]
        N = self.root.N
        base = self.gumbel_logits
        # The scores of _root_scores(), only for the actions with the scheduled count.
        sigma, unvisited = _completed_q_sparse(self.root, self.cfg)
        best, best_score = -1, -math.inf
        if want == 0:
            for i, n in enumerate(N):
                if not n:
                    score = base[i] + unvisited
                    if score > best_score:
                        best, best_score = i, score
        else:
            for i, c in sigma.items():  # ascending i, as the full scan went
                if N[i] == want:
                    score = base[i] + c
                    if score > best_score:
                        best, best_score = i, score
        if best < 0:  # cannot happen with the mctx schedule; be safe
            best = int(np.argmax(self._root_scores()))
        return best

    def _puct_root(self) -> int:
        """PUCT at the root, after any forced playouts: the child furthest below its
        ``sqrt(k * P * N)`` visits (largest prior first) is taken before the PUCT rule."""
        root, cfg, prior = self.root, self.cfg, self.root_prior
        k = cfg.forced_playouts
        if k > 0 and root.total > 0:
            forced = [
                (p, i)
                for i, (p, n) in enumerate(zip(prior, root.N))
                if p > 0 and n < math.sqrt(k * p * root.total)
            ]
            if forced:
                return max(forced)[1]
        return _puct(root, cfg, prior)

    def _pruned_visits(self) -> list[int]:
        """Policy target pruning (KataGo): take back from each child but the most visited
        up to its forced playouts, as long as its PUCT score stays below the best child's;
        a child left with one visit or none is dropped. The visits the search spent on
        trying a move do not teach the policy to play it."""
        root, cfg, prior = self.root, self.cfg, self.root_prior
        visits = list(root.N)
        total = root.total
        best = max(range(len(visits)), key=lambda i: visits[i])
        sq = cfg.c_puct * math.sqrt(total + 1)
        best_score = root.W[best] / visits[best] + sq * prior[best] / (1 + visits[best])
        for i, n in enumerate(visits):
            if i == best or n == 0:
                continue
            q = root.W[i] / n
            if q >= best_score:
                continue  # it out-scores the best on value alone: keep every visit
            forced = math.sqrt(cfg.forced_playouts * prior[i] * total)
            # Fewest visits at which this child's score is still at most the best's.
            needed = math.ceil(sq * prior[i] / (best_score - q) - 1 - 1e-9)
            kept = min(n, max(math.ceil(n - forced), needed, 0))
            visits[i] = 0 if kept <= 1 else kept
        return visits

    def finish_leaf(self, prior: np.ndarray, value: float) -> None:
        leaf = self.leaf
        leaf.expand(self.game, prior, value, self.cfg.policy_temperature)
        self.leaf = None
        if self.cfg.solver and self.cfg.terminal_lookahead and self._look_ahead(leaf):
            self._backup(leaf.proven)
            return
        self._backup(_value_vector(self.game, leaf.player, value))

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

    def _backup(self, values: list[float]) -> None:
        for node, i in self.path:
            node.N[i] += 1
            node.W[i] += values[node.player]
            node.total += 1
        if self.cfg.solver:
            self._propagate_proofs()

    def _propagate_proofs(self) -> None:
        """MCTS-Solver (Winands et al. 2008), per player: an edge into a proven child takes
        the child's exact value; a node is proven when its player has a proven win, or when
        every child is proven (then it is worth the best of them for its player)."""
        for node, i in reversed(self.path):
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
        root, cfg, game = self.root, self.cfg, self.game
        a_count = game.spec.num_actions
        acts = np.asarray(root.actions, dtype=np.int64)
        n = np.asarray(root.N, dtype=np.int64)
        visits = np.zeros(a_count, dtype=np.int64)
        q_full = np.zeros(a_count, dtype=np.float64)
        policy = np.zeros(a_count, dtype=np.float32)
        visits[acts] = n
        q_full[acts] = root.q()
        total = root.total
        if cfg.algorithm == "gumbel":
            improved = np.asarray(_improved_policy(root, cfg))
            policy[acts] = improved
            # The value of the improved policy (sequential halving visits bad actions on
            # purpose, so the plain mean of the simulations would understate the root).
            value = float(improved @ np.asarray(_mixed_completion(root)))
            if cfg.temperature > 0:
                i = _sample(improved, cfg.temperature, self.rng)
            else:
                score = np.where(n == n.max(), np.asarray(self._root_scores()), -np.inf)
                i = _argmax_random_ties(score, self.rng)
        else:
            dist = n / total if total > 0 else np.asarray(root.prior)
            if cfg.algorithm == "puct" and cfg.forced_playouts > 0 and total > 0:
                pruned = np.asarray(self._pruned_visits(), dtype=np.float64)
                policy[acts] = pruned / pruned.sum()
            else:
                policy[acts] = dist
            if cfg.temperature > 0:
                i = _sample(dist, cfg.temperature, self.rng)
            elif total > 0:
                # Most visits; ties broken by Q, then at random.
                i = _argmax_random_ties(n + 1e-3 * (np.asarray(root.q()) + 1.0), self.rng)
            else:
                i = _argmax_random_ties(np.asarray(root.prior), self.rng)
        if cfg.algorithm != "gumbel":
            value = sum(root.W) / total if total > 0 else root.raw_value
        if cfg.solver and cfg.temperature == 0:
            i = self._solved_choice(i)
        return SearchResult(
            action=int(acts[i]),
            policy=policy,
            value=float(value),
            visits=visits,
            q=q_full,
            simulations=total,
        )


def _value_vector(game: Game, player: int, value: float) -> list[float]:
    v = [-value] * game.spec.num_players
    v[player] = value
    return v


def _sample(p: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    logp = np.log(np.maximum(p, 1e-30)) / temperature
    w = np.exp(logp - logp.max())
    return int(rng.choice(len(w), p=w / w.sum()))


def _argmax_random_ties(score: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(score >= score.max() - 1e-12)
    return int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])


def search(
    game: Game,
    states: Sequence[Any],
    evaluator: Evaluator,
    cfg: SearchConfig,
    rng: np.random.Generator,
    root_masks: Sequence[np.ndarray | None] | None = None,
) -> list[SearchResult]:
    """Search every (non-terminal) state in ``states`` together; one result per state.

    Leaves of all trees go to ``evaluator`` in one batch per simulation step.
    ``root_masks`` (one boolean mask or None per state) keeps each root to some of its legal
    actions, e.g. self-play's no-pass rule for the early game; the tree below is unchanged.
    """
    for s in states:
        if game.is_terminal(s):
            raise ValueError("cannot search a terminal state")
    masks = list(root_masks) if root_masks is not None else [None] * len(states)
    if len(masks) != len(states):
        raise ValueError(f"{len(masks)} root masks for {len(states)} states")
    if cfg.rollout_mix > 0.0:
        evaluator = RolloutMixEvaluator(evaluator, cfg.rollout_mix, rng, cfg.rollout_max_plies)
    trees = [_Tree(game, s, cfg, rng) for s in states]
    if not trees:
        return []
    priors, values = evaluator.evaluate(game, [t.root.state for t in trees])
    for t, p, v, m in zip(trees, priors, values, masks):
        t.root.expand(game, p, float(v), cfg.policy_temperature, m)
        t.prepare_root()
    for sim in range(cfg.simulations):
        pending = [t for t in trees if t.select_leaf(sim) is not None]
        if pending:
            priors, values = evaluator.evaluate(game, [t.leaf.state for t in pending])
            for t, p, v in zip(pending, priors, values):
                t.finish_leaf(p, float(v))
    return [t.result() for t in trees]
