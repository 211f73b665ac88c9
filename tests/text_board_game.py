"""A plugin game with no board of its own, for tests/test_adding_a_game.py: Connect Four under
another id with the Game protocol's default ``board_view``, which the web client draws as the
engine's text picture with the legal moves as buttons."""

from __future__ import annotations

import dataclasses

from envs.core import Game, register_game
from examples.connect_four.game import ConnectFour


class PlainConnectFour(ConnectFour):
    """Connect Four without a grid: the protocol's text board, and no labels of its own."""

    _SPEC = dataclasses.replace(ConnectFour._SPEC, id="plain_connect_four",
                                name="Plain Connect Four")
    labels = {}
    board_view = Game.board_view


register_game("plain_connect_four", "text_board_game:PlainConnectFour",
              "qizero/PlainConnectFour-v0")
