// The canned cases of the REC controls (rec.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { problem } from '../exchange.js';
import { type Case, codeAndStatus, get } from './canned-cases.js';

export const REC_CONTROL_CASES: Record<string, Case[]> = {
  'missing-record-400': [
    {
      req: get('/api/Claim/9'),
      upstream: problem(404, 'RecordNotFound', 'x'),
      expect: codeAndStatus(400, 'RecordNotFound'),
    },
  ],
  'missing-record-410': [
    {
      req: get('/api/Claim/9'),
      upstream: problem(404, 'RecordNotFound', 'x'),
      expect: codeAndStatus(410, 'RecordNotFound'),
    },
  ],
};
