// The outcome of a test and of a requirement, and how a thrown error classifies a test: the kinds
// every report counts (docs/architecture.md section 7), decided in one place.

/**
 * The result of one test.
 *   passed               every assertion held
 *   failed               an assertion of the test itself failed (a root failure)
 *   blocked              a step the test needs failed: a `t.needs(REQ, ...)` step, or a response the
 *                        generic checks refused (GEN-001/GEN-002); `blockedBy` names the requirement
 *                        that failed. Non-passing (exit code 1 like failed), but not counted as a
 *                        failure of the test's own requirements.
 *   precondition-failed  a provider state (the vendor's test adapter, no requirement of the spec)
 *                        could not be set up
 *   error                the target could not be reached or the test did not finish
 *   not-applicable       left out by --read-only or t.notApplicable (a test outside the profile or
 *                        --requirements is not selected: no outcome, counted apart as not-selected)
 */
export type TestOutcome = 'passed' | 'failed' | 'blocked' | 'not-applicable' | 'precondition-failed' | 'error';
/** The result of one requirement: a test outcome, or why no test result exists. */
export type RequirementResult = TestOutcome | 'untested' | 'not-testable';

/** The verdict of a whole run (results.json `verdict`), from its exit code (report/results.ts verdictFor). */
export type Verdict = 'pass' | 'fail' | 'error' | 'inconclusive';

/** How a thrown error classifies a test. */
export function classifyError(err: { name?: string; message?: string } | undefined): TestOutcome {
  if (!err) return 'failed';
  const name = err.name ?? '';
  const msg = err.message ?? '';
  if (name === 'PreconditionFailedError') return 'precondition-failed';
  if (name === 'BlockedError') return 'blocked';
  if (name === 'NotApplicableError') return 'not-applicable';
  if (name === 'TargetError' || name === 'TimeoutError' || name === 'AbortError' || name === 'SuiteRequestError')
    return 'error';
  if (name === 'TypeError' && /fetch failed/i.test(msg)) return 'error';
  if (
    /^Test timed out in \d+ms/.test(msg) ||
    /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|UND_ERR_|socket hang up/.test(msg)
  )
    return 'error';
  return 'failed';
}

/** A requirement's result from its tests' outcomes. */
export function aggregate(outcomes: TestOutcome[]): TestOutcome {
  if (outcomes.includes('failed')) return 'failed';
  if (outcomes.includes('error')) return 'error';
  if (outcomes.includes('blocked')) return 'blocked';
  if (outcomes.includes('precondition-failed')) return 'precondition-failed';
  if (outcomes.includes('passed')) return 'passed';
  return 'not-applicable';
}
