// Entry point: resume the saved session (URL hash, then localStorage) or show the start screen.

import { ApiError } from './api.js';
import { clearError, installErrorBar, showError } from './errors.js';
import { openGame } from './game.js';
import { Session } from './session.js';
import { renderStart } from './start.js';
import { forget, readSaved, save } from './store.js';

const startEl = document.getElementById('start-screen');
const gameEl = document.getElementById('game-screen');
const loading = document.getElementById('loading');
let stopGame = null;

function leaveGame() {
  if (stopGame) stopGame();
  stopGame = null;
  forget();
  showStart();
}

async function showStart() {
  gameEl.hidden = true;
  startEl.hidden = false;
  loading.hidden = true;
  try {
    await renderStart(startEl, (created) => {
      save(created.session.id, created.owner_token);
      showGame(created.session.id, created.owner_token);
    });
  } catch (err) {
    showError(err);
  }
}

async function showGame(id, token) {
  clearError();
  const session = new Session(id, token);
  try {
    await session.load();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      forget();
      showError(new Error('That game is no longer on the server; start a new one.'));
      showStart();
      return;
    }
    throw err;
  }
  save(id, token);
  if (stopGame) stopGame();
  startEl.hidden = true;
  loading.hidden = true;
  gameEl.hidden = false;
  stopGame = openGame(gameEl, session, leaveGame);
  document.body.dataset.game = session.view.game;
}

installErrorBar();
document.getElementById('home-link').addEventListener('click', (ev) => {
  ev.preventDefault();
  leaveGame();
});
const saved = readSaved();
(saved ? showGame(saved.id, saved.token) : showStart()).catch((err) => {
  loading.hidden = true;
  showError(err);
});
