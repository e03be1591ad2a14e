// The rows of a list query: every row, a first page (`take`), or a deep page (`skip`). A page reads
// its keys first and then the selected columns of those rows alone, so the rows it skips cost no
// joins, computed columns or file bytes.
import type { Deps } from '../deps.js';
import { pageKeys, type SortTerm } from '../page-seek.js';

export interface RowsQuery {
  deps: Deps;
  /** the select list of the output columns (output-columns.ts) */
  selects: string[];
  /** FROM with the joins the columns, filter and sort need (SelectBuilder.fromSql()) */
  fromSql: string;
  /** the key column, the last sort term */
  keySql: string;
  /** the conditions' SQL, each one parenthesised when joined */
  where: string[];
  /** ` WHERE ...` of the conditions, or '' */
  whereSql: string;
  /** the conditions' parameters, in order */
  params: unknown[];
  /** the sort terms, the key last (a total order) */
  terms: SortTerm[];
  /** ORDER BY of the terms */
  orderSql: string;
  skip?: number;
  take?: number;
}

export function readRows(rq: RowsQuery): Array<Record<string, unknown>> {
  const { deps, selects, fromSql, keySql, whereSql, params, orderSql } = rq;
  if (rq.skip) {
    // A deep page: its keys first, from where an earlier page of the same query ended when there
    // is one (page-seek.ts: an index seek instead of stepping over every skipped row), then the
    // selected columns of those rows alone, in the same total order.
    const keys = pageKeys({
      db: deps.db,
      fromSql,
      where: rq.where,
      whereParams: params,
      terms: rq.terms,
      keySql,
      take: rq.take ?? -1,
      skip: rq.skip,
    });
    return keys.length
      ? (deps.db
          .prepare(
            `SELECT ${selects.join(', ')} ${fromSql} WHERE ${keySql} IN (SELECT value FROM json_each(?)) ORDER BY ${orderSql}`,
          )
          .all(JSON.stringify(keys)) as Array<Record<string, unknown>>)
      : [];
  }
  if (rq.take !== undefined) {
    // A page: pick the page's keys first (filter, sort and offset over the key and the filter and
    // sort columns only, which an index can cover), then read the selected columns (joins,
    // computed columns, file bytes) of those rows alone. Same rows in the same order: the outer
    // query sorts by the same total order (the key last).
    const keys = `SELECT ${keySql} ${fromSql}${whereSql} ORDER BY ${orderSql} LIMIT ? OFFSET ?`;
    return deps.db
      .prepare(`SELECT ${selects.join(', ')} ${fromSql} WHERE ${keySql} IN (${keys}) ORDER BY ${orderSql}`)
      .all(...params, rq.take, 0) as Array<Record<string, unknown>>;
  }
  return deps.db
    .prepare(`SELECT ${selects.join(', ')} ${fromSql}${whereSql} ORDER BY ${orderSql}`)
    .all(...params) as Array<Record<string, unknown>>;
}
