// Links (spec 2.3, 4.4, 5; architecture section 2): GET /api/Link/Query, POST /api/Link/Upsert,
// POST /api/Link/Remove.
import type { Context, Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { type DomainDef, LINKABLE_CHILD_DOMAINS, q } from '../dictionary.js';
import { findCode } from '../db.js';
import { ApiError } from '../errors.js';
import { can, requirePermission } from '../auth.js';
import { type Permission, type User } from '../permissions.js';
import { parseColumnList } from '../columns/column-list.js';
import { selectRecords } from '../columns/select-records.js';
import type { SqlFragment } from '../filter-parser.js';
import { parseIntParam, readJsonBody, validateBody, validateQuery } from '../validation.js';
import { requestContext, requireDomain } from './records.js';
import type { components } from '../../../spec/generated/openapi.js';
import { linkPermission as parentPermission } from '../../../spec/generated/facts.js';
import { queryParam } from '../query-params.js';

type LinkUpsertResult = components['schemas']['LinkUpsertResult'];
type LinkRemoveResult = components['schemas']['LinkRemoveResult'];

/** The links table seen through the column language (LinkID and ContactTypeID are the reference's). */
// REQ: LINK-001
// REQ: LINK-007
const LINK_DEF: DomainDef = {
  id: 0,
  name: 'Link',
  singular: 'Link',
  plural: 'Links',
  table: 'links',
  key: 'LinkID',
  fields: [
    { name: 'ParentDomainID', type: 'integer' },
    { name: 'ParentID', type: 'integer' },
    { name: 'ChildDomainID', type: 'integer' },
    { name: 'ChildID', type: 'integer' },
    { name: 'ContactTypeID', type: 'integer' },
  ],
};

const CONTACT_TYPE_LIST = 'ContactType';

/** Permission on the parent domain needed to upsert / remove a link with this child domain (spec 5). */
// REQ: AUTH-006
// REQ: AUTH-007
// REQ: AUTH-008
// (the table is the spec's: openapi.yaml `x-parent-permission`, generated)
function linkPermission(childDomain: string, action: 'upsert' | 'remove'): Permission {
  return parentPermission(action === 'upsert' ? 'upsertLink' : 'removeLink', childDomain);
}

function malformed(detail: string): never {
  throw new ApiError(400, 'MalformedRequest', detail);
}

/** A match field must be a stored text or numeric field (or the key). */
// REQ: LINK-009
function matchColumn(def: DomainDef, field: string): { column: string; numeric: boolean } {
  if (field === def.key) return { column: def.key, numeric: true };
  const f = def.fields.find((x) => x.name === field);
  if (!f) malformed(`Domain '${def.name}' has no field '${field}' to match on.`);
  if (f.computed || !(f.type === 'text' || f.type === 'number' || f.type === 'integer')) {
    malformed(
      `Field '${field}' of '${def.name}' cannot be used as a match field: only text or numeric fields are accepted.`,
    );
  }
  return { column: f.name, numeric: f.type !== 'text' };
}

interface SideSpec {
  def: DomainDef;
  id?: number;
  match?: { column: string; numeric: boolean; key: unknown; field: string };
}

/** Read one side's identification (by ID, or match field + key; the ID wins). */
// REQ: LINK-020 — the same identification serves Link/Query (resolveSide there).
// REQ: LINK-008
// REQ: LINK-010
// REQ: LINK-018
function sideSpec(def: DomainDef, side: string, id: unknown, field: unknown, key: unknown): SideSpec {
  if (id !== undefined && id !== null) {
    if (typeof id !== 'number' || !Number.isInteger(id)) malformed(`'${side}RecordID' must be an integer.`);
    return { def, id };
  }
  if (field === undefined || field === null || key === undefined || key === null) {
    malformed(
      `Identify the ${side.toLowerCase()} by '${side}RecordID', or by '${side}RecordMatchField' with '${side}RecordKey'.`,
    );
  }
  if (typeof field !== 'string') malformed(`'${side}RecordMatchField' must be a string.`);
  if (typeof key !== 'string' && typeof key !== 'number') malformed(`'${side}RecordKey' must be a string or a number.`);
  const m = matchColumn(def, field);
  return { def, match: { ...m, key, field } };
}

/** The record ID of a side; 404 RecordNotFound when nothing matches, 409 when a key is ambiguous. */
function resolveSide(deps: Deps, s: SideSpec): number {
  const { def } = s;
  if (s.id !== undefined) {
    const row = deps.db.prepare(`SELECT 1 FROM ${q(def.table)} WHERE ${q(def.key)} = ?`).get(s.id);
    if (!row) throw new ApiError(404, 'RecordNotFound', `${def.name} with ID ${s.id} was not found.`);
    return s.id;
  }
  const m = s.match!;
  let value: unknown;
  if (m.numeric) {
    value = typeof m.key === 'number' ? m.key : String(m.key).trim() === '' ? NaN : Number(m.key);
    if (!Number.isFinite(value as number)) {
      throw new ApiError(404, 'RecordNotFound', `No ${def.name} has ${m.field} = '${String(m.key)}'.`);
    }
  } else value = String(m.key);
  const rows = deps.db
    .prepare(`SELECT ${q(def.key)} AS id FROM ${q(def.table)} WHERE ${q(m.column)} = ? ORDER BY ${q(def.key)} LIMIT 2`)
    .all(value) as Array<{ id: number }>;
  if (rows.length === 0)
    throw new ApiError(404, 'RecordNotFound', `No ${def.name} has ${m.field} = '${String(m.key)}'.`);
  if (rows.length > 1)
    throw new ApiError(
      409,
      'Conflict',
      `More than one ${def.name} has ${m.field} = '${String(m.key)}'; use the record ID.`,
    );
  return rows[0]!.id;
}

/** A relationship (Contact Type code or description) → CodeID; unknown → 400. */
// REQ: LINK-019
function relationshipId(deps: Deps, value: unknown, name: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === '') return null;
  if (typeof value !== 'string') malformed(`'${name}' must be a Contact Type code or description.`);
  const id = findCode(deps.db, CONTACT_TYPE_LIST, value);
  if (id === undefined) malformed(`'${value}' is not a Contact Type code or description.`);
  return id;
}

interface LinkRequest {
  parent: SideSpec;
  child: SideSpec;
  body: Record<string, unknown>;
}

/** Common checks of Upsert and Remove, in order: body shape (400), linkable child (400), domains
 * (404), permissions (403), match fields (400). Nothing is written before all pass. */
async function readLinkRequest(
  c: Context<AppEnv, any>,
  deps: Deps,
  path: string,
  action: 'upsert' | 'remove',
): Promise<LinkRequest> {
  const body = await readJsonBody(c);
  validateBody('post', path, body);
  if (!body || typeof body !== 'object' || Array.isArray(body)) malformed('The body must be a JSON object.');
  const b = body as Record<string, unknown>;
  if (typeof b.ParentDomain !== 'string' || typeof b.ChildDomain !== 'string')
    malformed("'ParentDomain' and 'ChildDomain' are required strings.");
  // REQ: LINK-003
  if (!(LINKABLE_CHILD_DOMAINS as readonly string[]).includes(b.ChildDomain)) {
    malformed(`'${b.ChildDomain}' is not a linkable child domain: a link's child must be a Contact or a File.`);
  }
  // REQ: LINK-002
  const parentDef = requireDomain(deps, b.ParentDomain);
  const childDef = requireDomain(deps, b.ChildDomain);
  const user = c.get('user');
  // REQ: AUTH-004
  requirePermission(user, parentDef.name, linkPermission(childDef.name, action));
  // REQ: AUTH-005
  requirePermission(user, childDef.name, 'View');
  const parent = sideSpec(parentDef, 'Parent', b.ParentRecordID, b.ParentRecordMatchField, b.ParentRecordKey);
  const child = sideSpec(childDef, 'Child', b.ChildRecordID, b.ChildRecordMatchField, b.ChildRecordKey);
  return { parent, child, body: b };
}

interface LinkRow {
  LinkID: number;
  ContactTypeID: number | null;
}

function findLink(deps: Deps, pd: number, pid: number, cd: number, cid: number): LinkRow | undefined {
  return deps.db
    .prepare(
      // REQ: LINK-021 — a parent is its domain and ID together.
      'SELECT LinkID, ContactTypeID FROM links WHERE ParentDomainID = ? AND ParentID = ? AND ChildDomainID = ? AND ChildID = ?',
    )
    .get(pd, pid, cd, cid) as LinkRow | undefined;
}

export function register(app: Hono<AppEnv>, deps: Deps): void {
  // REQ: LINK-011
  // REQ: LINK-012
  app.get('/api/Link/Query', (c) => {
    validateQuery(c, 'get', '/api/Link/Query');
    const qp = (n: string) => queryParam(c, n);
    const user: User = c.get('user');
    const parentDomain = qp('parentDomain');
    const childDomain = qp('childDomain');
    if (!parentDomain && !childDomain) malformed("Give at least one of 'parentDomain' and 'childDomain'.");
    const columns = parseColumnList(qp('columns'));
    const where: SqlFragment[] = [];
    for (const [side, domainName] of [
      ['parent', parentDomain],
      ['child', childDomain],
    ] as const) {
      const Side = side === 'parent' ? 'Parent' : 'Child';
      const idRaw = qp(`${side}RecordID`);
      const field = qp(`${side}RecordMatchField`);
      const key = qp(`${side}RecordKey`);
      if (!domainName) {
        if (idRaw !== undefined || field !== undefined || key !== undefined) {
          malformed(`'${side}RecordID', '${side}RecordMatchField' and '${side}RecordKey' need '${side}Domain'.`);
        }
        continue;
      }
      const def = requireDomain(deps, domainName);
      requirePermission(user, def.name, 'View');
      where.push({ sql: `t.${Side}DomainID = ?`, params: [def.id] });
      let id: number | undefined;
      if (idRaw !== undefined) id = parseIntParam(idRaw, `${side}RecordID`);
      else if (field !== undefined || key !== undefined) {
        if (field === undefined || key === undefined)
          malformed(`'${side}RecordMatchField' and '${side}RecordKey' go together.`);
        id = resolveSide(deps, { def, match: { ...matchColumn(def, field), key, field } });
      }
      if (id !== undefined) where.push({ sql: `t.${Side}ID = ?`, params: [id] });
    }
    const rel = relationshipId(deps, qp('relationship'), 'relationship');
    if (rel !== undefined)
      where.push(
        rel === null ? { sql: 't.ContactTypeID IS NULL', params: [] } : { sql: 't.ContactTypeID = ?', params: [rel] },
      );
    // Only links whose both sides the user may view.
    const viewable = deps.dict
      .all()
      .filter((d) => can(user, d.name, 'View'))
      .map((d) => d.id);
    const inList = viewable.length ? viewable.join(', ') : 'NULL';
    where.push({ sql: `t.ParentDomainID IN (${inList}) AND t.ChildDomainID IN (${inList})`, params: [] });
    const { rows } = selectRecords(requestContext(c, deps), LINK_DEF, { columns, where });
    return c.json({ List: rows });
  });

  // REQ: LINK-013
  // REQ: LINK-014
  // REQ: LINK-016
  app.post('/api/Link/Upsert', async (c) => {
    const { parent, child, body } = await readLinkRequest(c, deps, '/api/Link/Upsert', 'upsert');
    const isContact = child.def.name === 'Contact';
    // REQ: LINK-006 — a relationship does not apply to File children: ignored, stored null.
    const rel = isContact ? relationshipId(deps, body.Relationship, 'Relationship') : undefined;
    const newRel = isContact ? relationshipId(deps, body.NewRelationship, 'NewRelationship') : undefined;
    const parentId = resolveSide(deps, parent);
    const childId = resolveSide(deps, child);
    const now = deps.clock().toISOString().slice(0, 23);
    const linkId = deps.db.transaction(() => {
      const existing = findLink(deps, parent.def.id, parentId, child.def.id, childId);
      if (existing) {
        // REQ: LINK-005
        const target = newRel !== undefined ? newRel : rel;
        if (target !== undefined && target !== existing.ContactTypeID) {
          deps.db.prepare('UPDATE links SET ContactTypeID = ? WHERE LinkID = ?').run(target, existing.LinkID);
        }
        return existing.LinkID;
      }
      const contactTypeId = isContact ? (rel ?? newRel ?? null) : null;
      return Number(
        deps.db
          .prepare(
            'INSERT INTO links (ParentDomainID, ParentID, ChildDomainID, ChildID, ContactTypeID, EntryDate) VALUES (?, ?, ?, ?, ?, ?)',
          )
          .run(parent.def.id, parentId, child.def.id, childId, contactTypeId, now).lastInsertRowid,
      );
    })();
    const result: LinkUpsertResult = {
      IsSuccessful: true,
      LinkID: linkId,
      ParentRecordID: parentId,
      ChildRecordID: childId,
      Message: null,
    };
    return c.json(result);
  });

  // REQ: LINK-015
  // REQ: LINK-017
  app.post('/api/Link/Remove', async (c) => {
    const { parent, child, body } = await readLinkRequest(c, deps, '/api/Link/Remove', 'remove');
    const isContact = child.def.name === 'Contact';
    const rel = isContact ? relationshipId(deps, body.Relationship, 'Relationship') : undefined;
    const parentId = resolveSide(deps, parent);
    const childId = resolveSide(deps, child);
    const removed = deps.db.transaction(() => {
      const existing = findLink(deps, parent.def.id, parentId, child.def.id, childId);
      if (!existing) return false;
      if (rel !== undefined && rel !== existing.ContactTypeID) return false;
      deps.db.prepare('DELETE FROM links WHERE LinkID = ?').run(existing.LinkID);
      return true;
    })();
    const result: LinkRemoveResult = removed
      ? { IsSuccessful: true, Message: 'Link removed.' }
      : {
          IsSuccessful: false,
          Message: `No link between ${parent.def.name} ${parentId} and ${child.def.name} ${childId}${rel !== undefined ? ' with that relationship' : ''} was found; nothing was removed.`,
        };
    return c.json(result);
  });
}
