// The judgement of the controls that refuse an undocumented part (the relationship column): a
// requirement that only that part could judge may end not-applicable when its tests name the
// binding; a failure, a block, an error or another reason stays a false alarm.
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../src/report/results.js';
import { controlByName } from '../faults/controls/index.js';
import { judgeControl, type ConformanceRun } from '../faults/runner/judge.js';
import { stoppedByUndocumentedPart } from '../faults/judge-undocumented-part.js';

type T = { result: string; reason?: string };
const NAMES_BINDING =
  "LINK-006 is judged on the relationship column, which the implementation does not offer under the name 'ContactTypeID' (binding linkColumns.relationship)";

function run(reqs: Array<[string, string, T[]]>): ConformanceRun {
  const requirements = reqs.map(([id, result, tests]) => ({ id, result, level: 'core', tests }));
  return { exitCode: 0, durationMs: 1, results: { requirements } as unknown as RunResults };
}
const base = new Map([
  ['LINK-006', 'passed'],
  ['LINK-013', 'passed'],
] as const);
const partControl = controlByName('link-query-documented-columns-only')!;
const plainControl = controlByName('link-query-newest-first')!;

describe('stoppedByUndocumentedPart', () => {
  it('excuses a not-applicable requirement whose tests name the binding', () => {
    expect(
      stoppedByUndocumentedPart({
        result: 'not-applicable',
        tests: [{ result: 'not-applicable', reason: NAMES_BINDING }] as any,
      }),
    ).toBe(true);
  });

  it('never excuses failed, blocked or error, nor a reason that names no binding', () => {
    for (const result of ['failed', 'blocked', 'error', 'precondition-failed'])
      expect(stoppedByUndocumentedPart({ result, tests: [{ result, reason: NAMES_BINDING }] } as any)).toBe(false);
    expect(
      stoppedByUndocumentedPart({
        result: 'not-applicable',
        tests: [{ result: 'not-applicable', reason: 'the column is not documented' }] as any,
      }),
    ).toBe(false);
  });
});

describe('judgeControl with judge: undocumented-part', () => {
  const reqs: Array<[string, string, T[]]> = [
    ['LINK-006', 'not-applicable', [{ result: 'not-applicable', reason: NAMES_BINDING }]],
    ['LINK-013', 'passed', [{ result: 'passed' }]],
  ];

  it('passes the control and notes the requirement it could not judge', () => {
    expect(partControl.judge).toBe('undocumented-part');
    const out = judgeControl(partControl, run(reqs), base as any, '/tmp/x', 0);
    expect(out.status).toBe('passed');
    expect(out.notes.join('\n')).toMatch(/1 requirement\(s\) not judged: .*undocumented part/);
  });

  it('a control of the interface excuses nothing', () => {
    const out = judgeControl(plainControl, run(reqs), base as any, '/tmp/x', 0);
    expect(out.status).toBe('false-alarm');
    expect(out.falseAlarms).toEqual({ 'LINK-006': 'not-applicable' });
  });

  it('a failed requirement stays a false alarm under the part judge', () => {
    const out = judgeControl(
      partControl,
      run([['LINK-013', 'failed', [{ result: 'failed', reason: NAMES_BINDING }]]]),
      base as any,
      '/tmp/x',
      0,
    );
    expect(out.falseAlarms).toEqual({ 'LINK-013': 'failed' });
  });
});
