// The canned cases of the PROP controls (prop.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { makeResponse } from '../exchange.js';
import { type Case, del, json, notModifiable, post, result, SCHED, status } from './canned-cases.js';

export const PROP_CONTROL_CASES: Record<string, Case[]> = {
  'not-modifiable-200': [
    {
      req: del(`${SCHED}/7`),
      upstream: notModifiable,
      expect: (out) => {
        expect(out.status).toBe(200);
        expect(json(out)).toMatchObject({ IsSuccessful: false, RecordID: 0 });
      },
    },
  ],
  'not-modifiable-422': [{ req: post(`${SCHED}/UpsertMulti`, {}), upstream: notModifiable, expect: status(422) }],
  'not-modifiable-says-locked': [
    {
      req: del(`${SCHED}/7`),
      upstream: notModifiable,
      expect: (out) => expect(json(out).Message).toBe('Proposal 12 is locked and cannot be changed.'),
    },
  ],
  'not-modifiable-says-read-only': [
    {
      req: post(`${SCHED}/UpsertMulti`, {}),
      upstream: makeResponse(409, {
        Inserts: [result(false, 0, 0, 'Proposal with ID# 12 cannot be modified.')],
        Updates: [],
        Deletes: [],
      }),
      expect: (out) => expect(json(out).Inserts[0].Message).toBe('Proposal 12 is read-only; no changes were made.'),
    },
  ],
};
