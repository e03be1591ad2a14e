// The canned cases of the COL controls (col.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { type Case, get, json, ok } from './canned-cases.js';

export const COL_CONTROL_CASES: Record<string, Case[]> = {
  'default-columns-wider': [
    {
      req: get('/api/Claim/Query'),
      upstream: ok({ List: [{ A: 1 }] }),
      expect: (out) => expect(json(out).List[0]).toEqual({ A: 1, RowVersion: 'v1' }),
    },
    {
      req: get('/api/Claim/Query?columns=A'),
      upstream: ok({ List: [{ A: 1 }] }),
      expect: (out) => expect(json(out).List[0]).toEqual({ A: 1 }),
    },
  ],
};
