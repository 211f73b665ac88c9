// The page's side of the offline AI: the levels an in-browser game offers (the manifest
// written by scripts/export_offline_models.py) and a Web Worker (./worker.js) that runs their
// networks and searches.

import { t } from '../i18n.js';
import '../i18n/errors.js';
import { offlineEntry } from './games.js';

const MODELS = new URL('../../offline/models/', import.meta.url);

/** The in-browser levels of ``gameId`` with the options ``config`` ({game: the key of its
 * entry in ./games.js, levels: [{id, label, elo, file, search}]}), or null when the page
 * cannot play that game with those options by itself. */
export async function offlineLevels(gameId, config = {}) {
  const entry = await offlineEntry(gameId, config);
  if (!entry) return null;
  const response = await fetch(new URL(`${entry.key}/levels.json`, MODELS));
  if (!response.ok) return null;
  const manifest = await response.json();
  for (const lv of manifest.levels) lv.id = String(lv.id);
  return manifest;
}

export class OfflineEngine {
  /** A worker with every level of ``manifest`` loaded: after this the game needs no server. */
  static async start(manifest) {
    const engine = new OfflineEngine();
    await engine.call('load', {
      game: manifest.game,
      levels: manifest.levels.map((lv) => ({
        id: lv.id, url: new URL(`${manifest.game}/${lv.file}`, MODELS).href, search: lv.search,
      })),
    });
    return engine;
  }

  constructor() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.pending = new Map();
    this.nextId = 0;
    this.worker.onmessage = ({ data }) => {
      const call = this.pending.get(data.id);
      this.pending.delete(data.id);
      if (data.error !== undefined) call.reject(new Error(data.error));
      else call.resolve(data.answer);
    };
    this.worker.onerror = (ev) => {
      const why = ev.message || t('offline.workerFailed');
      for (const call of this.pending.values()) call.reject(new Error(why));
      this.pending.clear();
    };
  }

  call(type, body) {
    const id = (this.nextId += 1);
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...body, type, id });
    });
  }

  /** The move of level ``level`` after ``moves``: {move, value, simulations, ms}. */
  choose(level, moves, seed = null) {
    return this.call('move', { level, moves, seed });
  }

  stop() {
    this.worker.terminate();
  }
}
