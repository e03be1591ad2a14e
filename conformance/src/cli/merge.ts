// `conformance merge DIR...`: one report set from the results.json of shard runs (`--shard i/n`),
// equal to what one unsharded run would have written. A shard's results.json holds every test it
// ran, each under the requirements it verifies; merging takes the union of those tests and judges
// every selected requirement of the catalogue afresh with the same rules as a run
// (buildRequirementReports, exitCodeFor), so a requirement verified by tests in several shards
// gets one result, and a requirement no shard tested is `untested` as it would be unsharded.
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { loadCatalogue, CatalogueError } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import { applyGate, gateFromFiles, loadBaseline } from '../report/gate.js';
import { applyStrength } from '../report/strength.js';
import { summaryText } from '../report/summary.js';
import { writeReports } from '../report/write-reports.js';
import { mergeResults } from '../report/merge-results.js';
import { EXIT, type RunResults } from '../report/results.js';
import { log } from './log.js';

interface MergeOptions {
  reportDir?: string;
  baseline?: string;
  expectedFailures?: string;
  /** Merge even when shards of the `n` are missing (their requirements then count as untested). */
  allowMissing?: boolean;
  /** A failure a disputed expected-failures entry lists does not fail the merged run. */
  allowDisputed?: boolean;
}

/** A shard's results.json: given as the file or as the directory holding it. */
function resultsFile(arg: string): string {
  const abs = path.resolve(arg);
  const file = fs.existsSync(abs) && fs.statSync(abs).isDirectory() ? path.join(abs, 'results.json') : abs;
  if (!fs.existsSync(file)) throw new UsageError(`no results.json at ${arg}`);
  return file;
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
    const gate = { ...gateFromFiles(opts, catalogue), allowDisputed: opts.allowDisputed === true };
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
    .option('--allow-disputed', 'a failure a disputed expected-failures entry lists does not fail the merged run')
    .action(async (dirs: string[], opts: MergeOptions) => {
      onExit(await mergeCommand(dirs, opts));
    });
}
