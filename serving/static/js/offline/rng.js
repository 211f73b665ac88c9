// A small seeded random generator (sfc32) with what the search draws: integers, a choice by
// weights, Gumbel and Dirichlet noise. Seeded, so a bench or a test can repeat a game; the
// page seeds it from crypto.getRandomValues.

export class Rng {
  constructor(seed = Math.floor(Math.random() * 2 ** 32)) {
    this.s = [0x9e3779b9, 0x243f6a88, 0xb7e15162, seed >>> 0];
    for (let i = 0; i < 15; i += 1) this.next32();
  }

  static fromCrypto() {
    const seed = new Uint32Array(1);
    globalThis.crypto.getRandomValues(seed);
    return new Rng(seed[0]);
  }

  next32() {
    let [a, b, c, d] = this.s;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.s = [a, b, c, d];
    return t >>> 0;
  }

  /** A float in [0, 1) with 53 random bits. */
  random() {
    return ((this.next32() >>> 5) * 67108864 + (this.next32() >>> 6)) / 9007199254740992;
  }

  /** An integer in 0 .. n-1. */
  integers(n) {
    return Math.floor(this.random() * n);
  }

  /** An index drawn with probability proportional to ``weights`` (numpy's choice: the first
   * index whose cumulative weight exceeds the draw). */
  choice(weights) {
    const cdf = [];
    let total = 0;
    for (const w of weights) cdf.push((total += w));
    const u = this.random() * total;
    const i = cdf.findIndex((c) => c > u);
    return i < 0 ? weights.length - 1 : i;
  }

  gumbel() {
    return -Math.log(-Math.log(1 - this.random()));
  }

  normal() {
    const u = 1 - this.random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.random());
  }

  /** Gamma(alpha, 1) by Marsaglia and Tsang (boosted for alpha < 1). */
  gamma(alpha) {
    if (alpha < 1) return this.gamma(alpha + 1) * (1 - this.random()) ** (1 / alpha);
    const d = alpha - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      const x = this.normal();
      const v = (1 + c * x) ** 3;
      if (v > 0 && Math.log(1 - this.random()) < 0.5 * x * x + d - d * v + d * Math.log(v)) {
        return d * v;
      }
    }
  }

  /** A symmetric Dirichlet(alpha) sample of length k. */
  dirichlet(alpha, k) {
    const g = Array.from({ length: k }, () => this.gamma(alpha));
    const s = g.reduce((a, b) => a + b, 0);
    return g.map((x) => x / s);
  }
}
