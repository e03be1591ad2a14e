// The conformance CLI and the reference server from esbuild bundles, made ready once per mutation
// run. The run starts ~180 CLI processes and as many servers; through tsx each one spends most of
// its start-up in the TypeScript loader (measured on this 2-core machine: a one-file fault run took
// 2.8 s of CPU through tsx, 1.7 s from the bundle; a server start 0.45 s against 0.17 s). The CLI's
// bundle is the one `conformance` itself starts from (conformance/bin/cli-bundle.mjs): built here
// when stale so that the first runs do not all build it at once. Packages stay external
// (node_modules is beside them) and the bundles live in dist/, one level below the root, so
// spec/paths.ts finds the repository root from them exactly as from the sources.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../../spec/paths.js';
import { cliBundleIsFresh, buildCliBundle } from '../bin/cli-bundle.mjs';

const SERVER_ENTRY = 'reference-server/src/main.ts';

export interface RunBundles {
  /** `node <reference> --port ...`: the reference server command. (The conformance command stays
   * conformance/bin/conformance.mjs: it starts from its own bundle, made fresh here.) */
  reference: string;
}

/** Builds dist/faults-reference-server.mjs from the sources now, and the CLI's bundle if stale. */
export async function buildRunBundles(): Promise<RunBundles> {
  const dist = path.join(ROOT, 'dist');
  fs.mkdirSync(dist, { recursive: true });
  const reference = path.join(dist, 'faults-reference-server.mjs');
  await Promise.all([
    cliBundleIsFresh() ? undefined : buildCliBundle(),
    build({
      stdin: {
        contents: `import { main } from './${SERVER_ENTRY}';\nawait main(process.argv);\n`,
        resolveDir: ROOT,
        loader: 'ts',
        sourcefile: 'faults-reference-server-entry.ts',
      },
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile: reference,
      logLevel: 'warning',
    }),
  ]);
  return { reference };
}
