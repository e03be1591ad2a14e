// "Choices exercised" (results.json `choices`, report.html): the open choices the run met and those
// it never exercised, read from what the run recorded (every test's exchanges), never listed by
// hand per test. A refusal's kind is the reference's name for it in spec/openapi.yaml (the
// response it documents for that operation and status: BadQuery, Forbidden, ...); a documented
// refusal no exchange met is "never exercised" there; a refusal with a status the reference does
// not document for the operation is the implementation's own choice, listed with what it answered.
// A success answer's shape (its top-level JSON) shows the envelopes the run saw.
import type { Exchange } from '../suite-api/client.js';
import type { OpenApiIndex } from '../spec/openapi.js';

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
  return { refusals, otherRefusals, successShapes };
}

/** One line for the console summary. */
export function choicesLine(c: ChoicesExercised): string {
  const metKinds = c.refusals.filter((k) => k.met.length).length;
  const never = c.refusals.reduce((n, k) => n + k.neverExercised.length, 0);
  return `Choices exercised: ${metKinds} of ${c.refusals.length} kinds of refusal met, ${never} documented refusal(s) (operation x kind) never exercised, ${c.otherRefusals.length} refusal status(es) the reference does not document, ${c.successShapes.length} success answer(s) by shape (results.json choices, report.html "Choices exercised")`;
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
  };
}
