// Small request helpers shared by the suite files: build a query string and GET through the
// recording raw client (so generic checks still apply). Helpers that read back what a test set up
// run as `t.needs(<requirement of the read>, ...)` steps: when the read itself fails, the test is
// blocked by that requirement instead of failing its own (one cause, one failure).
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import type { conformance } from '../../src/suite-api/dsl.js';

export type Ctx = Parameters<Parameters<typeof conformance>[1]>[0];
export type Q = Record<string, string | number | boolean | undefined>;
/** One record of a read: column name to value (RecordEnvelope.Record, a row of ListEnvelope.List). */
export type Row = components['schemas']['Record'];
type RecordEnvelope = components['schemas']['RecordEnvelope'];
type ListEnvelope = components['schemas']['ListEnvelope'];

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

/** The requirement that documents a listing at `path` (the one a failed page read blocks on). */
export function listingRequirement(path: string): string {
  if (/^\/api\/File\/Query\b/.test(path)) return 'FILE-008';
  if (/^\/api\/[^/]+\/\d+\/Files\b/.test(path)) return 'FILE-007';
  return 'QRY-001';
}

/**
 * The record `domain`/`id` read back by ID (`Record` of the envelope), as a step documented by
 * REC-001: a read that does not answer 200 with a `Record` object blocks the test.
 */
export async function readRecord(t: Ctx, domain: string, id: number, q: Q = {}, token?: string | null): Promise<Row> {
  return t.needs('REC-001', `read ${domain} ${id} back by ID`, async () => {
    const res = await get(t, `/api/${enc(domain)}/${id}`, q, token);
    expect(res.status, `GET /api/${domain}/${id}: ${res.text.slice(0, 300)}`).toBe(200);
    const rec: unknown = (res.json as Partial<RecordEnvelope> | undefined)?.Record;
    expect(
      typeof rec === 'object' && rec !== null && !Array.isArray(rec),
      `GET /api/${domain}/${id}: Record is an object`,
    ).toBe(true);
    return rec as Row;
  });
}

/** The keys of a record, sorted, for comparing column sets. */
export function keysOf(o: Record<string, unknown>): string[] {
  return Object.keys(o).sort();
}

/**
 * The row whose `idKey` is `id` in a Query listing at `path`, paging newest first by `sortKey`
 * with the start offset (binding). Other test files create and delete records while this pages, so
 * rows can shift between two page reads: pages overlap by 20 rows, and a missed row gets a second
 * full pass. A page that does not answer 200 with a List blocks the test (the listing's requirement,
 * see listingRequirement); a row that is not there fails it.
 */
export async function findInQuery(
  t: Ctx,
  path: string,
  sortKey: string,
  idKey: string,
  id: number,
  q: Q = {},
  token?: string,
): Promise<Row> {
  for (let pass = 0; pass < 2; pass++) {
    for (let page = 0; page < 50; page++) {
      const list = await t.needs(listingRequirement(path), `page through GET ${path}`, async () => {
        const res = await get(
          t,
          path,
          { ...q, sort: `${sortKey} desc`, take: 100, [t.bindings.query.skip]: page * 80 },
          token,
        );
        expect(res.status, `GET ${path} ${JSON.stringify(q)}: ${res.text.slice(0, 300)}`).toBe(200);
        const rows: unknown = (res.json as Partial<ListEnvelope> | undefined)?.List;
        expect(Array.isArray(rows), `GET ${path}: List is an array`).toBe(true);
        return rows as Array<Row | null>;
      });
      const row = list.find((x) => x?.[idKey] === id);
      if (row) return row;
      if (list.length < 100) break;
    }
  }
  throw new Error(`record ${id} not found in GET ${path}`);
}
