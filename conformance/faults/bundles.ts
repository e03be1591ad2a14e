// The reference server from an esbuild bundle, made ready once per mutation run. The run starts
// ~200 servers; through tsx each one spends most of its start-up in the TypeScript loader (measured
// on this 2-core machine: a server start took 0.45 s of CPU through tsx, 0.17 s from the bundle).
// Packages stay external (node_modules is beside it) and the bundle lives in dist/, one level below
// the root, so spec/paths.ts finds the repository root from it exactly as from the sources. (The
// suite runs in the runner's own process, through the library: no bundle of the CLI is needed.)
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../../spec/paths.js';

const SERVER_ENTRY = 'reference-server/src/main.ts';

export interface RunBundles {
  /** `node <reference> --port ...`: the reference server command. */
  reference: string;
}

/** Builds dist/faults-reference-server.mjs from the sources now. */
export async function buildRunBundles(): Promise<RunBundles> {
  const dist = path.join(ROOT, 'dist');
  fs.mkdirSync(dist, { recursive: true });
  const reference = path.join(dist, 'faults-reference-server.mjs');
  await build({
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
  });
  return { reference };
}
