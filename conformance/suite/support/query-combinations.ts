// Generated combinations of the column language and the query options (spec 4.1, 4.2, 8), judged by
// an oracle computed from the fixture.
//
// The fixture: the provider state 'records' (adversarial: sortField order unlike creation order, one
// value of sometimesNullField inside the set, a field null everywhere) with more records than the
// largest page, and 'a record with associations' of the same domain for the names of its key field
// and of an association property (a dotted name). The truth is every record read by ID
// (GET /api/{domain}/{id}, another operation than the one under test) with every column a request
// may name. fast-check draws requests mixing plain, aliased and dotted columns in any order with a
// sort (one column or two, each direction, with or without the `asc` keyword), a take around every
// limit (1, the default 30, 100, above 100), a start offset around every page edge and past the
// end, and empty-column suppression on, off or absent; each answer is compared with the page the
// oracle computes. Seeded by the run's --seed, shrinking to the smallest failing request.
import fc from 'fast-check';
import { expect } from 'vitest';
import { judgeTotalCount } from '../../src/judge/query.js';
import { PreconditionFailedError } from '../../src/suite-api/dsl.js';
import { type Ctx, type Q, type Row, MAX_TAKE, enc, get, refusedForMaximumTake } from './request.js';
import { type Records, type SortKey, ordered, sortParam, withTurned } from './records-query.js';

/** One requested column: a field (plain or dotted) and an optional alias. */
interface Column {
  field: string;
  alias?: string;
}

export interface QueryCase {
  columns: Column[];
  sort?: { keys: SortKey[]; explicitAsc: boolean };
  take?: number;
  offset?: number;
  suppress?: boolean;
  /** resolveAssociationNames: true, false or absent. */
  resolve?: boolean;
  /** The total count (its parameter a binding): true, false or absent. */
  totalCount?: boolean;
  /** The state's LINQ filter instead of its filter (the subset it selects). */
  linq?: boolean;
}

export interface Fixture {
  recs: Records;
  /** Every field a request may name, plain or dotted. */
  fields: string[];
  /** Per record, in creation order: every field's value as a read by ID answers it. */
  truth: Row[];
  /** The same read with resolveAssociationNames=true (absent: the cases never ask for it). */
  resolved?: Row[];
  /** The bare association field among `fields`, when one is. */
  assocField?: string;
  /** Positions (in creation order) of the records the state's LINQ filter selects, when it gave one. */
  linqRows?: number[];
}

/** The records a case selects, as its reads by ID answer them (resolved when the case asks). */
export function baseOf(f: Fixture, c: QueryCase): Row[] {
  const all = c.resolve === true && f.resolved ? f.resolved : f.truth;
  return c.linq && f.linqRows ? f.linqRows.map((i) => all[i]!) : all;
}

/** Takes around every limit: 1, the default 30, the maximum 100, and above it. */
const TAKES = [1, 2, 29, 30, 31, 99, 100, 101, 150];

/** Sets up the fixture and reads the truth; `count` above 100 so the largest page is not all. */
export async function fixture(t: Ctx, count: number): Promise<Fixture> {
  const [recs, assoc] = await Promise.all([t.given('records', { count }), t.given('a record with associations', {})]);
  if (assoc.domain !== recs.domain)
    throw new PreconditionFailedError(
      `'a record with associations' is of ${assoc.domain}, 'records' of ${recs.domain}: no dotted name to combine`,
    );
  const dotted = `${assoc.associationField}.${assoc.associatedProperty}`;
  const fields = [
    assoc.keyField,
    recs.sortField,
    ...(recs.groupField ? [recs.groupField] : []),
    recs.allNullField,
    recs.sometimesNullField,
    dotted,
  ];
  const truth: Row[] = [];
  // the truth by ID, a few reads at a time
  for (let i = 0; i < recs.ids.length; i += 16) {
    const part = await Promise.all(
      recs.ids.slice(i, i + 16).map(async (id) => {
        const res = await get(t, `/api/${enc(recs.domain)}/${id}`, { columns: fields.join(',') });
        if (res.status !== 200)
          throw new PreconditionFailedError(
            `the fixture's record ${recs.domain} ${id} cannot be read by ID with ${fields.join(',')}: ${res.status}`,
          );
        return (res.json as { Record: Row }).Record;
      }),
    );
    truth.push(...part);
  }
  // the truth is read by ID, a step this run relies on: a read answering a record with another key
  // is REC-002's failure (the read-by-ID test fails it), which blocks every test of the run
  await t.needs('REC-002', `read the ${recs.ids.length} records of the fixture by ID`, async () => {
    const wrong = recs.ids.flatMap((id, i) => {
      const key = truth[i]?.[assoc.keyField];
      return Number.isInteger(key) && key !== id ? [`${id} -> ${String(key)}`] : [];
    });
    expect(wrong, `records read by ID that answer another ${assoc.keyField} (asked -> answered)`).toEqual([]);
  });
  // the state's filter selects only its records (QRY-009, judged by its test), a step of every
  // generated request: its pages, from explicit offsets, hold none but the truth's values
  const own = new Set(truth.map((r) => JSON.stringify(r[recs.sortField])));
  const listed: unknown[] = [];
  for (let skip = 0; skip < recs.ids.length; skip += 100) {
    const res = await get(t, `/api/${enc(recs.domain)}/Query`, {
      [t.bindings.query.filter]: recs.filter,
      columns: recs.sortField,
      take: 100,
      [t.bindings.query.skip]: skip,
    });
    const rows = (res.json as { List?: unknown } | undefined)?.List;
    if (res.status === 200 && Array.isArray(rows)) listed.push(...rows.map((r) => (r as Row)?.[recs.sortField]));
  }
  await t.needs('QRY-009', `the filter of the fixture selects only its ${recs.ids.length} records`, async () => {
    expect(
      listed.filter((v) => !own.has(JSON.stringify(v))),
      "values listed by the fixture's filter that none of its records has",
    ).toEqual([]);
  });
  return { recs, fields, truth };
}

/** The requests: columns in any mix and order, with every option. */
export function queryCases(f: Fixture): fc.Arbitrary<QueryCase> {
  const dir = fc.constantFrom<'asc' | 'desc'>('asc', 'desc');
  const { sortField, groupField } = f.recs;
  const sort = fc.oneof(
    fc.record({ keys: dir.map((d) => [{ field: sortField, dir: d }]), explicitAsc: fc.boolean() }),
    ...(groupField
      ? [
          fc.record({
            keys: fc.tuple(dir, dir).map(([a, b]) => [
              { field: groupField, dir: a },
              { field: sortField, dir: b },
            ]),
            explicitAsc: fc.boolean(),
          }),
        ]
      : []),
  );
  const columns = fc
    .uniqueArray(fc.constantFrom(...f.fields), { minLength: 1, maxLength: f.fields.length })
    .chain((fields) =>
      fc
        .tuple(...fields.map(() => fc.boolean()))
        .map((aliased) => fields.map((field, i) => (aliased[i] ? { field, alias: `Alias${i + 1}` } : { field }))),
    );
  const count = f.recs.ids.length;
  return fc.record(
    {
      columns,
      sort: fc.option(sort, { nil: undefined, freq: 4 }),
      take: fc.option(fc.constantFrom(...TAKES), { nil: undefined, freq: 4 }),
      offset: fc.option(
        fc.oneof(fc.constantFrom(0, 1, 29, 30, 31, 99, 100, count - 1, count, count + 1), fc.nat(count + 2)),
        { nil: undefined, freq: 4 },
      ),
      suppress: fc.option(fc.boolean(), { nil: undefined, freq: 3 }),
    },
    { requiredKeys: ['columns'] },
  );
}

/** The query parameters of a case. */
export function params(t: Ctx, f: Fixture, c: QueryCase): Q {
  const q: Q = {
    ...(c.linq && f.recs.linqFilter
      ? { [t.bindings.query.linqFilter]: f.recs.linqFilter }
      : { [t.bindings.query.filter]: f.recs.filter }),
    columns: c.columns.map((x) => (x.alias ? `${x.field} as ${x.alias}` : x.field)).join(','),
  };
  if (c.sort) q.sort = sortParam(c.sort.keys, c.sort.explicitAsc);
  if (c.take !== undefined) q.take = c.take;
  if (c.offset !== undefined) q[t.bindings.query.skip] = c.offset;
  if (c.suppress !== undefined) q[t.bindings.query.excludeEmptyColumns] = c.suppress;
  if (c.resolve !== undefined) q.resolveAssociationNames = c.resolve;
  if (c.totalCount !== undefined) q[t.bindings.query.includeTotalCount] = c.totalCount;
  return q;
}

const keyOf = (c: Column) => c.alias ?? c.field;
const project = (c: QueryCase, rec: Row): Row => Object.fromEntries(c.columns.map((x) => [keyOf(x), rec[x.field]]));
const isNull = (v: unknown) => v === null || v === undefined;

/** A requirement the oracle found broken, and how: the message names it first. */
class Broken extends Error {
  override name = 'AssertionError';
  constructor(
    readonly requirement: string,
    what: string,
  ) {
    super(`${requirement}: ${what}`);
  }
}

/** take=100 refused while take=99 is answered: the documented maximum is what is refused (QRY-005). */
function maximumTakeRefused(): Broken {
  return new Broken(
    'QRY-005',
    `take=${MAX_TAKE}, the documented maximum, refused while take=${MAX_TAKE - 1} is answered`,
  );
}

/**
 * The keys, with some directions turned, whose order gives exactly `page` (by `slice` of the
 * ordered truth at the page's offset); undefined when none does. Tried: each key turned alone, and
 * all of them (a keyword read the other way, or a direction ignored, on one key or on every one).
 */
function otherOrderAtOffset(
  keys: SortKey[],
  slice: (keys: SortKey[]) => string[],
  page: string[],
): SortKey[] | undefined {
  const tries = [...keys.map((_, j) => withTurned(keys, j)), withTurned(keys)];
  return tries.find((ks) => {
    const want = slice(ks);
    return want.length === page.length && page.every((v, i) => v === want[i]);
  });
}

/**
 * Judges one answer against the oracle. With a sort, the page is known exactly: the ordered truth
 * from the offset, as many as take asks (default 30), at most 100; without one, which records a
 * page holds is not documented, so it is judged by its size, its columns and that every row is one
 * of the fixture's records, each once.
 */
export function judge(f: Fixture, c: QueryCase, status: number, body: unknown, total?: unknown): void {
  const base = baseOf(f, c);
  const count = base.length;
  const start = c.offset ?? 0;
  const asked = c.take ?? 30;
  if (asked > 100 && status >= 400 && status < 500) return; // refusing a take above the maximum is not excluded (QRY-004)
  if (status !== 200) throw new Broken('QRY-001', `answered ${status} to a query the spec allows`);
  const rows = (body as { List?: unknown })?.List;
  if (!Array.isArray(rows)) throw new Broken('QRY-001', 'no List array in the answer');
  outsideLinq(f, c, rows as Row[]);
  const want = Math.max(0, Math.min(Math.min(asked, 100), count - start));
  if (asked > 100) {
    if (rows.length > 100) throw new Broken('QRY-004', `${rows.length} records for take=${asked}`);
    if (rows.length > want) throw new Broken('QRY-006', `${rows.length} records, only ${want} from offset ${start}`);
  } else if (rows.length !== want) {
    // More than the take asked is take's failure (QRY-003 for the default, QRY-005 for take=n)
    // wherever the page starts. A page the offset should cut short (it starts within `asked` of
    // the end) that has another size is the offset's (QRY-006), with or without take: an offset
    // read as another one (clamped, off by one) shows there, and only there.
    const takeReq = c.take === undefined ? 'QRY-003' : 'QRY-005';
    const cutByOffset = start > 0 && want < Math.min(asked, 100);
    // without an offset, a page short of every record when take asks for more than there are: the
    // page does not start at the first record (QRY-007, judged by its own test), not take's
    const cutByDefault = c.offset === undefined && rows.length < want && want < Math.min(asked, 100);
    const req =
      rows.length > Math.min(asked, 100) ? takeReq : cutByOffset ? 'QRY-006' : cutByDefault ? 'QRY-007' : takeReq;
    throw new Broken(req, `${rows.length} records, expected ${want} (take ${c.take ?? 'default'}, offset ${start})`);
  }
  const keys = c.columns.map(keyOf);
  const page: Row[] | undefined = c.sort
    ? ordered(base, c.sort.keys)
        .slice(start, start + rows.length)
        .map((r) => project(c, r))
    : undefined;
  // the columns: exactly the requested keys (aliases for aliased ones), less the ones suppression drops
  const pageRows = (page ?? (rows as Row[])) as Row[];
  const empty = new Set(keys.filter((k) => pageRows.every((r) => isNull(r[k]))));
  // a sorted page of other records than the ones asked (an offset ignored, an order broken): which
  // columns suppression keeps follows from those records, so the rows are judged by the order and
  // the offset below, not by their columns; a row is the expected record when every column both
  // hold, and suppression cannot drop, agrees
  const sameRecord = (row: Row, want: Row) =>
    keys
      .filter((k) => k in row && k in want && !empty.has(k))
      .every((k) => JSON.stringify(row[k]) === JSON.stringify(want[k]));
  // suppression keeps or drops a column by the whole page: a page holding other records than the
  // expected ones (one of them off the page) keeps other columns, so its columns are not judged
  const otherRecords =
    page !== undefined && c.suppress === true && (rows as Row[]).some((row, i) => !sameRecord(row ?? {}, page[i]!));
  for (const [i, row] of (otherRecords ? [] : (rows as Row[])).entries()) {
    const got = Object.keys(row ?? {}).sort();
    const expected = keys.filter((k) => !(c.suppress === true && empty.has(k))).sort();
    if (JSON.stringify(got) !== JSON.stringify(expected)) {
      const missing = expected.filter((k) => !got.includes(k));
      const extra = got.filter((k) => !expected.includes(k));
      const aliased = c.columns.filter((x) => x.alias).map((x) => x.field);
      // a column nobody asked for (neither a requested key nor the field under an alias): the
      // column list itself was not honoured (COL-001), whatever else the row lacks
      const unasked = extra.filter((k) => !keys.includes(k) && !aliased.includes(k));
      // a field back under its own name where it was asked under an alias: the alias not applied
      // (COL-003), whether or not suppression or nulls are about (an alias of a column null
      // everywhere missing is not suppression at work when its field is there instead)
      const req = unasked.length
        ? 'COL-001'
        : extra.some((k) => aliased.includes(k))
          ? 'COL-003'
          : c.suppress === true && missing.length && !extra.length
            ? 'QRY-012'
            : c.suppress === true && extra.length && extra.every((k) => empty.has(k))
              ? 'QRY-011'
              : c.suppress !== true && missing.length && missing.every((k) => empty.has(k))
                ? 'QRY-013'
                : extra.some((k) => aliased.includes(k)) || missing.some((k) => k.startsWith('Alias'))
                  ? 'COL-003'
                  : 'COL-001';
      throw new Broken(req, `row ${i} has keys ${got.join(',')}, expected ${expected.join(',')}`);
    }
  }
  const values = (r: Row) => JSON.stringify(keys.map((k) => (k in r ? r[k] : null)));
  if (page) {
    for (const [i, row] of (rows as Row[]).entries())
      if (values(row) !== values(page[i]!)) {
        // the expected record but for its dotted or association columns: those columns' rule
        const columnReq = columnOnlyWrong(f, c, row, page[i]!);
        const keys0 = c.sort!.keys;
        // without a start offset, the page the order gives from the second record: a default
        // offset other than 0 (QRY-007, judged by its own test)
        const fromSecond = ordered(base, keys0)
          .slice(1, 1 + rows.length)
          .map((r) => values(project(c, r)));
        const shifted = c.offset === undefined && (rows as Row[]).every((r, k) => values(r) === fromSecond[k]);
        // the order asked, only from another offset (a slice of the ordered truth that starts
        // elsewhere): the offset's; anything else is the order's, wherever the page starts
        const orderedValues = ordered(base, keys0).map((r) => values(project(c, r)));
        const elsewhere =
          start > 0 &&
          orderedValues.some(
            (_, s) => s !== start && (rows as Row[]).every((r, k) => values(r) === orderedValues[s + k]),
          );
        // the page another order gives at this very offset (a direction read the other way): the
        // order's, even where records that project alike make it look in order from elsewhere
        const flipped = otherOrderAtOffset(
          keys0,
          (ks) =>
            ordered(base, ks)
              .slice(start, start + rows.length)
              .map((r) => values(project(c, r))),
          (rows as Row[]).map(values),
        );
        // the keys whose direction that other order turned: all of them asked `asc` with the
        // keyword, the keyword's (QRY-023); all asked `desc`, the direction's (QRY-008)
        const turned = flipped ? keys0.filter((k, j) => flipped[j]!.dir !== k.dir) : [];
        const orderReq =
          turned.length && c.sort!.explicitAsc && turned.every((k) => k.dir === 'asc')
            ? 'QRY-023'
            : turned.length && turned.every((k) => k.dir === 'desc')
              ? 'QRY-008'
              : keys0.length > 1
                ? 'QRY-024'
                : c.sort!.explicitAsc && keys0[0]!.dir === 'asc'
                  ? 'QRY-023'
                  : 'QRY-008';
        const req = shifted ? 'QRY-007' : (columnReq ?? (elsewhere && !flipped ? 'QRY-006' : orderReq));
        throw new Broken(
          req,
          `row ${i} is ${values(row)}, expected ${values(page[i]!)} (sort ${sortParam(c.sort!.keys)})`,
        );
      }
  } else {
    const pool = base.map((r) => values(project(c, r)));
    // the keys every row of the answer lacks: with suppression asked, dropped as null everywhere
    const absent = keys.filter((k) => (rows as Row[]).every((r) => !(k in (r ?? {}))));
    const without = (r: Row) => JSON.stringify(keys.map((k) => (absent.includes(k) ? null : k in r ? r[k] : null)));
    for (const [i, row] of (rows as Row[]).entries()) {
      const at = pool.indexOf(values(row));
      // a record of the fixture but for a dropped column that has a value on this page: suppression
      // dropped a column it must keep (QRY-012), not a record nobody stored
      if (
        at < 0 &&
        c.suppress === true &&
        absent.length > 0 &&
        base.some((r) => without(project(c, r)) === without(row))
      )
        throw new Broken(
          'QRY-012',
          `row ${i} (${values(row)}) lacks ${absent.join(',')}, which has a value on this page`,
        );
      // a record of the fixture but for its dotted or association columns: those columns' rule
      const near = at < 0 ? base.map((r) => columnOnlyWrong(f, c, row, project(c, r))).find(Boolean) : undefined;
      if (near) throw new Broken(near, `row ${i} (${values(row)}) differs from a record of the fixture in that column`);
      if (at < 0)
        throw new Broken('COL-001', `row ${i} (${values(row)}) is none of the fixture's records (or one listed twice)`);
      pool.splice(at, 1);
    }
  }
  // the total count, where the bindings put it (its place and name are not shown): judge/query.ts
  const counted = { operationId: 'queryRecords', asked: c.totalCount, total, skip: start, take: asked };
  const broken = judgeTotalCount({ ...counted, shown: rows.length }, count).find((x) => !x.ok);
  if (broken) throw new Broken(broken.requirement, `${broken.detail} (offset ${start})`);
}

/**
 * The rule of the only columns in which `row` differs from `want` (both projected), when all of
 * them are dotted (COL-004) or the bare association field (COL-008 asked resolved, else COL-010);
 * undefined when another column differs too, or none does.
 */
function columnOnlyWrong(f: Fixture, c: QueryCase, row: Row, want: Row): string | undefined {
  const differs = c.columns.filter(
    (x) => JSON.stringify(row[keyOf(x)] ?? null) !== JSON.stringify(want[keyOf(x)] ?? null),
  );
  if (!differs.length) return undefined;
  if (differs.every((x) => x.field.includes('.'))) return 'COL-004';
  if (f.assocField && differs.every((x) => x.field === f.assocField)) return c.resolve ? 'COL-008' : 'COL-010';
  return undefined;
}

/**
 * With the LINQ filter, a row that is one of the fixture's records the LINQ filter leaves out (and
 * none it selects): the LINQ filter's failure (QRY-010), whatever else the page shows.
 */
function outsideLinq(f: Fixture, c: QueryCase, rows: Row[]): void {
  if (!c.linq || !f.linqRows) return;
  const all = c.resolve === true && f.resolved ? f.resolved : f.truth;
  const inside = new Set(f.linqRows);
  const keys = c.columns.map(keyOf);
  const values = (r: Row) => JSON.stringify(keys.map((k) => (k in r ? r[k] : null)));
  const selected = new Set(all.filter((_, i) => inside.has(i)).map((r) => values(project(c, r))));
  const left = new Set(all.filter((_, i) => !inside.has(i)).map((r) => values(project(c, r))));
  const stray = rows.findIndex((r) => left.has(values(r ?? {})) && !selected.has(values(r ?? {})));
  if (stray >= 0)
    throw new Broken(
      'QRY-010',
      `row ${stray} (${values(rows[stray]!)}) is a record of the fixture the LINQ filter does not select`,
    );
}

/** The verdict of a generated run: the requirement whose property broke first, with the report. */
export interface Verdict {
  broken?: string;
  message?: string;
}

/** Requests of the first pass in flight at once. */
const IN_FLIGHT = 8;

/**
 * The first pass: the `numRuns` requests the seed draws, sent a few at a time (each is a read and
 * needs nothing of the others, so a slow service does not pay 80 round trips in a row); the ones
 * whose answer the oracle refuses, in the order drawn, and the first refusal with what was sent.
 */
async function firstPass(
  t: Ctx,
  f: Fixture,
  seed: number,
  numRuns: number,
): Promise<{ refused: QueryCase[]; first?: Refusal }> {
  const cases = fc.sample(queryCases(f), { seed, numRuns });
  const refusals: Array<Refusal | undefined> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < cases.length; i = next++) refusals[i] = await askAndJudge(t, f, cases[i]!);
    }),
  );
  return { refused: cases.filter((_, i) => refusals[i]), first: refusals.find(Boolean) };
}

/** What the oracle refused, with the request and the start of its answer. */
interface Refusal {
  error: unknown;
  sent: string;
}

/** Sends one generated request and judges its answer; the refusal, if the oracle refuses it. */
async function askAndJudge(t: Ctx, f: Fixture, c: QueryCase): Promise<Refusal | undefined> {
  const q = params(t, f, c);
  const path = `/api/${enc(f.recs.domain)}/Query`;
  const res = await get(t, path, q);
  try {
    judge(f, c, res.status, res.json);
    return undefined;
  } catch (e) {
    const error = (await refusedForMaximumTake(res.status, q.take, () => get(t, path, { ...q, take: MAX_TAKE - 1 })))
      ? maximumTakeRefused()
      : e;
    return {
      error,
      sent: `GET /api/${f.recs.domain}/Query ${JSON.stringify(q)} -> ${res.status} ${res.text.slice(0, 300)}`,
    };
  }
}

/** Runs `numRuns` generated requests from the run's seed; on a failure, the shrunk request and the requirement it breaks. */
export async function runCombinations(t: Ctx, f: Fixture, numRuns: number): Promise<Verdict> {
  const seed = t.run.seed ?? Math.floor(Math.random() * 2 ** 31);
  const { refused, first } = await firstPass(t, f, seed, numRuns);
  if (!first) return {};
  // a failure: fast-check asks the failing requests again, first drawn first, and shrinks the
  // first that fails to the smallest request that still does (the last failing request is kept:
  // after shrinking, the shrunk counterexample's)
  let failing = '';
  const out = await fc.check(
    fc.asyncProperty(queryCases(f), async (c) => {
      const refusal = await askAndJudge(t, f, c);
      if (refusal) {
        failing = refusal.sent;
        throw refusal.error;
      }
    }),
    { seed, numRuns, endOnFailure: t.run.skipShrink === true, examples: refused.map((c) => [c] as [QueryCase]) },
  );
  // not refused when asked again (an answer that changes between two asks): the first refusal stands
  if (!out.failed) {
    if (!(first.error instanceof Broken)) throw first.error;
    return {
      broken: first.error.requirement,
      message: [
        first.error.message,
        `generated query failed (seed ${seed}: repeat with --seed ${seed}); the same request asked again was answered right`,
        `as sent: ${first.sent}`,
      ].join('\n'),
    };
  }
  const cause = out.errorInstance as Error | undefined;
  // not a wrong answer (a precondition, an unreachable target): every test of the run stops with it
  if (!(cause instanceof Broken)) throw cause ?? new Error('generated query run failed');
  return {
    broken: cause.requirement,
    message: [
      cause.message,
      `generated query failed (seed ${seed}: repeat with --seed ${seed}; ${out.numRuns} run(s), ${out.numShrinks} shrink(s))`,
      `shrunk request: ${JSON.stringify(out.counterexample?.[0])}`,
      `as sent: ${failing}`,
    ].join('\n'),
  };
}

let shared: { run: Promise<Verdict>; reads: Set<string>; exchanges: Ctx['exchanges'] } | undefined;

/**
 * One generated run per suite file, shared by the tests that each judge one requirement: the first
 * test to ask sets up the fixture and runs the property (its exchanges are recorded with it); each
 * test then fails only when the oracle found its own requirement broken, so one bug is one red line.
 * Every test that shares the run depended on the provider-state values the first one read: they are
 * added to its own (a missing value then names the cause in each of them), and so are the operations
 * its requests called (the fault runner selects tests by the operations they call).
 */
export async function sharedCombinations(t: Ctx, count: number, numRuns: number): Promise<Verdict> {
  const s = (shared ??= {
    run: (async () => runCombinations(t, await fixture(t, count), numRuns))(),
    reads: t.stateValuesRead,
    exchanges: t.exchanges,
  });
  try {
    return await s.run;
  } finally {
    for (const u of s.reads) t.stateValuesRead.add(u);
    // the verdict rests on the first test's requests: their operations count as this test's too
    if (s.exchanges !== t.exchanges) t.dependsOnRequests(s.exchanges);
  }
}
