// The digests a bundle names: SHA-256 of a file's bytes, of the three spec files that define what
// the suite judges, and of the suite package itself.
//
// The suite package digest (the statement's `suite.packageDigest`), defined so that anyone can
// compute it again with coreutils from an installed package or a checkout:
//   the files: every regular file under the entries of package.json `files`, except `dist/` (the
//   CLI's esbuild bundle, built from conformance/src, which is counted), names beginning with `.`
//   and `node_modules/`; package.json itself is not counted (npm may rewrite it when packing; the
//   version is named on its own);
//   the digest: SHA-256 of the lines `<sha256 of the file, hex>  <path from the package root, />\n`,
//   sorted by path (byte order): what `sha256sum` prints, so the coreutils pipeline of
//   conformance/README.md (section 9.1, "Signed conformance bundles") gives it again.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../paths.js';

export function sha256(data: Buffer | string): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** The spec files whose digests a bundle names, as paths from the package root. */
const SPEC_FILES = ['spec/openapi.yaml', 'spec/requirements.yaml', 'spec/provider-states.yaml'] as const;

/** SHA-256 of each spec file of the suite installed at `root`. */
export function specDigests(root = ROOT): Record<string, string> {
  return Object.fromEntries(SPEC_FILES.map((f) => [f, sha256(fs.readFileSync(path.join(root, f)))]));
}

const LEFT_OUT = /^(dist\/|node_modules\/)|(^|\/)(\.[^/]*|node_modules)(\/|$)/;

/** The files the package digest counts (see the top of this file), sorted by path. */
function packageFiles(root = ROOT): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { files?: string[] };
  const out = new Set<string>();
  const walk = (rel: string): void => {
    if (LEFT_OUT.test(rel)) return;
    let st: fs.Stats;
    try {
      st = fs.statSync(path.join(root, rel));
    } catch {
      return; // an entry this copy does not hold (e.g. dist/ before the first build)
    }
    if (st.isDirectory()) for (const n of fs.readdirSync(path.join(root, rel))) walk(`${rel}/${n}`);
    else if (st.isFile() && rel !== 'package.json') out.add(rel);
  };
  for (const entry of pkg.files ?? []) walk(entry.replace(/\/+$/, ''));
  return [...out].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The suite package digest (see the top of this file) and how many files it counts. */
export function packageDigest(root = ROOT): { sha256: string; files: number } {
  const files = packageFiles(root);
  const lines = files.map((f) => `${sha256(fs.readFileSync(path.join(root, f)))}  ${f}\n`).join('');
  return { sha256: sha256(lines), files: files.length };
}
