// A level's network in the page: the exported .onnx model (training/onnx_export.py) under
// onnxruntime-web's WebAssembly backend, vendored in /offline/ort (scripts/
// vendor_onnxruntime_web.py). The model takes the observation and the legal-action mask and
// gives the masked softmax policy and the mover's value, exactly what the Python
// NetworkEvaluator gives the search. Answers are cached per position (like the service's
// CachedInfer: exact, the weights never change), which the search's transpositions and the
// positions repeated from move to move hit often.

import * as ort from '../../offline/ort/ort.wasm.bundle.min.mjs';

// Single-threaded: the page is not cross-origin isolated (no SharedArrayBuffer), and these
// networks are far too small to gain from threads.
ort.env.wasm.numThreads = 1;

const CACHE_ENTRIES = 200000;

export class Network {
  /** Load ``url`` (an .onnx file) for ``game`` (a rules module of ./games.js). */
  static async load(game, url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`cannot load the network ${url}: HTTP ${response.status}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
    return new Network(game, session);
  }

  constructor(game, session) {
    this.game = game;
    this.session = session;
    this.cache = new Map();
  }

  /** [prior over the whole action space (Float32Array), value for the mover]. */
  async evaluate(state) {
    const game = this.game;
    const key = game.evalKey(state);
    const hit = this.cache.get(key);
    if (hit) return hit;
    const mask = new Uint8Array(game.numActions);
    for (const a of game.legalActions(state)) mask[a] = 1;
    const feeds = {
      observation: new ort.Tensor('float32', game.observation(state), [1, ...game.observationShape]),
      action_mask: new ort.Tensor('bool', mask, [1, game.numActions]),
    };
    const out = await this.session.run(feeds);
    const answer = [out.policy.data, out.value.data[0]];
    if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
    this.cache.set(key, answer);
    return answer;
  }
}
