// Binding and bind status (spec 2.4, 3, 4.5): BIND-*.
//
// Proposals come from the provider state 'a proposal' (hasMember, rated). The responses of
// QueueBindQuote and BindQuote are not shown in the spec, so core tests judge binding only through
// BindStatus; the reference's answers are checked in the implementation-defined profile.
import { expect } from 'vitest';
import { conformance, currentRun } from '../src/dsl.js';
import { expectMentions } from '../src/meaning.js';
import { type Ctx } from './support/request.js';
import type { ProposalParams } from './support/states.js';

type BindStatus = {
  ProposalID: number;
  Status: 'Bound' | 'NotBound' | 'Error';
  ErrorMessage: string | null;
  PolicyID: number | null;
  MemberID: number | null;
  PolicyNumber: string | null;
  MemberName: string | null;
  BoundDateUTC: string | null;
};

const DETAIL_FIELDS = ['PolicyID', 'MemberID', 'PolicyNumber', 'MemberName', 'BoundDateUTC'] as const;
const POLL = { intervalMs: 100 }; // deadline: the run's --async-timeout
/** ISO 8601 date-time in UTC: `Z` or a zero offset. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]00:?00)$/;

/** GET BindStatus: always HTTP 200 (BIND-006) with the documented object (BIND-001). */
async function bindStatus(t: Ctx, proposalId: number): Promise<BindStatus> {
  const res = await t.api.GET('/api/Quotes/Proposals/{proposalId}/BindStatus', {
    params: { path: { proposalId } },
  } as any);
  expect(res.response.status, `BindStatus of proposal ${proposalId} answers 200`).toBe(200);
  const s = res.data as BindStatus;
  expectStatusShape(s, proposalId);
  return s;
}

function expectStatusShape(s: BindStatus, proposalId: number) {
  expect(s, 'bind status object').toBeTypeOf('object');
  expect(s.ProposalID, 'ProposalID is the proposal').toBe(proposalId);
  expect(['Bound', 'NotBound', 'Error'], `Status ${JSON.stringify(s.Status)}`).toContain(s.Status);
  const nullable = (v: unknown, type: 'string' | 'integer') =>
    v === null || (type === 'integer' ? Number.isInteger(v) : typeof v === 'string');
  expect(nullable(s.ErrorMessage, 'string'), `ErrorMessage string or null: ${JSON.stringify(s.ErrorMessage)}`).toBe(
    true,
  );
  expect(nullable(s.PolicyID, 'integer'), `PolicyID integer or null: ${JSON.stringify(s.PolicyID)}`).toBe(true);
  expect(nullable(s.MemberID, 'integer'), `MemberID integer or null: ${JSON.stringify(s.MemberID)}`).toBe(true);
  expect(nullable(s.PolicyNumber, 'string'), `PolicyNumber string or null`).toBe(true);
  expect(nullable(s.MemberName, 'string'), `MemberName string or null`).toBe(true);
  expect(nullable(s.BoundDateUTC, 'string'), `BoundDateUTC string or null`).toBe(true);
  for (const k of ['ErrorMessage', ...DETAIL_FIELDS]) expect(s, `field ${k} is present`).toHaveProperty(k);
}

/** Polls BindStatus until it leaves NotBound (generous timeout: binding is asynchronous). */
async function settled(t: Ctx, proposalId: number): Promise<BindStatus> {
  return t.poll(
    () => bindStatus(t, proposalId),
    (s) => s.Status !== 'NotBound',
    POLL,
  );
}

function expectNotBound(s: BindStatus) {
  expect(s.Status).toBe('NotBound');
  expect(s.ErrorMessage).toBeNull();
  for (const k of DETAIL_FIELDS) expect(s[k], `${k} is null while NotBound`).toBeNull();
}

function expectBound(s: BindStatus, memberId: number | null) {
  expect(s.Status, `bound (ErrorMessage: ${s.ErrorMessage})`).toBe('Bound');
  expect(s.ErrorMessage).toBeNull();
  expect(Number.isInteger(s.PolicyID) && (s.PolicyID as number) > 0, `PolicyID ${s.PolicyID}`).toBe(true);
  expect(Number.isInteger(s.MemberID) && (s.MemberID as number) > 0, `MemberID ${s.MemberID}`).toBe(true);
  if (memberId !== null) expect(s.MemberID, "the proposal's member").toBe(memberId);
  expect(
    typeof s.PolicyNumber === 'string' && s.PolicyNumber.trim() !== '',
    `PolicyNumber ${JSON.stringify(s.PolicyNumber)}`,
  ).toBe(true);
  expect(
    typeof s.MemberName === 'string' && s.MemberName.trim() !== '',
    `MemberName ${JSON.stringify(s.MemberName)}`,
  ).toBe(true);
  expectUtcTimestamp(s.BoundDateUTC);
}

function expectUtcTimestamp(v: unknown) {
  expect(typeof v, 'BoundDateUTC is a string').toBe('string');
  expect(v as string, 'BoundDateUTC is ISO 8601 in UTC').toMatch(ISO_UTC);
  const ms = Date.parse(v as string);
  expect(Number.isNaN(ms), `BoundDateUTC parses: ${v}`).toBe(false);
  // Bound just now: a local time written with a UTC designator would be hours off (--clock-tolerance).
  expect(Math.abs(ms - Date.now()), `BoundDateUTC ${v} is the time of binding (UTC)`).toBeLessThan(
    currentRun().clockToleranceMs,
  );
}

function expectErrorStatus(s: BindStatus) {
  expect(s.Status).toBe('Error');
  expect(
    typeof s.ErrorMessage === 'string' && s.ErrorMessage.trim() !== '',
    `ErrorMessage ${JSON.stringify(s.ErrorMessage)}`,
  ).toBe(true);
  for (const k of DETAIL_FIELDS) expect(s[k], `${k} is null on Error`).toBeNull();
}

async function queueBind(t: Ctx, proposalId: number, query?: Record<string, string>) {
  return t.api.POST('/api/Quotes/Proposals/{proposalId}/QueueBindQuote', {
    params: { path: { proposalId }, query: query ?? {} },
  } as any);
}
async function bindQuote(t: Ctx, proposalId: number) {
  return t.api.POST('/api/Quotes/Proposals/{proposalId}/BindQuote', { params: { path: { proposalId } } } as any);
}

// ---------------------------------------------------------------------------------------------
// Core

conformance(
  {
    id: 'binding.never-bound-is-notbound',
    title: 'a proposal never bound reports NotBound with every detail field null, with HTTP 200',
    requirements: ['BIND-001', 'BIND-002', 'BIND-006'],
  },
  async (t) => {
    const plain = await t.given('a proposal', { type: 'Quote' });
    expectNotBound(await bindStatus(t, plain.proposalId));
    // Bindable, but never asked to bind.
    const ready = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    expectNotBound(await bindStatus(t, ready.proposalId));
    const endorsement = await t.given('a proposal', { type: 'Endorsement', hasMember: true });
    expectNotBound(await bindStatus(t, endorsement.proposalId));
  },
);

conformance(
  {
    id: 'binding.queue-binds',
    title: 'QueueBindQuote on a bindable proposal: BindStatus eventually reports Bound with the details filled',
    requirements: ['BIND-007', 'BIND-003', 'BIND-005', 'BIND-001', 'BIND-006'],
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    expectNotBound(await bindStatus(t, p.proposalId));
    await queueBind(t, p.proposalId);
    const s = await settled(t, p.proposalId);
    expectBound(s, p.memberId);
    // The details stay once bound.
    expect(await bindStatus(t, p.proposalId)).toEqual(s);
  },
);

conformance(
  {
    id: 'binding.queue-unrated-error',
    title:
      'QueueBindQuote on a proposal whose rating is not complete: BindStatus eventually reports Error with a reason',
    requirements: ['BIND-008', 'BIND-004', 'BIND-006', 'BIND-001'],
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: false });
    await queueBind(t, p.proposalId);
    const s = await settled(t, p.proposalId);
    expectErrorStatus(s);
  },
);

conformance(
  {
    id: 'binding.bindquote-binds',
    title: 'BindQuote binds a proposal with a member and a completed rating; BindStatus then reports Bound',
    requirements: ['BIND-010', 'BIND-003', 'BIND-005'],
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    for (const type of ['Quote', 'Renewal'] as const) {
      const p = await t.given('a proposal', { type, hasMember: true, rated: true });
      await bindQuote(t, p.proposalId);
      const s = await settled(t, p.proposalId);
      expectBound(s, p.memberId);
      // PolicyID names the resulting Policy record, MemberID the Member record.
      const pol = await t.api.GET('/api/{domain}/{id}', {
        params: { path: { domain: 'Policy', id: s.PolicyID } },
      } as any);
      expect(pol.response.status, `Policy ${s.PolicyID} exists`).toBe(200);
      const mem = await t.api.GET('/api/{domain}/{id}', {
        params: { path: { domain: 'Member', id: s.MemberID } },
      } as any);
      expect(mem.response.status, `Member ${s.MemberID} exists`).toBe(200);
    }
  },
);

// ---------------------------------------------------------------------------------------------
// Implementation-defined

conformance(
  {
    id: 'binding.ref-queue-answer',
    title:
      'reference: QueueBindQuote answers 200 with an empty body and accepts billingFrequencyCode and billingStatus',
    requirements: ['BIND-011'],
    profile: 'implementation-defined',
    mutates: true,
    timeoutMs: 30_000,
  },
  async (t) => {
    const q = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    const e = await t.given('a proposal', { type: 'Endorsement', hasMember: true, rated: true });
    const r1 = await t.raw(`/api/Quotes/Proposals/${q.proposalId}/QueueBindQuote?billingFrequencyCode=M`, {
      method: 'POST',
    });
    expect(r1.status).toBe(200);
    expect(r1.text).toBe('');
    const r2 = await t.raw(`/api/Quotes/Proposals/${e.proposalId}/QueueBindQuote?billingStatus=N`, { method: 'POST' });
    expect(r2.status).toBe(200);
    expect(r2.text).toBe('');
    expectBound(await settled(t, q.proposalId), q.memberId);
    expectBound(await settled(t, e.proposalId), e.memberId);
  },
);

conformance(
  {
    id: 'binding.ref-bindquote-answer',
    title: 'reference: BindQuote answers 200 with the binding details, and a failure 409 Conflict naming the reason',
    requirements: ['BIND-012'],
    profile: 'implementation-defined',
    mutates: true,
  },
  async (t) => {
    const ok = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    const res = await bindQuote(t, ok.proposalId);
    expect(res.response.status).toBe(200);
    const body = res.data as any;
    expect(Object.keys(body).sort()).toEqual([
      'BoundDateUTC',
      'MemberID',
      'MemberName',
      'PolicyID',
      'PolicyNumber',
      'ProposalID',
    ]);
    expect(body.ProposalID).toBe(ok.proposalId);
    expect(body.MemberID).toBe(ok.memberId);
    const s = await bindStatus(t, ok.proposalId);
    expect(s).toMatchObject({ Status: 'Bound', ...body });

    const cases: Array<[string, ProposalParams, RegExp]> = [
      ['no member', { type: 'Quote', hasMember: false, rated: true }, /member/i],
      ['rating not complete', { type: 'Quote', hasMember: true, rated: false }, /rating|rated/i],
      ['not modifiable', { type: 'Quote', hasMember: true, rated: true, status: 'R' }, /modif|cannot bind/i],
    ];
    for (const [why, params, reason] of cases) {
      const p = await t.given('a proposal', params);
      const r = await bindQuote(t, p.proposalId);
      expect(r.response.status, why).toBe(409);
      const problem = r.error as any;
      expect(problem?.code, why).toBe('Conflict');
      expectMentions(problem?.detail, reason);
      expect((await bindStatus(t, p.proposalId)).Status, `${why}: not bound`).not.toBe('Bound');
    }
  },
);

conformance(
  {
    id: 'binding.ref-queue-outcomes',
    title: 'reference: a queued binding ends in Error when unrated, without member or not modifiable; otherwise Bound',
    requirements: ['BIND-013'],
    profile: 'implementation-defined',
    mutates: true,
    timeoutMs: 45_000,
  },
  async (t) => {
    const cases: Array<[string, ProposalParams, 'Bound' | 'Error', RegExp | null]> = [
      ['bindable', { type: 'Application', hasMember: true, rated: true }, 'Bound', null],
      ['unrated', { type: 'Quote', hasMember: true, rated: false }, 'Error', /rating/i],
      ['no member', { type: 'Quote', hasMember: false, rated: true }, 'Error', /member/i],
      ['status 0', { type: 'Quote', hasMember: true, rated: true, status: '0' }, 'Error', /modif|cannot bind/i],
      ['bound set', { type: 'Quote', hasMember: true, rated: true, boundSet: true }, 'Error', /modif|cannot bind/i],
      [
        'pending expiry change',
        { type: 'Quote', hasMember: true, rated: true, pendingExpiryChange: true },
        'Error',
        /modif|cannot bind/i,
      ],
    ];
    const queued: Array<{
      why: string;
      id: number;
      memberId: number | null;
      want: 'Bound' | 'Error';
      reason: RegExp | null;
    }> = [];
    for (const [why, params, want, reason] of cases) {
      const p = await t.given('a proposal', params);
      const r = await queueBind(t, p.proposalId);
      expect(r.response.status, `${why}: queued`).toBe(200);
      queued.push({ why, id: p.proposalId, memberId: p.memberId, want, reason });
    }
    for (const q of queued) {
      const s = await settled(t, q.id);
      expect(s.Status, `${q.why}: ${s.ErrorMessage}`).toBe(q.want);
      if (q.want === 'Bound') expectBound(s, q.memberId);
      else {
        expectErrorStatus(s);
        expectMentions(s.ErrorMessage, q.reason!);
      }
    }
  },
);
