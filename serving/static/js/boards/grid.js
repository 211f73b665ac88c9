// The generic grid board: draws any game whose position says {kind: "grid"} (envs/boards.py:
// rows x cols cells, each empty or holding a player's piece) and turns clicks into the game's
// moves, so a new grid game is playable with no web code. Click modes: "cell" plays the move
// named like the cell (with "p-q" steps and "xp" removals, as on every point board),
// "column" plays the move named like the column's label (drop games: Connect Four).

import { s } from '../dom.js';
import { showError } from '../errors.js';
import { t } from '../i18n.js';
import '../i18n/boards.js';
import '../i18n/generic.js';
import { gameName } from '../i18n/common.js';
import { classify, clickMeaning } from './points.js';

const D = 60; // cell size in SVG units
const M = 30; // margin for the coordinates

/** A grid board for ``session``: {el, update}. */
export function gridBoard(session) {
  let selected = null; // the cell a step starts from, in "cell" mode
  const el = document.createElement('div');
  el.className = 'grid-board';

  async function play(move) {
    selected = null;
    try {
      await session.move(move);
    } catch (err) {
      showError(err);
      update();
    }
  }

  function clickCell(name, legal) {
    const meaning = clickMeaning(legal, selected, name);
    if (meaning.move) play(meaning.move);
    else {
      selected = meaning.selected;
      update();
    }
  }

  function update() {
    const board = session.position.board;
    const byColumn = board.click === 'column';
    const moves = session.humanToPlay ? session.legal : [];
    const legal = classify(byColumn ? [] : moves);
    if (selected && !legal.steps.has(selected)) selected = null;
    const targets = selected ? new Set(legal.steps.get(selected).keys()) : legal.place;
    const columns = new Set(byColumn ? moves : []);
    const marked = new Set(board.highlight || []);
    const width = 2 * M + board.cols * D;
    const height = 2 * M + board.rows * D;
    const svg = s('svg', {
      class: 'board-svg', viewBox: `0 0 ${width} ${height}`, role: 'img',
      'aria-label': t('board.label', { game: gameName(session.view.game) }),
    });
    svg.append(s('rect', { class: 'board-bg', x: 0, y: 0, width, height, rx: 8 }));
    board.row_labels.forEach((label, r) => svg.append(s('text',
      { class: 'coord', x: M / 2, y: M + (r + 0.5) * D }, label)));
    board.col_labels.forEach((label, c) => svg.append(s('text',
      { class: 'coord', x: M + (c + 0.5) * D, y: height - M / 2 }, label)));
    for (let c = 0; c < board.cols; c += 1) {
      const label = board.col_labels[c];
      const column = s('g', {
        class: `grid-column${columns.has(label) ? ' target' : ''}`, dataset: { column: label },
        onclick: () => { if (columns.has(label)) play(label); },
      });
      for (let r = 0; r < board.rows; r += 1) {
        column.append(cell(board, r, c, { legal, targets, marked, byColumn }, clickCell));
      }
      column.append(s('title', {}, t('board.column', { column: label })));
      svg.append(column);
    }
    el.replaceChildren(svg);
  }

  function cell(board, r, c, { legal, targets, marked, byColumn }, onClick) {
    const name = board.col_labels[c] + board.row_labels[r];
    const piece = board.cells[r][c];
    const x = M + c * D;
    const y = M + r * D;
    const classes = ['grid-cell'];
    if (targets.has(name)) classes.push('target');
    if (legal.steps.has(name)) classes.push('movable');
    if (legal.remove.has(name)) classes.push('removable');
    if (name === selected) classes.push('selected');
    const g = s('g', { class: classes.join(' '), dataset: { cell: name },
      onclick: byColumn ? null : () => onClick(name, legal) });
    g.append(s('rect', { class: 'cell-bg', x, y, width: D, height: D }));
    const cx = x + D / 2;
    const cy = y + D / 2;
    if (piece !== null) {
      const seat = session.seats[piece] || '';
      g.append(s('circle', { class: `stone player-${piece} ${seat}`, cx, cy, r: D * 0.4 }));
    } else if (targets.has(name)) {
      g.append(s('circle', { class: 'target-dot', cx, cy, r: D * 0.14 }));
    } else {
      g.append(s('circle', { class: 'hole', cx, cy, r: D * 0.4 }));
    }
    if (marked.has(name)) g.append(s('circle', { class: 'last', cx, cy, r: D * 0.12 }));
    return g;
  }

  return { el, update };
}
