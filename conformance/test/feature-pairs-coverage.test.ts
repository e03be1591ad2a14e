// The feature-pair count of the coverage gate (conformance/src/coverage/feature-pairs.ts): every
// pair a listing's factor table declares is covered by the covering array of the run's seed when
// the listing's pair tests passed; a listing whose tests did not pass, or a LINQ test that did not
// run, leaves gaps that fail the gate.
import { describe, expect, it } from 'vitest';
import { buildFeaturePairs, featurePairsMarkdown } from '../src/coverage/feature-pairs.js';
import type { RunRecord } from '../src/coverage/operations.js';

type RunTest = RunRecord['tests'][string];

const pass = (result: RunTest['result'] = 'passed'): RunTest => ({ file: 'f', result, operations: [] });

function run(tests: Record<string, RunTest>, seed: number | null = 7): RunRecord {
  return {
    file: 'results.json',
    target: 'ref',
    profile: 'all',
    ...(seed === null ? {} : { seed }),
    partial: [],
    tests,
  };
}

const ALL = {
  'pairs.records-col-001': pass(),
  'pairs.records-qry-010': pass(),
  'pairs.files-col-001': pass(),
  'pairs.files-qry-010': pass(),
  'pairs.attached-col-001': pass(),
};

describe('feature pairs in the coverage gate', () => {
  it('counts every declared pair covered on every seed when the pair tests passed', () => {
    for (const seed of [1, 7, 20261125]) {
      const c = buildFeaturePairs(run(ALL, seed));
      expect(c.problems).toEqual([]);
      expect(c.counts.gaps).toBe(0);
      expect(c.listings.map((l) => [l.listing, l.declared])).toEqual([
        ['records', 675],
        ['files', 448],
        ['attached', 61],
      ]);
    }
    expect(featurePairsMarkdown(buildFeaturePairs(run(ALL))).join('\n')).toMatch(
      /\| GET \/api\/File\/Query \| 9 \| 448 \| 448 \| 0 \|/,
    );
  });

  it('leaves gaps for a listing whose tests did not pass, a LINQ test not run, or a run without a seed', () => {
    const noAttached = buildFeaturePairs(run({ ...ALL, 'pairs.attached-col-001': pass('failed') }));
    expect(noAttached.listings.find((l) => l.listing === 'attached')?.covered).toBe(0);
    expect(noAttached.problems.join('\n')).toMatch(/GET \/api\/\{domain\}\/\{id\}\/Files: 61 declared, none covered/);
    const noLinq = buildFeaturePairs(run({ ...ALL, 'pairs.records-qry-010': pass('not-applicable') }));
    const records = noLinq.listings.find((l) => l.listing === 'records')!;
    expect(records.covered).toBeLessThan(records.declared);
    expect(records.gaps.every((g) => g.includes('select=linq'))).toBe(true);
    expect(noLinq.problems.join('\n')).toMatch(/pairs.records-qry-010 did not pass/);
    expect(buildFeaturePairs(run(ALL, null)).counts.covered).toBe(0);
  });
});
