#!/usr/bin/env node
// The `conformance` command: conformance/src/cli/main.ts, started from its esbuild bundle (built
// again whenever a source changed: cli-bundle.mjs), or through tsx where no bundle can be built
// or CONFORMANCE_NO_BUNDLE=1 asks for the sources.
import { pathToFileURL } from 'node:url';
import { freshCliBundle } from './cli-bundle.mjs';

const bundle = process.env.CONFORMANCE_NO_BUNDLE === '1' ? undefined : await freshCliBundle();
let main;
if (bundle) {
  ({ main } = await import(pathToFileURL(bundle).href));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
const code = await main(process.argv);
// testcontainers and vitest may keep handles open; the run is over.
process.exit(code);
