// What the provider-state endpoint made of the run (spec/provider-states.yaml, "Versions and
// negotiation"): the protocol version spoken, the tests that did not run for want of a newer one and
// what the endpoint must declare and support to run them, and the tests the endpoint, not the
// interface, stopped (precondition-failed, or a fixture it said cannot exist here).
import type { ProviderStatesReport, TestResult } from './results.js';

// the report's shape lives with the rest of results.json (results.ts), which this module fills
export type { ProviderStatesReport } from './results.js';

const REFUSED = /^provider state '[^']+' cannot exist here: |\(400\).*, as the protocol allows: /;

export function providerStatesReport(
  tests: TestResult[],
  suite: string,
  configured: string | undefined,
): ProviderStatesReport {
  const used = [...new Set(tests.flatMap((t) => (t.protocol ? [t.protocol] : [])))].sort();
  const needs = new Map<string, { since: string; what: string; tests: number }>();
  for (const t of tests) {
    if (!t.needsProtocol) continue;
    for (const l of t.lacksProtocol ?? [t.needsProtocol]) {
      const key = `${l.since}|${l.what}`;
      const n = needs.get(key) ?? { since: l.since, what: l.what, tests: 0 };
      n.tests++;
      needs.set(key, n);
    }
  }
  const optional = new Map<string, number>();
  const forOptional = tests.filter((t) => !t.needsProtocol && t.result === 'not-applicable' && t.missingValues?.length);
  for (const t of forOptional) for (const v of t.missingValues!) optional.set(v, (optional.get(v) ?? 0) + 1);
  return {
    suite,
    ...(configured !== undefined ? { configured } : {}),
    used,
    notRunForProtocol: tests.filter((t) => t.needsProtocol).length,
    needs: [...needs.values()].sort((a, b) => b.since.localeCompare(a.since) || a.what.localeCompare(b.what)),
    ...(forOptional.length
      ? {
          notRunForOptionalValue: forOptional.length,
          optionalValues: [...optional]
            .map(([value, n]) => ({ value, tests: n }))
            .sort((a, b) => a.value.localeCompare(b.value)),
        }
      : {}),
    preconditionFailed: tests.filter((t) => t.result === 'precondition-failed').length,
    refused: tests.filter((t) => t.result === 'not-applicable' && REFUSED.test(t.reason ?? '')).length,
  };
}

/** The report's lines for people (summary and HTML): empty when the endpoint kept up with the suite. */
export function providerStatesLines(r: ProviderStatesReport): string[] {
  const lines: string[] = [];
  const spoke = r.used.length ? r.used.join(', ') : 'none (no state was set up)';
  lines.push(
    `Provider-state protocol: spoke ${spoke}${r.configured ? ` (as told: --provider-states-protocol ${r.configured})` : r.used.length ? ' (as the endpoint declared; none declared = 1.0.0)' : ''}; this suite speaks up to ${r.suite}`,
  );
  if (r.notRunForProtocol > 0) {
    const newest = r.needs[0]?.since ?? r.suite;
    lines.push(
      `  ${r.notRunForProtocol} tests did not run for want of a newer protocol: declare \`protocol: ${newest}\` in the setup answers (or run with --provider-states-protocol ${newest}) and support:`,
    );
    for (const n of r.needs) lines.push(`    ${n.since}  ${n.what} (${n.tests} test${n.tests === 1 ? '' : 's'})`);
  }
  if (r.notRunForOptionalValue) {
    lines.push(
      `  ${r.notRunForOptionalValue} tests did not run for want of optional values the setup answers left out; answer them to run those tests:`,
    );
    for (const o of r.optionalValues ?? []) lines.push(`    ${o.value} (${o.tests} test${o.tests === 1 ? '' : 's'})`);
  }
  if (r.preconditionFailed > 0)
    lines.push(
      `  ${r.preconditionFailed} tests precondition-failed: the provider-state endpoint could not set up what they asked for (not a failure of the interface; see each test's reason)`,
    );
  if (r.refused > 0)
    lines.push(
      `  ${r.refused} tests not applicable: the endpoint said their fixture cannot exist here (501) or refused it as allowed (400)`,
    );
  return lines;
}

/**
 * When every requirement that keeps the run from passing is precondition-failed, the verdict's
 * cause is the provider-state endpoint, not the interface: this sentence says so (else undefined).
 */
export function stateEndpointCause(requirements: Array<{ result: string }>): string | undefined {
  const failing = requirements.filter((q) =>
    ['failed', 'blocked', 'error', 'precondition-failed', 'untested'].includes(q.result),
  );
  if (failing.length === 0 || failing.some((q) => q.result !== 'precondition-failed')) return undefined;
  return `The cause is the provider-state endpoint, not the interface: all ${failing.length} failing requirements are precondition-failed (a state could not be set up as the tests asked).`;
}
