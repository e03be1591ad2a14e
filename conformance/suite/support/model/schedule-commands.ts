// The schedule steps of the model-based tests as fast-check commands: each runs one operation
// against the service, judges the answer by the oracle (oracle.ts), applies the step to the model,
// and then compares what the interface shows with the model (read-back.ts): both proposals'
// records, by ID and listed whole, so a step that changes a record it did not name shows too.
import type fc from 'fast-check';
import { expect } from 'vitest';
import { expectMentions, isRefusal } from '../../../src/suite-api/meaning.js';
import { fieldPattern, REQUIRED, type ScheduleResult } from '../../../src/judge/sched.js';
import { deleteSchedule, expectResultShape, reinstate, upsertMulti } from '../schedules.js';
import { judged } from './blame.js';
import {
  activeRecords,
  applyBatch,
  applyDelete,
  applyReinstate,
  expectBatch,
  filledArrays,
  freshFields,
  reinstateCandidates,
  reinstateOutcome,
  resolveBatch,
  takenIds,
  type BatchSpec,
  type Expected,
  type Model,
} from './oracle.js';
import { checkSchedules, type Real } from './read-back.js';

type Cmd = fc.AsyncCommand<Model, Real>;

/** The proposal type as the spec tells them apart (3): an Endorsement deletes softly, the others permanently. */
const kindClass = (m: Model) => (m.kind === 'Endorsement' ? 'Endorsement' : 'non-Endorsement');

/** The results of one answered array by OrderNumber, each of the documented shape (2.5), each order once. */
function byOrder(items: unknown, what: string): Map<number, ScheduleResult> {
  judged('SCHED-008', () => expect(Array.isArray(items), `${what} is an array of results`).toBe(true));
  const map = new Map<number, ScheduleResult>();
  (items as unknown[]).forEach((item, i) => {
    judged('SCHED-008', () => expectResultShape(item, `${what}[${i}]`));
    const it = item as ScheduleResult; // the shape was just checked
    // an item of a batch answers its position in its input array (null is for the single delete)
    const order = it.OrderNumber as number;
    judged('SCHED-003', () => {
      expect(Number.isInteger(it.OrderNumber), `${what}[${i}].OrderNumber is an integer`).toBe(true);
      expect(map.has(order), `${what}: OrderNumber ${order} answered once`).toBe(false);
    });
    map.set(order, it);
  });
  return map;
}

/**
 * Checks one array of results against the expectation; returns the RecordIDs of new inserts.
 * `listing` is the rule that says which items the answer lists (SCHED-012, 013, 015).
 */
function checkResults(
  what: 'Inserts' | 'Updates' | 'Deletes',
  items: unknown,
  expected: Expected[],
  answered: 'all' | 'failed-only' | 'successful-subset',
  knownIds: Set<number>,
  listing: string,
): Map<number, number> {
  const got = byOrder(items, what);
  // each OrderNumber indexes its item in the array sent (SCHED-003): judged before which are listed
  judged('SCHED-003', () => {
    for (const order of got.keys())
      expect(order >= 0 && order < expected.length, `${what}: OrderNumber ${order} of ${expected.length} sent`).toBe(
        true,
      );
  });
  const listed =
    answered === 'all'
      ? expected
      : answered === 'failed-only'
        ? expected.filter((e) => !e.ok)
        : expected.filter((e) => got.has(e.order));
  judged(listing, () =>
    expect(
      [...got.keys()].sort((a, b) => a - b),
      `${what}: the answered items (by OrderNumber; ${answered})`,
    ).toEqual(listed.map((e) => e.order)),
  );
  // the rule a failed item of this array breaks: an insert without LocationName (SCHED-016), an
  // update that empties it (SCHED-017), another failure (SCHED-023)
  const failure = what === 'Inserts' ? 'SCHED-016' : what === 'Updates' ? 'SCHED-017' : 'SCHED-023';
  const newIds = new Map<number, number>();
  for (const e of listed) {
    // listed orders are exactly the answered ones (checked above)
    const it = got.get(e.order)!;
    judged(e.ok ? 'SCHED-008' : failure, () => expect(it.IsSuccessful, `${what}[${e.order}].IsSuccessful`).toBe(e.ok));
    judged('SCHED-005', () =>
      expect(typeof it.Message === 'string' && it.Message.length > 0, `${what}[${e.order}] has a Message`).toBe(true),
    );
    judged('SCHED-002', () => {
      if (e.recordId === 'new') {
        expect(Number.isInteger(it.RecordID) && it.RecordID > 0, `${what}[${e.order}].RecordID is the new ID`).toBe(
          true,
        );
        expect(knownIds.has(it.RecordID), `${what}[${e.order}].RecordID ${it.RecordID} is a new ID`).toBe(false);
      } else {
        expect(it.RecordID, `${what}[${e.order}].RecordID`).toBe(e.recordId);
      }
    });
    if (e.recordId === 'new') {
      knownIds.add(it.RecordID);
      newIds.set(e.order, it.RecordID);
    }
    // the same meaning check as the schedule tests (catalogue `meaning:` of SCHED-005): the field, and
    // that it is required, in any wording
    if (!e.ok) judged(failure, () => expectMentions(it.Message, fieldPattern('LocationName'), REQUIRED));
  }
  return newIds;
}

class BatchCommand implements Cmd {
  constructor(readonly spec: BatchSpec) {}
  /** A batch answered with part of its items runs only once an answer listing every item has shown
   * the OrderNumbers of its arrays (Model.ordersShown): one wrong numbering, one red line (SCHED-003). */
  check(m: Readonly<Model>) {
    // resolved on a copy: resolving draws field values from the model's counter
    const b = resolveBatch({ ...(m as Model) }, this.spec);
    return expectBatch(m as Model, b).answered === 'all' || filledArrays(b).every((a) => m.ordersShown.has(a));
  }
  async run(m: Model, r: Real) {
    const b = resolveBatch(m, this.spec);
    const e = expectBatch(m, b);
    const p = r.proposals[b.proposal];
    r.tally.step(
      'UpsertMulti',
      'admin',
      `${kindClass(m)}, isAtomic=${b.atomic ?? 'absent'}, ${e.anyFails ? 'an invalid item' : 'valid items'}`,
    );
    r.log.push(
      `UpsertMulti proposal ${p.proposalId} isAtomic=${b.atomic ?? '(absent)'} ${JSON.stringify({
        Inserts: b.inserts.map((x) => x.fields),
        Updates: b.updates.map((x) => ({ ID: x.id, Fields: x.fields })),
        Deletes: b.deletes.map((x) => ({ ID: x.id })),
      })}`,
    );
    const res = await upsertMulti(
      r.t,
      p.proposalId,
      p.scheduleDomain,
      {
        Inserts: b.inserts.map((x) => ({ Fields: x.fields })),
        Updates: b.updates.map((x) => ({ ID: x.id, Fields: x.fields })),
        Deletes: b.deletes.map((x) => ({ ID: x.id })),
      },
      b.atomic,
    );
    r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
    // The HTTP status of a batch with failed items is not shown (spec 7): judged by its items only.
    if (!e.anyFails)
      judged('SCHED-008', () =>
        expect(res.status >= 200 && res.status < 300, `UpsertMulti answers 2xx (got ${res.status})`).toBe(true),
      );
    const known = takenIds(m);
    // which items the answer lists: every item without isAtomic (SCHED-013) or non-atomic (SCHED-012),
    // only the failed ones of an atomic batch that failed (SCHED-015)
    const listing =
      e.answered === 'failed-only'
        ? 'SCHED-015'
        : b.atomic === undefined
          ? 'SCHED-013'
          : b.atomic
            ? 'SCHED-008'
            : 'SCHED-012';
    // what the records show afterwards: nothing of an atomic batch that failed (SCHED-014), exactly
    // the successful items otherwise (SCHED-011 non-atomic, SCHED-013 without isAtomic, SCHED-008)
    const applied =
      b.atomic === undefined ? 'SCHED-013' : b.atomic === false ? 'SCHED-011' : e.anyFails ? 'SCHED-014' : 'SCHED-008';
    // the answer's arrays as sent (checkResults judges each one's shape)
    const answer = (res.body ?? {}) as Partial<Record<'Inserts' | 'Updates' | 'Deletes', unknown>>;
    const ins = checkResults('Inserts', answer.Inserts, e.inserts, e.answered, known, listing);
    checkResults('Updates', answer.Updates, e.updates, e.answered, known, listing);
    checkResults('Deletes', answer.Deletes, e.deletes, e.answered, known, listing);
    // every item answered and each OrderNumber its index: the numbering of these arrays is shown
    if (e.answered === 'all') for (const a of filledArrays(b)) m.ordersShown.add(a);
    applyBatch(
      m,
      b,
      e,
      b.inserts.map((_, i) => ins.get(i)),
    );
    await checkSchedules(m, r, applied);
  }
  toString() {
    const s = this.spec;
    return `UpsertMulti(proposal ${s.proposal}, atomic=${s.atomic}, inserts=[${s.inserts.join(',')}], updates=[${s.updates
      .map((u) => `#${u.pick}:${u.kind}`)
      .join(',')}], deletes=[${s.deletes.map((d) => `#${d}`).join(',')}])`;
  }
}

class DeleteCommand implements Cmd {
  constructor(
    readonly pick: number,
    readonly proposal: number,
  ) {}
  check(m: Readonly<Model>) {
    return activeRecords(m as Model, this.proposal).length > 0;
  }
  async run(m: Model, r: Real) {
    const active = activeRecords(m, this.proposal);
    const rec = active[this.pick % active.length];
    const p = r.proposals[rec.proposal];
    r.tally.step('DELETE', 'admin', `${kindClass(m)}, active record`);
    r.log.push(`DELETE proposal ${p.proposalId} ${p.scheduleDomain}/${rec.id}`);
    const res = await deleteSchedule(r.t, p.proposalId, p.scheduleDomain, rec.id);
    r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
    // a soft delete on an Endorsement (SCHED-019), a permanent one on the other types (SCHED-022)
    const rule = m.kind === 'Endorsement' ? 'SCHED-019' : 'SCHED-022';
    judged(rule, () => {
      expect(res.status >= 200 && res.status < 300, `DELETE answers 2xx (got ${res.status})`).toBe(true);
      expect(res.body, 'DELETE result').toMatchObject({ IsSuccessful: true, RecordID: rec.id });
    });
    judged('SCHED-004', () => expect(res.body, 'DELETE result').toMatchObject({ OrderNumber: null }));
    applyDelete(m, rec.id);
    await checkSchedules(m, r, rule);
  }
  toString() {
    return `Delete(proposal ${this.proposal}, #${this.pick})`;
  }
}

/**
 * Reinstate of a record through its own proposal's path; `twice`: the same Reinstate sent twice at
 * once (a double click): the record comes back once, no copy appears.
 */
class ReinstateCommand implements Cmd {
  constructor(
    readonly pick: number,
    readonly twice: boolean,
  ) {}
  check(m: Readonly<Model>) {
    return reinstateCandidates(m as Model).length > 0;
  }
  async run(m: Model, r: Real) {
    const cands = reinstateCandidates(m);
    const rec = cands[this.pick % cands.length];
    const outcome = reinstateOutcome(m, rec);
    const p = r.proposals[rec.proposal];
    const what = `${rec.state}${rec.reinstated ? ', reinstated before' : ''}`;
    r.tally.step(`Reinstate${this.twice ? 'Twice' : ''}`, 'admin', `${kindClass(m)}, ${what} record`);
    r.log.push(
      `Reinstate${this.twice ? ' (twice at once)' : ''} proposal ${p.proposalId} ${p.scheduleDomain}/${rec.id} (${what})`,
    );
    const send = () => reinstate(r.t, p.proposalId, p.scheduleDomain, rec.id);
    const answers = this.twice ? await Promise.all([send(), send()]) : [await send()];
    for (const res of answers) r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
    // a soft-deleted record comes back (SCHED-021); a permanently deleted one does not (SCHED-022);
    // a restored one again: no answer is stated, and nothing may change (SCHED-021: one record)
    const rule = outcome === 'refused' && rec.state === 'deleted' ? 'SCHED-022' : 'SCHED-021';
    if (outcome === 'restored')
      // twice at once: one of them restores it; the other may be refused as a repetition
      judged(rule, () =>
        expect(
          answers.some((res) => !isRefusal(res.res)),
          `Reinstate of soft-deleted record ${rec.id} is accepted`,
        ).toBe(true),
      );
    if (outcome === 'refused' && !this.twice) {
      const res = answers[0];
      judged(rule, () =>
        expect(isRefusal(res.res), `Reinstate of ${rec.state} record ${rec.id} is refused`).toBe(true),
      );
      if (m.flavour === 'reference')
        judged('SCHED-024', () => {
          expect(res.status, 'the reference refuses a Reinstate of a record that is not soft-deleted with 409').toBe(
            409,
          );
          expect(res.body).toMatchObject({ IsSuccessful: false, OrderNumber: null });
        });
    }
    applyReinstate(rec);
    await checkSchedules(m, r, rule);
  }
  toString() {
    return `Reinstate${this.twice ? 'Twice' : ''}(#${this.pick})`;
  }
}

/**
 * The same record updated twice in a row, each a non-atomic batch of one update, the second sent
 * as soon as the first is answered (well within a second): both are acknowledged, and the record
 * holds the second's values (SCHED-011: each item committed on its own).
 */
class UpdateTwiceCommand implements Cmd {
  constructor(
    readonly pick: number,
    readonly proposal: number,
  ) {}
  check(m: Readonly<Model>) {
    return activeRecords(m as Model, this.proposal).length > 0;
  }
  async run(m: Model, r: Real) {
    const active = activeRecords(m, this.proposal);
    const rec = active[this.pick % active.length];
    const p = r.proposals[rec.proposal];
    r.tally.step('UpdateTwice', 'admin', `${kindClass(m)}, active record`);
    for (const n of [1, 2]) {
      const fields = freshFields(m, `upd ${rec.id}`);
      const batch = { Updates: [{ ID: rec.id, Fields: { ...fields } }] };
      r.log.push(
        `UpsertMulti proposal ${p.proposalId} isAtomic=false (update ${n} of 2 of ${rec.id}) ${JSON.stringify(batch)}`,
      );
      const res = await upsertMulti(r.t, p.proposalId, p.scheduleDomain, batch, false);
      r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
      judged('SCHED-011', () => {
        expect(res.status >= 200 && res.status < 300, `UpsertMulti answers 2xx (got ${res.status})`).toBe(true);
        expect(res.body, `update ${n} of record ${rec.id}`).toMatchObject({
          Updates: [{ IsSuccessful: true, RecordID: rec.id }],
        });
      });
      // the numbering of the answer's items is another rule (SCHED-003): one wrong numbering, one red line
      judged('SCHED-003', () =>
        expect(
          (res.body as { Updates?: Array<{ OrderNumber?: unknown }> }).Updates?.[0]?.OrderNumber,
          `OrderNumber of update ${n} of record ${rec.id}, the only item of its array`,
        ).toBe(0),
      );
      rec.fields = { ...rec.fields, ...fields };
    }
    await checkSchedules(m, r, 'SCHED-011');
  }
  toString() {
    return `UpdateTwice(proposal ${this.proposal}, #${this.pick})`;
  }
}

/**
 * A record of one proposal named through the other proposal's path (spec 4.5 rule 2: all
 * operations target the same proposal): an update or delete in a non-atomic batch, the single
 * DELETE, or a Reinstate. The update and deletes fail; the Reinstate's answer is not stated; in
 * every case nothing changes on either proposal (SCHED-010).
 */
export type ForeignOp = 'update' | 'batch-delete' | 'delete' | 'reinstate';

class ForeignCommand implements Cmd {
  constructor(
    readonly op: ForeignOp,
    readonly pick: number,
  ) {}
  private candidates(m: Model) {
    return this.op === 'reinstate'
      ? m.records.filter((x) => x.state === 'soft-deleted' || (x.state === 'active' && x.reinstated))
      : activeRecords(m);
  }
  check(m: Readonly<Model>) {
    return this.candidates(m as Model).length > 0;
  }
  async run(m: Model, r: Real) {
    const cands = this.candidates(m);
    const rec = cands[this.pick % cands.length];
    const via = r.proposals[1 - rec.proposal];
    const own = r.proposals[rec.proposal];
    const what = `record ${rec.id} (${rec.state}) of proposal ${own.proposalId} through proposal ${via.proposalId}`;
    r.tally.step(`Foreign ${this.op}`, 'admin', `${kindClass(m)}, ${rec.state} record of the other proposal`);
    if (this.op === 'update' || this.op === 'batch-delete') {
      const batch =
        this.op === 'update'
          ? { Updates: [{ ID: rec.id, Fields: { ...freshFields(m, 'foreign') } }] }
          : { Deletes: [{ ID: rec.id }] };
      r.log.push(`UpsertMulti proposal ${via.proposalId} isAtomic=false ${JSON.stringify(batch)} (${what})`);
      const res = await upsertMulti(r.t, via.proposalId, via.scheduleDomain, batch, false);
      r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
      const items = (res.body as Record<string, unknown> | undefined)?.[this.op === 'update' ? 'Updates' : 'Deletes'];
      if (res.status >= 200 && res.status < 300)
        judged('SCHED-010', () =>
          expect(
            Array.isArray(items) && items.every((x) => (x as ScheduleResult)?.IsSuccessful === false),
            `the ${this.op} of ${what} fails`,
          ).toBe(true),
        );
    } else {
      const send = this.op === 'delete' ? deleteSchedule : reinstate;
      r.log.push(
        `${this.op === 'delete' ? 'DELETE' : 'Reinstate'} proposal ${via.proposalId} ${via.scheduleDomain}/${rec.id} (${what})`,
      );
      const res = await send(r.t, via.proposalId, via.scheduleDomain, rec.id);
      r.log.push(`  -> ${res.status} ${JSON.stringify(res.body)}`);
      if (this.op === 'delete')
        judged('SCHED-010', () => expect(isRefusal(res.res), `DELETE of ${what} is refused`).toBe(true));
    }
    await checkSchedules(m, r, 'SCHED-010');
  }
  toString() {
    return `Foreign(${this.op}, #${this.pick})`;
  }
}

export { BatchCommand, DeleteCommand, ForeignCommand, ReinstateCommand, UpdateTwiceCommand };
