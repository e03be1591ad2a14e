// Binding and bind status (spec 2.4, 3, 4.5): BIND-*.
//
// Proposals come from the provider state 'a proposal' (hasMember, rated). The responses of
// QueueBindQuote and BindQuote are not shown in the spec, so core tests judge binding only through
// BindStatus; the reference's answers are checked in the implementation-defined profile.
// Asynchronous outcomes are polled to the run's deadline (no timeout of the tests' own); an outcome
// that must never happen is looked for until that same deadline.
import { expect } from 'vitest';
import { blockedByStep, conformance } from '../src/suite-api/dsl.js';
import { expectMentions } from '../src/suite-api/meaning.js';
import {
  bindQuote,
  bindStatus,
  expectBound,
  expectErrorStatus,
  expectNotBound,
  expectNeverBound,
  expectStaysBound,
  queueBind,
  settled,
  type BindStatus,
} from './support/binding.js';
import type { ProposalParams } from './support/states.js';

// ---------------------------------------------------------------------------------------------
// Core

conformance(
  {
    id: 'binding.never-bound-is-notbound',
    title: 'a proposal never bound reports NotBound with every detail field null, with HTTP 200',
    requirements: ['BIND-001', 'BIND-002', 'BIND-006'],
    classes: ['BIND-006:NotBound'],
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
    title:
      'QueueBindQuote on a bindable proposal: BindStatus eventually reports Bound with the details filled; a twin proposal not queued stays NotBound',
    requirements: ['BIND-007', 'BIND-003', 'BIND-005', 'BIND-001', 'BIND-006'],
    classes: ['BIND-006:Bound', 'BIND-006:NotBound', 'BIND-007:Quote'],
    mutates: true,
  },
  async (t) => {
    // Two proposals alike in every way: only the one queued may be bound.
    const p = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    const twin = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    expectNotBound(await bindStatus(t, p.proposalId));
    await queueBind(t, p.proposalId);
    const s = await settled(t, p.proposalId);
    expectBound(s, p.memberId);
    expectStaysBound(s, await bindStatus(t, p.proposalId));
    expectNotBound(await bindStatus(t, twin.proposalId));
  },
);

conformance(
  {
    id: 'binding.queue-settles-every-type',
    title:
      'QueueBindQuote on a proposal of every other type, with a member and a completed rating: BindStatus leaves NotBound and reports Bound or Error',
    requirements: ['BIND-007'],
    classes: [
      'BIND-007:Endorsement',
      'BIND-007:Application',
      'BIND-007:Renewal',
      'BIND-007:Rewrite',
      'BIND-007:Reissue',
    ],
    mutates: true,
  },
  async (t) => {
    // Spec 3: after QueueBindQuote the outcome is reported by BindStatus as Bound or Error, for a
    // proposal of any type; which of the two is "not shown" beyond the one example reason, so
    // either passes, with its details (BIND-003, BIND-004). A binding that never leaves NotBound
    // (a queue that skips a type) fails at the run's deadline for asynchronous work.
    const types = ['Endorsement', 'Application', 'Renewal', 'Rewrite', 'Reissue'] as const;
    const proposals = await Promise.all(
      types.map(async (type) => ({ type, p: await t.given('a proposal', { type, hasMember: true, rated: true }) })),
    );
    for (const { p } of proposals) await queueBind(t, p.proposalId);
    const outcomes = await Promise.all(
      proposals.map(async ({ type, p }) => ({ type, p, s: await settled(t, p.proposalId) })),
    );
    for (const { type, p, s } of outcomes) {
      expect(['Bound', 'Error'], `the ${type} proposal ${p.proposalId} after QueueBindQuote`).toContain(s.Status);
      if (s.Status === 'Bound') expectBound(s, p.memberId);
      else expectErrorStatus(s);
    }
  },
);

conformance(
  {
    id: 'binding.queue-unrated-error',
    title:
      'QueueBindQuote on a proposal whose rating is not complete: BindStatus eventually reports Error with a reason',
    requirements: ['BIND-008', 'BIND-004', 'BIND-006', 'BIND-001'],
    classes: ['BIND-006:Error'],
    mutates: true,
  },
  async (t) => {
    const p = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: false });
    await queueBind(t, p.proposalId);
    const s = await settled(t, p.proposalId);
    expectErrorStatus(s);
    // Not only the first read after the failure (issue 44, a blind miss of a sequence): 2.4
    // ErrorMessage is the "Reason text when Status is Error", and 3 "Error (ErrorMessage filled":
    // no trigger of section 3 leaves Error, so a later read is the same Error with its reason.
    expectErrorStatus(await bindStatus(t, p.proposalId));
  },
);

conformance(
  {
    id: 'binding.queue-without-member-never-bound',
    title:
      'QueueBindQuote on a proposal without a member does not end Bound (judged after as long as a twin with a member needs to bind)',
    requirements: ['BIND-014', 'BIND-006'],
    mutates: true,
  },
  async (t) => {
    const lone = await t.given('a proposal', { type: 'Quote', hasMember: false, rated: true });
    const twin = await t.given('a proposal', { type: 'Quote', hasMember: true, rated: true });
    const since = Date.now();
    await queueBind(t, lone.proposalId);
    await queueBind(t, twin.proposalId);
    // The queue runs: the twin, queued after, binds; the lone proposal is judged after as long as
    // that took.
    let bound: BindStatus | undefined;
    // never Bound is BIND-014's statement alone (its assertion fails BIND-014 only; BIND-006, the
    // HTTP 200 of every answer, is judged on each read by bindStatus)
    const last = await expectNeverBound(t, lone.proposalId, 'a proposal without a member', {
      since,
      positive: async () => (bound = await settled(t, twin.proposalId)),
    }).catch((e: unknown) => {
      if ((e as Error)?.name === 'AssertionError')
        throw blockedByStep('BIND-014', 'a proposal without a member is never reported Bound', e);
      throw e;
    });
    expectBound(bound as BindStatus, twin.memberId);
    expect(['NotBound', 'Error'], `the proposal without a member ends ${last.Status}`).toContain(last.Status);
    for (const k of ['PolicyID', 'PolicyNumber', 'BoundDateUTC'] as const) expect(last[k], k).toBeNull();
  },
);

conformance(
  {
    id: 'binding.bindquote-binds',
    title:
      'BindQuote binds a proposal with a member and a completed rating; BindStatus then reports Bound with its own policy and member',
    requirements: ['BIND-010', 'BIND-003', 'BIND-005'],
    mutates: true,
  },
  async (t) => {
    const policies: number[] = [];
    for (const type of ['Quote', 'Renewal'] as const) {
      const p = await t.given('a proposal', { type, hasMember: true, rated: true });
      await bindQuote(t, p.proposalId);
      const s = await settled(t, p.proposalId);
      expectBound(s, p.memberId);
      // PolicyID names the resulting Policy record, MemberID the Member record.
      const pol = await t.api.GET('/api/{domain}/{id}', {
        params: { path: { domain: 'Policy', id: Number(s.PolicyID) } },
      });
      expect(pol.response.status, `Policy ${s.PolicyID} exists`).toBe(200);
      const mem = await t.api.GET('/api/{domain}/{id}', {
        params: { path: { domain: 'Member', id: Number(s.MemberID) } },
      });
      expect(mem.response.status, `Member ${s.MemberID} exists`).toBe(200);
      policies.push(Number(s.PolicyID));
    }
    expect(new Set(policies).size, 'each binding has its own policy').toBe(2);
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
    const body = res.data;
    expect(body, 'BindQuote answers the binding details').toBeTypeOf('object');
    expect(Object.keys(body ?? {}).sort()).toEqual([
      'BoundDateUTC',
      'MemberID',
      'MemberName',
      'PolicyID',
      'PolicyNumber',
      'ProposalID',
    ]);
    expect(body?.ProposalID).toBe(ok.proposalId);
    expect(body?.MemberID).toBe(ok.memberId);
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
      const problem: unknown = r.error;
      expect(problem, why).toMatchObject({ code: 'Conflict' });
      expectMentions((problem as { detail?: unknown }).detail, reason);
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
        if (q.reason) expectMentions(s.ErrorMessage, q.reason);
      }
    }
  },
);
