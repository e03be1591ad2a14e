// Links between records (spec 2.3, 4.4): LINK-*.
//
// Core tests build Link/Upsert and Link/Remove bodies only through `t.links` (the bindings), and
// judge the outcome through Link/Query, whose documented parameters are `childDomain`,
// `childRecordID`, `parentDomain` and `columns`. The relationship column is named by the binding
// `linkColumns.relationship` (the spec does not show its name) and asked for only where an
// assertion needs it (support/relationship-column.ts): an implementation that refuses it loses
// only those assertions. Record IDs, match fields and relationship codes come from the provider
// states.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { components, paths } from '../../spec/generated/openapi.js';
import { judgeFileRecord } from '../src/judge/file.js';
import { conformance, PreconditionFailedError } from '../src/suite-api/dsl.js';
import { expectFinding } from '../src/suite-api/findings.js';
import { isRefusal } from '../src/suite-api/meaning.js';
import { type Ctx, type Q, findInQuery, get, judgedAlone, needsSameRowWhenAskedAfresh } from './support/request.js';
import { inParallel } from './support/parallel.js';
import { linkRowsWithRelationship } from './support/relationship-column.js';
import { CHILD_DOMAIN_IDS, needsRowsOfChild } from './support/links-of-child.js';
import { CORE_DOMAIN_IDS, MAX_CORE_DOMAIN_ID, needsListedDomainId } from './support/domain-ids.js';
import { customLinkParent } from './support/custom-domain.js';
import { domainEntries } from './support/domain-list.js';

type LinkList = components['schemas']['LinkList'];
type LinkQuery = paths['/api/Link/Query']['get']['parameters']['query'];
type RecordEnvelope = components['schemas']['RecordEnvelope'];
type LinkUpsertResult = components['schemas']['LinkUpsertResult'];
type LinkRemoveResult = components['schemas']['LinkRemoveResult'];
type Problem = components['schemas']['Problem'];
type FileEnvelope = components['schemas']['FileEnvelope'];

type Row = Record<string, unknown>;
type LinkArgs = Parameters<Ctx['links']['upsert']>[0];
/** A link parent as the provider state 'a link parent' answers it. */
type Parent = { domain: string; domainId: number; id: number };
type ChildDomain = 'Contact' | 'File';

/** DomainIDs the spec fixes (2.1). */
const CONTACT_DOMAIN_ID = CHILD_DOMAIN_IDS.Contact;
const LINK_COLUMNS = 'ParentDomainID,ParentID,ChildDomainID,ChildID';

/** The rows of a Link/Query answer, which must be a 200 with a List array. */
function linkRows(status: number, body: unknown, what: string): Row[] {
  expect(status, what).toBe(200);
  const list = (body as LinkList | undefined)?.List;
  expect(Array.isArray(list), 'Link/Query answers a List array').toBe(true);
  return list as Row[];
}

/** Link/Query with documented parameters; returns the rows (asserting a 200 with a List). */
async function queryLinks(
  t: Ctx,
  q: { childDomain?: string; childRecordID?: number; parentDomain?: string; columns?: string },
): Promise<Row[]> {
  const res = await t.api.GET('/api/Link/Query', { params: { query: q as LinkQuery } });
  const rows = linkRows(res.response.status, res.data, `Link/Query ${JSON.stringify(q)}`);
  needsRowsOfChild(rows, q.childDomain, q.childRecordID);
  return rows;
}

/** Links of one child record (Contact or File), with the four documented columns (+ extra). */
async function linksOfChild(t: Ctx, childDomain: string, childId: number, extraColumns: string[] = []): Promise<Row[]> {
  return queryLinks(t, {
    childDomain,
    childRecordID: childId,
    columns: [LINK_COLUMNS, ...extraColumns].join(','),
  });
}

function linksTo(rows: Row[], parentDomainId: number, parentId: number): Row[] {
  return rows.filter((r) => r.ParentDomainID === parentDomainId && r.ParentID === parentId);
}

/** The links of one child under parent `p`, read back through Link/Query (plus `extraColumns`). */
async function linksUnder(
  t: Ctx,
  childDomain: ChildDomain,
  childId: number,
  p: Parent,
  extraColumns: string[] = [],
): Promise<Row[]> {
  return linksTo(await linksOfChild(t, childDomain, childId, extraColumns), p.domainId, p.id);
}

/**
 * A contact linked to several parents keeps every one of those links (LINK-005, judged by its own
 * test): a test that sets up links of one contact to `parents` (in that order) relies on it. When
 * the link to the last parent is there and an earlier one is gone, a later Upsert removed it: the
 * test is blocked by LINK-005 (fails it alone, in LINK-005's own test) instead of failing its own
 * requirements on links that are not there. A missing last link is Upsert's own failure: left to
 * the test.
 */
async function needsContactKeepsParents(t: Ctx, contactId: number, parents: Parent[]): Promise<void> {
  if (parents.length < 2) return;
  const rows = await linksOfChild(t, 'Contact', contactId);
  // by the parent's ID alone where the IDs tell the parents apart: a DomainID other than the spec's
  // is DOM-004's failure, not a lost link
  const distinct = new Set(parents.map((p) => p.id)).size === parents.length;
  const has = (p: Parent) =>
    distinct ? rows.some((r) => r.ParentID === p.id) : linksTo(rows, p.domainId, p.id).length > 0;
  if (!has(parents[parents.length - 1]!)) return;
  judgedAlone('LINK-005', `contact ${contactId} keeps its links to ${parents.length} parents`, () => {
    const lost = parents.filter((p) => !has(p)).map((p) => `${p.domain} ${p.id}`);
    expect(lost, `links of contact ${contactId} gone after another parent's Upsert`).toEqual([]);
  });
}

/**
 * Reads the links of one child back and expects exactly one, joining parent `p` to the child with
 * the four documented columns (ChildDomainID the spec's DomainID of the child's domain). Returns it.
 */
async function expectOnlyLink(t: Ctx, childDomain: ChildDomain, childId: number, p: Parent, what: string) {
  const rows = await linksOfChild(t, childDomain, childId);
  expect(rows, `${what}: exactly one link of ${childDomain} ${childId}`).toHaveLength(1);
  expect(rows[0], `${what}: the link joins ${p.domainId}/${p.id} to ${childDomain} ${childId}`).toMatchObject({
    ParentDomainID: p.domainId,
    ParentID: p.id,
    ChildDomainID: CHILD_DOMAIN_IDS[childDomain],
    ChildID: childId,
  });
  return rows[0];
}

/** Link/Upsert or Link/Remove arguments by primary keys, with a relationship when given. */
function linkArgs(
  p: { domain: string; id: number },
  childDomain: ChildDomain,
  childId: number,
  relationship?: string,
): LinkArgs {
  return {
    parentDomain: p.domain,
    parentId: p.id,
    childDomain,
    childId,
    ...(relationship === undefined ? {} : { relationship }),
  };
}

async function contact(t: Ctx) {
  return t.given('a contact');
}
/**
 * A link parent from the provider state. Its DomainID is what the test looks for in the link rows:
 * that the service lists the domain with it is a step (DOM-004, DOM-005: support/domain-ids.ts).
 */
async function linkParent(t: Ctx, domain?: string) {
  const p = await linkParentById(t, domain);
  await needsListedDomainId(t, p.domain, p.domainId);
  return p;
}
/** A link parent the test finds by its record ID alone, never by its DomainID: no step on the latter. */
async function linkParentById(t: Ctx, domain?: string) {
  return t.given('a link parent', domain === undefined ? {} : { domain });
}
async function unlinkedFile(t: Ctx, name = 'link-child.txt') {
  return t.given('a file', {
    kind: 'internal',
    linked: false,
    fileName: name,
    contentsBase64: Buffer.from(`contents of ${name}`).toString('base64'),
  });
}
async function relationships(t: Ctx): Promise<string[]> {
  const s = await t.given('contact relationships');
  const rels = s.relationships as string[];
  expect(Array.isArray(rels) && rels.length >= 2, 'state "contact relationships" gives at least two codes').toBe(true);
  return rels;
}

function expectAccepted(res: Parameters<typeof isRefusal>[0], what: string) {
  expect(isRefusal(res), `${what} is accepted (answer: ${describe(res)})`).toBe(false);
}
function expectRefused(res: Parameters<typeof isRefusal>[0], what: string) {
  expect(isRefusal(res), `${what} is refused (answer: ${describe(res)})`).toBe(true);
}
function describe(res: Parameters<typeof isRefusal>[0]): string {
  const status = 'response' in res ? res.response.status : res.status;
  const body = 'response' in res ? JSON.stringify(res.data ?? res.error) : res.text;
  return `${status} ${String(body).slice(0, 300)}`;
}

/** A custom domain name, discovered through GET /api/Domains (names beginning with `Custom.`). */
async function customDomain(t: Ctx): Promise<string | undefined> {
  const res = await t.raw('/api/Domains');
  expect(res.status).toBe(200);
  const list = await domainEntries(t, res.json);
  return list.map((d) => d?.Name).find((n) => typeof n === 'string' && n.startsWith('Custom.'));
}

// ---------------------------------------------------------------------------------------------
// Core

conformance(
  {
    id: 'links.upsert-creates-contact-link',
    title: 'Link/Upsert by primary keys creates a Contact link whose row carries the four integer columns',
    requirements: ['LINK-001', 'LINK-008', 'LINK-013', 'LINK-011'],
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const c = await contact(t);
    const before = await linksOfChild(t, 'Contact', c.contactId);
    expect(linksTo(before, p.domainId, p.id)).toHaveLength(0);

    expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId)), 'Upsert of a new Contact link');

    const row = await expectOnlyLink(t, 'Contact', c.contactId, p, 'the new link');
    for (const col of ['ParentDomainID', 'ParentID', 'ChildDomainID', 'ChildID']) {
      expect(Number.isInteger(row[col]), `${col} is an integer (got ${JSON.stringify(row[col])})`).toBe(true);
    }
  },
);

conformance(
  {
    id: 'links.upsert-creates-file-link',
    title: 'Link/Upsert creates a File link, listed for the file with ChildDomainID 4',
    requirements: ['LINK-001', 'LINK-008', 'LINK-013'],
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const f = await unlinkedFile(t);
    expect(await linksOfChild(t, 'File', f.fileId)).toHaveLength(0);

    expectAccepted(await t.links.upsert(linkArgs(p, 'File', f.fileId)), 'Upsert of a new File link');

    await expectOnlyLink(t, 'File', f.fileId, p, 'the new link');
  },
);

// LINK-002: a parent in any standard domain (the spec's domain table, plus Member and Proposal that
// the spec names as link parents) or in a custom domain.
for (const domain of ['Claim', 'Location', 'Note', 'Policy', 'Task', 'Incident', 'Member', 'Proposal']) {
  conformance(
    {
      id: `links.parent-standard-domain-${domain.toLowerCase()}`,
      title: `a ${domain} record can be the parent of a Contact link`,
      requirements: ['LINK-002'],
      classes: ['LINK-002:standard-domain'],
      mutates: true,
    },
    async (t) => {
      const p = await linkParent(t, domain);
      expect(p.domain).toBe(domain);
      const c = await contact(t);
      expectAccepted(
        await t.links.upsert(linkArgs({ domain, id: p.id }, 'Contact', c.contactId)),
        `Upsert of a Contact link under ${domain}`,
      );
      expect(await linksUnder(t, 'Contact', c.contactId, p), `the link under ${domain} ${p.id} is listed`).toHaveLength(
        1,
      );
    },
  );
}

conformance(
  {
    id: 'links.parent-custom-domain',
    title: 'a record of a custom (Custom.) domain can be the parent of Contact and File links',
    requirements: ['LINK-002'],
    classes: ['LINK-002:custom-domain'],
    mutates: true,
  },
  async (t) => {
    // the fixture's custom domain (protocol 1.2.0), else one GET /api/Domains lists
    const p =
      (await customLinkParent(t)) ??
      (await linkParent(t, (await customDomain(t)) ?? t.notApplicable('GET /api/Domains lists no Custom. domain')));
    await needsListedDomainId(t, p.domain, p.domainId);
    const domain = p.domain;
    const c = await contact(t);
    const f = await unlinkedFile(t);
    const parent = { domain: domain!, id: p.id };
    expectAccepted(
      await t.links.upsert(linkArgs(parent, 'Contact', c.contactId)),
      `Upsert of a Contact link under ${domain}`,
    );
    expectAccepted(await t.links.upsert(linkArgs(parent, 'File', f.fileId)), `Upsert of a File link under ${domain}`);
    expect(await linksUnder(t, 'Contact', c.contactId, p)).toHaveLength(1);
    expect(await linksUnder(t, 'File', f.fileId, p)).toHaveLength(1);
    // the number itself is DOM-005's rule (judged by its test): a step here
    await t.needs('DOM-005', `${domain} has a DomainID above every core one`, async () =>
      expect(p.domainId, 'custom DomainIDs are above the core ones').toBeGreaterThan(MAX_CORE_DOMAIN_ID),
    );
  },
);

conformance(
  {
    id: 'links.non-linkable-child-refused',
    title: 'a link whose child is neither a Contact nor a File is refused and not created',
    requirements: ['LINK-003'],
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const children: Array<{ domain: string; domainId: number }> = [
      { domain: 'Note', domainId: 5 },
      { domain: 'Task', domainId: 7 },
      { domain: 'Location', domainId: 3 },
      { domain: 'Claim', domainId: 1 },
    ];
    for (const child of children) {
      // Any record of the domain will do; 'a link parent' creates one in any domain.
      const rec = await linkParent(t, child.domain);
      const childId = rec.id as number;
      expect(rec.domainId, `DomainID of ${child.domain}`).toBe(child.domainId);
      const res = await t.links.upsert({ parentDomain: p.domain, parentId: p.id, childDomain: child.domain, childId });
      expectRefused(res, `Upsert of a link with a ${child.domain} child`);

      // No such link: asked by child where the service answers that query, else by parent domain.
      const byChild = await t.api.GET('/api/Link/Query', {
        params: { query: { childDomain: child.domain, childRecordID: childId, columns: LINK_COLUMNS } as LinkQuery },
      });
      let rows: Row[];
      if (byChild.response.status === 200) rows = (byChild.data as LinkList | undefined)?.List ?? [];
      else rows = await queryLinks(t, { parentDomain: p.domain, columns: LINK_COLUMNS });
      const made = rows.filter(
        (r) =>
          r.ParentID === p.id &&
          r.ChildID === childId &&
          (r.ChildDomainID === undefined || r.ChildDomainID === child.domainId),
      );
      expect(made, `no link ${p.domain} ${p.id} -> ${child.domain} ${childId} exists`).toHaveLength(0);
    }
  },
);

conformance(
  {
    id: 'links.contact-many-parents-own-relationships',
    title: 'one contact is linked to several parents, each link with its own Contact Type relationship',
    requirements: ['LINK-005', 'LINK-013'],
    mutates: true,
  },
  async (t) => {
    const [r1, r2] = await relationships(t);
    const p1 = await linkParent(t);
    const p2 = await linkParent(t, 'Incident');
    const p3 = await linkParent(t);
    const c = await contact(t);

    expectAccepted(await t.links.upsert(linkArgs(p1, 'Contact', c.contactId, r1)), `Upsert with relationship ${r1}`);
    expectAccepted(await t.links.upsert(linkArgs(p2, 'Contact', c.contactId, r2)), `Upsert with relationship ${r2}`);
    expectAccepted(
      await t.links.upsert(linkArgs(p3, 'Contact', c.contactId, r1)),
      `Upsert with relationship ${r1} under a third parent`,
    );
    await needsContactKeepsParents(t, c.contactId, [p1, p2, p3]);

    // the links themselves are judged with the documented columns; the relationships they carry
    // only when the implementation offers the (undocumented) relationship column
    const { rows, relationship: rel } = await linkRowsWithRelationship(
      t,
      { childDomain: 'Contact', childRecordID: c.contactId },
      LINK_COLUMNS,
      'the relationships stored per link are not compared',
    );
    expect(rows).toHaveLength(3);
    const [l1] = linksTo(rows, p1.domainId, p1.id);
    const [l2] = linksTo(rows, p2.domainId, p2.id);
    const [l3] = linksTo(rows, p3.domainId, p3.id);
    expect(l1 && l2 && l3, 'all three links are listed').toBeTruthy();
    if (rel === undefined) return;
    for (const l of [l1, l2, l3]) {
      expect(l[rel], `the link to ${l.ParentID} carries a relationship in ${rel}`).not.toBeNull();
      expect(l[rel]).not.toBeUndefined();
    }
    expect(l1[rel], 'different relationships are stored per link').not.toEqual(l2[rel]);
    expect(l1[rel], 'the same relationship is stored alike').toEqual(l3[rel]);
  },
);

conformance(
  {
    id: 'links.file-child-relationship-not-stored',
    title: 'a relationship given for a File child is not stored on the link',
    requirements: ['LINK-006'],
    mutates: true,
  },
  async (t) => {
    const [r1] = await relationships(t);
    const p = await linkParent(t);
    const f = await unlinkedFile(t);
    const res = await t.links.upsert(linkArgs(p, 'File', f.fileId, r1));
    const { rows: all, relationship: rel } = await linkRowsWithRelationship(
      t,
      { childDomain: 'File', childRecordID: f.fileId },
      LINK_COLUMNS,
      'whether the File link stores a relationship cannot be read',
    );
    const rows = linksTo(all, p.domainId, p.id);
    if (isRefusal(res)) {
      // Refusing the relationship outright also keeps it off the link.
      expect(rows, 'a refused upsert creates no link').toHaveLength(0);
      return;
    }
    expect(rows).toHaveLength(1);
    if (rel === undefined)
      return t.notApplicable(
        `LINK-006 is judged on the relationship column, which the implementation does not offer under the name '${t.bindings.linkColumns.relationship}' (binding linkColumns.relationship)`,
      );
    expect(rows[0][rel] ?? null, `${rel} of a File link`).toBeNull();
  },
);

conformance(
  {
    id: 'links.match-field-text-and-numeric',
    title: 'records can be identified by a text or a numeric match field and key, for Upsert and Remove',
    requirements: ['LINK-009'],
    classes: ['LINK-009:parent-text', 'LINK-009:child-text', 'LINK-009:child-numeric'],
    mutates: true,
  },
  async (t) => {
    // the states first, then the DomainID step (a value missing from either ends the test as its own)
    const [p, c] = await Promise.all([linkParentById(t), contact(t)]);
    await needsListedDomainId(t, p.domain, p.domainId);
    // Upsert: parent by text match field, child by numeric match field.
    expectAccepted(
      await t.links.upsert({
        parentDomain: p.domain,
        parentMatch: { field: p.textMatchField, key: p.textMatchKey },
        childDomain: 'Contact',
        childMatch: { field: c.numericMatchField, key: c.numericMatchKey },
      }),
      'Upsert by match fields',
    );
    await expectOnlyLink(t, 'Contact', c.contactId, p, 'the link joins the two matched records');

    // Remove: parent by text, child by text.
    await needsRemoveDeletes(t, p);
    expectAccepted(
      await t.links.remove({
        parentDomain: p.domain,
        parentMatch: { field: p.textMatchField, key: p.textMatchKey },
        childDomain: 'Contact',
        childMatch: { field: c.textMatchField, key: c.textMatchKey },
      }),
      'Remove by match fields',
    );
    expect(await linksOfChild(t, 'Contact', c.contactId), 'the link is gone').toHaveLength(0);
  },
);

conformance(
  {
    id: 'links.match-key-non-ascii',
    title:
      'a parent named by a text match field whose key is non-ASCII text (Latin-1 and beyond) is found, for Upsert and Remove',
    requirements: ['LINK-009'],
    classes: ['LINK-009:parent-text'],
    mutates: true,
  },
  async (t) => {
    // spec 4.4: `ParentRecordKey` (the value to match) of a text field; the suite chooses the stored
    // text through 'records' with `texts` (protocol 1.2.0): a Latin-1 letter, letters beyond
    // Latin-1 and a three-byte script, so a key read as Latin-1 bytes or narrowed to Latin-1 no
    // longer matches. An endpoint that cannot store it refuses (400): not-applicable.
    const key = `Zürich-Łódź-東京-${randomUUID().slice(0, 8)}`;
    const [r, c] = await Promise.all([t.given('records', { count: 1, texts: [key] }), contact(t)]);
    const field = r.textField ?? t.notApplicable("provider state 'records' gave no textField for the param texts");
    const domainId =
      CORE_DOMAIN_IDS[r.domain as keyof typeof CORE_DOMAIN_IDS] ??
      t.notApplicable(`provider state 'records' made its record in ${r.domain}, not a domain of fixed DomainID`);
    const p: Parent = { domain: r.domain, domainId, id: r.ids[0]! };
    await needsListedDomainId(t, p.domain, p.domainId);
    const parentMatch = { field, key };
    expectAccepted(
      await t.links.upsert({ parentDomain: p.domain, parentMatch, childDomain: 'Contact', childId: c.contactId }),
      `Upsert with the parent named by ${field}=${key}`,
    );
    await expectOnlyLink(t, 'Contact', c.contactId, p, `the link joins the parent whose ${field} is ${key}`);

    await needsRemoveDeletes(t, p);
    expectAccepted(
      await t.links.remove({ parentDomain: p.domain, parentMatch, childDomain: 'Contact', childId: c.contactId }),
      `Remove with the parent named by ${field}=${key}`,
    );
    expect(await linksOfChild(t, 'Contact', c.contactId), 'the link is gone').toHaveLength(0);
  },
);

conformance(
  {
    id: 'links.match-field-numeric-parent',
    title:
      'the parent can be identified by a numeric match field (its integer key column) and key, for Upsert and Remove',
    requirements: ['LINK-009'],
    classes: ['LINK-009:parent-numeric'],
    mutates: true,
  },
  async (t) => {
    // the key column of a domain is a numeric field whose value names one record
    const assoc = await t.given('a record with associations');
    const [p, c] = await Promise.all([linkParent(t, assoc.domain), contact(t)]);
    const parentMatch = { field: assoc.keyField, key: p.id };
    expectAccepted(
      await t.links.upsert({ parentDomain: p.domain, parentMatch, childDomain: 'Contact', childId: c.contactId }),
      `Upsert with the parent named by ${assoc.keyField}=${p.id}`,
    );
    await expectOnlyLink(t, 'Contact', c.contactId, p, 'the link joins the matched parent');
    await needsRemoveDeletes(t, p);
    expectAccepted(
      await t.links.remove({ parentDomain: p.domain, parentMatch, childDomain: 'Contact', childId: c.contactId }),
      `Remove with the parent named by ${assoc.keyField}=${p.id}`,
    );
    expect(await linksOfChild(t, 'Contact', c.contactId), 'the link is gone').toHaveLength(0);
  },
);

/** A key for a match field that is neither text nor numeric: the record's own value of that field
 * when it is readable as a scalar (so only the field type can be the reason for a refusal). */
async function nonMatchableKey(t: Ctx, domain: string, id: number, field: string): Promise<string | number> {
  const res = await t.raw(`/api/${encodeURIComponent(domain)}/${id}?columns=${encodeURIComponent(field)}`);
  const v = (res.json as RecordEnvelope | undefined)?.Record?.[field];
  if (typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'boolean') return String(v);
  return id;
}

conformance(
  {
    id: 'links.match-field-other-type-refused',
    title: 'a match field that is neither text nor numeric is refused, and nothing changes',
    requirements: ['LINK-009'],
    classes: ['LINK-009:other-type-refused'],
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const c = await contact(t);
    const pKey = await nonMatchableKey(t, p.domain, p.id, p.nonMatchableField);
    const cKey = await nonMatchableKey(t, 'Contact', c.contactId, c.nonMatchableField);

    expectRefused(
      await t.links.upsert({
        parentDomain: p.domain,
        parentMatch: { field: p.nonMatchableField, key: pKey },
        childDomain: 'Contact',
        childId: c.contactId,
      }),
      `Upsert with parent match field ${p.nonMatchableField}`,
    );
    expectRefused(
      await t.links.upsert({
        parentDomain: p.domain,
        parentId: p.id,
        childDomain: 'Contact',
        childMatch: { field: c.nonMatchableField, key: cKey },
      }),
      `Upsert with child match field ${c.nonMatchableField}`,
    );
    expect(await linksOfChild(t, 'Contact', c.contactId), 'no link was created').toHaveLength(0);

    // Remove: an existing link survives a Remove that names it by a non-matchable field.
    expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId)), 'Upsert by primary keys');
    expectRefused(
      await t.links.remove({
        parentDomain: p.domain,
        parentMatch: { field: p.nonMatchableField, key: pKey },
        childDomain: 'Contact',
        childId: c.contactId,
      }),
      `Remove with parent match field ${p.nonMatchableField}`,
    );
    expect(await linksUnder(t, 'Contact', c.contactId, p), 'the link is still there').toHaveLength(1);
  },
);

conformance(
  {
    id: 'links.primary-key-wins-over-match-field',
    title: 'when a side gives both a primary key and a match field, the primary key names the record',
    // LINK-010's case alone: LINK-008 (a record named by its primary key) is judged where the key
    // is the only identification, so the match field winning is one red line
    requirements: ['LINK-010'],
    mutates: true,
  },
  async (t) => {
    const p1 = await linkParent(t);
    const p2 = await linkParent(t);
    const c1 = await contact(t);
    const c2 = await contact(t);

    // Parent side: ID of p1, match field of p2. Child side: ID of c1, match field of c2.
    expectAccepted(
      await t.links.upsert({
        parentDomain: p1.domain,
        parentId: p1.id,
        parentMatch: { field: p2.textMatchField, key: p2.textMatchKey },
        childDomain: 'Contact',
        childId: c1.contactId,
        childMatch: { field: c2.textMatchField, key: c2.textMatchKey },
      }),
      'Upsert with both key and match field',
    );
    await expectOnlyLink(t, 'Contact', c1.contactId, p1, 'the link joins the records named by the primary keys');
    expect(await linksOfChild(t, 'Contact', c2.contactId), 'the match-field contact got no link').toHaveLength(0);

    // Remove: link c1 to p2 as well, then remove naming p1 by ID and p2 by match field.
    expectAccepted(await t.links.upsert(linkArgs(p2, 'Contact', c1.contactId)), 'second link');
    await needsRemoveDeletes(t, p1);
    expectAccepted(
      await t.links.remove({
        parentDomain: p1.domain,
        parentId: p1.id,
        parentMatch: { field: p2.textMatchField, key: p2.textMatchKey },
        childDomain: 'Contact',
        childId: c1.contactId,
      }),
      'Remove with both key and match field',
    );
    const rows2 = await linksOfChild(t, 'Contact', c1.contactId);
    expect(linksTo(rows2, p1.domainId, p1.id), 'the primary-key link is removed').toHaveLength(0);
    expect(linksTo(rows2, p2.domainId, p2.id), 'the match-field link stays').toHaveLength(1);
  },
);

conformance(
  {
    id: 'links.query-by-child',
    title: 'Link/Query with childDomain and childRecordID returns exactly the links of that child',
    requirements: ['LINK-011', 'LINK-001'],
    mutates: true,
  },
  async (t) => {
    const p1 = await linkParent(t);
    const p2 = await linkParent(t, 'Location');
    const c1 = await contact(t);
    const c2 = await contact(t);
    const f = await unlinkedFile(t);
    for (const [p, childDomain, childId] of [
      [p1, 'Contact', c1.contactId],
      [p2, 'Contact', c1.contactId],
      [p1, 'Contact', c2.contactId],
      [p1, 'File', f.fileId],
    ] as const) {
      expectAccepted(
        await t.links.upsert(linkArgs(p, childDomain, childId)),
        `Upsert ${p.domain} ${p.id} -> ${childDomain} ${childId}`,
      );
    }
    await needsContactKeepsParents(t, c1.contactId, [p1, p2]);
    const rows = await linksOfChild(t, 'Contact', c1.contactId);
    expect(rows).toHaveLength(2);
    for (const r of rows) expect(r).toMatchObject({ ChildDomainID: CONTACT_DOMAIN_ID, ChildID: c1.contactId });
    expect(linksTo(rows, p1.domainId, p1.id)).toHaveLength(1);
    expect(linksTo(rows, p2.domainId, p2.id)).toHaveLength(1);

    await expectOnlyLink(t, 'File', f.fileId, p1, 'the link of the file');
  },
);

conformance(
  {
    id: 'links.query-parent-domain',
    title: 'Link/Query with parentDomain returns only links whose parent is in that domain',
    requirements: ['LINK-012'],
    mutates: true,
  },
  async (t) => {
    const claim = await linkParent(t, 'Claim');
    const incident = await linkParent(t, 'Incident');
    const c = await contact(t);
    for (const p of [claim, incident]) {
      expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId)), `Upsert under ${p.domain}`);
    }
    await needsContactKeepsParents(t, c.contactId, [claim, incident]);
    expect(await linksOfChild(t, 'Contact', c.contactId), 'both links without parentDomain').toHaveLength(2);

    for (const p of [claim, incident]) {
      // DomainID columns may be left out when parentDomain is set.
      const rows = await queryLinks(t, {
        childDomain: 'Contact',
        childRecordID: c.contactId,
        parentDomain: p.domain,
        columns: 'ParentID,ChildID',
      });
      expect(rows, `only the ${p.domain} link`).toHaveLength(1);
      expect(rows[0]).toMatchObject({ ParentID: p.id, ChildID: c.contactId });
      const full = await queryLinks(t, {
        childDomain: 'Contact',
        childRecordID: c.contactId,
        parentDomain: p.domain,
        columns: LINK_COLUMNS,
      });
      expect(full.length).toBeGreaterThan(0);
      for (const r of full) expect(r.ParentDomainID, 'every row is of the parent domain').toBe(p.domainId);
    }
  },
);

conformance(
  {
    id: 'links.upsert-existing-no-duplicate',
    title: 'Link/Upsert of an existing link keeps a single link',
    requirements: ['LINK-014'],
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const c = await contact(t);
    const f = await unlinkedFile(t);
    for (let i = 0; i < 3; i++) {
      expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId)), `Contact upsert #${i + 1}`);
      expectAccepted(await t.links.upsert(linkArgs(p, 'File', f.fileId)), `File upsert #${i + 1}`);
    }
    expect(await linksUnder(t, 'Contact', c.contactId, p), 'one Contact link').toHaveLength(1);
    expect(await linksUnder(t, 'File', f.fileId, p), 'one File link').toHaveLength(1);
  },
);

conformance(
  {
    id: 'links.upsert-existing-with-relationship',
    title: 'Link/Upsert of an existing Contact link with the same relationship updates it instead of adding one',
    requirements: ['LINK-014'],
    mutates: true,
  },
  async (t) => {
    const [r1] = await relationships(t);
    const p = await linkParent(t);
    const c = await contact(t);
    const args = linkArgs(p, 'Contact', c.contactId, r1);
    const read = async () => {
      const { rows, relationship } = await linkRowsWithRelationship(
        t,
        { childDomain: 'Contact', childRecordID: c.contactId },
        LINK_COLUMNS,
        'the relationship before and after the second upsert is not compared',
      );
      return { rows: linksTo(rows, p.domainId, p.id), rel: relationship };
    };
    expectAccepted(await t.links.upsert(args), 'first upsert');
    const first = await read();
    expect(first.rows).toHaveLength(1);
    expectAccepted(await t.links.upsert(args), 'second upsert');
    const second = await read();
    expect(second.rows, 'still one link').toHaveLength(1);
    if (first.rel !== undefined && second.rel !== undefined)
      expect(second.rows[0][second.rel]).toEqual(first.rows[0][first.rel]);
  },
);

conformance(
  {
    id: 'links.upsert-existing-keeps-other-parents',
    title:
      "a second Link/Upsert of a contact's existing link updates that link only: the contact keeps its links to other parents",
    // 4.4 "creates a link or updates an existing one" (LINK-014) and 2.3 "The same contact can be
    // linked to many parents" (LINK-005): updating one of two links must not drop the other
    requirements: ['LINK-014', 'LINK-005'],
    mutates: true,
  },
  async (t) => {
    const [r1, r2] = await relationships(t);
    const p1 = await linkParent(t);
    const p2 = await linkParentById(t, 'Incident');
    const c = await contact(t);
    await step(t.links.upsert(linkArgs(p1, 'Contact', c.contactId, r1)), 'Upsert p1 -> contact');
    await step(t.links.upsert(linkArgs(p2, 'Contact', c.contactId, r2)), 'Upsert p2 -> contact');
    await needsContactKeepsParents(t, c.contactId, [p1, p2]);
    const snapshot = async () => {
      const { rows, relationship } = await linkRowsWithRelationship(
        t,
        { childDomain: 'Contact', childRecordID: c.contactId },
        LINK_COLUMNS,
        'the links are compared without their relationships',
      );
      return linkSet(rows, relationship === undefined ? [] : [relationship]);
    };
    const before = await snapshot();
    expect(before, 'the contact has its two links').toHaveLength(2);
    // the same link again, then the other one again: each leaves the other link as it was. A link
    // gone is LINK-005's case alone; a link added (a duplicate) is LINK-014's
    const expectAsBefore = (after: string[], what: string) => {
      judgedAlone('LINK-005', `${what}: the contact keeps both links`, () =>
        expect(
          before.filter((x) => !after.includes(x)),
          `${what}: links of the contact gone or changed`,
        ).toEqual([]),
      );
      judgedAlone('LINK-014', `${what}: no link added`, () =>
        expect(after, `${what}: the contact's links as before, no link added`).toEqual(before),
      );
    };
    expectAccepted(await t.links.upsert(linkArgs(p1, 'Contact', c.contactId, r1)), 'second Upsert p1 -> contact');
    expectAsBefore(await snapshot(), 'after a second Upsert of p1 -> contact');
    expectAccepted(await t.links.upsert(linkArgs(p2, 'Contact', c.contactId, r2)), 'second Upsert p2 -> contact');
    expectAsBefore(await snapshot(), 'after a second Upsert of p2 -> contact');
  },
);

conformance(
  {
    id: 'links.upsert-existing-new-relationship',
    title:
      'Link/Upsert of an existing Contact link with another relationship leaves the parent one link carrying it, whatever identifies a link',
    // 4.4 "creates a link or updates an existing one" and 2.3 item 3 (a Contact link carries a
    // relationship; "The same contact can be linked to many parents with different relationships").
    // What identifies a link is not shown: by parent and child (the Upsert updates that link's
    // relationship) or by parent, child and relationship too (the Upsert creates a second link, as
    // the real service's NewRelationship suggests). Either way the parent then has exactly one
    // link carrying the new relationship, besides it at most the first link as it was, and the
    // same Upsert again adds nothing. The new value is judged as stored on a link made with that
    // relationship (its name and form are not shown).
    requirements: ['LINK-014'],
    mutates: true,
  },
  async (t) => {
    const [r1, r2] = await relationships(t);
    const p = await linkParent(t);
    const q = await linkParentById(t, 'Incident');
    const c = await contact(t);
    await step(t.links.upsert(linkArgs(q, 'Contact', c.contactId, r2)), `Upsert of a link with ${r2}`);
    expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId, r1)), `Upsert with ${r1}`);
    const read = async () => {
      const { rows, relationship } = await linkRowsWithRelationship(
        t,
        { childDomain: 'Contact', childRecordID: c.contactId },
        LINK_COLUMNS,
        'the relationship of the updated link cannot be read',
      );
      return { rows, rel: relationship };
    };
    const first = await read();
    if (first.rel === undefined)
      return t.notApplicable(
        `the new relationship is judged on the relationship column, which the implementation does not offer under the name '${t.bindings.linkColumns.relationship}' (binding linkColumns.relationship)`,
      );
    const rel = first.rel;
    const [ofP] = linksTo(first.rows, p.domainId, p.id);
    // q's link is found by its record ID alone (its DomainID is not what this test is about)
    const ofQ = first.rows.find((r) => r.ParentID === q.id && r !== ofP);
    expect(ofP, `the link to ${p.domain} ${p.id} is listed`).toBeDefined();
    await t.needs('LINK-005', `the links with ${r1} and ${r2} carry different relationships`, async () => {
      expect(ofQ, `the link to ${q.domain} ${q.id} is listed`).toBeDefined();
      expect(ofP![rel], 'different relationships are stored per link').not.toEqual(ofQ![rel]);
    });
    const stored = (v: unknown) => JSON.stringify(v ?? null);
    const isR1 = (r: Row) => stored(r[rel]) === stored(ofP![rel]);
    const isR2 = (r: Row) => stored(r[rel]) === stored(ofQ![rel]);
    const expectUpserted = (now: Row[], what: string) => {
      expect(now.filter(isR2), `${what}: exactly one link to the parent carries ${r2}`).toHaveLength(1);
      const others = now.filter((r) => !isR2(r));
      expect(others.length, `${what}: besides it, at most the link with ${r1}`).toBeLessThanOrEqual(1);
      expect(others.every(isR1), `${what}: a link kept beside it still carries ${r1}`).toBe(true);
    };

    expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId, r2)), `second Upsert with ${r2}`);
    const now = linksTo((await read()).rows, p.domainId, p.id);
    expectUpserted(now, `after the Upsert with ${r2}`);
    expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId, r2)), `third Upsert with ${r2}`);
    const again = linksTo((await read()).rows, p.domainId, p.id);
    expectUpserted(again, `after the same Upsert again`);
    expect(linkSet(again, [rel]), 'the same Upsert again changes nothing').toEqual(linkSet(now, [rel]));
  },
);

conformance(
  {
    id: 'links.remove',
    title: 'Link/Remove deletes exactly the named link, which no longer appears in Link/Query',
    requirements: ['LINK-015', 'LINK-008'],
    mutates: true,
  },
  async (t) => {
    const p1 = await linkParent(t);
    const p2 = await linkParent(t);
    const c = await contact(t);
    const f = await unlinkedFile(t);
    for (const p of [p1, p2]) {
      expectAccepted(await t.links.upsert(linkArgs(p, 'Contact', c.contactId)), 'contact link');
    }
    expectAccepted(await t.links.upsert(linkArgs(p1, 'File', f.fileId)), 'file link');
    await needsContactKeepsParents(t, c.contactId, [p1, p2]);

    expectAccepted(await t.links.remove(linkArgs(p1, 'Contact', c.contactId)), 'Remove of the Contact link');
    const rows = await linksOfChild(t, 'Contact', c.contactId);
    expect(linksTo(rows, p2.domainId, p2.id), 'the other link of the contact stays').toHaveLength(1);
    expect(await linksOfChild(t, 'File', f.fileId), 'the File link of the same parent stays').toHaveLength(1);
    // that the named link is gone is LINK-015's statement: a Remove that deletes nothing fails it
    // alone, not LINK-008 (the records were named by primary keys either way)
    judgedAlone('LINK-015', 'the removed Contact link is gone', () =>
      expect(linksTo(rows, p1.domainId, p1.id), 'removed link is gone').toHaveLength(0),
    );

    expectAccepted(await t.links.remove(linkArgs(p1, 'File', f.fileId)), 'Remove of the File link');
    const fileRows = await linksOfChild(t, 'File', f.fileId);
    judgedAlone('LINK-015', 'the removed File link is gone', () =>
      expect(fileRows, 'the File link is gone').toHaveLength(0),
    );
  },
);

/**
 * Link/Remove deletes a link at all (LINK-015, judged by its own test): a test that judges another
 * rule (a way of naming the records, twin parents) by which link a Remove took away relies on it.
 * A control link of `p` to a fresh contact, made and then removed by primary keys: when the Remove is
 * accepted but the link stays, the test is blocked by LINK-015 instead of blaming its own rule for
 * a Remove that deletes nothing, however the records are named.
 */
async function needsRemoveDeletes(t: Ctx, p: Parent): Promise<void> {
  const c = await contact(t);
  await step(t.links.upsert(linkArgs(p, 'Contact', c.contactId)), 'Upsert of the control link');
  await t.needs('LINK-015', 'a Remove by primary keys deletes the link', async () => {
    expectAccepted(await t.links.remove(linkArgs(p, 'Contact', c.contactId)), 'Remove of the control link');
    expect(await linksUnder(t, 'Contact', c.contactId, p), 'the removed control link is gone').toHaveLength(0);
  });
}

/** A Remove a test makes as a step: accepted (else precondition-failed), and the link gone from
 * Link/Query (LINK-015, judged by its own test; else the test is blocked by it). */
async function removeStep(t: Ctx, p: Parent, childDomain: ChildDomain, childId: number, what: string): Promise<void> {
  await step(t.links.remove(linkArgs(p, childDomain, childId)), what);
  await t.needs('LINK-015', `${what} deletes the link`, async () => {
    expect(await linksUnder(t, childDomain, childId, p), `${what}: the link is gone`).toHaveLength(0);
  });
}

/** Link/Query with any parameters (names of the undocumented ones through the bindings). */
async function queryLinksBy(t: Ctx, q: Q): Promise<Row[]> {
  const res = await get(t, '/api/Link/Query', q);
  const rows = linkRows(res.status, res.json, `Link/Query ${JSON.stringify(q)}: ${res.text.slice(0, 300)}`);
  const childId = typeof q.childRecordID === 'number' ? q.childRecordID : undefined;
  needsRowsOfChild(rows, typeof q.childDomain === 'string' ? q.childDomain : undefined, childId);
  return rows;
}

/** A link operation a test needs as a step (not what it checks): a refusal blocks the test. */
async function step(res: Promise<Parameters<typeof isRefusal>[0]>, what: string): Promise<void> {
  const r = await res;
  if (isRefusal(r)) throw new PreconditionFailedError(`${what} was refused (answer: ${describe(r)})`);
}

/** `rows` as sorted "ParentDomainID/ParentID>ChildDomainID/ChildID" texts (plus `extra` columns). */
function linkSet(rows: Row[], extra: string[] = []): string[] {
  return rows
    .map((r) =>
      [`${String(r.ParentDomainID)}/${String(r.ParentID)}>${String(r.ChildDomainID)}/${String(r.ChildID)}`]
        .concat(extra.map((k) => `${k}=${JSON.stringify(r[k] ?? null)}`))
        .join(' '),
    )
    .sort();
}

conformance(
  {
    id: 'links.query-identifies-by-key-or-match-field',
    title:
      'Link/Query names the parent by primary key or match field and the child by match field; the primary key wins',
    requirements: ['LINK-020'],
    mutates: true,
  },
  async (t) => {
    // the states first, then the DomainID steps (a value missing from one ends the test as its own)
    const [p1, p2, c1, c2] = await Promise.all([linkParentById(t), linkParentById(t), contact(t), contact(t)]);
    for (const p of [p1, p2]) await needsListedDomainId(t, p.domain, p.domainId);
    for (const [p, c] of [
      [p1, c1],
      [p1, c2],
      [p2, c1],
    ] as const) {
      await step(
        t.links.upsert(linkArgs(p, 'Contact', c.contactId)),
        `Upsert ${p.domain} ${p.id} -> Contact ${c.contactId}`,
      );
    }
    await needsContactKeepsParents(t, c1.contactId, [p1, p2]);
    const lq = t.bindings.linkQuery;
    const cols = { columns: LINK_COLUMNS };
    const pairs = (rows: Row[]) => rows.map((r) => `${String(r.ParentID)}>${String(r.ChildID)}`).sort();
    const expectPairs = (rows: Row[], want: Array<[{ id: number }, { contactId: number }]>, what: string) =>
      expect(pairs(rows), what).toEqual(want.map(([p, c]) => `${p.id}>${c.contactId}`).sort());

    // parent by primary key
    const byParentId = await queryLinksBy(t, {
      parentDomain: p1.domain,
      [lq.parentRecordId]: p1.id,
      childDomain: 'Contact',
      ...cols,
    });
    expectPairs(
      byParentId,
      [
        [p1, c1],
        [p1, c2],
      ],
      'parent by primary key',
    );
    // parent by match field
    const byParentMatch = await queryLinksBy(t, {
      parentDomain: p2.domain,
      [lq.parentRecordMatchField]: p2.textMatchField,
      [lq.parentRecordKey]: p2.textMatchKey,
      childDomain: 'Contact',
      ...cols,
    });
    expectPairs(byParentMatch, [[p2, c1]], 'parent by text match field');
    // child by match field, text and numeric
    const byChildText = await queryLinksBy(t, {
      childDomain: 'Contact',
      [lq.childRecordMatchField]: c2.textMatchField,
      [lq.childRecordKey]: c2.textMatchKey,
      ...cols,
    });
    expectPairs(byChildText, [[p1, c2]], 'child by text match field');
    const byChildNumber = await queryLinksBy(t, {
      childDomain: 'Contact',
      [lq.childRecordMatchField]: c1.numericMatchField,
      [lq.childRecordKey]: c1.numericMatchKey,
      ...cols,
    });
    expectPairs(
      byChildNumber,
      [
        [p1, c1],
        [p2, c1],
      ],
      'child by numeric match field',
    );
    // both on the parent side: the primary key wins
    const both = await queryLinksBy(t, {
      parentDomain: p1.domain,
      [lq.parentRecordId]: p1.id,
      [lq.parentRecordMatchField]: p2.textMatchField,
      [lq.parentRecordKey]: p2.textMatchKey,
      childDomain: 'Contact',
      ...cols,
    });
    expectPairs(
      both,
      [
        [p1, c1],
        [p1, c2],
      ],
      'parent by primary key and match field',
    );
  },
);

conformance(
  {
    id: 'links.query-by-child-lists-every-link',
    title: 'Link/Query by child lists every link of the child, more than any query page (no paging is documented)',
    requirements: ['LINK-011'],
    mutates: true,
    timeoutMs: 120_000,
  },
  async (t) => {
    const c = await contact(t);
    // 105 independent parents and links, a few at a time (not one chain of 315 round trips)
    const parents = await inParallel(Array.from({ length: 105 }), async (_, i) => {
      const p = await linkParent(t);
      await step(t.links.upsert(linkArgs(p, 'Contact', c.contactId)), `Upsert of link ${i + 1}`);
      return p.id;
    });
    const rows = await linksOfChild(t, 'Contact', c.contactId);
    expect(rows.map((r) => r.ParentID).sort(), 'all 105 links of the contact, each once').toEqual([...parents].sort());
  },
);

conformance(
  {
    id: 'links.is-unlinked-follows-links',
    title: 'IsUnlinked, re-read after each link added and removed, says whether the file has a parent link now',
    requirements: ['FILE-006'],
    mutates: true,
  },
  async (t) => {
    const p1 = await linkParent(t);
    const p2 = await linkParent(t, 'Incident');
    const f = await unlinkedFile(t, 'is-unlinked.txt');
    const isUnlinked = async (when: string): Promise<unknown> => {
      const res = await get(t, `/api/File/${f.fileId}`, { columns: 'IsUnlinked' });
      expect(res.status, `GET /api/File/${f.fileId} ${when}`).toBe(200);
      const one = (res.json as FileEnvelope).Record.IsUnlinked;
      const query = { columns: 'FileID,IsUnlinked' };
      const row = await findInQuery(t, '/api/File/Query', 'FileID', 'FileID', f.fileId, query);
      if (row.IsUnlinked !== one)
        await needsSameRowWhenAskedAfresh(t, '/api/File/Query', 'FileID', 'FileID', f.fileId, query, row);
      expect(row.IsUnlinked, `File/Query agrees with GET /api/File/{id} ${when}`).toBe(one);
      return one;
    };
    const expectLinked = async (linked: boolean, when: string) =>
      expectFinding(
        judgeFileRecord('getFile', { FileID: f.fileId, IsUnlinked: await isUnlinked(when) }, { linked }),
        'FILE-006',
        when,
      );
    const link = (p: { domain: string; id: number }) => linkArgs(p, 'File', f.fileId);
    await expectLinked(false, 'before any link');
    await step(t.links.upsert(link(p1)), 'Upsert of the first File link');
    await expectLinked(true, 'after the first link was added');
    await step(t.links.upsert(link(p2)), 'Upsert of the second File link');
    await expectLinked(true, 'with two links');
    await removeStep(t, p1, 'File', f.fileId, 'Remove of the first File link');
    await expectLinked(true, 'after one of two links was removed');
    await removeStep(t, p2, 'File', f.fileId, 'Remove of the last File link');
    await expectLinked(false, 'after the last link was removed');
  },
);

conformance(
  {
    id: 'links.writes-leave-other-links-alone',
    title:
      'Upsert and Remove change the named link only: the other links of the same contact and parent, read back, are unchanged',
    requirements: ['LINK-013', 'LINK-015'],
    mutates: true,
  },
  async (t) => {
    const [r1, r2] = await relationships(t);
    const p1 = await linkParent(t);
    // p2 and p3 are found by their IDs (the snapshots compare the links as read, before and after)
    const p2 = await linkParentById(t, 'Incident');
    const p3 = await linkParentById(t);
    const c = await contact(t);
    const other = await contact(t);
    const f = await unlinkedFile(t, 'neighbour.txt');
    const contactLink = (p: { domain: string; id: number }, who: { contactId: number }, relationship?: string) =>
      linkArgs(p, 'Contact', who.contactId, relationship);
    await step(t.links.upsert(contactLink(p1, c, r1)), 'Upsert p1 -> contact');
    await step(t.links.upsert(contactLink(p2, c, r2)), 'Upsert p2 -> contact');
    await step(t.links.upsert(contactLink(p1, other, r2)), 'Upsert p1 -> other contact');
    await step(t.links.upsert(linkArgs(p1, 'File', f.fileId)), 'Upsert p1 -> file');
    await needsContactKeepsParents(t, c.contactId, [p1, p2]);
    // a contact's links with their relationships when the implementation offers the column
    const contactLinks = async (childId: number) => {
      const { rows, relationship } = await linkRowsWithRelationship(
        t,
        { childDomain: 'Contact', childRecordID: childId },
        LINK_COLUMNS,
        'links are compared without their relationships',
      );
      return linkSet(rows, relationship === undefined ? [] : [relationship]);
    };
    const snapshot = async () => ({
      c: await contactLinks(c.contactId),
      other: await contactLinks(other.contactId),
      f: linkSet(await linksOfChild(t, 'File', f.fileId)),
    });
    const before = await snapshot();
    expect(before.c, 'two links of the contact').toHaveLength(2);

    // Upsert of a new link: the contact gains exactly that link; everything else as before
    expectAccepted(await t.links.upsert(contactLink(p3, c, r1)), 'Upsert p3 -> contact');
    const afterUpsert = await snapshot();
    const added = afterUpsert.c.filter((x) => !before.c.includes(x));
    expect(added, 'exactly one new link of the contact').toHaveLength(1);
    expect(added[0], 'the new link is p3 -> contact').toContain(`/${p3.id}>${CONTACT_DOMAIN_ID}/${c.contactId}`);
    expect(
      afterUpsert.c.filter((x) => before.c.includes(x)),
      "the contact's other links, relationships included",
    ).toEqual(before.c);
    expect(afterUpsert.other, "another contact's link to the same parent").toEqual(before.other);
    expect(afterUpsert.f, "the parent's File link").toEqual(before.f);

    // Remove of one link: only that link goes. It is named with the relationship it was made with:
    // whether a relationship is part of a link's identity is not shown (4.4), and where it is, a
    // Remove without it names another link
    expectAccepted(await t.links.remove(contactLink(p1, c, r1)), 'Remove p1 -> contact');
    const afterRemove = await snapshot();
    const removed = `${p1.domainId}/${p1.id}>${CONTACT_DOMAIN_ID}/${c.contactId}`;
    const isRemoved = (x: string) => x.split(' ')[0] === removed;
    // a link lost with the removed one whose parent has its ID in another domain: the Remove named
    // its parent by ID alone, LINK-021's case (its own test), a step here
    const lost = afterUpsert.c.filter((x) => !isRemoved(x) && !afterRemove.c.includes(x));
    const sameIdElsewhere = (x: string) => {
      const [domainId, id] = x.split('>')[0]!.split('/');
      return Number(id) === p1.id && Number(domainId) !== p1.domainId;
    };
    if (lost.length > 0 && lost.every(sameIdElsewhere))
      await t.needs('LINK-021', 'Remove names its parent by domain and ID together', async () =>
        expect(lost, 'links of a parent with the same ID in another domain').toEqual([]),
      );
    expect(
      afterRemove.c.filter((x) => !isRemoved(x)),
      'the contact keeps its other links unchanged',
    ).toEqual(afterUpsert.c.filter((x) => !isRemoved(x)));
    expect(afterRemove.other, "another contact's link to the same parent stays").toEqual(before.other);
    expect(afterRemove.f, "the parent's File link stays").toEqual(before.f);
    // that the named link is gone is LINK-015's statement alone (LINK-013 is the Upsert above)
    judgedAlone('LINK-015', 'the removed link is gone', () =>
      expect(afterRemove.c.filter(isRemoved), 'the removed link is gone').toEqual([]),
    );
  },
);

conformance(
  {
    id: 'links.parents-with-equal-ids',
    title: 'parents in two domains with the same ID: Upsert, Link/Query and Remove on one never touch the other',
    requirements: ['LINK-021'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a link parent', { twinDomain: 'Incident' });
    const { twinDomain, twinDomainId } = p;
    if (twinDomain === undefined || twinDomainId === undefined)
      throw new PreconditionFailedError(
        `provider state 'a link parent' made no twin parent: its answer has no ${twinDomain === undefined ? 'twinDomain' : 'twinDomainId'}`,
      );
    const twin = { domain: twinDomain, domainId: twinDomainId, id: p.id };
    for (const x of [p, twin]) await needsListedDomainId(t, x.domain, x.domainId);
    const c = await contact(t);
    const link = (x: { domain: string; id: number }) => linkArgs(x, 'Contact', c.contactId);
    expectAccepted(await t.links.upsert(link(p)), `Upsert ${p.domain} ${p.id} -> contact`);
    expectAccepted(await t.links.upsert(link(twin)), `Upsert ${twin.domain} ${twin.id} -> contact`);
    await needsContactKeepsParents(t, c.contactId, [p, twin]);
    const rows = await linksOfChild(t, 'Contact', c.contactId);
    expect(linkSet(rows), 'two links, one per parent domain').toEqual(
      [
        `${p.domainId}/${p.id}>${CONTACT_DOMAIN_ID}/${c.contactId}`,
        `${twin.domainId}/${twin.id}>${CONTACT_DOMAIN_ID}/${c.contactId}`,
      ].sort(),
    );
    const ofTwin = await queryLinksBy(t, {
      parentDomain: twin.domain,
      [t.bindings.linkQuery.parentRecordId]: twin.id,
      childDomain: 'Contact',
      columns: LINK_COLUMNS,
    });
    expect(linkSet(ofTwin), `Link/Query of ${twin.domain} ${twin.id}`).toEqual([
      `${twin.domainId}/${twin.id}>${CONTACT_DOMAIN_ID}/${c.contactId}`,
    ]);
    await needsRemoveDeletes(t, p);
    expectAccepted(await t.links.remove(link(p)), `Remove ${p.domain} ${p.id} -> contact`);
    expect(linkSet(await linksOfChild(t, 'Contact', c.contactId)), 'the twin parent keeps its link').toEqual([
      `${twin.domainId}/${twin.id}>${CONTACT_DOMAIN_ID}/${c.contactId}`,
    ]);
  },
);

// ---------------------------------------------------------------------------------------------
// Implementation-defined (the reference's names and answers)

/** Hand-written reference bodies (implementation-defined tests only). */
async function rawLink(t: Ctx, op: 'Upsert' | 'Remove', body: Record<string, unknown>) {
  return t.raw(`/api/Link/${op}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}
async function refLinkRows(t: Ctx, childDomain: string, childId: number): Promise<Row[]> {
  return queryLinks(t, { childDomain, childRecordID: childId, columns: `${LINK_COLUMNS},LinkID,ContactTypeID` });
}

conformance(
  {
    id: 'links.ref-columns',
    title: 'reference: link rows offer LinkID and the relationship column ContactTypeID (integer or null)',
    requirements: ['LINK-007'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const [r1] = await relationships(t);
    const p1 = await linkParent(t);
    const p2 = await linkParent(t);
    const c = await contact(t);
    expectAccepted(
      await rawLink(t, 'Upsert', {
        ParentDomain: p1.domain,
        ParentRecordID: p1.id,
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
        Relationship: r1,
      }),
      'with relationship',
    );
    expectAccepted(
      await rawLink(t, 'Upsert', {
        ParentDomain: p2.domain,
        ParentRecordID: p2.id,
        ChildDomain: 'Contact',
        ChildRecordID: c.contactId,
      }),
      'without relationship',
    );
    const rows = await refLinkRows(t, 'Contact', c.contactId);
    const [withRel] = linksTo(rows, p1.domainId, p1.id);
    const [without] = linksTo(rows, p2.domainId, p2.id);
    expect(Number.isInteger(withRel.LinkID) && Number.isInteger(without.LinkID)).toBe(true);
    expect(withRel.LinkID).not.toBe(without.LinkID);
    expect(Number.isInteger(withRel.ContactTypeID), 'ContactTypeID is an integer when a relationship is set').toBe(
      true,
    );
    expect(without.ContactTypeID).toBeNull();
  },
);

conformance(
  {
    id: 'links.ref-upsert-body-and-answer',
    title:
      'reference: PascalCase Upsert body; answer IsSuccessful, LinkID, ParentRecordID, ChildRecordID; NewRelationship updates',
    requirements: ['LINK-016'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const [r1, r2] = await relationships(t);
    const p = await linkParent(t);
    const c = await contact(t);
    const res = await rawLink(t, 'Upsert', {
      ParentDomain: p.domain,
      ParentRecordKey: p.textMatchKey,
      ParentRecordMatchField: p.textMatchField,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: r1,
    });
    expect(res.status).toBe(200);
    const body = res.json as LinkUpsertResult;
    expect(body).toMatchObject({ IsSuccessful: true, ParentRecordID: p.id, ChildRecordID: c.contactId, Message: null });
    expect(Number.isInteger(body.LinkID)).toBe(true);
    const [row] = await refLinkRows(t, 'Contact', c.contactId);
    expect(row.LinkID).toBe(body.LinkID);
    const typeBefore = row.ContactTypeID;

    // Update the existing link's relationship with NewRelationship: same LinkID, new ContactTypeID.
    const upd = await rawLink(t, 'Upsert', {
      ParentDomain: p.domain,
      ParentRecordID: p.id,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
      Relationship: r1,
      NewRelationship: r2,
    });
    expect(upd.status).toBe(200);
    expect(upd.json).toMatchObject({ IsSuccessful: true, LinkID: body.LinkID });
    const rows = await refLinkRows(t, 'Contact', c.contactId);
    expect(rows).toHaveLength(1);
    expect(rows[0].LinkID).toBe(body.LinkID);
    expect(Number.isInteger(rows[0].ContactTypeID)).toBe(true);
    expect(rows[0].ContactTypeID).not.toBe(typeBefore);
  },
);

conformance(
  {
    id: 'links.ref-upsert-refusals',
    title: 'reference: a non-linkable child and a non-text/numeric match field are 400 MalformedRequest',
    requirements: ['LINK-016'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const c = await contact(t);
    const note = await linkParent(t, 'Note');
    const r1 = await rawLink(t, 'Upsert', {
      ParentDomain: p.domain,
      ParentRecordID: p.id,
      ChildDomain: 'Note',
      ChildRecordID: note.id,
    });
    expect(r1.status).toBe(400);
    expect((r1.json as Problem | undefined)?.code).toBe('MalformedRequest');
    const r2 = await rawLink(t, 'Upsert', {
      ParentDomain: p.domain,
      ParentRecordKey: String(p.id),
      ParentRecordMatchField: p.nonMatchableField,
      ChildDomain: 'Contact',
      ChildRecordID: c.contactId,
    });
    expect(r2.status).toBe(400);
    expect((r2.json as Problem | undefined)?.code).toBe('MalformedRequest');
    expect(await refLinkRows(t, 'Contact', c.contactId)).toHaveLength(0);
  },
);

conformance(
  {
    id: 'links.ref-remove-body-and-answer',
    title:
      'reference: Remove takes the Upsert fields, answers IsSuccessful and Message; a missing link answers IsSuccessful false',
    requirements: ['LINK-017'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await linkParent(t);
    const c = await contact(t);
    const ids = { ParentDomain: p.domain, ParentRecordID: p.id, ChildDomain: 'Contact', ChildRecordID: c.contactId };
    expect((await rawLink(t, 'Upsert', ids)).status).toBe(200);

    const res = await rawLink(t, 'Remove', {
      ...ids,
      ChildRecordID: undefined,
      ChildRecordKey: c.textMatchKey,
      ChildRecordMatchField: c.textMatchField,
    });
    expect(res.status).toBe(200);
    expect((res.json as LinkRemoveResult | undefined)?.IsSuccessful).toBe(true);
    expect(res.json).toHaveProperty('Message');
    expect(await refLinkRows(t, 'Contact', c.contactId)).toHaveLength(0);

    const again = await rawLink(t, 'Remove', ids);
    expect(again.status).toBe(200);
    const body = again.json as LinkRemoveResult;
    expect(body?.IsSuccessful).toBe(false);
    expect(typeof body?.Message).toBe('string');
    expect(body.Message).toMatch(/nothing|no link|not found|does not exist|no .*removed/i);
  },
);

conformance(
  {
    id: 'links.ref-child-side-names',
    title: 'reference: child-side names mirror the parent side in bodies and Link/Query parameters',
    requirements: ['LINK-018'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p1 = await linkParent(t);
    const p2 = await linkParent(t);
    const c = await contact(t);
    const res = await rawLink(t, 'Upsert', {
      ParentDomain: p1.domain,
      ParentRecordID: p1.id,
      ChildDomain: 'Contact',
      ChildRecordKey: c.numericMatchKey,
      ChildRecordMatchField: c.numericMatchField,
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ IsSuccessful: true, ChildRecordID: c.contactId });
    expect(
      (
        await rawLink(t, 'Upsert', {
          ParentDomain: p2.domain,
          ParentRecordID: p2.id,
          ChildDomain: 'Contact',
          ChildRecordID: c.contactId,
        })
      ).status,
    ).toBe(200);

    const q = (params: Q) => queryLinksBy(t, params);
    const byKey = await q({
      childDomain: 'Contact',
      childRecordKey: c.textMatchKey,
      childRecordMatchField: c.textMatchField,
      columns: LINK_COLUMNS,
    });
    expect(byKey).toHaveLength(2);
    for (const r of byKey) expect(r.ChildID).toBe(c.contactId);
    const byParent = await q({
      parentDomain: p1.domain,
      parentRecordID: p1.id,
      childDomain: 'Contact',
      columns: LINK_COLUMNS,
    });
    expect(byParent).toHaveLength(1);
    expect(byParent[0]).toMatchObject({ ParentID: p1.id, ChildID: c.contactId });
    const byParentKey = await q({
      parentDomain: p2.domain,
      parentRecordKey: p2.textMatchKey,
      parentRecordMatchField: p2.textMatchField,
      columns: LINK_COLUMNS,
    });
    expect(byParentKey).toHaveLength(1);
    expect(byParentKey[0]).toMatchObject({ ParentID: p2.id, ChildID: c.contactId });
    const noDomain = await t.raw(`/api/Link/Query?childRecordID=${c.contactId}`);
    expect(noDomain.status, 'Link/Query without parentDomain and childDomain').toBe(400);
  },
);

conformance(
  {
    id: 'links.ref-relationship-code-or-description',
    title:
      'reference: a relationship is accepted as Contact Type code or description and stored as ContactTypeID; unknown is 400',
    requirements: ['LINK-019'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p1 = await linkParent(t);
    const p2 = await linkParent(t);
    const p3 = await linkParent(t);
    const c = await contact(t);
    // The reference's Contact Type list: code ADJ, description Adjuster (docs/architecture.md 3).
    const base = { ChildDomain: 'Contact', ChildRecordID: c.contactId };
    expect(
      (await rawLink(t, 'Upsert', { ...base, ParentDomain: p1.domain, ParentRecordID: p1.id, Relationship: 'ADJ' }))
        .status,
    ).toBe(200);
    expect(
      (
        await rawLink(t, 'Upsert', {
          ...base,
          ParentDomain: p2.domain,
          ParentRecordID: p2.id,
          Relationship: 'Adjuster',
        })
      ).status,
    ).toBe(200);
    const bad = await rawLink(t, 'Upsert', {
      ...base,
      ParentDomain: p3.domain,
      ParentRecordID: p3.id,
      Relationship: 'NoSuchContactType',
    });
    expect(bad.status).toBe(400);
    const rows = await refLinkRows(t, 'Contact', c.contactId);
    expect(rows, 'the unknown relationship created no link').toHaveLength(2);
    const [a] = linksTo(rows, p1.domainId, p1.id);
    const [b] = linksTo(rows, p2.domainId, p2.id);
    expect(Number.isInteger(a.ContactTypeID)).toBe(true);
    expect(a.ContactTypeID).toBe(b.ContactTypeID);

    // The same ID filters links by relationship on Link/Query.
    const r = await t.raw(
      `/api/Link/Query?childDomain=Contact&childRecordID=${c.contactId}&relationship=ADJ&columns=ParentID,ContactTypeID`,
    );
    expect(r.status).toBe(200);
    expect((r.json as LinkList).List.length).toBe(2);
  },
);
