// The canned cases of the SCHED faults (sched.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { makeResponse, problem } from '../exchange.js';
import { type Case, del, get, json, ok, post, proposal, record, result, SCHED } from './canned-cases.js';

const upserted = (body: Record<string, unknown>) => ok({ Inserts: [], Updates: [], Deletes: [], ...body });

export const SCHED_FAULT_CASES: Case[] = [
  {
    fault: 'order-number-one-based',
    title: 'OrderNumber + 1',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }], Updates: [], Deletes: [] }),
        upstream: upserted({ Inserts: [result(true, 3, 0)], Updates: [result(false, 4, 0)] }),
        expect: (out) => expect([json(out).Inserts[0].OrderNumber, json(out).Updates[0].OrderNumber]).toEqual([1, 1]),
      },
    ],
  },
  {
    fault: 'atomic-batch-partly-committed',
    title: 'isAtomic=true is forwarded as false; the successes are hidden',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }],
        }),
        upstream: upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }),
        expect: (out, f) => {
          expect(f[0]!.query.get('isAtomic')).toBe('false');
          expect(json(out).Inserts).toEqual([result(false, 0, 1)]);
        },
      },
    ],
  },
  {
    fault: 'atomic-failure-lists-successes',
    title: 'the rolled-back items are listed as successful',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=True`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }],
          Deletes: [{ ID: 9 }],
        }),
        upstream: upserted({ Inserts: [result(false, 0, 1)] }),
        expect: (out) => {
          const b = json(out);
          expect(b.Inserts.map((r: any) => [r.IsSuccessful, r.OrderNumber])).toEqual([
            [true, 0],
            [false, 1],
          ]);
          expect(b.Deletes[0]).toMatchObject({ IsSuccessful: true, RecordID: 9, OrderNumber: 0 });
        },
      },
    ],
  },
  {
    fault: 'atomic-by-default',
    title: 'isAtomic=true is added',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.query.get('isAtomic')).toBe('true'),
      },
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.query.get('isAtomic')).toBe('false'),
      },
    ],
  },
  {
    fault: 'non-atomic-lists-only-failures',
    title: 'successes are dropped from a non-atomic answer with a failure',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }] }),
        upstream: upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }),
        expect: (out) => expect(json(out).Inserts).toEqual([result(false, 0, 1)]),
      },
    ],
  },
  {
    fault: 'non-atomic-stops-at-first-failure',
    title: 'items are sent one by one until the first failure',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }, { Fields: { LocationName: 'C' } }],
          Updates: [{ ID: 4, Fields: {} }],
        }),
        upstream: (req) => {
          const name = json(req).Inserts[0]?.Fields?.LocationName;
          return upserted({ Inserts: [name ? result(true, 10, 0) : result(false, 0, 0)] });
        },
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(json(out).Inserts.map((r: any) => [r.IsSuccessful, r.OrderNumber])).toEqual([
            [true, 0],
            [false, 1],
          ]);
          expect(json(out).Updates).toEqual([]);
        },
      },
    ],
  },
  {
    fault: 'failed-insert-record-id-minus-one',
    title: 'failed insert and delete RecordID 0 becomes -1',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }] }),
        upstream: upserted({
          Inserts: [result(false, 0, 0)],
          Updates: [result(false, 4, 0)],
          Deletes: [result(false, 0, 0)],
        }),
        expect: (out) =>
          expect([json(out).Inserts[0].RecordID, json(out).Updates[0].RecordID, json(out).Deletes[0].RecordID]).toEqual(
            [-1, 4, -1],
          ),
      },
      {
        req: del(`${SCHED}/7`),
        upstream: makeResponse(404, result(false, 0, null, 'not found')),
        expect: (out) => expect(json(out).RecordID).toBe(-1),
      },
    ],
  },
  {
    fault: 'failed-update-record-id-zero',
    title: 'failed update RecordID becomes 0',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Updates: [{ ID: 4, Fields: { LocationName: '' } }] }),
        upstream: upserted({ Updates: [result(false, 4, 0)] }),
        expect: (out) => expect(json(out).Updates[0].RecordID).toBe(0),
      },
    ],
  },
  {
    fault: 'location-name-not-required',
    title: 'a missing name gets a default; an emptied name is left out',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { City: 'Bangor' } }, { Fields: { LocationName: 'B' } }],
          Updates: [{ ID: 4, Fields: { LocationName: ' ', City: 'X' } }],
          Deletes: [],
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toEqual({
            Inserts: [
              { Fields: { City: 'Bangor', LocationName: 'Unnamed location' } },
              { Fields: { LocationName: 'B' } },
            ],
            Updates: [{ ID: 4, Fields: { City: 'X' } }],
            Deletes: [],
          }),
      },
      {
        req: post('/api/Quotes/Proposals/5/Schedules/ProposalVehicle/UpsertMulti', { Inserts: [{ Fields: {} }] }),
        expect: (_o, f) => expect(json(f[0]!)).toEqual({ Inserts: [{ Fields: {} }] }),
      },
    ],
  },
  {
    fault: 'reinstate-noop',
    title: 'Reinstate reaches the upstream; a success is undone by deleting the record again, a refusal passes',
    steps: [
      {
        req: post(`${SCHED}/7/Reinstate`),
        upstream: ok(result(true, 7, null, 'Reinstated schedule with id 7 successfully.')),
        expect: (out, f, side) => {
          expect(f).toHaveLength(1);
          expect(f[0]!.path).toBe(`${SCHED}/7/Reinstate`);
          expect(json(out)).toEqual(result(true, 7, null, 'Reinstated schedule with id 7 successfully.'));
          expect(side).toEqual([`DELETE ${SCHED}/7 [ADMIN]`]);
        },
      },
      {
        req: post(`${SCHED}/8/Reinstate`),
        upstream: problem(401, 'Unauthenticated', 'No token.'),
        expect: (out, f, side) => (expect(f).toHaveLength(1), expect(out.status).toBe(401), expect(side).toEqual([])),
      },
      {
        req: post(`${SCHED}/9/Reinstate`),
        upstream: makeResponse(409, result(false, 0, null, 'ProposalLocation schedule with id 9 is not deleted.')),
        expect: (out, f, side) => (
          expect(f).toHaveLength(1),
          expect(json(out).IsSuccessful).toBe(false),
          expect(side).toEqual([])
        ),
      },
    ],
  },
  {
    fault: 'foreign-schedule-record-changed',
    title: "an update of another proposal's record goes to that proposal",
    side: {
      'GET /api/ProposalLocation/7?': record({ ProposalID: 5 }),
      'GET /api/ProposalLocation/8?': record({ ProposalID: 6 }),
    },
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [],
          Updates: [
            { ID: 8, Fields: { City: 'X' } },
            { ID: 7, Fields: { City: 'Y' } },
          ],
          Deletes: [],
        }),
        upstream: (req) => upserted({ Updates: json(req).Updates.map((u: any, i: number) => result(true, u.ID, i)) }),
        expect: (out, f) => {
          expect(f.map((r) => r.path)).toEqual([
            `${SCHED}/UpsertMulti`,
            '/api/Quotes/Proposals/6/Schedules/ProposalLocation/UpsertMulti',
          ]);
          expect(json(f[0]!).Updates).toEqual([{ ID: 7, Fields: { City: 'Y' } }]);
          expect(json(out).Updates.map((r: any) => [r.RecordID, r.OrderNumber, r.IsSuccessful])).toEqual([
            [8, 0, true],
            [7, 1, true],
          ]);
        },
      },
    ],
  },
  {
    fault: 'invalid-schedule-domain-accepted',
    title: 'InvalidScheduleDomain becomes an all-successful answer',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/Schedules/Claim/UpsertMulti', {
          Inserts: [{ Fields: { LocationName: 'A' } }],
        }),
        upstream: problem(404, 'InvalidScheduleDomain', 'no'),
        expect: (out) => (expect(out.status).toBe(200), expect(json(out).Inserts[0].IsSuccessful).toBe(true)),
      },
    ],
  },
  {
    fault: 'single-delete-order-number-zero',
    title: 'OrderNumber null becomes 0',
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null)),
        expect: (out) => expect(json(out).OrderNumber).toBe(0),
      },
    ],
  },
  {
    fault: 'success-message-empty',
    title: 'success messages are emptied',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }] }),
        upstream: upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }),
        expect: (out) =>
          expect(json(out).Inserts.map((r: any) => r.Message)).toEqual(['', 'LocationName is required.']),
      },
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null)),
        expect: (out) => expect(json(out).Message).toBe(''),
      },
    ],
  },
  // Faults that only whole read-backs or waiting to the deadline catch
  {
    fault: 'rollback-keeps-valid-inserts',
    title: 'after a rolled-back atomic batch its valid inserts are committed on their own',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }, { Fields: { LocationName: 'C' } }],
          Updates: [{ ID: 7, Fields: { City: 'X' } }],
          Deletes: [],
        }),
        upstream: (_req, n) => (n === 0 ? upserted({ Inserts: [result(false, 0, 1)] }) : upserted({})),
        expect: (out, f) => {
          expect(f).toHaveLength(2);
          expect(f[1]!.query.get('isAtomic')).toBe('false');
          expect(json(f[1]!)).toEqual({
            Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { LocationName: 'C' } }],
            Updates: [],
            Deletes: [],
          });
          expect(json(out).Inserts).toEqual([result(false, 0, 1)]);
        },
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }], Updates: [], Deletes: [] }),
        upstream: upserted({ Inserts: [result(false, 0, 0)] }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
    ],
  },
  {
    fault: 'atomic-never-commits',
    title: 'a failing item is appended; the rollback is answered as success, real failures pass through',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { LocationName: 'A' } }],
          Updates: [{ ID: 7, Fields: { City: 'X' } }],
          Deletes: [],
        }),
        upstream: upserted({ Inserts: [result(false, 0, 1)] }),
        expect: (out, f) => {
          expect(json(f[0]!).Inserts).toEqual([{ Fields: { LocationName: 'A' } }, { Fields: {} }]);
          const b = json(out);
          expect(b.Inserts.map((r: any) => [r.IsSuccessful, r.OrderNumber])).toEqual([[true, 0]]);
          expect(b.Updates[0]).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: 0 });
        },
      },
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, { Inserts: [{ Fields: {} }], Updates: [], Deletes: [] }),
        upstream: upserted({ Inserts: [result(false, 0, 0), result(false, 0, 1)] }),
        expect: (out) => expect(json(out).Inserts).toEqual([result(false, 0, 0)]),
      },
    ],
  },
  {
    fault: 'failed-insert-leaves-record',
    title: 'each failed non-atomic insert is stored again with a placeholder name',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: { City: 'X' } }],
          Updates: [],
          Deletes: [],
        }),
        upstream: (_req, n) =>
          n === 0 ? upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }) : upserted({}),
        expect: (out, f) => {
          expect(json(f[1]!).Inserts).toEqual([{ Fields: { City: 'X', LocationName: 'Unnamed location' } }]);
          expect(json(out).Inserts).toEqual([result(true, 3, 0), result(false, 0, 1)]);
        },
      },
    ],
  },
  {
    fault: 'insert-committed-twice',
    title: 'the successful non-atomic inserts are sent once more',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, {
          Inserts: [{ Fields: { LocationName: 'A' } }, { Fields: {} }],
          Updates: [],
          Deletes: [],
        }),
        upstream: (_req, n) =>
          n === 0 ? upserted({ Inserts: [result(true, 3, 0), result(false, 0, 1)] }) : upserted({}),
        expect: (out, f) => {
          expect(json(f[1]!).Inserts).toEqual([{ Fields: { LocationName: 'A' } }]);
          expect(json(out).Inserts[0]).toEqual(result(true, 3, 0));
        },
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'endorsement-delete-finds-record-by-id-alone',
    title: "a DELETE through an Endorsement of another proposal's record goes to that proposal",
    side: {
      'GET /api/ProposalLocation/7?': record({ ProposalID: 6 }),
      'GET /api/Proposal/5?': proposal({ ProposalType: 'E', StatusCode: 'Q' }),
    },
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null, 'Deleted schedule with id 7 successfully.')),
        expect: (out, f) => (
          expect(f[0]!.path).toBe('/api/Quotes/Proposals/6/Schedules/ProposalLocation/7'),
          expect(json(out).IsSuccessful).toBe(true)
        ),
      },
    ],
  },
  {
    fault: 'endorsement-delete-finds-record-by-id-alone',
    title: 'a Quote, or a record of the proposal itself, is forwarded unchanged',
    side: {
      'GET /api/ProposalLocation/7?': record({ ProposalID: 6 }),
      'GET /api/ProposalLocation/8?': record({ ProposalID: 5 }),
      'GET /api/Proposal/5?': proposal({ ProposalType: 'N', StatusCode: 'Q' }),
    },
    steps: [
      { req: del(`${SCHED}/7`), expect: (_o, f) => expect(f[0]!.path).toBe(`${SCHED}/7`) },
      { req: del(`${SCHED}/8`), expect: (_o, f) => expect(f[0]!.path).toBe(`${SCHED}/8`) },
    ],
  },
  {
    fault: 'schedule-write-path-latin1',
    title: 'the UTF-8 bytes of a non-ASCII field reach the upstream read as Latin-1; an ASCII body is untouched',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'Zoë 東' } }],
          Updates: [],
          Deletes: [],
        }),
        expect: (_o, f) => expect(json(f[0]!).Inserts[0].Fields.LocationName).toBe('ZoÃ« æ\u009d±'),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: 'Plain' } }],
          Updates: [],
          Deletes: [],
        }),
        expect: (_o, f) => expect(json(f[0]!).Inserts[0].Fields.LocationName).toBe('Plain'),
      },
    ],
  },
  {
    fault: 'update-debounced-within-two-seconds',
    title:
      'a second valid update of a record at once is dropped and acknowledged; an emptying one and other records pass',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, { Updates: [{ ID: 7, Fields: { LocationName: 'A' } }] }),
        upstream: upserted({ Updates: [result(true, 7, 0)] }),
        expect: (out, f) => {
          expect(f).toHaveLength(1);
          expect(json(f[0]!).Updates).toEqual([{ ID: 7, Fields: { LocationName: 'A' } }]);
          expect(json(out).Updates).toEqual([result(true, 7, 0)]);
        },
      },
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, {
          Updates: [
            { ID: 8, Fields: { LocationName: 'B' } },
            { ID: 7, Fields: { LocationName: 'C' } },
            { ID: 7, Fields: { LocationName: '' } },
          ],
        }),
        // the upstream numbers what it got: 8 at 0, the emptying update of 7 at 1
        upstream: upserted({ Updates: [result(true, 8, 0), result(false, 7, 1)] }),
        expect: (out, f) => {
          expect(json(f[0]!).Updates).toEqual([
            { ID: 8, Fields: { LocationName: 'B' } },
            { ID: 7, Fields: { LocationName: '' } },
          ]);
          expect(json(out).Updates.map((r: any) => [r.RecordID, r.OrderNumber, r.IsSuccessful])).toEqual([
            [8, 0, true],
            [7, 1, true],
            [7, 2, false],
          ]);
        },
      },
    ],
  },
  {
    fault: 'reinstate-again-inserts-copy',
    title: 'a refused Reinstate of a record restored before inserts a copy and answers success; others pass',
    side: {
      'GET /api/ProposalLocation/7?columns=': record({
        LocationName: 'L7',
        Address1: 'a',
        City: 'c',
        StateCode: 's',
        ZipCode: 'z',
      }),
      [`POST ${SCHED}/UpsertMulti?isAtomic=false`]: { status: 200, json: { Inserts: [result(true, 99, 0)] } },
    },
    steps: [
      {
        req: post(`${SCHED}/9/Reinstate`),
        upstream: makeResponse(409, result(false, 0, null, 'not deleted')),
        expect: (out, _f, side) => (expect(out.status).toBe(409), expect(side).toEqual([])),
      },
      {
        req: post(`${SCHED}/7/Reinstate`),
        upstream: ok(result(true, 7, null, 'Reinstated.')),
        expect: (out, _f, side) => (expect(json(out).IsSuccessful).toBe(true), expect(side).toEqual([])),
      },
      {
        req: post(`${SCHED}/7/Reinstate`),
        upstream: makeResponse(409, result(false, 0, null, 'not deleted')),
        expect: (out, _f, side) => {
          expect(out.status).toBe(200);
          expect(json(out)).toMatchObject({ IsSuccessful: true, RecordID: 7, OrderNumber: null });
          expect(side).toEqual([
            'GET /api/ProposalLocation/7?columns=LocationName%2CAddress1%2CCity%2CStateCode%2CZipCode [ADMIN]',
            `POST ${SCHED}/UpsertMulti?isAtomic=false [ADMIN]`,
          ]);
        },
      },
    ],
  },
  {
    fault: 'reinstate-finds-record-by-id-alone',
    title:
      "a refused Reinstate through another proposal's path is sent again through the proposal that deleted the record",
    steps: [
      {
        req: del(`${SCHED}/7`),
        upstream: ok(result(true, 7, null, 'Deleted.')),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: post('/api/Quotes/Proposals/6/Schedules/ProposalLocation/7/Reinstate'),
        upstream: (req) =>
          req.path.includes('/Proposals/5/')
            ? ok(result(true, 7, null, 'Reinstated.'))
            : makeResponse(404, result(false, 0, null, 'not found')),
        expect: (out, f) => {
          expect(f.map((r) => r.path)).toEqual([
            '/api/Quotes/Proposals/6/Schedules/ProposalLocation/7/Reinstate',
            `${SCHED}/7/Reinstate`,
          ]);
          expect(json(out).IsSuccessful).toBe(true);
        },
      },
      {
        // a record no DELETE went through: passes
        req: post('/api/Quotes/Proposals/6/Schedules/ProposalLocation/8/Reinstate'),
        upstream: makeResponse(404, result(false, 0, null, 'not found')),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(404)),
      },
    ],
  },
  {
    fault: 'stale-schedule-read-cache',
    title: 'a schedule record read again answers the first answer; other domains and URLs are asked',
    steps: [
      {
        req: get('/api/ProposalLocation/7?columns=City'),
        upstream: ok({ Record: { City: 'Old' }, Domain: 'ProposalLocation', Id: 7 }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).Record.City).toBe('Old')),
      },
      {
        req: get('/api/ProposalLocation/7?columns=City'),
        upstream: ok({ Record: { City: 'New' }, Domain: 'ProposalLocation', Id: 7 }),
        expect: (out, f) => (expect(f).toHaveLength(0), expect(json(out).Record.City).toBe('Old')),
      },
      {
        req: get('/api/ProposalLocation/7?columns=City,LocationName'),
        upstream: ok({ Record: { City: 'New', LocationName: 'A' }, Domain: 'ProposalLocation', Id: 7 }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).Record.City).toBe('New')),
      },
      {
        req: get('/api/Claim/7?columns=City'),
        upstream: ok({ Record: { City: 'New' }, Domain: 'Claim', Id: 7 }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      { req: get('/api/Claim/7?columns=City'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'update-refused-for-untouched-location-name',
    title: 'an update without LocationName is sent as emptying it; one that names it and inserts are kept',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {
          Inserts: [{ Fields: { City: 'X' } }],
          Updates: [
            { ID: 7, Fields: { City: 'Y' } },
            { ID: 8, Fields: { LocationName: 'B' } },
          ],
          Deletes: [{ ID: 9 }],
        }),
        expect: (_o, f) => {
          const sent = json(f[0]!);
          expect(f[0]!.query.get('isAtomic')).toBe('true');
          expect(sent.Inserts).toEqual([{ Fields: { City: 'X' } }]);
          expect(sent.Updates).toEqual([
            { ID: 7, Fields: { City: 'Y', LocationName: '' } },
            { ID: 8, Fields: { LocationName: 'B' } },
          ]);
          expect(sent.Deletes).toEqual([{ ID: 9 }]);
        },
      },
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [],
          Updates: [{ ID: 8, Fields: { LocationName: 'B' } }],
          Deletes: [],
        }),
        expect: (_o, f) => expect(json(f[0]!).Updates).toEqual([{ ID: 8, Fields: { LocationName: 'B' } }]),
      },
    ],
  },
  {
    fault: 'atomic-flag-sticks-to-next-batch',
    title: 'the batch after an atomic one of the proposal is sent atomic, once; other proposals are untouched',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=true`, { Inserts: [{ Fields: { LocationName: 'A' } }] }),
        expect: (_o, f) => expect(f[0]!.query.get('isAtomic')).toBe('true'),
      },
      {
        req: post('/api/Quotes/Proposals/6/Schedules/ProposalLocation/UpsertMulti', { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.query.has('isAtomic')).toBe(false),
      },
      {
        req: post(`${SCHED}/UpsertMulti?isAtomic=false`, { Inserts: [{ Fields: {} }] }),
        expect: (_o, f) => expect(f[0]!.query.get('isAtomic')).toBe('true'),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: {} }] }),
        expect: (_o, f) => expect(f[0]!.query.has('isAtomic')).toBe(false),
      },
    ],
  },
  {
    fault: 'schedule-domain-matched-without-case',
    title: 'a wrongly cased schedule domain reaches the schedule domain; the exact name and other domains pass',
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/Schedules/proposallocation/UpsertMulti', { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.path).toBe('/api/Quotes/Proposals/5/Schedules/ProposalLocation/UpsertMulti'),
      },
      {
        req: del('/api/Quotes/Proposals/5/Schedules/PROPOSALLOCATION/7'),
        expect: (_o, f) => expect(f[0]!.path).toBe(`${SCHED}/7`),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.path).toBe(`${SCHED}/UpsertMulti`),
      },
      {
        req: post('/api/Quotes/Proposals/5/Schedules/claim/UpsertMulti', { Inserts: [] }),
        expect: (_o, f) => expect(f[0]!.path).toBe('/api/Quotes/Proposals/5/Schedules/claim/UpsertMulti'),
      },
    ],
  },
  {
    fault: 'second-schedule-domain-refused',
    title: "a proposal's first accepted domain is its only one afterwards; a refused first domain is not remembered",
    steps: [
      {
        req: post('/api/Quotes/Proposals/5/Schedules/Claim/UpsertMulti', { Inserts: [] }),
        upstream: problem(404, 'InvalidScheduleDomain', 'no'),
        expect: (out) => expect(out.status).toBe(404),
      },
      {
        req: post('/api/Quotes/Proposals/5/Schedules/ProposalVehicle/UpsertMulti', { Inserts: [] }),
        upstream: upserted({}),
        expect: (_o, f) => expect(f[0]!.path).toBe('/api/Quotes/Proposals/5/Schedules/ProposalVehicle/UpsertMulti'),
      },
      {
        req: post(`${SCHED}/UpsertMulti`, { Inserts: [{ Fields: { LocationName: 'A' } }] }),
        upstream: problem(404, 'InvalidScheduleDomain', 'no'),
        expect: (out, f) => {
          expect(f[0]!.path).toBe('/api/Quotes/Proposals/5/Schedules/NoSuchScheduleDomain/UpsertMulti');
          expect(out.status).toBe(404);
        },
      },
      {
        req: post('/api/Quotes/Proposals/6/Schedules/ProposalLocation/UpsertMulti', { Inserts: [] }),
        upstream: upserted({}),
        expect: (_o, f) => expect(f[0]!.path).toBe('/api/Quotes/Proposals/6/Schedules/ProposalLocation/UpsertMulti'),
      },
    ],
  },
  {
    fault: 'location-name-zero-taken-as-empty',
    title: 'LocationName "0" is sent empty, in inserts and updates; other names and domains pass',
    steps: [
      {
        req: post(`${SCHED}/UpsertMulti`, {
          Inserts: [{ Fields: { LocationName: '0', City: 'c' } }, { Fields: { LocationName: '10' } }],
          Updates: [{ ID: 7, Fields: { LocationName: '0' } }],
          Deletes: [],
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toEqual({
            Inserts: [{ Fields: { LocationName: '', City: 'c' } }, { Fields: { LocationName: '10' } }],
            Updates: [{ ID: 7, Fields: { LocationName: '' } }],
            Deletes: [],
          }),
      },
      {
        req: post('/api/Quotes/Proposals/5/Schedules/ProposalVehicle/UpsertMulti', {
          Inserts: [{ Fields: { LocationName: '0' } }],
        }),
        expect: (_o, f) => expect(json(f[0]!).Inserts).toEqual([{ Fields: { LocationName: '0' } }]),
      },
    ],
  },
];
