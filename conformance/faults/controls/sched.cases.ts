// The canned cases of the SCHED controls (sched.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { makeResponse, problem } from '../exchange.js';
import { type Case, del, json, notModifiable, ok, post, result, SCHED, status } from './canned-cases.js';

export const SCHED_CONTROL_CASES: Record<string, Case[]> = {
  'invalid-schedule-domain-400': [
    {
      req: post('/api/Quotes/Proposals/12/Schedules/Claim/UpsertMulti', {}),
      upstream: problem(404, 'InvalidScheduleDomain', 'x'),
      expect: status(400),
    },
  ],
  'reinstate-refused-200': [
    {
      req: post(`${SCHED}/7/Reinstate`),
      upstream: makeResponse(409, result(false, 0, null, 'not deleted')),
      expect: (out) => {
        expect(out.status).toBe(200);
        expect(json(out).IsSuccessful).toBe(false);
      },
    },
  ],
  'reinstate-answers-204': [
    { req: post(`${SCHED}/7/Reinstate`), upstream: ok(result(true, 7, null, 'Reinstated.')), expect: status(204) },
  ],
  'location-name-other-words': [
    {
      req: post(`${SCHED}/UpsertMulti`, {}),
      upstream: ok({ Inserts: [result(false, 0, 0, 'LocationName is required.')], Updates: [], Deletes: [] }),
      expect: (out) => expect(json(out).Inserts[0].Message).toBe('LocationName: a value must be provided.'),
    },
  ],
  'schedule-messages-other-words': [
    {
      req: post(`${SCHED}/UpsertMulti`, {}),
      upstream: ok({
        Inserts: [result(true, 17, 0, 'Inserted schedule with id 17 successfully.')],
        Updates: [],
        Deletes: [],
      }),
      expect: (out) => expect(json(out).Inserts[0].Message).toBe('Schedule 17 was inserted.'),
    },
  ],
  'warnings-empty-list': [
    {
      req: del(`${SCHED}/7`),
      upstream: ok(result(true, 7, null, 'Deleted.')),
      expect: (out) => expect(json(out).Warnings).toEqual([]),
    },
    // section 7 documents Warnings null for the refused DELETE on a non-modifiable proposal
    { req: del(`${SCHED}/7`), upstream: notModifiable, expect: (out) => expect(json(out).Warnings).toBeNull() },
  ],
};
