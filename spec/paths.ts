// Where the repository is (or, installed as a package, the package): the one place that knows.
// Every part reads the spec, so its location lives with the spec, and the spec imports nothing.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the directory holding package.json, spec/, conformance/, ... */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** spec/: openapi.yaml, requirements.yaml, provider-states.yaml, generated/. */
export const SPEC_DIR = join(ROOT, 'spec');
