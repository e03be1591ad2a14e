// How a failed assertion prints the values that decided it. chai's default (40 characters) cut
// `expected [ { ParentDomainID: 1, …(4) }, …(1) ] to have a length of 1 but got 2` and hid the
// rows that differed; vitest's diff printed `Object {` prototypes around every row. A message now
// holds both sides whole up to FAILURE_VALUE_CHARS characters each (one screen), the diff up to
// FAILURE_DIFF_LINES lines; results.json keeps the expected and actual values (report/expectation.ts)
// up to its own, larger bound, and report.html shows them.

/** chai's truncateThreshold: a value printed in a message longer than this is shortened. */
const FAILURE_VALUE_CHARS = 2000;
/** vitest's diff: at most this many lines (the rest in the report's expected/actual values). */
const FAILURE_DIFF_LINES = 400;

/** The vitest configuration keys that format failure messages (vitest-run.ts suiteConfig). */
export const failureFormat = {
  chaiConfig: { truncateThreshold: FAILURE_VALUE_CHARS, showDiff: true },
  diff: { printBasicPrototype: false, truncateThreshold: FAILURE_DIFF_LINES, expand: false, contextLines: 3 },
} as const;
