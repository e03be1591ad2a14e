// The merge of shard runs (`--shard i/n`) into one run, equal to what one unsharded run would have
// written: the union of the shards' tests, every selected requirement of the catalogue judged afresh
// with the same rules as a run (buildRequirementReports, exitCodeFor). Used by `conformance merge`
// (cli/merge.ts) and by `conformance compare`, which takes merged shards as one run.
import type { Catalogue } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import {
  buildRequirementReports,
  countTests,
  TEST_COUNT_ORDER,
  type TestCounts,
  countResults,
  emptyCounts,
  EXIT,
  exitCodeFor,
  verdictFor,
  type RunResults,
  type TestResult,
} from './results.js';
import { topSlowest } from './slowest.js';
import { specSectionTitles } from '../spec/sections.js';
import { mergeChoices } from './choices.js';

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
export function mergeResults(
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
    // a shard that ended 3 only because its non-passes were errors is judged again with the others
    harnessFailed: shards.some((s) => s.results.exitCode === EXIT.harness && s.results.runErrors.length > 0),
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
    // the shards ran disjoint files: their tests add up
    ...(shards.every((s) => s.results.testCounts)
      ? { testCounts: sumTestCounts(shards.map((s) => s.results.testCounts!)) }
      : {}),
    ...(shards.every((s) => s.results.choices) ? { choices: mergeChoices(shards.map((s) => s.results.choices!)) } : {}),
    verdict: verdictFor(exitCode),
    exitCode,
    runErrors: [
      ...shards.flatMap((s) => s.results.runErrors.map((e) => `${label(s)}: ${e}`)),
      ...missing.map((i) => `shard ${i}/${count} missing: its requirements count as untested`),
    ],
    warnings: shards.flatMap((s) => s.results.warnings),
    findings: [...findings.values()],
    slowestAnswers: topSlowest(shards.flatMap((s) => s.results.slowestAnswers ?? [])),
  };
}

function sumTestCounts(list: TestCounts[]): TestCounts {
  const sum = countTests([], 0);
  for (const c of list) for (const k of TEST_COUNT_ORDER) sum[k] += c[k] ?? 0;
  return sum;
}
