// The 3-D view of the Stereo Go cylinder (the source's 基础结构图, beside the 2-D record view,
// its 对战图): the cylinder in perspective with both poles, its stones, the last move and the
// legal points, drawn from the same session state as the 2-D view. Dragging along the axis
// turns the cylinder about it (the shared turn, so the 2-D view turns with it, snapped to whole
// meridians when the drag ends); dragging across swings its ends to bring either pole forward.
// A click on a point facing the viewer is handed to the 2-D view's point (``onPoint``), so a
// click means exactly what it means there (a move, or marking a dead chain while scoring).

import { s } from '../dom.js';
import { t } from '../i18n.js';
import { classify, movePoint } from './points.js';
import { AXES } from './axes.js';
import {
  MERIDIAN_COUNT, RING_COUNT, frontSpacing, isFront, pointNames, project,
} from './projection.js';
import '../i18n/stereo3d.js';

const SIZE = 100; // screen units per cylinder radius
const YAW_START = 0.6; // radians: NP's end swung forward so its cap and pole show
const YAW_LIMIT = 1.3;
const DRAG_SLOP = 6; // px a pointer moves before a press becomes a drag
const STONE = { X: 'black', O: 'white' };
const ENDS = ['NP', 'SP'];

/** What stands on each point: {name: 'black' | 'white'} from the state's rows. */
function stonesOf(rows) {
  const at = {};
  const put = (name, c) => { if (STONE[c]) at[name] = STONE[c]; };
  put('NP', rows[0]);
  put('SP', rows[rows.length - 1]);
  for (let ring = 1; ring <= RING_COUNT; ring += 1) {
    for (let m = 0; m < MERIDIAN_COUNT; m += 1) put(`${AXES[m]}${ring}`, rows[ring][m]);
  }
  return at;
}

/** The grid's edges: rings (closing Q to A), meridians, and each end ring to its pole. */
function edges() {
  const out = [];
  for (let ring = 1; ring <= RING_COUNT; ring += 1) {
    for (let m = 0; m < MERIDIAN_COUNT; m += 1) {
      const here = `${AXES[m]}${ring}`;
      out.push([here, `${AXES[(m + 1) % MERIDIAN_COUNT]}${ring}`, 'ring']);
      if (ring < RING_COUNT) out.push([here, `${AXES[m]}${ring + 1}`, 'meridian']);
    }
  }
  for (let m = 0; m < MERIDIAN_COUNT; m += 1) {
    out.push(['NP', `${AXES[m]}1`, 'pole']);
    out.push(['SP', `${AXES[m]}${RING_COUNT}`, 'pole']);
  }
  return out;
}

const NAMES = pointNames();
const EDGES = edges();

/**
 * Labels: the poles beyond their ends, and the axis letters A–Q beside the end ring whose pole
 * is turned away (the other end is covered by its cap), the far pole beyond the letters.
 */
function labelsFor(at, unit, lying) {
  const labels = [];
  const along = (d) => (lying ? [d, 0] : [0, d]);
  const farEnd = isFront(at.SP) ? 'NP' : 'SP';
  const outward = farEnd === 'SP' ? 1 : -1;
  const ring = farEnd === 'SP' ? RING_COUNT : 1;
  for (const pole of ENDS) {
    const p = at[pole];
    const sign = pole === 'NP' ? -1 : 1;
    const [dx, dy] = along(sign * unit * (pole === farEnd ? 3 : 1));
    labels.push({ text: pole, x: p.x + dx, y: p.y + dy, size: unit * 0.7,
      cls: `c3d-label${isFront(p) ? '' : ' c3d-far'}` });
  }
  for (let m = 0; m < MERIDIAN_COUNT; m += 1) {
    const p = at[`${AXES[m]}${ring}`];
    if (!isFront(p)) continue;
    const [dx, dy] = along(outward * unit * 0.8);
    labels.push({ text: AXES[m], x: p.x + dx, y: p.y + dy, size: unit * 0.6,
      cls: 'c3d-label c3d-axis' });
  }
  return labels;
}

/**
 * The 3-D view for ``session``: {el, update}. ``turn`` is the shared cylinder turn
 * (js/boards/axes.js); ``onPoint(name)`` plays (or marks) the point as the 2-D view would.
 * ``horizontal()`` says whether to lay the cylinder's axis across the screen (else upright).
 */
export function cylinder3dView(session, turn, onPoint, horizontal) {
  let yaw = YAW_START;
  let rollDrag = 0; // meridians turned by a drag in progress
  let press = null; // {x, y, id, yaw, dragging}
  let swallowClick = false;
  const el = document.createElement('div');
  el.className = 'cylinder3d';
  const svg = s('svg', { class: 'cylinder3d-svg', role: 'img' });
  el.append(svg);
  svg.addEventListener('pointerdown', onDown);
  svg.addEventListener('pointermove', onMove);
  svg.addEventListener('pointerup', onUp);
  svg.addEventListener('pointercancel', onUp);
  svg.addEventListener('click', (ev) => { // the click that ends a drag plays nothing
    if (!swallowClick) return;
    swallowClick = false;
    ev.stopPropagation();
  }, true);

  /** Screen coordinates for the current turn: the axis across, or turned upright (NP above). */
  function placer(isHorizontal) {
    const view = { roll: turn.shift + rollDrag, yaw };
    return (name) => {
      const p = project(name, view);
      const [x, y] = isHorizontal ? [p.x, p.y] : [-p.y, p.x];
      return { ...p, x: x * SIZE, y: y * SIZE };
    };
  }

  /**
   * The drawing's box [left, top, right, bottom] round the projected points, with room for
   * the labels. While a drag goes on it only grows, so the picture keeps its scale under the
   * pointer.
   */
  function frame(at, labels, unit) {
    const xs = [...Object.values(at), ...labels].map((p) => p.x);
    const ys = [...Object.values(at), ...labels].map((p) => p.y);
    const pad = unit * 0.9;
    let box = [Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) + pad,
      Math.max(...ys) + pad];
    if (press && press.dragging && press.box) {
      box = [Math.min(box[0], press.box[0]), Math.min(box[1], press.box[1]),
        Math.max(box[2], press.box[2]), Math.max(box[3], press.box[3])];
    }
    if (press) press.box = box;
    return box;
  }

  function update() {
    const lying = horizontal();
    const place = placer(lying);
    const at = Object.fromEntries(NAMES.map((n) => [n, place(n)]));
    const unit = frontSpacing() * SIZE; // a meridian's width in front
    const labels = labelsFor(at, unit, lying);
    const [x0, y0, x1, y1] = frame(at, labels, unit);
    const view = session.view;
    const rows = session.position.state.board;
    const stones = stonesOf(rows);
    const c = session.humanToPlay ? classify(session.legal) : classify([]); // as points.js
    const last = movePoint(session.position.state.last_move);
    const dead = new Set(view.scoring ? view.scoring.dead : []);
    svg.setAttribute('viewBox', `${x0} ${y0} ${x1 - x0} ${y1 - y0}`);
    svg.dataset.orientation = lying ? 'horizontal' : 'vertical';
    svg.dataset.shift = String(turn.shift);
    svg.setAttribute('aria-label', t('view3d.label'));
    svg.replaceChildren();
    svg.append(s('rect', { class: 'c3d-bg', x: x0, y: y0, width: x1 - x0, height: y1 - y0,
      rx: unit / 2 }));
    const back = s('g', { class: 'c3d-back' });
    const front = s('g', { class: 'c3d-front' });
    for (const [a, b, kind] of EDGES) {
      const [p, q] = [at[a], at[b]];
      // a pole's spokes show with the pole, or with their ring point while the cap is edge-on
      const seen = kind === 'pole' ? isFront(p) || (isFront(q) && p.facing > -0.3)
        : isFront(p) && isFront(q);
      (seen ? front : back).append(s('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y,
        class: `c3d-line c3d-${kind}` }));
    }
    // Points far to near, so a nearer stone covers a farther one.
    const order = [...NAMES].sort((a, b) => at[a].depth - at[b].depth);
    for (const name of order) {
      const p = at[name];
      const r = unit * 0.42 * p.scale * (0.55 + 0.45 * Math.max(0, p.facing));
      const piece = stones[name];
      if (!isFront(p)) {
        if (piece) {
          back.append(s('circle', { class: `stone ${piece} c3d-ghost`, cx: p.x, cy: p.y, r }));
        }
        continue;
      }
      const classes = ['point'];
      if (c.place.has(name)) classes.push('target');
      const g = s('g', { class: classes.join(' '), dataset: { point3d: name },
        onclick: () => onPoint(name) });
      const reach = Math.max(r * 1.15, unit * 0.45);
      g.append(s('circle', { class: 'hit', cx: p.x, cy: p.y, r: reach }));
      if (piece) g.append(s('circle', { class: `stone ${piece}`, cx: p.x, cy: p.y, r }));
      if (name === last) g.append(s('circle', { class: 'last', cx: p.x, cy: p.y, r: r * 0.35 }));
      if (dead.has(name)) {
        g.append(s('path', { class: 'dead-mark', d: `M${p.x - r / 2},${p.y - r / 2}l${r},${r}`
          + `M${p.x + r / 2},${p.y - r / 2}l${-r},${r}` }));
      }
      g.append(s('title', {}, name));
      front.append(g);
    }
    svg.append(back, front);
    for (const lb of labels) {
      svg.append(s('text', {
        class: lb.cls, x: lb.x, y: lb.y, 'font-size': lb.size, translate: 'no' }, lb.text));
    }
  }

  function pxPerUnit() {
    const box = svg.viewBox.baseVal;
    return svg.getBoundingClientRect().width / box.width;
  }

  function onDown(ev) {
    press = { x: ev.clientX, y: ev.clientY, id: ev.pointerId, yaw, dragging: false, box: null };
    swallowClick = false;
  }

  function onMove(ev) {
    if (!press || ev.pointerId !== press.id) return;
    const dx = ev.clientX - press.x;
    const dy = ev.clientY - press.y;
    if (!press.dragging && Math.hypot(dx, dy) < DRAG_SLOP) return;
    if (!press.dragging) {
      press.dragging = true;
      svg.setPointerCapture?.(ev.pointerId);
    }
    const lying = horizontal();
    const meridianPx = frontSpacing() * SIZE * pxPerUnit();
    // Along the meridians: the picture follows the pointer (down lying, left upright, is +1).
    rollDrag = (lying ? dy : -dx) / meridianPx;
    const across = lying ? dx : dy;
    // Across: the front follows the pointer, swinging the end it moves away from forward.
    yaw = Math.max(-YAW_LIMIT, Math.min(YAW_LIMIT, press.yaw + across * 0.006));
    update();
  }

  function onUp(ev) {
    if (!press || ev.pointerId !== press.id) return;
    const wasDragging = press.dragging;
    press = null;
    if (!wasDragging) return;
    swallowClick = ev.type === 'pointerup';
    const steps = Math.round(rollDrag);
    rollDrag = 0;
    if (steps) turn.set(turn.shift + steps); // redraws both views
    else update();
  }

  return { el, update };
}
