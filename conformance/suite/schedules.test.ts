// Schedule records of proposals (spec 2.5, 3, 4.5, 7): SCHED-*.
//
// Proposals and their schedule records come from the provider state 'a proposal'; the schedule
// domain, its required field, its ID column and a filter selecting the proposal's records come from
// its values. The ProposalLocation field names (LocationName, Address1, City, StateCode, ZipCode)
// are the spec's own. Every change is read back: single records through GET /api/{domain}/{id},
// and the whole set of a proposal's records through GET /api/{domain}/Query with the state's filter,
// compared before and after, so an effect on a record the change did not name shows too.
//
// Fixtures are adversarial: several items per array with successes and failures alternating, the
// interesting item never first or last, updates and deletes naming records in an order unlike their
// insertion, and a twin proposal with equal-looking records that no change may touch.
//
// What the interface shows of a soft-deleted record (spec 3): nothing between DELETE and Reinstate
// is documented (whether a generic read or a query shows it is not stated), so core checks the
// DELETE's result and that Reinstate gives the record back, readable with its values; the
// reference's hiding of soft-deleted records is checked in the implementation-defined profile.
import { expect } from 'vitest';
import { conformance } from '../src/suite-api/dsl.js';
import { expectMentions, isRefusal } from '../src/suite-api/meaning.js';
import { type Ctx, judgedAlone } from './support/request.js';
import { type Finding } from '../src/judge/finding.js';
import {
  type AnsweredResult,
  type BatchKnowledge,
  type ScheduleBatch,
  type ScheduleResult,
  type UpsertMultiResponse,
  CANNOT_MODIFY,
  KINDS,
  idPattern,
  judgeBatchListing,
  judgeRecordIds,
  judgeRequiredField,
  judgeSingleDelete,
} from '../src/judge/sched.js';
import { expectFinding } from '../src/suite-api/findings.js';
import {
  type ReadRecord,
  type Records,
  isReadBackRequirement,
  judgeForeignRecords,
  judgeReadBack,
} from '../src/judge/sched-sequence.js';
import {
  asObject,
  byOrder,
  deleteSchedule,
  expect2xx,
  expectBatchShape,
  expectResultShape,
  givenProposal,
  judgedBatch,
  needsUnnamedFieldsKept,
  pick,
  readRecord,
  reinstate,
  resultsOf,
  scheduleSet,
  tag,
  upsertMulti,
  type ProposalValues,
  type Row,
} from './support/schedules.js';
import type { ProposalParams } from './support/states.js';

/** An ID that no schedule record has. */
const NO_SUCH_ID = 987_654_321;

function location(name: string | undefined, n: string): Row {
  const f: Row = { Address1: `${n} Elm St`, City: `City ${n}`, StateCode: 'WI', ZipCode: '53703' };
  if (name !== undefined) f.LocationName = name;
  return f;
}

/** The ProposalLocation fields of an inserted record, as it reads back. */
function stored(fields: Row): Row {
  return pick(fields) as Row;
}

async function proposal(t: Ctx, params: ProposalParams): Promise<ProposalValues> {
  const p = await givenProposal(t, params);
  expect(typeof p.scheduleDomain, 'state "a proposal" names its schedule domain').toBe('string');
  expect(p.locationIds, 'state "a proposal" made the requested records').toHaveLength(params.locations ?? 0);
  return p;
}

/** A batch judge's findings on an answer of upsertMulti, with what the test knows (judge/sched.ts). */
function judged(
  judge: (b: ScheduleBatch, known: BatchKnowledge) => Finding[],
  body: UpsertMultiResponse,
  p: ProposalValues,
): Finding[] {
  const b = judgedBatch(body, p.requiredField);
  return b ? judge(b.batch, b.known) : [];
}

/** A single DELETE that succeeded: RecordID the record's (SCHED-002), OrderNumber null (SCHED-004). */
function expectDeleted(body: unknown, proposalId: number, id: number): void {
  expect(body, 'the DELETE answers a successful result').toMatchObject({ IsSuccessful: true });
  expectFinding(judgeRecordIds([{ kind: 'Deletes', result: body as AnsweredResult, id }]), 'SCHED-002', 'DELETE');
  expectFinding(judgeSingleDelete(proposalId, body), 'SCHED-004', 'DELETE');
}

function expectOrderNumbers(results: ScheduleResult[], expected: number[], where: string) {
  expect(
    results.map((r) => r.OrderNumber).sort((a, b) => (a ?? -1) - (b ?? -1)),
    `${where} OrderNumbers`,
  ).toEqual(expected);
}

/** The set after applying updates (partial fields) and deletes to a copy of `before`. */
function applied(before: Map<number, Row>, updates: Array<[number, Row]>, deletes: number[]): Map<number, Row> {
  const out = new Map([...before].map(([id, r]) => [id, { ...r }]));
  for (const [id, f] of updates) out.set(id, { ...(out.get(id) as Row), ...pick(f, Object.keys(f)) });
  for (const id of deletes) out.delete(id);
  return out;
}

/** Record `id` as read, for the read-back judge (judge/sched-sequence.ts). */
const record = (id: number, r: ReadRecord): Records => [[id, r]];

/**
 * The set equals `expected`: the same IDs with the same values, nothing more. The comparison is the
 * statement of one requirement, `owner` (which operations a batch applies, what a rollback keeps,
 * what a failed item leaves), the read-back judge's where it is one of its requirements: a set that
 * differs fails `owner` alone, so a test naming several requirements does not fail its others on it
 * (one cause, one red line; see judgedAlone). The listing itself is a step (scheduleSet).
 */
async function expectSet(t: Ctx, owner: string, p: ProposalValues, expected: Map<number, Row>, what: string) {
  const set = await scheduleSet(t, p);
  const got = asObject(set);
  judgedAlone(owner, what, () =>
    isReadBackRequirement(owner)
      ? expectFinding(judgeReadBack(owner, expected, set, true, what), owner)
      : expect(got, what).toEqual(asObject(expected)),
  );
}

// ---------------------------------------------------------------------------------------------
// Core: UpsertMulti

conformance(
  {
    id: 'schedules.upsertmulti-all-kinds',
    title:
      'UpsertMulti applies inserts, updates and deletes (several of each, out of insertion order) and answers one result per item with its zero-based OrderNumber',
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
    const p = await proposal(t, { type: 'Quote', locations: 5 });
    const twin = await proposal(t, { type: 'Quote', locations: 5 });
    const [l0, l1, l2, l3, l4] = p.locationIds;
    const before = await scheduleSet(t, p);
    const twinBefore = await scheduleSet(t, twin);
    expect([...before.keys()].sort(), "the state's records are the proposal's records").toEqual(
      [...p.locationIds].sort(),
    );
    const x = tag();
    const inserts = [location(`Ins A ${x}`, 'a'), location(`Ins B ${x}`, 'b'), location(`Ins C ${x}`, 'c')];
    // Updates and deletes name the records in an order unlike their IDs.
    const updates: Array<{ ID: number; Fields: Row }> = [
      { ID: l3, Fields: { LocationName: `Upd three ${x}`, City: 'Madison' } },
      { ID: l0, Fields: { LocationName: `Upd zero ${x}` } },
      { ID: l2, Fields: { ZipCode: '53711' } },
    ];
    const deletes = [{ ID: l4 }, { ID: l1 }];

    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: inserts.map((Fields) => ({ Fields })),
      Updates: updates,
      Deletes: deletes,
    });
    expect2xx(r.status);
    const body = r.body;
    expectBatchShape(body);
    expect(body.Inserts).toHaveLength(3);
    expect(body.Updates).toHaveLength(3);
    expect(body.Deletes).toHaveLength(2);
    expectOrderNumbers(body.Inserts, [0, 1, 2], 'Inserts');
    expectOrderNumbers(body.Updates, [0, 1, 2], 'Updates');
    expectOrderNumbers(body.Deletes, [0, 1], 'Deletes');

    const expected = applied(
      before,
      updates.map((u) => [u.ID, u.Fields]),
      deletes.map((d) => d.ID),
    );
    for (let i = 0; i < inserts.length; i++) {
      const res = byOrder(body.Inserts, i, 'Inserts');
      expect(res.IsSuccessful, `insert ${i} succeeded: ${res.Message}`).toBe(true);
      expect(res.RecordID, `insert ${i} reports the new record's ID`).toBeGreaterThan(0);
      expect(before.has(res.RecordID), `insert ${i} reports a new ID`).toBe(false);
      // The record at RecordID holds exactly the values of input item i.
      const got = pick(await readRecord(t, p, res.RecordID));
      expectFinding(
        judgeReadBack('SCHED-007', record(res.RecordID, inserts[i]), record(res.RecordID, got)),
        'SCHED-007',
      );
      expected.set(res.RecordID, stored(inserts[i]));
    }
    needsUnnamedFieldsKept(body.Updates, updates, p.requiredField, 'UpsertMulti');
    for (let i = 0; i < updates.length; i++) {
      const res = byOrder(body.Updates, i, 'Updates');
      expect(res.IsSuccessful, `update ${i} succeeded: ${res.Message}`).toBe(true);
      expect(res.RecordID, `update ${i} reports the updated record's ID`).toBe(updates[i].ID);
    }
    for (let i = 0; i < deletes.length; i++) {
      const res = byOrder(body.Deletes, i, 'Deletes');
      expect(res.IsSuccessful, `delete ${i} succeeded: ${res.Message}`).toBe(true);
      expect(res.RecordID, `delete ${i} reports the deleted record's ID`).toBe(deletes[i].ID);
      // Quote: the delete is permanent.
      expect(await readRecord(t, p, deletes[i].ID), `deleted record ${deletes[i].ID} is gone`).toBeNull();
    }
    await expectSet(
      t,
      'SCHED-008',
      p,
      expected,
      "the proposal's records: the updates and inserts applied, the deletes gone",
    );
    await expectSet(t, 'SCHED-008', twin, twinBefore, "the twin proposal's records are untouched");
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
    const p = await proposal(t, { type: 'Application', locations: 3 });
    const [, l1, l2] = p.locationIds;
    const x = tag();
    let expected = await scheduleSet(t, p);

    const onlyInsert = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: location(`Only ${x}`, 'o') }],
    });
    expect2xx(onlyInsert.status);
    const ins = onlyInsert.body;
    expectBatchShape(ins);
    expect(ins.Inserts).toHaveLength(1);
    expect(ins.Updates).toEqual([]);
    expect(ins.Deletes).toEqual([]);
    expect(ins.Inserts[0].IsSuccessful).toBe(true);
    expected.set(ins.Inserts[0].RecordID, stored(location(`Only ${x}`, 'o')));
    await expectSet(t, 'SCHED-008', p, expected, 'after an insert-only batch');

    const onlyUpdate = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Updates: [{ ID: l2, Fields: { City: `Town ${x}` } }],
    });
    expect2xx(onlyUpdate.status);
    const upd = onlyUpdate.body;
    expectBatchShape(upd);
    expect(upd.Inserts).toEqual([]);
    expect(upd.Deletes).toEqual([]);
    expect(upd.Updates).toHaveLength(1);
    needsUnnamedFieldsKept(
      upd.Updates,
      [{ ID: l2, Fields: { City: `Town ${x}` } }],
      p.requiredField,
      'an update-only batch',
    );
    expect(upd.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: l2, OrderNumber: 0 });
    expected = applied(expected, [[l2, { City: `Town ${x}` }]], []);
    await expectSet(t, 'SCHED-008', p, expected, 'after an update-only batch');

    const onlyDelete = await upsertMulti(t, p.proposalId, p.scheduleDomain, { Deletes: [{ ID: l1 }] });
    expect2xx(onlyDelete.status);
    const del = onlyDelete.body;
    expectBatchShape(del);
    expect(del.Inserts).toEqual([]);
    expect(del.Updates).toEqual([]);
    expect(del.Deletes).toHaveLength(1);
    expect(del.Deletes[0]).toMatchObject({ IsSuccessful: true, RecordID: l1, OrderNumber: 0 });
    expected = applied(expected, [], [l1]);
    await expectSet(t, 'SCHED-008', p, expected, 'after a delete-only batch');

    const nothing = await upsertMulti(t, p.proposalId, p.scheduleDomain, {});
    expect2xx(nothing.status);
    expect(nothing.body).toMatchObject({ Inserts: [], Updates: [], Deletes: [] });
    await expectSet(t, 'SCHED-008', p, expected, 'an empty batch changes nothing');
  },
);

/**
 * ProposalLocation fields of the text classes (spec/data-classes.yaml `text`): the values an
 * UpsertMulti body carries that a Latin-1 or byte-wise read of the JSON, a trim or an object-key
 * lookup gets wrong, in the free-text fields (StateCode and ZipCode keep plain values: a service may
 * validate them). Three records, so no class sits only on the first.
 */
const TEXT_CLASS_LOCATIONS: Row[] = [
  { LocationName: 'Zoë Ångström Café', Address1: '  12 Rue de l’Église  ', City: '東京都千代田区' },
  { LocationName: 'constructor', Address1: "1 O'Brien St; DROP TABLE y; --", City: 'Ωμέγα ñ ß 😀' },
  { LocationName: 'null', Address1: '__proto__', City: '😀 emoji 🎉' },
].map((f) => ({ ...f, StateCode: 'WI', ZipCode: '53703' }));

conformance(
  {
    id: 'schedules.insert-text-classes-read-back',
    title:
      'ProposalLocation fields of every text class (non-ASCII, multi-byte, emoji, padded, reserved words) inserted by UpsertMulti read back code point for code point',
    requirements: ['SCHED-007'],
    classes: [
      'SCHED-007:text.non-ascii',
      'SCHED-007:text.multibyte',
      'SCHED-007:text.emoji',
      'SCHED-007:text.whitespace',
      'SCHED-007:text.reserved-word',
      'SCHED-007:text.null-word',
    ],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 1 });
    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: TEXT_CLASS_LOCATIONS.map((Fields) => ({ Fields })),
    });
    expect2xx(r.status);
    const body = r.body;
    expectBatchShape(body);
    for (let i = 0; i < TEXT_CLASS_LOCATIONS.length; i++) {
      const res = byOrder(body.Inserts, i, 'Inserts');
      expect(res.IsSuccessful, `insert ${i} succeeded: ${res.Message}`).toBe(true);
      const got = record(res.RecordID, pick(await readRecord(t, p, res.RecordID)));
      const sent = record(res.RecordID, TEXT_CLASS_LOCATIONS[i]);
      expectFinding(judgeReadBack('SCHED-007', sent, got), 'SCHED-007', `record of insert ${i}: the values as sent`);
    }
  },
);

/**
 * A LocationName of "0" (issue 44, a blind miss: a required-field check that tests the value for
 * truthiness). Spec 2.5: "LocationName (required, string)"; 4.5 rule 6 fails an insert only
 * "without `LocationName`" and an update only "to an empty one": "0" is a non-empty string, so the
 * insert stores it and the update applies it.
 */
conformance(
  {
    id: 'schedules.location-name-zero',
    title: 'a LocationName of "0" is a name: an insert with it stores it and an update to it applies it',
    requirements: ['SCHED-007', 'SCHED-008'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 2 });
    const [, l1] = p.locationIds;
    const fields = location('0', 'zero');
    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: fields }],
      Updates: [{ ID: l1, Fields: { LocationName: '0' } }],
    });
    // Status of a batch with a failed item: not shown; the body is judged.
    const body = r.body;
    expectBatchShape(body);
    const ins = byOrder(body.Inserts, 0, 'Inserts');
    const insGot = ins.IsSuccessful ? pick(await readRecord(t, p, ins.RecordID)) : undefined;
    // 2.5 "LocationName (required, string), Address1, City, StateCode, ZipCode (strings)": the values as sent
    judgedAlone('SCHED-007', 'an insert with LocationName "0" stores its values', () => {
      expect(ins.IsSuccessful, `the insert with LocationName "0": ${ins.Message}`).toBe(true);
      const got = record(ins.RecordID, insGot ?? null);
      expectFinding(judgeReadBack('SCHED-007', record(ins.RecordID, stored(fields)), got), 'SCHED-007');
    });
    const upd = byOrder(body.Updates, 0, 'Updates');
    const updGot = await readRecord(t, p, l1);
    // 4.5: Updates (items: `ID` integer and `Fields`) are applied; only an empty name fails
    judgedAlone('SCHED-008', 'an update to LocationName "0" is applied', () => {
      expect(upd.IsSuccessful, `the update to LocationName "0": ${upd.Message}`).toBe(true);
      const got = record(l1, pick(updGot, ['LocationName']));
      expectFinding(judgeReadBack('SCHED-008', record(l1, { LocationName: '0' }), got), 'SCHED-008');
    });
  },
);

/**
 * The schedule domain's batches after a batch in another domain of the same proposal (issue 44, a
 * blind miss: a proposal that keeps the first schedule domain it was used with). Spec 2.5:
 * "Schedule domains are domain names valid for a given proposal"; 4.5 rule 1: "The domain must be a
 * valid schedule domain for the proposal": what is valid is the proposal's, not the history of its
 * requests. The batch in the state's second schedule domain comes first and is not judged (its
 * fields are not shown: it is empty, and whatever it answers); the schedule domain's batch after it
 * applies each kind of operation.
 */
conformance(
  {
    id: 'schedules.upsertmulti-after-other-schedule-domain',
    title:
      'UpsertMulti in the schedule domain applies its inserts, updates and deletes after a batch of the same proposal in another schedule domain',
    requirements: ['SCHED-008'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 2 });
    const [l0, l1] = p.locationIds;
    if (p.otherScheduleDomain === p.scheduleDomain)
      t.notApplicable("provider state 'a proposal' names one schedule domain twice");
    const before = await scheduleSet(t, p);
    await upsertMulti(t, p.proposalId, p.otherScheduleDomain, {});
    const x = tag();
    const inserted = location(`After other domain ${x}`, 'o');
    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: inserted }],
      Updates: [{ ID: l1, Fields: { City: `Town ${x}` } }],
      Deletes: [{ ID: l0 }],
    });
    // 4.5: "arrays `Inserts` (items: `Fields`...), `Updates` (items: `ID` integer and `Fields`),
    // `Deletes` (items: `ID` integer)": each applied, whatever the proposal was asked before
    const got = r.body as { Inserts?: unknown } | null;
    const ins = Array.isArray(got?.Inserts) ? (got.Inserts as ScheduleResult[]) : [];
    const expected = applied(before, [[l1, { City: `Town ${x}` }]], [l0]);
    if (ins[0]?.IsSuccessful === true) expected.set(ins[0].RecordID, stored(inserted));
    judgedAlone('SCHED-008', 'the batch after another schedule domain is accepted', () => {
      expect2xx(r.status);
      expect(
        ins.map((i) => i.IsSuccessful),
        `the insert: ${JSON.stringify(ins)}`,
      ).toEqual([true]);
    });
    await expectSet(t, 'SCHED-008', p, expected, 'the insert, the update and the delete are applied');
  },
);

conformance(
  {
    id: 'schedules.non-atomic-alternating',
    title:
      'isAtomic=false with successes and failures alternating: every item is answered at its own position, the successes are committed, the failures change nothing',
    requirements: [
      'SCHED-011',
      'SCHED-012',
      'SCHED-003',
      'SCHED-016',
      'SCHED-017',
      'SCHED-023',
      'SCHED-002',
      'SCHED-010',
    ],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Renewal', locations: 6 });
    const twin = await proposal(t, { type: 'Renewal', locations: 2 });
    const required = p.requiredField;
    const [l0, l1, l2, l3, l4, l5] = p.locationIds;
    const [w0, w1] = twin.locationIds;
    const before = await scheduleSet(t, p);
    const twinBefore = await scheduleSet(t, twin);
    const x = tag();
    // ok, fail, ok, fail, ok in every array (the failures: no name, an empty name, another
    // proposal's record, a record that does not exist).
    const inserts = [
      location(`Good A ${x}`, 'a'),
      location(undefined, 'missing-1'),
      location(`Good C ${x}`, 'c'),
      location(undefined, 'missing-3'),
      location(`Good E ${x}`, 'e'),
    ];
    const updates: Array<{ ID: number; Fields: Row; ok: boolean }> = [
      { ID: l3, Fields: { City: `Changed three ${x}` }, ok: true },
      { ID: l1, Fields: { [required]: '' }, ok: false },
      { ID: l0, Fields: { LocationName: `Renamed zero ${x}` }, ok: true },
      { ID: w0, Fields: { LocationName: `Hijacked ${x}` }, ok: false },
      { ID: l2, Fields: { ZipCode: '53705' }, ok: true },
    ];
    const deletes: Array<{ ID: number; ok: boolean }> = [
      { ID: NO_SUCH_ID, ok: false },
      { ID: l5, ok: true },
      { ID: w1, ok: false },
      { ID: l4, ok: true },
    ];
    const r = await upsertMulti(
      t,
      p.proposalId,
      p.scheduleDomain,
      {
        Inserts: inserts.map((Fields) => ({ Fields })),
        Updates: updates.map(({ ID, Fields }) => ({ ID, Fields })),
        Deletes: deletes.map(({ ID }) => ({ ID })),
      },
      false,
    );
    // Status of a batch with failed items: not shown; the body is judged.
    const body = r.body;
    expectBatchShape(body);
    // a result for every item is SCHED-012's statement alone: judged as its failure only
    judgedAlone('SCHED-012', 'a non-atomic batch lists a result for every item', () =>
      expectFinding(judged(judgeBatchListing, body, p), 'SCHED-012'),
    );

    const expected = applied(
      before,
      updates.filter((u) => u.ok).map((u) => [u.ID, u.Fields]),
      deletes.filter((d) => d.ok).map((d) => d.ID),
    );
    for (let i = 0; i < inserts.length; i++) {
      const res = byOrder(body.Inserts, i, 'Inserts');
      if (i % 2 === 1) {
        // A failed insert: IsSuccessful false, RecordID 0, the message says the field is required
        // (SCHED-016's statement; RecordID 0 also SCHED-002's), each judged as that rule's alone.
        judgedAlone('SCHED-016', `insert ${i} without ${required} fails with a message saying so`, () =>
          expectFinding(judged(judgeRequiredField, body, p), 'SCHED-016'),
        );
        judgedAlone('SCHED-002', `failed insert ${i}: RecordID 0`, () =>
          expectFinding(judgeRecordIds([{ kind: 'Inserts', result: res }]), 'SCHED-002'),
        );
      } else {
        expect(res.IsSuccessful, `insert ${i}: ${res.Message}`).toBe(true);
        const got = record(res.RecordID, pick(await readRecord(t, p, res.RecordID)));
        expectFinding(judgeReadBack('SCHED-007', record(res.RecordID, inserts[i]), got), 'SCHED-007');
        expected.set(res.RecordID, stored(inserts[i]));
      }
    }
    // The rule a failed item breaks when it succeeds: another proposal's record (SCHED-010), an
    // emptied LocationName (SCHED-017); a successful item's outcome and every RecordID are judged as
    // the test's (RecordIDs: SCHED-002 for successes and failed deletes, SCHED-017 for the emptied one).
    const ruleOf = (id: number) => (id === w0 || id === w1 ? 'SCHED-010' : id === l1 ? 'SCHED-017' : undefined);
    const outcome = (id: number, r: ScheduleResult, ok: boolean, what: string) => {
      const rule = ruleOf(id);
      // an item naming the twin's record: SCHED-010's judge (judge/sched-sequence.ts)
      const check = () =>
        rule === 'SCHED-010'
          ? expectFinding(
              judgeForeignRecords(p.proposalId, [{ id, owner: twin.proposalId, isSuccessful: r.IsSuccessful }]),
              rule,
              what,
            )
          : expect(r.IsSuccessful, what).toBe(ok);
      return rule ? judgedAlone(rule, what, check) : check();
    };
    needsUnnamedFieldsKept(body.Updates, updates, required, 'a non-atomic batch');
    for (let i = 0; i < updates.length; i++) {
      const res = byOrder(body.Updates, i, 'Updates');
      const what = `update ${i} (record ${updates[i].ID}): ${res.Message}`;
      outcome(updates[i].ID, res, updates[i].ok, what);
      if (updates[i].ok)
        judgedAlone('SCHED-002', `update ${i}: the record's ID`, () =>
          expectFinding(judgeRecordIds([{ kind: 'Updates', result: res, id: updates[i].ID }]), 'SCHED-002'),
        );
      if (updates[i].ID === l1)
        judgedAlone('SCHED-017', 'the emptied LocationName is refused with the record ID and a message saying so', () =>
          expectFinding(judged(judgeRequiredField, body, p), 'SCHED-017'),
        );
    }
    for (let i = 0; i < deletes.length; i++) {
      const res = byOrder(body.Deletes, i, 'Deletes');
      const what = `delete ${i} (record ${deletes[i].ID}): ${res.Message}`;
      outcome(deletes[i].ID, res, deletes[i].ok, what);
      judgedAlone('SCHED-002', `delete ${i}: RecordID`, () =>
        expectFinding(judgeRecordIds([{ kind: 'Deletes', result: res, id: deletes[i].ID }]), 'SCHED-002'),
      );
    }
    await expectSet(t, 'SCHED-011', p, expected, "the proposal's records: exactly the successful items applied");
    await expectSet(
      t,
      'SCHED-010',
      twin,
      twinBefore,
      "the twin proposal's records named by failed items are untouched",
    );
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
    const p = await proposal(t, { type: 'Rewrite', locations: 2 });
    const [l0, l1] = p.locationIds;
    const before = await scheduleSet(t, p);
    const x = tag();
    const r = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [
        { Fields: location(`Kept A ${x}`, 'a') },
        { Fields: location(undefined, 'bad') },
        { Fields: location(`Kept C ${x}`, 'c') },
      ],
      Updates: [
        { ID: l1, Fields: { LocationName: `Renamed ${x}` } },
        { ID: l0, Fields: { [p.requiredField]: '' } },
      ],
    });
    // Status of a batch with failed items: not shown; the body is judged.
    const body = r.body;
    expectBatchShape(body);
    // without isAtomic the batch is not rolled back whole (SCHED-013 alone: an atomic default
    // would leave the records as before); the valid update committed beside the failures is
    // SCHED-011's (a non-atomic batch that stops at the failure leaves it out); then every item is
    // answered (SCHED-012 alone)
    const afterBatch = asObject(await scheduleSet(t, p));
    judgedAlone('SCHED-013', 'without isAtomic a batch with a failing item is not rolled back whole', () =>
      expect(afterBatch, 'the records after the batch').not.toEqual(asObject(before)),
    );
    const renamed = await readRecord(t, p, l1);
    judgedAlone('SCHED-011', 'the valid items are committed beside the failing one', () =>
      expectFinding(
        judgeReadBack(
          'SCHED-011',
          record(l1, { LocationName: `Renamed ${x}` }),
          record(l1, pick(renamed, ['LocationName'])),
        ),
        'SCHED-011',
      ),
    );
    judgedAlone('SCHED-012', 'a non-atomic batch lists a result for every item', () =>
      expectFinding(judged(judgeBatchListing, body, p), 'SCHED-012'),
    );
    const failed = byOrder(body.Inserts, 1, 'Inserts');
    judgedAlone('SCHED-016', 'an insert without LocationName fails', () =>
      expect(failed.IsSuccessful, 'the insert without its required field fails').toBe(false),
    );
    judgedAlone('SCHED-002', 'a failed insert reports RecordID 0', () =>
      expectFinding(judgeRecordIds([{ kind: 'Inserts', result: failed }]), 'SCHED-002'),
    );
    // the emptied LocationName fails with the record's ID (SCHED-017's statement alone)
    judgedAlone('SCHED-017', 'an update emptying LocationName fails with the record ID', () =>
      expectFinding(judged(judgeRequiredField, body, p), 'SCHED-017'),
    );
    const kept = byOrder(body.Updates, 0, 'Updates');
    expect(kept.IsSuccessful, `the valid update succeeds: ${kept.Message}`).toBe(true);
    judgedAlone('SCHED-002', 'a successful update reports its record ID', () =>
      expectFinding(judgeRecordIds([{ kind: 'Updates', result: kept, id: l1 }]), 'SCHED-002'),
    );
    const expected = applied(before, [[l1, { LocationName: `Renamed ${x}` }]], []);
    for (const i of [0, 2]) {
      const kept = byOrder(body.Inserts, i, 'Inserts');
      expect(kept.IsSuccessful, `insert ${i}: ${kept.Message}`).toBe(true);
      expected.set(kept.RecordID, stored(location(`Kept ${i === 0 ? 'A' : 'C'} ${x}`, i === 0 ? 'a' : 'c')));
    }
    await expectSet(t, 'SCHED-011', p, expected, 'the successful items are committed, the failed ones change nothing');
  },
);

/**
 * A batch after an atomic one (issue 44, a blind miss of a sequence): that one batch of a proposal
 * was atomic says nothing of the next. Spec 4.5: "`isAtomic`: boolean, default false" and
 * "`isAtomic=false`: each operation is independent and committed on its own. Failures leave the
 * other operations unaffected, and the response lists every item." Each non-atomic batch follows an
 * atomic one of the same proposal; the atomic batch is set-up (that it commits is SCHED-029's rule).
 */
conformance(
  {
    id: 'schedules.non-atomic-after-atomic',
    title:
      'a batch with isAtomic=false, or without isAtomic, right after an atomic batch of the same proposal is still non-atomic',
    requirements: ['SCHED-011', 'SCHED-012', 'SCHED-013'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 4 });
    const [l0, l1, l2, l3] = p.locationIds;
    const x = tag();
    // each case names records of its own: no record is updated twice in a row (a repetition is the
    // model-based test's)
    const cases = [
      { how: 'isAtomic=false', isAtomic: false, committed: 'SCHED-011', listed: 'SCHED-012', a: l0, b: l1 },
      // without the parameter the batch is non-atomic, its default (SCHED-013 owns both checks)
      { how: 'without isAtomic', isAtomic: undefined, committed: 'SCHED-013', listed: 'SCHED-013', a: l2, b: l3 },
    ] as const;
    for (const c of cases) {
      // the update names LocationName: an update that leaves it out is SCHED-008's own rule
      await t.needs('SCHED-029', 'an atomic batch without a failing item answers no item as failed', async () => {
        const a = await upsertMulti(
          t,
          p.proposalId,
          p.scheduleDomain,
          { Updates: [{ ID: c.a!, Fields: { LocationName: `Atomic before ${c.how} ${x}` } }] },
          true,
        );
        expect2xx(a.status);
        expectBatchShape(a.body);
        for (const r of resultsOf(a.body)) expect(r.IsSuccessful, `atomic update: ${r.Message}`).toBe(true);
      });
      const name = `After atomic ${c.how} ${x}`;
      const r = await upsertMulti(
        t,
        p.proposalId,
        p.scheduleDomain,
        {
          Updates: [
            { ID: c.b!, Fields: { LocationName: name } },
            { ID: c.a!, Fields: { [p.requiredField]: '' } },
          ],
        },
        c.isAtomic,
      );
      // Status of a batch with a failed item: not shown; the body is judged.
      const body = r.body;
      expectBatchShape(body);
      // 4.5: "each operation is independent and committed on its own": the valid update stays,
      // though the other item fails (an atomic run would roll it back)
      const renamed = await readRecord(t, p, c.b!);
      judgedAlone(c.committed, `${c.how} after an atomic batch: the valid item is committed`, () =>
        expect(renamed?.LocationName, 'the valid update, committed').toBe(name),
      );
      // 4.5: "the response lists every item" (an atomic run lists only the failed one)
      const listed = judged(judgeBatchListing, body, p);
      judgedAlone(c.listed, `${c.how} after an atomic batch: every item is listed`, () =>
        c.isAtomic === undefined
          ? expectFinding(listed, 'SCHED-013', c.how)
          : expectFinding(listed, 'SCHED-012', c.how),
      );
    }
  },
);

conformance(
  {
    id: 'schedules.atomic-rollback',
    title:
      'isAtomic=true with failing items: nothing of the batch is applied, its valid inserts included, and only the failed items are answered',
    requirements: ['SCHED-014', 'SCHED-015', 'SCHED-003', 'SCHED-016', 'SCHED-017'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 3 });
    const twin = await proposal(t, { type: 'Quote', locations: 1 });
    const required = p.requiredField;
    const [l0, l1, l2] = p.locationIds;
    const before = await scheduleSet(t, p);
    const twinBefore = await scheduleSet(t, twin);
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
          { ID: l2, Fields: { LocationName: `Atomic rename ${x}` } },
          { ID: l1, Fields: { [required]: '' } },
        ],
        Deletes: [{ ID: l0 }],
      },
      true,
    );
    const body = r.body;
    expectBatchShape(body);
    // The invalid items fail: an answer for one of them that reports success breaks the rule of
    // that item (SCHED-016, SCHED-017) alone, and nothing after it is judged.
    const noName = body.Inserts.find((it) => it.OrderNumber === 1);
    // Each fails with RecordID 0 (the insert) or the record's ID (the update) and says the field is required.
    if (noName)
      judgedAlone('SCHED-016', 'the insert without LocationName fails, RecordID 0, saying it is required', () =>
        expectFinding(judged(judgeRequiredField, body, p), 'SCHED-016'),
      );
    const emptied = body.Updates.find((it) => it.OrderNumber === 1);
    if (emptied)
      judgedAlone(
        'SCHED-017',
        "the update emptying LocationName fails with the record's ID, saying it is required",
        () => expectFinding(judged(judgeRequiredField, body, p), 'SCHED-017'),
      );
    // Only the failed items (SCHED-015's statement alone), each with its own position (SCHED-003's).
    judgedAlone('SCHED-015', 'an atomic batch with a failure answers only the failed items', () => {
      expectFinding(judged(judgeBatchListing, body, p), 'SCHED-015');
      expect(
        body.Inserts.map((it) => it.IsSuccessful),
        'only the failed insert is answered',
      ).toEqual([false]);
      expect(
        body.Updates.map((it) => it.IsSuccessful),
        'only the failed update is answered',
      ).toEqual([false]);
      expect(body.Deletes, 'the delete would have succeeded, so it is left out').toEqual([]);
    });
    judgedAlone('SCHED-003', 'the failed items are answered with their positions', () => {
      expect(body.Inserts[0]?.OrderNumber, 'the failed insert').toBe(1);
      expect(body.Updates[0]?.OrderNumber, 'the failed update').toBe(1);
    });

    // Rolled back: the whole set is as before, so neither the valid inserts nor the valid update
    // nor the delete are there.
    await expectSet(t, 'SCHED-014', p, before, "the proposal's records are exactly as before the batch");
    await expectSet(t, 'SCHED-014', twin, twinBefore, "the twin proposal's records are untouched");
  },
);

conformance(
  {
    id: 'schedules.atomic-commits',
    title: 'isAtomic=true without a failing item commits every operation, and answers no failed item',
    requirements: ['SCHED-029', 'SCHED-008', 'SCHED-009'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Reissue', locations: 4 });
    const twin = await proposal(t, { type: 'Reissue', locations: 2 });
    const [l0, , l2, l3] = p.locationIds;
    const before = await scheduleSet(t, p);
    const twinBefore = await scheduleSet(t, twin);
    const x = tag();
    const inserts = [location(`AtomOK A ${x}`, 'a'), location(`AtomOK B ${x}`, 'b'), location(`AtomOK C ${x}`, 'c')];
    const updates: Array<{ ID: number; Fields: Row }> = [
      { ID: l2, Fields: { LocationName: `AtomOK two ${x}` } },
      { ID: l0, Fields: { City: `AtomOK city ${x}` } },
    ];
    const r = await upsertMulti(
      t,
      p.proposalId,
      p.scheduleDomain,
      { Inserts: inserts.map((Fields) => ({ Fields })), Updates: updates, Deletes: [{ ID: l3 }] },
      true,
    );
    expect2xx(r.status);
    const body = r.body;
    expectBatchShape(body);
    needsUnnamedFieldsKept(body.Updates, updates, p.requiredField, 'an atomic batch');
    // Which items a committed atomic batch lists is not shown; none of them may be a failure.
    for (const k of KINDS) for (const it of body[k]) expect(it.IsSuccessful, `${k}: ${it.Message}`).toBe(true);

    const after = await scheduleSet(t, p);
    const expected = applied(
      before,
      updates.map((u) => [u.ID, u.Fields]),
      [l3],
    );
    // The inserted records are the new IDs; their values, in any order of IDs, are the inserts'.
    const added = [...after.keys()].filter((id) => !before.has(id));
    // that the batch commits, whole and nothing else, is SCHED-029's statement alone
    judgedAlone('SCHED-029', 'an atomic batch without a failing item commits every operation', () => {
      expect(added, 'the three inserts are committed').toHaveLength(3);
      const byName = (a: Row, b: Row) => String(a.LocationName).localeCompare(String(b.LocationName));
      expect(added.map((id) => after.get(id) as Row).sort(byName)).toEqual(inserts.map(stored).sort(byName));
      for (const id of added) expected.set(id, after.get(id) as Row);
      const what = 'the updates and the delete are committed, nothing else changed';
      expectFinding(judgeReadBack('SCHED-029', expected, after, true, what), 'SCHED-029');
    });
    await expectSet(t, 'SCHED-029', twin, twinBefore, "the twin proposal's records are untouched");
  },
);

// On Quotes and on Endorsements, whose DELETE follows the other (soft) path.
for (const type of ['Quote', 'Endorsement'] as const) {
  conformance(
    {
      id: type === 'Quote' ? 'schedules.other-proposal-records' : 'schedules.other-proposal-records-endorsement',
      title: `updates and deletes naming a twin ${type} proposal's records, through UpsertMulti or the single DELETE, fail and change nothing on either proposal`,
      requirements: ['SCHED-010', 'SCHED-002'],
      classes: [
        'SCHED-010:upsertmulti-update',
        'SCHED-010:upsertmulti-delete',
        'SCHED-010:single-delete',
        `SCHED-010:${type === 'Endorsement' ? 'endorsement' : 'non-endorsement'}`,
      ],
      mutates: true,
    },
    async (t) => {
      const a = await proposal(t, { type, locations: 2 });
      const b = await proposal(t, { type, locations: 3 });
      const [b0, b1, b2] = b.locationIds;
      const aBefore = await scheduleSet(t, a);
      const bBefore = await scheduleSet(t, b);

      const r = await upsertMulti(
        t,
        a.proposalId,
        a.scheduleDomain,
        { Updates: [{ ID: b1, Fields: { LocationName: 'Hijacked' } }], Deletes: [{ ID: b2 }, { ID: b0 }] },
        false,
      );
      if (r.status >= 200 && r.status < 300) {
        const body = r.body;
        expectBatchShape(body);
        // every item of a non-atomic batch is answered: SCHED-012's statement, a step here
        judgedAlone('SCHED-012', 'a non-atomic batch lists a result for every item', () =>
          expectFinding(judged(judgeBatchListing, body, a), 'SCHED-012'),
        );
        const ofB = (r: ScheduleResult, id?: number) => [{ id, owner: b.proposalId, isSuccessful: r.IsSuccessful }];
        judgedAlone('SCHED-010', "an update naming another proposal's record fails", () =>
          expectFinding(judgeForeignRecords(a.proposalId, ofB(body.Updates[0], b1)), 'SCHED-010', 'update'),
        );
        for (const d of body.Deletes) {
          judgedAlone('SCHED-010', "a delete naming another proposal's record fails", () =>
            expectFinding(judgeForeignRecords(a.proposalId, ofB(d)), 'SCHED-010', 'delete'),
          );
          judgedAlone('SCHED-002', 'a failed delete reports RecordID 0', () =>
            expectFinding(judgeRecordIds([{ kind: 'Deletes', result: d }]), 'SCHED-002'),
          );
        }
      }
      // Single DELETE through proposal A of a record of proposal B (not its first).
      const d = await deleteSchedule(t, a.proposalId, a.scheduleDomain, b1);
      // a refusal in any form (a non-2xx status, IsSuccessful false) answers the record as not deleted
      const single = [{ id: b1, owner: b.proposalId, isSuccessful: !isRefusal(d.res) }];
      judgedAlone('SCHED-010', "a single DELETE naming another proposal's record fails", () =>
        expectFinding(
          judgeForeignRecords(a.proposalId, single, `DELETE (${d.status} ${JSON.stringify(d.body)}): `),
          'SCHED-010',
        ),
      );
      for (const res of resultsOf(d.body))
        judgedAlone('SCHED-002', 'a failed delete reports RecordID 0', () =>
          expectFinding(judgeRecordIds([{ kind: 'Deletes', result: res }]), 'SCHED-002'),
        );

      // Another schedule domain of proposal B: IDs of ProposalLocation records do not name records of
      // the other domain.
      if (b.otherScheduleDomain !== b.scheduleDomain) {
        const o = await upsertMulti(t, b.proposalId, b.otherScheduleDomain, {
          Updates: [{ ID: b0, Fields: { LocationName: 'Crossed' } }],
          Deletes: [{ ID: b2 }],
        });
        if (o.status >= 200 && o.status < 300)
          for (const item of resultsOf(o.body)) expect(item.IsSuccessful, JSON.stringify(item)).toBe(false);
      }

      await expectSet(t, 'SCHED-010', b, bBefore, "proposal B's records are unchanged");
      await expectSet(t, 'SCHED-010', a, aBefore, "proposal A's records are unchanged");
    },
  );
}

conformance(
  {
    id: 'schedules.invalid-schedule-domain',
    title:
      'UpsertMulti on a domain that is not a schedule domain of the proposal reports no success and changes nothing',
    requirements: ['SCHED-006'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 2 });
    const [l0, l1] = p.locationIds;
    const claims = await t.given('records', { domain: 'Claim', count: 1 });
    const claimId = claims.ids[0];
    const before = await scheduleSet(t, p);

    // Section 1: "A domain is addressed by its case-sensitive name.": the schedule domain's name in
    // other case names no domain, so it is no valid schedule domain of the proposal (4.5)
    const lower = p.scheduleDomain.toLowerCase();
    const otherCase = lower === p.scheduleDomain ? p.scheduleDomain.toUpperCase() : lower;
    for (const domain of ['Claim', 'Contact', 'NoSuchScheduleDomain', otherCase]) {
      const r = await upsertMulti(t, p.proposalId, domain, {
        Inserts: [{ Fields: location(`Wrong domain ${domain}`, 'w') }],
        Updates: [{ ID: l1, Fields: { LocationName: `Wrong ${domain}` } }],
        Deletes: [{ ID: domain === 'Claim' ? claimId : l0 }],
      });
      for (const item of resultsOf(r.body))
        expect(item.IsSuccessful, `${domain}: no item reports success (${JSON.stringify(item)})`).toBe(false);
    }
    const claim = await t.api.GET('/api/{domain}/{id}', { params: { path: { domain: 'Claim', id: claimId } } });
    expect(claim.response.status, 'the Claim named in Deletes still exists').toBe(200);
    await expectSet(t, 'SCHED-006', p, before, "the proposal's records are unchanged");
  },
);

// ---------------------------------------------------------------------------------------------
// Core: single DELETE and Reinstate

conformance(
  {
    id: 'schedules.single-delete-result',
    title: 'the single DELETE answers one result with OrderNumber null and the record ID, and removes only that record',
    requirements: ['SCHED-004', 'SCHED-001', 'SCHED-002', 'SCHED-005', 'SCHED-022'],
    classes: ['SCHED-022:Quote', 'SCHED-001:boolean.true'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', locations: 3 });
    const twin = await proposal(t, { type: 'Quote', locations: 3 });
    const [, l1] = p.locationIds;
    const before = await scheduleSet(t, p);
    const twinBefore = await scheduleSet(t, twin);
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
    expect2xx(d.status);
    expectResultShape(d.body, 'DELETE result');
    expectDeleted(d.body, p.proposalId, l1);
    // a Quote's deleted record cannot be read: SCHED-022's statement alone
    const gone = await readRecord(t, p, l1);
    judgedAlone('SCHED-022', 'the deleted record cannot be read', () =>
      expectFinding(judgeReadBack('SCHED-022', record(l1, null), record(l1, gone)), 'SCHED-022'),
    );
    await expectSet(t, 'SCHED-022', p, applied(before, [], [l1]), 'only the deleted record is gone');
    await expectSet(t, 'SCHED-022', twin, twinBefore, "the twin proposal's records are untouched");

    // A failed single delete (the record is already gone) reports RecordID 0.
    const again = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
    expect(isRefusal(again.res), 'deleting a deleted record is refused').toBe(true);
    for (const res of resultsOf(again.body)) {
      judgedAlone('SCHED-002', 'a failed single delete reports RecordID 0', () =>
        expectFinding(judgeRecordIds([{ kind: 'Deletes', result: res }]), 'SCHED-002'),
      );
      expect(res.OrderNumber ?? null).toBeNull();
    }
    await expectSet(t, 'SCHED-022', p, applied(before, [], [l1]), 'the refused delete changes nothing');
  },
);

conformance(
  {
    id: 'schedules.delete-non-modifiable',
    title: 'DELETE on a non-modifiable proposal answers the documented failure result and keeps the record',
    requirements: ['SCHED-018', 'SCHED-001'],
    classes: ['SCHED-018:status-R', 'SCHED-018:non-endorsement', 'SCHED-001:boolean.false'],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Quote', status: 'R', locations: 2 });
    const [, l1] = p.locationIds;
    const before = await scheduleSet(t, p);
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
    const body = d.body;
    expectResultShape(body, 'DELETE result');
    // the fields and the meaning of the failure result (section 7) are SCHED-018's statement alone
    judgedAlone('SCHED-018', 'the failure result of a DELETE on a non-modifiable proposal', () =>
      expectFinding(judgeSingleDelete(p.proposalId, body, { notModifiable: true }), 'SCHED-018'),
    );
    await expectSet(t, 'SCHED-018', p, before, 'the records stay as they were');
  },
);

conformance(
  {
    id: 'schedules.endorsement-soft-delete-reinstate',
    title:
      'DELETE on an Endorsement soft-deletes; Reinstate makes the record active again with its values, and nothing else changes',
    requirements: ['SCHED-019', 'SCHED-021', 'SCHED-002', 'SCHED-004'],
    classes: [
      'SCHED-019:state.second-of-two',
      'SCHED-019:state.repeated-after-undo',
      'SCHED-021:state.repeated-after-undo',
      'SCHED-021:state.read-after-write',
    ],
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Endorsement', locations: 3 });
    const twin = await proposal(t, { type: 'Endorsement', locations: 3 });
    const [l0, l1] = p.locationIds;
    const before = await scheduleSet(t, p);
    const twinBefore = await scheduleSet(t, twin);
    const values = await readRecord(t, p, l1);
    expect(values).not.toBeNull();

    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
    expect2xx(d.status);
    expectResultShape(d.body, 'DELETE result');
    expectDeleted(d.body, p.proposalId, l1);
    // Between DELETE and Reinstate the interface shows nothing documented (see the file head):
    // the other records are checked, the soft-deleted one is not.
    const during = await scheduleSet(t, p);
    for (const id of p.locationIds.filter((i) => i !== l1))
      expect(during.get(id), `record ${id} is untouched by the soft delete`).toEqual(before.get(id));
    expect(
      [...during.keys()].filter((id) => !before.has(id)),
      'no record appears',
    ).toEqual([]);

    const r = await reinstate(t, p.proposalId, p.scheduleDomain, l1);
    // Reinstate of a soft-deleted record is accepted: SCHED-021's statement alone
    judgedAlone('SCHED-021', 'Reinstate of the soft-deleted record is accepted', () =>
      expect(
        isRefusal(r.res),
        `Reinstate of the soft-deleted record is accepted (${r.status} ${JSON.stringify(r.body)})`,
      ).toBe(false),
    );
    const back = await readRecord(t, p, l1);
    judgedAlone('SCHED-021', 'the reinstated record is active again with its values', () =>
      expectFinding(judgeReadBack('SCHED-021', record(l1, values), record(l1, back)), 'SCHED-021'),
    );
    await expectSet(t, 'SCHED-021', p, before, "the proposal's records are as before the DELETE");
    await expectSet(t, 'SCHED-019', twin, twinBefore, "the twin proposal's records are untouched");
    // Active again: it can be changed like any record of the proposal.
    const x = tag();
    const back1 = [{ ID: l1, Fields: { City: `Back ${x}` } }];
    const u = await upsertMulti(t, p.proposalId, p.scheduleDomain, { Updates: back1 });
    expect2xx(u.status);
    expectBatchShape(u.body);
    needsUnnamedFieldsKept(u.body.Updates, back1, p.requiredField, 'an update of the reinstated record');
    expect(u.body.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: l1 });
    expect((await readRecord(t, p, l1))?.City).toBe(`Back ${x}`);
    // And deleted again (soft) like an active record, without touching the others.
    const d2 = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
    expect(d2.body).toMatchObject({ IsSuccessful: true, RecordID: l1 });
    expect(await readRecord(t, p, l0), 'the first record stays').toEqual(before.get(l0));
    // And reinstated a second time (delete, reinstate, delete, reinstate): active again with the
    // values it had when deleted the second time, not those of the first deletion (no stale copy).
    const r2 = await reinstate(t, p.proposalId, p.scheduleDomain, l1);
    judgedAlone('SCHED-021', 'a second Reinstate of the record deleted again is accepted', () =>
      expect(isRefusal(r2.res), `second Reinstate (${r2.status} ${JSON.stringify(r2.body)})`).toBe(false),
    );
    const back2 = await readRecord(t, p, l1);
    judgedAlone('SCHED-021', 'the record reinstated a second time has its latest values', () =>
      expectFinding(
        judgeReadBack('SCHED-021', record(l1, { ...values, City: `Back ${x}` }), record(l1, back2)),
        'SCHED-021',
      ),
    );
  },
);

for (const type of ['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue'] as const) {
  conformance(
    {
      id: `schedules.permanent-delete-${type.toLowerCase()}`,
      title: `DELETE on a ${type} proposal deletes the record permanently: it cannot be read or reinstated`,
      requirements: ['SCHED-022', 'SCHED-004'],
      classes: [`SCHED-022:${type}`],
      mutates: true,
    },
    async (t) => {
      const p = await proposal(t, { type, locations: 3 });
      const [, l1] = p.locationIds;
      const before = await scheduleSet(t, p);
      const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l1);
      expect2xx(d.status);
      expectDeleted(d.body, p.proposalId, l1);
      // unreadable and not reinstatable afterwards: SCHED-022's statement alone
      const gone = await readRecord(t, p, l1);
      judgedAlone('SCHED-022', 'the deleted record cannot be read', () =>
        expectFinding(judgeReadBack('SCHED-022', record(l1, null), record(l1, gone)), 'SCHED-022'),
      );
      await expectSet(t, 'SCHED-022', p, applied(before, [], [l1]), 'only the deleted record is gone');
      // Reinstate's answer is not shown; when it is a result, it reports no success.
      const r = await reinstate(t, p.proposalId, p.scheduleDomain, l1);
      const still = await readRecord(t, p, l1);
      judgedAlone('SCHED-022', 'a permanently deleted record cannot be reinstated', () => {
        for (const res of resultsOf(r.body))
          expect(res.IsSuccessful, `Reinstate of a permanently deleted record: ${JSON.stringify(res)}`).toBe(false);
        expectFinding(judgeReadBack('SCHED-022', record(l1, null), record(l1, still)), 'SCHED-022', 'after Reinstate');
      });
      await expectSet(t, 'SCHED-022', p, applied(before, [], [l1]), 'the Reinstate attempt changes nothing');
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Implementation-defined (the reference's choices)

async function refQuery(t: Ctx, domain: string, filter: string, columns: string): Promise<Row[]> {
  const qs = new URLSearchParams({ [t.bindings.query.filter]: filter, columns, take: '100' });
  const res = await t.raw(`/api/${domain}/Query?${qs}`);
  expect(res.status, `GET /api/${domain}/Query?${qs}`).toBe(200);
  const list: unknown = (res.json as { List?: unknown } | undefined)?.List;
  expect(Array.isArray(list), `GET /api/${domain}/Query: List is an array`).toBe(true);
  return list as Row[];
}

conformance(
  {
    id: 'schedules.ref-reinstate-answer',
    title:
      'reference: Reinstate answers a result with OrderNumber null; a soft-deleted record reads as not found and is left out of queries until reinstated; 409 when not soft-deleted',
    requirements: ['SCHED-024', 'SCHED-030'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await proposal(t, { type: 'Endorsement', locations: 3 });
    const [, l0] = p.locationIds;
    const before = await scheduleSet(t, p);
    const notDeleted = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(notDeleted.status, 'Reinstate of an active record').toBe(409);
    expect(notDeleted.body).toMatchObject({ IsSuccessful: false });

    expect((await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0)).status).toBe(200);
    const hidden = await t.raw(`/api/${p.scheduleDomain}/${l0}?columns=LocationName`);
    expect(hidden.status, 'a soft-deleted record is not active: 404 on a read').toBe(404);
    expect(hidden.json).toMatchObject({ code: 'RecordNotFound' });
    const listed = await scheduleSet(t, p);
    expect(listed.has(l0), 'a soft-deleted record is left out of a query').toBe(false);
    expect(listed.size, 'the other records are listed').toBe(before.size - 1);

    const r = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(r.status).toBe(200);
    expectResultShape(r.body, 'Reinstate result');
    expect(r.body).toMatchObject({ IsSuccessful: true, RecordID: l0, OrderNumber: null });
    const back = await readRecord(t, p, l0, ['LocationName', 'IsDeleted']);
    expect(back, 'a reinstated record reads again').not.toBeNull();
    expect(Boolean(back?.IsDeleted), 'IsDeleted after Reinstate').toBe(false);
    expect(asObject(await scheduleSet(t, p)), 'listed again after Reinstate').toEqual(asObject(before));

    const again = await reinstate(t, p.proposalId, p.scheduleDomain, l0);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ IsSuccessful: false, OrderNumber: null });

    const q = await proposal(t, { type: 'Quote', locations: 1 });
    const [q0] = q.locationIds;
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
    const [l0, l1] = p.locationIds;
    const before = await Promise.all([l0, l1].map((id) => readRecord(t, p, id)));
    const d = await deleteSchedule(t, p.proposalId, p.scheduleDomain, l0);
    expect(d.status).toBe(409);
    expect(d.body).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null, Warnings: null });

    const u = await upsertMulti(t, p.proposalId, p.scheduleDomain, {
      Inserts: [{ Fields: location('Never', 'n') }],
      Updates: [{ ID: l0, Fields: { LocationName: 'Never' } }],
      Deletes: [{ ID: l1 }],
    });
    expect(u.status).toBe(409);
    const ub = u.body;
    expectBatchShape(ub);
    for (const k of KINDS) {
      expect(ub[k], `every ${k} item is answered`).toHaveLength(1);
      expect(ub[k][0]).toMatchObject({ IsSuccessful: false, OrderNumber: 0 });
      expectMentions(ub[k][0].Message, idPattern(p.proposalId), CANNOT_MODIFY);
    }
    expect(await Promise.all([l0, l1].map((id) => readRecord(t, p, id)))).toEqual(before);
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
    const [e0] = e.locationIds;
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
    const [q0] = q.locationIds;
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
    const [l0, l1] = p.locationIds;
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
    const body = r.body;
    expectBatchShape(body);
    expectOrderNumbers(body.Inserts, [0, 1], 'Inserts');
    expect(body.Updates).toHaveLength(1);
    expect(body.Deletes).toHaveLength(1);
    for (const k of KINDS) for (const it of body[k]) expect(it.IsSuccessful).toBe(true);
    expect((await readRecord(t, p, byOrder(body.Inserts, 1, 'Inserts').RecordID))?.LocationName).toBe(`AtomOK B ${x}`);
    expect((await readRecord(t, p, l0))?.LocationName).toBe(`AtomOK U ${x}`);
    expect(await readRecord(t, p, l1)).toBeNull();

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
    expectBatchShape(failed.body);
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
    const [l0] = p.locationIds;
    for (const domain of ['Claim', 'NoSuchScheduleDomain', 'proposallocation']) {
      const u = await upsertMulti(t, p.proposalId, domain, { Inserts: [{ Fields: location('x', 'x') }] });
      expect(u.status, `UpsertMulti on ${domain}`).toBe(404);
      expect(u.body).toMatchObject({ code: 'InvalidScheduleDomain' });
      const d = await deleteSchedule(t, p.proposalId, domain, l0);
      expect(d.status, `DELETE on ${domain}`).toBe(404);
      expect(d.body).toMatchObject({ code: 'InvalidScheduleDomain' });
      const r = await reinstate(t, p.proposalId, domain, l0);
      expect(r.status, `Reinstate on ${domain}`).toBe(404);
      expect(r.body).toMatchObject({ code: 'InvalidScheduleDomain' });
    }
    expect(await readRecord(t, p, l0), 'the location was not touched').not.toBeNull();
  },
);
