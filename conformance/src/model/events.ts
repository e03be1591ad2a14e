// The progress of one run as typed events (runConformance's `onEvent` hook, run-conformance.ts): a
// caller in code (the bench, a vendor's own harness) follows a run by these, never by its log text.
// Times are milliseconds from the run's start (`run-started`), measured on the runner's clock.
import type { Profile } from './context.js';
import type { TestOutcome, Verdict } from './outcome.js';

/** The phases a run passes through, in order; `retries` only with --retries and a test that timed out. */
export type RunPhase = 'target-start' | 'suite' | 'retries' | 'results' | 'target-stop';

export type ProgressEvent =
  /** The options are valid and the target is about to start. */
  | { type: 'run-started'; seed: number; profile: Profile; target: string }
  /** A phase ended: when it began and how long it took. */
  | { type: 'phase'; phase: RunPhase; startMs: number; ms: number }
  /**
   * A test of this run began (not sent for a test that is not-applicable before it runs: left out
   * by the profile, the selection or --read-only). `retry`: the retry round (--retries), absent in
   * the run itself.
   */
  | { type: 'test-started'; id: string; file: string; retry?: number }
  /**
   * A test of this run ended with this outcome (the one the reports give it; a test of a requirement
   * the profile or selection leaves out ends not-applicable and is in no requirement of the results).
   */
  | { type: 'test-finished'; id: string; file: string; outcome: TestOutcome; durationMs: number; retry?: number }
  /** The results are complete (and written, when the run writes reports); the target is stopped. */
  | { type: 'run-finished'; verdict: Verdict; exitCode: number; ms: number };

/** Where a run sends its events (default: nowhere). */
export type ProgressListener = (event: ProgressEvent) => void;
