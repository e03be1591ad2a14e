// Judging one run: is a fault caught, does a control pass, does the reference pass the baseline;
// and the figures over all of them (mutation score, false alarms, requirements failed per fault).
import path from 'node:path';
import type { RequirementResult, RunResults } from '../../src/report/results.js';
import type { Control, Fault } from '../fault.js';
import { stoppedByStateEndpoint, stoppedByTiming } from '../judge-state-endpoint.js';
import { stoppedByUndocumentedPart } from '../judge-undocumented-part.js';
import { ROOT } from '../../../spec/paths.js';

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
   * Every core requirement with the result `failed` in the run (not only the mapped ones): how many
   * requirements one bug fails. `blocked` is not counted.
   */
  failedRequirements: string[];
  /** The requirements of `failedRequirements` the fault does not name: one bug, more than one red line. */
  unnamedFailures: string[];
}

/**
 * What a run covers. `operations` (the default): for a fault, every core test of the suite that
 * calls an operation the rewrite touches (for a control, those of the suite files that hold its
 * selected requirements, or of every core file), known from the operations each test called in the
 * baseline run; a rewrite of an operation cannot change a test that never calls it, so a fault's
 * figures equal those of `whole-suite`: how many requirements one bug fails anywhere (the diagnosis
 * figure). `whole-files`: every test of the files of the fault's selected requirements (faster,
 * blind to red lines elsewhere). `named-tests`: only the tests of the fault's selected requirements
 * (the gate of `npm test`: caught or not, and the red lines those tests show). `whole-suite`: every
 * core test (the check of that claim). A control's run is the same in every scope (select.ts).
 */
export type FaultScope = 'operations' | 'whole-files' | 'named-tests' | 'whole-suite';

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

export interface ConformanceRun {
  exitCode: number | null;
  durationMs: number;
  results?: RunResults;
  error?: string;
}

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
function coreFailed(results: RunResults | undefined): string[] {
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
  let stoppedByTime = 0;
  for (const r of run.results?.requirements ?? []) {
    if (r.level !== 'core' || r.result === 'untested' || r.result === 'not-testable') continue;
    if (baseline && baseline.get(r.id) !== 'passed') continue;
    judged++;
    if (r.result === 'passed') continue;
    if (stoppedByTiming(r)) stoppedByTime++;
    else if (control.judge === 'state-endpoint' && stoppedByStateEndpoint(r)) stoppedByStates++;
    else if (control.judge === 'undocumented-part' && stoppedByUndocumentedPart(r)) stoppedByPart++;
    else falseAlarms[r.id] = r.result;
  }
  if (stoppedByStates)
    notes.push(
      `${stoppedByStates} requirement(s) not judged: the provider-state endpoint kept their tests from running (not-applicable or precondition-failed, with the state named as the reason)`,
    );
  if (stoppedByTime)
    notes.push(
      `${stoppedByTime} requirement(s) not judged: their tests ended not-applicable after every request, on a timing the machine did not give (no verdict either way)`,
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

export function describeAlarms(o: ControlOutcome): string {
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

export interface Figures {
  faults: number;
  caught: number;
  controls: number;
  controlsFailed: number;
  /** median of `failedRequirements.length` over the caught faults */
  medianFailedPerFault?: number;
  maxFailedPerFault?: number;
  /** the caught faults that fail more requirements than SPREAD_LIMIT, most first (name, how many) */
  spreading: Array<{ name: string; failed: number }>;
}

/**
 * The most requirements one fault may fail: those whose sentence the bug breaks (issue 42); a fault
 * that fails more has a test failing for a step it relies on, which should block instead.
 */
export const SPREAD_LIMIT = 3;

export function figures(outcomes: FaultOutcome[], controls: ControlOutcome[]): Figures {
  const counts = outcomes.filter((o) => o.caught).map((o) => (o.failedRequirements ?? []).length);
  return {
    faults: outcomes.length,
    caught: outcomes.filter((o) => o.caught).length,
    controls: controls.length,
    controlsFailed: controls.filter((c) => c.status !== 'passed').length,
    medianFailedPerFault: median(counts),
    maxFailedPerFault: counts.length ? Math.max(...counts) : undefined,
    spreading: outcomes
      .filter((o) => o.caught && (o.failedRequirements ?? []).length > SPREAD_LIMIT)
      .map((o) => ({ name: o.name, failed: o.failedRequirements.length }))
      .sort((a, b) => b.failed - a.failed || a.name.localeCompare(b.name)),
  };
}
