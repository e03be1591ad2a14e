// Faults of the column language (COL): aliases, bare associations and coded fields, dotted names,
// resolveAssociationNames and the default columns (spec 4.1), of records and of Link/Query.
import type { Fault, FaultContext } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  type ColumnItem,
  formatColumns,
  isOk,
  isTrue,
  parseColumns,
  problem,
  type ProxyRequest,
  stripHidden,
  withHiddenColumns,
  withResponseJson,
} from '../exchange.js';
import { ignoreQueryParam, on, onJsonResponse, onRequest, READS } from './util.js';

const RECORD_READS = ['getRecord', 'getFile', 'queryRecords', 'queryFiles'] as const;

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

/** The request with every `<field> as <Alias>` read as the bare field (each field once); the
 * request itself when no column has an alias. */
function aliasesDropped(req: ProxyRequest): ProxyRequest {
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
}

export const COL_FAULTS: Fault[] = [
  {
    // issue 44: the column list is read into a map by field, so the second mention of a field wins
    // the slot and its alias comes back empty
    name: 'alias-of-requested-field-null',
    area: 'COL',
    description:
      '`columns=X, X as Y` answers null for Y: a field requested bare and under an alias fills only the bare key.',
    requirements: ['COL-003'],
    rewrite: onJsonResponse(READS, (body, req) => {
      const items = parseColumns(req.query.get('columns')) ?? [];
      const bare = new Set(items.filter((c) => c.key === c.field).map((c) => c.field));
      const nulled = items.filter((c) => c.key !== c.field && bare.has(c.field)).map((c) => c.key);
      if (!nulled.length || !body || typeof body !== 'object') return;
      const rows: unknown[] = Array.isArray(body.List) ? body.List : [body.Record];
      for (const row of rows)
        if (row && typeof row === 'object')
          for (const k of nulled) if (k in row) (row as Record<string, unknown>)[k] = null;
    }),
  },
  {
    name: 'column-alias-ignored',
    area: 'COL',
    description: '`<field> as <Alias>` is read as the bare field: the value comes back under the field name.',
    requirements: ['COL-003'],
    rewrite: onRequest(READS, aliasesDropped),
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
    // blind set 2 (a fault written from the spec alone, missed on 72ebccf): the resolving path
    // handles every column of an association, its dotted properties too
    name: 'resolve-nulls-dotted-properties',
    area: 'COL',
    description:
      'With resolveAssociationNames=true, every column of an association goes down the display-name path: dotted properties (Location.City) come back null.',
    requirements: ['COL-004'],
    rewrite: onJsonResponse(RECORD_READS, (body, req) => {
      if (!isTrue(req.query.get('resolveAssociationNames'))) return;
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
  // issue 32: bugs that show only in a combination of features (suite/feature-pairs.test.ts)
  {
    name: 'alias-ignored-with-resolve-association-names',
    area: 'COL',
    description:
      'With resolveAssociationNames=true the columns are parsed by another path that reads `<field> as <Alias>` as the bare field: the value comes back under the field name.',
    requirements: ['COL-003'],
    rewrite: onRequest(RECORD_READS, (req) =>
      isTrue(req.query.get('resolveAssociationNames')) ? aliasesDropped(req) : req,
    ),
  },
];
