// The schedule judges (conformance/src/judge/sched.ts): which requirement a batch or a single
// DELETE's result breaks, and what the live side's knowledge adds.
import { describe, expect, it } from 'vitest';
import type { Finding } from '../src/judge/finding.js';
import {
  type AnsweredResult,
  type ScheduleBatch,
  judgeBatchListing,
  judgeOrderNumbers,
  judgeRecordIds,
  judgeRequiredField,
  judgeSingleDelete,
  answeredItems,
} from '../src/judge/sched.js';

const verdicts = (fs: Finding[]) => Object.fromEntries(fs.map((f) => [f.requirement, f.ok]));
const ok = (n: number | null, RecordID = 7): AnsweredResult => ({
  IsSuccessful: true,
  RecordID,
  OrderNumber: n,
  Message: 'ok',
  Warnings: null,
});
const failed = (n: number | null, RecordID = 0, Message = 'LocationName is required'): AnsweredResult => ({
  IsSuccessful: false,
  RecordID,
  OrderNumber: n,
  Message,
  Warnings: null,
});
const batch = (results: Partial<ScheduleBatch['results']>, atomic = false): ScheduleBatch => ({
  proposalId: 5,
  domain: 'ProposalLocation',
  atomic,
  atomicGiven: atomic,
  input: {
    Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { City: 'x' } }],
    Updates: [{ ID: 40, Fields: { LocationName: '' } }],
    Deletes: [],
  },
  results: { Inserts: [], Updates: [], Deletes: [], ...results },
});

describe('schedule judges', () => {
  it('SCHED-003: a distinct zero-based position; one-based or a failure at an item that has the field fails', () => {
    expect(verdicts(judgeOrderNumbers(batch({ Inserts: [ok(0), failed(1)], Updates: [failed(0, 40)] })))).toEqual({
      'SCHED-003': true,
    });
    expect(verdicts(judgeOrderNumbers(batch({ Inserts: [ok(1), failed(2)] })))).toEqual({ 'SCHED-003': false });
    expect(verdicts(judgeOrderNumbers(batch({ Inserts: [failed(0), ok(1)] })))).toEqual({ 'SCHED-003': false });
    // an update that leaves the field out, refused for it, is SCHED-008's, not a wrong position
    const untouched = { ...batch({ Updates: [failed(0, 40), failed(1, 41)] }) };
    untouched.input = {
      ...untouched.input,
      Updates: [
        { ID: 40, Fields: { LocationName: '' } },
        { ID: 41, Fields: { City: 'y' } },
      ],
    };
    expect(verdicts(judgeOrderNumbers(untouched))).toEqual({ 'SCHED-003': true });
    // refused whole (nothing applied): null positions are not judged
    expect(judgeOrderNumbers(batch({ Inserts: [failed(null, 0, 'no')] }))).toEqual([]);
  });

  it('SCHED-012/013 need an applied item or known preconditions; SCHED-015 an atomic failure lists no success', () => {
    const short = batch({ Inserts: [ok(0), failed(1)] });
    expect(verdicts(judgeBatchListing(short))).toEqual({ 'SCHED-012': false, 'SCHED-013': false });
    const allFailed = batch({ Inserts: [failed(1)] });
    expect(judgeBatchListing(allFailed)).toEqual([]);
    expect(verdicts(judgeBatchListing(allFailed, { preconditionsHold: true }))).toEqual({
      'SCHED-012': false,
      'SCHED-013': false,
    });
    expect(verdicts(judgeBatchListing(batch({ Inserts: [ok(0), failed(1)] }, true)))).toEqual({ 'SCHED-015': false });
    expect(verdicts(judgeBatchListing(batch({ Inserts: [failed(1)] }, true)))).toEqual({ 'SCHED-015': true });
  });

  it('SCHED-002: 0 for a failed insert or delete, the item ID for a successful update', () => {
    expect(verdicts(judgeRecordIds([{ kind: 'Inserts', result: failed(1, -1) }]))).toEqual({ 'SCHED-002': false });
    expect(verdicts(judgeRecordIds([{ kind: 'Updates', result: ok(0, 41), id: 40 }]))).toEqual({ 'SCHED-002': false });
    expect(
      verdicts(judgeRecordIds(answeredItems(batch({ Inserts: [ok(0), failed(1)], Updates: [failed(0, 40)] })))),
    ).toEqual({
      'SCHED-002': true,
    });
  });

  it('SCHED-016/017: the item without the field fails with its RecordID; the message is judged where preconditions are known', () => {
    expect(verdicts(judgeRequiredField(batch({ Inserts: [ok(0), ok(1)], Updates: [failed(0, 40)] })))).toEqual({
      'SCHED-016': false,
      'SCHED-017': true,
    });
    const silent = batch({ Inserts: [failed(1, 0, 'failed')] }, true);
    expect(verdicts(judgeRequiredField(silent))).toEqual({ 'SCHED-016': true });
    expect(verdicts(judgeRequiredField(silent, { preconditionsHold: true }))).toEqual({ 'SCHED-016': false });
  });

  it('SCHED-004/018: the single DELETE; a refusal for modifiability names the proposal', () => {
    expect(verdicts(judgeSingleDelete(5, ok(0)))).toEqual({ 'SCHED-004': false });
    const refused = failed(null, 0, 'The proposal with ID 5 cannot be modified.');
    expect(verdicts(judgeSingleDelete(5, refused))).toEqual({ 'SCHED-004': true, 'SCHED-018': true });
    expect(verdicts(judgeSingleDelete(55, refused))).toEqual({ 'SCHED-004': true, 'SCHED-018': false });
    expect(verdicts(judgeSingleDelete(5, failed(null, 0, 'no'), { notModifiable: true }))).toEqual({
      'SCHED-004': true,
      'SCHED-018': false,
    });
  });
});
