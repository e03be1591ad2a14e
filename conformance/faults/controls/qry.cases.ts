// The canned cases of the QRY controls (qry.ts): each control's rewrite on canned exchanges,
// by control name (harness: canned-cases.ts; run by conformance/test/faults-controls.test.ts).
import { expect } from 'vitest';
import { type Case, get, json, ok } from './canned-cases.js';

export const QRY_CONTROL_CASES: Record<string, Case[]> = {
  'total-count-in-header': [
    {
      req: get('/api/Claim/Query?includeTotalCount=true'),
      upstream: ok({ List: [], TotalCount: 35 }),
      expect: (out) => {
        expect(json(out)).toEqual({ List: [] });
        expect(out.headers['x-total-count']).toBe('35');
      },
    },
  ],
  'total-count-nested': [
    {
      req: get('/api/Claim/Query?includeTotalCount=true'),
      upstream: ok({ List: [], TotalCount: 35 }),
      expect: (out) => expect(json(out)).toEqual({ List: [], Meta: { Total: 35 } }),
    },
  ],
  'query-params-renamed': [
    {
      req: get('/api/Claim/Query?offset=30&where=x&skip=5&includeTotalCount=true&withTotalCount=true'),
      expect: (_out, f) => {
        const q = f[0]!.query;
        expect(q.getAll('skip')).toEqual(['30']);
        expect(q.get('filter')).toBe('x');
        expect(q.getAll('includeTotalCount')).toEqual(['true']);
        expect(q.has('offset') || q.has('where') || q.has('withTotalCount')).toBe(false);
      },
    },
  ],
  'query-default-order-newest-first': [
    {
      req: get('/api/Claim/Query?columns=ClaimID'),
      side: { 'GET /api/Claim/Query?take=1&columns=ClaimID': { List: [] } },
      expect: (_out, f) => expect(f[0]!.query.get('sort')).toBe('ClaimID desc'),
    },
    {
      req: get('/api/Claim/Query?sort=Name'),
      expect: (_out, f) => expect(f[0]!.query.get('sort')).toBe('Name'),
    },
  ],
  'take-over-maximum-refused': [
    {
      req: get('/api/Claim/Query?take=101'),
      expect: (out, f) => (expect(out.status).toBe(400), expect(f).toHaveLength(0)),
    },
    {
      req: get('/api/Claim/Query?take=100'),
      expect: (out, f) => (expect(out.status).toBe(200), expect(f).toHaveLength(1)),
    },
  ],
  'filter-dropped-with-linq-filter': [
    {
      req: get('/api/Claim/Query?filter=F&linqFilter=X&take=3'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('linqFilter=X&take=3'),
    },
    {
      req: get('/api/File/Query?filter=F&take=3'),
      expect: (_out, f) => expect(f[0]!.query.toString()).toBe('filter=F&take=3'),
    },
  ],
};
