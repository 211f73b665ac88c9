// The TriGolden play screen (trigolden-rules-and-ui.txt lines 35-64): board in the middle,
// a control panel per player on either side (above and below on narrow screens, by CSS).
// What may be placed where comes only from the API: the session's legal moves in notation,
// and the polygon of each preview from POST /v1/games/trigolden/positions with that move
// appended (the engine's own geometry, so a preview is exactly where the piece will land).

import { api } from '../api.js';
import { h } from '../dom.js';
import { askConfirm } from '../dialog.js';
import { PageError, showError } from '../errors.js';
import { readAngle, saveAngle } from '../store.js';
import { tgBoard } from './board.js';
import { tgPanel } from './panel.js';
import { CHIRAL, parseMove } from './pieces.js';
import { t } from '../i18n.js';
import '../i18n/trigolden.js';
import { seatName } from '../i18n/common.js';

function hint(key, params = {}) {
  showError(new PageError(key, params));
}

export function trigoldenScreen(session, run) {
  const ui = { selected: null, target: null, previews: [], previewKey: '', angle: null,
    angleGame: -1, seat: null };
  const polygons = new Map(); // "moves|move" -> polygon of the placed piece

  const left = h('div', { class: 'tg-side tg-side-a' });
  const right = h('div', { class: 'tg-side tg-side-b' });
  const board = tgBoard({
    onPiece: (i) => tapPiece(i),
    onPreview: (m) => place(m),
    onRotate: (deg, done) => rotate(deg, done),
    onArbitration: () => arbitration(),
  });
  const el = h('div', { class: 'tg-layout' }, left, h('div', { class: 'tg-centre' }, board.el),
    right);

  // ------------------------------------------------------------------ derived facts
  function facts() {
    const view = session.view;
    const st = session.position.state;
    const committed = view.moves.length;
    const pieces = session.position.drawing.pieces.map((p) => {
      const seat = session.seatOfPlayer(p.owner);
      return { ...p, seat, seatClass: `seat-${session.seats.indexOf(seat)}`,
        pending: p.index >= committed };
    });
    // the seat whose turn it is: while a complete turn waits for its ✓, still the one who
    // placed it (the API already shows the opponent to move)
    const pendingPieces = pieces.filter((p) => p.pending);
    const active = !session.playing ? null
      : pendingPieces.length ? pendingPieces[pendingPieces.length - 1].seat : session.turnSeat;
    const canPlace = active !== null && !session.isAI(active) && !view.turn_complete
      && session.toPlay === active;
    const opening = session.playing && committed === 0;
    // the opening piece stays tappable until ✓: tapping its kind again flips it
    const openingPiece = opening && view.pending.length === 1 ? view.pending[0] : null;
    const canTapHand = canPlace
      || (openingPiece !== null && active !== null && !session.isAI(active));
    return { view, st, pieces, active, canPlace, canTapHand, opening, openingPiece };
  }

  // ------------------------------------------------------------------ actions
  async function positionAfter(moves, move) {
    const key = `${moves.join(' ')}|${move}`;
    if (!polygons.has(key)) {
      const pos = await api('POST', '/v1/games/trigolden/positions',
        { config: session.view.config, moves: [...moves, move] });
      const drawn = pos.drawing.pieces;
      polygons.set(key, drawn[drawn.length - 1].polygon);
    }
    return polygons.get(key);
  }

  function candidates(f) {
    if (!ui.selected || ui.target === null || !f.canPlace) return [];
    return session.legal.filter((m) => {
      const p = parseMove(m);
      return p && p.target === ui.target && p.kind === ui.selected.kind
        && (!CHIRAL[p.kind] || p.flipped === ui.selected.flipped);
    });
  }

  async function refreshPreviews() {
    const f = facts();
    const cands = candidates(f);
    const key = `${session.view.version}|${ui.target}|${cands.join(',')}`;
    if (key === ui.previewKey) return;
    ui.previewKey = key;
    ui.previews = [];
    if (ui.selected && ui.target !== null && f.canPlace && !cands.length) {
      hint('tg.noPlacement', { target: ui.target });
    }
    update();
    if (!cands.length) return;
    try {
      const polys = await Promise.all(cands.map((m) => positionAfter(f.st.moves, m)));
      if (ui.previewKey !== key) return; // the position or the choice changed meanwhile
      ui.previews = cands.map((move, i) => ({ move, polygon: polys[i] }));
      update();
    } catch (err) {
      showError(err);
    }
  }

  function tapHand(seat, kind) {
    const f = facts();
    if (seat !== f.active || !f.canTapHand) return;
    if (f.opening) {
      // opening: the tapped piece drops at the centre; tapping the same kind again flips it
      const placed = f.openingPiece;
      const same = placed && placed.replace("'", '') === kind;
      const flipped = same ? !placed.endsWith("'") : false;
      ui.selected = { kind, flipped };
      run(async () => {
        if (placed) await session.cancel();
        await session.move(kind + (flipped ? "'" : ''));
      });
      return;
    }
    if (f.view.turn_complete) return;
    if (ui.selected && ui.selected.kind === kind) ui.selected.flipped = !ui.selected.flipped;
    else ui.selected = { kind, flipped: false };
    refreshPreviews();
    update();
  }

  function tapPiece(index) {
    const f = facts();
    if (!f.canPlace) return;
    const piece = f.pieces.find((p) => p.index === index);
    if (!ui.selected) {
      hint('tg.selectFirst');
      return;
    }
    if (piece.seat === f.active) {
      hint('tg.tapOpponent');
      return;
    }
    ui.target = index;
    refreshPreviews();
  }

  function place(move) {
    ui.previews = [];
    ui.previewKey = '';
    run(() => session.move(move));
  }

  function rotate(deg, done) {
    ui.angle = deg;
    if (done) saveAngle(session.id, session.gameIndex, deg);
    update();
  }

  async function arbitration() {
    const ok = await askConfirm([t('tg.arbQuestion'), t('tg.arbExplain')],
      { ok: t('tg.arbOk'), id: 'arbitration-dialog' });
    if (ok) run(() => session.arbitration());
  }

  const defaultLevel = () => session.levels.default;
  const on = {
    marker: (seat) => {
      const f = facts();
      if (seat !== f.active || session.isAI(seat)) return;
      if (!defaultLevel()) { hint('tg.noLevels'); return; }
      run(() => session.setSeat(seat, 'ai', defaultLevel()));
    },
    hand: tapHand,
    confirm: () => run(async () => {
      await session.confirm();
      ui.selected = null;
      ui.target = null;
    }),
    cancel: () => run(() => session.cancel()),
    cycle: (seat) => run(() => session.setSeat(seat, 'ai',
      session.nextLevel(session.view.seats[seat].level))),
    human: (seat) => run(() => session.setSeat(seat, 'human')),
    takeover: (seat) => run(() => session.setSeat(seat, 'ai', defaultLevel())),
  };

  // ------------------------------------------------------------------ drawing
  function matchTotal(seat) {
    const view = session.view;
    if (view.match.games < 2) return null;
    let total = 0;
    for (const r of view.match.results) total += (r.score && r.score[seat]) || 0;
    if (view.status === 'playing') total += session.position.state.score[session.playerOfSeat(seat)];
    return total;
  }

  function update() {
    const f = facts();
    if (ui.angleGame !== session.gameIndex) {
      ui.angleGame = session.gameIndex;
      ui.angle = readAngle(session.id, session.gameIndex);
      ui.target = null;
    }
    if (f.active !== ui.seat) { // a new side's turn starts with nothing selected
      ui.seat = f.active;
      ui.selected = null;
      ui.target = null;
    }
    if (!f.canPlace) {
      ui.previews = [];
      ui.previewKey = '';
    }
    if (ui.target !== null && !f.pieces.some((p) => p.index === ui.target)) ui.target = null;
    const firstSeat = session.seatOfPlayer(session.seats[0]);
    const panels = session.seats.map((seat, i) => {
      const player = session.playerOfSeat(seat);
      const cfg = f.view.seats[seat];
      return tgPanel({
        seat, seatClass: `seat-${i}`, label: seatName(seat), first: seat === firstSeat,
        isAI: cfg.type === 'ai', levelLabel: cfg.level ? session.levelLabel(cfg.level) : '',
        hasLevels: Boolean(defaultLevel()), lit: seat === f.active, active: seat === f.active,
        canPlace: f.canTapHand && seat === f.active, turnComplete: f.view.turn_complete,
        openingKind: seat === f.active && f.openingPiece ? f.openingPiece.replace("'", '') : null,
        pending: f.view.pending.length > 0, over: !session.playing,
        scoring: f.st.scoring, hand: f.st.hands[player] || {},
        selected: seat === f.active ? ui.selected : null,
        score: f.st.score[player], total: matchTotal(seat),
      }, on);
    });
    left.replaceChildren(panels[0]);
    right.replaceChildren(panels[1]);
    const centrePiece = f.pieces[0];
    board.update({
      pieces: f.pieces.map((p) => ({ ...p, mine: p.seat === f.active })),
      target: f.canPlace ? ui.target : null,
      previews: ui.previews,
      structures: f.st.structures,
      centre: centrePiece ? centrePiece.polygon.reduce((a, v) => [a[0] + v[0] / centrePiece
        .polygon.length, a[1] + v[1] / centrePiece.polygon.length], [0, 0]) : [0, 0],
      angle: ui.angle,
      canRotate: f.opening && f.view.pending.length === 1 && f.active !== null
        && !session.isAI(f.active),
      canArbitrate: f.st.variant === 'standard' && f.active !== null && !session.isAI(f.active)
        && !f.view.pending.length && !f.opening,
    });
  }

  return {
    el,
    update() {
      update();
      // a new position (a placed piece, an AI move) may change the previews of the target
      if (ui.selected && ui.target !== null) refreshPreviews();
    },
  };
}
