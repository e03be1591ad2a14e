// A read of one record by key (GET /api/{domain}/{id}, GET /api/File/{id}), compiled once per
// domain, columns and resolveAssociationNames.
import type { Deps } from '../deps.js';
import { type DomainDef, q } from '../dictionary.js';
import type { SqlFragment } from '../filter-parser.js';
import { type ColumnSpec, defaultColumns } from './column-list.js';
import { isDownloadRestricted, requireDownloadUrls } from './download-url.js';
import { selectColumns, shapeRow } from './output-columns.js';
import type { RequestContext } from './request-context.js';
import { requireReachable, SelectBuilder } from './select-builder.js';

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
  // other domains the columns read through associations: the user needs View on each
  const reached = b.reached();
  return {
    wantsDownload,
    run(ctx, id) {
      if (reached.length > 0) requireReachable(ctx.user, reached);
      const r = statement.get(id, ...params) as Record<string, unknown> | undefined;
      if (!r) return undefined;
      if (wantsDownload) requireDownloadUrls(ctx.deps);
      return shapeRow(ctx, out, r, wantsDownload && isDownloadRestricted(ctx.user));
    },
  };
}
