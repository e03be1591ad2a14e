// A suite session: one vitest instance (per configuration) that serves many runs of the suite, one
// after another, each against its own target (the fault runner: one session per lane, ~200 runs).
// A one-shot run creates vitest, starts a worker thread, transforms and evaluates the suite's
// modules (the OpenAPI document, its compiled validators) and throws it all away; in a session the
// instance, its transforms and its threads (kept-threads.ts) with their evaluated modules stay.
//
// What must not pass from one run to the next (another server): the context reaches the tests per
// run (`provide`, with a run id that dsl.ts keys its state by); the suite's own modules
// (conformance/suite/**: test files and support, with their module-level state) are evaluated
// afresh in each run, only conformance/src stays loaded; results and reporters are this run's.
import fs from 'node:fs';
import path from 'node:path';
import { createVitest, type Reporter, type TestSpecification, type Vitest } from 'vitest/node';
import { ROOT } from '../paths.js';
import { KeptThreads } from './kept-threads.js';
import type { SuiteRunOptions, SuiteSession } from './vitest-run.js';
import { sessionCanRun, suiteConfig } from './vitest-run.js';

// its interface lives with the runs it serves (vitest-run.ts), which takes one
export type { SuiteSession } from './vitest-run.js';

/** The reporter hooks a run's reporters receive (onInit: once per run, from runOnce). */
const HOOKS = [
  'onTestRunStart',
  'onTestModuleQueued',
  'onTestModuleCollected',
  'onTestModuleStart',
  'onTestModuleEnd',
  'onTestSuiteReady',
  'onTestSuiteResult',
  'onTestCaseReady',
  'onTestCaseResult',
  'onTestCaseAnnotate',
  'onHookStart',
  'onHookEnd',
  'onUserConsoleLog',
  'onTestRunEnd',
] as const;

/** Forwards vitest's events to the reporters of the run under way (vitest fixes its reporters at creation). */
function forwardingReporter() {
  /** `ended`: how the last run ended (onTestRunEnd's reason: 'passed', 'failed', 'interrupted'). */
  const fwd = { current: [] as Reporter[], ended: undefined as string | undefined };
  for (const hook of HOOKS)
    (fwd as Record<string, unknown>)[hook] = async (...args: unknown[]) => {
      if (hook === 'onTestRunEnd') fwd.ended = args[2] as string;
      for (const r of fwd.current) await (r as Record<string, any>)[hook]?.(...args);
    };
  return fwd as Reporter & typeof fwd;
}

interface Instance {
  vitest: Vitest;
  threads: KeptThreads;
  forward: ReturnType<typeof forwardingReporter>;
  specs: TestSpecification[];
}

/** The suite's own files (test files and their support): evaluated again in every run. */
function suiteFiles(): string[] {
  const dir = path.join(ROOT, 'conformance/suite');
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => /\.[cm]?[jt]s$/.test(f))
    .map((f) => path.join(dir, f).split(path.sep).join('/'));
}

let sessions = 0;

/**
 * Opens a session; runs on it must not overlap (one lane: one run at a time). Not for a run that
 * sessionCanRun refuses (runSuite then runs it on an instance of its own).
 */
export function openSuiteSession(): SuiteSession {
  const session = ++sessions;
  let runs = 0;
  let busy = false;
  // one instance per configuration (the runs of one lane share one; both phases of a run take the
  // same, vitest-run.ts); a worker thread takes its configuration once, when it starts
  const instances = new Map<string, Promise<Instance>>();
  const invalidated = suiteFiles();
  const created: Instance[] = [];

  async function create(o: SuiteRunOptions, cfg: ReturnType<typeof suiteConfig>): Promise<Instance> {
    const forward = forwardingReporter();
    const threads = new KeptThreads();
    const vitest = await createVitest('test', {
      ...cfg,
      reporters: [...o.reporters.filter((r) => typeof r === 'string'), forward],
      pool: threads.pool,
    } as any);
    const inst = { vitest, threads, forward, specs: await vitest.globTestSpecifications() };
    created.push(inst);
    return inst;
  }

  async function drop(key: string): Promise<void> {
    const i = instances.get(key);
    instances.delete(key);
    const inst = await i?.catch(() => undefined);
    if (inst) await Promise.allSettled([inst.vitest.close(), inst.threads.close()]);
  }

  return {
    async runOnce(o) {
      if (!sessionCanRun(o)) throw new Error('suite session: no shard, file filters or include globs');
      if (busy) throw new Error('suite session: runs of one session must not overlap');
      busy = true;
      // the configuration without what changes from run to run (context, reporters, files)
      const cfg = suiteConfig({ ...o, include: undefined, reporters: [] });
      const key = JSON.stringify({
        ...cfg,
        provide: undefined,
        reporters: o.reporters.filter((r) => typeof r === 'string'),
      });
      let discard = false;
      try {
        if (!instances.has(key)) instances.set(key, create(o, cfg));
        const inst = await instances.get(key)!;
        const { vitest } = inst;
        const ctx = { ...o.ctx, runId: `${process.pid}.${session}.${++runs}` };
        vitest.provide('conformance', ctx);
        // ConformanceReporter reads the phase from the configuration's `provide` in onInit
        (vitest.config.provide as Record<string, unknown>).conformance = ctx;
        const reporters = o.reporters.filter((r): r is Reporter => typeof r !== 'string');
        inst.forward.current = reporters;
        for (const r of reporters) await r.onInit?.(vitest);
        inst.forward.ended = undefined;
        o.onVitest?.(vitest);
        const wanted = o.include && new Set(o.include.map((f) => path.resolve(ROOT, f)));
        const specs = wanted ? inst.specs.filter((s) => wanted.has(path.resolve(s.moduleId))) : inst.specs;
        if (specs.length === 0) throw new Error(`no suite file matches ${(o.include ?? []).join(', ')}`);
        for (const f of invalidated) vitest.watcher.invalidates.add(f);
        try {
          const r = await vitest.runTestSpecifications(specs, false);
          const ids = new Set(specs.map((s) => s.moduleId));
          // vitest's state keeps the modules of earlier runs: only this run's
          return { testModules: r.testModules.filter((m) => ids.has(m.moduleId)), unhandledErrors: r.unhandledErrors };
        } finally {
          // a cancelled run (an aborted one: a timeout of the caller) may have left a thread mid-file
          discard = inst.forward.ended !== 'passed' && inst.forward.ended !== 'failed';
          inst.forward.current = [];
        }
      } catch (e) {
        discard = true;
        throw e;
      } finally {
        // a cancelled or failed run leaves nothing behind for the next one: a new instance then
        if (discard) await drop(key);
        busy = false;
      }
    },
    stats() {
      return { instances: created.length, threads: created.reduce((n, i) => n + i.threads.started, 0), runs };
    },
    async close() {
      await Promise.all([...instances.keys()].map(drop));
    },
  };
}
