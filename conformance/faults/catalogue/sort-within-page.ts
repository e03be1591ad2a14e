// The sort parameter applied within the fetched page only: a rewrite shared by the query (QRY) and
// file (FILE) faults.
import type { Fault } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  isOk,
  type ProxyRequest,
  stripHidden,
  withHiddenColumns,
  withResponseJson,
} from '../exchange.js';
import { on, QUERIES } from './util.js';

interface SortItem {
  field: string;
  desc: boolean;
}

function parseSort(raw: string | null): SortItem[] {
  if (!raw) return [];
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((x) => {
      const m = /^(\S+)(?:\s+(asc|desc))?$/i.exec(x);
      return { field: m?.[1] ?? x, desc: (m?.[2] ?? '').toLowerCase() === 'desc' };
    });
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/**
 * The bug "LIMIT/OFFSET before ORDER BY": the page is cut in storage order (the request is sent
 * without `sort`) and only the page's rows are then sorted, when `applies` to the request.
 */
export function sortWithinPage(applies: (req: ProxyRequest, domain: string) => boolean): Fault['rewrite'] {
  return on(QUERIES, async (req, route, _ctx, next) => {
    const items = parseSort(req.query.get('sort'));
    if (items.length === 0 || !applies(req, route.domain)) return next(req);
    const unsorted = cloneRequest(req);
    unsorted.query.delete('sort');
    const { req: r, hidden } = withHiddenColumns(
      unsorted,
      items.map((i) => i.field),
    );
    const res = await next(r);
    const body = bodyJson(res);
    if (!isOk(res) || !Array.isArray(body?.List)) return res;
    const rows: Array<Record<string, unknown>> = body.List;
    rows.sort((a, b) => {
      for (const i of items) {
        const key = hidden.keys.get(i.field) ?? i.field;
        const c = compareValues(a[key], b[key]);
        if (c !== 0) return i.desc ? -c : c;
      }
      return 0;
    });
    for (const row of rows) stripHidden(row, hidden);
    return withResponseJson(res, body);
  });
}
