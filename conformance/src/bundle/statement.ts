// The bundle's statement: an in-toto Statement v1 (https://github.com/in-toto/attestation,
// spec/v1/statement.md) whose subjects are the bundle's files with their SHA-256 and whose
// predicate, of this project's type, names the suite release, the spec, the target, the run's
// times and verdict. Its shape is published as conformance/schema/bundle-predicate.schema.json;
// a statement read back is checked against that schema before anything in it is believed.
import fs from 'node:fs';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ROOT } from '../paths.js';
import type { RunResults } from '../report/results.js';
import type { ArchiveFile } from './archive.js';
import { sha256 } from './digests.js';

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => void;

const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
const PREDICATE_TYPE = 'https://rflps.example/conformance/bundle/v1';
const PREDICATE_SCHEMA = path.join(ROOT, 'conformance/schema/bundle-predicate.schema.json');

/** The file names of a bundle, by role (the predicate's `files`). */
export const BUNDLE_FILES = {
  results: 'results.json',
  junit: 'junit.xml',
  report: 'report.html',
  traffic: 'traffic.har',
  config: 'config.json',
} as const;
/** The file that holds the DSSE envelope of the statement (not a subject: it is the statement). */
export const ENVELOPE_FILE = 'statement.dsse.json';

export interface BundlePredicate {
  suite: { name: string; version: string; packageDigest: { sha256: string; files: number } };
  spec: { version: string; catalogueVersion: string; files: Record<string, string> };
  target: {
    label?: string;
    version?: string;
    kind: string;
    baseUrl: string;
    image?: string;
    imageDigest?: string;
  };
  run: { startedAt: string; finishedAt: string; profile: string; verdict: string; exitCode: number; seed?: number };
  files: typeof BUNDLE_FILES;
  traffic: { exchanges: number };
}

/** The run a statement names, as its results.json tells it (written, and checked again on verify). */
export function runOfResults(r: RunResults): BundlePredicate['run'] {
  return {
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    profile: r.profile,
    verdict: r.verdict,
    exitCode: r.exitCode,
    ...(r.seed !== undefined ? { seed: r.seed } : {}),
  };
}

export interface Statement {
  _type: typeof STATEMENT_TYPE;
  subject: Array<{ name: string; digest: { sha256: string } }>;
  predicateType: typeof PREDICATE_TYPE;
  predicate: BundlePredicate;
}

export function buildStatement(files: readonly ArchiveFile[], predicate: BundlePredicate): Statement {
  return {
    _type: STATEMENT_TYPE,
    subject: files.map((f) => ({ name: f.name, digest: { sha256: sha256(f.data) } })),
    predicateType: PREDICATE_TYPE,
    predicate,
  };
}

let validate: ((doc: unknown) => string[]) | undefined;

function predicateProblems(doc: unknown): string[] {
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
    addFormats(ajv);
    const v = ajv.compile(JSON.parse(fs.readFileSync(PREDICATE_SCHEMA, 'utf8')) as object);
    validate = (d) => (v(d) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`));
  }
  return validate(doc);
}

/** The statement in a payload, or what makes it not one of a bundle's statements. */
export function parseStatement(payload: Buffer): { statement: Statement } | { problem: string } {
  let doc: Partial<Statement>;
  try {
    doc = JSON.parse(payload.toString('utf8')) as Partial<Statement>;
  } catch (e) {
    return { problem: `the statement is not JSON: ${(e as Error).message}` };
  }
  if (doc._type !== STATEMENT_TYPE) return { problem: `the statement's _type is not ${STATEMENT_TYPE}` };
  if (doc.predicateType !== PREDICATE_TYPE) return { problem: `the predicateType is not ${PREDICATE_TYPE}` };
  const subjects = doc.subject;
  if (
    !Array.isArray(subjects) ||
    !subjects.every((s) => typeof s?.name === 'string' && /^[0-9a-f]{64}$/.test(String(s?.digest?.sha256)))
  )
    return { problem: 'the statement has no list of subjects, each with a name and a sha256 digest' };
  const problems = predicateProblems(doc.predicate);
  if (problems.length) return { problem: `the predicate does not match its schema: ${problems.join('; ')}` };
  return { statement: doc as Statement };
}
