// The column language (spec 4.1) and the query builder behind every endpoint with `columns`:
// column lists with aliases, dotted names into associations and code lists, bare association and
// coded fields, resolveAssociationNames, default columns, filters, sort and paging.
// Column names are validated against the dictionary; only dictionary names reach the SQL text.
import { createHash } from 'node:crypto';
import type { Deps } from './deps.js';
import { type User } from './permissions.js';
import { can } from './auth.js';
import { type ColumnType, type DomainDef, type FieldDef, nativeColumns, q, storageColumn } from './dictionary.js';
import { ApiError, jsonString, ResponseError } from './errors.js';
import { parseFilter, parseLinq, type SqlFragment } from './filter-parser.js';
import { pageKeys, type SortTerm } from './page-seek.js';

export interface ColumnSpec {
  /** the requested field (possibly dotted) */
  field: string;
  /** the response key (the alias, or the field name) */
  key: string;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;
const ALIAS = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** At most this many items in `columns` and in `sort` (SQLite refuses more than 2000 result
 * columns or ORDER BY terms; without a cap a long URL of short names answered 500). More → 400. */
const MAX_COLUMN_ITEMS = 500;
const MAX_SORT_ITEMS = 100;

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
function defaultColumns(def: DomainDef): ColumnSpec[] {
  const out: ColumnSpec[] = [{ field: def.key, key: def.key }];
  for (const f of def.fields) {
    if (f.computed?.onDemand) continue;
    const col = f.computed ? f.name : storageColumn(f)!;
    out.push({ field: col, key: col });
  }
  return out;
}

type Mode = 'select' | 'filter' | 'sort';

type Resolved =
  { kind: 'sql'; sql: string; type: ColumnType } | { kind: 'null' } | { kind: 'contents' } | { kind: 'download' };

function expand(sql: string, alias: string): string {
  return sql.replace(/\$t\b/g, alias);
}

const CODE_PROPS: Record<string, ColumnType> = { Code: 'text', Description: 'text', CodeID: 'integer' };

export interface RequestContext {
  deps: Deps;
  user: User;
  /** the caller's API token (DownloadURL session token is derived from it) */
  token: string;
}

/** Builds one SELECT over a domain table with the joins its columns, filter and sort need. */
export class SelectBuilder {
  readonly alias = 't';
  private joins = new Map<string, { alias: string; sql: string }>();

  constructor(
    readonly deps: Deps,
    readonly def: DomainDef,
  ) {}

  // REQ: COL-012
  private fail(mode: Mode, detail: string): never {
    throw new ApiError(400, mode === 'filter' ? 'InvalidFilter' : 'UnknownColumn', detail);
  }

  private join(key: string, make: (alias: string) => string): string {
    let j = this.joins.get(key);
    if (!j) {
      const alias = `j${this.joins.size + 1}`;
      j = { alias, sql: make(alias) };
      this.joins.set(key, j);
    }
    return j.alias;
  }

  /** Join the target of an association field; returns the target definition and join alias. */
  private joinAssociation(f: FieldDef): { target: DomainDef; alias: string } {
    const target = this.deps.dict.get(f.target!);
    if (!target) throw new Error(`dictionary: ${this.def.name}.${f.name} targets unknown domain ${f.target}`);
    const alias = this.join(
      'a:' + f.name,
      (a) => `LEFT JOIN ${q(target.table)} ${a} ON ${a}.${q(target.key)} = ${this.alias}.${q(f.name + 'ID')}`,
    );
    return { target, alias };
  }

  private joinCode(f: FieldDef): string {
    return this.join(
      'c:' + f.name,
      (a) =>
        `LEFT JOIN codes ${a} ON ${a}.CodeID = ${this.alias}.${q(f.name + 'ID')} AND ${a}.List = ${sqlString(f.target!)}`,
    );
  }

  /** A plain column of `def` read through table alias `alias` (key, stored column, computed-sql field). */
  private plainColumn(def: DomainDef, alias: string, name: string): { sql: string; type: ColumnType } | undefined {
    if (name === def.key) return { sql: `${alias}.${q(def.key)}`, type: 'integer' };
    const native = nativeColumns(def).find((c) => c.name === name);
    if (native) return { sql: `${alias}.${q(native.name)}`, type: native.type };
    const f = def.fields.find((x) => x.name === name);
    if (f?.computed?.sql) return { sql: `(${expand(f.computed.sql, alias)})`, type: f.type };
    return undefined;
  }

  /** The display string of an association's target (its displayField). */
  private displayOf(target: DomainDef, alias: string): string {
    const col = target.displayField ? this.plainColumn(target, alias, target.displayField) : undefined;
    return col ? `CAST(${col.sql} AS TEXT)` : `CAST(${alias}.${q(target.key)} AS TEXT)`;
  }

  resolve(name: string, mode: Mode, resolveNames = false): Resolved {
    const def = this.def;
    const dot = name.indexOf('.');
    if (dot < 0) {
      const plain = this.plainColumn(def, this.alias, name);
      if (plain) return { kind: 'sql', ...plain };
      const f = def.fields.find((x) => x.name === name);
      if (!f) this.fail(mode, `Domain '${def.name}' has no column '${name}'.`);
      if (f.computed?.onDemand) {
        if (mode !== 'select') this.fail(mode, `Column '${name}' cannot be used in a ${mode}.`);
        return name === 'Contents' ? { kind: 'contents' } : { kind: 'download' };
      }
      if (f.type === 'association') {
        if (mode !== 'select')
          this.fail(mode, `Association '${name}' cannot be used in a ${mode}; use ${name}ID or ${name}.<Field>.`);
        // REQ: COL-006
        // REQ: COL-008
        // REQ: COL-009
        // REQ: COL-010
        if (!resolveNames) return { kind: 'null' };
        const { target, alias } = this.joinAssociation(f);
        return { kind: 'sql', sql: this.displayOf(target, alias), type: 'text' };
      }
      if (f.type === 'coded') {
        if (mode !== 'select')
          this.fail(
            mode,
            `Coded field '${name}' cannot be used in a ${mode}; use ${name}.Code or ${name}.Description.`,
          );
        // REQ: COL-007
        return { kind: 'null' };
      }
      this.fail(mode, `Domain '${def.name}' has no column '${name}'.`);
    }
    // Dotted: <Field>.<Property>
    const head = name.slice(0, dot);
    const prop = name.slice(dot + 1);
    const f = def.fields.find((x) => x.name === head);
    if (f?.type === 'association') {
      // REQ: COL-004
      const { target, alias } = this.joinAssociation(f);
      const col = this.plainColumn(target, alias, prop);
      if (col) return { kind: 'sql', ...col };
      const tf = target.fields.find((x) => x.name === prop && !x.computed);
      if (tf && mode === 'select') return { kind: 'null' }; // a bare association/coded field of the target
      this.fail(mode, `Domain '${target.name}' (through '${head}') has no column '${prop}'.`);
    }
    if (f?.type === 'coded') {
      // REQ: COL-005
      const type = CODE_PROPS[prop];
      if (!type) this.fail(mode, `Coded field '${head}' has the properties Code and Description, not '${prop}'.`);
      const alias = this.joinCode(f);
      return { kind: 'sql', sql: `${alias}.${q(prop)}`, type };
    }
    this.fail(mode, `Domain '${def.name}' has no association or coded field '${head}' (in '${name}').`);
  }

  fromSql(): string {
    return `FROM ${q(this.def.table)} ${this.alias}` + [...this.joins.values()].map((j) => ' ' + j.sql).join('');
  }
}

function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

const OBJECT_REFERENCE_NOT_SET = 'Object reference not set to an instance of an object.';

interface OutputColumn {
  key: string;
  res: Resolved;
  sqlAlias?: string;
  type?: ColumnType;
}

export interface SelectOptions {
  columns?: ColumnSpec[];
  resolveAssociationNames?: boolean;
  filter?: string;
  linqFilter?: string;
  sort?: string;
  where?: SqlFragment[];
  skip?: number;
  take?: number;
  includeTotalCount?: boolean;
}

/** The select list of the output columns (resolved in their order: the first unknown column is
 * the one reported), with the extra columns DownloadURL and Contents need. */
function selectColumns(
  b: SelectBuilder,
  specs: ColumnSpec[],
  resolveNames: boolean | undefined,
): { out: OutputColumn[]; selects: string[]; wantsDownload: boolean } {
  const out: OutputColumn[] = specs.map((s) => ({ key: s.key, res: b.resolve(s.field, 'select', resolveNames) }));
  const selects: string[] = [];
  out.forEach((o, i) => {
    if (o.res.kind === 'sql') {
      o.sqlAlias = `c${i}`;
      o.type = o.res.type;
      selects.push(`${o.res.sql} AS ${o.sqlAlias}`);
    }
  });
  const wantsContents = out.some((o) => o.res.kind === 'contents');
  const wantsDownload = out.some((o) => o.res.kind === 'download');
  if (wantsDownload)
    selects.push(`t."FileID" AS __fid, t."ExternalFileRepositoryID" AS __xrep, t."ExternalDirectURL" AS __xurl`);
  // REQ: FILE-012 — bytes are read only when Contents is requested.
  // REQ: AUTH-003 — Contents works under token authentication.
  if (wantsContents)
    selects.push(`(SELECT fc.Contents FROM file_contents fc WHERE fc.FileID = t."FileID") AS __contents`);
  if (selects.length === 0) selects.push('1 AS __one');
  return { out, selects, wantsDownload };
}

/** DownloadURL is answered only with enhanced session ID security on (a runtime setting). */
// REQ: FILE-017
// REQ: FILE-020
function requireDownloadUrls(deps: Deps): void {
  if (!deps.settings.enhancedSessionIDSecurity) {
    throw new ResponseError(
      (c) => jsonString(c, 500, OBJECT_REFERENCE_NOT_SET),
      'DownloadURL with enhanced session ID security off',
    );
  }
}

function isDownloadRestricted(user: User): boolean {
  return can(user, 'File', 'RestrictDownload') && !can(user, 'File', 'Full');
}

/** One answer record from one SQL row. */
function shapeRow(
  ctx: RequestContext,
  out: OutputColumn[],
  r: Record<string, unknown>,
  restricted: boolean,
): Record<string, unknown> {
  const rec: Record<string, unknown> = {};
  for (const o of out) {
    switch (o.res.kind) {
      case 'sql': {
        const v = r[o.sqlAlias!];
        rec[o.key] = o.type === 'boolean' && v !== null && v !== undefined ? !!v : (v ?? null);
        break;
      }
      case 'null':
        rec[o.key] = null;
        break;
      case 'contents': {
        // REQ: FILE-010
        const v = r.__contents;
        rec[o.key] = v === null || v === undefined ? null : Buffer.from(v as Uint8Array).toString('base64');
        break;
      }
      case 'download':
        rec[o.key] = downloadUrl(ctx, r, restricted);
        break;
    }
  }
  return rec;
}

/**
 * A compiled read of one record by key: the SELECT of the columns (with the key condition and any
 * `conditions`, e.g. the active-record condition, in one statement) and how to shape its row.
 * Compiled once per (domain, columns, resolveAssociationNames, conditions) and kept: the column
 * engine and the SQL text depend on the dictionary only, never on the request, the user or the
 * settings (DownloadURL's setting and restriction are checked when the plan runs).
 */
export interface RecordRead {
  /** undefined: no row with that key (meeting the conditions); else the answer record */
  run(ctx: RequestContext, id: number): Record<string, unknown> | undefined;
  /** the plan asks for DownloadURL, which needs enhanced session ID security (FILE-017) */
  readonly wantsDownload: boolean;
}

/** Compile a one-record read (throws the column engine's errors: unknown columns and the like). */
export function compileRecordRead(
  deps: Deps,
  def: DomainDef,
  columns: ColumnSpec[] | undefined,
  resolveNames: boolean,
  conditions: SqlFragment[],
): RecordRead {
  const b = new SelectBuilder(deps, def);
  const { out, selects, wantsDownload } = selectColumns(b, columns ?? defaultColumns(def), resolveNames);
  const where = [{ sql: `t.${q(def.key)} = ?`, params: [] as unknown[] }, ...conditions];
  const params = conditions.flatMap((w) => w.params);
  const sql = `SELECT ${selects.join(', ')} ${b.fromSql()} WHERE ${where.map((w) => `(${w.sql})`).join(' AND ')}`;
  const statement = deps.db.prepare(sql);
  return {
    wantsDownload,
    run(ctx, id) {
      const r = statement.get(id, ...params) as Record<string, unknown> | undefined;
      if (!r) return undefined;
      if (wantsDownload) requireDownloadUrls(ctx.deps);
      return shapeRow(ctx, out, r, wantsDownload && isDownloadRestricted(ctx.user));
    },
  };
}

/** Run a select over `def` with the column language, and shape the rows. Every endpoint with a
 * `columns` parameter goes through here, so the language is the same everywhere. */
// REQ: COL-011
// REQ: GEN-002
export function selectRecords(
  ctx: RequestContext,
  def: DomainDef,
  opts: SelectOptions,
): { rows: Array<Record<string, unknown>>; total?: number } {
  const { deps } = ctx;
  const b = new SelectBuilder(deps, def);
  const { out, selects, wantsDownload } = selectColumns(
    b,
    opts.columns ?? defaultColumns(def),
    opts.resolveAssociationNames,
  );
  if (wantsDownload) requireDownloadUrls(deps);

  const where: SqlFragment[] = [...(opts.where ?? [])];
  const resolver = (name: string) => {
    const r = b.resolve(name, 'filter');
    if (r.kind !== 'sql') throw new ApiError(400, 'InvalidFilter', `Column '${name}' cannot be filtered.`);
    return { sql: r.sql, type: r.type };
  };
  if (opts.filter !== undefined && opts.filter.trim() !== '') where.push(parseFilter(opts.filter, resolver));
  if (opts.linqFilter !== undefined && opts.linqFilter.trim() !== '') where.push(parseLinq(opts.linqFilter, resolver));

  const terms: SortTerm[] = [];
  if (opts.sort !== undefined && opts.sort.trim() !== '') {
    // REQ: QRY-023 — `asc` is an explicit ascending keyword.
    // REQ: QRY-024 — several comma-separated items: the first decides, ties go to the next.
    // REQ: QRY-008
    const items = opts.sort.split(',');
    if (items.length > MAX_SORT_ITEMS)
      throw new ApiError(
        400,
        'MalformedRequest',
        `'sort' may list at most ${MAX_SORT_ITEMS} columns; got ${items.length}.`,
      );
    for (const item of items) {
      const s = item.trim();
      if (!s) continue;
      const m = /^(\S+)(?:\s+(asc|desc|ascending|descending))?$/i.exec(s);
      if (!m)
        throw new ApiError(400, 'MalformedRequest', `Sort item '${s}' is not of the form <column> or <column> desc.`);
      const r = b.resolve(m[1]!, 'sort');
      if (r.kind !== 'sql') throw new ApiError(400, 'UnknownColumn', `Column '${m[1]}' cannot be sorted on.`);
      terms.push({ sql: r.sql, desc: !!m[2] && m[2].toLowerCase().startsWith('desc') });
    }
  }
  terms.push({ sql: `t.${q(def.key)}`, desc: false });
  const order = terms.map((t) => `${t.sql} ${t.desc ? 'DESC' : 'ASC'}`);

  const whereSql = where.length ? ' WHERE ' + where.map((w) => `(${w.sql})`).join(' AND ') : '';
  const params = where.flatMap((w) => w.params);
  const orderSql = order.join(', ');
  let raw: Array<Record<string, unknown>>;
  if (opts.skip) {
    // A deep page: its keys first, from where an earlier page of the same query ended when there
    // is one (page-seek.ts: an index seek instead of stepping over every skipped row), then the
    // selected columns of those rows alone, in the same total order.
    const keys = pageKeys({
      db: deps.db,
      fromSql: b.fromSql(),
      where: where.map((w) => w.sql),
      whereParams: params,
      terms,
      keySql: `t.${q(def.key)}`,
      take: opts.take ?? -1,
      skip: opts.skip,
    });
    raw = keys.length
      ? (deps.db
          .prepare(
            `SELECT ${selects.join(', ')} ${b.fromSql()} WHERE t.${q(def.key)} IN (SELECT value FROM json_each(?)) ORDER BY ${orderSql}`,
          )
          .all(JSON.stringify(keys)) as Array<Record<string, unknown>>)
      : [];
  } else if (opts.take !== undefined) {
    // A page: pick the page's keys first (filter, sort and offset over the key and the filter and
    // sort columns only, which an index can cover), then read the selected columns (joins,
    // computed columns, file bytes) of those rows alone. Same rows in the same order: the outer
    // query sorts by the same total order (the key last).
    const keys = `SELECT t.${q(def.key)} ${b.fromSql()}${whereSql} ORDER BY ${orderSql} LIMIT ? OFFSET ?`;
    raw = deps.db
      .prepare(`SELECT ${selects.join(', ')} ${b.fromSql()} WHERE t.${q(def.key)} IN (${keys}) ORDER BY ${orderSql}`)
      .all(...params, opts.take, 0) as Array<Record<string, unknown>>;
  } else {
    raw = deps.db
      .prepare(`SELECT ${selects.join(', ')} ${b.fromSql()}${whereSql} ORDER BY ${orderSql}`)
      .all(...params) as Array<Record<string, unknown>>;
  }

  const restricted = wantsDownload && isDownloadRestricted(ctx.user);
  const rows = raw.map((r) => shapeRow(ctx, out, r, restricted));

  let total: number | undefined;
  if (opts.includeTotalCount) {
    const row = deps.db.prepare(`SELECT COUNT(*) AS n ${b.fromSql()}${whereSql}`).get(...params) as { n: number };
    total = row.n;
  }
  return { rows, total };
}

/** DownloadURL: relative web-application link; empty for external files and for users with
 * RestrictDownload without Full. */
// REQ: FILE-013
// REQ: FILE-015
// REQ: FILE-016
// REQ: FILE-014 — a web-application link (used with a web session), not an API path.
// REQ: AUTH-009
function downloadUrl(ctx: RequestContext, r: Record<string, unknown>, restricted: boolean): string {
  if (restricted) return '';
  if (r.__xrep !== null && r.__xrep !== undefined) return '';
  if (typeof r.__xurl === 'string' && r.__xurl !== '') return '';
  const fileId = Number(r.__fid);
  const session = createHash('sha256').update(`${ctx.token}:${fileId}`).digest('base64url').slice(0, 32);
  return `Download.aspx?FileID=${fileId}&SessionToken=${session}`;
}

/** Drop the columns that are null in every row (excludeEmptyColumns). */
// REQ: QRY-011
// REQ: QRY-012
export function excludeEmptyColumns(rows: Array<Record<string, unknown>>): void {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]!);
  for (const k of keys) {
    if (rows.every((r) => r[k] === null || r[k] === undefined)) for (const r of rows) delete r[k];
  }
}
