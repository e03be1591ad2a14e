// The canned cases of the LINK controls (link.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, codeAndStatus, get, json, ok, post, run, type ScriptedCase, status } from './canned-cases.js';

const UPSERT_BRK = {
  ParentDomain: 'Claim',
  ParentRecordID: 4,
  ChildDomain: 'Contact',
  ChildRecordID: 7,
  Relationship: 'BRK',
};
const PAIR_QUERY =
  '/api/Link/Query?parentDomain=Claim&childDomain=Contact&childRecordID=7&columns=ParentID,ChildID,ContactTypeID';

export const LINK_CONTROL_CASES: Record<string, Case[]> = {
  'link-bad-request-422': [
    { req: post('/api/Link/Upsert', {}), upstream: problem(400, 'MalformedRequest', 'x'), expect: status(422) },
    { req: post('/api/Link/Remove', {}), upstream: problem(409, 'Conflict', 'x'), expect: status(422) },
    { req: get('/api/Claim/Query?take=0'), upstream: problem(400, 'MalformedRequest', 'x'), expect: status(400) },
  ],
  'link-body-nested': [
    {
      req: post('/api/Link/Upsert', {
        Parent: { Domain: 'Claim', RecordID: 4 },
        Child: { Domain: 'Contact', RecordKey: 'k', MatchField: 'Email' },
        Relationship: 'Broker',
      }),
      expect: (_out, f) =>
        expect(json(f[0]!)).toEqual({
          ParentDomain: 'Claim',
          ParentRecordID: 4,
          ChildDomain: 'Contact',
          ChildRecordKey: 'k',
          ChildRecordMatchField: 'Email',
          Relationship: 'Broker',
        }),
    },
  ],
  'link-body-camel-case': [
    {
      req: post('/api/Link/Upsert', { parentDomain: 'Claim', childRecordId: 4, ParentRecordID: 9 }),
      expect: (_out, f) => expect(json(f[0]!)).toEqual({ ParentDomain: 'Claim', ChildRecordID: 4 }),
    },
  ],
  'link-query-params-renamed': [
    {
      req: get('/api/Link/Query?parentDomain=Claim&parentId=4&parentRecordID=9'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('parentDomain=Claim&parentRecordID=4'),
    },
  ],
  'relationship-column-as-code': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentID,Relationship'),
      upstream: (req) => {
        expect(req.query.get('columns')).toBe('ParentID,ContactTypeID as Relationship');
        return ok({
          List: [
            { ParentID: 1, Relationship: 3 },
            { ParentID: 2, Relationship: null },
          ],
        });
      },
      expect: (out) =>
        expect(json(out).List).toEqual([
          { ParentID: 1, Relationship: 'CT3' },
          { ParentID: 2, Relationship: null },
        ]),
    },
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ContactTypeID'),
      expect: (out, f) => (expect(out.status).toBe(400), expect(f).toHaveLength(0)),
    },
  ],
  'link-query-documented-columns-only': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentID,ContactTypeID as R'),
      expect: (out, f) => (codeAndStatus(400, 'UnknownColumn')(out), expect(f).toHaveLength(0)),
    },
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentDomainID,ParentID as P,ChildDomainID,ChildID'),
      upstream: ok({ List: [] }),
      expect: (out, f) => (expect(out.status).toBe(200), expect(f).toHaveLength(1)),
    },
    { req: get('/api/Link/Query?childDomain=Contact'), upstream: ok({ List: [] }), expect: status(200) },
  ],
  'link-query-undocumented-columns-left-out': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=ParentID,ContactTypeID as R,LinkID'),
      upstream: ok({ List: [{ ParentID: 1, R: 3, LinkID: 9 }] }),
      expect: (out) => expect(json(out).List).toEqual([{ ParentID: 1 }]),
    },
  ],
  'link-id-as-string': [
    {
      req: get('/api/Link/Query?childDomain=Contact&columns=LinkID'),
      upstream: ok({ List: [{ LinkID: 7 }] }),
      expect: (out) => expect(json(out).List[0].LinkID).toBe('L-7'),
    },
  ],
  'link-writes-answer-204': [
    { req: post('/api/Link/Remove', {}), upstream: ok({ IsSuccessful: true }), expect: status(204) },
    { req: post('/api/Link/Remove', {}), upstream: ok({ IsSuccessful: false }), expect: status(200) },
  ],
  'link-remove-missing-404': [
    {
      req: post('/api/Link/Remove', {}),
      upstream: ok({ IsSuccessful: false, Message: 'No link.' }),
      expect: codeAndStatus(404, 'RecordNotFound'),
    },
  ],
  'link-upsert-other-result': [
    {
      req: post('/api/Link/Upsert', {}),
      upstream: ok({ IsSuccessful: true, LinkID: 1, ParentRecordID: 2, ChildRecordID: 3 }),
      expect: (out) => expect(json(out)).toEqual({ Created: true, Link: { Parent: 2, Child: 3 } }),
    },
  ],
  'link-identified-by-relationship': [
    {
      // the reference's link of the pair carries ADJ (1): an Upsert with BRK is a link of its own,
      // once the reference has accepted the request for its own link (with ADJ: nothing changes)
      req: post('/api/Link/Upsert', UPSERT_BRK),
      side: { 'GET /api/Link/Query?': { List: [{ ContactTypeID: 1 }] } },
      upstream: ok({ IsSuccessful: true, LinkID: 5, ParentRecordID: 4, ChildRecordID: 7 }),
      expect: (out, f) => {
        expect(f.map((r) => json(r).Relationship)).toEqual(['ADJ']);
        expect(json(out)).toMatchObject({ IsSuccessful: true, ParentRecordID: 4, ChildRecordID: 7 });
        expect(json(out).LinkID).not.toBe(5);
      },
    },
    {
      // refused for the reference's link (permissions): refused, no link kept
      req: post('/api/Link/Upsert', UPSERT_BRK),
      side: { 'GET /api/Link/Query?': { List: [{ ContactTypeID: 1 }] } },
      upstream: problem(403, 'Forbidden', 'no'),
      expect: status(403),
    },
    {
      // the same relationship, or no link yet: the reference's own Upsert, as sent
      req: post('/api/Link/Upsert', UPSERT_BRK),
      side: { 'GET /api/Link/Query?': { List: [{ ContactTypeID: 2 }] } },
      expect: (_out, f) => expect(f.map((r) => json(r).Relationship)).toEqual(['BRK']),
    },
  ],
  'link-query-newest-first': [
    {
      req: get('/api/Link/Query?childDomain=File'),
      upstream: ok({ List: [{ ParentID: 1 }, { ParentID: 2 }] }),
      expect: (out) => expect(json(out).List).toEqual([{ ParentID: 2 }, { ParentID: 1 }]),
    },
  ],
};

/** Cases that need one memory across several exchanges, written out. */
export const LINK_CONTROL_SCRIPTS: ScriptedCase[] = [
  {
    control: 'link-identified-by-relationship',
    title: 'a second relationship is a second link in Link/Query; Remove with it takes that link only',
    async run() {
      const memory = new Map<string, any>();
      const name = 'link-identified-by-relationship';
      const reference = { 'GET /api/Link/Query?': { List: [{ ContactTypeID: 1 }] } };
      const accepted = ok({ IsSuccessful: true, LinkID: 5, ParentRecordID: 4, ChildRecordID: 7 });
      await run(
        name,
        { req: post('/api/Link/Upsert', UPSERT_BRK), side: reference, upstream: accepted, expect: () => {} },
        memory,
      );
      await run(
        name,
        {
          req: get(PAIR_QUERY),
          upstream: ok({ List: [{ ParentID: 4, ChildID: 7, ContactTypeID: 1 }] }),
          expect: (out) =>
            expect(json(out).List).toEqual([
              { ParentID: 4, ChildID: 7, ContactTypeID: 1 },
              { ParentID: 4, ChildID: 7, ContactTypeID: 2 },
            ]),
        },
        memory,
      );
      await run(
        name,
        {
          req: post('/api/Link/Remove', UPSERT_BRK),
          side: reference,
          upstream: ok({ IsSuccessful: true }),
          expect: (out, f) => {
            // the reference judges the same Remove for its own link (then put back as it was)
            expect(f.map((r) => json(r).Relationship)).toEqual(['ADJ']);
            expect(json(out)).toMatchObject({ IsSuccessful: true });
          },
        },
        memory,
      );
      await run(
        name,
        {
          req: get(PAIR_QUERY),
          upstream: ok({ List: [{ ParentID: 4, ChildID: 7, ContactTypeID: 1 }] }),
          expect: (out) => expect(json(out).List).toEqual([{ ParentID: 4, ChildID: 7, ContactTypeID: 1 }]),
        },
        memory,
      );
    },
  },
];
