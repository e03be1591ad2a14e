// Builds the vitest configuration of a conformance run (the root vitest.config.ts is NOT used:
// the suite runs only through the CLI, after a target was started) and runs or collects the suite.
import { createVitest, type Reporter, type TestModule, type Vitest } from 'vitest/node';
import type { SerializedError } from 'vitest';
import path from 'node:path';
import { ROOT, SUITE_GLOB } from './paths.js';
import type { RunContext } from './run-context.js';

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
  /** Called with the vitest instance as soon as it exists (to cancel it on SIGINT). */
  onVitest?: (v: Vitest) => void;
}

function suiteConfig(o: SuiteRunOptions) {
  return {
    config: false as const,
    root: ROOT,
    include: o.include ?? [SUITE_GLOB],
    watch: false,
    reporters: o.reporters,
    provide: { conformance: o.ctx },
    // Worker threads start faster than forked processes, and each file still runs isolated in a
    // fresh worker (the suite's per-file module state needs that). `npm run bench` on 2 cores: the
    // full core run took 13-17 s with forks, 10-12 s with threads; 2 workers beat 3 or 4 there.
    // CONFORMANCE_POOL=forks and CONFORMANCE_MAX_WORKERS=<n> override both (for such measurements).
    pool: (process.env.CONFORMANCE_POOL === 'forks' ? 'forks' : 'threads') as 'threads',
    maxWorkers: o.maxWorkers ?? (Number(process.env.CONFORMANCE_MAX_WORKERS) || 2),
    fileParallelism: true,
    testTimeout: o.testTimeoutMs ?? 60_000,
    hookTimeout: Math.max(o.testTimeoutMs ?? 60_000, 30_000),
    teardownTimeout: 30_000,
    shard: o.shard,
    bail: o.bail,
    passWithNoTests: false,
    sequence: { concurrent: false },
    // the suite prints nothing worth keeping in CI logs; failures are in the reports
    silent: 'passed-only' as const,
    cache: false as const,
  };
}

export interface SuiteRunResult {
  testModules: ReadonlyArray<TestModule>;
  unhandledErrors: ReadonlyArray<unknown>;
}

/** One vitest run of the suite; the reporters receive everything. */
async function runOnce(o: SuiteRunOptions): Promise<SuiteRunResult> {
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
 * 'service-wide' runs only those, one file and one test at a time, so no other test ever sees a
 * setting they changed. The reporters see two runs (ConformanceReporter.finish() ends them).
 */
export async function runSuite(o: SuiteRunOptions): Promise<SuiteRunResult> {
  const main = await runOnce({ ...o, ctx: { ...o.ctx, phase: 'main' } });
  const files = serviceWideFiles(main.testModules);
  if (files.length === 0) return main;
  const settings = await runOnce({
    ...o,
    ctx: { ...o.ctx, phase: 'service-wide' },
    include: files,
    filters: undefined,
    shard: undefined, // the main phase already kept only this shard's files
    maxWorkers: 1,
  });
  return {
    testModules: [...main.testModules, ...settings.testModules],
    unhandledErrors: [...main.unhandledErrors, ...settings.unhandledErrors],
  };
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
