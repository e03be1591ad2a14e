// GET /api/{domain}/Query (spec 4.2, architecture 2): columns, filter, linqFilter, sort, skip,
// take (default 30, clamped to 100, < 1 → 400), excludeEmptyColumns, includeTotalCount,
// resolveAssociationNames.
import type { Context, Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import type { DomainDef } from '../dictionary.js';
import { ApiError } from '../errors.js';
import { requirePermission } from '../auth.js';
import { parseColumnList } from '../columns/column-list.js';
import { excludeEmptyColumns } from '../columns/empty-columns.js';
import { selectRecords } from '../columns/select-records.js';
import type { SqlFragment } from '../filter-parser.js';
import { parseBoolParam, parseIntParam, validateQuery } from '../validation.js';
import { activeCondition, requestContext, requireDomain } from './records.js';
import { queryParam } from '../query-params.js';

const DEFAULT_TAKE = 30;
const MAX_TAKE = 100;

/** `take`: default 30, above 100 clamped to 100, below 1 refused. */
// REQ: QRY-003
// REQ: QRY-004
// REQ: QRY-005
// REQ: QRY-022
function parseTake(raw: string | undefined): number {
  const take = parseIntParam(raw, 'take', DEFAULT_TAKE);
  if (take < 1) throw new ApiError(400, 'MalformedRequest', `'take' must be at least 1, got ${take}.`);
  return Math.min(take, MAX_TAKE);
}

/** `skip`: default 0, never negative. */
// REQ: QRY-006
// REQ: QRY-007
function parseSkip(raw: string | undefined): number {
  const skip = parseIntParam(raw, 'skip', 0);
  if (skip < 0) throw new ApiError(400, 'MalformedRequest', `'skip' must be 0 or more, got ${skip}.`);
  return skip;
}

export interface ListOptions {
  /** accept filter and linqFilter */
  filters: boolean;
  where?: SqlFragment[];
}

/** Run a list query with the query-string options of `c`; answers `{List, TotalCount?}`. */
// REQ: QRY-018
export function listQuery(c: Context<AppEnv>, deps: Deps, def: DomainDef, opts: ListOptions) {
  const qp = (n: string) => queryParam(c, n);
  const columns = parseColumnList(qp('columns'));
  const take = parseTake(qp('take'));
  const skip = parseSkip(qp('skip'));
  // REQ: QRY-011
  // REQ: QRY-013
  const exclude = parseBoolParam(qp('excludeEmptyColumns'), 'excludeEmptyColumns', false);
  // REQ: QRY-014
  // REQ: QRY-017 (the count is a second query, only when asked for)
  // REQ: QRY-015
  const includeTotalCount = parseBoolParam(qp('includeTotalCount'), 'includeTotalCount', false);
  const resolveAssociationNames = parseBoolParam(qp('resolveAssociationNames'), 'resolveAssociationNames', false);
  const { rows, total } = selectRecords(requestContext(c, deps), def, {
    columns,
    resolveAssociationNames,
    filter: opts.filters ? qp('filter') : undefined,
    linqFilter: opts.filters ? qp('linqFilter') : undefined,
    sort: qp('sort'),
    skip,
    take,
    includeTotalCount,
    where: opts.where,
  });
  if (exclude) excludeEmptyColumns(rows);
  // REQ: QRY-001
  // REQ: QRY-019
  const body: { List: Array<Record<string, unknown>>; TotalCount?: number } = { List: rows };
  if (includeTotalCount) body.TotalCount = total ?? 0;
  return body;
}

export function register(app: Hono<AppEnv>, deps: Deps): void {
  // REQ: QRY-002
  app.get('/api/:domain/Query', (c) => {
    const def = requireDomain(deps, c.req.param('domain'));
    validateQuery(c, 'get', def.name === 'File' ? '/api/File/Query' : '/api/{domain}/Query');
    // REQ: AUTH-012
    requirePermission(c.get('user'), def.name, 'View');
    return c.json(listQuery(c, deps, def, { filters: true, where: activeCondition(def) }));
  });
}
