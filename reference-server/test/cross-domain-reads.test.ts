// Reads that reach another domain through an association (issue 35): a dotted column, filter or
// sort (`Location.Name`) and a resolved association name read a record of the target domain. The
// spec does not say what a user without View on that domain gets; the reference refuses with 403
// Forbidden (docs/implementation-defined.md, "cross-domain reads"), as a direct read of that
// domain would be refused. Before, a user with View on Claim only read, filtered and sorted on
// Location.* though Location was not in their domain list.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertRow } from '../src/db.js';
import { enc, expectDocumented, expectProblem, harness, type Harness } from './app-core.harness.js';

let h: Harness;
let claimId: number;
let inspectionId: number;
beforeEach(() => {
  h = harness();
  const location = insertRow(h.deps.db, h.deps.dict.get('Location')!, { Name: 'Secret HQ' });
  claimId = insertRow(h.deps.db, h.deps.dict.get('Claim')!, { ClaimNumber: 'X-1', LocationID: location });
  inspectionId = insertRow(h.deps.db, h.deps.dict.get('Custom.Inspection')!, {
    InspectionNumber: 'I-1',
    LocationID: location,
  });
});
afterEach(() => h.close());

const CASES = [
  { domain: 'Claim', id: () => claimId, plain: 'ClaimNumber', value: 'X-1' },
  { domain: 'Custom.Inspection', id: () => inspectionId, plain: 'InspectionNumber', value: 'I-1' },
];

/** Every way a request of `domain` reads Location through the association `Location`. */
function reaching(domain: string, id: number): Array<[string, string, string]> {
  const q = `/api/${domain}/Query`;
  return [
    [`/api/${domain}/${id}?columns=${enc('Location.Name')}`, '/api/{domain}/{id}', 'dotted column (record)'],
    [`/api/${domain}/${id}?columns=${enc('Location.Name as Where')}`, '/api/{domain}/{id}', 'aliased dotted column'],
    [
      `/api/${domain}/${id}?columns=Location&resolveAssociationNames=true`,
      '/api/{domain}/{id}',
      'resolved name (record)',
    ],
    [`${q}?columns=${enc('Location.City')}`, '/api/{domain}/Query', 'dotted column (query)'],
    [`${q}?columns=Location&resolveAssociationNames=true`, '/api/{domain}/Query', 'resolved name (query)'],
    [`${q}?filter=${enc('Location.Name:eq:Secret HQ')}`, '/api/{domain}/Query', 'filter'],
    [`${q}?linqFilter=${enc('Location.Name.StartsWith("S")')}`, '/api/{domain}/Query', 'linqFilter'],
    [`${q}?sort=${enc('Location.Name desc')}`, '/api/{domain}/Query', 'sort'],
  ];
}

describe('cross-domain reads through associations (implementation-defined)', () => {
  for (const c of CASES) {
    it(`${c.domain}: without View on Location, every read that reaches it is 403 Forbidden`, async () => {
      const token = h.userToken({ [c.domain]: ['View'] });
      const domains = await h.get('/api/Domains', token);
      expect(domains.json.List.map((d: { Name: string }) => d.Name)).toEqual([c.domain]);
      for (const [path, template, what] of reaching(c.domain, c.id())) {
        const r = await h.get(path, token);
        expectProblem(r, 403, 'Forbidden');
        expect(r.json.detail, what).toContain("'Location'");
        expect(r.text, what).not.toContain('Secret HQ');
        expectDocumented(r, 'get', template);
      }
    });

    it(`${c.domain}: reads that stay in the domain are served (the stored reference, a bare association)`, async () => {
      const token = h.userToken({ [c.domain]: ['View'] });
      const one = await h.get(`/api/${c.domain}/${c.id()}?columns=${enc(`${c.plain},LocationID,Location`)}`, token);
      expect(one.status, one.text).toBe(200);
      expect(one.json.Record).toEqual({ [c.plain]: c.value, LocationID: expect.any(Number), Location: null });
      const q = await h.get(`/api/${c.domain}/Query?columns=${enc(c.plain)}&sort=LocationID`, token);
      expect(q.status, q.text).toBe(200);
      expect(q.json.List).toEqual([{ [c.plain]: c.value }]);
    });

    it(`${c.domain}: with View on Location too, the same reads are served`, async () => {
      const token = h.userToken({ [c.domain]: ['View'], Location: ['View'] });
      for (const [path, template, what] of reaching(c.domain, c.id())) {
        const r = await h.get(path, token);
        expect(r.status, `${what}: ${r.text}`).toBe(200);
        expectDocumented(r, 'get', template);
      }
      const r = await h.get(`/api/${c.domain}/${c.id()}?columns=${enc('Location.Name')}`, token);
      expect(r.json.Record).toEqual({ 'Location.Name': 'Secret HQ' });
    });
  }

  it('an unknown property is still 400 for a user without View on the target (no difference to probe)', async () => {
    const token = h.userToken({ Claim: ['View'] });
    expectProblem(await h.get(`/api/Claim/${claimId}?columns=${enc('Location.Nope')}`, token), 400, 'UnknownColumn');
    expectProblem(await h.get(`/api/Claim/Query?filter=${enc('Location.Nope:eq:x')}`, token), 400, 'InvalidFilter');
  });
});
