// The canned cases of the MEM controls (mem.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { jsonString } from '../exchange.js';
import { type Case, json, ok, post } from './canned-cases.js';

export const MEM_CONTROL_CASES: Record<string, Case[]> = {
  'member-assigned-other-words': [
    {
      req: post('/api/Quotes/Proposals/12/CreateMember'),
      upstream: jsonString(500, 'MemberID is already assigned to Proposal record.'),
      side: { 'GET /api/Proposal/12': { Record: { MemberID: 34 } } },
      expect: (out) => {
        expect(out.status).toBe(500);
        expect(json(out)).toBe('Proposal 12 already has a member (MemberID 34); nothing was created.');
      },
    },
  ],
  'member-body-refused-as-validation-failure': [
    {
      req: post('/api/Quotes/Proposals/12/CreateMember', { MemberName: 'X' }),
      upstream: jsonString(500, 'must not be forwarded'),
      expect: (out) => {
        expect(out.status).toBe(200);
        expect(json(out)).toEqual({ IsSuccessful: false, RecordID: 0, Message: 'CreateMember takes no body' });
      },
    },
    {
      req: post('/api/Quotes/Proposals/12/CreateMember'),
      upstream: ok({ IsSuccessful: true, RecordID: 7, Message: null }),
      expect: (out) => expect(json(out)).toEqual({ IsSuccessful: true, RecordID: 7, Message: null }),
    },
  ],
};
