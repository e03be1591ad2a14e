// Faults of query parameters (QRY): take, skip, sort, filter and the LINQ filter (spec 4.2).
import type { Fault } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  isOk,
  type Json,
  problem,
  type ProxyResponse,
  isTrue,
  parseColumns,
  type ProxyRequest,
  stripHidden,
  withHiddenColumns,
  withResponseJson,
} from '../exchange.js';
import { defaultQueryParam, ignoreQueryParam, on, onJsonResponse, onRequest, QUERIES } from './util.js';
import { sortWithinPage } from './sort-within-page.js';
import { byDate, numbersComparedAsText, rewriteConditions } from './filter-operators.js';

function intParam(req: ProxyRequest, name: string): number | undefined {
  const v = req.query.get(name);
  if (v === null || v.trim() === '' || !/^-?\d+$/.test(v.trim())) return undefined;
  return Number(v);
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

/**
 * Empty-column suppression decided from only some of the page's records (`looked`, an off-by-one
 * or first-row-only loop): the query runs without it and a column null (or absent) in every
 * record looked at is dropped from every record, even when a record not looked at has a value.
 */
function suppressionJudgedOn(
  looked: (rows: Array<Record<string, unknown>>) => Array<Record<string, unknown>>,
): Fault['rewrite'] {
  return on(QUERIES, async (req, _route, _ctx, next) => {
    if (!isTrue(req.query.get('excludeEmptyColumns'))) return next(req);
    const r = cloneRequest(req);
    r.query.delete('excludeEmptyColumns');
    const res = await next(r);
    const body = bodyJson(res);
    if (!isOk(res) || !Array.isArray(body?.List) || body.List.length === 0) return res;
    const rows: Array<Record<string, unknown>> = body.List;
    const seen = looked(rows);
    for (const k of Object.keys(rows[0]!))
      if (seen.every((row) => row[k] === null || row[k] === undefined)) for (const row of rows) delete row[k];
    return withResponseJson(res, body);
  });
}

/**
 * The bug "a page cache keyed without the start offset": a query's answer is kept for a minute
 * under its path, its other parameters and the caller's token, but not its start offset, so a
 * later page of the same query is answered with the page first cached.
 */
const PAGE_CACHE_MS = 60_000;
const pageCacheIgnoresOffset: Fault['rewrite'] = on(QUERIES, async (req, _route, ctx, next) => {
  const q = new URLSearchParams(req.query);
  q.delete('skip');
  q.sort();
  const key = `${req.path}?${q.toString()} ${req.headers[ctx.tokenHeader] ?? ''}`;
  const cache: Map<string, { at: number; res: ProxyResponse }> = ctx.memory.get('pages') ?? new Map();
  ctx.memory.set('pages', cache);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < PAGE_CACHE_MS) return { ...hit.res, headers: { ...hit.res.headers } };
  const res = await next(req);
  if (isOk(res)) cache.set(key, { at: Date.now(), res });
  return res;
});

export const QRY_FAULTS: Fault[] = [
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
    // QUERIES are both queries: the file query's offset (FILE-022) is ignored as well
    requirements: ['QRY-006', 'FILE-022'],
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
    rewrite: onRequest(['queryRecords', 'queryFiles', 'listAttachedFiles'], (req) => {
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
    rewrite: suppressionJudgedOn((rows) => rows.slice(0, 1)),
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
  // issue 32: bugs that show only in a combination of features (suite/feature-pairs.test.ts)
  {
    name: 'total-count-ignores-linq-filter',
    area: 'QRY',
    description:
      'The total count is computed before the LINQ filter is applied: with a LINQ filter, it counts every record the rest of the query selects.',
    requirements: ['QRY-014'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      const res = await next(req);
      if (!req.query.get('linqFilter') || !isTrue(req.query.get('includeTotalCount'))) return res;
      const body = bodyJson(res);
      if (!isOk(res) || typeof body?.TotalCount !== 'number') return res;
      const c = cloneRequest(req);
      c.query.delete('linqFilter');
      c.query.set('take', '1');
      c.query.delete('skip');
      const count = bodyJson(await next(c))?.TotalCount;
      return typeof count === 'number' ? withResponseJson(res, { ...body, TotalCount: count }) : res;
    }),
  },
  // issue 32, blind set 3: the LINQ filter met with take and the total count
  {
    name: 'take-default-ignored-with-linq-filter',
    area: 'QRY',
    description:
      'With a LINQ filter and no take, the query takes another path that has no default page size: up to 100 records come back instead of 30.',
    requirements: ['QRY-003'],
    rewrite: defaultQueryParam(QUERIES, 'take', '100', (req) => !!req.query.get('linqFilter')),
  },
  {
    name: 'total-count-ignores-linq-filter-with-filter',
    area: 'QRY',
    description:
      'With the filter and a LINQ filter given together, the total count is that of the filter alone (the LINQ filter is applied to the page only); a LINQ filter alone is counted right.',
    requirements: ['QRY-014'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      const res = await next(req);
      if (!req.query.get('linqFilter') || !req.query.get('filter') || !isTrue(req.query.get('includeTotalCount')))
        return res;
      const body = bodyJson(res);
      if (!isOk(res) || typeof body?.TotalCount !== 'number') return res;
      const c = cloneRequest(req);
      c.query.delete('linqFilter');
      c.query.set('take', '1');
      c.query.delete('skip');
      const count = bodyJson(await next(c))?.TotalCount;
      return typeof count === 'number' ? withResponseJson(res, { ...body, TotalCount: count }) : res;
    }),
  },
  {
    name: 'empty-column-suppression-skips-last-row',
    area: 'QRY',
    description:
      'Empty-column suppression looks at every record but the last (an off-by-one loop): a column whose only value is on the last record of the page is dropped.',
    requirements: ['QRY-012'],
    rewrite: suppressionJudgedOn((rows) => (rows.length > 1 ? rows.slice(0, -1) : rows)),
  },
  {
    name: 'suppression-before-name-resolution',
    area: 'QRY',
    description:
      'Suppression runs before association names are resolved: with resolveAssociationNames=true, a bare association column is judged by its unresolved (null) values and dropped.',
    requirements: ['QRY-012'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      const res = await next(req);
      if (!isTrue(req.query.get('excludeEmptyColumns')) || !isTrue(req.query.get('resolveAssociationNames')))
        return res;
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List) || body.List.length === 0) return res;
      // the same page unresolved: the columns suppression keeps there are the ones this service keeps
      const raw = cloneRequest(req);
      raw.query.delete('resolveAssociationNames');
      const rawBody = bodyJson(await next(raw));
      if (!Array.isArray(rawBody?.List)) return res;
      const kept = new Set(rawBody.List.flatMap((r: Json) => Object.keys(r ?? {})));
      const List = body.List.map((r: Json) => Object.fromEntries(Object.entries(r).filter(([k]) => kept.has(k))));
      return withResponseJson(res, { ...body, List });
    }),
  },
  {
    name: 'sort-desc-ignored-with-resolve-association-names',
    area: 'QRY',
    description:
      'With resolveAssociationNames=true the query takes another path that drops the direction keyword of the sort: `<column> desc` orders ascending there.',
    requirements: ['QRY-008'],
    rewrite: onRequest(QUERIES, (req) => {
      const sort = req.query.get('sort');
      if (!isTrue(req.query.get('resolveAssociationNames')) || !sort || !/\bdesc\b/i.test(sort)) return req;
      const r = cloneRequest(req);
      r.query.set('sort', sort.replace(/\s+desc\b/gi, ''));
      return r;
    }),
  },
  {
    // issue 42 item 5: a shared step (a page of 100) that a whole suite relies on
    name: 'take-100-refused',
    area: 'QRY',
    description:
      'The maximum of take is checked as exclusive (`take >= 100` is refused with 400): a page of 100 records, the documented maximum, cannot be asked for.',
    requirements: ['QRY-005'],
    rewrite: on(QUERIES, async (req, _route, _ctx, next) => {
      const take = intParam(req, 'take');
      if (take === undefined || take < 100) return next(req);
      return problem(400, 'ValidationError', `take must be less than 100 (got ${take}).`);
    }),
  },
  {
    // issue 42 item 5: a cache in front of every page read
    name: 'page-cache-ignores-start-offset',
    area: 'QRY',
    description:
      'A query answer cache keyed without the start offset (kept a minute): every later page of a query is answered with the first page cached.',
    // QUERIES are both queries: the file query's offset (FILE-022) is cached away as well; a page
    // kept a minute also answers records as they were (QRY-001: the List holds the records)
    requirements: ['QRY-006', 'FILE-022', 'QRY-001'],
    rewrite: pageCacheIgnoresOffset,
  },
  // issue 44 item 2: operator bugs, met only through the filters the state writes by operator class
  {
    name: 'filter-numbers-compared-as-text',
    area: 'QRY',
    description:
      'An order comparison of a numeric field with a number compares their text: `ge 10` selects 9 and 2 (as text they follow "10").',
    requirements: ['QRY-009'],
    rewrite: numbersComparedAsText,
  },
  {
    name: 'filter-ge-as-gt',
    area: 'QRY',
    description: 'The operator `ge` is taken as `gt`: a record whose value equals the boundary is left out.',
    requirements: ['QRY-009'],
    rewrite: rewriteConditions((c) => (c.op === 'ge' ? { filter: `${c.field}:gt:${c.value}` } : undefined)),
  },
  {
    name: 'filter-timestamp-compared-by-date',
    area: 'QRY',
    description:
      'A comparison with a timestamp compares dates only: `gt` noon selects none of that day, `le` noon all of it.',
    requirements: ['QRY-009'],
    rewrite: rewriteConditions(byDate),
  },
  {
    name: 'filter-contains-as-prefix',
    area: 'QRY',
    description:
      'The operator `contains` is taken as a prefix: a text containing the term elsewhere than at its start is left out.',
    requirements: ['QRY-009'],
    rewrite: rewriteConditions((c) =>
      c.op === 'contains' ? { filter: `${c.field}:startswith:${c.value}` } : undefined,
    ),
  },
  {
    name: 'filter-false-as-true',
    area: 'QRY',
    description:
      'A comparison with `false` is read as with `true` (a non-empty string is truthy): `eq false` selects the records holding true.',
    requirements: ['QRY-009'],
    rewrite: rewriteConditions((c) =>
      (c.op === 'eq' || c.op === 'ne') && c.value.trim().toLowerCase() === 'false'
        ? { filter: `${c.field}:${c.op}:true` }
        : undefined,
    ),
  },
  {
    name: 'filter-null-check-matches-empty-text',
    area: 'QRY',
    description: 'A check for no value also matches the empty text: `isnull` selects records whose text is "" too.',
    requirements: ['QRY-009'],
    rewrite: rewriteConditions((c) =>
      c.op === 'isnull' ? { linq: `${c.field} == null || ${c.field} == ""` } : undefined,
    ),
  },
];
