// The board of last resort: a game whose position names a kind this page cannot draw shows
// the engine's plain-text picture (position.text) and offers its legal moves as buttons, so
// every game on the Game protocol can be played in the page.

import { h } from '../dom.js';
import { showError } from '../errors.js';
import { t } from '../i18n.js';
import '../i18n/generic.js';

/** A text board for ``session``: {el, update}. */
export function textBoard(session) {
  const el = h('div', { class: 'text-board' });

  function update() {
    const moves = session.humanToPlay ? session.legal : [];
    const buttons = moves.map((move) => h('button', {
      type: 'button', class: 'move-button', dataset: { move },
      onclick: () => session.move(move).catch(showError),
    }, move));
    el.replaceChildren(
      h('pre', { class: 'board-text' }, session.position.text),
      moves.length ? h('p', { class: 'help' }, t('board.textMoves')) : null,
      h('div', { class: 'move-buttons' }, ...buttons));
  }

  return { el, update };
}
