// Per-exchange rules of files, links and domains (spec 2.1, 2.2, 4.3, 4.4).
import { CORE_DOMAIN_IDS as SPEC_CORE_DOMAIN_IDS } from '../../../spec/generated/facts.js';
import { domainListOf } from '../model/not-shown-shapes.js';
import { isObject, recordsOf, type TrafficExchange } from './exchange.js';
import { isInt, judgedRule, show, type NotJudgeable, type ExchangeRule } from './rule.js';
import {
  FILE_QUERY_ROW_JUDGE,
  FILE_RECORD_JUDGE,
  type FileOperation,
  judgeFileQueryRow,
  judgeFileRecord,
} from '../judge/file.js';

const op = (x: TrafficExchange) => x.operation?.operationId ?? '';
const FILE_OPS = new Set(['listAttachedFiles', 'queryFiles', 'getFile']);
const fileRecords = (x: TrafficExchange) => (FILE_OPS.has(op(x)) && x.status === 200 ? recordsOf(x) : []);

/** The fixed core DomainIDs (section 2.1). */
export const CORE_DOMAIN_IDS: ReadonlyMap<string, number> = new Map(Object.entries(SPEC_CORE_DOMAIN_IDS));

/** An adapter of the file record judge: its findings on `requirements` for every file record answered. */
const recordRule = (name: string, requirements: string[], description: string) =>
  judgedRule([FILE_RECORD_JUDGE], {
    name,
    requirements,
    description,
    findings: (x) => fileRecords(x).flatMap((r) => judgeFileRecord(op(x) as FileOperation, r)),
  });

const contentsLength = recordRule(
  'contents_base64_of_file_size',
  ['FILE-010', 'FILE-011', 'FILE-002'],
  'Contents is a base64 string (whatever else the record holds); a file record with Contents and FileSize holds Contents as base64 of exactly FileSize bytes',
);
const mimeTypeExtension = recordRule(
  'mime_type_is_extension',
  ['FILE-003'],
  'MimeType is the extension of FileName, beginning with a dot (compared without case)',
);
const entryDateFormat = recordRule(
  'entry_date_format',
  ['FILE-004'],
  'EntryDate is an ISO 8601 timestamp with fractional seconds and no zone designator',
);
const fileTimestamps = recordRule(
  'file_timestamps',
  ['FILE-025'],
  'ModifiedDate and DownloadedDate are null or a string that parses as an ISO 8601 date and time',
);
const downloadUrl = recordRule(
  'download_url',
  ['FILE-013', 'FILE-015'],
  'a non-empty DownloadURL is relative to the web application (no scheme, no host) and not an /api path; for an external file (ExternalFileRepositoryID or ExternalDirectURL in the same record) it is the empty string',
);
const attachedAreLinked = recordRule(
  'attached_files_are_linked',
  ['FILE-006'],
  'every file the attached-files listing (GET /api/{domain}/{id}/Files) answers is attached to that parent, so its IsUnlinked, where answered, is false',
);

/** FILE-021: the file query without a column list carries no file bytes. */
const fileQueryMetadataOnly = judgedRule([FILE_QUERY_ROW_JUDGE], {
  name: 'file_query_metadata_only',
  description: 'GET /api/File/Query without `columns` answers rows without Contents (absent or null)',
  findings: (x) =>
    op(x) === 'queryFiles' && x.status === 200 && !x.query.get('columns')
      ? recordsOf(x).flatMap((r) => judgeFileQueryRow(r))
      : [],
});

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
