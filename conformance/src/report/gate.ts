// Baselines and expected failures: what decides the exit code beyond "every gating requirement
// passed".
//
//   --expected-failures FILE  YAML list of {id, reason, expires: YYYY-MM-DD}. A listed requirement that
//                             fails does not fail the run until its date has passed; an expired entry
//                             fails the run (exit 1) whatever the requirement's result; an entry whose
//                             requirement passes is reported as "unexpectedly passing: remove it".
//   --baseline results.json   an earlier run. Only regressions fail the run: a requirement failing now
//                             that was not failing in the baseline, including one the baseline did not
//                             hold at all (a newly added or newly selected requirement). Requirements
//                             failing in both runs are reported as still failing and do not fail the run.
//
// "Failing" is a gating failure (failed, error, precondition-failed, untested). Exit codes 2 and 3
// (usage, harness) are never changed by the gate.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { Catalogue } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import { ROOT } from '../paths.js';
import { quoteInSpec } from './spec-quote.js';
import {
  EXIT,
  isGatingFailure,
  verdictFor,
  type BaselineMark,
  type BaselineReport,
  type DisputeReport,
  type ExitCode,
  type ExpectedFailure,
  type ExpectedFailureMark,
  type ExpectedFailuresReport,
  type GateReport,
  type RequirementReport,
  type RequirementResult,
  type RunResults,
} from './results.js';

const RESULTS_SCHEMA_ID = 'rflps-conformance-results/1';

function displayPath(file: string): string {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel.split(path.sep).join('/');
}

/** YYYY-MM-DD of a date in UTC. */
function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function validDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && isoDay(d) === s;
}

// ------------------------------------------------------------------------- expected failures

const ENTRY_KEYS = ['id', 'kind', 'reason', 'expires', 'quote'];
const SHAPES = '{id, reason, expires: YYYY-MM-DD} or {id, kind: disputed, quote, reason}';

/** Validates a parsed expected-failures document (a list). Throws UsageError naming the entry. */
export function parseExpectedFailures(doc: unknown, label: string, catalogue?: Catalogue): ExpectedFailure[] {
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc)) throw new UsageError(`${label}: must be a YAML list of ${SHAPES}`);
  const seen = new Set<string>();
  return doc.map((e: unknown, i: number) => {
    const where = `${label}: entry ${i + 1}`;
    if (!e || typeof e !== 'object' || Array.isArray(e)) throw new UsageError(`${where}: must be a mapping ${SHAPES}`);
    const o = e as Record<string, unknown>;
    const unknownKeys = Object.keys(o).filter((k) => !ENTRY_KEYS.includes(k));
    if (unknownKeys.length)
      throw new UsageError(`${where}: unknown key(s) ${unknownKeys.join(', ')} (known: ${ENTRY_KEYS.join(', ')})`);
    if (typeof o.id !== 'string' || o.id.trim() === '') throw new UsageError(`${where}: 'id' must be a requirement ID`);
    const id = o.id.trim();
    if (catalogue) {
      const r = catalogue.byId.get(id);
      if (!r) throw new UsageError(`${where}: '${id}' is not a requirement ID of the catalogue`);
      if (r.retired) throw new UsageError(`${where}: '${id}' is retired`);
    }
    if (seen.has(id)) throw new UsageError(`${where}: '${id}' is listed twice`);
    seen.add(id);
    const kind = o.kind ?? 'expected';
    if (kind !== 'expected' && kind !== 'disputed')
      throw new UsageError(`${where} (${id}): 'kind' must be 'expected' or 'disputed' (got ${JSON.stringify(kind)})`);
    if (typeof o.reason !== 'string' || o.reason.trim() === '')
      throw new UsageError(
        `${where} (${id}): 'reason' must be a non-empty text${kind === 'disputed' ? ' (why the suite misreads the spec)' : ''}`,
      );
    const expires =
      o.expires instanceof Date ? isoDay(o.expires) : typeof o.expires === 'string' ? o.expires.trim() : undefined;
    // a dispute waits for the project's answer: its date is optional
    if ((kind === 'expected' || o.expires !== undefined) && (!expires || !validDay(expires)))
      throw new UsageError(
        `${where} (${id}): 'expires' must be a date YYYY-MM-DD (got ${JSON.stringify(o.expires ?? null)})`,
      );
    const entry: ExpectedFailure = { id, reason: o.reason.trim(), ...(expires ? { expires } : {}) };
    if (kind === 'expected') {
      if (o.quote !== undefined)
        throw new UsageError(`${where} (${id}): 'quote' belongs to a dispute: add 'kind: disputed', or remove it`);
      return entry;
    }
    if (typeof o.quote !== 'string' || o.quote.trim() === '')
      throw new UsageError(
        `${where} (${id}): a disputed entry needs 'quote': the words of the interface specification your reading rests on, verbatim`,
      );
    const quote = o.quote.trim();
    if (quoteInSpec(quote) === false)
      throw new UsageError(
        `${where} (${id}): 'quote' is not in the interface specification (spec/interface-spec.md): copy the sentence verbatim (markup and line breaks may differ)`,
      );
    return { ...entry, kind: 'disputed', quote };
  });
}

export function loadExpectedFailures(file: string, catalogue?: Catalogue): ExpectedFailure[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read expected-failures file ${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new UsageError(`expected-failures file ${file} is not valid YAML: ${(e as Error).message}`);
  }
  return parseExpectedFailures(doc, `expected-failures file ${displayPath(file)}`, catalogue);
}

// ------------------------------------------------------------------------- baseline

/** Checks that a parsed document is a results.json of this suite (enough to compare with). */
function parseBaseline(doc: unknown, label: string): RunResults {
  const o = doc as Partial<RunResults> | null;
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new UsageError(`${label}: not a results.json object`);
  if (o.schema !== RESULTS_SCHEMA_ID)
    throw new UsageError(
      `${label}: not a conformance results.json (schema is ${JSON.stringify(o.schema ?? null)}, expected '${RESULTS_SCHEMA_ID}')`,
    );
  if (
    !Array.isArray(o.requirements) ||
    o.requirements.some((r) => typeof r?.id !== 'string' || typeof r?.result !== 'string')
  ) {
    throw new UsageError(`${label}: 'requirements' must be a list of {id, result, ...}`);
  }
  return o as RunResults;
}

export function loadBaseline(file: string): RunResults {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read baseline ${file}: ${(e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`baseline ${file} is not JSON: ${(e as Error).message}`);
  }
  return parseBaseline(doc, `baseline ${displayPath(file)}`);
}

// ------------------------------------------------------------------------- the gate

export interface GateInput {
  baseline?: { file: string; results: RunResults };
  expectedFailures?: { file: string; entries: ExpectedFailure[] };
  /** The day entries are judged against (default: now). */
  today?: Date;
  /** --allow-disputed: a failure a disputed entry lists does not fail the run (it stays red). */
  allowDisputed?: boolean;
}

/** The gate of `--baseline` and `--expected-failures` files (paths from the working directory). */
export function gateFromFiles(o: { baseline?: string; expectedFailures?: string }, catalogue?: Catalogue): GateInput {
  return {
    baseline: o.baseline
      ? { file: path.resolve(o.baseline), results: loadBaseline(path.resolve(o.baseline)) }
      : undefined,
    expectedFailures: o.expectedFailures
      ? {
          file: path.resolve(o.expectedFailures),
          entries: loadExpectedFailures(path.resolve(o.expectedFailures), catalogue),
        }
      : undefined,
  };
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function judgeEntry(e: ExpectedFailure, req: RequirementReport | undefined, today: string): ExpectedFailureMark {
  if (e.expires !== undefined && e.expires < today) return { ...e, status: 'expired' };
  if (!req) return { ...e, status: 'not-run' };
  if (isGatingFailure(req.result)) return { ...e, status: e.kind === 'disputed' ? 'disputed' : 'expected-failure' };
  if (req.result === 'passed') return { ...e, status: 'unexpectedly-passing' };
  return { ...e, status: 'not-failing' };
}

function entryMessage(m: ExpectedFailureMark, result: RequirementResult | undefined, file: string): string {
  switch (m.status) {
    case 'expected-failure':
      return `${m.id} ${result} as expected (${m.reason}); the entry expires after ${m.expires}`;
    case 'disputed':
      return `${m.id} ${result}, disputed: "${m.quote}" (${m.reason})`;
    case 'expired':
      return `${m.id}: the expected-failures entry expired on ${m.expires} (${m.reason}); the requirement is ${result ?? 'not in this run'}. Fix the implementation or extend the date in ${file}`;
    case 'unexpectedly-passing':
      return `${m.id} is unexpectedly passing: remove it from ${file}`;
    case 'not-failing':
      return `${m.id} is ${result}, not failing (the entry excuses nothing in this run)`;
    case 'not-run':
      return `${m.id} is not selected in this run`;
  }
}

/**
 * Judges a run against a baseline and/or an expected-failures file: marks the requirements, adds
 * `baseline`, `expectedFailures` and `gate` to the results and recomputes the exit code and verdict
 * (unless the run already ended with a usage or harness error). Without input, returns `r` unchanged.
 */
export function applyGate(r: RunResults, g: GateInput): RunResults {
  if (!g.baseline && !g.expectedFailures) return r;
  const today = isoDay(g.today ?? new Date());
  const requirements = r.requirements.map((q) => ({ ...q }));
  const byId = new Map(requirements.map((q) => [q.id, q]));
  const out: RunResults = { ...r, requirements };
  const excusedBy = new Map<string, 'expected-failure' | 'baseline' | 'disputed'>();
  const disputed: string[] = [];
  const messages: string[] = [];
  const expired: string[] = [];

  if (g.expectedFailures) {
    const file = displayPath(g.expectedFailures.file);
    const entries = g.expectedFailures.entries.map((e) => {
      const req = byId.get(e.id);
      const mark = judgeEntry(e, req, today);
      if (req) req.expectedFailure = mark;
      if (mark.status === 'expected-failure') excusedBy.set(e.id, 'expected-failure');
      if (mark.status === 'disputed') {
        disputed.push(e.id);
        if (g.allowDisputed) excusedBy.set(e.id, 'disputed');
      }
      if (mark.status === 'expired') expired.push(e.id);
      return { ...mark, result: req?.result, message: entryMessage(mark, req?.result, file) };
    });
    out.expectedFailures = { file, today, entries } satisfies ExpectedFailuresReport;
  }

  if (g.baseline) {
    const base = g.baseline.results;
    const was = new Map(base.requirements.map((q) => [q.id, q.result]));
    const rep: BaselineReport = {
      file: displayPath(g.baseline.file),
      startedAt: base.startedAt,
      suiteVersion: base.suiteVersion,
      target: base.targetLabel ?? base.target?.description ?? base.target?.baseUrl ?? '',
      profile: base.profile,
      regressions: [],
      fixed: [],
      stillFailing: [],
      notInRun: base.requirements.map((q) => q.id).filter((id) => !byId.has(id)),
    };
    for (const q of requirements) {
      const before = was.get(q.id) ?? 'absent';
      const wasFailing = before !== 'absent' && isGatingFailure(before);
      const nowFailing = isGatingFailure(q.result);
      let change: BaselineMark['change'] = 'unchanged';
      if (nowFailing && !wasFailing) {
        change = 'regression';
        rep.regressions.push({ id: q.id, was: before, now: q.result });
      } else if (nowFailing && wasFailing) {
        change = 'still-failing';
        rep.stillFailing.push({ id: q.id, was: before as RequirementResult, now: q.result });
        // a disputed failure is excused by --allow-disputed alone, never by the baseline behind its back
        if (!excusedBy.has(q.id) && !disputed.includes(q.id)) excusedBy.set(q.id, 'baseline');
      } else if (wasFailing && q.result === 'passed') {
        change = 'fixed';
        rep.fixed.push({ id: q.id, was: before as RequirementResult, now: q.result });
      }
      q.baseline = { was: before, change };
    }
    out.baseline = rep;
  }

  const failing = requirements.filter((q) => isGatingFailure(q.result));
  const blocking = failing.filter((q) => !excusedBy.has(q.id)).map((q) => q.id);
  const excused = failing.filter((q) => excusedBy.has(q.id)).map((q) => ({ id: q.id, by: excusedBy.get(q.id)! }));

  if (out.baseline) {
    const reg = out.baseline.regressions;
    messages.push(
      reg.length
        ? `${plural(reg.length, 'regression')} since the baseline: ${reg.map((x) => `${x.id} (${x.was} → ${x.now}${excusedBy.get(x.id) === 'expected-failure' ? ', an expected failure' : ''})`).join(', ')}`
        : `no regressions since the baseline (${out.baseline.file})`,
    );
    if (out.baseline.fixed.length)
      messages.push(
        `${plural(out.baseline.fixed.length, 'requirement')} fixed since the baseline: ${out.baseline.fixed.map((x) => x.id).join(', ')}`,
      );
    if (out.baseline.stillFailing.length)
      messages.push(
        `${plural(out.baseline.stillFailing.length, 'requirement')} still failing as in the baseline: ${out.baseline.stillFailing.map((x) => x.id).join(', ')}`,
      );
  }
  const otherBlocking = blocking.filter(
    (id) => byId.get(id)?.baseline?.change !== 'regression' && !disputed.includes(id),
  );
  if (otherBlocking.length)
    messages.push(
      `${plural(otherBlocking.length, 'failing requirement')} not listed as expected: ${otherBlocking.join(', ')}`,
    );
  if (out.expectedFailures) {
    const by = (s: string) => out.expectedFailures!.entries.filter((e) => e.status === s);
    if (by('expected-failure').length)
      messages.push(
        `${plural(by('expected-failure').length, 'expected failure')}: ${by('expected-failure')
          .map((e) => e.id)
          .join(', ')}`,
      );
    if (disputed.length)
      messages.push(
        g.allowDisputed
          ? `${plural(disputed.length, 'disputed failure')}, not failing the run (--allow-disputed), still red in every report: ${disputed.join(', ')}`
          : `${plural(disputed.length, 'disputed failure')}, failing the run: ${disputed.join(', ')} (give --allow-disputed to let the exit code pass while the dispute is open)`,
      );
    for (const e of by('expired')) messages.push(`EXPIRED: ${e.message}`);
    for (const e of by('unexpectedly-passing')) messages.push(e.message);
  }

  const gate: GateReport = {
    blocking,
    excused,
    expired,
    messages,
    ...(disputed.length || g.allowDisputed ? { disputed, allowDisputed: g.allowDisputed === true } : {}),
  };
  out.gate = gate;
  if (disputed.length) out.disputes = disputed.map((id) => disputeReport(byId.get(id)!, g.allowDisputed === true));
  if (r.exitCode === EXIT.ok || r.exitCode === EXIT.failed) {
    const code: ExitCode = blocking.length || expired.length ? EXIT.failed : EXIT.ok;
    out.exitCode = code;
    out.verdict = verdictFor(code);
  }
  return out;
}

/** Both sides of a dispute over one failing requirement (results.json `disputes`). */
function disputeReport(q: RequirementReport, allowed: boolean): DisputeReport {
  const e = q.expectedFailure!;
  return {
    id: q.id,
    result: q.result,
    section: q.section,
    ...(q.quote ? { specQuote: q.quote } : {}),
    statement: q.statement,
    quote: e.quote ?? '',
    reason: e.reason,
    allowed,
    tests: q.tests
      .filter((t) => t.result !== 'passed' && t.result !== 'not-applicable')
      .map((t) => ({ id: t.id, result: t.result, message: (t.error?.message ?? t.reason ?? '').split('\n')[0] })),
  };
}
