// Faults of the links area (LINK): spec 2.3, 4.4.
import type { Fault, FaultContext } from '../fault.js';
import {
  bodyJson,
  cloneRequest,
  isOk,
  keysOf,
  type LinkBody,
  makeResponse,
  parseColumns,
  problem,
  type ProxyRequest,
  withRequestJson,
  withResponseJson,
} from '../exchange.js';
import { fakeId, ignoreQueryParam, LINKABLE, linkBody, on, onJsonResponse, onRequest, tokenOf } from './util.js';

const LINK_COLUMNS = ['LinkID', 'ParentDomainID', 'ParentID', 'ChildDomainID', 'ChildID', 'ContactTypeID'];

/** The Contact Type list of the reference (docs/architecture.md 3), for a plausible ContactTypeID. */
export const CONTACT_TYPES = [
  ['ADJ', 'Adjuster'],
  ['BRK', 'Broker'],
  ['CLM', 'Claimant'],
  ['DEF', 'Defense Attorney'],
  ['EXP', 'Expert Witness'],
];

interface FakeLink {
  LinkID: number;
  ParentDomain: string;
  ParentDomainID: number | null;
  ParentID: number;
  ChildDomain: string;
  ChildDomainID: number | null;
  ChildID: number;
  ContactTypeID: null;
}

function fakeLinks(ctx: FaultContext): FakeLink[] {
  let l = ctx.memory.get('fakeLinks') as FakeLink[] | undefined;
  if (!l) ctx.memory.set('fakeLinks', (l = []));
  return l;
}

function sameLink(l: FakeLink, b: LinkBody): boolean {
  return (
    l.ParentDomain === b.ParentDomain &&
    l.ParentID === b.ParentRecordID &&
    l.ChildDomain === b.ChildDomain &&
    l.ChildID === b.ChildRecordID
  );
}

/** Link rows projected on the requested link columns. */
function project(req: ProxyRequest, rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const cols = parseColumns(req.query.get('columns')) ?? LINK_COLUMNS.map((c) => ({ field: c, key: c }));
  return rows.map((r) => Object.fromEntries(cols.map((c) => [c.key, r[c.field] ?? null])));
}

function contactTypeId(rel: string): number {
  const i = CONTACT_TYPES.findIndex(([code, desc]) => code === rel || desc === rel);
  return i < 0 ? 1 : i + 1;
}

interface ChildLink {
  ParentDomain: string | undefined;
  ParentID: number;
  ChildDomain: string;
  ChildID: number;
}

/** The links of the child named in a link body (by ID, or `knownChildId` from the answer), as the administrator. */
async function linksOfChild(ctx: FaultContext, b: LinkBody, knownChildId: unknown): Promise<ChildLink[]> {
  const childId = typeof b.ChildRecordID === 'number' ? b.ChildRecordID : knownChildId;
  if (typeof childId !== 'number' || typeof b.ChildDomain !== 'string') return [];
  const r = await ctx.call(
    'GET',
    `/api/Link/Query?childDomain=${encodeURIComponent(b.ChildDomain)}&childRecordID=${childId}&columns=ParentDomainID,ParentID`,
  );
  if (r.status !== 200 || !Array.isArray(r.json?.List)) return [];
  const names = new Map([...(await ctx.domainIds()).entries()].map(([n, id]) => [id, n]));
  return (r.json.List as Array<{ ParentDomainID: number; ParentID: number }>).map((l) => ({
    ParentDomain: names.get(l.ParentDomainID),
    ParentID: l.ParentID,
    ChildDomain: b.ChildDomain!,
    ChildID: childId,
  }));
}

/** The Contact Type code of a stored ContactTypeID (null for none; undefined when not in the list). */
function contactTypeCode(id: unknown): string | null | undefined {
  if (id === null || id === undefined) return null;
  return typeof id === 'number' ? CONTACT_TYPES[id - 1]?.[0] : undefined;
}

interface StoredLink {
  LinkID: number;
  ParentDomainID: number;
  ParentID: number;
  ChildDomainID: number;
  ChildID: number;
  ContactTypeID: number | null;
}

/**
 * The links a Link/Remove body would delete, every column, as the administrator: the same
 * identification of each side (primary key, else match field and key) and, for a Contact child,
 * the same relationship. Undefined when the body names nothing Link/Query can look up.
 */
export async function linksARemoveNames(ctx: FaultContext, b: LinkBody): Promise<StoredLink[] | undefined> {
  if (typeof b.ParentDomain !== 'string' || typeof b.ChildDomain !== 'string') return undefined;
  const q = new URLSearchParams({ parentDomain: b.ParentDomain, childDomain: b.ChildDomain });
  for (const [side, Side] of [
    ['parent', 'Parent'],
    ['child', 'Child'],
  ] as const) {
    const id = b[`${Side}RecordID`];
    const field = b[`${Side}RecordMatchField`];
    const key = b[`${Side}RecordKey`];
    if (typeof id === 'number') q.set(`${side}RecordID`, String(id));
    else if (typeof field === 'string' && (typeof key === 'string' || typeof key === 'number')) {
      q.set(`${side}RecordMatchField`, field);
      q.set(`${side}RecordKey`, String(key));
    } else return undefined;
  }
  // Remove judges the relationship of Contact links only (null or empty: a link without one).
  if (b.ChildDomain === 'Contact' && b.Relationship !== undefined) q.set('relationship', b.Relationship ?? '');
  q.set('columns', LINK_COLUMNS.join(','));
  const r = await ctx.call('GET', `/api/Link/Query?${q.toString()}`);
  return r.status === 200 && Array.isArray(r.json?.List) ? (r.json.List as StoredLink[]) : undefined;
}

/** LinkID of a link put back by `link-remove-noop` → the LinkID it had before (what clients see). */
function restoredLinkIds(ctx: FaultContext): Map<number, number> {
  let m = ctx.memory.get('restoredLinkIds') as Map<number, number> | undefined;
  if (!m) ctx.memory.set('restoredLinkIds', (m = new Map()));
  return m;
}

/** Insert a deleted link again, as the administrator, and show it under its old LinkID from now on. */
async function putLinkBack(ctx: FaultContext, l: StoredLink): Promise<void> {
  const names = new Map([...(await ctx.domainIds()).entries()].map(([n, id]) => [id, n]));
  const rel = contactTypeCode(l.ContactTypeID);
  const r = await ctx.call('POST', '/api/Link/Upsert', {
    body: {
      ParentDomain: names.get(l.ParentDomainID),
      ParentRecordID: l.ParentID,
      ChildDomain: names.get(l.ChildDomainID),
      ChildRecordID: l.ChildID,
      ...(rel !== null && rel !== undefined ? { Relationship: rel } : {}),
    },
  });
  const ids = restoredLinkIds(ctx);
  if (typeof r.json?.LinkID === 'number') ids.set(r.json.LinkID, ids.get(l.LinkID) ?? l.LinkID);
}

/** Delete one link (reference body names), as the administrator. */
async function removeLinkRow(ctx: FaultContext, l: ChildLink): Promise<void> {
  await ctx.call('POST', '/api/Link/Remove', {
    body: {
      ParentDomain: l.ParentDomain,
      ParentRecordID: l.ParentID,
      ChildDomain: l.ChildDomain,
      ChildRecordID: l.ChildID,
    },
  });
}

export const LINK_FAULTS: Fault[] = [
  {
    name: 'non-linkable-child-accepted',
    area: 'LINK',
    description: 'Link/Upsert accepts any child domain (e.g. a Note), stores the link and lists it in Link/Query.',
    requirements: ['LINK-003'],
    rewrite: on(['upsertLink', 'removeLink', 'queryLinks'], async (req, route, ctx, next) => {
      const links = fakeLinks(ctx);
      if (route.op === 'queryLinks') {
        const q = req.query;
        const ids = await ctx.domainIds();
        const hits = links.filter(
          (l) =>
            (!q.get('childDomain') || q.get('childDomain') === l.ChildDomain) &&
            (!q.get('childRecordID') || Number(q.get('childRecordID')) === l.ChildID) &&
            (!q.get('parentDomain') || q.get('parentDomain') === l.ParentDomain) &&
            (!q.get('parentRecordID') || Number(q.get('parentRecordID')) === l.ParentID),
        );
        if (hits.length === 0 || !(q.get('childDomain') || q.get('parentDomain'))) return next(req);
        const res = await next(req);
        const rows = project(
          req,
          hits.map((l) => ({ ...l, ParentDomainID: l.ParentDomainID ?? ids.get(l.ParentDomain) ?? null })),
        );
        const body = bodyJson(res);
        if (isOk(res) && Array.isArray(body?.List))
          return withResponseJson(res, { ...body, List: [...body.List, ...rows] });
        return makeResponse(200, { List: rows });
      }
      const b = linkBody(req);
      if (!b || typeof b.ChildDomain !== 'string' || LINKABLE.includes(b.ChildDomain)) return next(req);
      if (
        typeof b.ParentRecordID !== 'number' ||
        typeof b.ChildRecordID !== 'number' ||
        typeof b.ParentDomain !== 'string'
      )
        return next(req);
      if (route.op === 'removeLink') {
        const i = links.findIndex((l) => sameLink(l, b));
        if (i < 0) return next(req);
        links.splice(i, 1);
        return makeResponse(200, { IsSuccessful: true, Message: 'Link removed.' });
      }
      // The imitated server still finds both records and checks the caller's token.
      for (const [d, id] of [
        [b.ParentDomain, b.ParentRecordID],
        [b.ChildDomain, b.ChildRecordID],
      ] as const) {
        const r = await ctx.call('GET', `/api/${encodeURIComponent(d)}/${id}`, { token: tokenOf(req, ctx) ?? null });
        if (r.status !== 200) return next(req);
      }
      let link = links.find((l) => sameLink(l, b));
      if (!link) {
        const ids = await ctx.domainIds();
        link = {
          LinkID: fakeId(ctx),
          ParentDomain: b.ParentDomain,
          ParentDomainID: ids.get(b.ParentDomain) ?? null,
          ParentID: b.ParentRecordID,
          ChildDomain: b.ChildDomain,
          ChildDomainID: ids.get(b.ChildDomain) ?? null,
          ChildID: b.ChildRecordID,
          ContactTypeID: null,
        };
        links.push(link);
      }
      return makeResponse(200, {
        IsSuccessful: true,
        LinkID: link.LinkID,
        ParentRecordID: link.ParentID,
        ChildRecordID: link.ChildID,
        Message: null,
      });
    }),
  },
  {
    name: 'parent-numeric-match-field-refused',
    area: 'LINK',
    description:
      'The parent side accepts text match fields only: a parent named by a numeric match field and key is refused (the child side is right).',
    requirements: ['LINK-009'],
    rewrite: on(['upsertLink', 'removeLink'], async (req, _route, _ctx, next) => {
      const b = linkBody(req);
      if (!b || b.ParentRecordMatchField === undefined || typeof b.ParentRecordKey !== 'number') return next(req);
      return problem(
        400,
        'InvalidMatchField',
        `${String(b.ParentRecordMatchField)} is not a text field of the parent domain.`,
      );
    }),
  },
  {
    name: 'match-field-wins-over-primary-key',
    area: 'LINK',
    description: 'When a side gives both a primary key and a match field, the match field is used.',
    requirements: ['LINK-010'],
    rewrite: onRequest(['upsertLink', 'removeLink'], (req) => {
      const b = linkBody(req);
      if (!b) return req;
      const out: LinkBody = { ...b };
      if (out.ParentRecordMatchField !== undefined && out.ParentRecordKey !== undefined) delete out.ParentRecordID;
      if (out.ChildRecordMatchField !== undefined && out.ChildRecordKey !== undefined) delete out.ChildRecordID;
      return withRequestJson(req, out);
    }),
  },
  {
    name: 'relationship-stored-on-file-link',
    area: 'LINK',
    description: 'A relationship given for a File child is stored on the link (ContactTypeID filled).',
    requirements: ['LINK-006'],
    rewrite: on(['upsertLink', 'queryLinks'], async (req, route, ctx, next) => {
      const rels: Map<number, { parentId: unknown; typeId: number }> = ctx.memory.get('fileRels') ?? new Map();
      ctx.memory.set('fileRels', rels);
      if (route.op === 'upsertLink') {
        const b = linkBody(req);
        const res = await next(req);
        const out = bodyJson(res);
        const rel = b?.NewRelationship ?? b?.Relationship;
        if (
          isOk(res) &&
          b?.ChildDomain === 'File' &&
          typeof rel === 'string' &&
          rel !== '' &&
          out?.IsSuccessful !== false
        ) {
          const childId = out?.ChildRecordID ?? b.ChildRecordID;
          if (typeof childId === 'number')
            rels.set(childId, { parentId: out?.ParentRecordID ?? b.ParentRecordID, typeId: contactTypeId(rel) });
        }
        return res;
      }
      const res = await next(req);
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List) || rels.size === 0) return res;
      const relKeys = keysOf(req, 'ContactTypeID');
      const childKey = keysOf(req, 'ChildID')[0];
      const childDomainKey = keysOf(req, 'ChildDomainID')[0];
      const parentKey = keysOf(req, 'ParentID')[0];
      const childParam = req.query.get('childRecordID');
      for (const row of body.List) {
        const isFile =
          req.query.get('childDomain') === 'File' || (childDomainKey !== undefined && row[childDomainKey] === 4);
        if (!isFile) continue;
        const childId =
          childKey !== undefined && childKey in row
            ? row[childKey]
            : childParam !== null
              ? Number(childParam)
              : undefined;
        const rel = rels.get(childId);
        if (!rel) continue;
        if (parentKey !== undefined && parentKey in row && row[parentKey] !== rel.parentId) continue;
        for (const k of relKeys) if (k in row) row[k] = rel.typeId;
      }
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'link-query-parent-domain-ignored',
    area: 'LINK',
    description: 'Link/Query ignores parentDomain when childDomain is given, so links of every parent type are listed.',
    requirements: ['LINK-012'],
    rewrite: ignoreQueryParam(
      ['queryLinks'],
      'parentDomain',
      (req) => !!req.query.get('parentDomain') && !!req.query.get('childDomain'),
    ),
  },
  {
    name: 'link-query-child-record-ignored',
    area: 'LINK',
    description: 'Link/Query ignores childRecordID, so the links of every record of the child domain are listed.',
    requirements: ['LINK-011'],
    rewrite: ignoreQueryParam(
      ['queryLinks'],
      'childRecordID',
      (req) => !!req.query.get('childRecordID') && !!req.query.get('childDomain'),
    ),
  },
  {
    name: 'link-remove-noop',
    area: 'LINK',
    description: 'Link/Remove answers success without deleting the link.',
    requirements: ['LINK-015'],
    // The request reaches the server, which authenticates, checks permissions, validates and
    // answers; only the deletion is lost: what it removed is put back as it was (same LinkID seen).
    rewrite: on(['removeLink', 'upsertLink', 'queryLinks'], async (req, route, ctx, next) => {
      const ids = restoredLinkIds(ctx);
      if (route.op === 'removeLink') {
        const b = linkBody(req);
        const named = b ? await linksARemoveNames(ctx, b) : undefined;
        const res = await next(req);
        if (!named?.length || !isOk(res) || bodyJson(res)?.IsSuccessful === false) return res;
        for (const l of named) await putLinkBack(ctx, l);
        return res;
      }
      const res = await next(req);
      const body = bodyJson(res);
      if (ids.size === 0 || !isOk(res) || !body) return res;
      if (route.op === 'upsertLink') {
        if (typeof body.LinkID === 'number' && ids.has(body.LinkID)) body.LinkID = ids.get(body.LinkID);
        return withResponseJson(res, body);
      }
      if (!Array.isArray(body.List)) return res;
      for (const k of keysOf(req, 'LinkID'))
        for (const row of body.List) if (row && ids.has(row[k])) row[k] = ids.get(row[k]);
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'link-upsert-duplicates',
    area: 'LINK',
    description: 'Link/Upsert of an existing link inserts another row (no unique key), so Link/Query lists it twice.',
    requirements: ['LINK-014'],
    rewrite: on(['upsertLink', 'removeLink', 'queryLinks'], async (req, route, ctx, next) => {
      const counts: Map<string, number> = ctx.memory.get('linkCounts') ?? new Map();
      ctx.memory.set('linkCounts', counts);
      const res = await next(req);
      const out = bodyJson(res);
      if (!isOk(res) || out === undefined) return res;
      if (route.op !== 'queryLinks') {
        const b = linkBody(req);
        if (!b || out?.IsSuccessful === false) return res;
        const key = `${b.ParentDomain}|${out.ParentRecordID ?? b.ParentRecordID}|${b.ChildDomain}|${out.ChildRecordID ?? b.ChildRecordID}`;
        if (route.op === 'upsertLink') counts.set(key, (counts.get(key) ?? 0) + 1);
        else
          for (const k of [...counts.keys()])
            if (
              k.startsWith(`${b.ParentDomain}|`) &&
              k.endsWith(`|${b.ChildDomain}|${b.ChildRecordID ?? out.ChildRecordID}`)
            )
              counts.delete(k);
        return res;
      }
      if (!Array.isArray(out?.List) || counts.size === 0) return res;
      const names = new Map([...(await ctx.domainIds()).entries()].map(([n, id]) => [id, n]));
      const k = (f: string) => keysOf(req, f)[0];
      const extra: unknown[] = [];
      for (const row of out.List) {
        const pd =
          k('ParentDomainID') !== undefined && k('ParentDomainID')! in row
            ? names.get(row[k('ParentDomainID')!])
            : req.query.get('parentDomain');
        const cd =
          k('ChildDomainID') !== undefined && k('ChildDomainID')! in row
            ? names.get(row[k('ChildDomainID')!])
            : req.query.get('childDomain');
        const pid = k('ParentID') !== undefined ? row[k('ParentID')!] : undefined;
        const cid =
          k('ChildID') !== undefined && k('ChildID')! in row
            ? row[k('ChildID')!]
            : Number(req.query.get('childRecordID'));
        const n = counts.get(`${pd}|${pid}|${cd}|${cid}`) ?? 0;
        for (let i = 1; i < n; i++) {
          const copy = { ...row };
          const lk = k('LinkID');
          if (lk !== undefined && typeof copy[lk] === 'number') copy[lk] = (copy[lk] as number) + 500_000 * i;
          extra.push(copy);
        }
      }
      return withResponseJson(res, { ...out, List: [...out.List, ...extra] });
    }),
  },
  {
    name: 'link-query-ignores-match-field',
    area: 'LINK',
    description:
      'Link/Query ignores the match-field identification (field and key) on both sides; only primary keys narrow the answer.',
    requirements: ['LINK-020'],
    rewrite: onRequest(['queryLinks'], (req) => {
      const names = ['parentRecordMatchField', 'parentRecordKey', 'childRecordMatchField', 'childRecordKey'];
      if (!names.some((n) => req.query.has(n))) return req;
      const r = cloneRequest(req);
      for (const n of names) r.query.delete(n);
      return r;
    }),
  },
  {
    name: 'link-query-capped-at-100',
    area: 'LINK',
    description: 'Link/Query pages silently: it never answers more than 100 links, though no paging is documented.',
    requirements: ['LINK-011'],
    rewrite: onJsonResponse(['queryLinks'], (body) => {
      if (Array.isArray(body?.List) && body.List.length > 100) body.List = body.List.slice(0, 100);
    }),
  },
  {
    name: 'link-upsert-replaces-child-links',
    area: 'LINK',
    description:
      "Link/Upsert replaces the child's links: before the new link is written, every other link of the same child is deleted.",
    // a contact linked to a second parent loses its first link: LINK-005, "one contact can be
    // linked to several parents", is broken as plainly as Upsert's own rule
    requirements: ['LINK-013', 'LINK-005'],
    rewrite: on(['upsertLink'], async (req, _route, ctx, next) => {
      const res = await next(req);
      const b = linkBody(req);
      const out = bodyJson(res);
      if (!isOk(res) || !b || out?.IsSuccessful === false) return res;
      const parentId = out?.ParentRecordID ?? b.ParentRecordID;
      for (const l of await linksOfChild(ctx, b, out?.ChildRecordID)) {
        if (l.ParentDomain === b.ParentDomain && l.ParentID === parentId) continue;
        await removeLinkRow(ctx, l);
      }
      return res;
    }),
  },
  {
    // blind set 1, measured missed before it was added (reports/blind/set-1.md)
    name: 'link-reupsert-drops-other-links',
    area: 'LINK',
    description:
      "Link/Upsert of an existing link is done as 'delete every link of the child, insert this one': a contact's second Upsert to one parent drops its links to the others.",
    requirements: ['LINK-014', 'LINK-005'],
    rewrite: on(['upsertLink'], async (req, _route, ctx, next) => {
      const b = linkBody(req);
      const before = b && typeof b.ParentRecordID === 'number' ? await linksOfChild(ctx, b, undefined) : [];
      const isNamed = (l: ChildLink) => l.ParentDomain === b?.ParentDomain && l.ParentID === b?.ParentRecordID;
      const res = await next(req);
      const out = bodyJson(res);
      if (!before.some(isNamed) || !isOk(res) || out?.IsSuccessful === false) return res;
      for (const l of before) if (!isNamed(l)) await removeLinkRow(ctx, l);
      return res;
    }),
  },
  {
    // blind set 1, measured missed before it was added (reports/blind/set-1.md)
    name: 'link-reupsert-keeps-relationship',
    area: 'LINK',
    description:
      'Link/Upsert returns early when the link exists: the relationship given for an existing Contact link is ignored and the old one stays.',
    requirements: ['LINK-014'],
    rewrite: on(['upsertLink'], async (req, _route, ctx, next) => {
      const b = linkBody(req);
      if (!b || b.ChildDomain !== 'Contact' || typeof b.ParentRecordID !== 'number') return next(req);
      if (b.Relationship === undefined && b.NewRelationship === undefined) return next(req);
      const links = await linksOfChild(ctx, b, undefined);
      if (!links.some((l) => l.ParentDomain === b.ParentDomain && l.ParentID === b.ParentRecordID)) return next(req);
      const { Relationship: _r, NewRelationship: _n, ...rest } = b;
      return next(withRequestJson(req, rest as Record<string, string | number>));
    }),
  },
  {
    name: 'link-remove-ignores-parent-domain',
    area: 'LINK',
    description:
      'Link/Remove matches the parent on its ID alone: it deletes the links of the child to every parent with that ID, whatever its domain.',
    requirements: ['LINK-021'],
    rewrite: on(['removeLink'], async (req, _route, ctx, next) => {
      const b = linkBody(req);
      const before = b && typeof b.ParentRecordID === 'number' ? await linksOfChild(ctx, b, undefined) : [];
      const res = await next(req);
      const out = bodyJson(res);
      if (!isOk(res) || !b || out?.IsSuccessful === false) return res;
      for (const l of before)
        if (l.ParentID === b.ParentRecordID && l.ParentDomain !== b.ParentDomain) await removeLinkRow(ctx, l);
      return res;
    }),
  },
  {
    // issue 44: two parents of two domains with the same ID
    name: 'link-upsert-finds-parent-by-id-alone',
    area: 'LINK',
    description:
      "Link/Upsert finds the child's link by the parent's ID alone: with a link to another domain's parent of that ID, it updates that link instead of linking the named parent.",
    requirements: ['LINK-021'],
    rewrite: on(['upsertLink'], async (req, _route, ctx, next) => {
      const b = linkBody(req);
      if (!b || typeof b.ParentRecordID !== 'number' || typeof b.ParentDomain !== 'string') return next(req);
      const links = await linksOfChild(ctx, b, undefined);
      const own = links.some((l) => l.ParentDomain === b.ParentDomain && l.ParentID === b.ParentRecordID);
      const other = links.find((l) => l.ParentDomain !== b.ParentDomain && l.ParentID === b.ParentRecordID);
      if (own || !other?.ParentDomain) return next(req);
      return next(withRequestJson(req, { ...b, ParentDomain: other.ParentDomain } as Record<string, string | number>));
    }),
  },
  {
    // issue 44: a bug of sequences (a contact linked to two parents of one domain, then a Remove by
    // match field), caught by the model-based test
    name: 'link-remove-by-match-field-removes-domain',
    area: 'LINK',
    description:
      "Link/Remove with the parent named by match field deletes the child's links to every parent of that domain, not only to the parent the key names.",
    requirements: ['LINK-009'],
    rewrite: on(['removeLink'], async (req, _route, ctx, next) => {
      const b = linkBody(req);
      const byMatch = b && b.ParentRecordID === undefined && typeof b.ParentRecordMatchField === 'string';
      const before = byMatch ? await linksOfChild(ctx, b, undefined) : [];
      const res = await next(req);
      const out = bodyJson(res);
      if (!isOk(res) || !b || out?.IsSuccessful === false) return res;
      for (const l of before) if (l.ParentDomain === b.ParentDomain) await removeLinkRow(ctx, l);
      return res;
    }),
  },
  {
    name: 'link-ids-as-strings',
    area: 'LINK',
    description: 'Link/Query serialises the ID columns as strings ("1001") instead of integers.',
    requirements: ['LINK-001'],
    rewrite: onJsonResponse(['queryLinks'], (body) => {
      for (const row of Array.isArray(body?.List) ? body.List : []) {
        for (const [k, v] of Object.entries(row))
          if (typeof v === 'number' && k !== 'ContactTypeID') row[k] = String(v);
      }
    }),
  },
  {
    // blind set 3, measured missed before it was added
    name: 'match-key-nonascii-mangled',
    area: 'LINK',
    description:
      'Link/Upsert and Link/Remove read a text match key as Latin-1: its UTF-8 bytes become one character each (`ü` is `Ã¼`), so a non-ASCII key never matches.',
    requirements: ['LINK-009'],
    rewrite: onRequest(['upsertLink', 'removeLink'], (req) => {
      const b = linkBody(req);
      if (!b) return req;
      const out: LinkBody = { ...b };
      let changed = false;
      for (const k of ['ParentRecordKey', 'ChildRecordKey'] as const) {
        const v = out[k];
        if (typeof v !== 'string' || !/[\u0080-\uffff]/.test(v)) continue;
        out[k] = Buffer.from(v, 'utf8').toString('latin1');
        changed = true;
      }
      return changed ? withRequestJson(req, out) : req;
    }),
  },
];
