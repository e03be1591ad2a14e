// Deep pages without stepping over every skipped row: a page of a list query remembers where it
// ended (the sort values and the key of its last row, and how many rows came before the next
// one). A later page of the same query (same filter, same sort, same parameters) with a `skip` at
// or past a remembered end starts right after that row (`WHERE (sort, key) > (values)`, an index
// seek) and skips only the difference. Clients that page through a result (skip 0, 100, 200, ...)
// and repeated deep pages then cost about as much as the first page.
//
// Same rows, same order: the order is total (the key is its last term), so "after the remembered
// row" is exactly the rows at positions >= its end. A remembered end is only used while the
// database is unchanged: the stamp (total_changes() of this connection and data_version for any
// other) is read in the same read transaction as the page; any write (even one rolled back)
// forgets every remembered end. NULLs sort first ascending and last descending, as SQLite's ORDER
// BY does, and `IS ?` / `<` / `>` compare with the same collation and affinity as ORDER BY.
import type Database from 'better-sqlite3';

export interface SortTerm {
  /** SQL expression of the term, as in ORDER BY */
  sql: string;
  desc: boolean;
}

interface Checkpoint {
  /** rows before the row after this checkpoint (skip + rows of the page that ended here) */
  end: number;
  /** the sort values of the page's last row, one per term (the key last) */
  values: unknown[];
}

interface Remembered {
  stamp: string;
  checkpoints: Checkpoint[];
}

/** Query shapes remembered per connection, and ends per shape (least recently added out first). */
const SEEK_SHAPES = 200;
const SEEK_CHECKPOINTS = 64;

const memory = new WeakMap<Database.Database, Map<string, Remembered>>();

/** Pages served from a remembered end, and from the start (for tests and diagnostics). */
export const seekCounts = { fromEnd: 0, fromStart: 0 };

/** The predicate "the row comes after `values`" in the order of `terms`, with its parameters. */
function afterPredicate(terms: SortTerm[], values: unknown[]): { sql: string; params: unknown[] } {
  const ors: string[] = [];
  const params: unknown[] = [];
  for (let i = 0; i < terms.length; i++) {
    const parts: string[] = [];
    const p: unknown[] = [];
    for (let j = 0; j < i; j++) {
      parts.push(`${terms[j]!.sql} IS ?`);
      p.push(values[j]);
    }
    const { sql, desc } = terms[i]!;
    const v = values[i];
    let after: string;
    if (v === null || v === undefined) after = desc ? '0' : `${sql} IS NOT NULL`;
    else if (desc) {
      after = `(${sql} < ? OR ${sql} IS NULL)`;
      p.push(v);
    } else {
      after = `${sql} > ?`;
      p.push(v);
    }
    if (after === '0') continue;
    parts.push(after);
    ors.push(`(${parts.join(' AND ')})`);
    params.push(...p);
  }
  return { sql: ors.length ? `(${ors.join(' OR ')})` : '0', params };
}

/**
 * The rows after `values`, as parts to read one after the other (each in the order of `terms`),
 * each starting with a range on the first term that an index on it can seek to: `t <= v` for a
 * descending term, `t >= v` for an ascending one, the ties then filtered by the other terms. A
 * descending term with a value has its NULL rows last, which no single range reaches: they are a
 * second part.
 */
function seekParts(terms: SortTerm[], values: unknown[]): Array<{ sql: string; params: unknown[] }> {
  const [first, ...rest] = terms;
  const v = values[0];
  const tie = afterPredicate(rest, values.slice(1));
  if (!first) return [{ sql: '0', params: [] }];
  if (v === null || v === undefined) {
    if (first.desc) return [{ sql: `${first.sql} IS NULL AND ${tie.sql}`, params: tie.params }];
    return [afterPredicate(terms, values)];
  }
  const range = first.desc ? '<' : '>';
  const main = {
    sql: `${first.sql} ${range}= ? AND (${first.sql} ${range} ? OR ${tie.sql})`,
    params: [v, v, ...tie.params],
  };
  return first.desc ? [main, { sql: `${first.sql} IS NULL`, params: [] }] : [main];
}

export interface PageQuery {
  db: Database.Database;
  /** FROM clause (with joins) shared by every statement */
  fromSql: string;
  /** the WHERE conditions (without the keyword) and their parameters */
  where: string[];
  whereParams: unknown[];
  /** the ORDER BY terms, the key last */
  terms: SortTerm[];
  /** key expression, e.g. t."ClaimID" */
  keySql: string;
  take: number;
  skip: number;
}

/** The keys of one page, in order: from a remembered end when there is one at or before `skip`. */
export function pageKeys(o: PageQuery): unknown[] {
  const { db } = o;
  let shapes = memory.get(db);
  if (!shapes) memory.set(db, (shapes = new Map()));
  const orderSql = o.terms.map((t) => `${t.sql} ${t.desc ? 'DESC' : 'ASC'}`).join(', ');
  const shape = `${o.fromSql}\u0000${o.where.join('\u0001')}\u0000${orderSql}\u0000${JSON.stringify(o.whereParams)}`;
  return db
    .transaction(() => {
      const stamp = readStamp(db);
      let mem = shapes.get(shape);
      if (mem && mem.stamp !== stamp) mem = undefined;
      let from: Checkpoint | undefined;
      for (const c of mem?.checkpoints ?? []) if (c.end <= o.skip && (!from || c.end > from.end)) from = c;
      seekCounts[from ? 'fromEnd' : 'fromStart']++;
      const parts = from ? seekParts(o.terms, from.values) : [{ sql: '', params: [] }];
      // one row more in front when rows are skipped: the row before the page, whose end is `skip`
      // (so that the same page asked again starts right at it)
      const offset = o.skip - (from?.end ?? 0);
      const before = offset > 0 ? 1 : 0;
      const rows: Array<{ k: unknown }> = [];
      let need = o.take < 0 ? -1 : o.take + before;
      let off = offset - before;
      for (let i = 0; i < parts.length; i++) {
        const part = parts[i]!;
        const where = part.sql ? [...o.where, part.sql] : o.where;
        const whereSql = where.length ? ` WHERE ${where.map((w) => `(${w})`).join(' AND ')}` : '';
        const params = [...o.whereParams, ...part.params];
        const got = db
          .prepare(`SELECT ${o.keySql} AS k ${o.fromSql}${whereSql} ORDER BY ${orderSql} LIMIT ? OFFSET ?`)
          .all(...params, need, off) as Array<{ k: unknown }>;
        rows.push(...got);
        if (i === parts.length - 1 || (need >= 0 && got.length === need)) break;
        // on to the next part: what this part held counts against the offset
        if (got.length > 0) off = 0;
        else {
          const n = (db.prepare(`SELECT COUNT(*) AS n ${o.fromSql}${whereSql}`).get(...params) as { n: number }).n;
          off = Math.max(0, off - n);
        }
        if (need >= 0) need -= got.length;
      }
      const keys = rows.slice(before).map((r) => r.k);
      const remember = (end: number, key: unknown) => {
        const row = db
          .prepare(`SELECT ${o.terms.map((t, i) => `${t.sql} AS v${i}`).join(', ')} ${o.fromSql} WHERE ${o.keySql} = ?`)
          .get(key) as Record<string, unknown> | undefined;
        if (!row) return;
        if (!mem) {
          mem = { stamp, checkpoints: [] };
          if (shapes.size >= SEEK_SHAPES) shapes.delete(shapes.keys().next().value!);
        }
        shapes.delete(shape); // most recently used last
        shapes.set(shape, mem);
        if (mem.checkpoints.some((c) => c.end === end)) return;
        if (mem.checkpoints.length >= SEEK_CHECKPOINTS) mem.checkpoints.shift();
        mem.checkpoints.push({ end, values: o.terms.map((_, i) => row[`v${i}`]) });
      };
      if (before && rows.length > 0) remember(o.skip, rows[0]!.k);
      if (keys.length > 0) remember(o.skip + keys.length, keys[keys.length - 1]);
      return keys;
    })
    .deferred();
}

function readStamp(db: Database.Database): string {
  const r = db.prepare('SELECT total_changes() AS c, (SELECT data_version FROM pragma_data_version) AS v').get() as {
    c: number;
    v: number;
  };
  return `${r.c}:${r.v}`;
}
