// Record queries (spec 4.2): the `where` filter, the `linq` filter, sort, paging, suppression.
import { ApiError, DOMAINS, parseColumns, project, readColumn } from './domains.mjs';

/** @typedef {import('./domains.mjs').DomainDef} DomainDef */

/**
 * Tokenizer shared by both filter languages.
 * @param {string} src
 * @param {'where'|'linq'} dialect
 */
function tokenize(src, dialect) {
  /** @type {Array<{t: string, v?: any}>} */
  const out = [];
  let i = 0;
  const bad = (msg) => new ApiError(422, dialect === 'where' ? 'invalid-filter' : 'invalid-linq-filter', msg);
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) { i++; continue; }
    if (c === '(' || c === ')') { out.push({ t: c }); i++; continue; }
    if (dialect === 'where' && c === "'") {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw bad('A quoted value is not closed.');
        if (src[i] === "'") {
          if (src[i + 1] === "'") { s += "'"; i += 2; continue; }
          i++;
          break;
        }
        s += src[i++];
      }
      out.push({ t: 'lit', v: s });
      continue;
    }
    if (dialect === 'linq' && c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw bad('A string literal is not closed.');
        if (src[i] === '\\' && i + 1 < src.length) { s += src[i + 1]; i += 2; continue; }
        if (src[i] === '"') { i++; break; }
        s += src[i++];
      }
      out.push({ t: 'lit', v: s });
      continue;
    }
    const num = /^-?\d+(\.\d+)?/.exec(src.slice(i));
    if (num && (c === '-' || /\d/.test(c))) { out.push({ t: 'lit', v: Number(num[0]) }); i += num[0].length; continue; }
    if (dialect === 'linq') {
      const op = /^(==|!=|<=|>=|<|>|&&|\|\||=>|!)/.exec(src.slice(i));
      if (op) { out.push({ t: 'op', v: op[0] }); i += op[0].length; continue; }
    }
    const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(src.slice(i));
    if (word) { out.push({ t: 'word', v: word[0] }); i += word[0].length; continue; }
    throw bad(`Unexpected character "${c}" at position ${i + 1}.`);
  }
  return out;
}

const WHERE_OPS = new Map([['eq', '=='], ['ne', '!='], ['gt', '>'], ['ge', '>='], ['lt', '<'], ['le', '<='], ['sw', 'sw'], ['ct', 'ct']]);

/**
 * @param {unknown} a
 * @param {unknown} b
 */
export function compareValues(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * @param {unknown} v field value
 * @param {string} op
 * @param {unknown} lit
 */
function test(v, op, lit) {
  if (lit === null) {
    if (op === '==') return v === null;
    if (op === '!=') return v !== null;
    return false;
  }
  if (v === null || v === undefined) return op === '!=';
  let l = lit;
  if (typeof v === 'number' && typeof l === 'string' && l.trim() !== '' && Number.isFinite(Number(l))) l = Number(l);
  if (typeof v === 'boolean' && typeof l === 'string') l = /^(true|yes|y|1)$/i.test(l);
  if (typeof v === 'string' && typeof l !== 'string') l = String(l);
  switch (op) {
    case '==': return typeof v === typeof l ? v === l : false;
    case '!=': return !(typeof v === typeof l && v === l);
    case 'sw': return String(v).startsWith(String(l));
    case 'ct': return String(v).includes(String(l));
    default: {
      if (typeof v !== typeof l) return false;
      const c = compareValues(v, l);
      return op === '>' ? c > 0 : op === '>=' ? c >= 0 : op === '<' ? c < 0 : c <= 0;
    }
  }
}

/**
 * Compile a filter of either language to a predicate.
 * where: `Field eq 'text' and (Other gt 3 or Other eq null)`
 * linq:  `r => r.Field == "text" && (r.Other > 3 || r.Other == null)`
 * @param {DomainDef} def
 * @param {string} src
 * @param {'where'|'linq'} dialect
 * @returns {(rec: any, ctx: any) => boolean}
 */
export function compileFilter(def, src, dialect) {
  const slug = dialect === 'where' ? 'invalid-filter' : 'invalid-linq-filter';
  const bad = (msg) => new ApiError(422, slug, msg);
  const toks = tokenize(src, dialect);
  let pos = 0;
  let param = null;
  if (dialect === 'linq') {
    if (toks.length < 2 || toks[0].t !== 'word' || toks[1].t !== 'op' || toks[1].v !== '=>') {
      throw bad('A LINQ filter is a lambda: `r => r.Field == value`.');
    }
    param = toks[0].v;
    pos = 2;
  }
  const peek = () => toks[pos];
  const isOr = (t) => t && (dialect === 'where' ? t.t === 'word' && /^or$/i.test(t.v) : t.t === 'op' && t.v === '||');
  const isAnd = (t) => t && (dialect === 'where' ? t.t === 'word' && /^and$/i.test(t.v) : t.t === 'op' && t.v === '&&');
  const field = (name) => {
    const dot = name.indexOf('.');
    const base = dot < 0 ? name : name.slice(0, dot);
    const prop = dot < 0 ? null : name.slice(dot + 1);
    // reuse the column checks
    parseColumns(def, name);
    return { base, prop };
  };
  const primary = () => {
    const t = peek();
    if (!t) throw bad('The filter ends too early.');
    if (t.t === '(') {
      pos++;
      const e = orExpr();
      if (!peek() || peek().t !== ')') throw bad('A parenthesis is not closed.');
      pos++;
      return e;
    }
    if (dialect === 'linq' && t.t === 'op' && t.v === '!') {
      pos++;
      const e = primary();
      return (r, c) => !e(r, c);
    }
    if (t.t !== 'word') throw bad('A condition starts with a field name.');
    let name = t.v;
    if (dialect === 'linq') {
      if (!name.startsWith(`${param}.`)) throw bad(`Fields are read as ${param}.<Field>.`);
      name = name.slice(param.length + 1);
    }
    pos++;
    const { base, prop } = field(name);
    const o = peek();
    let op;
    if (dialect === 'where') {
      if (!o || o.t !== 'word' || !WHERE_OPS.has(o.v.toLowerCase())) throw bad(`An operator (eq, ne, gt, ge, lt, le, sw, ct) must follow ${name}.`);
      op = WHERE_OPS.get(o.v.toLowerCase());
    } else {
      if (!o || o.t !== 'op' || !['==', '!=', '<', '<=', '>', '>='].includes(o.v)) throw bad(`A comparison must follow ${name}.`);
      op = o.v;
    }
    pos++;
    const lt = peek();
    if (!lt) throw bad('A value is missing.');
    let lit;
    if (lt.t === 'lit') lit = lt.v;
    else if (lt.t === 'word' && lt.v === 'null') lit = null;
    else if (lt.t === 'word' && (lt.v === 'true' || lt.v === 'false')) lit = lt.v === 'true';
    else throw bad(dialect === 'where' ? "Values are 'quoted', numbers, true, false or null." : 'Values are "strings", numbers, true, false or null.');
    pos++;
    return (r, c) => test(readColumn(def, r, base, prop, c), op, lit);
  };
  const andExpr = () => {
    let e = primary();
    while (isAnd(peek())) {
      pos++;
      const a = e;
      const b = primary();
      e = (r, c) => a(r, c) && b(r, c);
    }
    return e;
  };
  const orExpr = () => {
    let e = andExpr();
    while (isOr(peek())) {
      pos++;
      const a = e;
      const b = andExpr();
      e = (r, c) => a(r, c) || b(r, c);
    }
    return e;
  };
  const expr = orExpr();
  if (pos !== toks.length) throw bad(`Unexpected "${toks[pos].v ?? toks[pos].t}".`);
  return expr;
}

/**
 * @param {string|null} raw
 * @param {string} name
 * @param {boolean} dflt
 */
export function parseBool(raw, name, dflt) {
  if (raw === null || raw === '') return dflt;
  if (/^(true|1|yes|y)$/i.test(raw)) return true;
  if (/^(false|0|no|n)$/i.test(raw)) return false;
  throw new ApiError(422, 'invalid-parameter', `${name} must be true or false.`);
}

/**
 * @param {string|null} raw
 * @param {string} name
 * @param {number} dflt
 */
export function parseInt0(raw, name, dflt) {
  if (raw === null || raw === '') return dflt;
  if (!/^\d+$/.test(raw.trim())) throw new ApiError(422, 'invalid-parameter', `${name} must be a whole number, 0 or more.`);
  return Number(raw.trim());
}

/**
 * @param {DomainDef} def
 * @param {string|null} raw
 */
function parseSort(def, raw) {
  if (raw === null || raw.trim() === '') return [];
  return raw.split(',').map((part) => {
    const m = /^\s*(\S+)(?:\s+(asc|desc))?\s*$/i.exec(part);
    if (!m) throw new ApiError(422, 'invalid-sort', `Sort item "${part.trim()}" is not "<column> [asc|desc]".`);
    const [col] = parseColumns(def, m[1]);
    return { base: col.base, prop: col.prop, desc: (m[2] ?? '').toLowerCase() === 'desc' };
  });
}

/**
 * Run a domain query. Parameters are this peer's names (see README).
 * @param {DomainDef} def
 * @param {URLSearchParams} q
 * @param {any} ctx
 * @param {{ noContents?: boolean, extraFilter?: (r: any) => boolean, records?: any[] }} [opts]
 */
export function runQuery(def, q, ctx, opts = {}) {
  const cols = parseColumns(def, q.get('columns'), { noContents: opts.noContents });
  const where = q.get('where');
  const linq = q.get('linq');
  const preds = [];
  if (where !== null && where.trim() !== '') preds.push(compileFilter(def, where, 'where'));
  if (linq !== null && linq.trim() !== '') preds.push(compileFilter(def, linq, 'linq'));
  const sort = parseSort(def, q.get('sort'));
  const offset = parseInt0(q.get('offset'), 'offset', 0);
  const take = Math.min(parseInt0(q.get('take'), 'take', 30), 100);
  const omitEmpty = parseBool(q.get('omitEmpty'), 'omitEmpty', false);
  const withTotal = parseBool(q.get('withTotal'), 'withTotal', false);
  ctx.resolve = parseBool(q.get('resolveAssociationNames'), 'resolveAssociationNames', false);
  let rows = opts.records ?? [...ctx.store.records.get(def.name).values()];
  if (opts.extraFilter) rows = rows.filter(opts.extraFilter);
  for (const p of preds) rows = rows.filter((r) => p(r, ctx));
  const key = def.key;
  if (sort.length === 0) {
    // no sort asked: newest record first
    rows.sort((a, b) => b[key] - a[key]);
  } else {
    const keyed = rows.map((r) => ({ r, k: sort.map((s) => readColumn(def, r, s.base, s.prop, ctx)) }));
    keyed.sort((a, b) => {
      for (let i = 0; i < sort.length; i++) {
        const x = a.k[i];
        const y = b.k[i];
        let c;
        if (x === null && y === null) c = 0;
        else if (x === null) c = 1; // nulls after values in ascending order
        else if (y === null) c = -1;
        else c = compareValues(x, y);
        if (c !== 0) return sort[i].desc ? -c : c;
      }
      return a.r[key] - b.r[key];
    });
    rows = keyed.map((x) => x.r);
  }
  const total = rows.length;
  const page = rows.slice(offset, offset + take).map((r) => project(def, r, cols, ctx));
  if (omitEmpty) {
    for (const c of cols) {
      if (page.every((row) => row[c.key] === null || row[c.key] === undefined)) for (const row of page) delete row[c.key];
    }
  }
  return { list: page, total: withTotal ? total : null };
}

export { DOMAINS };
