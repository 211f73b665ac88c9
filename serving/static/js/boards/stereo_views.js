// Stereo Go's two views of one cylinder: the 3-D view (基础结构图) beside the 2-D record view
// (对战图), switchable at any time (remembered in this browser), the axis bar that moves any axis
// to any position in one step, and the lens that makes a tap on a phone land on its point.
// Both views draw the same session state and share one turn, so a move or a turn made in
// either shows in both.

import { h } from '../dom.js';
import { onLanguageChange, t } from '../i18n.js';
import { axisBar } from './axes.js';
import { cylinder3dView } from './cylinder3d.js';
import { attachLens } from './lens.js';
import '../i18n/stereo3d.js';

const STORAGE_KEY = 'qizero.stereoGo.view3d';
// Wide enough for the two views side by side (style.css, .stereo-views.with-3d): the 3-D view
// then stands upright in its column; stacked above the 2-D view it lies across.
const SIDE_BY_SIDE = '(min-width: 1200px)';

function remembered() {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'on';
  } catch {
    return false; // storage disabled: the record view alone, as the source's play view
  }
}

function remember(on) {
  try { localStorage.setItem(STORAGE_KEY, on ? 'on' : 'off'); } catch { /* not remembered */ }
}

/**
 * Wrap the 2-D cylinder board ({el, update}) drawn with ``turn`` in the two-view screen:
 * {el, update}. ``turn`` is the cylinderTurn() the 2-D board draws with.
 */
export function stereoGoViews(session, board2d, turn) {
  let show3d = remembered();
  const lying = () => !window.matchMedia(SIDE_BY_SIDE).matches;
  const forward = (name) => { // a 3-D click means what a click on the 2-D point means
    const target = board2d.el.querySelector(`[data-point="${CSS.escape(name)}"]`);
    if (target) target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  };
  const view3d = cylinder3dView(session, turn, forward, lying);
  const bar = axisBar(turn);
  const toggle = h('button', { type: 'button', class: 'view3d-toggle', onclick: () => {
    show3d = !show3d;
    remember(show3d);
    update();
  } });
  const help = h('p', { class: 'help view3d-help' });
  const pane3d = h('div', { class: 'view3d-pane' }, view3d.el, help);
  const panes = h('div', { class: 'stereo-panes' }, pane3d, board2d.el);
  const el = h('div', { class: 'stereo-views' }, h('div', { class: 'stereo-toolbar' }, toggle),
    panes, bar.el);
  attachLens(el);
  let wasLying = lying();

  function update() {
    el.classList.toggle('with-3d', show3d);
    pane3d.hidden = !show3d;
    toggle.textContent = show3d ? t('view3d.hide') : t('view3d.show');
    toggle.setAttribute('aria-pressed', show3d ? 'true' : 'false');
    help.textContent = t('view3d.help');
    board2d.update();
    if (show3d) view3d.update();
    bar.update();
  }

  const stopTurn = turn.onChange(update);
  const stopLanguage = onLanguageChange(() => {
    if (el.isConnected) update();
  });
  function onResize() {
    if (!el.isConnected) { // the game screen was left
      window.removeEventListener('resize', onResize);
      stopTurn();
      stopLanguage();
    } else if (show3d && lying() !== wasLying) {
      wasLying = lying();
      view3d.update();
    }
  }
  window.addEventListener('resize', onResize);

  return { el, update };
}
