"""Replay buffer: a ring of (observation, legal mask, policy target, value target) samples.

Symmetry augmentation happens when sampling (a random symmetry of the game per sample, through
``game.apply_symmetry``), so the buffer stores each position once. The buffer is saved next to
each checkpoint (``.npz``) so that a resumed run trains on exactly the data it had.

Saving is on the training loop's path every iteration. Observation planes made of 0s and 1s
(most of Stereo Go's) are stored as packed bits, planes holding one value per sample (its
komi and rules planes) as that value, and the file is not compressed: a full Stereo Go buffer
(100,000 samples, 1.7 GB of float32 planes) took 16 s to save with zlib, a quarter of an
iteration on 2 cores. Other observations are saved compressed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from envs.core import Game, QizeroError


class Sample(NamedTuple):
    """A batch drawn for a gradient step; ``ownership``/``score`` only with auxiliary
    targets (KataGo's heads: per observation cell, and the margin per point), else None."""

    obs: np.ndarray
    mask: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    ownership: np.ndarray | None = None
    score: np.ndarray | None = None


class ReplayBuffer:
    def __init__(
        self, game: Game, capacity: int, symmetries: bool = True, aux: bool = False
    ) -> None:
        spec = game.spec
        self.game = game
        self.capacity = capacity
        self.symmetries = symmetries and spec.num_symmetries > 1
        self.obs = np.zeros((capacity, *spec.observation_shape), dtype=np.float32)
        self.mask = np.zeros((capacity, spec.num_actions), dtype=bool)
        self.policy = np.zeros((capacity, spec.num_actions), dtype=np.float32)
        self.value = np.zeros(capacity, dtype=np.float32)
        # Auxiliary targets, from the mover's view: ownership in -1..1 per observation cell
        # (int8: three values, a quarter of float32's memory) and the score per point.
        self.aux = aux
        cells = spec.observation_shape[1:] if aux else (0,)
        self.ownership = np.zeros((capacity if aux else 0, *cells), dtype=np.int8)
        self.score = np.zeros(capacity if aux else 0, dtype=np.float32)
        self.size = 0
        self.next = 0  # ring position of the next write
        self.added = 0  # samples ever added
        # Per observation plane (the first axis): every value added so far is 0/1 (saved as
        # bits), or each sample's plane holds one value (saved as that value).
        planes = spec.observation_shape[0] if spec.observation_shape else 1
        self.bit_planes = np.ones(planes, dtype=bool)
        self.flat_planes = np.ones(planes, dtype=bool)

    def __len__(self) -> int:
        return self.size

    def add(
        self,
        obs: np.ndarray,
        mask: np.ndarray,
        policy: np.ndarray,
        value: np.ndarray,
        ownership: np.ndarray | None = None,
        score: np.ndarray | None = None,
    ) -> None:
        """Append a batch of samples (oldest ones are overwritten when full); a buffer with
        auxiliary targets needs ``ownership`` and ``score`` too."""
        n = len(obs)
        if self.aux and (ownership is None or score is None):
            raise QizeroError(
                "network.aux_heads needs ownership and score targets, and this game's "
                "self-play gives none (Game.outcome_targets)"
            )
        for start in range(0, n, self.capacity):
            chunk = slice(start, min(n, start + self.capacity))
            m = chunk.stop - chunk.start
            idx = (self.next + np.arange(m)) % self.capacity
            self.obs[idx] = obs[chunk]
            self._classify_planes(obs[chunk])
            self.mask[idx] = mask[chunk]
            self.policy[idx] = policy[chunk]
            self.value[idx] = value[chunk]
            if self.aux:
                self.ownership[idx] = np.rint(ownership[chunk])
                self.score[idx] = score[chunk]
            self.next = int((self.next + m) % self.capacity)
            self.size = min(self.capacity, self.size + m)
        self.added += n

    @property
    def binary_obs(self) -> bool:
        """Every observation added so far is made of 0s and 1s."""
        return bool(self.bit_planes.all())

    def _plane_view(self, obs: np.ndarray) -> np.ndarray:
        """``obs`` as (samples, planes, values of a plane)."""
        planes = len(self.bit_planes)
        return obs.reshape(len(obs), planes, self.obs[0].size // planes)

    def _classify_planes(self, obs: np.ndarray) -> None:
        if not len(obs):
            return
        v = self._plane_view(obs)
        self.bit_planes &= ((v == 0) | (v == 1)).all(axis=(0, 2))
        self.flat_planes &= (v == v[:, :, :1]).all(axis=(0, 2))

    def sample(self, batch_size: int, rng: np.random.Generator) -> Sample:
        if self.size == 0:
            raise QizeroError("cannot sample from an empty replay buffer")
        idx = rng.integers(0, self.size, size=batch_size)
        obs, mask = self.obs[idx].copy(), self.mask[idx].copy()
        policy, value = self.policy[idx].copy(), self.value[idx].copy()
        own = self.ownership[idx].astype(np.float32) if self.aux else None
        if self.symmetries:
            syms = rng.integers(0, self.game.spec.num_symmetries, size=batch_size)
            for j in np.flatnonzero(syms):
                # The ownership plane rides along as one more observation channel.
                planes = obs[j] if own is None else np.concatenate([obs[j], own[j][None]])
                o, p = self.game.apply_symmetry(int(syms[j]), planes, policy[j])
                _, m = self.game.apply_symmetry(int(syms[j]), planes, mask[j])
                if own is not None:
                    o, own[j] = o[:-1], o[-1]
                obs[j], policy[j], mask[j] = o, p, m
        score = self.score[idx].copy() if self.aux else None
        return Sample(obs, mask, policy, value, own, score)

    # -------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp.npz")
        n = self.size
        arrays = {
            "mask_bits": np.packbits(self.mask[:n], axis=None),
            "policy": self.policy[:n],
            "value": self.value[:n],
            "meta": np.array([self.capacity, self.next, self.added], dtype=np.int64),
        }
        if self.aux:
            arrays["ownership"], arrays["score"] = self.ownership[:n], self.score[:n]
        bits, flat = self.bit_planes, self.flat_planes & ~self.bit_planes
        if (bits | flat).all():
            v = self._plane_view(self.obs[:n])
            arrays["obs_bits"] = np.packbits(v[:, bits].astype(bool), axis=None)
            arrays["obs_flat"] = v[:, flat, 0]
            arrays["obs_plane_bits"] = bits
            np.savez(tmp, **arrays)
        else:
            np.savez_compressed(tmp, obs=self.obs[:n], **arrays)
        os.replace(tmp, path)

    def load(self, path: str | Path) -> None:
        try:
            with np.load(path) as data:
                policy, value, meta = data["policy"], data["value"], data["meta"]
                n = len(policy)
                if policy.shape[1:] != self.policy.shape[1:]:
                    raise QizeroError(
                        f"replay buffer {path} was written for another game or config"
                    )
                obs_shape, mask_shape = (n, *self.obs.shape[1:]), (n, self.mask.shape[1])
                if "obs_bits" in data:
                    obs = self._unpack_planes(data, obs_shape)
                else:  # compressed float observations (and buffers of earlier versions)
                    obs = data["obs"]
                if "mask_bits" in data:
                    mask = _unpack(data["mask_bits"], mask_shape).astype(bool)
                else:
                    mask = data["mask"]
                if self.aux:
                    if "ownership" not in data:
                        raise QizeroError(
                            f"replay buffer {path} has no ownership and score targets; "
                            "the config's network has auxiliary heads"
                        )
                    ownership, score = data["ownership"], data["score"]
        except (OSError, KeyError, ValueError) as exc:
            raise QizeroError(f"cannot read replay buffer {path}: {exc}") from None
        if obs.shape != obs_shape or mask.shape != mask_shape:
            raise QizeroError(f"replay buffer {path} was written for another game or config")
        capacity, nxt, added = (int(x) for x in meta)
        if capacity != self.capacity or n > self.capacity:
            raise QizeroError(
                f"replay buffer {path} has capacity {capacity}; the config says {self.capacity}"
            )
        self.obs[:n], self.mask[:n], self.policy[:n], self.value[:n] = obs, mask, policy, value
        if self.aux:
            self.ownership[:n], self.score[:n] = ownership, score
        self.size, self.next, self.added = n, nxt, added
        self.bit_planes[:] = self.flat_planes[:] = True
        self._classify_planes(obs)

    def _unpack_planes(self, data: Any, obs_shape: tuple[int, ...]) -> np.ndarray:
        """Observations from their bit planes and one-value planes (see :meth:`save`); files
        of earlier versions hold bits only."""
        n, planes = obs_shape[0], len(self.bit_planes)
        bits = data["obs_plane_bits"] if "obs_plane_bits" in data else np.ones(planes, bool)
        if bits.shape != (planes,):
            raise ValueError(f"{bits.shape[0]} observation planes saved, {planes} expected")
        per_plane = int(np.prod(obs_shape[1:], dtype=np.int64)) // planes
        v = np.empty((n, planes, per_plane), dtype=np.float32)
        v[:, bits] = _unpack(data["obs_bits"], (n, int(bits.sum()), per_plane))
        if (~bits).any():
            v[:, ~bits] = data["obs_flat"][:, :, None]
        return v.reshape(obs_shape)


def _unpack(bits: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Bits saved with ``np.packbits(..., axis=None)`` back into an array of ``shape``."""
    count = int(np.prod(shape))
    if bits.size * 8 < count:
        raise ValueError(f"{bits.size} bytes of bits cannot fill shape {shape}")
    return np.unpackbits(bits, count=count).reshape(shape)
