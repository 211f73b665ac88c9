"""TriGolden's token transformer (:mod:`agents.networks_tokens`) compiled for the CPU, one
position at a time, on its occupied tokens only.

Why: the network is tiny (width 32, two layers), so a TorchScript call at the batches a
search sends (1-16 positions) is nearly all per-operator overhead: allocations, dispatch and
tensor iterators around ~70 operators, not arithmetic (py-spy, issue 34: the matrix products
were a few percent of a TriGolden-scoring master's network time). Here one compiled call runs
the whole forward pass of a batch, and each position attends over its own pieces alone (the
global token and the occupied slots; empty slots are padding, which changes no output of the
network), so a mid-game position computes ~25 tokens, not the batch's widest.

Same arithmetic as the module's ``forward`` (pre-norm layers, ReLU, LayerNorm, tanh value), in
float32, summed in another order: outputs agree to ~1e-6 (tests/test_tokens_cpu.py), and a
position's answer does not depend on the batch it came in. Inference only: weights are copied
out of the module once (:class:`TokensCPU`); training stays with torch.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit


def _f32(t: Any) -> np.ndarray:
    return np.ascontiguousarray(t.detach().cpu().numpy(), dtype=np.float32)


class TokensCPU:
    """``infer(observations, masks) -> (priors, values)`` of a :class:`TokenTransformer`,
    compiled, with the masked softmax inside: the logits are computed for the legal actions
    only (about 300 of TriGolden's 5,190)."""

    def __init__(self, model: Any) -> None:
        enc = model.encoder
        layers = enc.layers
        attn0 = layers[0].self_attn
        self.heads = int(attn0.num_heads)
        self.local = int(model.local)
        self.opening = int(model.opening)
        self.eps = float(layers[0].norm1.eps)
        stack = lambda get: np.stack([_f32(get(layer)) for layer in layers])  # noqa: E731
        # Weights as (in, out), contiguous, for row-vector products x @ W.
        self.w = (
            _f32(model.global_embed.weight.T), _f32(model.global_embed.bias),
            _f32(model.piece_embed.weight.T), _f32(model.piece_embed.bias),
            stack(lambda m: m.norm1.weight), stack(lambda m: m.norm1.bias),
            stack(lambda m: m.self_attn.in_proj_weight.T),
            stack(lambda m: m.self_attn.in_proj_bias),
            stack(lambda m: m.self_attn.out_proj.weight.T),
            stack(lambda m: m.self_attn.out_proj.bias),
            stack(lambda m: m.norm2.weight), stack(lambda m: m.norm2.bias),
            stack(lambda m: m.linear1.weight.T), stack(lambda m: m.linear1.bias),
            stack(lambda m: m.linear2.weight.T), stack(lambda m: m.linear2.bias),
            _f32(enc.norm.weight), _f32(enc.norm.bias),
            _f32(model.piece_policy.weight.T), _f32(model.piece_policy.bias),
            _f32(model.opening_policy.weight.T), _f32(model.opening_policy.bias),
            _f32(model.value_head[0].weight.T), _f32(model.value_head[0].bias),
            _f32(model.value_head[2].weight.T), _f32(model.value_head[2].bias),
        )

    def infer(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors (the softmax over each row's legal actions, zero elsewhere and on a row
        with none) and values, float32: what ``NetworkEvaluator.infer`` gives."""
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        legal = np.ascontiguousarray(masks, dtype=np.bool_)
        if obs.ndim != 3 or legal.shape != (obs.shape[0], (obs.shape[1] - 1) * self.local
                                            + self.opening):
            raise ValueError(f"observations {obs.shape} and masks {legal.shape} do not fit "
                             f"the token network")
        return _forward(obs, legal, self.heads, self.local, self.opening, self.eps, *self.w)


#: Rows of one BLAS product in :func:`_linear`: small enough that OpenBLAS (numba's BLAS is
#: SciPy's) runs it on the calling thread; a larger product starts its threads, which then
#: wait on a core a busy service or an arena already uses (measured 1.5-2x slower moves).
_ROWS = 32


# The layers below write into scratch arrays that :func:`_forward` allocates once per call and
# sizes for the widest position: allocating every intermediate of every position (some 40
# arrays a position) was about a third of the forward pass (0.070 -> 0.046 ms a row at batch
# 16 in a timing loop of the pass alone; ``bench/network_speed.py``, as served, 0.072 -> 0.061),
# the same floats bit for bit.


@njit(cache=True)
def _linear(x: np.ndarray, n: int, w: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``out[:n] = x[:n] @ w + b`` (w as (in, out)), by blocks of :data:`_ROWS` rows."""
    for lo in range(0, n, _ROWS):
        hi = min(lo + _ROWS, n)
        np.dot(x[lo:hi], w, out[lo:hi])
    for r in range(n):
        for c in range(w.shape[1]):
            out[r, c] += b[c]


@njit(cache=True)
def _layer_norm(x: np.ndarray, n: int, weight: np.ndarray, bias: np.ndarray, eps: float,
                out: np.ndarray) -> None:
    """``out[:n]``: the layer norm of ``x[:n]``'s rows."""
    d = x.shape[1]
    for r in range(n):
        mean = np.float32(0.0)
        for c in range(d):
            mean += x[r, c]
        mean /= np.float32(d)
        var = np.float32(0.0)
        for c in range(d):
            dev = x[r, c] - mean
            var += dev * dev
        inv = np.float32(1.0) / np.sqrt(var / np.float32(d) + np.float32(eps))
        for c in range(d):
            out[r, c] = (x[r, c] - mean) * inv * weight[c] + bias[c]


@njit(cache=True)
def _attention(qkv: np.ndarray, n: int, heads: int, out: np.ndarray) -> None:
    """Multi-head self-attention of one position's ``n`` rows (``qkv``: rows x 3d, q, k, v)
    into ``out[:n]``: per head, the scores and the weighted values as two small products."""
    d = qkv.shape[1] // 3
    width = d // heads
    scale = np.float32(1.0 / math.sqrt(width))
    q = np.empty((n, width), dtype=np.float32)
    kt = np.empty((width, n), dtype=np.float32)
    v = np.empty((n, width), dtype=np.float32)
    s = np.empty((n, n), dtype=np.float32)
    o = np.empty((n, width), dtype=np.float32)
    for h in range(heads):
        q0, k0, v0 = h * width, d + h * width, 2 * d + h * width
        for i in range(n):
            for c in range(width):
                q[i, c] = qkv[i, q0 + c] * scale
                kt[c, i] = qkv[i, k0 + c]
                v[i, c] = qkv[i, v0 + c]
        np.dot(q, kt, s)
        for i in range(n):
            top = s[i, 0]
            for j in range(1, n):
                top = max(top, s[i, j])
            total = np.float32(0.0)
            for j in range(n):
                e = np.exp(s[i, j] - top)
                s[i, j] = e
                total += e
            inv = np.float32(1.0) / total
            for j in range(n):
                s[i, j] *= inv
        np.dot(s, v, o)
        for i in range(n):
            for c in range(width):
                out[i, q0 + c] = o[i, c]


@njit(cache=True)
def _forward(obs, masks, heads, local, opening, eps, g_w, g_b, p_w, p_b, n1_w, n1_b, in_w, in_b,
             out_w, out_b, n2_w, n2_b, l1_w, l1_b, l2_w, l2_b, nf_w, nf_b, pp_w, pp_b,
             op_w, op_b, v1_w, v1_b, v2_w, v2_b):  # pragma: no cover - compiled
    """Each position on its own (so its answer does not depend on the batch): its global
    token and occupied slots as the first ``n`` rows of the scratch matrices, the global
    token first."""
    batch, tokens, features = obs.shape
    slots = tokens - 1
    d = g_w.shape[1]
    priors = np.zeros(masks.shape, dtype=np.float32)
    values = np.empty(batch, dtype=np.float32)
    row_of = np.empty(slots, dtype=np.int64)
    logits = np.empty(masks.shape[1], dtype=np.float32)
    legal = np.empty(masks.shape[1], dtype=np.int64)
    x = np.empty((tokens, features), dtype=np.float32)  # the position's tokens
    h = np.empty((tokens, d), dtype=np.float32)  # the residual stream
    t = np.empty((tokens, d), dtype=np.float32)  # a normed stream, attention's output
    u = np.empty((tokens, d), dtype=np.float32)  # a sublayer's output
    qkv = np.empty((tokens, 3 * d), dtype=np.float32)
    f = np.empty((tokens, l1_w.shape[2]), dtype=np.float32)
    pooled = np.empty((1, 2 * d), dtype=np.float32)
    hidden = np.empty((1, v1_w.shape[1]), dtype=np.float32)
    value = np.empty((1, 1), dtype=np.float32)
    for b in range(batch):
        x[0] = obs[b, 0]
        n = 1
        row_of[:] = -1
        for s in range(slots):
            if obs[b, 1 + s, 0] > 0.5:
                x[n] = obs[b, 1 + s]
                row_of[s] = n
                n += 1
        _linear(x, 1, g_w, g_b, h)
        _linear(x[1:], n - 1, p_w, p_b, h[1:])
        for layer in range(in_w.shape[0]):
            _layer_norm(h, n, n1_w[layer], n1_b[layer], eps, t)
            _linear(t, n, in_w[layer], in_b[layer], qkv)
            _attention(qkv, n, heads, t)
            _linear(t, n, out_w[layer], out_b[layer], u)
            h[:n] += u[:n]
            _layer_norm(h, n, n2_w[layer], n2_b[layer], eps, t)
            _linear(t, n, l1_w[layer], l1_b[layer], f)
            f[:n] = np.maximum(f[:n], np.float32(0.0))
            _linear(f, n, l2_w[layer], l2_b[layer], u)
            h[:n] += u[:n]
        _layer_norm(h, n, nf_w, nf_b, eps, t)
        pooled[0, :d] = t[0]
        pooled[0, d:] = 0.0
        for r in range(1, n):
            pooled[0, d:] += t[r]
        pooled[0, d:] /= np.float32(max(n - 1, 1))
        _linear(pooled, 1, v1_w, v1_b, hidden)
        hidden[0] = np.maximum(hidden[0], np.float32(0.0))
        _linear(hidden, 1, v2_w, v2_b, value)
        values[b] = np.tanh(value[0, 0])
        # The masked softmax over the legal actions alone: each logit is one column of the
        # policy head on one row (a placement's on its target piece's row, an opening's on
        # the global row; zero on an empty slot's, as the module gives).
        m = 0
        for a in range(masks.shape[1]):
            if masks[b, a]:
                legal[m] = a
                m += 1
        if m == 0:
            continue
        top = np.float32(-np.inf)
        for k in range(m):
            a = legal[k]
            if a < slots * local:
                r, col, w, bias = row_of[a // local], a % local, pp_w, pp_b
            else:
                r, col, w, bias = 0, a - slots * local, op_w, op_b
            z = np.float32(0.0)
            if r >= 0:
                z = bias[col]
                for c in range(d):
                    z += t[r, c] * w[c, col]
            logits[k] = z
            if z > top:
                top = z
        total = np.float32(0.0)
        for k in range(m):
            e = np.exp(logits[k] - top)
            logits[k] = e
            total += e
        for k in range(m):
            priors[b, legal[k]] = logits[k] / total
    return priors, values
