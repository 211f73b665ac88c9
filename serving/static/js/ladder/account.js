// The ladder account kept in this browser: {id, token, name} in localStorage. The token is the
// player's API token (docs/ladder.md): it is shown once at registration and is the only way to
// act as the player, so another browser signs in by pasting the id and the token.

const KEY = 'qizero.ladder.account';

export function readAccount() {
  try {
    const a = JSON.parse(localStorage.getItem(KEY) || 'null');
    if (a && typeof a.id === 'string' && typeof a.token === 'string') return a;
  } catch {
    /* unreadable storage: signed out */
  }
  return null;
}

export function saveAccount(account) {
  localStorage.setItem(KEY, JSON.stringify(account));
}

export function forgetAccount() {
  localStorage.removeItem(KEY);
}
