// One test's result in the result model (results.ts), from the test as vitest reports it.
import type { ConformanceMeta } from '../suite-api/dsl.js';
import { relFile } from '../paths.js';
import { expectationOf, stripAnsi, type ReportedError } from './expectation.js';
import { classifyError, type TestOutcome } from '../model/outcome.js';
import type { TestResult } from './results.js';

/** A test as vitest reports it, reduced to what the model needs. */
export interface ReportedTest {
  name: string;
  /** Absolute or root-relative file. */
  file: string;
  meta: ConformanceMeta;
  state: 'passed' | 'failed' | 'skipped' | 'pending';
  errors?: ReadonlyArray<ReportedError>;
  note?: string;
  durationMs?: number;
}

/** One test's result. */
export function toTestResult(t: ReportedTest): TestResult {
  const m = t.meta ?? {};
  let result: TestOutcome;
  let reason: string | undefined;
  if (t.state === 'skipped') {
    result = 'not-applicable';
    reason = m.outcomeReason ?? t.note ?? m.skipReason ?? 'skipped (not run)';
  } else if (t.state === 'passed') {
    result = 'passed';
  } else if (t.state === 'failed') {
    const fromMeta = m.outcome && m.outcome !== 'passed' && m.outcome !== 'not-applicable' ? m.outcome : undefined;
    result = fromMeta ?? classifyError(t.errors?.[0]);
    if (result === 'precondition-failed' || result === 'blocked') reason = m.outcomeReason ?? t.errors?.[0]?.message;
  } else {
    result = 'error';
    reason = 'the test did not finish';
  }
  const title = m.title ?? t.name.replace(/\s*\[[^\]]*\]\s*$/, '');
  const out: TestResult = {
    id: m.id ?? t.name,
    title,
    file: relFile(t.file),
    profile: m.profile ?? 'core',
    requirements: m.requirements ?? idsFromName(t.name),
    result,
    durationMs: Math.round(t.durationMs ?? 0),
  };
  // what the test's verdict rests on: its own requests and those of another test it judged (t.dependsOnRequests)
  const addressed = [...(m.exchanges ?? []).map((e) => e.operationId ?? ''), ...(m.dependedOperations ?? [])];
  const operations = [...new Set(addressed.filter((o) => o !== ''))].sort();
  if (operations.length) {
    out.operations = operations;
    const refused = [
      ...(m.exchanges ?? [])
        .filter((e) => e.status === undefined || e.status < 200 || e.status >= 300)
        .map((e) => e.operationId ?? ''),
      ...(m.dependedOperations ?? []),
    ];
    out.refusedOperations = [...new Set(refused.filter((o) => o !== ''))].sort();
  }
  const unmatched = addressed.filter((o) => o === '').length;
  if (unmatched) out.unmatchedRequests = unmatched;
  if (reason) out.reason = reason;
  if (result === 'blocked' && m.blockedBy) out.blockedBy = m.blockedBy;
  if (result === 'failed' || result === 'blocked' || result === 'error' || result === 'precondition-failed') {
    out.error = {
      message: (t.errors ?? []).map((e) => stripAnsi(e.message ?? String(e))).join('\n') || reason || result,
      exchanges: m.exchanges ?? [],
    };
    const exp = t.errors?.[0] ? expectationOf(t.errors[0], relFile(t.file)) : undefined;
    if (exp) out.error.expectation = exp;
  }
  if (m.protocol) out.protocol = m.protocol;
  if (m.needsProtocol && result === 'not-applicable') out.needsProtocol = m.needsProtocol;
  if (m.lacksProtocol && result === 'not-applicable') out.lacksProtocol = m.lacksProtocol;
  if (m.missingValues?.length && result === 'not-applicable') out.missingValues = m.missingValues;
  if (m.afterEveryRequest && result === 'not-applicable') out.afterEveryRequest = true;
  if (m.stateValuesUsed?.length) out.stateValuesUsed = m.stateValuesUsed;
  if (m.modelCoverage) out.modelCoverage = m.modelCoverage;
  if (m.warnings?.length) out.warnings = m.warnings;
  if (m.absenceWatchedMs?.length) out.absenceWatchedMs = m.absenceWatchedMs;
  if (m.findings?.length) out.findings = m.findings;
  return out;
}

/** `title [A-001 B-002]` → ['A-001', 'B-002'] (for tests without meta). */
function idsFromName(name: string): string[] {
  const m = /\[([A-Z]+-\d+(?:\s+[A-Z]+-\d+)*)\]\s*$/.exec(name);
  return m ? m[1].split(/\s+/) : [];
}
