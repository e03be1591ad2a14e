// The order in which the suite's files start. A run has fewer workers than files, so a file that
// starts late finishes late; against a far target the run lasts as long as its longest chain of
// requests in a row, and that chain must start at once. Measured in a traced core run at 200 ms per
// request (docs/benchmarks.md): the model-based test is one chain of 72 requests (about 14 s), and
// with vitest's own order (larger files first) it started 7.9 s after the others, behind smaller
// but bigger-on-disk files; the run's main phase ended with it.
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import path from 'node:path';

/** Suite files whose tests hold the run's longest chains of requests in a row, longest first
 * (a traced core run: model-based 72, links 44, query 44, auth under 25). Files not named keep
 * vitest's order after them. */
const LONG_CHAINS_FIRST = [
  'model-based.test.ts',
  // the files whose tests wait for an effect's absence (t.expectStaysAbsent, a timer of at least
  // --absence-floor): started early, the window passes beside the other files' requests
  'members.test.ts',
  'binding.test.ts',
  'links.test.ts',
  'query.test.ts',
  'auth.test.ts',
];

function rank(spec: TestSpecification): number {
  const i = LONG_CHAINS_FIRST.indexOf(path.basename(spec.moduleId));
  return i < 0 ? LONG_CHAINS_FIRST.length : i;
}

/** vitest's sequencer with the long-chain files moved to the front (a stable sort keeps vitest's
 * order among the rest). */
export class LongChainsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files))
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map((x) => x.spec);
  }
}
