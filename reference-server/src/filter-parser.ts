// The two filter languages of GET /api/{domain}/Query (architecture 2.1 and 2.2), parsed into
// parameterised SQL. Field names are resolved through a callback that validates them against the
// dictionary; values are always bound as parameters, never spliced.
import { ApiError } from './errors.js';
import type { ColumnType } from './dictionary.js';

export interface SqlFragment {
  sql: string;
  params: unknown[];
}

/** Resolve a (possibly dotted) field name to an SQL expression; throws 400 InvalidFilter when the
 * field is unknown or cannot be filtered. */
export type FieldResolver = (name: string) => { sql: string; type: ColumnType };

function invalid(detail: string): never {
  throw new ApiError(400, 'InvalidFilter', detail);
}

const LINQ_OPS = new Map<string, CompareOp>([
  ['==', 'eq'],
  ['!=', 'ne'],
  ['<', 'lt'],
  ['<=', 'le'],
  ['>', 'gt'],
  ['>=', 'ge'],
]);

/** At most this many conditions in one `filter` or `linqFilter`, and parentheses nested at most
 * this deep: bounded parser recursion and SQL expression depth (SQLite refuses trees deeper than
 * 1000; a deeper LINQ nesting overflowed the parser's stack). More → 400 InvalidFilter. */
const MAX_FILTER_CONDITIONS = 100;
const MAX_FILTER_NESTING = 32;

const BOOL_TRUE = new Set(['true', 'yes', 'y', '1']);
const BOOL_FALSE = new Set(['false', 'no', 'n', '0']);

/** Convert a filter value (text) to the column's type for binding. */
function bindValue(raw: string | number | boolean, type: ColumnType, field: string): unknown {
  if (type === 'integer' || type === 'number') {
    if (typeof raw === 'number') return raw;
    if (typeof raw === 'boolean') invalid(`'${field}' is numeric; a boolean cannot be compared with it.`);
    const s = String(raw).trim();
    const v = Number(s);
    if (s === '' || !Number.isFinite(v)) invalid(`'${field}' is numeric; '${raw}' is not a number.`);
    return v;
  }
  if (type === 'boolean') {
    if (typeof raw === 'boolean') return raw ? 1 : 0;
    const s = String(raw).toLowerCase();
    if (BOOL_TRUE.has(s)) return 1;
    if (BOOL_FALSE.has(s)) return 0;
    invalid(`'${field}' is boolean; '${raw}' is not a boolean.`);
  }
  return String(raw);
}

function likeEscape(s: string): string {
  return s.replace(/[\\%_]/g, (m) => '\\' + m);
}

type CompareOp = 'eq' | 'ne' | 'lt' | 'le' | 'gt' | 'ge' | 'contains' | 'startswith' | 'isnull' | 'notnull';

function comparison(
  expr: string,
  type: ColumnType,
  field: string,
  op: CompareOp,
  value: string | number | boolean | null,
): SqlFragment {
  switch (op) {
    case 'isnull':
      return { sql: `${expr} IS NULL`, params: [] };
    case 'notnull':
      return { sql: `${expr} IS NOT NULL`, params: [] };
    case 'contains':
    case 'startswith': {
      if (value === null) invalid(`'${op}' needs a value.`);
      const pat = (op === 'contains' ? '%' : '') + likeEscape(String(value)) + '%';
      return { sql: `${expr} LIKE ? ESCAPE '\\'`, params: [pat] };
    }
    default: {
      if (value === null) {
        if (op === 'eq') return { sql: `${expr} IS NULL`, params: [] };
        if (op === 'ne') return { sql: `${expr} IS NOT NULL`, params: [] };
        invalid(`null can only be compared with == or !=.`);
      }
      const v = bindValue(value, type, field);
      const sqlOp = { eq: 'IS', ne: 'IS NOT', lt: '<', le: '<=', gt: '>', ge: '>=' }[op];
      return { sql: `${expr} ${sqlOp} ?`, params: [v] };
    }
  }
}

// ---- 2.1 filter: Field:op:value && Field:op:value ---------------------------------------------

const FILTER_OPS = new Set<CompareOp>([
  'eq',
  'ne',
  'lt',
  'le',
  'gt',
  'ge',
  'contains',
  'startswith',
  'isnull',
  'notnull',
]);

// REQ: QRY-009
// REQ: QRY-020
export function parseFilter(filter: string, resolve: FieldResolver): SqlFragment {
  const parts = filter.split('&&');
  if (parts.length > MAX_FILTER_CONDITIONS)
    invalid(`A filter may have at most ${MAX_FILTER_CONDITIONS} conditions; got ${parts.length}.`);
  const out: SqlFragment[] = [];
  for (const part of parts) {
    const cond = part.trim();
    if (cond === '') invalid(`Empty condition in filter '${filter}'. Use Field:op:value joined by &&.`);
    const a = cond.indexOf(':');
    const b = a < 0 ? -1 : cond.indexOf(':', a + 1);
    if (a < 0 || b < 0) invalid(`Condition '${cond}' is not of the form Field:op:value.`);
    const field = cond.slice(0, a).trim();
    const op = cond
      .slice(a + 1, b)
      .trim()
      .toLowerCase() as CompareOp;
    const value = cond.slice(b + 1);
    if (!FILTER_OPS.has(op))
      invalid(`Unknown filter operator '${cond.slice(a + 1, b)}'; use one of ${[...FILTER_OPS].join(', ')}.`);
    if ((op === 'isnull' || op === 'notnull') && value.trim() !== '')
      invalid(`'${op}' takes no value (write ${field}:${op}:).`);
    const { sql, type } = resolve(field);
    out.push(comparison(sql, type, field, op, op === 'isnull' || op === 'notnull' ? null : value));
  }
  return { sql: out.map((f) => `(${f.sql})`).join(' AND '), params: out.flatMap((f) => f.params) };
}

// ---- 2.2 LINQ safe subset ---------------------------------------------------------------------

type Tok =
  | { k: 'ident'; v: string; pos: number }
  | { k: 'str'; v: string; pos: number }
  | { k: 'num'; v: number; pos: number }
  | { k: 'kw'; v: 'null' | 'true' | 'false'; pos: number }
  | { k: 'op'; v: string; pos: number }
  | { k: 'end'; pos: number };

function tokenize(src: string): Tok[] {
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const pos = i;
    if (ch === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) invalid(`Unterminated string starting at position ${pos}.`);
        const c = src[i]!;
        if (c === '\\') {
          const nx = src[i + 1];
          if (nx === '"' || nx === '\\') {
            s += nx;
            i += 2;
            continue;
          }
          invalid(`Unsupported escape '\\${nx ?? ''}' at position ${i}.`);
        }
        if (c === '"') {
          i++;
          break;
        }
        s += c;
        i++;
      }
      toks.push({ k: 'str', v: s, pos });
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(src.slice(i));
    if (num && (ch !== '-' || /\d/.test(src[i + 1] ?? ''))) {
      toks.push({ k: 'num', v: Number(num[0]), pos });
      i += num[0].length;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/.exec(src.slice(i));
    if (id) {
      const v = id[0];
      if (v === 'null' || v === 'true' || v === 'false') toks.push({ k: 'kw', v, pos });
      else toks.push({ k: 'ident', v, pos });
      i += v.length;
      continue;
    }
    const op = /^(==|!=|<=|>=|&&|\|\||<|>|\(|\)|,)/.exec(src.slice(i));
    if (op) {
      toks.push({ k: 'op', v: op[0], pos });
      i += op[0].length;
      continue;
    }
    invalid(`Unexpected '${ch}' at position ${i} in linqFilter.`);
  }
  toks.push({ k: 'end', pos: src.length });
  return toks;
}

// REQ: QRY-010
// REQ: QRY-021
export function parseLinq(src: string, resolve: FieldResolver): SqlFragment {
  const toks = tokenize(src);
  let p = 0;
  let depth = 0;
  let conditions = 0;
  const peek = () => toks[p]!;
  const isOp = (v: string) => {
    const t = peek();
    return t.k === 'op' && t.v === v;
  };
  const expectOp = (v: string) => {
    if (!isOp(v)) invalid(`Expected '${v}' at position ${peek().pos}.`);
    p++;
  };

  function orExpr(): SqlFragment {
    const parts = [andExpr()];
    while (isOp('||')) {
      p++;
      parts.push(andExpr());
    }
    return parts.length === 1
      ? parts[0]!
      : { sql: parts.map((f) => `(${f.sql})`).join(' OR '), params: parts.flatMap((f) => f.params) };
  }
  function andExpr(): SqlFragment {
    const parts = [primary()];
    while (isOp('&&')) {
      p++;
      parts.push(primary());
    }
    return parts.length === 1
      ? parts[0]!
      : { sql: parts.map((f) => `(${f.sql})`).join(' AND '), params: parts.flatMap((f) => f.params) };
  }
  function primary(): SqlFragment {
    const t = peek();
    if (t.k === 'op' && t.v === '(') {
      if (++depth > MAX_FILTER_NESTING)
        invalid(`Parentheses in linqFilter may be nested at most ${MAX_FILTER_NESTING} deep (position ${t.pos}).`);
      p++;
      const e = orExpr();
      expectOp(')');
      depth--;
      return { sql: `(${e.sql})`, params: e.params };
    }
    if (t.k !== 'ident') invalid(`Expected a field name at position ${t.pos}.`);
    if (++conditions > MAX_FILTER_CONDITIONS)
      invalid(`A linqFilter may have at most ${MAX_FILTER_CONDITIONS} conditions.`);
    p++;
    // Field.Contains("x") / Field.StartsWith("x")
    const m = /^(.*)\.(Contains|StartsWith)$/.exec(t.v);
    if (m && isOp('(')) {
      p++;
      const arg = peek();
      if (arg.k !== 'str') invalid(`${m[2]}() takes one string literal (position ${arg.pos}).`);
      p++;
      expectOp(')');
      const { sql, type } = resolve(m[1]!);
      return comparison(sql, type, m[1]!, m[2] === 'Contains' ? 'contains' : 'startswith', arg.v);
    }
    const opTok = peek();
    const op = opTok.k === 'op' ? LINQ_OPS.get(opTok.v) : undefined;
    if (!op)
      invalid(
        `Expected a comparison (== != < <= > >=) or .Contains/.StartsWith after '${t.v}' at position ${opTok.pos}.`,
      );
    p++;
    const lit = peek();
    let value: string | number | boolean | null;
    if (lit.k === 'str' || lit.k === 'num') value = lit.v;
    else if (lit.k === 'kw') value = lit.v === 'null' ? null : lit.v === 'true';
    else invalid(`Expected a literal (string, number, true, false or null) at position ${lit.pos}.`);
    p++;
    const { sql, type } = resolve(t.v);
    return comparison(sql, type, t.v, op, value);
  }

  const e = orExpr();
  if (peek().k !== 'end') invalid(`Unexpected input at position ${peek().pos} in linqFilter.`);
  return e;
}
