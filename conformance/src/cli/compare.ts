// `conformance compare RUN...`: many runs side by side (compare.html, compare.json) and, for two
// runs or --since, what changed between them, with a gate's exit code. The work is in src/compare/.
import path from 'node:path';
import type { Command } from 'commander';
import { CatalogueError } from '../spec/catalogue.js';
import { compareConformance } from '../compare/index.js';
import { CAUSES } from '../compare/model.js';
import { UsageError } from '../model/errors.js';
import { EXIT } from '../report/results.js';
import { log } from './log.js';
import { reportDirOption } from './report-dir.js';

interface CompareOptions {
  reportDir?: string;
  out?: string;
  since?: string;
  allow?: string;
}

export function registerCompare(program: Command, onExit: (code: number) => void): void {
  const cmd = program
    .command('compare')
    .description(
      'compare runs: a matrix of requirements x runs (compare.html, compare.json); for two runs, or one run with --since, what changed between them, with a gate: exit 1 when a requirement newly fails or stops being judged',
    )
    .argument(
      '<runs...>',
      'report directories or results.json files of runs, or a directory of them (CI artifacts); shard runs of one run are merged',
    )
    .option('--report-dir <dir>', 'where compare.html and compare.json go (default reports/compare)')
    .option('--out <dir>', 'the same as --report-dir (its name before 0.3)')
    .option(
      '--since <dir>',
      'a directory of earlier runs: diff the one run given against the last run of the same implementation (--target-label, else image name) there',
    )
    .option('--allow <causes>', `comma list of causes of "no longer judged" the gate accepts: ${CAUSES.join(', ')}`)
    .action((runs: string[], opts: CompareOptions) => {
      onExit(compareCommand(runs, opts));
    });
  cmd.addHelpText(
    'after',
    '\nA diff is made of exactly two runs given one by one (A B), or of one run and --since; a directory of\n' +
      'runs is a history (matrix only). Judged: passed or failed.\n' +
      'Exit codes: 0 nothing regressed (always 0 when no diff is made), 1 a requirement newly fails or is no\n' +
      'longer judged for a cause --allow does not accept, 2 usage error (an argument that is no run, an\n' +
      'unknown cause, no earlier run for --since).',
  );
}

function compareCommand(runs: string[], opts: CompareOptions): number {
  try {
    const out = compareConformance({
      runs,
      ...(opts.since !== undefined ? { since: opts.since } : {}),
      ...(opts.allow !== undefined ? { allow: opts.allow } : {}),
      out: path.resolve(reportDirOption(opts) ?? 'reports/compare'),
    });
    process.stdout.write(`${out.text}\n\nCompare report: ${out.files!.html} (and compare.json)\n`);
    return out.exitCode;
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError || e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
}
