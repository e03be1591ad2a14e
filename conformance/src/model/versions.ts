// The versions a run names in its reports: the suite's (package.json) and the spec's (openapi.json).
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../../spec/paths.js';

export function suiteVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/**
 * The spec's version: the OpenAPI document's (`openApiVersion`, which may throw when the document
 * cannot be read), else the catalogue's.
 */
export function specVersion(cat: { version: string }, openApiVersion: () => string): string {
  try {
    return openApiVersion() || cat.version;
  } catch {
    return cat.version;
  }
}
