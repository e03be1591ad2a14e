import { describe, expect, it } from 'vitest';
import { catalogueFrom } from '../src/spec/catalogue.js';
import { aggregate, classifyError } from '../src/model/outcome.js';
import { buildRequirementReports, exitCodeFor, type TestResult } from '../src/report/results.js';
import { genericResults } from '../src/report/generic-results.js';
import { toJUnit } from '../src/report/junit.js';
import { buildRunResults, type RunInfo } from '../src/report/run-results.js';
import { toTestResult } from '../src/report/test-result.js';

const cat = catalogueFrom({
  version: '9.9.9',
  requirements: [
    { id: 'A-001', section: '1', statement: 'a', level: 'core', testable: true },
    { id: 'A-002', section: '1', statement: 'b', level: 'core', testable: true },
    { id: 'A-003', section: '1', statement: 'c', level: 'core', testable: false, reason: 'why' },
    { id: 'A-004', section: '1', statement: 'd', level: 'implementation-defined', testable: true },
    { id: 'A-005', section: '1', statement: 'e', level: 'core', testable: true, retired: true },
    { id: 'GEN-001', section: '4', statement: 'json', level: 'core', testable: true },
  ],
});

const t = (id: string, result: TestResult['result'], requirements: string[]): TestResult => ({
  id,
  title: id,
  file: 'conformance/suite/x.test.ts',
  profile: 'core',
  requirements,
  result,
  durationMs: 1,
});

describe('classifyError', () => {
  it('classifies by error name and message', () => {
    expect(classifyError({ name: 'AssertionError', message: 'expected 1 to be 2' })).toBe('failed');
    expect(classifyError({ name: 'GenericCheckError', message: '[GEN-001] x' })).toBe('failed');
    expect(classifyError({ name: 'PreconditionFailedError', message: 'x' })).toBe('precondition-failed');
    expect(classifyError({ name: 'TargetError', message: 'x' })).toBe('error');
    expect(classifyError({ name: 'TimeoutError', message: 'x' })).toBe('error');
    expect(classifyError({ name: 'TypeError', message: 'fetch failed' })).toBe('error');
    expect(classifyError({ name: 'Error', message: 'Test timed out in 5000ms.' })).toBe('error');
    expect(classifyError({ name: 'TypeError', message: 'x is not a function' })).toBe('failed');
  });
});

describe('aggregate', () => {
  it('orders failed > error > precondition-failed > passed > not-applicable', () => {
    expect(aggregate(['passed', 'failed', 'error'])).toBe('failed');
    expect(aggregate(['passed', 'error', 'precondition-failed'])).toBe('error');
    expect(aggregate(['passed', 'precondition-failed'])).toBe('precondition-failed');
    expect(aggregate(['passed', 'not-applicable'])).toBe('passed');
    expect(aggregate(['not-applicable'])).toBe('not-applicable');
    expect(aggregate([])).toBe('not-applicable');
  });
});

describe('requirement reports and exit codes', () => {
  it('marks untested and not-testable, skips retired and unselected levels', () => {
    const reqs = buildRequirementReports({
      catalogue: cat,
      profile: 'core',
      requirements: [],
      tests: [t('x.one', 'passed', ['A-001', 'A-004'])],
    });
    expect(reqs.map((r) => [r.id, r.result])).toEqual([
      ['A-001', 'passed'],
      ['A-002', 'untested'],
      ['A-003', 'not-testable'],
      ['GEN-001', 'untested'],
    ]);
    expect(reqs.find((r) => r.id === 'A-003')!.reason).toBe('why');
  });

  it('selects by prefix and profile', () => {
    const all = buildRequirementReports({ catalogue: cat, profile: 'all', requirements: ['A-00'], tests: [] });
    expect(all.map((r) => r.id)).toEqual(['A-001', 'A-002', 'A-003', 'A-004']);
    const impl = buildRequirementReports({
      catalogue: cat,
      profile: 'implementation-defined',
      requirements: [],
      tests: [],
    });
    expect(impl.map((r) => r.id)).toEqual(['A-004']);
  });

  it('exit 0 only when every gating requirement passed or does not count', () => {
    const mk = (results: Array<TestResult['result']>) =>
      buildRequirementReports({
        catalogue: cat,
        profile: 'core',
        requirements: ['A-001', 'A-002', 'A-003'],
        tests: results.map((r, i) => t(`x.t${i}`, r, ['A-001', 'A-002'])),
      });
    expect(exitCodeFor(mk(['passed']))).toBe(0);
    expect(exitCodeFor(mk(['passed', 'not-applicable']))).toBe(0);
    expect(exitCodeFor(mk(['not-applicable']))).toBe(0);
    expect(exitCodeFor(mk(['failed']))).toBe(1);
    // only errors (time-outs, an unreachable target): the target's exit code, never a failure
    expect(exitCodeFor(mk(['error']))).toBe(3);
    expect(exitCodeFor(mk(['error', 'failed']))).toBe(1);
    expect(exitCodeFor(mk(['precondition-failed']))).toBe(1);
    expect(exitCodeFor(mk([]))).toBe(1); // untested
    expect(exitCodeFor(mk(['passed']), { suiteInvalid: true })).toBe(2);
    expect(exitCodeFor(mk(['passed']), { harnessFailed: true, suiteInvalid: true })).toBe(3);
  });

  it('implementation-defined failures do not fail the core profile', () => {
    const info: RunInfo = {
      catalogue: cat,
      suiteVersion: '0.1.0',
      specVersion: '1.0.0',
      target: { kind: 'url', baseUrl: 'http://x' },
      profile: 'core',
      requirements: ['A-001'],
      readOnly: false,
      startedAt: new Date(0),
    };
    const r = buildRunResults(
      info,
      [
        {
          name: 'one [A-001]',
          file: 'conformance/suite/x.test.ts',
          state: 'passed',
          meta: { id: 'x.one', title: 'one', requirements: ['A-001'], profile: 'core' },
        },
        {
          name: 'two [A-004]',
          file: 'conformance/suite/x.test.ts',
          state: 'failed',
          errors: [{ name: 'AssertionError', message: 'no' }],
          meta: { id: 'x.two', title: 'two', requirements: ['A-004'], profile: 'implementation-defined' },
        },
      ],
      { runErrors: [], suiteInvalid: false, harnessFailed: false },
      new Date(1000),
    );
    expect(r.exitCode).toBe(0);
    expect(r.verdict).toBe('pass');
    expect(r.counts.passed).toBe(1);
    expect(r.durationMs).toBe(1000);
  });
});

describe('toTestResult', () => {
  const base = { name: 'title [A-001]', file: 'conformance/suite/x.test.ts' };
  it('uses the outcome the DSL recorded', () => {
    const r = toTestResult({
      ...base,
      state: 'failed',
      errors: [{ name: 'Error', message: 'state x failed' }],
      meta: { id: 'x.a', outcome: 'precondition-failed', outcomeReason: 'state x failed', requirements: ['A-001'] },
    });
    expect(r.result).toBe('precondition-failed');
    expect(r.reason).toBe('state x failed');
    expect(r.error?.message).toBe('state x failed');
  });
  it('skipped tests are not-applicable with their reason', () => {
    const r = toTestResult({
      ...base,
      state: 'skipped',
      note: undefined,
      meta: { id: 'x.a', skipReason: 'mutating test left out by --read-only' },
    });
    expect(r).toMatchObject({
      result: 'not-applicable',
      reason: 'mutating test left out by --read-only',
      requirements: ['A-001'],
      title: 'title',
    });
    expect(r.afterEveryRequest).toBeUndefined();
  });
  it('a test that ended not-applicable after every request it makes says so; no other result does', () => {
    const meta = { id: 'x.a', outcome: 'not-applicable' as const, outcomeReason: 'no timing', afterEveryRequest: true };
    expect(toTestResult({ ...base, state: 'skipped', meta }).afterEveryRequest).toBe(true);
    expect(toTestResult({ ...base, state: 'passed', meta: { ...meta, outcome: 'passed' } }).afterEveryRequest).toBe(
      undefined,
    );
  });
  it('keeps the exchanges of a failed test', () => {
    const ex = {
      method: 'GET',
      url: 'http://x/api/Domains',
      requestHeaders: { token: '<redacted>' },
      status: 500,
      ms: 3,
    };
    const r = toTestResult({
      ...base,
      state: 'failed',
      errors: [{ name: 'AssertionError', message: 'expected 200' }],
      meta: { id: 'x.a', exchanges: [ex] },
    });
    expect(r.result).toBe('failed');
    expect(r.error?.exchanges).toEqual([ex]);
  });
  it('names the operations the verdict rests on (its own requests and those of another test it judged) and counts unmatched requests', () => {
    const ex = (operationId?: string) => ({
      method: 'GET',
      url: 'http://t/api/Claim/1',
      requestHeaders: {},
      ms: 1,
      ...(operationId ? { operationId } : {}),
    });
    const r = toTestResult({
      ...base,
      state: 'passed',
      meta: {
        id: 'x.a',
        exchanges: [ex('getRecord'), ex(), ex('getRecord')],
        dependedOperations: ['', 'queryRecords'],
      },
    });
    expect(r.operations).toEqual(['getRecord', 'queryRecords']);
    expect(r.unmatchedRequests).toBe(2);
    // no answer counts as refused; another test's operations are not this test's to know
    expect(r.refusedOperations).toEqual(['getRecord', 'queryRecords']);
  });
  it('names the operations that answered other than 2xx (refusedOperations), an empty list when none did', () => {
    const ex = (operationId: string, status: number) => ({
      method: 'GET',
      url: 'http://t/api/Claim/1',
      requestHeaders: {},
      ms: 1,
      operationId,
      status,
    });
    const of = (exchanges: ReturnType<typeof ex>[]) =>
      toTestResult({ ...base, state: 'passed', meta: { id: 'x.a', exchanges } }).refusedOperations;
    expect(of([ex('getRecord', 200), ex('queryRecords', 404), ex('getFile', 302), ex('queryRecords', 200)])).toEqual([
      'getFile',
      'queryRecords',
    ]);
    expect(of([ex('getRecord', 200), ex('getRecord', 204)])).toEqual([]);
    expect(toTestResult({ ...base, state: 'passed', meta: { id: 'x.a' } }).refusedOperations).toBeUndefined();
  });
});

describe('generic results and JUnit', () => {
  it('makes one synthetic GEN test per file and code', () => {
    const g = genericResults([
      {
        name: 'a [A-001]',
        file: 'conformance/suite/x.test.ts',
        state: 'passed',
        meta: { id: 'x.a', checked: { 'GEN-001': 3, 'GEN-002': 0 } },
      },
      {
        name: 'b [A-001]',
        file: 'conformance/suite/x.test.ts',
        state: 'failed',
        meta: {
          id: 'x.b',
          checked: { 'GEN-001': 1, 'GEN-002': 0 },
          violations: [{ code: 'GEN-001', message: '[GEN-001] not JSON' }],
        },
      },
    ]);
    expect(g).toHaveLength(1);
    expect(g[0]).toMatchObject({ requirements: ['GEN-001'], result: 'failed', generic: true });
    expect(g[0].error?.message).toContain('[GEN-001] not JSON (in test x.b)');
  });

  it('counts a violation with provenance against the requirements that state it, not GEN-002', () => {
    const g = genericResults([
      {
        name: 'a [A-001]',
        file: 'conformance/suite/x.test.ts',
        state: 'failed',
        meta: {
          id: 'x.a',
          checked: { 'GEN-001': 0, 'GEN-002': 2 },
          violations: [
            { code: 'GEN-002', requirements: ['A-002'], message: '[A-002, the documented shape] /Date pattern' },
          ],
        },
      },
    ]);
    expect(g.map((r) => [r.id, r.requirements, r.result])).toEqual([
      ['generic.gen-002.x', ['GEN-002'], 'passed'],
      ['generic.stated-shape.x', ['A-002'], 'failed'],
    ]);
    expect(g[1]!.error?.message).toContain('/Date pattern (in test x.a)');
  });

  it('writes one testcase per requirement check', () => {
    const info: RunInfo = {
      catalogue: cat,
      suiteVersion: '0.1.0',
      specVersion: '1.0.0',
      target: { kind: 'url', baseUrl: 'http://x' },
      profile: 'core',
      requirements: [],
      readOnly: false,
      startedAt: new Date(0),
    };
    const r = buildRunResults(
      info,
      [
        {
          name: 'two <checks> [A-001 A-002]',
          file: 'conformance/suite/x.test.ts',
          state: 'failed',
          errors: [{ name: 'AssertionError', message: 'bad & "worse"' }],
          meta: { id: 'x.two', title: 'two <checks>', requirements: ['A-001', 'A-002'] },
        },
      ],
      { runErrors: [], suiteInvalid: false, harnessFailed: false },
      new Date(10),
    );
    const x = toJUnit(r);
    expect(x).toContain('<testcase name="A-001 two &lt;checks&gt;" classname="a"');
    expect(x).toContain('<testcase name="A-002 two &lt;checks&gt;"');
    expect(x).toContain('message="bad &amp; &quot;worse&quot;"');
    expect(x).toContain('name="A-003 (not testable)"');
    expect(x).toContain('<failure type="untested"'); // GEN-001 has no test here
    expect(r.exitCode).toBe(1);
  });
});
