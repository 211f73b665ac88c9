// A player's control panel (trigolden-rules-and-ui.txt lines 35-62): the round scoring-mode
// marker whose lit ring shows whose turn it is, the pieces in hand, the score, and the
// check / cross slot that changes with who controls the side:
//   person on turn  -> ✓ confirms the turn, ✗ cancels its provisional pieces
//   person waiting  -> a green AI icon hands the side to the default AI at once
//   AI              -> an AI icon that cycles the level, ✗ hands the side back to a person

import { h, points, s } from '../dom.js';
import { handPolygon, KINDS } from './pieces.js';
import { t } from '../i18n.js';
import '../i18n/trigolden.js';

const MARKS = { bracing: '頂', trigolden: '鑫' }; // the markers' characters, as in the source

function marker(p, on) {
  const scoring = p.scoring in MARKS ? p.scoring : 'bracing';
  const name = t(`tg.mode.${scoring}`);
  return h('button', {
    type: 'button', class: `tg-marker${p.lit ? ' lit' : ''}`, dataset: { seat: p.seat },
    title: name + (p.lit && !p.isAI ? t('tg.markerToAI') : ''),
    'aria-label': `${name}${p.lit ? t('tg.toPlay') : ''}`,
    onclick: () => on.marker(p.seat),
  }, h('span', { class: 'tg-marker-mark' }, MARKS[scoring]),
  h('span', { class: 'tg-marker-text' }, name));
}

function handPiece(p, kind, on) {
  const count = p.hand[kind] ?? 0;
  const selected = p.selected && p.selected.kind === kind;
  const flipped = selected && p.selected.flipped;
  const poly = handPolygon(kind, flipped);
  return h('button', {
    type: 'button', dataset: { kind, seat: p.seat },
    class: `tg-hand-piece${selected ? ' selected' : ''}${flipped ? ' flipped' : ''}`,
    disabled: (count === 0 && p.openingKind !== kind) || !p.canPlace,
    title: `${t(`tg.piece.${kind}`)}${selected ? t('tg.flipAgain') : ''}`,
    onclick: () => on.hand(p.seat, kind),
  }, s('svg', { viewBox: '-1.2 -1.2 2.4 2.4', class: 'tg-hand-svg' },
    s('polygon', { points: points(poly), class: `tg-piece ${p.seatClass}` })),
  h('span', { class: 'tg-count' }, `${kind}${flipped ? "'" : ''} × ${count}`));
}

function slots(p, on) {
  const ai = (cls, label, title, fn, disabled = false) => h('button', {
    type: 'button', class: `tg-ai ${cls}`, title, 'aria-label': title, disabled,
    dataset: { seat: p.seat }, onclick: () => fn(p.seat) }, label);
  if (p.isAI) {
    return [
      ai('tg-ai-level', `AI ${p.levelLabel}`, t('tg.aiLevel'),
        on.cycle, p.over),
      h('button', { type: 'button', class: 'tg-cross', dataset: { seat: p.seat },
        title: t('tg.toPerson'), disabled: p.over, onclick: () => on.human(p.seat) },
      '✗'),
    ];
  }
  if (!p.active) {
    return [
      ai('green', 'AI', t('tg.takeover'), on.takeover,
        p.over || !p.hasLevels),
      h('button', { type: 'button', class: 'tg-cross', disabled: true, title: t('tg.cancel') }, '✗'),
    ];
  }
  return [
    h('button', { type: 'button', class: 'tg-check', dataset: { seat: p.seat },
      title: t('tg.confirm'), disabled: !p.turnComplete,
      onclick: () => on.confirm(p.seat) }, '✓'),
    h('button', { type: 'button', class: 'tg-cross', dataset: { seat: p.seat },
      title: t('tg.cancelTurn'), disabled: !p.pending,
      onclick: () => on.cancel(p.seat) }, '✗'),
  ];
}

/**
 * The panel of one seat. ``p``: {seat, seatClass, label, first, isAI, levelLabel, hasLevels,
 * lit, active, canPlace, openingKind, turnComplete, pending, over, scoring, hand, selected, score,
 * total}.
 * ``on``: marker, hand, confirm, cancel, cycle, human, takeover (each gets the seat).
 */
export function tgPanel(p, on) {
  return h('section', { class: `tg-panel ${p.seatClass}${p.lit ? ' active' : ''}`,
    dataset: { seat: p.seat } },
  h('header', { class: 'tg-panel-head' },
    h('span', { class: `swatch ${p.seatClass}` }),
    h('strong', {}, p.label),
    h('small', {}, ` ${t(p.first ? 'tg.first' : 'tg.second')}`)),
  marker(p, on),
  h('div', { class: 'tg-hand' }, KINDS.map((kind) => handPiece(p, kind, on))),
  h('p', { class: 'tg-score' }, t('tg.score', { score: p.score }),
    p.total !== null ? h('span', { class: 'tg-total' }, t('tg.match', { total: p.total })) : null),
  h('div', { class: 'tg-slots' }, slots(p, on)));
}
