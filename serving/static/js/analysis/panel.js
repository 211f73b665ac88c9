// The analysis mode of the game screen: a toggle; while on, the position shown is analysed
// (streamed, js/analysis/stream.js), the top moves are drawn on the board as the search goes
// and listed with their variation, the value and (Go) the score lead. A new position or
// leaving the screen cancels the running search.

import { h } from '../dom.js';
import { t, onLanguageChange } from '../i18n.js';
import '../i18n/analysis.js';
import { streamAnalysis } from './stream.js';
import { drawAnalysis, winRate } from './overlay.js';

const INTERVAL = 0.25; // seconds between partial results
const BUDGETS = [null, 400, 1600, 6400]; // visits offered (null: the level's simulations)

/** The position the board shows: a key that changes exactly when it does. */
function positionKey(session) {
  return JSON.stringify([session.view.game, session.view.config, session.view.moves]);
}

/**
 * The analysis panel for ``session`` drawing on ``board`` ({el}); returns {el, refresh, stop}:
 * refresh() after every board update (redraws the marks, restarts on a new position).
 */
export function analysisPanel(session, board) {
  let on = false;
  let cancel = null;
  let key = null;
  let result = null;
  let error = null;
  let visits = null; // null: the level's own simulations
  const el = h('div', { class: 'analysis-panel', id: 'analysis-panel' });

  function stopSearch() {
    if (cancel) cancel();
    cancel = null;
    key = null;
    result = null;
  }

  function start() {
    stopSearch();
    error = null;
    if (session.view.status !== 'playing') return;
    key = positionKey(session);
    const body = { config: session.view.config || {}, moves: session.view.moves,
      visits, interval: INTERVAL };
    cancel = streamAnalysis(session.view.game, body, (r) => {
      result = r;
      show();
    }, (err) => {
      error = err.message;
      show();
    });
  }

  function seats() {
    const mover = session.toPlay ?? null;
    const other = session.seats.find((seat) => seat !== mover) ?? null;
    return { mover, other };
  }

  function show() {
    drawAnalysis(board.el, on ? result : null, seats());
    const toggle = h('label', { class: 'analysis-toggle' },
      h('input', { type: 'checkbox', id: 'analysis-toggle', checked: on,
        onchange: (ev) => {
          on = ev.target.checked;
          if (on) start();
          else stopSearch();
          show();
        } }),
      ` ${t('analysis.toggle')}`);
    const budget = h('select', { id: 'analysis-visits', onchange: (ev) => {
      visits = ev.target.value ? Number(ev.target.value) : null;
      if (on) start();
      show();
    } }, BUDGETS.map((n) => h('option', { value: n ?? '', selected: n === visits },
      n ? t('analysis.budget', { visits: n }) : t('analysis.levelBudget'))));
    const parts = [h('h3', {}, t('analysis.title')), toggle, ' ', budget];
    if (on && error) parts.push(h('p', { class: 'analysis-error' }, error));
    if (on && !error && !result && key === null) parts.push(h('p', {}, t('analysis.none')));
    if (on && result) parts.push(...summary(result));
    el.replaceChildren(...parts);
  }

  function refresh() {
    if (on && positionKey(session) !== key) start();
    show();
  }

  const unlisten = onLanguageChange(show);
  show();
  return {
    el,
    refresh,
    stop() { stopSearch(); unlisten(); },
  };
}

function summary(result) {
  const figures = { visits: result.visits, seconds: result.seconds.toFixed(1) };
  const out = [
    h('p', { class: 'analysis-progress', dataset: { final: String(result.final),
      visits: String(result.visits) } },
    t(result.final ? 'analysis.final' : 'analysis.running', figures)),
    h('p', { class: 'analysis-value' }, t('analysis.value', { rate: winRate(result.value) })),
  ];
  if (result.score_lead !== null && result.score_lead !== undefined) {
    out.push(h('p', { class: 'analysis-lead' },
      t('analysis.lead', { lead: result.score_lead.toFixed(1) })));
  }
  out.push(h('table', { class: 'analysis-moves' },
    h('tr', {}, h('th', {}, t('analysis.move')), h('th', {}, t('analysis.visits')),
      h('th', {}, t('analysis.rate')), h('th', {}, t('analysis.pv'))),
    result.moves.map((m, i) => h('tr', { class: i === 0 ? 'best' : null },
      h('td', {}, m.move), h('td', {}, String(m.visits)),
      h('td', {}, m.value === null ? '–' : `${winRate(m.value)}%`),
      h('td', { class: 'pv' }, m.pv.join(' '))))));
  return out;
}
