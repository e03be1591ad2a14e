// The mutation runner's judgement: when a fault counts as caught, how the baseline is checked,
// which suite files a fault's run needs, and that uncaught faults are listed, never hidden.
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../src/report/results.js';
import { faultByName } from '../faults/catalogue/index.js';
import { controlByName } from '../faults/controls/index.js';
import {
  figures,
  judgeBaseline,
  judgeControl,
  judgeFault,
  median,
  onlyLoadSymptoms,
  type ConformanceRun,
} from '../faults/runner/judge.js';
import { renderMarkdown } from '../faults/runner/report.js';
import { compareRuns } from '../faults/compare-runs.js';
import {
  costliestFirst,
  expectedCost,
  filesFor,
  jobDelayMs,
  jobSelection,
  selectFaults,
  suiteTests,
  type Job,
  type SuiteTest,
} from '../faults/runner/select.js';

function run(results: Array<[string, string, string?]>, exitCode = 1, error?: string): ConformanceRun {
  const requirements = results.map(([id, result, level]) => ({ id, result, level: level ?? 'core', tests: [] }));
  return { exitCode, durationMs: 1000, error, results: { requirements } as unknown as RunResults };
}

const fault = faultByName('order-number-one-based')!; // SCHED-003
const multi = faultByName('delete-ignores-modifiability')!; // PROP-002, SCHED-018
const passing = new Map([
  ['SCHED-003', 'passed'],
  ['PROP-002', 'passed'],
  ['SCHED-018', 'passed'],
] as const);

describe('judgeFault', () => {
  it('is caught when a mapped requirement failed', () => {
    const o = judgeFault(fault, run([['SCHED-003', 'failed']]), passing as any, '/tmp/x', 0);
    expect(o).toMatchObject({
      caught: true,
      status: 'caught',
      failing: ['SCHED-003'],
      results: { 'SCHED-003': 'failed' },
    });
  });

  it('is caught when one of several mapped requirements failed', () => {
    const o = judgeFault(
      multi,
      run([
        ['PROP-002', 'passed'],
        ['SCHED-018', 'failed'],
      ]),
      passing as any,
      '/tmp/x',
      0,
    );
    expect(o.caught).toBe(true);
    expect(o.failing).toEqual(['SCHED-018']);
  });

  it('is not caught when the mapped requirements pass, or fail only for other reasons', () => {
    expect(judgeFault(fault, run([['SCHED-003', 'passed']], 0), passing as any, '/tmp/x', 0)).toMatchObject({
      caught: false,
      status: 'uncaught',
    });
    const errored = judgeFault(fault, run([['SCHED-003', 'error']]), passing as any, '/tmp/x', 0);
    expect(errored).toMatchObject({ caught: false, status: 'uncaught' });
    expect(errored.notes).toContain('SCHED-003: error');
    const other = judgeFault(
      fault,
      run([
        ['SCHED-003', 'passed'],
        ['SCHED-001', 'failed'],
      ]),
      passing as any,
      '/tmp/x',
      0,
    );
    expect(other.caught).toBe(false);
  });

  it('does not count a failure of a requirement that does not pass against the reference', () => {
    const o = judgeFault(fault, run([['SCHED-003', 'failed']]), new Map([['SCHED-003', 'failed']]) as any, '/tmp/x', 0);
    expect(o.caught).toBe(false);
    expect(o.notes.join(' ')).toMatch(/SCHED-003 is failed in the baseline/);
  });

  it('reports a run without results as an error, not caught', () => {
    const o = judgeFault(
      fault,
      { exitCode: 3, durationMs: 5, error: 'no readable results.json' },
      passing as any,
      '/tmp/x',
      2,
    );
    expect(o).toMatchObject({ caught: false, status: 'error', results: { 'SCHED-003': 'missing' } });
    expect(o.notes.join(' ')).toMatch(/results\.json.*exited 3.*2 proxy error/);
  });
});

describe('judgeBaseline', () => {
  it('passes when every core requirement passed or is not testable', () => {
    const b = judgeBaseline(
      run(
        [
          ['A-001', 'passed'],
          ['A-002', 'not-testable'],
          ['A-003', 'failed', 'implementation-defined'],
        ],
        0,
      ),
      'r',
    );
    expect(b.ok).toBe(true);
  });

  it('fails on a core requirement that did not pass, and names it', () => {
    const b = judgeBaseline(
      run(
        [
          ['A-001', 'passed'],
          ['A-002', 'untested'],
        ],
        1,
      ),
      'r',
    );
    expect(b.ok).toBe(false);
    expect(b.notPassing).toEqual({ 'A-002': 'untested' });
    expect(judgeBaseline({ exitCode: 3, durationMs: 1, error: 'boom' }, 'r').ok).toBe(false);
  });
});

describe('filesFor', () => {
  const tests = [
    { file: 'suite/a.test.ts', requirements: ['SCHED-003', 'SCHED-001'] },
    { file: 'suite/c.test.ts', requirements: ['GEN-001'] },
  ];
  it('names the files with tests of the selected IDs or prefixes', () => {
    expect(filesFor(tests, ['SCHED-003'])).toEqual(['suite/a.test.ts']);
    expect(filesFor(tests, ['SCHED-'])).toEqual(['suite/a.test.ts']);
    expect(filesFor(tests, ['GEN-001', 'SCHED-001'])).toEqual(['suite/a.test.ts', 'suite/c.test.ts']);
  });
  it('leaves the choice to the harness when nothing matches', () => {
    expect(filesFor(tests, ['SCHED-024'])).toBeUndefined();
  });
});

describe('jobSelection: the tests that call an operation the rewrite touches', () => {
  const t = (
    id: string,
    file: string,
    requirements: string[],
    operations: string[],
    unknown = false,
    durationMs = 10,
  ): SuiteTest => ({
    id,
    file,
    requirements,
    operations,
    unknownOperations: unknown,
    durationMs,
  });
  // order-number-one-based rewrites upsertSchedules only (SCHED-003)
  const fault = { kind: 'fault' as const, fault: faultByName('order-number-one-based')! };
  const suite = [
    t('a1', 'suite/a.test.ts', ['SCHED-003'], ['upsertSchedules', 'getRecord']),
    t('a2', 'suite/a.test.ts', ['SCHED-001'], ['queryRecords']),
    t('a3', 'suite/a.test.ts', ['SCHED-002'], [], true),
    t('b1', 'suite/b.test.ts', ['REC-001'], ['upsertSchedules']),
  ];
  it('keeps every test of the suite that calls its operations, and those whose calls are not all known', () => {
    expect(jobSelection(fault, 'operations', suite)).toEqual({
      include: ['suite/a.test.ts', 'suite/b.test.ts'],
      tests: ['a1', 'a3', 'b1'],
    });
  });
  it("keeps a control's tests to the files of its requirements", () => {
    const control = {
      kind: 'control' as const,
      control: {
        ...controlByName('ids-from-a-million')!,
        serverFlags: [],
        config: undefined,
        rewrite: faultByName('order-number-one-based')!.rewrite,
        select: ['SCHED-'],
      },
    };
    expect(jobSelection(control, 'operations', suite)).toEqual({ include: ['suite/a.test.ts'], tests: ['a1', 'a3'] });
  });
  it('keeps, for a fault that hides records it deleted, the tests of its operations and of the reads that hide them', () => {
    // delete-ignores-modifiability: deleteSchedule, and getRecord, queryRecords and Reinstate answer as if deleted
    const hiding = { kind: 'fault' as const, fault: faultByName('delete-ignores-modifiability')! };
    const tests = [
      t('d1', 'suite/d.test.ts', ['SCHED-018'], ['deleteSchedule']),
      t('d2', 'suite/d.test.ts', ['REC-001'], ['getRecord']),
      t('d3', 'suite/d.test.ts', ['FILE-001'], ['getFile']),
      t('d4', 'suite/d.test.ts', ['QRY-001'], ['queryRecords']),
      t('d5', 'suite/d.test.ts', ['SCHED-019'], ['reinstateSchedule']),
      t('d6', 'suite/d.test.ts', ['LINK-001'], ['queryLinks', 'upsertLink']),
      t('d7', 'suite/d.test.ts', ['DOM-001'], ['listDomains']),
    ];
    expect(jobSelection(hiding, 'operations', tests)).toEqual({
      include: ['suite/d.test.ts'],
      tests: ['d1', 'd2', 'd3', 'd4', 'd5'],
    });
  });
  it('runs the whole suite for a fault whose rewrite is untagged (it may touch every operation)', () => {
    const untagged = { kind: 'fault' as const, fault: faultByName('problem-details-as-plain-text')! };
    expect(jobSelection(untagged, 'operations', suite)).toEqual({});
  });
  it('runs whole files with --whole-files and every file with --whole-suite', () => {
    expect(jobSelection(fault, 'whole-files', suite)).toEqual({ include: ['suite/a.test.ts'] });
    expect(jobSelection(fault, 'whole-suite', suite)).toEqual({});
  });
  it("runs only the tests of a fault's selected requirements with --named-tests", () => {
    expect(jobSelection(fault, 'named-tests', suite)).toEqual({ include: ['suite/a.test.ts'], tests: ['a1'] });
    // a requirement no test holds: its files are unknown, so the run covers the whole suite
    const none = { kind: 'fault' as const, fault: { ...fault.fault, requirements: ['SCHED-099'], select: undefined } };
    expect(jobSelection(none, 'named-tests', suite)).toEqual({});
  });
  it("keeps a control's run the same in every scope (the narrower scopes are the faults')", () => {
    const control = {
      kind: 'control' as const,
      control: { ...controlByName('ids-from-a-million')!, serverFlags: [], config: undefined },
    };
    const tagged = { ...control, control: { ...control.control, rewrite: fault.fault.rewrite, select: ['SCHED-'] } };
    for (const scope of ['whole-files', 'named-tests'] as const) {
      expect(jobSelection(tagged, scope, suite)).toEqual(jobSelection(tagged, 'operations', suite));
    }
    expect(jobSelection(tagged, 'whole-files', suite)).toEqual({ include: ['suite/a.test.ts'], tests: ['a1', 'a3'] });
  });
  it('runs a control of error answers only against the tests that met one (or whose answers are not known)', () => {
    // missing-record-400: RecordNotFound answers of every operation get 400 (onError, untagged)
    const errors = { kind: 'control' as const, control: controlByName('missing-record-400')! };
    const tests = [
      { ...t('e1', 'suite/e.test.ts', ['REC-003'], ['getRecord']), refusedOperations: ['getRecord'] },
      { ...t('e2', 'suite/e.test.ts', ['REC-001'], ['getRecord', 'queryRecords']), refusedOperations: [] },
      t('e3', 'suite/e.test.ts', ['REC-002'], ['getRecord']), // an older results file: not known
      { ...t('e4', 'suite/e.test.ts', ['REC-004'], ['deleteSchedule'], true), refusedOperations: [] },
      { ...t('f1', 'suite/f.test.ts', ['FILE-001'], ['getFile']), refusedOperations: ['getFile'] },
    ];
    expect(jobSelection(errors, 'operations', tests)).toEqual({
      include: ['suite/e.test.ts', 'suite/f.test.ts'],
      tests: ['e1', 'e3', 'e4', 'f1'],
    });
    // with bindings beside it, every exchange may change: its files run whole
    const bound = {
      kind: 'control' as const,
      control: { ...errors.control, config: { bindings: { tokenHeader: 'X' } } },
    };
    expect(jobSelection(bound, 'operations', tests).tests).toBeUndefined();
    // a rewrite of successful answers is not one of error answers
    expect(
      jobSelection({ kind: 'control', control: controlByName('pretty-printed-json')! }, 'operations', tests).tests,
    ).toBeUndefined();
  });
  it('runs whole files for a control with server flags or bindings (they change every exchange)', () => {
    const flags = { kind: 'control' as const, control: controlByName('ids-from-a-million')! };
    expect(jobSelection(flags, 'operations', suite).tests).toBeUndefined();
  });
  it('orders jobs by the baseline time of the tests they run, most costly first (ties as given)', () => {
    const timed = [
      t('p', 'suite/p.test.ts', ['X-1'], [], false, 500),
      t('q', 'suite/q.test.ts', ['X-1'], [], false, 20),
    ];
    expect(expectedCost({ tests: ['q'] }, timed)).toBe(20);
    expect(expectedCost({ include: ['suite/p.test.ts'] }, timed)).toBe(500);
    expect(expectedCost({}, timed)).toBe(520);
    // a control that holds outcomes back: its delay counts once per test it runs
    expect(expectedCost({ tests: ['q'] }, timed, 8_000)).toBe(8_020);
    const slow = {
      kind: 'control',
      control: { name: 'x', area: 'BIND', description: '', allowedBy: '', delaysMs: 8_000 },
    };
    expect(jobDelayMs(slow as Job)).toBe(8_000);
    expect(jobDelayMs({ kind: 'control', control: { ...slow.control, delaysMs: undefined } } as Job)).toBe(0);
    expect(costliestFirst(['a', 'b', 'c', 'd'], (x) => ({ a: 1, b: 5, c: 1, d: 9 })[x]!)).toEqual(['d', 'b', 'a', 'c']);
  });
  it('reads what each core test called from a run, and marks the tests that did not pass or sent unknown requests', () => {
    const results = {
      requirements: [
        {
          id: 'R-1',
          tests: [
            { id: 'x', file: 'f', profile: 'core', requirements: ['R-1'], result: 'passed', operations: ['getRecord'] },
            { id: 'y', file: 'f', profile: 'core', requirements: ['R-1'], result: 'passed', unmatchedRequests: 1 },
            { id: 'z', file: 'f', profile: 'core', requirements: ['R-1'], result: 'failed', operations: ['getRecord'] },
            { id: 'g', file: 'f', profile: 'core', requirements: ['R-1'], result: 'passed', generic: true },
            { id: 'i', file: 'f', profile: 'implementation-defined', requirements: ['R-1'], result: 'passed' },
          ],
        },
      ],
    } as unknown as RunResults;
    expect(suiteTests(results).map((x) => [x.id, x.operations, x.unknownOperations])).toEqual([
      ['x', ['getRecord'], false],
      ['y', [], true],
      ['z', ['getRecord'], true],
    ]);
  });
});

describe('reports', () => {
  it('lists uncaught faults by name in mutation.md', () => {
    const caught = judgeFault(fault, run([['SCHED-003', 'failed']]), passing as any, '/tmp/x', 0);
    const missed = judgeFault(
      multi,
      run(
        [
          ['PROP-002', 'passed'],
          ['SCHED-018', 'passed'],
        ],
        0,
      ),
      passing as any,
      '/tmp/y',
      0,
    );
    const md = renderMarkdown({
      baseline: { ok: true, skipped: false, exitCode: 0, durationMs: 1, notPassing: {}, reportDir: 'r' },
      outcomes: [caught, missed],
      wallMs: 65_000,
      startedAt: '2026-01-01T00:00:00Z',
    });
    expect(md).toContain('**1/2** faults caught (50%)');
    expect(md).toContain('Uncaught: `delete-ignores-modifiability`');
    expect(md).toContain('wall time 1m05s');
    expect(md).toMatch(/\| `order-number-one-based` \| SCHED \| SCHED-003 \| yes \| SCHED-003 \|/);
  });

  it('selects faults by name and refuses unknown names', () => {
    expect(selectFaults('order-number-one-based,reinstate-noop').map((f) => f.name)).toEqual([
      'order-number-one-based',
      'reinstate-noop',
    ]);
    expect(selectFaults(undefined).length).toBeGreaterThanOrEqual(30);
    expect(() => selectFaults('nope')).toThrow(/unknown fault/);
  });
});

describe('judgeControl', () => {
  const control = controlByName('unknown-domain-400')!;
  const base = new Map([
    ['DOM-001', 'passed'],
    ['REC-001', 'passed'],
    ['QRY-003', 'failed'],
  ] as const);

  it('passes when every requirement that passed in the baseline passes through the control', () => {
    const o = judgeControl(
      control,
      run(
        [
          ['DOM-001', 'passed'],
          ['REC-001', 'passed'],
          ['QRY-003', 'failed'],
          ['LINK-001', 'untested'],
        ],
        0,
      ),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o).toMatchObject({ status: 'passed', falseAlarms: {}, judged: 2 });
  });

  it('names every requirement that no longer passes (failed, blocked, error) as a false alarm', () => {
    const o = judgeControl(
      control,
      run([
        ['DOM-001', 'failed'],
        ['REC-001', 'blocked'],
      ]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o).toMatchObject({ status: 'false-alarm', falseAlarms: { 'DOM-001': 'failed', 'REC-001': 'blocked' } });
  });

  it('reports a run without results as an error', () => {
    expect(judgeControl(control, { exitCode: 3, durationMs: 1, error: 'boom' }, base as any, '/tmp/c', 0).status).toBe(
      'error',
    );
  });

  it('runs a control once more only when all it met were errors and unmet preconditions (the machine, not the suite)', () => {
    const judge = (results: Array<[string, string]>) => judgeControl(control, run(results), base as any, '/tmp/c', 0);
    const load = judge([
      ['DOM-001', 'error'],
      ['REC-001', 'precondition-failed'],
    ]);
    expect(load.status).toBe('false-alarm');
    expect(onlyLoadSymptoms(load)).toBe(true);
    expect(
      onlyLoadSymptoms(
        judge([
          ['DOM-001', 'error'],
          ['REC-001', 'failed'],
        ]),
      ),
    ).toBe(false);
    expect(onlyLoadSymptoms(judge([['DOM-001', 'blocked']]))).toBe(false);
    expect(
      onlyLoadSymptoms(judgeControl(control, { exitCode: 3, durationMs: 1, error: 'boom' }, base as any, '/tmp/c', 0)),
    ).toBe(true);
  });
});

describe('figures', () => {
  it('gives the median of requirements failed per caught fault and the false-alarm count', () => {
    expect(median([])).toBeUndefined();
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const a = judgeFault(
      fault,
      run([
        ['SCHED-003', 'failed'],
        ['SCHED-004', 'failed'],
        ['SCHED-005', 'blocked'],
      ]),
      passing as any,
      '/tmp/x',
      0,
    );
    expect(a.failedRequirements).toEqual(['SCHED-003', 'SCHED-004']);
    // SCHED-004 is not a requirement the fault names: one bug, two red lines
    expect(a.unnamedFailures).toEqual(['SCHED-004']);
    expect(
      renderMarkdown({ baseline: { ok: true } as any, outcomes: [a], wallMs: 1, startedAt: 'x', scope: 'whole-suite' }),
    ).toContain('Caught faults that fail requirements they do not name: **1** (`order-number-one-based` +SCHED-004)');
    const c = judgeControl(
      controlByName('unknown-domain-400')!,
      run([['DOM-001', 'failed']]),
      new Map([['DOM-001', 'passed']]) as any,
      '/tmp/c',
      0,
    );
    expect(figures([a], [c])).toMatchObject({
      faults: 1,
      caught: 1,
      controls: 1,
      controlsFailed: 1,
      medianFailedPerFault: 2,
      spreading: [],
    });
    // a caught fault failing more than SPREAD_LIMIT requirements is counted and named
    const wide = { ...a, name: 'wide', failedRequirements: ['A-1', 'A-2', 'A-3', 'A-4'] };
    expect(figures([a, wide], []).spreading).toEqual([{ name: 'wide', failed: 4 }]);
    expect(
      renderMarkdown({
        baseline: { ok: true } as any,
        outcomes: [a, wide],
        wallMs: 1,
        startedAt: 'x',
        scope: 'whole-suite',
      }),
    ).toContain('Caught faults that fail more than 3 requirements: **1** (`wide` 4)');
  });
});

describe('judgeFault with blocked requirements', () => {
  it('counts a mapped requirement blocked by a root that failed in the same run as caught at that root', () => {
    const r = run([
      ['SCHED-003', 'blocked'],
      ['GEN-002', 'failed'],
    ]);
    (r.results!.requirements[0] as any).blockedBy = ['GEN-002'];
    const o = judgeFault(fault, r, passing as any, '/tmp/x', 0);
    expect(o.caught).toBe(true);
    expect(o.notes.join('; ')).toContain('SCHED-003 blocked by failed GEN-002');
    const lone = run([['SCHED-003', 'blocked']]);
    (lone.results!.requirements[0] as any).blockedBy = ['GEN-002'];
    expect(judgeFault(fault, lone, passing as any, '/tmp/x', 0).caught).toBe(false);
  });
});

describe('compareRuns: the figures of two mutation runs', () => {
  const report = (caught: boolean, failed: string[], alarms: Record<string, string> = {}) => ({
    score: { caught: caught ? 1 : 0, total: 1 },
    falseAlarms: { failed: Object.keys(alarms).length ? 1 : 0, total: 1 },
    failedPerFault: { median: caught ? failed.length : null, max: caught ? failed.length : null },
    faults: [
      {
        name: 'f',
        caught,
        status: caught ? 'caught' : 'uncaught',
        failing: caught ? ['R-1'] : [],
        failedRequirements: failed,
        unnamedFailures: failed.filter((x) => x !== 'R-1'),
        notes: ['differ freely'],
        durationMs: Math.random(),
      },
    ],
    controls: [
      { name: 'c', status: Object.keys(alarms).length ? 'false-alarm' : 'passed', falseAlarms: alarms, judged: 3 },
    ],
  });
  it('finds none when caught, failed requirements and false alarms agree (notes, times and judged counts may differ)', () => {
    const b = report(true, ['R-2', 'R-1']);
    b.controls[0]!.judged = 9;
    expect(compareRuns(report(true, ['R-1', 'R-2']) as any, b as any)).toEqual([]);
  });
  it('names every fault and control whose figures differ', () => {
    const diff = compareRuns(report(true, ['R-1', 'R-2']) as any, report(true, ['R-1'], { 'R-3': 'failed' }) as any);
    expect(diff.map((d) => d.split(':')[0])).toEqual(['falseAlarms', 'failedPerFault', 'fault f', 'control c']);
  });
});
