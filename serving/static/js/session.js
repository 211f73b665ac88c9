// One game session as the client sees it: the latest view from the API, the catalogue entry
// and AI levels of its game, and every write the API offers (each carries the version last
// seen, so a write against a changed session gets a readable 409 and a fresh view). The view
// is kept current by the session's event stream (docs/service.md, Live events), or by polling
// while the stream is down.

import { api, ApiError, getJSON } from './api.js';
import { addGameLabels } from './i18n/common.js';
import { levelName } from './i18n/levels.js';

const POLL_MS = 1000; // polling, only while the event stream is down
const REOPEN_MS = 5000; // a stream the server closed is opened afresh after this long

export class Session {
  constructor(id, token) {
    this.id = id;
    this.token = token;
    this.view = null;
    this.game = null;
    this.levels = { levels: [], default: null };
    this.fetchedAt = 0;
    this.listeners = new Set();
    this.seatsLocked = false; // the game screen's seat selectors are disabled when true
    this.leaveLabel = 'game.newGame'; // the label key of the game screen's button that leaves
    this.inBrowser = false; // an offline game (js/offline/session.js)
  }

  /** Panels this kind of session adds to the game screen's side (js/ladder/session.js). */
  extraPanels() {
    return [];
  }

  /** The request for this game's review (js/review/): [method, path, body]. */
  reviewRequest() {
    return ['GET', `/v1/sessions/${encodeURIComponent(this.id)}/review`, undefined];
  }

  async load() {
    this.accept(await getJSON(`/v1/sessions/${encodeURIComponent(this.id)}`));
    [this.game, this.levels] = await Promise.all([
      getJSON(`/v1/games/${this.view.game}`),
      getJSON(`/v1/games/${this.view.game}/levels?config=${
        encodeURIComponent(JSON.stringify(this.view.config || {}))}`),
    ]);
    addGameLabels(this.game);
    this.notify(true);
  }

  /** Take a view unless an older one arrives after a newer (a poll racing a write). */
  accept(view) {
    const old = this.view;
    if (old && view.version < old.version) return false;
    this.view = view;
    this.fetchedAt = performance.now();
    return !old || old.version !== view.version || old.ai_thinking !== view.ai_thinking
      || old.ai_error !== view.ai_error;
  }

  onChange(fn) {
    this.listeners.add(fn);
  }

  notify(changed) {
    for (const fn of this.listeners) fn(changed);
  }

  async poll() {
    const changed = this.accept(await getJSON(`/v1/sessions/${encodeURIComponent(this.id)}`));
    this.notify(changed);
  }

  /**
   * Keep the view current from the event stream: its snapshot and the view it sends after each
   * burst of events replace the view (other kinds are not needed to draw the screen). While the
   * stream is down the session is polled every second; EventSource reconnects by itself with
   * Last-Event-ID, and a stream the server closed before the end is opened afresh. Returns a
   * stop function.
   */
  follow(onError) {
    let source = null;
    let poll = null;
    let reopen = null;
    const polling = (on) => {
      if (on && !poll) poll = setInterval(() => this.poll().catch(onError), POLL_MS);
      if (!on && poll) { clearInterval(poll); poll = null; }
    };
    const open = () => {
      reopen = null;
      source = new EventSource(`/v1/sessions/${encodeURIComponent(this.id)}/events`);
      source.onopen = () => polling(false); // a resumed stream sends whatever was missed
      source.onmessage = (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.kind === 'snapshot' || msg.kind === 'view') this.notify(this.accept(msg.data));
        if (this.view.status === 'over') source.close(); // the server ends the stream too
      };
      source.onerror = () => {
        if (this.view.status === 'over') return;
        polling(true);
        if (source.readyState === EventSource.CLOSED && !reopen) {
          reopen = setTimeout(open, REOPEN_MS);
        }
      };
    };
    if (typeof EventSource === 'function') open();
    else polling(true);
    return () => {
      if (source) source.close();
      clearTimeout(reopen);
      polling(false);
    };
  }

  async write(method, suffix, body = {}) {
    const path = `/v1/sessions/${encodeURIComponent(this.id)}${suffix}`;
    try {
      const view = await api(method, path, { ...body, version: this.view.version }, this.token);
      this.notify(this.accept(view));
      return view;
    } catch (err) {
      if (err instanceof ApiError && (err.status === 409 || err.status === 422)) {
        await this.poll().catch(() => {});
      }
      throw err;
    }
  }

  move(move) { return this.write('POST', '/moves', { move }); }
  confirm() { return this.write('POST', '/confirm'); }
  cancel() { return this.write('POST', '/cancel'); }
  arbitration() { return this.write('POST', '/arbitration'); }
  resign(seat) { return this.write('POST', '/resign', { seat }); }
  markDead(dead) { return this.write('PUT', '/scoring/dead', { dead }); }
  acceptScore() { return this.write('POST', '/scoring/accept'); }
  resume() { return this.write('POST', '/resume'); }

  setSeat(seat, type, level = null) {
    return this.write('PUT', `/seats/${encodeURIComponent(seat)}`, { type, level });
  }

  // ------------------------------------------------------------------ derived facts
  get position() { return this.view.position; }
  get legal() { return this.view.position.legal_moves; }
  get seats() { return this.game.players; }
  get playing() { return this.view.status === 'playing'; }
  /** The seat to move (seat names: in a match the first player swaps each game). */
  get toPlay() { return this.playing ? this.view.position.to_play : null; }

  isAI(seat) { return this.view.seats[seat].type === 'ai'; }

  /** Whether a person may act on this screen now (the owner token acts for every seat). */
  get humanToPlay() {
    const seat = this.toPlay;
    return seat !== null && !this.isAI(seat);
  }

  /**
   * The seat whose turn is in progress. Once a provisional turn is complete the API already
   * shows the next side to move, but the turn still belongs to the side that must confirm it.
   */
  get turnSeat() {
    const view = this.view;
    if (!this.playing) return null;
    if (!(view.confirm_turns && view.turn_complete)) return this.toPlay;
    const seats = this.game.players;
    const next = view.position.to_play;
    return next !== null && seats.length === 2 ? seats.find((s) => s !== next) : null;
  }

  /** 0-based index of the game in progress within the match. */
  get gameIndex() { return Math.max(0, this.view.match.current - 1); }

  /** The seat that plays as the game's player ``name`` in the game in progress. */
  seatOfPlayer(name) {
    const names = this.game.players;
    return names[(names.indexOf(name) + this.gameIndex) % names.length];
  }

  playerOfSeat(seat) {
    const names = this.game.players;
    const n = names.length;
    return names[(((names.indexOf(seat) - this.gameIndex) % n) + n) % n];
  }

  levelLabel(id) {
    const lv = this.levels.levels.find((l) => l.id === id);
    return lv ? levelName(lv.label) : id;
  }

  /** The level after ``id`` in the ladder (the AI icon cycles through them). */
  nextLevel(id) {
    const ids = this.levels.levels.map((l) => l.id);
    return ids[(ids.indexOf(id) + 1) % ids.length];
  }

  /** Seconds since the view arrived (clocks count down between views). */
  elapsed() {
    return (performance.now() - this.fetchedAt) / 1000;
  }

  /** Seconds left on the per-turn timer now, or null without one. */
  remainingSeconds() {
    const t = this.view.timer;
    if (!t || !t.turn_seconds || t.remaining === null || t.remaining === undefined) return null;
    return Math.max(0, t.remaining - this.elapsed());
  }
}
