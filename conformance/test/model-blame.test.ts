// The model-based test blames one requirement for a failed check (suite/support/model/blame.ts):
// the first check that names a requirement decides, and a failure no check named stays unblamed
// (the test then fails every requirement it names, as before).
import { describe, expect, it } from 'vitest';
import { blamed, judged } from '../suite/support/model/blame.js';
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
