// Every pair of the query and column features (spec 4.1, 4.2, 4.3, 8), on the three listings, in a
// pairwise covering array drawn from the run's seed, each answer judged by the oracle of the
// generated queries (query-combinations.ts judge(), over the fixture the suite chose) or, for the
// attached-files listing, by the files the suite attached read one by one.
//
// Features and their levels, per operation (only what the operation documents):
// - GET /api/{domain}/Query: the sort field plain or aliased; an association column (none, bare,
//   bare aliased, dotted, dotted aliased); null columns (none, null everywhere, a value on one
//   record, both); resolveAssociationNames, suppression and total count each absent, false or true;
//   sort (none, `<f>`, `<f> asc`, `<f> desc`, two keys); start offset (absent, 0, 1, middle, last,
//   past the end); take (absent, 1, 7, 100, 101); the filter or the LINQ filter (the LINQ filter
//   only where the state gives one; the two together are not drawn: how they combine is not shown).
// - GET /api/File/Query ("same as the domain query"): the same, less the association column (a
//   file has none, spec 2.2) and the two-key sort (the state gives File no groupField).
// - GET /api/{domain}/{id}/Files: only `columns` (sets of file columns, plain or aliased) and `take`.
// The 'records' state's records store no association: the bare association and its dotted property
// are also asked, plain or aliased, with resolveAssociationNames absent, false and true, on the one
// record of 'a record with associations', found in the domain query and judged by its reads by ID.
// Two rows more put the one value of a column only on the last row of a page, and only on the
// first, with suppression on. An offset past the end and a take above 100 blind a row (an empty
// page, a refusal the spec allows): pairs count only on rows where they can be seen.
//
// A refusal is shrunk to the smallest request that the oracle still refuses for the same rule (one
// option dropped, one sort key, one column, one alias at a time); the fixture stays as chosen.
import { expect } from 'vitest';
import { judgeColumnKeys } from '../../src/judge/col.js';
import { findingOf } from '../../src/judge/finding.js';
import { NotApplicableError, PreconditionFailedError, blockedByStep } from '../../src/suite-api/dsl.js';
import { SAMPLE_NUMBERS, SAMPLE_TEXTS } from './data-classes.js';
import { type Row as PairRow, coveringArray, pairsOf } from './pairwise.js';
import {
  FILE_COLUMN_SETS,
  PAIR_FILES,
  type Listing,
  attachedFactors,
  cycled,
  pairSeed,
  queryFactors,
} from './pair-factors.js';
import { type Fixture, type QueryCase, baseOf, judge, params } from './query-combinations.js';
import { adversarialParams, type Records } from './records-query.js';
import {
  type Ctx,
  type Q,
  type Row,
  MAX_TAKE,
  askedKeys,
  enc,
  findInQuery,
  get,
  needsNoParentInformation,
  refusedForMaximumTake,
} from './request.js';

export type { Listing } from './pair-factors.js';

/** A refusal of the oracle: the rule it names and its message. */
interface Refused {
  requirement: string;
  message: string;
}

/** The verdict of one listing's run: the rule broken first (shrunk), with the report. */
export interface PairVerdict {
  broken?: string;
  message?: string;
  /** The feature pairs the rows covered (`factor=level+factor=level`). */
  pairs: number;
  rows: number;
  /** Features left out, with the reason (a state value the implementation did not give). */
  leftOut: string[];
}

// ------------------------------------------------------------------ the domain and file queries

/** The request of a row of the covering array over `f`. */
export function caseOf(f: Fixture & { stored?: string[] }, row: PairRow): QueryCase {
  const { sortField, groupField, allNullField, sometimesNullField } = f.recs;
  const dotted = f.fields.find((x) => x.includes('.'));
  const columns: QueryCase['columns'] = [];
  let n = 0;
  const alias = () => `Alias${++n}`;
  columns.push(row.key === 'aliased' ? { field: sortField, alias: alias() } : { field: sortField });
  const a = row.assoc ?? 'none';
  const assocField = a.startsWith('bare') ? f.assocField : a.startsWith('dotted') ? dotted : undefined;
  if (assocField) columns.push(a.endsWith('aliased') ? { field: assocField, alias: alias() } : { field: assocField });
  if (row.nulls === 'all-null' || row.nulls === 'both') columns.push({ field: allNullField });
  if (row.nulls === 'one-value' || row.nulls === 'both') columns.push({ field: sometimesNullField });
  if (row.nulls === 'stored') for (const field of f.stored ?? []) columns.push({ field });
  const opt = (v: string | undefined) => (v === 'true' ? true : v === 'false' ? false : undefined);
  const base = baseOf(f, { columns, linq: row.select === 'linq' });
  const count = base.length;
  const c: QueryCase = { columns };
  const sorts: Record<string, QueryCase['sort']> = {
    asc: { keys: [{ field: sortField, dir: 'asc' }], explicitAsc: false },
    'asc-keyword': { keys: [{ field: sortField, dir: 'asc' }], explicitAsc: true },
    desc: { keys: [{ field: sortField, dir: 'desc' }], explicitAsc: false },
    'two-keys': {
      keys: [
        { field: groupField ?? sortField, dir: 'desc' },
        { field: sortField, dir: 'asc' },
      ],
      explicitAsc: true,
    },
  };
  if (row.sort && sorts[row.sort]) c.sort = sorts[row.sort];
  const offsets: Record<string, number> = { '0': 0, '1': 1, middle: Math.floor(count / 2), last: count - 1 };
  offsets['past-end'] = count + 2;
  if (row.offset !== undefined && row.offset !== 'absent') c.offset = offsets[row.offset];
  if (row.take !== undefined && row.take !== 'absent') c.take = Number(row.take);
  const suppress = opt(row.suppress);
  const resolve = opt(row.resolve);
  const total = opt(row.total);
  if (suppress !== undefined) c.suppress = suppress;
  if (resolve !== undefined) c.resolve = resolve;
  if (total !== undefined) c.totalCount = total;
  if (row.select === 'linq') c.linq = true;
  return c;
}

/** mulberry-free permutation of 0..n-1 with rank n-1 (last ascending) on a record neither first nor last created. */
function lastRankedSparse(t: Ctx, domain: string | undefined, count: number) {
  const p = adversarialParams(t, { domain, count }, 'feature-pairs');
  if (!p.sortRanks) return p;
  // the one value of sometimesNullField on the record last in ascending order: only on the last
  // row of an ascending page that reaches the end, only on the first of a descending one
  return { ...p, sparseAt: p.sortRanks.indexOf(count - 1) };
}

/**
 * The fixture of a query listing: the 'records' state (records of the domain, or File), with
 * `count` records in an order unlike creation order and the one sparse value on the record last in
 * sort order; for the domain query also 'a record with associations' of the same domain, for the
 * name of an association field and of its dotted property. The truth: every record read by ID with
 * every column a request may name, and again with resolveAssociationNames=true.
 */
export async function pairFixture(
  t: Ctx,
  listing: 'records' | 'files',
  count: number,
): Promise<Fixture & { assoc?: AssocRecord; stored?: string[] }> {
  const domain = listing === 'files' ? 'File' : undefined;
  const recs = await pairRecords(t, listing, lastRankedSparse(t, domain, count));
  const stored = recs.numberField && recs.textField ? [recs.numberField, recs.textField] : undefined;
  let keyField = 'FileID'; // spec 2.2
  let assocField: string | undefined;
  let dotted: string | undefined;
  let assocRecord: AssocRecord | undefined;
  if (listing === 'records') {
    const assoc = await t.given('a record with associations', { domain: recs.domain });
    assocRecord = { id: assoc.id, keyField: assoc.keyField };
    if (assoc.domain !== recs.domain)
      throw new PreconditionFailedError(
        `'a record with associations' is of ${assoc.domain}, 'records' of ${recs.domain}: no association to combine`,
      );
    keyField = assoc.keyField;
    assocField = assoc.associationField;
    dotted = `${assoc.associationField}.${assoc.associatedProperty}`;
  }
  const fields = [
    keyField,
    recs.sortField,
    ...(recs.groupField && listing === 'records' ? [recs.groupField] : []),
    recs.allNullField,
    recs.sometimesNullField,
    ...(dotted ? [dotted] : []),
    ...(assocField ? [assocField] : []),
    ...(stored ?? []),
  ].filter((x, i, xs) => xs.indexOf(x) === i);
  const readReq = listing === 'files' ? 'FILE-009' : 'REC-002';
  const read = async (resolve: boolean) => {
    const out: Row[] = [];
    for (let i = 0; i < recs.ids.length; i += 16) {
      const part = await Promise.all(
        recs.ids.slice(i, i + 16).map(async (id) => {
          const q: Q = { columns: fields.join(','), ...(resolve ? { resolveAssociationNames: true } : {}) };
          const res = await get(t, `/api/${enc(recs.domain)}/${id}`, q);
          if (res.status !== 200)
            throw new PreconditionFailedError(
              `the fixture's record ${recs.domain} ${id} cannot be read by ID with ${JSON.stringify(q)}: ${res.status}`,
            );
          return (res.json as { Record: Row }).Record;
        }),
      );
      out.push(...part);
    }
    return out;
  };
  const [truth, resolvedRead] = await Promise.all([read(false), assocField ? read(true) : Promise.resolve(undefined)]);
  // resolveAssociationNames changes what a bare association field answers, nothing else (spec 4.1
  // rule 5): a dotted property reads the same with it (rule 4), so only the association field of a
  // resolved read is truth; the rest stays the plain read's (a service that nulls dotted
  // properties when resolving answers both reads alike and must not set the truth)
  const resolved =
    resolvedRead && assocField
      ? truth.map((row, i) => ({ ...row, [assocField]: resolvedRead[i]?.[assocField] ?? null }))
      : undefined;
  await t.needs(readReq, `read the ${recs.ids.length} records of the fixture by ID`, async () => {
    const wrong = recs.ids.flatMap((id, i) => {
      const key = truth[i]?.[keyField];
      return Number.isInteger(key) && key !== id ? [`${id} -> ${String(key)}`] : [];
    });
    expect(wrong, `records read by ID that answer another ${keyField} (asked -> answered)`).toEqual([]);
  });
  // the state's filter selects only its records (QRY-009, judged by its own test): a step
  const own = new Set(truth.map((r) => JSON.stringify(r[recs.sortField])));
  const res = await get(t, `/api/${enc(recs.domain)}/Query`, {
    [t.bindings.query.filter]: recs.filter,
    columns: recs.sortField,
    take: 100,
  });
  const listed = ((res.json as { List?: unknown } | undefined)?.List ?? []) as Row[];
  await t.needs('QRY-009', `the filter of the fixture selects only its ${recs.ids.length} records`, async () => {
    expect(
      (Array.isArray(listed) ? listed : []).map((r) => r?.[recs.sortField]).filter((v) => !own.has(JSON.stringify(v))),
      "values listed by the fixture's filter that none of its records has",
    ).toEqual([]);
  });
  // the LINQ filter selects the 2nd, 4th, ... created, never the last (state contract)
  const linqRows = recs.linqFilter
    ? recs.ids.flatMap((_, i) => (i % 2 === 1 && i < recs.ids.length - 1 ? [i] : []))
    : undefined;
  return {
    recs,
    fields,
    truth,
    ...(resolved ? { resolved } : {}),
    ...(assocField ? { assocField } : {}),
    ...(linqRows ? { linqRows } : {}),
    ...(assocRecord ? { assoc: assocRecord } : {}),
    ...(stored ? { stored } : {}),
  };
}

/**
 * The 'records' state of a listing: on the domain query with the stored values of the data classes
 * (protocol 1.2.0: `numbers` and `texts`, the samples of support/data-classes.ts cycled), so the
 * pairs meet a 0, a null, a fraction and non-ASCII text; an endpoint that cannot give them (an older
 * protocol, a refusal, the params not honoured) gets the run without them (`nulls=stored` then asks
 * no column of its own).
 */
async function pairRecords(
  t: Ctx,
  listing: 'records' | 'files',
  p: ReturnType<typeof lastRankedSparse>,
): Promise<Records> {
  if (listing === 'records')
    try {
      return await t.given('records', {
        ...p,
        numbers: cycled(SAMPLE_NUMBERS, p.count),
        texts: cycled(SAMPLE_TEXTS, p.count),
      });
    } catch (e) {
      if (!(e instanceof NotApplicableError || e instanceof PreconditionFailedError)) throw e;
    }
  return t.given('records', p);
}

/** The record of 'a record with associations': its ID and key field. */
interface AssocRecord {
  id: number;
  keyField: string;
}

/**
 * The association columns in combination on the one record that has an association (the 'records'
 * state's records store none): its bare association and dotted property, plain or aliased, with
 * resolveAssociationNames absent, false or true, found in the domain query (sorted by key,
 * descending, paged) and judged against its reads by ID. The first refusal, if any.
 */
async function associationProbes(t: Ctx, f: Fixture, a: AssocRecord): Promise<Refused | undefined> {
  const assocField = f.assocField;
  const dotted = f.fields.find((x) => x.includes('.'));
  if (!assocField || !dotted) return undefined;
  const path = `/api/${enc(f.recs.domain)}/${a.id}`;
  const byId = async (resolve: boolean) => {
    const res = await get(t, path, {
      columns: `${assocField},${dotted}`,
      ...(resolve ? { resolveAssociationNames: true } : {}),
    });
    if (res.status !== 200)
      throw new PreconditionFailedError(`the associated record cannot be read by ID: ${res.status}`);
    return (res.json as { Record: Row }).Record;
  };
  const [plain, resolved] = await Promise.all([byId(false), byId(true)]);
  const probes: Array<{ col: 'bare' | 'dotted'; aliased: boolean; resolve?: boolean; suppress?: true }> = (
    ['bare', 'dotted'] as const
  ).flatMap((col) =>
    [false, true].flatMap((aliased) => [undefined, false, true].map((resolve) => ({ col, aliased, resolve }))),
  );
  // With suppression on too (resolving names, plain or aliased): the column holds a value on this
  // record, so it is kept on the page that lists it (QRY-012), resolved as without suppression; a
  // service that suppresses before it resolves loses it (blind set 3).
  for (const col of ['bare', 'dotted'] as const)
    for (const aliased of [false, true]) probes.push({ col, aliased, resolve: true, suppress: true });
  if (JSON.stringify(resolved[dotted] ?? null) !== JSON.stringify(plain[dotted] ?? null))
    return {
      requirement: 'COL-004',
      message: `${dotted} of record ${a.id} read by ID is ${JSON.stringify(resolved[dotted] ?? null)} with resolveAssociationNames=true and ${JSON.stringify(plain[dotted] ?? null)} without it; resolving changes only a bare association field (spec 4.1 rule 5)\nas sent: GET ${path} ${JSON.stringify({ columns: `${assocField},${dotted}`, resolveAssociationNames: true })}`,
    };
  const refusals = await pooled(probes, async ({ col, aliased, resolve, suppress }) => {
    const field = col === 'bare' ? assocField : dotted;
    const key = aliased ? 'AliasP' : field;
    const q: Q = {
      columns: `${a.keyField},${field}${aliased ? ` as ${key}` : ''}`,
      ...(resolve === undefined ? {} : { resolveAssociationNames: resolve }),
      ...(suppress ? { [t.bindings.query.excludeEmptyColumns]: true } : {}),
    };
    const row = await findInQuery(t, `/api/${enc(f.recs.domain)}/Query`, a.keyField, a.keyField, a.id, q);
    // a dotted property is the same with or without resolveAssociationNames (spec 4.1 rules 4, 5)
    const want = (resolve === true && col === 'bare' ? resolved : plain)[field] ?? null;
    const sent = `GET /api/${f.recs.domain}/Query ${JSON.stringify(q)} (record ${a.id})`;
    // suppressed where this record's value is null: the other records of the page may be null too
    if (suppress && want === null && !(key in row)) return undefined;
    if (!(key in row))
      return {
        requirement: suppress ? 'QRY-012' : aliased && field in row ? 'COL-003' : 'COL-001',
        message: `the row of record ${a.id} has keys ${Object.keys(row).join(',')}, expected ${a.keyField},${key}${suppress ? ` (the column holds ${JSON.stringify(want)} on this record: suppression keeps it)` : ''}\nas sent: ${sent}`,
      };
    if (JSON.stringify(row[key] ?? null) !== JSON.stringify(want))
      return {
        requirement: col === 'dotted' ? 'COL-004' : resolve === true ? 'COL-008' : 'COL-010',
        message: `${key} of record ${a.id} is ${JSON.stringify(row[key])}, its read by ID ${JSON.stringify(want)}\nas sent: ${sent}`,
      };
    return undefined;
  });
  return refusals.find(Boolean);
}

/** On File/Query, the rules of the domain query are the file query's own (spec 4.3 "same as the domain query"). */
const FILE_RULE: Record<string, string> = {
  'QRY-008': 'FILE-022',
  'QRY-006': 'FILE-022',
  'QRY-007': 'FILE-022',
  'QRY-023': 'FILE-022',
  'QRY-024': 'FILE-022',
  'QRY-011': 'FILE-023',
  'QRY-012': 'FILE-023',
  'QRY-013': 'FILE-023',
  'QRY-014': 'FILE-024',
  'QRY-015': 'FILE-024',
};

/**
 * Sends a query case and judges it; the refusal, if any. A case with the LINQ filter whose page
 * was refused is asked again with the state's filter instead, sorted: answered right then, the
 * LINQ filter is what broke the page (QRY-010; a filter applied after paging cuts the wrong page).
 */
async function askQuery(t: Ctx, f: Fixture, listing: 'records' | 'files', c: QueryCase): Promise<Refused | undefined> {
  const r = await askQueryOnce(t, f, listing, c);
  // only a page of the wrong records, size or order: the filter's page shows the same offset, take
  // and sort; columns (suppression, aliases) and the count depend on which records the page holds
  const pageRules = ['QRY-003', 'QRY-005', 'QRY-006', 'QRY-007', 'QRY-008', 'QRY-023', 'QRY-024', 'FILE-022'];
  if (!r || !c.linq || !pageRules.includes(r.requirement)) return r;
  // sorted, so that the same offset and take show on the filter's records too (an unsorted page
  // of them is judged only by its size and its records, and an offset ignored can pass there)
  const { linq: _, ...filtered } = c;
  const sorted = {
    ...filtered,
    sort: filtered.sort ?? { keys: [{ field: f.recs.sortField, dir: 'asc' as const }], explicitAsc: false },
  };
  if (await askQueryOnce(t, f, listing, sorted)) return r;
  return {
    requirement: 'QRY-010',
    message: `${r.message}\nthe same request with the filter instead is answered right`,
  };
}

async function askQueryOnce(t: Ctx, f: Fixture, listing: 'records' | 'files', c: QueryCase) {
  const q = params(t, f, c);
  const path = `/api/${enc(f.recs.domain)}/Query`;
  const res = await get(t, path, q);
  // a file row that carries its parent breaks FILE-008, the rule that names that fact: a step
  const rows = (res.json as { List?: unknown } | undefined)?.List;
  if (listing === 'files' && res.status === 200 && Array.isArray(rows))
    await needsNoParentInformation(t, rows as Row[], 'GET /api/File/Query', askedKeys(String(q.columns)));
  try {
    judge(f, c, res.status, res.json, t.totalCount(res));
    return undefined;
  } catch (e) {
    const refusedTake = await refusedForMaximumTake(res.status, q.take, () =>
      get(t, path, { ...q, take: MAX_TAKE - 1 }),
    );
    const req = refusedTake ? 'QRY-005' : (e as { requirement?: string }).requirement;
    if (!req) throw e;
    const requirement = listing === 'files' ? (FILE_RULE[req] ?? req) : req;
    const what = refusedTake
      ? `QRY-005: take=${MAX_TAKE}, the documented maximum, refused while take=${MAX_TAKE - 1} is answered`
      : (e as Error).message;
    return {
      requirement,
      message: `${what}\nas sent: GET ${path} ${JSON.stringify(q)} -> ${res.status} ${res.text.slice(0, 300)}`,
    };
  }
}

/** Smaller query cases: one option dropped, one sort key, one column, one alias, a smaller offset. */
function smallerQuery(c: QueryCase): QueryCase[] {
  const out: QueryCase[] = [];
  for (const k of ['linq', 'totalCount', 'resolve', 'suppress', 'take', 'offset', 'sort'] as const)
    if (c[k] !== undefined) {
      const d = { ...c };
      delete d[k];
      out.push(d);
    }
  if (c.sort && c.sort.keys.length > 1)
    for (const key of c.sort.keys) out.push({ ...c, sort: { ...c.sort, keys: [key] } });
  if (c.offset !== undefined && c.offset > 1) out.push({ ...c, offset: Math.floor(c.offset / 2) });
  if (c.columns.length > 1)
    c.columns.forEach((_, i) => out.push({ ...c, columns: c.columns.filter((_, j) => j !== i) }));
  c.columns.forEach((x, i) => {
    if (x.alias) out.push({ ...c, columns: c.columns.map((y, j) => (j === i ? { field: y.field } : y)) });
  });
  return out;
}

/** Greedy shrinking: the first smaller case still refused for the same rule, until none is (bounded). */
async function shrink<C>(
  c: C,
  first: Refused,
  smaller: (c: C) => C[],
  ask: (c: C) => Promise<Refused | undefined>,
  budget = 60,
): Promise<{ c: C; refused: Refused; steps: number }> {
  let cur = c;
  let refused = first;
  let steps = 0;
  let asked = 0;
  for (let progress = true; progress && asked < budget;) {
    progress = false;
    for (const s of smaller(cur)) {
      if (asked++ >= budget) break;
      const r = await ask(s);
      if (r?.requirement === refused.requirement) {
        cur = s;
        refused = r;
        steps++;
        progress = true;
        break;
      }
    }
  }
  return { c: cur, refused, steps };
}

/** Requests in flight at once. */
const IN_FLIGHT = 8;

async function pooled<T, R>(items: T[], fn: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]!);
    }),
  );
  return out;
}

/** The verdict of a covering array: every row asked, the first refusal (in row order) shrunk. */
async function runRows<C>(
  seed: number,
  what: string,
  cases: C[],
  ask: (c: C) => Promise<Refused | undefined>,
  smaller: (c: C) => C[],
): Promise<Pick<PairVerdict, 'broken' | 'message'>> {
  const refusals = await pooled(cases, ask);
  const at = refusals.findIndex(Boolean);
  if (at < 0) return {};
  const { c, refused, steps } = await shrink(cases[at]!, refusals[at]!, smaller, ask);
  return {
    broken: refused.requirement,
    message: [
      refused.message,
      `${what}: row ${at + 1} of ${cases.length} of the covering array failed (seed ${seed}: repeat with --seed ${seed}; ${steps} shrink step(s))`,
      `shrunk request: ${JSON.stringify(c)}`,
      `first failing row: ${JSON.stringify(cases[at])}`,
    ].join('\n'),
  };
}

/** The covering array of a query listing over its fixture, asked and judged. */
export { attachedFactors, queryFactors };

export async function runQueryPairs(t: Ctx, listing: 'records' | 'files', count: number): Promise<PairVerdict> {
  const f = await pairFixture(t, listing, count);
  const leftOut: string[] = [];
  if (!f.linqRows) leftOut.push(`LINQ filter: the 'records' state of ${f.recs.domain} gives no linqFilter`);
  if (listing === 'records' && !f.recs.groupField)
    leftOut.push(`sort on two keys: the 'records' state of ${f.recs.domain} gives no groupField`);
  if (listing === 'records' && !f.stored)
    leftOut.push(
      `stored values of the data classes: the 'records' state of ${f.recs.domain} took no numbers and texts`,
    );
  const factors = queryFactors({
    assoc: listing === 'records',
    two: listing === 'records' && !!f.recs.groupField,
    linq: !!f.linqRows,
    stored: listing === 'records' && !!f.stored,
  });
  const seed = pairSeed(t.run.seed ?? Math.floor(Math.random() * 2 ** 31), listing);
  const { rows } = coveringArray(factors, seed);
  const pairs = new Set(rows.flatMap((r) => pairsOf(factors, r))).size;
  // and the value of sometimesNullField only on the last row of a page, and only on the first (the
  // fixture puts it on the record last in ascending order), with suppression on: seed-independent
  const { sortField, sometimesNullField } = f.recs;
  const sparse = [{ field: sortField }, { field: sometimesNullField }];
  const edges: QueryCase[] = [
    {
      columns: sparse,
      sort: { keys: [{ field: sortField, dir: 'asc' }], explicitAsc: false },
      offset: count - 3,
      suppress: true,
    },
    {
      columns: sparse,
      sort: { keys: [{ field: sortField, dir: 'desc' }], explicitAsc: false },
      take: 3,
      suppress: true,
    },
  ];
  const cases = [...rows.map((r) => caseOf(f, r)), ...edges];
  const array = await runRows(
    seed,
    `GET /api/${f.recs.domain}/Query`,
    cases,
    (c) => askQuery(t, f, listing, c),
    smallerQuery,
  );
  const probe = array.broken || !f.assoc ? undefined : await associationProbes(t, f, f.assoc);
  const v = probe ? { broken: probe.requirement, message: probe.message } : array;
  return { ...v, pairs, rows: cases.length, leftOut };
}

// ------------------------------------------------------------------ the attached-files listing

export interface AttachedCase {
  columns: Array<{ field: string; alias?: string }>;
  take?: number;
}

export interface AttachedFixture {
  domain: string;
  id: number;
  fileIds: number[];
  /** Per file (in the order of fileIds): every column of the sets, as GET /api/File/{id} answers it. */
  truth: Row[];
}

function attachedCaseOf(row: PairRow): AttachedCase {
  const fields = FILE_COLUMN_SETS[row.columns!]!;
  const columns = fields.map((field, i) =>
    row.alias === 'all' || (row.alias === 'first' && i === 0) ? { field, alias: `Alias${i + 1}` } : { field },
  );
  return row.take === 'absent' ? { columns } : { columns, take: Number(row.take) };
}

async function attachedFixture(t: Ctx): Promise<AttachedFixture> {
  const p = await t.given('a record with files', { files: PAIR_FILES });
  const all = [...new Set(Object.values(FILE_COLUMN_SETS).flat())];
  const truth = await Promise.all(
    p.fileIds.map(async (id) => {
      const res = await get(t, `/api/File/${id}`, { columns: all.join(',') });
      if (res.status !== 200)
        throw new PreconditionFailedError(`the fixture's file ${id} cannot be read by ID: ${res.status}`);
      return (res.json as { Record: Row }).Record;
    }),
  );
  await t.needs('FILE-009', `read the ${p.fileIds.length} attached files by ID`, async () => {
    const wrong = p.fileIds.filter((id, i) => Number.isInteger(truth[i]?.FileID) && truth[i]?.FileID !== id);
    expect(wrong, 'files read by ID that answer another FileID').toEqual([]);
  });
  return { domain: p.domain, id: p.id, fileIds: p.fileIds, truth };
}

/** The `columns` parameter of a case. */
const columnsOf = (c: AttachedCase) => c.columns.map((x) => (x.alias ? `${x.field} as ${x.alias}` : x.field)).join(',');

/**
 * Judges one answer of the attached-files listing: exactly the parent's files (FILE-007), as many
 * as take asks when fewer than all (QRY-005), each with exactly the requested keys (COL-001; an
 * alias not applied: COL-011, the column language on every operation). Without take, every file
 * (the suite attached fewer than 30). A row is one of the parent's files when it holds the values
 * of the file's read by ID in every column but one at most: a value of its own is the rule of that
 * field (FILE-002 to FILE-006, judged by their tests on the listing), not of the listing.
 */
export function judgeAttached(f: AttachedFixture, c: AttachedCase, status: number, body: unknown): void {
  const n = f.fileIds.length;
  if (c.take !== undefined && c.take > 100 && status >= 400 && status < 500) return; // above the documented maximum
  const fail = (requirement: string, what: string) => {
    throw Object.assign(new Error(`${requirement}: ${what}`), { name: 'AssertionError', requirement });
  };
  if (status !== 200) fail('FILE-007', `answered ${status}`);
  const rows = (body as { List?: unknown } | undefined)?.List;
  if (!Array.isArray(rows)) return fail('FILE-007', 'no List array in the answer');
  const want = Math.min(c.take ?? n, n, 100);
  if (rows.length !== want)
    fail(
      c.take !== undefined && c.take < n ? 'QRY-005' : 'FILE-007',
      `${rows.length} files, expected ${want} (take ${c.take ?? 'absent'}, ${n} attached)`,
    );
  const keys = c.columns.map((x) => x.alias ?? x.field);
  // the judge of the keys (judge/col.ts); an alias not applied here is the listing's (COL-011)
  const found = judgeColumnKeys({ operationId: 'listAttachedFiles', columns: columnsOf(c), records: rows as Row[] });
  for (const [req, blame] of [
    ['COL-001', 'COL-001'],
    ['COL-003', 'COL-011'],
  ] as const) {
    const broken = findingOf(found, req);
    if (broken && !broken.ok) fail(blame, broken.detail);
  }
  const project = (r: Row) => JSON.stringify(c.columns.map((x) => r[x.field] ?? null));
  const valuesOf = (r: Row) => JSON.stringify(keys.map((k) => r[k] ?? null));
  const pool = f.truth.map(project);
  for (const [i, row] of (rows as Row[]).entries()) {
    const at = pool.indexOf(valuesOf(row));
    if (at >= 0) {
      pool.splice(at, 1);
      continue;
    }
    // one of the parent's files in every column but one: that field's rule, not the listing's;
    // else a file the parent does not have, or one listed twice
    const have = JSON.parse(valuesOf(row)) as unknown[];
    const close = pool.findIndex((p) => {
      const want = JSON.parse(p) as unknown[];
      return want.length > 1 && want.filter((v, k) => JSON.stringify(v) !== JSON.stringify(have[k])).length === 1;
    });
    if (close >= 0) {
      pool.splice(close, 1);
      continue;
    }
    fail('FILE-007', `row ${i} (${valuesOf(row)}) is none of the parent's files (or one listed twice)`);
  }
}

async function askAttached(t: Ctx, f: AttachedFixture, c: AttachedCase): Promise<Refused | undefined> {
  const q: Q = { columns: columnsOf(c) };
  if (c.take !== undefined) q.take = c.take;
  const path = `/api/${enc(f.domain)}/${f.id}/Files`;
  const res = await get(t, path, q);
  try {
    judgeAttached(f, c, res.status, res.json);
    return undefined;
  } catch (e) {
    const requirement = (e as { requirement?: string }).requirement;
    if (!requirement) throw e;
    return {
      requirement,
      message: `${(e as Error).message}\nas sent: GET ${path} ${JSON.stringify(q)} -> ${res.status} ${res.text.slice(0, 300)}`,
    };
  }
}

function smallerAttached(c: AttachedCase): AttachedCase[] {
  const out: AttachedCase[] = [];
  if (c.take !== undefined) out.push({ columns: c.columns });
  if (c.columns.length > 1)
    c.columns.forEach((_, i) => out.push({ ...c, columns: c.columns.filter((_, j) => j !== i) }));
  c.columns.forEach((x, i) => {
    if (x.alias) out.push({ ...c, columns: c.columns.map((y, j) => (j === i ? { field: y.field } : y)) });
  });
  return out;
}

export async function runAttachedPairs(t: Ctx): Promise<PairVerdict> {
  const f = await attachedFixture(t);
  const factors = attachedFactors(f.fileIds.length);
  const seed = pairSeed(t.run.seed ?? Math.floor(Math.random() * 2 ** 31), 'attached');
  const { rows } = coveringArray(factors, seed);
  const pairs = new Set(rows.flatMap((r) => pairsOf(factors, r))).size;
  const v = await runRows(
    seed,
    `GET /api/${f.domain}/${f.id}/Files`,
    rows.map(attachedCaseOf),
    (c) => askAttached(t, f, c),
    smallerAttached,
  );
  return { ...v, pairs, rows: rows.length, leftOut: [] };
}

// ------------------------------------------------------------------ one run per listing, shared

const shared = new Map<Listing, { run: Promise<PairVerdict>; reads: Set<string>; exchanges: Ctx['exchanges'] }>();

/**
 * One run per listing, shared by the tests that each judge one requirement (as sharedCombinations):
 * the first test to ask runs it; each fails only when its own requirement broke first.
 */
export async function sharedPairs(t: Ctx, listing: Listing): Promise<PairVerdict> {
  let s = shared.get(listing);
  if (!s) {
    const run = listing === 'attached' ? runAttachedPairs(t) : runQueryPairs(t, listing, 32);
    s = { run, reads: t.stateValuesRead, exchanges: t.exchanges };
    shared.set(listing, s);
  }
  try {
    return await s.run;
  } finally {
    for (const u of s.reads) t.stateValuesRead.add(u);
    if (s.exchanges !== t.exchanges) t.dependsOnRequests(s.exchanges);
  }
}

/**
 * The verdict for one requirement of one listing: fails when the run broke it; blocked when the run
 * broke a rule the listing's tests do not judge (a step), or, on the file listings, the same rule
 * the domain query broke too (one cause, one red line: the domain query's).
 */
export async function judgePair(t: Ctx, listing: Listing, requirement: string, judged: string[]): Promise<void> {
  const v = await sharedPairs(t, listing);
  if (listing !== 'records' && v.broken) {
    const domain = await sharedPairs(t, 'records').catch(() => undefined);
    const same =
      domain?.broken === v.broken ||
      (listing === 'files' && FILE_RULE[domain?.broken ?? ''] === v.broken) ||
      (listing === 'attached' && domain?.broken === 'COL-003' && v.broken === 'COL-011');
    if (domain?.broken && same)
      throw blockedByStep(domain.broken, 'the same combination on the domain query', new Error(v.message));
  }
  if (v.broken === requirement) expect.fail(v.message);
  if (v.broken && !judged.includes(v.broken))
    throw blockedByStep(v.broken, 'a pairwise feature run', new Error(v.message));
  if (requirement === 'QRY-010' && v.leftOut.some((x) => x.startsWith('LINQ')))
    t.notApplicable(v.leftOut.find((x) => x.startsWith('LINQ'))!);
}
