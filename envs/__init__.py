"""Rules engines and their Gymnasium environments.

``import envs`` registers every game shipped here, then imports the game modules named by
``QIZERO_GAME_MODULES`` (``envs.plugins``: games of your own, registered the same way): each
game for ``envs.make_game`` and as a Gymnasium id (``gymnasium.make("qizero/Jiugong-v0")``).
Rules modules import only numpy; the games are imported lazily, the first time one is made.
"""

from typing import Any

from envs.core import (
    ConfigError,
    Game,
    GameSpec,
    IllegalMove,
    InvalidState,
    OutcomeTargets,
    QizeroError,
    changed_options,
    config_options,
    game_class,
    game_ids,
    make_game,
    options_key,
    register_game,
)

register_game("jiugong", "envs.jiugong:Jiugong", "qizero/Jiugong-v0")
register_game("fangqi", "envs.fangqi:FangQi", "qizero/FangQi-v0")
register_game("trigolden", "envs.trigolden:TriGolden", "qizero/TriGolden-v0")
register_game("stereo_go", "envs.stereo_go:StereoGo", "qizero/StereoGo-v0")

from envs.plugins import load_plugins  # noqa: E402  (plugins register through envs.core)

load_plugins()

from envs.gym_env import register_gym_envs  # noqa: E402  (after the registry is filled)

register_gym_envs()


def pettingzoo_env(game_id: str, **kwargs: Any) -> Any:
    """A game as a PettingZoo AEC env (``envs.pettingzoo_aec.GameAECEnv``, wrapped in
    PettingZoo's order checks). ``kwargs``: the game's options, plus ``illegal_action`` and
    ``render_mode``. Needs the ``pettingzoo`` extra, imported only here."""
    from envs.pettingzoo_aec import make_env

    return make_env(game_id, **kwargs)


def openspiel_game(game_id: str, **options: Any) -> Any:
    """A game as an OpenSpiel Python game (``pyspiel.load_game("qizero_<id>")``, registered by
    ``envs.openspiel_games``). Needs the ``openspiel`` extra, imported only here."""
    from envs.openspiel_games import load

    return load(game_id, **options)


__all__ = [
    "ConfigError",
    "Game",
    "GameSpec",
    "IllegalMove",
    "InvalidState",
    "OutcomeTargets",
    "QizeroError",
    "changed_options",
    "config_options",
    "game_class",
    "game_ids",
    "make_game",
    "openspiel_game",
    "options_key",
    "pettingzoo_env",
    "register_game",
]
