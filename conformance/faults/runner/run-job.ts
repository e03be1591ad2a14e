// One run of the mutation run: a reference server of its own, the proxy with the fault's or the
// control's rewrite in front of it, and the suite through the proxy as a library call in this
// process (runConformance: no process of the conformance CLI), its reports in the run's directory.
import fs from 'node:fs';
import path from 'node:path';
import { runConformance, type ConformanceOptions } from '../../src/run/run-conformance.js';
import type { SuiteSession } from '../../src/run/suite-session.js';
import type { Control, Fault } from '../fault.js';
import { startFaultProxy } from '../proxy.js';
import { rewriteReadsGrants } from '../operations.js';
import type { ConformanceRun } from './judge.js';
import type { Job, JobSelection } from './select.js';
import { type ServerPool, UPSTREAM_IDLE_MS } from './servers.js';
import { ROOT } from '../../../spec/paths.js';

/** What every run of one mutation run shares. */
export interface RunSettings {
  /** time limit of one run (ms) */
  timeoutMs: number;
  /** tests in flight within one run (the library's `concurrency`) */
  concurrency: number;
  /** the seed of every run: the baseline's, for which the operations each test calls are known */
  seed: number;
}

/**
 * The deadline for asynchronous outcomes in a fault's run. The reference binds a queued proposal
 * within milliseconds, and no fault delays what it leaves alone; a fault that keeps a binding from
 * ever happening (`queued-endorsement-never-binds`) is seen at this deadline, which would
 * otherwise be the suite's default of 60 s (the longest run of the mutation run by far). A
 * control keeps the default: some delay outcomes on purpose (`slow-binding`, 8 s).
 */
const FAULT_ASYNC_TIMEOUT_MS = 15_000;

/** The core suite against `baseUrl`: the files and tests of `sel`; reports in `reportDir` (run.log: its output). */
export async function runSuite(
  baseUrl: string,
  providerStatesUrl: string,
  sel: JobSelection,
  reportDir: string,
  s: RunSettings,
  config?: Control['config'],
  session?: SuiteSession,
  asyncTimeoutMs?: number,
): Promise<ConformanceRun> {
  fs.rmSync(reportDir, { recursive: true, force: true });
  fs.mkdirSync(reportDir, { recursive: true });
  const options: ConformanceOptions = {
    baseUrl,
    providerStatesUrl,
    profile: 'core',
    reportDir,
    // the request time-out is the run's default (30 s, model/options.ts): a request that takes long
    // here is the machine's load or a slow control, and must not read as a caught fault or a false alarm
    concurrency: s.concurrency,
    seed: s.seed,
    // a fault needs the verdict, not the shortest counterexample of a model-based test
    skipShrink: true,
    ...(asyncTimeoutMs !== undefined ? { asyncTimeout: asyncTimeoutMs } : {}),
    ...(sel.include?.length ? { include: sel.include } : {}),
    // a control's bindings, as an object (checked as a config file's `bindings:` would be)
    ...(config ? { bindings: config.bindings } : {}),
  };
  const logFile = path.join(reportDir, 'run.log');
  const out = fs.openSync(logFile, 'w');
  const write = (text: string) => fs.writeSync(out, text.endsWith('\n') ? text : `${text}\n`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`timed out after ${s.timeoutMs} ms`)), s.timeoutMs);
  const started = Date.now();
  try {
    const results = await runConformance(options, {
      log: write,
      out: write,
      signal: controller.signal,
      writeReports: true,
      ...(sel.tests ? { tests: sel.tests } : {}),
      ...(session ? { session } : {}),
      // one worker thread per run: the lanes run beside each other (docs/benchmarks.md, session 4)
      workers: 1,
    });
    return { exitCode: results.exitCode, durationMs: Date.now() - started, results };
  } catch (e) {
    const why = controller.signal.aborted ? `timed out after ${s.timeoutMs} ms` : (e as Error).message;
    write(`run failed: ${(e as Error).stack ?? e}`);
    return {
      exitCode: null,
      durationMs: Date.now() - started,
      error: `${why.split('\n')[0]}; see ${path.relative(ROOT, logFile)}`,
    };
  } finally {
    clearTimeout(timer);
    fs.closeSync(out);
  }
}

/** The proxy's stand-in fault for a control (its rewrite, or none: the server flags alone differ). */
function asFault(control: Control): Fault {
  return {
    name: control.name,
    area: control.area,
    description: control.description,
    requirements: [],
    rewrite: control.rewrite ?? ((req, _ctx, next) => next(req)),
  };
}

/** One job: a fresh reference server, the proxy with the job's rewrite, the selected tests through it. */
export async function runJob(
  job: Job,
  name: string,
  dir: string,
  o: {
    servers: ServerPool;
    selection: JobSelection;
    settings: RunSettings;
    log: (line: string) => void;
    /** the lane's suite session (run-faults.ts), if any */
    session?: SuiteSession;
  },
): Promise<{ run: ConformanceRun; proxyErrors: number }> {
  const flags = job.kind === 'control' ? (job.control.serverFlags ?? []) : [];
  const started = Date.now();
  let ref;
  try {
    ref = await o.servers.take(flags);
  } catch (e) {
    // a server that does not start (a loaded machine) is an error of this run, not of the whole mutation run
    const error = `the reference server did not start: ${(e as Error).message.split('\n')[0]}`;
    return { run: { exitCode: null, durationMs: Date.now() - started, error }, proxyErrors: 0 };
  }
  try {
    const fault = job.kind === 'fault' ? job.fault : asFault(job.control);
    // Provider states pass through the proxy untouched; only a rewrite that reads users' grants needs
    // to see them. Every other run sends them to its server directly: a third of the suite's
    // requests, spared the proxy's hop.
    const statesThroughProxy = rewriteReadsGrants(fault.rewrite);
    const proxy = await startFaultProxy({
      upstream: ref.url,
      fault,
      log: (l) => o.log(`[${name}] ${l}`),
      upstreamIdleMs: UPSTREAM_IDLE_MS,
      statesElsewhere: !statesThroughProxy,
    });
    try {
      const config = job.kind === 'control' ? job.control.config : undefined;
      const states = `${statesThroughProxy ? proxy.url : ref.url}/_provider-states`;
      const asyncTimeout = job.kind === 'fault' ? FAULT_ASYNC_TIMEOUT_MS : undefined;
      const run = await runSuite(proxy.url, states, o.selection, dir, o.settings, config, o.session, asyncTimeout);
      if (proxy.stats.misuse)
        return {
          run: { exitCode: null, durationMs: run.durationMs, error: proxy.stats.misuse },
          proxyErrors: proxy.stats.errors,
        };
      return { run, proxyErrors: proxy.stats.errors };
    } finally {
      await proxy.close();
    }
  } finally {
    await o.servers.release(ref);
  }
}
