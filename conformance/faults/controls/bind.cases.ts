// The canned cases of the BIND controls (bind.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { makeResponse, problem } from '../exchange.js';
import { type Case, get, json, ok, post, run, type ScriptedCase, status } from './canned-cases.js';

export const BIND_CONTROL_CASES: Record<string, Case[]> = {
  'bind-refused-422': [
    { req: post('/api/Quotes/Proposals/12/BindQuote'), upstream: problem(409, 'Conflict', 'x'), expect: status(422) },
  ],
  'queued-endorsement-ends-error': [
    {
      // not queued yet: a Bound status is left as it is
      req: get('/api/Quotes/Proposals/12/BindStatus'),
      upstream: ok({ ProposalID: 12, Status: 'Bound', PolicyID: 4, ErrorMessage: null }),
      expect: (out) => expect(json(out).Status).toBe('Bound'),
    },
  ],
  'queue-bind-answers-202': [
    {
      req: post('/api/Quotes/Proposals/12/QueueBindQuote'),
      upstream: makeResponse(200),
      expect: (out) => (expect(out.status).toBe(202), expect(json(out)).toEqual({ Queued: true, ProposalID: 12 })),
    },
  ],
  'queue-bind-ignores-billing': [
    {
      req: post('/api/Quotes/Proposals/12/QueueBindQuote?billingStatus=B&billingFrequencyCode=M&x=1'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('x=1'),
    },
  ],
  'bind-quote-other-result': [
    {
      req: post('/api/Quotes/Proposals/12/BindQuote'),
      upstream: ok({ PolicyID: 4, PolicyNumber: 'P-4' }),
      expect: (out) => expect(json(out)).toEqual({ Bound: true, Policy: { ID: 4, Number: 'P-4' } }),
    },
  ],
  'bind-error-other-words': [
    {
      req: get('/api/Quotes/Proposals/12/BindStatus'),
      upstream: ok({ Status: 'Error', ErrorMessage: 'Rating must be completed before binding.' }),
      expect: (out) =>
        expect(json(out).ErrorMessage).toBe('The proposal has not been rated yet; rate it before binding.'),
    },
  ],
  'bound-date-with-offset': [
    {
      req: get('/api/Quotes/Proposals/12/BindStatus'),
      upstream: ok({ Status: 'Bound', BoundDateUTC: '2026-11-21T05:40:12.345Z' }),
      expect: (out) => expect(json(out).BoundDateUTC).toBe('2026-11-21T05:40:12+00:00'),
    },
  ],
};

/** A Bound BindStatus answer of proposal `id`, every detail filled. */
const boundStatus = (id: number) =>
  ok({
    ProposalID: id,
    Status: 'Bound',
    PolicyID: 4,
    MemberID: 5,
    PolicyNumber: 'P',
    MemberName: 'M',
    BoundDateUTC: 'x',
    ErrorMessage: null,
  });

/** Cases that need one memory across several exchanges (and time to pass), written out. */
export const BIND_CONTROL_SCRIPTS: ScriptedCase[] = [
  {
    control: 'queued-endorsement-ends-error',
    title: 'a queued Endorsement ends Error with its details null; a queued Quote stays Bound',
    async run() {
      const memory = new Map<string, any>();
      for (const [id, type] of [
        [12, 'E'],
        [13, 'N'],
      ] as const)
        await run(
          'queued-endorsement-ends-error',
          {
            req: post(`/api/Quotes/Proposals/${id}/QueueBindQuote`),
            side: { [`GET /api/Proposal/${id}?`]: { Record: { ProposalType: type } } },
            upstream: makeResponse(200),
            expect: status(200),
          },
          memory,
        );
      await run(
        'queued-endorsement-ends-error',
        {
          req: get('/api/Quotes/Proposals/12/BindStatus'),
          upstream: boundStatus(12),
          expect: (out) =>
            expect(json(out)).toMatchObject({ Status: 'Error', PolicyID: null, MemberID: null, BoundDateUTC: null }),
        },
        memory,
      );
      await run(
        'queued-endorsement-ends-error',
        {
          req: get('/api/Quotes/Proposals/13/BindStatus'),
          upstream: boundStatus(13),
          expect: (out) => expect(json(out).Status).toBe('Bound'),
        },
        memory,
      );
    },
  },
  {
    control: 'slow-binding',
    title: 'answers NotBound until the delay after QueueBindQuote has passed',
    async run() {
      const memory = new Map<string, any>();
      const bound = boundStatus(12);
      await run(
        'slow-binding',
        {
          req: get('/api/Quotes/Proposals/12/BindStatus'),
          upstream: bound,
          expect: (out) => expect(json(out).Status).toBe('Bound'),
        },
        memory,
      );
      await run(
        'slow-binding',
        { req: post('/api/Quotes/Proposals/12/QueueBindQuote'), upstream: makeResponse(200), expect: status(200) },
        memory,
      );
      await run(
        'slow-binding',
        {
          req: get('/api/Quotes/Proposals/12/BindStatus'),
          upstream: bound,
          expect: (out) => expect(json(out)).toMatchObject({ Status: 'NotBound', PolicyID: null, MemberName: null }),
        },
        memory,
      );
      memory.set('q:12', Date.now() - 60_000);
      await run(
        'slow-binding',
        {
          req: get('/api/Quotes/Proposals/12/BindStatus'),
          upstream: bound,
          expect: (out) => expect(json(out).Status).toBe('Bound'),
        },
        memory,
      );
    },
  },
];
