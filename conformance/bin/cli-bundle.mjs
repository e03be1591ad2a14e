// The conformance CLI as one esbuild bundle, dist/conformance-cli.mjs, built from conformance/src
// whenever it is missing or older than any file it was built from (the list esbuild reports is kept
// beside it). Started from the bundle, the CLI is ready after about 0.4 s of CPU; through tsx's
// TypeScript loader it took 1.3 s, at every `conformance` command and at each of the mutation run's
// ~180 runs. Packages stay external (node_modules is beside the bundle), and the bundle lives in
// dist/, one level below the root, so spec/paths.ts finds the root from it as from the sources.
// The npm package ships the bundle (built by `prepack`); its files all carry one time, so it is
// fresh there and nothing is written into node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ENTRY = 'conformance/src/cli/main.ts';
export const CLI_BUNDLE = path.join(ROOT, 'dist', 'conformance-cli.mjs');
/** The files the bundle was built from, relative to the root (esbuild's metafile inputs). */
const INPUTS = path.join(ROOT, 'dist', 'conformance-cli.inputs.json');

/** Whether the bundle exists and no file it was built from changed after it was built. */
export function cliBundleIsFresh() {
  let builtAt;
  let inputs;
  try {
    builtAt = fs.statSync(CLI_BUNDLE).mtimeMs;
    inputs = JSON.parse(fs.readFileSync(INPUTS, 'utf8'));
  } catch {
    return false;
  }
  if (!Array.isArray(inputs) || inputs.length === 0) return false;
  for (const file of inputs) {
    try {
      if (fs.statSync(path.join(ROOT, file)).mtimeMs > builtAt) return false;
    } catch {
      return false; // a source was removed or renamed
    }
  }
  return true;
}

/** Builds the bundle from the sources now. Several processes may build at once: each writes its
 * own temporary files and renames them into place, so a reader never sees half a bundle. */
export async function buildCliBundle() {
  const { build } = await import('esbuild');
  const startedAt = new Date();
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
  // dated when the build started: a source saved during the build is newer, and triggers the next one
  fs.utimesSync(tmp, startedAt, startedAt);
  const inputsTmp = `${INPUTS}.${process.pid}.tmp`;
  fs.writeFileSync(inputsTmp, JSON.stringify(Object.keys(result.metafile.inputs).sort(), null, 1) + '\n');
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
  process.stdout.write(`built ${path.relative(ROOT, await buildCliBundle())}\n`);
}
