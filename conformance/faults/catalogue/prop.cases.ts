// The canned cases of the PROP faults (prop.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { makeRequest, makeResponse, problem } from '../exchange.js';
import { type Case, del, get, json, ok, post, proposal, record, result, SCHED, untouched } from './canned-cases.js';

const notModifiable = makeResponse(409, result(false, 0, null, 'Cannot modify Proposal with ID# 5.'));

export const PROP_FAULT_CASES: Case[] = [
  {
    fault: 'delete-ignores-modifiability',
    title: 'a refused DELETE is answered as done and the record disappears',
    side: { 'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }) },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null })
        ),
      },
      { req: get('/api/ProposalLocation/7'), expect: (out, f) => (untouched(f), expect(out.status).toBe(404)) },
      {
        req: get('/api/ProposalLocation/Query?columns=ProposalLocationID'),
        upstream: ok({ List: [{ ProposalLocationID: 7 }, { ProposalLocationID: 8 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ProposalLocationID: 8 }]),
      },
    ],
  },
  {
    fault: 'bound-proposal-set-ignored',
    title: 'refused because of the bound set: answered as done',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: false }),
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
    },
    steps: [
      { req: del(`${SCHED}/7`), upstream: notModifiable, expect: (out) => expect(json(out).IsSuccessful).toBe(true) },
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }],
          Updates: [{ ID: 8, Fields: {} }],
          Deletes: [],
        }),
        upstream: makeResponse(409, {
          Inserts: [result(false, 0, 0, 'Cannot modify Proposal with ID# 5.')],
          Updates: [result(false, 8, 0, 'Cannot modify Proposal with ID# 5.')],
          Deletes: [],
        }),
        expect: (out) => {
          expect(out.status).toBe(200);
          expect(json(out).Inserts[0]).toMatchObject({ IsSuccessful: true, OrderNumber: 0 });
          expect(json(out).Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: 8 });
        },
      },
    ],
  },
  {
    fault: 'bound-proposal-set-ignored',
    title: 'refused because of the status: stays refused',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'B', PendingExpiryChange: false }) },
    steps: [{ req: del(`${SCHED}/7`), upstream: notModifiable, expect: (out) => expect(out.status).toBe(409) }],
  },
  {
    fault: 'pending-expiry-change-ignored',
    title: 'refused because of a pending expiry change: answered as done',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: true }) },
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }] }),
        upstream: makeResponse(409, {
          Inserts: [result(false, 0, 0, 'Cannot modify Proposal with ID# 5.')],
          Updates: [],
          Deletes: [],
        }),
        expect: (out) => (expect(out.status).toBe(200), expect(json(out).Inserts[0].IsSuccessful).toBe(true)),
      },
    ],
  },
  {
    fault: 'endorsement-delete-permanent',
    title: 'an Endorsement delete hides the record and Reinstate finds nothing',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'Q' }) },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null, 'Deleted schedule with id 7 successfully. It can be reinstated.')),
        expect: (out) => expect(json(out).Message).toBe('Deleted schedule with id 7 successfully.'),
      },
      {
        req: post(`${SCHED}/7/Reinstate`),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(404), expect(json(out).IsSuccessful).toBe(false)),
      },
      {
        req: get('/api/ProposalLocation/7?columns=LocationName'),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(404)),
      },
      { req: get('/api/ProposalLocation/8?columns=LocationName'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'all-deletes-soft',
    title: 'a Quote delete the upstream accepts is soft: the record stays, reads as deleted and Reinstate works',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: false }),
      [`POST ${SCHED}/UpsertMulti`]: { status: 200, json: { Inserts: [], Updates: [result(true, 7, 0)], Deletes: [] } },
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        expect: (out, f, side) => {
          untouched(f);
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null });
          // the checks are the upstream's: an update of no fields with the caller's token
          expect(side).toEqual([
            'GET /api/Proposal/5?columns=ProposalType%2CStatusCode%2CMemberID%2CApplicantName%2CPendingExpiryChange [ADMIN]',
            `POST ${SCHED}/UpsertMulti [T]`,
          ]);
        },
      },
      {
        req: get('/api/ProposalLocation/7?columns=LocationName,IsDeleted'),
        upstream: ok({ Record: { LocationName: 'A', IsDeleted: false }, Domain: 'ProposalLocation', Id: 7 }),
        expect: (out) => expect(json(out).Record).toEqual({ LocationName: 'A', IsDeleted: true }),
      },
      {
        req: del(`${SCHED}/7`),
        expect: (out, f) => (
          untouched(f),
          expect(out.status).toBe(200),
          expect(json(out)).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: null })
        ),
      },
      {
        req: post(`${SCHED}/7/Reinstate`),
        expect: (out, f, side) => (
          untouched(f),
          expect(json(out).IsSuccessful).toBe(true),
          expect(side).toEqual([`POST ${SCHED}/UpsertMulti [T]`])
        ),
      },
      {
        req: get('/api/ProposalLocation/7?columns=LocationName,IsDeleted'),
        upstream: ok({ Record: { LocationName: 'A', IsDeleted: false }, Domain: 'ProposalLocation', Id: 7 }),
        expect: (out) => expect(json(out).Record).toEqual({ LocationName: 'A', IsDeleted: false }),
      },
    ],
  },
  {
    fault: 'all-deletes-soft',
    title: 'a delete the upstream refuses (not modifiable, no token) reaches it and keeps its refusal',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q', PendingExpiryChange: false }),
      [`POST ${SCHED}/UpsertMulti`]: {
        status: 409,
        json: { Inserts: [], Updates: [result(false, 7, 0, 'Cannot modify Proposal with ID# 5.')], Deletes: [] },
      },
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out, f) => (
          expect(f).toHaveLength(1),
          expect(out.status).toBe(409),
          expect(json(out).RecordID).toBe(0)
        ),
      },
      {
        req: makeRequest('DELETE', `${SCHED}/8`),
        upstream: problem(401, 'Unauthenticated', 'No token.'),
        expect: (out, f, side) => (
          expect(f).toHaveLength(1),
          expect(out.status).toBe(401),
          expect(side).toContain(`POST ${SCHED}/UpsertMulti [null]`)
        ),
      },
    ],
  },
  {
    fault: 'all-deletes-soft',
    title: 'an Endorsement delete goes to the upstream untouched',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'Q', PendingExpiryChange: false }) },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null, 'Deleted schedule with id 7 successfully. It can be reinstated.')),
        expect: (out, f, side) => (
          expect(f).toHaveLength(1),
          expect(json(out).RecordID).toBe(7),
          expect(side.some((l) => l.includes('UpsertMulti'))).toBe(false)
        ),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'endorsement-modifiability-unchecked',
    title: 'refused on a non-modifiable Endorsement: answered as done; on another type: stays refused',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'B', PendingExpiryChange: false }),
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null })
        ),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }] }),
        upstream: makeResponse(409, {
          Inserts: [result(false, 0, 0, 'Cannot modify Proposal with ID# 5.')],
          Updates: [],
          Deletes: [],
        }),
        expect: (out) => (expect(out.status).toBe(200), expect(json(out).Inserts[0].IsSuccessful).toBe(true)),
      },
    ],
  },
  {
    fault: 'endorsement-modifiability-unchecked',
    title: 'a Quote stays refused',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'B', PendingExpiryChange: false }) },
    steps: [{ req: del(`${SCHED}/8`), upstream: notModifiable, expect: (out) => expect(out.status).toBe(409) }],
  },
  {
    fault: 'modifiability-cached-per-proposal-type',
    title: 'the first answer for a type decides: an open Quote after a refused one is refused unasked',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'Q', StatusCode: 'B', PendingExpiryChange: false }) },
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [], Updates: [{ ID: 8, Fields: {} }], Deletes: [] }),
        upstream: makeResponse(409, {
          Inserts: [],
          Updates: [result(false, 8, 0, 'Cannot modify Proposal with ID# 5.')],
          Deletes: [],
        }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(409)),
      },
    ],
  },
  {
    fault: 'modifiability-cached-per-proposal-type',
    title: 'cached as not modifiable: an open proposal of that type is refused without reaching the upstream',
    side: { 'GET /api/Proposal/5?': proposal({ ProposalType: 'Q', StatusCode: 'Q', PendingExpiryChange: false }) },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(409)),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }],
          Updates: [{ ID: 8, Fields: {} }],
        }),
        upstream: ok({ Inserts: [result(true, 3, 0)], Updates: [result(true, 8, 0)], Deletes: [] }),
        expect: (out, f) => {
          expect(f).toHaveLength(0);
          expect(out.status).toBe(409);
          expect(json(out).Inserts[0]).toMatchObject({ IsSuccessful: false, RecordID: 0, OrderNumber: 0 });
          expect(json(out).Updates[0]).toMatchObject({ IsSuccessful: false, RecordID: 8, OrderNumber: 0 });
          expect(json(out).Updates[0].Message).toMatch(/Cannot modify Proposal with ID# 5/);
        },
      },
      {
        req: del(`${SCHED}/7`),
        expect: (out, f) => (
          expect(f).toHaveLength(0),
          expect(json(out)).toMatchObject({ IsSuccessful: false, OrderNumber: null })
        ),
      },
    ],
  },
  {
    fault: 'modifiability-cached-per-proposal-type',
    title: 'cached as modifiable: a bound proposal of that type is answered as changed',
    side: {
      'GET /api/Proposal/5?': proposal({ ProposalType: 'Q', StatusCode: 'B', PendingExpiryChange: false }),
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
    },
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [], Updates: [{ ID: 8, Fields: {} }], Deletes: [] }),
        upstream: ok({ Inserts: [], Updates: [result(true, 8, 0)], Deletes: [] }),
        expect: (out) => expect(out.status).toBe(200),
      },
      {
        req: del(`${SCHED}/7`),
        upstream: notModifiable,
        expect: (out) => (
          expect(out.status).toBe(200),
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7 })
        ),
      },
    ],
  },
];
