// `conformance report FILE`: the report files written again from a results.json, optionally judged
// afresh against a baseline or expected failures.
import path from 'node:path';
import type { Command } from 'commander';
import { CatalogueError, loadCatalogue } from '../spec/catalogue.js';
import { UsageError } from '../model/errors.js';
import { applyGate, gateFromFiles, loadBaseline } from '../report/gate.js';
import { EXIT, exitCodeFor, verdictFor, type RunResults } from '../report/results.js';
import { summaryText } from '../report/summary.js';
import { writeReports } from '../report/write-reports.js';
import { log } from './log.js';

export function registerReport(program: Command, onExit: (code: number) => void): void {
  program
    .command('report')
    .description(
      'write report.html, junit.xml and badge.svg (and results.json) again from a results.json, optionally judged against a baseline or expected failures; exits with the exit code of the judged run',
    )
    .argument('<results.json>', 'the results of an earlier run')
    .option('--report-dir <dir>', 'output directory (default: the directory of results.json)')
    .option('--baseline <results.json>', 'judge against this earlier run (only regressions fail)')
    .option('--expected-failures <file>', 'judge against this expected-failures file')
    .option('--allow-disputed', 'a failure a disputed expected-failures entry lists does not fail the run')
    .action(async (file: string, opts: ReportOptions) => {
      onExit(await reportCommand(file, opts));
    });
}

interface ReportOptions {
  reportDir?: string;
  baseline?: string;
  expectedFailures?: string;
  allowDisputed?: boolean;
}

async function reportCommand(file: string, opts: ReportOptions): Promise<number> {
  let results: RunResults;
  try {
    const abs = path.resolve(file);
    results = loadBaseline(abs);
    const cat = opts.expectedFailures ? loadCatalogue() : undefined;
    const gate = { ...gateFromFiles(opts, cat), allowDisputed: opts.allowDisputed === true };
    if (gate.baseline || gate.expectedFailures) {
      // judge the run afresh: drop the marks of an earlier judgement
      const { gate: _g, baseline: _b, expectedFailures: _e, disputes: _d, ...rest } = results;
      const plain: RunResults = {
        ...rest,
        requirements: results.requirements.map(({ baseline: _rb, expectedFailure: _re, ...q }) => q),
      };
      if (plain.exitCode === EXIT.ok || plain.exitCode === EXIT.failed) {
        plain.exitCode = exitCodeFor(plain.requirements);
        plain.verdict = verdictFor(plain.exitCode);
      }
      results = applyGate(plain, gate);
    }
    const dir = path.resolve(opts.reportDir ?? path.dirname(abs));
    writeReports(results, dir);
    process.stdout.write(`${summaryText(results, { reportDir: dir })}\n`);
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof UsageError || e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  return results.exitCode;
}
