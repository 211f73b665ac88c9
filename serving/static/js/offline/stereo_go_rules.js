// The position analysis of Stereo Go in the browser (docs/rules/stereo-go.md): chains and
// their liberties, which stones a move captures, which moves are suicide or repeat an earlier
// whole-board position (positional superko), and the Tromp-Taylor score of a final position.
// A port of envs/stereo_go/kernel.py without its incremental caches: the page searches a few
// hundred positions per move, so every position is analysed afresh (exact and simple).
//
// Positions are hashed Zobrist style with 53-bit keys (two 32-bit halves, the high one 21
// bits): exact as JavaScript numbers, so a hash is a Set key. The keys are this port's own,
// not the Python engine's; only their equality matters (superko compares positions).

export const [EMPTY, BLACK, WHITE] = [0, 1, 2];

/** splitmix32: the fixed, seeded source of the Zobrist keys. */
function mix(seed) {
  let z = (seed + 0x9e3779b9) | 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Zobrist keys of a stone of each colour on each of ``points`` points: {lo, hi} arrays
 * indexed [colour - 1][point]. */
export function zobrist(points) {
  const lo = [new Int32Array(points), new Int32Array(points)];
  const hi = [new Int32Array(points), new Int32Array(points)];
  for (let c = 0; c < 2; c += 1) {
    for (let p = 0; p < points; p += 1) {
      lo[c][p] = mix(4 * p + 2 * c);
      hi[c][p] = mix(4 * p + 2 * c + 1) & 0x1fffff;
    }
  }
  return { lo, hi };
}

/** The hash halves as one exact number. */
export const hashKey = (lo, hi) => hi * 4294967296 + (lo >>> 0);

/**
 * The chains of ``board``: ``chain`` (the chain index of each stone, -1 on empty points),
 * and per chain its colour, stones, liberty count and the XOR of its stones' keys.
 */
export function chains(board, neighbours, keys) {
  const n = board.length;
  const chain = new Int32Array(n).fill(-1);
  const stamp = new Int32Array(n).fill(-1);
  const list = [];
  for (let p0 = 0; p0 < n; p0 += 1) {
    const colour = board[p0];
    if (colour === EMPTY || chain[p0] >= 0) continue;
    const id = list.length;
    const stones = [p0];
    chain[p0] = id;
    let liberties = 0;
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < stones.length; i += 1) {
      const p = stones[i];
      lo ^= keys.lo[colour - 1][p];
      hi ^= keys.hi[colour - 1][p];
      for (const q of neighbours[p]) {
        if (board[q] === EMPTY) {
          if (stamp[q] !== id) {
            stamp[q] = id;
            liberties += 1;
          }
        } else if (board[q] === colour && chain[q] < 0) {
          chain[q] = id;
          stones.push(q);
        }
      }
    }
    list.push({ colour, stones, liberties, lo, hi });
  }
  return { chain, list };
}

/**
 * The legal stone moves of ``colour`` (a sorted list of points) and the legality code of every
 * point: 'ok', 'occupied', 'suicide' or 'superko' (a stone there recreates a position of
 * ``seen``, a Set of position hashes). ``lo``/``hi``: the position's hash.
 */
export function legality(board, neighbours, keys, groups, colour, lo, hi, seen) {
  const n = board.length;
  const codes = new Array(n);
  const legal = [];
  const { chain, list } = groups;
  for (let p = 0; p < n; p += 1) {
    if (board[p] !== EMPTY) {
      codes[p] = 'occupied';
      continue;
    }
    let hasLiberty = false;
    let hlo = lo ^ keys.lo[colour - 1][p];
    let hhi = hi ^ keys.hi[colour - 1][p];
    const taken = [];
    for (const q of neighbours[p]) {
      const v = board[q];
      if (v === EMPTY) {
        hasLiberty = true;
        continue;
      }
      const g = chain[q];
      if (list[g].liberties > 1) {
        if (v === colour) hasLiberty = true;
      } else if (v !== colour && !taken.includes(g)) { // its last liberty is p: captured
        taken.push(g);
        hlo ^= list[g].lo;
        hhi ^= list[g].hi;
      }
    }
    if (!hasLiberty && !taken.length) codes[p] = 'suicide';
    else if (seen.has(hashKey(hlo, hhi))) codes[p] = 'superko';
    else {
      codes[p] = 'ok';
      legal.push(p);
    }
  }
  return { codes, legal };
}

/** Tromp-Taylor points of the final position (every stone alive): [black, white], area
 * (stones and the empty regions only one colour reaches) or territory (those regions and
 * the prisoners, ``captures`` = [black's, white's]). */
export function finalScore(board, neighbours, area, captures) {
  const n = board.length;
  const seen = new Uint8Array(n);
  const score = area ? [0, 0] : [...captures];
  for (let p0 = 0; p0 < n; p0 += 1) {
    if (board[p0] !== EMPTY) {
      if (area) score[board[p0] - 1] += 1;
      continue;
    }
    if (seen[p0]) continue;
    seen[p0] = 1;
    const region = [p0];
    let border = 0;
    for (let i = 0; i < region.length; i += 1) {
      for (const q of neighbours[region[i]]) {
        if (board[q] === EMPTY) {
          if (!seen[q]) {
            seen[q] = 1;
            region.push(q);
          }
        } else border |= board[q];
      }
    }
    if (border === BLACK || border === WHITE) score[border - 1] += region.length;
  }
  return score;
}
