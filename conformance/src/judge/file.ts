// FILE-*: what one file record shows (spec 2.2, 4.3), on each operation that answers file records
// (getFile, queryFiles, listAttachedFiles). The suite asserts these findings on the records it reads
// (conformance/suite/files.test.ts) and the traffic rules of traffic/rules-files.ts emit them for
// every recorded record. What only the live side knows (the bytes it uploaded, the file's name,
// that it is linked or external) comes in as `known`; without it a judge decides what the record
// alone shows and says nothing of the rest.
import { type Finding, type JudgeEntry, show } from './finding.js';

export type FileOperation = 'getFile' | 'queryFiles' | 'listAttachedFiles';

/** What the caller knows of the file beyond the record. */
export interface FileKnowledge {
  /** The bytes stored (uploaded by the caller). */
  bytes?: Uint8Array;
  /** How many bytes are stored, without the bytes (a provider state's file, another answer's FileSize). */
  size?: number;
  /** The file's name (for a record read without FileName). */
  fileName?: string;
  /** The file has a parent link (set up so by the caller); an attached-files listing shows it has. */
  linked?: boolean;
  /** The file is external (ExternalFileRepositoryID or ExternalDirectURL set); else read from the record. */
  external?: boolean;
}

export const FILE_RECORD_JUDGE: JudgeEntry = {
  name: 'judgeFileRecord',
  requirements: [
    'FILE-002',
    'FILE-003',
    'FILE-004',
    'FILE-006',
    'FILE-010',
    'FILE-011',
    'FILE-013',
    'FILE-015',
    'FILE-025',
  ],
};

export const FILE_QUERY_ROW_JUDGE: JudgeEntry = { name: 'judgeFileQueryRow', requirements: ['FILE-021'] };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** FILE-004: fractional seconds, no zone designator. */
export const ENTRY_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+$/;
/** FILE-025: any ISO 8601 date and time, seconds, fraction and zone designator optional (the format is open). */
const ANY_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

const present = (v: unknown) => v !== undefined && v !== null && v !== '';
const f = (requirement: string, ok: boolean, detail: string): Finding => ({ requirement, ok, detail });

/** FILE-010 (FILE-011 on the attached-files listing), FILE-002: Contents is base64 of the file's bytes. */
function contents(op: FileOperation, r: Record<string, unknown>, known: FileKnowledge): Finding[] {
  const raw = r.Contents;
  if (typeof raw !== 'string') return [];
  const reqs = op === 'listAttachedFiles' ? ['FILE-010', 'FILE-011'] : ['FILE-010'];
  const c = raw.replace(/\s+/g, '');
  const file = `Contents of file ${show(r.FileID)}`;
  // not base64 at all: the bytes' encoding is wrong, whatever their size (FILE-002 is not decided)
  if (!BASE64.test(c)) return reqs.map((q) => f(q, false, `${file} is not base64: ${show(raw.slice(0, 40))}`));
  const bytes = Buffer.from(c, 'base64');
  const out: Finding[] = [];
  if (known.bytes) {
    const same = bytes.equals(Buffer.from(known.bytes));
    const detail = same
      ? `${file}: the ${bytes.length} bytes stored`
      : `${file} decodes to other bytes than the ${known.bytes.length} stored`;
    out.push(...reqs.map((q) => f(q, same, detail)));
  }
  // with the stored bytes known, they decide FILE-010; a FileSize beside them (else the size known) is then FILE-002's alone
  const size = Number.isInteger(r.FileSize) ? r.FileSize : known.size;
  if (size !== undefined) {
    const ok = bytes.length === size;
    const of = r.FileSize === size ? 'FileSize' : 'the size known';
    const detail = ok
      ? `Contents of ${bytes.length} bytes = ${of}`
      : `${file} decodes to ${bytes.length} bytes, ${of} is ${show(size)}`;
    out.push(...[...(known.bytes ? [] : reqs), 'FILE-002'].map((q) => f(q, ok, detail)));
  }
  if (out.length === 0) out.push(...reqs.map((q) => f(q, true, `${file} is base64`)));
  return out;
}

/** FILE-002: FileSize is the size of the stored bytes (when the caller knows it). */
function fileSize(r: Record<string, unknown>, known: FileKnowledge): Finding[] {
  const n = known.bytes?.length ?? known.size;
  if (n === undefined || r.FileSize === undefined) return [];
  return [f('FILE-002', r.FileSize === n, `file ${show(r.FileID)}: FileSize ${show(r.FileSize)} for ${n} bytes`)];
}

/** FILE-003: MimeType is the file name's extension, with its dot (compared without case). */
function mimeType(r: Record<string, unknown>, known: FileKnowledge): Finding[] {
  const name = known.fileName ?? r.FileName;
  if (r.MimeType === undefined || typeof name !== 'string') return [];
  const m = /(\.[^./\\]+)$/.exec(name);
  if (!m) return [];
  const ok = typeof r.MimeType === 'string' && r.MimeType.toLowerCase() === m[1]!.toLowerCase();
  return [f('FILE-003', ok, `FileName ${show(name)}, MimeType ${show(r.MimeType)}`)];
}

/** FILE-004: EntryDate; FILE-025: ModifiedDate and DownloadedDate, once set, ISO 8601 date-times. */
function timestamps(r: Record<string, unknown>): Finding[] {
  const out: Finding[] = [];
  if (r.EntryDate !== undefined && r.EntryDate !== null)
    out.push(
      f('FILE-004', typeof r.EntryDate === 'string' && ENTRY_DATE.test(r.EntryDate), `EntryDate ${show(r.EntryDate)}`),
    );
  for (const k of ['ModifiedDate', 'DownloadedDate']) {
    const v = r[k];
    if (v === undefined || v === null) continue;
    const ok = typeof v === 'string' && ANY_TIMESTAMP.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T')));
    out.push(f('FILE-025', ok, `${k} ${show(v)}`));
  }
  return out;
}

/** FILE-013: a non-empty DownloadURL is relative and no /api path; FILE-015: an external file's is empty. */
function downloadUrl(r: Record<string, unknown>, known: FileKnowledge): Finding[] {
  if (r.DownloadURL === undefined) return [];
  const u = r.DownloadURL;
  const external = known.external ?? (present(r.ExternalFileRepositoryID) || present(r.ExternalDirectURL));
  if (external) return [f('FILE-015', u === '', `external file ${show(r.FileID)}: DownloadURL ${show(u)}`)];
  if (u === '' || u === null) return []; // restricted, or external unknown to the caller: the record does not show which
  const bad =
    typeof u !== 'string'
      ? 'is not a string'
      : /^[a-z][a-z0-9+.-]*:/i.test(u) || u.startsWith('//')
        ? 'has a scheme or host'
        : /^\/?api(\/|$)/i.test(u)
          ? 'is an /api path'
          : '';
  return [f('FILE-013', !bad, bad ? `DownloadURL ${show(u)} ${bad}` : `DownloadURL ${show(u)} is relative`)];
}

/** FILE-006: IsUnlinked is false for a file with a parent link (every file an attached-files listing answers), true for an orphan. */
function isUnlinked(op: FileOperation, r: Record<string, unknown>, known: FileKnowledge): Finding[] {
  const linked = known.linked ?? (op === 'listAttachedFiles' ? true : undefined);
  if (linked === undefined || r.IsUnlinked === undefined) return [];
  const why = op === 'listAttachedFiles' ? 'in an attached-files listing' : linked ? 'with a parent link' : 'orphaned';
  return [f('FILE-006', r.IsUnlinked === !linked, `file ${show(r.FileID)} ${why}: IsUnlinked ${show(r.IsUnlinked)}`)];
}

/** Every finding one file record, answered by `op`, gives. */
export function judgeFileRecord(op: FileOperation, r: Record<string, unknown>, known: FileKnowledge = {}): Finding[] {
  return [
    ...contents(op, r, known),
    ...mimeType(r, known),
    ...fileSize(r, known),
    ...timestamps(r),
    ...downloadUrl(r, known),
    ...isUnlinked(op, r, known),
  ];
}

/** FILE-021: a File/Query row asked without a column list carries no file bytes (nor, when known, the bytes under another key). */
export function judgeFileQueryRow(r: Record<string, unknown>, known: FileKnowledge = {}): Finding[] {
  if (r.Contents !== undefined && r.Contents !== null)
    return [f('FILE-021', false, `file ${show(r.FileID)} carries Contents`)];
  const b64 = known.bytes && Buffer.from(known.bytes).toString('base64');
  const under = b64 ? Object.keys(r).find((k) => r[k] === b64) : undefined;
  return [
    f(
      'FILE-021',
      !under,
      under ? `file ${show(r.FileID)} carries its bytes as ${under}` : `file ${show(r.FileID)} without Contents`,
    ),
  ];
}

export const FILE_LISTING_JUDGE: JudgeEntry = { name: 'judgeAttachedListing', requirements: ['FILE-007', 'LINK-021'] };

/** What the caller knows of a parent: the files linked to it, and its twin's (the same ID in another domain). */
export interface ParentFiles {
  fileIds: readonly number[];
  twinFileIds?: readonly number[];
}

/**
 * The FileIDs of a whole attached-files listing (every file on the page): none of the twin's
 * (LINK-021, judged when the twin has files; when it fails, which files are listed is not judged
 * past it), and exactly the parent's files, each once (FILE-007).
 */
export function judgeAttachedListing(listed: readonly unknown[], parent: ParentFiles, what = 'the parent'): Finding[] {
  const twins = listed.filter((id) => parent.twinFileIds?.includes(id as number));
  if (twins.length) return [f('LINK-021', false, `${what} lists its twin's file(s) ${show(twins)}`)];
  const out = parent.twinFileIds?.length ? [f('LINK-021', true, `${what}: none of its twin's files`)] : [];
  const sorted = (ids: readonly unknown[]) => JSON.stringify([...ids].sort());
  const same = sorted(listed) === sorted(parent.fileIds);
  const detail = same
    ? `${what}: exactly its ${listed.length} file(s)`
    : `${what} lists ${show(listed)}, where its files are ${show(parent.fileIds)}`;
  return [...out, f('FILE-007', same, detail)];
}
