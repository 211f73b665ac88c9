// The review's value graph: an SVG line over the moves (seat 0's view, +1 at the top), a dot
// per position, the shown one and the key mistakes marked; a click shows the nearest position.

import { s } from '../dom.js';

const WIDTH = 300;
const HEIGHT = 120;
const PAD = 8;

/**
 * The graph of ``values`` (len = moves + 1); ``onPick(ply)`` gets the number of moves played
 * in the position nearest the click (0 = the start). ``mistakes`` are marked on the dot after the move.
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
  // A click anywhere on the graph picks the position nearest to it along the moves: in a long
  // game the dots are closer than a finger (or overlap), so no dot is the target itself.
  svg.addEventListener('click', (event) => {
    const at = new DOMPoint(event.clientX, event.clientY)
      .matrixTransform(svg.getScreenCTM().inverse());
    const ply = Math.round(((at.x - PAD) * n) / (WIDTH - 2 * PAD));
    onPick(Math.min(values.length - 1, Math.max(0, ply)));
  });
  // Dots shrink with the spacing of a long game, so the line between them stays readable.
  const r = Math.max(1.5, Math.min(3.5, (WIDTH - 2 * PAD) / n / 2 - 1));
  const bad = new Set(mistakes.map((m) => m.ply + 1));
  values.forEach((v, i) => {
    const classes = ['graph-point'];
    if (bad.has(i)) classes.push('mistake');
    if (i === shown) classes.push('shown');
    svg.append(s('circle', { class: classes.join(' '), cx: x(i), cy: y(v), r,
      dataset: { ply: String(i) } },
    s('title', {}, `${i}: ${v.toFixed(2)}`)));
  });
  return svg;
}
