// A confirmation dialog (<dialog>) that resolves to true or false: used before requests that
// cannot be taken back (arbitration, resignation).

import { h } from './dom.js';
import { t } from './i18n.js';
import './i18n/common.js';

export function askConfirm(lines, { ok = t('dialog.ok'), cancel = t('dialog.cancel'),
  id = 'confirm-dialog' } = {}) {
  return new Promise((resolve) => {
    const dialog = h('dialog', { id, class: 'confirm-dialog' },
      h('form', { method: 'dialog' },
        lines.map((line, i) => (i === 0 ? h('h3', {}, line) : h('p', {}, line))),
        h('div', { class: 'actions' },
          h('button', { value: 'cancel', class: 'dialog-cancel' }, cancel),
          h('button', { value: 'ok', class: 'primary dialog-ok' }, ok))));
    dialog.addEventListener('close', () => {
      resolve(dialog.returnValue === 'ok');
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}
