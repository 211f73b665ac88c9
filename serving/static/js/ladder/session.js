// A ladder game on the shared game screen: a Session acting with the player's own token (the
// seats of a ladder session belong to players, docs/ladder.md), so a person acts only for
// their own colour, the seats cannot be handed to an AI, and draws can be offered, accepted or
// declined (Stereo Go's draw offers, `draw_offer` in the session view).

import { getJSON } from '../api.js';
import { h } from '../dom.js';
import { attempt } from '../errors.js';
import { Session } from '../session.js';
import '../i18n/ladder.js';

const OUTCOME = { void: 'void (not rated, no record)', friendly: 'friendly (no points)',
  rated: 'rated', unrated: 'not rated (a repeated game)' };

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
      h('h3', {}, `Ladder game (${ladder.kind || 'rated'})`),
      h('p', { id: 'ladder-colour' }, me ? `You play ${me}` : 'You are watching'),
      this.opponent ? h('p', { id: 'ladder-opponent' }, `against ${this.opponent.name} `
        + `(${this.opponent.rank}, ${this.opponent.points} points)`) : null);
    if (ladder.handicap) out.append(h('p', {}, `handicap: ${ladder.handicap}`));
    const offer = view.draw_offer;
    if (me && this.playing && 'draw_offer' in view) {
      if (!offer && this.toPlay === me) {
        out.append(h('button', { type: 'button', id: 'draw-offer',
          onclick: () => attempt(() => this.offerDraw()) }, 'Offer a draw'));
      } else if (offer && offer.status === 'open' && offer.to === me) {
        out.append(h('p', { id: 'draw-state' }, `${offer.by} offers a draw`),
          h('button', { type: 'button', id: 'draw-accept', class: 'primary',
            onclick: () => attempt(() => this.acceptDraw()) }, 'Accept the draw'),
          h('button', { type: 'button', id: 'draw-decline',
            onclick: () => attempt(() => this.declineDraw()) }, 'Decline'));
      } else if (offer) {
        out.append(h('p', { id: 'draw-state' }, offer.status === 'open'
          ? `draw offered by ${offer.by}: waiting for ${offer.to}`
          : `draw offer by ${offer.by} declined`));
      }
    }
    if (me && this.playing && !this.humanToPlay) {
      // the game screen shows Resign on the player's turn; off turn it is here
      out.append(h('button', { type: 'button', id: 'ladder-resign',
        onclick: () => attempt(() => this.resign(me)) }, 'Resign'));
    }
    const outcome = ladder.outcome;
    if (outcome) {
      const parts = [OUTCOME[outcome.kind] || outcome.kind];
      if (me && outcome.points && outcome.points[me]) {
        const p = outcome.points[me];
        parts.push(`points ${p.before} → ${p.after}`);
        const r = outcome.ranks[me];
        if (r) parts.push(`rank ${r.before} → ${r.after}`);
      }
      if (outcome.why) parts.push(outcome.why);
      out.append(h('p', { id: 'ladder-outcome' }, `Ladder: ${parts.join('; ')}`));
    }
    return [out];
  }
}
