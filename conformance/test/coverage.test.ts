import { describe, expect, it } from 'vitest';
import { catalogueFrom } from '../src/spec/catalogue.js';
import { buildCoverage, coverageMarkdown, coverageProblems, type CollectedTest } from '../src/coverage/gate.js';
import {
  OPERATIONS_SCHEMA,
  operationsFromRun,
  staleSuiteFiles,
  type OperationsData,
} from '../src/coverage/operations.js';
import type { RunResults } from '../src/report/results.js';
import { buildPartitions } from '../src/coverage/partitions.js';

const cat = catalogueFrom({
  version: '1',
  requirements: [
    { id: 'GEN-001', section: '4', statement: 'json', level: 'core', testable: true },
    { id: 'A-001', section: '1', statement: 'a', level: 'core', testable: true },
    { id: 'A-002', section: '1', statement: 'b', level: 'core', testable: true },
    { id: 'A-003', section: '1', statement: 'c', level: 'core', testable: false, reason: 'not observable' },
    { id: 'A-004', section: '1', statement: 'd', level: 'implementation-defined', testable: true },
    { id: 'A-005', section: '1', statement: 'e', level: 'core', testable: true, retired: true },
  ],
});
const test = (id: string, requirements: string[], file = 'conformance/suite/a.test.ts'): CollectedTest => ({
  id,
  title: id,
  file,
  requirements,
  profile: 'core',
  mutates: false,
});

describe('coverage gate', () => {
  it('passes when every testable core requirement has a test (GEN-001/002 by the generic checks)', () => {
    const r = buildCoverage(cat, [test('a.one', ['A-001']), test('a.two', ['A-002'])]);
    expect(coverageProblems(r)).toEqual([]);
    expect(r.rows.find((x) => x.id === 'GEN-001')!.status).toBe('generic-checks');
    expect(r.rows.find((x) => x.id === 'A-003')!.status).toBe('not-testable');
    expect(r.rows.find((x) => x.id === 'A-004')!.status).toBe('untested'); // not core: no gate problem
    expect(r.rows.some((x) => x.id === 'A-005')).toBe(false);
    expect(r.counts).toMatchObject({
      requirements: 5,
      testable: 4,
      covered: 3,
      untested: 1,
      coreTestable: 3,
      coreCovered: 3,
      coreUntested: 0,
    });
  });

  it('fails on an untested core requirement', () => {
    const p = coverageProblems(buildCoverage(cat, [test('a.one', ['A-001'])]));
    expect(p).toEqual(['A-002 (core, testable) has no test']);
  });

  it('fails on unknown or retired IDs, duplicate test ids and collection errors', () => {
    const r = buildCoverage(
      cat,
      [
        test('a.one', ['A-001', 'A-999']),
        test('a.two', ['A-002', 'A-005']),
        test('a.one', ['A-001'], 'conformance/suite/b.test.ts'),
      ],
      ['conformance/suite/c.test.ts: SyntaxError: x'],
    );
    const p = coverageProblems(r);
    expect(p).toContain('test a.one (conformance/suite/a.test.ts) names unknown requirement ID(s) A-999');
    expect(p).toContain('test a.two (conformance/suite/a.test.ts) names unknown requirement ID(s) A-005');
    expect(p.some((x) => x.startsWith('test id a.one is used more than once'))).toBe(true);
    expect(p.some((x) => x.startsWith('collection error'))).toBe(true);
    const md = coverageMarkdown(r);
    expect(md).toContain('| A-001 | core | 1 | covered | `a.one`, `a.one` |');
    expect(md).toContain('gate: FAIL');
  });
});

describe('requirement x operation coverage', () => {
  const pcat = catalogueFrom({
    version: '1',
    requirements: [
      { id: 'GEN-001', section: '4', statement: 'json', level: 'core', testable: true, operations: ['opA', 'opB'] },
      { id: 'A-001', section: '1', statement: 'a', level: 'core', testable: true, operations: ['opA', 'opB'] },
      {
        id: 'A-002',
        section: '1',
        statement: 'b',
        level: 'implementation-defined',
        testable: true,
        operations: ['opA', 'opC'],
        untestedOperations: { opC: 'shown by A-001 on opC' },
      },
      {
        id: 'A-003',
        section: '1',
        statement: 'c',
        level: 'core',
        testable: false,
        reason: 'hidden',
        operations: ['opB'],
      },
      { id: 'A-004', section: '1', statement: 'd', level: 'core', testable: true, retired: true, operations: ['opZ'] },
    ],
  });
  const files = { 'conformance/suite/a.test.ts': 'h1' };
  const data = (tests: Record<string, string[]>, suiteFiles = files): OperationsData => ({
    schema: OPERATIONS_SCHEMA,
    note: '',
    run: { target: 'reference', profile: 'all', seed: 1, suiteVersion: '0', specVersion: '1' },
    suiteFiles,
    tests: Object.fromEntries(
      Object.entries(tests).map(([id, operations]) => [
        id,
        { file: 'conformance/suite/a.test.ts', result: 'passed', operations },
      ]),
    ),
  });
  const suite = [test('a.one', ['A-001']), test('a.two', ['A-002'])];
  const cover = (d: OperationsData | undefined, tests = suite) =>
    buildCoverage(pcat, tests, [], new Date(0), { data: d, suiteFiles: files });

  it('passes when every pair is exercised by a test naming the requirement, exempt, or not testable', () => {
    const r = cover(data({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] }));
    expect(coverageProblems(r)).toEqual([]);
    const status = Object.fromEntries(r.pairs!.map((p) => [`${p.requirement} ${p.operation}`, p.status]));
    expect(status).toEqual({
      'GEN-001 opA': 'generic-checks',
      'GEN-001 opB': 'generic-checks',
      'A-001 opA': 'exercised',
      'A-001 opB': 'exercised',
      'A-002 opA': 'exercised',
      'A-002 opC': 'exempt',
      'A-003 opB': 'not-testable',
    });
    expect(r.pairCounts).toEqual({ pairs: 7, exercised: 5, exempt: 1, notTestable: 1, gaps: 0, derived: 0 });
    const md = coverageMarkdown(r);
    expect(md).toContain('| A-001 | opA | exercised | `a.one` |');
    expect(md).toContain('| A-002 | opC | exempt | shown by A-001 on opC |');
  });

  it('fails on a pair no test naming the requirement calls (a call by another test does not count)', () => {
    // a.two calls opB, but a.two does not name A-001
    const r = cover(data({ 'a.one': ['opA'], 'a.two': ['opA', 'opB'] }));
    expect(coverageProblems(r)).toEqual([
      'A-001 x opB: no test naming A-001 calls opB (test it, or say why not in untestedOperations)',
    ]);
    expect(coverageMarkdown(r)).toContain('| A-001 | opB | gap | **no test** |');
  });

  it('adds the derived operations of a requirement to its pairs, marked derived, and gates them', () => {
    const governed = new Map([
      ['A-001', { operations: ['opA', 'opB', 'opC'], derived: ['opC'], unmatched: [] }],
      ['A-002', { operations: ['opA', 'opC'], derived: [], unmatched: ['fields: X.Nope'] }],
    ]);
    const d = data({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] });
    const r = buildCoverage(pcat, suite, [], new Date(0), { data: d, suiteFiles: files, governed });
    expect(r.pairs!.find((p) => p.requirement === 'A-001' && p.operation === 'opC')).toMatchObject({
      status: 'gap',
      derived: true,
    });
    expect(r.pairCounts!.derived).toBe(1);
    expect(coverageProblems(r)).toEqual([
      'A-002: governs fields: X.Nope, which no operation of spec/openapi.yaml carries',
      'A-001 x opC: no test naming A-001 calls opC (test it, or say why not in untestedOperations)',
    ]);
    expect(coverageMarkdown(r)).toContain('| A-001 | opC (derived) | gap | **no test** |');
  });

  it('fails on an exemption of an exercised pair, and on a missing, stale or failing recorded run', () => {
    const r = cover(data({ 'a.one': ['opA', 'opB'], 'a.two': ['opA', 'opC'] }));
    expect(coverageProblems(r)).toEqual([
      'A-002 x opC is exercised (a.two): remove untestedOperations.opC from the catalogue',
    ]);
    expect(coverageProblems(cover(undefined))[0]).toMatch(/coverage-operations\.json is missing/);
    const stale = cover(data({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] }, { 'conformance/suite/a.test.ts': 'h0' }));
    expect(coverageProblems(stale)).toEqual([
      'reports/coverage-operations.json is stale: conformance/suite/a.test.ts changed since the recorded run; run `npm run coverage:update`',
    ]);
    const newTest = cover(data({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] }), [...suite, test('a.three', ['A-001'])]);
    expect(coverageProblems(newTest)[0]).toMatch(/no recorded run of test\(s\) a\.three/);
    const d = data({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] });
    d.tests['a.two'].result = 'failed';
    expect(coverageProblems(cover(d))[0]).toMatch(/did not pass in the recorded reference run: a\.two \(failed\)/);
  });

  it('builds the data from a results.json (tests nested under requirements, generic entries left out)', () => {
    const t = (id: string, operations?: string[], generic?: boolean) => ({
      id,
      title: id,
      file: 'conformance/suite/a.test.ts',
      profile: 'core' as const,
      requirements: ['A-001'],
      result: 'passed' as const,
      durationMs: 1,
      ...(operations ? { operations } : {}),
      ...(generic ? { generic } : {}),
    });
    const results = {
      target: { description: 'reference' },
      profile: 'all',
      suiteVersion: '0',
      specVersion: '1',
      requirements: [
        { id: 'A-001', tests: [t('a.one', ['opB', 'opA']), t('generic.x', ['opA'], true)] },
        { id: 'A-002', tests: [t('a.one', ['opB', 'opA']), t('a.two')] },
      ],
    } as unknown as RunResults;
    const d = operationsFromRun(results, files, 7);
    expect(d.run).toMatchObject({ profile: 'all', seed: 7, target: 'reference' });
    expect(d.tests).toEqual({
      'a.one': { file: 'conformance/suite/a.test.ts', result: 'passed', operations: ['opA', 'opB'] },
      'a.two': { file: 'conformance/suite/a.test.ts', result: 'passed', operations: [] },
    });
    expect(staleSuiteFiles({ a: '1', b: '2' }, { a: '1', b: '3', c: '4' })).toEqual(['b', 'c']);
  });
});

describe('partition coverage', () => {
  const pc = catalogueFrom({
    version: '1',
    requirements: [
      {
        id: 'A-001',
        section: '1',
        statement: 'a',
        level: 'core',
        testable: true,
        classes: { x: 'class x', y: 'class y', z: 'class z' },
        untestedClasses: { z: 'cannot be set up' },
      },
      {
        id: 'A-002',
        section: '1',
        statement: 'b',
        level: 'core',
        testable: false,
        reason: 'hidden',
        classes: { x: 'x' },
      },
    ],
  });
  const t = (id: string, requirements: string[], classes?: string[]) => ({ id, requirements, classes });

  it('a class is exercised by a test naming the requirement that declares it, or exempt with a reason', () => {
    const p = buildPartitions(pc, [t('a.one', ['A-001'], ['A-001:x', 'A-001:y'])]);
    expect(p.problems).toEqual([]);
    expect(p.rows.map((r) => `${r.requirement}:${r.class} ${r.status}`)).toEqual([
      'A-001:x exercised',
      'A-001:y exercised',
      'A-001:z exempt',
      'A-002:x not-testable',
    ]);
    expect(p.counts).toEqual({ classes: 4, exercised: 2, exempt: 1, notTestable: 1, gaps: 0 });
  });

  it('fails on a class no test exercises, an unknown class, a class of a requirement the test does not name, and an exemption of an exercised class', () => {
    const p = buildPartitions(pc, [
      t('a.one', ['A-001'], ['A-001:x', 'A-001:nope', 'A-001:z']),
      t('a.two', ['A-002'], ['A-001:y']),
    ]);
    expect(p.problems).toEqual([
      'test a.one declares class A-001:nope, which is not a class of A-001 in the catalogue',
      'test a.two declares class A-001:y of a requirement it does not name',
      'A-001:z is exercised (a.one): remove untestedClasses.z from the catalogue',
      "A-001:y (class y): no test naming A-001 exercises this class (declare it in the test's classes, or say why not in untestedClasses)",
    ]);
  });
});
