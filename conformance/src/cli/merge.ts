// `conformance merge DIR...`: one report set from the results.json of shard runs (`--shard i/n`),
// equal to what one unsharded run would have written. A shard's results.json holds every test it
// ran, each under the requirements it verifies; merging takes the union of those tests and judges
// every selected requirement of the catalogue afresh with the same rules as a run
// (buildRequirementReports, exitCodeFor), so a requirement verified by tests in several shards
// gets one result, and a requirement no shard tested is `untested` as it would be unsharded.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadCatalogue, CatalogueError, type Catalogue } from '../spec/catalogue.js';
import { UsageError } from '../errors.js';
import { applyGate, gateFromFiles, loadBaseline } from '../report/gate.js';
import { applyStrength } from '../report/strength.js';
import { summaryText } from '../report/summary.js';
import { writeReports } from '../report/write-reports.js';
import {
  buildRequirementReports,
  countResults,
  emptyCounts,
  EXIT,
  exitCodeFor,
  verdictFor,
  type RunResults,
  type TestResult,
} from '../report/results.js';
import { specSectionTitles } from '../spec/sections.js';
import { log } from './log.js';

interface MergeOptions {
  reportDir?: string;
  baseline?: string;
  expectedFailures?: string;
  /** Merge even when shards of the `n` are missing (their requirements then count as untested). */
  allowMissing?: boolean;
}

/** A shard's results.json: given as the file or as the directory holding it. */
function resultsFile(arg: string): string {
  const abs = path.resolve(arg);
  const file = fs.existsSync(abs) && fs.statSync(abs).isDirectory() ? path.join(abs, 'results.json') : abs;
  if (!fs.existsSync(file)) throw new UsageError(`no results.json at ${arg}`);
  return file;
}

function parseShard(s: string | undefined, file: string): { index: number; count: number } {
  const m = /^(\d+)\/(\d+)$/.exec(s ?? '');
  if (!m) throw new UsageError(`${file} is not the result of a shard run (no --shard i/n in its selection)`);
  return { index: Number(m[1]), count: Number(m[2]) };
}

/** Everything the shards must agree on to be parts of one run. */
function runKey(r: RunResults): string {
  return JSON.stringify({
    suite: r.suiteVersion,
    catalogue: r.catalogueVersion,
    spec: r.specVersion,
    profile: r.profile,
    requirements: r.selection.requirements,
    readOnly: r.selection.readOnly,
    fixtures: r.selection.fixtures ?? null,
    baseUrl: r.target.baseUrl,
  });
}

/** The merged results (not yet judged against a baseline or expected failures). */
function mergeResults(
  shards: { file: string; results: RunResults }[],
  catalogue: Catalogue,
  opts: { allowMissing?: boolean } = {},
): RunResults {
  if (shards.length === 0) throw new UsageError('merge needs at least one shard results.json');
  const first = shards[0].results;
  const seen = new Map<number, string>();
  let count = 0;
  for (const { file, results } of shards) {
    if (results.catalogueVersion !== catalogue.version)
      throw new UsageError(
        `${file} was made with catalogue ${results.catalogueVersion}; this suite has ${catalogue.version}`,
      );
    if (runKey(results) !== runKey(first))
      throw new UsageError(
        `${file} is not a shard of the same run as ${shards[0].file} (suite, catalogue, profile, selection or target differ)`,
      );
    const s = parseShard(results.selection.shard, file);
    if (count && s.count !== count)
      throw new UsageError(`${file} is shard ${s.index}/${s.count}; others are of ${count}`);
    count = s.count;
    if (seen.has(s.index))
      throw new UsageError(`shard ${s.index}/${s.count} given twice (${seen.get(s.index)} and ${file})`);
    seen.set(s.index, file);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length && !opts.allowMissing)
    throw new UsageError(
      `shard(s) ${missing.map((i) => `${i}/${count}`).join(', ')} missing (pass --allow-missing to merge anyway)`,
    );

  // every test once: a test is listed under each requirement it verifies
  const tests = new Map<string, TestResult>();
  for (const { results } of shards)
    for (const q of results.requirements) for (const t of q.tests) tests.set(`${t.file}\u0000${t.id}`, t);
  const reqs = buildRequirementReports({
    catalogue,
    profile: first.profile,
    requirements: first.selection.requirements,
    tests: [...tests.values()],
  });
  const titles = specSectionTitles();
  for (const q of reqs) {
    const title = titles.get(q.section);
    if (title) q.sectionTitle = title;
  }
  const levels = first.profile === 'all' ? ['core', 'implementation-defined'] : [first.profile];
  const gating = reqs.filter((r) => levels.includes(r.level));
  // a shard's harness failure or suite definition problem is the merged run's too (their own
  // exit codes are 3 and 2); a shard's failed requirements are judged again above
  const exitCode = exitCodeFor(gating, {
    harnessFailed: shards.some((s) => s.results.exitCode === EXIT.harness),
    suiteInvalid: shards.some((s) => s.results.exitCode === EXIT.usage),
  });
  const byStart = [...shards].sort((a, b) => a.results.startedAt.localeCompare(b.results.startedAt));
  const startedAt = byStart[0].results.startedAt;
  const finishedAt = shards
    .map((s) => s.results.finishedAt)
    .sort()
    .at(-1)!;
  const label = (s: { results: RunResults }) => `shard ${s.results.selection.shard}`;
  const findings = new Map<string, RunResults['findings'][number]>();
  for (const s of shards)
    for (const f of s.results.findings)
      findings.set(
        `${f.kind}|${f.operationId ?? ''}|${f.method}|${f.status}|${f.kind === 'unknown-operation' ? f.url : ''}`,
        f,
      );
  return {
    schema: first.schema,
    suiteVersion: first.suiteVersion,
    specVersion: first.specVersion,
    catalogueVersion: first.catalogueVersion,
    target: first.target,
    ...(first.targetLabel ? { targetLabel: first.targetLabel } : {}),
    profile: first.profile,
    ...(first.auth ? { auth: first.auth } : {}),
    selection: {
      requirements: first.selection.requirements,
      readOnly: first.selection.readOnly,
      fixtures: first.selection.fixtures,
    },
    startedAt,
    finishedAt,
    durationMs: Date.parse(finishedAt) - Date.parse(startedAt),
    requirements: reqs,
    counts: countResults(reqs),
    gatingCounts: gating.length ? countResults(gating) : emptyCounts(),
    verdict: verdictFor(exitCode),
    exitCode,
    runErrors: [
      ...shards.flatMap((s) => s.results.runErrors.map((e) => `${label(s)}: ${e}`)),
      ...missing.map((i) => `shard ${i}/${count} missing: its requirements count as untested`),
    ],
    warnings: shards.flatMap((s) => s.results.warnings),
    findings: [...findings.values()],
  };
}

async function mergeCommand(dirs: string[], opts: MergeOptions): Promise<number> {
  let merged: RunResults;
  let dir: string;
  try {
    const catalogue = loadCatalogue();
    const shards = dirs.map((d) => {
      const file = resultsFile(d);
      return { file, results: loadBaseline(file) };
    });
    merged = mergeResults(shards, catalogue, opts);
    const gate = gateFromFiles(opts, catalogue);
    // the merged run's strength, judged again over all shards (a merge that judged nothing: exit 4)
    merged = applyStrength(applyGate(merged, gate));
    dir = path.resolve(opts.reportDir ?? 'reports/merged');
    writeReports(merged, dir);
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError || e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  process.stdout.write(`${summaryText(merged, { reportDir: dir })}\n`);
  return merged.exitCode;
}

export function registerMerge(program: Command, onExit: (code: number) => void): void {
  program
    .command('merge')
    .description(
      'merge the results.json of shard runs (--shard i/n) into one report set, as one unsharded run would have written it; exits with the merged run’s exit code',
    )
    .argument('<dirs...>', 'report directories (or results.json files) of the shards')
    .option('--report-dir <dir>', 'output directory (default reports/merged)')
    .option('--baseline <results.json>', 'judge the merged run against this earlier run (only regressions fail)')
    .option('--expected-failures <file>', 'judge the merged run against this expected-failures file')
    .option('--allow-missing', 'merge even when some shards of the n are missing (their requirements are untested)')
    .action(async (dirs: string[], opts: MergeOptions) => {
      onExit(await mergeCommand(dirs, opts));
    });
}
