// The board graphs of Stereo Go in the browser: a port of envs/stereo_go/board.py for the
// offline mode. Same point numbering, notation and observation grid as the Python engine, so
// actions, move strings and network inputs mean the same on both sides.
//
// The cylinder: 17 meridians A..Q (the letter I included) x 21 rings, point
// (ring - 1) * 17 + meridian, then the poles NP = 357 (next to every point of ring 1) and
// SP = 358 (ring 21); Q is next to A on every ring. Its observation grid is 23 rows x 17
// columns: row 0 the north pole repeated, rows 1..21 the rings, row 22 the south pole.
// An N x N board: GTP columns A..T without I, rank 1 at the bottom, point (rank - 1) * N +
// column; its grid is N x N, row r = rank r + 1.
// Either way the pass action is the number of points.

const MERIDIANS = 17;
const RINGS = 21;
const CYLINDER_LETTERS = 'ABCDEFGHIJKLMNOPQ';
const GTP_LETTERS = 'ABCDEFGHJKLMNOPQRST';

function cylinder() {
  const ringPoints = MERIDIANS * RINGS;
  const [north, south] = [ringPoints, ringPoints + 1];
  const neighbours = [];
  const names = [];
  for (let ring = 0; ring < RINGS; ring += 1) {
    for (let m = 0; m < MERIDIANS; m += 1) {
      neighbours.push([
        ring * MERIDIANS + ((m + 1) % MERIDIANS),
        ring * MERIDIANS + ((m + MERIDIANS - 1) % MERIDIANS),
        ring > 0 ? (ring - 1) * MERIDIANS + m : north,
        ring < RINGS - 1 ? (ring + 1) * MERIDIANS + m : south,
      ]);
      names.push(`${CYLINDER_LETTERS[m]}${ring + 1}`);
    }
  }
  neighbours.push(Array.from({ length: MERIDIANS }, (_, m) => m));
  neighbours.push(Array.from({ length: MERIDIANS }, (_, m) => (RINGS - 1) * MERIDIANS + m));
  names.push('NP', 'SP');
  const cellPoint = [];
  for (let m = 0; m < MERIDIANS; m += 1) cellPoint.push(north);
  for (let p = 0; p < ringPoints; p += 1) cellPoint.push(p);
  for (let m = 0; m < MERIDIANS; m += 1) cellPoint.push(south);
  return finish('cylinder', neighbours, names, cellPoint, [RINGS + 2, MERIDIANS]);
}

function square(n) {
  const neighbours = [];
  const names = [];
  for (let p = 0; p < n * n; p += 1) {
    const [r, c] = [Math.floor(p / n), p % n];
    neighbours.push([[r - 1, c], [r, c - 1], [r, c + 1], [r + 1, c]]
      .filter(([rr, cc]) => rr >= 0 && rr < n && cc >= 0 && cc < n)
      .map(([rr, cc]) => rr * n + cc));
    names.push(`${GTP_LETTERS[c]}${r + 1}`);
  }
  const cellPoint = Array.from({ length: n * n }, (_, p) => p);
  return finish(`${n}x${n}`, neighbours, names, cellPoint, [n, n]);
}

function finish(name, neighbours, names, cellPoint, grid) {
  return Object.freeze({
    name,
    isCylinder: name === 'cylinder',
    points: names.length,
    neighbours: neighbours.map((ns) => Int32Array.from(ns)),
    names,
    index: new Map(names.map((x, p) => [x, p])),
    cellPoint: Int32Array.from(cellPoint),
    grid,
  });
}

const BOARDS = new Map();

/** The board called ``name`` ('cylinder' or 'NxN', 5 <= N <= 19), built once. */
export function goBoard(name) {
  if (!BOARDS.has(name)) {
    const m = /^(\d+)x(\d+)$/.exec(name);
    if (name !== 'cylinder' && !(m && m[1] === m[2] && +m[1] >= 5 && +m[1] <= 19)) {
      throw new Error(`board must be 'cylinder' or 'NxN' with 5 <= N <= 19, got ${name}`);
    }
    BOARDS.set(name, name === 'cylinder' ? cylinder() : square(Number(m[1])));
  }
  return BOARDS.get(name);
}
