// The interface's operations (spec 4), on the in-memory store.
import { setTimeout } from 'node:timers';
import {
  ApiError, CUSTOM_DOMAIN, DOMAINS, LINKABLE, contactTypes, parseColumns, project, readColumn,
} from './domains.mjs';
import { parseBool, parseInt0, runQuery } from './query.mjs';

/** @typedef {import('./domains.mjs').DomainDef} DomainDef */
/** @typedef {{ status: number, body?: unknown, headers?: Record<string,string> }} Reply */

const NOT_MODIFIABLE = new Set(['B', 'R', '0']);

/**
 * @param {string} name
 * @returns {DomainDef}
 */
function domainOr404(name) {
  const def = DOMAINS.get(name);
  if (!def) throw new ApiError(404, 'unknown-domain', `There is no domain named "${name}" (names are case-sensitive).`);
  return def;
}

/**
 * @param {any} ctx
 * @param {string} domain
 */
function requireAccess(ctx, domain) {
  if (!ctx.store.canAccess(ctx.user, domain)) {
    throw new ApiError(403, 'forbidden', `You hold no permission on the ${domain} domain.`);
  }
}

/** @param {string} raw */
export function parseId(raw, what = 'id') {
  if (!/^\d{1,15}$/.test(raw)) throw new ApiError(400, 'malformed-id', `${what} must be a positive whole number.`);
  return Number(raw);
}

/** GET /api/Domains: a bare array, sorted by Name. */
export function listDomains(ctx) {
  const out = [];
  for (const def of DOMAINS.values()) {
    if (!ctx.store.canAccess(ctx.user, def.name)) continue;
    out.push({ DomainID: def.id, Name: def.name, DisplayNameSingular: def.singular, DisplayNamePlural: def.plural });
  }
  out.sort((a, b) => (a.Name < b.Name ? -1 : a.Name > b.Name ? 1 : 0));
  return { status: 200, body: out };
}

/** GET /api/{domain}/{id} */
export function readRecord(ctx, domain, rawId, q) {
  const def = domainOr404(domain);
  requireAccess(ctx, domain);
  const id = parseId(rawId);
  const cols = parseColumns(def, q.get('columns'), { single: true });
  ctx.resolve = parseBool(q.get('resolveAssociationNames'), 'resolveAssociationNames', false);
  const rec = ctx.store.get(domain, id);
  if (!rec) throw new ApiError(404, 'record-not-found', `${domain} ${id} does not exist.`);
  return {
    status: 200,
    body: {
      Record: project(def, rec, cols, ctx),
      Domain: domain,
      Id: id,
      _links: { self: { href: `/api/${encodeURIComponent(domain)}/${id}` } },
    },
  };
}

/** GET /api/{domain}/Query (File included) */
export function queryRecords(ctx, domain, q) {
  const def = domainOr404(domain);
  requireAccess(ctx, domain);
  const { list, total } = runQuery(def, q, ctx, { noContents: domain === 'File' });
  /** @type {Reply} */
  const r = { status: 200, body: { List: list } };
  if (total !== null) r.headers = { 'X-Total-Count': String(total) };
  return r;
}

/** GET /api/{domain}/{id}/Files */
export function attachedFiles(ctx, domain, rawId, q) {
  domainOr404(domain);
  requireAccess(ctx, domain);
  requireAccess(ctx, 'File');
  const id = parseId(rawId);
  if (!ctx.store.get(domain, id)) throw new ApiError(404, 'record-not-found', `${domain} ${id} does not exist.`);
  const fileIds = new Set();
  for (const l of ctx.store.links.values()) {
    if (l.parentDomain === domain && l.parentId === id && l.childDomain === 'File') fileIds.add(l.childId);
  }
  const records = [...fileIds].map((fid) => ctx.store.get('File', fid)).filter(Boolean);
  const fileDef = /** @type {DomainDef} */ (DOMAINS.get('File'));
  const cols = parseColumns(fileDef, q.get('columns'), {});
  const take = Math.min(parseInt0(q.get('take'), 'take', 30), 100);
  const offset = parseInt0(q.get('offset'), 'offset', 0);
  ctx.resolve = false;
  // newest upload first
  records.sort((a, b) => (a.EntryDate < b.EntryDate ? 1 : a.EntryDate > b.EntryDate ? -1 : b.FileID - a.FileID));
  const list = records.slice(offset, offset + take).map((r) => project(fileDef, r, cols, ctx));
  return { status: 200, body: { List: list } };
}

// ------------------------------------------------------------------ links

/**
 * @param {any} obj
 * @param {string} path dotted
 */
function dig(obj, path) {
  let cur = obj;
  for (const k of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, k)) return undefined;
    cur = cur[k];
  }
  return cur;
}

/**
 * Resolve one side of a link: by primary key (wins) or by match field and key.
 * @param {any} ctx
 * @param {string} side 'parent' | 'child'
 * @param {{ domain: unknown, id: unknown, field: unknown, key: unknown }} spec
 * @param {boolean} mustExist
 */
function resolveSide(ctx, side, spec, mustExist = true) {
  if (typeof spec.domain !== 'string' || spec.domain === '') throw new ApiError(422, 'invalid-link', `The ${side} domain is missing.`);
  const def = domainOr404(spec.domain);
  const hasId = spec.id !== undefined && spec.id !== null && spec.id !== '';
  const idOf = () => {
    const n = typeof spec.id === 'number' ? spec.id : /^\d+$/.test(String(spec.id)) ? Number(spec.id) : NaN;
    if (!Number.isInteger(n) || n <= 0) throw new ApiError(422, 'invalid-link', `The ${side} record ID must be a positive integer.`);
    return n;
  };
  if (hasId) {
    const id = idOf();
    if (mustExist && !ctx.store.get(def.name, id)) throw new ApiError(404, 'record-not-found', `${def.name} ${id} (${side}) does not exist.`);
    return { def, id };
  }
  if (spec.field === undefined || spec.field === null || spec.field === '') {
    throw new ApiError(422, 'invalid-link', `The ${side} is named neither by record ID nor by match field and key.`);
  }
  const field = String(spec.field);
  const f = def.fields.get(field);
  if (!f) throw new ApiError(422, 'invalid-match-field', `${def.name} has no field "${field}".`);
  if (!['text', 'number', 'key'].includes(f.type)) {
    throw new ApiError(422, 'invalid-match-field', `${def.name}.${field} is neither a text nor a numeric field: it cannot be matched.`);
  }
  if (spec.key === undefined || spec.key === null || spec.key === '') throw new ApiError(422, 'invalid-link', `The ${side} key is missing.`);
  const key = spec.key;
  const found = [];
  for (const rec of ctx.store.records.get(def.name).values()) {
    const v = rec[field];
    if (v === null || v === undefined) continue;
    if (f.type === 'text' ? v === String(key) : Number(key) === v) found.push(rec);
  }
  if (found.length === 0) throw new ApiError(404, 'record-not-found', `No ${def.name} has ${field} = ${String(key)} (${side}).`);
  if (found.length > 1) throw new ApiError(409, 'ambiguous-key', `${found.length} ${def.plural} have ${field} = ${String(key)} (${side}).`);
  return { def, id: found[0][def.key] };
}

/** Body names of this peer (README): { parent: {domain, recordId, matchField, key}, child: {...}, relationship, newRelationship }. */
function sideFromBody(body, side) {
  const Pascal = side === 'parent' ? 'Parent' : 'Child';
  const pick = (nested, flat) => {
    const v = dig(body, `${side}.${nested}`);
    return v !== undefined ? v : dig(body, flat);
  };
  return {
    domain: pick('domain', `${Pascal}Domain`),
    id: pick('recordId', `${Pascal}RecordID`),
    field: pick('matchField', `${Pascal}RecordMatchField`),
    key: pick('key', `${Pascal}RecordKey`),
  };
}

function linkPermissionCheck(ctx, parentDomain, childDomain, op) {
  if (!ctx.store.hasPerm(ctx.user, childDomain, 'View')) {
    throw new ApiError(403, 'forbidden', `Linking needs View permission on the child domain ${childDomain}.`);
  }
  const need = childDomain === 'Contact'
    ? (op === 'upsert' ? 'AttachContacts' : 'DetachContacts')
    : childDomain === 'File' ? (op === 'upsert' ? 'AttachFiles' : 'ModifyFiles') : 'Edit';
  if (!ctx.store.hasPerm(ctx.user, parentDomain, need)) {
    throw new ApiError(403, 'forbidden', `This needs the ${need} permission on the parent domain ${parentDomain}.`);
  }
}

function checkRelationship(childDomain, rel, what) {
  if (rel === undefined || rel === null || rel === '') return null;
  if (childDomain !== 'Contact') throw new ApiError(422, 'relationship-not-applicable', `A ${what} applies only to Contact children.`);
  if (typeof rel !== 'string' || !contactTypes.has(rel)) {
    throw new ApiError(422, 'unknown-relationship', `"${String(rel)}" is not a Contact Type code (${[...contactTypes.keys()].join(', ')}).`);
  }
  return rel;
}

function linkPrelude(ctx, body, op) {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'malformed-body', 'The body must be a JSON object.');
  const p = sideFromBody(body, 'parent');
  const c = sideFromBody(body, 'child');
  if (typeof p.domain !== 'string' || p.domain === '') throw new ApiError(422, 'invalid-link', 'The parent domain is missing.');
  if (typeof c.domain !== 'string' || c.domain === '') throw new ApiError(422, 'invalid-link', 'The child domain is missing.');
  domainOr404(p.domain);
  domainOr404(c.domain);
  if (!LINKABLE.has(c.domain)) throw new ApiError(422, 'not-linkable', `${c.domain} cannot be a link child: the linkable domains are Contact and File.`);
  linkPermissionCheck(ctx, p.domain, c.domain, op);
  const rel = checkRelationship(c.domain, dig(body, 'relationship') ?? dig(body, 'Relationship'), 'relationship');
  const parent = resolveSide(ctx, 'parent', p);
  const child = resolveSide(ctx, 'child', c);
  return { parent, child, rel };
}

function linkView(l) {
  return { linkKey: l.id, parentDomain: l.parentDomain, parentId: l.parentId, childDomain: l.childDomain, childId: l.childId, contactType: l.relationship };
}

/** POST /api/Link/Upsert */
export function linkUpsert(ctx, body) {
  const { parent, child, rel } = linkPrelude(ctx, body, 'upsert');
  const newRel = checkRelationship(child.def.name, dig(body, 'newRelationship') ?? dig(body, 'NewRelationship'), 'new relationship');
  const same = (l, r) => l.parentDomain === parent.def.name && l.parentId === parent.id && l.childDomain === child.def.name && l.childId === child.id && l.relationship === r;
  const existing = [...ctx.store.links.values()].find((l) => same(l, rel));
  if (existing) {
    if (newRel !== null && newRel !== rel) {
      const clash = [...ctx.store.links.values()].find((l) => same(l, newRel));
      if (clash) {
        ctx.store.links.delete(existing.id);
        return { status: 200, body: { ...linkView(clash), created: false } };
      }
      existing.relationship = newRel;
    }
    return { status: 200, body: { ...linkView(existing), created: false } };
  }
  const finalRel = newRel ?? rel;
  const again = [...ctx.store.links.values()].find((l) => same(l, finalRel));
  if (again) return { status: 200, body: { ...linkView(again), created: false } };
  const id = ctx.store.nextId('link');
  const l = { id, parentDomain: parent.def.name, parentId: parent.id, childDomain: child.def.name, childId: child.id, relationship: finalRel, tag: null };
  ctx.store.links.set(id, l);
  return { status: 201, body: { ...linkView(l), created: true } };
}

/** POST /api/Link/Remove */
export function linkRemove(ctx, body) {
  const { parent, child, rel } = linkPrelude(ctx, body, 'remove');
  let removed = 0;
  for (const [id, l] of ctx.store.links) {
    if (l.parentDomain === parent.def.name && l.parentId === parent.id && l.childDomain === child.def.name && l.childId === child.id && (rel === null || l.relationship === rel)) {
      ctx.store.links.delete(id);
      removed++;
    }
  }
  if (removed === 0) throw new ApiError(404, 'link-not-found', 'No such link exists: nothing was removed.');
  return { status: 200, body: { removedLinks: removed } };
}

const LINK_COLUMNS = new Map([
  ['ParentDomainID', (l) => DOMAINS.get(l.parentDomain)?.id ?? null],
  ['ParentID', (l) => l.parentId],
  ['ChildDomainID', (l) => DOMAINS.get(l.childDomain)?.id ?? null],
  ['ChildID', (l) => l.childId],
  ['LinkKey', (l) => l.id],
  ['ContactType', (l) => l.relationship],
]);

/** GET /api/Link/Query */
export function linkQuery(ctx, q) {
  const parentDomain = q.get('parentDomain');
  const childDomain = q.get('childDomain');
  if (!parentDomain && !childDomain) throw new ApiError(422, 'invalid-link-query', 'Give parentDomain, childDomain or both.');
  const cols = [];
  const rawCols = q.get('columns');
  if (rawCols === null || rawCols.trim() === '') {
    for (const name of LINK_COLUMNS.keys()) cols.push({ name, key: name });
  } else {
    for (const part of rawCols.split(',')) {
      const m = /^\s*(\S+)(?:\s+as\s+(\S+))?\s*$/i.exec(part);
      if (!m || !LINK_COLUMNS.has(m[1])) throw new ApiError(422, 'unknown-column', `A link has no column "${part.trim()}".`);
      cols.push({ name: m[1], key: m[2] ?? m[1] });
    }
  }
  /** @type {Array<(l: any) => boolean>} */
  const preds = [];
  if (parentDomain) {
    domainOr404(parentDomain);
    requireAccess(ctx, parentDomain);
    preds.push((l) => l.parentDomain === parentDomain);
    const pid = q.get('parentId') ?? q.get('ParentRecordID');
    const pfield = q.get('parentMatchField') ?? q.get('ParentRecordMatchField');
    const pkey = q.get('parentKey') ?? q.get('ParentRecordKey');
    if (pid || pfield) {
      const { id } = resolveSide(ctx, 'parent', { domain: parentDomain, id: pid || undefined, field: pfield, key: pkey });
      preds.push((l) => l.parentId === id);
    }
  } else if (q.get('parentId') || q.get('parentMatchField')) {
    throw new ApiError(422, 'invalid-link-query', 'A parent record needs parentDomain.');
  }
  if (childDomain) {
    domainOr404(childDomain);
    if (!ctx.store.hasPerm(ctx.user, childDomain, 'View')) {
      throw new ApiError(403, 'forbidden', `Links to ${childDomain} children need View permission on ${childDomain}.`);
    }
    preds.push((l) => l.childDomain === childDomain);
    const cid = q.get('childRecordID');
    const cfield = q.get('childMatchField');
    const ckey = q.get('childKey');
    if (cid || cfield) {
      const { id } = resolveSide(ctx, 'child', { domain: childDomain, id: cid || undefined, field: cfield, key: ckey }, false);
      preds.push((l) => l.childId === id);
    }
  } else if (q.get('childRecordID') || q.get('childMatchField')) {
    throw new ApiError(422, 'invalid-link-query', 'A child record needs childDomain.');
  }
  const rel = q.get('contactType');
  if (rel) preds.push((l) => l.relationship === rel);
  // spec 5.4: link operations check the parent domain's permissions and View on the child domain
  preds.push((l) => ctx.store.canAccess(ctx.user, l.parentDomain) && ctx.store.hasPerm(ctx.user, l.childDomain, 'View'));
  const rows = [...ctx.store.links.values()].filter((l) => preds.every((p) => p(l)));
  rows.sort((a, b) => b.id - a.id); // newest link first
  const list = rows.map((l) => {
    /** @type {Record<string, unknown>} */
    const o = {};
    for (const c of cols) o[c.key] = /** @type {(l: any) => unknown} */ (LINK_COLUMNS.get(c.name))(l);
    return o;
  });
  return { status: 200, body: { List: list } };
}

// ------------------------------------------------------------------ proposals

function proposalOr404(ctx, rawId) {
  const id = parseId(rawId, 'proposalId');
  const p = ctx.store.get('Proposal', id);
  if (!p) throw new ApiError(404, 'proposal-not-found', `Proposal ${id} does not exist.`);
  return p;
}

export function isModifiable(p) {
  return !NOT_MODIFIABLE.has(p.StatusCode) && !p.ProposalSetBound && !p.PendingExpiryChange;
}

function bindView(p) {
  const b = p._bind;
  if (b.status === 'Bound') {
    return {
      ProposalID: p.ProposalID, Status: 'Bound', ErrorMessage: null, PolicyID: b.policyId, MemberID: b.memberId,
      PolicyNumber: b.policyNumber, MemberName: b.memberName, BoundDateUTC: b.boundAt,
    };
  }
  return {
    ProposalID: p.ProposalID, Status: b.status, ErrorMessage: b.status === 'Error' ? b.error : null,
    PolicyID: null, MemberID: null, PolicyNumber: null, MemberName: null, BoundDateUTC: null,
  };
}

/** GET .../BindStatus */
export function bindStatus(ctx, rawId) {
  requireAccess(ctx, 'Proposal');
  const p = proposalOr404(ctx, rawId);
  return { status: 200, body: bindView(p) };
}

function requireProposalEdit(ctx) {
  if (!ctx.store.hasPerm(ctx.user, 'Proposal', 'Edit')) throw new ApiError(403, 'forbidden', 'This needs the Edit permission on Proposal.');
}

/** Why a proposal cannot be bound now, or null. */
function bindObstacle(ctx, p) {
  if (p.MemberID === null || !ctx.store.get('Member', p.MemberID)) return 'The proposal has no member (MemberID is null): call CreateMember before binding.';
  if (p.RatingStatus !== 'C') return 'Rating must be completed before binding.';
  if (!isModifiable(p)) return `Proposal ${p.ProposalID} cannot be bound in its current state.`;
  return null;
}

function completeBind(ctx, p) {
  const member = ctx.store.get('Member', p.MemberID);
  const policy = ctx.store.insert('Policy', {
    PolicyNumber: '', InsuredName: member.MemberName, EffectiveDate: p.EffectiveDate, MemberID: p.MemberID, ProposalID: p.ProposalID,
  }, p._tag);
  policy.PolicyNumber = `POL-${new Date().getUTCFullYear()}-${policy.PolicyID}`;
  p.StatusCode = 'B';
  p._bind = {
    status: 'Bound', policyId: policy.PolicyID, memberId: p.MemberID, policyNumber: policy.PolicyNumber,
    memberName: member.MemberName, boundAt: new Date().toISOString(),
  };
}

/** POST .../QueueBindQuote: 202, binding finishes 1 to 3 s later. */
export function queueBind(ctx, rawId) {
  requireProposalEdit(ctx);
  const p = proposalOr404(ctx, rawId);
  if (p._bind.status === 'Bound') throw new ApiError(409, 'already-bound', `Proposal ${p.ProposalID} is already bound.`);
  if (p._timer) throw new ApiError(409, 'already-queued', `Binding of proposal ${p.ProposalID} is already queued.`);
  p._bind = { status: 'NotBound' };
  const delay = 1000 + Math.floor(Math.random() * 2000);
  p._timer = setTimeout(() => {
    p._timer = null;
    if (ctx.store.get('Proposal', p.ProposalID) !== p) return;
    const why = bindObstacle(ctx, p);
    if (why) p._bind = { status: 'Error', error: why };
    else completeBind(ctx, p);
  }, delay);
  p._timer.unref?.();
  return { status: 202, body: { proposalId: p.ProposalID, queued: true, statusPath: `/api/Quotes/Proposals/${p.ProposalID}/BindStatus` } };
}

/** POST .../BindQuote: synchronous. */
export function bindNow(ctx, rawId) {
  requireProposalEdit(ctx);
  const p = proposalOr404(ctx, rawId);
  if (p._bind.status === 'Bound') throw new ApiError(409, 'already-bound', `Proposal ${p.ProposalID} is already bound.`);
  if (p._timer) throw new ApiError(409, 'already-queued', `Binding of proposal ${p.ProposalID} is queued.`);
  const why = bindObstacle(ctx, p);
  if (why) throw new ApiError(409, 'cannot-bind', why);
  completeBind(ctx, p);
  return { status: 200, body: bindView(p) };
}

/** POST .../CreateMember */
export function createMember(ctx, rawId, body) {
  requireProposalEdit(ctx);
  const p = proposalOr404(ctx, rawId);
  if (p.MemberID !== null) {
    return { status: 500, body: `MemberID ${p.MemberID} is already assigned to the proposal record ${p.ProposalID}.` };
  }
  if (body !== undefined && body !== null && !(typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0)) {
    return { status: 200, body: { IsSuccessful: false, RecordID: 0, Message: 'CreateMember takes no body: the member is built from the proposal applicant data only.' } };
  }
  const name = typeof p.ApplicantName === 'string' ? p.ApplicantName.trim() : '';
  if (name === '' || p._applicantValid === false) {
    return { status: 200, body: { IsSuccessful: false, RecordID: 0, Message: 'Applicant data is not valid for a member: the applicant name is required.' } };
  }
  const m = ctx.store.insert('Member', { MemberName: p.ApplicantName, MemberNumber: '', JoinedOn: new Date().toISOString().slice(0, 10) }, p._tag);
  m.MemberNumber = `MBR-${m.MemberID}`;
  p.MemberID = m.MemberID;
  return { status: 200, body: { IsSuccessful: true, RecordID: m.MemberID, Message: null } };
}

// ------------------------------------------------------------------ schedules

const SCHEDULE_DOMAINS = new Set(['ProposalLocation', 'ProposalVehicle']);
const REQUIRED = new Map([['ProposalLocation', ['LocationName']], ['ProposalVehicle', []]]);

function scheduleDef(domain) {
  if (!SCHEDULE_DOMAINS.has(domain)) {
    throw new ApiError(422, 'invalid-schedule-domain', `${domain} is not a schedule domain of proposals (${[...SCHEDULE_DOMAINS].join(', ')}).`);
  }
  return /** @type {DomainDef} */ (DOMAINS.get(domain));
}

function result(ok, recordId, order, message) {
  return { IsSuccessful: ok, RecordID: recordId, OrderNumber: order, Message: message, Warnings: null };
}

/** Check Fields of an insert or update; returns an error text or null. */
function checkFields(def, fieldsObj, isInsert) {
  if (fieldsObj === null || typeof fieldsObj !== 'object' || Array.isArray(fieldsObj)) return 'Fields must be an object of field names to values.';
  for (const [k, v] of Object.entries(fieldsObj)) {
    const f = def.fields.get(k);
    if (!f || f.type === 'key' || k === 'ProposalID' || k === 'IsDeleted') return `${k} is not a field that can be written on ${def.name}.`;
    if (v !== null && f.type === 'text' && typeof v !== 'string') return `${k} must be text.`;
    if (v !== null && f.type === 'number' && typeof v !== 'number') return `${k} must be a number.`;
  }
  for (const req of REQUIRED.get(def.name) ?? []) {
    const present = Object.hasOwn(fieldsObj, req);
    const v = present ? fieldsObj[req] : undefined;
    if ((isInsert && !present) || (present && (v === null || (typeof v === 'string' && v.trim() === '')))) return `${req} is required.`;
  }
  return null;
}

/**
 * Apply one delete. Returns an undo function or throws a message string.
 */
function applyDelete(ctx, p, def, rec) {
  if (p.ProposalType === 'Endorsement') {
    rec.IsDeleted = true;
    const entry = { proposalId: p.ProposalID, domain: def.name, recordId: rec[def.key], at: new Date().toISOString(), kind: 'ScheduleDeleted' };
    ctx.store.policyChanges.push(entry);
    return () => {
      rec.IsDeleted = false;
      ctx.store.policyChanges.splice(ctx.store.policyChanges.indexOf(entry), 1);
    };
  }
  ctx.store.records.get(def.name).delete(rec[def.key]);
  const ev = { event: 'DataEntry.ScheduleDeleted', proposalId: p.ProposalID, domain: def.name, recordId: rec[def.key] };
  ctx.store.events.push(ev);
  return () => {
    ctx.store.records.get(def.name).set(rec[def.key], rec);
    ctx.store.events.splice(ctx.store.events.indexOf(ev), 1);
  };
}

function ownRecord(ctx, p, def, id) {
  const rec = typeof id === 'number' ? ctx.store.get(def.name, id) : undefined;
  if (!rec || rec.ProposalID !== p.ProposalID) return null;
  return rec;
}

/** POST .../Schedules/{domain}/UpsertMulti */
export function upsertMulti(ctx, rawId, domain, q, body) {
  requireProposalEdit(ctx);
  const p = proposalOr404(ctx, rawId);
  const def = scheduleDef(domain);
  const atomic = parseBool(q.get('isAtomic'), 'isAtomic', false);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new ApiError(400, 'malformed-body', 'The body must be an object with Inserts, Updates and Deletes.');
  const arr = (k) => {
    const v = Object.hasOwn(body, k) ? body[k] : [];
    if (v === null) return [];
    if (!Array.isArray(v)) throw new ApiError(422, 'invalid-batch', `${k} must be an array.`);
    return v;
  };
  const inserts = arr('Inserts');
  const updates = arr('Updates');
  const deletes = arr('Deletes');
  if (!isModifiable(p)) throw new ApiError(409, 'proposal-not-modifiable', `Proposal ${p.ProposalID} cannot be modified.`);
  /** @type {Array<() => void>} */
  const undo = [];
  const out = { Inserts: [], Updates: [], Deletes: [] };
  let failed = false;
  inserts.forEach((item, i) => {
    const fieldsObj = item && typeof item === 'object' ? item.Fields : undefined;
    const err = checkFields(def, fieldsObj, true);
    if (err) { failed = true; out.Inserts.push(result(false, 0, i, err)); return; }
    const rec = ctx.store.insert(def.name, { ...fieldsObj, ProposalID: p.ProposalID, IsDeleted: false }, p._tag);
    const rid = rec[def.key];
    undo.push(() => ctx.store.records.get(def.name).delete(rid));
    out.Inserts.push(result(true, rid, i, `Schedule record ${rid} was inserted on proposal ${p.ProposalID}.`));
  });
  updates.forEach((item, i) => {
    const id = item && typeof item === 'object' ? item.ID : undefined;
    const rid = typeof id === 'number' ? id : 0;
    const rec = ownRecord(ctx, p, def, id);
    if (!rec || rec.IsDeleted) { failed = true; out.Updates.push(result(false, rid, i, `${def.name} ${String(id)} is not a schedule record of proposal ${p.ProposalID}.`)); return; }
    const err = checkFields(def, item.Fields, false);
    if (err) { failed = true; out.Updates.push(result(false, rid, i, err)); return; }
    const before = { ...rec };
    Object.assign(rec, item.Fields);
    undo.push(() => Object.assign(rec, before));
    out.Updates.push(result(true, rid, i, `Schedule record ${rid} was updated.`));
  });
  deletes.forEach((item, i) => {
    const id = item && typeof item === 'object' ? item.ID : undefined;
    const rec = ownRecord(ctx, p, def, id);
    if (!rec || rec.IsDeleted) { failed = true; out.Deletes.push(result(false, 0, i, `${def.name} ${String(id)} is not a schedule record of proposal ${p.ProposalID}.`)); return; }
    undo.push(applyDelete(ctx, p, def, rec));
    out.Deletes.push(result(true, rec[def.key], i, `Schedule record ${rec[def.key]} was deleted.`));
  });
  if (atomic && failed) {
    for (const u of undo.reverse()) u();
    const only = (a) => a.filter((r) => !r.IsSuccessful);
    return { status: 422, body: { Inserts: only(out.Inserts), Updates: only(out.Updates), Deletes: only(out.Deletes) } };
  }
  return { status: 200, body: out };
}

/** DELETE .../Schedules/{domain}/{scheduleId} */
export function deleteSchedule(ctx, rawId, domain, rawSid) {
  requireProposalEdit(ctx);
  const p = proposalOr404(ctx, rawId);
  const def = scheduleDef(domain);
  const sid = parseId(rawSid, 'scheduleId');
  if (!isModifiable(p)) return { status: 409, body: result(false, 0, null, `Proposal with ID ${p.ProposalID} cannot be modified.`) };
  const rec = ownRecord(ctx, p, def, sid);
  if (!rec) return { status: 404, body: result(false, 0, null, `${def.name} ${sid} is not a schedule record of proposal ${p.ProposalID}.`) };
  if (rec.IsDeleted) return { status: 409, body: result(false, 0, null, `${def.name} ${sid} is already deleted.`) };
  applyDelete(ctx, p, def, rec);
  const how = p.ProposalType === 'Endorsement' ? 'deleted (it can be reinstated)' : 'deleted permanently';
  return { status: 200, body: result(true, sid, null, `Schedule record ${sid} was ${how}.`) };
}

/** POST .../Schedules/{domain}/{scheduleId}/Reinstate */
export function reinstate(ctx, rawId, domain, rawSid) {
  requireProposalEdit(ctx);
  const p = proposalOr404(ctx, rawId);
  const def = scheduleDef(domain);
  const sid = parseId(rawSid, 'scheduleId');
  if (p.ProposalType !== 'Endorsement') throw new ApiError(409, 'not-reinstatable', `Only schedule records of Endorsement proposals can be reinstated; proposal ${p.ProposalID} is a ${p.ProposalType}.`);
  const rec = ownRecord(ctx, p, def, sid);
  if (!rec) throw new ApiError(404, 'record-not-found', `${def.name} ${sid} is not a schedule record of proposal ${p.ProposalID}.`);
  if (!rec.IsDeleted) throw new ApiError(409, 'not-deleted', `${def.name} ${sid} is not deleted.`);
  rec.IsDeleted = false;
  return { status: 200, body: { reinstated: true, recordId: sid, proposalId: p.ProposalID } };
}

export { CUSTOM_DOMAIN, readColumn };
