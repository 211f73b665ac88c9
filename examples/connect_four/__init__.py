"""Connect Four as a plugin game: ``QIZERO_GAME_MODULES=examples.connect_four`` registers it in
every process (envs.plugins), the way a game of your own is added (docs/adding_a_game.md)."""

from envs.core import register_game

register_game("connect_four", "examples.connect_four.game:ConnectFour", "qizero/ConnectFour-v0")
