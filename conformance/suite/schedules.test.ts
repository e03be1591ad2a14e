// Schedule records of proposals (spec 2.5, 3, 4.5, 7): SCHED-*.
//
// Proposals and their schedule records come from the provider state 'a proposal'; the schedule
// domain and the required field come from its values (`scheduleDomain`, `requiredField`). The
// ProposalLocation field names (LocationName, Address1, City, StateCode, ZipCode) are the spec's own.
// Schedule records are read back through the generic record route GET /api/{domain}/{id}.
import { expect } from 'vitest';
import { conformance } from '../src/dsl.js';
import { expectMentions, isRefusal } from '../src/meaning.js';
import { type Ctx } from './support/request.js';
import {
  CANNOT_MODIFY,
  LOC_FIELDS,
  deleteSchedule,
  expect2xx,
  readRecord,
  reinstate,
  tag,
  upsertMulti,
  type Row,
} from './support/schedules.js';
import type { ProposalParams } from './support/states.js';

type Result = {
  IsSuccessful: boolean;
  RecordID: number;
  OrderNumber: number | null;
  Message: string;
  Warnings: unknown[] | null;
};

/** An ID that no schedule record has. */
const NO_SUCH_ID = 987_654_321;
const REQUIRED = /required|must|missing|empty/i;

function location(name: string | undefined, n: string): Record<string, unknown> {
  const f: Record<string, unknown> = { Address1: `${n} Elm St`, City: `City ${n}`, StateCode: 'WI', ZipCode: '53703' };
  if (name !== undefined) f.LocationName = name;
  return f;
}

async function proposal(t: Ctx, params: ProposalParams) {
  const p = await t.given('a proposal', params);
  expect(typeof p.scheduleDomain, 'state "a proposal" names its schedule domain').toBe('string');
  return p;
}

function pick(r: Row | null, fields: readonly string[] = LOC_FIELDS): Row | null {
  if (!r) return r;
  return Object.fromEntries(fields.map((f) => [f, r[f]]));
}

/** Shape of one schedule operation result (2.5). */
function expectResultShape(r: any, where: string) {
  expect(r, `${where} is a result object`).toBeTypeOf('object');
  expect(typeof r.IsSuccessful, `${where}.IsSuccessful is a boolean`).toBe('boolean');
  expect(Number.isInteger(r.RecordID), `${where}.RecordID is an integer (${JSON.stringify(r.RecordID)})`).toBe(true);
  expect(r.OrderNumber === null || Number.isInteger(r.OrderNumber), `${where}.OrderNumber is an integer or null`).toBe(
    true,
  );
  expect(typeof r.Message, `${where}.Message is a string`).toBe('string');
  expect((r.Message as string).trim().length, `${where}.Message describes the outcome`).toBeGreaterThan(0);
  expect(r.Warnings === null || Array.isArray(r.Warnings), `${where}.Warnings is null or a list`).toBe(true);
}

function expectBatchShape(body: any) {
  expect(body, 'UpsertMulti answers an object').toBeTypeOf('object');
  for (const k of ['Inserts', 'Updates', 'Deletes']) {
    expect(Array.isArray(body?.[k]), `response.${k} is an array`).toBe(true);
    (body[k] as any[]).forEach((r, i) => expectResultShape(r, `${k}[${i}]`));
  }
}

/** The result for input position `i`, found by OrderNumber; exactly one must exist. */
function byOrder(results: Result[], i: number, where: string): Result {
  const hits = results.filter((r) => r.OrderNumber === i);
  expect(hits, `${where}: exactly one result with OrderNumber ${i} (got ${JSON.stringify(results)})`).toHaveLength(1);
  return hits[0];
}

function expectOrderNumbers(results: Result[], expected: number[], where: string) {
  expect(
    results.map((r) => r.OrderNumber).sort((a, b) => (a ?? -1) - (b ?? -1)),
    `${where} OrderNumbers`,
  ).toEqual(expected);
}

// ---------------------------------------------------------------------------------------------
// Core: UpsertMulti

conformance(
  {
    id: 'schedules.upsertmulti-all-kinds',
    title:
      'UpsertMulti applies inserts, updates and deletes and answers one result per item with its zero-based OrderNumber',
    requirements: [
      'SCHED-001',
      'SCHED-002',
      'SCHED-003',
      'SCHED-005',
      'SCHED-007',
      'SCHED-008',
      'SCHED-009',
      'SCHED-012',
    ],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 4 });
    const [l0, l1, l2, l3] = p.locationIds as number[];
    const x = tag();
    const inserts = [location(`Ins A ${x}`, 'a'), location(`Ins B ${x}`, 'b'), location(`Ins C ${x}`, 'c')];
    // Updates name the records in an order that differs from their IDs.
    const updates = [
      { ID: l1, Fields: { LocationName: `Upd one ${x}`, City: 'Madison' } },
      { ID: l0, Fields: { LocationName: `Upd zero ${x}` } },
    ];
    const deletes = [{ ID: l3 }, { ID: l2 }];

    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: inserts.map((Fields) => ({ Fields })),
      Updates: updates,
      Deletes: deletes,
    });
    expect2xx(r.status);
    expectBatchShape(r.body);
    const body = r.body as { Inserts: Result[]; Updates: Result[]; Deletes: Result[] };
    expect(body.Inserts).toHaveLength(3);
    expect(body.Updates).toHaveLength(2);
    expect(body.Deletes).toHaveLength(2);
    expectOrderNumbers(body.Inserts, [0, 1, 2], 'Inserts');
    expectOrderNumbers(body.Updates, [0, 1], 'Updates');
    expectOrderNumbers(body.Deletes, [0, 1], 'Deletes');

    const newIds: number[] = [];
    for (let i = 0; i < inserts.length; i++) {
      const res = byOrder(body.Inserts, i, 'Inserts');
      expect(res.IsSuccessful, `insert ${i} succeeded: ${res.Message}`).toBe(true);
      expect(res.RecordID, `insert ${i} reports the new record's ID`).toBeGreaterThan(0);
      newIds.push(res.RecordID);
      // The record at RecordID holds exactly the values of input item i.
      expect(pick(await readRecord(t, p.scheduleDomain, res.RecordID)), `record of insert ${i}`).toEqual(inserts[i]);
    }
    expect(new Set(newIds).size, 'inserted records have distinct IDs').toBe(3);
    for (const id of newIds) expect(p.locationIds).not.toContain(id);

    for (let i = 0; i < updates.length; i++) {
      const res = byOrder(body.Updates, i, 'Updates');
      expect(res.IsSuccessful, `update ${i} succeeded: ${res.Message}`).toBe(true);
      expect(res.RecordID, `update ${i} reports the updated record's ID`).toBe(updates[i].ID);
    }
    const u1 = await readRecord(t, p.scheduleDomain, l1);
    expect(u1).toMatchObject({ LocationName: `Upd one ${x}`, City: 'Madison' });
    const u0 = await readRecord(t, p.scheduleDomain, l0);
    expect(u0?.LocationName).toBe(`Upd zero ${x}`);

    for (let i = 0; i < deletes.length; i++) {
      const res = byOrder(body.Deletes, i, 'Deletes');
      expect(res.IsSuccessful, `delete ${i} succeeded: ${res.Message}`).toBe(true);
      expect(res.RecordID, `delete ${i} reports the deleted record's ID`).toBe(deletes[i].ID);
      // Quote: the delete is permanent.
      expect(
        await readRecord(t, p.scheduleDomain, deletes[i].ID),
        `deleted record ${deletes[i].ID} is gone`,
      ).toBeNull();
    }
  },
);

conformance(
  {
    id: 'schedules.upsertmulti-empty-arrays',
    title: 'UpsertMulti accepts empty arrays and answers empty result arrays for them',
    requirements: ['SCHED-008', 'SCHED-009'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Application', locations: 2 });
    const [l0, l1] = p.locationIds as number[];
    const x = tag();

    const onlyInsert = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: location(`Only ${x}`, 'o') }],
    });
    expect2xx(onlyInsert.status);
    expectBatchShape(onlyInsert.body);
    expect(onlyInsert.body.Inserts).toHaveLength(1);
    expect(onlyInsert.body.Updates).toEqual([]);
    expect(onlyInsert.body.Deletes).toEqual([]);
    expect(onlyInsert.body.Inserts[0].IsSuccessful).toBe(true);
    expect((await readRecord(t, p.scheduleDomain, onlyInsert.body.Inserts[0].RecordID))?.LocationName).toBe(
      `Only ${x}`,
    );

    const onlyUpdate = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Updates: [{ ID: l0, Fields: { City: `Town ${x}` } }],
    });
    expect2xx(onlyUpdate.status);
    expectBatchShape(onlyUpdate.body);
    expect(onlyUpdate.body.Inserts).toEqual([]);
    expect(onlyUpdate.body.Deletes).toEqual([]);
    expect(onlyUpdate.body.Updates).toHaveLength(1);
    expect(onlyUpdate.body.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: l0, OrderNumber: 0 });
    expect((await readRecord(t, p.scheduleDomain, l0))?.City).toBe(`Town ${x}`);

    const onlyDelete = await upsertMulti(t, p.proposalId, p.scheduleDomain, { Deletes: [{ ID: l1 }] });
    expect2xx(onlyDelete.status);
    expectBatchShape(onlyDelete.body);
    expect(onlyDelete.body.Inserts).toEqual([]);
    expect(onlyDelete.body.Updates).toEqual([]);
    expect(onlyDelete.body.Deletes).toHaveLength(1);
    expect(onlyDelete.body.Deletes[0]).toMatchObject({ IsSuccessful: true, RecordID: l1, OrderNumber: 0 });
    expect(await readRecord(t, p.scheduleDomain, l1)).toBeNull();

    const nothing = await upsertMulti(t, p.proposalId, p.scheduleDomain, {});
    expect2xx(nothing.status);
    expect(nothing.body).toMatchObject({ Inserts: [], Updates: [], Deletes: [] });
  },
);

conformance(
  {
    id: 'schedules.non-atomic-partial-failure',
    title: 'isAtomic=false: failed items are reported, the others are committed, every item is listed',
    requirements: ['SCHED-011', 'SCHED-012', 'SCHED-016', 'SCHED-017', 'SCHED-023', 'SCHED-002', 'SCHED-003'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Renewal', locations: 3 });
    const required: string = p.requiredField;
    const [l0, l1, l2] = p.locationIds as number[];
    const before1 = await readRecord(t, p.scheduleDomain, l1);
    const x = tag();
    const inserts = [location(`Good A ${x}`, 'a'), location(undefined, 'missing'), location(`Good C ${x}`, 'c')];
    const r = await upsertMulti(
      t,
      p.proposalId,
      p.scheduleDomain,
      {
        Inserts: inserts.map((Fields) => ({ Fields })),
        Updates: [
          { ID: l1, Fields: { [required]: '' } },
          { ID: l0, Fields: { City: `Changed ${x}` } },
        ],
        Deletes: [{ ID: NO_SUCH_ID }, { ID: l2 }],
      },
      false,
    );
    // Status of a batch with failed items: not shown; the body is judged.
    expectBatchShape(r.body);
    const body = r.body as { Inserts: Result[]; Updates: Result[]; Deletes: Result[] };
    expect(body.Inserts, 'every insert is listed').toHaveLength(3);
    expect(body.Updates, 'every update is listed').toHaveLength(2);
    expect(body.Deletes, 'every delete is listed').toHaveLength(2);

    // The failed insert: IsSuccessful false, RecordID 0, message says LocationName is required.
    const badIns = byOrder(body.Inserts, 1, 'Inserts');
    expect(badIns.IsSuccessful).toBe(false);
    expect(badIns.RecordID).toBe(0);
    expectMentions(badIns.Message, required, REQUIRED);
    // The good inserts are committed.
    for (const i of [0, 2]) {
      const ok = byOrder(body.Inserts, i, 'Inserts');
      expect(ok.IsSuccessful, `insert ${i}: ${ok.Message}`).toBe(true);
      expect(pick(await readRecord(t, p.scheduleDomain, ok.RecordID))).toEqual(inserts[i]);
    }

    // The failed update: IsSuccessful false, RecordID of the record, name unchanged.
    const badUpd = byOrder(body.Updates, 0, 'Updates');
    expect(badUpd.IsSuccessful).toBe(false);
    expect(badUpd.RecordID).toBe(l1);
    expectMentions(badUpd.Message, required, REQUIRED);
    expect(await readRecord(t, p.scheduleDomain, l1), 'the record keeps its values').toEqual(before1);
    const okUpd = byOrder(body.Updates, 1, 'Updates');
    expect(okUpd).toMatchObject({ IsSuccessful: true, RecordID: l0 });
    expect((await readRecord(t, p.scheduleDomain, l0))?.City).toBe(`Changed ${x}`);

    // The failed delete: RecordID 0; the good one is applied.
    const badDel = byOrder(body.Deletes, 0, 'Deletes');
    expect(badDel.IsSuccessful).toBe(false);
    expect(badDel.RecordID).toBe(0);
    const okDel = byOrder(body.Deletes, 1, 'Deletes');
    expect(okDel).toMatchObject({ IsSuccessful: true, RecordID: l2 });
    expect(await readRecord(t, p.scheduleDomain, l2)).toBeNull();
  },
);

conformance(
  {
    id: 'schedules.default-is-non-atomic',
    title: 'without isAtomic a failing item does not stop the others, and every item is listed',
    requirements: ['SCHED-013', 'SCHED-011', 'SCHED-012'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Rewrite', locations: 1 });
    const [l0] = p.locationIds as number[];
    const x = tag();
    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: location(undefined, 'bad') }, { Fields: location(`Kept ${x}`, 'k') }],
      Updates: [{ ID: l0, Fields: { LocationName: `Renamed ${x}` } }],
    });
    // Status of a batch with failed items: not shown; the body is judged.
    expectBatchShape(r.body);
    expect(r.body.Inserts).toHaveLength(2);
    expect(r.body.Updates).toHaveLength(1);
    expect(byOrder(r.body.Inserts, 0, 'Inserts')).toMatchObject({ IsSuccessful: false, RecordID: 0 });
    const kept = byOrder(r.body.Inserts, 1, 'Inserts');
    expect(kept.IsSuccessful).toBe(true);
    expect((await readRecord(t, p.scheduleDomain, kept.RecordID))?.LocationName).toBe(`Kept ${x}`);
    expect(byOrder(r.body.Updates, 0, 'Updates')).toMatchObject({ IsSuccessful: true, RecordID: l0 });
    expect((await readRecord(t, p.scheduleDomain, l0))?.LocationName).toBe(`Renamed ${x}`);
  },
);

conformance(
  {
    id: 'schedules.atomic-rollback',
    title: 'isAtomic=true with failing items: nothing is applied and only the failed items are answered',
    requirements: ['SCHED-014', 'SCHED-015', 'SCHED-003', 'SCHED-016', 'SCHED-017'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 3 });
    const required: string = p.requiredField;
    const [l0, l1, l2] = p.locationIds as number[];
    const before = await Promise.all([l0, l1, l2].map((id) => readRecord(t, p.scheduleDomain, id)));
    const x = tag();
    const r = await upsertMulti(
      t,
      p.proposalId,
      p.scheduleDomain,
      {
        Inserts: [
          { Fields: location(`Atomic A ${x}`, 'a') },
          { Fields: location(undefined, 'bad') },
          { Fields: location(`Atomic C ${x}`, 'c') },
        ],
        Updates: [
          { ID: l0, Fields: { LocationName: `Atomic rename ${x}` } },
          { ID: l1, Fields: { [required]: '' } },
        ],
        Deletes: [{ ID: l2 }],
      },
      true,
    );
    expectBatchShape(r.body);
    const body = r.body as { Inserts: Result[]; Updates: Result[]; Deletes: Result[] };
    // Only the failed items, each with its own position.
    expect(body.Inserts, 'only the failed insert is answered').toHaveLength(1);
    expect(body.Inserts[0]).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: 1 });
    expectMentions(body.Inserts[0].Message, required, REQUIRED);
    expect(body.Updates, 'only the failed update is answered').toHaveLength(1);
    expect(body.Updates[0]).toMatchObject({ IsSuccessful: false, RecordID: l1, OrderNumber: 1 });
    expectMentions(body.Updates[0].Message, required, REQUIRED);
    expect(body.Deletes, 'the delete would have succeeded, so it is left out').toEqual([]);

    // Rolled back: the update and the delete did not happen.
    const after = await Promise.all([l0, l1, l2].map((id) => readRecord(t, p.scheduleDomain, id)));
    expect(after, 'every existing record is unchanged').toEqual(before);
  },
);

conformance(
  {
    id: 'schedules.other-proposal-records',
    title: 'updates and deletes naming schedule records of another proposal or another domain fail and change nothing',
    requirements: ['SCHED-010', 'SCHED-002'],
    mutates: true,
  },
  async (t) => {
    const a = await proposal(t, { type: 'Quote', locations: 1 });
    const b = await proposal(t, { type: 'Quote', locations: 2 });
    const [b0, b1] = b.locationIds as number[];
    const before = await Promise.all([b0, b1].map((id) => readRecord(t, b.scheduleDomain, id)));
    expect(before[0] && before[1], 'records of proposal B are readable').toBeTruthy();

    const r = await upsertMulti(
      t,
      a.proposalId,
      a.scheduleDomain,
      { Updates: [{ ID: b0, Fields: { LocationName: 'Hijacked' } }], Deletes: [{ ID: b1 }] },
      false,
    );
    if (r.status >= 200 && r.status < 300) {
      expectBatchShape(r.body);
      expect(r.body.Updates).toHaveLength(1);
      expect(r.body.Deletes).toHaveLength(1);
      expect(r.body.Updates[0].IsSuccessful, "update of another proposal's record fails").toBe(false);
      expect(r.body.Deletes[0].IsSuccessful, "delete of another proposal's record fails").toBe(false);
      expect(r.body.Deletes[0].RecordID, 'a failed delete reports RecordID 0').toBe(0);
    }
    // Single DELETE through proposal A of a record of proposal B.
    const d = await deleteSchedule(t, a.proposalId, a.scheduleDomain, b1);
    expect(
      isRefusal(d.res as any),
      `DELETE of another proposal's record is refused (${d.status} ${JSON.stringify(d.body)})`,
    ).toBe(true);
    if (d.body && typeof d.body === 'object' && 'IsSuccessful' in d.body) expect(d.body.RecordID).toBe(0);

    // Another schedule domain of proposal B's own proposal: IDs of ProposalLocation records do not
    // name records of the other domain.
    if (typeof b.otherScheduleDomain === 'string' && b.otherScheduleDomain !== b.scheduleDomain) {
      const o = await upsertMulti(t, b.proposalId, b.otherScheduleDomain, {
        Updates: [{ ID: b0, Fields: { LocationName: 'Crossed' } }],
        Deletes: [{ ID: b1 }],
      });
      if (o.status >= 200 && o.status < 300) {
        for (const k of ['Updates', 'Deletes'])
          for (const item of o.body?.[k] ?? []) expect(item.IsSuccessful).toBe(false);
      }
    }

    const after = await Promise.all([b0, b1].map((id) => readRecord(t, b.scheduleDomain, id)));
    expect(after, "proposal B's records are unchanged").toEqual(before);
  },
);

conformance(
  {
    id: 'schedules.invalid-schedule-domain',
    title:
      'UpsertMulti on a domain that is not a schedule domain of the proposal reports no success and changes nothing',
    requirements: ['SCHED-006'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 1 });
    const [l0] = p.locationIds as number[];
    const claims = await t.given('records', { domain: 'Claim', count: 1 });
    const claimId = claims.ids[0] as number;
    const locBefore = await readRecord(t, p.scheduleDomain, l0);

    for (const domain of ['Claim', 'Contact', 'NoSuchScheduleDomain']) {
      const r = await upsertMulti(t, p.proposalId, domain, {
        Inserts: [{ Fields: location(`Wrong domain ${domain}`, 'w') }],
        Updates: [{ ID: l0, Fields: { LocationName: `Wrong ${domain}` } }],
        Deletes: [{ ID: domain === 'Claim' ? claimId : l0 }],
      });
      const ok = r.status >= 200 && r.status < 300;
      if (ok) {
        for (const k of ['Inserts', 'Updates', 'Deletes']) {
          for (const item of (r.body?.[k] ?? []) as Result[]) {
            expect(item.IsSuccessful, `${domain}: ${k} item reports no success`).toBe(false);
          }
        }
      }
    }
    const claim = await t.api.GET('/api/{domain}/{id}', { params: { path: { domain: 'Claim', id: claimId } } } as any);
    expect(claim.response.status, 'the Claim named in Deletes still exists').toBe(200);
    expect(await readRecord(t, p.scheduleDomain, l0), 'the location is unchanged').toEqual(locBefore);
  },
);

// ---------------------------------------------------------------------------------------------
// Core: single DELETE and Reinstate

conformance(
  {
    id: 'schedules.single-delete-result',
    title: 'the single DELETE answers one result with OrderNumber null and the record ID',
    requirements: ['SCHED-004', 'SCHED-001', 'SCHED-002', 'SCHED-005', 'SCHED-022'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 2 });
    const [l0, l1] = p.locationIds as number[];
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(d.status, 'DELETE succeeds').toBeGreaterThanOrEqual(200);
    expect(d.status).toBeLessThan(300);
    expectResultShape(d.body, 'DELETE result');
    expect(d.body).toMatchObject({ IsSuccessful: true, RecordID: l0, OrderNumber: null });
    expect(await readRecord(t, p.scheduleDomain, l0)).toBeNull();
    expect(await readRecord(t, p.scheduleDomain, l1), 'the other record stays').not.toBeNull();

    // A failed single delete (the record is already gone) reports RecordID 0.
    const again = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(isRefusal(again.res as any), 'deleting a deleted record is refused').toBe(true);
    if (again.body && typeof again.body === 'object' && 'IsSuccessful' in again.body) {
      expect(again.body.RecordID).toBe(0);
      expect(again.body.OrderNumber ?? null).toBeNull();
    }
  },
);

conformance(
  {
    id: 'schedules.delete-non-modifiable',
    title: 'DELETE on a non-modifiable proposal answers the documented failure result and keeps the record',
    requirements: ['SCHED-018', 'SCHED-001'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', status: 'R', locations: 1 });
    const [l0] = p.locationIds as number[];
    const before = await readRecord(t, p.scheduleDomain, l0);
    expect(before).not.toBeNull();
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expectResultShape(d.body, 'DELETE result');
    expect(d.body).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null, Warnings: null });
    expectMentions(d.body.Message, String(p.proposalId), CANNOT_MODIFY);
    expect(await readRecord(t, p.scheduleDomain, l0), 'the record stays as it was').toEqual(before);
  },
);

conformance(
  {
    id: 'schedules.endorsement-soft-delete-reinstate',
    title: 'DELETE on an Endorsement soft-deletes; Reinstate makes the record active again with its values',
    requirements: ['SCHED-019', 'SCHED-021', 'SCHED-002', 'SCHED-004'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Endorsement', locations: 2 });
    const [l0, l1] = p.locationIds as number[];
    const before = await readRecord(t, p.scheduleDomain, l0);
    const other = await readRecord(t, p.scheduleDomain, l1);
    expect(before).not.toBeNull();

    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(d.status).toBeGreaterThanOrEqual(200);
    expect(d.status).toBeLessThan(300);
    expectResultShape(d.body, 'DELETE result');
    expect(d.body).toMatchObject({ IsSuccessful: true, RecordID: l0, OrderNumber: null });

    const r = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(
      isRefusal(r.res as any),
      `Reinstate of the soft-deleted record is accepted (${r.status} ${JSON.stringify(r.body)})`,
    ).toBe(false);

    expect(await readRecord(t, p.scheduleDomain, l0), 'the reinstated record has its values').toEqual(before);
    expect(await readRecord(t, p.scheduleDomain, l1), 'the other record is untouched').toEqual(other);
    // Active again: it can be changed like any record of the proposal.
    const x = tag();
    const u = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Updates: [{ ID: l0, Fields: { City: `Back ${x}` } }],
    });
    expect2xx(u.status);
    expect(u.body.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: l0 });
    expect((await readRecord(t, p.scheduleDomain, l0))?.City).toBe(`Back ${x}`);
    // And deleted again (soft) like an active record.
    const d2 = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(d2.body).toMatchObject({ IsSuccessful: true, RecordID: l0 });
  },
);

for (const type of ['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue'] as const) {
  conformance(
    {
      id: `schedules.permanent-delete-${type.toLowerCase()}`,
      title: `DELETE on a ${type} proposal deletes the record permanently: it cannot be read or reinstated`,
      requirements: ['SCHED-022', 'SCHED-004'],
      mutates: true,
    },
    async (t) => {
      const p = await proposal(t, { type, locations: 2 });
      const [l0, l1] = p.locationIds as number[];
      const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
      expect(d.status).toBeGreaterThanOrEqual(200);
      expect(d.status).toBeLessThan(300);
      expect(d.body).toMatchObject({ IsSuccessful: true, RecordID: l0, OrderNumber: null });
      expect(await readRecord(t, p.scheduleDomain, l0), 'the record cannot be read').toBeNull();
      const r = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
      expect(
        isRefusal(r.res as any),
        `Reinstate of a permanently deleted record is refused (${r.status} ${JSON.stringify(r.body)})`,
      ).toBe(true);
      expect(await readRecord(t, p.scheduleDomain, l0), 'still gone after the Reinstate attempt').toBeNull();
      expect(await readRecord(t, p.scheduleDomain, l1), 'the other record stays').not.toBeNull();
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Implementation-defined (the reference's choices)

async function refQuery(t: Ctx, domain: string, filter: string, columns: string): Promise<Row[]> {
  const qs = new URLSearchParams({ [t.bindings.query.filter]: filter, columns, take: '100' });
  const res = await t.raw(`/api/${domain}/Query?${qs}`);
  expect(res.status, `GET /api/${domain}/Query?${qs}`).toBe(200);
  return ((res.json as any)?.List ?? []) as Row[];
}

conformance(
  {
    id: 'schedules.ref-reinstate-answer',
    title:
      'reference: Reinstate answers a result with OrderNumber null; a soft-deleted record reads as not found until reinstated; 409 when not soft-deleted',
    requirements: ['SCHED-024'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Endorsement', locations: 1 });
    const [l0] = p.locationIds as number[];
    const notDeleted = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(notDeleted.status, 'Reinstate of an active record').toBe(409);
    expect(notDeleted.body).toMatchObject({ IsSuccessful: false });

    expect((await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0)).status).toBe(200);
    const hidden = await t.raw(`/api/${p.scheduleDomain}/${l0}?columns=LocationName`);
    expect(hidden.status, 'a soft-deleted record is not active: 404 on a read').toBe(404);
    expect(hidden.json).toMatchObject({ code: 'RecordNotFound' });

    const r = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(r.status).toBe(200);
    expectResultShape(r.body, 'Reinstate result');
    expect(r.body).toMatchObject({ IsSuccessful: true, RecordID: l0, OrderNumber: null });
    const back = await readRecord(t, p.scheduleDomain, l0, ['LocationName', 'IsDeleted']);
    expect(back, 'a reinstated record reads again').not.toBeNull();
    expect(Boolean(back?.IsDeleted), 'IsDeleted after Reinstate').toBe(false);

    const again = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ IsSuccessful: false, OrderNumber: null });

    const q = await proposal(t, { type: 'Quote', locations: 1 });
    const [q0] = q.locationIds as number[];
    expect((await deleteSchedule(t, q.proposalId, q.scheduleDomain, q0)).status).toBe(200);
    const gone = await reinstate(t, q.proposalId, q.scheduleDomain, q0);
    expect(gone.status, 'Reinstate of a permanently deleted record (not soft-deleted)').toBe(409);
    expect(gone.body).toMatchObject({ IsSuccessful: false, OrderNumber: null });
  },
);

conformance(
  {
    id: 'schedules.ref-non-modifiable-409',
    title: 'reference: DELETE and UpsertMulti on a non-modifiable proposal answer 409 with every item failed',
    requirements: ['SCHED-025'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', status: 'B', locations: 2 });
    const [l0, l1] = p.locationIds as number[];
    const before = await Promise.all([l0, l1].map((id) => readRecord(t, p.scheduleDomain, id)));
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(d.status).toBe(409);
    expect(d.body).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null, Warnings: null });

    const u = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: location('Never', 'n') }],
      Updates: [{ ID: l0, Fields: { LocationName: 'Never' } }],
      Deletes: [{ ID: l1 }],
    });
    expect(u.status).toBe(409);
    expectBatchShape(u.body);
    for (const k of ['Inserts', 'Updates', 'Deletes']) {
      expect(u.body[k], `every ${k} item is answered`).toHaveLength(1);
      expect(u.body[k][0]).toMatchObject({ IsSuccessful: false, OrderNumber: 0 });
      expectMentions(u.body[k][0].Message, String(p.proposalId), CANNOT_MODIFY);
    }
    expect(await Promise.all([l0, l1].map((id) => readRecord(t, p.scheduleDomain, id)))).toEqual(before);
  },
);

conformance(
  {
    id: 'schedules.ref-policy-changes-and-events',
    title: 'reference: an Endorsement delete records a PolicyChange, a permanent delete records Data Entry Events',
    requirements: ['SCHED-026'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const e = await proposal(t, { type: 'Endorsement', locations: 1 });
    const [e0] = e.locationIds as number[];
    expect((await deleteSchedule(t, e.proposalId, e.scheduleDomain, e0)).status).toBe(200);
    const changes = await refQuery(
      t,
      'PolicyChange',
      `ProposalID:eq:${e.proposalId}`,
      'ProposalID,ScheduleDomain,ScheduleID,ChangeType',
    );
    expect(changes, 'one policy change entry tracks the soft delete').toHaveLength(1);
    expect(changes[0]).toMatchObject({ ProposalID: e.proposalId, ScheduleDomain: e.scheduleDomain, ScheduleID: e0 });
    expect(
      await refQuery(t, 'DataEntryEvent', `ProposalID:eq:${e.proposalId}`, 'RecordID'),
      'no Data Entry Event on an Endorsement',
    ).toHaveLength(0);

    const q = await proposal(t, { type: 'Quote', locations: 1 });
    const [q0] = q.locationIds as number[];
    expect((await deleteSchedule(t, q.proposalId, q.scheduleDomain, q0)).status).toBe(200);
    const events = await refQuery(
      t,
      'DataEntryEvent',
      `ProposalID:eq:${q.proposalId}`,
      'EventName,Domain,RecordID,ProposalID',
    );
    expect(events.length, 'Data Entry Events fired after the permanent delete').toBeGreaterThan(0);
    for (const ev of events)
      expect(ev).toMatchObject({ Domain: q.scheduleDomain, RecordID: q0, ProposalID: q.proposalId });
    expect(
      await refQuery(t, 'PolicyChange', `ProposalID:eq:${q.proposalId}`, 'ScheduleID'),
      'no policy change entry on a Quote',
    ).toHaveLength(0);
  },
);

conformance(
  {
    id: 'schedules.ref-atomic-success-lists-all',
    title: 'reference: isAtomic=true with no failure applies every operation and lists every item',
    requirements: ['SCHED-027'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Reissue', locations: 2 });
    const [l0, l1] = p.locationIds as number[];
    const x = tag();
    const r = await upsertMulti(
      t,
      p.proposalId,
      p.scheduleDomain,
      {
        Inserts: [{ Fields: location(`AtomOK A ${x}`, 'a') }, { Fields: location(`AtomOK B ${x}`, 'b') }],
        Updates: [{ ID: l0, Fields: { LocationName: `AtomOK U ${x}` } }],
        Deletes: [{ ID: l1 }],
      },
      true,
    );
    expect(r.status).toBe(200);
    expectBatchShape(r.body);
    expectOrderNumbers(r.body.Inserts, [0, 1], 'Inserts');
    expect(r.body.Updates).toHaveLength(1);
    expect(r.body.Deletes).toHaveLength(1);
    for (const k of ['Inserts', 'Updates', 'Deletes'])
      for (const it of r.body[k] as Result[]) expect(it.IsSuccessful).toBe(true);
    expect((await readRecord(t, p.scheduleDomain, byOrder(r.body.Inserts, 1, 'Inserts').RecordID))?.LocationName).toBe(
      `AtomOK B ${x}`,
    );
    expect((await readRecord(t, p.scheduleDomain, l0))?.LocationName).toBe(`AtomOK U ${x}`);
    expect(await readRecord(t, p.scheduleDomain, l1)).toBeNull();

    // Rollback of inserts, observed through the reference's filter syntax.
    const y = tag();
    const failed = await upsertMulti(
      t,
      p.proposalId,
      p.scheduleDomain,
      { Inserts: [{ Fields: location(`Rolled back ${y}`, 'r') }, { Fields: location(undefined, 'bad') }] },
      true,
    );
    expect(failed.status).toBe(200);
    expect(failed.body.Inserts).toHaveLength(1);
    expect(
      await refQuery(t, p.scheduleDomain, `LocationName:eq:Rolled back ${y}`, 'LocationName'),
      'the good insert was rolled back',
    ).toHaveLength(0);
  },
);

conformance(
  {
    id: 'schedules.ref-invalid-schedule-domain-404',
    title: 'reference: a domain that is not a schedule domain of the proposal is 404 InvalidScheduleDomain',
    requirements: ['SCHED-028'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Endorsement', locations: 1 });
    const [l0] = p.locationIds as number[];
    for (const domain of ['Claim', 'NoSuchScheduleDomain', 'proposallocation']) {
      const u = await upsertMulti(t, p.proposalId, domain, { Inserts: [{ Fields: location('x', 'x') }] });
      expect(u.status, `UpsertMulti on ${domain}`).toBe(404);
      expect(u.body?.code).toBe('InvalidScheduleDomain');
      const d = await deleteSchedule(t, p.proposalId, domain, l0);
      expect(d.status, `DELETE on ${domain}`).toBe(404);
      expect(d.body?.code).toBe('InvalidScheduleDomain');
      const r = await reinstate(t, p.proposalId, domain, l0);
      expect(r.status, `Reinstate on ${domain}`).toBe(404);
      expect(r.body?.code).toBe('InvalidScheduleDomain');
    }
    expect(await readRecord(t, p.scheduleDomain, l0), 'the location was not touched').not.toBeNull();
  },
);
