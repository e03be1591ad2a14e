// The list query behind every endpoint with a `columns` parameter (the domain query, File/Query,
// the attached-files listing, Link/Query): columns, filters, sort, paging and the total count.
import { type DomainDef, q } from '../dictionary.js';
import { ApiError } from '../errors.js';
import { parseFilter, parseLinq, type SqlFragment } from '../filter-parser.js';
import { type ColumnSpec, defaultColumns } from './column-list.js';
import { isDownloadRestricted, requireDownloadUrls } from './download-url.js';
import { selectColumns, shapeRow } from './output-columns.js';
import { readRows } from './paging.js';
import type { RequestContext } from './request-context.js';
import { requireReachable, SelectBuilder } from './select-builder.js';
import { parseSortList } from './sort-list.js';

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

  const terms = parseSortList(b, opts.sort);
  terms.push({ sql: `t.${q(def.key)}`, desc: false });
  const order = terms.map((t) => `${t.sql} ${t.desc ? 'DESC' : 'ASC'}`);

  requireReachable(ctx.user, b.reached());
  const whereSql = where.length ? ' WHERE ' + where.map((w) => `(${w.sql})`).join(' AND ') : '';
  const params = where.flatMap((w) => w.params);
  const raw = readRows({
    deps,
    selects,
    fromSql: b.fromSql(),
    keySql: `t.${q(def.key)}`,
    where: where.map((w) => w.sql),
    whereSql,
    params,
    terms,
    orderSql: order.join(', '),
    skip: opts.skip,
    take: opts.take,
  });

  const restricted = wantsDownload && isDownloadRestricted(ctx.user);
  const rows = raw.map((r) => shapeRow(ctx, out, r, restricted));

  let total: number | undefined;
  if (opts.includeTotalCount) {
    const row = deps.db.prepare(`SELECT COUNT(*) AS n ${b.fromSql()}${whereSql}`).get(...params) as { n: number };
    total = row.n;
  }
  return { rows, total };
}
