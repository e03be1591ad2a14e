// The strength of a verdict (conformance/README.md section 7): how much of what was selected the
// run judged. Every verdict shows it (summary, badge, JUnit properties, results.json `strength`, the
// HTML report's first screen), and the exit code policy reads it:
//
//   selected   the testable requirements of the profile's levels in the run (not-testable left out)
//   judged     those with a verdict on their own evidence: passed or failed
//   passed     those that passed
//   notJudged  the rest (blocked, error, precondition-failed, untested, not-applicable), each under
//              one cause, so a pass that judged 94 of 130 says why 36 were not judged
//
// Exit code policy (applied after the baseline and expected-failures gate; exit codes 2 and 3 are
// never changed): a run that would pass but judged nothing is INCONCLUSIVE (exit 4), never a pass;
// --min-judged, --require-protocol (run) and --min-observed (verify-traffic) turn a run that would
// pass into a failure (exit 1) when it judged too little or spoke an older provider-state protocol.
import { compareVersions } from '../suite-api/protocol.js';
import {
  EXIT,
  NOT_JUDGED_CAUSES,
  verdictFor,
  type MinJudged,
  type NotJudgedCause,
  type RequirementReport,
  type RunResults,
  type StrengthGate,
  type TestResult,
  type VerdictStrength,
} from './results.js';

// the shapes live with the rest of results.json (results.ts), which this module fills
export { NOT_JUDGED_CAUSES, type MinJudged, type StrengthGate, type VerdictStrength };

const PROTOCOL_NEED = /^needs provider-state protocol /;
const OPTIONAL_VALUE = /\(an optional value\)|\bgave no \w+|\bgives no \w+/;
const CANNOT_EXIST = /^provider state '[^']+' cannot exist here: /;
const ALLOWED_REFUSAL = /\(400\).*, as the protocol allows: /;
const NOT_OFFERED = /does not offer|offers no |lists no /;
const SELECTION = /not selected \(--|left out by --read-only/;

/** The cause of one not-applicable test. */
function testCause(t: TestResult): NotJudgedCause {
  const why = t.reason ?? '';
  if (t.needsProtocol || PROTOCOL_NEED.test(why)) return 'protocol-version';
  if (t.missingValues?.length || OPTIONAL_VALUE.test(why)) return 'optional-value';
  if (CANNOT_EXIST.test(why)) return 'fixture-cannot-exist';
  if (ALLOWED_REFUSAL.test(why)) return 'state-refused';
  if (/^not observed: /.test(why)) return 'not-observed';
  if (/^not judgeable from traffic alone: /.test(why)) return 'not-judgeable-from-traffic';
  if (NOT_OFFERED.test(why)) return 'binding-refused';
  if (SELECTION.test(why)) return 'selection';
  return 'other';
}

const ORDER = Object.keys(NOT_JUDGED_CAUSES) as NotJudgedCause[];

/** The cause of a requirement without a verdict of its own. */
function notJudgedCause(q: RequirementReport): NotJudgedCause {
  switch (q.result) {
    case 'blocked':
    case 'error':
    case 'precondition-failed':
    case 'untested':
      return q.result;
    default: {
      // traffic puts its reason on the requirement; a run, on the tests
      if (q.tests.length === 0 && q.reason) return testCause({ reason: q.reason } as TestResult);
      const causes = q.tests.filter((t) => t.result === 'not-applicable').map(testCause);
      // the first cause in the order above: the one the vendor can act on first
      return ORDER.find((c) => causes.includes(c)) ?? 'other';
    }
  }
}

function isJudged(q: RequirementReport): boolean {
  return q.result === 'passed' || q.result === 'failed';
}

/** The requirements the verdict is about: the profile's levels, testable. */
function gatingTestable(r: Pick<RunResults, 'requirements' | 'profile'>): RequirementReport[] {
  const levels = r.profile === 'all' ? ['core', 'implementation-defined'] : [r.profile];
  return r.requirements.filter((q) => levels.includes(q.level) && q.result !== 'not-testable');
}

/** The strength of a run's verdict (without the gate). */
export function strengthOf(r: Pick<RunResults, 'requirements' | 'profile'>): VerdictStrength {
  const reqs = gatingTestable(r);
  const judged = reqs.filter(isJudged);
  const by = new Map<NotJudgedCause, string[]>();
  for (const q of reqs) {
    if (isJudged(q)) continue;
    const c = notJudgedCause(q);
    by.set(c, [...(by.get(c) ?? []), q.id]);
  }
  return {
    selected: reqs.length,
    judged: judged.length,
    passed: judged.filter((q) => q.result === 'passed').length,
    notJudged: reqs.length - judged.length,
    notJudgedBy: ORDER.filter((c) => by.has(c)).map((c) => ({
      cause: c,
      count: by.get(c)!.length,
      requirements: by.get(c)!,
    })),
    full: judged.length === reqs.length && reqs.length > 0,
  };
}

/** The judged count a minimum comes to over `selected` (a percentage rounds up: 99.5% of 130 is 130). */
function minJudgedCount(m: MinJudged, selected: number): number {
  return 'count' in m ? m.count : Math.ceil((m.percent * selected) / 100 - 1e-9);
}

/** `--min-judged` as given: `100`, `100%`, `95.5%`. Undefined: not a minimum (the caller says why). */
export function parseMinJudged(s: string): MinJudged | undefined {
  const v = s.trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(v);
  if (pct) {
    const percent = Number(pct[1]);
    return percent <= 100 ? { percent } : undefined;
  }
  return /^\d+$/.test(v) ? { count: Number(v) } : undefined;
}

function describeMinJudged(m: MinJudged): string {
  return 'count' in m ? String(m.count) : `${m.percent}%`;
}

/** The oldest provider-state protocol the run spoke, or undefined when no setup declared one. */
function spokenProtocol(r: RunResults): string | undefined {
  const used = r.providerStates?.used ?? [];
  return used.length ? [...used].sort(compareVersions)[0] : undefined;
}

/**
 * Adds `strength` to the results and applies the exit code policy above: judged nothing → 4
 * (inconclusive); a gate that does not hold → 1. Exit codes 1, 2 and 3 stay as they are.
 */
export function applyStrength(r: RunResults, gate: StrengthGate = {}, what = 'judged'): RunResults {
  const s = strengthOf(r);
  const problems: string[] = [];
  if (gate.minJudged) {
    const need = minJudgedCount(gate.minJudged, s.selected);
    if (s.judged < need)
      problems.push(
        `${what} ${s.judged} of ${s.selected} selected testable requirements, fewer than --min-${what === 'observed' ? 'observed' : 'judged'} ${describeMinJudged(gate.minJudged)} (${need})`,
      );
  }
  if (gate.requireProtocol) {
    const spoke = spokenProtocol(r);
    if (spoke === undefined)
      problems.push(
        `--require-protocol ${gate.requireProtocol}: no provider-state setup declared a version in this run (none declared = 1.0.0)`,
      );
    else if (compareVersions(spoke, gate.requireProtocol) < 0)
      problems.push(
        `--require-protocol ${gate.requireProtocol}: the provider-state endpoint spoke ${spoke}; declare \`protocol: ${gate.requireProtocol}\` in its setup answers`,
      );
  }
  const out: RunResults = { ...r, strength: s };
  if (gate.minJudged || gate.requireProtocol)
    s.gate = {
      ...(gate.minJudged
        ? { minJudged: gate.minJudged, minJudgedCount: minJudgedCount(gate.minJudged, s.selected) }
        : {}),
      ...(gate.requireProtocol ? { requireProtocol: gate.requireProtocol } : {}),
      problems,
    };
  if (r.exitCode !== EXIT.ok) return out;
  if (s.judged === 0) {
    s.inconclusive = `the run ${what} none of its ${s.selected} selected testable requirements: no evidence either way`;
    out.exitCode = EXIT.inconclusive;
  } else if (problems.length) out.exitCode = EXIT.failed;
  out.verdict = verdictFor(out.exitCode);
  return out;
}

/** `94 of 130 judged (94 passed); not judged 36: 30 protocol-version, 6 optional-value`. */
export function strengthLine(s: VerdictStrength, what = 'judged'): string {
  const causes = s.notJudgedBy.map((c) => `${c.count} ${c.cause}`).join(', ');
  return `${s.judged} of ${s.selected} selected testable requirements ${what} (${s.passed} passed)${
    s.notJudged ? `; not ${what} ${s.notJudged}: ${causes}` : ''
  }`;
}
