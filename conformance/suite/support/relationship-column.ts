// Link/Query with the relationship column, an undocumented part of the interface: spec 2.3 item 4,
// "Name and type of the relationship column in the Link record: not shown." The suite knows it only
// through the binding `linkColumns.relationship` and asks for it only in the queries whose
// assertions need it. An implementation that refuses the column (any answer but a 2xx), or answers
// rows without it, is not at fault: the same query is asked again with the documented columns
// only, a finding (`undocumented-part-refused`) says so once per test, and the caller makes only
// the assertions that do not depend on the column (`relationship` is then undefined).
import { expect } from 'vitest';
import type { components } from '../../../spec/generated/openapi.js';
import { needsRowsOfChild } from './links-of-child.js';
import { type Ctx, get } from './request.js';

type LinkList = components['schemas']['LinkList'];
export type LinkRow = Record<string, unknown>;

/** The documented parameters of Link/Query (spec 4.4), without `columns`. */
export interface LinkQuery {
  childDomain?: string;
  childRecordID?: number;
  parentDomain?: string;
}

export interface RowsWithRelationship {
  rows: LinkRow[];
  /** The relationship column's name (the binding) when the rows carry it; undefined when refused. */
  relationship: string | undefined;
}

/** Tests in which the column was refused: later queries of the test ask only documented columns. */
const refusedIn = new WeakSet<Ctx>();

/** A 200 with a List array, else the test fails (the documented query must work). */
function rowsOf(res: { status: number; text: string; json: unknown }, what: string): LinkRow[] {
  expect(res.status, `${what}: ${res.text.slice(0, 300)}`).toBe(200);
  const list = (res.json as Partial<LinkList> | undefined)?.List;
  expect(Array.isArray(list), `${what} answers a List array`).toBe(true);
  return list as LinkRow[];
}

/**
 * The rows of Link/Query `q` with the `documented` columns and, when the implementation offers it,
 * the relationship column. `consequence` names the assertions the caller leaves out without it.
 */
export async function linkRowsWithRelationship(
  t: Ctx,
  q: LinkQuery,
  documented: string,
  consequence: string,
): Promise<RowsWithRelationship> {
  const out = await withRelationship(t, q, documented, consequence);
  needsRowsOfChild(out.rows, q.childDomain, q.childRecordID);
  return out;
}

async function withRelationship(
  t: Ctx,
  q: LinkQuery,
  documented: string,
  consequence: string,
): Promise<RowsWithRelationship> {
  const rel = t.bindings.linkColumns.relationship;
  const what = `Link/Query ${JSON.stringify(q)}`;
  const documentedOnly = async () =>
    rowsOf(await get(t, '/api/Link/Query', { ...q, columns: documented }), `${what} with columns ${documented}`);
  if (refusedIn.has(t)) return { rows: await documentedOnly(), relationship: undefined };

  const columns = `${documented},${rel}`;
  const res = await get(t, '/api/Link/Query', { ...q, columns });
  const where = {
    operationId: 'queryLinks',
    method: 'GET',
    url: `/api/Link/Query (columns ${columns})`,
    status: res.status,
  };
  const part = `the relationship column '${rel}' (binding linkColumns.relationship; spec 2.3: "not shown")`;
  if (res.status < 200 || res.status >= 300) {
    refusedIn.add(t);
    t.undocumentedRefused(part, where, `${consequence} (asked again with the documented columns only)`);
    return { rows: await documentedOnly(), relationship: undefined };
  }
  const rows = rowsOf(res, `${what} with columns ${columns}`);
  if (rows.some((r) => !(rel in r))) {
    refusedIn.add(t);
    t.undocumentedRefused(part, where, `the rows leave it out; ${consequence}`);
    return { rows, relationship: undefined };
  }
  return { rows, relationship: rel };
}
