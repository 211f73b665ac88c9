"""Heads shared by the grid and the cylinder networks (their own module, so that
``agents.networks``, which builds every kind, and ``agents.networks_cylinder`` both import
it and not each other)."""

from __future__ import annotations

import torch
from torch import nn


class AuxHeads(nn.Module):
    """KataGo's ownership head (a 1x1 convolution per cell, tanh) and score head (the margin
    per point, from pooled trunk features); see ``NetworkConfig.aux_heads``."""

    def __init__(self, channels: int, hidden: int) -> None:
        super().__init__()
        self.ownership = nn.Conv2d(channels, 1, 1)
        self.score = nn.Sequential(
            nn.Linear(2 * channels, hidden), nn.ReLU(), nn.Linear(hidden, 1)
        )

    def forward(
        self, h: torch.Tensor, pooled: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.tanh(self.ownership(h)[:, 0]), self.score(pooled).squeeze(1)
