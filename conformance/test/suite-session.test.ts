// A suite session (conformance/src/run/suite-session.ts): consecutive runs on one vitest instance
// and its kept worker thread, each against its own reference server. Each run has its own context:
// its requests reach only its server, its results hold only its tests, and a file run again
// registers its tests anew. In a child process (fixtures/session-runs.ts): vitest is not nested.
import { describe, expect, it } from 'vitest';
import { runFixture } from './helpers/fixture-process.js';

describe('suite session', () => {
  it('five runs against five servers: each its own requests and results, a thread kept from run to run', async () => {
    const out = await runFixture<{
      runs: Array<{ tests?: Record<string, string>; rejected?: string; exchanges: number[]; instances: number }>;
      stats: { instances: number; threads: number; runs: number };
    }>('session-runs.ts', 150_000);
    const [r1, r2, r3, r4, r5] = out.runs;
    expect(r1!.tests).toEqual({ 'records.get-by-id-returns-stored-values': 'passed' });
    // a main-phase and a service-wide test: the second run's results hold them and nothing of the first
    expect(r2!.tests).toEqual({
      'files.download-url-relative': 'passed',
      'files.download-url-server-error-when-setting-off': 'passed',
    });
    // the first run's file again, another of its tests (a stale admin token of server 1 would fail it)
    expect(r3!.tests).toEqual({ 'records.missing-record-is-a-failure': 'passed' });
    // aborted while its tests ran; the run after it passes
    expect(r4!.rejected).toBe('TimeoutError');
    expect(r5!.tests).toEqual({ 'records.get-by-id-returns-stored-values': 'passed' });
    // the requests of run i went through proxy i only: after run i, only count i grew
    out.runs.forEach((r, i) => {
      const before = i === 0 ? r.exchanges.map(() => 0) : out.runs[i - 1]!.exchanges;
      const grown = r.exchanges.flatMap((n, k) => (n > before[k]! ? [k] : []));
      expect(grown, `run ${i + 1}`).toEqual([i]);
    });
    // six vitest runs (five main phases, one service-wide) on one instance, the service-wide phase
    // on the main phase's configuration and thread, then a new instance after the aborted run: one
    // thread per instance, kept from run to run
    expect(out.stats.runs).toBe(6);
    expect(out.stats.threads).toBe(out.stats.instances);
    // the instances started by the end of each run: which run left its instance behind, if one did
    expect(out.runs.map((r) => r.instances)).toEqual([1, 1, 1, 1, 2]);
    expect(out.stats.instances).toBe(2);
  }, 180_000);
});
