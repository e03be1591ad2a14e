import { describe, expect, it } from 'vitest';
import { judgePeer } from '../judge-peer.js';

type Req = Parameters<typeof judgePeer>[0]['requirements'][number];
const test = (id: string, result: string, extra: Record<string, unknown> = {}) =>
  ({
    id,
    title: id,
    file: 'x.test.ts',
    profile: 'core',
    requirements: ['X-001'],
    result,
    durationMs: 1,
    ...extra,
  }) as Req['tests'][number];
const req = (id: string, result: string, tests: Req['tests']) => ({ id, result, tests }) as unknown as Req;
const run = (requirements: Req[], exitCode = 0) =>
  ({ requirements, counts: { passed: 1 }, exitCode, profile: 'core', runErrors: [] }) as unknown as Parameters<
    typeof judgePeer
  >[0];

describe('judgePeer', () => {
  it('passes a run whose tests passed or are not-applicable with a reason', () => {
    const v = judgePeer(
      run([
        req('A-1', 'passed', [test('a', 'passed'), test('b', 'not-applicable', { reason: 'state refused (501)' })]),
      ]),
    );
    expect(v).toMatchObject({ ok: true, problems: [], notApplicable: [{ test: 'b', reason: 'state refused (501)' }] });
  });

  it.each(['failed', 'blocked', 'error', 'precondition-failed'])('names every %s test as a problem', (result) => {
    const v = judgePeer(
      run(
        [req('A-1', result, [test('a', result, { error: { message: 'expected 1 to be 2\nmore', exchanges: [] } })])],
        1,
      ),
    );
    expect(v.ok).toBe(false);
    expect(v.problems).toEqual([`a (X-001): ${result}: expected 1 to be 2`]);
  });

  it('refuses a not-applicable without a reason, and counts a test of two requirements once', () => {
    const t = test('a', 'not-applicable');
    const v = judgePeer(run([req('A-1', 'not-applicable', [t]), req('A-2', 'not-applicable', [t])]));
    expect(v.problems).toEqual(['a: not-applicable without a reason']);
  });

  it('ignores tests of the other profile and fails a non-zero exit with nothing else red', () => {
    const v = judgePeer(run([req('A-1', 'passed', [test('a', 'failed', { profile: 'implementation-defined' })])], 4));
    expect(v.problems).toEqual(['the run exited 4']);
  });
});
