// `conformance` CLI: run the suite against a target, list the tests, write the coverage table.
import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { loadCatalogue, type Catalogue } from './catalogue.js';
import { concurrencyFor, randomSeed, resolveRunOptions, ENV_VARS, type RawOptions, type RunOptions } from './config.js';
import { buildCoverage, coverageProblems, writeCoverage, type CollectedTest } from './coverage.js';
import { loadOperationsData, OPERATIONS_FILE, suiteFileHashes } from './coverage-operations.js';
import type { ConformanceMeta } from './dsl.js';
import { CatalogueError } from './catalogue.js';
import { HarnessError, UsageError } from './errors.js';
import { loadOpenApi } from './openapi.js';
import { ROOT } from './paths.js';
import { ConformanceReporter } from './reporter.js';
import { relFile, summaryText, writeReports, type RunInfo } from './report-model.js';
import { EXIT, exitCodeFor, verdictFor, type RunResults } from './results.js';
import { applyGate, loadBaseline, loadExpectedFailures, type GateInput } from './gate.js';
import { contextFromEnv, selectTest, type RunContext } from './run-context.js';
import { ImageTarget } from './targets/image.js';
import { LocalProcessTarget } from './targets/local-process.js';
import { ReferenceTarget } from './targets/reference.js';
import type { StartedTarget, Target } from './targets/target.js';
import { UrlTarget } from './targets/url.js';
import { collectSuite, runSuite } from './vitest-run.js';
import { registerMerge } from './cli/merge.js';
import { registerInit } from './cli/init.js';
import { registerStates } from './cli/states.js';
import type { Vitest } from 'vitest/node';

const log = (s: string) => process.stderr.write(`${s}\n`);

function suiteVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

function specVersion(cat: Catalogue): string {
  try {
    return loadOpenApi().version || cat.version;
  } catch {
    return cat.version;
  }
}

/** Only the options the user gave (commander fills defaults otherwise). */
function given(cmd: Command): RawOptions {
  const out: RawOptions = {};
  const opts = cmd.opts();
  for (const k of Object.keys(opts)) {
    const src = cmd.getOptionValueSource(k);
    if (src === 'cli' || src === 'env') out[k] = opts[k];
  }
  return out;
}

function collectKV(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

export function buildProgram(onExit: (code: number) => void): Command {
  const program = new Command();
  program
    .name('conformance')
    .description(
      'Conformance suite of the Records, Files, Links and Proposal Scheduling Service interface.\n' +
        'Exit codes: 0 every selected requirement passed, 1 a requirement failed (or is untested),\n' +
        '2 usage or configuration error, 3 the target or the harness failed.',
    )
    .version(suiteVersion())
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();

  const run = program
    .command('run')
    .description('start a target (default: the reference server image) and run the suite against it')
    .option('--base-url <url>', 'test a running implementation at this URL [CONFORMANCE_BASE_URL]')
    .option('--image <image>', 'test this container image (testcontainers) [CONFORMANCE_IMAGE]')
    .option(
      '--local-process',
      'run the reference server as a local process instead of its image [CONFORMANCE_LOCAL_PROCESS]',
    )
    .option(
      '--provider-states-url <url>',
      'provider-state endpoint (default <base-url>/_provider-states) [CONFORMANCE_PROVIDER_STATES_URL]',
    )
    .option(
      '--fixtures <file>',
      'YAML/JSON list of {state, params?, values} used instead of provider states [CONFORMANCE_FIXTURES]',
    )
    .addOption(
      new Option(
        '--profile <profile>',
        'core | implementation-defined | all (default core) [CONFORMANCE_PROFILE]',
      ).choices(['core', 'implementation-defined', 'all']),
    )
    .option(
      '--requirements <ids>',
      'comma list of requirement IDs or prefixes, e.g. SCHED-,AUTH-001 [CONFORMANCE_REQUIREMENTS]',
    )
    .option('--read-only', 'leave out tests that change data [CONFORMANCE_READ_ONLY]')
    .option('--timeout <ms>', 'per-request timeout (default 10000) [CONFORMANCE_TIMEOUT]')
    .option(
      '--test-timeout <ms>',
      'per-test timeout (default 60000; at least --async-timeout + 30000) [CONFORMANCE_TEST_TIMEOUT]',
    )
    .option(
      '--async-timeout <ms>',
      'deadline for asynchronous outcomes (binding), polled, never slept; also the longest wait before an effect is judged absent (default 60000) [CONFORMANCE_ASYNC_TIMEOUT]',
    )
    .option(
      '--clock-tolerance <ms>',
      "how far the target's clock may be from the runner's when a timestamp is checked against now (default 3000000 = 50 min) [CONFORMANCE_CLOCK_TOLERANCE]",
    )
    .option(
      '--concurrency <n>',
      'most tests in flight at once: up to 8 per suite file, files in ceil(n/8) worker threads (default: 64 when the target answers in 20 ms or more, else 16; 1 = one test at a time) [CONFORMANCE_CONCURRENCY]',
    )
    .option('--shard <i/n>', 'run shard i of n of the suite files [CONFORMANCE_SHARD]')
    .option(
      '--report-dir <dir>',
      'where report.html, results.json, junit.xml and badge.svg go (default reports/latest) [CONFORMANCE_REPORT_DIR]',
    )
    .option(
      '--require-container',
      'fail (exit 3) instead of falling back to a local process when no container engine answers; implied by CI=true [CONFORMANCE_REQUIRE_CONTAINER]',
    )
    .option('--container-port <port>', 'port the image serves on (default 8080) [CONFORMANCE_CONTAINER_PORT]')
    .option('--container-env <K=V>', 'extra container environment (repeatable)', collectKV)
    .option(
      '--health-path <path>',
      'health endpoint waited for until it answers 200 (image and reference default /health; a --base-url target is waited for only when this is given, else GET / must answer anything) [CONFORMANCE_HEALTH_PATH]',
    )
    .option(
      '--start-timeout <ms>',
      'how long the target may take to become healthy (default 60000) [CONFORMANCE_START_TIMEOUT]',
    )
    .option('--bail [n]', 'stop after n failed tests (default 1) [CONFORMANCE_BAIL]')
    .option(
      '--reporter-verbose',
      "also print vitest's per-test output and every requirement [CONFORMANCE_REPORTER_VERBOSE]",
    )
    .option(
      '--include <globs>',
      'suite files to run, comma list of globs relative to the repository root (default conformance/suite/**/*.test.ts) [CONFORMANCE_INCLUDE]',
    )
    .option(
      '--baseline <results.json>',
      'an earlier results.json: report what newly failed and what got fixed; fail (exit 1) only on regressions [CONFORMANCE_BASELINE]',
    )
    .option(
      '--expected-failures <file>',
      'YAML list of {id, reason, expires: YYYY-MM-DD}: listed failures do not fail the run until they expire [CONFORMANCE_EXPECTED_FAILURES]',
    )
    .option(
      '--target-label <text>',
      'a name for the target shown in the reports, e.g. "Acme API 2.3" [CONFORMANCE_TARGET_LABEL]',
    )
    .option(
      '--seed <n>',
      'seed of the generated (model-based) tests; default random, printed and kept in results.json [CONFORMANCE_SEED]',
    )
    .option(
      '--config <file>',
      'YAML config file: any option above (kebab or camel case) and `bindings:` [CONFORMANCE_CONFIG]',
    )
    .action(async (_opts, cmd: Command) => {
      onExit(await runCommand(given(cmd)));
    });
  run.addHelpText(
    'after',
    `\nEnvironment: ${Object.values(ENV_VARS).join(', ')}; CI=true implies --require-container.`,
  );

  program
    .command('report')
    .description(
      'write report.html, junit.xml and badge.svg (and results.json) again from a results.json, optionally judged against a baseline or expected failures; exits with the exit code of the judged run',
    )
    .argument('<results.json>', 'the results of an earlier run')
    .option('--report-dir <dir>', 'output directory (default: the directory of results.json)')
    .option('--baseline <results.json>', 'judge against this earlier run (only regressions fail)')
    .option('--expected-failures <file>', 'judge against this expected-failures file')
    .action(async (file: string, opts: { reportDir?: string; baseline?: string; expectedFailures?: string }) => {
      onExit(await reportCommand(file, opts));
    });

  program
    .command('list')
    .description('list the suite tests and the requirements they verify (collects the suite; no target)')
    .option('--json', 'print JSON')
    .addOption(
      new Option('--profile <profile>', 'mark tests outside this profile').choices([
        'core',
        'implementation-defined',
        'all',
      ]),
    )
    .option('--requirements <ids>', 'only tests naming these IDs or prefixes')
    .action(async (opts) => {
      onExit(await listCommand(opts));
    });

  program
    .command('coverage')
    .description(
      'write the requirements → tests and requirement x operation tables (reports/coverage.md, reports/coverage.json)',
    )
    .option(
      '--check',
      'exit 1 when a testable core requirement has no test, a testable (requirement, operation) pair is not exercised in the recorded run (reports/coverage-operations.json, refreshed by npm run coverage:update) nor exempted, or a test names an unknown requirement',
    )
    .option('--out <dir>', 'output directory (default reports)')
    .action(async (opts) => {
      onExit(await coverageCommand(opts));
    });

  registerMerge(program, onExit);
  registerInit(program, onExit);
  registerStates(program, onExit);

  return program;
}

// ------------------------------------------------------------------------- run

/** The per-test timeout: never shorter than a poll to the async deadline plus time around it. */
function effectiveTestTimeout(o: Pick<RunOptions, 'testTimeoutMs' | 'asyncTimeoutMs'>): number {
  return Math.max(o.testTimeoutMs, o.asyncTimeoutMs + 30_000);
}

function makeTarget(o: RunOptions, reportDir: string): Target {
  const stateUrl = o.fixtures ? null : o.providerStatesUrl;
  const image = {
    containerPort: o.containerPort,
    env: o.containerEnv,
    healthPath: o.healthPath,
    startTimeoutMs: o.startTimeoutMs,
    stateUrl,
    log,
  };
  switch (o.target.kind) {
    case 'url':
      return new UrlTarget({
        baseUrl: o.target.baseUrl,
        stateUrl,
        log,
        ...(o.healthPathGiven ? { healthPath: o.healthPath, startTimeoutMs: o.startTimeoutMs } : {}),
      });
    case 'image':
      return new ImageTarget({ image: o.target.image, ...image });
    case 'local-process':
      return new LocalProcessTarget({
        healthPath: o.healthPath,
        startTimeoutMs: o.startTimeoutMs,
        logFile: path.join(reportDir, 'reference-server.log'),
        log,
      });
    case 'reference':
      return new ReferenceTarget({
        requireContainer: o.requireContainer,
        image,
        local: {
          healthPath: o.healthPath,
          startTimeoutMs: o.startTimeoutMs,
          logFile: path.join(reportDir, 'reference-server.log'),
          log,
        },
        log,
      });
  }
}

export async function runCommand(raw: RawOptions): Promise<number> {
  let cat: Catalogue;
  let o: RunOptions;
  try {
    cat = loadCatalogue();
    o = resolveRunOptions(raw, process.env, { catalogue: cat });
    loadOpenApi(); // the generic checks need it: fail early
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return EXIT.usage;
  }

  const target = makeTarget(o, o.reportDir);
  let vitest: Vitest | undefined;
  let interrupted = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    log(`conformance: ${sig}: cancelling the run and stopping the target`);
    void (async () => {
      try {
        await vitest?.cancelCurrentRun('keyboard-input');
      } catch {
        /* ignore */
      }
      await target.stop();
      process.exit(sig === 'SIGINT' ? 130 : 143);
    })();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  const seed = o.seed ?? randomSeed();
  log(`conformance: seed ${seed} (repeat the generated tests with --seed ${seed})`);
  const startedAt = new Date();
  let started: StartedTarget;
  try {
    log(`conformance: target: ${target.describe()}`);
    started = await target.start();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    await target.stop();
    return e instanceof UsageError ? EXIT.usage : EXIT.harness;
  }

  try {
    const ctx: RunContext = {
      baseUrl: started.baseUrl,
      stateUrl: o.fixtures ? undefined : (o.providerStatesUrl ?? started.stateUrl),
      fixtures: o.fixtures,
      profile: o.profile,
      requirements: o.requirements,
      readOnly: o.readOnly,
      timeoutMs: o.timeoutMs,
      asyncTimeoutMs: o.asyncTimeoutMs,
      clockToleranceMs: o.clockToleranceMs,
      bindings: o.bindings,
      seed,
    };
    const info: RunInfo = {
      catalogue: cat,
      suiteVersion: suiteVersion(),
      specVersion: specVersion(cat),
      target: {
        kind: started.kind,
        requested: o.target.kind,
        baseUrl: started.baseUrl,
        stateUrl: ctx.stateUrl,
        image: started.image,
        digest: started.imageDigest,
        description: target.describe(),
      },
      profile: o.profile,
      requirements: o.requirements,
      readOnly: o.readOnly,
      shard: o.shard,
      fixtures: o.fixturesFile ? relFile(o.fixturesFile) : undefined,
      startedAt,
      targetLabel: o.targetLabel,
      seed,
      auth: { header: o.bindings.tokenHeader, prefix: o.bindings.tokenPrefix },
      timing: {
        requestTimeoutMs: o.timeoutMs,
        testTimeoutMs: effectiveTestTimeout(o),
        asyncTimeoutMs: o.asyncTimeoutMs,
        clockToleranceMs: o.clockToleranceMs,
      },
      gate: {
        baseline: o.baselineFile && o.baseline ? { file: o.baselineFile, results: o.baseline } : undefined,
        expectedFailures:
          o.expectedFailuresFile && o.expectedFailures
            ? { file: o.expectedFailuresFile, entries: o.expectedFailures }
            : undefined,
      },
    };
    const reporter = new ConformanceReporter({ info, reportDir: o.reportDir, verbose: o.verbose });
    const concurrency = concurrencyFor(o, started.roundTripMs);
    if (concurrency !== o.concurrency)
      log(
        `conformance: the target answers in ${Math.round(started.roundTripMs!)} ms: ${concurrency} tests in flight (--concurrency to choose)`,
      );
    try {
      await runSuite({
        ctx,
        reporters: o.verbose ? ['verbose', reporter] : [reporter],
        testTimeoutMs: effectiveTestTimeout(o),
        concurrency,
        shard: o.shard,
        bail: o.bail,
        include: o.include,
        onVitest: (v) => {
          vitest = v;
          // vitest's logger exits the process on SIGINT/SIGTERM at once; the target must be stopped first
          for (const sig of ['SIGINT', 'SIGTERM'] as const) {
            for (const l of process.listeners(sig))
              if (l !== onSignal) process.off(sig, l as (...a: unknown[]) => void);
          }
        },
      });
    } catch (e) {
      log(`conformance: error: the test runner failed: ${(e as Error).stack ?? e}`);
      return EXIT.harness;
    }
    if (interrupted) return 130;
    reporter.finish();
    if (!reporter.results) {
      log('conformance: error: the run ended without results');
      return EXIT.harness;
    }
    return reporter.results.exitCode;
  } finally {
    await target.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

// ------------------------------------------------------------------------- report

export async function reportCommand(
  file: string,
  opts: { reportDir?: string; baseline?: string; expectedFailures?: string },
): Promise<number> {
  let results: RunResults;
  try {
    const abs = path.resolve(file);
    results = loadBaseline(abs);
    const cat = opts.expectedFailures ? loadCatalogue() : undefined;
    const gate: GateInput = {
      baseline: opts.baseline
        ? { file: path.resolve(opts.baseline), results: loadBaseline(path.resolve(opts.baseline)) }
        : undefined,
      expectedFailures: opts.expectedFailures
        ? {
            file: path.resolve(opts.expectedFailures),
            entries: loadExpectedFailures(path.resolve(opts.expectedFailures), cat),
          }
        : undefined,
    };
    if (gate.baseline || gate.expectedFailures) {
      // judge the run afresh: drop the marks of an earlier judgement
      const { gate: _g, baseline: _b, expectedFailures: _e, ...rest } = results;
      const plain: RunResults = {
        ...rest,
        requirements: results.requirements.map(({ baseline: _rb, expectedFailure: _re, ...q }) => q),
      };
      if (plain.exitCode === EXIT.ok || plain.exitCode === EXIT.failed) {
        plain.exitCode = exitCodeFor(plain.requirements);
        plain.verdict = verdictFor(plain.exitCode);
      }
      results = applyGate(plain, gate);
    }
    const dir = path.resolve(opts.reportDir ?? path.dirname(abs));
    writeReports(results, dir);
    process.stdout.write(`${summaryText(results, { reportDir: dir })}\n`);
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError || e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  return results.exitCode;
}

// ------------------------------------------------------------------------- list / coverage

async function collect(): Promise<{ tests: (CollectedTest & { meta: ConformanceMeta })[]; errors: string[] }> {
  const ctx: RunContext = { ...contextFromEnv({}), collectOnly: true };
  const r = await collectSuite({ ctx });
  const tests: (CollectedTest & { meta: ConformanceMeta })[] = [];
  const errors: string[] = [];
  for (const m of r.testModules) {
    for (const e of m.errors()) errors.push(`${relFile(m.moduleId)}: ${e.name ?? 'Error'}: ${e.message}`);
    for (const t of m.children.allTests()) {
      const meta = t.meta() as ConformanceMeta;
      if (!meta.conformance) {
        errors.push(`${relFile(m.moduleId)}: '${t.name}' is a plain vitest test, not a conformance() test`);
        continue;
      }
      tests.push({
        id: meta.id!,
        title: meta.title!,
        file: relFile(m.moduleId),
        requirements: meta.requirements ?? [],
        profile: meta.profile ?? 'core',
        mutates: meta.mutates ?? false,
        meta,
      });
    }
  }
  for (const e of r.unhandledErrors) errors.push(`unhandled: ${(e as Error)?.message ?? String(e)}`);
  return { tests, errors };
}

async function listCommand(opts: {
  json?: boolean;
  profile?: 'core' | 'implementation-defined' | 'all';
  requirements?: string;
}): Promise<number> {
  let res: Awaited<ReturnType<typeof collect>>;
  try {
    loadCatalogue();
    res = await collect();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  const patterns = opts.requirements
    ? opts.requirements
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
  const rows = res.tests.filter(
    (t) => patterns.length === 0 || t.requirements.some((id) => patterns.some((p) => id.startsWith(p))),
  );
  if (opts.json) {
    process.stdout.write(
      `${JSON.stringify(
        rows.map(({ meta: _m, ...t }) => t),
        null,
        2,
      )}\n`,
    );
  } else {
    let file = '';
    for (const t of rows) {
      if (t.file !== file) {
        file = t.file;
        process.stdout.write(`${file}\n`);
      }
      const sel = opts.profile
        ? selectTest(t, { profile: opts.profile, requirements: patterns, readOnly: false })
        : { run: true };
      const flags = [
        t.profile === 'implementation-defined' ? 'impl-defined' : '',
        t.mutates ? 'mutates' : '',
        sel.run ? '' : 'not selected',
      ]
        .filter(Boolean)
        .join(', ');
      process.stdout.write(`  ${t.id}  [${t.requirements.join(' ')}]${flags ? `  (${flags})` : ''}\n    ${t.title}\n`);
    }
    process.stdout.write(`${rows.length} test(s) in ${new Set(rows.map((t) => t.file)).size} file(s)\n`);
  }
  for (const e of res.errors) log(`conformance: collection error: ${e}`);
  return res.errors.length ? EXIT.harness : EXIT.ok;
}

export async function coverageCommand(opts: { check?: boolean; out?: string }): Promise<number> {
  let cat: Catalogue;
  let res: Awaited<ReturnType<typeof collect>>;
  try {
    cat = loadCatalogue();
    res = await collect();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  let operationsData;
  try {
    operationsData = loadOperationsData();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return EXIT.usage;
  }
  const report = buildCoverage(cat, res.tests, res.errors, new Date(), {
    data: operationsData,
    suiteFiles: suiteFileHashes(),
    file: relFile(OPERATIONS_FILE),
  });
  const files = writeCoverage(report, path.resolve(opts.out ?? path.join(ROOT, 'reports')));
  const c = report.counts;
  process.stdout.write(
    `coverage: ${report.testCount} tests; testable requirements covered ${c.covered}/${c.testable} (core ${c.coreCovered}/${c.coreTestable}); ${c.notTestable} not testable\n` +
      (report.pairCounts
        ? `coverage: requirement x operation pairs ${report.pairCounts.pairs}: exercised ${report.pairCounts.exercised}, exempt ${report.pairCounts.exempt}, not testable ${report.pairCounts.notTestable}, gaps ${report.pairCounts.gaps}\n`
        : '') +
      `coverage: wrote ${relFile(files.md)} and ${relFile(files.json)}\n`,
  );
  const problems = coverageProblems(report);
  if (opts.check) {
    if (problems.length) {
      process.stdout.write(
        `coverage: gate FAILED (${problems.length} problem(s)):\n${problems.map((p) => `  - ${p}`).join('\n')}\n`,
      );
      return EXIT.failed;
    }
    // The table is checked in (reports/coverage.md): a stale copy misleads readers of the repo.
    if (files.stale) {
      process.stdout.write(`coverage: ${relFile(files.md)} was out of date and has been regenerated; commit it\n`);
      return EXIT.failed;
    }
    process.stdout.write('coverage: gate passed\n');
  } else if (problems.length) {
    process.stdout.write(`coverage: ${problems.length} gate problem(s) (see coverage.md; --check fails on them)\n`);
  }
  return EXIT.ok;
}

// ------------------------------------------------------------------------- main

export async function main(argv: string[] = process.argv): Promise<number> {
  let code: number | undefined;
  const program = buildProgram((c) => (code = c));
  try {
    await program.parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0) return EXIT.ok;
      if (e.code === 'commander.help') return EXIT.ok;
      return EXIT.usage;
    }
    if (e instanceof UsageError) {
      log(`conformance: error: ${e.message}`);
      return EXIT.usage;
    }
    if (e instanceof HarnessError) {
      log(`conformance: error: ${e.message}`);
      return EXIT.harness;
    }
    log(`conformance: internal error: ${(e as Error).stack ?? e}`);
    return EXIT.harness;
  }
  if (code === undefined) {
    // no command given
    program.outputHelp();
    return EXIT.usage;
  }
  return code;
}
