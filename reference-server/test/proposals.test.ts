// Proposals: modifiability, missing proposals, permissions, the provider state and the demo seed
// (spec 2.7, 3, 4.5, 7; architecture section 5).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedProposals } from '../src/proposals/seed.js';
import { harness, type H } from './support/proposal-harness.js';

const P = (id: number | string) => `/api/Quotes/Proposals/${id}`;
/** An UpsertMulti call; arrays the test leaves out are sent empty (the reference requires all three). */
const upsert = (h: H, id: number | string, body: object, q = '') =>
  h.call('POST', `${P(id)}/Schedules/ProposalLocation/UpsertMulti${q}`, {
    body: { Inserts: [], Updates: [], Deletes: [], ...body },
  });
const del = (h: H, id: number | string, sid: number | string) =>
  h.call('DELETE', `${P(id)}/Schedules/ProposalLocation/${sid}`);
function dump(h: H): string {
  const tables = h.deps.db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'state_objects' ORDER BY name`)
    .all() as Array<{ name: string }>;
  const out: Record<string, unknown[]> = {};
  for (const t of tables) out[t.name] = h.deps.db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).all();
  return JSON.stringify(out);
}
const count = (h: H, table: string) =>
  (h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;

let h: H;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.created.close());

const NON_MODIFIABLE: Array<[string, Record<string, unknown>]> = [
  ['PROP-002 status B', { status: 'B' }],
  ['PROP-002 status R', { status: 'R' }],
  ['PROP-002 status 0', { status: '0' }],
  ['PROP-003 bound proposal set', { boundSet: true }],
  ['PROP-004 pending expiry-date change', { pendingExpiryChange: true }],
];

describe('modifiability (spec 3)', () => {
  for (const [name, params] of NON_MODIFIABLE) {
    it(`${name} PROP-005 SCHED-025: UpsertMulti answers 409, every item fails naming the proposal, nothing changes`, async () => {
      const p = await h.proposal({ ...params, locations: 2 });
      const [a, b] = p.locationIds;
      const before = dump(h);
      for (const q of ['', '?isAtomic=true']) {
        const res = await upsert(
          h,
          p.proposalId,
          {
            Inserts: [{ Fields: { LocationName: 'New' } }, { Fields: { LocationName: 'New 2' } }],
            Updates: [{ ID: a, Fields: { City: 'X' } }],
            Deletes: [{ ID: b }],
          },
          q,
        );
        expect(res.status).toBe(409);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const all = [...res.json.Inserts, ...res.json.Updates, ...res.json.Deletes];
        expect(all).toHaveLength(4);
        for (const r of all) {
          expect(r.IsSuccessful).toBe(false);
          expect(r.Warnings).toBeNull();
          expect(r.Message).toContain(String(p.proposalId));
          expect(r.Message).toMatch(/cannot be modified/i);
        }
        expect(res.json.Inserts.map((r: any) => [r.OrderNumber, r.RecordID])).toEqual([
          [0, 0],
          [1, 0],
        ]);
        expect(res.json.Updates[0]).toMatchObject({ OrderNumber: 0, RecordID: a });
        expect(res.json.Deletes[0]).toMatchObject({ OrderNumber: 0, RecordID: 0 });
      }
      expect(dump(h)).toBe(before);
    });

    it(`${name} SCHED-018 SCHED-025: DELETE answers 409 with the documented result and the record stays`, async () => {
      const p = await h.proposal({ ...params, type: 'Endorsement', locations: 1 });
      const before = dump(h);
      const res = await del(h, p.proposalId, p.locationIds[0]);
      expect(res.status).toBe(409);
      expect(Object.keys(res.json).sort()).toEqual(['IsSuccessful', 'Message', 'OrderNumber', 'RecordID', 'Warnings']);
      expect(res.json).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null, Warnings: null });
      expect(res.json.Message).toContain(`ID# ${p.proposalId}`);
      expect(res.json.Message).toMatch(/cannot be modified/i);
      expect(dump(h)).toBe(before);
      // Reinstate has the same precondition
      const rr = await h.call('POST', `${P(p.proposalId)}/Schedules/ProposalLocation/${p.locationIds[0]}/Reinstate`);
      expect(rr.status).toBe(409);
      expect(rr.json).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null, Warnings: null });
      expect(rr.json.Message).toMatch(/cannot be modified/i);
      expect(dump(h)).toBe(before);
    });
  }

  it('PROP-006: an open proposal has status Q and is modifiable', async () => {
    const p = await h.proposal({ status: 'open' });
    const row = h.deps.db.prepare(`SELECT StatusCode FROM "Proposal" WHERE ProposalID = ?`).get(p.proposalId) as any;
    expect(row.StatusCode).toBe('Q');
    const res = await upsert(h, p.proposalId, { Inserts: [{ Fields: { LocationName: 'ok' } }] });
    expect(res.status).toBe(200);
    expect(res.json.Inserts[0].IsSuccessful).toBe(true);
  });
});

describe('PROP-007 missing proposal, bad IDs, permissions', () => {
  const ops = (id: string | number): Array<[string, string, unknown?]> => [
    ['GET', `${P(id)}/BindStatus`],
    ['POST', `${P(id)}/QueueBindQuote`],
    ['POST', `${P(id)}/BindQuote`],
    ['POST', `${P(id)}/CreateMember`],
    ['POST', `${P(id)}/Schedules/ProposalLocation/UpsertMulti`, { Inserts: [] }],
    ['DELETE', `${P(id)}/Schedules/ProposalLocation/1`],
    ['POST', `${P(id)}/Schedules/ProposalLocation/1/Reinstate`],
  ];

  it('PROP-007 GEN-003: a proposal ID that does not exist is 404 RecordNotFound on every operation', async () => {
    for (const [m, path, body] of ops(987654321)) {
      const r = await h.call(m, path, { body });
      expect(r.status, `${m} ${path}`).toBe(404);
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.json).toMatchObject({ status: 404, code: 'RecordNotFound' });
      expect(typeof r.json.detail).toBe('string');
    }
  });

  it('GEN-004: a non-integer proposal ID is 400 MalformedRequest on every operation', async () => {
    for (const [m, path, body] of ops('12x')) {
      const r = await h.call(m, path, { body });
      expect(r.status, `${m} ${path}`).toBe(400);
      expect(r.json.code).toBe('MalformedRequest');
    }
  });

  it('AUTH-011: every operation needs a token', async () => {
    const p = await h.proposal({ locations: 1 });
    for (const [m, path, body] of ops(p.proposalId)) {
      const r = await h.call(m, path, { body, token: null });
      expect(r.status, `${m} ${path}`).toBe(401);
      expect(r.json.code).toBe('Unauthenticated');
    }
  });

  it('AUTH-012: reading needs View on Proposal, changing needs Edit; refusals change nothing', async () => {
    const p = await h.proposal({ type: 'Endorsement', locations: 1, hasMember: true, rated: true });
    const viewer = h.userToken({ Proposal: ['View'], ProposalLocation: ['View', 'Edit'] });
    const before = dump(h);
    for (const [m, path, body] of ops(p.proposalId).map(
      ([m, path, b]) => [m, path.replace('/ProposalLocation/1', `/ProposalLocation/${p.locationIds[0]}`), b] as const,
    )) {
      const r = await h.call(m, path, { body, token: viewer });
      if (m === 'GET') expect(r.status, path).toBe(200);
      else {
        expect(r.status, `${m} ${path}`).toBe(403);
        expect(r.json.code).toBe('Forbidden');
      }
    }
    expect(dump(h)).toBe(before);
    const nobody = h.userToken({ Claim: ['View', 'Edit'] });
    expect((await h.call('GET', `${P(p.proposalId)}/BindStatus`, { token: nobody })).status).toBe(403);
  });
});

describe("provider state 'a proposal'", () => {
  const TYPES: Record<string, string> = {
    Quote: 'N',
    Application: 'A',
    Endorsement: 'E',
    Renewal: 'R',
    Rewrite: 'W',
    Reissue: 'I',
  };

  it('creates a proposal of each type with the requested options and returns the documented values', async () => {
    for (const [type, code] of Object.entries(TYPES)) {
      const v = await h.proposal({ type, locations: 2, hasMember: true, rated: true });
      expect(v).toMatchObject({
        type,
        scheduleDomain: 'ProposalLocation',
        requiredField: 'LocationName',
        otherScheduleDomain: 'ProposalVehicle',
      });
      expect(v.locationIds).toHaveLength(2);
      expect(typeof v.applicantName).toBe('string');
      expect(v.applicantName.length).toBeGreaterThan(0);
      const row = h.deps.db.prepare(`SELECT * FROM "Proposal" WHERE ProposalID = ?`).get(v.proposalId) as any;
      expect(row).toMatchObject({
        ProposalType: code,
        StatusCode: 'Q',
        RatingStatus: 'C',
        MemberID: v.memberId,
        PendingExpiryChange: 0,
      });
      expect(row.ApplicantName).toBe(v.applicantName);
    }
    const plain = await h.proposal({ type: 'Quote' });
    expect(plain.memberId).toBeNull();
    expect(plain.locationIds).toEqual([]);
    const row = h.deps.db.prepare(`SELECT * FROM "Proposal" WHERE ProposalID = ?`).get(plain.proposalId) as any;
    expect(row.RatingStatus).toBeNull();
    const invalid = await h.proposal({ applicantValid: false });
    expect(invalid.applicantName).toBe('');
  });

  it('refuses unknown parameter values with 400', async () => {
    for (const params of [{ type: 'Policy' }, { type: 'Quote', status: 'X' }, { type: 'Quote', locations: -1 }]) {
      const r = await h.call('POST', '/_provider-states', {
        body: { state: 'a proposal', params: { setupId: 'bad', ...params }, action: 'setup' },
        token: null,
      });
      expect(r.status, JSON.stringify(params)).toBe(400);
    }
  });

  it('teardown removes the proposal and everything created on it later', async () => {
    const baseline = dump(h);
    const params = { setupId: 'teardown-1', type: 'Quote', locations: 2, rated: true, boundSet: false };
    const v = await h.state('a proposal', params);
    const e = await h.state('a proposal', { setupId: 'teardown-2', type: 'Endorsement', locations: 1, boundSet: true });
    // later operations: member, schedules, vehicle, permanent delete, binding, soft delete
    expect((await h.call('POST', `${P(v.proposalId)}/CreateMember`)).json.IsSuccessful).toBe(true);
    await upsert(h, v.proposalId, {
      Inserts: [{ Fields: { LocationName: 'Later' } }],
      Deletes: [{ ID: v.locationIds[0] }],
    });
    await h.call('POST', `${P(v.proposalId)}/Schedules/ProposalVehicle/UpsertMulti`, {
      body: { Inserts: [{ Fields: { VIN: 'V1' } }] },
    });
    expect((await h.call('POST', `${P(v.proposalId)}/BindQuote`)).status).toBe(200);
    await h.call('POST', `${P(v.proposalId)}/QueueBindQuote`);
    h.deps.db.prepare(`UPDATE proposal_sets SET IsBound = 0`).run();
    expect((await del(h, e.proposalId, e.locationIds[0])).status).toBe(200);
    expect(count(h, 'Policy')).toBe(1);
    expect(count(h, 'DataEntryEvent')).toBe(1);
    expect(count(h, 'PolicyChange')).toBe(1);

    await h.state('a proposal', params, 'teardown');
    await h.state(
      'a proposal',
      { setupId: 'teardown-2', type: 'Endorsement', locations: 1, boundSet: true },
      'teardown',
    );
    expect(dump(h).replace(/"sqlite_sequence":\[[^\]]*\]/, '')).toBe(
      baseline.replace(/"sqlite_sequence":\[[^\]]*\]/, ''),
    );
    expect(count(h, 'state_objects')).toBe(0);
  });
});

describe('seedProposals', () => {
  it('seeds proposals of every type and status with locations and vehicles, once', async () => {
    const ids = seedProposals(h.deps);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    const rows = h.deps.db.prepare(`SELECT * FROM "Proposal"`).all() as any[];
    expect(new Set(rows.map((r) => r.ProposalType))).toEqual(new Set(['N', 'A', 'E', 'R', 'W', 'I']));
    expect(new Set(rows.map((r) => r.StatusCode))).toEqual(new Set(['Q', 'B', 'R', '0']));
    expect(rows.some((r) => r.PendingExpiryChange === 1)).toBe(true);
    expect(rows.some((r) => r.ProposalSetID !== null)).toBe(true);
    for (const id of ids) {
      expect(
        (h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "ProposalLocation" WHERE ProposalID = ?`).get(id) as any).n,
      ).toBeGreaterThan(0);
      expect(
        (h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "ProposalVehicle" WHERE ProposalID = ?`).get(id) as any).n,
      ).toBeGreaterThan(0);
    }
    const bound = rows.find((r) => r.StatusCode === 'B');
    const s = await h.call('GET', `${P(bound.ProposalID)}/BindStatus`);
    expect(s.json.Status).toBe('Bound');
    expect(s.json.PolicyNumber).toMatch(/^POL-/);
    expect(seedProposals(h.deps)).toEqual([]);
    expect(h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "Proposal"`).get()).toEqual({ n: rows.length });
  });
});
