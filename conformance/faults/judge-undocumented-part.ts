// The judgement of a control that refuses, or leaves out, an undocumented part of the interface that
// a binding names (the relationship column of a link row: spec 2.3, "not shown"). A test that can
// judge its rule only through that part ends not-applicable and names the binding; that is the
// suite's right answer, not a false alarm. A requirement may end not-applicable only when every
// test of it that did not pass ended not-applicable with such a reason; failed, blocked and error
// stay false alarms, as for every control.
import type { RequirementReport } from '../src/report/results.js';
import { stoppedOnlyBy } from './judge-state-endpoint.js';

/** How a not-applicable reason names the binding of the part the implementation does not offer. */
const BINDING_REASON = /\(binding [A-Za-z]+(?:\.[A-Za-z]+)*\)/;
/** The only outcome the refusal of an undocumented part may cause. */
const NOT_APPLICABLE: ReadonlySet<string> = new Set(['not-applicable']);

/**
 * Whether a requirement that did not pass was kept from passing only by the implementation's
 * refusal of an undocumented part: its result is not-applicable, and so is each of its tests that
 * did not pass, with a reason naming the binding of that part.
 */
export function stoppedByUndocumentedPart(r: Pick<RequirementReport, 'result' | 'tests'>): boolean {
  return stoppedOnlyBy(r, NOT_APPLICABLE, BINDING_REASON);
}
