import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { catalogueFrom } from '../src/spec/catalogue.js';
import { buildCoverage, coverageMarkdown, coverageProblems, type CollectedTest } from '../src/coverage/gate.js';
import {
  loadRunRecord,
  RunRecordError,
  runRecordFromResults,
  suiteFilesChangedAfter,
  type RunRecord,
} from '../src/coverage/operations.js';
import type { RunResults } from '../src/report/results.js';
import { relFile } from '../src/paths.js';
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
  const runOf = (tests: Record<string, string[]>, more: Partial<RunRecord> = {}): RunRecord => ({
    file: 'reports/ci/results.json',
    target: 'reference',
    profile: 'all',
    seed: 1,
    partial: [],
    tests: Object.fromEntries(
      Object.entries(tests).map(([id, operations]) => [
        id,
        { file: 'conformance/suite/a.test.ts', result: 'passed', operations },
      ]),
    ),
    ...more,
  });
  const suite = [test('a.one', ['A-001']), test('a.two', ['A-002'])];
  const cover = (run: RunRecord, tests = suite, changedSinceRun: string[] = []) =>
    buildCoverage(pcat, tests, [], new Date(0), { run, changedSinceRun });

  it('passes when every pair is exercised by a test naming the requirement, exempt, or not testable', () => {
    const r = cover(runOf({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] }));
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
    expect(r.operationsSource).toMatchObject({ file: 'reports/ci/results.json', profile: 'all', seed: 1 });
    const md = coverageMarkdown(r);
    expect(md).toContain('| A-001 | opA | exercised | `a.one` |');
    expect(md).toContain('| A-002 | opC | exempt | shown by A-001 on opC |');
    expect(md).toContain('(`reports/ci/results.json`;');
  });

  it('fails on a pair no test naming the requirement calls (a call by another test does not count)', () => {
    // a.two calls opB, but a.two does not name A-001
    const r = cover(runOf({ 'a.one': ['opA'], 'a.two': ['opA', 'opB'] }));
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
    const run = runOf({ 'a.one': ['opA', 'opB'], 'a.two': ['opA'] });
    const r = buildCoverage(pcat, suite, [], new Date(0), { run, governed });
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

  it('fails on an exemption of an exercised pair', () => {
    const r = cover(runOf({ 'a.one': ['opA', 'opB'], 'a.two': ['opA', 'opC'] }));
    expect(coverageProblems(r)).toEqual([
      'A-002 x opC is exercised (a.two): remove untestedOperations.opC from the catalogue',
    ]);
  });

  it('fails on a run that cannot vouch for the suite as it is: partial, another profile, a test missing or not passed, a suite file changed since', () => {
    const ops = { 'a.one': ['opA', 'opB'], 'a.two': ['opA'] };
    const rerun = 'run `npm run test:conformance` (or give --results a run of the whole suite)';
    expect(coverageProblems(cover(runOf(ops, { profile: 'core' })))).toEqual([
      `reports/ci/results.json is a run of profile core; the coverage needs a run of profile all: ${rerun}`,
    ]);
    expect(coverageProblems(cover(runOf(ops, { partial: ['--requirements A-'] })))).toEqual([
      `reports/ci/results.json is a run of a part of the suite (--requirements A-); the coverage needs the whole suite: ${rerun}`,
    ]);
    expect(coverageProblems(cover(runOf(ops), suite, ['conformance/suite/a.test.ts']))).toEqual([
      `conformance/suite/a.test.ts changed after the run in reports/ci/results.json started: ${rerun}`,
    ]);
    const newTest = cover(runOf(ops), [...suite, test('a.three', ['A-001'])]);
    expect(coverageProblems(newTest)).toEqual([
      `test(s) a.three are not in the run in reports/ci/results.json: ${rerun}`,
    ]);
    const failing = runOf(ops);
    failing.tests['a.two'].result = 'failed';
    expect(coverageProblems(cover(failing))).toEqual([
      'reports/ci/results.json: test(s) did not pass against the reference, so their operations are not all known: a.two (failed)',
    ]);
  });

  it('vouches for a test that ended not-applicable after every request it makes (t.notApplicable afterEveryRequest), not for one that stopped early', () => {
    const ops = { 'a.one': ['opA', 'opB'], 'a.two': ['opA'] };
    const early = runOf(ops);
    early.tests['a.two'].result = 'not-applicable';
    expect(coverageProblems(cover(early))).toEqual([
      'reports/ci/results.json: test(s) did not pass against the reference, so their operations are not all known: a.two (not-applicable)',
    ]);
    const last = runOf(ops);
    last.tests['a.two'] = { ...last.tests['a.two'], result: 'not-applicable', afterEveryRequest: true };
    expect(coverageProblems(cover(last))).toEqual([]);
  });
});

describe('the run the gate judges (results.json)', () => {
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'coverage-run-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
  });
  const t = (id: string, requirements: string[], operations?: string[], extra: object = {}) => ({
    id,
    title: id,
    file: 'conformance/suite/a.test.ts',
    profile: 'core' as const,
    requirements,
    result: 'passed' as const,
    durationMs: 1,
    ...(operations ? { operations } : {}),
    ...extra,
  });
  /** A results.json as `conformance run` writes it (tests nested under each requirement they name). */
  const results = (tests: ReturnType<typeof t>[], more: object = {}) => {
    const byReq = new Map<string, ReturnType<typeof t>[]>();
    for (const x of tests) for (const id of x.requirements) byReq.set(id, [...(byReq.get(id) ?? []), x]);
    return {
      schema: 'rflps-conformance-results/1',
      target: { description: 'reference' },
      profile: 'all',
      seed: 7,
      selection: { requirements: [], readOnly: false },
      startedAt: '2026-01-01T00:00:00.000Z',
      suiteVersion: '0',
      specVersion: '1',
      requirements: [...byReq].map(([id, ts]) => ({ id, tests: ts })),
      ...more,
    } as unknown as RunResults;
  };

  it('takes each test once, with its operations sorted, generic and step entries left out', () => {
    const r = runRecordFromResults(
      results([
        t('a.one', ['A-001', 'A-002'], ['opB', 'opA']),
        t('a.two', ['A-002']),
        t('generic.x', ['A-001'], ['opA'], { generic: true }),
        t('a.step', ['A-001'], ['opA'], { step: true }),
      ]),
      'r.json',
    );
    expect(r).toMatchObject({ file: 'r.json', profile: 'all', seed: 7, target: 'reference', partial: [] });
    expect(r.tests).toEqual({
      'a.one': { file: 'conformance/suite/a.test.ts', result: 'passed', operations: ['opA', 'opB'] },
      'a.two': { file: 'conformance/suite/a.test.ts', result: 'passed', operations: [] },
    });
    const part = runRecordFromResults(
      results([t('a.one', ['A-001'])], { selection: { requirements: ['A-'], readOnly: true, shard: '1/2' } }),
      'r.json',
    );
    expect(part.partial).toEqual(['--requirements A-', '--shard 1/2', '--read-only']);
  });

  it('stops with a clear error when there is no run to judge, or the file is not a results.json', () => {
    const d = tmp();
    const missing = path.join(d, 'results.json');
    expect(() => loadRunRecord(missing)).toThrow(RunRecordError);
    expect(() => loadRunRecord(missing)).toThrow(/does not exist.*run `npm run test:conformance`.*--results <file>/);
    fs.writeFileSync(missing, '{"schema": "something else"}');
    expect(() => loadRunRecord(missing)).toThrow(/is not the results\.json of a conformance run/);
    fs.writeFileSync(missing, '{');
    expect(() => loadRunRecord(missing)).toThrow(/cannot read/);
  });

  it('names the suite files changed after the run started', () => {
    const d = tmp();
    fs.mkdirSync(path.join(d, 'support'));
    const before = new Date('2026-01-01T00:00:00.000Z');
    const after = new Date('2026-01-01T00:00:10.000Z');
    for (const [f, when] of [
      ['a.test.ts', before],
      ['b.test.ts', after],
      ['support/c.ts', after],
    ] as const) {
      fs.writeFileSync(path.join(d, f), '');
      fs.utimesSync(path.join(d, f), when, when);
    }
    const names = suiteFilesChangedAfter('2026-01-01T00:00:05.000Z', d).map((f) => path.basename(f));
    expect(names).toEqual(['b.test.ts', 'c.ts']);
    expect(suiteFilesChangedAfter('2026-01-01T00:00:20.000Z', d)).toEqual([]);
  });

  it('an edit to a suite file needs no recording step: the next run is judged as it is, and a gap comes and goes with its operations', () => {
    const d = tmp();
    const suiteDir = path.join(d, 'suite');
    fs.mkdirSync(suiteDir);
    const suiteFile = path.join(suiteDir, 'a.test.ts');
    const pcat = catalogueFrom({
      version: '1',
      requirements: [
        { id: 'A-001', section: '1', statement: 'a', level: 'core', testable: true, operations: ['opA', 'opB'] },
      ],
    });
    const collected = [test('a.one', ['A-001'])];
    // What `npm test` does after an edit: the run (writes results.json), then the gate on it.
    const runThenGate = (n: number, operations: string[]) => {
      const startedAt = new Date(Date.UTC(2026, 0, 1, 0, 0, n * 10));
      const file = path.join(d, `run-${n}`, 'results.json');
      fs.mkdirSync(path.dirname(file));
      fs.writeFileSync(file, JSON.stringify(results([t('a.one', ['A-001'], operations)], { startedAt })));
      const run = loadRunRecord(file);
      return coverageProblems(
        buildCoverage(pcat, collected, [], new Date(0), {
          run,
          changedSinceRun: suiteFilesChangedAfter(run.startedAt!, suiteDir),
          governed: new Map(),
        }),
      );
    };
    const edit = (n: number) => {
      const when = new Date(Date.UTC(2026, 0, 1, 0, 0, n * 10 - 5));
      fs.writeFileSync(suiteFile, `// edit ${n}\n`);
      fs.utimesSync(suiteFile, when, when);
    };
    edit(1); // a.one calls opA only
    expect(runThenGate(1, ['opA'])).toEqual([
      'A-001 x opB: no test naming A-001 calls opB (test it, or say why not in untestedOperations)',
    ]);
    edit(2); // a.one now calls opB too: the next run shows it, nothing else to record
    expect(runThenGate(2, ['opA', 'opB'])).toEqual([]);
    edit(3); // a.one no longer calls opB: the gap is back with the next run
    expect(runThenGate(3, ['opA'])).toHaveLength(1);
    // An edit after the last run is not judged from that run: the gate asks for a new run.
    edit(4);
    const last = loadRunRecord(path.join(d, 'run-3', 'results.json'));
    expect(suiteFilesChangedAfter(last.startedAt!, suiteDir)).toEqual([relFile(suiteFile)]);
    // Nothing was written but the runs' results.json (no record of the operations, no hash of the suite).
    expect(fs.readdirSync(d).sort()).toEqual(['run-1', 'run-2', 'run-3', 'suite']);
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
