// A fault caught on one seed and missed on another is missed: the generated and model-based tests,
// and the adversarial fixtures (positions and sizes drawn from the seed), must catch it whatever the
// seed. With --seeds N the runner runs each fault that the first seed caught again under N-1 more
// seeds, and judges it over all of them here.
import type { FaultOutcome } from './judge.js';

/** The k-th seed of a run whose first seed is `base` (k = 0: `base`); distinct, reproducible, 31-bit. */
export function seedAt(base: number, k: number): number {
  return k === 0 ? base : (base + Math.imul(k, 0x9e3779b1)) >>> 1;
}

export interface SeedOutcome {
  seed: number;
  outcome: FaultOutcome;
}

/**
 * The fault's outcome over every seed: caught only when each seed caught it. A seed that missed it
 * makes it `uncaught` (a run error under a seed makes it `error`), named in the notes with the seed
 * to repeat it. The figures of the first seed (failing, failed in run) stay those reported.
 */
export function overSeeds(first: SeedOutcome, more: SeedOutcome[]): FaultOutcome & { seeds: number[] } {
  const all = [first, ...more];
  const o: FaultOutcome & { seeds: number[] } = {
    ...first.outcome,
    notes: [...first.outcome.notes],
    seeds: all.map((s) => s.seed),
  };
  const missed = more.filter((s) => !s.outcome.caught);
  if (missed.length === 0) return o;
  const errored = missed.some((s) => s.outcome.status === 'error');
  o.caught = false;
  o.status = errored ? 'error' : 'uncaught';
  for (const s of missed)
    o.notes.push(
      `${s.outcome.status === 'error' ? 'run error' : 'missed'} with --seed ${s.seed} (${
        Object.entries(s.outcome.results)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ') || 'no result'
      }; caught with --seed ${first.seed})`,
    );
  return o;
}
