// Results made by the real reporter code (buildRunResults) from a fake vitest run over the real
// requirement catalogue: every testable requirement gets one test per requirement.
import path from 'node:path';
import { loadCatalogue } from '../../src/spec/catalogue.js';
import type { ConformanceMeta } from '../../src/suite-api/dsl.js';
import type { GateInput } from '../../src/report/gate.js';
import { ROOT } from '../../src/paths.js';
import { buildRunResults, type RunInfo } from '../../src/report/run-results.js';
import type { ReportedTest } from '../../src/report/test-result.js';
import type { Profile } from '../../src/model/context.js';
import type { RunResults } from '../../src/report/results.js';

/** Characters XML 1.0 does not allow (control characters, U+FFFF, a lone surrogate). */
const NASTY = 'nul\u0000 bell\u0007 ffff\uFFFF lone\uD800 end';
export const XSS = `<script>window.__xss=1</script><img src="http://evil.invalid/x.png" onerror="window.__xss=2">`;

export interface FakeRunOptions {
  profile?: Profile;
  /** Requirement IDs whose test fails (with a recorded exchange). */
  fail?: string[];
  /** Requirement IDs whose test ends as precondition-failed. */
  precondition?: string[];
  /** Requirement IDs left without a test (untested). */
  untested?: string[];
  gate?: GateInput;
  startedAt?: Date;
}

export function fakeRun(o: FakeRunOptions = {}): RunResults {
  const cat = loadCatalogue();
  const profile = o.profile ?? 'core';
  const levels = profile === 'all' ? ['core', 'implementation-defined'] : [profile];
  const tests: ReportedTest[] = [];
  for (const r of cat.requirements) {
    if (r.retired || !r.testable || !levels.includes(r.level) || o.untested?.includes(r.id)) continue;
    const area = r.id.split('-')[0].toLowerCase();
    const meta: ConformanceMeta = {
      conformance: true,
      id: `${area}.check-${r.id.toLowerCase()}`,
      title: `checks ${r.id}`,
      requirements: [r.id],
      profile: r.level,
    };
    const t: ReportedTest = {
      name: `checks ${r.id} [${r.id}]`,
      file: path.join(ROOT, `conformance/suite/${area}.test.ts`),
      meta,
      state: 'passed',
      durationMs: 12,
    };
    if (o.fail?.includes(r.id)) {
      t.state = 'failed';
      meta.outcome = 'failed';
      meta.exchanges = [
        {
          method: 'POST',
          url: `http://vendor.example:8080/api/Link/Upsert?x='quote'&y=${encodeURIComponent(XSS)}`,
          requestHeaders: { accept: 'application/json', 'content-type': 'application/json', token: '<redacted>' },
          requestBody: JSON.stringify({ ParentDomain: 'Claim', Note: `it's $(rm -rf /) \`id\` ${XSS}` }),
          status: 500,
          responseHeaders: { 'content-type': 'text/html', 'x-evil': XSS },
          responseBody: `<html><body>${XSS}<link rel="stylesheet" href="http://evil.invalid/s.css"></body></html>`,
          ms: 7,
          operationId: 'upsertLink',
        },
      ];
      t.errors = [
        {
          name: 'AssertionError',
          message: `expected 500 to be 200 ${XSS} ${NASTY}`,
          expected: '200',
          actual: '500',
          diff: '- Expected\n+ Received\n\n- 200\n+ 500',
          stacks: [{ file: path.join(ROOT, `conformance/suite/${area}.test.ts`), line: 1, column: 1 }],
        },
      ];
    }
    if (o.precondition?.includes(r.id)) {
      t.state = 'failed';
      meta.outcome = 'precondition-failed';
      meta.outcomeReason = "provider state 'a proposal' failed: 400 unknown state";
      t.errors = [
        { name: 'PreconditionFailedError', message: "provider state 'a proposal' failed: 400 unknown state" },
      ];
    }
    tests.push(t);
  }
  const info: RunInfo = {
    catalogue: cat,
    suiteVersion: '0.1.0',
    specVersion: cat.version,
    target: {
      kind: 'url',
      requested: 'url',
      baseUrl: 'http://vendor.example:8080',
      stateUrl: 'http://vendor.example:8080/_provider-states',
      description: 'implementation at http://vendor.example:8080',
    },
    targetLabel: 'Vendor API 2.3',
    profile,
    requirements: [],
    readOnly: false,
    startedAt: o.startedAt ?? new Date('2026-01-02T03:04:05Z'),
    auth: { header: 'Token', prefix: '' },
    gate: o.gate,
  };
  return buildRunResults(
    info,
    tests,
    { runErrors: [], suiteInvalid: false, harnessFailed: false },
    new Date((o.startedAt ?? new Date('2026-01-02T03:04:05Z')).getTime() + 61_000),
  );
}
