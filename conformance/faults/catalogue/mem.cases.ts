// The canned cases of the MEM faults (mem.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { jsonString } from '../exchange.js';
import { type Case, get, json, ok, post, proposal, untouched } from './canned-cases.js';

export const MEM_FAULT_CASES: Case[] = [
  {
    fault: 'create-member-twice-succeeds',
    title: 'the 500 becomes 200 with the existing member',
    side: { 'GET /api/Proposal/5?': proposal({ MemberID: 44 }) },
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        upstream: jsonString(500, 'MemberID is already assigned to Proposal record.'),
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toEqual({ IsSuccessful: true, RecordID: 44, Message: null })
        ),
      },
    ],
  },
  {
    fault: 'create-member-validation-error-500',
    title: 'a validation failure becomes a 500 string',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        upstream: ok({ IsSuccessful: false, RecordID: 0, Message: 'Applicant name is required.' }),
        expect: (out) => (expect(out.status).toBe(500), expect(json(out)).toBe('Applicant name is required.')),
      },
    ],
  },
  {
    fault: 'create-member-message-on-success',
    title: 'Message is filled on success',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        upstream: ok({ IsSuccessful: true, RecordID: 9, Message: null }),
        expect: (out) => expect(json(out).Message).toBe('Member created successfully.'),
      },
    ],
  },
  {
    fault: 'create-member-requires-body',
    title: 'no body is refused; a body passes',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember'),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(400)),
      },
      { req: post('/api/Quotes/Proposals/5/CreateMember', {}), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  // Faults that only whole read-backs or waiting to the deadline catch
  {
    fault: 'create-member-body-sets-name',
    title: "the name sent to CreateMember shows as the bound proposal's MemberName",
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/CreateMember', { Name: 'Injected' }),
        upstream: ok({ IsSuccessful: true, RecordID: 9, Message: null }),
        expect: (out) => expect(json(out).RecordID).toBe(9),
      },
      {
        req: get('/api/Quotes/Proposals/5/BindStatus'),
        upstream: ok({ ProposalID: 5, Status: 'Bound', MemberID: 9, MemberName: 'Acme' }),
        expect: (out) => expect(json(out)).toMatchObject({ MemberID: 9, MemberName: 'Injected' }),
      },
    ],
  },
];
