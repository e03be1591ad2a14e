// StrykerJS configuration for mutating the reference server's own code (issue 12 item 6).
//
// The test is the black-box conformance suite over HTTP, so the runner is Stryker's built-in
// `command` runner: each mutant run is one shell command in Stryker's sandbox copy of the repository.
// `conformance run --local-process` starts `reference-server/bin/reference-server.mjs` relative to the
// conformance CLI's own location, i.e. the SANDBOX's server (tsx on the instrumented src/), and the
// server child inherits the environment, including `__STRYKER_ACTIVE_MUTANT__` that the command
// runner sets and the instrumented code reads at start-up.
//
// Used as is (`npx stryker run`), it mutates all of reference-server/src against the whole core
// suite: thousands of mutants at ~15 s each, i.e. many hours. `npm run test:mutation:server`
// (scripts/mutation-server.ts) takes this file as its base and runs a seeded sample per area instead.
export default {
  $schema: './node_modules/@stryker-mutator/core/schema/stryker-schema.json',
  packageManager: 'npm',
  // testRunner: Stryker's default, the built-in `command` runner (not named here: knip would then
  // look for a `@stryker-mutator/command-runner` package, which does not exist).
  commandRunner: {
    command:
      'node conformance/bin/conformance.mjs run --local-process --profile core --bail 1 --report-dir .stryker-run',
  },
  mutate: ['reference-server/src/**/*.ts'],
  // The command runner cannot report per-test coverage: every mutant runs the command.
  coverageAnalysis: 'off',
  // tsx transpiles without type checks; Stryker's `// @ts-nocheck` keeps any editor/tsc quiet.
  disableTypeChecks: 'reference-server/src/**/*.ts',
  checkers: [],
  // Two shared cores: one mutant at a time (the suite itself already runs two vitest workers).
  concurrency: 1,
  // A mutant run is a fresh process each time, so static mutants (module top level) are as
  // cheap as any other: keep them.
  ignoreStatic: false,
  // Timeout = dry-run time x factor + timeoutMS. Generous, because other work shares the CPU:
  // a slow but correct run must not be counted as a timeout.
  timeoutFactor: 2,
  timeoutMS: 30_000,
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // Keep the sandbox copy small: what the suite and the server need, nothing else.
  ignorePatterns: ['bench', 'docs', 'reports', 'dist', '.stryker-run', '*.db', '*.db-wal', '*.db-shm'],
  reporters: ['clear-text', 'progress-append-only'],
  thresholds: { high: 90, low: 80, break: null },
};
