// A suite session (conformance/src/run/suite-session.ts): consecutive runs on one vitest instance
// and its kept worker thread, each against its own reference server. Each run has its own context:
// its requests reach only its server, its results hold only its tests, and a file run again
// registers its tests anew. In a child process (helpers/session-runs.ts): vitest is not nested.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../src/paths.js';

describe('suite session', () => {
  it('three runs against three servers: each its own requests and results, one thread for them', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', path.join(ROOT, 'conformance/test/helpers/session-runs.ts')],
      { cwd: ROOT, timeout: 150_000 },
    );
    const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      runs: Array<{ tests: Record<string, string>; exchanges: number[] }>;
      stats: { instances: number; threads: number; runs: number };
    };
    const [r1, r2, r3] = out.runs;
    expect(r1!.tests).toEqual({ 'records.get-by-id-returns-stored-values': 'passed' });
    // a main-phase and a service-wide test: the second run's results hold them and nothing of the first
    expect(r2!.tests).toEqual({
      'files.download-url-relative': 'passed',
      'files.download-url-server-error-when-setting-off': 'passed',
    });
    // the first run's file again, another of its tests (a stale admin token of server 1 would fail it)
    expect(r3!.tests).toEqual({ 'records.missing-record-is-a-failure': 'passed' });
    // requests of run i went through proxy i only (counts after each run)
    const [a, b, c] = [r1!.exchanges, r2!.exchanges, r3!.exchanges];
    expect(a[0]).toBeGreaterThan(0);
    expect(a.slice(1)).toEqual([0, 0]);
    expect(b[1]).toBeGreaterThan(0);
    expect([b[0], b[2]]).toEqual([a[0], 0]);
    expect(c[2]).toBeGreaterThan(0);
    expect(c.slice(0, 2)).toEqual(b.slice(0, 2));
    // four vitest runs (three main phases, one service-wide) on two instances, one thread each
    expect(out.stats).toEqual({ instances: 2, threads: 2, runs: 4 });
  }, 180_000);
});
