// The summary a run prints: counts, root failures, what they block, the gate and the verdict.
import { relFile } from '../paths.js';
import { rootCauses, testCountsText, type RequirementReport, type RunResults, type TargetInfo } from './results.js';
import { REPORT_FILES } from './write-reports.js';
import { providerStatesLines, stateEndpointCause } from './provider-states.js';
import { strengthLine, strengthOf } from './strength.js';
import { slowestLine } from './slowest.js';
import { choicesLine } from './choices.js';
import { modelCoverageLine } from './model-coverage.js';

function describeTarget(t: TargetInfo): string {
  const what =
    t.kind === 'container'
      ? `container ${t.image ?? ''}${t.digest ? ` (${t.digest.slice(0, 19)})` : ''}`
      : t.kind === 'local-process'
        ? 'reference server as a local process'
        : 'implementation';
  return `${what} at ${t.baseUrl}`;
}

export function summaryText(r: RunResults, opts: { verbose?: boolean; reportDir?: string } = {}): string {
  const c = r.counts;
  const lines: string[] = [];
  lines.push('');
  lines.push(
    `Conformance (${r.profile} profile${r.selection.requirements.length ? `, requirements ${r.selection.requirements.join(',')}` : ''}${r.selection.readOnly ? ', read-only' : ''}${r.selection.shard ? `, shard ${r.selection.shard}` : ''}) against ${r.targetLabel ? `${r.targetLabel}: ` : ''}${describeTarget(r.target)}`,
  );
  lines.push(`Suite ${r.suiteVersion}, spec ${r.specVersion || '?'}, catalogue ${r.catalogueVersion || '?'}`);
  if (r.timing)
    lines.push(
      `Timing: request timeout ${r.timing.requestTimeoutMs} ms, test timeout ${r.timing.testTimeoutMs} ms, async timeout ${r.timing.asyncTimeoutMs} ms, clock tolerance ${r.timing.clockToleranceMs} ms`,
    );
  if (r.providerStates) lines.push(...providerStatesLines(r.providerStates));
  const absence = absenceLine(r);
  if (absence) lines.push(absence);
  lines.push(
    `Requirements: ${r.requirements.length} selected: ${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.error} error, ${c['precondition-failed']} precondition-failed, ${c.untested} untested, ${c['not-applicable']} not-applicable, ${c['not-testable']} not-testable`,
  );
  if (r.testCounts) lines.push(`Tests: ${testCountsText(r.testCounts)}`);
  // a test is listed under each requirement it covers: one line per test
  const covered = new Map(r.requirements.flatMap((q) => q.tests).map((t) => [t.id, t.modelCoverage]));
  for (const [id, cov] of covered) if (cov) lines.push(modelCoverageLine(id, cov));
  const strength = r.strength ?? strengthOf(r);
  lines.push(`Judged: ${strengthLine(strength)}`);
  // Root failures first (requirements that failed on their own), then the blocked ones under their root.
  const { roots, blocked } = rootCauses(r.requirements);
  const limit = opts.verbose ? Infinity : 40;
  const requirementLine = (q: RequirementReport, indent: string) => {
    const marks = [
      q.baseline?.change === 'regression' ? 'REGRESSION' : '',
      q.baseline?.change === 'still-failing' ? 'known: failing in the baseline' : '',
      q.expectedFailure?.status === 'expected-failure' ? 'expected failure' : '',
      q.expectedFailure?.status === 'expired' ? 'expected failure EXPIRED' : '',
      q.expectedFailure?.status === 'disputed' ? 'DISPUTED' : '',
    ].filter(Boolean);
    const mark = marks.length ? ` [${marks.join(', ')}]` : '';
    return `${indent}${q.id.padEnd(10)} ${q.result.padEnd(19)} (${q.level})${mark} ${q.statement.slice(0, 100)}`;
  };
  if (roots.length) {
    lines.push('');
    lines.push(`Root failures (${roots.length}):`);
    for (const q of roots.slice(0, limit)) {
      lines.push(requirementLine(q, '  '));
      // what the failure rests on: the spec's words and the suite's reading of them (a dispute quotes both)
      if (q.quote) lines.push(`             spec §${q.section}: "${clipLine(q.quote)}"`);
      if (q.statement.length > 100) lines.push(`             the suite reads: ${q.statement}`);
      for (const t of q.tests.filter((x) => x.result !== 'passed' && x.result !== 'not-applicable')) {
        const msg = clipLine((t.error?.message ?? t.reason ?? '').split('\n')[0]);
        lines.push(`             - ${t.id}: ${t.result}${msg ? `: ${msg}` : ''}`);
      }
    }
    if (roots.length > limit) lines.push(`  … ${roots.length - limit} more (see results.json, or --reporter-verbose)`);
  }
  if (blocked.size) {
    const n = new Set([...blocked.values()].flat().map((q) => q.id)).size;
    lines.push('');
    lines.push(`Blocked (${n}), by the requirement whose failure they depend on:`);
    for (const [root, list] of blocked) {
      lines.push(`  by ${root}: ${list.length} requirement(s)`);
      for (const q of list.slice(0, limit)) lines.push(requirementLine(q, '    '));
      if (list.length > limit) lines.push(`    … ${list.length - limit} more`);
    }
  }
  if (opts.verbose) {
    lines.push('');
    lines.push('All requirements:');
    for (const q of r.requirements) lines.push(`  ${q.id.padEnd(10)} ${q.result.padEnd(19)} ${q.tests.length} test(s)`);
  }
  if (r.disputes?.length) {
    lines.push('');
    lines.push(
      `Disputed (${r.disputes.length}), ${r.gate?.allowDisputed ? 'not failing the run (--allow-disputed)' : 'failing the run (give --allow-disputed to let the exit code pass)'}; still red in every count:`,
    );
    for (const d of r.disputes) {
      lines.push(`  ${d.id.padEnd(10)} ${d.result}`);
      lines.push(`             your quote: "${clipLine(d.quote)}"`);
      lines.push(`             your reason: ${clipLine(d.reason)}`);
    }
    lines.push(
      `  send each to the project: .github/ISSUE_TEMPLATE/dispute.md${opts.reportDir ? `; the text, ready to paste, is in ${relFile(opts.reportDir)}/disputes.md` : ''}`,
    );
  }
  if (r.warnings.length) {
    lines.push('');
    lines.push(`Warnings (${r.warnings.length}):`);
    for (const w of r.warnings.slice(0, 20)) lines.push(`  ${w}`);
    if (r.warnings.length > 20) lines.push(`  … ${r.warnings.length - 20} more in results.json`);
  }
  if (r.choices) lines.push(choicesLine(r.choices));
  if (r.findings.length)
    lines.push(`Findings for the implementation-defined profile: ${r.findings.length} (see results.json)`);
  if (r.runErrors.length) {
    lines.push('');
    lines.push('Run errors:');
    for (const e of r.runErrors) lines.push(`  ${e.split('\n').slice(0, 6).join('\n  ')}`);
  }
  if (r.gate) {
    lines.push('');
    lines.push(
      `Gate${r.baseline ? ` (baseline ${r.baseline.file})` : ''}${r.expectedFailures ? ` (expected failures ${r.expectedFailures.file})` : ''}:`,
    );
    for (const m of r.gate.messages) lines.push(`  ${m}`);
  }
  if (strength.gate) {
    lines.push('');
    lines.push('Strength gate:');
    for (const m of strength.gate.problems) lines.push(`  ${m}`);
    if (!strength.gate.problems.length)
      lines.push(
        `  held${strength.gate.minJudgedCount !== undefined ? `: judged ${strength.judged}, at least ${strength.gate.minJudgedCount} asked` : ''}${strength.gate.requireProtocol ? `; protocol ${strength.gate.requireProtocol} or newer spoken` : ''}`,
      );
  }
  if (r.retries?.retried.length) {
    const still = r.retries.retried.length - r.retries.flaky.length;
    lines.push('');
    lines.push(
      `Retries: ${r.retries.retried.length} test(s) timed out and ran again alone (--retries ${r.retries.max}): ${r.retries.flaky.length} passed then (flaky${r.retries.failOnFlaky ? ', failing the run: --fail-on-flaky' : ', not failing the run; --fail-on-flaky to make them fail it'}), ${still} did not`,
    );
    for (const id of r.retries.flaky) lines.push(`  flaky: ${id}`);
  }
  const slowest = slowestLine(r.slowestAnswers, r.timing?.requestTimeoutMs);
  if (slowest) lines.push('', slowest);
  const slow = slowTargetLine(r);
  if (slow) lines.push(slow);
  lines.push('');
  const cause = r.exitCode === 1 ? stateEndpointCause(r.requirements) : undefined;
  if (cause) lines.push(cause);
  if (strength.inconclusive) lines.push(`Inconclusive: ${strength.inconclusive}.`);
  // a pass that judged less than it selected says so on the verdict line itself
  const partial =
    r.exitCode === 0 && !strength.full ? `, a partial pass: judged ${strength.judged} of ${strength.selected}` : '';
  lines.push(
    `Verdict: ${r.verdict.toUpperCase()} (exit ${r.exitCode})${partial}${opts.reportDir ? `; reports in ${relFile(opts.reportDir)}/ (${REPORT_FILES.join(', ')})` : ''}`,
  );
  return lines.join('\n');
}

/**
 * A failure's first line as the console shows it: whole up to CONSOLE_MESSAGE_CHARS (both values
 * of an assertion fit, run/failure-format.ts), else cut with a pointer to the reports, which hold it whole.
 */
const CONSOLE_MESSAGE_CHARS = 1200;
function clipLine(s: string): string {
  return s.length > CONSOLE_MESSAGE_CHARS
    ? `${s.slice(0, CONSOLE_MESSAGE_CHARS)}… [${s.length - CONSOLE_MESSAGE_CHARS} more characters in report.html and results.json]`
    : s;
}

/** How long absence was watched (t.expectStaysAbsent), over the tests that judged one; undefined when none did. */
function absenceLine(r: RunResults): string | undefined {
  const byTest = new Map<string, number[]>();
  for (const q of r.requirements)
    for (const t of q.tests ?? []) if (t.absenceWatchedMs?.length) byTest.set(t.id, t.absenceWatchedMs);
  const all = [...byTest.values()].flat();
  if (!all.length) return undefined;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const rule =
    r.timing?.absenceFactor !== undefined
      ? ` (${r.timing.absenceFactor} x the accepted case, at least ${s(r.timing.absenceFloorMs ?? 0)}, at most the async timeout)`
      : '';
  return `Absence: ${all.length} judgement(s) in ${byTest.size} test(s) watched ${s(Math.min(...all))} to ${s(Math.max(...all))} before judging an effect absent${rule}`;
}

/** A time-out: the target did not answer a request (or a state setup) in time, or a test did not finish. */
export const TIMED_OUT = /no answer within \d+ ms|^Test timed out in \d+ms/m;

/**
 * When most tests that did not pass timed out, the target was too slow for the run, not broken:
 * this line says so and names the options to change (undefined otherwise).
 */
export function slowTargetLine(r: RunResults): string | undefined {
  const byId = new Map<string, { result: string; message: string }>();
  for (const q of r.requirements)
    for (const t of q.tests)
      if (!t.generic && !t.step) byId.set(t.id, { result: t.result, message: t.error?.message ?? t.reason ?? '' });
  const notPassing = [...byId.values()].filter((t) => t.result !== 'passed' && t.result !== 'not-applicable');
  const timedOut = notPassing.filter(
    (t) => (t.result === 'error' || t.result === 'precondition-failed') && TIMED_OUT.test(t.message),
  );
  // a few time-outs that are all the run did not pass are worth the advice too (the run exits 3)
  const onlyTimeOuts = timedOut.length > 0 && timedOut.length === notPassing.length;
  if (!onlyTimeOuts && (timedOut.length < 3 || timedOut.length * 2 < notPassing.length)) return undefined;
  const timeout = r.timing ? ` (--timeout ${r.timing.requestTimeoutMs} ms)` : '';
  return `Slow target: ${timedOut.length} of the ${notPassing.length} tests that did not pass ended because the target did not answer in time${timeout}, which says nothing about the requirements. The target is too slow for this many tests in flight: run again with a lower --concurrency (e.g. 4) or a higher --timeout.`;
}
