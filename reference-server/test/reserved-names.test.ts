// Hostile names (issue 35): every place the server reads a name from a request (columns, filter,
// linqFilter, sort, dotted and aliased names, the record read, link match fields, schedule fields,
// domains, provider-state parameters) with names every JavaScript object inherits (`constructor`,
// `__proto__`, `toString`...) and SQL words, on a core and a `Custom.` domain. Each is an unknown
// name: a documented 4xx problem (or, as an alias, a plain key), never a 500, and nothing is written.
// Before the fix `Custom2Code.constructor` passed the coded-property check and reached SQL (500).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertRow } from '../src/db.js';
import { enc, expectDocumented, expectProblem, harness, type Harness, type Res } from './app-core.harness.js';
import { INHERITED, RESERVED_NAMES as NAMES } from './reserved-names.js';

/** A core and a `Custom.` domain, each with an association and a coded field. */
const DOMAINS = [
  { domain: 'Claim', assoc: 'Location', coded: 'Custom2Code', plain: 'ClaimNumber' },
  { domain: 'Custom.Inspection', assoc: 'Location', coded: 'Severity', plain: 'InspectionNumber' },
];

let h: Harness;
let ids: Map<string, number>;
beforeEach(() => {
  h = harness();
  const location = insertRow(h.deps.db, h.deps.dict.get('Location')!, { Name: 'Reserved HQ' });
  ids = new Map([
    ['Claim', insertRow(h.deps.db, h.deps.dict.get('Claim')!, { ClaimNumber: 'R-1', LocationID: location })],
    [
      'Custom.Inspection',
      insertRow(h.deps.db, h.deps.dict.get('Custom.Inspection')!, { InspectionNumber: 'I-1', LocationID: location }),
    ],
  ]);
});
afterEach(() => h.close());

/** Names built on `n` as they reach the column language: plain, dotted on each side, nested. */
function namesOf(d: (typeof DOMAINS)[number], n: string): string[] {
  return [n, `${d.assoc}.${n}`, `${d.coded}.${n}`, `${n}.Code`, `${n}.${n}`];
}

function expectRefused(r: Res, status: number, code: string, method: string, template: string, what: string) {
  expect(r.status, `${what}: ${r.text}`).toBe(status);
  expectProblem(r, status, code);
  expectDocumented(r, method, template);
}

describe('reserved names in the column language', () => {
  for (const d of DOMAINS) {
    it(`${d.domain}: columns, filter, linqFilter, sort and the record read refuse every reserved name with a 400`, async () => {
      const id = ids.get(d.domain)!;
      const q = `/api/${d.domain}/Query`;
      for (const n of NAMES) {
        for (const name of namesOf(d, n)) {
          const cases: Array<[string, string, string, string]> = [
            [`${q}?columns=${enc(name)}`, 'UnknownColumn', '/api/{domain}/Query', 'columns'],
            [`${q}?columns=${enc(`${d.plain},${name} as X`)}`, 'UnknownColumn', '/api/{domain}/Query', 'aliased'],
            [`${q}?filter=${enc(`${name}:eq:x`)}`, 'InvalidFilter', '/api/{domain}/Query', 'filter'],
            [`${q}?linqFilter=${enc(`${name} == "x"`)}`, 'InvalidFilter', '/api/{domain}/Query', 'linqFilter'],
            [`${q}?linqFilter=${enc(`${name}.Contains("x")`)}`, 'InvalidFilter', '/api/{domain}/Query', 'Contains'],
            [`${q}?sort=${enc(`${name} desc`)}`, 'UnknownColumn', '/api/{domain}/Query', 'sort'],
            [
              `${q}?columns=${enc(name)}&resolveAssociationNames=true`,
              'UnknownColumn',
              '/api/{domain}/Query',
              'resolve',
            ],
            [`/api/${d.domain}/${id}?columns=${enc(name)}`, 'UnknownColumn', '/api/{domain}/{id}', 'record read'],
          ];
          for (const [path, code, template, what] of cases) {
            // `NULL == "x"` is the null literal on the left: still an invalid filter
            expectRefused(await h.get(path), 400, code, 'get', template, `${what} ${name}`);
          }
        }
      }
    });

    it(`${d.domain}: a reserved name as an alias is a plain key of the record (except __proto__, which is refused)`, async () => {
      const id = ids.get(d.domain)!;
      for (const n of NAMES) {
        const cols = enc(`${d.plain} as ${n}`);
        const one = await h.get(`/api/${d.domain}/${id}?columns=${cols}`);
        const many = await h.get(`/api/${d.domain}/Query?columns=${cols}&take=1`);
        if (n === '__proto__') {
          expectRefused(one, 400, 'MalformedRequest', 'get', '/api/{domain}/{id}', 'alias');
          expectRefused(many, 400, 'MalformedRequest', 'get', '/api/{domain}/Query', 'alias');
          continue;
        }
        expect(one.status, one.text).toBe(200);
        expectDocumented(one, 'get', '/api/{domain}/{id}');
        expect(Object.keys(one.json.Record)).toEqual([n]);
        expect(Object.hasOwn(one.json.Record, n)).toBe(true);
        expect(typeof one.json.Record[n]).toBe('string');
        expect(many.status, many.text).toBe(200);
        expect(Object.keys(many.json.List[0])).toEqual([n]);
      }
    });
  }

  it('a reserved or SQL name as a domain is an unknown domain (404)', async () => {
    for (const n of NAMES) {
      expectRefused(await h.get(`/api/${enc(n)}/Query`), 404, 'UnknownDomain', 'get', '/api/{domain}/Query', n);
      expectRefused(await h.get(`/api/${enc(n)}/1`), 404, 'UnknownDomain', 'get', '/api/{domain}/{id}', n);
      expectRefused(
        await h.get(`/api/Custom.${enc(n)}/Query`),
        404,
        'UnknownDomain',
        'get',
        '/api/{domain}/Query',
        `Custom.${n}`,
      );
    }
  });
});

describe('reserved names in link match fields', () => {
  it('Link/Upsert, Link/Remove and Link/Query refuse a reserved match field on either side; no link is written', async () => {
    const c = await h.state('a contact');
    const claim = ids.get('Claim')!;
    for (const n of NAMES) {
      const bodies = [
        {
          ParentDomain: 'Claim',
          ParentRecordMatchField: n,
          ParentRecordKey: 'R-1',
          ChildDomain: 'Contact',
          ChildRecordID: c.contactId,
        },
        {
          ParentDomain: 'Claim',
          ParentRecordID: claim,
          ChildDomain: 'Contact',
          ChildRecordMatchField: n,
          ChildRecordKey: 'x',
        },
        {
          ParentDomain: 'Custom.Inspection',
          ParentRecordMatchField: n,
          ParentRecordKey: 1,
          ChildDomain: 'Contact',
          ChildRecordID: c.contactId,
        },
      ];
      for (const body of bodies) {
        expectRefused(
          await h.call('POST', '/api/Link/Upsert', { body }),
          400,
          'MalformedRequest',
          'post',
          '/api/Link/Upsert',
          n,
        );
        expectRefused(
          await h.call('POST', '/api/Link/Remove', { body }),
          400,
          'MalformedRequest',
          'post',
          '/api/Link/Remove',
          n,
        );
      }
      for (const qs of [
        `parentDomain=Claim&parentRecordMatchField=${enc(n)}&parentRecordKey=R-1`,
        `childDomain=Contact&childRecordMatchField=${enc(n)}&childRecordKey=x`,
        `parentDomain=Claim&columns=${enc(n)}`,
      ]) {
        const r = await h.get(`/api/Link/Query?${qs}`);
        expect(r.status, `${qs}: ${r.text}`).toBe(400);
        expectDocumented(r, 'get', '/api/Link/Query');
      }
    }
    expect(h.count('links')).toBe(0);
  });
});

describe('reserved names in schedule fields and provider-state parameters', () => {
  it('UpsertMulti: a reserved field name fails its item (nothing stored); a reserved schedule domain is 404', async () => {
    const p = await h.state('a proposal', { type: 'Quote', locations: 0 });
    const base = `/api/Quotes/Proposals/${p.proposalId}/Schedules`;
    for (const n of NAMES) {
      const r = await h.call('POST', `${base}/ProposalLocation/UpsertMulti?isAtomic=true`, {
        body: { Inserts: [{ Fields: { LocationName: 'x', [n]: 'v' } }], Updates: [], Deletes: [] },
      });
      expect(r.status, `${n}: ${r.text}`).toBe(200);
      expectDocumented(r, 'post', '/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/UpsertMulti');
      expect(r.json.Inserts).toHaveLength(1);
      expect(r.json.Inserts[0]).toMatchObject({ IsSuccessful: false, RecordID: 0 });
      const wrong = await h.call('POST', `${base}/${enc(n)}/UpsertMulti`, {
        body: { Inserts: [{ Fields: { LocationName: 'x' } }], Updates: [], Deletes: [] },
      });
      expectRefused(
        wrong,
        404,
        'InvalidScheduleDomain',
        'post',
        '/api/Quotes/Proposals/{proposalId}/Schedules/{domain}/UpsertMulti',
        n,
      );
    }
    expect(h.count('ProposalLocation', 'ProposalID = ?', p.proposalId)).toBe(0);
  });

  it('provider states: a reserved state, setting or status name is a 400, never a 500', async () => {
    for (const n of INHERITED) {
      const post = (state: string, params: Record<string, unknown>) =>
        h.call('POST', '/_provider-states', {
          body: { state, params: { setupId: `r-${n}`, ...params }, action: 'setup' },
          token: null,
        });
      for (const r of [
        await post(n, {}),
        await post('a setting', { name: n, value: true }),
        await post('a proposal', { type: 'Quote', status: n }),
        await post('a proposal', { type: n }),
      ]) {
        expect(r.status, `${n}: ${r.text}`).toBe(400);
        expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
    }
    expect(h.deps.settings.enhancedSessionIDSecurity).toBe(true);
  });
});
