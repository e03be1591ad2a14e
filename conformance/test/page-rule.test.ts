// A page of a sorted, offset query that differs from its slice of the ordered set names the rule it
// breaks (suite/support/records-query.ts pageRule), so a test that pages as a step is blocked by
// that rule and the rule's own test fails it: the offset (QRY-006), take (QRY-005) or the order
// asked (QRY-008, QRY-023, QRY-024); on the file query, FILE-022 for its offset and one-column sort.
// A record that is not one of the set is left to the test.
import { describe, expect, it } from 'vitest';
import { pageRule } from '../suite/support/records-query.js';

const asc = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
const desc = [...asc].reverse();
const QRY = { offset: 'QRY-006', order: 'QRY-008' };

describe('pageRule', () => {
  it('names nothing for the right page', () => {
    expect(pageRule({ page: asc.slice(5, 10), want: asc.slice(5, 10), expected: asc, offset: 5, take: 5 }, QRY)).toBe(
      undefined,
    );
  });
  it('a later page in the wrong place: the offset when the whole set is in order, else the order', () => {
    const p = { page: asc.slice(0, 5), want: asc.slice(5, 10), expected: asc, offset: 5, take: 5 };
    expect(pageRule({ ...p, whole: asc }, QRY)).toBe('QRY-006');
    // ties ordered by the first column only: the whole set is out of order, the page just landed elsewhere
    const tiesWrong = ['a', 'c', 'b', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    expect(pageRule({ ...p, whole: tiesWrong }, { offset: 'QRY-006', order: 'QRY-024' })).toBe('QRY-024');
    // without the whole set, no rule is named (the test's own assertion judges)
    expect(pageRule(p, QRY)).toBeUndefined();
  });
  it('a direction ignored: the first page is the order’s, named by the test’s order rule', () => {
    const p = { page: asc.slice(0, 5), want: desc.slice(0, 5), expected: desc, offset: 0, take: 5 };
    expect(pageRule(p, QRY)).toBe('QRY-008');
    expect(pageRule(p, { offset: 'QRY-006', order: 'QRY-023' })).toBe('QRY-023');
  });
  it('on the file query the offset and the one-column order are FILE-022’s', () => {
    const FILE = { offset: 'FILE-022', order: 'FILE-022' };
    expect(
      pageRule({ page: asc.slice(0, 5), want: asc.slice(5, 10), expected: asc, offset: 5, take: 5, whole: asc }, FILE),
    ).toBe('FILE-022');
  });
  it('more records than take asked is take’s; a short page near the end is the offset’s', () => {
    expect(pageRule({ page: asc.slice(0, 6), want: asc.slice(0, 5), expected: asc, offset: 0, take: 5 }, QRY)).toBe(
      'QRY-005',
    );
    expect(pageRule({ page: asc.slice(9, 12), want: asc.slice(10, 12), expected: asc, offset: 10, take: 5 }, QRY)).toBe(
      'QRY-006',
    );
  });
  it('leaves a record that is not one of the set to the test (the filter, the state)', () => {
    const p = { page: ['a', 'b', 'zz', 'c', 'd'], want: asc.slice(0, 5), expected: asc, offset: 0, take: 5 };
    expect(pageRule(p, QRY)).toBeUndefined();
  });
});
