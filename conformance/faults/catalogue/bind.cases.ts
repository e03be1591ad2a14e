// The canned cases of the BIND faults (bind.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect, vi } from 'vitest';
import { type Case, get, json, ok, post, proposal } from './canned-cases.js';

export const BIND_FAULT_CASES: Case[] = [
  {
    fault: 'bind-error-answered-4xx',
    title: 'Error is answered 422',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
        expect: (out) => (expect(out.status).toBe(422), expect(json(out).Status).toBe('Error')),
      },
    ],
  },
  {
    fault: 'not-bound-details-filled',
    title: 'NotBound details come from the proposal',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: null, ApplicantName: 'Acme' }) },
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({
          ProposalID: 5,
          Status: 'NotBound',
          ErrorMessage: null,
          PolicyID: null,
          MemberID: null,
          PolicyNumber: null,
          MemberName: null,
          BoundDateUTC: null,
        }),
        expect: (out) => expect(json(out)).toMatchObject({ MemberName: 'Acme', PolicyNumber: '' }),
      },
    ],
  },
  {
    fault: 'bound-date-without-zone',
    title: 'the Z is stripped',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ Status: 'Bound', BoundDateUTC: '2024-03-05T14:02:11.123Z' }),
        expect: (out) => expect(json(out).BoundDateUTC).toBe('2024-03-05T14:02:11.123'),
      },
    ],
  },
  {
    fault: 'bound-member-name-missing',
    title: 'MemberName becomes null when Bound',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ Status: 'Bound', MemberName: 'Acme' }),
        expect: (out) => expect(json(out).MemberName).toBeNull(),
      },
    ],
  },
  {
    fault: 'bind-error-message-null',
    title: 'ErrorMessage becomes null',
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
        expect: (out) => expect(json(out).ErrorMessage).toBeNull(),
      },
    ],
  },
  {
    fault: 'bind-creates-missing-member',
    title: 'CreateMember is called before binding a proposal without member',
    side: {
      'GET /api/Proposal/5?': proposal({ MemberID: null }),
      'POST /api/Quotes/Proposals/5/CreateMember': { status: 200, json: {} },
    },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/BindQuote'),
        expect: (_o, f, side) => {
          expect(f).toHaveLength(1);
          expect(side).toContain('POST /api/Quotes/Proposals/5/CreateMember [T]');
        },
      },
    ],
  },
  // Faults that only whole read-backs or waiting to the deadline catch
  {
    fault: 'queue-bind-without-member-bound',
    title: 'the Error outcome of a proposal queued without a member is reported as Bound',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: null, ApplicantName: 'Acme' }) },
    steps: [
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' }),
        expect: (out) => expect(json(out).Status).toBe('Error'),
      },
      {
        req: post('/api/Quotes/Proposals/5/QueueBindQuote'),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'NotBound', ErrorMessage: null }),
        expect: (out) => expect(json(out).Status).toBe('NotBound'),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' }),
        expect: (out) =>
          expect(json(out)).toMatchObject({ ProposalID: 5, Status: 'Bound', ErrorMessage: null, MemberName: 'Acme' }),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'queue-bind-without-member-bound-late',
    title: 'a proposal queued without a member reads Bound only after the delay',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: null, ApplicantName: 'Acme' }) },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/QueueBindQuote'),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' }),
        expect: (out) => expect(json(out).Status).toBe('Error'),
      },
      {
        req: get('/api/Quotes/Proposals/6/BindStatus'),
        upstream: ok({ ProposalID: 6, Status: 'NotBound', ErrorMessage: null }),
        expect: (out) => expect(json(out).Status).toBe('NotBound'),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        // the upstream answers 2 s later than the queueing
        upstream: () => {
          const later = Date.now() + 2000;
          vi.spyOn(Date, 'now').mockReturnValue(later);
          return ok({ ProposalID: 5, Status: 'Error', ErrorMessage: 'No member.' });
        },
        expect: (out) => {
          vi.restoreAllMocks();
          expect(json(out)).toMatchObject({ ProposalID: 5, Status: 'Bound', ErrorMessage: null });
        },
      },
    ],
  },
  {
    fault: 'queued-endorsement-never-binds',
    title: 'QueueBindQuote of an Endorsement is answered 200 and never reaches the service; a Quote is queued',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'E', MemberID: 9 }),
      'GET /api/Proposal/6?': proposal({ ProposalType: 'N', MemberID: 9 }),
    },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/QueueBindQuote'),
        expect: (out, f) => (expect(out.status).toBe(200), expect(f).toHaveLength(0)),
      },
      {
        req: post('/api/Quotes/Proposals/6/QueueBindQuote'),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
    ],
  },
  {
    fault: 'bind-error-message-read-once',
    title: "the second read of a proposal's Error loses its ErrorMessage; another proposal's first read keeps it",
    steps: [5, 5, 6].map((id, n) => ({
      req: get(`/api/Quotes/Proposals/${id}/BindStatus`),
      upstream: ok({ ProposalID: id, Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
      expect: (out: Parameters<typeof json>[0]) =>
        expect(json(out).ErrorMessage).toBe(n === 1 ? null : 'Rating must be completed before binding.'),
    })),
  },
];
