// The result model (results.json) and its logic: classification of a test's outcome, aggregation
// per requirement, the verdict and the exit code. Types here are reused by later reports
// (report.html, badge.svg): keep them free of vitest types.
import type { Exchange } from '../suite-api/client.js';
import type { SlowAnswer } from './slowest.js';
import type { ChoicesExercised } from './choices.js';
import type { ModelCoverage } from '../model/model-coverage.js';
import type { Finding } from '../suite-api/generic-checks/types.js';
import type { Catalogue, Requirement, RequirementLevel } from '../spec/catalogue.js';
import { areaOf } from '../spec/catalogue.js';
import type { Profile, TargetKind } from '../model/context.js';
import { matchesSelection, profileLevels } from '../model/context.js';
import { aggregate, type RequirementResult, type TestOutcome, type Verdict } from '../model/outcome.js';

export type { RequirementResult };

/** What the provider-state endpoint made of the run (filled by provider-states.ts). */
export interface ProviderStatesReport {
  /** The newest protocol version this suite speaks. */
  suite: string;
  /** The version the run was told (--provider-states-protocol, or the fixtures file's `protocol:`). */
  configured?: string;
  /** The versions the tests spoke (one, unless the endpoint changed its answer during the run). */
  used: string[];
  /** Tests that did not run for want of a newer protocol. */
  notRunForProtocol: number;
  /** What the endpoint must declare and support to run them, newest first, with how many tests wait:
   * every param and value each test lacks (not only the first it stopped at), so one upgrade is enough. */
  needs: Array<{ since: string; what: string; tests: number }>;
  /** Tests that ended not-applicable because an answer lacked an optional value they need. */
  notRunForOptionalValue?: number;
  /** Those values (`<state>.<value>`), with how many tests wait for each. */
  optionalValues?: Array<{ value: string; tests: number }>;
  /** Tests that ended precondition-failed: a state could not be set up as asked. */
  preconditionFailed: number;
  /** Tests that ended not-applicable because the endpoint said the fixture cannot exist here (501) or refused it as allowed (400). */
  refused: number;
}

/** Why a selected testable requirement has no verdict of its own (a requirement has one cause). */
export const NOT_JUDGED_CAUSES = {
  'protocol-version': 'its tests need a newer provider-state protocol than the endpoint declared',
  'optional-value': 'a provider state gave no optional value its tests need',
  'fixture-cannot-exist': 'the provider-state endpoint said the fixture cannot exist here (501 FixtureCannotExist)',
  'state-refused': 'the provider-state endpoint refused a param, as the protocol allows (400)',
  'binding-refused': 'the implementation does not offer a part the spec leaves open (a binding, a custom domain, ...)',
  'not-observed': 'no recorded exchange decided it (verify-traffic)',
  'not-judgeable-from-traffic': 'a recording cannot decide it (verify-traffic)',
  selection: 'its tests were left out by the selection (--read-only, --requirements, the profile)',
  'precondition-failed': 'a provider state could not be set up',
  blocked: 'a step it needs failed (blocked by another requirement)',
  error: 'the target did not answer, or a test did not finish',
  untested: 'no test verifies it',
  other: 'its tests were not applicable for another reason (see each test)',
} as const;
export type NotJudgedCause = keyof typeof NOT_JUDGED_CAUSES;

/** A minimum of judged requirements: a count, or a percentage of the selected testable ones. */
export type MinJudged = { count: number } | { percent: number };

/** What the vendor asked of the verdict's strength (all optional; none: today's exit codes). */
export interface StrengthGate {
  /** --min-judged (run) or --min-observed (verify-traffic). */
  minJudged?: MinJudged;
  /** --require-protocol: the oldest provider-state protocol version the endpoint may speak. */
  requireProtocol?: string;
}

export interface VerdictStrength {
  /** Testable requirements of the profile's levels in the run. */
  selected: number;
  /** Those with a verdict on their own evidence (passed or failed). */
  judged: number;
  passed: number;
  notJudged: number;
  /** The requirements not judged, by cause (only causes with requirements, in NOT_JUDGED_CAUSES order). */
  notJudgedBy: Array<{ cause: NotJudgedCause; count: number; requirements: string[] }>;
  /** Whether every selected testable requirement was judged. */
  full: boolean;
  /** The gate asked for (--min-judged, --require-protocol, --min-observed), when any. */
  gate?: {
    minJudged?: MinJudged;
    /** The judged count the minimum comes to. */
    minJudgedCount?: number;
    requireProtocol?: string;
    /** What made the gate fail (empty: it held). */
    problems: string[];
  };
  /** Why the exit code is 4 (the run judged nothing). */
  inconclusive?: string;
}

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  harness: 3,
  /** The run judged nothing (no selected testable requirement passed or failed): never a pass. */
  inconclusive: 4,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The expectation that failed: the assertion's message, values and place in the suite. */
export interface Expectation {
  /** First line of the assertion message (`expected 'Error' to be 'NotBound'`). */
  message: string;
  /** Error class (AssertionError, GenericCheckError, TargetError, ...). */
  errorName?: string;
  expected?: string;
  actual?: string;
  /** vitest's diff of expected and actual (plain text). */
  diff?: string;
  /** Where the assertion is in the suite: `conformance/suite/x.test.ts:12:5`. */
  location?: string;
  /** The source line at `location`, trimmed. */
  source?: string;
}

interface TestError {
  message: string;
  /** The recorded exchanges of the test (requests and responses, token values redacted). */
  exchanges: Exchange[];
  /** The assertion that failed (absent for synthetic and harness errors without a place). */
  expectation?: Expectation;
}

interface BlockedBy {
  requirement: string;
  step: string;
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
  /** The operationIds (spec/openapi.yaml) the test's recorded exchanges addressed, sorted; read by
   * the requirement x operation coverage (conformance/src/coverage/operations.ts). */
  operations?: string[];
  /** Those of `operations` that answered one of the test's own requests with a status other than 2xx
   * or not at all, and every operation of another test's requests its verdict rests on (their
   * answers are not the test's to know); present, maybe empty, when `operations` is. A caller that
   * changes only error answers (the mutation run's controls of error answers) can leave out a test
   * that met none. */
  refusedOperations?: string[];
  /** Requests of the test that addressed no operation of spec/openapi.yaml (no answer, or a path or
   * method it does not document): a caller that selects tests by `operations` keeps such a test. */
  unmatchedRequests?: number;
  /** Why the test did not run or stopped (not-applicable, precondition-failed, blocked). */
  reason?: string;
  /** A not-applicable test that ended so as its last step, after every request it makes: its
   * `operations` are all it calls (the coverage gate vouches for it as for a passed test). */
  afterEveryRequest?: true;
  /** For `blocked`: the requirement whose step failed, and the step. */
  blockedBy?: BlockedBy;
  error?: TestError;
  /** Teardown failures and other non-fatal problems. */
  warnings?: string[];
  /** How long the test watched for the absence of an asynchronous effect (t.expectStaysAbsent), ms each. */
  absenceWatchedMs?: number[];
  /** Implementation-defined observations (undocumented statuses, ...). */
  findings?: Finding[];
  /** Synthetic entry: the generic checks (GEN-001/GEN-002) over a file's exchanges. */
  generic?: boolean;
  /** Synthetic entry: a step of another test (`t.needs`) that failed, as evidence for this requirement. */
  step?: boolean;
  /** The provider-state protocol version the test spoke. */
  protocol?: string;
  /** Not run for want of a newer provider-state protocol: the version and what it needed. */
  needsProtocol?: { since: string; what: string };
  /** ... and everything it lacked that was known where it stopped, when more than that (needsProtocol first). */
  lacksProtocol?: Array<{ since: string; what: string }>;
  /** The values of provider-state answers the test read (`<state>.<value>`). */
  stateValuesUsed?: string[];
  /** What a model-based test's generated sequences drew (report/model-coverage.ts). */
  modelCoverage?: ModelCoverage;
  /** For not-applicable: the optional values of state answers the test needed and found absent (`<state>.<value>`). */
  missingValues?: string[];
  /** Set when the test ended `error` on a time-out and was run again alone (--retries): every attempt, first first. */
  attempts?: Array<{ result: TestOutcome; durationMs: number; message?: string }>;
  /** The test timed out, then passed when run again alone: its result is the retry's (`passed`). */
  flaky?: boolean;
}

export interface RequirementReport {
  id: string;
  level: RequirementLevel;
  section: string;
  /** The heading of that section in spec/interface-spec.md (`Generic record access`). */
  sectionTitle?: string;
  area: string;
  statement: string;
  /** Words of the spec the requirement comes from (verbatim). */
  quote?: string;
  result: RequirementResult;
  /** For not-testable: why. */
  reason?: string;
  /** For blocked: the requirements whose failure blocked this one (the root failures). */
  blockedBy?: string[];
  tests: TestResult[];
  /** Set when an expected-failures file lists this requirement. */
  expectedFailure?: ExpectedFailureMark;
  /** Set when the run was compared with a baseline. */
  baseline?: BaselineMark;
}

// ------------------------------------------------------------------------- gate (baseline, expected failures)

/**
 * One entry of an expected-failures file. `kind: expected` (the default): a known failure,
 * excused until `expires`. `kind: disputed`: the vendor holds that the suite misreads the spec
 * (`quote`, the spec's words, verbatim, and `reason` required): the requirement stays red in
 * every report and count, and the run's exit code passes only with --allow-disputed.
 */
export interface ExpectedFailure {
  id: string;
  reason: string;
  kind?: 'expected' | 'disputed';
  /** Last day (UTC, YYYY-MM-DD) the entry excuses a failure; from the next day on it fails the run. Optional for a dispute. */
  expires?: string;
  /** For a dispute: the words of spec/interface-spec.md the vendor's reading rests on (verbatim). */
  quote?: string;
}

/**
 * expected-failure: listed, failing, not expired (does not fail the run);
 * disputed: a disputed entry whose requirement fails (fails the run unless --allow-disputed);
 * expired: past its date (fails the run, whatever the result);
 * unexpectedly-passing: listed but passing now (remove the entry; does not fail the run);
 * not-failing: listed, neither failing nor passing (not-applicable, not-testable);
 * not-run: listed but not selected in this run.
 */
type ExpectedFailureStatus =
  'expected-failure' | 'disputed' | 'expired' | 'unexpectedly-passing' | 'not-failing' | 'not-run';

export interface ExpectedFailureMark extends ExpectedFailure {
  status: ExpectedFailureStatus;
}

/**
 * A failing requirement the vendor disputes (results.json `disputes`): what the dispute rests on
 * on both sides, ready to send to the project (.github/ISSUE_TEMPLATE/dispute.md).
 */
export interface DisputeReport {
  id: string;
  result: RequirementResult;
  section: string;
  /** The requirement's words of the spec (spec/requirements.yaml `quote`): what the test rests on. */
  specQuote?: string;
  /** The test's reading of them (the requirement's statement). */
  statement: string;
  /** The vendor's quote of the spec and why it disputes the reading. */
  quote: string;
  reason: string;
  /** Whether the run let the exit code pass (--allow-disputed). */
  allowed: boolean;
  /** The tests that did not pass, with the first line of their failure. */
  tests: Array<{ id: string; result: string; message: string }>;
}

export interface ExpectedFailuresReport {
  /** The file as given (relative to the repository root when inside it). */
  file: string;
  /** The day the entries were judged against (UTC, YYYY-MM-DD). */
  today: string;
  entries: Array<ExpectedFailureMark & { result?: RequirementResult; message: string }>;
}

/**
 * How a requirement's result changed since the baseline. "failing" means a gating failure
 * (failed, blocked, error, precondition-failed, untested).
 *   regression     failing now, not failing in the baseline (or not in the baseline at all)
 *   fixed          failing in the baseline, passed now
 *   still-failing  failing in both
 *   unchanged      anything else
 */
type BaselineChange = 'regression' | 'fixed' | 'still-failing' | 'unchanged';

export interface BaselineMark {
  /** The baseline's result; `absent` when the baseline did not hold the requirement. */
  was: RequirementResult | 'absent';
  change: BaselineChange;
}

export interface BaselineReport {
  file: string;
  /** The baseline run. */
  startedAt: string;
  suiteVersion: string;
  target: string;
  profile: Profile;
  regressions: Array<{ id: string; was: RequirementResult | 'absent'; now: RequirementResult }>;
  fixed: Array<{ id: string; was: RequirementResult; now: RequirementResult }>;
  stillFailing: Array<{ id: string; was: RequirementResult; now: RequirementResult }>;
  /** In the baseline but not in this run (not selected, or retired). */
  notInRun: string[];
}

/** What decided the exit code when a run is judged against a baseline or an expected-failures file. */
export interface GateReport {
  /** Gating failures nothing excuses: they make exit code 1. */
  blocking: string[];
  /** Gating failures excused by an expected-failures entry, by the baseline (already failing there) or by a dispute (--allow-disputed). */
  excused: Array<{ id: string; by: 'expected-failure' | 'baseline' | 'disputed' }>;
  /** Failing requirements a disputed entry lists (excused only with --allow-disputed). */
  disputed?: string[];
  /** --allow-disputed was given. */
  allowDisputed?: boolean;
  /** Expired expected-failures entries (they make exit code 1). */
  expired: string[];
  /** One line per reason for the exit code, for people. */
  messages: string[];
}

export type Counts = Record<RequirementResult, number>;

/**
 * Tests by outcome: the tests the run ran or left out as not applicable, and (`not-selected`) the
 * tests of the suite files outside the run's selection (another profile, --requirements), which
 * are no part of the run. The console's per-file lines, the summary's `Tests:` line, JUnit's
 * `conformance.tests.*` properties, report.html and results.json `testCounts` all show these.
 */
export type TestCounts = Record<TestOutcome | 'not-selected', number>;

/** The outcomes of TestCounts in the order every surface lists them. */
export const TEST_COUNT_ORDER = [
  'passed',
  'failed',
  'blocked',
  'error',
  'precondition-failed',
  'not-applicable',
  'not-selected',
] as const satisfies ReadonlyArray<keyof TestCounts>;

/** TestCounts of `tests` (one entry per test; synthetic generic and step entries are not tests). */
export function countTests(tests: ReadonlyArray<Pick<TestResult, 'result'>>, notSelected: number): TestCounts {
  const c = Object.fromEntries(TEST_COUNT_ORDER.map((k) => [k, 0])) as TestCounts;
  for (const t of tests) c[t.result]++;
  c['not-selected'] = notSelected;
  return c;
}

/** `31 passed, 1 failed, 6 not selected`: the non-zero counts (passed always), as every text surface words them. */
export function testCountsText(c: TestCounts): string {
  return TEST_COUNT_ORDER.filter((k) => k === 'passed' || c[k] > 0)
    .map((k) => `${c[k]} ${k === 'not-selected' ? 'not selected' : k}`)
    .join(', ');
}

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

/** How the suite sent the token (for reproducing requests; the token itself is never stored). */
export interface AuthInfo {
  header: string;
  prefix: string;
}

/** Timeouts and tolerances of a run. */
export interface RunTiming {
  /** --timeout: one request. */
  requestTimeoutMs: number;
  /** --test-timeout as applied (never shorter than the async timeout + 30 s). */
  testTimeoutMs: number;
  /** --async-timeout: deadline of asynchronous outcomes; longest wait before an effect is judged absent. */
  asyncTimeoutMs: number;
  /** --clock-tolerance: how far the target's clock may be from the runner's. */
  clockToleranceMs: number;
  /** --absence-factor: absence judged after this many times the accepted case's time. */
  absenceFactor?: number;
  /** --absence-floor, in ms: and never sooner. */
  absenceFloorMs?: number;
}

export interface RunResults {
  schema: 'rflps-conformance-results/1';
  suiteVersion: string;
  specVersion: string;
  catalogueVersion: string;
  target: TargetInfo;
  /** A name for the target given by the user (`--target-label`). */
  targetLabel?: string;
  /** The seed of the generated (model-based) tests (`--seed`): give it again to repeat them. */
  seed?: number;
  profile: Profile;
  auth?: AuthInfo;
  timing?: RunTiming;
  selection: { requirements: string[]; readOnly: boolean; shard?: string; fixtures?: string };
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  requirements: RequirementReport[];
  counts: Counts;
  /** Counts over the requirements that decide the verdict (the profile's levels). */
  gatingCounts: Counts;
  /** Tests by outcome, and the tests outside the selection (`not-selected`); see TestCounts. */
  testCounts?: TestCounts;
  /** The open choices the run met and those it never exercised, from its exchanges (choices.ts). */
  choices?: ChoicesExercised;
  verdict: Verdict;
  exitCode: ExitCode;
  /** Problems of the run itself (suite collection errors, unknown IDs, harness errors). */
  runErrors: string[];
  warnings: string[];
  findings: Finding[];
  baseline?: BaselineReport;
  expectedFailures?: ExpectedFailuresReport;
  /** Present when a baseline or expected-failures file took part in the exit code. */
  gate?: GateReport;
  /** The failing requirements a disputed expected-failures entry lists, with both sides of the dispute. */
  disputes?: DisputeReport[];
  /** What the provider-state endpoint made of the run (protocol version, tests it kept from running). */
  providerStates?: ProviderStatesReport;
  /** How much the verdict judged: passed / judged / selected, the rest by cause, and the strength gate. */
  strength?: VerdictStrength;
  /** Tests that timed out and were run again alone (--retries): which passed then (flaky) and which did not. */
  retries?: { max: number; retried: string[]; flaky: string[]; failOnFlaky: boolean };
  /** The slowest answers the run waited for, slowest first (report/slowest.ts). */
  slowestAnswers?: SlowAnswer[];
}

export function emptyCounts(): Counts {
  return {
    passed: 0,
    failed: 0,
    blocked: 0,
    'not-applicable': 0,
    'precondition-failed': 0,
    error: 0,
    untested: 0,
    'not-testable': 0,
  };
}

export interface BuildOptions {
  catalogue: Catalogue;
  profile: Profile;
  requirements: string[];
  tests: TestResult[];
  runErrors?: string[];
}

/** The selected requirements (profile levels, selection patterns, not retired), in catalogue order. */
function selectedRequirements(cat: Catalogue, profile: Profile, patterns: string[]): Requirement[] {
  const levels = profileLevels(profile);
  return cat.requirements.filter((r) => !r.retired && levels.includes(r.level) && matchesSelection(r.id, patterns));
}

/**
 * A blocked test is evidence against the requirement that blocked it: a synthetic failed entry for
 * that requirement, so the root failure shows even when the requirement's own tests passed (the
 * step failed in another context). Generic roots (GEN-001/GEN-002) have their own synthetic entries.
 */
function stepFailures(tests: TestResult[]): TestResult[] {
  const out: TestResult[] = [];
  for (const t of tests) {
    if (t.result !== 'blocked' || !t.blockedBy || /^GEN-/.test(t.blockedBy.requirement)) continue;
    out.push({
      id: `step.${t.id}`,
      title: `step "${t.blockedBy.step}" of test ${t.id}`,
      file: t.file,
      profile: t.profile,
      requirements: [t.blockedBy.requirement],
      result: 'failed',
      durationMs: 0,
      step: true,
      ...(t.error ? { error: t.error } : {}),
    });
  }
  return out;
}

export function buildRequirementReports(o: BuildOptions): RequirementReport[] {
  const byReq = new Map<string, TestResult[]>();
  for (const t of [...o.tests, ...stepFailures(o.tests)])
    for (const id of t.requirements) {
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
    const blockedBy =
      result === 'blocked'
        ? [...new Set(tests.flatMap((t) => (t.result === 'blocked' && t.blockedBy ? [t.blockedBy.requirement] : [])))]
        : [];
    return {
      id: r.id,
      level: r.level,
      section: r.section,
      area: areaOf(r.id),
      statement: r.statement,
      quote: r.quote,
      result,
      reason: r.testable ? undefined : r.reason,
      ...(blockedBy.length ? { blockedBy } : {}),
      tests,
    };
  });
}

/**
 * The root failures first, then each root's blocked requirements: `roots` are the requirements
 * that failed (or errored, or have no test) on their own; `blocked` maps a root to the requirements
 * it blocked. A blocked requirement whose root is not in the run is listed under that root's ID.
 */
export function rootCauses(reqs: RequirementReport[]): {
  roots: RequirementReport[];
  blocked: Map<string, RequirementReport[]>;
} {
  const roots = reqs.filter((q) => isGatingFailure(q.result) && q.result !== 'blocked');
  const blocked = new Map<string, RequirementReport[]>();
  for (const q of reqs) {
    if (q.result !== 'blocked') continue;
    for (const root of q.blockedBy?.length ? q.blockedBy : ['(unknown)']) {
      blocked.set(root, [...(blocked.get(root) ?? []), q]);
    }
  }
  return { roots, blocked };
}

export function countResults(reqs: RequirementReport[]): Counts {
  const c = emptyCounts();
  for (const r of reqs) c[r.result]++;
  return c;
}

/** Whether a requirement result lets the run pass. */
export function isGatingFailure(result: RequirementResult): boolean {
  return (
    result === 'failed' ||
    result === 'blocked' ||
    result === 'error' ||
    result === 'precondition-failed' ||
    result === 'untested'
  );
}

/**
 * The exit code of a run:
 *   3 harness/target failure (given), or every gating requirement that did not pass ended `error`
 *     (the target did not answer in time, or at all: nothing was judged wrong, the spec states no
 *     latency), 2 suite definition problems (unknown IDs ...),
 *   1 a gating requirement (a level of the selected profile) failed, was blocked, had a failed
 *     precondition or has no test (or errored beside those), 0 otherwise (not-applicable and
 *     not-testable do not count).
 */
export function exitCodeFor(
  reqs: RequirementReport[],
  opts: { harnessFailed?: boolean; suiteInvalid?: boolean } = {},
): ExitCode {
  if (opts.harnessFailed) return EXIT.harness;
  if (opts.suiteInvalid) return EXIT.usage;
  const failing = reqs.filter((r) => isGatingFailure(r.result));
  if (failing.length === 0) return EXIT.ok;
  return failing.every((r) => r.result === 'error') ? EXIT.harness : EXIT.failed;
}

export function verdictFor(code: ExitCode): Verdict {
  return code === EXIT.ok
    ? 'pass'
    : code === EXIT.failed
      ? 'fail'
      : code === EXIT.inconclusive
        ? 'inconclusive'
        : 'error';
}
