// The game screen shared by every game: status line (whose turn, AI thinking, result), turn
// timer, seats, the actions the session offers (confirm/cancel, pass, resign, scoring), the
// move list and match results, around a board that each game draws its own way. The session's
// event stream brings AI moves and moves from other screens (polling only while it is down).

import { h } from './dom.js';
import { askConfirm } from './dialog.js';
import { attempt as run, showError } from './errors.js';
import { pointBoard } from './boards/points.js';
import { fangqi, jiugong } from './boards/layouts.js';
import { stereoGoBoard } from './boards/cylinder.js';
import { trigoldenScreen } from './trigolden/screen.js';
import { analysisPanel } from './analysis/panel.js';
import { reviewPanel } from './review/panel.js';

function scoreText(score) {
  return Object.entries(score).map(([seat, v]) => `${seat} ${v}`).join(' – ');
}

const REASONS = {
  rules: 'end of the game', score: 'counting', resignation: 'resignation',
  arbitration: 'arbitration', timeout: 'time-out',
};

/** One sentence for a game's or the match's result. */
export function resultText(result) {
  if (!result) return '';
  const who = result.winner ? `${result.winner} wins` : 'draw';
  const why = REASONS[result.reason] || result.reason;
  const parts = [`${who} (${why})`];
  if (result.totals) parts.push(`match totals: ${scoreText(result.totals)}`);
  else if (result.score) parts.push(`score: ${scoreText(result.score)}`);
  return parts.join('; ');
}

function statusText(session) {
  const text = turnText(session);
  const problem = session.view.ai_error;
  return problem ? `${text} — AI problem: ${problem}` : text;
}

function turnText(session) {
  const view = session.view;
  if (view.status === 'over') return `Game over: ${resultText(view.result)}`;
  if (view.status === 'scoring') {
    return 'Scoring: click stones to mark dead chains, then accept the score';
  }
  const seat = session.turnSeat;
  if (view.confirm_turns && view.turn_complete) {
    return `${seat ? `${seat}: ` : ''}confirm or cancel the turn`;
  }
  if (!seat) return '';
  if (session.isAI(seat)) {
    const lv = session.levelLabel(view.seats[seat].level);
    return `${seat} to play: AI ${lv}${view.ai_thinking ? ' is thinking…' : ''}`;
  }
  return `${seat} to play`;
}

function eventText(ev) {
  if (ev.t === 'move') {
    const by = ev.by === 'ai' ? ` (AI ${ev.level})` : ev.by === 'arbiter' ? ' (arbiter)' : '';
    return `${ev.seat}: ${ev.m}${by}`;
  }
  if (ev.t === 'timeout') return `${ev.seat}: time-out`;
  if (ev.t === 'resign') return `${ev.seat}: resigns`;
  return JSON.stringify(ev);
}

function moveList(session) {
  const view = session.view;
  const games = [...view.match.history, view.events];
  const out = h('div', { class: 'moves-panel' }, h('h3', {}, 'Moves'));
  games.forEach((events, g) => {
    if (games.length > 1) out.append(h('h4', {}, `Game ${g + 1}`));
    const list = h('ol', { class: 'move-list', id: g === games.length - 1 ? 'moves' : null });
    for (const ev of events) list.append(h('li', { class: `ev-${ev.t}` }, eventText(ev)));
    if (g === games.length - 1) {
      for (const m of view.pending) {
        list.append(h('li', { class: 'pending' }, `${session.turnSeat ?? ''}: ${m} (provisional)`));
      }
    }
    out.append(list);
    const res = view.match.results[g];
    if (res && view.match.games > 1) {
      out.append(h('p', { class: 'game-result' }, `Game ${g + 1}: ${resultText(res)}`));
    }
  });
  return out;
}

/** Seat rows: who plays each side; a select hands a side to a person or an AI level. */
function seatsPanel(session) {
  const view = session.view;
  const out = h('div', { class: 'seats-panel' }, h('h3', {}, 'Players'));
  for (const seat of session.seats) {
    const cfg = view.seats[seat];
    const select = h('select', {
      class: 'seat-type', dataset: { seat }, disabled: !session.playing || session.seatsLocked,
      onchange: (ev) => run(() => {
        const v = ev.target.value;
        return v === 'human' ? session.setSeat(seat, 'human') : session.setSeat(seat, 'ai', v);
      }),
    }, h('option', { value: 'human', selected: cfg.type === 'human' }, 'Human'),
    session.levels.levels.map((lv) => h('option', {
      value: lv.id, selected: cfg.type === 'ai' && cfg.level === lv.id }, `AI: ${lv.label}`)));
    out.append(h('div', { class: `seat-row${session.toPlay === seat ? ' to-play' : ''}`,
      dataset: { seat } },
    h('span', { class: `swatch ${seat}` }),
    h('span', { class: 'seat-name' }, seat), select));
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
        disabled: !view.turn_complete, onclick: () => run(() => session.confirm()) }, '✓ Confirm'),
      h('button', { type: 'button', id: 'cancel', disabled: !view.pending.length,
        onclick: () => run(() => session.cancel()) }, '✗ Cancel'));
  }
  if (session.humanToPlay && session.legal.includes('pass')) {
    out.append(h('button', { type: 'button', id: 'pass',
      onclick: () => run(() => session.move('pass')) }, 'Pass'));
  }
  if (session.game.sessions.resign && session.humanToPlay) {
    const seat = session.toPlay;
    out.append(h('button', { type: 'button', id: 'resign', onclick: () => run(async () => {
      if (await askConfirm([`Resign for ${seat}?`])) await session.resign(seat);
    }) }, 'Resign'));
  }
  if (view.status === 'scoring') {
    const sc = view.scoring;
    const marks = sc.dead.length ? sc.dead.join(', ') : 'none';
    out.append(h('p', {}, `Dead chains marked: ${marks}. Accepted by: `
      + `${sc.accepted.join(', ') || 'nobody yet'}.`));
    if (sc.proposed && sc.proposed.length) {
      out.append(h('button', { type: 'button', id: 'use-proposed',
        title: `the server's guess: ${sc.proposed.join(', ')}`,
        onclick: () => run(() => session.markDead(sc.proposed)) }, 'Mark the proposed dead'));
    }
    out.append(h('button', { type: 'button', id: 'accept-score', class: 'primary',
      onclick: () => run(() => session.acceptScore()) }, 'Accept the score'),
    h('button', { type: 'button', id: 'resume',
      onclick: () => run(() => session.resume()) }, 'Resume play'));
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
  if (main > 0) return `${seat} ${clockFormat(main)} + ${c.periods_left} × byo-yomi`;
  const spent = c.main_left > 0 ? -main : run;
  const period = (c.period_left ?? 0) - (c.main_left > 0 ? 0 : spent);
  return `${seat} byo-yomi ${clockFormat(period)} (${c.periods_left} period(s) left)`;
}

/** The per-turn timer, or the main time + byo-yomi clock of each seat. */
function timerText(session) {
  const view = session.view;
  if (view.status !== 'playing') return '';
  const parts = [];
  const left = session.remainingSeconds();
  if (left !== null) {
    const deadline = new Date(view.timer.deadline * 1000).toLocaleTimeString();
    parts.push(`⏱ ${session.toPlay}: ${Math.ceil(left)} s left (until ${deadline})`);
  }
  const clock = view.timer.clock;
  if (clock && clock.seats) {
    const elapsed = session.elapsed();
    parts.push(`⏱ ${Object.entries(clock.seats)
      .map(([seat, c]) => clockSeatText(seat, c, elapsed)).join(' · ')}`);
  }
  return parts.join(' · ');
}

/** A board for each non-TriGolden game (point boards). */
function pointBoardFor(session) {
  const id = session.view.game;
  if (id === 'jiugong') return pointBoard(session, jiugong, { lastMove: lastEventMove });
  if (id === 'fangqi') return pointBoard(session, fangqi, { lastMove: lastEventMove });
  return stereoGoBoard(session);
}

function lastEventMove(session) {
  const moves = [...session.view.moves, ...session.view.pending];
  return moves.length ? moves[moves.length - 1] : null;
}

function stateLine(session) {
  const st = session.position.state;
  if (session.view.game === 'fangqi') {
    const hand = Object.entries(st.hand).map(([k, v]) => `${k} ${v}`).join(', ');
    return `phase: ${st.phase}; extra actions owed: ${st.owed}; in hand: ${hand}`;
  }
  if (session.view.game === 'stereo_go') {
    return `prisoners: black ${st.captures[0]}, white ${st.captures[1]}`
      + (session.view.config.komi !== undefined ? `; komi ${session.view.config.komi}` : '');
  }
  if (session.view.game === 'jiugong') {
    return st.shared_locked ? 'the shared piece is locked this turn' : 'the shared piece is free';
  }
  return '';
}

/** Build the game screen in ``root`` and keep it current; returns a stop function. */
export function openGame(root, session, onLeave) {
  const status = h('p', { id: 'status', class: 'status', 'aria-live': 'polite' });
  const timer = h('p', { id: 'timer', class: 'timer' });
  const isTri = session.view.game === 'trigolden';
  const board = isTri ? trigoldenScreen(session, run) : pointBoardFor(session);
  const info = h('p', { class: 'state-line' });
  const side = h('aside', { class: 'side' });
  const analysis = analysisPanel(session, board);
  const review = reviewPanel(session,
    (past) => (isTri ? trigoldenScreen(past, run) : pointBoardFor(past)));
  root.replaceChildren(
    h('div', { class: 'game-head' },
      h('h2', {}, session.game.name),
      h('span', { class: 'session-id', title: 'session id' }, session.id),
      h('button', { type: 'button', id: 'new-game', onclick: onLeave }, session.leaveLabel)),
    status, timer,
    h('div', { class: `game-body ${isTri ? 'tri' : 'points'}` },
      h('div', { class: 'board-host' }, board.el, info), side),
  );

  function render() {
    status.textContent = statusText(session);
    timer.textContent = timerText(session);
    info.textContent = isTri ? '' : stateLine(session);
    board.update();
    analysis.refresh();
    side.replaceChildren(
      ...(isTri ? [] : [seatsPanel(session), actionsPanel(session)]),
      ...session.extraPanels(),
      analysis.el,
      ...(review.finished ? [review.el] : []),
      moveList(session));
  }

  session.onChange((changed) => { if (changed) render(); });
  render();
  const unfollow = session.follow(showError);
  const tick = setInterval(() => { timer.textContent = timerText(session); }, 250);
  return () => {
    unfollow();
    analysis.stop();
    review.stop();
    clearInterval(tick);
    session.listeners.clear();
  };
}
