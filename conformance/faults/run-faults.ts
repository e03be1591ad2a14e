// The mutation run (`npm run test:faults`): proves that the conformance suite fails for the right
// reason. Starts ONE reference server (local child process, temp SQLite file, --provider-states),
// runs the core suite against it directly (it must pass every core requirement), then, for each
// fault of the catalogue, puts the fault-injecting proxy in front of it and runs the tests of the
// fault's requirements through the proxy. A fault is caught when at least one of its mapped
// requirements has the result `failed`. Writes reports/mutation.json and reports/mutation.md.
//
// Exit codes: 0 the reference passes core and every fault is caught; 1 otherwise; 2 usage error.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import type { RequirementResult, RunResults } from '../src/results.js';
import { FAULTS } from './catalogue/index.js';
import type { Fault } from './fault.js';
import { startFaultProxy } from './proxy.js';
import { ROOT } from '../../spec/paths.js';

const SERVER_BIN = path.join(ROOT, 'reference-server/bin/reference-server.mjs');
const CONFORMANCE_BIN = path.join(ROOT, 'conformance/bin/conformance.mjs');

const log = (s: string) => process.stderr.write(`${s}\n`);

export interface FaultOutcome {
  name: string;
  area: string;
  description: string;
  requirements: string[];
  caught: boolean;
  /** caught; uncaught (the suite passed or skipped the mapped requirements); error (the run itself failed) */
  status: 'caught' | 'uncaught' | 'error';
  /** mapped requirement IDs with result `failed` */
  failing: string[];
  /** result of every mapped requirement */
  results: Record<string, RequirementResult | 'missing'>;
  exitCode: number | null;
  durationMs: number;
  reportDir: string;
  /** why a fault could not be judged (harness error, baseline not passing, proxy errors, ...) */
  notes: string[];
}

export interface BaselineOutcome {
  ok: boolean;
  skipped: boolean;
  exitCode: number | null;
  durationMs: number;
  /** core requirements that did not pass (id → result) */
  notPassing: Record<string, string>;
  counts?: Record<string, number>;
  reportDir: string;
}

interface Options {
  only?: string;
  concurrency: string;
  reportDir: string;
  upstream?: string;
  skipBaseline?: boolean;
  timeout: string;
}

// ---------------------------------------------------------------------------------------------
// Processes

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(url: string, child: ChildProcess | undefined, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    if (child && child.exitCode !== null)
      throw new Error(`the reference server exited with code ${child.exitCode} before it was healthy`);
    try {
      const r = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2_000) });
      if (r.status === 200) return;
      last = `status ${r.status}`;
    } catch (e) {
      last = (e as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url}/health did not answer 200 within ${timeoutMs} ms (${last})`);
}

interface Reference {
  url: string;
  stop(): Promise<void>;
}

async function startReference(reportDir: string): Promise<Reference> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rflps-faults-'));
  const db = path.join(tmp, 'reference.db');
  const port = await freePort();
  const logFile = path.join(reportDir, 'reference-server.log');
  fs.mkdirSync(reportDir, { recursive: true });
  const out = fs.openSync(logFile, 'w');
  const child = spawn(
    process.execPath,
    [SERVER_BIN, '--port', String(port), '--host', '127.0.0.1', '--provider-states', '--db', db],
    {
      cwd: ROOT,
      stdio: ['ignore', out, out],
      env: { ...process.env, REFERENCE_PROVIDER_STATES: '1' },
    },
  );
  fs.closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const gone = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await gone;
      clearTimeout(timer);
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  };
  try {
    await waitHealthy(url, child, 60_000);
  } catch (e) {
    await stop();
    throw new Error(`${(e as Error).message}; see ${path.relative(ROOT, logFile)}`, { cause: e });
  }
  log(`reference server: ${url} (db ${db}, pid ${child.pid})`);
  return { url, stop };
}

export interface ConformanceRun {
  exitCode: number | null;
  durationMs: number;
  results?: RunResults;
  error?: string;
}

/** `conformance run` against `baseUrl` (core profile), results.json read back. */
async function runConformance(
  baseUrl: string,
  requirements: string[] | undefined,
  reportDir: string,
  timeoutMs: number,
  include?: string[],
): Promise<ConformanceRun> {
  fs.rmSync(reportDir, { recursive: true, force: true });
  fs.mkdirSync(reportDir, { recursive: true });
  const args = [
    CONFORMANCE_BIN,
    'run',
    '--base-url',
    baseUrl,
    '--provider-states-url',
    `${baseUrl}/_provider-states`,
    '--profile',
    'core',
    '--report-dir',
    reportDir,
  ];
  if (requirements?.length) args.push('--requirements', requirements.join(','));
  if (include?.length) args.push('--include', include.join(','));
  const started = Date.now();
  const out = fs.openSync(path.join(reportDir, 'run.log'), 'w');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    stdio: ['ignore', out, out],
    env: { ...process.env, CI: '' },
  });
  fs.closeSync(out);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  }, timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  clearTimeout(timer);
  const durationMs = Date.now() - started;
  const file = path.join(reportDir, 'results.json');
  let results: RunResults | undefined;
  let error: string | undefined;
  try {
    results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
  } catch (e) {
    error = `no readable ${path.relative(ROOT, file)} (${(e as Error).message})`;
  }
  if (timedOut) error = `timed out after ${timeoutMs} ms${error ? `; ${error}` : ''}`;
  if (error)
    error += `; see ${path.relative(ROOT, path.join(reportDir, 'run.log'))}${lastErrorLine(path.join(reportDir, 'run.log'))}`;
  return { exitCode, durationMs, results, error };
}

function lastErrorLine(file: string): string {
  try {
    const line = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .find((l) => /error/i.test(l));
    return line ? ` (${line.trim().slice(0, 200)})` : '';
  } catch {
    return '';
  }
}

export interface ListedTest {
  file: string;
  requirements: string[];
  profile?: string;
}

/** The suite's tests and the requirements they verify (`conformance list --json`, one collection). */
async function listSuite(): Promise<ListedTest[] | undefined> {
  const child = spawn(process.execPath, [CONFORMANCE_BIN, 'list', '--json'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  if (code !== 0) return undefined;
  try {
    const list = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return Array.isArray(list) ? (list as ListedTest[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Suite files holding a core test of one of `patterns` (IDs or prefixes); undefined: run every file. */
export function filesFor(tests: ListedTest[] | undefined, patterns: string[]): string[] | undefined {
  if (!tests) return undefined;
  const files = new Set<string>();
  for (const t of tests) {
    if ((t.profile ?? 'core') !== 'core') continue;
    if (t.requirements.some((id) => patterns.some((p) => id === p || id.startsWith(p)))) files.add(t.file);
  }
  return files.size ? [...files].sort() : undefined;
}

// ---------------------------------------------------------------------------------------------
// Judging

export function resultsById(results: RunResults | undefined): Map<string, RequirementResult> {
  return new Map((results?.requirements ?? []).map((r) => [r.id, r.result]));
}

export function judgeBaseline(run: ConformanceRun, reportDir: string): BaselineOutcome {
  const notPassing: Record<string, string> = {};
  for (const r of run.results?.requirements ?? []) {
    if (r.level !== 'core') continue;
    if (r.result !== 'passed' && r.result !== 'not-testable') notPassing[r.id] = r.result;
  }
  const ok = run.exitCode === 0 && !!run.results && Object.keys(notPassing).length === 0;
  if (run.error) notPassing['(run)'] = run.error;
  return {
    ok,
    skipped: false,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    notPassing,
    counts: run.results?.counts,
    reportDir,
  };
}

export function judgeFault(
  fault: Fault,
  run: ConformanceRun,
  baseline: Map<string, RequirementResult> | undefined,
  reportDir: string,
  proxyErrors: number,
): FaultOutcome {
  const byId = resultsById(run.results);
  const results: Record<string, RequirementResult | 'missing'> = {};
  for (const id of fault.requirements) results[id] = byId.get(id) ?? 'missing';
  const notes: string[] = [];
  if (run.error) notes.push(run.error);
  if (run.exitCode !== null && run.exitCode > 1)
    notes.push(`conformance exited ${run.exitCode} (usage or harness error)`);
  if (proxyErrors > 0) notes.push(`${proxyErrors} proxy error(s)`);
  const failing = fault.requirements.filter((id) => results[id] === 'failed');
  // A failure proves nothing when the requirement does not pass against the reference itself.
  const valid = failing.filter((id) => !baseline || baseline.get(id) === 'passed');
  for (const id of failing)
    if (baseline && baseline.get(id) !== 'passed')
      notes.push(`${id} is ${baseline.get(id) ?? 'missing'} in the baseline`);
  for (const id of fault.requirements)
    if (results[id] !== 'failed' && results[id] !== 'passed') notes.push(`${id}: ${results[id]}`);
  const harnessFailed = !run.results || (run.exitCode !== null && run.exitCode > 1) || !!run.error;
  return {
    name: fault.name,
    area: fault.area,
    description: fault.description,
    requirements: fault.requirements,
    caught: valid.length > 0,
    status: valid.length > 0 ? 'caught' : harnessFailed ? 'error' : 'uncaught',
    failing,
    results,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    reportDir: path.relative(ROOT, reportDir),
    notes,
  };
}

// ---------------------------------------------------------------------------------------------
// Reports

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

function fmtMs(ms: number): string {
  const s = Math.round(ms / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

export function renderMarkdown(o: {
  baseline: BaselineOutcome;
  outcomes: FaultOutcome[];
  wallMs: number;
  startedAt: string;
}): string {
  const caught = o.outcomes.filter((f) => f.caught).length;
  const lines = [
    '# Mutation run: fault-injecting proxy',
    '',
    `Started ${o.startedAt}; wall time ${fmtMs(o.wallMs)}.`,
    '',
    `- Baseline (reference server, core profile, no proxy): ${
      o.baseline.skipped
        ? 'skipped'
        : o.baseline.ok
          ? 'passes every core requirement'
          : `**FAILS** (${Object.entries(o.baseline.notPassing)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')})`
    }`,
    `- Mutation score: **${caught}/${o.outcomes.length}** faults caught${o.outcomes.length ? ` (${Math.round((100 * caught) / o.outcomes.length)}%)` : ''}`,
  ];
  const uncaught = o.outcomes.filter((f) => !f.caught);
  if (uncaught.length) lines.push(`- Uncaught: ${uncaught.map((f) => `\`${f.name}\``).join(', ')}`);
  lines.push(
    '',
    '| fault | area | requirements | caught | failing | other results | notes |',
    '|---|---|---|---|---|---|---|',
  );
  for (const f of o.outcomes) {
    const other = Object.entries(f.results)
      .filter(([, r]) => r !== 'failed')
      .map(([id, r]) => `${id} ${r}`)
      .join(', ');
    lines.push(
      `| \`${f.name}\` | ${f.area} | ${f.requirements.join(', ')} | ${f.caught ? 'yes' : f.status === 'error' ? '**no** (run error)' : '**no**'} | ${f.failing.join(', ') || '-'} | ${other || '-'} | ${f.notes.join('; ').replace(/\|/g, '\\|') || '-'} |`,
    );
  }
  lines.push('', '## Faults', '');
  for (const f of o.outcomes) lines.push(`- \`${f.name}\` (${f.area}; ${f.requirements.join(', ')}): ${f.description}`);
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------------
// Main

async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let i = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(n, items.length)) }, async () => {
    while (i < items.length) {
      const k = i++;
      out[k] = await fn(items[k]!);
    }
  });
  await Promise.all(workers);
  return out;
}

export function selectFaults(only: string | undefined): Fault[] {
  if (!only) return [...FAULTS];
  const names = only
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !FAULTS.some((f) => f.name === n));
  if (unknown.length)
    throw new CommanderError(
      2,
      'faults.unknown',
      `unknown fault(s): ${unknown.join(', ')}; known: ${FAULTS.map((f) => f.name).join(', ')}`,
    );
  return FAULTS.filter((f) => names.includes(f.name));
}

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('run-faults')
    .description(
      "Mutation run: start the reference server, check that it passes the core suite, then run the tests of each fault's " +
        'requirements through the fault-injecting proxy and report which faults the suite catches. ' +
        'Exit codes: 0 baseline passes and every fault is caught, 1 otherwise, 2 usage error.',
    )
    .option('--only <names>', 'comma list of fault names to run (default: all)')
    .option('--concurrency <n>', 'faults run at the same time, each with its own proxy', '2')
    .option('--report-dir <dir>', 'reports directory (mutation.json, mutation.md, faults/<name>/)', 'reports')
    .option(
      '--upstream <url>',
      'use this running reference server (started with provider states) instead of starting one',
    )
    .option(
      '--skip-baseline',
      'do not run the suite against the reference first (development only; the run then cannot pass)',
    )
    .option('--timeout <ms>', 'time limit of one conformance run', '600000')
    .option('--list', 'print the fault catalogue and exit')
    .exitOverride()
    .showHelpAfterError();
  let opts: Options & { list?: boolean };
  let faults: Fault[];
  try {
    program.parse(argv);
    opts = program.opts();
    faults = selectFaults(opts.only);
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      if (e.code === 'faults.unknown') log(`run-faults: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (opts.list) {
    process.stdout.write(
      table([
        ['fault', 'area', 'requirements', 'description'],
        ...faults.map((f) => [f.name, f.area, f.requirements.join(','), f.description]),
      ]) + '\n',
    );
    return 0;
  }
  const concurrency = Number(opts.concurrency);
  const timeoutMs = Number(opts.timeout);
  if (!Number.isInteger(concurrency) || concurrency < 1 || !Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    log('run-faults: --concurrency must be a positive integer and --timeout a positive number');
    return 2;
  }

  const t0 = Date.now();
  const startedAt = new Date(t0).toISOString();
  const reportDir = path.resolve(ROOT, opts.reportDir);
  const faultsDir = path.join(reportDir, 'faults');
  fs.mkdirSync(faultsDir, { recursive: true });

  let ref: Reference;
  try {
    ref = opts.upstream
      ? { url: opts.upstream.replace(/\/+$/, ''), stop: async () => {} }
      : await startReference(faultsDir);
    if (opts.upstream) await waitHealthy(ref.url, undefined, 10_000);
  } catch (e) {
    log(`run-faults: cannot start the reference server: ${(e as Error).message}`);
    return 1;
  }
  const stopAll = async () => {
    await ref.stop();
  };
  process.once('SIGINT', () => void stopAll().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stopAll().then(() => process.exit(143)));

  let baseline: BaselineOutcome;
  let baselineResults: Map<string, RequirementResult> | undefined;
  const outcomes: FaultOutcome[] = [];
  try {
    const baseDir = path.join(faultsDir, '_baseline');
    if (opts.skipBaseline) {
      baseline = {
        ok: false,
        skipped: true,
        exitCode: null,
        durationMs: 0,
        notPassing: {},
        reportDir: path.relative(ROOT, baseDir),
      };
      log('baseline: skipped (--skip-baseline)');
    } else {
      log('baseline: core suite against the reference server (no proxy) ...');
      const run = await runConformance(ref.url, undefined, baseDir, timeoutMs);
      baseline = judgeBaseline(run, path.relative(ROOT, baseDir));
      baselineResults = resultsById(run.results);
      log(
        `baseline: ${baseline.ok ? 'passes every core requirement' : 'FAILS'} in ${fmtMs(run.durationMs)}` +
          (baseline.ok
            ? ''
            : `: ${Object.entries(baseline.notPassing)
                .map(([k, v]) => `${k} ${v}`)
                .join(', ')}`),
      );
    }

    const suite = await listSuite();
    if (!suite) log('conformance list --json failed: every fault run collects every suite file (slower)');
    let done = 0;
    const results = await pool(faults, concurrency, async (fault) => {
      const dir = path.join(faultsDir, fault.name);
      const proxy = await startFaultProxy({ upstream: ref.url, fault, log: (l) => log(`[${fault.name}] ${l}`) });
      let run: ConformanceRun;
      try {
        const select = fault.select ?? fault.requirements;
        run = await runConformance(proxy.url, select, dir, timeoutMs, filesFor(suite, select));
      } finally {
        await proxy.close();
      }
      const o = judgeFault(fault, run, baselineResults, dir, proxy.stats.errors);
      done++;
      log(
        `[${done}/${faults.length}] ${fault.name}: ${o.status === 'caught' ? 'caught' : o.status === 'error' ? 'RUN ERROR' : 'NOT CAUGHT'} (${
          o.failing.join(', ') ||
          Object.entries(o.results)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ')
        }) ${fmtMs(o.durationMs)}`,
      );
      return o;
    });
    outcomes.push(...results);
  } finally {
    await stopAll();
  }

  const wallMs = Date.now() - t0;
  const caught = outcomes.filter((o) => o.caught).length;
  const uncaught = outcomes.filter((o) => !o.caught);
  process.stdout.write(
    '\n' +
      table([
        ['fault', 'requirements', 'caught', 'failing'],
        ...outcomes.map((o) => [
          o.name,
          o.requirements.join(','),
          o.caught ? 'yes' : o.status === 'error' ? 'NO (run error)' : 'NO',
          o.failing.join(',') || '-',
        ]),
      ]) +
      '\n\n',
  );
  process.stdout.write(
    `baseline: ${baseline.skipped ? 'skipped' : baseline.ok ? 'reference passes every core requirement' : 'reference FAILS core'}\n`,
  );
  process.stdout.write(
    `mutation score: ${caught}/${outcomes.length}${outcomes.length ? ` (${Math.round((100 * caught) / outcomes.length)}%)` : ''}\n`,
  );
  if (uncaught.length) {
    process.stdout.write(`uncaught faults (${uncaught.length}):\n`);
    for (const o of uncaught)
      process.stdout.write(
        `  - ${o.name} [${o.requirements.join(', ')}]: ${Object.entries(o.results)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}${o.notes.length ? `; ${o.notes.join('; ')}` : ''}\n`,
      );
  }
  process.stdout.write(`wall time: ${fmtMs(wallMs)}\n`);

  const json = {
    schema: 'rflps-mutation/1',
    startedAt,
    wallMs,
    concurrency,
    baseline,
    score: { caught, total: outcomes.length },
    uncaught: uncaught.map((o) => o.name),
    faults: outcomes,
  };
  fs.writeFileSync(path.join(reportDir, 'mutation.json'), JSON.stringify(json, null, 2) + '\n');
  fs.writeFileSync(path.join(reportDir, 'mutation.md'), renderMarkdown({ baseline, outcomes, wallMs, startedAt }));
  log(`wrote ${path.relative(ROOT, path.join(reportDir, 'mutation.json'))} and mutation.md`);

  const baselineOk = baseline.ok && !baseline.skipped;
  return baselineOk && uncaught.length === 0 ? 0 : 1;
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
