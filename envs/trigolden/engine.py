"""The bridge between the TriGolden Game and its compiled core (``kgeom`` exact geometry,
``kboard`` placements, ``kpairs`` two-piece turns, ``kobl`` obligation, ``kturn`` mask,
``kplay`` step and playout): the tables the core reads, and states built by it.

The core is exact and rule for rule the same as ``rules.py`` + ``obligation.py`` +
``state.place``; those stay as the reference implementation (readable, with the words for
refusals; ``TriGolden(..., reference=True)`` plays with them), and
``tests/test_trigolden_kernel.py`` compares the two on many random positions.

A state built by the core carries a :class:`Core`: the board arrays, both players' placements
legal under rules 1-4 (kept up to date move by move, ``kplay.advance_list``) and the mask.
The Python board and options of such a state are built from it on first use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from envs.trigolden.geometry import Board, Placed
from envs.trigolden.kboard import new_board
from envs.trigolden.kgeom import (
    DEPTH,
    DIR,
    EDGE,
    FACE,
    FROW,
    KIND,
    LAB,
    MAX_E,
    NV,
    OCC,
    OWNER,
    ROW,
    TARGET,
    TEDGE,
    V,
    finish_row,
)
from envs.trigolden.kplay import (
    I_CLAIMANT,
    I_CONTACT,
    I_FIRST,
    I_FREE,
    I_NPASS,
    I_OUTCOME,
    I_TO_PLAY,
    child,
    options,
    random_playout,
)
from envs.trigolden.kturn import options_from_scratch
from envs.trigolden.pieces import GOLDEN, PieceKind, PieceSet, Shape, make_piece_set
from envs.trigolden.rules import BRACING, STANDARD, Rules, Structure, TurnOptions
from envs.trigolden.state import ONGOING, TriGoldenState


def supported(pieces: PieceSet) -> bool:
    """Whether the compiled rows can hold this piece set."""
    return pieces.max_edges <= MAX_E


def _shape_row(shape: Shape, kind: int, face: int, edge: int) -> tuple[np.ndarray, np.ndarray]:
    r = np.zeros(ROW, dtype=np.int64)
    f = np.zeros(FROW)
    m = len(shape.offsets)
    r[NV] = m
    for k, p in enumerate(shape.offsets):
        r[V + 4 * k:V + 4 * k + 4] = p
    r[DIR:DIR + m] = shape.dirs
    r[LAB:LAB + m] = shape.labels
    r[KIND], r[FACE], r[EDGE] = kind, face, edge
    r[TARGET] = r[TEDGE] = -1
    finish_row(r, f)
    return r, f


def make_tables(rules: Rules) -> tuple[Any, ...]:
    """The kernel's ``tab`` tuple for a rules object (see ``kboard``)."""
    ps = rules.pieces
    K = ps.num_kinds
    shape_i = np.zeros((K * 2 * MAX_E * 10, ROW), dtype=np.int64)
    shape_f = np.zeros((K * 2 * MAX_E * 10, FROW))
    open_i = np.zeros((K * 2, ROW), dtype=np.int64)
    open_f = np.zeros((K * 2, FROW))
    open_ok = np.zeros(K * 2, dtype=np.bool_)
    for k, kind in enumerate(ps.kinds):
        for face in (0, 1):
            for e in range(kind.num_edges):
                for d in range(10):
                    sid = ((k * 2 + face) * MAX_E + e) * 10 + d
                    shape_i[sid], shape_f[sid] = _shape_row(ps.shape(k, face, e, d), k, face, e)
            open_i[k * 2 + face], open_f[k * 2 + face] = _shape_row(
                ps.opening_shape(k, face), k, face, -1)
            open_ok[k * 2 + face] = ps.opening_canonical[(k, face)] == (k, face)
    lengths = sorted({ln for kind in ps.kinds for _, ln in kind.edges})
    len_id = np.zeros((K, MAX_E), dtype=np.int64)
    for k, kind in enumerate(ps.kinds):
        for e, (_, ln) in enumerate(kind.edges):
            len_id[k, e] = lengths.index(ln)
    width = max(len(rules.by_length.get(ln, ())) for ln in lengths)
    spell = np.zeros((len(lengths), max(width, 1), 3), dtype=np.int64)
    n_spell = np.zeros(len(lengths), dtype=np.int64)
    for li, ln in enumerate(lengths):
        for s, (k, face, e) in enumerate(rules.by_length.get(ln, ())):
            spell[li, s] = (k, face, e)
        n_spell[li] = len(rules.by_length.get(ln, ()))
    dims = np.array([K, rules.E, rules.max_pieces, rules.opening_base], dtype=np.int64)
    return (shape_i, shape_f, open_i, open_f, open_ok, len_id, spell, n_spell, dims)


def board_arrays(board: Board, max_pieces: int) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's arrays of a Python board."""
    bi, bf = new_board(max_pieces)
    for p in board.pieces:
        r = bi[p.index]
        m = len(p.verts)
        r[NV] = m
        for k, v in enumerate(p.verts):
            r[V + 4 * k:V + 4 * k + 4] = v
        r[DIR:DIR + m] = p.dirs
        r[LAB:LAB + m] = p.labels
        r[OWNER], r[KIND], r[FACE] = p.owner, p.kind, p.face
        r[TARGET], r[TEDGE], r[EDGE], r[DEPTH] = p.target, p.target_edge, p.edge, p.depth
        r[OCC] = board.occupied[p.index]
        finish_row(r, bf[p.index])
    return bi, bf


class Core:
    """The compiled core's view of one state (arrays never changed after construction)."""

    __slots__ = ("kernel", "bi", "bf", "li", "lf", "nl", "split", "legal", "sc", "touch",
                 "refused", "flags", "n", "_legal_set")

    def __init__(self, kernel: Kernel, bi: np.ndarray, bf: np.ndarray, n: int, li: np.ndarray,
                 lf: np.ndarray, nl: int, split: int, opts: tuple) -> None:
        self.kernel = kernel
        self.bi, self.bf, self.n = bi, bf, n
        # Both players' placements legal under rules 1-4: player 0's in rows [0, split),
        # player 1's in [split, nl), each of kinds still in hand (``kplay.advance_list``).
        self.li, self.lf, self.nl, self.split = li, lf, nl, split
        self.legal, self.sc, self.touch, self.refused, self.flags = opts[:5]
        self._legal_set: frozenset[int] | None = None

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__ if name != "_legal_set"}

    def __setstate__(self, data: dict) -> None:
        for name, value in data.items():
            setattr(self, name, value)
        self._legal_set = None

    @property
    def legal_set(self) -> frozenset[int]:
        if self._legal_set is None:
            self._legal_set = frozenset(self.legal.tolist())
        return self._legal_set

    def python_board(self) -> Board:
        """The Python engine's board of the same pieces."""
        board = Board()
        for i in range(self.n):
            r = self.bi[i].tolist()
            m = r[NV]
            verts = tuple(tuple(r[V + 4 * k:V + 4 * k + 4]) for k in range(m))
            board = board.add(Placed(i, r[OWNER], r[KIND], r[FACE], r[TARGET], r[TEDGE],
                                     r[EDGE], verts, tuple(r[LAB:LAB + m]),
                                     tuple(r[DIR:DIR + m]), r[DEPTH]))
        return board

    def python_options(self, state: TriGoldenState) -> TurnOptions:
        """The Python engine's options object of the same mask (candidates with geometry)."""
        if state.outcome != ONGOING:
            return TurnOptions({}, False)
        rules = self.kernel.rules
        board = state.board
        openings = rules.opening_candidates(state.hands[state.to_play]) if not self.n else {}
        legal = {}
        for a, sc, touch in zip(self.legal.tolist(), self.sc.tolist(), self.touch.tolist()):
            t, te, k, e, f = rules.decode(a)
            if t < 0:
                legal[a] = openings[a]
                continue
            cand = rules.make_candidate(board, t, te, k, f, e)
            cand.legal, cand.sc, cand.touch = True, sc, touch
            legal[a] = cand
        complete, free_pairs, unavoidable = (bool(x) for x in self.flags)
        return TurnOptions(legal, complete, free_pairs, frozenset(self.refused.tolist()),
                           unavoidable)


def _board_copy(core: Core) -> tuple[np.ndarray, np.ndarray]:
    """The board arrays of ``core`` with room for a whole game (a playout's), the unused
    rows zero. A state's own arrays hold its pieces and one free slot (``kplay.child``: so a
    tree's states stay small; copying arrays of ``max_pieces`` slots for every child measured
    4% of a TriGolden master's move)."""
    n = core.n
    bi, bf = new_board(core.kernel.rules.max_pieces)
    bi[:n] = core.bi[:n]
    bf[:n] = core.bf[:n]
    return bi, bf


class Kernel:
    """The compiled core for one rules object and scoring mode."""

    def __init__(self, rules: Rules, scoring: str = BRACING) -> None:
        if not supported(rules.pieces):
            raise ValueError(f"the compiled core holds pieces of at most {MAX_E} edges")
        self.rules = rules
        #: What :func:`kernel_for` needs to build an equal kernel (pickles carry this).
        self.key = (rules.pieces.kinds, rules.variant, rules.n, scoring)
        self.tab = make_tables(rules)
        self.standard = rules.variant == STANDARD
        self.bracing = scoring == BRACING
        self._no_list = (np.zeros((0, ROW), dtype=np.int64), np.zeros((0, FROW)))

    def __reduce__(self) -> tuple:
        # A kernel travels as its configuration (a pickled state names its kernel): the
        # receiving process builds or reuses its own, tables and compiled code included.
        return (kernel_for, self.key)

    def replay(self, moves: tuple[int, ...]) -> TriGoldenState:
        """The state after ``moves`` (trusted: not checked), played from the start."""
        state = self.initial_state()
        for action in moves:
            state = self.apply(state, action)
        return state

    def initial_state(self) -> TriGoldenState:
        bi, bf = new_board(self.rules.max_pieces)
        hand = (self.rules.n,) * self.rules.K
        hands = np.array((hand, hand), dtype=np.int64)
        li, lf = self._no_list
        opts = options(bi, bf, 0, li, lf, 0, 0, 0, hands, -1, False, False, self.standard,
                       self.tab)
        core = Core(self, bi, bf, 0, li, lf, 0, 0, opts)
        return TriGoldenState((), None, (hand, hand), 0, -1, False, False, (), (0, 0), ONGOING,
                              -1, (), None, 0.0, core)

    def apply(self, state: TriGoldenState, action: int) -> TriGoldenState:
        """The state after a legal action (``state.place`` and ``state.next_turn``)."""
        c = state.core
        hands = np.array(state.hands, dtype=np.int64)
        bi, bf, (structs, gained, info, passes, opts, li, lf, nl, split) = child(
            c.bi, c.bf, c.n, c.li, c.lf, c.nl, c.split, action, state.to_play, hands,
            state.first, state.free_pairs, self.standard, self.bracing, self.tab)
        structures = state.structures
        if len(structs):
            structures = structures + tuple(
                Structure(r[0], r[1], tuple(r[2:6]), r[6], r[7]) for r in structs.tolist())
        n = c.n + 1
        past = state.passes
        if info[I_NPASS]:
            past = past + tuple((n, int(p)) for p in passes[:info[I_NPASS]].tolist())
        h = hands.tolist()
        scores = (state.scores[0] + int(gained[0]), state.scores[1] + int(gained[1]))
        core = Core(self, bi, bf, n, li, lf, nl, split, opts)
        return TriGoldenState(
            state.moves + (action,), None, (tuple(h[0]), tuple(h[1])), int(info[I_TO_PLAY]),
            int(info[I_FIRST]), bool(info[I_CONTACT]), bool(info[I_FREE]), structures, scores,
            int(info[I_OUTCOME]), int(info[I_CLAIMANT]), past, None, state.opening_angle, core)

    def random_playout(self, state: TriGoldenState, rng: np.random.Generator,
                       max_plies: int) -> tuple[int, tuple[int, int], int]:
        """(outcome, scores, claimant) after uniformly random legal actions from a state
        (ONGOING when ``max_plies`` came first), drawn from ``rng`` as the reference engine
        draws them."""
        c = state.core
        scores = np.array(state.scores, dtype=np.int64)
        outcome, claimant, _ = random_playout(
            *_board_copy(c), c.n, c.li, c.lf, c.nl, c.split,
            np.array(state.hands, dtype=np.int64), state.to_play, state.first,
            state.free_pairs, c.legal, scores, self.standard, self.bracing, rng, max_plies,
            self.tab)
        return int(outcome), (int(scores[0]), int(scores[1])), int(claimant)

    def turn_options(self, board: Board, mover: int, hands: tuple[tuple[int, ...], ...],
                     first: int, first_contact: bool, free_pairs: bool) -> tuple:
        """``kturn.turn_options`` on a Python board, every placement built from scratch (for
        tests and benchmarks)."""
        bi, bf = board_arrays(board, self.rules.max_pieces)
        return options_from_scratch(bi, bf, len(board.pieces), mover,
                            np.array(hands, dtype=np.int64), first, first_contact,
                            free_pairs, self.standard, self.tab)


_KERNELS: dict[tuple, Kernel] = {}


def kernel_for(kinds: tuple[PieceKind, ...], variant: str, n: int, scoring: str) -> Kernel:
    """The kernel of a configuration, built once per process (states pickle this key, not
    the kernel's tables)."""
    key = (kinds, variant, n, scoring)
    kernel = _KERNELS.get(key)
    if kernel is None:
        pieces = GOLDEN if kinds == GOLDEN.kinds else make_piece_set(kinds)
        kernel = _KERNELS[key] = Kernel(Rules(pieces, variant, n), scoring)
    return kernel
