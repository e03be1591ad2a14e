// The package export "./run": runConformance(options, hooks) -> Promise<RunResults>, a conformance
// run as a library call (conformance/src/run/run-conformance.ts; conformance/README.md, "From your
// own code"), and compareConformance(request), `conformance compare` as one (src/compare/).
// Loaded from the CLI's bundle, or through tsx where no bundle can be built.
import { pathToFileURL } from 'node:url';
import { freshCliBundle } from './cli-bundle.mjs';

const bundle = process.env.CONFORMANCE_NO_BUNDLE === '1' ? undefined : await freshCliBundle();
let lib;
let compareLib;
if (bundle) {
  lib = await import(pathToFileURL(bundle).href);
  compareLib = lib;
} else {
  const { register } = await import('tsx/esm/api');
  register();
  lib = await import('../src/run/run-conformance.ts');
  compareLib = await import('../src/compare/index.ts');
}
export const runConformance = lib.runConformance;
// compareConformance(request) -> CompareOutcome: `conformance compare` as a library call
export const compareConformance = compareLib.compareConformance;
