// The answer's columns: the select list of the requested columns (with what Contents and
// DownloadURL need) and the answer record shaped from each SQL row.
import type { ColumnType } from '../dictionary.js';
import { downloadUrl } from './download-url.js';
import type { ColumnSpec } from './column-list.js';
import type { RequestContext } from './request-context.js';
import type { Resolved, SelectBuilder } from './select-builder.js';

/** A requested column: its response key and how its value is read. */
export interface OutputColumn {
  key: string;
  res: Resolved;
  sqlAlias?: string;
  type?: ColumnType;
}

/** The select list of the output columns (resolved in their order: the first unknown column is
 * the one reported), with the extra columns DownloadURL and Contents need. */
export function selectColumns(
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

/** One answer record from one SQL row. */
export function shapeRow(
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
