"""The interior selection rules compiled: the search's hot spot, once per level of every
descent (a TriGolden-scoring master move makes ~4,800 Gumbel choices over ~300 edges each).

Each rule reads a node's edge arrays (:class:`~agents.search.node.Node`) and does the
arithmetic of the Python rule it replaced in the same order, so it gives the same floats and
the same choices (``tests/test_search_golden.py`` holds the records; ``math.exp`` is libm's
``exp`` on both sides). Gumbel's rule repeats the completed-Q arithmetic of
:mod:`agents.search.gumbel` in one pass rather than call it (that is its speed);
``tests/test_search_gumbel_root.py`` checks its choices against the dense improved policy
built from gumbel.py's functions. A call on a 300-edge node costs about a microsecond; the
Python rule profiled at 12.5 µs a call on TriGolden nodes.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def gumbel_interior(N: np.ndarray, W: np.ndarray, prior: np.ndarray, logits: np.ndarray,
                    exp_sum: float, total: int, raw_value: float, c_visit: float,
                    c_scale: float) -> int:
    """Gumbel's interior rule (:meth:`agents.search.gumbel.Gumbel.select`): the edge whose
    visit share lags the improved policy the most, ``argmax pi'(a) - N(a) / (1 + sum N)``.

    Every unvisited edge has the same completed value (the mixed value) and no visits, so the
    best of them is the one of highest logit (the lowest index among equals) and their share
    of the softmax's sum is ``exp(completed - top) * (exp_sum - sum of exp(logit) over the
    visited edges)``, ``exp_sum`` being ``sum(exp(logits))`` over all edges."""
    k = N.shape[0]
    if total == 0:  # no visit yet: the highest prior (the first among equals)
        best = 0
        for i in range(1, k):
            if prior[i] > prior[best]:
                best = i
        return best
    p_vis = pq = exp_vis = 0.0
    max_n = 0
    lo, hi = math.inf, -math.inf
    first_unvisited = -1
    for i in range(k):
        n = N[i]
        if n:
            q = W[i] / n
            p = prior[i]
            p_vis += p
            pq += p * q
            if n > max_n:
                max_n = n
            lo = min(lo, q)
            hi = max(hi, q)
            exp_vis += math.exp(logits[i])
        elif first_unvisited < 0 or logits[i] > logits[first_unvisited]:
            first_unvisited = i
    mixed = (raw_value + total * pq / (p_vis if p_vis > 1e-12 else 1e-12)) / (1 + total)
    if first_unvisited >= 0:
        lo, hi = min(lo, mixed), max(hi, mixed)
    spread = hi - lo
    scale = (c_visit + max_n) * c_scale / spread if spread >= 1e-8 else 0.0
    z_unvisited = scale * (mixed - lo)
    top = -math.inf
    for i in range(k):
        if N[i]:
            top = max(top, logits[i] + scale * (W[i] / N[i] - lo))
    if first_unvisited >= 0:
        top = max(top, logits[first_unvisited] + z_unvisited)
    s = 0.0
    for i in range(k):
        if N[i]:
            s += math.exp(logits[i] + scale * (W[i] / N[i] - lo) - top)
    if first_unvisited >= 0:
        s += math.exp(z_unvisited - top) * max(exp_sum - exp_vis, 0.0)
    inv_s = 1.0 / s
    inv = 1.0 / (1.0 + total)
    best, best_score = -1, -math.inf
    if first_unvisited >= 0:
        best = first_unvisited
        best_score = math.exp(logits[first_unvisited] + z_unvisited - top) * inv_s
    for i in range(k):
        if N[i]:
            score = math.exp(logits[i] + scale * (W[i] / N[i] - lo) - top) * inv_s - N[i] * inv
            if score > best_score or (score == best_score and i < best):
                best, best_score = i, score
    return best


@njit(cache=True)
def puct_choice(N: np.ndarray, W: np.ndarray, prior: np.ndarray, total: int,
                fpu: float, c_puct: float) -> int:
    """argmax Q + c_puct * P * sqrt(N + 1) / (1 + n); an unvisited edge's Q is ``fpu`` (the
    first among equals)."""
    sq = c_puct * math.sqrt(total + 1)
    best, best_score = 0, -math.inf
    for i in range(N.shape[0]):
        n = N[i]
        score = (W[i] / n if n else fpu) + sq * prior[i] / (1 + n)
        if score > best_score:
            best, best_score = i, score
    return best


@njit(cache=True)
def ucb1_choice(N: np.ndarray, W: np.ndarray, total: int, c: float) -> int:
    """argmax mean + c * sqrt(ln(sum N) / n) over edges that all have a visit (the first
    among equals)."""
    log_total = math.log(total)
    best, best_score = 0, -math.inf
    for i in range(N.shape[0]):
        n = N[i]
        score = W[i] / n + c * math.sqrt(log_total / n)
        if score > best_score:
            best, best_score = i, score
    return best


def warm() -> None:
    """Call every rule once, so that numba compiles them (or loads them from its cache, a
    few tenths of a second for a process that has not used numba yet) before a timed
    search needs them."""
    N = np.array([1, 0], dtype=np.int64)
    W = np.array([0.5, 0.0])
    prior = np.array([0.5, 0.5])
    gumbel_interior(N, W, prior, np.log(prior), 1.0, 1, 0.0, 50.0, 0.1)
    puct_choice(N, W, prior, 1, 0.0, 1.5)
    ucb1_choice(N + 1, W, 3, 2.0)
