// The judge of the keys (conformance/src/judge/col.ts): which requirement an answer's keys break.
import { describe, expect, it } from 'vitest';
import { judgeColumnKeys } from '../src/judge/col.js';

const verdicts = (operationId: string, columns: string, records: Array<Record<string, unknown>>, suppressing = false) =>
  Object.fromEntries(judgeColumnKeys({ operationId, columns, records, suppressing }).map((f) => [f.requirement, f.ok]));

describe('judgeColumnKeys', () => {
  it('exactly the requested keys pass COL-001 (and COL-003, COL-011 where they apply)', () => {
    expect(verdicts('getRecord', 'A,B', [{ A: 1, B: null }])).toEqual({ 'COL-001': true });
    expect(verdicts('getFile', 'A as X,B', [{ X: 1, B: 2 }])).toEqual({
      'COL-001': true,
      'COL-003': true,
      'COL-011': true,
    });
    expect(verdicts('getRecord', 'A,A as X', [{ A: 1, X: 1 }])).toEqual({ 'COL-001': true, 'COL-003': true });
  });

  it('a column nobody asked for or a requested one left out is COL-001; on files and links COL-011 too', () => {
    expect(verdicts('queryRecords', 'A', [{ A: 1 }, { A: 2, C: 3 }])).toEqual({ 'COL-001': false });
    expect(verdicts('queryLinks', 'ParentID,ChildID', [{ ParentID: 1 }])).toEqual({
      'COL-001': false,
      'COL-011': false,
    });
  });

  it('an alias not applied (the field under its own name) is COL-003, not a column nobody asked for', () => {
    expect(verdicts('getRecord', 'A as X,B', [{ A: 1, B: 2 }])).toEqual({ 'COL-001': true, 'COL-003': false });
    expect(verdicts('getRecord', 'A as X', [{ A: 1, X: 1 }])).toEqual({ 'COL-001': true, 'COL-003': false });
  });

  it('under suppression a requested column may be left out, a column nobody asked for may not', () => {
    expect(verdicts('queryRecords', 'A,B as X', [{ A: 1 }], true)).toEqual({ 'COL-001': true, 'COL-003': true });
    expect(verdicts('queryRecords', 'A', [{ A: 1, C: 2 }], true)).toEqual({ 'COL-001': false });
  });

  it('a link column 2.3 does not show may be left out; no column list, a key asked twice or no records: not judged', () => {
    expect(verdicts('queryLinks', 'ParentID,ContactTypeID', [{ ParentID: 1 }])).toEqual({
      'COL-001': true,
      'COL-011': true,
    });
    expect(judgeColumnKeys({ operationId: 'getRecord', columns: '', records: [{ A: 1 }] })).toEqual([]);
    expect(judgeColumnKeys({ operationId: 'getRecord', columns: 'A,B as A', records: [{ A: 1 }] })).toEqual([]);
    expect(judgeColumnKeys({ operationId: 'queryRecords', columns: 'A', records: [] })).toEqual([]);
  });
});
