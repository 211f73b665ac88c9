"""A residual CNN for the Stereo Go cylinder: circular around the meridians, poles tied.

The observation grid (``envs/stereo_go/board.py``) is 23 rows x 17 columns::

    row 0        NP NP NP ... NP      the north pole, repeated across the row
    rows 1..21   ring 1 .. ring 21    column m = meridian m (A..Q), Q next to A
    row 22       SP SP SP ... SP      the south pole, repeated

Why this shape of network: the board has no left or right edge, so every 3x3 convolution pads
the columns circularly (meridian Q sees A) and only the rows with zeros (the poles are the
rows' ends). A pole is ONE point touching all 17 points of its ring, but it occupies a whole
row of cells; after every layer the two pole rows are replaced by their mean over the row, so
a pole's features always equal the average of what its 17 ring neighbours told it and every
pole cell is the same. With that, rotating the input by one meridian rotates every feature
map (and so the point logits) by one meridian exactly: the net is equivariant to the 17
rotations by construction, the other 4 symmetries (mirror, pole swap) come from augmentation.

Heads: a fully convolutional point policy (one logit per cell; ring cells are the 357 ring
points in action order ``(ring - 1) * 17 + meridian``, each pole's logit is the mean of its
row, taken once), the pass logit and the value from pooled features (mean over points, each
pole counted once, and max). ``NetworkConfig`` mapping: ``channels`` = trunk width,
``blocks`` = residual blocks, ``value_hidden`` = hidden width of the value (and pass) head.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from agents.config import NetworkConfig
from agents.network_heads import AuxHeads
from envs.core import ConfigError, GameSpec


class CylinderConv(nn.Module):
    """A 3x3 convolution padded circularly along the columns and with zeros along the rows."""

    def __init__(self, c_in: int, c_out: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=0, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.pad(x, (1, 1, 0, 0), mode="circular")
        x = F.pad(x, (0, 0, 1, 1))
        return self.conv(x)


def tie_poles(x: torch.Tensor) -> torch.Tensor:
    """Replace the first and last rows by their mean over the row (each pole is one point)."""
    north = x[:, :, :1].mean(dim=3, keepdim=True).expand_as(x[:, :, :1])
    south = x[:, :, -1:].mean(dim=3, keepdim=True).expand_as(x[:, :, -1:])
    return torch.cat([north, x[:, :, 1:-1], south], dim=2)


class CylinderBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = CylinderConv(channels, channels)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = CylinderConv(channels, channels)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = tie_poles(torch.relu(self.bn1(self.conv1(x))))
        y = tie_poles(self.bn2(self.conv2(y)))
        return torch.relu(x + y)


class CylinderResNet(nn.Module):
    """Policy/value net for ``stereo_go`` with ``board="cylinder"`` (see the module docstring)."""

    def __init__(self, spec: GameSpec, cfg: NetworkConfig) -> None:
        super().__init__()
        shape = spec.observation_shape
        if len(shape) != 3:
            raise ConfigError(
                f"network 'cylinder' needs (C, rows, meridians) observations; {spec.id} gives "
                f"{shape}"
            )
        c_in, rows, cols = shape
        rings = rows - 2
        if rings < 1 or spec.num_actions != rings * cols + 3:
            raise ConfigError(
                f"network 'cylinder' needs a cylinder board (rings x meridians + 2 poles + "
                f"pass actions, observation rows = rings + 2); {spec.id} has observation "
                f"{shape} and {spec.num_actions} actions (plain NxN boards: use 'resnet')"
            )
        self.rings, self.meridians = rings, cols
        ch = cfg.channels
        self.stem = CylinderConv(c_in, ch)
        self.stem_bn = nn.BatchNorm2d(ch)
        self.trunk = nn.Sequential(*[CylinderBlock(ch) for _ in range(cfg.blocks)])
        self.policy_head = nn.Sequential(
            nn.Conv2d(ch, ch, 1, bias=False), nn.BatchNorm2d(ch), nn.ReLU(), nn.Conv2d(ch, 1, 1)
        )
        self.pass_head = nn.Sequential(
            nn.Linear(2 * ch, cfg.value_hidden), nn.ReLU(), nn.Linear(cfg.value_hidden, 1)
        )
        self.value_head = nn.Sequential(
            nn.Linear(2 * ch, cfg.value_hidden), nn.ReLU(), nn.Linear(cfg.value_hidden, 1)
        )
        self.aux = AuxHeads(ch, cfg.value_hidden) if cfg.aux_heads else None
        # Pooling weights: a pole counts once (1/meridians per cell), a ring cell once.
        w = torch.ones(rows, cols)
        w[0] = w[-1] = 1.0 / cols
        self.register_buffer("point_weights", w / w.sum(), persistent=False)

    def _heads(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        h = tie_poles(torch.relu(self.stem_bn(self.stem(x))))
        h = self.trunk(h)
        cells = self.policy_head(h)[:, 0]  # (B, rows, cols); pole rows are constant
        points = cells[:, 1:-1].flatten(1)
        poles = cells[:, [0, -1]].mean(dim=2)
        mean = (h * self.point_weights).sum(dim=(2, 3))
        pooled = torch.cat([mean, h.amax(dim=(2, 3))], dim=1)
        logits = torch.cat([points, poles, self.pass_head(pooled)], dim=1)
        value = torch.tanh(self.value_head(pooled)).squeeze(1)
        return logits, value, h, pooled

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value, _, _ = self._heads(x)
        return logits, value

    def forward_aux(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``(logits, value, ownership (B, rows, cols), score (B,))``: the training pass.
        The trunk's pole rows are tied, so each pole gets one ownership across its row."""
        if self.aux is None:
            raise ConfigError("this network has no auxiliary heads (network.aux_heads)")
        logits, value, h, pooled = self._heads(x)
        ownership, score = self.aux(h, pooled)
        return logits, value, ownership, score
