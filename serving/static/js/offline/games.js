// The games the page can play by itself, found from data, not listed here:
// offline/models/index.json (written by scripts/export_offline_models.py) names the games
// with in-browser levels, and a game's rules are the module ./<id>.js of this folder, which
// exports them as ``rules``. Both this page and the worker ask here.

const MODELS = new URL('../../offline/models/', import.meta.url);
let listed = null;
const loaded = new Map();

/** Ids of the games with in-browser levels (none when the index cannot be read). */
export function offlineGames() {
  listed ??= fetch(new URL('index.json', MODELS))
    .then((response) => (response.ok ? response.json() : { games: [] }))
    .then((index) => index.games)
    .catch(() => []);
  return listed;
}

/** The in-page rules of ``gameId``, or null when the page cannot play it by itself. */
export async function offlineRules(gameId) {
  if (!(await offlineGames()).includes(gameId)) return null;
  if (!loaded.has(gameId)) loaded.set(gameId, import(`./${gameId}.js`).then((m) => m.rules));
  return loaded.get(gameId);
}
