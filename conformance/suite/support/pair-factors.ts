// The factor tables of the feature-pair runs (spec 4.1, 4.2, 4.3, 8), one per listing, and the seed
// of each listing's covering array: what feature-pairs.ts asks and what the coverage gate counts
// (conformance/src/coverage/feature-pairs.ts: every pair of levels a table declares must be covered
// by a run that passed). Plain data and arithmetic: no request, no assertion.
import type { Factor } from './pairwise.js';

export type Listing = 'records' | 'files' | 'attached';
export const LISTINGS: readonly Listing[] = ['records', 'files', 'attached'];

export const LISTING_WHERE: Record<Listing, string> = {
  records: 'GET /api/{domain}/Query',
  files: 'GET /api/File/Query',
  attached: 'GET /api/{domain}/{id}/Files',
};

const OPT3 = ['absent', 'false', 'true'] as const;

/**
 * The factors of a query listing; `assoc` on the domain query only (the file record has no
 * association, spec 2.2), `linq` and `two` only when the fixture has them. `nulls` draws the stored
 * null classes (a column null on every record, a value on one record only) and, with `stored`, the
 * number and text columns of the 1.2.0 data classes (0, negative, fractions, null; empty, padded,
 * non-ASCII, emoji text: spec/data-classes.yaml).
 */
export function queryFactors(o: { assoc: boolean; two: boolean; linq: boolean; stored?: boolean }): Factor[] {
  return [
    { name: 'key', levels: ['plain', 'aliased'] },
    ...(o.assoc ? [{ name: 'assoc', levels: ['none', 'bare', 'bare-aliased', 'dotted', 'dotted-aliased'] }] : []),
    { name: 'nulls', levels: ['none', 'all-null', 'one-value', 'both', ...(o.stored ? ['stored'] : [])] },
    { name: 'resolve', levels: OPT3 },
    { name: 'suppress', levels: OPT3 },
    { name: 'total', levels: OPT3 },
    { name: 'sort', levels: ['none', 'asc', 'asc-keyword', 'desc', ...(o.two ? ['two-keys'] : [])] },
    { name: 'offset', levels: ['absent', '0', '1', 'middle', 'last', 'past-end'], blinding: ['past-end'] },
    { name: 'take', levels: ['absent', '1', '7', '100', '101'], blinding: ['101'] },
    { name: 'select', levels: o.linq ? ['filter', 'linq'] : ['filter'] },
  ];
}

/** File columns of spec 2.2 asked in sets on the listing (Contents and DownloadURL have rules of their own). */
export const FILE_COLUMN_SETS: Record<string, string[]> = {
  id: ['FileID'],
  'name-size': ['FileName', 'FileSize'],
  metadata: ['FileID', 'MimeType', 'EntryDate', 'IsUnlinked'],
  described: ['FileName', 'Description', 'SourceType'],
};

/** Files with distinct names, types and sizes: the suite's own, attached to one parent. */
export const PAIR_FILES = [
  { fileName: 'pair-a.txt', contentsBase64: 'YQ==' },
  { fileName: 'pair-b.png', contentsBase64: 'iVBORw0KGgo=' },
  { fileName: 'pair-c.pdf', contentsBase64: 'JVBERi0xLjQK' },
  { fileName: 'pair-d.txt', contentsBase64: 'w6TDtsO8' },
  { fileName: 'pair-e.docx', contentsBase64: 'UEsDBBQABgAIAAAAIQA=' },
];

/** The factors of the attached-files listing for a parent with `n` files (take around n). */
export function attachedFactors(n: number): Factor[] {
  return [
    { name: 'columns', levels: Object.keys(FILE_COLUMN_SETS) },
    { name: 'alias', levels: ['none', 'first', 'all'] },
    {
      name: 'take',
      levels: ['absent', '1', String(n - 1), String(n), String(n + 1), '100', '101'],
      blinding: ['101'],
    },
  ];
}

/**
 * The factor table each listing declares: every feature it has when the fixture gives all the
 * optional values (groupField, linqFilter), the attached listing over the suite's own files.
 */
export function declaredFactors(listing: Listing): Factor[] {
  if (listing === 'attached') return attachedFactors(PAIR_FILES.length);
  const records = listing === 'records';
  return queryFactors({ assoc: records, two: records, linq: true, stored: records });
}

/** `n` values cycled from `samples`: the stored values of the data classes for n records. */
export function cycled<T>(samples: readonly T[], n: number): T[] {
  return Array.from({ length: n }, (_, i) => samples[i % samples.length]!);
}

/** The seed of one listing's covering array, from the run's seed. */
export function pairSeed(runSeed: number, listing: Listing): number {
  return (runSeed ^ { records: 0x5a17, files: 0x3c11, attached: 0x0f0f }[listing]) >>> 0;
}
