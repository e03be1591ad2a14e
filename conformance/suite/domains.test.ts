// DOM-*: domains, their names and the domain list (spec 1, 2.1, 4.4, 5).
import { expect } from 'vitest';
import { conformance } from '../src/suite-api/dsl.js';
import { isRefusal } from '../src/suite-api/meaning.js';
import { type Ctx, MAX_TAKE, enc, get, listOf, needsMaximumTake } from './support/request.js';
import { FULL_ACCESS, type Grants, type Permission } from './support/states.js';
import { expectStateRows } from './support/records-query.js';
import { CORE_DOMAIN_IDS, MAX_CORE_DOMAIN_ID } from './support/domain-ids.js';
import { customLinkParent } from './support/custom-domain.js';
import { domainEntries } from './support/domain-list.js';
import type { components } from '../../spec/generated/openapi.js';

/** An entry of the domain list as received (its shape is what DOM-003 checks). */
type Entry = Partial<components['schemas']['Domain']>;
type DomainList = components['schemas']['DomainList'];
type RecordEnvelope = components['schemas']['RecordEnvelope'];
type ListEnvelope = components['schemas']['ListEnvelope'];
type Problem = components['schemas']['Problem'];

/** The entries of GET /api/Domains (envelope through the bindings: the spec does not show it). */
async function listDomains(t: Ctx, token?: string): Promise<Entry[]> {
  const res = await get(t, '/api/Domains', undefined, token);
  expect(res.status, 'GET /api/Domains').toBeGreaterThanOrEqual(200);
  expect(res.status, 'GET /api/Domains').toBeLessThan(300);
  return domainEntries(t, res.json);
}

function names(list: Entry[]): string[] {
  return list.map((d) => d?.Name as string);
}

function caseVariants(name: string): string[] {
  const swapFirst =
    name.charAt(0) === name.charAt(0).toUpperCase()
      ? name.charAt(0).toLowerCase() + name.slice(1)
      : name.charAt(0).toUpperCase() + name.slice(1);
  return [...new Set([name.toLowerCase(), name.toUpperCase(), swapFirst])].filter((v) => v !== name);
}

conformance(
  {
    id: 'domains.name-is-case-sensitive',
    title: 'a differently cased domain name does not reach the domain on the record routes',
    requirements: ['DOM-001'],
  },
  async (t) => {
    const r = await t.given('a record with associations');
    // control: the exact name reaches the record
    const ok = await get(t, `/api/${enc(r.domain)}/${r.id}`, { columns: r.textField });
    expect(ok.status).toBe(200);
    expect((ok.json as RecordEnvelope).Record[r.textField]).toEqual(r.textValue);

    const variants = caseVariants(r.domain);
    expect(variants.length).toBeGreaterThan(0);
    for (const v of variants) {
      const one = await get(t, `/api/${enc(v)}/${r.id}`, { columns: r.textField });
      expect(isRefusal(one), `GET /api/${v}/${r.id} must not be served`).toBe(true);
      expect(one.text).not.toContain(String(r.textValue));
      const list = await get(t, `/api/${enc(v)}/Query`, { columns: r.textField });
      expect(isRefusal(list), `GET /api/${v}/Query must not be served`).toBe(true);
      const rows = (list.json as Partial<ListEnvelope> | undefined)?.List;
      expect(Array.isArray(rows) && rows.length > 0).toBe(false);
    }
  },
);

conformance(
  {
    id: 'domains.custom-domain-by-prefixed-name',
    title: 'a customer-defined domain is listed with its Custom. name and addressed by it on the record routes',
    requirements: ['DOM-002'],
  },
  async (t) => {
    // the fixture's custom domain (protocol 1.2.0), else one the list holds; that the list holds
    // the fixture's is DOM-008's rule (domains.list-includes-accessible)
    const fromState = await customLinkParent(t);
    const list = await listDomains(t);
    const custom = {
      Name:
        fromState?.domain ??
        names(list).find((n) => typeof n === 'string' && n.startsWith('Custom.')) ??
        t.notApplicable('the implementation offers no customer-defined domain'),
    };
    const recs = await t.given('records', { domain: custom.Name, count: 2 });
    expect(recs.domain).toBe(custom.Name);
    for (const id of recs.ids) {
      const res = await get(t, `/api/${enc(custom.Name)}/${id}`);
      expect(res.status).toBe(200);
      const body = res.json as RecordEnvelope;
      // the envelope is REC-001's rule (judged by its test): a step here
      await t.needs('REC-001', `GET /api/${custom.Name}/${id} answers {Record, Domain, Id}`, async () => {
        expect(body.Domain).toBe(custom.Name);
        expect(body.Id).toBe(id);
        expect(typeof body.Record).toBe('object');
      });
    }
    const asked = { [t.bindings.query.filter]: recs.filter, columns: recs.sortField };
    const q = await get(t, `/api/${enc(custom.Name)}/Query`, { ...asked, take: MAX_TAKE });
    await needsMaximumTake(t, `GET /api/${custom.Name}/Query`, q, MAX_TAKE, () =>
      get(t, `/api/${enc(custom.Name)}/Query`, { ...asked, take: MAX_TAKE - 1 }),
    );
    expect(q.status).toBe(200);
    await expectStateRows(t, recs, await listOf(t, `/api/${enc(custom.Name)}/Query`, q));
  },
);

conformance(
  {
    id: 'domains.entry-shape',
    title: 'each domain list entry has DomainID (integer), Name, DisplayNameSingular and DisplayNamePlural (strings)',
    requirements: ['DOM-003'],
  },
  async (t) => {
    const list = await listDomains(t);
    expect(list.length).toBeGreaterThan(0);
    for (const d of list) {
      expect(Number.isInteger(d.DomainID), `DomainID of ${JSON.stringify(d)}`).toBe(true);
      expect(typeof d.Name).toBe('string');
      expect(String(d.Name).length).toBeGreaterThan(0);
      expect(typeof d.DisplayNameSingular).toBe('string');
      expect(typeof d.DisplayNamePlural).toBe('string');
    }
    // names and IDs identify domains uniquely
    expect(new Set(names(list)).size).toBe(list.length);
    expect(new Set(list.map((d) => d.DomainID)).size).toBe(list.length);
  },
);

conformance(
  {
    id: 'domains.core-ids-fixed',
    title: 'the core domains carry their fixed DomainIDs',
    requirements: ['DOM-004'],
  },
  async (t) => {
    const list = await listDomains(t);
    for (const [name, id] of Object.entries(CORE_DOMAIN_IDS)) {
      const d = list.find((x) => x.Name === name);
      expect(d, `core domain ${name} is listed for a user with every permission`).toBeDefined();
      expect(d?.DomainID, `DomainID of ${name}`).toBe(id);
    }
  },
);

conformance(
  {
    id: 'domains.custom-ids-higher',
    title: 'every customer-defined domain has a DomainID higher than every core DomainID',
    requirements: ['DOM-005'],
  },
  async (t) => {
    const list = await listDomains(t);
    const customs = list.filter((d) => typeof d.Name === 'string' && d.Name.startsWith('Custom.'));
    if (customs.length === 0) t.notApplicable('the implementation offers no customer-defined domain');
    for (const c of customs) {
      expect(c.DomainID, `DomainID of ${c.Name}`).toBeGreaterThan(MAX_CORE_DOMAIN_ID);
    }
  },
);

conformance(
  {
    id: 'domains.member-and-proposal-listed',
    title: 'Member and Proposal are domains listed for a user who can access them',
    requirements: ['DOM-006'],
  },
  async (t) => {
    const list = await listDomains(t);
    expect(names(list)).toContain('Member');
    expect(names(list)).toContain('Proposal');
    const u = await t.given('a user', { grants: { Member: FULL_ACCESS, Proposal: FULL_ACCESS } });
    const limited = names(await listDomains(t, u.token));
    expect(limited).toContain('Member');
    expect(limited).toContain('Proposal');
  },
);

conformance(
  {
    id: 'domains.list-excludes-inaccessible',
    title: 'the domain list never includes a domain the caller cannot access',
    requirements: ['DOM-007'],
  },
  async (t) => {
    const u1 = await t.given('a user', { grants: { Claim: FULL_ACCESS, Note: FULL_ACCESS } });
    const l1 = names(await listDomains(t, u1.token));
    for (const n of l1) expect(['Claim', 'Note'], `domain ${n} listed without access`).toContain(n);

    const u2 = await t.given('a user', { grants: { Contact: FULL_ACCESS } });
    const l2 = names(await listDomains(t, u2.token));
    for (const n of l2) expect(['Contact'], `domain ${n} listed without access`).toContain(n);

    // the admin list is larger, so the restricted lists really were restricted
    const all = names(await listDomains(t));
    expect(all).toContain('Policy');
    expect(l1).not.toContain('Policy');
  },
);

conformance(
  {
    id: 'domains.list-includes-accessible',
    title: 'the domain list includes every domain the caller can access',
    requirements: ['DOM-008'],
  },
  async (t) => {
    // a custom domain the fixture says exists (protocol 1.2.0): the lists must hold it; without
    // one, the list's own custom domain (if any) is the one asked for
    const fromState = await customLinkParent(t);
    const all = await listDomains(t);
    if (fromState)
      expect(names(all), `the customer-defined domain ${fromState.domain} of the fixture is listed`).toContain(
        fromState.domain,
      );
    const custom =
      fromState?.domain ??
      (all.find((d) => typeof d.Name === 'string' && d.Name.startsWith('Custom.'))?.Name as string);
    const wanted = ['Claim', 'Note', 'Member', ...(custom ? [custom] : [])];
    const grants: Grants = {};
    for (const n of wanted) grants[n] = FULL_ACCESS;
    const u = await t.given('a user', { grants });
    const l = names(await listDomains(t, u.token));
    for (const n of wanted) expect(l, `accessible domain ${n}`).toContain(n);

    // every domain in the admin's list is in the admin's list with the same ID as for the user
    const ul = await listDomains(t, u.token);
    for (const d of ul) {
      const a = all.find((x) => x.Name === d.Name);
      expect(a?.DomainID).toBe(d.DomainID);
    }
  },
);

conformance(
  {
    id: 'domains.reference-envelope-and-view',
    title:
      'the reference answers GET /api/Domains with {List: [...]} only, and lists a domain exactly when View is held',
    requirements: ['DOM-009'],
    profile: 'implementation-defined',
  },
  async (t) => {
    const admin = await get(t, '/api/Domains');
    expect(admin.status).toBe(200);
    expect(admin.headers.get('content-type') ?? '').toMatch(/application\/json/);
    expect(Object.keys(admin.json as DomainList)).toEqual(['List']);
    expect(Array.isArray((admin.json as DomainList).List)).toBe(true);

    const noView: Permission[] = ['Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles', 'Full'];
    const u = await t.given('a user', { grants: { Claim: noView, Note: ['View'] } });
    const res = await get(t, '/api/Domains', undefined, u.token);
    expect(res.status).toBe(200);
    const l = (res.json as DomainList).List.map((d) => d.Name);
    expect(l).toEqual(['Note']);
  },
);

conformance(
  {
    id: 'domains.unknown-domain-is-a-failure',
    title: 'a request naming an unknown domain fails: it is not a success carrying data',
    requirements: ['DOM-011'],
    classes: ['DOM-011:unknown-name', 'DOM-011:unknown-custom-name'],
  },
  async (t) => {
    const r = await t.given('a record with associations');
    for (const domain of ['NoSuchDomainXyz', 'Custom.NoSuchXyz']) {
      for (const path of [
        `/api/${enc(domain)}/${r.id}`,
        `/api/${enc(domain)}/Query`,
        `/api/${enc(domain)}/${r.id}/Files`,
      ]) {
        const res = await get(t, path);
        expect(isRefusal(res), `${path} must fail (answer: ${res.status} ${res.text.slice(0, 200)})`).toBe(true);
      }
    }
    // control: the known domain serves the same ID
    expect(isRefusal(await get(t, `/api/${enc(r.domain)}/${r.id}`)), 'the known domain').toBe(false);
  },
);

conformance(
  {
    id: 'domains.reference-unknown-domain-404',
    title: 'the reference answers an unknown or wrongly cased domain with 404 UnknownDomain',
    requirements: ['DOM-010', 'GEN-003'],
    profile: 'implementation-defined',
  },
  async (t) => {
    const r = await t.given('a record with associations');
    const wrong = r.domain.toLowerCase() === r.domain ? r.domain.toUpperCase() : r.domain.toLowerCase();
    const paths = [
      `/api/NoSuchDomainXyz/${r.id}`,
      `/api/${enc(wrong)}/${r.id}`,
      `/api/NoSuchDomainXyz/Query`,
      `/api/${enc(wrong)}/Query`,
      `/api/NoSuchDomainXyz/${r.id}/Files`,
      `/api/${enc(wrong)}/${r.id}/Files`,
      `/api/Custom.NoSuchXyz/${r.id}`,
    ];
    for (const p of paths) {
      const res = await get(t, p);
      expect(res.status, p).toBe(404);
      expect(res.headers.get('content-type') ?? '', p).toMatch(/application\/problem\+json/);
      expect(res.json, p).toMatchObject({ status: 404, code: 'UnknownDomain' });
      const problem = res.json as Problem;
      expect(typeof problem.title).toBe('string');
      expect(typeof problem.type).toBe('string');
      expect(typeof problem.detail).toBe('string');
    }
  },
);
