// Small request helpers shared by the suite files: build a query string and GET through the
// recording raw client (so generic checks still apply).
import { expect } from 'vitest';
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

/** The keys of a record, sorted, for comparing column sets. */
export function keysOf(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort();
}

/**
 * The row whose `idKey` is `id` in a Query listing at `path`, paging newest first by `sortKey`
 * with the start offset (binding). Other test files create and delete records while this pages, so
 * rows can shift between two page reads: pages overlap by 20 rows, and a missed row gets a second
 * full pass.
 */
export async function findInQuery(
  t: Ctx,
  path: string,
  sortKey: string,
  idKey: string,
  id: number,
  q: Q = {},
  token?: string,
): Promise<Record<string, any>> {
  for (let pass = 0; pass < 2; pass++) {
    for (let page = 0; page < 50; page++) {
      const res = await get(
        t,
        path,
        { ...q, sort: `${sortKey} desc`, take: 100, [t.bindings.query.skip]: page * 80 },
        token,
      );
      expect(res.status, `GET ${path} ${JSON.stringify(q)}: ${res.text.slice(0, 300)}`).toBe(200);
      const list = (res.json as any)?.List as any[];
      expect(Array.isArray(list), `GET ${path}: List is an array`).toBe(true);
      const row = list.find((x) => x?.[idKey] === id);
      if (row) return row;
      if (list.length < 100) break;
    }
  }
  throw new Error(`record ${id} not found in GET ${path}`);
}
