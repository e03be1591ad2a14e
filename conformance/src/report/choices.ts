// "Choices exercised" (results.json `choices`, report.html): the open choices the run met and those
// it never exercised, read from what the run recorded (every test's exchanges), never listed by
// hand per test. A refusal's kind is the reference's name for it in spec/openapi.yaml (the
// response it documents for that operation and status: BadQuery, Forbidden, ...); a documented
// refusal no exchange met is "never exercised" there; a refusal with a status the reference does
// not document for the operation is the implementation's own choice, listed with what it answered.
// A success answer's shape (its top-level JSON) shows the envelopes the run saw. A listing asked
// without `sort` has an order the spec never states: the run counts, per listing operation, the
// answers whose rows came in ascending, descending or no order of their numeric ID column.
import type { Exchange } from '../suite-api/client.js';
import type { OpenApiIndex } from '../spec/openapi.js';
import { locateList } from '../model/not-shown-shapes.js';

/** One way the implementation answered: content type and top-level JSON shape, and how often. */
interface AnswerShape {
  shape: string;
  count: number;
}

export interface ChoicesExercised {
  /** Per kind of refusal the reference documents: where the run met it, how it was answered, and where never. */
  refusals: Array<{
    kind: string;
    /** The reference's status for this kind. */
    status: number;
    met: Array<{ operationId: string; count: number; answers: AnswerShape[] }>;
    /** Operations documenting this refusal where no exchange of the run got it. */
    neverExercised: string[];
  }>;
  /** Refusals with a status the reference does not document for the operation: the implementation's own choice. */
  otherRefusals: Array<{ operationId: string; status: number; count: number; answers: AnswerShape[] }>;
  /** Success answers per operation and status: the envelopes and shapes seen. */
  successShapes: Array<{ operationId: string; status: number; count: number; answers: AnswerShape[] }>;
  /** Listings asked without `sort` (order not stated): per operation, how their rows came. Optional:
   * results.json files written before 0.3.0's orders have none. */
  orders?: ListingOrder[];
}

/** The rows of listings without `sort` of one operation, by the order of their numeric ID column. */
interface ListingOrder {
  operationId: string;
  /** The ID columns the rows were ordered by (the first numeric `…ID` column of each answer). */
  keys: string[];
  ascending: number;
  descending: number;
  /** neither: the rows in another order (by a column the run did not look at, or none) */
  other: number;
}

/** `application/problem+json {code,detail,status,title,type}`, `application/json array`, `text/plain (not JSON)`. */
export function answerShape(ex: Pick<Exchange, 'responseHeaders' | 'responseBody'>): string {
  const type = (ex.responseHeaders?.['content-type'] ?? '').split(';')[0].trim() || '(no content type)';
  const text = ex.responseBody ?? '';
  if (!text.trim()) return `${type} (empty)`;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return `${type} (not JSON)`;
  }
  if (Array.isArray(v)) return `${type} array`;
  if (v === null || typeof v !== 'object') return `${type} ${v === null ? 'null' : typeof v}`;
  const keys = Object.keys(v).sort();
  return `${type} {${keys.slice(0, 12).join(',')}${keys.length > 12 ? ',…' : ''}}`;
}

/** Each documented operation's template and method, by operationId. */
function operationsOf(index: OpenApiIndex): Map<string, { template: string; method: string; op: any }> {
  const out = new Map<string, { template: string; method: string; op: any }>();
  for (const [template, item] of Object.entries<any>(index.doc?.paths ?? {}))
    for (const [method, op] of Object.entries<any>(item ?? {}))
      if (op && typeof op === 'object' && typeof op.operationId === 'string')
        out.set(op.operationId, { template, method, op });
  return out;
}

/** The reference's name of a documented response: its component (`BadQuery`), else `<operationId> <status>`. */
function kindOf(operationId: string, op: any, key: string): string {
  const ref = op.responses?.[key]?.$ref;
  return typeof ref === 'string' ? ref.split('/').at(-1)! : `${operationId} ${key}`;
}

function countShapes(list: Exchange[]): AnswerShape[] {
  const m = new Map<string, number>();
  for (const e of list) m.set(answerShape(e), (m.get(answerShape(e)) ?? 0) + 1);
  return [...m]
    .map(([shape, count]) => ({ shape, count }))
    .sort((a, b) => b.count - a.count || (a.shape < b.shape ? -1 : 1));
}

/** The rows of a listing answer: its `List`, a bare array, or the one list the body holds (not-shown-shapes.ts). */
function rowsOf(body: unknown): Array<Record<string, unknown>> | undefined {
  const s = locateList(body, 'List');
  const rows = 'found' in s ? s.found.value : undefined;
  return rows?.every((r) => r !== null && typeof r === 'object' && !Array.isArray(r))
    ? (rows as Array<Record<string, unknown>>)
    : undefined;
}

/** How the rows of one answer came: by the first `…ID` column with a distinct number in every row. */
function orderOf(
  rows: Array<Record<string, unknown>>,
): { key: string; order: 'ascending' | 'descending' | 'other' } | undefined {
  if (rows.length < 2) return undefined;
  for (const key of Object.keys(rows[0]!).filter((k) => k.endsWith('ID'))) {
    const v = rows.map((r) => r[key]);
    if (!v.every((x) => typeof x === 'number' && Number.isFinite(x)) || new Set(v).size !== v.length) continue;
    const n = v as number[];
    const up = n.every((x, i) => i === 0 || x > n[i - 1]!);
    const down = n.every((x, i) => i === 0 || x < n[i - 1]!);
    return { key, order: up ? 'ascending' : down ? 'descending' : 'other' };
  }
  return undefined;
}

/** Per listing operation, the order of the rows of its answers asked without `sort`. */
function listingOrders(exchanges: readonly Exchange[]): ListingOrder[] {
  const out = new Map<string, ListingOrder>();
  for (const e of exchanges) {
    if (!e.operationId || e.status === undefined || e.status < 200 || e.status >= 300 || !e.url) continue;
    if (new URL(e.url, 'http://x').searchParams.has('sort')) continue;
    let body: unknown;
    try {
      body = JSON.parse(e.responseBody ?? '');
    } catch {
      continue;
    }
    const rows = rowsOf(body);
    const seen = rows && orderOf(rows);
    if (!seen) continue;
    const o = out.get(e.operationId) ?? { operationId: e.operationId, keys: [], ascending: 0, descending: 0, other: 0 };
    if (!o.keys.includes(seen.key)) o.keys = [...o.keys, seen.key].sort();
    o[seen.order]++;
    out.set(e.operationId, o);
  }
  return [...out.values()].sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
}

/** The choices a run exercised, from every exchange its tests recorded. */
export function choicesExercised(exchanges: readonly Exchange[], index: OpenApiIndex): ChoicesExercised {
  const ops = operationsOf(index);
  // every answer, by operation and status
  const seen = new Map<string, Map<number, Exchange[]>>();
  for (const e of exchanges) {
    if (!e.operationId || e.status === undefined || !ops.has(e.operationId)) continue;
    const byStatus = seen.get(e.operationId) ?? new Map<number, Exchange[]>();
    byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
    seen.set(e.operationId, byStatus);
  }
  const kinds = new Map<string, ChoicesExercised['refusals'][number]>();
  const otherRefusals: ChoicesExercised['otherRefusals'] = [];
  const successShapes: ChoicesExercised['successShapes'] = [];
  for (const [operationId, { op }] of [...ops].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const byStatus = seen.get(operationId) ?? new Map<number, Exchange[]>();
    for (const key of Object.keys(op.responses ?? {})) {
      const status = Number(key);
      if (!Number.isInteger(status) || status < 300) continue;
      const kind = kindOf(operationId, op, key);
      const entry = kinds.get(kind) ?? { kind, status, met: [], neverExercised: [] };
      const got = byStatus.get(status);
      if (got?.length) entry.met.push({ operationId, count: got.length, answers: countShapes(got) });
      else entry.neverExercised.push(operationId);
      kinds.set(kind, entry);
    }
    for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
      const documented = String(status) in (op.responses ?? {});
      if (status >= 200 && status < 300)
        successShapes.push({ operationId, status, count: list.length, answers: countShapes(list) });
      else if (status >= 300 && !documented)
        otherRefusals.push({ operationId, status, count: list.length, answers: countShapes(list) });
    }
  }
  const refusals = [...kinds.values()].sort((a, b) => a.status - b.status || (a.kind < b.kind ? -1 : 1));
  return { refusals, otherRefusals, successShapes, orders: listingOrders(exchanges) };
}

/** One line for the console summary. */
export function choicesLine(c: ChoicesExercised): string {
  const metKinds = c.refusals.filter((k) => k.met.length).length;
  const never = c.refusals.reduce((n, k) => n + k.neverExercised.length, 0);
  return `Choices exercised: ${metKinds} of ${c.refusals.length} kinds of refusal met, ${never} documented refusal(s) (operation x kind) never exercised, ${c.otherRefusals.length} refusal status(es) the reference does not document, ${c.successShapes.length} success answer(s) by shape, ${c.orders?.length ?? 0} listing operation(s) with an order seen without sort (results.json choices, report.html "Choices exercised")`;
}

function addShapes(into: AnswerShape[], more: AnswerShape[]): AnswerShape[] {
  const m = new Map(into.map((a) => [a.shape, a.count]));
  for (const a of more) m.set(a.shape, (m.get(a.shape) ?? 0) + a.count);
  return [...m]
    .map(([shape, count]) => ({ shape, count }))
    .sort((a, b) => b.count - a.count || (a.shape < b.shape ? -1 : 1));
}

function mergeByStatus(lists: ChoicesExercised['otherRefusals'][]): ChoicesExercised['otherRefusals'] {
  const m = new Map<string, ChoicesExercised['otherRefusals'][number]>();
  for (const x of lists.flat()) {
    const key = `${x.operationId} ${x.status}`;
    const cur = m.get(key);
    m.set(key, cur ? { ...cur, count: cur.count + x.count, answers: addShapes(cur.answers, x.answers) } : x);
  }
  return [...m.values()].sort((a, b) =>
    a.operationId < b.operationId ? -1 : a.operationId > b.operationId ? 1 : a.status - b.status,
  );
}

/** The choices of shard runs together (conformance merge): met where any shard met it, never where none did. */
export function mergeChoices(all: ChoicesExercised[]): ChoicesExercised {
  const kinds = new Map<string, ChoicesExercised['refusals'][number]>();
  for (const c of all)
    for (const k of c.refusals) {
      const cur = kinds.get(k.kind);
      if (!cur) {
        kinds.set(k.kind, structuredClone(k));
        continue;
      }
      for (const m of k.met) {
        const same = cur.met.find((x) => x.operationId === m.operationId);
        if (same) {
          same.count += m.count;
          same.answers = addShapes(same.answers, m.answers);
        } else cur.met.push(structuredClone(m));
      }
    }
  for (const k of kinds.values()) {
    const met = new Set(k.met.map((m) => m.operationId));
    k.neverExercised = [...new Set(all.flatMap((c) => c.refusals.find((x) => x.kind === k.kind)?.neverExercised ?? []))]
      .filter((op) => !met.has(op))
      .sort();
    k.met.sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
  }
  return {
    refusals: [...kinds.values()].sort((a, b) => a.status - b.status || (a.kind < b.kind ? -1 : 1)),
    otherRefusals: mergeByStatus(all.map((c) => c.otherRefusals)),
    successShapes: mergeByStatus(all.map((c) => c.successShapes)),
    orders: mergeOrders(all.flatMap((c) => c.orders ?? [])),
  };
}

function mergeOrders(list: ListingOrder[]): ListingOrder[] {
  const m = new Map<string, ListingOrder>();
  for (const o of list) {
    const cur = m.get(o.operationId);
    m.set(
      o.operationId,
      cur
        ? {
            operationId: o.operationId,
            keys: [...new Set([...cur.keys, ...o.keys])].sort(),
            ascending: cur.ascending + o.ascending,
            descending: cur.descending + o.descending,
            other: cur.other + o.other,
          }
        : { ...o, keys: [...o.keys] },
    );
  }
  return [...m.values()].sort((a, b) => (a.operationId < b.operationId ? -1 : 1));
}
