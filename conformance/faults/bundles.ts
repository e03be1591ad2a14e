// The conformance CLI and the reference server as two esbuild bundles, built once per mutation
// run. The run starts ~180 CLI processes and as many servers; through tsx each one spends most of
// its start-up in the TypeScript loader (measured on this 2-core machine: a one-file fault run took
// 2.8 s of CPU through tsx, 1.7 s from the bundle; a server start 0.45 s against 0.17 s). Packages
// stay external (node_modules is beside them) and the bundles live in dist/, one level below the
// root, so spec/paths.ts finds the repository root from them exactly as from the sources.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { ROOT } from '../../spec/paths.js';

/** What the bundles run: the same entry points as conformance/bin and reference-server/bin. */
const CLI_ENTRY = 'conformance/src/cli/main.ts';
const SERVER_ENTRY = 'reference-server/src/main.ts';

export interface RunBundles {
  /** `node <conformance> run ...`: the conformance command. */
  conformance: string;
  /** `node <reference> --port ...`: the reference server command. */
  reference: string;
}

async function bundle(entry: string, run: string, outfile: string): Promise<void> {
  if (!fs.existsSync(path.join(ROOT, entry))) throw new Error(`bundle entry not found: ${entry}`);
  await build({
    stdin: {
      contents: `import { main } from './${entry}';\n${run}\n`,
      resolveDir: ROOT,
      loader: 'ts',
      sourcefile: `${path.basename(outfile)}-entry.ts`,
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
}

/** Builds dist/faults-conformance.mjs and dist/faults-reference-server.mjs from the sources now. */
export async function buildRunBundles(): Promise<RunBundles> {
  const dist = path.join(ROOT, 'dist');
  fs.mkdirSync(dist, { recursive: true });
  const out = {
    conformance: path.join(dist, 'faults-conformance.mjs'),
    reference: path.join(dist, 'faults-reference-server.mjs'),
  };
  await Promise.all([
    // as conformance/bin/conformance.mjs: exit when main is done (vitest and testcontainers may keep handles)
    bundle(CLI_ENTRY, 'process.exit(await main(process.argv));', out.conformance),
    bundle(SERVER_ENTRY, 'await main(process.argv);', out.reference),
  ]);
  return out;
}
