// The games the page can play by itself, found from data, not listed here:
// offline/models/index.json (written by scripts/export_offline_models.py) lists the entries
// with in-browser levels, {key, game, options}: ``key`` names the folder of the entry's models
// (the game id, then the options key of a non-default configuration: ``stereo_go-board-9x9``),
// ``options`` the game's whole configuration those levels play. A game's rules are the module
// ./<game>.js of this folder, which exports ``rules``: a factory of its rules engine for given
// options (Stereo Go's cylinder and 9x9 board are one module, two entries). Both this page and
// the worker ask here.

const MODELS = new URL('../../offline/models/', import.meta.url);
let listed = null;
const built = new Map(); // key -> the rules of that entry (a promise)

/** The entries with in-browser levels (none when the index cannot be read). */
export function offlineEntries() {
  listed ??= fetch(new URL('index.json', MODELS))
    .then((response) => (response.ok ? response.json() : { games: [] }))
    .then((index) => index.games)
    .catch(() => []);
  return listed;
}

/** The entry that plays ``gameId`` with the options ``config`` (every option of the entry has
 * the chosen value; an option not chosen takes any), or null. */
export async function offlineEntry(gameId, config = {}) {
  const same = (chosen, value) => chosen === undefined || String(chosen) === String(value);
  const entries = await offlineEntries();
  return entries.find((e) => e.game === gameId
    && Object.entries(e.options).every(([name, value]) => same(config[name], value))) ?? null;
}

/** The in-page rules of the entry ``key``, or null when the page has no such entry. */
export async function offlineRules(key) {
  const entry = (await offlineEntries()).find((e) => e.key === key);
  if (!entry) return null;
  if (!built.has(key)) {
    built.set(key, import(`./${entry.game}.js`).then((m) => m.rules(entry.options)));
  }
  return built.get(key);
}
