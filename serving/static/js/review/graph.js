// The review's value graph: an SVG line over the moves (seat 0's view, +1 at the top), one
// clickable dot per position, the shown one and the key mistakes marked.

import { s } from '../dom.js';

const WIDTH = 300;
const HEIGHT = 120;
const PAD = 8;

/**
 * The graph of ``values`` (len = moves + 1); ``onPick(ply)`` gets the number of moves played
 * in the position clicked (0 = the start). ``mistakes`` are marked on the dot after the move.
 */
export function valueGraph(values, { shown = null, mistakes = [], onPick }) {
  const n = Math.max(1, values.length - 1);
  const x = (i) => PAD + (i * (WIDTH - 2 * PAD)) / n;
  const y = (v) => HEIGHT / 2 - v * (HEIGHT / 2 - PAD);
  const svg = s('svg', { class: 'value-graph', id: 'value-graph',
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img' });
  svg.append(s('rect', { class: 'graph-bg', x: 0, y: 0, width: WIDTH, height: HEIGHT }));
  svg.append(s('line', { class: 'graph-axis', x1: PAD, y1: y(0), x2: WIDTH - PAD, y2: y(0) }));
  svg.append(s('polyline', { class: 'graph-line',
    points: values.map((v, i) => `${x(i)},${y(v)}`).join(' ') }));
  // Dots never reach into their neighbours (the shown dot's 2-unit stroke included), so a
  // click on a dot of a long game picks that dot and not the one drawn over it.
  const r = Math.max(1.5, Math.min(3.5, (WIDTH - 2 * PAD) / n / 2 - 1));
  const bad = new Set(mistakes.map((m) => m.ply + 1));
  values.forEach((v, i) => {
    const classes = ['graph-point'];
    if (bad.has(i)) classes.push('mistake');
    if (i === shown) classes.push('shown');
    svg.append(s('circle', { class: classes.join(' '), cx: x(i), cy: y(v), r,
      dataset: { ply: String(i) }, onclick: () => onPick(i) },
    s('title', {}, `${i}: ${v.toFixed(2)}`)));
  });
  return svg;
}
