// The page around the screens: the top bar's labels (index.html marks them with data-i18n and
// data-i18n-aria) and its language switch (中文 / English). Screens re-render themselves on
// onLanguageChange; this module only relabels the static page.

import { language, onLanguageChange, setLanguage, t } from './i18n.js';
import './i18n/common.js';

function relabel() {
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-aria]')) {
    el.setAttribute('aria-label', t(el.dataset.i18nAria));
  }
  for (const button of document.querySelectorAll('#lang-switch [data-lang]')) {
    const chosen = button.dataset.lang === language();
    button.classList.toggle('chosen', chosen);
    button.setAttribute('aria-pressed', String(chosen));
  }
}

/** Label the static page in the chosen language and wire the switch's buttons. */
export function installChrome() {
  for (const button of document.querySelectorAll('#lang-switch [data-lang]')) {
    button.addEventListener('click', () => setLanguage(button.dataset.lang));
  }
  onLanguageChange(relabel);
  relabel();
}
