// GET /api/{domain}/{id}: one record with the requested columns (spec 4.2).
import type { Context, Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { type DomainDef, q } from '../dictionary.js';
import { ApiError } from '../errors.js';
import { requirePermission, TOKEN_HEADER } from '../auth.js';
import { parseColumnList } from '../columns/column-list.js';
import { compileRecordRead, type RecordRead } from '../columns/record-read.js';
import type { RequestContext } from '../columns/request-context.js';
import type { SqlFragment } from '../filter-parser.js';
import { parseBoolParam, parseId, validateQuery } from '../validation.js';
import { queryParam } from '../query-params.js';

/** The domain of a path, matched case-sensitively; 404 UnknownDomain otherwise. */
// REQ: DOM-001
// REQ: DOM-002
// REQ: DOM-011 — an unknown domain fails (404 UnknownDomain), never a success with data.
// REQ: DOM-010
export function requireDomain(deps: Deps, name: string): DomainDef {
  const def = deps.dict.get(name);
  if (!def) throw new ApiError(404, 'UnknownDomain', `Unknown domain '${name}'. Domain names are case-sensitive.`);
  return def;
}

/** Soft-deleted schedule records (IsDeleted = 1) are not active: the generic routes do not show
 * them (spec 3: a soft-deleted Endorsement schedule record is restored by Reinstate). */
// REQ: SCHED-019
// REQ: SCHED-021
// REQ: SCHED-030
export function activeCondition(def: DomainDef): SqlFragment[] {
  return def.schedule && def.fields.some((f) => f.name === 'IsDeleted')
    ? [{ sql: 'coalesce(t."IsDeleted", 0) = 0', params: [] }]
    : [];
}

export function requestContext(c: Context<AppEnv>, deps: Deps): RequestContext {
  // the token authenticate() found (every /api route runs behind it), else the header itself
  return { deps, user: c.get('user'), token: c.get('token') ?? c.req.header(TOKEN_HEADER) ?? '' };
}

/** How many compiled record reads `getOne` keeps (per server; least recently added out first). */
const RECORD_READ_CACHE_SIZE = 500;
const recordReads = new WeakMap<Deps, Map<string, RecordRead>>();

/** Read one record (Record/Domain/Id envelope) or 404 RecordNotFound. The read of a (domain,
 * columns, resolveAssociationNames) is compiled once (column engine, SQL text, statement) and the
 * record is read with one query: its key and the active condition, as the existence check was. */
function getOne(c: Context<AppEnv>, deps: Deps, def: DomainDef, id: number) {
  const rawColumns = queryParam(c, 'columns');
  const rawResolve = queryParam(c, 'resolveAssociationNames');
  let reads = recordReads.get(deps);
  if (!reads) recordReads.set(deps, (reads = new Map()));
  // unambiguous whatever the raw values hold: the boolean is length-prefixed, absent ones are '-'
  const key = `${def.name}\u0000${rawResolve === undefined ? '-' : `+${rawResolve.length}:${rawResolve}`}|${rawColumns === undefined ? '-' : '+' + rawColumns}`;
  let read = reads.get(key);
  if (!read) {
    // The same checks in the same order as before the cache: the column list's syntax, the
    // boolean, the existence of the record, then the columns themselves.
    const columns = parseColumnList(rawColumns);
    const resolveAssociationNames = parseBoolParam(rawResolve, 'resolveAssociationNames', false);
    try {
      read = compileRecordRead(deps, def, columns, resolveAssociationNames, activeCondition(def));
    } catch (err) {
      // An unknown column and the like: a missing record is still reported first (404).
      requireRecord(deps, def, id);
      throw err;
    }
    if (reads.size >= RECORD_READ_CACHE_SIZE) reads.delete(reads.keys().next().value!);
    reads.set(key, read);
  }
  // DownloadURL with enhanced session ID security off: 404 for a missing record, else 500.
  if (read.wantsDownload && !deps.settings.enhancedSessionIDSecurity) requireRecord(deps, def, id);
  const record = read.run(requestContext(c, deps), id);
  if (!record) throw notFound(def, id);
  // REQ: REC-001
  // REQ: REC-002
  return { Record: record, Domain: def.name, Id: id };
}

function notFound(def: DomainDef, id: number): ApiError {
  return new ApiError(404, 'RecordNotFound', `${def.name} with ID ${id} was not found.`);
}

/** 404 RecordNotFound unless an active record with this key exists. */
function requireRecord(deps: Deps, def: DomainDef, id: number): void {
  const active = activeCondition(def);
  const exists = deps.db
    .prepare(`SELECT 1 FROM ${q(def.table)} t WHERE t.${q(def.key)} = ?${active.map((a) => ' AND ' + a.sql).join('')}`)
    .get(id);
  if (!exists) throw notFound(def, id);
}

export function register(app: Hono<AppEnv>, deps: Deps): void {
  app.get('/api/:domain/:id', (c) => {
    const def = requireDomain(deps, c.req.param('domain'));
    validateQuery(c, 'get', def.name === 'File' ? '/api/File/{id}' : '/api/{domain}/{id}');
    // REQ: AUTH-012
    requirePermission(c.get('user'), def.name, 'View');
    // REQ: GEN-004
    const id = parseId(c.req.param('id'));
    // REQ: REC-004 — a missing record fails, never a success with data.
    // REQ: REC-003
    return c.json(getOne(c, deps, def, id));
  });
}
