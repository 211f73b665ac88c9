"""Scoring a Stereo Go position under either rule set, with an optional set of dead chains.

Territory (Japanese/Korean, the default): empty regions whose border is one colour only +
prisoners + dead opponent stones. Area (Chinese): stones + such regions. Komi goes to White
under both (7.5 points = 3 3/4 stones by default). Seki is not special-cased: an empty region
bordered by one colour counts as territory under both rule sets (the rules file's note).
The end of a game (two passes, the move cap) is scored by the kernel (``kernel.finish``) with
every stone alive (Tromp-Taylor); this module serves sessions, where players mark dead chains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from envs.core import IllegalMove
from envs.stereo_go import kernel as K

BLACK, WHITE = 0, 1


@dataclass(frozen=True)
class Score:
    """A scored position. ``black``/``white`` exclude komi; ``margin`` = black - white - komi."""

    rules: str
    komi: float
    black: int
    white: int
    black_territory: int
    white_territory: int
    black_stones: int
    white_stones: int
    black_prisoners: int
    white_prisoners: int
    dead_black: int
    dead_white: int

    @property
    def margin(self) -> float:
        return self.black - self.white - self.komi

    @property
    def winner(self) -> int | None:
        """0 black, 1 white, None on an exact tie."""
        return BLACK if self.margin > 0 else (WHITE if self.margin < 0 else None)

    def result(self) -> str:
        """The SGF-style result, e.g. ``"B+3.5"``, ``"W+0.5"``, ``"0"`` (tie)."""
        if self.winner is None:
            return "0"
        return f"{'BW'[self.winner]}+{abs(self.margin):g}"


def score_position(
    g: np.ndarray,
    C: np.ndarray,
    rules: str,
    komi: float,
    dead: Sequence[int],
    names: Sequence[str],
) -> Score:
    """Score the position ``g`` (kernel layout) with the chains through ``dead`` removed.

    ``dead`` holds point indices (each marks its whole chain dead); the pass index or an
    empty point is refused with :class:`IllegalMove`.
    """
    g = g.copy()
    original = g[K.BOARD].copy()
    dead_count = [0, 0]
    for p in dead:
        if p >= len(original) or original[p] == K.EMPTY:
            what = "pass" if p >= len(original) else names[p]
            raise IllegalMove(what, "a dead-stone mark must name a stone on the board")
        if g[K.BOARD, p] == K.EMPTY:
            continue  # already removed with its chain
        colour = int(g[K.BOARD, p])
        h = int(g[K.HEAD, p])
        s = h
        while True:
            g[K.BOARD, s] = K.EMPTY
            dead_count[colour - 1] += 1
            s = int(g[K.NEXT, s])
            if s == h:
                break
    board = g[K.BOARD]
    tb, tw = K.territory(board, C)
    black_stones = int(np.count_nonzero(board == K.BLACK))
    white_stones = int(np.count_nonzero(board == K.WHITE))
    caps_b, caps_w = int(g[K.META, K.M_CAPS_BLACK]), int(g[K.META, K.M_CAPS_WHITE])
    if rules == "area":
        black, white = black_stones + tb, white_stones + tw
    else:
        black = tb + caps_b + dead_count[1]
        white = tw + caps_w + dead_count[0]
    return Score(
        rules, komi, int(black), int(white), int(tb), int(tw), black_stones, white_stones,
        caps_b, caps_w, dead_count[0], dead_count[1],
    )


def ownership(board: np.ndarray, nbr: np.ndarray, deg: np.ndarray) -> np.ndarray:
    """Who owns each point at the end, Tromp-Taylor (every stone alive): +1 black, -1 white,
    0 neutral; an empty region is owned by the colour that alone borders it.

    The ownership head's training target (``StereoGo.outcome_targets``): run once per game,
    so a plain flood fill is fast enough.
    """
    n = len(board)
    owner = np.zeros(n, dtype=np.float32)
    owner[board == K.BLACK] = 1.0
    owner[board == K.WHITE] = -1.0
    seen = board != K.EMPTY
    for start in np.flatnonzero(~seen):
        if seen[start]:
            continue
        seen[start] = True
        region, border, stack = [int(start)], 0, [int(start)]
        while stack:
            p = stack.pop()
            for q in nbr[p, : deg[p]]:
                v = board[q]
                if v == K.EMPTY:
                    if not seen[q]:
                        seen[q] = True
                        region.append(int(q))
                        stack.append(int(q))
                else:
                    border |= int(v)
        if border == K.BLACK:
            owner[region] = 1.0
        elif border == K.WHITE:
            owner[region] = -1.0
    return owner
