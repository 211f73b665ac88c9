"""A deliberately simple Go reference for the Stereo Go tests: slow, obvious, independent.

Boards are dicts point -> colour ('X' black, 'O' white) over a neighbour list; chains and
liberties are found by flood fill on every question; positional superko compares frozensets of
whole positions. It shares nothing with the engine but the neighbour lists (the board graph),
which ``test_stereo_go_rules`` checks on its own.
"""

from __future__ import annotations

from collections.abc import Sequence


class RefGo:
    """Go on a graph: positions are frozensets of (point, colour)."""

    def __init__(self, neighbours: Sequence[Sequence[int]], max_moves: int) -> None:
        self.nb = [tuple(n) for n in neighbours]
        self.n = len(neighbours)
        self.max_moves = max_moves
        self.board: dict[int, str] = {}
        self.seen: set[frozenset] = {frozenset()}
        self.to_play = "X"
        self.passes = 0
        self.moves = 0
        self.captures = {"X": 0, "O": 0}
        self.over = False

    def chain(self, board: dict[int, str], p: int) -> tuple[set[int], set[int]]:
        colour = board[p]
        stones, libs, todo = {p}, set(), [p]
        while todo:
            q = todo.pop()
            for r in self.nb[q]:
                if r not in board:
                    libs.add(r)
                elif board[r] == colour and r not in stones:
                    stones.add(r)
                    todo.append(r)
        return stones, libs

    def try_move(self, p: int) -> tuple[dict[int, str], int] | str:
        """The board after the side to move plays p, and the number captured; or why not."""
        if p in self.board:
            return "occupied"
        board = dict(self.board)
        board[p] = self.to_play
        other = "O" if self.to_play == "X" else "X"
        captured = 0
        for q in self.nb[p]:
            if board.get(q) == other:
                stones, libs = self.chain(board, q)
                if not libs:
                    for s in stones:
                        del board[s]
                    captured += len(stones)
        if not self.chain(board, p)[1]:
            return "suicide"
        if frozenset(board.items()) in self.seen:
            return "superko"
        return board, captured

    def legal(self) -> list[int]:
        """Legal actions: points then pass (= n)."""
        if self.over:
            return []
        return [p for p in range(self.n) if not isinstance(self.try_move(p), str)] + [self.n]

    def play(self, p: int) -> None:
        if p == self.n:
            self.passes += 1
        else:
            result = self.try_move(p)
            if isinstance(result, str):
                raise ValueError(result)
            self.board, captured = result
            self.captures[self.to_play] += captured
            self.seen.add(frozenset(self.board.items()))
            self.passes = 0
        self.moves += 1
        self.to_play = "O" if self.to_play == "X" else "X"
        if self.passes >= 2 or self.moves >= self.max_moves:
            self.over = True

    def area(self) -> tuple[int, int]:
        """Tromp-Taylor area (stones + empty regions reaching one colour only)."""
        score = {"X": 0, "O": 0}
        for colour in self.board.values():
            score[colour] += 1
        seen: set[int] = set()
        for p in range(self.n):
            if p in self.board or p in seen:
                continue
            region, border, todo = {p}, set(), [p]
            while todo:
                q = todo.pop()
                for r in self.nb[q]:
                    if r in self.board:
                        border.add(self.board[r])
                    elif r not in region:
                        region.add(r)
                        todo.append(r)
            seen |= region
            if len(border) == 1:
                score[border.pop()] += len(region)
        return score["X"], score["O"]
