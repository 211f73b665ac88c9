// The three golden pieces as drawn in a player's hand (docs/rules/trigolden.md, "Pieces": local
// vertices counter-clockwise). Display data only: where a piece may go always comes from the
// API's legal moves, and placed pieces are drawn from the polygons the API returns.

const PHI = (1 + Math.sqrt(5)) / 2;
const rad = (deg) => (deg * Math.PI) / 180;

export const KINDS = ['T', 'G', 'P'];

export const PIECES = {
  T: { name: 'golden triangle', zh: '黃金三角形',
    verts: [[0, 0], [1, 0], [0.5, Math.sqrt(PHI * PHI - 0.25)]] },
  G: { name: 'golden gnomon', zh: '黃金磬折形',
    verts: [[0, 0], [PHI, 0], [PHI / 2, Math.sin(rad(36))]] },
  P: { name: 'golden parallelogram', zh: '黃金平行四邊形',
    verts: [[0, 0], [PHI, 0], [PHI + Math.cos(rad(72)), Math.sin(rad(72))],
      [Math.cos(rad(72)), Math.sin(rad(72))]] },
};

// Flipping mirrors a piece; T and G are symmetric, so only P's two faces are different
// placements (the engine offers the unflipped spelling for T and G).
export const CHIRAL = { T: false, G: false, P: true };

/** A placement "<kind>[']@<target>.<target_edge>/<edge>" or an opening "<kind>[']". */
export function parseMove(move) {
  const m = /^([A-Z])('?)(?:@(\d+)\.(\d+)\/(\d+))?$/.exec(move);
  if (!m) return null;
  return {
    kind: m[1], flipped: m[2] === "'",
    target: m[3] === undefined ? null : Number(m[3]),
    targetEdge: m[4] === undefined ? null : Number(m[4]),
    edge: m[5] === undefined ? null : Number(m[5]),
  };
}

/** The hand picture of a kind: the polygon mirrored when flipped, centred on (0, 0). */
export function handPolygon(kind, flipped) {
  const verts = PIECES[kind].verts.map(([x, y]) => [x, flipped ? -y : y]);
  const cx = verts.reduce((a, v) => a + v[0], 0) / verts.length;
  const cy = verts.reduce((a, v) => a + v[1], 0) / verts.length;
  return verts.map(([x, y]) => [x - cx, -(y - cy)]); // SVG y grows downwards
}
