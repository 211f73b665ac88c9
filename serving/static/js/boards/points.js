// A board of named points (Jiugong, Fang Qi, Go): draws a layout and turns clicks into moves.
// Which click means what comes only from the API's legal move list: a move "p" places on (or,
// in Go, plays) point p, "p-q" steps from p to q, "xp" removes the piece on p. No rules here.

import { s } from '../dom.js';
import { showError } from '../errors.js';
import { t } from '../i18n.js';
import '../i18n/boards.js';
import { gameName } from '../i18n/common.js';

/** The legal moves sorted by what a click on a point does. */
export function classify(legal) {
  const place = new Set();
  const remove = new Set();
  const steps = new Map(); // from -> Map(to -> move)
  for (const move of legal) {
    const step = /^([^-]+)-([^-]+)$/.exec(move);
    if (step) {
      if (!steps.has(step[1])) steps.set(step[1], new Map());
      steps.get(step[1]).set(step[2], move);
    } else if (/^x./.test(move)) {
      remove.add(move.slice(1));
    } else {
      place.add(move);
    }
  }
  return { place, remove, steps };
}

/** What a click on point ``name`` means, given the classified legal moves and the piece
 * ``selected`` (or null): ``{move}`` to play, else ``{selected}``, the piece chosen now (a
 * piece that can step, chosen or chosen again to let go). Shared by the point boards. */
export function clickMeaning(legal, selected, name) {
  const fromSelected = selected && legal.steps.get(selected);
  if (fromSelected && fromSelected.has(name)) return { move: fromSelected.get(name) };
  if (legal.place.has(name)) return { move: name };
  if (legal.remove.has(name)) return { move: `x${name}` };
  return { selected: legal.steps.has(name) && selected !== name ? name : null };
}

/** Points a move touches, for the last-move marker ("b1-b2" -> b2, "xc3" -> c3). */
export function movePoint(move) {
  if (!move) return null;
  const step = /^([^-]+)-([^-]+)$/.exec(move);
  if (step) return step[2];
  return /^x./.test(move) ? move.slice(1) : move;
}

/**
 * A point board for ``session``. ``makeLayout(session)`` gives
 * {width, height, points: [{name, x, y, piece}], lines, labels, radius, extra}, where
 * ``piece`` is a CSS class ("black", "south", ...) or null. ``quiet``: no dot on every legal
 * empty point (Go, where nearly every point is legal; hovering still shows it).
 */
export function pointBoard(session, makeLayout, { lastMove, controls, quiet = false } = {}) {
  let selected = null;
  const el = document.createElement('div');
  el.className = 'point-board';

  async function play(move) {
    selected = null;
    try {
      await session.move(move);
    } catch (err) {
      showError(err);
      update();
    }
  }

  async function toggleDead(name) {
    const dead = [...session.view.scoring.dead];
    const i = dead.indexOf(name);
    if (i >= 0) dead.splice(i, 1);
    else dead.push(name);
    try {
      await session.markDead(dead);
    } catch (err) {
      showError(err);
    }
  }

  function click(name, piece) {
    const view = session.view;
    if (view.status === 'scoring') {
      if (piece) toggleDead(name);
      return;
    }
    if (!session.humanToPlay) return;
    const meaning = clickMeaning(classify(session.legal), selected, name);
    if (meaning.move) play(meaning.move);
    else {
      selected = meaning.selected;
      update();
    }
  }

  function update() {
    const view = session.view;
    const layout = makeLayout(session);
    const c = session.humanToPlay ? classify(session.legal) : classify([]);
    if (selected && !c.steps.has(selected)) selected = null;
    const targets = selected ? new Set(c.steps.get(selected).keys()) : c.place;
    const last = movePoint(lastMove ? lastMove(session) : null);
    const dead = new Set(view.scoring ? view.scoring.dead : []);
    const r = layout.radius;
    const svg = s('svg', {
      class: 'board-svg', viewBox: `0 0 ${layout.width} ${layout.height}`, role: 'img',
      'aria-label': t('board.label', { game: gameName(session.view.game) }),
    });
    svg.append(s('rect', { class: 'board-bg', x: 0, y: 0, width: layout.width,
      height: layout.height, rx: 8 }));
    for (const [x1, y1, x2, y2, cls] of layout.lines) {
      svg.append(s('line', { x1, y1, x2, y2, class: cls || 'grid-line' }));
    }
    for (const lb of layout.labels) {
      svg.append(s('text', { x: lb.x, y: lb.y, class: 'coord', translate: 'no' }, lb.text));
    }
    for (const p of layout.points) {
      const classes = ['point'];
      if (targets.has(p.name)) classes.push('target');
      if (c.remove.has(p.name)) classes.push('removable');
      if (c.steps.has(p.name)) classes.push('movable');
      if (p.name === selected) classes.push('selected');
      const g = s('g', { class: classes.join(' '), dataset: { point: p.name },
        onclick: () => click(p.name, p.piece) });
      g.append(s('circle', { class: 'hit', cx: p.x, cy: p.y, r: r * 1.05 }));
      if (p.piece) {
        g.append(s('circle', { class: `stone ${p.piece}`, cx: p.x, cy: p.y, r }));
      } else if (targets.has(p.name) && !quiet) {
        g.append(s('circle', { class: 'target-dot', cx: p.x, cy: p.y, r: r * 0.35 }));
      }
      if (p.name === last) g.append(s('circle', { class: 'last', cx: p.x, cy: p.y, r: r * 0.3 }));
      if (dead.has(p.name)) {
        g.append(s('path', { class: 'dead-mark', d: `M${p.x - r / 2},${p.y - r / 2}l${r},${r}`
          + `M${p.x + r / 2},${p.y - r / 2}l${-r},${r}` }));
      }
      g.append(s('title', {}, p.name));
      svg.append(g);
    }
    el.replaceChildren(svg, ...(controls ? [controls()] : []));
  }

  return { el, update };
}
