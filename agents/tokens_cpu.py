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


@njit(cache=True)
def _linear(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``x @ w + b`` (w as (in, out)), by blocks of :data:`_ROWS` rows."""
    out = np.empty((x.shape[0], w.shape[1]), dtype=np.float32)
    for lo in range(0, x.shape[0], _ROWS):
        hi = min(lo + _ROWS, x.shape[0])
        out[lo:hi] = np.dot(x[lo:hi], w) + b
    return out


@njit(cache=True)
def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    out = np.empty_like(x)
    d = x.shape[1]
    for r in range(x.shape[0]):
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
    return out


@njit(cache=True)
def _attention(qkv: np.ndarray, heads: int) -> np.ndarray:
    """Multi-head self-attention of one position's rows (``qkv``: rows x 3d, q, k, v): per
    head, the scores and the weighted values as two small products."""
    n, d = qkv.shape[0], qkv.shape[1] // 3
    width = d // heads
    scale = np.float32(1.0 / math.sqrt(width))
    out = np.empty((n, d), dtype=np.float32)
    for h in range(heads):
        q0, k0, v0 = h * width, d + h * width, 2 * d + h * width
        q = np.ascontiguousarray(qkv[:, q0 : q0 + width]) * scale
        kt = np.ascontiguousarray(qkv[:, k0 : k0 + width].T)
        s = np.dot(q, kt)
        for i in range(n):
            top = s[i].max()
            total = np.float32(0.0)
            for j in range(n):
                e = np.exp(s[i, j] - top)
                s[i, j] = e
                total += e
            s[i] *= np.float32(1.0) / total
        out[:, q0 : q0 + width] = np.dot(s, np.ascontiguousarray(qkv[:, v0 : v0 + width]))
    return out


@njit(cache=True)
def _forward(obs, masks, heads, local, opening, eps, g_w, g_b, p_w, p_b, n1_w, n1_b, in_w, in_b,
             out_w, out_b, n2_w, n2_b, l1_w, l1_b, l2_w, l2_b, nf_w, nf_b, pp_w, pp_b,
             op_w, op_b, v1_w, v1_b, v2_w, v2_b):  # pragma: no cover - compiled
    """Each position on its own (so its answer does not depend on the batch): its global
    token and occupied slots as the rows of one matrix, the global token first."""
    batch, tokens, features = obs.shape
    slots = tokens - 1
    d = g_w.shape[1]
    priors = np.zeros(masks.shape, dtype=np.float32)
    values = np.empty(batch, dtype=np.float32)
    token_of = np.empty(tokens, dtype=np.int64)
    row_of = np.empty(slots, dtype=np.int64)
    logits = np.empty(masks.shape[1], dtype=np.float32)
    legal = np.empty(masks.shape[1], dtype=np.int64)
    for b in range(batch):
        n = 1
        token_of[0] = 0
        row_of[:] = -1
        for s in range(slots):
            if obs[b, 1 + s, 0] > 0.5:
                token_of[n] = 1 + s
                row_of[s] = n
                n += 1
        piece = np.empty((n - 1, features), dtype=np.float32)
        for r in range(1, n):
            piece[r - 1] = obs[b, token_of[r]]
        h = np.empty((n, d), dtype=np.float32)
        h[:1] = _linear(obs[b, :1], g_w, g_b)
        h[1:] = _linear(piece, p_w, p_b)
        for layer in range(in_w.shape[0]):
            qkv = _linear(_layer_norm(h, n1_w[layer], n1_b[layer], eps), in_w[layer],
                          in_b[layer])
            h = h + _linear(_attention(qkv, heads), out_w[layer], out_b[layer])
            f = _linear(_layer_norm(h, n2_w[layer], n2_b[layer], eps), l1_w[layer],
                        l1_b[layer])
            h = h + _linear(np.maximum(f, np.float32(0.0)), l2_w[layer], l2_b[layer])
        h = _layer_norm(h, nf_w, nf_b, eps)
        pooled = np.zeros((1, 2 * d), dtype=np.float32)
        pooled[0, :d] = h[0]
        for r in range(1, n):
            pooled[0, d:] += h[r]
        pooled[0, d:] /= np.float32(max(n - 1, 1))
        hidden = np.maximum(_linear(pooled, v1_w, v1_b), np.float32(0.0))
        values[b] = np.tanh(_linear(hidden, v2_w, v2_b)[0, 0])
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
                    z += h[r, c] * w[c, col]
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
