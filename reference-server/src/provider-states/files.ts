// Provider states of the files area: 'a file', 'a record with files'.
import { fileExtension } from '../db.js';
import { ApiError } from '../errors.js';
import { insertFile, insertLink } from '../areas/files.js';
import type { StateDef } from './registry.js';
import { createRecord, createTwins, domainParam, marker, storedFields } from './records.js';

function decode(b64: unknown, name: string): Buffer {
  if (typeof b64 !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64.replace(/\s/g, ''))) {
    throw new ApiError(400, 'MalformedRequest', `'${name}' must be base64.`);
  }
  return Buffer.from(b64, 'base64');
}

/** The linked file's parent domain: Claim, or the param `parentDomain` (protocol 1.2.0), `Custom.` ones included. */
function parentDomainParam(ctx: Parameters<StateDef['setup']>[1], raw: unknown) {
  if (raw !== undefined && (typeof raw !== 'string' || raw === ''))
    throw new ApiError(400, 'MalformedRequest', "'parentDomain' must be a domain name.");
  return domainParam(ctx, raw, 'Claim');
}

const aFile: StateDef = {
  setup(params, ctx) {
    const { deps } = ctx;
    const kind = params.kind ?? 'internal';
    if (kind !== 'internal' && kind !== 'externalDirectURL' && kind !== 'externalRepository') {
      throw new ApiError(400, 'MalformedRequest', "'kind' must be internal, externalDirectURL or externalRepository.");
    }
    if (typeof params.fileName !== 'string' || params.fileName === '')
      throw new ApiError(400, 'MalformedRequest', "'fileName' is required.");
    const contents = decode(params.contentsBase64 ?? '', 'contentsBase64');
    const mark = marker(ctx);
    const fileId = insertFile(deps, {
      fileName: params.fileName,
      description: typeof params.description === 'string' ? params.description : undefined,
      contents,
      sourceType: typeof params.sourceType === 'string' ? params.sourceType : 'U',
      externalDirectURL:
        kind === 'externalDirectURL'
          ? `https://files.example.com/${mark}/${encodeURIComponent(params.fileName)}`
          : null,
      externalFileRepositoryId: kind === 'externalRepository' ? 1 : null,
    });
    ctx.track('File', fileId);
    if (params.touched === true) {
      // Modified a minute and downloaded two minutes after the upload, by the uploader.
      const at = (ms: number) => new Date(deps.clock().getTime() + ms).toISOString().slice(0, 23);
      deps.db
        .prepare(
          'UPDATE "File" SET ModifiedDate = ?, ModifiedUserID = 1, DownloadedDate = ?, DownloadedUserID = 1 WHERE FileID = ?',
        )
        .run(at(60_000), at(120_000), fileId);
    }
    const values: Record<string, unknown> = {
      fileId,
      fileName: params.fileName,
      mimeType: fileExtension(params.fileName),
      fileSize: contents.byteLength,
    };
    if (params.touched === true) values.touched = true; // protocol 1.1.0: confirms the param
    if (params.linked === true) {
      const parent = parentDomainParam(ctx, params.parentDomain);
      const text = storedFields(parent).find((f) => f.type === 'text');
      const parentId = createRecord(ctx, parent, text ? { [text.name]: `FILE-PARENT-${mark}` } : {});
      ctx.track('links', insertLink(deps, parent.id, parentId, 4, fileId));
      values.parentDomain = parent.name;
      values.parentId = parentId;
    }
    return values;
  },
};

const aRecordWithFiles: StateDef = {
  setup(params, ctx) {
    const { deps } = ctx;
    const def = domainParam(ctx, params.domain, 'Claim');
    const mark = marker(ctx);
    const textOf = (d: typeof def) => {
      const text = storedFields(d).find((f) => f.type === 'text');
      return text ? { [text.name]: `WITH-FILES-${mark}` } : {};
    };
    const twin = params.twinDomain === undefined ? undefined : domainParam(ctx, params.twinDomain, 'Claim');
    const id = twin ? createTwins(ctx, def, twin, textOf(def), textOf(twin)) : createRecord(ctx, def, textOf(def));
    const attach = (d: typeof def, files: unknown, name: string): number[] => {
      if (!Array.isArray(files))
        throw new ApiError(400, 'MalformedRequest', `'${name}' must be a list of {fileName, contentsBase64}.`);
      const fileIds: number[] = [];
      for (const [i, f] of (files as unknown[]).entries()) {
        const file = f as { fileName?: unknown; contentsBase64?: unknown };
        if (!file || typeof file.fileName !== 'string')
          throw new ApiError(400, 'MalformedRequest', `${name}[${i}].fileName is required.`);
        const fileId = insertFile(deps, {
          fileName: file.fileName,
          contents: decode(file.contentsBase64 ?? '', `${name}[${i}].contentsBase64`),
        });
        ctx.track('File', fileId);
        ctx.track('links', insertLink(deps, d.id, id, 4, fileId));
        fileIds.push(fileId);
      }
      return fileIds;
    };
    const values: Record<string, unknown> = { domain: def.name, id, fileIds: attach(def, params.files, 'files') };
    if (twin) {
      values.twinDomain = twin.name;
      values.twinFileIds = attach(twin, params.twinFiles ?? [], 'twinFiles');
    }
    return values;
  },
};

/** The states of this file, registered by provider-states/index.ts. */
export const FILE_STATES: Record<string, StateDef> = {
  'a file': aFile,
  'a record with files': aRecordWithFiles,
};
