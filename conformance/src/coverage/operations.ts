// Which operations each suite test really called, read from the results.json of a run of the suite
// against the reference server: the data of the requirement x operation coverage.
//
// The run is the one `npm test` already makes (`npm run test:conformance`, profile all, reports in
// reports/ci); the gate judges it right after. Nothing is recorded or committed in between, so an
// edit to a suite file needs no recording step: the next run carries the tests as they are now.
// Every exchange of a test is matched to an operationId of spec/openapi.yaml when it is recorded
// (suite-api/client.ts) and results.json lists the operations per test (`operations`).
import fs from 'node:fs';
import path from 'node:path';
import { relFile, ROOT } from '../paths.js';
import type { RunResults, TestResult } from '../report/results.js';

/** Where `npm run test:conformance` writes its results (`--report-dir reports/ci`), from the working directory. */
export const DEFAULT_RESULTS_FILE = path.join('reports', 'ci', 'results.json');

interface RunTest {
  file: string;
  result: TestResult['result'];
  /** operationIds the test's exchanges addressed, sorted. */
  operations: string[];
  /** not-applicable as its last step, after every request it makes: `operations` is complete */
  afterEveryRequest?: true;
}

/** What the coverage takes from a run. */
export interface RunRecord {
  /** The results.json, as messages name it. */
  file: string;
  target: string;
  profile: string;
  seed?: number;
  /** When the run started (ISO 8601). */
  startedAt?: string;
  /** The requirements the run was restricted to, its shard, --read-only: any of them means a part of the suite. */
  partial: string[];
  tests: Record<string, RunTest>;
}

/** The tests of a run (results.json nests them under their requirements), synthetic entries left out. */
function testsOfRun(results: RunResults): TestResult[] {
  const byId = new Map<string, TestResult>();
  for (const q of results.requirements)
    for (const t of q.tests ?? []) if (!t.generic && !t.step && !byId.has(t.id)) byId.set(t.id, t);
  return [...byId.values()];
}

/** The record of a run, from its results. */
export function runRecordFromResults(results: RunResults, file: string): RunRecord {
  const sel = results.selection;
  const partial = [
    ...(sel?.requirements?.length ? [`--requirements ${sel.requirements.join(',')}`] : []),
    ...(sel?.shard ? [`--shard ${sel.shard}`] : []),
    ...(sel?.readOnly ? ['--read-only'] : []),
  ];
  const tests = testsOfRun(results).sort((a, b) => a.id.localeCompare(b.id));
  return {
    file,
    target: results.target?.description ?? results.target?.baseUrl ?? '',
    profile: String(results.profile),
    ...(results.seed !== undefined ? { seed: results.seed } : {}),
    ...(results.startedAt ? { startedAt: results.startedAt } : {}),
    partial,
    tests: Object.fromEntries(
      tests.map((t) => [
        t.id,
        {
          file: t.file,
          result: t.result,
          operations: [...(t.operations ?? [])].sort(),
          ...(t.afterEveryRequest ? { afterEveryRequest: true as const } : {}),
        },
      ]),
    ),
  };
}

/** Thrown when the results file is missing or not a results.json (a usage error of the CLI). */
export class RunRecordError extends Error {}

/** Reads a results.json (default: reports/ci/results.json of `npm run test:conformance`). */
export function loadRunRecord(file: string = DEFAULT_RESULTS_FILE): RunRecord {
  const abs = path.resolve(file);
  const name = relFile(abs);
  if (!fs.existsSync(abs))
    throw new RunRecordError(
      `no run to judge: ${name} does not exist. The coverage is judged from a run of the whole suite against the reference: run \`npm run test:conformance\` (conformance run --profile all --report-dir reports/ci) first, or name a results.json with --results <file>`,
    );
  let doc: RunResults;
  try {
    doc = JSON.parse(fs.readFileSync(abs, 'utf8')) as RunResults;
  } catch (e) {
    throw new RunRecordError(`cannot read ${name}: ${(e as Error).message}`);
  }
  if (!Array.isArray(doc?.requirements) || typeof doc.profile !== 'string')
    throw new RunRecordError(`${name} is not the results.json of a conformance run`);
  return runRecordFromResults(doc, name);
}

const SUITE_DIR = path.join(ROOT, 'conformance', 'suite');

/**
 * Files under conformance/suite changed after the run started, sorted: the run then ran other tests
 * than the suite's now (a test edited to call other operations must not keep the old run's coverage).
 */
export function suiteFilesChangedAfter(startedAt: string, dir: string = SUITE_DIR): string[] {
  const t = Date.parse(startedAt);
  if (Number.isNaN(t)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    if (e.isFile() && fs.statSync(p).mtimeMs > t) out.push(relFile(p));
  }
  return out.sort();
}
