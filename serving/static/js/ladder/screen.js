// The ladder screen (docs/ladder.md, docs/web_client.md): register or sign in, the lobby (join
// the matching queue with its options, wait, leave), the profile with the game table, and the
// leaderboard, paged. While signed in the player's event stream is followed (it is public, so a
// plain EventSource); `match_found` opens the game screen on that session with the player's
// token, `rank_change` and `game_over` refresh the profile.

import { api, ApiError, getJSON } from '../api.js';
import { h } from '../dom.js';
import { attempt as run, showError } from '../errors.js';
import { forgetAccount, readAccount, saveAccount } from './account.js';

const PAGE = 10; // leaderboard rows a page
const BOARDS = ['cylinder', '9x9', '13x13', '19x19'];
const TABS = [['lobby', 'Play'], ['profile', 'Profile'], ['leaderboard', 'Leaderboard']];

const field = (label, input) => h('label', { class: 'field' },
  h('span', { class: 'field-name' }, label), input);

/** A table: a header row of ``columns``, then ``rows`` (tr elements). */
const table = (attrs, columns, rows) => h('table', { class: 'ladder-table', ...attrs },
  h('thead', {}, h('tr', {}, columns.map((c) => h('th', {}, c)))), h('tbody', {}, rows));

const when = (t) => (t ? new Date(t * 1000).toLocaleString() : '');

/**
 * The ladder, built in ``root``. ``openLadderGame(sessionId, account)`` shows the game screen.
 * Returns {show(), stop()}.
 */
export function ladderScreen(root, openLadderGame) {
  let account = readAccount();
  let tab = 'lobby';
  let board = 0; // leaderboard offset
  let source = null; // the player's event stream
  let waitTick = null;
  let shownToken = null; // the token just issued, shown once
  const body = h('div', { class: 'ladder-body' });

  function follow() {
    if (source || !account || typeof EventSource !== 'function') return;
    const me = account;
    source = new EventSource(`/v1/players/${encodeURIComponent(me.id)}/events`);
    source.onmessage = (ev) => {
      const msg = JSON.parse(ev.data);
      if (msg.kind === 'match_found') {
        stopWaiting();
        openLadderGame(msg.data.session, me);
      } else if (msg.kind === 'rank_change' || msg.kind === 'game_over') {
        if (!root.hidden) render();
      }
    };
  }

  function unfollow() {
    if (source) source.close();
    source = null;
  }

  function stopWaiting() {
    clearInterval(waitTick);
    waitTick = null;
  }

  // ---------------------------------------------------------------- account
  function accountPanel() {
    if (account) {
      return h('div', { class: 'ladder-account', id: 'ladder-account' },
        h('p', {}, 'Signed in as ', h('strong', { id: 'ladder-name' }, account.name || account.id),
          ` (player id ${account.id})`),
        shownToken ? h('div', { class: 'token-note', id: 'ladder-token-note' },
          h('p', {}, 'Your token (shown once; keep it: with your id it signs you in on '
            + 'another browser, and nobody can give it back to you):'),
          h('code', { id: 'ladder-token' }, shownToken),
          h('button', { type: 'button', id: 'ladder-token-kept',
            onclick: () => { shownToken = null; render(); } }, 'I have kept it')) : null,
        h('button', { type: 'button', id: 'ladder-signout', onclick: () => {
          unfollow(); stopWaiting(); forgetAccount(); account = null; shownToken = null; render();
        } }, 'Sign out of this browser'));
    }
    const name = h('input', { id: 'ladder-reg-name', maxlength: 32, placeholder: 'name' });
    const id = h('input', { id: 'ladder-signin-id', placeholder: 'player id' });
    const token = h('input', { id: 'ladder-signin-token', placeholder: 'token' });
    return h('div', { class: 'ladder-account', id: 'ladder-account' },
      h('form', { id: 'ladder-register', onsubmit: (ev) => {
        ev.preventDefault();
        run(async () => {
          const made = await api('POST', '/v1/players', { name: name.value.trim() });
          account = { id: made.player.id, token: made.token, name: made.player.name };
          saveAccount(account);
          shownToken = made.token;
          follow();
          render();
        });
      } }, h('h3', {}, 'Register'), field('name', name),
      h('button', { type: 'submit', class: 'primary', id: 'ladder-register-button' }, 'Register')),
      h('form', { id: 'ladder-signin', onsubmit: (ev) => {
        ev.preventDefault();
        run(async () => {
          const candidate = { id: id.value.trim(), token: token.value.trim() };
          await api('GET', '/v1/ladder/queue', undefined, candidate.token).catch((err) => {
            if (err instanceof ApiError && err.status === 401) {
              throw new Error('Sign-in failed: the server does not know that token.');
            }
            throw err;
          });
          const p = await getJSON(`/v1/players/${encodeURIComponent(candidate.id)}`);
          account = { ...candidate, name: p.name };
          saveAccount(account);
          follow();
          render();
        });
      } }, h('h3', {}, 'Sign in with your id and token'), field('player id', id),
      field('token', token),
      h('button', { type: 'submit', id: 'ladder-signin-button' }, 'Sign in')));
  }

  // ---------------------------------------------------------------- lobby
  async function lobby() {
    const state = await api('GET', '/v1/ladder/queue', undefined, account.token);
    const out = h('div', { class: 'ladder-lobby', id: 'ladder-lobby' });
    const line = h('p', { id: 'ladder-queue-state', dataset: { status: state.status } });
    out.append(line);
    stopWaiting();
    if (state.status === 'playing') {
      const g = state.game;
      line.textContent = `Playing a rated game as ${g.colour}.`;
      out.append(h('button', { type: 'button', class: 'primary', id: 'ladder-open-game',
        onclick: () => openLadderGame(g.session, account) }, 'Open the game'));
      return out;
    }
    if (state.status === 'waiting') {
      const o = state.entry.options;
      const since = performance.now() - state.entry.waited * 1000;
      const say = () => {
        const s = Math.round((performance.now() - since) / 1000);
        line.textContent = `Waiting for an opponent (${o.board}, ${o.rules}`
          + `${o.handicap ? ', handicap' : ''}): ${s} s`;
      };
      say();
      waitTick = setInterval(say, 1000);
      out.append(h('button', { type: 'button', id: 'ladder-leave', onclick: () => run(async () => {
        await api('DELETE', '/v1/ladder/queue', undefined, account.token);
        render();
      }) }, 'Leave the queue'));
      return out;
    }
    line.textContent = 'Not in the queue.';
    const boardSel = h('select', { id: 'ladder-board' },
      BOARDS.map((b) => h('option', { value: b }, b === 'cylinder' ? 'cylinder (Stereo Go)' : b)));
    const rules = h('select', { id: 'ladder-rules' },
      h('option', { value: 'territory' }, 'territory'), h('option', { value: 'area' }, 'area'));
    const main = h('input', { id: 'ladder-main', type: 'number', min: 0, value: 600 });
    const periods = h('input', { id: 'ladder-periods', type: 'number', min: 0, value: 3 });
    const period = h('input', { id: 'ladder-period', type: 'number', min: 1, value: 30 });
    const handicap = h('input', { id: 'ladder-handicap', type: 'checkbox' });
    out.append(h('form', { id: 'ladder-queue-form', class: 'ladder-form', onsubmit: (ev) => {
      ev.preventDefault();
      run(async () => {
        const answer = await api('POST', '/v1/ladder/queue', {
          board: boardSel.value, rules: rules.value, handicap: handicap.checked,
          clock: { main_time: Number(main.value), periods: Number(periods.value),
            period_seconds: Number(period.value) },
        }, account.token);
        if (answer.status === 'playing') openLadderGame(answer.game.session, account);
        else render();
      });
    } }, field('board', boardSel), field('rules', rules), field('main time (s)', main),
    field('byo-yomi periods', periods), field('period (s)', period),
    field('handicap game', handicap),
    h('button', { type: 'submit', class: 'primary', id: 'ladder-join' }, 'Join the queue')));
    return out;
  }

  // ---------------------------------------------------------------- profile
  function gameRow(g) {
    const opp = g.opponent ? g.opponent.name : '';
    // unrated: a rated game the repeat rule took out (docs/ladder.md), with its reason
    const result = g.status === 'playing' ? 'playing'
      : g.kind === 'unrated' ? `${g.result}, not rated` : g.result;
    const change = g.points && g.points.change ? (g.points.change > 0 ? `+${g.points.change}`
      : String(g.points.change)) : '';
    return h('tr', { dataset: { session: g.session, kind: g.kind } },
      h('td', {}, when(g.started)), h('td', {}, opp), h('td', {}, g.colour),
      h('td', { class: 'result' }, result ?? ''),
      h('td', {}, [g.reason, g.unrated_reason].filter(Boolean).join(' · ')),
      h('td', {}, g.moves ?? ''), h('td', {}, change), h('td', {}, g.options.board));
  }

  async function profile() {
    const p = await getJSON(`/v1/players/${encodeURIComponent(account.id)}`);
    const games = [...p.playing, ...p.games];
    return h('div', { class: 'ladder-profile', id: 'ladder-profile' },
      h('h3', {}, p.name),
      h('p', { id: 'ladder-rank' }, `${p.rank} · ${p.points} points`
        + (p.next_rank_at !== null ? ` (next rank at ${p.next_rank_at})` : '')
        + ` · ${p.points_per_game} a game`),
      h('p', { id: 'ladder-record' }, `${p.wins} W / ${p.losses} L / ${p.draws} D`
        + ` · ${p.friendly_games} friendly`),
      table({ id: 'ladder-games' }, ['date', 'opponent', 'colour', 'result', 'how', 'moves',
        'points', 'board'], games.map(gameRow)),
      games.length ? null : h('p', {}, 'No recorded games yet.'));
  }

  // ---------------------------------------------------------------- leaderboard
  async function leaderboard() {
    const lb = await getJSON(`/v1/ladder/leaderboard?offset=${board}&limit=${PAGE}`);
    const last = Math.min(lb.total, board + lb.players.length);
    return h('div', { class: 'ladder-leaderboard', id: 'ladder-leaderboard' },
      table({}, ['#', 'player', 'rank', 'points', 'W', 'L', 'D'], lb.players.map((p) => h('tr', {
        dataset: { player: p.id }, class: account && p.id === account.id ? 'me' : null },
      [p.position, p.name + (p.kind === 'ai' ? ' (AI)' : ''), p.rank, p.points, p.wins, p.losses,
        p.draws].map((v) => h('td', {}, v))))),
      h('div', { class: 'pager' },
        h('button', { type: 'button', id: 'ladder-prev', disabled: board === 0,
          onclick: () => { board = Math.max(0, board - PAGE); render(); } }, '◀ previous'),
        h('span', { id: 'ladder-page' }, lb.total ? `${board + 1}–${last} of ${lb.total}` : 'empty'),
        h('button', { type: 'button', id: 'ladder-next', disabled: last >= lb.total,
          onclick: () => { board += PAGE; render(); } }, 'next ▶')));
  }

  // ---------------------------------------------------------------- the screen
  let rendering = 0;
  async function render() {
    const mine = ++rendering;
    const tabs = h('nav', { class: 'ladder-tabs' }, TABS.map(([key, label]) => h('button', {
      type: 'button', class: key === tab ? 'tab chosen' : 'tab', dataset: { tab: key },
      onclick: () => { tab = key; render(); } }, label)));
    let panel;
    try {
      if (tab === 'leaderboard') panel = await leaderboard();
      else if (!account) panel = h('p', {}, 'Register or sign in to play on the ladder.');
      else if (tab === 'profile') panel = await profile();
      else panel = await lobby();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && account) {
        showError(new Error('This browser\'s ladder token is not accepted: sign in again.'));
        unfollow(); forgetAccount(); account = null;
      } else {
        showError(err);
      }
      panel = h('p', {}, 'Not available now.');
    }
    if (mine !== rendering) return;
    body.replaceChildren(tabs, panel);
    root.replaceChildren(h('h2', {}, 'Stereo Go ladder'), accountPanel(), body);
  }

  return {
    show() {
      account = readAccount();
      follow();
      return render();
    },
    hide() { stopWaiting(); },
    stop() { stopWaiting(); unfollow(); },
  };
}
