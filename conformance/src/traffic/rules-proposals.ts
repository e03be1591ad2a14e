// Per-exchange rules of schedules, bind status and member creation (spec 2.4-2.6, 4.5, 7).
import { isObject, type TrafficExchange } from './exchange.js';
import { proposalOf } from './states.js';
import { isInt, judgedRule, show, type NotJudgeable, type ExchangeRule, type RuleContext } from './rule.js';
import { BIND_STATUS_JUDGE, BIND_STATUSES, judgeBindStatus } from '../judge/bind.js';
import {
  answeredItems,
  judgeBatchListing,
  judgeOrderNumbers,
  judgeRecordIds,
  judgeRequiredField,
  judgeResultMessages,
  judgeSingleDelete,
  KINDS,
  SCHED_LISTING_JUDGE,
  SCHED_MESSAGE_JUDGE,
  SCHED_ORDER_JUDGE,
  SCHED_RECORD_ID_JUDGE,
  SCHED_REQUIRED_FIELD_JUDGE,
  SCHED_SINGLE_DELETE_JUDGE,
} from '../judge/sched.js';
import { answeredBatchOf } from './schedules.js';

const op = (x: TrafficExchange) => x.operation?.operationId ?? '';

/** SCHED-003: each OrderNumber is the item's zero-based position in its own input array. */
const orderNumbers = judgedRule([SCHED_ORDER_JUDGE], {
  name: 'order_numbers',
  description:
    "each result's OrderNumber is a distinct zero-based position within its own input array (Inserts, Updates, Deletes), null only where the batch was refused as a whole; a failure saying LocationName is required names an item without one",
  findings: (x) => {
    const b = answeredBatchOf(x);
    return b ? judgeOrderNumbers(b) : [];
  },
});

/** What the batch judge reads of an exchange, with the provider state's word where no item was applied. */
function listingFindings(x: TrafficExchange, ctx: RuleContext) {
  const b = answeredBatchOf(x);
  if (!b) return [];
  // without a success the batch may have been refused whole (rule 1, an answer not shown), unless a
  // provider state shows the preconditions hold: the proposal modifiable, the domain its schedule domain
  const state = b.anySuccess || b.atomic ? undefined : proposalOf(ctx.states, b.proposalId, x);
  return judgeBatchListing(b, {
    preconditionsHold: !!state && state.notModifiable.length === 0 && state.scheduleDomain === b.domain,
    source: state && `the provider state set up proposal ${b.proposalId} modifiable: ${state.setup.source}`,
  });
}

/** SCHED-012, SCHED-013: a non-atomic batch answers a result for every item. */
const nonAtomicListsAll = judgedRule([SCHED_LISTING_JUDGE], {
  name: 'non_atomic_lists_every_item',
  requirements: ['SCHED-012', 'SCHED-013'],
  description:
    "a batch without isAtomic=true that applied at least one item answers one result per input item in each array (without isAtomic: the default is non-atomic); so does one that applied none on a proposal the recording's provider state set up modifiable, in its schedule domain (rule 1's preconditions hold, so rule 4 decides)",
  findings: listingFindings,
});

/** SCHED-015: a failed atomic batch lists only failed items. */
const atomicListsFailed = judgedRule([SCHED_LISTING_JUDGE], {
  name: 'atomic_failure_lists_only_failed',
  requirements: ['SCHED-015'],
  description: 'an isAtomic=true batch with a failed item answers only failed items (no item as successful)',
  findings: listingFindings,
});

/** SCHED-002: RecordID is the affected record on success, 0 for a failed insert or delete. */
const recordIds = judgedRule([SCHED_RECORD_ID_JUDGE], {
  name: 'record_ids',
  description:
    "RecordID is 0 for a failed insert or delete; on success it is the record's ID (a positive integer for an insert, the item's ID for an update or delete, the path's ID for the single DELETE)",
  findings: (x) => {
    if (op(x) === 'deleteSchedule' && isObject(x.json) && typeof x.json.IsSuccessful === 'boolean')
      return judgeRecordIds([{ kind: 'Deletes', result: x.json, id: Number(x.operation!.pathParams.scheduleId) }]);
    const b = answeredBatchOf(x);
    return b ? judgeRecordIds(answeredItems(b)) : [];
  },
});

/** SCHED-005: every result carries a non-empty Message. */
const messages = judgedRule([SCHED_MESSAGE_JUDGE], {
  name: 'result_messages',
  description: 'every schedule operation result carries a non-empty Message',
  findings: (x) => {
    if (op(x) === 'deleteSchedule' && isObject(x.json) && 'IsSuccessful' in x.json)
      return judgeResultMessages([x.json]);
    const b = answeredBatchOf(x);
    return b ? judgeResultMessages(KINDS.flatMap((k) => b.results[k])) : [];
  },
});

/** SCHED-016, SCHED-017: a ProposalLocation without LocationName is refused as required. */
const locationNameRequired = judgedRule([SCHED_REQUIRED_FIELD_JUDGE], {
  name: 'location_name_required',
  description:
    "a ProposalLocation insert without LocationName (or an update to an empty one) fails (insert: RecordID 0; update: the record's ID), and, in a batch that applied other items, its Message says LocationName is required",
  findings: (x) => {
    const b = answeredBatchOf(x);
    return b ? judgeRequiredField(b) : [];
  },
});

/** SCHED-004, SCHED-018: the single DELETE answers OrderNumber null; on a non-modifiable proposal the documented result. */
const singleDelete = judgedRule([SCHED_SINGLE_DELETE_JUDGE], {
  name: 'single_delete_result',
  description:
    'the single DELETE answers one result with OrderNumber null; refused because the proposal cannot be modified, it has IsSuccessful false, RecordID 0, Warnings null and a Message naming the proposal',
  findings: (x) => (op(x) === 'deleteSchedule' ? judgeSingleDelete(x.operation!.pathParams.proposalId, x.json) : []),
});

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
