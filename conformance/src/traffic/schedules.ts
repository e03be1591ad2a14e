// A schedule batch as recorded: the input arrays of an UpsertMulti request and the results of its
// answer, paired by OrderNumber (section 4.5), in the judge's terms (judge/sched.ts). Shared by the
// per-exchange and the sequence rules.
import { isObject, type TrafficExchange } from './exchange.js';
import { boolParam } from './rule.js';
import { type AnsweredResult, type Kind, type ScheduleBatch, KINDS } from '../judge/sched.js';

export { itemId, itemOf } from '../judge/sched.js';

export interface Batch extends Omit<ScheduleBatch, 'results' | 'proposalId'> {
  x: TrafficExchange;
  proposalId: string;
  /** Undefined when the answer does not carry the three arrays. */
  results?: Record<Kind, AnsweredResult[]>;
  anySuccess: boolean;
  anyFailure: boolean;
}

/** The batch of an UpsertMulti exchange; undefined for any other exchange or an unreadable request. */
export function batchOf(x: TrafficExchange): Batch | undefined {
  if (x.operation?.operationId !== 'upsertSchedules' || !isObject(x.requestJson)) return undefined;
  const input = {} as Record<Kind, Array<Record<string, unknown>>>;
  for (const k of KINDS) {
    const v = x.requestJson[k];
    if (v !== undefined && !Array.isArray(v)) return undefined;
    input[k] = (v ?? []).map((i: unknown) => (isObject(i) ? i : {}));
  }
  let results: Batch['results'];
  const j = x.json;
  if (isObject(j) && KINDS.every((k) => Array.isArray(j[k]) && (j[k] as unknown[]).every(isObject)))
    results = Object.fromEntries(KINDS.map((k) => [k, j[k]])) as Batch['results'];
  const all = results ? KINDS.flatMap((k) => results[k]) : [];
  const atomicParam = boolParam(x.query, 'isAtomic');
  return {
    x,
    proposalId: x.operation.pathParams.proposalId,
    domain: x.operation.pathParams.domain,
    atomic: atomicParam === true,
    atomicGiven: x.query.has('isAtomic'),
    input,
    results,
    anySuccess: all.some((r) => r.IsSuccessful === true),
    anyFailure: all.some((r) => r.IsSuccessful === false),
  };
}

/** The batch of an exchange whose answer carries the three result arrays, as the judges read it. */
export function answeredBatchOf(x: TrafficExchange): (ScheduleBatch & Batch) | undefined {
  const b = batchOf(x);
  return b?.results ? (b as ScheduleBatch & Batch) : undefined;
}
