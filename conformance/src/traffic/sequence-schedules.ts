// Sequence rules of schedule records (spec 4.5, 3, 7): what a batch, a DELETE or a Reinstate did,
// judged on later reads of the same records and on what a recorded provider state set up. What
// one answer shows is judged by judge/sched.ts (traffic/rules-proposals.ts).
import { requestedColumns } from '../judge/col.js';
import { after, isObject, type TrafficExchange } from './exchange.js';
import { intParam, isInt, judgedSequenceRule, selectionKeepingParams } from './rule.js';
import {
  type ReadBackRequirement,
  SCHED_FOREIGN_RECORD_JUDGE,
  SCHED_READ_BACK_JUDGE,
  judgeForeignRecords,
  readBackFault,
  batchRequirement,
  judgeReadBack,
  writtenItemRequirements,
} from '../judge/sched-sequence.js';
import { batchOf, itemId, itemOf } from './schedules.js';
import { KINDS, SCHED_SINGLE_DELETE_JUDGE, judgeSingleDelete } from '../judge/sched.js';
import { proposalOf } from './states.js';
import { between, op, readsOf, writesOf } from './sequence-records.js';

/** SCHED-007, SCHED-008, SCHED-029: what a successful insert or update wrote reads back (judge/sched-sequence.ts). */
export const writeThenRead = judgedSequenceRule([SCHED_READ_BACK_JUDGE], {
  name: 'write_then_read',
  requirements: ['SCHED-007', 'SCHED-008', 'SCHED-029'],
  description:
    'after a successful insert or update of a schedule record, a later read of that record (GET /api/{domain}/{id}) shows the written values of the fields it returns, unless another write to it came between',
  judge(xs, _ctx, emit) {
    for (const w of xs) {
      const b = batchOf(w);
      if (!b?.results || (b.atomic && b.anyFailure)) continue;
      for (const k of ['Inserts', 'Updates'] as const)
        for (const r of b.results[k]) {
          const item = itemOf(b, k, r);
          const fields = item && isObject(item.Fields) ? item.Fields : undefined;
          const id = k === 'Inserts' ? r.RecordID : item && itemId(item);
          if (r.IsSuccessful !== true || !fields || typeof id !== 'number' || id <= 0) continue;
          const writes = writesOf(xs, b.domain, id);
          const read = readsOf(xs, b.domain, id).find(
            (x) => after(w, x) && !writes.some((o) => o !== w && between(o, w, x)),
          );
          if (!read) continue;
          const rec = (read.json as { Record: Record<string, unknown> }).Record;
          // the read's values under the written field names (its columns may alias them)
          const cols = requestedColumns(read.query.get('columns'));
          const shown = Object.keys(fields).flatMap((f) => {
            const key = cols ? cols.find((c) => c.field === f)?.key : f;
            return key !== undefined && key in rec ? [[f, rec[key]] as const] : [];
          });
          if (!shown.length) continue;
          const what = `${k} item of ${b.domain} ${id}`;
          for (const q of writtenItemRequirements(k, b.atomic))
            emit(judgeReadBack(q, [[id, fields]], [[id, Object.fromEntries(shown)]], false, what), [w, read]);
        }
    }
  },
});

/** SCHED-014, SCHED-011: an item that failed (or a whole failed atomic batch) leaves its record as it read before. */
export const failedWriteChangesNothing = judgedSequenceRule([SCHED_READ_BACK_JUDGE], {
  name: 'failed_write_changes_nothing',
  requirements: ['SCHED-014', 'SCHED-011'],
  description:
    'a record named by an update or delete of a failed atomic batch (or by a failed item of a non-atomic one) reads the same just before and just after it, when no other write to it came between',
  judge(xs, _ctx, emit) {
    for (const w of xs) {
      const b = batchOf(w);
      if (!b?.results || !b.anyFailure) continue;
      const ids = new Set<number>();
      if (b.atomic)
        for (const i of [...b.input.Updates, ...b.input.Deletes]) if (itemId(i) !== undefined) ids.add(itemId(i)!);
      if (!b.atomic)
        for (const k of ['Updates', 'Deletes'] as const)
          for (const r of b.results[k]) {
            const item = itemOf(b, k, r);
            if (r.IsSuccessful === false && item && itemId(item) !== undefined) ids.add(itemId(item)!);
          }
      for (const id of ids) {
        const reads = readsOf(xs, b.domain, id);
        const writes = writesOf(xs, b.domain, id).filter((o) => o !== w);
        const before = reads.filter((r) => after(r, w)).pop();
        const later = reads.find((r) => after(w, r) && r.query.toString() === before?.query.toString());
        if (!before || !later || writes.some((o) => between(o, before, later))) continue;
        const [a, c] = [before, later].map((r) => (r.json as { Record: Record<string, unknown> }).Record);
        const what = `${b.domain} ${id}, before and after the failed ${b.atomic ? 'atomic batch' : 'item'}`;
        emit(judgeReadBack(batchRequirement(b.atomic, true), [[id, a!]], [[id, c!]], false, what), [before, w, later]);
      }
    }
  },
});

/** SCHED-021: a record reinstated successfully is active again and readable. */
export const reinstatedIsReadable = judgedSequenceRule([SCHED_READ_BACK_JUDGE], {
  name: 'reinstated_is_readable',
  requirements: ['SCHED-021'],
  description:
    'after a successful Reinstate of a schedule record, a later read of it (GET /api/{domain}/{id}, no other write to it between) answers it, not 404; judged only where a read of that domain answered 200 in the recording',
  judge(xs, _ctx, emit) {
    const readable = new Set(
      xs.filter((x) => op(x) === 'getRecord' && x.status === 200).map((x) => x.operation!.pathParams.domain),
    );
    for (const w of xs) {
      if (op(w) !== 'reinstateSchedule' || w.status < 200 || w.status >= 300) continue;
      if ((w.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful === false) continue;
      const { domain, scheduleId } = w.operation!.pathParams;
      const id = Number(scheduleId);
      if (!readable.has(domain) || !Number.isInteger(id)) continue;
      const writes = writesOf(xs, domain, id).filter((o) => o !== w);
      const read = xs.find(
        (x) =>
          op(x) === 'getRecord' &&
          x.operation!.pathParams.domain === domain &&
          x.operation!.pathParams.id === scheduleId &&
          after(w, x) &&
          (x.status === 404 || x.status === 200),
      );
      if (!read || writes.some((o) => between(o, w, read))) continue;
      const rec = (read.json as { Record?: unknown } | undefined)?.Record;
      if (read.status === 200 && !isObject(rec)) continue;
      const what = `${domain} ${id} reinstated (HTTP ${w.status}), then read (HTTP ${read.status})`;
      emit(judgeReadBack('SCHED-021', [[id, {}]], [[id, isObject(rec) ? rec : null]], false, what), [w, read]);
    }
  },
});

/**
 * PROP-002, PROP-003, PROP-004 with PROP-005 and SCHED-018: a proposal the recording's provider state
 * set up not modifiable (status B, R or 0; its proposal set bound; a pending expiry-date change)
 * has no schedule write succeed while the state holds (section 3; 4.5 rule 1). The DELETE's result
 * is SCHED-018's (judge/sched.ts judgeSingleDelete, knowing the proposal not modifiable); the
 * proposal area's requirements are this rule's own until that area has judges.
 */
export const notModifiableRefusesWrites = judgedSequenceRule([SCHED_SINGLE_DELETE_JUDGE], {
  name: 'not_modifiable_refuses_writes',
  requirements: ['PROP-002', 'PROP-003', 'PROP-004', 'PROP-005', 'SCHED-018'],
  description:
    'on a proposal the recording\'s provider state ("a proposal" with status B, R or 0, boundSet or pendingExpiryChange) set up not modifiable, no UpsertMulti item and no schedule DELETE is answered as successful while the state holds; the cause names the requirement (PROP-002 status, PROP-003 bound set, PROP-004 pending expiry change)',
  judge(xs, ctx, emit) {
    if (!ctx.states) return;
    for (const x of xs) {
      const kind = op(x);
      if ((kind !== 'upsertSchedules' && kind !== 'deleteSchedule') || x.json === undefined) continue;
      const pid = x.operation!.pathParams.proposalId;
      const p = proposalOf(ctx.states, pid, x);
      if (!p || !p.notModifiable.length) continue;
      const why = `proposal ${p.proposalId} set up with ${p.notModifiable.map((c) => c.cause).join(' and ')} (${p.setup.source})`;
      const causes = (reqs: string[], ok: boolean, detail: string) =>
        emit(
          reqs.map((requirement) => ({ requirement, ok, detail })),
          [x],
        );
      const prop = p.notModifiable.map((c) => c.requirement);
      if (kind === 'upsertSchedules') {
        const b = batchOf(x);
        if (b?.anySuccess) causes([...prop, 'PROP-005'], false, `UpsertMulti answered an item as successful on ${why}`);
        else if (b && (b.results || x.status >= 400))
          causes([...prop, 'PROP-005'], true, `no item successful on ${why}`);
        continue;
      }
      const ok = (x.json as { IsSuccessful?: unknown }).IsSuccessful;
      if (ok === true) causes(prop, false, `schedule DELETE answered IsSuccessful true on ${why}`);
      else if (ok === false || x.status >= 400) causes(prop, true, `schedule DELETE refused on ${why}`);
      const known = judgeSingleDelete(pid, x.json, { notModifiable: true });
      emit(
        known.filter((f) => f.requirement === 'SCHED-018'),
        [x],
      );
    }
  },
});

/** States whose setup creates no schedule record (so no record ID can be issued again by it). */
const CREATE_NO_SCHEDULE = new Set([
  'a user',
  'an expired token',
  'a file',
  'a contact',
  'a link parent',
  'contact relationships',
  'a setting',
]);

/**
 * SCHED-022: a schedule record deleted successfully on a modifiable Quote, Application, Renewal,
 * Rewrite or Reissue proposal (its type from the recording's provider state) is gone: a later read
 * of it does not answer it (section 3: permanently deleted).
 */
export const permanentDeleteIsGone = judgedSequenceRule([SCHED_READ_BACK_JUDGE], {
  name: 'permanent_delete_is_gone',
  requirements: ['SCHED-022'],
  description:
    "after a successful schedule DELETE on a proposal the recording's provider state set up modifiable and of type Quote, Application, Renewal, Rewrite or Reissue, the next read of the record (GET /api/{domain}/{id}) does not answer it; not judged when anything between may have issued that ID again (a write naming it, an unreadable batch, a state setup that may create schedule records)",
  judge(xs, ctx, emit) {
    if (!ctx.states) return;
    const setups = ctx.states.setups;
    for (const d of xs) {
      if (op(d) !== 'deleteSchedule' || d.status < 200 || d.status >= 300) continue;
      if ((d.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful !== true) continue;
      const { proposalId, domain, scheduleId } = d.operation!.pathParams;
      const p = proposalOf(ctx.states, proposalId, d);
      if (!p || p.notModifiable.length || !PERMANENT.has(p.type)) continue;
      const id = Number(scheduleId);
      if (!Number.isInteger(id)) continue;
      const read = xs.find(
        (x) =>
          op(x) === 'getRecord' &&
          x.operation!.pathParams.domain === domain &&
          Number(x.operation!.pathParams.id) === id &&
          after(d, x) &&
          x.json !== undefined,
      );
      if (!read) continue;
      if (writesOf(xs, domain, id).some((w) => w !== d && between(w, d, read))) continue;
      const reissued = setups.some(
        (s) =>
          s.endMs > d.startMs &&
          s.startMs < read.endMs &&
          !CREATE_NO_SCHEDULE.has(s.state) &&
          !(s.state === 'a proposal' && Array.isArray(s.values?.locationIds) && !s.values.locationIds.includes(id)),
      );
      if (reissued) continue;
      const rec = (read.json as { Record?: unknown }).Record;
      if (read.status === 200 && !isObject(rec)) continue;
      const what = `${domain} ${id} deleted (HTTP ${d.status}, IsSuccessful true) on ${p.type} proposal ${proposalId} (${p.setup.source}), then read (HTTP ${read.status})`;
      emit(judgeReadBack('SCHED-022', [[id, null]], [[id, isObject(rec) ? rec : null]], false, what), [d, read]);
    }
  },
});
const PERMANENT = new Set(['Quote', 'Application', 'Renewal', 'Rewrite', 'Reissue']);

/**
 * What a recorded write did to the set of a proposal's schedule records, as its answer says, and
 * the requirement stating it (none for a refused DELETE: the records stay, SCHED-018's, a
 * sentence of the single answer's judge).
 */
type Effect = { add: number[]; remove: number[]; requirement?: ReadBackRequirement; what: string } | 'unknown';

function effectOf(x: TrafficExchange, type: string): Effect {
  if (op(x) === 'deleteSchedule') {
    const ok = (x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful;
    if (x.status < 200 || x.status >= 300 || typeof ok !== 'boolean') return 'unknown';
    if (!ok) return { add: [], remove: [], what: 'a refused DELETE' };
    // what a soft delete shows is not stated (SCHED-019)
    if (!PERMANENT.has(type)) return 'unknown';
    const id = x.operation!.pathParams.scheduleId;
    return { add: [], remove: [Number(id)], requirement: 'SCHED-022', what: `DELETE of ${id}` };
  }
  if (op(x) !== 'upsertSchedules') return 'unknown';
  const b = batchOf(x);
  if (!b?.results || x.status < 200 || x.status >= 300) return 'unknown';
  // an update that may move a record to another proposal
  if (b.input.Updates.some((u) => isObject(u.Fields) && Object.keys(u.Fields).some((k) => /proposal/i.test(k))))
    return 'unknown';
  const requirement = batchRequirement(b.atomic, b.anyFailure);
  const what = `${b.atomic ? 'an atomic' : 'a non-atomic'} batch${b.anyFailure ? ' with a failed item' : ''}`;
  if (b.atomic && b.anyFailure) return { add: [], remove: [], requirement, what };
  const r = b.results;
  if (b.atomic) {
    if (KINDS.some((k) => r[k].some((i) => i.IsSuccessful !== true)) || r.Inserts.length !== b.input.Inserts.length)
      return 'unknown';
    const add = r.Inserts.map((i) => i.RecordID);
    const remove = b.input.Deletes.map(itemId);
    return add.every(isInt) && remove.every(isInt) ? { add, remove, requirement, what } : 'unknown';
  }
  if (KINDS.some((k) => r[k].length !== b.input[k].length)) return 'unknown';
  const add = r.Inserts.filter((i) => i.IsSuccessful === true).map((i) => i.RecordID);
  const remove = r.Deletes.filter((i) => i.IsSuccessful === true).map((i) => itemOf(b, 'Deletes', i)?.ID);
  return add.every(isInt) && remove.every(isInt) ? { add, remove, requirement, what } : 'unknown';
}

/**
 * SCHED-008, SCHED-011, SCHED-014, SCHED-029, SCHED-022: a proposal's schedule records, read back
 * whole with the filter its provider state gave (`scheduleFilter`, which selects exactly them),
 * are the records the state created (`locationIds`) changed by what each write's answer says it
 * did: a failed atomic batch nothing, a successful one everything, a non-atomic one exactly its
 * successful items, a permanent DELETE its record (judge/sched-sequence.ts judgeReadBack).
 */
export const proposalRecordsFollowWrites = judgedSequenceRule([SCHED_READ_BACK_JUDGE], {
  name: 'proposal_records_follow_writes',
  requirements: ['SCHED-008', 'SCHED-011', 'SCHED-014', 'SCHED-029', 'SCHED-022'],
  description:
    "a proposal's schedule records read back whole (GET /api/{scheduleDomain}/Query with the state's scheduleFilter and key column, first page not full) are the state's locationIds changed by what each write between says it did; a mismatch after one write names that write's requirement (SCHED-014 failed atomic, SCHED-029 atomic, SCHED-011 non-atomic with failures, SCHED-008 non-atomic, SCHED-022 permanent DELETE). Not judged after a write whose effect is not stated (a soft delete, a Reinstate, an unreadable batch) or one naming the records from another proposal",
  judge(xs, ctx, emit) {
    if (!ctx.states) return;
    const q = ctx.bindings.query;
    const allowed = selectionKeepingParams(q);
    const asRecords = (ids: Iterable<number>) => [...ids].map((id) => [id, {}] as const);
    for (const p of ctx.states.proposals) {
      const v = p.setup.values!;
      const filter = v.scheduleFilter;
      const key = v.scheduleKey;
      const domain = p.scheduleDomain;
      if (typeof filter !== 'string' || typeof key !== 'string' || !domain) continue;
      let expected: Set<number> | undefined = new Set(p.locationIds);
      let pending: Array<{ x: TrafficExchange; e: Exclude<Effect, 'unknown'> }> = [];
      const mine = (x: TrafficExchange) =>
        x.operation?.pathParams.proposalId === p.proposalId && x.operation.pathParams.domain === domain;
      const ids = new Set(p.locationIds);
      for (const x of xs) {
        if (x.startMs < p.from || x.endMs > p.to) continue;
        const o = op(x);
        if (o === 'upsertSchedules' || o === 'deleteSchedule' || o === 'reinstateSchedule') {
          if (!mine(x)) {
            // a write through another proposal naming these records: what it did is for SCHED-010 to say
            const b = o === 'upsertSchedules' ? batchOf(x) : undefined;
            const named =
              o === 'upsertSchedules'
                ? !b || [...b.input.Updates, ...b.input.Deletes].some((i) => ids.has(itemId(i) ?? -1))
                : ids.has(Number(x.operation!.pathParams.scheduleId));
            if (named && x.operation!.pathParams.domain === domain) expected = undefined;
            continue;
          }
          if (!expected) continue;
          const e = effectOf(x, p.type);
          if (e === 'unknown') {
            expected = undefined;
            continue;
          }
          for (const id of e.add) {
            expected.add(id);
            ids.add(id);
          }
          for (const id of e.remove) expected.delete(id);
          pending.push({ x, e });
          continue;
        }
        if (o !== 'queryRecords' || x.operation!.pathParams.domain !== domain || x.status !== 200) continue;
        if (x.query.get(q.filter) !== filter || [...x.query.keys()].some((k) => !allowed.has(k))) continue;
        if ((intParam(x.query, q.skip) ?? 0) !== 0) continue;
        const rows = (x.json as { List?: unknown } | undefined)?.List;
        if (!Array.isArray(rows)) continue;
        const take = Math.min(intParam(x.query, 'take') ?? 30, 100);
        if (rows.length >= take) continue;
        const got = rows.map((r) => (isObject(r) ? r[key] : undefined));
        if (!got.every(isInt)) continue;
        // a write of this proposal still running while it was read: the read may show either side
        if (xs.some((w) => mine(w) && w.endMs > x.startMs && w.startMs < x.endMs)) continue;
        if (!expected) {
          // after a write whose effect is not stated, the next whole read is where to start again
          expected = new Set(got);
          for (const id of got) ids.add(id);
          pending = [];
          continue;
        }
        const want = asRecords([...expected].sort((a, b) => a - b));
        const same = !readBackFault(want, asRecords(got), true).fault;
        const only = pending.length === 1 ? pending[0] : undefined;
        if (only?.e.requirement) {
          const what = `proposal ${p.proposalId} (${p.setup.source}): after ${only.e.what}, its ${domain} records`;
          emit(judgeReadBack(only.e.requirement, want, asRecords(got), true, what), [only.x, x]);
        }
        if (!same) expected = only ? new Set(got) : undefined;
        pending = [];
      }
    }
  },
});

/**
 * SCHED-010: an update or delete naming, through proposal P, a schedule record a provider state
 * created for another proposal is not answered as successful.
 */
export const foreignRecordRefused = judgedSequenceRule([SCHED_FOREIGN_RECORD_JUDGE], {
  name: 'foreign_record_refused',
  requirements: ['SCHED-010'],
  description:
    'an UpsertMulti update or delete (non-atomic, or atomic without a failure) or a single DELETE through one proposal, naming a schedule record a provider state created for another proposal (its locationIds), is not answered as successful',
  judge(xs, ctx, emit) {
    if (!ctx.states?.proposals.length) return;
    const owner = (id: number, x: TrafficExchange) => {
      const held = ctx.states!.proposals.filter(
        (p) => p.locationIds.includes(id) && x.startMs >= p.from && x.endMs <= p.to,
      );
      return held.length === 1 ? held[0] : undefined;
    };
    for (const x of xs) {
      const o = op(x);
      if (o !== 'upsertSchedules' && o !== 'deleteSchedule') continue;
      const pid = x.operation!.pathParams.proposalId;
      const named: Array<{ id: number; ok: unknown }> = [];
      if (o === 'deleteSchedule') {
        named.push({
          id: Number(x.operation!.pathParams.scheduleId),
          ok: (x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful,
        });
      } else {
        const b = batchOf(x);
        if (!b?.results || (b.atomic && b.anyFailure)) continue;
        for (const k of ['Updates', 'Deletes'] as const)
          for (const r of b.results[k]) {
            const id = itemId(itemOf(b, k, r) ?? {});
            // the result is that item's only where its RecordID agrees (an update's, a successful delete's)
            // or the array has one item: a wrong OrderNumber is SCHED-003's to name, not this rule's
            const paired = r.RecordID === id || (b.input[k].length === 1 && r.OrderNumber === 0);
            if (id !== undefined && paired) named.push({ id, ok: r.IsSuccessful });
          }
      }
      for (const { id, ok } of named) {
        const p = owner(id, x);
        if (!p || ctx.states.proposals.some((q) => q.proposalId === pid && q.locationIds.includes(id))) continue;
        const what = `${x.operation!.pathParams.domain} (${p.setup.source}): `;
        emit(judgeForeignRecords(pid, [{ id, owner: p.proposalId, isSuccessful: ok }], what), [x]);
      }
    }
  },
});
