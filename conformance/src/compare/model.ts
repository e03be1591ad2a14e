// The comparison model of `conformance compare`: a pure function from loaded runs to a matrix of
// requirements (rows, grouped by area, with the quote each run's catalogue gave) x runs (columns),
// what each run judged, the diff of two runs (the gate of a suite or implementation upgrade) and,
// over many runs, each requirement's history with the changes no new version explains (flaky).
//
// Words used here and in the reports:
//   judged      the suite reached a verdict on the requirement: passed or failed
//   not judged  any other result; its cause is one of CAUSES (what kept the suite from judging)
//   selected    the requirement is a row of the run (its profile and --requirements selected it)
import type { RequirementReport, RequirementResult, RunResults, TestResult } from '../report/results.js';
import type { LoadedRun } from './load.js';

const COMPARE_SCHEMA_ID = 'rflps-conformance-compare/1';

/**
 * Why a requirement was not judged:
 *   protocol      a test needs a newer provider-state protocol than the endpoint declares
 *   fixture       a provider state or fixture value was refused, missing or could not be set up
 *   binding       a binding (the implementation's names for the interface's things) is missing
 *   selection     left out by the run's profile, --requirements or --read-only
 *   blocked       another requirement's failure kept its tests from running (blockedBy)
 *   error         the target could not be reached or a test did not finish
 *   untested      no test of the run verifies it
 *   not-testable  the catalogue says no test can verify it
 *   not-applicable the implementation has no such thing (t.notApplicable for any other reason)
 */
export const CAUSES = [
  'protocol',
  'fixture',
  'binding',
  'selection',
  'blocked',
  'error',
  'untested',
  'not-testable',
  'not-applicable',
] as const;
export type Cause = (typeof CAUSES)[number];

export interface Cell {
  result: RequirementResult;
  /** For a result other than passed and failed. */
  cause?: Cause;
  /** The words of the cause (the first test's reason, the protocol version needed, ...). */
  detail?: string;
  blockedBy?: string[];
}

export interface RunColumn {
  /** Column number (0-based) in the order of the arguments (a directory's runs by start time). */
  index: number;
  source: string;
  shards?: string[];
  /** The implementation: --target-label, else the image, else the target's description or URL. */
  implementation: string;
  /** Its version when the run recorded one (an image digest stands in for it). */
  implementationVersion?: string;
  suiteVersion: string;
  catalogueVersion: string;
  specVersion: string;
  profile: RunResults['profile'];
  selection: RunResults['selection'];
  startedAt: string;
  verdict: RunResults['verdict'];
  exitCode: number;
  runErrors: number;
  /** What the run judged: passed, judged (passed + failed), selected (its rows), not testable. */
  judged: { passed: number; failed: number; judged: number; selected: number; notTestable: number };
}

export interface Row {
  id: string;
  area: string;
  section: string;
  sectionTitle?: string;
  /** From the newest run that holds it. */
  level: string;
  statement: string;
  quote?: string;
  /** One per run; null: the run did not select it (or its catalogue lacks it). */
  cells: (Cell | null)[];
  /** The runs that selected it do not all have the same result. */
  differs: boolean;
  /** Some run failed it (failed or blocked). */
  failing: boolean;
  /** The quote or level differs between the runs' catalogues (their values, oldest first). */
  changed?: { quote?: string[]; level?: string[] };
  /** Runs of the same implementation version and suite version whose results differ. */
  flaky?: { implementation: string; implementationVersion?: string; suiteVersion: string; results: string[] }[];
}

export interface DiffEntry {
  id: string;
  was: RequirementResult;
  now: RequirementResult;
  /** For newly not judged: why. */
  cause?: Cause;
  detail?: string;
  blockedBy?: string[];
}

export interface Diff {
  base: number;
  head: number;
  /** What both runs selected (the diff's scope) and what only one did. */
  scope: { compared: number; onlyBase: string[]; onlyHead: string[]; note?: string };
  newlyFailing: DiffEntry[];
  newlyPassing: DiffEntry[];
  newlyJudged: DiffEntry[];
  newlyNotJudged: DiffEntry[];
  /** Requirements whose quote or level changed between the two runs' catalogues. */
  changedRequirements: { id: string; quote?: { was?: string; now?: string }; level?: { was: string; now: string } }[];
  /** What fails the gate: newly failing requirements, and requirements that stopped being judged for a
   * cause not allowed. A requirement blocked by a newly failing one is not a line of its own: it is
   * listed under that one (`blocks`), one cause, one red line. */
  regressions: { id: string; kind: 'newly-failing' | 'no-longer-judged'; cause?: Cause; blocks?: string[] }[];
  /** Requirements that stopped being judged for a cause --allow accepts. */
  allowed: { id: string; cause: Cause }[];
  exitCode: 0 | 1;
}

export interface Comparison {
  schema: typeof COMPARE_SCHEMA_ID;
  runs: RunColumn[];
  /** Runs of different profiles or selections: what the matrix and diff compare on. */
  notes: string[];
  areas: { area: string; rows: Row[] }[];
  diff?: Diff;
}

export interface CompareOptions {
  /** Compare these two runs (column indexes) as base and head; default: none (only the matrix). */
  diff?: { base: number; head: number };
  /** Causes accepted when a requirement stops being judged (the gate does not fail on them). */
  allow?: Cause[];
}

const JUDGED = new Set<RequirementResult>(['passed', 'failed']);
const REFUSED = /^provider state '[^']+' cannot exist here: |\(400\), as the protocol allows: /;

function testCause(t: TestResult): { cause: Cause; detail?: string } | undefined {
  if (t.result === 'passed' || t.result === 'failed') return undefined;
  if (t.needsProtocol)
    return {
      cause: 'protocol',
      detail: `needs provider-state protocol ${t.needsProtocol.since}: ${t.needsProtocol.what}`,
    };
  const reason = t.reason ?? t.error?.message ?? '';
  if (t.result === 'blocked') return { cause: 'blocked', detail: reason };
  if (t.result === 'error') return { cause: 'error', detail: reason };
  if (t.result === 'precondition-failed') return { cause: 'fixture', detail: reason };
  if (/\bbinding/i.test(reason)) return { cause: 'binding', detail: reason };
  if (REFUSED.test(reason) || /provider state|fixture|\bgave no\b|\bgives no\b/i.test(reason))
    return { cause: 'fixture', detail: reason };
  if (/not selected \(--|left out by --read-only/.test(reason)) return { cause: 'selection', detail: reason };
  return { cause: 'not-applicable', detail: reason };
}

/** The order in which a requirement's tests' causes name it (the most telling first). */
const CAUSE_RANK: Cause[] = ['error', 'protocol', 'binding', 'fixture', 'blocked', 'selection', 'not-applicable'];

/** The cell of one requirement of one run. */
function cellOf(q: RequirementReport): Cell {
  const cell: Cell = { result: q.result };
  if (JUDGED.has(q.result)) return cell;
  if (q.result === 'not-testable') return { ...cell, cause: 'not-testable', ...(q.reason ? { detail: q.reason } : {}) };
  if (q.result === 'untested') return { ...cell, cause: 'untested' };
  if (q.result === 'blocked') {
    const t = q.tests.find((x) => x.result === 'blocked');
    return {
      ...cell,
      cause: 'blocked',
      ...(q.blockedBy ? { blockedBy: q.blockedBy } : {}),
      ...(t?.reason ? { detail: t.reason } : {}),
    };
  }
  const causes = q.tests.flatMap((t) => {
    const c = testCause(t);
    return c ? [c] : [];
  });
  causes.sort((a, b) => CAUSE_RANK.indexOf(a.cause) - CAUSE_RANK.indexOf(b.cause));
  const want: Cause | undefined =
    q.result === 'error' ? 'error' : q.result === 'precondition-failed' ? 'fixture' : causes[0]?.cause;
  const first = causes.find((c) => c.cause === want) ?? causes[0];
  return { ...cell, cause: want ?? 'not-applicable', ...(first?.detail ? { detail: first.detail } : {}) };
}

/**
 * The implementation a run tested and its version: --target-label, else the image without its tag,
 * else the target's description or host. The version is one the run records (an image digest, else
 * the image's tag and digest); none for a URL target (keep --target-label stable and put the version elsewhere).
 */
export function implementationOf(r: RunResults): { implementation: string; implementationVersion?: string } {
  const rec = r as RunResults & { implementationVersion?: unknown; implementation?: { version?: unknown } };
  const declared =
    typeof rec.implementationVersion === 'string'
      ? rec.implementationVersion
      : typeof rec.implementation?.version === 'string'
        ? rec.implementation.version
        : undefined;
  const digest = r.target.digest ? r.target.digest.replace(/^sha256:/, '').slice(0, 12) : undefined;
  const image = r.target.image ? /^(.*?)(?::([\w][\w.-]{0,127}))?(?:@.*)?$/.exec(r.target.image) : null;
  let implementation = r.targetLabel ?? image?.[1] ?? r.target.description;
  if (!implementation) {
    try {
      implementation = new URL(r.target.baseUrl).host;
    } catch {
      implementation = r.target.baseUrl;
    }
  }
  const recorded = [image?.[2], digest].filter(Boolean).join(' @');
  const version = declared ?? (recorded || undefined);
  return { implementation, ...(version ? { implementationVersion: version } : {}) };
}

/** passed / judged / selected of a run: its own summary when it records one, else counted. */
function judgedOf(r: RunResults): RunColumn['judged'] {
  const n = (k: RequirementResult) => r.requirements.filter((q) => q.result === k).length;
  const counted = {
    passed: n('passed'),
    failed: n('failed'),
    judged: n('passed') + n('failed'),
    selected: r.requirements.length,
    notTestable: n('not-testable'),
  };
  const s = (r as RunResults & { strength?: Record<string, unknown> }).strength;
  if (s && typeof s === 'object') {
    const num = (k: string) => (typeof s[k] === 'number' ? (s[k] as number) : undefined);
    return {
      ...counted,
      passed: num('passed') ?? counted.passed,
      judged: num('judged') ?? counted.judged,
      selected: num('selected') ?? counted.selected,
    };
  }
  return counted;
}

function columnOf(run: LoadedRun, index: number): RunColumn {
  const r = run.results;
  return {
    index,
    source: run.source,
    ...(run.shards ? { shards: run.shards } : {}),
    ...implementationOf(r),
    suiteVersion: r.suiteVersion,
    catalogueVersion: r.catalogueVersion,
    specVersion: r.specVersion,
    profile: r.profile,
    selection: r.selection,
    startedAt: r.startedAt,
    verdict: r.verdict,
    exitCode: r.exitCode,
    runErrors: r.runErrors?.length ?? 0,
    judged: judgedOf(r),
  };
}

function selectionText(c: RunColumn): string {
  const parts = [`profile ${c.profile}`];
  if (c.selection.requirements.length) parts.push(`--requirements ${c.selection.requirements.join(',')}`);
  if (c.selection.readOnly) parts.push('--read-only');
  return parts.join(' ');
}

/** A cell's result for "do the runs differ" (a requirement left out by selection is no result). */
function sameKey(c: Cell): string {
  return c.cause === 'selection' ? '' : c.result;
}

function distinct<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function isFailing(c: Cell | null | undefined): boolean {
  return !!c && (c.result === 'failed' || c.result === 'blocked');
}

function diffOf(
  runs: LoadedRun[],
  columns: RunColumn[],
  rows: Row[],
  base: number,
  head: number,
  allow: Cause[],
): Diff {
  const inBase = new Set(runs[base].results.requirements.map((q) => q.id));
  const inHead = new Set(runs[head].results.requirements.map((q) => q.id));
  const both = rows.filter(
    (r) =>
      r.cells[base] && r.cells[head] && r.cells[base]!.cause !== 'selection' && r.cells[head]!.cause !== 'selection',
  );
  const bothIds = new Set(both.map((r) => r.id));
  const onlyBase = [...inBase].filter((id) => !bothIds.has(id) && !inHead.has(id));
  const onlyHead = [...inHead].filter((id) => !bothIds.has(id) && !inBase.has(id));
  const notes: string[] = [];
  const b = columns[base];
  const h = columns[head];
  if (selectionText(b) !== selectionText(h))
    notes.push(
      `the runs selected differently (${selectionText(b)}; ${selectionText(h)}): compared on the ${both.length} requirements both selected`,
    );
  const entry = (r: Row): DiffEntry => {
    const was = r.cells[base]!;
    const now = r.cells[head]!;
    return {
      id: r.id,
      was: was.result,
      now: now.result,
      ...(now.cause && !JUDGED.has(now.result) ? { cause: now.cause } : {}),
      ...(now.detail && !JUDGED.has(now.result) ? { detail: now.detail } : {}),
      ...(now.blockedBy ? { blockedBy: now.blockedBy } : {}),
    };
  };
  const newlyFailing: DiffEntry[] = [];
  const newlyPassing: DiffEntry[] = [];
  const newlyJudged: DiffEntry[] = [];
  const newlyNotJudged: DiffEntry[] = [];
  for (const r of both) {
    const was = r.cells[base]!.result;
    const now = r.cells[head]!.result;
    if (now === 'failed' && was !== 'failed') newlyFailing.push(entry(r));
    if (now === 'passed' && was !== 'passed') newlyPassing.push(entry(r));
    if (JUDGED.has(now) && !JUDGED.has(was)) newlyJudged.push(entry(r));
    if (JUDGED.has(was) && !JUDGED.has(now)) newlyNotJudged.push(entry(r));
  }
  const changedRequirements: Diff['changedRequirements'] = [];
  const baseReqs = new Map(runs[base].results.requirements.map((q) => [q.id, q]));
  for (const q of runs[head].results.requirements) {
    const p = baseReqs.get(q.id);
    if (!p) continue;
    const quote = (p.quote ?? '') !== (q.quote ?? '') ? { was: p.quote, now: q.quote } : undefined;
    const level = p.level !== q.level ? { was: p.level, now: q.level } : undefined;
    if (quote || level)
      changedRequirements.push({ id: q.id, ...(quote ? { quote } : {}), ...(level ? { level } : {}) });
  }
  const failingIds = new Set(newlyFailing.map((e) => e.id));
  const regressions: Diff['regressions'] = newlyFailing.map((e) => ({ id: e.id, kind: 'newly-failing' as const }));
  const allowed: Diff['allowed'] = [];
  for (const e of newlyNotJudged) {
    const cause = e.cause ?? 'not-applicable';
    const blockers = (e.blockedBy ?? []).filter((id) => failingIds.has(id));
    if (cause === 'blocked' && blockers.length && blockers.length === (e.blockedBy ?? []).length) {
      for (const id of blockers) {
        const reg = regressions.find((x) => x.id === id)!;
        reg.blocks = [...(reg.blocks ?? []), e.id];
      }
      continue;
    }
    if (allow.includes(cause)) allowed.push({ id: e.id, cause });
    else regressions.push({ id: e.id, kind: 'no-longer-judged', cause });
  }
  return {
    base,
    head,
    scope: {
      compared: both.length,
      onlyBase,
      onlyHead,
      ...(notes.length ? { note: notes.join('; ') } : {}),
    },
    newlyFailing,
    newlyPassing,
    newlyJudged,
    newlyNotJudged,
    changedRequirements,
    regressions,
    allowed,
    // no requirement in common is no evidence: the gate does not pass on it
    exitCode: regressions.length || both.length === 0 ? 1 : 0,
  };
}

/** The comparison of `runs` (in column order). */
export function compareRuns(runs: LoadedRun[], opts: CompareOptions = {}): Comparison {
  const columns = runs.map(columnOf);
  // rows: every requirement of any run, in the catalogue order of the newest run that holds it
  const order: string[] = [];
  const newest = new Map<string, RequirementReport>();
  const byStart = columns.map((c) => c.index).sort((a, b) => columns[a].startedAt.localeCompare(columns[b].startedAt));
  for (const i of [...byStart].reverse())
    for (const q of runs[i].results.requirements) {
      if (newest.has(q.id)) continue;
      newest.set(q.id, q);
      order.push(q.id);
    }
  const maps = runs.map((r) => new Map(r.results.requirements.map((q) => [q.id, q])));
  const rows: Row[] = order.map((id) => {
    const q = newest.get(id)!;
    const cells = maps.map((m) => {
      const x = m.get(id);
      return x ? cellOf(x) : null;
    });
    const present = cells.filter((c): c is Cell => !!c && c.cause !== 'selection');
    const row: Row = {
      id,
      area: q.area,
      section: q.section,
      ...(q.sectionTitle ? { sectionTitle: q.sectionTitle } : {}),
      level: q.level,
      statement: q.statement,
      ...(q.quote ? { quote: q.quote } : {}),
      cells,
      differs: distinct(present.map(sameKey)).length > 1,
      failing: cells.some(isFailing),
    };
    const olderFirst = byStart.map((i) => maps[i].get(id)).filter((x): x is RequirementReport => !!x);
    const quotes = distinct(olderFirst.map((x) => x.quote ?? ''));
    const levels = distinct(olderFirst.map((x) => x.level));
    if (quotes.length > 1 || levels.length > 1)
      row.changed = {
        ...(quotes.length > 1 ? { quote: quotes } : {}),
        ...(levels.length > 1 ? { level: levels } : {}),
      };
    // flaky: runs of one implementation version under one suite version that disagree
    const groups = new Map<string, number[]>();
    for (const i of byStart) {
      const c = cells[i];
      if (!c || c.cause === 'selection') continue;
      const col = columns[i];
      const key = JSON.stringify([col.implementation, col.implementationVersion ?? null, col.suiteVersion]);
      groups.set(key, [...(groups.get(key) ?? []), i]);
    }
    const flaky: NonNullable<Row['flaky']> = [];
    for (const idx of groups.values()) {
      const results = idx.map((i) => cells[i]!.result);
      if (distinct(results).length < 2) continue;
      const col = columns[idx[0]];
      flaky.push({
        implementation: col.implementation,
        ...(col.implementationVersion ? { implementationVersion: col.implementationVersion } : {}),
        suiteVersion: col.suiteVersion,
        results,
      });
    }
    if (flaky.length) row.flaky = flaky;
    return row;
  });
  const areas: Comparison['areas'] = [];
  for (const r of rows) {
    let a = areas.find((x) => x.area === r.area);
    if (!a) areas.push((a = { area: r.area, rows: [] }));
    a.rows.push(r);
  }
  const notes: string[] = [];
  const selections = distinct(columns.map(selectionText));
  if (selections.length > 1)
    notes.push(
      `the runs selected differently (${selections.join('; ')}): a requirement a run did not select is an empty cell, and only what both runs of a pair selected counts as a difference`,
    );
  if (columns.some((c) => !c.implementationVersion))
    notes.push(
      'some runs record no implementation version (no image digest): their runs under one target name and suite version count as one implementation when results are judged flaky',
    );
  for (const c of columns)
    if (c.shards) notes.push(`column ${c.index + 1} is one run merged from ${c.shards.length} shard runs`);
  const cmp: Comparison = { schema: COMPARE_SCHEMA_ID, runs: columns, notes, areas };
  if (opts.diff) cmp.diff = diffOf(runs, columns, rows, opts.diff.base, opts.diff.head, opts.allow ?? []);
  return cmp;
}
