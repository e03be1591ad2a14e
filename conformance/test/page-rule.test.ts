// A page of a sorted, offset query that differs from its slice of the ordered set names the rule it
// breaks (suite/support/records-query.ts pageRule), so a test that pages as a step is blocked by
// that rule and the rule's own test fails it: the offset (QRY-006), take (QRY-005) or the order
// asked (QRY-008, QRY-023, QRY-024). A record that is not one of the set is left to the test.
import { describe, expect, it } from 'vitest';
import { pageRule } from '../suite/support/records-query.js';

const asc = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
const desc = [...asc].reverse();

describe('pageRule', () => {
  it('names nothing for the right page', () => {
    expect(pageRule(asc.slice(5, 10), asc.slice(5, 10), asc, 5, 5, 'QRY-008')).toBeUndefined();
  });
  it('an offset ignored or read as another: the records in order, starting elsewhere', () => {
    expect(pageRule(asc.slice(0, 5), asc.slice(5, 10), asc, 5, 5, 'QRY-008')).toBe('QRY-006');
    expect(pageRule(asc.slice(6, 11), asc.slice(5, 10), asc, 5, 5, 'QRY-024')).toBe('QRY-006');
  });
  it('a direction ignored: the first page is the order’s, named by the test’s order rule', () => {
    expect(pageRule(asc.slice(0, 5), desc.slice(0, 5), desc, 0, 5, 'QRY-008')).toBe('QRY-008');
    expect(pageRule(asc.slice(0, 5), desc.slice(0, 5), desc, 0, 5, 'QRY-023')).toBe('QRY-023');
  });
  it('a page out of order further on is the order’s too', () => {
    expect(pageRule(['g', 'f', 'h', 'i', 'j'], asc.slice(5, 10), asc, 5, 5, 'QRY-008')).toBe('QRY-008');
  });
  it('more records than take asked is take’s; a short page near the end is the offset’s', () => {
    expect(pageRule(asc.slice(0, 6), asc.slice(0, 5), asc, 0, 5, 'QRY-008')).toBe('QRY-005');
    expect(pageRule(asc.slice(9, 11), asc.slice(10, 12), asc, 10, 5, 'QRY-008')).toBe('QRY-006');
  });
  it('leaves a record that is not one of the set to the test (the filter, the state)', () => {
    expect(pageRule(['a', 'b', 'zz', 'c', 'd'], asc.slice(0, 5), asc, 0, 5, 'QRY-008')).toBeUndefined();
  });
});
