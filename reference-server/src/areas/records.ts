// GET /api/{domain}/{id}: one record with the requested columns (spec 4.2).
import type { Context, Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { type DomainDef, q } from '../dictionary.js';
import { ApiError } from '../errors.js';
import { requirePermission, TOKEN_HEADER } from '../auth.js';
import { parseColumnList, selectRecords, type RequestContext } from '../columns-engine.js';
import type { SqlFragment } from '../filter-parser.js';
import { parseBoolParam, parseId, validateQuery } from '../validation.js';

/** The domain of a path, matched case-sensitively; 404 UnknownDomain otherwise. */
// REQ: DOM-001
// REQ: DOM-002
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
export function activeCondition(def: DomainDef): SqlFragment[] {
  return def.schedule && def.fields.some((f) => f.name === 'IsDeleted') ? [{ sql: 'coalesce(t."IsDeleted", 0) = 0', params: [] }] : [];
}

export function requestContext(c: Context<AppEnv>, deps: Deps): RequestContext {
  return { deps, user: c.get('user'), token: c.req.header(TOKEN_HEADER) ?? '' };
}

/** Read one record (Record/Domain/Id envelope) or 404 RecordNotFound. */
export function getOne(c: Context<AppEnv>, deps: Deps, def: DomainDef, id: number) {
  const columns = parseColumnList(c.req.query('columns'));
  const resolveAssociationNames = parseBoolParam(c.req.query('resolveAssociationNames'), 'resolveAssociationNames', false);
  const active = activeCondition(def);
  const exists = deps.db
    .prepare(`SELECT 1 FROM ${q(def.table)} t WHERE t.${q(def.key)} = ?${active.map((a) => ' AND ' + a.sql).join('')}`)
    .get(id);
  if (!exists) throw new ApiError(404, 'RecordNotFound', `${def.name} with ID ${id} was not found.`);
  const { rows } = selectRecords(requestContext(c, deps), def, {
    columns,
    resolveAssociationNames,
    where: [{ sql: `t.${q(def.key)} = ?`, params: [id] }],
  });
  // REQ: REC-001
  // REQ: REC-002
  return { Record: rows[0] ?? {}, Domain: def.name, Id: id };
}

export function register(app: Hono<AppEnv>, deps: Deps): void {
  app.get('/api/:domain/:id', (c) => {
    const def = requireDomain(deps, c.req.param('domain'));
    validateQuery(c, 'get', def.name === 'File' ? '/api/File/{id}' : '/api/{domain}/{id}');
    // REQ: AUTH-012
    requirePermission(c.get('user'), def.name, 'View');
    // REQ: GEN-004
    const id = parseId(c.req.param('id'));
    // REQ: REC-003
    return c.json(getOne(c, deps, def, id));
  });
}
