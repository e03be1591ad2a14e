// The canned cases of the AUTH controls (auth.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { problem } from '../exchange.js';
import { type Case, codeAndStatus, get, json, ok, post, status } from './canned-cases.js';

export const AUTH_CONTROL_CASES: Record<string, Case[]> = {
  'link-query-refuses-partial-view': [
    {
      // the administrator sees a link the caller does not: the caller's answer becomes a 403
      req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
      grants: { T: { Contact: ['View'] } },
      upstream: (req) =>
        ok({ List: req.headers.token === 'ADMIN' ? [{ ParentID: 1 }, { ParentID: 2 }] : [{ ParentID: 2 }] }),
      expect: (out, f) => {
        expect(f.map((r) => r.headers.token)).toEqual(['T', 'ADMIN']);
        expect(out.status).toBe(403);
      },
    },
    {
      // the same links for both: the caller's answer stays
      req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
      grants: { T: { Contact: ['View'] } },
      upstream: ok({ List: [{ ParentID: 2 }] }),
      expect: (out) => expect(json(out)).toEqual({ List: [{ ParentID: 2 }] }),
    },
    {
      // an administrator's token, and other operations, are passed through untouched
      req: get('/api/Link/Query?childDomain=Contact&childRecordID=3'),
      upstream: ok({ List: [{ ParentID: 2 }] }),
      expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(200)),
    },
    {
      req: get('/api/Claim/1'),
      grants: { T: { Claim: ['View'] } },
      upstream: ok({ Record: {}, Domain: 'Claim', Id: 1 }),
      expect: (out, f) => (expect(f).toHaveLength(1), expect(out.status).toBe(200)),
    },
  ],
  'permission-denied-404': [
    { req: get('/api/Claim/9'), upstream: problem(403, 'Forbidden', 'x'), expect: codeAndStatus(404, 'Forbidden') },
  ],
  'permission-denied-401': [
    { req: get('/api/Claim/9'), upstream: problem(403, 'Forbidden', 'x'), expect: codeAndStatus(401, 'Forbidden') },
  ],
  'unauthenticated-403': [
    {
      req: get('/api/Domains'),
      upstream: problem(401, 'Unauthenticated', 'x'),
      expect: codeAndStatus(403, 'Unauthenticated'),
    },
  ],
  'bad-credentials-400': [
    {
      req: post('/Authentication/Authenticate', {}),
      upstream: problem(401, 'Unauthenticated', 'x'),
      expect: codeAndStatus(400, 'Unauthenticated'),
    },
    { req: get('/api/Domains'), upstream: problem(401, 'Unauthenticated', 'x'), expect: status(401) },
  ],
  'token-as-bearer': [
    {
      req: get('/api/Domains', { authorization: 'Bearer abc', token: 'ignored' }),
      expect: (_out, f) => {
        expect(f[0]!.headers.token).toBe('abc');
        expect(f[0]!.headers.authorization).toBeUndefined();
      },
    },
    { req: get('/api/Domains', { token: 'abc' }), expect: (_out, f) => expect(f[0]!.headers.token).toBeUndefined() },
  ],
  'token-in-x-api-key': [
    { req: get('/api/Domains', { 'x-api-key': 'abc' }), expect: (_out, f) => expect(f[0]!.headers.token).toBe('abc') },
  ],
  'authenticate-other-shape': [
    {
      req: post('/Authentication/Authenticate', { account: 'a', username: 'u', password: 'p' }),
      upstream: ok({ Token: 'tok' }),
      expect: (out, f) => {
        expect(json(f[0]!)).toEqual({ Account: 'a', User: 'u', Password: 'p', ClientName: 'control' });
        expect(json(out)).toEqual({ access_token: 'tok', token_type: 'Bearer', expires_in: 3600 });
      },
    },
  ],
};
