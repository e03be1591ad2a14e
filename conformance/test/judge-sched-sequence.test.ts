// The schedule sequence judges (conformance/src/judge/sched-sequence.ts): what a write left, read
// back, and a write naming another proposal's record.
import { describe, expect, it } from 'vitest';
import type { Finding } from '../src/judge/finding.js';
import {
  batchRequirement,
  judgeForeignRecords,
  judgeReadBack,
  writtenItemRequirements,
} from '../src/judge/sched-sequence.js';

const verdicts = (fs: Finding[]) => Object.fromEntries(fs.map((f) => [f.requirement, f.ok]));

describe('judgeReadBack', () => {
  it('compares the expected fields a read shows; a number and a string of one text are one value', () => {
    const written = [[7, { LocationName: 'A', ZipCode: '53703' }]] as const;
    expect(verdicts(judgeReadBack('SCHED-007', written, [[7, { LocationName: 'A', ZipCode: 53703, ID: 7 }]]))).toEqual({
      'SCHED-007': true,
    });
    expect(verdicts(judgeReadBack('SCHED-007', written, [[7, { LocationName: 'B' }]]))).toEqual({ 'SCHED-007': false });
    // a field the read does not show is not compared; nothing shown of a record read: still decided
    expect(verdicts(judgeReadBack('SCHED-008', written, [[7, { City: 'x' }]]))).toEqual({ 'SCHED-008': true });
    // a record not read is not decided (one record), missing from a listing fails (whole)
    expect(judgeReadBack('SCHED-008', written, [])).toEqual([]);
    expect(verdicts(judgeReadBack('SCHED-008', written, [], true))).toEqual({ 'SCHED-008': false });
  });

  it('a record expected gone is not answered; one expected readable is', () => {
    expect(verdicts(judgeReadBack('SCHED-022', [[3, null]], [[3, null]]))).toEqual({ 'SCHED-022': true });
    expect(verdicts(judgeReadBack('SCHED-022', [[3, null]], [[3, { City: 'x' }]]))).toEqual({ 'SCHED-022': false });
    expect(verdicts(judgeReadBack('SCHED-021', [[3, {}]], [[3, null]]))).toEqual({ 'SCHED-021': false });
  });

  it('a whole listing: a record not expected or listed twice differs', () => {
    const want = [
      [1, {}],
      [2, {}],
    ] as const;
    expect(verdicts(judgeReadBack('SCHED-014', want, [...want, [3, {}]], true))).toEqual({ 'SCHED-014': false });
    expect(verdicts(judgeReadBack('SCHED-014', want, [...want, [2, {}]], true))).toEqual({ 'SCHED-014': false });
    expect(verdicts(judgeReadBack('SCHED-014', want, [want[1], want[0]], true))).toEqual({ 'SCHED-014': true });
  });

  it('names the requirement stating the effect', () => {
    expect(writtenItemRequirements('Inserts', true)).toEqual(['SCHED-007', 'SCHED-029']);
    expect(writtenItemRequirements('Updates', false)).toEqual(['SCHED-008']);
    expect([batchRequirement(true, true), batchRequirement(true, false)]).toEqual(['SCHED-014', 'SCHED-029']);
    expect([batchRequirement(false, true), batchRequirement(false, false)]).toEqual(['SCHED-011', 'SCHED-008']);
  });
});

describe('judgeForeignRecords', () => {
  it("fails a write through one proposal answered successful for another's record; ignores its own", () => {
    const named = [
      { id: 1, owner: 5, isSuccessful: true },
      { id: 2, owner: 9, isSuccessful: true },
      { id: 3, owner: '9', isSuccessful: false },
      { id: 4, owner: 9, isSuccessful: undefined },
    ];
    expect(judgeForeignRecords('5', named).map((f) => f.ok)).toEqual([false, true]);
  });
});
