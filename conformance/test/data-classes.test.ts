// The data-class gate (issue 32, conformance/src/coverage/data-classes.ts) on a small catalogue,
// and spec/data-classes.yaml as shipped: every type it applies maps to real requirements and
// operations.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogueFrom, loadCatalogue } from '../src/spec/catalogue.js';
import { buildDataClasses, loadDataClasses, type DataClassCatalogue } from '../src/coverage/data-classes.js';
import { buildCoverage, coverageMarkdown, coverageProblems, type CollectedTest } from '../src/coverage/gate.js';
import type { RunRecord } from '../src/coverage/operations.js';

const cat = catalogueFrom({
  version: '1',
  requirements: [
    { id: 'A-001', section: '1', statement: 'a', level: 'core', testable: true, operations: ['getA', 'listA'] },
    { id: 'A-002', section: '1', statement: 'b', level: 'core', testable: true, operations: ['listA'] },
  ],
});

function catalogue(yaml: string): DataClassCatalogue {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-classes-'));
  const file = path.join(dir, 'data-classes.yaml');
  fs.writeFileSync(file, yaml);
  return loadDataClasses(file)!;
}

const DC = `
version: 1.0.0
types:
  number:
    from: spec 4.2
    classes: { zero: '0', negative: '-1' }
    applies: { A-001: [getA, listA] }
    untested: { 'A-001:negative': 'a reason' }
  token:
    from: spec 5
    classes: { valid: 'a token' }
    pending: 'not mapped yet'
`;

const test = (id: string, requirements: string[], classes: string[]): CollectedTest => ({
  id,
  title: id,
  file: 'conformance/suite/a.test.ts',
  requirements,
  profile: 'core',
  mutates: false,
  classes,
});

const run = (ops: Record<string, string[]>): RunRecord => ({
  file: 'results.json',
  target: 'ref',
  profile: 'all',
  partial: [],
  tests: Object.fromEntries(
    Object.entries(ops).map(([id, operations]) => [id, { file: 'a', result: 'passed' as const, operations }]),
  ),
});

describe('data-class gate', () => {
  it('counts each (requirement, operation, class): exercised only where a declaring test called the operation', () => {
    const dc = catalogue(DC);
    const tests = [test('a.one', ['A-001'], ['A-001:number.zero'])];
    const c = buildDataClasses(dc, cat, tests, run({ 'a.one': ['getA', 'listA'] }));
    expect(c.counts).toMatchObject({ rows: 4, exercised: 2, exempt: 2, gaps: 0, pendingClasses: 1 });
    expect(c.problems).toEqual([]);
    // the same declaration, but the test never called listA: that row is a gap
    const partial = buildDataClasses(dc, cat, tests, run({ 'a.one': ['getA'] }));
    expect(partial.counts.gaps).toBe(1);
    expect(partial.problems.join('\n')).toMatch(/A-001 x listA: data class number.zero/);
  });

  it('fails on an undeclared class, a class of another type or requirement, and a stale exemption', () => {
    const dc = catalogue(DC);
    const none = buildDataClasses(dc, cat, [], run({}));
    expect(none.counts.gaps).toBe(2);
    const wrong = buildDataClasses(
      dc,
      cat,
      [test('a.two', ['A-002'], ['A-002:number.zero', 'A-002:number.odd'])],
      run({ 'a.two': ['listA'] }),
    );
    expect(wrong.problems.join('\n')).toMatch(/type number does not apply to A-002/);
    expect(wrong.problems.join('\n')).toMatch(/odd is not a class of type number/);
    const stale = buildDataClasses(
      dc,
      cat,
      [test('a.one', ['A-001'], ['A-001:number.zero', 'A-001:number.negative'])],
      run({ 'a.one': ['getA', 'listA'] }),
    );
    expect(stale.problems.join('\n')).toMatch(/remove untested.A-001:negative/);
    const badOp = catalogue(DC.replace('[getA, listA]', '[getA, putA]'));
    expect(buildDataClasses(badOp, cat, [], undefined).problems.join('\n')).toMatch(/A-001 x putA, which is not among/);
  });

  it('counts a class the requirement states (stated:) for every test of it, on the operations it called', () => {
    const dc = catalogue(`
version: 1.0.0
types:
  token:
    from: spec 5
    classes: { valid: 'a token', unknown: 'another' }
    applies: { A-001: [getA, listA] }
    stated: { A-001: [valid] }
    untested: { 'A-001:unknown': 'a reason' }
`);
    const c = buildDataClasses(dc, cat, [test('a.sweep', ['A-001'], [])], run({ 'a.sweep': ['getA'] }));
    expect(c.counts).toMatchObject({ rows: 4, exercised: 1, exempt: 2, gaps: 1 });
    expect(c.rows.find((x) => x.operation === 'getA' && x.class === 'valid')?.tests).toEqual(['a.sweep']);
    const bad = catalogue(`
version: 1.0.0
types:
  token:
    from: spec 5
    classes: { valid: 'a token' }
    applies: { A-001: [getA] }
    stated: { A-002: [valid], A-001: [odd] }
`);
    expect(buildDataClasses(bad, cat, [], undefined).problems.join('\n')).toMatch(/stated.A-002 names valid/);
    expect(buildDataClasses(bad, cat, [], undefined).problems.join('\n')).toMatch(/stated.A-001 names odd/);
  });

  it('joins the coverage report: data classes are not taken for equivalence classes, and the report shows the counts', () => {
    const dc = catalogue(DC);
    const tests = [test('a.one', ['A-001'], ['A-001:number.zero']), test('a.two', ['A-002'], [])];
    const r = buildCoverage(
      cat,
      tests,
      [],
      new Date(0),
      { run: run({ 'a.one': ['getA', 'listA'], 'a.two': ['listA'] }) },
      dc,
    );
    expect(r.partitions?.problems).toEqual([]);
    expect(r.dataClasses?.counts.exercised).toBe(2);
    expect(coverageProblems(r)).toEqual([]);
    expect(coverageMarkdown(r)).toMatch(
      /data classes \(spec\/data-classes.yaml 1.0.0\): 4 \(requirement, operation, class\) rows/,
    );
    expect(coverageMarkdown(r)).toMatch(/\| A-001 \| listA \| number.zero \| exercised \| `a.one` \|/);
  });

  it('spec/data-classes.yaml applies its types to requirements and operations of the catalogue', () => {
    const dc = loadDataClasses()!;
    expect(dc.types.size).toBeGreaterThanOrEqual(12);
    const c = buildDataClasses(dc, loadCatalogue(), []);
    // with no test, every row is exempt or a gap; none names an unknown requirement or operation
    expect(c.problems.filter((p) => !/is exercised by no test/.test(p))).toEqual([]);
    expect(c.counts.rows).toBeGreaterThan(50);
  });
});
