// Jieshou Fang Qi in the browser: a port of envs/fangqi/ (docs/rules/fangqi.md, docs/fangqi.md)
// for the offline mode. Same index map, action space, observation planes and JSON as the
// Python engine; tests/test_web_offline.py checks that the two agree.
//
//   rank 6   30 31 32 33 34 35      a6 .. f6
//   ...
//   rank 1    0  1  2  3  4  5      a1 b1 c1 d1 e1 f1
//
// Actions (192): placements 0-35 (`c3`), the 120 directed steps 36-155 in (from, to) order
// (`c3-c4`), removals 156-191 (`xc3`: the pull, captures, making room).
// The Python engine packs the board into 36-bit integers; JavaScript's bit operators stop at
// 32 bits, so here the board is an array of 36 cells (0 empty, 1 Black, 2 White) and every
// shape a list of points. States are plain objects treated as immutable.

import { squareGrid } from './grid.js';

const SIZE = 6;
const N = SIZE * SIZE;
const PHASE_NAMES = ['place', 'pull', 'step', 'capture', 'room', 'over'];
const [PLACE, PULL, STEP, CAPTURE, ROOM, OVER] = PHASE_NAMES.keys();
const PLAYER_NAMES = ['black', 'white'];
const [BLACK, WHITE] = [0, 1];
// results: the winner's index, or
const [ONGOING, DRAW] = [-1, 2];
const RESULT_NAMES = { '-1': null, 0: 'black', 1: 'white', 2: 'draw' };
const PIECES_PER_SIDE = 30;
const NO_CAPTURE_LIMIT = 60; // movement turns without a capture that end the game as a draw
const REPETITIONS_FOR_DRAW = 3;
const OWED_SCALE = 16; // owed actions are given to the network as min(owed, 16) / 16

const GRID = squareGrid(SIZE);
const { names: POINT_NAMES, index: POINT_INDEX, neighbours: NEIGHBOURS, steps: STEPS } = GRID;

const STEP_BASE = N;
const REMOVE_BASE = STEP_BASE + STEPS.length; // 156
const NUM_ACTIONS = REMOVE_BASE + N; // 192

// ------------------------------------------------------------------------------ shapes
const SQUARE_VALUE = 1;
const DRAGON_VALUE = 3;
const DIAGONAL_VALUE = { 3: 1, 4: 2, 5: 3, 6: 4 };
const SQUARES = [];
for (let r = 0; r < SIZE - 1; r += 1) {
  for (let c = 0; c < SIZE - 1; c += 1) {
    const p = r * SIZE + c;
    SQUARES.push([p, p + 1, p + SIZE, p + SIZE + 1]);
  }
}
const DIAGONALS = [
  Array.from({ length: SIZE }, (_, i) => i * SIZE + i),
  Array.from({ length: SIZE }, (_, i) => (SIZE - 1 - i) * SIZE + i),
];
const DRAGONS = [];
for (let r = 1; r < 5; r += 1) DRAGONS.push(Array.from({ length: SIZE }, (_, c) => r * SIZE + c));
for (let c = 1; c < 5; c += 1) DRAGONS.push(Array.from({ length: SIZE }, (_, r) => r * SIZE + c));
const SQUARES_AT = Array.from({ length: N }, (_, p) => SQUARES.filter((sq) => sq.includes(p)));
const DRAGONS_AT = Array.from({ length: N }, (_, p) => DRAGONS.filter((d) => d.includes(p)));
const DIAGONAL_AT = Array.from({ length: N }, (_, p) => DIAGONALS.find((d) => d.includes(p)) || null);

const allOwn = (cells, v, pts) => pts.every((q) => cells[q] === v);

/** The value of the corner run of a long diagonal that holds ``p`` (the spec's counting rule:
 * the maximal own run from a corner, 3 long or more, containing p; the full diagonal once). */
function diagonalValue(cells, v, p) {
  const line = DIAGONAL_AT[p];
  if (!line) return 0;
  const owned = line.map((q) => cells[q] === v);
  const i = line.indexOf(p);
  if (owned.every(Boolean)) return DIAGONAL_VALUE[6];
  const lo = owned.indexOf(false); // the run from corner 0 is owned[0..lo)
  let hi = 0; // the run from the other corner
  while (owned[SIZE - 1 - hi]) hi += 1;
  if (i < lo && lo >= 3) return DIAGONAL_VALUE[lo];
  if (i >= SIZE - hi && hi >= 3) return DIAGONAL_VALUE[hi];
  return 0;
}

/** Total value of the shapes of cell value ``v`` (own pieces) that contain ``p``. */
function shapeValue(cells, v, p) {
  let value = 0;
  for (const sq of SQUARES_AT[p]) if (allOwn(cells, v, sq)) value += SQUARE_VALUE;
  value += diagonalValue(cells, v, p);
  for (const d of DRAGONS_AT[p]) if (allOwn(cells, v, d)) value += DRAGON_VALUE;
  return value;
}

/** Which points hold an iron piece of ``v`` (a corner of a complete own big square). */
function ironCells(cells, v) {
  const iron = new Uint8Array(N);
  for (const sq of SQUARES) if (allOwn(cells, v, sq)) for (const q of sq) iron[q] = 1;
  return iron;
}

/** The loose pieces of ``v``, in increasing order. */
function loose(cells, v) {
  const iron = ironCells(cells, v);
  const out = [];
  for (let p = 0; p < N; p += 1) if (cells[p] === v && !iron[p]) out.push(p);
  return out;
}

const piecesOf = (cells, v) => {
  const out = [];
  for (let p = 0; p < N; p += 1) if (cells[p] === v) out.push(p);
  return out;
};

function canStep(cells, v) {
  for (let p = 0; p < N; p += 1) {
    if (cells[p] === v && NEIGHBOURS[p].some((q) => cells[q] === 0)) return true;
  }
  return false;
}

/** The pieces a side may remove to make room: a loose piece next to an opponent piece, else
 * any loose piece, else any own piece (project rule). */
function roomChoices(cells, own, opp) {
  const free = loose(cells, own);
  const giving = free.filter((p) => NEIGHBOURS[p].some((q) => cells[q] === opp));
  if (giving.length) return giving;
  return free.length ? free : piecesOf(cells, own);
}

const positionKey = (cells, player) => cells.join('') + player;

// ------------------------------------------------------------------------------ transitions
/** A copy of ``s`` with ``changes`` and one more ply (envs/fangqi/rules.py's _with). */
function withChanges(s, changes) {
  return { ...s, ply: s.ply + 1, result: ONGOING, legal: null, ...changes };
}

function aboutToStep(s, cells, player, noCapture, history) {
  const key = positionKey(cells, player);
  const hist = [...history, key];
  const draw = noCapture >= NO_CAPTURE_LIMIT
    || hist.filter((k) => k === key).length >= REPETITIONS_FOR_DRAW;
  return withChanges(s, {
    cells, phase: draw ? OVER : STEP, toPlay: player, owed: 0, noCapture, history: hist,
    result: draw ? DRAW : ONGOING,
  });
}

function endOfTurn(s, cells, mover, noCapture, history) {
  if (canStep(cells, 2 - mover)) return aboutToStep(s, cells, 1 - mover, noCapture, history);
  return withChanges(s, { cells, phase: ROOM, toPlay: mover, owed: 0, noCapture, history });
}

function place(s, p) {
  const player = s.toPlay;
  const cells = [...s.cells];
  cells[p] = player + 1;
  let { handBlack, handWhite } = s;
  if (player === BLACK) handBlack -= 1;
  else handWhite -= 1;
  const ownHand = player === BLACK ? handBlack : handWhite;
  const otherHand = player === BLACK ? handWhite : handBlack;
  if (!cells.includes(0)) {
    // the board is full: placements still owed are lost; Black pulls
    return withChanges(s, { cells, handBlack, handWhite, phase: PULL, toPlay: BLACK, owed: 0 });
  }
  let owed = Math.max(s.owed - 1, 0) + shapeValue(cells, player + 1, p);
  let next = player;
  if (!(owed && ownHand)) {
    owed = 0; // owed placements without pieces in hand are lost
    next = otherHand ? 1 - player : player;
  }
  return withChanges(s, { cells, handBlack, handWhite, toPlay: next, owed });
}

function pull(s, p) {
  const cells = [...s.cells];
  cells[p] = 0;
  return endOfTurn(s, cells, BLACK, s.noCapture, []);
}

function step(s, f, t) {
  const player = s.toPlay;
  const cells = [...s.cells];
  cells[t] = cells[f];
  cells[f] = 0;
  const noCapture = s.noCapture + 1;
  const value = shapeValue(cells, player + 1, t);
  if (value && loose(cells, 2 - player).length) {
    return withChanges(s, { cells, phase: CAPTURE, owed: value, noCapture });
  }
  return endOfTurn(s, cells, player, noCapture, s.history); // captures formed are lost
}

function capture(s, p) {
  const player = s.toPlay;
  const cells = [...s.cells];
  cells[p] = 0;
  const enemy = 2 - player;
  if (!cells.includes(enemy)) {
    return withChanges(s, {
      cells, phase: OVER, owed: 0, noCapture: 0, history: [], result: player,
    });
  }
  const owed = s.owed - 1;
  if (owed && loose(cells, enemy).length) {
    return withChanges(s, { cells, owed, noCapture: 0, history: [] });
  }
  return endOfTurn(s, cells, player, 0, []);
}

function room(s, p) {
  const player = s.toPlay;
  const cells = [...s.cells];
  cells[p] = 0;
  if (!cells.includes(player + 1)) {
    // making room with one's last piece loses
    return withChanges(s, { cells, phase: OVER, owed: 0, history: [], result: 1 - player });
  }
  const next = canStep(cells, 2 - player) ? 1 - player : player; // else the turn is skipped
  return aboutToStep(s, cells, next, s.noCapture, []);
}

function legalActions(s) {
  const { cells, phase } = s;
  const out = [];
  if (phase === PLACE) {
    for (let p = 0; p < N; p += 1) if (cells[p] === 0) out.push(p);
    return out;
  }
  if (phase === STEP) {
    const own = s.toPlay + 1;
    STEPS.forEach(([f, t], i) => {
      if (cells[f] === own && cells[t] === 0) out.push(STEP_BASE + i);
    });
    return out;
  }
  let targets;
  if (phase === CAPTURE) targets = loose(cells, 2 - s.toPlay);
  else if (phase === PULL) {
    targets = loose(cells, WHITE + 1);
    if (!targets.length) targets = piecesOf(cells, WHITE + 1);
  } else if (phase === ROOM) targets = roomChoices(cells, s.toPlay + 1, 2 - s.toPlay);
  else return out;
  return targets.map((p) => REMOVE_BASE + p);
}

function legal(s) {
  if (!s.legal) s.legal = legalActions(s); // a cache: states are otherwise never changed
  return s.legal;
}

/** Earlier occurrences of the position (0, 1, 2) scaled to 0, 0.5, 1 (observation plane 14). */
function seen(s) {
  if (s.phase !== STEP || s.history.length <= 1) return 0;
  const key = positionKey(s.cells, s.toPlay);
  const count = s.history.filter((k) => k === key).length;
  return Math.min(count - 1, REPETITIONS_FOR_DRAW - 1) / (REPETITIONS_FOR_DRAW - 1);
}

function hexKey(key) {
  // envs/fangqi/state.py's position_key: black | white << 36 | player << 72, as hex
  let k = BigInt(Number(key[N])) << 72n;
  for (let p = 0; p < N; p += 1) {
    if (key[p] === '1') k |= 1n << BigInt(p);
    else if (key[p] === '2') k |= 1n << BigInt(N + p);
  }
  return k.toString(16);
}

const hand = (s, player) => (player === BLACK ? s.handBlack : s.handWhite);

export const fangqi = {
  id: 'fangqi',
  playerNames: PLAYER_NAMES,
  numActions: NUM_ACTIONS,
  observationShape: [16, SIZE, SIZE],

  initialState: () => ({
    cells: new Array(N).fill(0), phase: PLACE, toPlay: BLACK, owed: 0,
    handBlack: PIECES_PER_SIDE, handWhite: PIECES_PER_SIDE, noCapture: 0, history: [], ply: 0,
    result: ONGOING, legal: null,
  }),
  toPlay: (s) => s.toPlay,
  isTerminal: (s) => s.phase === OVER,
  legalActions: legal,

  returns(s) {
    if (s.result === ONGOING || s.result === DRAW) return [0, 0];
    return s.result === BLACK ? [1, -1] : [-1, 1];
  },

  apply(s, action) {
    if (!legal(s).includes(action)) throw new Error(`illegal action ${action}`);
    if (s.phase === PLACE) return place(s, action);
    if (s.phase === STEP) return step(s, ...STEPS[action - STEP_BASE]);
    const p = action - REMOVE_BASE;
    if (s.phase === CAPTURE) return capture(s, p);
    if (s.phase === ROOM) return room(s, p);
    return pull(s, p);
  },

  /** The 16 planes of envs/fangqi/features.py, from the view of the side to act. */
  observation(s) {
    const obs = new Float32Array(16 * N);
    const player = s.toPlay;
    const own = player + 1;
    const opp = 2 - player;
    const ironOwn = ironCells(s.cells, own);
    const ironOpp = ironCells(s.cells, opp);
    const scalars = [
      s.phase === PLACE, s.phase === PULL, s.phase === STEP, s.phase === CAPTURE,
      s.phase === ROOM,
      Math.min(s.owed, OWED_SCALE) / OWED_SCALE,
      hand(s, player) / PIECES_PER_SIDE,
      hand(s, 1 - player) / PIECES_PER_SIDE,
      Math.min(s.noCapture, NO_CAPTURE_LIMIT) / NO_CAPTURE_LIMIT,
      seen(s),
      player === BLACK,
    ].map(Number);
    for (let p = 0; p < N; p += 1) {
      const v = s.cells[p];
      obs[p] = v === own ? 1 : 0;
      obs[N + p] = v === opp ? 1 : 0;
      obs[2 * N + p] = v === 0 ? 1 : 0;
      obs[3 * N + p] = ironOwn[p];
      obs[4 * N + p] = ironOpp[p];
      scalars.forEach((x, i) => { obs[(5 + i) * N + p] = x; });
    }
    return obs;
  },

  /** What the network sees: everything the observation and the legal moves depend on. */
  evalKey: (s) => [
    s.cells.join(''), s.phase, s.toPlay, Math.min(s.owed, OWED_SCALE), s.handBlack, s.handWhite,
    Math.min(s.noCapture, NO_CAPTURE_LIMIT), seen(s),
  ].join(':'),

  actionToMove(action) {
    if (action < STEP_BASE) return POINT_NAMES[action];
    if (action < REMOVE_BASE) {
      const [f, t] = STEPS[action - STEP_BASE];
      return `${POINT_NAMES[f]}-${POINT_NAMES[t]}`;
    }
    return `x${POINT_NAMES[action - REMOVE_BASE]}`;
  },

  moveToAction(s, move) {
    const m = /^(x)?([a-f][1-6])(?:-([a-f][1-6]))?$/.exec(String(move).trim().toLowerCase());
    let action;
    if (m && !(m[1] && m[3])) {
      const p = POINT_INDEX.get(m[2]);
      if (m[1]) action = REMOVE_BASE + p;
      else if (m[3]) action = STEP_BASE + GRID.stepIndex.get(`${p},${POINT_INDEX.get(m[3])}`);
      else action = p;
    }
    if (action === undefined || !legal(s).includes(action)) {
      throw new Error(`illegal move ${JSON.stringify(move)} in this position`);
    }
    return action;
  },

  /** The JSON of envs/fangqi/serialize.py's to_json (what the board layouts draw). */
  toJson(s) {
    return {
      board: s.cells.map((v) => '.BW'[v]).join(''),
      phase: PHASE_NAMES[s.phase],
      to_play: PLAYER_NAMES[s.toPlay],
      owed: s.owed,
      hand: { black: s.handBlack, white: s.handWhite },
      no_capture: s.noCapture,
      history: s.history.map(hexKey),
      ply: s.ply,
      result: RESULT_NAMES[s.result],
    };
  },

  /** The board kind and status facts of envs/fangqi/game.py's board_view and status_facts. */
  boardView: () => ({ kind: 'fangqi' }),
  statusFacts(s) {
    const phase = PHASE_NAMES[s.phase];
    const seat = { seat: PLAYER_NAMES[s.toPlay] };
    const facts = [{ key: 'state.fangqi', args: { phase: { label: `state.fangqi.${phase}` },
      hand: { seats: { black: s.handBlack, white: s.handWhite } } } }];
    if (phase === 'room') facts.push({ key: 'state.fangqi.owedRoom', args: { seat } });
    else if (s.owed) {
      const key = phase === 'place' ? 'rules.fangqi.owed' : 'state.fangqi.owedRemove';
      facts.push({ key, args: { seat, n: s.owed } });
    }
    return facts;
  },

  result(s) {
    if (s.phase !== OVER) return null;
    return { winner: s.result === DRAW ? null : s.result };
  },
};

/** The rules as the offline registry (./games.js) builds them for an entry's options
 * (Fang Qi has none). */
export const rules = () => fangqi;
