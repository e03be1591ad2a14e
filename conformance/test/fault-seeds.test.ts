// --seeds: a fault caught on one seed and missed on another counts as missed (runner/seeds.ts).
import { describe, expect, it } from 'vitest';
import type { FaultOutcome } from '../faults/runner/judge.js';
import { overSeeds, seedAt } from '../faults/runner/seeds.js';

function outcome(caught: boolean, status: FaultOutcome['status'] = caught ? 'caught' : 'uncaught'): FaultOutcome {
  return {
    name: 'skip-capped-at-100',
    area: 'QRY',
    description: '',
    requirements: ['QRY-006'],
    caught,
    status,
    failing: caught ? ['QRY-006'] : [],
    results: { 'QRY-006': caught ? 'failed' : 'passed' },
    exitCode: caught ? 1 : 0,
    durationMs: 1,
    reportDir: '',
    notes: [],
    failedRequirements: caught ? ['QRY-006'] : [],
    unnamedFailures: [],
  };
}

describe('a fault over several seeds', () => {
  it('derives distinct, reproducible 31-bit seeds from the first', () => {
    const s = [0, 1, 2, 3].map((k) => seedAt(1324971029, k));
    expect(s[0]).toBe(1324971029);
    expect(new Set(s).size).toBe(4);
    expect(s.every((x) => Number.isInteger(x) && x >= 0 && x < 2 ** 31)).toBe(true);
    expect([0, 1, 2, 3].map((k) => seedAt(1324971029, k))).toEqual(s);
  });
  it('is caught only when every seed caught it', () => {
    const all = overSeeds({ seed: 1, outcome: outcome(true) }, [{ seed: 2, outcome: outcome(true) }]);
    expect([all.caught, all.status, all.seeds]).toEqual([true, 'caught', [1, 2]]);
    const some = overSeeds({ seed: 1, outcome: outcome(true) }, [
      { seed: 2, outcome: outcome(true) },
      { seed: 3, outcome: outcome(false) },
    ]);
    expect([some.caught, some.status]).toEqual([false, 'uncaught']);
    expect(some.notes).toEqual(['missed with --seed 3 (QRY-006 passed; caught with --seed 1)']);
    expect(some.failing).toEqual(['QRY-006']); // the first seed's figures stay those reported
  });
  it('a run error under another seed makes it an error, not a miss', () => {
    const o = overSeeds({ seed: 1, outcome: outcome(true) }, [{ seed: 2, outcome: outcome(false, 'error') }]);
    expect([o.caught, o.status]).toEqual([false, 'error']);
    expect(o.notes[0]).toMatch(/^run error with --seed 2/);
  });
});
