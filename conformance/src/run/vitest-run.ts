// Builds the vitest configuration of a conformance run (the root vitest.config.ts is NOT used:
// the suite runs only through the CLI, after a target was started) and runs or collects the suite.
import { createVitest, type Reporter, type TestModule, type Vitest } from 'vitest/node';
import type { SerializedError } from 'vitest';
import path from 'node:path';
import { ROOT, SUITE_GLOB } from '../paths.js';
import type { RunContext } from '../model/context.js';
import { DEFAULT_CONCURRENCY, MAX_WORKERS, TESTS_PER_FILE } from '../model/options.js';
import { LongChainsFirst } from './file-order.js';
import { failureFormat } from './failure-format.js';

/** A suite session (suite-session.ts openSuiteSession): one vitest instance and its worker threads
 * serving run after run. */
export interface SuiteSession {
  /** One vitest run (one phase) of the suite on the session's instance for this configuration. */
  runOnce(o: SuiteRunOptions): Promise<SuiteRunResult>;
  /** Ends every instance and its threads. */
  close(): Promise<void>;
  /** vitest instances and worker threads started so far, runs done (to see that they are reused). */
  stats(): { instances: number; threads: number; runs: number };
}

export interface SuiteRunOptions {
  ctx: RunContext;
  reporters: Array<Reporter | string>;
  testTimeoutMs?: number;
  shard?: string;
  bail?: number;
  /** Extra file filters (substring of the path). */
  filters?: string[];
  include?: string[];
  maxWorkers?: number;
  /** Most tests in flight at once in the whole run (--concurrency; default DEFAULT_CONCURRENCY).
   * 1 runs every test on its own, one file per worker at a time, as before. */
  concurrency?: number;
  /** Called with the vitest instance as soon as it exists (to cancel it on SIGINT). */
  onVitest?: (v: Vitest) => void;
  /** Run on this session's vitest instance and threads (suite-session.ts) instead of a new one;
   * not for a sharded run or one with file filters. */
  session?: SuiteSession;
}

/** Workers (vitest worker threads, one suite file each at a time) and tests in flight per file:
 * TESTS_PER_FILE tests per file and as many workers as it takes to reach `concurrency` (the default
 * 16: 4 workers), up to MAX_WORKERS; beyond that, more tests per file (128: 8 workers, 16 tests
 * each). `maxWorkers` fixes the workers (the fault runner: one per run). */
export function concurrencyPlan(concurrency: number, maxWorkers?: number) {
  const n = Math.max(1, Math.floor(concurrency));
  const workers = Math.max(
    1,
    maxWorkers ?? (Number(process.env.CONFORMANCE_MAX_WORKERS) || Math.min(MAX_WORKERS, Math.ceil(n / TESTS_PER_FILE))),
  );
  return { workers, perFile: Math.max(1, Math.ceil(n / workers)) };
}

export function suiteConfig(o: SuiteRunOptions) {
  const plan = concurrencyPlan(o.concurrency ?? DEFAULT_CONCURRENCY, o.maxWorkers);
  return {
    config: false as const,
    root: ROOT,
    include: o.include ?? [SUITE_GLOB],
    watch: false,
    reporters: o.reporters,
    provide: { conformance: o.ctx },
    // Worker threads start faster than forked processes. `npm run bench` on 2 cores: the full core
    // run took 13-17 s with forks, 10-12 s with threads (one test at a time per file then). The
    // workers follow --concurrency (concurrencyPlan). CONFORMANCE_POOL=forks and
    // CONFORMANCE_MAX_WORKERS=<n> override both (for such measurements).
    pool: (process.env.CONFORMANCE_POOL === 'forks' ? 'forks' : 'threads') as 'threads',
    // One module instance per worker for all the files it runs: the OpenAPI document and the
    // compiled response validators are built once per worker instead of once per file (the full
    // run: ~18 s of CPU with isolation, ~14 s without). The harness keeps no file state that
    // another file could see (dsl.ts tears the admin user down per file). CONFORMANCE_ISOLATE=1
    // restores a fresh module graph per file.
    isolate: process.env.CONFORMANCE_ISOLATE === '1',
    maxWorkers: plan.workers,
    fileParallelism: true,
    testTimeout: o.testTimeoutMs ?? 60_000,
    hookTimeout: Math.max(o.testTimeoutMs ?? 60_000, 30_000),
    teardownTimeout: 30_000,
    shard: o.shard,
    bail: o.bail,
    passWithNoTests: false,
    // The tests of a file run concurrently (each sets up its own provider states, so they are
    // independent), at most plan.perFile at a time. A `describe.sequential` block (the tests that
    // flip a service-wide setting) still runs alone: vitest runs it after the concurrent tests
    // before it have finished and before any after it start.
    sequence: { concurrent: plan.perFile > 1, sequencer: LongChainsFirst },
    maxConcurrency: plan.perFile,
    // the suite prints nothing worth keeping in CI logs; failures are in the reports
    silent: 'passed-only' as const,
    // a failure message shows the values that decided it, whole, within a bound (failure-format.ts)
    ...failureFormat,
    cache: false as const,
    // CONFORMANCE_FS_CACHE=1 (the project's own tests set it: they start dozens of runs): vitest
    // keeps the suite's transformed modules on disk (node_modules/.experimental-vitest-cache) for
    // the next run, about 1 CPU-s of each run's start. Off by default: a vendor's run writes nothing
    // outside its report directory.
    ...(process.env.CONFORMANCE_FS_CACHE === '1' ? { experimental: { fsModuleCache: true } } : {}),
  };
}

/** A session runs the whole suite or named files of it (its instance globs SUITE_GLOB once): not a
 * shard, file filters, include globs or files outside the suite. */
export function sessionCanRun(o: Pick<SuiteRunOptions, 'shard' | 'filters' | 'include'>): boolean {
  const suiteDir = path.join(ROOT, 'conformance/suite') + path.sep;
  return (
    !o.shard &&
    !o.filters?.length &&
    (o.include ?? []).every((f) => !/[*?[\]{}!]/.test(f) && path.resolve(ROOT, f).startsWith(suiteDir))
  );
}

export interface SuiteRunResult {
  testModules: ReadonlyArray<TestModule>;
  unhandledErrors: ReadonlyArray<unknown>;
}

/** One vitest run of the suite on an instance of its own; the reporters receive everything. */
async function runOnceAlone(o: SuiteRunOptions): Promise<SuiteRunResult> {
  const vitest = await createVitest('test', suiteConfig(o) as any);
  o.onVitest?.(vitest);
  try {
    const r = await vitest.start(o.filters);
    return r;
  } finally {
    await vitest.close();
  }
}

/**
 * Runs the suite in two phases (docs/architecture.md, isolation): 'main' runs every test except the
 * service-wide ones (those that change a setting of the whole service), files in parallel; then
 * 'service-wide' runs only those, one file at a time and one test at a time (dsl.ts marks them
 * sequential in that phase), so no other test ever sees a setting they changed. The service-wide
 * runs take the main phase's configuration: on a session they reuse its vitest instance and its
 * threads, with the suite's modules loaded, instead of starting a thread of their own (0.6 s of a
 * 9 s core run against the container). The reporters see 1 + one run per file
 * (ConformanceReporter.finish() ends them).
 */
export async function runSuite(o: SuiteRunOptions): Promise<SuiteRunResult> {
  const session = sessionCanRun(o) ? o.session : undefined;
  const runOnce = session ? (x: SuiteRunOptions) => session.runOnce(x) : runOnceAlone;
  const main = await runOnce({ ...o, ctx: { ...o.ctx, phase: 'main' } });
  const out = { testModules: [...main.testModules], unhandledErrors: [...main.unhandledErrors] };
  for (const file of serviceWideFiles(main.testModules)) {
    const settings = await runOnce({
      ...o,
      ctx: { ...o.ctx, phase: 'service-wide' },
      include: [file],
      filters: undefined,
      shard: undefined, // the main phase already kept only this shard's files
    });
    out.testModules.push(...settings.testModules);
    out.unhandledErrors.push(...settings.unhandledErrors);
  }
  return out;
}

/** The suite files (relative to the root) holding a service-wide test that the main phase deferred. */
function serviceWideFiles(modules: ReadonlyArray<TestModule>): string[] {
  const out = new Set<string>();
  for (const m of modules) {
    for (const t of m.children.allTests()) {
      const meta = t.meta() as { serviceWide?: boolean; otherPhase?: boolean; skipReason?: string };
      if (meta.serviceWide && meta.otherPhase && !meta.skipReason) out.add(path.relative(ROOT, m.moduleId));
    }
  }
  return [...out].sort();
}

/** Collects the suite (runs the files' top level, not the tests): tests with their task meta. */
export async function collectSuite(o: Omit<SuiteRunOptions, 'reporters'>): Promise<SuiteRunResult> {
  // forks here: with threads the order of the collected files (and so of reports/coverage.md) varied
  // from run to run; collection is not timed
  const vitest = await createVitest('test', {
    ...suiteConfig({ ...o, ctx: { ...o.ctx, collectOnly: true }, reporters: [] }),
    pool: 'forks',
    isolate: true,
    silent: true,
  } as any);
  o.onVitest?.(vitest);
  try {
    const r = await vitest.collect(o.filters);
    return { testModules: r.testModules, unhandledErrors: r.unhandledErrors as SerializedError[] };
  } finally {
    await vitest.close();
  }
}
