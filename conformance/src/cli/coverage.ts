// `conformance coverage [--check] [--results <results.json>]`: the requirements → tests and
// requirement x operation tables, and the coverage gate. The tests and what they declare come from a
// collection of the suite; the operations each test called from a run of it (results.json).
import path from 'node:path';
import type { Command } from 'commander';
import { CatalogueError, loadCatalogue, type Catalogue } from '../spec/catalogue.js';
import { buildCoverage, coverageProblems, writeCoverage } from '../coverage/gate.js';
import { loadDataClasses } from '../coverage/data-classes.js';
import {
  DEFAULT_RESULTS_FILE,
  loadRunRecord,
  RunRecordError,
  suiteFilesChangedAfter,
  type RunRecord,
} from '../coverage/operations.js';
import { collectTests } from '../run/collect.js';
import { relFile, ROOT } from '../paths.js';
import { EXIT } from '../report/results.js';
import { log } from './log.js';
import { reportDirOption } from './report-dir.js';

export function registerCoverage(program: Command, onExit: (code: number) => void): void {
  program
    .command('coverage')
    .description(
      'write the requirements → tests and requirement x operation tables (reports/coverage.md, reports/coverage.json)',
    )
    .option(
      '--check',
      'exit 1 when a testable core requirement has no test, a testable (requirement, operation) pair is not exercised in the run (--results) nor exempted, an equivalence class is not exercised nor exempted, or a test names an unknown requirement',
    )
    .option(
      '--results <file>',
      `results.json of a run of the whole suite (profile all) against the reference, whose per-test operations the pairs are judged from (default ${DEFAULT_RESULTS_FILE}, written by npm run test:conformance)`,
    )
    .option('--report-dir <dir>', 'output directory (default reports)')
    .option('--out <dir>', 'the same as --report-dir (its name before 0.3)')
    .action(async (opts) => {
      onExit(await coverageCommand(opts));
    });
}

async function coverageCommand(opts: {
  check?: boolean;
  reportDir?: string;
  out?: string;
  results?: string;
}): Promise<number> {
  let reportDir: string | undefined;
  try {
    reportDir = reportDirOption(opts);
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return EXIT.usage;
  }
  // The run first: without one there is nothing to judge, and it is quicker to say so than to collect.
  let run: RunRecord;
  try {
    run = loadRunRecord(opts.results ?? DEFAULT_RESULTS_FILE);
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof RunRecordError ? EXIT.usage : EXIT.harness;
  }
  let cat: Catalogue;
  let res: Awaited<ReturnType<typeof collectTests>>;
  try {
    cat = loadCatalogue();
    res = await collectTests();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  const report = buildCoverage(
    cat,
    res.tests,
    res.errors,
    new Date(),
    { run, changedSinceRun: run.startedAt ? suiteFilesChangedAfter(run.startedAt) : [], featurePairs: true },
    loadDataClasses(),
  );
  const files = writeCoverage(report, path.resolve(reportDir ?? path.join(ROOT, 'reports')));
  const c = report.counts;
  process.stdout.write(
    `coverage: operations of ${Object.keys(run.tests).length} tests from ${run.file} (profile ${run.profile}${run.seed !== undefined ? `, seed ${run.seed}` : ''}, started ${run.startedAt ?? 'at an unknown time'})\n` +
      `coverage: ${report.testCount} tests; testable requirements covered ${c.covered}/${c.testable} (core ${c.coreCovered}/${c.coreTestable}); ${c.notTestable} not testable\n` +
      (report.pairCounts
        ? `coverage: requirement x operation pairs ${report.pairCounts.pairs}: exercised ${report.pairCounts.exercised}, exempt ${report.pairCounts.exempt}, not testable ${report.pairCounts.notTestable}, gaps ${report.pairCounts.gaps}\n`
        : '') +
      (report.partitions
        ? `coverage: equivalence classes ${report.partitions.counts.classes}: exercised ${report.partitions.counts.exercised}, exempt ${report.partitions.counts.exempt}, not testable ${report.partitions.counts.notTestable}, gaps ${report.partitions.counts.gaps}\n`
        : '') +
      (report.dataClasses
        ? `coverage: data classes ${report.dataClasses.counts.rows} (requirement, operation, class): exercised ${report.dataClasses.counts.exercised}, exempt ${report.dataClasses.counts.exempt}, gaps ${report.dataClasses.counts.gaps}; ${report.dataClasses.pending.length} types pending\n`
        : '') +
      (report.featurePairs
        ? `coverage: feature pairs ${report.featurePairs.counts.declared} declared: covered ${report.featurePairs.counts.covered}, gaps ${report.featurePairs.counts.gaps} (${report.featurePairs.listings.map((l) => `${l.listing} ${l.covered}/${l.declared}`).join(', ')})\n`
        : '') +
      `coverage: wrote ${relFile(files.md)} and ${relFile(files.json)}\n`,
  );
  const problems = coverageProblems(report);
  if (opts.check) {
    if (problems.length) {
      process.stdout.write(
        `coverage: gate FAILED (${problems.length} problem(s)):\n${problems.map((p) => `  - ${p}`).join('\n')}\n`,
      );
      return EXIT.failed;
    }
    process.stdout.write('coverage: gate passed\n');
  } else if (problems.length) {
    process.stdout.write(`coverage: ${problems.length} gate problem(s) (see coverage.md; --check fails on them)\n`);
  }
  return EXIT.ok;
}
