// known-extra-failures.yaml: how many requirements a caught fault may fail beyond those it names.
// The file names only faults of the catalogue, with counts of 1 or more; the mutation run fails a
// fault over its count (a fault without an entry may fail none) and names the entries to lower.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULTS } from '../faults/catalogue/index.js';
import {
  describeExtraFailures,
  judgeExtraFailures,
  readAllowance,
  type ExtraFailureAllowance,
} from '../faults/runner/extra-failures.js';
import type { FaultOutcome } from '../faults/runner/judge.js';

function outcome(name: string, unnamed: string[], caught = true): FaultOutcome {
  return {
    name,
    area: 'QRY',
    description: '',
    requirements: ['QRY-001'],
    caught,
    status: caught ? 'caught' : 'uncaught',
    failing: caught ? ['QRY-001'] : [],
    results: {},
    exitCode: 1,
    durationMs: 1,
    reportDir: '',
    notes: [],
    failedRequirements: [...(caught ? ['QRY-001'] : []), ...unnamed],
    unnamedFailures: unnamed,
  };
}

describe('known-extra-failures.yaml', () => {
  it('names only faults of the catalogue, each with a count of 1 or more', () => {
    const allowance = readAllowance();
    const names = new Set(FAULTS.map((f) => f.name));
    expect([...allowance.keys()].filter((n) => !names.has(n))).toEqual([]);
    for (const n of allowance.values()) expect(Number.isInteger(n) && n >= 1).toBe(true);
  });

  it('refuses a count that is not a positive integer', () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'extra-')), 'a.yaml');
    fs.writeFileSync(file, 'skip-ignored: 0\n');
    expect(() => readAllowance(file)).toThrow(/skip-ignored: a count of 1 or more/);
    fs.writeFileSync(file, 'skip-ignored: two\n');
    expect(() => readAllowance(file)).toThrow(/skip-ignored/);
  });
});

describe('judging caught faults against the allowance', () => {
  const allowance: ExtraFailureAllowance = new Map([
    ['a', 2],
    ['b', 3],
  ]);
  it('fails a fault over its count, and a fault without an entry that fails any unnamed requirement', () => {
    const v = judgeExtraFailures(
      [outcome('a', ['X-1', 'X-2', 'X-3']), outcome('c', ['X-9']), outcome('b', ['X-1', 'X-2', 'X-3'])],
      allowance,
    );
    expect(v.over.map((x) => [x.name, x.allowed, x.failed.length])).toEqual([
      ['a', 2, 3],
      ['c', 0, 1],
    ]);
    expect(v.lower).toEqual([]);
    expect(describeExtraFailures(v)[0]).toMatch(/a 3 > 2 \(\+X-1,\+X-2,\+X-3\); c 1 > 0 \(\+X-9\)/);
  });
  it('names the entries that can be lowered, and judges no fault that was not caught', () => {
    const v = judgeExtraFailures([outcome('a', ['X-1']), outcome('b', ['X-1', 'X-2', 'X-3', 'X-4'], false)], allowance);
    expect(v.over).toEqual([]);
    expect(v.lower).toEqual([{ name: 'a', allowed: 2, now: 1 }]);
    expect(describeExtraFailures(v)).toEqual([expect.stringMatching(/entries of .* to lower \(1\): a 2 -> 1/)]);
  });
  it('a scope narrower than the whole suite (--whole-files) still finds a fault over its entry, never one to lower', () => {
    const v = judgeExtraFailures([outcome('a', ['X-1']), outcome('b', ['X-1', 'X-2', 'X-3', 'X-4'])], allowance, false);
    expect(v.over.map((x) => [x.name, x.allowed, x.failed.length])).toEqual([['b', 3, 4]]);
    expect(v.lower).toEqual([]);
  });
});
