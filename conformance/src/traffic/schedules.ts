// A schedule batch as recorded: the input arrays of an UpsertMulti request and the results of its
// answer, paired by OrderNumber (section 4.5). Shared by the per-exchange and the sequence rules.
import { isObject, type TrafficExchange } from './exchange.js';
import { boolParam } from './rule.js';

export type Kind = 'Inserts' | 'Updates' | 'Deletes';
export const KINDS: readonly Kind[] = ['Inserts', 'Updates', 'Deletes'];

export interface ScheduleResult {
  IsSuccessful?: unknown;
  RecordID?: unknown;
  OrderNumber?: unknown;
  Message?: unknown;
  Warnings?: unknown;
}

export interface Batch {
  x: TrafficExchange;
  proposalId: string;
  domain: string;
  /** isAtomic=true; false when absent or false (the default). */
  atomic: boolean;
  atomicGiven: boolean;
  input: Record<Kind, Array<Record<string, unknown>>>;
  /** Undefined when the answer does not carry the three arrays. */
  results?: Record<Kind, ScheduleResult[]>;
  anySuccess: boolean;
  anyFailure: boolean;
}

/** The batch of an UpsertMulti exchange; undefined for any other exchange or an unreadable request. */
export function batchOf(x: TrafficExchange): Batch | undefined {
  if (x.operation?.operationId !== 'upsertSchedules' || !isObject(x.requestJson)) return undefined;
  const input = {} as Batch['input'];
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

/** The record ID an Updates or Deletes item names. */
export function itemId(item: Record<string, unknown>): number | undefined {
  return typeof item.ID === 'number' && Number.isInteger(item.ID) ? item.ID : undefined;
}

/** The input item a result answers (by its OrderNumber). */
export function itemOf(b: Batch, k: Kind, r: ScheduleResult): Record<string, unknown> | undefined {
  return typeof r.OrderNumber === 'number' ? b.input[k][r.OrderNumber] : undefined;
}
