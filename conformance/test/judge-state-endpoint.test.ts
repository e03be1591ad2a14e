// The judgement of the provider-state controls: a requirement the endpoint kept from running is
// excused only when every test that did not pass names a provider state as its reason; a failure,
// a block or an error, or a reason that blames anything else, stays a false alarm.
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../src/report/results.js';
import { controlByName } from '../faults/controls/index.js';
import { judgeControl, type ConformanceRun } from '../faults/runner/judge.js';
import { stoppedByStateEndpoint } from '../faults/judge-state-endpoint.js';

type T = { result: string; reason?: string; afterEveryRequest?: boolean };
const NEEDS = 'needs provider-state protocol 1.1.0: param `sortRanks` of `records` (the endpoint declares 1.0.0)';
const DID_NOT_HONOUR = "provider state 'records' did not honour what the test asked for: param `sortRanks`";

function run(reqs: Array<[string, string, T[]]>): ConformanceRun {
  const requirements = reqs.map(([id, result, tests]) => ({ id, result, level: 'core', tests }));
  return { exitCode: 1, durationMs: 1, results: { requirements } as unknown as RunResults };
}
const base = new Map([
  ['QRY-006', 'passed'],
  ['QRY-008', 'passed'],
  ['REC-001', 'passed'],
] as const);
const stateControl = controlByName('state-endpoint-protocol-1-0-0')!;
const plainControl = controlByName('unknown-domain-400')!;

describe('stoppedByStateEndpoint', () => {
  it('excuses not-applicable and precondition-failed whose tests name a provider state', () => {
    expect(
      stoppedByStateEndpoint({ result: 'not-applicable', tests: [{ result: 'not-applicable', reason: NEEDS }] as any }),
    ).toBe(true);
    expect(
      stoppedByStateEndpoint({
        result: 'precondition-failed',
        tests: [{ result: 'passed' }, { result: 'precondition-failed', reason: DID_NOT_HONOUR }] as any,
      }),
    ).toBe(true);
  });

  it('never excuses failed, blocked or error, nor a reason that names no provider state', () => {
    for (const result of ['failed', 'blocked', 'error'])
      expect(stoppedByStateEndpoint({ result: result as any, tests: [{ result, reason: NEEDS }] as any })).toBe(false);
    expect(
      stoppedByStateEndpoint({
        result: 'not-applicable',
        tests: [{ result: 'not-applicable', reason: 'the implementation has no LINQ filter' }] as any,
      }),
    ).toBe(false);
    expect(
      stoppedByStateEndpoint({
        result: 'precondition-failed',
        tests: [
          { result: 'precondition-failed', reason: DID_NOT_HONOUR },
          { result: 'failed', reason: NEEDS },
        ] as any,
      }),
    ).toBe(false);
  });
});

describe("judgeControl with judge: 'state-endpoint'", () => {
  it('passes when the only requirements that did not pass were stopped by the state endpoint, and says how many', () => {
    const o = judgeControl(
      stateControl,
      run([
        ['QRY-006', 'not-applicable', [{ result: 'not-applicable', reason: NEEDS }]],
        ['QRY-008', 'precondition-failed', [{ result: 'precondition-failed', reason: DID_NOT_HONOUR }]],
        ['REC-001', 'passed', [{ result: 'passed' }]],
      ]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o.status).toBe('passed');
    expect(o.notes.join(' ')).toMatch(/2 requirement\(s\) not judged/);
  });

  it('is a false alarm when a requirement failed, whatever the reason', () => {
    const o = judgeControl(
      stateControl,
      run([
        ['QRY-006', 'failed', [{ result: 'failed', reason: NEEDS }]],
        ['REC-001', 'passed', [{ result: 'passed' }]],
      ]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o).toMatchObject({ status: 'false-alarm', falseAlarms: { 'QRY-006': 'failed' } });
  });

  it('is an error when nothing passed: a run the endpoint stopped entirely proves nothing', () => {
    const o = judgeControl(
      stateControl,
      run([['QRY-006', 'not-applicable', [{ result: 'not-applicable', reason: NEEDS }]]]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o.status).toBe('error');
  });

  it('an interface control excuses nothing: the same not-applicable is a false alarm there', () => {
    const o = judgeControl(
      plainControl,
      run([['QRY-006', 'not-applicable', [{ result: 'not-applicable', reason: NEEDS }]]]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o).toMatchObject({ status: 'false-alarm', falseAlarms: { 'QRY-006': 'not-applicable' } });
  });
});

describe('a requirement not judged for a timing the machine did not give (not-applicable after every request)', () => {
  const TIMING = 'EntryDates within one second not exercised: no two uploads surely straddled ms 99 -> 100';
  const untimed = { result: 'not-applicable', reason: TIMING, afterEveryRequest: true };
  it('is no false alarm of any control, beside a state-endpoint cause too', () => {
    const plain = judgeControl(
      plainControl,
      run([
        ['QRY-008', 'not-applicable', [untimed]],
        ['REC-001', 'passed', [{ result: 'passed' }]],
      ]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(plain.status).toBe('passed');
    expect(plain.notes.join(' ')).toMatch(/1 requirement\(s\) not judged: .*timing/);
    const state = judgeControl(
      stateControl,
      run([
        ['QRY-008', 'not-applicable', [{ result: 'not-applicable', reason: NEEDS }, untimed]],
        ['REC-001', 'passed', [{ result: 'passed' }]],
      ]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(state.status).toBe('passed');
  });
  it('a not-applicable without the mark, or beside a failure, stays a false alarm', () => {
    const o = judgeControl(
      plainControl,
      run([
        ['QRY-008', 'not-applicable', [{ result: 'not-applicable', reason: TIMING }]],
        ['QRY-006', 'failed', [untimed, { result: 'failed' }]],
      ]),
      base as any,
      '/tmp/c',
      0,
    );
    expect(o).toMatchObject({
      status: 'false-alarm',
      falseAlarms: { 'QRY-008': 'not-applicable', 'QRY-006': 'failed' },
    });
  });
});
