// The summary line of a model-based test's coverage figure (model/model-coverage.ts).
import type { ModelCoverage } from '../model/model-coverage.js';

/** One line: how many distinct commands, pairs and triples a test drew, over how many steps. */
export function modelCoverageLine(testId: string, c: ModelCoverage): string {
  const n = (m: Record<string, number>) => Object.keys(m).length;
  return `Model coverage (${testId}): ${n(c.commands)} commands, ${n(c.pairs)} pairs, ${n(c.triples)} (command, user, object) triples drawn in ${c.steps} steps of ${c.sequences} sequences`;
}
