// What the mutation run runs: the faults and controls named on the command line, and for each of
// them the suite files and the tests its run covers (the scope, judge.ts FaultScope), chosen from
// the tests of the baseline run and the operations each of them called there.
import { CommanderError } from 'commander';
import type { RunResults, TestResult } from '../../src/report/results.js';
import { FAULTS } from '../catalogue/index.js';
import { CONTROLS } from '../controls/index.js';
import type { Control, Fault } from '../fault.js';
import { operationIdsRewritten, rewriteTouchesErrorsOnly } from '../operations.js';
import type { FaultScope } from './judge.js';

/** One run through the proxy: a fault or a control. */
export type Job =
  | { kind: 'fault'; fault: Fault }
  /** `members`: a group of controls run as one (control-groups.ts); `control` is their composition */
  | { kind: 'control'; control: Control; members?: readonly Control[] };

export function jobName(job: Job): string {
  return job.kind === 'fault' ? job.fault.name : job.control.name;
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

/** A core test of the suite as the baseline run saw it. */
export interface SuiteTest {
  id: string;
  file: string;
  requirements: string[];
  /** operationIds it called (with those of requests of other tests its verdict rests on) */
  operations: string[];
  /** those of them that answered it other than 2xx, or not at all (results.json refusedOperations);
   * undefined: not known (a results file without them), so every one of `operations` may have */
  refusedOperations?: string[];
  /** it sent requests that addressed no operation, or did not pass (so what it calls is not all known) */
  unknownOperations: boolean;
  /** how long it took in the baseline (ms; 0 when not run): what it will roughly cost again */
  durationMs: number;
}

/** The core tests of a run's results (synthetic entries left out), sorted by ID. */
export function suiteTests(results: RunResults): SuiteTest[] {
  const byId = new Map<string, TestResult>();
  for (const q of results.requirements)
    for (const t of q.tests ?? [])
      if (!t.generic && !t.step && t.profile === 'core' && !byId.has(t.id)) byId.set(t.id, t);
  return [...byId.values()]
    .map((t) => ({
      id: t.id,
      file: t.file,
      requirements: t.requirements,
      operations: t.operations ?? [],
      ...(t.refusedOperations ? { refusedOperations: t.refusedOperations } : {}),
      // a test that stopped early may call more when it runs on
      unknownOperations: (t.unmatchedRequests ?? 0) > 0 || t.result !== 'passed',
      durationMs: t.durationMs ?? 0,
    }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Whether requirement `id` is one of `patterns` (IDs or prefixes). */
function matches(id: string, patterns: string[]): boolean {
  return patterns.some((p) => id === p || id.startsWith(p));
}

/** Suite files holding a test of one of `patterns` (IDs or prefixes), sorted; undefined when none does (every file runs). */
export function filesFor(
  tests: ReadonlyArray<Pick<SuiteTest, 'file' | 'requirements'>>,
  patterns: string[],
): string[] | undefined {
  const files = new Set<string>();
  for (const t of tests) if (t.requirements.some((id) => matches(id, patterns))) files.add(t.file);
  return files.size ? [...files].sort() : undefined;
}

/**
 * The operationIds a job's rewrite can touch; undefined: any (an untagged rewrite, server flags,
 * bindings: they change every exchange the suite makes).
 */
function jobOperations(job: Job): string[] | undefined {
  if (job.kind === 'control' && (job.control.serverFlags?.length || job.control.config)) return undefined;
  const rewrite = job.kind === 'fault' ? job.fault.rewrite : job.control.rewrite;
  if (job.kind === 'control' && !rewrite) return undefined;
  return operationIdsRewritten(rewrite);
}

/**
 * Whether a job changes error answers only (its rewrite is tagged errorsOnly, operations.ts) and
 * nothing else: no server flags, no bindings (they change every exchange).
 */
function changesErrorAnswersOnly(job: Job): boolean {
  if (job.kind === 'fault') return rewriteTouchesErrorsOnly(job.fault.rewrite);
  const c = job.control;
  return !c.serverFlags?.length && !c.config && rewriteTouchesErrorsOnly(c.rewrite);
}

/**
 * Whether a job's tests depend on the baseline: they do unless it is a fault that runs the whole
 * suite whatever the baseline says (an untagged rewrite, or --whole-suite). Those start while the
 * baseline runs; every job is judged against the baseline's results once it is done.
 */
export function needsBaseline(job: Job, scope: FaultScope): boolean {
  if (job.kind === 'control') return true;
  return (
    scope === 'whole-files' || scope === 'named-tests' || (scope === 'operations' && jobOperations(job) !== undefined)
  );
}

/** What one job runs: suite files (undefined: every file) and tests by ID (undefined: every test of them). */
export interface JobSelection {
  include?: string[];
  tests?: string[];
}

/**
 * The files and tests of a job's run. Without the baseline's tests (--skip-baseline) every file of
 * the scope runs whole.
 */
export function jobSelection(job: Job, scope: FaultScope, suite: SuiteTest[] | undefined): JobSelection {
  if (job.kind === 'fault' && scope === 'whole-suite') return {};
  const select = job.kind === 'fault' ? (job.fault.select ?? job.fault.requirements) : job.control.select;
  if (!suite) return {};
  const files = select ? filesFor(suite, select) : undefined;
  // the scopes narrower than `operations` are the faults' (what a run of a fault shows beyond its
  // own requirements); a control's run is the same in every scope: what its rewrite can change
  if (job.kind === 'fault' && scope === 'whole-files') return { include: files };
  if (job.kind === 'fault' && scope === 'named-tests') {
    const tests = suite.filter((t) => t.requirements.some((id) => matches(id, select!)));
    if (!tests.length) return { include: files };
    return { include: [...new Set(tests.map((t) => t.file))].sort(), tests: tests.map((t) => t.id) };
  }
  const ops = jobOperations(job);
  const errorsOnly = changesErrorAnswersOnly(job);
  // A fault runs every test of the whole suite that calls an operation it rewrites, so its failed
  // requirements are those of a whole-suite run (the diagnosis figure); a control, only those of
  // its files (a false alarm elsewhere would still be one in its files' requirements)
  if (!ops && !errorsOnly) return job.kind === 'fault' ? {} : { include: files };
  const touched = (o: string) => !ops || ops.includes(o);
  // a rewrite of error answers only cannot change a test none of whose answers was an error
  const meets = (t: SuiteTest) =>
    errorsOnly && t.refusedOperations ? t.refusedOperations.some(touched) : t.operations.some(touched);
  const scoped = files && job.kind === 'control' ? suite.filter((t) => files.includes(t.file)) : suite;
  const tests = scoped.filter((t) => t.unknownOperations || meets(t));
  // no test calls them: the files still run (every test left out), so the run has results to judge
  const include = tests.length ? [...new Set(tests.map((t) => t.file))].sort() : (files ?? [suite[0]!.file]);
  return { include, tests: tests.map((t) => t.id) };
}

/**
 * What a job's run will roughly cost: the baseline time of the tests it runs (every test of the
 * included files, or of the suite, when it runs whole files), each plus `delayMs` (a control that
 * holds outcomes back: Control.delaysMs). Jobs start most costly first, so the long runs do not
 * start last and leave the cores idle at the end while they finish.
 */
export function expectedCost(sel: JobSelection, suite: ReadonlyArray<SuiteTest>, delayMs = 0): number {
  const picked = sel.tests
    ? new Set(sel.tests)
    : new Set(suite.filter((t) => !sel.include || sel.include.includes(t.file)).map((t) => t.id));
  return suite.reduce((sum, t) => sum + (picked.has(t.id) ? Math.max(1, t.durationMs) + delayMs : 0), 0);
}

/** The delay a job's rewrite adds to each of its tests (Control.delaysMs; faults: none). */
export function jobDelayMs(job: Job): number {
  return job.kind === 'control' ? (job.control.delaysMs ?? 0) : 0;
}

/** `jobs` most costly first (ties: as given). */
export function costliestFirst<J>(jobs: J[], cost: (job: J) => number): J[] {
  return jobs
    .map((job, i) => ({ job, i, c: cost(job) }))
    .sort((a, b) => b.c - a.c || a.i - b.i)
    .map((x) => x.job);
}
