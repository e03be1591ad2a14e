// The canned cases of the AUTH faults (auth.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, get, json, ok, post, untouched } from './canned-cases.js';

export const AUTH_FAULT_CASES: Case[] = [
  {
    fault: 'contents-refused-with-token',
    title: 'Contents is refused with 403',
    steps: [
      {
        req: get('/api/File/5?columns=FileName,Contents'),
        expect: (out, f) => (expect(out.status).toBe(403), untouched(f)),
      },
      { req: get('/api/File/5?columns=FileName'), expect: (_o, f) => expect(f).toHaveLength(1) },
    ],
  },
  {
    fault: 'unauthenticated-served',
    title: 'a request without a token is sent with the administrator token',
    steps: [
      { req: get('/api/Domains', {}), expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN') },
      { req: get('/api/Domains'), expect: (_o, f) => expect(f[0]!.headers.token).toBe('T') },
    ],
  },
  {
    fault: 'unknown-token-accepted',
    title: 'a 401 is retried as the administrator',
    steps: [
      {
        req: get('/api/Domains', { token: 'BOGUS' }),
        upstream: (req) => (req.headers.token === 'ADMIN' ? ok({ List: [] }) : problem(401, 'Unauthenticated', 'no')),
        expect: (out, f) => (
          expect(out.status).toBe(200),
          expect(f.map((r) => r.headers.token)).toEqual(['BOGUS', 'ADMIN'])
        ),
      },
    ],
  },
  {
    fault: 'link-parent-permission-not-checked',
    title: 'a user without Attach Contacts on the parent gets through',
    grants: { T: { Claim: ['View'], Contact: ['View'] }, U: { Claim: ['View'] } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
      {
        req: post(
          '/api/Link/Upsert',
          { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 3 },
          { token: 'U' },
        ),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('U'),
      },
    ],
  },
  {
    fault: 'link-child-view-not-checked',
    title: "a user holding View on the child through '*' is left alone",
    grants: { T: { '*': ['View'], Claim: ['AttachFiles'], File: [] } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('T'),
      },
    ],
  },
  {
    fault: 'link-child-view-not-checked',
    title: 'a user without View on the child gets through (explicit grants)',
    grants: { T: { Claim: ['View', 'AttachFiles'] } },
    steps: [
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
    ],
  },
  {
    fault: 'link-remove-checks-upsert-permission',
    title: 'Remove is allowed with Attach Contacts and refused with Detach Contacts',
    grants: {
      T: { Claim: ['AttachContacts'], Contact: ['View'] },
      U: { Claim: ['DetachContacts'], Contact: ['View'] },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
      {
        req: post(
          '/api/Link/Remove',
          { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 3 },
          { token: 'U' },
        ),
        expect: (out, f) => (untouched(f), expect(out.status).toBe(403)),
      },
    ],
  },
  {
    fault: 'link-remove-refused-after-removing',
    title: 'a Remove without Detach Contacts is carried out as the administrator and answered 403; with it, untouched',
    grants: {
      T: { Claim: ['View', 'AttachContacts'], Contact: ['View'] },
      U: { Claim: ['View', 'DetachContacts'], Contact: ['View'] },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        upstream: ok({ IsSuccessful: true }),
        expect: (out, f) => (expect(f[0]!.headers.token).toBe('ADMIN'), expect(out.status).toBe(403)),
      },
      {
        req: post(
          '/api/Link/Remove',
          { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 3 },
          { token: 'U' },
        ),
        upstream: ok({ IsSuccessful: true }),
        expect: (out, f) => (expect(f[0]!.headers.token).toBe('U'), expect(out.status).toBe(200)),
      },
    ],
  },
  {
    fault: 'link-query-parent-permission-not-checked',
    title: 'Link/Query is answered as the administrator, keeping the rows whose child domain the caller may view',
    grants: { T: { Contact: ['View'], Policy: ['View'] } },
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3&columns=ParentDomainID,ParentID'),
        upstream: ok({
          List: [
            { ParentDomainID: 6, ParentID: 7, __fp0: 2 },
            { ParentDomainID: 1, ParentID: 1, __fp0: 2 },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.headers.token).toBe('ADMIN');
          expect(f[0]!.query.get('columns')).toBe('ParentDomainID,ParentID,ChildDomainID as __fp0');
          expect(json(out).List).toEqual([
            { ParentDomainID: 6, ParentID: 7 },
            { ParentDomainID: 1, ParentID: 1 },
          ]);
        },
      },
      {
        req: get('/api/Link/Query?parentDomain=Claim&columns=ChildDomainID,ChildID'),
        upstream: ok({
          List: [
            { ChildDomainID: 4, ChildID: 5 },
            { ChildDomainID: 2, ChildID: 3 },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe('ChildDomainID,ChildID');
          expect(json(out).List).toEqual([{ ChildDomainID: 2, ChildID: 3 }]);
        },
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=5'),
        expect: (_o, f) => (expect(f).toHaveLength(1), expect(f[0]!.headers.token).toBe('T')),
      },
      {
        req: get('/api/Link/Query?childDomain=Contact', { token: 'A' }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('A'),
      },
    ],
  },
  {
    fault: 'link-query-child-view-not-checked',
    title: 'Link/Query is answered as the administrator, keeping the rows whose parent domain the caller may view',
    grants: { T: { Claim: ['View', 'Edit'], File: ['View'] } },
    steps: [
      {
        req: get('/api/Link/Query?parentDomain=Claim&parentRecordID=1&columns=ChildDomainID,ChildID'),
        upstream: ok({
          List: [
            { ChildDomainID: 4, ChildID: 5, __fp0: 1 },
            { ChildDomainID: 2, ChildID: 3, __fp0: 1 },
          ],
        }),
        expect: (out, f) => {
          expect(f[0]!.headers.token).toBe('ADMIN');
          expect(f[0]!.query.get('columns')).toBe('ChildDomainID,ChildID,ParentDomainID as __fp0');
          expect(json(out).List).toEqual([
            { ChildDomainID: 4, ChildID: 5 },
            { ChildDomainID: 2, ChildID: 3 },
          ]);
        },
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=5&columns=ParentDomainID,ParentID'),
        upstream: ok({
          List: [
            { ParentDomainID: 1, ParentID: 1 },
            { ParentDomainID: 6, ParentID: 7 },
          ],
        }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentDomainID: 1, ParentID: 1 }]),
      },
      {
        req: get('/api/Link/Query?parentDomain=Policy&parentRecordID=7'),
        upstream: problem(403, 'Forbidden', 'no'),
        expect: (out, f) => (expect(f[0]!.headers.token).toBe('T'), expect(out.status).toBe(403)),
      },
    ],
  },
  {
    fault: 'link-permission-pair-either-accepted',
    title: 'Remove gets through with Attach Contacts, Upsert with Modify Files; the right permission is left alone',
    grants: {
      T: { Claim: ['AttachContacts', 'ModifyFiles'], Contact: ['View'], File: ['View'] },
      U: { Claim: ['DetachContacts'], Contact: ['View'] },
    },
    steps: [
      {
        req: post('/api/Link/Remove', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'File',
          ChildRecordID: 4,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('ADMIN'),
      },
      {
        req: post('/api/Link/Upsert', {
          ParentDomain: 'Claim',
          ParentRecordID: 1,
          ChildDomain: 'Contact',
          ChildRecordID: 3,
        }),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('T'),
      },
      {
        req: post(
          '/api/Link/Remove',
          { ParentDomain: 'Claim', ParentRecordID: 1, ChildDomain: 'Contact', ChildRecordID: 3 },
          { token: 'U' },
        ),
        expect: (_o, f) => expect(f[0]!.headers.token).toBe('U'),
      },
    ],
  },
];
