// The rewrite of the control 'link-identified-by-relationship' (link.ts): a service whose Contact
// link is identified by parent, child AND relationship, as the real service's NewRelationship
// suggests (docs/implementation-defined-notes.md). The reference keeps one link per (parent, child);
// over it the proxy keeps the further links, one per other relationship, in its memory:
//   Upsert (parent, contact, r) where the reference's link carries another relationship: a second
//     link with r (kept by the proxy; the reference's stays as it was);
//   Remove (parent, contact, r): the link with r; without a relationship, every link of the pair;
//     when the reference's own link goes while kept ones remain, one of them becomes the reference's.
//   Both send the reference the same request for its own link first, so that it judges the caller's
//   permissions (spec 5) and the records as for any link;
//   Link/Query: every kept link beside the reference's row of its pair, its relationship column
//     set and a LinkID of its own.
// Records are named by primary key here (the tests that upsert one pair with two relationships do);
// a body naming them by match field, and Link/Query with a relationship filter, pass through.
import type { FaultContext, Next } from '../fault.js';
import {
  bodyJson,
  isOk,
  type Json,
  keysOf,
  type LinkBody,
  type ProxyRequest,
  type ProxyResponse,
  withRequestJson,
  withResponseJson,
} from '../exchange.js';
import { operationOf } from '../operations.js';
import { linkBody } from '../catalogue/util.js';
import { CONTACT_TYPES } from '../catalogue/link.js';

/** The reference's ContactTypeID of a relationship code or description (null: none given); undefined when unknown. */
function contactTypeId(rel: unknown): number | null | undefined {
  if (rel === undefined || rel === null || rel === '') return null;
  const i = CONTACT_TYPES.findIndex(([code, desc]) => code === rel || desc === rel);
  return i < 0 ? undefined : i + 1;
}
function contactTypeCode(id: number | null): string | undefined {
  return id === null ? undefined : CONTACT_TYPES[id - 1]?.[0];
}

/** The further links the proxy keeps: "ParentDomain|ParentID|ContactID" → ContactTypeIDs. */
function keptLinks(ctx: FaultContext): Map<string, Set<number | null>> {
  let m = ctx.memory.get('keptLinks') as Map<string, Set<number | null>> | undefined;
  if (!m) ctx.memory.set('keptLinks', (m = new Map()));
  return m;
}

/** A Contact link named by primary keys on both sides; undefined for any other body. */
function contactPair(b: LinkBody | undefined): { key: string; b: LinkBody } | undefined {
  if (!b || b.ChildDomain !== 'Contact' || typeof b.ParentDomain !== 'string') return undefined;
  if (typeof b.ParentRecordID !== 'number' || typeof b.ChildRecordID !== 'number') return undefined;
  return { key: `${b.ParentDomain}|${b.ParentRecordID}|${b.ChildRecordID}`, b };
}

/** The ContactTypeID of the reference's link of the pair (undefined: no link). */
async function referenceRelationship(ctx: FaultContext, b: LinkBody): Promise<number | null | undefined> {
  const q = new URLSearchParams({
    parentDomain: b.ParentDomain!,
    parentRecordID: String(b.ParentRecordID),
    childDomain: 'Contact',
    childRecordID: String(b.ChildRecordID),
    columns: 'ContactTypeID',
  });
  const r = await ctx.call('GET', `/api/Link/Query?${q.toString()}`);
  const row = Array.isArray(r.json?.List) ? r.json.List[0] : undefined;
  return row === undefined ? undefined : ((row.ContactTypeID as number | null) ?? null);
}

/** The request with the reference's own relationship of the pair in place of the one asked: the
 * reference judges it (permissions, records) as the same request and changes nothing. */
function asReferenceLink(req: ProxyRequest, b: LinkBody, stored: number | null): ProxyRequest {
  const { Relationship: _r, ...rest } = b;
  const code = contactTypeCode(stored);
  return withRequestJson(req, { ...rest, ...(code === undefined ? {} : { Relationship: code }) } as Json);
}

const succeeded = (res: ProxyResponse) => isOk(res) && bodyJson(res)?.IsSuccessful !== false;

async function upsert(req: ProxyRequest, ctx: FaultContext, next: Next) {
  const pair = contactPair(linkBody(req));
  const rel = contactTypeId(pair?.b.Relationship);
  if (!pair || rel === undefined || pair.b.NewRelationship !== undefined) return next(req);
  const stored = await referenceRelationship(ctx, pair.b);
  if (stored === undefined || stored === rel) return next(req);
  // the reference's link carries another relationship: this one is a link of its own, made once the
  // reference has accepted the same request for its link (the caller's permissions judged there)
  const res = await next(asReferenceLink(req, pair.b, stored));
  if (!succeeded(res)) return res;
  const kept = keptLinks(ctx);
  kept.set(pair.key, (kept.get(pair.key) ?? new Set()).add(rel));
  const body = bodyJson(res);
  return body && typeof body === 'object' && 'LinkID' in body
    ? withResponseJson(res, { ...body, LinkID: keptLinkId(pair.key, rel) })
    : res;
}

async function remove(req: ProxyRequest, ctx: FaultContext, next: Next) {
  const pair = contactPair(linkBody(req));
  const kept = pair ? keptLinks(ctx).get(pair.key) : undefined;
  if (!pair || !kept?.size) return next(req);
  const named = pair.b.Relationship === undefined ? 'all' : contactTypeId(pair.b.Relationship);
  if (named === undefined) return next(req);
  if (named !== 'all' && kept.has(named)) {
    // a kept link: the reference removes its own link of the pair (the caller's permissions judged
    // there), which is then put back as it was
    const stored = await referenceRelationship(ctx, pair.b);
    if (stored === undefined) return next(req);
    const res = await next(asReferenceLink(req, pair.b, stored));
    if (!succeeded(res)) return res;
    kept.delete(named);
    await upsertAsAdmin(ctx, pair.b, stored);
    return res;
  }
  if (named === 'all') kept.clear();
  const res = await next(req);
  if (!succeeded(res) || kept.size === 0) return res;
  // the reference's link is gone, kept ones remain: one of them takes its place there
  const [first] = kept;
  kept.delete(first!);
  await upsertAsAdmin(ctx, pair.b, first!);
  return res;
}

/** Link/Upsert of the pair with a relationship, as the administrator, straight to the reference. */
async function upsertAsAdmin(ctx: FaultContext, b: LinkBody, rel: number | null): Promise<void> {
  const code = contactTypeCode(rel);
  await ctx.call('POST', '/api/Link/Upsert', {
    body: {
      ParentDomain: b.ParentDomain!,
      ParentRecordID: b.ParentRecordID!,
      ChildDomain: 'Contact',
      ChildRecordID: b.ChildRecordID!,
      ...(code === undefined ? {} : { Relationship: code }),
    },
  });
}

/** A LinkID for a kept link, far above the reference's. */
function keptLinkId(key: string, rel: number | null): number {
  let h = 0;
  for (const ch of `${key}|${rel}`) h = (h * 31 + ch.charCodeAt(0)) % 1_000_000;
  return 9_000_000 + h;
}

async function query(req: ProxyRequest, ctx: FaultContext, next: Next) {
  const res = await next(req);
  const body = bodyJson(res);
  const kept = keptLinks(ctx);
  if (!isOk(res) || !Array.isArray(body?.List) || kept.size === 0 || req.query.has('relationship')) return res;
  const names = new Map([...(await ctx.domainIds()).entries()].map(([n, id]) => [id, n]));
  const contactId = (await ctx.domainIds()).get('Contact');
  const key = (f: string) => keysOf(req, f)[0];
  const [pdKey, pKey, cdKey, cKey] = ['ParentDomainID', 'ParentID', 'ChildDomainID', 'ChildID'].map(key);
  const extra: Array<Record<string, unknown>> = [];
  for (const row of body.List as Array<Record<string, unknown>>) {
    const parentDomain =
      pdKey !== undefined && pdKey in row ? names.get(row[pdKey] as number) : req.query.get('parentDomain');
    const parentId = pKey !== undefined && pKey in row ? row[pKey] : req.query.get('parentRecordID');
    const isContact =
      cdKey !== undefined && cdKey in row ? row[cdKey] === contactId : req.query.get('childDomain') === 'Contact';
    const childId = cKey !== undefined && cKey in row ? row[cKey] : req.query.get('childRecordID');
    if (!isContact || parentDomain === undefined || parentId === undefined) continue;
    const k = `${parentDomain}|${String(parentId)}|${String(childId)}`;
    for (const rel of kept.get(k) ?? []) {
      const copy = { ...row };
      for (const rk of keysOf(req, 'ContactTypeID')) if (rk in copy) copy[rk] = rel;
      for (const lk of keysOf(req, 'LinkID')) if (lk in copy) copy[lk] = keptLinkId(k, rel);
      extra.push(copy);
    }
  }
  return extra.length ? withResponseJson(res, { ...body, List: [...body.List, ...extra] }) : res;
}

/** The control's rewrite: Upsert, Remove and Link/Query as a service that tells links apart by relationship. */
export async function linkByRelationship(req: ProxyRequest, ctx: FaultContext, next: Next) {
  const op = operationOf(req).op;
  if (op === 'upsertLink') return upsert(req, ctx, next);
  if (op === 'removeLink') return remove(req, ctx, next);
  if (op === 'queryLinks') return query(req, ctx, next);
  return next(req);
}
