// Tiny element builders: the client has no framework, so screens are plain functions that
// build DOM (and SVG) trees from the session view and re-build them when it changes.

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(el, attrs, children, isSvg) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'text') {
      el.textContent = value;
    } else if (key === 'dataset') {
      Object.assign(el.dataset, value);
    } else if (!isSvg && (key === 'value' || key === 'checked' || key === 'disabled')) {
      el[key] = value;
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** An HTML element: h('button', {class: 'x', onclick: f}, 'label'). */
export function h(tag, attrs = {}, ...children) {
  return fill(document.createElement(tag), attrs, children, false);
}

/** An SVG element, same calling convention as h(). */
export function s(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children, true);
}

/** "x1,y1 x2,y2 ..." for an SVG polygon. */
export function points(poly) {
  return poly.map(([x, y]) => `${x},${y}`).join(' ');
}

export function centroid(poly) {
  const n = poly.length;
  return [poly.reduce((a, p) => a + p[0], 0) / n, poly.reduce((a, p) => a + p[1], 0) / n];
}
