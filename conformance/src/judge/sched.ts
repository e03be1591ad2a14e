// SCHED-002..005, SCHED-012, SCHED-013, SCHED-015..018: what one schedule answer shows (spec 2.5,
// 4.5, 7): an UpsertMulti batch (its input arrays and the results paired by OrderNumber) or a
// single DELETE's result. The suite asserts these findings on what it sent and read
// (suite/support/schedules.ts, suite/schedules.test.ts) and the traffic rules of
// traffic/rules-proposals.ts emit them for every recorded exchange. What a write did to the stored
// records (SCHED-007, -008, -010, -011, -014, -021, -022, -029) needs reads before and after: a
// sequence, judged by judge/sched-sequence.ts.
// What only the live side knows (the proposal it set up is modifiable, the field it left out)
// comes in as `known`; without it a judge decides what the answer alone shows.
import type { components } from '../../../spec/generated/openapi.js';
import { type Finding, type JudgeEntry, isObject, show } from './finding.js';

export type ScheduleResult = components['schemas']['ScheduleOperationResult'];
export type UpsertMultiRequest = components['schemas']['UpsertMultiRequest'];
export type UpsertMultiResponse = components['schemas']['UpsertMultiResponse'];
/** The three input arrays of UpsertMulti, and the three result arrays of its answer. */
export type Kind = keyof UpsertMultiRequest;
export const KINDS: readonly Kind[] = ['Inserts', 'Updates', 'Deletes'];
/** A result as answered: the fields of ScheduleOperationResult, each any JSON value until judged. */
export type AnsweredResult = { [K in keyof ScheduleResult]?: unknown };

/** One UpsertMulti exchange: what was sent and what was answered, by kind. */
export interface ScheduleBatch {
  proposalId: string | number;
  domain: string;
  /** isAtomic=true; false when absent or false (the default). */
  atomic: boolean;
  /** isAtomic was sent at all. */
  atomicGiven: boolean;
  input: Readonly<Record<Kind, ReadonlyArray<Record<string, unknown>>>>;
  results: Readonly<Record<Kind, readonly AnsweredResult[]>>;
}

/** What the live side (or a recorded provider state) knows beyond the answer. */
export interface BatchKnowledge {
  /** Rule 1's preconditions hold (the proposal modifiable, the domain its schedule domain): rule 4 decides. */
  preconditionsHold?: boolean;
  /** Where the knowledge comes from, for the detail. */
  source?: string;
  /** The required field of the domain (the state's requiredField); default LocationName in ProposalLocation. */
  requiredField?: string;
}

// ---------------------------------------------------------------------------------------------
// Meanings (spec/requirements.yaml `meaning:` of SCHED-016, SCHED-017, SCHED-018, PROP-005)

/**
 * A refusal to change, in any wording: "cannot be modified", "is read-only; no changes were made",
 * "is locked and cannot be changed", "may not be edited", "not modifiable", "immutable" ...
 */
export const CANNOT_MODIFY =
  /\b(cannot|can ?not|can't|unable to|may not|must not|not (be )?(allowed|permitted)|not (be )?(modifiable|editable|changeable|updatable)|non-?modifiable|read[- ]?only|locked|frozen|immutable|no changes?)\b/i;
/** "<field> is required", in any wording: required, mandatory, missing, empty, blank, must have a value, provide ... */
export const REQUIRED =
  /\b(required|requires|mandatory|missing|empty|blank|must|needs?|no value|provide|supply|specify|enter|not (be )?(given|provided|supplied|set|null))\b/i;

/** A field name as a message may write it: `LocationName`, `Location name`, `location_name`. */
export function fieldPattern(name: string): RegExp {
  const words = name.split(/(?<=[a-z0-9])(?=[A-Z])/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(words.join('[\\s_-]*'), 'i');
}

/** The ID as a number of its own in a text (12 is not found in 123). */
export function idPattern(id: number | string): RegExp {
  return new RegExp(`(^|\\D)${id}(\\D|$)`);
}

/** The message says `field` is required. */
export const saysRequired = (m: unknown, field: string) =>
  typeof m === 'string' && fieldPattern(field).test(m) && REQUIRED.test(m);

// ---------------------------------------------------------------------------------------------
// Reading a batch

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
const all = (b: ScheduleBatch) => KINDS.flatMap((k) => b.results[k]);
const anySuccess = (b: ScheduleBatch) => all(b).some((r) => r.IsSuccessful === true);

/** The results an answer holds: a single result, or the three arrays of a batch (others: none). */
export function resultsIn(body: unknown): AnsweredResult[] {
  if (!isObject(body)) return [];
  if ('IsSuccessful' in body) return [body];
  return KINDS.flatMap((k) => (Array.isArray(body[k]) ? (body[k] as unknown[]) : [])).filter(isObject);
}

/** The record ID an Updates or Deletes item names. */
export function itemId(item: Record<string, unknown> | undefined): number | undefined {
  return item && isInt(item.ID) ? item.ID : undefined;
}

/** The input item a result answers (by its OrderNumber). */
export function itemOf(
  b: Pick<ScheduleBatch, 'input'>,
  k: Kind,
  r: AnsweredResult,
): Record<string, unknown> | undefined {
  return typeof r.OrderNumber === 'number' ? b.input[k][r.OrderNumber] : undefined;
}

/** The field is left out as 4.5 rule 6 refuses: an insert without it (or null, empty), an update to empty. */
function lacks(k: Kind, item: Record<string, unknown> | undefined, field: string): boolean {
  const f = item && isObject(item.Fields) ? item.Fields : undefined;
  if (!f || k === 'Deletes') return false;
  const v = f[field];
  return k === 'Inserts' ? v === undefined || v === null || v === '' : v === '';
}

/** The item gives the field a value (not null, not empty). */
function has(item: Record<string, unknown> | undefined, field: string): boolean {
  const f = item && isObject(item.Fields) ? item.Fields : undefined;
  return !!f && f[field] !== undefined && f[field] !== null && f[field] !== '';
}

const requiredFieldOf = (b: ScheduleBatch, known?: BatchKnowledge) =>
  known?.requiredField ?? (b.domain === 'ProposalLocation' ? 'LocationName' : undefined);

const finding = (requirement: string, fault: string | undefined, good: string): Finding => ({
  requirement,
  ok: fault === undefined,
  detail: fault ?? good,
});

// ---------------------------------------------------------------------------------------------
// SCHED-003

export const SCHED_ORDER_JUDGE: JudgeEntry = { name: 'judgeOrderNumbers', requirements: ['SCHED-003'] };

/**
 * SCHED-003: each result's OrderNumber is a distinct zero-based position within its own input
 * array, null only where the batch was refused as a whole (no item applied); a failure saying the
 * required field is missing names an item without it. Not decided without results.
 */
export function judgeOrderNumbers(b: ScheduleBatch, known?: BatchKnowledge): Finding[] {
  const field = requiredFieldOf(b, known);
  const whole = !anySuccess(b);
  let seen = 0;
  const fault = (): string | undefined => {
    for (const k of KINDS) {
      const nums = new Set<number>();
      for (const r of b.results[k]) {
        if (r.OrderNumber === null && whole) continue;
        const n = r.OrderNumber;
        if (!isInt(n) || n < 0 || n >= b.input[k].length || nums.has(n))
          return `${k}: OrderNumber ${show(n)} for an input array of ${b.input[k].length} item(s)${isInt(n) && nums.has(n) ? ' (twice)' : ''}`;
        // the position a failure for the missing required field must hold (4.5 rule 6)
        const lacking =
          field && k !== 'Deletes' ? b.input[k].flatMap((item, i) => (lacks(k, item, field) ? [i] : [])) : [];
        // (an update that leaves the field out neither lacks it nor has it: its refusal is SCHED-008's)
        if (r.IsSuccessful === false && lacking.length && saysRequired(r.Message, field!) && has(b.input[k][n], field!))
          return `${k}: OrderNumber ${n} fails with ${show(r.Message)}, yet item ${n} has a ${field}; the item(s) without one: ${lacking.join(', ')}`;
        nums.add(n);
        seen++;
      }
    }
    return undefined;
  };
  const bad = fault();
  return bad || seen ? [finding('SCHED-003', bad, `${seen} OrderNumber(s) within their input arrays`)] : [];
}

// ---------------------------------------------------------------------------------------------
// SCHED-012, SCHED-013, SCHED-015

export const SCHED_LISTING_JUDGE: JudgeEntry = {
  name: 'judgeBatchListing',
  requirements: ['SCHED-012', 'SCHED-013', 'SCHED-015'],
};

/**
 * Which items a batch answers. Non-atomic (isAtomic absent or false): one result per input item in
 * each array (SCHED-012; without isAtomic also SCHED-013, the default), decided where an item was
 * applied or rule 1's preconditions are known to hold (else the batch may have been refused whole,
 * an answer not shown). Atomic with a failed item: no item listed as successful (SCHED-015).
 */
export function judgeBatchListing(b: ScheduleBatch, known?: BatchKnowledge): Finding[] {
  if (b.atomic) {
    if (!all(b).some((r) => r.IsSuccessful === false)) return [];
    const ok = KINDS.find((k) => b.results[k].some((r) => r.IsSuccessful === true));
    return [
      finding('SCHED-015', ok && `${ok} lists a successful item beside a failed one`, 'only failed items listed'),
    ];
  }
  if (!anySuccess(b) && !known?.preconditionsHold) return [];
  const why = !anySuccess(b) && known?.source ? ` (${known.source})` : '';
  const short = KINDS.find((k) => b.results[k].length !== b.input[k].length);
  const fault =
    short &&
    `${short}: ${b.results[short].length} result(s) for ${b.input[short].length} item(s)${b.atomicGiven ? '' : ' without isAtomic'}${why}`;
  const good = `a result for each of ${KINDS.map((k) => b.input[k].length).join('/')} items${why}`;
  return ['SCHED-012', ...(b.atomicGiven ? [] : ['SCHED-013'])].map((q) => finding(q, fault, good));
}

// ---------------------------------------------------------------------------------------------
// SCHED-002

export const SCHED_RECORD_ID_JUDGE: JudgeEntry = { name: 'judgeRecordIds', requirements: ['SCHED-002'] };

/** One result and what it answers: its kind (a single DELETE is a delete) and the ID its item names. */
export interface AnsweredItem {
  kind: Kind;
  result: AnsweredResult;
  /** The record the item names (Updates, Deletes; the path's ID of a single DELETE). */
  id?: number;
}

/** The results of a batch with the IDs their items name. */
export function answeredItems(b: ScheduleBatch): AnsweredItem[] {
  return KINDS.flatMap((kind) =>
    b.results[kind].map((result) => ({ kind, result, id: itemId(itemOf(b, kind, result)) })),
  );
}

/**
 * SCHED-002: RecordID 0 for a failed insert or delete; on success the record's ID (a positive
 * integer for an insert, the item's ID for an update or delete). A failed update's RecordID is
 * SCHED-017's where the spec states it. One finding, on the first result that breaks it.
 */
export function judgeRecordIds(items: readonly AnsweredItem[]): Finding[] {
  let n = 0;
  for (const { kind: k, result: r, id } of items) {
    const bad =
      r.IsSuccessful === false && k !== 'Updates' && r.RecordID !== 0
        ? `failed ${k} item: RecordID ${show(r.RecordID)}, not 0`
        : r.IsSuccessful === true && k === 'Inserts' && !(isInt(r.RecordID) && r.RecordID > 0)
          ? `successful insert: RecordID ${show(r.RecordID)}`
          : r.IsSuccessful === true && k !== 'Inserts' && id !== undefined && r.RecordID !== id
            ? `successful ${k} item of ID ${id}: RecordID ${show(r.RecordID)}`
            : undefined;
    if (bad) return [finding('SCHED-002', bad, '')];
    n++;
  }
  return n ? [finding('SCHED-002', undefined, `${n} RecordID(s) as the outcome says`)] : [];
}

// ---------------------------------------------------------------------------------------------
// SCHED-005

export const SCHED_MESSAGE_JUDGE: JudgeEntry = { name: 'judgeResultMessages', requirements: ['SCHED-005'] };

/** SCHED-005: every result carries a non-empty Message. Not decided without results. */
export function judgeResultMessages(results: readonly AnsweredResult[]): Finding[] {
  if (results.length === 0) return [];
  const bad = results.find((r) => typeof r.Message !== 'string' || r.Message.trim() === '');
  return [
    finding(
      'SCHED-005',
      bad && `a result with Message ${show(bad.Message)}`,
      `${results.length} result(s) with a Message`,
    ),
  ];
}

// ---------------------------------------------------------------------------------------------
// SCHED-016, SCHED-017

export const SCHED_REQUIRED_FIELD_JUDGE: JudgeEntry = {
  name: 'judgeRequiredField',
  requirements: ['SCHED-016', 'SCHED-017'],
};

/**
 * SCHED-016 (an insert without the required field), SCHED-017 (an update emptying it): the item
 * fails, with RecordID 0 (insert) or the record's ID (update), and, where the batch applied another
 * item or rule 1's preconditions are known to hold (so the item's own validation decided), its
 * Message says the field is required. One finding per requirement, on the first item that breaks it.
 */
export function judgeRequiredField(b: ScheduleBatch, known?: BatchKnowledge): Finding[] {
  const field = requiredFieldOf(b, known);
  if (!field) return [];
  const messageJudged = anySuccess(b) || known?.preconditionsHold === true;
  const out = new Map<string, Finding>();
  for (const k of ['Inserts', 'Updates'] as const)
    for (const r of b.results[k]) {
      const item = itemOf(b, k, r);
      if (!lacks(k, item, field)) continue;
      const req = k === 'Inserts' ? 'SCHED-016' : 'SCHED-017';
      if (out.get(req)?.ok === false) continue;
      const id = k === 'Inserts' ? 0 : itemId(item);
      const bad =
        r.IsSuccessful !== false || (id !== undefined && r.RecordID !== id)
          ? `${k} item ${show(r.OrderNumber)} without ${field}: IsSuccessful ${show(r.IsSuccessful)}, RecordID ${show(r.RecordID)}`
          : messageJudged && !saysRequired(r.Message, field)
            ? `${k} item ${show(r.OrderNumber)} without ${field}: Message ${show(r.Message)} does not say ${field} is required`
            : undefined;
      out.set(req, finding(req, bad, `${k} item without ${field} refused`));
    }
  return [...out.values()];
}

// ---------------------------------------------------------------------------------------------
// SCHED-004, SCHED-018

export const SCHED_SINGLE_DELETE_JUDGE: JudgeEntry = {
  name: 'judgeSingleDelete',
  requirements: ['SCHED-004', 'SCHED-018'],
};

/**
 * The single DELETE's result: OrderNumber null (SCHED-004); refused because the proposal cannot be
 * modified (known, or said by the Message), IsSuccessful false, RecordID 0, OrderNumber null,
 * Warnings null and a Message saying the proposal with that ID cannot be modified (SCHED-018).
 * Not decided when the body is no result.
 */
export function judgeSingleDelete(
  proposalId: number | string,
  body: unknown,
  known?: { notModifiable?: boolean },
): Finding[] {
  if (!isObject(body) || typeof body.IsSuccessful !== 'boolean') return [];
  const r = body as AnsweredResult;
  const out = [
    finding('SCHED-004', r.OrderNumber === null ? undefined : `OrderNumber ${show(r.OrderNumber)}`, 'OrderNumber null'),
  ];
  const saysSo = typeof r.Message === 'string' && /(cannot|can ?not|not) be modified|not modifiable/i.test(r.Message);
  if (known?.notModifiable || (r.IsSuccessful === false && saysSo)) {
    const good =
      r.IsSuccessful === false &&
      r.RecordID === 0 &&
      r.OrderNumber === null &&
      r.Warnings === null &&
      typeof r.Message === 'string' &&
      idPattern(proposalId).test(r.Message) &&
      (saysSo || CANNOT_MODIFY.test(r.Message));
    const seen = `IsSuccessful ${show(r.IsSuccessful)}, RecordID ${show(r.RecordID)}, OrderNumber ${show(r.OrderNumber)}, Warnings ${show(r.Warnings)}, Message ${show(r.Message)}`;
    out.push(
      finding(
        'SCHED-018',
        good ? undefined : `non-modifiable proposal ${proposalId}: ${seen}`,
        `non-modifiable proposal ${proposalId}: ${seen}`,
      ),
    );
  }
  return out;
}

export const SCHED_JUDGES: readonly JudgeEntry[] = [
  SCHED_ORDER_JUDGE,
  SCHED_LISTING_JUDGE,
  SCHED_RECORD_ID_JUDGE,
  SCHED_MESSAGE_JUDGE,
  SCHED_REQUIRED_FIELD_JUDGE,
  SCHED_SINGLE_DELETE_JUDGE,
];
