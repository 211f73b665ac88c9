"""The dead chains the server proposes in Go's scoring phase: a simple heuristic, not a judge.

The rules let the server propose dead chains; the players still mark and accept them, so the
proposal needs to be right in the plain cases and cautious elsewhere, not clever. Rule, on a
board graph (any Go board):

* a chain's *pocket* is everything it reaches without crossing an opponent stone (its own
  colour's stones and the empty points between them);
* a chain is proposed dead when its pocket holds **no territory of its colour** (no empty
  region bordered by its colour only: no eye space) **and its pocket is enclosed**: the empty
  points of its pocket are a proper part of the pocket of every opponent chain around it
  (the opponent reaches all of its space and more);
* the proposed chains are taken off and the rule is applied again (a chain whose eyes held
  dead stones then has its eye space), until nothing changes.

What it gets right: stones left inside the opponent's territory and stones thrown into an
eye. What it misses, on purpose: seki (the two sides' pockets share the same empty points, so
neither encloses the other and neither is proposed), life and death that needs reading (a
chain with eye space is never proposed, even when that space cannot make two eyes; a weak
chain whose pocket reaches open space is never proposed), and a dead chain that borders an
opponent chain shut in elsewhere. The players correct the proposal with their marks.
"""

from __future__ import annotations

import numpy as np

EMPTY = 0


def _chains(board: np.ndarray, nbr: np.ndarray) -> tuple[np.ndarray, list[list[int]]]:
    """Chain index per point (-1 on empty points) and each chain's points (ascending)."""
    chain_of = np.full(len(board), -1, dtype=np.int64)
    chains: list[list[int]] = []
    for p0 in range(len(board)):
        if board[p0] == EMPTY or chain_of[p0] >= 0:
            continue
        k = len(chains)
        chain_of[p0] = k
        stack, points = [p0], []
        while stack:
            p = stack.pop()
            points.append(p)
            for q in nbr[p]:
                if q >= 0 and board[q] == board[p0] and chain_of[q] < 0:
                    chain_of[q] = k
                    stack.append(int(q))
        chains.append(sorted(points))
    return chain_of, chains


def _regions(board: np.ndarray, nbr: np.ndarray, passable: np.ndarray) -> np.ndarray:
    """Connected-component label per point over the points where ``passable`` (else -1)."""
    label = np.full(len(board), -1, dtype=np.int64)
    n_labels = 0
    for p0 in np.flatnonzero(passable):
        if label[p0] >= 0:
            continue
        label[p0] = n_labels
        stack = [int(p0)]
        while stack:
            p = stack.pop()
            for q in nbr[p]:
                if q >= 0 and passable[q] and label[q] < 0:
                    label[q] = n_labels
                    stack.append(int(q))
        n_labels += 1
    return label


def _dead_now(board: np.ndarray, nbr: np.ndarray) -> list[list[int]]:
    """The chains the rule takes off this board (one application)."""
    _, chains = _chains(board, nbr)
    empty = board == EMPTY
    region = _regions(board, nbr, empty)
    border = np.zeros(len(board), dtype=np.int64)  # per empty region: 1 black, 2 white, 3 both
    for p in np.flatnonzero(empty):
        for q in nbr[p]:
            if q >= 0 and not empty[q]:
                border[region[p]] |= int(board[q])
    pocket = {c: _regions(board, nbr, board != 3 - c) for c in (1, 2)}
    space: dict[int, dict[int, frozenset[int]]] = {}  # colour -> pocket -> its empty points
    owns: dict[int, set[int]] = {}  # colour -> pockets holding territory of that colour
    enclosers: dict[int, dict[int, set[int]]] = {}  # colour -> pocket -> opponent pockets
    for c in (1, 2):
        points: dict[int, set[int]] = {}
        for p in np.flatnonzero(empty):
            points.setdefault(int(pocket[c][p]), set()).add(int(p))
        space[c] = {k: frozenset(v) for k, v in points.items()}
        owns[c] = {int(pocket[c][p]) for p in np.flatnonzero(empty) if border[region[p]] == c}
        enclosers[c] = {}
        for p in np.flatnonzero(pocket[c] >= 0):
            for q in nbr[p]:
                if q >= 0 and board[q] == 3 - c:
                    enclosers[c].setdefault(int(pocket[c][p]), set()).add(int(pocket[3 - c][q]))
    dead = []
    for points in chains:
        c = int(board[points[0]])
        home = int(pocket[c][points[0]])
        mine = space[c].get(home, frozenset())
        around = enclosers[c].get(home, set())
        if home not in owns[c] and around and all(mine < space[3 - c][o] for o in around):
            dead.append(points)
    return dead


def propose_dead(board: np.ndarray, nbr: np.ndarray) -> list[int]:
    """One point (the lowest) of each chain proposed dead, ascending.

    ``board``: 0 empty, 1 black, 2 white per point; ``nbr``: the neighbour table padded with
    -1 (``envs.stereo_go.board.Board.nbr``).
    """
    board = np.array(board, dtype=np.int64)
    marks: list[int] = []
    for _ in range(len(board)):  # each round takes stones off, so this always ends
        dead = _dead_now(board, nbr)
        if not dead:
            break
        for points in dead:
            marks.append(points[0])
            board[points] = EMPTY
    return sorted(marks)
