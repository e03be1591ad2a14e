// Types of the package export "./run" (conformance/bin/run.mjs).
export {
  runConformance,
  type ConformanceOptions,
  type ProgressEvent,
  type ProgressListener,
  type RunHooks,
  type RunResults,
  type TargetPhase,
} from '../src/run/run-conformance.js';
export { compareConformance, type CompareRequest, type CompareOutcome } from '../src/compare/index.js';
