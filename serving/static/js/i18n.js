// Chinese and English labels for the whole page. Each screen keeps its own strings in
// js/i18n/<screen>.js ({en: {...}, zh: {...}}, registered with addStrings at import), so
// screens add labels without touching each other's tables; t(key) looks a label up in the
// chosen language, falling back to English and then to the key itself.

const STORAGE_KEY = 'qizero.lang';
export const LANGUAGES = ['en', 'zh'];
const tables = { en: {}, zh: {} };
const listeners = new Set();
let current = initialLanguage();

function initialLanguage() {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (LANGUAGES.includes(saved)) return saved;
  } catch { /* storage disabled: fall through to the browser's language */ }
  const wanted = (navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language || 'en']);
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES.includes(base)) return base;
  }
  return 'en';
}

/** Register a screen's labels: {en: {key: text}, zh: {key: text}}. */
export function addStrings(strings) {
  for (const language of LANGUAGES) Object.assign(tables[language], strings[language] || {});
}

/** The label for key in the current language; {name} placeholders are filled from params. */
export function t(key, params = {}) {
  const text = tables[current][key] ?? tables.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** The label for key if a table has it, else ``fallback`` (data shown as it is: "9x9"). */
export function tOr(key, fallback, params = {}) {
  return key in tables.en || key in tables[current] ? t(key, params) : String(fallback);
}

/** Every label registered so far in ``lang`` (a copy): what the browser tests hold the page's
 * visible text against. */
export function labels(lang) {
  return { ...tables[lang] };
}

export function language() {
  return current;
}

/** Switch language, remember it, and tell every listener (screens re-render). */
export function setLanguage(next) {
  if (!LANGUAGES.includes(next) || next === current) return;
  current = next;
  try { localStorage.setItem(STORAGE_KEY, next); } catch { /* not remembered, still switched */ }
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  for (const listener of listeners) listener(next);
}

/** Call fn(language) after every switch; returns a function that stops the calls. */
export function onLanguageChange(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

document.documentElement.lang = current === 'zh' ? 'zh-CN' : 'en';
