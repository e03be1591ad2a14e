// Controls of queries (QRY): parameter names, the total count, the default order and the maximum
// page.
import type { Control, FaultContext } from '../fault.js';
import { bodyJson, isOk, problem, withResponseJson } from '../exchange.js';
import { defaultQueryParam, ignoreQueryParam } from '../catalogue/util.js';
import { only, renameQueryParams } from './util.js';

/** Whether `<domain>ID` can be requested on `domain` (asked once per proxy). */
async function keyColumn(ctx: FaultContext, domain: string): Promise<string | undefined> {
  const key = `key:${domain}`;
  if (!ctx.memory.has(key)) {
    const col = `${domain}ID`;
    const r = await ctx.call(
      'GET',
      `/api/${encodeURIComponent(domain)}/Query?take=1&columns=${encodeURIComponent(col)}`,
    );
    ctx.memory.set(key, r.status === 200 ? col : undefined);
  }
  return ctx.memory.get(key) as string | undefined;
}

export const QRY_CONTROLS: Control[] = [
  {
    name: 'query-params-renamed',
    area: 'QRY',
    description:
      'The query parameters the spec does not name are `offset`, `where`, `linq`, `omitEmptyColumns` and `withTotalCount`; the reference names are ignored.',
    allowedBy:
      'Section 4.2: "Names of the parameters for the filter, start offset, LINQ filter, empty-column suppression and total count: not shown."',
    markers: [
      'components/parameters/Filter',
      'components/parameters/Skip',
      'components/parameters/FilesSkip',
      'components/parameters/LinqFilter',
      // the file query's own filter examples (queryFiles)
      'components/parameters/FileFilter',
      'components/parameters/FileLinqFilter',
      'components/parameters/ExcludeEmptyColumns',
      'components/parameters/IncludeTotalCount',
    ],
    select: ['QRY-', 'FILE-', 'COL-'],
    config: {
      bindings: {
        query: {
          skip: 'offset',
          filter: 'where',
          linqFilter: 'linq',
          excludeEmptyColumns: 'omitEmptyColumns',
          includeTotalCount: 'withTotalCount',
        },
      },
    },
    rewrite: renameQueryParams(['queryRecords', 'queryFiles', 'listAttachedFiles'], {
      offset: 'skip',
      where: 'filter',
      linq: 'linqFilter',
      omitEmptyColumns: 'excludeEmptyColumns',
      withTotalCount: 'includeTotalCount',
    }),
  },
  {
    name: 'total-count-in-header',
    area: 'QRY',
    description:
      'The total count is answered in an `X-Total-Count` header instead of a `TotalCount` body field; no binding is set: core recognises the header.',
    allowedBy: 'Section 4.2: "Place and name of the total count in the response: not shown."',
    markers: [
      'components/schemas/ListEnvelope/properties/TotalCount',
      'components/schemas/FileList/properties/TotalCount',
    ],
    select: ['QRY-', 'FILE-'],
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      const body = bodyJson(res);
      if (!isOk(res) || !body || typeof body !== 'object' || !('TotalCount' in body)) return res;
      const { TotalCount, ...rest } = body;
      const out = withResponseJson(res, rest);
      return { ...out, headers: { ...out.headers, 'x-total-count': String(TotalCount) } };
    },
  },
  {
    name: 'total-count-nested',
    area: 'QRY',
    description:
      'The total count is answered at `Meta.Total` in the body instead of a top-level `TotalCount`, with the binding totalCountField set to `Meta.Total` (the binding path kept in use).',
    allowedBy: 'Section 4.2: "Place and name of the total count in the response: not shown."',
    markers: [
      'components/schemas/ListEnvelope/properties/TotalCount',
      'components/schemas/FileList/properties/TotalCount',
    ],
    select: ['QRY-', 'FILE-'],
    config: { bindings: { totalCountField: 'Meta.Total' } },
    rewrite: async (req, _ctx, next) => {
      const res = await next(req);
      const body = bodyJson(res);
      if (!isOk(res) || !body || typeof body !== 'object' || !('TotalCount' in body)) return res;
      const { TotalCount, ...rest } = body;
      return withResponseJson(res, { ...rest, Meta: { Total: TotalCount } });
    },
  },
  {
    name: 'query-default-order-newest-first',
    area: 'QRY',
    description: 'A query without `sort` lists records by their key, descending (newest first), instead of ascending.',
    allowedBy:
      'Section 4.2: "`sort` | string, optional, column names with a direction keyword" (no default order is documented)',
    select: ['QRY-', 'FILE-', 'COL-', 'REC-'],
    rewrite: only(['queryRecords', 'queryFiles', 'queryLinks'], async (req, ctx, next) => {
      const m = /^\/api\/([^/]+)\/Query$/.exec(req.path);
      if (req.method !== 'GET' || !m || req.query.has('sort')) return next(req);
      const key = await keyColumn(ctx, decodeURIComponent(m[1]!));
      if (!key) return next(req);
      return defaultQueryParam(['queryRecords', 'queryFiles'], 'sort', `${key} desc`)(req, ctx, next);
    }),
  },
  {
    name: 'take-over-maximum-refused',
    area: 'QRY',
    description: 'A `take` above the maximum of 100 is refused (400) instead of being capped.',
    allowedBy: 'Section 4.2: "`take` | integer, default 30, maximum 100" (what happens above the maximum is not shown)',
    select: ['QRY-', 'FILE-'],
    rewrite: only(['queryRecords', 'queryFiles', 'queryLinks', 'listAttachedFiles'], async (req, _ctx, next) => {
      const take = req.query.get('take');
      const isQuery = req.method === 'GET' && /^\/api\/[^/]+\/(Query|\d+\/Files)$/.test(req.path);
      if (isQuery && take !== null && /^\d+$/.test(take) && Number(take) > 100)
        return problem(400, 'MalformedRequest', `take must be at most 100; got ${take}.`);
      return next(req);
    }),
  },
  {
    name: 'filter-dropped-with-linq-filter',
    area: 'QRY',
    description:
      'With the filter and a LINQ filter given together, only the LINQ filter applies (the filter is dropped) instead of both.',
    allowedBy:
      'Section 4.2: "LINQ filter | string, optional, C# LINQ syntax, only for cases that the filter syntax cannot express" (how the filter and the LINQ filter combine is not shown)',
    select: ['QRY-', 'FILE-'],
    rewrite: ignoreQueryParam(
      ['queryRecords', 'queryFiles'],
      'filter',
      (req) => req.method === 'GET' && !!req.query.get('linqFilter') && req.query.has('filter'),
    ),
  },
];
