// Member creation: POST /api/Quotes/Proposals/{proposalId}/CreateMember (spec 2.6, 3, 4.5, 7).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { harness, type H } from './support/proposal-harness.js';

const P = (id: number | string) => `/api/Quotes/Proposals/${id}`;
const createMember = (h: H, id: number | string, init: { body?: unknown; raw?: string; token?: string } = {}) =>
  h.call('POST', `${P(id)}/CreateMember`, init);
const count = (h: H, table: string) =>
  (h.deps.db.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n;
const proposalRow = (h: H, id: number) =>
  h.deps.db.prepare(`SELECT * FROM "Proposal" WHERE ProposalID = ?`).get(id) as Record<string, any>;

let h: H;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.created.close());

describe('CreateMember', () => {
  it('MEM-001 MEM-002 MEM-010: creates a Member from the applicant data and assigns it to the proposal', async () => {
    const p = await h.proposal();
    const res = await createMember(h, p.proposalId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(Object.keys(res.json).sort()).toEqual(['IsSuccessful', 'Message', 'RecordID']);
    expect(res.json.IsSuccessful).toBe(true);
    expect(res.json.Message).toBeNull();
    expect(Number.isInteger(res.json.RecordID) && res.json.RecordID > 0).toBe(true);
    const prop = proposalRow(h, p.proposalId);
    expect(prop.MemberID).toBe(res.json.RecordID);
    // the Member record, read through the generic record route
    const m = await h.call('GET', `/api/Member/${res.json.RecordID}`);
    expect(m.status).toBe(200);
    expect(m.json.Record).toMatchObject({
      Name: p.applicantName,
      Address1: prop.ApplicantAddress1,
      City: prop.ApplicantCity,
      StateCode: prop.ApplicantStateCode,
      ZipCode: prop.ApplicantZipCode,
    });
  });

  it('MEM-004 MEM-008 MEM-010: any request body is ignored; member fields cannot be overridden or added', async () => {
    const p = await h.proposal();
    const res = await createMember(h, p.proposalId, { body: { Name: 'Override', City: 'Elsewhere', Extra: 1 } });
    expect(res.status).toBe(200);
    expect(res.json.IsSuccessful).toBe(true);
    const m = h.deps.db.prepare(`SELECT * FROM "Member" WHERE MemberID = ?`).get(res.json.RecordID) as any;
    expect(m.Name).toBe(p.applicantName);
    expect(m.City).not.toBe('Elsewhere');
    // even a body that is not JSON is ignored
    const q = await h.proposal();
    const res2 = await createMember(h, q.proposalId, { raw: '{broken' });
    expect(res2.status).toBe(200);
    expect(res2.json.IsSuccessful).toBe(true);
  });

  it('MEM-003 MEM-005: a second CreateMember answers 500 with a JSON string and creates nothing', async () => {
    const p = await h.proposal();
    const first = await createMember(h, p.proposalId);
    expect(first.json.IsSuccessful).toBe(true);
    const members = count(h, 'Member');
    const res = await createMember(h, p.proposalId);
    expect(res.status).toBe(500);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.json).toBe('MemberID is already assigned to Proposal record.');
    expect(count(h, 'Member')).toBe(members);
    expect(proposalRow(h, p.proposalId).MemberID).toBe(first.json.RecordID);
  });

  it('MEM-005: a proposal created with a member refuses CreateMember the same way', async () => {
    const p = await h.proposal({ hasMember: true });
    expect(p.memberId).toBeGreaterThan(0);
    const members = count(h, 'Member');
    const res = await createMember(h, p.proposalId);
    expect(res.status).toBe(500);
    expect(typeof res.json).toBe('string');
    expect(res.json).toMatch(/MemberID is already assigned/);
    expect(count(h, 'Member')).toBe(members);
  });

  it('MEM-006: invalid applicant data answers 200 with IsSuccessful false and the detail in Message', async () => {
    const p = await h.proposal({ applicantValid: false });
    const members = count(h, 'Member');
    const res = await createMember(h, p.proposalId);
    expect(res.status).toBe(200);
    expect(res.json.IsSuccessful).toBe(false);
    expect(res.json.RecordID).toBe(0);
    expect(res.json.Message).toMatch(/ApplicantName/);
    expect(count(h, 'Member')).toBe(members);
    expect(proposalRow(h, p.proposalId).MemberID).toBeNull();
    // a null name fails the same way
    h.deps.db.prepare(`UPDATE "Proposal" SET ApplicantName = NULL WHERE ProposalID = ?`).run(p.proposalId);
    const res2 = await createMember(h, p.proposalId);
    expect(res2.json).toMatchObject({ IsSuccessful: false, RecordID: 0 });
  });

  it('MEM-007: binding needs the member CreateMember creates', async () => {
    const p = await h.proposal({ rated: true });
    const refused = await h.call('POST', `${P(p.proposalId)}/BindQuote`);
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toMatch(/MemberID is null/);
    expect((await createMember(h, p.proposalId)).json.IsSuccessful).toBe(true);
    const bound = await h.call('POST', `${P(p.proposalId)}/BindQuote`);
    expect(bound.status).toBe(200);
    expect(bound.json.MemberName).toBe(p.applicantName);
  });

  it('PROP-007 GEN-004 AUTH-012: missing proposal 404, bad ID 400, Edit on Proposal required, token required', async () => {
    const missing = await createMember(h, 99999999);
    expect(missing.status).toBe(404);
    expect(missing.json.code).toBe('RecordNotFound');
    expect((await createMember(h, 'x1')).status).toBe(400);
    const p = await h.proposal();
    const viewer = h.userToken({ Proposal: ['View'], Member: ['View', 'Edit'] });
    const denied = await createMember(h, p.proposalId, { token: viewer });
    expect(denied.status).toBe(403);
    expect(denied.json.code).toBe('Forbidden');
    const anon = await h.call('POST', `${P(p.proposalId)}/CreateMember`, { token: null });
    expect(anon.status).toBe(401);
    expect(proposalRow(h, p.proposalId).MemberID).toBeNull();
  });
});
