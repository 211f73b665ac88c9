// Axis rotation of the Stereo Go cylinder (seed: 立体围棋棋盘可以作轴向转动 … 每一个轴可任意移到另
// 16个轴的位置 — the board turns about its axis; each of the axes A–Q can be moved to the place of
// any of the other 16). Turning is a way of looking, not a move: the 17 rotations are symmetries
// of the board (docs/rules/stereo-go.md), so the engine and the service know nothing of them and no
// request is made. One shared turn drives the 2-D record view and the 3-D view, and an axis is
// moved to any position in one step.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import '../i18n/stereo3d.js';

export const AXES = 'ABCDEFGHIJKLMNOPQ';
const N = AXES.length;
const mod = (k) => ((k % N) + N) % N;

/**
 * The cylinder's turn: ``shift`` = the meridian drawn at position 0 (the 2-D view's first
 * column, or its bottom row lying down). ``onChange(fn)`` is told after every change.
 */
export function cylinderTurn() {
  const listeners = new Set();
  const turn = {
    shift: 0,
    /** The axis (letter) drawn at position ``k`` (0 … 16). */
    axisAt: (k) => AXES[mod(k + turn.shift)],
    /** The position (0 … 16) where ``axis`` is drawn. */
    positionOf: (axis) => mod(AXES.indexOf(axis) - turn.shift),
    set(shift) {
      const next = mod(shift);
      if (next === turn.shift) return;
      turn.shift = next;
      for (const fn of listeners) fn();
    },
    /** Move ``axis`` to position ``k`` in one step (the others keep their order round it). */
    moveAxis(axis, k) {
      turn.set(AXES.indexOf(axis) - k);
    },
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
  return turn;
}

/**
 * The axis bar: the 17 positions in drawing order, each showing the axis there. Tap an axis,
 * then any other position, and it moves there; or drag it there. {el, update}.
 */
export function axisBar(turn) {
  let selected = null; // an axis letter
  let dragFrom = null; // the position a drag started on
  let dragged = false;
  const el = h('div', { class: 'axis-bar' });

  const slotAt = (x, y) => document.elementFromPoint(x, y)?.closest('.axis-slot') ?? null;

  function choose(k) {
    const axis = turn.axisAt(k);
    if (selected === null || selected === axis) {
      selected = selected === axis ? null : axis;
      update();
    } else {
      const moving = selected;
      selected = null;
      turn.moveAxis(moving, k); // redraws through the turn's listeners
      update();
    }
  }

  function onDown(ev, k) {
    dragFrom = k;
    dragged = false;
    const slot = ev.currentTarget; // a finger's pointer is captured: free it to find other slots
    if (slot.hasPointerCapture(ev.pointerId)) slot.releasePointerCapture(ev.pointerId);
  }

  function onMove(ev) {
    if (dragFrom === null) return;
    const slot = slotAt(ev.clientX, ev.clientY);
    for (const s of el.querySelectorAll('.axis-slot.drop')) s.classList.remove('drop');
    if (slot && Number(slot.dataset.position) !== dragFrom) {
      dragged = true;
      slot.classList.add('drop');
    }
  }

  function onUp(ev) {
    if (dragFrom === null) return;
    const from = dragFrom;
    dragFrom = null;
    const slot = slotAt(ev.clientX, ev.clientY);
    const to = slot ? Number(slot.dataset.position) : from;
    for (const s of el.querySelectorAll('.axis-slot.drop')) s.classList.remove('drop');
    const moved = dragged && to !== from;
    dragged = false;
    if (!moved) return; // a tap: its click follows on the same button, so keep the buttons
    selected = null;
    turn.moveAxis(turn.axisAt(from), to);
    update();
  }

  el.addEventListener('pointermove', onMove);
  el.addEventListener('pointerup', onUp);
  el.addEventListener('pointercancel', () => {
    dragFrom = null;
    dragged = false;
    update();
  });

  function update() {
    const help = selected === null ? t('axes.help') : t('axes.selected', { axis: selected });
    const slots = [];
    for (let k = 0; k < N; k += 1) {
      const axis = turn.axisAt(k);
      slots.push(h('button', {
        type: 'button', class: `axis-slot${axis === selected ? ' selected' : ''}`,
        dataset: { position: k, axis }, 'aria-pressed': axis === selected ? 'true' : 'false',
        title: t('axes.slotTitle', { axis, position: k + 1 }),
        onpointerdown: (ev) => onDown(ev, k),
        onclick: () => choose(k),
      }, h('span', { translate: 'no' }, axis))); // a name of the notation: the same in any language
    }
    el.replaceChildren(h('span', { class: 'axis-help' }, help),
      h('div', { class: 'axis-slots', role: 'group', 'aria-label': t('axes.title') }, slots));
  }

  update();
  return { el, update };
}
