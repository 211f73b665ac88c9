// Draws an analysis on a point board without touching its drawing code: the board's SVG marks
// every point as <g data-point=name> around a hit circle, so the overlay finds each point's
// centre there and adds its own layer on top (redrawn after each board update).

import { s } from '../dom.js';
import { movePoint } from '../boards/points.js';

const LAYER = 'analysis-layer';

function centres(svg) {
  const out = new Map();
  for (const g of svg.querySelectorAll('g[data-point]')) {
    const hit = g.querySelector('circle.hit');
    if (!hit) continue;
    out.set(g.dataset.point, { x: +hit.getAttribute('cx'), y: +hit.getAttribute('cy'),
      r: +hit.getAttribute('r') / 1.05 });
  }
  return out;
}

/** Win rate in percent from a value in [-1, 1]. */
export function winRate(value) {
  return Math.round((value + 1) * 50);
}

/**
 * Put ``result`` (an AnalysisPublic, or null to clear) on the board in ``boardEl``: ownership
 * shading (Go) under marks for the top moves with visits and win rate, the best highlighted.
 * ``mover`` is the piece class of the side to move, so ownership is tinted by its owner.
 */
export function drawAnalysis(boardEl, result, { mover = null, other = null } = {}) {
  const svg = boardEl.querySelector('svg.board-svg');
  if (!svg) return;
  svg.querySelector(`g.${LAYER}`)?.remove();
  if (!result) return;
  const at = centres(svg);
  const layer = s('g', { class: LAYER, 'pointer-events': 'none' });
  if (result.ownership) {
    for (const [name, own] of Object.entries(result.ownership)) {
      const p = at.get(name);
      if (!p || Math.abs(own) < 0.05) continue;
      const owner = own > 0 ? mover : other;
      layer.append(s('rect', { class: `ownership ${owner || (own > 0 ? 'mover' : 'opponent')}`,
        dataset: { point: name, own: own.toFixed(2) },
        x: p.x - p.r * 0.55, y: p.y - p.r * 0.55, width: p.r * 1.1, height: p.r * 1.1,
        'fill-opacity': (0.15 + 0.6 * Math.abs(own)).toFixed(2) }));
    }
  }
  result.moves.forEach((m, i) => {
    const p = at.get(movePoint(m.move));
    if (!p) return;
    const mark = s('g', { class: `analysis-mark${i === 0 ? ' best' : ''}`,
      dataset: { move: m.move } });
    mark.append(s('circle', { cx: p.x, cy: p.y, r: p.r * 0.9 }));
    const rate = m.value === null ? '' : `${winRate(m.value)}%`;
    mark.append(s('text', { x: p.x, y: p.y - p.r * 0.1, class: 'analysis-rate' }, rate));
    mark.append(s('text', { x: p.x, y: p.y + p.r * 0.5, class: 'analysis-visits' },
      String(m.visits)));
    layer.append(mark);
  });
  svg.append(layer);
}

/** Ring the points of ``marks`` ([{move, cls}]) on the board: a played, a preferred move. */
export function markMoves(boardEl, marks) {
  const svg = boardEl.querySelector('svg.board-svg');
  if (!svg) return;
  const at = centres(svg);
  const layer = s('g', { class: 'move-marks', 'pointer-events': 'none' });
  for (const { move, cls } of marks) {
    const p = at.get(movePoint(move));
    if (p) layer.append(s('circle', { class: cls, cx: p.x, cy: p.y, r: p.r * 1.1 }));
  }
  svg.append(layer);
}
