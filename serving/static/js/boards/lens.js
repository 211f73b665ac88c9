// A magnifying lens for boards whose points are too close together for a finger. A touch
// (or pen) tap on a point whose nearest neighbour is drawn closer than MIN_GAP px plays
// nothing; it opens a lens over the board that shows the area round the tap enlarged until the
// points are comfortably apart, and a tap on a point in the lens clicks that point on the board
// (so it means exactly what a click there means). A mouse is precise enough: its clicks go
// straight through. Works on any board whose points are elements with ``data-point`` (the 2-D
// boards) or ``data-point3d`` (the 3-D view) holding a circle of class ``hit``.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import '../i18n/stereo3d.js';

export const MIN_GAP = 36; // px: closer than this, a finger cannot pick one point reliably
const LENS_GAP = 48; // px between points inside the lens
const SELECTOR = '[data-point],[data-point3d]';

const nameOf = (g) => g.dataset.point ?? g.dataset.point3d;
const keyOf = (g) => (g.dataset.point !== undefined ? 'data-point' : 'data-point3d');

/** The centre of a point's hit circle, in screen px. */
function centre(g) {
  const box = g.querySelector('.hit').getBoundingClientRect();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/** How far (px) the nearest other point of the same drawing is from ``g``. */
export function nearestGap(g) {
  const [x, y] = centre(g);
  let best = Infinity;
  for (const other of g.ownerSVGElement.querySelectorAll(SELECTOR)) {
    if (other === g) continue;
    const [ox, oy] = centre(other);
    best = Math.min(best, Math.hypot(ox - x, oy - y));
  }
  return best;
}

/** Give ``host`` (a board's container) the lens; returns {close}. */
export function attachLens(host) {
  let pointerType = null; // of the press that the next click ends
  let lens = null; // the open lens: {overlay, observer}

  host.addEventListener('pointerdown', (ev) => { pointerType = ev.pointerType; }, true);
  host.addEventListener('click', (ev) => {
    const touch = pointerType === 'touch' || pointerType === 'pen';
    pointerType = null; // clicks forwarded from here on are the board's own
    const g = ev.target.closest?.(SELECTOR);
    if (!touch || !g || !host.contains(g)) return;
    const gap = nearestGap(g);
    if (gap >= MIN_GAP) return;
    ev.stopPropagation();
    ev.preventDefault();
    open(g, gap);
  }, true);

  function close() {
    if (!lens) return;
    lens.overlay.remove();
    lens.observer.disconnect();
    document.removeEventListener('keydown', onKey);
    window.removeEventListener('hashchange', close); // another screen
    lens = null;
  }

  function onKey(ev) {
    if (ev.key === 'Escape') close();
  }

  /** The point ``name`` as the board shows it now (the board may have been redrawn). */
  const original = (key, name) => host.querySelector(`[${key}="${CSS.escape(name)}"]`);

  function pick(name, key) {
    close();
    const target = original(key, name);
    if (target) target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
  }

  function open(g, gap) {
    close();
    const key = keyOf(g);
    const name = nameOf(g);
    const overlay = h('div', { class: 'lens-overlay', onclick: (ev) => {
      if (ev.target === overlay) close();
    } });
    const panel = h('div', { class: 'lens', role: 'dialog', 'aria-label': t('lens.title') });
    overlay.append(panel);
    document.body.append(overlay);
    const observer = new MutationObserver(() => draw()); // keep the lens current (AI moves)
    lens = { overlay, observer };
    const side = Math.min(320, window.innerWidth - 24);

    function draw() {
      const at = host.isConnected ? original(key, name) : null;
      if (!at) { close(); return; }
      const svg = at.ownerSVGElement;
      const box = svg.viewBox.baseVal;
      const pxPerUnit = svg.getBoundingClientRect().width / box.width;
      const zoom = Math.max(LENS_GAP / gap, 1.5);
      const span = side / (pxPerUnit * zoom); // user units the lens shows across
      const circle = at.querySelector('.hit');
      const cx = circle.cx.baseVal.value;
      const cy = circle.cy.baseVal.value;
      const copy = svg.cloneNode(true);
      copy.setAttribute('class', `lens-svg ${svg.getAttribute('class')}`.replace('board-svg', ''));
      copy.setAttribute('viewBox', `${cx - span / 2} ${cy - span / 2} ${span} ${span}`);
      copy.style.width = `${side}px`;
      copy.style.height = `${side}px`;
      copy.addEventListener('click', (ev) => {
        const hit = ev.target.closest(SELECTOR);
        if (hit) pick(nameOf(hit), keyOf(hit));
      });
      panel.replaceChildren(copy, h('div', { class: 'lens-bar' },
        h('span', {}, t('lens.help', { point: name })),
        h('button', { type: 'button', class: 'lens-close', onclick: close }, t('lens.close'))));
    }

    draw();
    observer.observe(host, { childList: true, subtree: true });
    document.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', close);
  }

  return { close };
}
