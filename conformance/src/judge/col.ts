// COL-001, COL-003, COL-011: the keys of the records an operation with a `columns` parameter
// answers (spec 4.1). The suite asserts these findings on what it reads (conformance/suite/columns.test.ts)
// and the traffic rule columns_requested_are_keys emits them for every recorded answer
// (traffic/rules-columns.ts). What a column holds (stored values, associations, codes: COL-002,
// COL-004..010) needs the stored data: the suite judges it, a recording cannot.
import { type Finding, type JudgeEntry, isObject, show } from './finding.js';

/** One item of a `columns` list (4.1 rules 1 to 3). */
export interface RequestedColumn {
  /** The field as written (`Field` or `Field.Property`). */
  field: string;
  /** The key the answer carries it under: the alias, else the field. */
  key: string;
  alias: boolean;
  dotted: boolean;
}

/** The requested columns; undefined when `columns` is absent or empty (all in-use columns). */
export function requestedColumns(param: string | null | undefined): RequestedColumn[] | undefined {
  if (param === null || param === undefined || param.trim() === '') return undefined;
  return param
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '')
    .map((c) => {
      const m = /^(.+?)\s+as\s+(.+)$/i.exec(c);
      const field = (m ? m[1]! : c).trim();
      return { field, key: (m ? m[2]! : c).trim(), alias: !!m, dotted: field.includes('.') };
    });
}

/** Whether the same key is asked for twice (the answer can then hold it once: not judged). */
export function hasDuplicateKeys(cols: RequestedColumn[]): boolean {
  return new Set(cols.map((c) => c.key)).size !== cols.length;
}

/**
 * The keys of `records` nobody asked for: neither a requested key nor the field of an aliased
 * column (the field under its own name is an alias not applied, COL-003's, not an unasked column).
 */
export function unaskedKeys(columns: string, records: ReadonlyArray<Record<string, unknown>>): string[] {
  const asked = new Set((requestedColumns(columns) ?? []).flatMap((c) => [c.field, c.key]));
  return [...new Set(records.flatMap((r) => Object.keys(r ?? {})))].filter((k) => !asked.has(k));
}

export const COLUMN_KEYS_JUDGE: JudgeEntry = {
  name: 'judgeColumnKeys',
  requirements: ['COL-001', 'COL-003', 'COL-011'],
};

/** The operations with a `columns` parameter (4.1 applies to each). */
const COLUMN_OPS = new Set(['getRecord', 'queryRecords', 'listAttachedFiles', 'queryFiles', 'getFile', 'queryLinks']);
/** COL-011: the operations beyond the records. */
const BEYOND_RECORDS = new Set(['listAttachedFiles', 'queryFiles', 'getFile', 'queryLinks']);
/** The link columns of 2.3; any other (the relationship column) is "not shown" (2.3 rule 4). */
const LINK_COLUMNS = new Set(['ParentDomainID', 'ParentID', 'ChildID', 'ChildDomainID']);

/** One answer to judge: its operation, the `columns` it was asked with, the records it holds. */
export interface ColumnAnswer {
  operationId: string;
  /** The `columns` parameter as sent; absent or empty asks all in-use columns (COL-002: not judged here). */
  columns: string | null | undefined;
  /** Empty-column suppression was asked: a requested column may be left out of every record (4.2). */
  suppressing?: boolean;
  records: readonly unknown[];
}

/** What is wrong with one record's keys, by requirement; empty when it holds exactly the requested keys. */
function faults(a: ColumnAnswer, cols: RequestedColumn[], r: Record<string, unknown>): Map<string, string[]> {
  const got = new Set(Object.keys(r));
  const keys = new Set(cols.map((c) => c.key));
  // left out is allowed under suppression, and for a link column the spec does not show
  const mayLack = (c: RequestedColumn) =>
    a.suppressing === true || (a.operationId === 'queryLinks' && !LINK_COLUMNS.has(c.field));
  const out = new Map<string, string[]>([
    ['COL-001', []],
    ['COL-003', []],
  ]);
  const unasked = unaskedKeys(a.columns!, [r]);
  if (unasked.length) out.get('COL-001')!.push(`not requested ${show(unasked)}`);
  const missing = cols.filter((c) => !c.alias && !got.has(c.key) && !mayLack(c)).map((c) => c.key);
  if (missing.length) out.get('COL-001')!.push(`missing ${show(missing)}`);
  for (const c of cols.filter((c) => c.alias)) {
    if (!got.has(c.key) && !mayLack(c)) out.get('COL-003')!.push(`missing alias ${show(c.key)}`);
    if (got.has(c.field) && !keys.has(c.field)) out.get('COL-003')!.push(`${show(c.field)} under its own name`);
  }
  return out;
}

/**
 * COL-001: with a column list, every record holds exactly the requested keys (a requested column
 * left out is allowed under suppression and for a link column 2.3 does not show); COL-003: an
 * aliased column under its alias, not under the field's name; COL-011: on the operations beyond the
 * records, both hold. One finding per requirement, on the first record that breaks it. Not judged:
 * no column list, the same key asked twice, no records.
 */
export function judgeColumnKeys(a: ColumnAnswer): Finding[] {
  const cols = requestedColumns(a.columns);
  if (!COLUMN_OPS.has(a.operationId) || !cols || hasDuplicateKeys(cols) || a.records.length === 0) return [];
  const want = show(cols.map((c) => c.key).sort());
  const reqs = ['COL-001', ...(cols.some((c) => c.alias) ? ['COL-003'] : [])];
  const broken = new Map<string, string>();
  // a row that is no object holds no key (the schema rule judges its shape)
  for (const [i, r] of a.records.map((x) => (isObject(x) ? x : {})).entries())
    for (const [req, why] of faults(a, cols, r))
      if (why.length && !broken.has(req))
        broken.set(req, `record ${i} has keys ${show(Object.keys(r).sort())}, requested ${want}; ${why.join('; ')}`);
  const good = `${a.records.length} record(s) with exactly the keys ${want}`;
  const out = reqs.map((q) => ({ requirement: q, ok: !broken.has(q), detail: broken.get(q) ?? good }));
  if (BEYOND_RECORDS.has(a.operationId)) {
    const first = out.find((f) => !f.ok);
    out.push({ requirement: 'COL-011', ok: !first, detail: first ? `${a.operationId}: ${first.detail}` : good });
  }
  return out;
}
