// Where the current session lives between page loads: localStorage and the URL hash
// (#session=ID&token=OWNER). The hash wins, so a copied link opens that game; the token is in
// the hash, never in a query string, so it is not sent to the server with page requests.

const KEY = 'qizero.session';

function fromHash() {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const id = params.get('session');
  const token = params.get('token');
  if (id && params.get('ladder') === '1') return { id, ladder: true }; // the player's token
  return id && token ? { id, token } : null;
}

/** The JSON kept under ``key`` in localStorage when ``valid(it)``, else null (also when
 * storage is unreadable). */
export function readStored(key, valid) {
  try {
    const saved = JSON.parse(localStorage.getItem(key) || 'null');
    return saved && valid(saved) ? saved : null;
  } catch {
    return null;
  }
}

/** The saved session {id, token} (or {id, ladder: true}), or null. */
export function readSaved() {
  return fromHash() || readStored(KEY, (s) => typeof s.id === 'string'
    && (typeof s.token === 'string' || s.ladder === true));
}

function keep(saved, hash) {
  localStorage.setItem(KEY, JSON.stringify(saved));
  if (location.hash !== hash) history.replaceState(null, '', hash);
}

export function save(id, token) {
  keep({ id, token }, `#session=${encodeURIComponent(id)}&token=${encodeURIComponent(token)}`);
}

/** A ladder game: acted in with the player's token (js/ladder/account.js), kept out of the URL. */
export function saveLadder(id) {
  keep({ id, ladder: true }, `#session=${encodeURIComponent(id)}&ladder=1`);
}

export function forget() {
  localStorage.removeItem(KEY);
  history.replaceState(null, '', location.pathname);
}

// The TriGolden opening angle only turns the picture (docs/rules/trigolden.md, "Turns"): the API
// stores no angle, so the screen that set it keeps it, per session and game of the match.
const angleKey = (id, game) => `qizero.angle.${id}.${game}`;

export function readAngle(id, game) {
  const v = Number(localStorage.getItem(angleKey(id, game)));
  return Number.isFinite(v) ? v : 0;
}

export function saveAngle(id, game, degrees) {
  localStorage.setItem(angleKey(id, game), String(degrees));
}
