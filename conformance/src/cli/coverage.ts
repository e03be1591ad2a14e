// `conformance coverage [--check]`: the requirements → tests and requirement x operation tables,
// and the coverage gate.
import path from 'node:path';
import type { Command } from 'commander';
import { CatalogueError, loadCatalogue, type Catalogue } from '../spec/catalogue.js';
import { buildCoverage, coverageProblems, writeCoverage } from '../coverage/gate.js';
import { loadOperationsData, OPERATIONS_FILE, suiteFileHashes } from '../coverage/operations.js';
import { collectTests } from '../run/collect.js';
import { relFile, ROOT } from '../paths.js';
import { EXIT } from '../report/results.js';
import { log } from './log.js';

export function registerCoverage(program: Command, onExit: (code: number) => void): void {
  program
    .command('coverage')
    .description(
      'write the requirements → tests and requirement x operation tables (reports/coverage.md, reports/coverage.json)',
    )
    .option(
      '--check',
      'exit 1 when a testable core requirement has no test, a testable (requirement, operation) pair is not exercised in the recorded run (reports/coverage-operations.json, refreshed by npm run coverage:update) nor exempted, or a test names an unknown requirement',
    )
    .option('--out <dir>', 'output directory (default reports)')
    .action(async (opts) => {
      onExit(await coverageCommand(opts));
    });
}

async function coverageCommand(opts: { check?: boolean; out?: string }): Promise<number> {
  let cat: Catalogue;
  let res: Awaited<ReturnType<typeof collectTests>>;
  try {
    cat = loadCatalogue();
    res = await collectTests();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return e instanceof CatalogueError ? EXIT.usage : EXIT.harness;
  }
  let operationsData;
  try {
    operationsData = loadOperationsData();
  } catch (e) {
    log(`conformance: error: ${(e as Error).message}`);
    return EXIT.usage;
  }
  const report = buildCoverage(cat, res.tests, res.errors, new Date(), {
    data: operationsData,
    suiteFiles: suiteFileHashes(),
    file: relFile(OPERATIONS_FILE),
  });
  const files = writeCoverage(report, path.resolve(opts.out ?? path.join(ROOT, 'reports')));
  const c = report.counts;
  process.stdout.write(
    `coverage: ${report.testCount} tests; testable requirements covered ${c.covered}/${c.testable} (core ${c.coreCovered}/${c.coreTestable}); ${c.notTestable} not testable\n` +
      (report.pairCounts
        ? `coverage: requirement x operation pairs ${report.pairCounts.pairs}: exercised ${report.pairCounts.exercised}, exempt ${report.pairCounts.exempt}, not testable ${report.pairCounts.notTestable}, gaps ${report.pairCounts.gaps}\n`
        : '') +
      (report.partitions
        ? `coverage: equivalence classes ${report.partitions.counts.classes}: exercised ${report.partitions.counts.exercised}, exempt ${report.partitions.counts.exempt}, not testable ${report.partitions.counts.notTestable}, gaps ${report.partitions.counts.gaps}\n`
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
    // The table is checked in (reports/coverage.md): a stale copy misleads readers of the repo.
    if (files.stale) {
      process.stdout.write(`coverage: ${relFile(files.md)} was out of date and has been regenerated; commit it\n`);
      return EXIT.failed;
    }
    process.stdout.write('coverage: gate passed\n');
  } else if (problems.length) {
    process.stdout.write(`coverage: ${problems.length} gate problem(s) (see coverage.md; --check fails on them)\n`);
  }
  return EXIT.ok;
}
