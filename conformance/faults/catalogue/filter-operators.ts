// Operator bugs of the filter (issue 44 item 2), on the reference's grammar (`Field:op:value`
// conditions joined by `&&`, docs/architecture.md 2.1): each rewrites the conditions of one
// operator so that the reference answers as an implementation with that bug would. The suite meets
// them only through the filters the provider state 'records' states by operator class.
import type { Fault } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  isOk,
  isTrue,
  type ProxyRequest,
  stripHidden,
  withHiddenColumns,
  withResponseJson,
} from '../exchange.js';
import { on, onRequest, QUERIES } from './util.js';

interface Condition {
  field: string;
  op: string;
  value: string;
}

/** The conditions of a filter, or undefined when one is not `Field:op:value`. */
function conditionsOf(filter: string): Condition[] | undefined {
  const out: Condition[] = [];
  for (const part of filter.split('&&')) {
    // a condition is trimmed (as the reference parses it), its value kept as it is within
    const m = /^([^:]+?)\s*:\s*([A-Za-z]+)\s*:(.*)$/s.exec(part.trim());
    if (!m) return undefined;
    out.push({ field: m[1]!, op: m[2]!.toLowerCase(), value: m[3]! });
  }
  return out;
}

const text = (c: Condition) => `${c.field}:${c.op}:${c.value}`;

/**
 * The filter's conditions rewritten one by one (`rewrite` answers the condition's replacement, or
 * undefined to keep it); LINQ conditions it answers are ANDed to the request's LINQ filter.
 */
export function rewriteConditions(
  rewrite: (c: Condition) => { filter?: string; linq?: string } | undefined,
): Fault['rewrite'] {
  return onRequest(QUERIES, (req) => {
    const filter = req.query.get('filter');
    const conds = filter ? conditionsOf(filter) : undefined;
    if (!conds) return req;
    const kept: string[] = [];
    const linq: string[] = [];
    let changed = false;
    for (const c of conds) {
      const r = rewrite(c);
      if (!r) {
        kept.push(text(c));
        continue;
      }
      changed = true;
      if (r.filter) kept.push(r.filter);
      if (r.linq) linq.push(r.linq);
    }
    if (!changed) return req;
    const out = cloneRequest(req);
    if (kept.length) out.query.set('filter', kept.join(' && '));
    else out.query.delete('filter');
    const before = req.query.get('linqFilter');
    if (linq.length)
      out.query.set('linqFilter', [...(before ? [before] : []), ...linq].map((l) => `(${l})`).join(' && '));
    return out;
  });
}

const ISO_TIME = /^(\d{4}-\d\d-\d\d)T\d\d:\d\d/;

/** The day after an ISO date (yyyy-mm-dd), in UTC. */
function nextDay(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * A timestamp compared by its date: both sides cut to their day, so a comparison within one day
 * selects every record of that day or none (`gt` noon: none of the day; `le` noon: all of it).
 */
export function byDate(c: Condition): { filter: string } | undefined {
  const m = ISO_TIME.exec(c.value.trim());
  if (!m) return undefined;
  const day = m[1]!;
  switch (c.op) {
    case 'gt':
      return { filter: `${c.field}:ge:${nextDay(day)}` };
    case 'ge':
      return { filter: `${c.field}:ge:${day}` };
    case 'lt':
      return { filter: `${c.field}:lt:${day}` };
    case 'le':
      return { filter: `${c.field}:lt:${nextDay(day)}` };
    case 'eq':
      return { filter: `${c.field}:startswith:${day}` };
    default:
      return undefined;
  }
}

/** Compare two texts with a filter operator (code-unit order, as a text column would). */
function textCompare(a: string, op: string, b: string): boolean {
  switch (op) {
    case 'lt':
      return a < b;
    case 'le':
      return a <= b;
    case 'gt':
      return a > b;
    default:
      return a >= b;
  }
}

const NUMERIC_COMPARISON = /^(lt|le|gt|ge)$/;
const NUMBER = /^\s*-?\d+(\.\d+)?\s*$/;

/**
 * Numbers compared as text: an order comparison with a number is evaluated on the values' text
 * (`9` >= `10`). The reference cannot be asked for that, so the proxy asks it for the query without
 * that condition (up to 100 records, the field read alongside), keeps the rows whose value's text
 * compares, and cuts the page and the total count from them.
 */
export const numbersComparedAsText: Fault['rewrite'] = on(QUERIES, async (req, _route, _ctx, next) => {
  const filter = req.query.get('filter');
  const conds = filter ? conditionsOf(filter) : undefined;
  const at = conds?.findIndex((c) => NUMERIC_COMPARISON.test(c.op) && NUMBER.test(c.value)) ?? -1;
  if (!conds || at < 0) return next(req);
  const cond = conds[at]!;
  const rest = conds.filter((_, i) => i !== at).map(text);
  const all = cloneRequest(req);
  if (rest.length) all.query.set('filter', rest.join(' && '));
  else all.query.delete('filter');
  all.query.set('take', '100');
  all.query.set('skip', '0');
  all.query.delete('includeTotalCount');
  const { req: r, hidden } = withHiddenColumns(all, [cond.field]);
  const res = await next(r);
  const body = bodyJson(res);
  if (!isOk(res) || !Array.isArray(body?.List)) return res;
  const k = hidden.keys.get(cond.field)!;
  const kept = (body.List as Array<Record<string, unknown>>).filter((row) => {
    const v = row[k];
    stripHidden(row, hidden);
    return v !== null && v !== undefined && textCompare(String(v), cond.op, cond.value.trim());
  });
  const skip = intOf(req, 'skip', 0);
  const take = intOf(req, 'take', 30);
  const { TotalCount: _dropped, ...rest2 } = body as Record<string, unknown>;
  void _dropped;
  return withResponseJson(res, {
    ...rest2,
    List: kept.slice(skip, skip + take),
    ...(isTrue(req.query.get('includeTotalCount')) ? { TotalCount: kept.length } : {}),
  });
});

function intOf(req: ProxyRequest, name: string, dflt: number): number {
  const v = req.query.get(name);
  return v !== null && /^\d+$/.test(v.trim()) ? Number(v) : dflt;
}
