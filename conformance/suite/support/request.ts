// Small request helpers shared by the suite files: build a query string and GET through the
// recording raw client (so generic checks still apply).
import type { conformance } from '../../src/dsl.js';

export type Ctx = Parameters<Parameters<typeof conformance>[1]>[0];
export type Q = Record<string, string | number | boolean | undefined>;

export const enc = encodeURIComponent;

/** `path` with the defined entries of `q` as its query string. */
export function withQuery(path: string, q: Q = {}): string {
  const parts = Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${enc(k)}=${enc(String(v))}`);
  return parts.length ? `${path}?${parts.join('&')}` : path;
}

/** GET `path?q` with the run's admin token, or with `token` (null: no credentials). */
export async function get(t: Ctx, path: string, q?: Q, token?: string | null) {
  return t.raw(withQuery(path, q), token === undefined ? {} : { token });
}
