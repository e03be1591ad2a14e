// The model-based test blames one requirement for a failed check (suite/support/model/blame.ts):
// the first check that names a requirement decides, and a failure no check named stays unblamed
// (the test then fails every requirement it names, as before).
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { blamed, interruptedUnjudged, judged } from '../suite/support/model/blame.js';
import { BlockedError } from '../src/model/errors.js';
import { buildRequirementReports } from '../src/report/results.js';
import { loadCatalogue } from '../src/spec/catalogue.js';

describe('judged / blamed', () => {
  it('tags a failure with the requirement of the check that threw it; the innermost check wins', () => {
    let caught: unknown;
    try {
      judged('SCHED-008', () => judged('SCHED-003', () => expect(1).toBe(2)));
    } catch (e) {
      caught = e;
    }
    expect(blamed(caught)).toBe('SCHED-003');
  });

  it('keeps the requirement a BlockedError names (a step of another rule broke inside the check)', () => {
    let caught: unknown;
    try {
      judged('SCHED-008', () => {
        throw new BlockedError('SCHED-005', 'a Message', 'blocked by SCHED-005');
      });
    } catch (e) {
      caught = e;
    }
    expect(blamed(caught)).toBe('SCHED-005');
  });

  it('leaves a failure outside every check unblamed, and passes values through', () => {
    expect(judged('SCHED-003', () => 42)).toBe(42);
    expect(blamed(new Error('x'))).toBeUndefined();
    expect(blamed(undefined)).toBeUndefined();
  });
});

describe('a model test blocked by the requirement it blamed', () => {
  it('fails that requirement alone and blocks the others it names', () => {
    const reports = buildRequirementReports({
      catalogue: loadCatalogue(),
      profile: 'core',
      requirements: ['SCHED-003', 'SCHED-005', 'LINK-015'],
      tests: [
        {
          id: 'model.schedules-and-links',
          title: 'model',
          file: 'conformance/suite/model-based.test.ts',
          profile: 'core',
          requirements: ['SCHED-003', 'SCHED-005', 'LINK-015'],
          result: 'blocked',
          blockedBy: { requirement: 'SCHED-003', step: 'a generated sequence, judged by SCHED-003' },
          durationMs: 1,
        },
      ],
    });
    expect(Object.fromEntries(reports.map((r) => [r.id, r.result]))).toEqual({
      'SCHED-003': 'failed',
      'SCHED-005': 'blocked',
      'LINK-015': 'blocked',
    });
  });
});

describe('a model run its time limit interrupts', () => {
  const slow = (ms: number) => fc.asyncProperty(fc.nat(), () => new Promise<void>((r) => setTimeout(r, ms)));
  it('before any sequence ended: fast-check says failed, the suite says unjudged (a slow target, never a failure)', async () => {
    const out = await fc.check(slow(200), { numRuns: 3, interruptAfterTimeLimit: 50 });
    expect(out).toMatchObject({ failed: true, interrupted: true, numRuns: 0 });
    expect(interruptedUnjudged(out)).toBe(true);
  });
  it('after a sequence passed, or on a real counterexample: judged as fast-check says', async () => {
    const partly = await fc.check(slow(30), { numRuns: 50, interruptAfterTimeLimit: 100 });
    expect(partly.failed).toBe(false);
    expect(interruptedUnjudged(partly)).toBe(false);
    const broken = await fc.check(
      fc.asyncProperty(fc.nat(), async () => {
        throw new Error('wrong answer');
      }),
      { numRuns: 3 },
    );
    expect(broken.failed).toBe(true);
    expect(interruptedUnjudged(broken)).toBe(false);
  });
});
