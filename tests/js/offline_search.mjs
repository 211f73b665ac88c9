// Runs the in-browser search (serving/static/js/offline/search.js) under node with a fake
// network that tests/test_web_offline.py computes the same way in Python: integer weights
// over the observation (dot products exact in doubles whatever the order), logits / 16,
// value tanh(dot / 64), priors the masked softmax rounded to float32 like the real evaluator.
// stdin: {"game", "options", "cfg", "policy": [[...] per observation entry], "value": [...],
//         "positions": [[move, ...], ...]}
// stdout: one search result per position.
import { readFileSync } from 'node:fs';
import { Rng } from '../../serving/static/js/offline/rng.js';
import { search } from '../../serving/static/js/offline/search.js';

const request = JSON.parse(readFileSync(0, 'utf8'));
// The rules module of the game, built as the page's registry builds it (offline/games.js).
const { rules } = await import(`../../serving/static/js/offline/${request.game}.js`);
const game = rules(request.options || {});

async function evaluate(state) {
  const obs = game.observation(state);
  const legal = game.legalActions(state);
  const logits = legal.map((a) => {
    let dot = 0;
    obs.forEach((x, i) => { dot += x * request.policy[i][a]; });
    return dot / 16;
  });
  const top = Math.max(...logits);
  const e = logits.map((l) => Math.exp(l - top));
  let total = 0;
  for (const x of e) total += x;
  const prior = new Float32Array(game.numActions);
  legal.forEach((a, i) => { prior[a] = e[i] / total; });
  let v = 0;
  obs.forEach((x, i) => { v += x * request.value[i]; });
  return [prior, Math.fround(Math.tanh(v / 64))];
}

const results = [];
for (const moves of request.positions) {
  let state = game.initialState();
  for (const m of moves) state = game.apply(state, game.moveToAction(state, m));
  const r = await search(game, state, evaluate, request.cfg, new Rng(7));
  results.push({
    move: game.actionToMove(r.action),
    moves: r.actions.map((a) => game.actionToMove(a)),
    visits: r.visits,
    policy: r.policy,
    value: r.value,
  });
}
process.stdout.write(JSON.stringify(results));
