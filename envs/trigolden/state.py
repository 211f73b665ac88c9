"""The TriGolden state (immutable) and the reference step function that builds the next one.

A state carries the moves, hands, turn, structures, scores and outcome, and either

* the Python engine's board tables and legal options (``board``, ``options``), built by the
  reference step below (:func:`place`, :func:`next_turn`), or
* the compiled core's arrays (``core``, see ``engine.py``), from which ``board`` and
  ``options`` are built on first use (what search and self-play never need).

Both are pure functions of the moves, so a state pickles the same before and after it is used:
the lazily built objects are left out of pickles.
"""

from __future__ import annotations

from typing import Any

from envs.trigolden.geometry import Board, Candidate
from envs.trigolden.obligation import turn_options
from envs.trigolden.rules import BRACING, STANDARD, Rules, Structure, TurnOptions

ONGOING, FINISHED, ARBITRATION = 0, 1, 2
OUTCOME_NAMES = ("ongoing", "finished", "arbitration")


class TriGoldenState:
    """A position: the moves so far and everything derived from them.

    ``first`` is the index of the first piece of the current turn while the player is placing
    its second piece (-1 otherwise); ``first_contact`` says whether that piece lets the second
    go on another opponent piece (standard: it is part of a scoring structure; draft: it forms
    any structure); ``free_pairs`` is the draft's rule-5 relief for this turn. ``passes``
    lists (pieces on the board, player) for every pass of the draft variant. On an
    ``ARBITRATION`` outcome, ``claimant`` (the player to move, who had no legal complete turn)
    wins. ``core`` holds the compiled core's arrays when the state was built by it.
    """

    __slots__ = ("moves", "_board", "hands", "to_play", "first", "first_contact", "free_pairs",
                 "structures", "scores", "outcome", "claimant", "passes", "_options",
                 "opening_angle", "core")
    _FIELDS = ("moves", "hands", "to_play", "first", "first_contact", "free_pairs",
               "structures", "scores", "outcome", "claimant", "passes", "opening_angle")

    def __init__(self, moves: tuple[int, ...], board: Board | None,
                 hands: tuple[tuple[int, ...], tuple[int, ...]], to_play: int, first: int,
                 first_contact: bool, free_pairs: bool, structures: tuple[Structure, ...],
                 scores: tuple[int, int], outcome: int, claimant: int,
                 passes: tuple[tuple[int, int], ...], options: TurnOptions | None,
                 opening_angle: float = 0.0, core: Any = None) -> None:
        values = (moves, board, hands, to_play, first, first_contact, free_pairs, structures,
                  scores, outcome, claimant, passes, options, opening_angle, core)
        for name, value in zip(self.__slots__, values):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("TriGoldenState is immutable")

    @property
    def board(self) -> Board:
        """The Python engine's board (built from the core on first use)."""
        if self._board is None:
            object.__setattr__(self, "_board", self.core.python_board())
        return self._board

    @property
    def options(self) -> TurnOptions:
        """The legal options of the player to move (built from the core on first use)."""
        if self._options is None:
            object.__setattr__(self, "_options", self.core.python_options(self))
        return self._options

    def replace(self, **changes: Any) -> TriGoldenState:
        """A copy with some fields changed (as ``dataclasses.replace``)."""
        values = {name: getattr(self, name) for name in self.__slots__}
        for name, value in changes.items():
            values["_" + name if "_" + name in values else name] = value
        return TriGoldenState(*(values[name] for name in self.__slots__))

    def __getstate__(self) -> dict:
        data = {name: getattr(self, name) for name in self.__slots__}
        if self.core is not None:
            # The core's arrays are a function of the moves (rebuilt on loading); the Python
            # board and options are built on first use. Neither is part of the pickle.
            data["_board"] = data["_options"] = None
            # The kernel pickles as its configuration key (``Kernel.__reduce__``).
            data["core"] = ("kernel", self.core.kernel)
        return data

    def __setstate__(self, data: dict) -> None:
        for name, value in data.items():
            object.__setattr__(self, name, value)
        if isinstance(self.core, tuple):
            kernel = self.core[1]
            object.__setattr__(self, "core", kernel.replay(self.moves).core)

    def __copy__(self) -> TriGoldenState:
        return self

    def __deepcopy__(self, memo: dict) -> TriGoldenState:
        return self

    def _key(self) -> tuple:
        return (self.moves, self.hands, self.to_play, self.first, self.outcome, self.scores,
                self.passes, self.opening_angle)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TriGoldenState) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"TriGoldenState(moves={len(self.moves)}, to_play={self.to_play}, "
                f"first={self.first}, scores={self.scores}, outcome={self.outcome})")

    @property
    def num_pieces(self) -> int:
        if self.core is not None:
            return len(self.moves)
        return len(self.board.pieces)


def initial_state(rules: Rules) -> TriGoldenState:
    hand = (rules.n,) * rules.K
    board = Board()
    opts = turn_options(rules, board, 0, (hand, hand), None, False, False)
    return TriGoldenState((), board, (hand, hand), 0, -1, False, False, (), (0, 0), ONGOING, -1,
                          (), opts)


def score_of(structures: tuple[Structure, ...], board: Board, scoring: str) -> tuple[int, int]:
    """Each player's points for a list of structures on a board."""
    scores = [0, 0]
    for s in structures:
        owner = board.pieces[s.bracing if scoring == BRACING else s.trigolden].owner
        scores[owner] += s.points
    return scores[0], scores[1]


def place(rules: Rules, scoring: str, state: TriGoldenState, cand: Candidate) -> TriGoldenState:
    """The state after the player to move places a legal candidate."""
    mover = state.to_play
    board = state.board
    index = len(board.pieces)
    new = Rules.new_structures(board, cand, index)
    placed = cand.as_placed(index, mover)
    board2 = board.add(placed, rules.rechecker(cand))
    hand = list(state.hands[mover])
    in_hand_before = sum(hand)
    hand[cand.kind] -= 1
    hands = list(state.hands)
    hands[mover] = tuple(hand)
    hands_t = (hands[0], hands[1])
    structures = state.structures + tuple(new)
    gained = score_of(tuple(new), board2, scoring)
    scores = (state.scores[0] + gained[0], state.scores[1] + gained[1])
    moves = state.moves + (cand.action,)
    if cand.target >= 0 and state.first < 0 and in_hand_before >= 2:
        contact = cand.sc if rules.variant == STANDARD else cand.touch
        opts = turn_options(rules, board2, mover, hands_t, placed, contact,
                            state.options.free_pairs)
        if opts.legal:
            return TriGoldenState(moves, board2, hands_t, mover, index, contact,
                                  state.options.free_pairs, structures, scores, ONGOING, -1,
                                  state.passes, opts, state.opening_angle)
    return next_turn(rules, moves, board2, hands_t, mover, structures, scores, state.passes,
                     state.opening_angle)


def next_turn(
    rules: Rules, moves: tuple[int, ...], board: Board, hands: tuple[tuple[int, ...], ...],
    last: int, structures: tuple[Structure, ...], scores: tuple[int, int],
    passes: tuple[tuple[int, int], ...], opening_angle: float,
) -> TriGoldenState:
    """Start the next turn: the opponent if it has pieces, else the same player again.

    ``standard``: a player with pieces and no legal complete turn ends the game, and wins it by
    arbitration. ``draft``: such a player passes; when nobody can place, the game ends.
    """
    empty = TurnOptions({}, False)
    hands_t = (hands[0], hands[1])
    for player in (1 - last, last):
        if sum(hands[player]) == 0:
            continue
        opts = turn_options(rules, board, player, hands_t, None, False, False)
        if opts.legal:
            return TriGoldenState(moves, board, hands_t, player, -1, False, opts.free_pairs,
                                  structures, scores, ONGOING, -1, passes, opts, opening_angle)
        if rules.variant == STANDARD:
            return TriGoldenState(moves, board, hands_t, player, -1, False, False, structures,
                                  scores, ARBITRATION, player, passes, empty, opening_angle)
        passes = passes + ((len(board.pieces), player),)
    return TriGoldenState(moves, board, hands_t, last, -1, False, False, structures, scores,
                          FINISHED, -1, passes, empty, opening_angle)
