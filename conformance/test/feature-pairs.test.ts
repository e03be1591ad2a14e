// The pairwise feature run (suite/support/feature-pairs.ts, pairwise.ts) and what it added to the
// generated query oracle (suite/support/query-combinations.ts judge()): the covering array covers
// every pair and depends on the seed alone; the oracle names the broken rule for the LINQ filter,
// the total count, resolveAssociationNames and an alias lost where its column is null everywhere;
// the attached-files oracle names take, the listing and the column language.
import { describe, expect, it } from 'vitest';
import { allPairs, coveringArray, pairsOf } from '../suite/support/pairwise.js';
import { caseOf, judgeAttached, queryFactors, type AttachedFixture } from '../suite/support/feature-pairs.js';
import { judge, type Fixture, type QueryCase } from '../suite/support/query-combinations.js';

function blameOf(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    return (e as { requirement?: string }).requirement;
  }
}

describe('the pairwise covering array', () => {
  const factors = queryFactors({ assoc: true, two: true, linq: true });

  it('covers every pair of levels on a row where it can be seen, in far fewer rows than the product, the same for the same seed', () => {
    for (const seed of [1, 7, 20261125]) {
      const { rows } = coveringArray(factors, seed);
      const covered = new Set(rows.flatMap((r) => pairsOf(factors, r)));
      expect([...allPairs(factors)].filter((p) => !covered.has(p))).toEqual([]);
      // the two largest factors (6 x 5 levels) need 30 rows at least; the product is 648,000
      expect(rows.length).toBeGreaterThanOrEqual(30);
      expect(rows.length).toBeLessThan(50);
      expect(coveringArray(factors, seed).rows).toEqual(rows);
    }
    expect(coveringArray(factors, 1).rows).not.toEqual(coveringArray(factors, 2).rows);
  });

  it('a row with a blinding level (an offset past the end, a take above 100) covers only that factor’s pairs', () => {
    const { rows } = coveringArray(factors, 3);
    const row = rows.find((r) => r.offset === 'past-end' && r.take !== '101')!;
    expect(pairsOf(factors, row).every((p) => p.includes('offset=past-end'))).toBe(true);
    const both = { ...row, take: '101' };
    expect(pairsOf(factors, both)).toEqual(['offset=past-end+take=101']);
    // no row holds a blinding level but for a pair of its own factor
    for (const r of rows) expect(pairsOf(factors, r).length).toBeGreaterThan(0);
  });
});

// 12 records: K distinct, G in three groups, S a value on the last record in K order only, A an
// association (resolved: a name), L the LINQ filter's records (2nd, 4th, ... never the last)
const truth = Array.from({ length: 12 }, (_, i) => ({
  K: `k${String((i * 5) % 12).padStart(2, '0')}`,
  G: `g${i % 3}`,
  N: null,
  S: (i * 5) % 12 === 11 ? 'x' : null,
  'A.City': null,
  A: null as string | null,
}));
const resolved = truth.map((r, i) => ({ ...r, A: `Name ${i}` }));
const f = {
  recs: {
    ids: truth.map((_, i) => i + 1),
    sortField: 'K',
    groupField: 'G',
    allNullField: 'N',
    sometimesNullField: 'S',
  },
  fields: ['K', 'G', 'N', 'S', 'A.City', 'A'],
  truth,
  resolved,
  assocField: 'A',
  linqRows: [1, 3, 5, 7, 9],
} as unknown as Fixture;
const sorted = (rows: typeof truth, desc = false) =>
  [...rows].sort((a, b) => (desc ? b.K.localeCompare(a.K) : a.K.localeCompare(b.K)));
const pick = (rows: Array<Record<string, unknown>>, keys: string[]) =>
  rows.map((r) => Object.fromEntries(keys.map((k) => [k, r[k]])));

describe('the oracle on the features the pairwise run adds', () => {
  const asc = { keys: [{ field: 'K', dir: 'asc' as const }], explicitAsc: false };

  it('LINQ: its records pass; a record it leaves out is the LINQ filter’s failure, not take’s', () => {
    const c: QueryCase = { columns: [{ field: 'K' }], sort: asc, linq: true };
    const mine = sorted(f.linqRows!.map((i) => truth[i]!));
    expect(blameOf(() => judge(f, c, 200, { List: pick(mine, ['K']) }))).toBeUndefined();
    expect(blameOf(() => judge(f, c, 200, { List: pick(sorted(truth), ['K']) }))).toBe('QRY-010');
  });

  it('total count: all selected records on every page when asked, nothing unless asked', () => {
    const c: QueryCase = { columns: [{ field: 'K' }], sort: asc, offset: 10, totalCount: true };
    const page = { List: pick(sorted(truth).slice(10), ['K']) };
    expect(blameOf(() => judge(f, c, 200, page, 12))).toBeUndefined();
    expect(blameOf(() => judge(f, c, 200, page, 2))).toBe('QRY-014');
    expect(blameOf(() => judge(f, c, 200, page, undefined))).toBe('QRY-014');
    expect(
      blameOf(() =>
        judge(
          f,
          { ...c, linq: true, offset: 0 },
          200,
          { List: pick(sorted(f.linqRows!.map((i) => truth[i]!)), ['K']) },
          12,
        ),
      ),
    ).toBe('QRY-014');
    const { totalCount: _, ...unasked } = c;
    expect(blameOf(() => judge(f, unasked, 200, page, 12))).toBe('QRY-015');
    // asked false is not asked (judge/query.ts, as query.total-count-off-by-default judges it)
    expect(blameOf(() => judge(f, { ...c, totalCount: false }, 200, page, 12))).toBe('QRY-015');
    expect(blameOf(() => judge(f, { ...c, totalCount: false }, 200, page, undefined))).toBeUndefined();
  });

  it('resolveAssociationNames: the resolved name when asked (COL-008), null otherwise (COL-010)', () => {
    const c: QueryCase = { columns: [{ field: 'K' }, { field: 'A' }], sort: asc, take: 3 };
    const plain = pick(sorted(truth).slice(0, 3), ['K', 'A']);
    const named = pick(sorted(resolved).slice(0, 3), ['K', 'A']);
    expect(blameOf(() => judge(f, c, 200, { List: plain }))).toBeUndefined();
    expect(blameOf(() => judge(f, { ...c, resolve: true }, 200, { List: named }))).toBeUndefined();
    expect(blameOf(() => judge(f, { ...c, resolve: true }, 200, { List: plain }))).toBe('COL-008');
    expect(blameOf(() => judge(f, { ...c, resolve: false }, 200, { List: named }))).toBe('COL-010');
    // unsorted: the same, by the pool of records
    const { sort: _, ...unsorted } = c;
    expect(blameOf(() => judge(f, { ...unsorted, resolve: true }, 200, { List: plain }))).toBe('COL-008');
  });

  it('an alias not applied is the alias’s failure even when its column is null everywhere', () => {
    const c: QueryCase = { columns: [{ field: 'K' }, { field: 'N', alias: 'Alias1' }], sort: asc, take: 2 };
    const right = sorted(truth)
      .slice(0, 2)
      .map((r) => ({ K: r.K, Alias1: null }));
    const lost = sorted(truth)
      .slice(0, 2)
      .map((r) => ({ K: r.K, N: null }));
    expect(blameOf(() => judge(f, c, 200, { List: right }))).toBeUndefined();
    expect(blameOf(() => judge(f, c, 200, { List: lost }))).toBe('COL-003');
    expect(blameOf(() => judge(f, { ...c, suppress: true }, 200, { List: lost }))).toBe('COL-003');
  });

  it('suppression: a value only on the last row of the page keeps its column', () => {
    const c: QueryCase = { columns: [{ field: 'K' }, { field: 'S' }], sort: asc, offset: 9, suppress: true };
    const page = sorted(truth).slice(9);
    expect(page.at(-1)!.S).toBe('x');
    expect(blameOf(() => judge(f, c, 200, { List: pick(page, ['K', 'S']) }))).toBeUndefined();
    expect(blameOf(() => judge(f, c, 200, { List: pick(page, ['K']) }))).toBe('QRY-012');
  });

  it('a row of the array becomes the request it names', () => {
    const c = caseOf(f, {
      key: 'aliased',
      assoc: 'dotted-aliased',
      nulls: 'both',
      resolve: 'true',
      suppress: 'false',
      total: 'absent',
      sort: 'two-keys',
      offset: 'past-end',
      take: '101',
      select: 'linq',
    });
    expect(c).toEqual({
      columns: [{ field: 'K', alias: 'Alias1' }, { field: 'A.City', alias: 'Alias2' }, { field: 'N' }, { field: 'S' }],
      sort: {
        keys: [
          { field: 'G', dir: 'desc' },
          { field: 'K', dir: 'asc' },
        ],
        explicitAsc: true,
      },
      offset: 7, // past the end of the LINQ filter's 5 records
      take: 101,
      suppress: false,
      resolve: true,
      linq: true,
    });
  });
});

describe('the attached-files oracle', () => {
  const files = [1, 2, 3].map((id) => ({ FileID: id, FileName: `f${id}.txt`, FileSize: id * 10 }));
  const fx: AttachedFixture = { domain: 'Claim', id: 9, fileIds: [1, 2, 3], truth: files };
  const cols = [{ field: 'FileName', alias: 'Alias1' }, { field: 'FileSize' }];
  const as = (rows: typeof files) => rows.map((r) => ({ Alias1: r.FileName, FileSize: r.FileSize }));
  const blame = (c: Parameters<typeof judgeAttached>[1], body: unknown, status = 200) =>
    blameOf(() => judgeAttached(fx, c, status, body));

  it('passes every file in any order, and take’s page of them', () => {
    expect(blame({ columns: cols }, { List: as([...files].reverse()) })).toBeUndefined();
    expect(blame({ columns: cols, take: 2 }, { List: as(files.slice(1)) })).toBeUndefined();
    expect(blame({ columns: cols, take: 101 }, {}, 400)).toBeUndefined();
  });

  it('names take, the listing and the column language', () => {
    expect(blame({ columns: cols, take: 2 }, { List: as(files) })).toBe('QRY-005');
    expect(blame({ columns: cols }, { List: as(files.slice(1)) })).toBe('FILE-007');
    expect(blame({ columns: cols }, { List: as([files[0]!, files[0]!, files[1]!]) })).toBe('FILE-007');
    expect(blame({ columns: cols }, { List: files.map((r) => ({ FileName: r.FileName, FileSize: r.FileSize })) })).toBe(
      'COL-011',
    );
    expect(blame({ columns: cols }, { List: files.map((r) => ({ ...r, Alias1: r.FileName })) })).toBe('COL-001');
    // a value of its own in one column is that field's rule (its own test on the listing), not the listing's
    expect(
      blame({ columns: cols }, { List: as(files).map((r) => ({ ...r, FileSize: r.FileSize * 2 })) }),
    ).toBeUndefined();
  });
});
