// The canned cases of the COL faults (col.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { type Case, get, json, ok, recordFrom } from './canned-cases.js';

export const COL_FAULT_CASES: Case[] = [
  {
    fault: 'alias-of-requested-field-null',
    title: 'the alias of a field also requested bare is null; a lone alias keeps its value',
    steps: [
      {
        req: get('/api/Claim/1?columns=ClaimNumber,ClaimNumber%20as%20Number'),
        upstream: ok({ Record: { ClaimNumber: 'C-1', Number: 'C-1' }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out).Record).toEqual({ ClaimNumber: 'C-1', Number: null }),
      },
      {
        req: get('/api/Claim/Query?columns=ClaimNumber%20as%20Number'),
        upstream: ok({ List: [{ Number: 'C-1' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ Number: 'C-1' }]),
      },
    ],
  },
  {
    fault: 'column-alias-ignored',
    title: 'aliases are dropped from the column list',
    steps: [
      {
        req: get('/api/Claim/1?columns=ClaimNumber%20as%20Number,Status'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ClaimNumber,Status'),
      },
    ],
  },
  {
    fault: 'bare-association-returns-id',
    title: 'a bare association gets its stored ID',
    side: {
      'GET /api/Claim/Query?take=1&columns=LocationID': { status: 200, json: { List: [] } },
      'GET /api/Claim/Query?take=1&columns=': { status: 400, json: {} },
    },
    steps: [
      {
        req: get('/api/Claim/1?columns=Location,ClaimNumber'),
        upstream: recordFrom((f) => (f === 'LocationID' ? 17 : f === 'Location' ? null : 'C-1')),
        expect: (out, f) => {
          expect(f[0]!.query.get('columns')).toBe('Location,ClaimNumber,LocationID as __fp0');
          expect(json(out).Record).toEqual({ Location: 17, ClaimNumber: 'C-1' });
        },
      },
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('Location'),
      },
    ],
  },
  {
    fault: 'bare-coded-field-returns-code',
    title: 'a bare coded field gets its code',
    side: {
      'GET /api/Claim/Query?take=1&columns=Custom2Code.CodeID': { status: 200, json: { List: [] } },
      'GET /api/Claim/Query?take=1&columns=': { status: 400, json: {} },
    },
    steps: [
      {
        req: get('/api/Claim/Query?columns=Custom2Code%20as%20Cat'),
        upstream: recordFrom((f) => (f === 'Custom2Code.Code' ? 'PR' : null), true),
        expect: (out) => expect(json(out).List).toEqual([{ Cat: 'PR' }]),
      },
    ],
  },
  {
    fault: 'dotted-name-returns-null',
    title: 'dotted columns come back null',
    steps: [
      {
        req: get('/api/Claim/1?columns=Location.Name,ClaimNumber'),
        upstream: ok({ Record: { 'Location.Name': 'Depot', ClaimNumber: 'C' }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out).Record).toEqual({ 'Location.Name': null, ClaimNumber: 'C' }),
      },
    ],
  },
  {
    fault: 'resolve-nulls-dotted-properties',
    title: 'dotted columns come back null when resolving, only then',
    steps: [
      {
        req: get('/api/Claim/Query?columns=Location.Name,Location&resolveAssociationNames=true'),
        upstream: ok({ List: [{ 'Location.Name': 'Depot', Location: 'Depot (L1)' }] }),
        expect: (out) => expect(json(out).List).toEqual([{ 'Location.Name': null, Location: 'Depot (L1)' }]),
      },
      {
        req: get('/api/Claim/1?columns=Location.Name'),
        upstream: ok({ Record: { 'Location.Name': 'Depot' }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out).Record).toEqual({ 'Location.Name': 'Depot' }),
      },
    ],
  },
  {
    fault: 'resolve-association-names-ignored',
    title: 'resolveAssociationNames is dropped',
    steps: [
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        expect: (_o, f) => expect(f[0]!.query.has('resolveAssociationNames')).toBe(false),
      },
    ],
  },
  {
    fault: 'resolve-missing-association-fails',
    title: 'a dangling reference throws a 500',
    side: {
      'GET /api/Claim/Query?take=1&columns=LocationID': { status: 200, json: { List: [] } },
      'GET /api/Claim/Query?take=1&columns=': { status: 400, json: {} },
    },
    steps: [
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        upstream: recordFrom((f) => (f === 'LocationID' ? 99 : null)),
        expect: (out) => expect(out.status).toBe(500),
      },
      {
        req: get('/api/Claim/1?columns=Location&resolveAssociationNames=true'),
        upstream: recordFrom((f) => (f === 'LocationID' ? 99 : 'Main Street Depot')),
        expect: (out) => expect(json(out).Record).toEqual({ Location: 'Main Street Depot' }),
      },
    ],
  },
  {
    fault: 'columns-parameter-ignored',
    title: 'columns is dropped',
    steps: [
      {
        req: get('/api/Claim/Query?columns=ClaimNumber&take=2'),
        expect: (_o, f) => expect(f[0]!.query.toString()).toBe('take=2'),
      },
    ],
  },
  {
    fault: 'default-columns-key-only',
    title: 'without columns only the key is kept',
    steps: [
      {
        req: get('/api/Claim/Query'),
        upstream: ok({
          List: [
            { ClaimID: 1, ClaimNumber: 'a' },
            { ClaimID: 2, ClaimNumber: 'b' },
          ],
        }),
        expect: (out) => expect(json(out).List).toEqual([{ ClaimID: 1 }, { ClaimID: 2 }]),
      },
      {
        req: get('/api/Claim/1?columns=ClaimNumber'),
        upstream: ok({ Record: { ClaimNumber: 'a' }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out).Record).toEqual({ ClaimNumber: 'a' }),
      },
    ],
  },
  {
    fault: 'link-query-columns-ignored',
    title: 'Link/Query columns is dropped',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=Contact&columns=ParentID'),
        expect: (_o, f) => expect(f[0]!.query.has('columns')).toBe(false),
      },
    ],
  },
  // issue 22: derived pairs, classes, combinations, late effects
  {
    fault: 'link-query-alias-ignored',
    title: 'aliases are dropped from the columns of Link/Query only',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=4&columns=ParentID%20as%20Owner,ChildID'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ParentID,ChildID'),
      },
      {
        req: get('/api/Claim/Query?columns=ClaimNumber%20as%20N'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ClaimNumber as N'),
      },
    ],
  },
  {
    fault: 'link-query-default-columns-ids-only',
    title: 'Link/Query without columns keeps ParentID and ChildID only; with columns it is untouched',
    steps: [
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=4'),
        upstream: ok({ List: [{ ParentDomainID: 1, ParentID: 7, ChildDomainID: 4, ChildID: 4 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentID: 7, ChildID: 4 }]),
      },
      {
        req: get('/api/Link/Query?childDomain=File&childRecordID=4&columns=ParentDomainID,ParentID'),
        upstream: ok({ List: [{ ParentDomainID: 1, ParentID: 7 }] }),
        expect: (out) => expect(json(out).List).toEqual([{ ParentDomainID: 1, ParentID: 7 }]),
      },
    ],
  },
  // issue 32: bugs that show only in a combination of features
  {
    fault: 'alias-ignored-with-resolve-association-names',
    title: 'aliases are dropped only with resolveAssociationNames=true',
    steps: [
      {
        req: get('/api/Claim/Query?columns=ClaimNumber%20as%20Number,Status&resolveAssociationNames=true'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ClaimNumber,Status'),
      },
      {
        req: get('/api/Claim/Query?columns=ClaimNumber%20as%20Number,Status&resolveAssociationNames=false'),
        expect: (_o, f) => expect(f[0]!.query.get('columns')).toBe('ClaimNumber as Number,Status'),
      },
    ],
  },
];
