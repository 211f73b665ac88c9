"""TriGolden (頂鑫棋): exact geometric rules engine, both variants, match and arbitration.

Modules, one job each: ``pieces`` (the piece table and exact vectors), ``geometry`` (the
board's lookup tables and the predicates of rules 1-4), ``rules`` (legal placements and the
two-piece turn), ``state`` (the immutable state and the step), ``observation`` (tokens for a
set network), ``game`` (the Game protocol, notation, JSON, client geometry), ``match_score`` (the
result of a match of two games), ``match`` (playing a match, arbitration), ``players`` (the
greedy baseline).

The compiled core (numba, exact arithmetic) plays the same rules much faster and is what the
Game uses: ``kgeom`` (numbers in Q(sqrt 5), polygon rows, the pair predicates), ``kboard``
(placements, rules 1-4, structures), ``kpairs`` (two-piece turns), ``kobl`` (the obligation),
``kturn`` (the mask), ``kdraw`` (random draws without the mask), ``kplay`` (step and playout),
``kcache`` (cache consistency) and ``engine`` (the bridge to states). ``rules``, ``geometry``,
``obligation`` and ``playout`` stay as the reference it is tested against.
"""

from envs.trigolden.game import PLAYER_NAMES, TriGolden, TriGoldenConfig
from envs.trigolden.match import arbitrate, play_match
from envs.trigolden.match_score import MatchResult, match_result
from envs.trigolden.players import greedy_policy
from envs.trigolden.state import TriGoldenState

__all__ = [
    "PLAYER_NAMES",
    "MatchResult",
    "TriGolden",
    "TriGoldenConfig",
    "TriGoldenState",
    "arbitrate",
    "greedy_policy",
    "match_result",
    "play_match",
]
