// Controls of files (FILE): file columns whose type or format the specification leaves open, the
// attached-files listing, and the body of a server error.
import type { Control } from '../fault.js';
import { bodyJson, cloneRequest, isOk, makeResponse, type ProxyResponse, withResponseJson } from '../exchange.js';
import { FILE_READS, operationOf } from '../operations.js';
import { fileColumn, only } from './util.js';

const TYPES_OPEN = 'Section 2.2: "Types of file columns other than those stated: not shown."';

const SERVER_ERROR_IN_WORDS =
  'Section 4.3: "requesting `DownloadURL` causes a server error (object reference not set)" (a server error described in words: its body is not shown)';

/** The server errors of the file area (DownloadURL with enhanced session security off), with another body. */
function serverErrorBody(body: (res: ProxyResponse) => ProxyResponse): Control['rewrite'] {
  return async (req, _ctx, next) => {
    const res = await next(req);
    return res.status >= 500 && req.path.startsWith('/api/') ? body(res) : res;
  };
}

export const FILE_CONTROLS: Control[] = [
  {
    name: 'file-user-ids-as-strings',
    area: 'FILE',
    description: 'EntryUserID, ModifiedUserID and DownloadedUserID are strings (`"user-17"`) instead of integers.',
    allowedBy: `Section 2.2: "EntryUserID | identifier of a user" (no type stated). ${TYPES_OPEN}`,
    markers: [
      'components/schemas/FileRecord/properties/EntryUserID',
      'components/schemas/FileRecord/properties/ModifiedUserID',
      'components/schemas/FileRecord/properties/DownloadedUserID',
    ],
    select: ['FILE-', 'AUTH-003'],
    rewrite: fileColumn(['EntryUserID', 'ModifiedUserID', 'DownloadedUserID'], (v) => `user-${String(v)}`),
  },
  {
    name: 'file-dates-with-zone',
    area: 'FILE',
    description: 'ModifiedDate and DownloadedDate carry a zone designator (`2026-11-21T05:40:12.345Z`).',
    allowedBy:
      'Section 2.2: "ModifiedDate | timestamp" and "DownloadedDate | timestamp" (only EntryDate is stated without a zone designator)',
    markers: [
      'components/schemas/FileRecord/properties/ModifiedDate',
      'components/schemas/FileRecord/properties/DownloadedDate',
    ],
    select: ['FILE-'],
    rewrite: fileColumn(['ModifiedDate', 'DownloadedDate'], (v) =>
      typeof v === 'string' && !/Z$/.test(v) ? `${v}Z` : v,
    ),
  },
  {
    name: 'file-dates-seven-fraction-digits',
    area: 'FILE',
    description: 'EntryDate has seven fractional digits (`2026-11-21T05:40:12.3450000`), as .NET writes it.',
    allowedBy:
      'Section 2.2: "EntryDate | timestamp, ISO 8601 with fractional seconds and no zone designator" (the number of digits is not shown)',
    select: ['FILE-', 'QRY-008'],
    rewrite: fileColumn(['EntryDate'], (v) => (typeof v === 'string' && /\.\d{3}$/.test(v) ? `${v}0000` : v)),
  },
  {
    name: 'file-entry-date-short-fraction',
    area: 'FILE',
    description:
      "EntryDate's fraction is printed without trailing zeros (`.500` as `.5`, `.160` as `.16`, `.000` as `.0`): one or two digits where that is the exact value.",
    allowedBy:
      'Section 2.2: "EntryDate | timestamp, ISO 8601 with fractional seconds and no zone designator" (the number of digits is not shown)',
    select: ['FILE-', 'QRY-008'],
    rewrite: fileColumn(['EntryDate'], (v) =>
      typeof v === 'string'
        ? v.replace(/\.(\d)(\d)(\d)$/, (all, a, b, c) => (c !== '0' ? all : b !== '0' ? `.${a}${b}` : `.${a}`))
        : v,
    ),
  },
  {
    name: 'document-status-as-code',
    area: 'FILE',
    description: 'DocumentStatusID is a string code (`"DS3"`) instead of an integer.',
    allowedBy: `Section 2.2: "DocumentStatusID | identifier" (no type stated). ${TYPES_OPEN}`,
    markers: ['components/schemas/FileRecord/properties/DocumentStatusID'],
    select: ['FILE-'],
    rewrite: fileColumn(['DocumentStatusID'], (v) => `DS${String(v)}`),
  },
  {
    name: 'unlinked-access-mode-as-name',
    area: 'FILE',
    description: 'UnlinkedAccessMode is a name (`"Mode0"`) instead of an integer.',
    allowedBy: `Section 2.2: "UnlinkedAccessMode | value" (no type stated). ${TYPES_OPEN}`,
    markers: ['components/schemas/FileRecord/properties/UnlinkedAccessMode'],
    select: ['FILE-'],
    rewrite: fileColumn(['UnlinkedAccessMode'], (v) => `Mode${String(v)}`),
  },
  {
    name: 'download-url-other-shape',
    area: 'FILE',
    description:
      'A non-empty DownloadURL is `Documents/Download/<id>?s=<opaque>` instead of `Download.aspx?FileID=...`.',
    allowedBy:
      'Section 4.3 rule 2: "`DownloadURL` is a web-application URL, relative to the base application URL." (its form is not shown)',
    select: ['FILE-'],
    rewrite: fileColumn(['DownloadURL'], (v) => {
      if (typeof v !== 'string' || v === '') return v;
      const id = /FileID=(\d+)/i.exec(v)?.[1] ?? '0';
      return `Documents/Download/${id}?s=${Buffer.from(v).toString('base64url').slice(0, 16)}`;
    }),
  },
  {
    name: 'external-columns-unknown',
    area: 'FILE',
    description:
      'The reference-only columns ExternalFileRepositoryID and ExternalDirectURL do not exist (400 UnknownColumn).',
    allowedBy:
      'Section 2.2: "External files are files that have an ExternalFileRepositoryID or an ExternalDirectURL." (neither is listed among the columns that can be requested)',
    markers: [
      'components/schemas/FileRecord/properties/ExternalFileRepositoryID',
      'components/schemas/FileRecord/properties/ExternalDirectURL',
    ],
    select: ['FILE-'],
    rewrite: only(
      ['getRecord', 'getFile', 'queryRecords', 'queryFiles', 'listAttachedFiles'],
      async (req, _ctx, next) => {
        const cols = req.query.get('columns') ?? '';
        const route = operationOf(req);
        const isFileRead = (FILE_READS as readonly string[]).includes(route.op);
        if (isFileRead && /\bExternal(FileRepositoryID|DirectURL)\b/.test(cols))
          return {
            status: 400,
            headers: { 'content-type': 'application/problem+json' },
            body: Buffer.from(
              JSON.stringify({
                type: 'about:blank',
                title: 'Bad Request',
                status: 400,
                detail: 'Unknown column.',
                code: 'UnknownColumn',
              }),
            ),
          };
        return next(req);
      },
    ),
  },
  {
    name: 'attached-files-without-sort-skip',
    area: 'FILE',
    description:
      'The attached-files listing ignores `sort` and `skip` (it has only the documented `columns` and `take`).',
    allowedBy: 'Section 4.3: "Other parameters of the attached-files listing: not shown."',
    markers: ['components/parameters/FilesSort', 'components/parameters/FilesSkip'],
    select: ['FILE-', 'COL-', 'AUTH-'],
    rewrite: only(['listAttachedFiles'], async (req, _ctx, next) => {
      if (operationOf(req).op !== 'listAttachedFiles') return next(req);
      const r = cloneRequest(req);
      r.query.delete('sort');
      r.query.delete('skip');
      return next(r);
    }),
  },
  {
    name: 'attached-files-newest-first',
    area: 'FILE',
    description:
      'The attached-files listing lists the newest file first (the whole list, reversed) instead of the oldest.',
    allowedBy:
      'Section 4.3: "GET /api/{domain}/{id}/Files | Files attached to the parent record" (no order is documented)',
    select: ['FILE-', 'LINK-', 'AUTH-'],
    rewrite: only(['listAttachedFiles'], async (req, _ctx, next) => {
      const rawTake = req.query.get('take') ?? '30';
      const plain = !req.query.has('sort') && !req.query.has('skip') && /^\d+$/.test(rawTake);
      const take = Number(rawTake);
      if (operationOf(req).op !== 'listAttachedFiles' || !plain || take < 1 || take > 100) return next(req);
      // The whole list is read (one page of 100), reversed and cut to `take`: one consistent order.
      const r = cloneRequest(req);
      r.query.set('take', '100');
      const res = await next(r);
      const body = bodyJson(res);
      if (!isOk(res) || !Array.isArray(body?.List)) return res;
      body.List = body.List.reverse().slice(0, take);
      return withResponseJson(res, body);
    }),
  },
  {
    name: 'server-error-body-object',
    area: 'FILE',
    description:
      'The server error of a DownloadURL request with enhanced session security off carries a JSON object instead of a JSON string.',
    allowedBy: SERVER_ERROR_IN_WORDS,
    select: ['FILE-017'],
    rewrite: serverErrorBody((res) =>
      makeResponse(res.status, { error: 'NullReferenceException', message: 'Object reference not set.' }),
    ),
  },
  {
    name: 'server-error-body-empty',
    area: 'FILE',
    description: 'The server error of a DownloadURL request with enhanced session security off has an empty body.',
    allowedBy: SERVER_ERROR_IN_WORDS,
    select: ['FILE-017'],
    rewrite: serverErrorBody((res) => makeResponse(res.status)),
  },
];
