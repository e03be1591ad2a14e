// The generic checks, one named check per requirement (as a fuzzer names its checks), run in this
// order on every exchange that passes through the suite's client (docs/architecture.md section 8).
// A requirement listed here is verified by the checks, not by named tests: the coverage gate and
// the reports (one synthetic result per suite file and requirement) take the list from here.
import { bodyIsJson } from './body-is-json.js';
import { documentedBodyShape } from './documented-body-shape.js';
import type { GenericCheck } from './check.js';
import type { GenericCode } from './types.js';

export const GENERIC_CHECKS: readonly GenericCheck[] = [bodyIsJson, documentedBodyShape];

/** The requirements the generic checks verify, in the order of the list. */
export const GENERIC_REQUIREMENTS: readonly GenericCode[] = GENERIC_CHECKS.map((c) => c.requirement);
