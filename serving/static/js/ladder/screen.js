// The ladder screen (docs/ladder.md, docs/web_client.md): register or sign in, the lobby (join
// the matching queue with its options, wait, leave), the profile with the game table, and the
// leaderboard, paged. While signed in the player's event stream is followed (it is public, so a
// plain EventSource); `match_found` opens the game screen on that session with the player's
// token, `rank_change` and `game_over` refresh the profile. Every label is looked up through
// t() (js/i18n/ladder.js), and the screen draws itself again in place when the language
// changes. The leaderboard keeps the player's own row in sight: on its page, or pinned above
// or below it with their position (the API's `you`).

import { api, ApiError, getJSON } from '../api.js';
import { h } from '../dom.js';
import { attempt as run, showError } from '../errors.js';
import { language, onLanguageChange, t, tOr } from '../i18n.js';
import '../i18n/ladder.js';
import { forgetAccount, readAccount, saveAccount } from './account.js';
import { boardName, colourName, playerName, rulesName } from './labels.js';

const PAGE = 10; // leaderboard rows a page
const BOARDS = ['cylinder', '9x9', '13x13', '19x19'];
const TABS = ['lobby', 'profile', 'leaderboard'];

const field = (label, input, help = null) => h('label', { class: 'field' },
  h('span', { class: 'field-name' }, label), input,
  help ? h('small', { class: 'help' }, help) : null);

/** A table row: one cell per value, each with its column's name (``data-label``: a narrow
 * screen shows the rows as cards, each cell under its column's name). */
const row = (attrs, columns, values) => h('tr', attrs, values.map((v, i) => h('td', {
  dataset: { label: columns[i].label }, class: columns[i].cls ?? null }, v ?? '')));

/** A table: a header row of ``columns`` ({label, cls}), then ``rows`` (tr elements). */
const table = (attrs, columns, rows) => h('table', { class: 'ladder-table', ...attrs },
  h('thead', {}, h('tr', {}, columns.map((c) => h('th', {}, c.label)))), h('tbody', {}, rows));

const columns = (...keys) => keys.map((k) => ({ label: t(`ladder.col.${k}`),
  cls: k === 'result' ? 'result' : null }));

const when = (at) => (at
  ? new Date(at * 1000).toLocaleString(language() === 'zh' ? 'zh-CN' : 'en') : '');

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
  onLanguageChange(() => { if (!root.hidden) render(); });

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

  /** What the field ``sel`` holds now, else ``fallback``: what was typed or chosen survives a
   * redraw (a language switch). */
  const typed = (sel, fallback = '') => root.querySelector(sel)?.value ?? fallback;

  // ---------------------------------------------------------------- account
  function accountPanel() {
    if (account) {
      return h('div', { class: 'ladder-account', id: 'ladder-account' },
        h('p', {}, t('ladder.signedInAs'),
          h('strong', { id: 'ladder-name' }, account.name || account.id),
          h('span', { class: 'ladder-id' }, t('ladder.playerId', { id: account.id }))),
        shownToken ? h('div', { class: 'token-note', id: 'ladder-token-note' },
          h('p', {}, t('ladder.tokenNote')),
          h('code', { id: 'ladder-token' }, shownToken),
          h('button', { type: 'button', id: 'ladder-token-kept',
            onclick: () => { shownToken = null; render(); } }, t('ladder.kept'))) : null,
        h('button', { type: 'button', id: 'ladder-signout', onclick: () => {
          unfollow(); stopWaiting(); forgetAccount(); account = null; shownToken = null; render();
        } }, t('ladder.signOut')));
    }
    const name = h('input', { id: 'ladder-reg-name', maxlength: 32, placeholder: t('ladder.name'),
      value: typed('#ladder-reg-name') });
    const id = h('input', { id: 'ladder-signin-id', placeholder: t('ladder.id'),
      value: typed('#ladder-signin-id') });
    const token = h('input', { id: 'ladder-signin-token', placeholder: t('ladder.token'),
      value: typed('#ladder-signin-token') });
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
      } }, h('h3', {}, t('ladder.register')), field(t('ladder.name'), name),
      h('button', { type: 'submit', class: 'primary', id: 'ladder-register-button' },
        t('ladder.register'))),
      h('form', { id: 'ladder-signin', onsubmit: (ev) => {
        ev.preventDefault();
        run(async () => {
          const candidate = { id: id.value.trim(), token: token.value.trim() };
          await api('GET', '/v1/ladder/queue', undefined, candidate.token).catch((err) => {
            if (err instanceof ApiError && err.status === 401) {
              throw new Error(t('ladder.signInFailed'));
            }
            throw err;
          });
          const p = await getJSON(`/v1/players/${encodeURIComponent(candidate.id)}`);
          account = { ...candidate, name: p.name };
          saveAccount(account);
          follow();
          render();
        });
      } }, h('h3', {}, t('ladder.signInTitle')), field(t('ladder.id'), id),
      field(t('ladder.token'), token),
      h('button', { type: 'submit', id: 'ladder-signin-button' }, t('ladder.signIn'))));
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
      line.textContent = t('ladder.playing', { colour: colourName(g.colour) });
      out.append(h('button', { type: 'button', class: 'primary', id: 'ladder-open-game',
        onclick: () => openLadderGame(g.session, account) }, t('ladder.openGame')));
      return out;
    }
    if (state.status === 'waiting') {
      const o = state.entry.options;
      const since = performance.now() - state.entry.waited * 1000;
      const say = () => {
        const s = Math.round((performance.now() - since) / 1000);
        line.textContent = t('ladder.waiting', { board: boardName(o.board),
          rules: rulesName(o.rules), handicap: o.handicap ? t('ladder.withHandicap') : '', s });
      };
      say();
      waitTick = setInterval(say, 1000);
      out.append(h('button', { type: 'button', id: 'ladder-leave', onclick: () => run(async () => {
        await api('DELETE', '/v1/ladder/queue', undefined, account.token);
        render();
      }) }, t('ladder.leave')));
      return out;
    }
    line.textContent = t('ladder.notQueued');
    const boardSel = h('select', { id: 'ladder-board' }, BOARDS.map((b) => h('option',
      { value: b }, b === 'cylinder' ? t('ladder.board.cylinder') : boardName(b))));
    const rules = h('select', { id: 'ladder-rules' }, ['territory', 'area'].map((r) => h('option',
      { value: r }, t(`ladder.rules.${r}`))));
    boardSel.value = typed('#ladder-board', BOARDS[0]);
    rules.value = typed('#ladder-rules', 'territory');
    const main = h('input', { id: 'ladder-main', type: 'number', min: 0,
      value: typed('#ladder-main', 600) });
    const periods = h('input', { id: 'ladder-periods', type: 'number', min: 0,
      value: typed('#ladder-periods', 3) });
    const period = h('input', { id: 'ladder-period', type: 'number', min: 1,
      value: typed('#ladder-period', 30) });
    const handicap = h('input', { id: 'ladder-handicap', type: 'checkbox',
      checked: root.querySelector('#ladder-handicap')?.checked ?? false });
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
    } }, field(t('ladder.board'), boardSel),
    field(t('ladder.rules'), rules, t('ladder.rulesHelp')),
    field(t('ladder.mainTime'), main, t('ladder.clockHelp')),
    field(t('ladder.periods'), periods), field(t('ladder.period'), period),
    field(t('ladder.handicap'), handicap, t('ladder.handicapHelp')),
    h('button', { type: 'submit', class: 'primary', id: 'ladder-join' }, t('ladder.join'))));
    return out;
  }

  // ---------------------------------------------------------------- profile
  const GAME_COLUMNS = ['date', 'opponent', 'colour', 'result', 'how', 'moves', 'points',
    'board'];

  function gameRow(g, cols) {
    const said = g.result ? tOr(`ladder.result.${g.result}`, g.result) : '';
    // unrated: a rated game the repeat rule took out (docs/ladder.md), with its reason
    const result = g.status === 'playing' ? t('ladder.result.playing')
      : g.kind === 'unrated' ? t('ladder.notRated', { result: said }) : said;
    const change = g.points && g.points.change ? (g.points.change > 0 ? `+${g.points.change}`
      : String(g.points.change)) : '';
    const how = g.reason ? tOr(`ladder.how.${g.reason}`, g.reason) : null;
    return row({ dataset: { session: g.session, kind: g.kind } }, cols, [
      when(g.started), playerName(g.opponent), colourName(g.colour), result,
      [how, g.unrated_reason].filter(Boolean).join(' · '), g.moves, change,
      boardName(g.options.board)]);
  }

  async function profile() {
    const p = await getJSON(`/v1/players/${encodeURIComponent(account.id)}`);
    const games = [...p.playing, ...p.games];
    const cols = columns(...GAME_COLUMNS);
    return h('div', { class: 'ladder-profile', id: 'ladder-profile' },
      h('h3', {}, playerName(p)),
      h('p', { id: 'ladder-rank' }, t('ladder.rankLine', { rank: p.rank, points: p.points })
        + (p.next_rank_at !== null ? t('ladder.nextRank', { at: p.next_rank_at }) : '')
        + t('ladder.perGame', { n: p.points_per_game })),
      h('p', { id: 'ladder-record' }, t('ladder.record', { w: p.wins, l: p.losses, d: p.draws,
        f: p.friendly_games })),
      table({ id: 'ladder-games', class: 'ladder-table cards' }, cols,
        games.map((g) => gameRow(g, cols))),
      games.length ? null : h('p', {}, t('ladder.noGames')));
  }

  // ---------------------------------------------------------------- leaderboard
  async function leaderboard() {
    const me = account ? `&player=${encodeURIComponent(account.id)}` : '';
    const lb = await getJSON(`/v1/ladder/leaderboard?offset=${board}&limit=${PAGE}${me}`);
    const last = Math.min(lb.total, board + lb.players.length);
    const cols = columns('position', 'player', 'rank', 'points', 'w', 'l', 'd');
    const line = (p, extra = {}) => row({ dataset: { player: p.id },
      class: account && p.id === account.id ? 'me' : null, ...extra }, cols,
    [p.position, playerName(p), p.rank, p.points, p.wins, p.losses, p.draws]);
    const rows = lb.players.map((p) => line(p));
    // the player's own row, pinned where it is not on this page: above it or below it
    const you = lb.you;
    if (you && !lb.players.some((p) => p.id === you.id)) {
      const pinned = line(you, { id: 'ladder-you', class: 'me pinned',
        title: t('ladder.youRow') });
      const gap = h('tr', { class: 'gap' }, h('td', { colspan: cols.length }, t('ladder.gap')));
      if (you.position <= board) rows.unshift(pinned, gap);
      else rows.push(gap, pinned);
    }
    return h('div', { class: 'ladder-leaderboard', id: 'ladder-leaderboard' },
      table({ class: 'ladder-table ranking' }, cols, rows),
      h('div', { class: 'pager' },
        h('button', { type: 'button', id: 'ladder-prev', disabled: board === 0,
          onclick: () => { board = Math.max(0, board - PAGE); render(); } }, t('ladder.prev')),
        h('span', { id: 'ladder-page' }, lb.total
          ? t('ladder.page', { from: board + 1, to: last, total: lb.total }) : t('ladder.empty')),
        h('button', { type: 'button', id: 'ladder-next', disabled: last >= lb.total,
          onclick: () => { board += PAGE; render(); } }, t('ladder.next'))));
  }

  // ---------------------------------------------------------------- the screen
  let rendering = 0;
  async function render() {
    const mine = ++rendering;
    const tabs = h('nav', { class: 'ladder-tabs' }, TABS.map((key) => h('button', {
      type: 'button', class: key === tab ? 'tab chosen' : 'tab', dataset: { tab: key },
      onclick: () => { tab = key; render(); } }, t(`ladder.tab.${key}`))));
    let panel;
    try {
      if (tab === 'leaderboard') panel = await leaderboard();
      else if (!account) panel = h('p', {}, t('ladder.signInFirst'));
      else if (tab === 'profile') panel = await profile();
      else panel = await lobby();
    } catch (err) {
      if (err instanceof ApiError && err.status === 401 && account) {
        showError(new Error(t('ladder.tokenRefused')));
        unfollow(); forgetAccount(); account = null;
      } else {
        showError(err);
      }
      panel = h('p', {}, t('ladder.unavailable'));
    }
    if (mine !== rendering) return;
    body.replaceChildren(tabs, panel);
    root.replaceChildren(h('h2', {}, t('ladder.title')), accountPanel(), body);
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
