"""A transformer over piece tokens for TriGolden: one token per piece slot plus a global one.

Observation ``(max_pieces + 1, F)`` (``envs/trigolden/observation.py``): row 0 the global
features, row ``1 + slot`` the piece in that slot, all zeros with presence (column 0) 0 while
the slot is empty. Golden set, n = 9: ``(55, 20)``.

Action layout (``envs/trigolden/rules.py``)::

    slot * L + local          L = E * K * E * 2 = 96 placements on the opponent piece in slot,
                              local = ((target_edge * K + kind) * E + edge) * 2 + face
    max_pieces * L + k * 2 + face      the opening piece (kind k), K * 2 = 6 actions

Why this shape: the board is an unbounded plane, so there is no grid for a CNN; every action
is "a placement of mine against one of the opponent's pieces", so its logit is read off that
piece's token by one shared local head (``d -> L``): the policy is equivariant to the slot
order and needs no output layer the size of the action space. The opening actions (empty
board) are read off the global token. Empty slots are padding: masked as attention keys, and
their logits are zeroed (the legal mask never offers them), so nothing written into an empty
slot's row can change any output. Value: the global token and the mean of the present piece
tokens, through a hidden layer and tanh.

``NetworkConfig`` mapping: ``channels`` = model width d (heads = 4 when d % 4 == 0, else 1;
feed-forward width 2d), ``blocks`` = transformer layers, ``value_hidden`` = value head width.

The layers are ``nn.TransformerEncoderLayer`` (pre-norm, ReLU), so checkpoints keep their
parameter names, but the forward pass is written out (:func:`encoder_layer`): torch's fused CPU
path for a padded batch spends some 40% of a TriGolden forward pass in its masked softmax
kernel. Written out with the same arithmetic, and run without the padding slots
(:meth:`TokenTransformer.trim`, used by ``NetworkEvaluator``), a call at batch 1-16 takes
10-35% less time (docs/service.md, issue 34).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from agents.config import NetworkConfig
from envs.core import ConfigError, GameSpec


class TokenTransformer(nn.Module):
    """Policy/value net for ``trigolden`` (see the module docstring)."""

    def __init__(self, spec: GameSpec, cfg: NetworkConfig, pieces: Any = None) -> None:
        """``pieces``: the game's piece set (default the golden set of the registered game)."""
        super().__init__()
        if pieces is None:  # imported here: building a Go or Jiugong net needs no TriGolden
            from envs.trigolden.pieces import GOLDEN

            pieces = GOLDEN
        shape = spec.observation_shape
        if len(shape) != 2:
            raise ConfigError(
                f"network 'tokens' needs (tokens, features) observations; {spec.id} gives {shape}"
            )
        tokens, features = shape
        slots = tokens - 1
        k, e = pieces.num_kinds, pieces.max_edges
        self.local = e * k * e * 2
        self.opening = k * 2
        if slots < 1 or spec.num_actions != slots * self.local + self.opening:
            raise ConfigError(
                f"network 'tokens' needs TriGolden's action layout (slots x {self.local} "
                f"placements + {self.opening} openings); {spec.id} has {spec.num_actions} "
                f"actions for {slots} slots"
            )
        self.slots = slots
        d = cfg.channels
        heads = 4 if d % 4 == 0 else 1
        self.global_embed = nn.Linear(features, d)
        self.piece_embed = nn.Linear(features, d)
        layer = nn.TransformerEncoderLayer(
            d, heads, dim_feedforward=2 * d, dropout=0.0, batch_first=True, norm_first=True
        )
        self.encoder = nn.TransformerEncoder(
            layer, cfg.blocks, norm=nn.LayerNorm(d), enable_nested_tensor=False
        )
        self.piece_policy = nn.Linear(d, self.local)
        self.opening_policy = nn.Linear(d, self.opening)
        self.value_head = nn.Sequential(
            nn.Linear(2 * d, cfg.value_hidden), nn.ReLU(), nn.Linear(cfg.value_hidden, 1)
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        present = x[:, 1:, 0] > 0.5  # (B, slots)
        keep = present.unsqueeze(2).to(x.dtype)
        # Zero the empty rows so whatever they hold cannot reach the embedding either.
        pieces = self.piece_embed(x[:, 1:] * keep) * keep
        h = torch.cat([self.global_embed(x[:, :1]), pieces], dim=1)
        pad = torch.cat([torch.zeros_like(present[:, :1]), ~present], dim=1)
        # Additive attention bias: -inf on padding keys (the global token is never padding,
        # so every query attends to at least one key).
        bias = torch.zeros_like(pad, dtype=h.dtype).masked_fill(pad, float("-inf"))
        bias = bias.unsqueeze(1).unsqueeze(1)
        for layer in self.encoder.layers:
            h = encoder_layer(layer, h, bias)
        h = self.encoder.norm(h)
        g, p = h[:, 0], h[:, 1:] * keep
        piece_logits = (self.piece_policy(p) * keep).flatten(1)
        logits = torch.cat([piece_logits, self.opening_policy(g)], dim=1)
        count = keep.sum(dim=1).clamp(min=1.0)
        pooled = torch.cat([g, p.sum(dim=1) / count], dim=1)
        value = torch.tanh(self.value_head(pooled)).squeeze(1)
        return logits, value

    def cpu_inference(self) -> Any:
        """This network's weights, as they are now, in a compiled CPU forward pass
        (:class:`agents.tokens_cpu.TokensCPU`): what ``NetworkEvaluator`` runs for fixed
        weights on the CPU."""
        from agents.tokens_cpu import TokensCPU

        return TokensCPU(self)

    def trim(self, observations: np.ndarray) -> tuple[int, tuple[slice, ...]] | None:
        """The rows worth computing for a batch, and the actions they score: the global row
        and the slots up to the last one any position fills (slots fill in placement order,
        and padding changes no output), so a mid-game batch runs on about half the tokens.
        ``(rows, kept)``: run the network on ``observations[:, :rows]``; its logits are those
        of the actions in the slices ``kept``, in order. None when every slot is needed."""
        filled = np.flatnonzero((observations[:, 1:, 0] > 0.5).any(axis=0))
        # At least one slot: a frozen graph traced with pieces fails on an empty slot axis.
        slots = int(filled[-1]) + 1 if len(filled) else 1
        if slots >= self.slots:
            return None
        opening = self.slots * self.local
        return 1 + slots, (slice(0, slots * self.local), slice(opening, opening + self.opening))


def encoder_layer(layer: nn.TransformerEncoderLayer, h: torch.Tensor,
                  bias: torch.Tensor) -> torch.Tensor:
    """``layer(h, src_key_padding_mask=...)`` for a pre-norm ReLU layer without dropout, with
    the padding as an additive ``bias`` of shape (B, 1, 1, T): the same arithmetic as torch's
    layer, without its slow fused masked softmax."""
    attn = layer.self_attn
    b, t, d = h.shape
    heads, width = attn.num_heads, attn.head_dim
    x = layer.norm1(h)
    qkv = F.linear(x, attn.in_proj_weight, attn.in_proj_bias)
    qkv = qkv.view(b, t, 3, heads, width).permute(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    scores = torch.matmul(q * (1.0 / math.sqrt(width)), k.transpose(-1, -2)) + bias
    a = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, t, d)
    h = h + attn.out_proj(a)
    return h + layer.linear2(F.relu(layer.linear1(layer.norm2(h))))
