"""What an agent is made of, as validated settings: its network's architecture and its search.

Their own module in the agent layer because everything that plays reads them (the search,
the networks, the checkpoints, the players, the levels file), while the training run's
config (``training.config.RunConfig``) holds one of each beside the training sections. Same
rules as every config model: unknown keys refused, types strict, frozen.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class FrozenModel(BaseModel):
    """The base of every config model: no unknown keys, strict types, frozen."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class NetworkConfig(FrozenModel):
    """Network architecture; ``kind`` names an entry of ``agents.networks.NETWORKS``."""

    kind: str = "resnet"
    channels: int = Field(32, ge=1, le=1024)
    blocks: int = Field(2, ge=0, le=64)
    value_hidden: int = Field(32, ge=1, le=4096)
    # KataGo's auxiliary heads (Wu 2019): the final ownership of every point and the score
    # margin, learnt beside policy and value from games that define them
    # (``Game.outcome_targets``; Stereo Go). They shape the trunk; play uses policy and value.
    aux_heads: bool = False


class SearchConfig(FrozenModel):
    """Search settings; used by self-play, by players and stored in ``levels.json``.

    ``simulations = 0`` means no search: the raw policy (Gumbel: argmax of prior + noise).
    """

    algorithm: Literal["gumbel", "puct", "uct"] = "gumbel"
    simulations: int = Field(32, ge=0, le=100_000)
    # Gumbel AlphaZero (Danihelka et al. 2022); the constants are mctx's defaults.
    max_considered: int = Field(16, ge=1, le=4096)
    gumbel_scale: float = Field(1.0, ge=0.0)
    c_visit: float = Field(50.0, ge=0.0)
    c_scale: float = Field(0.1, ge=0.0)
    # MCTS-Solver: propagate proven wins and losses up the tree (exact values beat averages
    # in tactical positions; game-agnostic, per player).
    solver: bool = True
    # With the solver: on expanding a node, create all its children and solve it at once if
    # one of them wins for the mover (exact one-ply tactics; costs one apply per action).
    terminal_lookahead: bool = False
    # Policy softmax temperature (Lc0's PolicyTemp, KataGo's root policy temperature): the
    # network's priors are raised to 1/T inside the search. T > 1 flattens them, so a move the
    # policy all but rules out still gets visits and a tactic behind it can be proven; 1 = as
    # trained (self-play). Measured on Jiugong's top level (docs/training.md).
    policy_temperature: float = Field(1.0, gt=0.0, le=100.0)
    # Leaf value = (1 - mix) * the evaluator's value + mix * one random playout's result
    # (AlphaGo's lambda). A young value head knows little; on games where random playouts
    # already separate good moves from bad (TriGolden: pure MCTS-32 beats greedy 8 of 10) the
    # mix gives self-play informed targets from the first iteration. 0 = the evaluator alone.
    rollout_mix: float = Field(0.0, ge=0.0, le=1.0)
    rollout_max_plies: int = Field(1000, ge=1)
    # PUCT (AlphaZero).
    c_puct: float = Field(1.5, ge=0.0)
    # UCT (Kocsis & Szepesvari 2006; pure MCTS without priors): every child is tried once, in
    # random order, before any twice; then mean + c_uct * sqrt(ln N / n). 2.0 as OpenSpiel's
    # MCTSBot. PUCT's exploration term is scaled by the prior, 1/|A| without a network: on
    # the cylinder's 360 actions MCTS-1000 then walked chains ~230 plies deep (measured).
    c_uct: float = Field(2.0, ge=0.0)
    dirichlet_alpha: float = Field(0.3, gt=0.0)
    dirichlet_fraction: float = Field(0.0, ge=0.0, le=1.0)
    # KataGo's forced playouts and policy target pruning (Wu 2019), PUCT only: every root
    # child with prior P gets at least sqrt(k * P * N) of the N root visits (so the noise's
    # picks are really tried), and the policy target takes those visits back from children
    # they did not make look good. k = 2 in KataGo; 0 = off. Gumbel's root schedule already
    # tries its sampled moves and its improved-policy target needs no pruning.
    forced_playouts: float = Field(0.0, ge=0.0, le=100.0)
    # Simulations that go down together before their leaves are evaluated, in one evaluator
    # call (agents/search/tree.py). PUCT and UCT mark each descent's edges with a virtual
    # loss so the batch spreads; Gumbel's root takes the considered actions of a
    # sequential-halving round, one descent each (set batch = max_considered for a round per
    # call), and is then the sequential search move for move (agents/search/gumbel.py).
    # Fewer, larger network calls for one search (a service's move); 1 = the sequential
    # search (the in-page search, and every shipped level but the TriGolden-scoring master,
    # which searches at 16: docs/training.md).
    batch: int = Field(1, ge=1, le=4096)
    # Gumbel with batch > 1: a round of sequential halving that cuts (its descents choose one
    # after the other which actions stay) still goes one descent at a time, but each step
    # also sends down the descents its next picks are predicted to make, on the statistics
    # of the moment; each root action's subtree is untouched until its next descent, so a
    # pick that was predicted finds its leaf already evaluated. The same search, float for
    # float with a batch-invariant evaluator; fewer network calls (agents/search/tree.py).
    prefetch_cuts: bool = False
    # Each leaf's priors and value are the mean over this many of the game's symmetries
    # (agents/symmetric.py: one network call carries every transform); 1 = the position as
    # it is. A small network's errors differ between a position and its mirror images, so
    # the mean is a better estimate, at `symmetries` rows a leaf.
    symmetries: int = Field(1, ge=1, le=64)
    # How the move is chosen from the search result: 0 = the best (ties at random),
    # > 0 = sampled from the improved policy (Gumbel) or visit counts (PUCT) ** (1/T).
    temperature: float = Field(0.0, ge=0.0, le=100.0)

    def as_json(self) -> dict[str, Any]:
        """The settings as JSON, for levels.json and players' identities (the arena's journal
        keys). ``batch`` and ``symmetries`` appear only when they are not 1, ``prefetch_cuts``
        only when set: the defaults are the search that every shipped level and journal was
        made with, so their entries and keys stay as they were."""
        data = self.model_dump(mode="json")
        for name in ("batch", "symmetries"):
            if data[name] == 1:
                del data[name]
        if not data["prefetch_cuts"]:
            del data["prefetch_cuts"]
        return data
