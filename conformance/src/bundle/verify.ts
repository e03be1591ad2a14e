// `conformance verify-bundle FILE [--public-key K]`: checks a bundle (write.ts) offline, one named
// check after the other: the archive and its statement, the signature, every file's digest, the
// suite release and spec that judged against the installed ones, results.json against itself
// (results-check.ts), and the recorded traffic judged again against the results (rejudge.ts).
// Exit codes (conformance/README.md, "Signed conformance bundles"):
//   0 every check held;
//   1 a discrepancy: a changed, missing or extra file, an edited result, traffic that contradicts
//     the results, a bad signature or one by another key, an unsigned bundle when a key is given;
//   2 usage: the bundle or the key cannot be read;
//   4 nothing contradicts the bundle, but another suite release made it (its rules and spec may
//     differ from the installed suite's): verify it with that release.
import type crypto from 'node:crypto';
import fs from 'node:fs';
import { UsageError } from '../model/errors.js';
import { EXIT, type RunResults } from '../report/results.js';
import { suiteVersion } from '../model/versions.js';
import { unpackTarGz, type ArchiveFile } from './archive.js';
import { packageDigest, sha256, specDigests } from './digests.js';
import { checkSignature, IN_TOTO_PAYLOAD_TYPE, keyId, type DsseEnvelope } from './dsse.js';
import { checkResults } from './results-check.js';
import { rejudge } from './rejudge.js';
import { BUNDLE_FILES, ENVELOPE_FILE, parseStatement, type Statement } from './statement.js';

/** ok: held; failed: a discrepancy; release: made by another suite release; note: not checked, said why. */
type CheckStatus = 'ok' | 'failed' | 'release' | 'note';

interface BundleCheck {
  check: string;
  status: CheckStatus;
  detail: string;
}

export interface BundleVerification {
  checks: BundleCheck[];
  exitCode: number;
  statement?: Statement;
}

export const VERIFY_EXIT = { ok: EXIT.ok, discrepancy: EXIT.failed, usage: EXIT.usage, otherRelease: 4 } as const;

function exitOf(checks: BundleCheck[]): number {
  if (checks.some((c) => c.status === 'failed')) return VERIFY_EXIT.discrepancy;
  if (checks.some((c) => c.status === 'release')) return VERIFY_EXIT.otherRelease;
  return VERIFY_EXIT.ok;
}

function readEnvelope(f: ArchiveFile | undefined): DsseEnvelope | string {
  if (!f) return `the bundle holds no ${ENVELOPE_FILE}`;
  try {
    const env = JSON.parse(f.data.toString('utf8')) as DsseEnvelope;
    if (typeof env.payload !== 'string' || !Array.isArray(env.signatures))
      return `${ENVELOPE_FILE} is not a DSSE envelope (payload, signatures)`;
    if (env.payloadType !== IN_TOTO_PAYLOAD_TYPE)
      return `${ENVELOPE_FILE}: payloadType is ${env.payloadType}, not ${IN_TOTO_PAYLOAD_TYPE}`;
    return env;
  } catch (e) {
    return `${ENVELOPE_FILE} is not JSON: ${(e as Error).message}`;
  }
}

function signatureCheck(env: DsseEnvelope, key: crypto.KeyObject | undefined): BundleCheck {
  const check = 'signature';
  const ids = env.signatures.map((s) => s.keyid).join(', ');
  if (!key)
    return {
      check,
      status: 'note',
      detail: env.signatures.length
        ? `NOT checked (no --public-key): signed by keyid ${ids}`
        : 'NOT checked (no --public-key); the bundle is UNSIGNED',
    };
  const s = checkSignature(env, key);
  switch (s.status) {
    case 'valid':
      return { check, status: 'ok', detail: `valid, by the key given (keyid ${s.keyid})` };
    case 'unsigned':
      return { check, status: 'failed', detail: `the bundle is UNSIGNED; the key given is keyid ${keyId(key)}` };
    case 'other-key':
      return {
        check,
        status: 'failed',
        detail: `signed by another key: keyid ${s.keyids.join(', ')}, not the key given (keyid ${s.expected})`,
      };
    case 'invalid':
      return {
        check,
        status: 'failed',
        detail: `the signature of keyid ${s.keyid} does not verify: the statement was changed after signing`,
      };
  }
}

function digestCheck(files: ArchiveFile[], st: Statement): BundleCheck {
  const byName = new Map(files.map((f) => [f.name, f]));
  const problems: string[] = [];
  for (const s of st.subject) {
    const f = byName.get(s.name);
    if (!f) problems.push(`${s.name} is missing`);
    else if (sha256(f.data) !== s.digest.sha256)
      problems.push(`${s.name} was changed (its SHA-256 is not the statement's)`);
  }
  const named = new Set(st.subject.map((s) => s.name));
  for (const f of files)
    if (f.name !== ENVELOPE_FILE && !named.has(f.name)) problems.push(`${f.name} is not in the statement`);
  for (const n of Object.values(BUNDLE_FILES)) if (!named.has(n)) problems.push(`the statement names no ${n}`);
  return problems.length
    ? { check: 'files', status: 'failed', detail: problems.join('; ') }
    : { check: 'files', status: 'ok', detail: `${st.subject.length} files, each with the SHA-256 the statement names` };
}

function suiteChecks(st: Statement): BundleCheck[] {
  const p = st.predicate;
  const installed = suiteVersion();
  if (p.suite.version !== installed)
    return [
      {
        check: 'suite release',
        status: 'release',
        detail: `made by suite ${p.suite.version}, verified by ${installed}: another release (not tampering); its spec and rules may differ; verify with that release: npx rflps-conformance@${p.suite.version} verify-bundle`,
      },
    ];
  const spec = specDigests();
  const changed = Object.keys(spec).filter((f) => p.spec.files[f] !== spec[f]);
  const pkg = packageDigest();
  return [
    {
      check: 'suite release',
      status: 'ok',
      detail: `made by suite ${p.suite.version}, the installed release`,
    },
    changed.length
      ? {
          check: 'spec',
          status: 'failed',
          detail: `${changed.join(', ')} of the suite that judged differ${changed.length === 1 ? 's' : ''} from suite ${installed}'s`,
        }
      : { check: 'spec', status: 'ok', detail: `${Object.keys(spec).join(', ')}: the installed suite's (SHA-256)` },
    pkg.sha256 === p.suite.packageDigest.sha256
      ? {
          check: 'suite package',
          status: 'ok',
          detail: `digest ${pkg.sha256.slice(0, 16)}… over ${pkg.files} files, the installed suite's`,
        }
      : {
          check: 'suite package',
          status: 'failed',
          detail: `the suite that judged (${p.suite.packageDigest.files} files, ${p.suite.packageDigest.sha256.slice(0, 16)}…) is not the installed ${installed} (${pkg.files} files, ${pkg.sha256.slice(0, 16)}…): a modified or other build of the same version`,
        },
  ];
}

function trafficChecks(files: ArchiveFile[], st: Statement, r: RunResults): BundleCheck[] {
  const har = files.find((f) => f.name === BUNDLE_FILES.traffic);
  if (!har)
    return [
      { check: 'traffic', status: 'failed', detail: `no ${BUNDLE_FILES.traffic}: the results cannot be re-judged` },
    ];
  const cfg = files.find((f) => f.name === BUNDLE_FILES.config);
  let bindings: unknown;
  try {
    bindings = cfg ? (JSON.parse(cfg.data.toString('utf8')) as { bindings?: unknown }).bindings : undefined;
  } catch {
    bindings = undefined;
  }
  let j: ReturnType<typeof rejudge>;
  try {
    j = rejudge(har.data, r, bindings, st.predicate.traffic.exchanges);
  } catch (e) {
    return [{ check: 'traffic', status: 'failed', detail: (e as Error).message }];
  }
  const failedCount = j.confirmed.length + j.undecided.length;
  return [
    j.fit.length
      ? { check: 'traffic fits the run', status: 'failed', detail: j.fit.join('; ') }
      : { check: 'traffic fits the run', status: 'ok', detail: j.span },
    j.contradicted.length
      ? {
          check: 'traffic vs passed',
          status: 'failed',
          detail: `the recording fails ${j.contradicted.length} requirement(s) results.json calls passed: ${j.contradicted.join('; ')}`,
        }
      : {
          check: 'traffic vs passed',
          status: 'ok',
          detail: `the recording fails no requirement results.json calls passed (${j.exchanges} exchanges judged again, ${j.observed} core requirements decided)`,
        },
    {
      check: 'traffic vs failed',
      status: 'ok',
      detail: failedCount
        ? `${j.confirmed.length} of ${failedCount} failed requirement(s) fail on the recording too${j.confirmed.length ? ` (${j.confirmed.join(', ')})` : ''}${
            j.undecided.length
              ? `; the recording cannot decide ${j.undecided.map((u) => `${u.id} (${u.why})`).join('; ')}`
              : ''
          }`
        : 'results.json calls no requirement failed',
    },
  ];
}

/** Checks the bundle `file`; `publicKey`: the vendor's, whose signature must be on it. */
export function verifyBundle(file: string, o: { publicKey?: crypto.KeyObject } = {}): BundleVerification {
  let gz: Buffer;
  try {
    gz = fs.readFileSync(file);
  } catch (e) {
    throw new UsageError(`cannot read the bundle ${file}: ${(e as Error).message}`);
  }
  const checks: BundleCheck[] = [];
  const done = (statement?: Statement): BundleVerification => ({
    checks,
    exitCode: exitOf(checks),
    ...(statement ? { statement } : {}),
  });
  let files: ArchiveFile[];
  try {
    files = unpackTarGz(gz);
  } catch (e) {
    checks.push({ check: 'archive', status: 'failed', detail: `not a bundle: ${(e as Error).message}` });
    return done();
  }
  checks.push({
    check: 'archive',
    status: 'ok',
    detail: `${files.length} files: ${files.map((f) => f.name).join(', ')}`,
  });
  const env = readEnvelope(files.find((f) => f.name === ENVELOPE_FILE));
  if (typeof env === 'string') {
    checks.push({ check: 'statement', status: 'failed', detail: env });
    return done();
  }
  const parsed = parseStatement(Buffer.from(env.payload, 'base64'));
  if ('problem' in parsed) {
    checks.push({ check: 'statement', status: 'failed', detail: parsed.problem });
    checks.push(signatureCheck(env, o.publicKey));
    return done();
  }
  const st = parsed.statement;
  const p = st.predicate;
  checks.push({
    check: 'statement',
    status: 'ok',
    detail: `in-toto Statement v1 of ${p.target.label ?? p.target.baseUrl}${p.target.version ? ` version ${p.target.version}` : ''}${p.target.imageDigest ? ` (${p.target.image ?? 'image'} ${p.target.imageDigest})` : ''}, ${p.run.profile} profile, verdict ${p.run.verdict}, run ${p.run.startedAt} to ${p.run.finishedAt}`,
  });
  checks.push(signatureCheck(env, o.publicKey));
  checks.push(digestCheck(files, st));
  checks.push(...suiteChecks(st));
  const resultsFile = files.find((f) => f.name === BUNDLE_FILES.results);
  let r: RunResults | undefined;
  try {
    r = resultsFile ? (JSON.parse(resultsFile.data.toString('utf8')) as RunResults) : undefined;
  } catch (e) {
    checks.push({ check: 'results', status: 'failed', detail: `results.json is not JSON: ${(e as Error).message}` });
    return done(st);
  }
  if (!r) {
    checks.push({ check: 'results', status: 'failed', detail: 'no results.json' });
    return done(st);
  }
  const rc = checkResults(r, p);
  checks.push(
    rc.problems.length
      ? { check: 'results', status: 'failed', detail: `results.json disagrees with itself: ${rc.problems.join('; ')}` }
      : {
          check: 'results',
          status: 'ok',
          detail: `${r.requirements.length} requirements: each result, the counts, the strength, the exit code ${r.exitCode} and the verdict ${r.verdict} agree with the tests${rc.notes.length ? ` (${rc.notes.join('; ')})` : ''}`,
        },
  );
  checks.push(...trafficChecks(files, st, r));
  return done(st);
}
