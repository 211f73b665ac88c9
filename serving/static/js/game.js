// The game screen shared by every game: status line (whose turn, AI thinking, result), turn
// timer, seats, the actions the session offers (confirm/cancel, pass, resign, scoring), the
// move list and match results, around the board of the position's kind (boards/registry.js)
// and its status facts (facts.js). The session's event stream brings AI moves and moves from
// other screens (polling only while it is down).

import { h } from './dom.js';
import { askConfirm } from './dialog.js';
import { attempt as run, showError } from './errors.js';
import { boardFor } from './boards/registry.js';
import { factsText } from './facts.js';
import { onLanguageChange, t } from './i18n.js';
import './i18n/game.js';
import { gameName, seatName } from './i18n/common.js';
import { levelName } from './i18n/levels.js';
import { rulesButton } from './rules.js';
import { analysisPanel } from './analysis/panel.js';
import { reviewPanel } from './review/panel.js';

function scoreText(score) {
  return Object.entries(score).map(([seat, v]) => `${seatName(seat)} ${v}`).join(' – ');
}

const REASONS = new Set(['rules', 'score', 'resignation', 'arbitration', 'timeout']);

/** One sentence for a game's or the match's result. */
export function resultText(result) {
  if (!result) return '';
  const who = result.winner ? t('result.wins', { seat: seatName(result.winner) }) : t('result.draw');
  const why = REASONS.has(result.reason) ? t(`reason.${result.reason}`) : result.reason;
  const parts = [`${who} (${why})`];
  if (result.totals) parts.push(t('result.totals', { score: scoreText(result.totals) }));
  else if (result.score) parts.push(t('result.score', { score: scoreText(result.score) }));
  return parts.join('; ');
}

function statusText(session) {
  const text = turnText(session);
  const problem = session.view.ai_error;
  return problem ? t('status.aiProblem', { text, problem }) : text;
}

function turnText(session) {
  const view = session.view;
  if (view.status === 'over') return t('status.over', { result: resultText(view.result) });
  if (view.status === 'scoring') {
    return t('status.scoring');
  }
  const seat = session.turnSeat;
  if (view.confirm_turns && view.turn_complete) {
    return seat ? t('status.confirmSeat', { seat: seatName(seat) }) : t('status.confirm');
  }
  if (!seat) return '';
  if (session.isAI(seat)) {
    const lv = session.levelLabel(view.seats[seat].level);
    return t(view.ai_thinking ? 'status.aiThinking' : 'status.aiToPlay',
      { seat: seatName(seat), level: lv });
  }
  return t('status.toPlay', { seat: seatName(seat) });
}

function eventText(ev) {
  if (ev.t === 'move') {
    const by = ev.by === 'ai' ? t('event.ai', { level: ev.level })
      : ev.by === 'arbiter' ? t('event.arbiter') : '';
    return `${seatName(ev.seat)}: ${ev.m}${by}`;
  }
  if (ev.t === 'timeout') return t('event.timeout', { seat: seatName(ev.seat) });
  if (ev.t === 'resign') return t('event.resign', { seat: seatName(ev.seat) });
  return JSON.stringify(ev);
}

function moveList(session) {
  const view = session.view;
  const games = [...view.match.history, view.events];
  const out = h('div', { class: 'moves-panel' }, h('h3', {}, t('game.moves')),
    notationLegend(view.game));
  games.forEach((events, g) => {
    if (games.length > 1) out.append(h('h4', {}, t('game.number', { n: g + 1 })));
    const list = h('ol', { class: 'move-list', id: g === games.length - 1 ? 'moves' : null });
    for (const ev of events) list.append(h('li', { class: `ev-${ev.t}` }, eventText(ev)));
    if (g === games.length - 1) {
      for (const m of view.pending) {
        list.append(h('li', { class: 'pending' }, t('event.provisional',
          { seat: session.turnSeat ? seatName(session.turnSeat) : '', move: m })));
      }
    }
    out.append(list);
    const res = view.match.results[g];
    if (res && view.match.games > 1) {
      out.append(h('p', { class: 'game-result' },
        `${t('game.number', { n: g + 1 })}: ${resultText(res)}`));
    }
  });
  return out;
}

/** Seat rows: who plays each side; a select hands a side to a person or an AI level. */
function seatsPanel(session) {
  const view = session.view;
  const out = h('div', { class: 'seats-panel' }, h('h3', {}, t('game.players')));
  for (const seat of session.seats) {
    const cfg = view.seats[seat];
    const select = h('select', {
      class: 'seat-type', dataset: { seat }, disabled: !session.playing || session.seatsLocked,
      onchange: (ev) => run(() => {
        const v = ev.target.value;
        return v === 'human' ? session.setSeat(seat, 'human') : session.setSeat(seat, 'ai', v);
      }),
    }, h('option', { value: 'human', selected: cfg.type === 'human' }, t('game.human')),
    session.levels.levels.map((lv) => h('option', {
      value: lv.id, selected: cfg.type === 'ai' && cfg.level === lv.id },
    t('game.aiLevel', { level: levelName(lv.label) }))));
    out.append(h('div', { class: `seat-row${session.toPlay === seat ? ' to-play' : ''}`,
      dataset: { seat } },
    h('span', { class: `swatch player-${session.seats.indexOf(seat)} ${seat}` }),
    h('span', { class: 'seat-name' }, seatName(seat)), select));
  }
  return out;
}

function actionsPanel(session) {
  const view = session.view;
  const out = h('div', { class: 'actions-panel' });
  const turnSeat = session.turnSeat;
  if (view.confirm_turns && turnSeat !== null && !session.isAI(turnSeat)) {
    out.append(
      h('button', { type: 'button', id: 'confirm', class: 'primary',
        disabled: !view.turn_complete, onclick: () => run(() => session.confirm()) }, t('game.confirm')),
      h('button', { type: 'button', id: 'cancel', disabled: !view.pending.length,
        onclick: () => run(() => session.cancel()) }, t('game.cancel')));
  }
  if (session.humanToPlay && session.legal.includes('pass')) {
    out.append(h('button', { type: 'button', id: 'pass',
      onclick: () => run(() => session.move('pass')) }, t('game.pass')));
  }
  if (session.game.sessions.resign && session.humanToPlay) {
    const seat = session.toPlay;
    out.append(h('button', { type: 'button', id: 'resign', onclick: () => run(async () => {
      if (await askConfirm([t('game.resignFor', { seat: seatName(seat) })])) {
        await session.resign(seat);
      }
    }) }, t('game.resign')));
  }
  if (view.status === 'scoring') {
    const sc = view.scoring;
    const marks = sc.dead.length ? sc.dead.join(', ') : t('game.none');
    out.append(h('p', {}, t('game.deadMarked', { marks,
      accepted: sc.accepted.map(seatName).join(', ') || t('game.nobody') })));
    if (sc.proposed && sc.proposed.length) {
      out.append(h('button', { type: 'button', id: 'use-proposed',
        title: t('game.proposed', { dead: sc.proposed.join(', ') }),
        onclick: () => run(() => session.markDead(sc.proposed)) }, t('game.markProposed')));
    }
    out.append(h('button', { type: 'button', id: 'accept-score', class: 'primary',
      onclick: () => run(() => session.acceptScore()) }, t('game.accept')),
    h('button', { type: 'button', id: 'resume',
      onclick: () => run(() => session.resume()) }, t('game.resume')));
  }
  return out;
}

const clockFormat = (sec) => {
  const t = Math.max(0, Math.ceil(sec));
  return `${Math.floor(t / 60)}:${String(t % 60).padStart(2, '0')}`;
};

/** One seat of a main time + byo-yomi clock; the running one counts down between views. */
function clockSeatText(seat, c, elapsed) {
  const run = c.running ? elapsed : 0;
  const main = c.main_left - run;
  if (main > 0) {
    return t('clock.main', { seat: seatName(seat), time: clockFormat(main), periods: c.periods_left });
  }
  const spent = c.main_left > 0 ? -main : run;
  const period = (c.period_left ?? 0) - (c.main_left > 0 ? 0 : spent);
  return t('clock.byoyomi',
    { seat: seatName(seat), time: clockFormat(period), periods: c.periods_left });
}

/** The per-turn timer, or the main time + byo-yomi clock of each seat. */
function timerText(session) {
  const view = session.view;
  if (view.status !== 'playing') return '';
  const parts = [];
  const left = session.remainingSeconds();
  if (left !== null) {
    const deadline = new Date(view.timer.deadline * 1000).toLocaleTimeString();
    parts.push(t('clock.turn', { seat: seatName(session.toPlay), left: Math.ceil(left), deadline }));
  }
  const clock = view.timer.clock;
  if (clock && clock.seats) {
    const elapsed = session.elapsed();
    parts.push(`⏱ ${Object.entries(clock.seats)
      .map(([seat, c]) => clockSeatText(seat, c, elapsed)).join(' · ')}`);
  }
  return parts.join(' · ');
}

/** The game's move notation in one line, under the move list's heading. */
function notationLegend(game) {
  return h('p', { class: 'notation-legend help' }, t(`rules.${game}.notation`));
}

/** Build the game screen in ``root`` and keep it current; returns a stop function. */
export function openGame(root, session, onLeave) {
  const status = h('p', { id: 'status', class: 'status', 'aria-live': 'polite' });
  const timer = h('p', { id: 'timer', class: 'timer' });
  const kind = boardFor(session.position);
  const board = kind.make(session, run);
  const ownScreen = kind.screen; // the board brings its own panels and status (TriGolden)
  const info = h('p', { class: 'state-line' });
  const side = h('aside', { class: 'side' });
  const head = h('div', { class: 'game-head' });
  const title = () => (session.inBrowser
    ? t('game.inBrowser', { game: gameName(session.view.game) }) : gameName(session.view.game));
  const drawHead = () => head.replaceChildren(
    h('h2', {}, title()),
    h('span', { class: 'session-id', title: t('game.sessionId') }, session.id),
    rulesButton(session.view.game),
    h('button', { type: 'button', id: 'new-game', onclick: onLeave }, t(session.leaveLabel)));
  drawHead();
  const analysis = analysisPanel(session, board);
  const review = reviewPanel(session, (past) => boardFor(past.position).make(past, run));
  root.replaceChildren(
    head,
    status, timer,
    h('div', { class: `game-body ${ownScreen ? 'tri' : 'points'}`,
      dataset: { board: kind.kind } },
      h('div', { class: 'board-host' }, board.el, info), side),
  );

  function render() {
    status.textContent = statusText(session);
    timer.textContent = timerText(session);
    info.textContent = ownScreen ? '' : factsText(session.position.facts);
    board.update();
    analysis.refresh();
    side.replaceChildren(
      ...(ownScreen ? [] : [seatsPanel(session), actionsPanel(session)]),
      ...session.extraPanels(),
      analysis.el,
      ...(review.finished ? [review.el] : []),
      moveList(session));
  }

  session.onChange((changed) => { if (changed) render(); });
  render();
  const unlabel = onLanguageChange(() => { drawHead(); render(); });
  const unfollow = session.follow(showError);
  const tick = setInterval(() => { timer.textContent = timerText(session); }, 250);
  return () => {
    unfollow();
    unlabel();
    analysis.stop();
    review.stop();
    clearInterval(tick);
    session.listeners.clear();
  };
}
