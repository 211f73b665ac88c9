// Entry point: resume the saved session (URL hash, then localStorage) or show the start screen.

import { ApiError } from './api.js';
import { clearError, installErrorBar, showError } from './errors.js';
import { openGame } from './game.js';
import { forgetOffline, OfflineSession, readOffline } from './offline/session.js';
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
  forgetOffline();
  showStart();
}

async function showStart() {
  gameEl.hidden = true;
  startEl.hidden = false;
  loading.hidden = true;
  try {
    await renderStart(startEl, (created) => {
      forgetOffline();
      save(created.session.id, created.owner_token);
      showGame(created.session.id, created.owner_token);
    }, ({ game, seats, manifest }) => {
      forget();
      showOffline({ game, seats, events: [] }, manifest).catch(showError);
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

/** Open an in-browser game (js/offline): the same game screen over an OfflineSession. */
async function showOffline(saved, manifest = null) {
  clearError();
  loading.hidden = false;
  const session = await OfflineSession.open(saved, manifest);
  if (stopGame) stopGame();
  startEl.hidden = true;
  loading.hidden = true;
  gameEl.hidden = false;
  const stop = openGame(gameEl, session, leaveGame);
  stopGame = () => { stop(); session.stop(); };
  document.body.dataset.game = session.view.game;
}

installErrorBar();
document.getElementById('home-link').addEventListener('click', (ev) => {
  ev.preventDefault();
  leaveGame();
});
const saved = readSaved();
const offline = saved ? null : readOffline();
const resumeOffline = () => showOffline(offline).catch((err) => {
  showError(err);
  return showStart();
});
const opening = offline ? resumeOffline() : saved ? showGame(saved.id, saved.token) : showStart();
opening.catch((err) => {
  loading.hidden = true;
  showError(err);
});
