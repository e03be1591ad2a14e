// Paths of the suite. Where the repository is comes from spec/paths.ts, the one place that knows.
export { ROOT, SPEC_DIR } from '../../spec/paths.js';
export const SUITE_GLOB = 'conformance/suite/**/*.test.ts';
