// Where an answer holds what the spec documents but does not place: the domain list of GET
// /api/Domains ("response envelope: not shown", 4.4) and the total count of a query ("Place and
// name of the total count in the response: not shown", 4.2). The bindings name the place
// (bindings.ts); where they do not find it and the answer shows it without doubt, it is recognised
// from the answer itself, so a correct implementation needs no binding for what its answer shows:
//   a list: the body itself when it is an array, else the one array the body holds (objects walked
//     to depth 3, never into arrays): `{List:[...]}`, `{Domains:[...], Count:n}`, `{data:{items:[...]}}`;
//   a total count: the one integer whose name says "total" — a header (`X-Total-Count`) or a body
//     field beside the list, nested to depth 3 (`TotalCount`, `Meta.Total`). A field named only
//     "count" is never taken: it may count the page.
// Two or more candidates is doubt: nothing is guessed, the answer names the binding to set.
import { atPath, type Bindings } from './bindings.js';

/** A value found in an answer: where, and whether the bindings named that place. */
interface Located<T> {
  value: T;
  /** dotted body path ('' = the body itself), or `header <name>` */
  where: string;
  byBinding: boolean;
}

/** The outcome of a search: found, absent, or more than one candidate (what to set, with what was seen). */
export type Search<T> = { found: Located<T> } | { absent: true } | { doubt: string };

const MAX_DEPTH = 3;

/** Short JSON of a value seen in an answer, for a message. */
function seen(value: unknown, max = 200): string {
  let s: string;
  try {
    s = JSON.stringify(value) ?? String(value);
  } catch {
    s = String(value);
  }
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** Dotted paths of the values under `obj` (objects only, to MAX_DEPTH) for which `keep` holds. */
function pathsWhere(obj: unknown, keep: (key: string, v: unknown) => boolean, prefix = '', depth = 1): string[] {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj) || depth > MAX_DEPTH) return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(obj)) {
    const p = prefix ? `${prefix}.${k}` : k;
    if (keep(k, v)) out.push(p);
    else if (v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(...pathsWhere(v, keep, p, depth + 1));
  }
  return out;
}

/** A describing phrase for where a list was found. */
export function describeListPlace(where: string): string {
  return where === '' ? 'a bare JSON array' : `the one list of the body, at \`${where}\``;
}

/**
 * The list of an answer body whose envelope is not shown: at the binding's dotted path when an
 * array is there, else recognised (see the head of this file).
 */
export function locateList(body: unknown, bindingPath: string): Search<unknown[]> {
  const bound = atPath(body, bindingPath);
  if (Array.isArray(bound)) return { found: { value: bound, where: bindingPath, byBinding: true } };
  if (Array.isArray(body)) return { found: { value: body, where: '', byBinding: false } };
  const arrays = pathsWhere(body, (_k, v) => Array.isArray(v));
  if (arrays.length === 1)
    return { found: { value: atPath(body, arrays[0]!) as unknown[], where: arrays[0]!, byBinding: false } };
  return {
    doubt:
      arrays.length === 0
        ? `the answer holds no list: ${seen(body)}`
        : `the answer holds ${arrays.length} lists (${arrays.map((p) => `\`${p}\``).join(', ')}): ${seen(body)}`,
  };
}

const TOTAL = /total/i;
const isCount = (v: unknown) => Number.isInteger(v) && (v as number) >= 0;
const DECIMAL = /^\s*\d+\s*$/;

/**
 * The total count of a query answer: where the bindings put it (the `totalCountHeader` header, else
 * the body at `totalCountField`), else the one header or body field named "total" holding a count.
 * The binding's header value is returned as read (a number when decimal), as before.
 */
export function locateTotalCount(b: Bindings, res: { json: unknown; headers: Headers }): Search<unknown> {
  if (b.totalCountHeader) {
    const h = res.headers.get(b.totalCountHeader);
    if (h !== null)
      return {
        found: { value: DECIMAL.test(h) ? Number(h) : h, where: `header ${b.totalCountHeader}`, byBinding: true },
      };
  } else {
    const v = atPath(res.json, b.totalCountField);
    if (v !== undefined) return { found: { value: v, where: b.totalCountField, byBinding: true } };
  }
  const candidates: Array<Located<unknown>> = [];
  res.headers.forEach((v, name) => {
    if (TOTAL.test(name) && DECIMAL.test(v))
      candidates.push({ value: Number(v), where: `header ${name}`, byBinding: false });
  });
  for (const p of pathsWhere(res.json, (k, v) => TOTAL.test(k) && isCount(v)))
    candidates.push({ value: atPath(res.json, p), where: p, byBinding: false });
  if (candidates.length === 0) return { absent: true };
  if (candidates.length === 1) return { found: candidates[0]! };
  return {
    doubt: `the answer holds ${candidates.length} counts named "total" (${candidates.map((c) => `${c.where} = ${String(c.value)}`).join(', ')})`,
  };
}

/** The domain list of a GET /api/Domains body: where the bindings put it, else recognised; undefined when in doubt. */
export function domainListOf(b: Bindings, body: unknown): unknown[] | undefined {
  const r = locateList(body, b.domainsListField);
  return 'found' in r ? r.found.value : undefined;
}

/** The total count of a query answer: where the bindings put it, else recognised; undefined when absent or in doubt. */
export function totalCountOf(b: Bindings, res: { json: unknown; headers: Headers }): unknown {
  const r = locateTotalCount(b, res);
  return 'found' in r ? r.found.value : undefined;
}
