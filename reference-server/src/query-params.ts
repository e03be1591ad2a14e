// A request's query parameters, parsed once per query string. Hono's `c.req.query(name)` scans the
// URL again on every call, and a record read asks for its parameters four times (the OpenAPI
// check of each declared one, then the route's own reads): about 1 µs of a record read's 35
// (docs/benchmarks.md, third session). The parse depends only on the URL from its first `?` or
// `#` on (a path holds neither), so the parse of the last such tail is kept and a request with the
// same tail reuses it, whichever request it belongs to: reads of different records with the same
// parameters, as a client asking for a page of records one by one sends them, parse it once.
import type { Context } from 'hono';
import { own } from './own.js';

/** Where a URL's parameters can begin: after `scheme://` and at least one character of host. */
const AFTER_AUTHORITY_START = 8;

let lastTail: string | undefined;
/** Hono's parse of a URL ending in `lastTail`: the first value of each name, names and values decoded */
let lastParams: Record<string, string> = {};

/** The first value of query parameter `name` in the request's URL, decoded as Hono's
 * `c.req.query(name)` decodes it; undefined when it is absent. */
export function queryParam(c: Context, name: string): string | undefined {
  const url = c.req.url;
  const query = url.indexOf('?', AFTER_AUTHORITY_START);
  const hash = url.indexOf('#', AFTER_AUTHORITY_START);
  const tailAt = query < 0 ? hash : hash < 0 ? query : Math.min(query, hash);
  if (tailAt < 0) return undefined; // no query string
  const tail = url.slice(tailAt);
  if (tail !== lastTail) {
    lastParams = c.req.query();
    lastTail = tail;
  }
  return own(lastParams, name);
}
