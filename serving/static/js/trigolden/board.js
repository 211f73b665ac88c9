// The TriGolden board: pieces as SVG polygons from the API's drawing data, the blue dot on the
// tapped target, translucent green previews, and the toolbar that a tap on the empty board
// swaps with the direction controls (pan and zoom). On the opening turn a drag on the board
// turns the picture (docs/rules/trigolden.md: the opening angle only turns the whole picture).

import { centroid, h, points, s } from '../dom.js';
import { t } from '../i18n.js';
import '../i18n/trigolden.js';

const VIEW = 100; // the viewBox is -VIEW..VIEW both ways

/** Screen-space picture of the world: y up -> down, the opening piece's centroid at the
 * origin, turned by the opening angle (degrees, clockwise on screen as SVG's rotate()). */
function toScreen(model, [x, y]) {
  const a = (model.angle * Math.PI) / 180;
  const dx = x - model.centre[0];
  const dy = -(y - model.centre[1]);
  return [dx * Math.cos(a) - dy * Math.sin(a), dx * Math.sin(a) + dy * Math.cos(a)];
}

/** Scale and offset that fit every piece and preview in the view (before the user's zoom). */
function fit(model) {
  const polys = [...model.pieces.map((p) => p.polygon), ...model.previews.map((p) => p.polygon)];
  let [x0, y0, x1, y1] = [-1, -1, 1, 1];
  for (const poly of polys) {
    for (const v of poly) {
      const [x, y] = toScreen(model, v);
      [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
    }
  }
  const k = (2 * VIEW * 0.9) / Math.max(x1 - x0 + 1.2, y1 - y0 + 1.2, 5);
  return { k, offset: [-k * (x0 + x1) / 2, -k * (y0 + y1) / 2] };
}

/**
 * ``handlers``: onPiece(index), onPreview(move), onRotate(deg, done), onArbitration().
 * ``update(model)`` redraws: {pieces: [{index, seatClass, polygon, pending, mine}], target,
 * previews: [{move, polygon}], structures, centre, angle, canRotate, canArbitrate}.
 */
export function tgBoard(handlers) {
  let mode = 'toolbar'; // or 'direction'
  let zoom = 1;
  let pan = [0, 0];
  let showNumbers = false;
  let showStructures = true;
  let model = null;
  let drag = null;
  let suppressClick = false;

  const svg = s('svg', { class: 'tg-svg', viewBox: `${-VIEW} ${-VIEW} ${2 * VIEW} ${2 * VIEW}`,
    role: 'img', 'aria-label': t('tg.board') });
  const bar = h('div', { class: 'tg-bar' });
  const el = h('div', { class: 'tg-board', dataset: { mode } }, svg, bar);

  const clickGuard = (fn) => (ev) => {
    ev.stopPropagation();
    if (suppressClick) return;
    fn(ev);
  };

  function toggleMode() {
    mode = mode === 'toolbar' ? 'direction' : 'toolbar';
    draw();
  }

  function button(cls, label, title, onclick, disabled = false) {
    return h('button', { type: 'button', class: cls, title, 'aria-label': title, disabled,
      onclick: (ev) => { ev.stopPropagation(); onclick(); } }, label);
  }

  function drawBar() {
    const move = (dx, dy) => () => { pan = [pan[0] + dx, pan[1] + dy]; draw(); };
    const scale = (f) => () => { zoom = Math.min(8, Math.max(0.2, zoom * f)); draw(); };
    const fit = () => { zoom = 1; pan = [0, 0]; draw(); };
    if (mode === 'toolbar') {
      bar.replaceChildren(h('div', { class: 'tg-toolbar', role: 'toolbar' },
        button('tb-fit', '⤢', t('tg.fit'), fit),
        button(`tb-numbers${showNumbers ? ' on' : ''}`, '#', t('tg.numbers'),
          () => { showNumbers = !showNumbers; draw(); }),
        button(`tb-structures${showStructures ? ' on' : ''}`, '✦',
          t('tg.structures'), () => { showStructures = !showStructures; draw(); }),
        button('tb-arbitration', t('tg.arbitrate'), t('tg.arbitrateTitle'),
          () => handlers.onArbitration(), !(model && model.canArbitrate))));
    } else {
      bar.replaceChildren(h('div', { class: 'tg-direction', role: 'toolbar' },
        button('dir-up', '↑', t('tg.panUp'), move(0, 12)),
        button('dir-left', '←', t('tg.panLeft'), move(12, 0)),
        button('dir-right', '→', t('tg.panRight'), move(-12, 0)),
        button('dir-down', '↓', t('tg.panDown'), move(0, -12)),
        button('dir-in', '+', t('tg.zoomIn'), scale(1.25)),
        button('dir-out', '−', t('tg.zoomOut'), scale(0.8)),
        button('dir-fit', '⤢', t('tg.fitShort'), fit)));
    }
  }

  function draw() {
    el.dataset.mode = mode;
    svg.setAttribute('aria-label', t('tg.board')); // in the language chosen now
    drawBar();
    if (!model) return;
    const [cx, cy] = model.centre;
    const f = fit(model);
    const k = f.k * zoom;
    // world (y up) -> screen: flip y, opening piece's centroid at the origin, turn, zoom and
    // centre the whole picture, then the user's pan
    const world = s('g', { class: 'tg-world', transform:
      `translate(${pan[0] + f.offset[0] * zoom} ${pan[1] + f.offset[1] * zoom}) scale(${k}) `
      + `rotate(${model.angle}) translate(${-cx} ${cy}) scale(1 -1)` });
    for (const p of model.pieces) {
      const cls = ['tg-piece', p.seatClass, p.pending ? 'pending' : '', p.mine ? 'mine' : 'opp',
        p.index === model.target ? 'targeted' : ''].filter(Boolean).join(' ');
      world.append(s('polygon', { class: cls, points: points(p.polygon),
        dataset: { piece: String(p.index) }, onclick: clickGuard(() => handlers.onPiece(p.index)) },
      s('title', {}, `#${p.index} ${p.kind}${p.flipped ? "'" : ''} (${p.seat})`)));
    }
    for (const pv of model.previews) {
      world.append(s('polygon', { class: 'tg-preview', points: points(pv.polygon),
        dataset: { move: pv.move }, onclick: clickGuard(() => handlers.onPreview(pv.move)) },
      s('title', {}, pv.move)));
    }
    const labelScale = 1 / k;
    const label = (x, y, text, cls) => s('text', { class: cls,
      transform: `translate(${x} ${y}) scale(${labelScale} ${-labelScale}) rotate(${-model.angle})`,
    }, text);
    if (showNumbers) {
      for (const p of model.pieces) {
        const [x, y] = centroid(p.polygon);
        world.append(label(x, y, String(p.index), 'tg-number'));
      }
    }
    if (showStructures) {
      for (const st of model.structures) {
        world.append(s('circle', { class: 'tg-structure', cx: st.point[0], cy: st.point[1],
          r: 3 / k }), label(st.point[0], st.point[1] + 6 / k, String(st.points), 'tg-points'));
      }
    }
    if (model.target !== null) {
      const t = model.pieces.find((p) => p.index === model.target);
      if (t) {
        const [x, y] = centroid(t.polygon);
        world.append(s('circle', { class: 'tg-target-dot', cx: x, cy: y, r: 3.2 / k }));
      }
    }
    const bg = s('rect', { class: 'tg-bg', x: -VIEW * 4, y: -VIEW * 4, width: VIEW * 8,
      height: VIEW * 8, onclick: clickGuard(toggleMode) });
    svg.replaceChildren(bg, world);
    if (model.canRotate) svg.classList.add('rotatable');
    else svg.classList.remove('rotatable');
  }

  // ---------------------------------------------------------------- dragging: turn or pan
  const angleAt = (ev) => {
    const box = svg.getBoundingClientRect();
    return (Math.atan2(ev.clientY - (box.top + box.height / 2),
      ev.clientX - (box.left + box.width / 2)) * 180) / Math.PI;
  };
  svg.addEventListener('pointerdown', (ev) => {
    if (!model) return;
    drag = { x: ev.clientX, y: ev.clientY, moved: false, angle0: model.angle, at0: angleAt(ev),
      pan0: pan };
    suppressClick = false;
  });
  svg.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    if (!drag.moved && Math.hypot(ev.clientX - drag.x, ev.clientY - drag.y) < 5) return;
    if (!drag.moved) svg.setPointerCapture(ev.pointerId);
    drag.moved = true;
    if (model.canRotate) {
      const deg = (((drag.angle0 + angleAt(ev) - drag.at0) % 360) + 360) % 360;
      handlers.onRotate(deg, false);
    } else {
      const box = svg.getBoundingClientRect();
      const unit = (2 * VIEW) / Math.min(box.width, box.height);
      pan = [drag.pan0[0] + (ev.clientX - drag.x) * unit, drag.pan0[1] + (ev.clientY - drag.y) * unit];
      draw();
    }
  });
  const endDrag = () => {
    if (drag && drag.moved) {
      suppressClick = true; // the click that ends a drag is not a tap
      setTimeout(() => { suppressClick = false; }, 0);
      if (model.canRotate) handlers.onRotate(model.angle, true);
    }
    drag = null;
  };
  svg.addEventListener('pointerup', endDrag);
  svg.addEventListener('pointercancel', endDrag);
  svg.addEventListener('wheel', (ev) => {
    ev.preventDefault();
    zoom = Math.min(8, Math.max(0.2, zoom * (ev.deltaY < 0 ? 1.1 : 1 / 1.1)));
    draw();
  }, { passive: false });

  return {
    el,
    update(next) {
      model = next;
      draw();
    },
  };
}
