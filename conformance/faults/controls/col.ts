// Controls of the column language (COL): the default columns.
import type { Control } from '../fault.js';
import { bodyJson, isOk, parseColumns, withResponseJson } from '../exchange.js';
import { only } from './util.js';

export const COL_CONTROLS: Control[] = [
  {
    name: 'default-columns-wider',
    area: 'COL',
    description: 'Without `columns`, every record also carries a `RowVersion` key (an in-use column of the vendor).',
    allowedBy:
      'Section 4.1: "When it is omitted, all in-use columns are returned." (which columns are in use is not listed)',
    select: ['COL-', 'QRY-', 'REC-', 'FILE-'],
    rewrite: only(
      ['getRecord', 'getFile', 'queryRecords', 'queryFiles', 'listAttachedFiles'],
      async (req, _ctx, next) => {
        const res = await next(req);
        const isRead = req.method === 'GET' && /^\/api\/[^/]+\/([^/]+|[^/]+\/Files)$/.test(req.path);
        if (!isRead || !isOk(res) || parseColumns(req.query.get('columns')) || req.path.startsWith('/api/Link/'))
          return res;
        const body = bodyJson(res);
        const recs: any[] = body?.Record ? [body.Record] : Array.isArray(body?.List) ? body.List : [];
        if (recs.length === 0) return res;
        recs.forEach((r, i) => r && typeof r === 'object' && (r.RowVersion = `v${i + 1}`));
        return withResponseJson(res, body);
      },
    ),
  },
];
