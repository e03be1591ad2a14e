// The typed progress of a run (runConformance's `onEvent` hook, conformance/src/model/events.ts):
// a run as a library call sends its start, the target ready, the suite's start, each test as it
// begins and ends with the outcome results.json gives it, the results final and the target
// stopped, in that order.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../src/paths.js';
import type { ProgressEvent } from '../src/model/events.js';
import type { RunResults } from '../src/report/results.js';

// inside the package, so that `rflps-conformance/run` resolves through its own "exports"
const script = path.join(ROOT, 'conformance', `.progress-events-${process.pid}.mjs`);
afterAll(() => fs.rmSync(script, { force: true }));

describe('runConformance: typed progress events', () => {
  it('sends run-started, the target and suite moments, the tests with their outcomes, run-finished', async () => {
    fs.writeFileSync(
      script,
      [
        `import { runConformance } from 'rflps-conformance/run';`,
        `const events = [];`,
        `const r = await runConformance(`,
        `  { localProcess: true, include: 'conformance/suite/records.test.ts', seed: 7 },`,
        `  { onEvent: (e) => events.push(e) },`,
        `);`,
        `console.log(JSON.stringify({ events, results: r }));`,
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script], {
      cwd: ROOT,
      timeout: 150_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const { events, results } = JSON.parse(stdout.trim().split('\n').pop()!) as {
      events: ProgressEvent[];
      results: RunResults;
    };

    const first = events[0]!;
    expect(first).toMatchObject({ type: 'run-started', seed: 7, profile: 'core' });
    // the moments in their order, each sent when it happens (atMs never goes back)
    const moments = events.map((e) => e.type).filter((t) => t !== 'test-started' && t !== 'test-finished');
    expect(moments).toEqual(['run-started', 'target-ready', 'suite-started', 'run-finished', 'target-stopped']);
    const times = events.map((e) => e.atMs);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const end = events.find((e) => e.type === 'run-finished')!;
    expect(end).toMatchObject({ verdict: results.verdict, exitCode: results.exitCode });

    // every test of the results ends once, with the outcome results.json gives it
    const outcomes = new Map<string, string>();
    for (const q of results.requirements)
      for (const t of q.tests) if (!t.generic && !t.step) outcomes.set(t.id, t.result);
    expect(outcomes.size).toBeGreaterThan(2);
    const finished = events.flatMap((e) => (e.type === 'test-finished' ? [e] : []));
    const ended = new Map(finished.map((e) => [e.id, e.outcome]));
    expect(finished).toHaveLength(ended.size);
    for (const [id, outcome] of outcomes) expect(ended.get(id), id).toBe(outcome);
    // and no other: the tests the profile leaves out are not selected, no part of the run (no event)
    expect([...ended.keys()].filter((id) => !outcomes.has(id))).toEqual([]);
    expect(results.testCounts!['not-selected']).toBeGreaterThan(0);
    for (const e of finished) expect(e.file).toBe('conformance/suite/records.test.ts');
    expect(finished.some((e) => e.outcome === 'passed')).toBe(true);

    // a test that ran was started before it finished, while the suite ran
    const at = (e: ProgressEvent) => events.indexOf(e);
    const suiteStart = at(events.find((e) => e.type === 'suite-started')!);
    for (const e of finished) {
      const started = events.find((s) => s.type === 'test-started' && s.id === e.id);
      expect(at(e)).toBeGreaterThan(suiteStart);
      expect(at(e)).toBeLessThan(at(end));
      if (e.outcome === 'not-applicable' && !started) continue;
      expect(started, e.id).toBeDefined();
      expect(at(started!)).toBeLessThan(at(e));
    }
    // every test started once, and finished
    const started = events.flatMap((e) => (e.type === 'test-started' ? [e.id] : []));
    expect(new Set(started).size).toBe(started.length);
    for (const id of started) expect(ended.get(id), id).toBeDefined();
  }, 180_000);
});
