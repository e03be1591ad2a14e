// The suite's side of a judge (conformance/src/judge): a test asserts the finding a judge gives on
// what it read, so the live run and the traffic rules decide a requirement by the same predicate.
import { expect } from 'vitest';
import { type Finding, findingOf } from '../judge/finding.js';

/** `requirement` is decided by `findings` and holds (`what` names the answer judged). */
export function expectFinding(findings: readonly Finding[], requirement: string, what = ''): void {
  const f = findingOf(findings, requirement);
  const where = what ? `${what}: ` : '';
  expect(f, `${where}the answer does not decide ${requirement}`).toBeDefined();
  expect(f!.ok, `${where}${f!.detail}`).toBe(true);
}
