// The error bar: every failed API call and every refusal of the page ends here as a readable
// sentence in the chosen language. The bar keeps the error it shows, so a language switch
// says it again in the other language.

import { onLanguageChange, t } from './i18n.js';
import './i18n/errors.js';

const bar = () => document.getElementById('error');
let shown = null; // the error on the bar, while it is open

/** An error the page itself reports: a label key and its parameters, said through t() when
 * shown (so it follows the language switch) rather than a sentence fixed when thrown. A
 * parameter that is itself a label is given as a function (``{seat: () => seatName(s)}``),
 * called each time the sentence is said. */
export class PageError extends Error {
  constructor(key, params = {}) {
    super(key);
    this.key = key;
    this.params = params;
    this.message = this.describe();
  }

  describe() {
    const filled = Object.fromEntries(Object.entries(this.params)
      .map(([name, value]) => [name, typeof value === 'function' ? value() : value]));
    return t(this.key, filled);
  }
}

/** The sentence for ``err``: its own describe() (PageError, ApiError) in the current
 * language, else its message as given (callers translate theirs with t()). */
function sentence(err) {
  if (err && typeof err.describe === 'function') return err.describe();
  return err && err.message ? err.message : String(err);
}

export function showError(err) {
  shown = err;
  document.getElementById('error-text').textContent = sentence(err);
  bar().hidden = false;
}

export function clearError() {
  shown = null;
  bar().hidden = true;
}

/** Run ``action`` (a user's click) with the error bar: its answer, or null once shown. */
export async function attempt(action) {
  clearError();
  try {
    return await action();
  } catch (err) {
    showError(err);
    return null;
  }
}

export function installErrorBar() {
  document.getElementById('error-close').addEventListener('click', clearError);
  onLanguageChange(() => { if (shown !== null) showError(shown); });
}
