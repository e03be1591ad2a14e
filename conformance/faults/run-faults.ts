// The mutation run (`npm run test:faults`): proves that the conformance suite fails for the right
// reason and never fails a correct implementation. Runs the core suite against a plain reference
// server (the baseline: it must pass every core requirement, and it tells which operations each
// test calls), then, for each fault AND each control of the catalogues, starts a reference server
// of its own (temp SQLite file, --provider-states, the control's server flags), puts the proxy with
// the fault's or the control's rewrite in front of it and runs through it the tests that call an
// operation the rewrite touches (runner/select.ts). Every run is a library call in this process
// (runConformance); nothing that carries state is shared between two runs.
// - A fault is caught when at least one of its mapped requirements has the result `failed`; the
//   number of requirements it fails is recorded (runner/judge.ts).
// - A control passes when every core requirement it ran that passed in the baseline passes again;
//   any other result is a false alarm of the suite.
// - A caught fault may fail requirements it does not name only as many as
//   known-extra-failures.yaml allows it (runner/extra-failures.ts): one bug, one red line.
// Writes reports/mutation.json and reports/mutation.md (runner/report.ts).
//
// Exit codes: 0 the reference passes core, every fault is caught within its allowance and every control passes;
// 1 otherwise; 2 usage error.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import type { RequirementResult } from '../src/report/results.js';
import { randomSeed } from '../src/run/config.js';
import type { Control, Fault } from './fault.js';
import { buildRunBundles } from './bundles.js';
import {
  describeAlarms,
  judgeControl,
  judgeFault,
  onlyLoadSymptoms,
  type BaselineOutcome,
  type ControlOutcome,
  type FaultOutcome,
  type FaultScope,
} from './runner/judge.js';
import { fmtMs, mutationJson, renderMarkdown, summaryText, table } from './runner/report.js';
import { runJob, type RunSettings } from './runner/run-job.js';
import { openSuiteSession, type SuiteSession } from '../src/run/suite-session.js';
import {
  costliestFirst,
  expectedCost,
  jobDelayMs,
  jobName,
  jobSelection,
  needsBaseline,
  selectControls,
  selectFaults,
  type Job,
  type JobSelection,
  type SuiteTest,
} from './runner/select.js';
import { ServerPool } from './runner/servers.js';
import { CONTROL_GROUPS, composeControls } from './runner/control-groups.js';
import { judgeExtraFailures, readAllowance, type ExtraFailureVerdict } from './runner/extra-failures.js';
import { establishBaseline } from './runner/baseline.js';
import { overSeeds, seedAt, type SeedOutcome } from './runner/seeds.js';
import { ROOT } from '../../spec/paths.js';

const log = (s: string) => process.stderr.write(`${s}\n`);

interface Options {
  only?: string;
  concurrency: string;
  reportDir: string;
  skipBaseline?: boolean;
  baselineResults?: string;
  timeout: string;
  runConcurrency: string;
  seed?: string;
  seeds: string;
  bundle: boolean;
  session: boolean;
  list?: boolean;
  faultsOnly?: boolean;
  controlsOnly?: boolean;
  wholeFiles?: boolean;
  namedTests?: boolean;
  groupControls?: boolean;
  wholeSuite?: boolean;
  strictDiagnosis?: boolean;
}

/**
 * 4 on 2 cores: a run often waits (an absence watched for 2 s, polling), so more runs than cores keep
 * both busy. farm-bench, 2 pairs of full runs: 4 at once 192.6 s (CPU 326 s), 5 at once 196.7 s (CPU
 * 355 s); 3 at once took 213 s in a single run.
 */
const RUNS_AT_ONCE = '4';

function program(): Command {
  return new Command()
    .name('run-faults')
    .description(
      'Mutation run: check that the reference server passes the core suite, then run every fault and every control ' +
        'through the fault-injecting proxy, each in front of a reference server of its own, and report which faults the ' +
        'suite catches (mutation score), which controls it fails (false alarms) and how many requirements each fault fails. ' +
        'Exit codes: 0 baseline passes, every fault is caught (failing no more requirements it does not name than allowed) and every control passes; 1 otherwise; 2 usage error.',
    )
    .option('--only <names>', 'comma list of fault and control names to run (default: all)')
    .option('--faults-only', 'run the faults, not the controls')
    .option('--controls-only', 'run the controls, not the faults')
    .option(
      '--whole-files',
      "run every test of the suite files of each fault's and control's requirements, not the tests of the whole suite that call an operation it rewrites (faster; blind to what a fault fails in other files)",
    )
    .option(
      '--named-tests',
      "run, for each fault, only the tests of its selected requirements (npm test's gate: caught or not, and the red lines those tests show; blind to what a fault fails elsewhere)",
    )
    .option(
      '--group-controls',
      "run the controls of each group of runner/control-groups.ts as one run (npm test's gate: the costliest controls, each choosing on another open point); a group with a false alarm runs its controls alone",
    )
    .option(
      '--whole-suite',
      'run the whole core suite for each fault, not only the tests that call an operation it rewrites (the same figures, slower: the check of that claim)',
    )
    .option(
      '--strict-diagnosis',
      'exit 1 when a caught fault fails any core requirement it does not name (one bug, one red line); without it, ' +
        'exit 1 when a fault fails more of them than conformance/faults/known-extra-failures.yaml allows',
    )
    .option('--concurrency <n>', 'runs at the same time, each with its own reference server and proxy', RUNS_AT_ONCE)
    .option('--report-dir <dir>', 'reports directory (mutation.json, mutation.md, faults/<name>/)', 'reports')
    .option(
      '--skip-baseline',
      'do not run the suite against the reference first (development only; the run then cannot pass, and every run covers whole files)',
    )
    .option(
      '--baseline-results <file>',
      'use the results.json of an earlier baseline run instead of running the baseline (development: iterate on a few runs; its seed is used)',
    )
    .option('--seed <n>', 'the seed of every run (default: chosen at random, printed and reported)')
    .option(
      '--seeds <n>',
      'run each caught fault under this many seeds (the first, then seeds derived from it); caught only when every seed catches it',
      '1',
    )
    .option('--timeout <ms>', 'time limit of one conformance run', '600000')
    .option('--run-concurrency <n>', 'tests in flight within each run (on one worker thread)', '8')
    .option(
      '--no-session',
      "every run on a vitest instance of its own (default: one suite session per lane: its instance, worker thread and loaded modules serve the lane's runs)",
    )
    .option(
      '--no-bundle',
      "start the reference servers' hosts from their sources through tsx (default: an esbuild bundle, built at the start)",
    )
    .option('--list', 'print the fault and control catalogues and exit')
    .exitOverride()
    .showHelpAfterError();
}

function listing(faults: Fault[], controls: Control[]): string {
  return (
    table([
      ['fault', 'area', 'requirements', 'description'],
      ...faults.map((f) => [f.name, f.area, f.requirements.join(','), f.description]),
    ]) +
    '\n\n' +
    table([
      ['control', 'area', 'bindings/flags', 'description'],
      ...controls.map((c) => [
        c.name,
        c.area,
        [c.config ? 'bindings' : '', c.serverFlags?.join(' ') ?? ''].filter(Boolean).join(', ') || '-',
        c.description,
      ]),
    ]) +
    '\n'
  );
}

/**
 * Runs `fn` over the items `next` gives, `n` at a time (`lane`: which of the n runs it); `next`
 * may wait for more (undefined: no more).
 */
async function pool<T>(
  n: number,
  next: () => T | undefined | Promise<T | undefined>,
  fn: (t: T, lane: number) => Promise<void>,
): Promise<void> {
  const lanes = Array.from({ length: Math.max(1, n) }, async (_, lane) => {
    for (let t = await next(); t !== undefined; t = await next()) await fn(t, lane);
  });
  await Promise.all(lanes);
}

async function main(argv: string[]): Promise<number> {
  const cmd = program();
  let opts: Options;
  let faults: Fault[];
  let controls: Control[];
  try {
    cmd.parse(argv);
    opts = cmd.opts();
    faults = opts.controlsOnly ? [] : selectFaults(opts.only);
    controls = opts.faultsOnly ? [] : selectControls(opts.only);
    if (opts.controlsOnly && opts.only) selectFaults(opts.only); // still refuses unknown names
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      if (e.code === 'faults.unknown') log(`run-faults: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (opts.list) {
    process.stdout.write(listing(faults, controls));
    return 0;
  }
  const concurrency = Number(opts.concurrency);
  const scope: FaultScope = opts.wholeSuite
    ? 'whole-suite'
    : opts.wholeFiles
      ? 'whole-files'
      : opts.namedTests
        ? 'named-tests'
        : 'operations';
  const timeoutMs = Number(opts.timeout);
  const runConcurrency = Number(opts.runConcurrency);
  const seeds = Number(opts.seeds);
  const seedGiven = opts.seed !== undefined ? Number(opts.seed) : undefined;
  if (
    ![concurrency, runConcurrency, seeds].every((n) => Number.isInteger(n) && n >= 1) ||
    !Number.isFinite(timeoutMs) ||
    timeoutMs <= 0 ||
    (seedGiven !== undefined && !Number.isInteger(seedGiven))
  ) {
    log(
      'run-faults: --concurrency, --run-concurrency and --seeds must be positive integers, --timeout a positive number and --seed an integer',
    );
    return 2;
  }

  const t0 = Date.now();
  const startedAt = new Date(t0).toISOString();
  let serverBin: string | undefined;
  if (opts.bundle) {
    serverBin = (await buildRunBundles()).host;
    log(`bundle: ${path.relative(ROOT, serverBin)} (${Date.now() - t0} ms)`);
  }
  const reportDir = path.resolve(ROOT, opts.reportDir);
  const faultsDir = path.join(reportDir, 'faults');
  fs.mkdirSync(faultsDir, { recursive: true });
  const servers = new ServerPool(path.join(faultsDir, '_servers'), concurrency, serverBin);
  process.once('SIGINT', () => void servers.close().then(() => process.exit(130)));
  process.once('SIGTERM', () => void servers.close().then(() => process.exit(143)));

  // --group-controls: a group whose every member is selected runs as one job in their place
  const groups = opts.groupControls
    ? CONTROL_GROUPS.map((g) => g.members.map((m) => controls.find((c) => c.name === m))).flatMap((members, i) =>
        members.every((c) => c !== undefined) ? [{ name: CONTROL_GROUPS[i]!.name, members }] : [],
      )
    : [];
  const grouped = new Set(groups.flatMap((g) => g.members));
  const jobs: Job[] = [
    ...faults.map((fault) => ({ kind: 'fault' as const, fault })),
    ...controls.filter((c) => !grouped.has(c)).map((control) => ({ kind: 'control' as const, control })),
    ...groups.map((g) => ({
      kind: 'control' as const,
      control: composeControls(g.name, g.members),
      members: g.members,
    })),
  ];
  /** runs planned (a group that has a false alarm adds a run per member) */
  let planned = jobs.length;
  const sessions: SuiteSession[] = [];
  let baseline: BaselineOutcome = {
    ok: false,
    skipped: true,
    exitCode: null,
    durationMs: 0,
    notPassing: {},
    reportDir: '',
  };
  let baselineResults: Map<string, RequirementResult> | undefined;
  let seed = seedGiven ?? randomSeed();
  const outcomes: FaultOutcome[] = [];
  const controlOutcomes: ControlOutcome[] = [];
  /** the faults judged against known-extra-failures.yaml, once every run is done */
  let extraFailures: ExtraFailureVerdict | undefined = undefined;
  const catalogueOrder = [...faults, ...controls].map((x) => x.name);
  const inCatalogueOrder = () => {
    const order = (name: string) => catalogueOrder.indexOf(name);
    outcomes.sort((a, b) => order(a.name) - order(b.name));
    controlOutcomes.sort((a, b) => order(a.name) - order(b.name));
  };
  /** reports/mutation.{json,md}; written after every run too, so an interrupted run leaves its figures (marked partial). */
  const writeReports = (final: boolean) => {
    inCatalogueOrder();
    const wallMs = Date.now() - t0;
    const complete = outcomes.length + controlOutcomes.length === faults.length + controls.length;
    const json = mutationJson({
      startedAt,
      wallMs,
      complete,
      planned: { faults: faults.length, controls: controls.length },
      concurrency,
      scope,
      seed,
      seedsPerFault: seeds,
      baseline,
      outcomes,
      controls: controlOutcomes,
      extraFailures,
    });
    fs.writeFileSync(path.join(reportDir, 'mutation.json'), JSON.stringify(json, null, 2) + '\n');
    fs.writeFileSync(
      path.join(reportDir, 'mutation.md'),
      renderMarkdown({
        baseline,
        outcomes,
        controls: controlOutcomes,
        wallMs,
        startedAt,
        concurrency,
        partial:
          complete || final
            ? undefined
            : `${outcomes.length + controlOutcomes.length} of ${faults.length + controls.length} faults and controls done`,
        scope,
        extraFailures,
      }),
    );
  };
  try {
    // Faults that run the whole suite whatever the baseline says start beside it; the rest wait for
    // it (their tests are chosen by what each test called there). A read or skipped baseline is
    // done at once, and --baseline-results brings its own seed, so nothing starts before it then.
    const baselineRuns = !opts.baselineResults && !opts.skipBaseline;
    const early = baselineRuns ? jobs.filter((job) => !needsBaseline(job, scope)) : [];
    const baselineDone = establishBaseline({
      from: opts.baselineResults,
      skip: opts.skipBaseline,
      dir: path.join(faultsDir, '_baseline'),
      servers,
      seed,
      timeoutMs,
      log,
    }).then((b) => {
      baseline = b.outcome;
      baselineResults = b.byId;
      seed = b.seed;
      return b.suite;
    });
    // early jobs run with the given seed, which is the baseline's when it runs
    const settings = (): RunSettings => ({ timeoutMs, concurrency: runConcurrency, seed });
    let done = 0;
    const selections = new Map<Job, JobSelection>(early.map((job) => [job, jobSelection(job, scope, undefined)]));
    const queue: Job[] = [...early];
    let suiteTests: SuiteTest[] | undefined;
    const rest = baselineDone.then((suite) => {
      suiteTests = suite;
      const later = jobs.filter((job) => !early.includes(job));
      for (const job of later) selections.set(job, jobSelection(job, scope, suite));
      queue.push(...costliestFirst(later, (job) => expectedCost(selections.get(job)!, suite, jobDelayMs(job))));
    });
    rest.catch(() => undefined); // awaited below; a failed baseline fails the run there
    // a lane that finds the queue empty waits for the baseline once; after it, empty means done
    const nextJob = async () => queue.shift() ?? (await rest, queue.shift());
    /** The fault's outcome over --seeds seeds: the first one's, judged again under each other seed. */
    const alsoOnOtherSeeds = async (
      job: Job & { kind: 'fault' },
      first: FaultOutcome,
      selection: JobSelection,
      session: SuiteSession | undefined,
    ) => {
      const more: SeedOutcome[] = [];
      for (let k = 1; k < seeds; k++) {
        const s = seedAt(seed, k);
        const dir = path.join(faultsDir, job.fault.name, `seed-${s}`);
        const again = await runJob(job, job.fault.name, dir, {
          servers,
          selection,
          settings: { ...settings(), seed: s },
          log,
          session,
        });
        more.push({ seed: s, outcome: judgeFault(job.fault, again.run, baselineResults, dir, again.proxyErrors) });
      }
      return overSeeds({ seed, outcome: first }, more);
    };
    await pool(concurrency, nextJob, async (job, lane) => {
      const name = jobName(job);
      const dir = path.join(faultsDir, name);
      const selection = selections.get(job)!;
      // one suite session per lane: consecutive runs of a lane share vitest, its thread and modules
      const session = opts.session ? (sessions[lane] ??= openSuiteSession()) : undefined;
      const once = () => runJob(job, name, dir, { servers, selection, settings: settings(), log, session });
      const { run, proxyErrors } = await once();
      // judged against the baseline's results: an early job waits for them
      await rest;
      const tests = selection.tests
        ? `${selection.tests.length} tests`
        : selection.include
          ? 'whole files'
          : 'whole suite';
      if (job.kind === 'fault') {
        let o = judgeFault(job.fault, run, baselineResults, dir, proxyErrors);
        if (o.caught && seeds > 1) o = await alsoOnOtherSeeds(job, o, selection, session);
        outcomes.push(o);
        log(
          `[${++done}/${planned}] fault ${name}: ${o.status === 'caught' ? 'caught' : o.status === 'error' ? 'RUN ERROR' : 'NOT CAUGHT'} (${
            o.failing.join(', ') ||
            Object.entries(o.results)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')
          }; ${o.failedRequirements.length} failed in run; ${tests}) ${fmtMs(o.durationMs)}`,
        );
      } else {
        let o = judgeControl(job.control, run, baselineResults, dir, proxyErrors);
        // A control whose only complaints are errors and unmet preconditions (requests that timed
        // out, states that could not be set up) met the machine's load, not a wrong judgement of the
        // suite: it runs once more, and the second run decides. The report says so.
        if (o.status !== 'passed' && onlyLoadSymptoms(o)) {
          const first = describeAlarms(o) || o.status;
          log(`[${name}] only errors and unmet preconditions (${first}): running it once more`);
          const again = await once();
          o = judgeControl(job.control, again.run, baselineResults, dir, again.proxyErrors);
          o.notes.push(`first run: ${first}; ran once more`);
        }
        const alarms = describeAlarms(o);
        const members = job.members;
        const what = members ? `${members.length} controls: ${members.map((c) => c.name).join(', ')}; ` : '';
        log(
          `[${++done}/${planned}] control ${name}: ${o.status === 'passed' ? 'passed' : o.status === 'error' ? 'RUN ERROR' : 'FALSE ALARM'} (${what}${o.judged} judged${
            alarms ? `; ${alarms}` : ''
          }; ${tests}) ${fmtMs(o.durationMs)}`,
        );
        if (!members) controlOutcomes.push(o);
        else if (o.status === 'passed')
          // each member passed: its outcome is the group's, saying with which others it ran
          for (const c of members)
            controlOutcomes.push({
              ...o,
              name: c.name,
              area: c.area,
              description: c.description,
              allowedBy: c.allowedBy,
              notes: [
                ...o.notes,
                `passed in one run (${name}) with ${members
                  .filter((m) => m !== c)
                  .map((m) => m.name)
                  .join(', ')}`,
              ],
            });
        else {
          // which member the suite fails is told by each alone
          log(`[${name}] ${o.status}: running its ${members.length} controls alone`);
          for (const c of members) {
            const one: Job = { kind: 'control', control: c };
            selections.set(one, jobSelection(one, scope, suiteTests));
            queue.push(one);
          }
          planned += members.length;
        }
      }
      writeReports(false);
    });
    await rest;
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
    await servers.close();
  }

  const wallMs = Date.now() - t0;
  inCatalogueOrder();
  // --strict-diagnosis: no fault may fail a requirement it does not name; otherwise no more than
  // known-extra-failures.yaml allows (measured over the whole suite, as the default scope and
  // --whole-suite see it; --whole-files and --named-tests see fewer: over an entry is still over,
  // none to lower)
  extraFailures = judgeExtraFailures(
    outcomes,
    opts.strictDiagnosis ? new Map() : readAllowance(),
    scope === 'operations' || scope === 'whole-suite',
  );
  process.stdout.write(summaryText({ baseline, outcomes, controls: controlOutcomes, wallMs, extraFailures }));
  writeReports(true);
  log(`wrote ${path.relative(ROOT, path.join(reportDir, 'mutation.json'))} and mutation.md`);

  const uncaught = outcomes.filter((o) => !o.caught);
  const alarms = controlOutcomes.filter((c) => c.status !== 'passed');
  const baselineOk = baseline.ok && !baseline.skipped;
  const diagnosisOk = !extraFailures || extraFailures.over.length === 0;
  return baselineOk && uncaught.length === 0 && alarms.length === 0 && diagnosisOk ? 0 : 1;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv).then(
    (code) => process.exit(code),
    (e) => {
      log(`run-faults: ${(e as Error).stack ?? e}`);
      process.exit(1);
    },
  );
}
