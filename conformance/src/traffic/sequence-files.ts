// Sequence rules of files (spec 2.2, 5): Contents against the size another answer gave and the
// token it needs, a provider state's files and a parent's listing, a linked file read back.
import { requestedColumns } from '../judge/col.js';
import {
  FILE_LISTING_JUDGE,
  FILE_RECORD_JUDGE,
  type FileOperation,
  judgeAttachedListing,
  judgeFileRecord,
} from '../judge/file.js';
import { after, isObject, recordsOf, type TrafficExchange } from './exchange.js';
import { intParam, isInt, judgedSequence, type SequenceRule } from './rule.js';
import { op } from './sequence-records.js';

/** AUTH-003: Contents is returned to a caller authenticated with a token. */
export const contentsWithToken: SequenceRule = {
  name: 'contents_with_token',
  requirements: ['AUTH-003'],
  description:
    "a file read asking for Contents with the API token (the bindings' token header) answers Contents; refused with 401 or 403 while the same token reads the same file without Contents, it fails. A request without the token header (a sanitized export) is not judged",
  judge(xs, ctx, emit) {
    const header = ctx.bindings.tokenHeader.toLowerCase();
    const tokenOf = (x: TrafficExchange) => x.requestHeaders[header];
    const asks = (x: TrafficExchange) =>
      (requestedColumns(x.query.get('columns')) ?? []).some((c) => c.field === 'Contents');
    const reads = xs.filter((x) => (op(x) === 'getFile' || op(x) === 'listAttachedFiles') && !!tokenOf(x));
    const plainOk = new Set(
      reads.filter((x) => x.status === 200 && !asks(x)).map((x) => `${x.path}\u0000${tokenOf(x)}`),
    );
    for (const x of reads) {
      if (!asks(x)) continue;
      if (x.status === 200) {
        const rows = recordsOf(x);
        if (rows.length && rows.every((r) => typeof r.Contents === 'string'))
          emit(['AUTH-003'], true, `Contents answered to a token-authenticated caller (${rows.length} file(s))`, [x]);
      } else if ((x.status === 401 || x.status === 403) && plainOk.has(`${x.path}\u0000${tokenOf(x)}`)) {
        const plain = reads.find(
          (y) => y.status === 200 && !asks(y) && y.path === x.path && tokenOf(y) === tokenOf(x),
        )!;
        emit(
          ['AUTH-003'],
          false,
          `Contents refused with HTTP ${x.status} to the token that reads the same file without Contents`,
          [plain, x],
        );
      }
    }
  },
};

/** FILE-010, FILE-002: Contents decodes to the FileSize another answer gave for the same file (judge/file.ts). */
export const contentsAgainstFileSize = judgedSequence([FILE_RECORD_JUDGE], {
  name: 'contents_against_file_size',
  requirements: ['FILE-010', 'FILE-002'],
  description:
    "a file's Contents is base64 of exactly the FileSize any answer gave for that FileID (the single read of Contents and the query of FileSize may be separate calls)",
  *findings(xs) {
    const files = xs.filter((x) => FILE_READS.includes(op(x)) && x.status === 200);
    const sizes = new Map<unknown, { size: number; x: TrafficExchange }>();
    for (const x of files)
      for (const r of recordsOf(x))
        if (r.FileID !== undefined && isInt(r.FileSize)) sizes.set(r.FileID, { size: r.FileSize, x });
    for (const x of files) {
      const id = op(x) === 'getFile' ? Number(x.operation!.pathParams.id) : undefined;
      for (const r of recordsOf(x)) {
        const FileID = r.FileID ?? id;
        const known = sizes.get(FileID);
        if (typeof r.Contents !== 'string' || !known || known.x === x) continue;
        const read = { FileID, Contents: r.Contents };
        yield [judgeFileRecord(op(x) as FileOperation, read, { size: known.size }), [known.x, x]];
      }
    }
  },
});
const FILE_READS = ['getFile', 'queryFiles', 'listAttachedFiles'];

/** Link writes whose child is a File, in recorded order (they change which files are linked). */
const fileLinkWrites = (xs: TrafficExchange[]) =>
  xs.filter(
    (x) =>
      (op(x) === 'upsertLink' || op(x) === 'removeLink') &&
      (!isObject(x.requestJson) || x.requestJson.ChildDomain === undefined || x.requestJson.ChildDomain === 'File'),
  );

/** The bare (not aliased) key of `field` in the answer's rows, or undefined when it is not requested as itself. */
function bareKey(x: TrafficExchange, field: string): string | undefined {
  const cols = requestedColumns(x.query.get('columns'));
  if (!cols) return field;
  if (cols.some((c) => c.key === field && (c.alias || c.field !== field))) return undefined;
  return cols.some((c) => c.field === field && !c.alias) ? field : undefined;
}

/**
 * FILE-002, FILE-006: a file a provider state created answers the FileSize of the bytes it was
 * given, and IsUnlinked false when the state linked it, true when it left it orphaned (until a
 * link write on a file): judge/file.ts given what the state set up.
 */
export const stateFilesAsSetUp = judgedSequence([FILE_RECORD_JUDGE], {
  name: 'state_files_as_set_up',
  requirements: ['FILE-002', 'FILE-006'],
  description:
    'a file a provider state created ("a file", "a record with files") answers, wherever a row carries its FileID, the FileSize of its decoded bytes, and IsUnlinked false when linked, true when orphaned (not judged after a link write on a file)',
  *findings(xs, ctx) {
    if (!ctx.states?.files.length) return;
    const links = fileLinkWrites(xs);
    const byId = new Map<number, typeof ctx.states.files>();
    for (const f of ctx.states.files) byId.set(f.fileId, [...(byId.get(f.fileId) ?? []), f]);
    for (const x of xs) {
      const o = op(x) as FileOperation;
      if (!FILE_READS.includes(o) || x.status !== 200) continue;
      const idKey = bareKey(x, 'FileID');
      if (!idKey) continue;
      const sizeKey = bareKey(x, 'FileSize');
      const unlinkedKey = bareKey(x, 'IsUnlinked');
      for (const row of recordsOf(x)) {
        const fid = row[idKey];
        if (!isInt(fid)) continue;
        const hits = (byId.get(fid) ?? []).filter((f) => x.startMs >= f.from && x.endMs <= f.to);
        if (hits.length !== 1) continue;
        const f = hits[0];
        // what the row shows of the file, under its own names; IsUnlinked only while no link write may have changed it
        const linked = links.some((l) => l.startMs < x.endMs && l.endMs > f.from) ? undefined : f.linked;
        const read = {
          FileID: fid,
          ...(sizeKey && sizeKey in row && { FileSize: row[sizeKey] }),
          ...(unlinkedKey && unlinkedKey in row && linked !== undefined && { IsUnlinked: row[unlinkedKey] }),
        };
        yield [judgeFileRecord(o, read, { size: f.size, linked }), [x]];
      }
    }
  },
});

/**
 * FILE-007, LINK-021: the attached-files listing of a parent a provider state gave files lists
 * exactly those files; none of its twin's (the same ID in another domain): judge/file.ts.
 */
export const stateParentListsItsFiles = judgedSequence([FILE_LISTING_JUDGE], {
  name: 'state_parent_lists_its_files',
  requirements: ['FILE-007', 'LINK-021'],
  description:
    'GET /api/{domain}/{id}/Files of a parent a provider state ("a record with files") created lists exactly the state\'s fileIds, none of its twin\'s (LINK-021); judged with FileID requested, no start offset, take at or above the count (or no take and fewer than 30 files), and no link write on a file since the setup',
  *findings(xs, ctx) {
    if (!ctx.states?.parents.length) return;
    const links = fileLinkWrites(xs);
    const q = ctx.bindings.query;
    for (const x of xs) {
      if (op(x) !== 'listAttachedFiles' || x.status !== 200) continue;
      const rows = (x.json as { List?: unknown } | undefined)?.List;
      if (!Array.isArray(rows)) continue;
      const { domain, id } = x.operation!.pathParams;
      const hits = ctx.states.parents.filter(
        (p) => p.domain === domain && String(p.id) === id && x.startMs >= p.from && x.endMs <= p.to,
      );
      if (hits.length !== 1) continue;
      const p = hits[0];
      if (links.some((l) => l.startMs < x.endMs && l.endMs > p.from)) continue;
      if ((intParam(x.query, q.skip) ?? 0) !== 0 || (x.query.has(q.skip) && intParam(x.query, q.skip) === undefined))
        continue;
      const take = x.query.has('take') ? intParam(x.query, 'take') : undefined;
      if (x.query.has('take') ? take === undefined || Math.min(take, 100) < p.fileIds.length : p.fileIds.length >= 30)
        continue;
      const idKey = bareKey(x, 'FileID');
      if (!idKey) continue;
      const got = rows.map((r) => (isObject(r) ? r[idKey] : undefined));
      if (got.every(isInt)) yield [judgeAttachedListing(got, p, `${domain} ${id} (${p.setup.source})`), [x]];
    }
  },
});

/**
 * FILE-006: after a successful Link/Upsert with a File child, that file has a parent link, so a
 * later read of it answers IsUnlinked false (until a link removal that may name it): judge/file.ts
 * given that the file is linked.
 */
export const linkedFileIsNotUnlinked = judgedSequence([FILE_RECORD_JUDGE], {
  name: 'linked_file_is_not_unlinked',
  requirements: ['FILE-006'],
  description:
    'after a successful Link/Upsert whose child is File F (by its primary key), a later read of F (GET /api/File/{id}, a file query or listing row with FileID F) answers IsUnlinked false; not judged after a Link/Remove that may name F',
  *findings(xs) {
    const removals = xs.filter(
      (x) => op(x) === 'removeLink' && (!isObject(x.requestJson) || x.requestJson.ChildDomain !== 'Contact'),
    );
    const ups = xs.filter(
      (x) =>
        op(x) === 'upsertLink' &&
        x.status === 200 &&
        (x.json as { IsSuccessful?: unknown } | undefined)?.IsSuccessful === true &&
        isObject(x.requestJson) &&
        x.requestJson.ChildDomain === 'File' &&
        isInt(x.requestJson.ChildRecordID),
    );
    if (!ups.length) return;
    for (const x of xs) {
      const o = op(x) as FileOperation;
      if (!FILE_READS.includes(o) || x.status !== 200) continue;
      const unlinkedKey = bareKey(x, 'IsUnlinked');
      if (!unlinkedKey) continue;
      const idKey = bareKey(x, 'FileID');
      for (const row of recordsOf(x)) {
        const fid = o === 'getFile' ? Number(x.operation!.pathParams.id) : idKey ? row[idKey] : undefined;
        if (!isInt(fid) || !(unlinkedKey in row)) continue;
        const up = ups
          .filter((u) => (u.requestJson as { ChildRecordID: number }).ChildRecordID === fid && after(u, x))
          .pop();
        if (!up) continue;
        const removed = removals.some(
          (r) =>
            r.endMs > up.startMs &&
            r.startMs < x.endMs &&
            (!isObject(r.requestJson) ||
              r.requestJson.ChildRecordID === undefined ||
              r.requestJson.ChildRecordID === fid),
        );
        if (!removed)
          yield [judgeFileRecord(o, { FileID: fid, IsUnlinked: row[unlinkedKey] }, { linked: true }), [up, x]];
      }
    }
  },
});
