// Prints the closing line of a CI run, summed over the three parts of `npm test`:
//   tests: N passed, N failed
// from the project's vitest run (reports/tmp/vitest-results.json), the conformance run against the
// reference container (reports/ci/results.json: one check per testable requirement) and the
// mutation gate of this run (reports/tmp/mutation/mutation.json: one check per fault and one per
// control; never the committed reports/mutation.json, which another run wrote) and the peer gate
// (reports/peers/peers.json: one check per independent peer implementation). A missing file is an error.
import { readFileSync } from 'node:fs';

const read = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    console.error(`summary: cannot read ${file}: ${err.message}`);
    process.exit(1);
  }
};

const vitest = read('reports/tmp/vitest-results.json');
const conf = read('reports/ci/results.json');
const mutation = read('reports/tmp/mutation/mutation.json');
const peers = read('reports/peers/peers.json');

const parts = [
  {
    name: 'unit and integration tests',
    passed: vitest.numPassedTests,
    failed: vitest.numFailedTests,
    skipped: vitest.numPendingTests + vitest.numTodoTests,
  },
  {
    name: 'conformance requirements (reference container)',
    passed: conf.counts.passed,
    failed:
      conf.counts.failed +
      (conf.counts.blocked ?? 0) +
      conf.counts.error +
      conf.counts['precondition-failed'] +
      conf.counts.untested,
    skipped: conf.counts['not-applicable'] + conf.counts['not-testable'],
  },
  {
    name: 'independent peers that pass core (0 failed, 0 blocked)',
    passed: peers.runs.filter((r) => r.verdict?.ok).length,
    failed: peers.runs.filter((r) => !r.verdict?.ok).length,
    skipped: 0,
  },
  {
    name: 'injected faults caught',
    passed: mutation.score.caught,
    failed: mutation.score.total - mutation.score.caught,
    skipped: 0,
  },
  {
    name: 'controls passed (allowed behaviours core must not fail)',
    passed: mutation.falseAlarms.total - mutation.falseAlarms.failed,
    failed: mutation.falseAlarms.failed,
    skipped: 0,
  },
];
for (const p of parts) console.log(`  ${p.name}: ${p.passed} passed, ${p.failed} failed, ${p.skipped} skipped`);
const sum = (k) => parts.reduce((n, p) => n + p[k], 0);
console.log(`tests: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
process.exit(sum('failed') > 0 ? 1 : 0);
