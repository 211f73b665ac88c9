"""Which torch device a config's ``device`` field names on this machine (learner and self-play).

``auto`` takes the first CUDA GPU torch sees and falls back to the CPU, so one config runs on a
laptop and on a GPU machine; naming ``cuda`` where there is none is a configuration error, not
a silent fallback.
"""

from __future__ import annotations

import torch

from envs.core import ConfigError


def resolve_device(name: str, field: str = "training.device") -> torch.device:
    """The device ``name`` (``auto``, ``cpu``, ``cuda`` or ``cuda:N``) means here."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"{field} is {name!r} but torch sees no CUDA GPU here (use auto or cpu)")
    return torch.device(name)
