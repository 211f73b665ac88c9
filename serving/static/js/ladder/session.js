// A ladder game on the shared game screen: a Session acting with the player's own token (the
// seats of a ladder session belong to players, docs/ladder.md), so a person acts only for
// their own colour, the seats cannot be handed to an AI, and draws can be offered, accepted or
// declined (Stereo Go's draw offers, `draw_offer` in the session view). Its labels come
// through t() (js/i18n/ladder.js); the game screen draws the panel again on a language switch.

import { getJSON } from '../api.js';
import { h } from '../dom.js';
import { attempt } from '../errors.js';
import { t, tOr } from '../i18n.js';
import { seatName } from '../i18n/common.js';
import { Session } from '../session.js';
import '../i18n/ladder.js';
import { playerName } from './labels.js';

export class LadderSession extends Session {
  constructor(id, account) {
    super(id, account.token);
    this.account = account;
    this.seatsLocked = true; // the game screen disables its seat selectors
    this.leaveLabel = 'ladder.back';
    this.opponent = null;
  }

  /** The session, and the opponent's name and rank for the ladder panel. */
  async load() {
    await super.load();
    const seat = this.mySeat;
    const other = Object.keys(this.view.seats).find((s) => s !== seat);
    const id = other && this.view.seats[other].player;
    if (id) {
      this.opponent = await getJSON(`/v1/players/${encodeURIComponent(id)}`).catch(() => null);
    }
  }

  /** The colour this player plays in the session, or null (watching). */
  get mySeat() {
    const seats = this.view.seats;
    return Object.keys(seats).find((s) => seats[s].player === this.account.id) ?? null;
  }

  get humanToPlay() {
    return this.toPlay !== null && this.toPlay === this.mySeat;
  }

  offerDraw() { return this.write('POST', '/draw/offer'); }
  acceptDraw() { return this.write('POST', '/draw/accept'); }
  declineDraw() { return this.write('POST', '/draw/decline'); }

  /** The panel the game screen adds: who plays what, draw offers, resignation, the outcome. */
  extraPanels() {
    const view = this.view;
    const me = this.mySeat;
    const ladder = view.ladder || {};
    const out = h('div', { class: 'ladder-panel', id: 'ladder-panel' },
      h('h3', {}, t('ladder.gameTitle', { kind: t(`ladder.kind.${ladder.kind || 'rated'}`) })),
      h('p', { id: 'ladder-colour' }, me ? t('ladder.youPlay', { seat: seatName(me) })
        : t('ladder.watching')),
      this.opponent ? h('p', { id: 'ladder-opponent' }, t('ladder.against', {
        name: playerName(this.opponent), rank: this.opponent.rank,
        points: this.opponent.points })) : null);
    if (ladder.handicap) out.append(h('p', {}, t('ladder.handicapStones', { n: ladder.handicap })));
    const offer = view.draw_offer;
    if (me && this.playing && 'draw_offer' in view) {
      if (!offer && this.toPlay === me) {
        out.append(h('button', { type: 'button', id: 'draw-offer',
          onclick: () => attempt(() => this.offerDraw()) }, t('ladder.offerDraw')));
      } else if (offer && offer.status === 'open' && offer.to === me) {
        out.append(h('p', { id: 'draw-state' }, t('ladder.offers', { seat: seatName(offer.by) })),
          h('button', { type: 'button', id: 'draw-accept', class: 'primary',
            onclick: () => attempt(() => this.acceptDraw()) }, t('ladder.acceptDraw')),
          h('button', { type: 'button', id: 'draw-decline',
            onclick: () => attempt(() => this.declineDraw()) }, t('ladder.decline')));
      } else if (offer) {
        out.append(h('p', { id: 'draw-state' }, offer.status === 'open'
          ? t('ladder.drawWaiting', { by: seatName(offer.by), to: seatName(offer.to) })
          : t('ladder.drawDeclined', { by: seatName(offer.by) })));
      }
    }
    if (me && this.playing && !this.humanToPlay) {
      // the game screen shows Resign on the player's turn; off turn it is here
      out.append(h('button', { type: 'button', id: 'ladder-resign',
        onclick: () => attempt(() => this.resign(me)) }, t('ladder.resign')));
    }
    const outcome = ladder.outcome;
    if (outcome) {
      const parts = [tOr(`ladder.kind.${outcome.kind}`, outcome.kind)];
      if (me && outcome.points && outcome.points[me]) {
        const p = outcome.points[me];
        parts.push(t('ladder.pointsChange', { before: p.before, after: p.after }));
        const r = outcome.ranks[me];
        if (r) parts.push(t('ladder.rankChange', { before: r.before, after: r.after }));
      }
      if (outcome.why) parts.push(outcome.why);
      out.append(h('p', { id: 'ladder-outcome' },
        t('ladder.outcome', { parts: parts.join(t('ladder.partSep')) })));
    }
    return [out];
  }
}
