// The reference servers' host (reference-server/src/host.ts) from an esbuild bundle, made ready once
// per mutation run. Through tsx a process spends most of its start-up in the TypeScript loader
// (measured on this 2-core machine: a server process start took 0.45 s of CPU through tsx, 0.17 s
// from a bundle). Packages stay external (node_modules is beside it) and the bundle lives in dist/,
// one level below the root, so spec/paths.ts finds the repository root from it exactly as from the
// sources. (The suite runs in the runner's own process, through the library: no bundle of the CLI
// is needed.) The host's entry is host.ts itself: it serves its protocol when it is the process's
// entry, which the bundle is.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../../spec/paths.js';

const HOST_ENTRY = 'reference-server/src/host.ts';

export interface RunBundles {
  /** `node <host>`: the host of the run's reference servers (runner/servers.ts). */
  host: string;
}

/** Builds dist/faults-reference-host.mjs from the sources now. */
export async function buildRunBundles(): Promise<RunBundles> {
  const dist = path.join(ROOT, 'dist');
  fs.mkdirSync(dist, { recursive: true });
  const host = path.join(dist, 'faults-reference-host.mjs');
  await build({
    entryPoints: [path.join(ROOT, HOST_ENTRY)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile: host,
    logLevel: 'warning',
  });
  return { host };
}
