// The generated query test's oracle (suite/support/query-combinations.ts judge()) names the
// requirement whose property broke: a page of the wrong size is the offset's when the offset
// should have cut it short, take's when it holds more than take asked. Before, a page past
// record 100 of an offset clamped at 100 was blamed on take's default (QRY-003) when no take was
// sent, so whether the mutation run caught `skip-capped-at-100` hung on the seed.
import { describe, expect, it } from 'vitest';
import { judge, type Fixture, type QueryCase } from '../suite/support/query-combinations.js';

const COUNT = 112;
const truth = Array.from({ length: COUNT }, (_, i) => ({ Name: `r${String(i).padStart(3, '0')}` }));
const f = { recs: { ids: truth.map((_, i) => i + 1) }, fields: ['Name'], truth } as unknown as Fixture;

/** The answer a service gives that reads the offset as `served` and honours take (default 30, at most 100). */
function page(c: QueryCase, served = c.offset ?? 0) {
  const size = Math.min(c.take ?? 30, 100);
  return { List: truth.slice(served, served + size) };
}

/** The requirement the oracle blames for `body` as the answer to `c` (on `fixture`); undefined: accepted. */
function blame(c: QueryCase, body: unknown, fixture: Fixture = f): string | undefined {
  try {
    judge(fixture, c, 200, body);
    return undefined;
  } catch (e) {
    return (e as { requirement?: string }).requirement;
  }
}

const cols = [{ field: 'Name' }];

describe('the generated query oracle names the broken rule', () => {
  it('passes a correct page, with and without take, near and past the end', () => {
    for (const c of [
      { columns: cols, offset: 101 },
      { columns: cols, offset: 112 },
      { columns: cols, offset: 100, take: 5 },
      { columns: cols, take: 31 },
    ])
      expect(blame(c, page(c)), JSON.stringify(c)).toBeUndefined();
  });

  it('an offset clamped at 100 is the offset’s failure, with or without take', () => {
    for (const c of [
      { columns: cols, offset: 101 },
      { columns: cols, offset: 112 },
      { columns: cols, offset: 113 },
      { columns: cols, offset: 105, take: 29 },
    ])
      expect(blame(c, page(c, 100)), JSON.stringify(c)).toBe('QRY-006');
  });

  it('an offset ignored near the end is the offset’s failure', () => {
    expect(blame({ columns: cols, offset: 100 }, page({ columns: cols }, 0))).toBe('QRY-006');
  });

  it('more records than take asked is take’s failure wherever the page starts', () => {
    const tooMany = (c: QueryCase, n: number) => ({ List: truth.slice(c.offset ?? 0, (c.offset ?? 0) + n) });
    expect(blame({ columns: cols, offset: 5 }, tooMany({ columns: cols, offset: 5 }, 50))).toBe('QRY-003');
    expect(blame({ columns: cols, offset: 5, take: 7 }, tooMany({ columns: cols, offset: 5, take: 7 }, 8))).toBe(
      'QRY-005',
    );
  });

  it('a page short of a full take with records to spare is take’s failure', () => {
    const short = { List: truth.slice(10, 10 + 29) };
    expect(blame({ columns: cols, offset: 10 }, short)).toBe('QRY-003');
    expect(blame({ columns: cols, offset: 10, take: 30 }, short)).toBe('QRY-005');
  });

  it('a sorted page from an offset: out of the order asked is the order’s, in order but elsewhere the offset’s', () => {
    const rows = Array.from({ length: 12 }, (_, i) => ({ G: i % 3, N: `n${String(i).padStart(2, '0')}` }));
    const two = { recs: { ids: rows.map((_, i) => i + 1) }, fields: ['G', 'N'], truth: rows } as unknown as Fixture;
    const keys = [
      { field: 'G', dir: 'desc' as const },
      { field: 'N', dir: 'asc' as const },
    ];
    const c: QueryCase = {
      columns: [{ field: 'G' }, { field: 'N' }],
      sort: { keys, explicitAsc: true },
      offset: 5,
      take: 4,
    };
    const byKeys = [...rows].sort((a, b) => b.G - a.G || a.N.localeCompare(b.N));
    const blameOf = (List: unknown[]) => blame(c, { List }, two);
    expect(blameOf(byKeys.slice(5, 9))).toBeUndefined();
    // the second key ignored: within a group the records come in the store's order (here neither
    // N's order nor its reverse, as the reference's adversarial fixture has it)
    const store = (r: { N: string }) => (Number(r.N.slice(1)) * 5) % 12;
    const firstKeyOnly = [...rows].sort((a, b) => b.G - a.G || store(a) - store(b));
    expect(blameOf(firstKeyOnly.slice(5, 9))).toBe('QRY-024');
    // the right order from another offset
    expect(blameOf(byKeys.slice(4, 8))).toBe('QRY-006');
  });

  it('a page another direction gives at the same offset is the order’s, even where it looks in order from elsewhere', () => {
    // G in groups, N distinct, H alternating: the columns asked (G, H) project alike across
    // records, so the page of a turned direction can match the order asked at another offset
    const rows = Array.from({ length: 12 }, (_, i) => ({ G: i % 3, H: i % 2, N: `n${String(i).padStart(2, '0')}` }));
    const fx = { recs: { ids: rows.map((_, i) => i + 1) }, fields: ['G', 'H', 'N'], truth: rows } as unknown as Fixture;
    const columns = [{ field: 'G' }, { field: 'H' }];
    const keys = [
      { field: 'G', dir: 'desc' as const },
      { field: 'N', dir: 'asc' as const },
    ];
    const blameOf = (c: QueryCase, List: unknown[]) => blame(c, { List }, fx);
    const by = (gDesc: boolean, nAsc: boolean) =>
      [...rows]
        .sort((a, b) => (gDesc ? b.G - a.G : a.G - b.G) || (nAsc ? a.N.localeCompare(b.N) : b.N.localeCompare(a.N)))
        .map((r) => ({ G: r.G, H: r.H }));
    const c = (explicitAsc: boolean): QueryCase => ({ columns, sort: { keys, explicitAsc }, offset: 5, take: 2 });
    expect(blameOf(c(true), by(true, true).slice(5, 7))).toBeUndefined();
    // `N asc` read as descending: the keyword's failure, not the offset's
    expect(blameOf(c(true), by(true, false).slice(5, 7))).toBe('QRY-023');
    // a bare `N` read as descending, among several keys: the several keys' rule
    expect(blameOf(c(false), by(true, false).slice(5, 7))).toBe('QRY-024');
    // `G desc` read as ascending: the direction's
    const early: QueryCase = { columns, sort: { keys, explicitAsc: true }, offset: 1, take: 2 };
    expect(blameOf(early, by(false, true).slice(1, 3))).toBe('QRY-008');
  });

  it('with suppression asked, a sorted page of other records is judged by the offset, not by its columns', () => {
    // Notes is null on the first half of the records and set on the second: a page from the wrong
    // offset carries Notes where the expected page has none (or the reverse)
    const rows = Array.from({ length: 12 }, (_, i) => ({
      N: `n${String(i).padStart(2, '0')}`,
      Notes: i < 6 ? null : `x${i}`,
    }));
    const fx = { recs: { ids: rows.map((_, i) => i + 1) }, fields: ['N', 'Notes'], truth: rows } as unknown as Fixture;
    const c: QueryCase = {
      columns: [{ field: 'N' }, { field: 'Notes' }],
      sort: { keys: [{ field: 'N', dir: 'desc' }], explicitAsc: true },
      offset: 6,
      take: 3,
      suppress: true,
    };
    const byN = [...rows].sort((a, b) => b.N.localeCompare(a.N));
    const blameOf = (List: unknown[]) => blame(c, { List }, fx);
    const dropNull = (r: { N: string; Notes: string | null }) => (r.Notes === null ? { N: r.N } : r);
    expect(blameOf(byN.slice(6, 9).map(dropNull))).toBeUndefined();
    // the offset ignored: the first page, whose Notes are set, instead of the null-Notes page
    expect(blameOf(byN.slice(0, 3))).toBe('QRY-006');
    // suppression ignored on the right records: QRY-011
    expect(blameOf(byN.slice(6, 9))).toBe('QRY-011');
    // out of order, one record with Notes taking the place of one without: suppression keeps Notes
    // on every row, the right records among them too; the order's failure, not suppression's
    const swapped = [byN[6]!, byN[7]!, byN[5]!];
    expect(blameOf(swapped)).toBe('QRY-008');
  });
});
