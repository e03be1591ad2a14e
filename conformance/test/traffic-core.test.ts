// The proof of verify-traffic on the suite's own traffic: a whole run of the suite against the
// reference server (a local process; the shared run of helpers/shared-run.ts, every profile, its
// traffic recorded as HAR through the library's `recordHar`, as `run --record-har` does) verifies
// with 0 failed, and the report says how many testable core requirements the traffic showed. The
// written HAR holds no credential. (The CLI's --record-har and its log line: reports-e2e.)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../src/report/results.js';
import { runCli } from './helpers/cli.js';
import { sharedWholeRun } from './helpers/shared-run.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-traffic-core-'));

describe('verify-traffic on the whole suite against the reference', () => {
  it('the HAR of a whole run verifies with 0 failed and no credential in it', async () => {
    const run = await sharedWholeRun();
    expect(run.verdict, run.stderr).toBe('pass');
    const har = run.har;
    const doc = JSON.parse(fs.readFileSync(har, 'utf8'));
    expect(doc.log.version).toBe('1.2');
    const headers = doc.log.entries.flatMap((e: any) => e.request.headers) as Array<{ name: string; value: string }>;
    const tokens = headers.filter((h) => h.name.toLowerCase() === 'token');
    expect(tokens.length).toBeGreaterThan(100);
    expect(tokens.every((h) => h.value === '<redacted>')).toBe(true);
    // no token-like field of a body (a provider state's or a login's answer) is left
    expect(fs.readFileSync(har, 'utf8')).not.toMatch(/\\"[Tt]oken\\":\\"(?!<redacted>)/);

    const dir = path.join(tmp, 'verify');
    const v = await runCli(['verify-traffic', har, '--report-dir', dir]);
    const r = JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8')) as RunResults;
    const failed = r.requirements.filter((q) => q.result === 'failed');
    expect(failed.map((q) => `${q.id}: ${q.tests.find((t) => t.error)?.error?.message}`)).toEqual([]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const m = /(\d+) of (\d+) testable core requirements observed/.exec(v.stdout);
    expect(m, v.stdout).not.toBeNull();
    expect(r.target.description).toContain(m![0]);
    // the share of core the traffic alone decides (54 of 130 when this test was written)
    expect(Number(m![1])).toBeGreaterThanOrEqual(45);
    console.log(`verify-traffic on a whole run's HAR: ${m![0]}, ${r.counts.passed} passed, 0 failed`);
  }, 600_000);
});
