"""Games that live outside this repository: modules named by ``QIZERO_GAME_MODULES``.

Why an environment variable: every process that plays a game must know it, and a variable
reaches all of them with no code: the CLI, the service, the service's search processes and
the trainer's self-play workers (both started with ``spawn``, which inherit the environment
and ``sys.path``). ``import envs`` imports each named module once; the module registers its
game(s) with :func:`envs.core.register_game` when it is imported.

    QIZERO_GAME_MODULES=examples.connect_four qizero serve

Names are separated by commas or spaces; the modules must be importable (installed, or on
``PYTHONPATH``).
"""

from __future__ import annotations

import importlib
import os
import re

from envs.core import ConfigError

ENV_VAR = "QIZERO_GAME_MODULES"


def plugin_modules(value: str | None = None) -> list[str]:
    """The module names in ``value`` (default: the environment variable), in order."""
    text = os.environ.get(ENV_VAR, "") if value is None else value
    return [name for name in re.split(r"[,\s]+", text) if name]


def load_plugins(value: str | None = None) -> list[str]:
    """Import every plugin module (they register their games); ConfigError names the one
    that cannot be imported and why."""
    names = plugin_modules(value)
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(
                f"{ENV_VAR} names {name!r}, which cannot be imported ({exc}); install it or "
                "put its folder on PYTHONPATH"
            ) from exc
    return names
