// Types of the package export "./run" (conformance/bin/run.mjs).
export {
  runConformance,
  type ConformanceOptions,
  type ProgressEvent,
  type RunHooks,
  type RunPhase,
  type RunResults,
} from '../src/run/run-conformance.js';
export { compareConformance, type CompareRequest, type CompareOutcome } from '../src/compare/index.js';
