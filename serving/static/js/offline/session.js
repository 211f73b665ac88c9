// An offline game: the page plays it by itself, rules, search and networks included, and the
// game screen (game.js) draws it exactly as a server session. OfflineSession offers the same
// view and methods as Session; instead of the API, moves go through the in-page rules
// (./games.js: the rules of the entry of the game and its options) and AI seats are searched
// by ./engine.js's worker. Nothing is sent to the server: the game lives in this page and in
// localStorage (a reload resumes it, once the page and its levels load again).

import { PageError } from '../errors.js';
import { gameName, seatName } from '../i18n/common.js';
import { Session } from '../session.js';
import { readStored } from '../store.js';
import { OfflineEngine, offlineLevels } from './engine.js';
import { offlineRules } from './games.js';

const KEY = 'qizero.offline';

/** The saved offline game ({game, config, seats, events}), or null. */
export function readOffline() {
  return readStored(KEY, (saved) => saved.game && typeof saved.game.id === 'string');
}

export function forgetOffline() {
  localStorage.removeItem(KEY);
}

export class OfflineSession extends Session {
  /** Load the levels of ``saved.game`` into a worker and open the game. ``saved``: the
   * catalogue entry ``game``, its options ``config``, ``seats`` ({seat: {type, level}}) and
   * ``events`` so far; ``manifest``: the in-browser levels, when the caller has them already. */
  static async open(saved, manifest = null) {
    const levels = manifest || await offlineLevels(saved.game.id, saved.config);
    const rules = levels && await offlineRules(levels.game); // the manifest's game: its key
    if (!rules) throw new PageError('offline.noLevels', { game: () => gameName(saved.game.id) });
    const session = new OfflineSession(saved, levels, await OfflineEngine.start(levels), rules);
    session.save();
    session.think();
    return session;
  }

  constructor(saved, manifest, engine, rules) {
    super('offline', null);
    this.rules = rules;
    this.engine = engine;
    this.game = saved.game;
    this.inBrowser = true; // the game screen's title says so
    this.saved = saved;
    this.levels = {
      levels: manifest.levels.map(({ id, label, elo }) => ({ id, label, elo })),
      default: null,
    };
    this.seatConfig = structuredClone(saved.seats);
    this.events = [];
    this.state = this.rules.initialState();
    for (const ev of saved.events || []) this.play(ev);
    this.version = 0;
    this.thinking = false;
    this.aiError = null;
    this.refresh();
  }

  get moves() {
    return this.events.filter((ev) => ev.t === 'move').map((ev) => ev.m);
  }

  /** Play ``event`` (a move, or a resignation where the rules have one; throws, saying why,
   * on an illegal move) and record it. */
  play(event) {
    const { rules } = this;
    this.state = event.t === 'resign'
      ? rules.resign(this.state, rules.playerNames.indexOf(event.seat))
      : rules.apply(this.state, rules.moveToAction(this.state, event.m));
    this.events.push(event);
  }

  /** The view a server session would give for this game (the fields game.js reads). */
  refresh() {
    const { rules, state } = this;
    const names = rules.playerNames;
    const result = rules.result(state);
    this.view = {
      game: this.saved.game.id,
      config: this.saved.config || {},
      version: this.version,
      status: result ? 'over' : 'playing',
      result: result && {
        winner: result.winner === null ? null : names[result.winner],
        reason: result.reason || 'rules',
        ...(result.score && {
          score: Object.fromEntries(names.map((n, i) => [n, result.score[i]])),
        }),
      },
      seats: this.seatConfig,
      confirm_turns: false,
      turn_complete: false,
      pending: [],
      events: this.events,
      moves: this.moves,
      match: { history: [], results: [], games: 1, current: 1 },
      position: {
        state: rules.toJson(state),
        legal_moves: rules.legalActions(state).map((a) => rules.actionToMove(a)),
        to_play: result ? null : names[rules.toPlay(state)],
        board: rules.boardView(state),
        facts: rules.statusFacts(state),
      },
      timer: {},
      ai_thinking: this.thinking,
      ai_error: this.aiError,
      scoring: null,
    };
    this.fetchedAt = performance.now();
  }

  changed() {
    this.version += 1;
    this.refresh();
    this.save();
    this.notify(true);
  }

  save() {
    const { game, config } = this.saved;
    localStorage.setItem(KEY, JSON.stringify({
      game, config, seats: this.seatConfig, events: this.events,
    }));
  }

  async load() {}

  async poll() {}

  /** An offline game has no server session: its moves are reviewed as a move list. */
  reviewRequest() {
    return ['POST', `/v1/games/${this.view.game}/review`,
      { config: this.view.config || {}, moves: this.view.moves }];
  }

  /** No event stream to follow: the view changes only in this page. */
  follow() {
    return () => {};
  }

  async write() {
    throw new PageError('offline.noServer');
  }

  async move(move) {
    const seat = this.toPlay;
    if (!this.humanToPlay) {
      throw seat ? new PageError('offline.aiSeat', { seat: () => seatName(seat) })
        : new PageError('offline.over');
    }
    this.play({ t: 'move', seat, m: move });
    this.changed();
    this.think();
    return this.view;
  }

  async resign(seat) {
    if (!this.rules.resign) throw new Error(`${this.game.name} has no resignation`);
    this.play({ t: 'resign', seat });
    this.changed();
    return this.view;
  }

  async setSeat(seat, type, level = null) {
    this.seatConfig[seat] = type === 'ai' ? { type, level: String(level) } : { type: 'human' };
    this.changed();
    this.think();
    return this.view;
  }

  /** Play the AI seats' moves while an AI seat is to move. One loop at a time; a seat changed
   * while a level searches throws that search's move away and the loop looks again. */
  async think() {
    if (this.thinking) return;
    this.thinking = true;
    this.aiError = null;
    try {
      for (let seat = this.toPlay; seat && this.isAI(seat); seat = this.toPlay) {
        const version = this.version;
        const { level } = this.seatConfig[seat];
        this.refresh();
        this.notify(true);
        const answer = await this.engine.choose(level, this.moves);
        if (this.version === version) {
          this.play({ t: 'move', seat, m: answer.move, by: 'ai', level, ms: answer.ms });
          this.changed();
        }
      }
    } catch (err) {
      this.aiError = err.message;
    } finally {
      this.thinking = false;
      this.refresh();
      this.notify(true);
    }
  }

  stop() {
    this.engine.stop();
    this.listeners.clear();
  }
}
