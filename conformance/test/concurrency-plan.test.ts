// --concurrency becomes worker threads and tests in flight per file (run/vitest-run.ts).
import { describe, expect, it } from 'vitest';
import { concurrencyPlan } from '../src/run/vitest-run.js';

describe('concurrencyPlan', () => {
  it('gives 4 tests per file and a worker per 4 up to 8 workers, then more tests per file', () => {
    expect(concurrencyPlan(1)).toEqual({ workers: 1, perFile: 1 });
    expect(concurrencyPlan(4)).toEqual({ workers: 1, perFile: 4 });
    expect(concurrencyPlan(8)).toEqual({ workers: 2, perFile: 4 });
    expect(concurrencyPlan(16)).toEqual({ workers: 4, perFile: 4 });
    expect(concurrencyPlan(32)).toEqual({ workers: 8, perFile: 4 });
    expect(concurrencyPlan(64)).toEqual({ workers: 8, perFile: 8 });
    expect(concurrencyPlan(128)).toEqual({ workers: 8, perFile: 16 });
    expect(concurrencyPlan(256)).toEqual({ workers: 8, perFile: 32 });
  });

  it('keeps at least the concurrency asked for when the workers are fixed', () => {
    expect(concurrencyPlan(16, 1)).toEqual({ workers: 1, perFile: 16 });
    expect(concurrencyPlan(20, 3)).toEqual({ workers: 3, perFile: 7 });
    expect(concurrencyPlan(0.5)).toEqual({ workers: 1, perFile: 1 });
  });
});
