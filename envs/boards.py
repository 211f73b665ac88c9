"""How a game's position is drawn and described for people, as data (``Game.board_view`` and
``Game.status_facts``).

Why data: a client that knows a handful of board kinds draws every game of that kind, and a
new game needs no client code. The generic kinds are ``"grid"`` (:func:`grid_board`: rows x
columns of cells holding player pieces, clicked by cell or by column) and ``"text"`` (the
game's ASCII picture, its legal moves offered as buttons). A game with a picture of its own
names a kind the client draws its own way (``"stereo_go"``, ``"trigolden"``...).

A status fact is a label key and its arguments (:func:`fact`); the client looks the key up in
its label tables, to which a game adds its own texts in every language (``Game.labels``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

__all__ = ["fact", "grid_board", "label_arg", "seat_arg", "seats_arg", "special_board"]

#: How a click on a grid cell becomes a move: ``"cell"`` plays the move named like the cell
#: (and ``p-q`` steps, ``xp`` removals, as on every point board); ``"column"`` plays the move
#: named like the clicked cell's column label (drop games).
ClickMode = Literal["cell", "column"]


def grid_board(
    cells: Sequence[Sequence[int | None]],
    col_labels: Sequence[str],
    row_labels: Sequence[str],
    *,
    click: ClickMode = "cell",
    highlight: Sequence[str] = (),
) -> dict[str, Any]:
    """A ``"grid"`` board. ``cells[r][c]``: the index of the player whose piece stands there,
    or None; row 0 is drawn at the top. A cell is named by its column label then its row
    label (``"a1"``); ``highlight``: cells to mark (the last move)."""
    rows, cols = len(row_labels), len(col_labels)
    if len(cells) != rows or any(len(row) != cols for row in cells):
        raise ValueError(f"cells must be {rows} rows of {cols}, as the labels say")
    return {
        "kind": "grid",
        "rows": rows,
        "cols": cols,
        "col_labels": list(col_labels),
        "row_labels": list(row_labels),
        "cells": [[None if v is None else int(v) for v in row] for row in cells],
        "click": click,
        "highlight": list(highlight),
    }


def special_board(kind: str) -> dict[str, Any]:
    """A board the client draws its own way from the state JSON (no generic data)."""
    return {"kind": kind}


def fact(key: str, **args: Any) -> dict[str, Any]:
    """A status fact: the label ``key`` filled with ``args``. An argument is shown as it is,
    or translated when built by :func:`seat_arg`, :func:`label_arg` or :func:`seats_arg`."""
    return {"key": key, "args": args}


def seat_arg(seat: str) -> dict[str, str]:
    """An argument naming a seat (shown in the page's language)."""
    return {"seat": seat}


def label_arg(key: str) -> dict[str, str]:
    """An argument that is itself a label (a phase name...)."""
    return {"label": key}


def seats_arg(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """An argument with a value per seat ("black 3, white 2")."""
    return {"seats": dict(values)}
