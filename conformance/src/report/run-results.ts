// The whole run's results (results.json): every test's result, judged per requirement, and the gate.
import type { Catalogue } from '../spec/catalogue.js';
import { specSectionTitles } from '../spec/sections.js';
import type { Profile } from '../model/context.js';
import type { Finding } from '../suite-api/generic-checks/types.js';
import { applyGate, type GateInput } from './gate.js';
import { genericResults } from './generic-results.js';
import {
  buildRequirementReports,
  countResults,
  countTests,
  emptyCounts,
  exitCodeFor,
  verdictFor,
  type AuthInfo,
  type ExitCode,
  type RequirementReport,
  type RunResults,
  type RunTiming,
  type TargetInfo,
} from './results.js';
import { toTestResult, type ReportedTest } from './test-result.js';
import { providerStatesReport } from './provider-states.js';
import { loadProtocol } from '../suite-api/protocol.js';
import { applyStrength, type StrengthGate } from './strength.js';
import { slowestAnswers } from './slowest.js';
import { choicesExercised } from './choices.js';
import { loadOpenApi } from '../spec/openapi.js';

export interface RunInfo {
  catalogue: Catalogue;
  suiteVersion: string;
  specVersion: string;
  target: TargetInfo;
  profile: Profile;
  requirements: string[];
  readOnly: boolean;
  shard?: string;
  fixtures?: string;
  startedAt: Date;
  /** A name for the target given by the user. */
  targetLabel?: string;
  /** Token header and prefix (for reproducing requests). */
  auth?: AuthInfo;
  /** Baseline and expected failures the exit code is judged against. */
  gate?: GateInput;
  /** Timeouts and tolerances of the run (shown in the report header). */
  timing?: RunTiming;
  /** The seed of the generated (model-based) tests. */
  seed?: number;
  /** --provider-states-protocol (or the fixtures file's `protocol:`), when given. */
  providerStatesProtocol?: string;
  /** --min-judged and --require-protocol: how much the verdict must have judged (strength.ts). */
  strengthGate?: StrengthGate;
}

export function buildRunResults(
  info: RunInfo,
  tests: ReportedTest[],
  problems: { runErrors: string[]; suiteInvalid: boolean; harnessFailed: boolean; notSelected?: number },
  finishedAt = new Date(),
): RunResults {
  const ownResults = tests.map(toTestResult);
  const testResults = [...ownResults, ...genericResults(tests)];
  let reqs: RequirementReport[] = buildRequirementReports({
    catalogue: info.catalogue,
    profile: info.profile,
    requirements: info.requirements,
    tests: testResults,
  });
  // One shard sees only its own files: requirements without a test in this shard are left out.
  if (info.shard) reqs = reqs.filter((r) => r.tests.length > 0);
  const levels = info.profile === 'all' ? ['core', 'implementation-defined'] : [info.profile];
  const gating = reqs.filter((r) => levels.includes(r.level));
  const exitCode: ExitCode = exitCodeFor(gating, problems);
  const findings = dedupeFindings(testResults.flatMap((t) => t.findings ?? []));
  const warnings = testResults.flatMap((t) => (t.warnings ?? []).map((w) => `${t.id}: ${w}`));
  const titles = specSectionTitles();
  for (const q of reqs) {
    const title = titles.get(q.section);
    if (title) q.sectionTitle = title;
  }
  const base: RunResults = {
    schema: 'rflps-conformance-results/1',
    suiteVersion: info.suiteVersion,
    specVersion: info.specVersion,
    catalogueVersion: info.catalogue.version,
    target: info.target,
    ...(info.targetLabel ? { targetLabel: info.targetLabel } : {}),
    ...(info.seed !== undefined ? { seed: info.seed } : {}),
    profile: info.profile,
    ...(info.auth ? { auth: info.auth } : {}),
    ...(info.timing ? { timing: info.timing } : {}),
    selection: { requirements: info.requirements, readOnly: info.readOnly, shard: info.shard, fixtures: info.fixtures },
    startedAt: info.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - info.startedAt.getTime(),
    requirements: reqs,
    counts: countResults(reqs),
    gatingCounts: gating.length ? countResults(gating) : emptyCounts(),
    testCounts: countTests(ownResults, problems.notSelected ?? 0),
    choices: choicesExercised(
      tests.flatMap((t) => t.meta?.exchanges ?? []),
      loadOpenApi(),
    ),
    verdict: verdictFor(exitCode),
    exitCode,
    runErrors: problems.runErrors,
    warnings,
    findings,
    providerStates: providerStatesReport(testResults, loadProtocol().version, info.providerStatesProtocol),
    slowestAnswers: slowestAnswers(tests),
  };
  return applyStrength(applyGate(base, info.gate ?? {}), info.strengthGate);
}

function dedupeFindings(list: Finding[], max = 500): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of list) {
    const key = `${f.kind}|${f.operationId ?? ''}|${f.method}|${f.status}|${f.kind === 'unknown-operation' ? f.url : ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
    if (out.length >= max) break;
  }
  return out;
}
