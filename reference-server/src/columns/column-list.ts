// The `columns` parameter (spec 4.1): the list of fields, each optionally renamed with `as`, and
// the columns answered when it is omitted. Names are checked for their shape here; whether the
// domain has them is the select builder's question (select-builder.ts).
import { type DomainDef, storageColumn } from '../dictionary.js';
import { ApiError } from '../errors.js';

export interface ColumnSpec {
  /** the requested field (possibly dotted) */
  field: string;
  /** the response key (the alias, or the field name) */
  key: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
const ALIAS = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** At most this many items in `columns` (SQLite refuses more than 2000 result columns; without a
 * cap a long URL of short names answered 500). More → 400. The cap of `sort` is in sort-list.ts. */
const MAX_COLUMN_ITEMS = 500;

/** Parse `columns`: comma-separated `<field>` or `<field> as <Alias>`. Undefined / empty → undefined
 * (all columns). */
// REQ: COL-001
// REQ: COL-003
export function parseColumnList(raw: string | undefined): ColumnSpec[] | undefined {
  if (raw === undefined || raw.trim() === '') return undefined;
  const out: ColumnSpec[] = [];
  const items = raw.split(',');
  if (items.length > MAX_COLUMN_ITEMS)
    throw new ApiError(
      400,
      'MalformedRequest',
      `'columns' may list at most ${MAX_COLUMN_ITEMS} columns; got ${items.length}.`,
    );
  for (const item of items) {
    const s = item.trim();
    if (s === '') continue;
    const m = /^(\S+)(?:\s+as\s+(\S+))?$/i.exec(s);
    if (!m) throw new ApiError(400, 'UnknownColumn', `Column '${s}' is not of the form <field> or <field> as <Alias>.`);
    const field = m[1]!;
    if (!NAME.test(field)) throw new ApiError(400, 'UnknownColumn', `'${field}' is not a valid column name.`);
    // `__proto__` as a key would set the row object's prototype instead of a property (the column vanished).
    if (m[2] !== undefined && (!ALIAS.test(m[2]) || m[2] === '__proto__'))
      throw new ApiError(400, 'MalformedRequest', `'${m[2]}' is not a valid alias.`);
    out.push({ field, key: m[2] ?? field });
  }
  return out.length ? out : undefined;
}

/** The columns returned when `columns` is omitted: the key and every natively stored column
 * (association and coded fields through their reference column), plus cheap computed metadata. */
// REQ: COL-002
// REQ: COL-013
export function defaultColumns(def: DomainDef): ColumnSpec[] {
  const out: ColumnSpec[] = [{ field: def.key, key: def.key }];
  for (const f of def.fields) {
    if (f.computed?.onDemand) continue;
    const col = f.computed ? f.name : storageColumn(f)!;
    out.push({ field: col, key: col });
  }
  return out;
}
