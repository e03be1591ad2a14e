// What the CLI hands to the test workers (vitest `provide` / `inject('conformance')`).
import type {} from 'vitest';
import type { Bindings } from './bindings.js';
import { defaultBindings } from './bindings.js';
import { DEFAULT_ABSENCE_FACTOR, DEFAULT_ABSENCE_FLOOR_S, envOption, fieldsMarked, PROFILES } from './options.js';

export { splitList } from './options.js';

/** The level of a requirement (requirements.yaml `level:`); a profile selects one or both. */
export type RequirementLevel = 'core' | 'implementation-defined';
export type Profile = (typeof PROFILES)[number];
export type TargetKind = 'container' | 'local-process' | 'url';

export interface FixtureEntry {
  state: string;
  params?: Record<string, unknown>;
  values: Record<string, unknown>;
}

export interface RunContext {
  baseUrl: string;
  /** Provider-state endpoint (Pact v3); absent when fixtures are used. */
  stateUrl?: string;
  /** Fixture entries (from `--fixtures FILE`), used instead of the state endpoint. */
  fixtures?: FixtureEntry[];
  /**
   * The provider-state protocol version the endpoint implements, when the run was told
   * (--provider-states-protocol, or `protocol:` of the fixtures file); else the endpoint's answers say.
   */
  providerStatesProtocol?: string;
  profile: Profile;
  /** Requirement selection: ID prefixes (empty = all). */
  requirements: string[];
  readOnly: boolean;
  /** Per-request timeout in ms. */
  timeoutMs: number;
  /** --async-timeout: deadline of t.poll and of t.expectStaysAbsent's longest wait (ms). */
  asyncTimeoutMs: number;
  /** --clock-tolerance: how far the target's clock may be from the runner's (ms). */
  clockToleranceMs: number;
  /** --absence-factor: absence is judged after this many times the accepted case's time (default 3). */
  absenceFactor?: number;
  /** --absence-floor: and never sooner than this many seconds (default 2). */
  absenceFloorS?: number;
  bindings: Bindings;
  /**
   * The phase of a phased run: 'main' runs every test but the service-wide ones, files in parallel;
   * 'service-wide' runs only those, one at a time. Absent: every test (plain vitest, collection).
   */
  phase?: 'main' | 'service-wide';
  /**
   * Collection only (coverage, list): unknown requirement IDs are recorded in task meta instead
   * of failing the collection.
   */
  collectOnly?: boolean;
  /** The seed of the generated (model-based) tests (--seed; the CLI always sets one). */
  seed?: number;
  /** recordHar: the directory the workers spool the run's exchanges to (suite-api/spool.ts). */
  harSpool?: string;
  /** --model-runs: sequences the core model-based test generates (default: its own, 8). */
  modelRuns?: number;
  /** --skip-shrink: a failing model-based test reports the first failing sequence, not shrunk. */
  skipShrink?: boolean;
  /**
   * Only these tests (by ID) run; every other test is left out of the run and its results, as if
   * not in the suite (a caller in code: the fault runner runs only the tests that call the
   * operations a fault rewrites). Absent: every selected test.
   */
  tests?: string[];
  /**
   * Set by a suite session (suite-session.ts), one per vitest run: a worker thread serves many runs
   * there, and what the suite keeps for a run (dsl.ts) is kept under it. Absent: one run per worker.
   */
  runId?: string;
}

/**
 * The window after which an effect a refused request must not have is judged absent: factor times
 * the accepted case's time (`neededMs`), at least the floor, at most --async-timeout.
 */
export function absenceWindowMs(
  neededMs: number,
  c: Pick<RunContext, 'absenceFactor' | 'absenceFloorS' | 'asyncTimeoutMs'>,
): number {
  const factor = c.absenceFactor ?? DEFAULT_ABSENCE_FACTOR;
  const floorMs = (c.absenceFloorS ?? DEFAULT_ABSENCE_FLOOR_S) * 1000;
  return Math.round(Math.min(Math.max(neededMs * factor, floorMs), c.asyncTimeoutMs));
}

declare module 'vitest' {
  interface ProvidedContext {
    conformance: RunContext;
  }
}

/**
 * Context used when a suite file runs without the CLI (plain vitest), from CONFORMANCE_* env vars,
 * each read and validated as a run reads it (the table in options.ts); the base URL defaults to a
 * reference server on port 8080.
 */
export function contextFromEnv(env: NodeJS.ProcessEnv = process.env): RunContext {
  const baseUrl = (envOption('baseUrl', env) ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const protocol = envOption('providerStatesProtocol', env);
  return {
    baseUrl,
    stateUrl: envOption('providerStatesUrl', env) ?? `${baseUrl}/_provider-states`,
    ...(protocol !== undefined ? { providerStatesProtocol: protocol } : {}),
    // every option row marked `context` (options.ts), from its variable or its default
    ...fieldsMarked('context', (key) => envOption(key, env)),
    bindings: defaultBindings,
  };
}

export function profileLevels(profile: Profile): RequirementLevel[] {
  return profile === 'all' ? ['core', 'implementation-defined'] : [profile];
}

/** A requirement ID matches a selection pattern by prefix (`SCHED-` or `SCHED-035`). */
export function matchesSelection(id: string, patterns: string[]): boolean {
  if (patterns.length === 0) return true;
  return patterns.some((p) => id === p || id.startsWith(p));
}

export interface TestRecordLike {
  requirements: string[];
  profile?: 'core' | 'implementation-defined';
  mutates?: boolean;
}

/**
 * Whether a test runs in this run; when not, why. A test outside the selection (another profile,
 * requirements not selected) is `notSelected`: no part of the run, counted apart on every surface
 * ("not selected"), never not-applicable. A test --read-only leaves out is selected and not-applicable.
 */
export function selectTest(
  rec: TestRecordLike,
  ctx: Pick<RunContext, 'profile' | 'requirements' | 'readOnly'>,
): { run: true } | { run: false; reason: string; notSelected?: true } {
  const profile = rec.profile ?? 'core';
  if (ctx.profile !== 'all' && ctx.profile !== profile) {
    return { run: false, notSelected: true, reason: `profile ${profile} not selected (--profile ${ctx.profile})` };
  }
  if (ctx.requirements.length > 0 && !rec.requirements.some((id) => matchesSelection(id, ctx.requirements))) {
    return {
      run: false,
      notSelected: true,
      reason: `requirements not selected (--requirements ${ctx.requirements.join(',')})`,
    };
  }
  if (ctx.readOnly && rec.mutates) {
    return { run: false, reason: 'mutating test left out by --read-only' };
  }
  return { run: true };
}
