// Entry point: resume the saved session (URL hash, then localStorage) or show the start screen.

import { ApiError } from './api.js';
import { installChrome } from './chrome.js';
import { clearError, installErrorBar, PageError, showError } from './errors.js';
import { openGame } from './game.js';
import { forgetOffline, OfflineSession, readOffline } from './offline/session.js';
import { Session } from './session.js';
import { renderStart } from './start.js';
import { forget, readSaved, save, saveLadder } from './store.js';
import { readAccount } from './ladder/account.js';
import { LadderSession } from './ladder/session.js';
import { ladderScreen } from './ladder/screen.js';

const startEl = document.getElementById('start-screen');
const gameEl = document.getElementById('game-screen');
const loading = document.getElementById('loading');
const ladderEl = document.getElementById('ladder-screen');
let stopGame = null;
let inLadderGame = false;
let ladderGameId = null; // the ladder game shown or being opened (the queue's answer and the
// event stream's match_found may both ask for it)
const ladder = ladderScreen(ladderEl, (id, account) => {
  if (id === ladderGameId) return;
  ladderGameId = id;
  showGame(id, account.token, account).catch((err) => {
    ladderGameId = null;
    showError(err);
  });
});

function leaveGame() {
  if (stopGame) stopGame();
  stopGame = null;
  forget();
  forgetOffline();
  if (inLadderGame) showLadder();
  else showStart();
}

/** The ladder screen (js/ladder/): account, lobby, profile, leaderboard. */
function showLadder() {
  clearError();
  if (stopGame) stopGame();
  stopGame = null;
  inLadderGame = false;
  ladderGameId = null;
  forget();
  forgetOffline();
  history.replaceState(null, '', '#ladder');
  startEl.hidden = true;
  gameEl.hidden = true;
  loading.hidden = true;
  ladderEl.hidden = false;
  ladder.show().catch(showError);
}

async function showStart() {
  ladderGameId = null;
  gameEl.hidden = true;
  ladderEl.hidden = true;
  ladder.hide();
  startEl.hidden = false;
  loading.hidden = true;
  try {
    await renderStart(startEl, (created) => {
      forgetOffline();
      save(created.session.id, created.owner_token);
      showGame(created.session.id, created.owner_token);
    }, ({ game, config, seats, manifest }) => {
      forget();
      showOffline({ game, config, seats, events: [] }, manifest).catch(showError);
    });
  } catch (err) {
    showError(err);
  }
}

/** A server session; ``account`` (a ladder player) for a ladder game, acted in with its token. */
async function showGame(id, token, account = null) {
  clearError();
  const session = account ? new LadderSession(id, account) : new Session(id, token);
  try {
    await session.load();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      forget();
      showError(new PageError('api.gone'));
      showStart();
      return;
    }
    throw err;
  }
  if (account) saveLadder(id);
  else save(id, token);
  inLadderGame = Boolean(account);
  if (stopGame) stopGame();
  ladderEl.hidden = true;
  ladder.hide();
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

installChrome();
installErrorBar();
document.getElementById('home-link').addEventListener('click', (ev) => {
  ev.preventDefault();
  inLadderGame = false;
  leaveGame();
});
document.getElementById('ladder-link').addEventListener('click', (ev) => {
  ev.preventDefault();
  showLadder();
});
const saved = readSaved();
const account = readAccount();
const offline = saved ? null : readOffline();
const resumeOffline = () => showOffline(offline).catch((err) => {
  showError(err);
  return showStart();
});
const resumeSaved = () => {
  if (!saved.ladder) return showGame(saved.id, saved.token);
  if (!account) { forget(); return showStart(); }
  return showGame(saved.id, account.token, account);
};
const opening = offline ? resumeOffline() : saved ? resumeSaved()
  : location.hash === '#ladder' ? Promise.resolve(showLadder()) : showStart();
opening.catch((err) => {
  loading.hidden = true;
  showError(err);
});
