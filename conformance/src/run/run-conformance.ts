// A conformance run as one library call: resolve the options, start the target, run the suite in
// this process through vitest's Node API and return the results (the model of results.json). The
// CLI's `run` is a thin layer over it (option parsing, printing, exit code); vendors who drive the
// suite from their own code call it directly (conformance/README.md, "From your own code").
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Vitest } from 'vitest/node';
import { loadCatalogue, type Catalogue } from '../spec/catalogue.js';
import { loadOpenApi } from '../spec/openapi.js';
import { precompileValidators } from '../suite-api/generic-checks/schema-validators.js';
import { concurrencyFor, randomSeed, resolveRunOptions, type RunOptions } from './config.js';
import { pickMarked, type ConformanceOptions } from '../model/options.js';
import type { RunContext } from '../model/context.js';
import { runSuite } from './vitest-run.js';
import { openSuiteSession, type SuiteSession } from './suite-session.js';
import { HarnessError, UsageError } from '../model/errors.js';
import { relFile } from '../paths.js';
import { ConformanceReporter } from '../report/reporter.js';
import type { RunResults } from '../report/results.js';
import type { RunInfo } from '../report/run-results.js';
import { targetFor } from './target-from-options.js';
import { specVersion, suiteVersion } from '../model/versions.js';
import { startHarRecording } from '../traffic/har-recording.js';
import { loadPrivateKey } from '../bundle/dsse.js';
import { bundleConfig } from './bundle-config.js';
import { writeBundle } from '../bundle/write.js';
import type { ProgressEvent, ProgressEventBody, ProgressListener, TargetPhase } from '../model/events.js';

export type { RunResults } from '../report/results.js';
/** The options of `conformance run` in camel case, typed (options.ts, the table of run options).
 * Without `reportDir` no report file is written. */
export type { ConformanceOptions } from '../model/options.js';
/** The typed progress of a run (the `onEvent` hook). */
export type { ProgressEvent, ProgressListener, TargetPhase };

/** What only a caller in code gives. */
export interface RunHooks {
  /** Environment read for CONFORMANCE_* options (default: none, only the options given). */
  env?: NodeJS.ProcessEnv;
  /** Progress lines of the run (seed, target; stderr in the CLI); default: printed nowhere. */
  log?: (line: string) => void;
  /** The reporter's output as printed (per-file progress, the summary; stdout in the CLI); default:
   * printed nowhere. */
  out?: (text: string) => void;
  /** Typed progress (model/events.ts): the run and the target started, the test runner started,
   * each test as it begins and ends with its outcome, the results final, the target stopped; each
   * sent when it happens. Read it instead of the log lines, which are for people. A listener that
   * throws does not break the run. Default: sent nowhere. */
  onEvent?: ProgressListener;
  /** Write the report files into the resolved report directory (default: only when `reportDir` is
   * given in the options or the environment; the command line always writes them, default
   * reports/latest). */
  writeReports?: boolean;
  /** Aborting cancels the run and stops the target; the call then rejects. */
  signal?: AbortSignal;
  /** Only these tests (by ID) run; the others are left out of the run and its results as if not in
   * the suite (the fault runner: the tests that call the operations a fault rewrites). */
  tests?: string[];
  /** Run on this suite session (openSuiteSession(), suite-session.ts): its vitest instance and
   * worker threads, with the suite's modules loaded, serve this run and the caller's next ones.
   * The caller closes it. Not used for a sharded run or one recording HAR (--record-har, --bundle). */
  session?: SuiteSession;
  /** Worker threads (default: from the concurrency, concurrencyPlan in vitest-run.ts); the fault
   * runner runs each of its runs on one, its lanes beside each other. */
  workers?: number;
}

/** The per-test timeout: never shorter than a poll to the async deadline plus time around it. */
function effectiveTestTimeout(o: Pick<RunOptions, 'testTimeoutMs' | 'asyncTimeoutMs'>): number {
  return Math.max(o.testTimeoutMs, o.asyncTimeoutMs + 30_000);
}

/**
 * Runs the suite once against the target the options name and returns its results. Invalid options
 * reject with a UsageError, a target that does not start or a broken test runner with another Error;
 * failing tests do not reject: they are in the results (`verdict`, `exitCode`).
 */
export async function runConformance(raw: ConformanceOptions = {}, hooks: RunHooks = {}): Promise<RunResults> {
  const { env = {}, log = () => {}, signal } = hooks;
  const t0 = performance.now();
  // `atMs` is filled in here; a listener's error is the caller's, never the run's
  const emit = (e: ProgressEventBody): void => {
    try {
      hooks.onEvent?.({ ...e, atMs: performance.now() - t0 } as ProgressEvent);
    } catch {
      /* ignored */
    }
  };
  const write = hooks.writeReports ?? Boolean(raw.reportDir ?? env.CONFORMANCE_REPORT_DIR);
  let cat: Catalogue;
  let o: RunOptions;
  let signKey: ReturnType<typeof loadPrivateKey> | undefined;
  try {
    cat = loadCatalogue();
    o = resolveRunOptions(raw, env, { catalogue: cat });
    // a key that cannot sign fails before the run, not after it
    signKey = o.signKeyFile ? loadPrivateKey(o.signKeyFile) : undefined;
    // the generic checks need it: fail early; their validators compiled once for every worker
    precompileValidators(loadOpenApi());
  } catch (e) {
    throw e instanceof UsageError ? e : new UsageError((e as Error).message, { cause: e });
  }
  signal?.throwIfAborted();

  const target = targetFor(o, o.reportDir, log, (phase) => emit({ type: 'target-phase', phase }));
  // the caller's own signal listeners, kept when vitest's are removed below
  const callerListeners = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  let vitest: Vitest | undefined;
  let ownSession: SuiteSession | undefined;
  const onAbort = () => void vitest?.cancelCurrentRun('keyboard-input').catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });

  const seed = o.seed ?? randomSeed();
  log(`conformance: seed ${seed} (repeat the generated tests with --seed ${seed})`);
  const startedAt = new Date();
  // `recordHar`: the suite's own traffic as HAR 1.2 (spooled by the workers, joined at the end);
  // a bundle holds it too: recorded into a temporary file when --record-har names none
  let har: ReturnType<typeof startHarRecording>;
  const bundleHar =
    o.bundleFile && !o.recordHar
      ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-bundle-har-')), 'traffic.har')
      : undefined;
  const harFile = o.recordHar ?? bundleHar;
  try {
    log(`conformance: target: ${target.describe()}`);
    emit({ type: 'run-started', seed, profile: o.profile, target: target.describe() });
    const started = await target.start();
    emit({ type: 'target-ready', kind: started.kind, baseUrl: started.baseUrl });
    signal?.throwIfAborted();
    har = startHarRecording(harFile, o.bindings, bundleHar ? () => {} : log);
    const ctx: RunContext = {
      ...(har ? { harSpool: har.spool } : {}),
      baseUrl: started.baseUrl,
      stateUrl: o.fixtures ? undefined : (o.providerStatesUrl ?? started.stateUrl),
      fixtures: o.fixtures,
      ...(o.providerStatesProtocol !== undefined ? { providerStatesProtocol: o.providerStatesProtocol } : {}),
      // every option row marked `context` (model/options.ts), as resolved
      ...pickMarked(o, 'context'),
      bindings: o.bindings,
      seed,
      ...(hooks.tests ? { tests: hooks.tests } : {}),
    };
    const info: RunInfo = {
      catalogue: cat,
      suiteVersion: suiteVersion(),
      specVersion: specVersion(cat, () => loadOpenApi().version),
      target: {
        kind: started.kind,
        requested: o.target.kind,
        baseUrl: started.baseUrl,
        stateUrl: ctx.stateUrl,
        image: started.image,
        digest: started.imageDigest,
        description: target.describe(),
      },
      // every option row marked `report` (model/options.ts), as resolved
      ...pickMarked(o, 'report'),
      fixtures: o.fixturesFile ? relFile(o.fixturesFile) : undefined,
      startedAt,
      targetLabel: o.targetLabel,
      seed,
      ...(o.providerStatesProtocol !== undefined ? { providerStatesProtocol: o.providerStatesProtocol } : {}),
      auth: { header: o.bindings.tokenHeader, prefix: o.bindings.tokenPrefix },
      ...(o.minJudged || o.requireProtocol
        ? { strengthGate: { minJudged: o.minJudged, requireProtocol: o.requireProtocol } }
        : {}),
      timing: {
        requestTimeoutMs: o.timeoutMs,
        testTimeoutMs: effectiveTestTimeout(o),
        asyncTimeoutMs: o.asyncTimeoutMs,
        clockToleranceMs: o.clockToleranceMs,
        absenceFactor: o.absenceFactor,
        absenceFloorMs: Math.round(o.absenceFloorS * 1000),
      },
      gate: {
        baseline: o.baselineFile && o.baseline ? { file: o.baselineFile, results: o.baseline } : undefined,
        expectedFailures:
          o.expectedFailuresFile && o.expectedFailures
            ? { file: o.expectedFailuresFile, entries: o.expectedFailures }
            : undefined,
        allowDisputed: o.allowDisputed === true,
      },
    };
    const reporter = new ConformanceReporter({
      info,
      reportDir: write ? o.reportDir : undefined,
      verbose: o.verbose,
      out: hooks.out ?? (() => {}),
      onEvent: emit,
    });
    const concurrency = concurrencyFor(o, started.roundTripMs);
    if (concurrency !== o.concurrency)
      log(
        `conformance: the target answers in ${Math.round(started.roundTripMs!)} ms: ${concurrency} tests in flight (--concurrency to choose)`,
      );
    // without the caller's session, one of the run's own: the service-wide phase then runs on the
    // main phase's threads (runSuite); the HAR spool reaches the workers in their environment, set
    // when a thread starts, so a recording run starts its own threads
    const session = harFile ? undefined : (hooks.session ?? (ownSession = openSuiteSession()));
    try {
      emit({ type: 'suite-started', round: 'main' });
      await runSuite({
        ctx,
        reporters: o.verbose ? ['verbose', reporter] : [reporter],
        testTimeoutMs: effectiveTestTimeout(o),
        concurrency,
        ...(hooks.workers ? { maxWorkers: hooks.workers } : {}),
        shard: o.shard,
        bail: o.bail,
        include: o.include,
        session,
        onVitest: (v) => {
          vitest = v;
          // vitest's logger exits the process on SIGINT/SIGTERM at once: a caller who passes a signal
          // handles those itself and must stop the target first
          if (signal)
            for (const sig of ['SIGINT', 'SIGTERM'] as const)
              for (const l of process.listeners(sig))
                if (!callerListeners[sig].includes(l)) process.off(sig, l as (...a: unknown[]) => void);
        },
      });
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new HarnessError(`the test runner failed: ${(e as Error).stack ?? e}`, { cause: e });
    }
    signal?.throwIfAborted();
    // a test that timed out runs again, alone, after the run (--retries): a slow moment of the target
    // is told apart from a broken requirement; one that passes then is reported flaky
    for (let round = 1, ids = reporter.timedOutTests(); round <= o.retries && ids.length > 0; round++) {
      log(`conformance: retry ${round}/${o.retries}: ${ids.length} test(s) that timed out, one at a time`);
      reporter.retry();
      emit({ type: 'suite-started', round: 'retry' });
      await runSuite({
        ctx: { ...ctx, tests: ids },
        reporters: [reporter],
        testTimeoutMs: effectiveTestTimeout(o),
        concurrency: 1,
        maxWorkers: 1,
        include: o.include,
        session,
      });
      signal?.throwIfAborted();
      ids = reporter.timedOutTests();
    }
    const results = reporter.finish({ maxRetries: o.retries, failOnFlaky: o.failOnFlaky });
    if (!results) throw new HarnessError('the run ended without results');
    if (o.bundleFile && harFile) {
      har?.end();
      har = undefined;
      const b = writeBundle(
        o.bundleFile,
        {
          results,
          har: fs.readFileSync(harFile),
          config: bundleConfig(o, { seed, stateUrl: ctx.stateUrl }),
          ...(o.targetVersion ? { targetVersion: o.targetVersion } : {}),
        },
        signKey,
      );
      log(
        `conformance: wrote the bundle ${relFile(b.file)} (${b.files.length} files, ${b.exchanges} exchanges): ${
          b.keyid
            ? `signed by keyid ${b.keyid}`
            : 'UNSIGNED (no --sign-key): a customer can check its digests, not who made it'
        }`,
      );
    }
    emit({ type: 'run-finished', verdict: results.verdict, exitCode: results.exitCode });
    return results;
  } finally {
    signal?.removeEventListener('abort', onAbort);
    har?.end();
    if (bundleHar) fs.rmSync(path.dirname(bundleHar), { recursive: true, force: true });
    await ownSession?.close();
    await target.stop();
    emit({ type: 'target-stopped' });
  }
}
