// The mutation run (`npm run test:faults`): proves that the conformance suite fails for the right
// reason and never fails a correct implementation. Runs the core suite against a plain reference
// server (the baseline: it must pass every core requirement), then, for each fault AND each control
// of the catalogues, starts a reference server of its own (local child process, temp SQLite file,
// --provider-states, the control's server flags), puts the proxy with the fault's or the control's
// rewrite in front of it and runs the core tests of the suite files that hold the selected
// requirements through the proxy. Nothing that carries state is shared between two runs.
// - A fault is caught when at least one of its mapped requirements has the result `failed`; the
//   number of requirements it fails (over the whole files run) is recorded.
// - A control passes when every core requirement of its files that passed in the baseline passes
//   again; any other result is a false alarm of the suite.
// Writes reports/mutation.json and reports/mutation.md.
//
// Exit codes: 0 the reference passes core, every fault is caught and every control passes;
// 1 otherwise; 2 usage error.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import type { RequirementResult, RunResults } from '../src/report/results.js';
import { FAULTS } from './catalogue/index.js';
import { CONTROLS } from './controls/index.js';
import { stoppedByStateEndpoint } from './judge-state-endpoint.js';
import { stoppedByUndocumentedPart } from './judge-undocumented-part.js';
import type { Control, Fault } from './fault.js';
import { startFaultProxy } from './proxy.js';
import { startReferenceProcess } from '../src/targets/reference-process.js';
import { buildRunBundles } from './bundles.js';
import { CLI_BUNDLE } from '../bin/cli-bundle.mjs';
import { ROOT } from '../../spec/paths.js';

/** The commands each run starts: the sources through tsx, or the bundles main() makes ready (bundles.ts). */
const bins: { conformance: string; reference?: string } = {
  conformance: path.join(ROOT, 'conformance/bin/conformance.mjs'),
};
const REQUEST_TIMEOUT_MS = 30_000;
/** Tests in flight within one run (the CLI's --concurrency; --run-concurrency). 8 is one worker
 * thread per run: the runs side by side already fill the cores, and every worker thread loads the
 * suite's modules and compiles the spec's validators again. */
const run = { concurrency: 8 };

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
  /**
   * Every core requirement with the result `failed` in the run (over the whole suite files run,
   * not only the mapped ones): how many requirements one bug fails. `blocked` is not counted.
   */
  failedRequirements: string[];
  /** The requirements of `failedRequirements` the fault does not name: one bug, more than one red line. */
  unnamedFailures: string[];
}

/**
 * What a fault's run covers: its selected requirements (the default: is it caught?), the whole suite
 * files holding them (`--whole-files`), or the whole core suite (`--whole-suite`: the diagnosis
 * figure, how many requirements one bug fails anywhere).
 */
export type FaultScope = 'selected' | 'whole-files' | 'whole-suite';

export interface ControlOutcome {
  name: string;
  area: string;
  description: string;
  allowedBy: string;
  /** passed: every core requirement that passed in the baseline passed again; false-alarm otherwise; error: the run failed */
  status: 'passed' | 'false-alarm' | 'error';
  /** requirements that passed in the baseline and did not pass through the control (id → result) */
  falseAlarms: Record<string, string>;
  /** core requirements judged (passed in the baseline and run through the control) */
  judged: number;
  exitCode: number | null;
  durationMs: number;
  reportDir: string;
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
  skipBaseline?: boolean;
  timeout: string;
  runConcurrency: string;
}

// ---------------------------------------------------------------------------------------------
// Processes

interface Reference {
  url: string;
  stop(): Promise<void>;
}

async function startReference(reportDir: string, flags: string[] = [], quiet = false): Promise<Reference> {
  fs.mkdirSync(reportDir, { recursive: true });
  const logFile = path.join(reportDir, 'reference-server.log');
  const ref = await startReferenceProcess({
    bin: bins.reference,
    providerStates: true,
    args: ['--log-level', 'warn', ...flags],
    logFile,
  }).catch((e: Error) => {
    throw new Error(`${e.message}\nsee ${path.relative(ROOT, logFile)}`, { cause: e });
  });
  if (!quiet) log(`reference server: ${ref.url} (db ${ref.db}, pid ${ref.pid})`);
  return {
    url: ref.url,
    stop: async () => {
      await ref.stop();
    },
  };
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
  config?: Control['config'],
): Promise<ConformanceRun> {
  fs.rmSync(reportDir, { recursive: true, force: true });
  fs.mkdirSync(reportDir, { recursive: true });
  // A control's bindings reach the suite as a config file, as a vendor would give them.
  const configFile = config ? path.join(reportDir, 'control-config.yaml') : undefined;
  if (configFile) fs.writeFileSync(configFile, stringifyYaml(config));
  const args = [
    bins.conformance,
    'run',
    '--base-url',
    baseUrl,
    '--provider-states-url',
    `${baseUrl}/_provider-states`,
    '--profile',
    'core',
    '--report-dir',
    reportDir,
    // No fault or control makes the service slow or silent: a request that takes long here is the
    // machine's load (three runs and their servers at once), and must not read as a caught fault or
    // a false alarm. 30 s instead of the default 10 s per request.
    '--timeout',
    String(REQUEST_TIMEOUT_MS),
    '--concurrency',
    String(run.concurrency),
    // a fault needs the verdict, not the shortest counterexample of a model-based test
    '--skip-shrink',
  ];
  if (requirements?.length) args.push('--requirements', requirements.join(','));
  if (include?.length) args.push('--include', include.join(','));
  if (configFile) args.push('--config', configFile);
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
  const child = spawn(process.execPath, [bins.conformance, 'list', '--json'], {
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
  // One cause, one failure: a mapped requirement blocked by a root requirement that failed in the
  // same run (e.g. QRY-001 blocked by the GEN-002 schema failure of the same answer) counts as caught
  // at that root; the root is named in the notes.
  const entries = new Map((run.results?.requirements ?? []).map((r) => [r.id, r]));
  const caughtAtRoot = fault.requirements.filter(
    (id) =>
      results[id] === 'blocked' &&
      (entries.get(id)?.blockedBy ?? []).some((root) => entries.get(root)?.result === 'failed'),
  );
  for (const id of caughtAtRoot) notes.push(`${id} blocked by failed ${entries.get(id)!.blockedBy!.join(', ')}`);
  // A failure proves nothing when the requirement does not pass against the reference itself.
  const valid = [...failing, ...caughtAtRoot].filter((id) => !baseline || baseline.get(id) === 'passed');
  for (const id of failing)
    if (baseline && baseline.get(id) !== 'passed')
      notes.push(`${id} is ${baseline.get(id) ?? 'missing'} in the baseline`);
  for (const id of fault.requirements)
    if (results[id] !== 'failed' && results[id] !== 'passed') notes.push(`${id}: ${results[id]}`);
  const harnessFailed = !run.results || (run.exitCode !== null && run.exitCode > 1) || !!run.error;
  const failedInRun = coreFailed(run.results);
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
    failedRequirements: failedInRun,
    unnamedFailures: failedInRun.filter((id) => !fault.requirements.includes(id)),
  };
}

/** Core requirements with the result `failed` (blocked and other kinds are not counted). */
export function coreFailed(results: RunResults | undefined): string[] {
  return (results?.requirements ?? []).filter((r) => r.level === 'core' && r.result === 'failed').map((r) => r.id);
}

/**
 * A control passes when every core requirement that passed in the baseline and was run through the
 * control (its result is not `untested`) passed again.
 */
export function judgeControl(
  control: Control,
  run: ConformanceRun,
  baseline: Map<string, RequirementResult> | undefined,
  reportDir: string,
  proxyErrors: number,
): ControlOutcome {
  const notes: string[] = [];
  if (run.error) notes.push(run.error);
  if (run.exitCode !== null && run.exitCode > 1)
    notes.push(`conformance exited ${run.exitCode} (usage or harness error)`);
  if (proxyErrors > 0) notes.push(`${proxyErrors} proxy error(s)`);
  const falseAlarms: Record<string, string> = {};
  let judged = 0;
  let stoppedByStates = 0;
  let stoppedByPart = 0;
  for (const r of run.results?.requirements ?? []) {
    if (r.level !== 'core' || r.result === 'untested' || r.result === 'not-testable') continue;
    if (baseline && baseline.get(r.id) !== 'passed') continue;
    judged++;
    if (r.result === 'passed') continue;
    if (control.judge === 'state-endpoint' && stoppedByStateEndpoint(r)) stoppedByStates++;
    else if (control.judge === 'undocumented-part' && stoppedByUndocumentedPart(r)) stoppedByPart++;
    else falseAlarms[r.id] = r.result;
  }
  if (stoppedByStates)
    notes.push(
      `${stoppedByStates} requirement(s) not judged: the provider-state endpoint kept their tests from running (not-applicable or precondition-failed, with the state named as the reason)`,
    );
  if (stoppedByPart)
    notes.push(
      `${stoppedByPart} requirement(s) not judged: judging them needs the undocumented part the control refuses (not-applicable, with the binding named as the reason)`,
    );
  if (control.judge === 'state-endpoint' && judged - stoppedByStates === 0)
    notes.push('no requirement passed: the run proves nothing about the suite');
  const harnessFailed = !run.results || (run.exitCode !== null && run.exitCode > 1) || !!run.error;
  const provedNothing = control.judge === 'state-endpoint' && judged - stoppedByStates === 0;
  const status = harnessFailed || provedNothing ? 'error' : Object.keys(falseAlarms).length ? 'false-alarm' : 'passed';
  return {
    name: control.name,
    area: control.area,
    description: control.description,
    allowedBy: control.allowedBy,
    status,
    falseAlarms,
    judged,
    exitCode: run.exitCode,
    durationMs: run.durationMs,
    reportDir: path.relative(ROOT, reportDir),
    notes,
  };
}

/** A control outcome whose non-passing requirements are all errors or unmet preconditions. */
export function onlyLoadSymptoms(o: ControlOutcome): boolean {
  const results = Object.values(o.falseAlarms);
  return (
    o.status === 'error' || (results.length > 0 && results.every((r) => r === 'error' || r === 'precondition-failed'))
  );
}

function describeAlarms(o: ControlOutcome): string {
  return Object.entries(o.falseAlarms)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

/** Median of a list of numbers (undefined when empty). */
export function median(xs: number[]): number | undefined {
  if (xs.length === 0) return undefined;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1]! + s[m]!) / 2;
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

export interface Figures {
  faults: number;
  caught: number;
  controls: number;
  controlsFailed: number;
  /** median of `failedRequirements.length` over the caught faults */
  medianFailedPerFault?: number;
  maxFailedPerFault?: number;
}

export function figures(outcomes: FaultOutcome[], controls: ControlOutcome[]): Figures {
  const counts = outcomes.filter((o) => o.caught).map((o) => (o.failedRequirements ?? []).length);
  return {
    faults: outcomes.length,
    caught: outcomes.filter((o) => o.caught).length,
    controls: controls.length,
    controlsFailed: controls.filter((c) => c.status !== 'passed').length,
    medianFailedPerFault: median(counts),
    maxFailedPerFault: counts.length ? Math.max(...counts) : undefined,
  };
}

function pct(a: number, b: number): string {
  return b ? ` (${Math.round((100 * a) / b)}%)` : '';
}

function failedOver(scope: FaultScope): string {
  switch (scope) {
    case 'whole-suite':
      return 'every core requirement of the whole suite (--whole-suite); result `failed` only, `blocked` not counted';
    case 'whole-files':
      return "every core requirement of the suite files that hold the fault's selected requirements (--whole-files); result `failed` only, `blocked` not counted";
    default:
      return "the fault's selected requirements only (run with --whole-suite to count over the whole suite); result `failed` only";
  }
}

export function renderMarkdown(o: {
  baseline: BaselineOutcome;
  outcomes: FaultOutcome[];
  controls?: ControlOutcome[];
  wallMs: number;
  startedAt: string;
  concurrency?: number;
  /** set while the run is not finished (the report is rewritten after every run) */
  partial?: string;
  /** what the fault runs covered (default: their selected requirements) */
  scope?: FaultScope;
}): string {
  const controls = o.controls ?? [];
  const f = figures(o.outcomes, controls);
  const lines = [
    '# Mutation run: faults and controls through the fault-injecting proxy',
    '',
    ...(o.partial ? [`**Partial report: ${o.partial}.**`, ''] : []),
    `Started ${o.startedAt}; wall time ${fmtMs(o.wallMs)}${o.concurrency ? ` (concurrency ${o.concurrency}, one reference server per fault and per control)` : ''}.`,
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
    `- Mutation score: **${f.caught}/${f.faults}** faults caught${pct(f.caught, f.faults)}`,
  ];
  if (controls.length)
    lines.push(
      `- False-alarm rate: **${f.controlsFailed}/${f.controls}** controls failed${pct(f.controlsFailed, f.controls)} (target 0)`,
    );
  if (f.medianFailedPerFault !== undefined)
    lines.push(
      `- Requirements failed per caught fault: median **${f.medianFailedPerFault}**, max ${f.maxFailedPerFault} (target median <= 1, max <= 5; counted over ${failedOver(o.scope ?? 'selected')})`,
    );
  const overReaching = o.outcomes.filter((x) => x.caught && (x.unnamedFailures ?? []).length > 0);
  if (f.medianFailedPerFault !== undefined)
    lines.push(
      `- Caught faults that fail requirements they do not name: **${overReaching.length}**${
        overReaching.length
          ? ` (${overReaching.map((x) => `\`${x.name}\` +${x.unnamedFailures.join(', +')}`).join('; ')})`
          : ''
      }`,
    );
  const uncaught = o.outcomes.filter((x) => !x.caught);
  if (uncaught.length) lines.push(`- Uncaught: ${uncaught.map((x) => `\`${x.name}\``).join(', ')}`);
  const alarms = controls.filter((c) => c.status !== 'passed');
  if (alarms.length) lines.push(`- False alarms: ${alarms.map((c) => `\`${c.name}\``).join(', ')}`);
  if (o.outcomes.length) {
    lines.push(
      '',
      '## Faults',
      '',
      '| fault | area | requirements | caught | failing | failed in run | other results | notes |',
      '|---|---|---|---|---|---|---|---|',
    );
    for (const x of o.outcomes) {
      const other = Object.entries(x.results)
        .filter(([, r]) => r !== 'failed')
        .map(([id, r]) => `${id} ${r}`)
        .join(', ');
      lines.push(
        `| \`${x.name}\` | ${x.area} | ${x.requirements.join(', ')} | ${x.caught ? 'yes' : x.status === 'error' ? '**no** (run error)' : '**no**'} | ${x.failing.join(', ') || '-'} | ${(x.failedRequirements ?? []).length} | ${other || '-'} | ${x.notes.join('; ').replace(/\|/g, '\\|') || '-'} |`,
      );
    }
  }
  if (controls.length) {
    lines.push(
      '',
      '## Controls',
      '',
      'A control imitates a behaviour the specification allows but the reference does not show; the suite must pass it.',
      '',
      '| control | area | result | requirements judged | false alarms | notes |',
      '|---|---|---|---|---|---|',
    );
    for (const c of controls)
      lines.push(
        `| \`${c.name}\` | ${c.area} | ${c.status === 'passed' ? 'passed' : `**${c.status}**`} | ${c.judged} | ${
          Object.entries(c.falseAlarms)
            .map(([id, r]) => `${id} ${r}`)
            .join(', ') || '-'
        } | ${c.notes.join('; ').replace(/\|/g, '\\|') || '-'} |`,
      );
  }
  if (o.outcomes.length) {
    lines.push('', '## Fault descriptions', '');
    for (const x of o.outcomes)
      lines.push(`- \`${x.name}\` (${x.area}; ${x.requirements.join(', ')}): ${x.description}`);
  }
  if (controls.length) {
    lines.push('', '## Control descriptions', '');
    for (const c of controls) lines.push(`- \`${c.name}\` (${c.area}): ${c.description} Allowed by ${c.allowedBy}`);
  }
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

function names(only: string | undefined): string[] | undefined {
  if (!only) return undefined;
  return only
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export function selectFaults(only: string | undefined): Fault[] {
  const wanted = names(only);
  if (!wanted) return [...FAULTS];
  const known = new Set([...FAULTS, ...CONTROLS].map((x) => x.name));
  const unknown = wanted.filter((n) => !known.has(n));
  if (unknown.length)
    throw new CommanderError(
      2,
      'faults.unknown',
      `unknown fault(s) or control(s): ${unknown.join(', ')}; known faults: ${FAULTS.map((f) => f.name).join(', ')}; known controls: ${CONTROLS.map((c) => c.name).join(', ')}`,
    );
  return FAULTS.filter((f) => wanted.includes(f.name));
}

export function selectControls(only: string | undefined): Control[] {
  const wanted = names(only);
  if (!wanted) return [...CONTROLS];
  return CONTROLS.filter((c) => wanted.includes(c.name));
}

/** One run through the proxy: a fault or a control. */
type Job = { kind: 'fault'; fault: Fault } | { kind: 'control'; control: Control };

/**
 * Reference servers started ahead of use (plain ones, no flags) so that a run rarely waits for one.
 * Each server serves exactly one run and is stopped after it: nothing carries state between runs.
 */
class ServerPool {
  private ready: Array<Promise<Reference>> = [];
  private serial = 0;
  private readonly live = new Set<Reference>();
  constructor(
    private readonly dir: string,
    private warm: number,
  ) {}
  private start(flags: string[]): Promise<Reference> {
    const p = startReference(path.join(this.dir, `server-${++this.serial}`), flags, true).then((r) => {
      this.live.add(r);
      return r;
    });
    p.catch(() => undefined);
    return p;
  }
  fill(): void {
    while (this.ready.length < this.warm) this.ready.push(this.start([]));
  }
  take(flags: string[]): Promise<Reference> {
    if (flags.length) return this.start(flags);
    const p = this.ready.shift() ?? this.start([]);
    this.fill();
    return p;
  }
  async release(ref: Reference): Promise<void> {
    this.live.delete(ref);
    await ref.stop();
  }
  async close(): Promise<void> {
    this.warm = 0;
    await Promise.all(this.ready.splice(0).map((p) => p.catch(() => undefined)));
    await Promise.all([...this.live].map((r) => r.stop().catch(() => undefined)));
    this.live.clear();
  }
}

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('run-faults')
    .description(
      'Mutation run: check that the reference server passes the core suite, then run every fault and every control ' +
        'through the fault-injecting proxy, each in front of a reference server of its own, and report which faults the ' +
        'suite catches (mutation score), which controls it fails (false alarms) and how many requirements each fault fails. ' +
        'Exit codes: 0 baseline passes, every fault is caught and every control passes; 1 otherwise; 2 usage error.',
    )
    .option('--only <names>', 'comma list of fault and control names to run (default: all)')
    .option('--faults-only', 'run the faults, not the controls')
    .option('--controls-only', 'run the controls, not the faults')
    .option(
      '--whole-files',
      'run the whole suite files of each fault, not only its selected requirements: measures how many requirements one bug fails (slower)',
    )
    .option(
      '--whole-suite',
      'run the whole core suite for each fault: how many requirements one bug fails anywhere (the diagnosis figure; slowest)',
    )
    .option(
      '--strict-diagnosis',
      'exit 1 also when a caught fault fails a core requirement it does not name (one bug, one red line)',
    )
    .option('--concurrency <n>', 'runs at the same time, each with its own reference server and proxy', '3')
    .option('--report-dir <dir>', 'reports directory (mutation.json, mutation.md, faults/<name>/)', 'reports')
    .option(
      '--skip-baseline',
      'do not run the suite against the reference first (development only; the run then cannot pass)',
    )
    .option(
      '--baseline-results <file>',
      'use the results.json of an earlier baseline run instead of running the baseline (development: iterate on a few runs)',
    )
    .option('--timeout <ms>', 'time limit of one conformance run', '600000')
    .option(
      '--run-concurrency <n>',
      "tests in flight within each run (the CLI's --concurrency; 8 = one worker thread per run)",
      String(run.concurrency),
    )
    .option(
      '--no-bundle',
      'run the conformance CLI and the reference server from their sources through tsx (default: esbuild bundles of both, built at the start: ~40% less CPU per run)',
    )
    .option('--list', 'print the fault and control catalogues and exit')
    .exitOverride()
    .showHelpAfterError();
  let opts: Options & {
    bundle: boolean;
    list?: boolean;
    faultsOnly?: boolean;
    controlsOnly?: boolean;
    baselineResults?: string;
    wholeFiles?: boolean;
    wholeSuite?: boolean;
    strictDiagnosis?: boolean;
  };
  let faults: Fault[];
  let controls: Control[];
  try {
    program.parse(argv);
    opts = program.opts();
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
    process.stdout.write(
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
        '\n',
    );
    return 0;
  }
  const concurrency = Number(opts.concurrency);
  const scope: FaultScope = opts.wholeSuite ? 'whole-suite' : opts.wholeFiles ? 'whole-files' : 'selected';
  const timeoutMs = Number(opts.timeout);
  const runConcurrency = Number(opts.runConcurrency);
  if (
    ![concurrency, runConcurrency].every((n) => Number.isInteger(n) && n >= 1) ||
    !Number.isFinite(timeoutMs) ||
    timeoutMs <= 0
  ) {
    log('run-faults: --concurrency and --run-concurrency must be positive integers and --timeout a positive number');
    return 2;
  }
  run.concurrency = runConcurrency;

  const t0 = Date.now();
  const startedAt = new Date(t0).toISOString();
  // --no-bundle: the CLI runs from its sources too (the children inherit the environment)
  if (!opts.bundle) process.env.CONFORMANCE_NO_BUNDLE = '1';
  if (opts.bundle) {
    Object.assign(bins, await buildRunBundles());
    log(
      `bundles: ${path.relative(ROOT, CLI_BUNDLE)} (started by ${path.relative(ROOT, bins.conformance)}), ${path.relative(ROOT, bins.reference!)} (${Date.now() - t0} ms)`,
    );
  }
  const reportDir = path.resolve(ROOT, opts.reportDir);
  const faultsDir = path.join(reportDir, 'faults');
  fs.mkdirSync(faultsDir, { recursive: true });
  const servers = new ServerPool(path.join(faultsDir, '_servers'), concurrency);
  process.once('SIGINT', () => void servers.close().then(() => process.exit(130)));
  process.once('SIGTERM', () => void servers.close().then(() => process.exit(143)));

  let baseline: BaselineOutcome = {
    ok: false,
    skipped: true,
    exitCode: null,
    durationMs: 0,
    notPassing: {},
    reportDir: '',
  };
  let baselineResults: Map<string, RequirementResult> | undefined;
  const outcomes: FaultOutcome[] = [];
  const controlOutcomes: ControlOutcome[] = [];
  let jobsPlanned = faults.length + controls.length;
  /** reports/mutation.{json,md}; written after every run too, so an interrupted run leaves its figures (marked partial). */
  const writeReports = (final: boolean) => {
    const byCatalogue = <T extends { name: string }>(xs: T[], order: Array<{ name: string }>) =>
      [...xs].sort((a, b) => order.findIndex((x) => x.name === a.name) - order.findIndex((x) => x.name === b.name));
    const fo = byCatalogue(outcomes, faults);
    const co = byCatalogue(controlOutcomes, controls);
    const f = figures(fo, co);
    const wallMs = Date.now() - t0;
    const complete = fo.length + co.length === jobsPlanned;
    const json = {
      schema: 'rflps-mutation/2',
      startedAt,
      wallMs,
      complete,
      planned: { faults: faults.length, controls: controls.length },
      concurrency,
      cpus: os.cpus().length,
      loadAverage: os.loadavg(),
      baseline,
      score: { caught: f.caught, total: f.faults },
      falseAlarms: { failed: f.controlsFailed, total: f.controls },
      failedPerFault: {
        measured: scope !== 'selected',
        scope,
        median: f.medianFailedPerFault ?? null,
        max: f.maxFailedPerFault ?? null,
        over: failedOver(scope),
        unnamed: fo.filter((o) => o.caught && o.unnamedFailures.length > 0).map((o) => o.name),
      },
      uncaught: fo.filter((o) => !o.caught).map((o) => o.name),
      falseAlarmControls: co.filter((c) => c.status !== 'passed').map((c) => c.name),
      faults: fo,
      controls: co,
    };
    fs.writeFileSync(path.join(reportDir, 'mutation.json'), JSON.stringify(json, null, 2) + '\n');
    fs.writeFileSync(
      path.join(reportDir, 'mutation.md'),
      renderMarkdown({
        baseline,
        outcomes: fo,
        controls: co,
        wallMs,
        startedAt,
        concurrency,
        partial: complete || final ? undefined : `${fo.length + co.length} of ${jobsPlanned} runs done`,
        scope,
      }),
    );
  };
  try {
    const baseDir = path.join(faultsDir, '_baseline');
    const suitePending = listSuite();
    /** Settled once the baseline's results are known (at once when read from a file or skipped). */
    let baselineDone: Promise<void> = Promise.resolve();
    if (opts.baselineResults) {
      const file = path.resolve(opts.baselineResults);
      const results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
      baseline = judgeBaseline(
        { exitCode: 0, durationMs: results.durationMs, results },
        path.relative(ROOT, path.dirname(file)),
      );
      baselineResults = resultsById(results);
      log(
        `baseline: read from ${path.relative(ROOT, file)} (${baseline.ok ? 'passes every core requirement' : 'FAILS'})`,
      );
    } else if (opts.skipBaseline) {
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
      // The baseline runs beside the first faults and controls instead of before them (alone it
      // left most of the machine idle for its ~12 s); they are judged once it is done.
      log('baseline: core suite against a plain reference server (no proxy), beside the first runs ...');
      baselineDone = (async () => {
        const ref = await servers.take([]);
        let run: ConformanceRun;
        try {
          run = await runConformance(ref.url, undefined, baseDir, timeoutMs);
        } finally {
          await servers.release(ref);
        }
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
      })();
      baselineDone.catch(() => undefined); // awaited before the first judgement
    }

    const suite = await suitePending;
    if (!suite) log('conformance list --json failed: every run collects every suite file (slower)');
    const jobs: Job[] = [
      ...faults.map((fault) => ({ kind: 'fault' as const, fault })),
      ...controls.map((control) => ({ kind: 'control' as const, control })),
    ];
    let done = 0;
    jobsPlanned = jobs.length;
    /** One run of a job: a fresh reference server, the proxy with the job's rewrite, the suite through it. */
    const runJob = async (job: Job, name: string, dir: string) => {
      const flags = job.kind === 'control' ? (job.control.serverFlags ?? []) : [];
      const ref = await servers.take(flags);
      const proxy = await startFaultProxy({
        upstream: ref.url,
        fault:
          job.kind === 'fault'
            ? job.fault
            : {
                name,
                area: job.control.area,
                description: job.control.description,
                requirements: [],
                rewrite: job.control.rewrite ?? ((req, _ctx, next) => next(req)),
              },
        log: (l) => log(`[${name}] ${l}`),
      });
      let run: ConformanceRun;
      try {
        if (job.kind === 'fault') {
          // --whole-files / --whole-suite: no --requirements filter, so the number of requirements one
          // bug fails is measured too (over its files, or over every file).
          const select = job.fault.select ?? job.fault.requirements;
          const files = filesFor(suite, select);
          if (scope === 'whole-suite') run = await runConformance(proxy.url, undefined, dir, timeoutMs);
          else
            run = await runConformance(
              proxy.url,
              files && scope === 'whole-files' ? undefined : select,
              dir,
              timeoutMs,
              files,
            );
        } else {
          const files = job.control.select ? filesFor(suite, job.control.select) : undefined;
          run = await runConformance(proxy.url, undefined, dir, timeoutMs, files, job.control.config);
        }
      } finally {
        await proxy.close();
        await servers.release(ref);
      }
      return { run, proxyErrors: proxy.stats.errors };
    };
    await pool(jobs, concurrency, async (job) => {
      const name = job.kind === 'fault' ? job.fault.name : job.control.name;
      const dir = path.join(faultsDir, name);
      const { run, proxyErrors } = await runJob(job, name, dir);
      if (job.kind === 'fault') {
        await baselineDone;
        const o = judgeFault(job.fault, run, baselineResults, dir, proxyErrors);
        outcomes.push(o);
        log(
          `[${++done}/${jobs.length}] fault ${name}: ${o.status === 'caught' ? 'caught' : o.status === 'error' ? 'RUN ERROR' : 'NOT CAUGHT'} (${
            o.failing.join(', ') ||
            Object.entries(o.results)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')
          }; ${o.failedRequirements.length} failed in run) ${fmtMs(o.durationMs)}`,
        );
      } else {
        await baselineDone;
        let o = judgeControl(job.control, run, baselineResults, dir, proxyErrors);
        // A control whose only complaints are errors and unmet preconditions (requests that timed
        // out, states that could not be set up) met the machine's load, not a wrong judgement of the
        // suite: it runs once more, and the second run decides. The report says so.
        if (o.status !== 'passed' && onlyLoadSymptoms(o)) {
          const first = describeAlarms(o) || o.status;
          log(`[${name}] only errors and unmet preconditions (${first}): running it once more`);
          const again = await runJob(job, name, dir);
          o = judgeControl(job.control, again.run, baselineResults, dir, again.proxyErrors);
          o.notes.push(`first run: ${first}; ran once more`);
        }
        controlOutcomes.push(o);
        const alarms = describeAlarms(o);
        log(
          `[${++done}/${jobs.length}] control ${name}: ${o.status === 'passed' ? 'passed' : o.status === 'error' ? 'RUN ERROR' : 'FALSE ALARM'} (${o.judged} judged${
            alarms ? `; ${alarms}` : ''
          }) ${fmtMs(o.durationMs)}`,
        );
      }
      writeReports(false);
    });
    await baselineDone; // with no runs selected, the baseline still decides the exit code
  } finally {
    await servers.close();
  }
  // Catalogue order in the reports, whatever order the runs finished in.
  outcomes.sort((a, b) => faults.findIndex((f) => f.name === a.name) - faults.findIndex((f) => f.name === b.name));
  controlOutcomes.sort(
    (a, b) => controls.findIndex((c) => c.name === a.name) - controls.findIndex((c) => c.name === b.name),
  );

  const wallMs = Date.now() - t0;
  const f = figures(outcomes, controlOutcomes);
  const uncaught = outcomes.filter((o) => !o.caught);
  const alarms = controlOutcomes.filter((c) => c.status !== 'passed');
  process.stdout.write(
    '\n' +
      table([
        ['fault', 'requirements', 'caught', 'failing', 'failed in run'],
        ...outcomes.map((o) => [
          o.name,
          o.requirements.join(','),
          o.caught ? 'yes' : o.status === 'error' ? 'NO (run error)' : 'NO',
          o.failing.join(',') || '-',
          String(o.failedRequirements.length),
        ]),
      ]) +
      '\n\n',
  );
  process.stdout.write(
    `baseline: ${baseline.skipped ? 'skipped' : baseline.ok ? 'reference passes every core requirement' : 'reference FAILS core'}\n`,
  );
  if (outcomes.length) process.stdout.write(`mutation score: ${f.caught}/${f.faults}${pct(f.caught, f.faults)}\n`);
  if (f.medianFailedPerFault !== undefined)
    process.stdout.write(
      `requirements failed per caught fault: median ${f.medianFailedPerFault}, max ${f.maxFailedPerFault}\n`,
    );
  if (controlOutcomes.length)
    process.stdout.write(`false alarms: ${f.controlsFailed}/${f.controls}${pct(f.controlsFailed, f.controls)}\n`);
  if (uncaught.length) {
    process.stdout.write(`uncaught faults (${uncaught.length}):\n`);
    for (const o of uncaught)
      process.stdout.write(
        `  - ${o.name} [${o.requirements.join(', ')}]: ${Object.entries(o.results)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}${o.notes.length ? `; ${o.notes.join('; ')}` : ''}\n`,
      );
  }
  if (alarms.length) {
    process.stdout.write(`controls the suite fails (false alarms, ${alarms.length}):\n`);
    for (const c of alarms)
      process.stdout.write(
        `  - ${c.name}: ${Object.entries(c.falseAlarms)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}${c.notes.length ? `; ${c.notes.join('; ')}` : ''} (see ${c.reportDir})\n`,
      );
  }
  const overReaching = outcomes.filter((o) => o.caught && o.unnamedFailures.length > 0);
  if (f.medianFailedPerFault !== undefined)
    process.stdout.write(
      `caught faults that fail requirements they do not name: ${overReaching.length}${
        overReaching.length
          ? ` (${overReaching.map((o) => `${o.name} +${o.unnamedFailures.join(',+')}`).join('; ')})`
          : ''
      }\n`,
    );
  process.stdout.write(`wall time: ${fmtMs(wallMs)}\n`);

  writeReports(true);
  log(`wrote ${path.relative(ROOT, path.join(reportDir, 'mutation.json'))} and mutation.md`);

  const baselineOk = baseline.ok && !baseline.skipped;
  const diagnosisOk = !opts.strictDiagnosis || overReaching.length === 0;
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
