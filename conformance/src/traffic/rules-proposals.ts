// Per-exchange rules of schedules, bind status and member creation (spec 2.4-2.6, 4.5, 7).
import { isObject, type TrafficExchange } from './exchange.js';
import { proposalOf } from './states.js';
import { isInt, judgedRule, show, type NotJudgeable, type ExchangeRule } from './rule.js';
import { BIND_STATUS_JUDGE, BIND_STATUSES, judgeBindStatus } from '../judge/bind.js';
import { batchOf, itemId, itemOf, KINDS, type Batch, type Kind, type ScheduleResult } from './schedules.js';

const op = (x: TrafficExchange) => x.operation?.operationId ?? '';

/**
 * The position a failed result's item must hold where the batch's documented validation decides it
 * (4.5 rule 6: a ProposalLocation insert without LocationName, an update to an empty one, fails
 * with the message that LocationName is required): the message names the cause, and the positions
 * of the items that have it. Undefined where the validation does not decide.
 */
function lacking(b: Batch, k: Kind, r: ScheduleResult): number[] | undefined {
  if (b.domain !== 'ProposalLocation' || k === 'Deletes' || r.IsSuccessful !== false) return undefined;
  if (!(typeof r.Message === 'string' && LOCATION_NAME.test(r.Message) && REQUIRED.test(r.Message))) return undefined;
  const at = b.input[k].flatMap((item, i) => {
    const f = isObject(item.Fields) ? item.Fields : undefined;
    if (!f) return [];
    const name = f.LocationName;
    return (k === 'Inserts' ? name === undefined || name === null || name === '' : name === '') ? [i] : [];
  });
  return at.length ? at : undefined;
}

/** SCHED-003: each OrderNumber is the item's zero-based position in its own input array. */
const orderNumbers: ExchangeRule = {
  name: 'order_numbers',
  requirements: ['SCHED-003'],
  description:
    "each result's OrderNumber is a distinct zero-based position within its own input array (Inserts, Updates, Deletes), null only where the batch was refused as a whole; a failure saying LocationName is required names an item without one",
  judge(x, _ctx, emit) {
    const b = batchOf(x);
    if (!b?.results) return;
    let seen = 0;
    for (const k of KINDS) {
      const nums = new Set<number>();
      for (const r of b.results[k]) {
        if (r.OrderNumber === null && !b.anySuccess) continue;
        const n = r.OrderNumber;
        if (!isInt(n) || n < 0 || n >= b.input[k].length || nums.has(n))
          return emit(
            ['SCHED-003'],
            false,
            `${k}: OrderNumber ${show(n)} for an input array of ${b.input[k].length} item(s)${isInt(n) && nums.has(n) ? ' (twice)' : ''}`,
          );
        const must = lacking(b, k, r);
        if (must && !must.includes(n))
          return emit(
            ['SCHED-003'],
            false,
            `${k}: OrderNumber ${n} fails with ${show(r.Message)}, yet item ${n} has a LocationName; the item(s) without one: ${must.join(', ')}`,
          );
        nums.add(n);
        seen++;
      }
    }
    if (seen) emit(['SCHED-003'], true, `${seen} OrderNumber(s) within their input arrays`);
  },
};

/** SCHED-012, SCHED-013: a non-atomic batch answers a result for every item. */
const nonAtomicListsAll: ExchangeRule = {
  name: 'non_atomic_lists_every_item',
  requirements: ['SCHED-012', 'SCHED-013'],
  description:
    "a batch without isAtomic=true that applied at least one item answers one result per input item in each array (without isAtomic: the default is non-atomic); so does one that applied none on a proposal the recording's provider state set up modifiable, in its schedule domain (rule 1's preconditions hold, so rule 4 decides)",
  judge(x, ctx, emit) {
    const b = batchOf(x);
    if (!b?.results || b.atomic) return;
    // without a success the batch may have been refused whole (rule 1, an answer not shown), unless a
    // provider state shows the preconditions hold: the proposal modifiable, the domain its schedule domain
    const state = b.anySuccess ? undefined : proposalOf(ctx.states, b.proposalId, x);
    if (!b.anySuccess && !(state && state.notModifiable.length === 0 && state.scheduleDomain === b.domain)) return;
    const why = state ? ` (the provider state set up proposal ${b.proposalId} modifiable: ${state.setup.source})` : '';
    const reqs = ['SCHED-012', ...(b.atomicGiven ? [] : ['SCHED-013'])];
    for (const k of KINDS)
      if (b.results[k].length !== b.input[k].length)
        return emit(
          reqs,
          false,
          `${k}: ${b.results[k].length} result(s) for ${b.input[k].length} item(s)${b.atomicGiven ? '' : ' without isAtomic'}${why}`,
        );
    emit(reqs, true, `a result for each of ${KINDS.map((k) => b.input[k].length).join('/')} items${why}`);
  },
};

/** SCHED-015: a failed atomic batch lists only failed items. */
const atomicListsFailed: ExchangeRule = {
  name: 'atomic_failure_lists_only_failed',
  requirements: ['SCHED-015'],
  description: 'an isAtomic=true batch with a failed item answers only failed items (no item as successful)',
  judge(x, _ctx, emit) {
    const b = batchOf(x);
    if (!b?.results || !b.atomic || !b.anyFailure) return;
    const ok = KINDS.find((k) => b.results![k].some((r) => r.IsSuccessful === true));
    emit(['SCHED-015'], !ok, ok ? `${ok} lists a successful item beside a failed one` : 'only failed items listed');
  },
};

/** SCHED-002: RecordID is the affected record on success, 0 for a failed insert or delete. */
const recordIds: ExchangeRule = {
  name: 'record_ids',
  requirements: ['SCHED-002'],
  description:
    "RecordID is 0 for a failed insert or delete; on success it is the record's ID (a positive integer for an insert, the item's ID for an update or delete, the path's ID for the single DELETE)",
  judge(x, _ctx, emit) {
    const check = (k: string, r: ScheduleResult, id: number | undefined): string | undefined => {
      if (r.IsSuccessful === false && (k === 'Inserts' || k === 'Deletes') && r.RecordID !== 0)
        return `failed ${k} item: RecordID ${show(r.RecordID)}, not 0`;
      if (r.IsSuccessful === true && k === 'Inserts' && !(isInt(r.RecordID) && r.RecordID > 0))
        return `successful insert: RecordID ${show(r.RecordID)}`;
      if (r.IsSuccessful === true && k !== 'Inserts' && id !== undefined && r.RecordID !== id)
        return `successful ${k} item of ID ${id}: RecordID ${show(r.RecordID)}`;
      return undefined;
    };
    if (op(x) === 'deleteSchedule' && isObject(x.json) && typeof x.json.IsSuccessful === 'boolean') {
      const bad = check('Deletes', x.json, Number(x.operation!.pathParams.scheduleId));
      return emit(['SCHED-002'], !bad, bad ?? `single DELETE: RecordID ${show(x.json.RecordID)}`);
    }
    const b = batchOf(x);
    if (!b?.results) return;
    let n = 0;
    for (const k of KINDS)
      for (const r of b.results[k]) {
        const item = itemOf(b, k, r);
        const bad = check(k, r, item ? itemId(item) : undefined);
        if (bad) return emit(['SCHED-002'], false, bad);
        n++;
      }
    if (n) emit(['SCHED-002'], true, `${n} RecordID(s) as the outcome says`);
  },
};

/** SCHED-005: every result carries a non-empty Message. */
const messages: ExchangeRule = {
  name: 'result_messages',
  requirements: ['SCHED-005'],
  description: 'every schedule operation result carries a non-empty Message',
  judge(x, _ctx, emit) {
    const results: ScheduleResult[] =
      op(x) === 'deleteSchedule' && isObject(x.json) && 'IsSuccessful' in x.json
        ? [x.json]
        : (() => {
            const b = batchOf(x);
            return b?.results ? KINDS.flatMap((k) => b.results![k]) : [];
          })();
    if (results.length === 0) return;
    const bad = results.find((r) => typeof r.Message !== 'string' || r.Message.trim() === '');
    emit(
      ['SCHED-005'],
      !bad,
      bad ? `a result with Message ${show(bad.Message)}` : `${results.length} result(s) with a Message`,
    );
  },
};

const REQUIRED =
  /\b(required|requires|mandatory|missing|empty|blank|must|needs?|no value|provide|supply|specify|enter|not (be )?(given|provided|supplied|set|null))\b/i;
const LOCATION_NAME = /Location[\s_-]*Name/i;

/** SCHED-016, SCHED-017: a ProposalLocation without LocationName is refused as required. */
const locationNameRequired: ExchangeRule = {
  name: 'location_name_required',
  requirements: ['SCHED-016', 'SCHED-017'],
  description:
    "a ProposalLocation insert without LocationName (or an update to an empty one) fails (insert: RecordID 0; update: the record's ID), and, in a batch that applied other items, its Message says LocationName is required",
  judge(x, _ctx, emit) {
    const b = batchOf(x);
    if (!b?.results || b.domain !== 'ProposalLocation') return;
    for (const k of ['Inserts', 'Updates'] as const)
      for (const r of b.results[k]) {
        const item = itemOf(b, k, r);
        const fields = item && isObject(item.Fields) ? item.Fields : undefined;
        if (!fields) continue;
        const name = fields.LocationName;
        const missing = k === 'Inserts' ? name === undefined || name === null || name === '' : name === '';
        if (!missing) continue;
        const req = k === 'Inserts' ? 'SCHED-016' : 'SCHED-017';
        const id = k === 'Inserts' ? 0 : itemId(item!);
        if (r.IsSuccessful !== false || (id !== undefined && r.RecordID !== id))
          return emit(
            [req],
            false,
            `${k} item without LocationName: IsSuccessful ${show(r.IsSuccessful)}, RecordID ${show(r.RecordID)}`,
          );
        if (
          b.anySuccess &&
          !(typeof r.Message === 'string' && LOCATION_NAME.test(r.Message) && REQUIRED.test(r.Message))
        )
          return emit(
            [req],
            false,
            `${k} item without LocationName: Message ${show(r.Message)} does not say LocationName is required`,
          );
        emit([req], true, `${k} item without LocationName refused`);
      }
  },
};

/** SCHED-004, SCHED-018: the single DELETE answers OrderNumber null; on a non-modifiable proposal the documented result. */
const singleDelete: ExchangeRule = {
  name: 'single_delete_result',
  requirements: ['SCHED-004', 'SCHED-018'],
  description:
    'the single DELETE answers one result with OrderNumber null; refused because the proposal cannot be modified, it has IsSuccessful false, RecordID 0, Warnings null and a Message naming the proposal',
  judge(x, _ctx, emit) {
    if (op(x) !== 'deleteSchedule' || !isObject(x.json) || typeof x.json.IsSuccessful !== 'boolean') return;
    const r = x.json;
    emit(['SCHED-004'], r.OrderNumber === null, `OrderNumber ${show(r.OrderNumber)}`);
    if (
      r.IsSuccessful === false &&
      typeof r.Message === 'string' &&
      /(cannot|can ?not|not) be modified|not modifiable/i.test(r.Message)
    ) {
      const pid = x.operation!.pathParams.proposalId;
      const good = r.RecordID === 0 && r.Warnings === null && r.OrderNumber === null && r.Message.includes(pid);
      emit(
        ['SCHED-018'],
        good,
        `non-modifiable: RecordID ${show(r.RecordID)}, Warnings ${show(r.Warnings)}, Message ${show(r.Message)}`,
      );
    }
  },
};

/** BIND-001..006: HTTP 200, the object, the null pattern of each status (the schema rule judges an undocumented Status). */
const bindStatus = judgedRule([BIND_STATUS_JUDGE], {
  name: 'bind_status_pattern',
  description:
    "BindStatus answers HTTP 200 with the documented object and the path's ProposalID; NotBound has every detail null; Bound has PolicyID, MemberID, PolicyNumber and MemberName filled, ErrorMessage null and a UTC BoundDateUTC; Error has a non-empty ErrorMessage and null details",
  findings: (x) =>
    op(x) === 'getBindStatus' && isObject(x.json) && BIND_STATUSES.includes(x.json.Status as string)
      ? judgeBindStatus({ pathParams: x.operation!.pathParams, status: x.status, body: x.json })
      : [],
});

/** MEM-001, MEM-002, MEM-006: the member creation result. */
const createMemberResult: ExchangeRule = {
  name: 'create_member_result',
  requirements: ['MEM-002', 'MEM-006'],
  description:
    'CreateMember answered 200: on success RecordID is a positive integer and Message null; on IsSuccessful false, Message holds the detail',
  judge(x, _ctx, emit) {
    if (op(x) !== 'createMember' || x.status !== 200 || !isObject(x.json) || typeof x.json.IsSuccessful !== 'boolean')
      return;
    const r = x.json;
    if (r.IsSuccessful) {
      const good = isInt(r.RecordID) && r.RecordID > 0 && r.Message === null;
      emit(['MEM-002'], good, `success: RecordID ${show(r.RecordID)}, Message ${show(r.Message)}`);
    } else {
      const good = typeof r.Message === 'string' && r.Message.trim() !== '';
      emit(['MEM-006'], good, `refused with HTTP 200: Message ${show(r.Message)}`);
    }
  },
};

export const PROPOSAL_RULES: readonly ExchangeRule[] = [
  orderNumbers,
  nonAtomicListsAll,
  atomicListsFailed,
  recordIds,
  messages,
  locationNameRequired,
  singleDelete,
  bindStatus,
  createMemberResult,
];

/** Requirements of proposals, binding, members and schedules no recorded exchange decides. */
export const PROPOSAL_NOT_JUDGEABLE: readonly NotJudgeable[] = [
  {
    requirements: ['PROP-001', 'SCHED-006', 'SCHED-019'],
    reason:
      "needs the proposal's type, its valid schedule domains or which schedule records belong to which proposal, shown only to a provider state set up for it; no rule reads these from a recorded state yet (and what a soft delete shows is not stated)",
  },
  {
    requirements: ['BIND-007', 'BIND-008', 'BIND-010', 'BIND-014', 'MEM-004', 'MEM-007'],
    reason:
      'needs a proposal in a known state (rating complete or not, a member or none, the applicant name) and an outcome looked for until a deadline; a recording shows neither the state nor how long one waited',
  },
  {
    requirements: ['SCHED-001', 'SCHED-009', 'MEM-001'],
    reason:
      'the shape of the answer is judged by the schema rule (GEN-002) on every exchange; no rule names this requirement apart from it',
  },
  {
    requirements: ['SCHED-023', 'MEM-008'],
    reason:
      "needs to know why a write failed (the item broke a validation rule; CreateMember refused for its body, not for the proposal's state), which depends on the stored records and is not shown by the exchange (RecordID 0 of a failed insert is judged as SCHED-002)",
  },
];
