// Faults of the generic areas: JSON bodies (GEN), domains (DOM), record access (REC), the column
// language (COL) and query parameters (QRY).
import type { Fault, FaultContext } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  cloneResponse,
  formatColumns,
  isOk,
  isTrue,
  parseColumns,
  problem,
  replaceSegment,
  stripHidden,
  withHiddenColumns,
  withResponseJson,
  type ColumnItem,
  type ProxyRequest,
} from '../exchange.js';
import { defaultQueryParam, ignoreQueryParam, on, onJsonResponse, onRequest, tokenOf } from './util.js';

const READS = ['getRecord', 'queryRecords', 'listAttachedFiles'] as const;
const RECORD_READS = ['getRecord', 'queryRecords'] as const;

/** Whether `column` can be requested on `domain` (asked once per proxy, as the administrator). */
async function hasColumn(ctx: FaultContext, domain: string, column: string): Promise<boolean> {
  const key = `column:${domain}|${column}`;
  if (!ctx.memory.has(key)) {
    const r = await ctx.call(
      'GET',
      `/api/${encodeURIComponent(domain)}/Query?take=1&columns=${encodeURIComponent(column)}`,
    );
    ctx.memory.set(key, r.status === 200);
  }
  return ctx.memory.get(key) as boolean;
}

/** Kind of a bare requested field: an association (stored as `<F>ID`), a coded field, or other. */
async function fieldKind(ctx: FaultContext, domain: string, field: string): Promise<'association' | 'coded' | 'other'> {
  if (field.includes('.')) return 'other';
  if (await hasColumn(ctx, domain, `${field}.CodeID`)) return 'coded';
  if (await hasColumn(ctx, domain, `${field}ID`)) return 'association';
  return 'other';
}

async function bareFields(
  ctx: FaultContext,
  domain: string,
  cols: ColumnItem[],
  kind: 'association' | 'coded',
): Promise<ColumnItem[]> {
  const out: ColumnItem[] = [];
  for (const c of cols) if ((await fieldKind(ctx, domain, c.field)) === kind) out.push(c);
  return out;
}

/**
 * Read with extra hidden fields computed per bare field (`extra(field)`), then let `fill` change
 * each record from the hidden values.
 */
function bareFieldRewrite(
  kind: 'association' | 'coded',
  when: (req: ProxyRequest) => boolean,
  extra: (field: string) => string,
  fill: (rec: Record<string, any>, key: string, hiddenValue: unknown) => 'error' | void,
): Fault['rewrite'] {
  return on(RECORD_READS, async (req, route, ctx, next) => {
    const cols = parseColumns(req.query.get('columns'));
    if (!cols || !when(req)) return next(req);
    const targets = await bareFields(ctx, route.domain, cols, kind);
    if (targets.length === 0) return next(req);
    const { req: r, hidden } = withHiddenColumns(
      req,
      targets.map((t) => extra(t.field)),
    );
    const res = await next(r);
    if (!isOk(res)) return res;
    const body = bodyJson(res);
    const recs: Array<Record<string, any>> = body?.Record ? [body.Record] : Array.isArray(body?.List) ? body.List : [];
    for (const rec of recs) {
      for (const t of targets) {
        if (fill(rec, t.key, rec[hidden.keys.get(extra(t.field))!]) === 'error') {
          return problem(500, 'InternalError', 'Object reference not set to an instance of an object.');
        }
      }
      stripHidden(rec, hidden);
    }
    return withResponseJson(res, body);
  });
}

const GEN: Fault[] = [
  {
    name: 'problem-details-as-plain-text',
    area: 'GEN',
    description: 'Error answers (4xx) are sent as text/plain with the status title instead of a JSON body.',
    requirements: ['GEN-001'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      if (res.status < 400 || res.status >= 500 || !req.path.startsWith('/api/')) return res;
      const title = bodyJson(res)?.title ?? 'Error';
      const headers: Record<string, string> = { ...res.headers, 'content-type': 'text/plain; charset=utf-8' };
      delete headers['content-length'];
      return cloneResponse(res, { headers, body: Buffer.from(String(title)) });
    },
  },
  {
    name: 'json-served-as-html',
    area: 'GEN',
    description: 'Successful JSON answers carry Content-Type text/html (a framework default left in place).',
    requirements: ['GEN-001'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      if (
        !isOk(res) ||
        !req.path.startsWith('/api/') ||
        !(res.headers['content-type'] ?? '').includes('json') ||
        res.body.length === 0
      )
        return res;
      return cloneResponse(res, { headers: { ...res.headers, 'content-type': 'text/html; charset=utf-8' } });
    },
  },
];

const DOM: Fault[] = [
  {
    name: 'lowercase-domain-accepted',
    area: 'DOM',
    description: 'Domain names in paths are matched case-insensitively (claim reaches Claim).',
    requirements: ['DOM-001'],
    rewrite: onRequest(READS, async (req, route, ctx) => {
      const ids = await ctx.domainIds();
      if (ids.has(route.domain)) return req;
      const name = [...ids.keys()].find((n) => n.toLowerCase() === route.domain.toLowerCase());
      return name ? cloneRequest(req, { path: replaceSegment(req.path, 1, name) }) : req;
    }),
  },
  {
    name: 'domains-list-includes-inaccessible',
    area: 'DOM',
    description: 'GET /api/Domains lists every domain, without the View permission filter.',
    requirements: ['DOM-007'],
    rewrite: onJsonResponse(['listDomains'], async (body, _req, _route, ctx) => {
      const all = await ctx.call('GET', '/api/Domains');
      if (all.status === 200 && Array.isArray(all.json?.List) && body && Array.isArray(body.List))
        body.List = all.json.List;
    }),
  },
  {
    name: 'incident-domain-id-renumbered',
    area: 'DOM',
    description:
      'Core DomainIDs are numbered sequentially, so Incident gets 8 instead of the fixed 11 (lists and links alike).',
    requirements: ['DOM-004'],
    rewrite: onJsonResponse(['listDomains', 'queryLinks'], (body) => renumber(body, (id) => (id === 11 ? 8 : id))),
  },
  {
    name: 'custom-domain-ids-below-core',
    area: 'DOM',
    description: 'Custom domains are numbered right after Task (8, 9, ...) instead of above every core DomainID.',
    requirements: ['DOM-005'],
    rewrite: on(['listDomains', 'queryLinks'], async (req, _route, ctx, next) => {
      const ids = await ctx.domainIds();
      const customs = [...ids.entries()]
        .filter(([n]) => n.startsWith('Custom.'))
        .map(([, id]) => id)
        .sort((a, b) => a - b);
      const map = new Map(customs.map((id, i) => [id, 8 + i]));
      const res = await next(req);
      const body = bodyJson(res);
      if (!isOk(res) || body === undefined) return res;
      renumber(body, (id) => map.get(id) ?? id);
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'member-proposal-not-listed',
    area: 'DOM',
    description:
      'GET /api/Domains leaves out Member and Proposal (only the table of section 2.1 and customs are listed).',
    requirements: ['DOM-006', 'DOM-008'],
    rewrite: onJsonResponse(['listDomains'], (body) => {
      if (body && Array.isArray(body.List))
        body.List = body.List.filter((d: any) => d?.Name !== 'Member' && d?.Name !== 'Proposal');
    }),
  },
];

/** Renumber DomainIDs in a domain list or link rows. */
function renumber(body: any, map: (id: number) => number): void {
  const rows: any[] = Array.isArray(body?.List) ? body.List : [];
  for (const r of rows) {
    for (const k of ['DomainID', 'ParentDomainID', 'ChildDomainID']) if (typeof r?.[k] === 'number') r[k] = map(r[k]);
  }
}

const REC: Fault[] = [
  {
    name: 'record-envelope-without-id',
    area: 'REC',
    description: 'GET /api/{domain}/{id} answers Record and Domain but leaves out Id.',
    requirements: ['REC-001', 'FILE-009'],
    rewrite: onJsonResponse(['getRecord'], (body) => {
      if (body && typeof body === 'object') delete body.Id;
    }),
  },
  {
    name: 'record-read-ignores-id',
    area: 'REC',
    description:
      'GET /api/{domain}/{id} loses its WHERE clause and answers the first record of the domain under the asked Id.',
    requirements: ['REC-002'],
    rewrite: onJsonResponse(['getRecord'], async (body, req, route, ctx) => {
      if (route.domain === 'File' || !body?.Record) return;
      const q = new URLSearchParams();
      for (const k of ['columns', 'resolveAssociationNames']) if (req.query.has(k)) q.set(k, req.query.get(k)!);
      q.set('take', '1');
      const first = await ctx.call('GET', `/api/${encodeURIComponent(route.domain)}/Query?${q}`, {
        token: tokenOf(req, ctx) ?? null,
      });
      if (first.status === 200 && first.json?.List?.[0]) body.Record = first.json.List[0];
    }),
  },
];

const COL: Fault[] = [
  {
    name: 'column-alias-ignored',
    area: 'COL',
    description: '`<field> as <Alias>` is read as the bare field: the value comes back under the field name.',
    requirements: ['COL-003'],
    rewrite: onRequest(READS, (req) => {
      const cols = parseColumns(req.query.get('columns'));
      if (!cols || cols.every((c) => c.key === c.field)) return req;
      const r = cloneRequest(req);
      const seen = new Set<string>();
      r.query.set(
        'columns',
        formatColumns(
          cols.map((c) => ({ field: c.field, key: c.field })).filter((c) => !seen.has(c.field) && seen.add(c.field)),
        ),
      );
      return r;
    }),
  },
  {
    name: 'bare-association-returns-id',
    area: 'COL',
    description: 'A bare association column returns the stored reference ID instead of null.',
    requirements: ['COL-006', 'COL-010'],
    rewrite: bareFieldRewrite(
      'association',
      (req) => !isTrue(req.query.get('resolveAssociationNames')),
      (f) => `${f}ID`,
      (rec, key, id) => {
        if (key in rec && rec[key] === null && id !== null && id !== undefined) rec[key] = id;
      },
    ),
  },
  {
    name: 'bare-coded-field-returns-code',
    area: 'COL',
    description: 'A bare coded column returns the stored code (e.g. "PR") instead of null.',
    requirements: ['COL-007'],
    rewrite: bareFieldRewrite(
      'coded',
      () => true,
      (f) => `${f}.Code`,
      (rec, key, code) => {
        if (key in rec && rec[key] === null && code !== null && code !== undefined) rec[key] = code;
      },
    ),
  },
  {
    name: 'dotted-name-returns-null',
    area: 'COL',
    description: 'Dotted names (<Field>.<Property>) are accepted but never joined, so they return null.',
    requirements: ['COL-004', 'COL-005'],
    rewrite: onJsonResponse(RECORD_READS, (body, req) => {
      const dotted = (parseColumns(req.query.get('columns')) ?? []).filter((c) => c.field.includes('.'));
      const recs: any[] = body?.Record ? [body.Record] : Array.isArray(body?.List) ? body.List : [];
      for (const rec of recs) for (const c of dotted) if (c.key in rec) rec[c.key] = null;
    }),
  },
  {
    name: 'resolve-association-names-ignored',
    area: 'COL',
    description: 'resolveAssociationNames=true is ignored, so association columns stay null.',
    requirements: ['COL-008'],
    rewrite: ignoreQueryParam(RECORD_READS, 'resolveAssociationNames'),
  },
  {
    name: 'resolve-missing-association-fails',
    area: 'COL',
    description:
      'With resolveAssociationNames=true, a reference to a deleted record throws (HTTP 500) instead of giving null.',
    requirements: ['COL-009'],
    rewrite: bareFieldRewrite(
      'association',
      (req) => isTrue(req.query.get('resolveAssociationNames')),
      (f) => `${f}ID`,
      (rec, key, id) => (key in rec && rec[key] === null && id !== null && id !== undefined ? 'error' : undefined),
    ),
  },
  {
    name: 'columns-parameter-ignored',
    area: 'COL',
    description: 'The columns list is ignored: every default column is returned whatever was asked.',
    requirements: ['COL-001'],
    rewrite: ignoreQueryParam(READS, 'columns'),
  },
  {
    name: 'default-columns-key-only',
    area: 'COL',
    description: 'Without columns, only the primary key column is returned instead of all in-use columns.',
    requirements: ['COL-002', 'QRY-002'],
    rewrite: onJsonResponse(RECORD_READS, (body, req) => {
      if (req.query.has('columns')) return;
      const recs: any[] = body?.Record ? [body.Record] : Array.isArray(body?.List) ? body.List : [];
      for (const rec of recs) {
        const [first] = Object.keys(rec);
        for (const k of Object.keys(rec)) if (k !== first) delete rec[k];
      }
    }),
  },
  {
    name: 'link-query-columns-ignored',
    area: 'COL',
    description: 'Link/Query ignores the columns list and returns every link column.',
    requirements: ['COL-011', 'COL-001'],
    rewrite: ignoreQueryParam(['queryLinks'], 'columns'),
  },
  {
    name: 'link-query-default-columns-ids-only',
    area: 'COL',
    description:
      'Link/Query without columns answers ParentID and ChildID only, not every link column (the DomainIDs are left out).',
    requirements: ['COL-002'],
    rewrite: onJsonResponse(['queryLinks'], (body, req) => {
      if (req.query.has('columns') || !Array.isArray(body?.List)) return;
      for (const row of body.List as Array<Record<string, unknown>>)
        for (const k of Object.keys(row)) if (k !== 'ParentID' && k !== 'ChildID') delete row[k];
    }),
  },
  {
    name: 'link-query-alias-ignored',
    area: 'COL',
    description:
      'Link/Query reads `<field> as <Alias>` as the bare field (its own column parser, not the one of the record reads): the value comes back under the field name.',
    requirements: ['COL-003'],
    rewrite: onRequest(['queryLinks'], (req) => {
      const cols = parseColumns(req.query.get('columns'));
      if (!cols || cols.every((c) => c.key === c.field)) return req;
      const r = cloneRequest(req);
      r.query.set('columns', formatColumns(cols.map((c) => ({ field: c.field, key: c.field }))));
      return r;
    }),
  },
];

const QUERIES = ['queryRecords'] as const;

function intParam(req: ProxyRequest, name: string): number | undefined {
  const v = req.query.get(name);
  if (v === null || v.trim() === '' || !/^-?\d+$/.test(v.trim())) return undefined;
  return Number(v);
}

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

/**
 * The bug "LINQ filter evaluated in memory on the fetched page": the page is cut (take, start
 * offset, sort) from the unfiltered query, and only then are its rows matched against the LINQ
 * filter. The matching rows are learnt from the upstream's own answer to the filter (by the key
 * column `<Domain>ID`, read alongside); when that cannot be read the request passes untouched.
 */
const linqFilterAfterPaging: Fault['rewrite'] = on(QUERIES, async (req, route, _ctx, next) => {
  const linq = req.query.get('linqFilter');
  if (!linq) return next(req);
  const key = `${route.domain}ID`;
  const m = cloneRequest(req);
  m.query.set('columns', key);
  m.query.set('take', '100');
  m.query.delete('skip');
  m.query.delete('sort');
  const matching = bodyJson(await next(m))?.List;
  if (!Array.isArray(matching) || !matching.every((r) => r && key in r)) return next(req);
  const keys = new Set(matching.map((r) => r[key]));
  const unfiltered = cloneRequest(req);
  unfiltered.query.delete('linqFilter');
  const { req: r, hidden } = withHiddenColumns(unfiltered, [key]);
  const res = await next(r);
  const body = bodyJson(res);
  if (!isOk(res) || !Array.isArray(body?.List)) return res;
  const k = hidden.keys.get(key)!;
  body.List = (body.List as Array<Record<string, unknown>>).filter((row) => {
    const keep = keys.has(row[k]);
    stripHidden(row, hidden);
    return keep;
  });
  return withResponseJson(res, body);
});

const QRY: Fault[] = [
  {
    name: 'take-above-100-honoured',
    area: 'QRY',
    description: 'take above 100 is honoured: the server pages internally and returns all requested records.',
    requirements: ['QRY-004'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      const want = intParam(req, 'take');
      if (want === undefined || want <= 100) return next(req);
      const skip0 = intParam(req, 'skip') ?? 0;
      const all: unknown[] = [];
      let first: { res: Awaited<ReturnType<typeof next>>; body: any } | undefined;
      while (all.length < want) {
        const r = cloneRequest(req);
        const page = Math.min(100, want - all.length);
        r.query.set('take', String(page));
        r.query.set('skip', String(skip0 + all.length));
        const res = await next(r);
        const body = bodyJson(res);
        if (!isOk(res) || !Array.isArray(body?.List))
          return first ? withResponseJson(first.res, { ...first.body, List: all }) : res;
        first ??= { res, body };
        all.push(...body.List);
        if (body.List.length < page) break;
      }
      return withResponseJson(first!.res, { ...first!.body, List: all });
    }),
  },
  {
    name: 'skip-ignored',
    area: 'QRY',
    description: 'The start offset (skip) is ignored: every page starts at the first record.',
    requirements: ['QRY-006'],
    rewrite: ignoreQueryParam(QUERIES, 'skip'),
  },
  {
    name: 'skip-default-one',
    area: 'QRY',
    description: 'The start offset is 1-based: without skip the first record is left out.',
    requirements: ['QRY-007'],
    rewrite: onRequest(QUERIES, (req) => {
      const r = cloneRequest(req);
      r.query.set('skip', String((intParam(req, 'skip') ?? 0) + (req.query.has('skip') ? 0 : 1)));
      return r;
    }),
  },
  {
    name: 'take-default-50',
    area: 'QRY',
    description: 'Without take, a query returns 50 records instead of 30.',
    requirements: ['QRY-003'],
    rewrite: defaultQueryParam(QUERIES, 'take', '50'),
  },
  {
    name: 'take-off-by-one',
    area: 'QRY',
    description: 'take=n returns n+1 records (an inclusive upper bound).',
    requirements: ['QRY-005'],
    rewrite: onRequest(['queryRecords', 'listAttachedFiles'], (req) => {
      const take = intParam(req, 'take');
      if (take === undefined || take < 1 || take >= 100) return req;
      const r = cloneRequest(req);
      r.query.set('take', String(take + 1));
      return r;
    }),
  },
  {
    name: 'sort-desc-ignored',
    area: 'QRY',
    description: 'The direction keyword of sort is ignored: `<column> desc` sorts ascending.',
    requirements: ['QRY-008'],
    rewrite: onRequest(QUERIES, (req) => {
      const sort = req.query.get('sort');
      if (!sort || !/\sdesc\b/i.test(sort)) return req;
      const r = cloneRequest(req);
      r.query.set('sort', sort.replace(/\s+desc\b/gi, ''));
      return r;
    }),
  },
  {
    name: 'filter-ignored',
    area: 'QRY',
    description: 'The filter parameter is ignored: a query lists every record of the domain.',
    requirements: ['QRY-009'],
    rewrite: ignoreQueryParam(QUERIES, 'filter'),
  },
  {
    name: 'linq-filter-ignored',
    area: 'QRY',
    description:
      'The LINQ filter parameter is ignored (record and file queries): every record of the domain is listed.',
    requirements: ['QRY-010'],
    rewrite: ignoreQueryParam(QUERIES, 'linqFilter'),
  },
  {
    name: 'linq-filter-after-paging',
    area: 'QRY',
    description:
      'The LINQ filter is evaluated in memory on the fetched page: take and the start offset cut the unfiltered result, then the page is filtered.',
    requirements: ['QRY-010'],
    rewrite: linqFilterAfterPaging,
  },
  {
    name: 'sort-within-page-only',
    area: 'QRY',
    description:
      'The page is cut in storage order and then sorted (LIMIT/OFFSET applied before ORDER BY): each page is in order, the pages together are not.',
    requirements: ['QRY-006', 'QRY-007', 'QRY-008', 'QRY-023', 'QRY-024'],
    rewrite: sortWithinPage((_req, domain) => domain !== 'File'),
  },
  {
    name: 'sort-asc-keyword-read-as-desc',
    area: 'QRY',
    description:
      'Any direction keyword is read as descending: `<column> asc` sorts descending, `<column>` alone ascending.',
    requirements: ['QRY-023'],
    rewrite: onRequest(QUERIES, (req) => {
      const sort = req.query.get('sort');
      if (!sort || !/\sasc\b/i.test(sort)) return req;
      const r = cloneRequest(req);
      r.query.set('sort', sort.replace(/\s+asc\b/gi, ' desc'));
      return r;
    }),
  },
  {
    name: 'sort-first-column-only',
    area: 'QRY',
    description: 'Only the first sort column is used; ties keep storage order instead of following the next column.',
    requirements: ['QRY-024'],
    rewrite: onRequest(QUERIES, (req) => {
      const sort = req.query.get('sort');
      if (!sort || !sort.includes(',')) return req;
      const r = cloneRequest(req);
      r.query.set('sort', sort.split(',')[0]!);
      return r;
    }),
  },
  {
    name: 'empty-column-suppression-checks-first-row-only',
    area: 'QRY',
    description:
      'Empty-column suppression decides from the first record alone: a column null there is dropped, even when a later record has a value.',
    requirements: ['QRY-012'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      if (!isTrue(req.query.get('excludeEmptyColumns'))) return next(req);
      const r = cloneRequest(req);
      r.query.delete('excludeEmptyColumns');
      const res = await next(r);
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List) || body.List.length === 0) return res;
      const rows: Array<Record<string, unknown>> = body.List;
      for (const k of Object.keys(rows[0]!)) if (rows[0]![k] === null) for (const row of rows) delete row[k];
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'empty-column-suppression-ignored',
    area: 'QRY',
    description: 'Empty-column suppression is ignored: columns null in every record are still returned.',
    requirements: ['QRY-011'],
    rewrite: ignoreQueryParam(QUERIES, 'excludeEmptyColumns'),
  },
  {
    name: 'empty-column-suppression-drops-sparse-columns',
    area: 'QRY',
    description:
      'Empty-column suppression drops a column that is null in any record, even when another record has a value.',
    requirements: ['QRY-012'],
    rewrite: onJsonResponse(QUERIES, (body, req) => {
      if (!isTrue(req.query.get('excludeEmptyColumns')) || !Array.isArray(body?.List)) return;
      const rows: Array<Record<string, unknown>> = body.List;
      const keys = new Set(rows.flatMap((r) => Object.keys(r)));
      for (const k of keys)
        if (rows.some((r) => r[k] === null || r[k] === undefined)) for (const r of rows) delete r[k];
    }),
  },
  {
    name: 'empty-column-suppression-on-by-default',
    area: 'QRY',
    description: 'Empty-column suppression defaults to true, so requested all-null columns disappear.',
    requirements: ['QRY-013'],
    rewrite: defaultQueryParam(QUERIES, 'excludeEmptyColumns', 'true'),
  },
  {
    name: 'total-count-of-page',
    area: 'QRY',
    description: 'The total count is the number of records in the page, not of all matching records.',
    requirements: ['QRY-014'],
    rewrite: onJsonResponse(QUERIES, (body) => {
      if (body && typeof body.TotalCount === 'number' && Array.isArray(body.List)) body.TotalCount = body.List.length;
    }),
  },
  {
    name: 'total-count-always-included',
    area: 'QRY',
    description: 'The total count is always included, even when not asked for.',
    requirements: ['QRY-015'],
    rewrite: defaultQueryParam(QUERIES, 'includeTotalCount', 'true'),
  },
  {
    name: 'skip-capped-at-100',
    area: 'QRY',
    description:
      'The start offset is clamped like take: an offset above 100 is read as 100, so deep pages repeat the records after the 100th.',
    requirements: ['QRY-006'],
    rewrite: onRequest(QUERIES, (req) => {
      const skip = intParam(req, 'skip');
      if (skip === undefined || skip <= 100) return req;
      const r = cloneRequest(req);
      r.query.set('skip', '100');
      return r;
    }),
  },
  {
    name: 'suppression-ignores-aliased-columns',
    area: 'QRY',
    description:
      'Empty-column suppression looks columns up by field name, so a column requested under an alias is never dropped, even when it is null in every record.',
    requirements: ['QRY-011'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      const cols = parseColumns(req.query.get('columns'));
      if (!isTrue(req.query.get('excludeEmptyColumns')) || !cols?.some((c) => c.key !== c.field)) return next(req);
      const res = await next(req);
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List)) return res;
      const rows: Array<Record<string, unknown>> = body.List;
      // the aliased columns the upstream dropped come back, null in every record
      for (const c of cols) if (c.key !== c.field) for (const row of rows) if (!(c.key in row)) row[c.key] = null;
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'query-answers-bare-array',
    area: 'QRY',
    description: 'GET /api/{domain}/Query answers a bare JSON array instead of an object with List.',
    requirements: ['QRY-001'],
    rewrite: onJsonResponse(QUERIES, (body) => (body && Array.isArray(body.List) ? body.List : body)),
  },
];

export const RECORD_FAULTS: Fault[] = [...GEN, ...DOM, ...REC, ...COL, ...QRY];
