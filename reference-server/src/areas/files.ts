// Files (spec 2.2, 4.3): GET /api/{domain}/{id}/Files; GET /api/File/Query and GET /api/File/{id}
// are the generic query and record routes on the File domain (the column language in columns/
// computes MimeType, IsUnlinked, Contents and DownloadURL).
import type { Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { q } from '../dictionary.js';
import { ApiError } from '../errors.js';
import { requirePermission } from '../auth.js';
import { parseId, validateQuery } from '../validation.js';
import { listQuery } from './query.js';
import { requireDomain } from './records.js';

const FILE_DOMAIN_ID = 4;

// GET /api/File/Query and GET /api/File/{id} are the generic routes on domain File:
// REQ: FILE-022 FILE-023 FILE-024 — the file query is the domain query on File: offset, sort, suppression, total count.
// REQ: FILE-021 — metadata only: Contents is not among the default columns (columns/column-list.ts).
// REQ: FILE-008
// REQ: FILE-009
export function register(app: Hono<AppEnv>, deps: Deps): void {
  // REQ: FILE-007
  // REQ: FILE-011
  // REQ: FILE-018
  app.get('/api/:domain/:id/Files', (c) => {
    validateQuery(c, 'get', '/api/{domain}/{id}/Files');
    const parent = requireDomain(deps, c.req.param('domain'));
    const user = c.get('user');
    requirePermission(user, parent.name, 'View');
    requirePermission(user, 'File', 'View');
    const id = parseId(c.req.param('id'));
    const exists = deps.db.prepare(`SELECT 1 FROM ${q(parent.table)} WHERE ${q(parent.key)} = ?`).get(id);
    // REQ: REC-003
    if (!exists) throw new ApiError(404, 'RecordNotFound', `${parent.name} with ID ${id} was not found.`);
    const fileDef = deps.dict.get('File')!;
    return c.json(
      listQuery(c, deps, fileDef, {
        filters: false,
        where: [
          {
            sql: `t."FileID" IN (SELECT ChildID FROM links WHERE ChildDomainID = ? AND ParentDomainID = ? AND ParentID = ?)`,
            params: [FILE_DOMAIN_ID, parent.id, id],
          },
        ],
      }),
    );
  });
}

export interface NewFile {
  fileName: string;
  description?: string;
  contents: Uint8Array;
  sourceType?: string;
  entryUserId?: number;
  externalDirectURL?: string | null;
  externalFileRepositoryId?: number | null;
  documentStatusId?: number | null;
}

// SourceType U for user uploads; user IDs and access mode never null.
// REQ: FILE-005
// REQ: FILE-019
/** Store a file: metadata in "File", bytes in file_contents (loaded only when Contents is asked for). */
export function insertFile(deps: Deps, f: NewFile): number {
  const now = deps.clock().toISOString().slice(0, 23);
  return deps.db.transaction(() => {
    const id = Number(
      deps.db
        .prepare(
          `INSERT INTO "File" (FileName, Description, FileSize, EntryDate, EntryUserID, SourceType, UnlinkedAccessMode,
             DocumentStatusID, ExternalFileRepositoryID, ExternalDirectURL)
           VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
        )
        .run(
          f.fileName,
          f.description ?? '',
          f.contents.byteLength,
          now,
          f.entryUserId ?? 1,
          f.sourceType ?? 'U',
          f.documentStatusId ?? null,
          f.externalFileRepositoryId ?? null,
          f.externalDirectURL ?? null,
        ).lastInsertRowid,
    );
    deps.db.prepare('INSERT INTO file_contents (FileID, Contents) VALUES (?, ?)').run(id, Buffer.from(f.contents));
    return id;
  })();
}

/** Link a child record to a parent (no-op when the link exists); returns the LinkID. */
export function insertLink(
  deps: Deps,
  parentDomainId: number,
  parentId: number,
  childDomainId: number,
  childId: number,
  contactTypeId: number | null = null,
): number {
  const now = deps.clock().toISOString().slice(0, 23);
  const existing = deps.db
    .prepare('SELECT LinkID FROM links WHERE ParentDomainID = ? AND ParentID = ? AND ChildDomainID = ? AND ChildID = ?')
    .get(parentDomainId, parentId, childDomainId, childId) as { LinkID: number } | undefined;
  if (existing) return existing.LinkID;
  return Number(
    deps.db
      .prepare(
        'INSERT INTO links (ParentDomainID, ParentID, ChildDomainID, ChildID, ContactTypeID, EntryDate) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(parentDomainId, parentId, childDomainId, childId, contactTypeId, now).lastInsertRowid,
  );
}
