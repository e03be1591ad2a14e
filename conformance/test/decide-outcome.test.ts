// A test's outcome, decided once (suite-api/decide-outcome.ts): what its body threw and the violations the
// generic checks found in its exchanges. One cause, one red line: a broken shape that is not the
// test's own blocks the test at the shape's root; a shape a requirement of the test states fails
// that requirement alone.
import { describe, expect, it } from 'vitest';
import { BlockedError } from '../src/model/errors.js';
import { decideOutcome } from '../src/suite-api/decide-outcome.js';
import type { Violation } from '../src/suite-api/generic-checks/types.js';

const assertion = (msg = 'expected 1 to be 2') => Object.assign(new Error(msg), { name: 'AssertionError' });
const schema = (requirements: string[]): Violation => ({
  code: 'GEN-002',
  requirements,
  message: `[${requirements.join(', ')}, the documented shape] GET /api/Link/Query → 200: /List/0/ParentID must be integer`,
});
/** a violation of the shape no requirement of its own states: GEN-002's */
const shapeOnly: Violation = { code: 'GEN-002', message: '[GEN-002] GET /api/Link/Query → 200: /List must be array' };
const envelope: Violation = { code: 'GEN-002', owner: 'QRY-001', message: "[QRY-001, the answer's envelope] no List" };

describe('decideOutcome', () => {
  it('passes a test that threw nothing and met no violation', () => {
    expect(decideOutcome(['LINK-008'], [], undefined)).toEqual({ outcome: 'passed' });
  });

  it('fails a test on its own assertion when no shape was broken', () => {
    const v = decideOutcome(['LINK-008'], [], assertion());
    expect(v.outcome).toBe('failed');
  });

  it('blocks a test whose assertion failed on a shape that is not its own, at the shape’s root', () => {
    const v = decideOutcome(['LINK-008'], [shapeOnly], assertion('expected [] to have a length of 1'));
    expect(v.outcome).toBe('blocked');
    const e = (v as { error: BlockedError }).error;
    expect([e.requirement, e.message]).toEqual([
      'GEN-002',
      expect.stringMatching(
        /not valid against its documented schema[\s\S]*not judged past the broken shape: expected \[\]/,
      ),
    ]);
  });

  it('blocks it at the requirement that states the broken constraint, not GEN-002', () => {
    const v = decideOutcome(['LINK-008'], [schema(['LINK-001'])], assertion('expected [] to have a length of 1'));
    const e = (v as { error: BlockedError }).error;
    expect([v.outcome, e.requirement, e.message]).toEqual([
      'blocked',
      'LINK-001',
      expect.stringMatching(/breaks the documented shape that LINK-001 states[\s\S]*not judged past the broken shape/),
    ]);
  });

  it('a step (or an oracle’s blame) that failed on a broken shape blocks at the shape, not the step', () => {
    const step = new BlockedError('LINK-011', 'the model’s link rows', 'blocked by LINK-011');
    const v = decideOutcome(['AUTH-001'], [schema(['LINK-001'])], step);
    expect([v.outcome, (v as { error: BlockedError }).error.requirement]).toEqual(['blocked', 'LINK-001']);
    // the shape the test's own requirement states: that one, judged alone
    const own = decideOutcome(['LINK-001', 'LINK-011'], [schema(['LINK-001'])], step);
    expect((own as { error: BlockedError }).error.requirement).toBe('LINK-001');
  });

  it('a broken envelope blocks at its owner', () => {
    const v = decideOutcome(['LINK-008'], [envelope], assertion());
    expect((v as { error: BlockedError }).error.requirement).toBe('QRY-001');
  });

  it('a shape the test’s only requirement states fails the test', () => {
    expect(decideOutcome(['LINK-001'], [schema(['LINK-001'])], assertion()).outcome).toBe('failed');
    expect(decideOutcome(['LINK-001'], [schema(['LINK-001'])], undefined).outcome).toBe('failed');
  });

  it('a shape one of several requirements states fails that one alone (blocked by it), thrown or not', () => {
    for (const thrown of [assertion(), undefined]) {
      const v = decideOutcome(['LINK-001', 'LINK-008', 'LINK-013'], [schema(['LINK-001'])], thrown);
      expect(v.outcome).toBe('blocked');
      expect((v as { error: BlockedError }).error.requirement).toBe('LINK-001');
    }
  });

  it('a violation no requirement of its own states is a GEN-002 test’s own failure', () => {
    expect(decideOutcome(['GEN-002'], [shapeOnly], undefined).outcome).toBe('failed');
  });

  it('a violation a requirement states blocks a GEN-002 test at that requirement (one red line)', () => {
    const v = decideOutcome(['GEN-002'], [schema(['LINK-001'])], undefined);
    expect([v.outcome, (v as { error: BlockedError }).error.requirement]).toEqual(['blocked', 'LINK-001']);
  });

  it('a violation the test does not own, with no assertion failing, blocks it', () => {
    const v = decideOutcome(['FILE-011'], [schema(['FILE-004'])], undefined);
    expect([v.outcome, (v as { error: BlockedError }).error.requirement]).toEqual(['blocked', 'FILE-004']);
    expect((decideOutcome(['FILE-011'], [shapeOnly], undefined) as { error: BlockedError }).error.requirement).toBe(
      'GEN-002',
    );
  });

  it('keeps a step’s block, and errors and preconditions as they are', () => {
    const step = new BlockedError('REC-002', 'read by ID', 'blocked by REC-002');
    expect(decideOutcome(['AUTH-001'], [], step)).toEqual({ outcome: 'blocked', error: step });
    const timeout = Object.assign(new Error('request timed out'), { name: 'TimeoutError' });
    expect(decideOutcome(['LINK-008'], [schema(['LINK-001'])], timeout).outcome).toBe('error');
    const pre = Object.assign(new Error('provider state refused'), { name: 'PreconditionFailedError' });
    expect(decideOutcome(['LINK-008'], [], pre).outcome).toBe('precondition-failed');
  });
});
