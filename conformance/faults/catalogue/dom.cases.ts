// The canned cases of the DOM faults (dom.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { makeResponse } from '../exchange.js';
import { type Case, get, json, ok } from './canned-cases.js';

export const DOM_FAULT_CASES: Case[] = [
  {
    fault: 'lowercase-domain-accepted',
    title: 'claim is forwarded as Claim; exact names stay',
    steps: [
      { req: get('/api/claim/Query?take=1'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Claim/Query') },
      { req: get('/api/custom.inspection/3'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Custom.Inspection/3') },
      { req: get('/api/Claim/1'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Claim/1') },
      { req: get('/api/Nope/1'), expect: (_o, f) => expect(f[0]!.path).toBe('/api/Nope/1') },
    ],
  },
  {
    fault: 'domains-list-includes-inaccessible',
    title: "the administrator's list replaces the caller's",
    side: {
      'GET /api/Domains': {
        status: 200,
        json: {
          List: [
            { DomainID: 1, Name: 'Claim' },
            { DomainID: 6, Name: 'Policy' },
          ],
        },
      },
    },
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({ List: [{ DomainID: 1, Name: 'Claim' }] }),
        expect: (out) => expect(json(out).List.map((d: any) => d.Name)).toEqual(['Claim', 'Policy']),
      },
    ],
  },
  {
    fault: 'incident-domain-id-renumbered',
    title: 'Incident 11 becomes 8 in the list and in link rows',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({
          List: [
            { DomainID: 1, Name: 'Claim' },
            { DomainID: 11, Name: 'Incident' },
          ],
        }),
        expect: (out) => expect(json(out).List.map((d: any) => d.DomainID)).toEqual([1, 8]),
      },
      {
        req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
        upstream: ok({ List: [{ ParentDomainID: 11, ParentID: 4, ChildDomainID: 2, ChildID: 3 }] }),
        expect: (out) => expect(json(out).List[0].ParentDomainID).toBe(8),
      },
    ],
  },
  {
    fault: 'custom-domain-ids-below-core',
    title: 'Custom.Inspection 1001 becomes 8',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({
          List: [
            { DomainID: 7, Name: 'Task' },
            { DomainID: 1001, Name: 'Custom.Inspection' },
          ],
        }),
        expect: (out) => expect(json(out).List.map((d: any) => d.DomainID)).toEqual([7, 8]),
      },
    ],
  },
  {
    fault: 'member-proposal-not-listed',
    title: 'Member and Proposal are dropped',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({ List: [{ Name: 'Claim' }, { Name: 'Member' }, { Name: 'Proposal' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Name: 'Claim' }]),
      },
    ],
  },
  {
    fault: 'domains-omit-custom',
    title: 'the Custom. domains are dropped from the list; the core ones stay',
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({ List: [{ Name: 'Claim' }, { Name: 'Custom.Inspection' }, { Name: 'Member' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Name: 'Claim' }, { Name: 'Member' }]),
      },
    ],
  },
  {
    fault: 'domains-list-cached-across-users',
    title:
      "the first user's list is answered to the next user who is not an administrator; the administrator and a refusal stay",
    grants: { T: { Claim: ['View'] }, U: { Contact: ['View'] }, A: 'admin' },
    steps: [
      {
        req: get('/api/Domains'),
        upstream: ok({ List: [{ Name: 'Claim' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Name: 'Claim' }]),
      },
      {
        req: get('/api/Domains', { token: 'U' }),
        upstream: ok({ List: [{ Name: 'Contact' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Name: 'Claim' }]),
      },
      {
        req: get('/api/Domains', { token: 'A' }),
        upstream: ok({ List: [{ Name: 'Claim' }, { Name: 'Contact' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Name: 'Claim' }, { Name: 'Contact' }]),
      },
      {
        req: get('/api/Domains', {}),
        upstream: makeResponse(401, { title: 'Unauthorized' }),
        expect: (out) => expect(out.status).toBe(401),
      },
    ],
  },
];
