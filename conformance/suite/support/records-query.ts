// Query checks on the records of the provider state 'records' (spec 4.2, 4.3): sort, paging, empty-column suppression, total count.
//
// The fixtures are adversarial (issue 12): the state's sortField order is unlike creation order, in
// both directions, so an implementation that cuts a page in storage order and then sorts the page
// answers differently from one that sorts first. Every check therefore compares SEVERAL pages
// against the whole ordered set, computed here from the values the service itself returned.
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import type { ProviderStates } from '../../../spec/generated/provider-states.js';
import type { Finding } from '../../src/judge/finding.js';
import { type Page, judgePages } from '../../src/judge/pages.js';
import { judgeSuppression, judgeTotalCount } from '../../src/judge/query.js';
import { PreconditionFailedError } from '../../src/suite-api/dsl.js';
import { expectFinding } from '../../src/suite-api/findings.js';
import { seededRandom } from './pairwise.js';
import { type Ctx, type Q, enc, findInQuery, get, judgedAlone, listOf, MAX_TAKE, needsMaximumTake } from './request.js';

export type Records = ProviderStates['records']['values'];
export type Row = components['schemas']['Record'];
export type ListBody = components['schemas']['ListEnvelope'] & Record<string, unknown>;
type FileRecord = components['schemas']['FileRecord'];
export type Direction = 'asc' | 'desc';
export interface SortKey {
  field: string;
  dir: Direction;
}

/**
 * The params of an adversarial 'records' state (protocol 1.1.0, `sortRanks` and `sparseAt`), chosen
 * by the suite from the run's seed: the sortField order is neither creation order nor its reverse,
 * and the one sometimesNullField value sits on a record that is neither first nor last in creation
 * order nor in sortField order (from four records on; with three, the middle one created). Any
 * endpoint that honours the params yields the adversarial case; one that declares 1.0.0 makes the
 * test not-applicable, and one that ignores them makes it precondition-failed (its answer must echo
 * both).
 */
export function adversarialParams(
  t: Ctx,
  p: { domain?: string; count: number },
  salt = '',
): { domain?: string; count: number; sortRanks?: number[]; sparseAt?: number } {
  const n = p.count;
  if (n < 3) return p;
  let h = (t.run.seed ?? 0) ^ Math.imul(n, 0x9e3779b1);
  for (const ch of `${p.domain ?? ''}|${salt}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  // one stream per call site and size, the same in every run with that seed
  const rnd = seededRandom(h);
  const identity = Array.from({ length: n }, (_, i) => i);
  for (;;) {
    const ranks = [...identity];
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [ranks[i], ranks[j]] = [ranks[j]!, ranks[i]!];
    }
    if (ranks.every((r, i) => r === i) || ranks.every((r, i) => r === n - 1 - i)) continue;
    const middle = identity.filter((i) => i > 0 && i < n - 1 && (n < 4 || (ranks[i]! > 0 && ranks[i]! < n - 1)));
    if (middle.length === 0) continue;
    return { ...p, sortRanks: ranks, sparseAt: middle[Math.floor(rnd() * middle.length)]! };
  }
}

/** A 'records' state with adversarial order and sparse value (adversarialParams). */
export function adversarialRecords(t: Ctx, p: { domain?: string; count: number }, salt = ''): Promise<Records> {
  return t.given('records', adversarialParams(t, p, salt));
}

/** GET /api/{domain}/Query of a 'records' state's domain (File: the file query). */
export const queryPath = (recs: Records): string => `/api/${enc(recs.domain)}/Query`;

/** The query parameter selecting exactly the records of a 'records' state. */
export function only(t: Ctx, recs: Records): Q {
  return { [t.bindings.query.filter]: recs.filter };
}

/** The total count of each listing body, read where the bindings put it (body path or header). */
const totalCounts = new WeakMap<object, unknown>();

/** The total count that came with `body` (a listBody result); undefined when there was none. */
function totalCountOf(body: ListBody): unknown {
  return totalCounts.get(body);
}

/** A successful List read (200 with a List array); the whole body, its total count noted. */
export async function listBody(t: Ctx, path: string, q: Q): Promise<ListBody> {
  const res = await get(t, path, q);
  await needsMaximumTake(t, `GET ${path}`, res, q.take, () => get(t, path, { ...q, take: MAX_TAKE - 1 }));
  expect(res.status, `GET ${path} ${JSON.stringify(q)}: ${res.text.slice(0, 300)}`).toBe(200);
  const rows = await listOf(t, path, res);
  // a page never holds more than the take asked (QRY-005, judged by its test): a step of every read
  // that asks one; the records a page holds are judged by the test
  const take = q.take;
  if (typeof take === 'number' && take >= 1 && take <= 100)
    await t.needs('QRY-005', `take=${take} gives at most ${take} records`, async () => {
      expect(rows.length, `GET ${path} ${JSON.stringify(q)}: records for take=${take}`).toBeLessThanOrEqual(take);
    });
  const body = res.json as ListBody;
  totalCounts.set(body, t.totalCount(res));
  return body;
}

export async function list(t: Ctx, path: string, q: Q): Promise<Row[]> {
  return (await listBody(t, path, q)).List;
}

/**
 * The state's values are one common prefix plus digits (state contract), so plain code-unit order
 * is the order of every collation.
 */
function compare(a: unknown, b: unknown): number {
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** `rows` ordered by `keys` (the first decides, ties go to the next); a stable sort. */
export function ordered(rows: Row[], keys: SortKey[]): Row[] {
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const c = compare(a[k.field], b[k.field]);
      if (c !== 0) return k.dir === 'asc' ? c : -c;
    }
    return 0;
  });
}

/** `keys` with the direction of key `j` turned the other way (every key's when `j` is omitted). */
export function withTurned(keys: SortKey[], j?: number): SortKey[] {
  return keys.map((k, i) => (j === undefined || i === j ? { ...k, dir: k.dir === 'asc' ? 'desc' : 'asc' } : k));
}

/** The `sort` parameter for `keys`: `<column> <direction>` items joined by commas. */
export function sortParam(keys: SortKey[], explicitAsc = true): string {
  return keys.map((k) => (k.dir === 'desc' ? `${k.field} desc` : explicitAsc ? `${k.field} asc` : k.field)).join(',');
}

/**
 * Every record of the state once, with `columns`, in one unsorted read (count at most 100), from
 * the first record said explicitly (the step does not rely on the default offset, QRY-007's rule).
 */
export async function rowsOf(t: Ctx, recs: Records, columns: string[]): Promise<Row[]> {
  const rows = await list(t, queryPath(recs), {
    ...only(t, recs),
    columns: columns.join(','),
    take: 100,
    [t.bindings.query.skip]: 0,
  });
  await expectStateRows(t, recs, rows);
  return rows;
}

/**
 * `rows`, read by the state's query with its filter, without a start offset and with room for all
 * of them, are the state's records, as many as it created. Reading the whole set is a step most
 * query tests take before judging their own rule; when the count is off, the cause is looked for
 * in the rules of that read, and a demonstrated one blocks the test (one red line): a row whose
 * sortField value none of the state's records has (read by ID) is let in by a filter that does not
 * restrict (QRY-009); fewer rows than the same read with an explicit start offset 0 gives show a
 * default offset other than 0 (QRY-007). Any other mismatch fails the test as before.
 */
export async function expectStateRows(
  t: Ctx,
  recs: Records,
  rows: Row[],
  what = "the state's filter selects exactly its records",
): Promise<void> {
  if (rows.length !== recs.ids.length) {
    const own = new Set((await valuesInCreationOrder(t, recs)).map((v) => JSON.stringify(v)));
    const values = rows.filter((r) => r && recs.sortField in r).map((r) => r[recs.sortField]);
    await needsOnlyOwnRows(t, values, own);
    if (rows.length < recs.ids.length)
      await needsDefaultOffsetZero(t, queryPath(recs), { ...only(t, recs), columns: recs.sortField, take: 100 }, rows);
  }
  expect(rows, what).toHaveLength(recs.ids.length);
}

/**
 * The sortField values of the records of a 'records' state, in creation order, read by ID: a step
 * the query tests rely on to know the truth, not a rule they judge. A read that does not answer 200
 * with a Record blocks by REC-001; reads of different IDs answering the same sortField value (the
 * state's values are distinct, state contract) show a read by ID answering another record, which
 * blocks by REC-002 (the read-by-ID test fails it): one red line, not one per query test.
 */
export async function valuesInCreationOrder(t: Ctx, recs: Records): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const id of recs.ids) {
    const rec = await t.needs('REC-001', `read ${recs.domain} ${id} by ID`, async () => {
      const res = await get(t, `/api/${enc(recs.domain)}/${id}`, { columns: recs.sortField });
      expect(res.status, `GET /api/${recs.domain}/${id}`).toBe(200);
      const r: unknown = (res.json as Partial<components['schemas']['RecordEnvelope']> | undefined)?.Record;
      expect(typeof r === 'object' && r !== null, `GET /api/${recs.domain}/${id}: Record is an object`).toBe(true);
      return r as Row;
    });
    out.push(rec[recs.sortField]);
  }
  await t.needs('REC-002', `reads by ID of the ${recs.ids.length} records of a 'records' state`, async () => {
    const text = out.map((v) => JSON.stringify(v));
    expect(
      new Set(text).size,
      `distinct records read by ID answer distinct ${recs.sortField} values: ${text.join(', ')}`,
    ).toBe(text.length);
  });
  return out;
}

/**
 * `rows` came from `q` without a start offset; when the same read with an explicit offset 0 gives
 * more, the default offset is not 0 (QRY-007, judged by its test): the test is blocked by it.
 */
export async function needsDefaultOffsetZero(t: Ctx, path: string, q: Q, rows: unknown[]): Promise<void> {
  const zero = await list(t, path, { ...q, [t.bindings.query.skip]: 0 });
  if (zero.length > rows.length)
    await t.needs('QRY-007', 'without a start offset a query starts at the first record', async () => {
      expect(rows.length, `records without a start offset, against ${zero.length} with offset 0`).toBe(zero.length);
    });
}

/**
 * The state keeps its promise (else the test could not tell a wrong order from a right one): the
 * sortField order, read record by record, is neither creation order nor its reverse.
 */
export async function expectAdversarialOrder(t: Ctx, recs: Records): Promise<void> {
  if (recs.ids.length < 3) return;
  const created = await valuesInCreationOrder(t, recs);
  const asc = [...created].sort(compare);
  const same = (a: unknown[], b: unknown[]) => JSON.stringify(a) === JSON.stringify(b);
  if (same(asc, created) || same(asc, [...created].reverse())) {
    throw new PreconditionFailedError(
      `provider state 'records': the ${recs.sortField} order equals creation order or its reverse, so a wrong sort could not be told apart`,
    );
  }
}

/**
 * The pages of `size` records at offsets 0, size, 2*size ... of query `q` (with `take` and the
 * start offset added) are the slices of `expected` (what `pick` takes from each row), and the
 * offset just past the end gives an empty page.
 */
export async function expectPages(
  t: Ctx,
  path: string,
  q: Q,
  expected: unknown[],
  pick: (r: Row) => unknown,
  size: number,
  what: string,
  order: OrderRequirement = 'QRY-008',
): Promise<void> {
  // on the file query, its own requirement states that it takes the domain query's offset and sort
  const file = path === '/api/File/Query';
  const rules = file ? fileQueryRules(order) : { offset: 'QRY-006', order };
  const own = new Set(expected.map((v) => JSON.stringify(v)));
  // a page is its slice of the whole ordered set (judge/pages.ts), under the offset's rule
  const expectSlice = (p: Page, msg: string) =>
    expectFinding(
      judgePages(file ? 'queryFiles' : 'queryRecords', [p], { whole: expected }),
      file ? 'FILE-022' : 'QRY-006',
      msg,
    );
  for (let k = 0; k < expected.length; k += size) {
    const page = (await list(t, path, { ...q, take: size, [t.bindings.query.skip]: k })).map(pick);
    await needsOnlyOwnRows(t, page, own);
    const msg = `${what}: page at offset ${k} (take ${size}) against the whole ordered set`;
    const want = expected.slice(k, k + size);
    // a later page of the right records in the wrong place: the whole set on one page tells whether
    // the order or the offset is at fault
    const whole =
      k > 0 && JSON.stringify(page) !== JSON.stringify(want) && expected.length <= 100
        ? (await list(t, path, { ...q, take: expected.length, [t.bindings.query.skip]: 0 })).map(pick)
        : undefined;
    const rule = pageRule({ page, want, expected, offset: k, take: size, whole }, rules);
    const slice = () => expectSlice({ skip: k, take: size, keys: page }, msg);
    if (rule) judgedAlone(rule, msg, slice);
    else slice();
  }
  const beyond = (await list(t, path, { ...q, take: size, [t.bindings.query.skip]: expected.length })).map(pick);
  await needsOnlyOwnRows(t, beyond, own);
  const end = `${what}: offset ${expected.length} is past the end`;
  judgedAlone(rules.offset, end, () => expectSlice({ skip: expected.length, take: size, keys: beyond }, end));
}

/**
 * Rows of a page that are none of the state's records (`own`: their values as the whole read gave
 * them) were let in by a filter that does not restrict: QRY-009 blocks the test, whichever page
 * shows it. (The whole read's own check, expectStateRows, can pass before other tests have created
 * the records such a filter lets in later.)
 */
async function needsOnlyOwnRows(t: Ctx, values: unknown[], own: Set<string>): Promise<void> {
  const foreign = values.filter((v) => !own.has(JSON.stringify(v)));
  if (foreign.length)
    await t.needs('QRY-009', `the filter of a 'records' state selects only its records`, async () => {
      expect(foreign, `rows the state's filter let in that are none of its ${own.size} records`).toEqual([]);
    });
}

/** The requirement that states the order a query asked for: one column (QRY-008), the explicit asc keyword (QRY-023), several columns (QRY-024). */
export type OrderRequirement = 'QRY-008' | 'QRY-023' | 'QRY-024';

/** GET /api/File/Query: FILE-022 states its offset and its one-column sort; the keyword and several columns stay QRY's. */
function fileQueryRules(order: OrderRequirement) {
  return { offset: 'FILE-022', order: order === 'QRY-008' ? 'FILE-022' : order };
}

/**
 * Which rule a page that differs from its slice of the ordered set breaks, when the page holds only
 * records of the set (a record that is not one of them is the set's failure, the filter's or the
 * state's: the test's own assertion judges it, undefined here). More records than take asked:
 * take's (QRY-005); another size near the end: the offset's. The first page: the order's. A later
 * page of the right size: the order's when the whole set on one page (`whole`) is not in the order
 * asked, else the offset's. Judged alone, so a test about another rule that pages a query as a
 * step is blocked by the broken one, and the test of the broken one fails it.
 */
export function pageRule(
  p: { page: unknown[]; want: unknown[]; expected: unknown[]; offset: number; take: number; whole?: unknown[] },
  rules: { offset: string; order: string },
): string | undefined {
  const key = (v: unknown) => JSON.stringify(v);
  if (key(p.page) === key(p.want)) return undefined;
  const members = new Set(p.expected.map(key));
  if (p.page.some((v) => !members.has(key(v)))) return undefined;
  if (p.page.length > p.take) return 'QRY-005';
  if (p.page.length !== p.want.length) return p.offset > 0 ? rules.offset : undefined;
  if (p.offset === 0) return rules.order;
  if (p.whole === undefined) return undefined;
  return key(p.whole) === key(p.expected) ? rules.offset : rules.order;
}

/**
 * The start offset and sort of a 'records' state's query (record or file query): pages of `size`,
 * ascending and descending, join into the whole ordered set. The order is checked adversarial first.
 */
export async function expectOffsetPagesJoin(
  t: Ctx,
  recs: Records,
  size: number,
  what: string,
  o: { onePageToo?: boolean } = {},
): Promise<void> {
  await expectAdversarialOrder(t, recs);
  const rows = await rowsOf(t, recs, [recs.sortField]);
  const pick = (r: Row) => r[recs.sortField];
  // both directions at once (reads only)
  await Promise.all(
    (['asc', 'desc'] as const).map(async (dir) => {
      const keys = [{ field: recs.sortField, dir }];
      const expected = ordered(rows, keys).map(pick);
      const q = { ...only(t, recs), columns: recs.sortField, sort: sortParam(keys, false) };
      if (o.onePageToo) {
        const page = (await list(t, queryPath(recs), { ...q, take: expected.length })).map(pick);
        const judge = () => expect(page, `${what} sort ${dir}, one page`).toEqual(expected);
        // the whole set in order but for its first records: no start offset was sent, so the page
        // starts where the default offset put it (QRY-007's rule, judged by its own test)
        const late =
          page.length > 0 &&
          page.length < expected.length &&
          JSON.stringify(page) === JSON.stringify(expected.slice(expected.length - page.length));
        if (late)
          await t.needs('QRY-007', 'a query without a start offset starts at the first record', async () => judge());
        judge();
      }
      await expectPages(t, queryPath(recs), q, expected, pick, size, `${what} sort ${dir}`);
    }),
  );
}

/** A file's row in GET /api/File/Query (newest first, paged with the start offset); FileID is always asked for. */
export async function fileRow(t: Ctx, id: number, columns?: string, token?: string): Promise<FileRecord> {
  const cols =
    columns === undefined ? undefined : columns.split(',').includes('FileID') ? columns : `FileID,${columns}`;
  return findInQuery(t, '/api/File/Query', 'FileID', 'FileID', id, { columns: cols }, token);
}

/**
 * Empty-column suppression keeps a column with a value in one record for every record, and drops a
 * column null in every record. The one value of sometimesNullField sits on a record that is neither
 * first nor last (state contract), checked unsorted and sorted both ways, so an implementation that
 * decides from the first (or last) row alone answers differently.
 */
export async function expectSuppressionKeepsSparse(t: Ctx, recs: Records): Promise<void> {
  const n = recs.ids.length;
  const values = await rowsOf(t, recs, [recs.sortField, recs.sometimesNullField]);
  const valued = values.filter((r) => r[recs.sometimesNullField] !== null);
  expect(valued, `exactly one record has a ${recs.sometimesNullField}`).toHaveLength(1);
  const rank = ordered(values, [{ field: recs.sortField, dir: 'asc' }]).indexOf(valued[0]!);
  if (n >= 4 && (rank === 0 || rank === n - 1)) {
    throw new PreconditionFailedError(
      `provider state 'records': the one ${recs.sometimesNullField} value is on the first or last record in ${recs.sortField} order`,
    );
  }
  for (const sort of [undefined, recs.sortField, `${recs.sortField} desc`]) {
    const rows = await list(t, queryPath(recs), {
      ...only(t, recs),
      columns: `${recs.sortField},${recs.sometimesNullField},${recs.allNullField}`,
      sort,
      [t.bindings.query.excludeEmptyColumns]: true,
    });
    const what = `suppression on, sort ${sort ?? '(none)'}`;
    await expectStateRows(t, recs, rows, what);
    const found = suppressionFound(recs, [recs.sortField, recs.sometimesNullField, recs.allNullField], rows);
    expectFinding(found, recs.domain === 'File' ? 'FILE-023' : 'QRY-012', `${what}: the partly filled column`);
    expectFinding(found, recs.domain === 'File' ? 'FILE-023' : 'QRY-011', `${what}: the all-null column`);
    expect(
      rows.filter((r) => r[recs.sometimesNullField] !== null),
      `${what}: its one value`,
    ).toHaveLength(1);
  }
}

/** Empty-column suppression on: a column null in every record is omitted from every record. */
export async function expectSuppressionDropsEmpty(t: Ctx, recs: Records): Promise<void> {
  const rows = await list(t, queryPath(recs), {
    ...only(t, recs),
    columns: `${recs.sortField},${recs.allNullField}`,
    [t.bindings.query.excludeEmptyColumns]: true,
  });
  await expectStateRows(t, recs, rows);
  const found = suppressionFound(recs, [recs.sortField, recs.allNullField], rows);
  expectFinding(found, recs.domain === 'File' ? 'FILE-023' : 'QRY-011', 'the all-null column');
  for (const row of rows) expect(row).toHaveProperty(recs.sortField);
}

/** The suppression judge's findings on the rows of `recs`'s query asked for the columns `keys`. */
const suppressionFound = (recs: Records, keys: string[], rows: Row[]) =>
  judgeSuppression(recs.domain === 'File' ? 'queryFiles' : 'queryRecords', keys, rows);

/** The total-count judge's findings on the page `body` of `recs`'s query read with `q` (`count`: how many it selects). */
export function countFound(t: Ctx, recs: Records, q: Q, body: ListBody, count?: number): Finding[] {
  const b = t.bindings.query;
  const operationId = recs.domain === 'File' ? 'queryFiles' : 'queryRecords';
  const [skip, take, asked] = [Number(q[b.skip] ?? 0), Number(q.take ?? 30), q[b.includeTotalCount] as boolean];
  return judgeTotalCount({ operationId, asked, total: totalCountOf(body), skip, take, shown: body.List.length }, count);
}

/** With total count on, the count of all matching records is there on every page; off by default. */
export async function expectTotalCount(t: Ctx, recs: Records, pageSize: number): Promise<void> {
  const n = recs.ids.length;
  // the count is judged against the state's set: reading that set is a step (expectStateRows)
  await rowsOf(t, recs, [recs.sortField]);
  for (const skip of [0, pageSize]) {
    const q = {
      ...only(t, recs),
      columns: recs.sortField,
      take: pageSize,
      [t.bindings.query.skip]: skip,
      [t.bindings.query.includeTotalCount]: true,
    };
    const body = await listBody(t, queryPath(recs), q);
    expect(body.List, `page at ${skip}`).toHaveLength(Math.min(pageSize, n - skip));
    const found = countFound(t, recs, q, body, n);
    expectFinding(found, recs.domain === 'File' ? 'FILE-024' : 'QRY-014', `total count (page at ${skip})`);
  }
}
