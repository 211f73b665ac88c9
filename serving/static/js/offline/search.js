// Monte Carlo tree search in the browser: a port of agents/search/ for one root, so an AI
// level chooses its moves in the page exactly as the service's level would (up to random
// tie-breaks and sampling, whose random numbers differ).
//
// Same conventions as the Python search: the player to move comes from game.toPlay(state),
// values are backed up per player (each edge accumulates the value of the player who chose
// it), so Fang Qi's turns of several actions need nothing special; the evaluator gives the
// mover's value v and every other player gets -v; terminal states are worth game.returns().
// Two algorithms, by cfg.algorithm: 'gumbel' (Gumbel AlphaZero: Gumbel-top-k and sequential
// halving at the root, the "match the improved policy" rule inside) and 'puct' (AlphaZero,
// optional Dirichlet noise); MCTS-Solver proofs with cfg.solver. ``cfg`` holds the level's
// SearchConfig fields as stored in levels.json (snake_case).
//
// The evaluator is async (the network runs under onnxruntime-web): evaluate(state) resolves to
// [prior over the whole action space, value for the mover].

/** numpy's pairwise summation (what ``p.sum()`` does in Python), so the normalised priors
 * are the same doubles as in the Python search. */
export function pairwiseSum(a, start = 0, n = a.length) {
  if (n < 8) {
    let s = 0;
    for (let i = start; i < start + n; i += 1) s += a[i];
    return s;
  }
  if (n <= 128) {
    const r = a.slice(start, start + 8);
    let i = 8;
    for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j += 1) r[j] += a[start + i + j];
    let s = (r[0] + r[1] + (r[2] + r[3])) + (r[4] + r[5] + (r[6] + r[7]));
    for (; i < n; i += 1) s += a[start + i];
    return s;
  }
  let n2 = Math.floor(n / 2);
  n2 -= n2 % 8;
  return pairwiseSum(a, start, n2) + pairwiseSum(a, start + n2, n - n2);
}

class Node {
  constructor(game, state) {
    this.state = state;
    this.terminal = game.isTerminal(state);
    this.player = this.terminal ? -1 : game.toPlay(state);
    this.expanded = false;
    this.actions = [];
    this.prior = [];
    this.logits = [];
    this.N = [];
    this.W = [];
    this.children = [];
    this.rawValue = 0;
    this.total = 0;
    // exact per-player values once known (MCTS-Solver): the terminal returns, or the minimax
    // of proven children
    this.proven = this.terminal ? game.returns(state) : null;
  }

  expand(game, priorFull, value, temperature = 1) {
    const actions = [...game.legalActions(this.state)];
    let p = actions.map((a) => priorFull[a]);
    if (temperature !== 1) p = p.map((x) => x ** (1 / temperature));
    const total = pairwiseSum(p);
    p = total > 0 ? p.map((x) => x / total) : p.map(() => 1 / Math.max(p.length, 1));
    this.actions = actions;
    this.prior = p;
    this.logits = p.map((x) => Math.log(x + 1e-12));
    this.N = new Array(p.length).fill(0);
    this.W = new Array(p.length).fill(0);
    this.children = new Array(p.length).fill(null);
    this.rawValue = value;
    this.expanded = true;
  }

  child(game, i) {
    if (!this.children[i]) this.children[i] = new Node(game, game.apply(this.state, this.actions[i]));
    return this.children[i];
  }

  q() {
    return this.N.map((n, i) => (n ? this.W[i] / n : 0));
  }
}

/** The visit count the root action of each simulation must have (mctx's schedule): every
 * considered action is visited equally within a phase, then the worse half is dropped. */
export function consideredVisitSequence(maxConsidered, simulations) {
  if (maxConsidered <= 1) return Array.from({ length: simulations }, (_, i) => i);
  const log2max = Math.ceil(Math.log2(maxConsidered));
  const sequence = [];
  const visits = new Array(maxConsidered).fill(0);
  let considered = maxConsidered;
  while (sequence.length < simulations) {
    const extra = Math.max(1, Math.floor(simulations / (log2max * considered)));
    for (let e = 0; e < extra; e += 1) {
      sequence.push(...visits.slice(0, considered));
      for (let i = 0; i < considered; i += 1) visits[i] += 1;
    }
    considered = Math.max(2, Math.floor(considered / 2));
  }
  return sequence.slice(0, simulations);
}

/** sigma(completed Q): Q where visited, the mixed value estimate elsewhere, min-max rescaled
 * and scaled by (c_visit + max N) * c_scale. */
function completedQ(node, cfg) {
  const { N, W, prior, total } = node;
  if (total === 0) return new Array(N.length).fill(0);
  let pVis = 0;
  let pq = 0;
  let maxN = 0;
  const completed = N.map((n, i) => {
    if (!n) return null;
    const q = W[i] / n;
    pVis += prior[i];
    pq += prior[i] * q;
    if (n > maxN) maxN = n;
    return q;
  });
  const mixed = (node.rawValue + (total * pq) / (pVis > 1e-12 ? pVis : 1e-12)) / (1 + total);
  const filled = completed.map((c) => (c === null ? mixed : c));
  const lo = Math.min(...filled);
  const hi = Math.max(...filled);
  if (hi - lo < 1e-8) return new Array(N.length).fill(0);
  const scale = ((cfg.c_visit + maxN) * cfg.c_scale) / (hi - lo);
  return filled.map((c) => scale * (c - lo));
}

/** Completed Q without rescaling. */
function mixedCompletion(node) {
  if (node.total === 0) return node.N.map(() => node.rawValue);
  let pVis = 0;
  let pq = 0;
  node.N.forEach((n, i) => {
    if (n) {
      pVis += node.prior[i];
      pq += (node.prior[i] * node.W[i]) / n;
    }
  });
  const mixed = (node.rawValue + (node.total * pq) / Math.max(pVis, 1e-12)) / (1 + node.total);
  return node.N.map((n, i) => (n ? node.W[i] / n : mixed));
}

function softmaxOfSum(logits, extra) {
  const z = logits.map((lg, i) => lg + extra[i]);
  const top = Math.max(...z);
  const e = z.map((x) => Math.exp(x - top));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}

/** softmax(logits + sigma(completed Q)) over the node's legal actions. */
function improvedPolicy(node, cfg) {
  if (node.total === 0) return node.prior;
  return softmaxOfSum(node.logits, completedQ(node, cfg));
}

/** The action whose visit share lags the improved policy the most: argmax of
 * pi'(a) - N(a) / (1 + sum N), computed in the Python search's order of operations. */
function gumbelInterior(node, cfg) {
  if (node.total === 0) return node.prior.indexOf(Math.max(...node.prior));
  const cq = completedQ(node, cfg);
  const z = node.logits.map((lg, i) => lg + cq[i]);
  const top = Math.max(...z);
  const e = z.map((x) => Math.exp(x - top));
  const invS = 1 / e.reduce((a, b) => a + b, 0);
  const inv = 1 / (1 + node.total);
  let best = 0;
  let bestScore = -Infinity;
  e.forEach((x, i) => {
    const score = x * invS - node.N[i] * inv;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

function puct(node, cfg, prior) {
  // unvisited edges: first-play urgency = the node's own value estimate
  const sq = cfg.c_puct * Math.sqrt(node.total + 1);
  let best = 0;
  let bestScore = -Infinity;
  node.N.forEach((n, i) => {
    const score = (n ? node.W[i] / n : node.rawValue) + (sq * prior[i]) / (1 + n);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  return best;
}

function sample(p, temperature, rng) {
  const logp = p.map((x) => Math.log(Math.max(x, 1e-30)) / temperature);
  const top = Math.max(...logp);
  return rng.choice(logp.map((x) => Math.exp(x - top)));
}

function argmaxRandomTies(score, rng) {
  const top = Math.max(...score);
  const best = [];
  score.forEach((x, i) => { if (x >= top - 1e-12) best.push(i); });
  return best.length > 1 ? best[rng.integers(best.length)] : best[0];
}

class Tree {
  constructor(game, state, cfg, rng) {
    this.game = game;
    this.cfg = cfg;
    this.rng = rng;
    this.root = new Node(game, state);
    this.path = [];
    this.leaf = null;
  }

  prepareRoot() {
    const { root, cfg, rng } = this;
    const k = root.actions.length;
    this.rootPrior = root.prior;
    if (cfg.algorithm === 'puct' && cfg.dirichlet_fraction > 0 && k > 1) {
      const noise = rng.dirichlet(cfg.dirichlet_alpha, k);
      const f = cfg.dirichlet_fraction;
      this.rootPrior = root.prior.map((p, i) => (1 - f) * p + f * noise[i]);
    }
    this.gumbel = root.actions.map(() => (cfg.gumbel_scale > 0 ? rng.gumbel() * cfg.gumbel_scale : 0));
    this.schedule = consideredVisitSequence(Math.min(cfg.max_considered, k), cfg.simulations);
  }

  /** Walk down from the root; the leaf needing evaluation, or null when the walk ended on a
   * terminal or solved state (already backed up). */
  selectLeaf(sim) {
    const { game, cfg } = this;
    const gumbel = cfg.algorithm === 'gumbel';
    let node = this.root;
    const path = [];
    while (node.expanded && node.proven === null) {
      let i;
      if (!path.length) i = gumbel ? this.gumbelRoot(sim) : puct(node, cfg, this.rootPrior);
      else i = gumbel ? gumbelInterior(node, cfg) : puct(node, cfg, node.prior);
      path.push([node, i]);
      node = node.child(game, i);
    }
    this.path = path;
    if (node.proven !== null) {
      this.backup(node.proven);
      return null;
    }
    this.leaf = node;
    return node;
  }

  rootScores() {
    const cq = completedQ(this.root, this.cfg);
    return this.root.logits.map((lg, i) => this.gumbel[i] + lg + cq[i]);
  }

  /** Sequential halving: among the actions with the scheduled visit count, the best by
   * gumbel + logits + sigma(completed Q). */
  gumbelRoot(sim) {
    const want = this.schedule[sim];
    const scores = this.rootScores();
    let best = -1;
    let bestScore = -Infinity;
    scores.forEach((score, i) => {
      if (this.root.N[i] === want && score > bestScore) {
        best = i;
        bestScore = score;
      }
    });
    return best >= 0 ? best : scores.indexOf(Math.max(...scores));
  }

  finishLeaf(prior, value) {
    const { leaf } = this;
    leaf.expand(this.game, prior, value, this.cfg.policy_temperature ?? 1);
    this.leaf = null;
    if (this.cfg.solver && this.cfg.terminal_lookahead && this.lookAhead(leaf)) {
      this.backup(leaf.proven);
      return;
    }
    const values = this.game.playerNames.map(() => -value);
    values[leaf.player] = value;
    this.backup(values);
  }

  /** Solve the node at once if a child ends the game in a win for the mover (or all do). */
  lookAhead(node) {
    const p = node.player;
    let best = null;
    let complete = true;
    for (let i = 0; i < node.actions.length; i += 1) {
      const c = node.child(this.game, i);
      if (c.proven === null) complete = false;
      else if (best === null || c.proven[p] > best[p]) best = c.proven;
      if (best !== null && best[p] >= 1) break;
    }
    if (best !== null && (best[p] >= 1 || complete)) {
      node.proven = best;
      return true;
    }
    return false;
  }

  backup(values) {
    for (const [node, i] of this.path) {
      node.N[i] += 1;
      node.W[i] += values[node.player];
      node.total += 1;
    }
    if (this.cfg.solver) this.propagateProofs();
  }

  /** MCTS-Solver, per player: an edge into a proven child takes its exact value; a node is
   * proven when its player has a proven win, or when every child is proven. */
  propagateProofs() {
    for (let k = this.path.length - 1; k >= 0; k -= 1) {
      const [node, i] = this.path[k];
      let proven = node.children[i].proven;
      if (proven === null) return;
      const p = node.player;
      node.W[i] = node.N[i] * proven[p];
      if (proven[p] < 1) {
        for (const c of node.children) {
          if (c === null || c.proven === null) return;
          if (c.proven[p] > proven[p]) proven = c.proven;
        }
      }
      node.proven = proven;
    }
  }

  /** Take a proven win when there is one; never a proven loss when something else is left. */
  solvedChoice(i) {
    const { root } = this;
    const p = root.player;
    let bestWin = -1;
    let bestN = -1;
    root.children.forEach((c, j) => {
      if (c !== null && c.proven !== null && c.proven[p] >= 1 && root.N[j] > bestN) {
        bestWin = j;
        bestN = root.N[j];
      }
    });
    if (bestWin >= 0) return bestWin;
    const chosen = root.children[i];
    if (chosen === null || chosen.proven === null || chosen.proven[p] > -1) return i;
    const others = [];
    root.children.forEach((c, j) => {
      if (c === null || c.proven === null || c.proven[p] > -1) others.push(j);
    });
    if (!others.length) return i;
    let best = others[0];
    for (const j of others.slice(1)) {
      const key = [root.N[j], root.W[j] / Math.max(root.N[j], 1)];
      const top = [root.N[best], root.W[best] / Math.max(root.N[best], 1)];
      if (key[0] > top[0] || (key[0] === top[0] && key[1] > top[1])) best = j;
    }
    return best;
  }

  result() {
    const { root, cfg, rng } = this;
    const n = root.N;
    let i;
    let policy;
    let value;
    if (cfg.algorithm === 'gumbel') {
      policy = improvedPolicy(root, cfg);
      // the value of the improved policy (sequential halving visits bad actions on purpose)
      const mixed = mixedCompletion(root);
      value = policy.reduce((a, p, j) => a + p * mixed[j], 0);
      if (cfg.temperature > 0) i = sample(policy, cfg.temperature, rng);
      else {
        const maxN = Math.max(...n);
        const scores = this.rootScores();
        i = argmaxRandomTies(n.map((x, j) => (x === maxN ? scores[j] : -Infinity)), rng);
      }
    } else {
      const { total } = root;
      policy = total > 0 ? n.map((x) => x / total) : root.prior;
      if (cfg.temperature > 0) i = sample(policy, cfg.temperature, rng);
      else if (total > 0) {
        const q = root.q();
        i = argmaxRandomTies(n.map((x, j) => x + 1e-3 * (q[j] + 1)), rng);
      } else i = argmaxRandomTies(root.prior, rng);
      value = total > 0 ? root.W.reduce((a, b) => a + b, 0) / total : root.rawValue;
    }
    if (cfg.solver && cfg.temperature === 0) i = this.solvedChoice(i);
    return {
      action: root.actions[i],
      actions: root.actions,
      policy,
      visits: [...n],
      value,
      simulations: root.total,
    };
  }
}

/** Search ``state`` (not terminal) with the level's settings ``cfg``; resolves to
 * {action, actions, policy, visits, value, simulations} (policy and visits per legal action). */
export async function search(game, state, evaluate, cfg, rng) {
  if (game.isTerminal(state)) throw new Error('cannot search a terminal state');
  if (cfg.rollout_mix > 0) throw new Error('random playouts in the leaf value are not ported');
  const tree = new Tree(game, state, cfg, rng);
  const [prior, value] = await evaluate(state);
  tree.root.expand(game, prior, value, cfg.policy_temperature ?? 1);
  tree.prepareRoot();
  for (let sim = 0; sim < cfg.simulations; sim += 1) {
    const leaf = tree.selectLeaf(sim);
    if (leaf !== null) {
      const [p, v] = await evaluate(leaf.state);
      tree.finishLeaf(p, v);
    }
  }
  return tree.result();
}
