// The rules dialog of a game: how to play on this page, the rules, and the move notation, in
// the chosen language (texts in js/i18n/rules.js). Reachable from the start screen and from the
// game screen; a language switch while it is open relabels it in place.

import { h } from './dom.js';
import { onLanguageChange, t } from './i18n.js';
import './i18n/rules.js';
import { gameName } from './i18n/common.js';

const items = (key) => h('ul', {}, t(key).split('\n').map((line) => h('li', {}, line)));

function content(game) {
  return [
    h('h2', {}, t('rules.title', { game: gameName(game) })),
    h('h3', {}, t('rules.how')), items(`rules.${game}.how`),
    h('h3', {}, t('rules.rules')), items(`rules.${game}.rules`),
    h('h3', {}, t('rules.notation')), h('p', { class: 'notation' }, t(`rules.${game}.notation`)),
  ];
}

/** Open the rules of ``game`` (a catalogue id) in a modal dialog. */
export function openRules(game) {
  document.getElementById('rules-dialog')?.close();
  const body = h('div', { class: 'rules-body' }, content(game));
  const close = h('button', { value: 'close', class: 'primary', id: 'rules-close' },
    t('dialog.close'));
  const dialog = h('dialog', { id: 'rules-dialog', class: 'rules-dialog', dataset: { game } },
    h('form', { method: 'dialog' }, body, h('div', { class: 'actions' }, close)));
  const stop = onLanguageChange(() => {
    body.replaceChildren(...content(game));
    close.textContent = t('dialog.close');
  });
  dialog.addEventListener('close', () => { stop(); dialog.remove(); });
  document.body.append(dialog);
  dialog.showModal();
}

/** A button that opens the rules of ``game``. */
export function rulesButton(game) {
  return h('button', { type: 'button', class: 'rules-button', id: 'game-rules',
    onclick: () => openRules(game) }, t('rules.button'));
}
