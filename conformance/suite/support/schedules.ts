// Helpers shared by the proposal and schedule suite files: the schedule operations of spec 4.5
// through the typed client, reading schedule records back (one by ID through GET
// /api/{domain}/{id}, all of a proposal through GET /api/{domain}/Query with the state's filter),
// and shape checks that narrow the answers to the generated types; what an answer shows is judged
// by judge/sched.ts.
import { expect } from 'vitest';
import type { ProviderStates } from '../../../spec/generated/provider-states.js';
import type { ProposalParams } from './states.js';
import { expectFinding } from '../../src/suite-api/findings.js';
import { isObject } from '../../src/judge/finding.js';
import type { FetchResponseLike } from '../../src/suite-api/meaning.js';
import {
  type BatchKnowledge,
  type ScheduleBatch,
  type ScheduleResult,
  type UpsertMultiRequest,
  type UpsertMultiResponse,
  CANNOT_MODIFY,
  KINDS,
  judgeOrderNumbers,
  judgeResultMessages,
  resultsIn,
  saysRequired,
} from '../../src/judge/sched.js';
import { type Ctx, MAX_TAKE, judgedAlone, needsColumnsHonoured, needsMaximumTake, withQuery } from './request.js';

/** An UpsertMulti body; missing arrays are sent empty. */
export type Batch = Partial<UpsertMultiRequest>;
export type ProposalValues = ProviderStates['a proposal']['values'];
/** Field name to value of a record as read back (any JSON value). */
export type Row = Record<string, unknown>;

/** An answer of a schedule operation: the body is unknown until a shape check narrows it. */
export interface Answer {
  res: FetchResponseLike;
  status: number;
  body: unknown;
}

/** The ProposalLocation fields the spec names (2.5). */
export const LOC_FIELDS = ['LocationName', 'Address1', 'City', 'StateCode', 'ZipCode'] as const;

// ---------------------------------------------------------------------------------------------
// Operations

export function expect2xx(status: number) {
  expect(status >= 200 && status < 300, `a successful call answers 2xx (got ${status})`).toBe(true);
}

export function tag(): string {
  return Math.random().toString(36).slice(2, 8);
}

function answer(res: FetchResponseLike): Answer {
  return { res, status: res.response.status, body: res.data ?? res.error };
}

/**
 * The proposals a test set up open (no condition of section 3 holds: status open, set not bound, no
 * pending expiry-date change), by ID: the schedule helpers know which answers must not be refusals
 * for modifiability.
 */
const OPEN = new Map<number, string>();

/**
 * The state 'a proposal' with `params`; remembered as open when no non-modifiable condition is
 * asked for.
 */
export async function givenProposal(t: Ctx, params: ProposalParams): Promise<ProposalValues> {
  const p = await t.given('a proposal', params);
  if ((params.status ?? 'open') === 'open' && !params.boundSet && !params.pendingExpiryChange)
    OPEN.set(p.proposalId, p.scheduleDomain);
  return p;
}

/**
 * A proposal none of section 3's conditions holds for is modifiable: a schedule change of it
 * refused because it "cannot be modified" (every result failed with such a message) breaks the
 * conditions' rule (PROP-002, whose test shows an open proposal taking changes), not the rule of
 * the test that makes the change: judged as PROP-002's failure alone (one red line).
 */
function needsOpenModifiable(proposalId: number, a: Answer, what: string): void {
  if (!OPEN.has(proposalId)) return;
  const results = resultsOf(a.body);
  const refused =
    results.length > 0 && results.every((r) => r.IsSuccessful === false && CANNOT_MODIFY.test(String(r.Message)));
  if (!refused) return;
  judgedAlone('PROP-002', `${what} on open proposal ${proposalId} is not refused as not modifiable`, () =>
    expect(refused, `${what} on open proposal ${proposalId}: ${a.status} ${JSON.stringify(a.body).slice(0, 300)}`).toBe(
      false,
    ),
  );
}

/** The request and its path of each UpsertMulti answer (answer body -> what was sent), for the judges. */
const SENT = new WeakMap<object, Omit<ScheduleBatch, 'results'>>();

export async function upsertMulti(
  t: Ctx,
  proposalId: number,
  domain: string,
  body: Batch,
  isAtomic?: boolean,
): Promise<Answer> {
  const full: UpsertMultiRequest = {
    Inserts: body.Inserts ?? [],
    Updates: body.Updates ?? [],
    Deletes: body.Deletes ?? [],
  };
  const res = await t.api.POST('/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/UpsertMulti', {
    params: { path: { proposalId, domain }, query: isAtomic === undefined ? {} : { isAtomic } },
    body: full,
  });
  const a = answer(res);
  if (isObject(a.body))
    SENT.set(a.body, {
      proposalId,
      domain,
      atomic: isAtomic === true,
      atomicGiven: isAtomic !== undefined,
      input: full,
    });
  needsOpenModifiable(proposalId, a, 'UpsertMulti');
  return a;
}

export async function deleteSchedule(t: Ctx, proposalId: number, domain: string, scheduleId: number) {
  const res = await t.api.DELETE('/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}', {
    params: { path: { proposalId, domain, scheduleId } },
  });
  const a = answer(res);
  needsOpenModifiable(proposalId, a, 'DELETE');
  return a;
}

export async function reinstate(t: Ctx, proposalId: number, domain: string, scheduleId: number) {
  const res = await t.api.POST('/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/{scheduleId}/Reinstate', {
    params: { path: { proposalId, domain, scheduleId } },
  });
  return answer(res);
}

// ---------------------------------------------------------------------------------------------
// Shapes (SCHED-001, SCHED-009): assertion functions that narrow an answer to the generated type

/** Shape of one schedule operation result (2.5). */
export function expectResultShape(r: unknown, where: string): asserts r is ScheduleResult {
  expect(isObject(r), `${where} is a result object (${JSON.stringify(r)})`).toBe(true);
  const o = r as Record<string, unknown>;
  expect(typeof o.IsSuccessful, `${where}.IsSuccessful is a boolean`).toBe('boolean');
  expect(Number.isInteger(o.RecordID), `${where}.RecordID is an integer (${JSON.stringify(o.RecordID)})`).toBe(true);
  expect(o.OrderNumber === null || Number.isInteger(o.OrderNumber), `${where}.OrderNumber is an integer or null`).toBe(
    true,
  );
  // Every result carries a non-empty Message (SCHED-005): a rule of its own, which every test that
  // meets a result relies on; a result without one blocks the test by SCHED-005 (one red line)
  // instead of failing every requirement of every test that reads a result.
  judgedAlone('SCHED-005', `${where}.Message describes the outcome`, () =>
    expectFinding(judgeResultMessages([o]), 'SCHED-005', where),
  );
  expect(o.Warnings === null || Array.isArray(o.Warnings), `${where}.Warnings is null or a list`).toBe(true);
}

export function expectBatchShape(body: unknown): asserts body is UpsertMultiResponse {
  expect(isObject(body), `UpsertMulti answers an object (${JSON.stringify(body)})`).toBe(true);
  const o = body as Record<string, unknown>;
  for (const k of KINDS) {
    const list = o[k];
    expect(Array.isArray(list), `response.${k} is an array`).toBe(true);
    (list as unknown[]).forEach((r, i) => expectResultShape(r, `${k}[${i}]`));
  }
  expectOrderNumbersInRange(o as unknown as UpsertMultiResponse);
}

/**
 * Every result's OrderNumber is a distinct zero-based index into its own input array (SCHED-003,
 * judge/sched.ts). Every test that finds a result by its OrderNumber relies on it; an OrderNumber
 * outside its array (one-based numbering, a position across arrays) blocks the test by SCHED-003,
 * and a test that names SCHED-003 among several requirements then fails SCHED-003 alone (one
 * cause, one red line).
 */
function expectOrderNumbersInRange(body: UpsertMultiResponse): void {
  const b = judgedBatch(body);
  if (!b) return;
  judgedAlone('SCHED-003', 'each OrderNumber is the zero-based index of its item', () =>
    expectFinding(judgeOrderNumbers(b.batch), 'SCHED-003', 'UpsertMulti'),
  );
}

/**
 * An UpsertMulti answer with what was sent, as the judges of judge/sched.ts read it, and what the
 * suite knows: rule 1's preconditions hold where the test set the proposal up open and wrote to its
 * schedule domain, and the state's required field. Undefined for an answer upsertMulti did not send.
 */
export function judgedBatch(
  body: UpsertMultiResponse,
  requiredField?: string,
): { batch: ScheduleBatch; known: BatchKnowledge } | undefined {
  const sent = SENT.get(body);
  if (!sent) return undefined;
  const preconditionsHold = OPEN.get(Number(sent.proposalId)) === sent.domain;
  return { batch: { ...sent, results: body }, known: { preconditionsHold, requiredField } };
}

/**
 * An update names the fields it changes (spec 4.5: `Updates` items are `ID` and `Fields`), so an
 * update that leaves the required field out is not refused for it: UpsertMulti applies it
 * (SCHED-008, whose tests update other fields alone). Every test that changes another field relies
 * on it; a result refusing such an update with the message that the field is required (found by
 * its OrderNumber in `sent`) fails SCHED-008 alone in a test of SCHED-008 and blocks any other test
 * by it, instead of failing each requirement of the test (one red line).
 */
export function needsUnnamedFieldsKept(
  results: readonly ScheduleResult[],
  sent: ReadonlyArray<{ ID: number; Fields?: Row }>,
  required: string,
  where: string,
): void {
  for (const r of results) {
    const item = r.OrderNumber === null ? undefined : sent[r.OrderNumber];
    if (!item || r.IsSuccessful !== false || required in (item.Fields ?? {})) continue;
    if (!saysRequired(r.Message, required)) continue;
    judgedAlone('SCHED-008', `${where}: an update that leaves ${required} out is not refused for it`, () =>
      expect(r.IsSuccessful, `${where}: update ${r.OrderNumber} of ${JSON.stringify(item.Fields)}: ${r.Message}`).toBe(
        true,
      ),
    );
  }
}

/** The results of an answer that may or may not be a batch or a single result (refusals judged loosely). */
export const resultsOf = (body: unknown) => resultsIn(body) as Array<Record<string, unknown>>;

/** The result for input position `i`, found by OrderNumber; exactly one must exist. */
export function byOrder(results: ScheduleResult[], i: number, where: string): ScheduleResult {
  const hits = results.filter((r) => r.OrderNumber === i);
  expect(hits, `${where}: exactly one result with OrderNumber ${i} (got ${JSON.stringify(results)})`).toHaveLength(1);
  return hits[0];
}

// ---------------------------------------------------------------------------------------------
// Reading back

/** Only the given fields of a row (missing ones as undefined), for comparing what was written. */
export function pick(r: Row | null, fields: readonly string[] = LOC_FIELDS): Row | null {
  if (!r) return r;
  return Object.fromEntries(fields.map((f) => [f, r[f]]));
}

/** Where schedule records are read: their domain, and their key column when the state named it. */
export interface ScheduleTable {
  scheduleDomain: string;
  /** Optional value of 'a proposal' (since 1.1.0). */
  scheduleKey?: string;
}

/**
 * The last answer of each read the helpers below repeat (a record by ID, a proposal's listing), and
 * how often it was asked again in another form. A read that answers exactly as it did the last time
 * may be a copy kept from then (a cache not told of a change since); the same read in an equivalent
 * form never asked before (the columns in another order, another take that still fits the whole
 * set) then shows it: two reads of one moment that disagree mean the repeated one does not answer
 * the stored state. That is the read's rule (REC-002 for a read by ID, QRY-001 for a listing,
 * judged by their tests), so the test is blocked by it instead of failing its own requirement on a
 * stale answer (one red line). A read that changed is not asked again: it cannot be such a copy.
 */
const LAST_ANSWER = new Map<string, string>();
const ASKED_AGAIN = new Map<string, number>();

interface ReadAnswer {
  ok: boolean;
  data: unknown;
}

/** A comparable form of an answer: its success and, for a record or a listing, its values by key. */
function answerText(a: ReadAnswer): string {
  const sortKeys = (v: unknown): unknown =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sortKeys(v[k])]),
        )
      : Array.isArray(v)
        ? v.map(sortKeys).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1))
        : v;
  return JSON.stringify({ ok: a.ok, data: a.ok ? sortKeys(a.data) : undefined });
}

async function needsFreshRead(
  t: Ctx,
  what: string,
  got: ReadAnswer,
  again: (k: number) => Promise<ReadAnswer>,
  requirement = 'REC-002',
): Promise<void> {
  const text = answerText(got);
  const repeated = LAST_ANSWER.get(what) === text;
  LAST_ANSWER.set(what, text);
  if (!repeated) return;
  const k = (ASKED_AGAIN.get(what) ?? 0) + 1;
  ASKED_AGAIN.set(what, k);
  const other = answerText(await again(k));
  await t.needs(requirement, `${what} read again in another form agrees (the answer repeated the last one)`, async () =>
    expect(other, `${what}: the same read in another form, at the same moment`).toBe(text),
  );
}

/** `cols` rotated by k, reversed on every other turn: another order of the same columns. */
function rotated(cols: readonly string[], k: number): string[] {
  const n = cols.length;
  const r = cols.map((_, i) => cols[(i + k) % n]!);
  return Math.floor(k / n) % 2 === 1 ? r.reverse() : r;
}

/**
 * The schedule record's ProposalLocation fields, or null when it cannot be read. A record read
 * whose key (read along on the same answer) is another ID blocks the test by REC-002: the values of another record
 * say nothing about what the schedule operation did.
 */
export async function readRecord(
  t: Ctx,
  table: ScheduleTable,
  id: number,
  columns: readonly string[] = LOC_FIELDS,
): Promise<Row | null> {
  const domain = table.scheduleDomain;
  const key = table.scheduleKey;
  // the key column rides along on the same read, so the very answer used is the one judged
  const asked = key && !columns.includes(key) ? [...columns, key] : [...columns];
  const read = (columns: readonly string[]) =>
    t.api.GET('/api/{domain}/{id}', { params: { path: { domain, id }, query: { columns: columns.join(',') } } });
  const res = await read(asked);
  await needsFreshRead(t, `${domain}/${id}`, { ok: res.response.ok, data: res.data }, async (k) => {
    const again = await read(rotated(asked, k));
    return { ok: again.response.ok, data: again.data };
  });
  if (!res.response.ok) return null;
  const rec: unknown = res.data?.Record;
  if (!isObject(rec)) return null;
  if (key)
    await t.needs('REC-002', `read ${domain} ${id} by ID: the record with ${key} ${id}`, async () => {
      if (Number.isInteger(rec[key])) expect(rec[key], `GET /api/${domain}/${id}: the record's ${key}`).toBe(id);
    });
  // the values compared are the asked columns: an answer with others relies on COL-001 broken
  await needsColumnsHonoured(t, asked.join(','), [rec], `GET /api/${domain}/${id}`);
  if (key && !columns.includes(key)) delete rec[key];
  return rec;
}

/**
 * Every record of the proposal's schedule domain, by ID, with the ProposalLocation fields: GET
 * /api/{scheduleDomain}/Query with the state's filter. The set is compared whole before and after a
 * change, so an effect on a record the change did not name shows (a kept insert, a stray delete).
 */
/**
 * The proposal each schedule record of a provider state belongs to (record ID -> proposalId), over
 * the proposals this suite file has set up so far, and the proposals listed once already. A
 * proposal's listing holds only its own records; a record there that another proposal's state
 * created shows that the listing's filter does not restrict (QRY-009), which then blocks the test
 * instead of failing its schedule requirements. The first listing (before any change of its own)
 * judges every such record; a later one only those the test never named in a schedule request of
 * its own (a wrong change may have moved a record it named: that is the change's fault, judged by
 * the test). Later listings matter: records other tests create after the first one show there.
 */
const OWNER = new Map<string, number>();
const ownerKey = (domain: string, id: number) => `${domain}:${id}`;
const LISTED = new Set<number>();

export async function scheduleSet(t: Ctx, p: ProposalValues): Promise<Map<number, Row>> {
  // optional values of 'a proposal' (since 1.1.0): without them the whole set cannot be listed
  const key = p.scheduleKey ?? t.notApplicable("provider state 'a proposal' gave no scheduleKey (an optional value)");
  const filter =
    p.scheduleFilter ?? t.notApplicable("provider state 'a proposal' gave no scheduleFilter (an optional value)");
  const columns = [key, ...LOC_FIELDS].join(',');
  const listing = (take: number) =>
    withQuery(`/api/${encodeURIComponent(p.scheduleDomain)}/Query`, {
      [t.bindings.query.filter]: filter,
      columns,
      take,
      // from the first record, said explicitly: the listing does not rely on the default offset (QRY-007)
      [t.bindings.query.skip]: 0,
    });
  const path = listing(MAX_TAKE);
  for (const id of p.locationIds) OWNER.set(ownerKey(p.scheduleDomain, id), p.proposalId);
  const first = !LISTED.has(p.proposalId);
  LISTED.add(p.proposalId);
  // Listing is a step the tests need, documented by the domain query (QRY-001): when it fails, a
  // test is blocked by it; what the listing holds is judged by the test.
  const set = await t.needs('QRY-001', `list the ${p.scheduleDomain} records of proposal ${p.proposalId}`, async () => {
    const res = await t.raw(path);
    await needsMaximumTake(t, `GET ${p.scheduleDomain}/Query`, res, MAX_TAKE, () => t.raw(listing(MAX_TAKE - 1)));
    expect(res.status, `GET ${path}: ${res.text.slice(0, 300)}`).toBe(200);
    // a listing of the proposal's few records in another take that still holds them all
    const answer = (r: typeof res): ReadAnswer => ({
      ok: r.status === 200,
      data: isObject(r.json) ? r.json.List : undefined,
    });
    await needsFreshRead(
      t,
      `the ${p.scheduleDomain} listing of proposal ${p.proposalId}`,
      answer(res),
      async (k) => answer(await t.raw(listing(MAX_TAKE - 1 - (k % 50)))),
      'QRY-001',
    );
    const list: unknown = isObject(res.json) ? res.json.List : undefined;
    expect(Array.isArray(list), `GET ${path}: List is an array`).toBe(true);
    const rows = (list as unknown[]).filter(isObject);
    // A proposal of the suite has far fewer records than one page.
    expect(rows.length, `the records of proposal ${p.proposalId} fit in one page`).toBeLessThan(100);
    // before any change of its own, the listing holds every record the state created for it
    if (first) {
      const listed = new Set(rows.map((row) => row[key]));
      const missing = p.locationIds.filter((id) => !listed.has(id));
      expect(missing, `records the state created for proposal ${p.proposalId}, not listed`).toEqual([]);
    }
    const out = new Map<number, Row>();
    for (const row of rows) {
      const id = row[key];
      expect(Number.isInteger(id), `${key} of a listed record is an integer: ${JSON.stringify(row)}`).toBe(true);
      expect(out.has(id as number), `record ${String(id)} is listed once`).toBe(false);
      out.set(id as number, pick(row) as Row);
    }
    return out;
  });
  const named = first ? new Set<number>() : scheduleIdsNamed(t);
  const ownerOf = (id: number) => OWNER.get(ownerKey(p.scheduleDomain, id));
  const foreign = [...set.keys()].filter(
    (id) => !p.locationIds.includes(id) && ownerOf(id) !== undefined && ownerOf(id) !== p.proposalId && !named.has(id),
  );
  if (foreign.length)
    await t.needs('QRY-009', `the filter ${filter} lists only proposal ${p.proposalId}'s records`, async () => {
      expect(
        foreign,
        `records of other proposals listed by the filter of proposal ${p.proposalId} (record -> proposal): ${foreign
          .map((id) => `${id} -> ${ownerOf(id)}`)
          .join(', ')}`,
      ).toEqual([]);
    });
  return set;
}

/**
 * The schedule record IDs this test named in requests of its own so far: those it updated or
 * deleted through UpsertMulti (Updates[].ID, Deletes[].ID), and the last path segment of a DELETE or
 * Reinstate of one record.
 */
function scheduleIdsNamed(t: Ctx): Set<number> {
  const ids = new Set<number>();
  for (const x of t.exchanges) {
    if (x.method === 'GET' || !x.url.includes('/Schedules/')) continue;
    const last = Number(new URL(x.url).pathname.split('/').pop());
    if (Number.isInteger(last)) ids.add(last);
    let body: unknown;
    try {
      body = x.requestBody ? JSON.parse(x.requestBody) : undefined;
    } catch {
      continue;
    }
    if (!isObject(body)) continue;
    // an update and a delete alike name their record as { ID } (spec 4.5)
    for (const item of [body.Updates, body.Deletes].flatMap((a) => (Array.isArray(a) ? a : [])))
      if (isObject(item) && Number.isInteger(item.ID)) ids.add(item.ID as number);
  }
  return ids;
}

/** A record set as a sorted plain object, for readable comparisons. */
export function asObject(set: Map<number, Row>): Record<string, Row> {
  return Object.fromEntries([...set.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), v]));
}
