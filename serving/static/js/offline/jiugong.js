// Jiugong Shuang Cheng in the browser: a port of envs/jiugong.py (docs/rules/jiugong.md) for the
// offline mode. Same index map, action space (the 24 directed steps in (from, to) order),
// observation planes and JSON as the Python engine; tests/test_web_offline.py checks that the
// two agree on legal moves, results, who moves and observations.
//
//   rank 3   6 7 8        a3 b3 c3     North starts here
//   rank 2   3 4 5        a2 b2 c2     the shared piece starts on c2
//   rank 1   0 1 2        a1 b1 c1     South starts here, and moves first
//
// Cells: 0 empty, 1 South, 2 North, 3 the shared piece. States are plain frozen objects;
// apply() returns a new one.

import { squareGrid } from './grid.js';

const [EMPTY, SOUTH_PIECE, NORTH_PIECE, SHARED] = [0, 1, 2, 3];
const SYMBOLS = '.SNX';
const MAX_PLIES = 200;
const REPETITIONS_FOR_DRAW = 3;
// outcomes: the winner's index, or
const [ONGOING, DRAW] = [-1, 2];

const { names: POINT_NAMES, steps: STEPS, stepIndex: STEP_INDEX } = squareGrid(3);

function positionKey(board, toPlay, locked) {
  let k = 0;
  for (const v of board) k = k * 4 + v;
  return (k * 2 + toPlay) * 2 + (locked ? 1 : 0);
}

function legalSteps(board, toPlay, locked) {
  const own = toPlay === 0 ? SOUTH_PIECE : NORTH_PIECE;
  const out = [];
  STEPS.forEach(([f, t], i) => {
    const piece = board[f];
    if (board[t] === EMPTY && (piece === own || (piece === SHARED && !locked))) out.push(i);
  });
  return out;
}

function makeState(board, toPlay, locked, ply, history) {
  const key = positionKey(board, toPlay, locked);
  const hist = [...history, key];
  let legal = legalSteps(board, toPlay, locked);
  let outcome = ONGOING;
  if (!legal.length) outcome = 1 - toPlay; // the side to move with no step loses
  else if (ply >= MAX_PLIES || hist.filter((k) => k === key).length >= REPETITIONS_FOR_DRAW) {
    outcome = DRAW;
  }
  if (outcome !== ONGOING) legal = [];
  return Object.freeze({ board, toPlay, locked, ply, history: hist, outcome, legal, key });
}

export const jiugong = {
  id: 'jiugong',
  playerNames: ['south', 'north'],
  numActions: STEPS.length,
  observationShape: [4, 3, 3],

  initialState: () => makeState([1, 1, 1, 0, 0, 3, 2, 2, 2], 0, true, 0, []),
  toPlay: (s) => s.toPlay,
  isTerminal: (s) => s.outcome !== ONGOING,
  legalActions: (s) => s.legal,

  /** Per-player results: +1 win, -1 loss, 0 draw or not over. */
  returns(s) {
    if (s.outcome === ONGOING || s.outcome === DRAW) return [0, 0];
    return s.outcome === 0 ? [1, -1] : [-1, 1];
  },

  apply(s, action) {
    if (!s.legal.includes(action)) throw new Error(`illegal action ${action}`);
    const [f, t] = STEPS[action];
    const board = [...s.board];
    const movedShared = board[f] === SHARED;
    board[t] = board[f];
    board[f] = EMPTY;
    // the history holds the current position already: makeState appends the new one
    return makeState(board, 1 - s.toPlay, movedShared, s.ply + 1, s.history);
  },

  /** Planes: own pieces, opponent pieces, the shared piece, the lock (ones when locked). */
  observation(s) {
    const obs = new Float32Array(36);
    const own = s.toPlay === 0 ? SOUTH_PIECE : NORTH_PIECE;
    const opp = own === SOUTH_PIECE ? NORTH_PIECE : SOUTH_PIECE;
    for (let p = 0; p < 9; p += 1) {
      const v = s.board[p];
      obs[p] = v === own ? 1 : 0;
      obs[9 + p] = v === opp ? 1 : 0;
      obs[18 + p] = v === SHARED ? 1 : 0;
      obs[27 + p] = s.locked ? 1 : 0;
    }
    return obs;
  },

  /** What the network sees (the observation and the legal moves follow from it). */
  evalKey: (s) => s.key,

  actionToMove(action) {
    const [f, t] = STEPS[action];
    return `${POINT_NAMES[f]}-${POINT_NAMES[t]}`;
  },

  moveToAction(s, move) {
    const parts = String(move).trim().split('-');
    const f = POINT_NAMES.indexOf(parts[0]);
    const t = POINT_NAMES.indexOf(parts[1]);
    const action = parts.length === 2 ? STEP_INDEX.get(`${f},${t}`) : undefined;
    if (action === undefined || !s.legal.includes(action)) {
      throw new Error(`illegal move ${JSON.stringify(move)} in this position`);
    }
    return action;
  },

  /** The JSON of envs/jiugong.py's to_json (what the board layouts draw). */
  toJson(s) {
    return {
      board: s.board.map((v) => SYMBOLS[v]).join(''),
      to_play: this.playerNames[s.toPlay],
      shared_locked: s.locked,
      ply: s.ply,
      history: [...s.history],
    };
  },

  /** The board kind and status facts of envs/jiugong.py's board_view and status_facts. */
  boardView: () => ({ kind: 'jiugong' }),
  statusFacts: (s) => [{ key: s.locked ? 'state.jiugong.locked' : 'state.jiugong.free', args: {} }],

  /** {winner: player index or null} of a finished game, else null. */
  result(s) {
    if (s.outcome === ONGOING) return null;
    return { winner: s.outcome === DRAW ? null : s.outcome };
  },
};

/** The rules as the offline registry (./games.js) builds them for an entry's options
 * (Jiugong has none). */
export const rules = () => jiugong;
