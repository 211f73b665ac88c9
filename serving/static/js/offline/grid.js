// The square boards of the in-browser engines: points a flat index rank by rank from the
// bottom (p = size * rank + file), named a1, b1, ...; neighbours horizontal and vertical; the
// directed steps between neighbours in (from, to) order, as the Python engines number them.

export function squareGrid(size) {
  const count = size * size;
  const names = Array.from({ length: count }, (_, p) => `${'abcdefghij'[p % size]}${Math.floor(p / size) + 1}`);
  const neighbours = names.map((_, p) => {
    const r = Math.floor(p / size);
    const c = p % size;
    return [[r - 1, c], [r, c - 1], [r, c + 1], [r + 1, c]]
      .filter(([rr, cc]) => rr >= 0 && rr < size && cc >= 0 && cc < size)
      .map(([rr, cc]) => rr * size + cc);
  });
  const steps = [];
  neighbours.forEach((qs, p) => { for (const q of qs) steps.push([p, q]); });
  const stepIndex = new Map(steps.map(([f, t], i) => [`${f},${t}`, i]));
  return { names, neighbours, steps, stepIndex, index: new Map(names.map((n, p) => [n, p])) };
}
