// The coverage figure of a model-based test (issue 44 item 4): which commands, pairs of consecutive
// commands and (command, user class, object class) triples its generated sequences drew. The test
// hands it over with t.modelCoverage; results.json keeps it as the test's `modelCoverage`
// (report/test-result.ts), and the summary prints one line per test that has one
// (report/model-coverage.ts).

export interface ModelCoverage {
  /** Sequences run (shrinking included: its sequences were sent as well). */
  sequences: number;
  steps: number;
  /** Steps per command. */
  commands: Record<string, number>;
  /** Consecutive steps of one sequence, as `A -> B`. */
  pairs: Record<string, number>;
  /** `command / user class / object class`. */
  triples: Record<string, number>;
}
