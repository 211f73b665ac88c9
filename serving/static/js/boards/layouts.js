// Board layouts from each game's state JSON (envs/*: to_json): where every point is drawn
// and what stands on it. Pure drawing: which points can be clicked comes from the legal list.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import '../i18n/boards.js';

const D = 60; // grid spacing of the small boards

/** A plain files x ranks grid, rank 1 at the bottom; ``at(file, rank)`` names the piece. */
function grid(files, ranks, names, at, spacing = D) {
  const m = spacing * 0.9;
  const points = [];
  const lines = [];
  const labels = [];
  const x = (f) => m + f * spacing;
  const y = (r) => m + (ranks - 1 - r) * spacing;
  for (let r = 0; r < ranks; r += 1) {
    lines.push([x(0), y(r), x(files - 1), y(r)]);
    labels.push({ x: m * 0.4, y: y(r), text: names.rank(r) });
  }
  for (let f = 0; f < files; f += 1) {
    lines.push([x(f), y(0), x(f), y(ranks - 1)]);
    labels.push({ x: x(f), y: y(0) + m * 0.6, text: names.file(f) });
  }
  for (let r = 0; r < ranks; r += 1) {
    for (let f = 0; f < files; f += 1) {
      points.push({ name: names.file(f) + names.rank(r), x: x(f), y: y(r), piece: at(f, r) });
    }
  }
  return {
    width: 2 * m + (files - 1) * spacing, height: 2 * m + (ranks - 1) * spacing,
    points, lines, labels, radius: spacing * 0.36,
  };
}

const lower = { file: (f) => 'abcdefghijklmnopqrstuvwxyz'[f], rank: (r) => String(r + 1) };

/** Jiugong: board "SSS..XNNN", a1 b1 c1 a2 ... c3; S south, N north, X the shared piece. */
export function jiugong(session) {
  const board = session.position.state.board;
  const cls = { S: 'south', N: 'north', X: 'shared' };
  return grid(3, 3, lower, (f, r) => cls[board[r * 3 + f]] || null, 90);
}

/** Fang Qi: 36 characters a1..f1, a2..f6; B black, W white. */
export function fangqi(session) {
  const board = session.position.state.board;
  const cls = { B: 'black', W: 'white' };
  return grid(6, 6, lower, (f, r) => cls[board[r * 6 + f]] || null);
}

const STONE = { X: 'black', O: 'white' };
const GTP_LETTERS = 'ABCDEFGHJKLMNOPQRST'; // Go programs skip I
const MERIDIANS = 'ABCDEFGHIJKLMNOPQ'; // docs/rules/stereo-go.md: axes A..Q

/** A plain N x N Go board: rows from the top (rank N) down, GTP coordinates. */
function goSquare(session) {
  const rows = session.position.state.board;
  const n = rows.length;
  const names = { file: (f) => GTP_LETTERS[f], rank: (r) => String(r + 1) };
  return grid(n, n, names, (f, r) => STONE[rows[n - 1 - r][f]] || null, 30);
}

/**
 * The Stereo Go cylinder: 17 meridians x 21 rings drawn as a grid whose rings wrap around
 * (the dashed stubs at both ends of each ring join meridian Q to A), with the north pole NP
 * beyond ring 1 and the south pole SP beyond ring 21, each joined to the 17 points of its ring.
 * Vertical: meridians are columns, NP above, SP below. Horizontal (seed 003: 横向摆放): the
 * same picture turned a quarter to the left, so the rings are columns from NP at the left to
 * SP at the right and the meridians are rows (A at the bottom): the cylinder still seen from
 * outside, not mirrored. ``shift`` turns the cylinder (which meridian is drawn first: the
 * left column, or the bottom row), so any seam can be looked at.
 */
function goCylinder(session, shift, horizontal) {
  const rows = session.position.state.board; // [NP, ring 1 ... ring 21, SP]
  const cols = MERIDIANS.length;
  const rings = rows.length - 2;
  const d = 26;
  const left = 46;
  const top = 30;
  const ringY = (i) => top + 2 * d + i * d; // i = 0 .. rings-1
  const x = (c) => left + c * d;
  const col = (k) => (((k + shift) % cols) + cols) % cols; // drawn column k shows meridian col(k)
  const width = 2 * left + (cols - 1) * d;
  const npY = top;
  const spY = ringY(rings - 1) + 2 * d;
  const points = [];
  const lines = [];
  const labels = [];
  for (let i = 0; i < rings; i += 1) {
    lines.push([x(0), ringY(i), x(cols - 1), ringY(i)]);
    lines.push([x(0) - d * 0.8, ringY(i), x(0), ringY(i), 'wrap-line']);
    lines.push([x(cols - 1), ringY(i), x(cols - 1) + d * 0.8, ringY(i), 'wrap-line']);
    labels.push({ x: left * 0.35, y: ringY(i), text: String(i + 1) });
  }
  for (let k = 0; k < cols; k += 1) {
    lines.push([x(k), ringY(0), x(k), ringY(rings - 1)]);
    lines.push([width / 2, npY, x(k), ringY(0), 'pole-line']);
    lines.push([width / 2, spY, x(k), ringY(rings - 1), 'pole-line']);
    labels.push({ x: x(k), y: ringY(rings - 1) + d * 0.75, text: MERIDIANS[col(k)] });
  }
  labels.push({ x: width / 2 + d, y: npY, text: 'NP' }, { x: width / 2 + d, y: spY, text: 'SP' });
  points.push({ name: 'NP', x: width / 2, y: npY, piece: STONE[rows[0]] || null });
  for (let i = 0; i < rings; i += 1) {
    for (let k = 0; k < cols; k += 1) {
      const c = col(k);
      points.push({ name: `${MERIDIANS[c]}${i + 1}`, x: x(k), y: ringY(i),
        piece: STONE[rows[i + 1][c]] || null });
    }
  }
  points.push({ name: 'SP', x: width / 2, y: spY, piece: STONE[rows[rings + 1]] || null });
  const layout = { width, height: spY + d, points, lines, labels, radius: d * 0.42 };
  return horizontal ? turnedLeft(layout) : layout;
}

/** A layout turned a quarter to the left (counter-clockwise): (x, y) -> (y, width - x). */
function turnedLeft(layout) {
  const at = (x, y) => [y, layout.width - x];
  const moved = (p) => {
    const [x, y] = at(p.x, p.y);
    return { ...p, x, y };
  };
  return {
    ...layout, width: layout.height, height: layout.width,
    points: layout.points.map(moved),
    labels: layout.labels.map(moved),
    lines: layout.lines.map(([x1, y1, x2, y2, cls]) => [...at(x1, y1), ...at(x2, y2), cls]),
  };
}

export function isCylinder(session) {
  return (session.view.config.board ?? 'cylinder') === 'cylinder';
}

/**
 * Stereo Go: the cylinder (``shift`` meridians turned, ``horizontal`` or upright), or a plain
 * board when the config asks for one.
 */
export function stereoGo(session, { shift = 0, horizontal = false } = {}) {
  return isCylinder(session) ? goCylinder(session, shift, horizontal) : goSquare(session);
}

/**
 * Buttons that turn the cylinder by one meridian either way: ◀ / ▶ when the meridians are
 * columns, ▲ / ▼ when they are rows. ``onShift(+1)`` draws the next meridian first, which
 * moves the picture left (upright) or down (horizontal).
 */
export function cylinderControls(horizontal, onShift) {
  const [back, on] = horizontal
    ? [['turn-up', -1, t('board.turnUp'), 'up'], ['turn-down', 1, t('board.turnDown'), 'down']]
    : [['turn-left', 1, t('board.turnLeft'), 'left'],
      ['turn-right', -1, t('board.turnRight'), 'right']];
  const button = ([cls, step, text, way]) => h('button', { type: 'button', class: cls,
    onclick: () => onShift(step), title: t(`board.turnTitle.${way}`) }, text);
  const seam = t(horizontal ? 'board.seamHorizontal' : 'board.seamVertical');
  return h('div', { class: 'cylinder-controls' },
    button(back), h('span', { class: 'help' }, seam), button(on));
}
