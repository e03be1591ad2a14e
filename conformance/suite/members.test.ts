// Member creation (spec 2.6, 3, 4.5, 7): MEM-*.
//
// CreateMember builds the proposal's member from its applicant data. The association of the new
// member with the proposal is observed through binding: BindStatus of a bound proposal names its
// member (2.4). Member fields are not shown in the spec, so only the reference's are compared, in
// the implementation-defined profile.
import { expect } from 'vitest';
import { conformance } from '../src/dsl.js';
import { expectMentions } from '../src/meaning.js';
import { type Ctx } from './support/request.js';

const ALREADY = /already|assigned|exists/i;

/** POST CreateMember without a body (the operation takes none). */
async function createMember(t: Ctx, proposalId: number) {
  const res = await t.raw(`/api/Quotes/Proposals/${proposalId}/CreateMember`, { method: 'POST' });
  return res;
}

function expectCreationResult(body: any) {
  expect(body, 'member creation result').toBeTypeOf('object');
  expect(typeof body.IsSuccessful, 'IsSuccessful is a boolean').toBe('boolean');
  expect(Number.isInteger(body.RecordID), `RecordID is an integer (${JSON.stringify(body.RecordID)})`).toBe(true);
  expect(body.Message === null || typeof body.Message === 'string', 'Message is a string or null').toBe(true);
  expect(body).toHaveProperty('Message');
}

/** Binds the proposal (BindQuote) and reads BindStatus until it settles. */
async function bindAndRead(t: Ctx, proposalId: number) {
  await t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', { params: { path: { proposalId } } } as any);
  return t.poll(
    async () => {
      const r = await t.api.GET('/api/Quotes/Proposals/{proposalId}/BindStatus', {
        params: { path: { proposalId } },
      } as any);
      expect(r.response.status).toBe(200);
      return r.data as any;
    },
    (s) => s?.Status !== 'NotBound',
    { intervalMs: 100 }, // deadline: the run's --async-timeout
  );
}

async function readBindStatus(t: Ctx, proposalId: number) {
  const r = await t.api.GET('/api/Quotes/Proposals/{proposalId}/BindStatus', {
    params: { path: { proposalId } },
  } as any);
  expect(r.response.status).toBe(200);
  return r.data as any;
}

// ---------------------------------------------------------------------------------------------
// Core

conformance(
  {
    id: 'members.create-from-applicant',
    title: 'CreateMember without a body on a proposal without a member creates a Member record and assigns it',
    requirements: ['MEM-001', 'MEM-002', 'MEM-003', 'MEM-008'],
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true });
    const res = await createMember(t, p.proposalId);
    expect(res.status, `CreateMember: ${res.text}`).toBe(200);
    const body = res.json as any;
    expectCreationResult(body);
    expect(body.IsSuccessful).toBe(true);
    expect(body.RecordID, "the new member's ID").toBeGreaterThan(0);
    expect(body.Message).toBeNull();

    // The member is a Member record.
    const m = await t.api.GET('/api/{domain}/{id}', {
      params: { path: { domain: 'Member', id: body.RecordID } },
    } as any);
    expect(m.response.status, `GET /api/Member/${body.RecordID}`).toBe(200);
    expect(m.data).toMatchObject({ Domain: 'Member', Id: body.RecordID });

    // It is the proposal's member: binding (which requires a member) succeeds with it.
    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status, `bound after CreateMember (${s.ErrorMessage})`).toBe('Bound');
    expect(s.MemberID, 'BindStatus names the created member').toBe(body.RecordID);
  },
);

conformance(
  {
    id: 'members.second-create-refused',
    title:
      'a second CreateMember answers HTTP 500 with a JSON string saying a MemberID is already assigned; the member stays',
    requirements: ['MEM-003', 'MEM-005'],
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Application', hasMember: false, rated: true });
    const first = await createMember(t, p.proposalId);
    expect(first.status).toBe(200);
    const memberId = (first.json as any).RecordID as number;
    expect((first.json as any).IsSuccessful).toBe(true);

    const second = await createMember(t, p.proposalId);
    expect(second.status).toBe(500);
    expect(typeof second.json, `the body is a JSON string: ${second.text}`).toBe('string');
    expectMentions(second.json, /member/i, ALREADY);

    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status).toBe('Bound');
    expect(s.MemberID, 'the proposal keeps its first member').toBe(memberId);
  },
);

conformance(
  {
    id: 'members.existing-member-refused',
    title:
      'CreateMember on a proposal that already has a MemberID answers HTTP 500 with a JSON string, creating nothing',
    requirements: ['MEM-005'],
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Renewal', hasMember: true, rated: true });
    expect(Number.isInteger(p.memberId)).toBe(true);
    const res = await createMember(t, p.proposalId);
    expect(res.status).toBe(500);
    expect(typeof res.json, `the body is a JSON string: ${res.text}`).toBe('string');
    expectMentions(res.json, /member/i, ALREADY);

    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status).toBe('Bound');
    expect(s.MemberID, 'the proposal keeps its member').toBe(p.memberId);
  },
);

conformance(
  {
    id: 'members.validation-failure',
    title:
      'CreateMember whose applicant data fails validation answers 200 with IsSuccessful false and the detail in Message',
    requirements: ['MEM-006', 'MEM-001'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true, applicantValid: false });
    const res = await createMember(t, p.proposalId);
    expect(res.status).toBe(200);
    const body = res.json as any;
    expectCreationResult(body);
    expect(body.IsSuccessful).toBe(false);
    expect(
      typeof body.Message === 'string' && body.Message.trim() !== '',
      `Message holds the detail: ${JSON.stringify(body.Message)}`,
    ).toBe(true);

    // No member was assigned: the proposal still cannot be bound.
    await t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', {
      params: { path: { proposalId: p.proposalId } },
    } as any);
    expect((await readBindStatus(t, p.proposalId)).Status).not.toBe('Bound');
  },
);

conformance(
  {
    id: 'members.bind-without-member',
    title: 'BindQuote does not bind a proposal that has no member',
    requirements: ['MEM-007'],
    mutates: true,
  },
  async (t) => {
    for (const type of ['Quote', 'Endorsement'] as const) {
      const p = await t.given('a proposal', { type, hasMember: false, rated: true });
      const since = Date.now();
      await t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', {
        params: { path: { proposalId: p.proposalId } },
      } as any);
      // judged after as long as a binding takes to show here, not after a fixed sleep
      await t.expectStaysAbsent(
        async () => {
          const s = await readBindStatus(t, p.proposalId);
          expect(s.Status, `${type} without member: ${JSON.stringify(s)}`).not.toBe('Bound');
          expect(s.PolicyID ?? null).toBeNull();
        },
        { since },
      );
      // Control: the same proposal binds once it has a member.
      const c = await createMember(t, p.proposalId);
      expect((c.json as any)?.IsSuccessful).toBe(true);
      const bound = await bindAndRead(t, p.proposalId);
      expect(bound.Status, `${type} with member: ${bound.ErrorMessage}`).toBe('Bound');
    }
  },
);

// ---------------------------------------------------------------------------------------------
// Implementation-defined

const APPLICANT = ['ApplicantName', 'ApplicantAddress1', 'ApplicantCity', 'ApplicantStateCode', 'ApplicantZipCode'];
const MEMBER = ['Name', 'Address1', 'City', 'StateCode', 'ZipCode'];

async function refRecord(t: Ctx, domain: string, id: number, columns: string[]) {
  const r = await t.raw(`/api/${domain}/${id}?columns=${columns.join(',')}`);
  expect(r.status, `GET /api/${domain}/${id}`).toBe(200);
  return (r.json as any).Record as Record<string, unknown>;
}

async function membersNamed(t: Ctx, name: string): Promise<number> {
  const qs = new URLSearchParams({ [t.bindings.query.filter]: `Name:eq:${name}`, columns: 'MemberID', take: '100' });
  const r = await t.raw(`/api/Member/Query?${qs}`);
  expect(r.status).toBe(200);
  return ((r.json as any).List as unknown[]).length;
}

conformance(
  {
    id: 'members.ref-member-from-applicant',
    title:
      'reference: the Member gets Name and address from the Applicant fields, any body is ignored; DomainIDs 21 and 20',
    requirements: ['MEM-010'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: false });
    const applicant = await refRecord(t, 'Proposal', p.proposalId, APPLICANT);
    expect(applicant.ApplicantName).toBe(p.applicantName);
    const namedBefore = await membersNamed(t, p.applicantName);
    const res = await t.raw(`/api/Quotes/Proposals/${p.proposalId}/CreateMember`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ Name: 'Injected Name', City: 'Injected City', MemberID: 1 }),
    });
    expect(res.status).toBe(200);
    const id = (res.json as any).RecordID as number;
    expect((res.json as any).IsSuccessful).toBe(true);
    const member = await refRecord(t, 'Member', id, MEMBER);
    expect(member).toEqual(Object.fromEntries(MEMBER.map((m, i) => [m, applicant[APPLICANT[i]]])));
    expect((await refRecord(t, 'Proposal', p.proposalId, ['MemberID'])).MemberID).toBe(id);
    expect(await membersNamed(t, p.applicantName), 'one member more with the applicant name').toBe(namedBefore + 1);

    // A second call creates no further member.
    expect((await createMember(t, p.proposalId)).status).toBe(500);
    expect(await membersNamed(t, p.applicantName), 'no further member').toBe(namedBefore + 1);
    expect((await refRecord(t, 'Proposal', p.proposalId, ['MemberID'])).MemberID).toBe(id);

    const d = await t.raw('/api/Domains');
    expect(d.status).toBe(200);
    const list = (t.domainList(d.json) ?? []) as Array<{ DomainID: number; Name: string }>;
    expect(list.find((x) => x.Name === 'Proposal')?.DomainID).toBe(21);
    expect(list.find((x) => x.Name === 'Member')?.DomainID).toBe(20);
  },
);
