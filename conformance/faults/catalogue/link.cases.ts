// The canned cases of the LINK faults (link.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, get, json, ok, post, untouched } from './canned-cases.js';

export const LINK_FAULT_CASES: Case[] = [
  {
    fault: 'non-linkable-child-accepted',
    title: 'a Note link is faked, listed and removable; Contact links pass',
    side: { 'GET /api/Claim/1': { status: 200, json: {} }, 'GET /api/Note/2': { status: 200, json: {} } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Note',
          ChildRecordID: 2,
        }),
        expect: (out, f, side) => {
          untouched(f);
          expect(json(out)).toMatchObject({ IsSuccessful: true, ParentRecordID: 1, ChildRecordID: 2, Message: null });
          expect(side).toEqual(['GET /api/Claim/1 [T]', 'GET /api/Note/2 [T]']);
        },
      },
      {
        req: get(
          '/api/Link/Query?childDomain=Note&childRecordID=2&columns=ParentDomainID,ParentID,ChildDomainID,ChildID',
        ),
        upstream: problem(400, 'MalformedRequest', 'Note is not linkable'),
        expect: (out) => {
          expect(out.status).toBe(200);
          expect(json(out).List).toEqual([{ ParentDomainID: 1, ParentID: 1, ChildDomainID: 5, ChildID: 2 }]);
        },
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 2,
        }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Note',
          ChildRecordID: 2,
        }),
        expect: (out, f) => (untouched(f), expect(json(out).IsSuccessful).toBe(true)),
      },
      {
        req: get('/api/Link/Query?childDomain=Note&childRecordID=2'),
        upstream: ok({ List: [] }),
        expect: (out) => expect(json(out).List).toEqual([]),
      },
    ],
  },
  {
    fault: 'match-field-wins-over-primary-key',
    title: 'the primary key is dropped where a match field is given',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'C-2',
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toEqual({
            ParentDomain: 'Claim',
            ParentRecordMatchField: 'ClaimNumber',
            ParentRecordKey: 'C-2',
            ChildDomain: 'Contact',
            ChildRecordID: 3,
          }),
      },
    ],
  },
  {
    fault: 'relationship-stored-on-file-link',
    title: 'a File link shows the relationship given at upsert',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 5,
          Relationship: 'BRK',
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 3, ParentRecordID: 1, ChildRecordID: 5, Message: null }),
        expect: (out) => expect(json(out).LinkID).toBe(3),
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=5&columns=ParentID,ContactTypeID'),
        upstream: ok({
          List: [
            { ParentID: 1, ContactTypeID: null },
            { ParentID: 2, ContactTypeID: null },
          ],
        }),
        expect: (out) =>
          expect(json(out).List).toEqual([
            { ParentID: 1, ContactTypeID: 2 },
            { ParentID: 2, ContactTypeID: null },
          ]),
      },
    ],
  },
  {
    fault: 'link-query-parent-domain-ignored',
    title: 'parentDomain is dropped when childDomain is given',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&parentDomain=Claim'),
        expect: (_o, f) => expect(f[0]!.query.has('parentDomain')).toBe(false),
      },
      {
        req: get('/api/Link/Query?parentDomain=Claim'),
        expect: (_o, f) => expect(f[0]!.query.get('parentDomain')).toBe('Claim'),
      },
    ],
  },
  {
    fault: 'link-query-child-record-ignored',
    title: 'childRecordID is dropped',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        expect: (_o, f) => expect(f[0]!.query.has('childRecordID')).toBe(false),
      },
    ],
  },
  {
    fault: 'link-remove-noop',
    title: 'Remove reaches the upstream; what a success removed is put back and shown under its old LinkID',
    side: {
      'GET /api/Link/Query?': {
        status: 200,
        json: {
          List: [{ LinkID: 40, ParentDomainID: 1, ParentID: 1, ChildDomainID: 2, ChildID: 3, ContactTypeID: 2 }],
        },
      },
      'POST /api/Link/Upsert': {
        status: 200,
        json: { IsSuccessful: true, LinkID: 41, ParentRecordID: 1, ChildRecordID: 3, Message: null },
      },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, Message: 'Link removed.' }),
        expect: (out, f, side) => {
          expect(json(f[0]!)).toEqual({
            ParentDomain: 'Claim',
            ParentRecordID: 1,
            ChildDomain: 'Contact',
            ChildRecordID: 3,
          });
          expect(json(out)).toEqual({ IsSuccessful: true, Message: 'Link removed.' });
          expect(side).toEqual([
            'GET /api/Link/Query?parentDomain=Claim&childDomain=Contact&parentRecordID=1&childRecordID=3&columns=LinkID%2CParentDomainID%2CParentID%2CChildDomainID%2CChildID%2CContactTypeID [ADMIN]',
            'POST /api/Link/Upsert [ADMIN]',
          ]);
        },
      },
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentID,LinkID as Id'),
        upstream: ok({ List: [{ ParentID: 1, Id: 41 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentID: 1, Id: 40 }]),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 41, ParentRecordID: 1, ChildRecordID: 3, Message: null }),
        expect: (out) => expect(json(out).LinkID).toBe(40),
      },
    ],
  },
  {
    fault: 'link-remove-noop',
    title: 'a refused Remove, or one that removed nothing, passes untouched and nothing is put back',
    side: {
      'GET /api/Link/Query?': {
        status: 200,
        json: {
          List: [{ LinkID: 40, ParentDomainID: 1, ParentID: 1, ChildDomainID: 4, ChildID: 3, ContactTypeID: null }],
        },
      },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 3,
        }),
        upstream: problem(403, 'Forbidden', 'Modify Files is required.'),
        expect: (out, f, side) => (
          expect(f).toHaveLength(1),
          expect(out.status).toBe(403),
          expect(side.some((l) => l.includes('Upsert'))).toBe(false)
        ),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'C-1',
          ChildDomain: 'Contact',
          ChildRecordID: 3,
          Relationship: 'ADJ',
        }),
        upstream: ok({ IsSuccessful: false, Message: 'No link was found; nothing was removed.' }),
        expect: (out, f, side) => {
          expect(json(out).IsSuccessful).toBe(false);
          expect(f).toHaveLength(1);
          // the look-up names the records and the relationship as the Remove did
          expect(side).toEqual([
            'GET /api/Link/Query?parentDomain=Claim&childDomain=Contact&parentRecordMatchField=ClaimNumber&parentRecordKey=C-1&childRecordID=3&relationship=ADJ&columns=LinkID%2CParentDomainID%2CParentID%2CChildDomainID%2CChildID%2CContactTypeID [ADMIN]',
          ]);
        },
      },
    ],
  },
  {
    fault: 'link-upsert-duplicates',
    title: 'a second upsert of the same link lists it twice',
    steps: [
      ...[1, 2].map(() => ({
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 40, ParentRecordID: 1, ChildRecordID: 3, Message: null }),
        expect: () => {},
      })),
      {
        req: get(
          '/api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID,ChildDomainID,ChildID,LinkID',
        ),
        upstream: ok({ List: [{ ParentDomainID: 1, ParentID: 1, ChildDomainID: 2, ChildID: 3, LinkID: 40 }] }),
        expect: (out) => {
          const list = json(out).List;
          expect(list).toHaveLength(2);
          expect(list[1]).toMatchObject({ ParentID: 1, ChildID: 3 });
          expect(list[1].LinkID).not.toBe(40);
        },
      },
    ],
  },
  {
    fault: 'link-ids-as-strings',
    title: 'ID columns become strings',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        upstream: ok({
          List: [{ ParentDomainID: 1, ParentID: 10, ChildDomainID: 2, ChildID: 3, ContactTypeID: null }],
        }),
        expect: (out) =>
          expect(json(out).List[0]).toEqual({
            ParentDomainID: '1',
            ParentID: '10',
            ChildDomainID: '2',
            ChildID: '3',
            ContactTypeID: null,
          }),
      },
    ],
  },
  {
    fault: 'link-query-ignores-match-field',
    title: 'the match fields and keys of both sides are dropped; domains, IDs and columns stay',
    steps: [
      {
        req: get(
          '/api/Link/Query?parentDomain=Claim&parentRecordMatchField=ClaimNumber&parentRecordKey=C-1&childDomain=Contact&childRecordMatchField=Email&childRecordKey=a%40b&columns=ParentID',
        ),
        expect: (_o, f) =>
          expect(f[0]!.query.toString()).toBe('parentDomain=Claim&childDomain=Contact&columns=ParentID'),
      },
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('childDomain=Contact&childRecordID=3'),
      },
    ],
  },
  {
    fault: 'link-query-capped-at-100',
    title: 'a Link/Query answer of 150 links is cut to its first 100',
    steps: [
      {
        req: get('/api/Link/Query?parentDomain=Claim&columns=ChildID'),
        upstream: ok({ List: Array.from({ length: 150 }, (_, i) => ({ ChildID: i })) }),
        expect: (out) => expect(json(out).List.map((r: any) => r.ChildID)).toEqual([...Array(100).keys()]),
      },
      {
        req: get('/api/Link/Query?parentDomain=Claim&columns=ChildID'),
        upstream: ok({ List: Array.from({ length: 100 }, (_, i) => ({ ChildID: i })) }),
        expect: (out) => expect(json(out).List).toHaveLength(100),
      },
    ],
  },
  {
    fault: 'link-upsert-replaces-child-links',
    title:
      "after an upsert the child's links to other parents are removed as the administrator; a failed upsert removes nothing",
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 6, ParentID: 7 },
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 11, ParentID: 1 },
          ],
        },
      },
      'POST /api/Link/Remove': { status: 200, json: { IsSuccessful: true } },
    },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 40, ParentRecordID: 1, ChildRecordID: 3, Message: null }),
        expect: (out, _f, side) => {
          expect(json(out).IsSuccessful).toBe(true);
          // two removes: Policy 7 and Incident 1; the new link (Claim 1) is kept
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
          ]);
        },
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: false, Message: 'no' }),
        expect: (_o, _f, side) => expect(side).toEqual([]),
      },
    ],
  },
  {
    fault: 'link-remove-by-match-field-removes-domain',
    title: "a remove by match field also removes the child's links to the other parents of that domain",
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 1, ParentID: 2 },
            { ParentDomainID: 6, ParentID: 7 },
          ],
        },
      },
      'POST /api/Link/Remove': { status: 200, json: { IsSuccessful: true } },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'C-1',
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, Message: 'Link removed.' }),
        expect: (out, f, side) => {
          expect(f).toHaveLength(1);
          expect(json(out).IsSuccessful).toBe(true);
          // both Claim links go (the named one is gone already: its Remove answers false); Policy 7 stays
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
          ]);
        },
      },
      {
        // by primary key: untouched
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, Message: 'Link removed.' }),
        expect: (out, f, side) => {
          expect(f).toHaveLength(1);
          expect(side).toEqual([]);
        },
      },
    ],
  },
  {
    fault: 'link-upsert-finds-parent-by-id-alone',
    title:
      "an Upsert of a parent with no link of its own updates the child's link to the parent of another domain with that ID",
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: { List: [{ ParentDomainID: 11, ParentID: 1 }] },
      },
      'GET /api/Link/Query?childDomain=Contact&childRecordID=4&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 11, ParentID: 1 },
          ],
        },
      },
    },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(json(f[0]!).ParentDomain).toBe('Incident'),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 4,
        }),
        expect: (_o, f) => expect(json(f[0]!).ParentDomain).toBe('Claim'),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 2,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(json(f[0]!).ParentDomain).toBe('Claim'),
      },
    ],
  },
  {
    fault: 'link-remove-ignores-parent-domain',
    title: 'a remove also removes the links of the child to parents of other domains with the same ID',
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 11, ParentID: 1 },
            { ParentDomainID: 6, ParentID: 7 },
          ],
        },
      },
      'POST /api/Link/Remove': { status: 200, json: { IsSuccessful: true } },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, Message: 'Link removed.' }),
        expect: (out, f, side) => {
          expect(f).toHaveLength(1);
          expect(json(out).IsSuccessful).toBe(true);
          // only Incident 1 (same ID, other domain) goes too; Policy 7 stays
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
          ]);
        },
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: false, Message: 'Nothing to remove.' }),
        expect: (_o, _f, side) => expect(side.filter((l) => l.startsWith('POST'))).toEqual([]),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'parent-numeric-match-field-refused',
    title: 'a numeric parent key is refused; a text one and a numeric child key pass',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimID',
          ParentRecordKey: 7,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(400)),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'C-7',
          ChildDomain: 'Contact',
          ChildRecordMatchField: 'ContactID',
          ChildRecordKey: 3,
        }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
    ],
  },
  {
    fault: 'link-reupsert-drops-other-links',
    title: "a second upsert of an existing link removes the child's other links; a first upsert removes nothing",
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: {
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 11, ParentID: 2 },
          ],
        },
      },
      'POST /api/Link/Remove': { status: 200, json: { IsSuccessful: true } },
    },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 40, ParentRecordID: 1, ChildRecordID: 3, Message: null }),
        expect: (out, f, side) => {
          expect(json(out).IsSuccessful).toBe(true);
          expect(f).toHaveLength(1);
          // Claim 1 existed: the other link (Incident 2) is removed
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
            'POST /api/Link/Remove [ADMIN]',
          ]);
        },
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 9,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true, LinkID: 41, ParentRecordID: 9, ChildRecordID: 3, Message: null }),
        expect: (_o, _f, side) =>
          expect(side).toEqual([
            'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID [ADMIN]',
          ]),
      },
    ],
  },
  {
    fault: 'link-reupsert-keeps-relationship',
    title: 'the relationship of an upsert of an existing Contact link is dropped; a new link keeps it',
    side: {
      'GET /api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID': {
        status: 200,
        json: { List: [{ ParentDomainID: 1, ParentID: 1 }] },
      },
    },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
          Relationship: 'BRK',
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toEqual({
            ParentDomain: 'Claim',
            ParentRecordID: 1,
            ChildDomain: 'Contact',
            ChildRecordID: 3,
          }),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Incident',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
          Relationship: 'BRK',
        }),
        expect: (_o, f) => expect(json(f[0]!).Relationship).toBe('BRK'),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f, side) => (expect(side).toEqual([]), expect(f).toHaveLength(1)),
      },
    ],
  },
  {
    fault: 'match-key-nonascii-mangled',
    title: 'a non-ASCII match key reaches the service as its UTF-8 bytes read as Latin-1; an ASCII one is unchanged',
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordMatchField: 'ClaimNumber',
          ParentRecordKey: 'Zürich-東',
          ChildDomain: 'Contact',
          ChildRecordMatchField: 'Email',
          ChildRecordKey: 'a@b.c',
        }),
        expect: (_o, f) =>
          expect(json(f[0]!)).toMatchObject({ ParentRecordKey: 'ZÃ¼rich-æ\u009d\u00b1', ChildRecordKey: 'a@b.c' }),
      },
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordKey: 'Łódź',
          ChildRecordMatchField: 'LastName',
        }),
        expect: (_o, f) => expect(json(f[0]!).ChildRecordKey).toBe(Buffer.from('Łódź', 'utf8').toString('latin1')),
      },
    ],
  },
];
