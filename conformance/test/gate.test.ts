// Baselines and expected failures: parsing, judging, exit codes, and how they show in the reports.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogueFrom } from '../src/spec/catalogue.js';
import { applyGate, loadBaseline, loadExpectedFailures, parseExpectedFailures } from '../src/report/gate.js';
import { UsageError } from '../src/model/errors.js';
import { toJUnit } from '../src/report/junit.js';
import { buildRunResults, type RunInfo } from '../src/report/run-results.js';
import { summaryText } from '../src/report/summary.js';
import type { ReportedTest } from '../src/report/test-result.js';
import { renderBadge } from '../src/report/badge.js';
import { renderHtml } from '../src/report/html.js';
import type { RunResults } from '../src/report/results.js';
import { resultsValidator } from './helpers/schema.js';

const cat = catalogueFrom({
  version: '1.0.0',
  requirements: [
    { id: 'A-001', section: '1', statement: 'one', level: 'core', testable: true },
    { id: 'A-002', section: '1', statement: 'two', level: 'core', testable: true },
    { id: 'A-003', section: '2', statement: 'three', level: 'core', testable: true },
    { id: 'A-004', section: '2', statement: 'four', level: 'core', testable: true },
    { id: 'A-005', section: '2', statement: 'five', level: 'core', testable: true, retired: true },
  ],
});

type State = 'pass' | 'fail' | 'none';
function run(states: Record<string, State>, gate?: RunInfo['gate']): RunResults {
  const tests: ReportedTest[] = Object.entries(states)
    .filter(([, s]) => s !== 'none')
    .map(([id, s]) => ({
      name: `t ${id}`,
      file: 'conformance/suite/a.test.ts',
      meta: {
        conformance: true,
        id: `a.t-${id.toLowerCase()}`,
        title: `t ${id}`,
        requirements: [id],
        profile: 'core',
        outcome: s === 'pass' ? 'passed' : 'failed',
      },
      state: s === 'pass' ? 'passed' : 'failed',
      errors: s === 'fail' ? [{ name: 'AssertionError', message: `expected ${id} to work` }] : undefined,
    }));
  const info: RunInfo = {
    catalogue: cat,
    suiteVersion: '0.1.0',
    specVersion: '1.0.0',
    target: { kind: 'url', baseUrl: 'http://x.example' },
    profile: 'core',
    requirements: Object.keys(states),
    readOnly: false,
    startedAt: new Date('2026-03-01T10:00:00Z'),
    gate,
  };
  return buildRunResults(
    info,
    tests,
    { runErrors: [], suiteInvalid: false, harnessFailed: false },
    new Date('2026-03-01T10:01:00Z'),
  );
}

const TODAY = new Date('2026-03-01T12:00:00Z');
const validate = resultsValidator();

describe('expected-failures file', () => {
  it('parses a list of {id, reason, expires}', () => {
    expect(parseExpectedFailures([{ id: 'A-001', reason: 'vendor bug 12', expires: '2026-06-30' }], 'f', cat)).toEqual([
      { id: 'A-001', reason: 'vendor bug 12', expires: '2026-06-30' },
    ]);
    expect(parseExpectedFailures(null, 'f', cat)).toEqual([]);
  });

  it.each([
    [{ reason: 'r', expires: '2026-01-01' }, /'id' must be/],
    [{ id: 'A-999', reason: 'r', expires: '2026-01-01' }, /not a requirement ID/],
    [{ id: 'A-005', reason: 'r', expires: '2026-01-01' }, /retired/],
    [{ id: 'A-001', expires: '2026-01-01' }, /'reason' must be/],
    [{ id: 'A-001', reason: ' ', expires: '2026-01-01' }, /'reason' must be/],
    [{ id: 'A-001', reason: 'r' }, /'expires' must be a date/],
    [{ id: 'A-001', reason: 'r', expires: '2026-02-30' }, /'expires' must be a date/],
    [{ id: 'A-001', reason: 'r', expires: 'next week' }, /'expires' must be a date/],
    [{ id: 'A-001', reason: 'r', expires: '2026-01-01', owner: 'me' }, /unknown key/],
  ])('refuses %j', (entry, msg) => {
    expect(() => parseExpectedFailures([entry], 'f', cat)).toThrow(msg);
    expect(() => parseExpectedFailures([entry], 'f', cat)).toThrow(UsageError);
  });

  it('refuses duplicates and a non-list', () => {
    const e = { id: 'A-001', reason: 'r', expires: '2026-01-01' };
    expect(() => parseExpectedFailures([e, e], 'f', cat)).toThrow(/listed twice/);
    expect(() => parseExpectedFailures({ 'A-001': 'x' }, 'f', cat)).toThrow(/must be a YAML list/);
  });

  it('loads YAML (unquoted dates included)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-gate-'));
    const f = path.join(dir, 'xf.yaml');
    fs.writeFileSync(f, '# known problems\n- id: A-002\n  reason: "ticket #42: wrong status"\n  expires: 2026-06-30\n');
    expect(loadExpectedFailures(f, cat)).toEqual([
      { id: 'A-002', reason: 'ticket #42: wrong status', expires: '2026-06-30' },
    ]);
    fs.writeFileSync(f, '- id: [unclosed\n');
    expect(() => loadExpectedFailures(f, cat)).toThrow(/not valid YAML/);
    expect(() => loadExpectedFailures(path.join(dir, 'nope.yaml'), cat)).toThrow(/cannot read/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('judging expected failures', () => {
  const entries = (...e: Array<[string, string]>) => ({
    file: '/tmp/xf.yaml',
    entries: e.map(([id, expires]) => ({ id, reason: `because ${id}`, expires })),
  });

  it('a listed failure does not fail the run', () => {
    const r = run(
      { 'A-001': 'pass', 'A-002': 'fail' },
      { expectedFailures: entries(['A-002', '2026-03-01']), today: TODAY },
    );
    expect(r.exitCode).toBe(0);
    expect(r.verdict).toBe('pass');
    expect(r.requirements.find((q) => q.id === 'A-002')!.expectedFailure).toMatchObject({
      status: 'expected-failure',
      expires: '2026-03-01',
    });
    expect(r.gate).toMatchObject({ blocking: [], excused: [{ id: 'A-002', by: 'expected-failure' }], expired: [] });
    expect(r.expectedFailures!.entries[0]).toMatchObject({ id: 'A-002', status: 'expected-failure', result: 'failed' });
    expect(validate(r)).toEqual([]);
  });

  it('a failure that is not listed still fails the run', () => {
    const r = run(
      { 'A-001': 'fail', 'A-002': 'fail' },
      { expectedFailures: entries(['A-002', '2026-12-31']), today: TODAY },
    );
    expect(r.exitCode).toBe(1);
    expect(r.gate!.blocking).toEqual(['A-001']);
    expect(r.gate!.messages.join('\n')).toMatch(/1 failing requirement not listed as expected: A-001/);
  });

  it('an expired entry fails the run with a clear message, whatever the result', () => {
    const r = run(
      { 'A-001': 'pass', 'A-002': 'fail' },
      { expectedFailures: entries(['A-002', '2026-02-28']), today: TODAY },
    );
    expect(r.exitCode).toBe(1);
    expect(r.gate!.expired).toEqual(['A-002']);
    expect(r.gate!.messages.join('\n')).toMatch(
      /EXPIRED: A-002: the expected-failures entry expired on 2026-02-28 \(because A-002\).*Fix the implementation or extend the date/,
    );
    expect(r.requirements.find((q) => q.id === 'A-002')!.expectedFailure!.status).toBe('expired');
    const passingButExpired = run(
      { 'A-001': 'pass' },
      { expectedFailures: entries(['A-001', '2026-01-01']), today: TODAY },
    );
    expect(passingButExpired.exitCode).toBe(1);
    expect(validate(r)).toEqual([]);
  });

  it('the expiry day itself is still valid (UTC)', () => {
    const r = run(
      { 'A-002': 'fail' },
      { expectedFailures: entries(['A-002', '2026-03-01']), today: new Date('2026-03-01T23:59:59Z') },
    );
    expect(r.exitCode).toBe(0);
    const next = run(
      { 'A-002': 'fail' },
      { expectedFailures: entries(['A-002', '2026-03-01']), today: new Date('2026-03-02T00:00:00Z') },
    );
    expect(next.exitCode).toBe(1);
  });

  it('an entry for a passing requirement is reported as unexpectedly passing, without failing the run', () => {
    const r = run({ 'A-001': 'pass' }, { expectedFailures: entries(['A-001', '2026-12-31']), today: TODAY });
    expect(r.exitCode).toBe(0);
    expect(r.expectedFailures!.entries[0].status).toBe('unexpectedly-passing');
    expect(r.expectedFailures!.entries[0].message).toMatch(/A-001 is unexpectedly passing: remove it from/);
    expect(summaryText(r)).toMatch(/unexpectedly passing: remove it/);
    expect(renderHtml(r)).toContain('unexpectedly passing — remove it');
  });

  it('an entry for a requirement outside the run is not-run', () => {
    const r = run({ 'A-001': 'pass' }, { expectedFailures: entries(['A-003', '2026-12-31']), today: TODAY });
    expect(r.exitCode).toBe(0);
    expect(r.expectedFailures!.entries[0].status).toBe('not-run');
  });

  it('an untested requirement can be listed too', () => {
    const r = run(
      { 'A-001': 'pass', 'A-002': 'none' },
      { expectedFailures: entries(['A-002', '2026-12-31']), today: TODAY },
    );
    expect(r.requirements.find((q) => q.id === 'A-002')!.result).toBe('untested');
    expect(r.exitCode).toBe(0);
  });
});

describe('judging against a baseline', () => {
  const base = (states: Record<string, State>) => ({ file: '/tmp/baseline/results.json', results: run(states) });

  it('fails only on regressions; reports fixed and still failing', () => {
    const r = run(
      { 'A-001': 'fail', 'A-002': 'pass', 'A-003': 'fail', 'A-004': 'pass' },
      { baseline: base({ 'A-001': 'pass', 'A-002': 'fail', 'A-003': 'fail', 'A-004': 'pass' }) },
    );
    expect(r.exitCode).toBe(1);
    expect(r.baseline!.regressions).toEqual([{ id: 'A-001', was: 'passed', now: 'failed' }]);
    expect(r.baseline!.fixed).toEqual([{ id: 'A-002', was: 'failed', now: 'passed' }]);
    expect(r.baseline!.stillFailing).toEqual([{ id: 'A-003', was: 'failed', now: 'failed' }]);
    expect(r.gate!.blocking).toEqual(['A-001']);
    expect(r.gate!.excused).toEqual([{ id: 'A-003', by: 'baseline' }]);
    const by = Object.fromEntries(r.requirements.map((q) => [q.id, q.baseline!.change]));
    expect(by).toEqual({ 'A-001': 'regression', 'A-002': 'fixed', 'A-003': 'still-failing', 'A-004': 'unchanged' });
    expect(r.gate!.messages[0]).toBe('1 regression since the baseline: A-001 (passed → failed)');
    expect(validate(r)).toEqual([]);
  });

  it('passes when everything failing was failing in the baseline', () => {
    const r = run({ 'A-001': 'pass', 'A-002': 'fail' }, { baseline: base({ 'A-001': 'fail', 'A-002': 'fail' }) });
    expect(r.exitCode).toBe(0);
    expect(r.verdict).toBe('pass');
    expect(r.gate!.messages[0]).toMatch(/^no regressions since the baseline/);
  });

  it('a failing requirement the baseline did not hold is a regression', () => {
    const r = run({ 'A-001': 'pass', 'A-003': 'fail' }, { baseline: base({ 'A-001': 'pass' }) });
    expect(r.exitCode).toBe(1);
    expect(r.baseline!.regressions).toEqual([{ id: 'A-003', was: 'absent', now: 'failed' }]);
  });

  it('a newly added requirement that passes is fine; one missing from the run is listed', () => {
    const r = run({ 'A-001': 'pass', 'A-003': 'pass' }, { baseline: base({ 'A-001': 'pass', 'A-002': 'pass' }) });
    expect(r.exitCode).toBe(0);
    expect(r.baseline!.notInRun).toEqual(['A-002']);
  });

  it('combines with expected failures: a listed regression does not fail the run', () => {
    const r = run(
      { 'A-001': 'fail', 'A-002': 'pass' },
      {
        baseline: base({ 'A-001': 'pass', 'A-002': 'pass' }),
        expectedFailures: { file: 'xf.yaml', entries: [{ id: 'A-001', reason: 'r', expires: '2026-12-31' }] },
        today: TODAY,
      },
    );
    expect(r.exitCode).toBe(0);
    expect(r.gate!.excused).toEqual([{ id: 'A-001', by: 'expected-failure' }]);
  });

  it('never turns a harness or usage error into a pass', () => {
    const broken = { ...run({ 'A-001': 'pass' }), exitCode: 3 as const, verdict: 'error' as const };
    const r = applyGate(broken, { baseline: base({ 'A-001': 'pass' }) });
    expect(r.exitCode).toBe(3);
    expect(r.verdict).toBe('error');
  });

  it('loads and checks a baseline file', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-base-'));
    const f = path.join(dir, 'results.json');
    fs.writeFileSync(f, JSON.stringify(run({ 'A-001': 'pass' })));
    expect(loadBaseline(f).requirements[0].id).toBe('A-001');
    fs.writeFileSync(f, JSON.stringify({ schema: 'something-else' }));
    expect(() => loadBaseline(f)).toThrow(/not a conformance results.json/);
    fs.writeFileSync(f, '{');
    expect(() => loadBaseline(f)).toThrow(/not JSON/);
    expect(() => loadBaseline(path.join(dir, 'none.json'))).toThrow(UsageError);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('the reports show the gate', () => {
  const gated = run(
    { 'A-001': 'fail', 'A-002': 'fail', 'A-003': 'pass', 'A-004': 'fail' },
    {
      baseline: {
        file: 'base/results.json',
        results: run({ 'A-001': 'pass', 'A-002': 'fail', 'A-003': 'fail', 'A-004': 'pass' }),
      },
      expectedFailures: {
        file: 'xf.yaml',
        entries: [{ id: 'A-004', reason: 'upstream fix pending', expires: '2026-12-31' }],
      },
      today: TODAY,
    },
  );

  it('junit: excused failures are skipped (like xfail), regressions stay failures', () => {
    const x = toJUnit(gated);
    expect(x).toMatch(/<testcase name="A-001 t A-001"[^>]*><failure /);
    expect(x).toMatch(
      /<testcase name="A-002 t A-002"[^>]*><skipped message="known failure: already failed in the baseline; failed: expected A-002 to work"\/>/,
    );
    expect(x).toMatch(
      /<testcase name="A-004 t A-004"[^>]*><skipped message="expected failure until 2026-12-31: upstream fix pending; failed: expected A-004 to work"\/>/,
    );
    expect(x).toMatch(/<testsuites [^>]*tests="4" failures="1" errors="0" skipped="2"/);
  });

  it('html: regression, fixed, known and expected marks and the gate panel', () => {
    const html = renderHtml(gated);
    expect(html).toContain('REGRESSION (baseline: passed)');
    expect(html).toContain('fixed since the baseline (was failed)');
    expect(html).toContain('known: failed in the baseline too');
    expect(html).toContain('expected failure until 2026-12-31');
    expect(html).toContain('Gate: baseline and expected failures');
    expect(html).toContain('Newly failing (regressions) (2)');
    expect(html).toContain('A-004 (passed → failed, an expected failure)');
  });

  it('summary and badge', () => {
    expect(summaryText(gated)).toMatch(/A-001 +failed +\(core\) \[REGRESSION\]/);
    expect(summaryText(gated)).toMatch(/A-004 +failed +\(core\) \[REGRESSION, expected failure\]/);
    expect(renderBadge(gated)).toContain('#d9322b'); // red: a regression
    const excusedOnly = run(
      { 'A-001': 'pass', 'A-002': 'fail' },
      {
        expectedFailures: { file: 'xf.yaml', entries: [{ id: 'A-002', reason: 'r', expires: '2026-12-31' }] },
        today: TODAY,
      },
    );
    expect(renderBadge(excusedOnly)).toContain('#e8700f'); // orange: failing, but expected
    expect(renderBadge(excusedOnly)).toContain('core 1/2');
  });
});
