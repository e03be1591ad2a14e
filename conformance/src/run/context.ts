// What the CLI hands to the test workers (vitest `provide` / `inject('conformance')`).
import type {} from 'vitest';
import type { Bindings } from '../suite-api/bindings.js';
import { defaultBindings } from '../suite-api/bindings.js';
import type { RequirementLevel } from '../spec/catalogue.js';

export type Profile = 'core' | 'implementation-defined' | 'all';
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
  /** recordHar: the directory the workers spool the run's exchanges to (traffic/spool.ts). */
  harSpool?: string;
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
 * Defaults of --absence-factor and --absence-floor: an effect a refused request must not have is
 * judged absent after this many times as long as the accepted case took to show it, and never
 * sooner than the floor (seconds). A real queue may run a rejected job later than an accepted one
 * (other work ahead of it, retries), so the accepted case's time alone is too short a window.
 */
export const DEFAULT_ABSENCE_FACTOR = 3;
export const DEFAULT_ABSENCE_FLOOR_S = 2;

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

/** Context used when a suite file runs without the CLI (plain vitest), from CONFORMANCE_* env vars. */
export function contextFromEnv(env: NodeJS.ProcessEnv = process.env): RunContext {
  const baseUrl = (env.CONFORMANCE_BASE_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  return {
    baseUrl,
    stateUrl: env.CONFORMANCE_PROVIDER_STATES_URL ?? `${baseUrl}/_provider-states`,
    ...(env.CONFORMANCE_PROVIDER_STATES_PROTOCOL
      ? { providerStatesProtocol: env.CONFORMANCE_PROVIDER_STATES_PROTOCOL }
      : {}),
    profile: (env.CONFORMANCE_PROFILE as Profile) ?? 'core',
    requirements: env.CONFORMANCE_REQUIREMENTS ? splitList(env.CONFORMANCE_REQUIREMENTS) : [],
    readOnly: env.CONFORMANCE_READ_ONLY === '1' || env.CONFORMANCE_READ_ONLY === 'true',
    timeoutMs: Number(env.CONFORMANCE_TIMEOUT ?? 10_000),
    asyncTimeoutMs: Number(env.CONFORMANCE_ASYNC_TIMEOUT ?? 60_000),
    clockToleranceMs: Number(env.CONFORMANCE_CLOCK_TOLERANCE ?? 50 * 60_000),
    absenceFactor: env.CONFORMANCE_ABSENCE_FACTOR !== undefined ? Number(env.CONFORMANCE_ABSENCE_FACTOR) : undefined,
    absenceFloorS: env.CONFORMANCE_ABSENCE_FLOOR !== undefined ? Number(env.CONFORMANCE_ABSENCE_FLOOR) : undefined,
    bindings: defaultBindings,
    seed:
      env.CONFORMANCE_SEED !== undefined && /^-?\d+$/.test(env.CONFORMANCE_SEED)
        ? Number(env.CONFORMANCE_SEED)
        : undefined,
    skipShrink: env.CONFORMANCE_SKIP_SHRINK === '1' || env.CONFORMANCE_SKIP_SHRINK === 'true',
  };
}

export function splitList(s: string): string[] {
  return s
    .split(/[,\s]+/)
    .map((x) => x.trim())
    .filter(Boolean);
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

/** Whether a test runs in this run; when not, why (its result is then not-applicable). */
export function selectTest(
  rec: TestRecordLike,
  ctx: Pick<RunContext, 'profile' | 'requirements' | 'readOnly'>,
): { run: true } | { run: false; reason: string } {
  const profile = rec.profile ?? 'core';
  if (ctx.profile !== 'all' && ctx.profile !== profile) {
    return { run: false, reason: `profile ${profile} not selected (--profile ${ctx.profile})` };
  }
  if (ctx.requirements.length > 0 && !rec.requirements.some((id) => matchesSelection(id, ctx.requirements))) {
    return { run: false, reason: `requirements not selected (--requirements ${ctx.requirements.join(',')})` };
  }
  if (ctx.readOnly && rec.mutates) {
    return { run: false, reason: 'mutating test left out by --read-only' };
  }
  return { run: true };
}
