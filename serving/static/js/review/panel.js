// The review after a finished game: GET /v1/sessions/{id}/review (computed once by the
// service; offline games POST their move list), a value graph over the moves and the key
// mistakes; a click on either shows that position (POST /v1/games/{game}/positions) on
// a board drawn the way the game screen draws.

import { h } from '../dom.js';
import { api } from '../api.js';
import { t, onLanguageChange } from '../i18n.js';
import '../i18n/review.js';
import { valueGraph } from './graph.js';
import { markMoves } from '../analysis/overlay.js';

/**
 * A read-only stand-in for ``session`` showing ``position`` after ``moves``: the boards read
 * the session's view, so they draw it unchanged, and nobody can play on it (status "over").
 */
function pastSession(session, moves, position) {
  const past = Object.create(session);
  past.view = { ...session.view, moves, pending: [], position, status: 'over', scoring: null };
  return past;
}

/** The review panel for ``session``; ``makeBoard(session)`` gives a board ({el, update}). */
export function reviewPanel(session, makeBoard) {
  const el = h('div', { class: 'review-panel', id: 'review-panel' });
  let review = null;
  let loading = false;
  let error = null;
  let shown = null;
  let board = null;

  async function open() {
    loading = true;
    error = null;
    show();
    try {
      review = await api(...session.reviewRequest());
    } catch (err) {
      error = err.message;
    }
    loading = false;
    show();
  }

  /** Show the position after ``ply`` moves; for a mistake, ring its played and preferred move. */
  async function pick(ply, mistake = null) {
    const moves = session.view.moves.slice(0, ply);
    try {
      const position = await api('POST', `/v1/games/${session.view.game}/positions`,
        { config: session.view.config || {}, moves });
      shown = ply;
      board = makeBoard(pastSession(session, moves, position));
      board.update();
      if (mistake) {
        markMoves(board.el, [{ move: mistake.move, cls: 'played-move' },
          { move: mistake.preferred, cls: 'preferred-move' }]);
      }
    } catch (err) {
      error = err.message;
    }
    show();
  }

  function show() {
    const parts = [h('h3', {}, t('review.title'))];
    if (!review) {
      parts.push(h('button', { type: 'button', id: 'review-open', disabled: loading,
        onclick: open }, loading ? t('review.loading') : t('review.open')));
    }
    if (error) parts.push(h('p', { class: 'review-error' }, error));
    if (review) {
      const seat = session.seats[0];
      parts.push(h('p', { class: 'graph-caption' }, t('review.graph', { seat })),
        valueGraph(review.values, { shown, mistakes: review.mistakes, onPick: pick }),
        h('h4', {}, t('review.mistakes')));
      const list = h('ol', { class: 'mistakes', id: 'mistakes' });
      for (const m of review.mistakes) {
        list.append(h('li', { dataset: { ply: String(m.ply) } },
          h('a', { href: '#', onclick: (ev) => { ev.preventDefault(); pick(m.ply, m); } },
            t('review.mistake', { number: m.ply + 1, player: session.seats[m.player] ?? m.player,
              move: m.move, preferred: m.preferred, loss: m.loss.toFixed(2) }))));
      }
      parts.push(review.mistakes.length ? list : h('p', {}, t('review.none')));
    }
    if (board && shown !== null) {
      parts.push(h('p', { class: 'review-shown', dataset: { ply: String(shown) } },
        shown ? t('review.position', { ply: shown }) : t('review.start')),
      h('div', { class: 'review-board' }, board.el));
    }
    el.replaceChildren(...parts);
  }

  const unlisten = onLanguageChange(show);
  show();
  return { el, stop: unlisten, get finished() { return session.view.status === 'over'; } };
}
