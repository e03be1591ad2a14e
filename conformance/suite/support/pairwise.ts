// A pairwise covering array drawn from a seed: every level of every factor meets every level of
// every other factor in at least one row, in far fewer rows than the full product (greedy, in the
// manner of AETG: each row is the best of a few candidates, each candidate built around a pair not
// yet covered). The same seed gives the same rows.

/** A factor: its name and its levels (at least one). */
export interface Factor {
  name: string;
  levels: readonly string[];
  /**
   * Levels that blind their row to the other factors (a start offset past the end: an empty page
   * shows nothing of the columns or the order; a take above the maximum, which may be refused): a
   * row with one covers only the pairs of that factor, so every other pair is met on a row where
   * it can be seen.
   */
  blinding?: readonly string[];
}

/** One row: a level per factor, by factor name. */
export type Row = Record<string, string>;

/** mulberry32: a small seeded generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const pairKey = (a: string, la: string, b: string, lb: string) => `${a}=${la}+${b}=${lb}`;

/** Every pair of levels of two different factors (factor order as given), as keys. */
export function allPairs(factors: readonly Factor[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < factors.length; i++)
    for (let j = i + 1; j < factors.length; j++)
      for (const la of factors[i]!.levels)
        for (const lb of factors[j]!.levels) out.add(pairKey(factors[i]!.name, la, factors[j]!.name, lb));
  return out;
}

/** The pairs one row covers: those that hold every blinding level of the row. */
export function pairsOf(factors: readonly Factor[], row: Row): string[] {
  const out: string[] = [];
  const blinded = factors.flatMap((f, z) => (f.blinding?.includes(row[f.name]!) ? [z] : []));
  for (let i = 0; i < factors.length; i++)
    for (let j = i + 1; j < factors.length; j++) {
      if (blinded.some((z) => z !== i && z !== j)) continue;
      const a = factors[i]!.name;
      const b = factors[j]!.name;
      out.push(pairKey(a, row[a]!, b, row[b]!));
    }
  return out;
}

/**
 * Rows that together cover every pair of levels of `factors` (with `candidates` tries per row, each
 * around a pair not yet covered, filled greedily factor by factor; the most new pairs wins). A pair
 * counts as covered on a row only when every blinding level of the row is one of its two.
 */
export function coveringArray(factors: readonly Factor[], seed: number, candidates = 12): { rows: Row[] } {
  const rnd = seededRandom(seed);
  const k = factors.length;
  const size = factors.map((f) => f.levels.length);
  // pair (i, li, j, lj), i < j: base[i][j] + li * size[j] + lj
  const base: number[][] = factors.map(() => new Array<number>(k).fill(0));
  let total = 0;
  for (let i = 0; i < k; i++)
    for (let j = i + 1; j < k; j++) {
      base[i]![j] = total;
      total += size[i]! * size[j]!;
    }
  const pid = (i: number, li: number, j: number, lj: number) =>
    i < j ? base[i]![j]! + li * size[j]! + lj : base[j]![i]! + lj * size[i]! + li;
  const uncovered = new Uint8Array(total).fill(1);
  const blinds = factors.map((f) => f.levels.map((l) => f.blinding?.includes(l) ?? false));
  /** The factors of `row` at a blinding level. */
  const blinded = (row: number[]) => row.flatMap((l, z) => (blinds[z]![l] ? [z] : []));
  /** Whether the pair of factors x, y counts on a row blinded in `b`: every one of them is x or y. */
  const seen = (b: number[], x: number, y: number) => b.every((z) => z === x || z === y);
  let left = total;
  const rows: number[][] = [];
  const gainOf = (row: number[]) => {
    const b = blinded(row);
    let g = 0;
    for (let i = 0; i < k; i++)
      for (let j = i + 1; j < k; j++) if (seen(b, i, j)) g += uncovered[pid(i, row[i]!, j, row[j]!)]!;
    return g;
  };
  let next = 0;
  while (left > 0) {
    while (!uncovered[next]) next++;
    // the pair `next` as (i, li, j, lj)
    let i = 0;
    let j = 1;
    for (; i < k; i++) {
      let found = false;
      for (j = i + 1; j < k; j++)
        if (next < base[i]![j]! + size[i]! * size[j]!) {
          found = true;
          break;
        }
      if (found) break;
    }
    const off = next - base[i]![j]!;
    const li = Math.floor(off / size[j]!);
    const lj = off % size[j]!;
    let best: number[] = [];
    let bestGain = -1;
    for (let c = 0; c < candidates; c++) {
      // a random start, with no blinding level but the target's: the fill below keeps it so
      const row = size.map((n, f) => {
        const open = Array.from({ length: n }, (_, l) => l).filter((l) => !blinds[f]![l]);
        return open.length ? open[Math.floor(rnd() * open.length)]! : 0;
      });
      row[i] = li;
      row[j] = lj;
      const order = Array.from({ length: k }, (_, x) => x).filter((x) => x !== i && x !== j);
      for (let x = order.length - 1; x > 0; x--) {
        const y = Math.floor(rnd() * (x + 1));
        [order[x], order[y]] = [order[y]!, order[x]!];
      }
      const fixed = new Set([i, j]);
      for (const f of order) {
        let most = -1;
        let pick = row[f]!;
        for (let l = 0; l < size[f]!; l++) {
          if (blinds[f]![l]) continue;
          let g = 0;
          for (const h of fixed) g += uncovered[pid(f, l, h, row[h]!)]!;
          if (g > most || (g === most && rnd() < 0.5)) {
            most = g;
            pick = l;
          }
        }
        row[f] = pick;
        fixed.add(f);
      }
      const g = gainOf(row);
      if (g > bestGain) {
        best = row;
        bestGain = g;
      }
    }
    const b = blinded(best);
    for (let x = 0; x < k; x++)
      for (let y = x + 1; y < k; y++) {
        if (!seen(b, x, y)) continue;
        const p = pid(x, best[x]!, y, best[y]!);
        if (uncovered[p]) {
          uncovered[p] = 0;
          left--;
        }
      }
    rows.push(best);
  }
  return { rows: rows.map((r) => Object.fromEntries(factors.map((f, x) => [f.name, f.levels[r[x]!]!]))) };
}
