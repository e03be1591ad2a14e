import { defineConfig } from 'vitest/config';

// The project's own tests. The conformance suite (conformance/suite) is not listed here: it runs
// through the `conformance` CLI, which starts a target first and builds its own vitest config.
// Besides the console, results go to reports/tmp/vitest-results.json, which .ci/run sums up.
// Many tests start processes (the CLI through tsx, servers): 5 s is too tight on a loaded 2-core
// machine, so every project gets 30 s.
const testTimeout = 30_000;

export default defineConfig({
  test: {
    reporters: ['default', ['json', { outputFile: 'reports/tmp/vitest-results.json' }]],
    projects: [
      { test: { name: 'spec', include: ['spec/test/**/*.test.ts'], testTimeout } },
      { test: { name: 'reference-server', include: ['reference-server/test/**/*.test.ts'], testTimeout } },
      { test: { name: 'conformance-harness', include: ['conformance/test/**/*.test.ts'], testTimeout } },
      { test: { name: 'docs', include: ['docs/test/**/*.test.ts'], testTimeout } },
      { test: { name: 'bench', include: ['bench/test/**/*.test.ts'], testTimeout } },
      { test: { name: 'clients', include: ['clients/test/**/*.test.ts'], testTimeout } },
    ],
  },
});
