// The schedule writes and single reads of a recording, indexed by record, for the sequence rules
// that judge a write against a read of the same record (sequence-schedules.ts).
import { isObject, type TrafficExchange } from './exchange.js';
import { isInt } from './rule.js';
import { batchOf, itemId } from './schedules.js';

export const op = (x: TrafficExchange) => x.operation?.operationId ?? '';

/** The schedule writes and single reads of a recording, by `domain#id`, built once per recording. */
interface RecordIndex {
  writes: Map<string, TrafficExchange[]>;
  /** Batches whose request cannot be read: they may have touched any record of their domain. */
  blind: Map<string, TrafficExchange[]>;
  reads: Map<string, TrafficExchange[]>;
}
const indexes = new WeakMap<TrafficExchange[], RecordIndex>();

function indexOf(xs: TrafficExchange[]): RecordIndex {
  let ix = indexes.get(xs);
  if (ix) return ix;
  ix = { writes: new Map(), blind: new Map(), reads: new Map() };
  const add = (m: Map<string, TrafficExchange[]>, k: string, x: TrafficExchange) => {
    const l = m.get(k);
    if (!l) m.set(k, [x]);
    else if (l[l.length - 1] !== x) l.push(x);
  };
  for (const x of xs) {
    const p = x.operation?.pathParams;
    if (!p) continue;
    if (op(x) === 'deleteSchedule' || op(x) === 'reinstateSchedule')
      add(ix.writes, `${p.domain}#${Number(p.scheduleId)}`, x);
    else if (op(x) === 'upsertSchedules') {
      const b = batchOf(x);
      if (!b) {
        add(ix.blind, p.domain, x);
        continue;
      }
      for (const i of [...b.input.Updates, ...b.input.Deletes])
        if (itemId(i) !== undefined) add(ix.writes, `${p.domain}#${itemId(i)}`, x);
      for (const r of b.results?.Inserts ?? []) if (isInt(r.RecordID)) add(ix.writes, `${p.domain}#${r.RecordID}`, x);
    } else if (
      op(x) === 'getRecord' &&
      x.status === 200 &&
      isObject((x.json as { Record?: unknown } | undefined)?.Record)
    )
      add(ix.reads, `${p.domain}#${p.id}`, x);
  }
  indexes.set(xs, ix);
  return ix;
}

/** Every exchange that may change schedule record `id` of `domain` (whatever its outcome), in recorded order. */
export function writesOf(xs: TrafficExchange[], domain: string, id: number): TrafficExchange[] {
  const ix = indexOf(xs);
  const w = [...(ix.writes.get(`${domain}#${id}`) ?? []), ...(ix.blind.get(domain) ?? [])];
  return w.sort((a, b) => a.index - b.index);
}

/** Whether `w` may overlap the span from the end of `a` to the start of `b`. */
export const between = (w: TrafficExchange, a: TrafficExchange, b: TrafficExchange) =>
  w.endMs > a.startMs && w.startMs < b.endMs;

/** Reads (GET /api/{domain}/{id}, 200) of a record. */
export const readsOf = (xs: TrafficExchange[], domain: string, id: number) =>
  indexOf(xs).reads.get(`${domain}#${String(id)}`) ?? [];
