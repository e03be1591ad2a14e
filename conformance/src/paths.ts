// Paths of the suite. Where the repository is comes from spec/paths.ts, the one place that knows.
import path from 'node:path';
import { ROOT } from '../../spec/paths.js';

export { ROOT, SPEC_DIR } from '../../spec/paths.js';
export const SUITE_GLOB = 'conformance/suite/**/*.test.ts';

/** A file as the reports name it: relative to the repository root, with `/`; outside it, as given. */
export function relFile(file: string): string {
  const rel = path.relative(ROOT, file);
  return rel.startsWith('..') ? file : rel.split(path.sep).join('/');
}
