// The canned cases of the REC faults (rec.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { type Case, get, json, ok, untouched } from './canned-cases.js';

export const REC_FAULT_CASES: Case[] = [
  {
    fault: 'record-envelope-without-id',
    title: 'Id is removed',
    steps: [
      {
        req: get('/api/Claim/1'),
        upstream: ok({ Record: { ClaimID: 1 }, Domain: 'Claim', Id: 1 }),
        expect: (out) => expect(json(out)).toEqual({ Record: { ClaimID: 1 }, Domain: 'Claim' }),
      },
    ],
  },
  {
    fault: 'record-read-ignores-id',
    title: "the domain's first record is answered, with the caller's token",
    side: { 'GET /api/Claim/Query?': { status: 200, json: { List: [{ ClaimNumber: 'C-1' }] } } },
    steps: [
      {
        req: get('/api/Claim/7?columns=ClaimNumber'),
        upstream: ok({ Record: { ClaimNumber: 'C-7' }, Domain: 'Claim', Id: 7 }),
        expect: (out, _f, side) => {
          expect(json(out)).toEqual({ Record: { ClaimNumber: 'C-1' }, Domain: 'Claim', Id: 7 });
          expect(side[0]).toBe('GET /api/Claim/Query?columns=ClaimNumber&take=1 [T]');
        },
      },
    ],
  },
  {
    fault: 'record-read-cached-by-id-alone',
    title:
      "a read of another domain's record with the same ID and query answers the first one; the same domain goes upstream",
    steps: [
      {
        req: get('/api/Incident/7'),
        upstream: ok({ Record: { IncidentID: 7 }, Domain: 'Incident', Id: 7 }),
        expect: (_o, f) => expect(f).toHaveLength(1),
      },
      {
        req: get('/api/Claim/7'),
        expect: (out, f) => (
          untouched(f),
          expect(json(out)).toEqual({ Record: { IncidentID: 7 }, Domain: 'Claim', Id: 7 })
        ),
      },
      {
        req: get('/api/Incident/7'),
        upstream: ok({ Record: { IncidentID: 7, Name: 'new' }, Domain: 'Incident', Id: 7 }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).Record.Name).toBe('new')),
      },
      {
        req: get('/api/Claim/7?columns=ClaimNumber'),
        upstream: ok({ Record: { ClaimNumber: 'C-7' }, Domain: 'Claim', Id: 7 }),
        expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out).Record).toEqual({ ClaimNumber: 'C-7' })),
      },
    ],
  },
];
