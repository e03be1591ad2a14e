// Whether a bundle's results.json agrees with itself, recomputed with the suite's own functions
// (report/results.ts, report/strength.ts, model/outcome.ts): each requirement's result from its
// tests, the counts, the strength, the gate's excuses, the exit code and the verdict; and whether
// the statement's predicate names the same run. A vendor holds the signing key, so a signature
// proves who made a bundle, not that its results were not edited before signing: these checks
// (and the traffic's, rejudge.ts) are what catch an edited result.
import { aggregate } from '../model/outcome.js';
import {
  countResults,
  emptyCounts,
  EXIT,
  isGatingFailure,
  verdictFor,
  type ExitCode,
  type RequirementReport,
  type RunResults,
} from '../report/results.js';
import { applyStrength } from '../report/strength.js';
import { runOfResults, type BundlePredicate } from './statement.js';

/** The result a requirement's tests give it (buildRequirementReports' rule). */
function resultOf(q: RequirementReport): string {
  if (q.result === 'not-testable') return 'not-testable';
  if (q.tests.length === 0) return 'untested';
  return aggregate(q.tests.map((t) => t.result));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function differs(name: string, stated: unknown, recomputed: unknown): string[] {
  return same(stated, recomputed)
    ? []
    : [`${name}: results.json says ${JSON.stringify(stated)}, its requirements give ${JSON.stringify(recomputed)}`];
}

/** The exit code the results' requirements, gate, strength and retries give (what buildRunResults and the reporter did). */
function recompute(r: RunResults): RunResults {
  const failing = r.requirements.filter((q) => isGatingFailure(q.result)).map((q) => q.id);
  const excused = new Set((r.gate?.excused ?? []).map((e) => e.id));
  const levels = r.profile === 'all' ? ['core', 'implementation-defined'] : [r.profile];
  const gating = r.requirements.filter((q) => levels.includes(q.level));
  let code: ExitCode = gating.some((q) => isGatingFailure(q.result)) ? EXIT.failed : EXIT.ok;
  if (r.gate) code = failing.some((id) => !excused.has(id)) || r.gate.expired.length ? EXIT.failed : EXIT.ok;
  const g = r.strength?.gate;
  const base: RunResults = { ...r, exitCode: code, verdict: verdictFor(code) };
  delete base.strength;
  const out = applyStrength(base, {
    ...(g?.minJudged ? { minJudged: g.minJudged } : {}),
    ...(g?.requireProtocol ? { requireProtocol: g.requireProtocol } : {}),
  });
  // --fail-on-flaky, applied last (report/reporter.ts markRetries)
  if (r.retries?.failOnFlaky && r.retries.flaky.length && out.exitCode === EXIT.ok) {
    out.exitCode = EXIT.failed;
    out.verdict = verdictFor(out.exitCode);
  }
  return out;
}

/**
 * The disagreements of results.json with itself and with the statement's predicate (empty: it
 * agrees), and a note on what could not be recomputed.
 */
export function checkResults(r: RunResults, p: BundlePredicate): { problems: string[]; notes: string[] } {
  const problems: string[] = [];
  const notes: string[] = [];
  for (const q of r.requirements) {
    const want = resultOf(q);
    if (q.result !== want)
      problems.push(
        `${q.id}: results.json says ${q.result}, its tests give ${want} (${q.tests.map((t) => `${t.id} ${t.result}`).join(', ') || 'no test'})`,
      );
  }
  const levels = r.profile === 'all' ? ['core', 'implementation-defined'] : [r.profile];
  const gating = r.requirements.filter((q) => levels.includes(q.level));
  problems.push(...differs('counts', r.counts, countResults(r.requirements)));
  problems.push(...differs('gatingCounts', r.gatingCounts, gating.length ? countResults(gating) : emptyCounts()));
  for (const e of r.gate?.excused ?? []) {
    const listed =
      e.by === 'expected-failure'
        ? r.expectedFailures?.entries.some((x) => x.id === e.id && x.status === 'expected-failure')
        : r.baseline?.stillFailing.some((x) => x.id === e.id);
    if (!listed) problems.push(`${e.id}: excused by ${e.by}, but no ${e.by} entry of results.json names it`);
  }
  if (r.exitCode === EXIT.usage || r.exitCode === EXIT.harness)
    notes.push(`exit code ${r.exitCode} (a usage or harness error) is the run's own, not recomputed`);
  else {
    const re = recompute(r);
    problems.push(...differs('strength', r.strength, re.strength));
    problems.push(...differs('exitCode', r.exitCode, re.exitCode));
    problems.push(...differs('verdict', r.verdict, re.verdict));
  }
  const run = runOfResults(r);
  if (!same(run, p.run))
    problems.push(`the statement names another run: ${JSON.stringify(p.run)}; results.json: ${JSON.stringify(run)}`);
  if (r.suiteVersion !== p.suite.version || r.specVersion !== p.spec.version)
    problems.push(
      `results.json names suite ${r.suiteVersion} and spec ${r.specVersion}, the statement suite ${p.suite.version} and spec ${p.spec.version}`,
    );
  if (r.target.baseUrl !== p.target.baseUrl || (r.targetLabel ?? undefined) !== p.target.label)
    problems.push(`results.json names another target than the statement (${r.target.baseUrl}, ${p.target.baseUrl})`);
  return { problems, notes };
}
