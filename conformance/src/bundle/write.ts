// `conformance run --bundle FILE`: one .tar.gz that a customer can check offline (verify.ts):
// the run's reports (results.json, junit.xml, report.html), its own traffic as HAR (credentials
// redacted, as --record-har writes it), its effective options and bindings (config.json), and
// statement.dsse.json: the in-toto statement over all of them (statement.ts), in a DSSE envelope
// signed with the vendor's Ed25519 key (--sign-key) or, unsigned, with no signature (dsse.ts).
import type crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { renderHtml } from '../report/html.js';
import { toJUnit } from '../report/junit.js';
import type { RunResults } from '../report/results.js';
import { packTarGz, type ArchiveFile } from './archive.js';
import { packageDigest, specDigests } from './digests.js';
import { envelope, keyId } from './dsse.js';
import { BUNDLE_FILES, ENVELOPE_FILE, buildStatement, runOfResults, type BundlePredicate } from './statement.js';

export interface BundleContents {
  results: RunResults;
  /** the run's traffic, a HAR 1.2 file as `--record-har` writes it (credentials redacted) */
  har: Buffer;
  /** the effective options and bindings (run/bundle-config.ts) */
  config: object;
  /** --target-version */
  targetVersion?: string;
}

export interface WrittenBundle {
  file: string;
  /** the keyid that signed it; undefined: unsigned */
  keyid?: string;
  files: string[];
  exchanges: number;
}

const SUITE_NAME = 'rflps-conformance';

function harEntries(har: Buffer): number {
  try {
    const doc = JSON.parse(har.toString('utf8')) as { log?: { entries?: unknown[] } };
    return doc.log?.entries?.length ?? 0;
  } catch {
    return 0;
  }
}

/** The predicate of a run's bundle (statement.ts BundlePredicate). */
function bundlePredicate(c: BundleContents, exchanges: number): BundlePredicate {
  const r = c.results;
  return {
    suite: { name: SUITE_NAME, version: r.suiteVersion, packageDigest: packageDigest() },
    spec: { version: r.specVersion, catalogueVersion: r.catalogueVersion, files: specDigests() },
    target: {
      ...(r.targetLabel ? { label: r.targetLabel } : {}),
      ...(c.targetVersion ? { version: c.targetVersion } : {}),
      kind: r.target.kind,
      baseUrl: r.target.baseUrl,
      ...(r.target.image ? { image: r.target.image } : {}),
      ...(r.target.digest ? { imageDigest: r.target.digest } : {}),
    },
    run: runOfResults(r),
    files: BUNDLE_FILES,
    traffic: { exchanges },
  };
}

/** The subject files of a run's bundle, in archive order. */
function bundleFiles(c: BundleContents): ArchiveFile[] {
  const text = (s: string) => Buffer.from(s, 'utf8');
  return [
    { name: BUNDLE_FILES.results, data: text(`${JSON.stringify(c.results, null, 2)}\n`) },
    { name: BUNDLE_FILES.junit, data: text(toJUnit(c.results)) },
    { name: BUNDLE_FILES.report, data: text(renderHtml(c.results)) },
    { name: BUNDLE_FILES.traffic, data: c.har },
    { name: BUNDLE_FILES.config, data: text(`${JSON.stringify(c.config, null, 2)}\n`) },
  ];
}

/**
 * The archive of `files` with the envelope of their statement (signed with `key` when given): what
 * writeBundle writes, and what a test uses to build a bundle from files it changed.
 */
export function packBundle(
  files: readonly ArchiveFile[],
  predicate: BundlePredicate,
  key: crypto.KeyObject | undefined,
  mtime: Date,
): Buffer {
  const statement = buildStatement(files, predicate);
  const env = envelope(Buffer.from(JSON.stringify(statement), 'utf8'), key);
  const envFile = { name: ENVELOPE_FILE, data: Buffer.from(`${JSON.stringify(env, null, 2)}\n`, 'utf8') };
  return packTarGz([...files, envFile], mtime);
}

/** Writes the bundle of a run to `file`; signed with `key` when given. */
export function writeBundle(file: string, c: BundleContents, key?: crypto.KeyObject): WrittenBundle {
  const files = bundleFiles(c);
  const exchanges = harEntries(c.har);
  const gz = packBundle(files, bundlePredicate(c, exchanges), key, new Date(c.results.finishedAt));
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  fs.writeFileSync(file, gz);
  return {
    file,
    ...(key ? { keyid: keyId(key) } : {}),
    files: [...files.map((f) => f.name), ENVELOPE_FILE],
    exchanges,
  };
}
