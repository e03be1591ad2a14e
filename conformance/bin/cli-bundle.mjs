// The conformance CLI as one esbuild bundle, dist/conformance-cli.mjs, built from conformance/src
// whenever it is missing or any file it was built from has changed: beside it, the list esbuild
// reports with each file's SHA-256. Started from the bundle, the CLI is ready after about 0.4 s of
// CPU; through tsx's TypeScript loader it took 1.3 s, at every `conformance` command and at each of
// the mutation run's ~180 runs. Checking the hashes reads ~55 small files (a few ms). Contents, not
// modification times: npm writes an installed package's files with the time of the install, and a
// git checkout with the time of the checkout. Packages stay external (node_modules is beside the
// bundle), and the bundle lives in dist/, one level below the root, so spec/paths.ts finds the root
// from it as from the sources. The npm package ships the bundle (built by `prepack`), so nothing is
// written into node_modules.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = 'conformance/src/cli/main.ts';
export const CLI_BUNDLE = path.join(ROOT, 'dist', 'conformance-cli.mjs');
/** The files the bundle was built from, relative to the root, with the SHA-256 of each. */
const INPUTS = path.join(ROOT, 'dist', 'conformance-cli.inputs.json');

function hashOf(file) {
  return createHash('sha256')
    .update(fs.readFileSync(path.join(ROOT, file)))
    .digest('hex');
}

/** Whether the bundle exists and every file it was built from still has the content it had. */
export function cliBundleIsFresh() {
  let inputs;
  try {
    if (!fs.existsSync(CLI_BUNDLE)) return false;
    inputs = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
  } catch {
    return false;
  }
  const files = Object.entries(inputs ?? {});
  if (files.length === 0) return false;
  try {
    return files.every(([file, hash]) => hashOf(file) === hash);
  } catch {
    return false; // a source was removed or renamed
  }
}

/** Builds the bundle from the sources now. Several processes may build at once: each writes its
 * own temporary files and renames them into place, so a reader never sees half a bundle. */
export async function buildCliBundle() {
  const { build } = await import('esbuild');
  const tmp = `${CLI_BUNDLE}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(CLI_BUNDLE), { recursive: true });
  const result = await build({
    entryPoints: [path.join(ROOT, ENTRY)],
    absWorkingDir: ROOT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: tmp,
    metafile: true,
    logLevel: 'warning',
  });
  // hashed right after the build: a source saved during the build (a fraction of a second) could
  // be recorded with its new content; the next save of any source rebuilds
  const hashes = Object.fromEntries(
    Object.keys(result.metafile.inputs)
      .sort()
      .map((file) => [file, hashOf(file)]),
  );
  const inputsTmp = `${INPUTS}.${process.pid}.tmp`;
  fs.writeFileSync(inputsTmp, JSON.stringify(hashes, null, 1) + '\n');
  fs.renameSync(inputsTmp, INPUTS);
  fs.renameSync(tmp, CLI_BUNDLE);
  return CLI_BUNDLE;
}

/** The bundle's path, built first when it is stale; undefined when it cannot be built here (no
 * esbuild, a read-only directory): the caller then runs the sources through tsx. */
export async function freshCliBundle() {
  if (cliBundleIsFresh()) return CLI_BUNDLE;
  if (!fs.existsSync(path.join(ROOT, ENTRY))) return fs.existsSync(CLI_BUNDLE) ? CLI_BUNDLE : undefined;
  try {
    return await buildCliBundle();
  } catch {
    return undefined;
  }
}

// `node conformance/bin/cli-bundle.mjs`: build it now (npm's prepack: the package ships it)
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // stderr: `npm pack --json` prints its JSON on stdout after this script
  process.stderr.write(`built ${path.relative(ROOT, await buildCliBundle())}\n`);
}
