// The judgement of a control that changes the provider-state endpoint, not the interface (an
// endpoint of an older protocol, one that supports only what the protocol requires, one that cannot
// have some fixtures). The interface is the reference's, unchanged, so nothing may be blamed on it:
// a requirement may end not-applicable or precondition-failed, but only when every test of it that
// did not pass names the provider state (or its protocol) as the reason. Failed, blocked and error
// stay false alarms, as for every control.
import type { RequirementReport } from '../src/report/results.js';

/** A reason the suite gives when a provider state, not the interface, kept a test from judging. */
const STATE_REASON = /provider[- ]state/i;

/** Outcomes a state endpoint may cause; anything else is blamed on the interface or the suite. */
const STATE_OUTCOMES: ReadonlySet<string> = new Set(['not-applicable', 'precondition-failed']);

/**
 * Whether a requirement that did not pass was kept from passing by the provider-state endpoint
 * alone: its result is not-applicable or precondition-failed, and each of its tests that did not
 * pass ended so with a reason naming a provider state.
 */
export function stoppedByStateEndpoint(r: Pick<RequirementReport, 'result' | 'tests'>): boolean {
  return stoppedOnlyBy(r, STATE_OUTCOMES, STATE_REASON);
}

/**
 * Whether a requirement that did not pass was kept from passing by one named cause alone: its
 * result is one of `outcomes`, and so is each of its tests that did not pass, with a reason that
 * matches `reason` (shared with judge-undocumented-part.ts).
 */
export function stoppedOnlyBy(
  r: Pick<RequirementReport, 'result' | 'tests'>,
  outcomes: ReadonlySet<string>,
  reason: RegExp,
): boolean {
  if (!outcomes.has(r.result)) return false;
  const stopped = r.tests.filter((t) => t.result !== 'passed' && !untimed(t));
  return (
    stopped.length > 0 &&
    stopped.every((t) => outcomes.has(t.result) && typeof t.reason === 'string' && reason.test(t.reason))
  );
}

type ReportedTest = RequirementReport['tests'][number];

/** A test that ended not-applicable as its last step, after every request it makes (t.notApplicable's
 * afterEveryRequest): a timing the run's machine did not give, no verdict on anything. */
function untimed(t: ReportedTest): boolean {
  return t.result === 'not-applicable' && t.afterEveryRequest === true;
}

/**
 * Whether a requirement that did not pass was kept from passing by timing alone: not-applicable,
 * and each of its tests that did not pass ended so after every request it makes (a loaded
 * machine). Whatever a control changes, that is not the suite failing it.
 */
export function stoppedByTiming(r: Pick<RequirementReport, 'result' | 'tests'>): boolean {
  return (
    r.result === 'not-applicable' && r.tests.some(untimed) && r.tests.every((t) => t.result === 'passed' || untimed(t))
  );
}
