// The canned cases of the GEN controls (gen.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect, vi } from 'vitest';
import { makeRequest, problem } from '../exchange.js';
import {
  type Case,
  del,
  get,
  json,
  notModifiable,
  ok,
  post,
  result,
  run,
  SCHED,
  type ScriptedCase,
  status,
  T,
} from './canned-cases.js';
import { STALL_EVERY, STALL_MS } from './gen.js';

export const GEN_CONTROL_CASES: Record<string, Case[]> = {
  'slow-answer-one-in-forty': [
    {
      // the first request passes at once, unchanged
      req: get('/api/Claim/1'),
      upstream: ok({ Id: 1 }),
      expect: (out, f) => (expect(f).toHaveLength(1), expect(json(out)).toEqual({ Id: 1 })),
    },
  ],
  'reversed-key-order': [
    {
      req: get('/api/Claim/1'),
      upstream: ok({ Record: { A: 1, B: { C: 1, D: 2 } }, Domain: 'Claim', Id: 1 }),
      expect: (out) => {
        const b = json(out);
        expect(Object.keys(b)).toEqual(['Id', 'Domain', 'Record']);
        expect(Object.keys(b.Record.B)).toEqual(['D', 'C']);
        expect(b.Record).toEqual({ A: 1, B: { C: 1, D: 2 } });
      },
    },
  ],
  'pretty-printed-json': [
    {
      req: get('/api/Claim/1'),
      upstream: ok({ Id: 1 }),
      expect: (out) => {
        expect(out.body.toString()).toBe('{\n  "Id": 1\n}\n');
        expect(out.headers['content-type']).toBe('application/json; charset=utf-8');
      },
    },
  ],
  'extra-response-headers': [
    {
      req: get('/api/Domains'),
      expect: (out) => expect(out.headers).toMatchObject({ 'cache-control': 'no-store', 'x-request-id': 'req-1' }),
    },
  ],
  'extra-envelope-keys': [
    {
      req: get('/api/Claim/1'),
      upstream: ok({ Record: {}, Domain: 'Claim', Id: 1 }),
      expect: (out) => expect(json(out)).toMatchObject({ Id: 1, Links: { self: '/api/Claim/1' } }),
    },
    {
      req: get('/api/Claim/Query'),
      upstream: ok({ List: [{}, {}] }),
      expect: (out) => expect(json(out)).toEqual({ List: [{}, {}], Skip: 0, Take: 2 }),
    },
    {
      req: post(`${SCHED}/UpsertMulti?isAtomic=true`, {}),
      upstream: ok({ Inserts: [], Updates: [], Deletes: [] }),
      expect: (out) => expect(json(out).IsAtomic).toBe(true),
    },
  ],
  'extra-result-keys': [
    {
      req: del(`${SCHED}/7`),
      upstream: ok(result(true, 7, null, 'Deleted.')),
      expect: (out) => expect(json(out)).toMatchObject({ IsSuccessful: true, Code: 'OK' }),
    },
    {
      req: post('/api/Quotes/Proposals/12/CreateMember'),
      upstream: ok({ IsSuccessful: true, RecordID: 3, Message: null }),
      expect: (out) => expect(json(out)).toMatchObject({ RecordID: 3, ProposalID: 12 }),
    },
  ],
  'malformed-request-422': [
    { req: get('/api/Claim/Query?take=0'), upstream: problem(400, 'MalformedRequest', 'x'), expect: status(422) },
    { req: get('/api/Claim/Query?columns=Nope'), upstream: problem(400, 'UnknownColumn', 'x'), expect: status(422) },
  ],
  'limits-answered-400': [
    { req: post('/api/Link/Upsert', {}), upstream: problem(413 as 400, 'PayloadTooLarge', 'x'), expect: status(400) },
  ],
  'wrong-method-405': [
    {
      req: makeRequest('PUT', '/api/Claim/1', { headers: T }),
      upstream: problem(404, 'NotFound', 'No route for PUT /api/Claim/1.'),
      expect: (out) => {
        expect(out.status).toBe(405);
        expect(out.headers.allow).toBeTruthy();
      },
    },
  ],
  'undeclared-method-404': [
    {
      req: makeRequest('GET', '/api/Link/Upsert', { headers: T }),
      upstream: {
        ...problem(405, 'MethodNotAllowed', 'GET is not declared for /api/Link/Upsert; it allows POST.'),
        headers: { 'content-type': 'application/problem+json', allow: 'POST' },
      },
      expect: (out) => {
        expect(out.status).toBe(404);
        expect(json(out)).toMatchObject({ status: 404, code: 'NotFound' });
        expect(out.headers.allow).toBeUndefined();
      },
    },
  ],
  'errors-other-shape': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'Unknown domain claim.'),
      expect: (out) => {
        expect(out.status).toBe(404);
        expect(out.headers['content-type']).toBe('application/json');
        expect(json(out)).toEqual({ error: { code: 'UnknownDomain', message: 'Unknown domain claim.' } });
      },
    },
  ],
  'errors-as-json-string': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'Unknown domain claim.'),
      expect: (out) => expect(json(out)).toBe('Unknown domain claim.'),
    },
    {
      req: del(`${SCHED}/7`),
      upstream: notModifiable,
      expect: (out) => expect(json(out).IsSuccessful).toBe(false),
    },
  ],
  'errors-without-body': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'x'),
      expect: (out) => {
        expect(out.status).toBe(404);
        expect(out.body.length).toBe(0);
      },
    },
  ],
  'problem-as-application-json': [
    {
      req: get('/api/claim/1'),
      upstream: problem(404, 'UnknownDomain', 'x'),
      expect: (out) => expect(out.headers['content-type']).toBe('application/json; charset=utf-8'),
    },
  ],
};

/** Cases that need one memory across several exchanges (and time to pass), written out. */
export const GEN_CONTROL_SCRIPTS: ScriptedCase[] = [
  {
    control: 'slow-answer-one-in-forty',
    title: `the ${STALL_EVERY}th request waits ${STALL_MS} ms, then gets the reference's answer`,
    async run() {
      vi.useFakeTimers();
      try {
        const memory = new Map<string, any>([['calls', STALL_EVERY - 1]]);
        let forwarded = false;
        const done = run(
          'slow-answer-one-in-forty',
          { req: get('/api/Claim/1'), upstream: ok({ Id: 1 }), expect: (out) => expect(json(out)).toEqual({ Id: 1 }) },
          memory,
        ).then(() => (forwarded = true));
        await vi.advanceTimersByTimeAsync(STALL_MS - 1);
        expect(forwarded, 'still waiting').toBe(false);
        await vi.advanceTimersByTimeAsync(1);
        await done;
        expect(forwarded).toBe(true);
      } finally {
        vi.useRealTimers();
      }
    },
  },
];
