// `conformance compare` as a library call: runs in (report directories, results.json files, a
// directory of runs), compare.html and compare.json out, the gate's exit code back.
//   compare A B          the matrix of the two runs and the diff A -> B (exit 1 on a regression)
//   compare DIR          every run below DIR by start time: the matrix and each requirement's
//                        history (no diff, exit 0, however many runs DIR holds)
//   compare --since DIR X  the runs in DIR of X's implementation, then X; the diff of the last of
//                        them before X -> X (the check of an upgrade, run in CI)
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../model/errors.js';
import { renderCompareHtml } from './html.js';
import { loadRunArg, mergeShardRuns, type LoadedRun } from './load.js';
import { CAUSES, compareRuns, implementationOf, type Cause, type Comparison } from './model.js';

export interface CompareRequest {
  /** Report directories, results.json files or directories of runs. */
  runs: string[];
  /** A directory of earlier runs: compare the single run given with the last run of the same implementation there. */
  since?: string;
  /** Causes of "no longer judged" the gate accepts (names of CAUSES), a list or a comma list. */
  allow?: string[] | string;
  /** Where compare.html and compare.json go (not written when omitted). */
  out?: string;
}

export interface CompareOutcome {
  comparison: Comparison;
  /** 0 nothing regressed (or no diff asked for), 1 a requirement regressed or stopped being judged. */
  exitCode: 0 | 1;
  /** The summary for people (what the CLI prints). */
  text: string;
  files?: { html: string; json: string };
}

const COMPARE_FILES = { html: 'compare.html', json: 'compare.json' } as const;

function parseAllow(a: CompareRequest['allow']): Cause[] {
  const list = (Array.isArray(a) ? a : (a ?? '').split(',')).map((s) => s.trim()).filter(Boolean);
  for (const c of list)
    if (!(CAUSES as readonly string[]).includes(c))
      throw new UsageError(`--allow: unknown cause '${c}' (known: ${CAUSES.join(', ')})`);
  return list as Cause[];
}

const byStart = (a: LoadedRun, b: LoadedRun) => a.results.startedAt.localeCompare(b.results.startedAt);

function implementationKey(r: LoadedRun): string {
  return implementationOf(r.results).implementation;
}

/** The runs to compare, in column order, and which two to diff. */
function gather(req: CompareRequest): { runs: LoadedRun[]; diff?: { base: number; head: number } } {
  if (req.since !== undefined) {
    const heads = mergeShardRuns(req.runs.flatMap(loadRunArg));
    if (heads.length !== 1)
      throw new UsageError(`--since compares one run with earlier ones: give one run (got ${heads.length})`);
    const head = heads[0];
    const key = implementationKey(head);
    const earlier = mergeShardRuns(loadRunArg(req.since))
      .filter((r) => implementationKey(r) === key && r.results.startedAt < head.results.startedAt)
      .sort(byStart);
    if (earlier.length === 0)
      throw new UsageError(
        `--since ${req.since}: no earlier run of '${key}' there (runs are matched by --target-label, else by image name)`,
      );
    const runs = [...earlier, head];
    return { runs, diff: { base: runs.length - 2, head: runs.length - 1 } };
  }
  if (req.runs.length === 0)
    throw new UsageError('compare needs at least one run (a report directory or a results.json)');
  // a directory of runs is read in start order (a history: no diff); runs given one by one keep
  // the order given, and two of them are diffed
  let history = false;
  const runs = mergeShardRuns(
    req.runs.flatMap((a) => {
      const rs = loadRunArg(a);
      if (rs.length > 1) history = true;
      return rs.length > 1 ? [...rs].sort(byStart) : rs;
    }),
  );
  return runs.length === 2 && !history ? { runs, diff: { base: 0, head: 1 } } : { runs };
}

function label(c: Comparison['runs'][number]): string {
  return `${c.implementation}${c.implementationVersion ? ` ${c.implementationVersion}` : ''} (suite ${c.suiteVersion}, ${c.startedAt})`;
}

/** Requirement IDs grouped by their cause: `protocol: A, B; blocked by X: C`. */
function byCause(xs: { id: string; cause?: string; blockedBy?: string[] }[]): string {
  if (!xs.length) return 'none';
  const groups = new Map<string, string[]>();
  for (const x of xs) {
    const k = x.blockedBy?.length ? `blocked by ${x.blockedBy.join(', ')}` : (x.cause ?? 'not-applicable');
    groups.set(k, [...(groups.get(k) ?? []), x.id]);
  }
  return [...groups].map(([k, ids]) => `${k} (${ids.length}): ${ids.join(', ')}`).join('; ');
}

/** The summary for people. */
function compareText(c: Comparison): string {
  const lines: string[] = [];
  for (const r of c.runs)
    lines.push(
      `${r.index + 1}. ${label(r)}: ${r.judged.passed} passed / ${r.judged.judged} judged / ${r.judged.selected} selected (${r.judged.notTestable} not testable)${r.judged.failed ? `, ${r.judged.failed} failed` : ''}`,
    );
  for (const n of c.notes) lines.push(`Note: ${n}`);
  const rows = c.areas.flatMap((a) => a.rows);
  lines.push(`${rows.filter((r) => r.differs).length} of ${rows.length} requirements differ between the runs`);
  const flaky = rows.filter((r) => r.flaky);
  if (flaky.length)
    lines.push(
      `Flaky (result changed without a new implementation or suite version): ${flaky.map((r) => r.id).join(', ')}`,
    );
  const d = c.diff;
  if (d) {
    lines.push(
      '',
      `Diff ${d.base + 1} -> ${d.head + 1}, on the ${d.scope.compared} requirements both selected${d.scope.note ? ` (${d.scope.note})` : ''}:`,
    );
    const ids = (xs: { id: string }[]) => (xs.length ? xs.map((x) => x.id).join(', ') : 'none');
    lines.push(`  newly failing: ${ids(d.newlyFailing)}`);
    lines.push(`  newly not judged: ${byCause(d.newlyNotJudged)}`);
    lines.push(`  newly passing: ${ids(d.newlyPassing)}`);
    lines.push(`  newly judged: ${ids(d.newlyJudged)}`);
    lines.push(
      `  quote or level changed: ${d.changedRequirements.length ? d.changedRequirements.map((x) => `${x.id}${x.level ? ` (level ${x.level.was} -> ${x.level.now})` : ' (quote)'}`).join(', ') : 'none'}`,
    );
    if (d.allowed.length) lines.push(`  accepted by --allow: ${byCause(d.allowed)}`);
    if (d.scope.compared === 0)
      lines.push('Gate: FAIL (exit 1): the two runs selected no requirement in common: nothing was compared');
    else if (d.regressions.length) {
      const failing = d.regressions.filter((r) => r.kind === 'newly-failing');
      const stopped = d.regressions.filter((r) => r.kind === 'no-longer-judged');
      const parts = [
        ...failing.map((r) => `${r.id} newly failing${r.blocks?.length ? ` (blocking ${r.blocks.join(', ')})` : ''}`),
      ];
      if (stopped.length) {
        const causes = [...new Set(stopped.map((r) => r.cause ?? 'not-applicable'))];
        const n = causes.map((c) => `${c} ${stopped.filter((r) => (r.cause ?? 'not-applicable') === c).length}`);
        parts.push(
          `${stopped.length} no longer judged (${n.join(', ')}; listed above; --allow ${causes.join(',')} accepts them)`,
        );
      }
      lines.push(`Gate: FAIL (exit 1): ${parts.join('; ')}`);
    } else lines.push('Gate: pass (exit 0): nothing regressed or stopped being judged');
  }
  return lines.join('\n');
}

/** Compare runs; writes compare.html and compare.json when `out` is given. */
export function compareConformance(req: CompareRequest): CompareOutcome {
  const allow = parseAllow(req.allow);
  const { runs, diff } = gather(req);
  const comparison = compareRuns(runs, { ...(diff ? { diff } : {}), allow });
  const exitCode = comparison.diff?.exitCode ?? 0;
  const text = compareText(comparison);
  if (req.out === undefined) return { comparison, exitCode, text };
  const dir = path.resolve(req.out);
  fs.mkdirSync(dir, { recursive: true });
  const files = { html: path.join(dir, COMPARE_FILES.html), json: path.join(dir, COMPARE_FILES.json) };
  fs.writeFileSync(files.json, `${JSON.stringify(comparison, null, 2)}\n`);
  fs.writeFileSync(files.html, renderCompareHtml(comparison));
  return { comparison, exitCode, text, files };
}
