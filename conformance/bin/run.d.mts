// Types of the package export "./run" (conformance/bin/run.mjs).
export {
  runConformance,
  type ConformanceOptions,
  type EventOf,
  type RunEvent,
  type RunEventType,
  type RunHooks,
  type RunResults,
  type TargetPhase,
} from '../src/run/run-conformance.js';
export { compareConformance, type CompareRequest, type CompareOutcome } from '../src/compare/index.js';
