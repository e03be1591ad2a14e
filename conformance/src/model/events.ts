// The progress of one run as typed events (runConformance's `onEvent` hook, run-conformance.ts): a
// caller in code (the bench, a vendor's own harness) follows a run by these, never by its log text,
// which is for people and may change. Each event is sent when its moment comes, so a listener can
// time the phases as they happen; `atMs` is the time since runConformance was called
// (performance.now() of the runner).
import type { Profile } from './context.js';
import type { TestOutcome, Verdict } from './outcome.js';

/** A step of starting a target that takes time of its own: the reference image checked (its build
 * inputs hashed; build.sh run when they changed), a container started (until it answers its
 * health check). A local process or a URL has none. */
export type TargetPhase = 'image-check' | 'container-start';

type Event =
  /** The options are valid and the target is about to start. */
  | { type: 'run-started'; seed: number; profile: Profile; target: string }
  /** A step of the target's start began. */
  | { type: 'target-phase'; phase: TargetPhase }
  /** The target answers its health check. */
  | { type: 'target-ready'; kind: string; baseUrl: string }
  /** The test runner starts: the run itself, or a retry round (--retries) of tests that timed out. */
  | { type: 'suite-started'; round: 'main' | 'retry' }
  /**
   * A test of this run began (not sent for a test that is not-applicable before it runs: left out
   * by the profile, the selection or --read-only). `retry`: the retry round, absent in the run itself.
   */
  | { type: 'test-started'; id: string; file: string; retry?: number }
  /** A test of this run ended with this outcome (the one the reports give it). */
  | { type: 'test-finished'; id: string; file: string; outcome: TestOutcome; durationMs: number; retry?: number }
  /** The results are final (and written, when the run writes reports); the target is stopped next. */
  | { type: 'run-finished'; verdict: Verdict; exitCode: number }
  /** The target is stopped: runConformance returns (or rejects) next. */
  | { type: 'target-stopped' };

/** One event of a run, with its time. */
export type ProgressEvent = Event & { atMs: number };

/** An event as a part of the run sends it; the run adds `atMs`. */
export type ProgressEventBody = Event;

/** Where a run sends its events (default: nowhere). A listener that throws does not break the run. */
export type ProgressListener = (event: ProgressEvent) => void;
