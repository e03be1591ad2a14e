// Per-exchange rules of files, links and domains (spec 2.1, 2.2, 4.3, 4.4).
import { CORE_DOMAIN_IDS as SPEC_CORE_DOMAIN_IDS } from '../../../spec/generated/facts.js';
import { domainListOf } from '../model/not-shown-shapes.js';
import { isObject, recordsOf, type TrafficExchange } from './exchange.js';
import { isInt, show, type NotJudgeable, type ExchangeRule } from './rule.js';

const op = (x: TrafficExchange) => x.operation?.operationId ?? '';
const FILE_OPS = new Set(['listAttachedFiles', 'queryFiles', 'getFile']);
const fileRecords = (x: TrafficExchange) => (FILE_OPS.has(op(x)) && x.status === 200 ? recordsOf(x) : []);

/** The fixed core DomainIDs (section 2.1). */
export const CORE_DOMAIN_IDS: ReadonlyMap<string, number> = new Map(Object.entries(SPEC_CORE_DOMAIN_IDS));

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** FILE-010, FILE-011, FILE-002: Contents is base64 of exactly FileSize bytes (AUTH-003 is contents_with_token's). */
const contentsLength: ExchangeRule = {
  name: 'contents_base64_of_file_size',
  requirements: ['FILE-010', 'FILE-011', 'FILE-002'],
  description:
    'Contents is a base64 string (whatever else the record holds); a file record with Contents and FileSize holds Contents as base64 of exactly FileSize bytes',
  judge(x, _ctx, emit) {
    const listing = op(x) === 'listAttachedFiles' ? ['FILE-011'] : [];
    const reqs = ['FILE-010', 'FILE-002', ...listing];
    for (const r of fileRecords(x)) {
      if (typeof r.Contents !== 'string') continue;
      const c = r.Contents.replace(/\s+/g, '');
      // not base64 at all: the bytes' encoding is wrong, whatever their size (FILE-002 is not decided)
      if (!BASE64.test(c))
        return emit(
          ['FILE-010', ...listing],
          false,
          `Contents of file ${show(r.FileID)} is not base64: ${show(r.Contents.slice(0, 40))}`,
        );
      if (!isInt(r.FileSize)) continue;
      const n = Buffer.from(c, 'base64').length;
      if (n !== r.FileSize)
        return emit(reqs, false, `Contents of file ${show(r.FileID)} decodes to ${n} bytes, FileSize is ${r.FileSize}`);
      emit(reqs, true, `Contents of ${n} bytes = FileSize`);
    }
  },
};

/** FILE-003: MimeType is the file name's extension, with its dot. */
const mimeTypeExtension: ExchangeRule = {
  name: 'mime_type_is_extension',
  requirements: ['FILE-003'],
  description: 'MimeType is the extension of FileName, beginning with a dot (compared without case)',
  judge(x, _ctx, emit) {
    for (const r of fileRecords(x)) {
      if (typeof r.MimeType !== 'string' || typeof r.FileName !== 'string') continue;
      const m = /(\.[^./\\]+)$/.exec(r.FileName);
      if (!m) continue;
      const good = r.MimeType.toLowerCase() === m[1].toLowerCase();
      emit(['FILE-003'], good, `FileName ${show(r.FileName)}, MimeType ${show(r.MimeType)}`);
      if (!good) return;
    }
  },
};

const ENTRY_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+$/;

/** FILE-004: EntryDate is ISO 8601 with fractional seconds and no zone designator. */
const entryDateFormat: ExchangeRule = {
  name: 'entry_date_format',
  requirements: ['FILE-004'],
  description: 'EntryDate is an ISO 8601 timestamp with fractional seconds and no zone designator',
  judge(x, _ctx, emit) {
    for (const r of fileRecords(x)) {
      if (typeof r.EntryDate !== 'string') continue;
      const good = ENTRY_DATE.test(r.EntryDate);
      emit(['FILE-004'], good, `EntryDate ${show(r.EntryDate)}`);
      if (!good) return;
    }
  },
};

/** FILE-025: ModifiedDate and DownloadedDate, once set, are ISO 8601 date-time strings. */
const fileTimestamps: ExchangeRule = {
  name: 'file_timestamps',
  requirements: ['FILE-025'],
  description: 'ModifiedDate and DownloadedDate are null or a string that parses as an ISO 8601 date and time',
  judge(x, _ctx, emit) {
    for (const r of fileRecords(x))
      for (const k of ['ModifiedDate', 'DownloadedDate']) {
        const v = r[k];
        if (v === undefined || v === null) continue;
        const good = typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v) && !Number.isNaN(Date.parse(v));
        emit(['FILE-025'], good, `${k} ${show(v)}`);
        if (!good) return;
      }
  },
};

/** FILE-021: the file query without a column list carries no file bytes. */
const fileQueryMetadataOnly: ExchangeRule = {
  name: 'file_query_metadata_only',
  requirements: ['FILE-021'],
  description: 'GET /api/File/Query without `columns` answers rows without Contents (absent or null)',
  judge(x, _ctx, emit) {
    if (op(x) !== 'queryFiles' || x.status !== 200 || x.query.get('columns')) return;
    const rows = recordsOf(x);
    if (rows.length === 0) return;
    const bad = rows.find((r) => r.Contents !== undefined && r.Contents !== null);
    emit(
      ['FILE-021'],
      !bad,
      bad ? `file ${show(bad.FileID)} carries Contents` : `${rows.length} row(s) without Contents`,
    );
  },
};

const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** FILE-013, FILE-015: a non-empty DownloadURL is relative and no /api path; an external file's is empty. */
const downloadUrl: ExchangeRule = {
  name: 'download_url',
  requirements: ['FILE-013', 'FILE-015'],
  description:
    'a non-empty DownloadURL is relative to the web application (no scheme, no host) and not an /api path; for an external file (ExternalFileRepositoryID or ExternalDirectURL in the same record) it is the empty string',
  judge(x, _ctx, emit) {
    for (const r of fileRecords(x)) {
      if (typeof r.DownloadURL !== 'string') continue;
      if (present(r.ExternalFileRepositoryID) || present(r.ExternalDirectURL)) {
        emit(['FILE-015'], r.DownloadURL === '', `external file ${show(r.FileID)}: DownloadURL ${show(r.DownloadURL)}`);
        continue;
      }
      if (r.DownloadURL === '') continue; // external or restricted: the traffic does not show which
      const u = r.DownloadURL;
      const bad =
        /^[a-z][a-z0-9+.-]*:/i.test(u) || u.startsWith('//')
          ? 'has a scheme or host'
          : /^\/?api(\/|$)/i.test(u)
            ? 'is an /api path'
            : '';
      emit(['FILE-013'], !bad, bad ? `DownloadURL ${show(u)} ${bad}` : `DownloadURL ${show(u)} is relative`);
    }
  },
};

/** LINK-012, LINK-011: a link query by parent domain answers links of one parent domain; by child, links of that child. */
const linkQuery: ExchangeRule = {
  name: 'link_query_scope',
  requirements: ['LINK-012', 'LINK-011'],
  description:
    "Link/Query with parentDomain answers rows of one ParentDomainID (that domain's ID when known); with childDomain and childRecordID, rows of that ChildID (and that ChildDomainID when known)",
  judge(x, ctx, emit) {
    if (op(x) !== 'queryLinks' || x.status !== 200) return;
    const rows = recordsOf(x);
    if (rows.length === 0) return;
    const parent = x.query.get('parentDomain');
    if (parent && rows.every((r) => 'ParentDomainID' in r)) {
      const ids = new Set(rows.map((r) => r.ParentDomainID));
      const known = ctx.domainIds.get(parent);
      const good = ids.size === 1 && (known === undefined || ids.has(known));
      emit(
        ['LINK-012'],
        good,
        `parentDomain ${parent}: ParentDomainID ${show([...ids])}${known !== undefined ? ` (${parent} is ${known})` : ''}`,
      );
    }
    const child = x.query.get('childDomain');
    const childId = x.query.get('childRecordID');
    if (child && childId && /^\d+$/.test(childId) && rows.every((r) => 'ChildID' in r)) {
      const known = ctx.domainIds.get(child);
      const bad = rows.find(
        (r) =>
          r.ChildID !== Number(childId) || (known !== undefined && 'ChildDomainID' in r && r.ChildDomainID !== known),
      );
      emit(
        ['LINK-011'],
        !bad,
        bad ? `childRecordID ${childId}: a row ${show(bad)}` : `${rows.length} row(s) of child ${child} ${childId}`,
      );
    }
  },
};

/** DOM-004, DOM-005: core domains have their fixed IDs; custom domains higher ones. */
const domainIds: ExchangeRule = {
  name: 'domain_ids',
  requirements: ['DOM-004', 'DOM-005'],
  description:
    'in GET /api/Domains, each core domain has its fixed DomainID and each Custom. domain a DomainID above every core one',
  judge(x, ctx, emit) {
    if (op(x) !== 'listDomains' || x.status !== 200) return;
    const list = domainListOf(ctx.bindings, x.json);
    if (!Array.isArray(list)) return;
    for (const d of list.filter(isObject)) {
      const name = String(d.Name);
      const fixed = CORE_DOMAIN_IDS.get(name);
      if (fixed !== undefined && d.DomainID !== fixed)
        return emit(['DOM-004'], false, `${name} has DomainID ${show(d.DomainID)}, fixed ${fixed}`);
      if (name.startsWith('Custom.') && !(isInt(d.DomainID) && d.DomainID > 11))
        return emit(['DOM-005'], false, `${name} has DomainID ${show(d.DomainID)}, not above the core IDs`);
    }
    if (list.some((d) => isObject(d) && CORE_DOMAIN_IDS.has(String(d.Name))))
      emit(['DOM-004'], true, 'core DomainIDs as fixed');
    if (list.some((d) => isObject(d) && String(d.Name).startsWith('Custom.')))
      emit(['DOM-005'], true, 'custom DomainIDs above the core ones');
  },
};

/** FILE-006: a file the attached-files listing shows has a parent link, so IsUnlinked is false. */
const attachedAreLinked: ExchangeRule = {
  name: 'attached_files_are_linked',
  requirements: ['FILE-006'],
  description:
    'every file the attached-files listing (GET /api/{domain}/{id}/Files) answers is attached to that parent, so its IsUnlinked, where answered, is false',
  judge(x, _ctx, emit) {
    if (op(x) !== 'listAttachedFiles' || x.status !== 200) return;
    const rows = recordsOf(x).filter((r) => typeof r.IsUnlinked === 'boolean');
    if (rows.length === 0) return;
    const bad = rows.find((r) => r.IsUnlinked !== false);
    emit(
      ['FILE-006'],
      !bad,
      bad
        ? `file ${show(bad.FileID)} is listed as attached to ${x.path.replace(/\/Files$/, '')}, yet IsUnlinked is true`
        : `${rows.length} attached file(s) with IsUnlinked false`,
    );
  },
};

export const FILE_RULES: readonly ExchangeRule[] = [
  attachedAreLinked,
  fileTimestamps,
  fileQueryMetadataOnly,
  contentsLength,
  mimeTypeExtension,
  entryDateFormat,
  downloadUrl,
  linkQuery,
  domainIds,
];

/** Requirements of files and links no recorded exchange decides. */
export const FILE_NOT_JUDGEABLE: readonly NotJudgeable[] = [
  {
    requirements: ['FILE-016', 'FILE-017'],
    reason:
      "depends on the caller's download permissions or on a setting of the service, which a recording does not show",
  },
  {
    requirements: ['FILE-001', 'FILE-005', 'FILE-008', 'LINK-001', 'LINK-002', 'LINK-005'],
    reason:
      'needs the stored data (which files exist, who uploaded them, which records are linked to which parent), which only a provider state or a fixtures file tells',
  },
  {
    requirements: ['LINK-003', 'LINK-006', 'LINK-008', 'LINK-009', 'LINK-010', 'LINK-020'],
    reason:
      "needs to know which records a primary key or match field names and which links existed before the call; a link answer does not echo them, so only a state's stored data decides it",
  },
];
