// From vitest's view of the run to the result model (results.ts), and the files written from it.
import fs from 'node:fs';
import path from 'node:path';
import type { ConformanceMeta } from '../suite-api/dsl.js';
import type { Catalogue } from '../spec/catalogue.js';
import { areaOf } from '../spec/catalogue.js';
import type { Finding } from '../suite-api/generic-checks/checker.js';
import { applyGate, type GateInput } from './gate.js';
import { renderBadge } from './badge.js';
import { renderHtml } from './html.js';
import { ROOT } from '../paths.js';
import { specSectionTitles } from '../spec/sections.js';
import {
  buildRequirementReports,
  rootCauses,
  classifyError,
  countResults,
  emptyCounts,
  exitCodeFor,
  verdictFor,
  type AuthInfo,
  type ExitCode,
  type Expectation,
  type RequirementReport,
  type RunResults,
  type RunTiming,
  type TargetInfo,
  type TestOutcome,
  type TestResult,
} from './results.js';
import type { Profile } from '../run/context.js';

/** An error as vitest reports it (TestError), reduced to what the model needs. */
export interface ReportedError {
  name?: string;
  message?: string;
  expected?: unknown;
  actual?: unknown;
  diff?: string;
  stack?: string;
  stacks?: ReadonlyArray<{ file?: string; line?: number; column?: number; method?: string }>;
}

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

export function relFile(file: string): string {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') ? file : rel.split(path.sep).join('/');
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
  const operations = [...new Set((m.exchanges ?? []).flatMap((e) => (e.operationId ? [e.operationId] : [])))].sort();
  if (operations.length) out.operations = operations;
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
  if (m.warnings?.length) out.warnings = m.warnings;
  if (m.findings?.length) out.findings = m.findings;
  return out;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;
function stripAnsi(s: string): string {
  return s.replace(ANSI, '');
}

function clip(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… [${s.length - max} more characters]` : s;
}

function asText(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

const sourceCache = new Map<string, string[] | null>();
function sourceLine(file: string, line: number): string | undefined {
  const abs = path.isAbsolute(file) ? file : path.join(ROOT, file);
  if (!sourceCache.has(abs)) {
    try {
      sourceCache.set(abs, fs.readFileSync(abs, 'utf8').split(/\r?\n/));
    } catch {
      sourceCache.set(abs, null);
    }
  }
  const text = sourceCache.get(abs)?.[line - 1]?.trim();
  return text ? clip(text, 300) : undefined;
}

/**
 * The expectation that failed, from vitest's error: message, expected/actual/diff (assertions),
 * and the first stack frame outside the harness and node_modules (the suite's line).
 */
function expectationOf(e: ReportedError, testFile?: string): Expectation | undefined {
  const message = stripAnsi(e.message ?? '')
    .split('\n')[0]
    .trim();
  if (!message) return undefined;
  const out: Expectation = { message };
  if (e.name) out.errorName = e.name;
  const expected = asText(e.expected);
  const actual = asText(e.actual);
  if (expected !== undefined) out.expected = clip(stripAnsi(expected), 4000);
  if (actual !== undefined) out.actual = clip(stripAnsi(actual), 4000);
  if (e.diff) out.diff = clip(stripAnsi(e.diff), 6000);
  const frames = e.stacks ?? [];
  const isOwn = (f: string) => !/node_modules|[\\/]conformance[\\/]src[\\/]/.test(f);
  const frame =
    frames.find((f) => f.file && testFile && relFile(f.file) === testFile) ??
    frames.find((f) => f.file && isOwn(f.file) && f.line);
  if (frame?.file && frame.line) {
    out.location = `${relFile(frame.file)}:${frame.line}${frame.column ? `:${frame.column}` : ''}`;
    const src = sourceLine(frame.file, frame.line);
    if (src) out.source = src;
  }
  return out;
}

/** `title [A-001 B-002]` → ['A-001', 'B-002'] (for tests without meta). */
function idsFromName(name: string): string[] {
  const m = /\[([A-Z]+-\d+(?:\s+[A-Z]+-\d+)*)\]\s*$/.exec(name);
  return m ? m[1].split(/\s+/) : [];
}

/**
 * GEN-001 / GEN-002 are verified by the generic checks on every exchange: one synthetic test per
 * suite file and requirement (failed when any response of the file violated it). Violations of
 * the reference's choices (level 'implementation-defined', seen by implementation-defined tests
 * only) fail those tests, not GEN-002.
 */
export function genericResults(tests: ReportedTest[]): TestResult[] {
  const byFile = new Map<string, ReportedTest[]>();
  for (const t of tests) {
    const f = relFile(t.file);
    byFile.set(f, [...(byFile.get(f) ?? []), t]);
  }
  const out: TestResult[] = [];
  for (const [file, list] of byFile) {
    for (const code of ['GEN-001', 'GEN-002'] as const) {
      const checked = list.reduce((n, t) => n + (t.meta?.checked?.[code] ?? 0), 0);
      const violations = list.flatMap((t) =>
        (t.meta?.violations ?? [])
          .filter((v) => v.code === code && v.level !== 'implementation-defined')
          .map((v) => ({ v, t })),
      );
      if (checked === 0 && violations.length === 0) continue;
      const base = path.basename(file).replace(/\.test\.ts$/, '');
      const r: TestResult = {
        id: `generic.${code.toLowerCase()}.${base}`,
        title: `generic check ${code} on ${checked} response(s) of ${file}`,
        file,
        profile: 'core',
        requirements: [code],
        result: violations.length ? 'failed' : 'passed',
        durationMs: 0,
        generic: true,
      };
      if (violations.length) {
        r.error = {
          message: violations.map(({ v, t }) => `${v.message} (in test ${t.meta?.id ?? t.name})`).join('\n'),
          exchanges: [],
        };
      }
      out.push(r);
    }
  }
  return out;
}

export interface RunInfo {
  catalogue: Catalogue;
  suiteVersion: string;
  specVersion: string;
  target: TargetInfo;
  profile: Profile;
  requirements: string[];
  readOnly: boolean;
  shard?: string;
  fixtures?: string;
  startedAt: Date;
  /** A name for the target given by the user. */
  targetLabel?: string;
  /** Token header and prefix (for reproducing requests). */
  auth?: AuthInfo;
  /** Baseline and expected failures the exit code is judged against. */
  gate?: GateInput;
  /** Timeouts and tolerances of the run (shown in the report header). */
  timing?: RunTiming;
  /** The seed of the generated (model-based) tests. */
  seed?: number;
}

export function buildRunResults(
  info: RunInfo,
  tests: ReportedTest[],
  problems: { runErrors: string[]; suiteInvalid: boolean; harnessFailed: boolean },
  finishedAt = new Date(),
): RunResults {
  const testResults = [...tests.map(toTestResult), ...genericResults(tests)];
  let reqs: RequirementReport[] = buildRequirementReports({
    catalogue: info.catalogue,
    profile: info.profile,
    requirements: info.requirements,
    tests: testResults,
  });
  // One shard sees only its own files: requirements without a test in this shard are left out.
  if (info.shard) reqs = reqs.filter((r) => r.tests.length > 0);
  const levels = info.profile === 'all' ? ['core', 'implementation-defined'] : [info.profile];
  const gating = reqs.filter((r) => levels.includes(r.level));
  const exitCode: ExitCode = exitCodeFor(gating, problems);
  const findings = dedupeFindings(testResults.flatMap((t) => t.findings ?? []));
  const warnings = testResults.flatMap((t) => (t.warnings ?? []).map((w) => `${t.id}: ${w}`));
  const titles = specSectionTitles();
  for (const q of reqs) {
    const title = titles.get(q.section);
    if (title) q.sectionTitle = title;
  }
  const base: RunResults = {
    schema: 'rflps-conformance-results/1',
    suiteVersion: info.suiteVersion,
    specVersion: info.specVersion,
    catalogueVersion: info.catalogue.version,
    target: info.target,
    ...(info.targetLabel ? { targetLabel: info.targetLabel } : {}),
    ...(info.seed !== undefined ? { seed: info.seed } : {}),
    profile: info.profile,
    ...(info.auth ? { auth: info.auth } : {}),
    ...(info.timing ? { timing: info.timing } : {}),
    selection: { requirements: info.requirements, readOnly: info.readOnly, shard: info.shard, fixtures: info.fixtures },
    startedAt: info.startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - info.startedAt.getTime(),
    requirements: reqs,
    counts: countResults(reqs),
    gatingCounts: gating.length ? countResults(gating) : emptyCounts(),
    verdict: verdictFor(exitCode),
    exitCode,
    runErrors: problems.runErrors,
    warnings,
    findings,
  };
  return applyGate(base, info.gate ?? {});
}

function dedupeFindings(list: Finding[], max = 500): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of list) {
    const key = `${f.kind}|${f.operationId ?? ''}|${f.method}|${f.status}|${f.kind === 'unknown-operation' ? f.url : ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(f);
    if (out.length >= max) break;
  }
  return out;
}

// ------------------------------------------------------------------------- JUnit

function xml(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex -- control characters are not allowed in XML 1.0
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
  );
}

/** One testcase per requirement check (`<REQ-ID> <test title>`), grouped by spec area. */
export function toJUnit(r: RunResults): string {
  const byArea = new Map<string, string[]>();
  const stats = new Map<string, { tests: number; failures: number; errors: number; skipped: number; time: number }>();
  const add = (area: string, xmlCase: string, kind: 'ok' | 'failure' | 'error' | 'skipped', ms: number) => {
    byArea.set(area, [...(byArea.get(area) ?? []), xmlCase]);
    const s = stats.get(area) ?? { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
    s.tests++;
    if (kind === 'failure') s.failures++;
    if (kind === 'error') s.errors++;
    if (kind === 'skipped') s.skipped++;
    s.time += ms;
    stats.set(area, s);
  };
  const excused = new Map((r.gate?.excused ?? []).map((x) => [x.id, x.by]));
  for (const req of r.requirements) {
    const area = areaOf(req.id);
    // a failure the gate excuses (expected failure, or already failing in the baseline) is reported
    // as skipped, like an xfail, so that CI test reporters agree with the exit code
    const by = excused.get(req.id);
    const excuse =
      by === 'expected-failure'
        ? `expected failure until ${req.expectedFailure?.expires}: ${req.expectedFailure?.reason}`
        : by === 'baseline'
          ? `known failure: already ${req.baseline?.was} in the baseline`
          : undefined;
    const expiredNote =
      req.expectedFailure?.status === 'expired'
        ? `\n\nthe expected-failures entry for ${req.id} expired on ${req.expectedFailure.expires} (${req.expectedFailure.reason})`
        : '';
    if (req.tests.length === 0) {
      const name = `${req.id} ${req.result === 'not-testable' ? '(not testable)' : '(no test)'}`;
      if (req.result === 'untested' && excuse) {
        add(
          area,
          `    <testcase name="${xml(name)}" classname="${xml(area)}" time="0"><skipped message="${xml(`${excuse} (untested)`)}"/></testcase>`,
          'skipped',
          0,
        );
      } else if (req.result === 'untested') {
        add(
          area,
          `    <testcase name="${xml(name)}" classname="${xml(area)}" time="0"><failure type="untested" message="${xml(`no test verifies ${req.id}`)}">${xml(req.statement + expiredNote)}</failure></testcase>`,
          'failure',
          0,
        );
      } else {
        add(
          area,
          `    <testcase name="${xml(name)}" classname="${xml(area)}" time="0"><skipped message="${xml(req.reason ?? req.result)}"/></testcase>`,
          'skipped',
          0,
        );
      }
      continue;
    }
    for (const t of req.tests) {
      const name = `${req.id} ${t.title}`;
      const time = (t.durationMs / 1000).toFixed(3);
      const head = `    <testcase name="${xml(name)}" classname="${xml(area)}" file="${xml(t.file)}" time="${time}">`;
      const msg = t.error?.message ?? t.reason ?? '';
      const first = msg.split('\n')[0];
      const exchanges = t.error?.exchanges
        .map((e) => `${e.method} ${e.url} → ${e.status ?? e.error ?? '?'}`)
        .join('\n');
      const where = t.error?.expectation?.location
        ? `\n\nat ${t.error.expectation.location}${t.error.expectation.source ? `: ${t.error.expectation.source}` : ''}`
        : '';
      const detail = `${exchanges ? `${msg}${where}\n\nexchanges:\n${exchanges}` : `${msg}${where}`}${expiredNote}`;
      const failing =
        t.result === 'failed' || t.result === 'blocked' || t.result === 'error' || t.result === 'precondition-failed';
      if (failing && excuse) {
        add(
          area,
          `${head}<skipped message="${xml(`${excuse}; ${t.result}: ${first}`)}"/><system-out>${xml(detail)}</system-out></testcase>`,
          'skipped',
          t.durationMs,
        );
        continue;
      }
      switch (t.result) {
        case 'passed':
          add(area, `${head}</testcase>`, 'ok', t.durationMs);
          break;
        case 'failed':
          add(
            area,
            `${head}<failure type="failed" message="${xml(first)}">${xml(detail)}</failure></testcase>`,
            'failure',
            t.durationMs,
          );
          break;
        case 'blocked':
          add(
            area,
            `${head}<failure type="blocked" message="${xml(`blocked by ${t.blockedBy?.requirement ?? '?'}: ${first}`)}">${xml(detail)}</failure></testcase>`,
            'failure',
            t.durationMs,
          );
          break;
        case 'error':
        case 'precondition-failed':
          add(
            area,
            `${head}<error type="${t.result}" message="${xml(first)}">${xml(detail)}</error></testcase>`,
            'error',
            t.durationMs,
          );
          break;
        case 'not-applicable':
          add(
            area,
            `${head}<skipped message="${xml(t.reason ?? 'not applicable')}"/></testcase>`,
            'skipped',
            t.durationMs,
          );
          break;
      }
    }
  }
  const tot = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const suites: string[] = [];
  for (const [area, cases] of [...byArea].sort(([a], [b]) => a.localeCompare(b))) {
    const s = stats.get(area)!;
    tot.tests += s.tests;
    tot.failures += s.failures;
    tot.errors += s.errors;
    tot.skipped += s.skipped;
    tot.time += s.time;
    suites.push(
      `  <testsuite name="${xml(area)}" tests="${s.tests}" failures="${s.failures}" errors="${s.errors}" skipped="${s.skipped}" time="${(s.time / 1000).toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rflps-conformance ${xml(r.profile)}" tests="${tot.tests}" failures="${tot.failures}" errors="${tot.errors}" skipped="${tot.skipped}" time="${(r.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}

// ------------------------------------------------------------------------- summary

function describeTarget(t: TargetInfo): string {
  const what =
    t.kind === 'container'
      ? `container ${t.image ?? ''}${t.digest ? ` (${t.digest.slice(0, 19)})` : ''}`
      : t.kind === 'local-process'
        ? 'reference server as a local process'
        : 'implementation';
  return `${what} at ${t.baseUrl}`;
}

export function summaryText(r: RunResults, opts: { verbose?: boolean; reportDir?: string } = {}): string {
  const c = r.counts;
  const lines: string[] = [];
  lines.push('');
  lines.push(
    `Conformance (${r.profile} profile${r.selection.requirements.length ? `, requirements ${r.selection.requirements.join(',')}` : ''}${r.selection.readOnly ? ', read-only' : ''}${r.selection.shard ? `, shard ${r.selection.shard}` : ''}) against ${r.targetLabel ? `${r.targetLabel}: ` : ''}${describeTarget(r.target)}`,
  );
  lines.push(`Suite ${r.suiteVersion}, spec ${r.specVersion || '?'}, catalogue ${r.catalogueVersion || '?'}`);
  if (r.timing)
    lines.push(
      `Timing: request timeout ${r.timing.requestTimeoutMs} ms, test timeout ${r.timing.testTimeoutMs} ms, async timeout ${r.timing.asyncTimeoutMs} ms, clock tolerance ${r.timing.clockToleranceMs} ms`,
    );
  lines.push(
    `Requirements: ${r.requirements.length} selected: ${c.passed} passed, ${c.failed} failed, ${c.blocked} blocked, ${c.error} error, ${c['precondition-failed']} precondition-failed, ${c.untested} untested, ${c['not-applicable']} not-applicable, ${c['not-testable']} not-testable`,
  );
  // Root failures first (requirements that failed on their own), then the blocked ones under their root.
  const { roots, blocked } = rootCauses(r.requirements);
  const limit = opts.verbose ? Infinity : 40;
  const requirementLine = (q: RequirementReport, indent: string) => {
    const marks = [
      q.baseline?.change === 'regression' ? 'REGRESSION' : '',
      q.baseline?.change === 'still-failing' ? 'known: failing in the baseline' : '',
      q.expectedFailure?.status === 'expected-failure' ? 'expected failure' : '',
      q.expectedFailure?.status === 'expired' ? 'expected failure EXPIRED' : '',
    ].filter(Boolean);
    const mark = marks.length ? ` [${marks.join(', ')}]` : '';
    return `${indent}${q.id.padEnd(10)} ${q.result.padEnd(19)} (${q.level})${mark} ${q.statement.slice(0, 100)}`;
  };
  if (roots.length) {
    lines.push('');
    lines.push(`Root failures (${roots.length}):`);
    for (const q of roots.slice(0, limit)) {
      lines.push(requirementLine(q, '  '));
      for (const t of q.tests.filter((x) => x.result !== 'passed' && x.result !== 'not-applicable')) {
        const msg = (t.error?.message ?? t.reason ?? '').split('\n')[0].slice(0, 200);
        lines.push(`             - ${t.id}: ${t.result}${msg ? `: ${msg}` : ''}`);
      }
    }
    if (roots.length > limit) lines.push(`  … ${roots.length - limit} more (see results.json, or --reporter-verbose)`);
  }
  if (blocked.size) {
    const n = new Set([...blocked.values()].flat().map((q) => q.id)).size;
    lines.push('');
    lines.push(`Blocked (${n}), by the requirement whose failure they depend on:`);
    for (const [root, list] of blocked) {
      lines.push(`  by ${root}: ${list.length} requirement(s)`);
      for (const q of list.slice(0, limit)) lines.push(requirementLine(q, '    '));
      if (list.length > limit) lines.push(`    … ${list.length - limit} more`);
    }
  }
  if (opts.verbose) {
    lines.push('');
    lines.push('All requirements:');
    for (const q of r.requirements) lines.push(`  ${q.id.padEnd(10)} ${q.result.padEnd(19)} ${q.tests.length} test(s)`);
  }
  if (r.warnings.length) {
    lines.push('');
    lines.push(`Warnings (${r.warnings.length}):`);
    for (const w of r.warnings.slice(0, 20)) lines.push(`  ${w}`);
    if (r.warnings.length > 20) lines.push(`  … ${r.warnings.length - 20} more in results.json`);
  }
  if (r.findings.length)
    lines.push(`Findings for the implementation-defined profile: ${r.findings.length} (see results.json)`);
  if (r.runErrors.length) {
    lines.push('');
    lines.push('Run errors:');
    for (const e of r.runErrors) lines.push(`  ${e.split('\n').slice(0, 6).join('\n  ')}`);
  }
  if (r.gate) {
    lines.push('');
    lines.push(
      `Gate${r.baseline ? ` (baseline ${r.baseline.file})` : ''}${r.expectedFailures ? ` (expected failures ${r.expectedFailures.file})` : ''}:`,
    );
    for (const m of r.gate.messages) lines.push(`  ${m}`);
  }
  lines.push('');
  lines.push(
    `Verdict: ${r.verdict.toUpperCase()} (exit ${r.exitCode})${opts.reportDir ? `; reports in ${relFile(opts.reportDir)}/ (${REPORT_FILES.join(', ')})` : ''}`,
  );
  return lines.join('\n');
}

/** The files every run writes into its report directory. */
export const REPORT_FILES = ['report.html', 'results.json', 'junit.xml', 'badge.svg'] as const;

export function writeReports(r: RunResults, dir: string): void {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'results.json'), `${JSON.stringify(r, null, 2)}\n`);
  fs.writeFileSync(path.join(dir, 'junit.xml'), toJUnit(r));
  fs.writeFileSync(path.join(dir, 'badge.svg'), renderBadge(r));
  fs.writeFileSync(path.join(dir, 'report.html'), renderHtml(r));
}
