// The offline mode's AI, in a Web Worker so the page stays responsive while a level searches.
// Messages (each answered with the same id):
//   {type: 'load', id, game, levels: [{id, url, search}]}  loads every level's network
//   {type: 'move', id, level, moves, seed}  -> {move, value, simulations, ms}
// A move is searched from the game's move list replayed through the rules, so the worker keeps
// no game state of its own.

import { offlineRules } from './games.js';
import { Network } from './network.js';
import { Rng } from './rng.js';
import { search } from './search.js';

let game = null;
const levels = new Map(); // level id -> {network, search}

async function load({ game: id, levels: list }) {
  game = await offlineRules(id);
  if (!game) throw new Error(`no in-browser rules for ${id}`);
  const loaded = await Promise.all(list.map((lv) => Network.load(game, lv.url)));
  list.forEach((lv, i) => levels.set(String(lv.id), { network: loaded[i], search: lv.search }));
  return { levels: [...levels.keys()] };
}

async function move({ level, moves, seed }) {
  const lv = levels.get(String(level));
  if (!lv) throw new Error(`level ${level} is not loaded in this browser`);
  let state = game.initialState();
  for (const m of moves) state = game.apply(state, game.moveToAction(state, m));
  const start = performance.now();
  const rng = seed === undefined || seed === null ? Rng.fromCrypto() : new Rng(seed);
  const result = await search(game, state, (s) => lv.network.evaluate(s), lv.search, rng);
  return {
    move: game.actionToMove(result.action),
    value: result.value,
    simulations: result.simulations,
    ms: performance.now() - start,
  };
}

const HANDLERS = { load, move };

self.onmessage = async ({ data }) => {
  try {
    self.postMessage({ id: data.id, answer: await HANDLERS[data.type](data) });
  } catch (err) {
    self.postMessage({ id: data.id, error: err && err.message ? err.message : String(err) });
  }
};
