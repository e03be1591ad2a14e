// Small request helpers shared by the suite files: build a query string and GET through the
// recording raw client (so generic checks still apply). Helpers that read back what a test set up
// run as `t.needs(<requirement of the read>, ...)` steps: when the read itself fails, the test is
// blocked by that requirement instead of failing its own (one cause, one failure).
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import { requestedColumns, unaskedKeys } from '../../src/judge/col.js';
import { blockedByStep, type conformance, type RawResponse } from '../../src/suite-api/dsl.js';

export type Ctx = Parameters<Parameters<typeof conformance>[1]>[0];
export type Q = Record<string, string | number | boolean | undefined>;
/** One record of a read: column name to value (RecordEnvelope.Record, a row of ListEnvelope.List). */
export type Row = components['schemas']['Record'];
type RecordEnvelope = components['schemas']['RecordEnvelope'];
type ListEnvelope = components['schemas']['ListEnvelope'];

export const enc = encodeURIComponent;

/** `path` with the defined entries of `q` as its query string. */
export function withQuery(path: string, q: Q = {}): string {
  const parts = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

/** GET `path?q` with the run's admin token, or with `token` (null: no credentials). */
export async function get(t: Ctx, path: string, q?: Q, token?: string | null) {
  return t.raw(withQuery(path, q), token === undefined ? {} : { token });
}

/** The documented maximum of `take` (spec 4.2 and 8: "maximum 100"). */
export const MAX_TAKE = 100;

const is2xx = (status: number) => status >= 200 && status < 300;

/**
 * Whether a read that asked `take` was refused only for asking the documented maximum: take=100
 * refused, and the same read with take=99 (`with99`) answered. The refusal is then of the take
 * alone, which QRY-005 states ("`take` ... maximum 100: number of records in the response"; its
 * test asks take=100).
 */
export async function refusedForMaximumTake(
  status: number,
  take: unknown,
  with99: () => Promise<{ status: number }>,
): Promise<boolean> {
  if (Number(take) !== MAX_TAKE || is2xx(status)) return false;
  return is2xx((await with99()).status);
}

/**
 * A page of take=100 (the documented maximum) is a step of many tests: reading a whole small set in
 * one answer. When it is refused while the same read with take=99 is answered, the test is blocked
 * by QRY-005 (a test of QRY-005 fails it) instead of failing its own requirement: one red line.
 * Any other answer is left to the caller.
 */
export async function needsMaximumTake(
  t: Ctx,
  where: string,
  res: { status: number; text: string },
  take: unknown,
  with99: () => Promise<{ status: number }>,
): Promise<void> {
  if (!(await refusedForMaximumTake(res.status, take, with99))) return;
  await t.needs('QRY-005', `${where} answers take=100, the documented maximum (take=99 is answered)`, async () => {
    expect(res.status, `${where} take=100: ${res.text.slice(0, 300)}`).toBe(200);
  });
}

/**
 * The requirement that documents the envelope of a listing at `path` (the one a failed page read
 * blocks on): QRY-001 for GET /api/{domain}/Query and GET /api/File/Query (its operations), FILE-007
 * for the attached files.
 */
export function listingRequirement(path: string): string {
  if (/^\/api\/[^/]+\/\d+\/Files\b/.test(path)) return 'FILE-007';
  return 'QRY-001';
}

/**
 * The List of a 200 answer of a listing at `path` (the caller judges the status: a refusal of the
 * test's own parameters is its own failure). The envelope is a rule of its own, judged by one test
 * per operation (listingRequirement: QRY-001 for the queries, FILE-007 for attached files); a test
 * that only uses the listing is blocked by that requirement when the answer holds no List array.
 */
export async function listOf(t: Ctx, path: string, res: RawResponse): Promise<Row[]> {
  return t.needs(listingRequirement(path), `GET ${path.split('?')[0]} answers a List envelope`, async () => {
    const rows: unknown = (res.json as Partial<ListEnvelope> | undefined)?.List;
    expect(Array.isArray(rows), `GET ${path}: List is an array (${res.text.slice(0, 200)})`).toBe(true);
    return rows as Row[];
  });
}

/**
 * The record `domain`/`id` read back by ID (`Record` of the envelope), as a step documented by
 * REC-001: a read that does not answer 200 with a `Record` object blocks the test.
 */
export async function readRecord(t: Ctx, domain: string, id: number, q: Q = {}, token?: string | null): Promise<Row> {
  return t.needs('REC-001', `read ${domain} ${id} back by ID`, async () => {
    const res = await get(t, `/api/${enc(domain)}/${id}`, q, token);
    expect(res.status, `GET /api/${domain}/${id}: ${res.text.slice(0, 300)}`).toBe(200);
    const rec: unknown = (res.json as Partial<RecordEnvelope> | undefined)?.Record;
    expect(
      typeof rec === 'object' && rec !== null && !Array.isArray(rec),
      `GET /api/${domain}/${id}: Record is an object`,
    ).toBe(true);
    return rec as Row;
  });
}

/**
 * A read by ID answers the record with that ID (REC-002), judged on its primary key column
 * `keyField`: a step every test relies on that reads back by ID what it set up or changed. A read
 * that answers a record whose key is another ID demonstrably breaks REC-002 (the read-by-ID test
 * fails it), so the test is blocked by REC-002 instead of failing its own requirements on another
 * record's values (one cause, one red line). Any other answer (a refusal, no key in it) is left to
 * the test: it judges no more than the key, so it never turns another failure into a block.
 */
export async function needsReadById(
  t: Ctx,
  domain: string,
  keyField: string,
  id: number,
  token?: string | null,
): Promise<void> {
  await t.needs('REC-002', `read ${domain} ${id} by ID: the record with ${keyField} ${id}`, async () => {
    const res = await get(t, `/api/${enc(domain)}/${id}`, { columns: keyField }, token);
    const rec: unknown = res.status === 200 ? (res.json as Partial<RecordEnvelope> | undefined)?.Record : undefined;
    const key = typeof rec === 'object' && rec !== null ? (rec as Row)[keyField] : undefined;
    if (Number.isInteger(key))
      expect(key, `GET /api/${domain}/${id}?columns=${keyField} answers the record with that ${keyField}`).toBe(id);
  });
}

/** The keys a column list lets an answer carry (judge/col.ts: a requested key, or the field of an aliased column). */
export function askedKeys(columns: string): Set<string> {
  return new Set((requestedColumns(columns) ?? []).flatMap((c) => [c.field, c.key]));
}

/** The parent of a file: information File/Query answers without (FILE-008). */
const PARENT_INFORMATION = ['ParentDomainID', 'ParentID'];

/**
 * A File/Query row that carries its parent breaks FILE-008 ("without parent information"), the
 * requirement that names that very fact: a step of any other test that reads File/Query rows, so a
 * join that leaks the parent is one red line, not one more for every column check that sees it.
 */
export async function needsNoParentInformation(t: Ctx, rows: Row[], where: string, asked?: Set<string>): Promise<void> {
  const leaked = [...new Set(rows.flatMap((r) => Object.keys(r ?? {})))].filter(
    (k) => PARENT_INFORMATION.includes(k) && !asked?.has(k),
  );
  if (leaked.length === 0) return;
  await t.needs('FILE-008', `${where} answers files without parent information`, async () =>
    expect(leaked, `${where}: parent columns on a file row`).toEqual([]),
  );
}

/**
 * An answer to a read with a column list carries no column nobody asked for: the column list is
 * honoured at all (COL-001, judged by its test on each operation). A test about one column (its
 * value, its alias, its format) relies on that; an answer with unasked columns (the list ignored)
 * blocks it by COL-001 instead of failing its own requirement. A missing column is left to the
 * test: suppression, an alias not applied or a failed resolution are other rules' failures.
 */
export async function needsColumnsHonoured(t: Ctx, columns: string, rows: Row[], where: string): Promise<void> {
  if (/\/api\/File\/Query\b/.test(where)) await needsNoParentInformation(t, rows, where, askedKeys(columns));
  await t.needs('COL-001', `${where} answers only the asked columns`, async () => {
    expect(unaskedKeys(columns, rows), `${where}: columns not asked for (columns=${columns})`).toEqual([]);
  });
}

/**
 * A check of one rule: its failure is `requirement`'s alone. Among a test's several requirements it
 * fails that one and leaves the others unjudged past it (the test ends blocked by it and the report
 * fails it, as the model-based test does); for a rule of another test, the test is blocked by it.
 * Only a wrong answer (an assertion) is judged so; any other error passes through. Use it where the
 * check is `requirement`'s statement and no other requirement of the test states the same fact.
 */
export function judgedAlone<T>(requirement: string, step: string, check: () => T): T {
  try {
    return check();
  } catch (e) {
    if ((e as Error)?.name === 'AssertionError') throw blockedByStep(requirement, step, e);
    throw e;
  }
}

/**
 * Runs `parts` at once and, when some fail, throws the failure of the first in the order given:
 * a test that checks the domain query and the file query side by side ends on the domain query's
 * failure whichever answered first, so the same fault always blocks by the same requirement.
 */
export async function allInOrder<T>(parts: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(parts);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/** The keys of a record, sorted, for comparing column sets. */
export function keysOf(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort();
}

/** Rows per page of findInQuery, and how far the next page starts (pages overlap by 20 rows). */
const FIND_PAGE = 100;
const FIND_STEP = 80;

/**
 * The row whose `idKey` is `id` in a Query listing at `path`, paging newest first by `sortKey`
 * with the start offset (binding). Other test files create and delete records while this pages, so
 * rows shift between two page reads: a row can move from the page after to the page before. First a
 * search that follows the shift (seekInListing); when that does not find the row, every page is read
 * twice, overlapping by 20 rows (a listing with no numeric sort key in its rows, or not sorted as
 * asked, is still searched whole). A page that does not answer 200 with a List blocks the test (the
 * listing's requirement, see listingRequirement); a row that is not there fails it.
 */
export async function findInQuery(
  t: Ctx,
  path: string,
  sortKey: string,
  idKey: string,
  id: number,
  q: Q = {},
  token?: string,
): Promise<Row> {
  const row = await findRow(t, path, sortKey, idKey, id, q, token);
  await needsNoSuppressionByDefault(t, q, row, (asked) => findRow(t, path, sortKey, idKey, id, asked, token));
  return row;
}

/**
 * Empty-column suppression is off unless asked (QRY-013, judged by its own test): a query that
 * does not ask for it answers every requested column, null or not. A test reading a row relies on
 * it; when requested columns are missing from the row, the same query is asked again with
 * suppression explicitly off, and if they come back then, suppression was on by default: the test
 * is blocked by QRY-013 (fails it alone, in a test of QRY-013) instead of failing its own column
 * rule. Columns still missing are left to the test (an alias not applied, a dotted name unknown).
 */
async function needsNoSuppressionByDefault(t: Ctx, q: Q, row: Row, again: (q: Q) => Promise<Row>): Promise<void> {
  const suppression = t.bindings.query.excludeEmptyColumns;
  if (typeof q.columns !== 'string' || q[suppression] !== undefined) return;
  const missing = (requestedColumns(q.columns) ?? []).map((c) => c.key).filter((k) => !(k in row));
  if (missing.length === 0) return;
  const off = await again({ ...q, [suppression]: false });
  const back = missing.filter((k) => k in off);
  judgedAlone('QRY-013', 'requested columns without suppression asked', () =>
    expect(back, `columns dropped unless suppression is asked off (${missing.join(',')} missing)`).toEqual([]),
  );
}

async function findRow(
  t: Ctx,
  path: string,
  sortKey: string,
  idKey: string,
  id: number,
  q: Q,
  token?: string,
): Promise<Row> {
  const page = async (skip: number) => {
    const asked: Q = { ...q, sort: `${sortKey} desc`, take: FIND_PAGE, [t.bindings.query.skip]: skip };
    const res = await get(t, path, asked, token);
    await needsMaximumTake(t, `GET ${path}`, res, FIND_PAGE, () =>
      get(t, path, { ...asked, take: MAX_TAKE - 1 }, token),
    );
    return t.needs(listingRequirement(path), `page through GET ${path}`, async () => {
      expect(res.status, `GET ${path} ${JSON.stringify(q)}: ${res.text.slice(0, 300)}`).toBe(200);
      const rows: unknown = (res.json as Partial<ListEnvelope> | undefined)?.List;
      expect(Array.isArray(rows), `GET ${path}: List is an array`).toBe(true);
      return rows as Array<Row | null>;
    });
  };
  const sought = idKey === sortKey ? await seekInListing(page, sortKey, idKey, id) : undefined;
  if (sought) return sought;
  for (let pass = 0; pass < 2; pass++) {
    for (let n = 0; n < 50; n++) {
      const list = await page(n * FIND_STEP);
      const row = list.find((x) => x?.[idKey] === id);
      if (row) return row;
      if (list.length < FIND_PAGE) break;
    }
  }
  await needsSameRowWhenAskedAfresh(t, path, sortKey, idKey, id, q, undefined, token);
  throw new Error(`record ${id} not found in GET ${path}`);
}

/**
 * A row read by findInQuery (or none: `row` undefined, it was on no page) that a test doubts.
 * Newest first, the row belongs on the first page; the same first page asked in a form not asked
 * before (take 99 instead of 100) is another read of the same moment. When that one answers the
 * row otherwise (listed where it was missing, other values), the pages read before did not answer
 * the stored records (a copy kept from an earlier read): the listing's own rule
 * (listingRequirement), so the test is blocked by it. Otherwise the caller judges as before.
 */
export async function needsSameRowWhenAskedAfresh(
  t: Ctx,
  path: string,
  sortKey: string,
  idKey: string,
  id: number,
  q: Q,
  row: Row | undefined,
  token?: string,
): Promise<void> {
  const asked = { ...q, sort: `${sortKey} desc`, take: FIND_PAGE - 1, [t.bindings.query.skip]: 0 };
  const res = await get(t, path, asked, token);
  const rows: unknown = (res.json as Partial<ListEnvelope> | undefined)?.List;
  const fresh = res.status === 200 && Array.isArray(rows) ? rows.find((r: Row | null) => r?.[idKey] === id) : undefined;
  if (fresh === undefined || JSON.stringify(fresh) === JSON.stringify(row)) return;
  await t.needs(
    listingRequirement(path),
    `GET ${path} answers record ${id} alike on two reads of one moment`,
    async () =>
      expect(row, `record ${id} on pages of take=${FIND_PAGE} and on the first page of take=${FIND_PAGE - 1}`).toEqual(
        fresh,
      ),
  );
}

/**
 * Pages of a listing sorted by `key` descending, following the row with `key` = id as other tests'
 * creations and deletions move it: a page that starts below id was read after the row moved back
 * (deletions of newer rows), so the search steps back; a full page that ends above id steps on. It
 * stops when id falls inside one page (one answer, so one moment) and is not on it, at the end of
 * the listing, or after 40 pages. Undefined when not found: the caller then reads every page.
 */
async function seekInListing(
  page: (skip: number) => Promise<Array<Row | null>>,
  key: string,
  idKey: string,
  id: number,
): Promise<Row | undefined> {
  let skip = 0;
  for (let read = 0; read < 40; read++) {
    const list = await page(skip);
    const row = list.find((x) => x?.[idKey] === id);
    if (row) return row;
    const keys = list.map((x) => x?.[key]);
    if (keys.length === 0 || !keys.every((k): k is number => typeof k === 'number')) return undefined;
    if (keys[0]! < id && skip > 0) skip = Math.max(0, skip - FIND_STEP);
    else if (keys.at(-1)! > id && list.length === FIND_PAGE) skip += FIND_STEP;
    else return undefined;
  }
  return undefined;
}
