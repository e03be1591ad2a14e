// The router of the reference's Hono application: Hono's PatternRouter (one regular expression per
// route, tried in the order the routes were registered), strict about a trailing slash as Hono's
// default router is. Hono's default (SmartRouter) cannot use its RegExpRouter for these routes
// (`/api/:domain/:id` beside `/api/Quotes/Proposals/...`) and falls back to its TrieRouter, which
// cost 1.2 µs per match against PatternRouter's 0.4 over these 17 routes, about 5% of a record read
// (docs/benchmarks.md, third session). PatternRouter also takes `/api/Claim/1/` as `/api/Claim/1`;
// the interface's paths have no trailing slash, and the TrieRouter answered them 404: so does this
// one. test/router.test.ts holds it to the TrieRouter's matches over some 69,000 paths.
import type { Result, Router } from 'hono/router';
import { PatternRouter } from 'hono/router/pattern-router';

/** A handler and whether its route's pattern ends in `*` (the only routes a trailing slash may reach). */
type Entry<T> = [handler: T, wildcard: boolean];

export class StrictPatternRouter<T> implements Router<T> {
  readonly name = 'StrictPatternRouter';
  private inner = new PatternRouter<Entry<T>>();

  add(method: string, path: string, handler: T): void {
    this.inner.add(method, path, [handler, path.endsWith('*')]);
  }

  match(method: string, path: string): Result<T> {
    const [found] = this.inner.match(method, path) as [[Entry<T>, Record<string, string>][]];
    const trailingSlash = path.length > 1 && path.charCodeAt(path.length - 1) === 47;
    const out: [T, Record<string, string>][] = [];
    for (const [[handler, wildcard], params] of found) if (wildcard || !trailingSlash) out.push([handler, params]);
    return [out];
  }
}
