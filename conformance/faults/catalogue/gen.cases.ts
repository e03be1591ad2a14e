// The canned cases of the GEN faults (gen.ts): each fault's rewrite on canned exchanges
// (harness: canned-cases.ts; run by conformance/test/faults-rewrites.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, get, json, ok } from './canned-cases.js';

export const GEN_FAULT_CASES: Case[] = [
  {
    fault: 'problem-details-as-plain-text',
    title: 'a 404 problem becomes text/plain',
    steps: [
      {
        req: get('/api/claim/1'),
        upstream: problem(404, 'UnknownDomain', 'Unknown domain'),
        expect: (out) => {
          expect(out.status).toBe(404);
          expect(out.headers['content-type']).toMatch(/^text\/plain/);
          expect(out.body.toString()).toBe('Not Found');
        },
      },
    ],
  },
  {
    fault: 'json-served-as-html',
    title: 'a JSON answer is labelled text/html',
    steps: [
      {
        req: get('/api/Claim/1'),
        upstream: ok({ Record: {}, Domain: 'Claim', Id: 1 }),
        expect: (out) => {
          expect(out.headers['content-type']).toMatch(/^text\/html/);
          expect(json(out)).toEqual({ Record: {}, Domain: 'Claim', Id: 1 });
        },
      },
    ],
  },
];
