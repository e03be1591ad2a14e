// The result model (results.json) and its logic: classification of a test's outcome, aggregation
// per requirement, the verdict and the exit code. Types here are reused by later reports
// (report.html, badge.svg): keep them free of vitest types.
import type { Exchange } from './client.js';
import type { Finding, Violation } from './generic-checks.js';
import type { Catalogue, Requirement, RequirementLevel } from './catalogue.js';
import { areaOf } from './catalogue.js';
import type { Profile, TargetKind } from './run-context.js';
import { matchesSelection, profileLevels } from './run-context.js';

/** The result of one test. */
export type TestOutcome = 'passed' | 'failed' | 'not-applicable' | 'precondition-failed' | 'error';
/** The result of one requirement: a test outcome, or why no test result exists. */
export type RequirementResult = TestOutcome | 'untested' | 'not-testable';

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  harness: 3,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export interface TestError {
  message: string;
  /** The recorded exchanges of the test (requests and responses, token values redacted). */
  exchanges: Exchange[];
}

export interface TestResult {
  id: string;
  title: string;
  /** Path relative to the repository root. */
  file: string;
  profile: 'core' | 'implementation-defined';
  requirements: string[];
  result: TestOutcome;
  durationMs: number;
  /** Why the test did not run or stopped (not-applicable, precondition-failed). */
  reason?: string;
  error?: TestError;
  /** Teardown failures and other non-fatal problems. */
  warnings?: string[];
  /** Implementation-defined observations (undocumented statuses, ...). */
  findings?: Finding[];
  /** Synthetic entry: the generic checks (GEN-001/GEN-002) over a file's exchanges. */
  generic?: boolean;
}

export interface RequirementReport {
  id: string;
  level: RequirementLevel;
  section: string;
  area: string;
  statement: string;
  result: RequirementResult;
  /** For not-testable: why. */
  reason?: string;
  tests: TestResult[];
}

export type Counts = Record<RequirementResult, number>;

export interface TargetInfo {
  /** What really ran. */
  kind: TargetKind;
  /** What was asked for (`reference` may end as `local-process`). */
  requested?: 'reference' | 'image' | 'url' | 'local-process';
  baseUrl: string;
  stateUrl?: string;
  image?: string;
  digest?: string;
  description?: string;
}

export type Verdict = 'pass' | 'fail' | 'error';

export interface RunResults {
  schema: 'rflps-conformance-results/1';
  suiteVersion: string;
  specVersion: string;
  catalogueVersion: string;
  target: TargetInfo;
  profile: Profile;
  selection: { requirements: string[]; readOnly: boolean; shard?: string; fixtures?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  requirements: RequirementReport[];
  counts: Counts;
  /** Counts over the requirements that decide the verdict (the profile's levels). */
  gatingCounts: Counts;
  verdict: Verdict;
  exitCode: ExitCode;
  /** Problems of the run itself (suite collection errors, unknown IDs, harness errors). */
  runErrors: string[];
  warnings: string[];
  findings: Finding[];
}

export function emptyCounts(): Counts {
  return { passed: 0, failed: 0, 'not-applicable': 0, 'precondition-failed': 0, error: 0, untested: 0, 'not-testable': 0 };
}

/** How a thrown error classifies a test. */
export function classifyError(err: { name?: string; message?: string } | undefined): TestOutcome {
  if (!err) return 'failed';
  const name = err.name ?? '';
  const msg = err.message ?? '';
  if (name === 'PreconditionFailedError') return 'precondition-failed';
  if (name === 'NotApplicableError') return 'not-applicable';
  if (name === 'TargetError' || name === 'TimeoutError' || name === 'AbortError') return 'error';
  if (name === 'TypeError' && /fetch failed/i.test(msg)) return 'error';
  if (/^Test timed out in \d+ms/.test(msg) || /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|UND_ERR_|socket hang up/.test(msg)) return 'error';
  return 'failed';
}

/** A requirement's result from its tests' outcomes. */
export function aggregate(outcomes: TestOutcome[]): TestOutcome {
  if (outcomes.includes('failed')) return 'failed';
  if (outcomes.includes('error')) return 'error';
  if (outcomes.includes('precondition-failed')) return 'precondition-failed';
  if (outcomes.includes('passed')) return 'passed';
  return 'not-applicable';
}

export interface BuildOptions {
  catalogue: Catalogue;
  profile: Profile;
  requirements: string[];
  tests: TestResult[];
  runErrors?: string[];
}

/** The selected requirements (profile levels, selection patterns, not retired), in catalogue order. */
export function selectedRequirements(cat: Catalogue, profile: Profile, patterns: string[]): Requirement[] {
  const levels = profileLevels(profile);
  return cat.requirements.filter((r) => !r.retired && levels.includes(r.level) && matchesSelection(r.id, patterns));
}

export function buildRequirementReports(o: BuildOptions): RequirementReport[] {
  const byReq = new Map<string, TestResult[]>();
  for (const t of o.tests) for (const id of t.requirements) {
    const list = byReq.get(id) ?? [];
    list.push(t);
    byReq.set(id, list);
  }
  return selectedRequirements(o.catalogue, o.profile, o.requirements).map((r) => {
    const tests = byReq.get(r.id) ?? [];
    let result: RequirementResult;
    if (!r.testable) result = 'not-testable';
    else if (tests.length === 0) result = 'untested';
    else result = aggregate(tests.map((t) => t.result));
    return {
      id: r.id,
      level: r.level,
      section: r.section,
      area: areaOf(r.id),
      statement: r.statement,
      result,
      reason: r.testable ? undefined : r.reason,
      tests,
    };
  });
}


export function countResults(reqs: RequirementReport[]): Counts {
  const c = emptyCounts();
  for (const r of reqs) c[r.result]++;
  return c;
}

/** Whether a requirement result lets the run pass. */
export function isGatingFailure(result: RequirementResult): boolean {
  return result === 'failed' || result === 'error' || result === 'precondition-failed' || result === 'untested';
}

/**
 * The exit code of a run:
 *   3 harness/target failure (given), 2 suite definition problems (unknown IDs ...),
 *   1 a gating requirement (a level of the selected profile) failed, errored, had a failed
 *     precondition or has no test, 0 otherwise (not-applicable and not-testable do not count).
 */
export function exitCodeFor(reqs: RequirementReport[], opts: { harnessFailed?: boolean; suiteInvalid?: boolean } = {}): ExitCode {
  if (opts.harnessFailed) return EXIT.harness;
  if (opts.suiteInvalid) return EXIT.usage;
  return reqs.some((r) => isGatingFailure(r.result)) ? EXIT.failed : EXIT.ok;
}

export function verdictFor(code: ExitCode): Verdict {
  return code === EXIT.ok ? 'pass' : code === EXIT.failed ? 'fail' : 'error';
}
