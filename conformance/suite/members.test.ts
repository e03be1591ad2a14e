// Member creation (spec 2.6, 3, 4.5, 7): MEM-*.
//
// CreateMember builds the proposal's member from its applicant data. The association of the new
// member with the proposal is observed through binding: BindStatus of a bound proposal names its
// member (2.4), MemberID and MemberName. The state 'a proposal' gives the applicant's name
// (`applicantName`), which a member built from the applicant data carries, so MemberName shows
// that no request body set the member's fields (MEM-004). Other member fields are not shown, so
// only the reference's are compared, in the implementation-defined profile.
import { expect } from 'vitest';
import type { RawResponse } from '../src/suite-api/client.js';
import { conformance } from '../src/suite-api/dsl.js';
import { expectMentions } from '../src/suite-api/meaning.js';
import {
  bindQuote,
  expectBoundDetails,
  expectNeverBound,
  ALREADY,
  MEMBER,
  settled,
  type BindStatus,
  type MemberCreationResult,
} from './support/binding.js';
import { type Ctx, judgedAlone } from './support/request.js';
import { domainEntries } from './support/domain-list.js';
import { createMember, expectBodylessAccepted, needsBodylessFormAccepted } from './support/create-member.js';

function expectCreationResult(body: unknown): asserts body is MemberCreationResult {
  expect(typeof body === 'object' && body !== null, `member creation result: ${JSON.stringify(body)}`).toBe(true);
  const o = body as Record<string, unknown>;
  expect(typeof o.IsSuccessful, 'IsSuccessful is a boolean').toBe('boolean');
  expect(Number.isInteger(o.RecordID), `RecordID is an integer (${JSON.stringify(o.RecordID)})`).toBe(true);
  expect(o, 'Message is present').toHaveProperty('Message');
  expect(o.Message === null || typeof o.Message === 'string', 'Message is a string or null').toBe(true);
}

/** A successful CreateMember on a proposal without a member and with valid applicant data: the new member's ID. */
async function createdMember(t: Ctx, proposalId: number): Promise<number> {
  const res = await createMember(t, proposalId);
  expectBodylessAccepted(res);
  expect(res.status, `CreateMember: ${res.text}`).toBe(200);
  const body = res.json;
  expectCreationResult(body);
  expect(body.IsSuccessful, `CreateMember succeeds: ${body.Message}`).toBe(true);
  return body.RecordID;
}

/**
 * Binds the proposal (BindQuote) and reads BindStatus until it settles. The member tests read the
 * details of a Bound status (MemberID, MemberName): that they are filled is BIND-003's statement,
 * a step here (expectBoundDetails).
 */
async function bindAndRead(t: Ctx, proposalId: number): Promise<BindStatus> {
  await bindQuote(t, proposalId);
  const s = await settled(t, proposalId);
  if (s.Status === 'Bound') expectBoundDetails(s);
  return s;
}

/** The refusal of section 7: HTTP 500 whose body is a JSON string saying a MemberID is assigned. */
function expectAlreadyAssigned(res: RawResponse) {
  expect(res.status, `CreateMember on a proposal with a member: ${res.text}`).toBe(500);
  expect(typeof res.json, `the body is a JSON string: ${res.text}`).toBe('string');
  expectMentions(res.json, MEMBER, ALREADY);
}

// ---------------------------------------------------------------------------------------------
// Core

conformance(
  {
    id: 'members.create-from-applicant',
    title: 'CreateMember without a body on a proposal without a member creates a Member record and assigns it',
    requirements: ['MEM-001', 'MEM-002', 'MEM-003', 'MEM-008'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true });
    const res = await createMember(t, p.proposalId);
    expectBodylessAccepted(res);
    expect(res.status, `CreateMember: ${res.text}`).toBe(200);
    const body = res.json;
    expectCreationResult(body);
    expect(body.IsSuccessful).toBe(true);
    expect(body.RecordID, "the new member's ID").toBeGreaterThan(0);

    // The member is a Member record.
    const m = await t.api.GET('/api/{domain}/{id}', {
      params: { path: { domain: 'Member', id: body.RecordID } },
    });
    expect(m.response.status, `GET /api/Member/${body.RecordID}`).toBe(200);
    // its envelope names the domain and ID read (REC-001's rule, judged by its test): a step here
    await t.needs('REC-001', `GET /api/Member/${body.RecordID} answers {Record, Domain, Id}`, async () => {
      expect(m.data).toMatchObject({ Domain: 'Member', Id: body.RecordID });
    });

    // It is the proposal's member: binding (which requires a member) succeeds with it.
    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status, `bound after CreateMember (${s.ErrorMessage})`).toBe('Bound');
    expect(s.MemberID, 'BindStatus names the created member').toBe(body.RecordID);
    // the null Message of a success is MEM-002's statement alone (judged last: it ends the test)
    judgedAlone('MEM-002', 'a successful CreateMember answers a null Message', () =>
      expect(body.Message, 'Message of a successful CreateMember').toBeNull(),
    );
  },
);

conformance(
  {
    id: 'members.built-from-applicant-only',
    title:
      'CreateMember builds the member from the applicant data alone: a body trying to set member fields changes nothing (MemberName is the applicant name)',
    requirements: ['MEM-004', 'MEM-003'],
    mutates: true,
  },
  async (t) => {
    // Two proposals alike but for their applicants: each member carries its own applicant's name.
    const p = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true });
    const twin = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true });
    expect(p.applicantName, 'the two applicants differ').not.toBe(twin.applicantName);
    const injected = `Injected ${p.proposalId}`;
    const res = await t.raw(`/api/Quotes/Proposals/${p.proposalId}/CreateMember`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        Name: injected,
        MemberName: injected,
        FirstName: injected,
        LastName: injected,
        City: injected,
        MemberID: twin.proposalId,
        Extra: injected,
      }),
    });
    // The body cannot set fields: the service ignores it or refuses the call. A refusal may be any
    // non-2xx, or the documented validation-failure answer (7: "HTTP 200; IsSuccessful false; detail
    // in Message"): a body where 4.5 says "Body | none" is a failure a service may validate. When
    // refused, the member is created the documented way, without a body.
    let memberId: number;
    const body = res.json;
    if (res.status === 200 && typeof body === 'object' && body !== null && 'IsSuccessful' in body) {
      expectCreationResult(body);
      memberId = body.IsSuccessful ? body.RecordID : await createdMember(t, p.proposalId);
    } else {
      memberId = await createdMember(t, p.proposalId);
    }
    const twinMember = await createdMember(t, twin.proposalId);
    expect(twinMember, 'each proposal gets its own member').not.toBe(memberId);

    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status, `bound after CreateMember (${s.ErrorMessage})`).toBe('Bound');
    expect(s.MemberID).toBe(memberId);
    // the name from the applicant data, whatever the body said: MEM-004's statement alone
    judgedAlone('MEM-004', 'the member is named from the applicant data', () =>
      expect(s.MemberName, 'the member is named from the applicant data, not from the request body').toBe(
        p.applicantName,
      ),
    );
    const st = await bindAndRead(t, twin.proposalId);
    expect(st.MemberID).toBe(twinMember);
    expect(st.MemberName).toBe(twin.applicantName);
  },
);

conformance(
  {
    id: 'members.second-create-refused',
    title:
      'a second CreateMember answers HTTP 500 with a JSON string saying a MemberID is already assigned; the member stays',
    requirements: ['MEM-003', 'MEM-005'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Application', hasMember: false, rated: true });
    const memberId = await createdMember(t, p.proposalId);
    expectAlreadyAssigned(await createMember(t, p.proposalId));

    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status).toBe('Bound');
    expect(s.MemberID, 'the proposal keeps its first member').toBe(memberId);
    expect(s.MemberName, 'the member is the one built from the applicant data').toBe(p.applicantName);
  },
);

conformance(
  {
    id: 'members.existing-member-refused',
    title:
      'CreateMember on a proposal that already has a MemberID answers HTTP 500 with a JSON string, creating nothing',
    requirements: ['MEM-005'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Renewal', hasMember: true, rated: true });
    expect(Number.isInteger(p.memberId)).toBe(true);
    // the control first: the same bodyless call on a proposal without a member, so a refusal of the
    // call's form (MEM-008) shows there and is not taken for the answer about the member
    await needsBodylessFormAccepted(t);
    expectAlreadyAssigned(await createMember(t, p.proposalId));

    const s = await bindAndRead(t, p.proposalId);
    expect(s.Status).toBe('Bound');
    expect(s.MemberID, 'the proposal keeps its member').toBe(p.memberId);
  },
);

conformance(
  {
    id: 'members.validation-failure',
    title:
      'CreateMember whose applicant data fails validation answers 200 with IsSuccessful false and the detail in Message; no member is assigned',
    requirements: ['MEM-006', 'MEM-001'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true, applicantValid: false });
    // The control first: a twin with valid applicant data gets its member by the same call, so a
    // refusal of the call's form (MEM-008) shows there and is not taken for this proposal's answer.
    const twin = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true });
    await createdMember(t, twin.proposalId);
    const res = await createMember(t, p.proposalId);
    // HTTP 200 for a validation failure is MEM-006's statement alone (the shape after it is MEM-001's)
    judgedAlone('MEM-006', 'a validation failure answers HTTP 200', () =>
      expect(res.status, `CreateMember with invalid applicant data: ${res.text.slice(0, 200)}`).toBe(200),
    );
    const body = res.json;
    expectCreationResult(body);
    expect(body.IsSuccessful).toBe(false);
    expect(
      typeof body.Message === 'string' && body.Message.trim() !== '',
      `Message holds the detail: ${JSON.stringify(body.Message)}`,
    ).toBe(true);

    // No member was assigned: the proposal still cannot be bound, judged after as long as a twin
    // with valid applicant data needs to be bound.
    const since = Date.now();
    await bindQuote(t, p.proposalId);
    await expectNeverBound(t, p.proposalId, 'a proposal whose member creation failed', {
      since,
      positive: async () => {
        expect((await bindAndRead(t, twin.proposalId)).Status, 'the twin binds').toBe('Bound');
      },
    });
  },
);

conformance(
  {
    id: 'members.bind-without-member',
    title: 'BindQuote does not bind a proposal that has no member; the same proposal binds once it has one',
    requirements: ['MEM-007'],
    mutates: true,
  },
  async (t) => {
    // the two types at once: each judges absence after a window, and the windows run side by side
    const oneType = async (type: 'Quote' | 'Endorsement') => {
      const p = await t.given('a proposal', { type, hasMember: false, rated: true });
      const since = Date.now();
      await bindQuote(t, p.proposalId);
      // Judged after as long as a binding took to show in this file (the first: a twin that has a member).
      const twin = await t.given('a proposal', { type, hasMember: true, rated: true });
      await expectNeverBound(t, p.proposalId, `${type} without member`, {
        since,
        positive: async () => {
          expect((await bindAndRead(t, twin.proposalId)).Status, `${type} twin with a member binds`).toBe('Bound');
        },
      });
      // Control: the same proposal binds once it has a member.
      await createdMember(t, p.proposalId);
      const bound = await bindAndRead(t, p.proposalId);
      expect(bound.Status, `${type} with member: ${bound.ErrorMessage}`).toBe('Bound');
    };
    await Promise.all((['Quote', 'Endorsement'] as const).map(oneType));
  },
);

// ---------------------------------------------------------------------------------------------
// Implementation-defined

const APPLICANT = ['ApplicantName', 'ApplicantAddress1', 'ApplicantCity', 'ApplicantStateCode', 'ApplicantZipCode'];
const MEMBER_FIELDS = ['Name', 'Address1', 'City', 'StateCode', 'ZipCode'];

async function refRecord(t: Ctx, domain: string, id: number, columns: string[]) {
  const r = await t.raw(`/api/${domain}/${id}?columns=${columns.join(',')}`);
  expect(r.status, `GET /api/${domain}/${id}`).toBe(200);
  const record: unknown = (r.json as { Record?: unknown } | undefined)?.Record;
  expect(record, `GET /api/${domain}/${id}: Record`).toBeTypeOf('object');
  return record as Record<string, unknown>;
}

async function membersNamed(t: Ctx, name: string): Promise<number> {
  const qs = new URLSearchParams({ [t.bindings.query.filter]: `Name:eq:${name}`, columns: 'MemberID', take: '100' });
  const r = await t.raw(`/api/Member/Query?${qs}`);
  expect(r.status).toBe(200);
  const list: unknown = (r.json as { List?: unknown } | undefined)?.List;
  expect(Array.isArray(list), 'List is an array').toBe(true);
  return (list as unknown[]).length;
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
    const created = res.json;
    expectCreationResult(created);
    const id = created.RecordID;
    expect(created.IsSuccessful).toBe(true);
    const member = await refRecord(t, 'Member', id, MEMBER_FIELDS);
    expect(member).toEqual(Object.fromEntries(MEMBER_FIELDS.map((m, i) => [m, applicant[APPLICANT[i]]])));
    expect((await refRecord(t, 'Proposal', p.proposalId, ['MemberID'])).MemberID).toBe(id);
    expect(await membersNamed(t, p.applicantName), 'one member more with the applicant name').toBe(namedBefore + 1);

    // A second call creates no further member.
    expect((await createMember(t, p.proposalId)).status).toBe(500);
    expect(await membersNamed(t, p.applicantName), 'no further member').toBe(namedBefore + 1);
    expect((await refRecord(t, 'Proposal', p.proposalId, ['MemberID'])).MemberID).toBe(id);

    const d = await t.raw('/api/Domains');
    expect(d.status).toBe(200);
    const list = (await domainEntries(t, d.json)) as Array<{ DomainID: number; Name: string }>;
    expect(list.find((x) => x.Name === 'Proposal')?.DomainID).toBe(21);
    expect(list.find((x) => x.Name === 'Member')?.DomainID).toBe(20);
  },
);
