"""Policy/value networks, one builder per board kind, chosen by name from a registry.

Every network maps a batch of observations ``(B, *spec.observation_shape)`` to
``(policy_logits (B, num_actions), value (B,) in [-1, 1])``; masking illegal actions is the
evaluator's and the loss's job, so networks stay game-agnostic. New board kinds (the cylinder
CNN with circular padding for Stereo Go, the piece-token transformer for TriGolden) are a new
builder registered in :data:`NETWORKS`, nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from agents.config import NetworkConfig
from agents.network_heads import AuxHeads
from agents.networks_cylinder import CylinderResNet
from agents.networks_tokens import TokenTransformer
from envs.core import ConfigError, GameSpec


class ResidualBlock(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(x + y)


class GridResNet(nn.Module):
    """A small AlphaZero-style residual CNN for games on a rectangular grid.

    Observation planes ``(C, H, W)``; a 3x3 stem, ``blocks`` residual blocks, then a policy
    head (1x1 conv to 2 planes, linear to every action: the action space need not be one
    action per point) and a value head (1x1 conv, hidden layer, tanh).
    """

    def __init__(self, spec: GameSpec, cfg: NetworkConfig) -> None:
        super().__init__()
        if len(spec.observation_shape) != 3:
            raise ConfigError(
                f"network 'resnet' needs (C, H, W) observations; {spec.id} gives "
                f"{spec.observation_shape}"
            )
        c_in, h, w = spec.observation_shape
        ch = cfg.channels
        self.stem = nn.Sequential(
            nn.Conv2d(c_in, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU()
        )
        self.trunk = nn.Sequential(*[ResidualBlock(ch) for _ in range(cfg.blocks)])
        self.policy_conv = nn.Sequential(
            nn.Conv2d(ch, 2, 1, bias=False), nn.BatchNorm2d(2), nn.ReLU()
        )
        self.policy_fc = nn.Linear(2 * h * w, spec.num_actions)
        self.value_conv = nn.Sequential(
            nn.Conv2d(ch, 1, 1, bias=False), nn.BatchNorm2d(1), nn.ReLU()
        )
        self.value_fc = nn.Sequential(
            nn.Linear(h * w, cfg.value_hidden), nn.ReLU(), nn.Linear(cfg.value_hidden, 1)
        )
        self.aux = AuxHeads(ch, cfg.value_hidden) if cfg.aux_heads else None

    def _heads(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = self.trunk(self.stem(x))
        logits = self.policy_fc(self.policy_conv(x).flatten(1))
        value = torch.tanh(self.value_fc(self.value_conv(x).flatten(1))).squeeze(1)
        return logits, value, x

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value, _ = self._heads(x)
        return logits, value

    def forward_aux(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """``(logits, value, ownership (B, H, W), score (B,))``: the training forward pass."""
        if self.aux is None:
            raise ConfigError("this network has no auxiliary heads (network.aux_heads)")
        logits, value, h = self._heads(x)
        pooled = torch.cat([h.mean(dim=(2, 3)), h.amax(dim=(2, 3))], dim=1)
        return logits, value, *self.aux(h, pooled)


class MLPNet(nn.Module):
    """A plain multilayer perceptron over the flattened observation.

    For tiny boards (Jiugong's 3x3) it is as good as a CNN and several times cheaper per call,
    which matters on CPU where per-layer overhead dominates. ``channels`` is the hidden width
    and ``blocks`` the number of hidden layers.
    """

    def __init__(self, spec: GameSpec, cfg: NetworkConfig) -> None:
        super().__init__()
        n_in = 1
        for d in spec.observation_shape:
            n_in *= d
        layers: list[nn.Module] = []
        width = n_in
        for _ in range(max(cfg.blocks, 1)):
            layers += [nn.Linear(width, cfg.channels), nn.ReLU()]
            width = cfg.channels
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, spec.num_actions)
        self.value = nn.Sequential(
            nn.Linear(width, cfg.value_hidden), nn.ReLU(), nn.Linear(cfg.value_hidden, 1)
        )

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.trunk(x.flatten(1))
        return self.policy(h), torch.tanh(self.value(h)).squeeze(1)


#: kind -> builder(spec, config) -> module.
NETWORKS: dict[str, Callable[[GameSpec, NetworkConfig], nn.Module]] = {
    "resnet": GridResNet,
    "mlp": MLPNet,
    "cylinder": CylinderResNet,  # Stereo Go on the cylinder
    "tokens": TokenTransformer,  # TriGolden piece tokens
}


def build_network(spec: GameSpec, cfg: NetworkConfig) -> nn.Module:
    """The network named by ``cfg.kind`` for a game's spec."""
    if cfg.kind not in NETWORKS:
        raise ConfigError(f"unknown network kind {cfg.kind!r}; known: {sorted(NETWORKS)}")
    builder = NETWORKS[cfg.kind]
    if cfg.aux_heads and not hasattr(builder, "forward_aux"):
        raise ConfigError(f"network {cfg.kind!r} has no auxiliary heads (network.aux_heads)")
    return builder(spec, cfg)


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())
