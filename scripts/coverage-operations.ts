// `npm run coverage:update`: records which operations each suite test calls, from a run of the
// whole suite against the reference server, into reports/coverage-operations.json, then rewrites
// the coverage table (reports/coverage.md). `conformance coverage --check` (npm run
// coverage:check) reads that file and fails when it is stale (a suite file changed since).
//
//   npm run coverage:update                       run the suite (local reference process, profile all)
//   npm run coverage:update -- --from results.json  use an existing run of the same suite instead
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  COVERAGE_RUN_SEED,
  OPERATIONS_FILE,
  operationsFromRun,
  suiteFileHashes,
  writeOperationsData,
} from '../conformance/src/coverage/operations.js';
import { ROOT } from '../conformance/src/paths.js';
import type { RunResults } from '../conformance/src/report/results.js';

const HELP = `usage: npm run coverage:update [-- --from <results.json>]

Records the operations each conformance test calls (reports/coverage-operations.json) and
rewrites reports/coverage.md.

  --from <results.json>  take the operations from this run (profile all, every test passed,
                         the suite unchanged since) instead of running the suite
  -h, --help             this text

Without --from, runs: conformance run --local-process --profile all --seed ${COVERAGE_RUN_SEED}
(about 40 s; the report goes to reports/tmp/coverage-run).`;

function fail(msg: string): never {
  process.stderr.write(`coverage:update: ${msg}\n`);
  process.exit(1);
}

const { values } = parseArgs({
  options: { from: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
});
if (values.help) {
  process.stdout.write(`${HELP}\n`);
  process.exit(0);
}

const cli = path.join(ROOT, 'conformance', 'bin', 'conformance.mjs');
// Hash the suite before the run: a file edited during the run must make the data stale.
const suiteFiles = suiteFileHashes();
let resultsFile: string;
let seed: number | undefined;
if (values.from) {
  resultsFile = path.resolve(values.from);
} else {
  const reportDir = path.join(ROOT, 'reports', 'tmp', 'coverage-run');
  seed = COVERAGE_RUN_SEED;
  process.stderr.write(`coverage:update: running the suite against the reference (profile all, seed ${seed})\n`);
  const r = spawnSync(
    process.execPath,
    [cli, 'run', '--local-process', '--profile', 'all', '--seed', String(seed), '--report-dir', reportDir],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (r.status !== 0) fail(`the reference run failed (exit ${r.status}); fix it before recording coverage`);
  resultsFile = path.join(reportDir, 'results.json');
}

let results: RunResults;
try {
  results = JSON.parse(fs.readFileSync(resultsFile, 'utf8')) as RunResults;
} catch (e) {
  fail(`cannot read ${resultsFile}: ${(e as Error).message}`);
}
if (results.profile !== 'all') fail(`${resultsFile} is a run of profile ${results.profile}; the coverage needs all`);
if (results.selection?.requirements?.length || results.selection?.shard || results.selection?.readOnly)
  fail(`${resultsFile} is a run of a selection of the suite; the coverage needs the whole suite`);
if (results.exitCode !== 0) fail(`${resultsFile} is a failing run (exit ${results.exitCode})`);

const data = operationsFromRun(results, suiteFiles, seed ?? results.seed);
writeOperationsData(data);
process.stderr.write(
  `coverage:update: wrote ${path.relative(ROOT, OPERATIONS_FILE)} (${Object.keys(data.tests).length} tests)\n`,
);
const c = spawnSync(process.execPath, [cli, 'coverage'], { cwd: ROOT, stdio: 'inherit' });
process.exit(c.status ?? 1);
