// `conformance merge`: three shard runs of the core suite against the reference server, merged,
// equal the unsharded run (counts, verdict, every requirement's result and tests); and the merge
// refuses parts that do not belong together.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalProcessTarget } from '../src/targets/local-process.js';
import type { RunResults } from '../src/report/results.js';
import { ONE_WORKER, runCli } from './helpers/cli.js';

const read = (dir: string): RunResults => JSON.parse(fs.readFileSync(path.join(dir, 'results.json'), 'utf8'));

/** What must be equal between the merged and the unsharded run. */
function essence(r: RunResults) {
  return {
    profile: r.profile,
    counts: r.counts,
    gatingCounts: r.gatingCounts,
    verdict: r.verdict,
    exitCode: r.exitCode,
    requirements: r.requirements.map((q) => ({
      id: q.id,
      result: q.result,
      tests: q.tests.map((t) => `${t.id}=${t.result}`).sort(),
    })),
  };
}

describe('conformance merge', () => {
  let tmp: string;
  let target: LocalProcessTarget;
  let baseUrl: string;
  const dir = (name: string) => path.join(tmp, name);

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-merge-test-'));
    target = new LocalProcessTarget({ log: () => undefined });
    baseUrl = (await target.start()).baseUrl;
  }, 120_000);

  afterAll(async () => {
    await target?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('three merged shards equal the unsharded core run', async () => {
    // Shards split the suite files of the selection; three of the quicker areas (about a tenth of
    // the core run's time) make three shards of different sizes, and the merge meets the
    // requirements none of them selected, as the unsharded run of the same selection does
    const include = ['--requirements', 'DOM,REC,COL'];
    const whole = await runCli(['run', '--base-url', baseUrl, ...include, '--report-dir', dir('whole')], ONE_WORKER);
    expect(whole.code, whole.stderr + whole.stdout).toBe(0);
    const shards = await Promise.all(
      [1, 2, 3].map((i) =>
        runCli(
          ['run', '--base-url', baseUrl, ...include, '--shard', `${i}/3`, '--report-dir', dir(`shard-${i}`)],
          ONE_WORKER,
        ),
      ),
    );
    for (const r of shards) expect(r.code, r.stderr + r.stdout).toBe(0);
    // each shard alone covers only part of the requirements
    for (const i of [1, 2, 3])
      expect(read(dir(`shard-${i}`)).requirements.length).toBeLessThan(read(dir('whole')).requirements.length);

    const m = await runCli([
      'merge',
      dir('shard-1'),
      dir('shard-2'),
      path.join(dir('shard-3'), 'results.json'),
      '--report-dir',
      dir('merged'),
    ]);
    expect(m.code, m.stderr + m.stdout).toBe(0);
    expect(m.stdout).toMatch(/Verdict: PASS \(exit 0\)/);
    expect(fs.readdirSync(dir('merged')).sort()).toEqual(['badge.svg', 'junit.xml', 'report.html', 'results.json']);
    const merged = read(dir('merged'));
    expect(essence(merged)).toEqual(essence(read(dir('whole'))));
    expect(merged.selection.shard).toBeUndefined();
    expect(merged.counts.passed).toBeGreaterThan(20);
    // the JUnit file lists the same requirement checks
    const cases = (f: string) => (fs.readFileSync(path.join(f, 'junit.xml'), 'utf8').match(/<testcase /g) ?? []).length;
    expect(cases(dir('merged'))).toBe(cases(dir('whole')));
  }, 600_000);

  it('refuses a missing shard, a shard given twice and a run that is not a shard', async () => {
    const missing = await runCli(['merge', dir('shard-1'), dir('shard-2'), '--report-dir', dir('m2')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/shard\(s\) 3\/3 missing/);

    const twice = await runCli(['merge', dir('shard-1'), dir('shard-1'), dir('shard-2'), '--report-dir', dir('m3')]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/shard 1\/3 given twice/);

    const whole = await runCli(['merge', dir('whole'), '--report-dir', dir('m4')]);
    expect(whole.code).toBe(2);
    expect(whole.stderr).toMatch(/not the result of a shard run/);

    // with --allow-missing the requirements of the missing shard are untested, so the run fails
    const partial = await runCli([
      'merge',
      dir('shard-1'),
      dir('shard-2'),
      '--allow-missing',
      '--report-dir',
      dir('m5'),
    ]);
    expect(partial.code).toBe(1);
    const r = read(dir('m5'));
    expect(r.counts.untested).toBeGreaterThan(0);
    expect(r.runErrors.join('\n')).toMatch(/shard 3\/3 missing/);
  }, 60_000);
});
