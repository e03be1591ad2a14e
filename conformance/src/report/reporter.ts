// The vitest reporter of the conformance run: one progress line per test file, then results per
// requirement (results.json, junit.xml, report.html, badge.svg) and a plain-text summary on stdout.
import type { Reporter, TestCase, TestModule, TestRunEndReason, Vitest } from 'vitest/node';
import type { SerializedError } from 'vitest';
import type { ConformanceMeta } from '../suite-api/dsl.js';
import { relFile } from '../paths.js';
import { buildRunResults, type RunInfo } from './run-results.js';
import { summaryText } from './summary.js';
import type { ReportedError } from './expectation.js';
import { toTestResult, type ReportedTest } from './test-result.js';
import { writeReports } from './write-reports.js';
import { EXIT, countTests, testCountsText, verdictFor, type RunResults, type TestResult } from './results.js';
import { TIMED_OUT } from './summary.js';
import type { ProgressEventBody } from '../model/events.js';

export interface ConformanceReporterOptions {
  info: RunInfo;
  /** Where the report files go; none are written without it. */
  reportDir?: string;
  verbose?: boolean;
  /** Where progress and the summary go (default stdout). */
  out?: (s: string) => void;
  /** Typed progress: each test of the run as it begins and ends (model/events.ts). */
  onEvent?: (event: ProgressEventBody) => void;
}

export class ConformanceReporter implements Reporter {
  /** Set after the run: the model written to results.json. */
  results?: RunResults;
  /** Collection errors caused by the suite's definitions (unknown requirement IDs ...). */
  suiteInvalid = false;
  private out: (s: string) => void;
  private started = Date.now();
  private phase: string | undefined;
  /** Tests, run errors and problems gathered over the runs (phases) until finish(). */
  private gathered = {
    tests: [] as ReportedTest[],
    runErrors: [] as string[],
    harnessFailed: false,
    notSelected: new Set<string>(),
  };
  /** The attempts of retried tests, by retry round (retry()). */
  private retryRounds: ReportedTest[][] = [];

  constructor(readonly opts: ConformanceReporterOptions) {
    this.out = opts.out ?? ((s) => process.stdout.write(s));
  }

  onInit(vitest: Vitest): void {
    this.started = Date.now();
    this.phase = (vitest.config?.provide as { conformance?: { phase?: string } } | undefined)?.conformance?.phase;
  }

  onTestRunStart(specs: ReadonlyArray<{ moduleId?: string }>): void {
    // the service-wide phase runs its files one at a time (vitest-run.ts)
    if (this.phase === 'service-wide')
      this.out(
        `conformance: service-wide phase: ${specs.map((s) => (s.moduleId ? relFile(s.moduleId) : '?')).join(', ')}: the tests that change a setting of the whole service, one at a time\n`,
      );
    else this.out(`conformance: running ${specs.length} suite file(s)\n`);
  }

  onTestCaseReady(t: TestCase): void {
    if (t.options.mode !== 'skip') this.testEvent('test-started', t);
  }

  onTestCaseResult(t: TestCase): void {
    this.testEvent('test-finished', t);
  }

  /** A test event of a test of this run (not one of the other phase, nor one the run leaves out). */
  private testEvent(type: 'test-started' | 'test-finished', t: TestCase): void {
    const emit = this.opts.onEvent;
    if (!emit) return;
    const r = toReported(t);
    if (!r.meta?.id || r.meta.otherPhase || r.meta.leftOut || r.meta.notSelected) return;
    const common = {
      id: r.meta.id,
      file: relFile(r.file),
      ...(this.retryRounds.length ? { retry: this.retryRounds.length } : {}),
    };
    if (type === 'test-started') emit({ type, ...common });
    else {
      const x = toTestResult(r);
      emit({ type, ...common, outcome: x.result, durationMs: x.durationMs });
    }
  }

  onTestModuleEnd(m: TestModule): void {
    const results: TestResult[] = [];
    let notSelected = 0;
    for (const t of m.children.allTests()) {
      const r = toReported(t);
      if (r.meta.otherPhase || r.meta.leftOut) continue;
      if (r.meta.notSelected) notSelected++;
      // the outcome as the result model decides it (test-result.ts), never a second reading here:
      // a test that timed out or threw an unclassified error is counted as the report shows it
      else results.push(toTestResult(r));
    }
    const c = countTests(results, notSelected);
    const errs = m.errors();
    if (results.length + notSelected === 0 && errs.length === 0) return; // every test of the file runs in the other phase
    const mark = errs.length || c.failed || c.error ? '✗' : c['precondition-failed'] || c.blocked ? '!' : '✓';
    const parts = [testCountsText(c)];
    if (errs.length) parts.push(`${errs.length} collection error(s)`);
    const secs = ((m.diagnostic().duration ?? 0) / 1000).toFixed(1);
    this.out(`${mark} ${relFile(m.moduleId)}  ${parts.join(', ')}  (${secs}s)\n`);
    for (const e of errs) this.out(`    ${e.name ?? 'Error'}: ${(e.message ?? '').split('\n')[0]}\n`);
  }

  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandled: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const { runErrors } = this.gathered;
    const tests = this.retryRounds.at(-1) ?? this.gathered.tests;
    let harnessFailed = false;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const r = toReported(t);
        // reported by the phase it belongs to; a test the run does not name is not in its results;
        // a test outside the selection is counted (not selected), not reported
        if (r.meta?.otherPhase || r.meta?.leftOut) continue;
        if (r.meta?.notSelected) this.gathered.notSelected.add(r.meta.id ?? r.name);
        else tests.push(r);
      }
      for (const e of m.errors()) {
        runErrors.push(`${relFile(m.moduleId)}: ${e.name ?? 'Error'}: ${e.message}`);
        if (e.name === 'SuiteDefinitionError') this.suiteInvalid = true;
        else harnessFailed = true;
      }
    }
    for (const e of unhandled) {
      runErrors.push(`unhandled error: ${e.name ?? 'Error'}: ${e.message}`);
      harnessFailed = true;
    }
    if (reason === 'interrupted') {
      runErrors.push('the run was interrupted');
      harnessFailed = true;
    }
    if (harnessFailed) this.gathered.harnessFailed = true;
  }

  /**
   * The IDs of the tests (of the last round) that ended `error` (or `precondition-failed`: a state
   * setup) because the target did not answer in time: the ones `--retries` runs again, alone.
   */
  timedOutTests(): string[] {
    const round = this.retryRounds.at(-1) ?? this.gathered.tests;
    return round.flatMap((t) => {
      const r = toTestResult(t);
      // a request, or a provider-state setup, that got no answer in time
      const timedOut =
        (r.result === 'error' || r.result === 'precondition-failed') &&
        TIMED_OUT.test(r.error?.message ?? r.reason ?? '');
      return timedOut && t.meta?.id ? [t.meta.id] : [];
    });
  }

  /** The tests reported from now on are attempts of a retry round (run-conformance.ts, --retries). */
  retry(): void {
    this.retryRounds.push([]);
  }

  /** Ends the run after its phases: builds the results, writes the reports, prints the summary. */
  finish(o: { maxRetries?: number; failOnFlaky?: boolean } = {}): RunResults {
    const { runErrors, harnessFailed } = this.gathered;
    // a retried test counts with its last attempt; every attempt is kept on it
    const attempts = new Map<string, ReportedTest[]>();
    for (const round of this.retryRounds)
      for (const t of round) if (t.meta?.id) attempts.set(t.meta.id, [...(attempts.get(t.meta.id) ?? []), t]);
    const tests = this.gathered.tests.map((t) => (t.meta?.id && attempts.get(t.meta.id)?.at(-1)) || t);
    const info: RunInfo = { ...this.opts.info };
    let results = buildRunResults(info, tests, {
      runErrors,
      suiteInvalid: this.suiteInvalid,
      harnessFailed,
      notSelected: this.gathered.notSelected.size,
    });
    if (attempts.size) results = markRetries(results, this.gathered.tests, attempts, o);
    this.results = results;
    if (this.opts.reportDir) writeReports(this.results, this.opts.reportDir);
    this.out(`${summaryText(this.results, { verbose: this.opts.verbose, reportDir: this.opts.reportDir })}\n`);
    return this.results;
  }
}

export function toReported(t: TestCase): ReportedTest {
  const r = t.result();
  return {
    name: t.name,
    file: t.module.moduleId,
    meta: t.meta() as ConformanceMeta,
    state: r.state,
    errors: r.errors as ReadonlyArray<ReportedError> | undefined,
    note: r.state === 'skipped' ? r.note : undefined,
    durationMs: t.diagnostic()?.duration,
  };
}

/** Adds every attempt to each retried test, marks those that passed on retry `flaky`, and applies --fail-on-flaky. */
function markRetries(
  r: RunResults,
  first: ReportedTest[],
  retried: Map<string, ReportedTest[]>,
  o: { maxRetries?: number; failOnFlaky?: boolean },
): RunResults {
  const attempt = (t: ReportedTest): NonNullable<TestResult['attempts']>[number] => {
    const x = toTestResult(t);
    const message = (x.error?.message ?? x.reason ?? '').split('\n')[0];
    return { result: x.result, durationMs: x.durationMs, ...(message ? { message } : {}) };
  };
  const firstById = new Map(first.flatMap((t) => (t.meta?.id && retried.has(t.meta.id) ? [[t.meta.id, t]] : [])));
  const flaky = new Set<string>();
  const seen = new Set<TestResult>();
  for (const q of r.requirements)
    for (const t of q.tests) {
      const again = retried.get(t.id);
      const before = firstById.get(t.id);
      if (!again || !before || t.generic || t.step || seen.has(t)) continue;
      seen.add(t);
      t.attempts = [attempt(before), ...again.map(attempt)];
      if (t.result === 'passed') {
        t.flaky = true;
        flaky.add(t.id);
      }
    }
  const out: RunResults = {
    ...r,
    retries: {
      max: o.maxRetries ?? 1,
      retried: [...retried.keys()].sort(),
      flaky: [...flaky].sort(),
      failOnFlaky: o.failOnFlaky === true,
    },
  };
  if (o.failOnFlaky && flaky.size && out.exitCode === EXIT.ok) {
    out.exitCode = EXIT.failed;
    out.verdict = verdictFor(out.exitCode);
  }
  return out;
}
