// `conformance verify-bundle FILE [--public-key K]`: checks a bundle of `run --bundle` offline
// (bundle/verify.ts) and prints one line per check; the exit code is verify.ts VERIFY_EXIT.
import type { Command } from 'commander';
import { UsageError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import { loadPublicKey } from '../bundle/dsse.js';
import { VERIFY_EXIT, verifyBundle, type BundleVerification } from '../bundle/verify.js';
import { log } from './log.js';

const MARK = { ok: 'ok  ', failed: 'FAIL', release: 'REL ', note: 'NOTE' } as const;

/** The lines verify-bundle prints: one per check, then the verdict. */
export function verificationLines(v: BundleVerification): string[] {
  const verdict =
    v.exitCode === VERIFY_EXIT.ok
      ? 'VERIFIED (exit 0): every check held'
      : v.exitCode === VERIFY_EXIT.otherRelease
        ? 'NOT VERIFIED BY THIS RELEASE (exit 4): nothing contradicts the bundle, but another suite release made it'
        : `NOT VERIFIED (exit ${v.exitCode}): ${v.checks
            .filter((c) => c.status === 'failed')
            .map((c) => c.check)
            .join(', ')}`;
  return [...v.checks.map((c) => `${MARK[c.status]} ${c.check}: ${c.detail}`), verdict];
}

export function registerVerifyBundle(program: Command, onExit: (code: number) => void): void {
  program
    .command('verify-bundle')
    .description(
      'check a conformance bundle (`run --bundle`) offline: the signature, every file digest, the suite release and spec that judged, results.json against its own tests, and its recorded traffic judged again against the results. Exit 0 every check held, 1 a discrepancy (a changed or missing file, an edited result, traffic that contradicts the results, a bad, missing or other signature), 2 usage error (unreadable bundle or key), 3 internal error, 4 made by another suite release (verify with that release)',
    )
    .argument('<file>', 'the bundle (.tar.gz)')
    .option('--public-key <file>', "the vendor's Ed25519 public key (PEM) whose signature the bundle must carry")
    .action((file: string, opts: { publicKey?: string }) => onExit(verifyCommand(file, opts)));
}

function verifyCommand(file: string, opts: { publicKey?: string }): number {
  try {
    const publicKey = opts.publicKey ? loadPublicKey(opts.publicKey) : undefined;
    const v = verifyBundle(file, publicKey ? { publicKey } : {});
    process.stdout.write(`${verificationLines(v).join('\n')}\n`);
    return v.exitCode;
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError ? EXIT.usage : EXIT.harness;
  }
}
