// The baseline of a mutation run: the core suite against a plain reference server (no proxy). It
// must pass every core requirement (a failure proves nothing against a reference that fails too),
// and its results say which operations each test calls: the runs that follow select their tests by
// them, with its seed.
import fs from 'node:fs';
import path from 'node:path';
import type { RequirementResult, RunResults } from '../../src/report/results.js';
import { collectTests } from '../../src/run/collect.js';
import { judgeBaseline, resultsById, type BaselineOutcome } from './judge.js';
import { fmtMs } from './report.js';
import { runSuite } from './run-job.js';
import { suiteTests, type SuiteTest } from './select.js';
import type { ServerPool } from './servers.js';
import { ROOT } from '../../../spec/paths.js';

export interface Baseline {
  outcome: BaselineOutcome;
  /** result of every requirement in the baseline (absent when skipped) */
  byId?: Map<string, RequirementResult>;
  /** the core tests and what each calls */
  suite: SuiteTest[];
  /** the seed of every run */
  seed: number;
}

/** The suite's core tests without a baseline run: collected, what they call unknown (every test runs). */
async function collectedSuite(): Promise<SuiteTest[]> {
  const { tests } = await collectTests();
  return tests
    .filter((t) => t.profile === 'core')
    .map((t) => ({
      id: t.id,
      file: t.file,
      requirements: t.requirements,
      operations: [],
      unknownOperations: true,
      durationMs: 0,
    }));
}

function describe(b: BaselineOutcome): string {
  if (b.ok) return 'passes every core requirement';
  return `FAILS: ${Object.entries(b.notPassing)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')}`;
}

/**
 * Runs the baseline in `dir`; or reads it from an earlier run's results.json (`from`, its seed
 * then used); or skips it (`skip`: development only, the mutation run cannot pass).
 */
export async function establishBaseline(o: {
  from?: string;
  skip?: boolean;
  dir: string;
  servers: ServerPool;
  seed: number;
  timeoutMs: number;
  log: (line: string) => void;
}): Promise<Baseline> {
  if (o.from) {
    const file = path.resolve(o.from);
    const results = JSON.parse(fs.readFileSync(file, 'utf8')) as RunResults;
    const outcome = judgeBaseline(
      { exitCode: 0, durationMs: results.durationMs, results },
      path.relative(ROOT, path.dirname(file)),
    );
    const seed = results.seed ?? o.seed;
    o.log(`baseline: read from ${path.relative(ROOT, file)} (${describe(outcome)}; seed ${seed})`);
    return { outcome, byId: resultsById(results), suite: suiteTests(results), seed };
  }
  if (o.skip) {
    o.log('baseline: skipped (--skip-baseline): every run covers whole files');
    const outcome: BaselineOutcome = {
      ok: false,
      skipped: true,
      exitCode: null,
      durationMs: 0,
      notPassing: {},
      reportDir: path.relative(ROOT, o.dir),
    };
    return { outcome, suite: await collectedSuite(), seed: o.seed };
  }
  o.log(`baseline: core suite against a plain reference server (no proxy), seed ${o.seed} ...`);
  const ref = await o.servers.take([]);
  let run;
  try {
    run = await runSuite(ref.url, `${ref.url}/_provider-states`, {}, o.dir, {
      timeoutMs: o.timeoutMs,
      concurrency: 16,
      seed: o.seed,
    });
  } finally {
    await o.servers.release(ref);
  }
  const outcome = judgeBaseline(run, path.relative(ROOT, o.dir));
  o.log(`baseline: ${describe(outcome)} in ${fmtMs(run.durationMs)}`);
  const suite = run.results ? suiteTests(run.results) : await collectedSuite();
  return { outcome, byId: resultsById(run.results), suite, seed: o.seed };
}
