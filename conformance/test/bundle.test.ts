// Conformance bundles (`run --bundle`, `verify-bundle`; conformance/src/bundle/): one small core
// run (REC-001 of records.test.ts, COL-001 of columns.test.ts) against the reference server
// through the fault proxy with `columns-parameter-ignored` (COL-001 broken, everything else passed
// through), writing a signed bundle: verify-bundle accepts it, and its failed requirement is
// confirmed by the bundle's own traffic. Every tampering is then built from that bundle (the
// vendor holds the key, so most are re-signed: the signature alone cannot catch them) and must be
// detected and named: a failed requirement edited to passed, a response body changed in the HAR,
// a file removed, a bundle signed by another key, a bundle from an older suite release.
// Cost: the reference server's start and one CLI run of 2 suite files with 2 requirements (25 s
// on the shared, loaded 2-core development machine, 13 s of CPU for the whole file); each check
// after it under a second (a verification hashes the suite package and judges the HAR again).
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../faults/proxy.js';
import { packTarGz, unpackTarGz, type ArchiveFile } from '../src/bundle/archive.js';
import { parseStatement, ENVELOPE_FILE, type BundlePredicate } from '../src/bundle/statement.js';
import { packBundle } from '../src/bundle/write.js';
import { verifyBundle, type BundleVerification } from '../src/bundle/verify.js';
import type { DsseEnvelope } from '../src/bundle/dsse.js';
import { countResults, EXIT, verdictFor, type RunResults } from '../src/report/results.js';
import { applyStrength } from '../src/report/strength.js';
import { startReferenceProcess, type ReferenceProcess } from '../src/targets/reference-process.js';
import { runCli } from './helpers/cli.js';
import { verificationLines } from '../src/cli/verify-bundle.js';
import { loadPublicKey } from '../src/bundle/dsse.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'conf-bundle-'));
const keys = {
  vendor: crypto.generateKeyPairSync('ed25519'),
  other: crypto.generateKeyPairSync('ed25519'),
};
const pem = (name: keyof typeof keys, which: 'privateKey' | 'publicKey') => {
  const file = path.join(tmp, `${name}.${which === 'privateKey' ? 'pem' : 'pub'}`);
  fs.writeFileSync(
    file,
    which === 'privateKey'
      ? keys[name].privateKey.export({ type: 'pkcs8', format: 'pem' })
      : keys[name].publicKey.export({ type: 'spki', format: 'pem' }),
  );
  return file;
};

let ref: ReferenceProcess;
let proxy: FaultProxy;
const faulty = path.join(tmp, 'faulty.tar.gz');

/** A core run of REC-001 and COL-001 against `baseUrl`, writing a bundle signed by the vendor's key. */
function run(baseUrl: string, bundle: string) {
  return runCli([
    'run',
    '--base-url',
    baseUrl,
    '--include',
    'conformance/suite/records.test.ts,conformance/suite/columns.test.ts',
    '--requirements',
    'REC-001,COL-001',
    '--report-dir',
    `${bundle}.reports`,
    '--bundle',
    bundle,
    '--sign-key',
    pem('vendor', 'privateKey'),
    '--target-version',
    '1.2.3',
  ]);
}

beforeAll(async () => {
  ref = await startReferenceProcess({ providerStates: true });
  proxy = await startFaultProxy({ upstream: ref.url, fault: 'columns-parameter-ignored', log: () => {} });
  const t0 = performance.now();
  const b = await run(proxy.url, faulty);
  expect(b.stderr).toMatch(/wrote the bundle .*signed by keyid [0-9a-f]{64}/);
  expect(b.code, b.stdout + b.stderr).toBe(1);
  console.log(`the bundle run: ${Math.round(performance.now() - t0)} ms`);
}, 240_000);

afterAll(async () => {
  await proxy?.close();
  await ref?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface Opened {
  files: ArchiveFile[];
  predicate: BundlePredicate;
  results: RunResults;
}

function open(file: string): Opened {
  const files = unpackTarGz(fs.readFileSync(file));
  const env = JSON.parse(files.find((f) => f.name === ENVELOPE_FILE)!.data.toString('utf8')) as DsseEnvelope;
  const parsed = parseStatement(Buffer.from(env.payload, 'base64'));
  if ('problem' in parsed) throw new Error(parsed.problem);
  const results = JSON.parse(files.find((f) => f.name === 'results.json')!.data.toString('utf8')) as RunResults;
  return { files: files.filter((f) => f.name !== ENVELOPE_FILE), predicate: parsed.statement.predicate, results };
}

/** The bundle of these files and predicate, signed by `key` (the vendor's unless told), as a file. */
function pack(name: string, o: Opened, key: crypto.KeyObject | null = keys.vendor.privateKey): string {
  const file = path.join(tmp, `${name}.tar.gz`);
  fs.writeFileSync(file, packBundle(o.files, o.predicate, key ?? undefined, new Date(o.results.finishedAt)));
  return file;
}

function withFile(o: Opened, name: string, data: Buffer): Opened {
  return { ...o, files: o.files.map((f) => (f.name === name ? { name, data } : f)) };
}

const vendorKey = () => ({ publicKey: keys.vendor.publicKey });
const check = (v: BundleVerification, name: string) => v.checks.find((c) => c.check === name);
const failed = (v: BundleVerification) => v.checks.filter((c) => c.status === 'failed').map((c) => c.check);

describe('conformance bundles', () => {
  it('a run against the reference (through a fault) writes a bundle verify-bundle accepts; its traffic confirms the failure', () => {
    const o = open(faulty);
    expect(o.results.requirements.map((q) => `${q.id} ${q.result}`)).toEqual(['REC-001 passed', 'COL-001 failed']);
    const v = verifyBundle(faulty, vendorKey());
    expect(failed(v), JSON.stringify(v.checks, null, 1)).toEqual([]);
    expect(v.exitCode).toBe(EXIT.ok);
    expect(check(v, 'signature')).toMatchObject({ status: 'ok' });
    expect(v.statement?.predicate.target.version).toBe('1.2.3');
    expect(v.statement?.subject.map((s) => s.name)).toEqual([
      'results.json',
      'junit.xml',
      'report.html',
      'traffic.har',
      'config.json',
    ]);
    // every failed requirement fails on the recording too (traffic decides COL-001)
    expect(check(v, 'traffic vs failed')?.detail).toMatch(
      /^1 of 1 failed requirement\(s\) fail on the recording too \(COL-001\)$/,
    );
    // the HAR is redacted as --record-har writes it
    const har = o.files.find((f) => f.name === 'traffic.har')!.data.toString('utf8');
    expect(har).toMatch(/"name": "token",\s*"value": "<redacted>"/i);
  });

  it('a failed requirement edited to passed (and re-signed by the vendor) is named', () => {
    const o = open(faulty);
    // a careful forger: the requirement, its tests, the counts, the strength and the verdict all agree
    const r = structuredClone(o.results);
    const q = r.requirements.find((x) => x.id === 'COL-001')!;
    q.result = 'passed';
    for (const t of q.tests) {
      t.result = 'passed';
      delete t.error;
    }
    r.counts = countResults(r.requirements);
    r.gatingCounts = countResults(r.requirements);
    const forged = applyStrength({ ...r, exitCode: EXIT.ok, verdict: verdictFor(EXIT.ok), strength: undefined });
    expect(forged.exitCode).toBe(EXIT.ok);
    const edited = withFile(o, 'results.json', Buffer.from(JSON.stringify(forged, null, 2)));
    edited.predicate = { ...o.predicate, run: { ...o.predicate.run, verdict: 'pass', exitCode: 0 } };
    const v = verifyBundle(pack('forged', edited), vendorKey());
    expect(check(v, 'signature')?.status).toBe('ok');
    expect(failed(v)).toEqual(['traffic vs passed']);
    expect(check(v, 'traffic vs passed')?.detail).toMatch(
      /fails 1 requirement\(s\) results.json calls passed: COL-001: \d+ judgement\(s\) of columns_requested_are_keys, first: record \d+ has keys /,
    );
    expect(v.exitCode).toBe(EXIT.failed);

    // a careless one: only the requirement's result
    const r2 = structuredClone(o.results);
    r2.requirements.find((x) => x.id === 'COL-001')!.result = 'passed';
    const v2 = verifyBundle(pack('edited', withFile(o, 'results.json', Buffer.from(JSON.stringify(r2)))), vendorKey());
    expect(check(v2, 'results')?.detail).toMatch(/COL-001: results.json says passed, its tests give failed/);
    expect(check(v2, 'results')?.detail).toMatch(/counts: /);
  });

  it('a response body changed in the HAR is named: as a changed file, and when re-signed by the traffic', () => {
    const o = open(faulty);
    const har = JSON.parse(o.files.find((f) => f.name === 'traffic.har')!.data.toString('utf8'));
    // a single read without columns (REC-001's evidence): its answer now names another record
    const e = har.log.entries.find(
      (x: any) => /\/api\/\w+\/\d+$/.test(x.request.url) && x.request.method === 'GET' && x.response.status === 200,
    );
    expect(e).toBeDefined();
    const body = JSON.parse(e.response.content.text);
    body.Id += 1000;
    e.response.content.text = JSON.stringify(body);
    const changed = withFile(o, 'traffic.har', Buffer.from(JSON.stringify(har, null, 1)));

    // the files changed after signing: the archive now disagrees with the signed statement
    const unsigned = path.join(tmp, 'har-changed.tar.gz');
    const original = unpackTarGz(fs.readFileSync(faulty));
    fs.writeFileSync(
      unsigned,
      repackWithEnvelope(
        changed.files,
        original.find((f) => f.name === ENVELOPE_FILE)!,
      ),
    );
    const v = verifyBundle(unsigned, vendorKey());
    expect(check(v, 'signature')?.status).toBe('ok');
    expect(check(v, 'files')).toMatchObject({ status: 'failed' });
    expect(check(v, 'files')?.detail).toContain("traffic.har was changed (its SHA-256 is not the statement's)");

    // re-signed by the vendor: the digests hold, the traffic contradicts the results
    const v2 = verifyBundle(pack('har-resigned', changed), vendorKey());
    expect(failed(v2)).toEqual(['traffic vs passed']);
    expect(check(v2, 'traffic vs passed')?.detail).toMatch(
      /results.json calls passed: REC-001: 1 judgement\(s\) of single_read_envelope, first: expected .*Domain .* \(traffic.har#\d+\)$/,
    );
  });

  it('a file removed is named', () => {
    const o = open(faulty);
    const original = unpackTarGz(fs.readFileSync(faulty));
    const file = path.join(tmp, 'removed.tar.gz');
    fs.writeFileSync(
      file,
      repackWithEnvelope(
        o.files.filter((f) => f.name !== 'report.html'),
        original.find((f) => f.name === ENVELOPE_FILE)!,
      ),
    );
    const v = verifyBundle(file, vendorKey());
    expect(check(v, 'files')).toMatchObject({ status: 'failed', detail: 'report.html is missing' });
    expect(v.exitCode).toBe(EXIT.failed);
  });

  it('a bundle signed by another key is named as such (the lines verify-bundle prints, exit 1)', () => {
    const v = verifyBundle(pack('other-key', open(faulty), keys.other.privateKey), {
      publicKey: loadPublicKey(pem('vendor', 'publicKey')),
    });
    const lines = verificationLines(v).join('\n');
    expect(v.exitCode).toBe(1);
    expect(lines).toMatch(/^FAIL signature: signed by another key: keyid [0-9a-f]{64}, not the key given/m);
    expect(lines).toMatch(/^ok {3}files: /m);
    expect(lines).toMatch(/^NOT VERIFIED \(exit 1\): signature$/m);
    // without a key the signature is said to be unchecked; an unsigned bundle says so
    const unsigned = verifyBundle(pack('unsigned', open(faulty), null));
    expect(check(unsigned, 'signature')).toMatchObject({ status: 'note', detail: expect.stringMatching(/UNSIGNED/) });
    expect(check(verifyBundle(pack('unsigned2', open(faulty), null), vendorKey()), 'signature')?.detail).toMatch(
      /^the bundle is UNSIGNED/,
    );
  });

  it('a bundle from an older suite release is named as such, not as tampering (exit 4)', () => {
    const o = open(faulty);
    // what release 0.1.0 would have written: its version in the statement and in results.json
    const r = { ...o.results, suiteVersion: '0.1.0' };
    const older = withFile(o, 'results.json', Buffer.from(JSON.stringify(r, null, 2)));
    older.predicate = { ...o.predicate, suite: { ...o.predicate.suite, version: '0.1.0' } };
    const v = verifyBundle(pack('older', older), vendorKey());
    expect(check(v, 'suite release')).toMatchObject({
      status: 'release',
      detail: expect.stringMatching(
        /^made by suite 0\.1\.0, verified by \d+\.\d+\.\d+: another release \(not tampering\)/,
      ),
    });
    expect(failed(v)).toEqual([]);
    expect(v.exitCode).toBe(4);

    // the version edited in the statement alone: results.json names another release, and that is said
    const edited = { ...o, predicate: older.predicate };
    const v2 = verifyBundle(pack('older-edited', edited), vendorKey());
    expect(check(v2, 'results')?.detail).toMatch(/results.json names suite .* the statement suite 0\.1\.0/);
  });
});

/** The archive of `files` with the envelope as it was: the files changed after signing, as a hand edit would. */
function repackWithEnvelope(files: ArchiveFile[], env: ArchiveFile): Buffer {
  return packTarGz([...files, env], new Date(0));
}
