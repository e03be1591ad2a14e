import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suite (conformance/suite) is not listed here: it runs
// through the `conformance` CLI, which starts a target first and builds its own vitest config.
// Besides the console, results go to reports/tmp/vitest-results.json, which .ci/run sums up.
// Many tests start processes (the CLI through tsx, servers): 5 s is too tight on a loaded 2-core
// machine, so every project gets 30 s.
const testTimeout = 30_000;
// As many files at once as there are cores (vitest's default leaves one core out: 1 on 2 cores, one
// file after another). Most files wait on processes they start (servers, the CLI), which use the
// other core meanwhile: on this 2-core machine the run took 164 s with 2 at once against 240 s with
// 1, and 195 s with 3 (with a timing test of the suite session failing under that load).
const maxWorkers = Math.max(2, availableParallelism());
// The files of these projects share a worker's loaded modules instead of loading them again per
// file: they mock nothing and set no environment (checked with grep for vi.mock, vi.stub*,
// vi.spyOn, fake timers and process.env writes). Measured on this 2-core machine, the five
// projects' 1,208 tests: 63.6 -> 50.4 CPU-s, 35.0 -> 28.1 s.
const isolate = false;

export default defineConfig({
  test: {
    maxWorkers,
    reporters: ['default', ['json', { outputFile: 'reports/tmp/vitest-results.json' }]],
    projects: [
      { test: { name: 'spec', include: ['spec/test/**/*.test.ts'], testTimeout, isolate } },
      { test: { name: 'reference-server', include: ['reference-server/test/**/*.test.ts'], testTimeout, isolate } },
      // isolated: its files drive the suite's own modules (transport, HAR spool, run context),
      // whose module-level state is per thread; sharing it would save ~7 CPU-s of ~230 (measured)
      // its global setup gives the files that only read a whole run one run to share (helpers/shared-run.ts)
      {
        test: {
          name: 'conformance-harness',
          include: ['conformance/test/**/*.test.ts'],
          testTimeout,
          globalSetup: ['conformance/test/helpers/shared-run-setup.ts'],
          // the suite runs these files start keep vitest's transformed modules for the next run
          // (conformance/src/run/vitest-run.ts); the packed package's test clears it
          env: { CONFORMANCE_FS_CACHE: '1' },
        },
      },
      { test: { name: 'docs', include: ['docs/test/**/*.test.ts'], testTimeout, isolate } },
      { test: { name: 'bench', include: ['bench/test/**/*.test.ts'], testTimeout, isolate } },
      { test: { name: 'clients', include: ['clients/test/**/*.test.ts'], testTimeout, isolate } },
      { test: { name: 'peers', include: ['peers/gate/test/**/*.test.ts'], testTimeout, isolate } },
    ],
  },
});
