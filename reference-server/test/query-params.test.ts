// queryParam (query-params.ts) keeps the parse of the last query string: it must answer exactly
// what Hono's c.req.query(name) answers for the request at hand, whatever came before it.
import { describe, expect, it } from 'vitest';
import type { Context } from 'hono';
import { getQueryParam } from 'hono/utils/url';
import { queryParam } from '../src/query-params.js';

/** A context whose request has this URL as it came (not normalised by `new Request`). */
function contextOf(url: string): Context {
  const req = { url, query: (name?: string) => getQueryParam(url, name) };
  return { req } as unknown as Context;
}

const NAMES = ['columns', 'take', 'skip', 'filter', 'a b', 'x', 'resolveAssociationNames', 'constructor', '__proto__'];
const TAILS = [
  '',
  '?',
  '?columns=ClaimNumber,Location.Name',
  '?columns=ClaimNumber&columns=Status',
  '?take=5&skip=10&filter=Status:eq:Open',
  '?filter=Name:eq:a%26b&take=%35',
  '?a+b=1&a%20b=2',
  '?x&x=1',
  '?=1&x=',
  '#frag?columns=hidden',
  '?columns=hidden',
  '?columns=A#frag&take=5',
  '?constructor=1&__proto__=2',
  '?columns=%E2%82%AC%F0%9F%98%80&filter=%ZZ',
];
const PATHS = ['http://h/api/Claim/1', 'http://h/api/Claim/2', 'http://h:8080/api/Location/Query', 'http://h/'];

describe('queryParam', () => {
  it('answers as c.req.query(name) for every URL, in any order of requests', () => {
    const urls = PATHS.flatMap((p) => TAILS.map((t) => p + t));
    // forwards, backwards and interleaved: a kept parse is reused only for the same query string
    const order = [...urls, ...urls.slice().reverse(), ...urls.filter((_, i) => i % 3 === 0), ...urls];
    let compared = 0;
    for (const url of order) {
      const c = contextOf(url);
      for (const name of NAMES) {
        expect([url, name, queryParam(c, name)]).toEqual([url, name, getQueryParam(url, name)]);
        compared++;
      }
    }
    expect(compared).toBe(order.length * NAMES.length);
  });

  it('never answers a member every object inherits', () => {
    expect(queryParam(contextOf('http://h/api/Claim/1?x=1'), 'constructor')).toBeUndefined();
    expect(queryParam(contextOf('http://h/api/Claim/1?x=1'), 'toString')).toBeUndefined();
  });
});
