// Stereo Go (立体围棋) in the browser: a port of envs/stereo_go/game.py
// (docs/rules/stereo-go.md) for the offline mode, on the cylinder and on plain N x N boards,
// with the default options otherwise (no handicap, the move cap of twice the points); komi and
// territory or area scoring as given. Same action space (one action per point, then pass),
// move strings, observation planes and JSON as the Python engine;
// tests/test_web_offline_go.py checks that the two agree.
//
// The rules as the Python engine plays them: suicide is illegal; positional superko (a stone
// may not recreate any earlier whole-board position, whoever is to move; a pass never
// violates it); two passes in a row or the move cap end the game, which is then scored
// Tromp-Taylor (every stone alive) and won by the sign of Black's points minus White's minus
// komi; a player may resign (not an action: resign()).

import { goBoard } from './stereo_go_board.js';
import { EMPTY, chains, finalScore, hashKey, legality, zobrist } from './stereo_go_rules.js';

const PLAYER_NAMES = ['black', 'white'];
const STONE_CHARS = '.XO';
const KOMI_SCALE = 15;
const PLANES = 13;
// the end of a game, as the Python engine's to_json names it
const [PASSES, RESIGN, MOVE_CAP] = ['passes', 'resign', 'move_cap'];

/** The rules engine (the interface of ./games.js) of Stereo Go on board ``board`` ('cylinder'
 * or 'NxN') under ``rules`` ('territory' or 'area'); handicaps and other move caps are not
 * played here. */
export function stereoGo({
  board: boardName = 'cylinder', rules = 'territory', komi = 7.5, handicap = 0, max_moves: cap = 0,
} = {}) {
  if (Number(handicap) !== 0 || Number(cap) !== 0) {
    throw new Error('the in-page Stereo Go plays no handicap and the default move cap only');
  }
  const board = goBoard(boardName);
  const n = board.points;
  const { neighbours } = board;
  const keys = zobrist(n);
  const maxMoves = 2 * n;
  const area = rules === 'area';
  const cells = board.grid[0] * board.grid[1];

  /** A frozen state from its facts; the chains and legal moves worked out once here. */
  function makeState(facts) {
    const { stones, toPlay, lo, hi, history } = facts;
    const groups = chains(stones, neighbours, keys);
    const seen = new Set(history);
    const over = facts.end !== null;
    const { codes, legal } = legality(stones, neighbours, keys, groups, toPlay + 1, lo, hi, seen);
    let outcome = facts.outcome;
    let score = null;
    if (facts.end === PASSES || facts.end === MOVE_CAP) {
      score = finalScore(stones, neighbours, area, facts.captures);
      const diff = 4 * (score[0] - score[1]) - 4 * komi;
      outcome = diff > 0 ? 0 : diff < 0 ? 1 : 2;
    }
    return Object.freeze({
      ...facts, groups, codes, score, outcome, legal: over ? [] : [...legal, n],
    });
  }

  function historyXor(history) {
    let x = 0;
    let y = 0;
    for (const h of history) {
      x ^= h % 4294967296;
      y ^= Math.floor(h / 4294967296);
    }
    return hashKey(x, y);
  }

  return {
    id: 'stereo_go',
    playerNames: PLAYER_NAMES,
    numActions: n + 1,
    observationShape: [PLANES, ...board.grid],
    board,

    initialState: () => makeState({
      stones: new Uint8Array(n), toPlay: 0, passes: 0, ply: 0, captures: [0, 0], last: -1,
      lo: 0, hi: 0, history: [0], end: null, outcome: -1,
    }),
    toPlay: (s) => s.toPlay,
    isTerminal: (s) => s.end !== null,
    legalActions: (s) => s.legal,

    /** Per-player results: +1 win, -1 loss, 0 a tie or not over. */
    returns(s) {
      if (s.outcome !== 0 && s.outcome !== 1) return [0, 0];
      return s.outcome === 0 ? [1, -1] : [-1, 1];
    },

    apply(s, action) {
      if (s.end !== null || !s.legal.includes(action)) throw new Error(`illegal action ${action}`);
      const mover = s.toPlay;
      let { stones, lo, hi, history, passes } = s;
      const captures = [...s.captures];
      if (action === n) passes += 1;
      else {
        stones = Uint8Array.from(stones);
        const colour = mover + 1;
        stones[action] = colour;
        lo ^= keys.lo[mover][action];
        hi ^= keys.hi[mover][action];
        const { chain, list } = s.groups;
        const taken = new Set();
        for (const q of neighbours[action]) {
          const g = chain[q];
          const enemy = stones[q] !== EMPTY && stones[q] !== colour;
          if (enemy && list[g].liberties === 1 && !taken.has(g)) {
            taken.add(g);
            for (const x of list[g].stones) stones[x] = EMPTY;
            captures[mover] += list[g].stones.length;
            lo ^= list[g].lo;
            hi ^= list[g].hi;
          }
        }
        passes = 0;
        history = [...history, hashKey(lo, hi)];
      }
      const ply = s.ply + 1;
      const end = passes >= 2 ? PASSES : ply >= maxMoves ? MOVE_CAP : null;
      return makeState({
        stones, toPlay: 1 - mover, passes, ply, captures, last: action, lo, hi, history, end,
        outcome: -1,
      });
    },

    /** The game lost by ``player`` (default: the side to move) by resignation. */
    resign(s, player = s.toPlay) {
      if (s.end !== null) throw new Error('the game is over');
      const { groups, codes, legal, score, ...facts } = s;
      return makeState({ ...facts, end: RESIGN, outcome: 1 - player });
    },

    /** The planes of envs/stereo_go (kernel.observation_values, then komi and rules) from
     * the mover's view, laid on the board's grid. */
    observation(s) {
      const values = Array.from({ length: PLANES }, () => new Float32Array(n));
      const me = s.toPlay + 1;
      const { chain, list } = s.groups;
      const blackToMove = s.toPlay === 0 ? 1 : 0;
      const passEnds = s.passes === 1 ? 1 : 0;
      const komiPlane = (s.toPlay === 0 ? -komi : komi) / KOMI_SCALE;
      for (let p = 0; p < n; p += 1) {
        const v = s.stones[p];
        if (v === EMPTY) {
          if (s.codes[p] !== 'ok') values[6][p] = 1;
        } else {
          const base = v === me ? 0 : 1;
          values[base][p] = 1;
          const libs = list[chain[p]].liberties;
          if (libs <= 2) values[2 + 2 * base + libs - 1][p] = 1;
        }
        values[8][p] = blackToMove;
        values[9][p] = passEnds;
        values[10][p] = 1;
        values[11][p] = komiPlane;
        values[12][p] = area ? 0 : 1;
      }
      if (s.last >= 0 && s.last < n) values[7][s.last] = 1;
      const obs = new Float32Array(PLANES * cells);
      for (let k = 0; k < PLANES; k += 1) {
        for (let c = 0; c < cells; c += 1) obs[k * cells + c] = values[k][board.cellPoint[c]];
      }
      return obs;
    },

    /** What the network sees: the position, the mover, the pass count, the last move and
     * the earlier positions (superko decides which moves are legal). */
    evalKey: (s) => [
      hashKey(s.lo, s.hi), s.toPlay, s.passes, s.last, historyXor(s.history),
    ].join('|'),

    actionToMove: (action) => (action === n ? 'pass' : board.names[action]),

    moveToAction(s, move) {
      const text = String(move).trim().toUpperCase();
      const action = text === 'PASS' ? n : board.index.get(text);
      if (action === undefined) {
        throw new Error(`${JSON.stringify(move)} is not a point of this board or 'pass'`);
      }
      if (s.end !== null) throw new Error('the game is over');
      if (action < n && s.codes[action] !== 'ok') {
        throw new Error(`illegal move ${JSON.stringify(move)}: ${s.codes[action]}`);
      }
      return action;
    },

    /** The JSON of envs/stereo_go's to_json (what the board layouts draw), but for the
     * history hashes, which are the Python engine's own. */
    toJson(s) {
      const chars = Array.from(s.stones, (v) => STONE_CHARS[v]);
      let rows;
      if (board.isCylinder) {
        rows = [chars[357]];
        for (let r = 0; r < 21; r += 1) rows.push(chars.slice(17 * r, 17 * r + 17).join(''));
        rows.push(chars[358]);
      } else {
        const size = board.grid[0];
        rows = [];
        for (let r = size - 1; r >= 0; r -= 1) {
          rows.push(chars.slice(size * r, size * r + size).join(''));
        }
      }
      return {
        board: rows,
        to_play: PLAYER_NAMES[s.toPlay],
        passes: s.passes,
        handicap_left: 0,
        ply: s.ply,
        captures: [...s.captures],
        last_move: s.last < 0 ? null : this.actionToMove(s.last),
        end: s.end,
        winner: s.outcome === 0 || s.outcome === 1 ? PLAYER_NAMES[s.outcome] : null,
      };
    },

    /** The board kind and status facts of envs/stereo_go/game.py's board_view and
     * status_facts: the stones each side captured, and the komi. */
    boardView: () => ({ kind: 'stereo_go' }),
    statusFacts: (s) => [
      { key: 'state.stereo', args: { black: s.captures[0], white: s.captures[1] } },
      { key: 'state.komi', args: { komi } },
    ],

    /** Of a finished game, else null: {winner: player index or null, reason ('resignation'
     * or 'rules'), score: [Black's points, White's with komi] when it was scored}. */
    result(s) {
      if (s.end === null) return null;
      return {
        winner: s.outcome === 0 || s.outcome === 1 ? s.outcome : null,
        reason: s.end === RESIGN ? 'resignation' : 'rules',
        score: s.score && [s.score[0], s.score[1] + komi],
      };
    },
  };
}

/** The rules as the offline registry (./games.js) builds them for an entry's options. */
export { stereoGo as rules };
