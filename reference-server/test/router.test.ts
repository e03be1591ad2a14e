// Route matching without Hono's TrieRouter, and the method router's answers kept per path shape
// (docs/benchmarks.md, third session): both are held to what they replace over every path built
// from the routes' own segments, odd ones and the interface's literals (about 69,000 paths).
import { afterAll, describe, expect, it } from 'vitest';
import { TrieRouter } from 'hono/router/trie-router';
import { createApp } from '../src/app.js';
import { StrictPatternRouter } from '../src/router.js';
import { MethodRouter } from '../src/routing.js';

const created = createApp({ bindWorker: false, providerStates: true, log: () => {} });
afterAll(() => created.close());
const routes = created.app.routes.map((r) => [r.method, r.path] as const);

/** Paths from the routes' literals, IDs, odd segments (empty, encoded, dots, a colon, a star) and
 * trailing or doubled slashes, up to three segments under /api and two from the root, plus each
 * route's template with its parameters filled in several ways. */
function corpus(): string[] {
  const segs = ['api', 'Claim', '1', 'Query', 'Files', 'Link', 'Upsert', 'Quotes', 'Proposals', 'Schedules'];
  segs.push('Reinstate', 'BindQuote', '', '%2F', 'x%20y', '_provider-states', 'Domains', 'health', 'File');
  segs.push(
    'UpsertMulti',
    ':id',
    '*',
    '..',
    '.',
    'Authentication',
    'Authenticate',
    'é',
    '%00',
    '\0',
    ' ',
    '(x)',
    '\u{1F600}',
  );
  const paths = new Set<string>(['/', '//', '/api', '/api/']);
  const grow = (prefix: string, depth: number): void => {
    if (depth === 0) return;
    for (const s of segs) {
      const p = `${prefix}/${s}`;
      paths.add(p);
      paths.add(`${p}/`);
      grow(p, depth - 1);
    }
  };
  grow('/api', 3);
  grow('', 2);
  for (const [, path] of routes)
    for (const v of ['7', 'Claim', '', 'Query', '9007199254740993']) {
      const p = path.replace(/:[A-Za-z]+/g, v);
      for (const q of [p, `${p}/`, `${p}//`, `/${p}`]) paths.add(q);
    }
  return [...paths];
}
const PATHS = corpus();
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'];

describe('StrictPatternRouter', () => {
  it('matches what the TrieRouter matched, for every method and path of the corpus', () => {
    expect(PATHS.length).toBeGreaterThan(60_000);
    const trie = new TrieRouter<string>();
    const strict = new StrictPatternRouter<string>();
    for (const [m, p] of routes) {
      trie.add(m, p, `${m} ${p}`);
      strict.add(m, p, `${m} ${p}`);
    }
    const differences: string[] = [];
    let matched = 0;
    for (const path of PATHS)
      for (const method of METHODS) {
        const [tm, stash] = trie.match(method, path) as [[string, Record<string, number>][], string[]?];
        // the TrieRouter names a route twice when a path segment is a literal ':id' (one answer:
        // the first handler answers, the second is never reached); each handler counts once here
        const seen = new Set<string>();
        const want = tm
          .map(([h, p]) => [h, stash ? Object.fromEntries(Object.entries(p).map(([k, i]) => [k, stash[i]])) : p])
          .filter(([h]) => !seen.has(h as string) && seen.add(h as string));
        const [sm] = strict.match(method, path) as [[string, Record<string, string>][]];
        const got = sm.map(([h, p]) => [h, { ...p }]);
        if (want.length > 0) matched++;
        if (JSON.stringify(got) !== JSON.stringify(want)) differences.push(`${method} ${path}`);
      }
    expect(differences.slice(0, 10)).toEqual([]);
    expect(matched).toBeGreaterThan(1000);
  });

  it('a trailing slash reaches no route (404), as under the TrieRouter, but still reaches a wildcard', () => {
    const r = new StrictPatternRouter<string>();
    r.add('GET', '/api/:domain/:id', 'read');
    r.add('ALL', '*', 'log');
    expect(r.match('GET', '/api/Claim/1')[0].map((x) => x[0])).toEqual(['read', 'log']);
    expect(r.match('GET', '/api/Claim/1/')[0].map((x) => x[0])).toEqual(['log']);
    expect(r.match('GET', '/')[0].map((x) => x[0])).toEqual(['log']);
  });
});

describe('MethodRouter: the allowed methods kept per path shape', () => {
  it('answers every path of the corpus as a router that never saw another path does', () => {
    const shared = new MethodRouter();
    shared.seal(created.app);
    const differences: string[] = [];
    // every path twice (the second answer from what the first kept), against a fresh router's
    for (const path of [...PATHS, ...PATHS.slice().reverse()]) {
      const fresh = new MethodRouter();
      fresh.seal(created.app);
      const want = fresh.allowed(path);
      const got = shared.allowed(path);
      if (JSON.stringify(got && [...got].sort()) !== JSON.stringify(want && [...want].sort())) differences.push(path);
    }
    expect(differences.slice(0, 10)).toEqual([]);
  });

  it('tells a record read from the literal routes beside it, whatever the ID', () => {
    const r = new MethodRouter();
    r.seal(created.app);
    const sorted = (path: string) => [...(r.allowed(path) ?? [])].sort().join(', ');
    for (const id of ['1', '2', '9007199254740991', 'Files', 'x']) expect(sorted(`/api/Claim/${id}`)).toBe('GET, HEAD');
    expect(sorted('/api/Link/Upsert')).toBe('POST');
    expect(sorted('/api/Claim/Query')).toBe('GET, HEAD');
    expect(r.allowed('/api/Claim/1/Files/extra/more/and/more/segments/than/any/template')).toBeUndefined();
  });
});
