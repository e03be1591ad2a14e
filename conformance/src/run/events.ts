// The typed progress events of a conformance run (runConformance's `onEvent` hook): what a caller
// in code (the bench, a vendor's dashboard) reads instead of the log lines, which are for people
// and may change. `atMs` is the time since runConformance was called (performance.now()).
import type { TestOutcome } from '../report/results.js';
import type { TargetPhase } from '../targets/target.js';

export type { TargetPhase };

export type RunEvent =
  /** the options are resolved; the target is about to start */
  | { type: 'run-started'; atMs: number; seed: number; target: string }
  /** a step of the target's start began (not every target has them) */
  | { type: 'target-phase'; atMs: number; phase: TargetPhase }
  /** the target answers its health check */
  | { type: 'target-ready'; atMs: number; kind: string; baseUrl: string }
  /** the test runner starts (again for the service-wide phase and each retry round) */
  | { type: 'suite-started'; atMs: number; round: 'main' | 'retry' }
  /** one test has its outcome (the one the report gives it) */
  | { type: 'test-finished'; atMs: number; id: string; file: string; outcome: TestOutcome; durationMs: number }
  /** the results are final (reports written when asked for); the target is stopped next */
  | { type: 'run-finished'; atMs: number; verdict: string; exitCode: number }
  /** the target is stopped: the call returns or rejects next */
  | { type: 'target-stopped'; atMs: number };

export type RunEventType = RunEvent['type'];

/** The events of one type (e.g. `EventOf<'test-finished'>`). */
export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
