// The ladder account kept in this browser: {id, token, name} in localStorage. The token is the
// player's API token (docs/ladder.md): it is shown once at registration and is the only way to
// act as the player, so another browser signs in by pasting the id and the token.

import { readStored } from '../store.js';

const KEY = 'qizero.ladder.account';

export function readAccount() {
  return readStored(KEY, (a) => typeof a.id === 'string' && typeof a.token === 'string');
}

export function saveAccount(account) {
  localStorage.setItem(KEY, JSON.stringify(account));
}

export function forgetAccount() {
  localStorage.removeItem(KEY);
}
