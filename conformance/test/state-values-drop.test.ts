// Issue 19, item 3, on the real suite: a missing value of a provider-state answer ends only the
// tests that read it, and those as precondition-failed (a required value, or a confirmation) or
// not-applicable (an optional value the test needs), never failed, blocked or error.
//
// The core suite runs against the reference server four times through a proxy: once untouched (the
// baseline), then three times with a third of every state's values dropped from every setup answer
// of the tests (value i in run i mod 3), so that every value of every state is missing from every
// setup once. Each test records the values it read (`stateValuesUsed`); a test that read none of the
// values dropped from its setups must end as in the baseline.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcessTarget } from '../src/targets/local-process.js';
import { loadProtocol } from '../src/suite-api/protocol.js';
import type { RunResults, TestResult } from '../src/report/results.js';
import { ONE_WORKER, runCli } from './helpers/cli.js';
import { startDropProxy } from './helpers/drop-proxy.js';

const RUNS = 3;
const protocol = loadProtocol();

interface Run {
  tests: Map<string, TestResult>;
  dropped: Map<string, Set<string>>;
}

let target: LocalProcessTarget | undefined;
let baseline: Run;
const runs: Run[] = [];
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-drop-'));

async function run(upstream: string, name: string, drop: (state: string, i: number) => boolean): Promise<Run> {
  const proxy = await startDropProxy(upstream, drop);
  try {
    const reportDir = path.join(dir, name);
    const r = await runCli(
      [
        'run',
        '--base-url',
        proxy.baseUrl,
        '--provider-states-url',
        `${proxy.baseUrl}/_provider-states`,
        '--profile',
        'core',
        '--seed',
        '7',
        '--skip-shrink',
        '--report-dir',
        reportDir,
      ],
      ONE_WORKER,
    );
    const file = path.join(reportDir, 'results.json');
    if (!fs.existsSync(file))
      throw new Error(`run ${name} wrote no results (exit ${r.code}): ${r.stderr.slice(-2000)}`);
    const results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
    const tests = new Map<string, TestResult>();
    for (const q of results.requirements)
      for (const t of q.tests) if (!t.generic && !t.step && q.level === 'core') tests.set(t.id, t);
    return { tests, dropped: proxy.dropped };
  } finally {
    await proxy.stop();
  }
}

beforeAll(async () => {
  target = new LocalProcessTarget({ log: () => {} });
  const started = await target.start();
  baseline = await run(started.baseUrl, 'baseline', () => false);
  for (let k = 0; k < RUNS; k++) runs.push(await run(started.baseUrl, `drop-${k}`, (_s, i) => i % RUNS === k));
}, 600_000);

afterAll(async () => {
  await target?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * The dropped values a test read in a run. A run drops the same values of a state from every setup
 * answer, so the values dropped in any test's setups are the ones dropped in this test's: this also
 * covers a test that read values through another test's states (a generated run shared by several
 * tests, which adds the first test's reads to its own).
 */
function droppedAndRead(r: Run, t: TestResult): string[] {
  const read = new Set(t.stateValuesUsed ?? []);
  const dropped = new Set([...r.dropped.values()].flatMap((s) => [...s]));
  return [...dropped].filter((v) => read.has(v));
}

/** Whether `<state>.<value>` is a required value (a test may go on without an optional one). */
function required(key: string): boolean {
  const dot = key.lastIndexOf('.');
  return protocol.states.get(key.slice(0, dot))?.values.get(key.slice(dot + 1))?.required ?? true;
}

const ENDED = ['precondition-failed', 'not-applicable'];

describe('a value missing from a provider-state answer', () => {
  it('the baseline run passes every core test it runs (the other runs are judged against it)', () => {
    const bad = [...baseline.tests.values()].filter((t) => !['passed', 'not-applicable'].includes(t.result));
    expect(bad.map((t) => `${t.id}: ${t.result}: ${t.reason ?? t.error?.message ?? ''}`)).toEqual([]);
    expect(baseline.tests.size).toBeGreaterThan(100);
  });

  it('changes no test that did not read it; a test that read it ends precondition-failed or not-applicable, naming it (or goes on without an optional one)', () => {
    const wrong: string[] = [];
    for (const [k, r] of runs.entries()) {
      for (const t of r.tests.values()) {
        const before = baseline.tests.get(t.id)?.result;
        const hit = droppedAndRead(r, t);
        if (hit.length === 0 || (t.result === before && !hit.some(required))) {
          if (t.result !== before)
            wrong.push(
              `run ${k}: ${t.id} read no dropped value, yet ${before} -> ${t.result}: ${t.reason ?? t.error?.message}`,
            );
          continue;
        }
        if (before !== 'passed') continue;
        if (!ENDED.includes(t.result))
          wrong.push(
            `run ${k}: ${t.id} read ${hit.join(', ')} (dropped) and ended ${t.result}: ${t.error?.message ?? t.reason}`,
          );
        else if (!hit.some((v) => (t.reason ?? '').includes(v.split('.').pop()!)))
          wrong.push(`run ${k}: ${t.id} ended ${t.result} without naming ${hit.join(' or ')}: ${t.reason}`);
      }
    }
    expect(wrong).toEqual([]);
    // not vacuous: most tests read some value, so a third of the values missing ends most of them
    const ended = runs.map((r) => [...r.tests.values()].filter((t) => droppedAndRead(r, t).length > 0).length);
    fs.mkdirSync(path.join('reports', 'tmp'), { recursive: true });
    fs.writeFileSync(
      path.join('reports', 'tmp', 'state-values-drop.json'),
      JSON.stringify({ coreTests: baseline.tests.size, endedPerRun: ended }, null, 2),
    );
    for (const n of ended) expect(n).toBeGreaterThan(baseline.tests.size / 4);
  });

  describe.each([...protocol.states.keys()])('of the state %s', (state) => {
    it('each value a core test reads, once dropped, ends every test that reads it (a required one as precondition-failed or not-applicable)', () => {
      const names = [...protocol.states.get(state)!.values.keys()].filter((n) => n !== 'protocol');
      for (const name of names) {
        const key = `${state}.${name}`;
        const readers = [...baseline.tests.values()].filter(
          (t) => t.result === 'passed' && (t.stateValuesUsed ?? []).includes(key),
        );
        if (readers.length === 0) continue; // no core test reads it: nothing to end
        const ended = runs.flatMap((r) =>
          readers.flatMap((b) => {
            const t = r.tests.get(b.id);
            return t && r.dropped.get(b.id)?.has(key) ? [t] : [];
          }),
        );
        expect(ended.length, `${key}: dropped from some test that reads it`).toBeGreaterThan(0);
        for (const t of ended)
          if (required(key)) expect(ENDED, `${key}: ${t.id}`).toContain(t.result);
          else expect([...ENDED, 'passed'], `${key}: ${t.id}`).toContain(t.result);
      }
    });
  });
});
