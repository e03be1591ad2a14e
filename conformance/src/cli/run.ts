// `conformance run`: start a target, run the suite against it, write the reports; the exit code
// is the run's (see report/results.ts EXIT).
import { type Command, Option } from 'commander';
import { ENV_VARS, type RawOptions } from '../run/config.js';
import { runConformance } from '../run/run-conformance.js';
import { UsageError } from '../errors.js';
import { EXIT } from '../report/results.js';
import { log } from './log.js';

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

export function registerRun(program: Command, onExit: (code: number) => void): void {
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
      '--provider-states-protocol <version>',
      'the provider-state protocol version the endpoint implements (default: what its setup answers declare as `protocol`, else 1.0.0); the suite sends nothing newer [CONFORMANCE_PROVIDER_STATES_PROTOCOL]',
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
      '--absence-factor <n>',
      'an effect a refused request must not have is judged absent after n times as long as the accepted case took to show it (default 3) [CONFORMANCE_ABSENCE_FACTOR]',
    )
    .option(
      '--absence-floor <s>',
      '... and never sooner than this many seconds (default 2; both capped by --async-timeout) [CONFORMANCE_ABSENCE_FLOOR]',
    )
    .option(
      '--clock-tolerance <ms>',
      "how far the target's clock may be from the runner's when a timestamp is checked against now (default 3000000 = 50 min) [CONFORMANCE_CLOCK_TOLERANCE]",
    )
    .option(
      '--concurrency <n>',
      'most tests in flight at once: 8 per suite file in ceil(n/8) worker threads, at most 8 threads and then more tests per file (default: 128 when the target answers in 20 ms or more, else 16; 1 = one test at a time) [CONFORMANCE_CONCURRENCY]',
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
      '--min-judged <n|n%>',
      'fail (exit 1) a run that judged (passed or failed) fewer of its selected testable requirements, e.g. 100% or 120; without it only a run that judged nothing is refused (exit 4, inconclusive) [CONFORMANCE_MIN_JUDGED]',
    )
    .option(
      '--require-protocol <version>',
      'fail (exit 1) a run whose provider-state endpoint speaks an older protocol than this, e.g. 1.1.0 [CONFORMANCE_REQUIRE_PROTOCOL]',
    )
    .option(
      '--retries <n>',
      'run a test that ended error because the target did not answer in time again, alone, after the run, up to n times (default 1; 0 = never); one that passes then is reported flaky [CONFORMANCE_RETRIES]',
    )
    .option(
      '--fail-on-flaky',
      'a test that passed only when run again fails the run (exit 1) [CONFORMANCE_FAIL_ON_FLAKY]',
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
      '--skip-shrink',
      'a failing model-based test reports the first failing sequence as found instead of shrinking it to a shorter one (faster when only the verdict matters, as in the mutation run) [CONFORMANCE_SKIP_SHRINK]',
    )
    .option(
      '--record-har <file>',
      "write the suite's own traffic as HAR 1.2 (credentials redacted), e.g. for a browser's developer tools",
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
}

async function runCommand(raw: RawOptions): Promise<number> {
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = sig;
    log(`conformance: ${sig}: cancelling the run and stopping the target`);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const results = await runConformance(
      raw,
      // the command line always writes its reports (default reports/latest)
      {
        env: process.env,
        log,
        out: (s) => process.stdout.write(s),
        signal: controller.signal,
        writeReports: true,
      },
    );
    return results.exitCode;
  } catch (e) {
    if (interrupted) return interrupted === 'SIGINT' ? 130 : 143;
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError ? EXIT.usage : EXIT.harness;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
