import { fileURLToPath } from 'node:url';
import path from 'node:path';

/** Repository root (the directory holding package.json). */
export const ROOT = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
export const SUITE_GLOB = 'conformance/suite/**/*.test.ts';
export const SPEC_DIR = path.join(ROOT, 'spec');
