"""TriGolden (頂鑫棋) on the Game protocol, per ``docs/rules/trigolden.md``.

The board is the unbounded plane, so there is no grid index map: pieces are numbered 0, 1, 2,
... in placement order (both sides), and that number is the piece's *slot*, used by the
notation, the action space and the observation rows (row ``1 + slot``)::

    slot:      0        1    2       3    4    ...   6n - 1
    piece:  opening   p2's first turn   p1's   ...

Action space (fixed size, golden set with n = 9: 54 * 4 * 3 * 4 * 2 + 6 = 5190):

* ``((((slot * E + target_edge) * K + kind) * E + edge) * 2 + face)`` for a placement on the
  opponent piece in ``slot`` (E = 4 edges at most, K = 3 kinds, face 1 = flipped);
* ``opening_base + kind * 2 + face`` for the opening piece.

Several spellings can give one position (flipping T or G, P's half-turn symmetry): the mask
offers only the canonical one (unflipped first, then the lowest edge labels) and the notation
parser maps the others to it.

Returns of a finished game: +1 to the player with more points, -1 to the other, 0 on equal
points (the sign of the score difference; the match totals are
:mod:`envs.trigolden.match_score`'s).
A game ended by arbitration (the player to move had pieces and no legal complete turn):
+1 to that player (the claimant), -1 to the opponent, who broke the obligation.

Symmetries: 2 (identity, and the reflection of the whole board; see :meth:`apply_symmetry`).
Rule decisions and figures: ``docs/trigolden.md``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.boards import special_board
from envs.core import ConfigError, Game, GameSpec, IllegalMove, InvalidState
from envs.trigolden import observation as obs_mod
from envs.trigolden.engine import kernel_for, supported
from envs.trigolden.geometry import Candidate
from envs.trigolden.kgeom import KIND, NV, OWNER
from envs.trigolden.match_score import match_result
from envs.trigolden.obligation import ends_the_turn
from envs.trigolden.pieces import GOLDEN, PieceSet, to_float
from envs.trigolden.playout import random_playout as fast_playout
from envs.trigolden.rules import BRACING, DRAFT, STANDARD, TRIGOLDEN, Rules
from envs.trigolden.state import (
    ARBITRATION,
    FINISHED,
    ONGOING,
    OUTCOME_NAMES,
    TriGoldenState,
    initial_state,
    place,
)

PLAYER_NAMES = ("p1", "p2")
MAX_N = 30
#: Points of margin worth a full win to search and value learning (:meth:`TriGolden.utility`):
#: matches are decided by points, and a random n = 9 game scores about 42 points between the
#: two players (``bench/trigolden_random.py``).
MARGIN_SCALE = 30.0
_MOVE_RE = re.compile(r"^([A-Za-z])(')?(?:@(\d+)\.(\d+)/(\d+))?$")


def game_returns(outcome: int, scores: tuple[int, int], claimant: int) -> np.ndarray:
    """Returns of a game that ended this way (see the module docstring); zeros if ongoing."""
    r = np.zeros(2, dtype=np.float32)
    if outcome == FINISHED:
        r[0] = float(np.sign(scores[0] - scores[1]))
        r[1] = -r[0]
    elif outcome == ARBITRATION:
        r[claimant] = 1.0
        r[1 - claimant] = -1.0
    return r


def game_utility(outcome: int, scores: tuple[int, int], claimant: int) -> np.ndarray:
    """The score margin over ``MARGIN_SCALE``, clipped to [-1, 1]; arbitration is +-1.

    A match adds both games' points, so what a game contributes is its margin, not who
    won it. Measured: pure MCTS-32 maximising this beat greedy in 9 of 9 matches, by 36
    points a match on average; maximising the game's result, in 6 of 8 (one drawn), by 10.
    """
    r = game_returns(outcome, scores, claimant)
    if outcome == FINISHED:
        r[0] = min(1.0, max(-1.0, (scores[0] - scores[1]) / MARGIN_SCALE))
        r[1] = -r[0]
    return r


@dataclass(frozen=True)
class TriGoldenConfig:
    """Options of a TriGolden game."""

    variant: str = field(
        default=STANDARD,
        metadata={"choices": (STANDARD, DRAFT),
                  "help": "standard: the full rules (same-piece rule, scoring exception, "
                          "obligation and arbitration); draft: the earlier draft (rules 5-7)"},
    )
    scoring: str = field(
        default=BRACING,
        metadata={"choices": (BRACING, TRIGOLDEN),
                  "help": "who scores a structure: the owner of the bracing piece (頂棋計分) "
                          "or of the TriGolden piece (鑫棋計分)"},
    )
    n: int = field(default=9, metadata={"help": f"pieces of each kind per player (1..{MAX_N})"})

    def __post_init__(self) -> None:
        if not isinstance(self.n, int) or isinstance(self.n, bool) or not 1 <= self.n <= MAX_N:
            raise ValueError(f"n must be an integer in 1..{MAX_N}, got {self.n!r}")
        if self.variant not in (STANDARD, DRAFT):
            raise ValueError(f"variant must be 'standard' or 'draft', got {self.variant!r}")
        if self.scoring not in (BRACING, TRIGOLDEN):
            raise ValueError(f"scoring must be 'bracing' or 'trigolden', got {self.scoring!r}")


class TriGolden(Game[TriGoldenState]):
    """TriGolden: golden pieces laid edge to edge, points for vertices resting on edges."""

    Config = TriGoldenConfig

    def __init__(self, config: TriGoldenConfig | None = None,
                 pieces: PieceSet | None = None, reference: bool = False) -> None:
        """``pieces``: another piece set (built from a table by ``make_piece_set``) to try
        instead of the golden one; the registered game always uses the golden set.
        ``reference``: play with the pure-Python engine (``rules.py``, ``obligation.py``)
        instead of the compiled core (``engine.py``); the two give the same games."""
        super().__init__(config)
        c = self.config
        self.pieces = GOLDEN if pieces is None else pieces
        self.rules = Rules(self.pieces, c.variant, c.n)
        self.kernel = None if reference or not supported(self.pieces) else kernel_for(
            self.pieces.kinds, c.variant, c.n, c.scoring)
        self.max_pieces = self.rules.max_pieces
        self._spec = GameSpec(
            id="trigolden",
            name="TriGolden 頂鑫棋",
            player_names=PLAYER_NAMES,
            num_actions=self.rules.num_actions,
            observation_shape=(self.max_pieces + 1, obs_mod.num_features(self.pieces)),
            max_length=self.max_pieces,
            num_symmetries=2,
            observation_range=(-1.0, 1.0),
        )
        self._initial = (initial_state(self.rules) if self.kernel is None
                         else self.kernel.initial_state())
        self.mirror_actions = self._mirror_permutation()
        # Per kind: None if chiral, else the edge labels' permutation under reflection.
        self._mirror_labels: list[list[int] | None] = []
        for k, kind in enumerate(self.pieces.kinds):
            spell = [self.pieces.canonical[(k, 1, e)] for e in range(kind.num_edges)]
            symmetric = all(f == 0 for f, _ in spell)
            self._mirror_labels.append([e for _, e in spell] if symmetric else None)

    @property
    def spec(self) -> GameSpec:
        return self._spec

    # ------------------------------------------------------------ array level
    def initial_state(self) -> TriGoldenState:
        return self._initial

    def to_play(self, state: TriGoldenState) -> int:
        return state.to_play

    def legal_mask(self, state: TriGoldenState) -> np.ndarray:
        mask = np.zeros(self.rules.num_actions, dtype=bool)
        if state.outcome == ONGOING:
            if state.core is not None:
                mask[state.core.legal] = True
            else:
                mask[list(state.options.legal)] = True
        return mask

    def legal_actions(self, state: TriGoldenState) -> np.ndarray:
        if state.outcome != ONGOING:
            return np.zeros(0, dtype=np.int64)
        if state.core is not None:
            return state.core.legal.copy()
        return np.array(sorted(state.options.legal), dtype=np.int64)

    def check_action(self, state: TriGoldenState, action: object) -> int:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMove(action, "an action must be an integer index")
        action = int(action)
        if state.outcome != ONGOING:
            raise IllegalMove(action, "the game is over")
        if not 0 <= action < self.rules.num_actions:
            raise IllegalMove(action, f"action index out of range 0..{self.rules.num_actions - 1}")
        legal = state.core.legal_set if state.core is not None else state.options.legal
        if action not in legal:
            raise IllegalMove(self.action_to_move(state, action), self._why_illegal(state, action))
        return action

    def apply(self, state: TriGoldenState, action: int) -> TriGoldenState:
        action = self.check_action(state, action)
        if state.core is not None:
            return state.core.kernel.apply(state, action)
        return place(self.rules, self.config.scoring, state, state.options.legal[action])

    def is_terminal(self, state: TriGoldenState) -> bool:
        return state.outcome != ONGOING

    def returns(self, state: TriGoldenState) -> np.ndarray:
        return game_returns(state.outcome, state.scores, state.claimant)

    def utility(self, state: TriGoldenState) -> np.ndarray:
        return game_utility(state.outcome, state.scores, state.claimant)

    def random_playout(self, state: TriGoldenState, rng: np.random.Generator,
                       max_plies: int) -> np.ndarray:
        """The compiled core's playout (``kplay.random_playout``: uniform draws from each
        position's mask, in one compiled loop). The reference engine's standard variant draws
        each placement by rejection (:mod:`~envs.trigolden.playout`: the same distribution
        over games); its draft keeps the generic loop."""
        if state.core is not None:
            if state.outcome != ONGOING:
                return self.utility(state)
            outcome, scores, claimant = state.core.kernel.random_playout(state, rng, max_plies)
            if outcome == ONGOING:
                return np.zeros(2, dtype=np.float32)
            return game_utility(outcome, scores, claimant)
        if self.config.variant != STANDARD:
            return super().random_playout(state, rng, max_plies)
        end = fast_playout(self.rules, self.config.scoring, state, rng, max_plies)
        if end.outcome == ONGOING:
            return np.zeros(2, dtype=np.float32)
        return game_utility(end.outcome, end.scores, end.claimant)

    match_games = 2

    def match_returns(self, finals: Sequence[TriGoldenState | None]) -> np.ndarray:
        """The match of the rules: points of both games added, arbitration deciding at once
        (``envs.trigolden.match_score``); a game cut short by a ply cap leaves the match drawn."""
        first = finals[0]
        second = finals[1] if len(finals) > 1 else None
        r = np.zeros(2, dtype=np.float32)
        if first is None or (first.outcome != ARBITRATION and second is None):
            return r
        result = match_result(first, None if first.outcome == ARBITRATION else second)
        if result.winner is not None:
            r[result.winner] = 1.0
            r[1 - result.winner] = -1.0
        return r

    def observation(self, state: TriGoldenState) -> np.ndarray:
        c = self.config
        return obs_mod.encode(state, self.pieces, c.variant, c.scoring, c.n, self.max_pieces)

    def _mirror_permutation(self) -> np.ndarray:
        """Action -> the action of the mirrored position (the whole board reflected).

        Reflection flips every piece and keeps edge labels, so (t, te, kind, edge, face) becomes
        (t, te, kind, edge, 1 - face), spelled canonically. Canonical actions map to canonical
        actions (a bijection); every other index maps to itself.
        """
        rules, ps = self.rules, self.pieces
        perm = np.arange(rules.num_actions)
        for a in range(rules.opening_base):
            t, te, k, e, f = rules.decode(a)
            if e >= ps.kinds[k].num_edges or ps.canonical[(k, f, e)] != (f, e):
                continue
            f2, e2 = ps.canonical[(k, 1 - f, e)]
            perm[a] = rules.encode(t, te, k, e2, f2)
        for k in range(ps.num_kinds):
            for f in (0, 1):
                if ps.opening_canonical[(k, f)] == (k, f):
                    perm[rules.encode_opening(k, f)] = rules.encode_opening(
                        *ps.opening_canonical[(k, 1 - f)])
        if not np.array_equal(np.sort(perm), np.arange(rules.num_actions)):
            raise ConfigError("the mirror of the action space is not a permutation")
        return perm

    def apply_symmetry(
        self, index: int, observation: np.ndarray, policy: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Symmetry 1 reflects the whole board: chiral pieces change face, mirror-symmetric
        pieces exchange edge labels, y and the x-part of e0's direction change sign; actions
        follow :attr:`mirror_actions` and the target's label exchange."""
        observation, policy = super().apply_symmetry(index, observation, policy)
        if index == 0:
            return observation, policy
        K, E = self.pieces.num_kinds, self.pieces.max_edges
        obs = observation.copy()
        tokens = obs[1:]
        mirrored = np.empty_like(policy)
        mirrored[self.mirror_actions] = policy
        # The target's edge labels move too when the target is mirror-symmetric; its kind is in
        # the observation, so the permutation is read from it.
        placements = mirrored[: self.rules.opening_base].reshape(self.max_pieces, E, -1)
        for row in np.flatnonzero(tokens[:, 0] > 0):
            kind = int(np.argmax(tokens[row, 3:3 + K]))
            sigma = self._mirror_labels[kind]
            if sigma is None:  # chiral: the mirror image is the other face, same labels
                tokens[row, 3 + K] = 1.0 - tokens[row, 3 + K]
                continue
            # Mirror-symmetric: same face, edge labels exchanged by the symmetry.
            free = tokens[row, 8 + K:8 + K + len(sigma)].copy()
            tokens[row, [8 + K + i for i in sigma]] = free
            block = placements[row, : len(sigma)].copy()
            placements[row, sigma] = block
        tokens[:, 5 + K] = -tokens[:, 5 + K]
        tokens[:, 6 + K] = -tokens[:, 6 + K]
        return obs, mirrored

    # ------------------------------------------------------------ notation level
    def _letter(self, kind: int, face: int) -> str:
        return self.pieces.letters[kind] + ("'" if face else "")

    def action_to_move(self, state: TriGoldenState, action: int) -> str:
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalMove(action, "an action must be an integer index")
        if not 0 <= int(action) < self.rules.num_actions:
            raise IllegalMove(action, f"action index out of range 0..{self.rules.num_actions - 1}")
        target, te, kind, edge, face = self.rules.decode(int(action))
        if target < 0:
            return self._letter(kind, face)
        return f"{self._letter(kind, face)}@{target}.{te}/{edge}"

    def parse_move(self, move: str) -> tuple[int, int, int, int, int]:
        """(target, target_edge, kind, edge, face) of a move string; IllegalMove if malformed."""
        if not isinstance(move, str):
            raise IllegalMove(move, "a move must be a string like \"P'@7.2/1\" or \"T\"")
        m = _MOVE_RE.match(move.strip())
        if not m:
            raise IllegalMove(move, "expected <kind>[']@<target>.<target_edge>/<edge>, "
                                    "e.g. \"P'@7.2/1\", or a kind alone for the opening")
        letter, flip, target, te, edge = m.groups()
        if letter not in self.pieces.letters:
            raise IllegalMove(move, f"unknown kind {letter!r}; kinds are "
                                    f"{', '.join(self.pieces.letters)}")
        kind = self.pieces.letters.index(letter)
        face = 1 if flip else 0
        if target is None:
            return -1, -1, kind, -1, face
        return int(target), int(te), kind, int(edge), face

    def move_to_action(self, state: TriGoldenState, move: str) -> int:
        target, te, kind, edge, face = self.parse_move(move)
        return self._to_action(state, move, target, te, kind, edge, face)

    def _to_action(self, state: TriGoldenState, move: object, target: int, te: int, kind: int,
                   edge: int, face: int) -> int:
        if state.outcome != ONGOING:
            raise IllegalMove(move, "the game is over")
        if state.hands[state.to_play][kind] == 0:
            raise IllegalMove(move, f"{PLAYER_NAMES[state.to_play]} has no "
                                    f"{self.pieces.letters[kind]} left in hand")
        placed = _placed_count(state)
        if target < 0:
            if placed:
                raise IllegalMove(move, "only the opening piece is placed without a target")
            k, f = self.pieces.opening_canonical[(kind, face)]
            return self.rules.encode_opening(k, f)
        if not placed:
            raise IllegalMove(move, "the opening piece is written as its kind alone, e.g. 'T'")
        if target >= placed:
            raise IllegalMove(move, f"there is no piece {target} on the board")
        owner, target_kind, edges = _piece_facts(state, target)
        if owner == state.to_play:
            raise IllegalMove(move, f"piece {target} is the mover's own piece; pieces attach "
                                    "to the opponent's pieces (rule 1)")
        if not 0 <= te < edges:
            raise IllegalMove(move, f"piece {target} has edges 0..{edges - 1}")
        if not 0 <= edge < self.pieces.kinds[kind].num_edges:
            raise IllegalMove(move, f"a {self.pieces.letters[kind]} has edges "
                                    f"0..{self.pieces.kinds[kind].num_edges - 1}")
        if self.pieces.edge_length(target_kind, te) != self.pieces.edge_length(kind, edge):
            raise IllegalMove(move, "the two edges differ in length (rule 1)")
        f, e = self.pieces.canonical[(kind, face, edge)]
        action = self.rules.encode(target, te, kind, e, f)
        legal = state.core.legal_set if state.core is not None else state.options.legal
        if action not in legal:
            raise IllegalMove(move, self._why_illegal(state, action))
        return action

    def _why_illegal(self, state: TriGoldenState, action: int) -> str:
        """Words for why an action is not in the mask (the first rule it breaks)."""
        target, te, kind, edge, face = self.rules.decode(action)
        board = state.board
        if action in state.options.refused:
            first = board.pieces[state.first] if state.first >= 0 else None
            how = ("this piece ends the turn and"
                   if ends_the_turn(board, state.hands[state.to_play], first)
                   else "every turn that starts with this piece")
            return (f"obligation: {how} would leave the opponent without a legal complete "
                    f"turn, while other turns keep one")
        if state.hands[state.to_play][kind] == 0:
            return f"no {self.pieces.letters[kind]} left in hand"
        if target < 0:
            if board.pieces:
                return "only the opening piece is placed without a target"
            return "not the canonical spelling of this opening (flipping this kind changes nothing)"
        if not board.pieces:
            return "the first piece of the game is an opening placement"
        if target >= len(board.pieces):
            return f"there is no piece {target} on the board"
        tp = board.pieces[target]
        if tp.owner == state.to_play:
            return f"piece {target} is the mover's own piece (rule 1)"
        if te >= len(tp.verts) or edge >= self.pieces.kinds[kind].num_edges:
            return "no such edge"
        if self.pieces.edge_length(tp.kind, te) != self.pieces.edge_length(kind, edge):
            return "the two edges differ in length (rule 1)"
        if not board.edge_free(target, te):
            return f"edge {te} of piece {target} already holds a piece"
        if self.pieces.canonical[(kind, face, edge)] != (face, edge):
            return "another spelling of the same placement is the one offered (canonical form)"
        cand = self.rules.make_candidate(board, target, te, kind, face, edge)
        broken = self.rules.violation(board, cand)
        if broken:
            return broken
        if state.first >= 0:
            if self.config.variant == STANDARD:
                return ("the second piece must go on another edge of the same opponent piece, "
                        "unless one of the two is part of a scoring TriGolden structure")
            return ("the second piece must go on the same opponent piece (draft rules 5-7)")
        return "no legal second piece could complete the turn after this one"

    # ------------------------------------------------------------ JSON forms
    def action_to_json(self, state: TriGoldenState, action: int) -> dict[str, Any]:
        """The API form of an action: ``{"kind", "flipped", "target", "target_edge", "edge"}``."""
        self.action_to_move(state, action)  # validates the index
        target, te, kind, edge, face = self.rules.decode(int(action))
        out: dict[str, Any] = {"kind": self.pieces.letters[kind], "flipped": bool(face)}
        if target >= 0:
            out.update(target=target, target_edge=te, edge=edge)
        return out

    def json_to_action(self, state: TriGoldenState, data: Any) -> int:
        """Parse the API form of a move (see :meth:`action_to_json`); IllegalMove if bad."""
        if not isinstance(data, dict) or "kind" not in data:
            raise IllegalMove(data, "a move is an object with at least 'kind'")
        letter = data["kind"]
        if letter not in self.pieces.letters:
            raise IllegalMove(data, f"unknown kind {letter!r}")
        flipped = data.get("flipped", False)
        if not isinstance(flipped, bool):
            raise IllegalMove(data, "'flipped' must be true or false")
        fields = ("target", "target_edge", "edge")
        present = [f in data for f in fields]
        if any(present) and not all(present):
            raise IllegalMove(data, "give all of target, target_edge and edge, or none (opening)")
        kind, face = self.pieces.letters.index(letter), int(flipped)
        if not any(present):
            return self._to_action(state, data, -1, -1, kind, -1, face)
        vals = [data[f] for f in fields]
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in vals):
            raise IllegalMove(data, "target, target_edge and edge must be non-negative integers")
        return self._to_action(state, data, vals[0], vals[1], kind, vals[2], face)

    def to_json(self, state: TriGoldenState) -> dict[str, Any]:
        moves = [self.action_to_move(state, a) for a in state.moves]
        terminal = state.outcome != ONGOING
        return {
            "game": "trigolden",
            "variant": self.config.variant,
            "scoring": self.config.scoring,
            "n": self.config.n,
            "moves": moves,
            "opening_angle": state.opening_angle,
            "to_play": None if terminal else PLAYER_NAMES[state.to_play],
            "second_piece": state.first >= 0,
            "outcome": OUTCOME_NAMES[state.outcome],
            "claimant": PLAYER_NAMES[state.claimant] if state.outcome == ARBITRATION else None,
            "score": {PLAYER_NAMES[p]: state.scores[p] for p in (0, 1)},
            "hands": {PLAYER_NAMES[p]: dict(zip(self.pieces.letters, state.hands[p]))
                      for p in (0, 1)},
            "passes": [{"pieces": k, "player": PLAYER_NAMES[p]} for k, p in state.passes],
            "structures": [
                {"trigolden": s.trigolden, "edge": s.edge, "bracing": s.bracing,
                 "points": s.points, "point": list(to_float(s.point))}
                for s in state.structures
            ],
        }

    def from_json(self, data: Any) -> TriGoldenState:
        """Rebuild a state by replaying its moves (so the rules check every one)."""
        if not isinstance(data, dict):
            raise InvalidState("a TriGolden state is a JSON object")
        if "moves" not in data or not isinstance(data["moves"], list):
            raise InvalidState("a TriGolden state needs 'moves', a list of move strings")
        for key in ("variant", "scoring", "n"):
            if key in data and data[key] != getattr(self.config, key):
                raise InvalidState(f"state has {key}={data[key]!r} but this game has "
                                   f"{key}={getattr(self.config, key)!r}")
        angle = data.get("opening_angle", 0.0)
        if isinstance(angle, bool) or not isinstance(angle, (int, float)) or not math.isfinite(
            angle
        ):
            raise InvalidState("opening_angle must be a finite number (degrees)")
        state = self.initial_state()
        for i, move in enumerate(data["moves"]):
            try:
                state = self.play(state, move)
            except IllegalMove as exc:
                raise InvalidState(f"move {i + 1} ({move!r}) is not legal: {exc.reason}") from exc
        if angle:
            state = self.with_opening_angle(state, float(angle))
        return state

    def with_opening_angle(self, state: TriGoldenState, degrees: float) -> TriGoldenState:
        """The same state with the display angle of the opening piece set (rules unchanged)."""
        return state.replace(opening_angle=float(degrees) % 360.0)

    # ------------------------------------------------------------ geometry for clients
    def piece_polygons(self, state: TriGoldenState) -> list[dict[str, Any]]:
        """Every piece on the board with its polygon (float x, y, counter-clockwise)."""
        return [
            {"index": p.index, "owner": PLAYER_NAMES[p.owner], "kind": self.pieces.letters[p.kind],
             "flipped": bool(p.face), "target": p.target if p.target >= 0 else None,
             "target_edge": p.target_edge if p.target >= 0 else None,
             "edge": p.edge if p.target >= 0 else None,
             "edge_labels": list(p.labels),
             "polygon": [list(to_float(v)) for v in p.verts]}
            for p in state.board.pieces
        ]

    def placement_previews(self, state: TriGoldenState, kind: str, flipped: bool,
                           target: int | None) -> list[dict[str, Any]]:
        """Every legal placement of a kind and face on a target (None: the opening), with its
        polygon: the translucent previews of the user interface."""
        if kind not in self.pieces.letters:
            raise IllegalMove(kind, f"unknown kind {kind!r}")
        k, face = self.pieces.letters.index(kind), int(bool(flipped))
        if state.outcome != ONGOING:
            return []
        legal = state.options.legal
        out = []
        seen = set()
        if target is None:
            kk, f = self.pieces.opening_canonical[(k, face)]
            action = self.rules.encode_opening(kk, f)
            spellings = [(action, self._letter(k, face))] if action in legal else []
        else:
            board = state.board
            if not isinstance(target, int) or not 0 <= target < len(board.pieces):
                raise IllegalMove(target, f"there is no piece {target!r} on the board")
            tp = board.pieces[target]
            spellings = []
            for te in range(len(tp.verts)):
                for e in range(self.pieces.kinds[k].num_edges):
                    if self.pieces.edge_length(tp.kind, te) != self.pieces.edge_length(k, e):
                        continue
                    f, ce = self.pieces.canonical[(k, face, e)]
                    action = self.rules.encode(target, te, k, ce, f)
                    if action in legal:
                        spellings.append(
                            (action, f"{self._letter(k, face)}@{target}.{te}/{e}"))
        for action, move in spellings:
            if action in seen:
                continue
            seen.add(action)
            cand: Candidate = legal[action]
            out.append({"action": action, "move": move,
                        "polygon": [list(to_float(v)) for v in cand.verts]})
        return out

    # ------------------------------------------------------------ display
    def board_view(self, state: TriGoldenState) -> dict[str, Any]:
        return special_board("trigolden")

    def render(self, state: TriGoldenState) -> str:
        lines = [f"TriGolden ({self.config.variant}, {self.config.scoring} scoring, "
                 f"n={self.config.n})"]
        for p in state.board.pieces:
            where = "centre" if p.target < 0 else f"on {p.target}.{p.target_edge}/{p.edge}"
            xs = [to_float(v) for v in p.verts]
            cx = sum(x for x, _ in xs) / len(xs)
            cy = sum(y for _, y in xs) / len(xs)
            lines.append(f"  #{p.index:<2} {PLAYER_NAMES[p.owner]} "
                         f"{self._letter(p.kind, p.face):<2} {where:<12} "
                         f"centroid ({cx:+.3f}, {cy:+.3f})")
        for s in state.structures:
            lines.append(f"  structure: vertex of #{s.bracing} on edge {s.edge} of "
                         f"#{s.trigolden}: {s.points} points")
        letters = self.pieces.letters
        hands = [" ".join(f"{c}{k}" for c, k in zip(letters, state.hands[p])) for p in (0, 1)]
        lines.append(f"p1 hand {hands[0]}  p2 hand {hands[1]}")
        lines.append(f"score p1 {state.scores[0]} p2 {state.scores[1]}")
        if state.outcome == ONGOING:
            which = "second piece" if state.first >= 0 else "turn"
            lines.append(f"{PLAYER_NAMES[state.to_play]} to play ({which})")
        elif state.outcome == ARBITRATION:
            lines.append(f"game over: {PLAYER_NAMES[state.claimant]} has no legal turn and "
                         f"wins by arbitration")
        else:
            lines.append("game over")
        return "\n".join(lines)


def _placed_count(state: TriGoldenState) -> int:
    """Pieces on the board, read from the compiled core where the state has one (building
    the Python board for it cost a request's replay ~0.5 ms a move)."""
    return state.core.n if state.core is not None else len(state.board.pieces)


def _piece_facts(state: TriGoldenState, index: int) -> tuple[int, int, int]:
    """``(owner, kind, edges)`` of the piece in slot ``index``, from the core where the state
    has one."""
    if state.core is not None:
        row = state.core.bi[index]
        return int(row[OWNER]), int(row[KIND]), int(row[NV])
    piece = state.board.pieces[index]
    return piece.owner, piece.kind, len(piece.verts)
